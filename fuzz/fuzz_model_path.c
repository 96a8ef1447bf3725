/*
 * fuzz/fuzz_model_path.c — libFuzzer harness over the whole path from bytes
 * to a drawn pose.
 *
 * One input is one .glb or .gltf file. It goes through every stage a program
 * uses, and each stage's promises are checked:
 *   1. cna_gltf_load_memory, without a resolver (only GLB chunks and data:
 *      URIs; nothing is read from the file system);
 *   2. cna_model_import_gltf, in the faithful or the union clip mode (the
 *      lowest bit of the input's last byte chooses);
 *   3. every animation (and the rest pose) posed at hostile times: NaN,
 *      +-inf, +-1e300, -0.0, 0, the duration, the duration +- 1 tick, and
 *      doubles taken from the input. A NaN pose must be refused with
 *      CNA_ERROR_INVALID_ARGUMENT and change nothing; any other pose of an
 *      imported model must succeed. A cna_player per skin is seeked to the
 *      same times (and to extreme tick counts, clamped and looping) and, not
 *      looping, must give the palette of a character in ONCE mode (its clock clamped
 *      to the clip) bit for bit;
 *   4. every skinned part skinned on the CPU with the posed palette by
 *      cna_skin_vertices, cna_skin_vertices_fast and cna_skin_positions: all
 *      three accept or refuse alike, and the positions equal the reference's
 *      bit for bit;
 *   5. the model written with cna_cnb_write_memory, loaded back with
 *      cna_cnb_load_memory, and both posed side by side at the same times:
 *      palettes, absolute bone transforms, morph weights and blended vertex
 *      bytes must be equal bit for bit;
 *   6. every skin's skeleton written with cna_cnj_write_memory and read back
 *      with cna_cnj_read_memory: the same bits, and the same bind-pose palette
 *      from a player.
 * Errors of the reader and the importer are fine (the input is hostile);
 * crashes, sanitizer reports, leaks and broken promises are findings (a
 * broken promise calls abort(), which libFuzzer reports with the input).
 * Inputs whose model is too large to pose quickly (see the FUZZ_MAX_* limits)
 * stop after the import, so that every input is cheap.
 *
 * Build: see fuzz/CMakeLists.txt. Run: scripts/fuzz-smoke.sh, or
 *   build-fuzz/fuzz/fuzz_model_path -dict=fuzz/gltf.dict CORPUS_DIR SEED_DIR...
 */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cna/cna.h"
#include "fuzz_common.h"

/* Inputs beyond these stop after the import. */
#define FUZZ_MAX_VERTICES 100000      /* vertices of all parts together */
#define FUZZ_MAX_ANIMATIONS 64
#define FUZZ_MAX_POSE_WORK 4000000    /* (animations + 1) x (vertices + morph deltas + bones) */
#define FUZZ_MAX_JOINT_POSES 2000     /* (animations + 1) x the joints of all skins */
#define FUZZ_MAX_SKINNED 250000       /* vertices skinned per input (then skinning stops) */

#define FUZZ_MAX_TIMES 20

static void finding(void) { abort(); }

/* ------------------------------------------------------------------ posing
 * The whole-model posing API in one place: select an animation (-1: rest),
 * pose at a time, read a skin's palette, the absolute bone transforms and a
 * part's morph weights. */

typedef cna_character fuzz_poser;

/* A character of m that clamps its clock to [0, duration] (ONCE mode): a
 * pose at any time is the clip's pose at the clamped time. */
static fuzz_poser *poser_create(const cna_model *m)
{
    cna_character *c = NULL;
    if (cna_character_create(m, NULL, &c, NULL) != CNA_OK) return NULL;
    if (cna_character_set_loop_mode(c, CNA_LOOP_MODE_ONCE, NULL) != CNA_OK) finding();
    return c;
}

static void poser_free(fuzz_poser *p) { cna_character_free(p); }

static cna_result poser_select(fuzz_poser *p, long animation, cna_error *err)
{
    return cna_character_play(p, animation, err);
}

