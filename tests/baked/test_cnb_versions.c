/*
 * .cnb versions and what versions 3 and 4 added: version 2 and version 3
 * files of earlier releases (tests/data/cnb-v2/, tests/data/cnb-v3/,
 * SOURCE.md there) load and pose bit for bit as the glTF files they came
 * from; a skin instanced by several nodes stores its clip set once and loads
 * shared; morph target names, the file vertex count of a split part and the
 * animations' markers survive a bake; the new fields are validated.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "baked/cnb_internal.h"
#include "cnb_test.h"

typedef struct v2_file {
    const char *cnb;   /* under tests/data/cnb-v2/ */
    const char *gltf;  /* under tests/data/ */
} v2_file;

static const v2_file v2_files[] = {
    {"simple_skin.v2.cnb", "corpus/valid/SimpleSkin/simple_skin.gltf"},
    {"AnimatedMorphCube.v2.cnb", "corpus/valid/AnimatedMorphCube/AnimatedMorphCube.gltf"},
    {"mesh-flat-strip.v2.cnb", "fixtures-mesh/mesh-flat-strip.gltf"},
    {"skin-two-instances.v2.cnb", "fixtures/skin-two-instances.gltf"},
};
#define V2_FILE_COUNT (sizeof v2_files / sizeof v2_files[0])

static cna_model *load_path(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", CNA_TEST_DATA_DIR, rel);
    cna_model *m = NULL;
    cna_error err;
    cna_result r = cna_model_load_any(path, NULL, &m, &err);
    if (r) print_error("%s: %s\n", path, err.message);
    assert_int_equal(r, CNA_OK);
    return m;
}

static unsigned char *read_file(const char *rel, size_t *size)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", CNA_TEST_DATA_DIR, rel);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)n + 1);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *size = (size_t)n;
    return b;
}

static void section_at(const unsigned char *bytes, int id, uint64_t *off, uint64_t *count)
{
    const unsigned char *e = bytes + CNA__CNB_HEADER_SIZE + (size_t)(id - 1) * CNA__CNB_SECTION_ENTRY_SIZE;
    memcpy(off, e + 8, 8);
    memcpy(count, e + 24, 8);
}

static void refix_checksum(unsigned char *f, size_t size)
{
    uint64_t h = cna__cnb_checksum(f, size);
    memcpy(f + CNA__CNB_OFF_CHECKSUM, &h, 8);
}

static cna_character *once_character(const cna_model *m)
{
    cna_character *c = NULL;
    cna_error err;
    assert_int_equal(cna_character_create(m, NULL, &c, &err), CNA_OK);
    assert_int_equal(cna_character_set_loop_mode(c, CNA_LOOP_MODE_ONCE, &err), CNA_OK);
    return c;
}

/* Two characters of equal models posed alike: every output bit for bit. */
static void same_character_pose(const cna_model *a, const cna_character *ca, const cna_character *cb,
                                const char *what, long anim, int64_t ticks)
{
    for (size_t b = 0; b < a->bone_count; b++)
        if (memcmp(cna_character_absolute_transform(ca, b), cna_character_absolute_transform(cb, b), sizeof(cna_mat4)) != 0)
            fail_msg("%s: bone %zu's absolute transform differs at animation %ld, tick %lld", what, b, anim,
                     (long long)ticks);
    for (size_t s = 0; s < a->skin_count; s++) {
        const size_t n = a->skins[s].joint_count * sizeof(cna_mat4);
        if (memcmp(cna_character_skin_transforms(ca, s), cna_character_skin_transforms(cb, s), n) != 0)
            fail_msg("%s: skins[%zu] palette differs at animation %ld, tick %lld", what, s, anim, (long long)ticks);
    }
    for (size_t i = 0; i < a->mesh_count; i++)
        for (size_t k = 0; k < a->meshes[i].part_count; k++) {
            size_t na = 0, nb = 0, sa = 0, sb = 0;
            const float *wa = cna_character_morph_weights(ca, i, k, &na);
            const float *wb = cna_character_morph_weights(cb, i, k, &nb);
            assert_int_equal(na, nb);
            if (na) assert_memory_equal(wa, wb, na * sizeof(float));
            const void *va = cna_character_part_vertices(ca, i, k, &sa);
            const void *vb = cna_character_part_vertices(cb, i, k, &sb);
            assert_int_equal(sa, sb);
            if (sa && memcmp(va, vb, sa) != 0)
                fail_msg("%s: meshes[%zu].parts[%zu] vertices differ at animation %ld, tick %lld", what, i, k, anim,
                         (long long)ticks);
        }
}

