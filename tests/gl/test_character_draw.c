/*
 * Drawing characters (cna_gl_model, cna_gl_instance, cna_gl_draw_character),
 * headless (EGL surfaceless; llvmpipe without a GPU), no multisampling:
 *   - two characters of one model, at different animations and times, drawn
 *     into one frame give the picture of each drawn alone, composed: they
 *     are placed apart so that their pixels do not overlap (checked), and
 *     then every pixel of the shared frame is within 2/255 per channel of
 *     the alone picture that covers it (or of the background); the two are
 *     visibly posed differently (at least 1% of the pixels differ from the
 *     first character drawn in the second one's pose), and drawing changes
 *     no byte of the model (cna__model_checksum);
 *   - a morphed part's vertices go to the GPU only when the character's part
 *     revision changed, into that character's own buffer, and the buffer then
 *     holds exactly cna_character_part_vertices;
 *   - the refusals, each with its exact message.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gl/mesa_driver.h"

#include <cglm/cglm.h>

#include "cna/cna.h"
#include "cna/gl.h"
#include "gl/gl_internal.h"
#include "model/model_internal.h"

enum { W = 320, H = 160 };
static const float BG[4] = {0.0f, 0.0f, 0.0f, 1.0f};

static const char *data_path(char *buf, size_t size, const char *rel)
{
    snprintf(buf, size, "%s/%s", CNA_TEST_DATA_DIR, rel);
    return buf;
}

static cna_gl_context *context(void)
{
    cna_error err;
    cna_gl_context_options o;
    memset(&o, 0, sizeof o);
    o.width = W;
    o.height = H;
    cna_gl_context *gl = NULL;
    if (cna_gl_context_create(&o, &gl, &err) != CNA_OK) fail_msg("gl context: %s", err.message);
    return gl;
}

static cna_model *load(const char *rel)
{
    char path[1024];
    cna_error err;
    cna_model *m = NULL;
    if (cna_model_load_file(data_path(path, sizeof path, rel), NULL, &m, &err) != CNA_OK)
        fail_msg("%s: %s", rel, err.message);
    return m;
}

/* A character of `m` playing `animation` (by name) held at `seconds`, posed. */
static cna_character *posed(const cna_model *m, const char *animation, double seconds)
{
    cna_error err;
    cna_character *c = NULL;
    size_t index = 0;
    assert_int_equal(cna_character_create(m, NULL, &c, &err), CNA_OK);
    assert_int_equal(cna_model_find_animation(m, animation, &index, &err), CNA_OK);
    assert_int_equal(cna_character_set_loop_mode(c, CNA_LOOP_MODE_ONCE, &err), CNA_OK);
    assert_int_equal(cna_character_play(c, (long)index, &err), CNA_OK);
    assert_int_equal(cna_character_seek(c, seconds, &err), CNA_OK);
    assert_int_equal(cna_character_pose(c, &err), CNA_OK);
    return c;
}

static unsigned char *read_image(cna_gl_context *gl)
{
    cna_error err;
    unsigned char *px = malloc((size_t)W * H * 4);
    assert_non_null(px);
    assert_int_equal(cna_gl_read_pixels(gl, px, (size_t)W * H * 4, &err), CNA_OK);
    return px;
}

static bool is_background(const unsigned char *p) { return p[0] == 0 && p[1] == 0 && p[2] == 0; }

typedef struct drawn {
    cna_character *c;
    cna_gl_instance *inst;
    const cna_mat4 *placement;
} drawn;

/* One frame with the given characters, read back. */
static unsigned char *frame(cna_gl_context *gl, const cna_gl_model *glm, const drawn *d, size_t count,
                            const cna_mat4 *view, const cna_mat4 *proj)
{
    cna_error err;
    cna_gl_begin_frame(gl, BG);
    for (size_t i = 0; i < count; i++)
        if (cna_gl_draw_character(gl, glm, d[i].inst, d[i].c, d[i].placement, view, proj, &err) != CNA_OK)
            fail_msg("draw %zu: %s", i, err.message);
    return read_image(gl);
}

static size_t drawn_pixels(const unsigned char *px)
{
    size_t n = 0;
    for (size_t i = 0; i < (size_t)W * H; i++) n += !is_background(px + i * 4);
    return n;
}

