/*
 * src/gl/gl_model.c — the GPU objects of a model shared by its characters
 * (cna_gl_model: a vertex and an index buffer per part, the textures), the
 * per-character buffers of morphed parts (cna_gl_instance) and the draw of a
 * character (cna/gl.h). Nothing here writes a cna_model or a cna_character.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "gl/gl_internal.h"

struct cna_gl_model {
    cna_gl_context *gl;
    const cna_model *model;
    size_t part_count;        /* every part of every mesh, flat */
    size_t *part_first;       /* mesh_count + 1 entries: the first flat part of each mesh */
    GLuint *vertex_buffers;   /* part_count: part->vertices */
    GLuint *index_buffers;    /* part_count: part->indices (0 for a part without indices) */
    int32_t *morph_slot;      /* part_count: the instance's buffer of a morphed part, else -1 */
    GLuint *instance_buffers; /* mesh_count: an instanced mesh's instance matrices, else 0 */
    size_t morphed_count;     /* parts with morph targets */
    size_t texture_failures;
    cna_error texture_error;  /* the first failure (code CNA_OK when none) */
};

struct cna_gl_instance {
    const cna_gl_model *glm;
    size_t count;             /* = glm->morphed_count */
    GLuint *buffers;          /* count dynamic vertex buffers, by slot */
    uint64_t *revisions;      /* the character's part revision of each buffer's last upload */
    bool *uploaded;           /* false until the first upload */
    uint64_t uploads;         /* uploads made, for the tests (cna__gl_instance_uploads) */
};

/* A GL buffer of `size` bytes (at least 1) filled from `data` (may be NULL:
 * contents undefined until written). */
static cna_result buffer_create(GLenum usage, const void *data, size_t size, const char *what, GLuint *out,
                                cna_error *err)
{
    if (size > (size_t)PTRDIFF_MAX)
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "%s: %zu bytes is too large for a GL buffer", what, size);
    GLuint name = 0;
    glGenBuffers(1, &name);
    if (name == 0) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "%s: glGenBuffers gave no name", what);
    (void)glGetError();
    glBindBuffer(GL_COPY_WRITE_BUFFER, name);
    glBufferData(GL_COPY_WRITE_BUFFER, (GLsizeiptr)(size ? size : 1), size ? data : NULL, usage);
    GLenum e = glGetError();
    glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
    if (e != GL_NO_ERROR) {
        glDeleteBuffers(1, &name);
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "%s: glBufferData of %zu bytes failed (0x%x)", what, size,
                          (unsigned)e);
    }
    *out = name;
    return CNA_OK;
}

static void buffers_delete(GLuint *names, size_t count)
{
    for (size_t i = 0; names && i < count; i++)
        if (names[i]) glDeleteBuffers(1, &names[i]);
}

/* ------------------------------------------------------------ the model's objects */

/* The checks that let a draw trust the model (it never changes after load). */
static cna_result check_model(const cna_model *m, cna_error *err)
{
    for (size_t i = 0; i < m->mesh_count; i++) {
        const cna_model_mesh *mesh = &m->meshes[i];
        if (mesh->parent_bone < 0 || (size_t)mesh->parent_bone >= m->bone_count)
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                              "meshes[%zu] \"%s\": parent bone %d is outside the %zu bones", i, mesh->name,
                              (int)mesh->parent_bone, m->bone_count);
        if (mesh->instance_count > 0 && !mesh->instances)
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "meshes[%zu] \"%s\": %zu instances but no matrices", i,
                              mesh->name, mesh->instance_count);
        if (mesh->skin >= 0 && (size_t)mesh->skin >= m->skin_count)
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "meshes[%zu] \"%s\": skin %d is outside the %zu skins",
                              i, mesh->name, (int)mesh->skin, m->skin_count);
        for (size_t k = 0; k < mesh->part_count; k++) {
            const cna_model_part *part = &mesh->parts[k];
            if (part->effect < 0 || (size_t)part->effect >= m->effect_count)
                return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "meshes[%zu] \"%s\".parts[%zu]: no effect", i,
                                  mesh->name, k);
            if (!cna_effect_kind_is_skinned(m->effects[part->effect].kind)) continue;
            if (mesh->skin < 0)
                return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                                  "meshes[%zu] \"%s\".parts[%zu]: a skinned effect on a mesh without a skin", i,
                                  mesh->name, k);
            /* a split part is drawn with its sub-palette (cna_character_part_palette) */
            size_t joints = part->palette_map ? part->palette_map_count : m->skins[mesh->skin].joint_count;
            if (joints == 0 || joints > CNA_EFFECT_MAX_BONES) {
                if (part->palette_map)
                    return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                                      "meshes[%zu] \"%s\".parts[%zu]: a palette map of %zu entries; a skinned draw "
                                      "takes 1 to %d", i, mesh->name, k, joints, CNA_EFFECT_MAX_BONES);
                return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                                  "meshes[%zu] \"%s\": skins[%d] has %zu joints; a skinned draw takes 1 to %d (import "
                                  "with split_palettes to split its parts)", i,
                                  mesh->name, (int)mesh->skin, joints, CNA_EFFECT_MAX_BONES);
            }
        }
    }
    return CNA_OK;
}

