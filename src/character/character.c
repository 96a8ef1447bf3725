/*
 * The character (include/cna/character.h): one animated instance of an
 * immutable model. Everything that changes per frame lives here; the model
 * is only read.
 *
 * Skins are evaluated in groups. An evaluation is one cna_player: the model
 * skins of one glTF skin (equal joints, hierarchy, bind pose, inverse binds,
 * clips) sample and compose their joints once. A palette variant is one
 * distinct palette of an evaluation: skins whose root prefixes are equal too
 * share it. The evaluation's player produces the palette of its
 * representative skin; another variant composes its own worlds and palette
 * from the player's local transforms with its own prefix, with the same
 * products (cna_mat4_mul), so the bits are those a player of its own would
 * give. A variant whose prefix moves (an animated ancestor of a root joint,
 * or an animated instancing node) re-evaluates the prefix from the posed
 * scene at every pose:
 *   prefix[root] = inverse(absolute[mesh_node]) · absolute[parent of root]
 *                  (spec: W_ancestor * inverse(W_meshNode))
 * and is composed in as world[root] = prefix[root] · local[root].
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cglm/cglm.h>

#include "anim/anim_internal.h"
#include "character/character_internal.h"
#include "cna/character.h"
#include "cna/morph.h"
#include "core/internal.h"
#include "model/model_internal.h" /* cna__model_retain, cna__model_release */

/* ------------------------------------------------------------------ allocation */

static void *take(cna_character *c, size_t count, size_t size)
{
    size_t total;
    if (!cna__mul_size(count ? count : 1, size, &total)) return NULL;
    void *p = cna__calloc(&c->alloc, 1, total);
    if (p) c->bytes += total;
    return p;
}

void *cna__character_take(cna_character *c, size_t count, size_t size) { return take(c, count, size); }

/* The first `used` of the `had` entries of `p` (from take) in an allocation
 * of their own size, `p` freed; NULL (p kept) when out of memory. */
static void *fit(cna_character *c, void *p, size_t used, size_t had, size_t size)
{
    if (used == had) return p;
    void *q = take(c, used, size);
    if (!q) return NULL;
    memcpy(q, p, used * size);
    cna__free(&c->alloc, p);
    c->bytes -= (had ? had : 1) * size;
    return q;
}

cna_mat4 *cna__character_local(cna_character *c, int32_t bone) { return &c->local[c->local_slot[bone]]; }

void cna_character_free(cna_character *c)
{
    if (!c || c->in_listener) return; /* not from its own event listener */
    const cna_allocator a = c->alloc;
    if (c->rig) { /* made from a rig: its arrays in one block, or the rig's */
        for (size_t e = 0; c->evals && e < c->eval_count; e++) cna_player_free(c->evals[e].player);
        for (size_t i = 0; c->parts && i < c->rig->part_first[c->model->mesh_count]; i++)
            cna_morph_instance_free(c->parts[i].instance);
        cna__free(&a, c->applied);
        cna__layers_free(c);
        cna__edit_free(c);
        struct cna_model_owner *owner = c->owner;
        cna__free(&a, c->block);
        cna__free(&a, c->own_rig);
        cna__free(&a, c);
        cna__model_release(owner);
        return;
    }
    cna__free(&a, c->block);
    cna__free(&a, c->own_rig);
    for (size_t e = 0; c->evals && e < c->eval_count; e++) {
        cna_player_free(c->evals[e].player);
        cna__free(&a, c->evals[e].writes);
        cna__free(&a, c->evals[e].unfold);
        cna__free(&a, c->evals[e].chain);
    }
    for (size_t v = 0; c->variants && v < c->variant_count; v++) {
        cna__free(&a, c->variants[v].prefix);
        cna__free(&a, c->variants[v].world);
        cna__free(&a, c->variants[v].skin_m);
    }
    if (c->parts && c->part_first)
        for (size_t i = 0; i < c->part_first[c->model->mesh_count]; i++) {
            cna_morph_instance_free(c->parts[i].instance);
            cna__free(&a, c->parts[i].palette);
        }
    cna__free(&a, c->split);
    cna__free(&a, c->evals);
    cna__free(&a, c->variants);
    cna__free(&a, c->skin_variant);
    cna__free(&a, c->local);
    cna__free(&a, c->local_slot);
    cna__free(&a, c->applied);
    cna__free(&a, (void *)c->local_of);
    cna__free(&a, (void *)c->absolute_of);
    cna__free(&a, c->absolute);
    cna__free(&a, c->absolute_slot);
    cna__free(&a, c->dynamic);
    cna__free(&a, c->reset);
    cna__free(&a, c->morphed);
    cna__free(&a, c->node_cursor);
    cna__free(&a, c->part_first);
    cna__free(&a, c->parts);
    cna__free(&a, c->scratch);
    cna__layers_free(c);
    cna__edit_free(c);
    struct cna_model_owner *owner = c->owner;
    cna__free(&a, c);
    cna__model_release(owner); /* last: may free the model (cna_model_free already called) */
}

