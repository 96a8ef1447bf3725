/*
 * src/core/mat4_portable.c — cglm's SSE2 4x4 determinant and inverse,
 * operation for operation on four-float values (core/mat4_portable.h).
 * Each helper is the SSE intrinsic of the same name: lanes 0..3, the
 * shuffles moving values unchanged, each arithmetic lane rounded once.
 */
#include "core/mat4_portable.h"

typedef struct f4 {
    float v[4];
} f4;

static f4 load(const float *p) { return (f4){{p[0], p[1], p[2], p[3]}}; }
static f4 mul(f4 a, f4 b) { return (f4){{a.v[0] * b.v[0], a.v[1] * b.v[1], a.v[2] * b.v[2], a.v[3] * b.v[3]}}; }
static f4 add(f4 a, f4 b) { return (f4){{a.v[0] + b.v[0], a.v[1] + b.v[1], a.v[2] + b.v[2], a.v[3] + b.v[3]}}; }
static f4 sub(f4 a, f4 b) { return (f4){{a.v[0] - b.v[0], a.v[1] - b.v[1], a.v[2] - b.v[2], a.v[3] - b.v[3]}}; }
static f4 divv(f4 a, f4 b) { return (f4){{a.v[0] / b.v[0], a.v[1] / b.v[1], a.v[2] / b.v[2], a.v[3] / b.v[3]}}; }
/* glmm_fmadd without FMA: c + a·b; glmm_fnmadd: c - a·b */
static f4 fmadd(f4 a, f4 b, f4 c) { return add(c, mul(a, b)); }
static f4 fnmadd(f4 a, f4 b, f4 c) { return sub(c, mul(a, b)); }
/* _mm_shuffle_ps(a, b, _MM_SHUFFLE(z, y, x, w)) */
static f4 shuffle(f4 a, f4 b, int z, int y, int x, int w) { return (f4){{a.v[w], a.v[x], b.v[y], b.v[z]}}; }
/* glmm_shuff1(a, z, y, x, w) */
static f4 shuff1(f4 a, int z, int y, int x, int w) { return shuffle(a, a, z, y, x, w); }
/* _mm_movehl_ps(a, b), _mm_movelh_ps(a, b) */
static f4 movehl(f4 a, f4 b) { return (f4){{b.v[2], b.v[3], a.v[2], a.v[3]}}; }
static f4 movelh(f4 a, f4 b) { return (f4){{a.v[0], a.v[1], b.v[0], b.v[1]}}; }
/* _mm_xor_ps with a mask of -0.0f in the lanes given: those lanes negated */
static f4 negate(f4 a, int l0, int l1, int l2, int l3)
{
    return (f4){{l0 ? -a.v[0] : a.v[0], l1 ? -a.v[1] : a.v[1], l2 ? -a.v[2] : a.v[2], l3 ? -a.v[3] : a.v[3]}};
}
/* glmm_vhadds (SSE2, no SSE3): lane 0 = (v0 + v1) + (v2 + v3) */
static float hadd(f4 a) { return (a.v[0] + a.v[1]) + (a.v[2] + a.v[3]); }
/* glmm_vhadd: x0 = v + shuff1(v, 0, 1, 2, 3); x0 + shuff1(x0, 1, 0, 0, 1) */
static f4 vhadd(f4 a)
{
    const f4 x0 = add(a, shuff1(a, 0, 1, 2, 3));
    return add(x0, shuff1(x0, 1, 0, 0, 1));
}