cna_result cna_gl_model_create(cna_gl_context *gl, const cna_model *model, cna_gl_model **out, cna_error *err)
{
    if (!gl || !model || !out)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "gl model: NULL %s",
                          !gl ? "context" : !model ? "model" : "out");
    cna_result r = check_model(model, err);
    if (r) return r;
    size_t parts = 0;
    for (size_t i = 0; i < model->mesh_count; i++) parts += model->meshes[i].part_count;
    cna_gl_model *g = (cna_gl_model *)calloc(1, sizeof *g);
    if (!g) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "gl model: out of memory");
    g->gl = gl;
    g->model = model;
    g->part_count = parts;
    g->part_first = (size_t *)calloc(model->mesh_count + 1, sizeof *g->part_first);
    g->vertex_buffers = (GLuint *)calloc(parts + 1, sizeof *g->vertex_buffers);
    g->index_buffers = (GLuint *)calloc(parts + 1, sizeof *g->index_buffers);
    g->morph_slot = (int32_t *)calloc(parts + 1, sizeof *g->morph_slot);
    g->instance_buffers = (GLuint *)calloc(model->mesh_count + 1, sizeof *g->instance_buffers);
    if (!g->part_first || !g->vertex_buffers || !g->index_buffers || !g->morph_slot || !g->instance_buffers) {
        cna_gl_model_free(g);
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "gl model: out of memory");
    }
    size_t flat = 0;
    for (size_t i = 0; i < model->mesh_count && !r; i++) {
        const cna_model_mesh *mesh = &model->meshes[i];
        g->part_first[i] = flat;
        if (mesh->instance_count > 0) {
            char what[64];
            snprintf(what, sizeof what, "meshes[%zu] instances", i);
            r = buffer_create(GL_STATIC_DRAW, mesh->instances, mesh->instance_count * sizeof(cna_mat4), what,
                              &g->instance_buffers[i], err);
        }
        for (size_t k = 0; k < mesh->part_count && !r; k++, flat++) {
            const cna_model_part *part = &mesh->parts[k];
            char what[64];
            snprintf(what, sizeof what, "meshes[%zu].parts[%zu]", i, k);
            g->morph_slot[flat] = part->morph ? (int32_t)g->morphed_count++ : -1;
            r = buffer_create(GL_STATIC_DRAW, part->vertices, part->vertex_count * part->declaration.stride, what,
                              &g->vertex_buffers[flat], err);
            if (!r && part->index_count > 0)
                r = buffer_create(GL_STATIC_DRAW, part->indices, part->index_count * sizeof(uint32_t), what,
                                  &g->index_buffers[flat], err);
        }
    }
    g->part_first[model->mesh_count] = flat;
    if (r) {
        cna_gl_model_free(g);
        return r;
    }
    /* Textures: a failed image draws with the factor alone; kept for the caller to read. */
    memset(&g->texture_error, 0, sizeof g->texture_error);
    r = cna_gl_upload_model_textures(gl, model, &g->texture_failures, &g->texture_error);
    if (r == CNA_ERROR_OUT_OF_MEMORY) {
        if (err) *err = g->texture_error;
        cna_gl_model_free(g);
        return r;
    }
    *out = g;
    return CNA_OK;
}

void cna_gl_model_free(cna_gl_model *g)
{
    if (!g) return;
    buffers_delete(g->vertex_buffers, g->part_count);
    buffers_delete(g->index_buffers, g->part_count);
    buffers_delete(g->instance_buffers, g->model->mesh_count);
    cna_gl_release_model_textures(g->gl, g->model);
    free(g->part_first);
    free(g->vertex_buffers);
    free(g->index_buffers);
    free(g->morph_slot);
    free(g->instance_buffers);
    free(g);
}

const cna_model *cna_gl_model_model(const cna_gl_model *g) { return g ? g->model : NULL; }

