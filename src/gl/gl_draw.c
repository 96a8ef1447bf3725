/*
 * src/gl/gl_draw.c — the programs of the four effect kinds and one draw
 * (cna_gl_draw, cna/gl.h); the draw of a character is in gl_model.c.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "gl/gl_internal.h"

/* Vertex stage. Skinned: S = sum_i w[i] · bones[j[i]] (ours; spec:
 * sum w * skin[j] in XNA's row-vector order), then world · S · (p, 1). */
static const char cna__vs[] =
    "layout(location = 0) in vec3 a_position;\n"
    "layout(location = 1) in vec3 a_normal;\n"
    "layout(location = 2) in vec2 a_texcoord;\n"
    "layout(location = 3) in vec4 a_color;\n"
    "#ifdef CNA_SKINNED\n"
    "layout(location = 4) in uvec4 a_joints;\n"
    "layout(location = 5) in vec4 a_weights;\n"
    "uniform mat4 u_bones[72];\n"
    "#endif\n"
    "uniform mat4 u_world, u_view, u_projection;\n"
    "uniform mat3 u_normal_matrix;\n"
    "out vec3 v_normal;\n"
    "out vec3 v_position;\n"
    "out vec4 v_color;\n"
    "out vec2 v_texcoord;\n"
    "void main() {\n"
    "  vec4 p = vec4(a_position, 1.0);\n"
    "  vec3 n = a_normal;\n"
    "#ifdef CNA_SKINNED\n"
    "  mat4 s = a_weights.x * u_bones[a_joints.x] + a_weights.y * u_bones[a_joints.y]\n"
    "         + a_weights.z * u_bones[a_joints.z] + a_weights.w * u_bones[a_joints.w];\n"
    "  p = s * p;\n"
    "  n = mat3(s) * n;\n"
    "#endif\n"
    "  vec4 w = u_world * p;\n"
    "  v_position = w.xyz;\n"
    "  v_normal = u_normal_matrix * n;\n"
    "  v_color = a_color;\n"
    "  v_texcoord = a_texcoord;\n"
    "  gl_Position = u_projection * (u_view * w);\n"
    "}\n";

/* Fragment stage: ambient + Lambert; PBR adds a GGX (Trowbridge-Reitz)
 * highlight with Schlick Fresnel and metallic tinting. */
static const char cna__fs[] =
    "in vec3 v_normal;\n"
    "in vec3 v_position;\n"
    "in vec4 v_color;\n"
    "in vec2 v_texcoord;\n"
    "uniform sampler2D u_base_tex;\n"
    "uniform int u_has_base_tex;\n"
    "uniform vec4 u_base_color;\n"
    "uniform vec3 u_emissive;\n"
    "uniform float u_metallic, u_roughness;\n"
    "uniform vec3 u_light_dir, u_light_color, u_ambient, u_camera_pos;\n"
    "uniform int u_alpha_mode;\n"
    "uniform float u_alpha_cutoff;\n"
    "out vec4 o_color;\n"
    "void main() {\n"
    "  vec4 base = u_base_color * v_color;\n"
    "  if (u_has_base_tex != 0) base *= texture(u_base_tex, v_texcoord);\n"
    "  if (u_alpha_mode == 1 && base.a < u_alpha_cutoff) discard;\n"
    "  vec3 n = normalize(v_normal);\n"
    "  if (!gl_FrontFacing) n = -n;\n"
    "  vec3 l = normalize(-u_light_dir);\n"
    "  float ndl = max(dot(n, l), 0.0);\n"
    "#ifdef CNA_PBR\n"
    "  float metallic = clamp(u_metallic, 0.0, 1.0);\n"
    "  float rough = clamp(u_roughness, 0.04, 1.0);\n"
    "  vec3 v = normalize(u_camera_pos - v_position);\n"
    "  vec3 h = normalize(l + v);\n"
    "  float ndh = max(dot(n, h), 0.0), ndv = max(dot(n, v), 1e-4), vdh = max(dot(v, h), 0.0);\n"
    "  vec3 f0 = mix(vec3(0.04), base.rgb, metallic);\n"
    "  vec3 f = f0 + (1.0 - f0) * pow(1.0 - vdh, 5.0);\n"
    "  float a2 = rough * rough * rough * rough;\n"
    "  float dd = ndh * ndh * (a2 - 1.0) + 1.0;\n"
    "  float d = a2 / (3.14159265 * dd * dd);\n"
    "  float k = (rough + 1.0) * (rough + 1.0) / 8.0;\n"
    "  float g = ndl / (ndl * (1.0 - k) + k) * ndv / (ndv * (1.0 - k) + k);\n"
    "  vec3 spec = d * g * f / max(4.0 * ndl * ndv, 1e-4);\n"
    "  vec3 diffuse = base.rgb * (1.0 - metallic) * (1.0 - f);\n"
    "  vec3 color = u_ambient * mix(base.rgb, base.rgb * 0.5 + f0 * 0.5, metallic)\n"
    "             + u_light_color * ndl * (diffuse + spec);\n"
    "#else\n"
    "  vec3 color = base.rgb * (u_ambient + u_light_color * ndl);\n"
    "#endif\n"
    "  color += u_emissive;\n"
    "  o_color = vec4(pow(clamp(color, 0.0, 1.0), vec3(1.0 / 2.2)), base.a);\n"
    "}\n";

