/* test_pcg.c - the device conjugate gradients (host/core/pcg.c) alone, on
 * a known SPD system: the 1-D Laplacian tridiag(-1, 2, -1) of 64 unknowns,
 * its product made on the host through the backend's buffers, on both
 * backends:
 *  - from zero to tolerance 1e-4 it converges, and the residual it reports
 *    is the true |b - A x| / |b| (computed here in double) within 1e-6;
 *  - below what float reaches on it (about 1.5e-5) it stalls, reporting
 *    the true residual of the iterate it returns, the best it confirmed:
 *    at 1e-5 its restarts read 9.4e-5, 3.4e-5, 1.7e-5, 1.5e-5, then 5.6e-5,
 *    and it returns the 1.5e-5 one (within 2e-5); at 1e-6, 9.4e-5, 3.4e-5,
 *    3.3e-5 (under 5e-5);
 *  - cut at max_iter after a restart (65 to 132 at 1e-5), it reports the
 *    true residual of what it returns, within 1e-6, and returns nothing
 *    worse than its first confirmation (it reported the recurrence's 7.8e-7
 *    where the true one was 5.6e-5);
 *  - with its residual read once, at max_iter, where the recurrence's is
 *    under the tolerance and the true one a little over (9.41e-5 against
 *    9.3e-5), the solve is done (stalled within twice the tolerance), not
 *    reported cut short (it was: no iteration was left to restart with);
 *  - cut at one iteration from a start far worse than zero, the solve is
 *    discarded: a pressure (zero_if_worse) is left at 0 with |r|/|b| = 1,
 *    anything else put back to its start with the start's residual (a MAC
 *    velocity was once zeroed so);
 *  - solved again from its stalled iterate on the same work vectors, the
 *    system stalls at once, within 1.5 times the first stall, in fewer
 *    matrix products than fresh work vectors take from the same start; a
 *    high floor (twice the reach, as a bad start's stall once set) is
 *    kept, not raised, by the solves that stall on it, and after
 *    FCL_PCG_FLOOR_USES of them a solve restarts and reaches within 1.5
 *    times a fresh solve's stall;
 *  - a NaN or an infinity in b, a NaN in the start and more unknowns than
 *    the work vectors hold are refused, each named.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fcl_test.h"
#include "passes.h"
#include "pcg.h"

enum { N = 64 };

typedef struct sys {
    fcl_backend *be;
    long products;
} sys;

/* y = A x on the host: A = tridiag(-1, 2, -1). */
static int matvec(void *ctx, fcl_buf *x, fcl_buf *y)
{
    sys *s = ctx;
    float a[N], b[N];
    if (s->be->ops->buf_read(s->be, x, 0, sizeof a, a) != 0)
        return -1;
    for (int i = 0; i < N; i++)
        b[i] = 2.0f * a[i] - (i > 0 ? a[i - 1] : 0.0f) - (i + 1 < N ? a[i + 1] : 0.0f);
    s->products++;
    return s->be->ops->buf_write(s->be, y, 0, sizeof b, b);
}

static double true_residual(const float *x, const float *b)
{
    double rr = 0.0, bb = 0.0;
    for (int i = 0; i < N; i++) {
        double r = b[i] - (2.0 * x[i] - (i > 0 ? x[i - 1] : 0.0) - (i + 1 < N ? x[i + 1] : 0.0));
        rr += r * r;
        bb += (double)b[i] * b[i];
    }
    return sqrt(rr / bb);
}

typedef struct run {
    fcl_pcg_result r;
    float x[N];
    int rc;
    long products;   /* matrix products the solve made */
} run;

/* One solve from x0 with opts o, on the work vectors of *keep (a system
 * solved before: its stall memory) or fresh ones (keep NULL). */
