/*
 * Retargeting (cna_bind_options.retarget, docs/clips.md "Retargeting"):
 * the posed character equals the formula, computed here in double precision
 * straight from the glTF files (channels evaluated with glTF's LINEAR and
 * STEP rules, world rotations as products of normalised local rotations
 * from the scene root):
 *   R_T(j, t) = R_S(s, t) · inverse(R_S_ref(s)) · R_T_ref(j)
 *   hips(t)   = p_T_ref + (h_T / h_S) · (p_S(t) - p_S_ref)
 * at keys and between keys, within 1e-5 rad for every mapped joint's world
 * rotation and 1e-5 of the model's size for the hips, on:
 *   - T-pose human clips on an A-pose human with other bone lengths
 *     (0.71 .. 1.19), with and without reference alignment;
 *   - fox clips on a dog (bone lengths 0.65 .. 3.8 times the fox's);
 *   - the human clips on the human scaled 1.3 times at its root (the hips'
 *     parent): also how far a planted foot slides during the walk cycle.
 * And the humanoid names, the JSON name map, and refusals.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "win_compat.h"

#include "cna/cna.h"
#include "model/retarget_internal.h"

#define LIBS CNA_TEST_DATA_DIR "/libraries/"
#define HUMAN_CLIPS LIBS "Mesh2MotionHuman/human-addon-animations.glb"
#define HUMAN LIBS "Mesh2MotionHuman/human-male.glb"
#define APOSE LIBS "CraftedAPoseHuman/human-male-apose.glb"
#define FOX_CLIPS LIBS "Mesh2MotionFox/fox-animations.glb"
#define DOG LIBS "Mesh2MotionFox/fox-dog.glb"

/* ------------------------------------------------------------------ a glTF file, read here */

typedef struct gacc {
    size_t offset, stride;  /* bytes into the BIN chunk; the view's stride, 0 = packed */
    int type;               /* componentType */
    int count;
} gacc;

