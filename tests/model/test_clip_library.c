/*
 * Clip libraries bound by node name (include/cna/clips.h):
 *   - on every character/library pair of tests/data/libraries, a library
 *     clip bound to the character gives exactly the clips and poses of the
 *     same animations grafted into the character's own file. The graft is
 *     made here: the library's buffer, views, accessors and animations are
 *     appended to the character's glTF JSON, each channel's node replaced by
 *     the character's node of the same name (channels on other names
 *     dropped), and the result imported as an ordinary file;
 *   - the diagnostics name the unbound channels' nodes and the unreached
 *     nodes; a library that binds nothing, NULL arguments and a file without
 *     animations are refused with exact messages, changing nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "win_compat.h"

#include "cna/cna.h"

#define LIBS CNA_TEST_DATA_DIR "/libraries/"

/* ------------------------------------------------------------------ GLB and the graft */

typedef struct glb {
    char *json;
    unsigned char *bin;
    size_t bin_size;
} glb;

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static glb read_glb(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *data = malloc((size_t)size);
    assert_non_null(data);
    assert_int_equal(fread(data, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    assert_int_equal(le32(data), 0x46546C67u); /* "glTF" */
    glb g = {0};
    size_t at = 12;
    while (at + 8 <= (size_t)size) {
        uint32_t len = le32(data + at), type = le32(data + at + 4);
        if (type == 0x4E4F534Au) { /* JSON */
            g.json = malloc(len + 1);
            memcpy(g.json, data + at + 8, len);
            g.json[len] = '\0';
        } else if (type == 0x004E4942u) { /* BIN */
            g.bin = malloc(len ? len : 1);
            memcpy(g.bin, data + at + 8, len);
            g.bin_size = len;
        }
        at += 8 + len;
    }
    free(data);
    assert_non_null(g.json);
    return g;
}

static void free_glb(glb *g)
{
    free(g->json);
    free(g->bin);
}

static void write_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f) fail_msg("cannot write %s", path);
    assert_int_equal(fwrite(data, 1, size, f), size);
    fclose(f);
}

static int count_of(const cJSON *a) { return a ? cJSON_GetArraySize(a) : 0; }

static void shift_index(cJSON *obj, const char *key, int by)
{
    cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (cJSON_IsNumber(v)) cJSON_SetNumberValue(v, v->valuedouble + by);
}

static cJSON *array_of(cJSON *root, const char *key)
{
    cJSON *a = cJSON_GetObjectItemCaseSensitive(root, key);
    if (!a) a = cJSON_AddArrayToObject(root, key);
    return a;
}

/* The character's file with the library's animations written into it, the
 * channels moved to the character's nodes of the same names; returns the
 * path of the .gltf written under dir. */
static void graft_json(const char *character_json, const char *library_json, const cna_model *character,
                       const char *dir, char *out_path, size_t out_size, const void *character_bin,
                       size_t character_bin_size, const void *library_bin, size_t library_bin_size);

static void graft(const char *character_glb, const char *library_glb, const cna_model *character,
                  const char *dir, char *out_path, size_t out_size)
{
    glb t = read_glb(character_glb), l = read_glb(library_glb);
    graft_json(t.json, l.json, character, dir, out_path, out_size, t.bin, t.bin_size, l.bin, l.bin_size);
    free_glb(&t);
    free_glb(&l);
}

/* The graft of two glTF JSON texts with their (single) binary buffers; weights
 * channels are dropped (a graft cannot reorder morph targets). */
