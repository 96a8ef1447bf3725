/* Mesh rules: attribute accessor types per semantic (KHR_mesh_quantization
 * widens some), equal counts within a primitive, JOINTS_n paired with
 * WEIGHTS_n, index values below the vertex count, morph target counts; skin
 * weights that do not sum to one are a diagnostic. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gltf/gltf_internal.h"

#define QUANT_ALL (CNA__B | CNA__BN | CNA__UB | CNA__UBN | CNA__S | CNA__SN | CNA__US | CNA__USN)

static const cna__gltf_accessor_rule attribute_rules[CNA_GLTF_ATTRIBUTE_KIND_COUNT] = {
    [CNA_GLTF_ATTRIBUTE_POSITION] = {CNA__TY(CNA_GLTF_TYPE_VEC3), CNA__F, QUANT_ALL, "VEC3 FLOAT"},
    [CNA_GLTF_ATTRIBUTE_NORMAL] = {CNA__TY(CNA_GLTF_TYPE_VEC3), CNA__F, CNA__BN | CNA__SN, "VEC3 FLOAT"},
    [CNA_GLTF_ATTRIBUTE_TANGENT] = {CNA__TY(CNA_GLTF_TYPE_VEC4), CNA__F, CNA__BN | CNA__SN, "VEC4 FLOAT"},
    [CNA_GLTF_ATTRIBUTE_TEXCOORD] = {CNA__TY(CNA_GLTF_TYPE_VEC2), CNA__F | CNA__UBN | CNA__USN,
                                     CNA__B | CNA__BN | CNA__UB | CNA__S | CNA__SN | CNA__US,
                                     "VEC2 FLOAT or normalized UNSIGNED_BYTE/UNSIGNED_SHORT"},
    [CNA_GLTF_ATTRIBUTE_COLOR] = {CNA__TY(CNA_GLTF_TYPE_VEC3) | CNA__TY(CNA_GLTF_TYPE_VEC4),
                                  CNA__F | CNA__UBN | CNA__USN, 0,
                                  "VEC3/VEC4 FLOAT or normalized UNSIGNED_BYTE/UNSIGNED_SHORT"},
    [CNA_GLTF_ATTRIBUTE_JOINTS] = {CNA__TY(CNA_GLTF_TYPE_VEC4), CNA__UB | CNA__US, 0,
                                   "VEC4 UNSIGNED_BYTE or UNSIGNED_SHORT"},
    [CNA_GLTF_ATTRIBUTE_WEIGHTS] = {CNA__TY(CNA_GLTF_TYPE_VEC4), CNA__F | CNA__UBN | CNA__USN, 0,
                                    "VEC4 FLOAT or normalized UNSIGNED_BYTE/UNSIGNED_SHORT"},
};

static const cna__gltf_accessor_rule target_rules[CNA_GLTF_ATTRIBUTE_KIND_COUNT] = {
    [CNA_GLTF_ATTRIBUTE_POSITION] = {CNA__TY(CNA_GLTF_TYPE_VEC3), CNA__F, CNA__B | CNA__BN | CNA__S | CNA__SN,
                                     "VEC3 FLOAT"},
    [CNA_GLTF_ATTRIBUTE_NORMAL] = {CNA__TY(CNA_GLTF_TYPE_VEC3), CNA__F, CNA__BN | CNA__SN, "VEC3 FLOAT"},
    [CNA_GLTF_ATTRIBUTE_TANGENT] = {CNA__TY(CNA_GLTF_TYPE_VEC3), CNA__F, CNA__BN | CNA__SN, "VEC3 FLOAT"},
};

static const cna__gltf_accessor_rule index_rule = {CNA__TY(CNA_GLTF_TYPE_SCALAR), CNA__UB | CNA__US | CNA__UI, 0,
                                              "SCALAR UNSIGNED_BYTE, UNSIGNED_SHORT or UNSIGNED_INT"};

cna_result cna__gltf_check_rule(cna__gltf_ctx *c, const char *path, int32_t accessor,
                                    const cna__gltf_accessor_rule *rule)
{
    const cna_gltf_accessor *a = &c->accessors[accessor];
    uint32_t comps = rule->comps | (c->quantization ? rule->quantized_comps : 0);
    if ((rule->types & CNA__TY(a->type)) && (comps & CNA__CT(a->component_type, a->normalized))) return CNA_OK;
    char desc[64];
    cna__gltf_accessor_describe(a, desc, sizeof desc);
    return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s: accessors[%d] is %s; expected %s%s", path, (int)accessor,
                      desc, rule->text,
                      rule->quantized_comps && c->quantization ? " or a KHR_mesh_quantization type" : "");
}

/* Largest index value of an indices accessor and where it first occurs (cached). */
typedef struct index_max {
    uint8_t *done;
    uint32_t *value;
    size_t *at;
} index_max;