/* The final positions by hand (cnb_pose_model) bit for bit. */
static void same_hand_pose(const cna_model *a, const cna_model *b, long anim, double t)
{
    cnb_pose pa, pb;
    cnb_pose_model(a, anim, t, &pa);
    cnb_pose_model(b, anim, t, &pb);
    assert_int_equal(pa.position_count, pb.position_count);
    assert_memory_equal(pa.absolute, pb.absolute, a->bone_count * sizeof(cna_mat4));
    assert_memory_equal(pa.skin, pb.skin, pa.skin_matrices * sizeof(cna_mat4));
    assert_memory_equal(pa.positions, pb.positions, pa.position_count * sizeof(float));
    cnb_pose_free(&pa);
    cnb_pose_free(&pb);
}

static const v2_file v3_files[] = {
    {"simple_skin.v3.cnb", "corpus/valid/SimpleSkin/simple_skin.gltf"},
    {"AnimatedMorphCube.v3.cnb", "corpus/valid/AnimatedMorphCube/AnimatedMorphCube.gltf"},
    {"mesh-flat-strip.v3.cnb", "fixtures-mesh/mesh-flat-strip.gltf"},
    {"skin-two-instances.v3.cnb", "fixtures/skin-two-instances.gltf"},
};
#define V3_FILE_COUNT (sizeof v3_files / sizeof v3_files[0])

/* Characters of a and b, at rest and at six times of every animation: the same pose. */
static void poses_alike(const cna_model *a, const cna_model *b, const char *what)
{
    cna_character *ca = once_character(a), *cb = once_character(b);
    same_character_pose(a, ca, cb, what, -1, 0); /* at rest */
    for (long anim = -1; anim < (long)a->animation_count; anim++) {
        cna_error err;
        assert_int_equal(cna_character_play(ca, anim, &err), CNA_OK);
        assert_int_equal(cna_character_play(cb, anim, &err), CNA_OK);
        const int64_t d = cna_character_duration(ca);
        assert_int_equal(d, cna_character_duration(cb));
        const int64_t times[6] = {0, d / 7, d / 3, d / 2, d - 1, d + CNA_TICKS_PER_SECOND};
        for (int i = 0; i < 6; i++) {
            assert_int_equal(cna_character_seek_ticks(ca, times[i], &err), CNA_OK);
            assert_int_equal(cna_character_seek_ticks(cb, times[i], &err), CNA_OK);
            assert_int_equal(cna_character_pose(ca, &err), CNA_OK);
            assert_int_equal(cna_character_pose(cb, &err), CNA_OK);
            same_character_pose(a, ca, cb, what, anim, times[i]);
            same_hand_pose(a, b, anim, cna_ticks_to_seconds(times[i]));
        }
    }
    cna_character_free(ca);
    cna_character_free(cb);
}

/* Version 3 wrote everything version 4 writes but markers: the loaded model
 * equals the glTF import field for field, and poses as it does. */
static void version_3_files_load_and_pose_bit_for_bit_like_their_gltf(void **state)
{
    (void)state;
    for (size_t f = 0; f < V3_FILE_COUNT; f++) {
        char rel[256];
        snprintf(rel, sizeof rel, "cnb-v3/%s", v3_files[f].cnb);
        size_t size = 0;
        unsigned char *bytes = read_file(rel, &size);
        uint32_t version, sections;
        memcpy(&version, bytes + CNA__CNB_OFF_VERSION, 4);
        memcpy(&sections, bytes + CNA__CNB_OFF_SECTION_COUNT, 4);
        assert_int_equal(version, 3);
        assert_int_equal(sections, 15);
        free(bytes);
        cna_model *a = load_path(v3_files[f].gltf);
        cna_model *b = load_path(rel);
        cnb_same_model_names(a, b, false);   /* version 3 stored no material names */
        for (size_t i = 0; i < b->animation_count; i++) {
            size_t n = 1;
            assert_null(cna_model_markers(b, i, &n));
            assert_int_equal(n, 0);
        }
        poses_alike(a, b, v3_files[f].cnb);
        cna_model_free(a);
        cna_model_free(b);
    }
}