/* Seek and pose; a refused seek (NaN) poses nothing. */
static cna_result poser_pose(fuzz_poser *p, double seconds, cna_error *err)
{
    cna_result r = cna_character_seek(p, seconds, err);
    return r ? r : cna_character_pose(p, err);
}

static const cna_mat4 *poser_palette(const fuzz_poser *p, size_t skin)
{
    return cna_character_skin_transforms(p, skin);
}

/* Every bone's absolute transform, copied into `out` (bone_count entries). */
static void poser_absolute(const fuzz_poser *p, cna_mat4 *out, size_t count)
{
    if (cna_character_copy_absolute_transforms(p, out, count, NULL) != CNA_OK) abort();
}

static const float *poser_weights(const fuzz_poser *p, size_t mesh, size_t part, size_t *count)
{
    return cna_character_morph_weights(p, mesh, part, count);
}

static const void *poser_vertices(const fuzz_poser *p, size_t mesh, size_t part, size_t *size)
{
    return cna_character_part_vertices(p, mesh, part, size);
}

/* ------------------------------------------------------------------ times */

typedef struct fuzz_times {
    double t[FUZZ_MAX_TIMES];
    size_t count;
} fuzz_times;

static void add_time(fuzz_times *ts, double t)
{
    if (ts->count < FUZZ_MAX_TIMES) ts->t[ts->count++] = t;
}

/* The hostile times of an animation of `duration` ticks. */
static fuzz_times make_times(int64_t duration, const uint8_t *data, size_t size)
{
    fuzz_times ts = {{0}, 0};
    const double d = cna_ticks_to_seconds(duration);
    add_time(&ts, NAN);
    add_time(&ts, INFINITY);
    add_time(&ts, -INFINITY);
    add_time(&ts, 1e300);
    add_time(&ts, -1e300);
    add_time(&ts, -0.0);
    add_time(&ts, 0.0);
    add_time(&ts, d);
    if (duration > INT64_MIN) add_time(&ts, cna_ticks_to_seconds(duration - 1));
    if (duration < INT64_MAX) add_time(&ts, cna_ticks_to_seconds(duration + 1));
    add_time(&ts, d * 0.5);
    if (size >= 16) {
        /* The input's last 16 bytes as two doubles, and a fraction of the duration. */
        double a, b;
        memcpy(&a, data + size - 16, 8);
        memcpy(&b, data + size - 8, 8);
        add_time(&ts, a);
        add_time(&ts, b);
        add_time(&ts, d * (double)data[size - 9] / 255.0);
    }
    add_time(&ts, d); /* back to the end after a jump backwards */
    return ts;
}

/* ------------------------------------------------------------------ players */

/* One player per skin, playing the skin's clip of the current animation. */
typedef struct fuzz_players {
    cna_player **p;
    size_t count;
} fuzz_players;

static bool players_create(const cna_model *m, fuzz_players *out)
{
    out->count = m->skin_count;
    out->p = calloc(m->skin_count ? m->skin_count : 1, sizeof *out->p);
    if (!out->p) return false;
    for (size_t s = 0; s < m->skin_count; s++)
        if (cna_player_create(&m->skins[s].data, NULL, &out->p[s], NULL) != CNA_OK) return false;
    return true;
}

static void players_free(fuzz_players *ps)
{
    for (size_t s = 0; ps->p && s < ps->count; s++) cna_player_free(ps->p[s]);
    free(ps->p);
}

static void players_start(const cna_model *m, fuzz_players *ps, long animation)
{
    for (size_t s = 0; s < ps->count; s++) {
        const cna_skinning_data *d = &m->skins[s].data;
        const cna_clip *clip = animation >= 0 && (size_t)animation < d->clip_count ? &d->clips[animation] : NULL;
        cna_result r = clip ? cna_player_start_clip(ps->p[s], clip, NULL) : cna_player_stop(ps->p[s], NULL);
        if (r != CNA_OK) finding();
    }
}

