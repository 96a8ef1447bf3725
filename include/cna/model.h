/*
 * cna/model.h — the Model: an imported glTF scene as bones, meshes, mesh
 * parts, skins (SkinningData + their index maps), effects, scene-node clips
 * and diagnostics (spec: Model, ModelBone, ModelMesh, ModelMeshPart,
 * SkinningData on Model::Tag, SkinsEXT, ModelAnimationsEXT).
 *
 * A cna_model owns everything it points to and keeps no pointer into the
 * glTF document it came from (a baked-model loader builds the same struct
 * without a document). It is immutable once loaded: its fields are public
 * for reading, every function takes it const, and nothing at run time
 * writes it, so any number of characters (cna/character.h) on any threads
 * share one model. Everything that changes per frame (bone transforms,
 * palettes, morph weights and blended vertices) belongs to a character.
 * Its effects (cna/effect.h) hold material data only: a draw takes the
 * world, view, projection and palette as arguments.
 *
 * Usage — play an animation and draw (cna/character.h poses the whole
 * scene: skins, scene-node clips, morph weights):
 *   cna_model *model;
 *   if (cna_model_load_file("robot.glb", NULL, &model, &err)) ...;
 *   cna_character *c;
 *   cna_character_create(model, NULL, &c, &err);
 *   cna_character_play(c, 0, &err);
 *   // every frame:
 *   cna_character_update(c, dt, &err);
 *   // draw mesh i with world = cna_character_absolute_transform(c, model->meshes[i].parent_bone)
 *   // and, skinned, each part k with cna_character_part_palette(c, i, k, &count): the
 *   // palette cna_character_skin_transforms(c, model->meshes[i].skin), or a split part's
 *   // sub-palette (cna_gl_draw_character in cna/gl.h does both)
 *   cna_character_free(c);
 *   cna_model_free(model);
 *
 * Index spaces (docs/conventions.md, spec "Scene indices are not palette
 * indices"): a bone index (= scene-node index) places a node of the selected
 * scene; a joint ordinal is a position in the file's skin.joints (what
 * JOINTS_0 stored); a palette index orders a skin's joints parent-before-child
 * (SkinningData arrays, skeletal clip tracks, the effect palette, the
 * JOINTS bytes of imported vertices). glTF node / mesh / skin / animation
 * numbers are a fourth namespace, named gltf_* everywhere.
 *
 * Drawing: every mesh is drawn with the
 * absolute transform of its parent bone, the bone of the node that instances
 * it — also a skinned mesh. A skin's palette carries inverse(W_mesh_node)
 * through its root prefixes (a mesh node translated by (0, 0, 50) gives a palette
 * translating by exactly (0, 0, -50)), so a skinned vertex ends
 * at
 *   absolute[mesh_node] · sum_i w_i · skin[p_i] · v
 *     = W_mesh_node · inverse(W_mesh_node) · W_joint · IBM · v = W_joint · IBM · v,
 * glTF 2.0's position. One cna_model_skin exists per instancing node, so a skin
 * instanced by several nodes with different transforms is right for each.
 */
#ifndef CNA_MODEL_H
#define CNA_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cna/alloc.h"
#include "cna/anim.h"
#include "cna/effect.h"
#include "cna/export.h"
#include "cna/gltf.h"
#include "cna/math.h"
#include "cna/morph.h"
#include "cna/result.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ options */

/* How glTF animation channels become keyframes ("Clip extraction"). */
typedef enum cna_clip_mode {
    CNA_CLIP_MODE_DEFAULT = 0,  /* same as CNA_CLIP_MODE_FAITHFUL */
    /* The spec's keys (UNION) plus the keys needed for the player's linear
     * interpolation to reproduce the glTF curves between keys: a hold key one
     * tick before each STEP change, and cubic segments subdivided until the
     * deviation is below 1e-5 of the model's size (translation, scale) and
     * 1e-4 rad (rotation). LINEAR channels need nothing more. Budget for the
     * whole model: with M the input keys (each T/R/S channel's input count,
     * summed over the channels), at most 256 · M + 65536 keys in all; a file
     * that needs more is refused with CNA_ERROR_LIMIT ("animations[0] \"Wave\":
     * faithful extraction needs more than 500736 keys (input has 1700); import
     * with clip mode union"). */
    CNA_CLIP_MODE_FAITHFUL,
    /* Exactly the spec: per animated bone, the union of its T/R/S key times
     * (deduplicated at 1e-9 s), each channel evaluated there with its own
     * interpolation; STEP and CUBICSPLINE then play as linear ramps between
     * those keys. */
    CNA_CLIP_MODE_UNION,
    CNA_CLIP_MODE_COUNT
} cna_clip_mode;

