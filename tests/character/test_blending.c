/*
 * Layers on a character (include/cna/character.h, "layers" and "root
 * motion"): one layer of weight 1 poses bit for bit as a character without
 * layers, on the players' path and on the blending path; two layers follow
 * the override rule, computed independently here in double precision, on
 * real multi-clip models (joints, scene-node clips, morph weights); a bone
 * with mask weight 0 is exactly unaffected by its layer; an additive layer
 * equal to its reference changes nothing, otherwise follows t + w·dt,
 * q·slerp(I, dq, w); a crossfade is two layers whose weights move; root
 * motion over 10^7 frames equals whole loops plus the partial loop; nothing
 * is allocated while advancing or posing; errors are exact.
 */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "character/character_internal.h"
#include "cna/cna.h"
#include "same_pose.h"

#define ROBOT "corpus/valid/RobotExpressive/robot.glb"
#define INTERP "corpus/valid/InterpolationTest/interpolation_test.gltf"
#define MORPHS "corpus/valid/MorphStressTest/MorphStressTest.gltf"
#define WALKER "fixtures/skin-root-motion.gltf"

static const char *const MODELS[] = {
    "corpus/valid/AnimatedMorphCube/AnimatedMorphCube.gltf",
    "corpus/valid/BoxAnimated/box_animated.gltf",
    INTERP,
    MORPHS,
    "corpus/valid/RiggedSimple/rigged_simple.gltf",
    ROBOT,
    "corpus/valid/SimpleMorph/SimpleMorph.gltf",
    "corpus/valid/SimpleSkin/simple_skin.gltf",
    "fixtures/skin-armature-ancestor.gltf",
    "fixtures/skin-folded-node.gltf",
    "fixtures/skin-animated-ancestor.gltf",
    "fixtures/skin-nested.gltf",
    "fixtures/skin-two-instances.gltf",
    WALKER,
};
#define MODEL_COUNT (sizeof MODELS / sizeof MODELS[0])

static cna_model *load(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", CNA_TEST_DATA_DIR, rel);
    cna_model *m = NULL;
    cna_error err;
    cna_result r = cna_model_load_file(path, NULL, &m, &err);
    if (r != CNA_OK) print_error("%s: %s\n", rel, err.message);
    assert_int_equal(r, CNA_OK);
    return m;
}

static cna_character *make(const cna_model *m, size_t layers)
{
    cna_character_options o;
    memset(&o, 0, sizeof o);
    o.layer_count = layers;
    cna_character *c = NULL;
    cna_error err;
    cna_result r = cna_character_create(m, &o, &c, &err);
    if (r != CNA_OK) print_error("%s\n", err.message);
    assert_int_equal(r, CNA_OK);
    return c;
}

static void ok(cna_result r, const cna_error *err)
{
    if (r != CNA_OK) print_error("%s\n", err->message);
    assert_int_equal(r, CNA_OK);
}

static size_t find_anim(const cna_model *m, const char *name)
{
    size_t a = 0;
    cna_error err;
    ok(cna_model_find_animation(m, name, &a, &err), &err);
    return a;
}

static const double TIMES[] = {0.0, 0.1, 1.0 / 3.0, 0.5, 0.77, 1.25, 2.0};
#define TIME_COUNT (sizeof TIMES / sizeof TIMES[0])

/* ------------------------------------------------------------------ one layer = no layers */

/* A character with layer 0 alone (the players' path), one whose layer 0 has
 * a mask of ones (the blending path), and one with four layers whose other
 * layers play at weight 0: the same bytes, every model, animation and time. */
static void test_one_layer_is_the_character(void **state)
{
    (void)state;
    cna_error err;
    for (size_t i = 0; i < MODEL_COUNT; i++) {
        cna_model *m = load(MODELS[i]);
        cna_character *plain = make(m, 1), *masked = make(m, 1), *four = make(m, 4);
        float *ones = (float *)malloc((m->bone_count ? m->bone_count : 1) * sizeof(float));
        for (size_t b = 0; b < m->bone_count; b++) ones[b] = 1.0f;
        ok(cna_character_layer_set_mask(masked, 0, ones, m->bone_count, &err), &err);
        for (size_t a = 0; a < m->animation_count; a++) {
            ok(cna_character_play(plain, (long)a, &err), &err);
            ok(cna_character_play(masked, (long)a, &err), &err);
            ok(cna_character_play(four, (long)a, &err), &err);
            for (size_t l = 1; l < 4; l++) {
                ok(cna_character_layer_play(four, l, (long)((a + l) % m->animation_count), &err), &err);
                ok(cna_character_layer_set_weight(four, l, 0.0f, &err), &err);
            }
            for (size_t t = 0; t < TIME_COUNT; t++) {
                ok(cna_character_seek(plain, TIMES[t], &err), &err);
                ok(cna_character_seek(masked, TIMES[t], &err), &err);
                ok(cna_character_seek(four, TIMES[t], &err), &err);
                ok(cna_character_pose(plain, &err), &err);
                ok(cna_character_pose(masked, &err), &err);
                ok(cna_character_pose(four, &err), &err);
                assert_same_pose(plain, masked);
                assert_same_pose(plain, four);
            }
        }
        free(ones);
        cna_character_free(plain);
        cna_character_free(masked);
        cna_character_free(four);
        cna_model_free(m);
    }
}

/* ------------------------------------------------------------------ the rule, independently */

typedef struct trs_d {
    double t[3], q[4], s[3];
} trs_d;

static void slerp_ref(const double a[4], const double b0[4], double f, double out[4])
{
    double b[4] = {b0[0], b0[1], b0[2], b0[3]};
    double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    if (d < 0) {
        d = -d;
        for (int i = 0; i < 4; i++) b[i] = -b[i];
    }
    double wa = 1 - f, wb = f;
    if (d < 1 - 1e-9) {
        const double th = acos(d);
        wa = sin((1 - f) * th) / sin(th);
        wb = sin(f * th) / sin(th);
    }
    for (int i = 0; i < 4; i++) out[i] = a[i] * wa + b[i] * wb;
}

