/* src/gl/gl_internal.h — private state of cna_gl (not installed). */
#ifndef CNA_GL_INTERNAL_H
#define CNA_GL_INTERNAL_H

#include <epoxy/egl.h>
#include <epoxy/gl.h>

#include "cna/gl.h"

/* Fixed attribute locations shared by every program. */
enum {
    CNA__GL_ATTR_POSITION = 0,
    CNA__GL_ATTR_NORMAL = 1,
    CNA__GL_ATTR_TEXCOORD0 = 2,
    CNA__GL_ATTR_COLOR = 3,
    CNA__GL_ATTR_JOINTS = 4,
    CNA__GL_ATTR_WEIGHTS = 5,
    CNA__GL_ATTR_TANGENT = 6,
    CNA__GL_ATTR_TEXCOORD1 = 7,
    CNA__GL_ATTR_INSTANCE = 8   /* a mat4: locations 8 .. 11, one column each */
};

typedef struct cna__gl_program {
    GLuint program;
    GLint u_world, u_view, u_projection, u_normal_matrix, u_bones;
    GLint u_base_color, u_emissive, u_metallic, u_roughness;
    GLint u_light_dir, u_light_color, u_ambient, u_camera_pos;
    GLint u_alpha_mode, u_alpha_cutoff, u_unlit;
    GLint u_emissive_strength, u_normal_scale, u_occlusion_strength;
    /* per texture slot (cna_effect_slot order) */
    GLint u_tex[CNA_EFFECT_SLOT_COUNT], u_has_tex[CNA_EFFECT_SLOT_COUNT];
    GLint u_uv_set[CNA_EFFECT_SLOT_COUNT], u_uv_transform[CNA_EFFECT_SLOT_COUNT];
} cna__gl_program;

/* A sampler object of the context (glGenSamplers), one per distinct glTF
 * sampler a draw used. */
typedef struct cna__gl_sampler {
    int32_t mag_filter, min_filter, wrap_s, wrap_t;
    GLuint sampler;
} cna__gl_sampler;

/* A texture cache entry: (model, image index, colour space) -> GL texture
 * (0 when it failed, then `failure` says why, so that every later report
 * gives the same message). The model is known by its address only: its
 * entries are released (cna_gl_release_model_textures) before it is freed,
 * so no later model at that address finds them. */
typedef struct cna__gl_texture {
    const cna_model *model;
    size_t image;
    bool srgb;           /* colour (base colour, emissive) or data (the other maps) */
    GLuint texture;
    cna_error failure;   /* code CNA_OK when the texture was made */
} cna__gl_texture;

struct cna_gl_context {
    EGLDisplay display;
    EGLContext context;
    uint32_t width, height, samples;
    GLuint fbo, color_rb, depth_rb;          /* drawn into (multisampled when samples > 1) */
    GLuint resolve_fbo, resolve_rb;          /* single-sampled copy for reading, samples > 1 */
    cna__gl_program programs[CNA_EFFECT_KIND_COUNT];  /* index = kind; DEFAULT unused */
    cna_gl_light light;
    cna_device device;
    char renderer[128];
    bool external;                           /* use_current: the caller's context, framebuffer 0 */
    cna__gl_texture *textures;               /* cache, texture_count used of texture_cap */
    size_t texture_count, texture_cap;
    cna__gl_sampler *samplers;               /* cache, sampler_count used of sampler_cap */
    size_t sampler_count, sampler_cap;
    GLuint instance_stream;                  /* instance matrices of a draw given without a buffer (0 until used) */
};

/* Compile the four effect programs. */
cna_result cna__gl_programs_create(cna_gl_context *gl, cna_error *err);
void cna__gl_programs_destroy(cna_gl_context *gl);

/* The GL texture of image `image` of `model` (uploaded on first use, sRGB
 * or linear; 0 when none, out of range, unavailable or undecodable). Errors
 * as cna_gl_upload_model_textures: an image that failed before reports the
 * same failure again. */
cna_result cna__gl_model_texture(cna_gl_context *gl, const cna_model *model, int32_t image, bool srgb, GLuint *out,
                                 cna_error *err);
/* The context's sampler object for a slot's glTF sampler (0 when GL gives none). */
GLuint cna__gl_sampler_for(cna_gl_context *gl, const cna_effect_texture *t);
/* The failure of image `image` of `model` when a texture of it was tried
 * and failed (err filled as at the first failure); CNA_OK otherwise. */
cna_result cna__gl_image_status(const cna_gl_context *gl, const cna_model *model, int32_t image, cna_error *err);
/* true for the slots whose image holds colour (sRGB): base colour, emissive. */
bool cna__gl_slot_is_srgb(cna_effect_slot slot);
/* How many times `inst` uploaded a morphed part's vertices (tests count
 * them: an upload happens only when the character's part revision changed). */
uint64_t cna__gl_instance_uploads(const cna_gl_instance *inst);
/* The instance's vertex buffer of a morphed part (0 for another part or
 * indices out of range): tests read back what was uploaded. */
GLuint cna__gl_instance_buffer(const cna_gl_instance *inst, size_t mesh, size_t part);

/* Delete every cached texture and sampler object. */
void cna__gl_textures_destroy(cna_gl_context *gl);

#endif
