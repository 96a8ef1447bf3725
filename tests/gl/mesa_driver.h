/*
 * For the tests that draw through cna_gl: eglTerminate unloads Mesa's driver,
 * and with it the globals that still point at some of its allocations;
 * LeakSanitizer would then report those as leaks from an unknown module.
 * Keeping the driver mapped (RTLD_NODELETE) keeps them reachable. Call
 * keep_mesa_driver_loaded() first in main. Test-only; nothing happens where
 * the file is absent. Header-only.
 */
#ifndef CNA_TESTS_GL_MESA_DRIVER_H
#define CNA_TESTS_GL_MESA_DRIVER_H

#include <dlfcn.h>
#include <stddef.h>

static void keep_mesa_driver_loaded(void)
{
    static const char *const paths[] = {
        "/usr/lib/x86_64-linux-gnu/dri/swrast_dri.so", "/usr/lib/aarch64-linux-gnu/dri/swrast_dri.so",
        "/usr/lib64/dri/swrast_dri.so", "/usr/lib/dri/swrast_dri.so"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
        if (dlopen(paths[i], RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)) return;
}

#endif
