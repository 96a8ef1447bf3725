/* Loading entry points and the stage order: container, JSON, asset and
 * extensions, top-level arrays, per-kind parsers, semantic validation. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gltf/gltf_internal.h"

/* ------------------------------------------------------------------ small helpers */

void cna__gltf_pathf(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, size, fmt, ap);
    va_end(ap);
}

void cna__gltf_path_cat(char *buf, size_t size, const char *a, const char *b)
{
    size_t o = 0;
    if (size == 0) return;
    for (; *a && o + 1 < size; a++) buf[o++] = *a;
    for (; *b && o + 1 < size; b++) buf[o++] = *b;
    buf[o] = '\0';
}

void cna__gltf_path_index(char *buf, size_t size, const char *prefix, size_t index, const char *suffix)
{
    char digits[24];
    size_t nd = 0, o = 0;
    do {
        digits[nd++] = (char)('0' + index % 10);
        index /= 10;
    } while (index);
    size_t np = strlen(prefix), ns = strlen(suffix);
    if (np + nd + ns + 2 < size) { /* it fits: the common case, without the byte-wise checks */
        memcpy(buf, prefix, np);
        o = np;
        buf[o++] = '[';
        while (nd) buf[o++] = digits[--nd];
        buf[o++] = ']';
        memcpy(buf + o, suffix, ns + 1);
        return;
    }
    for (const char *p = prefix; *p && o + 1 < size; p++) buf[o++] = *p;
    if (o + 1 < size) buf[o++] = '[';
    while (nd && o + 1 < size) buf[o++] = digits[--nd];
    if (o + 1 < size) buf[o++] = ']';
    for (const char *p = suffix; *p && o + 1 < size; p++) buf[o++] = *p;
    buf[o] = '\0';
}

void cna__gltf_path_prefixed(char *buf, size_t size, const char *parent, const char *key, size_t index,
                             const char *suffix)
{
    size_t n = strlen(parent);
    if (n >= size) n = size - 1;
    memcpy(buf, parent, n);
    cna__gltf_path_index(buf + n, size - n, key, index, suffix);
}

void cna__gltf_fmt_float(char *buf, size_t size, float v)
{
    for (int prec = 1; prec <= 9; prec++) {
        snprintf(buf, size, "%.*g", prec, (double)v);
        if (strtof(buf, NULL) == v) return;
    }
}

void cna__gltf_fmt_double(char *buf, size_t size, double v)
{
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, size, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) return;
    }
}

static const char *const diag_codes[CNA__DIAG_COUNT] = {
    CNA_GLTF_DIAG_EXTENSION_IGNORED, CNA_GLTF_DIAG_IMAGE_MISSING,         CNA_GLTF_DIAG_CAMERA_SKIPPED,
    CNA_GLTF_DIAG_QUATERNION_NOT_UNIT, CNA_GLTF_DIAG_WEIGHTS_NOT_NORMALIZED, CNA_GLTF_DIAG_UNUSED_OBJECT,
    CNA_GLTF_DIAG_TEXCOORD_MISSING, CNA_GLTF_DIAG_CHANNEL_IGNORED,       CNA_GLTF_DIAG_BUFFER_LONGER,
    CNA_GLTF_DIAG_NO_POSITION,         CNA_GLTF_DIAG_VALUE_NOT_FINITE,     CNA_GLTF_DIAG_TARGET_NAMES_INVALID,
    CNA_GLTF_DIAG_POSITION_BOUNDS_MISSING, CNA_GLTF_DIAG_POINTER_UNSUPPORTED, CNA_GLTF_DIAG_INSTANCE_ATTRIBUTE_IGNORED,
    CNA_GLTF_DIAG_SKIN_SKELETON_HINT_IGNORED, CNA_GLTF_DIAG_EMPTY_ARRAY, CNA_GLTF_DIAG_ACCESSOR_MIN_MAX_COMPUTED,
    CNA_GLTF_DIAG_KEY_TIMES_EQUAL, CNA_GLTF_DIAG_MESHOPT_FALLBACK_READ, CNA_GLTF_DIAG_TEXTURES_NOT_LOADED,
    CNA_GLTF_DIAG_TEXTURE_EXTENSION_IGNORED};