/* A version 3 file read as another version: by version 2's record sizes, or
 * with a section missing for version 4. */
static void a_version_3_file_labelled_2_or_4_is_refused(void **state)
{
    (void)state;
    size_t size = 0;
    unsigned char *bytes = read_file("cnb-v3/simple_skin.v3.cnb", &size);
    cna_model *m = NULL;
    cna_error err;
    bytes[CNA__CNB_OFF_VERSION] = 2;
    refix_checksum(bytes, size);
    assert_int_equal(cna_cnb_load_memory(bytes, size, NULL, &m, &err), CNA_ERROR_INVALID_DATA);
    assert_string_equal(err.message, "cnb: section BONES: record size 128 is not 192");
    bytes[CNA__CNB_OFF_VERSION] = 4;
    refix_checksum(bytes, size);
    assert_int_equal(cna_cnb_load_memory(bytes, size, NULL, &m, &err), CNA_ERROR_INVALID_DATA);
    assert_string_equal(err.message, "cnb: section_count 15 is not 18 (version 4)");
    assert_null(m);
    bytes[CNA__CNB_OFF_VERSION] = 3;
    refix_checksum(bytes, size);
    assert_int_equal(cna_cnb_load_memory(bytes, size, NULL, &m, &err), CNA_OK);
    cna_model_free(m);
    free(bytes);
}

static void record_marker(const cna_event *e, void *user)
{
    if (e->kind == CNA_EVENT_MARKER) (*(size_t *)user)++;
}

static void markers_survive_a_bake_in_order(void **state)
{
    (void)state;
    cna_model *a = load_path("corpus/valid/RobotExpressive/robot.glb");
    const int64_t d0 = a->node_clips[0].duration;
    cna_error err;
    /* at 0, at the end, duplicates, and an animation with none between two with some */
    const struct {
        size_t animation;
        const char *name;
        double seconds;
    } add[] = {{0, "end", cna_ticks_to_seconds(d0)}, {0, "start", 0.0}, {0, "mid", 1.0}, {0, "mid again", 1.0},
               {5, "punch", 0.4}, {13, "nod \xc3\xa9", 0.0}, {13, "second", 1.5}, {5, "wind-up", 0.1}};
    for (size_t i = 0; i < sizeof add / sizeof add[0]; i++)
        assert_int_equal(cna_model_add_marker(a, add[i].animation, add[i].name, add[i].seconds, &err), CNA_OK);
    size_t size = 0;
    unsigned char *bytes = cnb_test_bake(a, 0.0f, &size);
    uint64_t off, count;
    section_at(bytes, CNA__CNB_MARKERS, &off, &count);
    assert_int_equal(count, 8);
    /* the records: animation by animation, each by time */
    const uint32_t want_anim[8] = {0, 0, 0, 0, 5, 5, 13, 13};
    const int64_t want_ticks[8] = {0, CNA_TICKS_PER_SECOND, CNA_TICKS_PER_SECOND, d0, 1000000, 4000000, 0,
                                   15000000};
    for (size_t i = 0; i < 8; i++) {
        uint32_t anim;
        int64_t ticks;
        memcpy(&anim, bytes + off + 24 * i, 4);
        memcpy(&ticks, bytes + off + 24 * i + 16, 8);
        assert_int_equal(anim, want_anim[i]);
        assert_int_equal(ticks, want_ticks[i]);
    }
    cna_model *b = cnb_test_load(bytes, size);
    cnb_same_model(a, b); /* markers included, name by name */
    size_t n = 0;
    const cna_marker *mk = cna_model_markers(b, 0, &n);
    assert_int_equal(n, 4);
    assert_string_equal(mk[1].name, "mid");
    assert_string_equal(mk[2].name, "mid again");
    assert_int_equal(cna_model_size_bytes(b) > 0, 1);
    /* a character of the loaded model reports them */
    cna_character *c = NULL;
    size_t crossed = 0;
    assert_int_equal(cna_character_create(b, NULL, &c, &err), CNA_OK);
    assert_int_equal(cna_character_set_event_listener(c, record_marker, &crossed, &err), CNA_OK);
    assert_int_equal(cna_character_play(c, 0, &err), CNA_OK);
    assert_int_equal(cna_character_advance_ticks(c, d0, &err), CNA_OK); /* 0 -> D: mid, mid again, end, start */
    assert_int_equal(crossed, 4);
    cna_character_free(c);
    /* and the loaded model bakes to the same bytes */
    size_t size2 = 0;
    unsigned char *again = cnb_test_bake(b, 0.0f, &size2);
    assert_int_equal(size2, size);
    assert_memory_equal(again, bytes, size);
    free(again);
    free(bytes);
    cna_model_free(b);
    cna_model_free(a);
    /* a model without markers: an empty MARKERS section */
    a = load_path("corpus/valid/SimpleSkin/simple_skin.gltf");
    bytes = cnb_test_bake(a, 0.0f, &size);
    section_at(bytes, CNA__CNB_MARKERS, &off, &count);
    assert_int_equal(count, 0);
    b = cnb_test_load(bytes, size);
    assert_null(cna_model_markers(b, 0, &n));
    free(bytes);
    cna_model_free(b);
    cna_model_free(a);
}

