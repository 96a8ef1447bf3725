/*
 * cna/gl.h — the optional OpenGL renderer (library cna_gl, not part of the
 * core and not included by cna/cna.h): a headless OpenGL 3.3 core context
 * through EGL (Mesa's surfaceless platform; llvmpipe on a machine without a
 * GPU) drawing into an offscreen framebuffer, the GPU objects of a model
 * shared by all its characters, shaders for the four effect kinds of
 * cna/effect.h, pixel read-back and PNG output (libpng).
 *
 * Three kinds of objects, after the split of cna/character.h:
 *   cna_gl_context   the GL context, its programs and texture cache;
 *   cna_gl_model     one per model: a vertex and an index buffer per part and
 *                    the material textures, shared by every character of
 *                    that model (created once, never written at draw);
 *   cna_gl_instance  one per character whose model has morphed parts: a
 *                    vertex buffer per morphed part for that character's
 *                    blended vertices, re-uploaded only when they change.
 * Drawing takes everything that changes per frame as arguments (world, view,
 * projection, palette, blended vertices); nothing writes the model.
 *
 * The shaders, per effect kind:
 *   basic / PBR          position = projection · view · world · (p, 1)
 *   skinned / skinned PBR   S = sum_i w[i] · palette[j[i]] (4 joint bytes,
 *                        read as integers, and 4 float weights), position =
 *                        projection · view · world · S · (p, 1), normal
 *                        transformed by S then by world's inverse transpose
 *                        (spec: SkinnedEffect with the palette of
 *                        SetBoneTransforms; at most 72 matrices)
 *   instanced (EXT_mesh_gpu_instancing, either kind)   world · I · (p, 1)
 *                        or world · I · S · (p, 1) per instance matrix I,
 *                        all instances in one instanced draw call
 * Lighting is one directional light plus ambient (cna_gl_light); colour =
 * base_color_factor × vertex colour (COLOR_0 when the part has one) × the
 * base-colour texture; the basic kinds shade it Lambert (diffuse), the PBR
 * kinds with a metallic-roughness Cook-Torrance BRDF (GGX distribution,
 * Smith-Schlick geometry, Schlick Fresnel). Every texture slot of the
 * material is drawn (PNG through libpng, JPEG through libjpeg-turbo), each
 * at its TEXCOORD set (0 or 1) through its KHR_texture_transform matrix,
 * with its glTF sampler's filters and wraps: base colour and emissive as
 * sRGB colour (decoded to linear by the GPU); metallic-roughness (B
 * metallic, G roughness), normal (tangent space, xy × normal scale) and
 * occlusion (R, mixed in by its strength, on the ambient term) as linear
 * data; emissive × emissive_factor × emissive_strength is added. An image
 * that is missing or cannot be decoded leaves that slot's factor alone (see
 * cna_gl_upload_model_textures and cna_gl_model_image_status). The result
 * is written gamma-encoded (c^(1/2.2)). docs/rendering.md has the details.
 *
 * Usage — two robots of one model, walking side by side, written as a PNG:
 *   cna_gl_context *gl;
 *   cna_gl_context_options o = {0};
 *   o.width = 640; o.height = 480; o.samples = 4;
 *   if (cna_gl_context_create(&o, &gl, &err)) ...;
 *   cna_model *model;
 *   cna_model_load_file("robot.glb", NULL, &model, &err);
 *   cna_gl_model *glm;                                // buffers + textures, once
 *   if (cna_gl_model_create(gl, model, &glm, &err)) ...;
 *   cna_character *a, *b;                             // cna/character.h
 *   cna_character_create(model, NULL, &a, &err);
 *   cna_character_create(model, NULL, &b, &err);
 *   cna_gl_instance *ia, *ib;                         // per character (morphed parts)
 *   cna_gl_instance_create(glm, &ia, &err);
 *   cna_gl_instance_create(glm, &ib, &err);
 *   ... play, seek or update each character, then cna_character_pose ...
 *   cna_mat4 left, right;                             // where each one stands
 *   cna_mat4_translation(&left, cna_vec3_make(-1, 0, 0));
 *   cna_mat4_translation(&right, cna_vec3_make(1, 0, 0));
 *   cna_gl_begin_frame(gl, background_rgba);
 *   cna_gl_draw_character(gl, glm, ia, a, &left, &view, &projection, &err);
 *   cna_gl_draw_character(gl, glm, ib, b, &right, &view, &projection, &err);
 *   unsigned char *rgba = malloc(640 * 480 * 4);
 *   cna_gl_read_pixels(gl, rgba, 640 * 480 * 4, &err);
 *   cna_gl_write_png("out.png", 640, 480, rgba, &err);
 *   cna_gl_instance_free(ib); cna_gl_instance_free(ia);
 *   cna_character_free(b); cna_character_free(a);
 *   cna_gl_model_free(glm);                           // before the context and the model
 *   cna_model_free(model);
 *   cna_gl_context_free(gl);
 *
 * Lifetimes: a cna_gl_model borrows its context and its model, which must
 * outlive it; a cna_gl_instance borrows its cna_gl_model. Free instances,
 * then gl models, then the context. Every GL object is created and deleted
 * with the context current.
 *
 * Threading: the context is made current on the creating thread; use it from
 * that thread only. One context per thread.
 */
