/*
 * Events of a character's clock (include/cna/character.h, "events"): the
 * markers of cna_model_add_marker crossed while advancing, LOOPED at every
 * wrap and turn, FINISHED at the end of a ONCE clock, in the order of the
 * clock's path. Hand-made cases with their exact event sequences, and a
 * property test: a million random steps whose events equal those of a
 * reference written here, which lists every marker instance and loop end
 * of the unfolded time line and keeps those inside the step.
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

#define STEP_MODEL "fixtures/step-three-keys.gltf" /* one animation "Step", 2 s */
#define ROBOT "corpus/valid/RobotExpressive/robot.glb"
#define SECOND CNA_TICKS_PER_SECOND

static cna_model *load(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", CNA_TEST_DATA_DIR, rel);
    cna_model *m = NULL;
    cna_error err;
    if (cna_model_load_file(path, NULL, &m, &err) != CNA_OK) fail_msg("%s: %s", path, err.message);
    return m;
}

static void add(cna_model *m, size_t animation, const char *name, double seconds)
{
    cna_error err;
    if (cna_model_add_marker(m, animation, name, seconds, &err) != CNA_OK) fail_msg("add_marker: %s", err.message);
}

/* ------------------------------------------------------------------ recording */

#define LOG_MAX 20000

typedef struct logged {
    cna_event_kind kind;
    size_t layer;
    long animation;
    size_t marker;
    const char *name;
    int64_t ticks;
    float weight;
} logged;

typedef struct event_log {
    logged e[LOG_MAX];
    size_t count;
    bool overflow;
} event_log;

static void record(const cna_event *e, void *user)
{
    event_log *l = (event_log *)user;
    if (l->count == LOG_MAX) {
        l->overflow = true;
        return;
    }
    logged *o = &l->e[l->count++];
    o->kind = e->kind;
    o->layer = e->layer;
    o->animation = e->animation;
    o->marker = e->marker;
    o->name = e->name;
    o->ticks = e->ticks;
    o->weight = e->weight;
}

/* The log as text, then emptied: "name@s" for a marker, "LOOPED@s",
 * "FINISHED@s", "FADED@s" (FADE_FINISHED), "STOPPED@s" (LAYER_STOPPED);
 * "L:" in front for layer L other than 0. */
static const char *text(event_log *l)
{
    static char buf[8192];
    size_t at = 0;
    buf[0] = 0;
    for (size_t i = 0; i < l->count && at < sizeof buf - 64; i++) {
        const logged *e = &l->e[i];
        char layer[24] = "";
        if (e->layer) snprintf(layer, sizeof layer, "%zu:", e->layer);
        const char *what = e->kind == CNA_EVENT_MARKER          ? e->name
                           : e->kind == CNA_EVENT_LOOPED        ? "LOOPED"
                           : e->kind == CNA_EVENT_FINISHED      ? "FINISHED"
                           : e->kind == CNA_EVENT_FADE_FINISHED ? "FADED"
                                                                : "STOPPED";
        at += (size_t)snprintf(buf + at, sizeof buf - at, "%s%s%s@%g", i ? " " : "", layer, what,
                               cna_ticks_to_seconds(e->ticks));
    }
    l->count = 0;
    return buf;
}

typedef struct fixture {
    cna_model *model;
    cna_character *c;
    event_log *log;
} fixture;

/* The 2 s "Step" animation with markers start@0, mid@0.5, end@2 (added out
 * of order), playing in `mode` on a character that records its events. */
static fixture step_fixture(cna_loop_mode mode)
{
    fixture f;
    f.model = load(STEP_MODEL);
    assert_int_equal(f.model->node_clips[0].duration, 2 * SECOND);
    add(f.model, 0, "end", 2.0);
    add(f.model, 0, "mid", 0.5);
    add(f.model, 0, "start", 0.0);
    f.log = (event_log *)calloc(1, sizeof *f.log);
    assert_non_null(f.log);
    cna_error err;
    assert_int_equal(cna_character_create(f.model, NULL, &f.c, &err), CNA_OK);
    assert_int_equal(cna_character_set_event_listener(f.c, record, f.log, &err), CNA_OK);
    assert_int_equal(cna_character_set_loop_mode(f.c, mode, &err), CNA_OK);
    assert_int_equal(cna_character_play(f.c, 0, &err), CNA_OK);
    return f;
}

static void fixture_free(fixture *f)
{
    assert_false(f->log->overflow);
    cna_character_free(f->c);
    cna_model_free(f->model);
    free(f->log);
}

/* Advance by `seconds` (at the character's time scale) and return the events. */
static const char *step(fixture *f, double seconds)
{
    cna_error err;
    assert_int_equal(cna_character_advance(f->c, seconds, &err), CNA_OK);
    return text(f->log);
}

static const char *step_ticks(fixture *f, int64_t ticks)
{
    cna_error err;
    assert_int_equal(cna_character_advance_ticks(f->c, ticks, &err), CNA_OK);
    return text(f->log);
}

/* ------------------------------------------------------------------ hand-made cases */

static void markers_are_stored_sorted_with_ties_in_the_order_added(void **state)
{
    (void)state;
    fixture f = step_fixture(CNA_LOOP_MODE_REPEAT);
    size_t n = 0;
    const cna_marker *m = cna_model_markers(f.model, 0, &n);
    assert_int_equal(n, 3);
    assert_string_equal(m[0].name, "start");
    assert_int_equal(m[0].ticks, 0);
    assert_string_equal(m[1].name, "mid");
    assert_int_equal(m[1].ticks, SECOND / 2);
    assert_string_equal(m[2].name, "end");
    assert_int_equal(m[2].ticks, 2 * SECOND);
    fixture_free(&f);
}

static void repeat_forward_crosses_each_marker_and_wraps_exactly_onto_the_start(void **state)
{
    (void)state;
    fixture f = step_fixture(CNA_LOOP_MODE_REPEAT);
    assert_string_equal(step(&f, 0.25), "");               /* play crosses nothing, not even start@0 */
    assert_string_equal(step(&f, 0.25), "mid@0.5");        /* p < m <= p': landing on it crosses it */
    assert_string_equal(step(&f, 1.0), "");                /* at 1.5 */
    assert_string_equal(step(&f, 0.5), "end@2 LOOPED@2 start@0"); /* exactly onto the wrap: position 0 */
    assert_int_equal(cna_character_position(f.c), 0);
    assert_string_equal(step(&f, 0.5), "mid@0.5");         /* start@0 is not crossed again */
    assert_string_equal(step(&f, 1.75), "end@2 LOOPED@2 start@0");
    assert_int_equal(cna_character_position(f.c), SECOND / 4);
    fixture_free(&f);
}

