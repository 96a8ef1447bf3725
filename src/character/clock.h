/*
 * The tick clock of a character's layer (src/character/clock.c): a position
 * in ticks folded by a loop mode, and the events an advance crosses. Not
 * installed.
 */
#ifndef CNA_CHARACTER_CLOCK_H
#define CNA_CHARACTER_CLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cna/character.h"

typedef struct cna__clock {
    int64_t duration;      /* D ticks of the animation; 0 with none */
    cna_loop_mode mode;    /* REPEAT, ONCE or PING_PONG (never DEFAULT) */
    double scale;          /* time scale of cna_character_advance */
    uint64_t unfolded;     /* REPEAT [0, D), ONCE [0, D], PING_PONG [0, 2D) */
    int64_t position;      /* in [0, D] */
    /* the seconds of the last seek while no advance followed and the seek
     * was not folded: morph weight tracks (kept in seconds) are evaluated there */
    double seek_seconds;
    bool seek_exact;
} cna__clock;

/* Where an advance reports what it crosses (cna_character_set_event_listener):
 * markers sorted by ticks (ties in index order), and the listener; fn NULL
 * reports nothing. */
typedef struct cna__clock_events {
    const cna_marker *markers;
    size_t marker_count;
    size_t layer;
    long animation;
    float weight;          /* the layer's weight, carried by every event */
    cna_event_fn fn;
    void *user;
} cna__clock_events;

/* A stopped clock at 0 with `duration` ticks (negative: 0), mode REPEAT, scale 1. */
void cna__clock_init(cna__clock *clock, int64_t duration);

/* Set the position to `ticks` folded by the mode (crosses nothing). */
void cna__clock_seek(cna__clock *clock, int64_t ticks);

/* Move the position by `ticks` (any sign, any size) and fold it; when
 * `events` is not NULL and has a listener, report every marker crossed, each
 * loop wrap or ping-pong turn (CNA_EVENT_LOOPED) and a ONCE clock reaching an
 * end (CNA_EVENT_FINISHED), in the order the clock passes them, by the rules of include/cna/character.h
 * ("events"; at most CNA_EVENT_MAX_LOOPS wraps or turns). The listener is
 * called after the clock has moved. */
void cna__clock_advance(cna__clock *clock, int64_t ticks, const cna__clock_events *events);

/* Change the mode; the position is folded into the new mode's range. */
void cna__clock_set_mode(cna__clock *clock, cna_loop_mode mode);

#endif
