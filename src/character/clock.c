/*
 * The tick clock of a character's layer (src/character/clock.h): exact
 * floor-modulo arithmetic on ticks, and the events an advance crosses.
 */
#include "character/clock.h"

/* floor-mod(a, m) for m > 0, exactly. */
static uint64_t floor_mod_u(int64_t a, uint64_t m)
{
    if (a >= 0) return (uint64_t)a % m;
    const uint64_t r = (uint64_t)(-(a + 1)) % m;   /* -(a + 1) >= 0 never overflows */
    return m - 1 - r;
}

static uint64_t period(const cna__clock *c)
{
    const uint64_t d = (uint64_t)c->duration;
    return c->mode == CNA_LOOP_MODE_PING_PONG ? 2 * d : d;
}

/* The position for the unfolded clock value. */
static void fold_position(cna__clock *c)
{
    const uint64_t d = (uint64_t)c->duration;
    if (c->mode == CNA_LOOP_MODE_PING_PONG && c->unfolded > d)
        c->position = (int64_t)(2 * d - c->unfolded);
    else
        c->position = (int64_t)c->unfolded;
}

void cna__clock_init(cna__clock *c, int64_t duration)
{
    c->duration = duration > 0 ? duration : 0;
    c->mode = CNA_LOOP_MODE_REPEAT;
    c->scale = 1.0;
    c->unfolded = 0;
    c->position = 0;
    c->seek_seconds = 0.0;
    c->seek_exact = false;
}

void cna__clock_seek(cna__clock *c, int64_t ticks)
{
    c->seek_exact = false;
    if (c->duration <= 0) {
        c->unfolded = 0;
    } else if (c->mode == CNA_LOOP_MODE_ONCE) {
        c->unfolded = ticks < 0 ? 0 : (ticks > c->duration ? (uint64_t)c->duration : (uint64_t)ticks);
    } else {
        c->unfolded = floor_mod_u(ticks, period(c));
    }
    fold_position(c);
}

/* ------------------------------------------------------------------ events */

/* What one advance has reported so far. */
typedef struct reporter {
    const cna__clock_events *ev;
    size_t loops;          /* LOOPED events reported */
} reporter;

static void emit(const reporter *r, cna_event_kind kind, size_t marker, int64_t ticks)
{
    cna_event e;
    e.kind = kind;
    e.layer = r->ev->layer;
    e.animation = r->ev->animation;
    e.marker = kind == CNA_EVENT_MARKER ? marker : 0;
    e.name = kind == CNA_EVENT_MARKER ? r->ev->markers[marker].name : NULL;
    e.ticks = ticks;
    e.weight = r->ev->weight;
    r->ev->fn(&e, r->ev->user);
}