static void a_step_of_three_and_a_half_loops_crosses_each_marker_per_loop(void **state)
{
    (void)state;
    fixture f = step_fixture(CNA_LOOP_MODE_REPEAT);
    assert_string_equal(step(&f, 7.0), "mid@0.5 end@2 LOOPED@2 start@0 mid@0.5 end@2 LOOPED@2 start@0 "
                                       "mid@0.5 end@2 LOOPED@2 start@0 mid@0.5");
    assert_int_equal(cna_character_position(f.c), SECOND);
    /* and backward over 3.5 loops from 1 s */
    cna_error err;
    assert_int_equal(cna_character_set_time_scale(f.c, -1.0, &err), CNA_OK);
    assert_string_equal(step(&f, 7.0), "mid@0.5 start@0 LOOPED@0 end@2 mid@0.5 start@0 LOOPED@0 end@2 "
                                       "mid@0.5 start@0 LOOPED@0 end@2 mid@0.5 start@0");
    assert_int_equal(cna_character_position(f.c), 0);
    fixture_free(&f);
}

static void repeat_backward_crosses_start_on_arrival_and_end_after_the_wrap(void **state)
{
    (void)state;
    fixture f = step_fixture(CNA_LOOP_MODE_REPEAT);
    cna_error err;
    assert_int_equal(cna_character_seek(f.c, 1.0, &err), CNA_OK); /* a seek crosses nothing */
    assert_int_equal(cna_character_set_time_scale(f.c, -1.0, &err), CNA_OK);
    assert_string_equal(step(&f, 0.5), "mid@0.5");    /* p' <= m < p */
    assert_string_equal(step(&f, 0.5), "start@0");    /* arrives at 0: no wrap yet */
    assert_int_equal(cna_character_position(f.c), 0);
    assert_string_equal(step(&f, 0.5), "LOOPED@0 end@2"); /* leaves 0 below: wraps to the end */
    assert_int_equal(cna_character_position(f.c), SECOND * 3 / 2);
    assert_string_equal(step(&f, 1.0), "mid@0.5");
    /* advance_ticks is not scaled: forward, 0.5 -> 2 */
    assert_string_equal(step_ticks(&f, SECOND * 3 / 2), "end@2 LOOPED@2 start@0");
    fixture_free(&f);
}

static void a_seek_crosses_nothing_and_the_next_advance_starts_there(void **state)
{
    (void)state;
    fixture f = step_fixture(CNA_LOOP_MODE_REPEAT);
    cna_error err;
    assert_int_equal(cna_character_seek(f.c, 0.5, &err), CNA_OK);
    assert_string_equal(text(f.log), "");
    assert_string_equal(step(&f, 0.0), "");                 /* a step of 0 reports nothing */
    assert_string_equal(step(&f, 1.0), "");                 /* mid@0.5 was the start point */
    assert_int_equal(cna_character_seek(f.c, 1.9, &err), CNA_OK);
    assert_string_equal(step(&f, 0.2), "end@2 LOOPED@2 start@0");
    assert_int_equal(cna_character_play(f.c, 0, &err), CNA_OK); /* play crosses nothing */
    assert_string_equal(text(f.log), "");
    assert_int_equal(cna_character_set_loop_mode(f.c, CNA_LOOP_MODE_ONCE, &err), CNA_OK);
    assert_string_equal(text(f.log), "");
    fixture_free(&f);
}

static void ping_pong_turns_cross_the_end_markers_once_per_arrival(void **state)
{
    (void)state;
    fixture f = step_fixture(CNA_LOOP_MODE_PING_PONG);
    assert_string_equal(step(&f, 2.0), "mid@0.5 end@2 LOOPED@2"); /* arrives at the turn point */
    assert_int_equal(cna_character_position(f.c), 2 * SECOND);
    assert_string_equal(step(&f, 1.0), "");                       /* leaves it: end@2 not again */
    assert_string_equal(step(&f, 1.5), "mid@0.5 start@0 LOOPED@0 mid@0.5"); /* 1 -> 0 -> 0.5 */
    /* a step longer than the clip: 0.5 -> 2 -> 0 -> 1.5 */
    assert_string_equal(step(&f, 5.0), "end@2 LOOPED@2 mid@0.5 start@0 LOOPED@0 mid@0.5");
    assert_int_equal(cna_character_position(f.c), SECOND * 3 / 2);
    /* backward: the same path the other way, 1.5 -> 0 -> 2 -> 1.75 */
    cna_error err;
    assert_int_equal(cna_character_set_time_scale(f.c, -1.0, &err), CNA_OK);
    assert_string_equal(step(&f, 1.5), "mid@0.5 start@0 LOOPED@0");
    assert_int_equal(cna_character_position(f.c), 0);
    assert_string_equal(step(&f, 2.25), "mid@0.5 end@2 LOOPED@2");
    assert_int_equal(cna_character_position(f.c), SECOND * 7 / 4);
    fixture_free(&f);
}

static void ping_pong_at_the_start_turns_when_played_backward(void **state)
{
    (void)state;
    fixture f = step_fixture(CNA_LOOP_MODE_PING_PONG);
    cna_error err;
    assert_int_equal(cna_character_set_time_scale(f.c, -1.0, &err), CNA_OK);
    /* from 0 backward the position rises: 0 -> 2 -> 1 (start@0 was the start point) */
    assert_string_equal(step(&f, 3.0), "mid@0.5 end@2 LOOPED@2");
    assert_int_equal(cna_character_position(f.c), SECOND);
    fixture_free(&f);
}

static void once_finishes_at_the_end_it_moves_toward_and_only_on_arrival(void **state)
{
    (void)state;
    fixture f = step_fixture(CNA_LOOP_MODE_ONCE);
    assert_string_equal(step(&f, 1.0), "mid@0.5");
    assert_string_equal(step(&f, 5.0), "end@2 FINISHED@2");
    assert_string_equal(step(&f, 1.0), "");               /* staying at the end */
    cna_error err;
    assert_int_equal(cna_character_set_time_scale(f.c, -1.0, &err), CNA_OK);
    assert_string_equal(step(&f, 1.0), "");               /* 2 -> 1 */
    assert_string_equal(step(&f, 3.0), "mid@0.5 start@0 FINISHED@0");
    assert_string_equal(step(&f, 3.0), "");
    assert_int_equal(cna_character_set_time_scale(f.c, 1.0, &err), CNA_OK);
    assert_string_equal(step(&f, 2.0), "mid@0.5 end@2 FINISHED@2"); /* exactly onto the end */
    fixture_free(&f);
}

