/*
 * The .cnb binary model: parity with the glTF import on every valid corpus
 * model (equal models, equal poses at every oracle sample time), unit scale,
 * and hostile files (truncation, bit flips, structural corruption with a
 * recomputed checksum) refused cleanly.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "baked/cnb_internal.h"
#include "cnb_test.h"

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *t = malloc((size_t)n + 1);
    assert_non_null(t);
    assert_int_equal(fread(t, 1, (size_t)n, f), (size_t)n);
    t[n] = 0;
    fclose(f);
    return t;
}

/* ------------------------------------------------------------------ parity */

static void baked_model_equals_imported_model_for_every_corpus_model(void **state)
{
    (void)state;
    for (int mode = CNA_CLIP_MODE_FAITHFUL; mode <= CNA_CLIP_MODE_UNION; mode++) {
        for (size_t i = 0; i < CNB_CORPUS_COUNT; i++) {
            cna_model *a = cnb_test_import(&cnb_corpus[i], (cna_clip_mode)mode);
            size_t size = 0;
            void *bytes = cnb_test_bake(a, 0.0f, &size);
            cna_model *b = cnb_test_load(bytes, size);
            cnb_same_model(a, b);
            /* A second bake of the loaded model is the same file. */
            size_t size2 = 0;
            void *bytes2 = cnb_test_bake(b, 1.0f, &size2);
            assert_int_equal(size, size2);
            assert_memory_equal(bytes, bytes2, size);
            free(bytes2);
            free(bytes);
            cna_model_free(b);
            cna_model_free(a);
        }
    }
}

static void baked_file_loads_like_memory(void **state)
{
    (void)state;
    cna_model *a = cnb_test_import(&cnb_corpus[5], CNA_CLIP_MODE_FAITHFUL);
    char path[1024];
    snprintf(path, sizeof path, "%s/test_cnb_robot.cnb", CNA_BINARY_DIR);
    cna_error err;
    assert_int_equal(cna_cnb_write_file(a, NULL, path, &err), CNA_OK);
    cna_model *b = NULL;
    assert_int_equal(cna_cnb_load_file(path, NULL, &b, &err), CNA_OK);
    cnb_same_model(a, b);
    cna_model_free(b);
    remove(path);
    cna_model_free(a);
}

/* Every sample time of every animation of the model's oracle, plus the rest pose. */
static void same_pose_at_every_oracle_time(const cnb_corpus_entry *e)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/oracle/%s.json", CNA_TEST_DATA_DIR, e->name);
    char *text = read_text(path);
    cJSON *oracle = cJSON_Parse(text);
    assert_non_null(oracle);
    cna_model *a = cnb_test_import(e, CNA_CLIP_MODE_FAITHFUL);
    size_t size = 0;
    void *bytes = cnb_test_bake(a, 0.0f, &size);
    cna_model *b = cnb_test_load(bytes, size);
    const cJSON *anims = cJSON_GetObjectItemCaseSensitive(oracle, "animations");
    long count = 0;
    for (long anim = -1; anim < (long)a->animation_count; anim++) {
        const cJSON *samples = NULL;
        if (anim >= 0) {
            const cJSON *an = cJSON_GetArrayItem(anims, (int)anim);
            samples = cJSON_GetObjectItemCaseSensitive(an, "samples");
        }
        int n = anim < 0 ? 1 : cJSON_GetArraySize(samples);
        for (int s = 0; s < n; s++) {
            double t = anim < 0 ? 0.0 : cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(samples, s), "t")->valuedouble;
            cnb_pose pa, pb;
            cnb_pose_model(a, anim, t, &pa);
            cnb_pose_model(b, anim, t, &pb);
            assert_memory_equal(pa.absolute, pb.absolute, a->bone_count * sizeof(cna_mat4));
            assert_int_equal(pa.skin_matrices, pb.skin_matrices);
            assert_memory_equal(pa.skin, pb.skin, pa.skin_matrices * sizeof(cna_mat4));
            assert_int_equal(pa.position_count, pb.position_count);
            assert_memory_equal(pa.positions, pb.positions, pa.position_count * sizeof(float));
            cnb_pose_free(&pa);
            cnb_pose_free(&pb);
            count++;
        }
    }
    assert_true(count >= 1);
    cna_model_free(b);
    free(bytes);
    cna_model_free(a);
    cJSON_Delete(oracle);
    free(text);
}

static void baked_model_poses_like_imported_model_at_every_oracle_time(void **state)
{
    (void)state;
    for (size_t i = 0; i < CNB_CORPUS_COUNT; i++) {
        if (strcmp(cnb_corpus[i].name, "Triangle") == 0) continue; /* no oracle: no animation */
        same_pose_at_every_oracle_time(&cnb_corpus[i]);
    }
}

/* ------------------------------------------------------------------ unit scale */

