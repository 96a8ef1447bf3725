/*
 * cna/export.h — CNA_API, the mark of the library's public functions.
 *
 * Every function declared in include/cna/ carries CNA_API. The shared library
 * (libcna.so) is built with hidden visibility, so these functions are the only
 * names it exports: the library's internal functions stay private to it and
 * cannot clash with a program's own symbols. For the static library the mark
 * changes nothing.
 *
 * With GCC and Clang, CNA_API is __attribute__((visibility("default"))); with
 * other compilers it is empty. Define CNA_API before including any cna header
 * to replace it (for example with a compiler's own export attribute).
 */
#ifndef CNA_EXPORT_H
#define CNA_EXPORT_H

#ifndef CNA_API
#if defined(__GNUC__) || defined(__clang__)
#define CNA_API __attribute__((visibility("default")))
#else
#define CNA_API
#endif
#endif

#endif /* CNA_EXPORT_H */