/* Import options; a zero-initialised struct (or NULL) means every default. */
typedef struct cna_import_options {
    cna_allocator allocator;  /* hooks for everything the model allocates; default malloc/free */
    bool use_scene;           /* false (default): the document's default scene, else scene 0 */
    int32_t scene;            /* with use_scene: the glTF scene to import (must exist) */
    cna_clip_mode clip_mode;  /* default FAITHFUL */
    cna_gltf_options gltf;    /* reader options, used by cna_model_load_file only */
    /* false (default): a skin with more than CNA_EFFECT_MAX_BONES (72) joints
     * is refused (CNA_ERROR_LIMIT). true: such a skin is imported, and every
     * part of the meshes it drives is split into sub-parts of at most 72
     * palette entries each (cna_model_part.palette_map; docs/model.md,
     * "Split palettes"). A skin of 72 joints or fewer is never split. */
    bool split_palettes;
} cna_import_options;

/* ------------------------------------------------------------------ bones */

/* A node of the selected scene (spec: ModelBone). Bones are the scene's nodes
 * flattened depth-first pre-order: scene.nodes in order, each followed by its
 * subtree, children in the file's order (three.js's traversal order). So a
 * parent's index is always below its children's. */
typedef struct cna_model_bone {
    const char *name;         /* the node's name; "" when it has none (never NULL) */
    int32_t parent;           /* bone index, -1 for a scene root */
    int32_t gltf_node;        /* the glTF node */
    /* The node's local transform in the file: its matrix, or T · R · S with R
     * normalised (ours; spec: S * R * T). The posed transform (spec:
     * ModelBone::Transform) is a character's: cna_character_bone_transform. */
    cna_mat4 rest_transform;
    bool has_matrix;          /* the node gives `matrix` (rest_* below are its decomposition) */
    cna_vec3 rest_translation; /* the node's T/R/S exactly (R normalised), or the */
    cna_quat rest_rotation;    /*   decomposition of its matrix: what a clip uses for */
    cna_vec3 rest_scale;       /*   a channel it does not animate */
} cna_model_bone;

/* ------------------------------------------------------------------ vertices */

typedef enum cna_vertex_format {
    CNA_VERTEX_FORMAT_NONE = 0,
    CNA_VERTEX_FORMAT_FLOAT2,
    CNA_VERTEX_FORMAT_FLOAT3,
    CNA_VERTEX_FORMAT_FLOAT4,
    CNA_VERTEX_FORMAT_UBYTE4,       /* 4 x uint8, integers (joint palette indices) */
    CNA_VERTEX_FORMAT_UBYTE4_NORM,  /* 4 x uint8, normalised to 0..1 (RGBA8 colour) */
    CNA_VERTEX_FORMAT_COUNT
} cna_vertex_format;

typedef enum cna_vertex_usage {
    CNA_VERTEX_USAGE_NONE = 0,
    CNA_VERTEX_USAGE_POSITION,
    CNA_VERTEX_USAGE_NORMAL,
    CNA_VERTEX_USAGE_TEXCOORD,
    CNA_VERTEX_USAGE_TANGENT,
    CNA_VERTEX_USAGE_COLOR,
    CNA_VERTEX_USAGE_BLEND_INDICES,  /* joints: palette indices (rewritten from ordinals) */
    CNA_VERTEX_USAGE_BLEND_WEIGHTS,
    CNA_VERTEX_USAGE_COUNT
} cna_vertex_usage;

#define CNA_VERTEX_MAX_ELEMENTS 8

typedef struct cna_vertex_element {
    uint32_t offset;           /* bytes from the vertex start */
    cna_vertex_format format;
    cna_vertex_usage usage;
    uint32_t usage_index;      /* TEXCOORD_n set etc.; 0 otherwise */
} cna_vertex_element;

/* A vertex layout (spec: VertexDeclaration): the canonical layouts of
 * cna/morph.h (strides 32, 52, 56, 48, 60, 68, 76, 80). */
