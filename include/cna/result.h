/*
 * cna/result.h — results and errors.
 *
 * Every fallible cna call returns a cna_result and, when given a non-NULL
 * cna_error*, fills it with the code and a message that names the object and
 * the offending value, for example
 *   "skins[1]: 73 joints; at most 72 are supported".
 * On failure a call changes nothing the caller can observe (outputs, object
 * state) unless its documentation says otherwise. The library never prints,
 * never aborts and never asserts on input data.
 *
 * Usage:
 *   cna_error err;
 *   if (cna_player_create(&data, NULL, &player, &err) != CNA_OK)
 *       fprintf(stderr, "error: %s\n", err.message);
 *
 * Ownership: a cna_error is a plain value owned by the caller; it holds no
 * pointers and needs no cleanup.
 */
#ifndef CNA_RESULT_H
#define CNA_RESULT_H

#include "cna/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Result codes. CNA_OK is 0 so that `if (r)` tests for failure. */
typedef enum cna_result {
    CNA_OK = 0,
    CNA_ERROR_INVALID_ARGUMENT, /* a caller-supplied value breaks a documented rule */
    CNA_ERROR_OUT_OF_MEMORY,    /* an allocation failed or a size would overflow */
    CNA_ERROR_IO,               /* a file could not be opened or read */
    CNA_ERROR_PARSE,            /* syntax: JSON, GLB container, base64, URI */
    CNA_ERROR_INVALID_DATA,     /* well-formed data whose content breaks a rule */
    CNA_ERROR_UNSUPPORTED,      /* valid but not supported (e.g. a required extension) */
    CNA_ERROR_LIMIT,            /* a documented capacity is exceeded (e.g. 72 joints) */
    CNA_RESULT_COUNT
} cna_result;

/* Maximum length of an error message, including the terminating NUL. Longer
 * messages are cut and end with "..."; the bytes of a character cut in two
 * become '?', so the message stays valid UTF-8. */
#define CNA_ERROR_MESSAGE_MAX 512

typedef struct cna_error {
    cna_result code;                       /* same value the call returned */
    char message[CNA_ERROR_MESSAGE_MAX];   /* NUL-terminated, never empty on failure */
} cna_error;

/* Stable lower-case name of a result code ("ok", "invalid-argument", ...).
 * Returns "unknown" for values outside the enum. */
CNA_API const char *cna_result_name(cna_result result);

#ifdef __cplusplus
}
#endif
#endif /* CNA_RESULT_H */