void cna__gltf_diag(cna__gltf_ctx *c, cna__diag_code code, const char *fmt, ...)
{
    cna__gltf_doc *d = c->doc;
    if (d->diag_slot[code]) {
        d->diags[d->diag_slot[code] - 1].count++;
        return;
    }
    char buf[CNA_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    cna__utf8_repair(buf); /* a quoted string cut short */
    size_t slot = d->pub.diagnostic_count++;
    const char *msg = cna__gltf_arena_strdup(c->arena, buf);
    d->diags[slot].code = diag_codes[code];
    d->diags[slot].count = 1;
    d->diags[slot].message = msg ? msg : "(message lost: out of memory)";
    d->diag_slot[code] = (uint8_t)(slot + 1);
}

/* ------------------------------------------------------------------ asset, extensions */

static bool parse_version(const char *s, long *major, long *minor)
{
    char *end;
    if (s[0] < '0' || s[0] > '9') return false;
    *major = strtol(s, &end, 10);
    if (*end != '.' || end[1] < '0' || end[1] > '9') return false;
    *minor = strtol(end + 1, &end, 10);
    return *end == '\0';
}

static cna_result check_version(const cna__json *asset, const char *key, const char *s, bool is_min, cna_error *err)
{
    long major, minor;
    if (!parse_version(s, &major, &minor))
        return cna__error(err, CNA_ERROR_INVALID_DATA, "asset.%s: \"%.40s\" is not a version (major.minor)", key, s);
    (void)asset;
    if (major != 2 || (is_min && minor > 0))
        return cna__error(err, CNA_ERROR_UNSUPPORTED, "asset.%s: \"%.40s\" is not supported (glTF 2.0 reader)", key,
                          s);
    return CNA_OK;
}

static cna_result parse_asset(cna__gltf_ctx *c)
{
    cna_gltf_asset *a = &c->doc->pub.asset;
    const cna__json *asset = cna__gltf_json_get(c->root, "asset");
    if (!asset) return cna__error(c->err, CNA_ERROR_INVALID_DATA, "asset: required property is missing");
    cna_result r = cna__gltf_json_expect_object(asset, "asset", c->err);
    if (!r) r = cna__gltf_json_string(c, asset, "version", "asset", true, &a->version);
    if (!r) r = cna__gltf_json_string(c, asset, "minVersion", "asset", false, &a->min_version);
    if (!r) r = cna__gltf_json_string(c, asset, "generator", "asset", false, &a->generator);
    if (!r) r = cna__gltf_json_string(c, asset, "copyright", "asset", false, &a->copyright);
    if (!r) r = check_version(asset, "version", a->version, false, c->err);
    if (!r && a->min_version) r = check_version(asset, "minVersion", a->min_version, true, c->err);
    return r;
}

static cna_result string_list(cna__gltf_ctx *c, const char *key, const char *const **out, size_t *count)
{
    const cna__json *arr = cna__gltf_json_get(c->root, key), *item;
    size_t i = 0;
    if (!arr) return CNA_OK;
    if (!cna__gltf_is_array(arr))
        return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s: expected an array, got %s", key,
                          cna__gltf_json_type_name(arr));
    int size = cna__json_count(arr);
    size_t n = size > 0 ? (size_t)size : 0;
    if (n == 0) return CNA_OK;
    const char **names = (const char **)cna__gltf_arena_calloc(c->arena, n, sizeof *names);
    if (!names) return cna__error(c->err, CNA_ERROR_OUT_OF_MEMORY, "%s: out of memory", key);
    cna__json_for_each(item, arr)
    {
        if (!cna__gltf_is_string(item))
            return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s[%zu]: expected a string, got %s", key, i,
                              cna__gltf_json_type_name(item));
        size_t len = strlen(item->valuestring), bad = cna__utf8_invalid_at(item->valuestring, len);
        if (bad < len)
            return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s[%zu]: invalid UTF-8 at byte %zu", key, i, bad);
        names[i] = cna__gltf_arena_strdup(c->arena, item->valuestring);
        if (!names[i++]) return cna__error(c->err, CNA_ERROR_OUT_OF_MEMORY, "%s: out of memory", key);
    }
    *out = names;
    *count = n;
    return CNA_OK;
}

