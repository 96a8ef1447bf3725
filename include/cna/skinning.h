/*
 * cna/skinning.h — the library's reference CPU skinning: linear blend
 * skinning of one mesh part's interleaved vertices with four influences per
 * vertex, exactly as the skinned effects do it on the GPU.
 *
 * A skinned vertex carries four one-byte palette indices j[0..3] and four
 * float weights w[0..3] (the canonical skinned layouts of cna/morph.h:
 * strides 52, 56, 68, 76, 80). Given a palette of skin matrices
 * (skin[p] = world[p] · inverse_bind_pose[p], cna_player_skin_transforms),
 * the skinned attributes are, in our convention (spec: the sum over
 * influences of w * Vector3.Transform(p, skin[j]); glTF 2.0's
 * sum w * jointMatrix * position):
 *
 *   p' = sum_i w[i] · (M_i · (p, 1))                       position
 *   n' = normalize(sum_i w[i] · (M_i · (n, 0)))             normal
 *   t' = normalize(sum_i w[i] · (M_i · (t.xyz, 0))), t'.w = t.w    tangent
 *
 * with M_i = palette[j[i]]. Arithmetic, so results are reproducible bit for
 * bit (single precision, no fused multiply-add):
 *   - the influences are visited i = 0, 1, 2, 3; an influence whose weight is
 *     exactly 0 is skipped (it would add w · M·p = 0 for any finite M·p, and
 *     skipping it keeps an unused palette entry from ever mattering);
 *   - M · (x, y, z, h) row r is ((m[r]·x + m[4+r]·y) + m[8+r]·z) + m[12+r]·h
 *     (column-major m, h = 1 for points, 0 for directions, the h = 0 term
 *     omitted), then sum = sum + w[i] · that, sum starting at +0;
 *   - normalize(v) = v / sqrtf((v.x·v.x + v.y·v.y) + v.z·v.z), component by
 *     component; when that length is 0 or not finite the direction is
 *     written unnormalised (the sum itself; (0,0,0) when every weight is 0).
 * Consequences the tests pin: an identity palette with weights summing to
 * exactly 1 in one influence returns the input exactly; a palette of pure
 * translations moves positions and leaves normals and tangents unchanged
 * (up to the renormalisation of an input that was not unit length).
 * Normals are transformed by the skin matrices themselves, as GPU skinning
 * shaders do, which is exact for rotations, translations and uniform scale
 * (a non-uniform scale would need the inverse transpose).
 *
 * Usage (skinned positions of one part at the player's current pose):
 *   cna_skinning_layout layout;
 *   cna_skinning_layout_canonical(52, &layout, &err);
 *   float *xyz = malloc(vertex_count * 3 * sizeof *xyz);
 *   cna_skin_positions(&layout, part_vertices, vertex_count,
 *                      cna_player_skin_transforms(player),
 *                      (size_t)cna_player_bone_count(player), xyz, vertex_count * 3, &err);
 *
 * A part split into sub-palettes (cna_model_part.palette_map, a skin of
 * more than 72 joints imported with split_palettes) is skinned with its
 * sub-palette, whose entries its joint bytes index:
 *   size_t count;
 *   const cna_mat4 *sub = cna_character_part_palette(character, mesh, part, &count);
 *   cna_skin_positions(&layout, cna_character_part_vertices(character, mesh, part, NULL),
 *                      part->vertex_count, sub, count, xyz, part->vertex_count * 3, &err);
 * (or, from a palette of one's own, sub[i] = skin_palette[part->palette_map[i]]).
 * cna_character_part_palette gives the skin's palette for an unsplit part,
 * so the same code skins every part.
 *
 * The fastest way to skinned positions and normals for a CPU renderer or an
 * upload (separate arrays, or any stride; see cna_skinning_streams):
 *   cna_skinning_streams s = {0};
 *   s.positions = xyz;  s.positions_size = vertex_count * 12;
 *   s.normals = nrm;    s.normals_size = vertex_count * 12;
 *   cna_skin_streams(&layout, part_vertices, vertex_count, palette, palette_count, &s, &err);
 *
 * Every function here is pure: no allocation, no state; the inputs are only
 * read during the call.
 */
#ifndef CNA_SKINNING_H
#define CNA_SKINNING_H

#include <stddef.h>
#include <stdint.h>

