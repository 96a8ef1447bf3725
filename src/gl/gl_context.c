/*
 * src/gl/gl_context.c — the headless EGL context, the offscreen framebuffer,
 * the GL buffer device and pixel read-back (cna/gl.h).
 */
#if defined(__SANITIZE_ADDRESS__)
#define _GNU_SOURCE 1   /* dl_iterate_phdr, RTLD_NOLOAD, RTLD_NODELETE */
#include <dlfcn.h>
#include <link.h>
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "gl/gl_internal.h"

cna_gl_light cna_gl_light_default(void)
{
    cna_gl_light l;
    l.direction = cna_vec3_make(-0.35f, -0.8f, -0.5f);
    l.color = cna_vec3_make(0.9f, 0.9f, 0.9f);
    l.ambient = cna_vec3_make(0.35f, 0.35f, 0.38f);
    return l;
}

/* ------------------------------------------------------------ device */

static cna_result gl_create_buffer(void *user_data, const cna_buffer_desc *desc, cna_buffer_id *out,
                                   cna_error *err)
{
    (void)user_data;
    if (desc->size > (size_t)PTRDIFF_MAX)
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "gl buffer: %zu bytes is too large", desc->size);
    GLuint name = 0;
    glGenBuffers(1, &name);
    if (name == 0) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "gl buffer: glGenBuffers gave no name");
    (void)glGetError();
    glBindBuffer(GL_COPY_WRITE_BUFFER, name);
    glBufferData(GL_COPY_WRITE_BUFFER, (GLsizeiptr)desc->size, desc->data,
                 desc->usage == CNA_BUFFER_USAGE_DYNAMIC ? GL_DYNAMIC_DRAW : GL_STATIC_DRAW);
    GLenum e = glGetError();
    glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
    if (e != GL_NO_ERROR) {
        glDeleteBuffers(1, &name);
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "gl buffer: glBufferData of %zu bytes failed (0x%x)",
                          desc->size, (unsigned)e);
    }
    *out = name;
    return CNA_OK;
}

static cna_result gl_set_buffer_data(void *user_data, cna_buffer_id buffer, size_t offset, const void *data,
                                     size_t size, cna_error *err)
{
    (void)user_data;
    if (!glIsBuffer(buffer)) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "gl buffer %u: unknown", buffer);
    glBindBuffer(GL_COPY_WRITE_BUFFER, buffer);
    GLint64 have = 0;
    glGetBufferParameteri64v(GL_COPY_WRITE_BUFFER, GL_BUFFER_SIZE, &have);
    if (have < 0 || offset > (size_t)have || size > (size_t)have - offset) {
        glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "gl buffer %u: bytes [%zu, %zu + %zu) are outside its %lld bytes", buffer, offset,
                          offset, size, (long long)have);
    }
    if (size > 0) glBufferSubData(GL_COPY_WRITE_BUFFER, (GLintptr)offset, (GLsizeiptr)size, data);
    glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
    return CNA_OK;
}

static void gl_destroy_buffer(void *user_data, cna_buffer_id buffer)
{
    (void)user_data;
    GLuint name = buffer;
    if (glIsBuffer(name)) glDeleteBuffers(1, &name);
}

/* ------------------------------------------------------------ context */

#if defined(__SANITIZE_ADDRESS__)
/* AddressSanitizer builds only: eglTerminate unloads Mesa's DRI driver while
 * globals still point at its allocations, which LeakSanitizer then reports
 * as leaks from an unknown module at exit. Keeping every loaded *_dri.so
 * mapped (RTLD_NOLOAD | RTLD_NODELETE: no new load) keeps them reachable. */
