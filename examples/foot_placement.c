/*
 * examples/foot_placement.c — feet planted on uneven ground: the robot walks
 * (Robot_Walking) across a slope with a bump, and every frame its pose edit
 *   1. reads each foot's animated model-space position and its animated
 *      height above its lowest point in the walk (the lift: 0 while the foot
 *      is planted, within 1e-3 of its lowest),
 *   2. puts the foot's target at the ground's height under it plus that lift,
 *   3. lowers the pelvis so that both legs can reach their targets,
 *   4. bends each leg onto its target by two-bone IK and moves the foot
 *      there, tilted to the slope.
 * It prints per-frame figures (each foot's height above the ground, the
 * distance between the foot and its target) and checks that both feet stay
 * within 1e-4 of the ground while planted (and of the ground plus their lift
 * while lifted). Headless: no GL.
 *
 *   build/examples/example_foot_placement tests/data/corpus/valid/RobotExpressive/robot.glb
 *   ... robot.glb --sheet feet.ppm    also draws six frames of the walk into a PPM image
 *
 * RobotExpressive's legs: UpperLeg.L (the hip) and LowerLeg.L (the knee) hang
 * from Body, but the foot joint Foot.L hangs from the root joint Bone (the
 * foot is animated on its own, as the target of the IK constraint the rig was
 * made with), so no joint ends the leg below the knee. The two-bone chain is
 * UpperLeg, LowerLeg and the ankle, a point fixed in LowerLeg's space (where
 * Foot sits relative to LowerLeg in the first frame): the solver takes the
 * ankle's model-space matrix (LowerLeg's, moved to that point) as the end
 * joint, cna_character_rotate_joint applies the two corrections, and
 * cna_character_set_joint_local puts Foot at the solved ankle. On a model
 * whose foot is the knee's child, cna_character_two_bone_ik(c, "Foot", ...)
 * does step 4's solve and rotations in one call.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cna/cna.h>

/* The ground in world space: a slope rising 0.2 per unit toward +x (across the
 * walk) and a bump 0.4 high, 8 units along the walk. */
static double ground(double x, double z)
{
    const double dz = z - 8.0;
    return 0.2 * x + 0.4 * exp(-dz * dz / 8.0);
}

/* Its gradient (dh/dx, dh/dz). */
static void ground_slope(double x, double z, double *gx, double *gz)
{
    const double dz = z - 8.0;
    (void)x;
    *gx = 0.2;
    *gz = 0.4 * exp(-dz * dz / 8.0) * (-2.0 * dz / 8.0);
}

/* Robot_Walking walks in place; the world moves under it at the walk's speed
 * (the planted foot's backward speed in model space, measured in setup). */

typedef struct leg {
    int32_t upper, lower, foot; /* bones: UpperLeg (hip), LowerLeg (knee), Foot */
    cna_vec3 ankle;             /* the ankle in LowerLeg's space */
    double rest;                /* the foot's lowest animated height in the walk */
    /* this frame */
    cna_vec3 animated;          /* the foot's animated position */
    cna_vec3 target;            /* where the edit put it */
    double lift;                /* its height above the ground: the animated lift */
    bool planted;
    cna_vec3 hip;               /* the hip after the drop, before the IK */
    double thigh, shin;         /* the bones' lengths before the IK */
    bool reached;
} leg;

typedef struct feet {
    leg legs[2];
    int32_t body;               /* the legs' parent: lowered to let both reach */
    double travel;              /* world z of the model's origin */
    double drop;                /* this frame's pelvis drop */
} feet;

static cna_vec3 origin(const cna_mat4 *m) { return cna_vec3_make(m->m[12], m->m[13], m->m[14]); }

static double distance(cna_vec3 a, cna_vec3 b)
{
    const double dx = (double)a.x - b.x, dy = (double)a.y - b.y, dz = (double)a.z - b.z;
    return sqrt(dx * dx + dy * dy + dz * dz);
}