/* Seek every player to `seconds` without looping: the palette must be the
 * character's (in ONCE mode it seeks its own players the same way, after
 * clamping, and hands a skin whose root prefix moves with the posed scene
 * that prefix); then looping. */
static void players_check(const cna_model *m, fuzz_players *ps, const fuzz_poser *poser,
                          double seconds)
{
    for (size_t s = 0; s < ps->count; s++) {
        cna_player *p = ps->p[s];
        const cna_mat4 *prefix =
            cna_character_skin_has_moving_prefix(poser, s) ? cna_character_root_prefixes(poser, s) : NULL;
        if (cna_player_set_root_prefix(p, prefix, m->skins[s].joint_count, NULL) != CNA_OK) finding();
        if (cna_player_update_seconds(p, seconds, false, false, NULL) != CNA_OK) finding();
        const size_t n = m->skins[s].joint_count;
        if (!same_bits(cna_player_skin_transforms(p), poser_palette(poser, s), n * sizeof(cna_mat4)))
            finding();
        if (cna_player_update_seconds(p, seconds, false, true, NULL) != CNA_OK) finding();
    }
}

/* The extreme tick counts, relative and absolute, looping and clamped. */
static void players_extremes(fuzz_players *ps)
{
    for (size_t s = 0; s < ps->count; s++) {
        cna_player *p = ps->p[s];
        const cna_clip *clip = cna_player_current_clip(p);
        const int64_t d = clip ? clip->duration : 0;
        if (cna_player_update(p, INT64_MAX, true, true, NULL) != CNA_OK ||
            cna_player_update(p, INT64_MIN, false, true, NULL) != CNA_OK ||
            cna_player_update(p, d > INT64_MIN ? d - 1 : d, false, true, NULL) != CNA_OK ||
            cna_player_update(p, 1, true, true, NULL) != CNA_OK ||
            cna_player_update(p, INT64_MIN, true, false, NULL) != CNA_OK ||
            cna_player_update(p, INT64_MAX, false, false, NULL) != CNA_OK)
            finding();
        if (cna_player_position(p) != (d > 0 ? d : 0)) finding(); /* clamped to the end */
    }
}

/* ------------------------------------------------------------------ skinning */

typedef struct fuzz_scratch {
    unsigned char *ref, *fast;
    float *xyz;
    size_t skinned;  /* vertices skinned so far (bounded by FUZZ_MAX_SKINNED) */
} fuzz_scratch;

static void skin_part(const cna_model_part *part, const void *v, size_t size, const cna_mat4 *palette,
                      size_t palette_count, fuzz_scratch *sc)
{
    cna_skinning_layout layout;
    if (cna_skinning_layout_canonical(part->declaration.stride, &layout, NULL) != CNA_OK) return;
    const size_t n = part->vertex_count;
    if (size != n * layout.stride) finding();
    sc->skinned += n;
    cna_error e1, e2, e3;
    cna_result r1 = cna_skin_vertices(&layout, v, n, palette, palette_count, sc->ref, size, &e1);
    cna_result r2 = cna_skin_vertices_fast(&layout, v, n, palette, palette_count, sc->fast, size, &e2);
    cna_result r3 = cna_skin_positions(&layout, v, n, palette, palette_count, sc->xyz, 3 * n, &e3);
    if (r1 != r2 || r1 != r3) finding();
    if (r1 != CNA_OK) {
        if (strcmp(e1.message, e2.message) != 0) finding(); /* the same refusal */
        return;
    }
    for (size_t i = 0; i < n; i++)
        if (!same_bits(sc->ref + i * layout.stride + (size_t)layout.position_offset, sc->xyz + 3 * i,
                       3 * sizeof(float)))
            finding();
}

