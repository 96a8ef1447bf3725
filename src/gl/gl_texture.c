/*
 * src/gl/gl_texture.c — material textures (cna/gl.h): a model image's
 * bytes (or its external file) decoded with libpng or libjpeg-turbo to RGBA8,
 * uploaded as an sRGB (colour: base colour, emissive) or linear (data:
 * metallic-roughness, normal, occlusion) GL texture (mipmaps when a sampler
 * showing it asks for them), cached per (model, image index, colour
 * space) until the model's textures are released; and the sampler objects
 * that give each slot its glTF sampler's filters and wraps.
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
    if (e) return cna__error(err, CNA_ERROR_IO, "%s: cannot open %s: %s", what, path, strerror(e));
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

static bool wants_mipmaps(int32_t min_filter)
{
    return min_filter != GL_NEAREST && min_filter != GL_LINEAR;   /* 0 (absent) or a MIPMAP mode */
}

/* Whether a draw may sample image `image` of `model` with mipmaps: a slot
 * showing it, or (for an image no effect draws) its own sampler, asks for
 * them. */
static bool image_needs_mipmaps(const cna_model *model, size_t image)
{
    bool used = false;
    for (size_t e = 0; e < model->effect_count; e++)
        for (int s = 0; s < CNA_EFFECT_SLOT_COUNT; s++) {
            const cna_effect_texture *t = cna_effect_material_texture(&model->effects[e].params, (cna_effect_slot)s);
            if (t->image != (int32_t)image) continue;
            used = true;
            if (wants_mipmaps(t->min_filter)) return true;
        }
    return !used && wants_mipmaps(model->images[image].min_filter);
}

/* The texture, with a mipmap chain when a sampler that shows it asks for
 * one; its own parameters are the image's sampler's (what the sampler
 * object of a draw replaces). */
static GLuint upload(const cna_model_image *im, bool srgb, bool mipmaps, const unsigned char *rgba, uint32_t w,
                     uint32_t h)
{
    GLuint t = 0;
    glGenTextures(1, &t);
    if (!t) return 0;
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, t);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexImage2D(GL_TEXTURE_2D, 0, srgb ? GL_SRGB8_ALPHA8 : GL_RGBA8, (GLsizei)w, (GLsizei)h, 0, GL_RGBA,
                 GL_UNSIGNED_BYTE, rgba);
    if (mipmaps) glGenerateMipmap(GL_TEXTURE_2D);
    GLint mag = im->mag_filter == GL_NEAREST ? GL_NEAREST : GL_LINEAR;
    GLint min = GL_LINEAR_MIPMAP_LINEAR;
    switch (im->min_filter) {
    case GL_NEAREST: case GL_LINEAR: case GL_NEAREST_MIPMAP_NEAREST: case GL_LINEAR_MIPMAP_NEAREST:
    case GL_NEAREST_MIPMAP_LINEAR: case GL_LINEAR_MIPMAP_LINEAR: min = im->min_filter; break;
    default: break;
    }
    if (!mipmaps) min = min == GL_NEAREST ? GL_NEAREST : GL_LINEAR;
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, mag);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, min);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, wrap_of(im->wrap_s));
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, wrap_of(im->wrap_t));
    glBindTexture(GL_TEXTURE_2D, 0);
    return t;
}

static cna__gl_texture *cache_find(cna_gl_context *gl, const cna_model *model, size_t image, bool srgb)
{
    for (size_t i = 0; i < gl->texture_count; i++) {
        cna__gl_texture *e = &gl->textures[i];
        if (e->model == model && e->image == image && e->srgb == srgb) return e;
    }
    return NULL;
}

bool cna__gl_slot_is_srgb(cna_effect_slot slot)
{
    return slot == CNA_EFFECT_SLOT_BASE_COLOR || slot == CNA_EFFECT_SLOT_EMISSIVE;
}

cna_result cna__gl_model_texture(cna_gl_context *gl, const cna_model *model, int32_t image, bool srgb, GLuint *out,
                                 cna_error *err)
{
    *out = 0;
    if (image < 0 || !model->images || (size_t)image >= model->image_count) return CNA_OK;
    const cna_model_image *im = &model->images[image];
    if (!im->data && !im->path && !im->problem) return CNA_OK;   /* not used by any material */
    cna__gl_texture *c = cache_find(gl, model, (size_t)image, srgb);
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
    cna_result r;
    if (!im->data && !im->path) /* used, but its bytes could not be had at load */
        r = cna__error(&e, CNA_ERROR_IO, "images[%d] \"%s\": %s", (int)image, im->name ? im->name : "", im->problem);
    else r = decode_image(model, (size_t)image, &rgba, &w, &h, &e);
    GLuint t = r == CNA_OK ? upload(im, srgb, image_needs_mipmaps(model, (size_t)image), rgba, w, h) : 0;
    free(rgba);
    if (r == CNA_OK && t == 0)
        r = cna__error(&e, CNA_ERROR_OUT_OF_MEMORY, "images[%d]: glGenTextures gave no name", (int)image);
    if (r && err) *err = e;
    if (r == CNA_ERROR_OUT_OF_MEMORY) return r;   /* may succeed later: not cached */
    cna__gl_texture *entry = &gl->textures[gl->texture_count++];
    entry->model = model;
    entry->image = (size_t)image;
    entry->srgb = srgb;
    entry->texture = t;
    entry->failure = e;
    entry->failure.code = r;
    *out = t;
    return r;
}

