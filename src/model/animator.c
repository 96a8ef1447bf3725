/*
 * The animator (include/cna/animator.h): one player per skin, the scene-node
 * clip and the morph weight tracks of one animation, posed at one time.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cna/animator.h"
#include "cna/morph.h"
#include "core/internal.h"

struct cna_animator {
    cna_allocator alloc;
    cna_model *model;
    long animation;         /* -1: none */
    double time;            /* of the last pose, clamped */
    cna_player **players;   /* skin_count */
    cna_mat4 *absolute;     /* bone_count */
    size_t *part_first;     /* mesh_count + 1: flat index of each mesh's first part */
    size_t *weight_offset;  /* per flat part: offset into weights, SIZE_MAX without morph */
    float *weights;         /* every morphed part's current weights */
    float *scratch;         /* the largest target count */
};

static size_t flat_part(const cna_animator *a, size_t mesh, size_t part)
{
    return a->part_first[mesh] + part;
}

/* The initial weights of a carrier (missing entries 0). */
static void initial_weights(const cna_morph_target_data *md, float *out)
{
    for (size_t i = 0; i < md->target_count; i++)
        out[i] = md->initial_weights && i < md->initial_weight_count ? md->initial_weights[i] : 0.0f;
}

void cna_animator_free(cna_animator *a)
{
    if (!a) return;
    for (size_t s = 0; a->players && s < a->model->skin_count; s++) cna_player_free(a->players[s]);
    cna__free(&a->alloc, a->players);
    cna__free(&a->alloc, a->absolute);
    cna__free(&a->alloc, a->part_first);
    cna__free(&a->alloc, a->weight_offset);
    cna__free(&a->alloc, a->weights);
    cna__free(&a->alloc, a->scratch);
    cna__free(&a->alloc, a);
}

cna_result cna_animator_create(cna_model *model, const cna_allocator *allocator, cna_animator **out,
                               cna_error *err)
{
    if (!model || !out)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "animator: %s is NULL", model ? "out" : "model");
    cna_allocator al = cna__allocator_resolve(allocator);
    cna_animator *a = (cna_animator *)cna__calloc(&al, 1, sizeof *a);
    if (!a) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "animator: out of memory");
    a->alloc = al;
    a->model = model;
    a->animation = -1;

    size_t parts = 0, weight_total = 0, largest = 0;
    for (size_t i = 0; i < model->mesh_count; i++) {
        parts += model->meshes[i].part_count;
        for (size_t k = 0; k < model->meshes[i].part_count; k++) {
            const cna_morph_target_data *md = model->meshes[i].parts[k].morph;
            if (!md) continue;
            weight_total += md->target_count;
            if (md->target_count > largest) largest = md->target_count;
        }
    }
    a->players = (cna_player **)cna__calloc(&al, model->skin_count ? model->skin_count : 1, sizeof *a->players);
    a->absolute = (cna_mat4 *)cna__calloc(&al, model->bone_count ? model->bone_count : 1, sizeof *a->absolute);
    a->part_first = (size_t *)cna__calloc(&al, model->mesh_count + 1, sizeof *a->part_first);
    a->weight_offset = (size_t *)cna__calloc(&al, parts ? parts : 1, sizeof *a->weight_offset);
    a->weights = (float *)cna__calloc(&al, weight_total ? weight_total : 1, sizeof *a->weights);
    a->scratch = (float *)cna__calloc(&al, largest ? largest : 1, sizeof *a->scratch);
    if (!a->players || !a->absolute || !a->part_first || !a->weight_offset || !a->weights || !a->scratch) {
        cna_animator_free(a);
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "animator: out of memory");
    }
    size_t flat = 0, offset = 0;
    for (size_t i = 0; i < model->mesh_count; i++) {
        a->part_first[i] = flat;
        for (size_t k = 0; k < model->meshes[i].part_count; k++, flat++) {
            const cna_morph_target_data *md = model->meshes[i].parts[k].morph;
            if (!md) {
                a->weight_offset[flat] = SIZE_MAX;
                continue;
            }
            a->weight_offset[flat] = offset;
            initial_weights(md, a->weights + offset);
            offset += md->target_count;
        }
    }
    a->part_first[model->mesh_count] = flat;
    for (size_t s = 0; s < model->skin_count; s++) {
        cna_error inner;
        if (cna_player_create(&model->skins[s].data, &al, &a->players[s], &inner) != CNA_OK) {
            cna_result r = cna__error(err, inner.code, "skins[%zu]: %s", s, inner.message);
            cna_animator_free(a);
            return r;
        }
    }
    if (cna_model_copy_absolute_bone_transforms(model, a->absolute, model->bone_count, err) != CNA_OK) {
        cna_animator_free(a);
        return err ? err->code : CNA_ERROR_INVALID_ARGUMENT;
    }
    *out = a;
    return CNA_OK;
}

long cna_animator_find(const cna_animator *a, const char *name)
{
    if (!a || !name) return -1;
    const cna_model *m = a->model;
    char *end = NULL;
    errno = 0;
    long i = strtol(name, &end, 10);
    if (!errno && *name >= '0' && *name <= '9' && !*end && (size_t)i < m->animation_count) return i;
    for (size_t k = 0; k < m->animation_count; k++)
        if (m->node_clips[k].name && strcmp(m->node_clips[k].name, name) == 0) return (long)k;
    return -1;
}