/* The first marker with ticks >= t (after_t false) or > t (after_t true). */
static size_t first_marker(const cna_marker *m, size_t n, int64_t t, bool after_t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (m[mid].ticks < t || (after_t && m[mid].ticks == t)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Report the markers with times in lo .. hi (lo excluded when lo_open, hi
 * when hi_open) in the order of travel: rising times when `up`, else
 * falling; markers at the same time in index order either way. */
static void markers_between(const reporter *r, uint64_t lo, bool lo_open, uint64_t hi, bool hi_open, bool up)
{
    const cna_marker *m = r->ev->markers;
    const size_t n = r->ev->marker_count;
    if (!m || n == 0) return;
    const size_t begin = first_marker(m, n, (int64_t)lo, lo_open);
    const size_t end = first_marker(m, n, (int64_t)hi, !hi_open);
    if (up) {
        for (size_t i = begin; i < end; i++) emit(r, CNA_EVENT_MARKER, i, m[i].ticks);
        return;
    }
    for (size_t j = end; j > begin;) { /* groups of equal times, last group first */
        size_t g = j - 1;
        while (g > begin && m[g - 1].ticks == m[j - 1].ticks) g--;
        for (size_t i = g; i < j; i++) emit(r, CNA_EVENT_MARKER, i, m[i].ticks);
        j = g;
    }
}

/* A wrap or turn at `ticks`; false once CNA_EVENT_MAX_LOOPS were reported
 * (the rest of the step reports nothing). */
static bool looped(reporter *r, uint64_t ticks)
{
    emit(r, CNA_EVENT_LOOPED, 0, (int64_t)ticks);
    return ++r->loops < CNA_EVENT_MAX_LOOPS;
}

/* REPEAT: the clock at u in [0, D) moves n > 0 ticks up or down. Forward, a
 * wrap reaches D (its markers, LOOPED, then the markers at 0 of the next
 * loop, as the position is 0 again); backward, the clock passes below 0
 * (LOOPED, then the markers at D it continues from). */
static void report_repeat(reporter *r, uint64_t d, uint64_t u, uint64_t n, bool up)
{
    bool wrapped = false; /* the start point of this stretch is crossed too */
    uint64_t p = u;
    if (up) {
        while (n >= d - p) {
            markers_between(r, p, !wrapped, d, false, true);
            n -= d - p;
            if (!looped(r, d)) return;
            p = 0;
            wrapped = true;
        }
        markers_between(r, p, !wrapped, p + n, false, true);
        return;
    }
    while (n > p) {
        markers_between(r, 0, false, p, !wrapped, false);
        n -= p;
        if (!looped(r, 0)) return;
        p = d;
        wrapped = true;
    }
    markers_between(r, p - n, false, p, !wrapped, false);
}

/* ONCE: the position moves from p toward D (up) or 0 and stops there. */
static void report_once(reporter *r, uint64_t d, uint64_t p, uint64_t n, bool up)
{
    const uint64_t room = up ? d - p : p;
    const uint64_t step = n < room ? n : room;
    if (up) markers_between(r, p, true, p + step, false, true);
    else markers_between(r, p - step, false, p, true, false);
    if (step == room && room > 0) emit(r, CNA_EVENT_FINISHED, 0, up ? (int64_t)d : 0);
}

/* PING_PONG: u in [0, 2D) moves n ticks up (forward) or down; the position
 * runs legs between 0 and D, turning at each end (its markers, then LOOPED,
 * once per arrival). */
static void report_ping_pong(reporter *r, uint64_t d, uint64_t u, uint64_t n, bool forward)
{
    uint64_t pos;
    bool rising; /* the position increases */
    if (forward) {
        rising = u < d;
        pos = rising ? u : 2 * d - u;
    } else {
        rising = u == 0 || u > d;
        pos = u == 0 ? 0 : (rising ? 2 * d - u : u);
    }
    for (;;) {
        const uint64_t dist = rising ? d - pos : pos; /* to the next turn, > 0 */
        if (n < dist) break;
        if (rising) markers_between(r, pos, true, d, false, true);
        else markers_between(r, 0, false, pos, true, false);
        n -= dist;
        pos = rising ? d : 0;
        rising = !rising;
        if (!looped(r, pos)) return;
    }
    if (n == 0) return;
    if (rising) markers_between(r, pos, true, pos + n, false, true);
    else markers_between(r, pos - n, false, pos, true, false);
}

void cna__clock_advance(cna__clock *c, int64_t ticks, const cna__clock_events *events)
{
    c->seek_exact = false;
    const uint64_t before = c->unfolded;
    if (c->duration <= 0) {
        c->unfolded = 0;
    } else if (c->mode == CNA_LOOP_MODE_ONCE) {
        const int64_t u = (int64_t)c->unfolded, d = c->duration;
        /* u in [0, D]: u + ticks clamps without forming an overflowing sum */
        if (ticks > 0) c->unfolded = ticks >= d - u ? (uint64_t)d : (uint64_t)(u + ticks);
        else c->unfolded = ticks <= -u ? 0 : (uint64_t)(u + ticks);
    } else {
        const uint64_t m = period(c);
        const uint64_t u = c->unfolded, f = floor_mod_u(ticks, m);
        uint64_t r = u + f;                      /* the true sum is below 2·m */
        if (r < u || r >= m) r -= m;            /* modulo 2^64 this is the sum minus m */
        c->unfolded = r;
    }
    fold_position(c);
    if (!events || !events->fn || c->duration <= 0 || ticks == 0) return;
    reporter r;
    r.ev = events;
    r.loops = 0;
    const bool up = ticks > 0;
    const uint64_t n = up ? (uint64_t)ticks : (uint64_t)(-(ticks + 1)) + 1; /* |ticks|, INT64_MIN too */
    const uint64_t d = (uint64_t)c->duration;
    if (c->mode == CNA_LOOP_MODE_ONCE) report_once(&r, d, before, n, up);
    else if (c->mode == CNA_LOOP_MODE_PING_PONG) report_ping_pong(&r, d, before, n, up);
    else report_repeat(&r, d, before, n, up);
}

void cna__clock_set_mode(cna__clock *c, cna_loop_mode mode)
{
    c->mode = mode == CNA_LOOP_MODE_DEFAULT ? CNA_LOOP_MODE_REPEAT : mode;
    cna__clock_seek(c, c->position);
}