static void version_2_files_load_and_pose_bit_for_bit_like_their_gltf(void **state)
{
    (void)state;
    for (size_t f = 0; f < V2_FILE_COUNT; f++) {
        char rel[256];
        snprintf(rel, sizeof rel, "cnb-v2/%s", v2_files[f].cnb);
        size_t size = 0;
        unsigned char *bytes = read_file(rel, &size);
        uint32_t version;
        memcpy(&version, bytes + CNA__CNB_OFF_VERSION, 4);
        assert_int_equal(version, 2);
        free(bytes);
        cna_model *a = load_path(v2_files[f].gltf);
        cna_model *b = load_path(rel);
        assert_int_equal(a->bone_count, b->bone_count);
        assert_int_equal(a->mesh_count, b->mesh_count);
        assert_int_equal(a->skin_count, b->skin_count);
        assert_int_equal(a->animation_count, b->animation_count);
        for (size_t i = 0; i < a->mesh_count; i++) {
            assert_null(b->meshes[i].target_names); /* version 2 kept none */
            assert_int_equal(a->meshes[i].part_count, b->meshes[i].part_count);
            for (size_t k = 0; k < a->meshes[i].part_count; k++) {
                const cna_model_part *pa = &a->meshes[i].parts[k], *pb = &b->meshes[i].parts[k];
                assert_int_equal(pa->vertex_count, pb->vertex_count);
                assert_memory_equal(pa->vertices, pb->vertices, pa->vertex_count * pa->declaration.stride);
                /* these files use every file vertex: the derived count is the file's */
                assert_int_equal(pa->source_vertex_count, pb->source_vertex_count);
            }
        }
        for (size_t s = 0; s < b->skin_count; s++)
            for (size_t t = 0; t < s && b->skins[s].data.clip_count > 0; t++)
                assert_true(b->skins[s].data.clips != b->skins[t].data.clips); /* one copy per skin */
        poses_alike(a, b, v2_files[f].cnb);
        cna_model_free(a);
        cna_model_free(b);
    }
}

/* Every truncation and every single bit flip of a version 2 file is refused
 * cleanly (the checksum or the length catches it). */
static void damaged_version_2_files_are_refused_cleanly(void **state)
{
    (void)state;
    size_t size = 0;
    unsigned char *bytes = read_file("cnb-v2/mesh-flat-strip.v2.cnb", &size);
    cna_model *m = NULL;
    cna_error err;
    for (size_t len = 0; len < size; len += 8) {
        assert_int_not_equal(cna_cnb_load_memory(bytes, len, NULL, &m, &err), CNA_OK);
        assert_null(m);
    }
    for (size_t i = 0; i < size; i += 3) {
        bytes[i] ^= (unsigned char)(1u << (i % 8));
        assert_int_not_equal(cna_cnb_load_memory(bytes, size, NULL, &m, &err), CNA_OK);
        assert_null(m);
        bytes[i] ^= (unsigned char)(1u << (i % 8));
    }
    assert_int_equal(cna_cnb_load_memory(bytes, size, NULL, &m, &err), CNA_OK);
    cna_model_free(m);
    free(bytes);
}

