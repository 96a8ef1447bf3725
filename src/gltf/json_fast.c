/*
 * A fast path for the glTF JSON: builds, as cna__json nodes (gltf_internal.h),
 * the tree cJSON_ParseWithLengthOpts would build (same node types, values,
 * keys and order), with every node and string carved from an arena (or, for
 * the keys and values glTF repeats, taken from a static table) and freed at
 * once, and numbers converted without strtod where that is exact.
 *
 * It accepts only a plain subset of JSON: whitespace ' ', '\t', '\n', '\r';
 * strings without control bytes and without \u escapes; numbers of the RFC
 * 8259 grammar, shorter than 63 bytes, not followed by a byte cJSON would
 * read as part of the number; nesting up to 256 levels; nothing but
 * whitespace or NUL after the root. Whatever lies outside the subset gives no
 * tree, and the caller parses the same bytes with cJSON and copies its tree
 * (cna__gltf_json_from_cjson, at the end), so every refusal, error position
 * and quirk stays cJSON's; an allocation failure is reported.
 *
 * Numbers: with at most 19 significant digits forming an integer m <= 2^53
 * and a decimal exponent e in [-22, 22], m · 10^e (or m / 10^-e) is one
 * correctly rounded operation on exact operands, the value strtod gives
 * (Clinger's fast path); other numbers go through strtod as cJSON calls it
 * (when the locale's decimal point is '.'; otherwise cJSON parses the text).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gltf/gltf_internal.h"

#define FAST_MAX_DEPTH 256

typedef struct fast_parser {
    const uint8_t *p, *end;
    cna__gltf_arena *arena;
    int depth;
    bool oom;
} fast_parser;

static void skip_ws_run(fast_parser *f)
{
    while (f->p < f->end && (*f->p == ' ' || *f->p == '\n' || *f->p == '\r' || *f->p == '\t')) f->p++;
}

static inline void skip_ws(fast_parser *f)
{
    if (f->p < f->end && *f->p > ' ') return; /* the common case: no whitespace */
    skip_ws_run(f);
}

static cna__json *new_node(fast_parser *f)
{
    cna__json *n = (cna__json *)cna__gltf_arena_alloc_raw(f->arena, sizeof(cna__json));
    if (!n) {
        f->oom = true;
        return NULL;
    }
    memset(n, 0, sizeof *n); /* a constant size: inlined */
    return n;
}

#define COMMON_MAX_LEN 31

/* Keys and values that glTF files repeat thousands of times (property names,
 * accessor types, interpolations, target paths): a string equal to one of
 * them points at this table instead of a copy in the arena. The tree is never
 * given to cJSON_Delete and its strings are only read. Sorted by length;
 * each padded with NULs to COMMON_MAX_LEN + 1 bytes (for 8-byte compares). */
static const char common_strings[][COMMON_MAX_LEN + 1] = {
    "max", "min", "uri", "MASK", "MAT2", "MAT3", "MAT4", "STEP", "VEC2", "VEC3", "VEC4", "mesh",
    "mode", "name", "node", "path", "skin", "type", "BLEND", "asset", "count", "index", "input",
    "nodes", "scale", "scene", "skins", "wrapS", "wrapT", "LINEAR", "NORMAL", "OPAQUE", "SCALAR",
    "buffer", "camera", "extras", "images", "joints", "matrix", "meshes", "output", "scenes", "source",
    "sparse", "target", "values", "COLOR_0", "TANGENT", "buffers", "cameras", "indices", "sampler",
    "targets", "version", "weights", "JOINTS_0", "JOINTS_1", "POSITION", "channels", "children",
    "material", "mimeType", "rotation", "samplers", "skeleton", "strength", "texCoord", "textures",
    "WEIGHTS_0", "WEIGHTS_1", "accessors", "alphaMode", "copyright", "generator", "image/png",
    "magFilter", "materials", "minFilter", "transform", "TEXCOORD_0", "TEXCOORD_1", "animations",
    "attributes", "bufferView", "byteLength", "byteOffset", "byteStride", "extensions", "image/jpeg",
    "minVersion", "normalized", "primitives", "CUBICSPLINE", "alphaCutoff", "bufferViews",
    "doubleSided", "translation", "componentType", "interpolation", "normalTexture", "emissiveFactor",
    "extensionsUsed", "metallicFactor", "baseColorFactor", "emissiveTexture", "roughnessFactor",
    "baseColorTexture", "occlusionTexture", "extensionsRequired", "inverseBindMatrices",
    "pbrMetallicRoughness", "KHR_mesh_quantization", "KHR_texture_transform",
    "metallicRoughnessTexture", "KHR_materials_emissive_strength",
};
/* Open addressing over common_strings: slot common_hash(s, len), then the
 * following slots, hold index + 1 of a table string, 0 ends the search.
 * Filled with each string at its first free slot from its hash; a stale
 * entry only costs a copy, as every hit is compared in full. */
