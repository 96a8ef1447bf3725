/*
 * The .cnb reader (docs/format-cnb.md): one copy of the file into one arena
 * allocation of a new model, then the header, the section table and the
 * checksum are checked, then every record is read through a bounds-checked
 * cursor and every reference, count, index and enum checked before the
 * model's structs are filled with pointers into that allocation. Arrays of
 * plain numbers (vertex bytes, indices, matrices, keyframes, maps, deltas,
 * weights, times) are used in place.
 *
 * Versions 4 (written now), 3 and 2 (earlier releases') are read: the
 * record sizes and the section count come from the file's version; the
 * fields version 3 added are read in their own functions (read_target_names,
 * read_source_vertex_count), version 4's MARKERS section in read_markers,
 * PALETTE_MAPS section in read_palette_maps and INSTANCES section in
 * read_instances (a version 2 or 3 file has none of them), and version 2's
 * per-frame fields are skipped.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "baked/cnb_internal.h"
#include "core/vec.h"
#include "cna/baked.h"
#include "cna/skinning.h"
#include "model/model_internal.h"

/* ------------------------------------------------------------------ reading state */

/* "kind[index]" into buf (48 bytes) without printf: records are labelled for
 * messages on every load, so this stays cheap. */
static const char *label(char *buf, const char *kind, size_t index)
{
    size_t n = strlen(kind);
    if (n > 24) n = 24;
    memcpy(buf, kind, n);
    char digits[24];
    size_t d = 0;
    do {
        digits[d++] = (char)('0' + index % 10);
        index /= 10;
    } while (index && d < sizeof digits);
    buf[n++] = '[';
    while (d) buf[n++] = digits[--d];
    buf[n++] = ']';
    buf[n] = 0;
    return buf;
}

typedef struct section {
    const unsigned char *p;
    size_t size, count;
} section;

typedef struct reader {
    const unsigned char *file;
    size_t total;
    uint32_t version;      /* 2, 3 or 4, once the header is checked */
    const uint32_t *rs;    /* record sizes of that version */
    int section_count;     /* of that version: 15, or 18 from version 4 */
    section s[CNA__CNB_SECTION_END];
    cna__model *model;
    cna__arena *arena;
    cna_error *err;
    cna_result r;          /* the first error */
    /* built objects */
    cna_bone_track *tracks;
    cna_clip *clips;
    cna_morph_weight_track *wtracks;
    cna_morph_target *targets;
    cna_morph_target_data *morphs;
    /* per PARTS record: its palette map (PALETTE_MAPS) or NULL, and its count */
    const int32_t **palette_maps;
    size_t *palette_map_counts;
    /* Key arrays already checked, by their 16-byte slot in DATA: how many keys
     * of an array starting there were checked (skins instanced by several
     * nodes share their clips' keys, and a prefix of a checked array is
     * valid). An open-addressing table of keys_mask + 1 entries, each the
     * slot + 1 (0: empty) and the count. Scratch, freed after the load; NULL
     * when DATA is too large for 32-bit slots (then every track is checked). */
    uint32_t (*keys_checked)[2];
    size_t keys_mask;
} reader;

typedef struct cursor {
    const unsigned char *p;
    size_t at, size;
} cursor;

static cna_result fail(reader *rd, cna_result code, const char *fmt, ...) CNA__PRINTF(3, 4);
static cna_result fail(reader *rd, cna_result code, const char *fmt, ...)
{
    if (rd->r) return rd->r;
    char buf[CNA_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    rd->r = cna__error(rd->err, code, "cnb: %s", buf);
    return rd->r;
}

static cna_result oom(reader *rd) { return fail(rd, CNA_ERROR_OUT_OF_MEMORY, "out of memory"); }

/* A record's cursor; record sizes were checked against the section sizes. */
static cursor record(const reader *rd, int id, size_t index)
{
    cursor c;
    size_t rs = rd->rs[id];
    c.p = rd->s[id].p + index * rs;
    c.at = 0;
    c.size = rs;
    return c;
}

static void take(cursor *c, void *out, size_t n)
{
    if (c->size - c->at < n) { /* cannot happen with the record sizes; never read past */
        memset(out, 0, n);
        c->at = c->size;
        return;
    }
    memcpy(out, c->p + c->at, n);
    c->at += n;
}
static uint32_t g_u32(cursor *c) { uint32_t v; take(c, &v, 4); return v; }
static int32_t g_i32(cursor *c) { int32_t v; take(c, &v, 4); return v; }
static uint64_t g_u64(cursor *c) { uint64_t v; take(c, &v, 8); return v; }
static int64_t g_i64(cursor *c) { int64_t v; take(c, &v, 8); return v; }
static float g_f32(cursor *c) { float v; take(c, &v, 4); return v; }
static void g_f32n(cursor *c, float *v, size_t n) { take(c, v, n * 4); }
static void g_mat(cursor *c, cna_mat4 *m) { g_f32n(c, m->m, 16); }

/* A string reference: NULL (when allowed) or a NUL-terminated string in STRINGS. */
static const char *g_str(reader *rd, cursor *c, const char *where, const char *field, bool nullable)
{
    uint32_t off = g_u32(c), len = g_u32(c);
    if (rd->r) return NULL;
    const section *s = &rd->s[CNA__CNB_STRINGS];
    if (off == CNA__CNB_NULL_STRING) {
        if (!nullable) fail(rd, CNA_ERROR_INVALID_DATA, "%s.%s: NULL string", where, field);
        return NULL;
    }
    if (off >= s->size || len >= s->size - off || s->p[(size_t)off + len] != 0) {
        fail(rd, CNA_ERROR_INVALID_DATA, "%s.%s: string at %u (length %u) is outside STRINGS (%zu bytes)",
             where, field, (unsigned)off, (unsigned)len, s->size);
        return NULL;
    }
    const char *str = (const char *)s->p + off;
    const size_t bad = cna__utf8_invalid_at(str, len);
    if (bad < len || strlen(str) != len) {
        if (bad < len) fail(rd, CNA_ERROR_INVALID_DATA, "%s.%s: invalid UTF-8 at byte %zu", where, field, bad);
        else fail(rd, CNA_ERROR_INVALID_DATA, "%s.%s: a NUL byte inside the string (length %u)", where, field, (unsigned)len);
        return NULL;
    }
    return str;
}

/* Whether a reference may be NULL: never (0), only for an empty array (1, so
 * that no count ever goes with a NULL pointer), or whatever the count
 * (REF_OPTIONAL: NULL means "none", e.g. no tangents, dense deltas, no split). */
#define REF_OPTIONAL 2

/* An array reference of exactly elem * count bytes in DATA, 16-byte aligned,
 * or the NULL reference where `nullable` allows it. */
static const void *g_ref(reader *rd, cursor *c, const char *where, const char *field, size_t elem,
                         uint64_t count, int nullable)
{
    uint64_t off = g_u64(c), bytes = g_u64(c);
    if (rd->r) return NULL;
    if (off == CNA__CNB_NULL_REF) {
        if (!nullable || (nullable != REF_OPTIONAL && count > 0))
            fail(rd, CNA_ERROR_INVALID_DATA, "%s.%s: NULL array for %llu elements", where, field,
                 (unsigned long long)count);
        else if (bytes != 0)
            fail(rd, CNA_ERROR_INVALID_DATA, "%s.%s: NULL array of %llu bytes", where, field,
                 (unsigned long long)bytes);
        return NULL;
    }
    size_t need;
    if (count > SIZE_MAX || !cna__mul_size(elem, (size_t)count, &need) || bytes != need) {
        fail(rd, CNA_ERROR_INVALID_DATA, "%s.%s: %llu bytes; %llu elements of %zu bytes are needed",
             where, field, (unsigned long long)bytes, (unsigned long long)count, elem);
        return NULL;
    }
    const section *d = &rd->s[CNA__CNB_DATA];
    if (off % CNA__CNB_ALIGN != 0 || off > d->size || bytes > d->size - off) {
        fail(rd, CNA_ERROR_INVALID_DATA,
             "%s.%s: %llu bytes at %llu are outside DATA (%zu bytes) or not 16-byte aligned", where,
             field, (unsigned long long)bytes, (unsigned long long)off, d->size);
        return NULL;
    }
    return d->p + off;
}

/* Like g_ref for an array whose count is its byte size / elem (*count). */
static const void *g_ref_any(reader *rd, cursor *c, const char *where, const char *field,
                             size_t elem, size_t *count, int nullable)
{
    cursor peek = *c;
    g_u64(&peek);
    uint64_t bytes = g_u64(&peek);
    *count = 0;
    if (bytes % elem != 0) {
        fail(rd, CNA_ERROR_INVALID_DATA, "%s.%s: %llu bytes are not a multiple of %zu", where, field,
             (unsigned long long)bytes, elem);
        return NULL;
    }
    const void *p = g_ref(rd, c, where, field, elem, bytes / elem, nullable);
    if (!rd->r) *count = (size_t)(bytes / elem);
    return p;
}

/* A range [first, first + count) inside a section of `total` records. */
static bool range_ok(reader *rd, const char *where, const char *what, uint64_t first, uint64_t count,
                     size_t total)
{
    if (rd->r) return false;
    if (first > total || count > total - first) {
        fail(rd, CNA_ERROR_INVALID_DATA, "%s: %s %llu..%llu are outside the %zu stored", where, what,
             (unsigned long long)first, (unsigned long long)(first + count), total);
        return false;
    }
    return true;
}

static bool index_ok(reader *rd, const char *where, const char *field, int64_t v, int64_t lo,
                     int64_t hi)
{
    if (rd->r) return false;
    if (v < lo || v >= hi) {
        fail(rd, CNA_ERROR_INVALID_DATA, "%s.%s: %lld is outside %lld..%lld", where, field,
             (long long)v, (long long)lo, (long long)hi - 1);
        return false;
    }
    return true;
}

static bool ints_ok(reader *rd, const char *where, const char *field, const int32_t *v, size_t n,
                    int64_t lo, int64_t hi)
{
    for (size_t i = 0; v && i < n && !rd->r; i++) {
        if (v[i] < lo || v[i] >= hi) {
            fail(rd, CNA_ERROR_INVALID_DATA, "%s.%s[%zu]: %d is outside %lld..%lld", where, field, i,
                 (int)v[i], (long long)lo, (long long)hi - 1);
            return false;
        }
    }
    return !rd->r;
}

/* true when the n floats at v are all finite; otherwise the refusal
 * "where.field: not finite" (a hostile writer's NaN or infinity, with a valid
 * checksum). */
static bool finite_ok(reader *rd, const char *where, const char *field, const float *v, size_t n)
{
    if (rd->r) return false;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i])) {
            fail(rd, CNA_ERROR_INVALID_DATA, "%s.%s: not finite", where, field);
            return false;
        }
    return true;
}

