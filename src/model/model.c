/*
 * The Model at run time: free, look-ups, bone transforms, rigid clips,
 * skin pose and the bind-pose palette (include/cna/model.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_internal.h"

/* ------------------------------------------------------------------ diagnostics */

bool cna__model_diag_n(cna__model *model, const char *code, size_t count, const char *message)
{
    if (count == 0) return true;
    cna__diag_list *l = &model->diags;
    for (size_t i = 0; i < l->count; i++) {
        if (strcmp(l->items[i].code, code) == 0) {
            l->items[i].count += count;
            return true;
        }
    }
    if (l->count == l->capacity) {
        size_t cap = l->capacity ? l->capacity * 2 : 8;
        cna_model_diagnostic *items =
            (cna_model_diagnostic *)cna__arena_calloc(&model->arena, cap, sizeof *items);
        if (!items) return false;
        if (l->count) memcpy(items, l->items, l->count * sizeof *items);
        l->items = items;   /* the old array stays in the arena until the model is freed */
        l->capacity = cap;
    }
    char *code_copy = cna__arena_strdup(&model->arena, code);
    char *msg_copy = cna__arena_strdup(&model->arena, message);
    if (!code_copy || !msg_copy) return false;
    cna_model_diagnostic *d = &l->items[l->count++];
    d->code = code_copy;
    d->count = count;
    d->message = msg_copy;
    model->pub.diagnostics = l->items;
    model->pub.diagnostic_count = l->count;
    return true;
}

bool cna__model_diag(cna__model *model, const char *code, const char *fmt, ...)
{
    char buf[CNA_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    cna__utf8_repair(buf); /* a name cut short */
    return cna__model_diag_n(model, code, 1, buf);
}

const cna_model_diagnostic *cna_model_find_diagnostic(const cna_model *model, const char *code)
{
    if (!model || !code) return NULL;
    for (size_t i = 0; i < model->diagnostic_count; i++)
        if (strcmp(model->diagnostics[i].code, code) == 0) return &model->diagnostics[i];
    return NULL;
}

/* ------------------------------------------------------------------ free, look-ups */

void cna_model_free(cna_model *model)
{
    if (!model) return;
    cna__model *m = cna__model_of(model);
    for (size_t i = 0; i < model->mesh_count; i++) {
        cna_model_mesh *mesh = &model->meshes[i];
        for (size_t k = 0; k < mesh->part_count; k++) {
            cna_model_part *part = &mesh->parts[k];
            cna_morph_instance_free(part->morph_instance);
            part->morph_instance = NULL;
            if (m->device) {
                cna_device_destroy_buffer(m->device, part->vertex_buffer);
                cna_device_destroy_buffer(m->device, part->index_buffer);
            }
            part->vertex_buffer = part->index_buffer = 0;
        }
    }
    cna__arena_free(&m->arena);
    cna_allocator a = m->allocator;
    cna__free(&a, m);
}

const cna_skinning_data *cna_model_skinning_data(const cna_model *model)
{
    if (!model || model->skin_count == 0) return NULL;
    return &model->skins[0].data;
}

static bool is_joint_bone(const cna_model *model, size_t bone)
{
    for (size_t s = 0; s < model->skin_count; s++)
        if (model->skins[s].node_to_palette && model->skins[s].node_to_palette[bone] >= 0) return true;
    return false;
}

int32_t cna_model_find_bone(const cna_model *model, const char *name)
{
    if (!model || !name) return -1;
    int32_t first = -1;
    for (size_t b = 0; b < model->bone_count; b++) {
        if (strcmp(model->bones[b].name, name) != 0) continue;
        if (is_joint_bone(model, b)) return (int32_t)b;
        if (first < 0) first = (int32_t)b;
    }
    return first;
}

cna_result cna_model_find_joint(const cna_model *model, size_t skin, const char *name,
                                int32_t *palette, int32_t *bone, cna_error *err)
{
    if (!model || !name)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "find_joint: NULL %s", model ? "name" : "model");
    if (skin >= model->skin_count)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "skins[%zu]: the model has %zu skins", skin,
                          model->skin_count);
    const cna_model_skin *s = &model->skins[skin];
    for (size_t p = 0; p < s->joint_count; p++) {
        const int32_t b = s->palette_to_node ? s->palette_to_node[p] : -1;
        const char *joint_name = b >= 0 ? model->bones[b].name : NULL;
        if (!joint_name || strcmp(joint_name, name) != 0) continue;
        if (palette) *palette = (int32_t)p;
        if (bone) *bone = b;
        return CNA_OK;
    }
    return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "skins[%zu]: no joint named \"%s\"", skin, name);
}