static cna_result oom(cna_character *c, cna_error *err)
{
    cna_character_free(c);
    return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "character: out of memory");
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
    c->evals = (evaluation *)take(c, n, sizeof(evaluation));
    c->variants = (variant *)take(c, n, sizeof(variant));
    c->skin_variant = (size_t *)take(c, n, sizeof(size_t));
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
            va->prefix = (cna_mat4 *)take(c, jc, sizeof(cna_mat4));
            if (!va->prefix) r = CNA_ERROR_OUT_OF_MEMORY;
            else
                for (size_t p = 0; p < jc; p++) {
                    const cna_skinning_data *d = &m->skins[va->skin].data;
                    if (d->root_prefix && d->root_prefix_count == jc) va->prefix[p] = d->root_prefix[p];
                    else cna_mat4_identity(&va->prefix[p]);
                }
        }
        if (!va->own && r == CNA_OK) {
            va->world = (cna_mat4 *)take(c, jc, sizeof(cna_mat4));
            va->skin_m = (cna_mat4 *)take(c, jc, sizeof(cna_mat4));
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

/* cna_mat4_mul's product (cglm's, the same bits) without its copies: the
 * build gives cglm unaligned loads and stores, so any cna_mat4 will do. */
#if !defined(CGLM_ALL_UNALIGNED)
#error "cna builds cglm with CGLM_ALL_UNALIGNED (CMakeLists.txt, cna_flags)"
#endif
static inline void mul(cna_mat4 *out, const cna_mat4 *a, const cna_mat4 *b)
{
    glm_mat4_mul((vec4 *)(uintptr_t)a->m, (vec4 *)(uintptr_t)b->m, (vec4 *)(void *)out->m);
}

/* absolute[b] = absolute[parent] · local[b] for one bone, into `out`. */
static inline void absolute_into(cna_character *c, cna_mat4 *out, int32_t b, int32_t parent)
{
    if (parent >= 0)
        mul(out, c->absolute_of[parent], c->local_of[b]);
    else
        *out = *c->local_of[b];
}

/* ... for the moving bones this pass computes (index order), each into its slot */
static void absolutes_of(cna_character *c, const bone_link *list, size_t count)
{
    for (size_t i = 0; i < count; i++)
        absolute_into(c, &c->absolute[list[i].slot], list[i].bone, list[i].parent);
}

/* ... for every bone with an absolute of its own (index order) */
static void absolutes_own(cna_character *c)
{
    const cna_model *m = c->model;
    for (size_t b = 0; b < m->bone_count; b++)
        if (c->absolute_slot[b] >= 0)
            absolute_into(c, &c->absolute[c->absolute_slot[b]], (int32_t)b, m->bones[b].parent);
}

/* Each joint's local transform is read where its player keeps it (or, for a
 * joint whose bind pose folds nodes in, from local[b] where the pose writes
 * inverse(fold) · local); a joint of several skeletons follows the last.
 * Every other bone reads its own local, or its rest transform in the model. */
static void bind_locals(cna_character *c)
{
    const cna_model *m = c->model;
    for (size_t b = 0; b < m->bone_count; b++)
        c->local_of[b] = c->local_slot[b] >= 0 ? &c->local[c->local_slot[b]] : &m->bones[b].rest_transform;
    for (size_t e = 0; e < c->eval_count; e++) {
        const evaluation *ev = &c->evals[e];
        const cna_mat4 *locals = cna_player_bone_transforms(ev->player);
        for (size_t i = 0; i < ev->write_count; i++) {
            const joint_write *w = &ev->writes[i];
            c->local_of[w->bone] = w->unfold < 0 ? &locals[w->palette] : cna__character_local(c, w->bone);
        }
    }
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

/* Where each bone's absolute transform is, as alias_absolutes decided at
 * creation: its slot, or the world of the last skeleton that poses it. */
static void bind_absolutes(cna_character *c)
{
    const cna_model *m = c->model;
    for (size_t b = 0; b < m->bone_count; b++)
        c->absolute_of[b] = c->absolute_slot[b] >= 0 ? &c->absolute[c->absolute_slot[b]] : NULL;
    for (size_t e = 0; e < c->eval_count; e++) {
        const evaluation *ev = &c->evals[e];
        const cna_mat4 *worlds = cna_player_world_transforms(ev->player);
        for (size_t i = 0; i < ev->write_count; i++) {
            const joint_write *w = &ev->writes[i];
            if (w->unfold < 0 && c->absolute_slot[w->bone] < 0) c->absolute_of[w->bone] = &worlds[w->palette];
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
    cna_mat4 *compact = (cna_mat4 *)take(c, own, sizeof(cna_mat4));
    bone_link *list = (bone_link *)take(c, dynamic, sizeof(bone_link));
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
    bind_absolutes(c);
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
    c->local_slot = (int32_t *)take(c, n, sizeof(int32_t));
    if (!c->local_slot) return CNA_ERROR_OUT_OF_MEMORY;
    for (size_t b = 0; b < n; b++) c->local_slot[b] = -1;
    for (size_t a = 0; m->node_clips && a < m->animation_count; a++)
        for (size_t t = 0; m->node_clips[a].tracks && t < m->node_clips[a].track_count; t++) {
            const cna_bone_track *tr = &m->node_clips[a].tracks[t];
            if (tr->keys && tr->key_count > 0 && tr->bone >= 0 && (size_t)tr->bone < n) c->local_slot[tr->bone] = 0;
        }
    for (size_t s = 0; s < m->skin_count; s++)
        for (size_t p = 0; m->skins[s].palette_to_node && m->skins[s].fold && p < m->skins[s].joint_count; p++) {
            const int32_t b = m->skins[s].palette_to_node[p];
            if (b >= 0 && (size_t)b < n &&
                (!cna_mat4_is_identity(&m->skins[s].fold[p]) || moving_fold(m, &m->skins[s], p, animated, NULL)))
                c->local_slot[b] = 0;
        }
    size_t owned = 0;
    for (size_t b = 0; b < n; b++)
        if (c->local_slot[b] == 0) c->local_slot[b] = (int32_t)owned++;
        else c->local_slot[b] = -1;
    c->local = owned ? (cna_mat4 *)take(c, owned, sizeof(cna_mat4)) : NULL;
    /* an absolute slot for every bone until compact_absolutes keeps only
     * those of the bones that are not aliased */
    c->absolute = (cna_mat4 *)take(c, n, sizeof(cna_mat4));
    c->absolute_slot = (int32_t *)take(c, n, sizeof(int32_t));
    c->local_of = (const cna_mat4 **)take(c, n, sizeof(cna_mat4 *));
    c->absolute_of = (const cna_mat4 **)take(c, n, sizeof(cna_mat4 *));
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
    c->reset = (int32_t *)take(c, resets, sizeof(int32_t));
    if (!c->reset) {
        cna__free(&c->alloc, written);
        return CNA_ERROR_OUT_OF_MEMORY;
    }
    for (size_t b = 0; b < n; b++)
        if (animated[b] && !written[b] && c->local_slot[b] >= 0) c->reset[c->reset_count++] = (int32_t)b;
    cna__free(&c->alloc, written);
    absolutes_own(c);
    size_t tracks = 0;
    for (size_t a = 0; m->node_clips && a < m->animation_count; a++)
        if (m->node_clips[a].track_count > tracks) tracks = m->node_clips[a].track_count;
    c->node_cursor = (size_t *)take(c, tracks, sizeof(size_t));
    return c->node_cursor ? CNA_OK : CNA_ERROR_OUT_OF_MEMORY;
}

/* The morphed and split parts; with `instances`, each morphed part's state
 * (made and checked: the rig built at load leaves that to each character). */
static cna_result build_morph(cna_character *c, bool instances, cna_error *err)
{
    const cna_model *m = c->model;
    c->part_first = (size_t *)take(c, m->mesh_count + 1, sizeof(size_t));
    if (!c->part_first) return CNA_ERROR_OUT_OF_MEMORY;
    size_t flat = 0, largest = 0;
    for (size_t i = 0; i < m->mesh_count; i++) {
        c->part_first[i] = flat;
        flat += m->meshes[i].part_count;
    }
    c->part_first[m->mesh_count] = flat;
    c->parts = (morph_part *)take(c, flat, sizeof(morph_part));
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
    c->scratch = (float *)take(c, largest, sizeof(float));
    c->morphed = (part_ref *)take(c, morphed, sizeof(part_ref));
    c->split = (part_ref *)take(c, split, sizeof(part_ref));
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
            c->parts[c->part_first[i] + k].palette = (cna_mat4 *)take(c, p->palette_map_count, sizeof(cna_mat4));
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
    ev->writes = (joint_write *)take(c, s->joint_count, sizeof(joint_write));
    ev->unfold = folds ? (cna_mat4 *)take(c, folds, sizeof(cna_mat4)) : NULL;
    ev->chain = chained ? (int32_t *)take(c, chained, sizeof(int32_t)) : NULL;
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
    bind_locals(c);
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

/* Carving one allocation (aligned for any type, as malloc's) into arrays
 * on 16-byte boundaries: a first pass with base NULL measures (pointers
 * NULL), a second hands out the pieces. */
typedef struct carver {
    char *base;
    size_t at;
} carver;

static void *carve(carver *k, size_t count, size_t size)
{
    k->at = (k->at + 15) & ~(size_t)15;
    void *p = k->base ? k->base + k->at : NULL;
    k->at += count * size;
    return p;
}

static bool rig_matches(const cna__rig *rig, const cna_model *m)
{
    return rig->bones == m->bones && rig->bone_count == m->bone_count && rig->skins == m->skins &&
           rig->skin_count == m->skin_count && rig->node_clips == m->node_clips &&
           rig->animation_count == m->animation_count && rig->meshes == m->meshes && rig->mesh_count == m->mesh_count;
}

/* The rig's arrays carved from k, copied from the long-made character s
 * when k->base is set. */
static void rig_lay_out(carver *k, cna__rig *rig, const cna_character *s)
{
    const cna_model *m = s->model;
    const size_t n = m->bone_count;
    rig->evals = (evaluation *)carve(k, s->eval_count, sizeof(evaluation));
    rig->track_capacity = (size_t *)carve(k, s->eval_count, sizeof(size_t));
    for (size_t e = 0; e < s->eval_count; e++) {
        const evaluation *ev = &s->evals[e];
        size_t chained = 0;
        for (size_t i = 0; i < ev->write_count; i++) chained += (size_t)ev->writes[i].chain_count;
        joint_write *writes = (joint_write *)carve(k, ev->write_count, sizeof(joint_write));
        cna_mat4 *unfold = (cna_mat4 *)carve(k, ev->unfold_count, sizeof(cna_mat4));
        int32_t *chain = (int32_t *)carve(k, chained, sizeof(int32_t));
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
    rig->variants = (variant *)carve(k, s->variant_count, sizeof(variant));
    rig->skin_variant = (size_t *)carve(k, m->skin_count, sizeof(size_t));
    rig->local_slot = (int32_t *)carve(k, n, sizeof(int32_t));
    rig->absolute_slot = (int32_t *)carve(k, n, sizeof(int32_t));
    size_t absolutes = 0;
    for (size_t b = 0; b < n; b++)
        if (s->absolute_slot[b] >= 0) absolutes++;
    rig->absolute = (cna_mat4 *)carve(k, absolutes, sizeof(cna_mat4));
    rig->dynamic = (bone_link *)carve(k, s->dynamic_count, sizeof(bone_link));
    rig->reset = (int32_t *)carve(k, s->reset_count, sizeof(int32_t));
    rig->part_first = (size_t *)carve(k, m->mesh_count + 1, sizeof(size_t));
    rig->morphed = (part_ref *)carve(k, s->morphed_count, sizeof(part_ref));
    rig->split = (part_ref *)carve(k, s->split_count, sizeof(part_ref));
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
    carver k = {NULL, sizeof(cna__rig)};
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

cna_result cna__model_build_rig(cna__model *m, cna_error *err)
{
    cna_character *s = NULL;
    cna_error inner;
    cna_result r = build_long(&m->pub, &m->allocator, false, &s, &inner);
    if (r == CNA_ERROR_OUT_OF_MEMORY) return cna__error(err, r, "model: out of memory for its rig");
    if (r != CNA_OK) return CNA_OK; /* each character reports it */
    cna__rig *rig = rig_from(s, &m->allocator);
    cna_character_free(s);
    if (!rig) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "model: out of memory for its rig");
    m->rig_bytes = rig->bytes;
    atomic_store_explicit(&m->rig, rig, memory_order_release);
    return CNA_OK;
}

/* The model's rig, built when it was loaded; else (a model struct filled or
 * changed by hand, or one whose rig could not be built) a rig for this
 * character alone (*own, allocated from `al`). */
static cna_result rig_of(const cna_model *model, const cna_allocator *al, const cna__rig **out, cna__rig **own,
                         cna_error *err)
{
    *own = NULL;
    if (model->owner) {
        const cna__model *m = (const cna__model *)((const char *)model->owner - offsetof(cna__model, owner));
        const cna__rig *held = (const cna__rig *)atomic_load_explicit(&m->rig, memory_order_acquire);
        if (held && rig_matches(held, model)) {
            *out = held;
            return CNA_OK;
        }
    }
    cna_character *s = NULL;
    cna_result r = build_long(model, al, true, &s, err);
    if (r != CNA_OK) return r;
    *own = rig_from(s, al);
    cna_character_free(s);
    if (!*own) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "character: out of memory");
    *out = *own;
    return CNA_OK;
}

/* A character's arrays from its rig: the pieces of its one block (k->base
 * NULL: measuring). */
static void lay_out(carver *k, cna_character *c, const cna__rig *rig)
{
    const cna_model *m = c->model;
    const size_t n = m->bone_count;
    c->evals = (evaluation *)carve(k, rig->eval_count, sizeof(evaluation));
    for (size_t e = 0; e < rig->eval_count; e++) {
        cna_mat4 *unfold = (cna_mat4 *)carve(k, rig->evals[e].unfold_count, sizeof(cna_mat4));
        if (!k->base) continue;
        c->evals[e] = rig->evals[e];
        c->evals[e].unfold = rig->evals[e].unfold_count ? unfold : NULL;
        if (rig->evals[e].unfold_count)
            memcpy(unfold, rig->evals[e].unfold, rig->evals[e].unfold_count * sizeof(cna_mat4));
    }
    c->variants = (variant *)carve(k, rig->variant_count, sizeof(variant));
    for (size_t v = 0; v < rig->variant_count; v++) {
        const variant *rv = &rig->variants[v];
        const size_t jc = m->skins[rv->skin].joint_count;
        cna_mat4 *prefix = rv->moving ? (cna_mat4 *)carve(k, jc, sizeof(cna_mat4)) : NULL;
        cna_mat4 *world = !rv->own ? (cna_mat4 *)carve(k, jc, sizeof(cna_mat4)) : NULL;
        cna_mat4 *skin_m = !rv->own ? (cna_mat4 *)carve(k, jc, sizeof(cna_mat4)) : NULL;
        if (!k->base) continue;
        variant *va = &c->variants[v];
        *va = *rv;
        va->prefix = prefix;
        va->world = world;
        va->skin_m = skin_m;
        if (prefix) {
            const cna_skinning_data *d = &m->skins[va->skin].data;
            for (size_t p = 0; p < jc; p++)
                if (d->root_prefix && d->root_prefix_count == jc) prefix[p] = d->root_prefix[p];
                else cna_mat4_identity(&prefix[p]);
        }
    }
    c->local = rig->local_count ? (cna_mat4 *)carve(k, rig->local_count, sizeof(cna_mat4)) : NULL;
    c->absolute = (cna_mat4 *)carve(k, rig->absolute_count, sizeof(cna_mat4));
    c->local_of = (const cna_mat4 **)carve(k, n, sizeof(cna_mat4 *));
    c->absolute_of = (const cna_mat4 **)carve(k, n, sizeof(cna_mat4 *));
    c->node_cursor = (size_t *)carve(k, rig->node_tracks, sizeof(size_t));
    const size_t flat = rig->part_first[m->mesh_count];
    c->parts = (morph_part *)carve(k, flat, sizeof(morph_part));
    for (size_t i = 0; i < rig->split_count; i++) {
        const cna_model_part *p = &m->meshes[rig->split[i].mesh].parts[rig->split[i].part];
        cna_mat4 *palette = (cna_mat4 *)carve(k, p->palette_map_count, sizeof(cna_mat4));
        if (k->base) c->parts[rig->part_first[rig->split[i].mesh] + rig->split[i].part].palette = palette;
    }
    c->scratch = (float *)carve(k, rig->scratch_count, sizeof(float));
    if (!k->base) return;
    for (size_t b = 0; b < n; b++)
        if (rig->local_slot[b] >= 0) c->local[rig->local_slot[b]] = m->bones[b].rest_transform;
    if (rig->absolute_count) memcpy(c->absolute, rig->absolute, rig->absolute_count * sizeof(cna_mat4));
}

/* The character's state from its rig: one block, the players, the morph
 * instances. */
static cna_result from_rig(cna_character *c, const cna__rig *rig, cna_error *err)
{
    const cna_model *m = c->model;
    carver k = {NULL, 0};
    lay_out(&k, c, rig);
    c->block = cna__calloc(&c->alloc, 1, k.at ? k.at : 1);
    if (!c->block) return CNA_ERROR_OUT_OF_MEMORY;
    c->bytes += k.at;
    c->rig = rig;
    k.base = (char *)c->block;
    k.at = 0;
    lay_out(&k, c, rig);
    c->eval_count = rig->eval_count;
    c->variant_count = rig->variant_count;
    c->skin_variant = rig->skin_variant;
    c->local_slot = rig->local_slot;
    c->absolute_slot = rig->absolute_slot;
    c->dynamic = rig->dynamic;
    c->dynamic_count = rig->dynamic_count;
    c->reset = rig->reset;
    c->reset_count = rig->reset_count;
    c->part_first = rig->part_first;
    c->morphed = rig->morphed;
    c->morphed_count = rig->morphed_count;
    c->split = rig->split;
    c->split_count = rig->split_count;
    for (size_t i = 0; i < rig->morphed_count; i++) {
        const size_t mesh = rig->morphed[i].mesh, part = rig->morphed[i].part;
        const cna_morph_target_data *md = m->meshes[mesh].parts[part].morph;
        morph_part *mp = &c->parts[rig->part_first[mesh] + part];
        cna_error inner;
        cna_result r = cna_morph_instance_create(md, &c->alloc, &mp->instance, &inner);
        if (r != CNA_OK) {
            if (r == CNA_ERROR_OUT_OF_MEMORY) return r;
            return cna__error(err, r, "meshes[%zu].parts[%zu]: %s", mesh, part, inner.message);
        }
        c->bytes += 64 + md->target_count * sizeof(float) + md->base_size;
        mp->revision = 1;
    }
    for (size_t e = 0; e < c->eval_count; e++) {
        evaluation *ev = &c->evals[e];
        ev->player = NULL;
    }
    for (size_t e = 0; e < c->eval_count; e++) {
        evaluation *ev = &c->evals[e];
        const cna_skinning_data *d = &m->skins[ev->skin].data;
        cna_result r = cna__player_create_checked(d, &c->alloc, rig->track_capacity[e], &ev->player, NULL);
        if (r != CNA_OK) return r;
        if (c->fast) cna_player_set_sampling(ev->player, CNA_SAMPLING_FAST, NULL);
        c->bytes += cna__player_size_bytes(ev->player);
        const variant *own = &c->variants[ev->own_variant];
        if (own->moving) cna_player_set_root_prefix(ev->player, own->prefix, m->skins[ev->skin].joint_count, NULL);
    }
    bind_locals(c);
    bind_absolutes(c);
    return CNA_OK;
}

cna_result cna_character_create(const cna_model *model, const cna_character_options *opts,
                                cna_character **out, cna_error *err)
{
    if (!model || !out)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "character: %s is NULL", model ? "out" : "model");
    cna_allocator al = cna__allocator_resolve(opts ? &opts->allocator : NULL);
    if (opts && ((int)opts->sampling < 0 || opts->sampling >= CNA_SAMPLING_COUNT))
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "character: sampling %d is not a cna_sampling",
                          (int)opts->sampling);
    if (opts && opts->layer_count > CNA_CHARACTER_MAX_LAYERS)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "character: layer_count %zu is above %d", opts->layer_count,
                          CNA_CHARACTER_MAX_LAYERS);
    const cna__rig *rig = NULL;
    cna__rig *own = NULL;
    cna_result r = rig_of(model, &al, &rig, &own, err);
    if (r != CNA_OK) return r;
    cna_character *c = (cna_character *)cna__calloc(&al, 1, sizeof *c);
    if (!c) {
        cna__free(&al, own);
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "character: out of memory");
    }
    c->alloc = al;
    c->model = model;
    c->bytes = sizeof *c;
    c->fast = opts && opts->sampling == CNA_SAMPLING_FAST;
    c->own_rig = own;
    if (own) c->bytes += own->bytes;
    r = from_rig(c, rig, err);
    if (r == CNA_OK) r = cna__layers_create(c, opts && opts->layer_count ? opts->layer_count : 2);
    if (r == CNA_ERROR_OUT_OF_MEMORY) return oom(c, err);
    if (r != CNA_OK) {
        cna_character_free(c);
        return r;
    }
    /* The rest pose: bind-pose palettes, joints' bind locals in the bones. */
    if ((r = cna_character_pose(c, err)) != CNA_OK) {
        cna_character_free(c);
        return r;
    }
    c->owner = cna__model_retain(model); /* an atomic count: no allocation, nothing the pose reads */
    *out = c;
    return CNA_OK;
}

const cna_model *cna_character_model(const cna_character *c) { return c ? c->model : NULL; }

size_t cna_character_size_bytes(const cna_character *c) { return c ? c->bytes : 0; }

/* ------------------------------------------------------------------ the clock (layer 0) */

cna_result cna_character_play(cna_character *c, long animation, cna_error *err)
{
    if (!c) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "character: character is NULL");
    return cna__layer_play(c, 0, animation, err);
}