/* The extensions the reader implements: a file may require them. */
static bool implemented(const char *name)
{
    return strcmp(name, "KHR_mesh_quantization") == 0 || strcmp(name, "EXT_meshopt_compression") == 0 ||
           strcmp(name, "KHR_animation_pointer") == 0 || strcmp(name, "KHR_texture_transform") == 0 ||
           strcmp(name, "KHR_materials_emissive_strength") == 0 || strcmp(name, "EXT_mesh_gpu_instancing") == 0 ||
           strcmp(name, "KHR_materials_unlit") == 0 ||
           (strcmp(name, "KHR_draco_mesh_compression") == 0 && cna__gltf_draco_available());
}

/* Extensions that concern textures only: without textures (no_textures) a
 * file that requires one loads all the same. */
static bool texture_only(const char *name)
{
    return strcmp(name, "KHR_texture_basisu") == 0 || strcmp(name, "EXT_texture_webp") == 0 ||
           strcmp(name, "EXT_texture_avif") == 0;
}

static cna_result parse_extensions(cna__gltf_ctx *c)
{
    cna_gltf_document *d = &c->doc->pub;
    cna_result r = string_list(c, "extensionsUsed", &d->extensions_used, &d->extensions_used_count);
    if (!r) r = string_list(c, "extensionsRequired", &d->extensions_required, &d->extensions_required_count);
    if (r) return r;
    for (size_t i = 0; i < d->extensions_required_count; i++) {
        const char *name = d->extensions_required[i];
        if (strcmp(name, "KHR_draco_mesh_compression") == 0 && !implemented(name))
            return cna__error(c->err, CNA_ERROR_UNSUPPORTED,
                              "extensionsRequired[%zu]: \"%s\" is not supported: cna was built without Draco "
                              "(CMake option CNA_WITH_DRACO)",
                              i, name);
        if (!implemented(name) && texture_only(name) && c->no_textures) {
            cna__gltf_diag(c, CNA__DIAG_TEXTURE_EXTENSION_IGNORED,
                           "extensionsRequired[%zu]: \"%s\" concerns textures only; ignored, as the model is loaded "
                           "without textures",
                           i, name);
            continue;
        }
        if (!implemented(name) && texture_only(name))
            return cna__error(c->err, CNA_ERROR_UNSUPPORTED,
                              "extensionsRequired[%zu]: \"%s\" is not supported; it concerns textures only: load "
                              "without textures (cna --no-textures, cna_gltf_options.no_textures) to read the rest",
                              i, name);
        if (!implemented(name))
            return cna__error(c->err, CNA_ERROR_UNSUPPORTED, "extensionsRequired[%zu]: \"%s\" is not supported", i,
                              name);
        if (strcmp(name, "KHR_mesh_quantization") == 0) c->quantization = true;
    }
    for (size_t i = 0; i < d->extensions_used_count; i++) {
        const char *name = d->extensions_used[i];
        if (implemented(name)) {
            if (strcmp(name, "KHR_mesh_quantization") == 0) c->quantization = true;
        } else
            cna__gltf_diag(c, CNA__DIAG_EXTENSION_IGNORED, "extensionsUsed[%zu]: \"%s\" is not implemented and is ignored",
                           i, name);
    }
    return CNA_OK;
}

/* ------------------------------------------------------------------ arrays */

typedef struct top_array {
    const char *key;
    size_t ctx_count_offset;
} top_array;

#define TOP(key, field) {key, offsetof(cna__gltf_ctx, field)}
static const top_array top_arrays[] = {
    TOP("buffers", n_buffers),     TOP("bufferViews", n_views), TOP("accessors", n_accessors),
    TOP("images", n_images),       TOP("samplers", n_samplers), TOP("textures", n_textures),
    TOP("materials", n_materials), TOP("meshes", n_meshes),     TOP("nodes", n_nodes),
    TOP("skins", n_skins),         TOP("animations", n_animations), TOP("scenes", n_scenes),
    TOP("cameras", n_cameras)};

static cna_result count_arrays(cna__gltf_ctx *c)
{
    for (size_t i = 0; i < sizeof top_arrays / sizeof top_arrays[0]; i++) {
        const cna__json *v = cna__gltf_json_get(c->root, top_arrays[i].key);
        size_t *count = (size_t *)((char *)c + top_arrays[i].ctx_count_offset);
        *count = 0;
        if (!v) continue;
        if (!cna__gltf_is_array(v))
            return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s: expected an array, got %s", top_arrays[i].key,
                              cna__gltf_json_type_name(v));
        int n = cna__json_count(v);
        *count = n > 0 ? (size_t)n : 0;
        if (*count == 0) /* glTF's schema says minItems 1; nothing is lost reading it as absent */
            cna__gltf_diag(c, CNA__DIAG_EMPTY_ARRAY, "%s: empty array (glTF requires at least 1 entry); read as absent",
                           top_arrays[i].key);
    }
    return CNA_OK;
}