static void *arena_array(reader *rd, size_t count, size_t size)
{
    void *p = cna__arena_calloc(rd->arena, count ? count : 1, size);
    if (!p) oom(rd);
    return p;
}

/* ------------------------------------------------------------------ header and table */

static uint32_t rd_u32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t rd_u64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }

/* The checks that need only the first 64 bytes (f) and the file's size n:
 * magic, version, flags, header size, total size, section count, table place
 * and reserved bytes. cna_cnb_load_file runs them on the header alone, before
 * it reads the rest or allocates for it. */
static cna_result check_head(reader *rd, const unsigned char *f, uint64_t n)
{
    if (n < CNA__CNB_HEADER_SIZE)
        return fail(rd, CNA_ERROR_PARSE, "%llu bytes; the header needs %u", (unsigned long long)n,
                    CNA__CNB_HEADER_SIZE);
    if (memcmp(f + CNA__CNB_OFF_MAGIC, CNA__CNB_MAGIC, 4) != 0)
        return fail(rd, CNA_ERROR_PARSE, "not a .cnb file (the magic is not \"CNB\\0\")");
    uint32_t version = rd_u32(f + CNA__CNB_OFF_VERSION);
    if (version == 1)
        return fail(rd, CNA_ERROR_UNSUPPORTED,
                    "version 1 (written before images were stored); this reader reads versions %u to %u: "
                    "re-convert the model (cna convert)", CNA__CNB_VERSION_OLDEST, CNA__CNB_VERSION);
    if (version < CNA__CNB_VERSION_OLDEST || version > CNA__CNB_VERSION)
        return fail(rd, CNA_ERROR_UNSUPPORTED, "version %u; this reader reads versions %u to %u",
                    (unsigned)version, CNA__CNB_VERSION_OLDEST, CNA__CNB_VERSION);
    rd->version = version;
    rd->rs = version == 2 ? cna__cnb_record_size_v2 : version == 3 ? cna__cnb_record_size_v3 : cna__cnb_record_size;
    rd->section_count = version >= 4 ? CNA__CNB_SECTION_COUNT : CNA__CNB_SECTION_COUNT_V3;
    uint32_t flags = rd_u32(f + CNA__CNB_OFF_FLAGS);
    if (flags != 0) return fail(rd, CNA_ERROR_UNSUPPORTED, "flags 0x%x; none are defined", (unsigned)flags);
    uint32_t hs = rd_u32(f + CNA__CNB_OFF_HEADER_SIZE);
    if (hs != CNA__CNB_HEADER_SIZE)
        return fail(rd, CNA_ERROR_INVALID_DATA, "header_size %u is not %u", (unsigned)hs, CNA__CNB_HEADER_SIZE);
    uint64_t total = rd_u64(f + CNA__CNB_OFF_TOTAL_SIZE);
    if (total != n)
        return fail(rd, CNA_ERROR_INVALID_DATA, "total_size %llu but %llu bytes were given (truncated?)",
                    (unsigned long long)total, (unsigned long long)n);
    if (n % 8 != 0)
        return fail(rd, CNA_ERROR_INVALID_DATA, "total_size %llu is not a multiple of 8", (unsigned long long)n);
    uint32_t sc = rd_u32(f + CNA__CNB_OFF_SECTION_COUNT);
    if (sc != (uint32_t)rd->section_count)
        return fail(rd, CNA_ERROR_INVALID_DATA, "section_count %u is not %d (version %u)", (unsigned)sc,
                    rd->section_count, (unsigned)version);
    uint64_t table = rd_u64(f + CNA__CNB_OFF_SECTION_TABLE);
    const uint64_t table_size = (uint64_t)rd->section_count * CNA__CNB_SECTION_ENTRY_SIZE;
    if (table != CNA__CNB_HEADER_SIZE || table_size > n - table)
        return fail(rd, CNA_ERROR_INVALID_DATA, "section table at %llu does not fit in %llu bytes",
                    (unsigned long long)table, (unsigned long long)n);
    for (size_t i = 48; i < CNA__CNB_HEADER_SIZE; i++)
        if (f[i] != 0) return fail(rd, CNA_ERROR_INVALID_DATA, "reserved header byte %zu is not 0", i);
    return CNA_OK;
}

static cna_result check_header(reader *rd)
{
    const unsigned char *f = rd->file;
    size_t n = rd->total;
    if (check_head(rd, f, n)) return rd->r;
    const uint64_t table = CNA__CNB_HEADER_SIZE;
    const uint64_t table_size = (uint64_t)rd->section_count * CNA__CNB_SECTION_ENTRY_SIZE;
    uint64_t stored = rd_u64(f + CNA__CNB_OFF_CHECKSUM);
    uint64_t actual = cna__cnb_checksum(f, n);
    if (stored != actual)
        return fail(rd, CNA_ERROR_INVALID_DATA, "checksum 0x%016llx does not match the contents (0x%016llx)",
                    (unsigned long long)stored, (unsigned long long)actual);
    uint64_t end = table + table_size;
    for (int id = 1; id <= rd->section_count; id++) {
        const unsigned char *e = f + table + (size_t)(id - 1) * CNA__CNB_SECTION_ENTRY_SIZE;
        const char *name = cna__cnb_section_name[id];
        uint32_t sid = rd_u32(e), rs = rd_u32(e + 4);
        uint64_t off = rd_u64(e + 8), size = rd_u64(e + 16), count = rd_u64(e + 24);
        if (sid != (uint32_t)id)
            return fail(rd, CNA_ERROR_INVALID_DATA, "section entry %d has id %u; expected %d (%s)", id - 1,
                        (unsigned)sid, id, name);
        if (rs != rd->rs[id])
            return fail(rd, CNA_ERROR_INVALID_DATA, "section %s: record size %u is not %u", name,
                        (unsigned)rs, (unsigned)rd->rs[id]);
        if (off % CNA__CNB_ALIGN != 0 || off < end || off > n || size > n - off)
            return fail(rd, CNA_ERROR_INVALID_DATA,
                        "section %s: %llu bytes at %llu are outside the file (%zu bytes), overlap the "
                        "previous section or are not 16-byte aligned",
                        name, (unsigned long long)size, (unsigned long long)off, n);
        if (count > size || count * rs != size)
            return fail(rd, CNA_ERROR_INVALID_DATA, "section %s: %llu records of %u bytes are not %llu bytes",
                        name, (unsigned long long)count, (unsigned)rs, (unsigned long long)size);
        rd->s[id].p = f + off;
        rd->s[id].size = (size_t)size;
        rd->s[id].count = (size_t)count;
        end = off + size;
    }
    if (rd->s[CNA__CNB_MODEL].count != 1)
        return fail(rd, CNA_ERROR_INVALID_DATA, "section MODEL holds %zu records; exactly 1 is required",
                    rd->s[CNA__CNB_MODEL].count);
    return CNA_OK;
}

/* ------------------------------------------------------------------ clips, tracks */

static void read_tracks(reader *rd)
{
    size_t n = rd->s[CNA__CNB_TRACKS].count;
    /* Not zeroed as a whole: each record zeroes its own struct below. */
    size_t bytes_total;
    if (!cna__mul_size(n ? n : 1, sizeof(cna_bone_track), &bytes_total) ||
        !(rd->tracks = (cna_bone_track *)cna__arena_alloc_uninit(rd->arena, bytes_total))) {
        oom(rd);
        return;
    }
    const section *d = &rd->s[CNA__CNB_DATA];
    const unsigned char *rec = rd->s[CNA__CNB_TRACKS].p;
    for (size_t i = 0; i < n && !rd->r; i++, rec += rd->rs[CNA__CNB_TRACKS]) {
        cna_bone_track *t = &rd->tracks[i];
        memset(t, 0, sizeof *t);
        /* The common case checked inline (what g_ref_any accepts: a whole number
         * of keys, NULL only when empty, 16-byte aligned inside DATA); anything
         * else goes through g_ref_any for its message. */
        int32_t bone;
        uint64_t off, bytes;
        memcpy(&bone, rec, 4);
        memcpy(&off, rec + 8, 8);
        memcpy(&bytes, rec + 16, 8);
        t->bone = bone;
        if (bytes % sizeof(cna_keyframe) == 0 &&
            (off == CNA__CNB_NULL_REF ? bytes == 0
                                      : off % CNA__CNB_ALIGN == 0 && off <= d->size && bytes <= d->size - off)) {
            t->keys = off == CNA__CNB_NULL_REF ? NULL : (const cna_keyframe *)(d->p + off);
            t->key_count = (size_t)(bytes / sizeof(cna_keyframe));
            continue;
        }
        cursor c = record(rd, CNA__CNB_TRACKS, i);
        char where[48];
        label(where, "tracks", i);
        c.at = 8;
        t->keys = (const cna_keyframe *)g_ref_any(rd, &c, where, "keys", sizeof(cna_keyframe),
                                                  &t->key_count, true);
    }
}

static void read_clips(reader *rd)
{
    size_t n = rd->s[CNA__CNB_CLIPS].count;
    rd->clips = (cna_clip *)arena_array(rd, n, sizeof(cna_clip));
    for (size_t i = 0; i < n && !rd->r; i++) {
        cursor c = record(rd, CNA__CNB_CLIPS, i);
        char where[48];
        label(where, "clips", i);
        cna_clip *clip = &rd->clips[i];
        clip->name = g_str(rd, &c, where, "name", true);
        clip->duration = g_i64(&c);
        uint64_t first = g_u64(&c), count = g_u64(&c);
        uint32_t target = g_u32(&c);
        if (!range_ok(rd, where, "tracks", first, count, rd->s[CNA__CNB_TRACKS].count)) return;
        if (clip->duration < 0) {
            fail(rd, CNA_ERROR_INVALID_DATA, "%s.duration: %lld is negative", where, (long long)clip->duration);
            return;
        }
        if (!index_ok(rd, where, "target", target, 0, CNA_CLIP_TARGET_COUNT)) return;
        clip->tracks = rd->tracks + first;
        clip->track_count = (size_t)count;
        clip->target = (cna_clip_target)target;
    }
}

/* ------------------------------------------------------------------ morph data */

