/*
 * Retargeting a clip library onto a model with another skeleton
 * (cna_bind_options.retarget; docs/clips.md, "Retargeting").
 *
 * For every target node j mapped to a source node s, with R world rotations
 * (products of normalised local rotations from the scene root) and _ref the
 * reference poses (each skeleton's rest, the target's optionally aligned):
 *   R_T(j, t) = R_S(s, t) · inverse(R_S_ref(s)) · R_T_ref(j)
 * and j's local rotation follows from its parent's world rotation in the
 * retargeted pose. Translations and scales keep the target's reference values
 * except the hips: their model-space displacement from the reference,
 * scaled by h_T / h_S (each skeleton's hips reference height), placed through
 * the parent's posed world transform. Unmapped target nodes keep their
 * reference locals.
 *
 * The result is baked into ordinary clips: keys at every key time of the
 * source clip, each computed from the source posed by a character of the
 * library's own model (its exact clip extraction), and intervals halved
 * where the player's interpolation of two keys strays from the formula (at
 * most 8 halvings). When each mapped node's nearest mapped ancestor maps to
 * its source's parent, interpolating the baked keys is the formula itself
 * (slerp commutes with constant rotations on either side) and nothing is
 * halved.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cna/character.h"
#include "cna/clips.h"
#include "model/model_internal.h"
#include "model/retarget_internal.h"

/* ------------------------------------------------------------------ double math */

typedef struct dq { double x, y, z, w; } dq;
typedef struct dm { double m[16]; } dm; /* column-major, as cna_mat4 */

static dq dq_mul(dq a, dq b)
{
    dq r;
    r.x = a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y;
    r.y = a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x;
    r.z = a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w;
    r.w = a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z;
    return r;
}

static dq dq_conj(dq a) { return (dq){-a.x, -a.y, -a.z, a.w}; }

static dq dq_norm(dq a)
{
    double n = sqrt(a.x * a.x + a.y * a.y + a.z * a.z + a.w * a.w);
    if (!(n > 0)) return (dq){0, 0, 0, 1};
    return (dq){a.x / n, a.y / n, a.z / n, a.w / n};
}

static dq dq_of(cna_quat q) { return dq_norm((dq){q.x, q.y, q.z, q.w}); }

/* Angle between two rotations (radians, shortest). */
static double dq_angle(dq a, dq b)
{
    double d = fabs(a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w);
    dq diff = dq_mul(dq_conj(a), b);
    double s = sqrt(diff.x * diff.x + diff.y * diff.y + diff.z * diff.z);
    return 2.0 * atan2(s, d);
}

/* The smallest rotation turning unit-free direction a onto b (identity for a
 * zero vector). */
static dq dq_between(const double a[3], const double b[3])
{
    double la = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]), lb = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
    if (!(la > 1e-12) || !(lb > 1e-12)) return (dq){0, 0, 0, 1};
    double u[3] = {a[0] / la, a[1] / la, a[2] / la}, v[3] = {b[0] / lb, b[1] / lb, b[2] / lb};
    double d = u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
    double c[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    if (d < -1.0 + 1e-12) {
        /* opposite: half a turn about any axis perpendicular to u */
        double axis[3] = {0, -u[2], u[1]};
        if (fabs(u[0]) < 0.9 && fabs(u[1]) + fabs(u[2]) < 1e-6) axis[0] = 0;
        double n = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
        if (n < 1e-9) {
            axis[0] = -u[1];
            axis[1] = u[0];
            axis[2] = 0;
            n = sqrt(axis[0] * axis[0] + axis[1] * axis[1]);
        }
        return (dq){axis[0] / n, axis[1] / n, axis[2] / n, 0};
    }
    return dq_norm((dq){c[0], c[1], c[2], 1.0 + d});
}

static void dm_compose(dm *out, const double t[3], dq r, const double s[3])
{
    double xx = r.x * r.x, yy = r.y * r.y, zz = r.z * r.z, xy = r.x * r.y, xz = r.x * r.z, yz = r.y * r.z,
           wx = r.w * r.x, wy = r.w * r.y, wz = r.w * r.z;
    double *m = out->m;
    m[0] = (1 - 2 * (yy + zz)) * s[0];
    m[1] = 2 * (xy + wz) * s[0];
    m[2] = 2 * (xz - wy) * s[0];
    m[3] = 0;
    m[4] = 2 * (xy - wz) * s[1];
    m[5] = (1 - 2 * (xx + zz)) * s[1];
    m[6] = 2 * (yz + wx) * s[1];
    m[7] = 0;
    m[8] = 2 * (xz + wy) * s[2];
    m[9] = 2 * (yz - wx) * s[2];
    m[10] = (1 - 2 * (xx + yy)) * s[2];
    m[11] = 0;
    m[12] = t[0];
    m[13] = t[1];
    m[14] = t[2];
    m[15] = 1;
}

static void dm_mul(dm *out, const dm *a, const dm *b)
{
    dm r;
    for (int c = 0; c < 4; c++)
        for (int k = 0; k < 4; k++) {
            double v = 0;
            for (int i = 0; i < 4; i++) v += a->m[i * 4 + k] * b->m[c * 4 + i];
            r.m[c * 4 + k] = v;
        }
    *out = r;
}

static void dm_identity(dm *m)
{
    memset(m, 0, sizeof *m);
    m->m[0] = m->m[5] = m->m[10] = m->m[15] = 1;
}

