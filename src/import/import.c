/*
 * glTF import orchestration (cna_model_import_gltf, cna_model_load_file) and
 * the first steps: rest transforms of the whole node graph, bones of the
 * selected scene, the mesh list, the model size.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/model_internal.h"

/* ------------------------------------------------------------------ rest transforms */

bool cna__quat_needs_normalising(cna_quat q)
{
    double n = sqrt((double)q.x * q.x + (double)q.y * q.y + (double)q.z * q.z + (double)q.w * q.w);
    return !(fabs(1.0 - n) <= CNA__QUAT_UNIT_TOLERANCE);
}

cna_quat cna__quat_unit(cna_quat q)
{
    return cna__quat_needs_normalising(q) ? cna_quat_normalize(q) : q;
}

void cna__node_rest_local(const cna_gltf_node *node, cna_mat4 *out)
{
    if (node->has_matrix) {
        *out = node->matrix;
        return;
    }
    /* local = T · R · S (ours; spec: S * R * T) */
    cna_mat4_compose(out, node->translation, cna__quat_unit(node->rotation), node->scale);
}

/* Rest local and world transforms of every node of the document (not only the
 * selected scene: a root joint's ancestry may lie outside it), and which nodes
 * an animation channel moves. */
static cna_result compute_node_transforms(cna__import_ctx *ctx, cna_error *err)
{
    const cna_gltf_document *doc = ctx->doc;
    size_t n = doc->node_count;
    ctx->node_local = (cna_mat4 *)cna__arena_calloc(ctx->arena, n ? n : 1, sizeof(cna_mat4));
    ctx->node_world = (cna_mat4 *)cna__arena_calloc(ctx->arena, n ? n : 1, sizeof(cna_mat4));
    ctx->node_animated = (uint8_t *)cna__arena_calloc(ctx->arena, n ? n : 1, 1);
    ctx->node_skin = (int32_t *)cna__arena_calloc(ctx->arena, n ? n : 1, sizeof(int32_t));
    int32_t *stack = (int32_t *)cna__arena_calloc(ctx->arena, n ? n : 1, sizeof(int32_t));
    if (!ctx->node_local || !ctx->node_world || !ctx->node_animated || !ctx->node_skin || !stack)
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "import: out of memory (%zu nodes)", n);
    size_t non_unit = 0, first_non_unit = 0;
    for (size_t i = 0; i < n; i++) {
        ctx->node_skin[i] = -1;
        cna__node_rest_local(&doc->nodes[i], &ctx->node_local[i]);
        if (!doc->nodes[i].has_matrix && cna__quat_needs_normalising(doc->nodes[i].rotation)) {
            if (non_unit++ == 0) first_non_unit = i;
        }
    }
    if (non_unit > 0) {
        const cna_quat q = doc->nodes[first_non_unit].rotation;
        char msg[256];
        snprintf(msg, sizeof msg, "nodes[%zu].rotation: (%g, %g, %g, %g) is not unit length; normalised",
                 first_non_unit, (double)q.x, (double)q.y, (double)q.z, (double)q.w);
        if (!cna__model_diag_n(ctx->model, CNA_MODEL_DIAG_NON_UNIT_QUATERNION, non_unit, msg))
            return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "import: out of memory");
    }
    /* world[child] = world[parent] · local[child], parents first (the graph is a forest). */
    for (size_t r = 0; r < n; r++) {
        if (doc->nodes[r].parent >= 0) continue;
        size_t top = 0;
        stack[top++] = (int32_t)r;
        ctx->node_world[r] = ctx->node_local[r];
        while (top > 0) {
            int32_t node = stack[--top];
            const cna_gltf_node *gn = &doc->nodes[node];
            for (size_t c = 0; c < gn->child_count; c++) {
                int32_t child = gn->children[c];
                cna_mat4_mul(&ctx->node_world[child], &ctx->node_world[node], &ctx->node_local[child]);
                if (top < n) stack[top++] = child;
            }
        }
    }
    for (size_t a = 0; a < doc->animation_count; a++) {
        const cna_gltf_animation *anim = &doc->animations[a];
        for (size_t c = 0; c < anim->channel_count; c++) {
            const cna_gltf_animation_channel *ch = &anim->channels[c];
            if (ch->target_node < 0 || (size_t)ch->target_node >= n) continue;
            if (ch->path == CNA_GLTF_PATH_TRANSLATION || ch->path == CNA_GLTF_PATH_ROTATION ||
                ch->path == CNA_GLTF_PATH_SCALE)
                ctx->node_animated[ch->target_node] = 1;
        }
    }
    return CNA_OK;
}

