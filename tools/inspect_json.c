/*
 * tools/inspect_json.c — the JSON form of `cna inspect` (--json).
 *
 * The document is built with cJSON, so the output is always well-formed JSON;
 * strings from the file are re-encoded as valid UTF-8 (invalid bytes become
 * U+FFFD) because cJSON copies bytes as they are. Indices are JSON numbers,
 * -1 ("none") is null. Nodes are a flat array with parent/children indices
 * (not nested), so that a deep hierarchy cannot exhaust the printer's stack.
 * docs/cli.md describes every field.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "inspect.h"
#include "model_inspect.h"

/* Length of the valid UTF-8 sequence at p (1..4), or 0 when it is invalid. */
static size_t utf8_sequence(const unsigned char *p)
{
    if (p[0] < 0x80) return 1;
    size_t n;
    uint32_t cp;
    if ((p[0] & 0xe0) == 0xc0) { n = 2; cp = p[0] & 0x1fu; }
    else if ((p[0] & 0xf0) == 0xe0) { n = 3; cp = p[0] & 0x0fu; }
    else if ((p[0] & 0xf8) == 0xf0) { n = 4; cp = p[0] & 0x07u; }
    else return 0;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80) return 0; /* also stops at the terminating NUL */
        cp = (cp << 6) | (p[i] & 0x3fu);
    }
    static const uint32_t min_cp[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min_cp[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
    return n;
}

/* A cJSON string holding `s` as valid UTF-8, or a JSON null for NULL. */
static cJSON *json_string(const char *s)
{
    if (!s) return cJSON_CreateNull();
    size_t len = strlen(s);
    char *clean = malloc(len * 3 + 1); /* each invalid byte grows to 3 (U+FFFD) */
    if (!clean) return NULL;
    const unsigned char *p = (const unsigned char *)s;
    char *o = clean;
    while (*p) {
        size_t n = utf8_sequence(p);
        if (n == 0) {
            memcpy(o, "\xef\xbf\xbd", 3);
            o += 3;
            p++;
        } else {
            memcpy(o, p, n);
            o += n;
            p += n;
        }
    }
    *o = '\0';
    cJSON *item = cJSON_CreateString(clean);
    free(clean);
    return item;
}

static void add_string(cJSON *obj, const char *key, const char *s)
{
    cJSON_AddItemToObject(obj, key, json_string(s));
}

static void add_size(cJSON *obj, const char *key, size_t v)
{
    cJSON_AddNumberToObject(obj, key, (double)v);
}

/* An index into a document array: a number, or null for -1 ("none"). */
static void add_index(cJSON *obj, const char *key, int32_t v)
{
    if (v < 0)
        cJSON_AddNullToObject(obj, key);
    else
        cJSON_AddNumberToObject(obj, key, (double)v);
}

static cJSON *float_array(const float *v, size_t n)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; arr && i < n; i++) cJSON_AddItemToArray(arr, cJSON_CreateNumber((double)v[i]));
    return arr;
}

static cJSON *index_array(const int32_t *v, size_t n)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; arr && i < n; i++) cJSON_AddItemToArray(arr, cJSON_CreateNumber((double)v[i]));
    return arr;
}

static cJSON *string_array(const char *const *v, size_t n)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; arr && i < n; i++) cJSON_AddItemToArray(arr, json_string(v[i]));
    return arr;
}

static cJSON *asset_json(const cna_gltf_document *doc)
{
    cJSON *a = cJSON_CreateObject();
    add_string(a, "version", doc->asset.version);
    add_string(a, "minVersion", doc->asset.min_version);
    add_string(a, "generator", doc->asset.generator);
    add_string(a, "copyright", doc->asset.copyright);
    return a;
}

