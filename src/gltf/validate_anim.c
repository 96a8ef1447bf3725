/* Animation rules: sampler inputs are SCALAR FLOAT times, non-negative and
 * increasing (a missing min or max is computed from them, a diagnostic; equal
 * consecutive times are a discontinuity, a diagnostic); outputs have the type their channel's path needs and
 * input count x (3 for CUBICSPLINE) x (morph targets for weights) elements;
 * one channel per (node, path) in an animation. Non-unit rotation keys are a
 * diagnostic. */
#include <float.h>
#include <math.h>
#include <stdio.h>

#include "gltf/gltf_internal.h"

#define QUANT_ALL (CNA__B | CNA__BN | CNA__UB | CNA__UBN | CNA__S | CNA__SN | CNA__US | CNA__USN)
#define NORM_ALL (CNA__BN | CNA__UBN | CNA__SN | CNA__USN)

static const cna__gltf_accessor_rule input_rule = {CNA__TY(CNA_GLTF_TYPE_SCALAR), CNA__F, 0, "SCALAR FLOAT (times)"};
static const cna__gltf_accessor_rule output_rules[CNA_GLTF_PATH_COUNT] = {
    [CNA_GLTF_PATH_TRANSLATION] = {CNA__TY(CNA_GLTF_TYPE_VEC3), CNA__F, QUANT_ALL, "VEC3 FLOAT for translation"},
    [CNA_GLTF_PATH_ROTATION] = {CNA__TY(CNA_GLTF_TYPE_VEC4), CNA__F | NORM_ALL, 0,
                                "VEC4 FLOAT or normalized integers for rotation"},
    [CNA_GLTF_PATH_SCALE] = {CNA__TY(CNA_GLTF_TYPE_VEC3), CNA__F, QUANT_ALL, "VEC3 FLOAT for scale"},
    [CNA_GLTF_PATH_WEIGHTS] = {CNA__TY(CNA_GLTF_TYPE_SCALAR), CNA__F | NORM_ALL, 0,
                               "SCALAR FLOAT or normalized integers for weights"},
};

typedef struct anim_state {
    uint8_t *input_ok;  /* per accessor: times already checked */
    uint8_t *quat_done; /* per accessor: rotation keys already checked */
    uint8_t *output_ok; /* per accessor: output values already checked (finite) */
    uint32_t *stamp;    /* per (node, path): animation index + 1 that animates it */
    uint32_t *channel;  /* ... and by which channel */
} anim_state;

/* Key times: finite, the first non-negative, each at or after the one before.
 * Equal consecutive times (glTF says strictly increasing) are kept: the curve
 * jumps there, the later key applying from that time on (the time of the
 * earlier one is approached from before). One diagnostic per accessor, naming
 * the first pair and counting the pairs. */
static cna_result check_times(cna__gltf_ctx *c, const char *path, int32_t accessor, const cna_gltf_accessor *a)
{
    float prev = 0.0f, t;
    char x[32], y[32];
    size_t equal = 0, first_equal = 0;
    for (size_t k = 0; k < a->count; k++) {
        cna__gltf_accessor_element_floats(&c->doc->pub, a, k, &t);
        if (k > 0 && t > prev && t <= FLT_MAX) { /* the common case: finite and increasing */
            prev = t;
            continue;
        }
        if (isfinite(t) && (k == 0 ? t >= 0.0f : t >= prev)) {
            if (k > 0 && t == prev && equal++ == 0) first_equal = k;
            prev = t;
            continue;
        }
        cna__gltf_fmt_float(y, sizeof y, t); /* formatted only for the message */
        if (!isfinite(t))
            return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s: time %s at key %zu is not finite", path, y, k);
        if (k == 0)
            return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s: time %s at key 0 is negative", path, y);
        cna__gltf_fmt_float(x, sizeof x, prev);
        return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s: times must increase (%s then %s)", path, x, y);
    }
    if (equal) {
        cna__gltf_accessor_element_floats(&c->doc->pub, a, first_equal, &t);
        cna__gltf_fmt_float(y, sizeof y, t);
        cna__gltf_diag(c, CNA__DIAG_KEY_TIMES_EQUAL,
                       "%s: accessors[%d] has %zu equal consecutive key time%s (the first: keys %zu and %zu at %s s; "
                       "glTF requires increasing times); a discontinuity: the later key applies from that time on",
                       path, (int)accessor, equal, equal == 1 ? "" : "s", first_equal - 1, first_equal, y);
    }
    return CNA_OK;
}

