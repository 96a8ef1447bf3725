/*
 * `cna play FILE --timeline SCRIPT --fps F --frames N [--json]`, run as a
 * separate process on the bundled robot (14 animations; Robot_Jump lasts
 * 0.708333 s, 7083333 ticks):
 * - a frame of a plain `play` prints the bone worlds `cna pose --time t`
 *   prints for its time, the same strings, at 25 and at 30 frames per second
 *   (the advance is counted in whole ticks from frame to frame: no drift),
 *   and with `speed 2` those of twice the time; before the first entry the
 *   rest pose of `cna pose` without --animation;
 * - a crossfade's layer weights are the linear fade, frame by frame, as
 *   floats; halfway its bones are `cna pose --blend ... --weight 0.5`; the
 *   frame in which it ends reports fade_finished, layer_stopped (layer 0)
 *   and fade_finished (layer 1), and layer 0 then plays nothing;
 * - looped (repeat, pingpong) and finished (once) come in the frame whose
 *   advance reaches the end; the markers of a .cnb in the frame that crosses
 *   them; a crossfade's incoming layer takes the current loop mode;
 * - every malformed timeline and option exits 2 with its exact message; an
 *   unknown animation exits 1 naming the entry; an entry after the last
 *   frame is a note;
 * - --clips plays a library's animations; `cna help` lists the command.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "cna/cna.h"

#include "cli/cli_run.h"
#define ROBOT CNA_TEST_DATA_DIR "/corpus/valid/RobotExpressive/robot.glb"
#define ROBOT_ANIMATIONS " (the file has 14: 0 \"Robot_Dance\", 1 \"Robot_Death\", 2 \"Robot_Idle\", 3 \"Robot_Jump\", " \
    "4 \"Robot_No\", 5 \"Robot_Punch\", 6 \"Robot_Running\", 7 \"Robot_Sitting\", 8 \"Robot_Standing\", " \
    "9 \"Robot_ThumbsUp\", 10 \"Robot_Walking\", 11 \"Robot_WalkJump\", 12 \"Robot_Wave\", 13 \"Robot_Yes\")\n"
#define LIBS CNA_TEST_DATA_DIR "/libraries/"
#define DOG LIBS "Mesh2MotionFox/fox-dog.glb"
#define FOX_CLIPS LIBS "Mesh2MotionFox/fox-animations.glb"
#define ROBOT_BONES 58
/* The usage lines cna_cli_usage_error prints after a message. */
#define PLAY_USAGE "usage: cna play FILE --timeline SCRIPT --fps F --frames N [--json] [--asset-root DIR] " \
    "[--split-palettes] [--no-textures] [--max-decoded-size N]\n       cna play --help\n"

/* A successful run: exit 0, nothing on stderr; its stdout (owned). */
static char *ok(run_result r)
{
    if (r.exit_code != 0 || r.err[0]) fail_msg("cna exited %d: %s", r.exit_code, r.err);
    free(r.err);
    return r.out;
}

/* `cna play ROBOT --timeline SCRIPT --fps FPS --frames N --json`: its stdout. */
static char *play_json(const char *file, const char *script, const char *fps, const char *frames)
{
    return ok(run_cna("play", file, "--timeline", script, "--fps", fps, "--frames", frames, "--json", NULL));
}

/* Line k of text (a copy, without its '\n'). */
static char *line_of(const char *text, int k)
{
    const char *p = text;
    for (int i = 0; i < k; i++) {
        p = strchr(p, '\n');
        if (!p) fail_msg("no line %d in:\n%.300s", k, text);
        p++;
    }
    const char *e = strchr(p, '\n');
    assert_non_null(e);
    char *out = malloc((size_t)(e - p) + 1);
    assert_non_null(out);
    memcpy(out, p, (size_t)(e - p));
    out[e - p] = '\0';
    return out;
}

static int line_count(const char *text)
{
    int n = 0;
    for (const char *p = text; *p; p++) n += *p == '\n';
    return n;
}

/* Every bone's "name" and "world" as printed, whitespace taken out: one
 * `name=[16 numbers]` per line. Works on `cna pose`'s indented JSON and on a
 * frame of `cna play` alike (neither has spaces in the robot's names). */
static char *worlds_of(const char *json)
{
    const char *bones = strstr(json, "\"bones\":");
    assert_non_null(bones);
    size_t cap = strlen(json) + 1, len = 0;
    char *out = malloc(cap);
    assert_non_null(out);
    int count = 0;
    for (const char *p = bones; (p = strstr(p, "\"name\":")) != NULL;) {
        const char *w = strstr(p, "\"world\":");
        if (!w) break;
        const char *name = strchr(p + 7, '"');
        assert_non_null(name);
        const char *name_end = strchr(name + 1, '"');
        assert_non_null(name_end);
        const size_t n = (size_t)(name_end - name - 1);
        memcpy(out + len, name + 1, n);
        len += n;
        out[len++] = '=';
        const char *q = strchr(w, '[');
        assert_non_null(q);
        for (; *q != ']'; q++)
            if (*q != ' ' && *q != '\t' && *q != '\n') out[len++] = *q;
        out[len++] = ']';
        out[len++] = '\n';
        p = q;
        count++;
    }
    out[len] = '\0';
    assert_int_equal(count, ROBOT_BONES);
    return out;
}

