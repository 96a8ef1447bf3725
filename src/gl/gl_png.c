/*
 * src/gl/gl_png.c — PNG output through libpng's simplified API (cna/gl.h).
 */
#include <png.h>
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
    if (!png_image_write_to_file(&image, path, 0, rgba, (png_int_32)(width * 4), NULL)) {
        cna_result r = cna__error(err, CNA_ERROR_IO, "%s: %s", path, image.message);
        png_image_free(&image);
        return r;
    }
    return CNA_OK;
}