static void solve_on(fcl_backend *be, fcl_pcg *keep, const float *x0, const fcl_pcg_opts *o, const float *b, run *out)
{
    sys s = { be, 0 };
    fcl_pcg own, *g = keep ? keep : &own;
    float diag[N];
    char err[256] = "";
    for (int i = 0; i < N; i++)
        diag[i] = 2.0f;
    fcl_buf *bx = be->ops->buf_new(be, sizeof out->x, "x"), *bb = be->ops->buf_new(be, sizeof out->x, "b");
    fcl_buf *bd = be->ops->buf_new(be, sizeof out->x, "diag");
    if (!keep)
        memset(&own, 0, sizeof own);
    fcl_pcg_op A = { N, bd, matvec, NULL, &s, "pcg", NULL };
    out->rc = (!keep && fcl_pcg_init(g, be, N) != 0) || be->ops->buf_write(be, bx, 0, sizeof out->x, x0) != 0 ||
                      be->ops->buf_write(be, bb, 0, sizeof out->x, b) != 0 ||
                      be->ops->buf_write(be, bd, 0, sizeof diag, diag) != 0
                  ? -1
                  : fcl_pcg_solve(g, be, &A, bx, bb, o, &out->r, err, sizeof err);
    if (out->rc == 0)
        out->rc = be->ops->buf_read(be, bx, 0, sizeof out->x, out->x);
    out->products = s.products;
    CHECK(out->rc == 0, "%s: the solve failed: %s", be->kind, err);
    if (!keep)
        fcl_pcg_free(g, be);
    be->ops->buf_free(be, bx);
    be->ops->buf_free(be, bb);
    be->ops->buf_free(be, bd);
}

static void solve(fcl_backend *be, const float *x0, const fcl_pcg_opts *o, const float *b, run *out)
{
    solve_on(be, NULL, x0, o, b, out);
}

/* A system solved again from where its last solve stalled (a time
 * step's warm start): with that stall remembered it stalls at its first
 * confirmation, as close as a fresh solve's restarts get, in fewer
 * products. */
static void check_floor(fcl_backend *be, const float *b)
{
    static const float zero[N];
    fcl_pcg g;
    memset(&g, 0, sizeof g);
    if (fcl_pcg_init(&g, be, N) != 0) {
        CHECK(0, "%s: CG work vectors", be->kind);
        return;
    }
    fcl_pcg_opts o = { 1e-5, 1000, 1, FCL_PRECOND_JACOBI, 0, 1 };
    run first, again, fresh;
    solve_on(be, &g, zero, &o, b, &first);
    solve_on(be, &g, first.x, &o, b, &again);
    solve(be, first.x, &o, b, &fresh);
    double ta = true_residual(again.x, b), tf = true_residual(fresh.x, b);
    CHECK(first.r.stalled && again.r.stalled && fabs(again.r.rel_resid - ta) <= 1e-6 &&
              ta <= 1.5 * first.r.rel_resid * (1.0 + 1e-6) && again.products < fresh.products,
          "%s: again from a stall at %.3g: stalled %d at %.3g (true %.3g) in %ld products; without the memory %.3g "
          "in %ld", be->kind, first.r.rel_resid, again.r.stalled, again.r.rel_resid, ta, again.products, tf,
          fresh.products);
    printf("%s: again from a stall at %.3g: %.3g in %ld products (without the memory %.3g in %ld)\n", be->kind,
           first.r.rel_resid, ta, again.products, tf, fresh.products);

    /* A high floor (a stall from a bad start once set 2.7e-5 here, where
     * 1.5e-5 is reached; set by hand, since whether a bad start stalls
     * high is rounding: the GPU code's tree sums stalled it at the reach):
     * the solves on it keep it (each stalled on it had set its own first
     * residual, and the floor crept up: 2.7e-5 -> 3.4e-5, a review), and
     * after FCL_PCG_FLOOR_USES of them one restarts and finds the reach
     * again, within the 1.5 a floor allows (a restart's stall is "less
     * than a tenth off": 1.5e-5 to 2.3e-5 by the reductions' order). */
    run on, last;
    g.floor = 2.0 * first.r.rel_resid;
    g.floor_uses = 0;
    double high = g.floor, worst = 0.0;
    int kept = 1;
    for (int k = 0; k < FCL_PCG_FLOOR_USES; k++) {
        solve_on(be, &g, zero, &o, b, &on);
        worst = fmax(worst, true_residual(on.x, b));
        kept = kept && g.floor == high;
    }
    solve_on(be, &g, zero, &o, b, &last);
    double tl = true_residual(last.x, b);
    CHECK(kept && worst <= 1.5 * high * (1.0 + 1e-6) && last.r.stalled && tl <= 1.5 * first.r.rel_resid &&
              g.floor < high,
          "%s: a floor of %.3g set high: kept %d, solves on it up to %.3g; the one after %d of them %.3g "
          "(a fresh solve's reach %.3g)", be->kind, high, kept, worst, FCL_PCG_FLOOR_USES, tl, first.r.rel_resid);
    printf("%s: a floor of %.3g set high kept over %d solves (up to %.3g), then measured again: %.3g "
           "(floor %.3g)\n", be->kind, high, FCL_PCG_FLOOR_USES, worst, tl, g.floor);
    fcl_pcg_free(&g, be);
}