long cna_character_animation(const cna_character *c) { return c ? c->layers[0].animation : -1; }
int64_t cna_character_duration(const cna_character *c) { return c ? c->layers[0].clock.duration : 0; }

cna_result cna_character_set_loop_mode(cna_character *c, cna_loop_mode mode, cna_error *err)
{
    if (!c) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "character: character is NULL");
    return cna_character_layer_set_loop_mode(c, 0, mode, err);
}

cna_loop_mode cna_character_loop_mode(const cna_character *c)
{
    return c ? c->layers[0].clock.mode : CNA_LOOP_MODE_REPEAT;
}

cna_result cna_character_set_time_scale(cna_character *c, double scale, cna_error *err)
{
    if (!c) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "character: character is NULL");
    return cna_character_layer_set_time_scale(c, 0, scale, err);
}

double cna_character_time_scale(const cna_character *c) { return c ? c->layers[0].clock.scale : 1.0; }

cna_result cna__character_check_advance(const cna_character *c, double seconds, cna_error *err)
{
    if (!c) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "character: character is NULL");
    const cna_result busy = cna__character_busy(c, err);
    if (busy != CNA_OK) return busy;
    for (size_t l = 0; l < c->layer_count; l++) {
        const double scale = c->layers[l].clock.scale;
        if (!isfinite(seconds * scale)) {
            if (l == 0)
                return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "advance: %g s at time scale %g is not finite",
                                  seconds, scale);
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                              "advance: %g s at layer %zu's time scale %g is not finite", seconds, l, scale);
        }
    }
    return CNA_OK;
}