static void read_weight_tracks(reader *rd)
{
    size_t n = rd->s[CNA__CNB_WEIGHT_TRACKS].count;
    rd->wtracks = (cna_morph_weight_track *)arena_array(rd, n, sizeof(cna_morph_weight_track));
    for (size_t i = 0; i < n && !rd->r; i++) {
        cursor c = record(rd, CNA__CNB_WEIGHT_TRACKS, i);
        char where[48];
        label(where, "weight_tracks", i);
        cna_morph_weight_track *t = &rd->wtracks[i];
        cursor tc = c;
        c.at += 16;
        uint64_t keys = g_u64(&c), targets = g_u64(&c);
        size_t values;
        if (keys > SIZE_MAX || targets > SIZE_MAX || !cna__mul_size((size_t)keys, (size_t)targets, &values)) {
            fail(rd, CNA_ERROR_INVALID_DATA, "%s: key_count %llu x target_count %llu overflows", where,
                 (unsigned long long)keys, (unsigned long long)targets);
            return;
        }
        t->key_count = (size_t)keys;
        t->target_count = (size_t)targets;
        t->times = (const float *)g_ref(rd, &tc, where, "times", sizeof(float), keys, true);
        t->values = (const float *)g_ref(rd, &c, where, "values", sizeof(float), values, true);
        t->in_tangents = (const float *)g_ref(rd, &c, where, "in_tangents", sizeof(float), values, REF_OPTIONAL);
        t->out_tangents = (const float *)g_ref(rd, &c, where, "out_tangents", sizeof(float), values, REF_OPTIONAL);
        uint32_t interp = g_u32(&c);
        if (!index_ok(rd, where, "interpolation", interp, 0, CNA_MORPH_INTERPOLATION_COUNT)) return;
        t->interpolation = (cna_morph_interpolation)interp;
        cna_error e;
        if (cna_morph_weight_track_validate(t, &e) != CNA_OK)
            fail(rd, CNA_ERROR_INVALID_DATA, "%s: %s", where, e.message);
    }
}

static void read_deltas(reader *rd, cursor *c, const char *where, const char *kind, cna_morph_deltas *d)
{
    cursor vc = *c, ic = *c;
    ic.at += 16;
    c->at += 32;
    uint64_t count = g_u64(c);
    if (rd->r) return;
    if (count > SIZE_MAX / 3) {
        fail(rd, CNA_ERROR_INVALID_DATA, "%s.%s: count %llu overflows", where, kind, (unsigned long long)count);
        return;
    }
    char field[48];
    snprintf(field, sizeof field, "%s.values", kind);
    d->values = (const float *)g_ref(rd, &vc, where, field, sizeof(float), count * 3, true);
    snprintf(field, sizeof field, "%s.indices", kind);
    d->indices = (const uint32_t *)g_ref(rd, &ic, where, field, sizeof(uint32_t), count, REF_OPTIONAL);
    d->count = (size_t)count;
}

static void read_targets(reader *rd)
{
    size_t n = rd->s[CNA__CNB_TARGETS].count;
    rd->targets = (cna_morph_target *)arena_array(rd, n, sizeof(cna_morph_target));
    for (size_t i = 0; i < n && !rd->r; i++) {
        cursor c = record(rd, CNA__CNB_TARGETS, i);
        char where[48];
        label(where, "targets", i);
        read_deltas(rd, &c, where, "positions", &rd->targets[i].positions);
        read_deltas(rd, &c, where, "normals", &rd->targets[i].normals);
        read_deltas(rd, &c, where, "tangents", &rd->targets[i].tangents);
    }
}

static void read_morphs(reader *rd)
{
    size_t n = rd->s[CNA__CNB_MORPHS].count;
    rd->morphs = (cna_morph_target_data *)arena_array(rd, n, sizeof(cna_morph_target_data));
    for (size_t i = 0; i < n && !rd->r; i++) {
        cursor c = record(rd, CNA__CNB_MORPHS, i);
        char where[48];
        label(where, "morphs", i);
        cna_morph_target_data *d = &rd->morphs[i];
        cursor refc = c;
        c.at += 16;
        uint64_t base_size = g_u64(&c), vertex_count = g_u64(&c);
        if (base_size > SIZE_MAX || vertex_count > SIZE_MAX) {
            fail(rd, CNA_ERROR_INVALID_DATA, "%s: sizes overflow", where);
            return;
        }
        d->base_vertices = g_ref(rd, &refc, where, "base_vertices", 1, base_size, true);
        d->base_size = (size_t)base_size;
        d->vertex_count = (size_t)vertex_count;
        d->layout.stride = g_u32(&c);
        d->layout.position_offset = g_i32(&c);
        d->layout.normal_offset = g_i32(&c);
        d->layout.tangent_offset = g_i32(&c);
        uint64_t first = g_u64(&c), count = g_u64(&c);
        if (!range_ok(rd, where, "targets", first, count, rd->s[CNA__CNB_TARGETS].count)) return;
        d->targets = rd->targets + first;
        d->target_count = (size_t)count;
        cursor wc = c;
        c.at += 16;
        uint64_t wcount = g_u64(&c);
        d->initial_weights = (const float *)g_ref(rd, &wc, where, "initial_weights", sizeof(float), wcount, true);
        d->initial_weight_count = (size_t)wcount;
        int32_t track = g_i32(&c);
        if (!index_ok(rd, where, "weight_track", track, -1, (int64_t)rd->s[CNA__CNB_WEIGHT_TRACKS].count)) return;
        d->weight_track = track >= 0 ? &rd->wtracks[track] : NULL;
        d->recompute_flat_normals = g_u32(&c) != 0;
        cursor tc = c;
        c.at += 16;
        uint64_t tcount = g_u64(&c);
        d->triangle_indices = (const uint32_t *)g_ref(rd, &tc, where, "triangle_indices", sizeof(uint32_t),
                                                      tcount, true);
        d->triangle_index_count = (size_t)tcount;
        if (rd->r) return;
        cna_error e;
        if (cna_morph_target_data_validate(d, &e) != CNA_OK)
            fail(rd, CNA_ERROR_INVALID_DATA, "%s: %s", where, e.message);
    }
}

/* ------------------------------------------------------------------ model, bones */

static void read_model(reader *rd, uint64_t *node_clip_first)
{
    cna_model *m = &rd->model->pub;
    cursor c = record(rd, CNA__CNB_MODEL, 0);
    const char *where = "model";
    m->gltf_scene = g_i32(&c);
    uint32_t mode = g_u32(&c);
    m->size = g_f32(&c);
    g_u32(&c);
    uint64_t counts[7];
    for (int i = 0; i < 7; i++) counts[i] = g_u64(&c);
    *node_clip_first = g_u64(&c);
    static const int ids[5] = {CNA__CNB_BONES, CNA__CNB_MESHES, CNA__CNB_SKINS, CNA__CNB_EFFECTS, CNA__CNB_DIAGNOSTICS};
    static const char *const names[5] = {"bone_count", "mesh_count", "skin_count", "effect_count", "diagnostic_count"};
    static const int slot[5] = {0, 1, 2, 3, 5};
    for (int i = 0; i < 5; i++)
        if (counts[slot[i]] != rd->s[ids[i]].count) {
            fail(rd, CNA_ERROR_INVALID_DATA, "model.%s %llu differs from the %zu records of %s", names[i],
                 (unsigned long long)counts[slot[i]], rd->s[ids[i]].count, cna__cnb_section_name[ids[i]]);
            return;
        }
    if (mode != CNA_CLIP_MODE_FAITHFUL && mode != CNA_CLIP_MODE_UNION) {
        fail(rd, CNA_ERROR_INVALID_DATA, "model.clip_mode %u is neither faithful nor union", (unsigned)mode);
        return;
    }
    if (!finite_ok(rd, where, "size", &m->size, 1)) return;
    m->clip_mode = (cna_clip_mode)mode;
    m->bone_count = (size_t)counts[0];
    m->animation_count = 0;
    if (!range_ok(rd, where, "node clips", *node_clip_first, counts[4], rd->s[CNA__CNB_CLIPS].count)) return;
    m->animation_count = (size_t)counts[4];
    if (counts[6] > SIZE_MAX / 4) {
        fail(rd, CNA_ERROR_INVALID_DATA, "model.gltf_node_count %llu overflows", (unsigned long long)counts[6]);
        return;
    }
    const int32_t *map = (const int32_t *)g_ref(rd, &c, where, "gltf_node_to_bone", sizeof(int32_t), counts[6], true);
    if (!ints_ok(rd, where, "gltf_node_to_bone", map, (size_t)counts[6], -1, (int64_t)m->bone_count)) return;
    m->gltf_node_to_bone = map;
    m->gltf_node_count = (size_t)counts[6];
}

static void read_bones(reader *rd)
{
    cna_model *m = &rd->model->pub;
    size_t n = m->bone_count;
    cna_model_bone *bones = (cna_model_bone *)arena_array(rd, n, sizeof *bones);
    for (size_t b = 0; b < n && !rd->r; b++) {
        cursor c = record(rd, CNA__CNB_BONES, b);
        char where[48];
        label(where, "bones", b);
        cna_model_bone *bone = &bones[b];
        bone->name = g_str(rd, &c, where, "name", false);
        bone->parent = g_i32(&c);
        bone->gltf_node = g_i32(&c);
        bone->has_matrix = g_u32(&c) != 0;
        g_u32(&c);
        if (rd->version == 2) c.at += sizeof(cna_mat4); /* the current transform: a character's now */
        g_mat(&c, &bone->rest_transform);
        g_f32n(&c, &bone->rest_translation.x, 3);
        g_f32n(&c, &bone->rest_rotation.x, 4);
        g_f32n(&c, &bone->rest_scale.x, 3);
        /* absolute[b] = absolute[parent] · transform[b] needs parent < b */
        if (!index_ok(rd, where, "parent", bone->parent, -1, (int64_t)b) ||
            !finite_ok(rd, where, "rest_transform", bone->rest_transform.m, 16) ||
            !finite_ok(rd, where, "rest_translation", &bone->rest_translation.x, 3) ||
            !finite_ok(rd, where, "rest_rotation", &bone->rest_rotation.x, 4) ||
            !finite_ok(rd, where, "rest_scale", &bone->rest_scale.x, 3))
            break;
    }
    m->bones = bones;
}

/* ------------------------------------------------------------------ skins */

/* true when the keys' times are >= 0 and non-decreasing and their 10 floats
 * (translation, rotation, scale) finite: no exponent field all ones. Checked
 * in bulk, two floats per 64-bit word, without a branch per key: adding 1 to
 * an exponent field of all ones (and only then) carries into the float's
 * sign bit, and a half never carries into the other. */
