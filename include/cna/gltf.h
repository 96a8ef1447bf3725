/*
 * cna/gltf.h — the glTF 2.0 reader: a validated, index-based document model.
 *
 * A cna_gltf_document is everything a glTF 2.0 asset (.gltf JSON or .glb
 * binary container) declares, parsed into plain structs that refer to each
 * other by int32_t index (-1 = none), with every buffer's bytes owned by the
 * document. Loading validates the whole document before returning it: every
 * index is in range, every accessor, buffer view and buffer range is inside
 * its data (overflow-checked), the node graph is a forest, accessor types fit
 * their use, animation times increase, index values are below the vertex
 * count, and so on (docs/gltf-reader.md lists the rules). A document that
 * loads can therefore be read without further bounds checks: every accessor
 * read below stays inside the document's own memory.
 *
 * Compressed data is decoded while loading, so that the document always holds
 * plain glTF data: EXT_meshopt_compression buffer views (meshoptimizer's
 * codecs and filters; vertex, index and animation data) and, when cna is built
 * with Draco (CMake option CNA_WITH_DRACO), KHR_draco_mesh_compression
 * primitives, whose accessors then read the decoded vertices and indices.
 * Every accessor read below works the same on decoded and on stored data.
 *
 * Problems that do not stop the model from loading (a missing image, an
 * ignored optional extension, non-unit quaternion keys, skin weights that do
 * not sum to one, unused objects, skipped cameras) are diagnostics kept on
 * the document: a stable code string, how many times it occurred, and the
 * message of the first occurrence.
 *
 * Usage:
 *   cna_gltf_document *doc = NULL;
 *   cna_error err;
 *   if (cna_gltf_load_file("robot.glb", NULL, &doc, &err) != CNA_OK) {
 *       fprintf(stderr, "%s: %s\n", cna_result_name(err.code), err.message);
 *       return 1;
 *   }
 *   const cna_gltf_primitive *prim = &doc->meshes[0].primitives[0];
 *   int32_t pos = cna_gltf_primitive_find_attribute(prim, CNA_GLTF_ATTRIBUTE_POSITION, 0);
 *   size_t n = cna_gltf_accessor_float_count(doc, pos);     // count * 3
 *   float *xyz = malloc(n * sizeof *xyz);
 *   cna_gltf_accessor_read_floats(doc, pos, xyz, n, &err);
 *   for (size_t i = 0; i < cna_gltf_document_diagnostic_count(doc); i++)
 *       printf("warning %s\n", cna_gltf_document_diagnostic(doc, i)->message);
 *   cna_gltf_document_free(doc);
 *
 * Conventions: matrices (node.matrix, inverse bind matrices read as MAT4) are
 * 16 floats, column-major, column vectors — glTF's layout, and cna_mat4's.
 * Quaternions are (x, y, z, w). JSON paths in messages use the file's own
 * names and indices: "meshes[0].primitives[1].attributes.JOINTS_0: ...".
 *
 * Ownership: the document owns every array and string it points to; they
 * live until cna_gltf_document_free(). The document is immutable after
 * loading and may be read from several threads at once. Nothing refers back
 * to the input bytes or the options after a load returns.
 */
#ifndef CNA_GLTF_H
#define CNA_GLTF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cna/alloc.h"
#include "cna/export.h"
#include "cna/math.h"
#include "cna/result.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ options */

/* Default and largest input size, in bytes, when cna_gltf_options.max_file_size is 0:
 * 1 GiB. */
#define CNA_GLTF_DEFAULT_MAX_FILE_SIZE ((size_t)1 << 30)

/* Default limit on the bytes decoded from compressed data (EXT_meshopt_compression
 * views and KHR_draco_mesh_compression primitives, all of them together) when
 * cna_gltf_options.max_decoded_size is 0: 24 MiB. A few hundred kB of compressed
 * data can decode to tens of MB, and loading and importing cost a fixed multiple
 * of the decoded bytes (docs/reliability.md, "Bounded decoding"), so this keeps
 * a small file's cost small; raise it for larger models. */
#define CNA_GLTF_DEFAULT_MAX_DECODED_SIZE ((size_t)24 << 20)

/* What an external URI is wanted for. */
typedef enum cna_gltf_uri_kind {
    CNA_GLTF_URI_BUFFER = 0,  /* buffers[i].uri: bytes are required */
    CNA_GLTF_URI_IMAGE,       /* images[i].uri: only existence is recorded */
    CNA_GLTF_URI_KIND_COUNT
} cna_gltf_uri_kind;

/* Resolver callback: produce the bytes of an external (non-data:) URI.
 *   uri   percent-decoded URI exactly as the file gives it after decoding
 *         (e.g. "my model.bin" for "my%20model.bin"); never a data: URI.
 *   kind  CNA_GLTF_URI_BUFFER or CNA_GLTF_URI_IMAGE.
 * Return CNA_OK and set *data and *size to the bytes, which must stay valid until
 * the release callback (or, without one, until the load returns). The reader
 * copies buffer bytes into the document; it never keeps image bytes, so for
 * an image the resolver may answer CNA_OK with *data = NULL, *size = 0 to say
 * "exists" without reading it. Return any other code (and fill err, optional)
 * when the URI cannot be resolved: for a buffer the load fails with that code
 * and the message prefixed by "buffers[i] (uri \"...\")"; for an image it is
 * the diagnostic "image-missing". */
typedef cna_result (*cna_gltf_resolve_fn)(void *user_data, cna_gltf_uri_kind kind, const char *uri,
                                          const void **data, size_t *size, cna_error *err);
