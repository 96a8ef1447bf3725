/*
 * The null device: a cna_device that keeps buffers in CPU memory and counts
 * what it is asked to do (include/cna/device.h).
 */
#include <string.h>

#include "cna/device.h"
#include "core/internal.h"

typedef struct null_buffer {
    unsigned char *bytes; /* size bytes (NULL when size is 0) */
    size_t size;
    cna_buffer_kind kind;
    cna_buffer_usage usage;
    bool live;
} null_buffer;

struct cna_null_device {
    cna_device table;          /* user_data points back to this struct */
    cna_allocator allocator;
    null_buffer *buffers;      /* buffers[id - 1]; ids are never reused */
    size_t buffer_count;
    size_t buffer_capacity;
    unsigned char *last_upload; /* copy of the latest upload's bytes */
    size_t last_upload_capacity;
    cna_null_device_stats stats;
    cna_result fail_next;      /* CNA_OK: no failure armed */
};

static null_buffer *find_live(const cna_null_device *d, cna_buffer_id id)
{
    if (id == 0 || (size_t)id > d->buffer_count) return NULL;
    null_buffer *b = &d->buffers[id - 1];
    return b->live ? b : NULL;
}

static cna_result take_failure(cna_null_device *d, cna_error *err, const char *what)
{
    cna_result code = d->fail_next;
    d->fail_next = CNA_OK;
    return cna__error(err, code, "null device: %s failed as requested (%s)", what,
                      cna_result_name(code));
}

static cna_result grow_buffers(cna_null_device *d, cna_error *err)
{
    if (d->buffer_count < d->buffer_capacity) return CNA_OK;
    if (d->buffer_count >= UINT32_MAX - 1)
        return cna__error(err, CNA_ERROR_LIMIT, "null device: %zu buffers created; no ids left",
                          d->buffer_count);
    size_t cap = d->buffer_capacity ? d->buffer_capacity * 2 : 8;
    null_buffer *grown = cna__calloc(&d->allocator, cap, sizeof *grown);
    if (!grown)
        return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "null device: cannot track %zu buffers",
                          cap);
    if (d->buffer_count) memcpy(grown, d->buffers, d->buffer_count * sizeof *grown);
    cna__free(&d->allocator, d->buffers);
    d->buffers = grown;
    d->buffer_capacity = cap;
    return CNA_OK;
}

static cna_result null_create(void *user, const cna_buffer_desc *desc, cna_buffer_id *out,
                              cna_error *err)
{
    cna_null_device *d = user;
    if (d->fail_next != CNA_OK) return take_failure(d, err, "create_buffer");
    cna_result r = grow_buffers(d, err);
    if (r != CNA_OK) return r;
    unsigned char *bytes = NULL;
    if (desc->size > 0) {
        bytes = cna__alloc(&d->allocator, desc->size);
        if (!bytes)
            return cna__error(err, CNA_ERROR_OUT_OF_MEMORY,
                              "null device: cannot allocate a buffer of %zu bytes", desc->size);
        if (desc->data) memcpy(bytes, desc->data, desc->size);
        else memset(bytes, 0, desc->size);
    }
    null_buffer *b = &d->buffers[d->buffer_count++];
    b->bytes = bytes;
    b->size = desc->size;
    b->kind = desc->kind;
    b->usage = desc->usage;
    b->live = true;
    d->stats.create_count++;
    d->stats.live_buffer_count++;
    *out = (cna_buffer_id)d->buffer_count;
    return CNA_OK;
}

static cna_result null_set_data(void *user, cna_buffer_id id, size_t offset, const void *data,
                                size_t size, cna_error *err)
{
    cna_null_device *d = user;
    if (d->fail_next != CNA_OK) return take_failure(d, err, "set_buffer_data");
    null_buffer *b = find_live(d, id);
    if (!b)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "null device: buffer %u: no such buffer",
                          (unsigned)id);
    if (offset > b->size || size > b->size - offset)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "null device: buffer %u: range of %zu bytes at offset %zu exceeds its "
                          "%zu bytes",
                          (unsigned)id, size, offset, b->size);
    if (size > d->last_upload_capacity) {
        unsigned char *copy = cna__alloc(&d->allocator, size);
        if (!copy)
            return cna__error(err, CNA_ERROR_OUT_OF_MEMORY,
                              "null device: cannot keep a copy of %zu uploaded bytes", size);
        cna__free(&d->allocator, d->last_upload);
        d->last_upload = copy;
        d->last_upload_capacity = size;
    }
    if (size > 0) {
        memcpy(d->last_upload, data, size);
        memcpy(b->bytes + offset, data, size);
    }
    d->stats.upload_count++;
    d->stats.last_upload_buffer = id;
    d->stats.last_upload_offset = offset;
    d->stats.last_upload_size = size;
    return CNA_OK;
}

static void null_destroy(void *user, cna_buffer_id id)
{
    cna_null_device *d = user;
    null_buffer *b = find_live(d, id);
    if (!b) return;
    cna__free(&d->allocator, b->bytes);
    b->bytes = NULL;
    b->size = 0;
    b->live = false;
    d->stats.destroy_count++;
    d->stats.live_buffer_count--;
}

cna_result cna_null_device_create(const cna_allocator *allocator, cna_null_device **out,
                                  cna_error *err)
{
    if (!out) return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "null device: NULL out");
    cna_allocator a = cna__allocator_resolve(allocator);
    cna_null_device *d = cna__calloc(&a, 1, sizeof *d);
    if (!d) return cna__error(err, CNA_ERROR_OUT_OF_MEMORY, "null device: cannot allocate");
    d->allocator = a;
    d->table.user_data = d;
    d->table.create_buffer = null_create;
    d->table.set_buffer_data = null_set_data;
    d->table.destroy_buffer = null_destroy;
    d->fail_next = CNA_OK;
    *out = d;
    return CNA_OK;
}

void cna_null_device_free(cna_null_device *device)
{
    if (!device) return;
    cna_allocator a = device->allocator;
    for (size_t i = 0; i < device->buffer_count; i++) cna__free(&a, device->buffers[i].bytes);
    cna__free(&a, device->buffers);
    cna__free(&a, device->last_upload);
    cna__free(&a, device);
}

const cna_device *cna_null_device_interface(cna_null_device *device)
{
    return device ? &device->table : NULL;
}

void cna_null_device_get_stats(const cna_null_device *device, cna_null_device_stats *out)
{
    if (!out) return;
    if (!device) {
        memset(out, 0, sizeof *out);
        return;
    }
    *out = device->stats;
}

const void *cna_null_device_last_upload(const cna_null_device *device, size_t *size)
{
    if (size) *size = 0;
    if (!device || device->stats.upload_count == 0) return NULL;
    if (size) *size = device->stats.last_upload_size;
    /* A zero-byte upload leaves nothing to point at but is still "an upload". */
    return device->last_upload ? (const void *)device->last_upload : (const void *)device;
}

const void *cna_null_device_buffer_contents(const cna_null_device *device, cna_buffer_id buffer,
                                            size_t *size)
{
    if (size) *size = 0;
    if (!device) return NULL;
    const null_buffer *b = find_live(device, buffer);
    if (!b) return NULL;
    if (size) *size = b->size;
    return b->bytes ? (const void *)b->bytes : (const void *)device;
}

void cna_null_device_fail_next(cna_null_device *device, cna_result code)
{
    if (!device) return;
    if ((int)code < 0 || code >= CNA_RESULT_COUNT) code = CNA_ERROR_INVALID_ARGUMENT;
    device->fail_next = code;
}
