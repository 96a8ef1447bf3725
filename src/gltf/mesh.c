/* meshes: primitives, attributes (semantic names parsed into kind + set),
 * morph targets and default weights. Accessor types and counts are checked
 * afterwards by validate_mesh.c. */
#include <stdio.h>
#include <string.h>

#include "gltf/gltf_internal.h"

/* "TEXCOORD_12" -> 12 when name starts with prefix and a canonical decimal
 * number (no sign, no leading zero, at most 9 digits) follows. */
static bool indexed_semantic(const char *name, const char *prefix, int32_t *set)
{
    size_t n = strlen(prefix);
    if (strncmp(name, prefix, n) != 0) return false;
    const char *d = name + n;
    size_t len = strlen(d);
    if (len == 0 || len > 9 || (len > 1 && d[0] == '0')) return false;
    int32_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (d[i] < '0' || d[i] > '9') return false;
        v = v * 10 + (d[i] - '0');
    }
    *set = v;
    return true;
}

/* Semantic of an attribute name; false when it is neither known nor "_"-prefixed (refused). */
static bool parse_semantic(const char *name, cna_gltf_attribute_kind *kind, int32_t *set)
{
    static const struct {
        const char *name;
        cna_gltf_attribute_kind kind;
    } plain[] = {{"POSITION", CNA_GLTF_ATTRIBUTE_POSITION},
                 {"NORMAL", CNA_GLTF_ATTRIBUTE_NORMAL},
                 {"TANGENT", CNA_GLTF_ATTRIBUTE_TANGENT}},
      indexed[] = {{"TEXCOORD_", CNA_GLTF_ATTRIBUTE_TEXCOORD},
                   {"COLOR_", CNA_GLTF_ATTRIBUTE_COLOR},
                   {"JOINTS_", CNA_GLTF_ATTRIBUTE_JOINTS},
                   {"WEIGHTS_", CNA_GLTF_ATTRIBUTE_WEIGHTS}};
    *kind = CNA_GLTF_ATTRIBUTE_OTHER;
    *set = 0;
    for (size_t i = 0; i < 3; i++) {
        if (strcmp(name, plain[i].name) == 0) {
            *kind = plain[i].kind;
            return true;
        }
    }
    for (size_t i = 0; i < 4; i++) {
        if (indexed_semantic(name, indexed[i].name, set)) {
            *kind = indexed[i].kind;
            return true;
        }
    }
    return name[0] == '_';
}

static cna_result parse_attributes(cna__gltf_ctx *c, const cna__json *obj, const char *path, size_t min_items,
                                   cna_gltf_attribute **out, size_t *count)
{
    cna_result r = cna__gltf_json_expect_object(obj, path, c->err);
    if (r) return r;
    int size = cna__json_count(obj);
    size_t n = size > 0 ? (size_t)size : 0;
    if (n < min_items)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s: %zu attributes; at least %zu required", path, n,
                          min_items);
    cna_gltf_attribute *attrs = n ? (cna_gltf_attribute *)cna__gltf_arena_calloc(c->arena, n, sizeof *attrs) : NULL;
    if (n && !attrs) return cna__error(c->err, CNA_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
    size_t i = 0;
    uint64_t seen[CNA_GLTF_ATTRIBUTE_KIND_COUNT] = {0}; /* sets 0..63 of each kind, for duplicates */
    const cna__json *item;
    cna__json_for_each(item, obj)
    {
        cna_gltf_attribute *a = &attrs[i++];
        const size_t len = strlen(item->string), bad = cna__utf8_invalid_at(item->string, len);
        if (bad < len)
            return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s: the name of attribute %zu: invalid UTF-8 at byte %zu",
                              path, i - 1, bad);
        a->name = cna__gltf_arena_strdup(c->arena, item->string);
        if (!a->name) return cna__error(c->err, CNA_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
        char vpath[CNA__PATH_MAX];
        cna__gltf_pathf(vpath, sizeof vpath, "%s.%s", path, a->name);
        if (!parse_semantic(a->name, &a->kind, &a->set))
            return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                              "%s: not a glTF semantic (POSITION, NORMAL, TANGENT, TEXCOORD_n, COLOR_n, JOINTS_n, "
                              "WEIGHTS_n; n without leading zeros) and not application-specific (\"_\" prefix)",
                              vpath);
        r = cna__gltf_json_index_value(item, vpath, c->n_accessors, "accessors", &a->accessor, c->err);
        if (r) return r;
        if (a->kind != CNA_GLTF_ATTRIBUTE_OTHER && a->set < 64) {
            uint64_t bit = (uint64_t)1 << a->set;
            if (seen[a->kind] & bit)
                return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s: attribute given twice", vpath);
            seen[a->kind] |= bit;
        }
        cna__gltf_use(c, CNA__KIND_ACCESSOR, a->accessor);
    }
    *out = attrs;
    *count = n;
    return CNA_OK;
}

