/*
 * The pose-edit stage (include/cna/character.h, "pose edit"): joints'
 * local transforms written after a pose, and the subtree under each edited
 * joint brought up to date, in bone index order (parents first):
 *   absolute[b] = absolute[parent] · local[b]        bones with an absolute slot
 *   world[p] = world[parent] · local[p]               joints (each skeleton posing b)
 *   world[root] = prefix[root] · local[root]
 *   prefix[root] = inverse(absolute[mesh_node]) · absolute[parent(root)]   moving prefixes
 *   skin[p] = world[p] · inverse_bind[p]
 * A joint whose absolute is its player's world (alias_absolutes in
 * character.c) gets it from the world product, which is the same product.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "anim/anim_internal.h"
#include "character/character_internal.h"
#include "cna/character.h"
#include "core/internal.h"
#include "core/simd.h"
#if CNA__SIMD_SSE2
#include <emmintrin.h>
#endif

void cna__edit_free(cna_character *c) { cna__free(&c->alloc, c->edit_affected); }

/* The edit's storage, one block (c->edit_affected points at its start):
 *   edit_state   the joints last asked for by name: the caller's string (its
 *                address) and the bone it names, so that an edit called every
 *                frame with the same name compares one string instead of
 *                searching the bones; the last bone the next refresh visits;
 *                and whether the character is "plain" (below)
 *   end[n]       the last bone of each bone's subtree (bones are parents first)
 *   joint[n]     a plain character's joint of each bone (-1: none)
 *   marks[n]     the bones whose transforms the next refresh recomputes
 *   editable[n]  1 where check_joint's lasting conditions hold (every one but
 *                locals_dirty), found once here rather than at every call
 * A plain character has one skeleton, posed into its player's own palette
 * (one evaluation, one variant, not moving, no folded nodes): a joint's
 * edit writes the player's local only, and the refresh computes the
 * player's world and palette entry. */
enum { NAME_SLOTS = 8 };
typedef struct edit_state {
    const char *name[NAME_SLOTS];
    int32_t bone[NAME_SLOTS];
    unsigned next;
    bool plain;
    size_t last; /* the last bone to visit; meaningful while edit_first < bone_count */
} edit_state;

static edit_state *state_of(const cna_character *c) { return (edit_state *)(void *)c->edit_affected; }
static int32_t *ends_of(const cna_character *c) { return (int32_t *)(void *)(c->edit_affected + sizeof(edit_state)); }
static int32_t *joints_of(const cna_character *c) { return ends_of(c) + c->model->bone_count; }
static uint8_t *marks_of(const cna_character *c)
{
    return c->edit_affected + sizeof(edit_state) + c->model->bone_count * 2 * sizeof(int32_t);
}
static uint8_t *editable_of(const cna_character *c) { return marks_of(c) + c->model->bone_count; }

static int32_t palette_of(const cna_character *c, size_t e, size_t bone);
static cna_result check_lasting(const cna_character *c, size_t bone, cna_error *err);

/* Whether the character is plain (above). */
static bool plain(const cna_character *c)
{
    if (c->eval_count != 1 || c->variant_count != 1) return false;
    const variant *va = &c->variants[0];
    if (!va->own || va->moving || va->eval != 0 || c->evals[0].own_variant != 0) return false;
    const cna_model_skin *s = &c->model->skins[c->evals[0].skin];
    for (size_t p = 0; s->fold && p < s->joint_count; p++)
        if (!cna_mat4_is_identity(&s->fold[p])) return false;
    return true;
}

