/*
 * cna/baked.h — baked assets: the skeleton sidecar (.cnj, JSON) and the
 * binary model (.cnb, docs/format-cnb.md).
 *
 * A .cnj sidecar holds one SkinningData's skeleton: bone count, hierarchy,
 * bind pose, inverse bind pose and an optional third block of root prefixes
 * (spec: "Why the prefix must stay separate"; a sidecar without the third
 * block loads unchanged and its prefix reads as identity). Clips are not part
 * of a sidecar.
 *
 * A .cnb file holds everything a loaded cna_model holds, so that loading it is
 * one read into one allocation, validation and pointer fix-ups; the result is
 * an ordinary cna_model (free it with cna_model_free).
 *
 * Usage — write a skeleton sidecar and read it back:
 *   cna_cnj_write_file("robot.cnj", &model->skins[0].data, &err);
 *   cna_cnj_skeleton *skel;
 *   if (cna_cnj_read_file("robot.cnj", NULL, &skel, &err) == CNA_OK) {
 *       cna_player_create(cna_cnj_skeleton_data(skel), NULL, &player, &err);
 *       ...
 *       cna_player_free(player);
 *       cna_cnj_skeleton_free(skel);   // after every player borrowing it
 *   }
 *
 * Usage — bake a model and load it:
 *   cna_cnb_write_file(model, NULL, "robot.cnb", &err);          // unit scale 1
 *   cna_model *baked;
 *   cna_cnb_load_file("robot.cnb", NULL, &baked, &err);
 *   ...
 *   cna_model_free(baked);
 *
 * Libraries: the .cnb reader (cna_cnb_is_cnb, cna_cnb_load_memory,
 * cna_cnb_load_file) is in the runtime, libcna, all a game that ships .cnb
 * files links; the .cnb writer and the .cnj sidecar (JSON) are in the
 * importer, libcna_gltf. Key reduction (cna_model_reduce_keys) and
 * cna_model_load_any, which this header declared before, are importer
 * functions declared in cna/import.h, which this header includes.
 */
#ifndef CNA_BAKED_H
#define CNA_BAKED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cna/alloc.h"
#include "cna/anim.h"
#include "cna/export.h"
#include "cna/import.h"
#include "cna/model.h"
#include "cna/result.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ================================================================== .cnj skeleton sidecar */

/* The "format" string of a sidecar. */
#define CNA_CNJ_FORMAT "cna-skeleton/1"

/* A skeleton read from a sidecar: owns its arrays. */
typedef struct cna_cnj_skeleton cna_cnj_skeleton;

/* Write the skeleton of `data` as JSON text:
 *   {"format": "cna-skeleton/1", "bone_count": N,
 *    "hierarchy": [N integers],
 *    "bind_pose": [N arrays of 16 numbers], "inverse_bind_pose": [N x 16],
 *    "root_prefix": [N x 16]}
 * Matrices column-major; every float printed with %.9g, so reading gives the
 * same bits back (in the default floating-point environment: where the host
 * set flush-to-zero or denormals-are-zero, a subnormal number is written or
 * read back as 0). The root_prefix block is written only when
 * root_prefix_count == bone_count (otherwise the prefix is identity anyway).
 * Clips and skeleton_root_* are not written.
 * The text (NUL-terminated, *out_size bytes without the NUL) is allocated
 * with `allocator` (NULL: malloc); free it with cna_cnj_text_free.
 * Errors (nothing allocated): CNA_ERROR_INVALID_ARGUMENT for NULL arguments
 * or data that cna_skinning_data_validate refuses (its message);
 * CNA_ERROR_OUT_OF_MEMORY. */
CNA_API cna_result cna_cnj_write_memory(const cna_skinning_data *data, const cna_allocator *allocator,
                                char **out_text, size_t *out_size, cna_error *err);
CNA_API void cna_cnj_text_free(const cna_allocator *allocator, char *text);

/* Write the sidecar to `path` (replacing it), atomically, as
 * cna_cnb_write_file does. Errors: as cna_cnj_write_memory; CNA_ERROR_IO
 * when the file cannot be written, with the system's reason ("robot.cnj:
 * cannot create a temporary file in "out": No such file or directory"). */
CNA_API cna_result cna_cnj_write_file(const char *path, const cna_skinning_data *data, cna_error *err);

