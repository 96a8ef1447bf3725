#include <stdlib.h>
#include <string.h>

#include "internal.h"

static void *default_alloc(void *user, size_t size)
{
    (void)user;
    return malloc(size);
}

static void default_free(void *user, void *ptr)
{
    (void)user;
    free(ptr);
}

cna_allocator cna__allocator_resolve(const cna_allocator *allocator)
{
    cna_allocator a = {default_alloc, default_free, NULL};
    if (allocator && allocator->alloc && allocator->free) a = *allocator;
    return a;
}

void *cna__alloc(const cna_allocator *a, size_t size)
{
    cna_allocator r = cna__allocator_resolve(a);
    return r.alloc(r.user_data, size ? size : 1);
}

void *cna__calloc(const cna_allocator *a, size_t count, size_t size)
{
    size_t total;
    if (!cna__mul_size(count, size, &total)) return NULL;
    void *p = cna__alloc(a, total);
    if (p) memset(p, 0, total ? total : 1);
    return p;
}

void cna__free(const cna_allocator *a, void *ptr)
{
    if (!ptr) return;
    cna_allocator r = cna__allocator_resolve(a);
    r.free(r.user_data, ptr);
}