static void *array(cna__gltf_ctx *c, size_t count, size_t size, bool *ok)
{
    if (count == 0) return NULL;
    void *p = cna__gltf_arena_calloc(c->arena, count, size);
    if (!p) *ok = false;
    return p;
}

static cna_result allocate_arrays(cna__gltf_ctx *c)
{
    bool ok = true;
    c->buffers = (cna_gltf_buffer *)array(c, c->n_buffers, sizeof *c->buffers, &ok);
    /* room after the file's views for those made for Draco-decoded accessors */
    c->draco_view_cap = cna__gltf_draco_view_count(c->root);
    c->views = (cna_gltf_buffer_view *)array(c, c->n_views + c->draco_view_cap, sizeof *c->views, &ok);
    if (c->draco_view_cap && c->n_accessors) {
        c->draco_view = (int32_t *)cna__gltf_arena_calloc(&c->scratch, c->n_accessors, sizeof *c->draco_view);
        c->draco_attr = (int64_t *)cna__gltf_arena_calloc(&c->scratch, c->n_accessors, sizeof *c->draco_attr);
        if (!c->draco_view || !c->draco_attr) ok = false;
        else
            for (size_t i = 0; i < c->n_accessors; i++) c->draco_view[i] = -1;
    }
    c->accessors = (cna_gltf_accessor *)array(c, c->n_accessors, sizeof *c->accessors, &ok);
    c->images = (cna_gltf_image *)array(c, c->n_images, sizeof *c->images, &ok);
    c->samplers = (cna_gltf_sampler *)array(c, c->n_samplers, sizeof *c->samplers, &ok);
    c->textures = (cna_gltf_texture *)array(c, c->n_textures, sizeof *c->textures, &ok);
    c->materials = (cna_gltf_material *)array(c, c->n_materials, sizeof *c->materials, &ok);
    c->meshes = (cna_gltf_mesh *)array(c, c->n_meshes, sizeof *c->meshes, &ok);
    c->nodes = (cna_gltf_node *)array(c, c->n_nodes, sizeof *c->nodes, &ok);
    c->skins = (cna_gltf_skin *)array(c, c->n_skins, sizeof *c->skins, &ok);
    c->animations = (cna_gltf_animation *)array(c, c->n_animations, sizeof *c->animations, &ok);
    c->scenes = (cna_gltf_scene *)array(c, c->n_scenes, sizeof *c->scenes, &ok);
    const size_t counts[CNA__KIND_COUNT] = {c->n_views,     c->n_accessors, c->n_images,
                                            c->n_samplers,  c->n_textures,  c->n_materials,
                                            c->n_meshes,    c->n_skins,     c->n_cameras};
    for (int k = 0; k < CNA__KIND_COUNT; k++) {
        c->used[k] = counts[k] ? (uint8_t *)cna__gltf_arena_calloc(&c->scratch, counts[k], 1) : NULL;
        if (counts[k] && !c->used[k]) ok = false;
    }
    if (!ok) return cna__error(c->err, CNA_ERROR_OUT_OF_MEMORY, "out of memory for the document's arrays");
    return CNA_OK;
}

void cna__gltf_publish(cna__gltf_ctx *c)
{
    cna_gltf_document *d = &c->doc->pub;
    d->is_glb = c->is_glb;
    d->buffers = c->buffers, d->buffer_count = c->n_buffers;
    d->buffer_views = c->views, d->buffer_view_count = c->n_views + c->n_draco_views;
    d->accessors = c->accessors, d->accessor_count = c->n_accessors;
    d->images = c->images, d->image_count = c->n_images;
    d->samplers = c->samplers, d->sampler_count = c->n_samplers;
    d->textures = c->textures, d->texture_count = c->n_textures;
    d->materials = c->materials, d->material_count = c->n_materials;
    d->meshes = c->meshes, d->mesh_count = c->n_meshes;
    d->nodes = c->nodes, d->node_count = c->n_nodes;
    d->skins = c->skins, d->skin_count = c->n_skins;
    d->animations = c->animations, d->animation_count = c->n_animations;
    d->scenes = c->scenes, d->scene_count = c->n_scenes;
    d->camera_count = c->n_cameras;
    d->diagnostics = d->diagnostic_count ? c->doc->diags : NULL;
}