/* ------------------------------------------------------------------ bones */

cna_result cna__import_bones(cna__import_ctx *ctx, int32_t scene, cna_error *err)
{
    const cna_gltf_document *doc = ctx->doc;
    cna_model *m = &ctx->model->pub;
    size_t n = doc->node_count;
    const int32_t *roots;
    size_t root_count = 0;
    int32_t *all_roots = NULL;
    if (scene >= 0) {
        roots = doc->scenes[scene].nodes;
        root_count = doc->scenes[scene].node_count;
    } else {
        /* No scene in the file: every root node, in file order. */
        all_roots = (int32_t *)cna__arena_calloc(ctx->arena, n ? n : 1, sizeof(int32_t));
        if (!all_roots) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "import: out of memory");
        for (size_t i = 0; i < n; i++)
            if (doc->nodes[i].parent < 0) all_roots[root_count++] = (int32_t)i;
        roots = all_roots;
    }
    m->gltf_scene = scene;
    int32_t *node_to_bone = (int32_t *)cna__arena_calloc(ctx->arena, n ? n : 1, sizeof(int32_t));
    int32_t *stack_node = (int32_t *)cna__arena_calloc(ctx->arena, n ? n : 1, sizeof(int32_t));
    int32_t *stack_parent = (int32_t *)cna__arena_calloc(ctx->arena, n ? n : 1, sizeof(int32_t));
    cna_model_bone *bones = (cna_model_bone *)cna__arena_calloc(ctx->arena, n ? n : 1, sizeof *bones);
    if (!node_to_bone || !stack_node || !stack_parent || !bones)
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "import: out of memory (%zu nodes)", n);
    for (size_t i = 0; i < n; i++) node_to_bone[i] = -1;

    /* Depth-first pre-order: scene roots in order, each followed by its subtree,
     * children in file order (pushed in reverse so the first pops first). */
    size_t count = 0;
    for (size_t r = 0; r < root_count; r++) {
        size_t top = 0;
        stack_node[top] = roots[r];
        stack_parent[top++] = -1;
        while (top > 0) {
            top--;
            int32_t node = stack_node[top];
            int32_t parent = stack_parent[top];
            if (node < 0 || (size_t)node >= n || node_to_bone[node] >= 0) continue;
            if (count >= n) break;
            const cna_gltf_node *gn = &doc->nodes[node];
            int32_t b = (int32_t)count++;
            node_to_bone[node] = b;
            cna_model_bone *bone = &bones[b];
            bone->name = cna__arena_strdup(ctx->arena, gn->name);
            if (!bone->name) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "import: out of memory");
            bone->parent = parent;
            bone->gltf_node = node;
            bone->rest_transform = ctx->node_local[node];
            bone->has_matrix = gn->has_matrix;
            if (gn->has_matrix) {
                cna_mat4_decompose(&gn->matrix, &bone->rest_translation, &bone->rest_rotation,
                                   &bone->rest_scale);
            } else {
                bone->rest_translation = gn->translation;
                bone->rest_rotation = cna__quat_unit(gn->rotation);
                bone->rest_scale = gn->scale;
            }
            for (size_t c = gn->child_count; c-- > 0;) {
                if (top >= n) break;
                stack_node[top] = gn->children[c];
                stack_parent[top++] = b;
            }
        }
    }
    m->bones = bones;
    m->bone_count = count;
    m->gltf_node_to_bone = node_to_bone;
    m->gltf_node_count = n;
    return CNA_OK;
}

