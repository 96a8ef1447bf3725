/* The "unused-object" diagnostic: top-level objects nothing refers to. */
#include "gltf/gltf_internal.h"

void cna__gltf_report_unused(cna__gltf_ctx *c)
{
    static const char *const names[CNA__KIND_COUNT] = {"bufferViews", "accessors", "images", "samplers", "textures",
                                                       "materials",   "meshes",    "skins",  "cameras"};
    const size_t counts[CNA__KIND_COUNT] = {c->n_views,    c->n_accessors, c->n_images,
                                            c->n_samplers, c->n_textures,  c->n_materials,
                                            c->n_meshes,   c->n_skins,     c->n_cameras};
    for (int k = 0; k < CNA__KIND_COUNT; k++)
        for (size_t i = 0; i < counts[k]; i++)
            if (!c->used[k][i]) cna__gltf_diag(c, CNA__DIAG_UNUSED_OBJECT, "%s[%zu] is never used", names[k], i);
}