/* ------------------------------------------------------------ sampler objects */

static GLint min_filter_of(int32_t v)
{
    switch (v) {
    case GL_NEAREST: case GL_LINEAR: case GL_NEAREST_MIPMAP_NEAREST: case GL_LINEAR_MIPMAP_NEAREST:
    case GL_NEAREST_MIPMAP_LINEAR: case GL_LINEAR_MIPMAP_LINEAR: return v;
    default: return GL_LINEAR_MIPMAP_LINEAR;
    }
}

GLuint cna__gl_sampler_for(cna_gl_context *gl, const cna_effect_texture *t)
{
    for (size_t i = 0; i < gl->sampler_count; i++) {
        const cna__gl_sampler *s = &gl->samplers[i];
        if (s->mag_filter == t->mag_filter && s->min_filter == t->min_filter && s->wrap_s == t->wrap_s &&
            s->wrap_t == t->wrap_t)
            return s->sampler;
    }
    if (gl->sampler_count == gl->sampler_cap) {
        size_t cap = gl->sampler_cap ? gl->sampler_cap * 2 : 8;
        cna__gl_sampler *n = (cna__gl_sampler *)realloc(gl->samplers, cap * sizeof *n);
        if (!n) return 0;   /* the texture's own parameters then apply */
        gl->samplers = n;
        gl->sampler_cap = cap;
    }
    GLuint name = 0;
    glGenSamplers(1, &name);
    if (!name) return 0;
    glSamplerParameteri(name, GL_TEXTURE_MAG_FILTER, t->mag_filter == GL_NEAREST ? GL_NEAREST : GL_LINEAR);
    glSamplerParameteri(name, GL_TEXTURE_MIN_FILTER, min_filter_of(t->min_filter));
    glSamplerParameteri(name, GL_TEXTURE_WRAP_S, wrap_of(t->wrap_s));
    glSamplerParameteri(name, GL_TEXTURE_WRAP_T, wrap_of(t->wrap_t));
    cna__gl_sampler *s = &gl->samplers[gl->sampler_count++];
    s->mag_filter = t->mag_filter;
    s->min_filter = t->min_filter;
    s->wrap_s = t->wrap_s;
    s->wrap_t = t->wrap_t;
    s->sampler = name;
    return name;
}

/* Whether image `image` is wanted as colour (srgb) and/or data by an effect of the model. */
static void image_uses(const cna_model *model, size_t image, bool *colour, bool *data)
{
    *colour = *data = false;
    for (size_t e = 0; e < model->effect_count; e++)
        for (int s = 0; s < CNA_EFFECT_SLOT_COUNT; s++) {
            const cna_effect_texture *t = cna_effect_material_texture(&model->effects[e].params, (cna_effect_slot)s);
            if (t->image != (int32_t)image) continue;
            if (cna__gl_slot_is_srgb((cna_effect_slot)s)) *colour = true;
            else *data = true;
        }
    if (!*colour && !*data) *colour = true;   /* an image no effect draws: as colour, to report on it */
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
        if (!im->data && !im->path && !im->problem) continue;
        bool want[2];
        image_uses(model, i, &want[0], &want[1]);
        bool bad = false;
        for (int k = 0; k < 2; k++) {
            if (!want[k]) continue;
            GLuint t = 0;
            cna_result r = cna__gl_model_texture(gl, model, (int32_t)i, k == 0, &t, first ? &scratch : err);
            if (t == 0 && !bad) {
                bad = true;
                n++;
                if (!first)
                    first = r ? r : cna__error(err, CNA_ERROR_INVALID_DATA, "images[%zu] \"%s\": could not be decoded", i, im->name);
            }
        }
    }
    if (failed) *failed = n;
    return first;
}

cna_result cna__gl_image_status(const cna_gl_context *gl, const cna_model *model, int32_t image, cna_error *err)
{
    if (image < 0 || !model->images || (size_t)image >= model->image_count) return CNA_OK;
    for (size_t i = 0; i < gl->texture_count; i++) {
        const cna__gl_texture *e = &gl->textures[i];
        if (e->model == model && e->image == (size_t)image && e->texture == 0) {
            if (err) *err = e->failure;
            return e->failure.code;
        }
    }
    return CNA_OK;
}

void cna_gl_release_model_textures(cna_gl_context *gl, const cna_model *model)
{
    if (!gl || !model) return;
    for (size_t i = 0; i < gl->texture_count;) {
        cna__gl_texture *c = &gl->textures[i];
        if (c->model != model) {
            i++;
            continue;
        }
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
    for (size_t i = 0; i < gl->sampler_count; i++) glDeleteSamplers(1, &gl->samplers[i].sampler);
    free(gl->samplers);
    gl->samplers = NULL;
    gl->sampler_count = gl->sampler_cap = 0;
}
