/*
 * cna/crowd.h — a crowd: advances and evaluates many players (or characters) at once on
 * worker threads (data-parallel, allocation-free per frame).
 *
 * A crowd is a small pool of threads, created once. Each cna_crowd_update
 * call hands out the given players in chunks of 16 consecutive ones to
 * whichever thread is free (the calling thread included), which runs
 * cna_player_update on each player of its chunk; the call returns when every
 * chunk is done. The players stay the caller's: the crowd neither owns nor
 * remembers them, so each call may pass a different list (different
 * skeletons, clips and positions are fine). Results are exactly those of
 * calling cna_player_update on each player in turn on the calling thread:
 * the workers take on the calling thread's floating-point environment
 * (fenv.h; on x86 also flush-to-zero and denormals-are-zero) for each
 * update, so that a host changing it after the crowd was created changes
 * every thread's arithmetic alike.
 *
 * Speed: players that share one SkinningData (of at most 64 joints), clip,
 * sampling mode and root prefixes and stand within 16 places of each other
 * in the list are sampled together, up to eight at a time, one track for
 * all of them, their new key intervals, slerp weights and compositions
 * made in the lanes of one vector operation, and their hierarchies two at
 * a time; each player's results keep the bits of updating it alone. That
 * saves 7-8 % of the instructions of updating them one by one (a few
 * percent of the time; docs/benchmarks.md gives the figures), so list the
 * players of one model and clip near each other. cna_crowd_update_characters
 * does the same with the players of characters that play one animation on
 * one layer (no blend, no moving root prefix).
 *
 * Usage (one frame of 1000 characters on 2 threads):
 *   cna_crowd_options opts = {0};
 *   opts.thread_count = 2;
 *   cna_crowd *crowd;
 *   if (cna_crowd_create(&opts, &crowd, &err)) ...;
 *   cna_crowd_update(crowd, players, 1000, cna_ticks_from_seconds(1.0 / 60), true, true, &err);
 *   ... draw each player's cna_player_skin_transforms ...
 *   cna_crowd_free(crowd);
 *
 * Memory: besides its threads, the crowd keeps one table for finding an
 * entry listed twice: a power of two of 16-byte entries (on 64-bit
 * targets), at least 16 and at least twice the longest list passed so far
 * (32 KiB for 1000 players), allocated by the first call with a longer list
 * than any before and freed by cna_crowd_free. The players and characters
 * themselves carry nothing that a crowd writes, so one may be in the lists
 * of several crowds (not while two of them run).
 *
 * Threading: one crowd serves one calling thread at a time (calls on the
 * same crowd must not overlap); several crowds may run at once. While an
 * update runs, its players (and their SkinningData and clips) must not be
 * touched by other threads; players may share SkinningData and clips.
 */
#ifndef CNA_CROWD_H
#define CNA_CROWD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cna/alloc.h"
#include "cna/character.h"
#include "cna/export.h"
#include "cna/player.h"
#include "cna/result.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most threads a crowd may have. */
#define CNA_CROWD_MAX_THREADS 256

typedef struct cna_crowd cna_crowd;

typedef struct cna_crowd_options {
    cna_allocator allocator;  /* hooks for the crowd's own memory; default malloc/free */
    uint32_t thread_count;    /* threads that evaluate players, the calling thread
                                 included (thread_count - 1 workers are started);
                                 0 = default = 1 (no worker threads). A build
                                 without threads (WebAssembly, docs/web.md)
                                 starts none: the calling thread evaluates all,
                                 cna_crowd_thread_count answers 1 */
} cna_crowd_options;

/* Create a crowd and start its thread_count - 1 worker threads, which wait
 * (blocked, using no CPU) for updates. opts may be NULL (defaults).
 * Errors (nothing is left allocated or running; *out unchanged):
 * CNA_ERROR_INVALID_ARGUMENT for a NULL out or thread_count above
 * CNA_CROWD_MAX_THREADS ("thread_count: 300 is above 256");
 * CNA_ERROR_OUT_OF_MEMORY when an allocation fails or the system refuses a
 * thread ("crowd: could not start worker thread 2 of 3 (error 11)"). */
CNA_API cna_result cna_crowd_create(const cna_crowd_options *opts, cna_crowd **out, cna_error *err);

/* Stop and join the worker threads and free the crowd; NULL is accepted.
 * Must not be called while an update on it runs. */
CNA_API void cna_crowd_free(cna_crowd *crowd);

/* Threads the crowd evaluates with (the calling thread included); 0 for NULL. */
CNA_API uint32_t cna_crowd_thread_count(const cna_crowd *crowd);

/* cna_player_update(players[i], ticks, relative, loop) for every i in
 * 0..count-1, spread over the crowd's threads: chunks of 16 consecutive
 * players, in index order, each taken by the next free thread (the caller
 * included; a thread that starts late takes fewer). 16 players or fewer, or
 * a crowd of one thread, run on the calling thread alone.
 * Every player is checked first, on the calling thread, before any changes;
 * players sharing one SkinningData are checked once per call. No thread
 * creation: the workers are woken once per call. No allocation, but the
 * crowd's duplicate table when count is larger than in every call before
 * (see Memory above): a frame loop allocates in its first call only.
 * Errors (nothing changes — every player keeps its position, clip and
 * outputs): CNA_ERROR_INVALID_ARGUMENT for a NULL crowd, players NULL with
 * count > 0, an entry NULL ("players[3]: NULL"), a player listed twice
 * ("players[7]: the same player as players[2]"), or a player that
 * cna_player_update would refuse (its message prefixed with "players[5]: ");
 * CNA_ERROR_OUT_OF_MEMORY when the duplicate table cannot grow ("crowd:
 * out of memory for checking 5000 players"). */
CNA_API cna_result cna_crowd_update(cna_crowd *crowd, cna_player *const *players, size_t count,
                            int64_t ticks, bool relative, bool loop, cna_error *err);

/* Advance every character by `seconds` (each at its own time scale and loop
 * mode) and pose it: cna_character_update(characters[i], seconds) for every
 * i, spread over the crowd's threads in chunks of 16 as cna_crowd_update
 * does. Characters may belong to different models; each must be used by
 * this call alone while it runs. No allocation, but the duplicate table's
 * growth as in cna_crowd_update (the same table serves both calls).
 * Checked first on the calling thread, before anything changes:
 * CNA_ERROR_INVALID_ARGUMENT for a NULL crowd, characters NULL with count >
 * 0, an entry NULL ("characters[3]: NULL"), a character listed twice
 * ("characters[7]: the same character as characters[2]"), or an advance
 * that is not finite ("characters[5]: advance: 1e+300 s at time scale
 * 1e+300 is not finite"); CNA_ERROR_OUT_OF_MEMORY when the duplicate table
 * cannot grow ("crowd: out of memory for checking 5000 characters"). A
 * pose fails only for a model broken by hand;
 * then the first failure is returned, prefixed with its index, and the
 * other characters are posed. */
CNA_API cna_result cna_crowd_update_characters(cna_crowd *crowd, cna_character *const *characters,
                                       size_t count, double seconds, cna_error *err);

#ifdef __cplusplus
}
#endif
#endif /* CNA_CROWD_H */
