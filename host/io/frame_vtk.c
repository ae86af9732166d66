/* frame_vtk.c - particle frames as legacy VTK POLYDATA (binary,
 * big-endian): the section table, its codecs, the writer and the reader
 * (which also reads the previous layout: no spacing, no surface flag).
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

/* ---- per-record codecs. A decoder returns -1 for a record whose content
 * (not just its bytes) is wrong, which only the VERTICES cells can be. */

static void enc_pos(const fcl_frame *f, size_t i, unsigned char *p)
{
    fio_put_f3(p, &f->pos[i], 1);
}

static void enc_vel(const fcl_frame *f, size_t i, unsigned char *p)
{
    fio_put_f3(p, &f->vel[i], 1);
}

static void enc_den(const fcl_frame *f, size_t i, unsigned char *p)
{
    fio_put_u32(p, fio_f2u(f->density[i]), 1);
}

static void enc_prs(const fcl_frame *f, size_t i, unsigned char *p)
{
    fio_put_u32(p, fio_f2u(f->pressure[i]), 1);
}

/* VTK "int": the uint32 bit pattern, so ids >= 2^31 show negative in
 * ParaView but still round-trip exactly. */
static void enc_id(const fcl_frame *f, size_t i, unsigned char *p)
{
    fio_put_u32(p, f->id[i], 1);
}

/* A vertex cell is (point count 1, point index i); n <= INT32_MAX is
 * checked before writing so i fits the int32 VTK reads. */
static void enc_cell(const fcl_frame *f, size_t i, unsigned char *p)
{
    (void)f;
    fio_put_u32(p, 1u, 1);
    fio_put_u32(p + 4, (uint32_t)i, 1);
}

static void enc_surf(const fcl_frame *f, size_t i, unsigned char *p)
{
    fio_put_u32(p, fio_f2u(f->surface[i]), 1);
}

static int dec_pos(fcl_frame_data *d, size_t i, const unsigned char *p)
{
    fio_get_f3(p, &d->pos[i], 1);
    return 0;
}

static int dec_vel(fcl_frame_data *d, size_t i, const unsigned char *p)
{
    fio_get_f3(p, &d->vel[i], 1);
    return 0;
}

static int dec_den(fcl_frame_data *d, size_t i, const unsigned char *p)
{
    d->density[i] = fio_u2f(fio_get_u32(p, 1));
    return 0;
}

static int dec_prs(fcl_frame_data *d, size_t i, const unsigned char *p)
{
    d->pressure[i] = fio_u2f(fio_get_u32(p, 1));
    return 0;
}

static int dec_id(fcl_frame_data *d, size_t i, const unsigned char *p)
{
    d->id[i] = fio_get_u32(p, 1);
    return 0;
}

static int dec_surf(fcl_frame_data *d, size_t i, const unsigned char *p)
{
    d->surface[i] = fio_u2f(fio_get_u32(p, 1));
    return 0;
}

static int dec_cell(fcl_frame_data *d, size_t i, const unsigned char *p)
{
    (void)d;
    return fio_get_u32(p, 1) == 1u && fio_get_u32(p + 4, 1) == (uint32_t)i ? 0 : -1;
}

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


/* One solver field: "SCALARS NAME float 1", the lookup table, n floats. */
static int write_extra(struct io *io, const fcl_frame *f, int k)
{
    char text[160];
    unsigned char rec[4];
    snprintf(text, sizeof text, "\nSCALARS %s float 1\n" VTK_LUT, f->extra_name[k]);
    if (fio_wtext(io, text) != 0)
        return -1;
    for (size_t i = 0; i < f->n; i++) {
        fio_put_u32(rec, fio_f2u(f->extra[k][i]), 1);
        if (fio_wbytes(io, rec, 4) != 0)
            return -1;
    }
    return 0;
}

/* A solver field after the surface flag: its header line names it. */
static int read_extra(struct io *io, fcl_frame_data *d, size_t n)
{
    char line[128], name[FCL_FIELD_NAME_MAX];
    int k = d->nextra;
    if (k == FCL_FRAME_EXTRA_MAX)
        return fio_fail(io, "more than %d solver fields after the surface flag", FCL_FRAME_EXTRA_MAX);
    if (getc(io->fp) != '\n' || fio_read_line(io, line, sizeof line, "solver field") != 0)
        return fio_fail(io, "truncated after the surface data");
    char again[160];
    if (sscanf(line, "SCALARS %47[A-Za-z0-9_]", name) != 1 ||
        (snprintf(again, sizeof again, "SCALARS %s float 1", name), strcmp(again, line) != 0))
        return fio_fail(io, "\"%s\" is not a solver field header (SCALARS NAME float 1, NAME of "
                        "letters, digits and _)", line);
    if (fio_expect_line(io, "LOOKUP_TABLE default") != 0)
        return -1;
    d->extra[k] = malloc(n * sizeof(float) + 1);
    if (!d->extra[k])
        return fio_fail(io, "out of memory for the field %s", name);
    snprintf(d->extra_name[k], sizeof d->extra_name[k], "%s", name);
    d->nextra++;
    unsigned char rec[4];
    for (size_t i = 0; i < n; i++) {
        if (fread(rec, 4, 1, io->fp) != 1)
            return fio_fail(io, "truncated in the %s data", name);
        d->extra[k][i] = fio_u2f(fio_get_u32(rec, 1));
    }
    return 0;
}

