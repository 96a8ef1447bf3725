/*
 * Hostile files at import: every result is exact or refused. Each test builds
 * its glTF (JSON and buffer) in memory and asserts the exact error or
 * diagnostic: the faithful key budget, magnitudes whose products would
 * overflow, negative skin weights.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "gltf/gltf_fixture.h"
#include "model_test.h"

/* ------------------------------------------------------------------ helpers */

/* An allocator that tracks the bytes live and their peak. */
typedef struct peak_state { size_t live, peak; } peak_state;

static void *peak_alloc(void *user, size_t size)
{
    peak_state *s = (peak_state *)user;
    size_t *p = (size_t *)malloc(size + 16);
    if (!p) return NULL;
    p[0] = size;
    s->live += size;
    if (s->live > s->peak) s->peak = s->live;
    return (char *)p + 16;
}

static void peak_free(void *user, void *ptr)
{
    if (!ptr) return;
    peak_state *s = (peak_state *)user;
    size_t *p = (size_t *)((char *)ptr - 16);
    s->live -= p[0];
    free(p);
}

/* Import JSON text (its "@BUF@" a data URI of bytes) with `mode`; returns the
 * result, *out the model (NULL when refused). */
static cna_result import_text(const char *json, const void *bytes, size_t n, cna_clip_mode mode,
                              peak_state *peak, cna_model **out, cna_error *err)
{
    cna_gltf_document *doc = NULL;
    memset(err, 0, sizeof *err);
    cna_result r = tu_load(json, bytes, n, NULL, &doc, err);
    if (r != CNA_OK) fail_msg("the reader refused the file: %s", err->message);
    cna_import_options o;
    memset(&o, 0, sizeof o);
    o.clip_mode = mode;
    if (peak) {
        o.allocator.alloc = peak_alloc;
        o.allocator.free = peak_free;
        o.allocator.user_data = peak;
    }
    *out = NULL;
    r = cna_model_import_gltf(doc, &o, out, err);
    cna_gltf_document_free(doc);
    return r;
}

static void expect_refused(const char *json, const void *bytes, size_t n, cna_clip_mode mode, cna_result code,
                           const char *message)
{
    cna_model *m = NULL;
    cna_error err;
    peak_state peak = {0, 0};
    cna_result r = import_text(json, bytes, n, mode, &peak, &m, &err);
    if (r != code || strcmp(err.message, message) != 0)
        fail_msg("expected %s \"%s\"\n     got %s \"%s\"", cna_result_name(code), message, cna_result_name(r),
                 err.message);
    assert_null(m);
    assert_int_equal(peak.live, 0);   /* nothing leaks */
}

static cna_model *expect_loaded(const char *json, const void *bytes, size_t n, cna_clip_mode mode)
{
    cna_model *m = NULL;
    cna_error err;
    cna_result r = import_text(json, bytes, n, mode, NULL, &m, &err);
    if (r != CNA_OK) fail_msg("import refused: %s: %s", cna_result_name(r), err.message);
    return m;
}

/* Append to a growing string (test fails when out of memory). */
typedef struct strbuf { char *s; size_t len, cap; } strbuf;

static void sb_printf(strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    va_list ap2;
    va_copy(ap2, ap);
    int need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    assert_true(need >= 0);
    if (b->len + (size_t)need + 1 > b->cap) {
        size_t cap = (b->len + (size_t)need + 1) * 2;
        char *s = (char *)realloc(b->s, cap);
        assert_non_null(s);
        b->s = s;
        b->cap = cap;
    }
    vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap2);
    va_end(ap2);
    b->len += (size_t)need;
}

/* ------------------------------------------------------------------ faithful key budget */

/* 100 nodes, each animated by one shared 17-key CUBICSPLINE translation
 * sampler whose tangents are 1e30: every interval of every track would be
 * halved 16 times (65536 pieces), 100 million keys in all. */
