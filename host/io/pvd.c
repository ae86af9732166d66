/* pvd.c - the ParaView collection (.pvd) that lists a run's .vtu frames
 * with their simulated times, so that ParaView opens the run as one time
 * series: the writer (atomic, whole; or one entry added in place, which
 * keeps a long run's cost linear) and a reader
 * of exactly what it writes, which a resumed run uses to keep the
 * entries before its checkpoint.
 * Invariant: every entry line is a function of (time, file); the reader
 * rebuilds each line from what it parsed and demands the same bytes.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "frame_io.h"

#define PVD_HEAD "<?xml version=\"1.0\"?>\n" \
                 "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n  <Collection>\n"
#define PVD_TAIL "  </Collection>\n</VTKFile>\n"

/* A file name the XML attribute carries verbatim: no quote, '<', '&'. */
static int file_ok(const char *s)
{
    return s[0] && strlen(s) < FCL_PVD_FILE_MAX && !strpbrk(s, "\"<>&\n");
}

static void entry_line(const fcl_pvd_entry *e, char *buf, size_t len)
{
    char t[40];
    if (!e->time_text[0])
        fio_time_text(e->time, t, sizeof t);
    snprintf(buf, len, "    <DataSet timestep=\"%s\" group=\"\" part=\"0\" file=\"%s\"/>",
             e->time_text[0] ? e->time_text : t, e->file);
}

void out_pvd_entry(fcl_pvd_entry *e, double t, const char *file)
{
    e->time = t;
    snprintf(e->file, sizeof e->file, "%s", file);
    fio_time_text(t, e->time_text, sizeof e->time_text);
}

int out_write_pvd(const char *path, const fcl_pvd_entry *e, size_t n, char *err, size_t errlen)
{
    struct io io;
    char line[FCL_PVD_FILE_MAX + 128];
    for (size_t k = 0; k < n; k++)
        if (!file_ok(e[k].file))
            return fio_plain_fail(err, errlen, "%s: entry %zu names no usable file", path, k);
    if (fio_wopen(&io, path, err, errlen) != 0)
        return -1;
    int ok = fio_wtext(&io, PVD_HEAD) == 0;
    for (size_t k = 0; ok && k < n; k++) {
        entry_line(&e[k], line, sizeof line);
        ok = fio_wtext(&io, line) == 0 && fio_wtext(&io, "\n") == 0;
    }
    ok = ok && fio_wtext(&io, PVD_TAIL) == 0;
    return fio_wfinish(&io, ok, 0);
}

int out_append_pvd(const char *path, const fcl_pvd_entry *e, size_t n, long long *bytes)
{
    char buf[FCL_PVD_FILE_MAX + 256];
    size_t tail = strlen(PVD_TAIL);
    struct stat st;
    if (n < 2 || *bytes < (long long)(strlen(PVD_HEAD) + tail) || !file_ok(e[n - 1].file))
        return -1;
    entry_line(&e[n - 1], buf, sizeof buf);
    size_t len = strlen(buf);
    snprintf(buf + len, sizeof buf - len, "\n%s", PVD_TAIL);
    len = strlen(buf);
    int fd = open(path, O_WRONLY | O_NOFOLLOW);
    /* Only over the bytes it wrote last: a file of another size was
     * changed since, and is written whole. */
    int ok = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == *bytes &&
             pwrite(fd, buf, len, (off_t)(*bytes - (long long)tail)) == (ssize_t)len && fsync(fd) == 0;
    if (fd >= 0)
        close(fd);
    if (!ok)
        return -1;
    *bytes += (long long)(len - tail);
    return 0;
}

int out_pvd_replaceable(const char *path)
{
    /* The head's first two lines: its own bytes, as it writes them. */
    const char *first = strstr(PVD_HEAD, "<VTKFile type=\"Collection\"");
    size_t want = (size_t)(first - PVD_HEAD) + strlen("<VTKFile type=\"Collection\"");
    char text[128];
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
        return 1;
    FILE *f = fopen(path, "rb");
    size_t got = f ? fread(text, 1, want, f) : 0;
    if (f)
        fclose(f);
    return got == want && memcmp(text, PVD_HEAD, want) == 0;
}

/* One entry line into e; -1 (message set) when it is not one we write. */
static int parse_entry(struct io *io, const char *line, fcl_pvd_entry *e)
{
    const char *t = strstr(line, "timestep=\""), *f = strstr(line, "file=\"");
    char again[FCL_PVD_FILE_MAX + 128], *end;
    memset(e, 0, sizeof *e);
    if (t && f) {
        e->time = strtod(t + 10, &end);
        size_t k = strcspn(f + 6, "\"");
        if (k < FCL_PVD_FILE_MAX)
            snprintf(e->file, sizeof e->file, "%.*s", (int)k, f + 6);
        fio_time_text(e->time, e->time_text, sizeof e->time_text);
        entry_line(e, again, sizeof again);
        if (file_ok(e->file) && strcmp(again, line) == 0)
            return 0;
    }
    return fio_fail(io, "\"%s\" is not a DataSet line fluidcl writes", line);
}

int out_read_pvd(const char *path, fcl_pvd_entry **out, size_t *count, char *err, size_t errlen)
{
    struct io io;
    long long size;
    fcl_frame_data unused;
    char line[FCL_PVD_FILE_MAX + 160];
    size_t n = 0, cap = 0;
    fcl_pvd_entry *e = NULL;
    *out = NULL;
    *count = 0;
    if (fio_ropen(&io, path, &unused, err, errlen, &size) != 0)
        return -1;
    int rc = fio_expect_line(&io, "<?xml version=\"1.0\"?>");
    rc = rc ? rc : fio_expect_line(&io, "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">");
    rc = rc ? rc : fio_expect_line(&io, "  <Collection>");
    while (rc == 0 && (rc = fio_read_line(&io, line, sizeof line, "DataSet")) == 0 &&
           strcmp(line, "  </Collection>") != 0) {
        if (n == cap) {
            fcl_pvd_entry *g = realloc(e, (cap = cap ? 2 * cap : 64) * sizeof *e);
            if (!g) {
                rc = fio_fail(&io, "out of memory");
                break;
            }
            e = g;
        }
        rc = parse_entry(&io, line, &e[n++]);
    }
    rc = rc ? rc : fio_expect_line(&io, "</VTKFile>");
    rc = rc ? rc : fio_expect_end(&io, 0, "</VTKFile>");
    fclose(io.fp);
    if (rc != 0) {
        free(e);
        return -1;
    }
    *out = e;
    *count = n;
    return 0;
}
