/*
 * cna/morph.h — morph targets: the carrier of one mesh part's targets
 * (spec: MorphTargetDataEXT), exact CPU blending, weight tracks
 * (spec: MorphWeightTrackEXT) and the per-instance state that re-uploads the
 * blended vertices through a cna_device.
 *
 * A part's morph data is shared and immutable: its zero-weight base vertex
 * bytes, their layout, the per-target deltas, the initial weights, an
 * optional weight track and the flat-normal switch. These are plain
 * description structs that borrow every array through a pointer + count and
 * own nothing (hand-built data lives wherever the caller puts it; imported
 * data is owned by the model that produced it). A cna_morph_instance holds
 * what changes: the current weights and the blended vertex bytes. Several
 * instances may share one cna_morph_target_data and run on different threads.
 *
 * Usage — the spec's two-target triangle ("A two-target worked example"):
 *   // 3 vertices, stride 32: position, normal (+Z), texcoord
 *   float pos0[9] = {0,0,1, 0,0,1, 0,0,1};         // target 0: every vertex +1 in Z
 *   float pos1[9] = {2,0,0, 0,0,0, 0,0,0};         // target 1: vertex 0 +2 in X ...
 *   float nrm1[9] = {1,0,0, 0,0,0, 0,0,0};         //   ... and its normal tilts to +X
 *   cna_morph_target targets[2] = {0};
 *   targets[0].positions = cna_morph_deltas_dense(pos0, 3);   // no normal deltas
 *   targets[1].positions = cna_morph_deltas_dense(pos1, 3);
 *   targets[1].normals = cna_morph_deltas_dense(nrm1, 3);
 *   cna_morph_target_data data = {0};
 *   data.base_vertices = base_bytes;                // 96 bytes
 *   data.base_size = 96;
 *   data.vertex_count = 3;
 *   cna_morph_layout_canonical(32, &data.layout, &err);
 *   data.targets = targets;
 *   data.target_count = 2;
 *
 *   cna_morph_instance *morph;
 *   cna_morph_instance_create(&data, NULL, &morph, &err);      // base pose
 *   cna_morph_instance_bind_vertex_buffer(morph, vertex_buffer);
 *   float w[2] = {1, 1};
 *   cna_morph_set_weights(morph, w, 2, device, &err);           // blend, store, re-upload
 *   // vertex 0: (0,0,0) + (0,0,1) + (2,0,0) = (2,0,1); normal (1,0,1)/sqrt(2)
 *   cna_morph_instance_free(morph);
 *
 * Exact blend (spec: BlendMorphTargetsEXT), for weights w[0..T) with
 * T == target_count. A target is active when its weight is non-zero; inactive
 * targets are skipped. Per vertex v and per kind (position, normal, tangent)
 * whose layout slot exists:
 *   sum[v] = 0; then for each active target t in index order:
 *     sum[v] = sum[v] + w[t] * delta_t[v]         (float, component-wise; a
 *                                                  sparse target adds only at
 *                                                  its listed vertices)
 *   position = base + sum
 *   normal   = base + sum, then n / sqrtf(n.x*n.x + n.y*n.y + n.z*n.z)
 *              (component-wise division); kept equal to the base bytes when
 *              sum is exactly (0,0,0) or when the length is zero or not finite
 *   tangent  = xyz as the normal; w (handedness) is never blended: it keeps
 *              the base bytes, since blending +1 and -1 passes through 0
 * A kind that no active target carries keeps its base bytes exactly, and
 * every other byte of the vertex (texcoords, colours, joints, weights) is
 * copied from the base unchanged. With no active target at all the output is
 * the base bytes, byte for byte. Arithmetic is single-precision without
 * fused multiply-add or estimates, so results are reproducible bit for bit:
 * whichever code path the CPU gets (scalar, SSE2, AVX2), the same bits,
 * also where the host set flush-to-zero or denormals-are-zero; and on every
 * x86-64 CPU, Intel and AMD alike, the same bits in the default
 * floating-point environment (round to nearest, neither of those;
 * docs/exactness.md). The one exception is an operation whose two operands
 * are both NaN (NaN or infinite deltas), where
 * the result is NaN but which operand's sign and payload it carries is not
 * specified. Cost: every call writes every vertex; on top of that a target
 * whose weight is zero costs nothing and a sparse target costs its listed
 * entries, not the vertex count.
 *
 * Flat normals (spec: RecomputeFlatNormalsEXT): for a primitive that
 * authored no normals, which the importer fully splits so each vertex belongs
 * to one triangle. When the switch is set and some weight is non-zero, after
 * the blend above, for each triangle (i0, i1, i2) of triangle_indices in
 * order:
 *   n = cross(p1 - p0, p2 - p0) / |cross(...)|   (morphed positions; glTF's
 *                                                 counter-clockwise front face)
 *   each of its three vertices gets normal n, and its tangent xyz t (if the
 *   layout has one) is re-orthogonalised (Gram-Schmidt):
 *   u = t - n * dot(n, t); t = u / |u|; w kept.
 * A degenerate triangle (|cross| zero or not finite) leaves its vertices'
 * normals and tangents as blended; likewise a tangent with |u| zero or not
 * finite keeps its blended value. A vertex listed by several triangles gets
 * the last one's normal.
 */
