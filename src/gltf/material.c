/* images, samplers, textures and materials. Images are not required: an
 * image whose bytes are unavailable is the diagnostic "image-missing" and the
 * model still loads; the reader never decodes pixels. */
#include <stdio.h>
#include <string.h>

#include "gltf/gltf_internal.h"

/* Keep why an image is unavailable (cna_gltf_image.problem). */
static cna_result set_problem(cna__gltf_ctx *c, const char *path, cna_gltf_image *img, const char *why)
{
    img->problem = cna__gltf_arena_strdup(c->arena, why);
    if (!img->problem) return cna__error(c->err, CNA_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
    return CNA_OK;
}

static cna_result image_from_data_uri(cna__gltf_ctx *c, const char *path, const char *uri, cna_gltf_image *img)
{
    const char *mime;
    size_t mime_len;
    cna_error e;
    img->source = CNA_GLTF_SOURCE_DATA_URI;
    if (cna__gltf_data_uri_decode(c->arena, uri, &img->data, &img->size, &mime, &mime_len, &e) != CNA_OK) {
        img->data = NULL;
        img->size = 0;
        if (e.code == CNA_ERROR_OUT_OF_MEMORY) return cna__error(c->err, e.code, "%s.uri: %s", path, e.message);
        cna__gltf_diag(c, CNA__DIAG_IMAGE_MISSING, "%s.uri: %s", path, e.message);
        return set_problem(c, path, img, e.message);
    }
    img->available = true;
    if (!img->mime_type && mime_len) {
        img->mime_type = cna__gltf_arena_strndup(c->arena, mime, mime_len);
        if (!img->mime_type) return cna__error(c->err, CNA_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
    }
    return CNA_OK;
}

static cna_result image_from_uri(cna__gltf_ctx *c, const char *path, const char *uri, cna_gltf_image *img)
{
    if (cna__gltf_uri_is_data(uri)) return image_from_data_uri(c, path, uri, img);
    img->source = CNA_GLTF_SOURCE_EXTERNAL;
    char *decoded;
    cna_error e;
    if (cna__gltf_uri_percent_decode(c->arena, uri, &decoded, &e) != CNA_OK) {
        if (e.code == CNA_ERROR_OUT_OF_MEMORY) return cna__error(c->err, e.code, "%s.uri: %s", path, e.message);
        cna__gltf_diag(c, CNA__DIAG_IMAGE_MISSING, "%s.uri \"%s\": %s", path, uri, e.message);
        return set_problem(c, path, img, e.message);
    }
    img->uri = decoded;
    const uint8_t *data;
    size_t size;
    cna_result r = cna__gltf_resolve_uri(c, CNA_GLTF_URI_IMAGE, decoded, &data, &size, &img->path, &e);
    if (r == CNA_ERROR_OUT_OF_MEMORY) return cna__error(c->err, r, "%s (uri \"%s\"): %s", path, decoded, e.message);
    if (r) {
        cna__gltf_diag(c, CNA__DIAG_IMAGE_MISSING, "%s (uri \"%s\"): %s", path, decoded, e.message);
        return set_problem(c, path, img, e.message);
    }
    img->available = true;
    return CNA_OK;
}

static cna_result parse_image(cna__gltf_ctx *c, const cna__json *obj, size_t index)
{
    char path[CNA__PATH_MAX];
    cna__gltf_path_index(path, sizeof path, "images", index, "");
    cna_gltf_image *img = &c->images[index];
    img->buffer_view = -1;
    const char *uri = NULL;
    cna_result r = cna__gltf_json_expect_object(obj, path, c->err);
    if (!r) r = cna__gltf_json_string(c, obj, "name", path, false, &img->name);
    if (!r) r = cna__gltf_json_string(c, obj, "mimeType", path, false, &img->mime_type);
    if (!r) r = cna__gltf_json_string_ref(obj, "uri", path, false, &uri, c->err);
    if (!r) r = cna__gltf_json_index(obj, "bufferView", path, false, c->n_views, "bufferViews", &img->buffer_view, c->err);
    if (r) return r;
    if (uri && img->buffer_view >= 0)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s: has both uri and bufferView", path);
    if (c->no_textures) { /* checked as above, not read */
        if (img->buffer_view >= 0) cna__gltf_use(c, CNA__KIND_BUFFER_VIEW, img->buffer_view);
        char *decoded = NULL;
        cna_error e;
        if (uri && !cna__gltf_uri_is_data(uri) && cna__gltf_uri_percent_decode(c->arena, uri, &decoded, &e) == CNA_OK)
            img->uri = decoded;
        img->source = img->buffer_view >= 0      ? CNA_GLTF_SOURCE_BUFFER_VIEW
                      : !uri                     ? CNA_GLTF_SOURCE_NONE
                      : cna__gltf_uri_is_data(uri) ? CNA_GLTF_SOURCE_DATA_URI
                                                 : CNA_GLTF_SOURCE_EXTERNAL;
        cna__gltf_diag(c, CNA__DIAG_TEXTURES_NOT_LOADED, "%s: not read: loaded without textures", path);
        return set_problem(c, path, img, "not read: loaded without textures");
    }
    if (img->buffer_view >= 0) {
        const cna_gltf_buffer_view *v = &c->views[img->buffer_view];
        cna__gltf_use(c, CNA__KIND_BUFFER_VIEW, img->buffer_view);
        img->source = CNA_GLTF_SOURCE_BUFFER_VIEW;
        img->data = v->data;
        img->size = v->byte_length;
        img->available = true;
        return CNA_OK;
    }
    if (uri) return image_from_uri(c, path, uri, img);
    cna__gltf_diag(c, CNA__DIAG_IMAGE_MISSING, "%s: has neither uri nor bufferView", path);
    return set_problem(c, path, img, "has neither uri nor bufferView");
}

cna_result cna__gltf_parse_images(cna__gltf_ctx *c)
{
    const cna__json *arr = cna__gltf_json_get(c->root, "images"), *item;
    size_t i = 0;
    cna__json_for_each(item, arr)
    {
        cna_result r = parse_image(c, item, i++);
        if (r) return r;
    }
    return CNA_OK;
}

static cna_result gl_enum(const cna__json *obj, const char *key, const char *path, const int32_t *allowed, size_t n,
                          int32_t *out, cna_error *err)
{
    int64_t v = *out;
    cna_result r = cna__gltf_json_int(obj, key, path, false, INT32_MIN, INT32_MAX, &v, err);
    if (r) return r;
    if (!cna__gltf_json_get(obj, key)) return CNA_OK;
    for (size_t i = 0; i < n; i++) {
        if (allowed[i] == v) {
            *out = (int32_t)v;
            return CNA_OK;
        }
    }
    return cna__error(err, CNA_ERROR_INVALID_DATA, "%s.%s: %lld is not an allowed value", path, key, (long long)v);
}

static cna_result parse_sampler(cna__gltf_ctx *c, const cna__json *obj, size_t index)
{
    static const int32_t mag[] = {9728, 9729};
    static const int32_t min[] = {9728, 9729, 9984, 9985, 9986, 9987};
    static const int32_t wrap[] = {33071, 33648, 10497};
    char path[CNA__PATH_MAX];
    cna__gltf_path_index(path, sizeof path, "samplers", index, "");
    cna_gltf_sampler *s = &c->samplers[index];
    s->wrap_s = s->wrap_t = 10497;
    cna_result r = cna__gltf_json_expect_object(obj, path, c->err);
    if (!r) r = cna__gltf_json_string(c, obj, "name", path, false, &s->name);
    if (!r) r = gl_enum(obj, "magFilter", path, mag, 2, &s->mag_filter, c->err);
    if (!r) r = gl_enum(obj, "minFilter", path, min, 6, &s->min_filter, c->err);
    if (!r) r = gl_enum(obj, "wrapS", path, wrap, 3, &s->wrap_s, c->err);
    if (!r) r = gl_enum(obj, "wrapT", path, wrap, 3, &s->wrap_t, c->err);
    return r;
}

cna_result cna__gltf_parse_samplers(cna__gltf_ctx *c)
{
    const cna__json *arr = cna__gltf_json_get(c->root, "samplers"), *item;
    size_t i = 0;
    cna__json_for_each(item, arr)
    {
        cna_result r = parse_sampler(c, item, i++);
        if (r) return r;
    }
    return CNA_OK;
}

static cna_result parse_texture(cna__gltf_ctx *c, const cna__json *obj, size_t index)
{
    char path[CNA__PATH_MAX];
    cna__gltf_path_index(path, sizeof path, "textures", index, "");
    cna_gltf_texture *t = &c->textures[index];
    cna_result r = cna__gltf_json_expect_object(obj, path, c->err);
    if (!r) r = cna__gltf_json_string(c, obj, "name", path, false, &t->name);
    if (!r) r = cna__gltf_json_index(obj, "sampler", path, false, c->n_samplers, "samplers", &t->sampler, c->err);
    if (!r) r = cna__gltf_json_index(obj, "source", path, false, c->n_images, "images", &t->source, c->err);
    if (r) return r;
    cna__gltf_use(c, CNA__KIND_SAMPLER, t->sampler);
    cna__gltf_use(c, CNA__KIND_IMAGE, t->source);
    return CNA_OK;
}

cna_result cna__gltf_parse_textures(cna__gltf_ctx *c)
{
    const cna__json *arr = cna__gltf_json_get(c->root, "textures"), *item;
    size_t i = 0;
    cna__json_for_each(item, arr)
    {
        cna_result r = parse_texture(c, item, i++);
        if (r) return r;
    }
    return CNA_OK;
}

/* extensions.KHR_texture_transform of a textureInfo at `path`: offset,
 * rotation, scale, texCoord (each optional). */
static cna_result texture_transform(cna__gltf_ctx *c, const cna__json *info, const char *path,
                                    cna_gltf_texture_transform *out)
{
    out->present = false;
    out->offset[0] = out->offset[1] = 0.0f;
    out->rotation = 0.0f;
    out->scale[0] = out->scale[1] = 1.0f;
    out->texcoord = -1;
    const cna__json *ext = cna__gltf_json_get(info, "extensions");
    if (!ext || !cna__gltf_is_object(ext)) return CNA_OK;
    const cna__json *obj = cna__gltf_json_get(ext, "KHR_texture_transform");
    if (!obj) return CNA_OK;
    char tpath[CNA__PATH_MAX];
    cna__gltf_pathf(tpath, sizeof tpath, "%s.extensions.KHR_texture_transform", path);
    int64_t texcoord = -1;
    cna_result r = cna__gltf_json_expect_object(obj, tpath, c->err);
    if (!r) r = cna__gltf_json_floats(obj, "offset", tpath, 2, out->offset, NULL, c->err);
    if (!r) r = cna__gltf_json_float(obj, "rotation", tpath, false, &out->rotation, c->err);
    if (!r) r = cna__gltf_json_floats(obj, "scale", tpath, 2, out->scale, NULL, c->err);
    if (!r) r = cna__gltf_json_int(obj, "texCoord", tpath, false, 0, INT32_MAX, &texcoord, c->err);
    if (r) return r;
    out->texcoord = (int32_t)texcoord;
    out->present = true;
    return CNA_OK;
}

/* textureInfo: {index, texCoord} plus `scale_key` ("scale", "strength") when
 * given, and its KHR_texture_transform. */
static cna_result texture_ref(cna__gltf_ctx *c, const cna__json *parent, const char *key, const char *parent_path,
                              const char *scale_key, cna_gltf_texture_ref *out)
{
    out->texture = -1;
    out->texcoord = 0;
    out->scale = 1.0f;
    out->transform.present = false;
    out->transform.offset[0] = out->transform.offset[1] = 0.0f;
    out->transform.rotation = 0.0f;
    out->transform.scale[0] = out->transform.scale[1] = 1.0f;
    out->transform.texcoord = -1;
    const cna__json *obj = cna__gltf_json_get(parent, key);
    if (!obj) return CNA_OK;
    char path[CNA__PATH_MAX];
    cna__gltf_pathf(path, sizeof path, "%s.%s", parent_path, key);
    int64_t texcoord = 0;
    cna_result r = cna__gltf_json_expect_object(obj, path, c->err);
    if (!r) r = cna__gltf_json_index(obj, "index", path, true, c->n_textures, "textures", &out->texture, c->err);
    if (!r) r = cna__gltf_json_int(obj, "texCoord", path, false, 0, INT32_MAX, &texcoord, c->err);
    if (!r && scale_key) r = cna__gltf_json_float(obj, scale_key, path, false, &out->scale, c->err);
    if (!r) r = texture_transform(c, obj, path, &out->transform);
    if (r) return r;
    out->texcoord = (int32_t)texcoord;
    cna__gltf_use(c, CNA__KIND_TEXTURE, out->texture);
    return CNA_OK;
}

static cna_result parse_pbr(cna__gltf_ctx *c, const cna__json *mobj, const char *mpath, cna_gltf_material *m)
{
    m->base_color_factor = (cna_vec4){1.0f, 1.0f, 1.0f, 1.0f};
    m->metallic_factor = m->roughness_factor = 1.0f;
    const cna__json *obj = cna__gltf_json_get(mobj, "pbrMetallicRoughness");
    char path[CNA__PATH_MAX];
    cna__gltf_pathf(path, sizeof path, "%s.pbrMetallicRoughness", mpath);
    cna_result r = obj ? cna__gltf_json_expect_object(obj, path, c->err) : CNA_OK;
    float f[4];
    bool present = false;
    if (!r) r = cna__gltf_json_floats(obj, "baseColorFactor", path, 4, f, &present, c->err);
    if (!r && present) m->base_color_factor = (cna_vec4){f[0], f[1], f[2], f[3]};
    if (!r) r = cna__gltf_json_float(obj, "metallicFactor", path, false, &m->metallic_factor, c->err);
    if (!r) r = cna__gltf_json_float(obj, "roughnessFactor", path, false, &m->roughness_factor, c->err);
    if (!r) r = texture_ref(c, obj, "baseColorTexture", path, NULL, &m->base_color_texture);
    if (!r) r = texture_ref(c, obj, "metallicRoughnessTexture", path, NULL, &m->metallic_roughness_texture);
    return r;
}

static cna_result parse_alpha_mode(const cna__json *obj, const char *path, cna_gltf_alpha_mode *out, cna_error *err)
{
    const char *s;
    cna_result r = cna__gltf_json_string_ref(obj, "alphaMode", path, false, &s, err);
    if (r || !s) return r;
    for (int m = 0; m < CNA_GLTF_ALPHA_MODE_COUNT; m++) {
        if (strcmp(s, cna_gltf_alpha_mode_name((cna_gltf_alpha_mode)m)) == 0) {
            *out = (cna_gltf_alpha_mode)m;
            return CNA_OK;
        }
    }
    return cna__error(err, CNA_ERROR_INVALID_DATA, "%s.alphaMode: \"%.40s\" is not OPAQUE, MASK or BLEND", path, s);
}

/* extensions.KHR_materials_emissive_strength.emissiveStrength: a number >= 0. */
static cna_result emissive_strength(cna__gltf_ctx *c, const cna__json *mobj, const char *mpath, float *out)
{
    *out = 1.0f;
    const cna__json *ext = cna__gltf_json_get(mobj, "extensions");
    if (!ext || !cna__gltf_is_object(ext)) return CNA_OK;
    const cna__json *obj = cna__gltf_json_get(ext, "KHR_materials_emissive_strength");
    if (!obj) return CNA_OK;
    char path[CNA__PATH_MAX];
    cna__gltf_pathf(path, sizeof path, "%s.extensions.KHR_materials_emissive_strength", mpath);
    cna_result r = cna__gltf_json_expect_object(obj, path, c->err);
    if (!r) r = cna__gltf_json_float(obj, "emissiveStrength", path, false, out, c->err);
    if (r) return r;
    if (!(*out >= 0.0f))
        return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s.emissiveStrength: %g is negative", path, (double)*out);
    return CNA_OK;
}

/* extensions.KHR_materials_unlit: an object (its properties, none defined, are ignored). */
static cna_result unlit(cna__gltf_ctx *c, const cna__json *mobj, const char *mpath, bool *out)
{
    *out = false;
    const cna__json *ext = cna__gltf_json_get(mobj, "extensions");
    if (!ext || !cna__gltf_is_object(ext)) return CNA_OK;
    const cna__json *obj = cna__gltf_json_get(ext, "KHR_materials_unlit");
    if (!obj) return CNA_OK;
    char path[CNA__PATH_MAX];
    cna__gltf_pathf(path, sizeof path, "%s.extensions.KHR_materials_unlit", mpath);
    cna_result r = cna__gltf_json_expect_object(obj, path, c->err);
    if (!r) *out = true;
    return r;
}

static cna_result parse_material(cna__gltf_ctx *c, const cna__json *obj, size_t index)
{
    char path[CNA__PATH_MAX];
    cna__gltf_path_index(path, sizeof path, "materials", index, "");
    cna_gltf_material *m = &c->materials[index];
    m->alpha_cutoff = 0.5f;
    float f[3];
    bool present = false;
    cna_result r = cna__gltf_json_expect_object(obj, path, c->err);
    if (!r) r = cna__gltf_json_string(c, obj, "name", path, false, &m->name);
    if (!r) r = parse_pbr(c, obj, path, m);
    if (!r) r = texture_ref(c, obj, "normalTexture", path, "scale", &m->normal_texture);
    if (!r) r = texture_ref(c, obj, "occlusionTexture", path, "strength", &m->occlusion_texture);
    if (!r) r = texture_ref(c, obj, "emissiveTexture", path, NULL, &m->emissive_texture);
    if (!r) r = cna__gltf_json_floats(obj, "emissiveFactor", path, 3, f, &present, c->err);
    if (!r && present) m->emissive_factor = (cna_vec3){f[0], f[1], f[2]};
    if (!r) r = emissive_strength(c, obj, path, &m->emissive_strength);
    if (!r) r = unlit(c, obj, path, &m->unlit);
    if (!r) r = parse_alpha_mode(obj, path, &m->alpha_mode, c->err);
    if (!r) r = cna__gltf_json_float(obj, "alphaCutoff", path, false, &m->alpha_cutoff, c->err);
    if (!r) r = cna__gltf_json_bool(obj, "doubleSided", path, &m->double_sided, c->err);
    return r;
}

cna_result cna__gltf_parse_materials(cna__gltf_ctx *c)
{
    const cna__json *arr = cna__gltf_json_get(c->root, "materials"), *item;
    size_t i = 0;
    cna__json_for_each(item, arr)
    {
        cna_result r = parse_material(c, item, i++);
        if (r) return r;
    }
    return CNA_OK;
}
