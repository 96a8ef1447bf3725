/* Node graph rules: every node has at most one parent, no cycles (a forest),
 * scene roots are roots and listed once; skins list each joint once and give
 * enough MAT4 FLOAT inverse bind matrices. */
#include <stdio.h>

#include "gltf/gltf_internal.h"

static cna_result assign_parents(cna__gltf_ctx *c)
{
    for (size_t i = 0; i < c->n_nodes; i++) {
        const cna_gltf_node *n = &c->nodes[i];
        for (size_t k = 0; k < n->child_count; k++) {
            int32_t child = n->children[k];
            if ((size_t)child == i)
                return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                                  "nodes[%zu].children[%zu]: the node lists itself as a child (cycle)", i, k);
            if (c->nodes[child].parent >= 0)
                return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                                  "nodes[%zu].children[%zu]: nodes[%d] already has the parent nodes[%d]", i, k,
                                  (int)child, (int)c->nodes[child].parent);
            c->nodes[child].parent = (int32_t)i;
        }
    }
    return CNA_OK;
}

/* With at most one parent each, a cycle is a parent chain that returns to a
 * node of the same walk. state: 0 unvisited, 1 on the current walk, 2 done. */
static cna_result check_cycles(cna__gltf_ctx *c)
{
    uint8_t *state = (uint8_t *)cna__gltf_arena_calloc(&c->scratch, c->n_nodes, 1);
    if (!state && c->n_nodes) return cna__error(c->err, CNA_ERROR_OUT_OF_MEMORY, "nodes: out of memory");
    for (size_t i = 0; i < c->n_nodes; i++) {
        int32_t n = (int32_t)i;
        while (n >= 0 && state[n] == 0) {
            state[n] = 1;
            n = c->nodes[n].parent;
        }
        if (n >= 0 && state[n] == 1)
            return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                              "nodes[%d]: the node is its own ancestor (the node graph has a cycle)", (int)n);
        for (n = (int32_t)i; n >= 0 && state[n] == 1; n = c->nodes[n].parent) state[n] = 2;
    }
    return CNA_OK;
}

static cna_result check_scenes(cna__gltf_ctx *c, uint32_t *stamp)
{
    for (size_t s = 0; s < c->n_scenes; s++) {
        const cna_gltf_scene *scene = &c->scenes[s];
        for (size_t k = 0; k < scene->node_count; k++) {
            int32_t n = scene->nodes[k];
            if (c->nodes[n].parent >= 0)
                return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                                  "scenes[%zu].nodes[%zu]: nodes[%d] is not a root (its parent is nodes[%d])", s, k,
                                  (int)n, (int)c->nodes[n].parent);
            if (stamp[n] == (uint32_t)s + 1)
                return cna__error(c->err, CNA_ERROR_INVALID_DATA, "scenes[%zu].nodes[%zu]: nodes[%d] is listed twice",
                                  s, k, (int)n);
            stamp[n] = (uint32_t)s + 1;
        }
    }
    return CNA_OK;
}

static cna_result check_skin(cna__gltf_ctx *c, size_t s, uint32_t *stamp, uint32_t mark)
{
    const cna_gltf_skin *skin = &c->skins[s];
    for (size_t k = 0; k < skin->joint_count; k++) {
        int32_t n = skin->joints[k];
        if (stamp[n] == mark)
            return cna__error(c->err, CNA_ERROR_INVALID_DATA, "skins[%zu].joints[%zu]: nodes[%d] is listed twice", s,
                              k, (int)n);
        stamp[n] = mark;
    }
    if (skin->inverse_bind_matrices < 0) return CNA_OK;
    const cna_gltf_accessor *a = &c->accessors[skin->inverse_bind_matrices];
    char desc[64];
    cna__gltf_accessor_describe(a, desc, sizeof desc);
    if (a->type != CNA_GLTF_TYPE_MAT4 || a->component_type != CNA_GLTF_COMPONENT_FLOAT || a->normalized)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                          "skins[%zu].inverseBindMatrices: accessors[%d] is %s; expected MAT4 FLOAT", s,
                          (int)skin->inverse_bind_matrices, desc);
    if (a->count < skin->joint_count)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                          "skins[%zu].inverseBindMatrices: accessors[%d] has %zu matrices, fewer than the %zu joints",
                          s, (int)skin->inverse_bind_matrices, a->count, skin->joint_count);
    return CNA_OK;
}

cna_result cna__gltf_validate_nodes(cna__gltf_ctx *c)
{
    cna_result r = assign_parents(c);
    if (!r) r = check_cycles(c);
    if (r) return r;
    uint32_t *stamp = (uint32_t *)cna__gltf_arena_calloc(&c->scratch, c->n_nodes, sizeof *stamp);
    if (!stamp && c->n_nodes) return cna__error(c->err, CNA_ERROR_OUT_OF_MEMORY, "nodes: out of memory");
    r = check_scenes(c, stamp);
    for (size_t s = 0; !r && s < c->n_skins; s++) r = check_skin(c, s, stamp, (uint32_t)(c->n_scenes + s + 1));
    return r;
}
