/*
 * UTF-8 as RFC 3629 defines it: the shortest form of each code point, none
 * above U+10FFFF, no surrogate halves (U+D800..U+DFFF). The readers refuse
 * strings that are not valid UTF-8 (JSON text must be, and the tool prints
 * names into JSON), and every message the library writes is made valid (a
 * name cut short at a buffer's end never leaves half a character).
 */
#include <string.h>

#include "internal.h"

/* The length of the valid sequence at p (at most n bytes), 0 when invalid. */
static size_t sequence(const unsigned char *p, size_t n)
{
    const unsigned char c = p[0];
    if (c < 0x80) return 1;
    size_t len;
    unsigned char lo = 0x80, hi = 0xbf; /* the second byte's range */
    if (c >= 0xc2 && c <= 0xdf) len = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        if (c == 0xe0) lo = 0xa0;      /* overlong below U+0800 */
        else if (c == 0xed) hi = 0x9f; /* surrogates U+D800..U+DFFF */
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        if (c == 0xf0) lo = 0x90;      /* overlong below U+10000 */
        else if (c == 0xf4) hi = 0x8f; /* above U+10FFFF */
    } else {
        return 0; /* a continuation byte, C0/C1 (overlong) or F5..FF */
    }
    if (n < len || p[1] < lo || p[1] > hi) return 0;
    for (size_t i = 2; i < len; i++)
        if ((p[i] & 0xc0) != 0x80) return 0;
    return len;
}

size_t cna__utf8_invalid_at(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        if (p[i] < 0x80) { /* the common case: ASCII */
            i++;
            continue;
        }
        size_t len = sequence(p + i, n - i);
        if (!len) return i;
        i += len;
    }
    return n;
}

void cna__utf8_repair(char *s)
{
    unsigned char *p = (unsigned char *)s;
    size_t n = strlen(s);
    for (size_t i = cna__utf8_invalid_at(s, n); i < n;) {
        size_t len = sequence(p + i, n - i);
        if (len) {
            i += len;
        } else {
            p[i++] = '?';
        }
    }
}