/* Frame k of a play's output has the bone worlds of `pose_text`, byte for byte. */
static void assert_frame_worlds(const char *play_out, int k, const char *pose_text)
{
    char *line = line_of(play_out, k);
    char *a = worlds_of(line);
    char *b = worlds_of(pose_text);
    if (strcmp(a, b) != 0) fail_msg("frame %d differs from the pose:\n%.400s\nagainst\n%.400s", k, a, b);
    free(a);
    free(b);
    free(line);
}

/* Frame k parsed. */
static cJSON *frame(const char *play_out, int k)
{
    char *line = line_of(play_out, k);
    cJSON *j = cJSON_Parse(line);
    if (!j) fail_msg("frame %d is not JSON: %.200s", k, line);
    free(line);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(j, "frame")->valueint, k);
    return j;
}

/* The text of frame k's "events" member: `[...]`. */
static char *events_of(const char *play_out, int k)
{
    char *line = line_of(play_out, k);
    char *e = strstr(line, ",\"events\":");
    assert_non_null(e);
    e += strlen(",\"events\":");
    const size_t n = strlen(e);
    assert_true(n >= 1 && e[n - 1] == '}');
    char *out = malloc(n);
    assert_non_null(out);
    memcpy(out, e, n - 1);
    out[n - 1] = '\0';
    free(line);
    return out;
}

static void assert_events(const char *play_out, int k, const char *expected)
{
    char *ev = events_of(play_out, k);
    if (strcmp(ev, expected) != 0) fail_msg("frame %d: events %s, expected %s", k, ev, expected);
    free(ev);
}

static const cJSON *layer(const cJSON *f, int l)
{
    const cJSON *layers = cJSON_GetObjectItemCaseSensitive(f, "layers");
    assert_int_equal(cJSON_GetArraySize(layers), 2);
    return cJSON_GetArrayItem(layers, l);
}

static double layer_number(const cJSON *f, int l, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(layer(f, l), key);
    if (!cJSON_IsNumber(v)) fail_msg("layer %d: %s is not a number", l, key);
    return v->valuedouble;
}

static bool layer_null(const cJSON *f, int l, const char *key)
{
    return cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(layer(f, l), key));
}

/* ------------------------------------------------------------ poses */

static void test_play_frame_0_prints_the_bone_worlds_of_pose_at_time_0(void **state)
{
    (void)state;
    char *out = play_json(ROBOT, "0 play 2", "25", "1");
    assert_int_equal(line_count(out), 1);
    char *pose = ok(run_cna("pose", ROBOT, "--animation", "2", "--time", "0", NULL));
    assert_frame_worlds(out, 0, pose);
    /* and the layers: Robot_Idle at phase 0 on layer 0, nothing on layer 1 */
    assert_non_null(strstr(out, "{\"frame\":0,\"time\":0,\"layers\":[{\"animation\":2,\"name\":\"Robot_Idle\","
                                "\"weight\":1,\"phase\":0},{\"animation\":null,\"name\":null,\"weight\":0,"
                                "\"phase\":null}],\"transition\":0,\"bones\":[{\"name\":\"RobotArmature\",\"world\":["));
    assert_events(out, 0, "[]");
    free(pose);
    free(out);
}

