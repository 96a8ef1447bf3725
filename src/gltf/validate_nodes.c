/* Node graph rules: every node has at most one parent, no cycles (a forest),
 * scene roots are roots and listed once; skins list each joint once and give
 * enough MAT4 FLOAT inverse bind matrices. */
#include <math.h>
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

/* The forest walked depth-first once: a is an ancestor of (or equal to) b
 * when tin[a] <= tin[b] and tout[b] <= tout[a]; root[n] is n's tree root. */
typedef struct forest {
    uint32_t *tin, *tout;
    int32_t *root;
} forest;

static cna_result walk_forest(cna__gltf_ctx *c, forest *f)
{
    size_t n = c->n_nodes;
    f->tin = (uint32_t *)cna__gltf_arena_calloc(&c->scratch, n, sizeof *f->tin);
    f->tout = (uint32_t *)cna__gltf_arena_calloc(&c->scratch, n, sizeof *f->tout);
    f->root = (int32_t *)cna__gltf_arena_calloc(&c->scratch, n, sizeof *f->root);
    int32_t *stack = (int32_t *)cna__gltf_arena_calloc(&c->scratch, n, sizeof *stack);
    size_t *next = (size_t *)cna__gltf_arena_calloc(&c->scratch, n, sizeof *next);
    if (n && (!f->tin || !f->tout || !f->root || !stack || !next))
        return cna__error(c->err, CNA_ERROR_OUT_OF_MEMORY, "nodes: out of memory");
    uint32_t time = 0;
    for (size_t r = 0; r < n; r++) {
        if (c->nodes[r].parent >= 0) continue;
        size_t sp = 0;
        stack[sp++] = (int32_t)r;
        f->tin[r] = time++;
        f->root[r] = (int32_t)r;
        while (sp) {
            int32_t top = stack[sp - 1];
            const cna_gltf_node *node = &c->nodes[top];
            if (next[top] < node->child_count) {
                int32_t ch = node->children[next[top]++];
                f->tin[ch] = time++;
                f->root[ch] = (int32_t)r;
                stack[sp++] = ch;
            } else {
                f->tout[top] = time;
                sp--;
            }
        }
    }
    return CNA_OK;
}

static bool is_ancestor_or_self(const forest *f, int32_t a, int32_t b)
{
    return f->tin[a] <= f->tin[b] && f->tout[b] <= f->tout[a];
}

/* Inverse bind matrices: finite, last row (0, 0, 0, 1) (affine). */
static cna_result check_ibm_values(cna__gltf_ctx *c, size_t s, const cna_gltf_skin *skin)
{
    const cna_gltf_accessor *a = &c->accessors[skin->inverse_bind_matrices];
    if (a->buffer_view < 0 && !a->is_sparse) return CNA_OK; /* placeholder zeros, as in the glTF validator */
    for (size_t k = 0; k < skin->joint_count; k++) {
        float m[16];
        cna__gltf_accessor_element_floats(&c->doc->pub, a, k, m);
        for (int i = 0; i < 16; i++)
            if (!isfinite(m[i]))
                return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                                  "skins[%zu].inverseBindMatrices: matrix %zu has the non-finite value %g at %d", s, k,
                                  (double)m[i], i);
        if (fabsf(m[3]) > CNA__IBM_ROW_TOLERANCE || fabsf(m[7]) > CNA__IBM_ROW_TOLERANCE ||
            fabsf(m[11]) > CNA__IBM_ROW_TOLERANCE || fabsf(m[15] - 1.0f) > CNA__IBM_ROW_TOLERANCE)
            return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                              "skins[%zu].inverseBindMatrices: matrix %zu has the last row (%g, %g, %g, %g); expected "
                              "(0, 0, 0, 1)",
                              s, k, (double)m[3], (double)m[7], (double)m[11], (double)m[15]);
    }
    return CNA_OK;
}

static cna_result check_skin(cna__gltf_ctx *c, size_t s, uint32_t *stamp, uint32_t mark, const forest *f)
{
    const cna_gltf_skin *skin = &c->skins[s];
    size_t hint_fails = SIZE_MAX; /* the first joint skin.skeleton is not an ancestor of (or itself) */
    for (size_t k = 0; k < skin->joint_count; k++) {
        int32_t n = skin->joints[k];
        if (stamp[n] == mark)
            return cna__error(c->err, CNA_ERROR_INVALID_DATA, "skins[%zu].joints[%zu]: nodes[%d] is listed twice", s,
                              k, (int)n);
        stamp[n] = mark;
        if (f->root[n] != f->root[skin->joints[0]])
            return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                              "skins[%zu].joints[%zu]: nodes[%d] is in the tree of nodes[%d], joints[0] in the tree of "
                              "nodes[%d]; the joints have no common root",
                              s, k, (int)n, (int)f->root[n], (int)f->root[skin->joints[0]]);
        if (hint_fails == SIZE_MAX && skin->skeleton >= 0 && !is_ancestor_or_self(f, skin->skeleton, n))
            hint_fails = k;
    }
    /* skin.skeleton is a hint nothing computes from (the importer only records
     * it): one that is not a common root of the joints is read as absent. */
    if (hint_fails != SIZE_MAX) {
        cna__gltf_diag(c, CNA__DIAG_SKIN_SKELETON_HINT_IGNORED,
                       "skins[%zu].skeleton: nodes[%d] is not a common root of the skin's joints (not joints[%zu] "
                       "(nodes[%d]) nor one of its ancestors); ignored",
                       s, (int)skin->skeleton, hint_fails, (int)skin->joints[hint_fails]);
        c->skins[s].skeleton = -1;
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
    return check_ibm_values(c, s, skin);
}