static void unit_scale_scales_every_pose_position_and_leaves_rotations(void **state)
{
    (void)state;
    const float s = 0.01f;
    const size_t models[] = {5, 7, 0, 1}; /* RobotExpressive, SimpleSkin, AnimatedMorphCube, BoxAnimated */
    for (size_t mi = 0; mi < sizeof models / sizeof models[0]; mi++) {
        cna_model *a = cnb_test_import(&cnb_corpus[models[mi]], CNA_CLIP_MODE_FAITHFUL);
        size_t size = 0;
        void *bytes = cnb_test_bake(a, s, &size);
        cna_model *b = cnb_test_load(bytes, size);
        for (long anim = -1; anim < (long)a->animation_count; anim++) {
            double dur = anim < 0 ? 0.0 : cna_ticks_to_seconds(a->node_clips[anim].duration);
            for (int q = 0; q <= 4; q++) {
                double t = dur * q / 4.0;
                cnb_pose pa, pb;
                cnb_pose_model(a, anim, t, &pa);
                cnb_pose_model(b, anim, t, &pb);
                double extent = 1.0;
                for (size_t i = 0; i < pa.position_count; i++)
                    if (fabs(pa.positions[i]) > extent) extent = fabs(pa.positions[i]);
                for (size_t i = 0; i < a->bone_count; i++)
                    for (int k = 12; k < 15; k++)
                        if (fabs(pa.absolute[i].m[k]) > extent) extent = fabs(pa.absolute[i].m[k]);
                const double tol = 2e-6 * extent * s;
                for (size_t i = 0; i < pa.position_count; i++) {
                    double d = fabs((double)pb.positions[i] - (double)s * pa.positions[i]);
                    if (!(d <= tol)) print_error("%s: position %zu: %.9g vs %.9g\n", cnb_corpus[models[mi]].name, i,
                                                 (double)pb.positions[i], (double)s * pa.positions[i]);
                    assert_true(d <= tol);
                }
                for (size_t i = 0; i < a->bone_count; i++) {
                    for (int k = 0; k < 12; k++) /* rotation and scale columns unchanged */
                        assert_true(fabs((double)pb.absolute[i].m[k] - pa.absolute[i].m[k]) <= 1e-5);
                    for (int k = 12; k < 15; k++)
                        assert_true(fabs((double)pb.absolute[i].m[k] - (double)s * pa.absolute[i].m[k]) <= tol);
                }
                cnb_pose_free(&pa);
                cnb_pose_free(&pb);
            }
        }
        free(bytes);
        cna_model_free(b);
        cna_model_free(a);
    }
}

