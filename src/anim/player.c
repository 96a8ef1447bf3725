/*
 * The AnimationPlayer (include/cna/player.h; spec: "AnimationPlayer, precisely").
 *
 * Every formula below is in our convention (column vectors, spec `A * B` ==
 * ours `B · A`); the spec's row-vector form is given beside it.
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#define CGLM_ALL_UNALIGNED 1
#include <cglm/cglm.h>

#include "anim/anim_internal.h"
#include "cna/player.h"
#include "core/internal.h"

/* The kernels (sampling, composition, products) of each path: player_kernel.h. */
#include "anim/player_kernel.h"
#include "core/simd.h"

#define CURSOR_LINEAR CNA__CURSOR_LINEAR
#define ARC_NONE CNA__ARC_NONE

/* Per-instance state of one track of the current clip: the key cursor and
 * the slerp constants of the key interval it was last sampled in (computed
 * again only when the cursor moves to another interval: for 60 Hz playback of
 * 24 Hz keys, two frames in three reuse them). 32 bytes; the samples of an
 * update live on the stack, eight at a time. */
typedef cna__track_state track_state;

/* The player lies on whole 64-byte cache lines (its allocation aligned by
 * hand), in three zones, so that a crowd's threads share no line that one of
 * them writes: what every update reads (and only start_clip writes), what
 * the thread updating the player writes every update, and the mark that the
 * crowd's checking thread writes. */
struct cna_player {
    /* read by every update */
    cna_allocator allocator;
    void *block;                   /* this struct's allocation (unaligned) */
    const cna_skinning_data *data; /* borrowed */
    const cna_clip *clip;          /* borrowed; NULL when none */
    const cna_mat4 *prefix;        /* borrowed root prefixes (bone_count), or NULL: the data's */
    int32_t bone_count;            /* fixed at creation: sizes the three arrays */
    int path;                      /* the kernels recompute runs: a cna__player_path */
    bool fast;                     /* CNA_SAMPLING_FAST: rotations by normalised lerp */
    uint8_t matrix_shift;          /* local - its allocation's start, in bytes (0..63) */
    cna_mat4 *local;               /* bone_count each, one allocation, 64-byte aligned */
    cna_mat4 *world;
    cna_mat4 *skin;
    uint8_t *posed;          /* bone_count flags: a track set local[p] this update */
    track_state *tracks;     /* one per track of the current clip */
    size_t cursor_count;     /* tracks the states were set up for */
    size_t cursor_capacity;  /* allocated entries; grows in start_clip only */
    /* written by every update */
    _Alignas(64) int64_t position; /* ticks */
    /* new_arcs' window: while the clip and its tracks with state are the
     * same and arcs_from < position < arcs_until, every track with a cursor
     * is strictly inside the key interval of its cached arc */
    cna__arcs_window arcs;
};

/* The first 64-byte boundary at or after p (p from an allocation 63 bytes
 * larger than needed). */
static void *align64(void *p)
{
    return (void *)(((uintptr_t)p + 63u) & ~(uintptr_t)63u);
}

/* ------------------------------------------------------------------ position */

/* floor-mod: the r in [0, d) with a = q·d + r (d > 0). */
static int64_t floor_mod(int64_t a, int64_t d)
{
    int64_t r = a % d;
    return r < 0 ? r + d : r;
}

/* a + b, saturated to the int64_t range. */
static int64_t add_saturated(int64_t a, int64_t b)
{
    if (b > 0 && a > INT64_MAX - b) return INT64_MAX;
    if (b < 0 && a < INT64_MIN - b) return INT64_MIN;
    return a + b;
}

/* The position after Update(ticks, relative, loop), exactly, for any int64_t
 * inputs (no overflow):
 *   no clip, or duration <= 0: 0;
 *   loop:    floor-mod(base + ticks, D), computed as
 *            (floor-mod(base, D) + floor-mod(ticks, D)) mod D in unsigned
 *            arithmetic, which equals the floor-mod of the exact sum;
 *   no loop: clamp(base + ticks, 0, D) (a saturated sum clamps the same). */