/* Read a sidecar from `size` bytes of JSON text (need not be NUL-terminated).
 * Rules, checked in this order, each refusal naming the field and value:
 *   the text parses as JSON (CNA_ERROR_PARSE, "cnj: not valid JSON near byte 12";
 *     nesting past cJSON's 1000 levels: "cnj: JSON nested deeper than 1000
 *     levels at byte 1004");
 *   nothing but whitespace (or NUL padding) follows the JSON value
 *     (CNA_ERROR_PARSE, "cnj: trailing data after the JSON value at byte 240");
 *   the root is an object; "format" (when present) is "cna-skeleton/1";
 *   "bone_count" is an integer in 0 .. CNA_MAX_BONE_COUNT (100000), checked
 *     before any skeleton array is allocated ("cnj: bone_count: 100001 is
 *     outside 0..100000", CNA_ERROR_LIMIT above the bound; a negative or non-integer
 *     value is CNA_ERROR_INVALID_DATA);
 *   "hierarchy", "bind_pose", "inverse_bind_pose" are arrays of exactly
 *     bone_count entries ("cnj: bind_pose: 3 entries; bone_count is 2");
 *   "root_prefix" is absent (an old two-block sidecar: root_prefix_count 0,
 *     read as identity) or has exactly bone_count entries;
 *   every matrix is an array of 16 finite numbers ("cnj: bind_pose[1][12]:
 *     not a finite number"); every parent an integer below its own index
 *     (negative = root, stored as -1).
 * Other keys are ignored. The result's cna_skinning_data has no clips and
 * skeleton_root_node -1. *out is unchanged on error and nothing leaks.
 * Errors: CNA_ERROR_INVALID_ARGUMENT (NULL text with size > 0, NULL out);
 * CNA_ERROR_PARSE (also a NUL character, \u0000, in any string or member
 * name: "cnj: format: string contains a NUL character (\u0000)");
 * CNA_ERROR_INVALID_DATA; CNA_ERROR_LIMIT; out of memory. */
CNA_API cna_result cna_cnj_read_memory(const char *text, size_t size, const cna_allocator *allocator,
                               cna_cnj_skeleton **out, cna_error *err);

/* The largest .cnj file cna_cnj_read_file reads: 256 MiB, several times a
 * sidecar of CNA_MAX_BONE_COUNT bones (about 80 MB). */
#define CNA_CNJ_MAX_FILE_SIZE ((size_t)256 << 20)

/* Read the file at `path` and cna_cnj_read_memory its contents (every message
 * is prefixed with the path). The file must be a regular file (a FIFO,
 * directory or device is refused without reading from it or waiting on it)
 * of at most CNA_CNJ_MAX_FILE_SIZE bytes.
 * Errors: CNA_ERROR_IO when it cannot be opened or read ("robot.cnj: No such
 * file or directory", "robot.cnj: not a regular file"); CNA_ERROR_LIMIT above
 * the cap ("robot.cnj: 300000000 bytes exceed the limit of 268435456 bytes");
 * those of cna_cnj_read_memory. */
CNA_API cna_result cna_cnj_read_file(const char *path, const cna_allocator *allocator,
                             cna_cnj_skeleton **out, cna_error *err);

/* The skeleton as a SkinningData view (arrays owned by the skeleton, valid
 * until cna_cnj_skeleton_free). NULL for NULL. */
CNA_API const cna_skinning_data *cna_cnj_skeleton_data(const cna_cnj_skeleton *skeleton);

/* Free a skeleton; NULL is accepted. */
CNA_API void cna_cnj_skeleton_free(cna_cnj_skeleton *skeleton);

/* ================================================================== .cnb binary model */

/* Writer options; a zero-initialised struct (or NULL) means every default. */
typedef struct cna_cnb_write_options {
    cna_allocator allocator;  /* for the output bytes and scratch; default malloc/free */
    /* Multiplies every translation-bearing quantity (vertex positions, morph
     * position deltas, bone rest translations, bind-pose, inverse-bind,
     * root-prefix and fold translations, clip key translations (the
     * evaluated cubic curves, so their tangents too), mesh bounds, model
     * size); never rotations or scales.
     * 0 (default) means 1: the model's values bit for bit. */
    float unit_scale;
} cna_cnb_write_options;

/* Serialise `model` as .cnb bytes, version 4 (docs/format-cnb.md):
 * everything the model holds, its markers (cna_model_add_marker) included, so that cna_cnb_load_memory gives back an
 * equal model (the same bytes, matrices and keys). An array the model shares
 * (the same pointer: vertices of placements of one glTF mesh, key arrays,
 * one skin's clip set shared by the model skins of its instancing nodes) is
 * stored once. The bytes are allocated with opts->allocator; free them with
 * cna_cnb_bytes_free.
 * Images are stored with their encoded bytes: an external image file (the
 * model's image path) is read and embedded, so the .cnb is self-contained.
 * Errors (nothing allocated): CNA_ERROR_INVALID_ARGUMENT (NULL arguments,
 * a unit_scale that is negative, NaN or infinite); CNA_ERROR_IO when an
 * available external image file cannot be read (naming the image and path);
 * CNA_ERROR_UNSUPPORTED on a big-endian host; CNA_ERROR_OUT_OF_MEMORY. */
CNA_API cna_result cna_cnb_write_memory(const cna_model *model, const cna_cnb_write_options *opts,
                                void **out_bytes, size_t *out_size, cna_error *err);
