/*
 * Per-instance morph state: current weights, blended vertex bytes, the bound
 * vertex buffer (include/cna/morph.h; spec: SetMorphWeightsEXT).
 */
#include <string.h>

#include "morph_internal.h"

struct cna_morph_instance {
    cna_allocator allocator;
    const cna_morph_target_data *data; /* borrowed */
    float *weights;                    /* target_count */
    unsigned char *vertices;           /* blend size bytes */
    size_t size;
    cna_buffer_id buffer;              /* borrowed; 0 = none */
};

cna_result cna_morph_instance_create(const cna_morph_target_data *data,
                                     const cna_allocator *allocator, cna_morph_instance **out,
                                     cna_error *err)
{
    if (!out) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "morph instance: NULL out");
    cna_result r = cna_morph_target_data_validate(data, err);
    if (r != CNA_OK) return r;
    cna_allocator a = cna__allocator_resolve(allocator);
    cna_morph_instance *inst = cna__calloc(&a, 1, sizeof *inst);
    float *weights = cna__calloc(&a, data->target_count, sizeof(float));
    unsigned char *vertices = cna__alloc(&a, data->base_size);
    if (!inst || !weights || !vertices) {
        cna__free(&a, inst);
        cna__free(&a, weights);
        cna__free(&a, vertices);
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY,
                          "morph instance: cannot allocate %zu weights and %zu vertex bytes",
                          data->target_count, data->base_size);
    }
    inst->allocator = a;
    inst->data = data;
    inst->weights = weights;
    inst->vertices = vertices;
    inst->size = data->base_size;
    if (data->initial_weight_count > 0)
        memcpy(weights, data->initial_weights, data->target_count * sizeof(float));
    cna__morph_blend_unchecked(data, weights, vertices);
    *out = inst;
    return CNA_OK;
}

void cna_morph_instance_free(cna_morph_instance *instance)
{
    if (!instance) return;
    cna_allocator a = instance->allocator;
    cna__free(&a, instance->weights);
    cna__free(&a, instance->vertices);
    cna__free(&a, instance);
}

const cna_morph_target_data *cna_morph_instance_data(const cna_morph_instance *instance)
{
    return instance ? instance->data : NULL;
}

const float *cna_morph_instance_weights(const cna_morph_instance *instance, size_t *count)
{
    if (count) *count = instance ? instance->data->target_count : 0;
    return instance ? instance->weights : NULL;
}

const void *cna_morph_instance_vertices(const cna_morph_instance *instance, size_t *size)
{
    if (size) *size = instance ? instance->size : 0;
    return instance ? instance->vertices : NULL;
}

void cna_morph_instance_bind_vertex_buffer(cna_morph_instance *instance, cna_buffer_id buffer)
{
    if (instance) instance->buffer = buffer;
}

cna_buffer_id cna_morph_instance_vertex_buffer(const cna_morph_instance *instance)
{
    return instance ? instance->buffer : 0;
}

cna_result cna_morph_set_weights(cna_morph_instance *instance, const float *weights, size_t count,
                                 const cna_device *device, cna_error *err)
{
    if (!instance) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "morph instance: NULL");
    cna_result r = cna__morph_check_weights(instance->data, weights, count, err);
    if (r != CNA_OK) return r;
    if (device && instance->buffer == 0)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "morph instance: no vertex buffer bound to upload to");
    cna__morph_blend_unchecked(instance->data, weights, instance->vertices);
    if (device) {
        r = cna_device_set_buffer_data(device, instance->buffer, 0, instance->vertices,
                                       instance->size, err);
        if (r != CNA_OK) {
            /* Restore the bytes of the current weights: the blend is deterministic. */
            cna__morph_blend_unchecked(instance->data, instance->weights, instance->vertices);
            cna__error_prefix(err, "morph instance: upload of %zu bytes to buffer %u",
                              instance->size, (unsigned)instance->buffer);
            return r;
        }
    }
    if (count > 0) memcpy(instance->weights, weights, count * sizeof(float));
    return CNA_OK;
}
