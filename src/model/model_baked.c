/*
 * Building a Model without a glTF document (the .cnb loader, src/baked/):
 * an empty model that cna_model_free accepts at every stage, and the device
 * upload of one part exactly as the mesh import does it.
 */
#include <string.h>

#include "model/model_internal.h"

cna__model *cna__model_new(const cna_allocator *allocator, const cna_device *device)
{
    cna_allocator alloc = cna__allocator_resolve(allocator);
    cna__model *model = (cna__model *)cna__calloc(&alloc, 1, sizeof *model);
    if (!model) return NULL;
    model->allocator = alloc;
    model->arena.allocator = alloc;
    model->device = device;
    model->pub.gltf_scene = -1;
    model->pub.size = 1.0f;
    return model;
}

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