/* The ankle's model-space matrix: LowerLeg's, moved to the ankle point. */
static cna_mat4 ankle_matrix(const cna_character *c, const leg *l)
{
    cna_mat4 m = *cna_character_absolute_transform(c, (size_t)l->lower);
    const cna_vec3 p = cna_mat4_transform_point(&m, l->ankle);
    m.m[12] = p.x;
    m.m[13] = p.y;
    m.m[14] = p.z;
    return m;
}

/* A foot within PLANTED of its lowest point is planted: the lift counts from
 * there (lift = max(0, height - lowest - PLANTED)), so a planted foot sits on
 * the ground and a lifted one rises from it without a jump. */
#define PLANTED 1e-3

/* The pose edit: run by every pose, after the animation. */
static cna_result place_feet(cna_character *c, void *user, cna_error *err)
{
    feet *f = (feet *)user;
    const cna_model *model = cna_character_model(c);
    cna_result r;
    /* 1, 2: the targets; the drop that keeps the lower foot's leg as the
     * animation bent it, more if a leg still could not reach */
    double drop = 0.0;
    for (int i = 0; i < 2; i++) {
        leg *l = &f->legs[i];
        l->animated = origin(cna_character_absolute_transform(c, (size_t)l->foot));
        l->planted = l->animated.y - l->rest < PLANTED;
        l->lift = l->planted ? 0.0 : l->animated.y - l->rest - PLANTED;
        const double h = ground(l->animated.x, l->animated.z + f->travel);
        l->target = cna_vec3_make(l->animated.x, (float)(h + l->rest + l->lift), l->animated.z);
        if (-h > drop) drop = -h;
    }
    for (int i = 0; i < 2; i++) {
        const leg *l = &f->legs[i];
        const cna_vec3 hip = origin(cna_character_absolute_transform(c, (size_t)l->upper));
        const cna_vec3 knee = origin(cna_character_absolute_transform(c, (size_t)l->lower));
        const cna_mat4 ankle = ankle_matrix(c, l);
        const double reach = 0.999 * (distance(hip, knee) + distance(knee, origin(&ankle)));
        const double dx = (double)hip.x - l->target.x, dz = (double)hip.z - l->target.z;
        const double dy = (double)hip.y - l->target.y, flat2 = dx * dx + dz * dz;
        /* the drop that brings the hip within reach: (dy - d)^2 + flat2 = reach^2 */
        if (flat2 < reach * reach) {
            const double need = dy - sqrt(reach * reach - flat2);
            if (need > drop) drop = need;
        }
    }
    f->drop = drop;
    /* 3: the pelvis down by `drop` in model space */
    if (drop > 0.0) {
        const int32_t parent = model->bones[f->body].parent;
        cna_mat4 local = *cna_character_bone_transform(c, (size_t)f->body), inv;
        cna_vec3 down = cna_vec3_make(0.0f, (float)-drop, 0.0f);
        if (parent >= 0 && cna_mat4_inverse(&inv, cna_character_absolute_transform(c, (size_t)parent)))
            down = cna_mat4_transform_vector(&inv, down);
        local.m[12] += down.x;
        local.m[13] += down.y;
        local.m[14] += down.z;
        if ((r = cna_character_set_joint_local(c, (size_t)f->body, &local, 1.0f, err)) != CNA_OK) return r;
    }
    /* 4: each leg onto its target, the foot at the solved ankle */
    for (int i = 0; i < 2; i++) {
        leg *l = &f->legs[i];
        cna_ik_two_bone ik = cna_ik_two_bone_defaults();
        ik.target = l->target;
        ik.pole = cna_vec3_make(0, 0, 1);     /* the knees point forward (+z) */
        ik.mid_axis = cna_vec3_make(1, 0, 0); /* LowerLeg bends about its +x */
        const cna_mat4 ankle = ankle_matrix(c, l);
        l->hip = origin(cna_character_absolute_transform(c, (size_t)l->upper));
        const cna_vec3 knee = origin(cna_character_absolute_transform(c, (size_t)l->lower));
        l->thigh = distance(l->hip, knee);
        l->shin = distance(knee, origin(&ankle));
        cna_quat qs, qm;
        if ((r = cna_ik_two_bone_solve(&ik, cna_character_absolute_transform(c, (size_t)l->upper),
                                       cna_character_absolute_transform(c, (size_t)l->lower), &ankle, &qs, &qm,
                                       &l->reached, err)) != CNA_OK)
            return r;
        if ((r = cna_character_rotate_joint(c, (size_t)l->upper, qs, err)) != CNA_OK) return r;
        if ((r = cna_character_rotate_joint(c, (size_t)l->lower, qm, err)) != CNA_OK) return r;
        /* the foot: its animated orientation tilted onto the ground's normal, at the ankle */
        double gx, gz;
        ground_slope(l->animated.x, l->animated.z + f->travel, &gx, &gz);
        const double n[3] = {-gx, 1.0, -gz}, nl = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        /* the shortest rotation from +y to the normal: axis (n.z, 0, -n.x), half angle */
        const double w = 1.0 + n[1] / nl;
        const double ql = sqrt(w * w + (n[2] / nl) * (n[2] / nl) + (n[0] / nl) * (n[0] / nl));
        const cna_quat tilt = cna_quat_make((float)(n[2] / nl / ql), 0.0f, (float)(-n[0] / nl / ql), (float)(w / ql));
        cna_mat4 rot, world, local, inv;
        cna_mat4_compose(&rot, cna_vec3_zero(), tilt, cna_vec3_one());
        world = *cna_character_absolute_transform(c, (size_t)l->foot);
        world.m[12] = world.m[13] = world.m[14] = 0.0f;
        cna_mat4_mul(&world, &rot, &world);
        const cna_mat4 solved = ankle_matrix(c, l);
        world.m[12] = solved.m[12];
        world.m[13] = solved.m[13];
        world.m[14] = solved.m[14];
        const int32_t parent = model->bones[l->foot].parent;
        local = world;
        if (parent >= 0 && cna_mat4_inverse(&inv, cna_character_absolute_transform(c, (size_t)parent)))
            cna_mat4_mul(&local, &inv, &world);
        if ((r = cna_character_set_joint_local(c, (size_t)l->foot, &local, 1.0f, err)) != CNA_OK) return r;
    }
    return CNA_OK;
}

