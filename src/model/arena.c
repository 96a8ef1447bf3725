/*
 * The model's arena: blocks allocated through the model's allocator, freed
 * together with the model. Every allocation is 16-byte aligned, and zeroed
 * unless made with cna__arena_alloc_uninit.
 */
#include <string.h>

#include "model/model_internal.h"

struct cna__arena_block {
    cna__arena_block *next;
    size_t size, used;
    /* data follows, aligned to 16 */
};

#define CNA__ARENA_ALIGN 16u
#define CNA__ARENA_HEADER ((sizeof(cna__arena_block) + CNA__ARENA_ALIGN - 1) & ~(size_t)(CNA__ARENA_ALIGN - 1))
#define CNA__ARENA_MIN_BLOCK ((size_t)64 * 1024)

static unsigned char *block_data(cna__arena_block *b) { return (unsigned char *)b + CNA__ARENA_HEADER; }

void *cna__arena_alloc_uninit(cna__arena *arena, size_t size)
{
    size_t rounded;
    if (!cna__add_size(size, CNA__ARENA_ALIGN - 1, &rounded)) return NULL;
    rounded &= ~(size_t)(CNA__ARENA_ALIGN - 1);
    if (rounded == 0) rounded = CNA__ARENA_ALIGN;
    cna__arena_block *b = arena->head;
    if (!b || b->size - b->used < rounded) {
        size_t cap = rounded > CNA__ARENA_MIN_BLOCK ? rounded : CNA__ARENA_MIN_BLOCK;
        size_t total;
        if (!cna__add_size(cap, CNA__ARENA_HEADER, &total)) return NULL;
        cna_allocator a = cna__allocator_resolve(&arena->allocator);
        b = (cna__arena_block *)cna__alloc(&a, total);
        if (!b) return NULL;
        b->size = cap;
        b->used = 0;
        /* A block made for one large allocation goes behind the head so the
         * head's free space stays usable. */
        if (arena->head && rounded > CNA__ARENA_MIN_BLOCK) {
            b->next = arena->head->next;
            arena->head->next = b;
        } else {
            b->next = arena->head;
            arena->head = b;
        }
    }
    void *p = block_data(b) + b->used;
    b->used += rounded;
    return p;
}

void *cna__arena_alloc(cna__arena *arena, size_t size)
{
    void *p = cna__arena_alloc_uninit(arena, size);
    if (p) { /* zeroed up to the rounded size (no overflow: p is not NULL) */
        size_t rounded = (size + CNA__ARENA_ALIGN - 1) & ~(size_t)(CNA__ARENA_ALIGN - 1);
        memset(p, 0, rounded ? rounded : CNA__ARENA_ALIGN);
    }
    return p;
}

void *cna__arena_calloc(cna__arena *arena, size_t count, size_t size)
{
    size_t total;
    if (!cna__mul_size(count, size, &total)) return NULL;
    return cna__arena_alloc(arena, total);
}

char *cna__arena_strdup(cna__arena *arena, const char *s)
{
    if (!s) s = "";
    size_t n = strlen(s);
    char *d = (char *)cna__arena_alloc(arena, n + 1);
    if (d) memcpy(d, s, n + 1);
    return d;
}

void cna__arena_free(cna__arena *arena)
{
    cna_allocator a = cna__allocator_resolve(&arena->allocator);
    cna__arena_block *b = arena->head;
    while (b) {
        cna__arena_block *next = b->next;
        cna__free(&a, b);
        b = next;
    }
    arena->head = NULL;
}

size_t cna__arena_bytes(const cna__arena *arena)
{
    size_t bytes = 0;
    for (const cna__arena_block *b = arena->head; b; b = b->next) bytes += CNA__ARENA_HEADER + b->size;
    return bytes;
}

static uint64_t fnv1a(uint64_t h, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

uint64_t cna__arena_checksum(const cna__arena *arena, uint64_t h)
{
    for (const cna__arena_block *b = arena->head; b; b = b->next)
        h = fnv1a(h, block_data((cna__arena_block *)b), b->used);
    return h;
}
