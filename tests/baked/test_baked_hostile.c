/*
 * Hostile files on the baked side: a FIFO, a directory or a device named as
 * a .cnb, a .cnj or a cna_model_load_any input is refused without waiting on
 * it; a .cnb is judged by its 64-byte header and its size before the rest is
 * read (a sparse 3 GiB file is refused at once); a .cnj has a size cap and
 * one JSON value; a .cnb with a valid checksum but a NaN or infinity in a
 * record, markers out of order, out of their animation or named outside
 * the strings, or palette maps out of order, of a bad size, outside their
 * skin, smaller than the joint bytes they serve or missing on a skin over 72
 * joints, is refused naming the record; a failed write says why.
 *
 * Every test arms alarm() (on Windows the CTest TIMEOUT instead): a read
 * that blocks ends the program (a failure) instead of hanging the suite. On
 * Windows the device is NUL (there is no /dev/zero), and the FIFO and the
 * file size limit (setrlimit) cases are not built: Windows has neither.
 */
#define _XOPEN_SOURCE 700 /* mkdtemp, mkfifo, SIGXFSZ, RLIMIT_FSIZE */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#ifndef _WIN32
#include <sys/resource.h>
#endif

#include <cmocka.h>

#include "baked/cnb_internal.h"
#include "cnb_test.h"
#include "support/proc.h"
#include "win_compat.h"

#define GUARD_SECONDS 60

/* A fresh folder for this test's files. */
static void temp_dir(char *dir, size_t n)
{
    snprintf(dir, n, "%s/cna-hostile-XXXXXX", CNA_BINARY_DIR);
    assert_non_null(mkdtemp(dir));
}

static void write_bytes(const char *path, const void *bytes, size_t size)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
}

/* A file of `size` bytes whose first `head_size` are `head`, the rest a hole. */
static void write_sparse(const char *path, const void *head, size_t head_size, uint64_t size)
{
    cna_test_write_sized(path, head, head_size, size);
}

/* A device that is no regular file: one that never ends where there is one. */
#ifdef _WIN32
#define DEVICE "NUL"
#else
#define DEVICE "/dev/zero"
#endif

static void refix_checksum(unsigned char *f, size_t size)
{
    uint64_t h = cna__cnb_checksum(f, size);
    memcpy(f + CNA__CNB_OFF_CHECKSUM, &h, 8);
}

static void section_at(const unsigned char *bytes, int id, uint64_t *off)
{
    memcpy(off, bytes + CNA__CNB_HEADER_SIZE + (size_t)(id - 1) * CNA__CNB_SECTION_ENTRY_SIZE + 8, 8);
}

static void expect_file_refusal(const char *path, cna_result code, const char *want)
{
    cna_model *m = NULL;
    cna_error err;
    cna_result r = cna_cnb_load_file(path, NULL, &m, &err);
    if (r != code) print_error("%s: %s\n", cna_result_name(r), r ? err.message : "ok");
    assert_int_equal(r, code);
    assert_null(m);
    assert_string_equal(err.message, want);
}

/* ------------------------------------------------------------------ not regular files */