/* glTF says animation input accessors MUST define min and max. The times are
 * checked whatever the bounds say (finite, first non-negative, increasing), so
 * a missing bound is computed from them (the first and the last key) and is
 * the diagnostic "accessor-min-max-computed", once per accessor. */
static void compute_time_bounds(cna__gltf_ctx *c, const char *path, int32_t accessor)
{
    cna_gltf_accessor *a = &c->accessors[accessor];
    float first, last;
    cna__gltf_accessor_element_floats(&c->doc->pub, a, 0, &first);
    cna__gltf_accessor_element_floats(&c->doc->pub, a, a->count - 1, &last);
    char lo[32], hi[32];
    cna__gltf_fmt_float(lo, sizeof lo, first);
    cna__gltf_fmt_float(hi, sizeof hi, last);
    cna__gltf_diag(c, CNA__DIAG_ACCESSOR_MIN_MAX_COMPUTED,
                   "%s: accessors[%d] has no %s (glTF requires min and max for animation inputs); computed from the "
                   "key times: min %s, max %s",
                   path, (int)accessor, !a->has_min && !a->has_max ? "min/max" : a->has_min ? "max" : "min", lo, hi);
    if (!a->has_min) a->min[0] = (double)first, a->has_min = true;
    if (!a->has_max) a->max[0] = (double)last, a->has_max = true;
}

static cna_result check_sampler(cna__gltf_ctx *c, size_t a, size_t s, anim_state *st)
{
    const cna_gltf_animation_sampler *smp = &c->animations[a].samplers[s];
    char path[CNA__PATH_MAX];
    char anim[32];
    cna__gltf_path_index(anim, sizeof anim, "animations", a, "");
    cna__gltf_path_prefixed(path, sizeof path, anim, ".samplers", s, ".input");
    cna_result r = cna__gltf_check_rule(c, path, smp->input, &input_rule);
    if (r) return r;
    const cna_gltf_accessor *in = &c->accessors[smp->input];
    if (smp->interpolation == CNA_GLTF_INTERPOLATION_CUBICSPLINE && in->count < 2)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s: CUBICSPLINE needs at least 2 keys, found %zu", path,
                          in->count);
    if (st->input_ok[smp->input]) return CNA_OK;
    r = check_times(c, path, smp->input, in);
    if (r) return r;
    st->input_ok[smp->input] = 1;
    if (!in->has_min || !in->has_max) compute_time_bounds(c, path, smp->input);
    return CNA_OK;
}

static void check_rotation_keys(cna__gltf_ctx *c, const char *path, const cna_gltf_animation_sampler *smp,
                                anim_state *st)
{
    if (st->quat_done[smp->output]) return;
    st->quat_done[smp->output] = 1;
    const cna_gltf_accessor *out = &c->accessors[smp->output];
    bool cubic = smp->interpolation == CNA_GLTF_INTERPOLATION_CUBICSPLINE;
    size_t keys = cubic ? out->count / 3 : out->count;
    const uint8_t *base = cna__gltf_accessor_float_base(&c->doc->pub, out);
    for (size_t k = 0; k < keys; k++) {
        float q[4];
        size_t e = cubic ? 3 * k + 1 : k; /* cubic: skip tangents */
        if (base) {
            const uint8_t *p = base + e * out->byte_stride;
            for (int i = 0; i < 4; i++) q[i] = cna__gltf_f32le(p + 4 * i);
        } else {
            cna__gltf_accessor_element_floats(&c->doc->pub, out, e, q);
        }
        if (!cna__gltf_quat_is_unit(q)) {
            cna__gltf_diag(c, CNA__DIAG_QUATERNION_NOT_UNIT, "%s: rotation key %zu (%g, %g, %g, %g) is not unit length",
                           path, k, (double)q[0], (double)q[1], (double)q[2], (double)q[3]);
            return;
        }
    }
}

