/*
 * The .cnb writer (docs/format-cnb.md): every section is built in its own
 * growable buffer, arrays go to the DATA heap (16-byte aligned, shared when
 * the model shares them), strings to the STRINGS heap; then header, section
 * table and sections are assembled and the checksum is computed.
 *
 * With a unit scale s != 1 every translation-bearing quantity is multiplied
 * by s as it is written (vertex positions, morph position deltas, bone and
 * bind-pose translations, inverse-bind, prefix and fold translations, clip key
 * translations, instance translations, bounds and model size);
 * for an affine matrix this is the conjugation S(s) · M · S(1/s), which
 * leaves rotations and scales untouched. Clip keys are already evaluated
 * curves, so scaling their translations equals scaling the cubic tangents.
 *
 * Sharing: an array the model shares (the same address) is written once;
 * one clip set shared by several model skins (the skins of one glTF skin
 * instanced by several nodes) is written once and referenced by each.
 *
 * Markers: one MARKERS record per marker, animation by animation, each
 * animation's in the model's order (by time).
 *
 * Palette maps: one PALETTE_MAPS record per split part (its palette_map),
 * in part order.
 *
 * Instances: one INSTANCES record per instanced mesh (its instance
 * matrices, translations scaled like every matrix), in mesh order.
 *
 * Images: encoded bytes are copied into DATA; an external image file (the
 * model's path) is read now and embedded the same way, so the file is
 * self-contained wherever it is moved.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "baked/cnb_internal.h"
#include "cna/baked.h"
#include "core/internal.h"

/* ------------------------------------------------------------------ buffers */

typedef struct wbuf {
    unsigned char *p;
    size_t size, cap;
} wbuf;

typedef struct shared_array {
    const void *src;
    size_t bytes;
    int kind;
    uint64_t offset;
} shared_array;

typedef struct writer {
    cna_allocator alloc;
    float scale;                  /* 1 = exact */
    bool failed;                  /* out of memory */
    wbuf sec[CNA__CNB_SECTION_END];
    shared_array *shared;
    size_t shared_count, shared_cap;
    /* Pointer -> index maps for records referenced by index. */
    const cna_morph_weight_track **tracks;
    size_t track_count, track_cap;
} writer;

static bool reserve(writer *w, wbuf *b, size_t extra)
{
    if (w->failed) return false;
    if (b->cap - b->size >= extra) return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->size < extra) {
        if (cap > SIZE_MAX / 2) {
            w->failed = true;
            return false;
        }
        cap *= 2;
    }
    unsigned char *p = (unsigned char *)cna__alloc(&w->alloc, cap);
    if (!p) {
        w->failed = true;
        return false;
    }
    if (b->size) memcpy(p, b->p, b->size);
    cna__free(&w->alloc, b->p);
    b->p = p;
    b->cap = cap;
    return true;
}

static void put(writer *w, wbuf *b, const void *src, size_t n)
{
    if (n == 0 || !reserve(w, b, n)) return;
    memcpy(b->p + b->size, src, n);
    b->size += n;
}

static void put_zero(writer *w, wbuf *b, size_t n)
{
    if (n == 0 || !reserve(w, b, n)) return;
    memset(b->p + b->size, 0, n);
    b->size += n;
}

/* Little-endian fields (the host is little-endian: checked before writing). */
static void u32(writer *w, wbuf *b, uint32_t v) { put(w, b, &v, 4); }
static void i32(writer *w, wbuf *b, int32_t v) { put(w, b, &v, 4); }
static void u64(writer *w, wbuf *b, uint64_t v) { put(w, b, &v, 8); }
static void i64(writer *w, wbuf *b, int64_t v) { put(w, b, &v, 8); }
static void f32(writer *w, wbuf *b, float v) { put(w, b, &v, 4); }
static void f32n(writer *w, wbuf *b, const float *v, size_t n) { put(w, b, v, n * 4); }

static void mat_scaled(writer *w, wbuf *b, const cna_mat4 *m)
{
    cna_mat4 c = *m;
    if (w->scale != 1.0f)
        for (int k = 12; k < 15; k++) c.m[k] = c.m[k] * w->scale;
    f32n(w, b, c.m, 16);
}