#include "cna/export.h"
#include "cna/math.h"
#include "cna/result.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Influences per vertex. */
#define CNA_SKINNING_INFLUENCES 4

/* Where the skinning inputs sit in one interleaved vertex. Slots are read and
 * written with memcpy, so offsets need no alignment. */
typedef struct cna_skinning_layout {
    uint32_t stride;          /* bytes per vertex, > 0 */
    int32_t position_offset;  /* 3 floats; required (>= 0) */
    int32_t normal_offset;    /* 3 floats; -1 = absent */
    int32_t tangent_offset;   /* 4 floats (xyz direction, w handedness); -1 = absent */
    int32_t joints_offset;    /* 4 x uint8 palette indices; required */
    int32_t weights_offset;   /* 4 floats; required */
} cna_skinning_layout;

/* The skinning layout of a canonical skinned vertex layout (cna/morph.h's
 * table): stride 52 and 56 (P N U0 J W [C]: joints 32, weights 36, no
 * tangent), 68 (tangent 32, joints 48, weights 52), 76 (tangent 32, joints
 * 56, weights 60), 80 (tangent 32, joints 60, weights 64); position 0,
 * normal 12 in all.
 * Errors: CNA_ERROR_INVALID_ARGUMENT for a NULL out or a stride that is not a
 * canonical skinned stride (the message lists them); *out is then unchanged. */
CNA_API cna_result cna_skinning_layout_canonical(uint32_t stride, cna_skinning_layout *out,
                                         cna_error *err);

/* Skin `vertex_count` vertices of `layout` from `vertices` into `out`, which
 * receives the same layout: every byte is copied from the input, then the
 * position, normal (if present) and tangent (if present) slots are replaced
 * by p', n', t' above (the tangent's w is copied). `out` must hold
 * vertex_count * stride bytes and must not overlap `vertices`.
 * Every input is checked before anything is written.
 * Errors (CNA_ERROR_INVALID_ARGUMENT; out untouched): NULL layout; stride 0;
 * a required offset negative or any slot outside the stride; NULL vertices
 * or out with vertex_count > 0; vertex_count * stride overflowing;
 * out_size smaller than that; out overlapping vertices; NULL palette with
 * palette_count > 0; a joint index not below palette_count, on any
 * influence whatever its weight ("vertices[7].joints[2]: palette index 9 is
 * not below palette_count 4"). */
CNA_API cna_result cna_skin_vertices(const cna_skinning_layout *layout, const void *vertices,
                             size_t vertex_count, const cna_mat4 *palette, size_t palette_count,
                             void *out, size_t out_size, cna_error *err);

