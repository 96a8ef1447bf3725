/* URIs: data: URIs with a strict base64 decoder, percent-decoding (RFC 3986),
 * and the path-safety rules for external files. */
#include <string.h>

#include "gltf/gltf_internal.h"

static int lower(int ch)
{
    return ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch;
}

bool cna__gltf_uri_is_data(const char *uri)
{
    const char *d = "data:";
    for (size_t i = 0; i < 5; i++)
        if (lower((unsigned char)uri[i]) != d[i]) return false;
    return true;
}

static int hex_value(unsigned char ch);

/* Percent-decoded bytes of a non-base64 data URI payload (RFC 2397). */
static cna_result percent_payload(cna__gltf_arena *arena, const char *in, size_t len, uint8_t **out, size_t *size,
                                  cna_error *err)
{
    uint8_t *dst = (uint8_t *)cna__gltf_arena_alloc_raw(arena, len);
    if (!dst) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "out of memory for %zu bytes", len);
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        if (in[i] != '%') {
            dst[o++] = (uint8_t)in[i];
            continue;
        }
        int hi = i + 2 < len ? hex_value((unsigned char)in[i + 1]) : -1;
        int lo = hi >= 0 ? hex_value((unsigned char)in[i + 2]) : -1;
        if (hi < 0 || lo < 0)
            return cna__error(err, CNA_ERROR_PARSE, "data URI: bad percent-escape at character %zu", i);
        dst[o++] = (uint8_t)(hi * 16 + lo);
        i += 2;
    }
    *out = dst;
    *size = o;
    return CNA_OK;
}

cna_result cna__gltf_data_uri_decode(cna__gltf_arena *arena, const char *uri, const uint8_t **data, size_t *size,
                                const char **mime, size_t *mime_len, cna_error *err)
{
    const char *head = uri + 5; /* after "data:" */
    const char *comma = strchr(head, ',');
    if (!comma) return cna__error(err, CNA_ERROR_PARSE, "data URI has no ','");
    size_t head_len = (size_t)(comma - head);
    const char *semi = memchr(head, ';', head_len);
    if (mime) *mime = head;
    if (mime_len) *mime_len = semi ? (size_t)(semi - head) : head_len;
    bool base64 = head_len >= 7 && memcmp(comma - 7, ";base64", 7) == 0;
    /* RFC 2397: each parameter between the media type and ";base64" is attribute=value. */
    const char *params_end = base64 ? comma - 7 : comma;
    for (const char *p = semi; p && p < params_end;) {
        const char *next = memchr(p + 1, ';', (size_t)(params_end - p - 1));
        const char *end = next ? next : params_end;
        const char *eq = memchr(p + 1, '=', (size_t)(end - p - 1));
        if (!eq || eq == p + 1)
            return cna__error(err, CNA_ERROR_PARSE, "data URI: parameter \"%.*s\" is not attribute=value",
                              (int)((size_t)(end - p - 1) > 40 ? 40 : (size_t)(end - p - 1)), p + 1);
        p = next;
    }
    const char *payload = comma + 1;
    size_t payload_len = strlen(payload), n = 0;
    uint8_t *bytes = NULL;
    if (!base64) {
        cna_result r = percent_payload(arena, payload, payload_len, &bytes, &n, err);
        if (r) return r;
    } else {
        if (!cna__gltf_base64_decoded_size(payload, payload_len, &n))
            return cna__error(err, CNA_ERROR_PARSE, "base64: length %zu is not valid", payload_len);
        bytes = (uint8_t *)cna__gltf_arena_alloc_raw(arena, n);
        if (!bytes) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "out of memory for %zu bytes", n);
        cna_result r = cna__gltf_base64_decode(payload, payload_len, bytes, err);
        if (r) return r;
    }
    *data = bytes;
    *size = n;
    return CNA_OK;
}

/* b64_value as a table: 255 for a byte outside the alphabet. */
static const uint8_t b64_table[256] = {
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,  62, 255, 255, 255,  63,
     52,  53,  54,  55,  56,  57,  58,  59,  60,  61, 255, 255, 255, 255, 255, 255,
    255,   0,   1,   2,   3,   4,   5,   6,   7,   8,   9,  10,  11,  12,  13,  14,
     15,  16,  17,  18,  19,  20,  21,  22,  23,  24,  25, 255, 255, 255, 255, 255,
    255,  26,  27,  28,  29,  30,  31,  32,  33,  34,  35,  36,  37,  38,  39,  40,
     41,  42,  43,  44,  45,  46,  47,  48,  49,  50,  51, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
};

/* 0..63 for a base64 character, -1 otherwise. */
static int b64_value(unsigned char ch)
{
    if (ch >= 'A' && ch <= 'Z') return ch - 'A';
    if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9') return ch - '0' + 52;
    if (ch == '+') return 62;
    if (ch == '/') return 63;
    return -1;
}

/* Characters of data after stripping up to two '=' of padding; false when the
 * padding is malformed or the length impossible. */