/* Called once for every successful resolve, after the bytes were used. */
typedef void (*cna_gltf_release_fn)(void *user_data, const void *data, size_t size);

/* Load options. A zero-initialised struct (or NULL) means every default. */
typedef struct cna_gltf_options {
    /* Hooks for every allocation the document makes; default malloc/free.
     * (The temporary JSON tree is allocated by cJSON's own hooks, which are
     * process-global; the reader never changes them. See docs/gltf-reader.md.) */
    cna_allocator allocator;
    /* Resolver for external URIs; default NULL. With a resolver every external
     * buffer and image URI goes to it, unchecked (the resolver decides what is
     * safe). Without one:
     *   - cna_gltf_load_file resolves relative to the folder of the .gltf/.glb
     *     and refuses (CNA_ERROR_INVALID_DATA, naming the URI) any URI with a
     *     scheme ("http:", "file:"), an absolute path, a backslash, a ".."
     *     segment, or one whose real path (symbolic links followed) leaves
     *     that folder; with asset_root, ".." segments are allowed and the
     *     real path must stay inside the root instead (see asset_root);
     *   - cna_gltf_load_memory cannot resolve external URIs: a buffer with one
     *     fails with CNA_ERROR_INVALID_ARGUMENT, an image gets "image-missing".
     * data: URIs (base64) and the GLB BIN chunk never use the resolver. */
    cna_gltf_resolve_fn resolve;
    cna_gltf_release_fn release;   /* default NULL: nothing to release */
    void *resolver_user_data;      /* passed to resolve and release; default NULL */
    /* Largest accepted input, in bytes: the .gltf/.glb itself, every external
     * buffer, every resolver answer, and the bytes described by an accessor
     * without a bufferView (count * element size). 0 =
     * CNA_GLTF_DEFAULT_MAX_FILE_SIZE. Exceeding it is CNA_ERROR_LIMIT. */
    size_t max_file_size;
    /* Largest number of bytes decoded from EXT_meshopt_compression views and
     * KHR_draco_mesh_compression primitives, all of them together (checked
     * before each decoding allocates). 0 = CNA_GLTF_DEFAULT_MAX_DECODED_SIZE
     * (24 MiB). Exceeding it is CNA_ERROR_LIMIT, naming the view or primitive,
     * the bytes and this option ("bufferViews[0].extensions.EXT_meshopt_compression:
     * 36000000 decoded bytes (36000000 in all) exceed the decoded-size limit of
     * 25165824 bytes (cna_gltf_options.max_decoded_size, cna --max-decoded-size)"). */
    size_t max_decoded_size;
    /* Root folder that external URIs may reach with ".." segments; default
     * NULL: ".." is refused and every file must be inside the asset's own
     * folder. Used by cna_gltf_load_file without a resolver only (ignored by
     * cna_gltf_load_memory and when resolve is set). When set, a URI such as
     * "../textures/skin.png" resolves relative to the asset's folder, and the
     * real path of the file it names (".." applied, symbolic links followed)
     * must be inside the real path of the root; anything else is refused with
     * CNA_ERROR_INVALID_DATA, naming the URI, the file's real path and the
     * root ("... leads outside the asset root \"/assets\""). Schemes,
     * absolute paths and backslashes stay refused. The root itself is
     * resolved when the load starts: one that does not exist or cannot be
     * resolved is CNA_ERROR_IO ("asset root \"DIR\": No such file or
     * directory"), an empty string or a path that is not a folder is
     * CNA_ERROR_INVALID_ARGUMENT. Borrowed: read only during the load. */
    const char *asset_root;
    /* false (default): images are read (external files opened, data URIs
     * decoded). true: load without textures: no image is read (each keeps
     * its name, mimeType, uri and bufferView, with `available` false and
     * `problem` "not read: loaded without textures"; one diagnostic
     * "textures-not-loaded" counts them), and the extensions that concern
     * textures only (KHR_texture_basisu, EXT_texture_webp, EXT_texture_avif)
     * are accepted in extensionsRequired, each the diagnostic
     * "texture-extension-ignored". Geometry, skins, morph targets and
     * animations load as always; the document's textures_skipped is true.
     * Without it such a required extension is CNA_ERROR_UNSUPPORTED, and the
     * message names this option. */
    bool no_textures;
} cna_gltf_options;

/* ------------------------------------------------------------------ enums */

/* Accessor component types (glTF's numeric codes in comments). */
typedef enum cna_gltf_component_type {
    CNA_GLTF_COMPONENT_NONE = 0,        /* not set / invalid */
    CNA_GLTF_COMPONENT_BYTE,            /* 5120, int8 */
    CNA_GLTF_COMPONENT_UNSIGNED_BYTE,   /* 5121, uint8 */
    CNA_GLTF_COMPONENT_SHORT,           /* 5122, int16 */
    CNA_GLTF_COMPONENT_UNSIGNED_SHORT,  /* 5123, uint16 */
    CNA_GLTF_COMPONENT_UNSIGNED_INT,    /* 5125, uint32 */
    CNA_GLTF_COMPONENT_FLOAT,           /* 5126, IEEE float32 */
    CNA_GLTF_COMPONENT_COUNT
} cna_gltf_component_type;