typedef struct cna_vertex_declaration {
    uint32_t stride;
    uint32_t element_count;
    cna_vertex_element elements[CNA_VERTEX_MAX_ELEMENTS];
} cna_vertex_declaration;

typedef enum cna_primitive_type {
    CNA_PRIMITIVE_TYPE_DEFAULT = 0,   /* same as TRIANGLE_LIST */
    CNA_PRIMITIVE_TYPE_TRIANGLE_LIST,
    CNA_PRIMITIVE_TYPE_LINE_LIST,
    CNA_PRIMITIVE_TYPE_POINT_LIST,
    CNA_PRIMITIVE_TYPE_COUNT
} cna_primitive_type;

/* ------------------------------------------------------------------ meshes */

/* One glTF primitive as drawn (spec: ModelMeshPart). */
typedef struct cna_model_part {
    int32_t gltf_mesh;
    int32_t gltf_primitive;
    int32_t material;          /* glTF material, -1 = default material */
    int32_t effect;            /* index into cna_model.effects; -1 while none */

    /* ---- vertex data, morph carrier, weight tracks: filled by the mesh import
     *      (docs/model.md "Meshes"); NULL / 0 when a model has none. The
     *      placements of one glTF mesh with the same skin (or none) point at
     *      the same vertices, indices, source_vertex and morph deltas
     *      (docs/vertex-layouts.md "Placements share their data") ---- */
    const void *vertices;                /* vertex_count * declaration.stride bytes, the
                                            zero-weight pose (morph base); a character
                                            draws cna_character_part_vertices */
    size_t vertex_count;
    cna_vertex_declaration declaration;
    const uint32_t *indices;             /* index_count indices into the vertices */
    size_t index_count;
    cna_primitive_type primitive_type;
    /* NULL when vertex i is the file's vertex i; else vertex_count entries: the
     * glTF vertex each part vertex came from (a split, e.g. flat normals). */
    const uint32_t *source_vertex;
    /* The glTF primitive's vertex count (its POSITION accessor's count):
     * vertex_count when source_vertex is NULL; else every source_vertex entry
     * is below it (file vertices that no triangle uses have no part vertex). */
    size_t source_vertex_count;
    /* The morph carrier (base bytes, deltas, initial weights: the loaded
     * pose's weights are morph->initial_weights); NULL when the primitive has
     * no targets. A character blends it (cna_character_morph_weights). */
    const cna_morph_target_data *morph;
    /* One entry per glTF animation (weight_track_count = animation count), NULL
     * where that animation has no weights channel for this mesh; NULL/0 without morph. */
    const cna_morph_weight_track *const *weight_tracks;
    size_t weight_track_count;
    /* ---- end of mesh-import block ---- */
    /* A split part (cna_import_options.split_palettes, a skin of more than
     * 72 joints): palette_map_count (1 .. CNA_EFFECT_MAX_BONES) entries, the
     * sub-palette: entry i is the skin's palette index that the part's joint
     * byte i stands for. Its BLEND_INDICES bytes index this sub-palette, not
     * the skin's palette, so it is drawn and skinned with
     *   sub[i] = skin_palette[palette_map[i]]
     * (cna_character_part_palette gathers it). Several sub-parts of one glTF
     * primitive follow each other in cna_model_mesh.parts, with the same
     * gltf_mesh and gltf_primitive; together they hold every triangle of the
     * primitive once. NULL and 0 for a part that is not split (its bytes
     * index the skin's palette directly). */
    const int32_t *palette_map;
    size_t palette_map_count;
} cna_model_part;

typedef struct cna_bounding_sphere {
    cna_vec3 center;
    float radius;
} cna_bounding_sphere;

/* One placement of a glTF mesh: a node of the selected scene that instances
 * it (spec: ModelMesh). Meshes are in bone order. */
