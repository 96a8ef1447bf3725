/*
 * The model's rig (cna__rig, src/character/character_internal.h): what every
 * character of a model shares, worked out once when the model is loaded.
 * It is read off a character made the long way, as characters were made
 * before there was a rig: the model's skins grouped into evaluations (one
 * player) and palette variants (one palette), their order, the bones with a
 * local or an absolute of their own, the joints whose absolute is their
 * player's world, the bones that move and those reset to rest, the morphed
 * and split parts. cna_character_create (character.c) then makes a
 * character from the rig in one block.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "anim/anim_internal.h"
#include "character/character_internal.h"
#include "cna/character.h"
#include "cna/morph.h"
#include "core/internal.h"
#include "model/model_internal.h"

static cna_result oom(cna_character *c, cna_error *err)
{
    cna_character_free(c);
    return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "character: out of memory");
}

/* ------------------------------------------------------------------ allocation */

/* The first `used` of the `had` entries of `p` (from take) in an allocation
 * of their own size, `p` freed; NULL (p kept) when out of memory. */
static void *fit(cna_character *c, void *p, size_t used, size_t had, size_t size)
{
    if (used == had) return p;
    void *q = cna__character_take(c, used, size);
    if (!q) return NULL;
    memcpy(q, p, used * size);
    cna__free(&c->alloc, p);
    c->bytes -= (had ? had : 1) * size;
    return q;
}

/* ------------------------------------------------------------------ grouping */

static bool same_matrices(const cna_mat4 *a, const cna_mat4 *b, size_t n)
{
    return (a == b) || (a && b && memcmp(a, b, n * sizeof(cna_mat4)) == 0);
}

static bool same_ints(const int32_t *a, const int32_t *b, size_t n)
{
    return (a == b) || (a && b && memcmp(a, b, n * sizeof(int32_t)) == 0);
}

static bool same_track(const cna_bone_track *a, const cna_bone_track *b)
{
    if (a->bone != b->bone || a->key_count != b->key_count) return false;
    if (a->keys == b->keys || a->key_count == 0) return true;
    return a->keys && b->keys && memcmp(a->keys, b->keys, a->key_count * sizeof(cna_keyframe)) == 0;
}

static bool same_clips(const cna_skinning_data *a, const cna_skinning_data *b)
{
    if (a->clip_count != b->clip_count) return false;
    if (a->clips == b->clips) return true;
    for (size_t i = 0; i < a->clip_count; i++) {
        const cna_clip *x = &a->clips[i], *y = &b->clips[i];
        if (x->duration != y->duration || x->track_count != y->track_count || x->target != y->target)
            return false;
        if (x->tracks == y->tracks) continue;
        for (size_t t = 0; t < x->track_count; t++)
            if (!same_track(&x->tracks[t], &y->tracks[t])) return false;
    }
    return true;
}

/* Two model skins sample and compose the same joints (one evaluation). */
static bool same_evaluation(const cna_model_skin *a, const cna_model_skin *b)
{
    const cna_skinning_data *x = &a->data, *y = &b->data;
    const size_t n = a->joint_count;
    /* both skins' arrays have n entries (a skin the player would refuse is
     * its own evaluation, and its player reports the error) */
    const bool sized = (size_t)x->bone_count == n && x->hierarchy_count == n && x->bind_pose_count == n &&
                       x->inverse_bind_pose_count == n && (size_t)y->bone_count == n && y->hierarchy_count == n &&
                       y->bind_pose_count == n && y->inverse_bind_pose_count == n;
    return n == b->joint_count && sized &&
           same_ints(x->hierarchy, y->hierarchy, n) && same_matrices(x->bind_pose, y->bind_pose, n) &&
           same_matrices(x->inverse_bind_pose, y->inverse_bind_pose, n) &&
           same_ints(a->palette_to_node, b->palette_to_node, n) && same_matrices(a->fold, b->fold, n) &&
           same_clips(x, y);
}

static bool same_prefix(const cna_model_skin *a, const cna_model_skin *b)
{
    const cna_skinning_data *x = &a->data, *y = &b->data;
    const bool px = x->root_prefix_count == (size_t)x->bone_count && x->bone_count > 0;
    const bool py = y->root_prefix_count == (size_t)y->bone_count && y->bone_count > 0;
    if (px != py) return false;
    return !px || same_matrices(x->root_prefix, y->root_prefix, a->joint_count);
}

/* ------------------------------------------------------------------ which bones move */

static bool is_ancestor_or_self(const cna_model *m, int32_t ancestor, int32_t bone)
{
    for (int32_t b = bone; b >= 0; b = m->bones[b].parent)
        if (b == ancestor) return true;
    return false;
}

/* animated[b] = 1 when some animation moves bone b: a scene-node track with
 * keys, or a joint track with keys of a skin that has b as a joint. */
static void mark_animated(const cna_model *m, uint8_t *animated)
{
    for (size_t a = 0; m->node_clips && a < m->animation_count; a++) {
        const cna_clip *clip = &m->node_clips[a];
        for (size_t t = 0; clip->tracks && t < clip->track_count; t++) {
            const cna_bone_track *tr = &clip->tracks[t];
            if (tr->key_count > 0 && tr->keys && tr->bone >= 0 && (size_t)tr->bone < m->bone_count)
                animated[tr->bone] = 1;
        }
    }
    for (size_t s = 0; s < m->skin_count; s++) {
        const cna_model_skin *skin = &m->skins[s];
        for (size_t a = 0; skin->data.clips && a < skin->data.clip_count; a++) {
            const cna_clip *clip = &skin->data.clips[a];
            for (size_t t = 0; clip->tracks && t < clip->track_count; t++) {
                const cna_bone_track *tr = &clip->tracks[t];
                if (tr->key_count == 0 || !tr->keys || tr->bone < 0 || (size_t)tr->bone >= skin->joint_count)
                    continue;
                const int32_t b = skin->palette_to_node ? skin->palette_to_node[tr->bone] : -1;
                if (b >= 0 && (size_t)b < m->bone_count) animated[b] = 1;
            }
        }
    }
}

