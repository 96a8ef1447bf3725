/* Files and external URIs: reading whole files with a size cap, and resolving
 * an external URI either through the caller's resolver or, for load_file,
 * relative to the asset's folder with the path-safety rules of uri.c plus a
 * real-path check (symbolic links may not lead outside the folder). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gltf/gltf_internal.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* Open path as a regular file of at most max_size bytes; *n: its size. Never
 * blocks: a FIFO or device is refused before anything is read from it. */
static cna_result open_file(const char *path, size_t max_size, FILE **out, size_t *n, cna_error *err)
{
    FILE *f;
    uint64_t size;
    int e = cna__file_open_regular(path, &f, &size);
    if (e == CNA__FILE_NOT_REGULAR) return cna__error(err, CNA_ERROR_IO, "\"%s\": not a regular file", path);
    if (e) return cna__error(err, CNA_ERROR_IO, "cannot open \"%s\": %s", path, strerror(e));
    if (size > (uint64_t)max_size) {
        fclose(f);
        return cna__error(err, CNA_ERROR_LIMIT, "\"%s\": %llu bytes exceed the limit of %zu bytes", path,
                          (unsigned long long)size, max_size);
    }
    *out = f;
    *n = (size_t)size;
    return CNA_OK;
}

static cna_result read_bytes(FILE *f, const char *path, uint8_t *buf, size_t n, cna_error *err)
{
    if (n && fread(buf, 1, n, f) != n) return cna__error(err, CNA_ERROR_IO, "cannot read \"%s\"", path);
    return CNA_OK;
}

cna_result cna__gltf_read_file(cna__gltf_arena *arena, const char *path, size_t max_size, uint8_t **data, size_t *size,
                          cna_error *err)
{
    FILE *f;
    size_t n;
    cna_result r = open_file(path, max_size, &f, &n, err);
    if (r) return r;
    uint8_t *buf = (uint8_t *)cna__gltf_arena_alloc_raw(arena, n);
    if (!buf) r = cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "\"%s\": out of memory for %zu bytes", path, n);
    if (!r) r = read_bytes(f, path, buf, n, err);
    fclose(f);
    if (r) return r;
    *data = buf;
    *size = n;
    return CNA_OK;
}

cna_result cna__gltf_read_input(cna__gltf_arena *arena, cna__gltf_arena *json_arena, const char *path, size_t max_size,
                                cna__gltf_input *in, cna_error *err)
{
    memset(in, 0, sizeof *in);
    FILE *f;
    size_t n;
    cna_result r = open_file(path, max_size, &f, &n, err);
    if (r) return r;
    size_t head = n < CNA__GLTF_GLB_HEAD ? n : CNA__GLTF_GLB_HEAD, json_size = 0;
    r = read_bytes(f, path, in->head, head, err);
    if (!r && cna__gltf_glb_split_size(in->head, n, &json_size)) {
        /* A GLB: the JSON chunk in a block of its own, freed once parsed, so
         * that its pages serve the document and the model; the rest (BIN) at
         * the start of a block of the file's size, as the whole file was
         * before, whose remainder (the JSON's share) then holds the document's
         * own arrays and strings. Besides sparing those blocks, this keeps the
         * heap trim threshold that glibc's malloc derives from the largest
         * block freed (twice its size): with a block of only the rest's size
         * the threshold drops, and a load faults its heap in again each time. */
        size_t rest = n - CNA__GLTF_GLB_HEAD - json_size;
        in->json = (uint8_t *)cna__gltf_arena_alloc_raw(json_arena, json_size);
        in->rest = (uint8_t *)cna__gltf_arena_alloc_head(arena, rest, n);
        if (!in->json || !in->rest)
            r = cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "\"%s\": out of memory for %zu bytes", path, n);
        if (!r) r = read_bytes(f, path, in->json, json_size, err);
        if (!r) r = read_bytes(f, path, in->rest, rest, err);
        in->json_size = json_size;
        in->split = true;
    } else if (!r) {
        in->data = (uint8_t *)cna__gltf_arena_alloc_raw(arena, n);
        if (!in->data) r = cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "\"%s\": out of memory for %zu bytes", path, n);
        if (!r) {
            memcpy(in->data, in->head, head);
            r = read_bytes(f, path, in->data + head, n - head, err);
        }
    }
    fclose(f);
    in->size = n;
    return r;
}

static cna_result resolve_with_callback(cna__gltf_ctx *c, cna_gltf_uri_kind kind, const char *decoded,
                                        const uint8_t **data, size_t *size, cna_error *err)
{
    const void *bytes = NULL;
    size_t n = 0;
    cna_error e;
    e.code = CNA_OK;
    e.message[0] = '\0';
    cna_result r = c->resolve(c->resolver_user_data, kind, decoded, &bytes, &n, &e);
    if (r != CNA_OK) {
        e.message[sizeof e.message - 1] = '\0';
        if ((unsigned)r >= (unsigned)CNA_RESULT_COUNT) r = CNA_ERROR_IO;
        return cna__error(err, r, "%s", e.message[0] ? e.message : "the resolver could not resolve it");
    }
    if (n > c->max_size) {
        r = cna__error(err, CNA_ERROR_LIMIT, "%zu bytes exceed the limit of %zu bytes", n, c->max_size);
    } else if (kind == CNA_GLTF_URI_BUFFER) {
        uint8_t *copy = (uint8_t *)cna__gltf_arena_alloc_raw(c->arena, n);
        if (!bytes && n)
            r = cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "the resolver returned NULL data of %zu bytes", n);
        else if (!copy)
            r = cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "out of memory for %zu bytes", n);
        else {
            if (n) memcpy(copy, bytes, n);
            *data = copy;
            *size = n;
        }
    }
    if (c->release && (bytes || n)) c->release(c->resolver_user_data, bytes, n);
    return r;
}