cna_result cna_model_find_animation(const cna_model *model, const char *name, size_t *index,
                                    cna_error *err)
{
    if (!model || !name || !index)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "find_animation: NULL %s",
                          !model ? "model" : !name ? "name" : "index");
    /* a decimal index: digits only, no sign, no spaces */
    bool digits = *name != '\0';
    for (const char *p = name; *p; p++)
        if (*p < '0' || *p > '9') digits = false;
    if (digits && strlen(name) < 19) {
        unsigned long long i = strtoull(name, NULL, 10);
        if (i < model->animation_count) {
            *index = (size_t)i;
            return CNA_OK;
        }
    }
    for (size_t k = 0; k < model->animation_count; k++) {
        const char *n = cna_model_animation_name(model, k);
        if (n && strcmp(n, name) == 0) {
            *index = k;
            return CNA_OK;
        }
    }
    return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "animation \"%s\": no such animation (the model has %zu)",
                      name, model->animation_count);
}

uint64_t cna__model_checksum(const cna_model *model)
{
    const cna__model *m = (const cna__model *)model;
    uint64_t h = 0xcbf29ce484222325ull;
    const unsigned char *self = (const unsigned char *)&m->pub;
    for (size_t i = 0; i < sizeof m->pub; i++) h = (h ^ self[i]) * 0x100000001b3ull;
    h = cna__arena_checksum(&m->arena, h);
    for (size_t i = 0; i < model->mesh_count; i++)
        for (size_t k = 0; k < model->meshes[i].part_count; k++) {
            const cna_morph_instance *mi = model->meshes[i].parts[k].morph_instance;
            if (!mi) continue;
            size_t n = 0, size = 0;
            const unsigned char *w = (const unsigned char *)cna_morph_instance_weights(mi, &n);
            const unsigned char *v = (const unsigned char *)cna_morph_instance_vertices(mi, &size);
            for (size_t j = 0; j < n * sizeof(float); j++) h = (h ^ w[j]) * 0x100000001b3ull;
            for (size_t j = 0; j < size; j++) h = (h ^ v[j]) * 0x100000001b3ull;
        }
    return h;
}

size_t cna_model_size_bytes(const cna_model *model)
{
    if (!model) return 0;
    const cna__model *m = (const cna__model *)model;
    size_t bytes = sizeof *m + cna__arena_bytes(&m->arena);
    for (size_t i = 0; i < model->mesh_count; i++)
        for (size_t k = 0; k < model->meshes[i].part_count; k++)
            if (model->meshes[i].parts[k].morph_instance) {
                const cna_morph_target_data *md = model->meshes[i].parts[k].morph;
                bytes += 64 + md->target_count * sizeof(float) + md->base_size;
            }
    return bytes;
}

const char *cna_model_animation_name(const cna_model *model, size_t animation)
{
    if (!model || !model->node_clips || animation >= model->animation_count) return NULL;
    return model->node_clips[animation].name;
}

const char *cna_clip_mode_name(cna_clip_mode mode)
{
    switch (mode) {
    case CNA_CLIP_MODE_DEFAULT:
    case CNA_CLIP_MODE_FAITHFUL: return "faithful";
    case CNA_CLIP_MODE_UNION: return "union";
    default: return "unknown";
    }
}

const char *cna_clip_target_name(cna_clip_target target)
{
    switch (target) {
    case CNA_CLIP_TARGET_DEFAULT:
    case CNA_CLIP_TARGET_JOINT_PALETTE: return "joint-palette";
    case CNA_CLIP_TARGET_SCENE_NODE: return "scene-node";
    default: return "unknown";
    }
}

/* ------------------------------------------------------------------ bones */

cna_result cna_model_copy_absolute_bone_transforms(const cna_model *model, cna_mat4 *out,
                                                   size_t count, cna_error *err)
{
    if (!model || !out)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "copy_absolute_bone_transforms: NULL %s",
                          model ? "out" : "model");
    if (count < model->bone_count)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "copy_absolute_bone_transforms: count %zu is below bone_count %zu",
                          count, model->bone_count);
    for (size_t b = 0; b < model->bone_count; b++) {
        const cna_model_bone *bone = &model->bones[b];
        /* absolute[b] = absolute[parent] · transform[b]  (spec: Transform * absolute[parent]) */
        if (bone->parent >= 0)
            cna_mat4_mul(&out[b], &out[bone->parent], &bone->transform);
        else
            out[b] = bone->transform;
    }
    return CNA_OK;
}

