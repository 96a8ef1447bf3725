/*
 * Private declarations of the glTF reader (src/gltf/). Not installed.
 *
 * Loading runs in stages over one context (cna__gltf_ctx): container (glb.c),
 * JSON parse (document.c), top-level counts, then one parser per object kind
 * (buffers.c, accessor.c, material.c, mesh.c, scene.c, animation.c) that
 * checks syntax, types and index ranges, then the semantic validation
 * (validate_*.c). Every array and string of the document lives in the
 * document's arena; temporary state lives in the context's scratch arena.
 */
#ifndef CNA_GLTF_INTERNAL_H
#define CNA_GLTF_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cna/gltf.h"
#include "core/internal.h"

/* ------------------------------------------------------------------ arena */

typedef struct cna__gltf_arena_block cna__gltf_arena_block;

/* Bump allocator over blocks obtained from `alloc`; freed all at once. */
typedef struct cna__gltf_arena {
    cna_allocator alloc;
    cna__gltf_arena_block *head;
} cna__gltf_arena;

void cna__gltf_arena_init(cna__gltf_arena *arena, const cna_allocator *alloc);
/* Zeroed memory aligned for any type; NULL on overflow or failure. */
void *cna__gltf_arena_calloc(cna__gltf_arena *arena, size_t count, size_t size);
/* Uninitialised memory (for large byte blobs). */
void *cna__gltf_arena_alloc_raw(cna__gltf_arena *arena, size_t size);
/* Uninitialised memory for size bytes at the start of a new block of at least
 * cap bytes, which becomes the current block: later allocations use the rest. */
void *cna__gltf_arena_alloc_head(cna__gltf_arena *arena, size_t size, size_t cap);
/* Copy of the NUL-terminated string s (or of len bytes of s, NUL added). */
char *cna__gltf_arena_strdup(cna__gltf_arena *arena, const char *s);
char *cna__gltf_arena_strndup(cna__gltf_arena *arena, const char *s, size_t len);
void cna__gltf_arena_free_all(cna__gltf_arena *arena);

/* ------------------------------------------------------------------ JSON tree */

/* The parsed JSON: cJSON's tree in 32 bytes a node instead of 64 (a
 * container's children, a string's bytes and a number's value share one
 * field), built by json_fast.c from the text or copied from cJSON's tree.
 * Values keep cJSON's types (cJSON_Number, ...); numbers are cJSON's
 * valuedouble. Every node and string lives in an arena (or, for strings,
 * in json_fast.c's table of common ones) and is only read. */
typedef struct cna__json {
    struct cna__json *next;   /* next element or member; NULL after the last */
    const char *string;       /* a member's key; NULL in arrays and for the root */
    union {
        struct cna__json *child;  /* cJSON_Array, cJSON_Object: first element or member */
        const char *valuestring;  /* cJSON_String */
        double valuedouble;       /* cJSON_Number */
    };
    int type;                 /* cJSON_False, cJSON_True, cJSON_NULL, cJSON_Number, cJSON_String,
                               * cJSON_Array or cJSON_Object */
} cna__json;

/* First element or member of a container; NULL for anything else. */
static inline const cna__json *cna__json_first(const cna__json *v)
{
    return v != NULL && (v->type == cJSON_Array || v->type == cJSON_Object) ? v->child : NULL;
}
/* cJSON_ArrayForEach: every element or member of arr (none unless a container). */
#define cna__json_for_each(element, arr) for (element = cna__json_first(arr); element != NULL; element = element->next)
/* cJSON_GetArraySize: the number of elements or members. */
static inline int cna__json_count(const cna__json *v)
{
    int n = 0;
    for (const cna__json *e = cna__json_first(v); e; e = e->next) n++;
    return n;
}

/* ------------------------------------------------------------------ json.c */

/* ------------------------------------------------------------------ context */

#define CNA__PATH_MAX 160

