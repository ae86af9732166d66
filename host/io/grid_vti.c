/* grid_vti.c - a solver's grid as XML VTK ImageData (.vti): cell data on
 * a uniform grid, appended raw binary, what ParaView and VTK's
 * vtkXMLImageDataReader read (`run --param output.grid=1`; the mac
 * solver's flags, pressure and cell-centered velocity).
 * Layout: the XML header (FieldData TimeValue; WholeExtent in points, 0
 * to the cell count per axis; CellData arrays with their offsets), then
 * <AppendedData encoding="raw"> "_" and one block per array: a
 * little-endian UInt64 byte count and the float32 values, x fastest.
 * Invariant: the file is written atomically (io/atomic.h) or not at all.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame_io.h"

static int field_name_ok(const char *s)
{
    if (!s || !*s || strlen(s) >= FCL_FIELD_NAME_MAX)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return 0;
    return 1;
}

static size_t cells_of(const fcl_grid_frame *g)
{
    return (size_t)g->n[0] * g->n[1] * g->n[2];
}

/* The header up to the "_" that starts the data. */
static int vti_header(const fcl_grid_frame *g, double time, char *buf, size_t len)
{
    size_t at = 0, cells = cells_of(g);
    unsigned long long off = 0;
    at += (size_t)snprintf(buf + at, len - at,
                           "<?xml version=\"1.0\"?>\n<VTKFile type=\"ImageData\" version=\"1.0\" "
                           "byte_order=\"LittleEndian\" header_type=\"UInt64\">\n"
                           "  <ImageData WholeExtent=\"0 %u 0 %u 0 %u\" Origin=\"%.17g %.17g %.17g\" "
                           "Spacing=\"%.17g %.17g %.17g\">\n"
                           "    <FieldData>\n      <DataArray type=\"Float64\" Name=\"TimeValue\" "
                           "NumberOfTuples=\"1\" format=\"ascii\">%.17g</DataArray>\n    </FieldData>\n"
                           "    <Piece Extent=\"0 %u 0 %u 0 %u\">\n      <CellData>\n",
                           g->n[0], g->n[1], g->n[2], g->origin[0], g->origin[1], g->origin[2], g->spacing,
                           g->spacing, g->spacing, time, g->n[0], g->n[1], g->n[2]);
    for (int k = 0; k < g->nfields && at < len; k++) {
        at += (size_t)snprintf(buf + at, len - at,
                               "        <DataArray type=\"Float32\" Name=\"%s\" NumberOfComponents=\"%d\" "
                               "format=\"appended\" offset=\"%llu\"/>\n",
                               g->name[k], g->comps[k], off);
        off += 8 + 4ull * g->comps[k] * cells;
    }
    if (at < len)
        at += (size_t)snprintf(buf + at, len - at,
                               "      </CellData>\n    </Piece>\n  </ImageData>\n  <AppendedData encoding=\"raw\">\n   _");
    return at < len ? 0 : -1;
}

/* One array: its byte count, then its values, a chunk at a time. */
static int write_array(struct io *io, const float *v, size_t count)
{
    unsigned char head[8], buf[4096];
    unsigned long long bytes = 4ull * count;
    for (int k = 0; k < 8; k++)
        head[k] = (unsigned char)(bytes >> (8 * k));
    if (fio_wbytes(io, head, 8) != 0)
        return -1;
    for (size_t i = 0; i < count;) {
        size_t m = 0;
        for (; m < sizeof buf / 4 && i < count; m++, i++)
            fio_put_u32(buf + 4 * m, fio_f2u(v[i]), 0);
        if (fio_wbytes(io, buf, 4 * m) != 0)
            return -1;
    }
    return 0;
}

int out_write_vti(const char *path, const fcl_grid_frame *g, double time, char *err, size_t errlen)
{
    if (g->nfields < 1 || g->nfields > FCL_GRID_FIELDS_MAX || cells_of(g) == 0)
        return fio_plain_fail(err, errlen, "%s: a grid of %u x %u x %u cells with %d fields cannot be written", path,
                              g->n[0], g->n[1], g->n[2], g->nfields);
    for (int k = 0; k < g->nfields; k++)
        if (!field_name_ok(g->name[k]) || (g->comps[k] != 1 && g->comps[k] != 3) || !g->data[k])
            return fio_plain_fail(err, errlen, "%s: grid field %d ('%s') is not a named array of 1 or 3 floats",
                                  path, k, g->name[k] ? g->name[k] : "");
    char head[4096];
    struct io io;
    if (vti_header(g, time, head, sizeof head) != 0)
        return fio_plain_fail(err, errlen, "%s: the XML header is too long", path);
    if (fio_wopen(&io, path, err, errlen) != 0)
        return -1;
    int ok = fio_wtext(&io, head) == 0;
    for (int k = 0; k < g->nfields && ok; k++)
        ok = write_array(&io, g->data[k], (size_t)g->comps[k] * cells_of(g)) == 0;
    ok = ok && fio_wtext(&io, "\n  </AppendedData>\n</VTKFile>\n") == 0;
    return fio_wfinish(&io, ok, 0);
}
