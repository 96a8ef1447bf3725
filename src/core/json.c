/*
 * The one place cna calls cJSON's parser. cJSON records a failing parse's
 * position in a process-global variable (cJSON_GetErrorPtr), so parses are
 * serialised behind one mutex: concurrent loads on several threads (glTF
 * documents, .cnj sidecars) then never race on it. Everything after the parse
 * runs in parallel. See docs/gltf-reader.md.
 */
#include <pthread.h>

#include <cjson/cJSON.h>

#include "internal.h"

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