#ifndef CNA_GL_H
#define CNA_GL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cna/character.h"
#include "cna/device.h"
#include "cna/effect.h"
#include "cna/export.h"
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
CNA_API cna_gl_light cna_gl_light_default(void);

/* Create a headless OpenGL 3.3 core context (EGL, Mesa surfaceless platform)
 * with an offscreen framebuffer (RGBA8 colour, 24-bit depth) of the given
 * size, compile the four effect programs and make it current.
 * Errors (*out unchanged): CNA_ERROR_INVALID_ARGUMENT for a NULL out, a side
 * above CNA_GL_MAX_SIZE or samples above 16; CNA_ERROR_UNSUPPORTED when EGL,
 * the surfaceless platform, an OpenGL 3.3 core context, the framebuffer or a
 * shader cannot be had (the message says which, with EGL's error code or the
 * compiler's log); CNA_ERROR_OUT_OF_MEMORY. */
CNA_API cna_result cna_gl_context_create(const cna_gl_context_options *options, cna_gl_context **out,
                                 cna_error *err);

/* Destroy the context, its programs and cached textures. Free its gl models
 * and instances first (and models whose buffers live on its device). NULL ok. */
CNA_API void cna_gl_context_free(cna_gl_context *gl);

/* New framebuffer size (a use_current context's window was resized; an
 * offscreen context's framebuffer is recreated). Sides of 0 or above
 * CNA_GL_MAX_SIZE: CNA_ERROR_INVALID_ARGUMENT, nothing changes. */
CNA_API cna_result cna_gl_context_resize(cna_gl_context *gl, uint32_t width, uint32_t height, cna_error *err);

/* The GL_RENDERER string (e.g. "llvmpipe (LLVM 15.0.6, 256 bits)"); "" for NULL. */
CNA_API const char *cna_gl_context_renderer(const cna_gl_context *gl);

/* Framebuffer size (0 for NULL). */
CNA_API uint32_t cna_gl_context_width(const cna_gl_context *gl);
CNA_API uint32_t cna_gl_context_height(const cna_gl_context *gl);

/* The context's device (cna/device.h): buffers are GL buffer objects; a
 * vertex buffer holds interleaved vertices, an index buffer uint32_t
 * indices. Valid while the context lives. NULL for NULL. */
CNA_API const cna_device *cna_gl_context_device(cna_gl_context *gl);

/* Replace the light (default cna_gl_light_default()). NULL restores the
 * default; a NULL gl does nothing. */
CNA_API void cna_gl_set_light(cna_gl_context *gl, const cna_gl_light *light);

