/*
 * src/gl/gl_texture.c — base-colour textures (cna/gl.h): a model image's
 * bytes (or its external file) decoded with libpng or libjpeg-turbo to RGBA8,
 * uploaded as an sRGB GL texture with the glTF sampler's filters and wraps,
 * cached per cna_model_image.id.
 */
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

#include "core/internal.h"
#include "gl/gl_internal.h"

#define CNA__GL_MAX_TEXTURE_SIDE 16384u
#define CNA__GL_MAX_IMAGE_FILE ((size_t)512 * 1024 * 1024)

/* ------------------------------------------------------------ decoding */

/* err filled with the image's name; *rgba malloc'ed (caller frees). */
static cna_result decode_png(const unsigned char *bytes, size_t size, const char *what, unsigned char **rgba,
                             uint32_t *w, uint32_t *h, cna_error *err)
{
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, bytes, size)) {
        cna_result r = cna__error(err, CNA_ERROR_INVALID_DATA, "%s: PNG: %s", what, image.message);
        png_image_free(&image);
        return r;
    }
    if (image.width == 0 || image.height == 0 || image.width > CNA__GL_MAX_TEXTURE_SIDE ||
        image.height > CNA__GL_MAX_TEXTURE_SIDE) {
        png_image_free(&image);
        return cna__error(err, CNA_ERROR_INVALID_DATA, "%s: PNG of %ux%u; each side must be 1 to %u", what,
                          (unsigned)image.width, (unsigned)image.height, CNA__GL_MAX_TEXTURE_SIDE);
    }
    image.format = PNG_FORMAT_RGBA;
    unsigned char *out = (unsigned char *)malloc(PNG_IMAGE_SIZE(image));
    if (!out) {
        png_image_free(&image);
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
    }
    if (!png_image_finish_read(&image, NULL, out, 0, NULL)) {
        cna_result r = cna__error(err, CNA_ERROR_INVALID_DATA, "%s: PNG: %s", what, image.message);
        free(out);
        png_image_free(&image);
        return r;
    }
    *w = image.width;
    *h = image.height;
    *rgba = out;
    return CNA_OK;
}

typedef struct jpeg_fail {
    struct jpeg_error_mgr mgr;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
} jpeg_fail;

static void jpeg_on_error(j_common_ptr cinfo)
{
    jpeg_fail *f = (jpeg_fail *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, f->message);
    longjmp(f->jump, 1);
}

static void jpeg_on_message(j_common_ptr cinfo) { (void)cinfo; /* warnings are not printed */ }