static cna_result ensure(cna_character *c, cna_error *err)
{
    if (c->edit_affected) return CNA_OK;
    const cna_model *m = c->model;
    const size_t n = m->bone_count;
    /* in 8-byte units, so that the allocator aligns the block for edit_state */
    const size_t bytes = sizeof(edit_state) + n * (2 * sizeof(int32_t) + 2);
    uint8_t *block = (uint8_t *)cna__character_take(c, (bytes + 7) / 8, 8);
    if (!block) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "pose edit: out of memory for %zu bones", n);
    memset(block, 0, sizeof(edit_state));
    c->edit_affected = block;
    int32_t *end = ends_of(c), *joint = joints_of(c);
    uint8_t *marks = marks_of(c), *editable = editable_of(c);
    bool parents_first = true;
    for (size_t b = 0; b < n; b++) {
        end[b] = (int32_t)b;
        if (m->bones[b].parent >= (int32_t)b) parents_first = false;
    }
    for (size_t b = n; b-- > 0;) {
        const int32_t p = m->bones[b].parent;
        if (p >= 0 && end[b] > end[p]) end[p] = end[b];
    }
    if (!parents_first) /* not expected of a model; then every refresh visits every bone after the first */
        for (size_t b = 0; b < n; b++) end[b] = (int32_t)n - 1;
    state_of(c)->plain = plain(c);
    for (size_t b = 0; b < n; b++) {
        joint[b] = state_of(c)->plain ? palette_of(c, 0, b) : -1;
        marks[b] = 0;
        editable[b] = check_lasting(c, b, NULL) == CNA_OK;
    }
    c->edit_first = n;
    return CNA_OK;
}

cna_result cna_character_set_pose_edit(cna_character *c, cna_pose_edit_fn fn, void *user, cna_error *err)
{
    if (cna__character_busy(c, err) != CNA_OK) return CNA_ERROR_INVALID_ARGUMENT;
    if (!c) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "character: character is NULL");
    if (fn) {
        cna_result r = ensure(c, err);
        if (r != CNA_OK) return r;
    }
    c->editor = fn;
    c->editor_user = fn ? user : NULL;
    return CNA_OK;
}

static const char *bone_name(const cna_model *m, size_t bone) { return m->bones[bone].name ? m->bones[bone].name : ""; }

static bool ancestor_or_self(const cna_model *m, int32_t ancestor, int32_t bone)
{
    for (int32_t b = bone; b >= 0; b = m->bones[b].parent)
        if (b == ancestor) return true;
    return false;
}

/* Joint p of evaluation e that is bone b, or -1. */
static int32_t palette_of(const cna_character *c, size_t e, size_t bone)
{
    const cna_model_skin *s = &c->model->skins[c->evals[e].skin];
    if (!s->node_to_palette || !s->palette_to_node) return -1;
    const int32_t p = s->node_to_palette[bone];
    return p >= 0 && (size_t)p < s->joint_count && s->palette_to_node[p] == (int32_t)bone ? p : -1;
}

/* Whether `bone` may be edited, as far as the character's lasting state
 * says: a joint of some evaluation, whose edit moves no skin's instancing
 * node apart from its skeleton (a fixed prefix reads the bones above a root
 * joint and the instancing node: an edit above one and not the other would
 * change it). */
static cna_result check_lasting(const cna_character *c, size_t bone, cna_error *err)
{
    const cna_model *m = c->model;
    bool joint = false;
    for (size_t e = 0; e < c->eval_count && !joint; e++) joint = palette_of(c, e, bone) >= 0;
    if (!joint)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "bone %zu \"%s\": not a joint of any skin; only joints can be edited", bone,
                          bone_name(m, bone));
    for (size_t v = 0; v < c->variant_count; v++) {
        const variant *va = &c->variants[v];
        const cna_model_skin *s = &m->skins[va->skin];
        const bool mesh_moves = ancestor_or_self(m, (int32_t)bone, s->mesh_node);
        for (size_t r = 0; r < s->root_count; r++) {
            const int32_t root = s->palette_to_node ? s->palette_to_node[s->roots[r]] : -1;
            if (root < 0) continue;
            const int32_t parent = m->bones[root].parent;
            const bool above_root = parent >= 0 && ancestor_or_self(m, (int32_t)bone, parent);
            if (va->moving ? mesh_moves : above_root != mesh_moves)
                return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                                  "bone %zu \"%s\": editing it would move skins[%d]'s instancing node apart from "
                                  "its skeleton",
                                  bone, bone_name(m, bone), (int)va->skin);
        }
    }
    return CNA_OK;
}

/* Whether `bone` may be edited: check_lasting (remembered once the edit's
 * storage exists), and the bones posed since the last apply_clip_to_bones. */