/* Accessor element types. */
typedef enum cna_gltf_type {
    CNA_GLTF_TYPE_NONE = 0,
    CNA_GLTF_TYPE_SCALAR,
    CNA_GLTF_TYPE_VEC2,
    CNA_GLTF_TYPE_VEC3,
    CNA_GLTF_TYPE_VEC4,
    CNA_GLTF_TYPE_MAT2,
    CNA_GLTF_TYPE_MAT3,
    CNA_GLTF_TYPE_MAT4,
    CNA_GLTF_TYPE_COUNT
} cna_gltf_type;

/* Vertex attribute semantics, parsed from the attribute name. */
typedef enum cna_gltf_attribute_kind {
    CNA_GLTF_ATTRIBUTE_OTHER = 0,  /* application-specific "_NAME" (other names are refused) */
    CNA_GLTF_ATTRIBUTE_POSITION,
    CNA_GLTF_ATTRIBUTE_NORMAL,
    CNA_GLTF_ATTRIBUTE_TANGENT,
    CNA_GLTF_ATTRIBUTE_TEXCOORD,   /* TEXCOORD_n, set = n */
    CNA_GLTF_ATTRIBUTE_COLOR,      /* COLOR_n */
    CNA_GLTF_ATTRIBUTE_JOINTS,     /* JOINTS_n */
    CNA_GLTF_ATTRIBUTE_WEIGHTS,    /* WEIGHTS_n */
    CNA_GLTF_ATTRIBUTE_KIND_COUNT
} cna_gltf_attribute_kind;

/* Primitive topology. TRIANGLES (glTF's default, code 4) is 0 here. */
typedef enum cna_gltf_primitive_mode {
    CNA_GLTF_MODE_TRIANGLES = 0,  /* 4 */
    CNA_GLTF_MODE_POINTS,         /* 0 */
    CNA_GLTF_MODE_LINES,          /* 1 */
    CNA_GLTF_MODE_LINE_LOOP,      /* 2 */
    CNA_GLTF_MODE_LINE_STRIP,     /* 3 */
    CNA_GLTF_MODE_TRIANGLE_STRIP, /* 5 */
    CNA_GLTF_MODE_TRIANGLE_FAN,   /* 6 */
    CNA_GLTF_MODE_COUNT
} cna_gltf_primitive_mode;

/* Animated property of a channel. */
typedef enum cna_gltf_animation_path {
    CNA_GLTF_PATH_UNKNOWN = 0,  /* a path added by an extension (e.g. "pointer"); diagnostic */
    CNA_GLTF_PATH_TRANSLATION,
    CNA_GLTF_PATH_ROTATION,
    CNA_GLTF_PATH_SCALE,
    CNA_GLTF_PATH_WEIGHTS,
    CNA_GLTF_PATH_COUNT
} cna_gltf_animation_path;

typedef enum cna_gltf_interpolation {
    CNA_GLTF_INTERPOLATION_LINEAR = 0,  /* glTF's default */
    CNA_GLTF_INTERPOLATION_STEP,
    CNA_GLTF_INTERPOLATION_CUBICSPLINE,
    CNA_GLTF_INTERPOLATION_COUNT
} cna_gltf_interpolation;

typedef enum cna_gltf_alpha_mode {
    CNA_GLTF_ALPHA_OPAQUE = 0,  /* glTF's default */
    CNA_GLTF_ALPHA_MASK,
    CNA_GLTF_ALPHA_BLEND,
    CNA_GLTF_ALPHA_MODE_COUNT
} cna_gltf_alpha_mode;

/* Where a buffer's or an image's bytes come from. */
typedef enum cna_gltf_source {
    CNA_GLTF_SOURCE_NONE = 0,     /* no bytes: an image without uri or bufferView (diagnostic), or
                                     a buffer without uri outside a GLB's buffer 0 (allowed only
                                     while no bufferView refers to it; data is NULL) */
    CNA_GLTF_SOURCE_GLB_BIN,      /* the GLB container's BIN chunk (buffer 0 without uri) */
    CNA_GLTF_SOURCE_DATA_URI,     /* a base64 data: URI */
    CNA_GLTF_SOURCE_EXTERNAL,     /* an external URI (file or resolver) */
    CNA_GLTF_SOURCE_BUFFER_VIEW,  /* images only: a bufferView */
    CNA_GLTF_SOURCE_COUNT
} cna_gltf_source;

/* ------------------------------------------------------------------ model */

typedef struct cna_gltf_asset {
    const char *version;      /* "2.0" (required; major version 2) */
    const char *min_version;  /* NULL when absent; above 2.0 is refused */
    const char *generator;    /* NULL when absent */
    const char *copyright;    /* NULL when absent */
} cna_gltf_asset;

typedef struct cna_gltf_buffer {
    const char *name;         /* NULL when absent */
    cna_gltf_source source;   /* GLB_BIN, DATA_URI, EXTERNAL, or NONE (unreferenced placeholder) */
    const char *uri;          /* percent-decoded external URI; NULL for GLB_BIN and DATA_URI */
    const uint8_t *data;      /* byte_length bytes, owned by the document; NULL for NONE */
    size_t byte_length;       /* the declared byteLength (>= 1); the data held is never shorter */
    const char *path;         /* file path the default resolution read (EXTERNAL, load_file
                                 without resolver: the file's folder + "/" + uri); NULL otherwise */
} cna_gltf_buffer;