static bool keys_ok_scalar(const cna_keyframe *keys, size_t n)
{
    const uint64_t exponents = 0x7f8000007f800000ULL, one = 0x0080000000800000ULL;
    const unsigned char *p = (const unsigned char *)keys;
    int64_t last = 0;
    uint64_t bad = 0, decreasing = 0;
    for (size_t k = 0; k < n; k++, p += sizeof(cna_keyframe)) {
        int64_t ticks;
        uint64_t w0, w1, w2, w3, w4;
        memcpy(&ticks, p, 8);
        memcpy(&w0, p + 8, 8);
        memcpy(&w1, p + 16, 8);
        memcpy(&w2, p + 24, 8);
        memcpy(&w3, p + 32, 8);
        memcpy(&w4, p + 40, 8);
        decreasing |= (uint64_t)(ticks < last);
        last = ticks;
        bad |= ((w0 & exponents) + one) | ((w1 & exponents) + one) | ((w2 & exponents) + one) |
               ((w3 & exponents) + one) | ((w4 & exponents) + one);
    }
    return decreasing == 0 && (bad & 0x8000000080000000ULL) == 0;
}

/* keys_ok_scalar on the SIMD vocabulary (the SSE2 path): per key, three
 * 16-byte loads whose 32-bit lanes are compared with an exponent of all
 * ones (the ticks' lanes masked out); the same answer for every input. */
static bool keys_ok_vec(const cna_keyframe *keys, size_t n)
{
    const vi4 exponent = vi4_set1(0x7f800000);
    const vi4 first = vi4_setr(0, 0, 0x7f800000, 0x7f800000); /* bytes 8..15 only */
    const unsigned char *p = (const unsigned char *)keys;
    int64_t last = 0;
    uint64_t decreasing = 0;
    vi4 bad = vi4_zero();
    for (size_t k = 0; k < n; k++, p += sizeof(cna_keyframe)) {
        int64_t ticks;
        memcpy(&ticks, p, 8);
        decreasing |= (uint64_t)(ticks < last);
        last = ticks;
        const vi4 a = vi4_and(vi4_loadu(p), first);
        const vi4 b = vi4_and(vi4_loadu(p + 16), exponent);
        const vi4 c = vi4_and(vi4_loadu(p + 32), exponent);
        bad = vi4_or(bad, vi4_or(vi4_cmpeq(a, exponent),
                                 vi4_or(vi4_cmpeq(b, exponent), vi4_cmpeq(c, exponent))));
    }
    return decreasing == 0 && !vi4_any(bad);
}

static bool keys_ok(const cna_keyframe *keys, size_t n)
{
    return CNA__CNB_SIMD ? keys_ok_vec(keys, n) : keys_ok_scalar(keys, n);
}

bool cna__cnb_keys_ok_path(const cna_keyframe *keys, size_t n, bool simd)
{
    return simd && CNA__CNB_SIMD ? keys_ok_vec(keys, n) : keys_ok_scalar(keys, n);
}

bool cna__cnb_keys_simd(void) { return CNA__CNB_SIMD != 0; }

/* The first key of `keys` that keys_ok rejects (n when none). */
static size_t first_bad_key(const cna_keyframe *keys, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (!keys_ok_scalar(&keys[k], 1) || (k > 0 && keys[k].ticks < keys[k - 1].ticks)) return k;
    return n;
}

/* The memo entry of a key array at `slot` of DATA: its own, an empty one
 * (slot 0) where it was never checked, or NULL when the few entries probed
 * are taken by other arrays (then the keys are checked without a memo). */
static uint32_t *keys_memo(reader *rd, size_t slot)
{
    const uint32_t key = (uint32_t)slot + 1;
    size_t h = (size_t)(((uint64_t)key * 0x9e3779b97f4a7c15ULL) >> 40) & rd->keys_mask;
    for (int probe = 0; probe < 16; probe++, h = (h + 1) & rd->keys_mask)
        if (rd->keys_checked[h][0] == 0 || rd->keys_checked[h][0] == key) return rd->keys_checked[h];
    return NULL;
}

/* CLIPS[index] has `target` and, per track, a bone below `bones` (skeletal
 * clips; any bone for scene-node clips, which skip bones out of range) and
 * keys with times >= 0, non-decreasing, and finite values (the rules of
 * cna_skinning_data_validate, checked without formatting per key). */
static bool clip_ok(reader *rd, size_t index, cna_clip_target target, size_t bones)
{
    const cna_clip *clip = &rd->clips[index];
    if (clip->target != target) {
        fail(rd, CNA_ERROR_INVALID_DATA, "clips[%zu]: target %s; expected %s", index,
             cna_clip_target_name(clip->target), cna_clip_target_name(target));
        return false;
    }
    for (size_t t = 0; t < clip->track_count; t++) {
        const cna_bone_track *tr = &clip->tracks[t];
        if (target == CNA_CLIP_TARGET_JOINT_PALETTE && (tr->bone < 0 || (size_t)tr->bone >= bones)) {
            fail(rd, CNA_ERROR_INVALID_DATA, "clips[%zu].tracks[%zu]: bone %d is outside 0..%zu", index, t,
                 (int)tr->bone, bones - 1);
            return false;
        }
        if (tr->key_count == 0) continue;
        uint32_t *memo = NULL;
        if (rd->keys_checked) {
            size_t slot = (size_t)((const unsigned char *)tr->keys - rd->s[CNA__CNB_DATA].p) / CNA__CNB_ALIGN;
            memo = keys_memo(rd, slot);
            if (memo && memo[0] != 0 && memo[1] >= tr->key_count) continue;
            if (memo) memo[0] = (uint32_t)slot + 1;
        }
        if (!keys_ok(tr->keys, tr->key_count)) {
            fail(rd, CNA_ERROR_INVALID_DATA,
                 "clips[%zu].tracks[%zu].keys[%zu]: a negative or decreasing time, or a value that is "
                 "not finite", index, t, first_bad_key(tr->keys, tr->key_count));
            return false;
        }
        if (memo) memo[1] = tr->key_count > UINT32_MAX ? UINT32_MAX : (uint32_t)tr->key_count;
    }
    return true;
}

/* true when the n matrices' floats are all finite (no exponent all ones),
 * two floats per 64-bit word as in keys_ok_scalar. */
static bool matrices_finite(const cna_mat4 *m, size_t n)
{
    const uint64_t exponents = 0x7f8000007f800000ULL, one = 0x0080000000800000ULL;
    const unsigned char *p = (const unsigned char *)m;
    uint64_t bad = 0;
    for (size_t i = 0; i < n * 8; i++) {
        uint64_t w;
        memcpy(&w, p + 8 * i, 8);
        bad |= (w & exponents) + one;
    }
    return (bad & 0x8000000080000000ULL) == 0;
}

/* true when cna_skinning_data_validate accepts d (a skeleton without clips)
 * for certain: every rule it checks holds. false when one may not (then the
 * validator runs and words the refusal). */
static bool skeleton_quick_ok(const cna_skinning_data *d)
{
    if (d->bone_count < 0 || d->bone_count > CNA_MAX_BONE_COUNT || d->clips || d->clip_count) return false;
    const size_t n = (size_t)d->bone_count;
    if (d->hierarchy_count != n || d->bind_pose_count != n || d->inverse_bind_pose_count != n) return false;
    if (n > 0 && (!d->hierarchy || !d->bind_pose || !d->inverse_bind_pose)) return false;
    if (d->root_prefix_count != 0 && (d->root_prefix_count != n || !d->root_prefix)) return false;
    for (size_t p = 0; p < n; p++)
        if (d->hierarchy[p] >= (int32_t)p) return false;
    return matrices_finite(d->bind_pose, n) && matrices_finite(d->inverse_bind_pose, n) &&
           (d->root_prefix_count == 0 || matrices_finite(d->root_prefix, n));
}

static void read_skins(reader *rd, size_t mesh_count)
{
    cna_model *m = &rd->model->pub;
    size_t n = rd->s[CNA__CNB_SKINS].count;
    cna_model_skin *skins = (cna_model_skin *)arena_array(rd, n, sizeof *skins);
    for (size_t i = 0; i < n && !rd->r; i++) {
        cursor c = record(rd, CNA__CNB_SKINS, i);
        char where[48];
        label(where, "skins", i);
        cna_model_skin *s = &skins[i];
        cna_skinning_data *d = &s->data;
        d->bone_count = g_i32(&c);
        d->skeleton_root_node = g_i32(&c);
        d->skeleton_root_name = g_str(rd, &c, where, "skeleton_root_name", true);
        /* more than CNA_EFFECT_MAX_BONES only with split parts (part_consistent) */
        if (!index_ok(rd, where, "bone_count", d->bone_count, 1, CNA_MAX_BONE_COUNT + 1)) return;
        size_t J = (size_t)d->bone_count;
        d->hierarchy = (const int32_t *)g_ref(rd, &c, where, "hierarchy", sizeof(int32_t), J, false);
        d->hierarchy_count = J;
        d->bind_pose = (const cna_mat4 *)g_ref(rd, &c, where, "bind_pose", sizeof(cna_mat4), J, false);
        d->bind_pose_count = J;
        d->inverse_bind_pose = (const cna_mat4 *)g_ref(rd, &c, where, "inverse_bind_pose", sizeof(cna_mat4), J, false);
        d->inverse_bind_pose_count = J;
        d->root_prefix = (const cna_mat4 *)g_ref_any(rd, &c, where, "root_prefix", sizeof(cna_mat4),
                                                     &d->root_prefix_count, true);
        uint64_t first = g_u64(&c), count = g_u64(&c);
        if (!range_ok(rd, where, "clips", first, count, rd->s[CNA__CNB_CLIPS].count)) return;
        if (count != m->animation_count) { /* clip i = animation i, for every skin */
            fail(rd, CNA_ERROR_INVALID_DATA, "%s.clip_count %llu differs from animation_count %zu", where,
                 (unsigned long long)count, m->animation_count);
            return;
        }
        d->clips = rd->clips + first;
        d->clip_count = (size_t)count;
        s->gltf_skin = g_i32(&c);
        s->mesh_node = g_i32(&c);
        if (!index_ok(rd, where, "mesh_node", s->mesh_node, 0, (int64_t)m->bone_count)) return;
        cursor mc = c;
        c.at += 16;
        uint64_t meshes = g_u64(&c);
        s->meshes = (const int32_t *)g_ref(rd, &mc, where, "meshes", sizeof(int32_t), meshes, true);
        s->mesh_count = (size_t)meshes;
        if (!ints_ok(rd, where, "meshes", s->meshes, s->mesh_count, 0, (int64_t)mesh_count)) return;
        uint64_t joints = g_u64(&c);
        if (joints != J) {
            fail(rd, CNA_ERROR_INVALID_DATA, "%s.joint_count %llu differs from bone_count %zu", where,
                 (unsigned long long)joints, J);
            return;
        }
        s->joint_count = J;
        s->ordinal_to_palette = (const int32_t *)g_ref(rd, &c, where, "ordinal_to_palette", 4, J, false);
        s->palette_to_ordinal = (const int32_t *)g_ref(rd, &c, where, "palette_to_ordinal", 4, J, false);
        s->node_to_palette = (const int32_t *)g_ref(rd, &c, where, "node_to_palette", 4, m->bone_count, false);
        s->palette_to_node = (const int32_t *)g_ref(rd, &c, where, "palette_to_node", 4, J, false);
        s->palette_to_gltf_node = (const int32_t *)g_ref(rd, &c, where, "palette_to_gltf_node", 4, J, false);
        s->fold = (const cna_mat4 *)g_ref(rd, &c, where, "fold", sizeof(cna_mat4), J, false);
        for (size_t k = 0; s->fold && k < J && !rd->r; k++) {
            char field[48];
            if (!finite_ok(rd, where, label(field, "fold", k), s->fold[k].m, 16)) return;
        }
        cursor rc = c;
        c.at += 16;
        uint64_t roots = g_u64(&c);
        s->roots = (const int32_t *)g_ref(rd, &rc, where, "roots", 4, roots, false);
        s->root_count = (size_t)roots;
        if (!ints_ok(rd, where, "ordinal_to_palette", s->ordinal_to_palette, J, 0, (int64_t)J) ||
            !ints_ok(rd, where, "palette_to_ordinal", s->palette_to_ordinal, J, 0, (int64_t)J) ||
            !ints_ok(rd, where, "node_to_palette", s->node_to_palette, m->bone_count, -1, (int64_t)J) ||
            !ints_ok(rd, where, "palette_to_node", s->palette_to_node, J, -1, (int64_t)m->bone_count) ||
            !ints_ok(rd, where, "roots", s->roots, s->root_count, 0, (int64_t)J))
            return;
        /* Hierarchy below own index, finite matrices, root_prefix 0 or J (the clips are
         * checked below without formatting a label per key). */
        cna_skinning_data skeleton = *d;
        skeleton.clips = NULL;
        skeleton.clip_count = 0;
        cna_error e;
        if (!skeleton_quick_ok(&skeleton) && cna_skinning_data_validate(&skeleton, &e) != CNA_OK) {
            fail(rd, CNA_ERROR_INVALID_DATA, "%s: %s", where, e.message);
            return;
        }
        for (size_t k = 0; k < d->clip_count; k++)
            if (!clip_ok(rd, (size_t)first + k, CNA_CLIP_TARGET_JOINT_PALETTE, J)) return;
    }
    m->skins = skins;
    m->skin_count = n;
}