static void str(writer *w, wbuf *b, const char *s)
{
    if (!s) {
        u32(w, b, CNA__CNB_NULL_STRING);
        u32(w, b, 0);
        return;
    }
    wbuf *heap = &w->sec[CNA__CNB_STRINGS];
    size_t n = strlen(s);
    if (heap->size > UINT32_MAX - 1 - n) {
        w->failed = true;
        return;
    }
    u32(w, b, (uint32_t)heap->size);
    u32(w, b, (uint32_t)n);
    put(w, heap, s, n + 1);
}

/* ------------------------------------------------------------------ DATA arrays */

enum {
    KIND_PLAIN = 0,
    KIND_VERTICES,      /* scale the position slot (offset 0) of each vertex */
    KIND_MATRICES,      /* scale m[12..14] of each matrix */
    KIND_KEYS,          /* scale the translation of each keyframe */
    KIND_DELTAS         /* scale every float (position deltas) */
};

static void scale_in_place(writer *w, unsigned char *p, size_t bytes, int kind, uint32_t stride)
{
    float s = w->scale, v;
    switch (kind) {
    case KIND_VERTICES:
        for (size_t o = 0; stride >= 12 && o + stride <= bytes; o += stride)
            for (int k = 0; k < 3; k++) {
                memcpy(&v, p + o + 4 * (size_t)k, 4);
                v = v * s;
                memcpy(p + o + 4 * (size_t)k, &v, 4);
            }
        break;
    case KIND_MATRICES:
        for (size_t o = 0; o + 64 <= bytes; o += 64)
            for (int k = 12; k < 15; k++) {
                memcpy(&v, p + o + 4 * (size_t)k, 4);
                v = v * s;
                memcpy(p + o + 4 * (size_t)k, &v, 4);
            }
        break;
    case KIND_KEYS:
        for (size_t o = 0; o + 48 <= bytes; o += 48)
            for (int k = 0; k < 3; k++) {
                memcpy(&v, p + o + 8 + 4 * (size_t)k, 4);
                v = v * s;
                memcpy(p + o + 8 + 4 * (size_t)k, &v, 4);
            }
        break;
    case KIND_DELTAS:
        for (size_t o = 0; o + 4 <= bytes; o += 4) {
            memcpy(&v, p + o, 4);
            v = v * s;
            memcpy(p + o, &v, 4);
        }
        break;
    default: break;
    }
}

/* Write a reference (offset, bytes) to `bytes` bytes at `src` in DATA; NULL
 * src is the NULL reference. An array already written from the same address,
 * size and kind is shared. */
static void ref(writer *w, wbuf *b, const void *src, size_t bytes, int kind, uint32_t stride)
{
    if (!src) {
        u64(w, b, CNA__CNB_NULL_REF);
        u64(w, b, 0);
        return;
    }
    for (size_t i = 0; i < w->shared_count; i++) {
        const shared_array *s = &w->shared[i];
        if (s->src == src && s->bytes == bytes && s->kind == kind) {
            u64(w, b, s->offset);
            u64(w, b, bytes);
            return;
        }
    }
    wbuf *data = &w->sec[CNA__CNB_DATA];
    size_t pad = (CNA__CNB_ALIGN - data->size % CNA__CNB_ALIGN) % CNA__CNB_ALIGN;
    put_zero(w, data, pad);
    uint64_t offset = data->size;
    put(w, data, src, bytes);
    if (w->failed) return;
    if (w->scale != 1.0f && kind != KIND_PLAIN && bytes > 0) scale_in_place(w, data->p + offset, bytes, kind, stride);
    if (w->shared_count == w->shared_cap) {
        size_t cap = w->shared_cap ? w->shared_cap * 2 : 64;
        shared_array *n = (shared_array *)cna__calloc(&w->alloc, cap, sizeof *n);
        if (!n) {
            w->failed = true;
            return;
        }
        if (w->shared_count) memcpy(n, w->shared, w->shared_count * sizeof *n);
        cna__free(&w->alloc, w->shared);
        w->shared = n;
        w->shared_cap = cap;
    }
    shared_array *s = &w->shared[w->shared_count++];
    s->src = src;
    s->bytes = bytes;
    s->kind = kind;
    s->offset = offset;
    u64(w, b, offset);
    u64(w, b, bytes);
}

