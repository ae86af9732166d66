/* fuzz_file.h - the frame harnesses' input as a file: the readers take a
 * path, so the bytes go to an anonymous in-memory file (memfd) opened as
 * /proc/self/fd/N, a regular file that costs no disk.
 * Invariant: the descriptor is closed again before the harness returns.
 */
#ifndef FCL_FUZZ_FILE_H
#define FCL_FUZZ_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* Writes data to a new memfd; its path goes to path. Returns the fd. */
static int fuzz_file(const uint8_t *data, size_t size, char *path, size_t len)
{
    int fd = memfd_create("fuzz_frame", 0);
    if (fd < 0)
        abort();
    for (size_t done = 0; done < size;) {
        ssize_t w = write(fd, data + done, size - done);
        if (w <= 0)
            abort();
        done += (size_t)w;
    }
    snprintf(path, len, "/proc/self/fd/%d", fd);
    return fd;
}

#endif
