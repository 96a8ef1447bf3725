/* animations: channels and samplers (structure and index ranges). The
 * accessor rules (times, types, counts) are in validate_anim.c. */
#include <stdio.h>
#include <string.h>

#include "gltf/gltf_internal.h"

static cna_result parse_interpolation(const cna__json *obj, const char *path, cna_gltf_interpolation *out,
                                      cna_error *err)
{
    const char *s;
    cna_result r = cna__gltf_json_string_ref(obj, "interpolation", path, false, &s, err);
    if (r || !s) return r;
    for (int i = 0; i < CNA_GLTF_INTERPOLATION_COUNT; i++) {
        if (strcmp(s, cna_gltf_interpolation_name((cna_gltf_interpolation)i)) == 0) {
            *out = (cna_gltf_interpolation)i;
            return CNA_OK;
        }
    }
    return cna__error(err, CNA_ERROR_INVALID_DATA, "%s.interpolation: \"%.40s\" is not LINEAR, STEP or CUBICSPLINE",
                      path, s);
}

static cna_result parse_sampler(cna__gltf_ctx *c, const cna__json *obj, const char *path, cna_gltf_animation_sampler *s)
{
    cna_result r = cna__gltf_json_expect_object(obj, path, c->err);
    if (!r) r = cna__gltf_json_index(obj, "input", path, true, c->n_accessors, "accessors", &s->input, c->err);
    if (!r) r = cna__gltf_json_index(obj, "output", path, true, c->n_accessors, "accessors", &s->output, c->err);
    if (!r) r = parse_interpolation(obj, path, &s->interpolation, c->err);
    if (r) return r;
    cna__gltf_use(c, CNA__KIND_ACCESSOR, s->input);
    cna__gltf_use(c, CNA__KIND_ACCESSOR, s->output);
    return CNA_OK;
}

static cna_gltf_animation_path path_from_name(const char *s)
{
    for (int p = CNA_GLTF_PATH_TRANSLATION; p < CNA_GLTF_PATH_COUNT; p++)
        if (strcmp(s, cna_gltf_animation_path_name((cna_gltf_animation_path)p)) == 0) return (cna_gltf_animation_path)p;
    return CNA_GLTF_PATH_UNKNOWN;
}

/* A decimal index at *s (no sign, no leading zero unless "0"), then '/';
 * false otherwise. */
static bool pointer_index(const char **s, size_t limit, int32_t *out)
{
    const char *p = *s;
    if (*p < '0' || *p > '9' || (*p == '0' && p[1] >= '0' && p[1] <= '9')) return false;
    uint64_t v = 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        v = v * 10 + (uint64_t)(*p - '0');
        if (v > (uint64_t)INT32_MAX) return false;
    }
    if (*p != '/') return false;
    *s = p + 1;
    *out = (int32_t)v;
    return v < limit || limit == SIZE_MAX;
}

/* KHR_animation_pointer: map the pointer onto a core target. Returns an
 * error for a pointer that names an object out of range. */
static cna_result parse_pointer(cna__gltf_ctx *c, const cna__json *target, const char *tpath,
                                cna_gltf_animation_channel *ch)
{
    char epath[CNA__PATH_MAX];
    cna__gltf_path_cat(epath, sizeof epath, tpath, ".extensions.KHR_animation_pointer");
    const cna__json *ext = cna__gltf_json_get(target, "extensions");
    const cna__json *kap = ext ? cna__gltf_json_get(ext, "KHR_animation_pointer") : NULL;
    ch->path = CNA_GLTF_PATH_UNKNOWN;
    if (!kap) {
        cna__gltf_diag(c, CNA__DIAG_CHANNEL_IGNORED,
                       "%s.path: \"pointer\" without extensions.KHR_animation_pointer; the channel is ignored", tpath);
        return CNA_OK;
    }
    if (ch->target_node >= 0)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s.node: must not be given with path \"pointer\"", tpath);
    cna_result r = cna__gltf_json_expect_object(kap, epath, c->err);
    const char *ptr = NULL;
    if (!r) r = cna__gltf_json_string(c, kap, "pointer", epath, true, &ptr);
    if (r) return r;
    ch->pointer = ptr;
    ch->path = CNA_GLTF_PATH_UNKNOWN;
    const char *s = ptr;
    int32_t index = -1;
    if (strncmp(s, "/nodes/", 7) == 0) {
        s += 7;
        const char *at = s;
        if (!pointer_index(&s, SIZE_MAX, &index)) goto unsupported;
        if ((size_t)index >= c->n_nodes)
            return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s.pointer: \"%.80s\": nodes[%.*s] is out of range (%zu nodes)",
                              epath, ptr, (int)(s - at - 1), at, c->n_nodes);
        const cna_gltf_animation_path p = path_from_name(s);
        if (p == CNA_GLTF_PATH_UNKNOWN) goto unsupported;
        ch->target_node = index;
        ch->path = p;
        return CNA_OK;
    }
    if (strncmp(s, "/meshes/", 8) == 0) {
        s += 8;
        const char *at = s;
        if (!pointer_index(&s, SIZE_MAX, &index)) goto unsupported;
        if ((size_t)index >= c->n_meshes)
            return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s.pointer: \"%.80s\": meshes[%.*s] is out of range (%zu meshes)",
                              epath, ptr, (int)(s - at - 1), at, c->n_meshes);
        if (strcmp(s, "weights") != 0) goto unsupported;
        ch->target_mesh = index;
        ch->path = CNA_GLTF_PATH_WEIGHTS;
        return CNA_OK;
    }
