/*
 * Base-colour textures, headless: a quad covering the whole
 * view (identity view and projection) whose material samples a 2x2 PNG
 * (red, green / blue, white; NEAREST) at TEXCOORD_0. The light is ambient
 * (1, 1, 1) only, so a pixel is exactly the texel times the factor
 * (0 and 1 survive sRGB decoding and the 1/2.2 encoding unchanged).
 * The glTF files are written at run time into the build directory. Two
 * models never share a cached texture: not two at once with the same image
 * index, nor one loaded at the address of a freed one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "gl/mesa_driver.h"

#include "cna/cna.h"
#include "cna/gl.h"

enum { W = 64, H = 64 };

static const char *tmp_path(char *buf, size_t size, const char *name)
{
    char dir[900];
    snprintf(dir, sizeof dir, "%s/test_texture_tmp", CNA_BINARY_DIR);
    mkdir(dir, 0755);
    snprintf(buf, size, "%s/%s", dir, name);
    return buf;
}

static void base64(const unsigned char *in, size_t n, char *out)
{
    static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) | (i + 2 < n ? in[i + 2] : 0);
        out[o++] = t[v >> 18 & 63];
        out[o++] = t[v >> 12 & 63];
        out[o++] = i + 1 < n ? t[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? t[v & 63] : '=';
    }
    out[o] = '\0';
}

/* The quad's buffer: positions, normals, texcoords (v = 0 at the top), indices. */
static void quad_buffer(char *b64)
{
    unsigned char bin[140];
    const float pos[12] = {-1, -1, 0, 1, -1, 0, 1, 1, 0, -1, 1, 0};
    const float nrm[12] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    const float uv[8] = {0, 1, 1, 1, 1, 0, 0, 0};
    const uint16_t idx[6] = {0, 1, 2, 0, 2, 3};
    memcpy(bin, pos, 48);
    memcpy(bin + 48, nrm, 48);
    memcpy(bin + 96, uv, 32);
    memcpy(bin + 128, idx, 12);
    base64(bin, sizeof bin, b64);
}

/* Write a glTF with the quad; `image_json` is the images[0] object. */
static void write_gltf(const char *path, const char *image_json, const char *factor)
{
    char b64[200];
    quad_buffer(b64);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f,
            "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"mesh\":0}],"
            "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"NORMAL\":1,\"TEXCOORD_0\":2},"
            "\"indices\":3,\"material\":0}]}],"
            "\"materials\":[{\"pbrMetallicRoughness\":{\"baseColorFactor\":%s,\"baseColorTexture\":{\"index\":0},"
            "\"metallicFactor\":0}}],"
            "\"textures\":[{\"source\":0,\"sampler\":0}],"
            "\"samplers\":[{\"magFilter\":9728,\"minFilter\":9728,\"wrapS\":33071,\"wrapT\":33071}],"
            "\"images\":[%s],"
            "\"buffers\":[{\"byteLength\":140,\"uri\":\"data:application/octet-stream;base64,%s\"}],"
            "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":48},"
            "{\"buffer\":0,\"byteOffset\":48,\"byteLength\":48},{\"buffer\":0,\"byteOffset\":96,\"byteLength\":32},"
            "{\"buffer\":0,\"byteOffset\":128,\"byteLength\":12}],"
            "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":4,\"type\":\"VEC3\","
            "\"min\":[-1,-1,0],\"max\":[1,1,0]},"
            "{\"bufferView\":1,\"componentType\":5126,\"count\":4,\"type\":\"VEC3\"},"
            "{\"bufferView\":2,\"componentType\":5126,\"count\":4,\"type\":\"VEC2\"},"
            "{\"bufferView\":3,\"componentType\":5123,\"count\":6,\"type\":\"SCALAR\"}]}\n",
            factor, image_json, b64);
    fclose(f);
}

static const unsigned char TEXELS[16] = {255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255};

static void write_texture_png(const char *path)
{
    cna_error err;
    assert_int_equal(cna_gl_write_png(path, 2, 2, TEXELS, &err), CNA_OK);
}