static void graft_json(const char *character_json, const char *library_json, const cna_model *character,
                       const char *dir, char *out_path, size_t out_size, const void *character_bin,
                       size_t character_bin_size, const void *library_bin, size_t library_bin_size)
{
    struct {
        const char *json;
        const void *bin;
        size_t bin_size;
    } t = {character_json, character_bin, character_bin_size}, l = {library_json, library_bin, library_bin_size};
    cJSON *tj = cJSON_Parse(t.json), *lj = cJSON_Parse(l.json);
    assert_non_null(tj);
    assert_non_null(lj);
    char path[512];
    snprintf(path, sizeof path, "%s/character.bin", dir);
    write_file(path, t.bin, t.bin_size);
    snprintf(path, sizeof path, "%s/library.bin", dir);
    write_file(path, l.bin, l.bin_size);

    cJSON *buffers = array_of(tj, "buffers");
    cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetArrayItem(buffers, 0), "uri");
    cJSON_AddStringToObject(cJSON_GetArrayItem(buffers, 0), "uri", "character.bin");
    const int lib_buffer = count_of(buffers);
    cJSON *nb = cJSON_CreateObject();
    cJSON_AddStringToObject(nb, "uri", "library.bin");
    cJSON_AddNumberToObject(nb, "byteLength", (double)l.bin_size);
    cJSON_AddItemToArray(buffers, nb);

    cJSON *views = array_of(tj, "bufferViews"), *accessors = array_of(tj, "accessors");
    const int view_base = count_of(views), accessor_base = count_of(accessors);
    cJSON *v;
    cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(lj, "bufferViews")) {
        cJSON *c = cJSON_Duplicate(v, 1);
        cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(c, "buffer"), lib_buffer);
        cJSON_AddItemToArray(views, c);
    }
    cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(lj, "accessors")) {
        cJSON *c = cJSON_Duplicate(v, 1);
        shift_index(c, "bufferView", view_base);
        cJSON *sparse = cJSON_GetObjectItemCaseSensitive(c, "sparse");
        if (sparse) {
            shift_index(cJSON_GetObjectItemCaseSensitive(sparse, "indices"), "bufferView", view_base);
            shift_index(cJSON_GetObjectItemCaseSensitive(sparse, "values"), "bufferView", view_base);
        }
        cJSON_AddItemToArray(accessors, c);
    }
    const cJSON *lnodes = cJSON_GetObjectItemCaseSensitive(lj, "nodes");
    cJSON *animations = array_of(tj, "animations");
    cJSON *anim;
    cJSON_ArrayForEach(anim, cJSON_GetObjectItemCaseSensitive(lj, "animations")) {
        cJSON *c = cJSON_Duplicate(anim, 1);
        cJSON *s;
        cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(c, "samplers")) {
            shift_index(s, "input", accessor_base);
            shift_index(s, "output", accessor_base);
        }
        cJSON *channels = cJSON_GetObjectItemCaseSensitive(c, "channels");
        for (int i = count_of(channels) - 1; i >= 0; i--) {
            cJSON *target = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(channels, i), "target");
            cJSON *node = cJSON_GetObjectItemCaseSensitive(target, "node");
            const cJSON *name = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(lnodes, node->valueint), "name");
            const cJSON *kind = cJSON_GetObjectItemCaseSensitive(target, "path");
            int32_t bone = cJSON_IsString(name) ? cna_model_find_bone(character, name->valuestring) : -1;
            if (bone < 0 || strcmp(kind->valuestring, "weights") == 0) {
                cJSON_DeleteItemFromArray(channels, i);
                continue;
            }
            const int gn = character->bones[bone].gltf_node;
            cJSON_SetNumberValue(node, gn);
            /* glTF animates TRS nodes only: a matrix node of the character is
             * written as its translation (the matrices here translate only) */
            cJSON *tnode = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(tj, "nodes"), gn);
            cJSON *matrix = cJSON_GetObjectItemCaseSensitive(tnode, "matrix");
            if (matrix) {
                double m[16];
                for (int k = 0; k < 16; k++) m[k] = cJSON_GetArrayItem(matrix, k)->valuedouble;
                for (int k = 0; k < 12; k++) assert_true(m[k] == ((k % 5) == 0 ? 1.0 : 0.0));
                cJSON *tr = cJSON_CreateDoubleArray(m + 12, 3);
                cJSON_DeleteItemFromObjectCaseSensitive(tnode, "matrix");
                cJSON_AddItemToObject(tnode, "translation", tr);
            }
        }
        cJSON_AddItemToArray(animations, c);
    }
    char *text = cJSON_PrintUnformatted(tj);
    snprintf(out_path, out_size, "%s/graft.gltf", dir);
    write_file(out_path, text, strlen(text));
    cJSON_free(text);
    cJSON_Delete(tj);
    cJSON_Delete(lj);
}

/* ------------------------------------------------------------------ comparisons */

static cna_model *load_model(const char *path)
{
    cna_model *m = NULL;
    cna_error err;
    memset(&err, 0, sizeof err);
    if (cna_model_load_file(path, NULL, &m, &err) != CNA_OK) fail_msg("%s: %s", path, err.message);
    return m;
}

static cna_clip_library *load_library(const char *path)
{
    cna_clip_library *lib = NULL;
    cna_error err;
    memset(&err, 0, sizeof err);
    if (cna_clip_library_load_file(path, NULL, &lib, &err) != CNA_OK) fail_msg("%s: %s", path, err.message);
    return lib;
}

static cna_model *bind(const cna_model *model, const cna_clip_library *lib)
{
    cna_model *out = NULL;
    cna_error err;
    memset(&err, 0, sizeof err);
    const cna_clip_library *libs[1] = {lib};
    if (cna_model_bind_clips(model, libs, 1, NULL, &out, &err) != CNA_OK) fail_msg("bind: %s", err.message);
    return out;
}

static void expect_same_clip(const cna_clip *a, const cna_clip *b, const char *what, size_t index)
{
    if (strcmp(a->name, b->name) != 0 || a->duration != b->duration || a->track_count != b->track_count ||
        a->target != b->target)
        fail_msg("%s clip %zu: \"%s\" %lld ticks %zu tracks, graft \"%s\" %lld ticks %zu tracks", what, index,
                 a->name, (long long)a->duration, a->track_count, b->name, (long long)b->duration, b->track_count);
    for (size_t t = 0; t < a->track_count; t++) {
        const cna_bone_track *x = &a->tracks[t], *y = &b->tracks[t];
        if (x->bone != y->bone || x->key_count != y->key_count ||
            memcmp(x->keys, y->keys, x->key_count * sizeof *x->keys) != 0)
            fail_msg("%s clip %zu \"%s\" track %zu (bone %d): keys differ from the graft's", what, index, a->name, t,
                     (int)x->bone);
    }
}

/* The bound model's clips equal the graft's, and so do the poses at four
 * times of every library animation (bones and palettes, bit for bit). */
