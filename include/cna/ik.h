/*
 * cna/ik.h — inverse kinematics: two-bone IK and aim IK on model-space
 * transforms (docs/ik.md).
 *
 * Each solver reads the model-space (absolute) transforms of the joints it
 * moves and returns a rotation correction per joint, in the joint's own
 * space: applied to the joint's local rotation as rotation · correction
 * (cna_character_rotate_joint does it on a character), it moves the chain
 * onto the target. The solvers are pure functions: they keep no state,
 * allocate nothing and may run on any thread. Two-bone and aim IK compute
 * in single precision (float, as the matrices they read): the end joint lands
 * within 1e-5 of the chain's length of a reachable target (a chain nearly
 * straight is the least precise). Chain IK
 * computes in double precision (its iterations accumulate) and rounds the
 * corrections once to float.
 *
 * The solvers treat the joints' matrices as rigid transforms with a scale:
 * uniform scale and mirroring are handled exactly; a non-uniform scale is
 * applied as a change of frame (the vectors are brought into the joint's
 * space by its inverse matrix), as ozz-animation does.
 *
 * Usage — an arm on a character (cna/character.h), or on matrices of your own:
 *   cna_ik_two_bone ik = cna_ik_two_bone_defaults();
 *   ik.target = cna_vec3_make(1, 3, 1);            (model space)
 *   ik.pole = cna_vec3_make(0, 0, -1);             (the elbow points back)
 *   bool reached;
 *   cna_character_two_bone_ik(character, "Palm2.L", &ik, &reached, &err);
 *   or:
 *   cna_quat qs, qm;
 *   cna_ik_two_bone_solve(&ik, &shoulder, &elbow, &wrist, &qs, &qm, &reached, &err);
 *
 * Errors: every function returning cna_result fills `err` (may be NULL) and
 * writes no output on error.
 */
#ifndef CNA_IK_H
#define CNA_IK_H

#include <stdbool.h>
#include <stddef.h>