#ifndef _WIN32
static void a_fifo_is_refused_by_every_baked_reader_without_waiting(void **state)
{
    (void)state;
    alarm(GUARD_SECONDS);
    char dir[1024], fifo[1100], want[1200];
    temp_dir(dir, sizeof dir);
    snprintf(fifo, sizeof fifo, "%s/model.cnb", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    snprintf(want, sizeof want, "%s: not a regular file", fifo);

    expect_file_refusal(fifo, CNA_ERROR_IO, want);

    cna_model *m = NULL;
    cna_error err;
    assert_int_equal(cna_model_load_any(fifo, NULL, &m, &err), CNA_ERROR_IO);
    assert_null(m);
    assert_string_equal(err.message, want);

    cna_cnj_skeleton *s = NULL;
    assert_int_equal(cna_cnj_read_file(fifo, NULL, &s, &err), CNA_ERROR_IO);
    assert_null(s);
    assert_string_equal(err.message, want);

    assert_int_equal(unlink(fifo), 0);
    assert_int_equal(rmdir(dir), 0);
    alarm(0);
}

#endif

static void a_directory_or_device_is_not_a_regular_file(void **state)
{
    (void)state;
    alarm(GUARD_SECONDS);
    char dir[1024], want[1200];
    temp_dir(dir, sizeof dir);
    snprintf(want, sizeof want, "%s: not a regular file", dir);
    expect_file_refusal(dir, CNA_ERROR_IO, want); /* was "out of memory (9223372036854775807 bytes)" */
    cna_model *m = NULL;
    cna_error err;
    assert_int_equal(cna_model_load_any(dir, NULL, &m, &err), CNA_ERROR_IO);
    assert_string_equal(err.message, want);
    cna_cnj_skeleton *s = NULL;
    assert_int_equal(cna_cnj_read_file(dir, NULL, &s, &err), CNA_ERROR_IO);
    assert_string_equal(err.message, want);
    /* /dev/zero never ends: refused before a byte is read. */
    assert_int_equal(cna_cnj_read_file(DEVICE, NULL, &s, &err), CNA_ERROR_IO);
    assert_null(s);
    assert_string_equal(err.message, DEVICE ": not a regular file");
    expect_file_refusal(DEVICE, CNA_ERROR_IO, DEVICE ": not a regular file");
    assert_int_equal(rmdir(dir), 0);
    alarm(0);
}

/* ------------------------------------------------------------------ .cnb: header first, size cap */

static void a_huge_cnb_is_judged_by_its_header_and_size_before_it_is_read(void **state)
{
    (void)state;
    alarm(GUARD_SECONDS);
    cna_model *a = cnb_test_import(&cnb_corpus[8], CNA_CLIP_MODE_FAITHFUL);
    size_t size = 0;
    unsigned char *bytes = cnb_test_bake(a, 0.0f, &size);
    char dir[1024], path[1100], want[1400];
    temp_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/huge.cnb", dir);
    const uint64_t huge = (uint64_t)3 << 30;

    /* 3 GiB of zeros: not a .cnb, from its first 64 bytes. */
    write_sparse(path, NULL, 0, huge);
    snprintf(want, sizeof want, "%s: cnb: not a .cnb file (the magic is not \"CNB\\0\")", path);
    expect_file_refusal(path, CNA_ERROR_PARSE, want);

    /* A real header whose total_size is the file's 3 GiB: above the cap, from the size. */
    unsigned char head[CNA__CNB_HEADER_SIZE];
    memcpy(head, bytes, sizeof head);
    const uint64_t total = (uint64_t)huge;
    memcpy(head + CNA__CNB_OFF_TOTAL_SIZE, &total, 8);
    write_sparse(path, head, sizeof head, huge);
    snprintf(want, sizeof want, "%s: cnb: 3221225472 bytes exceed the limit of 1073741824 bytes", path);
    expect_file_refusal(path, CNA_ERROR_LIMIT, want);
    assert_int_equal(CNA_CNB_MAX_FILE_SIZE, (size_t)1 << 30);

    /* The real header of a smaller file: total_size against the file's size. */
    write_sparse(path, bytes, sizeof head, huge);
    snprintf(want, sizeof want, "%s: cnb: total_size %zu but 3221225472 bytes were given (truncated?)", path, size);
    expect_file_refusal(path, CNA_ERROR_INVALID_DATA, want);

    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0);
    free(bytes);
    cna_model_free(a);
    alarm(0);
}

static void a_bad_cnb_header_on_disk_is_refused_with_its_field(void **state)
{
    (void)state;
    alarm(GUARD_SECONDS);
    cna_model *a = cnb_test_import(&cnb_corpus[8], CNA_CLIP_MODE_FAITHFUL);
    size_t size = 0;
    unsigned char *bytes = cnb_test_bake(a, 0.0f, &size);
    char dir[1024], path[1100], want[1400];
    temp_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/bad.cnb", dir);

    bytes[CNA__CNB_OFF_VERSION] = 9;
    write_bytes(path, bytes, size);
    snprintf(want, sizeof want, "%s: cnb: version 9; this reader reads versions 2 to 4", path);
    expect_file_refusal(path, CNA_ERROR_UNSUPPORTED, want);
    bytes[CNA__CNB_OFF_VERSION] = 4; /* the version this writer writes */

    write_bytes(path, bytes, 40); /* shorter than the header */
    snprintf(want, sizeof want, "%s: cnb: 40 bytes; the header needs 64", path);
    expect_file_refusal(path, CNA_ERROR_PARSE, want);

    write_bytes(path, bytes, size - 8); /* the header promises more */
    snprintf(want, sizeof want, "%s: cnb: total_size %zu but %zu bytes were given (truncated?)", path, size, size - 8);
    expect_file_refusal(path, CNA_ERROR_INVALID_DATA, want);

    bytes[CNA__CNB_OFF_FLAGS] = 1;
    write_bytes(path, bytes, size);
    snprintf(want, sizeof want, "%s: cnb: flags 0x1; none are defined", path);
    expect_file_refusal(path, CNA_ERROR_UNSUPPORTED, want);
    bytes[CNA__CNB_OFF_FLAGS] = 0;

    write_bytes(path, bytes, size); /* and the intact file loads */
    cna_model *b = NULL;
    cna_error err;
    assert_int_equal(cna_cnb_load_file(path, NULL, &b, &err), CNA_OK);
    cnb_same_model(a, b);
    cna_model_free(b);

    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0);
    free(bytes);
    cna_model_free(a);
    alarm(0);
}

