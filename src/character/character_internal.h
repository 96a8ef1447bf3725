/*
 * Private declarations of the character layer (src/character/): the
 * character's state, shared by rig.c (what the characters of a model
 * share, built when it loads), character.c (creation from the rig, the
 * single-layer pose, outputs), layers.c (the layer API, advancing), blend.c (the
 * blended pose) and crowd.c. Not installed.
 */
#ifndef CNA_CHARACTER_INTERNAL_H
#define CNA_CHARACTER_INTERNAL_H

#include "anim/anim_internal.h"
#include "character/clock.h"
#include "cna/blend_space.h"
#include "cna/character.h"
#include "cna/morph.h"

/* A blend space (include/cna/blend_space.h), immutable once made. */
struct cna_blend_space {
    cna_allocator allocator;    /* the model's: everything the space owns */
    const cna_model *model;     /* the model it was made for */
    unsigned dimensions;        /* 1 or 2 */
    size_t count;
    cna_blend_sample *samples;  /* count, in the caller's order */
    int64_t *durations;         /* count: each sample's animation's duration in ticks */
    size_t *order;              /* 1D: the samples by increasing x */
    int32_t (*triangles)[3];    /* 2D: counter-clockwise corners (sample indices) */
    size_t triangle_count;
    int32_t (*hull)[2];         /* 2D: the edges of the convex hull */
    size_t hull_count;
    /* sync markers (cna_blend_space_create_synced): k points per cycle, 0
     * for a normalised phase */
    size_t sync_count;
    char **sync_names;          /* k: the points' marker names, sample 0's in time order */
    int64_t *sync_at;           /* count·k: sample i's time of point j */
    int64_t *sync_off;          /* count·(k + 1): ticks from sample i's point 0 to its point j
                                   (its duration for j = k) */
};

/* The most samples of a blend space with weight > 0 at once (2 in 1D, 3 in 2D). */
#define CNA__BLEND_ACTIVE_MAX 3

/* A sample of a layer's blend space with weight > 0 now. */
typedef struct cna__blend_active {
    size_t sample;              /* index in the space */
    long animation;
    float weight;               /* the sample's weight (as float) */
    double exact;               /* the sample's weight */
    cna__clock clock;           /* its clip's clock: duration D_i, REPEAT, floor(phase·D_i) */
    size_t slot;                /* its sampling state: the layer's space_tracks/space_windows slot */
} cna__blend_active;

/* The state of a layer that plays a blend space (blend_space.c), in one
 * block with its weights and sampling states; kept for the next space. */
typedef struct cna__layer_space {
    double x, y;                /* the parameters */
    double phase;               /* in [0, 1) */
    double duration;            /* D = sum of w_i·D_i over the active samples */
    cna__blend_active active[CNA__BLEND_ACTIVE_MAX]; /* in sample order */
    size_t active_count;
    double *weights;            /* capacity: one per sample */
    size_t capacity;
    size_t slots;               /* sampling states kept: each cursor_count track states
                                   and eval_count + 1 arcs windows */
    cna__track_state *tracks;
    cna__arcs_window *windows;
} cna__layer_space;

/* One animation layer. */
typedef struct cna__layer {
    cna__clock clock;
    long animation;             /* -1: none */
    float weight;               /* now, in [0, 1] */
    /* a fade: weight = from + (to - from) * elapsed / total while total > 0 */
    float fade_from, fade_to;
    int64_t fade_elapsed, fade_total;
    cna_blend_mode mode;        /* OVERRIDE or ADDITIVE */
    bool keep_running;          /* a fade to 0 does not stop the layer */
    unsigned sync_group;        /* 0: none; else the layers of this group share one phase */
    float *mask;                /* bone_count weights, or NULL */
    float *mask_store;          /* the mask's storage (kept when the mask is removed), in
                                   the block of masked_clips */
    /* what a masked layer samples: per space (an evaluation, then the
     * scene-node clip) its clip with the bone of every track whose mask
     * weight is 0 set to -1, so that the sampling skips it (tracks at
     * cursor_first[space], cna__blend); made for masked_for (-2: to be made
     * again); NULL until a mask is set */
    cna_clip *masked_clips;     /* eval_count + 1, the block's start */
    cna_bone_track *masked_tracks; /* cursor_count */
    long masked_for;
    /* additive reference: animation (-1: the layer's own) at ref_seconds */
    long ref_animation;
    double ref_seconds;
    cna_keyframe *ref;          /* per slot (cna__blend), NULL until additive */
    uint8_t *ref_has;           /* per slot: the reference animates it */
    /* root motion */
    cna_root_motion_mode motion_mode;
    int32_t motion_bone;        /* bone */
    const cna_bone_track *motion_track; /* the bone's track in the animation, or NULL */
    cna_keyframe motion_start;  /* the track at 0 */
    cna_root_motion motion;     /* of the last advance */
    /* sampling state: tracks[cursor_first[e] + track] per evaluation, then
     * the scene-node clip's tracks; one arcs window per evaluation, then the
     * scene-node clip's */
    cna__track_state *tracks;   /* in cna__blend.states_block */
    cna__arcs_window *windows;
    /* a blend space (include/cna/blend_space.h): NULL while the layer plays
     * `animation` alone; then `animation` is its sample of largest weight */
    const cna_blend_space *space;
    struct cna__layer_space *bs; /* its state: NULL until the layer first plays one */
} cna__layer;

