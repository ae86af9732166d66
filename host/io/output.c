/* output.c - particle frame files (VTK, PLY) and statistics CSV.
 *
 * Invariant: nothing appears under a final name until it is complete
 * (write "<path>.tmp", fflush, fsync, rename); and each format's layout is
 * described once, in a table that both its writer and its reader walk, so
 * the reader accepts exactly what the writer produces and round trips are
 * bit-exact (floats travel as raw 32-bit patterns, NaN payloads included).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "output.h"

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

#include "atomic.h"

/* One open file plus where its errors go, so helpers need one argument. */
struct io {
    FILE *fp;
    const char *path;   /* the name the user asked for, used in messages */
    char *tmp;          /* writers only: "<path>.tmp" (in at) */
    char *err;
    size_t errlen;
    fcl_atomic at;      /* writers only (io/atomic.h) */
};

#ifdef __GNUC__
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

/* Formats "path: message" into err; always returns -1 for `return fail()`. */
PRINTF_LIKE(2, 3) static int io_fail(struct io *io, const char *fmt, ...)
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

PRINTF_LIKE(3, 4) static int plain_fail(char *err, size_t errlen, const char *fmt, ...)
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

static void put_u32(unsigned char *p, uint32_t v, int big)
{
    for (int k = 0; k < 4; k++)
        p[big ? 3 - k : k] = (unsigned char)(v >> (8 * k));
}

static uint32_t get_u32(const unsigned char *p, int big)
{
    uint32_t v = 0;
    for (int k = 0; k < 4; k++)
        v |= (uint32_t)p[big ? 3 - k : k] << (8 * k);
    return v;
}

static uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

static void put_f3(unsigned char *p, const float4 *v, int big)
{
    put_u32(p, f2u(v->x), big);
    put_u32(p + 4, f2u(v->y), big);
    put_u32(p + 8, f2u(v->z), big);
}

static void get_f3(const unsigned char *p, float4 *v, int big)
{
    v->x = u2f(get_u32(p, big));
    v->y = u2f(get_u32(p + 4, big));
    v->z = u2f(get_u32(p + 8, big));
    v->w = 0.0f;
}

/* ---- per-record codecs. A decoder returns -1 for a record whose content
 * (not just its bytes) is wrong, which only the VERTICES cells can be. */

typedef void (*enc_fn)(const fcl_frame *f, size_t i, unsigned char *dst);
typedef int (*dec_fn)(fcl_frame_data *d, size_t i, const unsigned char *src);

static void enc_pos(const fcl_frame *f, size_t i, unsigned char *p)
{
    put_f3(p, &f->pos[i], 1);
}

static void enc_vel(const fcl_frame *f, size_t i, unsigned char *p)
{
    put_f3(p, &f->vel[i], 1);
}

static void enc_den(const fcl_frame *f, size_t i, unsigned char *p)
{
    put_u32(p, f2u(f->density[i]), 1);
}

static void enc_prs(const fcl_frame *f, size_t i, unsigned char *p)
{
    put_u32(p, f2u(f->pressure[i]), 1);
}

/* VTK "int": the uint32 bit pattern, so ids >= 2^31 show negative in
 * ParaView but still round-trip exactly. */
static void enc_id(const fcl_frame *f, size_t i, unsigned char *p)
{
    put_u32(p, f->id[i], 1);
}

/* A vertex cell is (point count 1, point index i); n <= INT32_MAX is
 * checked before writing so i fits the int32 VTK reads. */
static void enc_cell(const fcl_frame *f, size_t i, unsigned char *p)
{
    (void)f;
    put_u32(p, 1u, 1);
    put_u32(p + 4, (uint32_t)i, 1);
}

static void enc_surf(const fcl_frame *f, size_t i, unsigned char *p)
{
    put_u32(p, f2u(f->surface[i]), 1);
}

static int dec_pos(fcl_frame_data *d, size_t i, const unsigned char *p)
{
    get_f3(p, &d->pos[i], 1);
    return 0;
}