/* Draw the quad of `gltf` and return the pixels (caller frees). */
static unsigned char *render(const char *gltf, cna_result *upload, char *message, size_t message_size)
{
    cna_error err;
    memset(&err, 0, sizeof err);
    cna_gl_context *gl = NULL;
    cna_gl_context_options o;
    memset(&o, 0, sizeof o);
    o.width = W;
    o.height = H;
    if (cna_gl_context_create(&o, &gl, &err) != CNA_OK) fail_msg("gl context: %s", err.message);
    cna_gl_light light;
    memset(&light, 0, sizeof light);
    light.direction = cna_vec3_make(0, 0, -1);
    light.ambient = cna_vec3_make(1, 1, 1);
    cna_gl_set_light(gl, &light);
    cna_model *m = NULL;
    if (cna_model_load_file(gltf, NULL, &m, &err) != CNA_OK) fail_msg("%s: %s", gltf, err.message);
    size_t failed = 0;
    cna_error uerr;
    memset(&uerr, 0, sizeof uerr);
    *upload = cna_gl_upload_model_textures(gl, m, &failed, &uerr);
    snprintf(message, message_size, "%s", uerr.message);
    /* The gl model finds the same textures in the context's cache and reports the same failure. */
    cna_gl_model *glm = NULL;
    assert_int_equal(cna_gl_model_create(gl, m, &glm, &err), CNA_OK);
    cna_error gerr;
    assert_int_equal(cna_gl_model_texture_failures(glm, &gerr), failed);
    assert_int_equal(gerr.code, *upload);
    assert_string_equal(gerr.message, *upload ? uerr.message : "");
    cna_character *c = NULL;
    assert_int_equal(cna_character_create(m, NULL, &c, &err), CNA_OK);
    const float bg[4] = {0, 0, 0, 1};
    cna_gl_begin_frame(gl, bg);
    /* view and projection NULL: the identity */
    assert_int_equal(cna_gl_draw_character(gl, glm, NULL, c, NULL, NULL, NULL, &err), CNA_OK);
    unsigned char *px = malloc(W * H * 4);
    assert_non_null(px);
    assert_int_equal(cna_gl_read_pixels(gl, px, W * H * 4, &err), CNA_OK);
    cna_character_free(c);
    cna_gl_model_free(glm);   /* releases the model's textures */
    cna_model_free(m);
    cna_gl_context_free(gl);
    return px;
}

static void assert_pixel(const unsigned char *px, int x, int y, int r, int g, int b)
{
    const unsigned char *p = px + ((size_t)y * W + (size_t)x) * 4;
    if (abs(p[0] - r) > 1 || abs(p[1] - g) > 1 || abs(p[2] - b) > 1)
        fail_msg("pixel (%d, %d) is (%d, %d, %d); expected (%d, %d, %d)", x, y, p[0], p[1], p[2], r, g, b);
}

/* Quadrant centres: top-left, top-right, bottom-left, bottom-right. */
static void assert_quadrants(const unsigned char *px, const int rgb[4][3])
{
    assert_pixel(px, W / 4, H / 4, rgb[0][0], rgb[0][1], rgb[0][2]);
    assert_pixel(px, 3 * W / 4, H / 4, rgb[1][0], rgb[1][1], rgb[1][2]);
    assert_pixel(px, W / 4, 3 * H / 4, rgb[2][0], rgb[2][1], rgb[2][2]);
    assert_pixel(px, 3 * W / 4, 3 * H / 4, rgb[3][0], rgb[3][1], rgb[3][2]);
}