/* Output values drive node transforms and morph weights: NaN and infinity are refused. */
static cna_result check_output_values(cna__gltf_ctx *c, const char *path, const cna_gltf_animation_sampler *smp,
                                      anim_state *st)
{
    if (st->output_ok[smp->output]) return CNA_OK;
    const cna_gltf_accessor *out = &c->accessors[smp->output];
    if (out->component_type == CNA_GLTF_COMPONENT_FLOAT && (out->buffer_view >= 0 || out->is_sparse) &&
        !cna__gltf_accessor_all_finite(&c->doc->pub, out)) { /* the bulk pass found something, or cannot tell */
        size_t n = cna_gltf_type_component_count(out->type);
        for (size_t e = 0; e < out->count; e++) {
            float v[16];
            cna__gltf_accessor_element_floats(&c->doc->pub, out, e, v);
            for (size_t k = 0; k < n; k++)
                if (!isfinite(v[k]))
                    return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s: value %g at element %zu is not finite",
                                      path, (double)v[k], e);
        }
    }
    st->output_ok[smp->output] = 1;
    return CNA_OK;
}

static cna_result check_output_count(cna__gltf_ctx *c, const char *path, const cna_gltf_animation_sampler *smp,
                                     size_t targets)
{
    size_t keys = c->accessors[smp->input].count, per_key = 1, expected;
    bool cubic = smp->interpolation == CNA_GLTF_INTERPOLATION_CUBICSPLINE;
    if (cubic) per_key = 3;
    if (!cna__mul_size(per_key, targets, &per_key) || !cna__mul_size(keys, per_key, &expected))
        expected = SIZE_MAX;
    size_t count = c->accessors[smp->output].count;
    if (count == expected) return CNA_OK;
    char why[96], more[48] = "";
    if (targets != 1) cna__gltf_pathf(more, sizeof more, " x %zu morph targets", targets);
    cna__gltf_pathf(why, sizeof why, "%zu keys%s%s", keys, cubic ? " x 3 for CUBICSPLINE" : "", more);
    return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s: accessors[%d] has %zu elements; expected %zu (%s)", path,
                      (int)smp->output, count, expected, why);
}

