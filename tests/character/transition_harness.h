/*
 * Random crossfade timelines and the per-frame bone displacement they give,
 * against two references: each clip played alone, and the uninterrupted
 * crossfades between the same clips with the same durations. Shared by
 * tests/character/test_transitions.c (a few hundred timelines per model)
 * and bench/transitions.c (any number, the figure printed).
 *
 * A frame's displacement is the largest distance any bone's absolute
 * (model-space) origin moves from the frame before. Clips loop (REPEAT),
 * frames are 1/60 s apart. The crossfade references of each crossfade in
 * a timeline are made uninterrupted from the positions the clips have then
 * (th_timeline): a crossfade between two poses whose rotations are nearly
 * opposite turns fast, so its phase matters.
 */
#ifndef CNA_TEST_TRANSITION_HARNESS_H
#define CNA_TEST_TRANSITION_HARNESS_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cna/cna.h"

#define TH_FPS 60.0
#define TH_DURATIONS 4
static const double th_durations[TH_DURATIONS] = {0.1, 0.2, 0.3, 0.5};

typedef struct th_model {
    const cna_model *model;
    size_t clips;
    double *alone;      /* clips: the largest displacement of the clip played alone */
    double *prev;       /* bone_count · 3: the timeline's last origins */
    double *ref_prev;   /* bone_count · 3: the references' */
} th_model;

static uint64_t th_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static size_t th_below(uint64_t *s, size_t n) { return (size_t)(th_next(s) % n); }

/* The largest bone displacement since the last call with `prev` (the
 * first call of a run gives 0: start true), the origins kept in prev. */
static double th_displacement(const th_model *t, const cna_character *c, double *prev, int start)
{
    double most = 0.0;
    for (size_t b = 0; b < t->model->bone_count; b++) {
        const cna_mat4 *w = cna_character_absolute_transform(c, b);
        const double x = w->m[12], y = w->m[13], z = w->m[14];
        double *p = &prev[3 * b];
        if (!start) {
            const double d = sqrt((x - p[0]) * (x - p[0]) + (y - p[1]) * (y - p[1]) + (z - p[2]) * (z - p[2]));
            if (d > most) most = d;
        }
        p[0] = x;
        p[1] = y;
        p[2] = z;
    }
    return most;
}

static cna_character *th_character(const th_model *t, size_t layers)
{
    cna_character_options o;
    memset(&o, 0, sizeof o);
    o.layer_count = layers;
    cna_character *c = NULL;
    if (cna_character_create(t->model, &o, &c, NULL) != CNA_OK) return NULL;
    for (size_t l = 0; l < layers; l++) cna_character_layer_set_loop_mode(c, l, CNA_LOOP_MODE_REPEAT, NULL);
    return c;
}

static int th_frame(const th_model *t, cna_character *c, double *prev, int start, double *most)
{
    if (!start && cna_character_advance(c, 1.0 / TH_FPS, NULL) != CNA_OK) return -1;
    if (cna_character_pose(c, NULL) != CNA_OK) return -1;
    const double d = th_displacement(t, c, prev, start);
    if (d > *most) *most = d;
    return 0;
}

/* The model's first references: every clip alone over its duration (and
 * a frame). */
static int th_init(th_model *t, const cna_model *m)
{
    memset(t, 0, sizeof *t);
    t->model = m;
    t->clips = m->animation_count;
    t->alone = (double *)calloc(t->clips ? t->clips : 1, sizeof(double));
    t->prev = (double *)calloc(3 * (m->bone_count + 1), sizeof(double));
    t->ref_prev = (double *)calloc(3 * (m->bone_count + 1), sizeof(double));
    if (!t->alone || !t->prev || !t->ref_prev) return -1;
    for (size_t a = 0; a < t->clips; a++) {
        cna_character *c = th_character(t, 2);
        if (!c || cna_character_play(c, (long)a, NULL) != CNA_OK) return -1;
        const int frames = (int)ceil(cna_ticks_to_seconds(cna_character_duration(c)) * TH_FPS) + 1;
        double most = 0.0;
        for (int f = 0; f <= frames; f++)
            if (th_frame(t, c, t->ref_prev, f == 0, &most) != 0) return -1;
        t->alone[a] = most;
        cna_character_free(c);
    }
    return 0;
}

static void th_free(th_model *t)
{
    free(t->alone);
    free(t->prev);
    free(t->ref_prev);
    memset(t, 0, sizeof *t);
}

/* The uninterrupted crossfade from clip a, at position `position` (ticks),
 * to clip b over th_durations[d]: a posed there, the crossfade started
 * there (as the timeline started it) and followed to its end and a frame
 * beyond; its largest displacement. */
