/*
 * cna/gl.h — the optional OpenGL renderer (library cna_gl, not part of the
 * core and not included by cna/cna.h): a headless OpenGL 3.3 core context
 * through EGL (Mesa's surfaceless platform; llvmpipe on a machine without a
 * GPU) drawing into an offscreen framebuffer, a cna_device whose buffers are
 * GL buffer objects, shaders for the four effect kinds of cna/effect.h, pixel
 * read-back and PNG output (libpng).
 *
 * The shaders, per effect kind:
 *   basic / PBR          position = projection · view · world · (p, 1)
 *   skinned / skinned PBR   S = sum_i w[i] · bones[j[i]] (4 joint bytes, read
 *                        as integers, and 4 float weights), position =
 *                        projection · view · world · S · (p, 1), normal
 *                        transformed by S then by world's inverse transpose
 *                        (spec: SkinnedEffect with the palette of
 *                        SetBoneTransforms; at most 72 matrices)
 * Lighting is one directional light plus ambient (cna_gl_light); colour =
 * base_color_factor × vertex colour (COLOR_0 when the part has one); the PBR
 * kinds add a metallic-roughness GGX highlight. The material's base-colour
 * texture (PNG through libpng, JPEG through libjpeg-turbo; sRGB, decoded to
 * linear by the GPU), sampled at the part's TEXCOORD set with its glTF
 * sampler's filters and wraps, multiplies the base colour; an image that is
 * missing or cannot be decoded leaves the factor alone (see
 * cna_gl_upload_model_textures). The result is written gamma-encoded
 * (c^(1/2.2)).
 *
 * Usage — render a model once and write a PNG:
 *   cna_gl_context *gl;
 *   cna_gl_context_options o = {0};
 *   o.width = 640; o.height = 480; o.samples = 4;
 *   if (cna_gl_context_create(&o, &gl, &err)) ...;
 *   cna_import_options io = {0};
 *   io.device = cna_gl_context_device(gl);          // parts' buffers become GL buffers
 *   cna_model_load_file("robot.glb", &io, &model, &err);
 *   ... pose the model (players, palettes, rigid clips, morph weights) ...
 *   cna_gl_begin_frame(gl, background_rgba);
 *   cna_gl_draw_model(gl, model, absolute, &view, &projection, &err);
 *   unsigned char *rgba = malloc(640 * 480 * 4);
 *   cna_gl_read_pixels(gl, rgba, 640 * 480 * 4, &err);
 *   cna_gl_write_png("out.png", 640, 480, rgba, &err);
 *   cna_model_free(model);                          // before the context (it owns the buffers)
 *   cna_gl_context_free(gl);
 *
 * Threading: the context is made current on the creating thread; use it from
 * that thread only. One context per thread.
 */
#ifndef CNA_GL_H
#define CNA_GL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cna/device.h"
#include "cna/effect.h"
#include "cna/math.h"
#include "cna/model.h"
#include "cna/result.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cna_gl_context cna_gl_context;

/* Largest framebuffer side accepted. */
#define CNA_GL_MAX_SIZE 8192

/* Zero means default for every field. */
typedef struct cna_gl_context_options {
    uint32_t width;    /* framebuffer width in pixels; default 640 */
    uint32_t height;   /* framebuffer height in pixels; default 480 */
    uint32_t samples;  /* multisample count (0 or 1 = none, the default; e.g. 4) */
    /* Draw with the caller's current OpenGL 3.3 core context (e.g. a GLFW
     * window's) into its default framebuffer of width x height instead of
     * creating an EGL context and an offscreen framebuffer; samples is then
     * ignored (the window's own). The caller keeps the context current and
     * destroys it after cna_gl_context_free. Default false. */
    bool use_current;
} cna_gl_context_options;

/* One directional light and an ambient term, in linear RGB. */
typedef struct cna_gl_light {
    cna_vec3 direction;  /* the direction the light travels, world space (need not be unit) */
    cna_vec3 color;      /* the light's colour */
    cna_vec3 ambient;    /* added everywhere, times the base colour */
} cna_gl_light;

