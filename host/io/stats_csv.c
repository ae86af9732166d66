/* stats_csv.c - the per-step statistics CSV of run --stats: a header of
 * column names, one row per step, flushed per row; written atomically,
 * and on failure the temporary keeps the rows so far for a post-mortem.
 * Invariant: every row has the header's number of columns.
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
#include "infile.h"

/* ---- statistics CSV */

struct fcl_csv {
    struct io io;
    size_t ncols;
    int failed;       /* a write failed: close keeps the .tmp, not renamed */
    char err[FCL_CSV_ERR_MAX];
    char *header;     /* the header line as written, '\n' included */
};

static int check_columns(const char *const *columns, size_t *ncols,
                         char *err, size_t errlen, const char *path)
{
    size_t k = 0;
    for (; columns && columns[k]; k++)
        if (!columns[k][0] || strpbrk(columns[k], ",\"\r\n"))
            return fio_plain_fail(err, errlen, "%s: bad CSV column name \"%s\"", path, columns[k]);
    if (k == 0)
        return fio_plain_fail(err, errlen, "%s: CSV needs at least one column", path);
    *ncols = k;
    return 0;
}

/* "a,b,c\n" of the column names (NULL: out of memory). */
static char *header_line(const char *const *columns, size_t ncols)
{
    size_t len = 2;
    for (size_t k = 0; k < ncols; k++)
        len += strlen(columns[k]) + 1;
    char *h = calloc(1, len);
    for (size_t k = 0; h && k < ncols; k++) {
        strcat(h, k ? "," : "");
        strcat(h, columns[k]);
    }
    if (h)
        strcat(h, "\n");
    return h;
}

fcl_csv *out_csv_open(const char *path, const char *const *columns,
                      char *err, size_t errlen)
{
    size_t ncols = 0;
    if (check_columns(columns, &ncols, err, errlen, path ? path : "(null)") != 0)
        return NULL;
    fcl_csv *c = calloc(1, sizeof *c);
    if (!c) {
        fio_plain_fail(err, errlen, "%s: out of memory", path ? path : "(null)");
        return NULL;
    }
    if (fio_wopen(&c->io, path, err, errlen) != 0) {
        free(c);
        return NULL;
    }
    c->io.err = c->err;     /* later errors go to out_csv_error */
    c->io.errlen = sizeof c->err;
    c->ncols = ncols;
    int ok = (c->header = header_line(columns, ncols)) != NULL;
    if (!ok || fio_wtext(&c->io, c->header) != 0 || fflush(c->io.fp) != 0) {
        fio_fail(&c->io, "cannot write CSV header: %s", strerror(errno));
        fio_plain_fail(err, errlen, "%s", c->err);
        fio_wfinish(&c->io, 0, 0);
        free(c->header);
        free(c);
        return NULL;
    }
    return c;
}

/* The rows of an earlier CSV's text under header whose first column is at
 * most max_first, concatenated (NULL with err set: not our columns or
 * rows, or no memory). */
static char *keep_rows(char *text, const char *header, const char *used, double max_first, char *err, size_t errlen)
{
    size_t hl = strlen(header), n = 0;
    char *out = malloc(strlen(text) + 1), *line = text + hl;
    if (!out || strncmp(text, header, hl) != 0) {
        fio_plain_fail(err, errlen, out ? "%s: its columns are not this run's (%.*s)" : "%s: out of memory", used,
                       (int)strcspn(header, "\n"), header);
        free(out);
        return NULL;
    }
    for (long row = 2; *line; row++) {
        char *nl = strchr(line, '\n'), *end;
        if (!nl)   /* a last row cut short (a write failed, or the run was killed in it): not kept */
            break;
        double first = strtod(line, &end);
        if (end == line || *end != ',') {
            fio_plain_fail(err, errlen, "%s: line %ld is not a row fluidcl writes: %.*s", used, row,
                           (int)(nl - line < 80 ? nl - line : 80), line);
            free(out);
            return NULL;
        }
        if (first > max_first)   /* past the checkpoint: this and later rows are not kept */
            break;
        memcpy(out + n, line, (size_t)(nl + 1 - line));
        n += (size_t)(nl + 1 - line);
        line = nl + 1;
    }
    out[n] = '\0';
    return out;
}

char *out_csv_earlier(const char *path, const char *const *columns, double max_first, char *used, size_t usedlen,
                      char *err, size_t errlen)
{
    struct stat fin, tmp;
    char tname[4200];
    size_t ncols = 0;
    snprintf(tname, sizeof tname, "%s.tmp", path);
    int have_fin = stat(path, &fin) == 0, have_tmp = stat(tname, &tmp) == 0;
    err[0] = '\0';
    if ((!have_fin && !have_tmp) || check_columns(columns, &ncols, err, errlen, path) != 0)
        return NULL;
    int from_tmp = have_tmp && (!have_fin || tmp.st_mtime >= fin.st_mtime);
    snprintf(used, usedlen, "%s", from_tmp ? tname : path);
    /* A regular file only (infile.h): a FIFO at that name must not block. */
    char *text = NULL, *header = header_line(columns, ncols), *rows = NULL;
    size_t len = 0;
    if (infile_read(used, (size_t)1 << 40, "statistics file", &text, &len, err, errlen) != 0)
        text = NULL;
    else if (!header)
        fio_plain_fail(err, errlen, "%s: out of memory", used);
    else
        rows = keep_rows(text, header, used, max_first, err, errlen);
    free(text);
    free(header);
    return rows;
}

int out_csv_carry(fcl_csv *c, const char *rows, char *err, size_t errlen)
{
    /* These rows may live nowhere else now (the killed run's .tmp that
     * was their source is this file): a stop during set-up keeps them. */
    atomic_keep(&c->io.at);
    if (fputs(rows, c->io.fp) == EOF || fflush(c->io.fp) != 0) {
        c->failed = 1;
        fio_fail(&c->io, "write to '%s' failed: %s", c->io.tmp, strerror(errno));
        return fio_plain_fail(err, errlen, "%s", c->err);
    }
    return 0;
}

int out_whole(double v)
{
    return v == floor(v) && fabs(v) < 1e15;
}

int out_csv_row(fcl_csv *c, const double *values)
{
    if (!c || !values || c->failed)
        return -1;
    /* Whole numbers (the step, counts) in full: %.9g wrote step
     * 1234567890 as 1.23456789e+09, a digit lost (a review); the rest as
     * nine significant digits, which a float holds. */
    for (size_t k = 0; k < c->ncols; k++) {
        double v = values[k];
        const char *fmt = out_whole(v) ? (k ? ",%.0f" : "%.0f") : (k ? ",%.9g" : "%.9g");
        if (fprintf(c->io.fp, fmt, v) < 0)
            break;
    }
    /* Flushed per row so a long run's progress can be watched in the .tmp. */
    if (fputc('\n', c->io.fp) == EOF || fflush(c->io.fp) != 0 || ferror(c->io.fp)) {
        c->failed = 1;
        fio_fail(&c->io, "write to '%s' failed: %s", c->io.tmp, strerror(errno));
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
    int rc = fio_wfinish(&c->io, !c->failed, 1);
    if (rc != 0)  /* c->err holds the first failure; say where the rows are */
        fio_plain_fail(err, errlen, "%s (not renamed; rows so far kept in '%s.tmp')",
                   c->err, c->io.path);
    free(c->header);
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
    fio_wfinish(&c->io, 0, 0);
    free(c->header);
    free(c);
}

