/* infile.h - input files read with bounds: only regular files, and only up
 * to a size limit (input.max_file_mb), checked before a byte is read.
 *
 * Invariant: infile_read never reads from a FIFO, device or folder (such a
 * path is refused without blocking), never holds more than max_bytes + 1
 * bytes, and every refusal says "PATH: <what> ..." with the size and the
 * limit, so /dev/zero or a 10 GB file costs nothing.
 */
#ifndef FCL_INFILE_H
#define FCL_INFILE_H

#include <stddef.h>

#include "params.h"

/* The limit input.max_file_mb of p, in bytes. */
size_t infile_limit(const fcl_params *p);

/* Check that path names a regular file of at most max_bytes bytes; `what`
 * says what it is for ("scene file", "mesh file", "frame"). Returns 0, or
 * -1 with "PATH: cannot open WHAT: ..." or "PATH: WHAT is ..." in err. */
int infile_check(const char *path, size_t max_bytes, const char *what, char *err, size_t errlen);

/* infile_check, then the whole file: *text is malloc'd and NUL-terminated,
 * *len excludes the NUL. A file that grows past max_bytes while being read
 * is refused the same way. Returns 0, or -1 with the message in err. */
int infile_read(const char *path, size_t max_bytes, const char *what, char **text, size_t *len, char *err,
                size_t errlen);

#endif