typedef struct gfile {
    cJSON *json;
    unsigned char *bin;
    size_t bin_size;
    unsigned char *raw;
    gacc *acc;              /* every accessor's data start (read once: cJSON arrays are lists) */
} gfile;

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static gfile read_glb(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    gfile g = {0};
    g.raw = malloc((size_t)size);
    assert_int_equal(fread(g.raw, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    size_t at = 12;
    while (at + 8 <= (size_t)size) {
        uint32_t len = le32(g.raw + at), type = le32(g.raw + at + 4);
        if (type == 0x4E4F534Au) g.json = cJSON_ParseWithLength((const char *)g.raw + at + 8, len);
        else if (type == 0x004E4942u) {
            g.bin = g.raw + at + 8;
            g.bin_size = len;
        }
        at += 8 + len;
    }
    assert_non_null(g.json);
    const cJSON *accs = cJSON_GetObjectItemCaseSensitive(g.json, "accessors"), *a;
    const cJSON *views = cJSON_GetObjectItemCaseSensitive(g.json, "bufferViews");
    g.acc = calloc((size_t)cJSON_GetArraySize(accs) + 1, sizeof *g.acc);
    size_t i = 0;
    cJSON_ArrayForEach(a, accs) {
        const cJSON *v = cJSON_GetArrayItem(views, cJSON_GetObjectItemCaseSensitive(a, "bufferView")->valueint);
        const cJSON *bo = cJSON_GetObjectItemCaseSensitive(v, "byteOffset"), *ao = cJSON_GetObjectItemCaseSensitive(a, "byteOffset"),
                    *st = cJSON_GetObjectItemCaseSensitive(v, "byteStride");
        g.acc[i].type = cJSON_GetObjectItemCaseSensitive(a, "componentType")->valueint;
        g.acc[i].count = cJSON_GetObjectItemCaseSensitive(a, "count")->valueint;
        g.acc[i].offset = (size_t)(bo ? bo->valueint : 0) + (size_t)(ao ? ao->valueint : 0);
        g.acc[i].stride = st ? (size_t)st->valueint : 0;
        i++;
    }
    return g;
}

static void free_gfile(gfile *g)
{
    cJSON_Delete(g->json);
    free(g->raw);
    free(g->acc);
}

static const cJSON *arr(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }
static int num(const cJSON *o, const char *k, int dflt)
{
    const cJSON *v = arr(o, k);
    return cJSON_IsNumber(v) ? v->valueint : dflt;
}

/* Float accessor element i, component c. */
static double acc_value(const gfile *g, int accessor, size_t i, int comps, int c)
{
    const gacc *a = &g->acc[accessor];
    assert_int_equal(a->type, 5126);
    size_t stride = a->stride ? a->stride : (size_t)comps * 4;
    float f;
    memcpy(&f, g->bin + a->offset + i * stride + (size_t)c * 4, 4);
    return f;
}

/* ------------------------------------------------------------------ double math */

typedef struct q4 { double x, y, z, w; } q4;

static q4 qmul(q4 a, q4 b)
{
    return (q4){a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}
static q4 qconj(q4 a) { return (q4){-a.x, -a.y, -a.z, a.w}; }
static q4 qnorm(q4 a)
{
    double n = sqrt(a.x * a.x + a.y * a.y + a.z * a.z + a.w * a.w);
    return (q4){a.x / n, a.y / n, a.z / n, a.w / n};
}
static double qangle(q4 a, q4 b)
{
    q4 d = qmul(qconj(qnorm(a)), qnorm(b));
    return 2.0 * atan2(sqrt(d.x * d.x + d.y * d.y + d.z * d.z), fabs(d.w));
}
static void qrot(q4 q, const double v[3], double out[3])
{
    q4 p = qmul(qmul(q, (q4){v[0], v[1], v[2], 0}), qconj(q));
    out[0] = p.x;
    out[1] = p.y;
    out[2] = p.z;
}
/* glTF's slerp (shortest path) */
static q4 qslerp(q4 a, q4 b, double u)
{
    double d = a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
    if (d < 0) {
        b = (q4){-b.x, -b.y, -b.z, -b.w};
        d = -d;
    }
    if (d > 1 - 1e-12) return qnorm((q4){a.x + u * (b.x - a.x), a.y + u * (b.y - a.y), a.z + u * (b.z - a.z), a.w + u * (b.w - a.w)});
    double th = acos(d), s = sin(th);
    double wa = sin((1 - u) * th) / s, wb = sin(u * th) / s;
    return (q4){wa * a.x + wb * b.x, wa * a.y + wb * b.y, wa * a.z + wb * b.z, wa * a.w + wb * b.w};
}
/* ------------------------------------------------------------------ a skeleton's pose in double */

enum { MAXN = 160 };

typedef struct pose {
    int n;
    int parent[MAXN];
    const char *name[MAXN];
    double t[MAXN][3], s[MAXN][3];
    q4 r[MAXN];
    /* worlds */
    q4 wr[MAXN];     /* product of normalised local rotations */
    double wp[MAXN][3];  /* model-space position */
    double wl[MAXN][9];  /* linear part (rotation · scale), column-major */
} pose;

static void rest_pose(const gfile *g, pose *p)
{
    const cJSON *nodes = arr(g->json, "nodes");
    p->n = cJSON_GetArraySize(nodes);
    assert_true(p->n <= MAXN);
    for (int i = 0; i < p->n; i++) p->parent[i] = -1;
    for (int i = 0; i < p->n; i++) {
        const cJSON *nd = cJSON_GetArrayItem(nodes, i);
        const cJSON *nm = arr(nd, "name");
        p->name[i] = cJSON_IsString(nm) ? nm->valuestring : "";
        const cJSON *t = arr(nd, "translation"), *r = arr(nd, "rotation"), *s = arr(nd, "scale"), *c;
        assert_null(arr(nd, "matrix"));
        for (int k = 0; k < 3; k++) {
            p->t[i][k] = t ? cJSON_GetArrayItem(t, k)->valuedouble : 0;
            p->s[i][k] = s ? cJSON_GetArrayItem(s, k)->valuedouble : 1;
        }
        p->r[i] = r ? qnorm((q4){cJSON_GetArrayItem(r, 0)->valuedouble, cJSON_GetArrayItem(r, 1)->valuedouble,
                                 cJSON_GetArrayItem(r, 2)->valuedouble, cJSON_GetArrayItem(r, 3)->valuedouble})
                    : (q4){0, 0, 0, 1};
        cJSON_ArrayForEach(c, arr(nd, "children")) p->parent[c->valueint] = i;
    }
}

static void lin_of(q4 q, const double s[3], double out[9])
{
    double x[3] = {1, 0, 0}, y[3] = {0, 1, 0}, z[3] = {0, 0, 1};
    qrot(q, x, out);
    qrot(q, y, out + 3);
    qrot(q, z, out + 6);
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < 3; k++) out[c * 3 + k] *= s[c];
}

static void lin_apply(const double l[9], const double v[3], double out[3])
{
    for (int k = 0; k < 3; k++) out[k] = l[k] * v[0] + l[3 + k] * v[1] + l[6 + k] * v[2];
}

/* Worlds in parent-first order (the files list parents anywhere: recurse). */
static void world_of(pose *p, int i, unsigned char *done)
{
    if (done[i]) return;
    int par = p->parent[i];
    double l[9];
    lin_of(p->r[i], p->s[i], l);
    if (par < 0) {
        p->wr[i] = p->r[i];
        memcpy(p->wp[i], p->t[i], sizeof p->wp[i]);
        memcpy(p->wl[i], l, sizeof l);
    } else {
        world_of(p, par, done);
        p->wr[i] = qnorm(qmul(p->wr[par], p->r[i]));
        double v[3];
        lin_apply(p->wl[par], p->t[i], v);
        for (int k = 0; k < 3; k++) p->wp[i][k] = p->wp[par][k] + v[k];
        for (int c = 0; c < 3; c++) lin_apply(p->wl[par], l + c * 3, p->wl[i] + c * 3);
    }
    done[i] = 1;
}

static void worlds(pose *p)
{
    unsigned char done[MAXN] = {0};
    for (int i = 0; i < p->n; i++) world_of(p, i, done);
}

/* A key time as the library keeps it: on its 100 ns tick (cna/anim.h). */
static double key_time(const gfile *g, int accessor, size_t i)
{
    return cna_ticks_to_seconds(cna_ticks_from_seconds(acc_value(g, accessor, i, 1, 0)));
}

/* Animation a's channels evaluated at time s (seconds) over the rest pose,
 * key times on ticks. */
static void animate(const gfile *g, int a, double sec, pose *p)
{
    const cJSON *anim = cJSON_GetArrayItem(arr(g->json, "animations"), a);
    const cJSON *ch;
    cJSON_ArrayForEach(ch, arr(anim, "channels")) {
        const cJSON *sampler = cJSON_GetArrayItem(arr(anim, "samplers"), num(ch, "sampler", 0));
        const cJSON *tg = arr(ch, "target");
        int node = num(tg, "node", -1);
        const char *path = arr(tg, "path")->valuestring;
        int in = num(sampler, "input", 0), out = num(sampler, "output", 0);
        const cJSON *interp = arr(sampler, "interpolation");
        bool step = interp && strcmp(interp->valuestring, "STEP") == 0;
        assert_false(interp && strcmp(interp->valuestring, "CUBICSPLINE") == 0);
        int count = g->acc[in].count;
        int comps = strcmp(path, "rotation") == 0 ? 4 : 3;
        size_t k0 = 0, k1 = 0;
        double u = 0;
        if (sec <= key_time(g, in, 0)) {
            k0 = k1 = 0;
        } else if (sec >= key_time(g, in, (size_t)count - 1)) {
            k0 = k1 = (size_t)count - 1;
        } else {
            size_t lo = 0, hi = (size_t)count - 1; /* key_time(lo) <= sec < key_time(hi) */
            while (hi - lo > 1) {
                size_t mid = (lo + hi) / 2;
                if (key_time(g, in, mid) <= sec) lo = mid;
                else hi = mid;
            }
            k0 = lo;
            k1 = hi;
            double ta = key_time(g, in, k0), tb = key_time(g, in, k1);
            u = step ? 0 : (sec - ta) / (tb - ta);
        }
        double va[4], vb[4];
        for (int c = 0; c < comps; c++) {
            va[c] = acc_value(g, out, k0, comps, c);
            vb[c] = acc_value(g, out, k1, comps, c);
        }
        if (comps == 4) {
            p->r[node] = qnorm(qslerp(qnorm((q4){va[0], va[1], va[2], va[3]}), qnorm((q4){vb[0], vb[1], vb[2], vb[3]}), u));
        } else {
            double *dst = strcmp(path, "translation") == 0 ? p->t[node] : p->s[node];
            for (int c = 0; c < 3; c++) dst[c] = va[c] + u * (vb[c] - va[c]);
        }
    }
}

static int find_node(const pose *p, const char *name)
{
    for (int i = 0; i < p->n; i++)
        if (strcmp(p->name[i], name) == 0) return i;
    return -1;
}

/* The reference alignment computed here: parent first, a mapped node with
 * exactly one mapped child turns so that its direction to the child is the
 * source reference's. */
static void align_here(pose *t, const pose *s, const int *src_of)
{
    unsigned char done[MAXN] = {0};
    /* process in a parent-first order: depth by depth */
    int order[MAXN], n = 0;
    for (int depth = 0; n < t->n; depth++)
        for (int i = 0; i < t->n; i++) {
            int d = 0;
            for (int q = t->parent[i]; q >= 0; q = t->parent[q]) d++;
            if (d == depth) order[n++] = i;
        }
    for (int oi = 0; oi < n; oi++) {
        int b = order[oi];
        memset(done, 0, sizeof done);
        worlds(t);
        if (src_of[b] < 0) continue;
        int child = -1, mapped = 0;
        for (int c = 0; c < t->n; c++)
            if (t->parent[c] == b && src_of[c] >= 0) {
                mapped++;
                child = c;
            }
        if (mapped != 1) continue;
        double dt[3], ds[3];
        for (int k = 0; k < 3; k++) {
            dt[k] = t->wp[child][k] - t->wp[b][k];
            ds[k] = s->wp[src_of[child]][k] - s->wp[src_of[b]][k];
        }
        double la = sqrt(dt[0] * dt[0] + dt[1] * dt[1] + dt[2] * dt[2]), lb = sqrt(ds[0] * ds[0] + ds[1] * ds[1] + ds[2] * ds[2]);
        if (la < 1e-12 || lb < 1e-12) continue;
        for (int k = 0; k < 3; k++) {
            dt[k] /= la;
            ds[k] /= lb;
        }
        double d = dt[0] * ds[0] + dt[1] * ds[1] + dt[2] * ds[2];
        q4 turn = qnorm((q4){dt[1] * ds[2] - dt[2] * ds[1], dt[2] * ds[0] - dt[0] * ds[2], dt[0] * ds[1] - dt[1] * ds[0], 1 + d});
        q4 pw = t->parent[b] >= 0 ? t->wr[t->parent[b]] : (q4){0, 0, 0, 1};
        t->r[b] = qnorm(qmul(qconj(pw), qmul(turn, t->wr[b])));
    }
    worlds(t);
}

/* ------------------------------------------------------------------ the check */

typedef struct pair_check {
    double worst_rotation;  /* radians */
    double worst_hips;      /* model units */
    double size;
} pair_check;

static cna_model *bind_retarget(const cna_model *model, const char *lib_path, const cna_bind_options *opts)
{
    cna_clip_library *lib = NULL;
    cna_error err;
    if (cna_clip_library_load_file(lib_path, NULL, &lib, &err)) fail_msg("%s", err.message);
    const cna_clip_library *libs[1] = {lib};
    cna_model *out = NULL;
    if (cna_model_bind_clips(model, libs, 1, opts, &out, &err)) fail_msg("bind: %s", err.message);
    cna_clip_library_free(lib);
    return out;
}

/* Every animation at six times (keys and between keys): the bound model's
 * pose against the formula. `target_path`: the target glTF as loaded
 * (target_json: its JSON, for the rest pose). */
static pair_check check_pair(const cna_model *target, gfile *tg, const char *lib_path, bool align,
                             size_t max_animations)
{
    cna_bind_options o;
    memset(&o, 0, sizeof o);
    o.retarget = true;
    o.retarget_align = align;
    cna_model *bound = bind_retarget(target, lib_path, &o);
    gfile sg = read_glb(lib_path);
    pose sref, tref;
    rest_pose(&sg, &sref);
    rest_pose(tg, &tref);
    worlds(&sref);
    worlds(&tref);
    int src_of[MAXN];
    for (int i = 0; i < tref.n; i++) src_of[i] = tref.name[i][0] ? find_node(&sref, tref.name[i]) : -1;
    if (align) align_here(&tref, &sref, src_of);
    int hips_t = -1, hips_s = -1;
    for (int i = 0; i < tref.n && hips_t < 0; i++)
        if (src_of[i] >= 0 && cna__retarget_is_hips(tref.name[i])) hips_t = i;
    assert_true(hips_t >= 0);
    hips_s = src_of[hips_t];
    const double ratio = tref.wp[hips_t][1] / sref.wp[hips_s][1];

    cna_character *c = NULL;
    cna_error err;
    assert_int_equal(cna_character_create(bound, NULL, &c, &err), CNA_OK);
    pair_check pc = {0, 0, bound->size};
    q4 *got_wr = calloc(bound->bone_count, sizeof *got_wr);
    const size_t own = target->animation_count;
    size_t anims = bound->animation_count - own;
    if (anims > max_animations) anims = max_animations;
    for (size_t a = 0; a < anims; a++) {
        assert_int_equal(cna_character_play(c, (long)(own + a), &err), CNA_OK);
        assert_int_equal(cna_character_set_loop_mode(c, CNA_LOOP_MODE_ONCE, &err), CNA_OK);
        const double dur = cna_ticks_to_seconds(cna_character_duration(c));
        const double times[6] = {0, dur * 0.13, dur / 3 + 1.0 / 120, dur * 0.5, dur * 0.871, dur};
        for (int i = 0; i < 6; i++) {
            const int64_t ticks = cna_ticks_from_seconds(times[i]);
            const double sec = cna_ticks_to_seconds(ticks);
            assert_int_equal(cna_character_seek_ticks(c, ticks, &err), CNA_OK);
            assert_int_equal(cna_character_pose(c, &err), CNA_OK);
            pose sp = sref;
            animate(&sg, (int)a, sec, &sp);
            worlds(&sp);
            /* the character's world rotations, as the formula defines them: products of its
             * posed local rotations (a world matrix also holds the shear of non-uniform scales) */
            for (size_t b = 0; b < bound->bone_count; b++) {
                cna_vec3 tt, ss;
                cna_quat q;
                assert_true(cna_mat4_decompose(cna_character_bone_transform(c, b), &tt, &q, &ss));
                q4 l = qnorm((q4){q.x, q.y, q.z, q.w});
                int32_t par = bound->bones[b].parent;
                got_wr[b] = par < 0 ? l : qnorm(qmul(got_wr[par], l));
            }
            for (int j = 0; j < tref.n; j++) {
                if (src_of[j] < 0) continue;
                int bone = cna_model_find_bone(bound, tref.name[j]);
                assert_true(bone >= 0);
                q4 expect = qmul(qmul(sp.wr[src_of[j]], qconj(sref.wr[src_of[j]])), tref.wr[j]);
                q4 got = got_wr[bone];
                double e = qangle(expect, got);
                if (e > pc.worst_rotation) pc.worst_rotation = e;
                if (e > 1e-5)
                    fail_msg("%s animation %zu at %.6f s: \"%s\" world rotation off by %g rad", lib_path, a, sec,
                             tref.name[j], e);
            }
            int hb = cna_model_find_bone(bound, tref.name[hips_t]);
            const cna_mat4 *hw = cna_character_absolute_transform(c, (size_t)hb);
            double d = 0;
            for (int k = 0; k < 3; k++) {
                double expect = tref.wp[hips_t][k] + ratio * (sp.wp[hips_s][k] - sref.wp[hips_s][k]);
                d += (expect - hw->m[12 + k]) * (expect - hw->m[12 + k]);
            }
            d = sqrt(d);
            if (d > pc.worst_hips) pc.worst_hips = d;
            if (d > 1e-5 * bound->size)
                fail_msg("%s animation %zu at %.6f s: hips off by %g", lib_path, a, sec, d);
        }
    }
    free(got_wr);
    cna_character_free(c);
    cna_model_free(bound);
    free_gfile(&sg);
    return pc;
}

static cna_model *load(const char *path)
{
    cna_model *m = NULL;
    cna_error err;
    if (cna_model_load_file(path, NULL, &m, &err)) fail_msg("%s: %s", path, err.message);
    return m;
}

static void apose_from_tpose_clips(void **state)
{
    (void)state;
    cna_model *t = load(APOSE);
    gfile tg = read_glb(APOSE);
    pair_check pc = check_pair(t, &tg, HUMAN_CLIPS, false, 37);
    print_message("A-pose human, unaligned: worst world rotation %.3g rad, hips %.3g (size %.4g)\n",
                  pc.worst_rotation, pc.worst_hips, (double)pc.size);
    free_gfile(&tg);
    cna_model_free(t);
}

static void apose_from_tpose_clips_aligned(void **state)
{
    (void)state;
    cna_model *t = load(APOSE);
    gfile tg = read_glb(APOSE);
    pair_check pc = check_pair(t, &tg, HUMAN_CLIPS, true, 37);
    print_message("A-pose human, aligned: worst world rotation %.3g rad, hips %.3g\n", pc.worst_rotation,
                  pc.worst_hips);
    free_gfile(&tg);
    cna_model_free(t);
}

static void dog_from_fox_clips(void **state)
{
    (void)state;
    cna_model *t = load(DOG);
    gfile tg = read_glb(DOG);
    pair_check pc = check_pair(t, &tg, FOX_CLIPS, false, 14);
    print_message("dog from fox clips: worst world rotation %.3g rad, hips %.3g\n", pc.worst_rotation, pc.worst_hips);
    free_gfile(&tg);
    cna_model_free(t);
}

static void fox_from_fox_clips(void **state)
{
    (void)state;
    cna_model *t = load(LIBS "Mesh2MotionFox/fox-fox.glb");
    gfile tg = read_glb(LIBS "Mesh2MotionFox/fox-fox.glb");
    pair_check pc = check_pair(t, &tg, FOX_CLIPS, false, 14);
    print_message("fox from fox clips: worst world rotation %.3g rad, hips %.3g\n", pc.worst_rotation, pc.worst_hips);
    free_gfile(&tg);
    cna_model_free(t);
}


/* ------------------------------------------------------------------ variants of a character */

/* Writes `g` (its JSON as modified) as DIR/NAME.gltf with its BIN chunk as DIR/NAME.bin; returns the .gltf path. */
static void write_variant(gfile *g, const char *dir, const char *name, char *path, size_t size)
{
    char bin[600];
    snprintf(bin, sizeof bin, "%s/%s.bin", dir, name);
    FILE *f = fopen(bin, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(g->bin, 1, g->bin_size, f), g->bin_size);
    fclose(f);
    cJSON *b0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(g->json, "buffers"), 0);
    cJSON_DeleteItemFromObjectCaseSensitive(b0, "uri");
    snprintf(bin, sizeof bin, "%s.bin", name);
    cJSON_AddStringToObject(b0, "uri", bin);
    char *text = cJSON_PrintUnformatted(g->json);
    snprintf(path, size, "%s/%s.gltf", dir, name);
    f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    cJSON_free(text);
}

static void remove_variant(const char *dir, const char *name)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s.gltf", dir, name);
    unlink(path);
    snprintf(path, sizeof path, "%s/%s.bin", dir, name);
    unlink(path);
}

