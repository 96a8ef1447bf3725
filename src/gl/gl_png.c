/*
 * src/gl/gl_png.c — PNG output through libpng's simplified API (cna/gl.h),
 * encoded in memory and written atomically (core/internal.h).
 */
#include <png.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "cna/gl.h"

cna_result cna_gl_write_png(const char *path, uint32_t width, uint32_t height, const unsigned char *rgba,
                            cna_error *err)
{
    if (!path || !rgba) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "png: NULL argument");
    if (width == 0 || height == 0 || width > 65535 || height > 65535)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "%s: size %ux%u; each side must be 1 to 65535", path,
                          width, height);
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    image.width = width;
    image.height = height;
    image.format = PNG_FORMAT_RGBA;
    /* The bound is only reserved: the pages the compressed stream does not
     * reach are never touched. */
    png_alloc_size_t capacity = PNG_IMAGE_PNG_SIZE_MAX(image), size = capacity;
    void *bytes = malloc(capacity);
    if (!bytes)
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "%s: out of memory for a %ux%u PNG", path, width, height);
    cna_result r = CNA_OK;
    if (!png_image_write_to_memory(&image, bytes, &size, 0, rgba, (png_int_32)(width * 4), NULL))
        r = cna__error(err, CNA_ERROR_IO, "%s: %s", path, image.message);
    png_image_free(&image);
    if (!r) r = cna__file_write(path, bytes, size, NULL, err);
    free(bytes);
    return r;
}