/* ------------------------------------------------------------------ meshes, parts */

/* PARTS.source_vertex_count (version 3): vertex_count for a part that is
 * not split, else above every source_vertex entry and at most 2^32 (the
 * entries are u32). Version 2 did not store it: a split part's is then its
 * largest source vertex + 1. */
static void read_source_vertex_count(reader *rd, cursor *c, const char *where, cna_model_part *part)
{
    size_t top = 0; /* the largest source vertex + 1 */
    for (size_t k = 0; part->source_vertex && k < part->vertex_count; k++)
        if ((size_t)part->source_vertex[k] + 1 > top) top = (size_t)part->source_vertex[k] + 1;
    if (rd->version == 2) {
        part->source_vertex_count = part->source_vertex ? top : part->vertex_count;
        return;
    }
    const uint64_t n = g_u64(c);
    if (!part->source_vertex && n != part->vertex_count) {
        fail(rd, CNA_ERROR_INVALID_DATA, "%s.source_vertex_count: %llu differs from vertex_count %zu (not split)",
             where, (unsigned long long)n, part->vertex_count);
        return;
    }
    if (n > ((uint64_t)1 << 32)) {
        fail(rd, CNA_ERROR_INVALID_DATA, "%s.source_vertex_count: %llu is above 2^32", where, (unsigned long long)n);
        return;
    }
    for (size_t k = 0; part->source_vertex && top > n && k < part->vertex_count; k++)
        if (part->source_vertex[k] >= n) {
            fail(rd, CNA_ERROR_INVALID_DATA, "%s.source_vertex[%zu]: %u is not below source_vertex_count %llu",
                 where, k, (unsigned)part->source_vertex[k], (unsigned long long)n);
            return;
        }
    part->source_vertex_count = (size_t)n;
}

static void read_part(reader *rd, size_t index, cna_model_part *part)
{
    const cna_model *m = &rd->model->pub;
    cursor c = record(rd, CNA__CNB_PARTS, index);
    char where[48];
    label(where, "parts", index);
    part->gltf_mesh = g_i32(&c);
    part->gltf_primitive = g_i32(&c);
    part->material = g_i32(&c);
    part->effect = g_i32(&c);
    if (!index_ok(rd, where, "effect", part->effect, -1, (int64_t)rd->s[CNA__CNB_EFFECTS].count)) return;
    cursor vc = c;
    c.at += 16;
    uint64_t vcount = g_u64(&c);
    cna_vertex_declaration *decl = &part->declaration;
    decl->stride = g_u32(&c);
    decl->element_count = g_u32(&c);
    for (int e = 0; e < CNA_VERTEX_MAX_ELEMENTS; e++) {
        decl->elements[e].offset = g_u32(&c);
        decl->elements[e].format = (cna_vertex_format)g_u32(&c);
        decl->elements[e].usage = (cna_vertex_usage)g_u32(&c);
        decl->elements[e].usage_index = g_u32(&c);
    }
    cna_vertex_declaration canonical;
    cna_error e;
    if (cna_vertex_declaration_canonical(decl->stride, &canonical, &e) != CNA_OK ||
        memcmp(&canonical, decl, sizeof canonical) != 0) {
        fail(rd, CNA_ERROR_INVALID_DATA, "%s.declaration: stride %u is not a canonical layout", where,
             (unsigned)decl->stride);
        return;
    }
    size_t vbytes;
    if (vcount > SIZE_MAX || !cna__mul_size((size_t)vcount, decl->stride, &vbytes)) {
        fail(rd, CNA_ERROR_INVALID_DATA, "%s.vertex_count %llu overflows", where, (unsigned long long)vcount);
        return;
    }
    part->vertices = g_ref(rd, &vc, where, "vertices", decl->stride, vcount, vcount == 0);
    part->vertex_count = (size_t)vcount;
    cursor ic = c;
    c.at += 16;
    uint64_t icount = g_u64(&c);
    part->indices = (const uint32_t *)g_ref(rd, &ic, where, "indices", sizeof(uint32_t), icount, icount == 0);
    part->index_count = (size_t)icount;
    uint32_t top = 0; /* the largest index; the loop below finds the first bad one */
    for (size_t i = 0; part->indices && i < part->index_count; i++)
        top = part->indices[i] > top ? part->indices[i] : top;
    for (size_t i = 0; part->indices && top >= part->vertex_count && i < part->index_count && !rd->r; i++)
        if (part->indices[i] >= part->vertex_count)
            fail(rd, CNA_ERROR_INVALID_DATA, "%s.indices[%zu]: %u is not below vertex_count %zu", where, i,
                 (unsigned)part->indices[i], part->vertex_count);
    uint32_t type = g_u32(&c);
    if (!index_ok(rd, where, "primitive_type", type, 0, CNA_PRIMITIVE_TYPE_COUNT)) return;
    part->primitive_type = (cna_primitive_type)type;
    int32_t morph = g_i32(&c);
    if (!index_ok(rd, where, "morph", morph, -1, (int64_t)rd->s[CNA__CNB_MORPHS].count)) return;
    part->source_vertex = (const uint32_t *)g_ref(rd, &c, where, "source_vertex", sizeof(uint32_t), vcount, REF_OPTIONAL);
    cursor tc = c;
    c.at += 16;
    uint64_t tcount = g_u64(&c);
    const int32_t *tracks = (const int32_t *)g_ref(rd, &tc, where, "weight_tracks", sizeof(int32_t), tcount, true);
    if (!ints_ok(rd, where, "weight_tracks", tracks, (size_t)tcount, -1,
                 (int64_t)rd->s[CNA__CNB_WEIGHT_TRACKS].count))
        return;
    if (tracks) {
        const cna_morph_weight_track **t =
            (const cna_morph_weight_track **)arena_array(rd, (size_t)tcount, sizeof *t);
        if (!t) return;
        for (size_t k = 0; k < tcount; k++) t[k] = tracks[k] >= 0 ? &rd->wtracks[tracks[k]] : NULL;
        part->weight_tracks = t;
    }
    part->weight_track_count = (size_t)tcount;
    if (rd->palette_maps) {
        part->palette_map = rd->palette_maps[index];
        part->palette_map_count = rd->palette_map_counts[index];
    }
    read_source_vertex_count(rd, &c, where, part);
    if (rd->r) return;
    if (morph >= 0) {
        const cna_morph_target_data *d = &rd->morphs[morph];
        if (d->vertex_count != part->vertex_count || d->layout.stride != decl->stride) {
            fail(rd, CNA_ERROR_INVALID_DATA, "%s: morphs[%d] has %zu vertices of stride %u; the part %zu of %u",
                 where, (int)morph, d->vertex_count, (unsigned)d->layout.stride, part->vertex_count,
                 (unsigned)decl->stride);
            return;
        }
        part->morph = d;
    }
    (void)m;
}

/* true when the 4 joint bytes at v, v + stride, ... (n vertices) are all
 * below `joints`. For 1..128 joints four bytes at a time: with the top bit
 * of each byte set aside, adding 128 - joints sets it exactly when the byte
 * is >= joints, and a byte never carries into the next. */
static bool joints_below(const unsigned char *v, size_t n, size_t stride, size_t joints)
{
    if (joints >= 256) return true;
    if (joints == 0 || joints > 128) {
        for (size_t i = 0; i < n; i++, v += stride)
            if (v[0] >= joints || v[1] >= joints || v[2] >= joints || v[3] >= joints) return false;
        return true;
    }
    const uint32_t add = (uint32_t)(128 - joints) * 0x01010101u;
    uint32_t bad = 0;
    for (size_t i = 0; i < n; i++, v += stride) {
        uint32_t x;
        memcpy(&x, v, 4);
        bad |= ((x & 0x7f7f7f7fu) + add) | x;
    }
    return (bad & 0x80808080u) == 0;
}

/* What the import guarantees between a part, its mesh's skin and its effect,
 * so that a renderer or a CPU skinning pass can rely on it: a skinned mesh's
 * parts have a skinned layout whose joint bytes are below the skin's joint
 * count, a rigid mesh's parts an unskinned one; a part's effect is skinned
 * exactly when its mesh is, and then belongs to that skin. */
