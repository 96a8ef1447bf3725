/*
 * Magnitude limits at import: every value the model, a player or a character
 * can compute from the file stays finite, at every time of every clip.
 *
 * Finite inputs are not enough: a parent scale of 3e38 times a child scale
 * of 3e38 is inf, and a bound per value cannot help (a chain of 200 bones of
 * scale 2 reaches 2^200). So the import bounds the products themselves, in
 * double, with submultiplicative norms: |L| the spectral norm of a linear
 * part (for T · R · S exactly max |s_i|; for a matrix the square root of the
 * largest absolute row sum of LᵀL, an upper bound that is 1 for a rotation)
 * and |t| the length of a translation. For world = parent · local:
 *   |L_world| <= |L_parent| · |L_local|,  |t_world| <= |L_parent| · |t_local| + |t_parent|,
 * with |L_local|, |t_local| the largest over the node's rest transform and
 * every key of every animation that moves it (between keys the player
 * interpolates, which stays inside those bounds). Every bound must stay at
 * or below CNA__MAGNITUDE_MAX = 1e18 (model_internal.h), far below FLT_MAX (3.4e38) so that a
 * squared length of a result is finite too:
 *   - node worlds (the bones' absolute transforms, over the whole graph);
 *   - each skin's player: world[p] = world[parent] · local[p] (root:
 *     prefix · local), skin[p] = world[p] · inverse_bind[p];
 *   - each part's vertices: the morphed positions |base| + W · Σ |delta|
 *     (W the largest weight the part can take), then skinned with weights
 *     summing to one (negative weights are refused) and drawn with the parent
 *     bone's world;
 *   - each EXT_mesh_gpu_instancing instance's world, world[node] · T · R · S
 *     (the instance values themselves, each at most CNA__MAGNITUDE_MAX, are
 *     checked as they are read, src/import/import.c), and the positions of
 *     every copy as drawn.
 * A rest value that is already not finite is CNA_ERROR_INVALID_DATA; a bound
 * beyond the limit is CNA_ERROR_LIMIT. Both name the object.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/model_internal.h"

/* |L|: sqrt of the largest absolute row sum of LᵀL (Gershgorin), L the upper 3x3. */
static double linear_norm(const cna_mat4 *m)
{
    double g[3][3], best = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double s = 0;
            for (int k = 0; k < 3; k++) s += (double)m->m[i * 4 + k] * (double)m->m[j * 4 + k];
            g[i][j] = s;   /* column i · column j */
        }
    for (int i = 0; i < 3; i++) {
        double row = fabs(g[i][0]) + fabs(g[i][1]) + fabs(g[i][2]);
        if (!(row <= best)) best = row;   /* NaN propagates */
    }
    return sqrt(best);
}

static double translation_norm(const cna_mat4 *m)
{
    double x = m->m[12], y = m->m[13], z = m->m[14];
    return sqrt(x * x + y * y + z * z);
}

static double max3(double a, double b, double c)
{
    double m = a;
    if (!(b <= m)) m = b;
    if (!(c <= m)) m = c;
    return m;
}

static bool within(double v) { return v <= CNA__MAGNITUDE_MAX; }  /* false for NaN */

static bool mat_finite(const cna_mat4 *m)
{
    for (int i = 0; i < 16; i++)
        if (!isfinite(m->m[i])) return false;
    return true;
}

static const char *node_name(const cna_gltf_document *doc, int32_t node)
{
    const char *n = doc->nodes[node].name;
    return n ? n : "";
}

/* ------------------------------------------------------------------ node worlds */

static cna_result check_node(const cna__import_ctx *ctx, int32_t node, double lw, double tw,
                             double parent_l, cna_error *err)
{
    if (within(lw) && within(tw)) return CNA_OK;
    const cna_gltf_document *doc = ctx->doc;
    double scale = parent_l > 0 ? lw / parent_l : lw;
    if (!mat_finite(&ctx->node_world[node]) || !mat_finite(&ctx->node_local[node]))
        return cna__error(err, CNA_ERROR_INVALID_DATA,
                          "nodes[%d] \"%.200s\": world transform is not finite (scale %g under a "
                          "parent scale %g)", (int)node, node_name(doc, node),
                          linear_norm(&ctx->node_local[node]), parent_l);
    char under[64] = "";
    if (doc->nodes[node].parent >= 0) snprintf(under, sizeof under, " under a parent scale up to %g", parent_l);
    return cna__error(err, CNA_ERROR_LIMIT,
                      "nodes[%d] \"%.200s\": world transform may reach %g (scale up to %g%s); at most %g "
                      "is supported", (int)node, node_name(doc, node), lw > tw ? lw : tw, scale, under,
                      CNA__MAGNITUDE_MAX);
}