static void max_index(cna__gltf_ctx *c, index_max *cache, int32_t accessor)
{
    if (cache->done[accessor]) return;
    const cna_gltf_accessor *a = &c->accessors[accessor];
    uint32_t best = 0, v;
    size_t at = 0;
    /* all zeros (no bufferView, no sparse): nothing to scan, however large the count */
    for (size_t e = 0; e < a->count && (a->buffer_view >= 0 || a->is_sparse); e++) {
        cna__gltf_accessor_element_uints(&c->doc->pub, a, e, &v);
        if (v > best) best = v, at = e;
    }
    cache->value[accessor] = best;
    cache->at[accessor] = at;
    cache->done[accessor] = 1;
}

static cna_result check_indices(cna__gltf_ctx *c, const char *path, const cna_gltf_primitive *p, index_max *cache)
{
    char ipath[CNA__PATH_MAX];
    cna__gltf_pathf(ipath, sizeof ipath, "%s.indices", path);
    cna_result r = cna__gltf_check_rule(c, ipath, p->indices, &index_rule);
    if (r) return r;
    const cna_gltf_accessor *a = &c->accessors[p->indices];
    if (a->buffer_view >= 0 && c->views[a->buffer_view].byte_stride)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                          "%s: accessors[%d] is in bufferViews[%d], which has byteStride %zu; index data must be "
                          "tightly packed",
                          ipath, (int)p->indices, (int)a->buffer_view, c->views[a->buffer_view].byte_stride);
    max_index(c, cache, p->indices);
    /* glTF 2.0: index values MUST NOT be the primitive restart value (the type's largest value). */
    uint32_t restart = a->component_type == CNA_GLTF_COMPONENT_UNSIGNED_BYTE    ? 0xFFu
                       : a->component_type == CNA_GLTF_COMPONENT_UNSIGNED_SHORT ? 0xFFFFu
                                                                                : 0xFFFFFFFFu;
    if (cache->value[p->indices] == restart)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                          "%s: index %u at element %zu is the primitive restart value of %s, which glTF does not "
                          "allow",
                          ipath, (unsigned)restart, cache->at[p->indices],
                          cna_gltf_component_type_name(a->component_type));
    if ((size_t)cache->value[p->indices] >= p->vertex_count)
        return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                          "%s: index %u at element %zu is not below the vertex count %zu", ipath,
                          (unsigned)cache->value[p->indices], cache->at[p->indices], p->vertex_count);
    return CNA_OK;
}

#define CHECKED_SIGNS 1u  /* per accessor: tangent signs checked */
#define CHECKED_FINITE 2u /* per accessor: finiteness checked */
#define CHECKED_BOUNDS 4u /* per accessor: POSITION min/max checked */

/* glTF says POSITION (also morph target POSITION) accessors MUST define min
 * and max. Nothing the reader or the model builds depends on them (the
 * model's bounding box reads the values when they are absent), so a missing
 * one is the diagnostic "position-bounds-missing", counted once per accessor,
 * and the file loads. */
static void check_bounds(cna__gltf_ctx *c, const char *apath, int32_t accessor, uint8_t *checked)
{
    const cna_gltf_accessor *a = &c->accessors[accessor];
    if ((checked[accessor] & CHECKED_BOUNDS) || (a->has_min && a->has_max)) return;
    checked[accessor] |= CHECKED_BOUNDS;
    cna__gltf_diag(c, CNA__DIAG_POSITION_BOUNDS_MISSING,
                   "%s: accessors[%d] has no %s (glTF requires min and max for POSITION); the bounds are computed "
                   "from the data",
                   apath, (int)accessor, !a->has_min && !a->has_max ? "min/max" : a->has_min ? "max" : "min");
}

/* TANGENT w is the bitangent sign: +1 or -1 for every vertex (checked once per
 * accessor; an accessor without bufferView or sparse holds placeholder zeros and
 * is not checked, as in the glTF validator). */
