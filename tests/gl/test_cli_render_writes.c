/*
 * What `cna render` and cna_gl_write_png write: the PNG and the GIF get the
 * mode the umask gives (0644 under 022, 0600 under 077, also when replacing a
 * file); an output that is the model, one of its buffers or images, or the
 * other output is refused with exit 1 and the inputs unchanged; a failed
 * write names the system's reason (a missing folder, the full device
 * /dev/full); a PNG write failing at any step (the core's test hook) keeps
 * the previous file and leaves no temporary file.
 */
#include <errno.h>
#include <png.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "cna/gl.h"
#include "core/internal.h"

#define CNA_EXE CNA_BINARY_DIR "/cna"
#define WORK CNA_BINARY_DIR "/test_cli_render_writes.tmp"
#define MORPH CNA_TEST_DATA_DIR "/corpus/valid/SimpleMorph"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *t = malloc((size_t)n + 1);
    assert_non_null(t);
    size_t got = fread(t, 1, (size_t)n, f);
    t[got] = 0;
    fclose(f);
    return t;
}

/* Run `umask UMASK; cna ARGS > WORK/out 2> WORK/err`; the exit code. */
static int run(const char *umask_text, const char *args)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "umask %s; %s %s > %s/out 2> %s/err", umask_text, CNA_EXE, args, WORK, WORK);
    int status = system(cmd);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int setup(void **state)
{
    (void)state;
    return system("rm -rf " WORK " && mkdir -p " WORK "/in && cp " MORPH "/* " WORK "/in/") == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    cna__file_set_test_hook(NULL, NULL);
    return system("rm -rf " WORK) == 0 ? 0 : -1;
}

static unsigned mode_of(const char *path)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return (unsigned)(st.st_mode & 07777);
}

static char *list_dir(const char *dir)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | LC_ALL=C sort | tr '\\n' ' ' > %s.list", dir, WORK);
    assert_int_equal(system(cmd), 0);
    char *names = slurp(WORK ".list");
    unlink(WORK ".list");
    return names;
}

static void assert_same_bytes(const char *a, const char *b)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s'", a, b);
    if (system(cmd) != 0) fail_msg("%s differs from %s", a, b);
}

static void png_and_gif_get_the_mode_the_umask_gives(void **state)
{
    (void)state;
    const char *render = "render " WORK "/in/SimpleMorph.gltf --size 32x24";
    char args[4096];
#ifdef CNA_TEST_HAVE_GIF
    snprintf(args, sizeof args, "%s -o %s/a.png --gif %s/a.gif --frames 2", render, WORK, WORK);
    assert_int_equal(run("022", args), 0);
    assert_int_equal(mode_of(WORK "/a.png"), 0644);
    assert_int_equal(mode_of(WORK "/a.gif"), 0644);
    char *gif = slurp(WORK "/a.gif");
    assert_memory_equal(gif, "GIF89a", 6);
    free(gif);
    /* replaced under another umask: the new file's mode */
    assert_int_equal(run("077", args), 0);
    assert_int_equal(mode_of(WORK "/a.png"), 0600);
    assert_int_equal(mode_of(WORK "/a.gif"), 0600);
    snprintf(args, sizeof args, "%s -o %s/b.png --gif %s/b.gif --frames 2", render, WORK, WORK);
    assert_int_equal(run("077", args), 0);
    assert_int_equal(mode_of(WORK "/b.png"), 0600);
    assert_int_equal(mode_of(WORK "/b.gif"), 0600);
    char *names = list_dir(WORK);
    assert_string_equal(names, "a.gif a.png b.gif b.png err in out ");
    free(names);
#else
    snprintf(args, sizeof args, "%s --gif %s/a.gif", render, WORK);
    assert_int_equal(run("022", args), 1);
    char *err = slurp(WORK "/err");
    assert_non_null(strstr(err, "this cna was built without giflib"));
    free(err);
    snprintf(args, sizeof args, "%s -o %s/a.png", render, WORK);
    assert_int_equal(run("022", args), 0);
    assert_int_equal(mode_of(WORK "/a.png"), 0644);
    assert_int_equal(run("077", args), 0);
    assert_int_equal(mode_of(WORK "/a.png"), 0600);
#endif
}