/* Diagnostic slots, one per code (merged by code). */
typedef enum cna__diag_code {
    CNA__DIAG_EXTENSION_IGNORED = 0,
    CNA__DIAG_IMAGE_MISSING,
    CNA__DIAG_CAMERA_SKIPPED,
    CNA__DIAG_QUATERNION_NOT_UNIT,
    CNA__DIAG_WEIGHTS_NOT_NORMALIZED,
    CNA__DIAG_UNUSED_OBJECT,
    CNA__DIAG_TEXCOORD_MISSING,
    CNA__DIAG_CHANNEL_IGNORED,
    CNA__DIAG_BUFFER_LONGER,
    CNA__DIAG_NO_POSITION,
    CNA__DIAG_VALUE_NOT_FINITE,
    CNA__DIAG_TARGET_NAMES_INVALID,
    CNA__DIAG_POSITION_BOUNDS_MISSING,
    CNA__DIAG_POINTER_UNSUPPORTED,
    CNA__DIAG_INSTANCE_ATTRIBUTE_IGNORED,
    CNA__DIAG_SKIN_SKELETON_HINT_IGNORED,
    CNA__DIAG_EMPTY_ARRAY,
    CNA__DIAG_ACCESSOR_MIN_MAX_COMPUTED,
    CNA__DIAG_KEY_TIMES_EQUAL,
    CNA__DIAG_MESHOPT_FALLBACK_READ,
    CNA__DIAG_TEXTURES_NOT_LOADED,
    CNA__DIAG_TEXTURE_EXTENSION_IGNORED,
    CNA__DIAG_COUNT
} cna__diag_code;

/* Kinds of top-level objects whose use is tracked ("unused-object"). */
typedef enum cna__kind {
    CNA__KIND_BUFFER_VIEW = 0,
    CNA__KIND_ACCESSOR,
    CNA__KIND_IMAGE,
    CNA__KIND_SAMPLER,
    CNA__KIND_TEXTURE,
    CNA__KIND_MATERIAL,
    CNA__KIND_MESH,
    CNA__KIND_SKIN,
    CNA__KIND_CAMERA,
    CNA__KIND_COUNT
} cna__kind;

/* The document as allocated: the public struct first, private state after. */
typedef struct cna__gltf_doc {
    cna_gltf_document pub;
    cna_allocator alloc;
    cna__gltf_arena arena;
    cna_gltf_diagnostic diags[CNA__DIAG_COUNT]; /* in order of first occurrence */
    uint8_t diag_slot[CNA__DIAG_COUNT];         /* code -> index in diags + 1; 0 = none yet */
} cna__gltf_doc;

typedef struct cna__gltf_ctx {
    cna__gltf_doc *doc;
    cna__gltf_arena *arena;       /* == &doc->arena: what the document keeps */
    cna__gltf_arena scratch;      /* freed when the load returns */
    cna_error *err;

    /* options, resolved */
    cna_gltf_resolve_fn resolve;
    cna_gltf_release_fn release;
    void *resolver_user_data;
    size_t max_size;
    size_t max_decoded;      /* cna_gltf_options.max_decoded_size, resolved */
    const char *base_dir;    /* load_file without resolver: folder of the file; else NULL */
    char *base_real;         /* realpath(base_dir), computed on first use (scratch) */
    const char *root_real;   /* load_file without resolver, with asset_root: its realpath; else NULL */
    bool from_memory;        /* load_memory (no folder to resolve against) */
    bool no_textures;        /* cna_gltf_options.no_textures: images are not read */

    /* container */
    bool is_glb;
    const uint8_t *glb_bin;  /* BIN chunk (inside the input bytes or the document blob) */
    size_t glb_bin_size;
    bool glb_has_bin;
    bool glb_bin_in_place;   /* the input bytes belong to the document: no copy of BIN */

    const cna__json *root;
    bool quantization;       /* KHR_mesh_quantization is used */
    size_t decoded_bytes;    /* decoded from compressed views and primitives so far (<= max_size) */
    uint8_t *fallback;       /* per buffer: an EXT_meshopt_compression fallback (scratch): 1 not read,
                                2 read because an uncompressed view refers to it */
    const char **fallback_uri; /* per fallback buffer: its uri (NULL: none), read on first plain use */
    size_t n_draco_views;    /* views made for decoded Draco accessors, after the file's n_views */
    size_t draco_view_cap;   /* room for them in `views` (counted before parsing) */
    int32_t *draco_view;     /* per accessor: the Draco bufferView decoded into it, or -1 (scratch) */
    int64_t *draco_attr;     /* per accessor: the Draco attribute id it holds; -1 for indices (scratch) */

    /* top-level counts (from the JSON, before parsing) */
    size_t n_buffers, n_views, n_accessors, n_images, n_samplers, n_textures, n_materials,
        n_meshes, n_nodes, n_skins, n_animations, n_scenes, n_cameras;

    /* mutable views of the document's arrays */
    cna_gltf_buffer *buffers;
    cna_gltf_buffer_view *views;
    cna_gltf_accessor *accessors;
    cna_gltf_image *images;
    cna_gltf_sampler *samplers;
    cna_gltf_texture *textures;
    cna_gltf_material *materials;
    cna_gltf_mesh *meshes;
    cna_gltf_node *nodes;
    cna_gltf_skin *skins;
    cna_gltf_animation *animations;
    cna_gltf_scene *scenes;

    /* use marks, one byte per object (scratch) */
    uint8_t *used[CNA__KIND_COUNT];
} cna__gltf_ctx;