#ifndef CNA_MORPH_H
#define CNA_MORPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cna/alloc.h"
#include "cna/device.h"
#include "cna/export.h"
#include "cna/result.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ layout */

/* Where the morphed attributes sit in one interleaved vertex. Every other
 * byte of the stride is copied unchanged by the blend. Slots are read and
 * written with memcpy, so offsets need no alignment. */
typedef struct cna_morph_layout {
    uint32_t stride;          /* bytes per vertex, > 0 */
    int32_t position_offset;  /* 3 floats; -1 = absent */
    int32_t normal_offset;    /* 3 floats; -1 = absent */
    int32_t tangent_offset;   /* 4 floats: xyz direction, w handedness (+1/-1); -1 = absent */
} cna_morph_layout;

/* The canonical vertex layouts, one per stride the spec names ("Morph
 * targets": 32, 52, 56 and the PBR strides 48, 60, 68, 76, 80). Components,
 * in this order when present:
 *   P  position   3 floats  12 bytes      T  tangent    4 floats  16 bytes
 *   N  normal     3 floats  12 bytes      U1 texcoord1  2 floats   8 bytes
 *   U0 texcoord0  2 floats   8 bytes      C  colour     4 x u8     4 bytes (RGBA8, XNA's Color)
 *   J  joints     4 x u8     4 bytes      W  weights    4 floats  16 bytes
 * so position is always at 0, the normal at 12 and the tangent (PBR) at 32:
 *
 *   stride  components              P   N   U0   T   U1   C   J   W
 *     32    P N U0                  0  12   24   -    -   -   -   -
 *     52    P N U0 J W              0  12   24   -    -   -  32  36   (skinned)
 *     56    P N U0 J W C            0  12   24   -    -  52  32  36   (skinned, coloured)
 *     48    P N U0 T                0  12   24  32    -   -   -   -   (PBR)
 *     60    P N U0 T U1 C           0  12   24  32   48  56   -   -   (PBR)
 *     68    P N U0 T J W            0  12   24  32    -   -  48  52   (PBR skinned)
 *     76    P N U0 T U1 J W         0  12   24  32   48   -  56  60   (PBR skinned)
 *     80    P N U0 T U1 C J W       0  12   24  32   48  56  60  64   (PBR skinned)
 *
 * Every canonical layout has a normal slot, so every one morphs normals.
 * (A 16-byte float colour cannot produce strides 60 and 80 together with the
 * rest of this set, hence the packed 4-byte colour.)
 * Fills *out with stride and the position/normal/tangent offsets.
 * Errors: CNA_ERROR_INVALID_ARGUMENT for a NULL out or a stride not in the
 * table (the message lists the canonical strides); *out is then unchanged. */
CNA_API cna_result cna_morph_layout_canonical(uint32_t stride, cna_morph_layout *out, cna_error *err);

/* ------------------------------------------------------------------ targets */

