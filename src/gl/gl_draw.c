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
 * sum w * skin[j] in XNA's row-vector order), then world · I · S · (p, 1),
 * I the instance matrix (EXT_mesh_gpu_instancing: a per-instance attribute,
 * the identity when the draw is not instanced). The normal goes through S,
 * then I's inverse transpose (its cofactor matrix, signed by its
 * determinant: the length is normalised away), then world's; the tangent
 * (xyz, handedness w) through S, I's and world's 3x3. */
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
    "layout(location = 6) in vec4 a_tangent;\n"
    "layout(location = 7) in vec2 a_texcoord1;\n"
    "layout(location = 8) in mat4 a_instance;\n"
    "uniform mat4 u_world, u_view, u_projection;\n"
    "uniform mat3 u_normal_matrix;\n"
    "out vec3 v_normal;\n"
    "out vec3 v_position;\n"
    "out vec4 v_color;\n"
    "out vec2 v_texcoord;\n"
    "out vec2 v_texcoord1;\n"
    "out vec4 v_tangent;\n"
    "void main() {\n"
    "  vec4 p = vec4(a_position, 1.0);\n"
    "  vec3 n = a_normal;\n"
    "  vec3 t = a_tangent.xyz;\n"
    "#ifdef CNA_SKINNED\n"
    "  mat4 s = a_weights.x * u_bones[a_joints.x] + a_weights.y * u_bones[a_joints.y]\n"
    "         + a_weights.z * u_bones[a_joints.z] + a_weights.w * u_bones[a_joints.w];\n"
    "  p = s * p;\n"
    "  n = mat3(s) * n;\n"
    "  t = mat3(s) * t;\n"
    "#endif\n"
    "  mat3 i3 = mat3(a_instance);\n"
    "  mat3 cof = mat3(cross(i3[1], i3[2]), cross(i3[2], i3[0]), cross(i3[0], i3[1]));\n"
    "  float det = dot(i3[0], cof[0]);\n"
    "  vec4 w = u_world * (a_instance * p);\n"
    "  v_position = w.xyz;\n"
    "  v_normal = u_normal_matrix * ((det < 0.0 ? -1.0 : 1.0) * (cof * n));\n"
    "  v_tangent = vec4(mat3(u_world) * (i3 * t), a_tangent.w);\n"
    "  v_color = a_color;\n"
    "  v_texcoord = a_texcoord;\n"
    "  v_texcoord1 = a_texcoord1;\n"
    "  gl_Position = u_projection * (u_view * w);\n"
    "}\n";

/* Fragment stage. The material's five maps, each at its TEXCOORD set (0 or
 * 1) through its KHR_texture_transform matrix: base colour (sRGB) ×
 * factor × vertex colour; metallic-roughness (B metallic, G roughness) ×
 * the factors; the normal map (tangent space, xy × scale) with the
 * vertex tangent frame, or without tangents a frame from screen-space
 * derivatives of position and UV; occlusion (R, mixed by strength) on the
 * ambient term; emissive (sRGB) × factor × strength, added.
 * Basic kinds: ambient + Lambert. PBR kinds: Cook-Torrance with GGX
 * (Trowbridge-Reitz) distribution, Smith-Schlick geometry and Schlick
 * Fresnel, diffuse (1 - F)(1 - metallic) · base (the light's colour is
 * its irradiance: a white light on a white surface facing it gives the
 * base colour), ambient × occlusion × base mixed towards F0 by metallic.
 * Unlit materials (KHR_materials_unlit): the base colour alone, no light,
 * occlusion, normal map or emissive.
 * MASK discards below the cutoff and writes alpha 1; BLEND writes the alpha;
 * OPAQUE writes alpha 1. A back face (double-sided) negates the whole
 * frame: tangent, bitangent and normal. */
