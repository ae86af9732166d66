/* frame_vtu.c - particle frames as XML VTK UnstructuredGrid (.vtu) with
 * appended raw binary data, the format ParaView, VTK's Python module,
 * PyVista and meshio all read: the array table, its codecs, the header
 * text, the writer and the reader.
 * Layout: an XML header (FieldData TimeValue and spacing as exact ASCII
 * doubles; PointData velocity, density, pressure, id, surface and the
 * solver's fields; Points; one VTK_VERTEX cell per point), then
 * <AppendedData encoding="raw"> "_" and one block per array, each a
 * little-endian UInt64 byte count followed by the values.
 * Invariant: the header is a function of (n, time, spacing, field names);
 * the reader rebuilds it from the values it parses and demands the same
 * bytes, then reads exactly the blocks the writer wrote.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame_io.h"

/* ---- per-record codecs, little-endian */

static void enc_pos(const fcl_frame *f, size_t i, unsigned char *p) { fio_put_f3(p, &f->pos[i], 0); }
static void enc_vel(const fcl_frame *f, size_t i, unsigned char *p) { fio_put_f3(p, &f->vel[i], 0); }
static void enc_den(const fcl_frame *f, size_t i, unsigned char *p) { fio_put_u32(p, fio_f2u(f->density[i]), 0); }
static void enc_prs(const fcl_frame *f, size_t i, unsigned char *p) { fio_put_u32(p, fio_f2u(f->pressure[i]), 0); }
static void enc_id(const fcl_frame *f, size_t i, unsigned char *p) { fio_put_u32(p, f->id[i], 0); }
static void enc_surf(const fcl_frame *f, size_t i, unsigned char *p) { fio_put_u32(p, fio_f2u(f->surface[i]), 0); }

/* Cell i is the vertex of point i: connectivity i, offset i + 1, type 1
 * (VTK_VERTEX). n <= INT32_MAX / 2 is checked before writing. */
static void enc_conn(const fcl_frame *f, size_t i, unsigned char *p) { (void)f; fio_put_u32(p, (uint32_t)i, 0); }
static void enc_offs(const fcl_frame *f, size_t i, unsigned char *p) { (void)f; fio_put_u32(p, (uint32_t)i + 1, 0); }
static void enc_type(const fcl_frame *f, size_t i, unsigned char *p) { (void)f; (void)i; p[0] = 1; }

static int dec_pos(fcl_frame_data *d, size_t i, const unsigned char *p) { fio_get_f3(p, &d->pos[i], 0); return 0; }
static int dec_vel(fcl_frame_data *d, size_t i, const unsigned char *p) { fio_get_f3(p, &d->vel[i], 0); return 0; }
static int dec_den(fcl_frame_data *d, size_t i, const unsigned char *p)
{
    d->density[i] = fio_u2f(fio_get_u32(p, 0));
    return 0;
}
static int dec_prs(fcl_frame_data *d, size_t i, const unsigned char *p)
{
    d->pressure[i] = fio_u2f(fio_get_u32(p, 0));
    return 0;
}
static int dec_id(fcl_frame_data *d, size_t i, const unsigned char *p) { d->id[i] = fio_get_u32(p, 0); return 0; }
static int dec_surf(fcl_frame_data *d, size_t i, const unsigned char *p)
{
    d->surface[i] = fio_u2f(fio_get_u32(p, 0));
    return 0;
}
static int dec_conn(fcl_frame_data *d, size_t i, const unsigned char *p)
{
    (void)d;
    return fio_get_u32(p, 0) == (uint32_t)i ? 0 : -1;
}
static int dec_offs(fcl_frame_data *d, size_t i, const unsigned char *p)
{
    (void)d;
    return fio_get_u32(p, 0) == (uint32_t)i + 1 ? 0 : -1;
}
static int dec_type(fcl_frame_data *d, size_t i, const unsigned char *p)
{
    (void)d;
    (void)i;
    return p[0] == 1 ? 0 : -1;
}

/* ---- the array table: where each array sits in the XML, its type and
 * codec. Extras (the solver's fields) go after the surface flag. */

enum { IN_POINTDATA, IN_POINTS, IN_CELLS };

struct vtu_array {
    const char *name, *type;
    int ncomp, where;
    struct section sec;     /* only enc, dec, recsize and name are used */
};

