/*
 * Materials drawn headless (EGL, llvmpipe where there is no GPU), from the
 * fixtures of tests/data/fixtures-materials (tests/gl/make_material_fixtures.py;
 * SOURCE.md there gives each one's geometry): a 64x64 framebuffer, pixels
 * checked at chosen points against the colours the shader's formulas give,
 * within the tolerance each test states (8-bit rounding of the 1/2.2
 * encoding). The pictures are written to the build folder
 * (the folder test_materials_draw_out, one PNG per picture) to be looked at.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "gl/mesa_driver.h"

#include "cna/cna.h"
#include "cna/gl.h"

enum { W = 64, H = 64 };
#define FIX CNA_TEST_DATA_DIR "/fixtures-materials/"
#define OUT_DIR CNA_BINARY_DIR "/test_materials_draw_out"

typedef struct scene {
    cna_gl_light light;
    float background[4];
    const cna_mat4 *view, *projection;   /* NULL: identity */
} scene;

static scene ambient_only(void)
{
    scene s;
    memset(&s, 0, sizeof s);
    s.light.direction = cna_vec3_make(0, 0, -1);
    s.light.ambient = cna_vec3_make(1, 1, 1);
    s.background[3] = 1;
    return s;
}

/* Draw fixture `file` and return its pixels (rows top to bottom; caller frees). */
static unsigned char *render(const char *file, const scene *s, const char *png_name)
{
    cna_error err;
    memset(&err, 0, sizeof err);
    cna_gl_context *gl = NULL;
    cna_gl_context_options o;
    memset(&o, 0, sizeof o);
    o.width = W;
    o.height = H;
    if (cna_gl_context_create(&o, &gl, &err) != CNA_OK) fail_msg("gl context: %s", err.message);
    cna_gl_set_light(gl, &s->light);
    char path[1024];
    snprintf(path, sizeof path, FIX "%s", file);
    cna_model *m = NULL;
    if (cna_model_load_file(path, NULL, &m, &err) != CNA_OK) fail_msg("%s: %s", path, err.message);
    cna_gl_model *glm = NULL;
    assert_int_equal(cna_gl_model_create(gl, m, &glm, &err), CNA_OK);
    cna_error first;
    if (cna_gl_model_texture_failures(glm, &first) != 0) fail_msg("%s: %s", file, first.message);
    cna_character *c = NULL;
    assert_int_equal(cna_character_create(m, NULL, &c, &err), CNA_OK);
    cna_gl_begin_frame(gl, s->background);
    if (cna_gl_draw_character(gl, glm, NULL, c, NULL, s->view, s->projection, &err) != CNA_OK)
        fail_msg("%s: %s", file, err.message);
    unsigned char *px = malloc(W * H * 4);
    assert_non_null(px);
    assert_int_equal(cna_gl_read_pixels(gl, px, W * H * 4, &err), CNA_OK);
    mkdir(OUT_DIR, 0755);
    snprintf(path, sizeof path, OUT_DIR "/%s.png", png_name);
    assert_int_equal(cna_gl_write_png(path, W, H, px, &err), CNA_OK);
    cna_character_free(c);
    cna_gl_model_free(glm);
    cna_model_free(m);
    cna_gl_context_free(gl);
    return px;
}

static const unsigned char *at(const unsigned char *px, int x, int y) { return px + ((size_t)y * W + (size_t)x) * 4; }

static void assert_pixel(const unsigned char *px, int x, int y, int r, int g, int b, int tol)
{
    const unsigned char *p = at(px, x, y);
    if (abs(p[0] - r) > tol || abs(p[1] - g) > tol || abs(p[2] - b) > tol)
        fail_msg("pixel (%d, %d) is (%d, %d, %d); expected (%d, %d, %d) within %d", x, y, p[0], p[1], p[2], r, g, b,
                 tol);
}

