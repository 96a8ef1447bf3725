/*
 * Morph weight tracks from glTF "weights" channels (spec: ExtractMorphWeightTrack):
 * the channel that targets the first node, in the file's node order, that
 * instances the mesh; the file's key times and values, cubic in/out tangents
 * kept unbaked.
 */
#include <stdio.h>
#include <string.h>

#include "model/mesh_internal.h"

void cna__owned_track_free(const cna_allocator *alloc, cna__owned_track *t)
{
    if (!t) return;
    cna__free(alloc, t->times);
    cna__free(alloc, t->values);
    cna__free(alloc, t->in_tangents);
    cna__free(alloc, t->out_tangents);
    cna__free(alloc, t);
}

static int32_t first_instancing_node(const cna_gltf_document *doc, int32_t mesh)
{
    for (size_t n = 0; n < doc->node_count; n++)
        if (doc->nodes[n].mesh == mesh) return (int32_t)n;
    return -1;
}

static cna_morph_interpolation interpolation_of(cna_gltf_interpolation i)
{
    switch (i) {
    case CNA_GLTF_INTERPOLATION_STEP: return CNA_MORPH_INTERPOLATION_STEP;
    case CNA_GLTF_INTERPOLATION_CUBICSPLINE: return CNA_MORPH_INTERPOLATION_CUBICSPLINE;
    default: return CNA_MORPH_INTERPOLATION_LINEAR;
    }
}

static cna_result fill_track(const cna_allocator *alloc, const cna_gltf_document *doc,
                             const cna_gltf_animation_sampler *s, size_t targets,
                             const char *where, cna__owned_track *t, cna_error *err)
{
    const size_t keys = cna_gltf_accessor_float_count(doc, s->input);
    const bool cubic = s->interpolation == CNA_GLTF_INTERPOLATION_CUBICSPLINE;
    size_t per_key = 0, expected = 0;
    if (!cna__mul_size(targets, cubic ? 3 : 1, &per_key) ||
        !cna__mul_size(keys, per_key, &expected))
        return cna__error(err, CNA_ERROR_INVALID_DATA, "%s: output size overflows", where);
    const size_t have = cna_gltf_accessor_float_count(doc, s->output);
    if (have != expected)
        return cna__error(err, CNA_ERROR_INVALID_DATA,
                          "%s: output accessors[%d] has %zu values; %zu keys x %s%zu targets need %zu",
                          where, (int)s->output, have, keys, cubic ? "3 x " : "", targets, expected);
    float *out = cna__calloc(alloc, expected, sizeof *out);
    t->times = cna__calloc(alloc, keys, sizeof *t->times);
    t->values = cna__calloc(alloc, keys, targets * sizeof *t->values);
    if (cubic) {
        t->in_tangents = cna__calloc(alloc, keys, targets * sizeof *t->in_tangents);
        t->out_tangents = cna__calloc(alloc, keys, targets * sizeof *t->out_tangents);
    }
    if (!out || !t->times || !t->values || (cubic && (!t->in_tangents || !t->out_tangents))) {
        cna__free(alloc, out);
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "%s: out of memory", where);
    }
    cna_result r = cna_gltf_accessor_read_floats(doc, s->input, t->times, keys, err);
    if (!r) r = cna_gltf_accessor_read_floats(doc, s->output, out, expected, err);
    if (r) {
        cna__free(alloc, out);
        cna__error_prefix(err, "%s", where);
        return r;
    }
    const size_t row = targets * sizeof(float);
    for (size_t k = 0; k < keys; k++) {
        if (cubic) {
            /* glTF: per key, in-tangents a_k, value v_k, out-tangents b_k */
            memcpy(t->in_tangents + k * targets, out + (3 * k + 0) * targets, row);
            memcpy(t->values + k * targets, out + (3 * k + 1) * targets, row);
            memcpy(t->out_tangents + k * targets, out + (3 * k + 2) * targets, row);
        } else {
            memcpy(t->values + k * targets, out + k * targets, row);
        }
    }
    cna__free(alloc, out);
    t->track.times = t->times;
    t->track.key_count = keys;
    t->track.target_count = targets;
    t->track.values = t->values;
    t->track.in_tangents = t->in_tangents;
    t->track.out_tangents = t->out_tangents;
    t->track.interpolation = interpolation_of(s->interpolation);
    if ((r = cna_morph_weight_track_validate(&t->track, err))) cna__error_prefix(err, "%s", where);
    return r;
}

/* The weight track of channel i of animations[animation] (a weights
 * channel; `what` names its target for messages, e.g. "nodes[3]"). */
static cna_result channel_track(const cna_allocator *alloc, const cna_gltf_document *doc, int32_t animation,
                                size_t i, size_t targets, const char *what, cna__owned_track **out, cna_error *err)
{
    const cna_gltf_animation *a = &doc->animations[animation];
    const cna_gltf_animation_channel *ch = &a->channels[i];
    if (ch->sampler < 0 || (size_t)ch->sampler >= a->sampler_count)
        return cna__error(err, CNA_ERROR_INVALID_DATA, "animations[%d].channels[%zu]: sampler %d is out of range",
                          (int)animation, i, (int)ch->sampler);
    char where[96];
    snprintf(where, sizeof where, "animations[%d].samplers[%d] (weights of %s)", (int)animation, (int)ch->sampler,
             what);
    cna__owned_track *t = cna__calloc(alloc, 1, sizeof *t);
    if (!t) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "%s: out of memory", where);
    cna_result r = fill_track(alloc, doc, &a->samplers[ch->sampler], targets, where, t, err);
    if (r) {
        cna__owned_track_free(alloc, t);
        return r;
    }
    *out = t;
    return CNA_OK;
}

cna_result cna__weight_track_build(const cna_allocator *alloc, const cna_gltf_document *doc,
                                   int32_t animation, int32_t mesh, cna__owned_track **out,
                                   cna_error *err)
{
    if (!doc || !out || animation < 0 || (size_t)animation >= doc->animation_count || mesh < 0 ||
        (size_t)mesh >= doc->mesh_count)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "weight track: bad index");
    *out = NULL;
    const size_t targets = doc->meshes[mesh].target_count;
    const int32_t node = first_instancing_node(doc, mesh);
    if (targets == 0 || node < 0) return CNA_OK;
    const cna_gltf_animation *a = &doc->animations[animation];
    char what[32];
    for (size_t i = 0; i < a->channel_count; i++) {
        const cna_gltf_animation_channel *ch = &a->channels[i];
        if (ch->path != CNA_GLTF_PATH_WEIGHTS || ch->target_node != node) continue;
        snprintf(what, sizeof what, "nodes[%d]", (int)node);
        return channel_track(alloc, doc, animation, i, targets, what, out, err);
    }
    /* KHR_animation_pointer "/meshes/M/weights": the mesh's own weights,
     * for every node instancing it (a node's channel above wins) */
    for (size_t i = 0; i < a->channel_count; i++) {
        const cna_gltf_animation_channel *ch = &a->channels[i];
        if (ch->path != CNA_GLTF_PATH_WEIGHTS || ch->target_node >= 0 || ch->target_mesh != mesh) continue;
        snprintf(what, sizeof what, "meshes[%d]", (int)mesh);
        return channel_track(alloc, doc, animation, i, targets, what, out, err);
    }
    return CNA_OK;
}
