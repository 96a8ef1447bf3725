/*
 * cna/effect.h — effects: what a mesh part is drawn with, as data (no GL).
 *
 * An effect is the CPU side of a shader: its kind (basic, skinned, PBR,
 * skinned PBR) and the material parameters it was created from (spec:
 * BasicEffect, SkinnedEffect, PbrEffect, SkinnedPbrEffect). It holds
 * material data only: nothing in it changes after load. What changes per
 * frame (world, view and projection matrices, and for the skinned kinds the
 * palette of at most CNA_EFFECT_MAX_BONES (72) skin matrices, spec:
 * SetBoneTransforms) is passed to each draw as arguments (cna_gl_draw_desc,
 * cna_gl_draw_character in cna/gl.h), taken from the character being drawn
 * (cna/character.h). So any number of characters of one model draw with the
 * same effects, in any order.
 *
 * Usage (reading the material of a part):
 *   const cna_effect *e = &model->effects[model->meshes[m].parts[k].effect];
 *   if (cna_effect_kind_is_skinned(e->kind)) ... palette of model->skins[e->skin] ...;
 *   e->params.base_color_factor, e->params.base_color.image, ...
 *
 * Ownership: effects are owned by the cna_model that created them and are
 * read through const; the model never writes them after load.
 */
#ifndef CNA_EFFECT_H
#define CNA_EFFECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cna/export.h"
#include "cna/math.h"
#include "cna/result.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most skin matrices a skinned effect draws with (spec: MaxBones). */
#define CNA_EFFECT_MAX_BONES 72

typedef enum cna_effect_kind {
    CNA_EFFECT_KIND_DEFAULT = 0,   /* same as CNA_EFFECT_KIND_BASIC */
    CNA_EFFECT_KIND_BASIC,         /* unskinned, no tangent (spec: BasicEffect) */
    CNA_EFFECT_KIND_SKINNED,       /* skinned, no tangent (spec: SkinnedEffect) */
    CNA_EFFECT_KIND_PBR,           /* unskinned, tangent-space PBR (spec: PbrEffect) */
    CNA_EFFECT_KIND_SKINNED_PBR,   /* skinned PBR (spec: SkinnedPbrEffect) */
    CNA_EFFECT_KIND_COUNT
} cna_effect_kind;

typedef enum cna_alpha_mode {
    CNA_ALPHA_MODE_OPAQUE = 0,  /* default (glTF's) */
    CNA_ALPHA_MODE_MASK,
    CNA_ALPHA_MODE_BLEND,
    CNA_ALPHA_MODE_COUNT
} cna_alpha_mode;

/* A texture slot of a material: which image (an index into the model's
 * images, cna_model.images), which TEXCOORD set, how the image is sampled
 * (the glTF sampler of its texture) and how the coordinates are transformed
 * first (KHR_texture_transform):
 *   uv' = T · R · S · (u, v, 1)
 * with T = translation(uv_offset), R = rotation by uv_rotation radians
 * (rows (cos, sin, 0) / (-sin, cos, 0) / (0, 0, 1), the extension's
 * matrix) and S = scale(uv_scale); cna_effect_texture_matrix gives the
 * 3x3 matrix. cna_effect_init gives the empty slot: image -1, set 0, scale
 * 1, the identity transform, samplers 0. */
typedef struct cna_effect_texture {
    int32_t image;      /* -1 = none */
    int32_t texcoord;   /* TEXCOORD_n set sampled (the transform's texCoord when it gives one) */
    float scale;        /* normal scale / occlusion strength; 1 otherwise */
    float uv_offset[2];   /* default (0, 0) */
    float uv_rotation;    /* radians, default 0 */
    float uv_scale[2];    /* default (1, 1) */
    /* The texture's sampler, GL enums as glTF writes them; 0 = absent
     * (linear filtering, mipmaps for minification; wrap REPEAT). */
    int32_t mag_filter, min_filter, wrap_s, wrap_t;
} cna_effect_texture;