cna_result cna_animator_select(cna_animator *a, long animation, cna_error *err)
{
    if (!a) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "animator: animator is NULL");
    const cna_model *m = a->model;
    if (animation < -1 || (animation >= 0 && (size_t)animation >= m->animation_count))
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "animation %ld is outside -1..%ld", animation,
                          (long)m->animation_count - 1);
    if (animation >= 0) {
        /* Check every skin first, so that a bad model changes nothing. */
        for (size_t s = 0; s < m->skin_count; s++) {
            const cna_skinning_data *d = &m->skins[s].data;
            if (!d->clips || (size_t)animation >= d->clip_count)
                return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "skins[%zu]: no clip %ld (the skin has %zu)", s,
                                  animation, d->clip_count);
        }
    }
    for (size_t s = 0; s < m->skin_count; s++) {
        /* NULL stops a player: its updates then show the bind pose. */
        const cna_clip *clip = animation >= 0 ? &m->skins[s].data.clips[animation] : NULL;
        cna_result r = cna_player_start_clip(a->players[s], clip, err);
        if (r != CNA_OK) return r;
    }
    a->animation = animation;
    return CNA_OK;
}

long cna_animator_animation(const cna_animator *a) { return a ? a->animation : -1; }

double cna_animator_duration(const cna_animator *a)
{
    if (!a || a->animation < 0) return 0.0;
    return cna_ticks_to_seconds(a->model->node_clips[a->animation].duration);
}

double cna_animator_time(const cna_animator *a) { return a ? a->time : 0.0; }

/* Step 5 for one part: the weights at t into the scratch, then stored and
 * blended when they differ from the part's current ones. */
static cna_result pose_part_weights(cna_animator *a, size_t mesh, size_t part, double t, cna_error *err)
{
    cna_model *m = a->model;
    const cna_model_part *p = &m->meshes[mesh].parts[part];
    const cna_morph_target_data *md = p->morph;
    const long anim = a->animation;
    size_t n = md->target_count;
    if (anim >= 0 && (size_t)anim < p->weight_track_count && p->weight_tracks && p->weight_tracks[anim] &&
        p->weight_tracks[anim]->key_count > 0) {
        cna_result r = cna_morph_evaluate_weights(p->weight_tracks[anim], t, a->scratch, md->target_count, &n, err);
        if (r != CNA_OK) return r;
        if (n != md->target_count)
            return cna__error(err, CNA_ERROR_INVALID_DATA,
                              "meshes[%zu].parts[%zu]: weight track %ld gives %zu weights for %zu targets", mesh,
                              part, anim, n, md->target_count);
    } else {
        initial_weights(md, a->scratch);
    }
    float *current = a->weights + a->weight_offset[flat_part(a, mesh, part)];
    if (p->morph_instance) {
        size_t have_n = 0;
        const float *have = cna_morph_instance_weights(p->morph_instance, &have_n);
        if (!(have && have_n == n && memcmp(have, a->scratch, n * sizeof(float)) == 0)) {
            cna_result r = cna_model_set_morph_weights(m, mesh, part, a->scratch, n, err);
            if (r != CNA_OK) return r;
        }
    }
    memcpy(current, a->scratch, n * sizeof(float));
    return CNA_OK;
}

cna_result cna_animator_pose(cna_animator *a, double seconds, cna_error *err)
{
    if (!a) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "animator: animator is NULL");
    if (isnan(seconds)) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "animator: time is NaN");
    cna_model *m = a->model;
    const double d = cna_animator_duration(a);
    double t = seconds < 0.0 ? 0.0 : seconds > d ? d : seconds;
    a->time = t;
    cna_result r;
    cna_model_reset_bone_transforms(m);                                       /* 1 */
    for (size_t s = 0; s < m->skin_count; s++)                                /* 2 */
        if ((r = cna_player_update(a->players[s], cna_ticks_from_seconds(t), false, false, err)) != CNA_OK)
            return r;
    if (a->animation >= 0 &&                                                  /* 3 */
        (r = cna_model_apply_clip_to_bones(m, &m->node_clips[a->animation], t, err)) != CNA_OK)
        return r;
    for (size_t s = 0; s < m->skin_count; s++)                                /* 4 */
        if ((r = cna_model_apply_skin_pose_to_bones(m, s, cna_player_bone_transforms(a->players[s]),
                                                    m->skins[s].joint_count, err)) != CNA_OK)
            return r;
    for (size_t i = 0; i < m->mesh_count; i++)                                /* 5 */
        for (size_t k = 0; k < m->meshes[i].part_count; k++)
            if (m->meshes[i].parts[k].morph && (r = pose_part_weights(a, i, k, t, err)) != CNA_OK) return r;
    return cna_model_copy_absolute_bone_transforms(m, a->absolute, m->bone_count, err); /* 6 */
}

const cna_mat4 *cna_animator_absolute_transforms(const cna_animator *a) { return a ? a->absolute : NULL; }

cna_player *cna_animator_player(const cna_animator *a, size_t skin)
{
    return a && skin < a->model->skin_count ? a->players[skin] : NULL;
}

const cna_mat4 *cna_animator_skin_transforms(const cna_animator *a, size_t skin)
{
    cna_player *p = cna_animator_player(a, skin);
    return p ? cna_player_skin_transforms(p) : NULL;
}

const float *cna_animator_morph_weights(const cna_animator *a, size_t mesh, size_t part, size_t *count)
{
    if (count) *count = 0;
    if (!a || mesh >= a->model->mesh_count || part >= a->model->meshes[mesh].part_count) return NULL;
    const size_t off = a->weight_offset[flat_part(a, mesh, part)];
    if (off == SIZE_MAX) return NULL;
    if (count) *count = a->model->meshes[mesh].parts[part].morph->target_count;
    return a->weights + off;
}
