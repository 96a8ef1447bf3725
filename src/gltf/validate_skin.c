/* Skinned nodes: every primitive of a skinned node's mesh has JOINTS_0 and
 * WEIGHTS_0, and every joint index with a non-zero weight is below the skin's
 * joint count. The largest such index is computed once per primitive. */
#include <stdio.h>

#include "gltf/gltf_internal.h"

typedef struct joint_max {
    size_t *first;   /* first primitive slot of each mesh */
    uint8_t *done;
    uint32_t *value; /* largest influential joint index (0 when none) */
    size_t *vertex;  /* where it occurs */
    const char **attribute;
} joint_max;

static void scan_primitive(cna__gltf_ctx *c, const cna_gltf_primitive *p, joint_max *jm, size_t slot)
{
    uint32_t best = 0;
    size_t where = 0;
    const char *name = "JOINTS_0";
    for (size_t i = 0; i < p->attribute_count; i++) {
        const cna_gltf_attribute *at = &p->attributes[i];
        if (at->kind != CNA_GLTF_ATTRIBUTE_JOINTS) continue;
        int32_t wacc = cna_gltf_primitive_find_attribute(p, CNA_GLTF_ATTRIBUTE_WEIGHTS, at->set);
        const cna_gltf_accessor *ja = &c->accessors[at->accessor], *wa = &c->accessors[wacc];
        if ((ja->buffer_view < 0 && !ja->is_sparse) || (wa->buffer_view < 0 && !wa->is_sparse))
            continue; /* all joints or all weights zero: no influence above joint 0 */
        for (size_t v = 0; v < p->vertex_count; v++) {
            uint32_t j[4];
            float w[4];
            cna__gltf_accessor_element_uints(&c->doc->pub, ja, v, j);
            cna__gltf_accessor_element_floats(&c->doc->pub, wa, v, w);
            for (int k = 0; k < 4; k++)
                if (w[k] != 0.0f && j[k] > best) best = j[k], where = v, name = at->name;
        }
    }
    jm->value[slot] = best;
    jm->vertex[slot] = where;
    jm->attribute[slot] = name;
    jm->done[slot] = 1;
}

static cna_result check_node(cna__gltf_ctx *c, size_t n, joint_max *jm)
{
    const cna_gltf_node *node = &c->nodes[n];
    const cna_gltf_mesh *mesh = &c->meshes[node->mesh];
    const cna_gltf_skin *skin = &c->skins[node->skin];
    for (size_t i = 0; i < mesh->primitive_count; i++) {
        const cna_gltf_primitive *p = &mesh->primitives[i];
        if (cna_gltf_primitive_find_attribute(p, CNA_GLTF_ATTRIBUTE_JOINTS, 0) < 0 ||
            cna_gltf_primitive_find_attribute(p, CNA_GLTF_ATTRIBUTE_WEIGHTS, 0) < 0)
            return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                              "nodes[%zu]: skinned by skins[%d], but meshes[%d].primitives[%zu] has no "
                              "JOINTS_0/WEIGHTS_0",
                              n, (int)node->skin, (int)node->mesh, i);
        size_t slot = jm->first[node->mesh] + i;
        if (!jm->done[slot]) scan_primitive(c, p, jm, slot);
        if ((size_t)jm->value[slot] >= skin->joint_count)
            return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                              "nodes[%zu]: meshes[%d].primitives[%zu].attributes.%s uses joint %u (vertex %zu), but "
                              "skins[%d] has %zu joints",
                              n, (int)node->mesh, i, jm->attribute[slot], (unsigned)jm->value[slot], jm->vertex[slot],
                              (int)node->skin, skin->joint_count);
    }
    return CNA_OK;
}

cna_result cna__gltf_validate_skinning(cna__gltf_ctx *c)
{
    if (c->n_skins == 0) return CNA_OK;
    joint_max jm;
    size_t total = 0;
    jm.first = (size_t *)cna__gltf_arena_calloc(&c->scratch, c->n_meshes + 1, sizeof *jm.first);
    if (!jm.first) return cna__error(c->err, CNA_ERROR_OUT_OF_MEMORY, "skins: out of memory");
    for (size_t m = 0; m < c->n_meshes; m++) {
        jm.first[m] = total;
        total += c->meshes[m].primitive_count;
    }
    jm.done = (uint8_t *)cna__gltf_arena_calloc(&c->scratch, total, 1);
    jm.value = (uint32_t *)cna__gltf_arena_calloc(&c->scratch, total, sizeof *jm.value);
    jm.vertex = (size_t *)cna__gltf_arena_calloc(&c->scratch, total, sizeof *jm.vertex);
    jm.attribute = (const char **)cna__gltf_arena_calloc(&c->scratch, total, sizeof *jm.attribute);
    if (total && (!jm.done || !jm.value || !jm.vertex || !jm.attribute))
        return cna__error(c->err, CNA_ERROR_OUT_OF_MEMORY, "skins: out of memory");
    for (size_t n = 0; n < c->n_nodes; n++) {
        if (c->nodes[n].skin < 0) continue;
        cna_result r = check_node(c, n, &jm);
        if (r) return r;
    }
    return CNA_OK;
}