/* The fast path: cna_skin_vertices' contract (same layout, same bytes copied,
 * same slots replaced, the same checks before anything is written and the
 * same refusals with the same messages; out untouched on error), computed
 * with the four influences' matrices blended first:
 *
 *   B  = sum_i w[i] · M_i            (an influence of weight exactly 0 adds nothing)
 *   p' = B · (p, 1),  n' = normalize(B · (n, 0)),  t' = normalize(B · (t.xyz, 0))
 *
 * (the same linear blend skinning, spec: the sum of w * Vector3.Transform;
 * glTF 2.0's skinMatrix = sum w * jointMatrix, re-associated; as in the
 * reference only the top three rows of each matrix matter, so the palette
 * need not be affine, but an entry with a non-finite value anywhere takes
 * a slower loop). The kernel is chosen at run time, per call: AVX2 +
 * FMA when the CPU has both (x86-64 built with gcc or clang; fused
 * multiply-adds), else SSE2 where the build has it, else the portable
 * scalar one (CNA_NO_SIMD defined at compile time keeps only that one).
 * Every kernel computes the same formula; they round differently, within
 * the bound below. The canonical layouts (cna_skinning_layout_canonical)
 * take the fastest loops; any other valid layout is accepted. The kernels
 * are one kernel compiled three ways; they normalise with a reciprocal
 * square root estimate (the CPU's rsqrtps; 1 / sqrtf in the scalar one)
 * refined by one Newton-Raphson step, except that a squared length of
 * exactly 1 takes 1 exactly; a squared length that is 0, subnormal or not
 * finite is handled as the reference does (written unnormalised). Nothing
 * outside the vertex_count * stride bytes of out is written.
 * It does not give the reference's bits, and its bits are not the same on
 * every CPU: rsqrtps is an estimate whose bits differ between processors
 * (Intel and AMD return different values, each within 1.5 · 2^-12 of
 * 1 / sqrt), so two x86-64 machines may write directions a unit in the last
 * place or so apart. What holds on every CPU, for any estimate within that
 * architectural bound (the tests run the kernels with the estimate
 * replaced by emulations at both ends of the bound, the nearest float and
 * values scattered across it):
 *   - the accuracy below;
 *   - a blended direction of squared length exactly 1 is written unchanged,
 *     as the reference writes it: one influence of weight 1 on an identity
 *     or pure translation palette entry returns a unit axis normal or
 *     tangent such as (0, 1, 0) bit for bit;
 *   - a direction of squared length 0, subnormal or not finite is written
 *     as the reference writes it, bit for bit;
 *   - positions, and the tangent's w, do not involve the estimate: they are
 *     the same bits on every CPU that runs the same kernel (AVX2 + FMA,
 *     SSE2 or scalar), Intel or AMD.
 * Accuracy, for finite inputs (the
 * tests check every kernel the machine runs against cna_skin_vertices on
 * random data with 1 to 4 influences, every canonical layout and two
 * others, 1 to 9 vertices and odd addresses, and on RobotExpressive's parts
 * with random palettes; the largest error seen is a few percent of the
 * bound):
 *   - each position component is within 1e-5 · S of the reference, where
 *     S = sum_i |w[i]| · m_i · (|p.x| + |p.y| + |p.z| + 1) over the non-zero
 *     weights and m_i is the largest magnitude in M_i's top three rows (for
 *     weights summing to 1 and a unit-scale palette, S is about the
 *     vertex's distance from the origin plus the translations: 1e-5
 *     relative);
 *   - each normal / tangent component is within 1e-5 · S / L + 1e-6, S as
 *     above without the + 1 and L the length of the unnormalised blended
 *     direction (about 1e-5 absolute unless the influences nearly cancel);
 *   - the tangent's w and every byte outside the three slots are copied
 *     exactly.
 * A palette entry referenced only with weight 0 is never used, even when
 * not finite. A non-finite vertex value may give different non-finite
 * results than the reference.
 * Cost (docs/benchmarks.md, "CPU skinning"): with four influences,
 * positions + normals, checks and copy included, about 60 instructions per
 * vertex with AVX2 + FMA, 127 with SSE2, against the reference's 673. */
CNA_API cna_result cna_skin_vertices_fast(const cna_skinning_layout *layout, const void *vertices,
                                  size_t vertex_count, const cna_mat4 *palette,
                                  size_t palette_count, void *out, size_t out_size,
                                  cna_error *err);

/* Flags of cna_skinning_streams.flags. */
/* Write the normal and tangent directions as blended, B · (n, 0) and
 * B · (t.xyz, 0), without renormalising them (the default, flags 0,
 * renormalises them as cna_skin_vertices_fast does). For a renderer whose
 * shaders normalise anyway (ozz-animation's SkinningJob never
 * renormalises). Renormalising costs about 10 instructions and 0.75 ns
 * per vertex with AVX2 + FMA, about a fifth of the call (docs/benchmarks.md,
 * "CPU skinning"). */
#define CNA_SKIN_NO_RENORMALIZE 0x1u

/* Where cna_skin_streams writes: one caller buffer per skinned attribute,
 * each with its own stride, so the results can go to separate packed
 * arrays, into an interleaved vertex buffer, or anything between. Zero a
 * struct, then set the pointers the layout needs:
 *   cna_skinning_streams s = {0};
 *   s.positions = xyz;  s.positions_size = vertex_count * 12;
 *   s.normals = nrm;    s.normals_size = vertex_count * 12;
 * Slots are written with unaligned stores: pointers and strides need no
 * alignment. */