static void test_play_frames_print_the_pose_at_their_time_without_drift(void **state)
{
    (void)state;
    struct {
        const char *fps;
        int frame;
        const char *time;
    } cases[] = {{"25", 7, "0.28"}, {"25", 10, "0.4"}, {"25", 23, "0.92"}, {"30", 27, "0.9"}, {"30", 29, "0.966666667"}};
    char *out25 = play_json(ROBOT, "0 play Robot_Walking", "25", "24");
    char *out30 = play_json(ROBOT, "0 play Robot_Walking", "30", "30");
    assert_int_equal(line_count(out25), 24);
    assert_int_equal(line_count(out30), 30);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        /* frame 29 at 30 fps (0.9667 s) is past the walk's end (0.958333 s): wrapped, against the pose at 0.00833 */
        const char *t = cases[i].frame == 29 ? "0.0083334" : cases[i].time;
        char *pose = ok(run_cna("pose", ROBOT, "--animation", "Robot_Walking", "--time", t, NULL));
        assert_frame_worlds(strcmp(cases[i].fps, "25") == 0 ? out25 : out30, cases[i].frame, pose);
        free(pose);
    }
    free(out25);
    free(out30);

    /* speed 2: frame 5 (0.2 s) is the walk at 0.4 */
    char *out = play_json(ROBOT, "0 speed 2; 0 play 10", "25", "6");
    char *pose = ok(run_cna("pose", ROBOT, "--animation", "10", "--time", "0.4", NULL));
    assert_frame_worlds(out, 5, pose);
    free(pose);
    free(out);

    /* an entry at 0.4: the rest pose before it, the walk from its start at it */
    out = play_json(ROBOT, "0.4 play Robot_Walking", "25", "16");
    char *rest = ok(run_cna("pose", ROBOT, NULL));
    assert_frame_worlds(out, 0, rest);
    assert_frame_worlds(out, 9, rest);
    pose = ok(run_cna("pose", ROBOT, "--animation", "10", "--time", "0", NULL));
    assert_frame_worlds(out, 10, pose);
    free(pose);
    pose = ok(run_cna("pose", ROBOT, "--animation", "10", "--time", "0.2", NULL));
    assert_frame_worlds(out, 15, pose);
    free(pose);
    free(rest);
    free(out);
}

/* ------------------------------------------------------------ crossfades */

static void test_play_crossfade_weights_are_the_linear_fade_and_its_end_reports_in_its_frame(void **state)
{
    (void)state;
    /* Idle from 0, a crossfade to Walking at 0.2 over 0.4 s: frames 5 (0.2 s) to 15 (0.6 s) */
    char *out = play_json(ROBOT, "0 play Robot_Idle; 0.2 crossfade Robot_Walking 0.4", "25", "17");
    assert_int_equal(line_count(out), 17);
    for (int k = 0; k < 5; k++) {
        cJSON *f = frame(out, k);
        assert_true(layer_number(f, 0, "weight") == 1.0);
        assert_true(layer_number(f, 1, "weight") == 0.0);
        assert_true(layer_null(f, 1, "animation"));
        cJSON_Delete(f);
        assert_events(out, k, "[]");
    }
    for (int k = 5; k < 15; k++) {
        /* the library's fade: f = elapsed / total as a float, from + (to - from) * f */
        const float fraction = (float)((double)((k - 5) * 400000) / 4000000.0);
        const float in = 0.0f + (1.0f - 0.0f) * fraction, out_weight = 1.0f + (0.0f - 1.0f) * fraction;
        cJSON *f = frame(out, k);
        assert_true(layer_number(f, 0, "animation") == 2.0);
        assert_true(layer_number(f, 1, "animation") == 10.0);
        assert_string_equal(cJSON_GetObjectItemCaseSensitive(layer(f, 1), "name")->valuestring, "Robot_Walking");
        /* printed with %.9g: read back as a float, the same float */
        if ((float)layer_number(f, 1, "weight") != in || (float)layer_number(f, 0, "weight") != out_weight)
            fail_msg("frame %d: weights %.9g, %.9g; expected %.9g, %.9g", k, layer_number(f, 0, "weight"),
                     layer_number(f, 1, "weight"), (double)out_weight, (double)in);
        /* the incoming walk from its start: phase (k - 5) * 0.04 s of 9583333 ticks */
        const double phase = (double)((k - 5) * 400000) / 9583333.0;
        assert_true(fabs(layer_number(f, 1, "phase") - phase) < 1e-8);
        cJSON_Delete(f);
        assert_events(out, k, "[]");
    }
    /* halfway (frame 10): both at 0.5, the pose of cna pose --blend --weight 0.5 */
    char *blend = ok(run_cna("pose", ROBOT, "--animation", "Robot_Idle", "--time", "0.4", "--blend", "Robot_Walking",
                             "--blend-time", "0.2", "--weight", "0.5", NULL));
    assert_frame_worlds(out, 10, blend);
    free(blend);
    /* frame 15: the fades end; layer 0 stops */
    assert_events(out, 15,
                  "[{\"kind\":\"fade_finished\",\"layer\":0,\"animation\":2,\"weight\":0},"
                  "{\"kind\":\"layer_stopped\",\"layer\":0,\"animation\":2,\"weight\":0},"
                  "{\"kind\":\"fade_finished\",\"layer\":1,\"animation\":10,\"weight\":1}]");
    cJSON *f = frame(out, 15);
    assert_true(layer_null(f, 0, "animation") && layer_null(f, 0, "name") && layer_null(f, 0, "phase"));
    assert_true(layer_number(f, 0, "weight") == 0.0);
    assert_true(layer_number(f, 1, "weight") == 1.0);
    cJSON_Delete(f);
    assert_events(out, 16, "[]");
    /* and from then on the walk alone at 0.44 s */
    char *pose = ok(run_cna("pose", ROBOT, "--animation", "Robot_Walking", "--time", "0.44", NULL));
    assert_frame_worlds(out, 16, pose);
    free(pose);
    free(out);

    /* from the rest pose: layer 0 plays nothing, its fade_finished has no animation and nothing stops */
    out = play_json(ROBOT, "0 crossfade Robot_Idle 0.2", "10", "3");
    f = frame(out, 1);
    assert_true(layer_null(f, 0, "animation") && layer_number(f, 0, "weight") == 0.5);
    assert_true(layer_number(f, 1, "animation") == 2.0 && layer_number(f, 1, "weight") == 0.5);
    cJSON_Delete(f);
    assert_events(out, 2,
                  "[{\"kind\":\"fade_finished\",\"layer\":0,\"animation\":null,\"weight\":0},"
                  "{\"kind\":\"fade_finished\",\"layer\":1,\"animation\":2,\"weight\":1}]");
    free(out);
}

