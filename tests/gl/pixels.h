/*
 * Comparing read-back RGBA8 pictures in the GL tests (tests/gl/): pixels
 * drawn over a black background, per-channel differences, and writing a
 * picture for a look when CNA_TEST_PNG_DIR is set.
 */
#ifndef CNA_TESTS_GL_PIXELS_H
#define CNA_TESTS_GL_PIXELS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cna/gl.h"

/* Pixels of the `count` that are not black (the tests' background). */
static size_t pixels_drawn(const unsigned char *px, size_t count)
{
    size_t n = 0;
    for (size_t i = 0; i < count; i++) n += px[i * 4] || px[i * 4 + 1] || px[i * 4 + 2];
    return n;
}

/* The largest per-channel difference over `count` pixels, and in *over how
 * many pixels differ by more than `tolerance` in some channel. */
static int pixels_compare(const unsigned char *a, const unsigned char *b, size_t count, int tolerance, size_t *over)
{
    int worst = 0;
    *over = 0;
    for (size_t i = 0; i < count; i++) {
        bool bad = false;
        for (size_t c = 0; c < 3; c++) {
            int d = abs((int)a[i * 4 + c] - (int)b[i * 4 + c]);
            if (d > worst) worst = d;
            if (d > tolerance) bad = true;
        }
        *over += bad;
    }
    return worst;
}

/* With CNA_TEST_PNG_DIR set, write the picture there as PREFIX-NAME.png. */
static void pixels_maybe_write(const char *prefix, const char *name, const unsigned char *px, uint32_t w, uint32_t h)
{
    const char *dir = getenv("CNA_TEST_PNG_DIR");
    if (!dir) return;
    char path[1024];
    cna_error err;
    snprintf(path, sizeof path, "%s/%s-%s.png", dir, prefix, name);
    assert_int_equal(cna_gl_write_png(path, w, h, px, &err), CNA_OK);
}

#endif