static int dec_vel(fcl_frame_data *d, size_t i, const unsigned char *p)
{
    get_f3(p, &d->vel[i], 1);
    return 0;
}

static int dec_den(fcl_frame_data *d, size_t i, const unsigned char *p)
{
    d->density[i] = u2f(get_u32(p, 1));
    return 0;
}

static int dec_prs(fcl_frame_data *d, size_t i, const unsigned char *p)
{
    d->pressure[i] = u2f(get_u32(p, 1));
    return 0;
}

static int dec_id(fcl_frame_data *d, size_t i, const unsigned char *p)
{
    d->id[i] = get_u32(p, 1);
    return 0;
}

static int dec_surf(fcl_frame_data *d, size_t i, const unsigned char *p)
{
    d->surface[i] = u2f(get_u32(p, 1));
    return 0;
}

static int dec_cell(fcl_frame_data *d, size_t i, const unsigned char *p)
{
    (void)d;
    return get_u32(p, 1) == 1u && get_u32(p + 4, 1) == (uint32_t)i ? 0 : -1;
}

/* PLY keeps each particle's properties together: 9 little-endian words. */
static void enc_ply(const fcl_frame *f, size_t i, unsigned char *p)
{
    put_f3(p, &f->pos[i], 0);
    put_f3(p + 12, &f->vel[i], 0);
    put_u32(p + 24, f2u(f->density[i]), 0);
    put_u32(p + 28, f2u(f->pressure[i]), 0);
    put_u32(p + 32, f->id[i], 0);
}

/* The same plus the surface flag, the optional tenth property. */
static void enc_ply_surf(const fcl_frame *f, size_t i, unsigned char *p)
{
    enc_ply(f, i, p);
    put_u32(p + 36, f2u(f->surface[i]), 0);
}

static int dec_ply(fcl_frame_data *d, size_t i, const unsigned char *p)
{
    get_f3(p, &d->pos[i], 0);
    get_f3(p + 12, &d->vel[i], 0);
    d->density[i] = u2f(get_u32(p + 24, 0));
    d->pressure[i] = u2f(get_u32(p + 28, 0));
    d->id[i] = get_u32(p + 32, 0);
    return 0;
}

static int dec_ply_surf(fcl_frame_data *d, size_t i, const unsigned char *p)
{
    d->surface[i] = u2f(get_u32(p + 36, 0));
    return dec_ply(d, i, p);
}

/* ---- format tables. A VTK section is its header text (head, then 0, 1 or
 * 2 counts n and 2n, then tail) followed by n records of recsize bytes. */

struct section {
    const char *name;   /* for error messages */
    const char *head;
    int ncounts;
    const char *tail;
    enc_fn enc;
    dec_fn dec;
    size_t recsize;
    int skip_if_empty;  /* omitted when n == 0 */
    /* The surface flag: written only when the frame has it, and absent
     * from files of the previous layout, which end before it. */
    int optional;
};

#define VTK_PREAMBLE "# vtk DataFile Version 3.0\n"
#define VTK_TITLE "fluidcl frame time="
#define VTK_SPACING " spacing="
#define VTK_LUT "LOOKUP_TABLE default\n"

static const struct section vtk_sections[] = {
    {"POINTS", "POINTS ", 1, " float\n", enc_pos, dec_pos, 12, 0, 0},
    /* VTK's reader fails on "VERTICES 0 0", so an empty frame has none. */
    {"VERTICES", "\nVERTICES ", 2, "\n", enc_cell, dec_cell, 8, 1, 0},
    {"velocity", "\nPOINT_DATA ", 1, "\nVECTORS velocity float\n", enc_vel, dec_vel, 12, 0, 0},
    {"density", "\nSCALARS density float 1\n" VTK_LUT, 0, "", enc_den, dec_den, 4, 0, 0},
    {"pressure", "\nSCALARS pressure float 1\n" VTK_LUT, 0, "", enc_prs, dec_prs, 4, 0, 0},
    {"id", "\nSCALARS id int 1\n" VTK_LUT, 0, "", enc_id, dec_id, 4, 0, 0},
    {"surface", "\nSCALARS surface float 1\n" VTK_LUT, 0, "", enc_surf, dec_surf, 4, 0, 1},
};
#define VTK_NSECTIONS (sizeof vtk_sections / sizeof vtk_sections[0])
/* The previous layout's, the smallest a valid file can hold per point. */
#define VTK_BYTES_PER_POINT (12 + 8 + 12 + 4 + 4 + 4)