/* ------------------------------------------------------------------ stages */

static cna_result publish_stage(cna__gltf_ctx *c)
{
    cna__gltf_publish(c); /* validation reads accessors through the public document */
    return CNA_OK;
}

static cna_result run_stages(cna__gltf_ctx *c)
{
    cna_result (*const stages[])(cna__gltf_ctx *) = {
        parse_asset,           parse_extensions,      count_arrays,          allocate_arrays,
        cna__gltf_parse_buffers,    cna__gltf_parse_buffer_views, cna__gltf_parse_accessors, cna__gltf_parse_images,
        cna__gltf_parse_samplers,   cna__gltf_parse_textures,   cna__gltf_parse_materials,  cna__gltf_parse_meshes,
        cna__gltf_parse_skins,      cna__gltf_parse_nodes,      cna__gltf_parse_scenes,     cna__gltf_parse_animations,
        publish_stage,         cna__gltf_validate_nodes,   cna__gltf_validate_meshes,  cna__gltf_validate_skinning, cna__gltf_validate_animations};
    for (size_t i = 0; i < sizeof stages / sizeof stages[0]; i++) {
        cna_result r = stages[i](c);
        if (r) return r;
    }
    for (size_t i = 0; i < c->n_cameras; i++)
        cna__gltf_diag(c, CNA__DIAG_CAMERA_SKIPPED, "cameras[%zu]: cameras are not parsed (skipped)", i);
    cna__gltf_report_unused(c);
    cna__gltf_publish(c);
    return CNA_OK;
}

static cna_result json_error(const uint8_t *json, size_t size, const char *end, cna_error *err)
{
    size_t pos = end ? (size_t)((const uint8_t *)end - json) : 0, line = 1, col = 1;
    if (pos > size) pos = size;
    if (cna__json_too_deep((const char *)json, size, pos))
        return cna__error(err, CNA_ERROR_PARSE, "JSON nested deeper than %d levels at byte %zu", CNA__JSON_MAX_DEPTH,
                          pos);
    for (size_t i = 0; i < pos; i++) {
        if (json[i] == '\n') line++, col = 1;
        else col++;
    }
    return cna__error(err, CNA_ERROR_PARSE, "JSON syntax error at line %zu, column %zu (byte %zu of %zu)", line, col,
                      pos, size);
}

static cna_result parse_json(cna__gltf_ctx *c, const uint8_t *json, size_t size, cna__gltf_arena *fast,
                             const cna__json **out)
{
    /* RFC 8259 section 8.1 and glTF 2.0 ("JSON documents MUST NOT use a byte order mark"). */
    if (size >= 3 && json[0] == 0xEF && json[1] == 0xBB && json[2] == 0xBF)
        return cna__error(c->err, CNA_ERROR_PARSE,
                          "JSON: starts with a UTF-8 byte order mark (EF BB BF), which glTF does not allow");
    /* The fast path first; anything it does not take goes to cJSON, unchanged. */
    const cna__json *quick = NULL;
    if (!cna__gltf_json_fast_parse(json, size, fast, &quick)) {
        cna__gltf_arena_free_all(fast);
        return cna__error(c->err, CNA_ERROR_OUT_OF_MEMORY, "JSON: out of memory");
    }
    if (quick && cna__gltf_is_object(quick)) {
        *out = quick;
        return CNA_OK;
    }
    cna__gltf_arena_free_all(fast);
    const char *end = NULL;
    /* serialised: cJSON writes a global on failure (src/import/json.c) */
    cJSON *root = cna__json_parse((const char *)json, size, &end);
    if (!root) return json_error(json, size, end, c->err);
    size_t pos = end ? (size_t)((const uint8_t *)end - json) : size;
    for (; pos < size; pos++) {
        uint8_t ch = json[pos];
        if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r' && ch != '\0') {
            cJSON_Delete(root);
            return json_error(json, size, (const char *)json + pos, c->err);
        }
    }
    /* The fast path takes no \u escape and no control byte, so only cJSON's
     * trees can hold a NUL (src/import/json.c). */
    char nul_path[256];
    bool nul_key = false;
    size_t nul_member = 0;
    if (cna__json_find_nul((const char *)json, end ? (size_t)((const uint8_t *)end - json) : size, root, nul_path,
                           sizeof nul_path, &nul_key, &nul_member)) {
        cJSON_Delete(root);
        if (nul_key)
            return cna__error(c->err, CNA_ERROR_PARSE, "%s: the name of member %zu contains a NUL character (\\u0000)",
                              nul_path, nul_member);
        return cna__error(c->err, CNA_ERROR_PARSE, "%s: string contains a NUL character (\\u0000)", nul_path);
    }
    const cna__json *tree = cna__gltf_json_from_cjson(root, fast);
    cJSON_Delete(root);
    if (!tree) {
        cna__gltf_arena_free_all(fast);
        return cna__error(c->err, CNA_ERROR_OUT_OF_MEMORY, "JSON: out of memory");
    }
    if (!cna__gltf_is_object(tree)) {
        cna_result r = cna__error(c->err, CNA_ERROR_INVALID_DATA, "glTF: the JSON root is %s, not an object",
                                  cna__gltf_json_type_name(tree));
        cna__gltf_arena_free_all(fast);
        return r;
    }
    *out = tree;
    return CNA_OK;
}