static void a_skin_instanced_by_several_nodes_stores_its_clips_once(void **state)
{
    (void)state;
    /* RobotExpressive: 14 model skins (one per instancing node) of one glTF
     * skin, sharing one clip set since import; 14 animations */
    cna_model *a = load_path("corpus/valid/RobotExpressive/robot.glb");
    assert_int_equal(a->skin_count, 14);
    assert_int_equal(a->animation_count, 14);
    for (size_t s = 1; s < a->skin_count; s++) assert_ptr_equal(a->skins[s].data.clips, a->skins[0].data.clips);
    size_t size = 0;
    unsigned char *bytes = cnb_test_bake(a, 0.0f, &size);
    uint64_t off, clips;
    section_at(bytes, CNA__CNB_CLIPS, &off, &clips);
    assert_int_equal(clips, 2 * a->animation_count); /* the scene-node clips and one skin clip set */
    uint64_t skins_off, skins;
    section_at(bytes, CNA__CNB_SKINS, &skins_off, &skins);
    for (size_t s = 0; s < skins; s++) {
        uint64_t first;
        memcpy(&first, bytes + skins_off + s * cna__cnb_record_size[CNA__CNB_SKINS] + 80, 8); /* first_clip */
        assert_int_equal(first, a->animation_count);
    }
    cna_model *b = cnb_test_load(bytes, size);
    cnb_same_model(a, b);
    for (size_t s = 1; s < b->skin_count; s++) assert_ptr_equal(b->skins[s].data.clips, b->skins[0].data.clips);
    /* a skin whose clip range reaches past CLIPS is refused */
    const uint64_t past = clips - 1;
    memcpy(bytes + skins_off + 3 * cna__cnb_record_size[CNA__CNB_SKINS] + 80, &past, 8);
    refix_checksum(bytes, size);
    cna_model *c = NULL;
    cna_error err;
    assert_int_equal(cna_cnb_load_memory(bytes, size, NULL, &c, &err), CNA_ERROR_INVALID_DATA);
    char want[128];
    snprintf(want, sizeof want, "cnb: skins[3]: clips %llu..%llu are outside the %llu stored",
             (unsigned long long)past, (unsigned long long)(past + a->animation_count), (unsigned long long)clips);
    assert_string_equal(err.message, want);
    /* a skin pointing at the scene-node clips is refused by their target */
    const uint64_t zero = 0;
    memcpy(bytes + skins_off + 3 * cna__cnb_record_size[CNA__CNB_SKINS] + 80, &zero, 8);
    refix_checksum(bytes, size);
    assert_int_equal(cna_cnb_load_memory(bytes, size, NULL, &c, &err), CNA_ERROR_INVALID_DATA);
    assert_string_equal(err.message, "cnb: clips[0]: target scene-node; expected joint-palette");
    assert_null(c);
    free(bytes);
    cna_model_free(b);
    cna_model_free(a);
}

/* The placements of one glTF mesh with one skin share their vertex data in
 * the model, once in the file, and again after loading. */
static void placements_of_one_mesh_share_their_vertex_data_through_a_bake(void **state)
{
    (void)state;
    cna_model *a = load_path("fixtures/skin-two-instances.gltf");
    assert_int_equal(a->mesh_count, 2);
    const cna_model_part *p0 = &a->meshes[0].parts[0], *p1 = &a->meshes[1].parts[0];
    assert_true(a->meshes[0].skin != a->meshes[1].skin);
    assert_ptr_equal(p0->vertices, p1->vertices);
    assert_ptr_equal(p0->indices, p1->indices);
    size_t size = 0;
    unsigned char *bytes = cnb_test_bake(a, 0.0f, &size);
    uint64_t off, count;
    section_at(bytes, CNA__CNB_PARTS, &off, &count);
    assert_int_equal(count, 2);
    assert_memory_equal(bytes + off + 16, bytes + off + cna__cnb_record_size[CNA__CNB_PARTS] + 16, 16); /* one array */
    cna_model *b = cnb_test_load(bytes, size);
    cnb_same_model(a, b);
    assert_ptr_equal(b->meshes[0].parts[0].vertices, b->meshes[1].parts[0].vertices);
    assert_ptr_equal(b->meshes[0].parts[0].indices, b->meshes[1].parts[0].indices);
    free(bytes);
    cna_model_free(b);
    cna_model_free(a);
}