static cna_result check_joint(const cna_character *c, size_t bone, cna_error *err)
{
    const cna_model *m = c->model;
    if (bone >= m->bone_count)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "pose edit: bone %zu is outside the model's %zu bones",
                          bone, m->bone_count);
    if (c->locals_dirty)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "bone %zu \"%s\": apply_clip_to_bones moved the bones since the last pose; pose first",
                          bone, bone_name(m, bone));
    if (c->edit_affected && editable_of(c)[bone]) return CNA_OK;
    return check_lasting(c, bone, err);
}

/* Write joint `bone`'s local transform (no recompute): into each skeleton
 * that poses it (fold · local where its bind pose folds nodes in) and its
 * own local slot. */
static void write_local(cna_character *c, size_t bone, const cna_mat4 *local)
{
    const cna_model *m = c->model;
    edit_state *st = state_of(c);
    if (st->plain) {
        cna__player_locals(c->evals[0].player)[joints_of(c)[bone]] = *local; /* a plain joint has no fold */
    } else {
        for (size_t e = 0; e < c->eval_count; e++) {
            const int32_t p = palette_of(c, e, bone);
            if (p < 0) continue;
            const cna_model_skin *s = &m->skins[c->evals[e].skin];
            cna_mat4 *locals = cna__player_locals(c->evals[e].player);
            if (s->fold && !cna_mat4_is_identity(&s->fold[p]))
                cna_mat4_mul(&locals[p], &s->fold[p], local);
            else
                locals[p] = *local;
        }
    }
    if (c->local_slot[bone] >= 0) c->local[c->local_slot[bone]] = *local;
    marks_of(c)[bone] = 1;
    const size_t end = (size_t)ends_of(c)[bone];
    if (c->edit_first >= c->model->bone_count || end > st->last) st->last = end;
    if (bone < c->edit_first) c->edit_first = bone;
}

/* Whether m's last row is (±0, ±0, ±0, 1) (inverse binds often carry -0). */
static inline bool affine(const cna_mat4 *m)
{
    uint32_t w3, w7, w11, w15;
    memcpy(&w3, &m->m[3], 4);
    memcpy(&w7, &m->m[7], 4);
    memcpy(&w11, &m->m[11], 4);
    memcpy(&w15, &m->m[15], 4);
    return ((w3 | w7 | w11) & 0x7fffffffu) == 0 && w15 == 0x3f800000u;
}

/* out = a · b for affine a and b: column j of the product is
 * a0 · b0j + a1 · b1j + a2 · b2j (+ a3 for the last), added in that order,
 * in SSE2 lanes or one by one (the same bits). An affine product is affine
 * (its last row is (±0, ±0, ±0, 1)). */
static inline void mul_affine(cna_mat4 *restrict out, const cna_mat4 *restrict a, const cna_mat4 *restrict b)
{
#if CNA__SIMD_SSE2
    const __m128 a0 = _mm_loadu_ps(a->m), a1 = _mm_loadu_ps(a->m + 4), a2 = _mm_loadu_ps(a->m + 8),
                 a3 = _mm_loadu_ps(a->m + 12);
    for (int col = 0; col < 4; col++) {
        const __m128 bc = _mm_loadu_ps(b->m + col * 4);
        __m128 r = _mm_add_ps(_mm_add_ps(_mm_mul_ps(a0, _mm_shuffle_ps(bc, bc, 0x00)),
                                         _mm_mul_ps(a1, _mm_shuffle_ps(bc, bc, 0x55))),
                              _mm_mul_ps(a2, _mm_shuffle_ps(bc, bc, 0xaa)));
        if (col == 3) r = _mm_add_ps(r, a3);
        _mm_storeu_ps(out->m + col * 4, r);
    }
#else
    for (int col = 0; col < 4; col++) {
        const float b0 = b->m[col * 4], b1 = b->m[col * 4 + 1], b2 = b->m[col * 4 + 2];
        for (int row = 0; row < 4; row++) {
            float v = a->m[row] * b0 + a->m[4 + row] * b1 + a->m[8 + row] * b2;
            if (col == 3) v += a->m[12 + row];
            out->m[col * 4 + row] = v;
        }
    }
#endif
}