/* Whether a skin's root prefix moves: an animated bone above a root joint
 * that is not also above the instancing node, or an animated bone at or
 * above the instancing node that is not also above the root joint (a
 * shared animated ancestor moves the mesh node and the joints alike, which
 * the mesh node's absolute transform carries exactly). */
static bool prefix_moves(const cna_model *m, const cna_model_skin *skin, const uint8_t *animated)
{
    const int32_t mesh_node = skin->mesh_node;
    for (size_t r = 0; r < skin->root_count; r++) {
        const int32_t root = skin->palette_to_node ? skin->palette_to_node[skin->roots[r]] : -1;
        if (root < 0) continue;
        for (int32_t b = m->bones[root].parent; b >= 0; b = m->bones[b].parent)
            if (animated[b] && !is_ancestor_or_self(m, b, mesh_node)) return true;
        for (int32_t b = mesh_node; b >= 0; b = m->bones[b].parent)
            if (animated[b] && !is_ancestor_or_self(m, b, root)) return true;
    }
    return false;
}

/* ------------------------------------------------------------------ creation */

static cna_result build_groups(cna_character *c, const uint8_t *animated)
{
    const cna_model *m = c->model;
    const size_t n = m->skin_count;
    c->evals = (evaluation *)cna__character_take(c, n, sizeof(evaluation));
    c->variants = (variant *)cna__character_take(c, n, sizeof(variant));
    c->skin_variant = (size_t *)cna__character_take(c, n, sizeof(size_t));
    if (!c->evals || !c->variants || !c->skin_variant) return CNA_ERROR_OUT_OF_MEMORY;
    size_t evals = 0, variants = 0;
    for (size_t s = 0; s < n; s++) {
        const cna_model_skin *skin = &m->skins[s];
        const bool moving = prefix_moves(m, skin, animated);
        size_t e = 0;
        while (e < evals && !same_evaluation(&m->skins[c->evals[e].skin], skin)) e++;
        if (e == evals) {
            c->evals[evals].skin = (int32_t)s;
            c->evals[evals].own_variant = SIZE_MAX;
            evals++;
        }
        size_t v = 0;
        if (!moving)
            while (v < variants && !(c->variants[v].eval == e && !c->variants[v].moving &&
                                     same_prefix(&m->skins[c->variants[v].skin], skin)))
                v++;
        else
            v = variants;
        if (v == variants) {
            variant *nv = &c->variants[variants++];
            nv->eval = e;
            nv->skin = (int32_t)s;
            nv->moving = moving;
        }
        c->skin_variant[s] = v;
    }
    /* one entry per skin was the most there could be */
    evaluation *fitted_evals = (evaluation *)fit(c, c->evals, evals, n, sizeof(evaluation));
    if (fitted_evals) c->evals = fitted_evals;
    variant *fitted_variants = (variant *)fit(c, c->variants, variants, n, sizeof(variant));
    if (fitted_variants) c->variants = fitted_variants;
    if (!fitted_evals || !fitted_variants) return CNA_ERROR_OUT_OF_MEMORY;
    c->eval_count = evals;
    c->variant_count = variants;
    /* The player of an evaluation composes the variant of its representative skin. */
    for (size_t e = 0; e < evals; e++) {
        const size_t v = c->skin_variant[c->evals[e].skin];
        c->evals[e].own_variant = v;
        c->evals[e].own_moving = c->variants[v].moving;
        c->variants[v].own = true;
    }
    cna_result r = CNA_OK;
    for (size_t v = 0; v < variants && r == CNA_OK; v++) {
        variant *va = &c->variants[v];
        const size_t jc = m->skins[va->skin].joint_count;
        if (va->moving) {
            va->prefix = (cna_mat4 *)cna__character_take(c, jc, sizeof(cna_mat4));
            if (!va->prefix) r = CNA_ERROR_OUT_OF_MEMORY;
            else
                for (size_t p = 0; p < jc; p++) {
                    const cna_skinning_data *d = &m->skins[va->skin].data;
                    if (d->root_prefix && d->root_prefix_count == jc) va->prefix[p] = d->root_prefix[p];
                    else cna_mat4_identity(&va->prefix[p]);
                }
        }
        if (!va->own && r == CNA_OK) {
            va->world = (cna_mat4 *)cna__character_take(c, jc, sizeof(cna_mat4));
            va->skin_m = (cna_mat4 *)cna__character_take(c, jc, sizeof(cna_mat4));
            if (!va->world || !va->skin_m) r = CNA_ERROR_OUT_OF_MEMORY;
        }
    }
    return r;
}

/* The bones a moving variant's prefix reads: ancestors of its root joints
 * and the instancing node with its ancestors. */