CNA_API void cna_cnb_bytes_free(const cna_cnb_write_options *opts, void *bytes);

/* Write the .cnb bytes to `path` (replacing it).
 * Written atomically: the bytes go to a new temporary file ".<name>.XXXXXX"
 * in the folder of `path`, are flushed to the disk (fsync), and the file is
 * renamed over `path` only when complete. So a failure (a full disk, an I/O
 * error) leaves the previous file byte for byte as it was and removes the
 * temporary file; a process killed mid-write leaves the old file or the new
 * one, whole, and at most a temporary file that later writes ignore. The
 * new file gets mode 0666 & ~umask (0644 under umask 022), not the mode of
 * the file it replaces; a symbolic link at `path` is followed (the file it
 * leads to is replaced, the link kept; a loop of links is refused, CNA_ERROR_IO
 * "out.cnb: Too many levels of symbolic links", and left intact). A pipe, a
 * FIFO or a device (/dev/null, /dev/stdout into a pipe) is written in place,
 * in order, without a temporary file: atomicity is for regular files. Temporary bytes and paths use
 * opts->allocator.
 * Errors: as cna_cnb_write_memory; CNA_ERROR_IO when the file cannot be
 * written, with the system's reason ("out.cnb: write failed: No space left
 * on device", "out.cnb: rename failed: Permission denied"; nothing changes). */
CNA_API cna_result cna_cnb_write_file(const cna_model *model, const cna_cnb_write_options *opts,
                              const char *path, cna_error *err);

/* Loader options; zero (or NULL) means every default. */
typedef struct cna_cnb_load_options {
    cna_allocator allocator;  /* for the model; default malloc/free */
} cna_cnb_load_options;

/* true when `size` bytes at `bytes` start with the .cnb magic "CNB\0"
 * (false for NULL bytes). */
CNA_API bool cna_cnb_is_cnb(const void *bytes, size_t size);

/* Load a model from .cnb bytes: one copy into one allocation owned by the
 * model, then the checks of docs/format-cnb.md ("Validation": header, every
 * section entry, checksum, every record's references, counts, indices and
 * enums) before any pointer is used, then pointer fix-ups. Reads version 4
 * (what cna_cnb_write_memory writes; its markers are copied into the
 * model's marker storage), version 3 (no markers) and version 2 (the
 * release before: no markers, its per-frame fields are skipped, its morph
 * target names are absent and a split part's source_vertex_count is taken
 * as its largest source vertex + 1). Model skins that share one clip set in the file share it in the
 * model (the same data.clips pointer). Free the model with cna_model_free.
 * Errors (*out unchanged, nothing leaks): CNA_ERROR_INVALID_ARGUMENT (NULL
 * bytes with size > 0, NULL out); CNA_ERROR_PARSE (not a .cnb: bad magic,
 * "cnb: 10 bytes; the header needs 64"); CNA_ERROR_UNSUPPORTED (another
 * version: "cnb: version 5; this reader reads versions 2 to 4", non-zero
 * flags, a big-endian host); CNA_ERROR_INVALID_DATA (sizes,
 * checksum, references, counts, indices: "cnb: checksum 0x... does not match
 * the contents (0x...)", "cnb: parts[3].indices: 12 bytes; 6 elements of
 * 4 bytes are needed"); CNA_ERROR_OUT_OF_MEMORY. */
CNA_API cna_result cna_cnb_load_memory(const void *bytes, size_t size, const cna_cnb_load_options *opts,
                               cna_model **out, cna_error *err);

/* The largest .cnb file cna_cnb_load_file reads: 1 GiB, the glTF reader's
 * default cap (CNA_GLTF_DEFAULT_MAX_FILE_SIZE). A larger file can still be
 * loaded from memory with cna_cnb_load_memory. */
#define CNA_CNB_MAX_FILE_SIZE ((size_t)1 << 30)

/* Read the file at `path` with one read into the model's allocation and load
 * it as cna_cnb_load_memory does (every message is prefixed with the path).
 * The file must be a regular file: a FIFO, directory or device is refused
 * without reading from it or waiting on it. Its 64-byte header is read and
 * checked first (magic, version, flags, header size, total_size against the
 * file's size, section count and table), then the size against
 * CNA_CNB_MAX_FILE_SIZE, and only then is the rest allocated for and read:
 * a file that is not a .cnb of this version costs one 64-byte read.
 * Errors: CNA_ERROR_IO when it cannot be opened or read ("m.cnb: No such
 * file or directory", "m.cnb: not a regular file"); CNA_ERROR_LIMIT above the
 * cap ("m.cnb: cnb: 3221225472 bytes exceed the limit of 1073741824 bytes");
 * those of cna_cnb_load_memory. */
CNA_API cna_result cna_cnb_load_file(const char *path, const cna_cnb_load_options *opts, cna_model **out,
                             cna_error *err);

#ifdef __cplusplus
}
#endif
#endif /* CNA_BAKED_H */