static int64_t next_position(const cna_player *player, int64_t ticks, bool relative, bool loop)
{
    const int64_t d = player->clip ? player->clip->duration : 0;
    if (d <= 0) return 0;
    const int64_t base = relative ? player->position : 0;
    if (loop) {
        /* the usual step (a position in [0, D) advanced by less than D):
         * both floor-mods are the values themselves, so skip the divisions */
        if (base >= 0 && base < d && ticks >= 0 && ticks < d) {
            const int64_t sum = base + ticks; /* < 2·D: no overflow */
            return sum >= d ? sum - d : sum;
        }
        const uint64_t sum = (uint64_t)floor_mod(base, d) + (uint64_t)floor_mod(ticks, d);
        return (int64_t)(sum >= (uint64_t)d ? sum - (uint64_t)d : sum);
    }
    const int64_t p = add_saturated(base, ticks);
    return p < 0 ? 0 : (p > d ? d : p);
}

/* ------------------------------------------------------------------ recompute */

/* Checks that must pass before anything changes: the skeleton arrays (spec:
 * Recompute's size check and parent order) and the bone count the player was
 * created with (the borrowed data must not have been resized since). */
static cna_result check_data(const cna_player *player, cna_error *err)
{
    const cna_skinning_data *data = player->data;
    if (data->bone_count != player->bone_count)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "bone_count: %ld differs from the %ld bones the player was created with",
                          (long)data->bone_count, (long)player->bone_count);
    return cna__skeleton_check(data, err);
}

/* ------------------------------------------------------------------ kernels */

/* The kernels of each path (NULL: not in this build). */
static const cna__player_kernels *path_kernels(int path)
{
    switch (path) {
    case CNA__PLAYER_PATH_BASE: return &cna__player_kernels_base;
#if CNA__SIMD_AVX2
    case CNA__PLAYER_PATH_AVX: return &cna__player_kernels_avx2;
#endif
    default: return NULL;
    }
}

void cna__track_states_start(const cna_clip *clip, cna__track_state *states, size_t count, cna__arcs_window *win)
{
    for (size_t i = 0; i < count; ++i) {
        const cna_bone_track *track = clip && clip->tracks && i < clip->track_count ? &clip->tracks[i] : NULL;
        const bool sorted = !track || (track->keys && cna__track_is_sorted(track));
        states[i].cursor = sorted ? 0 : CURSOR_LINEAR;
        states[i].arc_key = ARC_NONE;
    }
    win->clip = NULL;
}

void cna__sample_trs(int path, bool fast, const cna_clip *clip, int64_t t, int32_t bone_count,
                     cna__track_state *states, size_t state_count, cna__arcs_window *win, cna_keyframe *out,
                     uint8_t *posed)
{
    path_kernels(path)->sample_trs(fast, clip, t, bone_count, states, state_count, win, out, posed);
}

void cna__compose_keys(int path, cna_mat4 *const *out, const cna_keyframe *const *in, size_t count)
{
    path_kernels(path)->compose_keys(out, in, count);
}

void cna__arc_trig8_path(int path, const float d[8], cna__arc *const out[8], size_t count)
{
    path_kernels(path)->arc_trig8(d, out, count);
}

void cna__arc_weights8_path(int path, const cna__arc *const arc[8], const float t[8], float wa[8],
                            float wb[8], bool weighed[8], size_t count)
{
    path_kernels(path)->arc_weights8(arc, t, wa, wb, weighed, count);
}

/* The root prefixes an update composes with: the ones handed to
 * cna_player_set_root_prefix, else the data's when root_prefix_count ==
 * bone_count, else none. */
static const cna_mat4 *root_prefix(const cna_player *player, const cna_skinning_data *data)
{
    if (player->prefix) return player->prefix;
    return data->root_prefix_count == (size_t)player->bone_count ? data->root_prefix : NULL;
}

