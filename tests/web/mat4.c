/*
 * tests/web/mat4.c — cna_mat4_inverse in the web build gives x86-64's bits
 * (src/core/mat4_portable.h; the same case as tests/core/test_mat4_portable.c,
 * whose expected bits are cglm's SSE2 code's). Built by web/CMakeLists.txt
 * (test-mat4.js), run by tests/web/run.sh: node build-web/obj/test-mat4.js
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cna/math.h"

int main(void)
{
    const float c = 0.87758256f, s = 0.47942554f;
    const cna_mat4 m = {{c, s, 0, 0, -s, c, 0, 0, 0, 0, 1, 0, 1.5f, -2.0f, 0.25f, 1}};
    const uint32_t expect[16] = {0x3f60a940u, 0xbef57744u, 0x00000000u, 0x80000000u,
                                 0x3ef57744u, 0x3f60a940u, 0x80000000u, 0x00000000u,
                                 0x80000000u, 0x80000000u, 0x3f800000u, 0x80000000u,
                                 0xbeb70d38u, 0x401e5afdu, 0xbe800000u, 0x3f800000u};
    cna_mat4 inv;
    if (!cna_mat4_inverse(&inv, &m)) {
        fprintf(stderr, "error: cna_mat4_inverse refused the transform\n");
        return 1;
    }
    for (int i = 0; i < 16; ++i) {
        uint32_t b;
        memcpy(&b, &inv.m[i], sizeof b);
        if (b != expect[i]) {
            fprintf(stderr, "error: cna_mat4_inverse: m[%d] is 0x%08x, x86-64 gives 0x%08x\n", i, (unsigned)b,
                    (unsigned)expect[i]);
            return 1;
        }
    }
    printf("mat4: cna_mat4_inverse gives x86-64's bits\n");
    return 0;
}