static GLuint compile(GLenum type, const char *defines, const char *body, const char *what, cna_error *err)
{
    GLuint s = glCreateShader(type);
    const char *src[3] = {"#version 330 core\n", defines, body};
    glShaderSource(s, 3, src, NULL);
    glCompileShader(s);
    GLint ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[400];
        log[0] = '\0';
        glGetShaderInfoLog(s, (GLsizei)sizeof log, NULL, log);
        glDeleteShader(s);
        cna__error(err, CNA_ERROR_UNSUPPORTED, "gl shader %s: %s", what, log);
        return 0;
    }
    return s;
}

static cna_result program_create(cna__gl_program *p, cna_effect_kind kind, cna_error *err)
{
    const char *defines = kind == CNA_EFFECT_KIND_SKINNED        ? "#define CNA_SKINNED\n"
                          : kind == CNA_EFFECT_KIND_PBR          ? "#define CNA_PBR\n"
                          : kind == CNA_EFFECT_KIND_SKINNED_PBR ? "#define CNA_SKINNED\n#define CNA_PBR\n"
                                                                 : "";
    const char *name = cna_effect_kind_name(kind);
    GLuint vs = compile(GL_VERTEX_SHADER, defines, cna__vs, name, err);
    if (!vs) return CNA_ERROR_UNSUPPORTED;
    GLuint fs = compile(GL_FRAGMENT_SHADER, defines, cna__fs, name, err);
    if (!fs) {
        glDeleteShader(vs);
        return CNA_ERROR_UNSUPPORTED;
    }
    GLuint prog = glCreateProgram();
    glAttachShader(prog, vs);
    glAttachShader(prog, fs);
    glLinkProgram(prog);
    glDeleteShader(vs);
    glDeleteShader(fs);
    GLint ok = 0;
    glGetProgramiv(prog, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[400];
        log[0] = '\0';
        glGetProgramInfoLog(prog, (GLsizei)sizeof log, NULL, log);
        glDeleteProgram(prog);
        return cna__error(err, CNA_ERROR_UNSUPPORTED, "gl program %s: %s", name, log);
    }
    p->program = prog;
    p->u_world = glGetUniformLocation(prog, "u_world");
    p->u_view = glGetUniformLocation(prog, "u_view");
    p->u_projection = glGetUniformLocation(prog, "u_projection");
    p->u_normal_matrix = glGetUniformLocation(prog, "u_normal_matrix");
    p->u_bones = glGetUniformLocation(prog, "u_bones");
    p->u_base_color = glGetUniformLocation(prog, "u_base_color");
    p->u_emissive = glGetUniformLocation(prog, "u_emissive");
    p->u_metallic = glGetUniformLocation(prog, "u_metallic");
    p->u_roughness = glGetUniformLocation(prog, "u_roughness");
    p->u_light_dir = glGetUniformLocation(prog, "u_light_dir");
    p->u_light_color = glGetUniformLocation(prog, "u_light_color");
    p->u_ambient = glGetUniformLocation(prog, "u_ambient");
    p->u_camera_pos = glGetUniformLocation(prog, "u_camera_pos");
    p->u_alpha_mode = glGetUniformLocation(prog, "u_alpha_mode");
    p->u_alpha_cutoff = glGetUniformLocation(prog, "u_alpha_cutoff");
    p->u_base_tex = glGetUniformLocation(prog, "u_base_tex");
    p->u_has_base_tex = glGetUniformLocation(prog, "u_has_base_tex");
    return CNA_OK;
}

