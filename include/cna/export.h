/*
 * cna/export.h — CNA_API, the mark of the library's public functions.
 *
 * Every function declared in include/cna/ carries CNA_API. The shared library
 * (libcna.so, cna.dll) exports these functions only: the library's internal
 * functions stay private to it and cannot clash with a program's own symbols.
 *
 * With GCC and Clang on ELF and Mach-O systems, CNA_API is
 * __attribute__((visibility("default"))) (the library is built with hidden
 * visibility); for the static library it changes nothing.
 *
 * On Windows (_WIN32: MinGW-w64, MSVC, clang-cl), a DLL's functions are
 * exported and imported by name:
 *   - the library's own sources are compiled with CNA_EXPORTS defined:
 *     CNA_API is __declspec(dllexport);
 *   - a program that links the DLL (cna.dll, through its import library)
 *     defines nothing: CNA_API is __declspec(dllimport);
 *   - a program that links the static library (libcna.a) defines CNA_STATIC
 *     (CMake's cna::cna_static and pkg-config's cna_static do so): CNA_API is
 *     empty.
 * Elsewhere CNA_STATIC changes nothing. With other compilers CNA_API is
 * empty. Define CNA_API before including any cna header to replace it.
 */
#ifndef CNA_EXPORT_H
#define CNA_EXPORT_H

#ifndef CNA_API
#if defined(_WIN32) || defined(__CYGWIN__)
#if defined(CNA_STATIC)
#define CNA_API
#elif defined(CNA_EXPORTS)
#define CNA_API __declspec(dllexport)
#else
#define CNA_API __declspec(dllimport)
#endif
#elif defined(__GNUC__) || defined(__clang__)
#define CNA_API __attribute__((visibility("default")))
#else
#define CNA_API
#endif
#endif

#endif /* CNA_EXPORT_H */