static bool variant_reads_bone_of(const cna_model *m, const variant *va, const cna_model_skin *other)
{
    const cna_model_skin *skin = &m->skins[va->skin];
    for (int32_t b = skin->mesh_node; b >= 0; b = m->bones[b].parent)
        if (other->node_to_palette && other->node_to_palette[b] >= 0) return true;
    for (size_t r = 0; r < skin->root_count; r++) {
        const int32_t root = skin->palette_to_node ? skin->palette_to_node[skin->roots[r]] : -1;
        if (root < 0) continue;
        for (int32_t b = m->bones[root].parent; b >= 0; b = m->bones[b].parent)
            if (other->node_to_palette && other->node_to_palette[b] >= 0) return true;
    }
    return false;
}

/* Order the evaluations so that one whose moving prefixes read the joints
 * of another comes after it (a nested skeleton after its parent skeleton).
 * Evaluations in a cycle keep their model order after the others. */
static cna_result order_evaluations(cna_character *c)
{
    const cna_model *m = c->model;
    const size_t n = c->eval_count;
    /* only a moving prefix reads another skeleton's joints: without one, the
     * model order stands (and a model of many skins costs no n·n table) */
    bool any_moving = false;
    for (size_t v = 0; v < c->variant_count && !any_moving; v++) any_moving = c->variants[v].moving;
    if (n == 0 || !any_moving) return CNA_OK;
    /* depends[a * n + b]: evaluation a reads joints of evaluation b */
    uint8_t *depends = (uint8_t *)cna__calloc(&c->alloc, n * n, 1);
    evaluation *sorted = (evaluation *)cna__calloc(&c->alloc, n, sizeof(evaluation));
    size_t *new_index = (size_t *)cna__calloc(&c->alloc, n, sizeof(size_t));
    uint8_t *done = (uint8_t *)cna__calloc(&c->alloc, n, 1);
    if (!depends || !sorted || !new_index || !done) {
        cna__free(&c->alloc, depends);
        cna__free(&c->alloc, sorted);
        cna__free(&c->alloc, new_index);
        cna__free(&c->alloc, done);
        return CNA_ERROR_OUT_OF_MEMORY;
    }
    for (size_t v = 0; v < c->variant_count; v++) {
        const variant *va = &c->variants[v];
        if (!va->moving) continue;
        for (size_t b = 0; b < n; b++)
            if (variant_reads_bone_of(m, va, &m->skins[c->evals[b].skin])) depends[va->eval * n + b] = 1;
    }
    size_t count = 0;
    for (bool progress = true; progress && count < n;) {
        progress = false;
        for (size_t a = 0; a < n; a++) {
            if (done[a]) continue;
            bool ready = true;
            for (size_t b = 0; b < n && ready; b++)
                if (b != a && depends[a * n + b] && !done[b]) ready = false;
            if (!ready) continue;
            done[a] = 1;
            new_index[a] = count;
            sorted[count] = c->evals[a];
            sorted[count].self_dependent = depends[a * n + a] != 0;
            count++;
            progress = true;
        }
    }
    for (size_t a = 0; a < n; a++)
        if (!done[a]) {
            new_index[a] = count;
            sorted[count] = c->evals[a];
            sorted[count].self_dependent = depends[a * n + a] != 0;
            count++;
        }
    memcpy(c->evals, sorted, n * sizeof(evaluation));
    for (size_t v = 0; v < c->variant_count; v++) c->variants[v].eval = new_index[c->variants[v].eval];
    cna__free(&c->alloc, depends);
    cna__free(&c->alloc, sorted);
    cna__free(&c->alloc, new_index);
    cna__free(&c->alloc, done);
    return CNA_OK;
}

/* At creation, with an absolute slot for every bone (absolute_slot[b] = b):
 * which joints read their absolute transform from their player's world. It
 * is the player's world when the two are the same products of the same
 * values, bit for bit:
 *   world[root] = prefix[root] · local[root]  and  absolute[root] =
 *   absolute[parent bone] · local[root], with prefix[root] equal (as bytes) to
 *   the parent bone's absolute, which never moves;
 *   world[p] = world[parent] · local[p]  and  absolute[b] = absolute[parent
 *   bone] · local[b], where the parent bone is the parent joint's, aliased too.
 * A joint of several skeletons follows the last. Then the pose computes no
 * absolute for it, and it needs no slot (compact_absolutes). `moving` marks
 * the bones whose absolute can change. */
static void alias_absolutes(cna_character *c, const uint8_t *moving)
{
    const cna_model *m = c->model;
    for (size_t b = 0; b < m->bone_count; b++) c->absolute_of[b] = &c->absolute[b];
    for (size_t e = 0; e < c->eval_count; e++) {
        const evaluation *ev = &c->evals[e];
        for (size_t i = 0; i < ev->write_count; i++) /* a later skeleton takes the joint back */
            c->absolute_of[ev->writes[i].bone] = &c->absolute[ev->writes[i].bone];
        if (ev->own_moving) continue;
        const cna_model_skin *s = &m->skins[ev->skin];
        const cna_skinning_data *d = &s->data;
        const bool prefixed = d->root_prefix && d->root_prefix_count == (size_t)d->bone_count;
        const cna_mat4 *worlds = cna_player_world_transforms(ev->player);
        for (size_t i = 0; i < ev->write_count; i++) { /* palette order: parents first */
            const joint_write *w = &ev->writes[i];
            if (w->unfold >= 0) continue;
            const int32_t parent_bone = m->bones[w->bone].parent;
            const int32_t parent_joint = d->hierarchy[w->palette];
            bool same;
            if (parent_joint >= 0) {
                const int32_t pb = s->palette_to_node[parent_joint];
                same = pb >= 0 && pb == parent_bone && c->absolute_of[pb] == &worlds[parent_joint];
            } else {
                same = prefixed && parent_bone >= 0 && c->absolute_of[parent_bone] == &c->absolute[parent_bone] &&
                       !moving[parent_bone] &&
                       memcmp(&d->root_prefix[w->palette], &c->absolute[parent_bone], sizeof(cna_mat4)) == 0;
            }
            if (same) c->absolute_of[w->bone] = &worlds[w->palette];
        }
    }
}