static void part_consistent(reader *rd, size_t index, const cna_model_mesh *mesh, const cna_model_part *part)
{
    const cna_model *m = &rd->model->pub;
    cna_skinning_layout layout;
    bool skinned_layout = cna_skinning_layout_canonical(part->declaration.stride, &layout, NULL) == CNA_OK;
    if (skinned_layout != (mesh->skin >= 0)) {
        fail(rd, CNA_ERROR_INVALID_DATA, "parts[%zu]: stride %u is %s but its mesh is %s", index,
             (unsigned)part->declaration.stride, skinned_layout ? "skinned" : "not skinned",
             mesh->skin >= 0 ? "skinned" : "rigid");
        return;
    }
    if (part->effect >= 0) {
        const cna_effect *e = &m->effects[part->effect];
        bool skinned_effect = cna_effect_kind_is_skinned(e->kind);
        if (skinned_effect != (mesh->skin >= 0) || (skinned_effect && e->skin != mesh->skin)) {
            fail(rd, CNA_ERROR_INVALID_DATA, "parts[%zu]: effects[%d] (%s, skin %d) does not fit its mesh (skin %d)",
                 index, (int)part->effect, cna_effect_kind_name(e->kind), (int)e->skin, (int)mesh->skin);
            return;
        }
    }
    if (part->palette_map && !skinned_layout) {
        fail(rd, CNA_ERROR_INVALID_DATA, "parts[%zu]: a palette map on a part of a rigid mesh", index);
        return;
    }
    if (!skinned_layout) return;
    const size_t skin_joints = m->skins[mesh->skin].joint_count;
    if (part->palette_map) {
        char where[48];
        if (!ints_ok(rd, label(where, "parts", index), "palette_map", part->palette_map, part->palette_map_count, 0,
                     (int64_t)skin_joints))
            return;
    } else if (skin_joints > CNA_EFFECT_MAX_BONES) {
        fail(rd, CNA_ERROR_INVALID_DATA,
             "parts[%zu]: skins[%d] has %zu joints; a part of a skin over %d joints needs a palette map", index,
             (int)mesh->skin, skin_joints, CNA_EFFECT_MAX_BONES);
        return;
    }
    if (!part->vertices) return;
    /* a split part's joint bytes index its sub-palette */
    const size_t joints = part->palette_map ? part->palette_map_count : skin_joints;
    const unsigned char *v = (const unsigned char *)part->vertices + layout.joints_offset;
    if (joints_below(v, part->vertex_count, layout.stride, joints)) return;
    for (size_t i = 0; i < part->vertex_count; i++, v += layout.stride)
        for (int k = 0; k < 4; k++)
            if (v[k] >= joints) {
                fail(rd, CNA_ERROR_INVALID_DATA, "parts[%zu].vertices[%zu]: joint %u is not below the %s's %zu joints",
                     index, i, (unsigned)v[k], part->palette_map ? "palette map" : "skin", joints);
                return;
            }
}

/* MESHES.target_names (version 3): NULL, or target_name_count str records
 * in DATA, each a string of STRINGS. */
static void read_target_names(reader *rd, cursor *c, const char *where, cna_model_mesh *mesh)
{
    cursor nc = *c;
    c->at += 16;
    uint64_t n = g_u64(c);
    const unsigned char *recs = (const unsigned char *)g_ref(rd, &nc, where, "target_names", 8, n, true);
    if (rd->r || n == 0) return;
    const char **names = (const char **)arena_array(rd, (size_t)n, sizeof *names);
    if (!names) return;
    for (size_t t = 0; t < n && !rd->r; t++) {
        cursor sc = {recs + 8 * t, 0, 8};
        char field[48];
        label(field, "target_names", t);
        names[t] = g_str(rd, &sc, where, field, false);
    }
    if (rd->r) return;
    mesh->target_names = names;
    mesh->target_name_count = (size_t)n;
}

/* A mesh's target names name every target of each of its morphed parts. */
static void target_names_fit(reader *rd, size_t index, const cna_model_mesh *mesh)
{
    for (size_t k = 0; mesh->target_names && k < mesh->part_count; k++) {
        const cna_morph_target_data *d = mesh->parts[k].morph;
        if (d && d->target_count != mesh->target_name_count) {
            fail(rd, CNA_ERROR_INVALID_DATA, "meshes[%zu]: %zu target names for parts[%zu]'s %zu targets", index,
                 mesh->target_name_count, k, d->target_count);
            return;
        }
    }
}

static void read_meshes(reader *rd)
{
    cna_model *m = &rd->model->pub;
    size_t n = rd->s[CNA__CNB_MESHES].count, parts_total = rd->s[CNA__CNB_PARTS].count;
    cna_model_mesh *meshes = (cna_model_mesh *)arena_array(rd, n, sizeof *meshes);
    cna_model_part *parts = (cna_model_part *)arena_array(rd, parts_total, sizeof *parts);
    uint64_t next = 0;
    for (size_t i = 0; i < n && !rd->r; i++) {
        cursor c = record(rd, CNA__CNB_MESHES, i);
        char where[48];
        label(where, "meshes", i);
        cna_model_mesh *mesh = &meshes[i];
        mesh->name = g_str(rd, &c, where, "name", false);
        mesh->parent_bone = g_i32(&c);
        mesh->skin = g_i32(&c);
        mesh->gltf_mesh = g_i32(&c);
        mesh->gltf_node = g_i32(&c);
        uint64_t first = g_u64(&c), count = g_u64(&c);
        g_f32n(&c, &mesh->bounds.center.x, 3);
        mesh->bounds.radius = g_f32(&c);
        if (rd->version >= 3) read_target_names(rd, &c, where, mesh);
        if (!index_ok(rd, where, "parent_bone", mesh->parent_bone, 0, (int64_t)m->bone_count) ||
            !index_ok(rd, where, "skin", mesh->skin, -1, (int64_t)rd->s[CNA__CNB_SKINS].count) ||
            !finite_ok(rd, where, "bounds.center", &mesh->bounds.center.x, 3) ||
            !finite_ok(rd, where, "bounds.radius", &mesh->bounds.radius, 1))
            return;
        if (mesh->bounds.radius < 0.0f) {
            fail(rd, CNA_ERROR_INVALID_DATA, "%s.bounds.radius: %g is negative", where, (double)mesh->bounds.radius);
            return;
        }
        /* Each part belongs to exactly one mesh. */
        if (first != next || !range_ok(rd, where, "parts", first, count, parts_total)) {
            fail(rd, CNA_ERROR_INVALID_DATA, "%s: parts start at %llu; expected %llu", where,
                 (unsigned long long)first, (unsigned long long)next);
            return;
        }
        next += count;
        mesh->parts = parts + first;
        mesh->part_count = (size_t)count;
        for (size_t k = 0; k < count && !rd->r; k++) {
            read_part(rd, (size_t)first + k, &mesh->parts[k]);
            if (!rd->r) part_consistent(rd, (size_t)first + k, mesh, &mesh->parts[k]);
        }
    }
    for (size_t i = 0; i < n && !rd->r; i++) target_names_fit(rd, i, &meshes[i]);
    if (!rd->r && next != parts_total)
        fail(rd, CNA_ERROR_INVALID_DATA, "meshes use %llu of the %zu parts", (unsigned long long)next, parts_total);
    if (rd->r) return;
    m->meshes = meshes;
    m->mesh_count = n;
}

/* ------------------------------------------------------------------ images */

static bool gl_enum_ok(int32_t v, const int32_t *allowed, size_t n)
{
    if (v == 0) return true; /* absent: the renderer's default */
    for (size_t i = 0; i < n; i++)
        if (v == allowed[i]) return true;
    return false;
}

/* Whether a sampler's four values are glTF's (or 0: absent); else fails
 * naming `where`.FIELD and the value. */
static bool sampler_ok(reader *rd, const char *where, int32_t mag_filter, int32_t min_filter, int32_t wrap_s,
                       int32_t wrap_t)
{
    static const int32_t mag[] = {9728, 9729};                         /* NEAREST, LINEAR */
    static const int32_t min[] = {9728, 9729, 9984, 9985, 9986, 9987}; /* + the four MIPMAP modes */
    static const int32_t wrap[] = {33071, 33648, 10497};               /* CLAMP, MIRRORED, REPEAT */
    const struct {
        const char *field;
        int32_t value;
        const int32_t *allowed;
        size_t n;
    } enums[4] = {{"mag_filter", mag_filter, mag, 2},
                  {"min_filter", min_filter, min, 6},
                  {"wrap_s", wrap_s, wrap, 3},
                  {"wrap_t", wrap_t, wrap, 3}};
    for (size_t k = 0; k < 4; k++)
        if (!gl_enum_ok(enums[k].value, enums[k].allowed, enums[k].n)) {
            fail(rd, CNA_ERROR_INVALID_DATA, "%s.%s: %d is not a glTF sampler value", where, enums[k].field,
                 (int)enums[k].value);
            return false;
        }
    return true;
}

static void read_images(reader *rd)
{
    cna_model *m = &rd->model->pub;
    size_t n = rd->s[CNA__CNB_IMAGES].count;
    if (n == 0) return;
    cna_model_image *images = (cna_model_image *)arena_array(rd, n, sizeof *images);
    for (size_t i = 0; i < n && !rd->r; i++) {
        cursor c = record(rd, CNA__CNB_IMAGES, i);
        char where[48];
        label(where, "images", i);
        cna_model_image *im = &images[i];
        im->name = g_str(rd, &c, where, "name", false);
        im->mime_type = g_str(rd, &c, where, "mime_type", false);
        cursor dc = c;
        c.at += 16;
        uint64_t size = g_u64(&c);
        im->data = (const uint8_t *)g_ref(rd, &dc, where, "data", 1, size, true);
        if (rd->r) return;
        if (im->data && size == 0) {
            fail(rd, CNA_ERROR_INVALID_DATA, "%s.data: an empty array must be NULL", where);
            return;
        }
        im->size = (size_t)size;
        im->mag_filter = g_i32(&c);
        im->min_filter = g_i32(&c);
        im->wrap_s = g_i32(&c);
        im->wrap_t = g_i32(&c);
        if (rd->version >= 4) im->problem = g_str(rd, &c, where, "problem", true);
        if (rd->r) return;
        if (!sampler_ok(rd, where, im->mag_filter, im->min_filter, im->wrap_s, im->wrap_t)) return;
    }
    if (rd->r) return;
    /* Ids as the glTF import gives them: the index plus one, unique within the model. */
    for (size_t i = 0; i < n; i++) images[i].id = (uint64_t)i + 1;
    m->images = images;
    m->image_count = n;
}

/* ------------------------------------------------------------------ effects, diagnostics */

static void g_texture(cursor *c, cna_effect_texture *t)
{
    t->image = g_i32(c);
    t->texcoord = g_i32(c);
    t->scale = g_f32(c);
}

/* Version 4's part of an EFFECTS record: emissive strength, material name,
 * each slot's transform and sampler (checked: sampler values glTF's,
 * floats finite, the strength not negative). */
