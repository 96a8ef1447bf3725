/*
 * Effects of an imported model: one cna_effect per (material, skin, kind), so
 * two skins never share an effect (spec: "the loader's effect cache never lets
 * two skins share one effect").
 *
 * Kind of a part: skinned when its mesh has a skin; PBR when the glTF
 * primitive has TANGENT or TEXCOORD_1 (the PBR vertex family of cna/morph.h).
 */
#include <stdatomic.h>
#include <string.h>

#include "model/model_internal.h"

/* Images: every glTF image gets an entry (same index); those a material's
 * base-colour texture uses carry a copy of their encoded bytes (data URI,
 * bufferView) or their external file's path, and the sampler of the first
 * texture that shows them. Nothing points into the document. */
static atomic_uint_fast64_t cna__next_image_id = 1;

static cna_result import_images(cna__import_ctx *ctx, cna_error *err)
{
    const cna_gltf_document *doc = ctx->doc;
    cna_model *m = &ctx->model->pub;
    if (doc->image_count == 0) return CNA_OK;
    cna_model_image *images = (cna_model_image *)cna__arena_calloc(ctx->arena, doc->image_count, sizeof *images);
    if (!images) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "import: out of memory (images)");
    for (size_t i = 0; i < doc->image_count; i++) {
        const cna_gltf_image *src = &doc->images[i];
        cna_model_image *im = &images[i];
        im->name = cna__arena_strdup(ctx->arena, src->name ? src->name : "");
        im->mime_type = cna__arena_strdup(ctx->arena, src->mime_type ? src->mime_type : "");
        if (!im->name || !im->mime_type) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "import: out of memory (images)");
        im->id = (uint64_t)atomic_fetch_add(&cna__next_image_id, 1);
        bool used = false;
        for (size_t k = 0; k < doc->material_count && !used; k++) {
            int32_t t = doc->materials[k].base_color_texture.texture;
            used = t >= 0 && (size_t)t < doc->texture_count && doc->textures[t].source == (int32_t)i;
        }
        for (size_t t = 0; t < doc->texture_count; t++) {
            const cna_gltf_texture *tex = &doc->textures[t];
            if (tex->source != (int32_t)i) continue;
            if (tex->sampler >= 0 && (size_t)tex->sampler < doc->sampler_count) {
                const cna_gltf_sampler *sm = &doc->samplers[tex->sampler];
                im->mag_filter = sm->mag_filter;
                im->min_filter = sm->min_filter;
                im->wrap_s = sm->wrap_s;
                im->wrap_t = sm->wrap_t;
            }
            break;
        }
        if (!used || !src->available) continue;
        if (src->data && src->size > 0) {
            uint8_t *bytes = (uint8_t *)cna__arena_alloc(ctx->arena, src->size);
            if (!bytes) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "import: out of memory (images[%zu], %zu bytes)", i, src->size);
            memcpy(bytes, src->data, src->size);
            im->data = bytes;
            im->size = src->size;
        } else if (src->path) {
            im->path = cna__arena_strdup(ctx->arena, src->path);
            if (!im->path) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "import: out of memory (images)");
        }
    }
    m->images = images;
    m->image_count = doc->image_count;
    return CNA_OK;
}

static cna_effect_texture texture_of(const cna_gltf_document *doc, const cna_gltf_texture_ref *ref)
{
    cna_effect_texture t;
    t.image = -1;
    t.texcoord = ref->texcoord;
    t.scale = ref->scale;
    if (ref->texture >= 0 && (size_t)ref->texture < doc->texture_count)
        t.image = doc->textures[ref->texture].source;
    return t;
}

static void material_params(const cna_gltf_document *doc, int32_t material, cna_effect_material *p)
{
    if (material < 0 || (size_t)material >= doc->material_count) return; /* keep the defaults */
    const cna_gltf_material *mat = &doc->materials[material];
    p->base_color_factor = mat->base_color_factor;
    p->base_color = texture_of(doc, &mat->base_color_texture);
    p->metallic_factor = mat->metallic_factor;
    p->roughness_factor = mat->roughness_factor;
    p->metallic_roughness = texture_of(doc, &mat->metallic_roughness_texture);
    p->normal = texture_of(doc, &mat->normal_texture);
    p->occlusion = texture_of(doc, &mat->occlusion_texture);
    p->emissive = texture_of(doc, &mat->emissive_texture);
    p->emissive_factor = mat->emissive_factor;
    switch (mat->alpha_mode) {
    case CNA_GLTF_ALPHA_MASK: p->alpha_mode = CNA_ALPHA_MODE_MASK; break;
    case CNA_GLTF_ALPHA_BLEND: p->alpha_mode = CNA_ALPHA_MODE_BLEND; break;
    default: p->alpha_mode = CNA_ALPHA_MODE_OPAQUE; break;
    }
    p->alpha_cutoff = mat->alpha_cutoff;
    p->double_sided = mat->double_sided;
}

static cna_effect_kind part_kind(const cna_gltf_document *doc, const cna_model_mesh *mesh,
                                 const cna_model_part *part)
{
    const cna_gltf_primitive *prim = &doc->meshes[part->gltf_mesh].primitives[part->gltf_primitive];
    bool pbr = cna_gltf_primitive_find_attribute(prim, CNA_GLTF_ATTRIBUTE_TANGENT, 0) >= 0 ||
               cna_gltf_primitive_find_attribute(prim, CNA_GLTF_ATTRIBUTE_TEXCOORD, 1) >= 0;
    bool skinned = mesh->skin >= 0;
    if (skinned) return pbr ? CNA_EFFECT_KIND_SKINNED_PBR : CNA_EFFECT_KIND_SKINNED;
    return pbr ? CNA_EFFECT_KIND_PBR : CNA_EFFECT_KIND_BASIC;
}

cna_result cna__import_effects(cna__import_ctx *ctx, cna_error *err)
{
    const cna_gltf_document *doc = ctx->doc;
    cna_model *m = &ctx->model->pub;
    cna_result ri = import_images(ctx, err);
    if (ri) return ri;
    size_t parts = 0;
    for (size_t i = 0; i < m->mesh_count; i++) parts += m->meshes[i].part_count;
    if (parts == 0) return CNA_OK;
    cna_effect *effects = (cna_effect *)cna__arena_calloc(ctx->arena, parts, sizeof *effects);
    if (!effects) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "import: out of memory (effects)");
    size_t count = 0;
    for (size_t i = 0; i < m->mesh_count; i++) {
        cna_model_mesh *mesh = &m->meshes[i];
        for (size_t k = 0; k < mesh->part_count; k++) {
            cna_model_part *part = &mesh->parts[k];
            cna_effect_kind kind = part_kind(doc, mesh, part);
            int32_t skin = cna_effect_kind_is_skinned(kind) ? mesh->skin : -1;
            size_t e = 0;
            while (e < count && !(effects[e].material == part->material &&
                                   effects[e].skin == skin && effects[e].kind == kind))
                e++;
            if (e == count) {
                cna_effect_init(&effects[e], kind);
                effects[e].material = part->material;
                effects[e].skin = skin;
                material_params(doc, part->material, &effects[e].params);
                count++;
            }
            part->effect = (int32_t)e;
        }
    }
    m->effects = effects;
    m->effect_count = count;
    return CNA_OK;
}
