#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

const char *cna_result_name(cna_result result)
{
    switch (result) {
    case CNA_OK: return "ok";
    case CNA_ERROR_INVALID_ARGUMENT: return "invalid-argument";
    case CNA_ERROR_OUT_OF_MEMORY: return "out-of-memory";
    case CNA_ERROR_IO: return "io";
    case CNA_ERROR_PARSE: return "parse";
    case CNA_ERROR_INVALID_DATA: return "invalid-data";
    case CNA_ERROR_UNSUPPORTED: return "unsupported";
    case CNA_ERROR_LIMIT: return "limit";
    case CNA_RESULT_COUNT: break;
    }
    return "unknown";
}

static void mark_truncated(char *buf, int written)
{
    if (written >= CNA_ERROR_MESSAGE_MAX)
        memcpy(buf + CNA_ERROR_MESSAGE_MAX - 4, "...", 4);
}

cna_result cna__error(cna_error *err, cna_result code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
        if (n < 0) err->message[0] = '\0';
        mark_truncated(err->message, n);
        cna__utf8_repair(err->message);
        if (err->message[0] == '\0')
            snprintf(err->message, sizeof err->message, "%s", cna_result_name(code));
        err->code = code;
    }
    return code;
}

void cna__error_prefix(cna_error *err, const char *fmt, ...)
{
    if (!err) return;
    char prefix[CNA_ERROR_MESSAGE_MAX];
    char old[CNA_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    memcpy(old, err->message, sizeof old);
    old[sizeof old - 1] = '\0';
    int m = snprintf(err->message, sizeof err->message, "%s: %s", prefix, old);
    mark_truncated(err->message, m);
    cna__utf8_repair(err->message);
}
