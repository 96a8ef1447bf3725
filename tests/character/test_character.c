/*
 * cna_character (include/cna/character.h): a pose equals, bit for bit, the
 * frame's steps done by hand (one player per model skin, the scene-node
 * clip, the joints written into the bones, absolute transforms, morph
 * weights) on every corpus model and fixture; skins of one glTF skin share
 * one evaluation; characters of one model are independent (any
 * interleaving, two threads); posing never writes the model and never
 * allocates; the clock is exact; moving root prefixes (an animated
 * ancestor, nested skeletons, an animated mesh node) match the glTF
 * formula computed independently here.
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

#include "cna/cna.h"
#include "model/model_internal.h"
#include "model/bone_pose.h"

#define ROBOT "corpus/valid/RobotExpressive/robot.glb"

static const char *const MODELS[] = {
    "corpus/valid/AnimatedMorphCube/AnimatedMorphCube.gltf",
    "corpus/valid/BoxAnimated/box_animated.gltf",
    "corpus/valid/InterpolationTest/interpolation_test.gltf",
    "corpus/valid/MorphStressTest/MorphStressTest.gltf",
    "corpus/valid/RiggedSimple/rigged_simple.gltf",
    ROBOT,
    "corpus/valid/SimpleMorph/SimpleMorph.gltf",
    "corpus/valid/SimpleSkin/simple_skin.gltf",
    "corpus/valid/Triangle/triangle.gltf",
    "fixtures/skin-mesh-node-transform.gltf",
    "fixtures/skin-armature-ancestor.gltf",
    "fixtures/skin-ordered-joints.gltf",
    "fixtures/skin-reversed-joints.gltf",
    "fixtures/step-three-keys.gltf",
    "fixtures/cubic-rotation.gltf",
    "fixtures/skin-two-instances.gltf",
    "fixtures/skin-folded-node.gltf",
    "fixtures/skin-animated-ancestor.gltf",
    "fixtures/skin-nested.gltf",
    "fixtures/skin-animated-mesh-node.gltf",
};
#define MODEL_COUNT (sizeof MODELS / sizeof MODELS[0])

static cna_model *load(const char *rel, cna_clip_mode mode)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", CNA_TEST_DATA_DIR, rel);
    cna_import_options o;
    memset(&o, 0, sizeof o);
    o.clip_mode = mode;
    cna_model *m = NULL;
    cna_error err;
    cna_result r = cna_model_load_file(path, &o, &m, &err);
    if (r != CNA_OK) print_error("%s: %s\n", rel, err.message);
    assert_int_equal(r, CNA_OK);
    return m;
}

static cna_character *make(const cna_model *m)
{
    cna_character *c = NULL;
    cna_error err;
    cna_result r = cna_character_create(m, NULL, &c, &err);
    if (r != CNA_OK) print_error("%s\n", err.message);
    assert_int_equal(r, CNA_OK);
    return c;
}

/* ------------------------------------------------------------------ the steps by hand */

typedef struct reference {
    cna_mat4 *local, *absolute;
    cna_player **players;   /* one per model skin, no sharing */
    size_t skin_count;
} reference;

static void reference_pose(const cna_model *m, long anim, int64_t ticks, reference *out)
{
    out->local = calloc(m->bone_count + 1, sizeof(cna_mat4));
    out->absolute = calloc(m->bone_count + 1, sizeof(cna_mat4));
    out->players = calloc(m->skin_count + 1, sizeof(cna_player *));
    out->skin_count = m->skin_count;
    for (size_t b = 0; b < m->bone_count; b++) out->local[b] = m->bones[b].rest_transform;
    if (anim >= 0) {
        const cna_clip *clip = &m->node_clips[anim];
        int64_t t = ticks < 0 ? 0 : ticks > clip->duration ? clip->duration : ticks;
        for (size_t i = 0; i < clip->track_count; i++) {
            const cna_bone_track *tr = &clip->tracks[i];
            if (!tr->keys || tr->key_count == 0 || tr->bone < 0 || (size_t)tr->bone >= m->bone_count) continue;
            cna_keyframe k;
            cna_track_sample_linear(tr, t, &k);
            cna_mat4_compose(&out->local[tr->bone], k.translation, k.rotation, k.scale);
        }
    }
    for (size_t s = 0; s < m->skin_count; s++) {
        const cna_model_skin *skin = &m->skins[s];
        assert_int_equal(cna_player_create(&skin->data, NULL, &out->players[s], NULL), CNA_OK);
        assert_int_equal(anim >= 0 ? cna_player_start_clip(out->players[s], &skin->data.clips[anim], NULL)
                                   : cna_player_stop(out->players[s], NULL),
                         CNA_OK);
        assert_int_equal(cna_player_update(out->players[s], ticks, false, false, NULL), CNA_OK);
        bone_pose_skin(m, s, cna_player_bone_transforms(out->players[s]), out->local);
    }
    for (size_t b = 0; b < m->bone_count; b++) {
        int32_t parent = m->bones[b].parent;
        if (parent >= 0) cna_mat4_mul(&out->absolute[b], &out->absolute[parent], &out->local[b]);
        else out->absolute[b] = out->local[b];
    }
}

static void reference_free(reference *r)
{
    for (size_t s = 0; s < r->skin_count; s++) cna_player_free(r->players[s]);
    free(r->players);
    free(r->local);
    free(r->absolute);
}

/* The morph weights the animation gives a part at `ticks`, and its blend. */
static void reference_morph(const cna_model *m, long anim, int64_t ticks, size_t mesh, size_t part, float *weights,
                            unsigned char *vertices)
{
    const cna_model_part *p = &m->meshes[mesh].parts[part];
    const cna_morph_target_data *md = p->morph;
    size_t n = md->target_count;
    if (anim >= 0 && (size_t)anim < p->weight_track_count && p->weight_tracks[anim] &&
        p->weight_tracks[anim]->key_count > 0) {
        assert_int_equal(cna_morph_evaluate_weights(p->weight_tracks[anim], cna_ticks_to_seconds(ticks), weights, n,
                                                    &n, NULL),
                         CNA_OK);
    } else {
        for (size_t i = 0; i < n; i++)
            weights[i] = md->initial_weights && i < md->initial_weight_count ? md->initial_weights[i] : 0.0f;
    }
    assert_int_equal(cna_morph_blend(md, weights, md->target_count, vertices, md->base_size, NULL), CNA_OK);
}