static cna_result check_channel(cna__gltf_ctx *c, size_t a, size_t k, anim_state *st)
{
    const cna_gltf_animation *anim = &c->animations[a];
    const cna_gltf_animation_channel *ch = &anim->channels[k];
    if (ch->path == CNA_GLTF_PATH_UNKNOWN || (ch->target_node < 0 && ch->target_mesh < 0))
        return CNA_OK; /* ignored (diagnostic) */
    char path[CNA__PATH_MAX], prefix[32];
    cna__gltf_path_index(prefix, sizeof prefix, "animations", a, "");
    cna__gltf_path_prefixed(path, sizeof path, prefix, ".channels", k, ".target");
    if (ch->target_node < 0) { /* KHR_animation_pointer "/meshes/M/weights" */
        const size_t targets = c->meshes[ch->target_mesh].target_count;
        if (targets == 0)
            return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s: pointer \"%s\", but meshes[%d] has no morph targets",
                              path, ch->pointer, (int)ch->target_mesh);
        const cna_gltf_animation_sampler *smp = &anim->samplers[ch->sampler];
        cna__gltf_path_prefixed(path, sizeof path, prefix, ".samplers", (size_t)ch->sampler, ".output");
        cna_result r = cna__gltf_check_rule(c, path, smp->output, &output_rules[ch->path]);
        if (!r) r = check_output_count(c, path, smp, targets);
        if (r) {
            cna__error_prefix(c->err, "animations[%zu].channels[%zu] (%s)", a, k, ch->pointer);
            return r;
        }
        return check_output_values(c, path, smp, st);
    }
    if (ch->path != CNA_GLTF_PATH_WEIGHTS && c->nodes[ch->target_node].has_matrix)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                          "%s: nodes[%d] has a matrix; a node animated by %s must use translation/rotation/scale", path,
                          (int)ch->target_node, cna_gltf_animation_path_name(ch->path));
    size_t slot = (size_t)ch->target_node * 4 + (size_t)(ch->path - 1);
    if (st->stamp[slot] == (uint32_t)a + 1)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s: nodes[%d] %s is already animated by channels[%u]", path,
                          (int)ch->target_node, cna_gltf_animation_path_name(ch->path), (unsigned)st->channel[slot]);
    st->stamp[slot] = (uint32_t)a + 1;
    st->channel[slot] = (uint32_t)k;
    size_t targets = 1;
    if (ch->path == CNA_GLTF_PATH_WEIGHTS) {
        int32_t mesh = c->nodes[ch->target_node].mesh;
        targets = mesh >= 0 ? c->meshes[mesh].target_count : 0;
        if (targets == 0)
            return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s: path weights, but nodes[%d] has no morph targets",
                              path, (int)ch->target_node);
    }
    const cna_gltf_animation_sampler *smp = &anim->samplers[ch->sampler];
    cna__gltf_path_prefixed(path, sizeof path, prefix, ".samplers", (size_t)ch->sampler, ".output");
    cna_result r = cna__gltf_check_rule(c, path, smp->output, &output_rules[ch->path]);
    if (!r) r = check_output_count(c, path, smp, targets);
    if (r) {
        cna__error_prefix(c->err, "animations[%zu].channels[%zu] (%s)", a, k, cna_gltf_animation_path_name(ch->path));
        return r;
    }
    r = check_output_values(c, path, smp, st);
    if (r) return r;
    if (ch->path == CNA_GLTF_PATH_ROTATION) check_rotation_keys(c, path, smp, st);
    return CNA_OK;
}

cna_result cna__gltf_validate_animations(cna__gltf_ctx *c)
{
    if (c->n_animations == 0) return CNA_OK;
    anim_state st;
    size_t slots;
    if (!cna__mul_size(c->n_nodes, 4, &slots)) return cna__error(c->err, CNA_ERROR_OUT_OF_MEMORY, "out of memory");
    st.input_ok = (uint8_t *)cna__gltf_arena_calloc(&c->scratch, c->n_accessors, 1);
    st.quat_done = (uint8_t *)cna__gltf_arena_calloc(&c->scratch, c->n_accessors, 1);
    st.output_ok = (uint8_t *)cna__gltf_arena_calloc(&c->scratch, c->n_accessors, 1);
    st.stamp = (uint32_t *)cna__gltf_arena_calloc(&c->scratch, slots, sizeof *st.stamp);
    st.channel = (uint32_t *)cna__gltf_arena_calloc(&c->scratch, slots, sizeof *st.channel);
    if (!st.input_ok || !st.quat_done || !st.output_ok || (slots && (!st.stamp || !st.channel)))
        return cna__error(c->err, CNA_ERROR_OUT_OF_MEMORY, "animations: out of memory");
    for (size_t a = 0; a < c->n_animations; a++) {
        for (size_t s = 0; s < c->animations[a].sampler_count; s++) {
            cna_result r = check_sampler(c, a, s, &st);
            if (r) return r;
        }
        for (size_t k = 0; k < c->animations[a].channel_count; k++) {
            cna_result r = check_channel(c, a, k, &st);
            if (r) return r;
        }
    }
    return CNA_OK;
}