/* ------------------------------------------------------------------ mesh list */

/* The instance transforms of an EXT_mesh_gpu_instancing node:
 * instances[i] = T(i) · R(i) · S(i), the rotation normalised (the reader
 * checked types, counts and finiteness); each world(i) = world[node] ·
 * instances[i] must stay finite. */
static cna_result import_instances(cna__import_ctx *ctx, int32_t node, cna_model_mesh *mesh, cna_error *err)
{
    const cna_gltf_document *doc = ctx->doc;
    const cna_gltf_node *gn = &doc->nodes[node];
    const size_t n = gn->instance_count;
    cna_mat4 *inst = (cna_mat4 *)cna__arena_calloc(ctx->arena, n, sizeof *inst);
    if (!inst) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "import: out of memory (%zu instances)", n);
    for (size_t i = 0; i < n; i++) {
        float t[4] = {0, 0, 0, 0}, q[4] = {0, 0, 0, 1}, sc[4] = {1, 1, 1, 0};
        cna_result r = CNA_OK;
        if (gn->instance_translation >= 0)
            r = cna_gltf_accessor_read_element_floats(doc, gn->instance_translation, i, t, 3, err);
        if (!r && gn->instance_rotation >= 0)
            r = cna_gltf_accessor_read_element_floats(doc, gn->instance_rotation, i, q, 4, err);
        if (!r && gn->instance_scale >= 0)
            r = cna_gltf_accessor_read_element_floats(doc, gn->instance_scale, i, sc, 3, err);
        if (r) return r;
        /* the magnitude rule (src/model/magnitude.c) on the values themselves:
         * none above CNA__MAGNITUDE_MAX (a rotation's too: normalising
         * (3e38, 0, 0, 1) in float squares it past the float range) */
        const struct {
            const char *name;
            const float *v;
            int n;
        } attrs[] = {{"TRANSLATION", t, 3}, {"ROTATION", q, 4}, {"SCALE", sc, 3}};
        for (int a = 0; a < 3; a++)
            for (int k = 0; k < attrs[a].n; k++)
                if (!(fabs((double)attrs[a].v[k]) <= CNA__MAGNITUDE_MAX))
                    return cna__error(err, CNA_ERROR_LIMIT,
                                      "nodes[%d] \"%.200s\": EXT_mesh_gpu_instancing %s of instance %zu is %g; "
                                      "at most %g is supported", (int)node, gn->name ? gn->name : "",
                                      attrs[a].name, i, (double)attrs[a].v[k], CNA__MAGNITUDE_MAX);
        cna_mat4_compose(&inst[i], cna_vec3_make(t[0], t[1], t[2]), cna__quat_unit((cna_quat){q[0], q[1], q[2], q[3]}),
                         cna_vec3_make(sc[0], sc[1], sc[2]));
        cna_mat4 world;
        cna_mat4_mul(&world, &ctx->node_world[node], &inst[i]);
        for (int k = 0; k < 16; k++)
            if (!isfinite(world.m[k]) || !isfinite(inst[i].m[k]))
                return cna__error(err, CNA_ERROR_INVALID_DATA,
                                  "nodes[%d].extensions.EXT_mesh_gpu_instancing: instance %zu's world transform "
                                  "overflows (not finite)",
                                  (int)node, i);
    }
    mesh->instances = inst;
    mesh->instance_count = n;
    return CNA_OK;
}