/* ------------------------------------------------------------------ the walk */

/* What a walk measured, over every frame. */
typedef struct walk_stats {
    int frames;
    int planted;              /* foot-frames with the foot planted */
    double max_error;         /* the largest |foot - target| */
    double max_planted;       /* the largest |height above the ground| of a planted foot */
    double max_follow;        /* the largest |height above the ground - lift| of any foot */
    double max_length;        /* the largest change of a leg bone's length */
    double max_root;          /* the largest move of a hip by the IK (after the drop) */
    double max_drop;          /* the largest pelvis drop */
    bool all_reached;
} walk_stats;

/* An optional contact sheet: six frames, a 3/4 view of the skeleton and the
 * ground, into a w x h RGB image. */
enum { PANEL_W = 220, PANEL_H = 250, PANELS = 6 };
typedef struct sheet {
    unsigned char *rgb; /* PANELS * PANEL_W by PANEL_H */
    int panel;
} sheet;

/* The side view, from the robot's right (-x): z (the walk) to the right, y up; x dropped. */
static void project(double x, double y, double z, int panel, double *px, double *py)
{
    const double scale = 60.0;
    (void)x;
    *px = panel * PANEL_W + PANEL_W * 0.5 + z * scale;
    *py = PANEL_H * 0.9 - y * scale;
}

static void line(sheet *s, double x0, double y0, double x1, double y1, int thick, const unsigned char col[3])
{
    const double len = fmax(fabs(x1 - x0), fabs(y1 - y0));
    const int n = (int)len + 1;
    for (int i = 0; i <= n; i++) {
        const double t = (double)i / n;
        const int cx = (int)lrint(x0 + (x1 - x0) * t), cy = (int)lrint(y0 + (y1 - y0) * t);
        for (int dy = -thick / 2; dy <= thick / 2; dy++)
            for (int dx = -thick / 2; dx <= thick / 2; dx++) {
                const int px = cx + dx, py = cy + dy;
                if (px < s->panel * PANEL_W || px >= (s->panel + 1) * PANEL_W || py < 0 || py >= PANEL_H) continue;
                memcpy(s->rgb + ((size_t)py * PANELS * PANEL_W + (size_t)px) * 3, col, 3);
            }
    }
}