/* p = inverse(m) · q for an affine m (3x3 inverted by cofactors). */
static bool dm_solve_point(const dm *m, const double q[3], double p[3])
{
    const double *a = m->m;
    double r[3] = {q[0] - a[12], q[1] - a[13], q[2] - a[14]};
    double c00 = a[5] * a[10] - a[9] * a[6], c01 = a[9] * a[2] - a[1] * a[10], c02 = a[1] * a[6] - a[5] * a[2];
    double det = a[0] * c00 + a[4] * c01 + a[8] * c02;
    if (!(fabs(det) > 1e-300)) return false;
    double inv[9];
    inv[0] = c00 / det;
    inv[1] = c01 / det;
    inv[2] = c02 / det;
    inv[3] = (a[8] * a[6] - a[4] * a[10]) / det;
    inv[4] = (a[0] * a[10] - a[8] * a[2]) / det;
    inv[5] = (a[4] * a[2] - a[0] * a[6]) / det;
    inv[6] = (a[4] * a[9] - a[8] * a[5]) / det;
    inv[7] = (a[8] * a[1] - a[0] * a[9]) / det;
    inv[8] = (a[0] * a[5] - a[4] * a[1]) / det;
    /* inverse is column-major like m: p = inv · r */
    for (int k = 0; k < 3; k++) p[k] = inv[k] * r[0] + inv[3 + k] * r[1] + inv[6 + k] * r[2];
    return true;
}

/* ------------------------------------------------------------------ names */

/* The humanoid alias table: (normalised base, canonical). Bases are compared
 * after the prefix before the last ':' or '|' and a "DEF-" prefix are
 * removed, the side taken out (Left/Right prefixes; .L/.R, _l/_r, -l/-r
 * suffixes; l_/r_ prefixes), lower-cased and with '_', '.', '-' and spaces
 * removed; a trailing number is kept apart (see canonical_name). */
static const struct { const char *alias, *canonical; } ALIASES[] = {
    {"hips", "hips"},         {"pelvis", "hips"},        {"hip", "hips"},
    {"spine", "spine"},       {"chest", "chest"},        {"upperchest", "upperchest"},
    {"neck", "neck"},         {"head", "head"},
    {"shoulder", "shoulder"}, {"clavicle", "shoulder"},  {"collar", "shoulder"},
    {"arm", "upperarm"},      {"upperarm", "upperarm"},  {"uparm", "upperarm"},
    {"forearm", "lowerarm"},  {"lowerarm", "lowerarm"},  {"elbow", "lowerarm"},
    {"hand", "hand"},         {"wrist", "hand"},
    {"upleg", "upperleg"},    {"thigh", "upperleg"},     {"upperleg", "upperleg"},
    {"leg", "lowerleg"},      {"calf", "lowerleg"},      {"shin", "lowerleg"},  {"lowerleg", "lowerleg"},
    {"knee", "lowerleg"},
    {"foot", "foot"},         {"ankle", "foot"},
    {"toebase", "toes"},      {"toe", "toes"},           {"toes", "toes"},      {"ball", "toes"},
    {"thumb", "thumb"},       {"index", "index"},        {"indexfinger", "index"},
    {"middle", "middle"},     {"middlefinger", "middle"}, {"ring", "ring"},      {"ringfinger", "ring"},
    {"pinky", "little"},      {"little", "little"},      {"pinkyfinger", "little"},
};

