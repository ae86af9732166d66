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
    size_t len = 2;
    for (size_t k = 0; k < ncols; k++)
        len += strlen(columns[k]) + 1;
    int ok = (c->header = calloc(1, len)) != NULL;
    for (size_t k = 0; ok && k < ncols; k++) {
        strcat(c->header, k ? "," : "");
        strcat(c->header, columns[k]);
    }
    if (ok)
        strcat(c->header, "\n");
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

/* One line of an earlier CSV into buf; 0 at its end, -1 when too long. */
static int next_line(FILE *f, char *buf, size_t len)
{
    if (!fgets(buf, (int)len, f))
        return 0;
    return strchr(buf, '\n') ? 1 : -1;
}

int out_csv_carry(fcl_csv *c, const char *earlier, double max_first, char *err, size_t errlen)
{
    char line[4096];
    FILE *f = fopen(earlier, "r");
    if (!f)
        return errno == ENOENT ? 0 : fio_plain_fail(err, errlen, "%s: %s", earlier, strerror(errno));
    int rc = next_line(f, line, sizeof line) == 1 && strcmp(line, c->header) == 0 ? 0 : -1;
    if (rc != 0)
        fio_plain_fail(err, errlen, "%s: its columns are not this run's (%.*s)", earlier,
                       (int)strcspn(c->header, "\n"), c->header);
    int got;
    while (rc == 0 && (got = next_line(f, line, sizeof line)) != 0) {
        char *end;
        double first = strtod(line, &end);
        if (got < 0 || end == line || *end != ',') {
            rc = fio_plain_fail(err, errlen, "%s: a row is not what fluidcl writes", earlier);
        } else if (first <= max_first && fputs(line, c->io.fp) == EOF) {
            c->failed = 1;
            rc = fio_fail(&c->io, "write to '%s' failed: %s", c->io.tmp, strerror(errno));
            fio_plain_fail(err, errlen, "%s", c->err);
        }
    }
    fclose(f);
    if (rc == 0 && fflush(c->io.fp) != 0) {
        c->failed = 1;
        rc = fio_fail(&c->io, "write to '%s' failed: %s", c->io.tmp, strerror(errno));
        fio_plain_fail(err, errlen, "%s", c->err);
    }
    return rc;
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