/* The deltas of one kind (positions, normals or tangent directions) of one
 * target, as x, y, z float triples. Two forms:
 *   dense  (indices == NULL): count is 0 (the target has none of this kind)
 *          or exactly vertex_count; entry v moves vertex v;
 *   sparse (indices != NULL): entry j moves vertex indices[j]; the indices
 *          strictly increase and are below vertex_count (glTF's sparse
 *          accessor rule); unlisted vertices have zero delta.
 * A sparse form and the dense form with zeros elsewhere blend to the same
 * bytes. */
typedef struct cna_morph_deltas {
    const float *values;       /* 3 * count floats; may be NULL only when count is 0 */
    const uint32_t *indices;   /* NULL: dense; else count vertex indices (sparse) */
    size_t count;              /* entries */
} cna_morph_deltas;

/* Dense deltas: `count` triples (0 or the vertex count). */
CNA_API cna_morph_deltas cna_morph_deltas_dense(const float *values, size_t count);
/* Sparse deltas: `count` triples for the vertices in `indices`. */
CNA_API cna_morph_deltas cna_morph_deltas_sparse(const uint32_t *indices, const float *values,
                                         size_t count);

/* One morph target (spec: PositionDeltas[t], NormalDeltas[t], TangentDeltas[t];
 * an empty kind = count 0). Zero-initialise, then set the kinds it has. */
typedef struct cna_morph_target {
    cna_morph_deltas positions;
    cna_morph_deltas normals;
    cna_morph_deltas tangents;   /* tangent direction (xyz) deltas; w is never morphed */
} cna_morph_target;

/* ------------------------------------------------------------------ weight tracks */

typedef enum cna_morph_interpolation {
    CNA_MORPH_INTERPOLATION_LINEAR = 0, /* default (glTF's default) */
    CNA_MORPH_INTERPOLATION_STEP,
    CNA_MORPH_INTERPOLATION_CUBICSPLINE,
    CNA_MORPH_INTERPOLATION_COUNT
} cna_morph_interpolation;

/* Animated weights of one mesh (spec: MorphWeightTrackEXT; glTF's "weights"
 * channel). Key k is at times[k] seconds (the file's float values) and holds
 * target_count weights values[k * target_count + i]. For CUBICSPLINE the
 * glTF in-tangents a_k and out-tangents b_k are kept unbaked, in the same
 * key-major layout, in units of weight per second. */
typedef struct cna_morph_weight_track {
    const float *times;          /* key_count times, finite, never decreasing (equal
                                    consecutive times: a jump, see evaluate) */
    size_t key_count;            /* 0: an empty track */
    size_t target_count;         /* weights per key */
    const float *values;         /* key_count * target_count, finite */
    const float *in_tangents;    /* CUBICSPLINE: a_k, same layout as values; NULL = none */
    const float *out_tangents;   /* CUBICSPLINE: b_k; NULL = none (both or neither) */
    cna_morph_interpolation interpolation; /* default LINEAR */
} cna_morph_weight_track;

/* Check every rule of a track and report the first broken one by name:
 * interpolation inside the enum; key_count * target_count does not
 * overflow; times and values non-NULL when key_count > 0; tangents both or
 * neither, and only on a CUBICSPLINE track; every time finite and not
 * less than the one before (equal times are a discontinuity); every value and tangent finite.
 * Returns CNA_OK or CNA_ERROR_INVALID_ARGUMENT (e.g. "times[2]: 0.5 does not
 * increase after times[1] = 0.7"). */
CNA_API cna_result cna_morph_weight_track_validate(const cna_morph_weight_track *track, cna_error *err);