/* Where a buffer view's bytes come from. */
typedef enum cna_gltf_view_encoding {
    CNA_GLTF_VIEW_STORED = 0,   /* its buffer's bytes, from byte_offset */
    CNA_GLTF_VIEW_MESHOPT,      /* decoded from EXT_meshopt_compression (the view's `buffer` is
                                   the uncompressed fallback, which is never read) */
    CNA_GLTF_VIEW_DRACO,        /* made by the reader: the vertices or indices of one accessor
                                   decoded from a KHR_draco_mesh_compression primitive; not in
                                   the file (buffer -1, byte_offset 0, tightly packed) */
    CNA_GLTF_VIEW_ENCODING_COUNT
} cna_gltf_view_encoding;

typedef struct cna_gltf_buffer_view {
    const char *name;
    int32_t buffer;           /* index into buffers; -1 for a CNA_GLTF_VIEW_DRACO view */
    size_t byte_offset;       /* default 0 */
    size_t byte_length;       /* >= 1; byte_offset + byte_length <= buffer's byte_length */
    size_t byte_stride;       /* 0 when absent (tightly packed); else 4..252, a multiple of 4 */
    int32_t target;           /* 0 when absent, else 34962 (ARRAY_BUFFER) or 34963 (ELEMENT_ARRAY_BUFFER) */
    /* The view's byte_length bytes (never NULL): the buffer's bytes from
     * byte_offset, or the decoded bytes of a compressed view (owned by the
     * document). Accessors read through this pointer. */
    const uint8_t *data;
    cna_gltf_view_encoding encoding;
} cna_gltf_buffer_view;

/* Sparse storage: `count` elements replaced at the given indices. */
typedef struct cna_gltf_accessor_sparse {
    size_t count;                                   /* 1..accessor count */
    int32_t indices_buffer_view;                    /* tightly packed, strictly increasing, < accessor count */
    size_t indices_byte_offset;
    cna_gltf_component_type indices_component_type; /* UNSIGNED_BYTE, _SHORT or _INT */
    int32_t values_buffer_view;                     /* tightly packed elements of the accessor's type */
    size_t values_byte_offset;
} cna_gltf_accessor_sparse;

typedef struct cna_gltf_accessor {
    const char *name;
    int32_t buffer_view;                     /* -1: every element is zero (before sparse) */
    size_t byte_offset;                      /* default 0; a multiple of the component size */
    cna_gltf_component_type component_type;
    bool normalized;                         /* default false; integer types only */
    cna_gltf_type type;
    size_t count;                            /* >= 1 elements */
    size_t element_size;                     /* bytes of one element, incl. matrix column padding */
    size_t byte_stride;                      /* effective: bufferView's stride, or element_size */
    bool has_min, has_max;
    double min[16], max[16];                 /* component_count values when has_min / has_max */
    bool is_sparse;
    cna_gltf_accessor_sparse sparse;         /* valid when is_sparse */
} cna_gltf_accessor;

typedef struct cna_gltf_image {
    const char *name;
    cna_gltf_source source;   /* EXTERNAL, DATA_URI, BUFFER_VIEW, or NONE */
    const char *uri;          /* percent-decoded external URI; NULL otherwise */
    const char *path;         /* file path the default resolution checked (load_file without
                                 resolver); NULL otherwise */
    const char *mime_type;    /* as the file says; NULL when absent */
    int32_t buffer_view;      /* -1 unless source is BUFFER_VIEW */
    const uint8_t *data;      /* encoded bytes for DATA_URI (owned) and BUFFER_VIEW (inside a
                                 buffer); NULL for EXTERNAL. Never decoded by the reader. */
    size_t size;              /* bytes at data */
    bool available;           /* false: missing / unresolvable / bad data URI ("image-missing") */
    const char *problem;      /* when not available: why, as the diagnostic says it
                                 ("cannot open \"dir/a.png\": No such file or directory"); NULL otherwise */
} cna_gltf_image;

typedef struct cna_gltf_sampler {
    const char *name;
    int32_t mag_filter;       /* GL enum, 0 when absent */
    int32_t min_filter;       /* GL enum, 0 when absent */
    int32_t wrap_s;           /* GL enum, default 10497 (REPEAT) */
    int32_t wrap_t;           /* GL enum, default 10497 (REPEAT) */
} cna_gltf_sampler;

typedef struct cna_gltf_texture {
    const char *name;
    int32_t sampler;          /* -1: default sampling */
    int32_t source;           /* image index, -1 when absent */
} cna_gltf_texture;

/* KHR_texture_transform on a texture reference: the texture coordinates are
 * mapped uv' = T · R · S · (u, v, 1) with T = translation(offset), R = a
 * rotation by `rotation` radians (counter-clockwise in UV space: the matrix
 * rows (cos, sin) / (-sin, cos)) and S = scale(scale). */
typedef struct cna_gltf_texture_transform {
    bool present;             /* the reference has the extension */
    float offset[2];          /* default (0, 0) */
    float rotation;           /* radians, default 0 */
    float scale[2];           /* default (1, 1) */
    int32_t texcoord;         /* the TEXCOORD set it selects instead of the reference's; -1 when absent */
} cna_gltf_texture_transform;

/* A material's reference to a texture (textureInfo). The set sampled is
 * transform.texcoord when that is not -1, else texcoord. */
typedef struct cna_gltf_texture_ref {
    int32_t texture;          /* -1 when the material has none */
    int32_t texcoord;         /* TEXCOORD_n set, default 0 */
    float scale;              /* normalTexture.scale / occlusionTexture.strength; default 1 */
    cna_gltf_texture_transform transform;  /* extensions.KHR_texture_transform */
} cna_gltf_texture_ref;