static cna_result check_tangent_signs(cna__gltf_ctx *c, const char *apath, int32_t accessor, uint8_t *checked)
{
    const cna_gltf_accessor *a = &c->accessors[accessor];
    if ((checked[accessor] & CHECKED_SIGNS) || (a->buffer_view < 0 && !a->is_sparse))
        return CNA_OK; /* zeros: placeholder data */
    for (size_t v = 0; v < a->count; v++) {
        float t[4];
        cna__gltf_accessor_element_floats(&c->doc->pub, a, v, t);
        if (fabsf(fabsf(t[3]) - 1.0f) <= CNA__TANGENT_SIGN_TOLERANCE) continue;
        char w[32];
        cna__gltf_fmt_float(w, sizeof w, t[3]);
        return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                          "%s: w %s at vertex %zu is not 1 or -1 (the bitangent sign)", apath, w, v);
    }
    checked[accessor] |= CHECKED_SIGNS;
    return CNA_OK;
}

/* Diagnostic "value-not-finite" for NaN or infinity in a FLOAT vertex
 * attribute (once per accessor; the first value found is named). */
static void check_finite(cna__gltf_ctx *c, const char *apath, int32_t accessor, uint8_t *checked)
{
    const cna_gltf_accessor *a = &c->accessors[accessor];
    if ((checked[accessor] & CHECKED_FINITE) || a->component_type != CNA_GLTF_COMPONENT_FLOAT ||
        (a->buffer_view < 0 && !a->is_sparse))
        return;
    checked[accessor] |= CHECKED_FINITE;
    if (cna__gltf_accessor_all_finite(&c->doc->pub, a)) return; /* the bulk pass; else find the first */
    size_t n = cna_gltf_type_component_count(a->type);
    for (size_t v = 0; v < a->count; v++) {
        float x[16];
        cna__gltf_accessor_element_floats(&c->doc->pub, a, v, x);
        for (size_t k = 0; k < n; k++) {
            if (isfinite(x[k])) continue;
            cna__gltf_diag(c, CNA__DIAG_VALUE_NOT_FINITE, "%s: accessors[%d] has the value %g at vertex %zu", apath,
                           (int)accessor, (double)x[k], v);
            return;
        }
    }
}

static const char *const set_names[CNA_GLTF_ATTRIBUTE_KIND_COUNT] = {
    [CNA_GLTF_ATTRIBUTE_TEXCOORD] = "TEXCOORD", [CNA_GLTF_ATTRIBUTE_COLOR] = "COLOR",
    [CNA_GLTF_ATTRIBUTE_JOINTS] = "JOINTS", [CNA_GLTF_ATTRIBUTE_WEIGHTS] = "WEIGHTS"};

/* Types, equal counts, POSITION bounds, set continuity (sets 0..63),
 * JOINTS_n/WEIGHTS_n pairs, custom attributes not UNSIGNED_INT, TANGENT signs. */
