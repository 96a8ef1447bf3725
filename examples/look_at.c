/*
 * examples/look_at.c — look-at with limits: the robot idles while a target
 * circles in front of it; every frame its head turns toward the target (aim
 * IK as the character's pose edit), within a cone of 0.6 rad (34 degrees)
 * and without rolling more than 0.2 rad. Each quarter second it prints the
 * target, the angle between the head's forward axis and the target, and
 * whether the limit held the head back.
 *
 *   build/examples/example_look_at assets/RobotExpressive/robot.glb
 *
 * The head's forward axis is its +z (RobotExpressive looks along +z in its
 * bind pose); the pole (0, 1, 0) keeps its up axis upright.
 */
#include <math.h>
#include <stdio.h>

#include <cna/cna.h>

typedef struct look {
    cna_ik_aim aim;
    bool reached;
} look;

/* The pose edit: run by every pose, after the animation. */
static cna_result edit(cna_character *c, void *user, cna_error *err)
{
    look *l = (look *)user;
    return cna_character_aim_ik(c, "Head", &l->aim, &l->reached, err);
}

static int fail(const cna_error *err)
{
    fprintf(stderr, "error: %s\n", err->message);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s ROBOT.glb\n", argv[0]);
        return 2;
    }
    cna_error err;
    cna_model *model = NULL;
    if (cna_model_load_file(argv[1], NULL, &model, &err) != CNA_OK) return fail(&err);
    cna_character *robot = NULL;
    size_t idle = 0;
    if (cna_character_create(model, NULL, &robot, &err) != CNA_OK ||
        cna_model_find_animation(model, "Robot_Idle", &idle, &err) != CNA_OK ||
        cna_character_play(robot, (long)idle, &err) != CNA_OK) {
        cna_character_free(robot);
        cna_model_free(model);
        return fail(&err);
    }
    const int32_t head = cna_model_find_bone(model, "Head");
    look l;
    l.aim = cna_ik_aim_defaults();
    l.aim.forward = cna_vec3_make(0, 0, 1);
    l.aim.up = cna_vec3_make(0, 1, 0);
    l.aim.cone = 0.6f;
    l.aim.twist_min = -0.2f;
    l.aim.twist_max = 0.2f;
    l.reached = false;
    if (cna_character_set_pose_edit(robot, edit, &l, &err) != CNA_OK) return fail(&err);
    printf("   t   target (x, y, z)         head-target angle\n");
    for (int frame = 0; frame <= 240; frame++) { /* 4 s at 60 frames a second */
        const double t = frame / 60.0;
        /* a circle of radius 3 in front of the robot, at head height, once in 4 s */
        l.aim.target = cna_vec3_make((float)(3 * sin(t * 1.5707963)), 4.5f, (float)(3 + 2 * cos(t * 1.5707963)));
        if (cna_character_update(robot, frame ? 1.0 / 60 : 0.0, &err) != CNA_OK) return fail(&err);
        if (frame % 15) continue;
        const cna_mat4 *h = cna_character_absolute_transform(robot, (size_t)head);
        const double d[3] = {l.aim.target.x - h->m[12], l.aim.target.y - h->m[13], l.aim.target.z - h->m[14]};
        const double f[3] = {h->m[8], h->m[9], h->m[10]};
        const double c[3] = {f[1] * d[2] - f[2] * d[1], f[2] * d[0] - f[0] * d[2], f[0] * d[1] - f[1] * d[0]};
        const double angle = atan2(sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]), f[0] * d[0] + f[1] * d[1] + f[2] * d[2]);
        printf("%5.2f  (%5.2f, %4.2f, %5.2f)   %5.1f deg%s\n", t, l.aim.target.x, l.aim.target.y, l.aim.target.z,
               angle * 57.29578, angle > 1e-3 ? "  (held back by the cone)" : "");
    }
    cna_character_free(robot);
    cna_model_free(model);
    return 0;
}