/* Record a diagnostic (merged by code; the first message is kept). */
void cna__gltf_diag(cna__gltf_ctx *c, cna__diag_code code, const char *fmt, ...) CNA__PRINTF(3, 4);
/* Mark object `index` of `kind` as used (index must be in range or -1). */
static inline void cna__gltf_use(cna__gltf_ctx *c, cna__kind kind, int32_t index)
{
    if (index >= 0 && c->used[kind]) c->used[kind][index] = 1;
}

/* |1 - |q|| above this is the diagnostic "quaternion-not-unit". */
#define CNA__UNIT_TOLERANCE 5e-5
/* Node matrices: the last row may differ from (0, 0, 0, 1) by this much, and
 * two columns of the upper 3x3 may have |cos| of their angle up to the shear
 * tolerance (1e-3: about 0.057 degrees off a right angle). */
#define CNA__MATRIX_ROW_TOLERANCE 1e-6f
#define CNA__MATRIX_SHEAR_TOLERANCE 1e-3
/* Inverse bind matrices: last row within this of (0, 0, 0, 1). */
#define CNA__IBM_ROW_TOLERANCE 1e-5f
/* TANGENT w must be within this of +1 or -1. */
#define CNA__TANGENT_SIGN_TOLERANCE 1e-4f

/* true when |1 - |q|| <= CNA__UNIT_TOLERANCE (q is x, y, z, w). */
bool cna__gltf_quat_is_unit(const float *q);

/* snprintf for JSON paths and short texts (truncation is accepted). */
void cna__gltf_pathf(char *buf, size_t size, const char *fmt, ...) CNA__PRINTF(3, 4);

/* buf = a followed by b, truncated to size - 1 bytes like snprintf("%s%s"). */
void cna__gltf_path_cat(char *buf, size_t size, const char *a, const char *b);
/* buf = prefix "[" index "]" suffix, truncated to size (a fast path for JSON paths). */
void cna__gltf_path_index(char *buf, size_t size, const char *prefix, size_t index, const char *suffix);

/* buf = parent key "[" index "]" suffix (buf must not overlap parent). */
void cna__gltf_path_prefixed(char *buf, size_t size, const char *parent, const char *key, size_t index,
                             const char *suffix);

/* Shortest decimal text that reads back as the same float / double. */
void cna__gltf_fmt_float(char *buf, size_t size, float v);
void cna__gltf_fmt_double(char *buf, size_t size, double v);

/* cJSON_IsNumber, cJSON_IsObject, ... inlined (the same tests on the type byte). */
static inline bool cna__gltf_is_type(const cna__json *v, int type)
{
    return v != NULL && (v->type & 0xFF) == type;
}
static inline bool cna__gltf_is_number(const cna__json *v) { return cna__gltf_is_type(v, cJSON_Number); }
static inline bool cna__gltf_is_string(const cna__json *v) { return cna__gltf_is_type(v, cJSON_String); }
static inline bool cna__gltf_is_array(const cna__json *v) { return cna__gltf_is_type(v, cJSON_Array); }
static inline bool cna__gltf_is_object(const cna__json *v) { return cna__gltf_is_type(v, cJSON_Object); }
static inline bool cna__gltf_is_null(const cna__json *v) { return cna__gltf_is_type(v, cJSON_NULL); }
static inline bool cna__gltf_is_true(const cna__json *v) { return cna__gltf_is_type(v, cJSON_True); }
static inline bool cna__gltf_is_bool(const cna__json *v)
{
    return v != NULL && (v->type & (cJSON_True | cJSON_False)) != 0;
}