/* ------------------------------------------------------------------ .cnj: cap, one value */

static void a_cnj_above_the_cap_is_refused_from_its_size(void **state)
{
    (void)state;
    alarm(GUARD_SECONDS);
    char dir[1024], path[1100], want[1400];
    temp_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/huge.cnj", dir);
    write_sparse(path, "{", 1, (uint64_t)CNA_CNJ_MAX_FILE_SIZE + 1);
    cna_cnj_skeleton *s = NULL;
    cna_error err;
    assert_int_equal(cna_cnj_read_file(path, NULL, &s, &err), CNA_ERROR_LIMIT);
    assert_null(s);
    snprintf(want, sizeof want, "%s: 268435457 bytes exceed the limit of 268435456 bytes", path);
    assert_string_equal(err.message, want);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0);
    alarm(0);
}

static const char skeleton_text[] =
    "{\"format\": \"cna-skeleton/1\", \"bone_count\": 1, \"hierarchy\": [-1],\n"
    " \"bind_pose\": [[1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1]],\n"
    " \"inverse_bind_pose\": [[1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1]]}";

static void trailing_data_after_the_cnj_value_is_refused(void **state)
{
    (void)state;
    alarm(GUARD_SECONDS);
    const size_t n = strlen(skeleton_text);
    char text[1024];
    cna_cnj_skeleton *s = NULL;
    cna_error err;
    /* whitespace and NUL padding after the value are fine */
    snprintf(text, sizeof text, "%s \n\t\r", skeleton_text);
    assert_int_equal(cna_cnj_read_memory(text, strlen(text) + 1, NULL, &s, &err), CNA_OK);
    assert_int_equal(cna_cnj_skeleton_data(s)->bone_count, 1);
    cna_cnj_skeleton_free(s);
    s = NULL;

    char want[256];
    snprintf(text, sizeof text, "%s\n{}", skeleton_text);
    assert_int_equal(cna_cnj_read_memory(text, strlen(text), NULL, &s, &err), CNA_ERROR_PARSE);
    assert_null(s);
    snprintf(want, sizeof want, "cnj: trailing data after the JSON value at byte %zu", n + 1);
    assert_string_equal(err.message, want);

    snprintf(text, sizeof text, "%sgarbage", skeleton_text);
    assert_int_equal(cna_cnj_read_memory(text, strlen(text), NULL, &s, &err), CNA_ERROR_PARSE);
    snprintf(want, sizeof want, "cnj: trailing data after the JSON value at byte %zu", n);
    assert_string_equal(err.message, want);

    /* the same from a file, prefixed with its path */
    char dir[1024], path[1100], want_file[1400];
    temp_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/trailing.cnj", dir);
    write_bytes(path, text, strlen(text));
    assert_int_equal(cna_cnj_read_file(path, NULL, &s, &err), CNA_ERROR_PARSE);
    assert_null(s);
    snprintf(want_file, sizeof want_file, "%s: %s", path, want);
    assert_string_equal(err.message, want_file);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0);
    alarm(0);
}

static void cnj_nesting_past_the_parser_limit_says_so(void **state)
{
    (void)state;
    alarm(GUARD_SECONDS);
    const size_t depth = 1200;
    char *text = malloc(2 * depth + 16);
    assert_non_null(text);
    size_t n = 0;
    text[n++] = '{';
    memcpy(text + n, "\"x\":", 4);
    n += 4;
    for (size_t i = 0; i < depth; i++) text[n++] = '[';
    for (size_t i = 0; i < depth; i++) text[n++] = ']';
    text[n++] = '}';
    cna_cnj_skeleton *s = NULL;
    cna_error err;
    assert_int_equal(cna_cnj_read_memory(text, n, NULL, &s, &err), CNA_ERROR_PARSE);
    assert_null(s);
    /* the object is level 1; the 1000th array, opened at byte 1004, would be level 1001 */
    assert_string_equal(err.message, "cnj: JSON nested deeper than 1000 levels at byte 1004");
    free(text);
    alarm(0);
}

/* ------------------------------------------------------------------ .cnb: finite records */

/* A baked SimpleSkin with the float at `at` set to `bits` (checksum
 * refixed) is refused with exactly "cnb: <want>". */