/* A solve expected to be refused: the system of N unknowns on work
 * vectors of cap values from x0; its return code, err its message. */
static int solve_refused(fcl_backend *be, size_t cap, const float *x0, const float *b, char *err, size_t errlen)
{
    sys s = { be, 0 };
    fcl_pcg g;
    float diag[N], x[N];
    for (int i = 0; i < N; i++)
        diag[i] = 2.0f;
    memset(&g, 0, sizeof g);
    fcl_buf *bx = be->ops->buf_new(be, sizeof x, "x"), *bb = be->ops->buf_new(be, sizeof x, "b");
    fcl_buf *bd = be->ops->buf_new(be, sizeof x, "diag");
    fcl_pcg_op A = { N, bd, matvec, NULL, &s, "pcg", NULL };
    fcl_pcg_opts o = { 1e-4, 1000, 1, FCL_PRECOND_JACOBI, 0, 1 };
    fcl_pcg_result r;
    err[0] = '\0';
    int rc = fcl_pcg_init(&g, be, cap) != 0 || be->ops->buf_write(be, bx, 0, sizeof x, x0) != 0 ||
                     be->ops->buf_write(be, bb, 0, sizeof x, b) != 0 || be->ops->buf_write(be, bd, 0, sizeof diag, diag) != 0
                 ? -2
                 : fcl_pcg_solve(&g, be, &A, bx, bb, &o, &r, err, errlen);
    fcl_pcg_free(&g, be);
    be->ops->buf_free(be, bx);
    be->ops->buf_free(be, bb);
    be->ops->buf_free(be, bd);
    return rc;
}

/* A NaN or an infinity in b, a NaN in the start, and more unknowns than
 * the work vectors hold: each refused naming what it is (the first two
 * said the system was not positive definite, and the last wrote past the
 * vectors; a review). */
static void check_bad_input(fcl_backend *be, const float *b, const float *zero)
{
    float bn[N], bi[N], xn[N];
    char e1[256], e2[256], e3[256], e4[256];
    memcpy(bn, b, sizeof bn);
    memcpy(bi, b, sizeof bi);
    memcpy(xn, zero, sizeof xn);
    bn[17] = NAN;
    bi[40] = INFINITY;
    xn[5] = NAN;
    int r1 = solve_refused(be, N, zero, bn, e1, sizeof e1), r2 = solve_refused(be, N, zero, bi, e2, sizeof e2);
    int r3 = solve_refused(be, N, xn, b, e3, sizeof e3), r4 = solve_refused(be, N / 2, zero, b, e4, sizeof e4);
    printf("%s: NaN in b: %s\n%s: infinity in b: %s\n%s: NaN in the start: %s\n%s: %d unknowns on vectors of %d: %s\n",
           be->kind, e1, be->kind, e2, be->kind, e3, be->kind, N, N / 2, e4);
    CHECK(r1 == -1 && strstr(e1, "right-hand side is not finite") && r2 == -1 &&
              strstr(e2, "right-hand side is not finite") && r3 == -1 && strstr(e3, "start's residual is not finite") &&
              r4 == -1 && strstr(e4, "64 unknowns, but the solver's vectors hold 32"),
          "%s: bad input: %d '%s'; %d '%s'; %d '%s'; %d '%s'", be->kind, r1, e1, r2, e2, r3, e3, r4, e4);
}