static void expect_refused(const char *args, const char *message)
{
    assert_int_equal(run("022", args), 1);
    char *err = slurp(WORK "/err");
    assert_non_null(err);
    assert_string_equal(err, message);
    free(err);
}

static void an_output_naming_an_input_or_the_other_output_is_refused(void **state)
{
    (void)state;
    /* links without an extension (render refuses other extensions first) */
    assert_int_equal(system("ln -sf SimpleMorph.gltf " WORK "/in/model-link && ln -sf simpleMorphGeometry.bin " WORK
                            "/in/geometry-link && ln -sf simpleMorphAnimation.bin " WORK "/in/animation-link"),
                     0);
    char *before = list_dir(WORK "/in");
    const char *model = WORK "/in/SimpleMorph.gltf";
    static const struct {
        const char *out, *what, *file;
    } cases[] = {
        {WORK "/in/model-link", "the input model", WORK "/in/SimpleMorph.gltf"},
        {WORK "/in/./geometry-link", "buffers[0] of the input model", WORK "/in/simpleMorphGeometry.bin"},
        {WORK "/in/animation-link", "buffers[1] of the input model", WORK "/in/simpleMorphAnimation.bin"},
    };
    char args[4096], message[4096];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(message, sizeof message, "error: %s: is the same file as %s \"%s\"; nothing was written\n",
                 cases[i].out, cases[i].what, cases[i].file);
        snprintf(args, sizeof args, "render %s --size 32x24 -o %s", model, cases[i].out);
        expect_refused(args, message);
        snprintf(args, sizeof args, "render %s --size 32x24 --gif %s", model, cases[i].out);
        expect_refused(args, message);
    }
    snprintf(args, sizeof args, "render %s --size 32x24 -o %s/c --gif %s/in/../c", model, WORK, WORK);
    snprintf(message, sizeof message,
             "error: %s/in/../c: is the same file as the -o output \"%s/c\"; nothing was written\n", WORK,
             WORK);
    expect_refused(args, message);
    struct stat st;
    assert_int_not_equal(stat(WORK "/c", &st), 0);
    static const char *files[] = {"SimpleMorph.gltf", "simpleMorphGeometry.bin", "simpleMorphAnimation.bin"};
    for (size_t i = 0; i < 3; i++) {
        char a[1024], b[1024];
        snprintf(a, sizeof a, "%s/in/%s", WORK, files[i]);
        snprintf(b, sizeof b, "%s/%s", MORPH, files[i]);
        assert_same_bytes(a, b);
    }
    char *after = list_dir(WORK "/in");
    assert_string_equal(after, before);
    free(after);
    free(before);
    /* an image of the model */
    const char *stress = CNA_TEST_DATA_DIR "/corpus/valid/MorphStressTest";
    assert_int_equal(system("mkdir -p " WORK "/stress && cp " CNA_TEST_DATA_DIR "/corpus/valid/MorphStressTest/* "
                            WORK "/stress/"), 0);
    snprintf(args, sizeof args, "render %s/stress/MorphStressTest.gltf --size 32x24 -o %s/stress/TinyGrid.png",
             WORK, WORK);
    snprintf(message, sizeof message,
             "error: %s/stress/TinyGrid.png: is the same file as images[1] of the input model "
             "\"%s/stress/TinyGrid.png\"; nothing was written\n",
             WORK, WORK);
    expect_refused(args, message);
    char a[1024], b[1024];
    snprintf(a, sizeof a, "%s/stress/TinyGrid.png", WORK);
    snprintf(b, sizeof b, "%s/TinyGrid.png", stress);
    assert_same_bytes(a, b);
}