/* Bind the framebuffer, set the viewport to its size and clear colour
 * (rgba, 0..1, linear values written as they are; NULL: opaque black) and
 * depth. A NULL gl does nothing. */
CNA_API void cna_gl_begin_frame(cna_gl_context *gl, const float rgba[4]);

/* One draw: a vertex buffer of `declaration` and an index buffer (uint32_t)
 * from the context's device, drawn with `effect` (its kind picks the
 * program; world/view/projection, material factors and, skinned, the
 * palette are read from it). Every element of the declaration whose usage is
 * POSITION, NORMAL, TANGENT, TEXCOORD 0 and 1, COLOR 0, BLEND_INDICES or
 * BLEND_WEIGHTS feeds the shader; a missing normal reads (0, 0, 1), a
 * missing colour (1, 1, 1, 1), a missing tangent (0, 0, 0, 1) (a normal map
 * then takes its frame from screen-space derivatives). A basic or skinned
 * effect whose material has a metallic-roughness, normal or occlusion
 * texture given here is drawn with the PBR program of its skinning.
 * Back faces are culled unless the material is double-sided (a back face is
 * then lit with the negated normal frame); OPAQUE writes alpha 1; MASK
 * discards fragments whose alpha is below alpha_cutoff and writes alpha 1;
 * BLEND blends "over" (source alpha, one minus source alpha) with depth
 * writes off for the draw. When world's
 * upper 3x3 has a negative determinant (a mirror: glTF 2.0's front faces are
 * then clockwise), the draw takes clockwise faces as front (glFrontFace
 * GL_CW, back to GL_CCW after the draw), for culling and for the lighting of
 * double-sided faces; normals go through the inverse transpose of world's
 * 3x3, which keeps them outward under a mirror. A skinned draw decides by
 * world too (the mesh node's transform, glTF's rule); a mirror only in the
 * palette is not detected.
 * Errors (nothing drawn): CNA_ERROR_INVALID_ARGUMENT for NULL arguments, a
 * declaration without a FLOAT3 position, an effect kind out of range, a
 * skinned effect with a declaration lacking UBYTE4 joints or FLOAT4 weights,
 * a skinned effect without a palette ("gl draw: effect kind skinned needs a
 * palette; none given"), a primitive type out of range, index_count not a
 * multiple of the primitive's vertex count, buffer 0 with index_count > 0;
 * CNA_ERROR_LIMIT for a palette_count above CNA_EFFECT_MAX_BONES ("gl draw:
 * a palette of 73 matrices; at most 72 are supported") or an instance_count
 * above INT32_MAX / sizeof(cna_mat4); CNA_ERROR_OUT_OF_MEMORY when the
 * instance matrices cannot be uploaded. */