static void external_png_texture_is_sampled_at_texcoord_0(void **state)
{
    (void)state;
    char png[1024], gltf[1024];
    write_texture_png(tmp_path(png, sizeof png, "texels.png"));
    write_gltf(tmp_path(gltf, sizeof gltf, "external.gltf"), "{\"uri\":\"texels.png\",\"mimeType\":\"image/png\"}",
               "[1,1,1,1]");
    cna_result up;
    char msg[600];
    unsigned char *px = render(gltf, &up, msg, sizeof msg);
    assert_int_equal(up, CNA_OK);
    const int want[4][3] = {{255, 0, 0}, {0, 255, 0}, {0, 0, 255}, {255, 255, 255}};
    assert_quadrants(px, want);
    free(px);
}

static void data_uri_texture_is_multiplied_by_the_factor(void **state)
{
    (void)state;
    char png[1024], gltf[1024];
    write_texture_png(tmp_path(png, sizeof png, "texels2.png"));
    FILE *f = fopen(png, "rb");
    assert_non_null(f);
    unsigned char bytes[512];
    size_t n = fread(bytes, 1, sizeof bytes, f);
    fclose(f);
    assert_true(n > 8 && n < sizeof bytes);
    char b64[800], image[900];
    base64(bytes, n, b64);
    snprintf(image, sizeof image, "{\"uri\":\"data:image/png;base64,%s\"}", b64);
    remove(png);   /* the model must not need the file */
    write_gltf(tmp_path(gltf, sizeof gltf, "datauri.gltf"), image, "[1,0,1,1]");
    cna_result up;
    char msg[600];
    unsigned char *px = render(gltf, &up, msg, sizeof msg);
    assert_int_equal(up, CNA_OK);
    const int want[4][3] = {{255, 0, 0}, {0, 0, 0}, {0, 0, 255}, {255, 0, 255}};
    assert_quadrants(px, want);
    free(px);
}

static void undecodable_image_draws_with_the_factor_alone(void **state)
{
    (void)state;
    char gltf[1024];
    /* "not a png" in base64 */
    write_gltf(tmp_path(gltf, sizeof gltf, "garbage.gltf"),
               "{\"name\":\"junk\",\"uri\":\"data:image/png;base64,bm90IGEgcG5n\"}", "[0,1,0,1]");
    cna_result up;
    char msg[600];
    unsigned char *px = render(gltf, &up, msg, sizeof msg);
    assert_int_equal(up, CNA_ERROR_INVALID_DATA);
    assert_string_equal(msg, "images[0] \"junk\": not a PNG or JPEG image");
    const int want[4][3] = {{0, 255, 0}, {0, 255, 0}, {0, 255, 0}, {0, 255, 0}};
    assert_quadrants(px, want);
    free(px);
}

static void missing_external_image_draws_with_the_factor_alone(void **state)
{
    (void)state;
    char gltf[1024];
    write_gltf(tmp_path(gltf, sizeof gltf, "missing.gltf"), "{\"name\":\"gone\",\"uri\":\"no-such-file.png\"}",
               "[0,0,1,1]");
    cna_result up;
    char msg[600];
    unsigned char *px = render(gltf, &up, msg, sizeof msg);
    /* the reader's image-missing, reported by the upload with the reader's reason */
    assert_int_equal(up, CNA_ERROR_IO);
    char dir[900], want_msg[1200];
    snprintf(dir, sizeof dir, "%s/test_texture_tmp", CNA_BINARY_DIR);
    snprintf(want_msg, sizeof want_msg,
             "images[0] \"gone\": cannot open \"%s/no-such-file.png\": No such file or directory", dir);
    assert_string_equal(msg, want_msg);
    const int want[4][3] = {{0, 0, 255}, {0, 0, 255}, {0, 0, 255}, {0, 0, 255}};
    assert_quadrants(px, want);
    free(px);
}

/* ------------------------------------------------------------ the cache across models */

/* Texels of the second model's image: the first's (red, green / blue,
 * white) turned half a turn (white, blue / green, red). */
static const unsigned char TEXELS_TURNED[16] = {255, 255, 255, 255, 0, 0, 255, 255, 0, 255, 0, 255, 255, 0, 0, 255};
static const int SEEN[4][3] = {{255, 0, 0}, {0, 255, 0}, {0, 0, 255}, {255, 255, 255}};
static const int SEEN_TURNED[4][3] = {{255, 255, 255}, {0, 0, 255}, {0, 255, 0}, {255, 0, 0}};

