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

static cna_result parse_channel(cna__gltf_ctx *c, const cna__json *obj, const char *path, size_t sampler_count,
                                cna_gltf_animation_channel *ch)
{
    char tpath[CNA__PATH_MAX];
    cna__gltf_path_cat(tpath, sizeof tpath, path, ".target");
    const cna__json *target = cna__gltf_json_get(obj, "target");
    const char *name = NULL;
    ch->target_node = -1;
    cna_result r = cna__gltf_json_expect_object(obj, path, c->err);
    if (!r) r = cna__gltf_json_index(obj, "sampler", path, true, sampler_count, "samplers", &ch->sampler, c->err);
    if (!r && !target) r = cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s: required property is missing", tpath);
    if (!r) r = cna__gltf_json_expect_object(target, tpath, c->err);
    if (!r) r = cna__gltf_json_index(target, "node", tpath, false, c->n_nodes, "nodes", &ch->target_node, c->err);
    if (!r) r = cna__gltf_json_string_ref(target, "path", tpath, true, &name, c->err);
    if (r) return r;
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
