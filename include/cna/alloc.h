/*
 * cna/alloc.h — allocation hooks.
 *
 * Every cna object that allocates takes an optional `const cna_allocator *`.
 * NULL (or a struct whose `alloc` is NULL) means the C library's malloc/free.
 * The allocator is copied into the object at creation; the same hooks free
 * everything that object allocated. There is no global allocator.
 *
 * Usage:
 *   static void *my_alloc(void *user, size_t size) { return arena_push(user, size); }
 *   static void my_free(void *user, void *ptr) { (void)user; (void)ptr; }
 *   cna_allocator a = { my_alloc, my_free, &arena };
 *   cna_player_create(&data, &a, &player, &err);
 *
 * Requirements on the hooks: `alloc` returns memory aligned for any object
 * type (like malloc) or NULL on failure; `free` accepts every pointer `alloc`
 * returned and is never called with NULL by cna.
 */
#ifndef CNA_ALLOC_H
#define CNA_ALLOC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cna_allocator {
    void *(*alloc)(void *user_data, size_t size); /* default: malloc */
    void (*free)(void *user_data, void *ptr);     /* default: free */
    void *user_data;                              /* passed to both hooks; default NULL */
} cna_allocator;

#ifdef __cplusplus
}
#endif
#endif /* CNA_ALLOC_H */
