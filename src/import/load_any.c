/*
 * cna_model_load_any: a .cnb file through the .cnb reader, anything else
 * through the glTF importer. It lives with the importer, since it may import
 * glTF; a program that loads only .cnb files calls cna_cnb_load_file and
 * needs only the runtime library.
 */
#include <stdio.h>
#include <string.h>

#include "cna/baked.h"
#include "cna/model.h"
#include "core/internal.h"

cna_result cna_model_load_any(const char *path, const cna_import_options *opts, cna_model **out,
                              cna_error *err)
{
    if (!path || !out)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "load: NULL %s", path ? "out" : "path");
    unsigned char magic[4] = {0};
    FILE *f;
    uint64_t len;
    int e = cna__file_open_regular(path, &f, &len);
    if (e == CNA__FILE_NOT_REGULAR) return cna__error(err, CNA_ERROR_IO, "%s: not a regular file", path);
    if (e) return cna__error(err, CNA_ERROR_IO, "%s: %s", path, strerror(e));
    size_t got = fread(magic, 1, sizeof magic, f);
    fclose(f);
    if (!cna_cnb_is_cnb(magic, got)) return cna_model_load_file(path, opts, out, err);
    cna_cnb_load_options lo;
    memset(&lo, 0, sizeof lo);
    if (opts) lo.allocator = opts->allocator;
    return cna_cnb_load_file(path, &lo, out, err);
}
