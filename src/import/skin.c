/*
 * BuildSkeleton (spec: "Scene indices are not palette indices") and the root
 * prefixes (spec: "Why the prefix must stay separate": the ancestry above a root joint), one
 * cna_model_skin per node that instances a skinned mesh.
 */
#include <string.h>

#include "model/model_internal.h"

/* Temporary per-skin working arrays (arena). */
typedef struct skin_work {
    int32_t *ordinal_of_node;   /* doc node_count entries, -1 = not a joint */
    int32_t *parent_ordinal;    /* J: ordinal of the nearest joint ancestor, -1 = root */
    int32_t *child_start;       /* J + 1: the child joints of ordinal k are */
    int32_t *children;          /* children[child_start[k] .. child_start[k + 1]), in ordinal order */
    size_t capacity;            /* entries of parent_ordinal and children */
} skin_work;

static cna_result oom(cna_error *err)
{
    return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "import: out of memory (skins)");
}

static cna_result build_skin(cna__import_ctx *ctx, skin_work *w, size_t model_skin,
                             size_t mesh_index, cna_error *err)
{
    const cna_gltf_document *doc = ctx->doc;
    cna_model *m = &ctx->model->pub;
    cna_model_mesh *mesh = &m->meshes[mesh_index];
    int32_t mesh_node = mesh->gltf_node;
    int32_t gs_index = doc->nodes[mesh_node].skin;
    const cna_gltf_skin *gs = &doc->skins[gs_index];
    size_t J = gs->joint_count;
    cna_model_skin *skin = &m->skins[model_skin];

    if (J > CNA_EFFECT_MAX_BONES && !ctx->split_palettes)
        return cna__error(err, CNA_ERROR_LIMIT,
                          "skins[%d]: %zu joints; at most %d are supported; import with split_palettes "
                          "(cna convert --split-palettes) to split its parts",
                          (int)gs_index, J, CNA_EFFECT_MAX_BONES);
    if (J == 0)
        return cna__error(err, CNA_ERROR_INVALID_DATA, "skins[%d]: no joints", (int)gs_index);

    /* Joint ordinals by node; a joint listed twice is refused. */
    for (size_t k = 0; k < J; k++) {
        int32_t node = gs->joints[k];
        if (node < 0 || (size_t)node >= doc->node_count)
            return cna__error(err, CNA_ERROR_INVALID_DATA,
                              "skins[%d].joints[%zu]: node %d does not exist", (int)gs_index, k,
                              (int)node);
        if (w->ordinal_of_node[node] >= 0)
            return cna__error(err, CNA_ERROR_INVALID_DATA,
                              "skins[%d].joints[%zu]: node %d is already joints[%d]",
                              (int)gs_index, k, (int)node, (int)w->ordinal_of_node[node]);
        w->ordinal_of_node[node] = (int32_t)k;
    }
    /* Nearest joint ancestor over the whole node graph (J distinct nodes:
     * J <= w->capacity). */
    for (size_t k = 0; k < J; k++) {
        w->parent_ordinal[k] = -1;
        for (int32_t n = doc->nodes[gs->joints[k]].parent; n >= 0; n = doc->nodes[n].parent) {
            if (w->ordinal_of_node[n] >= 0) {
                w->parent_ordinal[k] = w->ordinal_of_node[n];
                break;
            }
        }
    }

    int32_t *ordinal_to_palette = (int32_t *)cna__arena_calloc(ctx->arena, J, sizeof(int32_t));
    int32_t *palette_to_ordinal = (int32_t *)cna__arena_calloc(ctx->arena, J, sizeof(int32_t));
    int32_t *hierarchy = (int32_t *)cna__arena_calloc(ctx->arena, J, sizeof(int32_t));
    int32_t *palette_to_node = (int32_t *)cna__arena_calloc(ctx->arena, J, sizeof(int32_t));
    int32_t *palette_to_gltf = (int32_t *)cna__arena_calloc(ctx->arena, J, sizeof(int32_t));
    int32_t *node_to_palette =
        (int32_t *)cna__arena_calloc(ctx->arena, m->bone_count ? m->bone_count : 1, sizeof(int32_t));
    int32_t *roots = (int32_t *)cna__arena_calloc(ctx->arena, J, sizeof(int32_t));
    int32_t *meshes = (int32_t *)cna__arena_calloc(ctx->arena, 1, sizeof(int32_t));
    cna_mat4 *bind = (cna_mat4 *)cna__arena_calloc(ctx->arena, J, sizeof(cna_mat4));
    cna_mat4 *inverse_bind = (cna_mat4 *)cna__arena_calloc(ctx->arena, J, sizeof(cna_mat4));
    cna_mat4 *prefix = (cna_mat4 *)cna__arena_calloc(ctx->arena, J, sizeof(cna_mat4));
    cna_mat4 *fold = (cna_mat4 *)cna__arena_calloc(ctx->arena, J, sizeof(cna_mat4));
    float *ibm = (float *)cna__arena_calloc(ctx->arena, J, 16 * sizeof(float));
    if (!ordinal_to_palette || !palette_to_ordinal || !hierarchy || !palette_to_node ||
        !palette_to_gltf || !node_to_palette || !roots || !meshes || !bind || !inverse_bind ||
        !prefix || !fold || !ibm)
        return oom(err);

    /* Breadth-first, parent-before-child order: the roots in ordinal order,
     * then each dequeued joint's child joints in ordinal order. */
    size_t count = 0, root_count = 0;
    for (size_t k = 0; k < J; k++) {
        ordinal_to_palette[k] = -1;
        if (w->parent_ordinal[k] < 0) {
            ordinal_to_palette[k] = (int32_t)count;
            palette_to_ordinal[count] = (int32_t)k;
            roots[root_count++] = (int32_t)count;
            count++;
        }
    }
    /* Each joint's child joints in ordinal order (a counting sort by parent),
     * so the queue visits each joint once: linear in J (a scan of all J
     * joints per dequeued joint made a skin of 131,072 joints take seconds). */
    for (size_t k = 0; k <= J; k++) w->child_start[k] = 0;
    for (size_t k = 0; k < J; k++)
        if (w->parent_ordinal[k] >= 0) w->child_start[w->parent_ordinal[k] + 1]++;
    for (size_t k = 0; k < J; k++) w->child_start[k + 1] += w->child_start[k];
    for (size_t k = 0; k < J; k++) {
        int32_t pk = w->parent_ordinal[k];
        if (pk >= 0) w->children[w->child_start[pk]++] = (int32_t)k;
    }
    /* child_start[pk] now ends pk's run, which is where pk + 1's begins */
    for (size_t k = J; k > 0; k--) w->child_start[k] = w->child_start[k - 1];
    w->child_start[0] = 0;
    for (size_t head = 0; head < count; head++) {
        int32_t parent_k = palette_to_ordinal[head];
        for (int32_t c = w->child_start[parent_k]; c < w->child_start[parent_k + 1]; c++) {
            int32_t k = w->children[c];
            if (ordinal_to_palette[k] >= 0) continue;
            ordinal_to_palette[k] = (int32_t)count;
            palette_to_ordinal[count++] = (int32_t)k;
        }
    }
    if (count != J) /* unreachable for a forest; kept so a bad graph cannot index out of range */
        return cna__error(err, CNA_ERROR_INVALID_DATA,
                          "skins[%d]: the joints' parent chains do not form a tree", (int)gs_index);

    /* Inverse bind matrices in file (ordinal) order; identity when absent. */
    if (gs->inverse_bind_matrices >= 0) {
        if (cna_gltf_accessor_float_count(doc, gs->inverse_bind_matrices) < J * 16)
            return cna__error(err, CNA_ERROR_INVALID_DATA,
                              "skins[%d].inverseBindMatrices: fewer than %zu matrices",
                              (int)gs_index, J);
        size_t total = cna_gltf_accessor_float_count(doc, gs->inverse_bind_matrices);
        float *all = ibm;
        if (total > J * 16) {
            all = (float *)cna__arena_calloc(ctx->arena, total, sizeof(float));
            if (!all) return oom(err);
        }
        cna_result r = cna_gltf_accessor_read_floats(doc, gs->inverse_bind_matrices, all, total, err);
        if (r != CNA_OK) return r;
        if (all != ibm) memcpy(ibm, all, J * 16 * sizeof(float));
    }

    const cna_mat4 *w_mesh = &ctx->node_world[mesh_node];
    cna_mat4 inv_mesh;
    bool mesh_invertible = cna_mat4_inverse(&inv_mesh, w_mesh);
    if (!mesh_invertible) {
        cna_mat4_identity(&inv_mesh);
        if (!cna__model_diag(ctx->model, "skin-mesh-node-singular",
                             "nodes[%d]: the world transform of the node instancing skins[%d] is "
                             "singular; its cancellation is left out of the root prefix",
                             (int)mesh_node, (int)gs_index))
            return oom(err);
    }

    for (size_t p = 0; p < J; p++) {
        int32_t k = palette_to_ordinal[p];
        int32_t node = gs->joints[k];
        palette_to_gltf[p] = node;
        palette_to_node[p] = m->gltf_node_to_bone[node];
        int32_t pk = w->parent_ordinal[k];
        hierarchy[p] = pk >= 0 ? ordinal_to_palette[pk] : -1;
        /* fold[p] = L_cm · ... · L_c1 over the non-joint nodes c1 (the joint's
         * parent) .. cm (just below the parent joint); bind[p] = fold[p] · L_joint. */
        cna_mat4_identity(&fold[p]);
        if (pk >= 0) {
            for (int32_t n = doc->nodes[node].parent; n >= 0 && n != gs->joints[pk];
                 n = doc->nodes[n].parent) {
                cna_mat4_mul(&fold[p], &ctx->node_local[n], &fold[p]);
                if (ctx->node_animated[n] &&
                    !cna__model_diag(ctx->model, CNA_MODEL_DIAG_ANIMATED_NODE_FOLDED,
                                     "skins[%d]: node %d between joints %d and %d is animated; it "
                                     "is folded into joint %d, whose keys compose its motion",
                                     (int)gs_index, (int)n, (int)gs->joints[pk], (int)node, (int)node))
                    return oom(err);
            }
            cna_mat4_mul(&bind[p], &fold[p], &ctx->node_local[node]);
            cna_mat4_identity(&prefix[p]);
        } else {
            bind[p] = ctx->node_local[node];
            /* prefix = inverse(W_mesh_node) · W_ancestor  (spec: W_ancestor * inverse(W_meshNode)),
             * W_ancestor = world of the root joint's parent over the whole node graph
             * (not stopping at skin.skeleton, not limited to the selected scene). */
            int32_t parent = doc->nodes[node].parent;
            if (parent >= 0)
                cna_mat4_mul(&prefix[p], &inv_mesh, &ctx->node_world[parent]);
            else
                prefix[p] = inv_mesh;
        }
        memcpy(inverse_bind[p].m, ibm + (size_t)k * 16, 16 * sizeof(float));
        if (gs->inverse_bind_matrices < 0) cna_mat4_identity(&inverse_bind[p]);
    }
    for (size_t b = 0; b < m->bone_count; b++) {
        int32_t k = w->ordinal_of_node[m->bones[b].gltf_node];
        node_to_palette[b] = k >= 0 ? ordinal_to_palette[k] : -1;
    }
    for (size_t k = 0; k < J; k++) w->ordinal_of_node[gs->joints[k]] = -1;   /* reset for the next skin */

    skin->data = cna_skinning_data_make((int32_t)J, hierarchy, bind, inverse_bind);
    skin->data.root_prefix = prefix;
    skin->data.root_prefix_count = J;
    skin->data.skeleton_root_node = gs->skeleton;
    if (gs->skeleton >= 0) {
        const char *nm = cna__arena_strdup(ctx->arena, doc->nodes[gs->skeleton].name);
        if (!nm) return oom(err);
        skin->data.skeleton_root_name = doc->nodes[gs->skeleton].name ? nm : NULL;
    }
    skin->gltf_skin = gs_index;
    skin->mesh_node = mesh->parent_bone;
    meshes[0] = (int32_t)mesh_index;
    skin->meshes = meshes;
    skin->mesh_count = 1;
    skin->joint_count = J;
    skin->ordinal_to_palette = ordinal_to_palette;
    skin->palette_to_ordinal = palette_to_ordinal;
    skin->node_to_palette = node_to_palette;
    skin->palette_to_node = palette_to_node;
    skin->palette_to_gltf_node = palette_to_gltf;
    skin->fold = fold;
    skin->roots = roots;
    skin->root_count = root_count;
    mesh->skin = (int32_t)model_skin;
    ctx->node_skin[mesh_node] = (int32_t)model_skin;
    return CNA_OK;
}