#include "cna/export.h"
#include "cna/math.h"
#include "cna/result.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Two-bone IK (ozz-animation's IKTwoBoneJob): a start joint (hip,
 * shoulder), a mid joint (knee, elbow) and an end joint (ankle, wrist). The
 * mid joint bends about `mid_axis` to make the start-to-end distance the
 * start-to-target distance (law of cosines); then the start joint turns the
 * chain onto the target and rolls it about the start-to-target line so that
 * the plane of the chain contains the pole vector (the mid joint lies on the
 * pole's side), then by `twist`. Start cna_ik_two_bone_defaults(): zero is
 * not the default of every field. */
typedef struct cna_ik_two_bone {
    cna_vec3 target;    /* model space; default (0, 0, 0) */
    cna_vec3 pole;      /* model space direction, not zero; default (0, 1, 0) */
    cna_vec3 mid_axis;  /* the mid joint's bending axis in its own space, not zero
                           (normalised here); default (0, 0, 1) */
    float weight;       /* 0..1 (values outside are clamped): corrections
                           nlerp(identity, q, weight); default 1 */
    float soften;       /* 0..1 (clamped): the part of the chain's length
                           reached without softening; default 1 (none) */
    float twist;        /* radians about the start-to-target line; default 0 */
} cna_ik_two_bone;

/* The defaults above. */
CNA_API cna_ik_two_bone cna_ik_two_bone_defaults(void);

/* Solve: start, mid and end are the three joints' model-space transforms.
 * Writes the start and mid joints' corrections (unit quaternions, w >= 0)
 * and *reached (may be NULL): true when the end joint lands on the target
 * (the target is within the softened reach and beyond |l1 - l2|) and the
 * weight is at least 1. A target out of reach gives the chain stretched
 * straight toward it, *reached false. Weight 0 (or below) gives identity
 * corrections. Singular matrices give identity corrections, *reached false.
 * Errors (nothing written): CNA_ERROR_INVALID_ARGUMENT for NULL inputs or
 * outputs, a value that is not finite ("two-bone IK: target.x is nan"), or
 * a zero-length pole or mid axis ("two-bone IK: pole is zero-length"). */
CNA_API cna_result cna_ik_two_bone_solve(const cna_ik_two_bone *ik, const cna_mat4 *start, const cna_mat4 *mid,
                                         const cna_mat4 *end, cna_quat *start_correction,
                                         cna_quat *mid_correction, bool *reached, cna_error *err);

/* Aim IK (ozz-animation's IKAimJob): turn one joint so that its `forward`
 * axis, drawn from the point `offset` of the joint's space, points at the
 * target, then roll it about the joint-to-target line so that its `up`
 * axis lies in the plane of that line and the pole vector, then by
 * `twist`. Beyond ozz, optional limits on the corrected rotation: the
 * forward axis stays within `cone` radians of where the pose held it, and
 * the roll about it stays within [twist_min, twist_max]. Start with
 * cna_ik_aim_defaults(). */
typedef struct cna_ik_aim {
    cna_vec3 target;    /* model space; default (0, 0, 0) */
    cna_vec3 forward;   /* joint space, not zero (normalised here); default (1, 0, 0) */
    cna_vec3 up;        /* joint space, not zero; default (0, 1, 0) */
    cna_vec3 offset;    /* joint space; default (0, 0, 0) */
    cna_vec3 pole;      /* model space, not zero; default (0, 1, 0) */
    float twist;        /* radians about the joint-to-target line; default 0 */
    float weight;       /* 0..1 (clamped); default 1 */
    float cone;         /* limit, radians in (0, pi]: the largest angle between the
                           forward axis before and after; default pi (no limit) */
    float twist_min, twist_max; /* limit on the roll about the forward axis, radians,
                           -pi <= min <= max <= pi; default -pi, pi (no limit) */
} cna_ik_aim;

/* The defaults above. */
CNA_API cna_ik_aim cna_ik_aim_defaults(void);

/* Solve: joint is the joint's model-space transform. Writes the correction
 * (unit quaternion, w >= 0) and *reached (may be NULL): false when the
 * offset lies farther from the joint than the target (then no direction
 * aims the offset point at it, and the correction is the identity); a
 * target at the joint's origin also gives the identity. The limits are
 * applied after the weight.
 * Errors (nothing written): CNA_ERROR_INVALID_ARGUMENT for NULL, values
 * that are not finite, zero-length forward, up or pole, limits out of range
 * ("aim IK: cone 4 is outside (0, pi]"). */
CNA_API cna_result cna_ik_aim_solve(const cna_ik_aim *ik, const cna_mat4 *joint, cna_quat *correction,
                                    bool *reached, cna_error *err);

/* The most joints a chain solver moves. */
#define CNA_IK_CHAIN_MAX 32

/* A limit on one joint of a chain: the rotation the solver adds to the
 * joint's pose (in the joint's own space) stays about `axis` when that is
 * not zero (a hinge: knees, fingers, tail segments that bend one way), and
 * its angle stays at most `max_angle` radians. */
typedef struct cna_ik_joint_limit {
    cna_vec3 axis;      /* hinge axis in the joint's space; (0, 0, 0): any axis */
    float max_angle;    /* in [0, pi]; pi: no limit on the angle */
} cna_ik_joint_limit;

/* A chain of joints (a tail, a spine, a tentacle) turned toward a target by
 * cyclic coordinate descent (CCD): each iteration goes from the joint
 * nearest the end to the first, turning each about its origin so that the
 * end joint's origin points at the target as seen from it, within its
 * limit. It stops when the end is within `tolerance` of the target or after
 * `iterations`. Start with cna_ik_chain_defaults(). */
typedef struct cna_ik_chain {
    cna_vec3 target;                 /* model space; default (0, 0, 0) */
    unsigned iterations;             /* 1 .. 1000; default 16 */
    float tolerance;                 /* model units, > 0; default 1e-4 */
    float weight;                    /* 0..1 (clamped): each correction nlerp'd
                                        from identity; default 1 */
    const cna_ik_joint_limit *limits; /* one per moved joint, first to last, or NULL:
                                        none; borrowed for the call */
} cna_ik_chain;

/* The defaults above. */
CNA_API cna_ik_chain cna_ik_chain_defaults(void);

/* Solve: joints[0 .. count - 1] are the model-space transforms of a chain
 * from its first joint to its end, each the parent of the next (2 <= count
 * <= CNA_IK_CHAIN_MAX + 1); the first count - 1 joints are moved. Writes
 * corrections[0 .. count - 2] (each joint's, in its own space, applied as
 * local rotation · correction, parents before children) and *reached (may
 * be NULL): the end within tolerance of the target (weight 1 only).
 * Errors (nothing written): CNA_ERROR_INVALID_ARGUMENT for NULL, a count out
 * of range, values not finite, iterations or tolerance out of range, a
 * limit's max_angle outside [0, pi]. */
CNA_API cna_result cna_ik_chain_solve(const cna_ik_chain *ik, const cna_mat4 *const *joints, size_t count,
                                      cna_quat *corrections, bool *reached, cna_error *err);

#ifdef __cplusplus
}
#endif
#endif /* CNA_IK_H */