/* The track states an update samples with. */
static size_t update_states(const cna_player *player)
{
    const cna_clip *clip = player->clip;
    return clip && clip->track_count < player->cursor_count ? clip->track_count : player->cursor_count;
}

/* An update's sampling job (at the player's position) and hierarchy job. */
static cna__pose_job pose_job(cna_player *player)
{
    const cna__pose_job job = {player->clip,  player->position, player->bone_count,
                               update_states(player), player->fast, player->tracks,
                               &player->arcs, player->posed,    player->local};
    return job;
}

static cna__hierarchy_job hierarchy_job(cna_player *player, const cna_skinning_data *data)
{
    const cna__hierarchy_job job = {player->bone_count, data->hierarchy, data->bind_pose,
                                    data->inverse_bind_pose, root_prefix(player, data),
                                    player->posed, player->local, player->world, player->skin};
    return job;
}

/* The hierarchy pass of the player's path (player_kernel.inc). */
static void hierarchy(cna_player *player, const cna_skinning_data *data)
{
    const cna__hierarchy_job job = hierarchy_job(player, data);
    path_kernels(player->path)->hierarchy(&job);
}

/* Whether this build and CPU can run `path`. */
bool cna__player_path_supported(int path)
{
    if (path == CNA__PLAYER_PATH_AVX) return path_kernels(path) != NULL && cna__cpu_has_avx2_fma();
    return path_kernels(path) != NULL;
}

/* The widest supported path. (An AVX-512F path, four columns per
 * instruction, measured no faster than AVX on this project's machines:
 * bench/player_paths.c.) */
int cna__player_default_path(void)
{
    return cna__player_path_supported(CNA__PLAYER_PATH_AVX) ? CNA__PLAYER_PATH_AVX : CNA__PLAYER_PATH_BASE;
}

/* Bind pose for untracked bones, the clip's tracks, then the hierarchy.
 * Requires check_data() to have passed. */
static void recompute(cna_player *player)
{
    const cna_skinning_data *data = player->data;
    const int32_t n = player->bone_count;
    if (n == 0) return;
    memset(player->posed, 0, (size_t)n);
    const cna__pose_job job = pose_job(player);
    path_kernels(player->path)->sample_clip(&job);
    hierarchy(player, data);
}

/* The character's blended pose: it writes the joints' local transforms
 * itself (setting their posed flags), then runs the hierarchy pass. */
cna_mat4 *cna__player_locals(cna_player *player) { return player->local; }
uint8_t *cna__player_posed(cna_player *player) { return player->posed; }

cna_mat4 *cna__player_worlds(cna_player *player) { return player->world; }
cna_mat4 *cna__player_skins(cna_player *player) { return player->skin; }
const cna_mat4 *cna__player_prefix(const cna_player *player) { return root_prefix(player, player->data); }

void cna__player_hierarchy(cna_player *player)
{
    const cna_skinning_data *data = player->data;
    if (player->bone_count == 0) return;
    hierarchy(player, data);
}

bool cna__player_set_path(cna_player *player, int path)
{
    if (!cna__player_path_supported(path)) return false;
    player->path = path;
    return true;
}

int cna__player_path(const cna_player *player) { return player->path; }

cna__track_state *cna__player_sampling(cna_player *player, size_t *count, cna__arcs_window **window)
{
    *count = player->cursor_count;
    *window = &player->arcs;
    return player->tracks;
}

/* ------------------------------------------------------------------ public API */

/* The player of a skeleton that passed the checks, with room for `tracks`
 * track states (cna_player_create, cna__player_create_checked). */