/* The shader's output encoding of a linear value: round(255 c^(1/2.2)). */
static int encode(double c) { return (int)lround(255.0 * pow(c, 1.0 / 2.2)); }
static double decode(int v) { return pow(v / 255.0, 2.2); }

/* A 4x4 palette texture seen through offset (0, 1), rotation pi/2, scale
 * (0.5, 0.5), sampled at TEXCOORD_1 (the extension's override; TEXCOORD_0 is
 * constant and would show texel (3, 0), blue, everywhere):
 * uv' = (0.5 v, 1 - 0.5 u), so the screen's quadrants show texels
 * (column, row) (0, 3), (0, 2), (1, 3), (1, 2): yellow, black, magenta, red.
 * Exact (the texels are 0 or 255); tolerance 1. */
static void a_texture_transform_puts_known_texels_at_known_points(void **state)
{
    (void)state;
    scene s = ambient_only();
    s.background[0] = s.background[1] = s.background[2] = 0.5f;   /* not black: texel (0, 2) is */
    unsigned char *px = render("texture-transform.gltf", &s, "texture-transform");
    assert_pixel(px, 16, 16, 255, 255, 0, 1);
    assert_pixel(px, 48, 16, 0, 0, 0, 1);
    assert_pixel(px, 16, 48, 255, 0, 255, 1);
    assert_pixel(px, 48, 48, 255, 0, 0, 1);
    free(px);
}

/* Emissive (0.1, 0.05, 0.2) on a black base, no light: the left quad has
 * emissive_strength 4 and shows the encoded (0.4, 0.2, 0.8), the right one
 * the encoded (0.1, 0.05, 0.2); tolerance 2 per channel, and decoded back
 * to linear the left is 4 times the right within 6 % (8-bit rounding). */
static void emissive_strength_4_brightens_four_times(void **state)
{
    (void)state;
    scene s = ambient_only();
    s.light.ambient = cna_vec3_zero();
    unsigned char *px = render("emissive-strength.gltf", &s, "emissive-strength");
    assert_pixel(px, 16, 32, encode(0.4), encode(0.2), encode(0.8), 2);
    assert_pixel(px, 48, 32, encode(0.1), encode(0.05), encode(0.2), 2);
    for (int k = 0; k < 3; k++) {
        double ratio = decode(at(px, 16, 32)[k]) / decode(at(px, 48, 32)[k]);
        if (fabs(ratio - 4.0) > 0.24) fail_msg("channel %d: strength ratio %g, expected 4", k, ratio);
    }
    free(px);
}

/* KHR_materials_unlit without any light (ambient 0, light 0): the unlit
 * quad (left) shows its base colour (0.5, 0.25, 1) encoded, without its
 * emissive (0.2); the lit twin (right) shows only the emissive. */
static void unlit_shows_the_base_colour_without_light(void **state)
{
    (void)state;
    scene s = ambient_only();
    s.light.ambient = cna_vec3_zero();
    unsigned char *px = render("unlit.gltf", &s, "unlit");
    assert_pixel(px, 16, 32, encode(0.5), encode(0.25), encode(1.0), 1);
    assert_pixel(px, 48, 32, encode(0.2), encode(0.2), encode(0.2), 1);
    free(px);
}

/* All five maps under ambient light (1, 1, 1) only: base (1, 1, 0) ×
 * occlusion 128/255 read as linear data (0.502; as sRGB it would be 0.216)
 * + emissive texture (0, 0, 1) × factor 0.25; metallic 0 from the map's B,
 * so the ambient term is base × ao exactly: encoded (187, 187, 136) ±2. The
 * quad with tangents (left) and the one without (right) agree. */
static void five_maps_under_ambient_light(void **state)
{
    (void)state;
    scene s = ambient_only();
    unsigned char *px = render("pbr-five-maps.gltf", &s, "pbr-five-maps-ambient");
    const int rg = encode(128.0 / 255.0), b = encode(0.25);
    assert_pixel(px, 16, 32, rg, rg, b, 2);
    assert_pixel(px, 48, 32, rg, rg, b, 2);
    free(px);
}

