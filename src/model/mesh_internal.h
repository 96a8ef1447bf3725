/*
 * Private declarations of the importer's mesh side (src/model/mesh_*.c):
 * canonical vertex formats, packing one glTF primitive into interleaved
 * canonical bytes (influences, JOINTS rewriting, flat-normal split), its
 * morph targets and weight tracks, bounding spheres. Not installed.
 *
 * Nothing here refers to the Model: the builders take the reader's document
 * and plain maps, and produce self-contained results that the import glue
 * (mesh_import.c) moves into the Model.
 */
#ifndef CNA_MODEL_MESH_INTERNAL_H
#define CNA_MODEL_MESH_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cna/gltf.h"
#include "cna/math.h"
#include "cna/morph.h"
#include "core/internal.h"

/* ------------------------------------------------------------------ formats */

/* Byte offsets of the components of one canonical layout (cna/morph.h's
 * table); -1 = absent. Position is always at 0, the normal at 12, texcoord 0
 * at 24. */
typedef struct cna__vertex_format {
    uint32_t stride;
    int32_t position, normal, texcoord0, tangent, texcoord1, color, joints, weights;
} cna__vertex_format;

/* The format of a canonical stride (32, 52, 56, 48, 60, 68, 76, 80); false
 * (and *out unchanged) for any other value. */
bool cna__vertex_format_for_stride(uint32_t stride, cna__vertex_format *out);
/* *d = the public declaration of canonical format f, its elements in offset
 * order. */
struct cna_vertex_declaration;
void cna__vertex_declaration_of(const cna__vertex_format *f, struct cna_vertex_declaration *d);

/* The canonical stride for a primitive (docs/vertex-layouts.md, "Selection"):
 *   skinned  pbr  colour   stride
 *      no     no    no       32       pbr = TANGENT (with NORMAL) or TEXCOORD_1
 *      no     T     no       48       (T: tangent only, no TEXCOORD_1)
 *      no     any other      60       (TEXCOORD_1 and/or COLOR_0)
 *     yes     no    no       52
 *     yes     no   yes       56
 *     yes     T     no       68
 *     yes    U1     no       76       (TEXCOORD_1, with or without tangent)
 *     yes    pbr   yes       80 */
uint32_t cna__vertex_stride_select(bool skinned, bool tangent, bool texcoord1, bool color);

/* ------------------------------------------------------------------ packing */

typedef enum cna__topology {
    CNA__TOPOLOGY_TRIANGLES = 0, /* 3 indices per triangle (strips and fans converted) */
    CNA__TOPOLOGY_LINES,         /* 2 per segment (loops and strips converted) */
    CNA__TOPOLOGY_POINTS         /* 1 per point */
} cna__topology;

/* Diagnostic counters of one primitive, with the first occurrence's message. */
typedef struct cna__pack_diag {
    size_t truncated;          /* vertices with more than 4 non-zero influences */
    size_t renormalized;       /* vertices whose kept weights did not sum to 1 (|1-sum| > 1e-3) */
    size_t dropped_indices;    /* trailing indices of an incomplete triangle / segment */
    char truncated_message[256];
    char renormalized_message[256];
    char dropped_message[256];
} cna__pack_diag;

/* What a primitive is packed with. */
typedef struct cna__pack_input {
    const cna_gltf_document *doc;
    int32_t mesh;                     /* glTF mesh index */
    int32_t primitive;                /* primitive index within it */
    int32_t node;                     /* the instancing glTF node (for messages) */
    /* Skinned instance: the skin's ordinal -> palette map (joint_count entries);
     * NULL for an unskinned instance (JOINTS/WEIGHTS are then ignored). */
    const int32_t *ordinal_to_palette;
    size_t joint_count;
    int32_t skin;                     /* glTF skin index (for messages), -1 when unskinned */
    float unit_scale;                 /* positions and position deltas; 1 = exact file values */
    /* Skinned: keep the palette indices in cna__packed.palette (any value
     * below joint_count) and write 0 into the joint bytes, for
     * cna__split_palettes to rewrite. */
    bool wide_palette;
} cna__pack_input;

/* One packed primitive. Every pointer is owned (allocated with the
 * allocator given to cna__pack_primitive; release with cna__packed_release). */
typedef struct cna__packed {
    cna__vertex_format format;
    size_t vertex_count;
    unsigned char *vertices;      /* vertex_count * stride bytes: the zero-weight pose */
    cna__topology topology;
    uint32_t *indices;            /* index_count values < vertex_count */
    size_t index_count;
    uint32_t *source_vertex;      /* vertex_count entries when split, else NULL */
    bool flat_normals;            /* no NORMAL in the file: split, normals per face */
    bool tangent_from_file;       /* the file's TANGENT is in the tangent slot */
    uint32_t *palette;            /* wide_palette: 4 palette indices per vertex, else NULL */
    /* morph targets (target_count 0 when none) */
    size_t target_count;
    cna_morph_target *targets;    /* arrays below are owned through `blocks` */
    void **blocks;                /* every delta/indices array, for release */
    size_t block_count;
    cna__pack_diag diag;
} cna__packed;