#define WAVE_NODES 100
#define WAVE_KEYS 17
static char *wave_json(void)
{
    strbuf b = {NULL, 0, 0};
    sb_printf(&b, "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":%d,\"uri\":\"@BUF@\"}],"
                  "\"bufferViews\":[{\"buffer\":0,\"byteLength\":%d},{\"buffer\":0,\"byteOffset\":%d,"
                  "\"byteLength\":%d}],\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":%d,"
                  "\"type\":\"SCALAR\",\"min\":[0],\"max\":[%d]},{\"bufferView\":1,\"componentType\":5126,"
                  "\"count\":%d,\"type\":\"VEC3\"}],\"nodes\":[",
              4 * WAVE_KEYS + 36 * WAVE_KEYS, 4 * WAVE_KEYS, 4 * WAVE_KEYS, 36 * WAVE_KEYS, WAVE_KEYS,
              WAVE_KEYS - 1, 3 * WAVE_KEYS);
    for (int i = 0; i < WAVE_NODES; i++) sb_printf(&b, "%s{\"name\":\"n%d\"}", i ? "," : "", i);
    sb_printf(&b, "],\"scenes\":[{\"nodes\":[");
    for (int i = 0; i < WAVE_NODES; i++) sb_printf(&b, "%s%d", i ? "," : "", i);
    sb_printf(&b, "]}],\"animations\":[{\"name\":\"Wave\",\"samplers\":[{\"input\":0,\"output\":1,"
                  "\"interpolation\":\"CUBICSPLINE\"}],\"channels\":[");
    for (int i = 0; i < WAVE_NODES; i++)
        sb_printf(&b, "%s{\"sampler\":0,\"target\":{\"node\":%d,\"path\":\"translation\"}}", i ? "," : "", i);
    sb_printf(&b, "]}]}");
    return b.s;
}

static void wave_bytes(uint8_t *b)
{
    for (int k = 0; k < WAVE_KEYS; k++) tu_put_f32(b + 4 * k, (float)k);
    /* per key: in-tangent, value, out-tangent; values 0, tangents 1e30 */
    for (int k = 0; k < WAVE_KEYS; k++)
        for (int e = 0; e < 3; e++)
            for (int c = 0; c < 3; c++)
                tu_put_f32(b + 4 * WAVE_KEYS + 36 * k + 12 * e + 4 * c, e == 1 ? 0.0f : 1e30f);
}

static void test_faithful_extraction_beyond_the_key_budget_is_refused_naming_the_animation(void **state)
{
    (void)state;
    char *json = wave_json();
    uint8_t bytes[4 * WAVE_KEYS + 36 * WAVE_KEYS];
    wave_bytes(bytes);
    /* M = 100 channels x 17 keys = 1700; at most 256 M + 65536 = 500736 keys */
    cna_model *m = NULL;
    cna_error err;
    peak_state peak = {0, 0};
    cna_result r = import_text(json, bytes, sizeof bytes, CNA_CLIP_MODE_FAITHFUL, &peak, &m, &err);
    assert_int_equal(r, CNA_ERROR_LIMIT);
    assert_string_equal(err.message, "animations[0] \"Wave\": faithful extraction needs more than 500736 keys "
                                     "(input has 1700); import with clip mode union");
    assert_null(m);
    assert_int_equal(peak.live, 0);
    /* the keys it may add, 16 bytes each in the sample buffer, grown by doubling,
     * and nothing of the 100 million keys the curves asked for */
    if (!(peak.peak < (size_t)48 << 20)) fail_msg("peak %zu bytes", peak.peak);
    /* union mode is unaffected: 17 keys per track, the values at the key times */
    m = expect_loaded(json, bytes, sizeof bytes, CNA_CLIP_MODE_UNION);
    assert_int_equal(m->node_clips[0].track_count, WAVE_NODES);
    for (size_t t = 0; t < WAVE_NODES; t++) {
        const cna_bone_track *tr = &m->node_clips[0].tracks[t];
        assert_int_equal(tr->key_count, WAVE_KEYS);
        assert_int_equal(tr->keys[WAVE_KEYS - 1].ticks, (int64_t)(WAVE_KEYS - 1) * CNA_TICKS_PER_SECOND);
        assert_true(tr->keys[3].translation.x == 0.0f);
    }
    cna_model_free(m);
    free(json);
}