/* Member `key` of object `obj`, or NULL (also when obj is not an object). */
const cna__json *cna__gltf_json_get(const cna__json *obj, const char *key);
/* Name of a JSON value's type for messages ("string", "number", ...). */
const char *cna__gltf_json_type_name(const cna__json *v);
/* The JSON text as the tree cJSON would build, nodes and strings in `arena`
 * (freed with it, never with cJSON_Delete), into *out; *out = NULL when the
 * text leaves the plain subset this parser handles: then parse it with cJSON
 * (src/gltf/json_fast.c). false: an allocation failed. */
bool cna__gltf_json_fast_parse(const uint8_t *text, size_t size, cna__gltf_arena *arena, const cna__json **out);
/* cJSON's tree as cna__json nodes and strings in `arena`; NULL when an
 * allocation failed. */
const cna__json *cna__gltf_json_from_cjson(const cJSON *v, cna__gltf_arena *arena);
/* `v` (at `path`) must be an object. */
cna_result cna__gltf_json_expect_object(const cna__json *v, const char *path, cna_error *err);

/* Optional integer-valued number member in [min, max]; absent leaves *out. */
cna_result cna__gltf_json_int(const cna__json *obj, const char *key, const char *path, bool required,
                         int64_t min, int64_t max, int64_t *out, cna_error *err);
/* Optional non-negative integer-valued member (<= 2^53 and SIZE_MAX); absent leaves *out. */
cna_result cna__gltf_json_size(const cna__json *obj, const char *key, const char *path, bool required,
                          size_t *out, cna_error *err);
/* Optional index into an array of `count` objects called `what` ("meshes");
 * absent gives -1. */
cna_result cna__gltf_json_index(const cna__json *obj, const char *key, const char *path, bool required,
                           size_t count, const char *what, int32_t *out, cna_error *err);
/* Optional finite number that fits a float; absent leaves *out. */
cna_result cna__gltf_json_float(const cna__json *obj, const char *key, const char *path, bool required,
                           float *out, cna_error *err);
/* Optional array of exactly n finite floats; absent leaves out, *present false. */
cna_result cna__gltf_json_floats(const cna__json *obj, const char *key, const char *path, size_t n, float *out,
                            bool *present, cna_error *err);
/* Optional array of any length (>= min_items) of finite floats, copied into the arena. */
cna_result cna__gltf_json_float_array(cna__gltf_ctx *c, const cna__json *obj, const char *key, const char *path,
                                 size_t min_items, float **out, size_t *count);
/* Optional boolean; absent leaves *out. */
cna_result cna__gltf_json_bool(const cna__json *obj, const char *key, const char *path, bool *out, cna_error *err);
/* Optional string (borrowed from the JSON tree); absent gives NULL. */
cna_result cna__gltf_json_string_ref(const cna__json *obj, const char *key, const char *path, bool required,
                                const char **out, cna_error *err);
/* Optional string copied into the document arena; absent gives NULL. */
cna_result cna__gltf_json_string(cna__gltf_ctx *c, const cna__json *obj, const char *key, const char *path,
                            bool required, const char **out);
/* Optional array member with at least min_items entries; absent gives NULL, 0. */
cna_result cna__gltf_json_array(const cna__json *obj, const char *key, const char *path, bool required,
                           size_t min_items, const cna__json **out, size_t *count, cna_error *err);
/* The value v (at path) as an index into `count` `what`s. */
cna_result cna__gltf_json_index_value(const cna__json *v, const char *path, size_t count, const char *what, int32_t *out,
                                 cna_error *err);
