/* frame_ply.c - particle frames as binary little-endian PLY: the record
 * codecs, the property list, the writer and the reader (which also reads
 * the previous layout without the spacing comment and the surface flag).
 * Invariant: the reader accepts exactly what the writer produces.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

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

/* PLY keeps each particle's properties together: 9 little-endian words. */
static void enc_ply(const fcl_frame *f, size_t i, unsigned char *p)
{
    fio_put_f3(p, &f->pos[i], 0);
    fio_put_f3(p + 12, &f->vel[i], 0);
    fio_put_u32(p + 24, fio_f2u(f->density[i]), 0);
    fio_put_u32(p + 28, fio_f2u(f->pressure[i]), 0);
    fio_put_u32(p + 32, f->id[i], 0);
}

/* The same plus the surface flag, the optional tenth property. */
static void enc_ply_surf(const fcl_frame *f, size_t i, unsigned char *p)
{
    enc_ply(f, i, p);
    fio_put_u32(p + 36, fio_f2u(f->surface[i]), 0);
}

static int dec_ply(fcl_frame_data *d, size_t i, const unsigned char *p)
{
    fio_get_f3(p, &d->pos[i], 0);
    fio_get_f3(p + 12, &d->vel[i], 0);
    d->density[i] = fio_u2f(fio_get_u32(p + 24, 0));
    d->pressure[i] = fio_u2f(fio_get_u32(p + 28, 0));
    d->id[i] = fio_get_u32(p + 32, 0);
    return 0;
}

static int dec_ply_surf(fcl_frame_data *d, size_t i, const unsigned char *p)
{
    d->surface[i] = fio_u2f(fio_get_u32(p + 36, 0));
    return dec_ply(d, i, p);
}

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

int out_write_ply(const char *path, const fcl_frame *f, char *err, size_t errlen)
{
    struct io io;
    if (fio_check_frame(f, path, err, errlen) != 0 || fio_wopen(&io, path, err, errlen) != 0)
        return -1;
    char text[160], sbuf[40];
    const struct section *body = f->surface ? &ply_body_surf : &ply_body;
    out_float_text(f->spacing, sbuf, sizeof sbuf);   /* a float: 0.04, not 0.0399999991 */
    snprintf(text, sizeof text,
             "ply\nformat binary_little_endian 1.0\ncomment fluidcl particle frame\n" PLY_SPACING "%s\n"
             "element vertex %zu\n", sbuf, f->n);
    int ok = fio_wtext(&io, text) == 0;
    for (size_t k = 0; ok && k < PLY_NPROPS - !f->surface; k++)
        ok = fio_wtext(&io, ply_props[k]) == 0 && fio_wtext(&io, "\n") == 0;
    ok = ok && fio_wtext(&io, "end_header\n") == 0 && fio_wrecords(&io, f, body) == 0;
    return fio_wfinish(&io, ok, 0);
}

/* Reads the PLY header up to end_header: comment lines are skipped but
 * for the spacing's; the last property (the surface flag) may be absent,
 * as in files of the previous layout. */
static int read_ply_header(struct io *io, fcl_frame_data *d, size_t *n)
{
    char line[128];
    size_t sl = strlen(PLY_SPACING);
    if (fio_expect_line(io, "ply") != 0 ||
        fio_expect_line(io, "format binary_little_endian 1.0") != 0)
        return -1;
    for (;;) {
        if (fio_read_line(io, line, sizeof line, "element vertex") != 0)
            return -1;
        if (strncmp(line, PLY_SPACING, sl) == 0 && fio_parse_spacing(io, line + sl, line, &d->spacing) != 0)
            return -1;
        /* A mesh of ours (run --mesh, surface) among the frames, as a
         * glob of DIR's .ply files gives them: it was told of a header
         * line. */
        if (strcmp(line, "comment fluidcl surface mesh") == 0)
            return fio_fail(io, "a surface mesh (run --mesh and surface write NAME.surface.ply), not a particle "
                            "frame: expected frames only, e.g. DIR/frame_??????.ply");
        if (strncmp(line, "comment ", 8) != 0)
            break;
    }
    if (fio_parse_count(io, line, "element vertex ", "", n) != 0)
        return -1;
    for (size_t k = 0; k + 1 < PLY_NPROPS; k++)
        if (fio_expect_line(io, ply_props[k]) != 0)
            return -1;
    if (fio_read_line(io, line, sizeof line, "end_header") != 0)
        return -1;
    d->has_surface = strcmp(line, ply_props[PLY_NPROPS - 1]) == 0;
    if (d->has_surface)
        return fio_expect_line(io, "end_header");
    if (strcmp(line, "end_header") != 0)
        return fio_fail(io, "expected header line \"%s\" or \"end_header\", found \"%s\"",
                       ply_props[PLY_NPROPS - 1], line);
    return 0;
}

int out_read_ply(const char *path, fcl_frame_data *d, char *err, size_t errlen)
{
    struct io io;
    long long size;
    size_t n;
    if (fio_ropen(&io, path, d, err, errlen, &size) != 0)
        return -1;
    int rc = read_ply_header(&io, d, &n);
    int has = d->has_surface;
    const struct section *body = has ? &ply_body_surf : &ply_body;
    if (rc == 0)
        rc = fio_alloc_data(&io, d, n, body->recsize, size);
    if (rc == 0 && !has)
        fio_drop_surface(d);
    if (rc == 0)
        rc = fio_rrecords(&io, d, body);
    if (rc == 0)
        rc = fio_expect_end(&io, 0, "vertex");
    d->time = 0.0;
    d->has_time = 0;
    return fio_rfinish(&io, d, rc);
}
