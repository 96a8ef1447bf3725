/*
 * The crowd (include/cna/crowd.h): a pool of worker threads created once,
 * woken once per update to run cna_player_update (or advance and pose
 * characters) over chunks of CHUNK consecutive players (characters), each
 * chunk taken by whichever thread is free (an
 * atomic counter), the calling thread included. Per update: one pass of
 * checks on the calling thread, one broadcast, chunks until none is left,
 * then a wait until every worker has reported; no allocation (but the
 * check's table, the first time a list is longer than any before). A worker that
 * wakes late (its core busy, a slow wake-up) simply takes fewer chunks,
 * instead of holding back a fixed range. A player or character listed
 * twice is found with a table of the crowd's own (open addressing on the
 * pointers), grown to the largest list checked so far and cleared by each
 * check: the players and characters carry nothing the crowd writes.
 * Each job carries the calling thread's floating-point environment (fenv.h:
 * on x86-64 the SSE control register too, flush-to-zero and
 * denormals-are-zero included), and a worker takes it on before its first
 * chunk: whichever thread runs a chunk, its arithmetic is the caller's, so
 * the results are those of updating each player on the calling thread even
 * where the host changed that thread's environment after the crowd started.
 */
#include <errno.h>
#include <fenv.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "anim/anim_internal.h"
#include "character/character_internal.h"
#include "cna/crowd.h"
#include "core/internal.h"

/* MinGW-w64's fesetenv leaves MXCSR's flush-to-zero and denormals-are-zero
 * as they were: there the SSE control register is carried on its own. */
#if defined(__MINGW32__) && (defined(__x86_64__) || defined(__i386__))
#include <xmmintrin.h>
#define CNA__CROWD_CARRY_MXCSR 1
#endif

typedef struct crowd_job {
    cna_player *const *players;        /* either players */
    cna_character *const *characters;  /* or characters */
    size_t count;
    int64_t ticks;
    bool relative, loop;
    double seconds;                    /* characters: advanced by this, then posed */
    fenv_t env;                        /* the calling thread's floating-point environment */
#ifdef CNA__CROWD_CARRY_MXCSR
    unsigned int mxcsr;
#endif
} crowd_job;

/* An entry of the duplicate check's table: a pointer of the list and its
 * first index (key NULL: empty). */
typedef struct crowd_seen {
    const void *key;
    size_t index;
} crowd_seen;

typedef struct crowd_worker {
    struct cna_crowd *crowd;
    uint32_t index; /* 1..thread_count-1; the caller is thread 0 */
    pthread_t thread;
} crowd_worker;

/* Players per chunk: small enough to balance two threads within a few
 * microseconds at the end of a frame, large enough that the shared counter
 * is touched a few dozen times per frame of 1000 players. */
enum { CHUNK = 16 };

struct cna_crowd {
    cna_allocator allocator;
    uint32_t thread_count;
    crowd_worker *workers; /* thread_count - 1 */
    pthread_mutex_t lock;
    pthread_cond_t start;    /* a new generation (job) or quit */
    pthread_cond_t finished; /* a worker finished its range */
    uint64_t generation;     /* counts jobs; workers run each generation once */
    uint32_t done;           /* workers that finished the current generation */
    bool quit;
    crowd_job job;           /* read by the workers of the current generation */
    bool failed;             /* a character's pose failed this generation (under lock) */
    cna_error error;         /* the first such failure, prefixed with its index */
    /* The duplicate check's table (calling thread only): a power of two of
     * at least twice the list's entries, grown, never shrunk. */
    crowd_seen *seen;
    size_t seen_capacity;
    /* First player of the next chunk to take; padded so that it shares no
     * 64-byte line with the fields above (no _Alignas: the crowd comes from
     * the allocator, which promises only malloc's alignment). */
    char pad_before[64];
    atomic_size_t next;
    char pad_after[64];
};

/* Advance and pose characters[begin..end) (at most CHUNK): the characters
 * whose skeletal pose is one player's update (cna__character_lane_player)
 * have their players advanced together, in the player's vector lanes where
 * they share a skeleton and clip, then every pose is finished; the results
 * are those of cna_character_update on each. Returns the failure of the
 * lowest index (*err set, prefixed with it), CNA_OK when none failed. */