static cJSON *buffers_json(const cna_gltf_document *doc)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; i < doc->buffer_count; i++) {
        const cna_gltf_buffer *b = &doc->buffers[i];
        cJSON *o = cJSON_CreateObject();
        add_size(o, "index", i);
        add_string(o, "name", b->name);
        add_string(o, "source", cna_gltf_source_name(b->source));
        add_string(o, "uri", b->uri);
        add_size(o, "byteLength", b->byte_length);
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

static cJSON *scenes_json(const cna_gltf_document *doc)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; i < doc->scene_count; i++) {
        const cna_gltf_scene *s = &doc->scenes[i];
        cJSON *o = cJSON_CreateObject();
        add_size(o, "index", i);
        add_string(o, "name", s->name);
        cJSON_AddBoolToObject(o, "default", (int32_t)i == doc->scene);
        cJSON_AddItemToObject(o, "nodes", index_array(s->nodes, s->node_count));
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

static cJSON *node_json(const cna_gltf_node *n, size_t index)
{
    cJSON *o = cJSON_CreateObject();
    add_size(o, "index", index);
    add_string(o, "name", n->name);
    add_index(o, "parent", n->parent);
    cJSON_AddItemToObject(o, "children", index_array(n->children, n->child_count));
    add_index(o, "mesh", n->mesh);
    add_index(o, "skin", n->skin);
    add_index(o, "camera", n->camera);
    /* EXT_mesh_gpu_instancing: the count and the attribute accessors, or null */
    if (n->instance_count) {
        cJSON *inst = cJSON_CreateObject();
        add_size(inst, "count", n->instance_count);
        add_index(inst, "translation", n->instance_translation);
        add_index(inst, "rotation", n->instance_rotation);
        add_index(inst, "scale", n->instance_scale);
        cJSON_AddItemToObject(o, "instancing", inst);
    } else {
        cJSON_AddNullToObject(o, "instancing");
    }
    if (n->has_matrix) {
        cJSON_AddItemToObject(o, "matrix", float_array(n->matrix.m, 16));
    } else {
        const float t[3] = {n->translation.x, n->translation.y, n->translation.z};
        const float r[4] = {n->rotation.x, n->rotation.y, n->rotation.z, n->rotation.w};
        const float s[3] = {n->scale.x, n->scale.y, n->scale.z};
        cJSON_AddItemToObject(o, "translation", float_array(t, 3));
        cJSON_AddItemToObject(o, "rotation", float_array(r, 4));
        cJSON_AddItemToObject(o, "scale", float_array(s, 3));
    }
    if (n->weights)
        cJSON_AddItemToObject(o, "weights", float_array(n->weights, n->weight_count));
    else
        cJSON_AddNullToObject(o, "weights");
    return o;
}

/* An accessor's shape, merged into `o`. */
static void add_accessor_fields(cJSON *o, const cna_gltf_document *doc, int32_t accessor)
{
    add_index(o, "accessor", accessor);
    if (accessor < 0 || (size_t)accessor >= doc->accessor_count) return;
    const cna_gltf_accessor *a = &doc->accessors[accessor];
    add_size(o, "count", a->count);
    add_string(o, "type", cna_gltf_type_name(a->type));
    add_string(o, "componentType", cna_gltf_component_type_name(a->component_type));
    cJSON_AddBoolToObject(o, "normalized", a->normalized);
    cJSON_AddBoolToObject(o, "sparse", a->is_sparse);
}

static cJSON *attributes_json(const cna_gltf_document *doc, const cna_gltf_attribute *attrs, size_t n)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        add_string(o, "semantic", attrs[i].name);
        add_string(o, "kind", cna_gltf_attribute_kind_name(attrs[i].kind));
        cJSON_AddNumberToObject(o, "set", (double)attrs[i].set);
        add_accessor_fields(o, doc, attrs[i].accessor);
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

static cJSON *primitive_json(const cna_gltf_document *doc, const cna_gltf_primitive *p, size_t index)
{
    cJSON *o = cJSON_CreateObject();
    add_size(o, "index", index);
    add_string(o, "mode", cna_gltf_primitive_mode_name(p->mode));
    add_size(o, "vertexCount", p->vertex_count);
    if (p->indices >= 0) {
        cJSON *ind = cJSON_CreateObject();
        add_accessor_fields(ind, doc, p->indices);
        cJSON_AddItemToObject(o, "indices", ind);
    } else {
        cJSON_AddNullToObject(o, "indices");
    }
    add_index(o, "material", p->material);
    cJSON_AddItemToObject(o, "attributes", attributes_json(doc, p->attributes, p->attribute_count));
    add_size(o, "targetCount", p->target_count);
    cJSON *targets = cJSON_AddArrayToObject(o, "targets");
    for (size_t t = 0; targets && t < p->target_count; t++)
        cJSON_AddItemToArray(targets, attributes_json(doc, p->targets[t].attributes,
                                                      p->targets[t].attribute_count));
    return o;
}

static cJSON *meshes_json(const cna_gltf_document *doc)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; i < doc->mesh_count; i++) {
        const cna_gltf_mesh *m = &doc->meshes[i];
        cJSON *o = cJSON_CreateObject();
        add_size(o, "index", i);
        add_string(o, "name", m->name);
        add_size(o, "targetCount", m->target_count);
        cJSON_AddItemToObject(o, "weights", float_array(m->weights, m->target_count));
        if (m->target_names)
            cJSON_AddItemToObject(o, "targetNames", string_array(m->target_names, m->target_count));
        else
            cJSON_AddNullToObject(o, "targetNames");
        cJSON *prims = cJSON_AddArrayToObject(o, "primitives");
        for (size_t p = 0; prims && p < m->primitive_count; p++)
            cJSON_AddItemToArray(prims, primitive_json(doc, &m->primitives[p], p));
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

static cJSON *skins_json(const cna_gltf_document *doc)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; i < doc->skin_count; i++) {
        const cna_gltf_skin *s = &doc->skins[i];
        cJSON *o = cJSON_CreateObject();
        add_size(o, "index", i);
        add_string(o, "name", s->name);
        add_size(o, "jointCount", s->joint_count);
        cJSON_AddItemToObject(o, "joints", index_array(s->joints, s->joint_count));
        add_index(o, "skeleton", s->skeleton);
        add_index(o, "inverseBindMatrices", s->inverse_bind_matrices);
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

static cJSON *animation_json(const cna_gltf_document *doc, const cna_gltf_animation *anim, size_t index)
{
    cJSON *o = cJSON_CreateObject();
    add_size(o, "index", index);
    add_string(o, "name", anim->name);
    cJSON_AddNumberToObject(o, "duration", cna_cli_animation_duration(doc, anim));
    add_size(o, "channelCount", anim->channel_count);
    add_size(o, "samplerCount", anim->sampler_count);
    size_t modes[CNA_GLTF_INTERPOLATION_COUNT] = {0};
    cJSON *samplers = cJSON_CreateArray();
    for (size_t i = 0; samplers && i < anim->sampler_count; i++) {
        const cna_gltf_animation_sampler *s = &anim->samplers[i];
        if ((unsigned)s->interpolation < CNA_GLTF_INTERPOLATION_COUNT) modes[s->interpolation]++;
        cna_cli_sampler_keys keys = cna_cli_sampler_keys_of(doc, s);
        cJSON *so = cJSON_CreateObject();
        add_size(so, "index", i);
        add_index(so, "input", s->input);
        add_index(so, "output", s->output);
        add_string(so, "interpolation", cna_gltf_interpolation_name(s->interpolation));
        add_size(so, "keyCount", keys.count);
        cJSON_AddNumberToObject(so, "start", keys.start);
        cJSON_AddNumberToObject(so, "end", keys.end);
        cJSON_AddItemToArray(samplers, so);
    }
    cJSON *interp = cJSON_AddObjectToObject(o, "interpolations");
    for (int i = 0; interp && i < CNA_GLTF_INTERPOLATION_COUNT; i++)
        add_size(interp, cna_gltf_interpolation_name((cna_gltf_interpolation)i), modes[i]);
    cJSON *channels = cJSON_AddArrayToObject(o, "channels");
    for (size_t i = 0; channels && i < anim->channel_count; i++) {
        const cna_gltf_animation_channel *ch = &anim->channels[i];
        cJSON *co = cJSON_CreateObject();
        add_size(co, "index", i);
        add_index(co, "sampler", ch->sampler);
        add_index(co, "targetNode", ch->target_node);
        add_string(co, "path", cna_gltf_animation_path_name(ch->path));
        if (ch->sampler >= 0 && (size_t)ch->sampler < anim->sampler_count)
            add_string(co, "interpolation",
                       cna_gltf_interpolation_name(anim->samplers[ch->sampler].interpolation));
        cJSON_AddItemToArray(channels, co);
    }
    cJSON_AddItemToObject(o, "samplers", samplers);
    return o;
}

static cJSON *texture_ref_json(const cna_gltf_texture_ref *ref)
{
    if (ref->texture < 0) return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    add_index(o, "texture", ref->texture);
    cJSON_AddNumberToObject(o, "texCoord", (double)ref->texcoord);
    cJSON_AddNumberToObject(o, "scale", (double)ref->scale);
    const cna_gltf_texture_transform *t = &ref->transform;
    if (t->present) {
        cJSON *x = cJSON_CreateObject();
        cJSON_AddItemToObject(x, "offset", float_array(t->offset, 2));
        cJSON_AddNumberToObject(x, "rotation", (double)t->rotation);
        cJSON_AddItemToObject(x, "scale", float_array(t->scale, 2));
        if (t->texcoord >= 0) cJSON_AddNumberToObject(x, "texCoord", (double)t->texcoord);
        cJSON_AddItemToObject(o, "KHR_texture_transform", x);
    }
    return o;
}

static cJSON *materials_json(const cna_gltf_document *doc)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; i < doc->material_count; i++) {
        const cna_gltf_material *m = &doc->materials[i];
        const float base[4] = {m->base_color_factor.x, m->base_color_factor.y, m->base_color_factor.z,
                               m->base_color_factor.w};
        const float emissive[3] = {m->emissive_factor.x, m->emissive_factor.y, m->emissive_factor.z};
        cJSON *o = cJSON_CreateObject();
        add_size(o, "index", i);
        add_string(o, "name", m->name);
        cJSON_AddItemToObject(o, "baseColorFactor", float_array(base, 4));
        cJSON_AddItemToObject(o, "baseColorTexture", texture_ref_json(&m->base_color_texture));
        cJSON_AddNumberToObject(o, "metallicFactor", (double)m->metallic_factor);
        cJSON_AddNumberToObject(o, "roughnessFactor", (double)m->roughness_factor);
        cJSON_AddItemToObject(o, "metallicRoughnessTexture",
                              texture_ref_json(&m->metallic_roughness_texture));
        cJSON_AddItemToObject(o, "normalTexture", texture_ref_json(&m->normal_texture));
        cJSON_AddItemToObject(o, "occlusionTexture", texture_ref_json(&m->occlusion_texture));
        cJSON_AddItemToObject(o, "emissiveTexture", texture_ref_json(&m->emissive_texture));
        cJSON_AddItemToObject(o, "emissiveFactor", float_array(emissive, 3));
        cJSON_AddNumberToObject(o, "emissiveStrength", (double)m->emissive_strength);
        add_string(o, "alphaMode", cna_gltf_alpha_mode_name(m->alpha_mode));
        cJSON_AddNumberToObject(o, "alphaCutoff", (double)m->alpha_cutoff);
        cJSON_AddBoolToObject(o, "doubleSided", m->double_sided);
        cJSON_AddBoolToObject(o, "unlit", m->unlit);
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

static cJSON *images_json(const cna_gltf_document *doc)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; i < doc->image_count; i++) {
        const cna_gltf_image *im = &doc->images[i];
        cJSON *o = cJSON_CreateObject();
        add_size(o, "index", i);
        add_string(o, "name", im->name);
        add_string(o, "source", cna_gltf_source_name(im->source));
        add_string(o, "uri", im->uri);
        add_string(o, "mimeType", im->mime_type);
        add_index(o, "bufferView", im->buffer_view);
        cJSON_AddBoolToObject(o, "available", im->available);
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

static cJSON *diagnostics_json(const cna_gltf_document *doc)
{
    cJSON *arr = cJSON_CreateArray();
    size_t n = cna_gltf_document_diagnostic_count(doc);
    for (size_t i = 0; i < n; i++) {
        const cna_gltf_diagnostic *d = cna_gltf_document_diagnostic(doc, i);
        cJSON *o = cJSON_CreateObject();
        add_string(o, "code", d->code);
        add_size(o, "count", d->count);
        add_string(o, "message", d->message);
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

static cJSON *summary_json(const char *path, const cna_gltf_document *doc, const cna_import_options *opts)
{
    cJSON *root = cJSON_CreateObject();
    if (!root) return NULL;
    add_string(root, "file", path);
    add_string(root, "container", doc->is_glb ? "glb" : "gltf");
    cJSON_AddItemToObject(root, "asset", asset_json(doc));
    cJSON_AddItemToObject(root, "extensionsUsed",
                          string_array(doc->extensions_used, doc->extensions_used_count));
    cJSON_AddItemToObject(root, "extensionsRequired",
                          string_array(doc->extensions_required, doc->extensions_required_count));
    cJSON_AddItemToObject(root, "buffers", buffers_json(doc));
    add_size(root, "bufferViewCount", doc->buffer_view_count);
    add_size(root, "accessorCount", doc->accessor_count);
    add_index(root, "scene", doc->scene);
    cJSON_AddItemToObject(root, "scenes", scenes_json(doc));
    cJSON *nodes = cJSON_AddArrayToObject(root, "nodes");
    for (size_t i = 0; nodes && i < doc->node_count; i++)
        cJSON_AddItemToArray(nodes, node_json(&doc->nodes[i], i));
    cJSON_AddItemToObject(root, "meshes", meshes_json(doc));
    cJSON_AddItemToObject(root, "skins", skins_json(doc));
    cJSON *anims = cJSON_AddArrayToObject(root, "animations");
    for (size_t i = 0; anims && i < doc->animation_count; i++)
        cJSON_AddItemToArray(anims, animation_json(doc, &doc->animations[i], i));
    cJSON_AddItemToObject(root, "materials", materials_json(doc));
    add_size(root, "textureCount", doc->texture_count);
    cJSON_AddItemToObject(root, "images", images_json(doc));
    add_size(root, "samplerCount", doc->sampler_count);
    add_size(root, "cameraCount", doc->camera_count);
    cJSON_AddItemToObject(root, "diagnostics", diagnostics_json(doc));
    cJSON_AddItemToObject(root, "model", cna_cli_model_inspect_json(doc, opts));
    return root;
}

/* cJSON_AddItemTo* silently skips a NULL item, so an allocation failure
 * deep in the tree would only show as a missing member. The tool (never the
 * library) therefore routes cJSON's allocations through these hooks while it
 * builds the summary, and treats any failed allocation as a failure. */
static bool cna__json_alloc_failed;

static void *cna__json_malloc(size_t size)
{
    void *p = malloc(size);
    if (!p) cna__json_alloc_failed = true;
    return p;
}

static cJSON *cnb_summary_json(const char *path, const cna_model *m)
{
    cJSON *root = cJSON_CreateObject();
    if (!root) return NULL;
    add_string(root, "file", path);
    add_string(root, "container", "cnb");
    cJSON_AddItemToObject(root, "model", cna_cli_model_json(m));
    return root;
}

/* Prints root (built by one of the summaries above with the hooks on). */
static bool write_root(FILE *out, cJSON *root)
{
    char *text = root && !cna__json_alloc_failed ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    bool ok = text && !cna__json_alloc_failed && fputs(text, out) >= 0 && fputc('\n', out) != EOF;
    cJSON_free(text);
    cJSON_InitHooks(NULL);
    return ok;
}

bool cna_cli_inspect_write_cnb_json(FILE *out, const char *path, const struct cna_model *model)
{
    cJSON_Hooks hooks = {cna__json_malloc, free};
    cJSON_InitHooks(&hooks);
    cna__json_alloc_failed = false;
    return write_root(out, cnb_summary_json(path, model));
}

bool cna_cli_inspect_write_json(FILE *out, const char *path, const cna_gltf_document *doc,
                                const cna_import_options *opts)
{
    cJSON_Hooks hooks = {cna__json_malloc, free};
    cJSON_InitHooks(&hooks);
    cna__json_alloc_failed = false;
    return write_root(out, summary_json(path, doc, opts));
}
