/*
 * The cna_device wrappers: check the arguments, call the hook, and make sure
 * a failing hook leaves a message behind.
 */
#include <string.h>

#include "cna/device.h"
#include "core/internal.h"

/* Copy a hook's error into `err`, writing a generic message when the hook
 * returned an error without one. */
static cna_result hook_failed(cna_error *err, const cna_error *hook_err, cna_result code,
                              const char *what)
{
    if (hook_err->message[0] == '\0')
        return cna__error(err, code, "device: %s failed (%s)", what, cna_result_name(code));
    return cna__error(err, code, "%s", hook_err->message);
}

cna_result cna_device_create_buffer(const cna_device *device, const cna_buffer_desc *desc,
                                    cna_buffer_id *out, cna_error *err)
{
    if (!device || !device->create_buffer)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "device: %s", device ? "no create_buffer hook" : "NULL device");
    if (!desc || !out)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT, "device: create_buffer: NULL %s",
                          desc ? "out" : "desc");
    if ((int)desc->kind < 0 || desc->kind >= CNA_BUFFER_KIND_COUNT)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "device: create_buffer: kind %d is not a cna_buffer_kind",
                          (int)desc->kind);
    if ((int)desc->usage < 0 || desc->usage >= CNA_BUFFER_USAGE_COUNT)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "device: create_buffer: usage %d is not a cna_buffer_usage",
                          (int)desc->usage);
    cna_buffer_desc resolved = *desc;
    if (resolved.kind == CNA_BUFFER_KIND_DEFAULT) resolved.kind = CNA_BUFFER_KIND_VERTEX;
    if (resolved.usage == CNA_BUFFER_USAGE_DEFAULT) resolved.usage = CNA_BUFFER_USAGE_STATIC;

    cna_error hook_err;
    memset(&hook_err, 0, sizeof hook_err);
    cna_buffer_id id = 0;
    cna_result r = device->create_buffer(device->user_data, &resolved, &id, &hook_err);
    if (r != CNA_OK) return hook_failed(err, &hook_err, r, "create_buffer");
    if (id == 0) {
        /* A hook that reports success must hand out a usable id. */
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "device: create_buffer returned buffer id 0");
    }
    *out = id;
    return CNA_OK;
}

cna_result cna_device_set_buffer_data(const cna_device *device, cna_buffer_id buffer,
                                      size_t offset, const void *data, size_t size,
                                      cna_error *err)
{
    if (!device || !device->set_buffer_data)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "device: %s", device ? "no set_buffer_data hook" : "NULL device");
    if (buffer == 0)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "device: set_buffer_data: buffer id 0 is not a buffer");
    if (!data && size > 0)
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "device: set_buffer_data(buffer %u): NULL data with size %zu",
                          (unsigned)buffer, size);
    size_t end;
    if (!cna__add_size(offset, size, &end))
        return cna__error(err, CNA_ERROR_INVALID_ARGUMENT,
                          "device: set_buffer_data(buffer %u): offset %zu + size %zu overflows",
                          (unsigned)buffer, offset, size);
    cna_error hook_err;
    memset(&hook_err, 0, sizeof hook_err);
    cna_result r = device->set_buffer_data(device->user_data, buffer, offset, data, size,
                                           &hook_err);
    if (r != CNA_OK) return hook_failed(err, &hook_err, r, "set_buffer_data");
    return CNA_OK;
}

void cna_device_destroy_buffer(const cna_device *device, cna_buffer_id buffer)
{
    if (!device || !device->destroy_buffer || buffer == 0) return;
    device->destroy_buffer(device->user_data, buffer);
}