void cna_model_reset_bone_transforms(cna_model *model)
{
    if (!model) return;
    for (size_t b = 0; b < model->bone_count; b++)
        model->bones[b].transform = model->bones[b].rest_transform;
}

cna_result cna_model_apply_clip_to_bones(cna_model *model, const cna_clip *clip, double seconds,
                                         cna_error *err)
{
    if (!model || !clip)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "apply_clip_to_bones: NULL %s",
                          model ? "clip" : "model");
    const char *name = clip->name ? clip->name : "";
    if (clip->target != CNA_CLIP_TARGET_SCENE_NODE)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "clip \"%s\": target %s is not a scene-node clip; play it with a "
                          "cna_player", name, cna_clip_target_name(clip->target));
    if (isnan(seconds))
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "clip \"%s\": seconds is NaN", name);
    if (!clip->tracks && clip->track_count > 0)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "clip \"%s\": tracks NULL with track_count %zu", name, clip->track_count);
    int64_t t = cna_ticks_from_seconds(seconds);
    int64_t duration = clip->duration > 0 ? clip->duration : 0;
    if (t < 0) t = 0;
    if (t > duration) t = duration;
    for (size_t i = 0; i < clip->track_count; i++) {
        const cna_bone_track *track = &clip->tracks[i];
        if (!track->keys || track->key_count == 0) continue;
        if (track->bone < 0 || (size_t)track->bone >= model->bone_count) continue;
        cna_keyframe k;
        cna_track_sample_linear(track, t, &k);
        cna_mat4_compose(&model->bones[track->bone].transform, k.translation, k.rotation, k.scale);
    }
    return CNA_OK;
}

cna_result cna_model_apply_skin_pose_to_bones(cna_model *model, size_t skin,
                                              const cna_mat4 *locals, size_t count,
                                              cna_error *err)
{
    if (!model || !locals)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "apply_skin_pose_to_bones: NULL %s",
                          model ? "locals" : "model");
    if (skin >= model->skin_count)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "apply_skin_pose_to_bones: skin %zu is not below skin_count %zu", skin,
                          model->skin_count);
    const cna_model_skin *s = &model->skins[skin];
    if (count != s->joint_count)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "apply_skin_pose_to_bones: %zu transforms for skins[%zu] with %zu joints",
                          count, skin, s->joint_count);
    for (size_t p = 0; p < s->joint_count; p++) {
        int32_t b = s->palette_to_node[p];
        if (b < 0) continue;
        if (cna_mat4_is_identity(&s->fold[p])) {
            model->bones[b].transform = locals[p];
        } else {
            /* transform[b] = inverse(fold[p]) · local[p]: the joint's own part of the
             * folded local (the folded nodes keep their rest transforms as bones). */
            cna_mat4 inv;
            if (cna_mat4_inverse(&inv, &s->fold[p]))
                cna_mat4_mul(&model->bones[b].transform, &inv, &locals[p]);
            else
                model->bones[b].transform = locals[p];
        }
    }
    return CNA_OK;
}

/* Create a part's vertex and index buffers on the model's device (none without
 * one): the vertex buffer dynamic when the part morphs, then bound to its morph
 * instance. Shared by the glTF import and the .cnb loader. */
cna_result cna__model_upload_part(cna__model *model, cna_model_part *part, cna_error *err)
{
    if (!model->device) return CNA_OK;
    size_t size = 0;
    const void *bytes = cna_model_part_vertices(part, &size);
    cna_buffer_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.kind = CNA_BUFFER_KIND_VERTEX;
    desc.usage = part->morph_instance ? CNA_BUFFER_USAGE_DYNAMIC : CNA_BUFFER_USAGE_STATIC;
    desc.data = bytes;
    desc.size = size;
    desc.label = "cna part vertices";
    cna_result r = cna_device_create_buffer(model->device, &desc, &part->vertex_buffer, err);
    if (r) return r;
    if (part->morph_instance)
        cna_morph_instance_bind_vertex_buffer(part->morph_instance, part->vertex_buffer);
    desc.kind = CNA_BUFFER_KIND_INDEX;
    desc.usage = CNA_BUFFER_USAGE_STATIC;
    desc.data = part->indices;
    desc.size = part->index_count * sizeof(uint32_t);
    desc.label = "cna part indices";
    return cna_device_create_buffer(model->device, &desc, &part->index_buffer, err);
}