cna_result cna_character_advance(cna_character *c, double seconds, cna_error *err)
{
    cna_result r = cna__character_check_advance(c, seconds, err);
    if (r != CNA_OK) return r;
    cna__layers_advance(c, seconds, true, 0);
    return CNA_OK;
}

cna_result cna_character_advance_ticks(cna_character *c, int64_t ticks, cna_error *err)
{
    if (!c) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "character: character is NULL");
    const cna_result r = cna__character_busy(c, err);
    if (r != CNA_OK) return r;
    cna__layers_advance(c, 0.0, false, ticks);
    return CNA_OK;
}

cna_result cna_character_seek(cna_character *c, double seconds, cna_error *err)
{
    if (!c) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "character: character is NULL");
    return cna_character_layer_seek(c, 0, seconds, err);
}

cna_result cna_character_seek_ticks(cna_character *c, int64_t ticks, cna_error *err)
{
    if (!c) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "character: character is NULL");
    return cna_character_layer_seek_ticks(c, 0, ticks, err);
}

int64_t cna_character_position(const cna_character *c) { return c ? c->layers[0].clock.position : 0; }
double cna_character_time(const cna_character *c)
{
    return c ? cna_ticks_to_seconds(c->layers[0].clock.position) : 0.0;
}

/* ------------------------------------------------------------------ posing */

