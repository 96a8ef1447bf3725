/*
 * Opening an input file without ever blocking: a FIFO, a terminal or a device
 * named where a file is expected would make a plain fopen (or the first read)
 * wait forever for a writer. The file is opened with O_NONBLOCK, the opened
 * descriptor is checked with fstat (no race with a stat of the path), what is
 * not a regular file is refused, and O_NONBLOCK is cleared again for the
 * reads. Every reader of the library (glTF documents and buffers, .cnb, .cnj,
 * cna_model_load_any) and the command-line tool's format probe go through it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

int cna__file_open_regular(const char *path, FILE **out, uint64_t *size)
{
    *out = NULL;
    *size = 0;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return errno ? errno : EIO;
    struct stat st;
    int e = 0;
    if (fstat(fd, &st) != 0) e = errno ? errno : EIO;
    else if (!S_ISREG(st.st_mode)) e = CNA__FILE_NOT_REGULAR;
    else {
        int flags = fcntl(fd, F_GETFL);
        if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) e = errno ? errno : EIO;
    }
    FILE *f = e ? NULL : fdopen(fd, "rb");
    if (!e && !f) e = errno ? errno : EIO;
    if (e) {
        close(fd);
        return e;
    }
    *out = f;
    *size = st.st_size > 0 ? (uint64_t)st.st_size : 0;
    return 0;
}