static cna_result update_characters(cna_character *const *characters, size_t begin, size_t end,
                                    double seconds, cna_error *err)
{
    cna_player *players[CHUNK] = {NULL};
    int64_t at[CHUNK] = {0};
    cna_result step[CHUNK];
    bool lane[CHUNK];
    size_t lanes = 0;
    cna_result first = CNA_OK;
    size_t first_index = end;
    cna_error e;
    for (size_t i = begin; i < end; ++i) {
        const size_t k = i - begin;
        lane[k] = false;
        step[k] = cna_character_advance(characters[i], seconds, &e);
        if (step[k] != CNA_OK) {
            if (i < first_index) {
                first = step[k];
                first_index = i;
                if (err) *err = e;
            }
            continue;
        }
        players[lanes] = cna__character_lane_player(characters[i], &at[lanes]);
        if (players[lanes]) {
            lane[k] = true;
            lanes++;
        }
    }
    (void)cna__players_advance_each(players, lanes, at, 0, false, false);
    for (size_t i = begin; i < end; ++i) {
        const size_t k = i - begin;
        if (step[k] != CNA_OK) continue;
        const cna_result r = lane[k] ? cna__character_pose_after_lanes(characters[i], &e)
                                     : cna_character_pose(characters[i], &e);
        if (r != CNA_OK && i < first_index) {
            first = r;
            first_index = i;
            if (err) *err = e;
        }
    }
    if (first != CNA_OK && err) cna__error_prefix(err, "characters[%zu]", first_index);
    return first;
}

/* Take chunks of the job until none is left. The counter only grows, by
 * CHUNK per take, from 0 up to at most count + threads * CHUNK: it cannot
 * wrap for any count an array can hold. */
static void run_chunks(cna_crowd *c, const crowd_job *job)
{
    for (;;) {
        const size_t begin = atomic_fetch_add_explicit(&c->next, CHUNK, memory_order_relaxed);
        if (begin >= job->count) return;
        const size_t end = job->count - begin < CHUNK ? job->count : begin + CHUNK;
        if (job->players) {
            (void)cna__players_advance(job->players + begin, end - begin, job->ticks, job->relative,
                                       job->loop);
            continue;
        }
        cna_error e;
        if (update_characters(job->characters, begin, end, job->seconds, &e) == CNA_OK) continue;
        pthread_mutex_lock(&c->lock);
        if (!c->failed) {
            c->failed = true;
            c->error = e;
        }
        pthread_mutex_unlock(&c->lock);
    }
}

static void *worker_main(void *arg)
{
    crowd_worker *w = (crowd_worker *)arg;
    cna_crowd *c = w->crowd;
    uint64_t seen = 0;
    pthread_mutex_lock(&c->lock);
    for (;;) {
        while (!c->quit && c->generation == seen) pthread_cond_wait(&c->start, &c->lock);
        if (c->quit) break;
        seen = c->generation;
        const crowd_job job = c->job;
        pthread_mutex_unlock(&c->lock);
        (void)fesetenv(&job.env); /* the caller's rounding, flush-to-zero, ... */
#ifdef CNA__CROWD_CARRY_MXCSR
        _mm_setcsr(job.mxcsr);
#endif
        run_chunks(c, &job);
        pthread_mutex_lock(&c->lock);
        if (++c->done == c->thread_count - 1) pthread_cond_signal(&c->finished);
    }
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

/* Stop and join the first `started` workers. */
static void stop_workers(cna_crowd *c, uint32_t started)
{
    pthread_mutex_lock(&c->lock);
    c->quit = true;
    pthread_cond_broadcast(&c->start);
    pthread_mutex_unlock(&c->lock);
    for (uint32_t i = 0; i < started; ++i) pthread_join(c->workers[i].thread, NULL);
}

static void destroy_sync(cna_crowd *c)
{
    pthread_cond_destroy(&c->finished);
    pthread_cond_destroy(&c->start);
    pthread_mutex_destroy(&c->lock);
}

/* A build without threads (WebAssembly without pthreads: emscripten without
 * -pthread; or CNA_NO_THREADS defined) starts no worker: every crowd
 * evaluates on the calling thread, whatever thread_count asks, with the
 * same results (see the header). */
#if defined(CNA_NO_THREADS) || (defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__))
#define CNA__CROWD_THREADS 0
#else
#define CNA__CROWD_THREADS 1
#endif

cna_result cna_crowd_create(const cna_crowd_options *opts, cna_crowd **out, cna_error *err)
{
    if (!out) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "cna_crowd_create: out is NULL");
    const uint32_t asked = opts && opts->thread_count > 0 ? opts->thread_count : 1;
    if (asked > CNA_CROWD_MAX_THREADS)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "thread_count: %u is above %u",
                          (unsigned)asked, (unsigned)CNA_CROWD_MAX_THREADS);
    const uint32_t threads = CNA__CROWD_THREADS ? asked : 1;
    const cna_allocator a = cna__allocator_resolve(opts ? &opts->allocator : NULL);
    cna_crowd *c = (cna_crowd *)cna__calloc(&a, 1, sizeof *c);
    if (!c) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "crowd: out of memory");
    c->allocator = a;
    c->thread_count = threads;
    if (threads > 1) {
        c->workers = (crowd_worker *)cna__calloc(&a, threads - 1, sizeof *c->workers);
        if (!c->workers) {
            cna__free(&a, c);
            return cna__error(err, CNA_ERROR_OUT_OF_MEMORY,
                              "crowd: out of memory for %u worker threads", (unsigned)(threads - 1));
        }
    }
    int e = pthread_mutex_init(&c->lock, NULL);
    if (!e) {
        e = pthread_cond_init(&c->start, NULL);
        if (!e) {
            e = pthread_cond_init(&c->finished, NULL);
            if (e) pthread_cond_destroy(&c->start);
        }
        if (e) pthread_mutex_destroy(&c->lock);
    }
    if (e) {
        cna__free(&a, c->workers);
        cna__free(&a, c);
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY,
                          "crowd: could not create its mutex and condition variables (error %d)", e);
    }
    for (uint32_t i = 0; i + 1 < threads; ++i) {
        c->workers[i].crowd = c;
        c->workers[i].index = i + 1;
        e = pthread_create(&c->workers[i].thread, NULL, worker_main, &c->workers[i]);
        if (e) {
            stop_workers(c, i);
            destroy_sync(c);
            cna__free(&a, c->workers);
            cna__free(&a, c);
            return cna__error(err, CNA_ERROR_OUT_OF_MEMORY,
                              "crowd: could not start worker thread %u of %u (error %d)",
                              (unsigned)(i + 1), (unsigned)(threads - 1), e);
        }
    }
    *out = c;
    return CNA_OK;
}