/* After alias_absolutes: a slot only for each bone that is not aliased (the
 * values copied), and the list of the moving ones, which the pose computes. */
static cna_result compact_absolutes(cna_character *c, const uint8_t *moving)
{
    const cna_model *m = c->model;
    const size_t n = m->bone_count;
    size_t own = 0, dynamic = 0;
    for (size_t b = 0; b < n; b++)
        if (c->absolute_of[b] == &c->absolute[b]) {
            own++;
            if (moving[b]) dynamic++;
        }
    cna_mat4 *compact = (cna_mat4 *)cna__character_take(c, own, sizeof(cna_mat4));
    bone_link *list = (bone_link *)cna__character_take(c, dynamic, sizeof(bone_link));
    if (!compact || !list) {
        cna__free(&c->alloc, compact);
        cna__free(&c->alloc, list);
        return CNA_ERROR_OUT_OF_MEMORY;
    }
    own = 0;
    for (size_t b = 0; b < n; b++) {
        if (c->absolute_of[b] != &c->absolute[b]) {
            c->absolute_slot[b] = -1;
            continue;
        }
        compact[own] = c->absolute[b];
        c->absolute_slot[b] = (int32_t)own++;
        if (!moving[b]) continue;
        list[c->dynamic_count].bone = (int32_t)b;
        list[c->dynamic_count].parent = m->bones[b].parent;
        list[c->dynamic_count++].slot = c->absolute_slot[b];
    }
    cna__free(&c->alloc, c->absolute);
    c->bytes -= (n ? n : 1) * sizeof(cna_mat4);
    c->absolute = compact;
    c->dynamic = list;
    cna__character_bind_absolutes(c);
    return CNA_OK;
}

/* The bones between palette joint p and its parent joint (c1, the joint's
 * parent bone, first) into chain (may be NULL) when one of them can move
 * (`animated`: a clip writes its local), else 0: the joint's fold then moves
 * with them (the player's local is L_cm(t) · ... · L_c1(t) · L_joint(t)). */
static size_t moving_fold(const cna_model *m, const cna_model_skin *s, size_t p, const uint8_t *animated,
                          int32_t *chain)
{
    const int32_t bone = s->palette_to_node ? s->palette_to_node[p] : -1;
    const int32_t parent = s->data.hierarchy ? s->data.hierarchy[p] : -1;
    if (bone < 0 || parent < 0 || (size_t)bone >= m->bone_count) return 0;
    const int32_t parent_bone = s->palette_to_node[parent];
    size_t count = 0;
    bool moves = false;
    for (int32_t b = m->bones[bone].parent; b >= 0 && b != parent_bone; b = m->bones[b].parent) {
        if (animated[b]) moves = true;
        if (chain) chain[count] = b;
        count++;
    }
    return moves ? count : 0;
}