/* out = a · b: mul_affine for affine matrices (joints' transforms and,
 * nearly always, inverse binds), cna_mat4_mul for any other pair; returns
 * whether out is affine by that. out must not alias a or b. */
static inline bool mul(cna_mat4 *restrict out, const cna_mat4 *restrict a, const cna_mat4 *restrict b)
{
    if (!affine(a) || !affine(b)) {
        cna_mat4_mul(out, a, b);
        return false;
    }
    mul_affine(out, a, b);
    return true;
}

/* prefix[p] of root joint p (bone `bone`) from the current absolutes. */
static void root_prefix(const cna_character *c, const cna_model_skin *s, cna_mat4 *prefix, int32_t bone)
{
    cna_mat4 inv;
    if (!cna_mat4_inverse(&inv, c->absolute_of[s->mesh_node])) cna_mat4_identity(&inv);
    const int32_t parent = c->model->bones[bone].parent;
    if (parent >= 0)
        cna_mat4_mul(prefix, &inv, c->absolute_of[parent]);
    else
        *prefix = inv;
}

/* world[p] and skin[p] of joint p of one palette variant. */
static void joint_world(const cna_skinning_data *d, int32_t p, const cna_mat4 *prefix, const cna_mat4 *locals,
                        cna_mat4 *world, cna_mat4 *skin)
{
    const int32_t parent = d->hierarchy[p];
    bool known; /* world[p] is affine, as its product says */
    if (parent >= 0)
        known = mul(&world[p], &world[parent], &locals[p]);
    else if (prefix)
        known = mul(&world[p], &prefix[p], &locals[p]);
    else
        known = (world[p] = locals[p], false);
    if (known && affine(&d->inverse_bind_pose[p]))
        mul_affine(&skin[p], &world[p], &d->inverse_bind_pose[p]);
    else
        mul(&skin[p], &world[p], &d->inverse_bind_pose[p]);
}

/* Joint p (bone `bone`) of evaluation e: its worlds and palettes, in every
 * variant of the evaluation. */
static void refresh_joint(cna_character *c, size_t e, int32_t p, int32_t bone)
{
    const cna_model *m = c->model;
    evaluation *ev = &c->evals[e];
    const cna_mat4 *locals = cna__player_locals(ev->player);
    for (size_t v = 0; v < c->variant_count; v++) {
        variant *va = &c->variants[v];
        if (va->eval != e) continue;
        const cna_model_skin *s = &m->skins[va->skin];
        const cna_skinning_data *d = &s->data;
        if (va->moving && d->hierarchy[p] < 0) root_prefix(c, s, &va->prefix[p], bone);
        if (va->own) {
            joint_world(d, p, cna__player_prefix(ev->player), locals, cna__player_worlds(ev->player),
                        cna__player_skins(ev->player));
        } else {
            const cna_mat4 *prefix = va->prefix;
            if (!prefix && d->root_prefix_count == (size_t)d->bone_count && d->bone_count > 0)
                prefix = d->root_prefix;
            joint_world(d, p, prefix, locals, va->world, va->skin_m);
        }
    }
}

