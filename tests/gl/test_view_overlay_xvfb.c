/*
 * `cna view --help-overlay` draws the key overlay over the model: under Xvfb
 * (started as in test_view_xvfb.c, on a free display with -nolisten tcp),
 *   cna view robot.glb --size 320x240 --frames 3 --screenshot OFF.png
 *   cna view robot.glb --size 320x240 --frames 3 --screenshot ON.png --help-overlay
 * and the two screenshots are compared:
 * - outside the panel they are identical (tolerance: no pixel differs in any
 *   channel; the frames use a fixed 1/60 s step, so both runs draw the same);
 * - inside it every pixel is either text (opaque white, 255,255,255) or the
 *   picture darkened to 40% (the panel is black at alpha 0.6): within 1 of
 *   0.4 x OFF per channel, alpha unchanged;
 * - the text lies in the rows of its lines: each of the 11 lines with text
 *   has white pixels within its 8 glyph rows, and none is found in the
 *   two-row gaps between lines, on the blank second line, or outside the
 *   text area.
 * The layout is view_overlay.h's at 320x240: the scale factor is 1
 * (min(320, 240) / 360 rounds down to 0), the panel starts at (8, 8), the
 * text at (14, 14), lines are 10 pixels apart and cells 6 wide. The key list
 * is 12 lines (the title, a blank line, 10 keys), the longest 37 characters,
 * so the text is 37 * 6 - 1 = 221 by 12 * 10 - 2 = 118 pixels and the panel
 * [8, 241) x [8, 138). Fails (never skips) when Xvfb cannot be started:
 * scripts/setup.sh installs it.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <png.h>

#include "gl/xvfb.h"

enum {
    WIDTH = 320,
    HEIGHT = 240,
    PANEL_X0 = 8,
    PANEL_Y0 = 8,
    PANEL_X1 = 241,
    PANEL_Y1 = 138,
    TEXT_X0 = 14,
    TEXT_Y0 = 14,
    TEXT_X1 = 14 + 221,
    LINE_H = 10,
    GLYPH_ROWS = 8,
    LINES = 12,
    BLANK_LINE = 1,
};

/* `cna view robot.glb --size 320x240 --frames 3 --screenshot out [--help-overlay]`; its exit status. */
static int run_view(const char *display_env, const char *out, bool overlay)
{
    char model[1024], cna[1024], env_display[32];
    snprintf(model, sizeof model, "%s/corpus/valid/RobotExpressive/robot.glb", CNA_TEST_DATA_DIR);
    snprintf(cna, sizeof cna, "%s/cna", CNA_BINARY_DIR);
    snprintf(env_display, sizeof env_display, "%s", display_env);
    char *env[] = {env_display, NULL};
    char *argv[] = {cna, (char *)"view", model, (char *)"--size", (char *)"320x240", (char *)"--frames", (char *)"3",
                    (char *)"--screenshot", (char *)out, overlay ? (char *)"--help-overlay" : NULL, NULL};
    pid_t pid = 0;
    int rc = posix_spawn(&pid, cna, NULL, NULL, argv, env);
    if (rc != 0) return -rc;
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static unsigned char *read_png(const char *path)
{
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&image, path)) fail_msg("%s: %s", path, image.message);
    image.format = PNG_FORMAT_RGBA;
    assert_int_equal(image.width, WIDTH);
    assert_int_equal(image.height, HEIGHT);
    unsigned char *px = malloc(PNG_IMAGE_SIZE(image));
    assert_non_null(px);
    assert_true(png_image_finish_read(&image, NULL, px, 0, NULL));
    return px;
}

static bool in_panel(int x, int y) { return x >= PANEL_X0 && x < PANEL_X1 && y >= PANEL_Y0 && y < PANEL_Y1; }

static void view_help_overlay_draws_the_keys_over_the_model(void **state)
{
    (void)state;
    char off[1024], on[1024], display_env[32];
    snprintf(off, sizeof off, "%s/test_view_overlay_off.png", CNA_BINARY_DIR);
    snprintf(on, sizeof on, "%s/test_view_overlay_on.png", CNA_BINARY_DIR);
    remove(off);
    remove(on);

    int display = 0;
    pid_t xvfb = start_xvfb(&display);
    snprintf(display_env, sizeof display_env, "DISPLAY=:%d", display);
    int st_off = run_view(display_env, off, false), st_on = run_view(display_env, on, true);
    stop_xvfb(xvfb);
    assert_int_equal(st_off, 0);
    assert_int_equal(st_on, 0);

    unsigned char *a = read_png(off), *b = read_png(on);
    size_t outside_diff = 0, bad_panel = 0, stray_text = 0, line_text[LINES] = {0};
    int worst = 0;
    for (int y = 0; y < HEIGHT; y++)
        for (int x = 0; x < WIDTH; x++) {
            const unsigned char *p = a + ((size_t)y * WIDTH + (size_t)x) * 4, *q = b + ((size_t)y * WIDTH + (size_t)x) * 4;
            if (!in_panel(x, y)) {
                if (memcmp(p, q, 4) != 0) outside_diff++;
                continue;
            }
            if (q[0] == 255 && q[1] == 255 && q[2] == 255 && q[3] == p[3]) {   /* text */
                int line = (y - TEXT_Y0) / LINE_H, row = (y - TEXT_Y0) % LINE_H;
                if (y < TEXT_Y0 || x < TEXT_X0 || x >= TEXT_X1 || line >= LINES || line == BLANK_LINE ||
                    row >= GLYPH_ROWS)
                    stray_text++;
                else
                    line_text[line]++;
                continue;
            }
            int err = abs(q[3] - p[3]) * 100;   /* alpha must be kept */
            for (int c = 0; c < 3; c++) {
                int e = abs(q[c] * 10 - p[c] * 4);   /* ten times |on - 0.4 off| */
                if (e > err) err = e;
            }
            if (err > worst) worst = err;
            if (err > 10) bad_panel++;
        }
    free(a);
    free(b);
    if (outside_diff) fail_msg("%zu pixels outside the panel differ", outside_diff);
    if (bad_panel) fail_msg("%zu panel pixels are not 40%% of the picture (worst %d/10)", bad_panel, worst);
    if (stray_text) fail_msg("%zu white pixels outside the text's glyph rows", stray_text);
    for (int i = 0; i < LINES; i++) {
        if (i == BLANK_LINE) continue;
        if (line_text[i] < 50) fail_msg("line %d has %zu white pixels", i, line_text[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(view_help_overlay_draws_the_keys_over_the_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
