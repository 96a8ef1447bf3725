/*
 * fuzz/seed_inline_buffers.c — prepares fuzzing seeds from the glTF corpus.
 *
 * The fuzz harness loads one input from memory, with no file system behind it,
 * so a .gltf that keeps its buffers in external .bin files would be refused
 * before any accessor is read. This program rewrites such a file into a
 * self-contained one: every buffers[i].uri that names a readable file (relative
 * to the input's folder, percent-decoded) becomes a base64 `data:` URI. Images
 * are left as they are (a missing image is only a diagnostic for the reader).
 * A buffer whose file cannot be read keeps its URI, so the seed still exercises
 * that error path.
 *
 * Usage: fuzz_seed_inline_buffers IN.gltf OUT.gltf
 * Exit status: 0 written, 1 on an I/O or JSON error (message on stderr),
 * 2 on bad usage. Not part of the library; not installed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

static char *read_file(const char *path, size_t *size_out)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 65536, size = 0;
    char *data = malloc(cap + 1);
    while (data) {
        size_t got = fread(data + size, 1, cap - size, f);
        size += got;
        if (size < cap) break;
        cap *= 2;
        char *bigger = realloc(data, cap + 1);
        if (!bigger) free(data);
        data = bigger;
    }
    if (data && ferror(f)) {
        free(data);
        data = NULL;
    }
    fclose(f);
    if (data) {
        data[size] = '\0';
        *size_out = size;
    }
    return data;
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* "dir/" + percent-decoded uri; NULL when the URI is not a plain relative path. */
static char *resolve(const char *dir, const char *uri)
{
    if (strchr(uri, ':') || uri[0] == '/') return NULL;
    size_t dir_len = strlen(dir), uri_len = strlen(uri);
    char *path = malloc(dir_len + uri_len + 1);
    if (!path) return NULL;
    memcpy(path, dir, dir_len);
    char *out = path + dir_len;
    for (const char *p = uri; *p; p++) {
        int hi, lo;
        if (p[0] == '%' && (hi = hex_value(p[1])) >= 0 && (lo = hex_value(p[2])) >= 0) {
            *out++ = (char)(hi * 16 + lo);
            p += 2;
        } else {
            *out++ = *p;
        }
    }
    *out = '\0';
    return path;
}

static char *data_uri(const unsigned char *bytes, size_t size)
{
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    static const char prefix[] = "data:application/octet-stream;base64,";
    size_t prefix_len = sizeof prefix - 1;
    char *uri = malloc(prefix_len + (size + 2) / 3 * 4 + 1);
    if (!uri) return NULL;
    memcpy(uri, prefix, prefix_len);
    char *out = uri + prefix_len;
    for (size_t i = 0; i < size; i += 3) {
        size_t n = size - i < 3 ? size - i : 3;
        unsigned long v = (unsigned long)bytes[i] << 16;
        if (n > 1) v |= (unsigned long)bytes[i + 1] << 8;
        if (n > 2) v |= bytes[i + 2];
        *out++ = alphabet[(v >> 18) & 63];
        *out++ = alphabet[(v >> 12) & 63];
        *out++ = n > 1 ? alphabet[(v >> 6) & 63] : '=';
        *out++ = n > 2 ? alphabet[v & 63] : '=';
    }
    *out = '\0';
    return uri;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s IN.gltf OUT.gltf\n", argv[0]);
        return 2;
    }
    size_t size = 0;
    char *text = read_file(argv[1], &size);
    if (!text) {
        fprintf(stderr, "error: %s: cannot read\n", argv[1]);
        return 1;
    }
    cJSON *root = cJSON_ParseWithLength(text, size);
    free(text);
    if (!root) {
        fprintf(stderr, "error: %s: not JSON\n", argv[1]);
        return 1;
    }
    /* The input's folder, with its trailing slash ("" for a bare file name). */
    const char *slash = strrchr(argv[1], '/');
    size_t dir_len = slash ? (size_t)(slash - argv[1]) + 1 : 0;
    char *dir = malloc(dir_len + 1);
    if (!dir) return 1;
    memcpy(dir, argv[1], dir_len);
    dir[dir_len] = '\0';

    cJSON *buffers = cJSON_GetObjectItemCaseSensitive(root, "buffers");
    cJSON *buffer = NULL;
    cJSON_ArrayForEach(buffer, buffers) {
        cJSON *uri = cJSON_GetObjectItemCaseSensitive(buffer, "uri");
        if (!cJSON_IsString(uri) || !uri->valuestring) continue;
        char *path = resolve(dir, uri->valuestring);
        if (!path) continue;
        size_t bin_size = 0;
        char *bin = read_file(path, &bin_size);
        free(path);
        if (!bin) continue;
        char *inline_uri = data_uri((const unsigned char *)bin, bin_size);
        free(bin);
        if (!inline_uri) continue;
        cJSON_ReplaceItemInObjectCaseSensitive(buffer, "uri", cJSON_CreateString(inline_uri));
        free(inline_uri);
    }
    free(dir);

    char *out_text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    FILE *out = out_text ? fopen(argv[2], "wb") : NULL;
    int ok = out && fputs(out_text, out) >= 0;
    if (out && fclose(out) != 0) ok = 0;
    free(out_text);
    if (!ok) {
        fprintf(stderr, "error: %s: cannot write\n", argv[2]);
        return 1;
    }
    return 0;
}
