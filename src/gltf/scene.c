/* nodes, skins, scenes and cameras (counted, not parsed). The graph rules
 * (forest, scene roots) are checked in validate_nodes.c. */
#include <math.h>
#include <stdio.h>

#include "gltf/gltf_internal.h"

bool cna__gltf_quat_is_unit(const float *q)
{
    double len = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3]);
    return fabs(1.0 - len) <= CNA__UNIT_TOLERANCE;
}

/* A node matrix must be a TRS composition (glTF 2.0, "Transformations"):
 * last row (0, 0, 0, 1) within CNA__MATRIX_ROW_TOLERANCE, and the columns of
 * the upper 3x3 mutually orthogonal (no shear): |cos| of the angle between
 * two non-zero columns at most CNA__MATRIX_SHEAR_TOLERANCE. m is column-major. */
static cna_result check_trs_matrix(cna__gltf_ctx *c, const char *path, const float *m)
{
    if (fabsf(m[3]) > CNA__MATRIX_ROW_TOLERANCE || fabsf(m[7]) > CNA__MATRIX_ROW_TOLERANCE ||
        fabsf(m[11]) > CNA__MATRIX_ROW_TOLERANCE || fabsf(m[15] - 1.0f) > CNA__MATRIX_ROW_TOLERANCE)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                          "%s.matrix: last row (%g, %g, %g, %g) is not (0, 0, 0, 1); the matrix is not a TRS "
                          "transform",
                          path, (double)m[3], (double)m[7], (double)m[11], (double)m[15]);
    static const int pairs[3][2] = {{0, 1}, {0, 2}, {1, 2}};
    for (int k = 0; k < 3; k++) {
        const float *a = m + 4 * pairs[k][0], *b = m + 4 * pairs[k][1];
        double dot = (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2];
        double la = sqrt((double)a[0] * a[0] + (double)a[1] * a[1] + (double)a[2] * a[2]);
        double lb = sqrt((double)b[0] * b[0] + (double)b[1] * b[1] + (double)b[2] * b[2]);
        if (la > 0.0 && lb > 0.0 && fabs(dot) > CNA__MATRIX_SHEAR_TOLERANCE * la * lb)
            return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                              "%s.matrix: columns %d and %d are not orthogonal (cosine %.3g); the matrix has shear "
                              "and is not a TRS transform",
                              path, pairs[k][0], pairs[k][1], dot / (la * lb));
    }
    return CNA_OK;
}

static cna_result parse_transform(cna__gltf_ctx *c, const cna__json *obj, const char *path, cna_gltf_node *n)
{
    float m[16], t[3], q[4], s[3];
    bool has_m, has_t, has_r, has_s;
    cna_result r = cna__gltf_json_floats(obj, "matrix", path, 16, m, &has_m, c->err);
    if (!r) r = cna__gltf_json_floats(obj, "translation", path, 3, t, &has_t, c->err);
    if (!r) r = cna__gltf_json_floats(obj, "rotation", path, 4, q, &has_r, c->err);
    if (!r) r = cna__gltf_json_floats(obj, "scale", path, 3, s, &has_s, c->err);
    if (r) return r;
    if (has_m && (has_t || has_r || has_s))
        return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s: has both matrix and translation/rotation/scale", path);
    if (has_m) {
        r = check_trs_matrix(c, path, m);
        if (r) return r;
    }
    cna_mat4_identity(&n->matrix);
    n->translation = (cna_vec3){0.0f, 0.0f, 0.0f};
    n->rotation = (cna_quat){0.0f, 0.0f, 0.0f, 1.0f};
    n->scale = (cna_vec3){1.0f, 1.0f, 1.0f};
    n->has_matrix = has_m;
    if (has_m)
        for (int i = 0; i < 16; i++) n->matrix.m[i] = m[i];
    if (has_t) n->translation = (cna_vec3){t[0], t[1], t[2]};
    if (has_r) n->rotation = (cna_quat){q[0], q[1], q[2], q[3]};
    if (has_s) n->scale = (cna_vec3){s[0], s[1], s[2]};
    if (has_r && !cna__gltf_quat_is_unit(q))
        cna__gltf_diag(c, CNA__DIAG_QUATERNION_NOT_UNIT, "%s.rotation: (%g, %g, %g, %g) is not unit length", path,
                       (double)q[0], (double)q[1], (double)q[2], (double)q[3]);
    return CNA_OK;
}

/* ------------------------------------------------------------------ EXT_mesh_gpu_instancing */

#define INSTANCING "EXT_mesh_gpu_instancing"
#define QUANT_SIGNED (CNA__B | CNA__BN | CNA__S | CNA__SN)