static void expect_same_as_graft(const cna_model *character, const cna_model *bound, const cna_model *grafted)
{
    assert_int_equal(bound->animation_count, grafted->animation_count);
    assert_int_equal(bound->skin_count, grafted->skin_count);
    size_t library_tracks = 0;
    for (size_t a = character->animation_count; a < bound->animation_count; a++) {
        library_tracks += bound->node_clips[a].track_count;
        for (size_t s = 0; s < bound->skin_count; s++) library_tracks += bound->skins[s].data.clips[a].track_count;
    }
    assert_true(library_tracks > 0); /* the comparison is about something */
    for (size_t a = 0; a < bound->animation_count; a++) {
        expect_same_clip(&bound->node_clips[a], &grafted->node_clips[a], "scene-node", a);
        for (size_t s = 0; s < bound->skin_count; s++)
            expect_same_clip(&bound->skins[s].data.clips[a], &grafted->skins[s].data.clips[a], "skin", a);
    }
    cna_character *cb = NULL, *cg = NULL;
    cna_error err;
    assert_int_equal(cna_character_create(bound, NULL, &cb, &err), CNA_OK);
    assert_int_equal(cna_character_create(grafted, NULL, &cg, &err), CNA_OK);
    for (size_t a = character->animation_count; a < bound->animation_count; a++) {
        assert_int_equal(cna_character_play(cb, (long)a, &err), CNA_OK);
        assert_int_equal(cna_character_play(cg, (long)a, &err), CNA_OK);
        int64_t d = cna_character_duration(cb);
        const int64_t times[4] = {0, d / 3 + 7, d * 77 / 100, d};
        for (int i = 0; i < 4; i++) {
            assert_int_equal(cna_character_seek_ticks(cb, times[i], &err), CNA_OK);
            assert_int_equal(cna_character_seek_ticks(cg, times[i], &err), CNA_OK);
            assert_int_equal(cna_character_pose(cb, &err), CNA_OK);
            assert_int_equal(cna_character_pose(cg, &err), CNA_OK);
            for (size_t b = 0; b < bound->bone_count; b++)
                if (memcmp(cna_character_absolute_transform(cb, b), cna_character_absolute_transform(cg, b),
                           sizeof(cna_mat4)) != 0)
                    fail_msg("animation %zu at %lld ticks: bone %zu differs from the graft", a, (long long)times[i],
                             b);
            for (size_t s = 0; s < bound->skin_count; s++)
                if (memcmp(cna_character_skin_transforms(cb, s), cna_character_skin_transforms(cg, s),
                           bound->skins[s].joint_count * sizeof(cna_mat4)) != 0)
                    fail_msg("animation %zu at %lld ticks: skin %zu's palette differs from the graft", a,
                             (long long)times[i], s);
        }
    }
    cna_character_free(cb);
    cna_character_free(cg);
}

/* Every clip, and poses at four times of every library animation, bit for bit. */
static void expect_bound_equals_graft(const char *character_path, const char *library_path)
{
    cna_model *character = load_model(character_path);
    cna_clip_library *lib = load_library(library_path);
    cna_model *bound = bind(character, lib);
    cna_clip_library_free(lib); /* the bound model needs nothing of it */

    char dir[] = "/tmp/cna-graft-XXXXXX", graft_path[600];
    assert_non_null(mkdtemp(dir));
    graft(character_path, library_path, character, dir, graft_path, sizeof graft_path);
    cna_model *grafted = load_model(graft_path);

    expect_same_as_graft(character, bound, grafted);
    cna_model_free(grafted);
    cna_model_free(bound);
    cna_model_free(character);
    char path[700];
    const char *files[] = {"graft.gltf", "character.bin", "library.bin"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
}

static void fox_on_fox(void **state)
{
    (void)state;
    expect_bound_equals_graft(LIBS "Mesh2MotionFox/fox-fox.glb", LIBS "Mesh2MotionFox/fox-animations.glb");
}

static void fox_on_dog(void **state)
{
    (void)state;
    expect_bound_equals_graft(LIBS "Mesh2MotionFox/fox-dog.glb", LIBS "Mesh2MotionFox/fox-animations.glb");
}

static void human_on_human(void **state)
{
    (void)state;
    expect_bound_equals_graft(LIBS "Mesh2MotionHuman/human-male.glb",
                              LIBS "Mesh2MotionHuman/human-addon-animations.glb");
}

static void human_on_apose_human(void **state)
{
    (void)state;
    expect_bound_equals_graft(LIBS "CraftedAPoseHuman/human-male-apose.glb",
                              LIBS "Mesh2MotionHuman/human-addon-animations.glb");
}



/* A library file with the faults real packs carry, which do not touch its
 * clips: an invalid skin.skeleton hint (a leaf joint), an empty top-level
 * array, key-time accessors without min/max. It loads, with the diagnostics,
 * and binds to exactly the clips of the faultless file. */
static void lenient_library_binds_alike(void **state)
{
    (void)state;
    char dir[] = "/tmp/cna-clips-XXXXXX", path[600], bin[600];
    assert_non_null(mkdtemp(dir));
    glb l = read_glb(LIBS "Mesh2MotionFox/fox-animations.glb");
    cJSON *j = cJSON_Parse(l.json);
    cJSON *skin = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "skins"), 0);
    cJSON *joints = cJSON_GetObjectItemCaseSensitive(skin, "joints");
    cJSON_DeleteItemFromObjectCaseSensitive(skin, "skeleton");
    cJSON_AddNumberToObject(skin, "skeleton", cJSON_GetArrayItem(joints, cJSON_GetArraySize(joints) - 1)->valuedouble);
    cJSON_AddItemToObject(j, "cameras", cJSON_CreateArray());
    cJSON *anim, *sampler;
    cJSON_ArrayForEach(anim, cJSON_GetObjectItemCaseSensitive(j, "animations"))
    cJSON_ArrayForEach(sampler, cJSON_GetObjectItemCaseSensitive(anim, "samplers")) {
        cJSON *acc = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "accessors"),
                                        cJSON_GetObjectItemCaseSensitive(sampler, "input")->valueint);
        cJSON_DeleteItemFromObjectCaseSensitive(acc, "min");
        cJSON_DeleteItemFromObjectCaseSensitive(acc, "max");
    }
    cJSON_AddStringToObject(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "buffers"), 0), "uri", "lib.bin");
    snprintf(bin, sizeof bin, "%s/lib.bin", dir);
    write_file(bin, l.bin, l.bin_size);
    char *text = cJSON_PrintUnformatted(j);
    snprintf(path, sizeof path, "%s/lib.gltf", dir);
    write_file(path, text, strlen(text));
    cJSON_free(text);
    cJSON_Delete(j);
    free_glb(&l);

    cna_model *fox = load_model(LIBS "Mesh2MotionFox/fox-fox.glb");
    cna_clip_library *faulty = load_library(path), *clean = load_library(LIBS "Mesh2MotionFox/fox-animations.glb");
    cna_model *a = bind(fox, faulty), *b = bind(fox, clean);
    const char *codes[3] = {"skin-skeleton-hint-ignored", "empty-array", "accessor-min-max-computed"};
    for (int i = 0; i < 3; i++) {
        assert_non_null(cna_gltf_document_find_diagnostic(cna_clip_library_document(faulty), codes[i]));
        assert_null(cna_gltf_document_find_diagnostic(cna_clip_library_document(clean), codes[i]));
    }
    assert_null(cna_clip_library_document(NULL));
    assert_int_equal(a->animation_count, 14);
    for (size_t i = 0; i < a->animation_count; i++) {
        expect_same_clip(&a->node_clips[i], &b->node_clips[i], "scene-node", i);
        for (size_t k = 0; k < a->skin_count; k++)
            expect_same_clip(&a->skins[k].data.clips[i], &b->skins[k].data.clips[i], "skin", i);
    }
    cna_model_free(a);
    cna_model_free(b);
    cna_clip_library_free(faulty);
    cna_clip_library_free(clean);
    cna_model_free(fox);
    unlink(path);
    unlink(bin);
    rmdir(dir);
}