static double transition_of(const cJSON *f)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(f, "transition");
    if (!cJSON_IsNumber(v)) fail_msg("transition is not a number");
    return v->valuedouble;
}

/* A crossfade during a crossfade: the library freezes the pose shown into a
 * snapshot (docs/blending.md, "Interrupting a crossfade"): in the frame of
 * the call the incoming layer plays at weight 1, the other has stopped, and
 * the snapshot's weight is 1, falling linearly to 0 over the crossfade's
 * 0.4 s (10 frames at 25 fps). */
static void test_play_crossfade_during_a_crossfade_starts_the_new_animation(void **state)
{
    (void)state;
    char *out = play_json(ROBOT, "0 play 2; 0.2 crossfade 10 0.4; 0.4 crossfade 6 0.4", "25", "30");
    assert_int_equal(line_count(out), 30);
    cJSON *f = frame(out, 9); /* mid-crossfade, no snapshot */
    assert_true(transition_of(f) == 0.0);
    assert_true(layer_number(f, 0, "weight") > 0.0 && layer_number(f, 1, "weight") > 0.0);
    cJSON_Delete(f);
    f = frame(out, 10);
    assert_true(layer_number(f, 0, "animation") == 6.0);
    assert_true(layer_number(f, 0, "weight") == 1.0);
    assert_true(layer_null(f, 1, "animation"));
    assert_true(layer_number(f, 1, "weight") == 0.0);
    assert_true(transition_of(f) == 1.0);
    cJSON_Delete(f);
    f = frame(out, 11); /* 0.04 s of 0.4 s: 1 - 0.1 as the library's float (%.9g reads back as it) */
    assert_true((float)transition_of(f) == 1.0f - (float)(400000.0 / 4000000.0));
    cJSON_Delete(f);
    f = frame(out, 20);
    assert_true(transition_of(f) == 0.0);
    cJSON_Delete(f);
    free(out);
}

/* blend1d plays a blend space at its first sample's point: the clip alone,
 * the same strings as `cna pose`; param moves the weights (a point
 * between walk at 1.5 and run at 4 gives 1 - t and t); the library's
 * refusals exit 1 naming the entry. */
static void test_play_blend_spaces(void **state)
{
    (void)state;
    char *out = play_json(ROBOT, "0 blend1d 2 0 10 1.5 6 4; 0.2 param 2.125", "25", "6");
    char *pose = ok(run_cna("pose", ROBOT, "--animation", "2", "--time", "0", NULL));
    assert_frame_worlds(out, 0, pose);
    cJSON *f = frame(out, 0);
    const cJSON *blend = cJSON_GetObjectItemCaseSensitive(layer(f, 0), "blend");
    assert_non_null(blend);
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(blend, "weights");
    assert_int_equal(cJSON_GetArraySize(w), 3);
    assert_true(cJSON_GetArrayItem(w, 0)->valuedouble == 1.0 && cJSON_GetArrayItem(w, 1)->valuedouble == 0.0 &&
                cJSON_GetArrayItem(w, 2)->valuedouble == 0.0);
    assert_null(cJSON_GetObjectItemCaseSensitive(layer(f, 1), "blend"));
    cJSON_Delete(f);
    f = frame(out, 5); /* 2.125 is a quarter of the way from 1.5 to 4 */
    w = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(layer(f, 0), "blend"), "weights");
    assert_true(cJSON_GetArrayItem(w, 0)->valuedouble == 0.0 && cJSON_GetArrayItem(w, 1)->valuedouble == 0.75 &&
                cJSON_GetArrayItem(w, 2)->valuedouble == 0.25);
    assert_true(layer_number(f, 0, "animation") == 10.0); /* the sample of largest weight */
    cJSON_Delete(f);
    free(pose);
    free(out);
    run_result r = run_cna("play", ROBOT, "--timeline", "0 play 2; 0.04 param 1", "--fps", "25", "--frames", "3", NULL);
    assert_int_equal(r.exit_code, 1);
    assert_string_equal(r.err, "error: " ROBOT ": --timeline: entry 2 \"0.04 param 1\": layer 0 plays no blend space\n");
    run_free(&r);
    r = run_cna("play", ROBOT, "--timeline", "0 blend1d 2 1 10 1", "--fps", "25", "--frames", "3", NULL);
    assert_int_equal(r.exit_code, 1);
    assert_string_equal(r.err, "error: " ROBOT ": --timeline: entry 1 \"0 blend1d 2 1 10 1\": samples[0] and samples[1] "
                               "are both at x 1\n");
    run_free(&r);
}