/* Slots (see cna__blend) a blended pose keeps in the posing thread's
 * scratch (src/character/blend.c): a character with more has its own. */
#define CNA__BLEND_SCRATCH_SLOTS 256

/* The blending state: made by the first blend set-up (ready). A pose
 * accumulates one value per slot: the scene-node values by bone, an
 * evaluation's joints by palette index. Its per-frame buffers (accumulated
 * values and weights, touched slots, one layer's samples) are the posing
 * thread's scratch when slot_count <= CNA__BLEND_SCRATCH_SLOTS (acc, sample,
 * cum, touched and has are NULL then), else the character's own. */
typedef struct cna__blend {
    bool ready;                 /* cna__blend_ensure succeeded */
    size_t slot_count;          /* max(bone_count, largest joint count) */
    cna_keyframe *acc;          /* slot_count: the accumulated values */
    float *cum;                 /* accumulated weight, 0: untouched */
    cna_keyframe *sample;       /* slot_count: one layer's samples */
    uint8_t *has;               /* slot_count: the layer sampled the slot */
    int path;                   /* the player kernels' path (cna__player_default_path) */
    int32_t *touched;           /* slots with cum > 0, in the order first touched */
    size_t *cursor_first;       /* eval_count + 1: first cursor of each evaluation; the
                                   last entry is the scene-node clip's */
    size_t cursor_count;        /* per layer */
    float *weights, *weights2;  /* the largest morph target count */
    void *states_block;         /* the layers' arcs windows and track states */
    size_t *ref_first;          /* eval_count + 1: first reference slot of each
                                   evaluation (joints), the last: the bones'
                                   (in cursor_first's block) */
    size_t ref_count;           /* reference slots per additive layer */
    /* the transition snapshot (cna_character_crossfade interrupting a
     * transition): the override result (before additive layers) shown at
     * the interruption, mixed into every later override result by
     * snap_weight (per bone: where snap_bone is 1), which fades to 0 over
     * snap_total advance ticks. Allocated with the blending state. */
    cna_keyframe *snap;         /* ref_count, laid out as the additive references */
    cna_quat *snap_prev;        /* ref_count: each rotation mixed last pose, its sign kept */
    uint8_t *snap_has;          /* ref_count: the value has a snapshot */
    uint8_t *snap_bone;         /* bone_count (at least 1): 1 where the snapshot applies */
    float *snap_weights;        /* the morphed parts' weights, at snap_wfirst[flat part] */
    size_t *snap_wfirst;        /* flat part count + 1 */
    float snap_weight;          /* now; 0: no snapshot */
    int64_t snap_elapsed, snap_total;
} cna__blend;

typedef struct variant {
    size_t eval;            /* its evaluation */
    int32_t skin;           /* representative model skin (its data, maps, mesh node) */
    bool own;               /* the evaluation's player output is this palette */
    bool moving;            /* prefix re-evaluated at every pose */
    cna_mat4 *prefix;       /* joint_count: the current prefixes when moving, else NULL */
    cna_mat4 *world;        /* joint_count each when !own, else NULL */
    cna_mat4 *skin_m;
} variant;

/* A joint of an evaluation that is in the scene: where the pose finds its
 * local transform (the player's, or inverse(fold) · the player's, written
 * into local[bone] after each update). */