/* A .cnb file holding clips serves as a library too: the fox library baked
 * to .cnb binds to the fox and the dog with exactly the clips of the glTF
 * library (every node of its clips animates all three channels, so the
 * .cnb's keys carry no rest value of the library), and retargets alike. */
static void cnb_library_binds_alike(void **state)
{
    (void)state;
    char dir[] = "/tmp/cna-clips-XXXXXX", path[600];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/fox-clips.cnb", dir);
    cna_model *src = load_model(LIBS "Mesh2MotionFox/fox-animations.glb");
    cna_error err;
    assert_int_equal(cna_cnb_write_file(src, NULL, path, &err), CNA_OK);
    cna_model_free(src);
    cna_clip_library *cnb = load_library(path), *gltf = load_library(LIBS "Mesh2MotionFox/fox-animations.glb");
    assert_null(cna_clip_library_document(cnb));
    assert_int_equal(cna_clip_library_animation_count(cnb), 14);
    assert_string_equal(cna_clip_library_animation_name(cnb, 13), "Walk");
    assert_int_equal(cna_clip_library_target_count(cnb, 0), 49);
    const char *characters[2] = {LIBS "Mesh2MotionFox/fox-fox.glb", LIBS "Mesh2MotionFox/fox-dog.glb"};
    for (int c = 0; c < 2; c++) {
        cna_model *m = load_model(characters[c]);
        for (int retarget = 0; retarget < 2; retarget++) {
            cna_bind_options o;
            memset(&o, 0, sizeof o);
            o.retarget = retarget;
            cna_model *a = NULL, *b = NULL;
            const cna_clip_library *la[1] = {cnb}, *lb[1] = {gltf};
            assert_int_equal(cna_model_bind_clips(m, la, 1, &o, &a, &err), CNA_OK);
            assert_int_equal(cna_model_bind_clips(m, lb, 1, &o, &b, &err), CNA_OK);
            for (size_t i = 0; i < a->animation_count; i++) {
                expect_same_clip(&a->node_clips[i], &b->node_clips[i], "scene-node", i);
                for (size_t k = 0; k < a->skin_count; k++)
                    expect_same_clip(&a->skins[k].data.clips[i], &b->skins[k].data.clips[i], "skin", i);
            }
            if (c == 1 && !retarget) {
                const cna_model_diagnostic *d = cna_model_find_diagnostic(a, CNA_MODEL_DIAG_CLIP_UNBOUND);
                assert_non_null(d);
                char expect[700];
                snprintf(expect, sizeof expect, "%s: 1 node(s) its channels move are not in the model: \"Nose\"; "
                         "their channels are ignored", path);
                assert_string_equal(d->message, expect);
            }
            cna_model_free(a);
            cna_model_free(b);
        }
        cna_model_free(m);
    }
    /* a .cnb whose names match nothing */
    cna_model *simple = load_model(CNA_TEST_DATA_DIR "/corpus/valid/SimpleSkin/simple_skin.gltf");
    cna_model *out = NULL;
    const cna_clip_library *la[1] = {cnb};
    assert_int_equal(cna_model_bind_clips(simple, la, 1, NULL, &out, &err), CNA_ERROR_INVALID_DATA);
    assert_non_null(strstr(err.message, ": no track binds to a node of the model (tracks move \""));
    cna_model_free(simple);
    cna_clip_library_free(cnb);
    cna_clip_library_free(gltf);
    unlink(path);
    rmdir(dir);
}

/* ------------------------------------------------------------------ a crafted pair */

/* A little binary buffer with its views and accessors as JSON text. */
typedef struct builder {
    unsigned char bin[4096];
    size_t size;
    char views[4096], accessors[4096];
    int view_count, accessor_count;
} builder;

/* Adds `count` elements of `type` ("SCALAR", "VEC3"...) of `floats` floats each
 * (component FLOAT), or bytes when `ubyte`; returns the accessor index. */
static int add_accessor(builder *b, const void *data, size_t bytes, int count, const char *type, bool ubyte,
                        const char *extra)
{
    assert_true(b->size + bytes <= sizeof b->bin);
    memcpy(b->bin + b->size, data, bytes);
    size_t len = strlen(b->views);
    snprintf(b->views + len, sizeof b->views - len, "%s{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu}",
             b->view_count ? "," : "", b->size, bytes);
    b->size += (bytes + 3) & ~(size_t)3;
    len = strlen(b->accessors);
    snprintf(b->accessors + len, sizeof b->accessors - len,
             "%s{\"bufferView\":%d,\"componentType\":%d,\"count\":%d,\"type\":\"%s\"%s}", b->accessor_count ? "," : "",
             b->view_count, ubyte ? 5121 : 5126, count, type, extra ? extra : "");
    b->view_count++;
    return b->accessor_count++;
}

