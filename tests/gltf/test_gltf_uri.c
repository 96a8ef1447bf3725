/*
 * Buffers and images from URIs: data: URIs (strict base64,
 * percent-encoded), external files relative to the asset's folder with
 * percent-decoding, refusal of paths that are absolute, contain "..", carry a
 * scheme or a backslash, or lead outside the folder through a symbolic link,
 * ".." allowed inside a caller's asset root (and refused when it escapes it),
 * the resolver callback (buffers and images, release, errors), loading from
 * memory, missing images as diagnostics, and the size limit.
 */
#define _XOPEN_SOURCE 700 /* realpath, mkdtemp, symlink */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "gltf/gltf_test_util.h"
#include "support/proc.h"
#include "win_compat.h"

/* A triangle whose buffer comes from `uri` (a printf %s), plus one image (texture coordinates: zeros). */
static const char MODEL_FMT[] =
    "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":36,\"uri\":\"%s\"}],"
    "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],"
    "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"min\":[1,2,3],"
    "\"max\":[7,8,9]},{\"componentType\":5126,\"count\":3,\"type\":\"VEC2\"}],"
    "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"TEXCOORD_0\":1},\"material\":0}]}],"
    "\"nodes\":[{\"mesh\":0}],"
    "\"materials\":[{\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0}}}],"
    "\"textures\":[{\"source\":0}],\"images\":[{\"uri\":\"%s\"}]}";

static char root_dir[96];   /* a temporary folder: outside.bin and asset/ */
static char asset_dir[128]; /* the model's folder */
static char asset_real[PATH_MAX];
static char root_real[PATH_MAX];
static uint8_t tri[36];

static void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
}

static void asset_path(char *out, size_t size, const char *name)
{
    snprintf(out, size, "%s/%s", asset_dir, name);
}