/* ------------------------------------------------------------------ magnitudes */

static const uint8_t NO_BYTES[4] = {0, 0, 0, 0};

static void test_scale_under_a_huge_parent_scale_is_refused_naming_the_node(void **state)
{
    (void)state;
    static const char json[] =
        "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"Root\",\"children\":[1],"
        "\"scale\":[3e38,3e38,3e38]},{\"name\":\"Arm\",\"scale\":[3e38,1,1]}],\"scenes\":[{\"nodes\":[0]}]}";
    /* 3e38 · 3e38 is inf in float; the root alone is already beyond the limit */
    expect_refused(json, NO_BYTES, 0, CNA_CLIP_MODE_DEFAULT, CNA_ERROR_LIMIT,
                   "nodes[0] \"Root\": world transform may reach 3e+38 (scale up to 3e+38); at most 1e+18 "
                   "is supported");
    char *big = tu_edit(json, "[3e38,3e38,3e38]", "[1e10,1e10,1e10]");
    char *big2 = tu_edit(big, "[3e38,1,1]", "[1e10,1,1]");
    expect_refused(big2, NO_BYTES, 0, CNA_CLIP_MODE_DEFAULT, CNA_ERROR_LIMIT,
                   "nodes[1] \"Arm\": world transform may reach 1e+20 (scale up to 1e+10 under a parent scale "
                   "up to 1e+10); at most 1e+18 is supported");
    free(big);
    free(big2);
    /* the same chain with scale 1e9 twice: 1e18, the limit, is loaded */
    char *ok = tu_edit(json, "[3e38,3e38,3e38]", "[1e9,1e9,1e9]");
    char *ok2 = tu_edit(ok, "[3e38,1,1]", "[1e9,1,1]");
    cna_model *m = expect_loaded(ok2, NO_BYTES, 0, CNA_CLIP_MODE_DEFAULT);
    cna_character *c = NULL;
    cna_error err;
    assert_int_equal(cna_character_create(m, NULL, &c, &err), CNA_OK);
    assert_true(cna_character_absolute_transform(c, 1)->m[0] == 1e18f);
    cna_character_free(c);
    cna_model_free(m);
    free(ok);
    free(ok2);
}

/* A node animated by a LINEAR translation whose second key is at `x` (a
 * finite float): the world it reaches when posed must stay within 1e18. */
static char *key_json(const char *x)
{
    static const char json[] =
        "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":32,\"uri\":\"@BUF@\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":8},{\"buffer\":0,\"byteOffset\":8,\"byteLength\":24}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\",\"min\":[0],"
        "\"max\":[1]},{\"bufferView\":1,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}],"
        "\"nodes\":[{\"name\":\"Hips\",\"children\":[1],\"scale\":[@S@,1,1]},{\"name\":\"Leg\"}],"
        "\"scenes\":[{\"nodes\":[0]}],\"animations\":[{\"name\":\"Kick\",\"samplers\":[{\"input\":0,"
        "\"output\":1}],\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"translation\"}}]}]}";
    return tu_edit(json, "@S@", x);
}

static void key_bytes(uint8_t *b, float x)
{
    memset(b, 0, 32);
    tu_put_f32(b + 4, 1.0f);
    tu_put_f32(b + 20, x);   /* key 1: (x, 0, 0) */
}