/* A PLY record is the properties in ply_props' order; the last one is
 * optional (the surface flag), so there are two record codecs. */
static const struct section ply_body = {"vertex", "", 0, "", enc_ply, dec_ply, 36, 0, 0};
static const struct section ply_body_surf = {"vertex", "", 0, "", enc_ply_surf, dec_ply_surf, 40, 0, 1};
static const char *const ply_props[] = {
    "property float x", "property float y", "property float z",
    "property float vx", "property float vy", "property float vz",
    "property float density", "property float pressure", "property uint id",
    "property float surface",
};
#define PLY_NPROPS (sizeof ply_props / sizeof ply_props[0])
#define PLY_SPACING "comment fluidcl spacing "

static void section_text(const struct section *s, size_t n, char *buf, size_t len)
{
    if (s->ncounts == 0)
        snprintf(buf, len, "%s%s", s->head, s->tail);
    else if (s->ncounts == 1)
        snprintf(buf, len, "%s%zu%s", s->head, n, s->tail);
    else
        snprintf(buf, len, "%s%zu %zu%s", s->head, n, 2 * n, s->tail);
}

/* ---- writing */

static int wopen(struct io *io, const char *path, char *err, size_t errlen)
{
    char msg[4400];
    memset(io, 0, sizeof *io);
    io->path = path;
    io->err = err;
    io->errlen = errlen;
    if (!path || !*path)
        return io_fail(io, "empty output path");
    if (atomic_open(&io->at, path, 0, msg, sizeof msg) != 0)
        return io_fail(io, "%s", msg);
    io->fp = io->at.fp;
    io->tmp = io->at.tmp;
    return 0;
}

/* Closes the file; if ok, makes it durable and renames it into place. On
 * any failure the .tmp is removed unless keep_tmp (the CSV's post-mortem). */
static int wfinish(struct io *io, int ok, int keep_tmp)
{
    char msg[4400];
    int rc = atomic_commit(&io->at, ok, keep_tmp, msg, sizeof msg);
    if (rc != 0 && ok)
        io_fail(io, "%s", msg);
    io->fp = NULL;
    return rc;
}

static int wbytes(struct io *io, const void *p, size_t len)
{
    if (len && fwrite(p, 1, len, io->fp) != len)
        return io_fail(io, "write to '%s' failed: %s", io->tmp, strerror(errno));
    return 0;
}

static int wtext(struct io *io, const char *s) { return wbytes(io, s, strlen(s)); }

/* Encodes records into a stack buffer so the file sees large writes. */
static int wrecords(struct io *io, const fcl_frame *f, const struct section *s)
{
    unsigned char buf[1 << 15];
    size_t per = sizeof buf / s->recsize;
    for (size_t i = 0; i < f->n; i += per) {
        size_t m = f->n - i < per ? f->n - i : per;
        for (size_t k = 0; k < m; k++)
            s->enc(f, i + k, buf + k * s->recsize);
        if (wbytes(io, buf, m * s->recsize) != 0)
            return -1;
    }
    return 0;
}