/* Index of a weight track in WEIGHT_TRACKS (added on first use), -1 for NULL. */
static int32_t track_index(writer *w, const cna_morph_weight_track *t)
{
    if (!t) return -1;
    for (size_t i = 0; i < w->track_count; i++)
        if (w->tracks[i] == t) return (int32_t)i;
    if (w->track_count == w->track_cap) {
        size_t cap = w->track_cap ? w->track_cap * 2 : 16;
        const cna_morph_weight_track **n =
            (const cna_morph_weight_track **)cna__calloc(&w->alloc, cap, sizeof *n);
        if (!n) {
            w->failed = true;
            return -1;
        }
        if (w->track_count) memcpy(n, w->tracks, w->track_count * sizeof *n);
        cna__free(&w->alloc, (void *)w->tracks);
        w->tracks = n;
        w->track_cap = cap;
    }
    w->tracks[w->track_count] = t;
    return (int32_t)w->track_count++;
}

/* ------------------------------------------------------------------ records */

static void write_model(writer *w, const cna_model *m, uint64_t node_clip_first)
{
    wbuf *b = &w->sec[CNA__CNB_MODEL];
    i32(w, b, m->gltf_scene);
    u32(w, b, (uint32_t)m->clip_mode);
    f32(w, b, m->size * w->scale);
    u32(w, b, 0);
    u64(w, b, m->bone_count);
    u64(w, b, m->mesh_count);
    u64(w, b, m->skin_count);
    u64(w, b, m->effect_count);
    u64(w, b, m->animation_count);
    u64(w, b, m->diagnostic_count);
    u64(w, b, m->gltf_node_count);
    u64(w, b, node_clip_first);
    ref(w, b, m->gltf_node_to_bone, m->gltf_node_count * sizeof(int32_t), KIND_PLAIN, 0);
}

static void write_bone(writer *w, const cna_model_bone *bone)
{
    wbuf *b = &w->sec[CNA__CNB_BONES];
    str(w, b, bone->name);
    i32(w, b, bone->parent);
    i32(w, b, bone->gltf_node);
    u32(w, b, bone->has_matrix ? 1u : 0u);
    u32(w, b, 0);
    mat_scaled(w, b, &bone->rest_transform);
    cna_vec3 t = bone->rest_translation;
    f32(w, b, t.x * w->scale);
    f32(w, b, t.y * w->scale);
    f32(w, b, t.z * w->scale);
    f32n(w, b, &bone->rest_rotation.x, 4);
    f32n(w, b, &bone->rest_scale.x, 3);
}

/* A mesh's morph target names: an array of str records in DATA (NULL
 * without names), then the count. */
static void write_target_names(writer *w, wbuf *b, const cna_model_mesh *mesh)
{
    const size_t n = mesh->target_names ? mesh->target_name_count : 0;
    if (n == 0) {
        ref(w, b, NULL, 0, KIND_PLAIN, 0);
        u64(w, b, 0);
        return;
    }
    wbuf names = {NULL, 0, 0};
    for (size_t t = 0; t < n; t++) str(w, &names, mesh->target_names[t] ? mesh->target_names[t] : "");
    if (!w->failed) {
        ref(w, b, names.p, names.size, KIND_PLAIN, 0);
        /* names is freed now: forget it as a sharing key */
        if (!w->failed) w->shared[w->shared_count - 1].src = NULL;
    }
    cna__free(&w->alloc, names.p);
    u64(w, b, n);
}

static void write_mesh(writer *w, const cna_model_mesh *mesh, uint64_t first_part)
{
    wbuf *b = &w->sec[CNA__CNB_MESHES];
    str(w, b, mesh->name);
    i32(w, b, mesh->parent_bone);
    i32(w, b, mesh->skin);
    i32(w, b, mesh->gltf_mesh);
    i32(w, b, mesh->gltf_node);
    u64(w, b, first_part);
    u64(w, b, mesh->part_count);
    f32(w, b, mesh->bounds.center.x * w->scale);
    f32(w, b, mesh->bounds.center.y * w->scale);
    f32(w, b, mesh->bounds.center.z * w->scale);
    f32(w, b, mesh->bounds.radius * w->scale);
    write_target_names(w, b, mesh);
}

static void write_deltas(writer *w, wbuf *b, const cna_morph_deltas *d, bool positions)
{
    ref(w, b, d->values, d->count * 3 * sizeof(float), positions ? KIND_DELTAS : KIND_PLAIN, 0);
    ref(w, b, d->indices, d->count * sizeof(uint32_t), KIND_PLAIN, 0);
    u64(w, b, d->count);
}

