/*
 * docs/format-cnb.md matches the writer and reader: its constants table, its
 * header field offsets, its section table (ids, names, record sizes) and
 * every record table (fields contiguous, summing to the record size the code
 * uses) and the version 2 record sizes are read from the document and
 * compared with src/baked/cnb_internal.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "baked/cnb_internal.h"

static char **doc_lines(size_t *count)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/../../docs/format-cnb.md", CNA_TEST_DATA_DIR);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char **lines = NULL;
    size_t n = 0, cap = 0;
    char buf[1024];
    while (fgets(buf, sizeof buf, f)) {
        if (n == cap) {
            cap = cap ? cap * 2 : 256;
            lines = realloc(lines, cap * sizeof *lines);
            assert_non_null(lines);
        }
        buf[strcspn(buf, "\n")] = 0;
        lines[n] = strdup(buf);
        assert_non_null(lines[n]);
        n++;
    }
    fclose(f);
    *count = n;
    return lines;
}

static void free_lines(char **lines, size_t n)
{
    for (size_t i = 0; i < n; i++) free(lines[i]);
    free(lines);
}

/* The value cell of "| name | value |" in the constants table, or NULL. */
static const char *constant(char **lines, size_t n, const char *name)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, "| %s | ", name);
    for (size_t i = 0; i < n; i++)
        if (strncmp(lines[i], prefix, strlen(prefix)) == 0) return lines[i] + strlen(prefix);
    return NULL;
}

static void constants_table_matches_the_code(void **state)
{
    (void)state;
    size_t n = 0;
    char **lines = doc_lines(&n);
    const char *magic = constant(lines, n, "magic");
    assert_non_null(magic);
    assert_non_null(strstr(magic, "`CNB\\0`"));
    assert_memory_equal(CNA__CNB_MAGIC, "CNB", 4);
    assert_int_equal(strtoul(constant(lines, n, "version"), NULL, 10), CNA__CNB_VERSION);
    assert_int_equal(strtoul(constant(lines, n, "header_size"), NULL, 10), CNA__CNB_HEADER_SIZE);
    assert_int_equal(strtoul(constant(lines, n, "section_entry_size"), NULL, 10), CNA__CNB_SECTION_ENTRY_SIZE);
    assert_int_equal(strtoul(constant(lines, n, "section_count"), NULL, 10), CNA__CNB_SECTION_COUNT);
    assert_int_equal(strtoul(constant(lines, n, "alignment"), NULL, 10), CNA__CNB_ALIGN);
    free_lines(lines, n);
}

static void section_table_matches_the_code(void **state)
{
    (void)state;
    size_t n = 0;
    char **lines = doc_lines(&n);
    int seen[CNA__CNB_SECTION_END] = {0};
    for (size_t i = 0; i < n; i++) {
        int id = 0;
        char name[32];
        unsigned size = 0;
        if (sscanf(lines[i], "| %d | %31[A-Z_] | %u |", &id, name, &size) != 3) continue;
        assert_true(id >= 1 && id < CNA__CNB_SECTION_END);
        assert_string_equal(name, cna__cnb_section_name[id]);
        assert_int_equal(size, cna__cnb_record_size[id]);
        seen[id]++;
    }
    for (int id = 1; id < CNA__CNB_SECTION_END; id++) {
        if (seen[id] != 1) print_error("section %d (%s) listed %d times\n", id, cna__cnb_section_name[id], seen[id]);
        assert_int_equal(seen[id], 1);
    }
    free_lines(lines, n);
}

/* Every "## Header (64 bytes)" / "### NAME (N bytes)" table: rows "| offset | size | ..."
 * contiguous from 0 and summing to N; N equals the code's size. */
