/*
 * Shared helpers for the morph tests: vertex byte builders and exact float
 * comparison. Header-only (static functions) so each test stays one file.
 */
#ifndef CNA_TESTS_MORPH_FIXTURE_H
#define CNA_TESTS_MORPH_FIXTURE_H

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cna/morph.h"

/* Fail unless a and b are the same float bit for bit (so -0 != +0). */
#define assert_float_exact(a, b) fixture_float_exact((a), (b), #a, __FILE__, __LINE__)
static inline void fixture_float_exact(float a, float b, const char *what, const char *file, int line)
{
    uint32_t ua, ub;
    memcpy(&ua, &a, 4);
    memcpy(&ub, &b, 4);
    if (ua != ub) {
        print_error("%s:%d: %s = %.9g (0x%08x), expected %.9g (0x%08x)\n", file, line, what,
                    (double)a, (unsigned)ua, (double)b, (unsigned)ub);
        fail();
    }
}

static inline void fixture_put3(unsigned char *p, float x, float y, float z)
{
    float v[3] = {x, y, z};
    memcpy(p, v, sizeof v);
}

static inline void fixture_put4(unsigned char *p, float x, float y, float z, float w)
{
    float v[4] = {x, y, z, w};
    memcpy(p, v, sizeof v);
}

static inline float fixture_get(const void *bytes, size_t offset)
{
    float f;
    memcpy(&f, (const unsigned char *)bytes + offset, sizeof f);
    return f;
}

/* The spec's fixture: a stride-32 triangle (position, normal +Z, texcoord).
 * Positions (0,0,0), (1,0,0), (0,1,0); UVs (0.25,0.5), (0.75,0.125), (0.5,1). */
static inline void fixture_base_triangle(unsigned char out[96])
{
    static const float pos[3][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    static const float uv[3][2] = {{0.25f, 0.5f}, {0.75f, 0.125f}, {0.5f, 1.0f}};
    for (int v = 0; v < 3; v++) {
        unsigned char *p = out + 32 * v;
        fixture_put3(p, pos[v][0], pos[v][1], pos[v][2]);
        fixture_put3(p + 12, 0, 0, 1);
        memcpy(p + 24, uv[v], sizeof uv[v]);
    }
}

typedef struct fixture_triangle {
    unsigned char base[96];
    cna_morph_target targets[2];
    cna_morph_target_data data;
} fixture_triangle;

static inline void fixture_triangle_init(fixture_triangle *f)
{
    /* The spec's two targets: target 0 pushes every vertex +1 in Z (no normal
     * deltas); target 1 moves vertex 0 by +2 in X and tilts its normal to +X. */
    static const float fixture_t0_positions[9] = {0, 0, 1, 0, 0, 1, 0, 0, 1};
    static const float fixture_t1_positions[9] = {2, 0, 0, 0, 0, 0, 0, 0, 0};
    static const float fixture_t1_normals[9] = {1, 0, 0, 0, 0, 0, 0, 0, 0};
    memset(f, 0, sizeof *f);
    fixture_base_triangle(f->base);
    f->targets[0].positions = cna_morph_deltas_dense(fixture_t0_positions, 3);
    f->targets[1].positions = cna_morph_deltas_dense(fixture_t1_positions, 3);
    f->targets[1].normals = cna_morph_deltas_dense(fixture_t1_normals, 3);
    f->data.base_vertices = f->base;
    f->data.base_size = sizeof f->base;
    f->data.vertex_count = 3;
    assert_int_equal(cna_morph_layout_canonical(32, &f->data.layout, NULL), CNA_OK);
    f->data.targets = f->targets;
    f->data.target_count = 2;
}

/* Deterministic pseudo-random floats in [-1, 1). */
static inline float fixture_random(uint32_t *state)
{
    *state = *state * 1664525u + 1013904223u;
    return (float)(*state >> 8) / 8388608.0f - 1.0f;
}

#endif