static double th_xfade(th_model *t, size_t a, int64_t position, size_t b, size_t d)
{
    double most = 0.0;
    cna_character *c = th_character(t, 2);
    if (!c || cna_character_play(c, (long)a, NULL) != CNA_OK) return -1.0;
    if (cna_character_seek_ticks(c, position, NULL) != CNA_OK) return -1.0;
    if (th_frame(t, c, t->ref_prev, 1, &most) != 0) return -1.0;
    if (cna_character_crossfade(c, 0, 1, (long)b, th_durations[d], 0, NULL) != CNA_OK) return -1.0;
    const int frames = (int)ceil(th_durations[d] * TH_FPS) + 1;
    for (int f = 0; f < frames; f++)
        if (th_frame(t, c, t->ref_prev, 0, &most) != 0) return -1.0;
    cna_character_free(c);
    return most;
}

/* A timeline's displacement over its reference. Both below a millionth of
 * the fastest clip's largest displacement (float noise: a rotation at a
 * bone whose origin does not move) count as that floor. */
static double th_ratio(const th_model *t, double moved, double reference)
{
    double fastest = 0.0;
    for (size_t a = 0; a < t->clips; a++)
        if (t->alone[a] > fastest) fastest = t->alone[a];
    double floor_ = 1e-6 * fastest;
    if (!(floor_ > 0.0)) floor_ = 1e-12;
    return (moved > floor_ ? moved : floor_) / (reference > floor_ ? reference : floor_);
}

typedef struct th_result {
    double moved;       /* the timeline's largest displacement */
    double reference;   /* the larger reference of the clips and crossfades it used */
    size_t crossfades;
} th_result;

/* One random timeline of `frames` frames on a character of 2 or 3 layers:
 * a clip plays from frame 0, then every 1 to 30 frames a crossfade from the
 * layer that last started to the next layer, to a random clip over a random
 * duration of th_durations (the ones before still running or not).
 *
 * The references of a crossfade: the new clip alone, and the uninterrupted
 * crossfade to it, over the same duration, from each clip the pose shown is
 * made of then: the clip started last, and the clips before it whose
 * transitions had not ended when the next began (an interrupted transition
 * leaves their pose in the one shown), each from the position it has
 * played to (every clip starts at 0 and loops; a clip started at frame f
 * has advanced g - f frames when frame g starts). */
#define TH_LIVE 64
static int th_timeline(th_model *t, uint64_t *rng, int frames, th_result *out)
{
    const size_t layers = 2 + th_below(rng, 2);
    cna_character *c = th_character(t, layers);
    if (!c) return -1;
    size_t clip = th_below(rng, t->clips), layer = 0;
    if (cna_character_play(c, (long)clip, NULL) != CNA_OK) return -1;
    double moved = 0.0, reference = t->alone[clip];
    size_t crossfades = 0;
    size_t live_clip[TH_LIVE];
    int live_start[TH_LIVE], settled = 0;
    size_t live = 1;
    live_clip[0] = clip;
    live_start[0] = 1; /* frame 0 is posed without an advance */
    int next = 1 + (int)th_below(rng, 30);
    for (int f = 0; f < frames; f++) {
        if (f >= settled) { /* the last transition ended: the pose is its clip's */
            live_clip[0] = live_clip[live - 1];
            live_start[0] = live_start[live - 1];
            live = 1;
        }
        if (f == next) {
            const size_t to_clip = th_below(rng, t->clips), d = th_below(rng, TH_DURATIONS);
            const size_t to = (layer + 1) % layers;
            if (cna_character_crossfade(c, layer, to, (long)to_clip, th_durations[d], 0, NULL) != CNA_OK) return -1;
            for (size_t i = 0; i < live; i++) {
                const int64_t d_ticks = t->model->node_clips ? t->model->node_clips[live_clip[i]].duration : 0;
                int64_t at = (int64_t)(f - live_start[i]) * cna_ticks_from_seconds(1.0 / TH_FPS);
                if (d_ticks > 0) at %= d_ticks;
                const double x = th_xfade(t, live_clip[i], at, to_clip, d);
                if (x < 0.0) return -1;
                if (x > reference) reference = x;
            }
            if (t->alone[to_clip] > reference) reference = t->alone[to_clip];
            if (live == TH_LIVE) { /* the oldest has long faded */
                memmove(live_clip, live_clip + 1, (TH_LIVE - 1) * sizeof live_clip[0]);
                memmove(live_start, live_start + 1, (TH_LIVE - 1) * sizeof live_start[0]);
                live--;
            }
            live_clip[live] = to_clip;
            live_start[live++] = f;
            settled = f + (int)ceil(th_durations[d] * TH_FPS) + 1;
            clip = to_clip;
            layer = to;
            crossfades++;
            next = f + 1 + (int)th_below(rng, 30);
        }
        if (th_frame(t, c, t->prev, f == 0, &moved) != 0) return -1;
    }
    cna_character_free(c);
    out->moved = moved;
    out->reference = reference;
    out->crossfades = crossfades;
    return 0;
}

#endif