cna_result cna__import_skins(cna__import_ctx *ctx, cna_error *err)
{
    const cna_gltf_document *doc = ctx->doc;
    cna_model *m = &ctx->model->pub;
    size_t count = 0;
    for (size_t i = 0; i < m->mesh_count; i++)
        if (doc->nodes[m->meshes[i].gltf_node].skin >= 0) count++;
    if (count == 0) return CNA_OK;
    m->skins = (cna_model_skin *)cna__arena_calloc(ctx->arena, count, sizeof *m->skins);
    skin_work w;
    size_t n = doc->node_count;
    w.ordinal_of_node = (int32_t *)cna__arena_calloc(ctx->arena, n ? n : 1, sizeof(int32_t));
    /* A joint is a node listed once (a second listing is refused), so no
     * skin has more joints than the file has nodes. */
    w.capacity = ctx->split_palettes && n > CNA_EFFECT_MAX_BONES ? n : CNA_EFFECT_MAX_BONES;
    w.parent_ordinal = (int32_t *)cna__arena_calloc(ctx->arena, w.capacity, sizeof(int32_t));
    if (!m->skins || !w.ordinal_of_node || !w.parent_ordinal) return oom(err);
    /* scratch, freed below (not kept in the model's arena) */
    w.child_start = (int32_t *)cna__calloc(&ctx->allocator, w.capacity + 1, sizeof(int32_t));
    w.children = (int32_t *)cna__calloc(&ctx->allocator, w.capacity, sizeof(int32_t));
    cna_result r = w.child_start && w.children ? CNA_OK : oom(err);
    for (size_t i = 0; i < n; i++) w.ordinal_of_node[i] = -1;
    size_t s = 0;
    for (size_t i = 0; i < m->mesh_count && r == CNA_OK; i++) {
        if (doc->nodes[m->meshes[i].gltf_node].skin < 0) continue;
        r = build_skin(ctx, &w, s, i, err);
        if (r != CNA_OK) break;
        s++;
        m->skin_count = s;
    }
    cna__free(&ctx->allocator, w.child_start);
    cna__free(&ctx->allocator, w.children);
    return r;
}
