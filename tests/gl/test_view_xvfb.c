/*
 * `cna view` opens a window and shows the model: start
 * Xvfb on a free display (-nolisten tcp), run
 *   cna view robot.glb --size 320x240 --frames 3 --screenshot OUT.png
 * with DISPLAY set, and check that the screenshot is the window's size and
 * that a fair share of it (>= 3%) differs from the viewer's background
 * (0.16, 0.18, 0.22 -> 41, 46, 56). Fails (never skips) when Xvfb cannot be
 * started: scripts/setup.sh installs it. Under AddressSanitizer the child
 * runs with leak detection and no suppressions (tools/view.c keeps Mesa's DRI
 * driver mapped in sanitizer builds).
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

static void view_screenshot_under_xvfb_shows_the_model(void **state)
{
    (void)state;
    char out[1024], model[1024], cna[1024], display_env[32];
    snprintf(out, sizeof out, "%s/test_view_xvfb.png", CNA_BINARY_DIR);
    snprintf(model, sizeof model, "%s/corpus/valid/RobotExpressive/robot.glb", CNA_TEST_DATA_DIR);
    snprintf(cna, sizeof cna, "%s/cna", CNA_BINARY_DIR);
    remove(out);

    int display = 0;
    pid_t xvfb = start_xvfb(&display);
    snprintf(display_env, sizeof display_env, "DISPLAY=:%d", display);
    char *env[] = {display_env, NULL};
    char *argv[] = {cna, (char *)"view", model, (char *)"--size", (char *)"320x240", (char *)"--frames",
                    (char *)"3", (char *)"--screenshot", out, NULL};
    pid_t pid = 0;
    int rc = posix_spawn(&pid, cna, NULL, NULL, argv, env);
    int st = 0;
    if (rc == 0) waitpid(pid, &st, 0);
    stop_xvfb(xvfb);
    if (rc != 0) fail_msg("posix_spawn %s: %s", cna, strerror(rc));
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);

    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    assert_true(png_image_begin_read_from_file(&image, out));
    image.format = PNG_FORMAT_RGBA;
    assert_int_equal(image.width, 320);
    assert_int_equal(image.height, 240);
    unsigned char *px = malloc(PNG_IMAGE_SIZE(image));
    assert_non_null(px);
    assert_true(png_image_finish_read(&image, NULL, px, 0, NULL));
    size_t drawn = 0, n = (size_t)image.width * image.height;
    for (size_t i = 0; i < n; i++) {
        const unsigned char *p = px + i * 4;
        if (abs(p[0] - 41) + abs(p[1] - 46) + abs(p[2] - 56) > 24) drawn++;
    }
    free(px);
    if (drawn * 100 < n * 3) fail_msg("only %zu of %zu pixels differ from the background", drawn, n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(view_screenshot_under_xvfb_shows_the_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