#define SEC(nm, e, d, sz) { nm, "", 0, "", e, d, sz, 0, 0 }
static const struct vtu_array vtu_arrays[] = {
    { "velocity", "Float32", 3, IN_POINTDATA, SEC("velocity", enc_vel, dec_vel, 12) },
    { "density", "Float32", 1, IN_POINTDATA, SEC("density", enc_den, dec_den, 4) },
    { "pressure", "Float32", 1, IN_POINTDATA, SEC("pressure", enc_prs, dec_prs, 4) },
    { "id", "UInt32", 1, IN_POINTDATA, SEC("id", enc_id, dec_id, 4) },
    { "surface", "Float32", 1, IN_POINTDATA, SEC("surface", enc_surf, dec_surf, 4) },
    { "position", "Float32", 3, IN_POINTS, SEC("position", enc_pos, dec_pos, 12) },
    { "connectivity", "Int32", 1, IN_CELLS, SEC("connectivity", enc_conn, dec_conn, 4) },
    { "offsets", "Int32", 1, IN_CELLS, SEC("offsets", enc_offs, dec_offs, 4) },
    { "types", "UInt8", 1, IN_CELLS, SEC("types", enc_type, dec_type, 1) },
};
#undef SEC
enum { VTU_NARRAYS = sizeof vtu_arrays / sizeof vtu_arrays[0], VTU_SURFACE = 4 };
/* The smallest a valid file holds per point (no surface flag). */
#define VTU_BYTES_PER_POINT (12 + 4 + 4 + 4 + 12 + 4 + 4 + 1)
#define VTU_APPENDED "  <AppendedData encoding=\"raw\">\n   _"
#define VTU_END "\n  </AppendedData>\n</VTKFile>\n"
enum { VTU_HEADER_MAX = 8192 };

/* What one frame's file holds, the inputs of its header. */
struct vtu_shape {
    size_t n;
    char time[40], spacing[40];
    int surface;                     /* the flag's array is present */
    int nextra;
    char extra[FCL_FRAME_EXTRA_MAX][FCL_FIELD_NAME_MAX];
};

/* Appends printf text to buf at *at; -1 when it does not fit. */
PRINTF_LIKE(4, 5) static int add(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(buf + *at, len - *at, fmt, ap);
    va_end(ap);
    if (k < 0 || (size_t)k >= len - *at)
        return -1;
    *at += (size_t)k;
    return 0;
}

/* The arrays of one frame in the XML's order (PointData with the
 * solver's fields after the surface flag, Points, Cells); k is the
 * solver field an entry stands for, or -1. */
struct entry {
    const struct vtu_array *v;
    const char *name;
    int k;
};

static int list_arrays(const struct vtu_shape *sh, struct entry *e)
{
    int m = 0;
    for (int a = 0; a < VTU_NARRAYS; a++) {
        if (a == VTU_SURFACE && !sh->surface)
            continue;
        e[m++] = (struct entry){ &vtu_arrays[a], vtu_arrays[a].name, -1 };
        for (int k = 0; a == VTU_SURFACE && k < sh->nextra; k++)
            e[m++] = (struct entry){ &vtu_arrays[1], sh->extra[k], k };   /* Float32, like density */
    }
    return m;
}

/* The blocks are appended in the reverse of the XML's order. meshio
 * (5.0) finds each block's DataArray by its raw offset after it has
 * already renumbered the earlier blocks' arrays to base64 offsets, and
 * takes the first match in document order: were an earlier block's
 * array also earlier in the XML, a renumbered offset equal to a later
 * block's raw offset would take its place (measured: surface and
 * divergence_error swapped). Reversed, the array sought always comes
 * first. So entry j's offset is the size of the blocks after it. */
static unsigned long long entry_offset(const struct entry *e, int m, int j, size_t n)
{
    unsigned long long off = 0;
    for (int i = j + 1; i < m; i++)
        off += 8 + (unsigned long long)e[i].v->sec.recsize * n;
    return off;
}