static void write_morph(writer *w, const cna_model_part *part, uint64_t first_target)
{
    const cna_morph_target_data *d = part->morph;
    wbuf *b = &w->sec[CNA__CNB_MORPHS];
    ref(w, b, d->base_vertices, d->base_size, KIND_VERTICES, d->layout.stride);
    u64(w, b, d->base_size);
    u64(w, b, d->vertex_count);
    u32(w, b, d->layout.stride);
    i32(w, b, d->layout.position_offset);
    i32(w, b, d->layout.normal_offset);
    i32(w, b, d->layout.tangent_offset);
    u64(w, b, first_target);
    u64(w, b, d->target_count);
    ref(w, b, d->initial_weights, d->initial_weight_count * sizeof(float), KIND_PLAIN, 0);
    u64(w, b, d->initial_weight_count);
    i32(w, b, track_index(w, d->weight_track));
    u32(w, b, d->recompute_flat_normals ? 1u : 0u);
    ref(w, b, d->triangle_indices, d->triangle_index_count * sizeof(uint32_t), KIND_PLAIN, 0);
    u64(w, b, d->triangle_index_count);
    wbuf *t = &w->sec[CNA__CNB_TARGETS];
    for (size_t i = 0; i < d->target_count; i++) {
        write_deltas(w, t, &d->targets[i].positions, true);
        write_deltas(w, t, &d->targets[i].normals, false);
        write_deltas(w, t, &d->targets[i].tangents, false);
    }
}

static void write_part(writer *w, const cna_model_part *part, int32_t morph)
{
    wbuf *b = &w->sec[CNA__CNB_PARTS];
    const cna_vertex_declaration *decl = &part->declaration;
    i32(w, b, part->gltf_mesh);
    i32(w, b, part->gltf_primitive);
    i32(w, b, part->material);
    i32(w, b, part->effect);
    ref(w, b, part->vertices, part->vertex_count * decl->stride, KIND_VERTICES, decl->stride);
    u64(w, b, part->vertex_count);
    u32(w, b, decl->stride);
    u32(w, b, decl->element_count);
    for (int e = 0; e < CNA_VERTEX_MAX_ELEMENTS; e++) {
        u32(w, b, decl->elements[e].offset);
        u32(w, b, (uint32_t)decl->elements[e].format);
        u32(w, b, (uint32_t)decl->elements[e].usage);
        u32(w, b, decl->elements[e].usage_index);
    }
    ref(w, b, part->indices, part->index_count * sizeof(uint32_t), KIND_PLAIN, 0);
    u64(w, b, part->index_count);
    u32(w, b, (uint32_t)part->primitive_type);
    i32(w, b, morph);
    ref(w, b, part->source_vertex, part->vertex_count * sizeof(uint32_t), KIND_PLAIN, 0);
    /* Weight tracks as WEIGHT_TRACKS indices (-1 = none), written as a DATA array. */
    if (!part->weight_tracks) {
        ref(w, b, NULL, 0, KIND_PLAIN, 0);
    } else {
        size_t n = part->weight_track_count;
        int32_t *idx = (int32_t *)cna__calloc(&w->alloc, n ? n : 1, sizeof *idx);
        if (!idx) {
            w->failed = true;
            return;
        }
        for (size_t i = 0; i < n; i++) idx[i] = track_index(w, part->weight_tracks[i]);
        ref(w, b, idx, n * sizeof *idx, KIND_PLAIN, 0);
        /* idx is freed now: forget it as a sharing key */
        if (!w->failed) w->shared[w->shared_count - 1].src = NULL;
        cna__free(&w->alloc, idx);
    }
    u64(w, b, part->weight_track_count);
    u64(w, b, part->source_vertex ? part->source_vertex_count : part->vertex_count);
}

static void write_palette_map(writer *w, uint64_t part_index, const cna_model_part *part)
{
    wbuf *b = &w->sec[CNA__CNB_PALETTE_MAPS];
    u64(w, b, part_index);
    ref(w, b, part->palette_map, part->palette_map_count * sizeof(int32_t), KIND_PLAIN, 0);
    u64(w, b, part->palette_map_count);
}

static void write_instances(writer *w, uint64_t mesh_index, const cna_model_mesh *mesh)
{
    wbuf *b = &w->sec[CNA__CNB_INSTANCES];
    u64(w, b, mesh_index);
    ref(w, b, mesh->instances, mesh->instance_count * sizeof(cna_mat4), KIND_MATRICES, 0);
    u64(w, b, mesh->instance_count);
}

