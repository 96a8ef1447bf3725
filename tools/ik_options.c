/*
 * tools/ik_options.c — the IK options of `cna pose` and `cna render`
 * (tools/ik_options.h, docs/cli.md, docs/ik.md).
 *
 * --ik END=X,Y,Z is two-bone IK on the joint named END, its parent and its
 * grandparent (cna_character_two_bone_ik), the target in model space; the
 * name is split at its last '=' so that names may hold ':' or spaces. The
 * mid joint bends about the axis its pose already bends about (the normal
 * of the start, mid and end joints' plane, in the mid joint's space; z when
 * they are in line). --aim JOINT=X,Y,Z is aim IK (cna_character_aim_ik).
 * A modifier applies to the last --ik (--ik-*) or --aim (--aim-*) before it.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cna/cna.h"
#include "ik_options.h"

static const char *const OPTIONS[] = {"--ik", "--ik-pole", "--ik-weight", "--ik-soften", "--ik-twist",
                                      "--aim", "--aim-forward", "--aim-up", "--aim-offset", "--aim-weight"};

bool cna_cli_is_ik_option(const char *arg)
{
    for (size_t i = 0; i < sizeof OPTIONS / sizeof OPTIONS[0]; i++)
        if (strcmp(arg, OPTIONS[i]) == 0) return true;
    return false;
}

/* "X,Y,Z": three finite numbers */
static bool parse_vec(const char *text, cna_vec3 *out)
{
    float v[3];
    const char *p = text;
    for (int k = 0; k < 3; k++) {
        char *end = NULL;
        errno = 0;
        const double d = strtod(p, &end);
        if (errno || end == p || !isfinite(d) || fabs(d) > 3.4e38) return false;
        v[k] = (float)d;
        if (k < 2 && *end != ',') return false;
        if (k == 2 && *end != '\0') return false;
        p = end + 1;
    }
    *out = cna_vec3_make(v[0], v[1], v[2]);
    return true;
}

static bool parse_number(const char *text, double lo, double hi, float *out)
{
    char *end = NULL;
    errno = 0;
    const double d = strtod(text, &end);
    if (errno || !*text || *end || !(d >= lo && d <= hi)) return false;
    *out = (float)d;
    return true;
}

/* the last op of the kind, or NULL */
static cna_cli_ik_op *last(cna_cli_ik *ik, bool aim)
{
    for (size_t i = ik->count; i-- > 0;)
        if (ik->ops[i].aim == aim) return &ik->ops[i];
    return NULL;
}

int cna_cli_ik_parse(const cna_cli_command *cmd, const char *arg, const char *value, cna_cli_ik *ik)
{
    const bool aim = strncmp(arg, "--aim", 5) == 0;
    if (strcmp(arg, "--ik") == 0 || strcmp(arg, "--aim") == 0) {
        const char *eq = strrchr(value, '=');
        cna_vec3 target;
        if (!eq || eq == value || !parse_vec(eq + 1, &target))
            return cna_cli_usage_error(cmd, "%s: '%s' is not NAME=X,Y,Z", arg, value);
        if (ik->count == CNA_CLI_IK_MAX)
            return cna_cli_usage_error(cmd, "%s: at most %d --ik and --aim options", arg, CNA_CLI_IK_MAX);
        cna_cli_ik_op *op = &ik->ops[ik->count];
        const size_t n = (size_t)(eq - value);
        if (n >= sizeof op->joint)
            return cna_cli_usage_error(cmd, "%s: the joint name is longer than %zu bytes", arg,
                                       sizeof op->joint - 1);
        memset(op, 0, sizeof *op);
        memcpy(op->joint, value, n);
        op->aim = aim;
        op->two_bone = cna_ik_two_bone_defaults();
        op->two_bone.target = target;
        op->two_bone.mid_axis = cna_vec3_make(0, 0, 0); /* from the pose (cna_cli_ik_attach) */
        op->aim_ik = cna_ik_aim_defaults();
        op->aim_ik.target = target;
        ik->count++;
        return -1;
    }
    cna_cli_ik_op *op = last(ik, aim);
    if (!op) return cna_cli_usage_error(cmd, "%s needs an %s before it", arg, aim ? "--aim" : "--ik");
    const char *what = arg + 2;
    cna_vec3 v;
    if (strcmp(arg, "--ik-pole") == 0 || strcmp(arg, "--aim-forward") == 0 || strcmp(arg, "--aim-up") == 0 ||
        strcmp(arg, "--aim-offset") == 0) {
        if (!parse_vec(value, &v)) return cna_cli_usage_error(cmd, "%s: '%s' is not X,Y,Z", arg, value);
        const bool zero = v.x == 0.0f && v.y == 0.0f && v.z == 0.0f;
        if (zero && strcmp(arg, "--aim-offset") != 0)
            return cna_cli_usage_error(cmd, "%s: '%s' is a zero-length axis", arg, value);
        if (strcmp(arg, "--ik-pole") == 0) op->two_bone.pole = v;
        else if (strcmp(arg, "--aim-forward") == 0) op->aim_ik.forward = v;
        else if (strcmp(arg, "--aim-up") == 0) op->aim_ik.up = v;
        else op->aim_ik.offset = v;
        return -1;
    }
    float f;
    if (strcmp(arg, "--ik-twist") == 0) {
        if (!parse_number(value, -1e6, 1e6, &f))
            return cna_cli_usage_error(cmd, "%s: '%s' is not an angle in radians", arg, value);
        op->two_bone.twist = f;
        return -1;
    }
    if (!parse_number(value, 0.0, 1.0, &f))
        return cna_cli_usage_error(cmd, "%s: '%s' is not a %s in [0, 1]", arg, value,
                                   strcmp(what, "ik-soften") == 0 ? "ratio" : "weight");
    if (strcmp(arg, "--ik-weight") == 0) op->two_bone.weight = f;
    else if (strcmp(arg, "--ik-soften") == 0) op->two_bone.soften = f;
    else op->aim_ik.weight = f;
    return -1;
}