static cJSON *node_named(gfile *g, const char *name)
{
    cJSON *n;
    cJSON_ArrayForEach(n, cJSON_GetObjectItemCaseSensitive(g->json, "nodes")) {
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(n, "name");
        if (cJSON_IsString(nm) && strcmp(nm->valuestring, name) == 0) return n;
    }
    return NULL;
}

/* The human 1.3 times taller: its "root" node (the hips' parent) scaled by 1.3. */
static void taller_human_from_human_clips(void **state)
{
    (void)state;
    char dir[] = "/tmp/cna-retarget-XXXXXX", path[600];
    assert_non_null(mkdtemp(dir));
    gfile tg = read_glb(HUMAN);
    cJSON *root = node_named(&tg, "root");
    assert_non_null(root);
    const double s13[3] = {1.3, 1.3, 1.3};
    cJSON_AddItemToObject(root, "scale", cJSON_CreateDoubleArray(s13, 3));
    write_variant(&tg, dir, "taller", path, sizeof path);
    cna_model *t = load(path);
    pair_check pc = check_pair(t, &tg, HUMAN_CLIPS, false, 37);
    print_message("human 1.3x taller (root scaled): worst world rotation %.3g rad, hips %.3g\n", pc.worst_rotation,
                  pc.worst_hips);
    cna_model_free(t);
    free_gfile(&tg);
    remove_variant(dir, "taller");
    rmdir(dir);
}