/* Pack one primitive: the canonical layout, file vertex order (vertex i =
 * file vertex i unless split), indices as a list, influences (truncate to 4,
 * renormalise, rewrite JOINTS through ordinal_to_palette), morph deltas.
 * Errors (nothing leaks; *out untouched): CNA_ERROR_INVALID_DATA for a joint
 * value not below joint_count or a palette index not fitting a byte (the
 * message names mesh, primitive, vertex and value); CNA_ERROR_OUT_OF_MEMORY;
 * reader errors. */
cna_result cna__pack_primitive(const cna_allocator *alloc, const cna__pack_input *in,
                               cna__packed *out, cna_error *err);

/* Free everything a cna__packed owns and zero it; NULL accepted. */
void cna__packed_release(const cna_allocator *alloc, cna__packed *p);

/* Flat normal of triangle (p0, p1, p2): cross(p1 - p0, p2 - p0) normalised
 * with the arithmetic of the morph blend's flat-normal recomputation
 * (cna/morph.h); (0, 0, 0) for a degenerate triangle. */
void cna__flat_normal(const float p0[3], const float p1[3], const float p2[3], float n[3]);

/* ------------------------------------------------------------------ split palettes */

/* One sub-part of a split primitive (src/model/mesh_split.c). */
typedef struct cna__sub_part {
    unsigned char *vertices;      /* vertex_count * stride bytes, joint bytes in the sub-palette */
    size_t vertex_count;
    uint32_t *indices;            /* index_count values < vertex_count */
    size_t index_count;
    uint32_t *source_vertex;      /* vertex_count: the file vertex of each */
    uint32_t *packed_vertex;      /* vertex_count: the packed vertex of each */
    int32_t *palette_map;         /* palette_count: sub-palette index -> skin palette index */
    size_t palette_count;         /* 1 .. max_palette */
    cna_morph_target *targets;    /* p->target_count, the deltas of these vertices */
} cna__sub_part;

/* Split a packed primitive packed with wide_palette into sub-parts of at
 * most `max_palette` (>= 12) palette entries each: its primitives
 * (triangles, segments, points), in order, are added to the current
 * sub-part while the palette indices of their vertices (all four
 * influences, whatever the weights, so that every joint byte maps back)
 * fit; then the next sub-part starts. A vertex used by several sub-parts is
 * copied into each. Sub-palettes list their palette indices in ascending
 * order. Every output array comes from `out_alloc` (*parts too, *count
 * entries, at least 1: an empty primitive gives one empty sub-part with a
 * palette of one entry, palette index 0); scratch memory from `alloc`.
 * Errors: CNA_ERROR_OUT_OF_MEMORY ("what: out of memory"). */
cna_result cna__split_palettes(const cna_allocator *alloc, const cna_allocator *out_alloc,
                               const cna__packed *p, size_t joint_count, size_t max_palette,
                               const char *what, cna__sub_part **parts, size_t *count, cna_error *err);

/* ------------------------------------------------------------------ weight tracks */

/* An owned weight track (the public struct plus its arrays). */
typedef struct cna__owned_track {
    cna_morph_weight_track track;  /* points into the arrays below */
    float *times, *values, *in_tangents, *out_tangents;
} cna__owned_track;

/* The morph weight track of animation `animation` for glTF mesh `mesh`: the
 * "weights" channel targeting the first node in file order that instances
 * the mesh. *out = NULL when the animation has none. Errors: out of memory,
 * reader errors, a track the morph layer refuses (named). */
cna_result cna__weight_track_build(const cna_allocator *alloc, const cna_gltf_document *doc,
                                   int32_t animation, int32_t mesh, cna__owned_track **out,
                                   cna_error *err);
void cna__owned_track_free(const cna_allocator *alloc, cna__owned_track *t);

/* ------------------------------------------------------------------ bounds */

/* Points `stride` bytes apart, each 3 floats at `first + k * stride`. */
typedef struct cna__point_set {
    const unsigned char *first;
    size_t stride;
    size_t count;
} cna__point_set;

/* Bounding sphere of every point of every set: centre = the midpoint of the
 * axis-aligned box (double, rounded to float), radius = the largest distance
 * from that float centre (double), rounded up to the next float so that every
 * point is inside. Non-finite points are skipped. No points: centre (0,0,0),
 * radius 0. */
void cna__bounding_sphere(const cna__point_set *sets, size_t set_count, cna_vec3 *center,
                          float *radius);

#endif
