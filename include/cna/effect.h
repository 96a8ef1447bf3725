/*
 * cna/effect.h — effects: what a mesh part is drawn with, as data (no GL).
 *
 * An effect is the CPU side of a shader: its kind (basic, skinned, PBR,
 * skinned PBR), the world/view/projection matrices, the material parameters it
 * was created from and, for the skinned kinds, a palette of
 * CNA_EFFECT_MAX_BONES (72) skin matrices (spec: SkinnedEffect /
 * SkinnedPbrEffect, SetBoneTransforms). The renderer (a later issue) reads
 * these structs; the core only fills them.
 *
 * A skinned effect's palette starts as 72 identity matrices, which means
 * "every joint matrix is the identity", not "no skinning" (spec: "Who
 * installs the palette"); the glTF importer therefore installs the bind-pose
 * palette at load (cna_model_apply_bind_pose_bone_transforms).
 *
 * Usage (every frame, after advancing the skin's player):
 *   cna_effect *e = &model->effects[model->meshes[m].parts[k].effect];
 *   cna_effect_set_bone_transforms(e, cna_player_skin_transforms(player),
 *                                  (size_t)cna_player_bone_count(player), &err);
 *
 * Ownership: effects are owned by the cna_model that created them; they are
 * shared by every draw of that model, so two characters drawn from one model
 * must each install their own palette right before their own draw.
 */
#ifndef CNA_EFFECT_H
#define CNA_EFFECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cna/math.h"
#include "cna/result.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Palette capacity of the skinned effects (spec: MaxBones). */
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

/* A texture reference of a material: which image (an index into the glTF
 * file's images, kept for the renderer) and which TEXCOORD set. */
typedef struct cna_effect_texture {
    int32_t image;      /* -1 = none */
    int32_t texcoord;   /* TEXCOORD_n set */
    float scale;        /* normal scale / occlusion strength; 1 otherwise */
} cna_effect_texture;

/* Material parameters (glTF pbrMetallicRoughness + the core material fields).
 * The defaults (material -1) are glTF's default material. */
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
    cna_alpha_mode alpha_mode;           /* default OPAQUE */
    float alpha_cutoff;                  /* default 0.5 */
    bool double_sided;                   /* default false */
} cna_effect_material;

typedef struct cna_effect {
    cna_effect_kind kind;
    int32_t material;            /* glTF material index, -1 = the default material */
    int32_t skin;                /* index into cna_model.skins for skinned kinds, else -1 */
    cna_effect_material params;
    cna_mat4 world, view, projection;   /* identity at creation */
    /* Skinned kinds only: the palette, CNA_EFFECT_MAX_BONES matrices, identity
     * at creation; bone_count = how many the last set_bone_transforms wrote
     * (the rest keep their previous values). 0 for unskinned kinds. */
    cna_mat4 bones[CNA_EFFECT_MAX_BONES];
    size_t bone_count;
} cna_effect;

/* true for SKINNED and SKINNED_PBR. */
bool cna_effect_kind_is_skinned(cna_effect_kind kind);
/* "basic", "skinned", "pbr", "skinned-pbr"; "unknown" out of range (DEFAULT is "basic"). */
const char *cna_effect_kind_name(cna_effect_kind kind);

/* Initialise an effect of `kind` (DEFAULT = BASIC) with glTF's default
 * material, identity matrices and (skinned kinds) an identity palette;
 * material = -1, skin = -1. No allocation. A NULL effect does nothing. */
void cna_effect_init(cna_effect *effect, cna_effect_kind kind);

/* Copy `count` skin matrices into the palette, entries 0 .. count-1
 * (spec: SetBoneTransforms); the rest keep their values.
 * Errors (nothing changes): CNA_ERROR_INVALID_ARGUMENT for a NULL effect, an
 * unskinned kind ("effect: kind basic has no bone palette"), or NULL matrices
 * with count > 0; CNA_ERROR_LIMIT when count > CNA_EFFECT_MAX_BONES
 * ("bone transforms: 73 given; at most 72 are supported"). */
cna_result cna_effect_set_bone_transforms(cna_effect *effect, const cna_mat4 *matrices,
                                          size_t count, cna_error *err);

#ifdef __cplusplus
}
#endif
#endif /* CNA_EFFECT_H */