/* A track at `ticks`, from its keys: hold outside, linear + slerp inside. */
static bool sample_ref(const cna_clip *clip, int32_t bone, int64_t ticks, trs_d *out)
{
    const cna_bone_track *tr = NULL;
    for (size_t i = 0; clip->tracks && i < clip->track_count; i++)
        if (clip->tracks[i].bone == bone && clip->tracks[i].key_count > 0) tr = &clip->tracks[i];
    if (!tr) return false;
    const cna_keyframe *k = tr->keys;
    const size_t n = tr->key_count;
    size_t i0 = 0, i1 = 0;
    double f = 0;
    if (ticks <= k[0].ticks) {
        i0 = i1 = 0;
    } else if (ticks >= k[n - 1].ticks) {
        i0 = i1 = n - 1;
    } else {
        while (!(k[i0].ticks <= ticks && ticks < k[i0 + 1].ticks)) i0++;
        i1 = i0 + 1;
        f = (double)(ticks - k[i0].ticks) / (double)(k[i1].ticks - k[i0].ticks);
    }
    const double ta[3] = {k[i0].translation.x, k[i0].translation.y, k[i0].translation.z};
    const double tb[3] = {k[i1].translation.x, k[i1].translation.y, k[i1].translation.z};
    const double sa[3] = {k[i0].scale.x, k[i0].scale.y, k[i0].scale.z};
    const double sb[3] = {k[i1].scale.x, k[i1].scale.y, k[i1].scale.z};
    const double qa[4] = {k[i0].rotation.x, k[i0].rotation.y, k[i0].rotation.z, k[i0].rotation.w};
    const double qb[4] = {k[i1].rotation.x, k[i1].rotation.y, k[i1].rotation.z, k[i1].rotation.w};
    for (int c = 0; c < 3; c++) {
        out->t[c] = ta[c] + (tb[c] - ta[c]) * f;
        out->s[c] = sa[c] + (sb[c] - sa[c]) * f;
    }
    slerp_ref(qa, qb, f, out->q);
    return true;
}

static void rest_ref(const cna_model *m, int32_t bone, trs_d *out)
{
    const cna_model_bone *b = &m->bones[bone];
    const double t[3] = {b->rest_translation.x, b->rest_translation.y, b->rest_translation.z};
    const double s[3] = {b->rest_scale.x, b->rest_scale.y, b->rest_scale.z};
    const double q[4] = {b->rest_rotation.x, b->rest_rotation.y, b->rest_rotation.z, b->rest_rotation.w};
    memcpy(out->t, t, sizeof t);
    memcpy(out->s, s, sizeof s);
    memcpy(out->q, q, sizeof q);
}

/* The override rule over (value, weight) contributions, then the rest. */
static void rule_ref(const trs_d *v, const double *w, size_t n, const trs_d *rest, trs_d *out)
{
    double cum = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(w[i] > 0)) continue;
        if (cum == 0) {
            *out = v[i];
            cum = w[i];
            continue;
        }
        cum += w[i];
        const double f = w[i] / cum;
        for (int c = 0; c < 3; c++) {
            out->t[c] = out->t[c] * (1 - f) + v[i].t[c] * f;
            out->s[c] = out->s[c] * (1 - f) + v[i].s[c] * f;
        }
        slerp_ref(out->q, v[i].q, f, out->q);
    }
    if (cum == 0) {
        *out = *rest;
        return;
    }
    if (cum < 1) {
        const double f = 1 - cum;
        for (int c = 0; c < 3; c++) {
            out->t[c] = out->t[c] * (1 - f) + rest->t[c] * f;
            out->s[c] = out->s[c] * (1 - f) + rest->s[c] * f;
        }
        slerp_ref(out->q, rest->q, f, out->q);
    }
}

/* column-major 4x4 in double */
static void compose_ref(const trs_d *v, double m[16])
{
    double x = v->q[0], y = v->q[1], z = v->q[2], w = v->q[3];
    const double n = sqrt(x * x + y * y + z * z + w * w);
    x /= n, y /= n, z /= n, w /= n;
    const double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y),
                         2 * (x * y - w * z),     1 - 2 * (x * x + z * z), 2 * (y * z + w * x),
                         2 * (x * z + w * y),     2 * (y * z - w * x), 1 - 2 * (x * x + y * y)};
    for (int c = 0; c < 3; c++) {
        for (int k = 0; k < 3; k++) m[c * 4 + k] = r[c * 3 + k] * v->s[c];
        m[c * 4 + 3] = 0;
    }
    m[12] = v->t[0], m[13] = v->t[1], m[14] = v->t[2], m[15] = 1;
}

static void mul_ref(const double a[16], const double b[16], double o[16])
{
    double r[16];
    for (int c = 0; c < 4; c++)
        for (int k = 0; k < 4; k++) {
            double s = 0;
            for (int i = 0; i < 4; i++) s += a[i * 4 + k] * b[c * 4 + i];
            r[c * 4 + k] = s;
        }
    memcpy(o, r, sizeof r);
}

static void from_f(const cna_mat4 *m, double o[16])
{
    for (int i = 0; i < 16; i++) o[i] = m->m[i];
}

/* Layers as the test sets them: animation, position (ticks), weight, mask. */
typedef struct layer_ref {
    long animation;
    int64_t ticks;
    double weight;
    const float *mask;
} layer_ref;

/* Skin `s`'s palette by the rule, in double, against the character's. */
static double palette_error(const cna_model *m, size_t s, const layer_ref *layers, size_t n,
                            const cna_character *c)
{
    const cna_model_skin *skin = &m->skins[s];
    const cna_skinning_data *d = &skin->data;
    double *world = (double *)calloc(skin->joint_count * 16, sizeof(double));
    double worst = 0;
    const cna_mat4 *got = cna_character_skin_transforms(c, s);
    for (size_t p = 0; p < skin->joint_count; p++) {
        const int32_t bone = skin->palette_to_node[p];
        trs_d v[8], rest, res;
        double w[8];
        size_t k = 0;
        bool any = false;
        for (size_t l = 0; l < n; l++) {
            if (layers[l].animation < 0) continue;
            if (sample_ref(&d->clips[layers[l].animation], (int32_t)p, layers[l].ticks, &v[k])) {
                w[k] = layers[l].weight * (layers[l].mask && bone >= 0 ? layers[l].mask[bone] : 1.0f);
                if (w[k] > 0) any = true;
                k++;
            }
        }
        double local[16];
        if (!any || bone < 0) {
            from_f(&d->bind_pose[p], local);
        } else {
            rest_ref(m, bone, &rest);
            rule_ref(v, w, k, &rest, &res);
            compose_ref(&res, local);
        }
        const int32_t parent = d->hierarchy[p];
        if (parent >= 0) {
            mul_ref(&world[parent * 16], local, &world[p * 16]);
        } else if (d->root_prefix && d->root_prefix_count == skin->joint_count) {
            double pre[16];
            from_f(&d->root_prefix[p], pre);
            mul_ref(pre, local, &world[p * 16]);
        } else {
            memcpy(&world[p * 16], local, sizeof local);
        }
        double ibm[16], pal[16];
        from_f(&d->inverse_bind_pose[p], ibm);
        mul_ref(&world[p * 16], ibm, pal);
        for (int i = 0; i < 16; i++) {
            const double e = fabs(pal[i] - got[p].m[i]);
            if (e > worst) worst = e;
        }
    }
    free(world);
    return worst;
}

