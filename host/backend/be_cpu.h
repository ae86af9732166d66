/* be_cpu.h - private to the native CPU backend: what a buffer is, and the
 * table of CPU twins of the OpenCL kernels (cpu_kernels.c).
 * Invariant: cpu kernel i has the same name and argument list as the
 * __kernel of that name in kernels/ (*.cl).
 */
#ifndef FCL_BE_CPU_H
#define FCL_BE_CPU_H

#include <stddef.h>

#include "backend.h"

struct fcl_buf {
    void *ptr;
    size_t bytes;
};

typedef void (*fcl_cpu_fn)(const fcl_arg *a, size_t items);

struct fcl_kernel {
    const char *name;
    fcl_cpu_fn fn;
};

extern const struct fcl_kernel fcl_cpu_kernels[];
/* Passes over fewer items run without forking threads (set when the
 * backend is created: be_cpu.c says why). */
extern size_t fcl_cpu_omp_min;
extern const size_t fcl_cpu_kernel_count;

#endif