static int keep_dri_driver(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    if (info->dlpi_name && strstr(info->dlpi_name, "_dri.so"))
        (void)dlopen(info->dlpi_name, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
    return 0;
}
#endif

static cna_result egl_fail(cna_error *err, const char *what)
{
    return cna__error(err, CNA_ERROR_UNSUPPORTED, "gl context: %s failed (EGL error 0x%x)", what,
                      (unsigned)eglGetError());
}

static void destroy_framebuffer(cna_gl_context *gl)
{
    if (gl->fbo) glDeleteFramebuffers(1, &gl->fbo);
    if (gl->resolve_fbo) glDeleteFramebuffers(1, &gl->resolve_fbo);
    GLuint rbs[3] = {gl->color_rb, gl->depth_rb, gl->resolve_rb};
    for (int i = 0; i < 3; i++)
        if (rbs[i]) glDeleteRenderbuffers(1, &rbs[i]);
    gl->fbo = gl->resolve_fbo = gl->color_rb = gl->depth_rb = gl->resolve_rb = 0;
}

static cna_result create_framebuffer(cna_gl_context *gl, cna_error *err)
{
    GLsizei w = (GLsizei)gl->width, h = (GLsizei)gl->height, s = (GLsizei)gl->samples;
    glGenFramebuffers(1, &gl->fbo);
    glGenRenderbuffers(1, &gl->color_rb);
    glGenRenderbuffers(1, &gl->depth_rb);
    glBindFramebuffer(GL_FRAMEBUFFER, gl->fbo);
    glBindRenderbuffer(GL_RENDERBUFFER, gl->color_rb);
    if (s > 1) glRenderbufferStorageMultisample(GL_RENDERBUFFER, s, GL_RGBA8, w, h);
    else glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, w, h);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, gl->color_rb);
    glBindRenderbuffer(GL_RENDERBUFFER, gl->depth_rb);
    if (s > 1) glRenderbufferStorageMultisample(GL_RENDERBUFFER, s, GL_DEPTH_COMPONENT24, w, h);
    else glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, w, h);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, gl->depth_rb);
    GLenum st = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    if (st == GL_FRAMEBUFFER_COMPLETE && s > 1) {
        glGenFramebuffers(1, &gl->resolve_fbo);
        glGenRenderbuffers(1, &gl->resolve_rb);
        glBindFramebuffer(GL_FRAMEBUFFER, gl->resolve_fbo);
        glBindRenderbuffer(GL_RENDERBUFFER, gl->resolve_rb);
        glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, w, h);
        glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, gl->resolve_rb);
        st = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    }
    glBindRenderbuffer(GL_RENDERBUFFER, 0);
    glBindFramebuffer(GL_FRAMEBUFFER, gl->fbo);
    if (st != GL_FRAMEBUFFER_COMPLETE) {
        destroy_framebuffer(gl);
        return cna__error(err, CNA_ERROR_UNSUPPORTED,
                          "gl context: framebuffer %ux%u with %u samples is incomplete (0x%x)", gl->width,
                          gl->height, gl->samples, (unsigned)st);
    }
    return CNA_OK;
}

static void set_device(cna_gl_context *gl)
{
    gl->device.user_data = gl;
    gl->device.create_buffer = gl_create_buffer;
    gl->device.set_buffer_data = gl_set_buffer_data;
    gl->device.destroy_buffer = gl_destroy_buffer;
}

/* use_current: the caller's context and its default framebuffer. */
static cna_result create_current(const cna_gl_context_options *o, cna_gl_context **out, cna_error *err)
{
    const char *version = (const char *)glGetString(GL_VERSION);
    if (!version)
        return cna__error(err, CNA_ERROR_UNSUPPORTED, "gl context: use_current without a current OpenGL context");
    GLint major = 0, minor = 0;
    glGetIntegerv(GL_MAJOR_VERSION, &major);
    glGetIntegerv(GL_MINOR_VERSION, &minor);
    if (major * 10 + minor < 33)
        return cna__error(err, CNA_ERROR_UNSUPPORTED, "gl context: the current context is OpenGL %d.%d; 3.3 is needed",
                          (int)major, (int)minor);
    cna_gl_context *gl = (cna_gl_context *)calloc(1, sizeof *gl);
    if (!gl) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "gl context: out of memory");
    gl->external = true;
    gl->display = EGL_NO_DISPLAY;
    gl->width = o->width;
    gl->height = o->height;
    gl->light = cna_gl_light_default();
    const char *renderer = (const char *)glGetString(GL_RENDERER);
    snprintf(gl->renderer, sizeof gl->renderer, "%s", renderer ? renderer : "");
    cna_result r = cna__gl_programs_create(gl, err);
    if (r) {
        free(gl);
        return r;
    }
    set_device(gl);
    *out = gl;
    return CNA_OK;
}