typedef struct cna_gl_draw_desc {
    const cna_vertex_declaration *declaration;
    cna_buffer_id vertex_buffer;
    cna_buffer_id index_buffer;
    size_t index_count;
    cna_primitive_type primitive_type;   /* default: triangle list */
    const cna_effect *effect;            /* kind and material (read only) */
    /* A GL texture (sRGB colour) multiplying the base colour, sampled at the
     * declaration's TEXCOORD effect->params.base_color.texcoord (FLOAT2, set
     * 0 or 1) through that slot's transform and sampler; 0 (default) or a
     * declaration without that set: the factor alone. */
    uint32_t base_color_texture;
    /* Model-to-world, world-to-view and view-to-clip matrices; NULL (the
     * default) means the identity. */
    const cna_mat4 *world, *view, *projection;
    /* Skinned effects only (ignored otherwise): palette_count skin matrices
     * in palette order (cna_character_skin_transforms), 1 to
     * CNA_EFFECT_MAX_BONES; the vertices' joint bytes index it. Borrowed for
     * the call. */
    const cna_mat4 *palette;
    size_t palette_count;
    /* GL textures of the material's other slots (0, the default: none),
     * each sampled at its slot's TEXCOORD set (0 or 1; a set the
     * declaration lacks: no texture) through the slot's transform with its
     * sampler: metallic-roughness, normal and occlusion linear, emissive
     * sRGB colour. The base-colour texture follows these rules too. */
    uint32_t metallic_roughness_texture, normal_texture, occlusion_texture, emissive_texture;
    /* Instanced drawing (EXT_mesh_gpu_instancing; cna_model_mesh.instances):
     * instance_count matrices I[i], column-major, borrowed for the call; the
     * part is drawn once per instance, at world · I[i] · (p, 1) (skinned:
     * world · I[i] · S · (p, 1), after skinning), with normals through I's
     * inverse transpose too, in one glDrawElementsInstanced call (the
     * matrices are a per-instance vertex attribute, divisor 1; GL 3.3 core
     * and GLES 3 have it). An instance whose world · I[i] mirrors takes
     * clockwise front faces like a mirrored world: consecutive instances
     * that mirror alike share one call. instance_buffer: a GL buffer of the
     * context holding the same instance_count matrices (cna_gl_model makes
     * one per instanced mesh); 0 (the default): `instances` is uploaded for
     * the call into a buffer the context keeps. instance_count 0 (the
     * default): not instanced, one draw at world · (p, 1).
     * Errors: CNA_ERROR_INVALID_ARGUMENT for instance_count > 0 with NULL
     * instances ("gl draw: instance_count 5 but no instances"). */
    const cna_mat4 *instances;
    size_t instance_count;
    uint32_t instance_buffer;
} cna_gl_draw_desc;
CNA_API cna_result cna_gl_draw(cna_gl_context *gl, const cna_gl_draw_desc *desc, cna_error *err);

/* ------------------------------------------------------------------ GPU objects of a model */

typedef struct cna_gl_model cna_gl_model;

/* Create the GPU objects of `model`, once, for every character of it: for
 * every part, a static vertex buffer holding part->vertices (the model's
 * vertex bytes: the morph base for a morphed part) and a static index buffer
 * holding part->indices; a static buffer of the instance matrices of every
 * instanced mesh (cna_model_mesh.instances); and every material texture the model's images
 * give (as cna_gl_upload_model_textures: decoded, uploaded and cached by the
 * context; a failed image draws with the factor alone and does not fail the
 * creation: cna_gl_model_texture_failures reports it). The model is checked
 * first: every part has an effect in range, every mesh a parent bone in
 * range, every skinned effect a mesh with a skin of at most
 * CNA_EFFECT_MAX_BONES joints, or, on a split part (a skin of more joints
 * imported with split_palettes), a palette map of at most that many.
 * Errors (*out unchanged, nothing left allocated): CNA_ERROR_INVALID_ARGUMENT
 * for NULL arguments or a model that fails a check ("meshes[2]
 * \"Body\".parts[0]: no effect"); CNA_ERROR_OUT_OF_MEMORY (also when GL
 * cannot allocate a buffer). Borrows gl and model (both must outlive it). */
CNA_API cna_result cna_gl_model_create(cna_gl_context *gl, const cna_model *model, cna_gl_model **out,
                               cna_error *err);

/* Delete the buffers and release the model's cached textures
 * (cna_gl_release_model_textures); the context must be current. NULL ok. */
CNA_API void cna_gl_model_free(cna_gl_model *glm);

/* The model the GPU objects were made from (NULL for NULL). */
CNA_API const cna_model *cna_gl_model_model(const cna_gl_model *glm);

/* How many of the model's images could not be uploaded when the gl model was
 * created (0 for NULL); `first` (may be NULL) receives the first failure's
 * code and message ("images[1] \"TinyGrid\": not a PNG or JPEG image"), or
 * CNA_OK and "" when none failed. */
CNA_API size_t cna_gl_model_texture_failures(const cna_gl_model *glm, cna_error *first);