static void check_against_reference(const cna_model *m, const cna_character *c, long anim, int64_t ticks,
                                    const char *what)
{
    reference ref;
    reference_pose(m, anim, ticks, &ref);
    for (size_t b = 0; b < m->bone_count; b++)
        if (memcmp(cna_character_absolute_transform(c, b), &ref.absolute[b], sizeof(cna_mat4)) != 0)
            fail_msg("%s: bone %zu's absolute transform differs at animation %ld, tick %lld", what, b, anim,
                     (long long)ticks);
    cna_mat4 *copy = calloc(m->bone_count + 1, sizeof(cna_mat4));
    assert_int_equal(cna_character_copy_absolute_transforms(c, copy, m->bone_count, NULL), CNA_OK);
    assert_memory_equal(copy, ref.absolute, m->bone_count * sizeof(cna_mat4));
    free(copy);
    for (size_t b = 0; b < m->bone_count; b++)
        assert_memory_equal(cna_character_bone_transform(c, b), &ref.local[b], sizeof(cna_mat4));
    assert_null(cna_character_bone_transform(c, m->bone_count));
    for (size_t s = 0; s < m->skin_count; s++) {
        if (cna_character_skin_has_moving_prefix(c, s)) continue; /* checked against glTF below */
        const size_t n = m->skins[s].joint_count * sizeof(cna_mat4);
        if (memcmp(cna_character_skin_transforms(c, s), cna_player_skin_transforms(ref.players[s]), n) != 0)
            fail_msg("%s: skins[%zu] palette differs at animation %ld, tick %lld", what, s, anim, (long long)ticks);
        assert_memory_equal(cna_character_world_transforms(c, s), cna_player_world_transforms(ref.players[s]), n);
    }
    for (size_t i = 0; i < m->mesh_count; i++)
        for (size_t k = 0; k < m->meshes[i].part_count; k++) {
            const cna_model_part *p = &m->meshes[i].parts[k];
            size_t size = 0;
            const void *v = cna_character_part_vertices(c, i, k, &size);
            assert_int_equal(size, p->vertex_count * p->declaration.stride);
            if (!p->morph) {
                assert_ptr_equal(v, p->vertices);
                continue;
            }
            float w[64];
            assert_true(p->morph->target_count <= 64);
            unsigned char *bytes = malloc(p->morph->base_size + 1);
            reference_morph(m, anim, ticks, i, k, w, bytes);
            size_t count = 0;
            const float *cw = cna_character_morph_weights(c, i, k, &count);
            assert_int_equal(count, p->morph->target_count);
            assert_memory_equal(cw, w, count * sizeof(float));
            assert_memory_equal(v, bytes, size);
            free(bytes);
        }
    reference_free(&ref);
}

static void poses_bit_for_bit_like_the_steps_by_hand_on_every_model(void **state)
{
    (void)state;
    for (size_t mi = 0; mi < MODEL_COUNT; mi++) {
        for (int mode = CNA_CLIP_MODE_FAITHFUL; mode <= CNA_CLIP_MODE_UNION; mode++) {
            cna_model *m = load(MODELS[mi], (cna_clip_mode)mode);
            cna_character *c = make(m);
            cna_error err;
            check_against_reference(m, c, -1, 0, MODELS[mi]); /* a fresh character is at rest */
            assert_int_equal(cna_character_set_loop_mode(c, CNA_LOOP_MODE_ONCE, &err), CNA_OK);
            for (long a = -1; a < (long)m->animation_count; a++) {
                assert_int_equal(cna_character_play(c, a, &err), CNA_OK);
                const int64_t d = cna_character_duration(c);
                const int64_t times[] = {0, 3700001, d / 3, d / 2 + 1, d - 1, d};
                for (size_t k = 0; k < sizeof times / sizeof times[0]; k++) {
                    assert_int_equal(cna_character_seek_ticks(c, times[k], &err), CNA_OK);
                    assert_int_equal(cna_character_pose(c, &err), CNA_OK);
                    const int64_t t = times[k] < 0 ? 0 : times[k] > d ? d : times[k];
                    assert_true(cna_character_position(c) == t);
                    check_against_reference(m, c, a, t, MODELS[mi]);
                }
            }
            cna_character_free(c);
            cna_model_free(m);
        }
    }
}

/* ------------------------------------------------------------------ sharing, size */

static void robot_skins_share_one_evaluation_and_a_character_is_small(void **state)
{
    (void)state;
    cna_model *m = load(ROBOT, CNA_CLIP_MODE_FAITHFUL);
    assert_int_equal(m->skin_count, 14);
    cna_character *c = make(m);
    for (size_t s = 1; s < m->skin_count; s++)
        assert_ptr_equal(cna_character_skin_transforms(c, s), cna_character_skin_transforms(c, 0));
    for (size_t s = 0; s < m->skin_count; s++) assert_false(cna_character_skin_has_moving_prefix(c, s));
    assert_null(cna_character_skin_transforms(c, m->skin_count));
    const size_t cb = cna_character_size_bytes(c), mb = cna_model_size_bytes(m);
    print_message("robot: character %zu bytes, model %zu bytes\n", cb, mb);
    assert_true(cb > 0 && cb < mb / 20);
    cna_character_free(c);
    cna_model_free(m);
}

/* RobotExpressive's character (43 joints, 58 bones; four layers, as
 * bench/blend.c makes it, and the default two) costs at most 16 kB (16384
 * bytes) beside the shared model, before and after playing and posing. */
static void a_robot_character_costs_at_most_16_kb(void **state)
{
    (void)state;
    cna_model *m = load(ROBOT, CNA_CLIP_MODE_FAITHFUL);
    size_t walk = 0;
    cna_error err;
    assert_int_equal(cna_model_find_animation(m, "Robot_Walking", &walk, &err), CNA_OK);
    const size_t layers[2] = {4, 0};
    for (int i = 0; i < 2; i++) {
        cna_character_options o;
        memset(&o, 0, sizeof o);
        o.layer_count = layers[i];
        cna_character *c = NULL;
        assert_int_equal(cna_character_create(m, &o, &c, &err), CNA_OK);
        const size_t bytes = cna_character_size_bytes(c);
        print_message("robot, %zu layers: %zu bytes per character\n", cna_character_layer_count(c), bytes);
        assert_true(bytes <= 16384);
        assert_int_equal(cna_character_play(c, (long)walk, &err), CNA_OK);
        for (int f = 0; f < 30; f++) assert_int_equal(cna_character_update(c, 1.0 / 60, &err), CNA_OK);
        assert_int_equal(cna_character_size_bytes(c), bytes);
        cna_character_free(c);
    }
    cna_model_free(m);
}

/* Two instances with different transforms: one evaluation, two palettes,
 * each the bits a player of its own gives. */
static void two_instances_share_the_evaluation_but_not_the_palette(void **state)
{
    (void)state;
    cna_model *m = load("fixtures/skin-two-instances.gltf", CNA_CLIP_MODE_FAITHFUL);
    assert_int_equal(m->skin_count, 2);
    cna_character *c = make(m);
    assert_ptr_not_equal(cna_character_skin_transforms(c, 0), cna_character_skin_transforms(c, 1));
    check_against_reference(m, c, -1, 0, "two instances");
    cna_character_free(c);
    cna_model_free(m);
}

/* ------------------------------------------------------------------ independence */

static void snapshot(const cna_character *c, unsigned char *out)
{
    const cna_model *m = cna_character_model(c);
    assert_int_equal(cna_character_copy_absolute_transforms(c, (cna_mat4 *)(void *)out, m->bone_count, NULL), CNA_OK);
    out += m->bone_count * sizeof(cna_mat4);
    for (size_t s = 0; s < m->skin_count; s++) {
        memcpy(out, cna_character_skin_transforms(c, s), m->skins[s].joint_count * sizeof(cna_mat4));
        out += m->skins[s].joint_count * sizeof(cna_mat4);
    }
}