/* Bounds of every node's world, parents first; world_l/world_t receive them. */
static cna_result check_nodes(const cna__import_ctx *ctx, const double *key_l, const double *key_t,
                              double *world_l, double *world_t, int32_t *stack, cna_error *err)
{
    const cna_gltf_document *doc = ctx->doc;
    size_t n = doc->node_count;
    for (size_t r = 0; r < n; r++) {
        if (doc->nodes[r].parent >= 0) continue;
        size_t top = 0;
        stack[top++] = (int32_t)r;
        while (top > 0) {
            int32_t node = stack[--top];
            int32_t parent = doc->nodes[node].parent;
            double l = linear_norm(&ctx->node_local[node]);
            double t = translation_norm(&ctx->node_local[node]);
            if (key_l && !(key_l[node] <= l)) l = key_l[node];
            if (key_t && !(key_t[node] <= t)) t = key_t[node];
            double pl = parent >= 0 ? world_l[parent] : 1.0;
            double pt = parent >= 0 ? world_t[parent] : 0.0;
            world_l[node] = pl * l;
            world_t[node] = pl * t + pt;
            cna_result res = check_node(ctx, node, world_l[node], world_t[node], parent >= 0 ? pl : 1.0, err);
            if (res != CNA_OK) return res;
            const cna_gltf_node *gn = &doc->nodes[node];
            for (size_t c = 0; c < gn->child_count; c++)
                if (top < n) stack[top++] = gn->children[c];
        }
    }
    return CNA_OK;
}

/* ------------------------------------------------------------------ instances */

/* The largest |L| and |t| over a mesh's instance matrices (1 and 0 when not
 * instanced): a copy's positions p reach at most inst_l · |p| + inst_t. */
static void instance_bounds(const cna_model_mesh *mesh, double *inst_l, double *inst_t)
{
    *inst_l = mesh->instance_count ? 0.0 : 1.0;
    *inst_t = 0.0;
    for (size_t i = 0; i < mesh->instance_count; i++) {
        double l = linear_norm(&mesh->instances[i]), t = translation_norm(&mesh->instances[i]);
        if (!(l <= *inst_l)) *inst_l = l;
        if (!(t <= *inst_t)) *inst_t = t;
    }
}

/* EXT_mesh_gpu_instancing: each instance's world, world[node] · T · R · S,
 * bounded like a child node's (the values themselves were bounded at import). */
static cna_result check_instances(const cna__import_ctx *ctx, const double *world_l, const double *world_t,
                                  cna_error *err)
{
    const cna_model *m = &ctx->model->pub;
    for (size_t i = 0; i < m->mesh_count; i++) {
        const cna_model_mesh *mesh = &m->meshes[i];
        const int32_t node = mesh->gltf_node;
        for (size_t q = 0; q < mesh->instance_count; q++) {
            double l = linear_norm(&mesh->instances[q]), t = translation_norm(&mesh->instances[q]);
            double wl = world_l[node] * l, wt = world_l[node] * t + world_t[node];
            if (within(wl) && within(wt)) continue;
            return cna__error(err, CNA_ERROR_LIMIT,
                              "nodes[%d] \"%.200s\": EXT_mesh_gpu_instancing instance %zu's world transform may "
                              "reach %g (instance scale up to %g, translation %g, under the node's world scale up "
                              "to %g); at most %g is supported", (int)node, node_name(ctx->doc, node), q,
                              wl > wt ? wl : wt, l, t, world_l[node], CNA__MAGNITUDE_MAX);
        }
    }
    return CNA_OK;
}

/* ------------------------------------------------------------------ skins */

