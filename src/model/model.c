/*
 * The Model after load: diagnostics, free, look-ups and names
 * (include/cna/model.h). Nothing here writes a loaded model.
 */
#include <math.h>
#include <stddef.h>
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

static void free_markers(cna__model *m)
{
    for (size_t a = 0; m->markers && a < m->pub.animation_count; a++) {
        cna__marker_list *l = &m->markers[a];
        for (size_t i = 0; i < l->count; i++) cna__free(&m->allocator, (void *)l->items[i].name);
        cna__free(&m->allocator, l->items);
    }
    cna__free(&m->allocator, m->markers);
    cna__free(&m->allocator, m->marker_views);
    m->markers = NULL;
    m->marker_views = NULL;
    m->pub.animation_markers = NULL;
    m->marker_bytes = 0;
}

void cna__model_release(struct cna_model_owner *owner);

static void destroy(cna__model *m)
{
    struct cna_model_owner *base = m->base_owner;
    free_markers(m);
    cna__arena_free(&m->arena);
    cna_allocator a = m->allocator;
    cna__free(&a, atomic_load_explicit(&m->rig, memory_order_acquire));
    cna__free(&a, m);
    cna__model_release(base); /* a bound model's base: may free it (cna_model_free already called on it) */
}

/* The model's handle is one reference, each live character another
 * (cna__model_retain): the last one released frees the model. */
void cna__model_release(struct cna_model_owner *owner)
{
    if (owner && atomic_fetch_sub_explicit(&owner->refs, 1, memory_order_acq_rel) == 1)
        destroy(cna__model_of_owner(owner));
}

struct cna_model_owner *cna__model_retain(const cna_model *model)
{
    if (model->owner) atomic_fetch_add_explicit(&model->owner->refs, 1, memory_order_relaxed);
    return model->owner;
}

void cna_model_free(cna_model *model)
{
    if (!model) return;
    cna__model *m = cna__model_of(model);
    cna__model_release(&m->owner);
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
    for (size_t a = 0; m->markers && a < m->pub.animation_count; a++)
        for (size_t i = 0; i < m->markers[a].count; i++) {
            const cna_marker *k = &m->markers[a].items[i];
            const uint64_t t = (uint64_t)k->ticks;
            for (int b = 0; b < 8; b++) h = (h ^ ((t >> (8 * b)) & 0xffu)) * 0x100000001b3ull;
            for (const unsigned char *c = (const unsigned char *)k->name; *c; c++) h = (h ^ *c) * 0x100000001b3ull;
        }
    return cna__arena_checksum(&m->arena, h);
}

size_t cna_model_size_bytes(const cna_model *model)
{
    if (!model) return 0;
    const cna__model *m = (const cna__model *)model;
    return sizeof *m + cna__arena_bytes(&m->arena) + m->marker_bytes + m->rig_bytes;
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

/* ------------------------------------------------------------------ markers */

const cna_marker *cna_model_markers(const cna_model *model, size_t animation, size_t *count)
{
    if (count) *count = 0;
    if (!model || animation >= model->animation_count || !model->animation_markers) return NULL;
    const cna_animation_markers *v = &model->animation_markers[animation];
    if (v->count == 0) return NULL;
    if (count) *count = v->count;
    return v->items;
}

bool cna__model_insert_marker(cna__model *m, size_t animation, const char *name, int64_t ticks)
{
    const cna_allocator *a = &m->allocator;
    const size_t n = m->pub.animation_count;
    cna__marker_list *table = m->markers;
    cna_animation_markers *views = m->marker_views;
    size_t bytes = 0;
    if (!table) {
        table = (cna__marker_list *)cna__calloc(a, n, sizeof *table);
        views = (cna_animation_markers *)cna__calloc(a, n, sizeof *views);
        if (!table || !views) {
            cna__free(a, table);
            cna__free(a, views);
            return false;
        }
        bytes += n * (sizeof *table + sizeof *views);
    }
    cna__marker_list *l = &table[animation];
    cna_marker *items = l->items;
    size_t cap = l->capacity;
    if (l->count == cap) {
        cap = cap ? cap * 2 : 4;
        items = (cna_marker *)cna__calloc(a, cap, sizeof *items);
        if (items) bytes += (cap - l->capacity) * sizeof *items;
    }
    const size_t len = strlen(name);
    char *copy = items ? (char *)cna__alloc(a, len + 1) : NULL;
    if (!copy) {
        if (items != l->items) cna__free(a, items);
        if (table != m->markers) {
            cna__free(a, table);
            cna__free(a, views);
        }
        return false;
    }
    memcpy(copy, name, len + 1);
    bytes += len + 1;
    /* after the markers at or before `ticks`: ties keep the order they were added in */
    size_t at = l->count;
    while (at > 0 && l->items[at - 1].ticks > ticks) at--;
    if (items != l->items) {
        if (l->count) memcpy(items, l->items, l->count * sizeof *items);
        cna__free(a, l->items);
        l->items = items;
        l->capacity = cap;
    }
    memmove(&l->items[at + 1], &l->items[at], (l->count - at) * sizeof *l->items);
    l->items[at].name = copy;
    l->items[at].ticks = ticks;
    l->count++;
    m->markers = table;
    m->marker_views = views;
    views[animation].items = l->items;
    views[animation].count = l->count;
    m->pub.animation_markers = views;
    m->marker_bytes += bytes;
    return true;
}

cna_result cna_model_add_marker(cna_model *model, size_t animation, const char *name, double seconds,
                                cna_error *err)
{
    if (!model || !name)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "marker: NULL %s", model ? "name" : "model");
    if (animation >= model->animation_count || !model->node_clips) {
        if (model->animation_count == 0)
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "marker: animation %zu: the model has no animations",
                              animation);
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "marker: animation %zu is outside 0..%zu", animation,
                          model->animation_count - 1);
    }
    const cna_clip *clip = &model->node_clips[animation];
    char where[160];
    if (clip->name) snprintf(where, sizeof where, "animations[%zu] \"%s\"", animation, clip->name);
    else snprintf(where, sizeof where, "animations[%zu]", animation);
    cna__utf8_repair(where); /* a name cut short */
    const size_t len = strlen(name);
    if (len == 0) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "%s: marker name is empty", where);
    const size_t bad = cna__utf8_invalid_at(name, len);
    if (bad < len)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "%s: marker name: invalid UTF-8 at byte %zu", where, bad);
    if (isnan(seconds)) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "%s: marker time is NaN", where);
    const int64_t ticks = cna_ticks_from_seconds(seconds);
    if (ticks < 0 || ticks > clip->duration)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "%s: marker time %.9g s is outside 0..%.9g s", where, seconds,
                          cna_ticks_to_seconds(clip->duration));
    const size_t refs = model->owner ? atomic_load_explicit(&model->owner->refs, memory_order_relaxed) : 1;
    if (refs > 1)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "%s: marker \"%s\": %zu character%s of the model %s alive; add markers before creating "
                          "characters",
                          where, name, refs - 1, refs == 2 ? "" : "s", refs == 2 ? "is" : "are");
    if (!cna__model_insert_marker(cna__model_of(model), animation, name, ticks))
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "%s: out of memory for marker \"%s\"", where, name);
    return CNA_OK;
}