static int check_frame(const fcl_frame *f, const char *path, char *err, size_t errlen)
{
    if (!f)
        return plain_fail(err, errlen, "%s: no frame given", path ? path : "(null)");
    if (f->n > 0 && (!f->pos || !f->vel || !f->density || !f->pressure || !f->id))
        return plain_fail(err, errlen, "%s: frame of %zu particles has a NULL array",
                          path ? path : "(null)", f->n);
    /* VERTICES stores point indices as int32, and counts in int32 fields. */
    if (f->n > (size_t)INT32_MAX / 2)
        return plain_fail(err, errlen, "%s: %zu particles is too many for one file",
                          path ? path : "(null)", f->n);
    return 0;
}

/* The shortest of %.15g..%.17g that reads back as the same double: exact,
 * yet 0.12 stays "0.12" in ParaView's title rather than 0.11999999999999999. */
static void time_text(double t, char *buf, size_t len)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, t);
        if (strtod(buf, NULL) == t)
            break;
    }
}

int out_write_vtk(const char *path, const fcl_frame *f, double time,
                  char *err, size_t errlen)
{
    struct io io;
    if (check_frame(f, path, err, errlen) != 0 || wopen(&io, path, err, errlen) != 0)
        return -1;
    char text[160], tbuf[40], sbuf[40];
    time_text(time, tbuf, sizeof tbuf);
    time_text(f->spacing, sbuf, sizeof sbuf);
    snprintf(text, sizeof text, VTK_PREAMBLE VTK_TITLE "%s" VTK_SPACING "%s\nBINARY\nDATASET POLYDATA\n",
             tbuf, sbuf);
    int ok = wtext(&io, text) == 0;
    for (size_t s = 0; ok && s < VTK_NSECTIONS; s++) {
        if ((f->n == 0 && vtk_sections[s].skip_if_empty) || (vtk_sections[s].optional && !f->surface))
            continue;
        section_text(&vtk_sections[s], f->n, text, sizeof text);
        ok = wtext(&io, text) == 0 && wrecords(&io, f, &vtk_sections[s]) == 0;
    }
    ok = ok && wtext(&io, "\n") == 0;
    return wfinish(&io, ok, 0);
}

int out_write_ply(const char *path, const fcl_frame *f, char *err, size_t errlen)
{
    struct io io;
    if (check_frame(f, path, err, errlen) != 0 || wopen(&io, path, err, errlen) != 0)
        return -1;
    char text[160], sbuf[40];
    const struct section *body = f->surface ? &ply_body_surf : &ply_body;
    time_text(f->spacing, sbuf, sizeof sbuf);
    snprintf(text, sizeof text,
             "ply\nformat binary_little_endian 1.0\ncomment fluidcl particle frame\n" PLY_SPACING "%s\n"
             "element vertex %zu\n", sbuf, f->n);
    int ok = wtext(&io, text) == 0;
    for (size_t k = 0; ok && k < PLY_NPROPS - !f->surface; k++)
        ok = wtext(&io, ply_props[k]) == 0 && wtext(&io, "\n") == 0;
    ok = ok && wtext(&io, "end_header\n") == 0 && wrecords(&io, f, body) == 0;
    return wfinish(&io, ok, 0);
}

/* ---- reading */

static int ropen(struct io *io, const char *path, fcl_frame_data *d,
                 char *err, size_t errlen, long long *size)
{
    memset(io, 0, sizeof *io);
    io->path = path;
    io->err = err;
    io->errlen = errlen;
    if (d)
        memset(d, 0, sizeof *d);
    if (!path || !d)
        return io_fail(io, "no path or no destination given");
    io->fp = fopen(path, "rb");
    struct stat st;
    if (!io->fp || fstat(fileno(io->fp), &st) != 0) {
        int e = errno;
        if (io->fp)
            fclose(io->fp);
        return io_fail(io, "cannot open: %s", strerror(e));
    }
    *size = (long long)st.st_size;
    if (!S_ISREG(st.st_mode)) {
        fclose(io->fp);
        return io_fail(io, "not a regular file");
    }
    return 0;
}

