/* Names of enum values, sizes of component types, and small helpers over the
 * document model. */
#include "gltf/gltf_internal.h"

size_t cna_gltf_component_size(cna_gltf_component_type t)
{
    switch (t) {
    case CNA_GLTF_COMPONENT_BYTE:
    case CNA_GLTF_COMPONENT_UNSIGNED_BYTE: return 1;
    case CNA_GLTF_COMPONENT_SHORT:
    case CNA_GLTF_COMPONENT_UNSIGNED_SHORT: return 2;
    case CNA_GLTF_COMPONENT_UNSIGNED_INT:
    case CNA_GLTF_COMPONENT_FLOAT: return 4;
    default: return 0;
    }
}

size_t cna_gltf_type_component_count(cna_gltf_type t)
{
    static const size_t n[CNA_GLTF_TYPE_COUNT] = {0, 1, 2, 3, 4, 4, 9, 16};
    return (unsigned)t < (unsigned)CNA_GLTF_TYPE_COUNT ? n[t] : 0;
}

static const char *name_of(const char *const *names, size_t count, unsigned value)
{
    return value < count ? names[value] : "unknown";
}
#define NAME_OF(names, v) name_of(names, sizeof names / sizeof names[0], (unsigned)(v))

const char *cna_gltf_component_type_name(cna_gltf_component_type t)
{
    static const char *const names[] = {"NONE", "BYTE", "UNSIGNED_BYTE", "SHORT", "UNSIGNED_SHORT", "UNSIGNED_INT",
                                        "FLOAT"};
    return NAME_OF(names, t);
}

const char *cna_gltf_type_name(cna_gltf_type t)
{
    static const char *const names[] = {"NONE", "SCALAR", "VEC2", "VEC3", "VEC4", "MAT2", "MAT3", "MAT4"};
    return NAME_OF(names, t);
}

const char *cna_gltf_attribute_kind_name(cna_gltf_attribute_kind k)
{
    static const char *const names[] = {"OTHER", "POSITION", "NORMAL", "TANGENT", "TEXCOORD", "COLOR", "JOINTS",
                                        "WEIGHTS"};
    return NAME_OF(names, k);
}

const char *cna_gltf_primitive_mode_name(cna_gltf_primitive_mode m)
{
    static const char *const names[] = {"TRIANGLES",  "POINTS",         "LINES",       "LINE_LOOP",
                                        "LINE_STRIP", "TRIANGLE_STRIP", "TRIANGLE_FAN"};
    return NAME_OF(names, m);
}

const char *cna_gltf_animation_path_name(cna_gltf_animation_path p)
{
    static const char *const names[] = {"unknown", "translation", "rotation", "scale", "weights"};
    return NAME_OF(names, p);
}

const char *cna_gltf_interpolation_name(cna_gltf_interpolation i)
{
    static const char *const names[] = {"LINEAR", "STEP", "CUBICSPLINE"};
    return NAME_OF(names, i);
}

const char *cna_gltf_alpha_mode_name(cna_gltf_alpha_mode m)
{
    static const char *const names[] = {"OPAQUE", "MASK", "BLEND"};
    return NAME_OF(names, m);
}

const char *cna_gltf_source_name(cna_gltf_source s)
{
    static const char *const names[] = {"none", "glb-bin", "data-uri", "external", "buffer-view"};
    return NAME_OF(names, s);
}

int32_t cna_gltf_primitive_find_attribute(const cna_gltf_primitive *prim, cna_gltf_attribute_kind kind, int32_t set)
{
    if (!prim) return -1;
    for (size_t i = 0; i < prim->attribute_count; i++)
        if (prim->attributes[i].kind == kind && prim->attributes[i].set == set) return prim->attributes[i].accessor;
    return -1;
}

void cna_gltf_node_local_matrix(const cna_gltf_node *node, cna_mat4 *out)
{
    if (!node || !out) return;
    if (node->has_matrix) *out = node->matrix;
    else cna_mat4_compose(out, node->translation, node->rotation, node->scale); /* T · R · S */
}
