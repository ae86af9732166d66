/* frame_io.h - what the frame formats share (private to host/io/): the
 * open file with its error buffer, the per-record codec and section
 * tables a writer and its reader both walk, and the helpers for writing
 * (through the atomic writer) and reading them.
 * Invariant: a format's layout is one table of sections; its writer and
 * its reader walk that same table, so round trips are bit-exact.
 */
#ifndef FCL_FRAME_IO_H
#define FCL_FRAME_IO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "atomic.h"
#include "output.h"

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

typedef void (*enc_fn)(const fcl_frame *f, size_t i, unsigned char *dst);
typedef int (*dec_fn)(fcl_frame_data *d, size_t i, const unsigned char *src);

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

PRINTF_LIKE(2, 3) int fio_fail(struct io *io, const char *fmt, ...);
PRINTF_LIKE(3, 4) int fio_plain_fail(char *err, size_t errlen, const char *fmt, ...);
void fio_put_u32(unsigned char *p, uint32_t v, int big);
uint32_t fio_get_u32(const unsigned char *p, int big);
void fio_put_f3(unsigned char *p, const float4 *v, int big);
void fio_get_f3(const unsigned char *p, float4 *v, int big);
void fio_section_text(const struct section *s, size_t n, char *buf, size_t len);
int fio_wopen(struct io *io, const char *path, char *err, size_t errlen);
int fio_wfinish(struct io *io, int ok, int keep_tmp);
int fio_wbytes(struct io *io, const void *p, size_t len);
int fio_wrecords(struct io *io, const fcl_frame *f, const struct section *s);
int fio_check_frame(const fcl_frame *f, const char *path, char *err, size_t errlen);
int fio_ropen(struct io *io, const char *path, fcl_frame_data *d,
                 char *err, size_t errlen, long long *size);
int fio_read_line(struct io *io, char *buf, size_t len, const char *what);
int fio_expect_line(struct io *io, const char *want);
int fio_parse_count(struct io *io, const char *line, const char *prefix,
                       const char *suffix, size_t *n);
int fio_alloc_data(struct io *io, fcl_frame_data *d, size_t n,
                      size_t bytes_per_point, long long file_size);
int fio_rrecords(struct io *io, fcl_frame_data *d, const struct section *s);
int fio_expect_text(struct io *io, const char *want, const char *name);
int fio_expect_end(struct io *io, int newline, const char *after);
int fio_rfinish(struct io *io, fcl_frame_data *d, int rc);
int fio_parse_spacing(struct io *io, const char *text, const char *line, double *spacing);
int fio_optional_absent(struct io *io, long long size);
void fio_drop_surface(fcl_frame_data *d);
int fio_wtext(struct io *io, const char *s);
uint32_t fio_f2u(float f);
float fio_u2f(uint32_t u);
/* The shortest of %.15g..%.17g that reads back as the same double. */
void fio_time_text(double t, char *buf, size_t len);

#endif