cna_result cna_gl_model_image_status(const cna_gl_model *g, int32_t image, cna_error *err)
{
    if (!g) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "gl model: NULL");
    return cna__gl_image_status(g->gl, g->model, image, err);
}

size_t cna_gl_model_texture_failures(const cna_gl_model *g, cna_error *first)
{
    if (first) {
        memset(first, 0, sizeof *first);
        if (g) *first = g->texture_error;
    }
    return g ? g->texture_failures : 0;
}

cna_result cna_gl_model_part_buffers(const cna_gl_model *g, size_t mesh, size_t part, uint32_t *vertex_buffer,
                                     uint32_t *index_buffer, cna_error *err)
{
    if (!g) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "gl model: NULL");
    const cna_model *m = g->model;
    if (mesh >= m->mesh_count)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "gl model: meshes[%zu] is outside the %zu meshes", mesh,
                          m->mesh_count);
    if (part >= m->meshes[mesh].part_count)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "gl model: meshes[%zu].parts[%zu] is outside its %zu parts",
                          mesh, part, m->meshes[mesh].part_count);
    size_t flat = g->part_first[mesh] + part;
    if (vertex_buffer) *vertex_buffer = g->vertex_buffers[flat];
    if (index_buffer) *index_buffer = g->index_buffers[flat];
    return CNA_OK;
}

/* ------------------------------------------------------------ per-character buffers */

cna_result cna_gl_instance_create(const cna_gl_model *g, cna_gl_instance **out, cna_error *err)
{
    if (!g || !out) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "gl instance: NULL %s", g ? "out" : "gl model");
    cna_gl_instance *in = (cna_gl_instance *)calloc(1, sizeof *in);
    if (!in) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "gl instance: out of memory");
    in->glm = g;
    in->count = g->morphed_count;
    in->buffers = (GLuint *)calloc(in->count + 1, sizeof *in->buffers);
    in->revisions = (uint64_t *)calloc(in->count + 1, sizeof *in->revisions);
    in->uploaded = (bool *)calloc(in->count + 1, sizeof *in->uploaded);
    if (!in->buffers || !in->revisions || !in->uploaded) {
        cna_gl_instance_free(in);
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "gl instance: out of memory");
    }
    const cna_model *m = g->model;
    for (size_t i = 0; i < m->mesh_count; i++)
        for (size_t k = 0; k < m->meshes[i].part_count; k++) {
            int32_t slot = g->morph_slot[g->part_first[i] + k];
            if (slot < 0) continue;
            const cna_model_part *part = &m->meshes[i].parts[k];
            char what[64];
            snprintf(what, sizeof what, "meshes[%zu].parts[%zu]", i, k);
            cna_result r = buffer_create(GL_DYNAMIC_DRAW, NULL, part->vertex_count * part->declaration.stride, what,
                                         &in->buffers[slot], err);
            if (r) {
                cna_gl_instance_free(in);
                return r;
            }
        }
    *out = in;
    return CNA_OK;
}

void cna_gl_instance_free(cna_gl_instance *in)
{
    if (!in) return;
    buffers_delete(in->buffers, in->count);
    free(in->buffers);
    free(in->revisions);
    free(in->uploaded);
    free(in);
}

uint64_t cna__gl_instance_uploads(const cna_gl_instance *in) { return in ? in->uploads : 0; }

GLuint cna__gl_instance_buffer(const cna_gl_instance *in, size_t mesh, size_t part)
{
    if (!in) return 0;
    const cna_gl_model *g = in->glm;
    if (mesh >= g->model->mesh_count || part >= g->model->meshes[mesh].part_count) return 0;
    int32_t slot = g->morph_slot[g->part_first[mesh] + part];
    return slot >= 0 ? in->buffers[slot] : 0;
}

/* The morphed part's buffer with the character's vertices in it: uploaded
 * only when the character's revision differs from the last upload's. */
static cna_result morph_buffer(cna_gl_instance *in, size_t slot, const cna_character *c, size_t mesh, size_t part,
                               size_t expected, GLuint *out, cna_error *err)
{
    uint64_t revision = cna_character_part_revision(c, mesh, part);
    if (!in->uploaded[slot] || in->revisions[slot] != revision) {
        size_t size = 0;
        const void *bytes = cna_character_part_vertices(c, mesh, part, &size);
        if (!bytes || size != expected)
            return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                              "meshes[%zu].parts[%zu]: the character gives %zu vertex bytes; the part has %zu", mesh,
                              part, bytes ? size : 0, expected);
        glBindBuffer(GL_COPY_WRITE_BUFFER, in->buffers[slot]);
        if (size > 0) glBufferSubData(GL_COPY_WRITE_BUFFER, 0, (GLsizeiptr)size, bytes);
        glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
        in->uploaded[slot] = true;
        in->revisions[slot] = revision;
        in->uploads++;
    }
    *out = in->buffers[slot];
    return CNA_OK;
}