/* split: a GLB file read in pieces (load_file; data is then NULL), whose JSON
 * chunk's blocks (json_blocks) are freed as soon as the JSON is parsed. */
static cna_result load_bytes(cna__gltf_ctx *c, const uint8_t *data, size_t size, const cna__gltf_input *split,
                             cna__gltf_arena *json_blocks)
{
    const uint8_t *json = data;
    size_t json_size = size;
    if (size == 0) return cna__error(c->err, CNA_ERROR_PARSE, "the input is empty");
    if (split || cna__gltf_glb_is(data, size)) {
        cna__gltf_glb glb;
        cna_result r = split ? cna__gltf_glb_parse_split(split->head, split->json, split->rest, size, &glb, c->err)
                             : cna__gltf_glb_parse(data, size, &glb, c->err);
        if (r) return r;
        c->is_glb = true;
        c->glb_bin = glb.bin;
        c->glb_bin_size = glb.bin_size;
        c->glb_has_bin = glb.has_bin;
        json = glb.json;
        json_size = glb.json_size;
    }
    const cna__json *root = NULL;
    cna__gltf_arena tree; /* the parsed JSON, freed once the document is built */
    cna__gltf_arena_init(&tree, &c->scratch.alloc);
    cna_result r = parse_json(c, json, json_size, &tree, &root);
    if (json_blocks) cna__gltf_arena_free_all(json_blocks); /* the tree holds copies of what it needs */
    if (r) return r;
    c->root = root;
    r = run_stages(c);
    c->root = NULL;
    cna__gltf_arena_free_all(&tree);
    return r;
}

/* file_blocks: for load_file, the arena holding the file's bytes (NULL from
 * memory). A GLB's blocks move into the document, whose buffer 0 then points
 * at the BIN chunk in place instead of holding a copy of it. */
