/*
 * Building a Model without a glTF document (the .cnb loader, src/baked/):
 * an empty model that cna_model_free accepts at every stage (the import
 * starts from one too).
 */
#include <string.h>

#include "model/model_internal.h"

cna__model *cna__model_new(const cna_allocator *allocator)
{
    cna_allocator alloc = cna__allocator_resolve(allocator);
    cna__model *model = (cna__model *)cna__calloc(&alloc, 1, sizeof *model);
    if (!model) return NULL;
    model->allocator = alloc;
    model->arena.allocator = alloc;
    model->pub.gltf_scene = -1;
    model->pub.size = 1.0f;
    atomic_init(&model->owner.refs, 1);
    atomic_init(&model->rig, NULL);
    model->pub.owner = &model->owner;
    return model;
}

