/* pcg.c - preconditioned conjugate gradients on the device (pcg.h): the
 * vector passes of kernels/cg.cl, the dot products through reduction.h,
 * the matrix products the solver gives. Per iteration:
 *   q = A p; pq = p.q; x += alpha p, r -= alpha q, z = D^-1 r
 *   [poly: degree sweeps z <- z + D^-1 (r - A z); op: z = M^-1 r, the
 *   solver's own]; rz' = r.z; p = z + beta p
 * with alpha = rz / pq and beta = rz' / rz read by the passes from the
 * device scalars, so nothing waits for the host. rz alternates between
 * two reductions (the direction pass needs the old and the new one).
 * Invariant: the unknowns are A->rows values in the order A's products
 * use.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "passes.h"
#include "pcg.h"

static fcl_buf *new_vec(fcl_backend *be, size_t cap, const char *what)
{
    return be->ops->buf_new(be, cap * 4 + 4, what);
}

int fcl_pcg_init(fcl_pcg *g, fcl_backend *be, size_t cap)
{
    g->cap = cap;   /* floor kept: zero in a zeroed struct, or a loaded state's */
    g->r = new_vec(be, cap, "CG residual");
    g->z = new_vec(be, cap, "CG preconditioned residual");
    g->z2 = new_vec(be, cap, "CG preconditioner sweep");
    g->p = new_vec(be, cap, "CG direction");
    g->q = new_vec(be, cap, "CG matrix product");
    g->x0 = new_vec(be, cap, "CG start");
    g->xb = new_vec(be, cap, "CG best iterate");
    if (!g->r || !g->z || !g->z2 || !g->p || !g->q || !g->x0 || !g->xb)
        return -1;
    return reduction_init(&g->pq, be, cap) | reduction_init(&g->rr, be, cap) | reduction_init(&g->rz[0], be, cap) |
           reduction_init(&g->rz[1], be, cap);
}

