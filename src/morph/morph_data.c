/*
 * Morph carrier: canonical layouts, delta constructors and validation
 * (include/cna/morph.h).
 */
#include <math.h>
#include <string.h>

#include "morph_internal.h"

/* ------------------------------------------------------------------ canonical layouts */

typedef struct canonical_layout {
    uint32_t stride;
    int32_t tangent_offset; /* position is at 0 and the normal at 12 in every one */
} canonical_layout;

static const canonical_layout canonical_layouts[] = {
    {32, -1}, /* P N U0 */
    {52, -1}, /* P N U0 J W */
    {56, -1}, /* P N U0 J W C */
    {48, 32}, /* P N U0 T */
    {60, 32}, /* P N U0 T U1 C */
    {68, 32}, /* P N U0 T J W */
    {76, 32}, /* P N U0 T U1 J W */
    {80, 32}, /* P N U0 T U1 C J W */
};

cna_result cna_morph_layout_canonical(uint32_t stride, cna_morph_layout *out, cna_error *err)
{
    if (!out) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "morph layout: NULL out");
    for (size_t i = 0; i < sizeof canonical_layouts / sizeof canonical_layouts[0]; i++) {
        if (canonical_layouts[i].stride != stride) continue;
        out->stride = stride;
        out->position_offset = 0;
        out->normal_offset = 12;
        out->tangent_offset = canonical_layouts[i].tangent_offset;
        return CNA_OK;
    }
    return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                      "morph layout: stride %u is not canonical (canonical strides: 32, 52, 56, "
                      "48, 60, 68, 76, 80)",
                      (unsigned)stride);
}

cna_morph_deltas cna_morph_deltas_dense(const float *values, size_t count)
{
    cna_morph_deltas d;
    d.values = values;
    d.indices = NULL;
    d.count = count;
    return d;
}

cna_morph_deltas cna_morph_deltas_sparse(const uint32_t *indices, const float *values,
                                         size_t count)
{
    cna_morph_deltas d;
    d.values = values;
    d.indices = indices;
    d.count = count;
    return d;
}

/* ------------------------------------------------------------------ validation */

static const char *const slot_names[3] = {"position", "normal", "tangent"};
static const uint32_t slot_sizes[3] = {12, 12, 16};

static int32_t slot_offset(const cna_morph_layout *l, int kind)
{
    return kind == 0 ? l->position_offset : kind == 1 ? l->normal_offset : l->tangent_offset;
}

static cna_result check_layout(const cna_morph_layout *l, cna_error *err)
{
    if (l->stride == 0) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "layout.stride: 0");
    for (int k = 0; k < 3; k++) {
        int32_t off = slot_offset(l, k);
        if (off == -1) continue;
        if (off < -1)
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                              "layout.%s_offset: %d (must be -1 or a byte offset)", slot_names[k],
                              (int)off);
        if ((uint64_t)off + slot_sizes[k] > l->stride)
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                              "layout.%s_offset: %d + %u bytes exceed stride %u", slot_names[k],
                              (int)off, (unsigned)slot_sizes[k], (unsigned)l->stride);
    }
    for (int a = 0; a < 3; a++) {
        for (int b = a + 1; b < 3; b++) {
            int32_t oa = slot_offset(l, a), ob = slot_offset(l, b);
            if (oa < 0 || ob < 0) continue;
            if ((int64_t)oa < (int64_t)ob + slot_sizes[b] && (int64_t)ob < (int64_t)oa + slot_sizes[a])
                return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                                  "layout: %s slot (offset %d, %u bytes) overlaps %s slot (offset "
                                  "%d, %u bytes)",
                                  slot_names[b], (int)ob, (unsigned)slot_sizes[b], slot_names[a],
                                  (int)oa, (unsigned)slot_sizes[a]);
        }
    }
    return CNA_OK;
}

static const char *const kind_names[3] = {"positions", "normals", "tangents"};

static const cna_morph_deltas *deltas_of(const cna_morph_target *t, int kind)
{
    return kind == 0 ? &t->positions : kind == 1 ? &t->normals : &t->tangents;
}