unsupported:
    cna__gltf_diag(c, CNA__DIAG_POINTER_UNSUPPORTED, "%s.pointer: \"%.80s\" is not animated by cna; the channel is ignored",
                   epath, ptr);
    return CNA_OK;
}

static cna_result parse_channel(cna__gltf_ctx *c, const cna__json *obj, const char *path, size_t sampler_count,
                                cna_gltf_animation_channel *ch)
{
    char tpath[CNA__PATH_MAX];
    cna__gltf_path_cat(tpath, sizeof tpath, path, ".target");
    const cna__json *target = cna__gltf_json_get(obj, "target");
    const char *name = NULL;
    ch->target_node = -1;
    ch->target_mesh = -1;
    cna_result r = cna__gltf_json_expect_object(obj, path, c->err);
    if (!r) r = cna__gltf_json_index(obj, "sampler", path, true, sampler_count, "samplers", &ch->sampler, c->err);
    if (!r && !target) r = cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s: required property is missing", tpath);
    if (!r) r = cna__gltf_json_expect_object(target, tpath, c->err);
    if (!r) r = cna__gltf_json_index(target, "node", tpath, false, c->n_nodes, "nodes", &ch->target_node, c->err);
    if (!r) r = cna__gltf_json_string_ref(target, "path", tpath, true, &name, c->err);
    if (r) return r;
    if (strcmp(name, "pointer") == 0) return parse_pointer(c, target, tpath, ch);
    ch->path = path_from_name(name);
    if (ch->path == CNA_GLTF_PATH_UNKNOWN)
        cna__gltf_diag(c, CNA__DIAG_CHANNEL_IGNORED, "%s.path: \"%.40s\" is not supported; the channel is ignored",
                       tpath, name);
    else if (ch->target_node < 0)
        cna__gltf_diag(c, CNA__DIAG_CHANNEL_IGNORED, "%s: no node; the channel is ignored", tpath);
    return CNA_OK;
}

static cna_result parse_animation(cna__gltf_ctx *c, const cna__json *obj, size_t index)
{
    char path[CNA__PATH_MAX], sub[CNA__PATH_MAX];
    cna__gltf_path_index(path, sizeof path, "animations", index, "");
    cna_gltf_animation *a = &c->animations[index];
    const cna__json *channels, *samplers, *item;
    size_t nc, ns, i = 0;
    cna_result r = cna__gltf_json_expect_object(obj, path, c->err);
    if (!r) r = cna__gltf_json_string(c, obj, "name", path, false, &a->name);
    if (!r) r = cna__gltf_json_array(obj, "channels", path, true, 1, &channels, &nc, c->err);
    if (!r) r = cna__gltf_json_array(obj, "samplers", path, true, 1, &samplers, &ns, c->err);
    if (r) return r;
    cna_gltf_animation_sampler *s = (cna_gltf_animation_sampler *)cna__gltf_arena_calloc(c->arena, ns, sizeof *s);
    cna_gltf_animation_channel *ch = (cna_gltf_animation_channel *)cna__gltf_arena_calloc(c->arena, nc, sizeof *ch);
    if (!s || !ch) return cna__error(c->err, CNA_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
    a->samplers = s;
    a->sampler_count = ns;
    a->channels = ch;
    a->channel_count = nc;
    cna__json_for_each(item, samplers)
    {
        cna__gltf_path_prefixed(sub, sizeof sub, path, ".samplers", i, "");
        r = parse_sampler(c, item, sub, &s[i++]);
        if (r) return r;
    }
    i = 0;
    cna__json_for_each(item, channels)
    {
        cna__gltf_path_prefixed(sub, sizeof sub, path, ".channels", i, "");
        r = parse_channel(c, item, sub, ns, &ch[i++]);
        if (r) return r;
    }
    return CNA_OK;
}

cna_result cna__gltf_parse_animations(cna__gltf_ctx *c)
{
    const cna__json *arr = cna__gltf_json_get(c->root, "animations"), *item;
    size_t i = 0;
    cna__json_for_each(item, arr)
    {
        cna_result r = parse_animation(c, item, i++);
        if (r) return r;
    }
    return CNA_OK;
}