/* The normal map tilts the normal 45 degrees towards +u (+x on screen).
 * Light (1, 1, 1), no ambient, camera at (0, 0, 2): from the +x side
 * (travelling (-1, 0, -1)) the tilted normal faces the light (n·l = 1, where
 * the flat normal gives 0.707, encoded 214): red and green at least 245
 * (diffuse 0.96 plus a small GGX highlight); from the -x side (travelling
 * (1, 0, -1)) n·l = 0: only the emissive blue (136 ±2) is left. The tangent
 * frame (left quad) and the derivative frame (right quad, no tangents) give
 * the same pixels within 3. */
static void the_normal_map_turns_the_surface_with_and_without_tangents(void **state)
{
    (void)state;
    cna_mat4 view, proj;
    cna_mat4_translation(&view, cna_vec3_make(0, 0, -2));
    cna_mat4_identity(&proj);
    proj.m[10] = 0.25f;   /* z = -2 maps to depth -0.5: inside the clip volume */
    scene s = ambient_only();
    s.light.ambient = cna_vec3_zero();
    s.light.color = cna_vec3_make(1, 1, 1);
    s.view = &view;
    s.projection = &proj;
    s.light.direction = cna_vec3_make(-1, 0, -1);
    unsigned char *lit = render("pbr-five-maps.gltf", &s, "pbr-five-maps-light-from-right");
    s.light.direction = cna_vec3_make(1, 0, -1);
    unsigned char *dark = render("pbr-five-maps.gltf", &s, "pbr-five-maps-light-from-left");
    const int points[4][2] = {{16, 32}, {8, 8}, {24, 56}, {28, 20}};
    for (int i = 0; i < 4; i++) {
        int x = points[i][0], y = points[i][1];
        const unsigned char *p = at(lit, x, y);
        if (p[0] < 245 || p[1] < 245) fail_msg("lit (%d, %d) is (%d, %d, %d): the normal map did not face the light", x, y, p[0], p[1], p[2]);
        assert_pixel(dark, x, y, 0, 0, encode(0.25), 2);
        const unsigned char *q = at(lit, x + 32, y);
        assert_pixel(lit, x, y, q[0], q[1], q[2], 3);
        q = at(dark, x + 32, y);
        assert_pixel(dark, x, y, q[0], q[1], q[2], 3);
    }
    free(lit);
    free(dark);
}

/* Left: a MASK quad (cutoff 0.5) whose texture's left texel has alpha 64/255
 * (discarded: the blue background) and right texel 200/255 (kept: red,
 * written opaque). Right: a BLEND quad (red, alpha 0.5) in front of an
 * opaque green one that comes after it in the file: blended parts are drawn
 * after the others, so the result is half red, half green: (128, 128, 0)
 * ±2. */
static void mask_discards_below_the_cutoff_and_blend_is_drawn_over_opaque(void **state)
{
    (void)state;
    scene s = ambient_only();
    s.background[2] = 1;
    unsigned char *px = render("alpha-modes.gltf", &s, "alpha-modes");
    assert_pixel(px, 8, 32, 0, 0, 255, 0);
    assert_pixel(px, 24, 32, 255, 0, 0, 1);
    assert_int_equal(at(px, 24, 32)[3], 255);
    assert_pixel(px, 48, 32, 128, 128, 0, 2);
    free(px);
}

/* Two planes seen from behind (their normals point away), light (0.8) from
 * the camera and ambient 0.2: the double-sided one (left) is drawn with its
 * normal turned to the viewer, so grey 0.5 × (0.2 + 0.8) = 0.5, encoded 186
 * ±2 (unturned it would be 0.1, 89); the single-sided one (right) is culled:
 * the black background. */