static const unsigned char common_slot[256] = {
      0,   4,   0,  31,   0,  67,  72, 101,   0,   0,  64,   0, 113,  61,  69,   0,
     25,  70,  74,   0,  34,   0,  52,   0, 106, 110,  56,  84,   0,  57,  82,   2,
     48,  32,  19,   0,  22,   0,   0,   0, 103,   0,   0,   0,  95,  33,   0,  88,
     50,   0,   0,  60,  49,   0,   0,   0,  24,   0,   0,  89,  26,   0,   0,  77,
     54,   0,   0,   0,   0,   9, 100,   0,  10,  46, 102,  11,  63,  90,   0,   0,
      0,   0,   0,  37,  14,   0,   0,   0,  83,  97, 114,   0,   0,   0,   0,  85,
      0,   0,   0,  80,   0,   0,  17,  81,  99,  79,   0,   0,   0,   0,   0,   0,
     75,   0,   0,   0,  68,  93,   0, 115,   0,   0,  40,   0, 104,   0,  96,   0,
      0,   0,   0,   0,   0,  20,  51,  92,   0,   0,   0,   0,   0,   0,  86,   0,
      0,   0,  27, 107,   0,  47,   0,   0,  12,   0,   0,   0,  23,   0,  58,  18,
      8,   0,   0,  45,   0,   0,   0,  38,   0,  21,   0,   3,   0,   0,  62,  30,
     36,  59,  65,   0,  98,   0,   0,   0,  16,   0,   0,   0,   0,  53,   0, 112,
      0,   5, 108,   0,   6,   0,   0,   7,   0,   0,   0,   0,   0,   0,   0,   0,
      0,   0,  55,   0,   0,   0,   0,   0,   0,  76,  78,   0,   0,  35,   0,   0,
      0,   0,   0,  41,   0,   1,  42,   0,  43,  44,  13, 109,   0,   0, 111,   0,
      0,  15,   0,   0,  91,   0,  28,  39,  71,  29,  94,  87,  73, 105,   0,  66,
};

static unsigned common_hash(const uint8_t *s, size_t len)
{
    return (unsigned)(len * 29 + (size_t)s[0] * 7 + (size_t)s[len - 1] * 3 + (size_t)s[len / 2] * 11) & 255u;
}

static uint64_t load8(const void *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* The len bytes at s (followed by at least `avail` - len readable bytes)
 * equal the first len bytes of the padded table string w. */
static bool same_bytes(const uint8_t *s, size_t len, size_t avail, const char *w)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (len < 8 && avail >= 8) { /* the len low bytes of one load */
        uint64_t x = (load8(s) ^ load8(w)) << (64 - 8 * len);
        return x == 0;
    }
    if (len >= 8) { /* 8 at a time, the last 8 overlapping */
        size_t i = 0;
        for (; i + 8 < len; i += 8)
            if (load8(s + i) != load8(w + i)) return false;
        return load8(s + len - 8) == load8(w + len - 8);
    }
#else
    (void)avail;
#endif
    size_t k = 0;
    while (k < len && (uint8_t)w[k] == s[k]) k++;
    return k == len;
}

/* The table's copy of the len bytes at s, or NULL; avail: the bytes readable from s. */
static char *common_string(const uint8_t *s, size_t len, size_t avail)
{
    if (len == 0 || len > COMMON_MAX_LEN) return NULL;
    for (unsigned h = common_hash(s, len);; h = (h + 1) & 255u) {
        unsigned slot = common_slot[h];
        if (slot == 0) return NULL;
        const char *w = common_strings[slot - 1];
        if (w[len] == '\0' && (uint8_t)w[0] == s[0] && same_bytes(s, len, avail, w)) return (char *)(uintptr_t)w;
    }
}

/* Bytes that end the plain run of a string: '"', '\\' and control bytes. */
static const uint8_t string_stop[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    ['"'] = 1, ['\\'] = 1};

#if defined(__GNUC__) || defined(__clang__)
#define LONG_RUN_NOINLINE __attribute__((noinline)) /* keeps the short-string path lean */
#else
#define LONG_RUN_NOINLINE
#endif

/* From q, the first '"', '\\' or control byte (or end): 8 bytes at a time,
 * then byte-wise. For long strings (data URIs). */