/* The bounds of skin s's palette (largest over its joints) into *skin_l, *skin_t. */
static cna_result check_skin(const cna__import_ctx *ctx, size_t s, double *pl, double *pt, double *jl,
                             double *jt, double *skin_l, double *skin_t, cna_error *err)
{
    const cna_model_skin *skin = &ctx->model->pub.skins[s];
    const cna_skinning_data *d = &skin->data;
    const int32_t n = d->bone_count;
    *skin_l = 0;
    *skin_t = 0;
    /* every joint's local bound: its bind pose and every key of every clip
     * (one pass over the tracks; NaN propagates as "not within"); the model
     * skins of one glTF skin share their clips and bind pose, so the bounds
     * of the skin before are reused */
    const cna_skinning_data *prev = s > 0 ? &ctx->model->pub.skins[s - 1].data : NULL;
    const bool same = prev && prev->clips == d->clips && prev->clip_count == d->clip_count &&
                      prev->bone_count == n && n > 0 &&
                      memcmp(prev->bind_pose, d->bind_pose, (size_t)n * sizeof(cna_mat4)) == 0;
    for (int32_t p = 0; p < n && !same; p++) {
        jl[p] = linear_norm(&d->bind_pose[p]);
        jt[p] = translation_norm(&d->bind_pose[p]);
    }
    for (size_t c = 0; c < d->clip_count && !same; c++) {
        const cna_clip *clip = &d->clips[c];
        for (size_t k = 0; k < clip->track_count; k++) {
            const cna_bone_track *tr = &clip->tracks[k];
            if (tr->bone < 0 || tr->bone >= n) continue;
            double l = jl[tr->bone], t = jt[tr->bone];
            for (size_t i = 0; i < tr->key_count; i++) {
                const cna_keyframe *key = &tr->keys[i];
                double ks = max3(fabs((double)key->scale.x), fabs((double)key->scale.y),
                                 fabs((double)key->scale.z));
                double kt = sqrt((double)key->translation.x * key->translation.x +
                                 (double)key->translation.y * key->translation.y +
                                 (double)key->translation.z * key->translation.z);
                if (!(ks <= l)) l = ks;
                if (!(kt <= t)) t = kt;
            }
            jl[tr->bone] = l;
            jt[tr->bone] = t;
        }
    }
    for (int32_t p = 0; p < n; p++) {
        const double l = jl[p], t = jt[p];
        int32_t parent = d->hierarchy[p];
        if (parent >= 0) {
            pl[p] = pl[parent] * l;
            pt[p] = pl[parent] * t + pt[parent];
        } else if (d->root_prefix_count == (size_t)n) {
            /* world[root] = prefix[root] · local[root] */
            double xl = linear_norm(&d->root_prefix[p]);
            pl[p] = xl * l;
            pt[p] = xl * t + translation_norm(&d->root_prefix[p]);
        } else {
            pl[p] = l;
            pt[p] = t;
        }
        /* skin[p] = world[p] · inverse_bind[p] */
        double sl = pl[p] * linear_norm(&d->inverse_bind_pose[p]);
        double st = pl[p] * translation_norm(&d->inverse_bind_pose[p]) + pt[p];
        int32_t node = skin->palette_to_gltf_node[p];
        if (!(within(pl[p]) && within(pt[p]) && within(sl) && within(st))) {
            bool finite = mat_finite(&d->bind_pose[p]) && mat_finite(&d->inverse_bind_pose[p]) &&
                          (d->root_prefix_count != (size_t)n || mat_finite(&d->root_prefix[p]));
            if (!finite)
                return cna__error(err, CNA_ERROR_INVALID_DATA,
                                  "skins[%d]: joint nodes[%d] \"%.200s\": skin transform (world · "
                                  "inverse bind) is not finite", (int)skin->gltf_skin, (int)node,
                                  node_name(ctx->doc, node));
            return cna__error(err, CNA_ERROR_LIMIT,
                              "skins[%d]: joint nodes[%d] \"%.200s\": skin transform (world · inverse "
                              "bind) may reach %g; at most %g is supported", (int)skin->gltf_skin,
                              (int)node, node_name(ctx->doc, node), max3(max3(pl[p], pt[p], sl), st, 0),
                              CNA__MAGNITUDE_MAX);
        }
        if (!(sl <= *skin_l)) *skin_l = sl;
        if (!(st <= *skin_t)) *skin_t = st;
    }
    return CNA_OK;
}

/* ------------------------------------------------------------------ vertices */

