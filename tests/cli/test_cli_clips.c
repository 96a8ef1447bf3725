/*
 * `--clips FILE` on the cna tool: the animations of another file played on
 * the model, numbered after its own, by name or index, in every command that
 * loads a model (pose, inspect, convert, render, bench, view); usage errors
 * and refused libraries with exact messages.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "cli/cli_run.h"
#include "cna/cna.h"

#define LIBS CNA_TEST_DATA_DIR "/libraries/"
#define FOX LIBS "Mesh2MotionFox/fox-fox.glb"
#define DOG LIBS "Mesh2MotionFox/fox-dog.glb"
#define FOX_CLIPS LIBS "Mesh2MotionFox/fox-animations.glb"

static cJSON *parse(const run_result *r)
{
    cJSON *j = cJSON_Parse(r->out);
    if (!j) fail_msg("not JSON: %.200s (stderr: %s)", r->out, r->err);
    return j;
}

/* `cna pose DOG --clips FOX_CLIPS --animation Walk --time T` poses the dog as the
 * library's own character API does (the same bound model, posed at T). */
static void pose_by_name_equals_the_api(void **state)
{
    (void)state;
    run_result r = run_cna("pose", DOG, "--clips", FOX_CLIPS, "--animation", "Walk", "--time", "0.25", NULL);
    assert_int_equal(r.exit_code, 0);
    cJSON *j = parse(&r);
    assert_int_equal(cJSON_GetObjectItem(j, "animation")->valueint, 13);

    cna_model *dog = NULL, *bound = NULL;
    cna_clip_library *lib = NULL;
    cna_error err;
    assert_int_equal(cna_model_load_file(DOG, NULL, &dog, &err), CNA_OK);
    assert_int_equal(cna_clip_library_load_file(FOX_CLIPS, NULL, &lib, &err), CNA_OK);
    const cna_clip_library *libs[1] = {lib};
    assert_int_equal(cna_model_bind_clips(dog, libs, 1, NULL, &bound, &err), CNA_OK);
    cna_character *c = NULL;
    assert_int_equal(cna_character_create(bound, NULL, &c, &err), CNA_OK);
    assert_int_equal(cna_character_play(c, 13, &err), CNA_OK);
    assert_int_equal(cna_character_set_loop_mode(c, CNA_LOOP_MODE_ONCE, &err), CNA_OK);
    assert_int_equal(cna_character_seek(c, 0.25, &err), CNA_OK);
    assert_int_equal(cna_character_pose(c, &err), CNA_OK);
    const cJSON *bones = cJSON_GetObjectItem(j, "bones");
    assert_int_equal(cJSON_GetArraySize(bones), (int)bound->bone_count);
    for (size_t b = 0; b < bound->bone_count; b++) {
        const cJSON *w = cJSON_GetObjectItem(cJSON_GetArrayItem(bones, (int)b), "world");
        const cna_mat4 *m = cna_character_absolute_transform(c, b);
        for (int k = 0; k < 16; k++) assert_true((float)cJSON_GetArrayItem(w, k)->valuedouble == m->m[k]);
    }
    cna_character_free(c);
    cna_model_free(bound);
    cna_clip_library_free(lib);
    cna_model_free(dog);
    cJSON_Delete(j);
    run_free(&r);
}

/* `cna inspect --clips` lists each bound animation with its matched and unmatched targets. */
static void inspect_lists_the_bindings(void **state)
{
    (void)state;
    run_result r = run_cna("inspect", DOG, "--brief", "--clips", FOX_CLIPS, NULL);
    assert_int_equal(r.exit_code, 0);
    if (!strstr(r.out, "clips " FOX_CLIPS ": 14 animations, bound as animations 0..13\n"
                       "  animation 0 \"Bark\": 48 of 49 targets matched; unmatched: \"Nose\"\n"))
        fail_msg("%s", r.out);
    assert_non_null(strstr(r.out, "  animation 13 \"Walk\": 48 of 49 targets matched; unmatched: \"Nose\"\n"));
    assert_non_null(strstr(r.out, "  warning clip-track-unbound (x1): " FOX_CLIPS ": 1 node(s) its channels move "
                                  "are not in the model: \"Nose\"; their channels are ignored\n"));
    run_free(&r);
    r = run_cna("inspect", DOG, "--json", "--clips", FOX_CLIPS, NULL);
    assert_int_equal(r.exit_code, 2);
    assert_non_null(strstr(r.err, "--clips lists its bindings in the text output; it does not combine with --json"));
    run_free(&r);
}