/* A fox 1.3 times taller walks the fox's "Walk": its feet follow the fox's
 * scaled by 1.3 (the whole pose is the fox's scaled), so a planted foot
 * slides exactly as much as the fox's does, times 1.3. Measured here: the
 * largest |p_T(t) - 1.3 p_S(t)| of the four feet over the cycle, and the
 * planted-foot slide of each (horizontal travel while the foot is within 1 %
 * of the leg's length of its lowest point). */
static void taller_fox_feet(void **state)
{
    (void)state;
    char dir[] = "/tmp/cna-retarget-XXXXXX", path[600];
    assert_non_null(mkdtemp(dir));
    gfile tg = read_glb(LIBS "Mesh2MotionFox/fox-fox.glb");
    const double s13[3] = {1.3, 1.3, 1.3};
    cJSON_AddItemToObject(node_named(&tg, "root"), "scale", cJSON_CreateDoubleArray(s13, 3));
    write_variant(&tg, dir, "taller", path, sizeof path);
    cna_model *t = load(path), *fox = load(LIBS "Mesh2MotionFox/fox-fox.glb");
    cna_bind_options o;
    memset(&o, 0, sizeof o);
    o.retarget = true;
    cna_model *bt = bind_retarget(t, FOX_CLIPS, &o), *bs = bind_retarget(fox, FOX_CLIPS, NULL);
    cna_character *ct = NULL, *cs = NULL;
    cna_error err;
    size_t walk = 0;
    assert_int_equal(cna_model_find_animation(bt, "Walk", &walk, &err), CNA_OK);
    assert_int_equal(cna_character_create(bt, NULL, &ct, &err), CNA_OK);
    assert_int_equal(cna_character_create(bs, NULL, &cs, &err), CNA_OK);
    assert_int_equal(cna_character_play(ct, (long)walk, &err), CNA_OK);
    assert_int_equal(cna_character_play(cs, (long)walk, &err), CNA_OK);
    const char *feet[4] = {"Front_Leg_Foot_L", "Front_Leg_Foot_R", "Back_Leg_Foot_L", "Back_Leg_Foot_R"};
    enum { FRAMES = 240 };
    static double ps[4][FRAMES][3], pt[4][FRAMES][3];
    double worst = 0;
    const int64_t d = cna_character_duration(ct);
    for (int f = 0; f < FRAMES; f++) {
        int64_t tick = d * f / FRAMES;
        assert_int_equal(cna_character_seek_ticks(ct, tick, &err), CNA_OK);
        assert_int_equal(cna_character_seek_ticks(cs, tick, &err), CNA_OK);
        assert_int_equal(cna_character_pose(ct, &err), CNA_OK);
        assert_int_equal(cna_character_pose(cs, &err), CNA_OK);
        for (int k = 0; k < 4; k++) {
            const cna_mat4 *wt = cna_character_absolute_transform(ct, (size_t)cna_model_find_bone(bt, feet[k]));
            const cna_mat4 *ws = cna_character_absolute_transform(cs, (size_t)cna_model_find_bone(bs, feet[k]));
            double e = 0;
            for (int i = 0; i < 3; i++) {
                pt[k][f][i] = wt->m[12 + i];
                ps[k][f][i] = ws->m[12 + i];
                e += (pt[k][f][i] - 1.3 * ps[k][f][i]) * (pt[k][f][i] - 1.3 * ps[k][f][i]);
            }
            if (sqrt(e) > worst) worst = sqrt(e);
        }
    }
    /* the pose is the fox's scaled by 1.3: within 1e-5 of the model's size */
    assert_true(worst <= 1e-5 * bt->size);
    double slide_t = 0, slide_s = 0;
    for (int k = 0; k < 4; k++) {
        double lo_t = 1e30, lo_s = 1e30;
        for (int f = 0; f < FRAMES; f++) {
            if (pt[k][f][1] < lo_t) lo_t = pt[k][f][1];
            if (ps[k][f][1] < lo_s) lo_s = ps[k][f][1];
        }
        double minx_t = 1e30, maxx_t = -1e30, minz_t = 1e30, maxz_t = -1e30;
        double minx_s = 1e30, maxx_s = -1e30, minz_s = 1e30, maxz_s = -1e30;
        for (int f = 0; f < FRAMES; f++) {
            if (ps[k][f][1] <= lo_s + 0.01 * 1.069) {
                if (ps[k][f][0] < minx_s) minx_s = ps[k][f][0];
                if (ps[k][f][0] > maxx_s) maxx_s = ps[k][f][0];
                if (ps[k][f][2] < minz_s) minz_s = ps[k][f][2];
                if (ps[k][f][2] > maxz_s) maxz_s = ps[k][f][2];
            }
            if (pt[k][f][1] <= lo_t + 0.013 * 1.069) {
                if (pt[k][f][0] < minx_t) minx_t = pt[k][f][0];
                if (pt[k][f][0] > maxx_t) maxx_t = pt[k][f][0];
                if (pt[k][f][2] < minz_t) minz_t = pt[k][f][2];
                if (pt[k][f][2] > maxz_t) maxz_t = pt[k][f][2];
            }
        }
        double st = hypot(maxx_t - minx_t, maxz_t - minz_t), ss = hypot(maxx_s - minx_s, maxz_s - minz_s);
        if (st > slide_t) slide_t = st;
        if (ss > slide_s) slide_s = ss;
    }
    print_message("fox 1.3x taller, Walk: feet within %.3g of the fox's x 1.3; planted-foot slide %.4g "
                  "(the fox's: %.4g, x 1.3 = %.4g)\n", worst, slide_t, slide_s, 1.3 * slide_s);
    assert_true(fabs(slide_t - 1.3 * slide_s) <= 1e-4 * bt->size);
    cna_character_free(ct);
    cna_character_free(cs);
    cna_model_free(bt);
    cna_model_free(bs);
    cna_model_free(t);
    cna_model_free(fox);
    free_gfile(&tg);
    remove_variant(dir, "taller");
    rmdir(dir);
}