static void draw_frame(sheet *s, const cna_character *c, const cna_model *m, const feet *f)
{
    static const unsigned char body[3] = {200, 200, 205}, colour[2][3] = {{250, 150, 40}, {60, 190, 240}};
    /* the ground under each foot (the slope makes the two differ), the skeleton
     * from Body down in grey, each leg and its foot in its ground's colour */
    for (int i = 0; i < 2; i++) {
        const double x = f->legs[i].animated.x;
        for (double z = -2.2; z < 2.2; z += 0.05) {
            double x0, y0, x1, y1;
            project(x, ground(x, z + f->travel), z, s->panel, &x0, &y0);
            project(x, ground(x, z + 0.05 + f->travel), z + 0.05, s->panel, &x1, &y1);
            line(s, x0, y0, x1, y1, 1, colour[i]);
        }
    }
    for (size_t b = 0; b < m->bone_count; b++) {
        const int32_t p = m->bones[b].parent;
        /* not the root joint's links to the feet and poles */
        if (p < 0 || m->bones[p].parent < 0 || p == m->bones[f->legs[0].foot].parent) continue;
        const unsigned char *col = body;
        for (int i = 0; i < 2; i++)
            if ((int32_t)b == f->legs[i].upper || (int32_t)b == f->legs[i].lower) col = colour[i];
        double x0, y0, x1, y1;
        const cna_vec3 a = origin(cna_character_absolute_transform(c, (size_t)p));
        const cna_vec3 e = origin(cna_character_absolute_transform(c, b));
        project(a.x, a.y, a.z, s->panel, &x0, &y0);
        project(e.x, e.y, e.z, s->panel, &x1, &y1);
        line(s, x0, y0, x1, y1, 3, col);
    }
    for (int i = 0; i < 2; i++) { /* the shin (knee to ankle) and the foot's sole, 0.6 long */
        const leg *l = &f->legs[i];
        const cna_mat4 ankle = ankle_matrix(c, l);
        const cna_vec3 k = origin(cna_character_absolute_transform(c, (size_t)l->lower)), a = origin(&ankle);
        double x0, y0, x1, y1;
        project(k.x, k.y, k.z, s->panel, &x0, &y0);
        project(a.x, a.y, a.z, s->panel, &x1, &y1);
        line(s, x0, y0, x1, y1, 3, colour[i]);
        const double sole = a.y - l->rest;
        project(a.x, sole, a.z - 0.25, s->panel, &x0, &y0);
        project(a.x, sole, a.z + 0.35, s->panel, &x1, &y1);
        line(s, x0, y0, x1, y1, 5, colour[i]);
    }
}

/* Walk `frames` frames of 1/60 s over the ground; figures to `out` (may be
 * NULL), the measures to *stats, an optional contact sheet to `sheet_path`. */