/* Whether image `image` of glm's model has a texture: CNA_OK when it was
 * uploaded (or is not used by any material, or `image` is out of range);
 * otherwise the code of its failure, and `err` (may be NULL) receives the
 * message, as at the upload ("images[5] \"body_n\": cannot open
 * \"dir/body_n.png\": No such file or directory"). A renderer names the
 * material and slot around it (cna render prints one warning for every
 * image a drawn material uses that failed). CNA_ERROR_INVALID_ARGUMENT for
 * a NULL glm. */
CNA_API cna_result cna_gl_model_image_status(const cna_gl_model *glm, int32_t image, cna_error *err);

/* The GL buffer names of part `part` of mesh `mesh` (the model's vertices
 * and indices), for a draw of one's own with cna_gl_draw. Either pointer may
 * be NULL. Errors (outputs unchanged): CNA_ERROR_INVALID_ARGUMENT for a NULL
 * glm or indices out of range ("gl model: meshes[3] is outside the 2 meshes"). */
CNA_API cna_result cna_gl_model_part_buffers(const cna_gl_model *glm, size_t mesh, size_t part,
                                     uint32_t *vertex_buffer, uint32_t *index_buffer, cna_error *err);

/* ------------------------------------------------------------------ per-character GPU state */

typedef struct cna_gl_instance cna_gl_instance;

/* Create the per-character GPU state for one character of glm's model: one
 * dynamic vertex buffer per morphed part (a part with morph targets),
 * filled at the first draw. A model without morphed parts gets an empty
 * instance (drawing may then also pass NULL). Borrows glm (it must outlive
 * the instance). Use one instance per character: an instance remembers what
 * it last uploaded.
 * Errors (*out unchanged): CNA_ERROR_INVALID_ARGUMENT for NULL arguments;
 * CNA_ERROR_OUT_OF_MEMORY (also when GL cannot allocate a buffer). */
CNA_API cna_result cna_gl_instance_create(const cna_gl_model *glm, cna_gl_instance **out, cna_error *err);

/* Delete the instance's buffers (the context must be current). NULL ok. */
CNA_API void cna_gl_instance_free(cna_gl_instance *inst);

/* Draw character `c` (spec: Model::Draw): every mesh of the model in order,
 * every part of it with its effect, with
 *   world = placement · absolute[mesh.parent_bone]
 * (and, for an instanced mesh, mesh.instance_count > 0, each of its instances
 * at world · mesh.instances[i] from glm's buffer of them, in one instanced
 * draw per part; skinned, after skinning, in the mesh node's space)
 * (cna_character_absolute_transform; placement NULL = identity, so world
 * is the absolute transform itself: one program places many characters),
 * view and projection (NULL = identity), and for a skinned part its
 * palette, cna_character_part_palette(c, mesh, part, &count): its mesh's
 * own skin's palette (that skin's joint_count matrices), or, for a split
 * part, its sub-palette of palette_map_count matrices. A morphed part draws from `inst`'s buffer, into
 * which cna_character_part_vertices is uploaded first when
 * cna_character_part_revision differs from the last upload's; other parts
 * draw from glm's buffers. Parts with a BLEND material are drawn after all
 * the others (OPAQUE and MASK), in model order (not sorted by depth).
 * Draws the character's last pose; writes neither the model nor the
 * character.
 * Errors (stops at the failing part; the parts before it are drawn):
 * CNA_ERROR_INVALID_ARGUMENT for NULL gl, glm or c, a character of another
 * model than glm's ("gl draw character: the character's model (52 bones, 14
 * meshes) is not the gl model's (5 bones, 1 meshes)"), an instance made for
 * another gl model, a NULL instance while the model has a morphed part
 * ("meshes[0] \"Cube\".parts[0]: a morphed part needs a cna_gl_instance");
 * cna_gl_draw's. */