/* Write an evaluation's joint locals into the bones:
 *   local[bone(p)] = local[p]                     fold[p] = I
 *   local[bone(p)] = inverse(fold[p]) · local[p]  otherwise (the folded nodes keep
 *                                                 their rest transforms as bones)
 *   local[bone(p)] = inverse(F) · local[p]        a fold whose bones move, with
 *                    F = local[cm] · ... · local[c1] posed now (the player's local
 *                    composes their motion; a singular F writes local[p]) */
static void write_joints(cna_character *c, const evaluation *ev)
{
    if (!ev->unfold_count) return; /* the other joints are read from the player itself */
    const cna_mat4 *locals = cna_player_bone_transforms(ev->player);
    for (size_t i = 0; i < ev->write_count; i++) {
        const joint_write *w = &ev->writes[i];
        if (w->unfold < 0) continue;
        if (w->chain_count > 0) {
            const int32_t *chain = ev->chain + w->chain_first;
            cna_mat4 f = *c->local_of[chain[0]], next;
            for (int32_t k = 1; k < w->chain_count; k++) {
                cna_mat4_mul(&next, c->local_of[chain[k]], &f);
                f = next;
            }
            if (!cna_mat4_inverse(&ev->unfold[w->unfold], &f)) {
                *cna__character_local(c, w->bone) = locals[w->palette];
                continue;
            }
        }
        cna_mat4_mul(cna__character_local(c, w->bone), &ev->unfold[w->unfold], &locals[w->palette]);
    }
}