/* z = D^-1 r is in g->z; degree sweeps refine it, ending in g->z. */
static int precondition(fcl_pcg *g, const fcl_pcg_op *A, const fcl_pcg_opts *o)
{
    if (o->precond == FCL_PRECOND_OP)
        return A->apply(A->ctx, g->r, g->z);
    if (o->precond != FCL_PRECOND_POLY)
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
static int read_rr(fcl_pcg *g, fcl_backend *be, const fcl_pcg_op *A, double *rr, fcl_pcg_result *res)
{
    res->reads++;
    return reduction_dot(&g->rr, be, g->r, g->r, A->rows, A->timer) != 0 || reduction_read(&g->rr, be, rr) != 0 ? -1 : 0;
}

/* r = b - A x, z = M^-1 r, p = z, rz[cur] = r.z: a start, or a restart
 * from the true residual. */
static int residual(fcl_pcg *g, fcl_backend *be, const fcl_pcg_op *A, fcl_buf *x, fcl_buf *b, const fcl_pcg_opts *o,
                    int cur)
{
    size_t n = A->rows;
    if (A->matvec(A->ctx, x, g->q) != 0 || pass_cg_start(be, n, A->timer, b, g->q, A->diag, g->r, g->z) != 0 ||
        precondition(g, A, o) != 0 || pass_cg_axpby(be, n, A->timer, g->z, g->p, 1.0f, 0.0f) != 0)
        return -1;
    return reduction_dot(&g->rz[cur], be, g->r, g->z, n, A->timer);
}

/* The start's residual; bb = |b|^2 (read back). */
static int start(fcl_pcg *g, fcl_backend *be, const fcl_pcg_op *A, fcl_buf *x, fcl_buf *b, const fcl_pcg_opts *o,
                 double *bb, fcl_pcg_result *res)
{
    res->reads++;
    if (reduction_dot(&g->rr, be, b, b, A->rows, A->timer) != 0 || reduction_read(&g->rr, be, bb) != 0)
        return -1;
    return residual(g, be, A, x, b, o, 0);
}

/* One iteration; rz[cur] holds r.z, the new one goes to rz[!cur]. */
static int iterate(fcl_pcg *g, fcl_backend *be, const fcl_pcg_op *A, fcl_buf *x, const fcl_pcg_opts *o, int cur)
{
    size_t n = A->rows;
    fcl_reduction *old = &g->rz[cur], *nw = &g->rz[!cur];
    return A->matvec(A->ctx, g->p, g->q) != 0 || reduction_dot(&g->pq, be, g->p, g->q, n, A->timer) != 0 ||
                   pass_cg_update(be, n, A->timer, x, g->r, g->z, g->p, g->q, A->diag, old->result, g->pq.result) != 0 ||
                   precondition(g, A, o) != 0 || reduction_dot(nw, be, g->r, g->z, n, A->timer) != 0 ||
                   pass_cg_direction(be, n, A->timer, g->p, g->z, nw->result, old->result) != 0
               ? -1
               : 0;
}

/* The residual check: converged, going on, or broken down. */
static int check(fcl_pcg *g, fcl_backend *be, const fcl_pcg_op *A, double bb, double tol, fcl_pcg_result *res,
                 char *err, size_t errlen)
{
    double rr;
    if (read_rr(g, be, A, &rr, res) != 0) {
        snprintf(err, errlen, "%s: the device failed", A->timer);
        return -1;
    }
    if (!isfinite(rr) && res->iters == 0) {   /* b is finite (fcl_pcg_solve): x0 or A x0 is not */
        snprintf(err, errlen, "%s: the start's residual is not finite (%g): the starting guess or the matrix holds "
                 "a NaN or an infinity (a blow-up before the solve)", A->timer, rr);
        return -1;
    }
    if (!isfinite(rr)) {
        snprintf(err, errlen, "%s: the solve broke down after %ld iterations (residual %g): the system is not "
                 "positive definite", A->timer, res->iters, rr);
        return -1;
    }
    res->rel_resid = sqrt(rr / bb);
    res->converged = res->rel_resid <= tol;
    return 0;
}

/* The recurrence's |r| drifts from the true b - A x in float arithmetic
 * (an MPS system read 9.2e-9 at tolerance 1e-8 whose true residual was
 * 4.1e-6, and 4.7e-23 with checks every 1000 iterations: a review). So a
 * convergence is confirmed on r = b - A x: 0 when it holds (rel_resid the
 * true one); 1 to go on from it, restarted, with the recurrence's target
 * halved (so the true residual lands under tol, not at it); 0 with
 * stalled set when a restart took less than a tenth off it, or after 4
 * (float's reach on this system), x then the best iterate confirmed (a
 * 1-D Laplacian's went 1.5e-5 -> 5.6e-5 over its last restart); -1 when
 * the device failed or broke down (err). Within 1.5 times the residual
 * the system's last solve stalled at, it is stalled at once: that reach
 * grows with the grid (a MAC pool's pressure stalled at 4.9e-5 at 128^3
 * and 1.6e-4 at 256^3 on an H200 against mac.cg_tolerance 1e-5), and
 * restarting towards it every solve took 31.6 -> 39.3 iterations a step
 * at 128^3 on the VM (31.4 -> 40.4 on an H200, two binaries). Only a
 * stall after restarts measures the reach: one taken on the floor leaves
 * it (set from its own first residual, one solve from a bad start held a
 * 1-D Laplacian's solves at 3.3e-5 where 1.5e-5 is reached: a review),
 * and after FCL_PCG_FLOOR_USES of those the next solve restarts as if
 * there were none, so the floor follows the system down as well. */
static int confirm(fcl_pcg *g, fcl_backend *be, const fcl_pcg_op *A, fcl_buf *x, fcl_buf *b, double bb,
                   const fcl_pcg_opts *o, int cur, double *target, double *last_true, fcl_pcg_result *res,
                   char *err, size_t errlen)
{
    size_t n = A->rows;
    if (residual(g, be, A, x, b, o, cur) != 0) {
        snprintf(err, errlen, "%s: the device failed", A->timer);
        return -1;
    }
    if (check(g, be, A, bb, o->tol, res, err, errlen) != 0)
        return -1;
    if (res->converged) {
        g->floor = 0.0;
        g->floor_uses = 0;
        return 0;
    }
    int reached = res->rel_resid > 0.9 * *last_true || *target < o->tol / 16.0 * 1.0001;
    if (!reached && g->floor > 0.0 && g->floor_uses < FCL_PCG_FLOOR_USES && res->rel_resid <= 1.5 * g->floor) {
        res->stalled = 1;   /* on the floor: no restart, and the floor kept */
        g->floor_uses++;
        return 0;
    }
    if (reached) {
        res->stalled = 1;
        g->floor_uses = 0;
        if (res->rel_resid > *last_true) {   /* the best is the last restart's start */
            res->rel_resid = *last_true;
            g->floor = res->rel_resid;
            return pass_cg_axpby(be, n, A->timer, g->xb, x, 1.0f, 0.0f) != 0 ? -1 : 0;
        }
        g->floor = res->rel_resid;
        return 0;
    }
    *last_true = res->rel_resid;
    *target *= 0.5;
    return pass_cg_axpby(be, n, A->timer, x, g->xb, 1.0f, 0.0f) != 0 ? -1 : 1;
}

/* The end at max_iter, after a restart or with the recurrence's |r|
 * under the tolerance: the true residual, and the best iterate confirmed
 * if it was better (a restart's halved target left a recurrence of
 * 7.8e-7 reported where the true one was 5.6e-5, and the worse iterate
 * kept: a review); within twice the tolerance it is done, as a stall is
 * (a check only at max_iter read "cut short" at 1.28e-5 against 1e-5). */
static int at_max(fcl_pcg *g, fcl_backend *be, const fcl_pcg_op *A, fcl_buf *x, fcl_buf *b, double bb,
                  const fcl_pcg_opts *o, int cur, double last_true, fcl_pcg_result *res, char *err, size_t errlen)
{
    if (!(last_true < INFINITY) && res->rel_resid > o->tol)
        return 0;
    if (residual(g, be, A, x, b, o, cur) != 0 || check(g, be, A, bb, o->tol, res, err, errlen) != 0) {
        if (!err[0])
            snprintf(err, errlen, "%s: the device failed", A->timer);
        return -1;
    }
    if (!res->converged && last_true < res->rel_resid) {
        res->rel_resid = last_true;
        if (pass_cg_axpby(be, A->rows, A->timer, g->xb, x, 1.0f, 0.0f) != 0)
            return -1;
    }
    res->stalled = !res->converged && res->rel_resid <= 2.0 * o->tol;
    return 0;
}

void fcl_pcg_state_save(const fcl_pcg *g, void *out)
{
    int32_t uses = g->floor_uses, pad = 0;
    memcpy(out, &g->floor, 8);
    memcpy((char *)out + 8, &uses, 4);
    memcpy((char *)out + 12, &pad, 4);
}

void fcl_pcg_state_load(fcl_pcg *g, const void *in)
{
    int32_t uses;
    memcpy(&g->floor, in, 8);
    memcpy(&uses, (const char *)in + 8, 4);
    g->floor_uses = uses;
}

void fcl_pcg_warn(const fcl_pcg_result *r, const fcl_pcg_opts *o, const char *group, const char *what, long step,
                  int *warned)
{
    /* A stall within twice the tolerance is float's reach, not the user's
     * concern: mac_dam_break's default 1e-5 stalls at 1.03e-5. */
    if (r->converged || *warned || (r->stalled && r->rel_resid <= 2.0 * o->tol))
        return;
    *warned = 1;
    if (r->stalled)
        fprintf(stderr, "fluidcl: %s: step %ld: the %s solve stalled at |b - A x|/|b| = %.3g above "
                "%s.cg_tolerance = %g after %ld iterations: float arithmetic reaches no lower on this system; raise "
                "%s.cg_tolerance (said once)\n", group, step, what, r->rel_resid, group, o->tol, r->iters, group);
    else
        fprintf(stderr, "fluidcl: %s: step %ld: the %s solve stopped at %s.cg_max_iter = %ld with |r|/|b| = "
                "%.3g above %s.cg_tolerance = %g%s (said once%s)\n", group, step, what, group, o->max_iter,
                r->rel_resid, group, o->tol, r->discarded ? ", its result discarded (the residual grew past |b|)" : "",
                strcmp(what, "pressure") == 0 ? "; see the short_solves and cg_residual columns" : "");
}

long fcl_pcg_check_interval(const fcl_backend *be, long param, long device)
{
    return param > 0 ? param : (be->serial_groups ? 1 : device);
}

int fcl_pcg_solve(fcl_pcg *g, fcl_backend *be, const fcl_pcg_op *A, fcl_buf *x, fcl_buf *b, const fcl_pcg_opts *o,
                  fcl_pcg_result *res, char *err, size_t errlen)
{
    double bb = 0.0;
    size_t n = A->rows;
    int rc;   /* confirm's: 0 done, 1 restarted, -1 failed; 2: not converged at this check */
    *res = (fcl_pcg_result){ 0, 0.0, 0, 0, 0, 0 };
    if (n == 0)
        return res->converged = 1, 0;
    if (n > g->cap) {   /* the work vectors hold cap values: the passes would write past them */
        snprintf(err, errlen, "%s: %zu unknowns, but the solver's vectors hold %zu", A->timer, n, g->cap);
        return -1;
    }
    if (o->precond == FCL_PRECOND_POLY && !A->sweep) {
        snprintf(err, errlen, "%s: this system offers no polynomial preconditioner", A->timer);
        return -1;
    }
    if (o->precond == FCL_PRECOND_OP && !A->apply) {
        snprintf(err, errlen, "%s: this system offers no preconditioner of its own", A->timer);
        return -1;
    }
    if (pass_cg_axpby(be, n, A->timer, x, g->x0, 1.0f, 0.0f) != 0 || start(g, be, A, x, b, o, &bb, res) != 0) {
        snprintf(err, errlen, "%s: the device failed", A->timer);
        return -1;
    }
    if (!isfinite(bb)) {   /* the check below would blame the matrix (a review) */
        snprintf(err, errlen, "%s: the right-hand side is not finite (|b|^2 = %g): a value it is made of holds a NaN "
                 "or an infinity (a blow-up before the solve, not the system)", A->timer, bb);
        return -1;
    }
    if (bb == 0.0) {       /* b = 0: x = 0 exactly */
        res->converged = 1;
        return pass_cg_axpby(be, n, A->timer, x, x, 0.0f, 0.0f);
    }
    if (check(g, be, A, bb, o->tol, res, err, errlen) != 0 || res->converged)
        return res->converged ? 0 : -1;
    double start_resid = res->rel_resid;   /* the start's: what a discarded solve leaves */
    double last_true = INFINITY;           /* the true residual of the last restart */
    double target = o->tol;                /* the recurrence's, halved at each restart */
    int cur = 0;
    while (res->iters < o->max_iter) {
        if (iterate(g, be, A, x, o, cur) != 0) {
            snprintf(err, errlen, "%s: the device failed", A->timer);
            return -1;
        }
        cur = !cur;
        res->iters++;
        if (res->iters % o->check_every == 0 || res->iters == o->max_iter) {
            /* A breakdown leaves x at its start, not at NaN (the next
             * step's warm start, and the frame's pressure). */
            if (check(g, be, A, bb, target, res, err, errlen) != 0) {
                pass_cg_axpby(be, n, A->timer, g->x0, x, 1.0f, 0.0f);
                return -1;
            }
            rc = res->converged ? confirm(g, be, A, x, b, bb, o, cur, &target, &last_true, res, err, errlen) : 2;
            if (rc == 0 || rc < 0) {
                if (rc < 0) {
                    pass_cg_axpby(be, n, A->timer, g->x0, x, 1.0f, 0.0f);
                    return -1;
                }
                break;
            }
        }
    }
    if (!res->converged && !res->stalled && at_max(g, be, A, x, b, bb, o, cur, last_true, res, err, errlen) != 0) {
        pass_cg_axpby(be, n, A->timer, g->x0, x, 1.0f, 0.0f);
        return -1;
    }
    if (!res->converged && !res->stalled && res->rel_resid > 1.0) {
        /* Back to the start, or for a pressure to zero (|r|/|b| = 1) when
         * a warm start was worse still (it kept 1.18 at step 24 of a
         * review's run); a velocity keeps its start (zero erased a MAC
         * pool's flow: a review). */
        int zero = o->zero_if_worse && start_resid > 1.0;
        res->discarded = 1;
        res->rel_resid = zero ? 1.0 : start_resid;
        return zero ? pass_cg_axpby(be, n, A->timer, x, x, 0.0f, 0.0f)
                    : pass_cg_axpby(be, n, A->timer, g->x0, x, 1.0f, 0.0f);
    }
    return 0;
}

int fcl_pcg_zero(fcl_backend *be, fcl_buf *x, size_t n, const char *timer)
{
    return pass_cg_axpby(be, n, timer, x, x, 0.0f, 0.0f);
}

void fcl_pcg_free(fcl_pcg *g, fcl_backend *be)
{
    fcl_buf *v[] = { g->r, g->z, g->z2, g->p, g->q, g->x0, g->xb };
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
        if (v[k])
            be->ops->buf_free(be, v[k]);
    reduction_free(&g->pq, be);
    reduction_free(&g->rr, be);
    reduction_free(&g->rz[0], be);
    reduction_free(&g->rz[1], be);
}