typedef struct joint_write {
    int32_t palette;        /* the joint */
    int32_t bone;           /* its bone */
    int32_t unfold;         /* index into unfold matrices, -1 when fold[p] = I */
    int32_t chain_first;    /* a moving fold: its bones in chain[chain_first ..), c1 first */
    int32_t chain_count;    /* 0: the fold is fold[p], unmoving */
} joint_write;

typedef struct evaluation {
    int32_t skin;           /* representative model skin */
    joint_write *writes;    /* the joints in the scene, palette order */
    size_t write_count;
    cna_mat4 *unfold;       /* inverse(fold[p]) of the joints whose fold is not I or moves
                             * (a moving one recomputed at every pose) */
    size_t unfold_count;
    int32_t *chain;         /* the bones of the moving folds (joint_write.chain_first) */
    cna_player *player;
    size_t own_variant;     /* the variant the player composes (SIZE_MAX: none) */
    bool own_moving;        /* that variant's prefix moves: handed to the player */
    bool self_dependent;    /* its moving prefixes depend on its own joints */
} evaluation;

/* A bone whose absolute transform is computed at every pose. */
typedef struct bone_link {
    int32_t bone, parent;
    int32_t slot;           /* its absolute_slot */
} bone_link;

/* A part of the model: mesh and part index. */
typedef struct part_ref {
    size_t mesh, part;
} part_ref;

/* One part's state: morph (instance NULL without morph targets) and, for a
 * split part (palette_map), its gathered sub-palette. */
typedef struct morph_part {
    cna_morph_instance *instance;
    uint64_t revision;
    cna_mat4 *palette;          /* palette_map_count matrices, NULL when not split */
} morph_part;

/* The rig: what cna_character_create derives from a model (the grouping of
 * skins into evaluations and palettes, their order, the bone slots, which
 * absolutes alias a player's worlds, the moving and reset bones, the morphed
 * and split parts), built once per model from a first character made the
 * long way, then shared read-only by every character of the model. One
 * allocation. */
typedef struct cna__rig {
    /* the model fields it was built from: a character of a model struct
     * whose fields differ builds a rig of its own */
    const cna_model_bone *bones;
    size_t bone_count;
    const cna_model_skin *skins;
    size_t skin_count;
    const cna_clip *node_clips;
    size_t animation_count;
    const cna_model_mesh *meshes;
    size_t mesh_count;
    size_t bytes;               /* the allocation's size */
    /* evaluations in order: player NULL; writes, chain and the initial unfold
     * matrices in the rig (each character copies the unfolds) */
    evaluation *evals;
    size_t eval_count;
    size_t *track_capacity;     /* per evaluation: the most tracks of its clips */
    variant *variants;          /* prefix, world, skin_m NULL */
    size_t variant_count;
    size_t *skin_variant;       /* per model skin */
    int32_t *local_slot;        /* bone_count */
    size_t local_count;
    int32_t *absolute_slot;     /* bone_count, compacted */
    cna_mat4 *absolute;         /* absolute_count: the absolutes at rest */
    size_t absolute_count;
    bone_link *dynamic;
    size_t dynamic_count;
    int32_t *reset;
    size_t reset_count;
    size_t node_tracks;         /* the most tracks of a scene-node clip */
    size_t *part_first;         /* mesh_count + 1 */
    part_ref *morphed;
    size_t morphed_count;
    part_ref *split;
    size_t split_count;
    size_t scratch_count;       /* the most morph targets of a part */
} cna__rig;

