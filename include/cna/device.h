/*
 * cna/device.h — the device interface: how the core reaches GPU buffers
 * without making a single graphics-API call.
 *
 * A cna_device is a small table of function pointers plus a user_data
 * pointer (a vtable). The runtime calls it in one place: a morph instance
 * given a device re-uploads its bound vertex buffer through it when its
 * weights change (cna_morph_set_weights in cna/morph.h; spec: SetDataRaw in
 * "Morph targets"). Models and characters never do: a model's parts keep
 * their vertices in memory, a character blends morphed vertices on the CPU
 * (cna_character_part_vertices), and the GPU copies are the renderer's
 * (cna_gl_model, cna_gl_instance in cna/gl.h), made without a device. So a
 * device serves buffers of one's own (a prop drawn beside a character, as
 * examples/attach.c does) and hand-driven morph instances. Two
 * implementations exist:
 *   - the null device below, which keeps every buffer in CPU memory and
 *     records the uploads so that tests can check them;
 *   - the OpenGL device of the optional cna_gl library
 *     (cna_gl_context_device in cna/gl.h), which implements this same
 *     interface with glGenBuffers/glBufferData/glBufferSubData/glDeleteBuffers.
 * An application may supply its own (Vulkan, D3D, an engine's allocator) by
 * filling the table.
 *
 * Usage (tests, tools without a GPU):
 *   cna_null_device *null_dev;
 *   if (cna_null_device_create(NULL, &null_dev, &err)) ...;
 *   const cna_device *dev = cna_null_device_interface(null_dev);
 *   cna_buffer_desc desc = {0};
 *   desc.kind = CNA_BUFFER_KIND_VERTEX;
 *   desc.usage = CNA_BUFFER_USAGE_DYNAMIC;
 *   desc.data = bytes;
 *   desc.size = size;
 *   cna_buffer_id vb;
 *   if (cna_device_create_buffer(dev, &desc, &vb, &err)) ...;
 *   cna_device_set_buffer_data(dev, vb, 0, new_bytes, size, &err);   // whole buffer
 *   cna_device_destroy_buffer(dev, vb);
 *   cna_null_device_free(null_dev);
 *
 * Threading: a device is used from one thread at a time (the spec keeps
 * morph uploads and drawing on the graphics thread; "A frame, in order").
 */
#ifndef CNA_DEVICE_H
#define CNA_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "cna/alloc.h"
#include "cna/export.h"
#include "cna/result.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A buffer handle given out by a device. 0 is never a valid buffer (as a GL
 * buffer name); ids are only meaningful to the device that created them. */
typedef uint32_t cna_buffer_id;

typedef enum cna_buffer_kind {
    CNA_BUFFER_KIND_DEFAULT = 0,  /* same as CNA_BUFFER_KIND_VERTEX */
    CNA_BUFFER_KIND_VERTEX,       /* interleaved vertex bytes (GL_ARRAY_BUFFER) */
    CNA_BUFFER_KIND_INDEX,        /* 16- or 32-bit indices (GL_ELEMENT_ARRAY_BUFFER) */
    CNA_BUFFER_KIND_COUNT
} cna_buffer_kind;

/* How often the contents change: a hint, e.g. for GL_STATIC_DRAW vs
 * GL_DYNAMIC_DRAW. Morphed vertex buffers are DYNAMIC. */
typedef enum cna_buffer_usage {
    CNA_BUFFER_USAGE_DEFAULT = 0, /* same as CNA_BUFFER_USAGE_STATIC */
    CNA_BUFFER_USAGE_STATIC,      /* written once */
    CNA_BUFFER_USAGE_DYNAMIC,     /* re-uploaded now and then (morph weights) */
    CNA_BUFFER_USAGE_COUNT
} cna_buffer_usage;

/* What a buffer is created with. Zero-initialise, then set what you need. */
typedef struct cna_buffer_desc {
    cna_buffer_kind kind;    /* default: vertex */
    cna_buffer_usage usage;  /* default: static */
    const void *data;        /* initial bytes (size of them), copied by the device;
                                NULL: the contents are zero */
    size_t size;             /* bytes; 0 is allowed (an empty buffer) */
    const char *label;       /* debug name, may be NULL; the device may copy it */
} cna_buffer_desc;

/* The table a device implementation fills. Every hook receives the table's
 * user_data first. Zero-initialise the struct before filling it: hooks added
 * later (the renderer's draw hook will be appended at the end) then read as
 * absent (NULL), which the core treats as "not supported".
 *
 * Contract of each hook (the cna_device_* wrappers below check the arguments
 * before calling, so hooks receive only well-formed calls):
 *   create_buffer: create a buffer of desc->size bytes holding desc->data (or
 *     zeros), store a non-zero id in *out and return CNA_OK; on failure return
 *     an error, fill err (may be left empty: the wrapper then writes a generic
 *     message) and create nothing.
 *   set_buffer_data: replace bytes [offset, offset + size) of the buffer with
 *     `data` (offset == 0 and size == the buffer's size is a whole-buffer
 *     upload); a range outside the buffer or an unknown id is an error; on
 *     error the buffer is unchanged.
 *   destroy_buffer: release the buffer; an unknown id is ignored. */