static size_t differing_pixels(const unsigned char *a, const unsigned char *b, int threshold)
{
    size_t n = 0;
    for (size_t i = 0; i < (size_t)W * H; i++)
        for (size_t c = 0; c < 3; c++)
            if (abs((int)a[i * 4 + c] - (int)b[i * 4 + c]) > threshold) {
                n++;
                break;
            }
    return n;
}

static void two_characters_in_one_frame_equal_each_drawn_alone_and_leave_the_model_unchanged(void **state)
{
    (void)state;
    cna_error err;
    cna_gl_context *gl = context();
    cna_model *m = load("corpus/valid/RobotExpressive/robot.glb");
    const uint64_t before = cna__model_checksum(m);
    cna_gl_model *glm = NULL;
    assert_int_equal(cna_gl_model_create(gl, m, &glm, &err), CNA_OK);
    assert_ptr_equal(cna_gl_model_model(glm), m);

    cna_character *a = posed(m, "Robot_Walking", 0.3);
    cna_character *b = posed(m, "Robot_Running", 0.7);
    cna_character *a_as_b = posed(m, "Robot_Running", 0.7);   /* b's pose at a's place */
    /* Side by side along x, 0.45 of the model's size either way of the origin. */
    cna_mat4 left, right;
    cna_mat4_translation(&left, cna_vec3_make(-0.45f * m->size, 0, 0));
    cna_mat4_translation(&right, cna_vec3_make(0.45f * m->size, 0, 0));
    /* An orthographic camera on +Z framing both: the bones' positions, with a margin. */
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    const drawn both[2] = {{a, NULL, &left}, {b, NULL, &right}};
    for (size_t k = 0; k < 2; k++) {
        for (size_t i = 0; i < m->bone_count; i++) {
            cna_mat4 w;
            cna_mat4_mul(&w, both[k].placement, cna_character_absolute_transform(both[k].c, i));
            for (int x = 0; x < 3; x++) lo[x] = fminf(lo[x], w.m[12 + x]), hi[x] = fmaxf(hi[x], w.m[12 + x]);
        }
    }
    const float margin = 0.15f * m->size;
    float cx = 0.5f * (lo[0] + hi[0]), cy = 0.5f * (lo[1] + hi[1]);
    float hw = 0.5f * (hi[0] - lo[0]) + margin, hh = 0.5f * (hi[1] - lo[1]) + margin;
    if (hw < hh * W / H) hw = hh * W / H;
    else hh = hw * H / W;
    cna_mat4 view, proj;
    glm_lookat((vec3){cx, cy, hi[2] + 2.0f * m->size}, (vec3){cx, cy, 0.0f}, (vec3){0, 1, 0}, (vec4 *)view.m);
    glm_ortho(-hw, hw, -hh, hh, 0.01f, 4.0f * m->size + (hi[2] - lo[2]), (vec4 *)proj.m);

    unsigned char *shared = frame(gl, glm, both, 2, &view, &proj);
    unsigned char *alone_a = frame(gl, glm, &both[0], 1, &view, &proj);
    unsigned char *alone_b = frame(gl, glm, &both[1], 1, &view, &proj);
    const drawn other = {a_as_b, NULL, &left};
    unsigned char *a_in_b_pose = frame(gl, glm, &other, 1, &view, &proj);

    /* Each covers a fair share; they never cover the same pixel. */
    size_t na = drawn_pixels(alone_a), nb = drawn_pixels(alone_b);
    if (na < (size_t)W * H / 50 || nb < (size_t)W * H / 50) fail_msg("drawn pixels: %zu and %zu", na, nb);
    size_t overlap = 0;
    for (size_t i = 0; i < (size_t)W * H; i++)
        overlap += !is_background(alone_a + i * 4) && !is_background(alone_b + i * 4);
    if (overlap) fail_msg("the two characters share %zu pixels; the test needs them apart", overlap);
    /* The composition of the two alone pictures. */
    unsigned char *composed = malloc((size_t)W * H * 4);
    assert_non_null(composed);
    for (size_t i = 0; i < (size_t)W * H; i++)
        memcpy(composed + i * 4, is_background(alone_a + i * 4) ? alone_b + i * 4 : alone_a + i * 4, 4);
    size_t diff = differing_pixels(shared, composed, 2);
    if (diff) fail_msg("%zu pixels of the shared frame differ from the composed pictures by more than 2/255", diff);
    /* The two characters are posed differently: a in b's pose is another picture. */
    size_t posed_apart = differing_pixels(alone_a, a_in_b_pose, 16);
    if (posed_apart < (size_t)W * H / 100) fail_msg("only %zu pixels tell the two poses apart", posed_apart);
    /* Without a placement world is the absolute transform itself: the identity placement draws the same. */
    cna_mat4 id;
    cna_mat4_identity(&id);
    const drawn plain = {a, NULL, NULL}, placed = {a, NULL, &id};
    unsigned char *p0 = frame(gl, glm, &plain, 1, &view, &proj), *p1 = frame(gl, glm, &placed, 1, &view, &proj);
    assert_memory_equal(p0, p1, (size_t)W * H * 4);
    assert_true(drawn_pixels(p0) > 0);

    assert_true(cna__model_checksum(m) == before);   /* drawing never writes the model */
    free(p0);
    free(p1);
    free(composed);
    free(shared);
    free(alone_a);
    free(alone_b);
    free(a_in_b_pose);
    cna_character_free(a_as_b);
    cna_character_free(b);
    cna_character_free(a);
    cna_gl_model_free(glm);
    assert_true(cna__model_checksum(m) == before);
    cna_model_free(m);
    cna_gl_context_free(gl);
}