cna_result cna__import_mesh_list(cna__import_ctx *ctx, cna_error *err)
{
    const cna_gltf_document *doc = ctx->doc;
    cna_model *m = &ctx->model->pub;
    size_t count = 0;
    for (size_t b = 0; b < m->bone_count; b++)
        if (doc->nodes[m->bones[b].gltf_node].mesh >= 0) count++;
    if (count == 0) return CNA_OK;
    cna_model_mesh *meshes = (cna_model_mesh *)cna__arena_calloc(ctx->arena, count, sizeof *meshes);
    if (!meshes) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "import: out of memory");
    size_t i = 0;
    for (size_t b = 0; b < m->bone_count; b++) {
        int32_t node = m->bones[b].gltf_node;
        const cna_gltf_node *gn = &doc->nodes[node];
        if (gn->mesh < 0) continue;
        const cna_gltf_mesh *gm = &doc->meshes[gn->mesh];
        cna_model_mesh *mesh = &meshes[i++];
        mesh->name = cna__arena_strdup(ctx->arena, gm->name ? gm->name : gn->name);
        mesh->parent_bone = (int32_t)b;
        mesh->skin = -1;
        mesh->gltf_mesh = gn->mesh;
        mesh->gltf_node = node;
        mesh->part_count = gm->primitive_count;
        mesh->parts = (cna_model_part *)cna__arena_calloc(ctx->arena, gm->primitive_count ? gm->primitive_count : 1,
                                                          sizeof *mesh->parts);
        if (!mesh->name || !mesh->parts)
            return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "import: out of memory");
        if (gn->instance_count > 0) {
            cna_result r = import_instances(ctx, node, mesh, err);
            if (r) return r;
        }
        if (gm->target_names && gm->target_count > 0) {
            const char **names = (const char **)cna__arena_calloc(ctx->arena, gm->target_count, sizeof *names);
            if (!names) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "import: out of memory");
            for (size_t t = 0; t < gm->target_count; t++)
                if (!(names[t] = cna__arena_strdup(ctx->arena, gm->target_names[t])))
                    return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "import: out of memory");
            mesh->target_names = names;
            mesh->target_name_count = gm->target_count;
        }
        for (size_t p = 0; p < gm->primitive_count; p++) {
            cna_model_part *part = &mesh->parts[p];
            part->gltf_mesh = gn->mesh;
            part->gltf_primitive = (int32_t)p;
            part->material = gm->primitives[p].material;
            part->effect = -1;
        }
    }
    m->meshes = meshes;
    m->mesh_count = count;
    return CNA_OK;
}

/* ------------------------------------------------------------------ model size */

typedef struct box3 { double lo[3], hi[3]; bool any; } box3;

static void box_add(box3 *box, cna_vec3 p)
{
    double v[3] = {p.x, p.y, p.z};
    if (!isfinite(v[0]) || !isfinite(v[1]) || !isfinite(v[2])) return;
    for (int k = 0; k < 3; k++) {
        if (!box->any || v[k] < box->lo[k]) box->lo[k] = v[k];
        if (!box->any || v[k] > box->hi[k]) box->hi[k] = v[k];
    }
    box->any = true;
}

/* Add the 8 corners of [lo, hi] transformed by m. */
static void box_add_corners(box3 *box, const cna_mat4 *m, const float lo[3], const float hi[3])
{
    for (int c = 0; c < 8; c++) {
        cna_vec3 p = cna_vec3_make((c & 1) ? hi[0] : lo[0], (c & 2) ? hi[1] : lo[1],
                                   (c & 4) ? hi[2] : lo[2]);
        box_add(box, cna_mat4_transform_point(m, p));
    }
}