static cna_result check_attributes(cna__gltf_ctx *c, const char *path, const cna_gltf_primitive *p, uint8_t *checked)
{
    uint64_t sets[CNA_GLTF_ATTRIBUTE_KIND_COUNT] = {0};
    for (size_t i = 0; i < p->attribute_count; i++) {
        const cna_gltf_attribute *at = &p->attributes[i];
        char apath[CNA__PATH_MAX];
        cna__gltf_pathf(apath, sizeof apath, "%s.attributes.%s", path, at->name);
        if (attribute_rules[at->kind].types) {
            cna_result r = cna__gltf_check_rule(c, apath, at->accessor, &attribute_rules[at->kind]);
            if (r) return r;
        }
        size_t count = c->accessors[at->accessor].count;
        if (count != p->vertex_count)
            return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s: accessors[%d] has %zu elements, but %s has %zu",
                              apath, (int)at->accessor, count, p->attributes[0].name, p->vertex_count);
        if (at->kind == CNA_GLTF_ATTRIBUTE_OTHER &&
            c->accessors[at->accessor].component_type == CNA_GLTF_COMPONENT_UNSIGNED_INT)
            return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                              "%s: accessors[%d] is UNSIGNED_INT, which application-specific attributes must not use",
                              apath, (int)at->accessor);
        if (at->kind == CNA_GLTF_ATTRIBUTE_POSITION) check_bounds(c, apath, at->accessor, checked);
        if (at->kind == CNA_GLTF_ATTRIBUTE_TANGENT) {
            cna_result r = check_tangent_signs(c, apath, at->accessor, checked);
            if (r) return r;
        }
        if (at->kind != CNA_GLTF_ATTRIBUTE_OTHER) check_finite(c, apath, at->accessor, checked);
        if (set_names[at->kind]) {
            if (at->set >= 64)
                return cna__error(c->err, CNA_ERROR_LIMIT, "%s: attribute sets above 63 are not supported", apath);
            sets[at->kind] |= (uint64_t)1 << at->set;
        }
    }
    for (int k = 0; k < CNA_GLTF_ATTRIBUTE_KIND_COUNT; k++) {
        uint64_t m = sets[k];
        if (!set_names[k] || (m & (m + 1)) == 0) continue; /* 0 or sets 0..n-1 */
        int set = 1;
        while (!(m >> set & 1) || (m >> (set - 1) & 1)) set++; /* first set whose predecessor is missing */
        return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                          "%s.attributes: %s_%d without %s_%d (sets must start at 0 and be consecutive)", path,
                          set_names[k], set, set_names[k], set - 1);
    }
    uint64_t joints = sets[CNA_GLTF_ATTRIBUTE_JOINTS], weights = sets[CNA_GLTF_ATTRIBUTE_WEIGHTS];
    for (int set = 0; set < 64; set++) {
        uint64_t bit = (uint64_t)1 << set;
        if ((joints ^ weights) & bit)
            return cna__error(c->err, CNA_ERROR_INVALID_DATA, "%s.attributes: %s_%d has no matching %s_%d", path,
                              joints & bit ? "JOINTS" : "WEIGHTS", set, joints & bit ? "WEIGHTS" : "JOINTS", set);
    }
    if (cna_gltf_primitive_find_attribute(p, CNA_GLTF_ATTRIBUTE_POSITION, 0) < 0)
        cna__gltf_diag(c, CNA__DIAG_NO_POSITION, "%s.attributes: no POSITION", path);
    return CNA_OK;
}

static cna_result check_targets(cna__gltf_ctx *c, const char *path, const cna_gltf_primitive *p, uint8_t *checked)
{
    for (size_t t = 0; t < p->target_count; t++) {
        const cna_gltf_morph_target *target = &p->targets[t];
        for (size_t i = 0; i < target->attribute_count; i++) {
            const cna_gltf_attribute *at = &target->attributes[i];
            char apath[CNA__PATH_MAX];
            cna__gltf_pathf(apath, sizeof apath, "%s.targets[%zu].%s", path, t, at->name);
            if (target_rules[at->kind].types) {
                cna_result r = cna__gltf_check_rule(c, apath, at->accessor, &target_rules[at->kind]);
                if (r) return r;
            }
            size_t count = c->accessors[at->accessor].count;
            if (count != p->vertex_count)
                return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                                  "%s: accessors[%d] has %zu elements, but the primitive has %zu vertices", apath,
                                  (int)at->accessor, count, p->vertex_count);
            bool base = false;
            for (size_t b = 0; b < p->attribute_count && !base; b++)
                base = at->kind == CNA_GLTF_ATTRIBUTE_OTHER ? strcmp(p->attributes[b].name, at->name) == 0
                                                             : p->attributes[b].kind == at->kind &&
                                                                   p->attributes[b].set == at->set;
            if (!base)
                return cna__error(c->err, CNA_ERROR_INVALID_DATA,
                                  "%s: the primitive has no %s attribute for this target to displace", apath,
                                  at->name);
            if (at->kind == CNA_GLTF_ATTRIBUTE_POSITION) check_bounds(c, apath, at->accessor, checked);
            check_finite(c, apath, at->accessor, checked);
        }
    }
    return CNA_OK;
}

/* Diagnostic when a vertex's skin weights (all WEIGHTS_n) do not sum to one:
 * |1 - sum| > 2e-3 plus the rounding of normalized integer weights. */