static void target_names_survive_a_bake(void **state)
{
    (void)state;
    cna_model *a = load_path("corpus/valid/MorphStressTest/MorphStressTest.gltf");
    size_t named = 0;
    for (size_t i = 0; i < a->mesh_count; i++) named += a->meshes[i].target_name_count;
    assert_true(named > 0);
    size_t size = 0;
    unsigned char *bytes = cnb_test_bake(a, 0.0f, &size);
    cna_model *b = cnb_test_load(bytes, size);
    cnb_same_model(a, b); /* the names, string by string */
    for (size_t i = 0; i < a->mesh_count; i++)
        if (a->meshes[i].target_names) assert_non_null(b->meshes[i].target_names[0]);
    /* a name count that is not the parts' target count is refused */
    size_t mesh = 0;
    while (!a->meshes[mesh].target_names) mesh++;
    uint64_t off, count;
    section_at(bytes, CNA__CNB_MESHES, &off, &count);
    unsigned char *rec = bytes + off + mesh * cna__cnb_record_size[CNA__CNB_MESHES];
    uint64_t n;
    memcpy(&n, rec + 72, 8); /* MESHES: target_name_count at 72 */
    const uint64_t fewer = n - 1;
    uint64_t bytes_field = fewer * 8;
    memcpy(rec + 72, &fewer, 8);
    memcpy(rec + 64, &bytes_field, 8); /* the reference's byte size */
    refix_checksum(bytes, size);
    cna_model *c = NULL;
    cna_error err;
    assert_int_equal(cna_cnb_load_memory(bytes, size, NULL, &c, &err), CNA_ERROR_INVALID_DATA);
    char want[160];
    snprintf(want, sizeof want, "cnb: meshes[%zu]: %llu target names for parts[0]'s %llu targets", mesh,
             (unsigned long long)fewer, (unsigned long long)n);
    assert_string_equal(err.message, want);
    assert_null(c);
    /* a name outside STRINGS is refused */
    memcpy(rec + 72, &n, 8);
    bytes_field = n * 8;
    memcpy(rec + 64, &bytes_field, 8);
    uint64_t data_off, unused, names_at;
    section_at(bytes, CNA__CNB_DATA, &data_off, &unused);
    memcpy(&names_at, rec + 56, 8);
    const uint32_t far = 0x7ffffff0u;
    memcpy(bytes + data_off + names_at, &far, 4);
    refix_checksum(bytes, size);
    assert_int_equal(cna_cnb_load_memory(bytes, size, NULL, &c, &err), CNA_ERROR_INVALID_DATA);
    snprintf(want, sizeof want, "cnb: meshes[%zu].target_names[0]: string at %u", mesh, (unsigned)far);
    assert_true(strncmp(err.message, want, strlen(want)) == 0);
    free(bytes);
    cna_model_free(b);
    cna_model_free(a);
}

/* A primitive without normals whose last file vertex no triangle uses: the
 * split part keeps the file's 5 vertices, through a .cnb too. */
static const char unused_vertex_gltf[] =
    "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"mesh\":0}],"
    "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"indices\":1}]}],"
    "\"buffers\":[{\"byteLength\":72,\"uri\":\"data:application/octet-stream;base64,"
    "AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAACAPwAAgD8AAAAAAAAAQAAAAEAAAAAAAAABAAIAAQADAAIA\"}],"
    "\"bufferViews\":[{\"buffer\":0,\"byteLength\":60},{\"buffer\":0,\"byteOffset\":60,\"byteLength\":12}],"
    "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":5,\"type\":\"VEC3\","
    "\"min\":[0,0,0],\"max\":[2,2,0]},{\"bufferView\":1,\"componentType\":5123,\"count\":6,\"type\":\"SCALAR\"}]}";

