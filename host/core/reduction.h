/* reduction.h - device reductions (kernels/reduce.cl) on any backend: the
 * sum or maximum of a float array, or the dot product of two, left in a
 * device scalar that the next pass can read, and read back to the host
 * only when asked. Solvers share one implementation: DFSPH's convergence
 * averages, and the conjugate gradients of MPS and MAC (pcg.c).
 * Invariant: a result depends only on the input values (fixed fold
 * order), not on thread timing.
 */
#ifndef FCL_REDUCTION_H
#define FCL_REDUCTION_H

#include <stddef.h>

#include "backend.h"

typedef struct fcl_reduction {
    fcl_buf *part;          /* one partial per group of FCL_WG values */
    fcl_buf *result;        /* float[1] on the device */
    fcl_kernel *tree;       /* GPUs: reduce_tree; NULL on CPU devices */
    fcl_kernel *finish;     /* GPUs: reduce_finish_tree; NULL on CPU devices */
    size_t cap;             /* the most values it reduces */
    unsigned op;            /* the last reduction's kind (reduction.c), which reduction_read combines by */
} fcl_reduction;

/* For arrays of up to cap values. 0, or -1 when the device refused. */
int reduction_init(fcl_reduction *r, fcl_backend *be, size_t cap);
/* Into r->result on the device (timer label `timer`); 0 or -1. */
int reduction_sum(fcl_reduction *r, fcl_backend *be, fcl_buf *x, size_t n, const char *timer);
int reduction_max(fcl_reduction *r, fcl_backend *be, fcl_buf *x, size_t n, const char *timer);
int reduction_dot(fcl_reduction *r, fcl_backend *be, fcl_buf *x, fcl_buf *y, size_t n, const char *timer);
/* The last result on the host (a read-back: waits for the device). */
int reduction_read(fcl_reduction *r, fcl_backend *be, double *value);
void reduction_free(fcl_reduction *r, fcl_backend *be);

#endif