void cna_crowd_free(cna_crowd *crowd)
{
    if (!crowd) return;
    stop_workers(crowd, crowd->thread_count - 1);
    destroy_sync(crowd);
    const cna_allocator a = crowd->allocator;
    cna__free(&a, crowd->seen);
    cna__free(&a, crowd->workers);
    cna__free(&a, crowd);
}

uint32_t cna_crowd_thread_count(const cna_crowd *crowd) { return crowd ? crowd->thread_count : 0; }

/* An empty table of the crowd for a list of `count` (non-NULL) entries:
 * *mask + 1 entries (a power of two, at least 2 * count), zeroed. Grows the
 * crowd's table (the only allocation of an update) when it has fewer;
 * CNA_ERROR_OUT_OF_MEMORY naming `what` when that fails. */
static cna_result seen_begin(cna_crowd *c, size_t count, const char *what, size_t *mask, cna_error *err)
{
    size_t slots = 16;
    while (slots / 2 < count) {
        if (slots > SIZE_MAX / 2 / sizeof(crowd_seen))
            return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "crowd: out of memory for checking %zu %s", count, what);
        slots *= 2;
    }
    if (slots > c->seen_capacity) {
        crowd_seen *t = (crowd_seen *)cna__calloc(&c->allocator, slots, sizeof *t);
        if (!t)
            return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "crowd: out of memory for checking %zu %s", count, what);
        cna__free(&c->allocator, c->seen);
        c->seen = t;
        c->seen_capacity = slots;
    } else {
        memset(c->seen, 0, slots * sizeof *c->seen);
    }
    *mask = slots - 1;
    return CNA_OK;
}

/* Enter `key` (not NULL) with its index `index` into the table of
 * seen_begin; returns the index of the same key entered before, or
 * SIZE_MAX when it is new. The slot is from the pointer's bits mixed by a
 * multiplication (Fibonacci hashing), then the next free one. */
static size_t seen_enter(crowd_seen *t, size_t mask, const void *key, size_t index)
{
    const uint64_t h = (uint64_t)(uintptr_t)key * UINT64_C(0x9E3779B97F4A7C15);
    for (size_t s = (size_t)(h ^ (h >> 32)) & mask;; s = (s + 1) & mask) {
        if (t[s].key == key) return t[s].index;
        if (!t[s].key) {
            t[s].key = key;
            t[s].index = index;
            return SIZE_MAX;
        }
    }
}

/* Every check of cna_crowd_update, before anything changes. */
static cna_result check_players(cna_crowd *crowd, cna_player *const *players, size_t count, cna_error *err)
{
    for (size_t i = 0; i < count; ++i)
        if (!players[i]) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "players[%zu]: NULL", i);
    if (count > 1) {
        size_t mask = 0;
        const cna_result r = seen_begin(crowd, count, "players", &mask, err);
        if (r) return r;
        for (size_t i = 0; i < count; ++i) {
            const size_t first = seen_enter(crowd->seen, mask, players[i], i);
            if (first != SIZE_MAX)
                return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "players[%zu]: the same player as players[%zu]",
                                  i, first);
        }
    }
    /* Players of one SkinningData (and bone count) pass or fail together:
     * check once. */
    const cna_skinning_data *ok_data = NULL;
    int32_t ok_bones = -1;
    for (size_t i = 0; i < count; ++i) {
        const cna_skinning_data *data = cna_player_skinning_data(players[i]);
        const int32_t bones = cna_player_bone_count(players[i]);
        if (data == ok_data && bones == ok_bones) continue;
        const cna_result r = cna__player_check(players[i], err);
        if (r) {
            cna__error_prefix(err, "players[%zu]", i);
            return r;
        }
        ok_data = data;
        ok_bones = bones;
    }
    return CNA_OK;
}