/* Material parameters (glTF pbrMetallicRoughness + the core material fields
 * + KHR_materials_emissive_strength + KHR_materials_unlit). The defaults (material -1) are glTF's
 * default material. Each texture multiplies its factor: base colour (sRGB
 * RGBA) × base_color_factor; metallic-roughness (linear; B = metallic,
 * G = roughness) × the two factors; normal (tangent space, xy × scale);
 * occlusion (R channel, mixed in by scale = strength); emissive (sRGB RGB)
 * × emissive_factor × emissive_strength. */
typedef struct cna_effect_material {
    cna_vec4 base_color_factor;          /* default (1, 1, 1, 1) */
    cna_effect_texture base_color;
    float metallic_factor;               /* default 1 */
    float roughness_factor;              /* default 1 */
    cna_effect_texture metallic_roughness;
    cna_effect_texture normal;
    cna_effect_texture occlusion;
    cna_effect_texture emissive;
    cna_vec3 emissive_factor;            /* default (0, 0, 0) */
    float emissive_strength;             /* default 1 (KHR_materials_emissive_strength) */
    cna_alpha_mode alpha_mode;           /* default OPAQUE */
    float alpha_cutoff;                  /* default 0.5 */
    bool double_sided;                   /* default false */
    /* KHR_materials_unlit (default false): the colour is the base colour alone
     * (base_color_factor × base colour texture × vertex colour), without
     * lighting, occlusion, normal map or emissive; alpha as alpha_mode says.
     * The metallic-roughness parameters are kept but not drawn. */
    bool unlit;
    const char *name;                    /* the glTF material's name; "" when none (never NULL
                                            after cna_effect_init); owned by the model */
} cna_effect_material;

typedef struct cna_effect {
    cna_effect_kind kind;
    int32_t material;            /* glTF material index, -1 = the default material */
    int32_t skin;                /* index into cna_model.skins for skinned kinds, else -1 */
    cna_effect_material params;
} cna_effect;

/* true for SKINNED and SKINNED_PBR. */
CNA_API bool cna_effect_kind_is_skinned(cna_effect_kind kind);
/* "basic", "skinned", "pbr", "skinned-pbr"; "unknown" out of range (DEFAULT is "basic"). */
CNA_API const char *cna_effect_kind_name(cna_effect_kind kind);

/* The texture slots of a material, in this order (cna_effect_material_texture). */
typedef enum cna_effect_slot {
    CNA_EFFECT_SLOT_BASE_COLOR = 0,
    CNA_EFFECT_SLOT_METALLIC_ROUGHNESS,
    CNA_EFFECT_SLOT_NORMAL,
    CNA_EFFECT_SLOT_OCCLUSION,
    CNA_EFFECT_SLOT_EMISSIVE,
    CNA_EFFECT_SLOT_COUNT
} cna_effect_slot;

/* The slot `slot` of `material`; NULL for a NULL material or a slot out of range. */
CNA_API const cna_effect_texture *cna_effect_material_texture(const cna_effect_material *material,
                                                             cna_effect_slot slot);
/* glTF's name of a slot: "baseColorTexture", "metallicRoughnessTexture",
 * "normalTexture", "occlusionTexture", "emissiveTexture"; "unknown" out of range. */
CNA_API const char *cna_effect_slot_name(cna_effect_slot slot);

/* The texture transform of `texture` as a column-major 3x3 matrix
 * (out[column * 3 + row]): T · R · S as described at cna_effect_texture,
 * so uv' = (out[0] u + out[3] v + out[6], out[1] u + out[4] v + out[7]).
 * A NULL texture gives the identity; a NULL out does nothing. The rotation
 * uses the C library's sinf and cosf: its last bits can differ between
 * machines (between C libraries, and in glibc between CPUs with and without
 * FMA). */
CNA_API void cna_effect_texture_matrix(const cna_effect_texture *texture, float out[9]);

/* Initialise an effect of `kind` (DEFAULT = BASIC) with glTF's default
 * material; material = -1, skin = -1. No allocation. A NULL effect does nothing. */
CNA_API void cna_effect_init(cna_effect *effect, cna_effect_kind kind);

#ifdef __cplusplus
}
#endif
#endif /* CNA_EFFECT_H */
