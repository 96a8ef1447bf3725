/*
 * The cost of IK (include/cna/ik.h) and of the pose edit
 * (include/cna/character.h): RobotExpressive advanced by 1/60 s and posed
 * per frame, measured in interleaved runs of the same process:
 *   pose       Robot_Walking, no edit
 *   feet+aim   the same, then foot IK on each leg and one aim ("Head") as
 *              the character's pose edit: each foot's target 0.2 · x above
 *              its animated position (a slope), two-bone IK on UpperLeg,
 *              LowerLeg and the ankle (a point of LowerLeg's space: the
 *              robot's feet hang from the root joint, examples/foot_placement.c),
 *              the two corrections applied and the foot moved to the ankle
 *   arms+aim   the same frame with two-bone IK on both arms (ends "Palm2.L"
 *              and "Palm2.R", 12 joints under each shoulder) and the aim
 * on a posed character (no new pose between calls):
 *   char-2bone cna_character_two_bone_ik(c, "Palm2.L"): solve, apply, and
 *              recompute the arm's subtree (absolutes, worlds, palette)
 * and the solvers alone on the arm's model-space matrices:
 *   two-bone   cna_ik_two_bone_solve
 *   aim        cna_ik_aim_solve
 * Columns: ns per call (median of >= 5 runs [min-max], tools/benchkit/bench.h)
 * and the ratios feet+aim / pose (the target: <= 1.3) and arms+aim / pose.
 * Then "fastest batch": each row's fastest of 2000 batches of 8 calls, the
 * rows' batches alternating, and the same ratios of those: on a machine
 * that other work shares, a batch that ran undisturbed is the row's own
 * cost, where a run of 0.2 s also holds the time other processes took.
 * bench/peers/ozz_ik.cpp times ozz-animation's jobs on the same matrices.
 *
 * Usage: bench_ik [--seconds S] [--runs N] [--only NAME]
 * (--only NAME times that row alone, for a profiler; no ratios then)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cna/cna.h"
#include "benchkit/bench.h"

typedef struct edit_ctx {
    cna_ik_two_bone left, right;
    cna_ik_aim head;
    /* the legs: UpperLeg, LowerLeg, Foot, the ankle in LowerLeg's space */
    int32_t upper[2], lower[2], foot[2];
    cna_vec3 ankle[2];
} edit_ctx;

static cna_result arms(cna_character *c, void *user, cna_error *err)
{
    edit_ctx *e = (edit_ctx *)user;
    cna_result r = cna_character_two_bone_ik(c, "Palm2.L", &e->left, NULL, err);
    if (!r) r = cna_character_two_bone_ik(c, "Palm2.R", &e->right, NULL, err);
    if (!r) r = cna_character_aim_ik(c, "Head", &e->head, NULL, err);
    return r;
}

/* LowerLeg's model-space matrix moved to the ankle point */
static cna_mat4 ankle_matrix(const cna_character *c, const edit_ctx *e, int i)
{
    cna_mat4 m = *cna_character_absolute_transform(c, (size_t)e->lower[i]);
    const cna_vec3 p = cna_mat4_transform_point(&m, e->ankle[i]);
    m.m[12] = p.x;
    m.m[13] = p.y;
    m.m[14] = p.z;
    return m;
}

static cna_result feet(cna_character *c, void *user, cna_error *err)
{
    edit_ctx *e = (edit_ctx *)user;
    const cna_model *m = cna_character_model(c);
    cna_result r = CNA_OK;
    for (int i = 0; i < 2 && !r; i++) {
        const cna_mat4 *foot = cna_character_absolute_transform(c, (size_t)e->foot[i]);
        cna_ik_two_bone ik = cna_ik_two_bone_defaults();
        ik.target = cna_vec3_make(foot->m[12], foot->m[13] + 0.2f * foot->m[12], foot->m[14]);
        ik.pole = cna_vec3_make(0, 0, 1);
        ik.mid_axis = cna_vec3_make(1, 0, 0);
        const cna_mat4 ankle = ankle_matrix(c, e, i);
        cna_quat qs, qm;
        r = cna_ik_two_bone_solve(&ik, cna_character_absolute_transform(c, (size_t)e->upper[i]),
                                  cna_character_absolute_transform(c, (size_t)e->lower[i]), &ankle, &qs, &qm, NULL,
                                  err);
        if (!r) r = cna_character_rotate_joint(c, (size_t)e->upper[i], qs, err);
        if (!r) r = cna_character_rotate_joint(c, (size_t)e->lower[i], qm, err);
        if (r) break;
        /* the foot at the solved ankle, its orientation kept */
        const cna_mat4 solved = ankle_matrix(c, e, i);
        cna_mat4 world = *foot, inv, local;
        world.m[12] = solved.m[12];
        world.m[13] = solved.m[13];
        world.m[14] = solved.m[14];
        cna_mat4_inverse(&inv, cna_character_absolute_transform(c, (size_t)m->bones[e->foot[i]].parent));
        cna_mat4_mul(&local, &inv, &world);
        r = cna_character_set_joint_local(c, (size_t)e->foot[i], &local, 1.0f, err);
    }
    if (!r) r = cna_character_aim_ik(c, "Head", &e->head, NULL, err);
    return r;
}

