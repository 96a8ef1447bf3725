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
 */
#ifndef CNA_BAKED_H
#define CNA_BAKED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cna/alloc.h"
#include "cna/anim.h"
#include "cna/device.h"
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
 * same bits back. The root_prefix block is written only when
 * root_prefix_count == bone_count (otherwise the prefix is identity anyway).
 * Clips and skeleton_root_* are not written.
 * The text (NUL-terminated, *out_size bytes without the NUL) is allocated
 * with `allocator` (NULL: malloc); free it with cna_cnj_text_free.
 * Errors (nothing allocated): CNA_ERROR_INVALID_ARGUMENT for NULL arguments
 * or data that cna_skinning_data_validate refuses (its message);
 * CNA_ERROR_OUT_OF_MEMORY. */
cna_result cna_cnj_write_memory(const cna_skinning_data *data, const cna_allocator *allocator,
                                char **out_text, size_t *out_size, cna_error *err);
void cna_cnj_text_free(const cna_allocator *allocator, char *text);

/* Write the sidecar to `path` (replacing it). Errors: as cna_cnj_write_memory;
 * CNA_ERROR_IO when the file cannot be written ("robot.cnj: No such file ..."). */
cna_result cna_cnj_write_file(const char *path, const cna_skinning_data *data, cna_error *err);

/* Read a sidecar from `size` bytes of JSON text (need not be NUL-terminated).
 * Rules, checked in this order, each refusal naming the field and value:
 *   the text parses as JSON (CNA_ERROR_PARSE, "cnj: not valid JSON near byte 12");
 *   the root is an object; "format" (when present) is "cna-skeleton/1";
 *   "bone_count" is an integer in 0 .. CNA_MAX_BONE_COUNT (100000), checked
 *     before any skeleton array is allocated ("bone_count: 100001 is outside
 *     0..100000", CNA_ERROR_LIMIT above the bound; a negative or non-integer
 *     value is CNA_ERROR_INVALID_DATA);
 *   "hierarchy", "bind_pose", "inverse_bind_pose" are arrays of exactly
 *     bone_count entries ("bind_pose: 3 entries; bone_count is 2");
 *   "root_prefix" is absent (an old two-block sidecar: root_prefix_count 0,
 *     read as identity) or has exactly bone_count entries;
 *   every matrix is an array of 16 finite numbers ("bind_pose[1][12]: not a
 *     finite number"); every parent an integer below its own index
 *     (negative = root, stored as -1).
 * Other keys are ignored. The result's cna_skinning_data has no clips and
 * skeleton_root_node -1. *out is unchanged on error and nothing leaks.
 * Errors: CNA_ERROR_INVALID_ARGUMENT (NULL text with size > 0, NULL out);
 * CNA_ERROR_PARSE; CNA_ERROR_INVALID_DATA; CNA_ERROR_LIMIT; out of memory. */
cna_result cna_cnj_read_memory(const char *text, size_t size, const cna_allocator *allocator,
                               cna_cnj_skeleton **out, cna_error *err);

/* Read the file at `path` (CNA_ERROR_IO when it cannot be read) and
 * cna_cnj_read_memory its contents. */
cna_result cna_cnj_read_file(const char *path, const cna_allocator *allocator,
                             cna_cnj_skeleton **out, cna_error *err);

/* The skeleton as a SkinningData view (arrays owned by the skeleton, valid
 * until cna_cnj_skeleton_free). NULL for NULL. */
const cna_skinning_data *cna_cnj_skeleton_data(const cna_cnj_skeleton *skeleton);

/* Free a skeleton; NULL is accepted. */
void cna_cnj_skeleton_free(cna_cnj_skeleton *skeleton);

#ifdef __cplusplus
}
#endif
#endif /* CNA_BAKED_H */