static cna_result create(const cna_skinning_data *data, const cna_allocator *allocator, size_t tracks,
                         cna_player **out, cna_error *err)
{
    const cna_allocator a = cna__allocator_resolve(allocator);
    void *block = cna__calloc(&a, 1, sizeof(cna_player) + 63);
    if (!block)
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "player: out of memory (%zu bytes)",
                          sizeof(cna_player) + 63);
    cna_player *player = (cna_player *)align64(block);
    const size_t n = (size_t)data->bone_count;
    /* one allocation: 3·n matrices, then n flags (n <= CNA_MAX_BONE_COUNT: no
     * overflow), aligned to 64 bytes so that no matrix straddles two lines */
    void *matrix_block = cna__calloc(&a, 1, 3 * n * sizeof(cna_mat4) + n + 63);
    if (!matrix_block) {
        cna__free(&a, block);
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY,
                          "player: out of memory for %zu bones' matrices", n);
    }
    cna_mat4 *matrices = (cna_mat4 *)align64(matrix_block);
    player->allocator = a;
    player->block = block;
    player->matrix_shift = (uint8_t)((uintptr_t)matrices - (uintptr_t)matrix_block);
    player->data = data;
    player->bone_count = data->bone_count;
    player->local = matrices;
    player->world = matrices + n;
    player->skin = matrices + 2 * n;
    player->posed = (uint8_t *)(matrices + 3 * n);
    player->path = cna__player_default_path();
    if (tracks > 0) {
        player->tracks = (track_state *)cna__calloc(&a, tracks, sizeof(track_state));
        if (!player->tracks) {
            cna__free(&a, matrix_block);
            cna__free(&a, block);
            return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "player: out of memory for %zu track cursors", tracks);
        }
        player->cursor_capacity = tracks;
    }
    recompute(player); /* a fresh player already returns the bind-pose palette */
    *out = player;
    return CNA_OK;
}

cna_result cna_player_create(const cna_skinning_data *data, const cna_allocator *allocator,
                             cna_player **out, cna_error *err)
{
    if (!data || !out)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "cna_player_create: %s is NULL",
                          !data ? "data" : "out");
    cna_result r;
    /* Refused before any allocation (the spec sizes its vectors first). */
    if ((r = cna__bone_count_check(data->bone_count, err))) return r;
    if ((r = cna__skeleton_check(data, err))) return r;
    return create(data, allocator, 0, out, err);
}

cna_result cna__player_create_checked(const cna_skinning_data *data, const cna_allocator *allocator,
                                      size_t tracks, cna_player **out, cna_error *err)
{
    return create(data, allocator, tracks, out, err);
}

void cna_player_free(cna_player *player)
{
    if (!player) return;
    const cna_allocator a = player->allocator;
    void *block = player->block;
    cna__free(&a, player->tracks);
    cna__free(&a, (char *)player->local - player->matrix_shift);
    cna__free(&a, block);
}

/* start_clip's work; NULL clip: stop (cna_player_stop). */
static cna_result start(cna_player *player, const cna_clip *clip, cna_error *err)
{
    const char *name = clip && clip->name ? clip->name : "";
    if (clip && clip->target == CNA_CLIP_TARGET_SCENE_NODE)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "clip \"%s\": target scene-node is not a joint-palette clip", name);
    if (clip && clip->target != CNA_CLIP_TARGET_DEFAULT &&
        clip->target != CNA_CLIP_TARGET_JOINT_PALETTE)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "clip \"%s\": target %d is not a cna_clip_target", name, (int)clip->target);
    if (clip && !clip->tracks && clip->track_count > 0)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "clip \"%s\": tracks NULL with track_count %zu", name, clip->track_count);
    const size_t tracks = clip ? clip->track_count : 0;
    if (tracks > player->cursor_capacity) {
        track_state *grown =
            (track_state *)cna__calloc(&player->allocator, tracks, sizeof(track_state));
        if (!grown)
            return cna__error(err, CNA_ERROR_OUT_OF_MEMORY,
                              "clip \"%s\": out of memory for %zu track cursors", name, tracks);
        cna__free(&player->allocator, player->tracks);
        player->tracks = grown;
        player->cursor_capacity = tracks;
    }
    for (size_t i = 0; i < tracks; ++i) {
        const cna_bone_track *track = &clip->tracks[i];
        const bool sorted = track->keys && cna__track_is_sorted(track);
        player->tracks[i].cursor = sorted ? 0 : CURSOR_LINEAR;
        player->tracks[i].arc_key = ARC_NONE;
    }
    player->cursor_count = tracks;
    player->arcs.clip = NULL; /* new_arcs' window closed */
    player->clip = clip;
    player->position = 0;
    return CNA_OK;
}