static void a_png_that_cannot_be_written_is_reported_with_the_reason(void **state)
{
    (void)state;
    char args[4096], message[4096];
    snprintf(args, sizeof args, "render %s/in/SimpleMorph.gltf --size 32x24 -o %s/none/x.png", WORK, WORK);
    snprintf(message, sizeof message,
             "error: %s/none/x.png: cannot create a temporary file in \"%s/none\": No such file or directory\n",
             WORK, WORK);
    expect_refused(args, message);
    /* a full device (written in place, never renamed over): the output and
     * the system's reason, its one cause */
    snprintf(args, sizeof args, "render %s/in/SimpleMorph.gltf --size 32x24 -o /dev/full", WORK);
    snprintf(message, sizeof message, "error: /dev/full: write failed: No space left on device\n");
    expect_refused(args, message);
#ifdef CNA_TEST_HAVE_GIF
    snprintf(args, sizeof args, "render %s/in/SimpleMorph.gltf --size 32x24 --gif /dev/full --frames 2", WORK);
    expect_refused(args, message);
#endif
}

typedef struct fault {
    cna__file_step step;
    int error, calls;
} fault;

static int fault_hook(void *user_data, cna__file_step step, const char *temp)
{
    (void)temp;
    fault *f = (fault *)user_data;
    return step == f->step && ++f->calls == 1 ? f->error : 0;
}