/* The largest weight a part's morph targets can take: its initial weights and
 * every weight track's values, with a cubic track's overshoot between keys
 * (|p(u)| <= max(|v_k|, |v_k+1|) + 4/27 · dt · (|b_k| + |a_k+1|)). */
static double max_weight(const cna_model_part *part, size_t animation_count)
{
    const cna_morph_target_data *md = part->morph;
    double w = 0;
    for (size_t i = 0; md->initial_weights && i < md->initial_weight_count; i++)
        if (!(fabs((double)md->initial_weights[i]) <= w)) w = fabs((double)md->initial_weights[i]);
    for (size_t a = 0; part->weight_tracks && a < animation_count; a++) {
        const cna_morph_weight_track *tr = part->weight_tracks[a];
        if (!tr) continue;
        size_t n = tr->key_count * tr->target_count;
        double v = 0, tan = 0, dt = 0;
        for (size_t i = 0; i < n; i++) {
            if (!(fabs((double)tr->values[i]) <= v)) v = fabs((double)tr->values[i]);
            if (tr->in_tangents && !(fabs((double)tr->in_tangents[i]) <= tan)) tan = fabs((double)tr->in_tangents[i]);
            if (tr->out_tangents && !(fabs((double)tr->out_tangents[i]) <= tan)) tan = fabs((double)tr->out_tangents[i]);
        }
        for (size_t k = 1; tr->in_tangents && k < tr->key_count; k++)
            if (!((double)tr->times[k] - (double)tr->times[k - 1] <= dt))
                dt = (double)tr->times[k] - (double)tr->times[k - 1];
        v += 4.0 / 27.0 * dt * 2.0 * tan;
        if (!(v <= w)) w = v;
    }
    return w;
}

/* The largest |position| of a part over every weight it can take. */
static double part_position_bound(const cna_model_part *part, size_t animation_count, double *scratch)
{
    size_t n = part->vertex_count;
    size_t stride = part->declaration.stride;
    const unsigned char *base = (const unsigned char *)part->vertices;
    if (!base || n == 0) return 0;
    const cna_morph_target_data *md = part->morph;
    for (size_t v = 0; v < n; v++) scratch[v] = 0;
    if (md && md->layout.position_offset >= 0) {
        /* scratch[v] = Σ_t |delta_t,v| */
        for (size_t t = 0; t < md->target_count; t++) {
            const cna_morph_deltas *dl = &md->targets[t].positions;
            for (size_t i = 0; i < dl->count; i++) {
                size_t v = dl->indices ? dl->indices[i] : i;
                if (v >= n) continue;
                const float *d = dl->values + 3 * i;
                scratch[v] += sqrt((double)d[0] * d[0] + (double)d[1] * d[1] + (double)d[2] * d[2]);
            }
        }
    }
    double w = md ? max_weight(part, animation_count) : 0;
    double best = 0;
    for (size_t v = 0; v < n; v++) {
        float p[3];
        memcpy(p, base + v * stride, sizeof p);   /* position at offset 0 in every layout */
        double b = sqrt((double)p[0] * p[0] + (double)p[1] * p[1] + (double)p[2] * p[2]) + w * scratch[v];
        if (!(b <= best)) best = b;
    }
    return best;
}

