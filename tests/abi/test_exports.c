/*
 * The shared libraries' public boundary: the runtime, libcna.so, and the
 * importer, libcna_gltf.so, export between them exactly the functions that
 * include/cna/ declares with CNA_API (cna/export.h), each exactly once, and
 * nothing else — no internal cna__ function, no name without the cna_ prefix,
 * and no public function left hidden by a forgotten CNA_API. The runtime
 * depends on no library of the importer's (cJSON, meshoptimizer, Draco, the
 * C++ runtime): its dynamic section names none of them.
 *
 * The exports are read with `nm -D --defined-only` (binutils) from the libraries
 * this build made, CNA_SHARED_LIBRARY and CNA_GLTF_SHARED_LIBRARY, the
 * dependencies with `objdump -p`; the declarations from the headers in
 * CNA_INCLUDE_DIR, where each function declaration starts a line, and must
 * start it with "CNA_API". cna/gl.h declares cna_gl's functions (a separate library) and
 * cna/export.h defines the mark itself: neither is read here.
 *
 * Each function is exported by the library its header says: the importer's headers
 * (cna/import.h, cna/gltf.h, cna/clips.h) declare libcna_gltf's functions only; cna/baked.h
 * declares the runtime's .cnb reader (cna_cnb_is_cnb, cna_cnb_load_*) and the importer's
 * writers and .cnj sidecar functions; every other header declares the runtime's only.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define MAX_NAMES 1024
#define MAX_NAME 128

typedef struct name_set {
    size_t count;
    char names[MAX_NAMES][MAX_NAME];
    char where[MAX_NAMES][MAX_NAME]; /* the header (declarations) or nm's type letter */
} name_set;