/* An allocator over one block handing out consecutive pieces, freeing
 * nothing until reset: two loads of files whose sizes are the same make the
 * same calls, so they get the same addresses (the model's own among them). */
typedef struct bump {
    unsigned char *block;
    size_t used, size;
} bump;

static void *bump_alloc(void *user, size_t size)
{
    bump *b = (bump *)user;
    const size_t rounded = (size + 15) & ~(size_t)15;
    if (rounded > b->size - b->used) return NULL;
    void *p = b->block + b->used;
    b->used += rounded;
    return p;
}

static void bump_free(void *user, void *ptr)
{
    (void)user;
    (void)ptr;
}

static cna_gl_context *ambient_context(void)
{
    cna_error err;
    cna_gl_context *gl = NULL;
    cna_gl_context_options o;
    memset(&o, 0, sizeof o);
    o.width = W;
    o.height = H;
    if (cna_gl_context_create(&o, &gl, &err) != CNA_OK) fail_msg("gl context: %s", err.message);
    cna_gl_light light;
    memset(&light, 0, sizeof light);
    light.direction = cna_vec3_make(0, 0, -1);
    light.ambient = cna_vec3_make(1, 1, 1);
    cna_gl_set_light(gl, &light);
    return gl;
}

/* Draw model m with its gl model and check the quadrants. */
static void assert_drawn(cna_gl_context *gl, const cna_gl_model *glm, const cna_model *m, const int want[4][3])
{
    cna_error err;
    cna_character *c = NULL;
    assert_int_equal(cna_character_create(m, NULL, &c, &err), CNA_OK);
    const float bg[4] = {0, 0, 0, 1};
    cna_gl_begin_frame(gl, bg);
    assert_int_equal(cna_gl_draw_character(gl, glm, NULL, c, NULL, NULL, NULL, &err), CNA_OK);
    unsigned char *px = malloc(W * H * 4);
    assert_non_null(px);
    assert_int_equal(cna_gl_read_pixels(gl, px, W * H * 4, &err), CNA_OK);
    assert_quadrants(px, want);
    free(px);
    cna_character_free(c);
}

/* Two files whose images differ in their texels only (the same file sizes):
 * a.gltf shows cache_a.png, b.gltf cache_b.png. */
static void write_two_models(char *a, char *b, size_t size)
{
    char png[1024];
    cna_error err;
    assert_int_equal(cna_gl_write_png(tmp_path(png, sizeof png, "cache_a.png"), 2, 2, TEXELS, &err), CNA_OK);
    assert_int_equal(cna_gl_write_png(tmp_path(png, sizeof png, "cache_b.png"), 2, 2, TEXELS_TURNED, &err), CNA_OK);
    write_gltf(tmp_path(a, size, "cache_a.gltf"), "{\"uri\":\"cache_a.png\"}", "[1,1,1,1]");
    write_gltf(tmp_path(b, size, "cache_b.gltf"), "{\"uri\":\"cache_b.png\"}", "[1,1,1,1]");
}

