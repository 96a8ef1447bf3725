/*
 * Effects as data (include/cna/effect.h): kinds and the default material.
 */
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
    t.image = -1;
    t.texcoord = 0;
    t.scale = 1.0f;
    return t;
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
    p->alpha_mode = CNA_ALPHA_MODE_OPAQUE;
    p->alpha_cutoff = 0.5f;
    p->double_sided = false;
}