typedef struct cna_model_mesh {
    const char *name;          /* the glTF mesh's name, else the node's, else "" */
    int32_t parent_bone;       /* the instancing node's bone: draw with its absolute transform */
    int32_t skin;              /* index into cna_model.skins, -1 for a rigid mesh */
    int32_t gltf_mesh;
    int32_t gltf_node;
    cna_model_part *parts;     /* one per glTF primitive, in order (a split primitive:
                                  its sub-parts, one after the other; palette_map) */
    size_t part_count;
    /* Filled by the mesh import: in the parent bone's space, for the loaded
     * morph pose (and, skinned, the bind pose as drawn), around every instance
     * of an instanced placement; radius 0 when empty. */
    cna_bounding_sphere bounds;
    /* The morph targets' names (glTF mesh.extras.targetNames, as
     * cna_gltf_mesh.target_names): target_name_count strings, one per target
     * of every part, owned by the model; NULL and 0 when the file names none.
     * A .cnb file (version 3) keeps them. */
    const char *const *target_names;
    size_t target_name_count;
    /* EXT_mesh_gpu_instancing: the placement is drawn instance_count times,
     * instance i with the local transform instances[i] = T · R · S (the
     * file's TRANSLATION, ROTATION normalised, SCALE) applied in the
     * instancing node's space:
     *   world(i) = absolute[parent_bone] · instances[i]
     * (skinned: after skinning, world(i) · S · p, so that the whole skinned
     * mesh is repeated as the node's space carries it). Owned by the model;
     * NULL and 0 when the node is not instanced (one draw with the parent
     * bone's transform). `bounds` then encloses every instance. A .cnb file
     * (version 4) keeps them. */
    const cna_mat4 *instances;
    size_t instance_count;
} cna_model_mesh;

/* ------------------------------------------------------------------ skins */

/* One skin as instanced by one node (spec: one entry of SkinsEXT; the
 * SkinningData of BuildSkeleton and its SkeletonResult maps). */
typedef struct cna_model_skin {
    /* Arrays indexed by palette index, owned by the model. data.clips has one
     * clip per glTF animation (clip i = animation i; zero tracks when it moves
     * none of these joints), target JOINT_PALETTE. */
    cna_skinning_data data;
    int32_t gltf_skin;
    int32_t mesh_node;         /* bone of the instancing node */
    const int32_t *meshes;     /* indices into cna_model.meshes this palette drives */
    size_t mesh_count;
    size_t joint_count;        /* == data.bone_count */
    const int32_t *ordinal_to_palette;   /* joint_count: oldToNew[k] */
    const int32_t *palette_to_ordinal;   /* joint_count */
    const int32_t *node_to_palette;      /* cna_model.bone_count: -1 = not a joint of this skin */
    const int32_t *palette_to_node;      /* joint_count: bone, -1 = joint outside the scene */
    const int32_t *palette_to_gltf_node; /* joint_count: the glTF node of each joint */
    /* joint_count: F[p] = product of the local transforms of the non-joint
     * nodes between joint p and its parent joint (identity when none). The bind
     * pose and clip keys of p include it (bind local = F[p] · L_node). */
    const cna_mat4 *fold;
    const int32_t *roots;      /* palette indices of the root joints, ascending */
    size_t root_count;
} cna_model_skin;

/* ------------------------------------------------------------------ diagnostics */

typedef struct cna_model_diagnostic {
    const char *code;      /* a CNA_MODEL_DIAG_* string or a reader code (cna/gltf.h) */
    size_t count;          /* occurrences, >= 1 */
    const char *message;   /* the first occurrence, naming the object */
} cna_model_diagnostic;

/* Channels targeting non-joint nodes of a model that has skins (spec code;
 * cna keeps and applies them as scene-node clips nevertheless). */
#define CNA_MODEL_DIAG_RIGID_ANIMATION_DROPPED "rigid-animation-dropped-on-skinned-model"
/* A channel whose node is neither in the selected scene nor a joint of an imported skin. */
#define CNA_MODEL_DIAG_TARGET_OUTSIDE_SCENE "animation-target-outside-scene"
/* A channel with a path cna does not animate (e.g. an extension's "pointer"). */
#define CNA_MODEL_DIAG_PATH_UNSUPPORTED "animation-path-unsupported"
/* A non-joint node between two joints, folded into the child's bind pose, is animated:
 * the child joint's keys compose its motion (docs/model.md, "Animated folded nodes"). */
#define CNA_MODEL_DIAG_ANIMATED_NODE_FOLDED "animated-node-folded"
#define CNA_MODEL_DIAG_WEIGHTS_RENORMALIZED "skin-weights-renormalized"
#define CNA_MODEL_DIAG_INFLUENCES_TRUNCATED "skin-influences-truncated"
/* A rotation (node or key) that is not unit length; cna normalises it. */
#define CNA_MODEL_DIAG_NON_UNIT_QUATERNION "non-unit-quaternion"
/* A material's texture names an image whose bytes are unavailable (the
 * reader's image-missing); the message names the material, the slot and the
 * image ("materials[2] \"Body\": normalTexture: images[5] \"body_n\": ..."). */
