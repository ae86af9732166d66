/* fuzz_file.h - the frame harnesses' input as a file: the readers take a
 * path, so the bytes go to an anonymous in-memory file (memfd) opened as
 * /proc/self/fd/N, a regular file that costs no disk; and the one harness
 * the frame readers share (fuzz_frame).
 * Invariant: the descriptor is closed again before the harness returns.
 */
#ifndef FCL_FUZZ_FILE_H
#define FCL_FUZZ_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_clock.h"
#include "output.h"

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

/* The bytes through a frame reader (out_read_ply, out_read_vtk), freed.
 * Checked beyond the sanitizers: a refusal names the file and leaves the
 * frame empty; a frame that reads has its arrays for n > 0 and no more
 * points than the file has bytes. */
static int fuzz_frame(const uint8_t *data, size_t size,
                      int (*read)(const char *path, fcl_frame_data *d, char *err, size_t errlen))
{
    double t0 = fuzz_cpu_now();
    char path[64], err[1024];
    fcl_frame_data d;
    int fd = fuzz_file(data, size, path, sizeof path);
    if (read(path, &d, err, sizeof err) != 0) {
        if (strncmp(err, path, strlen(path)) != 0 || d.n || d.pos || d.vel)
            abort();
    } else {
        if (d.n > size || (d.n > 0 && (!d.pos || !d.vel || !d.density || !d.pressure || !d.id)))
            abort();
        out_frame_free(&d);
    }
    close(fd);
    fuzz_cpu_check(t0);
    return 0;
}

#endif