cna_result cna__gl_programs_create(cna_gl_context *gl, cna_error *err)
{
    for (int k = CNA_EFFECT_KIND_BASIC; k < CNA_EFFECT_KIND_COUNT; k++) {
        cna_result r = program_create(&gl->programs[k], (cna_effect_kind)k, err);
        if (r) {
            cna__gl_programs_destroy(gl);
            return r;
        }
    }
    return CNA_OK;
}

void cna__gl_programs_destroy(cna_gl_context *gl)
{
    for (int k = 0; k < CNA_EFFECT_KIND_COUNT; k++) {
        if (gl->programs[k].program) glDeleteProgram(gl->programs[k].program);
        gl->programs[k].program = 0;
    }
}

/* ------------------------------------------------------------ draw */

/* The inverse transpose of world's upper 3x3 (normals under non-uniform
 * scale); world's own 3x3 when it is singular. Column-major out[9]. */
static void normal_matrix(const cna_mat4 *w, float out[9])
{
    const float *m = w->m;
    float a = m[0], b = m[4], c = m[8], d = m[1], e = m[5], f = m[9], g = m[2], h = m[6], i = m[10];
    /* rows (a b c / d e f / g h i) */
    float A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g;
    float det = a * A + b * B + c * C;
    if (!(fabsf(det) > 1e-30f) || !isfinite(det)) {
        const float id[9] = {a, d, g, b, e, h, c, f, i};
        memcpy(out, id, sizeof id);
        return;
    }
    /* inverse transpose = cofactor matrix / det; column-major storage of row r col c at [c*3 + r] */
    float cof[3][3] = {{A, B, C},
                       {-(b * i - c * h), a * i - c * g, -(a * h - b * g)},
                       {b * f - c * e, -(a * f - c * d), a * e - b * d}};
    for (int r = 0; r < 3; r++)
        for (int cc = 0; cc < 3; cc++) out[cc * 3 + r] = cof[r][cc] / det;
}

/* True when world's upper 3x3 has a negative determinant: a mirror (glTF 2.0,
 * "Instantiation": the front faces are then wound clockwise). */
static bool mirrors(const cna_mat4 *w)
{
    const float *m = w->m; /* column-major: column c at m[4c .. 4c+2] */
    double det = (double)m[0] * ((double)m[5] * m[10] - (double)m[9] * m[6]) -
                 (double)m[4] * ((double)m[1] * m[10] - (double)m[9] * m[2]) +
                 (double)m[8] * ((double)m[1] * m[6] - (double)m[5] * m[2]);
    return det < 0.0;
}

static bool attrib(const cna_vertex_element *el, GLuint loc, GLsizei stride)
{
    const void *off = (const void *)(uintptr_t)el->offset;
    switch (el->format) {
    case CNA_VERTEX_FORMAT_FLOAT2: glVertexAttribPointer(loc, 2, GL_FLOAT, GL_FALSE, stride, off); break;
    case CNA_VERTEX_FORMAT_FLOAT3: glVertexAttribPointer(loc, 3, GL_FLOAT, GL_FALSE, stride, off); break;
    case CNA_VERTEX_FORMAT_FLOAT4: glVertexAttribPointer(loc, 4, GL_FLOAT, GL_FALSE, stride, off); break;
    case CNA_VERTEX_FORMAT_UBYTE4: glVertexAttribIPointer(loc, 4, GL_UNSIGNED_BYTE, stride, off); break;
    case CNA_VERTEX_FORMAT_UBYTE4_NORM:
        glVertexAttribPointer(loc, 4, GL_UNSIGNED_BYTE, GL_TRUE, stride, off);
        break;
    default: return false;
    }
    glEnableVertexAttribArray(loc);
    return true;
}