static int setup(void **state)
{
    (void)state;
    for (int i = 0; i < 9; i++) tu_put_f32(tri + 4 * i, (float)(i + 1));
    cna_test_temp_dir(root_dir, sizeof root_dir, "cna-gltf-uri-");
    char p[256];
    snprintf(asset_dir, sizeof asset_dir, "%s/asset", root_dir);
    if (mkdir(asset_dir, 0700) != 0) return -1;
    asset_path(p, sizeof p, "sub");
    if (mkdir(p, 0700) != 0) return -1;
    snprintf(p, sizeof p, "%s/outside.bin", root_dir);
    write_file(p, tri, sizeof tri);
    asset_path(p, sizeof p, "tri.bin");
    write_file(p, tri, sizeof tri);
    asset_path(p, sizeof p, "my model.bin");
    write_file(p, tri, sizeof tri);
    asset_path(p, sizeof p, "sub/tri.bin");
    write_file(p, tri, sizeof tri);
    asset_path(p, sizeof p, "tex.png");
    write_file(p, "\x89PNG\r\n\x1a\n", 8);
#ifndef _WIN32 /* making a symbolic link on Windows takes a privilege that tests do not have */
    asset_path(p, sizeof p, "link.bin");
    if (symlink("../outside.bin", p) != 0) return -1;
#endif
    cna_test_real_path(asset_dir, asset_real, sizeof asset_real);
    cna_test_real_path(root_dir, root_real, sizeof root_real);
    snprintf(p, sizeof p, "%s/textures", root_dir);
    if (mkdir(p, 0700) != 0) return -1;
    snprintf(p, sizeof p, "%s/textures/skin.png", root_dir);
    write_file(p, "\x89PNG\r\n\x1a\n", 8);
    snprintf(p, sizeof p, "%s/plain-file", root_dir);
    write_file(p, "x", 1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    cna_test_remove_tree(root_dir);
    return 0;
}

/* Write asset/model.gltf with these buffer and image URIs and load it. */
static cna_result load_model(const char *buffer_uri, const char *image_uri, const cna_gltf_options *opts,
                             cna_gltf_document **doc, cna_error *err)
{
    char json[2048], path[256];
    snprintf(json, sizeof json, MODEL_FMT, buffer_uri, image_uri);
    asset_path(path, sizeof path, "model.gltf");
    write_file(path, json, strlen(json));
    return cna_gltf_load_file(path, opts, doc, err);
}

static void expect_model_error(const char *buffer_uri, cna_result code, const char *message)
{
    cna_gltf_document *doc = NULL;
    cna_error err;
    cna_result r = load_model(buffer_uri, "tex.png", NULL, &doc, &err);
    if (r != code || strcmp(err.message, message) != 0)
        fail_msg("expected %s \"%s\"\n     got %s \"%s\"", cna_result_name(code), message, cna_result_name(r),
                 err.message);
    assert_null(doc);
}

static void expect_triangle(const cna_gltf_document *doc)
{
    float xyz[9];
    assert_int_equal(cna_gltf_accessor_read_floats(doc, 0, xyz, 9, NULL), CNA_OK);
    for (int i = 0; i < 9; i++) assert_true(xyz[i] == (float)(i + 1));
}

/* ------------------------------------------------------------ files */

static void test_external_buffer_resolves_relative_to_the_asset_folder(void **state)
{
    (void)state;
    cna_gltf_document *doc = NULL;
    cna_error err;
    assert_int_equal(load_model("tri.bin", "tex.png", NULL, &doc, &err), CNA_OK);
    assert_int_equal(doc->buffers[0].source, CNA_GLTF_SOURCE_EXTERNAL);
    assert_string_equal(doc->buffers[0].uri, "tri.bin");
    char bin[256];
    asset_path(bin, sizeof bin, "tri.bin");
    assert_string_equal(doc->buffers[0].path, bin); /* the file read */
    expect_triangle(doc);
    char png[256];
    asset_path(png, sizeof png, "tex.png");
    assert_true(doc->images[0].available);
    assert_string_equal(doc->images[0].path, png);
    assert_null(doc->images[0].data); /* images are never read */
    assert_int_equal(doc->diagnostic_count, 0);
    cna_gltf_document_free(doc);
}

static void test_uri_is_percent_decoded(void **state)
{
    (void)state;
    cna_gltf_document *doc = NULL;
    cna_error err;
    assert_int_equal(load_model("my%20model.bin", "te%78.png", NULL, &doc, &err), CNA_OK);
    assert_string_equal(doc->buffers[0].uri, "my model.bin");
    assert_string_equal(doc->images[0].uri, "tex.png");
    assert_true(doc->images[0].available);
    expect_triangle(doc);
    cna_gltf_document_free(doc);
}

static void test_subfolder_and_dot_segments_inside_the_folder_load(void **state)
{
    (void)state;
    cna_gltf_document *doc = NULL;
    cna_error err;
    assert_int_equal(load_model("sub/tri.bin", "./tex.png", NULL, &doc, &err), CNA_OK);
    expect_triangle(doc);
    cna_gltf_document_free(doc);
    assert_int_equal(load_model("./sub/./tri.bin", "tex.png", NULL, &doc, &err), CNA_OK);
    cna_gltf_document_free(doc);
}

static void test_dot_dot_segment_is_refused(void **state)
{
    (void)state;
    expect_model_error("../outside.bin", CNA_ERROR_INVALID_DATA,
                       "buffers[0] (uri \"../outside.bin\"): \"..\" segments are refused (cna_gltf_options.asset_root "
                       "allows them inside a root folder)");
    expect_model_error("sub/../../outside.bin", CNA_ERROR_INVALID_DATA,
                       "buffers[0] (uri \"sub/../../outside.bin\"): \"..\" segments are refused "
                       "(cna_gltf_options.asset_root allows them inside a root folder)");
}

static void test_percent_encoded_dot_dot_is_refused_after_decoding(void **state)
{
    (void)state;
    expect_model_error("%2E%2e/outside.bin", CNA_ERROR_INVALID_DATA,
                       "buffers[0] (uri \"../outside.bin\"): \"..\" segments are refused (cna_gltf_options.asset_root "
                       "allows them inside a root folder)");
}

static void test_absolute_path_is_refused(void **state)
{
    (void)state;
    expect_model_error("/etc/hostname", CNA_ERROR_INVALID_DATA,
                       "buffers[0] (uri \"/etc/hostname\"): absolute paths are refused");
}

static void test_uri_with_a_scheme_is_refused(void **state)
{
    (void)state;
    expect_model_error("file:///etc/hostname", CNA_ERROR_INVALID_DATA,
                       "buffers[0] (uri \"file:///etc/hostname\"): URIs with a scheme are refused (only relative paths "
                       "are resolved)");
    expect_model_error("http://example.com/a.bin", CNA_ERROR_INVALID_DATA,
                       "buffers[0] (uri \"http://example.com/a.bin\"): URIs with a scheme are refused (only relative "
                       "paths are resolved)");
}

static void test_backslash_is_refused(void **state)
{
    (void)state;
    expect_model_error("..\\\\outside.bin", CNA_ERROR_INVALID_DATA,
                       "buffers[0] (uri \"..\\outside.bin\"): backslashes are refused");
}

#ifndef _WIN32
static void test_symbolic_link_leading_outside_is_refused(void **state)
{
    (void)state;
    char message[2 * PATH_MAX];
    snprintf(message, sizeof message,
             "buffers[0] (uri \"link.bin\"): \"%s/link.bin\" leads outside the asset's folder \"%s\"", asset_dir,
             asset_real);
    expect_model_error("link.bin", CNA_ERROR_INVALID_DATA, message);
}

#endif

static void test_missing_buffer_file_is_an_io_error(void **state)
{
    (void)state;
    char message[1024];
    snprintf(message, sizeof message,
             "buffers[0] (uri \"nope.bin\"): cannot open \"%s/nope.bin\": No such file or directory", asset_dir);
    expect_model_error("nope.bin", CNA_ERROR_IO, message);
}

static void test_bad_percent_escape_is_a_parse_error(void **state)
{
    (void)state;
    expect_model_error("a%2", CNA_ERROR_PARSE, "buffers[0].uri \"a%2\": bad percent-escape at character 1");
    expect_model_error("a%00.bin", CNA_ERROR_PARSE, "buffers[0].uri \"a%00.bin\": %00 is not allowed");
}

static void test_missing_image_is_a_diagnostic_and_the_model_loads(void **state)
{
    (void)state;
    cna_gltf_document *doc = NULL;
    cna_error err;
    assert_int_equal(load_model("tri.bin", "l.jpg", NULL, &doc, &err), CNA_OK);
    assert_false(doc->images[0].available);
    char message[1024];
    snprintf(message, sizeof message,
             "images[0] (uri \"l.jpg\"): cannot open \"%s/l.jpg\": No such file or directory", asset_dir);
    tu_expect_diag(doc, CNA_GLTF_DIAG_IMAGE_MISSING, 1, message);
    cna_gltf_document_free(doc);
}

static void test_image_outside_the_folder_is_refused_as_a_diagnostic(void **state)
{
    (void)state;
    cna_gltf_document *doc = NULL;
    cna_error err;
    assert_int_equal(load_model("tri.bin", "/etc/hostname", NULL, &doc, &err), CNA_OK);
    assert_false(doc->images[0].available);
    tu_expect_diag(doc, CNA_GLTF_DIAG_IMAGE_MISSING, 1, "images[0] (uri \"/etc/hostname\"): absolute paths are refused");
    cna_gltf_document_free(doc);
}

static void test_load_file_errors(void **state)
{
    (void)state;
    cna_gltf_document *doc = NULL;
    cna_error err;
    assert_int_equal(cna_gltf_load_file("/nonexistent/x.gltf", NULL, &doc, &err), CNA_ERROR_IO);
    assert_string_equal(err.message, "cannot open \"/nonexistent/x.gltf\": No such file or directory");
    assert_int_equal(cna_gltf_load_file(asset_dir, NULL, &doc, &err), CNA_ERROR_IO);
    char message[256];
    snprintf(message, sizeof message, "\"%s\": not a regular file", asset_dir);
    assert_string_equal(err.message, message);
    assert_int_equal(cna_gltf_load_file(NULL, NULL, &doc, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(cna_gltf_load_file(asset_dir, NULL, NULL, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_null(doc);
    cna_gltf_document_free(NULL);
}

/* ------------------------------------------------------------ asset root */

/* The layout: root_dir/{outside.bin, textures/skin.png, asset/{model.gltf, tri.bin,
 * link.bin -> ../outside.bin, sub/}}. */
static cna_gltf_options root_options(const char *root)
{
    cna_gltf_options o;
    memset(&o, 0, sizeof o);
    o.asset_root = root;
    return o;
}

static void expect_root_error(const char *root, const char *buffer_uri, cna_result code, const char *message)
{
    cna_gltf_options o = root_options(root);
    cna_gltf_document *doc = NULL;
    cna_error err;
    cna_result r = load_model(buffer_uri, "tex.png", &o, &doc, &err);
    if (r != code || strcmp(err.message, message) != 0)
        fail_msg("expected %s \"%s\"\n     got %s \"%s\"", cna_result_name(code), message, cna_result_name(r),
                 err.message);
    assert_null(doc);
}

static void test_dot_dot_inside_the_asset_root_loads_the_right_bytes(void **state)
{
    (void)state;
    cna_gltf_options o = root_options(root_dir);
    cna_gltf_document *doc = NULL;
    cna_error err;
    assert_int_equal(load_model("../outside.bin", "../textures/skin.png", &o, &doc, &err), CNA_OK);
    assert_string_equal(doc->buffers[0].uri, "../outside.bin");
    char path[256];
    asset_path(path, sizeof path, "../outside.bin");
    assert_string_equal(doc->buffers[0].path, path);
    expect_triangle(doc);
    assert_true(doc->images[0].available);
    asset_path(path, sizeof path, "../textures/skin.png");
    assert_string_equal(doc->images[0].path, path);
    assert_int_equal(doc->diagnostic_count, 0);
    cna_gltf_document_free(doc);
    /* percent-encoded, through a subfolder, and files inside the asset's own folder */
    assert_int_equal(load_model("sub/%2E%2E/../outside.bin", "tex.png", &o, &doc, &err), CNA_OK);
    expect_triangle(doc);
    cna_gltf_document_free(doc);
    assert_int_equal(load_model("tri.bin", "tex.png", &o, &doc, &err), CNA_OK);
    expect_triangle(doc);
    cna_gltf_document_free(doc);
    /* the root named by a relative path with ".." of its own */
    char relative[256];
    snprintf(relative, sizeof relative, "%s/sub/../..", asset_dir);
    o = root_options(relative);
    assert_int_equal(load_model("../outside.bin", "tex.png", &o, &doc, &err), CNA_OK);
    expect_triangle(doc);
    cna_gltf_document_free(doc);
}

static void test_dot_dot_escaping_the_asset_root_is_refused(void **state)
{
    (void)state;
    char message[3 * PATH_MAX];
    snprintf(message, sizeof message,
             "buffers[0] (uri \"../outside.bin\"): \"%s/../outside.bin\" (real path \"%s/outside.bin\") leads "
             "outside the asset root \"%s\"",
             asset_dir, root_real, asset_real);
    expect_root_error(asset_dir, "../outside.bin", CNA_ERROR_INVALID_DATA, message);
    /* an image escaping the root: the diagnostic image-missing, the model loads */
    cna_gltf_options o = root_options(asset_dir);
    cna_gltf_document *doc = NULL;
    cna_error err;
    assert_int_equal(load_model("tri.bin", "../textures/skin.png", &o, &doc, &err), CNA_OK);
    assert_false(doc->images[0].available);
    snprintf(message, sizeof message,
             "images[0] (uri \"../textures/skin.png\"): \"%s/../textures/skin.png\" (real path "
             "\"%s/textures/skin.png\") leads outside the asset root \"%s\"",
             asset_dir, root_real, asset_real);
    tu_expect_diag(doc, CNA_GLTF_DIAG_IMAGE_MISSING, 1, message);
    cna_gltf_document_free(doc);
}

#ifndef _WIN32
static void test_symbolic_link_escaping_the_asset_root_is_refused(void **state)
{
    (void)state;
    char message[3 * PATH_MAX];
    snprintf(message, sizeof message,
             "buffers[0] (uri \"sub/../link.bin\"): \"%s/sub/../link.bin\" (real path \"%s/outside.bin\") leads "
             "outside the asset root \"%s\"",
             asset_dir, root_real, asset_real);
    expect_root_error(asset_dir, "sub/../link.bin", CNA_ERROR_INVALID_DATA, message);
    /* the same link is fine under a root that holds its target */
    cna_gltf_options o = root_options(root_dir);
    cna_gltf_document *doc = NULL;
    cna_error err;
    assert_int_equal(load_model("sub/../link.bin", "tex.png", &o, &doc, &err), CNA_OK);
    expect_triangle(doc);
    cna_gltf_document_free(doc);
}

#endif

static void test_without_an_asset_root_dot_dot_stays_refused(void **state)
{
    (void)state;
    expect_root_error(NULL, "../outside.bin", CNA_ERROR_INVALID_DATA,
                      "buffers[0] (uri \"../outside.bin\"): \"..\" segments are refused (cna_gltf_options.asset_root "
                      "allows them inside a root folder)");
    cna_gltf_options o = root_options(NULL);
    cna_gltf_document *doc = NULL;
    cna_error err;
    assert_int_equal(load_model("sub/../../outside.bin", "tex.png", &o, &doc, &err), CNA_ERROR_INVALID_DATA);
    assert_null(doc);
}

static void test_asset_root_that_is_not_a_folder_is_a_clear_error(void **state)
{
    (void)state;
    char root[256], message[512];
    snprintf(root, sizeof root, "%s/missing", root_dir);
    snprintf(message, sizeof message, "asset root \"%s\": No such file or directory", root);
    expect_root_error(root, "tri.bin", CNA_ERROR_IO, message);
    snprintf(root, sizeof root, "%s/plain-file", root_dir);
    snprintf(message, sizeof message, "asset root \"%s\": not a folder", root);
    expect_root_error(root, "tri.bin", CNA_ERROR_INVALID_ARGUMENT, message);
    expect_root_error("", "tri.bin", CNA_ERROR_INVALID_ARGUMENT, "asset root: the path is empty");
}

/* ------------------------------------------------------------ resolver */

typedef struct resolver_log {
    int calls, releases;
    cna_gltf_uri_kind kinds[4];
    char uris[4][64];
    const void *given;
    cna_result fail_with;
    bool image_exists_only;
    size_t answer_size; /* 0: the 36-byte triangle */
} resolver_log;

static cna_result log_resolve(void *user, cna_gltf_uri_kind kind, const char *uri, const void **data, size_t *size,
                              cna_error *err)
{
    resolver_log *log = (resolver_log *)user;
    int i = log->calls++;
    if (i < 4) {
        log->kinds[i] = kind;
        snprintf(log->uris[i], sizeof log->uris[i], "%s", uri);
    }
    if (log->fail_with != CNA_OK) {
        snprintf(err->message, sizeof err->message, "no such blob");
        return log->fail_with;
    }
    if (kind == CNA_GLTF_URI_IMAGE && log->image_exists_only) {
        *data = NULL;
        *size = 0;
        return CNA_OK;
    }
    size_t n = log->answer_size ? log->answer_size : sizeof tri;
    uint8_t *copy = (uint8_t *)calloc(1, n);
    assert_non_null(copy);
    memcpy(copy, tri, sizeof tri);
    *data = copy;
    *size = n;
    log->given = copy;
    return CNA_OK;
}

static void log_release(void *user, const void *data, size_t size)
{
    resolver_log *log = (resolver_log *)user;
    assert_int_equal(size, log->answer_size ? log->answer_size : sizeof tri);
    log->releases++;
    free((void *)(uintptr_t)data);
}

static void test_resolver_serves_buffers_and_images_with_decoded_uris(void **state)
{
    (void)state;
    resolver_log log;
    memset(&log, 0, sizeof log);
    cna_gltf_options opts;
    memset(&opts, 0, sizeof opts);
    opts.resolve = log_resolve;
    opts.release = log_release;
    opts.resolver_user_data = &log;
    cna_gltf_document *doc = NULL;
    cna_error err;
    /* The resolver decides: a ".." URI is passed to it unchecked. */
    assert_int_equal(load_model("virtual%20dir/../tri.bin", "img.png", &opts, &doc, &err), CNA_OK);
    assert_int_equal(log.calls, 2);
    assert_int_equal(log.releases, 2);
    assert_int_equal(log.kinds[0], CNA_GLTF_URI_BUFFER);
    assert_string_equal(log.uris[0], "virtual dir/../tri.bin");
    assert_int_equal(log.kinds[1], CNA_GLTF_URI_IMAGE);
    assert_string_equal(log.uris[1], "img.png");
    assert_true(doc->images[0].available);
    assert_null(doc->images[0].path);
    assert_null(doc->buffers[0].path); /* no file: the resolver's bytes */
    expect_triangle(doc); /* the bytes were copied before release */
    cna_gltf_document_free(doc);
}

/* With a resolver, asset_root is not used (not even resolved): the resolver decides. */
static void test_asset_root_is_ignored_with_a_resolver(void **state)
{
    (void)state;
    resolver_log log;
    memset(&log, 0, sizeof log);
    cna_gltf_options opts = root_options("/nonexistent-root");
    opts.resolve = log_resolve;
    opts.release = log_release;
    opts.resolver_user_data = &log;
    cna_gltf_document *doc = NULL;
    cna_error err;
    assert_int_equal(load_model("../../anywhere.bin", "img.png", &opts, &doc, &err), CNA_OK);
    assert_string_equal(log.uris[0], "../../anywhere.bin");
    expect_triangle(doc);
    cna_gltf_document_free(doc);
}

static void test_resolver_is_used_when_loading_from_memory(void **state)
{
    (void)state;
    resolver_log log;
    memset(&log, 0, sizeof log);
    log.image_exists_only = true;
    cna_gltf_options opts;
    memset(&opts, 0, sizeof opts);
    opts.resolve = log_resolve;
    opts.release = log_release;
    opts.resolver_user_data = &log;
    char json[2048];
    snprintf(json, sizeof json, MODEL_FMT, "tri.bin", "tex.png");
    cna_gltf_document *doc = NULL;
    cna_error err;
    assert_int_equal(cna_gltf_load_memory(json, strlen(json), &opts, &doc, &err), CNA_OK);
    assert_int_equal(log.calls, 2);
    assert_int_equal(log.releases, 1); /* nothing to release for the image */
    assert_true(doc->images[0].available);
    expect_triangle(doc);
    cna_gltf_document_free(doc);
}

static void test_resolver_error_names_the_buffer_and_keeps_the_code(void **state)
{
    (void)state;
    resolver_log log;
    memset(&log, 0, sizeof log);
    log.fail_with = CNA_ERROR_IO;
    cna_gltf_options opts;
    memset(&opts, 0, sizeof opts);
    opts.resolve = log_resolve;
    opts.resolver_user_data = &log;
    char json[2048];
    snprintf(json, sizeof json, MODEL_FMT, "tri.bin", "tex.png");
    cna_gltf_document *doc = NULL;
    cna_error err;
    assert_int_equal(cna_gltf_load_memory(json, strlen(json), &opts, &doc, &err), CNA_ERROR_IO);
    assert_string_equal(err.message, "buffers[0] (uri \"tri.bin\"): no such blob");
    assert_null(doc);
}

static void test_failing_image_resolver_is_a_diagnostic(void **state)
{
    (void)state;
    resolver_log log;
    memset(&log, 0, sizeof log);
    cna_gltf_options opts;
    memset(&opts, 0, sizeof opts);
    opts.resolve = log_resolve;
    opts.release = log_release;
    opts.resolver_user_data = &log;
    char json[2048];
    snprintf(json, sizeof json, MODEL_FMT, "data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "x.png");
    log.fail_with = CNA_ERROR_IO;
    cna_gltf_document *doc = NULL;
    cna_error err;
    assert_int_equal(cna_gltf_load_memory(json, strlen(json), &opts, &doc, &err), CNA_OK);
    assert_int_equal(log.calls, 1); /* data: URIs never reach the resolver */
    tu_expect_diag(doc, CNA_GLTF_DIAG_IMAGE_MISSING, 1, "images[0] (uri \"x.png\"): no such blob");
    cna_gltf_document_free(doc);
}

static void test_memory_load_without_resolver_refuses_external_buffers(void **state)
{
    (void)state;
    char json[2048];
    snprintf(json, sizeof json, MODEL_FMT, "tri.bin", "tex.png");
    cna_gltf_document *doc = NULL;
    cna_error err;
    assert_int_equal(cna_gltf_load_memory(json, strlen(json), NULL, &doc, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "buffers[0] (uri \"tri.bin\"): external URIs need a resolver "
                                     "(cna_gltf_options.resolve) when loading from memory");
    assert_int_equal(cna_gltf_load_memory(NULL, 3, NULL, &doc, &err), CNA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(cna_gltf_load_memory(json, 0, NULL, &doc, &err), CNA_ERROR_PARSE);
    assert_string_equal(err.message, "the input is empty");
    assert_null(doc);
}

static void test_size_limit_applies_to_input_and_resolver_answers(void **state)
{
    (void)state;
    char json[2048];
    snprintf(json, sizeof json, MODEL_FMT, "tri.bin", "tex.png");
    cna_gltf_options opts;
    memset(&opts, 0, sizeof opts);
    opts.max_file_size = 100;
    cna_gltf_document *doc = NULL;
    cna_error err;
    assert_int_equal(cna_gltf_load_memory(json, strlen(json), &opts, &doc, &err), CNA_ERROR_LIMIT);
    char message[256];
    snprintf(message, sizeof message, "the input's %zu bytes exceed the limit of 100 bytes", strlen(json));
    assert_string_equal(err.message, message);
    resolver_log log;
    memset(&log, 0, sizeof log);
    log.answer_size = 100000;
    opts.max_file_size = 50000;
    opts.resolve = log_resolve;
    opts.release = log_release;
    opts.resolver_user_data = &log;
    assert_int_equal(cna_gltf_load_memory(json, strlen(json), &opts, &doc, &err), CNA_ERROR_LIMIT);
    assert_string_equal(err.message, "buffers[0] (uri \"tri.bin\"): 100000 bytes exceed the limit of 50000 bytes");
    assert_int_equal(log.releases, 1);
    assert_null(doc);
}

/* ------------------------------------------------------------ data: URIs */

static void expect_data_uri_error(const char *uri, const char *message)
{
    char json[2048];
    snprintf(json, sizeof json, MODEL_FMT, uri, "tex.png");
    tu_expect_error(json, "", 0, CNA_ERROR_PARSE, message);
}

static void test_data_uri_base64_is_strict(void **state)
{
    (void)state;
    expect_data_uri_error("data:application/octet-stream;base64,AA*A", "buffers[0].uri: base64: invalid character 0x2A at character 2");
    expect_data_uri_error("data:application/octet-stream;base64,AB==", "buffers[0].uri: base64: final character has non-zero unused bits");
    expect_data_uri_error("data:application/octet-stream;base64,A=AA", "buffers[0].uri: base64: '=' at character 1 before the end");
    expect_data_uri_error("data:application/octet-stream;base64,AAAAA", "buffers[0].uri: base64: length 5 is not valid");
    expect_data_uri_error("data:application/octet-stream;base64,AA A", "buffers[0].uri: base64: invalid character 0x20 at character 2");
    expect_data_uri_error("data:application/octet-stream;base64", "buffers[0].uri: data URI has no ','");
}

static void test_data_uri_base64_with_and_without_padding_decodes(void **state)
{
    (void)state;
    static const char json_fmt[] =
        "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":%d,\"uri\":\"data:application/octet-stream;base64,%s\"}]}";
    const struct {
        const char *b64;
        int len;
        uint8_t bytes[4];
    } cases[] = {{"AQID", 3, {1, 2, 3}}, {"AQI=", 2, {1, 2}}, {"AQI", 2, {1, 2}}, {"AQ==", 1, {1}}, {"/w", 1, {255}}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char json[512];
        snprintf(json, sizeof json, json_fmt, cases[i].len, cases[i].b64);
        cna_gltf_document *doc = tu_expect_ok(json, "", 0);
        assert_memory_equal(doc->buffers[0].data, cases[i].bytes, (size_t)cases[i].len);
        cna_gltf_document_free(doc);
    }
}

static void test_percent_encoded_data_uri_decodes(void **state)
{
    (void)state;
    const char json[] = "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4,\"uri\":\"data:application/octet-stream,A%00%FFz\"}]}";
    cna_gltf_document *doc = tu_expect_ok(json, "", 0);
    const uint8_t expected[4] = {'A', 0, 255, 'z'};
    assert_memory_equal(doc->buffers[0].data, expected, 4);
    cna_gltf_document_free(doc);
}

static void test_bad_image_data_uri_is_a_diagnostic(void **state)
{
    (void)state;
    char json[2048];
    snprintf(json, sizeof json, MODEL_FMT, "data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
             "data:image/png;base64,iVBO*");
    cna_gltf_document *doc = tu_expect_ok(json, "", 0);
    assert_false(doc->images[0].available);
    assert_int_equal(doc->images[0].source, CNA_GLTF_SOURCE_DATA_URI);
    tu_expect_diag(doc, CNA_GLTF_DIAG_IMAGE_MISSING, 1, "images[0].uri: base64: length 5 is not valid");
    cna_gltf_document_free(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_external_buffer_resolves_relative_to_the_asset_folder),
        cmocka_unit_test(test_uri_is_percent_decoded),
        cmocka_unit_test(test_subfolder_and_dot_segments_inside_the_folder_load),
        cmocka_unit_test(test_dot_dot_segment_is_refused),
        cmocka_unit_test(test_percent_encoded_dot_dot_is_refused_after_decoding),
        cmocka_unit_test(test_absolute_path_is_refused),
        cmocka_unit_test(test_uri_with_a_scheme_is_refused),
        cmocka_unit_test(test_backslash_is_refused),
#ifndef _WIN32
        cmocka_unit_test(test_symbolic_link_leading_outside_is_refused),
#endif
        cmocka_unit_test(test_missing_buffer_file_is_an_io_error),
        cmocka_unit_test(test_bad_percent_escape_is_a_parse_error),
        cmocka_unit_test(test_missing_image_is_a_diagnostic_and_the_model_loads),
        cmocka_unit_test(test_image_outside_the_folder_is_refused_as_a_diagnostic),
        cmocka_unit_test(test_load_file_errors),
        cmocka_unit_test(test_dot_dot_inside_the_asset_root_loads_the_right_bytes),
        cmocka_unit_test(test_dot_dot_escaping_the_asset_root_is_refused),
#ifndef _WIN32
        cmocka_unit_test(test_symbolic_link_escaping_the_asset_root_is_refused),
#endif
        cmocka_unit_test(test_without_an_asset_root_dot_dot_stays_refused),
        cmocka_unit_test(test_asset_root_that_is_not_a_folder_is_a_clear_error),
        cmocka_unit_test(test_asset_root_is_ignored_with_a_resolver),
        cmocka_unit_test(test_resolver_serves_buffers_and_images_with_decoded_uris),
        cmocka_unit_test(test_resolver_is_used_when_loading_from_memory),
        cmocka_unit_test(test_resolver_error_names_the_buffer_and_keeps_the_code),
        cmocka_unit_test(test_failing_image_resolver_is_a_diagnostic),
        cmocka_unit_test(test_memory_load_without_resolver_refuses_external_buffers),
        cmocka_unit_test(test_size_limit_applies_to_input_and_resolver_answers),
        cmocka_unit_test(test_data_uri_base64_is_strict),
        cmocka_unit_test(test_data_uri_base64_with_and_without_padding_decodes),
        cmocka_unit_test(test_percent_encoded_data_uri_decodes),
        cmocka_unit_test(test_bad_image_data_uri_is_a_diagnostic),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