/* ------------------------------------------------------------------ names */

static void expect_key(const char *name, const char *key)
{
    char out[96];
    if (!cna__retarget_canonical(name, out, sizeof out)) fail_msg("\"%s\": no humanoid key (expected %s)", name, key);
    if (strcmp(out, key) != 0) fail_msg("\"%s\": %s, expected %s", name, out, key);
}

static void humanoid_names(void **state)
{
    (void)state;
    const char *hips[] = {"pelvis", "Hips", "mixamorig:Hips", "DEF-pelvis", "Armature|hips"};
    for (size_t i = 0; i < 5; i++) {
        expect_key(hips[i], "C:hips0");
        assert_true(cna__retarget_is_hips(hips[i]));
    }
    assert_false(cna__retarget_is_hips("hip_l"));
    expect_key("mixamorig:LeftUpLeg", "L:upperleg0");
    expect_key("thigh_l", "L:upperleg0");
    expect_key("DEF-thigh.L", "L:upperleg0");
    expect_key("RightUpLeg", "R:upperleg0");
    expect_key("calf_r", "R:lowerleg0");
    expect_key("mixamorig:RightLeg", "R:lowerleg0");
    expect_key("shin.R", "R:lowerleg0");
    expect_key("foot_l", "L:foot0");
    expect_key("mixamorig:LeftToeBase", "L:toes0");
    expect_key("ball_l", "L:toes0");
    expect_key("Spine", "C:spine0");
    expect_key("spine_01", "C:spine0");
    expect_key("mixamorig:Spine1", "C:spine1");
    expect_key("spine_02", "C:spine1");
    expect_key("mixamorig:Spine2", "C:spine2");
    expect_key("spine_03", "C:spine2");
    expect_key("neck_01", "C:neck0");
    expect_key("mixamorig:Neck", "C:neck0");
    expect_key("mixamorig:Head", "C:head0");
    expect_key("clavicle_l", "L:shoulder0");
    expect_key("mixamorig:LeftShoulder", "L:shoulder0");
    expect_key("upperarm_r", "R:upperarm0");
    expect_key("mixamorig:RightArm", "R:upperarm0");
    expect_key("upper_arm.R", "R:upperarm0");
    expect_key("lowerarm_l", "L:lowerarm0");
    expect_key("mixamorig:LeftForeArm", "L:lowerarm0");
    expect_key("hand_r", "R:hand0");
    expect_key("mixamorig:RightHand", "R:hand0");
    expect_key("mixamorig:LeftHandIndex1", "L:index1");
    expect_key("index_01_l", "L:index1");
    expect_key("mixamorig:RightHandPinky3", "R:little3");
    expect_key("pinky_03_r", "R:little3");
    expect_key("thumb_02_l", "L:thumb2");
    char out[96];
    assert_false(cna__retarget_canonical("Nose", out, sizeof out));
    assert_false(cna__retarget_canonical("index_04_leaf_l", out, sizeof out));
    assert_false(cna__retarget_canonical("root", out, sizeof out));
}