typedef struct row {
    void (*fn)(void *);
    void *ctx;
} row;

/* The fastest of `batches` batches of `calls` calls of each row, the rows
 * taking turns batch by batch; seconds per call into best[]. */
static void fastest_batches(const row *rows, const bool *timed, int n, int batches, int calls, double *best)
{
    for (int s = 0; s < n; s++) best[s] = 1e9;
    for (int k = 0; k < batches; k++)
        for (int s = 0; s < n; s++) {
            if (!timed[s]) continue;
            const double t0 = bench_now();
            for (int i = 0; i < calls; i++) rows[s].fn(rows[s].ctx);
            const double t = (bench_now() - t0) / calls;
            if (t < best[s]) best[s] = t;
        }
}

typedef struct frame_ctx {
    cna_character *c;
    int failed;
} frame_ctx;

static void frame(void *p)
{
    frame_ctx *f = (frame_ctx *)p;
    if (cna_character_update(f->c, 1.0 / 60, NULL)) f->failed = 1;
    bench_keep(cna_character_skin_transforms(f->c, 0));
}

typedef struct char_ctx {
    cna_character *c;
    const cna_ik_two_bone *ik;
    int failed;
} char_ctx;

static void char_two_bone(void *p)
{
    char_ctx *x = (char_ctx *)p;
    if (cna_character_two_bone_ik(x->c, "Palm2.L", x->ik, NULL, NULL)) x->failed = 1;
    bench_keep(cna_character_skin_transforms(x->c, 0));
}

typedef struct solve_ctx {
    const cna_mat4 *s, *m, *e;
    cna_ik_two_bone tb;
    cna_ik_aim aim;
    cna_quat q[2];
} solve_ctx;

static void two_bone(void *p)
{
    solve_ctx *x = (solve_ctx *)p;
    cna_ik_two_bone_solve(&x->tb, x->s, x->m, x->e, &x->q[0], &x->q[1], NULL, NULL);
    bench_keep(x->q);
}

static void aim(void *p)
{
    solve_ctx *x = (solve_ctx *)p;
    cna_ik_aim_solve(&x->aim, x->s, &x->q[0], NULL, NULL);
    bench_keep(x->q);
}

