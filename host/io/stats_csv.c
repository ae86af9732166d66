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
            return fio_plain_fail(err, errlen, "%s: bad CSV column name \"%s\"", path, columns[k]);
    if (k == 0)
        return fio_plain_fail(err, errlen, "%s: CSV needs at least one column", path);
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
    int ok = 1;
    for (size_t k = 0; ok && k < ncols; k++)
        ok = fio_wtext(&c->io, k ? "," : "") == 0 && fio_wtext(&c->io, columns[k]) == 0;
    if (!ok || fio_wtext(&c->io, "\n") != 0 || fflush(c->io.fp) != 0) {
        fio_fail(&c->io, "cannot write CSV header: %s", strerror(errno));
        fio_plain_fail(err, errlen, "%s", c->err);
        fio_wfinish(&c->io, 0, 0);
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
    free(c);
}