static void write_gltf(const char *dir, const char *name, const char *bin_name, const builder *b, const char *rest)
{
    char path[600], *text = malloc(16384);
    assert_non_null(text);
    snprintf(text, 16384,
             "{\"asset\":{\"version\":\"2.0\"},%s,\"buffers\":[{\"uri\":\"%s\",\"byteLength\":%zu}],"
             "\"bufferViews\":[%s],\"accessors\":[%s]}",
             rest, bin_name, b->size, b->views, b->accessors);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    write_file(path, text, strlen(text));
    snprintf(path, sizeof path, "%s/%s", dir, bin_name);
    write_file(path, b->bin, b->size);
    free(text);
}

static char *read_text(const char *dir, const char *name)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *t = malloc((size_t)n + 1);
    assert_int_equal(fread(t, 1, (size_t)n, f), (size_t)n);
    t[n] = '\0';
    fclose(f);
    return t;
}

/* The character: a matrix root "Armature" over joints "hip" > "leg", a
 * non-joint "tail" under hip, a rigid "prop", and "body", a skinned mesh with
 * two morph targets named smile and blink; one own animation "Idle". */
static void make_character(const char *dir, builder *b)
{
    memset(b, 0, sizeof *b);
    const float pos[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0};
    const unsigned char joints[16] = {0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    const float weights[16] = {0.5f, 0.5f, 0, 0, 0.25f, 0.75f, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    const float smile[12] = {0, 0.1f, 0, 0, 0.1f, 0, 0, 0, 0, 0, 0, 0};
    const float blink[12] = {0, 0, 0.2f, 0, 0, 0, 0, 0, 0.2f, 0, 0, 0};
    const float idle_t[2] = {0, 2};
    const float idle_v[6] = {0, 1, 0, 0, 1.25f, 0};
    add_accessor(b, pos, sizeof pos, 4, "VEC3", false, ",\"min\":[0,0,0],\"max\":[1,1,0]");
    add_accessor(b, joints, sizeof joints, 4, "VEC4", true, NULL);
    add_accessor(b, weights, sizeof weights, 4, "VEC4", false, NULL);
    add_accessor(b, smile, sizeof smile, 4, "VEC3", false, ",\"min\":[0,0,0],\"max\":[0,0.1,0]");
    add_accessor(b, blink, sizeof blink, 4, "VEC3", false, ",\"min\":[0,0,0],\"max\":[0,0,0.2]");
    add_accessor(b, idle_t, sizeof idle_t, 2, "SCALAR", false, ",\"min\":[0],\"max\":[2]");
    add_accessor(b, idle_v, sizeof idle_v, 2, "VEC3", false, NULL);
    write_gltf(dir, "character.gltf", "character.bin", b,
               "\"scene\":0,\"scenes\":[{\"nodes\":[0]}],\"nodes\":["
               "{\"name\":\"Armature\",\"matrix\":[1,0,0,0,0,1,0,0,0,0,1,0,0.5,0,0,1],\"children\":[1,4,5]},"
               "{\"name\":\"hip\",\"translation\":[0,1,0],\"rotation\":[0,0,0.38268343,0.92387953],"
               "\"children\":[2,3]},"
               "{\"name\":\"leg\",\"translation\":[0,-0.5,0],\"scale\":[1,1.5,1]},"
               "{\"name\":\"tail\",\"translation\":[0,0,-0.3]},"
               "{\"name\":\"body\",\"mesh\":0,\"skin\":0},"
               "{\"name\":\"prop\",\"translation\":[1,0,0]}],"
               "\"skins\":[{\"joints\":[1,2]}],"
               "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":1,\"WEIGHTS_0\":2},"
               "\"targets\":[{\"POSITION\":3},{\"POSITION\":4}]}],\"weights\":[0,0],"
               "\"extras\":{\"targetNames\":[\"smile\",\"blink\"]}}],"
               "\"animations\":[{\"name\":\"Idle\",\"samplers\":[{\"input\":5,\"output\":6}],"
               "\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"translation\"}}]}]");
}

/* The library: the same names with other rests, plus "Nose" and an unnamed
 * node the character lacks, and a mesh "body" whose three targets are named
 * blink, extra, smile. "Wave": rotation only on hip, the matrix root
 * translated, prop stepping, Nose and the unnamed node turning, body's
 * weights; "Kick": a cubic leg translation (faithful subdivision). */
static void make_library(const char *dir, builder *b)
{
    memset(b, 0, sizeof *b);
    const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const float d[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
    const float t3[3] = {0, 0.5f, 1};
    const float t2[2] = {0, 1};
    const float ts[3] = {0, 0.25f, 0.75f};
    const float tk[3] = {0, 0.4f, 1.2f};
    const float hip_r[12] = {0, 0, 0, 1, 0, 0.70710677f, 0, 0.70710677f, 0.5f, 0.5f, 0.5f, 0.5f};
    const float arm_t[6] = {0, 0, 0, 0.25f, 0.5f, -1};
    const float prop_t[9] = {1, 0, 0, 2, 0, 0, 3, 1, 0};
    const float nose_r[8] = {0, 0, 0, 1, 1, 0, 0, 0};
    const float w[6] = {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f}; /* key k: blink, extra, smile */
    const float leg_t[27] = {0, 0, 0, 0, -0.5f, 0, 1, 0, 0,   /* in, value, out */
                             -2, 0, 0, 0.3f, -0.2f, 0.1f, 2, 0, 0, 0, 0, 0, 0, -0.6f, 0, 0, 0, 0};
    add_accessor(b, pos, sizeof pos, 3, "VEC3", false, ",\"min\":[0,0,0],\"max\":[1,1,0]");     /* 0 */
    add_accessor(b, d, sizeof d, 3, "VEC3", false, ",\"min\":[0,0,0],\"max\":[0,0,0]");         /* 1 */
    add_accessor(b, t3, sizeof t3, 3, "SCALAR", false, ",\"min\":[0],\"max\":[1]");             /* 2 */
    add_accessor(b, t2, sizeof t2, 2, "SCALAR", false, ",\"min\":[0],\"max\":[1]");             /* 3 */
    add_accessor(b, ts, sizeof ts, 3, "SCALAR", false, ",\"min\":[0],\"max\":[0.75]");          /* 4 */
    add_accessor(b, tk, sizeof tk, 3, "SCALAR", false, ",\"min\":[0],\"max\":[1.2]");           /* 5 */
    add_accessor(b, hip_r, sizeof hip_r, 3, "VEC4", false, NULL);                              /* 6 */
    add_accessor(b, arm_t, sizeof arm_t, 2, "VEC3", false, NULL);                              /* 7 */
    add_accessor(b, prop_t, sizeof prop_t, 3, "VEC3", false, NULL);                            /* 8 */
    add_accessor(b, nose_r, sizeof nose_r, 2, "VEC4", false, NULL);                            /* 9 */
    add_accessor(b, w, sizeof w, 6, "SCALAR", false, NULL);                                    /* 10 */
    add_accessor(b, leg_t, sizeof leg_t, 9, "VEC3", false, NULL);                              /* 11 */
    write_gltf(dir, "library.gltf", "library.bin", b,
               "\"nodes\":["
               "{\"name\":\"Armature\",\"children\":[1,4,5,6]},"
               "{\"name\":\"hip\",\"translation\":[0,2,0],\"children\":[2,3]},"
               "{\"name\":\"leg\",\"translation\":[0,-1,0]},"
               "{\"name\":\"Nose\"},"
               "{\"name\":\"body\",\"mesh\":0},"
               "{\"name\":\"prop\"},"
               "{\"translation\":[0,3,0]}],"
               "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},"
               "\"targets\":[{\"POSITION\":1},{\"POSITION\":1},{\"POSITION\":1}]}],"
               "\"extras\":{\"targetNames\":[\"blink\",\"extra\",\"smile\"]}}],"
               "\"animations\":["
               "{\"name\":\"Wave\",\"samplers\":[{\"input\":2,\"output\":6},{\"input\":3,\"output\":7},"
               "{\"input\":4,\"output\":8,\"interpolation\":\"STEP\"},{\"input\":3,\"output\":9},"
               "{\"input\":3,\"output\":10}],"
               "\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"rotation\"}},"
               "{\"sampler\":1,\"target\":{\"node\":0,\"path\":\"translation\"}},"
               "{\"sampler\":2,\"target\":{\"node\":5,\"path\":\"translation\"}},"
               "{\"sampler\":3,\"target\":{\"node\":3,\"path\":\"rotation\"}},"
               "{\"sampler\":3,\"target\":{\"node\":6,\"path\":\"rotation\"}},"
               "{\"sampler\":4,\"target\":{\"node\":4,\"path\":\"weights\"}}]},"
               "{\"name\":\"Kick\",\"samplers\":[{\"input\":5,\"output\":11,\"interpolation\":\"CUBICSPLINE\"}],"
               "\"channels\":[{\"sampler\":0,\"target\":{\"node\":2,\"path\":\"translation\"}}]}]");
}

typedef struct crafted {
    char dir[64];
    builder character, library;
    cna_model *model;
    cna_clip_library *lib;
} crafted;

static int crafted_setup(void **state)
{
    crafted *c = calloc(1, sizeof *c);
    strcpy(c->dir, "/tmp/cna-clips-XXXXXX");
    if (!mkdtemp(c->dir)) return -1;
    make_character(c->dir, &c->character);
    make_library(c->dir, &c->library);
    char path[600];
    snprintf(path, sizeof path, "%s/character.gltf", c->dir);
    c->model = load_model(path);
    snprintf(path, sizeof path, "%s/library.gltf", c->dir);
    c->lib = load_library(path);
    *state = c;
    return 0;
}

static int crafted_teardown(void **state)
{
    crafted *c = *state;
    cna_clip_library_free(c->lib);
    cna_model_free(c->model);
    const char *files[] = {"character.gltf", "character.bin", "library.gltf", "library.bin", "graft.gltf",
                           "graft-character.bin", "graft-library.bin"};
    char path[600];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", c->dir, files[i]);
        unlink(path);
    }
    rmdir(c->dir);
    free(c);
    return 0;
}

/* Rest values fill the channels a node lacks, a matrix node plays as TRS,
 * non-joint nodes move, STEP and CUBICSPLINE keys follow the model's clip
 * mode: all as in the graft. */
static void crafted_equals_graft(void **state)
{
    crafted *c = *state;
    cna_model *bound = bind(c->model, c->lib);
    char *cj = read_text(c->dir, "character.gltf"), *lj = read_text(c->dir, "library.gltf"), graft_path[600];
    char gdir[600];
    snprintf(gdir, sizeof gdir, "%s", c->dir);
    graft_json(cj, lj, c->model, gdir, graft_path, sizeof graft_path, c->character.bin, c->character.size,
               c->library.bin, c->library.size);
    cna_model *grafted = load_model(graft_path);
    assert_int_equal(bound->animation_count, 3);
    expect_same_as_graft(c->model, bound, grafted);
    /* the library's hip track is rotation only: the model's rest translation (0, 1, 0) fills it */
    size_t walk = 99;
    cna_error err;
    assert_int_equal(cna_model_find_animation(bound, "Wave", &walk, &err), CNA_OK);
    assert_int_equal(walk, 1);
    const cna_clip *wave = &bound->skins[0].data.clips[1];
    assert_int_equal(wave->track_count, 1);
    assert_int_equal(wave->tracks[0].key_count, 3);
    assert_true(wave->tracks[0].keys[1].translation.x == 0.0f && wave->tracks[0].keys[1].translation.y == 1.0f);
    assert_true(wave->tracks[0].keys[1].rotation.y == 0.70710677f);
    /* Armature (a matrix in the model), prop: scene-node tracks */
    assert_int_equal(bound->node_clips[1].track_count, 2);
    cna_model_free(grafted);
    cna_model_free(bound);
    free(cj);
    free(lj);
}

/* Morph weights bind by target name: the part's targets (smile, blink) take
 * the library's (blink, extra, smile) values 3 and 1 of each key. */
static void crafted_weights_by_name(void **state)
{
    crafted *c = *state;
    cna_model *bound = bind(c->model, c->lib);
    const cna_model_part *part = &bound->meshes[0].parts[0];
    assert_int_equal(part->weight_track_count, 3);
    assert_null(part->weight_tracks[0]);
    assert_null(part->weight_tracks[2]);
    const cna_morph_weight_track *t = part->weight_tracks[1];
    assert_non_null(t);
    assert_int_equal(t->key_count, 2);
    assert_int_equal(t->target_count, 2);
    const float expect[4] = {0.3f, 0.1f, 0.6f, 0.4f};
    assert_memory_equal(t->values, expect, sizeof expect);
    assert_true(part->morph->weight_track == t); /* the carrier's single track: the first that has one */
    assert_null(c->model->meshes[0].parts[0].morph->weight_track); /* the model is unchanged */
    /* a character plays them */
    cna_character *ch = NULL;
    cna_error err;
    assert_int_equal(cna_character_create(bound, NULL, &ch, &err), CNA_OK);
    assert_int_equal(cna_character_play(ch, 1, &err), CNA_OK);
    assert_int_equal(cna_character_set_loop_mode(ch, CNA_LOOP_MODE_ONCE, &err), CNA_OK);
    assert_int_equal(cna_character_seek(ch, 1.0, &err), CNA_OK);   /* the last key */
    assert_int_equal(cna_character_pose(ch, &err), CNA_OK);
    size_t n = 0;
    const float *wts = cna_character_morph_weights(ch, 0, 0, &n);
    assert_int_equal(n, 2);
    assert_true(wts[0] == 0.6f && wts[1] == 0.4f);
    cna_character_free(ch);
    cna_model_free(bound);
}

/* The diagnostics list what did not bind and what nothing reaches; the model is unchanged. */
static void crafted_diagnostics(void **state)
{
    crafted *c = *state;
    const size_t diags = c->model->diagnostic_count;
    cna_model *bound = bind(c->model, c->lib);
    char expect[700];
    const cna_model_diagnostic *d = cna_model_find_diagnostic(bound, CNA_MODEL_DIAG_CLIP_UNBOUND);
    assert_non_null(d);
    assert_int_equal(d->count, 2);
    snprintf(expect, sizeof expect,
             "%s/library.gltf: 2 node(s) its channels move are not in the model: \"Nose\", \"\"; their channels "
             "are ignored", c->dir);
    assert_string_equal(d->message, expect);
    d = cna_model_find_diagnostic(bound, CNA_MODEL_DIAG_CLIP_UNREACHED);
    assert_non_null(d);
    assert_int_equal(d->count, 1);
    assert_string_equal(d->message, "1 node(s) of the model are moved by no channel of the bound libraries: "
                                    "\"tail\"; they keep their rest pose in those animations");
    assert_int_equal(c->model->diagnostic_count, diags);
    assert_null(cna_model_find_diagnostic(c->model, CNA_MODEL_DIAG_CLIP_UNBOUND));
    assert_int_equal(c->model->animation_count, 1);
    cna_model_free(bound);
}

/* Markers the model has are copied; markers added to the bound model stay its own. */
static void crafted_markers(void **state)
{
    crafted *c = *state;
    cna_error err;
    assert_int_equal(cna_model_add_marker(c->model, 0, "step", 0.5, &err), CNA_OK);
    cna_model *bound = bind(c->model, c->lib);
    size_t n = 0;
    const cna_marker *m = cna_model_markers(bound, 0, &n);
    assert_int_equal(n, 1);
    assert_string_equal(m[0].name, "step");
    assert_int_equal(m[0].ticks, 5000000);
    assert_int_equal(cna_model_add_marker(bound, 2, "kick", 0.4, &err), CNA_OK);
    m = cna_model_markers(bound, 2, &n);
    assert_int_equal(n, 1);
    assert_null(cna_model_markers(c->model, 2, &n));
    cna_model_free(bound);
}

static void library_queries(void **state)
{
    crafted *c = *state;
    assert_int_equal(cna_clip_library_animation_count(c->lib), 2);
    assert_string_equal(cna_clip_library_animation_name(c->lib, 1), "Kick");
    assert_null(cna_clip_library_animation_name(c->lib, 2));
    assert_int_equal(cna_clip_library_target_count(c->lib, 0), 6);
    const char *expect[6] = {"hip", "Armature", "prop", "Nose", "", "body"};
    for (size_t i = 0; i < 6; i++) assert_string_equal(cna_clip_library_target_name(c->lib, 0, i), expect[i]);
    assert_null(cna_clip_library_target_name(c->lib, 0, 6));
    assert_int_equal(cna_clip_library_target_count(NULL, 0), 0);
    assert_int_equal(cna_clip_library_animation_count(NULL), 0);
    assert_string_equal(cna_clip_library_path(NULL), "");
}


/* Playing a bound clip allocates nothing: a character on the bound model,
 * created with a counting allocator, plays, crossfades and poses without a
 * call to it after its set-up. */
static size_t g_allocs;
static void *count_alloc(void *user, size_t size)
{
    (void)user;
    g_allocs++;
    return malloc(size);
}
static void count_free(void *user, void *p)
{
    (void)user;
    free(p);
}

static void crafted_playing_allocates_nothing(void **state)
{
    crafted *c = *state;
    cna_model *bound = bind(c->model, c->lib);
    cna_character_options o;
    memset(&o, 0, sizeof o);
    o.allocator.alloc = count_alloc;
    o.allocator.free = count_free;
    cna_character *ch = NULL;
    cna_error err;
    assert_int_equal(cna_character_create(bound, &o, &ch, &err), CNA_OK);
    assert_int_equal(cna_character_play(ch, 1, &err), CNA_OK);
    assert_int_equal(cna_character_crossfade(ch, 0, 1, 2, 0.2, 0, &err), CNA_OK); /* sets up the blend */
    assert_int_equal(cna_character_update(ch, 0.01, &err), CNA_OK);
    const size_t before = g_allocs;
    for (int f = 0; f < 120; f++) {
        if (f == 60) assert_int_equal(cna_character_crossfade(ch, 1, 0, 1, 0.3, 0, &err), CNA_OK);
        assert_int_equal(cna_character_update(ch, 1.0 / 60, &err), CNA_OK);
    }
    assert_int_equal(g_allocs, before);
    cna_character_free(ch);
    cna_model_free(bound);
}


/* The model may be freed before the bound model: it stays alive, shared,
 * until the bound model (and its characters) are gone. */
static void crafted_model_freed_first(void **state)
{
    crafted *c = *state;
    char path[600];
    snprintf(path, sizeof path, "%s/character.gltf", c->dir);
    cna_model *own = load_model(path);
    cna_model *bound = bind(own, c->lib);
    cna_character *ch = NULL;
    cna_error err;
    assert_int_equal(cna_character_create(bound, NULL, &ch, &err), CNA_OK);
    cna_model_free(own); /* deferred: the bound model holds it */
    assert_int_equal(cna_character_play(ch, 2, &err), CNA_OK);
    assert_int_equal(cna_character_update(ch, 0.3, &err), CNA_OK);
    assert_true(cna_character_absolute_transform(ch, 2)->m[13] != 0.0f);
    cna_model_free(bound); /* deferred too: the character holds it */
    assert_int_equal(cna_character_update(ch, 0.3, &err), CNA_OK);
    cna_character_free(ch); /* frees the bound model, then the model */
}

/* Refusals: exact messages, *out untouched, the model unchanged. */
static void refusals(void **state)
{
    crafted *c = *state;
    cna_error err;
    cna_model *sentinel = (cna_model *)(uintptr_t)0x1234, *out = sentinel;
    const cna_clip_library *one[1] = {c->lib}, *none[1] = {NULL};
    assert_int_equal(cna_model_bind_clips(NULL, one, 1, NULL, &out, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "bind clips: NULL model");
    assert_int_equal(cna_model_bind_clips(c->model, one, 1, NULL, NULL, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "bind clips: NULL out");
    assert_int_equal(cna_model_bind_clips(c->model, NULL, 1, NULL, &out, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "bind clips: NULL libraries with library_count 1");
    assert_int_equal(cna_model_bind_clips(c->model, none, 1, NULL, &out, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "bind clips: libraries[0] is NULL");
    assert_ptr_equal(out, sentinel);

    /* a library whose names match nothing */
    cna_clip_library *fox = load_library(LIBS "Mesh2MotionFox/fox-animations.glb");
    const cna_clip_library *foxes[1] = {fox};
    assert_int_equal(cna_model_bind_clips(c->model, foxes, 1, NULL, &out, &err), CNA_ERROR_INVALID_DATA);
    assert_string_equal(err.message,
                        LIBS "Mesh2MotionFox/fox-animations.glb: no channel binds to a node of the model (channels "
                             "move \"root\", \"Hips\", \"Spine_1\", \"Spine_2\", \"Spine_2.001\", \"Spine_3\", "
                             "\"Spine_4\", \"Head\", \"Nose\", \"Head.tip\", \"Ear_L\", \"Ear_Tip_L\" and 37 more)");
    assert_ptr_equal(out, sentinel);
    assert_int_equal(c->model->animation_count, 1);
    cna_clip_library_free(fox);

    /* a file without animations; NULL arguments */
    cna_clip_library *lib = (cna_clip_library *)(uintptr_t)0x5678;
    assert_int_equal(cna_clip_library_load_file(LIBS "Mesh2MotionFox/fox-fox.glb", NULL, &lib, &err),
                     CNA_ERROR_INVALID_DATA);
    assert_string_equal(err.message, LIBS "Mesh2MotionFox/fox-fox.glb: no animations");
    assert_ptr_equal(lib, (cna_clip_library *)(uintptr_t)0x5678);
    assert_int_equal(cna_clip_library_load_file(NULL, NULL, &lib, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "clip library: NULL path");
    assert_int_equal(cna_clip_library_load_file("x.glb", NULL, NULL, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "clip library: NULL out");
    cna_clip_library_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fox_on_fox),
        cmocka_unit_test(fox_on_dog),
        cmocka_unit_test(human_on_human),
        cmocka_unit_test(human_on_apose_human),
        cmocka_unit_test(lenient_library_binds_alike),
        cmocka_unit_test(cnb_library_binds_alike),
        cmocka_unit_test_setup_teardown(crafted_equals_graft, crafted_setup, crafted_teardown),
        cmocka_unit_test_setup_teardown(crafted_weights_by_name, crafted_setup, crafted_teardown),
        cmocka_unit_test_setup_teardown(crafted_diagnostics, crafted_setup, crafted_teardown),
        cmocka_unit_test_setup_teardown(crafted_markers, crafted_setup, crafted_teardown),
        cmocka_unit_test_setup_teardown(library_queries, crafted_setup, crafted_teardown),
        cmocka_unit_test_setup_teardown(crafted_playing_allocates_nothing, crafted_setup, crafted_teardown),
        cmocka_unit_test_setup_teardown(crafted_model_freed_first, crafted_setup, crafted_teardown),
        cmocka_unit_test_setup_teardown(refusals, crafted_setup, crafted_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