/* Optional array of indices into `count` `what`s, copied into the arena. */
cna_result cna__gltf_json_index_array(cna__gltf_ctx *c, const cna__json *obj, const char *key, const char *path,
                                 bool required, size_t min_items, size_t count, const char *what,
                                 int32_t **out, size_t *n);

/* ------------------------------------------------------------------ glb.c */

typedef struct cna__gltf_glb {
    const uint8_t *json;
    size_t json_size;
    const uint8_t *bin;  /* NULL when there is no BIN chunk */
    size_t bin_size;
    bool has_bin;
} cna__gltf_glb;

/* true when data starts with the GLB magic "glTF". */
bool cna__gltf_glb_is(const uint8_t *data, size_t size);
/* Split a GLB container into its chunks (pointers into data). */
cna_result cna__gltf_glb_parse(const uint8_t *data, size_t size, cna__gltf_glb *out, cna_error *err);

/* A GLB file read in pieces (load_file): the container header and the first
 * chunk's header (CNA__GLTF_GLB_HEAD bytes), the first chunk's data, and the
 * bytes after it (the BIN chunk and any others), each in its own block so that
 * the JSON's block can be freed once parsed. */
#define CNA__GLTF_GLB_HEAD 20u
/* true when head (the first CNA__GLTF_GLB_HEAD of size bytes) passes every check
 * cna__gltf_glb_parse makes on the header and the first chunk's header, the
 * first chunk being a non-empty JSON chunk of *json_size bytes. */
bool cna__gltf_glb_split_size(const uint8_t head[CNA__GLTF_GLB_HEAD], size_t size, size_t *json_size);
/* cna__gltf_glb_parse of the container head + json + rest (size bytes in all),
 * with the same checks and messages; pointers into json and rest. */
cna_result cna__gltf_glb_parse_split(const uint8_t head[CNA__GLTF_GLB_HEAD], const uint8_t *json, const uint8_t *rest,
                                     size_t size, cna__gltf_glb *out, cna_error *err);

/* ------------------------------------------------------------------ uri.c */

/* true when uri starts with "data:" (case-insensitive scheme). */
bool cna__gltf_uri_is_data(const char *uri);
/* Decode a data URI "data:[mime][;params][;base64],<payload>" into arena
 * bytes: base64 (strict) or, without ";base64", percent-encoded (RFC 2397).
 * mime/mime_len (optional) receive the media type text. PARSE on bad data. */
cna_result cna__gltf_data_uri_decode(cna__gltf_arena *arena, const char *uri, const uint8_t **data, size_t *size,
                                const char **mime, size_t *mime_len, cna_error *err);
/* Bytes base64 text of `len` characters decodes to; false when the length is impossible. */
bool cna__gltf_base64_decoded_size(const char *in, size_t len, size_t *out);
/* Strict base64 (RFC 4648 alphabet, '=' padding optional but only at the end,
 * no whitespace, unused bits zero). out must hold cna__gltf_base64_decoded_size bytes. */
cna_result cna__gltf_base64_decode(const char *in, size_t len, uint8_t *out, cna_error *err);
/* Percent-decode a URI into the arena (PARSE on a bad escape or %00). */
cna_result cna__gltf_uri_percent_decode(cna__gltf_arena *arena, const char *uri, char **out, cna_error *err);
/* Refuse (INVALID_DATA) a decoded URI that is not a plain relative path:
 * empty, scheme, absolute, backslash, and (unless allow_dotdot, when the
 * caller checks the real path against an asset root) a ".." segment. */
cna_result cna__gltf_uri_check_relative(const char *decoded, bool allow_dotdot, cna_error *err);

/* ------------------------------------------------------------------ io.c */

/* Largest real path of an asset root (a buffer of this size receives it). */
#define CNA__GLTF_ROOT_MAX 4096

/* realpath of cna_gltf_options.asset_root into out (out_size bytes): IO when
 * it cannot be resolved (named, with the reason), INVALID_ARGUMENT when it is
 * empty or not a folder, LIMIT when the real path does not fit. */
cna_result cna__gltf_asset_root_real(const char *root, char *out, size_t out_size, cna_error *err);