static bool ends_with(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/* The part of a name after a "...:" or "...|" namespace and a "DEF-" prefix. */
static const char *strip_prefix(const char *name)
{
    const char *s = name;
    for (const char *p = name; *p; p++)
        if (*p == ':' || *p == '|') s = p + 1;
    if (strncmp(s, "DEF-", 4) == 0) s += 4;
    return s;
}

bool cna__retarget_is_hips(const char *name)
{
    const char *s = strip_prefix(name);
    char low[16];
    size_t n = strlen(s);
    if (n >= sizeof low) return false;
    for (size_t i = 0; i <= n; i++) low[i] = (char)tolower((unsigned char)s[i]);
    return strcmp(low, "hips") == 0 || strcmp(low, "pelvis") == 0;
}

/* "L:upperleg", "C:spine1", "R:index2": the canonical key of a humanoid
 * name, or false when the name is none of the table's. */
bool cna__retarget_canonical(const char *name, char *out, size_t size)
{
    const char *s = strip_prefix(name);
    char low[128];
    size_t n = 0;
    for (const char *p = s; *p && n + 1 < sizeof low; p++) low[n++] = (char)tolower((unsigned char)*p);
    low[n] = '\0';
    char side = 'C';
    char *b = low;
    if (strncmp(b, "left", 4) == 0) { side = 'L'; b += 4; }
    else if (strncmp(b, "right", 5) == 0) { side = 'R'; b += 5; }
    else if ((b[0] == 'l' || b[0] == 'r') && (b[1] == '_' || b[1] == '.')) { side = b[0] == 'l' ? 'L' : 'R'; b += 2; }
    n = strlen(b);
    if (side == 'C') {
        const char *ls[] = {".l", "_l", "-l", " l", ".left", "_left", "left"};
        const char *rs[] = {".r", "_r", "-r", " r", ".right", "_right", "right"};
        for (size_t i = 0; i < 7 && side == 'C'; i++) {
            if (ends_with(b, n, ls[i])) { side = 'L'; b[n - strlen(ls[i])] = '\0'; }
            else if (ends_with(b, n, rs[i])) { side = 'R'; b[n - strlen(rs[i])] = '\0'; }
        }
    }
    /* separators out; a trailing number kept apart */
    char base[128];
    size_t m = 0;
    for (char *p = b; *p; p++)
        if (*p != '_' && *p != '.' && *p != '-' && *p != ' ') base[m++] = *p;
    base[m] = '\0';
    size_t digits = m;
    while (digits > 0 && isdigit((unsigned char)base[digits - 1])) digits--;
    const char *num = base + digits;
    char number[16] = "";
    if (strlen(num) < sizeof number) memcpy(number, num, strlen(num) + 1);
    base[digits] = '\0';
    /* fingers: Mixamo writes them after "hand" (LeftHandIndex1) */
    const char *core = base;
    if (strncmp(core, "hand", 4) == 0 && core[4]) core += 4;
    for (size_t i = 0; i < sizeof ALIASES / sizeof ALIASES[0]; i++) {
        if (strcmp(core, ALIASES[i].alias) != 0) continue;
        const char *canon = ALIASES[i].canonical;
        long index = 0;
        if (number[0]) index = strtol(number, NULL, 10);
        if (strcmp(canon, "spine") == 0 || strcmp(canon, "neck") == 0) {
            /* Mixamo Spine, Spine1, Spine2; Unreal spine_01, spine_02: one sequence from 0 */
            if (number[0] == '0' && index > 0) index -= 1;
        }
        snprintf(out, size, "%c:%s%ld", side, canon, index);
        return true;
    }
    return false;
}

/* ------------------------------------------------------------------ the name map */

struct cna_retarget_map {
    cna_allocator allocator;
    cna_retarget_pair *pairs;
    size_t count;
    char *strings;
};

void cna_retarget_map_free(cna_retarget_map *map)
{
    if (!map) return;
    cna_allocator a = map->allocator;
    cna__free(&a, map->pairs);
    cna__free(&a, map->strings);
    cna__free(&a, map);
}

const cna_retarget_pair *cna_retarget_map_pairs(const cna_retarget_map *map, size_t *count)
{
    if (count) *count = map ? map->count : 0;
    return map ? map->pairs : NULL;
}

cna_result cna_retarget_map_load_file(const char *path, cna_retarget_map **out, cna_error *err)
{
    if (!path || !out)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "retarget map: NULL %s", path ? "out" : "path");
    cna_allocator a = cna__allocator_resolve(NULL);
    FILE *f = NULL;
    uint64_t fsize = 0;
    int e = cna__file_open_regular(path, &f, &fsize);
    if (e == CNA__FILE_NOT_REGULAR)
        return cna__error(err, CNA_ERROR_IO, "%s: not a regular file", path);
    if (e) return cna__error(err, CNA_ERROR_IO, "%s: %s", path, strerror(e));
    if (fsize > ((uint64_t)16 << 20)) {
        fclose(f);
        return cna__error(err, CNA_ERROR_LIMIT, "%s: %llu bytes; a name map may have at most 16 MiB", path,
                          (unsigned long long)fsize);
    }
    size_t size = (size_t)fsize;
    char *data = (char *)cna__alloc(&a, size + 1);
    if (!data) {
        fclose(f);
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
    }
    size_t got = fread(data, 1, size, f);
    fclose(f);
    if (got != size) {
        cna__free(&a, data);
        return cna__error(err, CNA_ERROR_IO, "%s: read failed", path);
    }
    data[size] = '\0';
    const char *end = NULL;
    cJSON *root = cna__json_parse(data, size, &end);
    if (!root) {
        cna__free(&a, data);
        return cna__error(err, CNA_ERROR_PARSE, "%s: not valid JSON", path);
    }
    const cJSON *map = cJSON_GetObjectItemCaseSensitive(root, "map");
    if (!cJSON_IsObject(root) || !cJSON_IsObject(map)) {
        cJSON_Delete(root);
        cna__free(&a, data);
        return cna__error(err, CNA_ERROR_INVALID_DATA, "%s: expected {\"map\": {\"target joint\": \"source joint\" or "
                          "null, ...}}", path);
    }
    size_t count = 0, bytes = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, map) {
        if (!cJSON_IsString(it) && !cJSON_IsNull(it)) {
            cna_result rr = cna__error(err, CNA_ERROR_INVALID_DATA, "%s: map \"%.200s\": expected a source joint "
                                       "name or null", path, it->string);
            cJSON_Delete(root);
            cna__free(&a, data);
            return rr;
        }
        count++;
        bytes += strlen(it->string) + 1 + (cJSON_IsString(it) ? strlen(it->valuestring) + 1 : 0);
    }
    cna_retarget_map *m = (cna_retarget_map *)cna__calloc(&a, 1, sizeof *m);
    if (m) {
        m->allocator = a;
        m->pairs = (cna_retarget_pair *)cna__calloc(&a, count ? count : 1, sizeof *m->pairs);
        m->strings = (char *)cna__alloc(&a, bytes ? bytes : 1);
    }
    if (!m || !m->pairs || !m->strings) {
        cna_retarget_map_free(m);
        cJSON_Delete(root);
        cna__free(&a, data);
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
    }
    char *at = m->strings;
    cJSON_ArrayForEach(it, map) {
        size_t k = strlen(it->string) + 1;
        memcpy(at, it->string, k);
        m->pairs[m->count].target = at;
        at += k;
        if (cJSON_IsString(it)) {
            k = strlen(it->valuestring) + 1;
            memcpy(at, it->valuestring, k);
            m->pairs[m->count].source = at;
            at += k;
        }
        m->count++;
    }
    cJSON_Delete(root);
    cna__free(&a, data);
    *out = m;
    return CNA_OK;
}

/* ------------------------------------------------------------------ one skeleton */

/* Per bone of a model: reference local TRS (double), world rotation, world matrix. */
typedef struct skeleton {
    const cna_model *model;
    size_t n;
    double (*t)[3], (*s)[3];
    dq *r;            /* reference local rotations */
    dq *world_r;      /* reference world rotations */
    dm *world;        /* reference world transforms */
} skeleton;

static void skeleton_free(const cna_allocator *a, skeleton *k)
{
    cna__free(a, k->t);
    cna__free(a, k->s);
    cna__free(a, k->r);
    cna__free(a, k->world_r);
    cna__free(a, k->world);
    memset(k, 0, sizeof *k);
}

static void skeleton_worlds(skeleton *k)
{
    for (size_t b = 0; b < k->n; b++) {
        int32_t p = k->model->bones[b].parent;
        dm local;
        dm_compose(&local, k->t[b], k->r[b], k->s[b]);
        if (p < 0) {
            k->world[b] = local;
            k->world_r[b] = k->r[b];
        } else {
            dm_mul(&k->world[b], &k->world[p], &local);
            k->world_r[b] = dq_norm(dq_mul(k->world_r[p], k->r[b]));
        }
    }
}