/* Recompute the subtrees of the marked bones, then clear the marks. */
static void refresh(cna_character *c)
{
    const cna_model *m = c->model;
    const size_t n = m->bone_count;
    if (c->edit_first >= n) return;
    uint8_t *affected = marks_of(c);
    const edit_state *st = state_of(c);
    const size_t last = st->last; /* the marked bones' subtrees end there */
    const int32_t *joint = joints_of(c);
    /* the plain character's one player: its arrays */
    const cna_skinning_data *data = st->plain ? &m->skins[c->evals[0].skin].data : NULL;
    cna_player *player = data ? c->evals[0].player : NULL;
    const cna_mat4 *prefix = player ? cna__player_prefix(player) : NULL, *locals = player ? cna__player_locals(player) : NULL;
    cna_mat4 *worlds = player ? cna__player_worlds(player) : NULL, *skins = player ? cna__player_skins(player) : NULL;
    bool any = false;
    for (size_t b = c->edit_first; b <= last; b++) {
        const int32_t parent = m->bones[b].parent;
        if (!affected[b] && !(parent >= 0 && (size_t)parent >= c->edit_first && affected[parent])) continue;
        affected[b] = 1;
        any = true;
        if (c->absolute_slot[b] >= 0) {
            cna_mat4 *out = &c->absolute[c->absolute_slot[b]];
            if (parent >= 0)
                mul(out, c->absolute_of[parent], c->local_of[b]);
            else
                *out = *c->local_of[b];
        }
        if (data) {
            if (joint[b] >= 0) joint_world(data, joint[b], prefix, locals, worlds, skins);
            continue;
        }
        for (size_t e = 0; e < c->eval_count; e++) {
            const int32_t p = palette_of(c, e, b);
            if (p >= 0) refresh_joint(c, e, p, (int32_t)b);
        }
    }
    if (any)
        for (size_t i = 0; i < c->split_count; i++) { /* sub[i] = skin[palette_map[i]] */
            const cna_model_mesh *mesh = &m->meshes[c->split[i].mesh];
            const cna_model_part *part = &mesh->parts[c->split[i].part];
            const cna_mat4 *skin = cna_character_skin_transforms(c, (size_t)mesh->skin);
            cna_mat4 *sub = c->parts[c->part_first[c->split[i].mesh] + c->split[i].part].palette;
            for (size_t k = 0; k < part->palette_map_count; k++) sub[k] = skin[part->palette_map[k]];
        }
    memset(affected + c->edit_first, 0, last + 1 - c->edit_first);
    c->edit_first = n;
}

static bool finite_matrix(const cna_mat4 *a)
{
    for (int i = 0; i < 16; i++)
        if (!isfinite(a->m[i])) return false;
    return true;
}

cna_result cna_character_set_joint_local(cna_character *c, size_t bone, const cna_mat4 *local, float weight,
                                         cna_error *err)
{
    if (cna__character_busy(c, err) != CNA_OK) return CNA_ERROR_INVALID_ARGUMENT;
    if (!c || !local)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "pose edit: %s is NULL", c ? "local" : "character");
    cna_result r = check_joint(c, bone, err);
    if (r != CNA_OK) return r;
    const char *name = bone_name(c->model, bone);
    if (!finite_matrix(local))
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "bone %zu \"%s\": the local transform is not finite",
                          bone, name);
    if (!(weight >= 0.0f && weight <= 1.0f))
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "bone %zu \"%s\": weight %g is outside 0..1", bone, name,
                          weight);
    if (weight == 0.0f) return CNA_OK;
    cna_mat4 value = *local;
    if (weight < 1.0f) {
        cna_vec3 t0, s0, t1, s1;
        cna_quat r0, r1;
        if (!cna_mat4_decompose(c->local_of[bone], &t0, &r0, &s0) || !cna_mat4_decompose(local, &t1, &r1, &s1))
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                              "bone %zu \"%s\": a local transform with a zero scale cannot be blended", bone, name);
        cna_mat4_compose(&value, cna_vec3_lerp(t0, t1, weight), cna_quat_normalize(cna_quat_slerp(r0, r1, weight)),
                         cna_vec3_lerp(s0, s1, weight));
    }
    if ((r = ensure(c, err)) != CNA_OK) return r;
    write_local(c, bone, &value);
    refresh(c);
    return CNA_OK;
}

static cna_result check_rotation(const cna_character *c, size_t bone, cna_quat q, cna_error *err)
{
    const char *name = bone_name(c->model, bone);
    if (!isfinite(q.x) || !isfinite(q.y) || !isfinite(q.z) || !isfinite(q.w))
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "bone %zu \"%s\": the correction is not finite", bone,
                          name);
    const double l = sqrt((double)q.x * q.x + (double)q.y * q.y + (double)q.z * q.z + (double)q.w * q.w);
    if (fabs(l - 1.0) > 1e-3)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "bone %zu \"%s\": the correction's length %g is not 1", bone, name, l);
    return CNA_OK;
}

/* local' = local · R(q), written (not refreshed); the identity writes nothing.
 * Only the 3x3 part changes (R has no translation): each of its columns is
 * local's 3x3 part times a column of R. */
