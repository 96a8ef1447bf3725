/*
 * Canonical vertex formats and their selection (docs/vertex-layouts.md), their
 * public declarations, the flat normal of a triangle, bounding spheres.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "cna/model.h"
#include "core/internal.h"
#include "model/mesh_internal.h"

/*                                stride  P   N  U0   T  U1   C   J   W */
static const cna__vertex_format formats[8] = {
    {32, 0, 12, 24, -1, -1, -1, -1, -1}, /* P N U0 */
    {52, 0, 12, 24, -1, -1, -1, 32, 36}, /* P N U0 J W          skinned */
    {56, 0, 12, 24, -1, -1, 52, 32, 36}, /* P N U0 J W C        skinned, coloured */
    {48, 0, 12, 24, 32, -1, -1, -1, -1}, /* P N U0 T            PBR */
    {60, 0, 12, 24, 32, 48, 56, -1, -1}, /* P N U0 T U1 C       PBR */
    {68, 0, 12, 24, 32, -1, -1, 48, 52}, /* P N U0 T J W        PBR skinned */
    {76, 0, 12, 24, 32, 48, -1, 56, 60}, /* P N U0 T U1 J W     PBR skinned */
    {80, 0, 12, 24, 32, 48, 56, 60, 64}, /* P N U0 T U1 C J W   PBR skinned */
};

bool cna__vertex_format_for_stride(uint32_t stride, cna__vertex_format *out)
{
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (formats[i].stride == stride) {
            if (out) *out = formats[i];
            return true;
        }
    return false;
}

uint32_t cna__vertex_stride_select(bool skinned, bool tangent, bool texcoord1, bool color)
{
    if (!skinned) {
        if (!tangent && !texcoord1 && !color) return 32;
        if (!texcoord1 && !color) return 48;
        return 60;
    }
    if (!tangent && !texcoord1) return color ? 56 : 52;
    if (color) return 80;
    return texcoord1 ? 76 : 68;
}

void cna__flat_normal(const float p0[3], const float p1[3], const float p2[3], float n[3])
{
    const float e1[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
    const float e2[3] = {p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]};
    n[0] = e1[1] * e2[2] - e1[2] * e2[1];
    n[1] = e1[2] * e2[0] - e1[0] * e2[2];
    n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    const float len2 = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
    if (!(len2 > 0.0f) || !(len2 <= FLT_MAX)) {
        n[0] = n[1] = n[2] = 0.0f;
        return;
    }
    const float len = sqrtf(len2);
    n[0] = n[0] / len;
    n[1] = n[1] / len;
    n[2] = n[2] / len;
}

static bool load_point(const cna__point_set *s, size_t k, double p[3])
{
    float f[3];
    memcpy(f, s->first + k * s->stride, sizeof f);
    for (int c = 0; c < 3; c++) {
        if (!isfinite(f[c])) return false;
        p[c] = (double)f[c];
    }
    return true;
}

void cna__bounding_sphere(const cna__point_set *sets, size_t set_count, cna_vec3 *center,
                          float *radius)
{
    double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    bool any = false;
    for (size_t s = 0; s < set_count; s++)
        for (size_t k = 0; k < sets[s].count; k++) {
            double p[3];
            if (!load_point(&sets[s], k, p)) continue;
            any = true;
            for (int c = 0; c < 3; c++) {
                if (p[c] < lo[c]) lo[c] = p[c];
                if (p[c] > hi[c]) hi[c] = p[c];
            }
        }
    *center = cna_vec3_make(0.0f, 0.0f, 0.0f);
    *radius = 0.0f;
    if (!any) return;
    const float cf[3] = {(float)((lo[0] + hi[0]) * 0.5), (float)((lo[1] + hi[1]) * 0.5),
                         (float)((lo[2] + hi[2]) * 0.5)};
    double r2 = 0.0;
    for (size_t s = 0; s < set_count; s++)
        for (size_t k = 0; k < sets[s].count; k++) {
            double p[3];
            if (!load_point(&sets[s], k, p)) continue;
            const double dx = p[0] - cf[0], dy = p[1] - cf[1], dz = p[2] - cf[2];
            const double d2 = dx * dx + dy * dy + dz * dz;
            if (d2 > r2) r2 = d2;
        }
    const double r = sqrt(r2);
    float rf = (float)r;
    if ((double)rf < r) rf = nextafterf(rf, HUGE_VALF);
    *center = cna_vec3_make(cf[0], cf[1], cf[2]);
    *radius = rf;
}

/* ------------------------------------------------------------------ declaration */

static void add_element(cna_vertex_declaration *d, int32_t offset, cna_vertex_format format,
                        cna_vertex_usage usage, uint32_t usage_index)
{
    if (offset < 0) return;
    cna_vertex_element e = {(uint32_t)offset, format, usage, usage_index};
    uint32_t i = d->element_count++;
    while (i > 0 && d->elements[i - 1].offset > e.offset) {
        d->elements[i] = d->elements[i - 1];
        i--;
    }
    d->elements[i] = e;
}

/* The declaration of a canonical format (mesh_internal.h). */
void cna__vertex_declaration_of(const cna__vertex_format *f, cna_vertex_declaration *d)
{
    memset(d, 0, sizeof *d);
    d->stride = f->stride;
    add_element(d, f->position, CNA_VERTEX_FORMAT_FLOAT3, CNA_VERTEX_USAGE_POSITION, 0);
    add_element(d, f->normal, CNA_VERTEX_FORMAT_FLOAT3, CNA_VERTEX_USAGE_NORMAL, 0);
    add_element(d, f->texcoord0, CNA_VERTEX_FORMAT_FLOAT2, CNA_VERTEX_USAGE_TEXCOORD, 0);
    add_element(d, f->tangent, CNA_VERTEX_FORMAT_FLOAT4, CNA_VERTEX_USAGE_TANGENT, 0);
    add_element(d, f->texcoord1, CNA_VERTEX_FORMAT_FLOAT2, CNA_VERTEX_USAGE_TEXCOORD, 1);
    add_element(d, f->color, CNA_VERTEX_FORMAT_UBYTE4_NORM, CNA_VERTEX_USAGE_COLOR, 0);
    add_element(d, f->joints, CNA_VERTEX_FORMAT_UBYTE4, CNA_VERTEX_USAGE_BLEND_INDICES, 0);
    add_element(d, f->weights, CNA_VERTEX_FORMAT_FLOAT4, CNA_VERTEX_USAGE_BLEND_WEIGHTS, 0);
}

cna_result cna_vertex_declaration_canonical(uint32_t stride, cna_vertex_declaration *out,
                                            cna_error *err)
{
    cna__vertex_format f;
    if (!out) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "out: NULL");
    if (!cna__vertex_format_for_stride(stride, &f))
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "stride: %u is not a canonical stride (32, 52, 56, 48, 60, 68, 76, 80)",
                          (unsigned)stride);
    cna__vertex_declaration_of(&f, out);
    return CNA_OK;
}

const cna_vertex_element *cna_vertex_declaration_find(const cna_vertex_declaration *decl,
                                                      cna_vertex_usage usage,
                                                      uint32_t usage_index)
{
    if (!decl) return NULL;
    for (uint32_t i = 0; i < decl->element_count && i < CNA_VERTEX_MAX_ELEMENTS; i++)
        if (decl->elements[i].usage == usage && decl->elements[i].usage_index == usage_index)
            return &decl->elements[i];
    return NULL;
}
