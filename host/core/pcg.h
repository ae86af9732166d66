/* pcg.h - preconditioned conjugate gradients on the device, for any
 * solver's symmetric positive definite system (MPS's pressure equation on
 * the particles, the MAC solver's on the grid): the solver gives the
 * matrix as products (fcl_pcg_op); the vectors are device buffers of
 * op->rows floats. Dot products stay on the device (the update passes of
 * kernels/cg.cl read alpha and beta from device scalars); the host reads
 * one scalar, |r|^2, every check_every iterations and at the end.
 * Invariant: after fcl_pcg_solve returns 0, x holds the iterate with
 * |b - A x| <= tol |b| (converged; the true residual, computed once the
 * recurrence's says so) or the last iterate (not converged: the caller is
 * told), never a NaN: a breakdown is an error.
 */
#ifndef FCL_PCG_H
#define FCL_PCG_H

#include <stddef.h>

#include "reduction.h"

/* Jacobi D^-1; a Neumann polynomial in D^-1 A (op->sweep); the operator's
 * own z = M^-1 r (op->apply: the MAC grid's multigrid V-cycle). */
typedef enum { FCL_PRECOND_JACOBI = 0, FCL_PRECOND_POLY = 1, FCL_PRECOND_OP = 2 } fcl_precond;

typedef struct fcl_pcg_opts {
    double tol;            /* relative residual |r| / |b| */
    long max_iter;
    long check_every;      /* iterations between residual read-backs */
    fcl_precond precond;
    int degree;            /* polynomial preconditioner: sweeps per application */
    int zero_if_worse;     /* a discarded solve whose start was worse than 0 too leaves 0 (a pressure),
                              not the start (a velocity, which 0 would erase) */
} fcl_pcg_opts;

typedef struct fcl_pcg_result {
    long iters;
    double rel_resid;      /* |r| / |b| at the last check (0 when b = 0); when discarded, the start's */
    int converged;
    long reads;            /* scalars read back by the host */
    int discarded;         /* not converged and |r| above |b|: x put back to its start, or to 0
                              when the start's |r| was above |b| too and opts.zero_if_worse */
    int stalled;           /* not converged: the true residual b - A x stopped falling above tol (float's
                              reach on this system), or was within twice tol at max_iter */
} fcl_pcg_result;

/* The matrix, given by the solver: y = A x over `rows` unknowns, its
 * diagonal, and one sweep of the polynomial preconditioner
 * zout = zin + D^-1 (r - A zin) (NULL: the polynomial is not offered).
 * timer: the label of the solve's passes. apply: z = M^-1 r for a
 * symmetric positive definite M of the solver's (NULL: not offered). */
typedef struct fcl_pcg_op {
    size_t rows;
    fcl_buf *diag;
    int (*matvec)(void *ctx, fcl_buf *x, fcl_buf *y);
    int (*sweep)(void *ctx, fcl_buf *zin, fcl_buf *zout, fcl_buf *r);
    void *ctx;
    const char *timer;
    int (*apply)(void *ctx, fcl_buf *r, fcl_buf *z);
} fcl_pcg_op;

typedef struct fcl_pcg {
    fcl_buf *r, *z, *z2, *p, *q, *x0;   /* x0: the start, for a solve that diverged */
    fcl_buf *xb;                        /* the best iterate a confirmation saw, for a stall */
    fcl_reduction pq, rr, rz[2];
    size_t cap;
    double floor;                       /* the true residual this system's last solve stalled at after
                                           restarts (0: none): float's reach, taken without a restart next
                                           time */
    int floor_uses;                     /* solves stalled on it since it was measured (it is measured again
                                           after FCL_PCG_FLOOR_USES) */
} fcl_pcg;

enum { FCL_PCG_FLOOR_USES = 8, FCL_PCG_STATE_BYTES = 16 };
/* The floor and its uses, which decide restarts, for a solver's
 * checkpoint (FCL_PCG_STATE_BYTES), so a resumed run takes the same
 * iterations as one run on. */
void fcl_pcg_state_save(const fcl_pcg *g, void *out);
void fcl_pcg_state_load(fcl_pcg *g, const void *in);

/* A solve to build on: converged, or stalled at float's reach. */
static inline int fcl_pcg_done(const fcl_pcg_result *r)
{
    return r->converged || r->stalled;
}
/* A solve short of opts' tolerance said on stderr, once per *warned:
 * stopped at max_iter (its pressure discarded when the residual grew past
 * |b|) or stalled above twice the tolerance; group names the parameters
 * (mps, mac), what the system ("pressure", "viscosity"), step the step. */
void fcl_pcg_warn(const fcl_pcg_result *r, const fcl_pcg_opts *o, const char *group, const char *what, long step,
                  int *warned);

/* Work vectors for up to cap unknowns, in a zeroed struct (floor, which
 * init keeps, may be set from a saved state before or after). 0, or -1
 * (device refused). */
int fcl_pcg_init(fcl_pcg *g, fcl_backend *be, size_t cap);
/* Solve A x = b starting from x. 0, or -1 with err naming the failure
 * (device, or breakdown: a non-finite residual). A solve that stops at
 * max_iter with |r| above |b| (in float, CG on a right-hand side at the
 * rounding level can drift: 4.3e3 |b| after 400 iterations on an H100)
 * leaves x as it started and says so in res->discarded. */
int fcl_pcg_solve(fcl_pcg *g, fcl_backend *be, const fcl_pcg_op *A, fcl_buf *x, fcl_buf *b, const fcl_pcg_opts *o,
                  fcl_pcg_result *res, char *err, size_t errlen);
/* The read-back interval for a solver's parameter: the parameter when
 * above 0; 0 (auto) every iteration on a CPU device, where a read-back is
 * a copy and stopping at once saves the iterations past convergence,
 * and `device` iterations elsewhere (a GPU's read-back waits for its
 * queue). */
long fcl_pcg_check_interval(const fcl_backend *be, long param, long device);
/* x = 0 over n values (a cold start). */
int fcl_pcg_zero(fcl_backend *be, fcl_buf *x, size_t n, const char *timer);
void fcl_pcg_free(fcl_pcg *g, fcl_backend *be);

#endif