cna_result cna_player_start_clip(cna_player *player, const cna_clip *clip, cna_error *err)
{
    if (!player)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "cna_player_start_clip: player is NULL");
    /* Never the bind pose by accident: a NULL is most often a name that
     * cna_skinning_data_find_clip did not find. */
    if (!clip)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "cna_player_start_clip: clip is NULL (cna_skinning_data_find_clip returns NULL for a name "
                          "no clip has); to show the bind pose, call cna_player_stop");
    return start(player, clip, err);
}

cna_result cna_player_stop(cna_player *player, cna_error *err)
{
    if (!player) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "cna_player_stop: player is NULL");
    return start(player, NULL, err); /* no clip: allocates nothing, cannot fail */
}

cna_result cna_player_update(cna_player *player, int64_t ticks, bool relative, bool loop,
                             cna_error *err)
{
    if (!player)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "cna_player_update: player is NULL");
    cna_result r = check_data(player, err);
    if (r) return r; /* nothing changed: position, clip and outputs as before */
    player->position = next_position(player, ticks, relative, loop);
    recompute(player);
    return CNA_OK;
}

cna_result cna__player_check(const cna_player *player, cna_error *err)
{
    return check_data(player, err);
}

void cna__player_advance(cna_player *player, int64_t ticks, bool relative, bool loop)
{
    player->position = next_position(player, ticks, relative, loop);
    recompute(player);
}

/* Whether b can share a's lanes: the same skeleton, clip, kernels,
 * sampling mode, root prefixes and track states (the skeleton's size is
 * checked apart: at most CNA__LANES_MAX_BONES joints). */
static bool same_lanes(const cna_player *a, const cna_player *b)
{
    return a->data == b->data && a->clip == b->clip && a->bone_count == b->bone_count &&
           a->path == b->path && a->fast == b->fast &&
           root_prefix(a, a->data) == root_prefix(b, b->data) && update_states(a) == update_states(b);
}

/* Players looked at together when forming lanes: a window of the list. */
enum { LANES_WINDOW = 16 };

/* players[g[0..lanes-1]] (same_lanes) advanced and posed in lanes. */
static void pose_group(cna_player *const *players, const size_t *g, size_t lanes, const int64_t *each,
                       int64_t ticks, bool relative, bool loop)
{
    cna__pose_job pose[8];
    cna__hierarchy_job tree[8];
    cna__lanes_job job;
    job.lanes = lanes;
    for (size_t k = 0; k < lanes; ++k) {
        cna_player *p = players[g[k]];
        p->position = next_position(p, each ? each[g[k]] : ticks, relative, loop);
        memset(p->posed, 0, (size_t)p->bone_count);
        pose[k] = pose_job(p);
        tree[k] = hierarchy_job(p, p->data);
        job.pose[k] = &pose[k];
        job.tree[k] = &tree[k];
    }
    path_kernels(players[g[0]]->path)->pose_lanes(&job);
}

/* cna__player_advance for players[0..count-1] (each listed once, each
 * having passed cna__player_check), each by each[i] (each NULL: ticks).
 * Within each window of LANES_WINDOW consecutive players, the first player
 * not yet posed takes up to seven later ones that same_lanes() allows,
 * and they are posed together in the lanes of the vector kernels
 * (pose_lanes); a player with none goes alone. The same results as one at
 * a time, in any order (players are independent). Returns how many
 * players were posed in lanes. */