/* The default light: direction (-0.35, -0.8, -0.5) (from above, front,
 * right), colour (1, 1, 1) × 0.9, ambient (0.35, 0.35, 0.38). */
cna_gl_light cna_gl_light_default(void);

/* Create a headless OpenGL 3.3 core context (EGL, Mesa surfaceless platform)
 * with an offscreen framebuffer (RGBA8 colour, 24-bit depth) of the given
 * size, compile the four effect programs and make it current.
 * Errors (*out unchanged): CNA_ERROR_INVALID_ARGUMENT for a NULL out, a side
 * above CNA_GL_MAX_SIZE or samples above 16; CNA_ERROR_UNSUPPORTED when EGL,
 * the surfaceless platform, an OpenGL 3.3 core context, the framebuffer or a
 * shader cannot be had (the message says which, with EGL's error code or the
 * compiler's log); CNA_ERROR_OUT_OF_MEMORY. */
cna_result cna_gl_context_create(const cna_gl_context_options *options, cna_gl_context **out,
                                 cna_error *err);

/* Destroy the context and everything it created. Buffers still alive on its
 * device are released with it: free models using the device first. NULL ok. */
void cna_gl_context_free(cna_gl_context *gl);

/* New framebuffer size (a use_current context's window was resized; an
 * offscreen context's framebuffer is recreated). Sides of 0 or above
 * CNA_GL_MAX_SIZE: CNA_ERROR_INVALID_ARGUMENT, nothing changes. */
cna_result cna_gl_context_resize(cna_gl_context *gl, uint32_t width, uint32_t height, cna_error *err);

/* The GL_RENDERER string (e.g. "llvmpipe (LLVM 15.0.6, 256 bits)"); "" for NULL. */
const char *cna_gl_context_renderer(const cna_gl_context *gl);

/* Framebuffer size (0 for NULL). */
uint32_t cna_gl_context_width(const cna_gl_context *gl);
uint32_t cna_gl_context_height(const cna_gl_context *gl);

/* The context's device (cna/device.h): buffers are GL buffer objects; a
 * vertex buffer holds interleaved vertices, an index buffer uint32_t
 * indices. Valid while the context lives. NULL for NULL. */
const cna_device *cna_gl_context_device(cna_gl_context *gl);

/* Replace the light (default cna_gl_light_default()). NULL restores the
 * default; a NULL gl does nothing. */
void cna_gl_set_light(cna_gl_context *gl, const cna_gl_light *light);

/* Bind the framebuffer, set the viewport to its size and clear colour
 * (rgba, 0..1, linear values written as they are; NULL: opaque black) and
 * depth. A NULL gl does nothing. */
void cna_gl_begin_frame(cna_gl_context *gl, const float rgba[4]);

/* One draw: a vertex buffer of `declaration` and an index buffer (uint32_t)
 * from the context's device, drawn with `effect` (its kind picks the
 * program; world/view/projection, material factors and, skinned, the
 * palette are read from it). Every element of the declaration whose usage is
 * POSITION, NORMAL, TEXCOORD 0, COLOR 0, BLEND_INDICES or BLEND_WEIGHTS
 * feeds the shader; a missing normal reads (0, 0, 1), a missing colour
 * (1, 1, 1, 1). Back faces are culled unless the material is double-sided;
 * BLEND materials are blended, MASK ones cut at alpha_cutoff.
 * Errors (nothing drawn): CNA_ERROR_INVALID_ARGUMENT for NULL arguments, a
 * declaration without a FLOAT3 position, an effect kind out of range, a
 * skinned effect with a declaration lacking UBYTE4 joints or FLOAT4 weights,
 * index_count not a multiple of the primitive's vertex count, buffer 0 with
 * index_count > 0. */