/* The POSITION bounds of a primitive: the accessor's min/max, else read. */
static bool position_bounds(const cna_gltf_document *doc, const cna_gltf_primitive *prim,
                            float lo[3], float hi[3])
{
    int32_t acc = cna_gltf_primitive_find_attribute(prim, CNA_GLTF_ATTRIBUTE_POSITION, 0);
    if (acc < 0) return false;
    const cna_gltf_accessor *a = &doc->accessors[acc];
    if (a->type != CNA_GLTF_TYPE_VEC3) return false;
    if (a->has_min && a->has_max && !a->is_sparse) {
        for (int k = 0; k < 3; k++) {
            lo[k] = (float)a->min[k];
            hi[k] = (float)a->max[k];
        }
        return true;
    }
    /* No (or possibly stale, sparse) bounds: scan the values one element at a time. */
    bool any = false;
    for (size_t i = 0; i < a->count; i++) {
        float v[3];
        if (cna_gltf_accessor_read_element_floats(doc, acc, i, v, 3, NULL) != CNA_OK) return false;
        for (int k = 0; k < 3; k++) {
            if (!any || v[k] < lo[k]) lo[k] = v[k];
            if (!any || v[k] > hi[k]) hi[k] = v[k];
        }
        any = true;
    }
    return any;
}

cna_result cna__import_model_size(cna__import_ctx *ctx, cna_error *err)
{
    (void)err;
    const cna_gltf_document *doc = ctx->doc;
    cna_model *m = &ctx->model->pub;
    box3 box;
    memset(&box, 0, sizeof box);
    for (size_t i = 0; i < m->mesh_count; i++) {
        const cna_model_mesh *mesh = &m->meshes[i];
        const cna_gltf_mesh *gm = &doc->meshes[mesh->gltf_mesh];
        for (size_t p = 0; p < gm->primitive_count; p++) {
            float lo[3], hi[3];
            if (!position_bounds(doc, &gm->primitives[p], lo, hi)) continue;
            /* each instance q: world(q) = W_node · instances[q] (not instanced: W_node once) */
            const cna_mat4 *w_node = &ctx->node_world[mesh->gltf_node];
            const size_t copies = mesh->instance_count ? mesh->instance_count : 1;
            for (size_t q = 0; q < copies; q++) {
                cna_mat4 wi;
                if (mesh->instance_count) cna_mat4_mul(&wi, w_node, &mesh->instances[q]);
                else wi = *w_node;
                if (mesh->skin < 0) {
                    box_add_corners(&box, &wi, lo, hi);
                    continue;
                }
                /* Skinned: each joint's W_joint · IBM applied to the box, all united (a
                 * superset of the bind pose as drawn); instanced, drawn as
                 * world(i) · inverse(W_node) · W_joint · IBM. */
                cna_mat4 to_instance, inv_node;
                cna_mat4_identity(&to_instance);
                if (mesh->instance_count && cna_mat4_inverse(&inv_node, w_node))
                    cna_mat4_mul(&to_instance, &wi, &inv_node);
                const cna_model_skin *s = &m->skins[mesh->skin];
                for (size_t k = 0; k < s->joint_count; k++) {
                    int32_t pal = s->ordinal_to_palette[k];
                    cna_mat4 jm, jmi;
                    cna_mat4_mul(&jm, &ctx->node_world[s->palette_to_gltf_node[pal]],
                                 &s->data.inverse_bind_pose[pal]);
                    cna_mat4_mul(&jmi, &to_instance, &jm);
                    box_add_corners(&box, &jmi, lo, hi);
                }
            }
        }
    }
    double size = 1.0;
    if (box.any) {
        double dx = box.hi[0] - box.lo[0], dy = box.hi[1] - box.lo[1], dz = box.hi[2] - box.lo[2];
        double d = sqrt(dx * dx + dy * dy + dz * dz);
        if (d > 0 && isfinite(d) && d < (double)FLT_MAX) size = d;
    }
    m->size = (float)size;
    return CNA_OK;
}

/* ------------------------------------------------------------------ orchestration */

