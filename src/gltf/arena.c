/* Bump allocator for the document: every array and string of a document is
 * carved from a few large blocks and freed at once by cna_gltf_document_free. */
#include <stdalign.h>
#include <string.h>

#include "gltf/gltf_internal.h"

#define CNA__GLTF_ARENA_BLOCK 65536u
#define CNA__GLTF_ARENA_ALIGN (alignof(max_align_t))

struct cna__gltf_arena_block {
    cna__gltf_arena_block *next;
    size_t used;
    size_t cap;
    max_align_t data[];
};

void cna__gltf_arena_init(cna__gltf_arena *arena, const cna_allocator *alloc)
{
    arena->alloc = cna__allocator_resolve(alloc);
    arena->head = NULL;
}

static cna__gltf_arena_block *new_block(cna__gltf_arena *arena, size_t cap)
{
    size_t total;
    if (!cna__add_size(sizeof(cna__gltf_arena_block), cap, &total)) return NULL;
    cna__gltf_arena_block *b = (cna__gltf_arena_block *)cna__alloc(&arena->alloc, total);
    if (!b) return NULL;
    b->used = 0;
    b->cap = cap;
    return b;
}

void *cna__gltf_arena_alloc_raw(cna__gltf_arena *arena, size_t size)
{
    size_t rounded;
    if (!cna__add_size(size, CNA__GLTF_ARENA_ALIGN - 1, &rounded)) return NULL;
    rounded &= ~(size_t)(CNA__GLTF_ARENA_ALIGN - 1);
    if (rounded == 0) rounded = CNA__GLTF_ARENA_ALIGN;
    cna__gltf_arena_block *h = arena->head;
    if (h && h->cap - h->used >= rounded) {
        void *p = (unsigned char *)h->data + h->used;
        h->used += rounded;
        return p;
    }
    if (rounded > CNA__GLTF_ARENA_BLOCK / 4) {
        /* A large request gets its own block, kept behind the current one so
         * that the current block's free space stays usable. */
        cna__gltf_arena_block *b = new_block(arena, rounded);
        if (!b) return NULL;
        b->used = rounded;
        if (h) {
            b->next = h->next;
            h->next = b;
        } else {
            b->next = NULL;
            arena->head = b;
        }
        return b->data;
    }
    cna__gltf_arena_block *b = new_block(arena, CNA__GLTF_ARENA_BLOCK);
    if (!b) return NULL;
    b->next = h;
    arena->head = b;
    b->used = rounded;
    return b->data;
}

void *cna__gltf_arena_alloc_head(cna__gltf_arena *arena, size_t size, size_t cap)
{
    size_t rounded, block;
    if (!cna__add_size(size, CNA__GLTF_ARENA_ALIGN - 1, &rounded)) return NULL;
    rounded &= ~(size_t)(CNA__GLTF_ARENA_ALIGN - 1);
    if (rounded == 0) rounded = CNA__GLTF_ARENA_ALIGN;
    if (!cna__add_size(cap, CNA__GLTF_ARENA_ALIGN - 1, &block)) return NULL;
    block &= ~(size_t)(CNA__GLTF_ARENA_ALIGN - 1);
    if (block < rounded) block = rounded;
    cna__gltf_arena_block *b = new_block(arena, block);
    if (!b) return NULL;
    b->used = rounded;
    b->next = arena->head;
    arena->head = b;
    return b->data;
}

void *cna__gltf_arena_calloc(cna__gltf_arena *arena, size_t count, size_t size)
{
    size_t total;
    if (!cna__mul_size(count, size, &total)) return NULL;
    void *p = cna__gltf_arena_alloc_raw(arena, total);
    if (p && total) memset(p, 0, total);
    return p;
}

char *cna__gltf_arena_strndup(cna__gltf_arena *arena, const char *s, size_t len)
{
    size_t total;
    if (!cna__add_size(len, 1, &total)) return NULL;
    char *p = (char *)cna__gltf_arena_alloc_raw(arena, total);
    if (!p) return NULL;
    if (len) memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

char *cna__gltf_arena_strdup(cna__gltf_arena *arena, const char *s)
{
    return cna__gltf_arena_strndup(arena, s, strlen(s));
}

void cna__gltf_arena_free_all(cna__gltf_arena *arena)
{
    cna__gltf_arena_block *b = arena->head;
    while (b) {
        cna__gltf_arena_block *next = b->next;
        cna__free(&arena->alloc, b);
        b = next;
    }
    arena->head = NULL;
}