static void skin_model(const cna_model *m, const fuzz_poser *poser, fuzz_scratch *sc)
{
    for (size_t i = 0; i < m->mesh_count; i++) {
        const cna_model_mesh *mesh = &m->meshes[i];
        if (mesh->skin < 0) continue;
        if ((size_t)mesh->skin >= m->skin_count) finding();
        const cna_mat4 *palette = poser_palette(poser, (size_t)mesh->skin);
        for (size_t k = 0; k < mesh->part_count && sc->skinned < FUZZ_MAX_SKINNED; k++) {
            size_t size = 0;
            const void *v = poser_vertices(poser, i, k, &size);
            skin_part(&mesh->parts[k], v, size, palette, m->skins[mesh->skin].joint_count, sc);
        }
    }
}

/* ------------------------------------------------------------------ the model's state */

static size_t absolute_bytes(const cna_model *m) { return m->bone_count * sizeof(cna_mat4); }

/* Everything a pose sets, compared between two posers of equal models. */
static void compare_poses(const cna_model *a, const fuzz_poser *pa, const fuzz_poser *pb)
{
    cna_mat4 *xa = malloc(absolute_bytes(a) + 1), *xb = malloc(absolute_bytes(a) + 1);
    if (xa && xb) {
        poser_absolute(pa, xa, a->bone_count);
        poser_absolute(pb, xb, a->bone_count);
        if (!same_bits(xa, xb, absolute_bytes(a))) finding();
    }
    free(xa);
    free(xb);
    for (size_t s = 0; s < a->skin_count; s++)
        if (!same_bits(poser_palette(pa, s), poser_palette(pb, s), a->skins[s].joint_count * sizeof(cna_mat4)))
            finding();
    for (size_t i = 0; i < a->mesh_count; i++)
        for (size_t k = 0; k < a->meshes[i].part_count; k++) {
            size_t na = 0, nb = 0, sa = 0, sb = 0;
            const float *wa = poser_weights(pa, i, k, &na), *wb = poser_weights(pb, i, k, &nb);
            if (na != nb || !same_bits(wa, wb, na * sizeof(float))) finding();
            const void *va = poser_vertices(pa, i, k, &sa);
            const void *vb = poser_vertices(pb, i, k, &sb);
            if (sa != sb || !same_bits(va, vb, sa)) finding();
        }
}

/* The shape a .cnb round trip must keep before poses can be compared. */
static void compare_shapes(const cna_model *a, const cna_model *b)
{
    if (a->bone_count != b->bone_count || a->skin_count != b->skin_count ||
        a->mesh_count != b->mesh_count || a->animation_count != b->animation_count)
        finding();
    for (size_t s = 0; s < a->skin_count; s++)
        if (a->skins[s].joint_count != b->skins[s].joint_count) finding();
    for (size_t i = 0; i < a->mesh_count; i++)
        if (a->meshes[i].part_count != b->meshes[i].part_count) finding();
}

/* ------------------------------------------------------------------ the stages */

/* Stage 3 and 4: every animation at every time, with the players and skinning. */
static void pose_everything(cna_model *m, fuzz_poser *poser, fuzz_players *ps, fuzz_scratch *sc,
                            const uint8_t *data, size_t size)
{
    for (long anim = -1; anim < (long)m->animation_count; anim++) {
        if (poser_select(poser, anim, NULL) != CNA_OK) finding();
        players_start(m, ps, anim);
        const int64_t d = anim >= 0 ? m->node_clips[anim].duration : 0;
        const fuzz_times ts = make_times(d, data, size);
        for (size_t i = 0; i < ts.count; i++) {
            cna_error err;
            const double t = ts.t[i];
            if (isnan(t)) {
                /* Refused, and nothing changes. */
                cna_mat4 *before = malloc(absolute_bytes(m) + 1), *after = malloc(absolute_bytes(m) + 1);
                if (!before || !after) {
                    free(before);
                    free(after);
                    continue;
                }
                poser_absolute(poser, before, m->bone_count);
                if (poser_pose(poser, t, &err) != CNA_ERROR_INVALID_ARGUMENT) finding();
                poser_absolute(poser, after, m->bone_count);
                if (!same_bits(before, after, absolute_bytes(m))) finding();
                free(before);
                free(after);
                continue;
            }
            if (poser_pose(poser, t, &err) != CNA_OK) finding(); /* an imported model always poses */
            players_check(m, ps, poser, t);
            skin_model(m, poser, sc);
        }
        players_extremes(ps);
    }
}