/* Evaluate a track at `seconds` (spec: EvaluateMorphWeightsEXT, "Animated
 * weights") into out[0 .. target_count), and set *out_count to the number of
 * weights written:
 *   - empty track (key_count 0): nothing written, *out_count = 0;
 *   - one key, or seconds < times[0]: the first key's weights; seconds >=
 *     the last time: the last key's weights (clamped at both ends);
 *   - otherwise the keys k, k+1 with times[k] <= seconds < times[k+1]
 *     (of equal times the later key: a discontinuity, the later key from
 *     that time on, as three.js's interpolants choose),
 *     dt = times[k+1] - times[k], s = (seconds - times[k]) / dt (double):
 *     STEP: v_k (half-open: at exactly times[k+1] the next value is in force);
 *     LINEAR, and CUBICSPLINE without tangents: (1 - s) * v_k + s * v_{k+1};
 *     CUBICSPLINE with tangents, glTF's Hermite curve
 *       (2s³-3s²+1) v_k + (s³-2s²+s) dt b_k + (-2s³+3s²) v_{k+1} + (s³-s²) dt a_{k+1}
 *     with b_k the out-tangent of k and a_{k+1} the in-tangent of k+1,
 *     summed left to right in double and rounded once to float.
 * Only O(1) checks run here (the full check is cna_morph_weight_track_validate),
 * but no array is ever read out of bounds, whatever the track holds.
 * Errors (CNA_ERROR_INVALID_ARGUMENT, nothing written, *out_count unchanged):
 * NULL track or out_count; seconds is NaN; interpolation outside the enum;
 * NULL times or values with keys; key_count * target_count overflows; one
 * tangent array without the other, or tangents on a non-cubic track;
 * out_capacity < target_count (message names both) or NULL out with a
 * non-empty result; the bracketing times not increasing. */
CNA_API cna_result cna_morph_evaluate_weights(const cna_morph_weight_track *track, double seconds,
                                      float *out, size_t out_capacity, size_t *out_count,
                                      cna_error *err);

/* ------------------------------------------------------------------ the carrier */

/* The morph targets of one mesh part (spec: MorphTargetDataEXT), immutable
 * and shared. Zero-initialise, then fill. Every array is borrowed and must
 * outlive (and stay unchanged during) every use, including every
 * cna_morph_instance created from it. */
typedef struct cna_morph_target_data {
    const void *base_vertices;   /* the zero-weight pose (spec: BaseVertexBytes) */
    size_t base_size;            /* bytes; must equal vertex_count * layout.stride */
    size_t vertex_count;
    cna_morph_layout layout;     /* e.g. from cna_morph_layout_canonical */
    const cna_morph_target *targets;
    size_t target_count;
    const float *initial_weights;  /* the weights at load (the instancing node's, else the
                                      mesh's); NULL/0 = all zero, else target_count values */
    size_t initial_weight_count;
    const cna_morph_weight_track *weight_track; /* optional (spec: WeightTrack); NULL = none;
                                                   not played by the blend itself */
    bool recompute_flat_normals;   /* spec: RecomputeFlatNormalsEXT; see the header comment */
    const uint32_t *triangle_indices; /* spec: TriangleIndicesEXT, 3 per triangle; read only
                                         when recompute_flat_normals is set */
    size_t triangle_index_count;
} cna_morph_target_data;

/* Check a carrier before it is used and report the first broken rule by name,
 * for example "targets[1].normals: 2 deltas; expected 0 or vertex_count 3".
 * Rules, in order:
 *   layout: stride > 0; each offset -1 or >= 0, its slot inside the stride,
 *     slots not overlapping;
 *   base: vertex_count * stride does not overflow and equals base_size;
 *     base_vertices non-NULL when base_size > 0;
 *   targets non-NULL when target_count > 0; per target and kind: values
 *     non-NULL when count > 0; a kind with deltas needs its layout slot;
 *     dense: count is 0 or vertex_count; sparse: count <= vertex_count,
 *     indices below vertex_count and strictly increasing;
 *   initial_weights: count 0 or target_count, non-NULL, every value finite;
 *   weight_track: valid (cna_morph_weight_track_validate) and, when it has
 *     keys, target_count weights per key;
 *   recompute_flat_normals: the layout has position and normal slots;
 *     triangle_index_count a multiple of 3; indices non-NULL and below
 *     vertex_count.
 * Returns CNA_OK or CNA_ERROR_INVALID_ARGUMENT. Costs O(targets + sparse
 * entries + triangle indices + track keys); delta values are not inspected. */
CNA_API cna_result cna_morph_target_data_validate(const cna_morph_target_data *data, cna_error *err);

/* Bytes the blend writes: vertex_count * layout.stride (0 for NULL data or
 * on overflow). */
CNA_API size_t cna_morph_blend_size(const cna_morph_target_data *data);