/* Two layers at weights 1 - W and W on RobotExpressive, at keys (multiples
 * of 1/24 s) and between them: the palette within 1e-5 of the model size. */
static void test_two_layers_follow_the_rule(void **state)
{
    (void)state;
    cna_error err;
    cna_model *m = load(ROBOT);
    cna_character *c = make(m, 2);
    const char *pairs[][2] = {{"Robot_Walking", "Robot_Running"},
                              {"Robot_Idle", "Robot_Wave"},
                              {"Robot_Dance", "Robot_Death"},
                              {"Robot_Jump", "Robot_Yes"}};
    const float weights[] = {0.0f, 0.25f, 0.5f, 0.8f, 1.0f};
    const double times[][2] = {{0.0, 0.0}, {1.0 / 24, 5.0 / 24}, {0.3, 0.55}, {0.61, 0.13}, {0.9, 0.9}};
    const double tol = 1e-5 * m->size;
    double worst = 0;
    for (size_t p = 0; p < 4; p++) {
        const size_t a = find_anim(m, pairs[p][0]), b = find_anim(m, pairs[p][1]);
        ok(cna_character_layer_play(c, 0, (long)a, &err), &err);
        ok(cna_character_layer_play(c, 1, (long)b, &err), &err);
        for (size_t wi = 0; wi < 5; wi++) {
            const float W = weights[wi];
            ok(cna_character_layer_set_weight(c, 0, 1.0f - W, &err), &err);
            ok(cna_character_layer_set_weight(c, 1, W, &err), &err);
            for (size_t t = 0; t < 5; t++) {
                ok(cna_character_layer_seek(c, 0, times[t][0], &err), &err);
                ok(cna_character_layer_seek(c, 1, times[t][1], &err), &err);
                ok(cna_character_pose(c, &err), &err);
                const layer_ref L[2] = {{(long)a, cna_character_layer_position(c, 0), 1.0 - W, NULL},
                                        {(long)b, cna_character_layer_position(c, 1), W, NULL}};
                for (size_t s = 0; s < m->skin_count; s++) {
                    const double e = palette_error(m, s, L, 2, c);
                    if (e > worst) worst = e;
                }
            }
        }
    }
    print_message("two layers: largest palette deviation %.3g (tolerance %.3g)\n", worst, tol);
    assert_true(worst <= tol);
    /* one layer at weight w: the slerp toward the rest by 1 - w */
    ok(cna_character_layer_set_weight(c, 1, 0.0f, &err), &err);
    ok(cna_character_layer_set_weight(c, 0, 0.4f, &err), &err);
    ok(cna_character_layer_seek(c, 0, 0.3, &err), &err);
    ok(cna_character_pose(c, &err), &err);
    const layer_ref one = {cna_character_layer_animation(c, 0), cna_character_layer_position(c, 0), 0.4, NULL};
    assert_true(palette_error(m, 0, &one, 1, c) <= tol);
    cna_character_free(c);
    cna_model_free(m);
}

/* Scene-node clips (InterpolationTest: rigid nodes, several animations)
 * blend by the same rule: each bone's local transform. */
static void test_scene_node_clips_blend(void **state)
{
    (void)state;
    cna_error err;
    cna_model *m = load(INTERP);
    assert_true(m->animation_count >= 2);
    cna_character *c = make(m, 2);
    double worst = 0;
    for (size_t a = 0; a + 1 < m->animation_count; a++) {
        ok(cna_character_layer_play(c, 0, (long)a, &err), &err);
        ok(cna_character_layer_play(c, 1, (long)(a + 1), &err), &err);
        for (int wi = 0; wi <= 4; wi++) {
            const float W = (float)wi / 4.0f;
            ok(cna_character_layer_set_weight(c, 0, 1.0f - W, &err), &err);
            ok(cna_character_layer_set_weight(c, 1, W, &err), &err);
            for (size_t t = 0; t < TIME_COUNT; t++) {
                ok(cna_character_layer_seek(c, 0, TIMES[t], &err), &err);
                ok(cna_character_layer_seek(c, 1, TIMES[TIME_COUNT - 1 - t], &err), &err);
                ok(cna_character_pose(c, &err), &err);
                for (size_t bone = 0; bone < m->bone_count; bone++) {
                    trs_d v[2], rest, res;
                    double w[2];
                    size_t k = 0;
                    if (sample_ref(&m->node_clips[a], (int32_t)bone, cna_character_layer_position(c, 0), &v[k]))
                        w[k++] = 1.0 - W;
                    if (sample_ref(&m->node_clips[a + 1], (int32_t)bone, cna_character_layer_position(c, 1), &v[k]))
                        w[k++] = W;
                    rest_ref(m, (int32_t)bone, &rest);
                    double want[16];
                    bool any = false;
                    for (size_t i = 0; i < k; i++) any = any || w[i] > 0;
                    if (!any) {
                        from_f(&m->bones[bone].rest_transform, want);
                    } else {
                        rule_ref(v, w, k, &rest, &res);
                        compose_ref(&res, want);
                    }
                    const cna_mat4 *got = cna_character_bone_transform(c, bone);
                    for (int i = 0; i < 16; i++)
                        if (fabs(want[i] - got->m[i]) > worst) worst = fabs(want[i] - got->m[i]);
                }
            }
        }
    }
    print_message("scene-node clips: largest deviation %.3g\n", worst);
    assert_true(worst <= 1e-5 * m->size);
    cna_character_free(c);
    cna_model_free(m);
}