/* ------------------------------------------------------------ loops and events */

static void test_play_loop_modes_report_looped_and_finished_in_the_frame_that_reaches_the_end(void **state)
{
    (void)state;
    /* Robot_Jump lasts 7083333 ticks: frame 18 (0.72 s) is the first past it */
    const char *looped = "[{\"kind\":\"looped\",\"layer\":0,\"animation\":3,\"weight\":1}]";
    char *out = play_json(ROBOT, "0 play Robot_Jump", "25", "37");
    for (int k = 0; k < 37; k++) assert_events(out, k, k == 18 || k == 36 ? looped : "[]");
    cJSON *f = frame(out, 18);
    assert_true(fabs(layer_number(f, 0, "phase") - (7200000.0 - 7083333.0) / 7083333.0) < 1e-8);
    cJSON_Delete(f);
    free(out);

    out = play_json(ROBOT, "0 play Robot_Jump; 0 loop once", "25", "20");
    for (int k = 0; k < 20; k++)
        assert_events(out, k, k == 18 ? "[{\"kind\":\"finished\",\"layer\":0,\"animation\":3,\"weight\":1}]" : "[]");
    f = frame(out, 19);
    assert_true(layer_number(f, 0, "phase") == 1.0);
    cJSON_Delete(f);
    free(out);

    /* pingpong turns at the end (frame 18) and at the start (frame 36: 1.44 s >= 2 * 0.708333) */
    out = play_json(ROBOT, "0 play Robot_Jump; 0 loop pingpong", "25", "37");
    for (int k = 0; k < 37; k++) assert_events(out, k, k == 18 || k == 36 ? looped : "[]");
    f = frame(out, 18);
    assert_true(fabs(layer_number(f, 0, "phase") - (2.0 * 7083333.0 - 7200000.0) / 7083333.0) < 1e-8);
    cJSON_Delete(f);
    free(out);

    /* the loop mode goes with a crossfade: the jump, on layer 1 from 0.2 s, finishes at 0.908 s (frame 23) */
    out = play_json(ROBOT, "0 play Robot_Idle; 0 loop once; 0.2 crossfade Robot_Jump 0.2", "25", "25");
    assert_events(out, 10,
                  "[{\"kind\":\"fade_finished\",\"layer\":0,\"animation\":2,\"weight\":0},"
                  "{\"kind\":\"layer_stopped\",\"layer\":0,\"animation\":2,\"weight\":0},"
                  "{\"kind\":\"fade_finished\",\"layer\":1,\"animation\":3,\"weight\":1}]");
    for (int k = 11; k < 25; k++)
        assert_events(out, k, k == 23 ? "[{\"kind\":\"finished\",\"layer\":1,\"animation\":3,\"weight\":1}]" : "[]");
    free(out);
}