static size_t snapshot_size(const cna_model *m)
{
    size_t n = m->bone_count * sizeof(cna_mat4);
    for (size_t s = 0; s < m->skin_count; s++) n += m->skins[s].joint_count * sizeof(cna_mat4);
    return n;
}

static void two_characters_pose_independently_in_any_order(void **state)
{
    (void)state;
    cna_model *m = load(ROBOT, CNA_CLIP_MODE_FAITHFUL);
    const uint64_t before = cna__model_checksum(m);
    const size_t n = snapshot_size(m);
    unsigned char *alone_a = malloc(n), *alone_b = malloc(n), *got = malloc(n);
    cna_error err;
    /* alone */
    cna_character *a = make(m);
    assert_int_equal(cna_character_play(a, 10, &err), CNA_OK);
    assert_int_equal(cna_character_seek(a, 0.3, &err), CNA_OK);
    assert_int_equal(cna_character_pose(a, &err), CNA_OK);
    snapshot(a, alone_a);
    cna_character_free(a);
    cna_character *b = make(m);
    assert_int_equal(cna_character_play(b, 2, &err), CNA_OK);
    assert_int_equal(cna_character_seek(b, 1.1, &err), CNA_OK);
    assert_int_equal(cna_character_pose(b, &err), CNA_OK);
    snapshot(b, alone_b);
    cna_character_free(b);
    /* interleaved, in both orders */
    for (int order = 0; order < 2; order++) {
        a = make(m);
        b = make(m);
        cna_character *first = order ? b : a, *second = order ? a : b;
        assert_int_equal(cna_character_play(a, 10, &err), CNA_OK);
        assert_int_equal(cna_character_play(b, 2, &err), CNA_OK);
        assert_int_equal(cna_character_seek(b, 1.1, &err), CNA_OK);
        assert_int_equal(cna_character_seek(a, 0.3, &err), CNA_OK);
        assert_int_equal(cna_character_pose(first, &err), CNA_OK);
        assert_int_equal(cna_character_pose(second, &err), CNA_OK);
        assert_int_equal(cna_character_pose(first, &err), CNA_OK);
        snapshot(a, got);
        assert_memory_equal(got, alone_a, n);
        snapshot(b, got);
        assert_memory_equal(got, alone_b, n);
        cna_character_free(a);
        cna_character_free(b);
    }
    assert_true(cna__model_checksum(m) == before); /* posing never writes the model */
    free(alone_a);
    free(alone_b);
    free(got);
    cna_model_free(m);
}

typedef struct thread_job {
    const cna_model *model;
    long animation;
    double step;
    int frames;
    unsigned char *result;
} thread_job;

static void *run_job(void *arg)
{
    thread_job *j = (thread_job *)arg;
    cna_character *c = NULL;
    if (cna_character_create(j->model, NULL, &c, NULL) != CNA_OK) return NULL;
    cna_character_play(c, j->animation, NULL);
    for (int f = 0; f < j->frames; f++) cna_character_update(c, j->step, NULL);
    snapshot(c, j->result);
    cna_character_free(c);
    return NULL;
}

static void characters_on_two_threads_equal_one_thread(void **state)
{
    (void)state;
    cna_model *m = load(ROBOT, CNA_CLIP_MODE_FAITHFUL);
    const uint64_t before = cna__model_checksum(m);
    const size_t n = snapshot_size(m);
    thread_job jobs[2] = {{m, 10, 1.0 / 60.0, 200, malloc(n)}, {m, 6, 1.0 / 47.0, 150, malloc(n)}};
    unsigned char *serial[2] = {malloc(n), malloc(n)};
    for (int i = 0; i < 2; i++) {
        unsigned char *keep = jobs[i].result;
        jobs[i].result = serial[i];
        run_job(&jobs[i]);
        jobs[i].result = keep;
    }
    pthread_t t[2];
    for (int i = 0; i < 2; i++) assert_int_equal(pthread_create(&t[i], NULL, run_job, &jobs[i]), 0);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    for (int i = 0; i < 2; i++) {
        assert_memory_equal(jobs[i].result, serial[i], n);
        free(jobs[i].result);
        free(serial[i]);
    }
    assert_true(cna__model_checksum(m) == before);
    cna_model_free(m);
}

/* ------------------------------------------------------------------ allocation */

typedef struct counting {
    size_t allocations;
    size_t fail_at;     /* fail the allocation with this 1-based number; 0 = never */
} counting;

static void *counting_alloc(void *user, size_t size)
{
    counting *c = (counting *)user;
    c->allocations++;
    if (c->fail_at && c->allocations == c->fail_at) return NULL;
    return malloc(size);
}

static void counting_free(void *user, void *p)
{
    (void)user;
    free(p);
}

static void creating_allocates_everything_posing_nothing(void **state)
{
    (void)state;
    const char *models[] = {ROBOT, "corpus/valid/MorphStressTest/MorphStressTest.gltf", "fixtures/skin-nested.gltf"};
    for (size_t i = 0; i < 3; i++) {
        cna_model *m = load(models[i], CNA_CLIP_MODE_FAITHFUL);
        counting cnt = {0, 0};
        cna_character_options o;
        memset(&o, 0, sizeof o);
        o.allocator.alloc = counting_alloc;
        o.allocator.free = counting_free;
        o.allocator.user_data = &cnt;
        cna_character *c = NULL;
        cna_error err;
        assert_int_equal(cna_character_create(m, &o, &c, &err), CNA_OK);
        const size_t after_create = cnt.allocations;
        assert_true(after_create > 0);
        for (long a = 0; a < (long)m->animation_count; a++) {
            assert_int_equal(cna_character_play(c, a, &err), CNA_OK);
            for (int f = 0; f < 20; f++) assert_int_equal(cna_character_update(c, 0.13, &err), CNA_OK);
            float w[64] = {0};
            for (size_t mesh = 0; mesh < m->mesh_count; mesh++)
                if (m->meshes[mesh].parts[0].morph)
                    assert_int_equal(cna_character_set_morph_weights(c, mesh, 0, w,
                                                                     m->meshes[mesh].parts[0].morph->target_count, &err),
                                     CNA_OK);
        }
        assert_int_equal(cnt.allocations, after_create);
        cna_character_free(c);
        /* every allocation of create failing in turn: a clean error, nothing leaked */
        for (size_t k = 1; k <= after_create; k++) {
            counting fail = {0, k};
            o.allocator.user_data = &fail;
            c = (cna_character *)0x1;
            assert_int_equal(cna_character_create(m, &o, &c, &err), CNA_ERROR_OUT_OF_MEMORY);
            assert_ptr_equal(c, (cna_character *)0x1);
        }
        cna_model_free(m);
    }
}

/* What a character derives from its model (skin groups, bone slots, the
 * bones that move) is built once when the model loads and shared. A copy
 * of the model struct without the library's bookkeeping (owner NULL, as a
 * struct filled by hand) makes each character derive it alone: its poses
 * are the same bit for bit, and the character counts what it holds. */
