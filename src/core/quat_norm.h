/*
 * src/core/quat_norm.h — the length of a quaternion as the library's rotation
 * matrices use it (not installed).
 *
 * cna_mat4_compose, the player's kernels and the character's blended pose
 * turn a quaternion into a matrix with k = 2 / |q|. |q| is summed in one
 * order on every target: (x² + y²) + (z² + w²), then a correctly rounded
 * square root. That is the order of cglm's glm_quat_norm where cglm uses
 * SSE (x86-64), so the bits there are unchanged; cglm's scalar form, used
 * where it has no SIMD code (WebAssembly, CNA builds for other targets),
 * adds ((x² + y²) + z²) + w², which differs in the last bit for some
 * quaternions and would make the poses differ between targets.
 */
#ifndef CNA_CORE_QUAT_NORM_H
#define CNA_CORE_QUAT_NORM_H

#include <math.h>

static inline float cna__quat_norm(float x, float y, float z, float w)
{
    return sqrtf((x * x + y * y) + (z * z + w * w));
}

#endif
