/* pcg.c - preconditioned conjugate gradients on the device (pcg.h), for
 * MPS's pressure equation: one thin launcher per pass of kernels/mps.cl,
 * the dot products through host/core/reduction.h. Per iteration:
 *   q = A p; pq = p.q; x += alpha p, r -= alpha q, z = D^-1 r
 *   [poly: degree sweeps z <- z + D^-1 (r - A z)]; rz' = r.z; p = z + beta p
 * with alpha = rz / pq and beta = rz' / rz read by the passes from the
 * device scalars, so nothing waits for the host. rz alternates between
 * two reductions (the direction pass needs the old and the new one).
 * Invariant: the unknowns are A->rows values in the order A's products
 * use (for MPS: the grid's current order, then the wall unknowns).
 */
#include <math.h>
#include <stdio.h>

#include "passes.h"
#include "pcg.h"
#include "sim.h"

static const char *const T = "pressure-solve";

static fcl_buf *new_vec(fcl_backend *be, size_t cap, const char *what)
{
    return be->ops->buf_new(be, cap * 4 + 4, what);
}

int mps_pcg_init(mps_pcg *g, fcl_sim *s, size_t cap)
{
    fcl_backend *be = s->be;
    g->cap = cap;
    g->r = new_vec(be, cap, "MPS CG residual");
    g->z = new_vec(be, cap, "MPS CG preconditioned residual");
    g->z2 = new_vec(be, cap, "MPS CG preconditioner sweep");
    g->p = new_vec(be, cap, "MPS CG direction");
    g->q = new_vec(be, cap, "MPS CG matrix product");
    if (!g->r || !g->z || !g->z2 || !g->p || !g->q)
        return -1;
    return reduction_init(&g->pq, be, cap) | reduction_init(&g->rr, be, cap) | reduction_init(&g->rz[0], be, cap) |
           reduction_init(&g->rz[1], be, cap);
}

/* z = D^-1 r is in g->z; degree sweeps refine it, ending in g->z. */
static int precondition(mps_pcg *g, const mps_pcg_op *A, const mps_pcg_opts *o)
{
    if (o->precond != MPS_PRECOND_POLY)
        return 0;
    for (int k = 0; k < o->degree; k++) {
        if (A->sweep(A->ctx, g->z, g->z2, g->r) != 0)
            return -1;
        fcl_buf *t = g->z;
        g->z = g->z2;
        g->z2 = t;
    }
    return 0;
}

/* |r|^2 read back (one scalar). */
static int read_rr(mps_pcg *g, fcl_sim *s, size_t n, double *rr, mps_pcg_result *res)
{
    res->reads++;
    return reduction_dot(&g->rr, s->be, g->r, g->r, n, T) != 0 || reduction_read(&g->rr, s->be, rr) != 0 ? -1 : 0;
}

/* r = b - A x, z = M^-1 r, p = z, rz = r.z; bb = |b|^2 (read back). */
static int start(mps_pcg *g, fcl_sim *s, const mps_pcg_op *A, fcl_buf *x, fcl_buf *b, const mps_pcg_opts *o,
                 double *bb, mps_pcg_result *res)
{
    fcl_backend *be = s->be;
    size_t n = A->rows;
    res->reads++;
    if (reduction_dot(&g->rr, be, b, b, n, T) != 0 || reduction_read(&g->rr, be, bb) != 0 ||
        A->matvec(A->ctx, x, g->q) != 0 || pass_mps_cg_start(be, n, T, b, g->q, A->diag, g->r, g->z) != 0 ||
        precondition(g, A, o) != 0 || pass_mps_axpby(be, n, T, g->z, g->p, 1.0f, 0.0f) != 0)
        return -1;
    return reduction_dot(&g->rz[0], be, g->r, g->z, n, T);
}

/* One iteration; rz[cur] holds r.z, the new one goes to rz[!cur]. */
static int iterate(mps_pcg *g, fcl_sim *s, const mps_pcg_op *A, fcl_buf *x, const mps_pcg_opts *o, int cur)
{
    fcl_backend *be = s->be;
    size_t n = A->rows;
    fcl_reduction *old = &g->rz[cur], *nw = &g->rz[!cur];
    return A->matvec(A->ctx, g->p, g->q) != 0 || reduction_dot(&g->pq, be, g->p, g->q, n, T) != 0 ||
                   pass_mps_cg_update(be, n, T, x, g->r, g->z, g->p, g->q, A->diag, old->result, g->pq.result) != 0 ||
                   precondition(g, A, o) != 0 || reduction_dot(nw, be, g->r, g->z, n, T) != 0 ||
                   pass_mps_cg_direction(be, n, T, g->p, g->z, nw->result, old->result) != 0
               ? -1
               : 0;
}

/* The residual check: converged, going on, or broken down. */
static int check(mps_pcg *g, fcl_sim *s, size_t n, double bb, const mps_pcg_opts *o, mps_pcg_result *res,
                 char *err, size_t errlen)
{
    double rr;
    if (read_rr(g, s, n, &rr, res) != 0) {
        snprintf(err, errlen, "pressure solve: the device failed");
        return -1;
    }
    if (!isfinite(rr)) {
        snprintf(err, errlen, "pressure solve broke down after %ld iterations (residual %g): the system is not "
                 "positive definite", res->iters, rr);
        return -1;
    }
    res->rel_resid = sqrt(rr / bb);
    res->converged = res->rel_resid <= o->tol;
    return 0;
}

int mps_pcg_solve(mps_pcg *g, fcl_sim *s, const mps_pcg_op *A, fcl_buf *x, fcl_buf *b, const mps_pcg_opts *o,
                  mps_pcg_result *res, char *err, size_t errlen)
{
    double bb = 0.0;
    size_t n = A->rows;
    *res = (mps_pcg_result){ 0, 0.0, 0, 0 };
    if (n == 0)
        return res->converged = 1, 0;
    if (o->precond == MPS_PRECOND_POLY && !A->sweep) {
        snprintf(err, errlen, "pressure solve: this system offers no polynomial preconditioner");
        return -1;
    }
    if (start(g, s, A, x, b, o, &bb, res) != 0) {
        snprintf(err, errlen, "pressure solve: the device failed");
        return -1;
    }
    if (bb == 0.0) {       /* b = 0: x = 0 exactly */
        res->converged = 1;
        return pass_mps_axpby(s->be, n, T, x, x, 0.0f, 0.0f);
    }
    if (check(g, s, n, bb, o, res, err, errlen) != 0 || res->converged)
        return res->converged ? 0 : -1;
    int cur = 0;
    while (res->iters < o->max_iter) {
        if (iterate(g, s, A, x, o, cur) != 0) {
            snprintf(err, errlen, "pressure solve: the device failed");
            return -1;
        }
        cur = !cur;
        res->iters++;
        if (res->iters % o->check_every == 0 || res->iters == o->max_iter) {
            if (check(g, s, n, bb, o, res, err, errlen) != 0)
                return -1;
            if (res->converged)
                break;
        }
    }
    return 0;
}

void mps_pcg_free(mps_pcg *g, fcl_sim *s)
{
    fcl_backend *be = s->be;
    fcl_buf *v[] = { g->r, g->z, g->z2, g->p, g->q };
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
        if (v[k])
            be->ops->buf_free(be, v[k]);
    reduction_free(&g->pq, be);
    reduction_free(&g->rr, be);
    reduction_free(&g->rz[0], be);
    reduction_free(&g->rz[1], be);
}