static void write_weight_track(writer *w, const cna_morph_weight_track *t)
{
    wbuf *b = &w->sec[CNA__CNB_WEIGHT_TRACKS];
    size_t values = t->key_count * t->target_count * sizeof(float);
    ref(w, b, t->times, t->key_count * sizeof(float), KIND_PLAIN, 0);
    u64(w, b, t->key_count);
    u64(w, b, t->target_count);
    ref(w, b, t->values, values, KIND_PLAIN, 0);
    ref(w, b, t->in_tangents, values, KIND_PLAIN, 0);
    ref(w, b, t->out_tangents, values, KIND_PLAIN, 0);
    u32(w, b, (uint32_t)t->interpolation);
    u32(w, b, 0);
}

static void write_clips(writer *w, const cna_clip *clips, size_t count)
{
    wbuf *c = &w->sec[CNA__CNB_CLIPS];
    wbuf *t = &w->sec[CNA__CNB_TRACKS];
    for (size_t i = 0; i < count; i++) {
        const cna_clip *clip = &clips[i];
        str(w, c, clip->name);
        i64(w, c, clip->duration);
        u64(w, c, t->size / cna__cnb_record_size[CNA__CNB_TRACKS]);
        u64(w, c, clip->track_count);
        u32(w, c, (uint32_t)clip->target);
        u32(w, c, 0);
        for (size_t k = 0; k < clip->track_count; k++) {
            const cna_bone_track *tr = &clip->tracks[k];
            i32(w, t, tr->bone);
            u32(w, t, 0);
            ref(w, t, tr->keys, tr->key_count * sizeof(cna_keyframe), KIND_KEYS, 0);
        }
    }
}

static void write_skin(writer *w, const cna_model *m, const cna_model_skin *s, uint64_t first_clip)
{
    wbuf *b = &w->sec[CNA__CNB_SKINS];
    const cna_skinning_data *d = &s->data;
    i32(w, b, d->bone_count);
    i32(w, b, d->skeleton_root_node);
    str(w, b, d->skeleton_root_name);
    ref(w, b, d->hierarchy, d->hierarchy_count * sizeof(int32_t), KIND_PLAIN, 0);
    ref(w, b, d->bind_pose, d->bind_pose_count * sizeof(cna_mat4), KIND_MATRICES, 0);
    ref(w, b, d->inverse_bind_pose, d->inverse_bind_pose_count * sizeof(cna_mat4), KIND_MATRICES, 0);
    ref(w, b, d->root_prefix, d->root_prefix_count * sizeof(cna_mat4), KIND_MATRICES, 0);
    u64(w, b, first_clip);
    u64(w, b, d->clip_count);
    i32(w, b, s->gltf_skin);
    i32(w, b, s->mesh_node);
    ref(w, b, s->meshes, s->mesh_count * sizeof(int32_t), KIND_PLAIN, 0);
    u64(w, b, s->mesh_count);
    u64(w, b, s->joint_count);
    ref(w, b, s->ordinal_to_palette, s->joint_count * sizeof(int32_t), KIND_PLAIN, 0);
    ref(w, b, s->palette_to_ordinal, s->joint_count * sizeof(int32_t), KIND_PLAIN, 0);
    ref(w, b, s->node_to_palette, m->bone_count * sizeof(int32_t), KIND_PLAIN, 0);
    ref(w, b, s->palette_to_node, s->joint_count * sizeof(int32_t), KIND_PLAIN, 0);
    ref(w, b, s->palette_to_gltf_node, s->joint_count * sizeof(int32_t), KIND_PLAIN, 0);
    ref(w, b, s->fold, s->joint_count * sizeof(cna_mat4), KIND_MATRICES, 0);
    ref(w, b, s->roots, s->root_count * sizeof(int32_t), KIND_PLAIN, 0);
    u64(w, b, s->root_count);
}

static void write_texture(writer *w, wbuf *b, const cna_effect_texture *t)
{
    i32(w, b, t->image);
    i32(w, b, t->texcoord);
    f32(w, b, t->scale);
}

