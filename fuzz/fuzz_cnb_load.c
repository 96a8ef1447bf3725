/*
 * fuzz/fuzz_cnb_load.c — libFuzzer harness over cna_cnb_load_memory.
 *
 * One input is one .cnb file. It is loaded twice: as given (the header
 * checks, total_size and the checksum refuse almost every mutation), and,
 * when it is at least a header long and a multiple of 8 bytes, as a copy whose
 * total_size is set to the input's size and whose checksum is recomputed (a
 * hostile writer), so that the fuzzer reaches the section table and record
 * validation. For every model that loads, the harness checks the reader's
 * promise that a loaded model can be used without further checks: every
 * part's vertex bytes and indices (each below vertex_count), its source
 * vertices (each below source_vertex_count), every target name, every image's
 * bytes and every effect texture's image index are read; the model is then
 * written again and the bytes must load. Finally the patched copy is loaded
 * with an allocator that fails at one allocation (chosen from the input's
 * hash): the load must then either succeed or fail leaving *out untouched,
 * and leak nothing (LeakSanitizer checks).
 *
 * Build: see fuzz/CMakeLists.txt. Run: scripts/fuzz-smoke.sh, or
 *   build-fuzz/fuzz/fuzz_cnb_load CORPUS_DIR SEED_DIR...
 * (seeds: `cna convert tests/data/corpus/valid -o DIR`).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "baked/cnb_internal.h"
#include "cna/cna.h"
#include "fuzz_common.h"

static volatile uint32_t fuzz_sink;

static void check_texture(const cna_model *m, const cna_effect_texture *t)
{
    if (t->image < -1 || (t->image >= 0 && (size_t)t->image >= m->image_count)) __builtin_trap();
}

/* Read everything the reader promises is in bounds. */
static void read_model(const cna_model *m)
{
    uint32_t sum = 0;
    for (size_t i = 0; i < m->mesh_count; i++) {
        const cna_model_mesh *mesh = &m->meshes[i];
        for (size_t t = 0; mesh->target_names && t < mesh->target_name_count; t++)
            sum += (uint32_t)strlen(mesh->target_names[t]);
        for (size_t k = 0; k < mesh->part_count; k++) {
            const cna_model_part *part = &mesh->parts[k];
            const size_t size = part->vertex_count * part->declaration.stride;
            const unsigned char *v = (const unsigned char *)part->vertices;
            for (size_t b = 0; v && b < size; b += 7) sum += v[b];
            for (size_t x = 0; x < part->index_count; x++)
                if (part->indices[x] >= part->vertex_count) __builtin_trap();
            for (size_t x = 0; part->source_vertex && x < part->vertex_count; x++)
                if (part->source_vertex[x] >= part->source_vertex_count) __builtin_trap();
            if (!part->source_vertex && part->source_vertex_count != part->vertex_count) __builtin_trap();
            if (part->morph && mesh->target_names && part->morph->target_count != mesh->target_name_count)
                __builtin_trap();
        }
    }
    for (size_t i = 0; i < m->image_count; i++) {
        const cna_model_image *im = &m->images[i];
        if (!im->name || !im->mime_type || im->id == 0 || (im->data == NULL) != (im->size == 0)) __builtin_trap();
        sum += (uint32_t)strlen(im->name) + (uint32_t)strlen(im->mime_type);
        for (size_t b = 0; b < im->size; b += 13) sum += im->data[b];
    }
    for (size_t e = 0; e < m->effect_count; e++) {
        const cna_effect_material *p = &m->effects[e].params;
        check_texture(m, &p->base_color);
        check_texture(m, &p->metallic_roughness);
        check_texture(m, &p->normal);
        check_texture(m, &p->occlusion);
        check_texture(m, &p->emissive);
    }
    for (size_t d = 0; d < m->diagnostic_count; d++)
        sum += (uint32_t)strlen(m->diagnostics[d].code) + (uint32_t)strlen(m->diagnostics[d].message);
    fuzz_sink = sum;
}

/* Load; on success read the model and check that it writes and reloads. */
static void load_and_use(const uint8_t *data, size_t size)
{
    cna_model *m = NULL;
    cna_error err;
    cna_result r = cna_cnb_load_memory(data, size, NULL, &m, &err);
    if (r != CNA_OK) {
        /* A refusal: a real code, a message, and no model. */
        if (m != NULL || err.code != r || err.message[0] == '\0') __builtin_trap();
        return;
    }
    if (!m) __builtin_trap();
    read_model(m);
    void *bytes = NULL;
    size_t n = 0;
    if (cna_cnb_write_memory(m, NULL, &bytes, &n, &err) != CNA_OK) __builtin_trap();
    cna_model *again = NULL;
    if (cna_cnb_load_memory(bytes, n, NULL, &again, &err) != CNA_OK) __builtin_trap();
    cna_model_free(again);
    cna_cnb_bytes_free(NULL, bytes);
    cna_model_free(m);
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
    load_and_use(data, size);
    if (size < CNA__CNB_HEADER_SIZE || size % 8 != 0) return 0;

    /* The same bytes as a hostile writer would give them: consistent size and checksum. */
    uint8_t *copy = malloc(size);
    if (!copy) return 0;
    memcpy(copy, data, size);
    uint64_t total = size;
    memcpy(copy + CNA__CNB_OFF_TOTAL_SIZE, &total, 8);
    uint64_t h = cna__cnb_checksum(copy, size);
    memcpy(copy + CNA__CNB_OFF_CHECKSUM, &h, 8);
    load_and_use(copy, size);

    /* Again, counting allocations, then with one of them failing. */
    fuzz_alloc_state counting = {0, 0};
    cna_cnb_load_options opts;
    memset(&opts, 0, sizeof opts);
    opts.allocator = (cna_allocator){fuzz_alloc, fuzz_free, &counting};
    cna_model *m = NULL;
    cna_error err;
    if (cna_cnb_load_memory(copy, size, &opts, &m, &err) == CNA_OK) cna_model_free(m);
    if (counting.calls > 0) {
        fuzz_alloc_state failing = {0, 1 + (size_t)(hash_bytes(copy, size) % counting.calls)};
        opts.allocator.user_data = &failing;
        cna_model *sentinel = (cna_model *)&failing;
        m = sentinel;
        cna_result r = cna_cnb_load_memory(copy, size, &opts, &m, &err);
        if (r == CNA_OK) {
            cna_model_free(m);
        } else if (m != sentinel || err.message[0] == '\0') {
            __builtin_trap(); /* a failed load must leave *out as it was */
        }
    }
    free(copy);
    return 0;
}