#define CNA_MODEL_DIAG_MATERIAL_IMAGE_MISSING "material-image-missing"

/* ------------------------------------------------------------------ the model */

/* An image a material's texture uses, as the renderer needs it (cna_gl
 * decodes it; the core never decodes images). Owned by the model; no pointer
 * into the glTF document. Images no material texture uses, and unavailable
 * ones (diagnostic image-missing), have data NULL and path NULL; an
 * unavailable one that a material uses says why in `problem`. */
typedef struct cna_model_image {
    const char *name;        /* the image's name; "" when it has none */
    const char *mime_type;   /* "image/png", "image/jpeg", ...; "" when the file gives none */
    const uint8_t *data;     /* encoded bytes (data URI or bufferView), copied; NULL otherwise */
    size_t size;             /* bytes at data */
    const char *path;        /* an external file's path (read by the renderer); NULL otherwise */
    /* The sampler of the first texture whose source is this image (GL enums;
     * 0 = absent: linear filtering, mipmaps for minification; wrap REPEAT).
     * Each material slot carries its own texture's sampler too
     * (cna_effect_texture), which the renderer uses. */
    int32_t mag_filter, min_filter, wrap_s, wrap_t;
    /* The image's index in cna_model.images plus one (never 0): unique within
     * its model only; two models, or one model loaded twice, have the same
     * ids. A renderer's texture cache keys by (model, id) and drops a
     * model's entries before the model is freed (as cna_gl does). */
    uint64_t id;
    /* A used image whose bytes could not be had: why ("cannot open
     * \"dir/body_n.png\": No such file or directory"); NULL otherwise. */
    const char *problem;
} cna_model_image;

/* A named time in an animation (a footstep, a sound cue): a character
 * playing the animation reports it each time its clock crosses it
 * (cna_character_set_event_listener). */
typedef struct cna_marker {
    const char *name;  /* owned by the model; never NULL */
    int64_t ticks;     /* time in the animation, 0 .. its duration */
} cna_marker;

/* The markers of one animation, as cna_model.animation_markers holds them. */
typedef struct cna_animation_markers {
    const cna_marker *items;  /* sorted by ticks; ties in the order added */
    size_t count;
} cna_animation_markers;

typedef struct cna_model {
    int32_t gltf_scene;            /* the imported scene; -1 when the file has none
                                      (then every root node is imported) */
    cna_model_bone *bones;         /* rest transforms; a character poses them */
    size_t bone_count;
    const int32_t *gltf_node_to_bone; /* gltf_node_count entries, -1 = outside the scene */
    size_t gltf_node_count;
    cna_model_mesh *meshes;
    size_t mesh_count;
    cna_model_skin *skins;         /* one per node instancing a skinned mesh, in bone order */
    size_t skin_count;
    cna_effect *effects;           /* one per (material, skin, kind) */
    size_t effect_count;
    /* One scene-node clip per glTF animation (spec: ModelAnimationsEXT), target
     * SCENE_NODE, tracks by bone index, for channels on nodes that are not joints
     * of an imported skin. Zero tracks when the animation has none. */
    const cna_clip *node_clips;
    size_t animation_count;        /* == number of glTF animations */
    cna_clip_mode clip_mode;       /* resolved: FAITHFUL or UNION */
    /* Bounding-box diagonal of the bind pose as drawn (1 when there is no
     * geometry): the model size the faithful clip tolerance uses. */
    float size;
    const cna_model_diagnostic *diagnostics;
    size_t diagnostic_count;
    /* The glTF file's images, by image index (what cna_effect_texture.image
     * names); NULL/0 for a model without images. A model loaded from a .cnb
     * file has them too, with external files' bytes embedded (path NULL). */
    const cna_model_image *images;
    size_t image_count;
    /* The markers of each animation (animation_count entries; NULL while no
     * animation has any): read them with cna_model_markers, add them with
     * cna_model_add_marker. Owned by the model; a copy of this struct shares them. */
    const cna_animation_markers *animation_markers;
    /* The library's count of the model's live characters (see cna_model_free):
     * set by the import and the .cnb loader, shared by a copy of this struct
     * (characters created from the copy count for the model). NULL in a model
     * struct filled by hand, whose characters are not counted. Never written
     * by the caller. */
    struct cna_model_owner *owner;
} cna_model;