static cna_result build_bones(cna_character *c, uint8_t *animated)
{
    const cna_model *m = c->model;
    const size_t n = m->bone_count;
    /* Own local storage only for the bones whose local the character writes:
     * those a scene-node clip animates and the joints whose bind pose folds
     * nodes in (inverse(fold) · local); every other bone reads its rest
     * transform from the model, or its joint's from the player. */
    c->local_slot = (int32_t *)cna__character_take(c, n, sizeof(int32_t));
    if (!c->local_slot) return CNA_ERROR_OUT_OF_MEMORY;
    for (size_t b = 0; b < n; b++) c->local_slot[b] = -1;
    for (size_t a = 0; m->node_clips && a < m->animation_count; a++)
        for (size_t t = 0; m->node_clips[a].tracks && t < m->node_clips[a].track_count; t++) {
            const cna_bone_track *tr = &m->node_clips[a].tracks[t];
            if (tr->keys && tr->key_count > 0 && tr->bone >= 0 && (size_t)tr->bone < n) c->local_slot[tr->bone] = 0;
        }
    /* The bones that move (what `animated` becomes below: the animated
     * ones, the joints and every bone under them): build_writes recomputes
     * the fold of a joint whose folded bones are among them, which needs the
     * joint's own local (an identity fold under a joint included). */
    uint8_t *moved = (uint8_t *)cna__calloc(&c->alloc, n ? n : 1, 1);
    if (!moved) return CNA_ERROR_OUT_OF_MEMORY;
    if (n) memcpy(moved, animated, n);
    for (size_t s = 0; s < m->skin_count; s++)
        for (size_t p = 0; m->skins[s].palette_to_node && p < m->skins[s].joint_count; p++) {
            const int32_t b = m->skins[s].palette_to_node[p];
            if (b >= 0 && (size_t)b < n) moved[b] = 1;
        }
    for (size_t b = 0; b < n; b++)
        if (m->bones[b].parent >= 0 && moved[m->bones[b].parent]) moved[b] = 1;
    for (size_t s = 0; s < m->skin_count; s++)
        for (size_t p = 0; m->skins[s].palette_to_node && m->skins[s].fold && p < m->skins[s].joint_count; p++) {
            const int32_t b = m->skins[s].palette_to_node[p];
            if (b >= 0 && (size_t)b < n &&
                (!cna_mat4_is_identity(&m->skins[s].fold[p]) || moving_fold(m, &m->skins[s], p, moved, NULL)))
                c->local_slot[b] = 0;
        }
    cna__free(&c->alloc, moved);
    size_t owned = 0;
    for (size_t b = 0; b < n; b++)
        if (c->local_slot[b] == 0) c->local_slot[b] = (int32_t)owned++;
        else c->local_slot[b] = -1;
    c->local = owned ? (cna_mat4 *)cna__character_take(c, owned, sizeof(cna_mat4)) : NULL;
    /* an absolute slot for every bone until compact_absolutes keeps only
     * those of the bones that are not aliased */
    c->absolute = (cna_mat4 *)cna__character_take(c, n, sizeof(cna_mat4));
    c->absolute_slot = (int32_t *)cna__character_take(c, n, sizeof(int32_t));
    c->local_of = (const cna_mat4 **)cna__character_take(c, n, sizeof(cna_mat4 *));
    c->absolute_of = (const cna_mat4 **)cna__character_take(c, n, sizeof(cna_mat4 *));
    if ((owned && !c->local) || !c->absolute || !c->absolute_slot || !c->local_of || !c->absolute_of)
        return CNA_ERROR_OUT_OF_MEMORY;
    /* Joints are posed by their players at every pose (the bind pose at
     * rest): they and the animated bones move, and so does every bone below. */
    for (size_t s = 0; s < m->skin_count; s++)
        for (size_t p = 0; m->skins[s].palette_to_node && p < m->skins[s].joint_count; p++) {
            const int32_t b = m->skins[s].palette_to_node[p];
            if (b >= 0 && (size_t)b < n) animated[b] = 1;
        }
    for (size_t b = 0; b < n; b++) {
        const int32_t parent = m->bones[b].parent;
        if (parent >= 0 && animated[parent]) animated[b] = 1;
        if (c->local_slot[b] >= 0) c->local[c->local_slot[b]] = m->bones[b].rest_transform;
        c->local_of[b] = c->local_slot[b] >= 0 ? &c->local[c->local_slot[b]] : &m->bones[b].rest_transform;
        c->absolute_of[b] = &c->absolute[b];
        c->absolute_slot[b] = (int32_t)b;
    }
    /* Joints of an evaluation are written at every pose; the other moving
     * bones go back to rest first. */
    uint8_t *written = (uint8_t *)cna__calloc(&c->alloc, n ? n : 1, 1);
    if (!written) return CNA_ERROR_OUT_OF_MEMORY;
    for (size_t e = 0; e < c->eval_count; e++) {
        const cna_model_skin *s = &m->skins[c->evals[e].skin];
        for (size_t p = 0; s->palette_to_node && p < s->joint_count; p++)
            if (s->palette_to_node[p] >= 0 && (size_t)s->palette_to_node[p] < n) written[s->palette_to_node[p]] = 1;
    }
    size_t resets = 0;
    /* only bones with a local of their own can have left their rest */
    for (size_t b = 0; b < n; b++)
        if (animated[b] && !written[b] && c->local_slot[b] >= 0) resets++;
    c->reset = (int32_t *)cna__character_take(c, resets, sizeof(int32_t));
    if (!c->reset) {
        cna__free(&c->alloc, written);
        return CNA_ERROR_OUT_OF_MEMORY;
    }
    for (size_t b = 0; b < n; b++)
        if (animated[b] && !written[b] && c->local_slot[b] >= 0) c->reset[c->reset_count++] = (int32_t)b;
    cna__free(&c->alloc, written);
    cna__character_absolutes_own(c);
    size_t tracks = 0;
    for (size_t a = 0; m->node_clips && a < m->animation_count; a++)
        if (m->node_clips[a].track_count > tracks) tracks = m->node_clips[a].track_count;
    c->node_cursor = (size_t *)cna__character_take(c, tracks, sizeof(size_t));
    return c->node_cursor ? CNA_OK : CNA_ERROR_OUT_OF_MEMORY;
}

/* The morphed and split parts; with `instances`, each morphed part's state
 * (made and checked: the rig built at load leaves that to each character). */