static void markers_at_the_same_time_come_in_the_order_added_in_both_directions(void **state)
{
    (void)state;
    cna_model *m = load(STEP_MODEL);
    add(m, 0, "b", 1.0);
    add(m, 0, "a", 1.0);
    add(m, 0, "c", 1.0);
    add(m, 0, "z", 0.5);
    event_log *log = (event_log *)calloc(1, sizeof *log);
    assert_non_null(log);
    fixture f = {m, NULL, log};
    cna_error err;
    assert_int_equal(cna_character_create(m, NULL, &f.c, &err), CNA_OK);
    assert_int_equal(cna_character_set_event_listener(f.c, record, log, &err), CNA_OK);
    assert_int_equal(cna_character_play(f.c, 0, &err), CNA_OK);
    assert_string_equal(step(&f, 1.5), "z@0.5 b@1 a@1 c@1");
    assert_int_equal(cna_character_set_time_scale(f.c, -1.0, &err), CNA_OK);
    assert_string_equal(step(&f, 1.5), "b@1 a@1 c@1 z@0.5");
    /* the marker field is the index in cna_model_markers */
    assert_int_equal(cna_character_advance(f.c, -1.0, &err), CNA_OK); /* 0 -> 1 forward */
    assert_int_equal(log->count, 4);
    const char *want[4] = {"z", "b", "a", "c"};
    size_t n = 0;
    const cna_marker *mk = cna_model_markers(m, 0, &n);
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(log->e[i].kind, CNA_EVENT_MARKER);
        assert_int_equal(log->e[i].layer, 0);
        assert_int_equal(log->e[i].animation, 0);
        assert_int_equal(log->e[i].marker, i);
        assert_ptr_equal(log->e[i].name, mk[i].name);
        assert_string_equal(log->e[i].name, want[i]);
    }
    log->count = 0;
    /* no listener: nothing is reported */
    assert_int_equal(cna_character_set_event_listener(f.c, NULL, NULL, &err), CNA_OK);
    assert_int_equal(cna_character_advance(f.c, 5.0, &err), CNA_OK);
    assert_int_equal(log->count, 0);
    fixture_free(&f);
}

static void looped_and_finished_carry_no_marker(void **state)
{
    (void)state;
    fixture f = step_fixture(CNA_LOOP_MODE_ONCE);
    cna_error err;
    assert_int_equal(cna_character_seek(f.c, 1.0, &err), CNA_OK);
    assert_int_equal(cna_character_advance(f.c, 1.0, &err), CNA_OK);
    assert_int_equal(f.log->count, 2);
    assert_int_equal(f.log->e[1].kind, CNA_EVENT_FINISHED);
    assert_null(f.log->e[1].name);
    assert_int_equal(f.log->e[1].marker, 0);
    assert_int_equal(f.log->e[1].ticks, 2 * SECOND);
    f.log->count = 0;
    assert_int_equal(cna_character_set_loop_mode(f.c, CNA_LOOP_MODE_REPEAT, &err), CNA_OK); /* folds 2 to 0 */
    assert_int_equal(cna_character_position(f.c), 0);
    assert_int_equal(cna_character_set_time_scale(f.c, -1.0, &err), CNA_OK);
    assert_int_equal(cna_character_advance(f.c, 0.1, &err), CNA_OK);
    assert_int_equal(f.log->count, 2);
    assert_int_equal(f.log->e[0].kind, CNA_EVENT_LOOPED);
    assert_null(f.log->e[0].name);
    assert_int_equal(f.log->e[0].ticks, 0);
    assert_string_equal(f.log->e[1].name, "end");
    f.log->count = 0;
    fixture_free(&f);
}

static void a_very_long_step_reports_at_most_the_loop_limit(void **state)
{
    (void)state;
    cna_model *m = load(STEP_MODEL);
    add(m, 0, "mid", 0.5);
    event_log *log = (event_log *)calloc(1, sizeof *log);
    assert_non_null(log);
    fixture f = {m, NULL, log};
    cna_error err;
    assert_int_equal(cna_character_create(m, NULL, &f.c, &err), CNA_OK);
    assert_int_equal(cna_character_set_event_listener(f.c, record, log, &err), CNA_OK);
    assert_int_equal(cna_character_play(f.c, 0, &err), CNA_OK);
    const int64_t d = 2 * SECOND;
    /* exactly the limit: every loop, mid then LOOPED, and the landing loop's mid */
    assert_int_equal(cna_character_advance_ticks(f.c, CNA_EVENT_MAX_LOOPS * d + d / 2, &err), CNA_OK);
    assert_int_equal(log->count, 2 * CNA_EVENT_MAX_LOOPS);
    assert_int_equal(log->e[log->count - 1].kind, CNA_EVENT_LOOPED);
    log->count = 0;
    assert_int_equal(cna_character_seek_ticks(f.c, 0, &err), CNA_OK);
    assert_int_equal(cna_character_advance_ticks(f.c, (CNA_EVENT_MAX_LOOPS - 1) * d + d / 2, &err), CNA_OK);
    assert_int_equal(log->count, 2 * CNA_EVENT_MAX_LOOPS - 1); /* below the limit: all, mid last */
    assert_int_equal(log->e[log->count - 1].kind, CNA_EVENT_MARKER);
    log->count = 0;
    /* the longest steps, both signs and all modes: the limit, and the clock lands exactly */
    const cna_loop_mode modes[3] = {CNA_LOOP_MODE_REPEAT, CNA_LOOP_MODE_PING_PONG, CNA_LOOP_MODE_ONCE};
    for (int k = 0; k < 3; k++) {
        assert_int_equal(cna_character_set_loop_mode(f.c, modes[k], &err), CNA_OK);
        for (int sign = 0; sign < 2; sign++) {
            assert_int_equal(cna_character_seek_ticks(f.c, d / 4, &err), CNA_OK);
            const int64_t t = sign ? INT64_MIN : INT64_MAX;
            assert_int_equal(cna_character_advance_ticks(f.c, t, &err), CNA_OK);
            size_t loops = 0;
            for (size_t i = 0; i < log->count; i++) loops += log->e[i].kind == CNA_EVENT_LOOPED;
            if (modes[k] == CNA_LOOP_MODE_ONCE) {
                assert_int_equal(loops, 0);
                assert_int_equal(log->e[log->count - 1].kind, CNA_EVENT_FINISHED);
            } else {
                assert_int_equal(loops, CNA_EVENT_MAX_LOOPS);
                assert_int_equal(log->e[log->count - 1].kind, CNA_EVENT_LOOPED);
                assert_true(log->count <= 2 * CNA_EVENT_MAX_LOOPS + 1);
            }
            log->count = 0;
        }
    }
    /* and the clock moves the whole step: REPEAT from d/4 lands where floor-mod says */
    assert_int_equal(cna_character_set_loop_mode(f.c, CNA_LOOP_MODE_REPEAT, &err), CNA_OK);
    assert_int_equal(cna_character_seek_ticks(f.c, d / 4, &err), CNA_OK);
    assert_int_equal(cna_character_advance_ticks(f.c, INT64_MAX, &err), CNA_OK);
    assert_int_equal(cna_character_position(f.c), (int64_t)(((uint64_t)INT64_MAX % (uint64_t)d + (uint64_t)d / 4) % (uint64_t)d));
    log->count = 0;
    fixture_free(&f);
}