/* Read a whole regular file into memory from `arena` (IO, LIMIT). */
cna_result cna__gltf_read_file(cna__gltf_arena *arena, const char *path, size_t max_size, uint8_t **data, size_t *size,
                          cna_error *err);
/* A file for load_file: a GLB that cna__gltf_glb_split_size accepts is read in
 * pieces (split; head, json, rest), anything else whole (data). */
typedef struct cna__gltf_input {
    size_t size;                       /* the file's bytes */
    uint8_t *data;                     /* !split: all of them */
    bool split;
    uint8_t head[CNA__GLTF_GLB_HEAD];  /* split: the first bytes */
    uint8_t *json;                     /* split: the JSON chunk (json_arena) */
    size_t json_size;
    uint8_t *rest;                     /* split: the bytes after the JSON chunk (arena) */
} cna__gltf_input;
/* Read path (at most max_size bytes, same errors as cna__gltf_read_file);
 * a split GLB's JSON chunk goes to json_arena, everything else to arena. */
cna_result cna__gltf_read_input(cna__gltf_arena *arena, cna__gltf_arena *json_arena, const char *path, size_t max_size,
                                cna__gltf_input *in, cna_error *err);
/* Resolve an external URI (decoded) for a buffer or image. For buffers the
 * bytes are copied into the document arena; for images only existence is
 * checked (*data may stay NULL). *path receives the file path used by the
 * default resolution (document arena) or NULL. Errors as documented in
 * cna_gltf_options; the message names the URI. */
cna_result cna__gltf_resolve_uri(cna__gltf_ctx *c, cna_gltf_uri_kind kind, const char *decoded,
                            const uint8_t **data, size_t *size, const char **path, cna_error *err);

/* ------------------------------------------------------------------ parsers */

cna_result cna__gltf_parse_buffers(cna__gltf_ctx *c);
cna_result cna__gltf_parse_buffer_views(cna__gltf_ctx *c);
cna_result cna__gltf_parse_accessors(cna__gltf_ctx *c);
cna_result cna__gltf_parse_images(cna__gltf_ctx *c);
cna_result cna__gltf_parse_samplers(cna__gltf_ctx *c);
cna_result cna__gltf_parse_textures(cna__gltf_ctx *c);
cna_result cna__gltf_parse_materials(cna__gltf_ctx *c);
cna_result cna__gltf_parse_meshes(cna__gltf_ctx *c);
cna_result cna__gltf_parse_nodes(cna__gltf_ctx *c);
cna_result cna__gltf_parse_skins(cna__gltf_ctx *c);
cna_result cna__gltf_parse_scenes(cna__gltf_ctx *c);
cna_result cna__gltf_parse_animations(cna__gltf_ctx *c);

/* ------------------------------------------------------------------ compression (meshopt.c, draco.c) */

/* buffers[i].extensions.EXT_meshopt_compression: *fallback = its `fallback`
 * flag (false without the extension). */
cna_result cna__gltf_meshopt_buffer(cna__gltf_ctx *c, const cna__json *buffer, const char *buffer_path, bool *fallback);
/* A bufferView with EXT_meshopt_compression (ext, at view_path): checks every
 * rule of the extension, decodes into the document and sets v->data. */
cna_result cna__gltf_meshopt_view(cna__gltf_ctx *c, const cna__json *ext, const char *view_path,
                                  cna_gltf_buffer_view *v);
/* The OCTAHEDRAL filter of `count` elements of `stride` bytes (4: 8-bit, 8:
 * 16-bit components), in place, with correctly rounded operations only (the
 * same bytes on every CPU); meshopt.c says how. */
void cna__meshopt_octahedral_filter(uint8_t *p, size_t count, size_t stride);
/* Views the KHR_draco_mesh_compression primitives of the JSON may need (one
 * per attribute of each extension object, plus its indices). */
size_t cna__gltf_draco_view_count(const cna__json *root);
/* A primitive with KHR_draco_mesh_compression (ext, at prim_path): decodes
 * the Draco bufferView into the accessors the extension names (the
 * primitive's attributes and indices), or keeps their uncompressed data when
 * every one of them has a bufferView of its own. */
cna_result cna__gltf_draco_primitive(cna__gltf_ctx *c, const cna__json *ext, const char *prim_path,
                                     const cna_gltf_primitive *p);