static cna_result build_morph(cna_character *c, bool instances, cna_error *err)
{
    const cna_model *m = c->model;
    c->part_first = (size_t *)cna__character_take(c, m->mesh_count + 1, sizeof(size_t));
    if (!c->part_first) return CNA_ERROR_OUT_OF_MEMORY;
    size_t flat = 0, largest = 0;
    for (size_t i = 0; i < m->mesh_count; i++) {
        c->part_first[i] = flat;
        flat += m->meshes[i].part_count;
    }
    c->part_first[m->mesh_count] = flat;
    c->parts = (morph_part *)cna__character_take(c, flat, sizeof(morph_part));
    if (!c->parts) return CNA_ERROR_OUT_OF_MEMORY;
    for (size_t i = 0; i < m->mesh_count; i++) {
        for (size_t k = 0; k < m->meshes[i].part_count; k++) {
            const cna_morph_target_data *md = m->meshes[i].parts[k].morph;
            if (!md || !instances) continue;
            cna_error inner;
            cna_result r = cna_morph_instance_create(md, &c->alloc, &c->parts[c->part_first[i] + k].instance, &inner);
            if (r != CNA_OK) {
                if (r == CNA_ERROR_OUT_OF_MEMORY) return r;
                return cna__error(err, r, "meshes[%zu].parts[%zu]: %s", i, k, inner.message);
            }
            c->bytes += 64 + md->target_count * sizeof(float) + md->base_size;
            c->parts[c->part_first[i] + k].revision = 1;
            if (md->target_count > largest) largest = md->target_count;
        }
    }
    size_t morphed = 0, split = 0;
    for (size_t i = 0; i < m->mesh_count; i++)
        for (size_t k = 0; k < m->meshes[i].part_count; k++) {
            if (m->meshes[i].parts[k].morph) morphed++;
            if (m->meshes[i].parts[k].palette_map && m->meshes[i].skin >= 0) split++;
        }
    c->scratch = (float *)cna__character_take(c, largest, sizeof(float));
    c->morphed = (part_ref *)cna__character_take(c, morphed, sizeof(part_ref));
    c->split = (part_ref *)cna__character_take(c, split, sizeof(part_ref));
    if (!c->scratch || !c->morphed || !c->split) return CNA_ERROR_OUT_OF_MEMORY;
    for (size_t i = 0; i < m->mesh_count; i++)
        for (size_t k = 0; k < m->meshes[i].part_count; k++) {
            if (m->meshes[i].parts[k].morph) {
                c->morphed[c->morphed_count].mesh = i;
                c->morphed[c->morphed_count++].part = k;
            }
            const cna_model_part *p = &m->meshes[i].parts[k];
            if (!p->palette_map || m->meshes[i].skin < 0) continue;
            /* a split part's sub-palette, gathered at every pose */
            c->parts[c->part_first[i] + k].palette = (cna_mat4 *)cna__character_take(c, p->palette_map_count, sizeof(cna_mat4));
            if (!c->parts[c->part_first[i] + k].palette) return CNA_ERROR_OUT_OF_MEMORY;
            c->split[c->split_count].mesh = i;
            c->split[c->split_count++].part = k;
        }
    return CNA_OK;
}

/* The joints an evaluation writes into the bones, with inverse(fold[p])
 * computed once (a singular fold writes the local itself), or, for a fold
 * whose bones move, the chain of those bones (write_joints recomputes it). */
static cna_result build_writes(cna_character *c, evaluation *ev, const uint8_t *animated)
{
    const cna_model *m = c->model;
    const cna_model_skin *s = &m->skins[ev->skin];
    size_t folds = 0, chained = 0;
    for (size_t p = 0; p < s->joint_count; p++) {
        if (s->palette_to_node[p] < 0) continue;
        const size_t moving = moving_fold(m, s, p, animated, NULL);
        chained += moving;
        if (moving || !cna_mat4_is_identity(&s->fold[p])) folds++;
    }
    ev->writes = (joint_write *)cna__character_take(c, s->joint_count, sizeof(joint_write));
    ev->unfold = folds ? (cna_mat4 *)cna__character_take(c, folds, sizeof(cna_mat4)) : NULL;
    ev->chain = chained ? (int32_t *)cna__character_take(c, chained, sizeof(int32_t)) : NULL;
    if (!ev->writes || (folds && !ev->unfold) || (chained && !ev->chain)) return CNA_ERROR_OUT_OF_MEMORY;
    size_t unfolds = 0;
    chained = 0;
    for (size_t p = 0; p < s->joint_count; p++) {
        const int32_t b = s->palette_to_node[p];
        if (b < 0) continue;
        joint_write *w = &ev->writes[ev->write_count++];
        w->palette = (int32_t)p;
        w->bone = b;
        w->unfold = -1;
        w->chain_first = (int32_t)chained;
        w->chain_count = (int32_t)moving_fold(m, s, p, animated, ev->chain ? ev->chain + chained : NULL);
        chained += (size_t)w->chain_count;
        cna_mat4 inv;
        if (w->chain_count > 0) {
            if (!cna_mat4_inverse(&inv, &s->fold[p])) cna_mat4_identity(&inv);
            ev->unfold[unfolds] = inv;  /* recomputed at every pose */
            w->unfold = (int32_t)unfolds++;
            ev->unfold_count = unfolds;
        } else if (!cna_mat4_is_identity(&s->fold[p]) && cna_mat4_inverse(&inv, &s->fold[p])) {
            ev->unfold[unfolds] = inv;
            w->unfold = (int32_t)unfolds++;
            ev->unfold_count = unfolds;
        }
    }
    return CNA_OK;
}

static cna_result build_players(cna_character *c, const uint8_t *animated, cna_error *err)
{
    const cna_model *m = c->model;
    for (size_t e = 0; e < c->eval_count; e++) {
        evaluation *ev = &c->evals[e];
        const cna_skinning_data *d = &m->skins[ev->skin].data;
        cna_error inner;
        cna_result r = cna_player_create(d, &c->alloc, &ev->player, &inner);
        if (r != CNA_OK) {
            if (r == CNA_ERROR_OUT_OF_MEMORY) return r;
            return cna__error(err, r, "skins[%d]: %s", (int)ev->skin, inner.message);
        }
        /* Grow the sampling state for the clip with the most tracks now, so
         * that playing never allocates. */
        const cna_clip *largest = NULL;
        for (size_t a = 0; d->clips && a < d->clip_count; a++)
            if (!largest || d->clips[a].track_count > largest->track_count) largest = &d->clips[a];
        if (largest && largest->track_count > 0) {
            if ((r = cna_player_start_clip(ev->player, largest, &inner)) != CNA_OK) {
                if (r == CNA_ERROR_OUT_OF_MEMORY) return r;
                return cna__error(err, r, "skins[%d]: %s", (int)ev->skin, inner.message);
            }
            cna_player_stop(ev->player, NULL);
        }
        if (c->fast) cna_player_set_sampling(ev->player, CNA_SAMPLING_FAST, NULL);
        c->bytes += cna__player_size_bytes(ev->player);
        if ((r = build_writes(c, ev, animated)) != CNA_OK) return r;
        const variant *own = &c->variants[ev->own_variant];
        if (own->moving) cna_player_set_root_prefix(ev->player, own->prefix, m->skins[ev->skin].joint_count, NULL);
    }
    cna__character_bind_locals(c);
    return CNA_OK;
}