static cna_result parse_targets(cna__gltf_ctx *c, const cna__json *prim, const char *path, cna_gltf_primitive *p)
{
    const cna__json *arr, *item;
    size_t n, i = 0;
    cna_result r = cna__gltf_json_array(prim, "targets", path, false, 1, &arr, &n, c->err);
    if (r || !arr) return r;
    cna_gltf_morph_target *targets = (cna_gltf_morph_target *)cna__gltf_arena_calloc(c->arena, n, sizeof *targets);
    if (!targets) return cna__error(c->err, CNA_ERROR_OUT_OF_MEMORY, "%s.targets: out of memory", path);
    cna__json_for_each(item, arr)
    {
        char tpath[CNA__PATH_MAX];
        cna__gltf_path_prefixed(tpath, sizeof tpath, path, ".targets", i, "");
        cna_gltf_morph_target *t = &targets[i++];
        cna_gltf_attribute *attrs = NULL;
        r = parse_attributes(c, item, tpath, 0, &attrs, &t->attribute_count);
        if (r) return r;
        t->attributes = attrs;
        cna_gltf_primitive view = {0};
        view.attributes = attrs;
        view.attribute_count = t->attribute_count;
        t->position = cna_gltf_primitive_find_attribute(&view, CNA_GLTF_ATTRIBUTE_POSITION, 0);
        t->normal = cna_gltf_primitive_find_attribute(&view, CNA_GLTF_ATTRIBUTE_NORMAL, 0);
        t->tangent = cna_gltf_primitive_find_attribute(&view, CNA_GLTF_ATTRIBUTE_TANGENT, 0);
    }
    p->targets = targets;
    p->target_count = n;
    return CNA_OK;
}

static cna_result parse_primitive(cna__gltf_ctx *c, const cna__json *obj, const char *path, cna_gltf_primitive *p)
{
    static const cna_gltf_primitive_mode modes[7] = {
        CNA_GLTF_MODE_POINTS,     CNA_GLTF_MODE_LINES,          CNA_GLTF_MODE_LINE_LOOP,   CNA_GLTF_MODE_LINE_STRIP,
        CNA_GLTF_MODE_TRIANGLES, CNA_GLTF_MODE_TRIANGLE_STRIP, CNA_GLTF_MODE_TRIANGLE_FAN};
    int64_t mode = 4;
    char apath[CNA__PATH_MAX];
    cna__gltf_pathf(apath, sizeof apath, "%s.attributes", path);
    cna_result r = cna__gltf_json_expect_object(obj, path, c->err);
    if (!r && !cna__gltf_json_get(obj, "attributes"))
        r = cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s: required property is missing", apath);
    cna_gltf_attribute *attrs = NULL;
    if (!r) r = parse_attributes(c, cna__gltf_json_get(obj, "attributes"), apath, 1, &attrs, &p->attribute_count);
    p->attributes = attrs;
    if (!r) r = cna__gltf_json_index(obj, "indices", path, false, c->n_accessors, "accessors", &p->indices, c->err);
    if (!r) r = cna__gltf_json_index(obj, "material", path, false, c->n_materials, "materials", &p->material, c->err);
    if (!r) r = cna__gltf_json_int(obj, "mode", path, false, 0, 6, &mode, c->err);
    if (!r) r = parse_targets(c, obj, path, p);
    if (r) return r;
    p->mode = modes[mode];
    p->vertex_count = c->accessors[attrs[0].accessor].count;
    cna__gltf_use(c, CNA__KIND_ACCESSOR, p->indices);
    cna__gltf_use(c, CNA__KIND_MATERIAL, p->material);
    const cna__json *draco = cna__gltf_json_get(cna__gltf_json_get(obj, "extensions"), "KHR_draco_mesh_compression");
    return draco ? cna__gltf_draco_primitive(c, draco, path, p) : CNA_OK;
}

