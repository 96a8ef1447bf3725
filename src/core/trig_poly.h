/*
 * The two polynomials behind cna_sinf and cna_acosf (src/core/math.c),
 * defined once: the scalar code and the anim layer's SIMD copies (SSE2, AVX,
 * AVX-512F lanes in src/anim) all evaluate them with these coefficients, in
 * Horner form from the highest degree, p = p·x² + c, then x + x·(x²·p), so
 * every lane rounds exactly as the scalar code (and the bits do not depend
 * on the vector width; tests/anim/test_player_paths.c and test_sampling.c
 * compare them). Not installed.
 *
 * sin(r), |r| <= pi/2: Taylor to r^15 (odd terms), truncation error below
 * 7e-12 at pi/2. asin(z), 0 <= z <= 0.5: Taylor to z^23,
 * asin z = sum (2n)! / (4^n (n!)^2 (2n+1)) z^(2n+1), below 3e-10 at 0.5.
 * Subtracting c is the same IEEE operation as adding -c, so the signed
 * constants give the bits of the "p·r² - c" form.
 */
#ifndef CNA_CORE_TRIG_POLY_H
#define CNA_CORE_TRIG_POLY_H

#define CNA__SIN_C0 (-1.0 / 1307674368000.0)
#define CNA__SIN_C1 (1.0 / 6227020800.0)
#define CNA__SIN_C2 (-1.0 / 39916800.0)
#define CNA__SIN_C3 (1.0 / 362880.0)
#define CNA__SIN_C4 (-1.0 / 5040.0)
#define CNA__SIN_C5 (1.0 / 120.0)
#define CNA__SIN_C6 (-1.0 / 6.0)

#define CNA__ASIN_C0 (88179.0 / 12058624.0)
#define CNA__ASIN_C1 (46189.0 / 5505024.0)
#define CNA__ASIN_C2 (12155.0 / 1245184.0)
#define CNA__ASIN_C3 (6435.0 / 557056.0)
#define CNA__ASIN_C4 (429.0 / 30720.0)
#define CNA__ASIN_C5 (231.0 / 13312.0)
#define CNA__ASIN_C6 (63.0 / 2816.0)
#define CNA__ASIN_C7 (35.0 / 1152.0)
#define CNA__ASIN_C8 (5.0 / 112.0)
#define CNA__ASIN_C9 (3.0 / 40.0)
#define CNA__ASIN_C10 (1.0 / 6.0)

#endif /* CNA_CORE_TRIG_POLY_H */