/* The character the long way, without layers and pose: the rig's source
 * (rig_from); without `instances`, no morph state is made (nor checked:
 * each character's creation does it). On failure *out is NULL and err says
 * why, as cna_character_create reports it. */
static cna_result build_long(const cna_model *model, const cna_allocator *al, bool instances, cna_character **out,
                             cna_error *err)
{
    *out = NULL;
    cna_character *c = (cna_character *)cna__calloc(al, 1, sizeof *c);
    if (!c) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "character: out of memory");
    c->alloc = *al;
    c->model = model;
    c->bytes = sizeof *c;
    uint8_t *animated = (uint8_t *)cna__calloc(al, model->bone_count ? model->bone_count : 1, 1);
    if (!animated) return oom(c, err);
    mark_animated(model, animated);
    cna_result r = build_groups(c, animated);
    if (r == CNA_OK) r = order_evaluations(c);
    if (r == CNA_OK) r = build_bones(c, animated);
    if (r == CNA_OK) r = build_morph(c, instances, err);
    if (r == CNA_OK) r = build_players(c, animated, err);
    if (r == CNA_OK) {
        alias_absolutes(c, animated);
        r = compact_absolutes(c, animated);
    }
    cna__free(al, animated);
    if (r == CNA_ERROR_OUT_OF_MEMORY) return oom(c, err);
    if (r != CNA_OK) {
        cna_character_free(c);
        return r;
    }
    *out = c;
    return CNA_OK;
}

/* ------------------------------------------------------------------ the rig */

static bool rig_matches(const cna__rig *rig, const cna_model *m)
{
    return rig->bones == m->bones && rig->bone_count == m->bone_count && rig->skins == m->skins &&
           rig->skin_count == m->skin_count && rig->node_clips == m->node_clips &&
           rig->animation_count == m->animation_count && rig->meshes == m->meshes && rig->mesh_count == m->mesh_count;
}

/* The rig's arrays carved from k, copied from the long-made character s
 * when k->base is set. */
static void rig_lay_out(cna__carver *k, cna__rig *rig, const cna_character *s)
{
    const cna_model *m = s->model;
    const size_t n = m->bone_count;
    rig->evals = (evaluation *)cna__carve(k, s->eval_count, sizeof(evaluation));
    rig->track_capacity = (size_t *)cna__carve(k, s->eval_count, sizeof(size_t));
    for (size_t e = 0; e < s->eval_count; e++) {
        const evaluation *ev = &s->evals[e];
        size_t chained = 0;
        for (size_t i = 0; i < ev->write_count; i++) chained += (size_t)ev->writes[i].chain_count;
        joint_write *writes = (joint_write *)cna__carve(k, ev->write_count, sizeof(joint_write));
        cna_mat4 *unfold = (cna_mat4 *)cna__carve(k, ev->unfold_count, sizeof(cna_mat4));
        int32_t *chain = (int32_t *)cna__carve(k, chained, sizeof(int32_t));
        if (!k->base) continue;
        evaluation *to = &rig->evals[e];
        *to = *ev;
        to->player = NULL;
        to->writes = writes;
        to->unfold = ev->unfold_count ? unfold : NULL;
        to->chain = chained ? chain : NULL;
        if (ev->write_count) memcpy(writes, ev->writes, ev->write_count * sizeof(joint_write));
        if (ev->unfold_count) memcpy(unfold, ev->unfold, ev->unfold_count * sizeof(cna_mat4));
        if (chained) memcpy(chain, ev->chain, chained * sizeof(int32_t));
        const cna_skinning_data *d = &m->skins[ev->skin].data;
        size_t largest = 0;
        for (size_t a = 0; d->clips && a < d->clip_count; a++)
            if (d->clips[a].track_count > largest) largest = d->clips[a].track_count;
        rig->track_capacity[e] = largest;
    }
    rig->variants = (variant *)cna__carve(k, s->variant_count, sizeof(variant));
    rig->skin_variant = (size_t *)cna__carve(k, m->skin_count, sizeof(size_t));
    rig->local_slot = (int32_t *)cna__carve(k, n, sizeof(int32_t));
    rig->absolute_slot = (int32_t *)cna__carve(k, n, sizeof(int32_t));
    size_t absolutes = 0;
    for (size_t b = 0; b < n; b++)
        if (s->absolute_slot[b] >= 0) absolutes++;
    rig->absolute = (cna_mat4 *)cna__carve(k, absolutes, sizeof(cna_mat4));
    rig->dynamic = (bone_link *)cna__carve(k, s->dynamic_count, sizeof(bone_link));
    rig->reset = (int32_t *)cna__carve(k, s->reset_count, sizeof(int32_t));
    rig->part_first = (size_t *)cna__carve(k, m->mesh_count + 1, sizeof(size_t));
    rig->morphed = (part_ref *)cna__carve(k, s->morphed_count, sizeof(part_ref));
    rig->split = (part_ref *)cna__carve(k, s->split_count, sizeof(part_ref));
    if (!k->base) return;
    rig->eval_count = s->eval_count;
    for (size_t v = 0; v < s->variant_count; v++) {
        rig->variants[v] = s->variants[v];
        rig->variants[v].prefix = rig->variants[v].world = rig->variants[v].skin_m = NULL;
    }
    rig->variant_count = s->variant_count;
    if (m->skin_count) memcpy(rig->skin_variant, s->skin_variant, m->skin_count * sizeof(size_t));
    if (n) {
        memcpy(rig->local_slot, s->local_slot, n * sizeof(int32_t));
        memcpy(rig->absolute_slot, s->absolute_slot, n * sizeof(int32_t));
    }
    for (size_t b = 0; b < n; b++)
        if (s->local_slot[b] >= 0) rig->local_count++;
    if (absolutes) memcpy(rig->absolute, s->absolute, absolutes * sizeof(cna_mat4));
    rig->absolute_count = absolutes;
    if (s->dynamic_count) memcpy(rig->dynamic, s->dynamic, s->dynamic_count * sizeof(bone_link));
    rig->dynamic_count = s->dynamic_count;
    if (s->reset_count) memcpy(rig->reset, s->reset, s->reset_count * sizeof(int32_t));
    rig->reset_count = s->reset_count;
    size_t tracks = 0;
    for (size_t a = 0; m->node_clips && a < m->animation_count; a++)
        if (m->node_clips[a].track_count > tracks) tracks = m->node_clips[a].track_count;
    rig->node_tracks = tracks;
    memcpy(rig->part_first, s->part_first, (m->mesh_count + 1) * sizeof(size_t));
    if (s->morphed_count) memcpy(rig->morphed, s->morphed, s->morphed_count * sizeof(part_ref));
    rig->morphed_count = s->morphed_count;
    if (s->split_count) memcpy(rig->split, s->split, s->split_count * sizeof(part_ref));
    rig->split_count = s->split_count;
    size_t largest = 0;
    for (size_t i = 0; i < s->morphed_count; i++) {
        const cna_morph_target_data *md = m->meshes[s->morphed[i].mesh].parts[s->morphed[i].part].morph;
        if (md->target_count > largest) largest = md->target_count;
    }
    rig->scratch_count = largest;
}

