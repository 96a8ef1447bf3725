/*
 * fuzz/fuzz_cnj_read.c — libFuzzer harness over cna_cnj_read_memory, the
 * skeleton sidecar reader.
 *
 * One input is one .cnj text (need not be NUL-terminated; the reader gets
 * exactly the input's bytes). On a refusal the harness checks the contract: a
 * real code, the same code in err.code, a message, *out untouched. A skeleton
 * that reads is used as the reader promises it can be: its SkinningData
 * validates, a cna_player is created from it and posed, and it is written
 * again and read back with the same bits (hierarchy, bind pose, inverse bind
 * pose, root prefix). Finally the input is read again with an allocator that
 * fails at one allocation (chosen from the input's hash): the read must then
 * succeed or fail leaving *out untouched, and leak nothing (LeakSanitizer
 * checks). A broken promise calls abort(), which libFuzzer reports.
 *
 * Build: see fuzz/CMakeLists.txt. Run: scripts/fuzz-smoke.sh, or
 *   build-fuzz/fuzz/fuzz_cnj_read -dict=fuzz/cnj.dict CORPUS_DIR fuzz/corpus/cnj
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cna/cna.h"
#include "fuzz_common.h"

/* The same skeleton, bit for bit. */
static bool same_skeleton(const cna_skinning_data *a, const cna_skinning_data *b)
{
    const size_t n = a->bone_count > 0 ? (size_t)a->bone_count : 0;
    return a->bone_count == b->bone_count && a->root_prefix_count == b->root_prefix_count &&
           same_bits(a->hierarchy, b->hierarchy, n * sizeof(int32_t)) &&
           same_bits(a->bind_pose, b->bind_pose, n * sizeof(cna_mat4)) &&
           same_bits(a->inverse_bind_pose, b->inverse_bind_pose, n * sizeof(cna_mat4)) &&
           same_bits(a->root_prefix, b->root_prefix, a->root_prefix_count * sizeof(cna_mat4));
}

/* Use a skeleton that read: validate, play, write and read again. */
static void use_skeleton(const cna_cnj_skeleton *skel)
{
    const cna_skinning_data *d = cna_cnj_skeleton_data(skel);
    if (!d || d->clip_count != 0 || d->skeleton_root_node != -1) abort();
    if (d->root_prefix_count != 0 && d->root_prefix_count != (size_t)d->bone_count) abort();
    for (int32_t b = 0; b < d->bone_count; b++)
        if (d->hierarchy[b] < -1 || d->hierarchy[b] >= b) abort();
    cna_error err;
    if (cna_skinning_data_validate(d, &err) != CNA_OK) abort();

    cna_player *p = NULL;
    cna_result r = cna_player_create(d, NULL, &p, &err);
    if (r == CNA_OK) {
        if (cna_player_update(p, 0, false, false, &err) != CNA_OK) abort();
        cna_player_free(p);
    } else if (r != CNA_ERROR_OUT_OF_MEMORY) {
        abort(); /* a skeleton that read is playable */
    }

    char *text = NULL;
    size_t n = 0;
    r = cna_cnj_write_memory(d, NULL, &text, &n, &err);
    if (r == CNA_ERROR_OUT_OF_MEMORY) return;
    if (r != CNA_OK || !text || strlen(text) != n) abort();
    cna_cnj_skeleton *again = NULL;
    r = cna_cnj_read_memory(text, n, NULL, &again, &err);
    cna_cnj_text_free(NULL, text);
    if (r == CNA_ERROR_OUT_OF_MEMORY) return;
    if (r != CNA_OK || !same_skeleton(d, cna_cnj_skeleton_data(again))) abort();
    cna_cnj_skeleton_free(again);
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
    const char *text = (const char *)data;
    fuzz_alloc_state counting = {0, 0};
    const cna_allocator hooks = {fuzz_alloc, fuzz_free, &counting};
    cna_cnj_skeleton *skel = NULL;
    cna_error err;
    cna_result r = cna_cnj_read_memory(text, size, &hooks, &skel, &err);
    if (r != CNA_OK) {
        /* A refusal: a real code, a message, and no skeleton. */
        if (skel != NULL || err.code != r || err.message[0] == '\0') abort();
        return 0;
    }
    if (!skel) abort();
    use_skeleton(skel);
    cna_cnj_skeleton_free(skel);

    /* Again, with one allocation failing. */
    if (counting.calls > 0) {
        fuzz_alloc_state failing = {0, 1 + (size_t)(hash_bytes(data, size) % counting.calls)};
        const cna_allocator failing_hooks = {fuzz_alloc, fuzz_free, &failing};
        cna_cnj_skeleton *sentinel = (cna_cnj_skeleton *)&failing;
        skel = sentinel;
        r = cna_cnj_read_memory(text, size, &failing_hooks, &skel, &err);
        if (r == CNA_OK) {
            cna_cnj_skeleton_free(skel);
        } else if (skel != sentinel || err.message[0] == '\0') {
            abort(); /* a failed read must leave *out as it was */
        }
    }
    return 0;
}
