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

void cna__clock_advance(cna__clock *c, int64_t ticks, const cna__clock_events *events)
{
    (void)events; /* events are not reported yet */
    c->seek_exact = false;
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
}

void cna__clock_set_mode(cna__clock *c, cna_loop_mode mode)
{
    c->mode = mode == CNA_LOOP_MODE_DEFAULT ? CNA_LOOP_MODE_REPEAT : mode;
    cna__clock_seek(c, c->position);
}