static void check_backend(fcl_backend *be)
{
    float b[N], zero[N], far[N];
    for (int i = 0; i < N; i++) {
        b[i] = (float)sin(0.1 * i) + 0.5f;
        zero[i] = 0.0f;
        far[i] = (i % 2 ? 1e3f : -1e3f);   /* A far = +-4e3 inside: |r|/|b| in the thousands */
    }
    run a, s, c, z, k;
    fcl_pcg_opts o = { 1e-4, 1000, 1, FCL_PRECOND_JACOBI, 0, 1 };
    solve(be, zero, &o, b, &a);
    double t = true_residual(a.x, b);
    CHECK(a.r.converged && t <= 1e-4 * (1.0 + 1e-3) && fabs(a.r.rel_resid - t) <= 1e-6,
          "%s: from zero: converged %d after %ld iterations, reported |r|/|b| %.3g, true %.3g", be->kind,
          a.r.converged, a.r.iters, a.r.rel_resid, t);
    printf("%s: from zero, %ld iterations to |r|/|b| %.3g (true %.3g)\n", be->kind, a.r.iters, a.r.rel_resid, t);

    static const double tols[2] = { 1e-5, 1e-6 }, most[2] = { 2e-5, 5e-5 };
    for (int q = 0; q < 2; q++) {
        o.tol = tols[q];
        solve(be, zero, &o, b, &s);
        double ts = true_residual(s.x, b);
        CHECK(s.r.stalled && !s.r.converged && fabs(s.r.rel_resid - ts) <= 1e-6 && ts < most[q],
              "%s: at %g: stalled %d after %ld iterations, reported |r|/|b| %.3g, true %.3g (the best confirmed "
              "expected, under %g)", be->kind, tols[q], s.r.stalled, s.r.iters, s.r.rel_resid, ts, most[q]);
        printf("%s: at %g, stalled after %ld iterations at |r|/|b| %.3g (true %.3g)\n", be->kind, tols[q],
               s.r.iters, s.r.rel_resid, ts);
    }

    static const long cuts[4] = { 65, 67, 100, 132 };
    double worst = 0.0, largest = 0.0;
    for (int q = 0; q < 4; q++) {
        fcl_pcg_opts at = { 1e-5, cuts[q], 1, FCL_PRECOND_JACOBI, 0, 1 };
        solve(be, zero, &at, b, &s);
        double tc = true_residual(s.x, b);
        worst = fmax(worst, fabs(s.r.rel_resid - tc));
        largest = fmax(largest, tc);
    }
    CHECK(worst <= 1e-6 && largest <= 9.5e-5, "%s: cut at max_iter 65-132 after restarts: reported residuals off the "
          "true ones by up to %.3g (1e-6 allowed), the worst returned %.3g (9.5e-5 allowed)", be->kind, worst, largest);
    printf("%s: cut at max_iter 65-132: reported within %.2g of the true residual, at most %.3g\n", be->kind, worst,
           largest);

    /* Read once, at max_iter 64, at 9.3e-5: the recurrence's |r| is under
     * it there, the true one (9.41e-5) just over, and no iteration is left
     * to restart with. */
    fcl_pcg_opts once = { 9.3e-5, a.r.iters, 1000, FCL_PRECOND_JACOBI, 0, 1 };
    solve(be, zero, &once, b, &c);
    CHECK(fcl_pcg_done(&c.r) && c.r.rel_resid <= 2 * once.tol, "%s: read only at max_iter %ld: converged %d, "
          "stalled %d, |r|/|b| %.3g", be->kind, once.max_iter, c.r.converged, c.r.stalled, c.r.rel_resid);
    printf("%s: read only at max_iter %ld, tolerance %g: converged %d, stalled %d at |r|/|b| %.3g\n", be->kind,
           once.max_iter, once.tol, c.r.converged, c.r.stalled, c.r.rel_resid);

    fcl_pcg_opts cut = { 1e-8, 1, 1, FCL_PRECOND_JACOBI, 0, 1 };
    solve(be, far, &cut, b, &z);
    int zeroed = 1;
    for (int i = 0; i < N; i++)
        zeroed = zeroed && z.x[i] == 0.0f;
    CHECK(z.r.discarded && zeroed && z.r.rel_resid == 1.0, "%s: a pressure discarded over a start worse than 0: "
          "discarded %d, zeroed %d, |r|/|b| %.3g", be->kind, z.r.discarded, zeroed, z.r.rel_resid);
    cut.zero_if_worse = 0;
    solve(be, far, &cut, b, &k);
    double start = true_residual(far, b);
    CHECK(k.r.discarded && memcmp(k.x, far, sizeof far) == 0 && fabs(k.r.rel_resid - start) <= 1e-3 * start,
          "%s: anything else discarded keeps its start: discarded %d, |r|/|b| %.6g (start's %.6g)", be->kind,
          k.r.discarded, k.r.rel_resid, start);
    printf("%s: cut at one iteration from a start at |r|/|b| %.4g: discarded, 0 or the start kept\n", be->kind,
           start);
    check_floor(be, b);
    check_bad_input(be, b, zero);
}

int main(void)
{
    for (int bi = 0; bi < 2; bi++) {
        fcl_backend *be = ft_backend(bi);
        if (!be) {
            if (bi == 0)
                return 77;
            continue;
        }
        check_backend(be);
        backend_destroy(be);
    }
    return ft_done();
}
