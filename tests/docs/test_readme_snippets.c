/*
 * README.md's C code compiles as written: every ```c block is extracted and
 * compiled (warnings as errors) against the public headers. A block that
 * defines functions is compiled as it is; a fragment of statements would be
 * wrapped in a function, but the README has none, so a block without a
 * function definition fails the test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s) s[n] = '\0';
    fclose(f);
    return s;
}

static void every_c_block_of_the_readme_compiles(void **state)
{
    (void)state;
    char *readme = slurp(CNA_SOURCE_DIR "/README.md");
    assert_non_null(readme);
    size_t blocks = 0;
    for (char *p = strstr(readme, "\n```c\n"); p; p = strstr(p, "\n```c\n")) {
        char *code = p + 6;
        char *end = strstr(code, "\n```");
        assert_non_null(end);
        *end = '\0';
        blocks++;
        if (!strstr(code, ")\n{")) fail_msg("README block %zu defines no function:\n%s", blocks, code);
        char dir[] = "/tmp/cna-readme-XXXXXX";
        assert_non_null(mkdtemp(dir));
        char path[64];
        snprintf(path, sizeof path, "%s/block.c", dir);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(code, f);
        fputc('\n', f);
        fclose(f);
        char cmd[4096];
        snprintf(cmd, sizeof cmd,
                 "'%s' -std=c11 -Wall -Wextra -Werror -Wno-unused-function -fsyntax-only -I'%s/include' '%s' 2>&1",
                 CNA_C_COMPILER, CNA_SOURCE_DIR, path);
        FILE *out = popen(cmd, "r");
        assert_non_null(out);
        char log[8192];
        size_t got = fread(log, 1, sizeof log - 1, out);
        log[got] = '\0';
        int status = pclose(out);
        unlink(path);
        rmdir(dir);
        if (status != 0) fail_msg("README block %zu does not compile:\n%s\n%s", blocks, code, log);
        p = end + 1;
    }
    assert_true(blocks >= 4); /* the character, drawing, crowd and player examples */
    free(readme);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_c_block_of_the_readme_compiles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