static LONG_RUN_NOINLINE const uint8_t *long_run(const uint8_t *q, const uint8_t *end)
{
    const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
    while ((size_t)(end - q) >= 8) {
        const uint64_t v = load8(q), quote = v ^ (ones * '"'), slash = v ^ (ones * '\\');
        if (((quote - ones) & ~quote & highs) | ((slash - ones) & ~slash & highs) | ((v - ones * 0x20) & ~v & highs))
            break;
        q += 8;
    }
    while (q < end && !string_stop[*q]) q++;
    return q;
}

/* At '"': the string's bytes, unescaped, into the arena. */
static char *parse_string(fast_parser *f)
{
    const uint8_t *s = f->p + 1, *q = s;
    bool escaped = false;
    for (;;) {
        /* a byte at a time for 16 bytes (keys are short), then long_run */
        const uint8_t *first = (size_t)(f->end - q) > 16 ? q + 16 : f->end;
        while (q < first && !string_stop[*q]) q++;
        if (q == first && q < f->end) q = long_run(q, f->end);
        if (q >= f->end || *q == '"') break;
        if (*q < 0x20) return NULL;
        if (*q == '\\') {
            if (q + 1 >= f->end || q[1] == 'u') return NULL;
            escaped = true;
            q++;
        }
        q++;
    }
    if (q >= f->end) return NULL;
    f->p = q + 1;
    if (!escaped) {
        char *common = common_string(s, (size_t)(q - s), (size_t)(f->end - s));
        if (common) return common;
        char *copy = cna__gltf_arena_strndup(f->arena, (const char *)s, (size_t)(q - s));
        if (!copy) f->oom = true;
        return copy;
    }
    char *out = (char *)cna__gltf_arena_alloc_raw(f->arena, (size_t)(q - s) + 1);
    if (!out) {
        f->oom = true;
        return NULL;
    }
    size_t n = 0;
    for (const uint8_t *r = s; r < q; r++) {
        if (*r != '\\') {
            out[n++] = (char)*r;
            continue;
        }
        r++;
        switch (*r) {
        case 'b': out[n++] = '\b'; break;
        case 'f': out[n++] = '\f'; break;
        case 'n': out[n++] = '\n'; break;
        case 'r': out[n++] = '\r'; break;
        case 't': out[n++] = '\t'; break;
        case '"':
        case '\\':
        case '/': out[n++] = (char)*r; break;
        default: return NULL;
        }
    }
    out[n] = '\0';
    return out;
}

static bool is_digit(uint8_t c)
{
    return c >= '0' && c <= '9';
}

/* Bytes cJSON copies into its number buffer. */
static bool is_number_byte(uint8_t c)
{
    return is_digit(c) || c == '+' || c == '-' || c == 'e' || c == 'E' || c == '.';
}

static bool parse_number(fast_parser *f, cna__json *item)
{
    static const double pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                     1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const uint8_t *s = f->p, *p = f->p, *end = f->end;
    bool neg = false, exact = true;
    uint64_t m = 0;
    int digits = 0, frac = 0, exp = 0;
    if (*p == '-') neg = true, p++;
    if (p >= end || !is_digit(*p)) return false;
    if (*p == '0') {
        p++;
    } else {
        for (; p < end && is_digit(*p); p++) {
            if (digits < 19) m = m * 10 + (uint64_t)(*p - '0'), digits++;
            else exact = false;
            if (!exact) frac--; /* an integer digit past the 19th: one more power of ten */
        }
    }
    if (p < end && *p == '.') {
        p++;
        if (p >= end || !is_digit(*p)) return false;
        for (; p < end && is_digit(*p); p++) {
            if (m == 0 && *p == '0') {
                frac++;
                continue;
            }
            if (digits < 19) m = m * 10 + (uint64_t)(*p - '0'), digits++, frac++;
            else exact = false;
        }
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        bool eneg = false;
        if (p < end && (*p == '+' || *p == '-')) eneg = *p == '-', p++;
        if (p >= end || !is_digit(*p)) return false;
        for (; p < end && is_digit(*p); p++) {
            if (exp > 10000) exact = false;
            else exp = exp * 10 + (*p - '0');
        }
        if (eneg) exp = -exp;
    }
    if (p < end && is_number_byte(*p)) return false;
    size_t len = (size_t)(p - s);
    if (len >= 63) return false;
    double v;
    int e10 = exp - frac;
    if (exact && m <= ((uint64_t)1 << 53) && e10 >= -22 && e10 <= 22) {
        v = (double)m;
        if (e10 >= 0) v *= pow10[e10];
        else v /= pow10[-e10];
        if (neg) v = -v;
    } else {
        /* strtod on a NUL-terminated copy; in a locale whose decimal point is
         * not '.', strtod stops there and cJSON (which substitutes the point)
         * takes the text: no localeconv here, which is not thread-safe */
        char buf[64], *after = NULL;
        memcpy(buf, s, len);
        buf[len] = '\0';
        v = strtod(buf, &after);
        if (after != buf + len) return false;
    }
    item->type = cJSON_Number;
    item->valuedouble = v;
    f->p = p;
    return true;
}