struct cna_character {
    cna_allocator alloc;
    const cna_model *model;
    struct cna_model_owner *owner; /* the model's live count, held from creation to free (cna__model_retain) */
    size_t bytes;               /* everything requested, players and morph state included */
    /* layers: layer 0's clock is the character's (cna_character_play etc.) */
    cna__layer *layers;
    size_t layer_count;
    cna__blend blend;           /* blending state (src/character/blend.c) */
    cna_event_fn listener;
    void *listener_user;
    bool in_listener;           /* an advance is reporting events: only reading calls allowed */
    cna_root_motion motion;     /* of the last advance */
    bool fast;                  /* CNA_SAMPLING_FAST (cna_character_options.sampling) */
    /* skins */
    evaluation *evals;          /* in evaluation order */
    size_t eval_count;
    variant *variants;
    size_t variant_count;
    size_t *skin_variant;       /* per model skin */
    /* bones */
    cna_mat4 *local;            /* the bones with a local of their own (local_slot) */
    int32_t *local_slot;        /* bone_count: index into local, -1 for a bone that reads
                                   its rest transform from the model or its player's */
    cna_mat4 *applied;          /* bone_count, made by the first apply_clip_to_bones: a bone's
                                   absolute when it has no absolute_slot, else its local when
                                   the clip set it */
    cna_mat4 *absolute;         /* the bones with an absolute of their own (absolute_slot) */
    int32_t *absolute_slot;     /* bone_count: index into absolute, -1 for a joint whose
                                   absolute is its player's world (decided at creation) */
    const cna_mat4 **local_of;  /* bone_count: where each bone's local transform is (its
                                   player's local for a joint, else local[b]) */
    const cna_mat4 **absolute_of; /* bone_count: where each bone's absolute transform is (its
                                   player's world for a joint whose world is its absolute,
                                   else its absolute slot) */
    bone_link *dynamic;         /* the bones whose absolute can change and this pass computes
                                   (not a player), in index order */
    size_t dynamic_count;
    int32_t *reset;             /* moving bones no skeleton poses: back to rest at every pose */
    size_t reset_count;
    part_ref *morphed;          /* the morphed parts */
    size_t morphed_count;
    part_ref *split;            /* the split parts (cna_model_part.palette_map) */
    size_t split_count;
    bool locals_dirty;          /* a static bone's local was changed: reset and recompute all */
    size_t *node_cursor;        /* per track of the scene-node clip playing */
    /* morph */
    size_t *part_first;         /* mesh_count + 1 */
    morph_part *parts;          /* per flat part (instance NULL without morph) */
    float *scratch;             /* the largest target count */
    /* pose edit (src/character/edit.c): made by the first edit or
     * cna_character_set_pose_edit; NULL until then */
    uint8_t *edit_affected;     /* bone_count: bones whose transforms the next refresh recomputes */
    size_t edit_first;          /* the lowest bone marked (bone_count: none) */
    cna_pose_edit_fn editor;    /* run at the end of every pose, or NULL */
    void *editor_user;
    /* Made from a rig (every character but the one a rig is built from):
     * skin_variant, local_slot, absolute_slot, dynamic, reset, part_first,
     * morphed, split and each evaluation's writes and chain point into the
     * rig (read only); evals, variants and the bone, morph and scratch arrays
     * lie in `block`, one allocation. `own_rig`: a rig made for this
     * character alone (a model without the library's bookkeeping), freed
     * with it. */
    const cna__rig *rig;
    void *block;
    cna__rig *own_rig;
};


/* CNA_ERROR_INVALID_ARGUMENT when called from the character's event
 * listener (a call that would change the character), else CNA_OK. */
cna_result cna__character_busy(const cna_character *character, cna_error *err);

/* The checks of cna_character_advance(seconds), without advancing. */
cna_result cna__character_check_advance(const cna_character *character, double seconds, cna_error *err);

/* For the crowd's lanes: the player whose update is the character's whole
 * skeletal pose (one layer, one evaluation, no moving prefix),
 * with the position cna_character_pose advances it to; NULL when
 * the character is not posed that way. After the crowd has advanced that
 * player to *position (absolute, not looping), cna__character_pose_after_lanes
 * finishes the pose: the same results as cna_character_pose. */
struct cna_player *cna__character_lane_player(cna_character *character, int64_t *position);
cna_result cna__character_pose_after_lanes(cna_character *character, cna_error *err);

/* The character's own local transform of `bone`: only for a bone with a
 * local of its own (local_slot >= 0: animated by a scene-node clip, or a
 * joint whose bind pose folds nodes in). */
cna_mat4 *cna__character_local(cna_character *c, int32_t bone);

/* Allocate zeroed memory owned by the character, counted in its size. */
void *cna__character_take(cna_character *c, size_t count, size_t size);

/* ---- edit.c: the pose-edit stage (joints' locals written after a pose,
 * their subtrees' absolutes and palettes recomputed) */
void cna__edit_free(cna_character *c);

/* ---- layers.c */
/* Allocate the blending state (accumulators, the layers' own track states)
 * the first time a character needs it: a character that never blends never
 * pays for it. CNA_ERROR_OUT_OF_MEMORY leaves everything as it was. */
