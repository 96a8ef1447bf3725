/*
 * KHR_animation_pointer: "/nodes/N/translation|rotation|scale|weights" and
 * "/meshes/M/weights" map onto the same tracks as the core targets (the
 * pointer fixture and its core twin import to equal clips and weight
 * tracks, and pose bit for bit alike); any other pointer is ignored with an
 * "animation-pointer-unsupported" diagnostic naming it; the extension is
 * accepted when required; malformed pointers are refused naming the value.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cna/cna.h"

#define POINTER "fixtures/animation-pointer.gltf"
#define CORE "fixtures/animation-pointer-core.gltf"

static char *slurp(const char *rel, size_t *size)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", CNA_TEST_DATA_DIR, rel);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = (char *)malloc((size_t)n + 1);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    *size = (size_t)n;
    return buf;
}

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

static void test_pointers_map_onto_core_tracks(void **state)
{
    (void)state;
    cna_model *p = load(POINTER), *c = load(CORE);
    assert_int_equal(p->animation_count, 1);
    const cna_clip *a = &p->node_clips[0], *b = &c->node_clips[0];
    assert_int_equal(a->duration, b->duration);
    assert_int_equal(a->track_count, b->track_count);
    assert_true(a->track_count >= 1);
    for (size_t i = 0; i < a->track_count; i++) {
        assert_int_equal(a->tracks[i].bone, b->tracks[i].bone);
        assert_int_equal(a->tracks[i].key_count, b->tracks[i].key_count);
        assert_memory_equal(a->tracks[i].keys, b->tracks[i].keys, a->tracks[i].key_count * sizeof(cna_keyframe));
    }
    /* the morphed part has a weight track from the "/meshes/1/weights" pointer */
    size_t morphed = 0;
    for (size_t i = 0; i < p->mesh_count; i++)
        for (size_t k = 0; k < p->meshes[i].part_count; k++) {
            const cna_model_part *pp = &p->meshes[i].parts[k], *cp = &c->meshes[i].parts[k];
            if (!pp->morph) continue;
            morphed++;
            assert_non_null(pp->weight_tracks[0]);
            assert_non_null(cp->weight_tracks[0]);
            for (int s = 0; s <= 8; s++) {
                float wp[4], wc[4];
                size_t np = 0, nc = 0;
                assert_int_equal(cna_morph_evaluate_weights(pp->weight_tracks[0], s * 0.25, wp, 4, &np, NULL), CNA_OK);
                assert_int_equal(cna_morph_evaluate_weights(cp->weight_tracks[0], s * 0.25, wc, 4, &nc, NULL), CNA_OK);
                assert_int_equal(np, 1);
                assert_int_equal(nc, 1);
                assert_memory_equal(wp, wc, sizeof(float));
            }
        }
    assert_int_equal(morphed, 1);
    /* poses: bit for bit */
    cna_character *x = NULL, *y = NULL;
    cna_error err;
    assert_int_equal(cna_character_create(p, NULL, &x, &err), CNA_OK);
    assert_int_equal(cna_character_create(c, NULL, &y, &err), CNA_OK);
    assert_int_equal(cna_character_play(x, 0, &err), CNA_OK);
    assert_int_equal(cna_character_play(y, 0, &err), CNA_OK);
    for (int f = 0; f < 130; f++) {
        assert_int_equal(cna_character_update(x, 1.0 / 60, &err), CNA_OK);
        assert_int_equal(cna_character_update(y, 1.0 / 60, &err), CNA_OK);
        for (size_t bone = 0; bone < p->bone_count; bone++)
            assert_memory_equal(cna_character_absolute_transform(x, bone), cna_character_absolute_transform(y, bone),
                                sizeof(cna_mat4));
        for (size_t i = 0; i < p->mesh_count; i++)
            for (size_t k = 0; k < p->meshes[i].part_count; k++) {
                size_t sx = 0, sy = 0;
                const void *vx = cna_character_part_vertices(x, i, k, &sx);
                const void *vy = cna_character_part_vertices(y, i, k, &sy);
                assert_int_equal(sx, sy);
                assert_memory_equal(vx, vy, sx);
            }
    }
    /* the material pointer: one diagnostic naming it; the core file has none */
    bool found = false;
    for (size_t i = 0; i < p->diagnostic_count; i++)
        if (strcmp(p->diagnostics[i].code, CNA_GLTF_DIAG_POINTER_UNSUPPORTED) == 0) {
            found = true;
            assert_int_equal(p->diagnostics[i].count, 1);
            assert_non_null(strstr(p->diagnostics[i].message, "\"/materials/0/pbrMetallicRoughness/baseColorFactor\""));
        }
    assert_true(found);
    for (size_t i = 0; i < c->diagnostic_count; i++)
        assert_string_not_equal(c->diagnostics[i].code, CNA_GLTF_DIAG_POINTER_UNSUPPORTED);
    cna_character_free(x);
    cna_character_free(y);
    cna_model_free(p);
    cna_model_free(c);
}

