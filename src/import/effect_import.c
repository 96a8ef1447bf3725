/*
 * Effects of an imported model: one cna_effect per (material, skin, kind), so
 * two skins never share an effect (spec: "the loader's effect cache never lets
 * two skins share one effect").
 *
 * Kind of a part: skinned when its mesh has a skin; PBR when the glTF
 * primitive has TANGENT or TEXCOORD_1 (the PBR vertex family of cna/morph.h).
 */
#include <string.h>

#include "model/model_internal.h"

/* Images: every glTF image gets an entry (same index); those a material's
 * texture uses carry a copy of their encoded bytes (data URI, bufferView) or
 * their external file's path, and the sampler of the first texture that
 * shows them; a used one that is unavailable keeps why (problem). Nothing
 * points into the document. Each image's id is its index plus one (unique
 * within the model; cna_model_image.id). */

static const cna_gltf_texture_ref *material_ref(const cna_gltf_material *m, cna_effect_slot slot)
{
    switch (slot) {
    case CNA_EFFECT_SLOT_BASE_COLOR: return &m->base_color_texture;
    case CNA_EFFECT_SLOT_METALLIC_ROUGHNESS: return &m->metallic_roughness_texture;
    case CNA_EFFECT_SLOT_NORMAL: return &m->normal_texture;
    case CNA_EFFECT_SLOT_OCCLUSION: return &m->occlusion_texture;
    default: return &m->emissive_texture;
    }
}

/* The image of a texture reference; -1 when none. */
static int32_t ref_image(const cna_gltf_document *doc, const cna_gltf_texture_ref *ref)
{
    if (ref->texture < 0 || (size_t)ref->texture >= doc->texture_count) return -1;
    return doc->textures[ref->texture].source;
}

static bool image_used(const cna_gltf_document *doc, size_t image)
{
    for (size_t k = 0; k < doc->material_count; k++)
        for (int s = 0; s < CNA_EFFECT_SLOT_COUNT; s++)
            if (ref_image(doc, material_ref(&doc->materials[k], (cna_effect_slot)s)) == (int32_t)image) return true;
    return false;
}

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
        im->id = (uint64_t)i + 1;
        bool used = image_used(doc, i);
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
        if (!used) continue;
        if (!src->available) {
            im->problem = cna__arena_strdup(ctx->arena, src->problem ? src->problem : "not available");
            if (!im->problem) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "import: out of memory (images)");
            continue;
        }
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

/* A material slot: the image, the set sampled (KHR_texture_transform's
 * texCoord replaces the reference's), the transform and the sampler of
 * the texture. */
static cna_effect_texture texture_of(const cna_gltf_document *doc, const cna_gltf_texture_ref *ref)
{
    cna_effect_texture t;
    memset(&t, 0, sizeof t);
    t.image = doc->textures_skipped ? -1 : ref_image(doc, ref); /* no_textures: drawn without */
    t.texcoord = ref->transform.texcoord >= 0 ? ref->transform.texcoord : ref->texcoord;
    t.scale = ref->scale;
    t.uv_offset[0] = ref->transform.offset[0];
    t.uv_offset[1] = ref->transform.offset[1];
    t.uv_rotation = ref->transform.rotation;
    t.uv_scale[0] = ref->transform.scale[0];
    t.uv_scale[1] = ref->transform.scale[1];
    if (ref->texture >= 0 && (size_t)ref->texture < doc->texture_count) {
        int32_t s = doc->textures[ref->texture].sampler;
        if (s >= 0 && (size_t)s < doc->sampler_count) {
            const cna_gltf_sampler *sm = &doc->samplers[s];
            t.mag_filter = sm->mag_filter;
            t.min_filter = sm->min_filter;
            t.wrap_s = sm->wrap_s;
            t.wrap_t = sm->wrap_t;
        }
    }
    return t;
}

static cna_result material_params(cna__import_ctx *ctx, int32_t material, cna_effect_material *p, cna_error *err)
{
    const cna_gltf_document *doc = ctx->doc;
    if (material < 0 || (size_t)material >= doc->material_count) return CNA_OK; /* keep the defaults */
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
    p->emissive_strength = mat->emissive_strength;
    p->unlit = mat->unlit;
    switch (mat->alpha_mode) {
    case CNA_GLTF_ALPHA_MASK: p->alpha_mode = CNA_ALPHA_MODE_MASK; break;
    case CNA_GLTF_ALPHA_BLEND: p->alpha_mode = CNA_ALPHA_MODE_BLEND; break;
    default: p->alpha_mode = CNA_ALPHA_MODE_OPAQUE; break;
    }
    p->alpha_cutoff = mat->alpha_cutoff;
    p->double_sided = mat->double_sided;
    p->name = cna__arena_strdup(ctx->arena, mat->name ? mat->name : "");
    if (!p->name) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "import: out of memory (materials[%d])", (int)material);
    return CNA_OK;
}

/* The diagnostic material-image-missing for each slot of an imported
 * material whose image is unavailable. */
static void material_image_diagnostics(cna__import_ctx *ctx, const cna_effect *e)
{
    const cna_model *m = &ctx->model->pub;
    for (int s = 0; s < CNA_EFFECT_SLOT_COUNT; s++) {
        const cna_effect_texture *t = cna_effect_material_texture(&e->params, (cna_effect_slot)s);
        if (t->image < 0 || (size_t)t->image >= m->image_count || !m->images[t->image].problem) continue;
        const cna_model_image *im = &m->images[t->image];
        cna__model_diag(ctx->model, CNA_MODEL_DIAG_MATERIAL_IMAGE_MISSING, "materials[%d] \"%s\": %s: images[%d] \"%s\": %s",
                        (int)e->material, e->params.name, cna_effect_slot_name((cna_effect_slot)s), (int)t->image,
                        im->name, im->problem);
    }
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
                cna_result rm = material_params(ctx, part->material, &effects[e].params, err);
                if (rm) return rm;
                bool seen = false;   /* one diagnostic per material, whatever its skins and kinds */
                for (size_t o = 0; o < count && !seen; o++) seen = effects[o].material == part->material;
                if (!seen && !doc->textures_skipped) material_image_diagnostics(ctx, &effects[e]);
                count++;
            }
            part->effect = (int32_t)e;
        }
    }
    m->effects = effects;
    m->effect_count = count;
    return CNA_OK;
}