static bool skeleton_init(const cna_allocator *a, const cna_model *m, skeleton *k)
{
    memset(k, 0, sizeof *k);
    k->model = m;
    k->n = m->bone_count;
    size_t n = k->n ? k->n : 1;
    k->t = (double(*)[3])cna__calloc(a, n, sizeof *k->t);
    k->s = (double(*)[3])cna__calloc(a, n, sizeof *k->s);
    k->r = (dq *)cna__calloc(a, n, sizeof *k->r);
    k->world_r = (dq *)cna__calloc(a, n, sizeof *k->world_r);
    k->world = (dm *)cna__calloc(a, n, sizeof *k->world);
    if (!k->t || !k->s || !k->r || !k->world_r || !k->world) return false;
    for (size_t b = 0; b < k->n; b++) {
        const cna_model_bone *bone = &m->bones[b];
        k->t[b][0] = bone->rest_translation.x;
        k->t[b][1] = bone->rest_translation.y;
        k->t[b][2] = bone->rest_translation.z;
        k->s[b][0] = bone->rest_scale.x;
        k->s[b][1] = bone->rest_scale.y;
        k->s[b][2] = bone->rest_scale.z;
        k->r[b] = dq_of(bone->rest_rotation);
    }
    skeleton_worlds(k);
    return true;
}

/* ------------------------------------------------------------------ retargeting one library */

typedef struct rt {
    cna__import_ctx *ctx;
    const cna_model *target;   /* the model bound to */
    const cna_model *source;   /* the library's own model */
    const char *path;
    cna_allocator alloc;
    skeleton tref, sref;
    int32_t *src_of;           /* target bone -> source bone, -1 */
    int32_t hips_t, hips_s;
    double ratio;
    cna_character *sc;         /* poses the source */
    /* per evaluation */
    dq *src_world;             /* source bones' posed world rotations */
    dq *out_r;                 /* target locals: rotation */
    double (*out_t)[3];        /* target locals: translation */
    dq *tw;                    /* target posed world rotations */
    dm *tm;                    /* target posed world transforms */
    size_t *tracked;           /* target bones that get a track */
    size_t tracked_count;
} rt;

static cna_result rt_oom(cna_error *err) { return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "retarget: out of memory"); }

/* The target locals at tick t of animation a (out_r, out_t of the tracked bones). */
static cna_result evaluate(rt *k, size_t a, int64_t t, cna_error *err)
{
    cna_result r = cna_character_seek_ticks(k->sc, t, err);
    if (r == CNA_OK) r = cna_character_pose(k->sc, err);
    if (r != CNA_OK) return r;
    (void)a;
    const cna_model *s = k->source;
    for (size_t b = 0; b < s->bone_count; b++) {
        cna_vec3 tt, ss;
        cna_quat q;
        cna_mat4_decompose(cna_character_bone_transform(k->sc, b), &tt, &q, &ss);
        dq l = dq_of(q);
        int32_t p = s->bones[b].parent;
        k->src_world[b] = p < 0 ? l : dq_norm(dq_mul(k->src_world[p], l));
    }
    double hips_pos[3] = {0, 0, 0};
    if (k->hips_s >= 0 && k->hips_t >= 0) {
        const cna_mat4 *w = cna_character_absolute_transform(k->sc, (size_t)k->hips_s);
        const double *ref = k->sref.world[k->hips_s].m + 12, *tref = k->tref.world[k->hips_t].m + 12;
        for (int i = 0; i < 3; i++) hips_pos[i] = tref[i] + k->ratio * ((double)w->m[12 + i] - ref[i]);
    }
    const cna_model *m = k->target;
    for (size_t b = 0; b < m->bone_count; b++) {
        int32_t p = m->bones[b].parent;
        int32_t src = k->src_of[b];
        dq parent_w = p < 0 ? (dq){0, 0, 0, 1} : k->tw[p];
        dq local;
        if (src >= 0) {
            dq world = dq_mul(dq_mul(k->src_world[src], dq_conj(k->sref.world_r[src])), k->tref.world_r[b]);
            local = dq_norm(dq_mul(dq_conj(parent_w), world));
        } else {
            local = k->tref.r[b];
        }
        k->tw[b] = dq_norm(dq_mul(parent_w, local));
        k->out_r[b] = local;
        for (int i = 0; i < 3; i++) k->out_t[b][i] = k->tref.t[b][i];
        if ((int32_t)b == k->hips_t && k->hips_s >= 0) {
            dm parent_m;
            if (p < 0) dm_identity(&parent_m);
            else parent_m = k->tm[p];
            double lt[3];
            if (dm_solve_point(&parent_m, hips_pos, lt))
                for (int i = 0; i < 3; i++) k->out_t[b][i] = lt[i];
        }
        dm lm;
        dm_compose(&lm, k->out_t[b], local, k->tref.s[b]);
        if (p < 0) k->tm[b] = lm;
        else dm_mul(&k->tm[b], &k->tm[p], &lm);
    }
    return CNA_OK;
}

/* One sample of every tracked bone's local: rotation (float, as keyed) and translation. */
typedef struct sample_set {
    int64_t tick;
    cna_quat *r;
    cna_vec3 *t;
} sample_set;

static void capture(const rt *k, sample_set *out)
{
    for (size_t i = 0; i < k->tracked_count; i++) {
        size_t b = k->tracked[i];
        dq q = k->out_r[b];
        out->r[i] = cna_quat_make((float)q.x, (float)q.y, (float)q.z, (float)q.w);
        out->t[i] = cna_vec3_make((float)k->out_t[b][0], (float)k->out_t[b][1], (float)k->out_t[b][2]);
    }
}

/* true when interpolating a and b at u strays from the evaluation now in k. */
static bool strays(const rt *k, const sample_set *a, const sample_set *b, float u, double tol_r, double tol_t)
{
    for (size_t i = 0; i < k->tracked_count; i++) {
        size_t bone = k->tracked[i];
        cna_quat q = cna_quat_slerp(a->r[i], b->r[i], u);
        if (dq_angle(dq_of(q), k->out_r[bone]) > tol_r) return true;
        cna_vec3 t = cna_vec3_lerp(a->t[i], b->t[i], u);
        double dx = (double)t.x - k->out_t[bone][0], dy = (double)t.y - k->out_t[bone][1],
               dz = (double)t.z - k->out_t[bone][2];
        if (sqrt(dx * dx + dy * dy + dz * dz) > tol_t) return true;
    }
    return false;
}

