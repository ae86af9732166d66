/* frame_common.c - the frame formats' shared machinery (frame_io.h):
 * byte order, section text, writing through the atomic writer, reading
 * with exact error messages, reading a frame by its extension, folders
 * (made and probed, and their names a run will write checked before it
 * starts: out_check_frame_names).
 * Invariant: floats travel as raw 32-bit patterns (NaN payloads
 * included), and every error names the file.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "frame_io.h"

/* Formats "path: message" into err; always returns -1 for `return fail()`. */
PRINTF_LIKE(2, 3) int fio_fail(struct io *io, const char *fmt, ...)
{
    if (!io->err || io->errlen == 0)
        return -1;
    int k = snprintf(io->err, io->errlen, "%s: ", io->path ? io->path : "(null)");
    if (k < 0 || (size_t)k >= io->errlen)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(io->err + k, io->errlen - (size_t)k, fmt, ap);
    va_end(ap);
    return -1;
}

PRINTF_LIKE(3, 4) int fio_plain_fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* ---- byte order: explicit shifts, so the host's endianness never matters */

void fio_put_u32(unsigned char *p, uint32_t v, int big)
{
    for (int k = 0; k < 4; k++)
        p[big ? 3 - k : k] = (unsigned char)(v >> (8 * k));
}

uint32_t fio_get_u32(const unsigned char *p, int big)
{
    uint32_t v = 0;
    for (int k = 0; k < 4; k++)
        v |= (uint32_t)p[big ? 3 - k : k] << (8 * k);
    return v;
}

uint32_t fio_f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
float fio_u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

void fio_put_f3(unsigned char *p, const float4 *v, int big)
{
    fio_put_u32(p, fio_f2u(v->x), big);
    fio_put_u32(p + 4, fio_f2u(v->y), big);
    fio_put_u32(p + 8, fio_f2u(v->z), big);
}

void fio_get_f3(const unsigned char *p, float4 *v, int big)
{
    v->x = fio_u2f(fio_get_u32(p, big));
    v->y = fio_u2f(fio_get_u32(p + 4, big));
    v->z = fio_u2f(fio_get_u32(p + 8, big));
    v->w = 0.0f;
}

void fio_section_text(const struct section *s, size_t n, char *buf, size_t len)
{
    if (s->ncounts == 0)
        snprintf(buf, len, "%s%s", s->head, s->tail);
    else if (s->ncounts == 1)
        snprintf(buf, len, "%s%zu%s", s->head, n, s->tail);
    else
        snprintf(buf, len, "%s%zu %zu%s", s->head, n, 2 * n, s->tail);
}

/* ---- writing */

int fio_wopen(struct io *io, const char *path, char *err, size_t errlen)
{
    char msg[4400];
    memset(io, 0, sizeof *io);
    io->path = path;
    io->err = err;
    io->errlen = errlen;
    if (!path || !*path)
        return fio_fail(io, "empty output path");
    if (atomic_open(&io->at, path, 0, msg, sizeof msg) != 0)
        return fio_fail(io, "%s", msg);
    io->fp = io->at.fp;
    io->tmp = io->at.tmp;
    return 0;
}

/* Closes the file; if ok, makes it durable and renames it into place. On
 * any failure the .tmp is removed unless keep_tmp (the CSV's post-mortem). */
int fio_wfinish(struct io *io, int ok, int keep_tmp)
{
    char msg[4400];
    int rc = atomic_commit(&io->at, ok, keep_tmp, msg, sizeof msg);
    if (rc != 0 && ok)
        fio_fail(io, "%s", msg);
    io->fp = NULL;
    return rc;
}

int fio_wbytes(struct io *io, const void *p, size_t len)
{
    if (len && fwrite(p, 1, len, io->fp) != len)
        return fio_fail(io, "write to '%s' failed: %s", io->tmp, strerror(errno));
    return 0;
}

int fio_wtext(struct io *io, const char *s) { return fio_wbytes(io, s, strlen(s)); }

/* Encodes records into a stack buffer so the file sees large writes. */
int fio_wrecords(struct io *io, const fcl_frame *f, const struct section *s)
{
    unsigned char buf[1 << 15];
    size_t per = sizeof buf / s->recsize;
    for (size_t i = 0; i < f->n; i += per) {
        size_t m = f->n - i < per ? f->n - i : per;
        for (size_t k = 0; k < m; k++)
            s->enc(f, i + k, buf + k * s->recsize);
        if (fio_wbytes(io, buf, m * s->recsize) != 0)
            return -1;
    }
    return 0;
}