cna_result cna_gl_context_resize(cna_gl_context *gl, uint32_t width, uint32_t height, cna_error *err)
{
    if (!gl) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "gl context: NULL");
    if (width == 0 || height == 0 || width > CNA_GL_MAX_SIZE || height > CNA_GL_MAX_SIZE)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "gl context: size %ux%u; 1 to %d per side", width,
                          height, CNA_GL_MAX_SIZE);
    if (gl->external) {
        gl->width = width;
        gl->height = height;
        return CNA_OK;
    }
    uint32_t ow = gl->width, oh = gl->height;
    destroy_framebuffer(gl);
    gl->width = width;
    gl->height = height;
    cna_result r = create_framebuffer(gl, err);
    if (r) {
        gl->width = ow;
        gl->height = oh;
        cna_error ignored;
        (void)create_framebuffer(gl, &ignored);
    }
    return r;
}

cna_result cna_gl_context_create(const cna_gl_context_options *options, cna_gl_context **out, cna_error *err)
{
    cna_gl_context_options o;
    memset(&o, 0, sizeof o);
    if (options) o = *options;
    if (!out) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "gl context: out is NULL");
    if (o.width == 0) o.width = 640;
    if (o.height == 0) o.height = 480;
    if (o.width > CNA_GL_MAX_SIZE || o.height > CNA_GL_MAX_SIZE)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "gl context: size %ux%u; at most %d per side",
                          o.width, o.height, CNA_GL_MAX_SIZE);
    if (o.samples > 16)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "gl context: %u samples; at most 16", o.samples);
    if (o.use_current) return create_current(&o, out, err);
    if (!epoxy_has_egl_extension(EGL_NO_DISPLAY, "EGL_MESA_platform_surfaceless"))
        return cna__error(err, CNA_ERROR_UNSUPPORTED,
                          "gl context: EGL has no EGL_MESA_platform_surfaceless (install Mesa's EGL)");
    cna_gl_context *gl = (cna_gl_context *)calloc(1, sizeof *gl);
    if (!gl) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "gl context: out of memory");
    gl->width = o.width;
    gl->height = o.height;
    gl->samples = o.samples > 1 ? o.samples : 0;
    gl->light = cna_gl_light_default();
    cna_result r;
    gl->display = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
    if (gl->display == EGL_NO_DISPLAY) { r = egl_fail(err, "eglGetPlatformDisplayEXT(surfaceless)"); goto fail; }
    EGLint major = 0, minor = 0;
    if (!eglInitialize(gl->display, &major, &minor)) { r = egl_fail(err, "eglInitialize"); goto fail_display; }
    if (!eglBindAPI(EGL_OPENGL_API)) { r = egl_fail(err, "eglBindAPI(EGL_OPENGL_API)"); goto fail_terminate; }
    const EGLint attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                              EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    gl->context = eglCreateContext(gl->display, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attribs);
    if (gl->context == EGL_NO_CONTEXT) { r = egl_fail(err, "eglCreateContext(OpenGL 3.3 core)"); goto fail_terminate; }
    if (!eglMakeCurrent(gl->display, EGL_NO_SURFACE, EGL_NO_SURFACE, gl->context)) {
        r = egl_fail(err, "eglMakeCurrent");
        goto fail_context;
    }
    const char *renderer = (const char *)glGetString(GL_RENDERER);
    snprintf(gl->renderer, sizeof gl->renderer, "%s", renderer ? renderer : "");
#if defined(__SANITIZE_ADDRESS__)
    dl_iterate_phdr(keep_dri_driver, NULL);