typedef struct cna_gltf_material {
    const char *name;
    cna_vec4 base_color_factor;                      /* default (1, 1, 1, 1) */
    cna_gltf_texture_ref base_color_texture;
    float metallic_factor;                           /* default 1 */
    float roughness_factor;                          /* default 1 */
    cna_gltf_texture_ref metallic_roughness_texture;
    cna_gltf_texture_ref normal_texture;             /* scale = normalTexture.scale */
    cna_gltf_texture_ref occlusion_texture;          /* scale = occlusionTexture.strength */
    cna_gltf_texture_ref emissive_texture;
    cna_vec3 emissive_factor;                        /* default (0, 0, 0) */
    /* KHR_materials_emissive_strength: multiplies emissive_factor; default 1, at least 0. */
    float emissive_strength;
    cna_gltf_alpha_mode alpha_mode;                  /* default OPAQUE */
    float alpha_cutoff;                              /* default 0.5 */
    bool double_sided;                               /* default false */
    /* KHR_materials_unlit: shade with the base colour alone (factor × texture ×
     * vertex colour), no lighting; default false. */
    bool unlit;
} cna_gltf_material;

typedef struct cna_gltf_attribute {
    const char *name;              /* as in the file, e.g. "TEXCOORD_1", "_BATCHID" */
    cna_gltf_attribute_kind kind;
    int32_t set;                   /* n of TEXCOORD_n / COLOR_n / JOINTS_n / WEIGHTS_n, else 0 */
    int32_t accessor;
} cna_gltf_attribute;

/* One morph target of a primitive. Deltas are added to the base attributes. */
typedef struct cna_gltf_morph_target {
    int32_t position;                      /* accessor of POSITION deltas, -1 when absent */
    int32_t normal;                        /* NORMAL deltas, -1 when absent */
    int32_t tangent;                       /* TANGENT deltas (VEC3), -1 when absent */
    const cna_gltf_attribute *attributes;  /* every attribute of the target, in file order */
    size_t attribute_count;
} cna_gltf_morph_target;

typedef struct cna_gltf_primitive {
    const cna_gltf_attribute *attributes;  /* in file order; at least one */
    size_t attribute_count;
    size_t vertex_count;                   /* the (common) count of the attribute accessors */
    int32_t indices;                       /* accessor, -1 when non-indexed */
    cna_gltf_primitive_mode mode;          /* default TRIANGLES */
    int32_t material;                      /* -1: default material */
    const cna_gltf_morph_target *targets;
    size_t target_count;                   /* same for every primitive of the mesh */
} cna_gltf_primitive;

typedef struct cna_gltf_mesh {
    const char *name;
    const cna_gltf_primitive *primitives;  /* at least one */
    size_t primitive_count;
    const float *weights;                  /* default morph weights: target_count values,
                                              zeros when the file has none */
    size_t target_count;                   /* morph targets per primitive (0 if none) */
    /* The morph targets' names from mesh.extras.targetNames (the convention of
     * Blender's exporter and three.js): target_count strings, or NULL when the
     * file gives none or gives something else than one string per target
     * (then diagnostic target-names-invalid). */
    const char *const *target_names;
} cna_gltf_mesh;

typedef struct cna_gltf_node {
    const char *name;
    int32_t parent;            /* computed: the node listing this one in children, -1 for a root */
    const int32_t *children;   /* node indices */
    size_t child_count;
    int32_t mesh;              /* -1 when absent */
    int32_t skin;              /* -1 when absent (requires mesh) */
    int32_t camera;            /* -1 when absent; cameras are not parsed (camera_count only) */
    bool has_matrix;           /* the file gives `matrix`; translation/rotation/scale are then
                                  the defaults (a node with both is refused) */
    cna_mat4 matrix;           /* the file's matrix, column-major; identity when !has_matrix;
                                  always decomposable to TRS (last row 0,0,0,1, no shear;
                                  tolerances in docs/gltf-reader.md), never animated */
    cna_vec3 translation;      /* default (0, 0, 0) */
    cna_quat rotation;         /* default (0, 0, 0, 1); stored as given (diagnostic if not unit) */
    cna_vec3 scale;            /* default (1, 1, 1) */
    const float *weights;      /* the node's morph weights, overriding the mesh's; NULL when absent */
    size_t weight_count;       /* 0 when absent, else the mesh's target_count */
    /* extensions.EXT_mesh_gpu_instancing: the node's mesh is drawn
     * instance_count times, instance i with the local transform
     * T(i) · R(i) · S(i) applied in the node's own space (world of instance
     * i = node world · T(i) · R(i) · S(i)). instance_count is the common
     * count of every attribute accessor, 0 when the node is not instanced
     * (then the three accessors are -1). The accessors of its attributes, -1
     * when absent (that part of the transform is then the identity):
     * TRANSLATION VEC3 FLOAT, ROTATION VEC4 FLOAT or normalized BYTE or
     * SHORT (a unit quaternion x, y, z, w; a non-unit one is the diagnostic
     * quaternion-not-unit), SCALE VEC3 FLOAT (with KHR_mesh_quantization
     * TRANSLATION and SCALE may also be BYTE or SHORT, normalized or not).
     * Every value is finite. Other attributes (_ID, custom ones) are ignored
     * with the diagnostic instance-attribute-ignored; their counts must
     * match too. */
    size_t instance_count;
    int32_t instance_translation;
    int32_t instance_rotation;
    int32_t instance_scale;
} cna_gltf_node;