int fio_check_frame(const fcl_frame *f, const char *path, char *err, size_t errlen)
{
    if (!f)
        return fio_plain_fail(err, errlen, "%s: no frame given", path ? path : "(null)");
    if (f->n > 0 && (!f->pos || !f->vel || !f->density || !f->pressure || !f->id))
        return fio_plain_fail(err, errlen, "%s: frame of %zu particles has a NULL array",
                          path ? path : "(null)", f->n);
    /* VERTICES stores point indices as int32, and counts in int32 fields. */
    if (f->n > (size_t)INT32_MAX / 2)
        return fio_plain_fail(err, errlen, "%s: %zu particles is too many for one file",
                          path ? path : "(null)", f->n);
    return 0;
}
/* ---- reading */

int fio_ropen(struct io *io, const char *path, fcl_frame_data *d,
                 char *err, size_t errlen, long long *size)
{
    memset(io, 0, sizeof *io);
    io->path = path;
    io->err = err;
    io->errlen = errlen;
    if (d)
        memset(d, 0, sizeof *d);
    if (!path || !d)
        return fio_fail(io, "no path or no destination given");
    io->fp = fopen(path, "rb");
    struct stat st;
    if (!io->fp || fstat(fileno(io->fp), &st) != 0) {
        int e = errno;
        if (io->fp)
            fclose(io->fp);
        return fio_fail(io, "cannot open: %s", strerror(e));
    }
    *size = (long long)st.st_size;
    if (!S_ISREG(st.st_mode)) {
        fclose(io->fp);
        return fio_fail(io, "not a regular file");
    }
    return 0;
}

/* Reads one header line without its '\n'; header lines are short ASCII. */
int fio_read_line(struct io *io, char *buf, size_t len, const char *what)
{
    size_t k = 0;
    for (;;) {
        int c = getc(io->fp);
        if (c == EOF)
            return fio_fail(io, "file ends inside the header (reading %s)", what);
        if (c == '\n')
            break;
        if (k + 1 >= len || c == '\0')
            return fio_fail(io, "malformed header: %s line is not text or too long", what);
        buf[k++] = (char)c;
    }
    buf[k] = '\0';
    return 0;
}

int fio_expect_line(struct io *io, const char *want)
{
    char line[128];
    if (fio_read_line(io, line, sizeof line, want) != 0)
        return -1;
    if (strcmp(line, want) != 0)
        return fio_fail(io, "expected header line \"%s\", found \"%s\"", want, line);
    return 0;
}

/* Parses "<prefix><count><suffix>" exactly, as written with %zu. */
int fio_parse_count(struct io *io, const char *line, const char *prefix,
                       const char *suffix, size_t *n)
{
    size_t pl = strlen(prefix);
    const char *p = line + pl;
    char *end;
    if (strncmp(line, prefix, pl) != 0 || *p < '0' || *p > '9')
        return fio_fail(io, "expected \"%s<count>%s\", found \"%s\"", prefix, suffix, line);
    errno = 0;
    unsigned long long v = strtoull(p, &end, 10);
    if (errno || strcmp(end, suffix) != 0 || v > SIZE_MAX)
        return fio_fail(io, "expected \"%s<count>%s\", found \"%s\"", prefix, suffix, line);
    *n = (size_t)v;
    return 0;
}

/* Rejects counts the file cannot hold before allocating for them, which
 * also rules out size overflow in the allocations below. */
int fio_alloc_data(struct io *io, fcl_frame_data *d, size_t n,
                      size_t bytes_per_point, long long file_size)
{
    if (n > (unsigned long long)file_size / bytes_per_point)
        return fio_fail(io, "header declares %zu points but the file has only %lld bytes "
                       "(truncated?)", n, file_size);
    d->n = n;
    if (n == 0)
        return 0;
    d->pos = aligned_alloc(16, n * sizeof(float4));
    d->vel = aligned_alloc(16, n * sizeof(float4));
    d->density = malloc(n * sizeof(float));
    d->pressure = malloc(n * sizeof(float));
    d->id = malloc(n * sizeof(uint32_t));
    d->surface = malloc(n * sizeof(float));   /* freed again if absent */
    if (!d->pos || !d->vel || !d->density || !d->pressure || !d->id || !d->surface)
        return fio_fail(io, "out of memory for %zu points", n);
    return 0;
}