static void a_character_of_a_hand_filled_copy_poses_as_the_shared_rig(void **state)
{
    (void)state;
    for (size_t i = 0; i <= MODEL_COUNT; i++) {
        const char *rel = i < MODEL_COUNT ? MODELS[i] : ROBOT;
        cna_model *m = load(rel, CNA_CLIP_MODE_FAITHFUL);
        cna_model copy = *m;
        copy.owner = NULL;
        cna_character *a = make(m), *b = make(&copy);
        assert_true(cna_character_size_bytes(b) > cna_character_size_bytes(a));
        cna_error err;
        for (long anim = -1; anim < (long)m->animation_count; anim++) {
            if (anim >= 0) {
                assert_int_equal(cna_character_play(a, anim, &err), CNA_OK);
                assert_int_equal(cna_character_play(b, anim, &err), CNA_OK);
            }
            for (int f = 0; f < 7; f++) {
                assert_int_equal(cna_character_update(a, 0.173, &err), CNA_OK);
                assert_int_equal(cna_character_update(b, 0.173, &err), CNA_OK);
                for (size_t bone = 0; bone < m->bone_count; bone++)
                    if (memcmp(cna_character_absolute_transform(a, bone), cna_character_absolute_transform(b, bone),
                               sizeof(cna_mat4)) != 0)
                        fail_msg("%s: animation %ld frame %d: bone %zu differs", rel, anim, f, bone);
                for (size_t s = 0; s < m->skin_count; s++)
                    if (memcmp(cna_character_skin_transforms(a, s), cna_character_skin_transforms(b, s),
                               m->skins[s].joint_count * sizeof(cna_mat4)) != 0)
                        fail_msg("%s: animation %ld frame %d: skin %zu's palette differs", rel, anim, f, s);
            }
        }
        cna_character_free(b);
        cna_character_free(a);
        cna_model_free(m);
    }
}

/* ------------------------------------------------------------------ the clock */

static cna_character *clock_character(cna_model **model)
{
    *model = load(ROBOT, CNA_CLIP_MODE_FAITHFUL);
    cna_character *c = make(*model);
    cna_error err;
    assert_int_equal(cna_character_play(c, 10, &err), CNA_OK);  /* Robot_Walking */
    return c;
}

static void repeat_over_ten_million_frames_is_the_floor_mod_of_the_summed_ticks(void **state)
{
    (void)state;
    cna_model *m;
    cna_character *c = clock_character(&m);
    const int64_t d = cna_character_duration(c);
    assert_true(d > 0);
    const int64_t step = cna_ticks_from_seconds(1.0 / 60.0);
    for (int64_t i = 0; i < 10000000; i++) assert_int_equal(cna_character_advance(c, 1.0 / 60.0, NULL), CNA_OK);
    assert_true(cna_character_position(c) == (10000000 * step) % d);
    cna_character_free(c);
    cna_model_free(m);
}

static int64_t ping_pong_reference(int64_t sum, int64_t d)
{
    int64_t u = sum % (2 * d);
    if (u < 0) u += 2 * d;
    return u <= d ? u : 2 * d - u;
}

static void ping_pong_over_a_million_frames_matches_integer_arithmetic(void **state)
{
    (void)state;
    cna_model *m;
    cna_character *c = clock_character(&m);
    const int64_t d = cna_character_duration(c);
    assert_int_equal(cna_character_set_loop_mode(c, CNA_LOOP_MODE_PING_PONG, NULL), CNA_OK);
    int64_t sum = 0;
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 1000000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        /* mostly small steps both ways, now and then one longer than the clip */
        int64_t step = (int64_t)(x % 400001) - 150000;
        if (x % 97 == 0) step *= 300;
        sum += step;
        assert_int_equal(cna_character_advance_ticks(c, step, NULL), CNA_OK);
        if (cna_character_position(c) != ping_pong_reference(sum, d))
            fail_msg("frame %d: position %lld, expected %lld", i, (long long)cna_character_position(c),
                     (long long)ping_pong_reference(sum, d));
    }
    /* the turning points are reached exactly */
    assert_int_equal(cna_character_seek_ticks(c, d, NULL), CNA_OK);
    assert_true(cna_character_position(c) == d);
    assert_int_equal(cna_character_seek_ticks(c, 2 * d, NULL), CNA_OK);
    assert_true(cna_character_position(c) == 0);
    assert_int_equal(cna_character_seek_ticks(c, d + d / 2, NULL), CNA_OK);
    assert_true(cna_character_position(c) == d - d / 2);
    cna_character_free(c);
    cna_model_free(m);
}