/* `cna convert --clips` writes the bound clips into the .cnb; posing the .cnb gives the same pose. */
static void convert_writes_the_bound_clips(void **state)
{
    (void)state;
    char dir[256], path[600];
    cna_test_temp_dir(dir, sizeof dir, "cna-clips-cnb-");
    snprintf(path, sizeof path, "%s/fox.cnb", dir);
    run_result r = run_cna("convert", FOX, "--clips", FOX_CLIPS, "-o", path, NULL);
    assert_int_equal(r.exit_code, 0);
    run_free(&r);
    cna_model *m = NULL;
    cna_error err;
    assert_int_equal(cna_model_load_any(path, NULL, &m, &err), CNA_OK);
    assert_int_equal(m->animation_count, 14);
    assert_string_equal(cna_model_animation_name(m, 10), "Run");
    cna_model_free(m);
    run_result a = run_cna("pose", path, "--animation", "Run", "--time", "0.2", NULL);
    run_result b = run_cna("pose", FOX, "--clips", FOX_CLIPS, "--animation", "10", "--time", "0.2", NULL);
    assert_int_equal(a.exit_code, 0);
    assert_int_equal(b.exit_code, 0);
    cJSON *ja = parse(&a), *jb = parse(&b);
    const cJSON *sa = cJSON_GetObjectItem(ja, "skins"), *sb = cJSON_GetObjectItem(jb, "skins");
    char *ta = cJSON_PrintUnformatted(sa), *tb = cJSON_PrintUnformatted(sb);
    assert_string_equal(ta, tb);
    cJSON_free(ta);
    cJSON_free(tb);
    cJSON_Delete(ja);
    cJSON_Delete(jb);
    run_free(&a);
    run_free(&b);
    cna_test_remove_tree(dir);
}

/* Usage errors and refusals, with their exit codes and messages. */
static void refusals(void **state)
{
    (void)state;
    run_result r = run_cna("pose", DOG, "--clips", NULL);
    assert_int_equal(r.exit_code, 2);
    assert_non_null(strstr(r.err, "cna pose: --clips needs a value"));
    run_free(&r);
    r = run_cna("version", "--clips", FOX_CLIPS, NULL);
    assert_int_equal(r.exit_code, 2);
    assert_non_null(strstr(r.err, "cna version: unknown option '--clips'"));
    run_free(&r);
    /* a file without animations */
    r = run_cna("pose", DOG, "--clips", FOX, NULL);
    assert_int_equal(r.exit_code, 1);
    assert_string_equal(r.err, "error: " FOX ": no animations\n");
    assert_string_equal(r.out, "");
    run_free(&r);
    /* an unknown animation names the count with the library's */
    r = run_cna("pose", DOG, "--clips", FOX_CLIPS, "--animation", "Swim", NULL);
    assert_int_equal(r.exit_code, 1);
    assert_non_null(strstr(r.err, "no animation 'Swim'"));
    run_free(&r);
    /* a library whose names match nothing of the model */
    r = run_cna("pose", CNA_TEST_DATA_DIR "/corpus/valid/SimpleSkin/simple_skin.gltf", "--clips", FOX_CLIPS, NULL);
    assert_int_equal(r.exit_code, 1);
    assert_string_equal(r.err, "error: " FOX_CLIPS ": no channel binds to a node of the model (channels move "
                               "\"root\", \"Hips\", \"Spine_1\", \"Spine_2\", \"Spine_2.001\", \"Spine_3\", "
                               "\"Spine_4\", \"Head\", \"Nose\", \"Head.tip\", \"Ear_L\", \"Ear_Tip_L\" and 37 more)\n");
    assert_string_equal(r.out, "");
    run_free(&r);
}