static void a_failing_png_write_keeps_the_previous_file(void **state)
{
    (void)state;
    unsigned char red[4 * 4 * 4], blue[4 * 4 * 4];
    for (size_t i = 0; i < sizeof red; i += 4) {
        red[i] = 255, red[i + 1] = 0, red[i + 2] = 0, red[i + 3] = 255;
        blue[i] = 0, blue[i + 1] = 0, blue[i + 2] = 255, blue[i + 3] = 255;
    }
    assert_int_equal(system("mkdir -p " WORK "/png"), 0);
    cna_error err;
    assert_int_equal(cna_gl_write_png(WORK "/png/p.png", 4, 4, red, &err), CNA_OK);
    assert_int_equal(system("cp " WORK "/png/p.png " WORK "/p.copy"), 0);
    static const struct {
        cna__file_step step;
        int error;
        const char *message;
    } cases[] = {
        {CNA__FILE_STEP_OPEN, ENOSPC, "cannot create a temporary file in \"" WORK "/png\": No space left on device"},
        {CNA__FILE_STEP_WRITE, ENOSPC, "write failed: No space left on device"},
        {CNA__FILE_STEP_SYNC, EIO, "write failed: Input/output error"},
        {CNA__FILE_STEP_CLOSE, EIO, "write failed: Input/output error"},
        {CNA__FILE_STEP_RENAME, EPERM, "rename failed: Operation not permitted"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fault f = {cases[i].step, cases[i].error, 0};
        cna__file_set_test_hook(fault_hook, &f);
        assert_int_equal(cna_gl_write_png(WORK "/png/p.png", 4, 4, blue, &err), CNA_ERROR_IO);
        cna__file_set_test_hook(NULL, NULL);
        char expected[1024];
        snprintf(expected, sizeof expected, "%s/png/p.png: %s", WORK, cases[i].message);
        assert_string_equal(err.message, expected);
        assert_same_bytes(WORK "/png/p.png", WORK "/p.copy");
        char *names = list_dir(WORK "/png");
        assert_string_equal(names, "p.png ");
        free(names);
    }
    assert_int_equal(cna_gl_write_png(WORK "/png/p.png", 4, 4, blue, &err), CNA_OK);
    assert_int_not_equal(system("cmp -s " WORK "/png/p.png " WORK "/p.copy"), 0);
}

/* A pipe through /dev/stdout gets the PNG a file gets (the "wrote" line on
 * stderr), a folder is named as such, and --size reaches CNA_GL_MAX_SIZE
 * and no further. */
static void pipes_folders_and_the_largest_size(void **state)
{
    (void)state;
    char args[4096], cmd[8192];
    snprintf(args, sizeof args, "render %s/in/SimpleMorph.gltf --size 32x24 -o %s/file.png", WORK, WORK);
    assert_int_equal(run("022", args), 0);
    snprintf(cmd, sizeof cmd, "%s render %s/in/SimpleMorph.gltf --size 32x24 -o /dev/stdout 2> %s/err | cat > %s/piped.png",
             CNA_EXE, WORK, WORK, WORK);
    assert_int_equal(system(cmd), 0);
    assert_same_bytes(WORK "/file.png", WORK "/piped.png");
    char *err = slurp(WORK "/err");
    assert_string_equal(err, "wrote /dev/stdout (32x24)\n");
    free(err);
    assert_int_equal(system("mkdir -p " WORK "/folder"), 0);
    char message[4096];
    snprintf(args, sizeof args, "render %s/in/SimpleMorph.gltf -o %s/folder", WORK, WORK);
    snprintf(message, sizeof message,
             "error: %s/folder: is a directory; -o names the file to write; nothing was written\n", WORK);
    expect_refused(args, message);
    snprintf(args, sizeof args, "render %s/in/SimpleMorph.gltf --gif %s/folder", WORK, WORK);
    snprintf(message, sizeof message,
             "error: %s/folder: is a directory; --gif names the file to write; nothing was written\n", WORK);
    expect_refused(args, message);
    char size[32];
    snprintf(size, sizeof size, "%dx2", CNA_GL_MAX_SIZE);
    snprintf(args, sizeof args, "render %s/in/SimpleMorph.gltf --size %s -o %s/wide.png", WORK, size, WORK);
    assert_int_equal(run("022", args), 0);
    char *out = slurp(WORK "/out");
    snprintf(message, sizeof message, "wrote %s/wide.png (%dx2)\n", WORK, CNA_GL_MAX_SIZE);
    assert_string_equal(out, message);
    free(out);
    snprintf(args, sizeof args, "render %s/in/SimpleMorph.gltf --size %dx1 -o %s/wide.png", WORK, CNA_GL_MAX_SIZE + 1,
             WORK);
    assert_int_equal(run("022", args), 2);
    err = slurp(WORK "/err");
    snprintf(message, sizeof message, "cna render: --size: '%dx1' is not WxH with sides 1 to %d (CNA_GL_MAX_SIZE)\n",
             CNA_GL_MAX_SIZE + 1, CNA_GL_MAX_SIZE);
    assert_true(strncmp(err, message, strlen(message)) == 0);
    free(err);
}

/* The RGBA pixels of a PNG (libpng's simplified API); w and h set. */
static unsigned char *read_png(const char *path, uint32_t *w, uint32_t *h)
{
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    assert_true(png_image_begin_read_from_file(&image, path) != 0);
    image.format = PNG_FORMAT_RGBA;
    unsigned char *px = malloc(PNG_IMAGE_SIZE(image));
    assert_non_null(px);
    assert_true(png_image_finish_read(&image, NULL, px, 0, NULL) != 0);
    *w = image.width;
    *h = image.height;
    return px;
}

static bool pixel_is(const unsigned char *px, uint32_t w, uint32_t x, uint32_t y, int r, int g, int b)
{
    const unsigned char *p = px + ((size_t)y * w + x) * 4;
    return p[0] == r && p[1] == g && p[2] == b;
}

static size_t count_colour(const unsigned char *px, uint32_t w, uint32_t h, int r, int g, int b)
{
    size_t n = 0;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) n += pixel_is(px, w, x, y, r, g, b);
    return n;
}

/* An animation-only file (three nodes in a chain, no mesh) draws its
 * skeleton with a note: seen from (0, 1, 5), joint "mid" at (0, 1, 0) is the
 * centre pixel, the bone down to "root" at (0, 0, 0) runs below it, the
 * corner stays background. --bones draws the skeleton over a model. */