/* realpath of the base folder, computed once. */
static cna_result base_real(cna__gltf_ctx *c, cna_error *err)
{
    if (c->base_real) return CNA_OK;
    char buf[PATH_MAX];
    int e = cna__real_path(c->base_dir, buf, sizeof buf);
    if (e) return cna__error(err, CNA_ERROR_IO, "cannot resolve the folder \"%s\": %s", c->base_dir, strerror(e));
    c->base_real = cna__gltf_arena_strdup(&c->scratch, buf);
    if (!c->base_real) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "out of memory");
    return CNA_OK;
}

static bool inside(const char *base, const char *real)
{
    size_t n = strlen(base);
    if (n == 0) return false;
    /* the root, "/" (or on Windows a drive's, "C:/"), holds every path that starts with it */
    if (base[n - 1] == '/') return strncmp(base, real, n) == 0;
    return strncmp(base, real, n) == 0 && real[n] == '/';
}

static cna_result resolve_in_folder(cna__gltf_ctx *c, cna_gltf_uri_kind kind, const char *decoded,
                                    const uint8_t **data, size_t *size, const char **path, cna_error *err)
{
    cna_result r = cna__gltf_uri_check_relative(decoded, c->root_real != NULL, err);
    if (r) return r;
    if (!c->root_real) r = base_real(c, err);
    if (r) return r;
    size_t dir_len = strlen(c->base_dir), uri_len = strlen(decoded), total;
    if (!cna__add_size(dir_len, uri_len, &total) || !cna__add_size(total, 2, &total))
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "path too long");
    char *full = (char *)cna__gltf_arena_alloc_raw(c->arena, total);
    if (!full) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "out of memory");
    cna__gltf_pathf(full, total, "%s/%s", c->base_dir, decoded);
    char real[PATH_MAX];
    int e = cna__real_path(full, real, sizeof real);
    if (e) return cna__error(err, CNA_ERROR_IO, "cannot open \"%s\": %s", full, strerror(e));
    /* With an asset root, the real path of the file (".." applied, symbolic
     * links followed) must be inside the root's real path; else inside the
     * real path of the asset's folder. */
    if (c->root_real && !inside(c->root_real, real))
        return cna__error(err, CNA_ERROR_INVALID_DATA, "\"%s\" (real path \"%s\") leads outside the asset root \"%s\"",
                          full, real, c->root_real);
    if (!c->root_real && !inside(c->base_real, real))
        return cna__error(err, CNA_ERROR_INVALID_DATA, "\"%s\" leads outside the asset's folder \"%s\"", full,
                          c->base_real);
    *path = full;
    if (kind == CNA_GLTF_URI_IMAGE) {
        struct stat st;
        if (stat(real, &st) != 0 || !S_ISREG(st.st_mode))
            return cna__error(err, CNA_ERROR_IO, "\"%s\": not a regular file", full);
        return CNA_OK;
    }
    uint8_t *bytes = NULL;
    size_t n = 0;
    r = cna__gltf_read_file(c->arena, real, c->max_size, &bytes, &n, err);
    if (r) return r;
    *data = bytes;
    *size = n;
    return CNA_OK;
}

cna_result cna__gltf_asset_root_real(const char *root, char *out, size_t out_size, cna_error *err)
{
    char buf[PATH_MAX];
    if (root[0] == '\0') return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "asset root: the path is empty");
    int e = cna__real_path(root, buf, sizeof buf);
    if (e) return cna__error(err, CNA_ERROR_IO, "asset root \"%s\": %s", root, strerror(e));
    struct stat st;
    if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode))
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "asset root \"%s\": not a folder", root);
    size_t n = strlen(buf);
    if (n >= out_size) return cna__error(err, CNA_ERROR_LIMIT, "asset root \"%s\": the real path is too long", root);
    memcpy(out, buf, n + 1);
    return CNA_OK;
}

cna_result cna__gltf_resolve_uri(cna__gltf_ctx *c, cna_gltf_uri_kind kind, const char *decoded,
                            const uint8_t **data, size_t *size, const char **path, cna_error *err)
{
    *data = NULL;
    *size = 0;
    *path = NULL;
    if (c->resolve) return resolve_with_callback(c, kind, decoded, data, size, err);
    if (!c->base_dir)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "external URIs need a resolver (cna_gltf_options.resolve) when loading from memory");
    return resolve_in_folder(c, kind, decoded, data, size, path, err);
}