/* `cna pose TARGET --clips SOURCE --retarget [--retarget-align] --animation I --time T` poses
 * as the API's retargeted binding does; --retarget options without --retarget or --clips are
 * usage errors. */
static void retarget_pose_equals_the_api(void **state)
{
    (void)state;
    const char *apose = LIBS "CraftedAPoseHuman/human-male-apose.glb";
    const char *clips = LIBS "Mesh2MotionHuman/human-addon-animations.glb";
    for (int align = 0; align < 2; align++) {
        run_result r = align ? run_cna("pose", apose, "--clips", clips, "--retarget", "--retarget-align", "--animation",
                                       "Run Anime", "--time", "0.3", NULL)
                             : run_cna("pose", apose, "--clips", clips, "--retarget", "--animation", "Run Anime",
                                       "--time", "0.3", NULL);
        assert_int_equal(r.exit_code, 0);
        cJSON *j = parse(&r);
        cna_model *m = NULL, *bound = NULL;
        cna_clip_library *lib = NULL;
        cna_error err;
        assert_int_equal(cna_model_load_file(apose, NULL, &m, &err), CNA_OK);
        assert_int_equal(cna_clip_library_load_file(clips, NULL, &lib, &err), CNA_OK);
        cna_bind_options o;
        memset(&o, 0, sizeof o);
        o.retarget = true;
        o.retarget_align = align;
        const cna_clip_library *libs[1] = {lib};
        assert_int_equal(cna_model_bind_clips(m, libs, 1, &o, &bound, &err), CNA_OK);
        size_t run = 0;
        assert_int_equal(cna_model_find_animation(bound, "Run Anime", &run, &err), CNA_OK);
        cna_character *c = NULL;
        assert_int_equal(cna_character_create(bound, NULL, &c, &err), CNA_OK);
        assert_int_equal(cna_character_play(c, (long)run, &err), CNA_OK);
        assert_int_equal(cna_character_set_loop_mode(c, CNA_LOOP_MODE_ONCE, &err), CNA_OK);
        assert_int_equal(cna_character_seek(c, 0.3, &err), CNA_OK);
        assert_int_equal(cna_character_pose(c, &err), CNA_OK);
        const cJSON *bones = cJSON_GetObjectItem(j, "bones");
        for (size_t b = 0; b < bound->bone_count; b++) {
            const cJSON *w = cJSON_GetObjectItem(cJSON_GetArrayItem(bones, (int)b), "world");
            const cna_mat4 *mm = cna_character_absolute_transform(c, b);
            for (int k = 0; k < 16; k++) assert_true((float)cJSON_GetArrayItem(w, k)->valuedouble == mm->m[k]);
        }
        cna_character_free(c);
        cna_model_free(bound);
        cna_clip_library_free(lib);
        cna_model_free(m);
        cJSON_Delete(j);
        run_free(&r);
    }
    run_result r = run_cna("pose", DOG, "--clips", FOX_CLIPS, "--retarget-align", NULL);
    assert_int_equal(r.exit_code, 2);
    assert_non_null(strstr(r.err, "cna pose: --retarget-align needs --retarget"));
    run_free(&r);
    r = run_cna("pose", DOG, "--retarget", NULL);
    assert_int_equal(r.exit_code, 2);
    assert_non_null(strstr(r.err, "cna pose: --retarget needs --clips FILE"));
    run_free(&r);
    r = run_cna("pose", DOG, "--clips", FOX_CLIPS, "--retarget", "--retarget-map", "/nonexistent/map.json", NULL);
    assert_int_equal(r.exit_code, 1);
    assert_string_equal(r.err, "error: /nonexistent/map.json: No such file or directory\n");
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pose_by_name_equals_the_api),
        cmocka_unit_test(inspect_lists_the_bindings),
        cmocka_unit_test(convert_writes_the_bound_clips),
        cmocka_unit_test(refusals),
        cmocka_unit_test(retarget_pose_equals_the_api),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
