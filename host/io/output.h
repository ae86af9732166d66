/* output.h - particle frame files (XML VTK with its ParaView collection,
 * legacy VTK, PLY) and per-step statistics (CSV).
 *
 * Invariant: a file appears under its final name only once it is complete.
 * Every writer goes through "<path>.tmp", fflush, fsync and rename, so a
 * crash or a full disk never leaves a half-written file under the real name.
 * The readers accept exactly what the writers produce, bit for bit, and say
 * which file and what is wrong otherwise.
 */
#ifndef FCL_OUTPUT_H
#define FCL_OUTPUT_H

#include <stddef.h>
#include <stdint.h>
#include "../../kernels/fcl_common.h"

enum { FCL_FRAME_EXTRA_MAX = 8, FCL_FIELD_NAME_MAX = 48 };

/* A borrowed view of one frame. Arrays may be NULL when n == 0. */
typedef struct fcl_frame {
    size_t n;                 /* particles */
    const float4 *pos;        /* x,y,z used, w ignored */
    const float4 *vel;
    const float *density;
    const float *pressure;
    const uint32_t *id;       /* original particle index */
    /* Mueller's free-surface flag (1 at the surface, else 0). NULL writes
     * a frame without it, in the previous layout's data sections, so that
     * a frame read from such a file is rewritten as it was. */
    const float *surface;
    double spacing;           /* particle spacing (m); 0 = unknown */
    /* The solver's own particle fields (solver.h), after the surface flag
     * (VTK only; written only with it): names of [A-Za-z0-9_] and one
     * float per particle each. */
    int nextra;
    const char *extra_name[FCL_FRAME_EXTRA_MAX];
    const float *extra[FCL_FRAME_EXTRA_MAX];
} fcl_frame;

/* Create dir (like mkdir -p) and prove it is writable by creating and
 * removing a probe file. Returns 0 on success; on failure fills err with a
 * message naming the directory and strerror. */
int out_prepare_dir(const char *dir, char *err, size_t errlen);
/* The names a run will write in dir hold only regular files where they
 * exist: each is written by renaming a finished temporary over it, which
 * would replace a link, a folder or a FIFO, and that was found only when
 * the frame was due (exit 3 part-way). names: NULL-terminated patterns,
 * '#' standing for a step's digits ("frame_#.vtu"). 0, or -1 with err
 * naming the first such entry. */
int out_check_frame_names(const char *dir, const char *const *names, char *err, size_t errlen);

/* Legacy VTK 3.0, BINARY (big-endian) POLYDATA: POINTS, one VERTICES cell
 * per point (so ParaView shows points), then POINT_DATA with VECTORS
 * velocity and SCALARS density, pressure (float), id (int; the uint32 id
 * bit pattern, exact for ids below 2^31) and, when f->surface is set,
 * surface (float) followed by the solver's fields (SCALARS NAME float).
 * The title is "fluidcl frame time=T spacing=D".
 * Atomic (see above). Returns 0, or -1 and fills err. */
int out_write_vtk(const char *path, const fcl_frame *f, double time,
                  char *err, size_t errlen);

/* Binary little-endian PLY: "comment fluidcl spacing D", then element
 * vertex n with float x y z vx vy vz density pressure, uint id and, when
 * f->surface is set, float surface. Atomic. Returns 0, or -1 and fills err. */
int out_write_ply(const char *path, const fcl_frame *f, char *err, size_t errlen);

/* XML VTK UnstructuredGrid (.vtu), the default frame format, which
 * ParaView, VTK's Python module, PyVista and meshio read: FieldData
 * TimeValue and spacing (Float64, exact ASCII), PointData velocity,
 * density, pressure (Float32), id (UInt32), surface and the solver's
 * fields when f->surface is set (Float32), Points (Float32 x 3) and one
 * VTK_VERTEX cell per point, every array as a block of appended raw
 * little-endian data (UInt64 byte count first). Atomic. 0, or -1 and err. */
int out_write_vtu(const char *path, const fcl_frame *f, double time,
                  char *err, size_t errlen);

/* A solver's grid for output (solver.h grid_fields): cell-centered
 * float arrays of 1 or 3 components over n[0] x n[1] x n[2] cells, x
 * fastest, borrowed. */
enum { FCL_GRID_FIELDS_MAX = 8 };
typedef struct fcl_grid_frame {
    unsigned n[3];
    double origin[3];         /* lower corner of cell (0, 0, 0) */
    double spacing;           /* cell side */
    int nfields;
    const char *name[FCL_GRID_FIELDS_MAX];
    int comps[FCL_GRID_FIELDS_MAX];
    const float *data[FCL_GRID_FIELDS_MAX];
} fcl_grid_frame;

/* XML VTK ImageData (.vti), the fields as CellData, appended raw binary,
 * FieldData TimeValue (host/io/grid_vti.c). Atomic. 0, or -1 and err. */
int out_write_vti(const char *path, const fcl_grid_frame *g, double time, char *err, size_t errlen);

/* One frame of a ParaView collection: its simulated time and its file,
 * relative to the .pvd's folder. */
enum { FCL_PVD_FILE_MAX = 256 };
typedef struct fcl_pvd_entry {
    double time;
    char file[FCL_PVD_FILE_MAX];
    char time_text[40];          /* time as written, formed once (out_pvd_entry);
                                    "" for out_write_pvd to form */
} fcl_pvd_entry;
/* Entry e for a frame at time t in file (formed once: the collection is
 * written whole after every frame, and forming every time each time took
 * 12 s of CPU for 4,000 frames, growing with their square; a review). */