static int walk(const char *path, int frames, FILE *out, const char *sheet_path, walk_stats *stats)
{
    cna_error err;
    cna_model *model = NULL;
    cna_character *robot = NULL;
    size_t clip = 0;
    sheet s = {NULL, 0};
    int rc = 1;
    memset(stats, 0, sizeof *stats);
    stats->all_reached = true;
    if (cna_model_load_file(path, NULL, &model, &err) != CNA_OK ||
        cna_character_create(model, NULL, &robot, &err) != CNA_OK ||
        cna_model_find_animation(model, "Robot_Walking", &clip, &err) != CNA_OK ||
        cna_character_play(robot, (long)clip, &err) != CNA_OK) {
        fprintf(stderr, "error: %s\n", err.message);
        goto done;
    }
    feet f;
    memset(&f, 0, sizeof f);
    static const char *const names[2][3] = {{"UpperLeg.L", "LowerLeg.L", "Foot.L"},
                                            {"UpperLeg.R", "LowerLeg.R", "Foot.R"}};
    for (int i = 0; i < 2; i++) {
        leg *l = &f.legs[i];
        l->upper = cna_model_find_bone(model, names[i][0]);
        l->lower = cna_model_find_bone(model, names[i][1]);
        l->foot = cna_model_find_bone(model, names[i][2]);
        if (l->upper < 0 || l->lower < 0 || l->foot < 0 || model->bones[l->lower].parent != l->upper) {
            fprintf(stderr, "error: %s has no leg %s, %s, %s\n", path, names[i][0], names[i][1], names[i][2]);
            goto done;
        }
    }
    f.body = model->bones[f.legs[0].upper].parent;
    /* setup, without the edit: the ankle in LowerLeg's space at the first
     * frame, each foot's lowest point over one cycle of the walk, and the
     * walk's speed (the planted foot's backward speed) */
    const double duration = cna_ticks_to_seconds(cna_character_duration(robot));
    double speed = 0.0, speed_n = 0.0;
    for (int k = 0; k <= (int)(duration * 60.0); k++) {
        if (cna_character_seek(robot, k / 60.0, &err) != CNA_OK || cna_character_pose(robot, &err) != CNA_OK) {
            fprintf(stderr, "error: %s\n", err.message);
            goto done;
        }
        for (int i = 0; i < 2; i++) {
            leg *l = &f.legs[i];
            const cna_vec3 p = origin(cna_character_absolute_transform(robot, (size_t)l->foot));
            if (k == 0) {
                cna_mat4 inv;
                cna_mat4_inverse(&inv, cna_character_absolute_transform(robot, (size_t)l->lower));
                l->ankle = cna_mat4_transform_point(&inv, p);
                l->rest = p.y;
            }
            if (p.y < l->rest) l->rest = p.y;
        }
    }
    for (int k = 0; k + 1 <= (int)(duration * 60.0); k++) { /* second pass: the planted feet's speed */
        cna_vec3 p0[2], p1[2];
        cna_character_seek(robot, k / 60.0, &err);
        cna_character_pose(robot, &err);
        for (int i = 0; i < 2; i++) p0[i] = origin(cna_character_absolute_transform(robot, (size_t)f.legs[i].foot));
        cna_character_seek(robot, (k + 1) / 60.0, &err);
        cna_character_pose(robot, &err);
        for (int i = 0; i < 2; i++) {
            p1[i] = origin(cna_character_absolute_transform(robot, (size_t)f.legs[i].foot));
            if (p0[i].y - f.legs[i].rest < PLANTED && p1[i].y - f.legs[i].rest < PLANTED) {
                speed += (p0[i].z - p1[i].z) * 60.0;
                speed_n += 1.0;
            }
        }
    }
    speed = speed_n > 0 ? speed / speed_n : 0.0;
    if (out)
        fprintf(out, "walk %.3f s, speed %.3f units/s; ankles (LowerLeg space) (%.3f, %.3f, %.3f), lowest %.4f %.4f\n",
                duration, speed, f.legs[0].ankle.x, f.legs[0].ankle.y, f.legs[0].ankle.z, f.legs[0].rest,
                f.legs[1].rest);
    if (cna_character_seek(robot, 0.0, &err) != CNA_OK ||
        cna_character_set_pose_edit(robot, place_feet, &f, &err) != CNA_OK) {
        fprintf(stderr, "error: %s\n", err.message);
        goto done;
    }
    if (sheet_path) {
        s.rgb = (unsigned char *)calloc((size_t)PANELS * PANEL_W * PANEL_H, 3);
        if (!s.rgb) goto done;
        for (size_t i = 0; i < (size_t)PANELS * PANEL_W * PANEL_H; i++) {
            s.rgb[i * 3] = 40;
            s.rgb[i * 3 + 1] = 46;
            s.rgb[i * 3 + 2] = 56;
        }
    }
    if (out) fprintf(out, "    t   drop   | L: lift  above ground  error   | R: lift  above ground  error\n");
    for (int frame = 0; frame < frames; frame++) {
        const double t = frame / 60.0;
        f.travel = speed * t;
        if (cna_character_update(robot, frame ? 1.0 / 60 : 0.0, &err) != CNA_OK) {
            fprintf(stderr, "error: %s\n", err.message);
            goto done;
        }
        double above[2], error[2];
        for (int i = 0; i < 2; i++) {
            const leg *l = &f.legs[i];
            const cna_vec3 p = origin(cna_character_absolute_transform(robot, (size_t)l->foot));
            error[i] = distance(p, l->target);
            above[i] = p.y - l->rest - ground(p.x, p.z + f.travel);
            if (error[i] > stats->max_error) stats->max_error = error[i];
            if (fabs(above[i] - l->lift) > stats->max_follow) stats->max_follow = fabs(above[i] - l->lift);
            if (l->planted) {
                stats->planted++;
                if (fabs(above[i]) > stats->max_planted) stats->max_planted = fabs(above[i]);
            }
            if (!l->reached) stats->all_reached = false;
            const cna_vec3 hip = origin(cna_character_absolute_transform(robot, (size_t)l->upper));
            const cna_vec3 knee = origin(cna_character_absolute_transform(robot, (size_t)l->lower));
            const cna_mat4 ankle = ankle_matrix(robot, l);
            const double moved = distance(hip, l->hip);
            const double dl = fmax(fabs(distance(hip, knee) - l->thigh), fabs(distance(knee, origin(&ankle)) - l->shin));
            if (moved > stats->max_root) stats->max_root = moved;
            if (dl > stats->max_length) stats->max_length = dl;
        }
        if (f.drop > stats->max_drop) stats->max_drop = f.drop;
        stats->frames++;
        if (out && frame % 6 == 0)
            fprintf(out, "%6.2f  %6.4f | %7.4f %9.2e %9.2e%s | %7.4f %9.2e %9.2e%s\n", t, f.drop, f.legs[0].lift,
                    above[0], error[0], f.legs[0].planted ? " *" : "  ", f.legs[1].lift, above[1], error[1],
                    f.legs[1].planted ? " *" : "  ");
        if (s.rgb && frame % (frames / PANELS) == 0 && s.panel < PANELS) {
            draw_frame(&s, robot, model, &f);
            s.panel++;
        }
    }
    rc = 0;
done:
    if (s.rgb) {
        FILE *o = fopen(sheet_path, "wb");
        if (!o || fprintf(o, "P6\n%d %d\n255\n", PANELS * PANEL_W, PANEL_H) < 0 ||
            fwrite(s.rgb, 3, (size_t)PANELS * PANEL_W * PANEL_H, o) != (size_t)PANELS * PANEL_W * PANEL_H) {
            fprintf(stderr, "error: cannot write %s\n", sheet_path);
            rc = 1;
        }
        if (o) fclose(o);
        free(s.rgb);
    }
    cna_character_free(robot);
    cna_model_free(model);
    return rc;
}

