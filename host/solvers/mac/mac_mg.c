/* mac_mg.c - the multigrid preconditioner of the MAC pressure solve
 * (McAdams, Sifakis & Teran 2010): levels halving the grid until no axis
 * has more than MG_COARSEST cells, flags coarsened per solve, and one
 * V-cycle from zero as z = M^-1 r inside the core's conjugate gradients
 * (host/core/pcg.c). Passes in kernels/mac_mg.cl; the coarsest level is
 * one launch (a work item on CPU devices, a work-group on GPUs).
 * Invariant: the V-cycle is symmetric (the same damped Jacobi sweeps
 * before and after each coarse correction, restriction the transpose of
 * prolongation) and starts from zero, so M is the same linear, symmetric
 * positive definite operator every iteration, as CG requires.
 */
#include <stdio.h>

#include "mac.h"

/* Coarsen until no axis has more cells than this: a coarsest level of
 * at most 8^3 cells, where mac.mg_coarse_sweeps Jacobi sweeps stand in
 * for an exact solve. */
enum { MG_COARSEST = 8 };

static uint half(uint n)
{
    return (n + 1u) / 2u;
}

void mac_mg_cells(fcl_mac_info *m, uint nx, uint ny, uint nz, float dx)
{
    m->nx = nx;
    m->ny = ny;
    m->nz = nz;
    m->sy = nx + 2u;
    m->sz = m->sy * (ny + 2u);
    m->ncell = m->sz * (nz + 2u);
    m->dx = dx;
    m->inv_dx = 1.0f / dx;
}

void mac_mg_layout(mac_mg *g, const fcl_mac_info *fine)
{
    g->levels = 1;
    g->lv[0] = *fine;
    while (g->levels < MAC_MG_MAX) {
        const fcl_mac_info *f = &g->lv[g->levels - 1];
        if (f->nx <= MG_COARSEST && f->ny <= MG_COARSEST && f->nz <= MG_COARSEST)
            break;
        fcl_mac_info *c = &g->lv[g->levels++];
        *c = *f;
        mac_mg_cells(c, half(f->nx), half(f->ny), half(f->nz), 2.0f * f->dx);
    }
}

/* Level 0's scratch vector, and flags, diagonal, b, x and scratch on every
 * coarser level (about a seventh of the fine grid in all). */
size_t mac_mg_bytes(const mac_mg *g)
{
    size_t bytes = (size_t)g->lv[0].ncell * 4;
    for (int l = 1; l < g->levels; l++)
        bytes += (size_t)g->lv[l].ncell * 20;
    return bytes;
}

int mac_mg_alloc(mac_mg *g, fcl_backend *be)
{
    g->t[0] = be->ops->buf_new(be, (size_t)g->lv[0].ncell * 4, "MAC multigrid scratch");
    if (!g->t[0])
        return -1;
    for (int l = 1; l < g->levels; l++) {
        size_t n = (size_t)g->lv[l].ncell * 4;
        g->flags[l] = be->ops->buf_new(be, n, "MAC multigrid flags");
        g->diag[l] = be->ops->buf_new(be, n, "MAC multigrid diagonal");
        g->b[l] = be->ops->buf_new(be, n, "MAC multigrid right-hand side");
        g->x[l] = be->ops->buf_new(be, n, "MAC multigrid correction");
        g->t[l] = be->ops->buf_new(be, n, "MAC multigrid scratch");
        if (!g->flags[l] || !g->diag[l] || !g->b[l] || !g->x[l] || !g->t[l])
            return -1;
    }
    return 0;
}

void mac_mg_free(mac_mg *g, fcl_backend *be)
{
    for (int l = 0; l < g->levels; l++) {
        fcl_buf *b[] = { l ? g->flags[l] : NULL, l ? g->diag[l] : NULL, l ? g->b[l] : NULL, l ? g->x[l] : NULL,
                         g->t[l] };
        for (size_t k = 0; k < sizeof b / sizeof b[0]; k++)
            if (b[k])
                be->ops->buf_free(be, b[k]);
    }
}

/* The levels' flags and diagonals for this solve: level 0 is the grid's
 * own (its diagonal holds the ghost-fluid terms). */