typedef struct cna_gltf_skin {
    const char *name;
    const int32_t *joints;        /* node indices, at least one, no duplicates */
    size_t joint_count;
    int32_t inverse_bind_matrices; /* accessor (MAT4 FLOAT, at least joint_count elements, as the
                                      glTF schema says; extra ones are unused); -1: identities */
    int32_t skeleton;             /* node index, -1 when absent (a hint only) */
} cna_gltf_skin;

typedef struct cna_gltf_animation_sampler {
    int32_t input;                       /* accessor: SCALAR FLOAT times in seconds, >= 0, increasing */
    int32_t output;                      /* accessor: values (see docs/gltf-reader.md for types) */
    cna_gltf_interpolation interpolation;
} cna_gltf_animation_sampler;

typedef struct cna_gltf_animation_channel {
    int32_t sampler;                     /* index into the animation's samplers */
    int32_t target_node;                 /* -1 when absent (the channel should be ignored) */
    cna_gltf_animation_path path;
    /* KHR_animation_pointer ("path": "pointer"): the JSON pointer (owned by
     * the document), else NULL. "/nodes/N/translation" (rotation, scale,
     * weights) sets target_node and path as the core target would;
     * "/meshes/M/weights" sets target_mesh (the mesh's weights, for every
     * node instancing it) and path WEIGHTS; any other pointer leaves path
     * UNKNOWN with an "animation-pointer-unsupported" diagnostic naming it. */
    const char *pointer;
    int32_t target_mesh;                 /* -1 unless a "/meshes/M/weights" pointer */
} cna_gltf_animation_channel;

typedef struct cna_gltf_animation {
    const char *name;
    const cna_gltf_animation_channel *channels;
    size_t channel_count;
    const cna_gltf_animation_sampler *samplers;
    size_t sampler_count;
} cna_gltf_animation;

typedef struct cna_gltf_scene {
    const char *name;
    const int32_t *nodes;      /* root nodes (each has parent == -1), no duplicates */
    size_t node_count;
} cna_gltf_scene;

/* A warning kept on the document. Diagnostics are merged by code: `count`
 * says how many times the code occurred, `message` is the first occurrence's. */
typedef struct cna_gltf_diagnostic {
    const char *code;          /* one of the CNA_GLTF_DIAG_* strings below */
    size_t count;              /* >= 1 */
    const char *message;       /* names the JSON path and the value */
} cna_gltf_diagnostic;

/* Diagnostic codes (stable strings). */
#define CNA_GLTF_DIAG_EXTENSION_IGNORED   "extension-ignored"   /* optional extension not implemented */
#define CNA_GLTF_DIAG_IMAGE_MISSING       "image-missing"       /* image file/URI/bytes unavailable */
#define CNA_GLTF_DIAG_CAMERA_SKIPPED      "camera-skipped"      /* cameras are not parsed */
#define CNA_GLTF_DIAG_QUATERNION_NOT_UNIT "quaternion-not-unit" /* node rotation or rotation key, |1-|q|| > 5e-5 */
#define CNA_GLTF_DIAG_WEIGHTS_NOT_NORMALIZED "weights-not-normalized" /* a vertex's skin weights (all WEIGHTS_n) sum
                                                                         away from 1 by > 2e-3 (+ 2/255 or 2/65535 per
                                                                         normalized set); one per primitive */
#define CNA_GLTF_DIAG_UNUSED_OBJECT       "unused-object"       /* mesh/skin/material/texture/image/sampler/accessor/bufferView/camera never referenced */
#define CNA_GLTF_DIAG_TEXCOORD_MISSING    "texcoord-missing"    /* a material's texCoord set is not among the primitive's TEXCOORD_n */
#define CNA_GLTF_DIAG_CHANNEL_IGNORED     "channel-ignored"     /* animation channel without target node or with an unknown path */
#define CNA_GLTF_DIAG_BUFFER_LONGER       "buffer-longer-than-declared" /* data exceeds byteLength (beyond GLB padding) */
#define CNA_GLTF_DIAG_NO_POSITION         "primitive-without-position"  /* primitive has no POSITION */
#define CNA_GLTF_DIAG_VALUE_NOT_FINITE    "value-not-finite"    /* NaN or infinity in a FLOAT vertex attribute or morph target */
#define CNA_GLTF_DIAG_TARGET_NAMES_INVALID "target-names-invalid" /* mesh.extras.targetNames is not an array of one string per morph target (ignored) */
#define CNA_GLTF_DIAG_POSITION_BOUNDS_MISSING "position-bounds-missing" /* a POSITION accessor (also a morph target's)
                                                                           lacks min or max; one per accessor */
#define CNA_GLTF_DIAG_POINTER_UNSUPPORTED "animation-pointer-unsupported" /* a KHR_animation_pointer channel whose
                                                                             pointer is not a node's TRS or weights or a
                                                                             mesh's weights (ignored; names the pointer) */
#define CNA_GLTF_DIAG_INSTANCE_ATTRIBUTE_IGNORED "instance-attribute-ignored" /* an EXT_mesh_gpu_instancing attribute
                                                                                  other than TRANSLATION, ROTATION and
                                                                                  SCALE (e.g. _ID; names it) */
#define CNA_GLTF_DIAG_SKIN_SKELETON_HINT_IGNORED "skin-skeleton-hint-ignored" /* skin.skeleton is not a common root
                                                                                 of the joints: read as absent (-1) */
#define CNA_GLTF_DIAG_EMPTY_ARRAY "empty-array" /* a top-level array with no entries (glTF: minItems 1): read as
                                                   absent; names the property */