static void layers_report_in_index_order_and_carry_their_layer(void **state)
{
    (void)state;
    cna_model *m = load(ROBOT);
    size_t walk = 0, wave = 0;
    cna_error err;
    assert_int_equal(cna_model_find_animation(m, "Robot_Walking", &walk, &err), CNA_OK);
    assert_int_equal(cna_model_find_animation(m, "Robot_Wave", &wave, &err), CNA_OK);
    add(m, walk, "left", 0.25);
    add(m, walk, "right", 0.75);
    add(m, wave, "hand", 0.5);
    event_log *log = (event_log *)calloc(1, sizeof *log);
    assert_non_null(log);
    fixture f = {m, NULL, log};
    cna_character_options o;
    memset(&o, 0, sizeof o);
    o.layer_count = 2;
    assert_int_equal(cna_character_create(m, &o, &f.c, &err), CNA_OK);
    assert_int_equal(cna_character_set_event_listener(f.c, record, log, &err), CNA_OK);
    assert_int_equal(cna_character_layer_play(f.c, 0, (long)walk, &err), CNA_OK);
    assert_int_equal(cna_character_layer_play(f.c, 1, (long)wave, &err), CNA_OK);
    assert_int_equal(cna_character_layer_set_weight(f.c, 1, 0.5f, &err), CNA_OK);
    assert_int_equal(cna_character_layer_set_time_scale(f.c, 1, -1.0, &err), CNA_OK); /* layer 1 backward */
    const int64_t dwave = cna_character_layer_duration(f.c, 1);
    assert_int_equal(dwave, m->node_clips[wave].duration);
    assert_string_equal(step(&f, 0.8), "left@0.25 right@0.75 1:LOOPED@0"); /* layer 1 wraps from 0 */
    assert_int_equal(cna_character_layer_position(f.c, 1), dwave - cna_ticks_from_seconds(0.8));
    /* the fields of a layer-1 event */
    assert_int_equal(cna_character_layer_seek(f.c, 1, 0.6, &err), CNA_OK);
    assert_int_equal(cna_character_layer_seek(f.c, 0, 0.0, &err), CNA_OK);
    assert_int_equal(cna_character_advance(f.c, 0.1, &err), CNA_OK);
    assert_int_equal(log->count, 1);
    assert_int_equal(log->e[0].kind, CNA_EVENT_MARKER);
    assert_int_equal(log->e[0].layer, 1);
    assert_int_equal(log->e[0].animation, (long)wave);
    assert_int_equal(log->e[0].marker, 0);
    assert_string_equal(log->e[0].name, "hand");
    assert_int_equal(log->e[0].ticks, SECOND / 2);
    log->count = 0;
    /* a layer that plays nothing reports nothing; a crossfade's incoming layer reports from its start */
    assert_int_equal(cna_character_layer_play(f.c, 1, -1, &err), CNA_OK);
    assert_string_equal(step(&f, 0.2), "left@0.25");
    assert_int_equal(cna_character_layer_set_time_scale(f.c, 1, 1.0, &err), CNA_OK);
    assert_int_equal(cna_character_crossfade(f.c, 0, 1, (long)walk, 0.5, 0, &err), CNA_OK);
    /* the crossfade ends in this step: both fades finish and layer 0, faded to 0, stops */
    assert_string_equal(step(&f, 0.5), "right@0.75 FADED@0.8 STOPPED@0.8 1:left@0.25 1:FADED@0.5");
    fixture_free(&f);
}


/* ------------------------------------------------------------------ layer lifecycle */

/* The robot walking on layer 0 with markers left@0.25 and right@0.75 of the
 * walk, recording its events; two layers. */
static fixture walk_fixture(size_t *walk, size_t *run)
{
    fixture f;
    f.model = load(ROBOT);
    cna_error err;
    assert_int_equal(cna_model_find_animation(f.model, "Robot_Walking", walk, &err), CNA_OK);
    assert_int_equal(cna_model_find_animation(f.model, "Robot_Running", run, &err), CNA_OK);
    add(f.model, *walk, "left", 0.25);
    add(f.model, *walk, "right", 0.75);
    f.log = (event_log *)calloc(1, sizeof *f.log);
    assert_non_null(f.log);
    assert_int_equal(cna_character_create(f.model, NULL, &f.c, &err), CNA_OK);
    assert_int_equal(cna_character_set_event_listener(f.c, record, f.log, &err), CNA_OK);
    assert_int_equal(cna_character_play(f.c, (long)*walk, &err), CNA_OK);
    return f;
}