/* The moving prefixes of a variant from the current absolute transforms:
 *   prefix[root] = inverse(absolute[mesh_node]) · absolute[parent(root)]
 *   prefix[root] = inverse(absolute[mesh_node])     a root joint that is a scene root
 * (a singular mesh node leaves its cancellation out, as the import does). */
static void moving_prefix(cna_character *c, variant *va)
{
    const cna_model *m = c->model;
    const cna_model_skin *s = &m->skins[va->skin];
    cna_mat4 inv;
    if (!cna_mat4_inverse(&inv, c->absolute_of[s->mesh_node])) cna_mat4_identity(&inv);
    for (size_t r = 0; r < s->root_count; r++) {
        const int32_t p = s->roots[r];
        const int32_t bone = s->palette_to_node[p];
        if (bone < 0) continue;
        const int32_t parent = m->bones[bone].parent;
        if (parent >= 0)
            cna_mat4_mul(&va->prefix[p], &inv, c->absolute_of[parent]);
        else
            va->prefix[p] = inv;
    }
}

/* A variant's worlds and palette from its evaluation's local transforms,
 * with the products of the player (cna_mat4_mul, the same bits):
 *   world[p] = world[parent] · local[p]; world[root] = prefix[root] · local[root];
 *   skin[p] = world[p] · inverse_bind[p] */
static void compose_variant(cna_character *c, variant *va, const cna_mat4 *locals)
{
    const cna_skinning_data *d = &c->model->skins[va->skin].data;
    const cna_mat4 *prefix = va->prefix;
    if (!prefix && d->root_prefix_count == (size_t)d->bone_count && d->bone_count > 0) prefix = d->root_prefix;
    for (int32_t p = 0; p < d->bone_count; p++) {
        const int32_t parent = d->hierarchy[p];
        if (parent >= 0)
            cna_mat4_mul(&va->world[p], &va->world[parent], &locals[p]);
        else if (prefix)
            cna_mat4_mul(&va->world[p], &prefix[p], &locals[p]);
        else
            va->world[p] = locals[p];
        cna_mat4_mul(&va->skin_m[p], &va->world[p], &d->inverse_bind_pose[p]);
    }
}

static cna_result pose_weights(cna_character *c, size_t mesh, size_t part, bool single, cna_error *err)
{
    const cna_model *m = c->model;
    const cna_model_part *p = &m->meshes[mesh].parts[part];
    const cna_morph_target_data *md = p->morph;
    morph_part *mp = &c->parts[c->part_first[mesh] + part];
    const cna__layer *l0 = &c->layers[0];
    const long anim = l0->animation;
    size_t n = md->target_count;
    if (!single) {
        cna_result r = cna__blend_weights(c, mesh, part, c->scratch, err);
        if (r != CNA_OK) return r;
    } else if (anim >= 0 && (size_t)anim < p->weight_track_count && p->weight_tracks && p->weight_tracks[anim] &&
        p->weight_tracks[anim]->key_count > 0) {
        const double t = l0->clock.seek_exact ? l0->clock.seek_seconds : cna_ticks_to_seconds(l0->clock.position);
        cna_result r = cna_morph_evaluate_weights(p->weight_tracks[anim], t,
                                                  c->scratch, md->target_count, &n, err);
        if (r != CNA_OK) return r;
        if (n != md->target_count)
            return cna__error(err, CNA_ERROR_INVALID_DATA,
                              "meshes[%zu].parts[%zu]: weight track %ld gives %zu weights for %zu targets", mesh,
                              part, anim, n, md->target_count);
    } else {
        for (size_t i = 0; i < n; i++)
            c->scratch[i] = md->initial_weights && i < md->initial_weight_count ? md->initial_weights[i] : 0.0f;
    }
    size_t have_n = 0;
    const float *have = cna_morph_instance_weights(mp->instance, &have_n);
    if (have && have_n == n && memcmp(have, c->scratch, n * sizeof(float)) == 0) return CNA_OK;
    cna_result r = cna_morph_set_weights(mp->instance, c->scratch, n, NULL, err);
    if (r == CNA_OK) mp->revision++;
    return r;
}

/* The player whose update is c's whole skeletal pose, when there is one:
 * a single layer (cna__layers_single, or no blend set up), one evaluation,
 * its prefix not moving; NULL otherwise.
 * *position: the position that update takes it to (absolute, clamped). */
cna_player *cna__character_lane_player(cna_character *c, int64_t *position)
{
    if (c->eval_count != 1 || c->evals[0].own_moving) return NULL;
    if (!(cna__layers_single(c) || !c->blend.ready)) return NULL;
    *position = c->layers[0].clock.position;
    return c->evals[0].player;
}

/* cna_character_pose; with player_done, the lane player (above) has
 * already been advanced to its position (the crowd's lanes do it), which
 * is the same: without a moving prefix that update reads nothing the
 * steps before it write. */