/* Stage 5: write, reload, pose both side by side. */
static void check_cnb(cna_model *m, fuzz_poser *poser, const uint8_t *data, size_t size)
{
    void *bytes = NULL;
    size_t n = 0;
    cna_error err;
    cna_result r = cna_cnb_write_memory(m, NULL, &bytes, &n, &err);
    if (r == CNA_ERROR_OUT_OF_MEMORY) return;
    if (r != CNA_OK) finding();
    cna_model *again = NULL;
    r = cna_cnb_load_memory(bytes, n, NULL, &again, &err);
    cna_cnb_bytes_free(NULL, bytes);
    if (r == CNA_ERROR_OUT_OF_MEMORY) return;
    if (r != CNA_OK) finding();
    compare_shapes(m, again);
    fuzz_poser *other = poser_create(again);
    if (!other) finding();
    /* Both at rest first: a refused (NaN) pose keeps the previous one. */
    if (poser_select(poser, -1, NULL) != CNA_OK || poser_pose(poser, 0.0, NULL) != CNA_OK ||
        poser_pose(other, 0.0, NULL) != CNA_OK)
        finding();
    compare_poses(m, poser, other);
    for (long anim = -1; anim < (long)m->animation_count; anim++) {
        if (poser_select(poser, anim, NULL) != CNA_OK || poser_select(other, anim, NULL) != CNA_OK)
            finding();
        if (cna_character_duration(poser) != cna_character_duration(other)) finding();
        const int64_t d = anim >= 0 ? m->node_clips[anim].duration : 0;
        const fuzz_times ts = make_times(d, data, size);
        for (size_t i = 0; i < ts.count; i++) {
            cna_result ra = poser_pose(poser, ts.t[i], &err);
            cna_result rb = poser_pose(other, ts.t[i], &err);
            if (ra != rb) finding();
            compare_poses(m, poser, other);
        }
    }
    poser_free(other);
    cna_model_free(again);
}

/* The bind-pose palette of a fresh player for `data` into out (n matrices). */
static bool bind_palette(const cna_skinning_data *data, cna_mat4 *out, size_t n)
{
    cna_player *p = NULL;
    if (cna_player_create(data, NULL, &p, NULL) != CNA_OK) return false;
    memcpy(out, cna_player_skin_transforms(p), n * sizeof *out);
    cna_player_free(p);
    return true;
}

/* Stage 6: every skin's skeleton through a .cnj sidecar. */
static void check_cnj(const cna_model *m)
{
    for (size_t s = 0; s < m->skin_count; s++) {
        const cna_skinning_data *d = &m->skins[s].data;
        char *text = NULL;
        size_t n = 0;
        cna_error err;
        cna_result r = cna_cnj_write_memory(d, NULL, &text, &n, &err);
        if (r == CNA_ERROR_OUT_OF_MEMORY) continue;
        if (r != CNA_OK) finding(); /* an imported skin validates */
        cna_cnj_skeleton *skel = NULL;
        r = cna_cnj_read_memory(text, n, NULL, &skel, &err);
        cna_cnj_text_free(NULL, text);
        if (r == CNA_ERROR_OUT_OF_MEMORY) continue;
        if (r != CNA_OK) finding(); /* what the writer wrote reads back */
        const cna_skinning_data *e = cna_cnj_skeleton_data(skel);
        const size_t bones = (size_t)d->bone_count;
        if (e->bone_count != d->bone_count || e->clip_count != 0 ||
            !same_bits(e->bind_pose, d->bind_pose, bones * sizeof(cna_mat4)) ||
            !same_bits(e->inverse_bind_pose, d->inverse_bind_pose, bones * sizeof(cna_mat4)))
            finding();
        for (size_t b = 0; b < bones; b++)
            if ((d->hierarchy[b] < 0 ? -1 : d->hierarchy[b]) != e->hierarchy[b]) finding();
        if (d->root_prefix_count == bones && bones > 0) {
            if (e->root_prefix_count != bones ||
                !same_bits(e->root_prefix, d->root_prefix, bones * sizeof(cna_mat4)))
                finding();
        } else if (e->root_prefix_count != 0) {
            finding();
        }
        cna_mat4 *pa = malloc((bones ? bones : 1) * sizeof *pa), *pb = malloc((bones ? bones : 1) * sizeof *pb);
        if (pa && pb && bind_palette(d, pa, bones) && bind_palette(e, pb, bones) &&
            !same_bits(pa, pb, bones * sizeof *pa))
            finding();
        free(pa);
        free(pb);
        cna_cnj_skeleton_free(skel);
    }
}