/* Free a model and all it owns; NULL is accepted.
 * Safe while characters of the model live (cna/character.h): the model is
 * then freed when the last of them is freed (cna_character_free), so a
 * character never reads freed memory; until then the model's pointers stay
 * valid, but the caller must treat the model as gone (create no character
 * of it, call nothing else on it). The count is atomic, so characters may be
 * freed on any threads. Free a model once; a GPU model (cna/gl.h) made from
 * it is not counted: free it first. */
CNA_API void cna_model_free(cna_model *model);

/* The first skin's SkinningData (spec: Model::Tag), or NULL without skins
 * (or for a NULL model). */
CNA_API const cna_skinning_data *cna_model_skinning_data(const cna_model *model);

/* The diagnostic with `code`, or NULL (also for a NULL model or code). */
CNA_API const cna_model_diagnostic *cna_model_find_diagnostic(const cna_model *model, const char *code);

/* The bone named `name`, or -1 (also for NULL): the first joint of any
 * skin with that name, else the first bone with that name. A joint is
 * preferred because exporters name mesh nodes after the joints they follow
 * (RobotExpressive's mesh node "Foot.L" sits beside the joint "Foot.L",
 * and only the joint moves). */
CNA_API int32_t cna_model_find_bone(const cna_model *model, const char *name);

/* Set mask[b] = weight for bone `bone_name` (cna_model_find_bone) and every
 * bone below it, leaving the others: a layer mask (one weight per bone,
 * cna_character_layer_set_mask in cna/character.h) built by subtrees. Fill a
 * mask with 0, then set the subtree of "Spine2" to 1 for an upper-body layer.
 * Errors (mask unchanged): CNA_ERROR_INVALID_ARGUMENT for NULL arguments, a
 * count below bone_count, a weight outside [0, 1], or no such bone
 * ("mask: no bone named \"Spine9\""). */
CNA_API cna_result cna_model_mask_subtree(const cna_model *model, const char *bone_name, float weight,
                                          float *mask, size_t count, cna_error *err);

/* The joint of skin `skin` named `name` (its glTF node's name): its
 * palette index in *palette and its bone in *bone (-1 for a joint outside
 * the scene); either pointer may be NULL.
 * Errors (outputs unchanged): CNA_ERROR_INVALID_ARGUMENT for NULL model or
 * name, a skin out of range, or no such joint ("skins[0]: no joint named
 * \"Foot.X\""). */
CNA_API cna_result cna_model_find_joint(const cna_model *model, size_t skin, const char *name,
                                int32_t *palette, int32_t *bone, cna_error *err);

/* The animation `name`: a decimal index below animation_count ("0", "12"),
 * else the first animation with that name; its index in *index.
 * Errors (*index unchanged): CNA_ERROR_INVALID_ARGUMENT for NULL arguments
 * or an unknown name ("animation \"Jump\": no such animation (the model
 * has 14)"); an unknown name never means the rest pose. */
CNA_API cna_result cna_model_find_animation(const cna_model *model, const char *name, size_t *index,
                                    cna_error *err);

/* The name of glTF animation `animation` (0 .. animation_count - 1): the
 * file's name, or "animation_<index>" when it has none (the name of every clip
 * made from it: node_clips[animation] and each skin's data.clips[animation]).
 * NULL for a NULL model or an index out of range. Owned by the model. */
CNA_API const char *cna_model_animation_name(const cna_model *model, size_t animation);

/* ------------------------------------------------------------------ counts and names
 * What the public fields of cna_model hold, read through functions, for code
 * that cannot read C structs (language bindings: a binding calls these
 * instead of mirroring cna_model's layout). Each accepts any argument: a NULL
 * model or an index out of range gives the value its comment names (0,
 * NULL or -1) and never reads out of bounds. Strings are owned by the model. */

/* model->bone_count: the bones (nodes of the selected scene); 0 for NULL. */
CNA_API size_t cna_model_bone_count(const cna_model *model);

/* Bone `bone`'s name ("" for a node without one); NULL for a NULL model or
 * a bone out of range. */
CNA_API const char *cna_model_bone_name(const cna_model *model, size_t bone);