static void a_double_sided_plane_is_visible_from_behind(void **state)
{
    (void)state;
    scene s = ambient_only();
    s.light.ambient = cna_vec3_make(0.2f, 0.2f, 0.2f);
    s.light.color = cna_vec3_make(0.8f, 0.8f, 0.8f);
    unsigned char *px = render("double-sided.gltf", &s, "double-sided");
    const int g = encode(0.5);
    assert_pixel(px, 16, 32, g, g, g, 2);
    assert_pixel(px, 48, 32, 0, 0, 0, 0);
    free(px);
}

/* The gl model reports a used image that was missing at load, naming it. */
static void a_missing_image_is_reported_by_the_gl_model(void **state)
{
    (void)state;
    cna_error err;
    cna_gl_context *gl = NULL;
    cna_gl_context_options o;
    memset(&o, 0, sizeof o);
    o.width = o.height = 8;
    assert_int_equal(cna_gl_context_create(&o, &gl, &err), CNA_OK);
    cna_model *m = NULL;
    assert_int_equal(cna_model_load_file(FIX "missing-image.gltf", NULL, &m, &err), CNA_OK);
    cna_gl_model *glm = NULL;
    assert_int_equal(cna_gl_model_create(gl, m, &glm, &err), CNA_OK);
    assert_int_equal(cna_gl_model_texture_failures(glm, NULL), 1);
    cna_error ie;
    assert_int_equal(cna_gl_model_image_status(glm, 0, &ie), CNA_OK);
    assert_int_equal(cna_gl_model_image_status(glm, 1, &ie), CNA_ERROR_IO);
    char want[1200];
    snprintf(want, sizeof want,
             "images[1] \"body_n\": cannot open \"%sbody_n.png\": No such file or directory", FIX);
    assert_string_equal(ie.message, want);
    assert_int_equal(cna_gl_model_image_status(glm, 7, &ie), CNA_OK);   /* out of range: nothing to say */
    assert_int_equal(cna_gl_model_image_status(NULL, 0, &ie), CNA_ERROR_INVALID_ARGUMENT);
    cna_gl_model_free(glm);
    cna_model_free(m);
    cna_gl_context_free(gl);
}

#ifdef CNA_TEST_HAVE_TOOL
/* `cna render` warns for every image a drawn material uses that cannot be
 * read, naming the material, the slot and the image; it still renders.
 * (Built with the tool only: CNA_BUILD_TOOLS.) */
static void cna_render_warns_for_a_missing_material_image(void **state)
{
    (void)state;
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s/cna render %smissing-image.gltf --size 32x32 -o %s/missing.png 2> %s/missing.err",
             CNA_BINARY_DIR, FIX, OUT_DIR, OUT_DIR);
    mkdir(OUT_DIR, 0755);
    int status = system(cmd);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    FILE *f = fopen(OUT_DIR "/missing.err", "r");
    assert_non_null(f);
    char text[4096];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    char want[1200];
    snprintf(want, sizeof want,
             "warning: materials[0] \"Body\": normalTexture: images[1] \"body_n\": cannot open \"%sbody_n.png\": "
             "No such file or directory\n",
             FIX);
    assert_string_equal(text, want);
}
#endif

int main(void)
{
    keep_mesa_driver_loaded();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_texture_transform_puts_known_texels_at_known_points),
        cmocka_unit_test(emissive_strength_4_brightens_four_times),
        cmocka_unit_test(unlit_shows_the_base_colour_without_light),
        cmocka_unit_test(five_maps_under_ambient_light),
        cmocka_unit_test(the_normal_map_turns_the_surface_with_and_without_tangents),
        cmocka_unit_test(mask_discards_below_the_cutoff_and_blend_is_drawn_over_opaque),
        cmocka_unit_test(a_double_sided_plane_is_visible_from_behind),
        cmocka_unit_test(a_missing_image_is_reported_by_the_gl_model),
#ifdef CNA_TEST_HAVE_TOOL
        cmocka_unit_test(cna_render_warns_for_a_missing_material_image),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