static cna_result load(const uint8_t *data, size_t size, const cna__gltf_input *split, cna__gltf_arena *json_blocks,
                       const cna_gltf_options *opts, const char *base_dir, const char *root_real,
                       cna__gltf_arena *file_blocks, cna_gltf_document **out, cna_error *err)
{
    cna_gltf_options o;
    memset(&o, 0, sizeof o);
    if (opts) o = *opts;
    cna_allocator alloc = cna__allocator_resolve(&o.allocator);
    size_t max_size = o.max_file_size ? o.max_file_size : CNA_GLTF_DEFAULT_MAX_FILE_SIZE;
    if (size > max_size)
        return cna__error(err, CNA_ERROR_LIMIT, "the input's %zu bytes exceed the limit of %zu bytes", size, max_size);
    cna__gltf_doc *doc = (cna__gltf_doc *)cna__calloc(&alloc, 1, sizeof *doc);
    if (!doc) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "out of memory for the document");
    doc->alloc = alloc;
    cna__gltf_arena_init(&doc->arena, &alloc);
    doc->pub.scene = -1;
    bool bin_in_place = false;
    if (file_blocks && file_blocks->head && (split || cna__gltf_glb_is(data, size))) {
        doc->arena.head = file_blocks->head; /* same allocator: opts' */
        file_blocks->head = NULL;
        bin_in_place = true;
    }
    cna__gltf_ctx c;
    memset(&c, 0, sizeof c);
    c.doc = doc;
    c.arena = &doc->arena;
    cna__gltf_arena_init(&c.scratch, &alloc);
    c.err = err;
    c.resolve = o.resolve;
    c.release = o.release;
    c.resolver_user_data = o.resolver_user_data;
    c.max_size = max_size;
    c.max_decoded = o.max_decoded_size ? o.max_decoded_size : CNA_GLTF_DEFAULT_MAX_DECODED_SIZE;
    c.base_dir = o.resolve ? NULL : base_dir;
    c.root_real = o.resolve ? NULL : root_real;
    c.from_memory = base_dir == NULL;
    c.no_textures = o.no_textures;
    doc->pub.textures_skipped = o.no_textures;
    c.glb_bin_in_place = bin_in_place;
    cna_result r = load_bytes(&c, data, size, split, json_blocks);
    cna__gltf_arena_free_all(&c.scratch);
    if (r) {
        cna_gltf_document_free(&doc->pub);
        return r;
    }
    *out = &doc->pub;
    return CNA_OK;
}

/* ------------------------------------------------------------------ public */

cna_result cna_gltf_load_memory(const void *data, size_t size, const cna_gltf_options *opts,
                                cna_gltf_document **out, cna_error *err)
{
    if (!out) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "out is NULL");
    if (!data) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "data is NULL");
    return load((const uint8_t *)data, size, NULL, NULL, opts, NULL, NULL, NULL, out, err);
}

cna_result cna_gltf_load_file(const char *path, const cna_gltf_options *opts, cna_gltf_document **out,
                              cna_error *err)
{
    if (!path || !out) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "path or out is NULL");
    cna_allocator alloc = cna__allocator_resolve(opts ? &opts->allocator : NULL);
    size_t max_size = opts && opts->max_file_size ? opts->max_file_size : CNA_GLTF_DEFAULT_MAX_FILE_SIZE;
    cna__gltf_arena file, json;
    cna__gltf_arena_init(&file, &alloc);
    cna__gltf_arena_init(&json, &alloc);
    cna__gltf_input in;
    char root_buf[CNA__GLTF_ROOT_MAX];
    const char *root_real = NULL;
    cna_result r = CNA_OK;
    if (opts && opts->asset_root && !opts->resolve) {
        r = cna__gltf_asset_root_real(opts->asset_root, root_buf, sizeof root_buf, err);
        root_real = root_buf;
    }
    if (!r) r = cna__gltf_read_input(&file, &json, path, max_size, &in, err);
    const char *slash = cna__path_last_separator(path);
    char *dir = NULL;
    if (!r) {
        dir = slash ? cna__gltf_arena_strndup(&file, path, slash == path ? 1 : (size_t)(slash - path))
                    : cna__gltf_arena_strdup(&file, ".");
        if (!dir) r = cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    if (!r) r = load(in.data, in.size, in.split ? &in : NULL, &json, opts, dir, root_real, &file, out, err);
    cna__gltf_arena_free_all(&json);
    cna__gltf_arena_free_all(&file);
    return r;
}

void cna_gltf_document_free(cna_gltf_document *doc)
{
    if (!doc) return;
    cna__gltf_doc *d = (cna__gltf_doc *)doc;
    cna_allocator alloc = d->alloc;
    cna__gltf_arena_free_all(&d->arena);
    cna__free(&alloc, d);
}

size_t cna_gltf_document_diagnostic_count(const cna_gltf_document *doc)
{
    return doc ? doc->diagnostic_count : 0;
}

const cna_gltf_diagnostic *cna_gltf_document_diagnostic(const cna_gltf_document *doc, size_t i)
{
    if (!doc || i >= doc->diagnostic_count) return NULL;
    return &doc->diagnostics[i];
}

const cna_gltf_diagnostic *cna_gltf_document_find_diagnostic(const cna_gltf_document *doc, const char *code)
{
    if (!doc || !code) return NULL;
    for (size_t i = 0; i < doc->diagnostic_count; i++)
        if (strcmp(doc->diagnostics[i].code, code) == 0) return &doc->diagnostics[i];
    return NULL;
}