int mac_mg_setup(mac_mg *g, fcl_backend *be, fcl_buf *flags, fcl_buf *diag)
{
    g->flags[0] = flags;
    g->diag[0] = diag;
    for (int l = 1; l < g->levels; l++)
        if (pass_mac_mg_coarsen(be, g->lv[l].ncell, "pressure-solve", g->flags[l - 1], g->flags[l], g->lv[l - 1],
                                g->lv[l]) != 0 ||
            pass_mac_mg_diag(be, g->lv[l].ncell, "pressure-solve", g->flags[l], g->diag[l], g->lv[l]) != 0)
            return -1;
    return 0;
}

/* n damped Jacobi sweeps on level l, ending in x[l]: from zero (the first
 * sweep's target picked so that the last lands in x[l]), or from x[l]
 * (an odd count ends in t[l] and is copied back). */
static int smooth(mac_mg *g, fcl_backend *be, int l, int n, int zero)
{
    const fcl_mac_info *m = &g->lv[l];
    fcl_buf *in = g->x[l], *out = zero && n % 2 == 0 ? g->t[l] : (zero ? g->x[l] : g->t[l]);
    for (int k = 0; k < n; k++) {
        if (pass_mac_mg_smooth(be, m->ncell, "pressure-solve", g->b[l], in, out, g->flags[l], g->diag[l], *m,
                               g->omega, (uint)(zero && k == 0)) != 0)
            return -1;
        in = out;
        out = out == g->x[l] ? g->t[l] : g->x[l];
    }
    return in == g->x[l] ? 0 : pass_cg_axpby(be, m->ncell, "pressure-solve", in, g->x[l], 1.0f, 0.0f);
}

/* The coarsest level: sweeps, projected off the constants where the grid
 * has no air (kernels/mac_mg.cl); a one-level grid (at most 8^3 cells)
 * keeps its b, which is the CG's own residual. One launch, not a launch
 * a sweep: on a GPU each launch costs more than a sweep of 10^3 cells
 * (one work-group there, one work item on CPU devices). */
static int coarsest(mac_mg *g, fcl_backend *be, int l)
{
    const fcl_mac_info *m = &g->lv[l];
    uint sweeps = (uint)g->coarse_sweeps, center = l > 0;
    if (be->serial_groups)
        return pass_mac_mg_coarsest(be, 1, "pressure-solve", g->b[l], g->x[l], g->t[l], g->flags[l], g->diag[l], *m,
                                    g->omega, sweeps, center);
    fcl_kernel *k = be->ops->kernel(be, "mac_mg_coarsest_wg");
    fcl_arg a[] = { FCL_BUF(g->b[l]), FCL_BUF(g->x[l]), FCL_BUF(g->t[l]), FCL_BUF(g->flags[l]), FCL_BUF(g->diag[l]),
                    FCL_VAL(*m), FCL_VAL(g->omega), FCL_VAL(sweeps), FCL_VAL(center) };
    return k ? be->ops->launch(be, k, FCL_WG, a, FCL_NARGS(a), "pressure-solve") : -1;
}

/* x[l] = V-cycle(b[l]) from zero. */
static int vcycle(mac_mg *g, fcl_backend *be, int l)
{
    const fcl_mac_info *m = &g->lv[l], *c = &g->lv[l + 1];
    if (l == g->levels - 1)
        return coarsest(g, be, l);
    if (smooth(g, be, l, g->sweeps, 1) != 0 ||
        pass_mac_mg_residual(be, m->ncell, "pressure-solve", g->b[l], g->x[l], g->t[l], g->flags[l], g->diag[l],
                             *m) != 0 ||
        pass_mac_mg_restrict(be, c->ncell, "pressure-solve", g->t[l], g->b[l + 1], g->flags[l + 1], *m, *c) != 0 ||
        vcycle(g, be, l + 1) != 0 ||
        pass_mac_mg_prolong(be, m->ncell, "pressure-solve", g->x[l + 1], g->x[l], g->flags[l], *m, *c) != 0)
        return -1;
    return smooth(g, be, l, g->sweeps, 0);
}

int mac_mg_apply(mac_mg *g, fcl_backend *be, fcl_buf *r, fcl_buf *z)
{
    g->b[0] = r;
    g->x[0] = z;
    return vcycle(g, be, 0);
}