static cna_result decode_jpeg(const unsigned char *bytes, size_t size, const char *what, unsigned char **rgba,
                              uint32_t *w, uint32_t *h, cna_error *err)
{
    struct jpeg_decompress_struct cinfo;
    jpeg_fail fail;
    memset(&fail, 0, sizeof fail);
    cinfo.err = jpeg_std_error(&fail.mgr);
    fail.mgr.error_exit = jpeg_on_error;
    fail.mgr.output_message = jpeg_on_message;
    unsigned char *volatile out = NULL;
    unsigned char *volatile row = NULL;
    if (setjmp(fail.jump)) {
        jpeg_destroy_decompress(&cinfo);
        free(out);
        free(row);
        return cna__error(err, CNA_ERROR_INVALID_DATA, "%s: JPEG: %s", what, fail.message);
    }
    jpeg_create_decompress(&cinfo);
    if (size > (size_t)(unsigned long)-1) size = (size_t)(unsigned long)-1;
    jpeg_mem_src(&cinfo, bytes, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    cinfo.out_color_space = JCS_RGB;
    if (cinfo.image_width == 0 || cinfo.image_height == 0 || cinfo.image_width > CNA__GL_MAX_TEXTURE_SIDE ||
        cinfo.image_height > CNA__GL_MAX_TEXTURE_SIDE) {
        uint32_t iw = cinfo.image_width, ih = cinfo.image_height;
        jpeg_destroy_decompress(&cinfo);
        return cna__error(err, CNA_ERROR_INVALID_DATA, "%s: JPEG of %ux%u; each side must be 1 to %u", what, iw,
                          ih, CNA__GL_MAX_TEXTURE_SIDE);
    }
    jpeg_start_decompress(&cinfo);
    uint32_t ow = cinfo.output_width, oh = cinfo.output_height;
    out = (unsigned char *)malloc((size_t)ow * oh * 4);
    row = (unsigned char *)malloc((size_t)ow * 3);
    if (!out || !row) {
        jpeg_destroy_decompress(&cinfo);
        free(out);
        free(row);
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
    }
    while (cinfo.output_scanline < oh) {
        JSAMPROW rows[1] = {row};
        size_t y = cinfo.output_scanline;
        if (jpeg_read_scanlines(&cinfo, rows, 1) != 1) break;
        unsigned char *d = out + y * ow * 4;
        for (size_t x = 0; x < ow; x++) {
            d[x * 4] = row[x * 3];
            d[x * 4 + 1] = row[x * 3 + 1];
            d[x * 4 + 2] = row[x * 3 + 2];
            d[x * 4 + 3] = 255;
        }
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    free(row);
    *w = ow;
    *h = oh;
    *rgba = out;
    return CNA_OK;
}

static cna_result read_file(const char *path, const char *what, unsigned char **bytes, size_t *size,
                            cna_error *err)
{
    FILE *f;
    uint64_t file_size;
    int e = cna__file_open_regular(path, &f, &file_size); /* never blocks on a FIFO put in its place */
    if (e == CNA__FILE_NOT_REGULAR) return cna__error(err, CNA_ERROR_IO, "%s: %s is not a regular file", what, path);
    if (e) return cna__error(err, CNA_ERROR_IO, "%s: cannot open %s", what, path);
    if (file_size > CNA__GL_MAX_IMAGE_FILE) {
        fclose(f);
        return cna__error(err, CNA_ERROR_IO, "%s: cannot read %s (size %llu)", what, path,
                          (unsigned long long)file_size);
    }
    const long len = (long)file_size;
    unsigned char *b = (unsigned char *)malloc((size_t)len + 1);
    if (!b) {
        fclose(f);
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
    }
    size_t got = fread(b, 1, (size_t)len, f);
    fclose(f);
    if (got != (size_t)len) {
        free(b);
        return cna__error(err, CNA_ERROR_IO, "%s: short read of %s", what, path);
    }
    *bytes = b;
    *size = got;
    return CNA_OK;
}

/* Decode image `index` of the model to RGBA8. */
static cna_result decode_image(const cna_model *model, size_t index, unsigned char **rgba, uint32_t *w,
                               uint32_t *h, cna_error *err)
{
    const cna_model_image *im = &model->images[index];
    char what[160];
    snprintf(what, sizeof what, "images[%zu] \"%s\"", index, im->name ? im->name : "");
    unsigned char *owned = NULL;
    const unsigned char *bytes = im->data;
    size_t size = im->size;
    if (!bytes && im->path) {
        cna_result r = read_file(im->path, what, &owned, &size, err);
        if (r) return r;
        bytes = owned;
    }
    if (!bytes) return cna__error(err, CNA_ERROR_INVALID_DATA, "%s: no image data", what);
    cna_result r;
    static const unsigned char png_sig[8] = {0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a};
    if (size >= 8 && memcmp(bytes, png_sig, 8) == 0) r = decode_png(bytes, size, what, rgba, w, h, err);
    else if (size >= 3 && bytes[0] == 0xff && bytes[1] == 0xd8 && bytes[2] == 0xff)
        r = decode_jpeg(bytes, size, what, rgba, w, h, err);
    else r = cna__error(err, CNA_ERROR_INVALID_DATA, "%s: not a PNG or JPEG image", what);
    free(owned);
    return r;
}

/* ------------------------------------------------------------ GL textures */

static GLint wrap_of(int32_t v)
{
    switch (v) {
    case 33071: return GL_CLAMP_TO_EDGE;
    case 33648: return GL_MIRRORED_REPEAT;
    default: return GL_REPEAT;
    }
}

static GLuint upload(const cna_model_image *im, const unsigned char *rgba, uint32_t w, uint32_t h)
{
    GLuint t = 0;
    glGenTextures(1, &t);
    if (!t) return 0;
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, t);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_SRGB8_ALPHA8, (GLsizei)w, (GLsizei)h, 0, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    GLint mag = im->mag_filter == GL_NEAREST ? GL_NEAREST : GL_LINEAR;
    GLint min = GL_LINEAR_MIPMAP_LINEAR;
    switch (im->min_filter) {
    case GL_NEAREST: case GL_LINEAR: case GL_NEAREST_MIPMAP_NEAREST: case GL_LINEAR_MIPMAP_NEAREST:
    case GL_NEAREST_MIPMAP_LINEAR: case GL_LINEAR_MIPMAP_LINEAR: min = im->min_filter; break;
    default: break;
    }
    if (min != GL_NEAREST && min != GL_LINEAR) glGenerateMipmap(GL_TEXTURE_2D);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, mag);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, min);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, wrap_of(im->wrap_s));
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, wrap_of(im->wrap_t));
    glBindTexture(GL_TEXTURE_2D, 0);
    return t;
}

