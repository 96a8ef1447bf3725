/*
 * src/core/mat4_portable.h — a 4x4 determinant and inverse with the bits of
 * cglm's SSE2 code, on every target (not installed).
 *
 * cna_mat4_inverse calls cglm's glm_mat4_det and glm_mat4_inv, whose SSE2
 * forms (x86-64) and scalar forms (WebAssembly, targets without SSE) add
 * and multiply in different orders, so the inverse differed in its last
 * bits between targets. These functions perform the SSE2 forms' operations
 * lane by lane, in their order (no fused multiply-add, as cglm without FMA):
 * where cglm has no SSE2 code, cna_mat4_inverse uses them, and the results
 * are x86-64's. tests/core/test_mat4_portable.c compares them with cglm's
 * SSE2 code bit for bit.
 *
 * m and out are column-major (m[4 * column + row]); out may not alias m.
 */
#ifndef CNA_CORE_MAT4_PORTABLE_H
#define CNA_CORE_MAT4_PORTABLE_H

/* glm_mat4_det_sse2(m). */
float cna__mat4_det_portable(const float m[16]);
/* glm_mat4_inv_sse2(m, out). */
void cna__mat4_inverse_portable(const float m[16], float out[16]);

#endif