static int add_arrays(char *buf, size_t len, size_t *at, const struct vtu_shape *sh)
{
    static const char *const open[] = { "      <PointData Scalars=\"density\" Vectors=\"velocity\">\n",
                                        "      <Points>\n", "      <Cells>\n" };
    static const char *const close[] = { "      </PointData>\n", "      </Points>\n", "      </Cells>\n" };
    struct entry e[VTU_NARRAYS + FCL_FRAME_EXTRA_MAX];
    int m = list_arrays(sh, e), rc = 0;
    for (int j = 0; j < m && rc == 0; j++) {
        char comps[40] = "";
        if (e[j].v->ncomp > 1)
            snprintf(comps, sizeof comps, " NumberOfComponents=\"%d\"", e[j].v->ncomp);
        if (j == 0 || e[j].v->where != e[j - 1].v->where)
            rc = add(buf, len, at, "%s", open[e[j].v->where]);
        rc = rc || add(buf, len, at, "        <DataArray type=\"%s\" Name=\"%s\"%s format=\"appended\" offset=\"%llu\"/>\n",
                       e[j].v->type, e[j].name, comps, entry_offset(e, m, j, sh->n));
        if (rc == 0 && (j == m - 1 || e[j].v->where != e[j + 1].v->where))
            rc = add(buf, len, at, "%s", close[e[j].v->where]);
    }
    return rc ? -1 : 0;
}

/* Everything before the first block, "_" included. */
static int vtu_header(const struct vtu_shape *sh, char *buf, size_t len)
{
    size_t at = 0;
    int rc = add(buf, len, &at,
                 "<?xml version=\"1.0\"?>\n"
                 "<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" "
                 "header_type=\"UInt64\">\n  <UnstructuredGrid>\n    <FieldData>\n"
                 "      <DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" format=\"ascii\">%s</DataArray>\n"
                 "      <DataArray type=\"Float64\" Name=\"spacing\" NumberOfTuples=\"1\" format=\"ascii\">%s</DataArray>\n"
                 "    </FieldData>\n    <Piece NumberOfPoints=\"%zu\" NumberOfCells=\"%zu\">\n",
                 sh->time, sh->spacing, sh->n, sh->n);
    rc = rc || add_arrays(buf, len, &at, sh);
    rc = rc || add(buf, len, &at, "    </Piece>\n  </UnstructuredGrid>\n" VTU_APPENDED);
    return rc ? -1 : 0;
}

/* ---- writer */

/* A block: its byte count, then the records. */
static int write_block(struct io *io, const fcl_frame *f, const struct section *s)
{
    unsigned char count[8];
    unsigned long long bytes = (unsigned long long)f->n * s->recsize;
    for (int k = 0; k < 8; k++)
        count[k] = (unsigned char)(bytes >> (8 * k));
    return fio_wbytes(io, count, 8) != 0 ? -1 : fio_wrecords(io, f, s);
}

/* The solver field k as a section: its values are f->extra[k]. */
static const fcl_frame *extra_frame(const fcl_frame *f, int k, fcl_frame *tmp)
{
    *tmp = *f;
    tmp->density = f->extra[k];
    return tmp;
}

static int write_blocks(struct io *io, const fcl_frame *f, const struct vtu_shape *sh)
{
    struct entry e[VTU_NARRAYS + FCL_FRAME_EXTRA_MAX];
    fcl_frame tmp;
    for (int j = list_arrays(sh, e) - 1; j >= 0; j--)
        if (write_block(io, e[j].k < 0 ? f : extra_frame(f, e[j].k, &tmp), &e[j].v->sec) != 0)
            return -1;
    return 0;
}

/* A field name the XML carries verbatim and the reader parses back. */
static int name_ok(const char *s)
{
    size_t k = 0;
    for (; s && s[k]; k++)
        if (!((s[k] >= 'a' && s[k] <= 'z') || (s[k] >= 'A' && s[k] <= 'Z') || (s[k] >= '0' && s[k] <= '9') ||
              s[k] == '_'))
            return 0;
    return k > 0 && k < FCL_FIELD_NAME_MAX;
}

static int frame_shape(const fcl_frame *f, double time, struct vtu_shape *sh, const char *path, char *err,
                       size_t errlen)
{
    memset(sh, 0, sizeof *sh);
    sh->n = f->n;
    sh->surface = f->surface != NULL;
    fio_time_text(time, sh->time, sizeof sh->time);
    out_float_text(f->spacing, sh->spacing, sizeof sh->spacing);   /* a float: 0.04, not 0.0399999991 */
    if (f->nextra < 0 || f->nextra > FCL_FRAME_EXTRA_MAX || (f->nextra > 0 && !f->surface))
        return fio_plain_fail(err, errlen, "%s: %d solver fields (at most %d, and only with the surface flag)",
                              path, f->nextra, FCL_FRAME_EXTRA_MAX);
    for (int k = 0; k < f->nextra; k++) {
        if (!name_ok(f->extra_name[k]) || (f->n > 0 && !f->extra[k]))
            return fio_plain_fail(err, errlen, "%s: solver field %d has no data or a name that is not "
                                  "letters, digits and _", path, k);
        snprintf(sh->extra[k], sizeof sh->extra[k], "%s", f->extra_name[k]);
    }
    sh->nextra = f->nextra;
    return 0;
}