static void read_effect_v4(reader *rd, cursor *c, const char *where, cna_effect_material *p)
{
    p->emissive_strength = g_f32(c);
    uint32_t flags = g_u32(c); /* written 0 before unlit was stored: lit */
    p->name = g_str(rd, c, where, "name", false);
    if (rd->r) return;
    if (flags & ~(uint32_t)CNA__CNB_EFFECT_UNLIT) {
        fail(rd, CNA_ERROR_INVALID_DATA, "%s.flags: 0x%x has unknown bits (this reader knows 0x%x, unlit)", where,
             (unsigned)flags, (unsigned)CNA__CNB_EFFECT_UNLIT);
        return;
    }
    p->unlit = (flags & CNA__CNB_EFFECT_UNLIT) != 0;
    if (!finite_ok(rd, where, "emissive_strength", &p->emissive_strength, 1)) return;
    if (p->emissive_strength < 0.0f) {
        fail(rd, CNA_ERROR_INVALID_DATA, "%s.emissive_strength: %g is negative", where, (double)p->emissive_strength);
        return;
    }
    for (int s = 0; s < CNA_EFFECT_SLOT_COUNT; s++) {
        cna_effect_texture *t = (cna_effect_texture *)cna_effect_material_texture(p, (cna_effect_slot)s);
        g_f32n(c, t->uv_offset, 2);
        t->uv_rotation = g_f32(c);
        g_f32n(c, t->uv_scale, 2);
        t->mag_filter = g_i32(c);
        t->min_filter = g_i32(c);
        t->wrap_s = g_i32(c);
        t->wrap_t = g_i32(c);
        g_u32(c);
        static const char *const slot[CNA_EFFECT_SLOT_COUNT] = {"base_color", "metallic_roughness", "normal",
                                                                "occlusion", "emissive"};
        char field[48];
        snprintf(field, sizeof field, "%s.uv_offset", slot[s]);
        if (!finite_ok(rd, where, field, t->uv_offset, 2)) return;
        snprintf(field, sizeof field, "%s.uv_rotation", slot[s]);
        if (!finite_ok(rd, where, field, &t->uv_rotation, 1)) return;
        snprintf(field, sizeof field, "%s.uv_scale", slot[s]);
        if (!finite_ok(rd, where, field, t->uv_scale, 2)) return;
        char sampler[96];
        snprintf(sampler, sizeof sampler, "%s.%s", where, slot[s]);
        if (!sampler_ok(rd, sampler, t->mag_filter, t->min_filter, t->wrap_s, t->wrap_t)) return;
    }
}

/* Versions 2 and 3 kept no per-slot sampler: each slot takes its image's
 * (what those versions drew with); no transform, strength 1, name "". */
static void effect_slots_from_images(const cna_model *m, cna_effect_material *p)
{
    p->emissive_strength = 1.0f;
    p->name = "";
    p->unlit = false;
    for (int s = 0; s < CNA_EFFECT_SLOT_COUNT; s++) {
        cna_effect_texture *t = (cna_effect_texture *)cna_effect_material_texture(p, (cna_effect_slot)s);
        t->uv_offset[0] = t->uv_offset[1] = 0.0f;
        t->uv_rotation = 0.0f;
        t->uv_scale[0] = t->uv_scale[1] = 1.0f;
        t->mag_filter = t->min_filter = t->wrap_s = t->wrap_t = 0;
        if (t->image < 0 || (size_t)t->image >= m->image_count) continue;
        const cna_model_image *im = &m->images[t->image];
        t->mag_filter = im->mag_filter;
        t->min_filter = im->min_filter;
        t->wrap_s = im->wrap_s;
        t->wrap_t = im->wrap_t;
    }
}

static void read_effects(reader *rd)
{
    cna_model *m = &rd->model->pub;
    size_t n = rd->s[CNA__CNB_EFFECTS].count;
    cna_effect *effects = (cna_effect *)arena_array(rd, n, sizeof *effects);
    for (size_t i = 0; i < n && !rd->r; i++) {
        cursor c = record(rd, CNA__CNB_EFFECTS, i);
        char where[48];
        label(where, "effects", i);
        cna_effect *e = &effects[i];
        cna_effect_material *p = &e->params;
        uint32_t kind = g_u32(&c);
        e->material = g_i32(&c);
        e->skin = g_i32(&c);
        uint32_t alpha = g_u32(&c);
        g_f32n(&c, &p->base_color_factor.x, 4);
        g_texture(&c, &p->base_color);
        p->metallic_factor = g_f32(&c);
        p->roughness_factor = g_f32(&c);
        g_texture(&c, &p->metallic_roughness);
        g_texture(&c, &p->normal);
        g_texture(&c, &p->occlusion);
        g_texture(&c, &p->emissive);
        g_f32n(&c, &p->emissive_factor.x, 3);
        p->alpha_cutoff = g_f32(&c);
        p->double_sided = g_u32(&c) != 0;
        if (rd->version >= 4) read_effect_v4(rd, &c, where, p);
        else effect_slots_from_images(m, p);
        if (rd->r) return;
        /* Version 2 follows with bone_count, world, view, projection and a
         * palette, where effects used to keep per-frame matrices: not read
         * (draws take them as arguments). */
        if (!index_ok(rd, where, "kind", kind, 0, CNA_EFFECT_KIND_COUNT) ||
            !index_ok(rd, where, "alpha_mode", alpha, 0, CNA_ALPHA_MODE_COUNT) ||
            !index_ok(rd, where, "skin", e->skin, -1, (int64_t)m->skin_count))
            return;
        const int64_t images = (int64_t)m->image_count;
        if (!index_ok(rd, where, "base_color.image", p->base_color.image, -1, images) ||
            !index_ok(rd, where, "metallic_roughness.image", p->metallic_roughness.image, -1, images) ||
            !index_ok(rd, where, "normal.image", p->normal.image, -1, images) ||
            !index_ok(rd, where, "occlusion.image", p->occlusion.image, -1, images) ||
            !index_ok(rd, where, "emissive.image", p->emissive.image, -1, images))
            return;
        const struct {
            const char *field;
            const float *v;
            size_t n;
        } floats[] = {{"base_color_factor", &p->base_color_factor.x, 4},
                      {"metallic_factor", &p->metallic_factor, 1},
                      {"roughness_factor", &p->roughness_factor, 1},
                      {"base_color.scale", &p->base_color.scale, 1},
                      {"metallic_roughness.scale", &p->metallic_roughness.scale, 1},
                      {"normal.scale", &p->normal.scale, 1},
                      {"occlusion.scale", &p->occlusion.scale, 1},
                      {"emissive.scale", &p->emissive.scale, 1},
                      {"emissive_factor", &p->emissive_factor.x, 3},
                      {"alpha_cutoff", &p->alpha_cutoff, 1}};
        for (size_t k = 0; k < sizeof floats / sizeof floats[0]; k++)
            if (!finite_ok(rd, where, floats[k].field, floats[k].v, floats[k].n)) return;
        e->kind = (cna_effect_kind)kind;
        p->alpha_mode = (cna_alpha_mode)alpha;
    }
    m->effects = effects;
    m->effect_count = n;
}

static void read_diagnostics(reader *rd)
{
    size_t n = rd->s[CNA__CNB_DIAGNOSTICS].count;
    cna_model_diagnostic *items = (cna_model_diagnostic *)arena_array(rd, n, sizeof *items);
    for (size_t i = 0; i < n && !rd->r; i++) {
        cursor c = record(rd, CNA__CNB_DIAGNOSTICS, i);
        char where[48];
        label(where, "diagnostics", i);
        items[i].code = g_str(rd, &c, where, "code", false);
        items[i].count = (size_t)g_u64(&c);
        items[i].message = g_str(rd, &c, where, "message", false);
    }
    if (rd->r) return;
    rd->model->diags.items = items;
    rd->model->diags.count = rd->model->diags.capacity = n;
    rd->model->pub.diagnostics = items;
    rd->model->pub.diagnostic_count = n;
}

/* ------------------------------------------------------------------ markers */

/* MARKERS (version 4): sorted by animation, then by time; each a non-empty
 * name and a time inside its animation. Copied into the model's marker
 * storage (cna_model_add_marker's), in order. */
static void read_markers(reader *rd, uint64_t node_clip_first)
{
    const cna_model *m = &rd->model->pub;
    const size_t n = rd->s[CNA__CNB_MARKERS].count;
    uint32_t last_animation = 0;
    int64_t last_ticks = 0;
    for (size_t i = 0; i < n && !rd->r; i++) {
        cursor c = record(rd, CNA__CNB_MARKERS, i);
        char where[48];
        label(where, "markers", i);
        const uint32_t animation = g_u32(&c);
        g_u32(&c);
        const char *name = g_str(rd, &c, where, "name", false);
        const int64_t ticks = g_i64(&c);
        if (rd->r || !index_ok(rd, where, "animation", animation, 0, (int64_t)m->animation_count)) return;
        if (i > 0 && animation < last_animation) {
            fail(rd, CNA_ERROR_INVALID_DATA, "%s.animation: %u after %u; markers are sorted by animation", where,
                 (unsigned)animation, (unsigned)last_animation);
            return;
        }
        if (name[0] == 0) {
            fail(rd, CNA_ERROR_INVALID_DATA, "%s.name: empty", where);
            return;
        }
        const int64_t duration = rd->clips[node_clip_first + animation].duration;
        if (ticks < 0 || ticks > duration) {
            fail(rd, CNA_ERROR_INVALID_DATA, "%s.ticks: %lld is outside 0..%lld (animations[%u])", where,
                 (long long)ticks, (long long)duration, (unsigned)animation);
            return;
        }
        if (i > 0 && animation == last_animation && ticks < last_ticks) {
            fail(rd, CNA_ERROR_INVALID_DATA, "%s.ticks: %lld after %lld; markers are sorted by time", where,
                 (long long)ticks, (long long)last_ticks);
            return;
        }
        if (!cna__model_insert_marker(rd->model, animation, name, ticks)) {
            oom(rd);
            return;
        }
        last_animation = animation;
        last_ticks = ticks;
    }
}

/* ------------------------------------------------------------------ palette maps */

/* PALETTE_MAPS (version 4): one record per split part, in part order (each
 * part at most once), a map of 1 .. CNA_EFFECT_MAX_BONES entries; the
 * entries are checked against the part's skin in part_consistent. */