#ifndef FOOT_PLACEMENT_NO_MAIN
int main(int argc, char **argv)
{
    if (argc != 2 && !(argc == 4 && strcmp(argv[2], "--sheet") == 0)) {
        fprintf(stderr, "usage: %s ROBOT.glb [--sheet OUT.ppm]\n", argv[0]);
        return 2;
    }
    walk_stats st;
    if (walk(argv[1], 240, stdout, argc == 4 ? argv[3] : NULL, &st) != 0) return 1;
    printf("%d frames, %d planted foot-frames (* above: within %g of the foot's lowest point)\n", st.frames,
           st.planted, PLANTED);
    printf("largest |foot - target| %.2e; planted feet within %.2e of the ground; feet keep their lift within %.2e\n",
           st.max_error, st.max_planted, st.max_follow);
    printf("largest pelvis drop %.4f; every leg reached: %s\n", st.max_drop, st.all_reached ? "yes" : "no");
    printf("hips moved by the IK at most %.2e; bone lengths changed at most %.2e\n", st.max_root, st.max_length);
    const bool ok = st.planted > 0 && st.max_planted <= 1e-4 && st.max_follow <= 1e-4 && st.all_reached;
    printf("check: planted feet within 1e-4 of the ground, lifted ones within 1e-4 of their lift: %s\n",
           ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
#endif