/* Reads one header line without its '\n'; header lines are short ASCII. */
static int read_line(struct io *io, char *buf, size_t len, const char *what)
{
    size_t k = 0;
    for (;;) {
        int c = getc(io->fp);
        if (c == EOF)
            return io_fail(io, "file ends inside the header (reading %s)", what);
        if (c == '\n')
            break;
        if (k + 1 >= len || c == '\0')
            return io_fail(io, "malformed header: %s line is not text or too long", what);
        buf[k++] = (char)c;
    }
    buf[k] = '\0';
    return 0;
}

static int expect_line(struct io *io, const char *want)
{
    char line[128];
    if (read_line(io, line, sizeof line, want) != 0)
        return -1;
    if (strcmp(line, want) != 0)
        return io_fail(io, "expected header line \"%s\", found \"%s\"", want, line);
    return 0;
}

/* Parses "<prefix><count><suffix>" exactly, as written with %zu. */
static int parse_count(struct io *io, const char *line, const char *prefix,
                       const char *suffix, size_t *n)
{
    size_t pl = strlen(prefix);
    const char *p = line + pl;
    char *end;
    if (strncmp(line, prefix, pl) != 0 || *p < '0' || *p > '9')
        return io_fail(io, "expected \"%s<count>%s\", found \"%s\"", prefix, suffix, line);
    errno = 0;
    unsigned long long v = strtoull(p, &end, 10);
    if (errno || strcmp(end, suffix) != 0 || v > SIZE_MAX)
        return io_fail(io, "expected \"%s<count>%s\", found \"%s\"", prefix, suffix, line);
    *n = (size_t)v;
    return 0;
}

/* Rejects counts the file cannot hold before allocating for them, which
 * also rules out size overflow in the allocations below. */