static int cmp_names(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

static void add_name(name_set *set, const char *name, size_t len, const char *where)
{
    if (len == 0 || len >= MAX_NAME) fail_msg("name of %zu characters (from %s)", len, where);
    if (set->count == MAX_NAMES) fail_msg("more than %d names", MAX_NAMES);
    memcpy(set->names[set->count], name, len);
    set->names[set->count][len] = '\0';
    snprintf(set->where[set->count], MAX_NAME, "%s", where);
    set->count++;
}

static int find_name(const name_set *set, const char *name)
{
    for (size_t i = 0; i < set->count; i++)
        if (strcmp(set->names[i], name) == 0) return (int)i;
    return -1;
}

/* The defined dynamic symbols of the shared library, as `nm -D --defined-only` lists them
 * ("ADDRESS TYPE NAME[@VERSION]"). */
static void read_exports_of(name_set *set, const char *library)
{
    char command[1024];
    snprintf(command, sizeof command, "nm -D --defined-only '%s' 2>&1", library);
    FILE *p = popen(command, "r");
    if (!p) fail_msg("cannot run nm on %s", library);
    char line[512];
    while (fgets(line, sizeof line, p)) {
        char address[64], type[8], name[MAX_NAME * 2];
        if (sscanf(line, "%63s %7s %255s", address, type, name) != 3) {
            pclose(p);
            fail_msg("unexpected nm output line: %s", line);
        }
        add_name(set, name, strcspn(name, "@"), type);
    }
    int status = pclose(p);
    if (status != 0) fail_msg("nm -D --defined-only %s failed (status %d)", library, status);
}

/* The exports of both libraries. */
static void read_exports(name_set *set)
{
    read_exports_of(set, CNA_SHARED_LIBRARY);
    read_exports_of(set, CNA_GLTF_SHARED_LIBRARY);
}

/* The whole file, its comments blanked (newlines kept), NUL-terminated; the caller frees it. */
static char *read_without_comments(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open %s", path);
    size_t cap = 1 << 16, len = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    size_t got;
    while ((got = fread(text + len, 1, cap - 1 - len, f)) > 0) {
        len += got;
        if (len == cap - 1) {
            char *bigger = realloc(text, cap * 2);
            assert_non_null(bigger);
            text = bigger;
            cap *= 2;
        }
    }
    fclose(f);
    text[len] = '\0';
    for (char *c = text; *c; c++) {
        if (c[0] == '/' && c[1] == '*') {
            char *close = strstr(c + 2, "*/");
            if (!close) fail_msg("%s: unterminated comment", path);
            for (; c < close + 2; c++)
                if (*c != '\n') *c = ' ';
            c--;
        } else if (c[0] == '/' && c[1] == '/') {
            for (; *c && *c != '\n'; c++) *c = ' ';
            c--;
        }
    }
    return text;
}

/* The functions declared in every header of the core library. A declaration starts at
 * the beginning of a line (continuation lines are indented, members and enumerators too),
 * outside comments, with a type, and has its '(' on that line; each must start with
 * CNA_API, or it is reported in *unmarked. */
static void read_declarations(name_set *set, size_t *unmarked)
{
    DIR *dir = opendir(CNA_INCLUDE_DIR);
    if (!dir) fail_msg("cannot open %s", CNA_INCLUDE_DIR);
    struct dirent *entry;
    size_t headers = 0;
    *unmarked = 0;
    while ((entry = readdir(dir)) != NULL) {
        const char *file = entry->d_name;
        size_t len = strlen(file);
        if (len < 3 || strcmp(file + len - 2, ".h") != 0) continue;
        if (strcmp(file, "gl.h") == 0 || strcmp(file, "export.h") == 0) continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", CNA_INCLUDE_DIR, file);
        char *text = read_without_comments(path);
        headers++;
        for (char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
            const size_t line_len = strcspn(line, "\n");
            if (!(isalpha((unsigned char)line[0]) || line[0] == '_')) continue;
            if (strncmp(line, "typedef", 7) == 0) continue;
            const char *paren = memchr(line, '(', line_len);
            if (!paren) continue;
            const char *end = paren;
            while (end > line && end[-1] == ' ') end--;
            const char *begin = end;
            while (begin > line && (isalnum((unsigned char)begin[-1]) || begin[-1] == '_')) begin--;
            if (strncmp(line, "CNA_API ", 8) != 0) {
                print_error("cna/%s: declared without CNA_API: %.*s\n", file, (int)line_len, line);
                (*unmarked)++;
            }
            add_name(set, begin, (size_t)(end - begin), file);
        }
        free(text);
    }
    closedir(dir);
    if (headers < 10) fail_msg("only %zu headers found in %s", headers, CNA_INCLUDE_DIR);
}

/* The library that must export a function `name` declared in cna/`header`: the first rule
 * whose header is `header` (or "" for any) and whose prefix starts `name` decides. */
typedef struct header_rule {
    const char *header;
    const char *prefix;
    const char *library; /* "libcna" or "libcna_gltf" */
} header_rule;

static const header_rule header_rules[] = {
    {"baked.h", "cna_cnb_is_cnb", "libcna"},   {"baked.h", "cna_cnb_load_", "libcna"},
    {"baked.h", "", "libcna_gltf"},           {"import.h", "", "libcna_gltf"},
    {"gltf.h", "", "libcna_gltf"},            {"clips.h", "", "libcna_gltf"},
    {"", "", "libcna"},
};

static const char *library_of(const char *header, const char *name)
{
    for (size_t i = 0; i < sizeof header_rules / sizeof header_rules[0]; i++) {
        const header_rule *r = &header_rules[i];
        if ((r->header[0] == '\0' || strcmp(r->header, header) == 0) &&
            strncmp(name, r->prefix, strlen(r->prefix)) == 0)
            return r->library;
    }
    return "libcna";
}

static void test_each_header_declares_the_functions_of_its_library(void **state)
{
    (void)state;
    static name_set runtime, importer, declared;
    size_t unmarked;
    read_exports_of(&runtime, CNA_SHARED_LIBRARY);
    read_exports_of(&importer, CNA_GLTF_SHARED_LIBRARY);
    read_declarations(&declared, &unmarked);
    assert_true(runtime.count > 0);
    assert_true(importer.count > 0);
    size_t wrong = 0, importer_declared = 0;
    for (size_t i = 0; i < declared.count; i++) {
        const char *name = declared.names[i];
        const char *want = library_of(declared.where[i], name);
        const bool in_runtime = find_name(&runtime, name) >= 0;
        const bool in_importer = find_name(&importer, name) >= 0;
        const bool is_importer = strcmp(want, "libcna_gltf") == 0;
        importer_declared += is_importer;
        if (is_importer ? !in_importer : !in_runtime) {
            print_error("cna/%s declares %s, which %s should export (libcna: %s, libcna_gltf: %s)\n",
                        declared.where[i], name, want, in_runtime ? "exported" : "not exported",
                        in_importer ? "exported" : "not exported");
            wrong++;
        }
    }
    assert_int_equal(wrong, 0);
    /* Every export of the importer is one of the functions its headers declare. */
    assert_int_equal(importer.count, importer_declared);
    assert_int_equal(runtime.count, declared.count - importer_declared);
}

static void test_shared_library_exports_only_public_cna_names(void **state)
{
    (void)state;
    static name_set exports;
    read_exports(&exports);
    assert_true(exports.count > 0);
    size_t bad = 0;
    for (size_t i = 0; i < exports.count; i++) {
        const char *n = exports.names[i];
        if (strncmp(n, "cna_", 4) != 0 || strncmp(n, "cna__", 5) == 0) {
            print_error("exported but not a public name: %s (nm type %s)\n", n, exports.where[i]);
            bad++;
        }
    }
    assert_int_equal(bad, 0);
}

static void test_every_export_is_declared_and_every_declaration_exported(void **state)
{
    (void)state;
    static name_set exports, declared;
    size_t unmarked;
    read_exports(&exports);
    read_declarations(&declared, &unmarked);
    assert_true(declared.count > 0);
    size_t undeclared = 0, hidden = 0, twice = 0;
    for (size_t i = 0; i < exports.count; i++)
        if (find_name(&declared, exports.names[i]) < 0) {
            print_error("exported but declared with CNA_API in no header: %s\n", exports.names[i]);
            undeclared++;
        }
    for (size_t i = 0; i < declared.count; i++)
        if (find_name(&exports, declared.names[i]) < 0) {
            print_error("declared in cna/%s but not exported: %s\n", declared.where[i], declared.names[i]);
            hidden++;
        }
    qsort(declared.names, declared.count, MAX_NAME, cmp_names);
    for (size_t i = 1; i < declared.count; i++)
        if (strcmp(declared.names[i - 1], declared.names[i]) == 0) {
            print_error("declared twice with CNA_API: %s\n", declared.names[i]);
            twice++;
        }
    qsort(exports.names, exports.count, MAX_NAME, cmp_names);
    for (size_t i = 1; i < exports.count; i++)
        if (strcmp(exports.names[i - 1], exports.names[i]) == 0) {
            print_error("exported by both libraries: %s\n", exports.names[i]);
            twice++;
        }
    assert_int_equal(unmarked, 0);
    assert_int_equal(undeclared, 0);
    assert_int_equal(hidden, 0);
    assert_int_equal(twice, 0);
    assert_int_equal(exports.count, declared.count);
}

/* The libraries libcna.so needs (objdump -p's NEEDED lines): none of the
 * importer's (cJSON, meshoptimizer, Draco, the C++ runtime); the C library,
 * libm, cglm (whose functions a build that does not inline calls) and a
 * sanitizer build's runtimes are allowed. */
static void test_runtime_needs_none_of_the_importer_libraries(void **state)
{
    (void)state;
    FILE *p = popen("objdump -p '" CNA_SHARED_LIBRARY "' 2>&1", "r");
    if (!p) fail_msg("cannot run objdump on %s", CNA_SHARED_LIBRARY);
    char line[512];
    size_t needed = 0, foreign = 0;
    while (fgets(line, sizeof line, p)) {
        char tag[64], lib[256];
        if (sscanf(line, " %63s %255s", tag, lib) != 2 || strcmp(tag, "NEEDED") != 0) continue;
        needed++;
        static const char *const allowed[] = {"libc.so",   "libm.so",    "ld-linux", "libpthread.so",
                                              "libcglm.so", "libasan.so", "libubsan.so"};
        bool ok = false;
        for (size_t k = 0; k < sizeof allowed / sizeof allowed[0]; k++)
            ok = ok || strncmp(lib, allowed[k], strlen(allowed[k])) == 0;
        if (!ok) {
            print_error("libcna.so needs %s\n", lib);
            foreign++;
        }
    }
    assert_int_equal(pclose(p), 0);
    assert_true(needed >= 1);
    assert_int_equal(foreign, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_library_exports_only_public_cna_names),
        cmocka_unit_test(test_every_export_is_declared_and_every_declaration_exported),
        cmocka_unit_test(test_each_header_declares_the_functions_of_its_library),
        cmocka_unit_test(test_runtime_needs_none_of_the_importer_libraries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