static const char cna__fs[] =
    "in vec3 v_normal;\n"
    "in vec3 v_position;\n"
    "in vec4 v_color;\n"
    "in vec2 v_texcoord;\n"
    "in vec2 v_texcoord1;\n"
    "in vec4 v_tangent;\n"
    "uniform sampler2D u_tex_base, u_tex_mr, u_tex_normal, u_tex_occlusion, u_tex_emissive;\n"
    "uniform int u_has_tex[5];\n"
    "uniform int u_uv_set[5];\n"
    "uniform mat3 u_uv_transform[5];\n"
    "uniform vec4 u_base_color;\n"
    "uniform vec3 u_emissive;\n"
    "uniform float u_emissive_strength, u_normal_scale, u_occlusion_strength;\n"
    "uniform float u_metallic, u_roughness;\n"
    "uniform vec3 u_light_dir, u_light_color, u_ambient, u_camera_pos;\n"
    "uniform int u_alpha_mode, u_unlit;\n"
    "uniform float u_alpha_cutoff;\n"
    "out vec4 o_color;\n"
    "vec2 uv_of(int i) {\n"
    "  vec2 uv = u_uv_set[i] == 1 ? v_texcoord1 : v_texcoord;\n"
    "  return (u_uv_transform[i] * vec3(uv, 1.0)).xy;\n"
    "}\n"
    "void main() {\n"
    "  vec4 base = u_base_color * v_color;\n"
    "  if (u_has_tex[0] != 0) base *= texture(u_tex_base, uv_of(0));\n"
    "  if (u_alpha_mode == 1 && base.a < u_alpha_cutoff) discard;\n"
    "  if (u_unlit != 0) {\n"
    "    o_color = vec4(pow(clamp(base.rgb, 0.0, 1.0), vec3(1.0 / 2.2)), u_alpha_mode == 2 ? base.a : 1.0);\n"
    "    return;\n"
    "  }\n"
    "  vec3 n = normalize(v_normal);\n"
    "  float back = gl_FrontFacing ? 1.0 : -1.0;\n"
    "  if (u_has_tex[2] != 0) {\n"
    "    vec2 uv = uv_of(2);\n"
    "    vec3 t, b;\n"
    "    if (dot(v_tangent.xyz, v_tangent.xyz) > 1e-12) {\n"
    "      t = normalize(v_tangent.xyz - n * dot(n, v_tangent.xyz));\n"
    "      b = cross(n, t) * (v_tangent.w < 0.0 ? -1.0 : 1.0);\n"
    "    } else {\n"
    "      vec3 dpx = dFdx(v_position), dpy = dFdy(v_position);\n"
    "      vec2 dux = dFdx(uv), duy = dFdy(uv);\n"
    "      float det = dux.x * duy.y - duy.x * dux.y;\n"
    "      vec3 tt = (duy.y * dpx - dux.y * dpy) * (abs(det) > 1e-20 ? 1.0 / det : 0.0);\n"
    "      tt = tt - n * dot(n, tt);\n"
    "      t = dot(tt, tt) > 1e-20 ? normalize(tt)\n"
    "        : normalize(abs(n.x) < 0.9 ? cross(n, vec3(1.0, 0.0, 0.0)) : cross(n, vec3(0.0, 1.0, 0.0)));\n"
    "      b = cross(n, t);\n"
    "    }\n"
    "    vec3 tn = texture(u_tex_normal, uv).xyz * 2.0 - 1.0;\n"
    "    tn.xy *= u_normal_scale;\n"
    "    n = normalize(mat3(t, b, n) * tn);\n"
    "  }\n"
    "  n *= back;\n"
    "  float ao = 1.0;\n"
    "  if (u_has_tex[3] != 0) ao = 1.0 + u_occlusion_strength * (texture(u_tex_occlusion, uv_of(3)).r - 1.0);\n"
    "  vec3 l = normalize(-u_light_dir);\n"
    "  float ndl = max(dot(n, l), 0.0);\n"
    "#ifdef CNA_PBR\n"
    "  float metallic = u_metallic, rough = u_roughness;\n"
    "  if (u_has_tex[1] != 0) { vec4 mr = texture(u_tex_mr, uv_of(1)); metallic *= mr.b; rough *= mr.g; }\n"
    "  metallic = clamp(metallic, 0.0, 1.0);\n"
    "  rough = clamp(rough, 0.04, 1.0);\n"
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
    "  vec3 color = ao * u_ambient * mix(base.rgb, base.rgb * 0.5 + f0 * 0.5, metallic)\n"
    "             + u_light_color * ndl * (diffuse + spec);\n"
    "#else\n"
    "  vec3 color = base.rgb * (ao * u_ambient + u_light_color * ndl);\n"
    "#endif\n"
    "  vec3 emissive = u_emissive * u_emissive_strength;\n"
    "  if (u_has_tex[4] != 0) emissive *= texture(u_tex_emissive, uv_of(4)).rgb;\n"
    "  color += emissive;\n"
    "  o_color = vec4(pow(clamp(color, 0.0, 1.0), vec3(1.0 / 2.2)), u_alpha_mode == 2 ? base.a : 1.0);\n"
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
    p->u_unlit = glGetUniformLocation(prog, "u_unlit");
    p->u_emissive_strength = glGetUniformLocation(prog, "u_emissive_strength");
    p->u_normal_scale = glGetUniformLocation(prog, "u_normal_scale");
    p->u_occlusion_strength = glGetUniformLocation(prog, "u_occlusion_strength");
    static const char *const tex[CNA_EFFECT_SLOT_COUNT] = {"u_tex_base", "u_tex_mr", "u_tex_normal",
                                                           "u_tex_occlusion", "u_tex_emissive"};
    for (int k = 0; k < CNA_EFFECT_SLOT_COUNT; k++) {
        char uname[32];
        p->u_tex[k] = glGetUniformLocation(prog, tex[k]);
        snprintf(uname, sizeof uname, "u_has_tex[%d]", k);
        p->u_has_tex[k] = glGetUniformLocation(prog, uname);
        snprintf(uname, sizeof uname, "u_uv_set[%d]", k);
        p->u_uv_set[k] = glGetUniformLocation(prog, uname);
        snprintf(uname, sizeof uname, "u_uv_transform[%d]", k);
        p->u_uv_transform[k] = glGetUniformLocation(prog, uname);
    }
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

