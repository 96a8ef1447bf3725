/*
 * Hostile glTF input: a FIFO (on Windows the null device, NUL) or directory
 * named as the document or as an external buffer is refused without waiting
 * on it (a buffer URI "NUL" on Windows as leading outside the folder); JSON nested past the
 * parser's limit says so; strings that are not valid UTF-8 are refused naming
 * their JSON path, as are strings holding a NUL character (the escape \u0000
 * or a raw 0x00 byte: cJSON would cut them short), valid multi-byte strings
 * load byte for byte, and messages
 * that quote a string cut short stay valid UTF-8.
 *
 * The file tests arm alarm() (on Windows the CTest TIMEOUT instead): a read
 * that blocks ends the program (a failure) instead of hanging the suite.
 */
#define _XOPEN_SOURCE 700 /* mkdtemp, mkfifo */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "cna/cna.h"
#include "core/internal.h"
#include "support/proc.h"
#include "win_compat.h"

#define GUARD_SECONDS 60
#define ASSET "{\"asset\":{\"version\":\"2.0\"}"

static void temp_dir(char *dir, size_t n)
{
    snprintf(dir, n, "%s/cna-gltf-hostile-XXXXXX", CNA_BINARY_DIR);
    assert_non_null(mkdtemp(dir));
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
}

static cna_result load_text(const char *text, size_t size, cna_gltf_document **doc, cna_error *err)
{
    *doc = NULL;
    cna_result r = cna_gltf_load_memory(text, size, NULL, doc, err);
    if (r) assert_null(*doc);
    return r;
}

static void expect_refusal(const char *text, cna_result code, const char *want)
{
    cna_gltf_document *doc;
    cna_error err;
    cna_result r = load_text(text, strlen(text), &doc, &err);
    if (r != code) print_error("%s: %s\n", cna_result_name(r), r ? err.message : "ok");
    assert_int_equal(r, code);
    assert_string_equal(err.message, want);
}

/* ------------------------------------------------------------------ not regular files */

/* A FIFO on POSIX. On Windows, which has none in its file system, the null device: "NUL",
 * which names it in any folder too; as a buffer's URI it is refused before it is opened, its
 * real path ("\\\\.\\NUL") being outside the asset's folder. */
#ifdef _WIN32
#define SPECIAL_BIN "NUL"
#else
#define SPECIAL_BIN "data.bin"
#endif

static void a_buffer_uri_naming_a_fifo_or_device_is_refused_without_waiting(void **state)
{
    (void)state;
    alarm(GUARD_SECONDS);
    char dir[1024], fifo[1100], gltf[1100], want[2400];
    temp_dir(dir, sizeof dir);
    snprintf(fifo, sizeof fifo, "%s/" SPECIAL_BIN, dir);
    snprintf(gltf, sizeof gltf, "%s/model.gltf", dir);
#ifdef _WIN32
    char real[1024];
    cna_test_real_path(dir, real, sizeof real);
    const cna_result code = CNA_ERROR_INVALID_DATA;
    snprintf(want, sizeof want, "buffers[0] (uri \"NUL\"): \"%s\" leads outside the asset's folder \"%s\"", fifo,
             real);
#else
    assert_int_equal(mkfifo(fifo, 0600), 0);
    const cna_result code = CNA_ERROR_IO;
    snprintf(want, sizeof want, "buffers[0] (uri \"data.bin\"): \"%s\": not a regular file", fifo);
#endif
    write_text(gltf, ASSET ",\"buffers\":[{\"uri\":\"" SPECIAL_BIN "\",\"byteLength\":4}]}");
    cna_gltf_document *doc = NULL;
    cna_error err;
    cna_result r = cna_gltf_load_file(gltf, NULL, &doc, &err);
    if (r != code) print_error("%s: %s\n", cna_result_name(r), r ? err.message : "ok");
    assert_int_equal(r, code);
    assert_null(doc);
    assert_string_equal(err.message, want);
    /* the model loader says the same */
    cna_model *m = NULL;
    assert_int_equal(cna_model_load_file(gltf, NULL, &m, &err), code);
    assert_null(m);
    assert_string_equal(err.message, want);
#ifndef _WIN32
    assert_int_equal(unlink(fifo), 0);
#endif
    assert_int_equal(unlink(gltf), 0);
    assert_int_equal(rmdir(dir), 0);
    alarm(0);
}