/* mesh.extras.targetNames (the names Blender's exporter and three.js give
 * the morph targets): kept when it is an array of exactly target_count
 * strings. Anything else is only a diagnostic (extras are free-form): the
 * mesh then has no names. */
static cna_result parse_target_names(cna__gltf_ctx *c, const cna__json *obj, const char *path, cna_gltf_mesh *m)
{
    const cna__json *names = cna__gltf_json_get(cna__gltf_json_get(obj, "extras"), "targetNames"), *item;
    if (!names) return CNA_OK;
    if (!cna__gltf_is_array(names)) {
        cna__gltf_diag(c, CNA__DIAG_TARGET_NAMES_INVALID, "%s.extras.targetNames: expected an array of strings, got %s; ignored",
                       path, cna__gltf_json_type_name(names));
        return CNA_OK;
    }
    size_t n = (size_t)cna__json_count(names), i = 0;
    if (n != m->target_count) {
        cna__gltf_diag(c, CNA__DIAG_TARGET_NAMES_INVALID,
                       "%s.extras.targetNames: %zu names, but the primitives have %zu morph targets; ignored", path, n,
                       m->target_count);
        return CNA_OK;
    }
    cna__json_for_each(item, names)
    {
        if (!cna__gltf_is_string(item)) {
            cna__gltf_diag(c, CNA__DIAG_TARGET_NAMES_INVALID, "%s.extras.targetNames[%zu]: expected a string, got %s; ignored",
                           path, i, cna__gltf_json_type_name(item));
            return CNA_OK;
        }
        i++;
    }
    if (n == 0) return CNA_OK;
    const char **copy = (const char **)cna__gltf_arena_calloc(c->arena, n, sizeof *copy);
    if (!copy) return cna__error(c->err, CNA_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
    i = 0;
    cna__json_for_each(item, names)
    {
        copy[i] = cna__gltf_arena_strdup(c->arena, item->valuestring);
        if (!copy[i]) return cna__error(c->err, CNA_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
        i++;
    }
    m->target_names = copy;
    return CNA_OK;
}

static cna_result parse_mesh(cna__gltf_ctx *c, const cna__json *obj, size_t index)
{
    char path[CNA__PATH_MAX];
    cna__gltf_path_index(path, sizeof path, "meshes", index, "");
    cna_gltf_mesh *m = &c->meshes[index];
    const cna__json *arr, *item;
    size_t n, i = 0;
    cna_result r = cna__gltf_json_expect_object(obj, path, c->err);
    if (!r) r = cna__gltf_json_string(c, obj, "name", path, false, &m->name);
    if (!r) r = cna__gltf_json_array(obj, "primitives", path, true, 1, &arr, &n, c->err);
    if (r) return r;
    cna_gltf_primitive *prims = (cna_gltf_primitive *)cna__gltf_arena_calloc(c->arena, n, sizeof *prims);
    if (!prims) return cna__error(c->err, CNA_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
    m->primitives = prims;
    m->primitive_count = n;
    cna__json_for_each(item, arr)
    {
        char ppath[CNA__PATH_MAX];
        cna__gltf_path_prefixed(ppath, sizeof ppath, path, ".primitives", i, "");
        r = parse_primitive(c, item, ppath, &prims[i]);
        if (r) return r;
        if (prims[i].target_count != prims[0].target_count)
            return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s.targets: %zu morph targets, but primitives[0] has %zu",
                              ppath, prims[i].target_count, prims[0].target_count);
        i++;
    }
    m->target_count = prims[0].target_count;
    float *weights = NULL;
    size_t weight_count;
    r = cna__gltf_json_float_array(c, obj, "weights", path, 0, &weights, &weight_count);
    if (r) return r;
    if (cna__gltf_json_get(obj, "weights") && weight_count != m->target_count)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s.weights: %zu values, but the primitives have %zu morph targets",
                          path, weight_count, m->target_count);
    if (!weights && m->target_count) {
        weights = (float *)cna__gltf_arena_calloc(c->arena, m->target_count, sizeof *weights);
        if (!weights) return cna__error(c->err, CNA_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
    }
    m->weights = weights;
    return parse_target_names(c, obj, path, m);
}

cna_result cna__gltf_parse_meshes(cna__gltf_ctx *c)
{
    const cna__json *arr = cna__gltf_json_get(c->root, "meshes"), *item;
    size_t i = 0;
    cna__json_for_each(item, arr)
    {
        cna_result r = parse_mesh(c, item, i++);
        if (r) return r;
    }
    return CNA_OK;
}