static void write_effect(writer *w, const cna_effect *e)
{
    wbuf *b = &w->sec[CNA__CNB_EFFECTS];
    const cna_effect_material *p = &e->params;
    u32(w, b, (uint32_t)e->kind);
    i32(w, b, e->material);
    i32(w, b, e->skin);
    u32(w, b, (uint32_t)p->alpha_mode);
    f32n(w, b, &p->base_color_factor.x, 4);
    write_texture(w, b, &p->base_color);
    f32(w, b, p->metallic_factor);
    f32(w, b, p->roughness_factor);
    write_texture(w, b, &p->metallic_roughness);
    write_texture(w, b, &p->normal);
    write_texture(w, b, &p->occlusion);
    write_texture(w, b, &p->emissive);
    f32n(w, b, &p->emissive_factor.x, 3);
    f32(w, b, p->alpha_cutoff);
    u32(w, b, p->double_sided ? 1u : 0u);
    f32(w, b, p->emissive_strength);
    u32(w, b, p->unlit ? CNA__CNB_EFFECT_UNLIT : 0u); /* material flags */
    str(w, b, p->name ? p->name : "");
    for (int s = 0; s < CNA_EFFECT_SLOT_COUNT; s++) {
        const cna_effect_texture *t = cna_effect_material_texture(p, (cna_effect_slot)s);
        f32n(w, b, t->uv_offset, 2);
        f32(w, b, t->uv_rotation);
        f32n(w, b, t->uv_scale, 2);
        i32(w, b, t->mag_filter);
        i32(w, b, t->min_filter);
        i32(w, b, t->wrap_s);
        i32(w, b, t->wrap_t);
        u32(w, b, 0);
    }
}

/* An animation's markers, in the model's order (sorted by time). */
static void write_markers(writer *w, const cna_model *m, size_t animation)
{
    wbuf *b = &w->sec[CNA__CNB_MARKERS];
    size_t n = 0;
    const cna_marker *k = cna_model_markers(m, animation, &n);
    for (size_t i = 0; i < n; i++) {
        u32(w, b, (uint32_t)animation);
        u32(w, b, 0);
        str(w, b, k[i].name);
        i64(w, b, k[i].ticks);
    }
}

static void write_diagnostic(writer *w, const cna_model_diagnostic *d)
{
    wbuf *b = &w->sec[CNA__CNB_DIAGNOSTICS];
    str(w, b, d->code);
    u64(w, b, d->count);
    str(w, b, d->message);
}

/* An external image's whole file into a new buffer of w->alloc (*bytes NULL
 * and *size 0 for an empty file). */
static cna_result read_image_file(writer *w, size_t index, const cna_model_image *im, unsigned char **bytes,
                                  size_t *size, cna_error *err)
{
    *bytes = NULL;
    *size = 0;
    FILE *f = fopen(im->path, "rb");
    if (!f)
        return cna__error(err, CNA_ERROR_IO, "cnb write: images[%zu] \"%s\": cannot open \"%s\": %s", index,
                          im->name ? im->name : "", im->path, strerror(errno));
    long len = -1;
    if (fseek(f, 0, SEEK_END) == 0) len = ftell(f);
    if (len < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return cna__error(err, CNA_ERROR_IO, "cnb write: images[%zu] \"%s\": cannot determine the size of \"%s\"",
                          index, im->name ? im->name : "", im->path);
    }
    if (len == 0) {
        fclose(f);
        return CNA_OK;
    }
    unsigned char *p = (unsigned char *)cna__alloc(&w->alloc, (size_t)len);
    if (!p) {
        fclose(f);
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "cnb write: images[%zu]: out of memory (%ld bytes)", index, len);
    }
    size_t got = fread(p, 1, (size_t)len, f);
    fclose(f);
    if (got != (size_t)len) {
        cna__free(&w->alloc, p);
        return cna__error(err, CNA_ERROR_IO, "cnb write: images[%zu] \"%s\": read %zu of %ld bytes of \"%s\"", index,
                          im->name ? im->name : "", got, len, im->path);
    }
    *bytes = p;
    *size = (size_t)len;
    return CNA_OK;
}

/* An image record; an external file's bytes are embedded (the .cnb is
 * self-contained and never stores a path). */
static cna_result write_image(writer *w, size_t index, const cna_model_image *im, cna_error *err)
{
    wbuf *b = &w->sec[CNA__CNB_IMAGES];
    str(w, b, im->name ? im->name : "");
    str(w, b, im->mime_type ? im->mime_type : "");
    if (im->data && im->size > 0) {
        ref(w, b, im->data, im->size, KIND_PLAIN, 0);
        u64(w, b, im->size);
    } else if (!im->data && im->path) {
        unsigned char *bytes = NULL;
        size_t size = 0;
        cna_result r = read_image_file(w, index, im, &bytes, &size, err);
        if (r) return r;
        ref(w, b, bytes, size, KIND_PLAIN, 0);
        /* bytes is freed now: forget it as a sharing key */
        if (bytes && !w->failed) w->shared[w->shared_count - 1].src = NULL;
        cna__free(&w->alloc, bytes);
        u64(w, b, size);
    } else {
        ref(w, b, NULL, 0, KIND_PLAIN, 0);
        u64(w, b, 0);
    }
    i32(w, b, im->mag_filter);
    i32(w, b, im->min_filter);
    i32(w, b, im->wrap_s);
    i32(w, b, im->wrap_t);
    str(w, b, im->problem);
    return CNA_OK;
}

