/*
 * The model's counts and names read through functions (cna/model.h, "counts
 * and names"): what language bindings call instead of mirroring cna_model.
 * Every function accepts a NULL model and any index.
 */
#include "cna/model.h"

size_t cna_model_bone_count(const cna_model *model) { return model ? model->bone_count : 0; }

const char *cna_model_bone_name(const cna_model *model, size_t bone)
{
    return model && bone < model->bone_count ? model->bones[bone].name : NULL;
}

int32_t cna_model_bone_parent(const cna_model *model, size_t bone)
{
    return model && bone < model->bone_count ? model->bones[bone].parent : -1;
}

size_t cna_model_mesh_count(const cna_model *model) { return model ? model->mesh_count : 0; }

static const cna_model_mesh *mesh_of(const cna_model *model, size_t mesh)
{
    return model && mesh < model->mesh_count ? &model->meshes[mesh] : NULL;
}

const char *cna_model_mesh_name(const cna_model *model, size_t mesh)
{
    const cna_model_mesh *m = mesh_of(model, mesh);
    return m ? m->name : NULL;
}

size_t cna_model_mesh_part_count(const cna_model *model, size_t mesh)
{
    const cna_model_mesh *m = mesh_of(model, mesh);
    return m ? m->part_count : 0;
}

int32_t cna_model_mesh_parent_bone(const cna_model *model, size_t mesh)
{
    const cna_model_mesh *m = mesh_of(model, mesh);
    return m ? m->parent_bone : -1;
}

int32_t cna_model_mesh_skin(const cna_model *model, size_t mesh)
{
    const cna_model_mesh *m = mesh_of(model, mesh);
    return m ? m->skin : -1;
}

size_t cna_model_morph_target_count(const cna_model *model, size_t mesh)
{
    const cna_model_mesh *m = mesh_of(model, mesh);
    size_t count = 0;
    for (size_t p = 0; m && p < m->part_count; p++)
        if (m->parts[p].morph && m->parts[p].morph->target_count > count) count = m->parts[p].morph->target_count;
    return count;
}

const char *cna_model_morph_target_name(const cna_model *model, size_t mesh, size_t target)
{
    const cna_model_mesh *m = mesh_of(model, mesh);
    return m && m->target_names && target < m->target_name_count ? m->target_names[target] : NULL;
}

size_t cna_model_skin_count(const cna_model *model) { return model ? model->skin_count : 0; }

size_t cna_model_skin_joint_count(const cna_model *model, size_t skin)
{
    return model && skin < model->skin_count ? model->skins[skin].joint_count : 0;
}

size_t cna_model_animation_count(const cna_model *model) { return model ? model->animation_count : 0; }

int64_t cna_model_animation_duration(const cna_model *model, size_t animation)
{
    return model && model->node_clips && animation < model->animation_count
               ? model->node_clips[animation].duration
               : 0;
}