static void rotate(cna_character *c, size_t bone, cna_quat q)
{
    if (q.x == 0.0f && q.y == 0.0f && q.z == 0.0f && (q.w == 1.0f || q.w == -1.0f)) return;
    const float x = q.x, y = q.y, z = q.z, w = q.w;
    const float xx = x * x, yy = y * y, zz = z * z, xy = x * y, xz = x * z, yz = y * z, wx = w * x, wy = w * y,
                wz = w * z;
    const float r[3][3] = {{1.0f - 2.0f * (yy + zz), 2.0f * (xy + wz), 2.0f * (xz - wy)},
                           {2.0f * (xy - wz), 1.0f - 2.0f * (xx + zz), 2.0f * (yz + wx)},
                           {2.0f * (xz + wy), 2.0f * (yz - wx), 1.0f - 2.0f * (xx + yy)}}; /* columns */
    const cna_mat4 *a = c->local_of[bone];
    cna_mat4 value;
#if CNA__SIMD_SSE2 /* the same sums, in lanes */
    const __m128 a0 = _mm_loadu_ps(a->m), a1 = _mm_loadu_ps(a->m + 4), a2 = _mm_loadu_ps(a->m + 8);
    for (int col = 0; col < 3; col++)
        _mm_storeu_ps(value.m + col * 4,
                      _mm_add_ps(_mm_add_ps(_mm_mul_ps(a0, _mm_set1_ps(r[col][0])), _mm_mul_ps(a1, _mm_set1_ps(r[col][1]))),
                                 _mm_mul_ps(a2, _mm_set1_ps(r[col][2]))));
    _mm_storeu_ps(value.m + 12, _mm_loadu_ps(a->m + 12));
#else
    value = *a;
    for (int col = 0; col < 3; col++)
        for (int row = 0; row < 4; row++)
            value.m[col * 4 + row] = a->m[row] * r[col][0] + a->m[4 + row] * r[col][1] + a->m[8 + row] * r[col][2];
#endif
    write_local(c, bone, &value);
}

cna_result cna_character_rotate_joint(cna_character *c, size_t bone, cna_quat correction, cna_error *err)
{
    if (cna__character_busy(c, err) != CNA_OK) return CNA_ERROR_INVALID_ARGUMENT;
    if (!c) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "character: character is NULL");
    cna_result r = check_joint(c, bone, err);
    if (r != CNA_OK) return r;
    if ((r = check_rotation(c, bone, correction, err)) != CNA_OK) return r;
    if ((r = ensure(c, err)) != CNA_OK) return r;
    rotate(c, bone, correction);
    refresh(c);
    return CNA_OK;
}

/* The bone named `name` (cna_model_find_bone), with its error; through the
 * name cache once the edit's storage exists. */
static cna_result find(cna_character *c, const char *name, int32_t *bone, cna_error *err)
{
    if (!name) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "pose edit: joint name is NULL");
    const cna_model *m = c->model;
    edit_state *st = c->edit_affected ? state_of(c) : NULL;
    if (st)
        for (unsigned i = 0; i < NAME_SLOTS; i++)
            if (st->name[i] == name && strcmp(bone_name(m, (size_t)st->bone[i]), name) == 0) {
                *bone = st->bone[i];
                return CNA_OK;
            }
    *bone = cna_model_find_bone(m, name);
    if (*bone < 0) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "joint \"%s\": no such joint", name);
    if (st) {
        const unsigned i = st->next % NAME_SLOTS;
        st->name[i] = name;
        st->bone[i] = *bone;
        st->next = i + 1;
    }
    return CNA_OK;
}