/* ------------------------------------------------------------------ assembly */

static void put_u32_at(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }
static void put_u64_at(unsigned char *p, uint64_t v) { memcpy(p, &v, 8); }

static cna_result assemble(writer *w, void **out_bytes, size_t *out_size, cna_error *err)
{
    size_t at = CNA__CNB_HEADER_SIZE + CNA__CNB_SECTION_COUNT * CNA__CNB_SECTION_ENTRY_SIZE;
    size_t offsets[CNA__CNB_SECTION_END] = {0};
    for (int id = 1; id < CNA__CNB_SECTION_END; id++) {
        at = (at + CNA__CNB_ALIGN - 1) & ~(size_t)(CNA__CNB_ALIGN - 1);
        offsets[id] = at;
        if (!cna__add_size(at, w->sec[id].size, &at))
            return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "cnb write: file size overflows");
    }
    size_t total = (at + CNA__CNB_ALIGN - 1) & ~(size_t)(CNA__CNB_ALIGN - 1);
    unsigned char *file = (unsigned char *)cna__calloc(&w->alloc, total, 1);
    if (!file) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "cnb write: out of memory (%zu bytes)", total);
    memcpy(file + CNA__CNB_OFF_MAGIC, CNA__CNB_MAGIC, 4);
    put_u32_at(file + CNA__CNB_OFF_VERSION, CNA__CNB_VERSION);
    put_u32_at(file + CNA__CNB_OFF_FLAGS, 0);
    put_u32_at(file + CNA__CNB_OFF_HEADER_SIZE, CNA__CNB_HEADER_SIZE);
    put_u64_at(file + CNA__CNB_OFF_TOTAL_SIZE, total);
    put_u32_at(file + CNA__CNB_OFF_SECTION_COUNT, CNA__CNB_SECTION_COUNT);
    memcpy(file + CNA__CNB_OFF_UNIT_SCALE, &w->scale, 4);
    put_u64_at(file + CNA__CNB_OFF_SECTION_TABLE, CNA__CNB_HEADER_SIZE);
    for (int id = 1; id < CNA__CNB_SECTION_END; id++) {
        unsigned char *e = file + CNA__CNB_HEADER_SIZE + (size_t)(id - 1) * CNA__CNB_SECTION_ENTRY_SIZE;
        uint32_t rs = cna__cnb_record_size[id];
        put_u32_at(e, (uint32_t)id);
        put_u32_at(e + 4, rs);
        put_u64_at(e + 8, offsets[id]);
        put_u64_at(e + 16, w->sec[id].size);
        put_u64_at(e + 24, w->sec[id].size / rs);
        if (w->sec[id].size) memcpy(file + offsets[id], w->sec[id].p, w->sec[id].size);
    }
    put_u64_at(file + CNA__CNB_OFF_CHECKSUM, cna__cnb_checksum(file, total));
    *out_bytes = file;
    *out_size = total;
    return CNA_OK;
}

