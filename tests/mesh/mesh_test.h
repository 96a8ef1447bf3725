/*
 * Shared helpers for the mesh tests: exact float comparison, vertex byte
 * builders, paths into tests/data. Header-only (static functions).
 */
#ifndef CNA_TESTS_MESH_TEST_H
#define CNA_TESTS_MESH_TEST_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

/* Fail unless a and b are the same float bit for bit (so -0 != +0). */
#define assert_float_exact(a, b) mesh_float_exact((a), (b), #a, __FILE__, __LINE__)
static inline void mesh_float_exact(float a, float b, const char *what, const char *file, int line)
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

static inline void mesh_put_floats(unsigned char *p, const float *v, size_t n)
{
    memcpy(p, v, n * sizeof *v);
}

static inline float mesh_get_float(const unsigned char *p, size_t offset)
{
    float f;
    memcpy(&f, p + offset, sizeof f);
    return f;
}

/* "<CNA_TEST_DATA_DIR>/<rel>" into buf. */
static inline const char *mesh_data_path(char *buf, size_t size, const char *rel)
{
    snprintf(buf, size, "%s/%s", CNA_TEST_DATA_DIR, rel);
    return buf;
}

#endif