static void record_tables_are_contiguous_and_match_the_record_sizes(void **state)
{
    (void)state;
    size_t n = 0;
    char **lines = doc_lines(&n);
    int checked[CNA__CNB_SECTION_END] = {0};
    bool header_checked = false;
    for (size_t i = 0; i < n; i++) {
        if (lines[i][0] != '#') continue;
        const char *open = strstr(lines[i], " (");
        unsigned total = 0;
        if (!open || sscanf(open, " (%u bytes)", &total) != 1) continue;
        const char *name = lines[i] + strspn(lines[i], "# ");
        size_t name_len = (size_t)(open - name);
        int id = 0;
        for (int k = 1; k < CNA__CNB_SECTION_END; k++)
            if (strlen(cna__cnb_section_name[k]) == name_len && strncmp(name, cna__cnb_section_name[k], name_len) == 0)
                id = k;
        bool header = strncmp(name, "Header", 6) == 0;
        if (!id && !header) continue;
        unsigned next = 0, rows = 0;
        for (size_t j = i + 1; j < n && lines[j][0] != '#'; j++) {
            unsigned off = 0, size = 0;
            if (sscanf(lines[j], "| %u | %u |", &off, &size) != 2) continue;
            if (off != next) print_error("%.*s: field at %u; expected %u\n", (int)name_len, name, off, next);
            assert_int_equal(off, next);
            next = off + size;
            rows++;
            if (header) {
                /* the header's named offsets */
                const char *field = strrchr(lines[j], '|');
                (void)field;
                if (strstr(lines[j], "| version (")) assert_int_equal(off, CNA__CNB_OFF_VERSION);
                if (strstr(lines[j], "| flags (")) assert_int_equal(off, CNA__CNB_OFF_FLAGS);
                if (strstr(lines[j], "| header_size (")) assert_int_equal(off, CNA__CNB_OFF_HEADER_SIZE);
                if (strstr(lines[j], "| total_size:")) assert_int_equal(off, CNA__CNB_OFF_TOTAL_SIZE);
                if (strstr(lines[j], "| checksum (")) assert_int_equal(off, CNA__CNB_OFF_CHECKSUM);
                if (strstr(lines[j], "| section_count (")) assert_int_equal(off, CNA__CNB_OFF_SECTION_COUNT);
                if (strstr(lines[j], "| unit_scale ")) assert_int_equal(off, CNA__CNB_OFF_UNIT_SCALE);
                if (strstr(lines[j], "| section_table ")) assert_int_equal(off, CNA__CNB_OFF_SECTION_TABLE);
            }
        }
        assert_true(rows > 0);
        assert_int_equal(next, total);
        if (header) {
            assert_int_equal(total, CNA__CNB_HEADER_SIZE);
            header_checked = true;
        } else {
            assert_int_equal(total, cna__cnb_record_size[id]);
            checked[id] = 1;
        }
    }
    assert_true(header_checked);
    for (int id = CNA__CNB_MODEL; id < CNA__CNB_SECTION_END; id++) {
        if (!checked[id]) print_error("no record table for %s\n", cna__cnb_section_name[id]);
        assert_int_equal(checked[id], 1);
    }
    free_lines(lines, n);
}

/* A "## Version N" section's table: "| NAME | older size | newer size | ... |"
 * for every record whose size changed from `older` to `newer`, and no other
 * section's size differs between the two. */
static void version_table_matches(const char *heading, const uint32_t *older, const uint32_t *newer)
{
    size_t n = 0;
    char **lines = doc_lines(&n);
    int listed[CNA__CNB_SECTION_END] = {0};
    bool inside = false, found = false;
    for (size_t i = 0; i < n; i++) {
        if (strncmp(lines[i], "## ", 3) == 0) {
            inside = strcmp(lines[i], heading) == 0;
            found = found || inside;
            continue;
        }
        if (!inside) continue;
        char name[32];
        unsigned v_old = 0, v_new = 0;
        if (sscanf(lines[i], "| %31[A-Z_] | %u | %u |", name, &v_old, &v_new) != 3) continue;
        int id = 0;
        for (int k = 1; k < CNA__CNB_SECTION_END; k++)
            if (strcmp(name, cna__cnb_section_name[k]) == 0) id = k;
        assert_true(id > 0);
        assert_int_equal(v_old, older[id]);
        assert_int_equal(v_new, newer[id]);
        listed[id]++;
    }
    assert_true(found);
    for (int id = 1; id < CNA__CNB_MARKERS; id++) {   /* MARKERS: only in version 4 */
        const bool changed = older[id] != newer[id];
        if (listed[id] != (changed ? 1 : 0))
            print_error("%s: section %s listed %d times\n", heading, cna__cnb_section_name[id], listed[id]);
        assert_int_equal(listed[id], changed ? 1 : 0);
    }
    free_lines(lines, n);
}

static void version_3_table_matches_the_reader(void **state)
{
    (void)state;
    version_table_matches("## Version 3", cna__cnb_record_size_v3, cna__cnb_record_size);
}

static void version_2_table_matches_the_reader(void **state)
{
    (void)state;
    version_table_matches("## Version 2", cna__cnb_record_size_v2, cna__cnb_record_size_v3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(constants_table_matches_the_code),
        cmocka_unit_test(section_table_matches_the_code),
        cmocka_unit_test(record_tables_are_contiguous_and_match_the_record_sizes),
        cmocka_unit_test(version_3_table_matches_the_reader),
        cmocka_unit_test(version_2_table_matches_the_reader),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
