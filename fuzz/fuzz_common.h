/*
 * Helpers shared by the libFuzzer harnesses: an allocator whose Nth
 * allocation fails (to drive every allocation-failure path from one input)
 * and a bitwise comparison. Header-only.
 */
#ifndef CNA_FUZZ_COMMON_H
#define CNA_FUZZ_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct fuzz_alloc_state {
    size_t calls;    /* allocations requested so far */
    size_t fail_at;  /* the allocation (1-based) that fails; 0 = none */
} fuzz_alloc_state;

static inline void *fuzz_alloc(void *user_data, size_t size)
{
    fuzz_alloc_state *st = (fuzz_alloc_state *)user_data;
    st->calls++;
    if (st->fail_at != 0 && st->calls == st->fail_at) return NULL;
    return malloc(size);
}

static inline void fuzz_free(void *user_data, void *ptr)
{
    (void)user_data;
    free(ptr);
}

/* The same `size` bytes (empty ranges are equal, a missing side is not). */
static inline bool same_bits(const void *a, const void *b, size_t size)
{
    return size == 0 || (a && b && memcmp(a, b, size) == 0);
}

#endif