/* The axis the mid joint bends about in the pose, in its own space:
 * inverse(mid) · ((start - mid) × (end - mid)), z when they are in line. */
static cna_vec3 bend_axis(const cna_character *c, const char *end_joint)
{
    const cna_model *m = cna_character_model(c);
    const int32_t end = cna_model_find_bone(m, end_joint);
    const int32_t mid = end >= 0 ? m->bones[end].parent : -1;
    const int32_t start = mid >= 0 ? m->bones[mid].parent : -1;
    if (start < 0) return cna_vec3_make(0, 0, 1); /* the library reports it */
    const cna_mat4 *s = cna_character_absolute_transform(c, (size_t)start);
    const cna_mat4 *md = cna_character_absolute_transform(c, (size_t)mid);
    const cna_mat4 *e = cna_character_absolute_transform(c, (size_t)end);
    const double u[3] = {s->m[12] - md->m[12], s->m[13] - md->m[13], s->m[14] - md->m[14]};
    const double v[3] = {e->m[12] - md->m[12], e->m[13] - md->m[13], e->m[14] - md->m[14]};
    const double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    cna_mat4 inv;
    if (!cna_mat4_inverse(&inv, md)) return cna_vec3_make(0, 0, 1);
    const cna_vec3 a = cna_mat4_transform_vector(&inv, cna_vec3_make((float)n[0], (float)n[1], (float)n[2]));
    const double l = sqrt((double)a.x * a.x + (double)a.y * a.y + (double)a.z * a.z);
    const double ul = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]), vl = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (!(l > 1e-6 * ul * vl)) return cna_vec3_make(0, 0, 1);
    return cna_vec3_make((float)(a.x / l), (float)(a.y / l), (float)(a.z / l));
}

static cna_result apply(cna_character *c, void *user, cna_error *err)
{
    cna_cli_ik *ik = (cna_cli_ik *)user;
    for (size_t i = 0; i < ik->count; i++) {
        cna_cli_ik_op *op = &ik->ops[i];
        bool reached = false;
        cna_result r;
        if (op->aim) {
            r = cna_character_aim_ik(c, op->joint, &op->aim_ik, &reached, err);
        } else {
            cna_ik_two_bone tb = op->two_bone;
            tb.mid_axis = bend_axis(c, op->joint);
            r = cna_character_two_bone_ik(c, op->joint, &tb, &reached, err);
        }
        if (r != CNA_OK) return r;
        if (!reached && !(op->aim ? op->aim_ik.weight < 1.0f : op->two_bone.weight < 1.0f))
            fprintf(stderr, "note: %s %s: the target is out of reach\n", op->aim ? "--aim" : "--ik", op->joint);
    }
    return CNA_OK;
}

int cna_cli_ik_attach(cna_character *c, const char *path, cna_cli_ik *ik)
{
    if (ik->count == 0) return -1;
    ik->path = path;
    cna_error err;
    if (cna_character_set_pose_edit(c, apply, ik, &err) != CNA_OK) return cna_cli_report_error(path, &err);
    return -1;
}

void cna_cli_ik_help(FILE *out, int column)
{
    static const char *const lines[][2] = {
        {"--ik END=X,Y,Z", "two-bone IK after the animation: the joint END, its parent"},
        {"", "and grandparent reach for X,Y,Z (model space); the name is"},
        {"", "split at the last '='; repeatable, applied in order"},
        {"--ik-pole X,Y,Z", "the last --ik's pole vector (default 0,1,0)"},
        {"--ik-weight W", "the last --ik's weight in [0, 1] (default 1)"},
        {"--ik-soften S", "the last --ik's soften ratio in [0, 1] (default 1: none)"},
        {"--ik-twist RADIANS", "the last --ik's twist about the start-target line"},
        {"--aim JOINT=X,Y,Z", "aim IK after the animation: JOINT's forward axis points at"},
        {"", "X,Y,Z (model space); repeatable, applied in order"},
        {"--aim-forward X,Y,Z", "the last --aim's forward axis, joint space (default 1,0,0)"},
        {"--aim-up X,Y,Z", "its up axis, kept in the pole plane (default 0,1,0)"},
        {"--aim-offset X,Y,Z", "its offset of the aiming point, joint space (default 0,0,0)"},
        {"--aim-weight W", "its weight in [0, 1] (default 1)"},
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        const int used = fprintf(out, "  %s", lines[i][0]);
        fprintf(out, "%*s%s\n", used < column ? column - used : 1, "", lines[i][1]);
    }
}