static cna_result pose(cna_character *c, bool player_done, cna_error *err)
{
    const cna_model *m = c->model;
    const cna_model_bone *bones = m->bones;
    cna_result r;
    /* 1. rest (every bone, after cna_character_apply_clip_to_bones moved any) */
    if (c->locals_dirty) {
        for (size_t b = 0; b < m->bone_count; b++)
            if (c->local_slot[b] >= 0) c->local[c->local_slot[b]] = bones[b].rest_transform;
        bind_locals(c);
        bind_absolutes(c);
        absolutes_own(c); /* apply_clip_to_bones wrote them too */
        c->locals_dirty = false;
    } else {
        for (size_t i = 0; i < c->reset_count; i++) *cna__character_local(c, c->reset[i]) = bones[c->reset[i]].rest_transform;
    }
    const bool single = cna__layers_single(c) || !c->blend.ready; /* the blending state exists once a blend was set up */
    const int64_t position = c->layers[0].clock.position;
    /* the players' skeletons are the model's, checked once when its rig was
     * built: the model is immutable, so no pose checks them again */
    /* 2. the scene-node clip (spec: ApplyClipToBonesEXT at the position) */
    if (!single) {
        cna__blend_nodes(c);
    } else if (c->layers[0].animation >= 0 && m->node_clips) {
        const cna_clip *clip = &m->node_clips[c->layers[0].animation];
        for (size_t i = 0; clip->tracks && i < clip->track_count; i++) {
            const cna_bone_track *track = &clip->tracks[i];
            if (!track->keys || track->key_count == 0) continue;
            if (track->bone < 0 || (size_t)track->bone >= m->bone_count) continue;
            cna_keyframe k;
            cna_track_sample(track, position, &c->node_cursor[i], &k);
            cna_mat4_compose(cna__character_local(c, track->bone), k.translation, k.rotation, k.scale);
        }
    }
    /* 3. the skeletons; absolute transforms are brought up to date before a
     *    moving prefix reads them */
    bool stale = true;
    for (size_t e = 0; e < c->eval_count; e++) {
        evaluation *ev = &c->evals[e];
        variant *own = &c->variants[ev->own_variant];
        if (ev->own_moving && !ev->self_dependent) {
            if (stale) {
                absolutes_of(c, c->dynamic, c->dynamic_count);
                stale = false;
            }
            moving_prefix(c, own);
        }
        if (!single)
            cna__blend_evaluation(c, e);
        else if (!player_done)
            cna__player_advance(ev->player, position, false, false);
        write_joints(c, ev);
        stale = true;
        if (ev->own_moving && ev->self_dependent) {
            /* the prefix reads this skeleton's own joints: pose, read, pose again */
            absolutes_of(c, c->dynamic, c->dynamic_count);
            moving_prefix(c, own);
            if (single)
                cna__player_advance(ev->player, position, false, false);
            else
                cna__blend_evaluation(c, e);
        }
        for (size_t v = 0; v < c->variant_count; v++) {
            variant *va = &c->variants[v];
            if (va->eval != e || va->own) continue;
            if (va->moving) {
                if (stale) {
                    absolutes_of(c, c->dynamic, c->dynamic_count);
                    stale = false;
                }
                moving_prefix(c, va);
            }
            compose_variant(c, va, cna_player_bone_transforms(ev->player));
        }
    }
    /* 4. absolute transforms */
    if (stale) absolutes_of(c, c->dynamic, c->dynamic_count);
    /* 5. palettes: the players' and the variants' outputs; each split part's
     * sub-palette gathered from its skin's: sub[i] = skin[palette_map[i]]. 6. morph weights */
    for (size_t i = 0; i < c->split_count; i++) {
        const cna_model_mesh *mesh = &m->meshes[c->split[i].mesh];
        const cna_model_part *p = &mesh->parts[c->split[i].part];
        const cna_mat4 *skin = cna_character_skin_transforms(c, (size_t)mesh->skin);
        cna_mat4 *sub = c->parts[c->part_first[c->split[i].mesh] + c->split[i].part].palette;
        for (size_t e = 0; e < p->palette_map_count; e++) sub[e] = skin[p->palette_map[e]];
    }
    for (size_t i = 0; i < c->morphed_count; i++)
        if ((r = pose_weights(c, c->morphed[i].mesh, c->morphed[i].part, single, err)) != CNA_OK) return r;
    /* 7. the pose edit, when the character has one */
    if (c->editor) return c->editor(c, c->editor_user, err);
    return CNA_OK;
}

cna_result cna_character_pose(cna_character *c, cna_error *err)
{
    if (!c) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "character: character is NULL");
    const cna_result r = cna__character_busy(c, err);
    return r != CNA_OK ? r : pose(c, false, err);
}

cna_result cna__character_pose_after_lanes(cna_character *c, cna_error *err) { return pose(c, true, err); }

cna_result cna_character_update(cna_character *c, double seconds, cna_error *err)
{
    cna_result r = cna_character_advance(c, seconds, err);
    return r != CNA_OK ? r : cna_character_pose(c, err);
}

/* ------------------------------------------------------------------ outputs */

const cna_mat4 *cna_character_bone_transform(const cna_character *c, size_t bone)
{
    return c && bone < c->model->bone_count ? c->local_of[bone] : NULL;
}
const cna_mat4 *cna_character_absolute_transform(const cna_character *c, size_t bone)
{
    return c && bone < c->model->bone_count ? c->absolute_of[bone] : NULL;
}

cna_result cna_character_copy_absolute_transforms(const cna_character *c, cna_mat4 *out, size_t count,
                                                  cna_error *err)
{
    if (!c || !out)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "copy_absolute_transforms: NULL %s",
                          c ? "out" : "character");
    const size_t n = c->model->bone_count;
    if (count < n)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "copy_absolute_transforms: count %zu is below bone_count %zu", count, n);
    for (size_t b = 0; b < n; b++) out[b] = *c->absolute_of[b];
    return CNA_OK;
}

static const variant *variant_of(const cna_character *c, size_t skin)
{
    return c && skin < c->model->skin_count ? &c->variants[c->skin_variant[skin]] : NULL;
}

const cna_mat4 *cna_character_skin_transforms(const cna_character *c, size_t skin)
{
    const variant *va = variant_of(c, skin);
    if (!va) return NULL;
    return va->own ? cna_player_skin_transforms(c->evals[va->eval].player) : va->skin_m;
}

const cna_mat4 *cna_character_world_transforms(const cna_character *c, size_t skin)
{
    const variant *va = variant_of(c, skin);
    if (!va) return NULL;
    return va->own ? cna_player_world_transforms(c->evals[va->eval].player) : va->world;
}

const cna_mat4 *cna_character_root_prefixes(const cna_character *c, size_t skin)
{
    const variant *va = variant_of(c, skin);
    if (!va) return NULL;
    return va->moving ? va->prefix : c->model->skins[skin].data.root_prefix;
}

bool cna_character_skin_has_moving_prefix(const cna_character *c, size_t skin)
{
    const variant *va = variant_of(c, skin);
    return va && va->moving;
}

static const morph_part *part_of(const cna_character *c, size_t mesh, size_t part)
{
    if (!c || mesh >= c->model->mesh_count || part >= c->model->meshes[mesh].part_count) return NULL;
    return &c->parts[c->part_first[mesh] + part];
}

