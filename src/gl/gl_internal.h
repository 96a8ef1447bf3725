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
    CNA__GL_ATTR_WEIGHTS = 5
};

typedef struct cna__gl_program {
    GLuint program;
    GLint u_world, u_view, u_projection, u_normal_matrix, u_bones;
    GLint u_base_color, u_emissive, u_metallic, u_roughness;
    GLint u_light_dir, u_light_color, u_ambient, u_camera_pos;
    GLint u_alpha_mode, u_alpha_cutoff;
    GLint u_base_tex, u_has_base_tex;
} cna__gl_program;

/* A texture cache entry: model image id -> GL texture (0 when it failed,
 * then `failure` says why, so that every later report gives the same
 * message). */
typedef struct cna__gl_texture {
    uint64_t image_id;
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
};

/* Compile the four effect programs. */
cna_result cna__gl_programs_create(cna_gl_context *gl, cna_error *err);
void cna__gl_programs_destroy(cna_gl_context *gl);

/* The GL texture of image `image` of `model` (uploaded on first use; 0 when
 * none, out of range or undecodable). Errors as cna_gl_upload_model_textures:
 * an image that failed before reports the same failure again. */
cna_result cna__gl_model_texture(cna_gl_context *gl, const cna_model *model, int32_t image, GLuint *out,
                                 cna_error *err);
/* How many times `inst` uploaded a morphed part's vertices (tests count
 * them: an upload happens only when the character's part revision changed). */
uint64_t cna__gl_instance_uploads(const cna_gl_instance *inst);
/* The instance's vertex buffer of a morphed part (0 for another part or
 * indices out of range): tests read back what was uploaded. */
GLuint cna__gl_instance_buffer(const cna_gl_instance *inst, size_t mesh, size_t part);

/* Delete every cached texture. */
void cna__gl_textures_destroy(cna_gl_context *gl);

#endif
