/* clrt.h - OpenCL runtime helpers: error names, device enumeration and
 * choice, and building the engine's program from kernels/.
 * Invariant: every OpenCL call in the engine goes through clrt_ok (or
 * reports its error the same way), so a failure names the call and the
 * error code by name.
 */
#ifndef FCL_CLRT_H
#define FCL_CLRT_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <stddef.h>

const char *clrt_error_name(cl_int err);
/* Returns 1 when err is CL_SUCCESS; else prints "what failed: NAME (code)"
 * and returns 0. */
int clrt_ok(cl_int err, const char *what);

typedef struct clrt_device {
    cl_platform_id platform;
    cl_device_id id;
    char name[128], platform_name[128], version[256];
    cl_device_type type;
    cl_uint compute_units;
    cl_ulong global_mem, max_alloc;
    int gl_sharing;
} clrt_device;

/* All devices of all platforms, in platform order. Returns the count
 * (0 when there is no OpenCL platform); *out is malloc'd. */
int clrt_devices(clrt_device **out);
const char *clrt_type_name(cl_device_type t);
/* Pick by NULL (first GPU, else first CPU, else first), index, or a
 * case-insensitive name substring. -1 with a message when none matches. */
int clrt_choose(const clrt_device *devs, int count, const char *want, char *err, size_t errlen);
/* Whether device d, number index, is one --device want names: a number is
 * an index only; other text a case-insensitive substring of its name or
 * platform's (clrt_choose takes the first; bench, every one). */
int clrt_matches(const clrt_device *d, int index, const char *want);

/* Whether kernel_dir holds every program file (kernels/families.def) as
 * a regular file it may read (infile_check): --kernel-dir is checked with
 * this before any work, as bad input. 0, or -1 with the first file's
 * trouble in err ("PATH: cannot open kernel source: ...", "PATH: kernel
 * source is a FIFO ..."). */
int clrt_check_sources(const char *kernel_dir, char *err, size_t errlen);
/* Build the engine program for ctx/dev from the embedded kernel sources,
 * or from kernel_dir when it is set. On a build error, fills log (malloc'd,
 * caller frees) with the compiler's output, whose lines carry
 * kernels/FILE:LINE thanks to #line directives. */
cl_program clrt_build(cl_context ctx, cl_device_id dev, const char *kernel_dir, char **log,
                      char *err, size_t errlen);

#endif
