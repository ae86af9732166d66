/* mac_cg.c - Jacobi-preconditioned conjugate gradients on the device for
 * the mac solver's pressure equation (mac.h): the matrix-free 7-point
 * operator of kernels/mac.cl (mac_matvec), MPS's vector passes, the dot
 * products through host/core/reduction.h. Per iteration:
 *   q = A p; pq = p.q; x += alpha p, r -= alpha q, z = D^-1 r; rz' = r.z;
 *   p = z + beta p
 * with alpha and beta read by the passes from device scalars; the host
 * reads |r|^2 every check_every iterations and at the end.
 * Invariant: rows of non-fluid cells are identity rows with b = 0 and x =
 * 0 (mac_divergence), so they stay 0 and add nothing to the residual.
 */
#include <math.h>
#include <stdio.h>

#include "mac.h"
#include "passes.h"

static const char *const T = "pressure-solve";

int mac_cg_init(mac_cg *g, fcl_backend *be, size_t n)
{
    g->r = be->ops->buf_new(be, n * 4, "MAC CG residual");
    g->z = be->ops->buf_new(be, n * 4, "MAC CG preconditioned residual");
    g->p = be->ops->buf_new(be, n * 4, "MAC CG direction");
    g->q = be->ops->buf_new(be, n * 4, "MAC CG matrix product");
    if (!g->r || !g->z || !g->p || !g->q)
        return -1;
    return reduction_init(&g->pq, be, n) | reduction_init(&g->rr, be, n) | reduction_init(&g->rz[0], be, n) |
           reduction_init(&g->rz[1], be, n);
}

static int matvec(fcl_backend *be, const mac *d, fcl_buf *x, fcl_buf *y)
{
    return pass_mac_matvec(be, d->m.ncell, T, x, y, d->flags, d->diag, d->m);
}

/* r = b - A x, z = D^-1 r, p = z, rz = r.z; bb = |b|^2 (read back). */
static int start(mac_cg *g, fcl_backend *be, const mac *d, fcl_buf *x, double *bb, mac_cg_result *res)
{
    size_t n = d->m.ncell;
    res->reads++;
    if (reduction_dot(&g->rr, be, d->rhs, d->rhs, n, T) != 0 || reduction_read(&g->rr, be, bb) != 0 ||
        matvec(be, d, x, g->q) != 0 || pass_mps_cg_start(be, n, T, d->rhs, g->q, d->diag, g->r, g->z) != 0 ||
        pass_mps_axpby(be, n, T, g->z, g->p, 1.0f, 0.0f) != 0)
        return -1;
    return reduction_dot(&g->rz[0], be, g->r, g->z, n, T);
}

/* One iteration; rz[cur] holds r.z, the new one goes to rz[!cur]. */
static int iterate(mac_cg *g, fcl_backend *be, const mac *d, fcl_buf *x, int cur)
{
    size_t n = d->m.ncell;
    fcl_reduction *old = &g->rz[cur], *nw = &g->rz[!cur];
    return matvec(be, d, g->p, g->q) != 0 || reduction_dot(&g->pq, be, g->p, g->q, n, T) != 0 ||
                   pass_mps_cg_update(be, n, T, x, g->r, g->z, g->p, g->q, d->diag, old->result, g->pq.result) != 0 ||
                   reduction_dot(nw, be, g->r, g->z, n, T) != 0 ||
                   pass_mps_cg_direction(be, n, T, g->p, g->z, nw->result, old->result) != 0
               ? -1
               : 0;
}

/* The residual check: converged, going on, or broken down. */
static int check(mac_cg *g, fcl_backend *be, const mac *d, double bb, double tol, mac_cg_result *res, char *err,
                 size_t errlen)
{
    double rr;
    res->reads++;
    if (reduction_dot(&g->rr, be, g->r, g->r, d->m.ncell, T) != 0 || reduction_read(&g->rr, be, &rr) != 0) {
        snprintf(err, errlen, "mac: pressure solve: the device failed");
        return -1;
    }
    if (!isfinite(rr)) {
        snprintf(err, errlen, "mac: the pressure solve broke down after %ld iterations (residual %g)", res->iters,
                 rr);
        return -1;
    }
    res->rel_resid = sqrt(rr / bb);
    res->converged = res->rel_resid <= tol;
    return 0;
}

int mac_cg_solve(mac_cg *g, fcl_backend *be, const mac *d, fcl_buf *x, double tol, long max_iter, long check_every,
                 mac_cg_result *res, char *err, size_t errlen)
{
    double bb = 0.0;
    *res = (mac_cg_result){ 0, 0.0, 0, 0 };
    if (start(g, be, d, x, &bb, res) != 0) {
        snprintf(err, errlen, "mac: pressure solve: the device failed");
        return -1;
    }
    if (bb == 0.0) {       /* b = 0: x = 0 exactly */
        res->converged = 1;
        return pass_mps_axpby(be, d->m.ncell, T, x, x, 0.0f, 0.0f);
    }
    if (check(g, be, d, bb, tol, res, err, errlen) != 0 || res->converged)
        return res->converged ? 0 : -1;
    int cur = 0;
    while (res->iters < max_iter) {
        if (iterate(g, be, d, x, cur) != 0) {
            snprintf(err, errlen, "mac: pressure solve: the device failed");
            return -1;
        }
        cur = !cur;
        res->iters++;
        if (res->iters % check_every == 0 || res->iters == max_iter) {
            if (check(g, be, d, bb, tol, res, err, errlen) != 0)
                return -1;
            if (res->converged)
                break;
        }
    }
    return 0;
}

void mac_cg_free(mac_cg *g, fcl_backend *be)
{
    fcl_buf *v[] = { g->r, g->z, g->p, g->q };
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
        if (v[k])
            be->ops->buf_free(be, v[k]);
    reduction_free(&g->pq, be);
    reduction_free(&g->rr, be);
    reduction_free(&g->rz[0], be);
    reduction_free(&g->rz[1], be);
}
