/*
 * The group path of morph blending (src/morph/blend.c; not installed):
 * eight vertices at a time in registers, written once on the SIMD
 * vocabulary (core/vec.h) in morph_group.inc and compiled for AVX2 + FMA
 * (morph_group_avx2.c, run only on a CPU with both; it uses no
 * multiply-add, so its bits are the scalar path's). blend.c plans the
 * active targets (cna__morph_plan) and calls it.
 */
#ifndef CNA_MORPH_GROUP_H
#define CNA_MORPH_GROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cna/morph.h"

enum { CNA__MORPH_MAX_OPS = 32, CNA__MORPH_PREFETCH_GROUPS = 8 };

/* One active target of one kind. */
typedef struct cna__morph_op {
    const float *values;
    const uint32_t *indices; /* NULL: dense */
    size_t count;
    size_t next;        /* sparse: first entry not yet added */
    size_t next_vertex; /* sparse: its vertex (SIZE_MAX: none left) */
    float w;
} cna__morph_op;

/* The active targets of one kind (slot), in target order. */
typedef struct cna__morph_plan {
    size_t offset;
    bool direction;
    size_t op_count;
    bool prefetch; /* the dense deltas are too many to stay in L2: prefetch them */
    /* The first vertex any sparse op still has to add (SIZE_MAX: none); a
     * group below it needs only the dense ops, in their order. */
    size_t next_sparse;
    size_t dense_count;
    const float *dense_values[CNA__MORPH_MAX_OPS];
    float dense_weights[CNA__MORPH_MAX_OPS];
    cna__morph_op ops[CNA__MORPH_MAX_OPS];
} cna__morph_plan;

/* The vertices [0, end) (end a multiple of 8) of d blended into out by the
 * plans (in increasing slot offset order). */
void cna__morph_groups_avx2(const cna_morph_target_data *d, cna__morph_plan *plans,
                            int plan_count, unsigned char *out, size_t end);

#endif /* CNA_MORPH_GROUP_H */