static void a_split_part_keeps_the_file_vertex_count_through_a_bake(void **state)
{
    (void)state;
    cna_gltf_document *doc = NULL;
    cna_error err;
    assert_int_equal(cna_gltf_load_memory(unused_vertex_gltf, sizeof unused_vertex_gltf - 1, NULL, &doc, &err),
                     CNA_OK);
    cna_model *a = NULL;
    assert_int_equal(cna_model_import_gltf(doc, NULL, &a, &err), CNA_OK);
    cna_gltf_document_free(doc);
    const cna_model_part *p = &a->meshes[0].parts[0];
    assert_non_null(p->source_vertex);
    assert_int_equal(p->vertex_count, 7); /* 6 corners, then file vertex 4, which no triangle uses */
    assert_int_equal(p->source_vertex[6], 4);
    assert_int_equal(p->source_vertex_count, 5);
    size_t size = 0;
    unsigned char *bytes = cnb_test_bake(a, 0.0f, &size);
    cna_model *b = cnb_test_load(bytes, size);
    cnb_same_model(a, b);
    assert_int_equal(b->meshes[0].parts[0].source_vertex_count, 5);
    /* a count not above every source vertex is refused, naming the entry */
    uint64_t off, count;
    section_at(bytes, CNA__CNB_PARTS, &off, &count);
    const uint64_t three = 3;
    memcpy(bytes + off + 248, &three, 8); /* PARTS: source_vertex_count at 248 */
    refix_checksum(bytes, size);
    cna_model *c = NULL;
    assert_int_equal(cna_cnb_load_memory(bytes, size, NULL, &c, &err), CNA_ERROR_INVALID_DATA);
    assert_string_equal(err.message, "cnb: parts[0].source_vertex[4]: 3 is not below source_vertex_count 3");
    assert_null(c);
    free(bytes);
    cna_model_free(b);
    cna_model_free(a);
}

static void an_unsplit_part_must_count_its_own_vertices(void **state)
{
    (void)state;
    cna_model *a = cnb_test_import(&cnb_corpus[1], CNA_CLIP_MODE_FAITHFUL); /* BoxAnimated: has normals */
    const cna_model_part *p = &a->meshes[0].parts[0];
    assert_null(p->source_vertex);
    assert_int_equal(p->source_vertex_count, p->vertex_count);
    size_t size = 0;
    unsigned char *bytes = cnb_test_bake(a, 0.0f, &size);
    uint64_t off, count;
    section_at(bytes, CNA__CNB_PARTS, &off, &count);
    const uint64_t more = p->vertex_count + 1;
    memcpy(bytes + off + 248, &more, 8);
    refix_checksum(bytes, size);
    cna_model *c = NULL;
    cna_error err;
    assert_int_equal(cna_cnb_load_memory(bytes, size, NULL, &c, &err), CNA_ERROR_INVALID_DATA);
    char want[128];
    snprintf(want, sizeof want, "cnb: parts[0].source_vertex_count: %llu differs from vertex_count %zu (not split)",
             (unsigned long long)more, p->vertex_count);
    assert_string_equal(err.message, want);
    free(bytes);
    cna_model_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(version_2_files_load_and_pose_bit_for_bit_like_their_gltf),
        cmocka_unit_test(damaged_version_2_files_are_refused_cleanly),
        cmocka_unit_test(version_3_files_load_and_pose_bit_for_bit_like_their_gltf),
        cmocka_unit_test(a_version_3_file_labelled_2_or_4_is_refused),
        cmocka_unit_test(markers_survive_a_bake_in_order),
        cmocka_unit_test(a_skin_instanced_by_several_nodes_stores_its_clips_once),
        cmocka_unit_test(placements_of_one_mesh_share_their_vertex_data_through_a_bake),
        cmocka_unit_test(target_names_survive_a_bake),
        cmocka_unit_test(a_split_part_keeps_the_file_vertex_count_through_a_bake),
        cmocka_unit_test(an_unsplit_part_must_count_its_own_vertices),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