static void test_keys_whose_world_products_overflow_are_refused_naming_the_node(void **state)
{
    (void)state;
    uint8_t b[32];
    /* a key at 1e36 under a parent scale of 1e3: 1e39 is beyond float */
    char *json = key_json("1e3");
    key_bytes(b, 1e36f);
    expect_refused(json, b, sizeof b, CNA_CLIP_MODE_DEFAULT, CNA_ERROR_LIMIT,
                   "nodes[1] \"Leg\": world transform may reach 1e+39 (scale up to 1 under a parent scale "
                   "up to 1000); at most 1e+18 is supported");
    expect_refused(json, b, sizeof b, CNA_CLIP_MODE_UNION, CNA_ERROR_LIMIT,
                   "nodes[1] \"Leg\": world transform may reach 1e+39 (scale up to 1 under a parent scale "
                   "up to 1000); at most 1e+18 is supported");
    free(json);
    /* the key at 1e15 under 1e3 reaches 1e18: loaded, and posed exactly */
    json = key_json("1e3");
    key_bytes(b, 1e15f);
    cna_model *m = expect_loaded(json, b, sizeof b, CNA_CLIP_MODE_DEFAULT);
    cna_error err;
    cna_character *c = NULL;
    assert_int_equal(cna_character_create(m, NULL, &c, &err), CNA_OK);
    assert_int_equal(cna_character_apply_clip_to_bones(c, &m->node_clips[0], 1.0, &err), CNA_OK);
    assert_true(cna_character_absolute_transform(c, 1)->m[12] == 1e3f * 1e15f);
    cna_character_free(c);
    cna_model_free(m);
    free(json);
}

static void test_huge_morph_delta_is_refused_naming_the_primitive(void **state)
{
    (void)state;
    uint8_t b[FIX_SIZE];
    fixture_bytes(b);
    tu_put_f32(b + 328 + 8, 3e38f);   /* target 0, vertex 0: (0, 0, 3e38) */
    expect_refused(FIXTURE_JSON, b, FIX_SIZE, CNA_CLIP_MODE_DEFAULT, CNA_ERROR_LIMIT,
                   "meshes[1].primitives[0]: morphed positions may reach 3e+38; at most 1e+18 is supported");
}

static void test_bind_pose_palette_that_overflows_is_refused_naming_the_joint(void **state)
{
    (void)state;
    uint8_t b[FIX_SIZE];
    fixture_bytes(b);
    /* inverse bind matrix of joint 1: translation (3e38, 0, 0) under world scale 1 */
    tu_put_f32(b + 200 + 64 + 48, 3e38f);
    expect_refused(FIXTURE_JSON, b, FIX_SIZE, CNA_CLIP_MODE_DEFAULT, CNA_ERROR_LIMIT,
                   "skins[0]: joint nodes[3] \"joint1\": skin transform (world · inverse bind) may reach "
                   "3e+38; at most 1e+18 is supported");
}

/* ------------------------------------------------------------------ skin weights */

static void test_negative_skin_weight_summing_to_one_is_refused(void **state)
{
    (void)state;
    uint8_t b[FIX_SIZE];
    fixture_bytes(b);
    /* vertex 2: (1.25, 0, -0.25, 0), summing to 1 */
    tu_put_f32(b + FIX_WEIGHTS + 32, 1.25f);
    tu_put_f32(b + FIX_WEIGHTS + 40, -0.25f);
    expect_refused(FIXTURE_JSON, b, FIX_SIZE, CNA_CLIP_MODE_DEFAULT, CNA_ERROR_INVALID_DATA,
                   "meshes[0].primitives[0] (nodes[1]): WEIGHTS_0 vertex 2 has a negative weight -0.25");
    /* -0 is not negative: loaded, the weights as they are */
    tu_put_f32(b + FIX_WEIGHTS + 32, 1.0f);
    tu_put_f32(b + FIX_WEIGHTS + 40, -0.0f);
    cna_model *m = expect_loaded(FIXTURE_JSON, b, FIX_SIZE, CNA_CLIP_MODE_DEFAULT);
    assert_null(cna_model_find_diagnostic(m, "skin-weights-renormalized"));
    cna_model_free(m);
}

/* ------------------------------------------------------------------ main */

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_faithful_extraction_beyond_the_key_budget_is_refused_naming_the_animation),
        cmocka_unit_test(test_negative_skin_weight_summing_to_one_is_refused),
        cmocka_unit_test(test_scale_under_a_huge_parent_scale_is_refused_naming_the_node),
        cmocka_unit_test(test_keys_whose_world_products_overflow_are_refused_naming_the_node),
        cmocka_unit_test(test_huge_morph_delta_is_refused_naming_the_primitive),
        cmocka_unit_test(test_bind_pose_palette_that_overflows_is_refused_naming_the_joint),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