#endif
    if ((r = create_framebuffer(gl, err)) != CNA_OK) goto fail_current;
    if ((r = cna__gl_programs_create(gl, err)) != CNA_OK) goto fail_fb;
    set_device(gl);
    *out = gl;
    return CNA_OK;
fail_fb:
    destroy_framebuffer(gl);
fail_current:
    eglMakeCurrent(gl->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
fail_context:
    eglDestroyContext(gl->display, gl->context);
fail_terminate:
    eglTerminate(gl->display);
fail_display:
    eglReleaseThread();
fail:
    free(gl);
    return r;
}

void cna_gl_context_free(cna_gl_context *gl)
{
    if (!gl) return;
    if (gl->external) {
        if (gl->instance_stream) glDeleteBuffers(1, &gl->instance_stream);
        cna__gl_textures_destroy(gl);
        cna__gl_programs_destroy(gl);
        free(gl);
        return;
    }
    eglMakeCurrent(gl->display, EGL_NO_SURFACE, EGL_NO_SURFACE, gl->context);
    if (gl->instance_stream) glDeleteBuffers(1, &gl->instance_stream);
    cna__gl_textures_destroy(gl);
    cna__gl_programs_destroy(gl);
    destroy_framebuffer(gl);
    eglMakeCurrent(gl->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(gl->display, gl->context);
    eglTerminate(gl->display);
    eglReleaseThread();
    free(gl);
}

const char *cna_gl_context_renderer(const cna_gl_context *gl) { return gl ? gl->renderer : ""; }
uint32_t cna_gl_context_width(const cna_gl_context *gl) { return gl ? gl->width : 0; }
uint32_t cna_gl_context_height(const cna_gl_context *gl) { return gl ? gl->height : 0; }
const cna_device *cna_gl_context_device(cna_gl_context *gl) { return gl ? &gl->device : NULL; }

void cna_gl_set_light(cna_gl_context *gl, const cna_gl_light *light)
{
    if (gl) gl->light = light ? *light : cna_gl_light_default();
}

void cna_gl_begin_frame(cna_gl_context *gl, const float rgba[4])
{
    if (!gl) return;
    glBindFramebuffer(GL_FRAMEBUFFER, gl->fbo);
    glViewport(0, 0, (GLsizei)gl->width, (GLsizei)gl->height);
    glDepthMask(GL_TRUE);
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    if (rgba) glClearColor(rgba[0], rgba[1], rgba[2], rgba[3]);
    else glClearColor(0.0f, 0.0f, 0.0f, 1.0f);
    glClearDepth(1.0);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
}

cna_result cna_gl_read_pixels(cna_gl_context *gl, unsigned char *rgba, size_t size, cna_error *err)
{
    if (!gl || !rgba) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "gl read pixels: NULL argument");
    size_t row = (size_t)gl->width * 4, need = row * gl->height;
    if (size < need)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "gl read pixels: %zu bytes given; %ux%u needs %zu",
                          size, gl->width, gl->height, need);
    GLint w = (GLint)gl->width, h = (GLint)gl->height;
    if (gl->external) {
        glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
        glReadBuffer(GL_BACK);
    } else if (gl->samples > 1) {
        glBindFramebuffer(GL_READ_FRAMEBUFFER, gl->fbo);
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, gl->resolve_fbo);
        glBlitFramebuffer(0, 0, w, h, 0, 0, w, h, GL_COLOR_BUFFER_BIT, GL_NEAREST);
        glBindFramebuffer(GL_READ_FRAMEBUFFER, gl->resolve_fbo);
    } else {
        glBindFramebuffer(GL_READ_FRAMEBUFFER, gl->fbo);
    }
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    glBindFramebuffer(GL_FRAMEBUFFER, gl->fbo);
    /* GL's rows run bottom to top: flip in place. */
    for (size_t y = 0; y < gl->height / 2; y++) {
        unsigned char *a = rgba + y * row, *b = rgba + (gl->height - 1 - y) * row;
        for (size_t i = 0; i < row; i++) {
            unsigned char t = a[i];
            a[i] = b[i];
            b[i] = t;
        }
    }
    return CNA_OK;
}