static cna_result run_job(cna_crowd *crowd, const crowd_job *job_in, cna_error *err);

cna_result cna_crowd_update(cna_crowd *crowd, cna_player *const *players, size_t count,
                            int64_t ticks, bool relative, bool loop, cna_error *err)
{
    if (!crowd) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "cna_crowd_update: crowd is NULL");
    if (!players && count > 0)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "players: NULL with count %zu", count);
    const cna_result r = check_players(crowd, players, count, err);
    if (r) return r;
    if (count == 0) return CNA_OK;
    crowd_job job;
    memset(&job, 0, sizeof job);
    job.players = players;
    job.count = count;
    job.ticks = ticks;
    job.relative = relative;
    job.loop = loop;
    const uint32_t workers = crowd->thread_count - 1;
    if (workers == 0 || count <= CHUNK) {
        (void)cna__players_advance(players, count, ticks, relative, loop);
        return CNA_OK;
    }
    return run_job(crowd, &job, err);
}

/* Hand `job` to every thread of the crowd (the caller included) and wait. */
static cna_result run_job(cna_crowd *crowd, const crowd_job *job_in, cna_error *err)
{
    crowd_job job = *job_in;
    (void)fegetenv(&job.env);
#ifdef CNA__CROWD_CARRY_MXCSR
    job.mxcsr = _mm_getcsr();
#endif
    const uint32_t workers = crowd->thread_count - 1;
    pthread_mutex_lock(&crowd->lock);
    crowd->failed = false;
    crowd->job = job;
    crowd->done = 0;
    atomic_store_explicit(&crowd->next, 0, memory_order_relaxed); /* published by the unlock */
    crowd->generation++;
    pthread_cond_broadcast(&crowd->start);
    pthread_mutex_unlock(&crowd->lock);
    run_chunks(crowd, &job);
    pthread_mutex_lock(&crowd->lock);
    while (crowd->done < workers) pthread_cond_wait(&crowd->finished, &crowd->lock);
    const bool failed = crowd->failed;
    if (failed && err) *err = crowd->error;
    const cna_result r = failed ? crowd->error.code : CNA_OK;
    pthread_mutex_unlock(&crowd->lock);
    return r;
}

/* Every check of cna_crowd_update_characters, before anything changes. */
static cna_result check_characters(cna_crowd *crowd, cna_character *const *characters, size_t count, double seconds,
                                   cna_error *err)
{
    for (size_t i = 0; i < count; ++i)
        if (!characters[i]) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "characters[%zu]: NULL", i);
    size_t mask = 0;
    if (count > 1) {
        const cna_result r = seen_begin(crowd, count, "characters", &mask, err);
        if (r) return r;
    }
    for (size_t i = 0; i < count; ++i) {
        const size_t first = count > 1 ? seen_enter(crowd->seen, mask, characters[i], i) : SIZE_MAX;
        if (first != SIZE_MAX)
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "characters[%zu]: the same character as characters[%zu]",
                              i, first);
        const cna_result r = cna__character_check_advance(characters[i], seconds, err);
        if (r != CNA_OK) {
            cna__error_prefix(err, "characters[%zu]", i);
            return r;
        }
    }
    return CNA_OK;
}

cna_result cna_crowd_update_characters(cna_crowd *crowd, cna_character *const *characters, size_t count,
                                       double seconds, cna_error *err)
{
    if (!crowd)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "cna_crowd_update_characters: crowd is NULL");
    if (!characters && count > 0)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "characters: NULL with count %zu", count);
    const cna_result r = check_characters(crowd, characters, count, seconds, err);
    if (r) return r;
    if (count == 0) return CNA_OK;
    crowd_job job;
    memset(&job, 0, sizeof job);
    job.characters = characters;
    job.count = count;
    job.seconds = seconds;
    if (crowd->thread_count == 1 || count <= CHUNK) {
        /* as on several threads: every character posed, the first failure returned */
        cna_result first = CNA_OK;
        for (size_t begin = 0; begin < count; begin += CHUNK) {
            cna_error e;
            const size_t end = count - begin < CHUNK ? count : begin + CHUNK;
            const cna_result q = update_characters(characters, begin, end, seconds, &e);
            if (q == CNA_OK || first != CNA_OK) continue;
            first = q;
            if (err) *err = e;
        }
        return first;
    }
    return run_job(crowd, &job, err);
}