#define CNA_GLTF_DIAG_ACCESSOR_MIN_MAX_COMPUTED "accessor-min-max-computed" /* an animation input accessor lacks min
                                                                               or max: computed from the key times
                                                                               (has_min/has_max set); one per accessor */
#define CNA_GLTF_DIAG_KEY_TIMES_EQUAL "key-times-equal" /* an animation input accessor has equal consecutive times:
                                                           kept, a discontinuity (the later key applies from that
                                                           time on); one per accessor, counting the pairs */
#define CNA_GLTF_DIAG_MESHOPT_FALLBACK_READ "meshopt-fallback-read" /* an EXT_meshopt_compression fallback buffer
                                                                       that an uncompressed bufferView uses: its
                                                                       data is read; one per buffer */
#define CNA_GLTF_DIAG_TEXTURES_NOT_LOADED "textures-not-loaded" /* loaded with no_textures: an image not read;
                                                                   one per image */
#define CNA_GLTF_DIAG_TEXTURE_EXTENSION_IGNORED "texture-extension-ignored" /* with no_textures: a required
                                                                               extension that concerns textures
                                                                               only; one per extension */

/* The whole document. Every array has its count; arrays with count 0 are NULL. */
typedef struct cna_gltf_document {
    cna_gltf_asset asset;
    bool is_glb;                              /* loaded from a GLB container */
    const char *const *extensions_used;       /* names, in file order */
    size_t extensions_used_count;
    const char *const *extensions_required;
    size_t extensions_required_count;

    const cna_gltf_buffer *buffers;           size_t buffer_count;
    /* The file's buffer views, then (KHR_draco_mesh_compression only) the
     * views the reader made for the decoded accessors (CNA_GLTF_VIEW_DRACO). */
    const cna_gltf_buffer_view *buffer_views; size_t buffer_view_count;
    const cna_gltf_accessor *accessors;       size_t accessor_count;
    const cna_gltf_image *images;             size_t image_count;
    const cna_gltf_sampler *samplers;         size_t sampler_count;
    const cna_gltf_texture *textures;         size_t texture_count;
    const cna_gltf_material *materials;       size_t material_count;
    const cna_gltf_mesh *meshes;              size_t mesh_count;
    const cna_gltf_node *nodes;               size_t node_count;
    const cna_gltf_skin *skins;               size_t skin_count;
    const cna_gltf_animation *animations;     size_t animation_count;
    const cna_gltf_scene *scenes;             size_t scene_count;
    size_t camera_count;                      /* cameras are counted, not parsed */
    bool textures_skipped;                    /* loaded with cna_gltf_options.no_textures: no image read */
    int32_t scene;                            /* default scene, -1 when absent */

    const cna_gltf_diagnostic *diagnostics;   size_t diagnostic_count;
} cna_gltf_document;

/* ------------------------------------------------------------------ loading */

/* Load a .gltf or .glb file (recognised by content: the GLB magic "glTF",
 * otherwise JSON). External URIs resolve relative to the file's folder unless
 * opts->resolve is set (see cna_gltf_options). opts may be NULL (defaults).
 * On success *out receives a new document (free with cna_gltf_document_free).
 * Errors (on any, *out is left unchanged and nothing leaks):
 *   CNA_ERROR_INVALID_ARGUMENT  path or out NULL; external buffer with no way to resolve it;
 *                               an asset_root that is empty or not a folder
 *   CNA_ERROR_IO                the file or an external buffer cannot be opened or read;
 *                               an asset_root that does not exist
 *   CNA_ERROR_LIMIT             an input exceeds opts->max_file_size (also the bytes
 *                               decoded from compressed views and primitives, in all)
 *   CNA_ERROR_PARSE             JSON syntax (also a byte order mark, and a NUL character,
 *                               \u0000, in any string or member name: "images[0].uri: string
 *                               contains a NUL character (\u0000)"), GLB container, base64,
 *                               percent-encoding, data URI parameters
 *   CNA_ERROR_INVALID_DATA      the content breaks a glTF rule (message names the JSON path)
 *   CNA_ERROR_UNSUPPORTED       asset version not 2.x, minVersion above 2.0, a GLB
 *                               container version other than 2, an extensionsRequired
 *                               entry not implemented (named), a Draco-compressed
 *                               primitive whose mode is not TRIANGLES, or
 *                               KHR_draco_mesh_compression in a cna built without Draco
 *   CNA_ERROR_OUT_OF_MEMORY     an allocation failed */
CNA_API cna_result cna_gltf_load_file(const char *path, const cna_gltf_options *opts,
                              cna_gltf_document **out, cna_error *err);

/* Load from `size` bytes of .gltf JSON or .glb (recognised by content). The
 * bytes are only read during the call (the document copies what it keeps).
 * External URIs need opts->resolve (see cna_gltf_options). Errors as
 * cna_gltf_load_file, with CNA_ERROR_INVALID_ARGUMENT also for data == NULL. */
CNA_API cna_result cna_gltf_load_memory(const void *data, size_t size, const cna_gltf_options *opts,
                                cna_gltf_document **out, cna_error *err);

/* Free a document and everything it owns, with the allocator it was loaded
 * with. NULL is accepted. */
CNA_API void cna_gltf_document_free(cna_gltf_document *doc);