const float *cna_character_morph_weights(const cna_character *c, size_t mesh, size_t part, size_t *count)
{
    if (count) *count = 0;
    const morph_part *mp = part_of(c, mesh, part);
    if (!mp || !mp->instance) return NULL;
    return cna_morph_instance_weights(mp->instance, count);
}

const void *cna_character_part_vertices(const cna_character *c, size_t mesh, size_t part, size_t *size)
{
    if (size) *size = 0;
    const morph_part *mp = part_of(c, mesh, part);
    if (!mp) return NULL;
    if (mp->instance) return cna_morph_instance_vertices(mp->instance, size);
    const cna_model_part *p = &c->model->meshes[mesh].parts[part];
    if (size) *size = p->vertex_count * p->declaration.stride;
    return p->vertices;
}

const cna_mat4 *cna_character_part_palette(const cna_character *c, size_t mesh, size_t part, size_t *count)
{
    if (count) *count = 0;
    const morph_part *mp = part_of(c, mesh, part);
    const cna_model_mesh *me = mp ? &c->model->meshes[mesh] : NULL;
    if (!mp || me->skin < 0 || (size_t)me->skin >= c->model->skin_count) return NULL;
    if (mp->palette) {
        if (count) *count = me->parts[part].palette_map_count;
        return mp->palette;
    }
    if (count) *count = c->model->skins[me->skin].joint_count;
    return cna_character_skin_transforms(c, (size_t)me->skin);
}

uint64_t cna_character_part_revision(const cna_character *c, size_t mesh, size_t part)
{
    const morph_part *mp = part_of(c, mesh, part);
    return mp && mp->instance ? mp->revision : 0;
}

/* ------------------------------------------------------------------ the spec's operations */

cna_result cna_character_set_morph_weights(cna_character *c, size_t mesh, size_t part, const float *weights,
                                           size_t count, cna_error *err)
{
    if (!c) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "character: character is NULL");
    const cna_result busy = cna__character_busy(c, err);
    if (busy != CNA_OK) return busy;
    const cna_model *m = c->model;
    if (mesh >= m->mesh_count)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "meshes[%zu]: outside the model's %zu meshes", mesh,
                          m->mesh_count);
    if (part >= m->meshes[mesh].part_count)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "meshes[%zu].parts[%zu]: the mesh has %zu parts", mesh,
                          part, m->meshes[mesh].part_count);
    morph_part *mp = &c->parts[c->part_first[mesh] + part];
    if (!mp->instance)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "meshes[%zu] \"%s\".parts[%zu]: no morph targets", mesh,
                          m->meshes[mesh].name ? m->meshes[mesh].name : "", part);
    size_t have_n = 0;
    const float *have = cna_morph_instance_weights(mp->instance, &have_n);
    if (weights && have && have_n == count && memcmp(have, weights, count * sizeof(float)) == 0) return CNA_OK;
    cna_result r = cna_morph_set_weights(mp->instance, weights, count, NULL, err);
    if (r == CNA_OK) mp->revision++;
    return r;
}

cna_result cna_character_apply_clip_to_bones(cna_character *c, const cna_clip *clip, double seconds, cna_error *err)
{
    if (!c || !clip)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "apply_clip_to_bones: NULL %s", c ? "clip" : "character");
    const cna_result busy = cna__character_busy(c, err);
    if (busy != CNA_OK) return busy;
    const cna_model *m = c->model;
    const char *name = clip->name ? clip->name : "";
    if (clip->target != CNA_CLIP_TARGET_SCENE_NODE)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "clip \"%s\": target %s is not a scene-node clip; play it with a cna_player", name,
                          cna_clip_target_name(clip->target));
    if (isnan(seconds)) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "clip \"%s\": seconds is NaN", name);
    if (!clip->tracks && clip->track_count > 0)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "clip \"%s\": tracks NULL with track_count %zu", name,
                          clip->track_count);
    if (!c->applied) { /* any bone may be written: a transform of its own for each, once */
        c->applied = (cna_mat4 *)cna__calloc(&c->alloc, m->bone_count ? m->bone_count : 1, sizeof(cna_mat4));
        if (!c->applied)
            return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "clip \"%s\": out of memory for %zu bones' transforms",
                              name, m->bone_count);
        c->bytes += (m->bone_count ? m->bone_count : 1) * sizeof(cna_mat4);
    }
    int64_t t = cna_ticks_from_seconds(seconds);
    const int64_t duration = clip->duration > 0 ? clip->duration : 0;
    if (t < 0) t = 0;
    if (t > duration) t = duration;
    for (size_t i = 0; i < clip->track_count; i++) {
        const cna_bone_track *track = &clip->tracks[i];
        if (!track->keys || track->key_count == 0) continue;
        if (track->bone < 0 || (size_t)track->bone >= m->bone_count) continue;
        cna_keyframe k;
        cna_track_sample_linear(track, t, &k);
        cna_mat4_compose(&c->applied[track->bone], k.translation, k.rotation, k.scale);
        c->local_of[track->bone] = &c->applied[track->bone];
    }
    /* A joint without an absolute slot keeps the local the clip set where it
     * reads its local, in its player's local transforms (the last skeleton
     * that poses it; the next pose computes them again), so that applied[b]
     * holds its absolute transform. */
    for (size_t e = c->eval_count; e-- > 0;) {
        cna_mat4 *locals = cna__player_locals(c->evals[e].player);
        for (size_t i = 0; i < c->evals[e].write_count; i++) {
            const joint_write *w = &c->evals[e].writes[i];
            if (w->unfold >= 0 || c->absolute_slot[w->bone] >= 0 || c->local_of[w->bone] != &c->applied[w->bone])
                continue;
            locals[w->palette] = c->applied[w->bone];
            c->local_of[w->bone] = &locals[w->palette];
        }
    }
    /* every bone's absolute: absolute[b] = absolute[parent] · local[b] */
    for (size_t b = 0; b < m->bone_count; b++) {
        cna_mat4 *out = c->absolute_slot[b] >= 0 ? &c->absolute[c->absolute_slot[b]] : &c->applied[b];
        absolute_into(c, out, (int32_t)b, m->bones[b].parent);
        c->absolute_of[b] = out;
    }
    c->locals_dirty = true;
    return CNA_OK;
}
