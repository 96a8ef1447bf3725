/*
 * The one place cna calls cJSON's parser. cJSON records a failing parse's
 * position in a process-global variable (cJSON_GetErrorPtr), so parses are
 * serialised behind one mutex: concurrent loads on several threads (glTF
 * documents, .cnj sidecars) then never race on it. Everything after the parse
 * runs in parallel. See docs/gltf-reader.md.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/internal.h"

#if defined(CJSON_NESTING_LIMIT)
_Static_assert(CJSON_NESTING_LIMIT == CNA__JSON_MAX_DEPTH, "CNA__JSON_MAX_DEPTH is cJSON's nesting limit");
#endif

static pthread_mutex_t cjson_parse_lock = PTHREAD_MUTEX_INITIALIZER;

struct cJSON *cna__json_parse(const char *text, size_t size, const char **end)
{
    pthread_mutex_lock(&cjson_parse_lock);
    cJSON *root = cJSON_ParseWithLengthOpts(text, size, end, 0);
    pthread_mutex_unlock(&cjson_parse_lock);
    return root;
}

bool cna__json_too_deep(const char *text, size_t size, size_t at)
{
    if (!text || at >= size || (text[at] != '[' && text[at] != '{')) return false;
    /* The containers open before `at`, strings (and their escapes) skipped:
     * cJSON refuses the container that would be the limit's + 1st. */
    size_t depth = 0;
    bool in_string = false;
    for (size_t i = 0; i < at; i++) {
        const char ch = text[i];
        if (in_string) {
            if (ch == '\\') i++;
            else if (ch == '"') in_string = false;
        } else if (ch == '"') {
            in_string = true;
        } else if (ch == '[' || ch == '{') {
            depth++;
        } else if ((ch == ']' || ch == '}') && depth > 0) {
            depth--;
        }
    }
    return !in_string && depth >= CNA__JSON_MAX_DEPTH;
}

/*
 * NUL characters in strings. cJSON decodes "\u0000" (and copies a raw 0x00
 * byte inside quotes) into its NUL-terminated strings, so a key or value
 * containing one would silently end there ("a.png\u0000.exe" reads as
 * "a.png"). The decoded strings cannot tell (their length is lost), so the
 * raw text is scanned instead, with cJSON's own tokenisation of strings: a
 * string runs from '"' to the next '"' not consumed by a backslash, and a
 * backslash always consumes the byte after it (so "\\u0000" is an escaped
 * backslash followed by the text u0000, not a NUL). Inside a string, a NUL is
 * the escape \u0000 (cJSON accepts no other spelling: its four hex digits are
 * all '0' and no surrogate pair decodes to U+0000) or a raw 0x00 byte.
 * Outside strings no '"' can occur in a text cJSON parsed, so the scan finds
 * exactly cJSON's string tokens, in text order. That order is the order of a
 * pre-order walk of the tree (a member's key, then its value), so the k-th
 * string token with a NUL is the k-th string of the walk, whose path the
 * walk then names.
 */
static bool string_has_nul(const char *text, size_t end, size_t *i)
{
    bool nul = false;
    size_t p = *i + 1; /* after the opening quote */
    for (; p < end && text[p] != '"'; p++) {
        if (text[p] == '\0') {
            nul = true;
        } else if (text[p] == '\\') {
            if (p + 5 < end && text[p + 1] == 'u' && text[p + 2] == '0' && text[p + 3] == '0' &&
                text[p + 4] == '0' && text[p + 5] == '0')
                nul = true;
            p++; /* the escaped byte ('u': its hex digits are neither '"' nor '\\') */
        }
    }
    *i = p; /* the closing quote */
    return nul;
}

typedef struct nul_walk {
    size_t seen, target;
    char *path;
    size_t cap;
    bool is_key;
    size_t key_index;
} nul_walk;

/* Pre-order walk counting strings (keys and string values); true once the
 * target-th is found, with w->path holding its JSON path. */
static bool nul_find(const cJSON *v, nul_walk *w, size_t len)
{
    if (cJSON_IsString(v)) return w->seen++ == w->target;
    if (!cJSON_IsArray(v) && !cJSON_IsObject(v)) return false;
    size_t index = 0;
    for (const cJSON *c = v->child; c; c = c->next, index++) {
        size_t n = len < w->cap ? len : w->cap - 1;
        w->path[n] = '\0';
        if (cJSON_IsObject(v)) {
            if (w->seen++ == w->target) { /* the path stays the object's */
                w->is_key = true;
                w->key_index = index;
                return true;
            }
            if (n < w->cap) snprintf(w->path + n, w->cap - n, "%s%s", n ? "." : "", c->string ? c->string : "");
        } else if (n < w->cap) {
            snprintf(w->path + n, w->cap - n, "[%zu]", index);
        }
        size_t child_len = strlen(w->path);
        if (nul_find(c, w, child_len)) return true;
    }
    w->path[len < w->cap ? len : w->cap - 1] = '\0';
    return false;
}

bool cna__json_find_nul(const char *text, size_t end, const struct cJSON *root, char *path, size_t cap,
                        bool *is_key, size_t *key_index)
{
    size_t ordinal = 0, i = 0;
    bool found = false;
    for (; i < end; i++) {
        if (text[i] != '"') continue;
        if (string_has_nul(text, end, &i)) {
            found = true;
            break;
        }
        ordinal++;
    }
    if (!found || !root || !path || cap == 0) return false;
    nul_walk w = {0, ordinal, path, cap, false, 0};
    path[0] = '\0';
    if (!nul_find(root, &w, 0) || !path[0]) snprintf(path, cap, "(the root)");
    cna__utf8_repair(path); /* member names on the path may be cut inside a character */
    if (is_key) *is_key = w.is_key;
    if (key_index) *key_index = w.key_index;
    return true;
}