cna_result cna_gl_draw_character(cna_gl_context *gl, const cna_gl_model *g, cna_gl_instance *inst,
                                 const cna_character *c, const cna_mat4 *placement, const cna_mat4 *view,
                                 const cna_mat4 *projection, cna_error *err)
{
    if (!gl || !g || !c)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "gl draw character: NULL %s",
                          !gl ? "context" : !g ? "gl model" : "character");
    const cna_model *m = g->model;
    const cna_model *cm = cna_character_model(c);
    if (cm != m)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "gl draw character: the character's model (%zu bones, %zu meshes) is not the gl model's "
                          "(%zu bones, %zu meshes)",
                          cm ? cm->bone_count : 0, cm ? cm->mesh_count : 0, m->bone_count, m->mesh_count);
    if (inst && inst->glm != g)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "gl draw character: the instance was made for another gl model");
    /* Pass 0: OPAQUE and MASK parts; pass 1: BLEND parts, over them. */
    for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < m->mesh_count; i++) {
        const cna_model_mesh *mesh = &m->meshes[i];
        /* world = placement · absolute[parent bone] (the absolute transform itself without a placement) */
        cna_mat4 placed;
        const cna_mat4 *world = cna_character_absolute_transform(c, (size_t)mesh->parent_bone);
        if (placement) {
            cna_mat4_mul(&placed, placement, world);
            world = &placed;
        }
        for (size_t k = 0; k < mesh->part_count; k++) {
            const cna_model_part *part = &mesh->parts[k];
            bool blended = m->effects[part->effect].params.alpha_mode == CNA_ALPHA_MODE_BLEND;
            if (blended != (pass == 1)) continue;
            /* the skin's palette, or a split part's sub-palette */
            size_t palette_count = 0;
            const cna_mat4 *palette = cna_character_part_palette(c, i, k, &palette_count);
            size_t flat = g->part_first[i] + k;
            GLuint vb = g->vertex_buffers[flat];
            if (g->morph_slot[flat] >= 0) {
                if (!inst)
                    return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                                      "meshes[%zu] \"%s\".parts[%zu]: a morphed part needs a cna_gl_instance", i,
                                      mesh->name, k);
                cna_result r = morph_buffer(inst, (size_t)g->morph_slot[flat], c, i, k,
                                            part->vertex_count * part->declaration.stride, &vb, err);
                if (r) return r;
            }
            const cna_effect *fx = &m->effects[part->effect];
            cna_gl_draw_desc d;
            memset(&d, 0, sizeof d);
            d.declaration = &part->declaration;
            d.vertex_buffer = vb;
            d.index_buffer = g->index_buffers[flat];
            d.index_count = part->index_count;
            d.primitive_type = part->primitive_type;
            d.effect = fx;
            d.world = world;
            d.view = view;
            d.projection = projection;
            d.palette = palette;
            d.palette_count = palette_count;
            d.instances = mesh->instances;
            d.instance_count = mesh->instance_count;
            d.instance_buffer = g->instance_buffers[i];
            GLuint tex[CNA_EFFECT_SLOT_COUNT];
            for (int s = 0; s < CNA_EFFECT_SLOT_COUNT; s++) {
                cna_error ignored;   /* a missing or undecodable image draws with the factor alone */
                const cna_effect_texture *t = cna_effect_material_texture(&fx->params, (cna_effect_slot)s);
                (void)cna__gl_model_texture(gl, m, t->image, cna__gl_slot_is_srgb((cna_effect_slot)s), &tex[s],
                                            &ignored);
            }
            d.base_color_texture = tex[CNA_EFFECT_SLOT_BASE_COLOR];
            d.metallic_roughness_texture = tex[CNA_EFFECT_SLOT_METALLIC_ROUGHNESS];
            d.normal_texture = tex[CNA_EFFECT_SLOT_NORMAL];
            d.occlusion_texture = tex[CNA_EFFECT_SLOT_OCCLUSION];
            d.emissive_texture = tex[CNA_EFFECT_SLOT_EMISSIVE];
            cna_result r = cna_gl_draw(gl, &d, err);
            if (r) {
                cna__error_prefix(err, "meshes[%zu] \"%s\".parts[%zu]", i, mesh->name, k);
                return r;
            }
        }
    }
    return CNA_OK;
}