/* The human renamed two ways, Mixamo names (found through the humanoid
 * names) and "T_" names (found through a JSON name map), poses exactly as
 * the human with its own names. */
static const char *const UNREAL_TO_MIXAMO[][2] = {
    {"pelvis", "mixamorig:Hips"}, {"spine_01", "mixamorig:Spine"}, {"spine_02", "mixamorig:Spine1"},
    {"spine_03", "mixamorig:Spine2"}, {"neck_01", "mixamorig:Neck"}, {"head", "mixamorig:Head"},
    {"clavicle_l", "mixamorig:LeftShoulder"}, {"upperarm_l", "mixamorig:LeftArm"},
    {"lowerarm_l", "mixamorig:LeftForeArm"}, {"hand_l", "mixamorig:LeftHand"},
    {"clavicle_r", "mixamorig:RightShoulder"}, {"upperarm_r", "mixamorig:RightArm"},
    {"lowerarm_r", "mixamorig:RightForeArm"}, {"hand_r", "mixamorig:RightHand"},
    {"thigh_l", "mixamorig:LeftUpLeg"}, {"calf_l", "mixamorig:LeftLeg"}, {"foot_l", "mixamorig:LeftFoot"},
    {"ball_l", "mixamorig:LeftToeBase"}, {"thigh_r", "mixamorig:RightUpLeg"}, {"calf_r", "mixamorig:RightLeg"},
    {"foot_r", "mixamorig:RightFoot"}, {"ball_r", "mixamorig:RightToeBase"},
    {"index_01_l", "mixamorig:LeftHandIndex1"}, {"index_02_l", "mixamorig:LeftHandIndex2"},
    {"thumb_01_r", "mixamorig:RightHandThumb1"}, {"pinky_03_r", "mixamorig:RightHandPinky3"},
};

