/*
 * Effects as data (include/cna/effect.h): kinds and the default material.
 */
#include <math.h>
#include <string.h>

#include "cna/effect.h"
#include "core/internal.h"

bool cna_effect_kind_is_skinned(cna_effect_kind kind)
{
    return kind == CNA_EFFECT_KIND_SKINNED || kind == CNA_EFFECT_KIND_SKINNED_PBR;
}

const char *cna_effect_kind_name(cna_effect_kind kind)
{
    switch (kind) {
    case CNA_EFFECT_KIND_DEFAULT:
    case CNA_EFFECT_KIND_BASIC: return "basic";
    case CNA_EFFECT_KIND_SKINNED: return "skinned";
    case CNA_EFFECT_KIND_PBR: return "pbr";
    case CNA_EFFECT_KIND_SKINNED_PBR: return "skinned-pbr";
    default: return "unknown";
    }
}

static cna_effect_texture no_texture(void)
{
    cna_effect_texture t;
    memset(&t, 0, sizeof t);
    t.image = -1;
    t.texcoord = 0;
    t.scale = 1.0f;
    t.uv_scale[0] = t.uv_scale[1] = 1.0f;
    return t;
}

const cna_effect_texture *cna_effect_material_texture(const cna_effect_material *m, cna_effect_slot slot)
{
    if (!m) return NULL;
    switch (slot) {
    case CNA_EFFECT_SLOT_BASE_COLOR: return &m->base_color;
    case CNA_EFFECT_SLOT_METALLIC_ROUGHNESS: return &m->metallic_roughness;
    case CNA_EFFECT_SLOT_NORMAL: return &m->normal;
    case CNA_EFFECT_SLOT_OCCLUSION: return &m->occlusion;
    case CNA_EFFECT_SLOT_EMISSIVE: return &m->emissive;
    default: return NULL;
    }
}

const char *cna_effect_slot_name(cna_effect_slot slot)
{
    switch (slot) {
    case CNA_EFFECT_SLOT_BASE_COLOR: return "baseColorTexture";
    case CNA_EFFECT_SLOT_METALLIC_ROUGHNESS: return "metallicRoughnessTexture";
    case CNA_EFFECT_SLOT_NORMAL: return "normalTexture";
    case CNA_EFFECT_SLOT_OCCLUSION: return "occlusionTexture";
    case CNA_EFFECT_SLOT_EMISSIVE: return "emissiveTexture";
    default: return "unknown";
    }
}

/* uv' = T · R · S · (u, v, 1), KHR_texture_transform's matrix:
 *   | sx·cos   sy·sin   ox |
 *   | -sx·sin  sy·cos   oy |
 *   | 0        0        1  |   stored column-major. */
void cna_effect_texture_matrix(const cna_effect_texture *t, float out[9])
{
    if (!out) return;
    float ox = 0.0f, oy = 0.0f, rot = 0.0f, sx = 1.0f, sy = 1.0f;
    if (t) {
        ox = t->uv_offset[0];
        oy = t->uv_offset[1];
        rot = t->uv_rotation;
        sx = t->uv_scale[0];
        sy = t->uv_scale[1];
    }
    float c = cosf(rot), s = sinf(rot);
    out[0] = sx * c;
    out[1] = -sx * s;
    out[2] = 0.0f;
    out[3] = sy * s;
    out[4] = sy * c;
    out[5] = 0.0f;
    out[6] = ox;
    out[7] = oy;
    out[8] = 1.0f;
}

void cna_effect_init(cna_effect *effect, cna_effect_kind kind)
{
    if (!effect) return;
    memset(effect, 0, sizeof *effect);
    if ((int)kind <= 0 || kind >= CNA_EFFECT_KIND_COUNT) kind = CNA_EFFECT_KIND_BASIC;
    effect->kind = kind;
    effect->material = -1;
    effect->skin = -1;
    cna_effect_material *p = &effect->params;
    p->base_color_factor.x = p->base_color_factor.y = p->base_color_factor.z = 1.0f;
    p->base_color_factor.w = 1.0f;
    p->base_color = no_texture();
    p->metallic_factor = 1.0f;
    p->roughness_factor = 1.0f;
    p->metallic_roughness = no_texture();
    p->normal = no_texture();
    p->occlusion = no_texture();
    p->emissive = no_texture();
    p->emissive_factor = cna_vec3_zero();
    p->emissive_strength = 1.0f;
    p->alpha_mode = CNA_ALPHA_MODE_OPAQUE;
    p->alpha_cutoff = 0.5f;
    p->double_sided = false;
    p->unlit = false;
    p->name = "";
}