/* Morph weights: the weighted sum, then the initial weights for the remainder. */
static void test_morph_weights_blend(void **state)
{
    (void)state;
    cna_error err;
    cna_model *m = load(MORPHS);
    cna_character *c = make(m, 2), *a = make(m, 1), *b = make(m, 1);
    assert_true(m->animation_count >= 2);
    size_t checked = 0;
    for (int wi = 0; wi <= 4; wi++) {
        const float W = (float)wi / 4.0f;
        ok(cna_character_layer_play(c, 0, 0, &err), &err);
        ok(cna_character_layer_play(c, 1, 1, &err), &err);
        ok(cna_character_play(a, 0, &err), &err);
        ok(cna_character_play(b, 1, &err), &err);
        ok(cna_character_layer_set_weight(c, 0, 1.0f - W, &err), &err);
        ok(cna_character_layer_set_weight(c, 1, W, &err), &err);
        for (size_t t = 0; t < TIME_COUNT; t++) {
            ok(cna_character_layer_seek(c, 0, TIMES[t], &err), &err);
            ok(cna_character_layer_seek(c, 1, TIMES[t] * 0.5, &err), &err);
            ok(cna_character_seek(a, TIMES[t], &err), &err);
            ok(cna_character_seek(b, TIMES[t] * 0.5, &err), &err);
            ok(cna_character_pose(c, &err), &err);
            ok(cna_character_pose(a, &err), &err);
            ok(cna_character_pose(b, &err), &err);
            for (size_t i = 0; i < m->mesh_count; i++)
                for (size_t k = 0; k < m->meshes[i].part_count; k++) {
                    size_t n = 0;
                    const float *got = cna_character_morph_weights(c, i, k, &n);
                    const float *wa = cna_character_morph_weights(a, i, k, NULL);
                    const float *wb = cna_character_morph_weights(b, i, k, NULL);
                    const cna_model_part *part = &m->meshes[i].parts[k];
                    const bool ta = part->weight_track_count > 0 && part->weight_tracks[0];
                    const bool tb = part->weight_track_count > 1 && part->weight_tracks[1];
                    for (size_t j = 0; j < n; j++) {
                        const double init = part->morph->initial_weights && j < part->morph->initial_weight_count
                                                ? part->morph->initial_weights[j]
                                                : 0.0;
                        const double va = ta ? wa[j] : 0, vb = tb ? wb[j] : 0;
                        const double cum = (ta && W < 1 ? 1.0 - W : 0) + (tb && W > 0 ? W : 0);
                        double want = (ta && W < 1 ? (1.0 - W) * va : 0) + (tb && W > 0 ? W * vb : 0);
                        if (cum < 1) want += (1 - cum) * init;
                        assert_true(fabs(want - got[j]) <= 1e-6);
                        checked++;
                    }
                }
        }
    }
    assert_true(checked > 0);
    cna_character_free(c);
    cna_character_free(a);
    cna_character_free(b);
    cna_model_free(m);
}

/* ------------------------------------------------------------------ masks */

/* An upper-body wave over a walk: every bone outside the mask's subtree
 * (mask weight 0) has exactly the walk's local transform; inside, the
 * palette follows the rule with the mask weights. */
static void test_mask_zero_is_unaffected(void **state)
{
    (void)state;
    cna_error err;
    cna_model *m = load(ROBOT);
    cna_character *c = make(m, 2), *walk = make(m, 1);
    float *mask = (float *)calloc(m->bone_count, sizeof(float));
    ok(cna_model_mask_subtree(m, "Torso", 1.0f, mask, m->bone_count, &err), &err);
    ok(cna_model_mask_subtree(m, "Shoulder.L", 0.5f, mask, m->bone_count, &err), &err);
    const int32_t torso = cna_model_find_bone(m, "Torso"), hips = cna_model_find_bone(m, "Hips");
    assert_true(torso >= 0 && hips >= 0);
    assert_true(mask[torso] == 1.0f && mask[hips] == 0.0f);
    const size_t w = find_anim(m, "Robot_Walking"), v = find_anim(m, "Robot_Wave");
    ok(cna_character_play(walk, (long)w, &err), &err);
    ok(cna_character_layer_play(c, 0, (long)w, &err), &err);
    ok(cna_character_layer_play(c, 1, (long)v, &err), &err);
    ok(cna_character_layer_set_weight(c, 1, 0.75f, &err), &err);
    ok(cna_character_layer_set_mask(c, 1, mask, m->bone_count, &err), &err);
    size_t outside = 0;
    for (int f = 0; f < 40; f++) {
        ok(cna_character_update(walk, 1.0 / 30, &err), &err);
        ok(cna_character_update(c, 1.0 / 30, &err), &err);
        for (size_t b = 0; b < m->bone_count; b++) {
            if (mask[b] != 0.0f) continue;
            assert_memory_equal(cna_character_bone_transform(c, b), cna_character_bone_transform(walk, b),
                                sizeof(cna_mat4));
            outside++;
        }
        const layer_ref L[2] = {{(long)w, cna_character_layer_position(c, 0), 1.0, NULL},
                                {(long)v, cna_character_layer_position(c, 1), 0.75, mask}};
        assert_true(palette_error(m, 0, L, 2, c) <= 1e-5 * m->size);
    }
    assert_true(outside > 0);
    /* removing the mask: the wave over the whole body */
    ok(cna_character_layer_set_mask(c, 1, NULL, 0, &err), &err);
    assert_null(cna_character_layer_mask(c, 1));
    free(mask);
    cna_character_free(c);
    cna_character_free(walk);
    cna_model_free(m);
}

/* ------------------------------------------------------------------ additive */

/* An additive layer playing what its reference is: nothing changes, byte
 * for byte (the walk with the walk at the same time as reference, and the
 * default reference - its own first frame - at time 0). */
static void test_additive_equal_to_reference_changes_nothing(void **state)
{
    (void)state;
    cna_error err;
    cna_model *m = load(ROBOT);
    cna_character *c = make(m, 2), *plain = make(m, 2);
    const size_t idle = find_anim(m, "Robot_Idle"), walk = find_anim(m, "Robot_Walking");
    ok(cna_character_play(plain, (long)idle, &err), &err);
    ok(cna_character_play(c, (long)idle, &err), &err);
    ok(cna_character_layer_play(c, 1, (long)walk, &err), &err);
    ok(cna_character_layer_set_blend_mode(c, 1, CNA_BLEND_MODE_ADDITIVE, &err), &err);
    ok(cna_character_layer_set_weight(c, 1, 0.7f, &err), &err);
    ok(cna_character_pose(plain, &err), &err);
    ok(cna_character_pose(c, &err), &err);
    assert_same_pose(plain, c); /* its own first frame at time 0 */
    for (size_t t = 0; t < TIME_COUNT; t++) {
        ok(cna_character_layer_set_additive_reference(c, 1, (long)walk, TIMES[t], &err), &err);
        ok(cna_character_layer_seek(c, 1, TIMES[t], &err), &err);
        ok(cna_character_seek(c, TIMES[t], &err), &err);
        ok(cna_character_seek(plain, TIMES[t], &err), &err);
        ok(cna_character_pose(plain, &err), &err);
        ok(cna_character_pose(c, &err), &err);
        if (cna_character_layer_position(c, 1) == cna_ticks_from_seconds(TIMES[t])) assert_same_pose(plain, c);
    }
    cna_character_free(c);
    cna_character_free(plain);
    cna_model_free(m);
}