CNA_API cna_result cna_gl_draw_character(cna_gl_context *gl, const cna_gl_model *glm, cna_gl_instance *inst,
                                 const cna_character *c, const cna_mat4 *placement,
                                 const cna_mat4 *view, const cna_mat4 *projection, cna_error *err);

/* ------------------------------------------------------------------ textures */

/* Decode and upload every image of `model` that a material texture uses
 * (cna_model_image: bytes or an external file; PNG or JPEG by their
 * signature, at most 16384 pixels a side) as GL textures of this context
 * (mipmaps when a slot showing the image has no min filter or a MIPMAP
 * one): sRGB for the base-colour and emissive slots, linear for the
 * metallic-roughness, normal and occlusion slots (an image used both ways
 * gets both). Each draw binds a sampler object with the slot's own glTF
 * sampler. Textures are cached by (model, image index, colour space) until
 * cna_gl_release_model_textures (which cna_gl_model_free calls) or
 * cna_gl_context_free; two models never share one. The cache knows the
 * model by its address: release its textures before freeing it, or a model
 * allocated later at the same address would be drawn with them. An image
 * already tried is not tried again, and a
 * failed one reports its first failure again. cna_gl_model_create calls
 * this itself, so calling it is only needed to learn about failures without
 * a gl model (cna_gl_model_texture_failures tells them too).
 * Errors (every other image is still uploaded; a failed one draws with the
 * factor alone): CNA_ERROR_INVALID_ARGUMENT for NULL gl/model;
 * CNA_ERROR_IO when an external file cannot be read, or when a used image
 * was unavailable at load (cna_model_image.problem: "images[0] \"\": cannot
 * open \"dir/a.png\": No such file or directory"); CNA_ERROR_INVALID_DATA
 * for bytes that are not a decodable PNG/JPEG ("images[1] \"TinyGrid\":
 * not a PNG or JPEG image"); the first failure is reported. `failed` (may
 * be NULL) receives how many of the model's images failed. */
CNA_API cna_result cna_gl_upload_model_textures(cna_gl_context *gl, const cna_model *model, size_t *failed,
                                        cna_error *err);

/* Delete the cached textures of `model`'s images (cna_gl_model_free does).
 * Call it before freeing a model whose textures were uploaded without a gl
 * model while the context lives on: the cache knows a model by its address
 * only, and a model loaded later at the same address would otherwise be
 * drawn with the freed one's textures. NULL ok. */
CNA_API void cna_gl_release_model_textures(cna_gl_context *gl, const cna_model *model);

/* Read the framebuffer (resolved when multisampled) as RGBA8, rows top to
 * bottom, into `rgba` (width * height * 4 bytes).
 * Errors: CNA_ERROR_INVALID_ARGUMENT for NULL arguments or a size too small. */
CNA_API cna_result cna_gl_read_pixels(cna_gl_context *gl, unsigned char *rgba, size_t size,
                              cna_error *err);

/* Write RGBA8 pixels (rows top to bottom, width * height * 4 bytes) as a PNG
 * file (libpng). No GL needed.
 * Written atomically: the PNG is encoded in memory, written to a temporary
 * file ".out.png.XXXXXX" in the same folder, flushed to the disk and renamed
 * over `path` only when complete, so a failure (a full disk, a crash) leaves
 * the previous file as it was and no temporary file behind (a killed process
 * may leave one, which later writes ignore). The new file gets mode
 * 0666 & ~umask (0644 under umask 022), not the mode of the file it replaces;
 * a symbolic link at `path` is followed and kept.
 * Errors: CNA_ERROR_INVALID_ARGUMENT (NULL, zero or oversized side);
 * CNA_ERROR_OUT_OF_MEMORY; CNA_ERROR_IO when the file cannot be written, with
 * the system's reason ("out.png: write failed: No space left on device"). */
CNA_API cna_result cna_gl_write_png(const char *path, uint32_t width, uint32_t height,
                            const unsigned char *rgba, cna_error *err);

#ifdef __cplusplus
}
#endif
#endif /* CNA_GL_H */