static void once_clamps_and_the_time_scale_scales_and_reverses(void **state)
{
    (void)state;
    cna_model *m;
    cna_character *c = clock_character(&m);
    cna_error err;
    const int64_t d = cna_character_duration(c);
    /* repeat: the end wraps to the start, backwards wraps to the end */
    assert_int_equal(cna_character_seek_ticks(c, d, &err), CNA_OK);
    assert_true(cna_character_position(c) == 0);
    assert_int_equal(cna_character_advance_ticks(c, -1, &err), CNA_OK);
    assert_true(cna_character_position(c) == d - 1);
    assert_int_equal(cna_character_advance_ticks(c, INT64_MAX, &err), CNA_OK);
    assert_true(cna_character_position(c) == (int64_t)(((uint64_t)(d - 1) + (uint64_t)INT64_MAX % (uint64_t)d) %
                                                     (uint64_t)d));
    /* once: clamps at both ends, also for huge steps */
    assert_int_equal(cna_character_set_loop_mode(c, CNA_LOOP_MODE_ONCE, &err), CNA_OK);
    assert_int_equal(cna_character_seek_ticks(c, d - 5, &err), CNA_OK);
    assert_int_equal(cna_character_advance_ticks(c, INT64_MAX, &err), CNA_OK);
    assert_true(cna_character_position(c) == d);
    assert_int_equal(cna_character_advance_ticks(c, INT64_MIN, &err), CNA_OK);
    assert_true(cna_character_position(c) == 0);
    assert_int_equal(cna_character_seek(c, 1e300, &err), CNA_OK);
    assert_true(cna_character_position(c) == d);
    /* the time scale: -2 plays backwards at twice the speed */
    assert_int_equal(cna_character_set_loop_mode(c, CNA_LOOP_MODE_REPEAT, &err), CNA_OK);
    assert_int_equal(cna_character_seek_ticks(c, 1000000, &err), CNA_OK);
    assert_int_equal(cna_character_set_time_scale(c, -2.0, &err), CNA_OK);
    assert_int_equal(cna_character_advance(c, 0.025, &err), CNA_OK);
    assert_true(cna_character_position(c) == 500000);
    assert_int_equal(cna_character_set_time_scale(c, 0.0, &err), CNA_OK);
    assert_int_equal(cna_character_advance(c, 10.0, &err), CNA_OK);
    assert_true(cna_character_position(c) == 500000);
    /* refusals change nothing */
    assert_int_equal(cna_character_set_time_scale(c, INFINITY, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "time scale: inf is not finite");
    assert_int_equal(cna_character_set_time_scale(c, 1e300, &err), CNA_OK);
    assert_int_equal(cna_character_advance(c, 1e300, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "advance: 1e+300 s at time scale 1e+300 is not finite");
    assert_int_equal(cna_character_seek(c, NAN, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_true(cna_character_position(c) == 500000);
    assert_int_equal(cna_character_set_loop_mode(c, (cna_loop_mode)9, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "loop mode: 9 is not a cna_loop_mode");
    assert_int_equal(cna_character_play(c, 14, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "animation 14 is outside -1..13");
    assert_int_equal(cna_character_animation(c), 10);
    /* the rest pose has no clock */
    assert_int_equal(cna_character_play(c, -1, &err), CNA_OK);
    assert_int_equal(cna_character_advance(c, 3.0, &err), CNA_OK);
    assert_true(cna_character_position(c) == 0 && cna_character_duration(c) == 0);
    cna_character_free(c);
    cna_model_free(m);
}

/* ------------------------------------------------------------------ moving prefixes vs the glTF formula */

/* Double-precision 4x4 helpers, column-major, independent of the library. */
typedef struct dmat { double m[16]; } dmat;

static dmat dmul(dmat a, dmat b)
{
    dmat o;
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) {
            double s = 0;
            for (int k = 0; k < 4; k++) s += a.m[k * 4 + r] * b.m[c * 4 + k];
            o.m[c * 4 + r] = s;
        }
    return o;
}

/* T(t) · Rz(deg) · S(s) */
static dmat dtrs(double tx, double ty, double tz, double deg, double s)
{
    const double a = deg * 3.14159265358979323846 / 180.0;
    dmat o = {{0}};
    o.m[0] = cos(a) * s;
    o.m[1] = sin(a) * s;
    o.m[4] = -sin(a) * s;
    o.m[5] = cos(a) * s;
    o.m[10] = s;
    o.m[12] = tx;
    o.m[13] = ty;
    o.m[14] = tz;
    o.m[15] = 1;
    return o;
}

/* Rigid inverse of T · Rz · S (uniform s). */
static dmat dinv_trs(double tx, double ty, double tz, double deg, double s)
{
    dmat r = dtrs(0, 0, 0, -deg, 1.0 / s);
    dmat t = dtrs(-tx, -ty, -tz, 0, 1);
    return dmul(r, t);
}

/* Piecewise-linear value of keys (t_i, v_i) at time t, held outside. */
static double keyed(const double *kt, const double *kv, int n, double t)
{
    if (t <= kt[0]) return kv[0];
    for (int i = 0; i + 1 < n; i++)
        if (t <= kt[i + 1]) return kv[i] + (kv[i + 1] - kv[i]) * (t - kt[i]) / (kt[i + 1] - kt[i]);
    return kv[n - 1];
}

/* The model-space positions the glTF formula gives for the fixture's
 * triangle ((0,0,0), (1,0,0), (0,1,0); joints (0, 1), weights (0.5, 0.5),
 * (1, 0), (0.25, 0.75)) given the two joints' worlds and inverse binds. */
static void gltf_positions(dmat w0, dmat ibm0, dmat w1, dmat ibm1, double out[3][3])
{
    static const double pos[3][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    static const double wt[3][2] = {{0.5, 0.5}, {1, 0}, {0.25, 0.75}};
    dmat j0 = dmul(w0, ibm0), j1 = dmul(w1, ibm1);
    for (int v = 0; v < 3; v++)
        for (int r = 0; r < 3; r++) {
            double a = j0.m[12 + r], b = j1.m[12 + r];
            for (int k = 0; k < 3; k++) {
                a += j0.m[k * 4 + r] * pos[v][k];
                b += j1.m[k * 4 + r] * pos[v][k];
            }
            out[v][r] = wt[v][0] * a + wt[v][1] * b;
        }
}

/* What the character draws for mesh `mesh`: absolute[mesh node] · sum w · palette[j] · p. */
static void drawn_positions(const cna_model *m, const cna_character *c, size_t mesh, double out[3][3])
{
    const cna_model_mesh *me = &m->meshes[mesh];
    const cna_model_part *part = &me->parts[0];
    assert_int_equal(part->vertex_count, 3);
    const cna_mat4 *palette = cna_character_skin_transforms(c, (size_t)me->skin);
    const cna_mat4 *world = cna_character_absolute_transform(c, (size_t)me->parent_bone);
    const cna_vertex_element *pe = cna_vertex_declaration_find(&part->declaration, CNA_VERTEX_USAGE_POSITION, 0);
    const cna_vertex_element *je = cna_vertex_declaration_find(&part->declaration, CNA_VERTEX_USAGE_BLEND_INDICES, 0);
    const cna_vertex_element *we = cna_vertex_declaration_find(&part->declaration, CNA_VERTEX_USAGE_BLEND_WEIGHTS, 0);
    assert_non_null(pe);
    assert_non_null(je);
    assert_non_null(we);
    for (size_t v = 0; v < 3; v++) {
        const unsigned char *vb = (const unsigned char *)part->vertices + v * part->declaration.stride;
        float p[3], w[4];
        uint8_t j[4];
        memcpy(p, vb + pe->offset, sizeof p);
        memcpy(j, vb + je->offset, sizeof j);
        memcpy(w, vb + we->offset, sizeof w);
        double skinned[3] = {0, 0, 0};
        for (int i = 0; i < 4; i++) {
            if (w[i] == 0.0f) continue;
            const float *s = palette[j[i]].m;
            for (int r = 0; r < 3; r++)
                skinned[r] += w[i] * (s[r] * p[0] + s[4 + r] * p[1] + s[8 + r] * p[2] + s[12 + r]);
        }
        for (int r = 0; r < 3; r++)
            out[v][r] = world->m[r] * skinned[0] + world->m[4 + r] * skinned[1] + world->m[8 + r] * skinned[2] +
                        world->m[12 + r];
    }
}

static void assert_positions_near(double got[3][3], double expect[3][3], double tol, const char *what, double t)
{
    for (int v = 0; v < 3; v++)
        for (int r = 0; r < 3; r++)
            if (fabs(got[v][r] - expect[v][r]) > tol)
                fail_msg("%s at %.3f s: vertex %d[%d] = %.7f, glTF gives %.7f", what, t, v, r, got[v][r],
                         expect[v][r]);
}

static const double TIMES[] = {0.0, 0.25, 0.5, 1.0, 1.3, 1.75, 2.0, 2.5};
#define TIME_COUNT (sizeof TIMES / sizeof TIMES[0])

static cna_character *fixture_character(const char *rel, cna_model **model)
{
    *model = load(rel, CNA_CLIP_MODE_FAITHFUL);
    cna_character *c = make(*model);
    cna_error err;
    assert_int_equal(cna_character_set_loop_mode(c, CNA_LOOP_MODE_ONCE, &err), CNA_OK);
    assert_int_equal(cna_character_play(c, 0, &err), CNA_OK);
    return c;
}

static void root_under_an_animated_node_matches_the_gltf_formula(void **state)
{
    (void)state;
    cna_model *m;
    cna_character *c = fixture_character("fixtures/skin-animated-ancestor.gltf", &m);
    assert_true(cna_character_skin_has_moving_prefix(c, 0));
    assert_null(cna_model_find_diagnostic(m, "skin-ancestor-animated")); /* no longer a limitation */
    const double arm_t[] = {0, 1, 2}, arm_r[] = {90, 120, 60}, tx_t[] = {0, 2}, tx[] = {1, 3};
    const double tip_t[] = {0, 1, 2}, tip_r[] = {0, 45, 0};
    /* inverse binds: the rest worlds */
    const dmat ibm0 = dmul(dinv_trs(0, 1, 0, 0, 1), dinv_trs(1, 2, 3, 90, 2));
    const dmat ibm1 = dmul(dinv_trs(0, 1, 0, 0, 1), ibm0);
    for (size_t i = 0; i < TIME_COUNT; i++) {
        const double t = TIMES[i];
        assert_int_equal(cna_character_seek(c, t, NULL), CNA_OK);
        assert_int_equal(cna_character_pose(c, NULL), CNA_OK);
        dmat arm = dtrs(keyed(tx_t, tx, 2, t), 2, 3, keyed(arm_t, arm_r, 3, t), 2);
        dmat w0 = dmul(arm, dtrs(0, 1, 0, 0, 1));
        dmat w1 = dmul(w0, dtrs(0, 1, 0, keyed(tip_t, tip_r, 3, t), 1));
        double expect[3][3], got[3][3];
        gltf_positions(w0, ibm0, w1, ibm1, expect);
        drawn_positions(m, c, 0, got);
        assert_positions_near(got, expect, 1e-5 * m->size, "animated ancestor", t);
    }
    cna_character_free(c);
    cna_model_free(m);
}

static void nested_skeletons_match_the_gltf_formula(void **state)
{
    (void)state;
    cna_model *m;
    cna_character *c = fixture_character("fixtures/skin-nested.gltf", &m);
    assert_int_equal(m->skin_count, 2);
    /* skin B (instanced by MeshB) hangs under joint A1 of skin A */
    size_t skin_a = 0, skin_b = 1;
    if (strcmp(m->bones[m->skins[0].mesh_node].name, "MeshB") == 0) skin_a = 1, skin_b = 0;
    assert_false(cna_character_skin_has_moving_prefix(c, skin_a));
    assert_true(cna_character_skin_has_moving_prefix(c, skin_b));
    size_t mesh_a = (size_t)m->skins[skin_a].meshes[0], mesh_b = (size_t)m->skins[skin_b].meshes[0];
    const double a1_t[] = {0, 1, 2}, a1_r[] = {0, 30, -30}, a0_t[] = {0, 2}, a0_x[] = {0, 1};
    const double b1_t[] = {0, 1, 2}, b1_r[] = {0, 90, 45};
    const dmat ibm_a0 = dinv_trs(0, 0, 0, 0, 1), ibm_a1 = dinv_trs(0, 1, 0, 0, 1);
    const dmat ibm_b0 = dinv_trs(0, 2, 0, 0, 1), ibm_b1 = dinv_trs(1, 2, 0, 0, 1);
    for (size_t i = 0; i < TIME_COUNT; i++) {
        const double t = TIMES[i];
        assert_int_equal(cna_character_seek(c, t, NULL), CNA_OK);
        assert_int_equal(cna_character_pose(c, NULL), CNA_OK);
        dmat wa0 = dtrs(keyed(a0_t, a0_x, 2, t), 0, 0, 0, 1);
        dmat wa1 = dmul(wa0, dtrs(0, 1, 0, keyed(a1_t, a1_r, 3, t), 1));
        dmat wb0 = dmul(wa1, dtrs(0, 1, 0, 0, 1));
        dmat wb1 = dmul(wb0, dtrs(1, 0, 0, keyed(b1_t, b1_r, 3, t), 1));
        double expect[3][3], got[3][3];
        gltf_positions(wa0, ibm_a0, wa1, ibm_a1, expect);
        drawn_positions(m, c, mesh_a, got);
        assert_positions_near(got, expect, 1e-5 * m->size, "nested: skin A", t);
        gltf_positions(wb0, ibm_b0, wb1, ibm_b1, expect);
        drawn_positions(m, c, mesh_b, got);
        assert_positions_near(got, expect, 1e-5 * m->size, "nested: skin B", t);
    }
    cna_character_free(c);
    cna_model_free(m);
}

static void an_animated_skinned_mesh_node_does_not_move_its_vertices(void **state)
{
    (void)state;
    cna_model *m;
    cna_character *c = fixture_character("fixtures/skin-animated-mesh-node.gltf", &m);
    assert_true(cna_character_skin_has_moving_prefix(c, 0));
    const double tip_t[] = {0, 1, 2}, tip_r[] = {0, 60, 0};
    const dmat ibm0 = dinv_trs(0, 0, 0, 0, 1), ibm1 = dinv_trs(0, 1, 0, 0, 1);
    for (size_t i = 0; i < TIME_COUNT; i++) {
        const double t = TIMES[i];
        assert_int_equal(cna_character_seek(c, t, NULL), CNA_OK);
        assert_int_equal(cna_character_pose(c, NULL), CNA_OK);
        dmat w0 = dtrs(0, 0, 0, 0, 1);
        dmat w1 = dmul(w0, dtrs(0, 1, 0, keyed(tip_t, tip_r, 3, t), 1));
        double expect[3][3], got[3][3];
        gltf_positions(w0, ibm0, w1, ibm1, expect);
        drawn_positions(m, c, 0, got);
        assert_positions_near(got, expect, 1e-5 * m->size, "animated mesh node", t);
    }
    cna_character_free(c);
    cna_model_free(m);
}

/* ------------------------------------------------------------------ names, spec operations */

static void names_find_joints_bones_and_animations(void **state)
{
    (void)state;
    cna_model *m = load(ROBOT, CNA_CLIP_MODE_FAITHFUL);
    cna_error err;
    const int32_t hand = cna_model_find_bone(m, "Foot.L");
    assert_true(hand >= 0);
    assert_true(m->skins[0].node_to_palette[hand] >= 0); /* the joint, not the mesh node of the same name */
    int32_t palette = -9, bone = -9;
    assert_int_equal(cna_model_find_joint(m, 0, "Foot.L", &palette, &bone, &err), CNA_OK);
    assert_int_equal(bone, hand);
    assert_int_equal(m->skins[0].palette_to_node[palette], hand);
    assert_int_equal(cna_model_find_joint(m, 0, "Foot.X", &palette, &bone, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "skins[0]: no joint named \"Foot.X\"");
    assert_int_equal(bone, hand);
    size_t index = 99;
    assert_int_equal(cna_model_find_animation(m, "Robot_Walking", &index, &err), CNA_OK);
    assert_int_equal(index, 10);
    assert_string_equal(cna_model_animation_name(m, index), "Robot_Walking");
    assert_int_equal(cna_model_find_animation(m, "3", &index, &err), CNA_OK);
    assert_int_equal(index, 3);
    assert_int_equal(cna_model_find_animation(m, "Jump!", &index, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "animation \"Jump!\": no such animation (the model has 14)");
    assert_int_equal(cna_model_find_animation(m, "14", &index, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(index, 3);
    assert_null(cna_model_animation_name(m, 14));
    cna_model_free(m);
}

static void apply_clip_to_bones_and_set_morph_weights_on_a_character(void **state)
{
    (void)state;
    cna_model *m = load("corpus/valid/BoxAnimated/box_animated.gltf", CNA_CLIP_MODE_FAITHFUL);
    const uint64_t before = cna__model_checksum(m);
    cna_character *c = make(m);
    cna_error err;
    const cna_clip *clip = &m->node_clips[0];
    assert_int_equal(cna_character_apply_clip_to_bones(c, clip, 1.5, &err), CNA_OK);
    reference ref;
    reference_pose(m, 0, cna_ticks_from_seconds(1.5), &ref);
    for (size_t b = 0; b < m->bone_count; b++)
        assert_memory_equal(cna_character_absolute_transform(c, b), &ref.absolute[b], sizeof(cna_mat4));
    reference_free(&ref);
    /* clamped past the end */
    assert_int_equal(cna_character_apply_clip_to_bones(c, clip, 1e9, &err), CNA_OK);
    reference_pose(m, 0, clip->duration, &ref);
    for (size_t b = 0; b < m->bone_count; b++)
        assert_memory_equal(cna_character_bone_transform(c, b), &ref.local[b], sizeof(cna_mat4));
    reference_free(&ref);
    /* a pose starts from rest again */
    assert_int_equal(cna_character_pose(c, &err), CNA_OK);
    check_against_reference(m, c, -1, 0, "box after a pose");
    cna_clip palette_clip = *clip;
    palette_clip.target = CNA_CLIP_TARGET_JOINT_PALETTE;
    palette_clip.name = "Walk";
    assert_int_equal(cna_character_apply_clip_to_bones(c, &palette_clip, 0.0, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message,
                        "clip \"Walk\": target joint-palette is not a scene-node clip; play it with a cna_player");
    assert_int_equal(cna_character_apply_clip_to_bones(c, clip, NAN, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(cna_character_set_morph_weights(c, 0, 0, NULL, 0, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "meshes[0] \"outer_box\".parts[0]: no morph targets");
    cna_character_free(c);
    assert_true(cna__model_checksum(m) == before);
    cna_model_free(m);

    m = load("corpus/valid/AnimatedMorphCube/AnimatedMorphCube.gltf", CNA_CLIP_MODE_FAITHFUL);
    c = make(m);
    const uint64_t r0 = cna_character_part_revision(c, 0, 0);
    const float same[2] = {0.0f, 0.0f}, other[2] = {0.25f, 1.0f}, bad[1] = {1.0f};
    assert_int_equal(cna_character_set_morph_weights(c, 0, 0, same, 2, &err), CNA_OK);
    assert_true(cna_character_part_revision(c, 0, 0) == r0); /* unchanged: no blend */
    assert_int_equal(cna_character_set_morph_weights(c, 0, 0, other, 2, &err), CNA_OK);
    assert_true(cna_character_part_revision(c, 0, 0) == r0 + 1);
    size_t n = 0;
    assert_memory_equal(cna_character_morph_weights(c, 0, 0, &n), other, sizeof other);
    assert_int_equal(cna_character_set_morph_weights(c, 0, 0, bad, 1, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "weights: 1 given for 2 targets; exactly 2 are required (no padding, no truncation)");
    assert_true(cna_character_part_revision(c, 0, 0) == r0 + 1);
    assert_int_equal(cna_character_set_morph_weights(c, 1, 0, other, 2, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "meshes[1]: outside the model's 1 meshes");
    cna_character_free(c);
    cna_model_free(m);
}

/* absolute[b] = absolute[parent] · local[b] over every bone, from `local`. */
static void absolutes_by_hand(const cna_model *m, const cna_mat4 *local, cna_mat4 *absolute)
{
    for (size_t b = 0; b < m->bone_count; b++) {
        const int32_t parent = m->bones[b].parent;
        if (parent >= 0) cna_mat4_mul(&absolute[b], &absolute[parent], &local[b]);
        else absolute[b] = local[b];
    }
}

/* A scene-node clip applied to the joints of a skeleton whose absolute
 * transforms the pose reads from its player (RobotExpressive), to the bone
 * above its root joint and to a mesh node: each bone takes the clip's local
 * (the others keep the last pose's), every absolute transform follows from
 * them, the palettes and joint worlds stay; a second clip leaves the first's
 * bones as it set them; the next pose is the animation's again. */
static void apply_clip_to_bones_moves_the_joints_of_a_posed_skeleton(void **state)
{
    (void)state;
    cna_model *m = load(ROBOT, CNA_CLIP_MODE_FAITHFUL);
    cna_character *c = make(m);
    cna_error err;
    size_t walk = 0;
    assert_int_equal(cna_model_find_animation(m, "Robot_Walking", &walk, &err), CNA_OK);
    assert_int_equal(cna_character_play(c, (long)walk, &err), CNA_OK);
    assert_int_equal(cna_character_seek(c, 0.4, &err), CNA_OK);
    assert_int_equal(cna_character_pose(c, &err), CNA_OK);
    const cna_model_skin *skin = &m->skins[0];
    const size_t n = m->bone_count, jn = skin->joint_count * sizeof(cna_mat4);
    cna_mat4 *local = calloc(n, sizeof(cna_mat4)), *absolute = calloc(n, sizeof(cna_mat4));
    cna_mat4 *palette = malloc(jn), *world = malloc(jn);
    assert_non_null(local);
    assert_non_null(absolute);
    assert_non_null(palette);
    assert_non_null(world);
    memcpy(palette, cna_character_skin_transforms(c, 0), jn);
    memcpy(world, cna_character_world_transforms(c, 0), jn);
    for (size_t b = 0; b < n; b++) local[b] = *cna_character_bone_transform(c, b);
    int32_t foot_palette = -1, foot = -1;
    assert_int_equal(cna_model_find_joint(m, 0, "Foot.L", &foot_palette, &foot, &err), CNA_OK);
    const int32_t root = skin->palette_to_node[skin->roots[0]];
    const int32_t above = m->bones[root].parent;
    assert_true(above >= 0);
    const int32_t bones[4] = {foot, root, above, skin->mesh_node};
    cna_keyframe keys[4][2];
    cna_bone_track tracks[4];
    for (int i = 0; i < 4; i++) {
        const float f = (float)(i + 1);
        keys[i][0] = cna_keyframe_make_trs(0, cna_vec3_make(0.1f * f, 0.0f, 0.0f), cna_quat_make(0.0f, 0.0f, 0.0f, 1.0f),
                                           cna_vec3_make(1.0f, 1.0f, 1.0f));
        keys[i][1] = cna_keyframe_make_trs(cna_ticks_from_seconds(1.0), cna_vec3_make(0.0f, 0.2f * f, 0.0f),
                                           cna_quat_make(0.0f, 0.6f, 0.0f, 0.8f), cna_vec3_make(1.0f, 1.5f, 1.0f));
        tracks[i] = cna_bone_track_make(bones[i], keys[i], 2);
    }
    cna_clip clip = cna_clip_make("moves", cna_ticks_from_seconds(1.0), tracks, 4);
    clip.target = CNA_CLIP_TARGET_SCENE_NODE;
    for (int pass = 0; pass < 2; pass++) {
        /* the first application sets all four bones, the second only the foot */
        clip.track_count = pass == 0 ? 4 : 1;
        const double at = pass == 0 ? 0.25 : 0.75;
        assert_int_equal(cna_character_apply_clip_to_bones(c, &clip, at, &err), CNA_OK);
        for (size_t i = 0; i < clip.track_count; i++) {
            cna_keyframe k;
            cna_track_sample_linear(&tracks[i], cna_ticks_from_seconds(at), &k);
            cna_mat4_compose(&local[tracks[i].bone], k.translation, k.rotation, k.scale);
        }
        absolutes_by_hand(m, local, absolute);
        for (size_t b = 0; b < n; b++) {
            if (memcmp(cna_character_bone_transform(c, b), &local[b], sizeof(cna_mat4)) != 0)
                fail_msg("application %d: bone %zu's local transform differs", pass, b);
            if (memcmp(cna_character_absolute_transform(c, b), &absolute[b], sizeof(cna_mat4)) != 0)
                fail_msg("application %d: bone %zu's absolute transform differs", pass, b);
        }
        cna_mat4 *copy = calloc(n, sizeof(cna_mat4));
        assert_non_null(copy);
        assert_int_equal(cna_character_copy_absolute_transforms(c, copy, n, &err), CNA_OK);
        assert_memory_equal(copy, absolute, n * sizeof(cna_mat4));
        free(copy);
        assert_memory_equal(cna_character_skin_transforms(c, 0), palette, jn);
        assert_memory_equal(cna_character_world_transforms(c, 0), world, jn);
    }
    assert_int_equal(cna_character_pose(c, &err), CNA_OK);
    check_against_reference(m, c, (long)walk, cna_character_position(c), "robot after a pose");
    free(local);
    free(absolute);
    free(palette);
    free(world);
    cna_character_free(c);
    cna_model_free(m);
}

static void null_arguments_are_refused_or_answered_empty(void **state)
{
    (void)state;
    cna_error err;
    cna_character *c = (cna_character *)0x1;
    assert_int_equal(cna_character_create(NULL, NULL, &c, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "character: model is NULL");
    assert_ptr_equal(c, (cna_character *)0x1);
    assert_int_equal(cna_character_pose(NULL, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(cna_character_play(NULL, 0, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(cna_character_advance(NULL, 1.0, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_null(cna_character_absolute_transform(NULL, 0));
    cna_mat4 one;
    assert_int_equal(cna_character_copy_absolute_transforms(NULL, &one, 1, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "copy_absolute_transforms: NULL character");
    assert_null(cna_character_skin_transforms(NULL, 0));
    assert_null(cna_character_part_vertices(NULL, 0, 0, NULL));
    assert_int_equal(cna_character_size_bytes(NULL), 0);
    assert_int_equal(cna_character_animation(NULL), -1);
    cna_character_free(NULL);
}

/* The player composes the roots with a prefix handed to it. */
static void a_player_composes_with_the_prefix_it_is_handed(void **state)
{
    (void)state;
    const int32_t parents[2] = {-1, 0};
    cna_mat4 bind[2], ibm[2], prefix[2], other[2];
    cna_mat4_identity(&bind[0]);
    cna_mat4_compose(&bind[1], cna_vec3_make(0, 1, 0), cna_quat_identity(), cna_vec3_one());
    cna_mat4_identity(&ibm[0]);
    cna_mat4_identity(&ibm[1]);
    cna_mat4_compose(&prefix[0], cna_vec3_make(5, 0, 0), cna_quat_identity(), cna_vec3_one());
    cna_mat4_identity(&prefix[1]);
    cna_mat4_compose(&other[0], cna_vec3_make(0, 0, 7), cna_quat_identity(), cna_vec3_one());
    cna_mat4_identity(&other[1]);
    cna_skinning_data d = cna_skinning_data_make(2, parents, bind, ibm);
    d.root_prefix = prefix;
    d.root_prefix_count = 2;
    cna_player *p = NULL;
    cna_error err;
    assert_int_equal(cna_player_create(&d, NULL, &p, &err), CNA_OK);
    assert_ptr_equal(cna_player_root_prefix(p), prefix);
    assert_true(cna_player_world_transforms(p)[1].m[12] == 5.0f);
    assert_int_equal(cna_player_set_root_prefix(p, other, 3, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "root prefix: 3 matrices for a player of 2 bones");
    assert_int_equal(cna_player_set_root_prefix(p, other, 2, &err), CNA_OK);
    assert_int_equal(cna_player_update(p, 0, false, false, &err), CNA_OK);
    assert_true(cna_player_world_transforms(p)[1].m[12] == 0.0f && cna_player_world_transforms(p)[1].m[14] == 7.0f);
    assert_true(cna_player_world_transforms(p)[1].m[13] == 1.0f);
    assert_int_equal(cna_player_set_root_prefix(p, NULL, 0, &err), CNA_OK);
    assert_int_equal(cna_player_update(p, 0, false, false, &err), CNA_OK);
    assert_true(cna_player_world_transforms(p)[1].m[12] == 5.0f && cna_player_world_transforms(p)[1].m[14] == 0.0f);
    cna_player_free(p);
}

int cna_test_ik_run(void); /* ik_cases.c: the pose edit and the IK solvers */

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(poses_bit_for_bit_like_the_steps_by_hand_on_every_model),
        cmocka_unit_test(robot_skins_share_one_evaluation_and_a_character_is_small),
        cmocka_unit_test(a_robot_character_costs_at_most_16_kb),
        cmocka_unit_test(two_instances_share_the_evaluation_but_not_the_palette),
        cmocka_unit_test(two_characters_pose_independently_in_any_order),
        cmocka_unit_test(characters_on_two_threads_equal_one_thread),
        cmocka_unit_test(creating_allocates_everything_posing_nothing),
        cmocka_unit_test(a_character_of_a_hand_filled_copy_poses_as_the_shared_rig),
        cmocka_unit_test(repeat_over_ten_million_frames_is_the_floor_mod_of_the_summed_ticks),
        cmocka_unit_test(ping_pong_over_a_million_frames_matches_integer_arithmetic),
        cmocka_unit_test(once_clamps_and_the_time_scale_scales_and_reverses),
        cmocka_unit_test(root_under_an_animated_node_matches_the_gltf_formula),
        cmocka_unit_test(nested_skeletons_match_the_gltf_formula),
        cmocka_unit_test(an_animated_skinned_mesh_node_does_not_move_its_vertices),
        cmocka_unit_test(names_find_joints_bones_and_animations),
        cmocka_unit_test(apply_clip_to_bones_and_set_morph_weights_on_a_character),
        cmocka_unit_test(apply_clip_to_bones_moves_the_joints_of_a_posed_skeleton),
        cmocka_unit_test(null_arguments_are_refused_or_answered_empty),
        cmocka_unit_test(a_player_composes_with_the_prefix_it_is_handed),
    };
    const int failed = cmocka_run_group_tests(tests, NULL, NULL);
    return failed + cna_test_ik_run();
}