int main(int argc, char **argv)
{
    double seconds = 0.2;
    int runs = 7;
    const char *only = NULL;
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--only")) {
            only = argv[i + 1];
            for (int k = i; k + 2 <= argc; k++) argv[k] = argv[k + 2];
            argc -= 2;
            break;
        }
    if (bench_parse_args(argc, argv, &seconds, &runs)) return 2;
    cna_model *m = NULL;
    cna_error err;
    if (cna_model_load_file(CNA_TEST_DATA_DIR "/corpus/valid/RobotExpressive/robot.glb", NULL, &m, &err)) {
        fprintf(stderr, "bench_ik: %s\n", err.message);
        return 1;
    }
    size_t walk = 0;
    cna_model_find_animation(m, "Robot_Walking", &walk, NULL);
    frame_ctx plain = {NULL, 0}, legs = {NULL, 0}, ik = {NULL, 0};
    char_ctx one = {NULL, NULL, 0};
    if (cna_character_create(m, NULL, &plain.c, &err) || cna_character_create(m, NULL, &legs.c, &err) ||
        cna_character_create(m, NULL, &ik.c, &err) || cna_character_create(m, NULL, &one.c, &err))
        return 1;
    cna_character_play(plain.c, (long)walk, NULL);
    cna_character_play(legs.c, (long)walk, NULL);
    cna_character_play(ik.c, (long)walk, NULL);
    cna_character_play(one.c, (long)walk, NULL);
    edit_ctx e;
    e.left = cna_ik_two_bone_defaults();
    e.left.target = cna_vec3_make(1.5f, 3.0f, 1.0f);
    e.left.pole = cna_vec3_make(0, 0, -1);
    e.left.mid_axis = cna_vec3_make(1, 0, 0);
    e.right = e.left;
    e.right.target = cna_vec3_make(-1.5f, 3.0f, 1.0f);
    e.head = cna_ik_aim_defaults();
    e.head.forward = cna_vec3_make(0, 0, 1);
    e.head.target = cna_vec3_make(0, 5, 5);
    static const char *const leg_names[2][3] = {{"UpperLeg.L", "LowerLeg.L", "Foot.L"},
                                                {"UpperLeg.R", "LowerLeg.R", "Foot.R"}};
    cna_character_pose(legs.c, NULL);
    for (int i = 0; i < 2; i++) {
        e.upper[i] = cna_model_find_bone(m, leg_names[i][0]);
        e.lower[i] = cna_model_find_bone(m, leg_names[i][1]);
        e.foot[i] = cna_model_find_bone(m, leg_names[i][2]);
        if (e.upper[i] < 0 || e.lower[i] < 0 || e.foot[i] < 0) return 1;
        cna_mat4 inv;
        cna_mat4_inverse(&inv, cna_character_absolute_transform(legs.c, (size_t)e.lower[i]));
        const cna_mat4 *foot = cna_character_absolute_transform(legs.c, (size_t)e.foot[i]);
        e.ankle[i] = cna_mat4_transform_point(&inv, cna_vec3_make(foot->m[12], foot->m[13], foot->m[14]));
    }
    if (cna_character_set_pose_edit(legs.c, feet, &e, &err) || cna_character_set_pose_edit(ik.c, arms, &e, &err))
        return 1;
    cna_character_pose(one.c, NULL);
    one.ik = &e.left;
    solve_ctx x;
    x.s = cna_character_absolute_transform(plain.c, (size_t)cna_model_find_bone(m, "UpperArm.L"));
    x.m = cna_character_absolute_transform(plain.c, (size_t)cna_model_find_bone(m, "LowerArm.L"));
    x.e = cna_character_absolute_transform(plain.c, (size_t)cna_model_find_bone(m, "Palm2.L"));
    x.tb = e.left;
    x.aim = e.head;
    enum { N = 6 };
    static const char *const names[N] = {"pose", "feet+aim", "arms+aim", "char-2bone", "two-bone", "aim"};
    double t[N][64];
    if (runs > 64) runs = 64;
    frame(&plain);
    frame(&legs);
    frame(&ik);
    bool timed[N];
    int chosen = 0;
    for (int s = 0; s < N; s++) chosen += timed[s] = !only || !strcmp(only, names[s]);
    if (!chosen) {
        fprintf(stderr, "bench_ik: --only %s: no such row\n", only);
        return 2;
    }
    for (int r = 0; r < runs; r++) {
        for (int s = 0; s < N; s++) t[s][r] = 0;
        if (timed[0]) t[0][r] = bench_run(frame, &plain, seconds, NULL);
        if (timed[1]) t[1][r] = bench_run(frame, &legs, seconds, NULL);
        if (timed[2]) t[2][r] = bench_run(frame, &ik, seconds, NULL);
        if (timed[3]) t[3][r] = bench_run(char_two_bone, &one, seconds, NULL);
        if (timed[4]) t[4][r] = bench_run(two_bone, &x, seconds, NULL);
        if (timed[5]) t[5][r] = bench_run(aim, &x, seconds, NULL);
    }
    if (plain.failed || legs.failed || ik.failed || one.failed) {
        fprintf(stderr, "bench_ik: a pose or an edit failed\n");
        return 1;
    }
    printf("== bench_ik: RobotExpressive, Robot_Walking, %d runs of >= %.2f s\n", runs, seconds);
    double med[N];
    for (int s = 0; s < N; s++) {
        if (!timed[s]) continue;
        double lo = t[s][0], hi = t[s][0];
        for (int r = 1; r < runs; r++) {
            if (t[s][r] < lo) lo = t[s][r];
            if (t[s][r] > hi) hi = t[s][r];
        }
        med[s] = bench_median(t[s], (size_t)runs);
        printf("%-10s %9.1f ns [%.1f-%.1f]\n", names[s], med[s] * 1e9, lo * 1e9, hi * 1e9);
    }
    if (!only)
        printf("feet+aim / pose: %.3f (target <= 1.3); arms+aim / pose: %.3f\n", med[1] / med[0], med[2] / med[0]);
    const row rows[N] = {{frame, &plain}, {frame, &legs}, {frame, &ik}, {char_two_bone, &one}, {two_bone, &x}, {aim, &x}};
    double best[N];
    fastest_batches(rows, timed, N, 2000, 8, best);
    printf("fastest batch:");
    for (int s = 0; s < N; s++)
        if (timed[s]) printf(" %s %.1f", names[s], best[s] * 1e9);
    printf(" ns\n");
    if (!only)
        printf("fastest batch: feet+aim / pose: %.3f (target <= 1.3); arms+aim / pose: %.3f\n", best[1] / best[0],
               best[2] / best[0]);
    cna_character_free(legs.c);
    cna_character_free(one.c);
    cna_character_free(plain.c);
    cna_character_free(ik.c);
    cna_model_free(m);
    return 0;
}