static cna_result check_options(const cna_gltf_document *doc, const cna_import_options *o,
                                int32_t *scene, cna_error *err)
{
    if ((int)o->clip_mode < 0 || o->clip_mode >= CNA_CLIP_MODE_COUNT)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "import options: clip_mode %d is not a cna_clip_mode", (int)o->clip_mode);
    if (o->use_scene) {
        if (o->scene < 0 || (size_t)o->scene >= doc->scene_count)
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                              "import options: scene %d does not exist (the file has %zu)",
                              (int)o->scene, doc->scene_count);
        *scene = o->scene;
    } else if (doc->scene >= 0 && (size_t)doc->scene < doc->scene_count) {
        *scene = doc->scene;
    } else {
        *scene = doc->scene_count > 0 ? 0 : -1;
    }
    return CNA_OK;
}

static cna_result copy_reader_diagnostics(cna__import_ctx *ctx, cna_error *err)
{
    const cna_gltf_document *doc = ctx->doc;
    for (size_t i = 0; i < doc->diagnostic_count; i++) {
        const cna_gltf_diagnostic *d = &doc->diagnostics[i];
        if (!cna__model_diag_n(ctx->model, d->code, d->count, d->message ? d->message : ""))
            return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "import: out of memory");
    }
    return CNA_OK;
}

cna_result cna_model_import_gltf(const cna_gltf_document *doc, const cna_import_options *opts,
                                 cna_model **out, cna_error *err)
{
    if (!doc || !out)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "import: NULL %s", doc ? "out" : "doc");
    cna_import_options defaults;
    memset(&defaults, 0, sizeof defaults);
    const cna_import_options *o = opts ? opts : &defaults;
    int32_t scene = -1;
    cna_result r = check_options(doc, o, &scene, err);
    if (r != CNA_OK) return r;

    cna__model *model = cna__model_new(&o->allocator);
    if (!model) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "import: out of memory");
    cna_allocator alloc = model->allocator;

    cna__import_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.doc = doc;
    ctx.model = model;
    ctx.arena = &model->arena;
    ctx.allocator = alloc;
    ctx.clip_mode = o->clip_mode == CNA_CLIP_MODE_UNION ? CNA_CLIP_MODE_UNION : CNA_CLIP_MODE_FAITHFUL;
    ctx.unit_scale = 1.0f;
    ctx.split_palettes = o->split_palettes;
    model->pub.clip_mode = ctx.clip_mode;

    r = copy_reader_diagnostics(&ctx, err);
    if (r == CNA_OK) r = compute_node_transforms(&ctx, err);
    if (r == CNA_OK) r = cna__import_bones(&ctx, scene, err);
    if (r == CNA_OK) r = cna__import_mesh_list(&ctx, err);
    if (r == CNA_OK) r = cna__import_skins(&ctx, err);
#ifdef CNA__MESH_IMPORT_AVAILABLE
    if (r == CNA_OK) r = cna__import_meshes(&ctx, err);
#endif
    if (r == CNA_OK) r = cna__import_model_size(&ctx, err);
    if (r == CNA_OK) r = cna__import_clips(&ctx, err);
    if (r == CNA_OK) r = cna__import_check_magnitudes(&ctx, ctx.node_key_scale, ctx.node_key_translation, err);
    if (r == CNA_OK) r = cna__import_effects(&ctx, err);
    if (r == CNA_OK) r = cna__model_build_rig(model, err);
    if (r != CNA_OK) {
        cna_model_free(&model->pub);
        return r;
    }
    *out = &model->pub;
    return CNA_OK;
}

cna_result cna_model_load_file(const char *path, const cna_import_options *opts, cna_model **out,
                               cna_error *err)
{
    if (!path || !out)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "load: NULL %s", path ? "out" : "path");
    cna_gltf_document *doc = NULL;
    cna_result r = cna_gltf_load_file(path, opts ? &opts->gltf : NULL, &doc, err);
    if (r != CNA_OK) return r;
    r = cna_model_import_gltf(doc, opts, out, err);
    cna_gltf_document_free(doc);
    return r;
}