/* The pointer fixture with one string replaced: the load's result and message. */
static void expect(const char *from, const char *to, cna_result want, const char *message)
{
    size_t size = 0;
    char *text = slurp(POINTER, &size);
    char *at = strstr(text, from);
    assert_non_null(at);
    const size_t nf = strlen(from), nt = strlen(to);
    char *edited = (char *)malloc(size - nf + nt + 1);
    memcpy(edited, text, (size_t)(at - text));
    memcpy(edited + (at - text), to, nt);
    memcpy(edited + (at - text) + nt, at + nf, size - (size_t)(at - text) - nf + 1);
    cna_gltf_document *doc = NULL;
    cna_error err;
    cna_result r = cna_gltf_load_memory(edited, strlen(edited), NULL, &doc, &err);
    if (r != want) print_error("%s -> %s: %s\n", from, to, r ? err.message : "loaded");
    assert_int_equal(r, want);
    if (r != CNA_OK) assert_string_equal(err.message, message);
    cna_gltf_document_free(doc);
    free(edited);
    free(text);
}

static void test_malformed_pointers_are_refused(void **state)
{
    (void)state;
    expect("\"/nodes/0/translation\"", "\"/nodes/7/translation\"", CNA_ERROR_INVALID_DATA,
           "animations[0].channels[0].target.extensions.KHR_animation_pointer.pointer: \"/nodes/7/translation\": "
           "nodes[7] is out of range (2 nodes)");
    expect("\"/meshes/1/weights\"", "\"/meshes/9/weights\"", CNA_ERROR_INVALID_DATA,
           "animations[0].channels[2].target.extensions.KHR_animation_pointer.pointer: \"/meshes/9/weights\": "
           "meshes[9] is out of range (2 meshes)");
    expect("\"/meshes/1/weights\"", "\"/meshes/0/weights\"", CNA_ERROR_INVALID_DATA,
           "animations[0].channels[2].target: pointer \"/meshes/0/weights\", but meshes[0] has no morph targets");
    expect("\"pointer\": \"/nodes/0/rotation\"", "\"pointer\": 5", CNA_ERROR_INVALID_DATA,
           "animations[0].channels[1].target.extensions.KHR_animation_pointer.pointer: expected a string, got number");
    /* a pointer cna does not animate (a leading zero, an unknown property) is ignored, not refused */
    expect("\"/nodes/0/translation\"", "\"/nodes/00/translation\"", CNA_OK, NULL);
    expect("\"/nodes/0/translation\"", "\"/nodes/0/matrix\"", CNA_OK, NULL);
    /* without the pointer, or without the extension object */
    expect("\"pointer\": \"/nodes/0/rotation\"", "\"ptr\": \"/nodes/0/rotation\"", CNA_ERROR_INVALID_DATA,
           "animations[0].channels[1].target.extensions.KHR_animation_pointer.pointer: required property is missing");
    expect("\"KHR_animation_pointer\": {\n        \"pointer\": \"/nodes/0/rotation\"", "\"OTHER\": {\n        \"pointer\": \"/nodes/0/rotation\"", CNA_OK, NULL);
    /* with a node beside the pointer */
    expect("\"sampler\": 1,\n     \"target\": {\n", "\"sampler\": 1,\n     \"target\": {\n \"node\": 0,\n", CNA_ERROR_INVALID_DATA,
           "animations[0].channels[1].target.node: must not be given with path \"pointer\"");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pointers_map_onto_core_tracks),
        cmocka_unit_test(test_malformed_pointers_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