typedef struct cna_gl_draw_desc {
    const cna_vertex_declaration *declaration;
    cna_buffer_id vertex_buffer;
    cna_buffer_id index_buffer;
    size_t index_count;
    cna_primitive_type primitive_type;   /* default: triangle list */
    const cna_effect *effect;
    /* A GL texture (sRGB colour) multiplying the base colour, sampled at the
     * declaration's TEXCOORD effect->params.base_color.texcoord (FLOAT2); 0
     * (default) or a declaration without that set: the factor alone. */
    uint32_t base_color_texture;
} cna_gl_draw_desc;
cna_result cna_gl_draw(cna_gl_context *gl, const cna_gl_draw_desc *desc, cna_error *err);

/* Draw the parts of one mesh of a model imported with this context's device
 * (spec: ModelMesh::Draw): set world = absolute[mesh.parent_bone], view and
 * projection on each part's effect — nothing else, never a palette — and
 * draw it. `absolute` has model->bone_count entries
 * (cna_model_copy_absolute_bone_transforms).
 * Errors (stops at the failing part): CNA_ERROR_INVALID_ARGUMENT for NULL
 * arguments, a mesh out of range, a part without an effect
 * ("meshes[2] \"Body\".parts[0]: no effect") or without device buffers;
 * cna_gl_draw's. */
cna_result cna_gl_draw_mesh(cna_gl_context *gl, cna_model *model, size_t mesh,
                            const cna_mat4 *absolute, const cna_mat4 *view,
                            const cna_mat4 *projection, cna_error *err);

/* Decode and upload every image of `model` that a base-colour texture uses
 * (cna_model_image: bytes or an external file; PNG or JPEG by their
 * signature, at most 16384 pixels a side) as GL textures of this context,
 * with the image's sampler (mipmaps when its min filter asks for them, or
 * when it has none). Textures are cached by cna_model_image.id until
 * cna_gl_release_model_textures or cna_gl_context_free; an image already
 * tried is not tried again. cna_gl_draw_mesh calls this itself (ignoring
 * failures), so calling it is only needed to learn about failures.
 * Errors (every other image is still uploaded; a failed one draws with the
 * factor alone): CNA_ERROR_INVALID_ARGUMENT for NULL gl/model;
 * CNA_ERROR_IO when an external file cannot be read; CNA_ERROR_INVALID_DATA
 * for bytes that are not a decodable PNG/JPEG ("images[1] \"TinyGrid\":
 * not a PNG or JPEG image"); the first failure is reported. `failed` (may
 * be NULL) receives how many of the model's images failed. */
cna_result cna_gl_upload_model_textures(cna_gl_context *gl, const cna_model *model, size_t *failed,
                                        cna_error *err);

/* Delete the cached textures of `model`'s images (call before freeing a model
 * when the context lives on). NULL ok. */
void cna_gl_release_model_textures(cna_gl_context *gl, const cna_model *model);

/* cna_gl_draw_mesh for every mesh in order (spec: Model::Draw). */
cna_result cna_gl_draw_model(cna_gl_context *gl, cna_model *model, const cna_mat4 *absolute,
                             const cna_mat4 *view, const cna_mat4 *projection, cna_error *err);

/* Read the framebuffer (resolved when multisampled) as RGBA8, rows top to
 * bottom, into `rgba` (width * height * 4 bytes).
 * Errors: CNA_ERROR_INVALID_ARGUMENT for NULL arguments or a size too small. */
cna_result cna_gl_read_pixels(cna_gl_context *gl, unsigned char *rgba, size_t size,
                              cna_error *err);

/* Write RGBA8 pixels (rows top to bottom, width * height * 4 bytes) as a PNG
 * file (libpng). No GL needed.
 * Errors: CNA_ERROR_INVALID_ARGUMENT (NULL, zero or oversized side);
 * CNA_ERROR_IO when the file cannot be written ("out.png: ..."). */
cna_result cna_gl_write_png(const char *path, uint32_t width, uint32_t height,
                            const unsigned char *rgba, cna_error *err);

#ifdef __cplusplus
}
#endif
#endif /* CNA_GL_H */