static bool b64_data_length(const char *in, size_t len, size_t *data_len)
{
    size_t n = len;
    if (len % 4 == 0 && n > 0 && in[n - 1] == '=') n--;
    if (len % 4 == 0 && n > 0 && in[n - 1] == '=') n--;
    if (n % 4 == 1) return false;
    if (len % 4 != 0 && n != len) return false; /* padding only on complete quads */
    *data_len = n;
    return true;
}

bool cna__gltf_base64_decoded_size(const char *in, size_t len, size_t *out)
{
    size_t n;
    if (!b64_data_length(in, len, &n)) return false;
    *out = n / 4 * 3 + (n % 4 ? n % 4 - 1 : 0);
    return true;
}

cna_result cna__gltf_base64_decode(const char *in, size_t len, uint8_t *out, cna_error *err)
{
    size_t n;
    if (!b64_data_length(in, len, &n))
        return cna__error(err, CNA_ERROR_PARSE, "base64: length %zu is not valid", len);
    uint32_t acc = 0;
    size_t bits = 0, o = 0, i = 0;
    /* whole groups of 4 characters, 3 bytes each; a group with anything
     * outside the alphabet is left to the loop below, which reports it */
    for (; i + 4 <= n; i += 4) {
        const uint32_t a = b64_table[(unsigned char)in[i]], b = b64_table[(unsigned char)in[i + 1]],
                       c = b64_table[(unsigned char)in[i + 2]], d = b64_table[(unsigned char)in[i + 3]];
        if ((a | b | c | d) & 0x80u) break;
        const uint32_t w = a << 18 | b << 12 | c << 6 | d;
        out[o] = (uint8_t)(w >> 16);
        out[o + 1] = (uint8_t)(w >> 8);
        out[o + 2] = (uint8_t)w;
        o += 3;
    }
    for (; i < n; i++) {
        int v = b64_value((unsigned char)in[i]);
        if (v < 0) {
            if (in[i] == '=')
                return cna__error(err, CNA_ERROR_PARSE, "base64: '=' at character %zu before the end", i);
            return cna__error(err, CNA_ERROR_PARSE, "base64: invalid character 0x%02X at character %zu",
                              (unsigned)(unsigned char)in[i], i);
        }
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (uint8_t)(acc >> bits);
            acc &= (1u << bits) - 1u;
        }
    }
    if (acc != 0) return cna__error(err, CNA_ERROR_PARSE, "base64: final character has non-zero unused bits");
    return CNA_OK;
}

static int hex_value(unsigned char ch)
{
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

cna_result cna__gltf_uri_percent_decode(cna__gltf_arena *arena, const char *uri, char **out, cna_error *err)
{
    size_t len = strlen(uri);
    char *dst = cna__gltf_arena_strndup(arena, uri, len);
    if (!dst) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "out of memory");
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        if (uri[i] != '%') {
            dst[o++] = uri[i];
            continue;
        }
        int hi = i + 2 < len ? hex_value((unsigned char)uri[i + 1]) : -1;
        int lo = hi >= 0 ? hex_value((unsigned char)uri[i + 2]) : -1;
        if (hi < 0 || lo < 0)
            return cna__error(err, CNA_ERROR_PARSE, "bad percent-escape at character %zu", i);
        if (hi == 0 && lo == 0)
            return cna__error(err, CNA_ERROR_PARSE, "%%00 is not allowed");
        dst[o++] = (char)(hi * 16 + lo);
        i += 2;
    }
    dst[o] = '\0';
    *out = dst;
    return CNA_OK;
}

/* true when the text before the first '/' is an RFC 3986 scheme followed by ':'. */
static bool has_scheme(const char *s)
{
    if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z'))) return false;
    for (size_t i = 1; s[i] && s[i] != '/'; i++) {
        char ch = s[i];
        if (ch == ':') return true;
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '+' ||
                  ch == '-' || ch == '.';
        if (!ok) return false;
    }
    return false;
}

cna_result cna__gltf_uri_check_relative(const char *decoded, bool allow_dotdot, cna_error *err)
{
    if (decoded[0] == '\0') return cna__error(err, CNA_ERROR_INVALID_DATA, "empty URI");
    if (decoded[0] == '/')
        return cna__error(err, CNA_ERROR_INVALID_DATA, "absolute paths are refused");
    if (strchr(decoded, '\\'))
        return cna__error(err, CNA_ERROR_INVALID_DATA, "backslashes are refused");
    if (has_scheme(decoded))
        return cna__error(err, CNA_ERROR_INVALID_DATA,
                          "URIs with a scheme are refused (only relative paths are resolved)");
    for (const char *seg = decoded; seg && !allow_dotdot;) {
        const char *slash = strchr(seg, '/');
        size_t n = slash ? (size_t)(slash - seg) : strlen(seg);
        if (n == 2 && seg[0] == '.' && seg[1] == '.')
            return cna__error(err, CNA_ERROR_INVALID_DATA,
                              "\"..\" segments are refused (cna_gltf_options.asset_root allows them inside a root "
                              "folder)");
        seg = slash ? slash + 1 : NULL;
    }
    return CNA_OK;
}