static void expect_not_finite(const unsigned char *clean, size_t size, uint64_t at, uint32_t bits, const char *want)
{
    unsigned char *bytes = malloc(size);
    assert_non_null(bytes);
    memcpy(bytes, clean, size);
    memcpy(bytes + at, &bits, 4);
    refix_checksum(bytes, size);
    cna_model *m = NULL;
    cna_error err;
    cna_result r = cna_cnb_load_memory(bytes, size, NULL, &m, &err);
    if (r != CNA_ERROR_INVALID_DATA) print_error("%s: %s\n", cna_result_name(r), r ? err.message : "ok");
    assert_int_equal(r, CNA_ERROR_INVALID_DATA);
    assert_null(m);
    char full[256];
    snprintf(full, sizeof full, "cnb: %s", want);
    assert_string_equal(err.message, full);
    free(bytes);
}

static void non_finite_record_values_are_refused_naming_the_record(void **state)
{
    (void)state;
    alarm(GUARD_SECONDS);
    cna_model *a = cnb_test_import(&cnb_corpus[7], CNA_CLIP_MODE_FAITHFUL);
    assert_true(a->bone_count >= 2 && a->effect_count >= 1 && a->mesh_count >= 1 && a->skin_count >= 1);
    size_t size = 0;
    unsigned char *clean = cnb_test_bake(a, 0.0f, &size);
    const uint32_t nan = 0x7fc00000u, inf = 0x7f800000u, ninf = 0xff800000u, minus_one = 0xbf800000u;
    uint64_t model, bones, meshes, effects, skins, data;
    section_at(clean, CNA__CNB_MODEL, &model);
    section_at(clean, CNA__CNB_BONES, &bones);
    section_at(clean, CNA__CNB_MESHES, &meshes);
    section_at(clean, CNA__CNB_EFFECTS, &effects);
    section_at(clean, CNA__CNB_SKINS, &skins);
    section_at(clean, CNA__CNB_DATA, &data);

    /* BONES records (128 bytes): rest_transform at 24, rest translation at 88,
     * rotation at 100, scale at 116. */
    const uint64_t b1 = bones + 128;
    expect_not_finite(clean, size, b1 + 24 + 4 * 13, nan, "bones[1].rest_transform: not finite");
    expect_not_finite(clean, size, b1 + 88 + 4, nan, "bones[1].rest_translation: not finite");
    expect_not_finite(clean, size, bones + 100 + 12, ninf, "bones[0].rest_rotation: not finite");
    expect_not_finite(clean, size, b1 + 116 + 8, inf, "bones[1].rest_scale: not finite");

    /* MODEL: size at 8. */
    expect_not_finite(clean, size, model + 8, inf, "model.size: not finite");

    /* MESHES (80 bytes): bounds center at 40, radius at 52. */
    expect_not_finite(clean, size, meshes + 40 + 4, nan, "meshes[0].bounds.center: not finite");
    expect_not_finite(clean, size, meshes + 52, inf, "meshes[0].bounds.radius: not finite");
    expect_not_finite(clean, size, meshes + 52, minus_one, "meshes[0].bounds.radius: -1 is negative");

    /* EFFECTS (336 bytes): base_color_factor at 16, base_color.scale at 40,
     * metallic 44, roughness 48, normal.scale 72, occlusion.scale 84,
     * emissive_factor 100, alpha_cutoff 112. */
    expect_not_finite(clean, size, effects + 16 + 12, nan, "effects[0].base_color_factor: not finite");
    expect_not_finite(clean, size, effects + 40, inf, "effects[0].base_color.scale: not finite");
    expect_not_finite(clean, size, effects + 44, nan, "effects[0].metallic_factor: not finite");
    expect_not_finite(clean, size, effects + 48, nan, "effects[0].roughness_factor: not finite");
    expect_not_finite(clean, size, effects + 72, ninf, "effects[0].normal.scale: not finite");
    expect_not_finite(clean, size, effects + 84, nan, "effects[0].occlusion.scale: not finite");
    expect_not_finite(clean, size, effects + 100 + 8, inf, "effects[0].emissive_factor: not finite");
    expect_not_finite(clean, size, effects + 112, nan, "effects[0].alpha_cutoff: not finite");
    /* ... emissive_strength 120, then a 40-byte slot record per texture from 136
     * (uv_offset 0, uv_rotation 8, uv_scale 12, mag 20, min 24, wrap_s 28, wrap_t 32). */
    expect_not_finite(clean, size, effects + 120, nan, "effects[0].emissive_strength: not finite");
    expect_not_finite(clean, size, effects + 120, minus_one, "effects[0].emissive_strength: -1 is negative");
    /* ... material flags at 124: bit 0 unlit, every other bit refused */
    expect_not_finite(clean, size, effects + 124, 3u,
                      "effects[0].flags: 0x3 has unknown bits (this reader knows 0x1, unlit)");
    expect_not_finite(clean, size, effects + 136 + 4, inf, "effects[0].base_color.uv_offset: not finite");
    expect_not_finite(clean, size, effects + 216 + 8, nan, "effects[0].normal.uv_rotation: not finite");
    expect_not_finite(clean, size, effects + 296 + 12, ninf, "effects[0].emissive.uv_scale: not finite");
    expect_not_finite(clean, size, effects + 136 + 28, 7u, "effects[0].base_color.wrap_s: 7 is not a glTF sampler value");
    expect_not_finite(clean, size, effects + 176 + 20, 9984u,
                      "effects[0].metallic_roughness.mag_filter: 9984 is not a glTF sampler value");
    expect_not_finite(clean, size, effects + 256 + 24, 1u, "effects[0].occlusion.min_filter: 1 is not a glTF sampler value");

    /* SKINS (256 bytes): the fold reference at 216. */
    uint64_t fold;
    memcpy(&fold, clean + skins + 216, 8);
    expect_not_finite(clean, size, data + fold + 64 + 4 * 3, nan, "skins[0].fold[1]: not finite");

    /* the clean file still loads, equal to the import */
    cna_model *b = cnb_test_load(clean, size);
    cnb_same_model(a, b);
    cna_model_free(b);
    free(clean);
    cna_model_free(a);
    alarm(0);
}