cna_result cna__blend_ensure(cna_character *c, cna_error *err);
void cna__motion_identity(cna_root_motion *motion);
/* Create the layers and the blending state (after the evaluations exist). */
cna_result cna__layers_create(cna_character *c, size_t layer_count);
void cna__layers_free(cna_character *c);
/* Advance every layer by its scaled ticks (ticks_of(layer)) and the fades
 * by `fade_ticks`: events, root motion. */
void cna__layers_advance(cna_character *c, double seconds, bool scaled, int64_t ticks);
/* true when the pose is layer 0's alone (weight 1, override, no mask, no
 * root motion, no other layer contributing): the players pose it. */
bool cna__layers_single(const cna_character *c);
/* Layer `layer`'s own track states for `space` (an evaluation, or
 * eval_count: the scene-node clip); layer 0 has them only for the
 * scene-node clip (its skeletons use their players' state). */
cna__track_state *cna__layer_states(cna_character *c, size_t layer, size_t space);
/* The layer is checked and its clock reset for `animation` (shared by play). */
cna_result cna__layer_play(cna_character *c, size_t layer, long animation, cna_error *err);

/* ---- blend_space.c: a layer that plays a blend space */
/* Move the layer's phase by `ticks` and its samples' clocks with it,
 * reporting their markers and the phase's wraps to the listener. */
void cna__space_advance(cna_character *c, size_t layer, int64_t ticks);
/* Set the layer's phase from a seek to `ticks` (folded into [0, 1)). */
void cna__space_seek(cna_character *c, size_t layer, int64_t ticks);

/* ---- blend.c */
/* Steps 2 (scene-node clips) and 3 (an evaluation's joints, composed and
 * handed to its player) of a blended pose. */
void cna__blend_nodes(cna_character *c);
void cna__blend_evaluation(cna_character *c, size_t e);
/* Bytes of the posing thread's scratch (the thread-local block of blend.c). */
size_t cna__blend_thread_scratch_bytes(void);
cna_result cna__blend_weights(cna_character *c, size_t mesh, size_t part, float *out, cna_error *err);
/* Sample layer `layer`'s additive reference (when it needs one). */
void cna__blend_sample_reference(cna_character *c, size_t layer);
/* The snapshot of an interrupting crossfade, in two stages: stage 0 stores
 * the override result of every space and the morph weights at the layers'
 * positions now (the snapshot in progress mixed in: the pose shown); after
 * the layers changed, stage 1 takes the sign each rotation of the pose they
 * give starts from. */
void cna__blend_capture(cna_character *c, int stage);
/* out[k] = cna_quat_slerp(a[k], b[k], t[k]) for k < n, bit for bit, made
 * as a blended pose makes its slerps (sixteen lanes at a time) on player path
 * `path`, which must be supported (cna__player_path_supported). For tests. */
void cna__blend_slerp(int path, const cna_quat *a, const cna_quat *b, const float *t, cna_quat *out, size_t n);

/* ---- rig.c: the model's rig */
/* The rig for a character of `model`: the one built when the model was
 * loaded, else (a model struct filled or changed by hand, or one whose rig
 * could not be built) one for this character alone (*own, allocated from
 * `al`). Errors: those of cna_character_create (a skin the player refuses,
 * an invalid morph carrier, out of memory). */
cna_result cna__rig_of(const cna_model *model, const cna_allocator *al, const cna__rig **out, cna__rig **own,
                      cna_error *err);

/* Carving one allocation (aligned for any type, as malloc's) into arrays
 * on 16-byte boundaries: a first pass with base NULL measures (pointers
 * NULL), a second hands out the pieces. */
typedef struct cna__carver {
    char *base;
    size_t at;
} cna__carver;

static inline void *cna__carve(cna__carver *k, size_t count, size_t size)
{
    k->at = (k->at + 15) & ~(size_t)15;
    void *p = k->base ? k->base + k->at : NULL;
    k->at += count * size;
    return p;
}

/* ---- character.c, for rig.c */
/* The absolute of every bone with a slot of its own, in index order. */
void cna__character_absolutes_own(cna_character *c);
/* Where each bone's local is (its player's, its own, or the model's rest). */
void cna__character_bind_locals(cna_character *c);
/* Where each bone's absolute is (its slot, or its player's world). */
void cna__character_bind_absolutes(cna_character *c);

#endif