/* The work a model costs to pose; false when it is above the limits. */
static bool small_enough(const cna_model *m, size_t *largest_part_bytes)
{
    size_t vertices = 0, work = m->bone_count;
    *largest_part_bytes = 0;
    size_t joints = 0;
    for (size_t s = 0; s < m->skin_count; s++) joints += m->skins[s].joint_count;
    if (joints * (m->animation_count + 1) > FUZZ_MAX_JOINT_POSES) return false;
    for (size_t i = 0; i < m->mesh_count; i++)
        for (size_t k = 0; k < m->meshes[i].part_count; k++) {
            const cna_model_part *p = &m->meshes[i].parts[k];
            vertices += p->vertex_count;
            work += p->vertex_count * (1 + (p->morph ? p->morph->target_count : 0));
            const size_t bytes = p->vertex_count * p->declaration.stride;
            if (bytes > *largest_part_bytes) *largest_part_bytes = bytes;
            if (vertices > FUZZ_MAX_VERTICES || work > FUZZ_MAX_POSE_WORK) return false;
        }
    return m->animation_count <= FUZZ_MAX_ANIMATIONS &&
           work * (m->animation_count + 1) <= FUZZ_MAX_POSE_WORK;
}

static void run_model(cna_model *m, const uint8_t *data, size_t size)
{
    size_t largest = 0;
    if (!small_enough(m, &largest)) return;
    fuzz_poser *poser = poser_create(m);
    fuzz_players ps = {NULL, 0};
    fuzz_scratch sc = {malloc(largest + 1), malloc(largest + 1), malloc(largest + 1), 0};
    if (poser && players_create(m, &ps) && sc.ref && sc.fast && sc.xyz) {
        pose_everything(m, poser, &ps, &sc, data, size);
        check_cnb(m, poser, data, size);
        check_cnj(m);
    }
    free(sc.ref);
    free(sc.fast);
    free(sc.xyz);
    players_free(&ps);
    poser_free(poser);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    cna_gltf_document *doc = NULL;
    cna_gltf_options go;
    memset(&go, 0, sizeof go);
    go.no_textures = (data[size - 1] & 2) != 0; /* as in fuzz_gltf_load: a final newline sets it */
    if (cna_gltf_load_memory(data, size, &go, &doc, NULL) != CNA_OK) return 0;
    cna_import_options opts;
    memset(&opts, 0, sizeof opts);
    opts.clip_mode = (data[size - 1] & 1) ? CNA_CLIP_MODE_UNION : CNA_CLIP_MODE_FAITHFUL;
    cna_model *m = NULL;
    cna_error err;
    cna_result r = cna_model_import_gltf(doc, &opts, &m, &err);
    cna_gltf_document_free(doc);
    if (r != CNA_OK) {
        /* A refusal: a real code, a message, and no model. */
        if (m != NULL || err.code != r || err.message[0] == '\0') finding();
        return 0;
    }
    run_model(m, data, size);
    cna_model_free(m);
    return 0;
}