/* ------------------------------------------------------------------ .cnb: UTF-8 names */

static void an_invalid_utf8_name_in_a_cnb_is_refused_naming_the_record(void **state)
{
    (void)state;
    alarm(GUARD_SECONDS);
    cna_model *a = cnb_test_import(&cnb_corpus[4], CNA_CLIP_MODE_FAITHFUL); /* RiggedSimple */
    size_t size = 0;
    unsigned char *bytes = cnb_test_bake(a, 0.0f, &size);
    uint64_t strings, bones;
    section_at(bytes, CNA__CNB_STRINGS, &strings);
    section_at(bytes, CNA__CNB_BONES, &bones);
    /* The first bone with a name of 4 bytes or more gets a surrogate half
     * (ED A0 80) at byte 1, patched in place in STRINGS; the clips (the only
     * records with strings read before the bones) must not share it. */
    size_t b = 0;
    while (b < a->bone_count && strlen(a->bones[b].name) < 4) b++;
    assert_true(b < a->bone_count);
    uint32_t off, len;
    memcpy(&off, bytes + bones + 192 * b, 4);
    memcpy(&len, bytes + bones + 192 * b + 4, 4);
    assert_int_equal(len, strlen(a->bones[b].name));
    for (size_t i = 0; i < a->animation_count; i++)
        assert_true(!a->node_clips[i].name || strcmp(a->node_clips[i].name, a->bones[b].name) != 0);
    unsigned char *name = bytes + strings + off;
    name[1] = 0xed;
    name[2] = 0xa0;
    name[3] = 0x80;
    refix_checksum(bytes, size);
    cna_model *m = NULL;
    cna_error err;
    assert_int_equal(cna_cnb_load_memory(bytes, size, NULL, &m, &err), CNA_ERROR_INVALID_DATA);
    assert_null(m);
    char want[128];
    snprintf(want, sizeof want, "cnb: bones[%zu].name: invalid UTF-8 at byte 1", b);
    assert_string_equal(err.message, want);
    /* a valid multi-byte name in the same place loads, byte for byte */
    name[1] = 0xc3;
    name[2] = 0xa9; /* é */
    name[3] = 'x';
    refix_checksum(bytes, size);
    assert_int_equal(cna_cnb_load_memory(bytes, size, NULL, &m, &err), CNA_OK);
    assert_int_equal(memcmp(m->bones[b].name + 1, "\xc3\xa9x", 3), 0);
    cna_model_free(m);
    free(bytes);
    cna_model_free(a);
    alarm(0);
}

/* ------------------------------------------------------------------ palette maps */

/* The 100-joint morph rig imported with split_palettes: its parts (all split)
 * give PALETTE_MAPS records 0, 1, ... for parts 0, 1, ... */
static cna_model *split_rig(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/fixtures/split-morph.gltf", CNA_TEST_DATA_DIR);
    cna_import_options o;
    memset(&o, 0, sizeof o);
    o.split_palettes = true;
    cna_model *m = NULL;
    cna_error err;
    assert_int_equal(cna_model_load_file(path, &o, &m, &err), CNA_OK);
    return m;
}

typedef struct map_patch {
    size_t record, at, width; /* `width` bytes at offset `at` of PALETTE_MAPS record `record` */
    uint64_t value;
    const char *want;
} map_patch;