static cna_result write_all(writer *w, const cna_model *m, cna_error *err)
{
    /* Clips: the model's scene-node clips first, then each skin's. */
    write_clips(w, m->node_clips, m->node_clips ? m->animation_count : 0);
    write_model(w, m, 0);
    for (size_t b = 0; b < m->bone_count; b++) write_bone(w, &m->bones[b]);
    uint64_t first_part = 0, first_target = 0;
    int32_t morphs = 0;
    for (size_t i = 0; i < m->mesh_count; i++) {
        const cna_model_mesh *mesh = &m->meshes[i];
        write_mesh(w, mesh, first_part);
        if (mesh->instances && mesh->instance_count) write_instances(w, i, mesh);
        first_part += mesh->part_count;
        for (size_t k = 0; k < mesh->part_count; k++) {
            const cna_model_part *part = &mesh->parts[k];
            if (part->morph) {
                write_morph(w, part, first_target);
                first_target += part->morph->target_count;
            }
            write_part(w, part, part->morph ? morphs++ : -1);
            if (part->palette_map) write_palette_map(w, first_part - mesh->part_count + k, part);
        }
    }
    for (size_t i = 0; i < w->track_count; i++) write_weight_track(w, w->tracks[i]);
    /* Each distinct clip set once: a skin whose clips are an earlier skin's
     * (the same array) references that skin's records. */
    uint64_t first_clip = m->node_clips ? m->animation_count : 0;
    for (size_t s = 0; s < m->skin_count; s++) {
        const cna_model_skin *skin = &m->skins[s];
        size_t same = s;
        for (size_t t = 0; t < s && same == s; t++)
            if (skin->data.clips && m->skins[t].data.clips == skin->data.clips &&
                m->skins[t].data.clip_count == skin->data.clip_count)
                same = t;
        if (same < s) {
            const size_t first_clip_at = 80; /* SKINS.first_clip */
            uint64_t first = 0;
            if (!w->failed)
                memcpy(&first, w->sec[CNA__CNB_SKINS].p + same * cna__cnb_record_size[CNA__CNB_SKINS] + first_clip_at, 8);
            write_skin(w, m, skin, first);
            continue;
        }
        write_skin(w, m, skin, first_clip);
        write_clips(w, skin->data.clips, skin->data.clip_count);
        first_clip += skin->data.clip_count;
    }
    for (size_t e = 0; e < m->effect_count; e++) write_effect(w, &m->effects[e]);
    for (size_t d = 0; d < m->diagnostic_count; d++) write_diagnostic(w, &m->diagnostics[d]);
    for (size_t i = 0; m->images && i < m->image_count; i++) {
        cna_result r = write_image(w, i, &m->images[i], err);
        if (r) return r;
    }
    for (size_t a = 0; a < m->animation_count; a++) write_markers(w, m, a);
    if (w->failed) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "cnb write: out of memory");
    for (int id = 1; id < CNA__CNB_SECTION_END; id++)
        if (w->sec[id].size % cna__cnb_record_size[id] != 0)
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                              "cnb write: section %s holds %zu bytes, not a multiple of its "
                              "record size %u", cna__cnb_section_name[id], w->sec[id].size,
                              (unsigned)cna__cnb_record_size[id]);
    return CNA_OK;
}

cna_result cna_cnb_write_memory(const cna_model *model, const cna_cnb_write_options *opts,
                                void **out_bytes, size_t *out_size, cna_error *err)
{
    if (!model || !out_bytes || !out_size)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "cnb write: NULL %s",
                          !model ? "model" : !out_bytes ? "out_bytes" : "out_size");
    if (!cna__cnb_host_little_endian())
        return cna__error(err, CNA_ERROR_UNSUPPORTED, "cnb write: big-endian hosts are not supported");
    float scale = opts && opts->unit_scale != 0.0f ? opts->unit_scale : 1.0f;
    if (!(scale > 0.0f) || scale > 3.0e38f)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "cnb write: unit_scale %g is not a positive finite number", (double)scale);
    writer w;
    memset(&w, 0, sizeof w);
    w.alloc = cna__allocator_resolve(opts ? &opts->allocator : NULL);
    w.scale = scale;
    cna_result r = write_all(&w, model, err);
    if (!r) r = assemble(&w, out_bytes, out_size, err);
    for (int id = 0; id < CNA__CNB_SECTION_END; id++) cna__free(&w.alloc, w.sec[id].p);
    cna__free(&w.alloc, w.shared);
    cna__free(&w.alloc, (void *)w.tracks);
    return r;
}

void cna_cnb_bytes_free(const cna_cnb_write_options *opts, void *bytes)
{
    if (!bytes) return;
    cna_allocator a = cna__allocator_resolve(opts ? &opts->allocator : NULL);
    cna__free(&a, bytes);
}

cna_result cna_cnb_write_file(const cna_model *model, const cna_cnb_write_options *opts,
                              const char *path, cna_error *err)
{
    if (!path) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "cnb write: NULL path");
    void *bytes = NULL;
    size_t size = 0;
    cna_result r = cna_cnb_write_memory(model, opts, &bytes, &size, err);
    if (r) return r;
    r = cna__file_write(path, bytes, size, opts ? &opts->allocator : NULL, err);
    cna_cnb_bytes_free(opts, bytes);
    return r;
}