/* Bone `bone`'s parent bone, always below `bone`; -1 for a scene root, and
 * also for a NULL model or a bone out of range (check the index against
 * cna_model_bone_count to tell them apart). */
CNA_API int32_t cna_model_bone_parent(const cna_model *model, size_t bone);

/* model->mesh_count: the mesh placements; 0 for NULL. */
CNA_API size_t cna_model_mesh_count(const cna_model *model);

/* Mesh `mesh`'s name (the glTF mesh's, else its node's, else ""); NULL for a
 * NULL model or a mesh out of range. */
CNA_API const char *cna_model_mesh_name(const cna_model *model, size_t mesh);

/* Mesh `mesh`'s part count (its glTF primitives, a split primitive counting
 * each sub-part); 0 for a NULL model or a mesh out of range. */
CNA_API size_t cna_model_mesh_part_count(const cna_model *model, size_t mesh);

/* Mesh `mesh`'s bone: draw it with that bone's absolute transform; -1 for a
 * NULL model or a mesh out of range. */
CNA_API int32_t cna_model_mesh_parent_bone(const cna_model *model, size_t mesh);

/* Mesh `mesh`'s skin (an index below cna_model_skin_count), -1 for a rigid
 * mesh, and also for a NULL model or a mesh out of range. */
CNA_API int32_t cna_model_mesh_skin(const cna_model *model, size_t mesh);

/* Mesh `mesh`'s morph target count: the target count of its parts' morph
 * data (glTF gives every primitive of a mesh the same targets; the largest
 * when parts differ); 0 for a mesh without targets, a NULL model or a mesh
 * out of range. */
CNA_API size_t cna_model_morph_target_count(const cna_model *model, size_t mesh);

/* The name of morph target `target` of mesh `mesh` (the file's
 * mesh.extras.targetNames, cna_model_mesh.target_names); NULL when the file
 * names no targets of that mesh, for a NULL model, or a mesh or target out
 * of range. */
CNA_API const char *cna_model_morph_target_name(const cna_model *model, size_t mesh, size_t target);

/* model->skin_count: the skins (one per node instancing a skinned mesh); 0
 * for NULL. */
CNA_API size_t cna_model_skin_count(const cna_model *model);

/* Skin `skin`'s joint count (its palette's length); 0 for a NULL model or a
 * skin out of range. */
CNA_API size_t cna_model_skin_joint_count(const cna_model *model, size_t skin);

/* model->animation_count: the glTF animations (and any bound clip library's,
 * cna/clips.h); 0 for NULL. Names: cna_model_animation_name. */
CNA_API size_t cna_model_animation_count(const cna_model *model);

/* Animation `animation`'s duration in ticks (its scene-node clip's,
 * node_clips[animation].duration: the last input time of its samplers,
 * every clip made from it has the same;
 * what a character playing it reports as cna_character_duration and what
 * markers are checked against); cna_ticks_to_seconds gives seconds. 0 for a
 * NULL model or an animation out of range. */
CNA_API int64_t cna_model_animation_duration(const cna_model *model, size_t animation);

/* ------------------------------------------------------------------ markers */


/* The markers of animation `animation`, sorted by time (markers at the same
 * time in the order they were added); *count (may be NULL) receives their
 * number. NULL (*count = 0) when it has none, for an index out of range or
 * a NULL model. Owned by the model. */
CNA_API const cna_marker *cna_model_markers(const cna_model *model, size_t animation, size_t *count);

/* Add a marker named `name` at `seconds` to animation `animation` (0 ..
 * animation_count - 1, see cna_model_find_animation). The time becomes
 * cna_ticks_from_seconds(seconds) ticks and must lie in 0 .. the animation's
 * duration (model->node_clips[animation].duration); the name (non-empty,
 * UTF-8) is copied. The markers stay sorted by ticks; a marker at the same
 * time as others goes after them. Storage comes from the model's allocator
 * (the import or load options' hooks), is counted in cna_model_size_bytes
 * and freed by cna_model_free; .cnb files keep the markers
 * (cna_cnb_write_file, `cna convert --marker`).
 *
 * This edits the asset, the one exception to "a model never changes after
 * load": add the markers before creating characters of the model (characters
 * read the markers while they advance, on any thread, and the pointers
 * cna_model_markers returned become invalid). While a character of the model
 * (or of a copy of its struct) lives, the call is refused.
 *
 * Errors (nothing changes): CNA_ERROR_INVALID_ARGUMENT for a NULL model or
 * name, live characters ("animations[0] \"Walk\": marker \"left\": 2
 * characters of the model are alive; add markers before creating
 * characters"), an animation out of range ("marker: animation 7 is outside 0..2"),
 * an empty name or one that is not UTF-8, a NaN time or one outside the
 * animation ("animations[2] \"Walk\": marker time 3.5 s is outside 0..1.25 s");
 * CNA_ERROR_OUT_OF_MEMORY. */
