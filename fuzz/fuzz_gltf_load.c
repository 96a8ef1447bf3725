/*
 * fuzz/fuzz_gltf_load.c — libFuzzer harness over cna_gltf_load_memory.
 *
 * One input is one .gltf (JSON) or .glb file. External URIs go to a resolver
 * that answers every buffer and image URI with the input's own bytes, so the
 * fuzzer controls external buffers too. For every document that loads, the
 * harness then checks the reader's promise that a loaded document can be read
 * without further bounds checks: it reads every accessor (as floats, and as
 * unsigned integers where the component type allows), the first and last
 * element of each, and every node's local matrix. Finally it loads the input
 * again with an allocator that fails at one allocation (chosen from the
 * input's hash), so that the out-of-memory paths are fuzzed too: the load must
 * then either succeed or fail leaving *out untouched, and leak nothing
 * (LeakSanitizer checks).
 *
 * Build: see fuzz/CMakeLists.txt. Run: scripts/fuzz-smoke.sh, or
 *   build-fuzz/fuzz/fuzz_gltf_load -dict=fuzz/gltf.dict CORPUS_DIR SEED_DIR...
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "cna/gltf.h"
#include "fuzz_common.h"

/* Accessors larger than this many components are not read back (time, memory). */
#define FUZZ_MAX_READ_COMPONENTS ((size_t)1 << 22)

typedef struct fuzz_input {
    const uint8_t *data;
    size_t size;
} fuzz_input;

static cna_result fuzz_resolve(void *user_data, cna_gltf_uri_kind kind, const char *uri,
                               const void **data, size_t *size, cna_error *err)
{
    (void)kind;
    (void)uri;
    (void)err;
    const fuzz_input *in = user_data;
    *data = in->data;
    *size = in->size;
    return CNA_OK;
}

static void read_accessor(const cna_gltf_document *doc, int32_t index)
{
    const cna_gltf_accessor *a = &doc->accessors[index];
    size_t n = cna_gltf_accessor_float_count(doc, index);
    size_t comps = cna_gltf_type_component_count(a->type);
    if (n == 0 || comps == 0 || comps > 16) __builtin_trap(); /* loaded accessors have elements */
    if (n <= FUZZ_MAX_READ_COMPONENTS) {
        float *f = malloc(n * sizeof *f);
        if (f) {
            if (cna_gltf_accessor_read_floats(doc, index, f, n, NULL) != CNA_OK) __builtin_trap();
            free(f);
        }
        bool is_uint = a->component_type == CNA_GLTF_COMPONENT_UNSIGNED_BYTE ||
                       a->component_type == CNA_GLTF_COMPONENT_UNSIGNED_SHORT ||
                       a->component_type == CNA_GLTF_COMPONENT_UNSIGNED_INT;
        uint32_t *u = is_uint ? malloc(n * sizeof *u) : NULL;
        if (u) {
            if (cna_gltf_accessor_read_uints(doc, index, u, n, NULL) != CNA_OK) __builtin_trap();
            free(u);
        }
    }
    float element[16];
    if (cna_gltf_accessor_read_element_floats(doc, index, 0, element, 16, NULL) != CNA_OK ||
        cna_gltf_accessor_read_element_floats(doc, index, a->count - 1, element, 16, NULL) != CNA_OK)
        __builtin_trap();
}

static void read_document(const cna_gltf_document *doc)
{
    for (size_t i = 0; i < doc->accessor_count; i++) read_accessor(doc, (int32_t)i);
    for (size_t i = 0; i < doc->node_count; i++) {
        cna_mat4 m;
        cna_gltf_node_local_matrix(&doc->nodes[i], &m);
    }
    size_t n = cna_gltf_document_diagnostic_count(doc);
    for (size_t i = 0; i < n; i++) {
        const cna_gltf_diagnostic *d = cna_gltf_document_diagnostic(doc, i);
        if (!d || !d->code || !d->message || d->count == 0) __builtin_trap();
    }
}

/* FNV-1a, to pick the failing allocation deterministically from the input. */
static uint64_t hash_bytes(const uint8_t *data, size_t size)
{
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < size; i++) h = (h ^ data[i]) * 1099511628211u;
    return h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = {data, size};
    fuzz_alloc_state counting = {0, 0};
    cna_gltf_options opts = {0};
    opts.allocator = (cna_allocator){fuzz_alloc, fuzz_free, &counting};
    opts.resolve = fuzz_resolve;
    opts.resolver_user_data = &in;
    /* bit 1 of the last byte (set by a final newline): load without textures */
    opts.no_textures = size > 0 && (data[size - 1] & 2) != 0;

    cna_gltf_document *doc = NULL;
    cna_error err;
    cna_result r = cna_gltf_load_memory(data, size, &opts, &doc, &err);
    if (r != CNA_OK) {
        /* A refusal: a real code, a message, and no document. */
        if (doc != NULL || err.code != r || err.message[0] == '\0') __builtin_trap();
        return 0;
    }
    if (!doc) __builtin_trap();
    read_document(doc);
    cna_gltf_document_free(doc);

    /* Again, with one allocation failing. */
    if (counting.calls > 0) {
        fuzz_alloc_state failing = {0, 1 + (size_t)(hash_bytes(data, size) % counting.calls)};
        opts.allocator.user_data = &failing;
        cna_gltf_document *sentinel = (cna_gltf_document *)&failing;
        doc = sentinel;
        r = cna_gltf_load_memory(data, size, &opts, &doc, &err);
        if (r == CNA_OK) {
            cna_gltf_document_free(doc);
        } else if (doc != sentinel || err.message[0] == '\0') {
            __builtin_trap(); /* a failed load must leave *out as it was */
        }
    }
    return 0;
}