typedef struct cna_device {
    void *user_data;
    cna_result (*create_buffer)(void *user_data, const cna_buffer_desc *desc, cna_buffer_id *out,
                                cna_error *err);
    cna_result (*set_buffer_data)(void *user_data, cna_buffer_id buffer, size_t offset,
                                  const void *data, size_t size, cna_error *err);
    void (*destroy_buffer)(void *user_data, cna_buffer_id buffer);
    /* Later versions may append hooks after these three. */
} cna_device;

/* Create a buffer through `device`.
 * Errors: CNA_ERROR_INVALID_ARGUMENT when device, its create_buffer hook, desc
 * or out is NULL, desc->kind or desc->usage is outside its enum, or the hook
 * returned id 0; whatever the hook returns (e.g. CNA_ERROR_OUT_OF_MEMORY).
 * On error *out is unchanged. The caller owns the buffer and destroys it with
 * cna_device_destroy_buffer on the same device. */
CNA_API cna_result cna_device_create_buffer(const cna_device *device, const cna_buffer_desc *desc,
                                    cna_buffer_id *out, cna_error *err);

/* Upload `size` bytes from `data` into the buffer at byte `offset` (a whole
 * re-upload is offset 0, size = the buffer's size). `data` is only read
 * during the call.
 * Errors: CNA_ERROR_INVALID_ARGUMENT when device or its set_buffer_data hook
 * is NULL, buffer is 0, data is NULL with size > 0, or offset + size
 * overflows; whatever the hook returns (unknown buffer, range outside it).
 * On error the buffer is unchanged. */
CNA_API cna_result cna_device_set_buffer_data(const cna_device *device, cna_buffer_id buffer,
                                      size_t offset, const void *data, size_t size,
                                      cna_error *err);

/* Destroy a buffer. NULL device, a device without the hook, or buffer 0 do
 * nothing. */
CNA_API void cna_device_destroy_buffer(const cna_device *device, cna_buffer_id buffer);

/* ------------------------------------------------------------------ null device */

/* A device without a GPU: buffers live in CPU memory (their contents can be
 * read back), and every successful call is counted. For tests and for tools
 * that need the core's upload path without graphics. */
typedef struct cna_null_device cna_null_device;

/* What the null device has recorded since it was created. Only successful
 * calls are counted; a create with initial data is a create, not an upload. */
typedef struct cna_null_device_stats {
    size_t create_count;              /* successful create_buffer calls */
    size_t upload_count;              /* successful set_buffer_data calls */
    size_t destroy_count;             /* destroy_buffer calls on a live buffer */
    size_t live_buffer_count;         /* created and not yet destroyed */
    cna_buffer_id last_upload_buffer; /* buffer of the latest upload; 0 before any */
    size_t last_upload_offset;        /* its byte offset */
    size_t last_upload_size;          /* its byte count */
} cna_null_device_stats;

/* Create a null device. `allocator` may be NULL (malloc/free); it is copied
 * and used for every buffer the device holds.
 * Errors: CNA_ERROR_INVALID_ARGUMENT for a NULL out; CNA_ERROR_OUT_OF_MEMORY.
 * On error *out is unchanged. */
CNA_API cna_result cna_null_device_create(const cna_allocator *allocator, cna_null_device **out,
                                  cna_error *err);

/* Free the device and every buffer still alive on it; NULL is accepted. */
CNA_API void cna_null_device_free(cna_null_device *device);

/* The device's function table, valid as long as the device lives. */
CNA_API const cna_device *cna_null_device_interface(cna_null_device *device);

/* Copy the counters into *out (zeros for a NULL device). */
CNA_API void cna_null_device_get_stats(const cna_null_device *device, cna_null_device_stats *out);

/* A copy of the bytes of the latest successful upload (the `data` argument
 * of that set_buffer_data call), valid until the next call on the device.
 * *size (may be NULL) receives their count. NULL (and size 0) before the first
 * upload or for a NULL device. */
CNA_API const void *cna_null_device_last_upload(const cna_null_device *device, size_t *size);

/* The current contents of a live buffer (after every upload into it), valid
 * until the next call on the device; *size (may be NULL) receives its size.
 * NULL (size 0) for an unknown or destroyed buffer. */
CNA_API const void *cna_null_device_buffer_contents(const cna_null_device *device, cna_buffer_id buffer,
                                            size_t *size);

/* Make the next create_buffer or set_buffer_data call fail with `code`
 * (pass CNA_OK to cancel), without changing anything: for testing how
 * callers handle a device failure. */
CNA_API void cna_null_device_fail_next(cna_null_device *device, cna_result code);

#ifdef __cplusplus
}
#endif
#endif /* CNA_DEVICE_H */