/* Number of diagnostics (0 for NULL). */
CNA_API size_t cna_gltf_document_diagnostic_count(const cna_gltf_document *doc);
/* Diagnostic i, or NULL when doc is NULL or i is out of range. */
CNA_API const cna_gltf_diagnostic *cna_gltf_document_diagnostic(const cna_gltf_document *doc, size_t i);
/* The diagnostic with this code, or NULL when it did not occur (or doc or code is NULL). */
CNA_API const cna_gltf_diagnostic *cna_gltf_document_find_diagnostic(const cna_gltf_document *doc,
                                                             const char *code);

/* ------------------------------------------------------------------ accessors */

/* Bytes of one component (1, 2 or 4); 0 for NONE or out-of-range values. */
CNA_API size_t cna_gltf_component_size(cna_gltf_component_type component_type);
/* Components per element: SCALAR 1, VEC2 2, VEC3 3, VEC4 4, MAT2 4, MAT3 9, MAT4 16; 0 for NONE. */
CNA_API size_t cna_gltf_type_component_count(cna_gltf_type type);

/* count * components of the accessor: how many floats read_floats writes (and
 * uints read_uints writes). 0 when doc is NULL or the index is out of range. */
CNA_API size_t cna_gltf_accessor_float_count(const cna_gltf_document *doc, int32_t accessor);

/* Read every element of an accessor as floats: element i's component c goes to
 * out[i * components + c]; matrices column by column (cna_mat4 layout).
 * Handles byteOffset, byteStride (interleaved or tight), matrix column
 * padding, accessors without bufferView (zeros) and sparse substitution.
 * Conversion: FLOAT as is; non-normalized integers to the nearest float
 * (exact up to 2^24); normalized integers by the glTF 2.0 formulas:
 *   BYTE            f = max(c / 127, -1)
 *   UNSIGNED_BYTE   f = c / 255
 *   SHORT           f = max(c / 32767, -1)
 *   UNSIGNED_SHORT  f = c / 65535
 *   UNSIGNED_INT    f = c / 4294967295   (not allowed by glTF for normalized, converted anyway)
 * Errors: CNA_ERROR_INVALID_ARGUMENT when doc/out is NULL, the index is out
 * of range, or out_count < cna_gltf_accessor_float_count(); nothing written. */
CNA_API cna_result cna_gltf_accessor_read_floats(const cna_gltf_document *doc, int32_t accessor, float *out,
                                         size_t out_count, cna_error *err);

/* Read every element of an unsigned-integer accessor (UNSIGNED_BYTE, _SHORT,
 * _INT; e.g. indices, JOINTS_n) as uint32_t, layout as read_floats (the raw
 * integer values, `normalized` ignored). Errors: CNA_ERROR_INVALID_ARGUMENT as
 * read_floats, and for any other component type (named in the message). */
CNA_API cna_result cna_gltf_accessor_read_uints(const cna_gltf_document *doc, int32_t accessor, uint32_t *out,
                                        size_t out_count, cna_error *err);

/* Read one element (index < count) as floats into out[0 .. components-1];
 * out_count must be >= the component count. Same conversion and errors as
 * read_floats, plus CNA_ERROR_INVALID_ARGUMENT for element >= count. A sparse
 * accessor costs a binary search over its sparse indices. */
CNA_API cna_result cna_gltf_accessor_read_element_floats(const cna_gltf_document *doc, int32_t accessor,
                                                 size_t element, float *out, size_t out_count,
                                                 cna_error *err);
/* Read one element as uint32_t; as read_uints for one element. */
CNA_API cna_result cna_gltf_accessor_read_element_uints(const cna_gltf_document *doc, int32_t accessor,
                                                size_t element, uint32_t *out, size_t out_count,
                                                cna_error *err);

/* ------------------------------------------------------------------ helpers */

/* The accessor of the attribute of `kind` and `set` (set 0 for POSITION,
 * NORMAL, TANGENT), or -1 when the primitive has none (or prim is NULL). */
CNA_API int32_t cna_gltf_primitive_find_attribute(const cna_gltf_primitive *prim, cna_gltf_attribute_kind kind,
                                          int32_t set);

/* A node's local transform: its matrix when has_matrix, else
 * T(translation) · R(rotation) · S(scale) (ours; spec: S * R * T), with the
 * rotation used as stored. A NULL node or out does nothing. */
CNA_API void cna_gltf_node_local_matrix(const cna_gltf_node *node, cna_mat4 *out);

/* Stable names for printing; "unknown" for out-of-range values. */
CNA_API const char *cna_gltf_component_type_name(cna_gltf_component_type t); /* "FLOAT", "UNSIGNED_BYTE", ... */
CNA_API const char *cna_gltf_type_name(cna_gltf_type t);                     /* "SCALAR", "VEC3", ... */
CNA_API const char *cna_gltf_attribute_kind_name(cna_gltf_attribute_kind k); /* "POSITION", "TEXCOORD", "OTHER" */
CNA_API const char *cna_gltf_primitive_mode_name(cna_gltf_primitive_mode m); /* "TRIANGLES", ... */
CNA_API const char *cna_gltf_animation_path_name(cna_gltf_animation_path p); /* "translation", ..., "unknown" */
CNA_API const char *cna_gltf_interpolation_name(cna_gltf_interpolation i);   /* "LINEAR", "STEP", "CUBICSPLINE" */
CNA_API const char *cna_gltf_alpha_mode_name(cna_gltf_alpha_mode m);         /* "OPAQUE", "MASK", "BLEND" */
CNA_API const char *cna_gltf_source_name(cna_gltf_source s);                 /* "none", "glb-bin", "data-uri", "external", "buffer-view" */

#ifdef __cplusplus
}
#endif
#endif /* CNA_GLTF_H */
