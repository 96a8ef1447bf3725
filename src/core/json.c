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

static pthread_mutex_t cjson_parse_lock = PTHREAD_MUTEX_INITIALIZER;

struct cJSON *cna__json_parse(const char *text, size_t size, const char **end)
{
    pthread_mutex_lock(&cjson_parse_lock);
    cJSON *root = cJSON_ParseWithLengthOpts(text, size, end, 0);
    pthread_mutex_unlock(&cjson_parse_lock);
    return root;
}