int fio_rrecords(struct io *io, fcl_frame_data *d, const struct section *s)
{
    unsigned char buf[1 << 15];
    size_t per = sizeof buf / s->recsize;
    for (size_t i = 0; i < d->n; i += per) {
        size_t m = d->n - i < per ? d->n - i : per;
        if (fread(buf, s->recsize, m, io->fp) != m) {
            if (ferror(io->fp))
                return fio_fail(io, "read error: %s", strerror(errno));
            return fio_fail(io, "truncated: file ends inside the %s data "
                           "(expected %zu records of %zu bytes)", s->name, d->n, s->recsize);
        }
        for (size_t k = 0; k < m; k++)
            if (s->dec(d, i + k, buf + k * s->recsize) != 0)
                return fio_fail(io, "bad %s record %zu", s->name, i + k);
    }
    return 0;
}

/* Matches the exact bytes of a section header that follows binary data. */
int fio_expect_text(struct io *io, const char *want, const char *name)
{
    char got[128];
    size_t len = strlen(want);
    size_t r = fread(got, 1, len, io->fp);
    if (r != len || memcmp(got, want, len) != 0) {
        const char *w = want + (want[0] == '\n');
        return fio_fail(io, "%s: expected \"%.*s\" before the %s data",
                       r != len ? "truncated" : "malformed",
                       (int)strcspn(w, "\n"), w, name);
    }
    return 0;
}

/* The file must end right after the last data, plus a '\n' if newline. */
int fio_expect_end(struct io *io, int newline, const char *after)
{
    if (newline && getc(io->fp) != '\n')
        return fio_fail(io, "truncated: no final newline after the %s data", after);
    if (getc(io->fp) != EOF)
        return fio_fail(io, "unexpected data after the %s data", after);
    return 0;
}

int fio_rfinish(struct io *io, fcl_frame_data *d, int rc)
{
    fclose(io->fp);
    if (rc != 0)
        out_frame_free(d);
    return rc;
}

/* A recorded spacing: a finite number >= 0 that ends the text (0: none
 * recorded, as frames of earlier builds say; tests/data has some). */
int fio_parse_spacing(struct io *io, const char *text, const char *line, double *spacing)
{
    char *end;
    *spacing = strtod(text, &end);
    if (end == text || *end != '\0' || !(*spacing >= 0.0) || !isfinite(*spacing)) {
        if (strcmp(text, line) == 0)
            return fio_fail(io, "the recorded particle spacing '%s': expected a number of metres, 0 for none", text);
        return fio_fail(io, "the recorded particle spacing '%s' (in \"%s\"): expected a number of metres, 0 for none",
                        text, line);
    }
    return 0;
}

/* A file of the previous layout ends (with its final '\n') where the
 * optional surface section would start. */
int fio_optional_absent(struct io *io, long long size)
{
    long at = ftell(io->fp);
    return at >= 0 && (long long)at + 1 == size;
}

void fio_drop_surface(fcl_frame_data *d)
{
    free(d->surface);
    d->surface = NULL;
    d->has_surface = 0;
}

int out_read_frame(const char *path, fcl_frame_data *d, char *err, size_t errlen)
{
    size_t len = path ? strlen(path) : 0;
    if (len > 4 && strcmp(path + len - 4, ".vtk") == 0)
        return out_read_vtk(path, d, err, errlen);
    if (len > 4 && strcmp(path + len - 4, ".ply") == 0)
        return out_read_ply(path, d, err, errlen);
    if (len > 4 && strcmp(path + len - 4, ".vtu") == 0)
        return out_read_vtu(path, d, err, errlen);
    if (d)
        memset(d, 0, sizeof *d);
    return fio_plain_fail(err, errlen, "%s: expected a .vtu, .vtk or .ply particle frame written by 'fluidcl run --out'",
                      path ? path : "(null)");
}

void out_frame_free(fcl_frame_data *d)
{
    if (!d)
        return;
    free(d->pos);
    free(d->vel);
    free(d->density);
    free(d->pressure);
    free(d->id);
    free(d->surface);
    for (int k = 0; k < d->nextra; k++)
        free(d->extra[k]);
    memset(d, 0, sizeof *d);
}

fcl_frame out_frame_view(const fcl_frame_data *d)
{
    /* An empty frame's arrays are NULL; a non-NULL surface pointer still
     * says that the flag is present, so the rewrite keeps the layout. */
    static const float none[1];
    const float *surface = d->has_surface ? (d->surface ? d->surface : none) : NULL;
    fcl_frame f = {d->n, d->pos, d->vel, d->density, d->pressure, d->id, surface, d->spacing, d->nextra, {0}, {0}};
    for (int k = 0; k < d->nextra; k++) {
        f.extra_name[k] = d->extra_name[k];
        f.extra[k] = d->extra[k];
    }
    return f;
}