static void test_play_reports_the_markers_of_a_cnb_in_the_frame_that_crosses_them(void **state)
{
    (void)state;
    char dir[256];
    cna_test_temp_dir(dir, sizeof dir, "cna-test-play-");
    char cnb[512];
    snprintf(cnb, sizeof cnb, "%s/robot.cnb", dir);
    run_result r = run_cna("convert", ROBOT, "-o", cnb, "--marker", "Robot_Walking:step:0.5", "--marker",
                           "Robot_Walking:start:0", NULL);
    assert_int_equal(r.exit_code, 0);
    run_free(&r);
    char *out = play_json(cnb, "0 play Robot_Walking", "10", "12");
    for (int k = 0; k < 12; k++) {
        const char *expected =
            k == 5 ? "[{\"kind\":\"marker\",\"layer\":0,\"animation\":10,\"marker\":\"step\",\"weight\":1}]"
            /* 1 s: the walk (0.958333 s) wraps, then crosses its marker at 0 */
            : k == 10 ? "[{\"kind\":\"looped\",\"layer\":0,\"animation\":10,\"weight\":1},"
                        "{\"kind\":\"marker\",\"layer\":0,\"animation\":10,\"marker\":\"start\",\"weight\":1}]"
                      : "[]";
        assert_events(out, k, expected);
    }
    /* the .cnb poses as the glTF */
    char *gltf = play_json(ROBOT, "0 play Robot_Walking", "10", "12");
    char *a = line_of(out, 7), *b = line_of(gltf, 7);
    char *wa = worlds_of(a), *wb = worlds_of(b);
    assert_string_equal(wa, wb);
    free(wa);
    free(wb);
    free(a);
    free(b);
    free(gltf);
    free(out);
    assert_int_equal(remove(cnb), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* ------------------------------------------------------------ text, notes, clips, help */

static void test_play_without_json_prints_a_line_per_frame(void **state)
{
    (void)state;
    char *out = ok(run_cna("play", ROBOT, "--timeline", "0 play Robot_Idle; 0.2 crossfade Robot_Walking 0.4",
                           "--fps", "25", "--frames", "16", NULL));
    assert_int_equal(line_count(out), 16);
    char *l0 = line_of(out, 0), *l10 = line_of(out, 10), *l15 = line_of(out, 15);
    assert_string_equal(l0, "frame 0 t=0: layer 0 \"Robot_Idle\" w=1 phase=0, layer 1 - w=0; events: none");
    assert_string_equal(l10, "frame 10 t=0.4: layer 0 \"Robot_Idle\" w=0.5 phase=0.120000001, layer 1 "
                             "\"Robot_Walking\" w=0.5 phase=0.208695659; events: none");
    assert_string_equal(l15, "frame 15 t=0.6: layer 0 - w=0, layer 1 \"Robot_Walking\" w=1 phase=0.417391319; "
                             "events: fade_finished (layer 0 \"Robot_Idle\" w=0), layer_stopped (layer 0 "
                             "\"Robot_Idle\" w=0), fade_finished (layer 1 \"Robot_Walking\" w=1)");
    free(l0);
    free(l10);
    free(l15);
    free(out);
}

static void test_play_notes_entries_after_the_last_frame(void **state)
{
    (void)state;
    run_result r = run_cna("play", ROBOT, "--timeline", "0 play 2; 0.08 play 3; 0.5 speed 2;", "--fps", "25",
                           "--frames", "3", "--json", NULL);
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(r.err, "note: --timeline: entry 3 \"0.5 speed 2\" is after the last frame (2 at 0.08 s); "
                               "not applied\n");
    assert_int_equal(line_count(r.out), 3);
    assert_non_null(strstr(r.out, "{\"frame\":2,\"time\":0.08,\"layers\":[{\"animation\":3,\"name\":\"Robot_Jump\","
                                  "\"weight\":1,\"phase\":0},"));
    run_free(&r);
    /* several: one note, from the first to the last (by their places in SCRIPT) */
    r = run_cna("play", ROBOT, "--timeline", "0 play 2; 0.1 play 3;; 0.2 speed 2; 0.3 loop once", "--fps", "25",
                "--frames", "3", "--json", NULL);
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(r.err, "note: --timeline: entries 2 (\"0.1 play 3\") to 5 are after the last frame (2 at "
                               "0.08 s); not applied\n");
    assert_int_equal(line_count(r.out), 3);
    run_free(&r);
}

static void test_play_takes_clips(void **state)
{
    (void)state;
    char *out = ok(run_cna("play", DOG, "--clips", FOX_CLIPS, "--timeline", "0 play Walk", "--fps", "4", "--frames",
                           "2", "--json", NULL));
    char *pose = ok(run_cna("pose", DOG, "--clips", FOX_CLIPS, "--animation", "Walk", "--time", "0.25", NULL));
    /* the dog's bone names: compare the world arrays in order */
    char *line = line_of(out, 1);
    const char *p = line, *q = pose;
    int bones = 0;
    while ((p = strstr(p, "\"world\":[")) != NULL) {
        q = strstr(q, "\"world\":\t[");
        assert_non_null(q);
        p += strlen("\"world\":[");
        q += strlen("\"world\":\t[");
        for (; *p != ']'; p++, q++) {
            if (*q == ' ') q++;
            if (*p != *q) fail_msg("bone %d differs: %.60s against %.60s", bones, p, q);
        }
        assert_int_equal(*q, ']');
        bones++;
    }
    assert_true(bones > 0);
    free(line);
    free(pose);
    free(out);
}

static void test_play_is_listed_by_help(void **state)
{
    (void)state;
    char *list = ok(run_cna("help", NULL));
    assert_non_null(strstr(list, "\n  play       FILE --timeline SCRIPT --fps F --frames N [--json]"));
    char *a = ok(run_cna("help", "play", NULL));
    char *b = ok(run_cna("play", "--help", NULL));
    assert_string_equal(a, b);
    assert_true(strncmp(a, "usage: cna play FILE --timeline SCRIPT --fps F --frames N [--json]\n", 67) == 0);
    free(a);
    free(b);
    free(list);
}

/* ------------------------------------------------------------ errors */

static void assert_usage_error(run_result r, const char *message)
{
    char expected[1024];
    snprintf(expected, sizeof expected, "cna play: %s\n" PLAY_USAGE, message);
    assert_int_equal(r.exit_code, 2);
    assert_string_equal(r.out, "");
    assert_string_equal(r.err, expected);
    run_free(&r);
}

static void test_play_refuses_malformed_timelines_with_exit_2_naming_the_entry(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"", "--timeline: no entries"},
        {" ; ;", "--timeline: no entries"},
        {"x play 2", "--timeline: entry 1 \"x play 2\": 'x' is not a number of seconds >= 0"},
        {"-1 play 2", "--timeline: entry 1 \"-1 play 2\": '-1' is not a number of seconds >= 0"},
        {"inf play 2", "--timeline: entry 1 \"inf play 2\": 'inf' is not a number of seconds >= 0"},
        {"nan play 2", "--timeline: entry 1 \"nan play 2\": 'nan' is not a number of seconds >= 0"},
        {"1e999 play 2", "--timeline: entry 1 \"1e999 play 2\": '1e999' is not a number of seconds >= 0"},
        {"0.5s play 2", "--timeline: entry 1 \"0.5s play 2\": '0.5s' is not a number of seconds >= 0"},
        {"0 play 2; 1 play 3; 0.5 play 4",
         "--timeline: entry 3 \"0.5 play 4\": time 0.5 is before the previous entry's (1); entries go in order of time"},
        {"0 play 2;;  1.5 ", "--timeline: entry 3 \"1.5\": missing ACTION"},
        {"1 jump 2", "--timeline: entry 1 \"1 jump 2\": unknown action 'jump' (the actions are play, crossfade, speed, loop, blend1d, blend2d, param)"},
        {"1 Play 2", "--timeline: entry 1 \"1 Play 2\": unknown action 'Play' (the actions are play, crossfade, speed, loop, blend1d, blend2d, param)"},
        {"1 play", "--timeline: entry 1 \"1 play\": missing ANIM"},
        {"1 play 2 3", "--timeline: entry 1 \"1 play 2 3\": unexpected argument '3' (play ANIM)"},
        {"0 play 2; 1.5\tcrossfade\n Run", "--timeline: entry 2 \"1.5 crossfade Run\": missing DURATION"},
        {"1 crossfade", "--timeline: entry 1 \"1 crossfade\": missing ANIM"},
        {"1 crossfade 2 0.5 3 4 5 6",
         "--timeline: entry 1 \"1 crossfade 2 0.5 3 4 5 6\": unexpected argument '3' (crossfade ANIM DURATION)"},
        {"1 crossfade 2 -0.5", "--timeline: entry 1 \"1 crossfade 2 -0.5\": DURATION '-0.5' is not a number of seconds >= 0"},
        {"1 crossfade 2 inf", "--timeline: entry 1 \"1 crossfade 2 inf\": DURATION 'inf' is not a number of seconds >= 0"},
        {"1 crossfade 2 x", "--timeline: entry 1 \"1 crossfade 2 x\": DURATION 'x' is not a number of seconds >= 0"},
        {"1 speed", "--timeline: entry 1 \"1 speed\": missing S"},
        {"1 speed nan", "--timeline: entry 1 \"1 speed nan\": S 'nan' is not a finite number"},
        {"1 speed -inf", "--timeline: entry 1 \"1 speed -inf\": S '-inf' is not a finite number"},
        {"1 speed 1,5", "--timeline: entry 1 \"1 speed 1,5\": S '1,5' is not a finite number"},
        {"1 loop", "--timeline: entry 1 \"1 loop\": missing MODE"},
        {"1 loop forever", "--timeline: entry 1 \"1 loop forever\": MODE 'forever' is not once, repeat or pingpong"},
        {"1 loop once twice", "--timeline: entry 1 \"1 loop once twice\": unexpected argument 'twice' (loop MODE)"},
        {"0 blend1d 2 0 10", "--timeline: entry 1 \"0 blend1d 2 0 10\": missing X"},
        {"0 blend1d 2 0 10 nan", "--timeline: entry 1 \"0 blend1d 2 0 10 nan\": X 'nan' is not a finite number"},
        {"0 blend2d 2 0 0 10 1 0 6 0", "--timeline: entry 1 \"0 blend2d 2 0 0 10 1 0 6 0\": missing Y"},
        {"0 param", "--timeline: entry 1 \"0 param\": missing X"},
        {"0 param 1 2 3", "--timeline: entry 1 \"0 param 1 2 3\": unexpected argument '3' (param X [Y])"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_usage_error(run_cna("play", ROBOT, "--timeline", cases[i][0], "--fps", "25", "--frames", "2", "--json",
                                   NULL),
                           cases[i][1]);
    /* a malformed timeline is refused before the file is read */
    assert_usage_error(run_cna("play", "/nonexistent.glb", "--timeline", "1 play", "--fps", "25", "--frames", "2", NULL),
                       "--timeline: entry 1 \"1 play\": missing ANIM");
}

static void test_play_refuses_bad_options_with_exit_2(void **state)
{
    (void)state;
    assert_usage_error(run_cna("play", "--fps", "25", NULL), "missing FILE");
    assert_usage_error(run_cna("play", ROBOT, "--fps", "25", "--frames", "2", NULL), "missing --timeline SCRIPT");
    assert_usage_error(run_cna("play", ROBOT, "--timeline", "0 play 2", "--frames", "2", NULL), "missing --fps F");
    assert_usage_error(run_cna("play", ROBOT, "--timeline", "0 play 2", "--fps", "25", NULL), "missing --frames N");
    assert_usage_error(run_cna("play", ROBOT, "--timeline", NULL), "--timeline needs a value");
    static const char *const fps[] = {"0", "-25", "inf", "nan", "x", "25fps", ""};
    for (size_t i = 0; i < sizeof fps / sizeof fps[0]; i++) {
        char message[128];
        snprintf(message, sizeof message, "--fps: '%s' is not a number of frames per second > 0", fps[i]);
        assert_usage_error(run_cna("play", ROBOT, "--timeline", "0 play 2", "--fps", fps[i], "--frames", "2", NULL),
                           message);
    }
    static const char *const frames[] = {"0", "-1", "1.5", "x", "1000001", "99999999999999999999", "+3", ""};
    for (size_t i = 0; i < sizeof frames / sizeof frames[0]; i++) {
        char message[128];
        snprintf(message, sizeof message, "--frames: '%s' is not a frame count in 1..1000000", frames[i]);
        assert_usage_error(run_cna("play", ROBOT, "--timeline", "0 play 2", "--fps", "25", "--frames", frames[i], NULL),
                           message);
    }
    assert_usage_error(run_cna("play", ROBOT, "--timeline", "0 play 2", "--fps", "25", "--frames", "2", "--loop", NULL),
                       "unknown option '--loop'");
    assert_usage_error(run_cna("play", ROBOT, ROBOT, NULL), "unexpected argument '" ROBOT "'");
}

static void test_play_with_an_unknown_animation_exits_1_naming_the_entry(void **state)
{
    (void)state;
    run_result r = run_cna("play", ROBOT, "--timeline", "0 play 2; 0.5 crossfade Robot_Flying 0.2", "--fps", "25",
                           "--frames", "2", "--json", NULL);
    assert_int_equal(r.exit_code, 1);
    assert_string_equal(r.out, "");
    assert_string_equal(r.err, "error: " ROBOT ": --timeline: entry 2 \"0.5 crossfade Robot_Flying 0.2\": no animation "
                               "'Robot_Flying'" ROBOT_ANIMATIONS);
    run_free(&r);
    /* an index past the last is no animation either */
    r = run_cna("play", ROBOT, "--timeline", "0 play 14", "--fps", "25", "--frames", "2", NULL);
    assert_int_equal(r.exit_code, 1);
    assert_string_equal(r.err, "error: " ROBOT ": --timeline: entry 1 \"0 play 14\": no animation '14'" ROBOT_ANIMATIONS);
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_play_frame_0_prints_the_bone_worlds_of_pose_at_time_0),
        cmocka_unit_test(test_play_frames_print_the_pose_at_their_time_without_drift),
        cmocka_unit_test(test_play_crossfade_weights_are_the_linear_fade_and_its_end_reports_in_its_frame),
        cmocka_unit_test(test_play_crossfade_during_a_crossfade_starts_the_new_animation),
        cmocka_unit_test(test_play_blend_spaces),
        cmocka_unit_test(test_play_loop_modes_report_looped_and_finished_in_the_frame_that_reaches_the_end),
        cmocka_unit_test(test_play_reports_the_markers_of_a_cnb_in_the_frame_that_crosses_them),
        cmocka_unit_test(test_play_without_json_prints_a_line_per_frame),
        cmocka_unit_test(test_play_notes_entries_after_the_last_frame),
        cmocka_unit_test(test_play_takes_clips),
        cmocka_unit_test(test_play_is_listed_by_help),
        cmocka_unit_test(test_play_refuses_malformed_timelines_with_exit_2_naming_the_entry),
        cmocka_unit_test(test_play_refuses_bad_options_with_exit_2),
        cmocka_unit_test(test_play_with_an_unknown_animation_exits_1_naming_the_entry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