/* The bytes of a GL buffer. */
static void buffer_bytes(GLuint name, void *out, size_t size)
{
    glBindBuffer(GL_COPY_READ_BUFFER, name);
    glGetBufferSubData(GL_COPY_READ_BUFFER, 0, (GLsizeiptr)size, out);
    glBindBuffer(GL_COPY_READ_BUFFER, 0);
}

static void expect_uploaded(const cna_gl_instance *inst, const cna_character *c, size_t size)
{
    const void *want = cna_character_part_vertices(c, 0, 0, NULL);
    unsigned char *got = malloc(size);
    assert_non_null(got);
    GLuint name = cna__gl_instance_buffer(inst, 0, 0);
    assert_true(name != 0);
    buffer_bytes(name, got, size);
    assert_memory_equal(got, want, size);
    free(got);
}

static void morph_vertices_are_uploaded_only_when_the_revision_changes(void **state)
{
    (void)state;
    cna_error err;
    cna_gl_context *gl = context();
    cna_model *m = load("corpus/valid/AnimatedMorphCube/AnimatedMorphCube.gltf");
    const uint64_t before = cna__model_checksum(m);
    assert_int_equal(m->mesh_count, 1);
    assert_int_equal(m->meshes[0].part_count, 1);
    const cna_model_part *part = &m->meshes[0].parts[0];
    assert_non_null(part->morph);
    const size_t size = part->vertex_count * part->declaration.stride;
    cna_gl_model *glm = NULL;
    assert_int_equal(cna_gl_model_create(gl, m, &glm, &err), CNA_OK);
    cna_gl_instance *i1 = NULL, *i2 = NULL;
    assert_int_equal(cna_gl_instance_create(glm, &i1, &err), CNA_OK);
    assert_int_equal(cna_gl_instance_create(glm, &i2, &err), CNA_OK);
    assert_true(cna__gl_instance_buffer(i1, 0, 0) != cna__gl_instance_buffer(i2, 0, 0));
    cna_character *c1 = posed(m, "Square", 1.0), *c2 = posed(m, "Square", 3.0);
    assert_memory_not_equal(cna_character_part_vertices(c1, 0, 0, NULL), cna_character_part_vertices(c2, 0, 0, NULL),
                            size);
    cna_mat4 id;
    cna_mat4_identity(&id);
#define DRAW(c, inst) assert_int_equal(cna_gl_draw_character(gl, glm, inst, c, NULL, &id, &id, &err), CNA_OK)

    cna_gl_begin_frame(gl, BG);
    assert_int_equal(cna__gl_instance_uploads(i1), 0);
    DRAW(c1, i1);   /* the first draw uploads */
    assert_int_equal(cna__gl_instance_uploads(i1), 1);
    expect_uploaded(i1, c1, size);
    DRAW(c1, i1);   /* nothing changed */
    assert_int_equal(cna__gl_instance_uploads(i1), 1);
    const uint64_t rev = cna_character_part_revision(c1, 0, 0);
    assert_int_equal(cna_character_pose(c1, &err), CNA_OK);   /* same position: same weights, no blend */
    assert_true(cna_character_part_revision(c1, 0, 0) == rev);
    DRAW(c1, i1);
    assert_int_equal(cna__gl_instance_uploads(i1), 1);
    /* The second character goes to its own buffer; the first one's is untouched. */
    DRAW(c2, i2);
    assert_int_equal(cna__gl_instance_uploads(i2), 1);
    assert_int_equal(cna__gl_instance_uploads(i1), 1);
    expect_uploaded(i2, c2, size);
    expect_uploaded(i1, c1, size);
    /* A new pose with other weights: one upload, the new bytes. */
    assert_int_equal(cna_character_seek(c1, 2.0, &err), CNA_OK);
    assert_int_equal(cna_character_pose(c1, &err), CNA_OK);
    assert_true(cna_character_part_revision(c1, 0, 0) != rev);
    DRAW(c1, i1);
    DRAW(c1, i1);
    assert_int_equal(cna__gl_instance_uploads(i1), 2);
    expect_uploaded(i1, c1, size);
    /* Setting the current weights again changes nothing; other weights upload once. */
    size_t n = 0;
    const float *w = cna_character_morph_weights(c1, 0, 0, &n);
    assert_int_equal(n, 2);
    float same[2] = {w[0], w[1]}, other[2] = {0.25f, 0.5f};
    assert_int_equal(cna_character_set_morph_weights(c1, 0, 0, same, 2, &err), CNA_OK);
    DRAW(c1, i1);
    assert_int_equal(cna__gl_instance_uploads(i1), 2);
    assert_int_equal(cna_character_set_morph_weights(c1, 0, 0, other, 2, &err), CNA_OK);
    DRAW(c1, i1);
    assert_int_equal(cna__gl_instance_uploads(i1), 3);
    expect_uploaded(i1, c1, size);
#undef DRAW
    assert_true(cna__model_checksum(m) == before);
    cna_character_free(c1);
    cna_character_free(c2);
    cna_gl_instance_free(i1);
    cna_gl_instance_free(i2);
    cna_gl_model_free(glm);
    cna_model_free(m);
    cna_gl_context_free(gl);
}