static void two_models_with_the_same_image_index_draw_their_own_textures(void **state)
{
    (void)state;
    char a_path[1024], b_path[1024];
    write_two_models(a_path, b_path, sizeof a_path);
    cna_gl_context *gl = ambient_context();
    cna_error err;
    cna_model *a = NULL, *b = NULL;
    assert_int_equal(cna_model_load_file(a_path, NULL, &a, &err), CNA_OK);
    assert_int_equal(cna_model_load_file(b_path, NULL, &b, &err), CNA_OK);
    /* ids are unique within a model only: both images are images[0], id 1 */
    assert_int_equal(a->image_count, 1);
    assert_int_equal(b->image_count, 1);
    assert_int_equal(a->images[0].id, 1);
    assert_int_equal(b->images[0].id, 1);
    cna_gl_model *ga = NULL, *gb = NULL;
    assert_int_equal(cna_gl_model_create(gl, a, &ga, &err), CNA_OK);
    assert_int_equal(cna_gl_model_create(gl, b, &gb, &err), CNA_OK);
    assert_drawn(gl, ga, a, SEEN);
    assert_drawn(gl, gb, b, SEEN_TURNED);
    assert_drawn(gl, ga, a, SEEN);
    /* a second gl model of a finds a's textures; freeing it releases them,
     * and ga's next draw uploads them again */
    cna_gl_model *ga2 = NULL;
    assert_int_equal(cna_gl_model_create(gl, a, &ga2, &err), CNA_OK);
    assert_drawn(gl, ga2, a, SEEN);
    cna_gl_model_free(ga2);
    assert_drawn(gl, ga, a, SEEN);
    assert_drawn(gl, gb, b, SEEN_TURNED);
    cna_gl_model_free(gb);
    cna_gl_model_free(ga);
    cna_model_free(b);
    cna_model_free(a);
    cna_gl_context_free(gl);
}

static void a_model_loaded_where_a_freed_one_was_draws_its_own_textures(void **state)
{
    (void)state;
    char a_path[1024], b_path[1024];
    write_two_models(a_path, b_path, sizeof a_path);
    cna_gl_context *gl = ambient_context();
    bump arena = {malloc((size_t)8 << 20), 0, (size_t)8 << 20};
    assert_non_null(arena.block);
    cna_import_options o;
    memset(&o, 0, sizeof o);
    o.allocator.alloc = bump_alloc;
    o.allocator.free = bump_free;
    o.allocator.user_data = &arena;
    cna_error err;
    /* a drawn through its gl model, both freed; b loaded at a's address */
    cna_model *a = NULL;
    assert_int_equal(cna_model_load_file(a_path, &o, &a, &err), CNA_OK);
    cna_gl_model *ga = NULL;
    assert_int_equal(cna_gl_model_create(gl, a, &ga, &err), CNA_OK);
    assert_drawn(gl, ga, a, SEEN);
    cna_gl_model_free(ga);
    const void *a_address = a;
    cna_model_free(a);
    arena.used = 0;
    cna_model *b = NULL;
    assert_int_equal(cna_model_load_file(b_path, &o, &b, &err), CNA_OK);
    assert_ptr_equal(b, a_address);
    cna_gl_model *gb = NULL;
    assert_int_equal(cna_gl_model_create(gl, b, &gb, &err), CNA_OK);
    assert_drawn(gl, gb, b, SEEN_TURNED);
    cna_gl_model_free(gb);
    /* b's textures uploaded without a gl model, released, b freed; a loaded
     * at the same address again */
    size_t failed = 1;
    assert_int_equal(cna_gl_upload_model_textures(gl, b, &failed, &err), CNA_OK);
    assert_int_equal(failed, 0);
    cna_gl_release_model_textures(gl, b);
    cna_model_free(b);
    arena.used = 0;
    assert_int_equal(cna_model_load_file(a_path, &o, &a, &err), CNA_OK);
    assert_ptr_equal(a, a_address);
    assert_int_equal(cna_gl_model_create(gl, a, &ga, &err), CNA_OK);
    assert_drawn(gl, ga, a, SEEN);
    cna_gl_model_free(ga);
    cna_model_free(a);
    cna_gl_context_free(gl);
    free(arena.block);
}

int main(void)
{
    keep_mesa_driver_loaded();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(external_png_texture_is_sampled_at_texcoord_0),
        cmocka_unit_test(data_uri_texture_is_multiplied_by_the_factor),
        cmocka_unit_test(undecodable_image_draws_with_the_factor_alone),
        cmocka_unit_test(missing_external_image_draws_with_the_factor_alone),
        cmocka_unit_test(two_models_with_the_same_image_index_draw_their_own_textures),
        cmocka_unit_test(a_model_loaded_where_a_freed_one_was_draws_its_own_textures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