static void expect_memory_refusal(const unsigned char *bytes, size_t size, const char *want)
{
    cna_model *m = NULL;
    cna_error err;
    cna_result r = cna_cnb_load_memory(bytes, size, NULL, &m, &err);
    if (r != CNA_ERROR_INVALID_DATA) print_error("%s: %s\n", cna_result_name(r), r ? err.message : "ok");
    assert_int_equal(r, CNA_ERROR_INVALID_DATA);
    assert_null(m);
    assert_string_equal(err.message, want);
}

static void hostile_palette_maps_are_refused_naming_the_record(void **state)
{
    (void)state;
    alarm(GUARD_SECONDS);
    cna_model *a = split_rig();
    const cna_model_part *part0 = &a->meshes[0].parts[0];
    const size_t parts = a->meshes[0].part_count;
    assert_true(parts >= 2);
    assert_int_equal(a->skins[0].joint_count, 100);
    /* the first joint byte of part 0 that is not 0: what a map of one entry cannot index */
    size_t vertex = 0;
    unsigned joint = 0;
    for (size_t q = 0; q < part0->vertex_count && !joint; q++)
        for (int k = 0; k < 4 && !joint; k++) {
            const unsigned char *v = (const unsigned char *)part0->vertices + q * part0->declaration.stride;
            if (v[32 + k]) vertex = q, joint = v[32 + k]; /* stride 52: joints at 32 */
        }
    assert_int_equal(part0->declaration.stride, 52);
    assert_true(joint > 0);
    size_t size = 0;
    unsigned char *clean = cnb_test_bake(a, 0.0f, &size);
    uint64_t maps, data;
    section_at(clean, CNA__CNB_PALETTE_MAPS, &maps);
    section_at(clean, CNA__CNB_DATA, &data);
    uint64_t map_offset, map_bytes;
    memcpy(&map_offset, clean + maps + 8, 8);
    memcpy(&map_bytes, clean + maps + 16, 8);
    assert_int_equal(map_bytes, 4 * part0->palette_map_count);
    char beyond[128], bad_size[160], one_entry[160];
    snprintf(beyond, sizeof beyond, "cnb: palette_maps[0].part: %zu is not below the %zu parts", parts + 5, parts);
    snprintf(bad_size, sizeof bad_size, "cnb: palette_maps[0].map: %llu bytes; %zu elements of 4 bytes are needed",
             (unsigned long long)map_bytes, part0->palette_map_count - 1);
    snprintf(one_entry, sizeof one_entry,
             "cnb: parts[0].vertices[%zu]: joint %u is not below the palette map's 1 joints", vertex, joint);
    const map_patch patches[] = {
        {0, 24, 8, 0, "cnb: palette_maps[0].count: 0 is outside 1..72"},
        {0, 24, 8, 73, "cnb: palette_maps[0].count: 73 is outside 1..72"},
        {0, 0, 8, parts + 5, beyond},
        {1, 0, 8, 0, "cnb: palette_maps[1].part: 0 after 0; palette maps are sorted by part, one per part"},
        {0, 24, 8, part0->palette_map_count - 1, bad_size},
    };
    unsigned char *bytes = (unsigned char *)malloc(size);
    assert_non_null(bytes);
    for (size_t i = 0; i < sizeof patches / sizeof patches[0]; i++) {
        const map_patch *p = &patches[i];
        memcpy(bytes, clean, size);
        memcpy(bytes + maps + 32 * p->record + p->at, &p->value, p->width);
        refix_checksum(bytes, size);
        expect_memory_refusal(bytes, size, p->want);
    }
    /* an entry outside the skin's 100 joints */
    memcpy(bytes, clean, size);
    const int32_t outside = 100;
    memcpy(bytes + data + map_offset, &outside, 4);
    refix_checksum(bytes, size);
    expect_memory_refusal(bytes, size, "cnb: parts[0].palette_map[0]: 100 is outside 0..99");
    /* a map of one entry under joint bytes that index more */
    memcpy(bytes, clean, size);
    const uint64_t one = 1, four = 4;
    memcpy(bytes + maps + 24, &one, 8);
    memcpy(bytes + maps + 16, &four, 8);
    refix_checksum(bytes, size);
    expect_memory_refusal(bytes, size, one_entry);
    /* no maps at all: a part of a 100-joint skin cannot be drawn */
    memcpy(bytes, clean, size);
    const size_t entry = CNA__CNB_HEADER_SIZE + (size_t)(CNA__CNB_PALETTE_MAPS - 1) * CNA__CNB_SECTION_ENTRY_SIZE;
    const uint64_t zero = 0;
    memcpy(bytes + entry + 16, &zero, 8);
    memcpy(bytes + entry + 24, &zero, 8);
    refix_checksum(bytes, size);
    expect_memory_refusal(bytes, size,
                          "cnb: parts[0]: skins[0] has 100 joints; a part of a skin over 72 joints needs a palette map");
    /* the clean file loads with its maps */
    cna_model *m = cnb_test_load(clean, size);
    assert_int_equal(m->meshes[0].parts[0].palette_map_count, part0->palette_map_count);
    assert_memory_equal(m->meshes[0].parts[0].palette_map, part0->palette_map, map_bytes);
    cna_model_free(m);
    free(bytes);
    free(clean);
    cna_model_free(a);
    alarm(0);
}