static void expect_same_pose(const cna_model *a, const cna_model *b, const char *const (*names)[2], size_t n,
                             bool by_second)
{
    cna_character *ca = NULL, *cb = NULL;
    cna_error err;
    assert_int_equal(cna_character_create(a, NULL, &ca, &err), CNA_OK);
    assert_int_equal(cna_character_create(b, NULL, &cb, &err), CNA_OK);
    size_t anim = 0;
    assert_int_equal(cna_model_find_animation(a, "Run Anime", &anim, &err), CNA_OK);
    assert_int_equal(cna_character_play(ca, (long)anim, &err), CNA_OK);
    assert_int_equal(cna_character_play(cb, (long)anim, &err), CNA_OK);
    for (int f = 0; f < 3; f++) {
        assert_int_equal(cna_character_update(ca, 0.1, &err), CNA_OK);
        assert_int_equal(cna_character_update(cb, 0.1, &err), CNA_OK);
        for (size_t i = 0; i < n; i++) {
            int32_t ba = cna_model_find_bone(a, names[i][0]);
            int32_t bb = cna_model_find_bone(b, by_second ? names[i][1] : names[i][0]);
            assert_true(ba >= 0 && bb >= 0);
            if (memcmp(cna_character_bone_transform(ca, (size_t)ba), cna_character_bone_transform(cb, (size_t)bb),
                       sizeof(cna_mat4)) != 0)
                fail_msg("\"%s\" differs from \"%s\"", names[i][0], names[i][1]);
        }
    }
    cna_character_free(ca);
    cna_character_free(cb);
}