/* Blend `data` with `weights` into `out` (see "Exact blend" above); writes
 * exactly cna_morph_blend_size(data) bytes. Validates the carrier first
 * (cna_morph_target_data_validate), then the weights. Allocates nothing
 * (a fixed scratch on the stack); safe to call concurrently on shared data.
 * Errors (CNA_ERROR_INVALID_ARGUMENT; out is then untouched): an invalid
 * carrier; weight_count != target_count, no padding and no truncation
 * ("weights: 1 given for 2 targets; exactly 2 are required"); NULL weights
 * with a non-zero count; a weight that is not finite ("weights[1]: nan");
 * out_size smaller than the blend size; NULL out with a non-zero size; out
 * overlapping base_vertices. */
CNA_API cna_result cna_morph_blend(const cna_morph_target_data *data, const float *weights,
                           size_t weight_count, void *out, size_t out_size, cna_error *err);

/* ------------------------------------------------------------------ per-instance state */

/* The current weights and the blended vertex bytes of one morphed part, and
 * the vertex buffer they are uploaded to. Borrows its cna_morph_target_data
 * (which must outlive it); owns the weights and the vertex bytes. */
typedef struct cna_morph_instance cna_morph_instance;

/* Validate `data` (cna_morph_target_data_validate), allocate the weights and
 * the vertex bytes, and blend the initial weights into them (all zero: the
 * base bytes). No buffer is bound and nothing is uploaded.
 * Errors: CNA_ERROR_INVALID_ARGUMENT (NULL data or out, invalid carrier);
 * CNA_ERROR_OUT_OF_MEMORY. *out is unchanged on error. `allocator` may be
 * NULL (malloc/free); it is copied. */
CNA_API cna_result cna_morph_instance_create(const cna_morph_target_data *data,
                                     const cna_allocator *allocator, cna_morph_instance **out,
                                     cna_error *err);

/* Free an instance (never the bound buffer, which the caller owns); NULL is
 * accepted. */
CNA_API void cna_morph_instance_free(cna_morph_instance *instance);

/* The carrier the instance was created from (NULL for NULL). The getters
 * below accept NULL too: no weights or vertices (NULL, *count / *size 0),
 * buffer 0; binding a buffer to NULL does nothing. */
CNA_API const cna_morph_target_data *cna_morph_instance_data(const cna_morph_instance *instance);

/* The current weights (target_count of them, in *count; may be NULL). Valid
 * until the next cna_morph_set_weights or free. */
CNA_API const float *cna_morph_instance_weights(const cna_morph_instance *instance, size_t *count);

/* The blended vertex bytes for the current weights (*size = blend size; may
 * be NULL), exactly what the last upload sent. Valid until the next
 * cna_morph_set_weights or free. */
CNA_API const void *cna_morph_instance_vertices(const cna_morph_instance *instance, size_t *size);

/* Bind the vertex buffer (created by the caller on the device later passed
 * to cna_morph_set_weights, holding blend-size bytes) that receives the
 * blended vertices; 0 unbinds. The instance never destroys it. */
CNA_API void cna_morph_instance_bind_vertex_buffer(cna_morph_instance *instance, cna_buffer_id buffer);
CNA_API cna_buffer_id cna_morph_instance_vertex_buffer(const cna_morph_instance *instance);

/* Set the weights (spec: SetMorphWeightsEXT): check them exactly as
 * cna_morph_blend does, blend into the instance's vertex bytes, re-upload the
 * whole vertex buffer through `device` (one cna_device_set_buffer_data of the
 * whole buffer, offset 0) and store the weights as current. The carrier is
 * not re-validated (it was at create). Allocates nothing.
 * `device` may be NULL: CPU only, blend and store without uploading.
 * Errors: CNA_ERROR_INVALID_ARGUMENT for a NULL instance, wrong weights (as
 * cna_morph_blend), or a device with no vertex buffer bound; whatever the
 * device's upload returns. On any error the weights, the vertex bytes and
 * the buffer are unchanged. */
CNA_API cna_result cna_morph_set_weights(cna_morph_instance *instance, const float *weights, size_t count,
                                 const cna_device *device, cna_error *err);

#ifdef __cplusplus
}
#endif
#endif /* CNA_MORPH_H */