static cna_result check_meshes(const cna__import_ctx *ctx, const double *world_l, const double *world_t,
                               const double *skin_l, const double *skin_t, cna_error *err)
{
    const cna_model *m = &ctx->model->pub;
    size_t most = 1;
    for (size_t i = 0; i < m->mesh_count; i++)
        for (size_t k = 0; k < m->meshes[i].part_count; k++)
            if (m->meshes[i].parts[k].vertex_count > most) most = m->meshes[i].parts[k].vertex_count;
    double *scratch = (double *)cna__calloc(&ctx->allocator, most, sizeof(double));
    if (!scratch) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "import: out of memory");
    cna_result r = CNA_OK;
    for (size_t i = 0; i < m->mesh_count && r == CNA_OK; i++) {
        const cna_model_mesh *mesh = &m->meshes[i];
        for (size_t k = 0; k < mesh->part_count && r == CNA_OK; k++) {
            const cna_model_part *part = &mesh->parts[k];
            double p = part_position_bound(part, m->animation_count, scratch);
            const char *what = part->morph ? "morphed positions" : "positions";
            if (!within(p)) {
                r = cna__error(err, CNA_ERROR_LIMIT, "meshes[%d].primitives[%d]: %s may reach %g; at most %g "
                               "is supported", (int)part->gltf_mesh, (int)part->gltf_primitive, what, p,
                               CNA__MAGNITUDE_MAX);
                break;
            }
            /* skinned: Σ w_i · skin[p_i] · v with Σ w_i <= 1.001 (renormalised otherwise) */
            if (mesh->skin >= 0) p = 1.001 * (skin_l[mesh->skin] * p + skin_t[mesh->skin]);
            int32_t node = mesh->gltf_node;
            /* instanced: each copy moved by its instance matrix first */
            double inst_l, inst_t;
            instance_bounds(mesh, &inst_l, &inst_t);
            double drawn = world_l[node] * (inst_l * p + inst_t) + world_t[node];
            if (!within(p) || !within(drawn))
                r = cna__error(err, CNA_ERROR_LIMIT, "meshes[%d].primitives[%d]: %s as drawn (%s, then "
                               "%snodes[%d]'s world) may reach %g; at most %g is supported",
                               (int)part->gltf_mesh, (int)part->gltf_primitive, what,
                               mesh->skin >= 0 ? "skinned" : "unskinned",
                               mesh->instance_count ? "each instance's transform and " : "", (int)node,
                               within(p) ? drawn : p, CNA__MAGNITUDE_MAX);
        }
    }
    cna__free(&ctx->allocator, scratch);
    return r;
}

/* ------------------------------------------------------------------ entry */

cna_result cna__import_check_magnitudes(cna__import_ctx *ctx, const double *key_l, const double *key_t,
                                        cna_error *err)
{
    const cna_gltf_document *doc = ctx->doc;
    const cna_model *m = &ctx->model->pub;
    size_t n = doc->node_count ? doc->node_count : 1;
    size_t most_joints = 1;
    for (size_t s = 0; s < m->skin_count; s++)
        if ((size_t)m->skins[s].data.bone_count > most_joints) most_joints = (size_t)m->skins[s].data.bone_count;
    double *world_l = (double *)cna__calloc(&ctx->allocator, n, sizeof(double));
    double *world_t = (double *)cna__calloc(&ctx->allocator, n, sizeof(double));
    int32_t *stack = (int32_t *)cna__calloc(&ctx->allocator, n, sizeof(int32_t));
    double *pl = (double *)cna__calloc(&ctx->allocator, most_joints, sizeof(double));
    double *pt = (double *)cna__calloc(&ctx->allocator, most_joints, sizeof(double));
    double *jl = (double *)cna__calloc(&ctx->allocator, most_joints, sizeof(double));
    double *jt = (double *)cna__calloc(&ctx->allocator, most_joints, sizeof(double));
    double *skin_l = (double *)cna__calloc(&ctx->allocator, m->skin_count ? m->skin_count : 1, sizeof(double));
    double *skin_t = (double *)cna__calloc(&ctx->allocator, m->skin_count ? m->skin_count : 1, sizeof(double));
    cna_result r = CNA_OK;
    if (!world_l || !world_t || !stack || !pl || !pt || !jl || !jt || !skin_l || !skin_t)
        r = cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "import: out of memory");
    if (r == CNA_OK) r = check_nodes(ctx, key_l, key_t, world_l, world_t, stack, err);
    if (r == CNA_OK) r = check_instances(ctx, world_l, world_t, err);
    for (size_t s = 0; s < m->skin_count && r == CNA_OK; s++)
        r = check_skin(ctx, s, pl, pt, jl, jt, &skin_l[s], &skin_t[s], err);
    if (r == CNA_OK) r = check_meshes(ctx, world_l, world_t, skin_l, skin_t, err);
    cna__free(&ctx->allocator, world_l);
    cna__free(&ctx->allocator, world_t);
    cna__free(&ctx->allocator, stack);
    cna__free(&ctx->allocator, pl);
    cna__free(&ctx->allocator, pt);
    cna__free(&ctx->allocator, jl);
    cna__free(&ctx->allocator, jt);
    cna__free(&ctx->allocator, skin_l);
    cna__free(&ctx->allocator, skin_t);
    return r;
}