static void nothing_to_draw_draws_the_skeleton_and_bones_overlays_it(void **state)
{
    (void)state;
    FILE *f = fopen(WORK "/anim.gltf", "w");
    assert_non_null(f);
    fputs("{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"name\":\"root\","
          "\"children\":[1]},{\"name\":\"mid\",\"translation\":[0,1,0],\"children\":[2]},{\"name\":\"tip\","
          "\"translation\":[0,1,0]}],\"buffers\":[{\"byteLength\":32,\"uri\":\"data:application/octet-stream;base64,"
          "AAAAAAAAgD8AAAAAAAAAAAAAAAAAAIA/AAAAAAAAAAA=\"}],\"bufferViews\":[{\"buffer\":0,\"byteLength\":8},"
          "{\"buffer\":0,\"byteOffset\":8,\"byteLength\":24}],\"accessors\":[{\"bufferView\":0,\"componentType\":5126,"
          "\"count\":2,\"type\":\"SCALAR\",\"min\":[0],\"max\":[1]},{\"bufferView\":1,\"componentType\":5126,"
          "\"count\":2,\"type\":\"VEC3\"}],\"animations\":[{\"name\":\"slide\",\"samplers\":[{\"input\":0,"
          "\"output\":1}],\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}}]}]}\n",
          f);
    fclose(f);
    char args[4096], message[4096];
    snprintf(args, sizeof args, "render %s/anim.gltf --size 64x48 --look-at 0,1,5,0,1,0 -o %s/skeleton.png", WORK, WORK);
    assert_int_equal(run("022", args), 0);
    char *err = slurp(WORK "/err");
    snprintf(message, sizeof message,
             "note: %s/anim.gltf: nothing to draw (no mesh with triangles, lines or points); drawing its skeleton: "
             "3 bones as lines, joints as points\n",
             WORK);
    assert_string_equal(err, message);
    free(err);
    uint32_t w = 0, h = 0;
    unsigned char *px = read_png(WORK "/skeleton.png", &w, &h);
    assert_int_equal(w, 64);
    assert_int_equal(h, 48);
    assert_true(pixel_is(px, w, 32, 24, 255, 64, 64));   /* joint "mid" */
    assert_true(pixel_is(px, w, 32, 30, 255, 210, 64));  /* the bone mid -> root, root at row 35.6 */
    assert_true(pixel_is(px, w, 32, 36, 255, 64, 64));   /* joint "root" */
    assert_false(pixel_is(px, w, 0, 0, 255, 64, 64));
    assert_false(pixel_is(px, w, 0, 0, 255, 210, 64));
    free(px);
    /* --bones over a model: joints drawn where none were */
    snprintf(args, sizeof args, "render %s/in/SimpleMorph.gltf --size 64x48 -o %s/plain.png", WORK, WORK);
    assert_int_equal(run("022", args), 0);
    snprintf(args, sizeof args, "render %s/in/SimpleMorph.gltf --size 64x48 --bones -o %s/bones.png", WORK, WORK);
    assert_int_equal(run("022", args), 0);
    err = slurp(WORK "/err");
    assert_string_equal(err, "");
    free(err);
    px = read_png(WORK "/plain.png", &w, &h);
    assert_int_equal(count_colour(px, w, h, 255, 64, 64), 0);
    free(px);
    px = read_png(WORK "/bones.png", &w, &h);
    assert_true(count_colour(px, w, h, 255, 64, 64) > 0);
    free(px);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(png_and_gif_get_the_mode_the_umask_gives, setup, teardown),
        cmocka_unit_test_setup_teardown(an_output_naming_an_input_or_the_other_output_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(a_png_that_cannot_be_written_is_reported_with_the_reason, setup, teardown),
        cmocka_unit_test_setup_teardown(a_failing_png_write_keeps_the_previous_file, setup, teardown),
        cmocka_unit_test_setup_teardown(pipes_folders_and_the_largest_size, setup, teardown),
        cmocka_unit_test_setup_teardown(nothing_to_draw_draws_the_skeleton_and_bones_overlays_it, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