cna_result cna_character_two_bone_ik(cna_character *c, const char *end_joint, const cna_ik_two_bone *ik,
                                     bool *reached, cna_error *err)
{
    if (cna__character_busy(c, err) != CNA_OK) return CNA_ERROR_INVALID_ARGUMENT;
    if (!c || !ik)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "two-bone IK: %s is NULL", c ? "ik" : "character");
    int32_t end = -1;
    cna_result r = find(c, end_joint, &end, err);
    if (r != CNA_OK) return r;
    const cna_model *m = c->model;
    const int32_t mid = m->bones[end].parent;
    const int32_t start = mid >= 0 ? m->bones[mid].parent : -1;
    if (start < 0)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "joint \"%s\": two-bone IK needs a parent and a grandparent; it has %s", end_joint,
                          mid < 0 ? "neither" : "no grandparent");
    if ((r = check_joint(c, (size_t)start, err)) != CNA_OK) return r;
    if ((r = check_joint(c, (size_t)mid, err)) != CNA_OK) return r;
    cna_quat qs, qm;
    bool ok;
    if ((r = cna_ik_two_bone_solve(ik, c->absolute_of[start], c->absolute_of[mid], c->absolute_of[end], &qs, &qm,
                                   &ok, err)) != CNA_OK)
        return r;
    if ((r = ensure(c, err)) != CNA_OK) return r;
    /* both corrections are relative to the pose before the edit: the mid
     * joint's local rotation does not depend on its parent's */
    rotate(c, (size_t)start, qs);
    rotate(c, (size_t)mid, qm);
    refresh(c);
    if (reached) *reached = ok;
    return CNA_OK;
}

cna_result cna_character_aim_ik(cna_character *c, const char *joint, const cna_ik_aim *ik, bool *reached,
                                cna_error *err)
{
    if (cna__character_busy(c, err) != CNA_OK) return CNA_ERROR_INVALID_ARGUMENT;
    if (!c || !ik) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "aim IK: %s is NULL", c ? "ik" : "character");
    int32_t bone = -1;
    cna_result r = find(c, joint, &bone, err);
    if (r != CNA_OK) return r;
    if ((r = check_joint(c, (size_t)bone, err)) != CNA_OK) return r;
    cna_quat q;
    bool ok;
    if ((r = cna_ik_aim_solve(ik, c->absolute_of[bone], &q, &ok, err)) != CNA_OK) return r;
    if ((r = ensure(c, err)) != CNA_OK) return r;
    rotate(c, (size_t)bone, q);
    refresh(c);
    if (reached) *reached = ok;
    return CNA_OK;
}

cna_result cna_character_chain_ik(cna_character *c, const char *end_joint, size_t joint_count,
                                  const cna_ik_chain *ik, bool *reached, cna_error *err)
{
    if (cna__character_busy(c, err) != CNA_OK) return CNA_ERROR_INVALID_ARGUMENT;
    if (!c || !ik)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "chain IK: %s is NULL", c ? "ik" : "character");
    int32_t end = -1;
    cna_result r = find(c, end_joint, &end, err);
    if (r != CNA_OK) return r;
    if (joint_count < 1 || joint_count > CNA_IK_CHAIN_MAX)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "joint \"%s\": chain of %zu joints is outside 1..%d",
                          end_joint, joint_count, CNA_IK_CHAIN_MAX);
    const cna_model *m = c->model;
    int32_t bones[CNA_IK_CHAIN_MAX + 1];
    const cna_mat4 *joints[CNA_IK_CHAIN_MAX + 1];
    bones[joint_count] = end;
    for (size_t i = joint_count; i-- > 0;) {
        bones[i] = m->bones[bones[i + 1]].parent;
        if (bones[i] < 0)
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "joint \"%s\": a chain of %zu needs %zu ancestors; it has %zu",
                              end_joint, joint_count, joint_count, joint_count - 1 - i);
    }
    for (size_t i = 0; i < joint_count; i++)
        if ((r = check_joint(c, (size_t)bones[i], err)) != CNA_OK) return r;
    for (size_t i = 0; i <= joint_count; i++) joints[i] = c->absolute_of[bones[i]];
    cna_quat q[CNA_IK_CHAIN_MAX];
    bool ok;
    if ((r = cna_ik_chain_solve(ik, joints, joint_count + 1, q, &ok, err)) != CNA_OK) return r;
    if ((r = ensure(c, err)) != CNA_OK) return r;
    for (size_t i = 0; i < joint_count; i++) rotate(c, (size_t)bones[i], q[i]);
    refresh(c);
    if (reached) *reached = ok;
    return CNA_OK;
}