/* glTF 2.0: when a skin is used by a node within a scene, the joints' common
 * root must belong to the same scene. Scenes list tree roots (each at most
 * once per scene), so: every scene that lists the skinned node's tree root
 * also lists the joints' tree root. scenes_of[] is a CSR list of scene
 * indices per root, in increasing order. */
static cna_result check_skin_scenes(cna__gltf_ctx *c, const forest *f)
{
    size_t n = c->n_nodes, total = 0;
    size_t *first = (size_t *)cna__gltf_arena_calloc(&c->scratch, n + 1, sizeof *first);
    int32_t *checked = (int32_t *)cna__gltf_arena_calloc(&c->scratch, n, sizeof *checked); /* joints' root + 1 */
    if (!first || (n && !checked)) return cna__error(c->err, CNA_ERROR_OUT_OF_MEMORY, "nodes: out of memory");
    for (size_t s = 0; s < c->n_scenes; s++)
        for (size_t k = 0; k < c->scenes[s].node_count; k++) first[c->scenes[s].nodes[k] + 1]++;
    for (size_t i = 0; i < n; i++) first[i + 1] += first[i];
    total = first[n];
    uint32_t *scenes_of = (uint32_t *)cna__gltf_arena_calloc(&c->scratch, total ? total : 1, sizeof *scenes_of);
    size_t *fill = (size_t *)cna__gltf_arena_calloc(&c->scratch, n ? n : 1, sizeof *fill);
    if (!scenes_of || !fill) return cna__error(c->err, CNA_ERROR_OUT_OF_MEMORY, "nodes: out of memory");
    for (size_t s = 0; s < c->n_scenes; s++)
        for (size_t k = 0; k < c->scenes[s].node_count; k++) {
            int32_t r = c->scenes[s].nodes[k];
            scenes_of[first[r] + fill[r]++] = (uint32_t)s;
        }
    for (size_t i = 0; i < n; i++) {
        const cna_gltf_node *node = &c->nodes[i];
        if (node->skin < 0) continue;
        int32_t rn = f->root[i], rj = f->root[c->skins[node->skin].joints[0]];
        if (rn == rj || checked[rn] == rj + 1) continue;
        size_t a = first[rn], b = first[rj];
        for (; a < first[rn + 1]; a++) {
            while (b < first[rj + 1] && scenes_of[b] < scenes_of[a]) b++;
            if (b == first[rj + 1] || scenes_of[b] != scenes_of[a])
                return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                                  "nodes[%zu]: skinned by skins[%d] in scenes[%u], but the joints' common root (in the "
                                  "tree of nodes[%d]) is not in that scene",
                                  i, (int)node->skin, (unsigned)scenes_of[a], (int)rj);
        }
        checked[rn] = rj + 1;
    }
    return CNA_OK;
}

/* EXT_mesh_gpu_instancing values (types and counts were checked by the
 * parser): every component finite; a rotation that is not unit length is
 * the diagnostic quaternion-not-unit, as a node's rotation. */
static cna_result check_instances(cna__gltf_ctx *c, size_t node)
{
    const cna_gltf_node *n = &c->nodes[node];
    static const char *const names[3] = {"TRANSLATION", "ROTATION", "SCALE"};
    const int32_t accs[3] = {n->instance_translation, n->instance_rotation, n->instance_scale};
    for (int k = 0; k < 3; k++) {
        if (accs[k] < 0) continue;
        const cna_gltf_accessor *a = &c->accessors[accs[k]];
        const size_t comps = k == 1 ? 4 : 3;
        const bool dense_finite = cna__gltf_accessor_all_finite(&c->doc->pub, a);
        if (dense_finite && k != 1) continue;
        for (size_t e = 0; e < a->count; e++) {
            float v[4];
            cna__gltf_accessor_element_floats(&c->doc->pub, a, e, v);
            for (size_t i = 0; i < comps; i++)
                if (!isfinite(v[i])) {
                    char text[32];
                    cna__gltf_fmt_float(text, sizeof text, v[i]);
                    return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                                      "nodes[%zu].extensions.EXT_mesh_gpu_instancing.attributes.%s: accessors[%d] "
                                      "element %zu is not finite (%s)",
                                      node, names[k], (int)accs[k], e, text);
                }
            if (k == 1 && !cna__gltf_quat_is_unit(v))
                cna__gltf_diag(c, CNA__DIAG_QUATERNION_NOT_UNIT,
                               "nodes[%zu].extensions.EXT_mesh_gpu_instancing.attributes.ROTATION: accessors[%d] "
                               "element %zu (%g, %g, %g, %g) is not unit length",
                               node, (int)accs[k], e, (double)v[0], (double)v[1], (double)v[2], (double)v[3]);
        }
    }
    return CNA_OK;
}

cna_result cna__gltf_validate_nodes(cna__gltf_ctx *c)
{
    cna_result r = assign_parents(c);
    if (!r) r = check_cycles(c);
    if (r) return r;
    uint32_t *stamp = (uint32_t *)cna__gltf_arena_calloc(&c->scratch, c->n_nodes, sizeof *stamp);
    if (!stamp && c->n_nodes) return cna__error(c->err, CNA_ERROR_OUT_OF_MEMORY, "nodes: out of memory");
    forest f = {NULL, NULL, NULL};
    r = check_scenes(c, stamp);
    if (!r && c->n_skins) r = walk_forest(c, &f);
    for (size_t s = 0; !r && s < c->n_skins; s++) r = check_skin(c, s, stamp, (uint32_t)(c->n_scenes + s + 1), &f);
    if (!r && c->n_skins) r = check_skin_scenes(c, &f);
    for (size_t i = 0; !r && i < c->n_nodes; i++)
        if (c->nodes[i].instance_count > 0) r = check_instances(c, i);
    return r;
}