static void a_layer_faded_to_zero_stops_after_fade_finished_and_layer_stopped(void **state)
{
    (void)state;
    size_t walk, run;
    fixture f = walk_fixture(&walk, &run);
    cna_error err;
    assert_false(cna_character_layer_keep_running(f.c, 0));
    assert_int_equal(cna_character_crossfade(f.c, 0, 1, (long)run, 0.5, 0, &err), CNA_OK);
    /* during the fade, layer 0's marker carries its weight after the step's fade */
    assert_string_equal(step(&f, 0.3), "left@0.25");
    assert_int_equal(f.log->e[0].ticks, SECOND / 4); /* text() emptied the log; the entry stays */
    const float w = cna_character_layer_weight(f.c, 0);
    assert_true(w > 0.0f && w < 1.0f);
    assert_true(f.log->e[0].weight == w);
    /* the step that ends the fade: the clock's events, then FADE_FINISHED, then LAYER_STOPPED */
    assert_int_equal(cna_character_advance(f.c, 0.5, &err), CNA_OK);
    assert_int_equal(f.log->count, 4);
    const logged *e = f.log->e;
    assert_int_equal(e[0].kind, CNA_EVENT_MARKER); /* right@0.75, at weight 0 */
    assert_int_equal(e[0].layer, 0);
    assert_true(e[0].weight == 0.0f);
    assert_int_equal(e[1].kind, CNA_EVENT_FADE_FINISHED);
    assert_int_equal(e[1].layer, 0);
    assert_int_equal(e[1].animation, (long)walk);
    assert_int_equal(e[1].ticks, cna_ticks_from_seconds(0.8));
    assert_true(e[1].weight == 0.0f);
    assert_null(e[1].name);
    assert_int_equal(e[2].kind, CNA_EVENT_LAYER_STOPPED);
    assert_int_equal(e[2].layer, 0);
    assert_int_equal(e[2].animation, (long)walk);
    assert_int_equal(e[2].ticks, cna_ticks_from_seconds(0.8));
    assert_true(e[2].weight == 0.0f);
    assert_int_equal(e[3].kind, CNA_EVENT_FADE_FINISHED);
    assert_int_equal(e[3].layer, 1);
    assert_int_equal(e[3].animation, (long)run);
    assert_true(e[3].weight == 1.0f);
    f.log->count = 0;
    assert_int_equal(cna_character_layer_animation(f.c, 0), -1);
    assert_int_equal(cna_character_layer_position(f.c, 0), 0);
    assert_true(cna_character_layer_weight(f.c, 0) == 0.0f);
    assert_int_equal(cna_character_layer_animation(f.c, 1), (long)run);
    /* stopped: no more events from layer 0, however long it advances (layer 1's clock held still) */
    assert_int_equal(cna_character_layer_set_time_scale(f.c, 1, 0.0, &err), CNA_OK);
    assert_string_equal(step(&f, 3.0), "");
    /* a fade up that ends reports FADE_FINISHED only (here of a layer that plays nothing) */
    assert_int_equal(cna_character_layer_fade(f.c, 0, 0.5f, 0.1, &err), CNA_OK);
    assert_string_equal(step(&f, 0.1), "FADED@0");
    assert_int_equal(f.log->count, 0);
    /* a fade of 0 s sets the weight at once: no event, the layer keeps playing */
    assert_int_equal(cna_character_crossfade(f.c, 1, 0, (long)walk, 0.0, 0, &err), CNA_OK);
    assert_string_equal(step(&f, 0.3), "left@0.25");
    assert_int_equal(cna_character_layer_animation(f.c, 1), (long)run);
    fixture_free(&f);
}