static cna_result check_deltas(const cna_morph_target_data *d, size_t t, int kind,
                               cna_error *err)
{
    const cna_morph_deltas *dl = deltas_of(&d->targets[t], kind);
    if (dl->count == 0) return CNA_OK;
    if (!dl->values)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "targets[%zu].%s.values: NULL with count %zu", t, kind_names[kind],
                          dl->count);
    if (slot_offset(&d->layout, kind) < 0)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "targets[%zu].%s: %zu deltas but the layout has no %s slot", t,
                          kind_names[kind], dl->count, slot_names[kind]);
    size_t triples;
    if (!cna__mul_size(dl->count, 3, &triples))
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "targets[%zu].%s: count %zu overflows",
                          t, kind_names[kind], dl->count);
    if (!dl->indices) {
        if (dl->count != d->vertex_count)
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                              "targets[%zu].%s: %zu deltas; expected 0 or vertex_count %zu", t,
                              kind_names[kind], dl->count, d->vertex_count);
        return CNA_OK;
    }
    if (dl->count > d->vertex_count)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "targets[%zu].%s: %zu sparse deltas for vertex_count %zu", t,
                          kind_names[kind], dl->count, d->vertex_count);
    for (size_t j = 0; j < dl->count; j++) {
        uint32_t v = dl->indices[j];
        if (v >= d->vertex_count)
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                              "targets[%zu].%s.indices[%zu]: vertex %u out of range (vertex_count "
                              "%zu)",
                              t, kind_names[kind], j, (unsigned)v, d->vertex_count);
        if (j > 0 && v <= dl->indices[j - 1])
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                              "targets[%zu].%s.indices[%zu]: vertex %u does not increase after "
                              "indices[%zu] = %u",
                              t, kind_names[kind], j, (unsigned)v, j - 1,
                              (unsigned)dl->indices[j - 1]);
    }
    return CNA_OK;
}

static cna_result check_flat(const cna_morph_target_data *d, cna_error *err)
{
    if (d->layout.position_offset < 0 || d->layout.normal_offset < 0)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "recompute_flat_normals: the layout has no %s slot",
                          d->layout.position_offset < 0 ? "position" : "normal");
    if (d->triangle_index_count % 3 != 0)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "triangle_indices: %zu indices is not a multiple of 3",
                          d->triangle_index_count);
    if (d->triangle_index_count > 0 && !d->triangle_indices)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "triangle_indices: NULL with triangle_index_count %zu",
                          d->triangle_index_count);
    for (size_t i = 0; i < d->triangle_index_count; i++)
        if (d->triangle_indices[i] >= d->vertex_count)
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                              "triangle_indices[%zu]: vertex %u out of range (vertex_count %zu)", i,
                              (unsigned)d->triangle_indices[i], d->vertex_count);
    return CNA_OK;
}

cna_result cna__morph_check_weights(const cna_morph_target_data *data, const float *weights,
                                    size_t count, cna_error *err)
{
    if (count != data->target_count)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "weights: %zu given for %zu targets; exactly %zu are required (no "
                          "padding, no truncation)",
                          count, data->target_count, data->target_count);
    if (count > 0 && !weights)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "weights: NULL with count %zu", count);
    for (size_t i = 0; i < count; i++)
        if (!isfinite(weights[i]))
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "weights[%zu]: %g is not finite", i,
                              (double)weights[i]);
    return CNA_OK;
}

cna_result cna_morph_target_data_validate(const cna_morph_target_data *data, cna_error *err)
{
    if (!data) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "morph: NULL data");
    cna_result r = check_layout(&data->layout, err);
    if (r != CNA_OK) return r;

    size_t expected;
    if (!cna__mul_size(data->vertex_count, data->layout.stride, &expected))
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "base_size: vertex_count %zu * stride %u overflows", data->vertex_count,
                          (unsigned)data->layout.stride);
    if (data->base_size != expected)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "base_size: %zu bytes; vertex_count %zu * stride %u = %zu",
                          data->base_size, data->vertex_count, (unsigned)data->layout.stride,
                          expected);
    if (data->base_size > 0 && !data->base_vertices)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "base_vertices: NULL with base_size %zu",
                          data->base_size);

    if (data->target_count > 0 && !data->targets)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "targets: NULL with target_count %zu",
                          data->target_count);
    for (size_t t = 0; t < data->target_count; t++)
        for (int k = 0; k < 3; k++)
            if ((r = check_deltas(data, t, k, err)) != CNA_OK) return r;

    if (data->initial_weight_count > 0) {
        if (data->initial_weight_count != data->target_count)
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                              "initial_weights: %zu given for %zu targets; expected 0 or %zu",
                              data->initial_weight_count, data->target_count, data->target_count);
        if (!data->initial_weights)
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                              "initial_weights: NULL with initial_weight_count %zu",
                              data->initial_weight_count);
        for (size_t i = 0; i < data->initial_weight_count; i++)
            if (!isfinite(data->initial_weights[i]))
                return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                                  "initial_weights[%zu]: %g is not finite", i,
                                  (double)data->initial_weights[i]);
    }

    if (data->weight_track) {
        const cna_morph_weight_track *track = data->weight_track;
        if ((r = cna_morph_weight_track_validate(track, err)) != CNA_OK) {
            cna__error_prefix(err, "weight_track");
            return r;
        }
        if (track->key_count > 0 && track->target_count != data->target_count)
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                              "weight_track: %zu weights per key for %zu targets",
                              track->target_count, data->target_count);
    }

    if (data->recompute_flat_normals && (r = check_flat(data, err)) != CNA_OK) return r;
    return CNA_OK;
}

size_t cna_morph_blend_size(const cna_morph_target_data *data)
{
    size_t size;
    if (!data || !cna__mul_size(data->vertex_count, data->layout.stride, &size)) return 0;
    return size;
}