int out_write_vtu(const char *path, const fcl_frame *f, double time, char *err, size_t errlen)
{
    struct io io;
    struct vtu_shape sh;
    char head[VTU_HEADER_MAX];
    if (fio_check_frame(f, path, err, errlen) != 0 || frame_shape(f, time, &sh, path, err, errlen) != 0)
        return -1;
    if (vtu_header(&sh, head, sizeof head) != 0)
        return fio_plain_fail(err, errlen, "%s: the XML header is too long", path);
    if (fio_wopen(&io, path, err, errlen) != 0)
        return -1;
    int ok = fio_wtext(&io, head) == 0 && write_blocks(&io, f, &sh) == 0 && fio_wtext(&io, VTU_END) == 0;
    return fio_wfinish(&io, ok, 0);
}

/* ---- reader */

/* The header up to and including "_" (the start of the data). */
static int read_header(struct io *io, char *buf, size_t len)
{
    size_t k = 0, want = strlen(VTU_APPENDED);
    for (;;) {
        int c = getc(io->fp);
        if (c == EOF)   /* a complete XML file from another writer ends too, without raw appended data */
            return strstr(buf, "</VTKFile>") ? fio_fail(io, "not a fluidcl .vtu frame: no raw appended data (another "
                                                        "writer's file? fluidcl reads the frames it writes)")
                                             : fio_fail(io, "truncated: file ends inside the XML header");
        if (k + 1 >= len || c == '\0')
            return fio_fail(io, "not a fluidcl .vtu frame: no appended data within %zu bytes", len);
        buf[k++] = (char)c;
        buf[k] = '\0';
        if (k >= want && strcmp(buf + k - want, VTU_APPENDED) == 0)
            return 0;
    }
}

/* The text between `after` and the next '"' or '<' into out. */
static int value_after(const char *text, const char *after, char *out, size_t len)
{
    const char *p = strstr(text, after);
    if (!p)
        return -1;
    p += strlen(after);
    size_t k = strcspn(p, "\"<");
    if (k == 0 || k >= len)
        return -1;
    snprintf(out, len, "%.*s", (int)k, p);
    return 0;
}

/* The solver's fields: the PointData arrays after "surface". */
static int parse_extras(struct io *io, const char *head, struct vtu_shape *sh)
{
    const char *p = strstr(head, "Name=\"surface\"");
    const char *end = strstr(head, "</PointData>");
    sh->surface = p && end && p < end;
    if (!sh->surface)
        return 0;
    while ((p = strstr(p + 1, "Name=\"")) != NULL && p < end) {
        if (sh->nextra == FCL_FRAME_EXTRA_MAX)
            return fio_fail(io, "more than %d solver fields after the surface flag", FCL_FRAME_EXTRA_MAX);
        if (value_after(p, "Name=\"", sh->extra[sh->nextra], FCL_FIELD_NAME_MAX) != 0 ||
            !name_ok(sh->extra[sh->nextra]))
            return fio_fail(io, "a PointData array name is not letters, digits and _");
        sh->nextra++;
    }
    return 0;
}

/* n, time, spacing and field names from the header, which must then be
 * exactly the header the writer makes of them. */