int out_write_vtk(const char *path, const fcl_frame *f, double time,
                  char *err, size_t errlen)
{
    struct io io;
    if (fio_check_frame(f, path, err, errlen) != 0 || fio_wopen(&io, path, err, errlen) != 0)
        return -1;
    char text[160], tbuf[40], sbuf[40];
    fio_time_text(time, tbuf, sizeof tbuf);
    out_float_text(f->spacing, sbuf, sizeof sbuf);   /* a float: 0.04, not 0.0399999991 */
    snprintf(text, sizeof text, VTK_PREAMBLE VTK_TITLE "%s" VTK_SPACING "%s\nBINARY\nDATASET POLYDATA\n",
             tbuf, sbuf);
    int ok = fio_wtext(&io, text) == 0;
    for (size_t s = 0; ok && s < VTK_NSECTIONS; s++) {
        if ((f->n == 0 && vtk_sections[s].skip_if_empty) || (vtk_sections[s].optional && !f->surface))
            continue;
        fio_section_text(&vtk_sections[s], f->n, text, sizeof text);
        ok = fio_wtext(&io, text) == 0 && fio_wrecords(&io, f, &vtk_sections[s]) == 0;
    }
    for (int k = 0; ok && f->surface && k < f->nextra; k++)
        ok = write_extra(&io, f, k) == 0;
    ok = ok && fio_wtext(&io, "\n") == 0;
    return fio_wfinish(&io, ok, 0);
}

/* "fluidcl frame time=T spacing=D", or the previous layout's
 * "fluidcl frame time=T" (spacing unknown: 0). */
static int read_vtk_title(struct io *io, fcl_frame_data *d)
{
    char line[128], *end;
    if (fio_expect_line(io, "# vtk DataFile Version 3.0") != 0 ||
        fio_read_line(io, line, sizeof line, "title") != 0)
        return -1;
    size_t pl = strlen(VTK_TITLE), sl = strlen(VTK_SPACING);
    if (strncmp(line, VTK_TITLE, pl) != 0)
        return fio_fail(io, "title \"%s\" is not \"" VTK_TITLE "<time>" VTK_SPACING "<spacing>\"", line);
    d->time = strtod(line + pl, &end);
    if (end == line + pl || (*end != '\0' && strncmp(end, VTK_SPACING, sl) != 0))
        return fio_fail(io, "title \"%s\" has no valid time", line);
    d->has_time = 1;
    if (*end != '\0' && fio_parse_spacing(io, end + sl, line, &d->spacing) != 0)
        return -1;
    return fio_expect_line(io, "BINARY") != 0 || fio_expect_line(io, "DATASET POLYDATA") != 0
               ? -1 : 0;
}

int out_read_vtk(const char *path, fcl_frame_data *d, char *err, size_t errlen)
{
    struct io io;
    long long size;
    char line[128];
    size_t n;
    if (fio_ropen(&io, path, d, err, errlen, &size) != 0)
        return -1;
    int rc = read_vtk_title(&io, d);
    if (rc == 0)
        rc = fio_read_line(&io, line, sizeof line, "POINTS");
    if (rc == 0)
        rc = fio_parse_count(&io, line, "POINTS ", " float", &n);
    if (rc == 0)
        rc = fio_alloc_data(&io, d, n, VTK_BYTES_PER_POINT, size);
    const char *last = "id";
    for (size_t s = 0; rc == 0 && s < VTK_NSECTIONS; s++) {
        const struct section *sec = &vtk_sections[s];
        if (n == 0 && sec->skip_if_empty)
            continue;
        if (sec->optional && fio_optional_absent(&io, size)) {
            fio_drop_surface(d);
            break;
        }
        fio_section_text(sec, n, line, sizeof line);
        if (s > 0)  /* section 0's header was the POINTS line parsed above */
            rc = fio_expect_text(&io, line, sec->name);
        if (rc == 0)
            rc = fio_rrecords(&io, d, sec);
        d->has_surface |= sec->optional;
        last = sec->name;
    }
    /* The solver's fields, until the final newline. */
    while (rc == 0 && d->has_surface && !fio_optional_absent(&io, size)) {
        rc = read_extra(&io, d, n);
        last = rc == 0 ? d->extra_name[d->nextra - 1] : last;
    }
    if (rc == 0)
        rc = fio_expect_end(&io, 1, last);
    return fio_rfinish(&io, d, rc);
}