/* ------------------------------------------------------------------ markers */

/* RobotExpressive with markers x@0.1 s, y@0.2 s on animation 1 and z@0.3 s on
 * animation 2: MARKERS records 0, 1, 2. */
static unsigned char *bake_with_markers(size_t *size, int64_t *d1, int64_t *d2)
{
    cna_model *a = cnb_test_import(&cnb_corpus[5], CNA_CLIP_MODE_FAITHFUL);
    cna_error err;
    assert_int_equal(cna_model_add_marker(a, 2, "z", 0.3, &err), CNA_OK);
    assert_int_equal(cna_model_add_marker(a, 1, "y", 0.2, &err), CNA_OK);
    assert_int_equal(cna_model_add_marker(a, 1, "x", 0.1, &err), CNA_OK);
    *d1 = a->node_clips[1].duration;
    *d2 = a->node_clips[2].duration;
    unsigned char *bytes = cnb_test_bake(a, 0.0f, size);
    cna_model_free(a);
    return bytes;
}

typedef struct marker_patch {
    size_t record, at, width; /* `width` bytes at offset `at` of MARKERS record `record` */
    int64_t value;
    const char *want;         /* the message, or its start when it ends in '*' */
} marker_patch;

static void hostile_markers_are_refused_naming_the_record(void **state)
{
    (void)state;
    alarm(GUARD_SECONDS);
    size_t size = 0;
    int64_t d1 = 0, d2 = 0;
    unsigned char *clean = bake_with_markers(&size, &d1, &d2);
    uint64_t markers, strings;
    section_at(clean, CNA__CNB_MARKERS, &markers);
    section_at(clean, CNA__CNB_STRINGS, &strings);
    uint32_t x_name;
    memcpy(&x_name, clean + markers + 8, 4);
    assert_memory_equal(clean + strings + x_name, "x", 2);
    char d1_past[128], d2_past[128];
    snprintf(d1_past, sizeof d1_past, "cnb: markers[0].ticks: -1 is outside 0..%lld (animations[1])", (long long)d1);
    snprintf(d2_past, sizeof d2_past, "cnb: markers[2].ticks: %lld is outside 0..%lld (animations[2])",
             (long long)d2 + 1, (long long)d2);
    const marker_patch patches[] = {
        {2, 0, 4, 14, "cnb: markers[2].animation: 14 is outside 0..13"},
        {2, 0, 4, 0, "cnb: markers[2].animation: 0 after 1; markers are sorted by animation"},
        {1, 16, 8, 0, "cnb: markers[1].ticks: 0 after 1000000; markers are sorted by time"},
        {0, 16, 8, -1, d1_past},
        {2, 16, 8, d2 + 1, d2_past},
        {0, 8, 4, 0x7ffffff0, "cnb: markers[0].name: string at 2147483632 (length 1) is outside STRINGS*"},
        {0, 8, 4, (int64_t)UINT32_MAX, "cnb: markers[0].name: NULL string"},
        {0, 8, 8, (int64_t)x_name + 1, "cnb: markers[0].name: empty"}, /* at its NUL, length 0 */
    };
    unsigned char *bytes = (unsigned char *)malloc(size);
    assert_non_null(bytes);
    for (size_t i = 0; i < sizeof patches / sizeof patches[0]; i++) {
        const marker_patch *p = &patches[i];
        memcpy(bytes, clean, size);
        memcpy(bytes + markers + 24 * p->record + p->at, &p->value, p->width);
        refix_checksum(bytes, size);
        cna_model *m = NULL;
        cna_error err;
        assert_int_equal(cna_cnb_load_memory(bytes, size, NULL, &m, &err), CNA_ERROR_INVALID_DATA);
        assert_null(m);
        const size_t n = strlen(p->want);
        if (p->want[n - 1] == '*') assert_int_equal(strncmp(err.message, p->want, n - 1), 0);
        else assert_string_equal(err.message, p->want);
    }
    /* a name that is not UTF-8 */
    memcpy(bytes, clean, size);
    bytes[strings + x_name] = 0xff;
    refix_checksum(bytes, size);
    cna_model *m = NULL;
    cna_error err;
    assert_int_equal(cna_cnb_load_memory(bytes, size, NULL, &m, &err), CNA_ERROR_INVALID_DATA);
    assert_string_equal(err.message, "cnb: markers[0].name: invalid UTF-8 at byte 0");
    /* the section's count and record size */
    const size_t entry = CNA__CNB_HEADER_SIZE + (size_t)(CNA__CNB_MARKERS - 1) * CNA__CNB_SECTION_ENTRY_SIZE;
    memcpy(bytes, clean, size);
    const uint64_t four = 4;
    memcpy(bytes + entry + 24, &four, 8);
    refix_checksum(bytes, size);
    assert_int_equal(cna_cnb_load_memory(bytes, size, NULL, &m, &err), CNA_ERROR_INVALID_DATA);
    assert_string_equal(err.message, "cnb: section MARKERS: 4 records of 24 bytes are not 72 bytes");
    memcpy(bytes, clean, size);
    const uint32_t sixteen = 16;
    memcpy(bytes + entry + 4, &sixteen, 4);
    refix_checksum(bytes, size);
    assert_int_equal(cna_cnb_load_memory(bytes, size, NULL, &m, &err), CNA_ERROR_INVALID_DATA);
    assert_string_equal(err.message, "cnb: section MARKERS: record size 16 is not 24");
    assert_null(m);
    /* the clean file loads with its markers */
    assert_int_equal(cna_cnb_load_memory(clean, size, NULL, &m, &err), CNA_OK);
    size_t count = 0;
    const cna_marker *k = cna_model_markers(m, 1, &count);
    assert_int_equal(count, 2);
    assert_string_equal(k[0].name, "x");
    assert_string_equal(k[1].name, "y");
    cna_model_free(m);
    free(bytes);
    free(clean);
    alarm(0);
}