/* The draw itself. Not instanced: one glDrawElements, the instance matrix
 * the identity (a constant attribute). Instanced: the matrices from `buffer`
 * as a per-instance attribute (divisor 1), drawn with glDrawElementsInstanced
 * in runs of consecutive instances that mirror alike: the front faces of
 * instance i are clockwise when world · instances[i] mirrors, that is when
 * exactly one of world and instances[i] does (det(W · I) = det W · det I),
 * so a run of instances that all mirror, or all do not, is one call. */
static void draw_instances(const cna_gl_draw_desc *desc, GLenum mode, GLuint buffer, bool world_mirrors)
{
    const GLsizei count = (GLsizei)desc->index_count;
    if (desc->instance_count == 0) {
        for (GLuint c = 0; c < 4; c++)
            glVertexAttrib4f(CNA__GL_ATTR_INSTANCE + c, c == 0 ? 1.0f : 0.0f, c == 1 ? 1.0f : 0.0f,
                             c == 2 ? 1.0f : 0.0f, c == 3 ? 1.0f : 0.0f);
        glFrontFace(world_mirrors ? GL_CW : GL_CCW);
        glDrawElements(mode, count, GL_UNSIGNED_INT, NULL);
        return;
    }
    glBindBuffer(GL_ARRAY_BUFFER, buffer);
    for (GLuint c = 0; c < 4; c++) {
        glEnableVertexAttribArray(CNA__GL_ATTR_INSTANCE + c);
        glVertexAttribDivisor(CNA__GL_ATTR_INSTANCE + c, 1);
    }
    const size_t n = desc->instance_count;
    for (size_t a = 0; a < n;) {
        const bool flip = world_mirrors != mirrors(&desc->instances[a]);
        size_t b = a + 1;
        while (b < n && (world_mirrors != mirrors(&desc->instances[b])) == flip) b++;
        for (GLuint c = 0; c < 4; c++)
            glVertexAttribPointer(CNA__GL_ATTR_INSTANCE + c, 4, GL_FLOAT, GL_FALSE, (GLsizei)sizeof(cna_mat4),
                                  (const void *)(uintptr_t)(a * sizeof(cna_mat4) + c * 4 * sizeof(float)));
        glFrontFace(flip ? GL_CW : GL_CCW);
        glDrawElementsInstanced(mode, count, GL_UNSIGNED_INT, NULL, (GLsizei)(b - a));
        a = b;
    }
    glBindBuffer(GL_ARRAY_BUFFER, 0);
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
    if (desc->instance_count > 0 && !desc->instances)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "gl draw: instance_count %zu but no instances",
                          desc->instance_count);
    if (desc->instance_count > (size_t)INT32_MAX / sizeof(cna_mat4))
        return cna__error(err, CNA_ERROR_LIMIT, "gl draw: %zu instances; at most %zu are supported",
                          desc->instance_count, (size_t)INT32_MAX / sizeof(cna_mat4));
    if (desc->index_count == 0) return CNA_OK;
    if (desc->vertex_buffer == 0 || desc->index_buffer == 0)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "gl draw: vertex or index buffer is 0");
    GLuint instance_buffer = desc->instance_buffer;
    if (desc->instance_count > 0 && instance_buffer == 0) {
        /* no buffer given: the matrices go into the context's stream buffer for this draw */
        if (!gl->instance_stream) glGenBuffers(1, &gl->instance_stream);
        if (!gl->instance_stream)
            return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "gl draw: glGenBuffers gave no name");
        (void)glGetError();
        glBindBuffer(GL_COPY_WRITE_BUFFER, gl->instance_stream);
        glBufferData(GL_COPY_WRITE_BUFFER, (GLsizeiptr)(desc->instance_count * sizeof(cna_mat4)), desc->instances,
                     GL_STREAM_DRAW);
        GLenum e = glGetError();
        glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
        if (e != GL_NO_ERROR)
            return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "gl draw: glBufferData of %zu instance matrices failed (0x%x)",
                              desc->instance_count, (unsigned)e);
        instance_buffer = gl->instance_stream;
    }

    /* A basic or skinned part whose material has a metallic-roughness,
     * normal or occlusion map is drawn with the PBR program of its skinning:
     * the maps need it, and its declaration's missing tangent reads (0, 0,
     * 0, 1), which selects the derivative frame. */
    const cna_effect_material *mat = &fx->params;
    cna_effect_kind program = kind;
    if (!(kind == CNA_EFFECT_KIND_PBR || kind == CNA_EFFECT_KIND_SKINNED_PBR) &&
        ((desc->metallic_roughness_texture && mat->metallic_roughness.image >= 0) ||
         (desc->normal_texture && mat->normal.image >= 0) || (desc->occlusion_texture && mat->occlusion.image >= 0)))
        program = skinned ? CNA_EFFECT_KIND_SKINNED_PBR : CNA_EFFECT_KIND_PBR;
    const cna__gl_program *p = &gl->programs[program];
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
    const cna_vertex_element *tan = cna_vertex_declaration_find(decl, CNA_VERTEX_USAGE_TANGENT, 0);
    if (!tan || tan->format != CNA_VERTEX_FORMAT_FLOAT4 || !attrib(tan, CNA__GL_ATTR_TANGENT, stride))
        glVertexAttrib4f(CNA__GL_ATTR_TANGENT, 0.0f, 0.0f, 0.0f, 1.0f);
    /* The TEXCOORD sets 0 and 1 (FLOAT2) feed the shader; a slot whose set
     * the declaration lacks is drawn without its texture. */
    bool have_set[2];
    for (uint32_t set = 0; set < 2; set++) {
        const cna_vertex_element *uv = cna_vertex_declaration_find(decl, CNA_VERTEX_USAGE_TEXCOORD, set);
        GLuint loc = set == 0 ? CNA__GL_ATTR_TEXCOORD0 : CNA__GL_ATTR_TEXCOORD1;
        have_set[set] = uv && uv->format == CNA_VERTEX_FORMAT_FLOAT2 && attrib(uv, loc, stride);
        if (!have_set[set]) glVertexAttrib2f(loc, 0.0f, 0.0f);
    }
    const uint32_t textures[CNA_EFFECT_SLOT_COUNT] = {desc->base_color_texture, desc->metallic_roughness_texture,
                                                      desc->normal_texture, desc->occlusion_texture,
                                                      desc->emissive_texture};
    bool use[CNA_EFFECT_SLOT_COUNT];
    for (int k = 0; k < CNA_EFFECT_SLOT_COUNT; k++) {
        const cna_effect_texture *t = cna_effect_material_texture(mat, (cna_effect_slot)k);
        use[k] = textures[k] != 0 && (t->texcoord == 0 || t->texcoord == 1) && have_set[t->texcoord];
    }
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
    glUniform4f(p->u_base_color, mat->base_color_factor.x, mat->base_color_factor.y, mat->base_color_factor.z,
                mat->base_color_factor.w);
    glUniform3f(p->u_emissive, mat->emissive_factor.x, mat->emissive_factor.y, mat->emissive_factor.z);
    glUniform1f(p->u_emissive_strength, mat->emissive_strength);
    glUniform1i(p->u_unlit, mat->unlit ? 1 : 0);
    glUniform1f(p->u_normal_scale, mat->normal.scale);
    glUniform1f(p->u_occlusion_strength, mat->occlusion.scale);
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
    glUniform1i(p->u_alpha_mode, mat->alpha_mode == CNA_ALPHA_MODE_MASK    ? 1
                                 : mat->alpha_mode == CNA_ALPHA_MODE_BLEND ? 2
                                                                            : 0);
    glUniform1f(p->u_alpha_cutoff, mat->alpha_cutoff);
    /* Slot k on texture unit k, with its own sampler object (its glTF
     * sampler) and its transform uv' = T · R · S · uv. */
    for (int k = 0; k < CNA_EFFECT_SLOT_COUNT; k++) {
        const cna_effect_texture *t = cna_effect_material_texture(mat, (cna_effect_slot)k);
        float m3[9];
        cna_effect_texture_matrix(t, m3);
        glUniform1i(p->u_tex[k], k);
        glUniform1i(p->u_has_tex[k], use[k] ? 1 : 0);
        glUniform1i(p->u_uv_set[k], use[k] ? t->texcoord : 0);
        glUniformMatrix3fv(p->u_uv_transform[k], 1, GL_FALSE, m3);
        glActiveTexture((GLenum)(GL_TEXTURE0 + k));
        glBindTexture(GL_TEXTURE_2D, use[k] ? textures[k] : 0);
        glBindSampler((GLuint)k, use[k] ? cna__gl_sampler_for(gl, t) : 0);
    }

    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    /* A mirroring world turns the file's counter-clockwise front faces
     * clockwise on screen: the winding that is front (what is culled, and
     * gl_FrontFacing, which flips a double-sided back face's normal) follows
     * it for this draw. The normal matrix (inverse transpose) already maps
     * the normals outwards. */
    const bool world_mirrors = mirrors(world);
    if (mat->double_sided) glDisable(GL_CULL_FACE);
    else {
        glEnable(GL_CULL_FACE);
        glCullFace(GL_BACK);
    }
    /* BLEND: "over" compositing; the depth test stays, depth writes are off
     * so that what is behind a blended surface and drawn later still shows. */
    if (mat->alpha_mode == CNA_ALPHA_MODE_BLEND) {
        glEnable(GL_BLEND);
        glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
        glDepthMask(GL_FALSE);
    } else {
        glDisable(GL_BLEND);
    }
    draw_instances(desc, mode, instance_buffer, world_mirrors);
    glDepthMask(GL_TRUE);
    glFrontFace(GL_CCW);
    glBindVertexArray(0);
    glDeleteVertexArrays(1, &vao);
    for (int k = CNA_EFFECT_SLOT_COUNT - 1; k >= 0; k--) {
        glActiveTexture((GLenum)(GL_TEXTURE0 + k));
        glBindTexture(GL_TEXTURE_2D, 0);
        glBindSampler((GLuint)k, 0);
    }
    glUseProgram(0);
    return CNA_OK;
}