static bool parse_value(fast_parser *f, cna__json *item);

static bool parse_container(fast_parser *f, cna__json *item, bool object)
{
    const uint8_t close = object ? '}' : ']';
    if (++f->depth > FAST_MAX_DEPTH) return false;
    f->p++;
    skip_ws(f);
    item->type = object ? cJSON_Object : cJSON_Array;
    if (f->p < f->end && *f->p == close) {
        f->p++;
        f->depth--;
        return true;
    }
    cna__json *head = NULL, *cur = NULL;
    for (;;) {
        cna__json *node = new_node(f);
        if (!node) return false;
        if (!head) head = node;
        else cur->next = node;
        cur = node;
        skip_ws(f);
        if (object) {
            if (f->p >= f->end || *f->p != '"') return false;
            node->string = parse_string(f);
            if (!node->string) return false;
            skip_ws(f);
            if (f->p >= f->end || *f->p != ':') return false;
            f->p++;
            skip_ws(f);
        }
        if (!parse_value(f, node)) return false;
        skip_ws(f);
        if (f->p >= f->end) return false;
        if (*f->p == ',') {
            f->p++;
            continue;
        }
        if (*f->p != close) return false;
        f->p++;
        break;
    }
    item->child = head;
    f->depth--;
    return true;
}

static bool literal(fast_parser *f, const char *word, size_t len)
{
    if ((size_t)(f->end - f->p) < len || memcmp(f->p, word, len) != 0) return false;
    f->p += len;
    return true;
}

static bool parse_value(fast_parser *f, cna__json *item)
{
    if (f->p >= f->end) return false;
    switch (*f->p) {
    case '{': return parse_container(f, item, true);
    case '[': return parse_container(f, item, false);
    case '"':
        item->type = cJSON_String;
        item->valuestring = parse_string(f);
        return item->valuestring != NULL;
    case 't':
        item->type = cJSON_True;
        return literal(f, "true", 4);
    case 'f': item->type = cJSON_False; return literal(f, "false", 5);
    case 'n': item->type = cJSON_NULL; return literal(f, "null", 4);
    default:
        if (*f->p == '-' || is_digit(*f->p)) return parse_number(f, item);
        return false;
    }
}

bool cna__gltf_json_fast_parse(const uint8_t *text, size_t size, cna__gltf_arena *arena, const cna__json **out)
{
    fast_parser f = {text, text + size, arena, 0, false};
    *out = NULL;
    skip_ws(&f);
    cna__json *root = new_node(&f);
    if (!root || !parse_value(&f, root)) return !f.oom;
    for (; f.p < f.end; f.p++)
        if (*f.p != ' ' && *f.p != '\t' && *f.p != '\n' && *f.p != '\r' && *f.p != '\0') return true;
    *out = root;
    return true;
}

/* ------------------------------------------------------------------ cJSON's tree */

/* Recursive: cJSON refuses nesting deeper than CJSON_NESTING_LIMIT (1000). */
static cna__json *copy_cjson(const cJSON *v, cna__gltf_arena *arena)
{
    cna__json *n = (cna__json *)cna__gltf_arena_alloc_raw(arena, sizeof *n);
    if (!n) return NULL;
    memset(n, 0, sizeof *n);
    n->type = v->type & 0xFF;
    if (v->string && !(n->string = cna__gltf_arena_strdup(arena, v->string))) return NULL;
    switch (n->type) {
    case cJSON_Number: n->valuedouble = v->valuedouble; break;
    case cJSON_String:
        if (v->valuestring && !(n->valuestring = cna__gltf_arena_strdup(arena, v->valuestring))) return NULL;
        break;
    case cJSON_Array:
    case cJSON_Object: {
        cna__json *cur = NULL;
        for (const cJSON *e = v->child; e; e = e->next) {
            cna__json *copy = copy_cjson(e, arena);
            if (!copy) return NULL;
            if (cur) cur->next = copy;
            else n->child = copy;
            cur = copy;
        }
        break;
    }
    default: break;
    }
    return n;
}

const cna__json *cna__gltf_json_from_cjson(const cJSON *v, cna__gltf_arena *arena)
{
    return v ? copy_cjson(v, arena) : NULL;
}
