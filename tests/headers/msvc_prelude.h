/*
 * Forced before each public header by msvc_headers.cmake: the compiler must be
 * clang acting as MSVC (clang -target x86_64-pc-windows-msvc with __clang__
 * undefined, as cl.exe has it), and the GNU extensions that MSVC rejects are
 * poisoned, so that any of them outside an #if that MSVC skips is an error.
 * (-std=c11 -pedantic-errors refuses the GNU syntax without a keyword:
 * statement expressions, zero-length arrays, empty structs, ...)
 */
#if !defined(_MSC_VER) || defined(__GNUC__) || defined(__clang__)
#error "not compiled as MSVC: clang -target x86_64-pc-windows-msvc -U__clang__"
#endif
#pragma GCC poison __attribute__ __extension__ __typeof__ __typeof typeof __asm__ __asm asm
#pragma GCC poison __builtin_expect __builtin_unreachable __label__ __auto_type
#pragma GCC poison __int128 __thread
