/*
 * The cost of IK (include/cna/ik.h) and of the pose edit
 * (include/cna/character.h): RobotExpressive advanced by 1/60 s and posed
 * per frame, measured in interleaved runs of the same process:
 *   pose      Robot_Walking, no edit
 *   ik        the same, then two-bone IK on both arms (ends "Palm2.L" and
 *             "Palm2.R": shoulder, elbow, wrist; the robot's legs have no
 *             joint below the knee) and one aim ("Head"), as the
 *             character's pose edit
 * and the solvers alone on the arm's model-space matrices:
 *   two-bone  cna_ik_two_bone_solve
 *   aim       cna_ik_aim_solve
 * Columns: ns per call (median of >= 5 runs [min-max], bench/common/bench.h)
 * and the ratio ik / pose (the target: <= 1.3).
 *
 * Usage: bench_ik [--seconds S] [--runs N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cna/cna.h"
#include "common/bench.h"

typedef struct edit_ctx {
    cna_ik_two_bone left, right;
    cna_ik_aim head;
} edit_ctx;

static cna_result edit(cna_character *c, void *user, cna_error *err)
{
    edit_ctx *e = (edit_ctx *)user;
    cna_result r = cna_character_two_bone_ik(c, "Palm2.L", &e->left, NULL, err);
    if (!r) r = cna_character_two_bone_ik(c, "Palm2.R", &e->right, NULL, err);
    if (!r) r = cna_character_aim_ik(c, "Head", &e->head, NULL, err);
    return r;
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
    if (bench_parse_args(argc, argv, &seconds, &runs)) return 2;
    cna_model *m = NULL;
    cna_error err;
    if (cna_model_load_file(CNA_TEST_DATA_DIR "/corpus/valid/RobotExpressive/robot.glb", NULL, &m, &err)) {
        fprintf(stderr, "bench_ik: %s\n", err.message);
        return 1;
    }
    size_t walk = 0;
    cna_model_find_animation(m, "Robot_Walking", &walk, NULL);
    frame_ctx plain = {NULL, 0}, ik = {NULL, 0};
    if (cna_character_create(m, NULL, &plain.c, &err) || cna_character_create(m, NULL, &ik.c, &err)) return 1;
    cna_character_play(plain.c, (long)walk, NULL);
    cna_character_play(ik.c, (long)walk, NULL);
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
    if (cna_character_set_pose_edit(ik.c, edit, &e, &err)) return 1;
    solve_ctx x;
    x.s = cna_character_absolute_transform(plain.c, (size_t)cna_model_find_bone(m, "UpperArm.L"));
    x.m = cna_character_absolute_transform(plain.c, (size_t)cna_model_find_bone(m, "LowerArm.L"));
    x.e = cna_character_absolute_transform(plain.c, (size_t)cna_model_find_bone(m, "Palm2.L"));
    x.tb = e.left;
    x.aim = e.head;
    enum { N = 4 };
    static const char *const names[N] = {"pose", "ik", "two-bone", "aim"};
    double t[N][64];
    if (runs > 64) runs = 64;
    frame(&plain);
    frame(&ik);
    for (int r = 0; r < runs; r++) {
        t[0][r] = bench_run(frame, &plain, seconds, NULL);
        t[1][r] = bench_run(frame, &ik, seconds, NULL);
        t[2][r] = bench_run(two_bone, &x, seconds, NULL);
        t[3][r] = bench_run(aim, &x, seconds, NULL);
    }
    if (plain.failed || ik.failed) {
        fprintf(stderr, "bench_ik: a pose failed\n");
        return 1;
    }
    printf("== bench_ik: RobotExpressive, Robot_Walking, %d runs of >= %.2f s\n", runs, seconds);
    double med[N];
    for (int s = 0; s < N; s++) {
        double lo = t[s][0], hi = t[s][0];
        for (int r = 1; r < runs; r++) {
            if (t[s][r] < lo) lo = t[s][r];
            if (t[s][r] > hi) hi = t[s][r];
        }
        med[s] = bench_median(t[s], (size_t)runs);
        printf("%-9s %9.1f ns [%.1f-%.1f]\n", names[s], med[s] * 1e9, lo * 1e9, hi * 1e9);
    }
    printf("ik / pose: %.3f (target <= 1.3)\n", med[1] / med[0]);
    cna_character_free(plain.c);
    cna_character_free(ik.c);
    cna_model_free(m);
    return 0;
}