static void draws_refuse_what_does_not_belong_together(void **state)
{
    (void)state;
    cna_error err;
    cna_gl_context *gl = context();
    cna_model *robot = load("corpus/valid/RobotExpressive/robot.glb");
    cna_model *cube = load("corpus/valid/AnimatedMorphCube/AnimatedMorphCube.gltf");
    cna_gl_model *g_robot = NULL, *g_cube = NULL;
    assert_int_equal(cna_gl_model_create(gl, robot, &g_robot, &err), CNA_OK);
    assert_int_equal(cna_gl_model_create(gl, cube, &g_cube, &err), CNA_OK);
    cna_gl_instance *i_robot = NULL;
    assert_int_equal(cna_gl_instance_create(g_robot, &i_robot, &err), CNA_OK);
    cna_character *c_cube = posed(cube, "Square", 1.0);
    cna_character *c_robot = posed(robot, "Robot_Idle", 0.5);
    cna_gl_begin_frame(gl, BG);
    char want[CNA_ERROR_MESSAGE_MAX];

    /* a character of another model, naming both */
    assert_int_equal(cna_gl_draw_character(gl, g_robot, i_robot, c_cube, NULL, NULL, NULL, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    snprintf(want, sizeof want,
             "gl draw character: the character's model (1 bones, 1 meshes) is not the gl model's (%zu bones, %zu "
             "meshes)",
             robot->bone_count, robot->mesh_count);
    assert_string_equal(err.message, want);
    /* an instance of another gl model */
    assert_int_equal(cna_gl_draw_character(gl, g_cube, i_robot, c_cube, NULL, NULL, NULL, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "gl draw character: the instance was made for another gl model");
    /* a morphed part without an instance, naming the part */
    assert_int_equal(cna_gl_draw_character(gl, g_cube, NULL, c_cube, NULL, NULL, NULL, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    snprintf(want, sizeof want, "meshes[0] \"%s\".parts[0]: a morphed part needs a cna_gl_instance",
             cube->meshes[0].name);
    assert_string_equal(err.message, want);
    /* no morphed part: the instance may be NULL */
    assert_int_equal(cna_gl_draw_character(gl, g_robot, NULL, c_robot, NULL, NULL, NULL, &err), CNA_OK);
    assert_int_equal(cna_gl_draw_character(gl, g_robot, i_robot, NULL, NULL, NULL, NULL, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "gl draw character: NULL character");
    assert_int_equal(cna_gl_draw_character(gl, NULL, i_robot, c_robot, NULL, NULL, NULL, &err),
                     CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "gl draw character: NULL gl model");

    /* a skinned draw needs a palette of 1 to 72 matrices */
    const cna_model_part *part = &robot->meshes[0].parts[0];
    const cna_effect *fx = &robot->effects[part->effect];
    assert_true(cna_effect_kind_is_skinned(fx->kind));
    cna_gl_draw_desc d;
    memset(&d, 0, sizeof d);
    d.declaration = &part->declaration;
    assert_int_equal(cna_gl_model_part_buffers(g_robot, 0, 0, &d.vertex_buffer, &d.index_buffer, &err), CNA_OK);
    assert_true(d.vertex_buffer != 0 && d.index_buffer != 0);
    d.index_count = part->index_count;
    d.effect = fx;
    assert_int_equal(cna_gl_draw(gl, &d, &err), CNA_ERROR_INVALID_ARGUMENT);
    snprintf(want, sizeof want, "gl draw: effect kind %s needs a palette; none given", cna_effect_kind_name(fx->kind));
    assert_string_equal(err.message, want);
    cna_mat4 palette[CNA_EFFECT_MAX_BONES + 1];
    for (size_t i = 0; i <= CNA_EFFECT_MAX_BONES; i++) cna_mat4_identity(&palette[i]);
    d.palette = palette;
    assert_int_equal(cna_gl_draw(gl, &d, &err), CNA_ERROR_INVALID_ARGUMENT);
    snprintf(want, sizeof want, "gl draw: effect kind %s needs a palette; palette_count is 0",
             cna_effect_kind_name(fx->kind));
    assert_string_equal(err.message, want);
    d.palette_count = CNA_EFFECT_MAX_BONES + 1;
    assert_int_equal(cna_gl_draw(gl, &d, &err), CNA_ERROR_LIMIT);
    assert_string_equal(err.message, "gl draw: a palette of 73 matrices; at most 72 are supported");
    d.palette_count = CNA_EFFECT_MAX_BONES;
    assert_int_equal(cna_gl_draw(gl, &d, &err), CNA_OK);

    /* part buffers out of range */
    assert_int_equal(cna_gl_model_part_buffers(g_cube, 1, 0, NULL, NULL, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "gl model: meshes[1] is outside the 1 meshes");
    assert_int_equal(cna_gl_model_part_buffers(g_cube, 0, 2, NULL, NULL, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "gl model: meshes[0].parts[2] is outside its 1 parts");
    assert_int_equal(cna_gl_instance_create(NULL, &i_robot, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "gl instance: NULL gl model");

    /* a model that a draw could not trust is refused at creation, nothing created */
    cna_model_part *broken = &cube->meshes[0].parts[0];
    const int32_t effect = broken->effect;
    broken->effect = -1;
    cna_gl_model *none = NULL;
    assert_int_equal(cna_gl_model_create(gl, cube, &none, &err), CNA_ERROR_INVALID_ARGUMENT);
    snprintf(want, sizeof want, "meshes[0] \"%s\".parts[0]: no effect", cube->meshes[0].name);
    assert_string_equal(err.message, want);
    assert_null(none);
    broken->effect = effect;

    cna_character_free(c_robot);
    cna_character_free(c_cube);
    cna_gl_instance_free(i_robot);
    cna_gl_model_free(g_cube);
    cna_gl_model_free(g_robot);
    cna_model_free(cube);
    cna_model_free(robot);
    cna_gl_context_free(gl);
}

int main(void)
{
    keep_mesa_driver_loaded();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_characters_in_one_frame_equal_each_drawn_alone_and_leave_the_model_unchanged),
        cmocka_unit_test(morph_vertices_are_uploaded_only_when_the_revision_changes),
        cmocka_unit_test(draws_refuse_what_does_not_belong_together),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