static const cna__gltf_accessor_rule instance_translation_rule = {CNA__TY(CNA_GLTF_TYPE_VEC3), CNA__F, QUANT_SIGNED,
                                                                  "VEC3 FLOAT"};
static const cna__gltf_accessor_rule instance_rotation_rule = {CNA__TY(CNA_GLTF_TYPE_VEC4), CNA__F | CNA__BN | CNA__SN,
                                                               0, "VEC4 FLOAT or normalized BYTE/SHORT"};
static const cna__gltf_accessor_rule instance_scale_rule = {CNA__TY(CNA_GLTF_TYPE_VEC3), CNA__F, QUANT_SIGNED,
                                                            "VEC3 FLOAT"};

/* node.extensions.EXT_mesh_gpu_instancing: an object whose `attributes`
 * name at least one accessor, all of one count (the instance count), on a
 * node with a mesh. TRANSLATION, ROTATION and SCALE are kept (types checked
 * here, values in validate_nodes.c); any other attribute is ignored with a
 * diagnostic. */
static cna_result parse_instancing(cna__gltf_ctx *c, const cna__json *obj, const char *path, cna_gltf_node *n)
{
    n->instance_translation = n->instance_rotation = n->instance_scale = -1;
    const cna__json *ext = cna__gltf_json_get(cna__gltf_json_get(obj, "extensions"), INSTANCING);
    if (!ext) return CNA_OK;
    char epath[CNA__PATH_MAX], apath[CNA__PATH_MAX];
    cna__gltf_pathf(epath, sizeof epath, "%s.extensions." INSTANCING, path);
    cna_result r = cna__gltf_json_expect_object(ext, epath, c->err);
    if (r) return r;
    if (n->mesh < 0)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s: the node has no mesh to instance", epath);
    const cna__json *attrs = cna__gltf_json_get(ext, "attributes"), *item;
    cna__gltf_pathf(apath, sizeof apath, "%s.attributes", epath);
    if (!attrs) return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s: missing", apath);
    r = cna__gltf_json_expect_object(attrs, apath, c->err);
    if (r) return r;
    const char *first = NULL;
    size_t count = 0;
    cna__json_for_each(item, attrs)
    {
        char ipath[CNA__PATH_MAX];
        cna__gltf_pathf(ipath, sizeof ipath, "%s.%s", apath, item->string);
        int32_t acc = -1;
        r = cna__gltf_json_index_value(item, ipath, c->n_accessors, "accessors", &acc, c->err);
        if (r) return r;
        cna__gltf_use(c, CNA__KIND_ACCESSOR, acc);
        const size_t n_acc = c->accessors[acc].count;
        if (!first) {
            first = item->string;
            count = n_acc;
        } else if (n_acc != count) {
            return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s: accessors[%d] has %zu elements; %s has %zu", ipath,
                              (int)acc, n_acc, first, count);
        }
        const cna__gltf_accessor_rule *rule = NULL;
        int32_t *slot = NULL;
        if (strcmp(item->string, "TRANSLATION") == 0) rule = &instance_translation_rule, slot = &n->instance_translation;
        else if (strcmp(item->string, "ROTATION") == 0) rule = &instance_rotation_rule, slot = &n->instance_rotation;
        else if (strcmp(item->string, "SCALE") == 0) rule = &instance_scale_rule, slot = &n->instance_scale;
        if (!rule) {
            cna__gltf_diag(c, CNA__DIAG_INSTANCE_ATTRIBUTE_IGNORED, "%s: the attribute is not used by cna (ignored)",
                           ipath);
            continue;
        }
        r = cna__gltf_check_rule(c, ipath, acc, rule);
        if (r) return r;
        *slot = acc;
    }
    if (!first) return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s: no attributes; at least one is required", apath);
    n->instance_count = count;
    return CNA_OK;
}