static void renamed_targets_pose_alike(void **state)
{
    (void)state;
    char dir[] = "/tmp/cna-retarget-XXXXXX", path[600];
    assert_non_null(mkdtemp(dir));
    const size_t n = sizeof UNREAL_TO_MIXAMO / sizeof UNREAL_TO_MIXAMO[0];
    cna_bind_options o;
    memset(&o, 0, sizeof o);
    o.retarget = true;
    cna_model *human = load(HUMAN);
    cna_model *plain = bind_retarget(human, HUMAN_CLIPS, &o);
    /* Mixamo names: the humanoid table finds them */
    gfile g = read_glb(HUMAN);
    for (size_t i = 0; i < n; i++)
        cJSON_SetValuestring(cJSON_GetObjectItemCaseSensitive(node_named(&g, UNREAL_TO_MIXAMO[i][0]), "name"),
                             UNREAL_TO_MIXAMO[i][1]);
    write_variant(&g, dir, "mixamo", path, sizeof path);
    cna_model *mixamo = load(path);
    cna_model *mb = bind_retarget(mixamo, HUMAN_CLIPS, &o);
    const cna_model_diagnostic *d = cna_model_find_diagnostic(mb, CNA_MODEL_DIAG_RETARGET_HIPS);
    assert_non_null(d);
    assert_non_null(strstr(d->message, "hips \"mixamorig:Hips\" -> \"pelvis\", height ratio 1\n") ? d->message : strstr(d->message, "hips \"mixamorig:Hips\" -> \"pelvis\", height ratio 1"));
    expect_same_pose(plain, mb, UNREAL_TO_MIXAMO, n, true);
    free_gfile(&g);
    /* "T_" names and a name map (with a description key, ignored, and a target the model lacks) */
    g = read_glb(HUMAN);
    char json[8192] = "{\"description\": \"T_ names\", \"map\": {\"T_nothing\": \"pelvis\"";
    for (size_t i = 0; i < n; i++) {
        cJSON *name = cJSON_GetObjectItemCaseSensitive(node_named(&g, UNREAL_TO_MIXAMO[i][0]), "name");
        char renamed[64];
        snprintf(renamed, sizeof renamed, "T_%s", UNREAL_TO_MIXAMO[i][0]);
        cJSON_SetValuestring(name, renamed);
        size_t len = strlen(json);
        snprintf(json + len, sizeof json - len, ", \"%s\": \"%s\"", renamed, UNREAL_TO_MIXAMO[i][0]);
    }
    strcat(json, "}}");
    write_variant(&g, dir, "renamed", path, sizeof path);
    cna_model *renamed = load(path);
    char map_path[600];
    snprintf(map_path, sizeof map_path, "%s/map.json", dir);
    FILE *f = fopen(map_path, "w");
    fputs(json, f);
    fclose(f);
    cna_retarget_map *map = NULL;
    cna_error err;
    assert_int_equal(cna_retarget_map_load_file(map_path, &map, &err), CNA_OK);
    o.retarget_map = cna_retarget_map_pairs(map, &o.retarget_map_count);
    assert_int_equal(o.retarget_map_count, n + 1);
    cna_model *rb = bind_retarget(renamed, HUMAN_CLIPS, &o);
    d = cna_model_find_diagnostic(rb, CNA_MODEL_DIAG_RETARGET_MAP_UNUSED);
    assert_non_null(d);
    assert_string_equal(d->message, "retarget map: 1 target joint(s) are not in the model: \"T_nothing\"; ignored");
    const char *pairs[sizeof UNREAL_TO_MIXAMO / sizeof UNREAL_TO_MIXAMO[0]][2];
    char names2[sizeof UNREAL_TO_MIXAMO / sizeof UNREAL_TO_MIXAMO[0]][64];
    for (size_t i = 0; i < n; i++) {
        snprintf(names2[i], sizeof names2[i], "T_%s", UNREAL_TO_MIXAMO[i][0]);
        pairs[i][0] = UNREAL_TO_MIXAMO[i][0];
        pairs[i][1] = names2[i];
    }
    expect_same_pose(plain, rb, (const char *const (*)[2])pairs, n, true);
    cna_retarget_map_free(map);

    /* a map whose source names the library lacks is refused, naming them */
    f = fopen(map_path, "w");
    fputs("{\"map\": {\"T_pelvis\": \"Pelvis\", \"T_head\": null, \"T_neck_01\": \"Neck\"}}", f);
    fclose(f);
    assert_int_equal(cna_retarget_map_load_file(map_path, &map, &err), CNA_OK);
    o.retarget_map = cna_retarget_map_pairs(map, &o.retarget_map_count);
    cna_clip_library *lib = NULL;
    assert_int_equal(cna_clip_library_load_file(HUMAN_CLIPS, NULL, &lib, &err), CNA_OK);
    cna_model *out = (cna_model *)(uintptr_t)0x77;
    const cna_clip_library *libs[1] = {lib};
    assert_int_equal(cna_model_bind_clips(renamed, libs, 1, &o, &out, &err), CNA_ERROR_INVALID_DATA);
    assert_string_equal(err.message, "retarget map: 2 source joint(s) are not in " HUMAN_CLIPS ": \"Pelvis\", \"Neck\"");
    assert_ptr_equal(out, (cna_model *)(uintptr_t)0x77);
    cna_retarget_map_free(map);
    /* malformed maps */
    f = fopen(map_path, "w");
    fputs("{\"joints\": {}}", f);
    fclose(f);
    assert_int_equal(cna_retarget_map_load_file(map_path, &map, &err), CNA_ERROR_INVALID_DATA);
    f = fopen(map_path, "w");
    fputs("{\"map\": {\"a\": 3}}", f);
    fclose(f);
    assert_int_equal(cna_retarget_map_load_file(map_path, &map, &err), CNA_ERROR_INVALID_DATA);
    assert_non_null(strstr(err.message, "map \"a\": expected a source joint name or null"));
    f = fopen(map_path, "w");
    fputs("{\"map\": {", f);
    fclose(f);
    assert_int_equal(cna_retarget_map_load_file(map_path, &map, &err), CNA_ERROR_PARSE);
    assert_int_equal(cna_retarget_map_load_file(NULL, &map, &err), CNA_ERROR_INVALID_ARGUMENT);
    /* --retarget-hips naming a node the model lacks */
    memset(&o, 0, sizeof o);
    o.retarget = true;
    o.retarget_hips = "Pelvis";
    assert_int_equal(cna_model_bind_clips(human, libs, 1, &o, &out, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "retarget: the model has no node named \"Pelvis\" (hips)");
    cna_clip_library_free(lib);
    unlink(map_path);

    cna_model_free(rb);
    cna_model_free(renamed);
    cna_model_free(mb);
    cna_model_free(mixamo);
    cna_model_free(plain);
    cna_model_free(human);
    free_gfile(&g);
    remove_variant(dir, "mixamo");
    remove_variant(dir, "renamed");
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fox_from_fox_clips),
        cmocka_unit_test(apose_from_tpose_clips),
        cmocka_unit_test(apose_from_tpose_clips_aligned),
        cmocka_unit_test(dog_from_fox_clips),
        cmocka_unit_test(taller_human_from_human_clips),
        cmocka_unit_test(taller_fox_feet),
        cmocka_unit_test(humanoid_names),
        cmocka_unit_test(renamed_targets_pose_alike),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