static void a_fifo_device_or_directory_as_the_document_is_refused_without_waiting(void **state)
{
    (void)state;
    alarm(GUARD_SECONDS);
    char dir[1024], fifo[1100], want[1400];
    temp_dir(dir, sizeof dir);
#ifdef _WIN32
    snprintf(fifo, sizeof fifo, "NUL");
#else
    snprintf(fifo, sizeof fifo, "%s/model.glb", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
#endif
    cna_gltf_document *doc = NULL;
    cna_error err;
    assert_int_equal(cna_gltf_load_file(fifo, NULL, &doc, &err), CNA_ERROR_IO);
    assert_null(doc);
    snprintf(want, sizeof want, "\"%s\": not a regular file", fifo);
    assert_string_equal(err.message, want);
    assert_int_equal(cna_gltf_load_file(dir, NULL, &doc, &err), CNA_ERROR_IO);
    snprintf(want, sizeof want, "\"%s\": not a regular file", dir);
    assert_string_equal(err.message, want);
#ifndef _WIN32
    assert_int_equal(unlink(fifo), 0);
#endif
    assert_int_equal(rmdir(dir), 0);
    alarm(0);
}

/* ------------------------------------------------------------------ nesting */

/* ASSET ",\"extras\":" then `depth` nested arrays, then "}". */
static char *nested(size_t depth, size_t *size)
{
    const char *head = ASSET ",\"extras\":";
    const size_t h = strlen(head);
    char *text = malloc(h + 2 * depth + 2);
    assert_non_null(text);
    memcpy(text, head, h);
    for (size_t i = 0; i < depth; i++) text[h + i] = '[';
    for (size_t i = 0; i < depth; i++) text[h + depth + i] = ']';
    text[h + 2 * depth] = '}';
    text[h + 2 * depth + 1] = '\0';
    *size = h + 2 * depth + 1;
    return text;
}

static void nesting_past_the_parser_limit_says_so(void **state)
{
    (void)state;
    const size_t head = strlen(ASSET ",\"extras\":");
    cna_gltf_document *doc;
    cna_error err;
    size_t size;
    /* The root object is level 1: 999 arrays inside it reach the limit of 1000 and load. */
    char *text = nested(CNA__JSON_MAX_DEPTH - 1, &size);
    assert_int_equal(load_text(text, size, &doc, &err), CNA_OK);
    cna_gltf_document_free(doc);
    free(text);
    /* One more (and far more) is refused at the array that would be level 1001. */
    const size_t depths[] = {CNA__JSON_MAX_DEPTH, 5000};
    for (size_t k = 0; k < 2; k++) {
        text = nested(depths[k], &size);
        assert_int_equal(load_text(text, size, &doc, &err), CNA_ERROR_PARSE);
        char want[128];
        snprintf(want, sizeof want, "JSON nested deeper than 1000 levels at byte %zu", head + 999);
        assert_string_equal(err.message, want);
        free(text);
    }
    /* Brackets inside strings do not count. */
    const char *brackets = ASSET ",\"extras\":{\"a\":\"[[[[\\\"[[\"}}";
    assert_int_equal(load_text(brackets, strlen(brackets), &doc, &err), CNA_OK);
    cna_gltf_document_free(doc);
}

/* ------------------------------------------------------------------ UTF-8 */

typedef struct bad_bytes {
    const char *what;
    const char *bytes;  /* spliced after "ab" */
} bad_bytes;

static const bad_bytes bad_sequences[] = {
    {"overlong '/' (C0 AF)", "\xc0\xaf"},
    {"overlong U+0000 (C1 80)", "\xc1\x80"},
    {"overlong 3-byte (E0 80 AF)", "\xe0\x80\xaf"},
    {"overlong 4-byte (F0 80 80 AF)", "\xf0\x80\x80\xaf"},
    {"surrogate U+D800 (ED A0 80)", "\xed\xa0\x80"},
    {"surrogate U+DFFF (ED BF BF)", "\xed\xbf\xbf"},
    {"truncated at the end (E2 82)", "\xe2\x82"},
    {"truncated before ASCII (E2 82 41)", "\xe2\x82" "A"},
    {"lone continuation (80)", "\x80"},
    {"above U+10FFFF (F4 90 80 80)", "\xf4\x90\x80\x80"},
    {"never valid (F5 80 80 80)", "\xf5\x80\x80\x80"},
    {"never valid (FF)", "\xff"},
};

/* A document with the given string in `member` of its objects: node, mesh,
 * animation, material, image, skin, scene, sampler, texture, buffer and
 * asset strings. */
static void document_with(char *out, size_t n, const char *kind, const char *name)
{
    if (strcmp(kind, "nodes") == 0)
        snprintf(out, n, ASSET ",\"nodes\":[{},{},{},{\"name\":\"%s\"}]}", name);
    else if (strcmp(kind, "meshes") == 0)
        snprintf(out, n,
                 ASSET ",\"buffers\":[{\"byteLength\":1,\"uri\":\"data:application/octet-stream;base64,AA==\"}],"
                       "\"bufferViews\":[{\"buffer\":0,\"byteLength\":1}],"
                       "\"accessors\":[{\"bufferView\":0,\"componentType\":5121,\"count\":1,\"type\":\"SCALAR\"}],"
                       "\"meshes\":[{\"name\":\"%s\",\"primitives\":[{\"attributes\":{\"_X\":0}}]}]}",
                 name);
    else if (strcmp(kind, "animations") == 0)
        snprintf(out, n, ASSET ",\"animations\":[{\"name\":\"%s\",\"channels\":[],\"samplers\":[]}]}", name);
    else if (strcmp(kind, "materials") == 0)
        snprintf(out, n, ASSET ",\"materials\":[{\"name\":\"%s\"}]}", name);
    else if (strcmp(kind, "images") == 0)
        snprintf(out, n, ASSET ",\"images\":[{\"name\":\"%s\",\"uri\":\"data:image/png;base64,AAAA\"}]}", name);
    else if (strcmp(kind, "skins") == 0)
        snprintf(out, n, ASSET ",\"nodes\":[{}],\"skins\":[{\"name\":\"%s\",\"joints\":[0]}]}", name);
    else if (strcmp(kind, "scenes") == 0)
        snprintf(out, n, ASSET ",\"scenes\":[{\"name\":\"%s\"}]}", name);
    else if (strcmp(kind, "samplers") == 0)
        snprintf(out, n, ASSET ",\"samplers\":[{\"name\":\"%s\"}]}", name);
    else if (strcmp(kind, "buffers") == 0)
        snprintf(out, n, ASSET ",\"buffers\":[{\"name\":\"%s\",\"byteLength\":1,"
                         "\"uri\":\"data:application/octet-stream;base64,AA==\"}]}", name);
    else if (strcmp(kind, "asset") == 0)
        snprintf(out, n, "{\"asset\":{\"version\":\"2.0\",\"generator\":\"%s\"}}", name);
    else
        fail_msg("unknown kind %s", kind);
}

static const struct {
    const char *kind;
    const char *path; /* the JSON path the refusal names */
} string_places[] = {
    {"nodes", "nodes[3].name"},           {"meshes", "meshes[0].name"},   {"animations", "animations[0].name"},
    {"materials", "materials[0].name"},   {"images", "images[0].name"},   {"skins", "skins[0].name"},
    {"scenes", "scenes[0].name"},         {"samplers", "samplers[0].name"}, {"buffers", "buffers[0].name"},
    {"asset", "asset.generator"},
};

static void invalid_utf8_in_any_string_is_refused_naming_the_json_path(void **state)
{
    (void)state;
    for (size_t p = 0; p < sizeof string_places / sizeof string_places[0]; p++)
        for (size_t b = 0; b < sizeof bad_sequences / sizeof bad_sequences[0]; b++) {
            char name[32], text[1024], want[128];
            snprintf(name, sizeof name, "ab%s", bad_sequences[b].bytes);
            document_with(text, sizeof text, string_places[p].kind, name);
            snprintf(want, sizeof want, "%s: invalid UTF-8 at byte 2", string_places[p].path);
            cna_gltf_document *doc;
            cna_error err;
            cna_result r = load_text(text, strlen(text), &doc, &err);
            if (r != CNA_ERROR_INVALID_DATA || strcmp(err.message, want) != 0)
                print_error("%s, %s: %s\n", string_places[p].path, bad_sequences[b].what, r ? err.message : "ok");
            assert_int_equal(r, CNA_ERROR_INVALID_DATA);
            assert_string_equal(err.message, want);
        }
    /* extension names and attribute names (object keys) too */
    expect_refusal(ASSET ",\"extensionsUsed\":[\"KHR_ok\",\"x\xed\xa0\x80\"]}", CNA_ERROR_INVALID_DATA,
                   "extensionsUsed[1]: invalid UTF-8 at byte 1");
    expect_refusal(ASSET ",\"buffers\":[{\"byteLength\":1,\"uri\":\"data:application/octet-stream;base64,AA==\"}],"
                         "\"bufferViews\":[{\"buffer\":0,\"byteLength\":1}],"
                         "\"accessors\":[{\"bufferView\":0,\"componentType\":5121,\"count\":1,\"type\":\"SCALAR\"}],"
                         "\"meshes\":[{\"primitives\":[{\"attributes\":{\"_A\":0,\"_X\xc0\xaf\":0}}]}]}",
                   CNA_ERROR_INVALID_DATA,
                   "meshes[0].primitives[0].attributes: the name of attribute 1: invalid UTF-8 at byte 2");
    /* the byte offset is the first bad byte's, after valid multi-byte characters */
    expect_refusal(ASSET ",\"nodes\":[{\"name\":\"\xc3\x91\xe6\x97\xa5\xf0\x9f\x98\x80\xe2\x82\"}]}",
                   CNA_ERROR_INVALID_DATA, "nodes[0].name: invalid UTF-8 at byte 9");
}

/* ------------------------------------------------------------------ NUL */

static void expect_nul_refusal(const char *text, size_t size, const char *want)
{
    cna_gltf_document *doc;
    cna_error err;
    cna_result r = load_text(text, size, &doc, &err);
    if (r != CNA_ERROR_PARSE || strcmp(err.message, want) != 0)
        print_error("want %s, got %s: %s\n", want, cna_result_name(r), r ? err.message : "ok");
    assert_int_equal(r, CNA_ERROR_PARSE);
    assert_string_equal(err.message, want);
}

static void a_nul_character_in_any_string_is_refused_naming_the_json_path(void **state)
{
    (void)state;
    /* the escape \u0000 in every kind of name */
    for (size_t p = 0; p < sizeof string_places / sizeof string_places[0]; p++) {
        char text[1024], want[128];
        document_with(text, sizeof text, string_places[p].kind, "ab\\u0000cd");
        snprintf(want, sizeof want, "%s: string contains a NUL character (\\u0000)", string_places[p].path);
        expect_nul_refusal(text, strlen(text), want);
    }
    /* a URI that would otherwise be cut to "a.png" */
    const char *uri = ASSET ",\"images\":[{\"uri\":\"a.png\\u0000.exe\"}]}";
    expect_nul_refusal(uri, strlen(uri), "images[0].uri: string contains a NUL character (\\u0000)");
    /* extension names, in lists and as member names */
    const char *used = ASSET ",\"extensionsUsed\":[\"KHR_ok\",\"KHR_materials_unlit\\u0000x\"]}";
    expect_nul_refusal(used, strlen(used), "extensionsUsed[1]: string contains a NUL character (\\u0000)");
    const char *key = ASSET ",\"nodes\":[{},{\"extensions\":{\"EXT_a\":{},\"EXT_b\\u0000\":{}}}]}";
    expect_nul_refusal(key, strlen(key),
                       "nodes[1].extensions: the name of member 1 contains a NUL character (\\u0000)");
    const char *top = ASSET ",\"\\u0000\":1}";
    expect_nul_refusal(top, strlen(top), "(the root): the name of member 1 contains a NUL character (\\u0000)");
    /* an animation pointer */
    const char *pointer =
        ASSET ",\"animations\":[{\"channels\":[{\"sampler\":0,\"target\":{\"path\":\"pointer\",\"extensions\":"
              "{\"KHR_animation_pointer\":{\"pointer\":\"/nodes/0/translation\\u0000/x\"}}}}],\"samplers\":[]}]}";
    expect_nul_refusal(pointer, strlen(pointer),
                       "animations[0].channels[0].target.extensions.KHR_animation_pointer.pointer: string "
                       "contains a NUL character (\\u0000)");
    /* the first NUL is named, after strings with other escapes */
    const char *second = ASSET ",\"nodes\":[{\"name\":\"a\\\"b\\\\\"},{\"name\":\"\\u00001\"},{\"name\":\"\\u0000\"}]}";
    expect_nul_refusal(second, strlen(second), "nodes[1].name: string contains a NUL character (\\u0000)");
    /* a raw 0x00 byte inside a string (cJSON would copy it) */
    static const char raw[] = ASSET ",\"nodes\":[{\"name\":\"ab\0cd\"}]}";
    expect_nul_refusal(raw, sizeof raw - 1, "nodes[0].name: string contains a NUL character (\\u0000)");
    /* an escaped backslash followed by "u0000" is not a NUL: it loads as written */
    const char *escaped = ASSET ",\"nodes\":[{\"name\":\"a\\\\u0000\"},{\"name\":\"\\\\\\\\u0000\"}]}";
    cna_gltf_document *doc;
    cna_error err;
    cna_result r = load_text(escaped, strlen(escaped), &doc, &err);
    if (r) print_error("%s\n", err.message);
    assert_int_equal(r, CNA_OK);
    assert_string_equal(doc->nodes[0].name, "a\\u0000");
    assert_string_equal(doc->nodes[1].name, "\\\\u0000");
    cna_gltf_document_free(doc);
    /* but three backslashes are an escaped one and then a NUL */
    const char *odd = ASSET ",\"nodes\":[{\"name\":\"\\\\\\u0000\"}]}";
    expect_nul_refusal(odd, strlen(odd), "nodes[0].name: string contains a NUL character (\\u0000)");
    /* other \u escapes still load */
    const char *other = ASSET ",\"nodes\":[{\"name\":\"\\u0041\\u00e9\"}]}";
    assert_int_equal(load_text(other, strlen(other), &doc, &err), CNA_OK);
    assert_string_equal(doc->nodes[0].name, "A\xc3\xa9");
    cna_gltf_document_free(doc);
}

static void valid_multibyte_strings_load_byte_for_byte(void **state)
{
    (void)state;
    static const char *const names[] = {
        "\xc3\x91" "and\xc3\xba",             /* Ñandú */
        "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", /* 日本語 */
        "\xf0\x9f\x98\x80",                   /* U+1F600 */
        "\xc2\x80",                           /* U+0080, the first 2-byte */
        "\xe0\xa0\x80",                       /* U+0800, the first 3-byte */
        "\xed\x9f\xbf",                       /* U+D7FF, below the surrogates */
        "\xee\x80\x80",                       /* U+E000, above them */
        "\xef\xbf\xbf",                       /* U+FFFF */
        "\xf0\x90\x80\x80",                   /* U+10000, the first 4-byte */
        "\xf4\x8f\xbf\xbf",                   /* U+10FFFF, the last */
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char text[512];
        document_with(text, sizeof text, "nodes", names[i]);
        cna_gltf_document *doc;
        cna_error err;
        cna_result r = load_text(text, strlen(text), &doc, &err);
        if (r) print_error("%zu: %s\n", i, err.message);
        assert_int_equal(r, CNA_OK);
        assert_int_equal(doc->node_count, 4);
        assert_string_equal(doc->nodes[3].name, names[i]);
        cna_gltf_document_free(doc);
        document_with(text, sizeof text, "materials", names[i]);
        assert_int_equal(load_text(text, strlen(text), &doc, &err), CNA_OK);
        assert_string_equal(doc->materials[0].name, names[i]);
        cna_gltf_document_free(doc);
    }
}

static void a_message_quoting_a_string_cut_inside_a_character_stays_valid_utf8(void **state)
{
    (void)state;
    /* alphaMode messages quote at most 40 bytes: "a" and 25 two-byte "é" are
     * cut after the first byte of the 20th; that half character becomes '?'. */
    char mode[64] = "a";
    for (int i = 0; i < 25; i++) strcat(mode, "\xc3\xa9");
    char text[256], want[256], quoted[64] = "a";
    snprintf(text, sizeof text, ASSET ",\"materials\":[{\"alphaMode\":\"%s\"}]}", mode);
    for (int i = 0; i < 19; i++) strcat(quoted, "\xc3\xa9");
    strcat(quoted, "?");
    snprintf(want, sizeof want, "materials[0].alphaMode: \"%s\" is not OPAQUE, MASK or BLEND", quoted);
    expect_refusal(text, CNA_ERROR_INVALID_DATA, want);
    assert_int_equal(cna__utf8_invalid_at(want, strlen(want)), strlen(want));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_buffer_uri_naming_a_fifo_or_device_is_refused_without_waiting),
        cmocka_unit_test(a_fifo_device_or_directory_as_the_document_is_refused_without_waiting),
        cmocka_unit_test(nesting_past_the_parser_limit_says_so),
        cmocka_unit_test(invalid_utf8_in_any_string_is_refused_naming_the_json_path),
        cmocka_unit_test(a_nul_character_in_any_string_is_refused_naming_the_json_path),
        cmocka_unit_test(valid_multibyte_strings_load_byte_for_byte),
        cmocka_unit_test(a_message_quoting_a_string_cut_inside_a_character_stays_valid_utf8),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