/* ------------------------------------------------------------------ write failures */

#ifndef _WIN32
static void a_failed_write_gives_the_system_reason(void **state)
{
    (void)state;
    alarm(GUARD_SECONDS);
    cna_model *a = cnb_test_import(&cnb_corpus[7], CNA_CLIP_MODE_FAITHFUL);
    char dir[1024], cnb[1100], cnj[1100], want[1400];
    temp_dir(dir, sizeof dir);
    snprintf(cnb, sizeof cnb, "%s/out.cnb", dir);
    snprintf(cnj, sizeof cnj, "%s/out.cnj", dir);
    /* A file size limit of 100 bytes: the writes fail with EFBIG (SIGXFSZ ignored). */
    struct rlimit old, small;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    small = old;
    small.rlim_cur = 100;
    void (*previous)(int) = signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
    cna_error err1, err2;
    cna_result r1 = cna_cnb_write_file(a, NULL, cnb, &err1);
    cna_result r2 = cna_cnj_write_file(cnj, &a->skins[0].data, &err2);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, previous);
    assert_int_equal(r1, CNA_ERROR_IO);
    snprintf(want, sizeof want, "%s: write failed: %s", cnb, strerror(EFBIG));
    assert_string_equal(err1.message, want);
    assert_int_equal(r2, CNA_ERROR_IO);
    snprintf(want, sizeof want, "%s: write failed: %s", cnj, strerror(EFBIG));
    assert_string_equal(err2.message, want);
    remove(cnb);
    remove(cnj);
    assert_int_equal(rmdir(dir), 0);
    cna_model_free(a);
    alarm(0);
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
#ifndef _WIN32
        cmocka_unit_test(a_fifo_is_refused_by_every_baked_reader_without_waiting),
#endif
        cmocka_unit_test(a_directory_or_device_is_not_a_regular_file),
        cmocka_unit_test(a_huge_cnb_is_judged_by_its_header_and_size_before_it_is_read),
        cmocka_unit_test(a_bad_cnb_header_on_disk_is_refused_with_its_field),
        cmocka_unit_test(a_cnj_above_the_cap_is_refused_from_its_size),
        cmocka_unit_test(trailing_data_after_the_cnj_value_is_refused),
        cmocka_unit_test(cnj_nesting_past_the_parser_limit_says_so),
        cmocka_unit_test(non_finite_record_values_are_refused_naming_the_record),
        cmocka_unit_test(an_invalid_utf8_name_in_a_cnb_is_refused_naming_the_record),
        cmocka_unit_test(hostile_markers_are_refused_naming_the_record),
        cmocka_unit_test(hostile_palette_maps_are_refused_naming_the_record),
#ifndef _WIN32
        cmocka_unit_test(a_failed_write_gives_the_system_reason),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