float cna__mat4_det_portable(const float m[16])
{
    const f4 r0 = load(m), r1 = load(m + 4), r2 = load(m + 8), r3 = load(m + 12);
    const f4 x0 = fnmadd(shuff1(r3, 0, 0, 1, 1), shuff1(r2, 2, 3, 2, 3),
                         mul(shuff1(r2, 0, 0, 1, 1), shuff1(r3, 2, 3, 2, 3)));
    const f4 x1 = fnmadd(shuff1(r3, 0, 0, 2, 2), shuff1(r2, 1, 1, 3, 3),
                         mul(shuff1(r2, 0, 0, 2, 2), shuff1(r3, 1, 1, 3, 3)));
    f4 x2 = fnmadd(shuff1(r1, 1, 1, 2, 2), shuff1(x0, 3, 2, 2, 0),
                   mul(shuff1(r1, 0, 0, 0, 1), shuffle(x1, x0, 1, 0, 0, 0)));
    x2 = fmadd(shuff1(r1, 2, 3, 3, 3), shuffle(x0, x1, 2, 2, 3, 1), x2);
    x2 = negate(x2, 0, 1, 0, 1); /* _mm_set_ps(-0.f, 0.f, -0.f, 0.f): lanes 1 and 3 */
    return hadd(mul(x2, r0));
}

void cna__mat4_inverse_portable(const float m[16], float out[16])
{
    const f4 r0 = load(m), r1 = load(m + 4), r2 = load(m + 8), r3 = load(m + 12);
    f4 x0 = movehl(r3, r2);
    f4 x3 = movelh(r2, r3);
    f4 x1 = shuff1(x0, 1, 3, 3, 3);
    f4 x2 = shuff1(x0, 0, 2, 2, 2);
    f4 x4 = shuff1(x3, 1, 3, 3, 3);
    const f4 x7 = shuff1(x3, 0, 2, 2, 2);
    const f4 x6 = shuffle(r2, r1, 0, 0, 0, 0);
    f4 x5 = shuffle(r2, r1, 1, 1, 1, 1);
    x3 = shuffle(r2, r1, 2, 2, 2, 2);
    x0 = shuffle(r2, r1, 3, 3, 3, 3);

    f4 t0 = mul(x3, x1), t1 = mul(x5, x1), t2 = mul(x5, x2);
    f4 t3 = mul(x6, x1), t4 = mul(x6, x2), t5 = mul(x6, x4);
    t0 = fnmadd(x2, x0, t0);
    t1 = fnmadd(x4, x0, t1);
    t2 = fnmadd(x4, x3, t2);
    t3 = fnmadd(x7, x0, t3);
    t4 = fnmadd(x7, x3, t4);
    t5 = fnmadd(x7, x5, t5);

    x4 = movelh(r0, r1);
    x5 = movehl(r1, r0);
    x0 = shuff1(x4, 0, 0, 0, 2);
    x1 = shuff1(x4, 1, 1, 1, 3);
    x2 = shuff1(x5, 0, 0, 0, 2);
    x3 = shuff1(x5, 1, 1, 1, 3);

    f4 v2 = mul(x0, t1), v1 = mul(x0, t0), v3 = mul(x0, t2), v0 = mul(x1, t0);
    v2 = fnmadd(x1, t3, v2);
    v3 = fnmadd(x1, t4, v3);
    v0 = fnmadd(x2, t1, v0);
    v1 = fnmadd(x2, t3, v1);
    v3 = fmadd(x2, t5, v3);
    v0 = fmadd(x3, t2, v0);
    v2 = fmadd(x3, t5, v2);
    v1 = fmadd(x3, t4, v1);
    v0 = negate(v0, 0, 1, 0, 1); /* x8: lanes 1 and 3 */
    v2 = negate(v2, 0, 1, 0, 1);
    v1 = negate(v1, 1, 0, 1, 0); /* x9 = shuff1(x8, 2, 1, 2, 1): lanes 0 and 2 */
    v3 = negate(v3, 1, 0, 1, 0);

    x0 = shuffle(v0, v1, 0, 0, 0, 0);
    x1 = shuffle(v2, v3, 0, 0, 0, 0);
    x0 = shuffle(x0, x1, 2, 0, 2, 0);
    const f4 one = {{1.0f, 1.0f, 1.0f, 1.0f}};
    x0 = divv(one, vhadd(mul(x0, r0)));
    const f4 c[4] = {mul(v0, x0), mul(v1, x0), mul(v2, x0), mul(v3, x0)};
    for (int i = 0; i < 4; ++i)
        for (int k = 0; k < 4; ++k) out[4 * i + k] = c[i].v[k];
}