static void a_layer_told_to_keep_running_reports_on_at_weight_zero(void **state)
{
    (void)state;
    size_t walk, run;
    fixture f = walk_fixture(&walk, &run);
    cna_error err;
    assert_int_equal(cna_character_layer_set_keep_running(f.c, 0, true, &err), CNA_OK);
    assert_true(cna_character_layer_keep_running(f.c, 0));
    assert_int_equal(cna_character_crossfade(f.c, 0, 1, (long)run, 0.5, 0, &err), CNA_OK);
    assert_string_equal(step(&f, 0.8), "left@0.25 right@0.75 FADED@0.8 1:FADED@0.8");
    assert_int_equal(cna_character_layer_animation(f.c, 0), (long)walk);
    /* the walk (0.958333 s) wraps and crosses its left foot at weight 0; the run wraps too */
    assert_string_equal(step(&f, 0.5), "LOOPED@0.958333 left@0.25 1:LOOPED@0.958333");
    assert_true(f.log->e[1].weight == 0.0f);
    assert_true(f.log->e[2].weight == 1.0f);
    /* errors */
    assert_int_equal(cna_character_layer_set_keep_running(f.c, 2, true, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "layer 2 is outside 0..1");
    assert_int_equal(cna_character_layer_set_keep_running(NULL, 0, true, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_false(cna_character_layer_keep_running(NULL, 0));
    assert_false(cna_character_layer_keep_running(f.c, 2));
    fixture_free(&f);
}

/* A listener that tries calls on the character it listens to. */
typedef struct meddler {
    cna_character *c;
    size_t calls;
    cna_result forbidden[14];
    char message[CNA_ERROR_MESSAGE_MAX];
    long animation;
    float weight;
    int64_t position;
    const cna_mat4 *absolute;
} meddler;

static void meddle(const cna_event *e, void *user)
{
    meddler *m = (meddler *)user;
    (void)e;
    cna_character *c = m->c;
    cna_error err;
    size_t k = 0;
    m->forbidden[k++] = cna_character_advance(c, 0.1, &err);
    m->forbidden[k++] = cna_character_advance_ticks(c, 100, &err);
    m->forbidden[k++] = cna_character_update(c, 0.1, &err);
    m->forbidden[k++] = cna_character_pose(c, &err);
    m->forbidden[k++] = cna_character_play(c, 1, &err);
    m->forbidden[k++] = cna_character_seek(c, 0.0, &err);
    m->forbidden[k++] = cna_character_crossfade(c, 0, 1, 1, 0.2, 0, &err);
    m->forbidden[k++] = cna_character_layer_fade(c, 1, 1.0f, 0.2, &err);
    m->forbidden[k++] = cna_character_layer_set_weight(c, 1, 1.0f, &err);
    m->forbidden[k++] = cna_character_layer_set_keep_running(c, 0, true, &err);
    m->forbidden[k++] = cna_character_set_event_listener(c, NULL, NULL, &err);
    m->forbidden[k++] = cna_character_set_time_scale(c, 2.0, &err);
    m->forbidden[k++] = cna_character_rotate_joint(c, 0, (cna_quat){0, 0, 0, 1}, &err);
    m->forbidden[k++] = cna_character_layer_set_mask(c, 1, NULL, 0, &err);
    memcpy(m->message, err.message, sizeof m->message);
    cna_character_free(c); /* does nothing from the listener */
    /* reading is allowed */
    m->animation = cna_character_layer_animation(c, 0);
    m->weight = cna_character_layer_weight(c, 0);
    m->position = cna_character_position(c);
    m->absolute = cna_character_absolute_transform(c, 0);
    m->calls++;
}

static void a_listener_may_read_the_character_but_not_change_it(void **state)
{
    (void)state;
    size_t walk, run;
    fixture f = walk_fixture(&walk, &run);
    cna_error err;
    meddler m;
    memset(&m, 0, sizeof m);
    m.c = f.c;
    assert_int_equal(cna_character_set_event_listener(f.c, meddle, &m, &err), CNA_OK);
    assert_int_equal(cna_character_crossfade(f.c, 0, 1, (long)run, 0.5, 0, &err), CNA_OK);
    assert_int_equal(cna_character_advance(f.c, 0.3, &err), CNA_OK); /* left@0.25 */
    assert_int_equal(m.calls, 1);
    for (size_t k = 0; k < sizeof m.forbidden / sizeof m.forbidden[0]; k++)
        assert_int_equal(m.forbidden[k], CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(m.message, "character: a call that changes the character was made from its event listener "
                                   "(a listener may only read the character); nothing changed");
    /* what the listener read, and nothing changed: only the advance's own effects */
    assert_int_equal(m.animation, (long)walk);
    assert_true(m.weight == cna_character_layer_weight(f.c, 0));
    assert_int_equal(m.position, cna_ticks_from_seconds(0.3));
    assert_ptr_equal(m.absolute, cna_character_absolute_transform(f.c, 0));
    assert_int_equal(cna_character_position(f.c), cna_ticks_from_seconds(0.3));
    assert_int_equal(cna_character_layer_position(f.c, 1), cna_ticks_from_seconds(0.3));
    assert_int_equal(cna_character_layer_animation(f.c, 1), (long)run);
    assert_true(cna_character_time_scale(f.c) == 1.0);
    assert_false(cna_character_layer_keep_running(f.c, 0));
    assert_null(cna_character_layer_mask(f.c, 1));
    /* the listener is still set, the fade still runs to its end, and after the
     * callbacks every call is allowed again */
    assert_int_equal(cna_character_advance(f.c, 0.2, &err), CNA_OK); /* FADE_FINISHED x2, LAYER_STOPPED */
    assert_int_equal(m.calls, 4);
    assert_int_equal(cna_character_layer_animation(f.c, 0), -1);
    assert_true(cna_character_layer_weight(f.c, 1) == 1.0f);
    assert_int_equal(cna_character_pose(f.c, &err), CNA_OK);
    assert_int_equal(cna_character_set_event_listener(f.c, NULL, NULL, &err), CNA_OK);
    fixture_free(&f);
}

/* ------------------------------------------------------------------ the reference */

/* A small generator (xorshift64*), the same sequence in every run. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t next_u64(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dULL;
}
static uint64_t below(uint64_t n) { return n ? next_u64() % n : 0; }

static int64_t floor_div(int64_t a, int64_t d)
{
    int64_t q = a / d;
    if (a % d != 0 && a < 0) q--;
    return q;
}
static int64_t floor_mod(int64_t a, int64_t d) { return a - floor_div(a, d) * d; }

/* One point of the unfolded time line: a marker instance or a loop end,
 * at `at` ticks; `order` sorts the points of one instant (see below). */
typedef struct point {
    int64_t at;
    int order;
    cna_event_kind kind;
    size_t marker;   /* index among the sorted markers */
    int64_t ticks;   /* the event's ticks */
} point;

#define POINTS_MAX 4096

typedef struct reference {
    cna_loop_mode mode;
    int64_t d;
    int64_t t;               /* unfolded time: unbounded for REPEAT and PING_PONG, in [0, D] for ONCE */
    const int64_t *marks;    /* marker times, sorted, ties in the order added */
    size_t mark_count;
    point p[POINTS_MAX];
    size_t count;
} reference;

static int64_t ref_position(const reference *r)
{
    if (r->mode == CNA_LOOP_MODE_ONCE) return r->t;
    if (r->mode == CNA_LOOP_MODE_REPEAT) return floor_mod(r->t, r->d);
    const int64_t u = floor_mod(r->t, 2 * r->d);
    return u <= r->d ? u : 2 * r->d - u;
}

static void put(reference *r, int64_t at, int order, cna_event_kind kind, size_t marker, int64_t ticks)
{
    if (r->count == POINTS_MAX) fail_msg("reference: more than %d points", POINTS_MAX);
    point *p = &r->p[r->count++];
    p->at = at;
    p->order = order;
    p->kind = kind;
    p->marker = marker;
    p->ticks = ticks;
}

static bool before(const point *a, const point *b)
{
    if (a->at != b->at) return a->at < b->at;
    if (a->order != b->order) return a->order < b->order;
    return a->marker < b->marker;
}

/* Sort by (at, order, marker) (insertion sort: the points come nearly in
 * order), then, going backward, reverse the groups of equal `at` (and equal
 * `order` when by_order) keeping each group's own order. */
static void arrange(reference *r, bool backward, bool by_order)
{
    for (size_t i = 1; i < r->count; i++) {
        point x = r->p[i];
        size_t j = i;
        while (j > 0 && before(&x, &r->p[j - 1])) {
            r->p[j] = r->p[j - 1];
            j--;
        }
        r->p[j] = x;
    }
    if (!backward) return;
    static point tmp[POINTS_MAX];
    size_t out = 0;
    for (size_t end = r->count; end > 0;) {
        size_t g = end - 1;
        while (g > 0 && r->p[g - 1].at == r->p[end - 1].at && (!by_order || r->p[g - 1].order == r->p[end - 1].order))
            g--;
        for (size_t i = g; i < end; i++) tmp[out++] = r->p[i];
        end = g;
    }
    memcpy(r->p, tmp, r->count * sizeof *tmp);
}

/* The events of a step of `ticks` from r->t, into r->p[0 .. count), and the
 * new unfolded time.
 *   REPEAT: loop k spans [kD, (k+1)D); marker m of loop k is at kD + m. At
 *     the instant kD lie, in this order, the markers at D of loop k-1
 *     (order 0), the wrap (order 1) and the markers of loop k at 0 (order
 *     2). The clock at time T stands at (T, order 2): forward it crosses the
 *     points in ((T, 2), (T', 2)], backward those in [(T', 2), (T, 2)).
 *   PING_PONG: marker m is at 2kD + m and 2kD + 2D - m (once when m is 0 or
 *     D), a turn at every jD after the markers there; forward the points in
 *     (T, T'], backward [T', T), markers before the turn at one instant.
 *   ONCE: the markers in (T, T'] or [T', T), then FINISHED on arrival at D
 *     forward or 0 backward. */
static void ref_step(reference *r, int64_t ticks)
{
    r->count = 0;
    const int64_t d = r->d, t0 = r->t;
    if (r->mode == CNA_LOOP_MODE_ONCE) {
        int64_t t1 = t0 + ticks;
        if (t1 < 0) t1 = 0;
        if (t1 > d) t1 = d;
        for (size_t i = 0; i < r->mark_count; i++) {
            const int64_t m = r->marks[i];
            if ((ticks > 0 && t0 < m && m <= t1) || (ticks < 0 && t1 <= m && m < t0)) put(r, m, 0, CNA_EVENT_MARKER, i, m);
        }
        arrange(r, ticks < 0, false);
        if (ticks > 0 && t1 == d && t0 < d) put(r, d, 1, CNA_EVENT_FINISHED, 0, d);
        if (ticks < 0 && t1 == 0 && t0 > 0) put(r, 0, 1, CNA_EVENT_FINISHED, 0, 0);
        r->t = t1;
        return;
    }
    const int64_t t1 = t0 + ticks;
    const int64_t lo = t0 < t1 ? t0 : t1, hi = t0 < t1 ? t1 : t0;
    if (r->mode == CNA_LOOP_MODE_REPEAT) {
        for (int64_t k = floor_div(lo, d) - 1; k <= floor_div(hi, d) + 1; k++) {
            const int64_t base = k * d;
            put(r, base, 1, CNA_EVENT_LOOPED, 0, ticks > 0 ? d : 0);
            for (size_t i = 0; i < r->mark_count; i++)
                put(r, base + r->marks[i], r->marks[i] == d ? 0 : 2, CNA_EVENT_MARKER, i, r->marks[i]);
        }
        /* keep ((t0, 2), (t1, 2)] forward, [(t1, 2), (t0, 2)) backward */
        size_t n = 0;
        for (size_t i = 0; i < r->count; i++) {
            const point *p = &r->p[i];
            const bool above_t0 = p->at > t0 || (p->at == t0 && p->order > 2);
            const bool to_t1 = p->at < t1 || (p->at == t1 && p->order <= 2);
            const bool from_t1 = p->at > t1 || (p->at == t1 && p->order >= 2);
            const bool below_t0 = p->at < t0 || (p->at == t0 && p->order < 2);
            if (ticks > 0 ? above_t0 && to_t1 : from_t1 && below_t0) r->p[n++] = *p;
        }
        r->count = n;
        arrange(r, ticks < 0, true);
    } else {
        for (int64_t k = floor_div(lo, 2 * d) - 1; k <= floor_div(hi, 2 * d) + 1; k++) {
            const int64_t base = 2 * k * d;
            put(r, base, 1, CNA_EVENT_LOOPED, 0, 0);
            put(r, base + d, 1, CNA_EVENT_LOOPED, 0, d);
            for (size_t i = 0; i < r->mark_count; i++) {
                const int64_t m = r->marks[i];
                put(r, base + m, 0, CNA_EVENT_MARKER, i, m);
                if (m != 0 && m != d) put(r, base + 2 * d - m, 0, CNA_EVENT_MARKER, i, m);
            }
        }
        size_t n = 0;
        for (size_t i = 0; i < r->count; i++) {
            const int64_t at = r->p[i].at;
            if (ticks > 0 ? t0 < at && at <= t1 : t1 <= at && at < t0) r->p[n++] = r->p[i];
        }
        r->count = n;
        arrange(r, ticks < 0, false);
    }
    r->t = t1;
}

/* ------------------------------------------------------------------ the property test */

#define STEPS 1000000
#define MARKS_MAX 10

typedef struct marker_set {
    int64_t marks[MARKS_MAX]; /* sorted, ties in the order added */
    size_t count;
} marker_set;

/* Random markers for an animation of `d` ticks: 0 .. 9, at 0, at D,
 * duplicates and anywhere, added to the model in random order; the sorted
 * copy (ties in the order added) is checked against cna_model_markers. */
static void random_markers(cna_model *m, size_t animation, int64_t d, marker_set *s)
{
    s->count = (size_t)below(MARKS_MAX);
    for (size_t i = 0; i < s->count; i++) {
        int64_t t;
        switch (below(5)) {
        case 0: t = 0; break;
        case 1: t = d; break;
        case 2: t = i > 0 ? s->marks[below(i)] : d / 2; break; /* a duplicate of an earlier one */
        default: t = (int64_t)below((uint64_t)d + 1); break;
        }
        s->marks[i] = t;
    }
    char name[32];
    for (size_t i = 0; i < s->count; i++) {
        snprintf(name, sizeof name, "m%zu", i);
        const double seconds = cna_ticks_to_seconds(s->marks[i]);
        assert_int_equal(cna_ticks_from_seconds(seconds), s->marks[i]);
        add(m, animation, name, seconds);
    }
    /* a stable sort of the times: the model's order */
    int64_t sorted[MARKS_MAX];
    size_t id[MARKS_MAX];
    for (size_t i = 0; i < s->count; i++) {
        size_t j = i;
        while (j > 0 && sorted[j - 1] > s->marks[i]) {
            sorted[j] = sorted[j - 1];
            id[j] = id[j - 1];
            j--;
        }
        sorted[j] = s->marks[i];
        id[j] = i;
    }
    size_t n = 0;
    const cna_marker *mk = cna_model_markers(m, animation, &n);
    assert_int_equal(n, s->count);
    for (size_t i = 0; i < n; i++) {
        snprintf(name, sizeof name, "m%zu", id[i]);
        assert_string_equal(mk[i].name, name);
        assert_int_equal(mk[i].ticks, sorted[i]);
    }
    memcpy(s->marks, sorted, s->count * sizeof *sorted);
}

/* A step for the reference's clock: often exactly onto a marker instance or
 * a loop end (or one tick beside it), else any size up to four loops. */
static int64_t random_step(const reference *r)
{
    const int64_t d = r->d;
    const int sign = below(2) ? 1 : -1;
    switch (below(8)) {
    case 0: return 0;
    case 1: return sign * (int64_t)below(3 + 1);                  /* a tick or three */
    case 2: return sign * (int64_t)below((uint64_t)d / 4 + 1);
    case 3: return sign * (int64_t)(1 + below(4)) * d;            /* whole loops */
    case 4: return sign * (int64_t)below(4 * (uint64_t)d + 1);
    default: {
        /* onto a point: a marker (or an end) in one of the next loops, either way */
        int64_t target_pos = below(4) == 0 || r->mark_count == 0 ? (below(2) ? d : 0) : r->marks[below(r->mark_count)];
        const int64_t span = r->mode == CNA_LOOP_MODE_PING_PONG ? 2 * d : d;
        if (r->mode == CNA_LOOP_MODE_PING_PONG && below(2)) target_pos = 2 * d - target_pos; /* on the way back */
        const int64_t loop = floor_div(r->t, span) + sign * (int64_t)below(3);
        const int64_t target = loop * span + target_pos;
        const int64_t jitter = below(4) == 0 ? (int64_t)below(3) - 1 : 0;
        return target - r->t + jitter;
    }
    }
}

static void compare(const reference *r, const event_log *log, long animation, size_t step_index, int64_t ticks)
{
    bool same = log->count == r->count;
    for (size_t i = 0; same && i < r->count; i++) {
        const logged *e = &log->e[i];
        const point *p = &r->p[i];
        same = e->kind == p->kind && e->ticks == p->ticks && e->layer == 0 && e->animation == animation &&
               (p->kind != CNA_EVENT_MARKER || e->marker == p->marker);
    }
    if (same) return;
    print_error("step %zu: mode %d, D %lld, markers", step_index, (int)r->mode, (long long)r->d);
    for (size_t i = 0; i < r->mark_count; i++) print_error(" %lld", (long long)r->marks[i]);
    print_error("; from unfolded %lld by %lld\n  expected:", (long long)(r->t - ticks), (long long)ticks);
    for (size_t i = 0; i < r->count; i++)
        print_error(" %d/%zu@%lld", (int)r->p[i].kind, r->p[i].marker, (long long)r->p[i].ticks);
    print_error("\n  reported:");
    for (size_t i = 0; i < log->count; i++)
        print_error(" %d/%zu@%lld", (int)log->e[i].kind, log->e[i].marker, (long long)log->e[i].ticks);
    print_error("\n");
    fail();
}

static void a_million_random_steps_report_what_the_reference_finds(void **state)
{
    (void)state;
    cna_model *m = load(ROBOT);
    const size_t anims = m->animation_count;
    assert_int_equal(anims, 14);
    marker_set sets[14];
    for (size_t a = 0; a < anims; a++) random_markers(m, a, m->node_clips[a].duration, &sets[a]);
    event_log *log = (event_log *)calloc(1, sizeof *log);
    reference *r = (reference *)calloc(1, sizeof *r);
    assert_non_null(log);
    assert_non_null(r);
    cna_character *c = NULL;
    cna_error err;
    assert_int_equal(cna_character_create(m, NULL, &c, &err), CNA_OK);
    assert_int_equal(cna_character_set_event_listener(c, record, log, &err), CNA_OK);
    const cna_loop_mode modes[3] = {CNA_LOOP_MODE_REPEAT, CNA_LOOP_MODE_ONCE, CNA_LOOP_MODE_PING_PONG};
    size_t steps = 0, events = 0, sequences = 0, seeks = 0, seen[4] = {0};
    while (steps < STEPS) {
        const size_t a = (size_t)below(anims);
        r->mode = modes[below(3)];
        r->d = m->node_clips[a].duration;
        r->t = 0;
        r->marks = sets[a].marks;
        r->mark_count = sets[a].count;
        assert_int_equal(cna_character_set_loop_mode(c, r->mode, &err), CNA_OK);
        assert_int_equal(cna_character_play(c, (long)a, &err), CNA_OK);
        assert_int_equal(cna_character_set_time_scale(c, below(2) ? 1.0 : -1.0, &err), CNA_OK);
        size_t length = 1000 + (size_t)below(60000);
        if (length > STEPS - steps) length = STEPS - steps;
        for (size_t i = 0; i < length; i++, steps++) {
            if (below(64) == 0) { /* a seek: anywhere, or onto a marker */
                int64_t to = below(2) && r->mark_count ? r->marks[below(r->mark_count)]
                                                       : (int64_t)below(3 * (uint64_t)r->d) - r->d;
                assert_int_equal(cna_character_seek_ticks(c, to, &err), CNA_OK);
                r->t = r->mode == CNA_LOOP_MODE_ONCE ? (to < 0 ? 0 : to > r->d ? r->d : to) : to;
                seeks++;
            }
            int64_t ticks = random_step(r);
            if (below(16) == 0) { /* through seconds and the time scale */
                const double seconds = cna_ticks_to_seconds(ticks < 0 ? -ticks : ticks);
                const double scale = cna_character_time_scale(c);
                ticks = cna_ticks_from_seconds(seconds * scale);
                assert_int_equal(cna_character_advance(c, seconds, &err), CNA_OK);
            } else {
                assert_int_equal(cna_character_advance_ticks(c, ticks, &err), CNA_OK);
            }
            assert_false(log->overflow);
            ref_step(r, ticks);
            compare(r, log, (long)a, steps, ticks);
            if (cna_character_position(c) != ref_position(r))
                fail_msg("step %zu: position %lld, the reference %lld", steps, (long long)cna_character_position(c),
                         (long long)ref_position(r));
            for (size_t k = 0; k < log->count; k++) seen[log->e[k].kind]++;
            events += log->count;
            log->count = 0;
        }
        sequences++;
    }
    assert_int_equal(steps, STEPS);
    /* the run met every kind of event, many times */
    assert_true(seen[CNA_EVENT_MARKER] > 100000);
    assert_true(seen[CNA_EVENT_LOOPED] > 10000);
    assert_true(seen[CNA_EVENT_FINISHED] > 1000);
    assert_true(sequences >= 10);
    assert_true(seeks > 1000);
    print_message("%zu steps in %zu sequences (%zu seeks): %zu events (%zu markers, %zu loops, %zu finished)\n",
                  steps, sequences, seeks, events, seen[CNA_EVENT_MARKER], seen[CNA_EVENT_LOOPED],
                  seen[CNA_EVENT_FINISHED]);
    cna_character_free(c);
    cna_model_free(m);
    free(r);
    free(log);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(markers_are_stored_sorted_with_ties_in_the_order_added),
        cmocka_unit_test(repeat_forward_crosses_each_marker_and_wraps_exactly_onto_the_start),
        cmocka_unit_test(a_step_of_three_and_a_half_loops_crosses_each_marker_per_loop),
        cmocka_unit_test(repeat_backward_crosses_start_on_arrival_and_end_after_the_wrap),
        cmocka_unit_test(a_seek_crosses_nothing_and_the_next_advance_starts_there),
        cmocka_unit_test(ping_pong_turns_cross_the_end_markers_once_per_arrival),
        cmocka_unit_test(ping_pong_at_the_start_turns_when_played_backward),
        cmocka_unit_test(once_finishes_at_the_end_it_moves_toward_and_only_on_arrival),
        cmocka_unit_test(markers_at_the_same_time_come_in_the_order_added_in_both_directions),
        cmocka_unit_test(looped_and_finished_carry_no_marker),
        cmocka_unit_test(a_very_long_step_reports_at_most_the_loop_limit),
        cmocka_unit_test(layers_report_in_index_order_and_carry_their_layer),
        cmocka_unit_test(a_layer_faded_to_zero_stops_after_fade_finished_and_layer_stopped),
        cmocka_unit_test(a_layer_told_to_keep_running_reports_on_at_weight_zero),
        cmocka_unit_test(a_listener_may_read_the_character_but_not_change_it),
        cmocka_unit_test(a_million_random_steps_report_what_the_reference_finds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
