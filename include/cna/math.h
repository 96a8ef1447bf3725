/*
 * cna/math.h — vectors, quaternions and 4x4 matrices in cna's convention.
 *
 * Convention (docs/conventions.md): matrices are 16 floats, column-major,
 * acting on column vectors — glTF's, OpenGL's and cglm's convention. Element
 * (row r, column c) is m[c * 4 + r]; the translation is m[12], m[13], m[14].
 * The project's specification (its names: docs/conventions.md) writes XNA's
 * row-vector convention; the bytes in memory are the same, so every product
 * reverses: spec `A * B` == ours `B · A`.
 *
 * Quaternions are (x, y, z, w), glTF's order; the identity is (0, 0, 0, 1).
 *
 * Usage:
 *   cna_mat4 local, world;
 *   cna_mat4_compose(&local, cna_vec3_make(0, 1, 0), cna_quat_identity(), cna_vec3_one());
 *   cna_mat4_mul(&world, &parent_world, &local);      // world = parent · local
 *
 * Every function is pure: no allocation, no errors, no state. Output pointers
 * may alias inputs unless stated. Implemented over cglm (Debian libcglm-dev).
 */
#ifndef CNA_MATH_H
#define CNA_MATH_H

#include <stdbool.h>

#include "cna/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cna_vec3 { float x, y, z; } cna_vec3;
typedef struct cna_vec4 { float x, y, z, w; } cna_vec4;
typedef struct cna_quat { float x, y, z, w; } cna_quat;
/* Column-major: m[column * 4 + row]. */
typedef struct cna_mat4 { float m[16]; } cna_mat4;

CNA_API cna_vec3 cna_vec3_make(float x, float y, float z);
CNA_API cna_vec3 cna_vec3_zero(void);
CNA_API cna_vec3 cna_vec3_one(void);
/* a + (b - a) · t, per component (XNA Vector3.Lerp). */
CNA_API cna_vec3 cna_vec3_lerp(cna_vec3 a, cna_vec3 b, float t);

CNA_API cna_quat cna_quat_make(float x, float y, float z, float w);
CNA_API cna_quat cna_quat_identity(void);
/* q / |q|; the identity when |q| is 0 or not finite. */
CNA_API cna_quat cna_quat_normalize(cna_quat q);
/* Spherical interpolation along the shortest arc (XNA Quaternion.Slerp):
 *   d = a·b; if d < 0 then b' = -b, d = -d (shortest arc);
 *   if d > 1 - 1e-6: r = a·(1 - t) + b'·t           (nearly parallel: linear)
 *   else θ = acos(d): r = a·sin((1-t)θ)/sin θ + b'·sin(tθ)/sin θ.
 * In float, operation for operation: θ = cna_acosf(d),
 * inv = 1 / cna_sinf(θ), wa = cna_sinf((1 - t)·θ)·inv,
 * wb = cna_sinf(t·θ)·inv·sign, r = a·wa + b·wb per component — so the result
 * is the same bits on every x86-64 CPU in the default floating-point
 * environment (round to nearest, no flush-to-zero or denormals-are-zero;
 * docs/exactness.md), with no C library trigonometry. For unit a,
 * b and t in [0, 1] each component is within 2e-7 of the slerp computed in
 * double precision. t = 0 returns a exactly. The result is not renormalised
 * (as XNA). */
CNA_API cna_quat cna_quat_slerp(cna_quat a, cna_quat b, float t);

/* sin(x), cna's own: evaluated in double precision (a Taylor polynomial to
 * x^15 after reducing x by the nearest multiple of pi), rounded once to
 * float, so the same bits on every x86-64 CPU in the default floating-point
 * environment, whatever C library is linked (docs/exactness.md).
 * Accuracy: within 1 ulp of sin(x) for |x| <= 2^20 (correctly rounded
 * but for rare ties). NaN and ±infinity give NaN; for |x| >= 2^50, where a
 * float's pi-reduction is meaningless, it returns 0. Used by cna_quat_slerp. */
CNA_API float cna_sinf(float x);
/* acos(x) in [0, pi], cna's own: evaluated in double precision (asin Taylor
 * polynomial to x^23 on [0, 0.5], with acos x = pi/2 - asin x for
 * |x| <= 0.5 and acos |x| = 2 asin(sqrt((1 - |x|) / 2)) above), rounded once
 * to float; within 1 ulp of acos(x). NaN gives NaN, |x| > 1 gives NaN.
 * Used by cna_quat_slerp. */
CNA_API float cna_acosf(float x);

/* The matrix functions accept NULL: a NULL output (or input) matrix does
 * nothing, the bool functions then return false and the transforms return
 * (0, 0, 0). */

/* Identity matrix. */
CNA_API void cna_mat4_identity(cna_mat4 *out);
/* Translation matrix T(v). */
CNA_API void cna_mat4_translation(cna_mat4 *out, cna_vec3 v);
/* out = a · b (ours; the spec writes b * a). out may alias a or b. */
CNA_API void cna_mat4_mul(cna_mat4 *out, const cna_mat4 *a, const cna_mat4 *b);
/* out = T(t) · R(r) · S(s) (ours; spec: Scale(s) * FromQuaternion(r) * Translation(t)).
 * r must be unit length (normalise it first otherwise): the conversion (cglm's
 * glm_quat_mat4) divides by |r| once, so a non-unit r does not give a rotation.
 * A slerp between unit keys is unit to float precision. */
CNA_API void cna_mat4_compose(cna_mat4 *out, cna_vec3 t, cna_quat r, cna_vec3 s);
/* Decompose m = T · R · S into translation, rotation (unit quaternion) and
 * scale (spec: Matrix.Decompose). A negative determinant is carried by a
 * negative x scale. Returns false (and identity TRS with the translation
 * filled in) when a scale is zero or m is not finite; false, writing nothing,
 * when any pointer is NULL. */
CNA_API bool cna_mat4_decompose(const cna_mat4 *m, cna_vec3 *t, cna_quat *r, cna_vec3 *s);
/* General inverse. Returns false and leaves *out unchanged when m is singular
 * (|det| below 1e-30) or not finite, or either pointer is NULL. out may alias m. */
CNA_API bool cna_mat4_inverse(cna_mat4 *out, const cna_mat4 *m);
/* m · (p, 1): transform a point (ours; spec: Vector3.Transform(p, m)). */
CNA_API cna_vec3 cna_mat4_transform_point(const cna_mat4 *m, cna_vec3 p);
/* m · (v, 0): transform a direction, no translation. */
CNA_API cna_vec3 cna_mat4_transform_vector(const cna_mat4 *m, cna_vec3 v);
/* true when every element equals the identity's exactly (false for NULL). */
CNA_API bool cna_mat4_is_identity(const cna_mat4 *m);

#ifdef __cplusplus
}
#endif
#endif /* CNA_MATH_H */