void out_pvd_entry(fcl_pvd_entry *e, double t, const char *file);
/* The collection listing n frames (a run's time series for ParaView),
 * written atomically. 0, or -1 and err. */
int out_write_pvd(const char *path, const fcl_pvd_entry *e, size_t n, char *err, size_t errlen);
/* Entry e[n - 1] added to the collection at path, which holds e[0 .. n - 2]
 * in *bytes bytes as out_write_pvd wrote them: the new line and the
 * closing tags written over the old closing tags in one write, and *bytes
 * the new size; the same bytes as out_write_pvd's, in time linear in the
 * run (the whole file rewritten after each frame took 12 s of CPU for
 * 4,000 frames, growing with their square). -1 when the file is not those
 * bytes (another size) or the write fails: then write it whole. */
int out_append_pvd(const char *path, const fcl_pvd_entry *e, size_t n, long long *bytes);
/* Whether out_write_pvd may replace path: nothing (or an empty file)
 * there, or a file that starts as the collections it writes do. */
int out_pvd_replaceable(const char *path);
/* A collection out_write_pvd wrote, into a malloc'ed array (free it);
 * anything else is refused naming the file and the line. 0 or -1. */
int out_read_pvd(const char *path, fcl_pvd_entry **e, size_t *n, char *err, size_t errlen);

/* A frame read back from disk; free with out_frame_free. The w members of
 * pos and vel are 0. Arrays are NULL when n == 0. */
typedef struct fcl_frame_data {
    size_t n;
    float4 *pos, *vel;
    float *density, *pressure;
    uint32_t *id;
    float *surface;         /* NULL when the file has no surface flag */
    int has_surface;        /* 0 for files of the previous layout */
    double spacing;         /* 0 when the file does not record it */
    double time;            /* from the VTK title or TimeValue; 0 for PLY */
    int has_time;           /* 1 when the file records time (VTK, VTU) */
    int nextra;             /* solver fields after the surface flag (VTK, VTU) */
    char extra_name[FCL_FRAME_EXTRA_MAX][FCL_FIELD_NAME_MAX];
    float *extra[FCL_FRAME_EXTRA_MAX];
} fcl_frame_data;

/* Readers for the two formats above. They also accept the previous layout
 * (no surface flag, no spacing: VTK title "fluidcl frame time=T", PLY
 * without the spacing comment and the surface property), which reads
 * with has_surface = 0 and spacing = 0. On failure *d is left empty
 * (nothing to free), -1 is returned and err names the file and the
 * problem. */
int out_read_vtk(const char *path, fcl_frame_data *d, char *err, size_t errlen);
int out_read_ply(const char *path, fcl_frame_data *d, char *err, size_t errlen);
/* The .vtu reader: exactly what out_write_vtu writes (time, spacing, the
 * surface flag when present and the solver's fields). */
int out_read_vtu(const char *path, fcl_frame_data *d, char *err, size_t errlen);
/* Any of the readers, by the file's extension (.vtu, .vtk or .ply). */
int out_read_frame(const char *path, fcl_frame_data *d, char *err, size_t errlen);
void out_frame_free(fcl_frame_data *d);
/* The solver field `name` of a frame read back (mps's "phase"), or NULL
 * when the frame has none. */
const float *out_frame_field(const fcl_frame_data *d, const char *name);

/* A borrowed fcl_frame view of d, e.g. to write a frame that was read. */
fcl_frame out_frame_view(const fcl_frame_data *d);

/* Whether v is a whole number printed in full (%.0f): the step and counts,
 * in the CSV, run's summary and bench's table alike. */
int out_whole(double v);
/* Per-step statistics CSV. Columns are given at open (a NULL-terminated list
 * of names without commas, quotes or newlines); rows are arrays of doubles
 * of the same length, whole numbers in full (out_whole), the rest with
 * %.9g. Rows go to "<path>.tmp", flushed
 * one by one so progress is visible there; out_csv_close renames it to path.
 * After a write error the .tmp is kept (not renamed) for inspection. */
typedef struct fcl_csv fcl_csv;
fcl_csv *out_csv_open(const char *path, const char *const *columns,
                      char *err, size_t errlen);
enum { FCL_CSV_ERR_MAX = 4600 };
int out_csv_row(fcl_csv *c, const double *values);        /* 0 or -1 */
/* A resumed run's statistics, read before out_csv_open truncates
 * "<path>.tmp": the earlier run's rows are in "<path>.tmp" when it did not
 * finish (killed, out of memory: at least as new as path, or path absent),
 * else in path. Returns the rows whose first column is at most max_first
 * (free them), that file's name in used; NULL with err empty when neither
 * file exists; NULL with err naming the file when it cannot be read, has
 * other columns or a row that is not ours. */
char *out_csv_earlier(const char *path, const char *const *columns, double max_first, char *used, size_t usedlen,
                      char *err, size_t errlen);
/* Those rows after the header, so that the file reads as one run's. */
int out_csv_carry(fcl_csv *c, const char *rows, char *err, size_t errlen);
const char *out_csv_error(const fcl_csv *c);   /* last error, "" if none */
int out_csv_close(fcl_csv *c);   /* renames into place; returns 0 or -1 */
/* As out_csv_close, and fills err on failure. NULL c is a no-op (0). */
int out_csv_close_err(fcl_csv *c, char *err, size_t errlen);
/* Close and delete the .tmp without renaming: the run never started. */
void out_csv_discard(fcl_csv *c);

/* The shortest %g text that reads back as the same float as v: a float
 * parameter as the user wrote it (0.04, not 0.03999999910593033). */
void out_float_text(double v, char *out, size_t len);

#endif