/* true when cna was built with Draco (CNA_WITH_DRACO). */
bool cna__gltf_draco_available(void);

/* ------------------------------------------------------------------ validation */

/* Allowed accessor types and (componentType, normalized) pairs for one use. */
#define CNA__CT(ct, norm) (1u << ((unsigned)(ct) * 2u + ((norm) ? 1u : 0u)))
#define CNA__F CNA__CT(CNA_GLTF_COMPONENT_FLOAT, 0)
#define CNA__B CNA__CT(CNA_GLTF_COMPONENT_BYTE, 0)
#define CNA__BN CNA__CT(CNA_GLTF_COMPONENT_BYTE, 1)
#define CNA__UB CNA__CT(CNA_GLTF_COMPONENT_UNSIGNED_BYTE, 0)
#define CNA__UBN CNA__CT(CNA_GLTF_COMPONENT_UNSIGNED_BYTE, 1)
#define CNA__S CNA__CT(CNA_GLTF_COMPONENT_SHORT, 0)
#define CNA__SN CNA__CT(CNA_GLTF_COMPONENT_SHORT, 1)
#define CNA__US CNA__CT(CNA_GLTF_COMPONENT_UNSIGNED_SHORT, 0)
#define CNA__USN CNA__CT(CNA_GLTF_COMPONENT_UNSIGNED_SHORT, 1)
#define CNA__UI CNA__CT(CNA_GLTF_COMPONENT_UNSIGNED_INT, 0)
#define CNA__TY(t) (1u << (unsigned)(t))

typedef struct cna__gltf_accessor_rule {
    uint32_t types;           /* CNA__TY bits */
    uint32_t comps;           /* CNA__CT bits allowed by glTF 2.0 */
    uint32_t quantized_comps; /* further CNA__CT bits allowed by KHR_mesh_quantization */
    const char *text;         /* what is expected, for the message */
} cna__gltf_accessor_rule;

/* INVALID_DATA "<path>: accessors[i] is VEC4 FLOAT; expected <text>" unless allowed. */
cna_result cna__gltf_check_rule(cna__gltf_ctx *c, const char *path, int32_t accessor,
                                    const cna__gltf_accessor_rule *rule);

/* Publish the context's arrays into the public document (idempotent). */
void cna__gltf_publish(cna__gltf_ctx *c);

cna_result cna__gltf_validate_nodes(cna__gltf_ctx *c);      /* forest, scenes, skins, instance values */
cna_result cna__gltf_validate_meshes(cna__gltf_ctx *c);     /* attributes, indices, targets */
cna_result cna__gltf_validate_skinning(cna__gltf_ctx *c);   /* skinned nodes: joints/weights vs skins */
cna_result cna__gltf_validate_animations(cna__gltf_ctx *c); /* samplers, channels */
void cna__gltf_report_unused(cna__gltf_ctx *c);

/* ------------------------------------------------------------------ accessor.c (internal reads) */

/* Accessor element read without argument checks (the document is validated). */
void cna__gltf_accessor_element_floats(const cna_gltf_document *doc, const cna_gltf_accessor *acc, size_t element,
                                  float *out);
/* A FLOAT accessor stored in a buffer view (not sparse): its first element's
 * bytes (element e at + e * byte_stride, little-endian floats); else NULL. */
const uint8_t *cna__gltf_accessor_float_base(const cna_gltf_document *doc, const cna_gltf_accessor *acc);
/* The little-endian float at p. */
static inline float cna__gltf_f32le(const uint8_t *p)
{
    uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
/* true when the accessor is dense FLOAT in a bufferView and every value is
 * finite (one pass over the bytes); false otherwise (check element by element). */
bool cna__gltf_accessor_all_finite(const cna_gltf_document *doc, const cna_gltf_accessor *acc);
void cna__gltf_accessor_element_uints(const cna_gltf_document *doc, const cna_gltf_accessor *acc, size_t element,
                                 uint32_t *out);
/* "VEC4 normalized UNSIGNED_BYTE" into buf. */
void cna__gltf_accessor_describe(const cna_gltf_accessor *acc, char *buf, size_t size);

#endif
