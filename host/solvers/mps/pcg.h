/* pcg.h - preconditioned conjugate gradients on the device for a
 * symmetric positive definite matrix stored beside the neighbor lists:
 * A x = diag_i x_i - sum_{entries e of i} coef_e x_{j(e)} (MPS's pressure
 * equation, kernels/mps.cl). Dot products stay on the device (the update
 * passes read alpha and beta from device scalars); the host reads one
 * scalar, |r|^2, every check_every iterations and at the end. The
 * matrix products are the solver's (mps_pcg_op).
 * Invariant: after mps_pcg_solve returns 0, x holds the iterate with
 * |r| <= tol |b| (converged) or the last iterate (not converged: the
 * caller is told), never a NaN: a breakdown is an error.
 */
#ifndef FCL_MPS_PCG_H
#define FCL_MPS_PCG_H

#include <stddef.h>

#include "reduction.h"

struct fcl_sim;

typedef enum { MPS_PRECOND_JACOBI = 0, MPS_PRECOND_POLY = 1 } mps_precond;

typedef struct mps_pcg_opts {
    double tol;            /* relative residual |r| / |b| */
    long max_iter;
    long check_every;      /* iterations between residual read-backs */
    mps_precond precond;
    int degree;            /* polynomial preconditioner: sweeps per application */
} mps_pcg_opts;

typedef struct mps_pcg_result {
    long iters;
    double rel_resid;      /* |r| / |b| at the last check (0 when b = 0) */
    int converged;
    long reads;            /* scalars read back by the host */
} mps_pcg_result;

typedef struct mps_pcg {
    fcl_buf *r, *z, *z2, *p, *q;
    fcl_reduction pq, rr, rz[2];
    size_t cap;
} mps_pcg;

/* The matrix, given by the solver: y = A x over `rows` unknowns, its
 * diagonal, and one sweep of the polynomial preconditioner
 * zout = zin + D^-1 (r - A zin) (NULL: the polynomial is not offered). */
typedef struct mps_pcg_op {
    size_t rows;
    fcl_buf *diag;
    int (*matvec)(void *ctx, fcl_buf *x, fcl_buf *y);
    int (*sweep)(void *ctx, fcl_buf *zin, fcl_buf *zout, fcl_buf *r);
    void *ctx;
} mps_pcg_op;

/* Work vectors for up to cap unknowns. 0, or -1 (device refused). */
int mps_pcg_init(mps_pcg *g, struct fcl_sim *s, size_t cap);
/* Solve A x = b starting from x. 0, or -1 with err naming the failure
 * (device, or breakdown: a non-finite residual). */
int mps_pcg_solve(mps_pcg *g, struct fcl_sim *s, const mps_pcg_op *A, fcl_buf *x, fcl_buf *b,
                  const mps_pcg_opts *o, mps_pcg_result *res, char *err, size_t errlen);
void mps_pcg_free(mps_pcg *g, struct fcl_sim *s);

#endif