cna_result cna_gl_draw(cna_gl_context *gl, const cna_gl_draw_desc *desc, cna_error *err)
{
    if (!gl || !desc || !desc->declaration || !desc->effect)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "gl draw: NULL argument");
    const cna_vertex_declaration *decl = desc->declaration;
    const cna_effect *fx = desc->effect;
    cna_effect_kind kind = fx->kind == CNA_EFFECT_KIND_DEFAULT ? CNA_EFFECT_KIND_BASIC : fx->kind;
    if ((int)kind < 0 || kind >= CNA_EFFECT_KIND_COUNT)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "gl draw: effect kind %d is out of range", (int)kind);
    bool skinned = cna_effect_kind_is_skinned(kind);
    const cna_vertex_element *pos = cna_vertex_declaration_find(decl, CNA_VERTEX_USAGE_POSITION, 0);
    const cna_vertex_element *nrm = cna_vertex_declaration_find(decl, CNA_VERTEX_USAGE_NORMAL, 0);
    const cna_vertex_element *col = cna_vertex_declaration_find(decl, CNA_VERTEX_USAGE_COLOR, 0);
    const cna_vertex_element *jnt = cna_vertex_declaration_find(decl, CNA_VERTEX_USAGE_BLEND_INDICES, 0);
    const cna_vertex_element *wgt = cna_vertex_declaration_find(decl, CNA_VERTEX_USAGE_BLEND_WEIGHTS, 0);
    if (!pos || pos->format != CNA_VERTEX_FORMAT_FLOAT3 || decl->stride == 0)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "gl draw: the declaration (stride %u) has no FLOAT3 position",
                          decl->stride);
    if (skinned && (!jnt || jnt->format != CNA_VERTEX_FORMAT_UBYTE4 || !wgt ||
                    wgt->format != CNA_VERTEX_FORMAT_FLOAT4))
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "gl draw: effect kind %s needs UBYTE4 joints and FLOAT4 weights; the declaration "
                          "(stride %u) lacks them",
                          cna_effect_kind_name(kind), decl->stride);
    GLenum mode = GL_TRIANGLES;
    size_t per = 3;
    if (desc->primitive_type == CNA_PRIMITIVE_TYPE_LINE_LIST) mode = GL_LINES, per = 2;
    else if (desc->primitive_type == CNA_PRIMITIVE_TYPE_POINT_LIST) mode = GL_POINTS, per = 1;
    else if (desc->primitive_type != CNA_PRIMITIVE_TYPE_DEFAULT &&
             desc->primitive_type != CNA_PRIMITIVE_TYPE_TRIANGLE_LIST)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "gl draw: primitive type %d is out of range",
                          (int)desc->primitive_type);
    if (skinned && desc->palette_count > CNA_EFFECT_MAX_BONES)
        return cna__error(err, CNA_ERROR_LIMIT, "gl draw: a palette of %zu matrices; at most %d are supported",
                          desc->palette_count, CNA_EFFECT_MAX_BONES);
    if (skinned && (!desc->palette || desc->palette_count == 0))
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "gl draw: effect kind %s needs a palette; %s",
                          cna_effect_kind_name(kind), desc->palette ? "palette_count is 0" : "none given");
    if (desc->index_count % per != 0 || desc->index_count > (size_t)INT32_MAX)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "gl draw: %zu indices do not make whole primitives",
                          desc->index_count);
    if (desc->index_count == 0) return CNA_OK;
    if (desc->vertex_buffer == 0 || desc->index_buffer == 0)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "gl draw: vertex or index buffer is 0");

    const cna__gl_program *p = &gl->programs[kind];
    GLuint vao = 0;
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    glBindBuffer(GL_ARRAY_BUFFER, desc->vertex_buffer);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, desc->index_buffer);
    GLsizei stride = (GLsizei)decl->stride;
    attrib(pos, CNA__GL_ATTR_POSITION, stride);
    if (!nrm || !attrib(nrm, CNA__GL_ATTR_NORMAL, stride)) glVertexAttrib3f(CNA__GL_ATTR_NORMAL, 0.0f, 0.0f, 1.0f);
    if (!col || !attrib(col, CNA__GL_ATTR_COLOR, stride))
        glVertexAttrib4f(CNA__GL_ATTR_COLOR, 1.0f, 1.0f, 1.0f, 1.0f);
    const cna_vertex_element *uv =
        fx->params.base_color.texcoord >= 0
            ? cna_vertex_declaration_find(decl, CNA_VERTEX_USAGE_TEXCOORD, (uint32_t)fx->params.base_color.texcoord)
            : NULL;
    bool textured = desc->base_color_texture != 0 && uv && uv->format == CNA_VERTEX_FORMAT_FLOAT2 &&
                    attrib(uv, CNA__GL_ATTR_TEXCOORD0, stride);
    if (!textured) glVertexAttrib2f(CNA__GL_ATTR_TEXCOORD0, 0.0f, 0.0f);
    if (skinned) {
        attrib(jnt, CNA__GL_ATTR_JOINTS, stride);
        attrib(wgt, CNA__GL_ATTR_WEIGHTS, stride);
    }

    cna_mat4 identity;
    cna_mat4_identity(&identity);
    const cna_mat4 *world = desc->world ? desc->world : &identity;
    const cna_mat4 *view = desc->view ? desc->view : &identity;
    const cna_mat4 *projection = desc->projection ? desc->projection : &identity;
    glUseProgram(p->program);
    glUniformMatrix4fv(p->u_world, 1, GL_FALSE, world->m);
    glUniformMatrix4fv(p->u_view, 1, GL_FALSE, view->m);
    glUniformMatrix4fv(p->u_projection, 1, GL_FALSE, projection->m);
    float nm[9];
    normal_matrix(world, nm);
    glUniformMatrix3fv(p->u_normal_matrix, 1, GL_FALSE, nm);
    if (skinned) {
        /* The whole uniform array every draw: the palette, then identities,
         * so that nothing of an earlier draw is ever read. */
        cna_mat4 bones[CNA_EFFECT_MAX_BONES];
        memcpy(bones, desc->palette, desc->palette_count * sizeof *bones);
        for (size_t b = desc->palette_count; b < CNA_EFFECT_MAX_BONES; b++) bones[b] = identity;
        glUniformMatrix4fv(p->u_bones, CNA_EFFECT_MAX_BONES, GL_FALSE, bones[0].m);
    }
    const cna_effect_material *mat = &fx->params;
    glUniform4f(p->u_base_color, mat->base_color_factor.x, mat->base_color_factor.y, mat->base_color_factor.z,
                mat->base_color_factor.w);
    glUniform3f(p->u_emissive, mat->emissive_factor.x, mat->emissive_factor.y, mat->emissive_factor.z);
    glUniform1f(p->u_metallic, mat->metallic_factor);
    glUniform1f(p->u_roughness, mat->roughness_factor);
    const cna_gl_light *L = &gl->light;
    glUniform3f(p->u_light_dir, L->direction.x, L->direction.y, L->direction.z);
    glUniform3f(p->u_light_color, L->color.x, L->color.y, L->color.z);
    glUniform3f(p->u_ambient, L->ambient.x, L->ambient.y, L->ambient.z);
    cna_mat4 inv_view;
    cna_vec3 eye = cna_vec3_zero();
    if (cna_mat4_inverse(&inv_view, view)) eye = cna_vec3_make(inv_view.m[12], inv_view.m[13], inv_view.m[14]);
    glUniform3f(p->u_camera_pos, eye.x, eye.y, eye.z);
    glUniform1i(p->u_alpha_mode, mat->alpha_mode == CNA_ALPHA_MODE_MASK ? 1 : 0);
    glUniform1f(p->u_alpha_cutoff, mat->alpha_cutoff);
    glUniform1i(p->u_has_base_tex, textured ? 1 : 0);
    glUniform1i(p->u_base_tex, 0);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, textured ? desc->base_color_texture : 0);

    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    /* A mirroring world turns the file's counter-clockwise front faces
     * clockwise on screen: the winding that is front (what is culled, and
     * gl_FrontFacing, which flips a double-sided back face's normal) follows
     * it for this draw. The normal matrix (inverse transpose) already maps
     * the normals outwards. */
    glFrontFace(mirrors(world) ? GL_CW : GL_CCW);
    if (mat->double_sided) glDisable(GL_CULL_FACE);
    else {
        glEnable(GL_CULL_FACE);
        glCullFace(GL_BACK);
    }
    if (mat->alpha_mode == CNA_ALPHA_MODE_BLEND) {
        glEnable(GL_BLEND);
        glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    } else {
        glDisable(GL_BLEND);
    }
    glDrawElements(mode, (GLsizei)desc->index_count, GL_UNSIGNED_INT, NULL);
    glFrontFace(GL_CCW);
    glBindVertexArray(0);
    glDeleteVertexArrays(1, &vao);
    glBindTexture(GL_TEXTURE_2D, 0);
    glUseProgram(0);
    return CNA_OK;
}
