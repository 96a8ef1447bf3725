/*
 * The steps a character takes to pose a model's bones, by hand, into arrays
 * the test owns (the model is never written): rest transforms, a scene-node
 * clip sampled at a clamped time, a skin's player locals written to its
 * joints' bones, absolute transforms in bone order. Header-only; include
 * after <cmocka.h>.
 */
#ifndef CNA_TESTS_BONE_POSE_H
#define CNA_TESTS_BONE_POSE_H

#include <math.h>
#include <stddef.h>

#include "cna/cna.h"

/* local[b] = the rest transform of every bone. */
static inline void bone_pose_rest(const cna_model *m, cna_mat4 *local)
{
    for (size_t b = 0; b < m->bone_count; b++) local[b] = m->bones[b].rest_transform;
}

/* A scene-node clip at `seconds` (clamped to [0, duration]): each track with
 * keys and a bone in range sets local[bone] = T · R · S of its sample. */
static inline void bone_pose_clip(const cna_model *m, const cna_clip *clip, double seconds, cna_mat4 *local)
{
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
        cna_mat4_compose(&local[track->bone], k.translation, k.rotation, k.scale);
    }
}

/* Whether some clip of the model writes bone b's local: a scene-node track
 * on it, or a skin's track on a joint that is b. */
static inline int bone_pose_moves(const cna_model *m, int32_t b)
{
    for (size_t a = 0; m->node_clips && a < m->animation_count; a++)
        for (size_t t = 0; t < m->node_clips[a].track_count; t++)
            if (m->node_clips[a].tracks[t].bone == b && m->node_clips[a].tracks[t].key_count > 0) return 1;
    for (size_t s = 0; s < m->skin_count; s++)
        for (size_t a = 0; m->skins[s].data.clips && a < m->skins[s].data.clip_count; a++)
            for (size_t t = 0; t < m->skins[s].data.clips[a].track_count; t++) {
                const cna_bone_track *tr = &m->skins[s].data.clips[a].tracks[t];
                if (tr->key_count > 0 && tr->bone >= 0 && (size_t)tr->bone < m->skins[s].joint_count &&
                    m->skins[s].palette_to_node[tr->bone] == b)
                    return 1;
            }
    return 0;
}

/* A skin's player locals on its joints' bones:
 *   local[bone(p)] = inverse(fold[p]) · locals[p]   (locals[p] when fold[p] = I);
 *   local[bone(p)] = inverse(F) · locals[p]         when a clip moves a bone between
 *     the joint and its parent joint, F = local[cm] · ... · local[c1] as posed in
 *     `local` (c1 the joint's parent bone; locals[p] when F is singular). */
static inline void bone_pose_skin(const cna_model *m, size_t skin, const cna_mat4 *locals, cna_mat4 *local)
{
    const cna_model_skin *s = &m->skins[skin];
    for (size_t p = 0; p < s->joint_count; p++) {
        const int32_t b = s->palette_to_node[p];
        if (b < 0) continue;
        cna_mat4 inv;
        const int32_t parent = s->data.hierarchy[p];
        int moving = 0;
        for (int32_t c = m->bones[b].parent; parent >= 0 && c >= 0 && c != s->palette_to_node[parent];
             c = m->bones[c].parent)
            if (bone_pose_moves(m, c)) moving = 1;
        if (moving) {
            cna_mat4 f = local[m->bones[b].parent], next;
            for (int32_t c = m->bones[m->bones[b].parent].parent; c != s->palette_to_node[parent]; c = m->bones[c].parent) {
                cna_mat4_mul(&next, &local[c], &f);
                f = next;
            }
            if (cna_mat4_inverse(&inv, &f))
                cna_mat4_mul(&local[b], &inv, &locals[p]);
            else
                local[b] = locals[p];
        } else if (cna_mat4_is_identity(&s->fold[p]) || !cna_mat4_inverse(&inv, &s->fold[p])) {
            local[b] = locals[p];
        } else {
            cna_mat4_mul(&local[b], &inv, &locals[p]);
        }
    }
}

/* absolute[b] = absolute[parent] · local[b], in bone order. */
static inline void bone_pose_absolute(const cna_model *m, const cna_mat4 *local, cna_mat4 *absolute)
{
    for (size_t b = 0; b < m->bone_count; b++) {
        const int32_t parent = m->bones[b].parent;
        if (parent >= 0)
            cna_mat4_mul(&absolute[b], &absolute[parent], &local[b]);
        else
            absolute[b] = local[b];
    }
}

#endif
