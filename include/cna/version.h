/*
 * cna/version.h — the version of cna.
 *
 * cna follows semantic versioning: MAJOR changes break the API or the ABI,
 * MINOR adds to them, PATCH only fixes. While MAJOR is 0, a MINOR release may
 * also change the API (CHANGELOG.md lists every change).
 *
 * The macros give the version of the headers a program was compiled with;
 * cna_version() gives the version of the library it runs with (the two differ
 * when a program built against one shared libcna runs with another).
 *
 * Usage:
 *   #if CNA_VERSION_MAJOR == 0 && CNA_VERSION_MINOR < 2
 *   #error "needs cna 0.2 or later"
 *   #endif
 *   printf("built with cna %s, running with %s\n", CNA_VERSION_STRING, cna_version());
 *
 * These three numbers are the only place the version is written: the build
 * (CMake's project version, cna.pc, the shared library's file name) reads them
 * from this file.
 */
#ifndef CNA_VERSION_H
#define CNA_VERSION_H

#include "cna/export.h"

#define CNA_VERSION_MAJOR 0
#define CNA_VERSION_MINOR 2
#define CNA_VERSION_PATCH 0

#define CNA__VERSION_STR2(x) #x
#define CNA__VERSION_STR(x) CNA__VERSION_STR2(x)
/* "MAJOR.MINOR.PATCH", e.g. "0.2.0". */
#define CNA_VERSION_STRING \
    CNA__VERSION_STR(CNA_VERSION_MAJOR) "." CNA__VERSION_STR(CNA_VERSION_MINOR) "." \
    CNA__VERSION_STR(CNA_VERSION_PATCH)

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the library linked at run time, "MAJOR.MINOR.PATCH" (the
 * CNA_VERSION_STRING the library was built with). Never fails; the string is
 * static and must not be freed. */
CNA_API const char *cna_version(void);

#ifdef __cplusplus
}
#endif
#endif /* CNA_VERSION_H */