static cna__gl_texture *cache_find(cna_gl_context *gl, uint64_t id)
{
    for (size_t i = 0; i < gl->texture_count; i++)
        if (gl->textures[i].image_id == id) return &gl->textures[i];
    return NULL;
}

cna_result cna__gl_model_texture(cna_gl_context *gl, const cna_model *model, int32_t image, GLuint *out,
                                 cna_error *err)
{
    *out = 0;
    if (image < 0 || !model->images || (size_t)image >= model->image_count) return CNA_OK;
    const cna_model_image *im = &model->images[image];
    if (!im->data && !im->path) return CNA_OK;   /* not used or not available: the reader's diagnostic */
    cna__gl_texture *c = cache_find(gl, im->id);
    if (c) {
        *out = c->texture;
        if (c->texture == 0 && err) *err = c->failure;
        return c->texture ? CNA_OK : c->failure.code;
    }
    if (gl->texture_count == gl->texture_cap) {
        size_t cap = gl->texture_cap ? gl->texture_cap * 2 : 16;
        cna__gl_texture *n = (cna__gl_texture *)realloc(gl->textures, cap * sizeof *n);
        if (!n) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "gl textures: out of memory");
        gl->textures = n;
        gl->texture_cap = cap;
    }
    unsigned char *rgba = NULL;
    uint32_t w = 0, h = 0;
    cna_error e;
    memset(&e, 0, sizeof e);
    cna_result r = decode_image(model, (size_t)image, &rgba, &w, &h, &e);
    GLuint t = r == CNA_OK ? upload(im, rgba, w, h) : 0;
    free(rgba);
    if (r == CNA_OK && t == 0)
        r = cna__error(&e, CNA_ERROR_OUT_OF_MEMORY, "images[%d]: glGenTextures gave no name", (int)image);
    if (r && err) *err = e;
    if (r == CNA_ERROR_OUT_OF_MEMORY) return r;   /* may succeed later: not cached */
    cna__gl_texture *entry = &gl->textures[gl->texture_count++];
    entry->image_id = im->id;
    entry->texture = t;
    entry->failure = e;
    entry->failure.code = r;
    *out = t;
    return r;
}

cna_result cna_gl_upload_model_textures(cna_gl_context *gl, const cna_model *model, size_t *failed, cna_error *err)
{
    if (failed) *failed = 0;
    if (!gl || !model) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "gl textures: NULL argument");
    cna_result first = CNA_OK;
    size_t n = 0;
    cna_error scratch;
    for (size_t i = 0; model->images && i < model->image_count; i++) {
        const cna_model_image *im = &model->images[i];
        if (!im->data && !im->path) continue;
        GLuint t = 0;
        cna_result r = cna__gl_model_texture(gl, model, (int32_t)i, &t, first ? &scratch : err);
        if (t == 0) {
            n++;
            if (!first) first = r ? r : cna__error(err, CNA_ERROR_INVALID_DATA, "images[%zu] \"%s\": could not be decoded", i, im->name);
        }
    }
    if (failed) *failed = n;
    return first;
}

void cna_gl_release_model_textures(cna_gl_context *gl, const cna_model *model)
{
    if (!gl || !model || !model->images) return;
    for (size_t i = 0; i < model->image_count; i++) {
        cna__gl_texture *c = cache_find(gl, model->images[i].id);
        if (!c) continue;
        if (c->texture) glDeleteTextures(1, &c->texture);
        *c = gl->textures[--gl->texture_count];
    }
}

void cna__gl_textures_destroy(cna_gl_context *gl)
{
    for (size_t i = 0; i < gl->texture_count; i++)
        if (gl->textures[i].texture) glDeleteTextures(1, &gl->textures[i].texture);
    free(gl->textures);
    gl->textures = NULL;
    gl->texture_count = gl->texture_cap = 0;
}