size_t cna__players_advance_each(cna_player *const *players, size_t count, const int64_t *each,
                                 int64_t ticks, bool relative, bool loop)
{
    size_t in_lanes = 0;
    for (size_t w = 0; w < count; w += LANES_WINDOW) {
        const size_t end = count - w < LANES_WINDOW ? count : w + LANES_WINDOW;
        bool done[LANES_WINDOW] = {false};
        for (size_t i = w; i < end; ++i) {
            if (done[i - w]) continue;
            cna_player *first = players[i];
            size_t g[8] = {i}, lanes = 1;
            const bool fits = first->bone_count > 0 && first->bone_count <= CNA__LANES_MAX_BONES;
            for (size_t j = i + 1; fits && lanes < 8 && j < end; ++j)
                if (!done[j - w] && same_lanes(first, players[j])) {
                    done[j - w] = true;
                    g[lanes++] = j;
                }
            if (lanes == 1) {
                cna__player_advance(first, each ? each[i] : ticks, relative, loop);
                continue;
            }
            pose_group(players, g, lanes, each, ticks, relative, loop);
            in_lanes += lanes;
        }
    }
    return in_lanes;
}

size_t cna__players_advance(cna_player *const *players, size_t count, int64_t ticks, bool relative,
                            bool loop)
{
    return cna__players_advance_each(players, count, NULL, ticks, relative, loop);
}

cna_result cna_player_update_seconds(cna_player *player, double seconds, bool relative, bool loop,
                                     cna_error *err)
{
    return cna_player_update(player, cna_ticks_from_seconds(seconds), relative, loop, err);
}

cna_result cna_player_set_sampling(cna_player *player, cna_sampling sampling, cna_error *err)
{
    if (!player) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "cna_player_set_sampling: player is NULL");
    if ((int)sampling < 0 || sampling >= CNA_SAMPLING_COUNT)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "sampling: %d is not a cna_sampling", (int)sampling);
    player->fast = sampling == CNA_SAMPLING_FAST;
    player->arcs.clip = NULL; /* the arcs are made again when it goes back to exact */
    for (size_t i = 0; i < player->cursor_count; ++i) player->tracks[i].arc_key = ARC_NONE;
    return CNA_OK;
}

cna_sampling cna_player_sampling(const cna_player *player)
{
    return player && player->fast ? CNA_SAMPLING_FAST : CNA_SAMPLING_EXACT;
}

cna_result cna_player_set_root_prefix(cna_player *player, const cna_mat4 *prefix, size_t count,
                                      cna_error *err)
{
    if (!player)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "cna_player_set_root_prefix: player is NULL");
    if (prefix && count != (size_t)player->bone_count)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "root prefix: %zu matrices for a player of %ld bones", count,
                          (long)player->bone_count);
    player->prefix = player->bone_count > 0 ? prefix : NULL;
    return CNA_OK;
}

const cna_mat4 *cna_player_root_prefix(const cna_player *player)
{
    return player ? root_prefix(player, player->data) : NULL;
}

size_t cna__player_size_bytes(const cna_player *player)
{
    const size_t n = (size_t)player->bone_count;
    return sizeof(cna_player) + 63 + 3 * n * sizeof(cna_mat4) + n + 63 +
           player->cursor_capacity * sizeof(track_state);
}

int64_t cna_player_position(const cna_player *player) { return player ? player->position : 0; }

const cna_clip *cna_player_current_clip(const cna_player *player)
{
    return player ? player->clip : NULL;
}

const cna_skinning_data *cna_player_skinning_data(const cna_player *player)
{
    return player ? player->data : NULL;
}

int32_t cna_player_bone_count(const cna_player *player) { return player ? player->bone_count : 0; }

const cna_mat4 *cna_player_bone_transforms(const cna_player *player)
{
    return player ? player->local : NULL;
}

const cna_mat4 *cna_player_world_transforms(const cna_player *player)
{
    return player ? player->world : NULL;
}

const cna_mat4 *cna_player_skin_transforms(const cna_player *player)
{
    return player ? player->skin : NULL;
}