static int parse_header(struct io *io, const char *head, struct vtu_shape *sh, fcl_frame_data *d)
{
    char num[40], *end;
    memset(sh, 0, sizeof *sh);
    if (value_after(head, "Name=\"TimeValue\" NumberOfTuples=\"1\" format=\"ascii\">", sh->time, sizeof sh->time) ||
        value_after(head, "Name=\"spacing\" NumberOfTuples=\"1\" format=\"ascii\">", sh->spacing,
                    sizeof sh->spacing) ||
        value_after(head, "<Piece NumberOfPoints=\"", num, sizeof num))
        return fio_fail(io, "not a fluidcl .vtu frame: no TimeValue, spacing or NumberOfPoints");
    d->time = strtod(sh->time, &end);
    if (*end != '\0')
        return fio_fail(io, "TimeValue \"%s\" is not a number", sh->time);
    d->has_time = 1;
    if (fio_parse_spacing(io, sh->spacing, sh->spacing, &d->spacing) != 0)
        return -1;
    errno = 0;
    unsigned long long n = strtoull(num, &end, 10);
    if (errno || *end != '\0' || num[0] < '0' || num[0] > '9' || n > (unsigned long long)INT32_MAX / 2)
        return fio_fail(io, "NumberOfPoints \"%s\" is not a count this format holds", num);
    sh->n = (size_t)n;
    if (parse_extras(io, head, sh) != 0)
        return -1;
    /* Rebuilt from the parsed text, so it compares equal only if every
     * other byte is what fluidcl writes. */
    char again[VTU_HEADER_MAX];
    if (vtu_header(sh, again, sizeof again) != 0 || strcmp(again, head) != 0)
        return fio_fail(io, "the XML header is not the layout fluidcl writes (or it is damaged)");
    return 0;
}

static int read_block(struct io *io, fcl_frame_data *d, const struct section *s)
{
    unsigned char count[8];
    unsigned long long bytes = 0;
    if (fread(count, 1, 8, io->fp) != 8)
        return fio_fail(io, "truncated: file ends before the %s data", s->name);
    for (int k = 0; k < 8; k++)
        bytes |= (unsigned long long)count[k] << (8 * k);
    if (bytes != (unsigned long long)d->n * s->recsize)
        return fio_fail(io, "the %s block holds %llu bytes, expected %zu", s->name, bytes, d->n * s->recsize);
    return fio_rrecords(io, d, s);
}

/* Solver field k is read through the density decoder into its own
 * array: the density array is swapped out while it reads. */
static int read_extra(struct io *io, fcl_frame_data *d, const struct vtu_shape *sh, int k)
{
    d->extra[k] = malloc(d->n * sizeof(float) + 1);
    if (!d->extra[k])
        return fio_fail(io, "out of memory for the field %s", sh->extra[k]);
    snprintf(d->extra_name[k], sizeof d->extra_name[k], "%s", sh->extra[k]);
    float *density = d->density;
    struct section s = vtu_arrays[1].sec;
    s.name = sh->extra[k];
    d->density = d->extra[k];
    int rc = read_block(io, d, &s);
    d->density = density;
    return rc;
}

/* In the writer's order, the reverse of the XML's (see entry_offset). */
static int read_blocks(struct io *io, fcl_frame_data *d, const struct vtu_shape *sh)
{
    struct entry e[VTU_NARRAYS + FCL_FRAME_EXTRA_MAX];
    int m = list_arrays(sh, e);
    d->nextra = sh->nextra;     /* the arrays are allocated as they come */
    for (int j = m - 1; j >= 0; j--)
        if ((e[j].k < 0 ? read_block(io, d, &e[j].v->sec) : read_extra(io, d, sh, e[j].k)) != 0)
            return -1;
    return 0;
}

static int expect_end(struct io *io)
{
    char got[64];
    size_t len = strlen(VTU_END);
    if (fread(got, 1, len, io->fp) != len || memcmp(got, VTU_END, len) != 0)
        return fio_fail(io, "truncated or damaged: no closing </AppendedData></VTKFile> after the data");
    if (getc(io->fp) != EOF)
        return fio_fail(io, "unexpected data after </VTKFile>");
    return 0;
}

int out_read_vtu(const char *path, fcl_frame_data *d, char *err, size_t errlen)
{
    struct io io;
    long long size;
    struct vtu_shape sh;
    char *head = malloc(VTU_HEADER_MAX);
    if (fio_ropen(&io, path, d, err, errlen, &size) != 0) {
        free(head);
        return -1;
    }
    int rc = head ? read_header(&io, head, VTU_HEADER_MAX) : fio_fail(&io, "out of memory");
    if (rc == 0)
        rc = parse_header(&io, head, &sh, d);
    if (rc == 0)
        rc = fio_alloc_data(&io, d, sh.n, VTU_BYTES_PER_POINT, size);
    d->has_surface = sh.surface;
    if (rc == 0 && !sh.surface)
        fio_drop_surface(d);
    if (rc == 0)
        rc = read_blocks(&io, d, &sh);
    if (rc == 0)
        rc = expect_end(&io);
    free(head);
    return fio_rfinish(&io, d, rc);
}