static void check_weight_sums(cna__gltf_ctx *c, const char *path, const cna_gltf_primitive *p)
{
    double tolerance = 2e-3;
    bool any = false;
    for (size_t i = 0; i < p->attribute_count; i++) {
        const cna_gltf_attribute *at = &p->attributes[i];
        if (at->kind != CNA_GLTF_ATTRIBUTE_WEIGHTS) continue;
        any = true;
        cna_gltf_component_type ct = c->accessors[at->accessor].component_type;
        if (ct == CNA_GLTF_COMPONENT_UNSIGNED_BYTE) tolerance += 2.0 / 255.0;
        if (ct == CNA_GLTF_COMPONENT_UNSIGNED_SHORT) tolerance += 2.0 / 65535.0;
    }
    for (size_t v = 0; any && v < p->vertex_count; v++) {
        double sum = 0.0;
        for (size_t i = 0; i < p->attribute_count; i++) {
            const cna_gltf_attribute *at = &p->attributes[i];
            if (at->kind != CNA_GLTF_ATTRIBUTE_WEIGHTS) continue;
            float w[4];
            cna__gltf_accessor_element_floats(&c->doc->pub, &c->accessors[at->accessor], v, w);
            sum += (double)w[0] + (double)w[1] + (double)w[2] + (double)w[3];
        }
        if (fabs(1.0 - sum) > tolerance) {
            cna__gltf_diag(c, CNA__DIAG_WEIGHTS_NOT_NORMALIZED, "%s: the skin weights of vertex %zu sum to %g", path, v,
                           sum);
            return; /* one diagnostic per primitive */
        }
    }
}

/* Diagnostic when the primitive's material samples a TEXCOORD set the primitive lacks. */
static void check_material_texcoords(cna__gltf_ctx *c, const char *path, const cna_gltf_primitive *p)
{
    if (p->material < 0) return;
    const cna_gltf_material *m = &c->materials[p->material];
    const struct {
        const char *name;
        const cna_gltf_texture_ref *ref;
    } refs[5] = {{"pbrMetallicRoughness.baseColorTexture", &m->base_color_texture},
                 {"pbrMetallicRoughness.metallicRoughnessTexture", &m->metallic_roughness_texture},
                 {"normalTexture", &m->normal_texture},
                 {"occlusionTexture", &m->occlusion_texture},
                 {"emissiveTexture", &m->emissive_texture}};
    for (int k = 0; k < 5; k++) {
        /* KHR_texture_transform's texCoord replaces the reference's. */
        bool over = refs[k].ref->transform.texcoord >= 0;
        int32_t set = over ? refs[k].ref->transform.texcoord : refs[k].ref->texcoord;
        if (refs[k].ref->texture < 0 || cna_gltf_primitive_find_attribute(p, CNA_GLTF_ATTRIBUTE_TEXCOORD, set) >= 0)
            continue;
        cna__gltf_diag(c, CNA__DIAG_TEXCOORD_MISSING,
                       "%s.material: materials[%d].%s.%stexCoord %d, but the primitive has no TEXCOORD_%d", path,
                       (int)p->material, refs[k].name, over ? "extensions.KHR_texture_transform." : "", (int)set,
                       (int)set);
    }
}

cna_result cna__gltf_validate_meshes(cna__gltf_ctx *c)
{
    uint8_t *checked = (uint8_t *)cna__gltf_arena_calloc(&c->scratch, c->n_accessors, 1);
    if (c->n_accessors && !checked) return cna__error(c->err, CNA_ERROR_OUT_OF_MEMORY, "meshes: out of memory");
    index_max cache;
    cache.done = (uint8_t *)cna__gltf_arena_calloc(&c->scratch, c->n_accessors, 1);
    cache.value = (uint32_t *)cna__gltf_arena_calloc(&c->scratch, c->n_accessors, sizeof *cache.value);
    cache.at = (size_t *)cna__gltf_arena_calloc(&c->scratch, c->n_accessors, sizeof *cache.at);
    if (c->n_accessors && (!cache.done || !cache.value || !cache.at))
        return cna__error(c->err, CNA_ERROR_OUT_OF_MEMORY, "meshes: out of memory");
    for (size_t m = 0; m < c->n_meshes; m++) {
        for (size_t i = 0; i < c->meshes[m].primitive_count; i++) {
            const cna_gltf_primitive *p = &c->meshes[m].primitives[i];
            char path[CNA__PATH_MAX];
            cna__gltf_pathf(path, sizeof path, "meshes[%zu].primitives[%zu]", m, i);
            cna_result r = check_attributes(c, path, p, checked);
            if (!r && p->indices >= 0) r = check_indices(c, path, p, &cache);
            if (!r) r = check_targets(c, path, p, checked);
            if (r) return r;
            check_weight_sums(c, path, p);
            check_material_texcoords(c, path, p);
        }
    }
    return CNA_OK;
}