static void read_palette_maps(reader *rd)
{
    const size_t n = rd->s[CNA__CNB_PALETTE_MAPS].count, parts = rd->s[CNA__CNB_PARTS].count;
    if (n == 0) return;
    rd->palette_maps = (const int32_t **)arena_array(rd, parts, sizeof *rd->palette_maps);
    rd->palette_map_counts = (size_t *)arena_array(rd, parts, sizeof *rd->palette_map_counts);
    if (!rd->palette_maps || !rd->palette_map_counts) return;
    uint64_t last = 0;
    for (size_t i = 0; i < n && !rd->r; i++) {
        cursor c = record(rd, CNA__CNB_PALETTE_MAPS, i);
        char where[48];
        label(where, "palette_maps", i);
        const uint64_t part = g_u64(&c);
        cursor mc = c;
        c.at += 16;
        const uint64_t count = g_u64(&c);
        if (part >= parts) {
            fail(rd, CNA_ERROR_INVALID_DATA, "%s.part: %llu is not below the %zu parts", where,
                 (unsigned long long)part, parts);
            return;
        }
        if (i > 0 && part <= last) {
            fail(rd, CNA_ERROR_INVALID_DATA, "%s.part: %llu after %llu; palette maps are sorted by part, one per part",
                 where, (unsigned long long)part, (unsigned long long)last);
            return;
        }
        if (count == 0 || count > CNA_EFFECT_MAX_BONES) {
            fail(rd, CNA_ERROR_INVALID_DATA, "%s.count: %llu is outside 1..%d", where, (unsigned long long)count,
                 CNA_EFFECT_MAX_BONES);
            return;
        }
        const int32_t *map = (const int32_t *)g_ref(rd, &mc, where, "map", sizeof(int32_t), count, false);
        if (rd->r) return;
        rd->palette_maps[part] = map;
        rd->palette_map_counts[part] = (size_t)count;
        last = part;
    }
}

/* ------------------------------------------------------------------ instances */

/* INSTANCES (version 4): one record per instanced mesh, in mesh order (each
 * mesh at most once), 1 or more matrices, each finite with the last row
 * (0, 0, 0, 1) (an affine T · R · S). Used in place. */
static void read_instances(reader *rd)
{
    cna_model *m = &rd->model->pub;
    const size_t n = rd->s[CNA__CNB_INSTANCES].count;
    uint64_t last = 0;
    for (size_t i = 0; i < n && !rd->r; i++) {
        cursor c = record(rd, CNA__CNB_INSTANCES, i);
        char where[48];
        label(where, "instances", i);
        const uint64_t mesh = g_u64(&c);
        cursor mc = c;
        c.at += 16;
        const uint64_t count = g_u64(&c);
        if (mesh >= m->mesh_count) {
            fail(rd, CNA_ERROR_INVALID_DATA, "%s.mesh: %llu is not below the %zu meshes", where,
                 (unsigned long long)mesh, m->mesh_count);
            return;
        }
        if (i > 0 && mesh <= last) {
            fail(rd, CNA_ERROR_INVALID_DATA, "%s.mesh: %llu after %llu; instances are sorted by mesh, one per mesh",
                 where, (unsigned long long)mesh, (unsigned long long)last);
            return;
        }
        if (count == 0) {
            fail(rd, CNA_ERROR_INVALID_DATA, "%s.count: 0; an instanced mesh has at least 1 instance", where);
            return;
        }
        const cna_mat4 *mats = (const cna_mat4 *)g_ref(rd, &mc, where, "matrices", sizeof(cna_mat4), count, false);
        if (rd->r) return;
        for (size_t k = 0; k < (size_t)count; k++) {
            const float *v = mats[k].m;
            for (int e = 0; e < 16; e++)
                if (!isfinite(v[e])) {
                    fail(rd, CNA_ERROR_INVALID_DATA, "%s.matrices[%zu]: not finite", where, k);
                    return;
                }
            if (v[3] != 0.0f || v[7] != 0.0f || v[11] != 0.0f || v[15] != 1.0f) {
                fail(rd, CNA_ERROR_INVALID_DATA, "%s.matrices[%zu]: the last row (%g, %g, %g, %g) is not (0, 0, 0, 1)",
                     where, k, (double)v[3], (double)v[7], (double)v[11], (double)v[15]);
                return;
            }
        }
        m->meshes[mesh].instances = mats;
        m->meshes[mesh].instance_count = (size_t)count;
        last = mesh;
    }
}

/* ------------------------------------------------------------------ load */

static cna_result load_checked(reader *rd);

/* Validate and fix up the file held in rd->file (inside the model's arena). */
static cna_result load(reader *rd)
{
    if (check_header(rd)) return rd->r;
    cna_allocator alloc = rd->model->allocator;
    const size_t tracks = rd->s[CNA__CNB_TRACKS].count;
    if (rd->s[CNA__CNB_DATA].size / CNA__CNB_ALIGN < UINT32_MAX - 1 && tracks < ((size_t)1 << 30)) {
        size_t entries = 64;
        while (entries < tracks / 2) entries *= 2;
        rd->keys_checked = (uint32_t(*)[2])cna__calloc(&alloc, entries, sizeof *rd->keys_checked);
        if (!rd->keys_checked) return oom(rd);
        rd->keys_mask = entries - 1;
    }
    cna_result r = load_checked(rd);
    cna__free(&alloc, rd->keys_checked);
    rd->keys_checked = NULL;
    return r;
}

static cna_result load_checked(reader *rd)
{
    uint64_t node_clip_first = 0;
    read_tracks(rd);
    if (!rd->r) read_clips(rd);
    if (!rd->r) read_weight_tracks(rd);
    if (!rd->r) read_targets(rd);
    if (!rd->r) read_morphs(rd);
    if (!rd->r) read_model(rd, &node_clip_first);
    if (!rd->r) read_bones(rd);
    if (!rd->r) read_skins(rd, rd->s[CNA__CNB_MESHES].count);
    if (!rd->r) read_images(rd);
    if (!rd->r) read_effects(rd);
    if (!rd->r && rd->version >= 4) read_palette_maps(rd);
    if (!rd->r) read_meshes(rd);
    if (!rd->r && rd->version >= 4) read_instances(rd);
    if (!rd->r) read_diagnostics(rd);
    if (rd->r) return rd->r;
    cna_model *m = &rd->model->pub;
    for (size_t i = 0; i < m->animation_count; i++)
        if (!clip_ok(rd, (size_t)node_clip_first + i, CNA_CLIP_TARGET_SCENE_NODE, m->bone_count)) return rd->r;
    m->node_clips = m->animation_count ? rd->clips + node_clip_first : NULL;
    read_markers(rd, node_clip_first);
    return rd->r;
}

bool cna_cnb_is_cnb(const void *bytes, size_t size)
{
    return bytes && size >= 4 && memcmp(bytes, CNA__CNB_MAGIC, 4) == 0;
}

/* Allocate the model and its one file buffer; the caller fills the buffer. */
static cna_result begin(const cna_cnb_load_options *opts, size_t size, reader *rd, cna_error *err)
{
    memset(rd, 0, sizeof *rd);
    rd->err = err;
    if (!cna__cnb_host_little_endian())
        return cna__error(err, CNA_ERROR_UNSUPPORTED, "cnb: big-endian hosts are not supported");
    rd->model = cna__model_new(opts ? &opts->allocator : NULL);
    if (!rd->model) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "cnb: out of memory");
    rd->arena = &rd->model->arena;
    /* Not zeroed: the caller overwrites all of it (or fails the load); only
     * the bytes after it, up to the arena's 16-byte rounding, are. */
    rd->file = (const unsigned char *)cna__arena_alloc_uninit(rd->arena, size ? size : 1);
    rd->total = size;
    if (!rd->file) {
        cna_model_free(&rd->model->pub);
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "cnb: out of memory (%zu bytes)", size);
    }
    const size_t tail = size ? (CNA__CNB_ALIGN - size % CNA__CNB_ALIGN) % CNA__CNB_ALIGN : CNA__CNB_ALIGN;
    memset((unsigned char *)rd->file + size, 0, tail);
    return CNA_OK;
}

static cna_result end(reader *rd, cna_model **out)
{
    cna_result r = load(rd);
    if (!r) r = cna__model_build_rig(rd->model, rd->err);
    if (r) {
        cna_model_free(&rd->model->pub);
        return r;
    }
    *out = &rd->model->pub;
    return CNA_OK;
}

cna_result cna_cnb_load_memory(const void *bytes, size_t size, const cna_cnb_load_options *opts,
                               cna_model **out, cna_error *err)
{
    if ((!bytes && size > 0) || !out)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "cnb: NULL %s", out ? "bytes" : "out");
    reader rd;
    cna_result r = begin(opts, size, &rd, err);
    if (r) return r;
    if (size) memcpy((void *)rd.file, bytes, size);
    return end(&rd, out);
}

cna_result cna_cnb_load_file(const char *path, const cna_cnb_load_options *opts, cna_model **out,
                             cna_error *err)
{
    if (!path || !out)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "cnb: NULL %s", path ? "out" : "path");
    FILE *f;
    uint64_t len;
    int e = cna__file_open_regular(path, &f, &len);
    if (e == CNA__FILE_NOT_REGULAR) return cna__error(err, CNA_ERROR_IO, "%s: not a regular file", path);
    if (e) return cna__error(err, CNA_ERROR_IO, "%s: %s", path, strerror(e));
    /* The header first: a file that is no .cnb of this version, or whose
     * total_size is not its size, is refused from its first 64 bytes, and one
     * above the cap from its size, before the rest is read or allocated for. */
    unsigned char head[CNA__CNB_HEADER_SIZE];
    const size_t want = len < sizeof head ? (size_t)len : sizeof head;
    size_t got = want ? fread(head, 1, want, f) : 0;
    cna_result r = CNA_OK;
    reader rd;
    memset(&rd, 0, sizeof rd);
    rd.err = err;
    if (got != want)
        r = cna__error(err, CNA_ERROR_IO, "%s: read %zu of %llu bytes", path, got, (unsigned long long)len);
    else if (check_head(&rd, head, len))
        r = rd.r;
    else if (len > (uint64_t)CNA_CNB_MAX_FILE_SIZE)
        r = cna__error(err, CNA_ERROR_LIMIT, "cnb: %llu bytes exceed the limit of %zu bytes", (unsigned long long)len,
                       (size_t)CNA_CNB_MAX_FILE_SIZE);
    if (!r) r = begin(opts, (size_t)len, &rd, err);
    if (r) {
        fclose(f);
        if (got == want) cna__error_prefix(err, "%s", path);
        return r;
    }
    memcpy((void *)rd.file, head, got);
    size_t rest = (size_t)len - got;
    size_t more = rest ? fread((unsigned char *)rd.file + got, 1, rest, f) : 0;
    fclose(f);
    if (more != rest) {
        cna_model_free(&rd.model->pub);
        return cna__error(err, CNA_ERROR_IO, "%s: read %zu of %llu bytes", path, got + more,
                          (unsigned long long)len);
    }
    r = end(&rd, out);
    if (r) cna__error_prefix(err, "%s", path);
    return r;
}