static cna_result parse_node(cna__gltf_ctx *c, const cna__json *obj, size_t index)
{
    char path[CNA__PATH_MAX];
    cna__gltf_path_index(path, sizeof path, "nodes", index, "");
    cna_gltf_node *n = &c->nodes[index];
    n->parent = -1;
    int32_t *children = NULL;
    float *weights = NULL;
    cna_result r = cna__gltf_json_expect_object(obj, path, c->err);
    if (!r) r = cna__gltf_json_string(c, obj, "name", path, false, &n->name);
    if (!r) r = cna__gltf_json_index_array(c, obj, "children", path, false, 1, c->n_nodes, "nodes", &children, &n->child_count);
    if (!r) r = cna__gltf_json_index(obj, "mesh", path, false, c->n_meshes, "meshes", &n->mesh, c->err);
    if (!r) r = cna__gltf_json_index(obj, "skin", path, false, c->n_skins, "skins", &n->skin, c->err);
    if (!r) r = cna__gltf_json_index(obj, "camera", path, false, c->n_cameras, "cameras", &n->camera, c->err);
    if (!r) r = parse_transform(c, obj, path, n);
    if (!r) r = cna__gltf_json_float_array(c, obj, "weights", path, 0, &weights, &n->weight_count);
    if (!r) r = parse_instancing(c, obj, path, n);
    if (r) return r;
    n->children = children;
    n->weights = weights;
    cna__gltf_use(c, CNA__KIND_MESH, n->mesh);
    cna__gltf_use(c, CNA__KIND_SKIN, n->skin);
    cna__gltf_use(c, CNA__KIND_CAMERA, n->camera);
    if (n->skin >= 0 && n->mesh < 0)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s.skin: skins[%d] given, but the node has no mesh", path,
                          (int)n->skin);
    if (cna__gltf_json_get(obj, "weights")) {
        size_t targets = n->mesh >= 0 ? c->meshes[n->mesh].target_count : 0;
        if (n->mesh < 0 || n->weight_count != targets)
            return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                              "%s.weights: %zu values, but the node's mesh has %zu morph targets", path,
                              n->weight_count, targets);
    }
    return CNA_OK;
}

cna_result cna__gltf_parse_nodes(cna__gltf_ctx *c)
{
    const cna__json *arr = cna__gltf_json_get(c->root, "nodes"), *item;
    size_t i = 0;
    cna__json_for_each(item, arr)
    {
        cna_result r = parse_node(c, item, i++);
        if (r) return r;
    }
    return CNA_OK;
}

static cna_result parse_skin(cna__gltf_ctx *c, const cna__json *obj, size_t index)
{
    char path[CNA__PATH_MAX];
    cna__gltf_path_index(path, sizeof path, "skins", index, "");
    cna_gltf_skin *s = &c->skins[index];
    int32_t *joints = NULL;
    cna_result r = cna__gltf_json_expect_object(obj, path, c->err);
    if (!r) r = cna__gltf_json_string(c, obj, "name", path, false, &s->name);
    if (!r) r = cna__gltf_json_index_array(c, obj, "joints", path, true, 1, c->n_nodes, "nodes", &joints, &s->joint_count);
    s->joints = joints;
    if (!r)
        r = cna__gltf_json_index(obj, "inverseBindMatrices", path, false, c->n_accessors, "accessors",
                            &s->inverse_bind_matrices, c->err);
    if (!r) r = cna__gltf_json_index(obj, "skeleton", path, false, c->n_nodes, "nodes", &s->skeleton, c->err);
    if (r) return r;
    cna__gltf_use(c, CNA__KIND_ACCESSOR, s->inverse_bind_matrices);
    return CNA_OK;
}

cna_result cna__gltf_parse_skins(cna__gltf_ctx *c)
{
    const cna__json *arr = cna__gltf_json_get(c->root, "skins"), *item;
    size_t i = 0;
    cna__json_for_each(item, arr)
    {
        cna_result r = parse_skin(c, item, i++);
        if (r) return r;
    }
    return CNA_OK;
}

static cna_result parse_scene(cna__gltf_ctx *c, const cna__json *obj, size_t index)
{
    char path[CNA__PATH_MAX];
    cna__gltf_path_index(path, sizeof path, "scenes", index, "");
    cna_gltf_scene *s = &c->scenes[index];
    int32_t *nodes = NULL;
    cna_result r = cna__gltf_json_expect_object(obj, path, c->err);
    if (!r) r = cna__gltf_json_string(c, obj, "name", path, false, &s->name);
    if (!r) r = cna__gltf_json_index_array(c, obj, "nodes", path, false, 1, c->n_nodes, "nodes", &nodes, &s->node_count);
    s->nodes = nodes;
    return r;
}

cna_result cna__gltf_parse_scenes(cna__gltf_ctx *c)
{
    const cna__json *arr = cna__gltf_json_get(c->root, "scenes"), *item;
    size_t i = 0;
    cna__json_for_each(item, arr)
    {
        cna_result r = parse_scene(c, item, i++);
        if (r) return r;
    }
    c->doc->pub.scene = -1;
    const cna__json *scene = cna__gltf_json_get(c->root, "scene");
    return scene ? cna__gltf_json_index_value(scene, "scene", c->n_scenes, "scenes", &c->doc->pub.scene, c->err) : CNA_OK;
}