static void unit_scale_must_be_positive_and_finite(void **state)
{
    (void)state;
    cna_model *a = cnb_test_import(&cnb_corpus[8], CNA_CLIP_MODE_FAITHFUL);
    cna_cnb_write_options o;
    memset(&o, 0, sizeof o);
    o.unit_scale = -1.0f;
    void *bytes = NULL;
    size_t size = 0;
    cna_error err;
    assert_int_equal(cna_cnb_write_memory(a, &o, &bytes, &size, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "cnb write: unit_scale -1 is not a positive finite number");
    assert_null(bytes);
    cna_model_free(a);
}

/* ------------------------------------------------------------------ hostile files */

static void refix_checksum(unsigned char *f, size_t size)
{
    if (size < CNA__CNB_HEADER_SIZE || size % 8) return;
    uint64_t h = cna__cnb_checksum(f, size);
    memcpy(f + CNA__CNB_OFF_CHECKSUM, &h, 8);
}

static cna_result try_load(const unsigned char *bytes, size_t size, cna_error *err)
{
    cna_model *m = NULL;
    cna_result r = cna_cnb_load_memory(bytes, size, NULL, &m, err);
    if (r == CNA_OK) {
        assert_non_null(m);
        cna_model_free(m);
    } else {
        assert_null(m);
        assert_true(err->message[0] != 0);
    }
    return r;
}

static void truncated_files_are_refused(void **state)
{
    (void)state;
    for (size_t i = 0; i < CNB_CORPUS_COUNT; i++) {
        cna_model *a = cnb_test_import(&cnb_corpus[i], CNA_CLIP_MODE_FAITHFUL);
        size_t size = 0;
        unsigned char *bytes = cnb_test_bake(a, 0.0f, &size);
        unsigned char *copy = malloc(size);
        assert_non_null(copy);
        size_t step = size > 20000 ? 509 : 1;
        for (size_t len = 0; len < size; len += step) {
            cna_error err;
            /* As cut: the header's total_size catches it. */
            assert_int_not_equal(try_load(bytes, len, &err), CNA_OK);
            /* Header patched to the cut length with a valid checksum: the section table
             * and references must catch it. */
            memcpy(copy, bytes, len);
            if (len >= CNA__CNB_HEADER_SIZE && len % 8 == 0) {
                uint64_t total = len;
                memcpy(copy + CNA__CNB_OFF_TOTAL_SIZE, &total, 8);
                refix_checksum(copy, len);
                cna_result r = try_load(copy, len, &err);
                if (r == CNA_OK) print_error("%s: cut at %zu accepted\n", cnb_corpus[i].name, len);
                assert_int_not_equal(r, CNA_OK);
            }
        }
        free(copy);
        free(bytes);
        cna_model_free(a);
    }
}

static void every_bit_flip_is_caught_by_the_checksum(void **state)
{
    (void)state;
    const size_t models[] = {7, 0, 8};
    for (size_t mi = 0; mi < sizeof models / sizeof models[0]; mi++) {
        cna_model *a = cnb_test_import(&cnb_corpus[models[mi]], CNA_CLIP_MODE_FAITHFUL);
        size_t size = 0;
        unsigned char *bytes = cnb_test_bake(a, 0.0f, &size);
        for (size_t i = 0; i < size; i++) {
            bytes[i] ^= (unsigned char)(1u << (i % 8));
            cna_error err;
            cna_result r = try_load(bytes, size, &err);
            if (r == CNA_OK) print_error("flip at byte %zu accepted\n", i);
            assert_int_not_equal(r, CNA_OK);
            bytes[i] ^= (unsigned char)(1u << (i % 8));
        }
        free(bytes);
        cna_model_free(a);
    }
}

/* The offset and size of a section of a baked file. */
static void section_at(const unsigned char *bytes, int id, uint64_t *off, uint64_t *size)
{
    const unsigned char *e = bytes + CNA__CNB_HEADER_SIZE + (size_t)(id - 1) * CNA__CNB_SECTION_ENTRY_SIZE;
    memcpy(off, e + 8, 8);
    memcpy(size, e + 16, 8);
}

/* Corruption that keeps a valid checksum (a hostile writer): every record byte
 * of the structural sections flipped in turn; each load must either refuse
 * cleanly or give a model that frees cleanly (under the sanitizers). */
static void structural_corruption_with_a_valid_checksum_never_crashes(void **state)
{
    (void)state;
    const size_t models[] = {7, 0, 2, 4};
    for (size_t mi = 0; mi < sizeof models / sizeof models[0]; mi++) {
        cna_model *a = cnb_test_import(&cnb_corpus[models[mi]], CNA_CLIP_MODE_FAITHFUL);
        size_t size = 0;
        unsigned char *bytes = cnb_test_bake(a, 0.0f, &size);
        /* The header, the table and every section but the DATA heap's numbers. */
        uint64_t data_off, data_size, fx_off, fx_size;
        section_at(bytes, CNA__CNB_DATA, &data_off, &data_size);
        section_at(bytes, CNA__CNB_EFFECTS, &fx_off, &fx_size);
        size_t refused = 0, accepted = 0;
        for (size_t i = 0; i < size; i++) {
            if (i >= data_off && i < data_off + data_size) continue;
            /* an effect's matrices (from offset 128 of its record) are plain floats */
            if (i >= fx_off && i < fx_off + fx_size && (i - fx_off) % cna__cnb_record_size[CNA__CNB_EFFECTS] >= 128)
                continue;
            if (i >= CNA__CNB_OFF_CHECKSUM && i < CNA__CNB_OFF_CHECKSUM + 8) continue;
            for (int bit = 0; bit < 8; bit += 3) {
                bytes[i] ^= (unsigned char)(1u << bit);
                refix_checksum(bytes, size);
                cna_error err;
                if (try_load(bytes, size, &err) == CNA_OK) accepted++;
                else refused++;
                bytes[i] ^= (unsigned char)(1u << bit);
            }
        }
        refix_checksum(bytes, size);
        assert_true(refused > 0);
        (void)accepted;
        free(bytes);
        cna_model_free(a);
    }
}

static void header_refusals_name_the_field(void **state)
{
    (void)state;
    cna_model *a = cnb_test_import(&cnb_corpus[8], CNA_CLIP_MODE_FAITHFUL);
    size_t size = 0;
    unsigned char *bytes = cnb_test_bake(a, 0.0f, &size);
    cna_error err;
    assert_int_equal(try_load(bytes, 10, &err), CNA_ERROR_PARSE);
    assert_string_equal(err.message, "cnb: 10 bytes; the header needs 64");
    bytes[0] = 'X';
    assert_int_equal(try_load(bytes, size, &err), CNA_ERROR_PARSE);
    assert_string_equal(err.message, "cnb: not a .cnb file (the magic is not \"CNB\\0\")");
    bytes[0] = 'C';
    assert_int_equal(bytes[CNA__CNB_OFF_VERSION], 4);
    bytes[CNA__CNB_OFF_VERSION] = 5;
    assert_int_equal(try_load(bytes, size, &err), CNA_ERROR_UNSUPPORTED);
    assert_string_equal(err.message, "cnb: version 5; this reader reads versions 2 to 4");
    /* a version 4 file labelled 3 or 2 has three sections too many for them: refused */
    bytes[CNA__CNB_OFF_VERSION] = 3;
    refix_checksum(bytes, size);
    assert_int_equal(try_load(bytes, size, &err), CNA_ERROR_INVALID_DATA);
    assert_string_equal(err.message, "cnb: section_count 18 is not 15 (version 3)");
    bytes[CNA__CNB_OFF_VERSION] = 2;
    refix_checksum(bytes, size);
    assert_int_equal(try_load(bytes, size, &err), CNA_ERROR_INVALID_DATA);
    assert_string_equal(err.message, "cnb: section_count 18 is not 15 (version 2)");
    bytes[CNA__CNB_OFF_VERSION] = 4;
    refix_checksum(bytes, size);
    assert_int_equal(try_load(bytes, size - 16, &err), CNA_ERROR_INVALID_DATA);
    char want[128];
    snprintf(want, sizeof want, "cnb: total_size %zu but %zu bytes were given (truncated?)", size, size - 16);
    assert_string_equal(err.message, want);
    bytes[size - 1] ^= 1;
    assert_int_equal(try_load(bytes, size, &err), CNA_ERROR_INVALID_DATA);
    assert_true(strncmp(err.message, "cnb: checksum 0x", 16) == 0);
    bytes[size - 1] ^= 1;
    assert_int_equal(try_load(bytes, size, &err), CNA_OK);
    assert_true(cna_cnb_is_cnb(bytes, size));
    assert_false(cna_cnb_is_cnb("glTF", 4));
    free(bytes);
    cna_model_free(a);
}

static void a_bad_index_is_refused_with_its_record(void **state)
{
    (void)state;
    cna_model *a = cnb_test_import(&cnb_corpus[8], CNA_CLIP_MODE_FAITHFUL);
    size_t size = 0;
    unsigned char *bytes = cnb_test_bake(a, 0.0f, &size);
    /* parts[0].indices[0] := 99 (the triangle has 3 vertices). */
    uint64_t parts_off, data_off, idx_off, unused;
    section_at(bytes, CNA__CNB_PARTS, &parts_off, &unused);
    section_at(bytes, CNA__CNB_DATA, &data_off, &unused);
    memcpy(&idx_off, bytes + parts_off + 176, 8); /* PARTS record: indices reference at 176 */
    uint32_t bad = 99;
    memcpy(bytes + data_off + idx_off, &bad, 4);
    refix_checksum(bytes, size);
    cna_error err;
    assert_int_equal(try_load(bytes, size, &err), CNA_ERROR_INVALID_DATA);
    assert_string_equal(err.message, "cnb: parts[0].indices[0]: 99 is not below vertex_count 3");
    free(bytes);
    cna_model_free(a);
}

static void a_skin_without_a_clip_per_animation_is_refused(void **state)
{
    (void)state;
    cna_model *a = cnb_test_import(&cnb_corpus[7], CNA_CLIP_MODE_FAITHFUL);
    size_t size = 0;
    unsigned char *bytes = cnb_test_bake(a, 0.0f, &size);
    uint64_t skins_off, unused, zero = 0;
    section_at(bytes, CNA__CNB_SKINS, &skins_off, &unused);
    memcpy(bytes + skins_off + 88, &zero, 8); /* SKINS record: clip_count at 88 */
    refix_checksum(bytes, size);
    cna_error err;
    assert_int_equal(try_load(bytes, size, &err), CNA_ERROR_INVALID_DATA);
    char want[128];
    snprintf(want, sizeof want, "cnb: skins[0].clip_count 0 differs from animation_count %zu", a->animation_count);
    assert_string_equal(err.message, want);
    free(bytes);
    cna_model_free(a);
}

/* ------------------------------------------------------------------ images */

/* A baked SimpleSkin with one field changed (checksum refixed) is refused
 * with exactly this message. */
static void expect_refusal(unsigned char *bytes, size_t size, const char *want)
{
    refix_checksum(bytes, size);
    cna_error err;
    assert_int_equal(try_load(bytes, size, &err), CNA_ERROR_INVALID_DATA);
    assert_string_equal(err.message, want);
}

static uint64_t u64_at(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }

static void damaged_tracks_keys_joints_and_skins_are_refused_with_their_record(void **state)
{
    (void)state;
    cna_model *a = cnb_test_import(&cnb_corpus[7], CNA_CLIP_MODE_FAITHFUL);
    size_t size = 0;
    unsigned char *clean = cnb_test_bake(a, 0.0f, &size);
    unsigned char *bytes = malloc(size);
    assert_non_null(bytes);
    uint64_t data, data_size, skins, clips, tracks, parts, unused;
    section_at(clean, CNA__CNB_DATA, &data, &data_size);
    section_at(clean, CNA__CNB_SKINS, &skins, &unused);
    section_at(clean, CNA__CNB_CLIPS, &clips, &unused);
    section_at(clean, CNA__CNB_TRACKS, &tracks, &unused);
    section_at(clean, CNA__CNB_PARTS, &parts, &unused);
    /* skins[0]'s first clip is checked first of all clips; its first track's keys. */
    const uint64_t clip = u64_at(clean + skins + 80);
    const uint64_t track = u64_at(clean + clips + 40 * clip + 16);
    unsigned char *rec = bytes + tracks + 24 * track;
    const uint64_t keys_off = u64_at(clean + tracks + 24 * track + 8);
    const uint64_t keys_bytes = u64_at(clean + tracks + 24 * track + 16);
    assert_true(keys_bytes >= 2 * sizeof(cna_keyframe));
    char want[256];

    memcpy(bytes, clean, size); /* a key array of a partial key */
    uint64_t v = 47;
    memcpy(rec + 16, &v, 8);
    snprintf(want, sizeof want, "cnb: tracks[%llu].keys: 47 bytes are not a multiple of 48", (unsigned long long)track);
    expect_refusal(bytes, size, want);

    memcpy(bytes, clean, size); /* a key array not 16-byte aligned */
    v = keys_off + 8;
    memcpy(rec + 8, &v, 8);
    snprintf(want, sizeof want,
             "cnb: tracks[%llu].keys: %llu bytes at %llu are outside DATA (%llu bytes) or not 16-byte aligned",
             (unsigned long long)track, (unsigned long long)keys_bytes, (unsigned long long)v,
             (unsigned long long)data_size);
    expect_refusal(bytes, size, want);

    memcpy(bytes, clean, size); /* a key array past the end of DATA */
    v = data_size;
    memcpy(rec + 8, &v, 8);
    snprintf(want, sizeof want,
             "cnb: tracks[%llu].keys: %llu bytes at %llu are outside DATA (%llu bytes) or not 16-byte aligned",
             (unsigned long long)track, (unsigned long long)keys_bytes, (unsigned long long)v,
             (unsigned long long)data_size);
    expect_refusal(bytes, size, want);

    memcpy(bytes, clean, size); /* NULL with keys */
    v = UINT64_MAX;
    memcpy(rec + 8, &v, 8);
    snprintf(want, sizeof want, "cnb: tracks[%llu].keys: NULL array for %llu elements", (unsigned long long)track,
             (unsigned long long)(keys_bytes / 48));
    expect_refusal(bytes, size, want);

    snprintf(want, sizeof want,
             "cnb: clips[%llu].tracks[0].keys[1]: a negative or decreasing time, or a value that is not finite",
             (unsigned long long)clip);
    for (int f = 0; f < 10; f++) { /* a NaN in each float of key 1 */
        memcpy(bytes, clean, size);
        const uint32_t nan_bits = 0x7fc00001u;
        memcpy(bytes + data + keys_off + 48 + 8 + 4 * (size_t)f, &nan_bits, 4);
        expect_refusal(bytes, size, want);
    }
    memcpy(bytes, clean, size); /* key 1 before key 0 */
    int64_t t = u64_at(clean + data + keys_off) == 0 ? -1 : 0;
    memcpy(bytes + data + keys_off + 48, &t, 8);
    expect_refusal(bytes, size, want);

    /* parts[0].vertices[1]: a joint byte at the skin's joint count. */
    memcpy(bytes, clean, size);
    uint32_t stride;
    memcpy(&stride, clean + parts + 40, 4);
    cna_skinning_layout layout;
    assert_int_equal(cna_skinning_layout_canonical(stride, &layout, NULL), CNA_OK);
    const uint64_t vertices = u64_at(clean + parts + 16);
    const size_t joints = a->skins[0].joint_count;
    bytes[data + vertices + stride + (size_t)layout.joints_offset + 2] = (unsigned char)joints;
    snprintf(want, sizeof want, "cnb: parts[0].vertices[1]: joint %zu is not below the skin's %zu joints", joints,
             joints);
    expect_refusal(bytes, size, want);
    bytes[data + vertices + stride + (size_t)layout.joints_offset + 2] = 255;
    snprintf(want, sizeof want, "cnb: parts[0].vertices[1]: joint 255 is not below the skin's %zu joints", joints);
    expect_refusal(bytes, size, want);

    /* skins[0]: a NaN in a bind-pose matrix, an inf in an inverse one, a parent not below its bone. */
    memcpy(bytes, clean, size);
    const uint32_t nan_bits = 0x7fc00000u, inf_bits = 0xff800000u;
    memcpy(bytes + data + u64_at(clean + skins + 32) + 5 * 4, &nan_bits, 4);
    expect_refusal(bytes, size, "cnb: skins[0]: bind_pose[0].m[5]: NaN is not finite");
    memcpy(bytes, clean, size);
    memcpy(bytes + data + u64_at(clean + skins + 48) + 64 * (joints - 1) + 15 * 4, &inf_bits, 4);
    snprintf(want, sizeof want, "cnb: skins[0]: inverse_bind_pose[%zu].m[15]: -inf is not finite", joints - 1);
    expect_refusal(bytes, size, want);
    memcpy(bytes, clean, size);
    const int32_t self = (int32_t)joints - 1;
    memcpy(bytes + data + u64_at(clean + skins + 16) + 4 * (joints - 1), &self, 4);
    snprintf(want, sizeof want, "cnb: skins[0]: hierarchy[%zu]: parent %zu is not below own index %zu", joints - 1,
             joints - 1, joints - 1);
    expect_refusal(bytes, size, want);

    memcpy(bytes, clean, size); /* and the undamaged file loads */
    cna_error err;
    assert_int_equal(try_load(bytes, size, &err), CNA_OK);
    free(bytes);
    free(clean);
    cna_model_free(a);
}

static void external_images_are_embedded_so_the_file_is_self_contained(void **state)
{
    (void)state;
    cna_model *a = cnb_test_import(&cnb_corpus[3], CNA_CLIP_MODE_FAITHFUL); /* MorphStressTest: PNG files */
    size_t external = 0;
    for (size_t i = 0; i < a->image_count; i++) external += a->images[i].path != NULL;
    assert_true(external > 0);
    char path[1024];
    snprintf(path, sizeof path, "%s/test_cnb_images.cnb", CNA_BINARY_DIR);
    cna_error err;
    assert_int_equal(cna_cnb_write_file(a, NULL, path, &err), CNA_OK);
    cna_model *b = NULL;
    assert_int_equal(cna_cnb_load_file(path, NULL, &b, &err), CNA_OK);
    cnb_same_images(a, b); /* bytes identical to the external files; no path */
    size_t textured = 0;
    for (size_t e = 0; e < b->effect_count; e++) {
        int32_t im = b->effects[e].params.base_color.image;
        if (im < 0) continue;
        assert_true((size_t)im < b->image_count);
        assert_non_null(b->images[im].data);
        textured++;
    }
    assert_true(textured > 0);
    /* Loaded twice, the images get the same ids: the index plus one, unique
     * within the model only (no count kept across loads). */
    cna_model *c = NULL;
    assert_int_equal(cna_cnb_load_file(path, NULL, &c, &err), CNA_OK);
    for (size_t i = 0; i < b->image_count; i++) {
        assert_int_equal(b->images[i].id, i + 1);
        assert_int_equal(c->images[i].id, i + 1);
        assert_int_equal(a->images[i].id, i + 1);
    }
    cna_model_free(c);
    cna_model_free(b);
    remove(path);
    cna_model_free(a);
}

static void an_unavailable_image_stays_unavailable(void **state)
{
    (void)state;
    cna_model *a = cnb_test_import(&cnb_corpus[8], CNA_CLIP_MODE_FAITHFUL);
    cna_model copy = *a;
    cna_model_image images[2];
    memset(images, 0, sizeof images);
    images[0].name = "missing";
    images[0].mime_type = "image/png";
    images[0].id = 1;
    images[1].name = "";
    images[1].mime_type = "";
    images[1].data = (const uint8_t *)"abc";
    images[1].size = 3;
    images[1].mag_filter = 9728;
    images[1].min_filter = 9987;
    images[1].wrap_s = 33071;
    images[1].wrap_t = 33648;
    images[1].id = 2;
    copy.images = images;
    copy.image_count = 2;
    size_t size = 0;
    void *bytes = cnb_test_bake(&copy, 0.0f, &size);
    cna_model *b = cnb_test_load(bytes, size);
    cnb_same_images(&copy, b);
    assert_null(b->images[0].data);
    assert_int_equal(b->images[0].size, 0);
    assert_memory_equal(b->images[1].data, "abc", 3);
    cna_model_free(b);
    free(bytes);
    cna_model_free(a);
}

static void an_external_image_the_writer_cannot_read_is_refused(void **state)
{
    (void)state;
    cna_model *a = cnb_test_import(&cnb_corpus[8], CNA_CLIP_MODE_FAITHFUL);
    cna_model copy = *a;
    cna_model_image image;
    memset(&image, 0, sizeof image);
    image.name = "gone";
    image.mime_type = "";
    image.path = "/nonexistent/cna/gone.png";
    image.id = 1;
    copy.images = &image;
    copy.image_count = 1;
    void *bytes = NULL;
    size_t size = 0;
    cna_error err;
    assert_int_equal(cna_cnb_write_memory(&copy, NULL, &bytes, &size, &err), CNA_ERROR_IO);
    assert_null(bytes);
    assert_string_equal(err.message, "cnb write: images[0] \"gone\": cannot open \"/nonexistent/cna/gone.png\": "
                                     "No such file or directory");
    cna_model_free(a);
}

static void a_version_1_file_is_refused_with_a_reconvert_message(void **state)
{
    (void)state;
    cna_model *a = cnb_test_import(&cnb_corpus[8], CNA_CLIP_MODE_FAITHFUL);
    size_t size = 0;
    unsigned char *bytes = cnb_test_bake(a, 0.0f, &size);
    bytes[CNA__CNB_OFF_VERSION] = 1;
    refix_checksum(bytes, size);
    cna_error err;
    assert_int_equal(try_load(bytes, size, &err), CNA_ERROR_UNSUPPORTED);
    assert_string_equal(err.message, "cnb: version 1 (written before images were stored); this reader reads "
                                     "versions 2 to 4: re-convert the model (cna convert)");
    free(bytes);
    cna_model_free(a);
}

static void a_bad_image_record_is_refused_with_its_field(void **state)
{
    (void)state;
    cna_model *a = cnb_test_import(&cnb_corpus[3], CNA_CLIP_MODE_FAITHFUL);
    size_t size = 0;
    unsigned char *bytes = cnb_test_bake(a, 0.0f, &size);
    unsigned char *copy = malloc(size);
    assert_non_null(copy);
    uint64_t im_off, im_size, fx_off, fx_size;
    section_at(bytes, CNA__CNB_IMAGES, &im_off, &im_size);
    section_at(bytes, CNA__CNB_EFFECTS, &fx_off, &fx_size);
    assert_true(im_size >= 56);
    cna_error err;
    /* images[0].wrap_t (offset 52) := 1234 */
    memcpy(copy, bytes, size);
    int32_t v = 1234;
    memcpy(copy + im_off + 52, &v, 4);
    refix_checksum(copy, size);
    assert_int_equal(try_load(copy, size, &err), CNA_ERROR_INVALID_DATA);
    assert_string_equal(err.message, "cnb: images[0].wrap_t: 1234 is not a glTF sampler value");
    /* images[0].mag_filter (offset 40) := 9984 (a minification value) */
    memcpy(copy, bytes, size);
    v = 9984;
    memcpy(copy + im_off + 40, &v, 4);
    refix_checksum(copy, size);
    assert_int_equal(try_load(copy, size, &err), CNA_ERROR_INVALID_DATA);
    assert_string_equal(err.message, "cnb: images[0].mag_filter: 9984 is not a glTF sampler value");
    /* images[0].name (offset 0): a string running past STRINGS */
    memcpy(copy, bytes, size);
    uint32_t len = 0x7fffffff;
    memcpy(copy + im_off + 4, &len, 4);
    refix_checksum(copy, size);
    assert_int_equal(try_load(copy, size, &err), CNA_ERROR_INVALID_DATA);
    assert_true(strncmp(err.message, "cnb: images[0].name: string at ", 31) == 0);
    /* images[0].size (offset 32) one more than the reference's bytes */
    memcpy(copy, bytes, size);
    uint64_t n;
    memcpy(&n, copy + im_off + 32, 8);
    n++;
    memcpy(copy + im_off + 32, &n, 8);
    refix_checksum(copy, size);
    assert_int_equal(try_load(copy, size, &err), CNA_ERROR_INVALID_DATA);
    assert_true(strncmp(err.message, "cnb: images[0].data: ", 21) == 0);
    /* effects[0].base_color.image (offset 32) := image_count */
    memcpy(copy, bytes, size);
    int32_t count = (int32_t)(im_size / 56);
    memcpy(copy + fx_off + 32, &count, 4);
    refix_checksum(copy, size);
    assert_int_equal(try_load(copy, size, &err), CNA_ERROR_INVALID_DATA);
    char want[128];
    snprintf(want, sizeof want, "cnb: effects[0].base_color.image: %d is outside -1..%d", count, count - 1);
    assert_string_equal(err.message, want);
    free(copy);
    free(bytes);
    cna_model_free(a);
}

/* Every bit flip in the IMAGES section and in the images' bytes is caught by
 * the checksum; with the checksum recomputed (a hostile writer), every flip in
 * the IMAGES section is refused or loads a model that frees cleanly. */
static void image_corruption_is_refused_cleanly(void **state)
{
    (void)state;
    cna_model *a = cnb_test_import(&cnb_corpus[3], CNA_CLIP_MODE_FAITHFUL);
    size_t size = 0;
    unsigned char *bytes = cnb_test_bake(a, 0.0f, &size);
    uint64_t im_off, im_size, data_off, data_size;
    section_at(bytes, CNA__CNB_IMAGES, &im_off, &im_size);
    section_at(bytes, CNA__CNB_DATA, &data_off, &data_size);
    cna_error err;
    size_t refused = 0;
    for (uint64_t i = im_off; i < im_off + im_size; i++) {
        for (int bit = 0; bit < 8; bit++) {
            bytes[i] ^= (unsigned char)(1u << bit);
            assert_int_equal(try_load(bytes, size, &err), CNA_ERROR_INVALID_DATA); /* checksum */
            refix_checksum(bytes, size);
            if (try_load(bytes, size, &err) != CNA_OK) refused++;
            bytes[i] ^= (unsigned char)(1u << bit);
            refix_checksum(bytes, size);
        }
    }
    assert_true(refused > 0);
    /* the first image's encoded bytes, every 97th byte */
    uint64_t ref_off, ref_bytes;
    memcpy(&ref_off, bytes + im_off + 16, 8);
    memcpy(&ref_bytes, bytes + im_off + 24, 8);
    for (uint64_t i = 0; ref_off != UINT64_MAX && i < ref_bytes; i += 97) {
        bytes[data_off + ref_off + i] ^= 0x10;
        assert_int_equal(try_load(bytes, size, &err), CNA_ERROR_INVALID_DATA);
        assert_true(strncmp(err.message, "cnb: checksum 0x", 16) == 0);
        bytes[data_off + ref_off + i] ^= 0x10;
    }
    assert_int_equal(try_load(bytes, size, &err), CNA_OK);
    free(bytes);
    cna_model_free(a);
}

/* ------------------------------------------------------------------ allocation failures */

typedef struct failing_alloc {
    long left;   /* allocations that still succeed; -1 = unlimited */
    long live;
} failing_alloc;

static void *fa_alloc(void *user, size_t size)
{
    failing_alloc *f = user;
    if (f->left == 0) return NULL;
    if (f->left > 0) f->left--;
    void *p = malloc(size ? size : 1);
    if (p) f->live++;
    return p;
}

static void fa_free(void *user, void *ptr)
{
    failing_alloc *f = user;
    f->live--;
    free(ptr);
}

static void every_allocation_failure_is_clean(void **state)
{
    (void)state;
    const size_t models[] = {0, 7, 3}; /* a morphed, a skinned and a textured model */
    for (size_t mi = 0; mi < sizeof models / sizeof models[0]; mi++) {
        cna_model *a = cnb_test_import(&cnb_corpus[models[mi]], CNA_CLIP_MODE_FAITHFUL);
        size_t size = 0;
        void *bytes = cnb_test_bake(a, 0.0f, &size);
        bool loaded = false, written = false;
        for (long n = 0; !(loaded && written) && n < 10000; n++) {
            failing_alloc f = {n, 0};
            cna_cnb_load_options lo;
            memset(&lo, 0, sizeof lo);
            lo.allocator.alloc = fa_alloc;
            lo.allocator.free = fa_free;
            lo.allocator.user_data = &f;
            cna_model *b = NULL;
            cna_error err;
            cna_result r = cna_cnb_load_memory(bytes, size, &lo, &b, &err);
            if (r == CNA_OK) {
                loaded = true;
                cna_model_free(b);
            } else {
                assert_int_equal(r, CNA_ERROR_OUT_OF_MEMORY);
                assert_null(b);
            }
            assert_int_equal(f.live, 0);
            failing_alloc g = {n, 0};
            cna_cnb_write_options wo;
            memset(&wo, 0, sizeof wo);
            wo.allocator.alloc = fa_alloc;
            wo.allocator.free = fa_free;
            wo.allocator.user_data = &g;
            void *out = NULL;
            size_t out_size = 0;
            r = cna_cnb_write_memory(a, &wo, &out, &out_size, &err);
            if (r == CNA_OK) {
                written = true;
                assert_int_equal(out_size, size);
                assert_memory_equal(out, bytes, size);
                cna_cnb_bytes_free(&wo, out);
            } else {
                assert_int_equal(r, CNA_ERROR_OUT_OF_MEMORY);
                assert_null(out);
            }
            assert_int_equal(g.live, 0);
        }
        assert_true(loaded && written);
        free(bytes);
        cna_model_free(a);
    }
}

static void load_any_recognises_cnb_by_magic_and_gltf_otherwise(void **state)
{
    (void)state;
    cna_model *a = cnb_test_import(&cnb_corpus[7], CNA_CLIP_MODE_FAITHFUL);
    char path[1024], gltf[1024];
    snprintf(path, sizeof path, "%s/test_cnb_any.model", CNA_BINARY_DIR); /* no .cnb extension */
    snprintf(gltf, sizeof gltf, "%s/corpus/valid/SimpleSkin/simple_skin.gltf", CNA_TEST_DATA_DIR);
    cna_error err;
    assert_int_equal(cna_cnb_write_file(a, NULL, path, &err), CNA_OK);
    cna_model *b = NULL, *c = NULL;
    assert_int_equal(cna_model_load_any(path, NULL, &b, &err), CNA_OK);
    assert_int_equal(cna_model_load_any(gltf, NULL, &c, &err), CNA_OK);
    cnb_same_model(a, b);
    cnb_same_model(a, c);
    cna_model_free(b);
    cna_model_free(c);
    remove(path);
    b = NULL;
    assert_int_equal(cna_model_load_any(path, NULL, &b, &err), CNA_ERROR_IO);
    assert_null(b);
    cna_model_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(baked_model_equals_imported_model_for_every_corpus_model),
        cmocka_unit_test(baked_file_loads_like_memory),
        cmocka_unit_test(baked_model_poses_like_imported_model_at_every_oracle_time),
        cmocka_unit_test(unit_scale_scales_every_pose_position_and_leaves_rotations),
        cmocka_unit_test(unit_scale_must_be_positive_and_finite),
        cmocka_unit_test(truncated_files_are_refused),
        cmocka_unit_test(every_bit_flip_is_caught_by_the_checksum),
        cmocka_unit_test(structural_corruption_with_a_valid_checksum_never_crashes),
        cmocka_unit_test(header_refusals_name_the_field),
        cmocka_unit_test(a_bad_index_is_refused_with_its_record),
        cmocka_unit_test(a_skin_without_a_clip_per_animation_is_refused),
        cmocka_unit_test(external_images_are_embedded_so_the_file_is_self_contained),
        cmocka_unit_test(an_unavailable_image_stays_unavailable),
        cmocka_unit_test(an_external_image_the_writer_cannot_read_is_refused),
        cmocka_unit_test(a_version_1_file_is_refused_with_a_reconvert_message),
        cmocka_unit_test(a_bad_image_record_is_refused_with_its_field),
        cmocka_unit_test(image_corruption_is_refused_cleanly),
        cmocka_unit_test(every_allocation_failure_is_clean),
        cmocka_unit_test(load_any_recognises_cnb_by_magic_and_gltf_otherwise),
        cmocka_unit_test(damaged_tracks_keys_joints_and_skins_are_refused_with_their_record),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