/* ---- directories */

/* mkdir -p. A component that already exists as a directory is fine even if
 * mkdir reports something other than EEXIST (e.g. EROFS, EACCES). */
static int fio_make_dirs(const char *dir, char *err, size_t errlen)
{
    char *p = strdup(dir);
    if (!p)
        return fio_plain_fail(err, errlen, "cannot create directory '%s': out of memory", dir);
    for (char *s = p + 1;; s++) {
        if (*s != '/' && *s != '\0')
            continue;
        char saved = *s;
        *s = '\0';
        struct stat st;
        /* mkdir's errno, before stat's (an unwritable parent is EACCES,
         * which stat's ENOENT would hide). */
        int made = mkdir(p, 0777) == 0, e = made ? 0 : errno;
        if (made)
            atomic_made_dir(p);   /* for a signal during set-up to take back */
        if (!made && !(stat(p, &st) == 0 && S_ISDIR(st.st_mode))) {
            e = e == EEXIST ? ENOTDIR : e;  /* exists, not a dir */
            if (strcmp(p, dir) == 0)
                fio_plain_fail(err, errlen, "cannot create directory '%s': %s", dir, strerror(e));
            else
                fio_plain_fail(err, errlen, "cannot create directory '%s' (at '%s'): %s",
                           dir, p, strerror(e));
            free(p);
            return -1;
        }
        *s = saved;
        if (saved == '\0')
            break;
    }
    free(p);
    return 0;
}

int out_prepare_dir(const char *dir, char *err, size_t errlen)
{
    if (!dir || !*dir)
        return fio_plain_fail(err, errlen, "empty output directory name");
    if (fio_make_dirs(dir, err, errlen) != 0)
        return -1;
    /* Permissions, a read-only mount or a full inode table all show up here,
     * before a long run rather than at its first frame. */
    size_t len = strlen(dir) + 64;
    char *probe = malloc(len);
    if (!probe)
        return fio_plain_fail(err, errlen, "directory '%s': out of memory", dir);
    snprintf(probe, len, "%s/.fluidcl_probe_%ld", dir, (long)getpid());
    int fd = open(probe, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int e = errno;
    if (fd >= 0) {
        close(fd);
        unlink(probe);
    }
    free(probe);
    if (fd < 0)
        return fio_plain_fail(err, errlen, "directory '%s' is not writable: %s", dir, strerror(e));
    return 0;
}

/* Whether name is pattern with its '#' a run of at least 6 digits. */
static int step_name(const char *name, const char *pattern)
{
    const char *hash = strchr(pattern, '#');
    size_t pre = (size_t)(hash - pattern), digits = 0;
    if (strncmp(name, pattern, pre) != 0)
        return 0;
    while (name[pre + digits] >= '0' && name[pre + digits] <= '9')
        digits++;
    return digits >= 6 && strcmp(name + pre + digits, hash + 1) == 0;
}

int out_check_frame_names(const char *dir, const char *const *names, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;   /* out_prepare_dir said what it could */
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        int ours = 0;
        for (int k = 0; names[k] && !ours; k++)
            ours = step_name(e->d_name, names[k]);
        if (!ours)
            continue;
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        char *path = malloc(len), why[512];
        if (!path) {
            rc = fio_plain_fail(err, errlen, "directory '%s': out of memory", dir);
            break;
        }
        snprintf(path, len, "%s/%s", dir, e->d_name);
        if (atomic_check_name(path, why, sizeof why) != 0)
            rc = fio_plain_fail(err, errlen, "%s: %s (a name this run may write; move it, or give another folder)",
                                path, why);
        free(path);
    }
    closedir(d);
    return rc;
}

void out_float_text(double v, char *out, size_t len)
{
    for (int digits = 1; digits <= 9; digits++) {
        snprintf(out, len, "%.*g", digits, v);
        if ((float)strtod(out, NULL) == (float)v)
            return;
    }
}

/* The shortest of %.15g..%.17g that reads back as the same double: exact,
 * yet 0.12 stays "0.12" in ParaView's title rather than 0.11999999999999999. */
void fio_time_text(double t, char *buf, size_t len)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, t);
        if (strtod(buf, NULL) == t)
            break;
    }
}

const float *out_frame_field(const fcl_frame_data *d, const char *name)
{
    for (int k = 0; k < d->nextra; k++)
        if (strcmp(d->extra_name[k], name) == 0)
            return d->extra[k];
    return NULL;
}