/* The rig of a long-made character, in one allocation from `al`. */
static cna__rig *rig_from(const cna_character *s, const cna_allocator *al)
{
    cna__rig shape;
    memset(&shape, 0, sizeof shape);
    cna__carver k = {NULL, sizeof(cna__rig)};
    rig_lay_out(&k, &shape, s);
    cna__rig *rig = (cna__rig *)cna__calloc(al, 1, k.at);
    if (!rig) return NULL;
    const cna_model *m = s->model;
    rig->bones = m->bones;
    rig->bone_count = m->bone_count;
    rig->skins = m->skins;
    rig->skin_count = m->skin_count;
    rig->node_clips = m->node_clips;
    rig->animation_count = m->animation_count;
    rig->meshes = m->meshes;
    rig->mesh_count = m->mesh_count;
    rig->bytes = k.at;
    k.base = (char *)rig;
    k.at = sizeof(cna__rig);
    rig_lay_out(&k, rig, s);
    return rig;
}

/* A rig read off a character of `model` made the long way (build_long,
 * with `instances`), allocated from `al`. Errors: build_long's (err set);
 * CNA_ERROR_OUT_OF_MEMORY (err not set when the rig's own allocation failed). */
static cna_result build_rig(const cna_model *model, const cna_allocator *al, bool instances, cna__rig **out,
                            cna_error *err)
{
    cna_character *s = NULL;
    cna_result r = build_long(model, al, instances, &s, err);
    if (r != CNA_OK) return r;
    *out = rig_from(s, al);
    cna_character_free(s);
    return *out ? CNA_OK : CNA_ERROR_OUT_OF_MEMORY;
}

cna_result cna__model_build_rig(cna__model *m, cna_error *err)
{
    cna__rig *rig = NULL;
    cna_error inner;
    cna_result r = build_rig(&m->pub, &m->allocator, false, &rig, &inner);
    if (r == CNA_ERROR_OUT_OF_MEMORY) return cna__error(err, r, "model: out of memory for its rig");
    if (r != CNA_OK) return CNA_OK; /* each character reports it */
    m->rig_bytes = rig->bytes;
    atomic_store_explicit(&m->rig, rig, memory_order_release);
    return CNA_OK;
}

/* The model's rig, built when it was loaded; else (a model struct filled or
 * changed by hand, or one whose rig could not be built) a rig for this
 * character alone (*own, allocated from `al`). */
cna_result cna__rig_of(const cna_model *model, const cna_allocator *al, const cna__rig **out, cna__rig **own,
                      cna_error *err)
{
    *own = NULL;
    if (model->owner) {
        const cna__model *m = cna__model_of_owner(model->owner);
        const cna__rig *held = (const cna__rig *)atomic_load_explicit(&m->rig, memory_order_acquire);
        if (held && rig_matches(held, model)) {
            *out = held;
            return CNA_OK;
        }
    }
    const cna_result r = build_rig(model, al, true, own, err);
    if (r == CNA_ERROR_OUT_OF_MEMORY) return cna__error(err, r, "character: out of memory");
    if (r != CNA_OK) return r;
    *out = *own;
    return CNA_OK;
}