static int alloc_data(struct io *io, fcl_frame_data *d, size_t n,
                      size_t bytes_per_point, long long file_size)
{
    if (n > (unsigned long long)file_size / bytes_per_point)
        return io_fail(io, "header declares %zu points but the file has only %lld bytes "
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
        return io_fail(io, "out of memory for %zu points", n);
    return 0;
}

static int rrecords(struct io *io, fcl_frame_data *d, const struct section *s)
{
    unsigned char buf[1 << 15];
    size_t per = sizeof buf / s->recsize;
    for (size_t i = 0; i < d->n; i += per) {
        size_t m = d->n - i < per ? d->n - i : per;
        if (fread(buf, s->recsize, m, io->fp) != m) {
            if (ferror(io->fp))
                return io_fail(io, "read error: %s", strerror(errno));
            return io_fail(io, "truncated: file ends inside the %s data "
                           "(expected %zu records of %zu bytes)", s->name, d->n, s->recsize);
        }
        for (size_t k = 0; k < m; k++)
            if (s->dec(d, i + k, buf + k * s->recsize) != 0)
                return io_fail(io, "bad %s record %zu", s->name, i + k);
    }
    return 0;
}

/* Matches the exact bytes of a section header that follows binary data. */
static int expect_text(struct io *io, const char *want, const char *name)
{
    char got[128];
    size_t len = strlen(want);
    size_t r = fread(got, 1, len, io->fp);
    if (r != len || memcmp(got, want, len) != 0) {
        const char *w = want + (want[0] == '\n');
        return io_fail(io, "%s: expected \"%.*s\" before the %s data",
                       r != len ? "truncated" : "malformed",
                       (int)strcspn(w, "\n"), w, name);
    }
    return 0;
}

/* The file must end right after the last data, plus a '\n' if newline. */
static int expect_end(struct io *io, int newline, const char *after)
{
    if (newline && getc(io->fp) != '\n')
        return io_fail(io, "truncated: no final newline after the %s data", after);
    if (getc(io->fp) != EOF)
        return io_fail(io, "unexpected data after the %s data", after);
    return 0;
}

static int rfinish(struct io *io, fcl_frame_data *d, int rc)
{
    fclose(io->fp);
    if (rc != 0)
        out_frame_free(d);
    return rc;
}

/* A recorded spacing: a finite number >= 0 that ends the text. */
static int parse_spacing(struct io *io, const char *text, const char *line, double *spacing)
{
    char *end;
    *spacing = strtod(text, &end);
    if (end == text || *end != '\0' || !(*spacing >= 0.0) || !isfinite(*spacing))
        return io_fail(io, "\"%s\" has no valid spacing (expected a number >= 0)", line);
    return 0;
}

/* "fluidcl frame time=T spacing=D", or the previous layout's
 * "fluidcl frame time=T" (spacing unknown: 0). */
static int read_vtk_title(struct io *io, fcl_frame_data *d)
{
    char line[128], *end;
    if (expect_line(io, "# vtk DataFile Version 3.0") != 0 ||
        read_line(io, line, sizeof line, "title") != 0)
        return -1;
    size_t pl = strlen(VTK_TITLE), sl = strlen(VTK_SPACING);
    if (strncmp(line, VTK_TITLE, pl) != 0)
        return io_fail(io, "title \"%s\" is not \"" VTK_TITLE "<time>" VTK_SPACING "<spacing>\"", line);
    d->time = strtod(line + pl, &end);
    if (end == line + pl || (*end != '\0' && strncmp(end, VTK_SPACING, sl) != 0))
        return io_fail(io, "title \"%s\" has no valid time", line);
    if (*end != '\0' && parse_spacing(io, end + sl, line, &d->spacing) != 0)
        return -1;
    return expect_line(io, "BINARY") != 0 || expect_line(io, "DATASET POLYDATA") != 0
               ? -1 : 0;
}

/* A file of the previous layout ends (with its final '\n') where the
 * optional surface section would start. */
static int optional_absent(struct io *io, long long size)
{
    long at = ftell(io->fp);
    return at >= 0 && (long long)at + 1 == size;
}

static void drop_surface(fcl_frame_data *d)
{
    free(d->surface);
    d->surface = NULL;
    d->has_surface = 0;
}

int out_read_vtk(const char *path, fcl_frame_data *d, char *err, size_t errlen)
{
    struct io io;
    long long size;
    char line[128];
    size_t n;
    if (ropen(&io, path, d, err, errlen, &size) != 0)
        return -1;
    int rc = read_vtk_title(&io, d);
    if (rc == 0)
        rc = read_line(&io, line, sizeof line, "POINTS");
    if (rc == 0)
        rc = parse_count(&io, line, "POINTS ", " float", &n);
    if (rc == 0)
        rc = alloc_data(&io, d, n, VTK_BYTES_PER_POINT, size);
    const char *last = "id";
    for (size_t s = 0; rc == 0 && s < VTK_NSECTIONS; s++) {
        const struct section *sec = &vtk_sections[s];
        if (n == 0 && sec->skip_if_empty)
            continue;
        if (sec->optional && optional_absent(&io, size)) {
            drop_surface(d);
            break;
        }
        section_text(sec, n, line, sizeof line);
        if (s > 0)  /* section 0's header was the POINTS line parsed above */
            rc = expect_text(&io, line, sec->name);
        if (rc == 0)
            rc = rrecords(&io, d, sec);
        d->has_surface |= sec->optional;
        last = sec->name;
    }
    if (rc == 0)
        rc = expect_end(&io, 1, last);
    return rfinish(&io, d, rc);
}

/* Reads the PLY header up to end_header: comment lines are skipped but
 * for the spacing's; the last property (the surface flag) may be absent,
 * as in files of the previous layout. */
static int read_ply_header(struct io *io, fcl_frame_data *d, size_t *n)
{
    char line[128];
    size_t sl = strlen(PLY_SPACING);
    if (expect_line(io, "ply") != 0 ||
        expect_line(io, "format binary_little_endian 1.0") != 0)
        return -1;
    for (;;) {
        if (read_line(io, line, sizeof line, "element vertex") != 0)
            return -1;
        if (strncmp(line, PLY_SPACING, sl) == 0 && parse_spacing(io, line + sl, line, &d->spacing) != 0)
            return -1;
        if (strncmp(line, "comment ", 8) != 0)
            break;
    }
    if (parse_count(io, line, "element vertex ", "", n) != 0)
        return -1;
    for (size_t k = 0; k + 1 < PLY_NPROPS; k++)
        if (expect_line(io, ply_props[k]) != 0)
            return -1;
    if (read_line(io, line, sizeof line, "end_header") != 0)
        return -1;
    d->has_surface = strcmp(line, ply_props[PLY_NPROPS - 1]) == 0;
    if (d->has_surface)
        return expect_line(io, "end_header");
    if (strcmp(line, "end_header") != 0)
        return io_fail(io, "expected header line \"%s\" or \"end_header\", found \"%s\"",
                       ply_props[PLY_NPROPS - 1], line);
    return 0;
}

int out_read_ply(const char *path, fcl_frame_data *d, char *err, size_t errlen)
{
    struct io io;
    long long size;
    size_t n;
    if (ropen(&io, path, d, err, errlen, &size) != 0)
        return -1;
    int rc = read_ply_header(&io, d, &n);
    int has = d->has_surface;
    const struct section *body = has ? &ply_body_surf : &ply_body;
    if (rc == 0)
        rc = alloc_data(&io, d, n, body->recsize, size);
    if (rc == 0 && !has)
        drop_surface(d);
    if (rc == 0)
        rc = rrecords(&io, d, body);
    if (rc == 0)
        rc = expect_end(&io, 0, "vertex");
    d->time = 0.0;
    return rfinish(&io, d, rc);
}

int out_read_frame(const char *path, fcl_frame_data *d, char *err, size_t errlen)
{
    size_t len = path ? strlen(path) : 0;
    if (len > 4 && strcmp(path + len - 4, ".vtk") == 0)
        return out_read_vtk(path, d, err, errlen);
    if (len > 4 && strcmp(path + len - 4, ".ply") == 0)
        return out_read_ply(path, d, err, errlen);
    if (d)
        memset(d, 0, sizeof *d);
    return plain_fail(err, errlen, "%s: expected a .vtk or .ply particle frame written by 'fluidcl run --out'",
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
    memset(d, 0, sizeof *d);
}

fcl_frame out_frame_view(const fcl_frame_data *d)
{
    /* An empty frame's arrays are NULL; a non-NULL surface pointer still
     * says that the flag is present, so the rewrite keeps the layout. */
    static const float none[1];
    const float *surface = d->has_surface ? (d->surface ? d->surface : none) : NULL;
    fcl_frame f = {d->n, d->pos, d->vel, d->density, d->pressure, d->id, surface, d->spacing};
    return f;
}

/* ---- directories */

/* mkdir -p. A component that already exists as a directory is fine even if
 * mkdir reports something other than EEXIST (e.g. EROFS, EACCES). */
static int make_dirs(const char *dir, char *err, size_t errlen)
{
    char *p = strdup(dir);
    if (!p)
        return plain_fail(err, errlen, "cannot create directory '%s': out of memory", dir);
    for (char *s = p + 1;; s++) {
        if (*s != '/' && *s != '\0')
            continue;
        char saved = *s;
        *s = '\0';
        struct stat st;
        if (mkdir(p, 0777) != 0 && !(stat(p, &st) == 0 && S_ISDIR(st.st_mode))) {
            int e = errno == EEXIST ? ENOTDIR : errno;  /* exists, not a dir */
            if (strcmp(p, dir) == 0)
                plain_fail(err, errlen, "cannot create directory '%s': %s", dir, strerror(e));
            else
                plain_fail(err, errlen, "cannot create directory '%s' (at '%s'): %s",
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
        return plain_fail(err, errlen, "empty output directory name");
    if (make_dirs(dir, err, errlen) != 0)
        return -1;
    /* Permissions, a read-only mount or a full inode table all show up here,
     * before a long run rather than at its first frame. */
    size_t len = strlen(dir) + 64;
    char *probe = malloc(len);
    if (!probe)
        return plain_fail(err, errlen, "directory '%s': out of memory", dir);
    snprintf(probe, len, "%s/.fluidcl_probe_%ld", dir, (long)getpid());
    int fd = open(probe, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int e = errno;
    if (fd >= 0) {
        close(fd);
        unlink(probe);
    }
    free(probe);
    if (fd < 0)
        return plain_fail(err, errlen, "directory '%s' is not writable: %s", dir, strerror(e));
    return 0;
}

/* ---- statistics CSV */

struct fcl_csv {
    struct io io;
    size_t ncols;
    int failed;       /* a write failed: close keeps the .tmp, not renamed */
    char err[256];
};

static int check_columns(const char *const *columns, size_t *ncols,
                         char *err, size_t errlen, const char *path)
{
    size_t k = 0;
    for (; columns && columns[k]; k++)
        if (!columns[k][0] || strpbrk(columns[k], ",\"\r\n"))
            return plain_fail(err, errlen, "%s: bad CSV column name \"%s\"", path, columns[k]);
    if (k == 0)
        return plain_fail(err, errlen, "%s: CSV needs at least one column", path);
    *ncols = k;
    return 0;
}

fcl_csv *out_csv_open(const char *path, const char *const *columns,
                      char *err, size_t errlen)
{
    size_t ncols = 0;
    if (check_columns(columns, &ncols, err, errlen, path ? path : "(null)") != 0)
        return NULL;
    fcl_csv *c = calloc(1, sizeof *c);
    if (!c) {
        plain_fail(err, errlen, "%s: out of memory", path ? path : "(null)");
        return NULL;
    }
    if (wopen(&c->io, path, err, errlen) != 0) {
        free(c);
        return NULL;
    }
    c->io.err = c->err;     /* later errors go to out_csv_error */
    c->io.errlen = sizeof c->err;
    c->ncols = ncols;
    int ok = 1;
    for (size_t k = 0; ok && k < ncols; k++)
        ok = wtext(&c->io, k ? "," : "") == 0 && wtext(&c->io, columns[k]) == 0;
    if (!ok || wtext(&c->io, "\n") != 0 || fflush(c->io.fp) != 0) {
        io_fail(&c->io, "cannot write CSV header: %s", strerror(errno));
        plain_fail(err, errlen, "%s", c->err);
        wfinish(&c->io, 0, 0);
        free(c);
        return NULL;
    }
    return c;
}

int out_csv_row(fcl_csv *c, const double *values)
{
    if (!c || !values || c->failed)
        return -1;
    for (size_t k = 0; k < c->ncols; k++)
        if (fprintf(c->io.fp, k ? ",%.9g" : "%.9g", values[k]) < 0)
            break;
    /* Flushed per row so a long run's progress can be watched in the .tmp. */
    if (fputc('\n', c->io.fp) == EOF || fflush(c->io.fp) != 0 || ferror(c->io.fp)) {
        c->failed = 1;
        io_fail(&c->io, "write to '%s' failed: %s", c->io.tmp, strerror(errno));
        return -1;
    }
    return 0;
}

const char *out_csv_error(const fcl_csv *c)
{
    return c ? c->err : "no CSV file";
}

int out_csv_close_err(fcl_csv *c, char *err, size_t errlen)
{
    if (!c)
        return 0;
    int rc = wfinish(&c->io, !c->failed, 1);
    if (rc != 0)  /* c->err holds the first failure; say where the rows are */
        plain_fail(err, errlen, "%s (not renamed; rows so far kept in '%s.tmp')",
                   c->err, c->io.path);
    free(c);
    return rc;
}

int out_csv_close(fcl_csv *c)
{
    return out_csv_close_err(c, NULL, 0);
}

/* For a run that ends before it starts (bad input found after the file was
 * opened): nothing was measured, so nothing is left on disk. */
void out_csv_discard(fcl_csv *c)
{
    if (!c)
        return;
    wfinish(&c->io, 0, 0);
    free(c);
}