typedef struct cna_skinning_streams {
    float *positions;         /* p' as x, y, z; required */
    size_t positions_size;    /* bytes writable at positions */
    uint32_t position_stride; /* bytes from one vertex's p' to the next; 0 = 12 (packed), else >= 12 */
    float *normals;           /* n' as x, y, z: required when the layout has a normal,
                                 else NULL */
    size_t normals_size;      /* bytes writable at normals */
    uint32_t normal_stride;   /* 0 = 12 (packed), else >= 12 */
    float *tangents;          /* t' as x, y, z, w (w copied from the input): required when
                                 the layout has a tangent, else NULL */
    size_t tangents_size;     /* bytes writable at tangents */
    uint32_t tangent_stride;  /* 0 = 16 (packed), else >= 16 */
    uint32_t flags;           /* CNA_SKIN_* bits; 0 = renormalise the directions */
} cna_skinning_streams;

/* Skin `vertex_count` interleaved vertices of `layout` into separate
 * streams: it reads only each vertex's position, normal and tangent (those
 * the layout has), joints and weights, and writes only p', n', t' to
 * `out`'s buffers (vertex v's p' at (char *)out->positions + v * stride,
 * and so on); nothing else is copied. To skip an attribute the layout has
 * (positions only, say), pass a copy of the layout with that offset set
 * to -1.
 * The results are, bit for bit, the slots cna_skin_vertices_fast writes
 * for the same inputs on the same machine (the same kernel, chosen the
 * same way, so within its documented bound of the reference
 * cna_skin_vertices, with its exact cases, on every CPU), except with
 * CNA_SKIN_NO_RENORMALIZE: the directions are then B · (n, 0) and
 * B · (t.xyz, 0) before normalisation, each component within
 * 1e-5 · S of sum_i w[i] · (M_i · (n, 0)), S as in that bound without
 * the + 1. A palette entry referenced only with weight 0 is never used.
 * Zero weights and weights that do not sum to 1 are taken as given (all
 * four weights 0 give p' = (0, 0, 0)).
 * Every input is checked before anything is written; on error no buffer is
 * touched. Errors (CNA_ERROR_INVALID_ARGUMENT): every refusal of
 * cna_skin_vertices on the layout, vertices, vertex_count and palette, with
 * its message ("vertices[7].joints[2]: palette index 9 is not below
 * palette_count 4"); NULL out; out->positions NULL with vertex_count > 0;
 * out->normals (tangents) NULL while the layout has that slot, or not NULL
 * while it has not; a stride below its slot's size (12, 16 for tangents);
 * a buffer smaller than (vertex_count - 1) * stride + its slot's size
 * (overflow-checked); a buffer overlapping the vertices; two buffers
 * whose written bytes overlap (interleaved streams that share a buffer
 * without sharing bytes are fine); unknown bits in out->flags. The message
 * names the field ("out.normals: NULL; layout.normal_offset is 12 (set it to
 * -1 to skip the normals)").
 * How: the fast path's loops without its copy. For the
 * canonical layouts, the directions are normalised in blocks of 64
 * vertices, eight at a time, after each block's blends (so the
 * normalisation stays out of the blends' dependency chains), and packed
 * streams take 16-byte stores whose last 4 bytes the next vertex
 * overwrites (the call's last vertex gets exact ones).
 * Cost (docs/benchmarks.md, "CPU skinning"): four influences, positions +
 * normals into packed arrays, checks included: about 60 instructions per
 * vertex with AVX2 + FMA (51 with CNA_SKIN_NO_RENORMALIZE), 112 with SSE2
 * (98), against cna_skin_vertices_fast's 60 and 127 and the reference's
 * 673; in time about a fifth below cna_skin_vertices_fast (which also
 * copies every other byte of each vertex), and about 0.8 of ozz-animation's
 * SkinningJob doing the same work (no renormalisation), 0.95 renormalising. */
CNA_API cna_result cna_skin_streams(const cna_skinning_layout *layout, const void *vertices,
                                    size_t vertex_count, const cna_mat4 *palette,
                                    size_t palette_count, const cna_skinning_streams *out,
                                    cna_error *err);

/* Only the skinned positions p', as x, y, z float triples: out_xyz[3v + c].
 * out_count must be >= 3 * vertex_count. Same checks and errors as
 * cna_skin_vertices (the normal and tangent slots are ignored), out_xyz
 * overlapping vertices included. */
CNA_API cna_result cna_skin_positions(const cna_skinning_layout *layout, const void *vertices,
                              size_t vertex_count, const cna_mat4 *palette, size_t palette_count,
                              float *out_xyz, size_t out_count, cna_error *err);

#ifdef __cplusplus
}
#endif
#endif /* CNA_SKINNING_H */