CNA_API cna_result cna_model_add_marker(cna_model *model, size_t animation, const char *name, double seconds,
                                        cna_error *err);

/* Bytes the model owns: what is shared by all its characters. 0 for NULL. */
CNA_API size_t cna_model_size_bytes(const cna_model *model);

/* ------------------------------------------------------------------ names */

CNA_API const char *cna_clip_mode_name(cna_clip_mode mode);              /* "faithful", "union" */
CNA_API const char *cna_clip_target_name(cna_clip_target target);        /* "joint-palette", "scene-node" */

/* ================================================================== meshes
 * Vertex layouts and part vertices. The layouts and the
 * selection rules are in docs/vertex-layouts.md; in short, a part's vertex i
 * is the glTF primitive's vertex i (no reordering, no deduplication) except
 * for a primitive without normals, which is split so that every triangle
 * corner is its own vertex (source_vertex != NULL says which file vertex
 * each came from) and gets the triangle's flat normal; with morph targets
 * its carrier has recompute_flat_normals set.
 *
 * Skinned parts: the BLEND_INDICES bytes are palette indices, rewritten from
 * the file's joint ordinals through the skin's ordinal_to_palette (for a
 * split part, indices into its palette_map, which holds those palette
 * indices; docs/model.md "Split palettes"). With more
 * than four influences (JOINTS_1/WEIGHTS_1, ...) the four largest weights
 * are kept and renormalised (diagnostic skin-influences-truncated, counted
 * per vertex); otherwise weights whose sum differs from 1 by more than 1e-3
 * are divided by their sum (diagnostic skin-weights-renormalized; a zero sum
 * becomes (1, 0, 0, 0)). Weights within the tolerance are the file's values.
 * A negative weight refuses the import (CNA_ERROR_INVALID_DATA).
 *
 * Bounding sphere of a mesh (cna_model_mesh.bounds): in the parent bone's
 * space, around the vertices as loaded: morphed by the initial weights, and
 * for a skinned mesh skinned with the skin's bind-pose palette (so drawing
 * with the parent bone's absolute transform places it). Centre = middle of
 * the axis-aligned box, radius = largest distance, rounded up. */

/* A primitive's trailing indices that do not form a whole triangle (or
 * segment) are ignored; count = indices dropped. */
#define CNA_MODEL_DIAG_INDICES_INCOMPLETE "primitive-indices-incomplete"

/* The declaration of a canonical stride (32, 52, 56, 48, 60, 68, 76, 80),
 * elements in offset order: POSITION FLOAT3, NORMAL FLOAT3, TEXCOORD 0
 * FLOAT2, TANGENT FLOAT4, TEXCOORD 1 FLOAT2, COLOR UBYTE4_NORM,
 * BLEND_INDICES UBYTE4, BLEND_WEIGHTS FLOAT4 where the layout has them.
 * Errors: CNA_ERROR_INVALID_ARGUMENT (NULL out, another stride); *out unchanged. */
CNA_API cna_result cna_vertex_declaration_canonical(uint32_t stride, cna_vertex_declaration *out,
                                            cna_error *err);

/* The element with this usage and usage index, or NULL (also for a NULL decl). */
CNA_API const cna_vertex_element *cna_vertex_declaration_find(const cna_vertex_declaration *decl,
                                                      cna_vertex_usage usage,
                                                      uint32_t usage_index);

/* ================================================================== end of meshes */

#ifdef __cplusplus
}
#endif

/* The importer's entry points (library cna_gltf): cna_model_load_file and
 * cna_model_import_gltf, which this header declared before they had a header
 * of their own, are included here so that code calling them through
 * cna/model.h still compiles. Included after the model is declared, since
 * cna/import.h includes this header. */
#include "cna/import.h"

#endif /* CNA_MODEL_H */
