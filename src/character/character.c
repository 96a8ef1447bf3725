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
void cna__character_absolutes_own(cna_character *c)
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
void cna__character_bind_locals(cna_character *c)
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

/* Where each bone's absolute transform is, as alias_absolutes decided at
 * creation: its slot, or the world of the last skeleton that poses it. */
void cna__character_bind_absolutes(cna_character *c)
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

/* A character's arrays from its rig: the pieces of its one block (k->base
 * NULL: measuring). */
static void lay_out(cna__carver *k, cna_character *c, const cna__rig *rig)
{
    const cna_model *m = c->model;
    const size_t n = m->bone_count;
    c->evals = (evaluation *)cna__carve(k, rig->eval_count, sizeof(evaluation));
    for (size_t e = 0; e < rig->eval_count; e++) {
        cna_mat4 *unfold = (cna_mat4 *)cna__carve(k, rig->evals[e].unfold_count, sizeof(cna_mat4));
        if (!k->base) continue;
        c->evals[e] = rig->evals[e];
        c->evals[e].unfold = rig->evals[e].unfold_count ? unfold : NULL;
        if (rig->evals[e].unfold_count)
            memcpy(unfold, rig->evals[e].unfold, rig->evals[e].unfold_count * sizeof(cna_mat4));
    }
    c->variants = (variant *)cna__carve(k, rig->variant_count, sizeof(variant));
    for (size_t v = 0; v < rig->variant_count; v++) {
        const variant *rv = &rig->variants[v];
        const size_t jc = m->skins[rv->skin].joint_count;
        cna_mat4 *prefix = rv->moving ? (cna_mat4 *)cna__carve(k, jc, sizeof(cna_mat4)) : NULL;
        cna_mat4 *world = !rv->own ? (cna_mat4 *)cna__carve(k, jc, sizeof(cna_mat4)) : NULL;
        cna_mat4 *skin_m = !rv->own ? (cna_mat4 *)cna__carve(k, jc, sizeof(cna_mat4)) : NULL;
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
    c->local = rig->local_count ? (cna_mat4 *)cna__carve(k, rig->local_count, sizeof(cna_mat4)) : NULL;
    c->absolute = (cna_mat4 *)cna__carve(k, rig->absolute_count, sizeof(cna_mat4));
    c->local_of = (const cna_mat4 **)cna__carve(k, n, sizeof(cna_mat4 *));
    c->absolute_of = (const cna_mat4 **)cna__carve(k, n, sizeof(cna_mat4 *));
    c->node_cursor = (size_t *)cna__carve(k, rig->node_tracks, sizeof(size_t));
    const size_t flat = rig->part_first[m->mesh_count];
    c->parts = (morph_part *)cna__carve(k, flat, sizeof(morph_part));
    for (size_t i = 0; i < rig->split_count; i++) {
        const cna_model_part *p = &m->meshes[rig->split[i].mesh].parts[rig->split[i].part];
        cna_mat4 *palette = (cna_mat4 *)cna__carve(k, p->palette_map_count, sizeof(cna_mat4));
        if (k->base) c->parts[rig->part_first[rig->split[i].mesh] + rig->split[i].part].palette = palette;
    }
    c->scratch = (float *)cna__carve(k, rig->scratch_count, sizeof(float));
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
    cna__carver k = {NULL, 0};
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
    cna__character_bind_locals(c);
    cna__character_bind_absolutes(c);
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
    cna_result r = cna__rig_of(model, &al, &rig, &own, err);
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
        cna__character_bind_locals(c);
        cna__character_bind_absolutes(c);
        cna__character_absolutes_own(c); /* apply_clip_to_bones wrote them too */
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
