/* infile.c - bounded reads of input files (infile.h): the file is opened
 * without blocking, must be a regular file and at most the limit, and is
 * read into one buffer sized from fstat.
 * Invariant: no path leads to an unbounded read or allocation.
 */
#include "infile.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

size_t infile_limit(const fcl_params *p)
{
    double b = (double)p->input_max_file_mb * 1048576.0;
    return b >= (double)(SIZE_MAX / 2) ? SIZE_MAX / 2 : (size_t)ceil(b);
}

static const char *kind_of(mode_t m)
{
    if (S_ISDIR(m)) return "a folder";
    if (S_ISFIFO(m)) return "a FIFO";
    if (S_ISCHR(m)) return "a character device";
    if (S_ISBLK(m)) return "a block device";
    if (S_ISSOCK(m)) return "a socket";
    return "not a regular file";
}

static int too_big(const char *path, const char *what, double size, size_t max_bytes, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s: %s is %.0f bytes (%.3g MiB), more than input.max_file_mb = %.3g MiB "
             "(raise it with --param input.max_file_mb=N)", path, what, size, size / 1048576.0,
             (double)max_bytes / 1048576.0);
    return -1;
}

/* Opens path for reading without blocking on a FIFO; -1 with err set, or
 * the descriptor of a regular file of at most max_bytes (its size in *size). */
static int open_checked(const char *path, size_t max_bytes, const char *what, off_t *size, char *err,
                        size_t errlen)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        snprintf(err, errlen, "%s: cannot open %s: %s", path, what, strerror(e));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        snprintf(err, errlen, "%s: %s is %s, expected a regular file", path, what, kind_of(st.st_mode));
        return -1;
    }
    if (st.st_size < 0 || (unsigned long long)st.st_size > max_bytes) {
        close(fd);
        return too_big(path, what, (double)st.st_size, max_bytes, err, errlen);
    }
    *size = st.st_size;
    return fd;
}

int infile_check(const char *path, size_t max_bytes, const char *what, char *err, size_t errlen)
{
    off_t size;
    int fd = open_checked(path, max_bytes, what, &size, err, errlen);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

int infile_read(const char *path, size_t max_bytes, const char *what, char **text, size_t *len, char *err,
                size_t errlen)
{
    off_t size;
    *text = NULL;
    *len = 0;
    int fd = open_checked(path, max_bytes, what, &size, err, errlen);
    if (fd < 0)
        return -1;
    /* Room for one byte more than fstat said, to notice a file that grows. */
    size_t cap = (size_t)size + 1, n = 0;
    char *buf = malloc(cap + 1);
    ssize_t got = 1;
    while (buf && n < cap && got > 0) {
        got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR)
            got = 1;
        else if (got > 0)
            n += (size_t)got;
    }
    int e = errno;
    close(fd);
    if (!buf || got < 0) {
        snprintf(err, errlen, "%s: cannot read %s: %s", path, what, buf ? strerror(e) : "out of memory");
        free(buf);
        return -1;
    }
    if (n == cap) {
        free(buf);
        snprintf(err, errlen, "%s: %s grew while being read (expected %lld bytes)", path, what, (long long)size);
        return -1;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}