typedef struct tick_vec {
    int64_t *items;
    size_t count, cap;
} tick_vec;

static bool tick_push(const cna_allocator *a, tick_vec *v, int64_t t)
{
    if (v->count == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 64;
        int64_t *items = (int64_t *)cna__calloc(a, cap, sizeof *items);
        if (!items) return false;
        if (v->count) memcpy(items, v->items, v->count * sizeof *items);
        cna__free(a, v->items);
        v->items = items;
        v->cap = cap;
    }
    v->items[v->count++] = t;
    return true;
}

static int cmp_tick(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* The key times of source animation a: every key of every track, 0 and the duration. */
static bool source_ticks(rt *k, size_t a, tick_vec *v)
{
    const cna_model *s = k->source;
    int64_t duration = 0;
    for (size_t g = 0; g <= s->skin_count; g++) {
        const cna_clip *clip = g < s->skin_count ? &s->skins[g].data.clips[a] : &s->node_clips[a];
        if (clip->duration > duration) duration = clip->duration;
        for (size_t t = 0; t < clip->track_count; t++)
            for (size_t i = 0; i < clip->tracks[t].key_count; i++)
                if (!tick_push(&k->alloc, v, clip->tracks[t].keys[i].ticks)) return false;
    }
    if (!tick_push(&k->alloc, v, 0) || !tick_push(&k->alloc, v, duration)) return false;
    qsort(v->items, v->count, sizeof *v->items, cmp_tick);
    size_t out = 0;
    for (size_t i = 0; i < v->count; i++)
        if (out == 0 || v->items[i] != v->items[out - 1]) v->items[out++] = v->items[i];
    v->count = out;
    return true;
}

static int32_t palette_of(const cna_model_skin *s, int32_t bone)
{
    return s->node_to_palette ? s->node_to_palette[bone] : -1;
}

/* Scratch samples for the halving test. */
typedef struct refine_ctx {
    rt *k;
    size_t a;
    sample_set left, right;
    double tol_r, tol_t;
    tick_vec *added;
} refine_ctx;

/* true when the player's interpolation between the keys at t0 and t1 strays
 * from the formula at a quarter, half or three quarters of the way. */
static cna_result deviates(refine_ctx *c, int64_t t0, int64_t t1, bool *out, cna_error *err)
{
    cna_result r = evaluate(c->k, c->a, t0, err);
    if (r != CNA_OK) return r;
    capture(c->k, &c->left);
    if ((r = evaluate(c->k, c->a, t1, err)) != CNA_OK) return r;
    capture(c->k, &c->right);
    *out = false;
    for (int q = 1; q <= 3 && !*out; q++) {
        int64_t tq = t0 + (t1 - t0) * q / 4;
        if ((r = evaluate(c->k, c->a, tq, err)) != CNA_OK) return r;
        float u = (float)((double)(tq - t0) / (double)(t1 - t0));
        *out = strays(c->k, &c->left, &c->right, u, c->tol_r, c->tol_t);
    }
    return CNA_OK;
}

/* Halves [t0, t1] while it strays (at most `depth` more times), adding the midpoints. */
static cna_result refine(refine_ctx *c, int64_t t0, int64_t t1, int depth, cna_error *err)
{
    if (depth <= 0 || t1 - t0 < 2) return CNA_OK;
    bool bad = false;
    cna_result r = deviates(c, t0, t1, &bad, err);
    if (r != CNA_OK || !bad) return r;
    int64_t mid = t0 + (t1 - t0) / 2;
    if ((r = refine(c, t0, mid, depth - 1, err)) != CNA_OK) return r;
    if (!tick_push(&c->k->alloc, c->added, mid)) return rt_oom(err);
    return refine(c, mid, t1, depth - 1, err);
}

/* Bakes animation a into clip `slot` of the bound model. */
static cna_result bake(rt *k, size_t a, size_t slot, cna_clip *node_clips, cna_error *err)
{
    tick_vec base = {0}, keys = {0};
    cna_result r = CNA_OK;
    const size_t n = k->tracked_count;
    refine_ctx rc;
    memset(&rc, 0, sizeof rc);
    rc.k = k;
    rc.a = a;
    rc.tol_r = 1e-6;
    rc.tol_t = 1e-6 * (double)k->target->size;
    rc.added = &keys;
    rc.left.r = (cna_quat *)cna__calloc(&k->alloc, n ? n : 1, sizeof(cna_quat));
    rc.left.t = (cna_vec3 *)cna__calloc(&k->alloc, n ? n : 1, sizeof(cna_vec3));
    rc.right.r = (cna_quat *)cna__calloc(&k->alloc, n ? n : 1, sizeof(cna_quat));
    rc.right.t = (cna_vec3 *)cna__calloc(&k->alloc, n ? n : 1, sizeof(cna_vec3));
    cna_quat *all_r = NULL;
    cna_vec3 *all_t = NULL;
    if (!rc.left.r || !rc.left.t || !rc.right.r || !rc.right.t || !source_ticks(k, a, &base)) r = rt_oom(err);
    if (r == CNA_OK) r = cna_character_play(k->sc, (long)a, err);
    if (r == CNA_OK) r = cna_character_set_loop_mode(k->sc, CNA_LOOP_MODE_ONCE, err);
    for (size_t i = 0; i < base.count && r == CNA_OK; i++) {
        if (i > 0) r = refine(&rc, base.items[i - 1], base.items[i], 8, err);
        if (r == CNA_OK && !tick_push(&k->alloc, &keys, base.items[i])) r = rt_oom(err);
    }
    if (r == CNA_OK) qsort(keys.items, keys.count, sizeof *keys.items, cmp_tick);
    /* evaluate every key again in order and store the samples */
    if (r == CNA_OK) {
        size_t total = 0;
        if (!cna__mul_size(keys.count ? keys.count : 1, n ? n : 1, &total)) r = rt_oom(err);
        if (r == CNA_OK) {
            all_r = (cna_quat *)cna__calloc(&k->alloc, total, sizeof *all_r);
            all_t = (cna_vec3 *)cna__calloc(&k->alloc, total, sizeof *all_t);
            if (!all_r || !all_t) r = rt_oom(err);
        }
        for (size_t i = 0; i < keys.count && r == CNA_OK; i++) {
            r = evaluate(k, a, keys.items[i], err);
            sample_set s = {keys.items[i], all_r + i * n, all_t + i * n};
            if (r == CNA_OK) capture(k, &s);
        }
    }
    /* tracks: joints into their skins' clips (keys composed with the fold), other bones into the node clip */
    const cna_model *m = k->target;
    cna_model *out = &k->ctx->model->pub;
    for (size_t g = 0; g <= m->skin_count && r == CNA_OK; g++) {
        bool node_clip = g == m->skin_count;
        if (!node_clip) {
            size_t first = 0;
            while (first < g && m->skins[first].gltf_skin != m->skins[g].gltf_skin) first++;
            if (first != g) continue; /* the clip array is shared with the first placement */
        }
        size_t count = 0;
        for (size_t i = 0; i < n; i++) {
            int32_t b = (int32_t)k->tracked[i];
            bool joint = false;
            for (size_t s2 = 0; s2 < m->skin_count; s2++) joint = joint || palette_of(&m->skins[s2], b) >= 0;
            if (node_clip ? !joint : palette_of(&m->skins[g], b) >= 0) count++;
        }
        cna_bone_track *tracks = (cna_bone_track *)cna__arena_calloc(k->ctx->arena, count ? count : 1, sizeof *tracks);
        if (!tracks) { r = rt_oom(err); break; }
        size_t ti = 0;
        for (size_t i = 0; i < n && r == CNA_OK; i++) {
            int32_t b = (int32_t)k->tracked[i];
            bool joint = false;
            for (size_t s2 = 0; s2 < m->skin_count; s2++) joint = joint || palette_of(&m->skins[s2], b) >= 0;
            int32_t index = node_clip ? (joint ? -1 : b) : palette_of(&m->skins[g], b);
            if (index < 0) continue;
            cna_keyframe *kf = (cna_keyframe *)cna__arena_calloc(k->ctx->arena, keys.count ? keys.count : 1, sizeof *kf);
            if (!kf) { r = rt_oom(err); break; }
            const cna_mat4 *fold = node_clip ? NULL : &m->skins[g].fold[index];
            bool use_fold = fold && !cna_mat4_is_identity(fold);
            const cna_vec3 scale = m->bones[b].rest_scale;
            int32_t gn = m->bones[b].gltf_node;
            for (size_t q = 0; q < keys.count; q++) {
                kf[q] = cna_keyframe_make_trs(keys.items[q], all_t[q * n + i], all_r[q * n + i], scale);
                double ks = fabs((double)scale.x);
                if (!(fabs((double)scale.y) <= ks)) ks = fabs((double)scale.y);
                if (!(fabs((double)scale.z) <= ks)) ks = fabs((double)scale.z);
                const cna_vec3 tv = kf[q].translation;
                double kt = sqrt((double)tv.x * tv.x + (double)tv.y * tv.y + (double)tv.z * tv.z);
                if (!(ks <= k->ctx->node_key_scale[gn])) k->ctx->node_key_scale[gn] = ks;
                if (!(kt <= k->ctx->node_key_translation[gn])) k->ctx->node_key_translation[gn] = kt;
                if (use_fold) {
                    cna_mat4 local, folded;
                    cna_mat4_compose(&local, kf[q].translation, kf[q].rotation, kf[q].scale);
                    cna_mat4_mul(&folded, fold, &local);
                    cna_mat4_decompose(&folded, &kf[q].translation, &kf[q].rotation, &kf[q].scale);
                }
            }
            tracks[ti++] = cna_bone_track_make(index, kf, keys.count);
        }
        if (r != CNA_OK) break;
        const cna_clip *src_clip = k->source->skin_count ? &k->source->skins[0].data.clips[a] : &k->source->node_clips[a];
        int64_t duration = k->source->node_clips[a].duration;
        if (src_clip->duration > duration) duration = src_clip->duration;
        cna_clip clip = cna_clip_make(cna_model_animation_name(k->source, a), duration, tracks, ti);
        clip.name = cna__arena_strdup(k->ctx->arena, clip.name);
        if (!clip.name) { r = rt_oom(err); break; }
        if (node_clip) {
            clip.target = CNA_CLIP_TARGET_SCENE_NODE;
            node_clips[slot] = clip;
        } else {
            clip.target = CNA_CLIP_TARGET_JOINT_PALETTE;
            ((cna_clip *)out->skins[g].data.clips)[slot] = clip;
        }
    }
    cna__free(&k->alloc, base.items);
    cna__free(&k->alloc, keys.items);
    cna__free(&k->alloc, rc.left.r);
    cna__free(&k->alloc, rc.left.t);
    cna__free(&k->alloc, rc.right.r);
    cna__free(&k->alloc, rc.right.t);
    cna__free(&k->alloc, all_r);
    cna__free(&k->alloc, all_t);
    return r;
}

/* Reference alignment: parent first, a mapped node with exactly one mapped
 * child turns by the smallest rotation that makes its direction toward that
 * child equal the source reference's (model space). */
static void align(rt *k)
{
    const cna_model *m = k->target;
    for (size_t b = 0; b < m->bone_count; b++) {
        int32_t p = m->bones[b].parent;
        /* this bone's world from its (possibly turned) parent */
        dm local;
        dm_compose(&local, k->tref.t[b], k->tref.r[b], k->tref.s[b]);
        if (p < 0) {
            k->tref.world[b] = local;
            k->tref.world_r[b] = k->tref.r[b];
        } else {
            dm_mul(&k->tref.world[b], &k->tref.world[p], &local);
            k->tref.world_r[b] = dq_norm(dq_mul(k->tref.world_r[p], k->tref.r[b]));
        }
        if (k->src_of[b] < 0) continue;
        int32_t child = -1;
        size_t mapped_children = 0;
        for (size_t c = b + 1; c < m->bone_count; c++)
            if (m->bones[c].parent == (int32_t)b && k->src_of[c] >= 0) {
                mapped_children++;
                child = (int32_t)c;
            }
        if (mapped_children != 1) continue;
        /* the child's position under the current world of b */
        dm cl, cw;
        dm_compose(&cl, k->tref.t[child], k->tref.r[child], k->tref.s[child]);
        dm_mul(&cw, &k->tref.world[b], &cl);
        double dt[3], ds[3];
        const double *sb = k->sref.world[k->src_of[b]].m + 12, *sc = k->sref.world[k->src_of[child]].m + 12;
        for (int i = 0; i < 3; i++) {
            dt[i] = cw.m[12 + i] - k->tref.world[b].m[12 + i];
            ds[i] = sc[i] - sb[i];
        }
        dq turn = dq_between(dt, ds);
        dq parent_w = p < 0 ? (dq){0, 0, 0, 1} : k->tref.world_r[p];
        /* new world rotation turn · world_r(b); local = inverse(parent) · that */
        k->tref.r[b] = dq_norm(dq_mul(dq_conj(parent_w), dq_mul(turn, k->tref.world_r[b])));
        dm_compose(&local, k->tref.t[b], k->tref.r[b], k->tref.s[b]);
        if (p < 0) k->tref.world[b] = local;
        else dm_mul(&k->tref.world[b], &k->tref.world[p], &local);
        k->tref.world_r[b] = dq_norm(dq_mul(parent_w, k->tref.r[b]));
    }
}

static int32_t find_bone_exact(const cna_model *m, const char *name)
{
    return name && name[0] ? cna_model_find_bone(m, name) : -1;
}

static int32_t find_hips(const cna_model *m, const int32_t *mapped)
{
    int32_t found = -1;
    for (size_t b = 0; b < m->bone_count && found < 0; b++)
        if ((!mapped || mapped[b] >= 0) && cna__retarget_is_hips(m->bones[b].name)) found = (int32_t)b;
    return found;
}

void cna__name_list_add(cna__name_list *l, const char *name)
{
    size_t len = strlen(l->text);
    if (l->shown < 12 && len + strlen(name) + 8 < sizeof l->text) {
        snprintf(l->text + len, sizeof l->text - len, "%s\"%s\"", l->shown ? ", " : "", name);
        l->shown++;
    }
    l->count++;
}

const char *cna__name_list_tail(const cna__name_list *l, char *buf, size_t size)
{
    if (l->count > l->shown) snprintf(buf, size, " and %zu more", l->count - l->shown);
    else buf[0] = '\0';
    return buf;
}

cna_result cna__retarget_library(cna__import_ctx *ctx, const cna_model *target, const cna_gltf_document *doc,
                                 const cna_model *given, const char *path, const cna_bind_options *o, size_t first,
                                 cna_clip *node_clips, cna_error *err)
{
    rt k;
    memset(&k, 0, sizeof k);
    k.ctx = ctx;
    k.target = target;
    k.path = path;
    k.alloc = ctx->allocator;
    cna_import_options io;
    memset(&io, 0, sizeof io);
    io.allocator = ctx->allocator;
    io.clip_mode = target->clip_mode;
    io.split_palettes = true;
    cna_model *source = NULL;
    cna_result r = doc ? cna_model_import_gltf(doc, &io, &source, err) : CNA_OK;
    if (r != CNA_OK) {
        cna__error_prefix(err, "%s", path);
        return r;
    }
    k.source = doc ? source : given;
    const cna_model *src_model = k.source;
    const size_t nt = target->bone_count ? target->bone_count : 1, ns = src_model->bone_count ? src_model->bone_count : 1;
    k.src_of = (int32_t *)cna__calloc(&k.alloc, nt, sizeof *k.src_of);
    k.src_world = (dq *)cna__calloc(&k.alloc, ns, sizeof *k.src_world);
    k.out_r = (dq *)cna__calloc(&k.alloc, nt, sizeof *k.out_r);
    k.out_t = (double(*)[3])cna__calloc(&k.alloc, nt, sizeof *k.out_t);
    k.tw = (dq *)cna__calloc(&k.alloc, nt, sizeof *k.tw);
    k.tm = (dm *)cna__calloc(&k.alloc, nt, sizeof *k.tm);
    k.tracked = (size_t *)cna__calloc(&k.alloc, nt, sizeof *k.tracked);
    if (!k.src_of || !k.src_world || !k.out_r || !k.out_t || !k.tw || !k.tm || !k.tracked ||
        !skeleton_init(&k.alloc, target, &k.tref) || !skeleton_init(&k.alloc, src_model, &k.sref))
        r = rt_oom(err);
    /* the joint map: exact names, then the user's map over them, then the alias table */
    cna__name_list bad_sources, unknown_targets, unmatched;
    memset(&bad_sources, 0, sizeof bad_sources);
    memset(&unknown_targets, 0, sizeof unknown_targets);
    memset(&unmatched, 0, sizeof unmatched);
    uint8_t *by_user = NULL;
    if (r == CNA_OK) {
        by_user = (uint8_t *)cna__calloc(&k.alloc, nt, 1);
        if (!by_user) r = rt_oom(err);
    }
    for (size_t b = 0; r == CNA_OK && b < target->bone_count; b++)
        k.src_of[b] = find_bone_exact(src_model, target->bones[b].name);
    for (size_t i = 0; r == CNA_OK && i < o->retarget_map_count; i++) {
        const cna_retarget_pair *pr = &o->retarget_map[i];
        if (!pr->target) continue;
        int32_t tb = find_bone_exact(target, pr->target);
        int32_t sb = pr->source ? find_bone_exact(src_model, pr->source) : -1;
        if (pr->source && sb < 0) cna__name_list_add(&bad_sources, pr->source);
        if (tb < 0) {
            cna__name_list_add(&unknown_targets, pr->target);
            continue;
        }
        k.src_of[tb] = sb;
        by_user[tb] = 1;
    }
    if (r == CNA_OK && bad_sources.count) {
        char more[48];
        r = cna__error(err, CNA_ERROR_INVALID_DATA, "retarget map: %zu source joint(s) are not in %s: %s%s",
                       bad_sources.count, path, bad_sources.text, cna__name_list_tail(&bad_sources, more, sizeof more));
    }
    if (r == CNA_OK) {
        char key[96], key2[96];
        for (size_t b = 0; b < target->bone_count; b++) {
            if (k.src_of[b] >= 0 || by_user[b]) continue;
            if (!cna__retarget_canonical(target->bones[b].name, key, sizeof key)) continue;
            for (size_t s = 0; s < src_model->bone_count; s++)
                if (cna__retarget_canonical(src_model->bones[s].name, key2, sizeof key2) && strcmp(key, key2) == 0) {
                    k.src_of[b] = (int32_t)s;
                    break;
                }
        }
    }
    /* hips */
    if (r == CNA_OK) {
        k.hips_t = o->retarget_hips ? find_bone_exact(target, o->retarget_hips) : find_hips(target, k.src_of);
        if (k.hips_t < 0 && !o->retarget_hips) {
            /* no hips by name: the joint mapped to the library's hips */
            int32_t sh = find_hips(src_model, NULL);
            for (size_t b = 0; sh >= 0 && b < target->bone_count && k.hips_t < 0; b++)
                if (k.src_of[b] == sh) k.hips_t = (int32_t)b;
        }
        if (o->retarget_hips && k.hips_t < 0)
            r = cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "retarget: the model has no node named \"%s\" (hips)",
                           o->retarget_hips);
    }
    if (r == CNA_OK) {
        k.hips_s = k.hips_t >= 0 ? k.src_of[k.hips_t] : -1;
        if (k.hips_s < 0) k.hips_s = find_hips(src_model, NULL);
        k.ratio = 1.0;
        if (k.hips_t >= 0 && k.hips_s >= 0) {
            double hs = k.sref.world[k.hips_s].m[13];
            if (o->retarget_align) align(&k);
            double ht = k.tref.world[k.hips_t].m[13];
            if (fabs(hs) > 1e-12) k.ratio = ht / hs;
        } else if (o->retarget_align) {
            align(&k);
        }
    }
    /* tracked bones: mapped ones and the hips */
    size_t mapped = 0;
    for (size_t b = 0; r == CNA_OK && b < target->bone_count; b++) {
        if (k.src_of[b] >= 0 || (int32_t)b == k.hips_t) k.tracked[k.tracked_count++] = b;
        if (k.src_of[b] >= 0) mapped++;
        else if (target->bones[b].name[0]) cna__name_list_add(&unmatched, target->bones[b].name);
    }
    if (r == CNA_OK && mapped == 0) {
        r = cna__error(err, CNA_ERROR_INVALID_DATA, "%s: retarget: no node of the model maps to a node of the "
                       "library's skeleton (by name, the map or the humanoid names)", path);
    }
    cna_character_options co;
    memset(&co, 0, sizeof co);
    co.allocator = ctx->allocator;
    co.layer_count = 1;
    if (r == CNA_OK) r = cna_character_create(src_model, &co, &k.sc, err);
    for (size_t a = 0; r == CNA_OK && a < src_model->animation_count; a++) r = bake(&k, a, first + a, node_clips, err);
    if (r == CNA_OK) {
        char msg[700], more[48];
        if (unknown_targets.count) {
            snprintf(msg, sizeof msg, "retarget map: %zu target joint(s) are not in the model: %s%s; ignored",
                     unknown_targets.count, unknown_targets.text, cna__name_list_tail(&unknown_targets, more, sizeof more));
            if (!cna__model_diag_n(ctx->model, CNA_MODEL_DIAG_RETARGET_MAP_UNUSED, unknown_targets.count, msg))
                r = rt_oom(err);
        }
        if (r == CNA_OK && unmatched.count) {
            snprintf(msg, sizeof msg, "%s: %zu node(s) of the model have no source joint: %s%s; they keep their "
                     "reference pose", path, unmatched.count, unmatched.text, cna__name_list_tail(&unmatched, more, sizeof more));
            if (!cna__model_diag_n(ctx->model, CNA_MODEL_DIAG_RETARGET_UNMAPPED, unmatched.count, msg)) r = rt_oom(err);
        }
        if (r == CNA_OK) {
            snprintf(msg, sizeof msg, "%s: hips \"%s\" -> \"%s\", height ratio %.9g", path,
                     k.hips_t >= 0 ? target->bones[k.hips_t].name : "(none)",
                     k.hips_s >= 0 ? src_model->bones[k.hips_s].name : "(none)", k.ratio);
            if (!cna__model_diag_n(ctx->model, CNA_MODEL_DIAG_RETARGET_HIPS, 1, msg)) r = rt_oom(err);
        }
    }
    cna_character_free(k.sc);
    skeleton_free(&k.alloc, &k.tref);
    skeleton_free(&k.alloc, &k.sref);
    cna__free(&k.alloc, by_user);
    cna__free(&k.alloc, k.src_of);
    cna__free(&k.alloc, k.src_world);
    cna__free(&k.alloc, k.out_r);
    cna__free(&k.alloc, k.out_t);
    cna__free(&k.alloc, k.tw);
    cna__free(&k.alloc, k.tm);
    cna__free(&k.alloc, k.tracked);
    cna_model_free(source);
    if (r != CNA_OK && err && strncmp(err->message, path, strlen(path)) != 0 &&
        strncmp(err->message, "retarget", 8) != 0)
        cna__error_prefix(err, "%s", path);
    return r;
}