static void qmul_ref(const double a[4], const double b[4], double o[4])
{
    const double r[4] = {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
                         a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
                         a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
                         a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
    memcpy(o, r, sizeof r);
}

/* An additive nod over an idle: t + w·dt, s + w·ds, q·slerp(I, dq, w),
 * with the reference the nod's first frame; independently in double. */
static void test_additive_follows_the_rule(void **state)
{
    (void)state;
    cna_error err;
    cna_model *m = load(ROBOT);
    cna_character *c = make(m, 2);
    const size_t idle = find_anim(m, "Robot_Idle"), yes = find_anim(m, "Robot_Yes");
    ok(cna_character_play(c, (long)idle, &err), &err);
    ok(cna_character_layer_play(c, 1, (long)yes, &err), &err);
    ok(cna_character_layer_set_blend_mode(c, 1, CNA_BLEND_MODE_ADDITIVE, &err), &err);
    assert_int_equal(cna_character_layer_blend_mode(c, 1), CNA_BLEND_MODE_ADDITIVE);
    const cna_model_skin *skin = &m->skins[0];
    const cna_skinning_data *d = &skin->data;
    double worst = 0;
    const float weights[] = {0.3f, 1.0f};
    for (size_t wi = 0; wi < 2; wi++) {
        const double w = weights[wi];
        ok(cna_character_layer_set_weight(c, 1, weights[wi], &err), &err);
        for (size_t t = 0; t < TIME_COUNT; t++) {
            ok(cna_character_seek(c, TIMES[t] * 0.7, &err), &err);
            ok(cna_character_layer_seek(c, 1, TIMES[t], &err), &err);
            ok(cna_character_pose(c, &err), &err);
            for (size_t p = 0; p < skin->joint_count; p++) {
                const int32_t bone = skin->palette_to_node[p];
                trs_d base, add, ref;
                bool animated = sample_ref(&d->clips[idle], (int32_t)p, cna_character_layer_position(c, 0), &base);
                if (!animated) rest_ref(m, bone, &base);
                if (sample_ref(&d->clips[yes], (int32_t)p, cna_character_layer_position(c, 1), &add)) {
                    sample_ref(&d->clips[yes], (int32_t)p, 0, &ref);
                    double dq[4], conj_ref[4] = {-ref.q[0], -ref.q[1], -ref.q[2], ref.q[3]}, part[4], id[4] = {0, 0, 0, 1};
                    qmul_ref(conj_ref, add.q, dq);
                    const double n = sqrt(dq[0] * dq[0] + dq[1] * dq[1] + dq[2] * dq[2] + dq[3] * dq[3]);
                    for (int i = 0; i < 4; i++) dq[i] /= n;
                    for (int i = 0; i < 3; i++) {
                        base.t[i] += w * (add.t[i] - ref.t[i]);
                        base.s[i] += w * (add.s[i] - ref.s[i]);
                    }
                    slerp_ref(id, dq, w, part);
                    qmul_ref(base.q, part, base.q);
                    animated = true;
                }
                if (!animated) continue;
                double want[16];
                compose_ref(&base, want);
                const cna_mat4 *got = cna_character_bone_transform(c, (size_t)bone);
                for (int i = 0; i < 16; i++)
                    if (fabs(want[i] - got->m[i]) > worst) worst = fabs(want[i] - got->m[i]);
            }
        }
    }
    print_message("additive: largest local deviation %.3g\n", worst);
    assert_true(worst <= 1e-5 * m->size);
    cna_character_free(c);
    cna_model_free(m);
}

/* ------------------------------------------------------------------ fades */

/* A crossfade walk -> run over 0.5 s equals, at every frame, two layers
 * whose weights are set by hand to the linear ramp; it ends at exactly 1 and 0. */
static void test_crossfade_is_two_layers(void **state)
{
    (void)state;
    cna_error err;
    cna_model *m = load(ROBOT);
    cna_character *c = make(m, 2), *hand = make(m, 2);
    const size_t walk = find_anim(m, "Robot_Walking"), run = find_anim(m, "Robot_Running");
    ok(cna_character_play(c, (long)walk, &err), &err);
    ok(cna_character_play(hand, (long)walk, &err), &err);
    for (int f = 0; f < 10; f++) {
        ok(cna_character_update(c, 1.0 / 60, &err), &err);
        ok(cna_character_update(hand, 1.0 / 60, &err), &err);
    }
    ok(cna_character_crossfade(c, 0, 1, (long)run, 0.5, 0, &err), &err);
    ok(cna_character_layer_play(hand, 1, (long)run, &err), &err);
    const int64_t total = cna_ticks_from_seconds(0.5), step = cna_ticks_from_seconds(1.0 / 60);
    int64_t elapsed = 0;
    for (int f = 0; f < 40; f++) {
        elapsed += step;
        if (elapsed > total) elapsed = total;
        const float x = elapsed >= total ? 1.0f : (float)((double)elapsed / (double)total);
        const float w_in = elapsed >= total ? 1.0f : 0.0f + (1.0f - 0.0f) * x;
        const float w_out = elapsed >= total ? 0.0f : 1.0f + (0.0f - 1.0f) * x;
        ok(cna_character_update(c, 1.0 / 60, &err), &err);
        ok(cna_character_advance(hand, 1.0 / 60, &err), &err);
        ok(cna_character_layer_set_weight(hand, 0, w_out, &err), &err);
        ok(cna_character_layer_set_weight(hand, 1, w_in, &err), &err);
        ok(cna_character_pose(hand, &err), &err);
        assert_true(cna_character_layer_weight(c, 0) == w_out);
        assert_true(cna_character_layer_weight(c, 1) == w_in);
        assert_same_pose(c, hand);
    }
    assert_true(cna_character_layer_weight(c, 0) == 0.0f && cna_character_layer_weight(c, 1) == 1.0f);
    /* phase sync: the incoming clip starts at the outgoing one's phase */
    ok(cna_character_layer_seek_ticks(c, 1, cna_character_layer_duration(c, 1) / 4, &err), &err);
    ok(cna_character_crossfade(c, 1, 0, (long)walk, 0.25, CNA_CROSSFADE_SYNC_PHASE, &err), &err);
    const double phase = (double)(cna_character_layer_duration(c, 1) / 4) / (double)cna_character_layer_duration(c, 1);
    assert_int_equal(cna_character_layer_position(c, 0),
                     (int64_t)floor(phase * (double)cna_character_layer_duration(c, 0)));
    assert_true(cna_character_layer_weight(c, 0) == 0.0f);
    /* a fade of 0 s sets the weight at once */
    ok(cna_character_layer_fade(c, 1, 0.25f, 0.0, &err), &err);
    assert_true(cna_character_layer_weight(c, 1) == 0.25f);
    cna_character_free(c);
    cna_character_free(hand);
    cna_model_free(m);
}

/* A crossfade that is not interrupted poses the same bytes whether its
 * outgoing layer stops at the end (the default) or keeps running at weight
 * 0 (as every layer did before layers stopped): every frame of the
 * crossfade, after it, and through a crossfade back. */
static void test_a_stopped_layer_poses_as_one_kept_running(void **state)
{
    (void)state;
    cna_error err;
    cna_model *m = load(ROBOT);
    cna_character *stops = make(m, 2), *runs = make(m, 2);
    const size_t walk = find_anim(m, "Robot_Walking"), run = find_anim(m, "Robot_Running");
    ok(cna_character_layer_set_keep_running(runs, 0, true, &err), &err);
    ok(cna_character_layer_set_keep_running(runs, 1, true, &err), &err);
    ok(cna_character_play(stops, (long)walk, &err), &err);
    ok(cna_character_play(runs, (long)walk, &err), &err);
    for (int f = 0; f < 130; f++) {
        if (f == 10) {
            ok(cna_character_crossfade(stops, 0, 1, (long)run, 0.5, 0, &err), &err);
            ok(cna_character_crossfade(runs, 0, 1, (long)run, 0.5, 0, &err), &err);
        }
        if (f == 70) {
            ok(cna_character_crossfade(stops, 1, 0, (long)walk, 0.4, CNA_CROSSFADE_SYNC_PHASE, &err), &err);
            ok(cna_character_crossfade(runs, 1, 0, (long)walk, 0.4, CNA_CROSSFADE_SYNC_PHASE, &err), &err);
        }
        ok(cna_character_update(stops, 1.0 / 60, &err), &err);
        ok(cna_character_update(runs, 1.0 / 60, &err), &err);
        assert_same_pose(stops, runs);
        if (f == 60) { /* the first crossfade ended at frame 40 */
            assert_int_equal(cna_character_layer_animation(stops, 0), -1);
            assert_int_equal(cna_character_layer_animation(runs, 0), (long)walk);
            assert_true(cna_character_layer_weight(stops, 0) == 0.0f);
        }
    }
    assert_int_equal(cna_character_layer_animation(stops, 1), -1);
    assert_int_equal(cna_character_layer_animation(runs, 1), (long)run);
    assert_int_equal(cna_character_layer_animation(stops, 0), (long)walk);
    cna_character_free(stops);
    cna_character_free(runs);
    cna_model_free(m);
}

/* ------------------------------------------------------------------ root motion */

typedef struct rm {
    double t[3], q[4];
} rm;

static rm rm_compose(const rm *a, const rm *b)
{
    rm o;
    qmul_ref(a->q, b->q, o.q);
    /* a.q · b.t · conj(a.q) + a.t */
    double v[4] = {b->t[0], b->t[1], b->t[2], 0}, cq[4] = {-a->q[0], -a->q[1], -a->q[2], a->q[3]}, tmp[4];
    qmul_ref(a->q, v, tmp);
    qmul_ref(tmp, cq, v);
    for (int i = 0; i < 3; i++) o.t[i] = v[i] + a->t[i];
    return o;
}

/* The walker's root at clip position `ticks`, horizontal: (x, 0, z), yaw. */
static rm walker_motion(const cna_model *m, int64_t ticks)
{
    trs_d v;
    assert_true(sample_ref(&m->skins[0].data.clips[0], 0, ticks, &v));
    rm o = {{v.t[0], 0, v.t[2]}, {0, v.q[1], 0, v.q[3]}};
    const double n = sqrt(o.q[1] * o.q[1] + o.q[3] * o.q[3]);
    o.q[1] /= n, o.q[3] /= n;
    return o;
}

static rm rm_between(const cna_model *m, int64_t a, int64_t b)
{
    rm ma = walker_motion(m, a), mb = walker_motion(m, b);
    rm ia = {{0, 0, 0}, {-ma.q[0], -ma.q[1], -ma.q[2], ma.q[3]}};
    const rm neg = {{-ma.t[0], -ma.t[1], -ma.t[2]}, {0, 0, 0, 1}};
    ia = rm_compose(&ia, &neg);
    return rm_compose(&ia, &mb);
}

/* 10^7 frames of 1/60 s: the accumulated motion equals (whole loops) x (a
 * loop's motion) then the partial loop, within 1e-6 relative. */
static void test_root_motion_accumulates_exactly(void **state)
{
    (void)state;
    cna_error err;
    cna_model *m = load(WALKER);
    cna_character *c = make(m, 1);
    ok(cna_character_play(c, 0, &err), &err);
    ok(cna_character_layer_set_root_motion(c, 0, CNA_ROOT_MOTION_HORIZONTAL, -1, &err), &err);
    rm acc = {{0, 0, 0}, {0, 0, 0, 1}};
    const long frames = 10000000;
    for (long f = 0; f < frames; f++) {
        ok(cna_character_advance(c, 1.0 / 60, &err), &err);
        cna_root_motion d;
        cna_character_root_motion(c, &d);
        const rm x = {{d.translation[0], d.translation[1], d.translation[2]},
                      {d.rotation[0], d.rotation[1], d.rotation[2], d.rotation[3]}};
        acc = rm_compose(&acc, &x);
    }
    const int64_t D = cna_character_duration(c);
    const int64_t total = frames * cna_ticks_from_seconds(1.0 / 60);
    const int64_t loops = total / D, r = total % D;
    assert_int_equal(cna_character_position(c), r);
    const rm loop = rm_between(m, 0, D), partial = rm_between(m, 0, r);
    rm want = {{0, 0, 0}, {0, 0, 0, 1}};
    for (int64_t i = 0; i < loops; i++) want = rm_compose(&want, &loop);
    want = rm_compose(&want, &partial);
    const double len = sqrt(want.t[0] * want.t[0] + want.t[2] * want.t[2]);
    const double e = sqrt((acc.t[0] - want.t[0]) * (acc.t[0] - want.t[0]) + (acc.t[2] - want.t[2]) * (acc.t[2] - want.t[2]));
    print_message("root motion: %lld loops, |want| %.6g, error %.3g (relative %.3g)\n", (long long)loops, len, e,
                  e / len);
    assert_true(len > 1.0);
    assert_true(e <= 1e-6 * len);
    double dq = 0;
    for (int i = 0; i < 4; i++) dq += acc.q[i] * want.q[i];
    assert_true(fabs(fabs(dq) - 1.0) <= 1e-9);
    cna_character_free(c);
    cna_model_free(m);
}

/* With root motion the root stays at its start's X, Z and yaw; height,
 * lean and the tip still move. A layer at weight 0.5 reports half the motion. */
static void test_root_motion_pose_and_weight(void **state)
{
    (void)state;
    cna_error err;
    cna_model *m = load(WALKER);
    cna_character *c = make(m, 2);
    ok(cna_character_play(c, 0, &err), &err);
    ok(cna_character_layer_set_root_motion(c, 0, CNA_ROOT_MOTION_HORIZONTAL, -1, &err), &err);
    ok(cna_character_seek(c, 0.25, &err), &err);
    ok(cna_character_pose(c, &err), &err);
    const int32_t root = cna_model_find_bone(m, "Root");
    const cna_mat4 *l = cna_character_bone_transform(c, (size_t)root);
    /* translation (0, 0.1 bob, 0): x and z held at the start's 0 */
    assert_true(l->m[12] == 0.0f && l->m[14] == 0.0f);
    assert_true(fabsf(l->m[13] - 0.1f) <= 1e-6f);
    /* no yaw left: the X axis keeps no Z component beyond the lean's (the lean is about X) */
    assert_true(fabsf(l->m[2]) <= 1e-6f);
    cna_root_motion d;
    ok(cna_character_advance(c, 0.25, &err), &err);
    cna_character_root_motion(c, &d);
    const rm want = rm_between(m, cna_ticks_from_seconds(0.25), cna_ticks_from_seconds(0.5));
    for (int i = 0; i < 3; i++) assert_true(fabs(d.translation[i] - want.t[i]) <= 1e-9);
    ok(cna_character_layer_set_weight(c, 0, 0.5f, &err), &err);
    ok(cna_character_seek(c, 0.25, &err), &err);
    ok(cna_character_advance(c, 0.25, &err), &err);
    cna_root_motion h;
    cna_character_root_motion(c, &h);
    for (int i = 0; i < 3; i++) assert_true(fabs(h.translation[i] - 0.5 * want.t[i]) <= 1e-9);
    /* a seek reports no motion */
    ok(cna_character_seek(c, 0.1, &err), &err);
    cna_character_root_motion(c, &h);
    assert_true(h.translation[0] == 0.0 && h.translation[2] == 0.0 && h.rotation[3] == 1.0);
    cna_character_free(c);
    cna_model_free(m);
}

/* ------------------------------------------------------------------ errors, allocation, threads */

static void test_layer_errors(void **state)
{
    (void)state;
    cna_error err;
    cna_model *m = load(ROBOT);
    cna_character *c = make(m, 2);
    assert_int_equal(cna_character_layer_count(c), 2);
    assert_int_equal(cna_character_layer_play(c, 2, 0, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "layer 2 is outside 0..1");
    assert_int_equal(cna_character_layer_play(c, 1, 14, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "animation 14 is outside -1..13");
    assert_int_equal(cna_character_layer_set_weight(c, 1, 1.5f, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "layer 1: weight 1.5 is outside 0..1");
    assert_int_equal(cna_character_layer_set_weight(c, 1, NAN, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_true(cna_character_layer_weight(c, 1) == 0.0f);
    float *mask = (float *)calloc(m->bone_count, sizeof(float));
    assert_int_equal(cna_character_layer_set_mask(c, 1, mask, 3, &err), CNA_ERROR_INVALID_ARGUMENT);
    char want[128];
    snprintf(want, sizeof want, "layer 1: mask count 3 differs from bone_count %zu", m->bone_count);
    assert_string_equal(err.message, want);
    mask[12] = -1.0f;
    assert_int_equal(cna_character_layer_set_mask(c, 1, mask, m->bone_count, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "mask[12]: weight -1 is outside 0..1");
    assert_null(cna_character_layer_mask(c, 1));
    assert_int_equal(cna_model_mask_subtree(m, "Spine9", 1.0f, mask, m->bone_count, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "mask: no bone named \"Spine9\"");
    assert_int_equal(cna_character_crossfade(c, 1, 1, 0, 0.5, 0, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "crossfade: from and to are both layer 1");
    assert_int_equal(cna_character_crossfade(c, 0, 1, 0, 0.5, 4u, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "crossfade: unknown flags 0x4");
    assert_int_equal(cna_character_layer_fade(c, 0, 0.5f, INFINITY, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "layer 0: fade time inf is not finite");
    assert_int_equal(cna_character_layer_set_blend_mode(c, 0, (cna_blend_mode)7, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "layer 0: blend mode 7 is not a cna_blend_mode");
    assert_int_equal(cna_character_layer_set_root_motion(c, 0, CNA_ROOT_MOTION_FULL, 100000, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(cna_character_layer_set_time_scale(c, 1, INFINITY, &err), CNA_ERROR_INVALID_ARGUMENT);
    ok(cna_character_layer_set_time_scale(c, 1, 1e308, &err), &err);
    assert_int_equal(cna_character_advance(c, 10.0, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "advance: 10 s at layer 1's time scale 1e+308 is not finite");
    cna_character_options o;
    memset(&o, 0, sizeof o);
    o.layer_count = CNA_CHARACTER_MAX_LAYERS + 1;
    cna_character *none = NULL;
    assert_int_equal(cna_character_create(m, &o, &none, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "character: layer_count 17 is above 16");
    assert_null(none);
    free(mask);
    cna_character_free(c);
    cna_model_free(m);
}

static size_t allocations;
static size_t fail_after = SIZE_MAX; /* allocations that succeed before failing */
static void *count_alloc(void *user, size_t size)
{
    (void)user;
    if (allocations >= fail_after) return NULL;
    allocations++;
    return malloc(size);
}
static void count_free(void *user, void *p)
{
    (void)user;
    free(p);
}

/* Four layers (crossfade, masked wave, additive nod, root motion): nothing
 * is allocated while playing, fading, advancing and posing. */
static void test_no_allocation_while_blending(void **state)
{
    (void)state;
    cna_error err;
    cna_model *m = load(ROBOT);
    cna_character_options o;
    memset(&o, 0, sizeof o);
    o.layer_count = 4;
    o.allocator.alloc = count_alloc;
    o.allocator.free = count_free;
    cna_character *c = NULL;
    ok(cna_character_create(m, &o, &c, &err), &err);
    float *mask = (float *)calloc(m->bone_count, sizeof(float));
    ok(cna_model_mask_subtree(m, "Shoulder.R", 1.0f, mask, m->bone_count, &err), &err);
    ok(cna_character_layer_set_mask(c, 2, mask, m->bone_count, &err), &err);
    ok(cna_character_layer_set_blend_mode(c, 3, CNA_BLEND_MODE_ADDITIVE, &err), &err);
    const size_t before = allocations;
    ok(cna_character_play(c, (long)find_anim(m, "Robot_Walking"), &err), &err);
    ok(cna_character_layer_set_root_motion(c, 0, CNA_ROOT_MOTION_HORIZONTAL, -1, &err), &err);
    ok(cna_character_layer_play(c, 2, (long)find_anim(m, "Robot_Wave"), &err), &err);
    ok(cna_character_layer_set_weight(c, 2, 1.0f, &err), &err);
    ok(cna_character_layer_play(c, 3, (long)find_anim(m, "Robot_Yes"), &err), &err);
    ok(cna_character_layer_set_weight(c, 3, 0.5f, &err), &err);
    for (int f = 0; f < 120; f++) {
        if (f == 30) ok(cna_character_crossfade(c, 0, 1, (long)find_anim(m, "Robot_Running"), 0.5, 0, &err), &err);
        ok(cna_character_update(c, 1.0 / 60, &err), &err);
    }
    assert_int_equal(allocations, before);
    free(mask);
    cna_character_free(c);
    cna_model_free(m);
}

/* The first blend set-up allocates the blending state: when that fails at
 * any of its allocations, the call reports out of memory and nothing
 * changes (no leak: the sanitizer build checks). */
static void test_blend_setup_out_of_memory_changes_nothing(void **state)
{
    (void)state;
    cna_error err;
    cna_model *m = load(ROBOT);
    cna_character_options o;
    memset(&o, 0, sizeof o);
    o.layer_count = 2;
    o.allocator.alloc = count_alloc;
    o.allocator.free = count_free;
    const long wave = (long)find_anim(m, "Robot_Wave");
    size_t failures = 0;
    for (size_t extra = 0;; extra++) {
        allocations = 0;
        fail_after = SIZE_MAX;
        cna_character *c = NULL;
        ok(cna_character_create(m, &o, &c, &err), &err);
        const size_t bytes = cna_character_size_bytes(c);
        fail_after = allocations + extra;
        cna_result r = cna_character_layer_play(c, 1, wave, &err);
        fail_after = SIZE_MAX;
        if (r == CNA_OK) {
            assert_int_equal(cna_character_layer_animation(c, 1), wave);
            cna_character_free(c);
            break;
        }
        failures++;
        assert_int_equal(r, CNA_ERROR_OUT_OF_MEMORY);
        assert_int_equal(cna_character_layer_animation(c, 1), -1);
        assert_int_equal(cna_character_size_bytes(c), bytes);
        /* and the character still poses, and blends once memory is there */
        ok(cna_character_pose(c, &err), &err);
        ok(cna_character_layer_play(c, 1, wave, &err), &err);
        cna_character_free(c);
    }
    assert_true(failures >= 3);
    cna_model_free(m);
    /* cna_character_apply_clip_to_bones takes storage for every bone once */
    cna_model *rigid = load(INTERP);
    allocations = 0;
    fail_after = SIZE_MAX;
    cna_character *c = NULL;
    ok(cna_character_create(rigid, &o, &c, &err), &err);
    const size_t bytes = cna_character_size_bytes(c);
    fail_after = allocations;
    assert_int_equal(cna_character_apply_clip_to_bones(c, &rigid->node_clips[0], 0.5, &err), CNA_ERROR_OUT_OF_MEMORY);
    assert_int_equal(cna_character_size_bytes(c), bytes);
    fail_after = SIZE_MAX;
    ok(cna_character_apply_clip_to_bones(c, &rigid->node_clips[0], 0.5, &err), &err);
    assert_int_equal(cna_character_size_bytes(c), bytes + rigid->bone_count * sizeof(cna_mat4));
    cna_character_free(c);
    cna_model_free(rigid);
}

typedef struct job {
    cna_character *c;
    int frames;
} job;

static void *run_job(void *p)
{
    job *j = (job *)p;
    for (int f = 0; f < j->frames; f++) cna_character_update(j->c, 1.0 / 60, NULL);
    return NULL;
}

static void setup_blend(cna_character *c, const cna_model *m)
{
    cna_error err;
    ok(cna_character_play(c, (long)find_anim(m, "Robot_Walking"), &err), &err);
    ok(cna_character_layer_play(c, 1, (long)find_anim(m, "Robot_Wave"), &err), &err);
    ok(cna_character_layer_set_weight(c, 1, 0.5f, &err), &err);
}

/* Two blending characters on two threads pose as each alone. */
static void test_two_threads(void **state)
{
    (void)state;
    cna_model *m = load(ROBOT);
    cna_character *a = make(m, 2), *b = make(m, 2), *ref = make(m, 2);
    setup_blend(a, m);
    setup_blend(b, m);
    setup_blend(ref, m);
    job ja = {a, 200}, jb = {b, 200};
    pthread_t ta, tb;
    assert_int_equal(pthread_create(&ta, NULL, run_job, &ja), 0);
    assert_int_equal(pthread_create(&tb, NULL, run_job, &jb), 0);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    run_job(&(job){ref, 200});
    assert_same_pose(a, ref);
    assert_same_pose(b, ref);
    cna_character_free(a);
    cna_character_free(b);
    cna_character_free(ref);
    cna_model_free(m);
}

/* The posing thread's scratch is the library's one thread-local block:
 * 256 slots of two keyframes, a weight, a slot index and a flag, 26,880
 * bytes (include/cna/character.h and docs/blending.md give the figure). A
 * thread that poses for the first time allocates nothing through the
 * character's hooks, and a character posed by one fresh thread after
 * another poses as on the main thread. */
static void test_the_thread_scratch_is_26880_bytes_and_made_by_no_pose(void **state)
{
    (void)state;
    assert_int_equal(cna__blend_thread_scratch_bytes(), 26880);
    assert_int_equal(cna__blend_thread_scratch_bytes(),
                     CNA__BLEND_SCRATCH_SLOTS * (2 * sizeof(cna_keyframe) + sizeof(float) + sizeof(int32_t) + 1));
    cna_error err;
    cna_model *m = load(ROBOT);
    cna_character_options o;
    memset(&o, 0, sizeof o);
    o.layer_count = 2;
    o.allocator.alloc = count_alloc;
    o.allocator.free = count_free;
    cna_character *c = NULL, *ref = make(m, 2);
    ok(cna_character_create(m, &o, &c, &err), &err);
    setup_blend(c, m);
    setup_blend(ref, m);
    const size_t before = allocations;
    for (int t = 0; t < 16; t++) {
        job j = {c, 3};
        pthread_t th;
        assert_int_equal(pthread_create(&th, NULL, run_job, &j), 0);
        pthread_join(th, NULL);
        run_job(&(job){ref, 3});
        assert_same_pose(c, ref);
    }
    assert_int_equal(allocations, before);
    cna_character_free(c);
    cna_character_free(ref);
    cna_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_layer_is_the_character),
        cmocka_unit_test(test_two_layers_follow_the_rule),
        cmocka_unit_test(test_scene_node_clips_blend),
        cmocka_unit_test(test_morph_weights_blend),
        cmocka_unit_test(test_mask_zero_is_unaffected),
        cmocka_unit_test(test_additive_equal_to_reference_changes_nothing),
        cmocka_unit_test(test_additive_follows_the_rule),
        cmocka_unit_test(test_crossfade_is_two_layers),
        cmocka_unit_test(test_root_motion_accumulates_exactly),
        cmocka_unit_test(test_root_motion_pose_and_weight),
        cmocka_unit_test(test_layer_errors),
        cmocka_unit_test(test_a_stopped_layer_poses_as_one_kept_running),
        cmocka_unit_test(test_no_allocation_while_blending),
        cmocka_unit_test(test_blend_setup_out_of_memory_changes_nothing),
        cmocka_unit_test(test_two_threads),
        cmocka_unit_test(test_the_thread_scratch_is_26880_bytes_and_made_by_no_pose),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
