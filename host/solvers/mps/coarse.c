/* coarse.c - MPS's two-level preconditioner (coarse.h; passes in
 * kernels/mps_coarse.cl). Its scale: a row of the particle matrix is
 * sum_j w_ij (p_i - p_j), which for a smooth p is -(1 / lap_k) lap p, so
 * P^T A P on cells of side h holding N = (h / l0)^3 particles acts as
 * (N / (lap_k h^2)) G for the unit 7-point G: s = mps.coarse_weight
 * lap_k h^2 / N.
 */
#include "coarse.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "passes.h"
#include "sim.h"

/* On a GPU the V-cycle's many small launches cost more than the
 * iterations they saved: on an H200 at 1M particles the developed dam
 * break took 32.2 ms a step with it and 29.1 with Jacobi (bench, one
 * binary; 14.9 and 5.8 ms of it outside the passes), from rest 11.1
 * against an older binary's 6.5. Not yet timed by run, nor since the
 * coarsest level became one launch. On CPU devices it wins 2.4x
 * (README). */
double mps_phase_ratio(const fcl_sim *s)
{
    double lo = HUGE_VAL, hi = 0.0;
    for (uint k = 0; k < s->nphases; k++) {
        lo = fmin(lo, s->phase_table[k].density);
        hi = fmax(hi, s->phase_table[k].density);
    }
    return s->nphases > 1 ? hi / lo : 1.0;
}

/* Nor beyond a phase density ratio of 10, on any device: the coarse
 * level is made for unit pair weights, which the phases' 2 rho0 /
 * (rho_i + rho_j) scale by up to 770 for air (a review). 0.05 s from the
 * start (native): ratio 2, 13.2 CG iterations a step against Jacobi's
 * 19.6; ratio 10, 20.7 against 20.4; rising_bubble 68.8 against 43.8
 * (3.09 against 1.94 s); water_air 153.1 against 53.7 (1.18 against
 * 0.42 s). */
int mps_coarse_wanted(const fcl_sim *s)
{
    const char *pc = s->prm->mps_preconditioner;
    return strcmp(pc, "grid") == 0 ||
           (strcmp(pc, "auto") == 0 && s->be->serial_groups && !(mps_phase_ratio(s) > MPS_PHASE_CONTRAST));
}

int mps_coarse_init(mps_coarse *k, fcl_sim *s, int walls, char *err, size_t errlen)
{
    memset(k, 0, sizeof *k);
    if (!mps_coarse_wanted(s) || walls)
        return 0;
    const fcl_grid_info *g = &s->grid.info;
    fcl_mac_info *m = &k->m;
    uint agg = (uint)s->prm->mps_coarse_cells, cx = (g->nx + agg - 1u) / agg, cy = (g->ny + agg - 1u) / agg,
         cz = (g->nz + agg - 1u) / agg;
    k->agg = agg;
    /* With its ghost layer in 32 bits (a thin domain at coarse_cells 1
     * could pass them where the neighbor grid itself does not). */
    if ((double)(cx + 2u) * (double)(cy + 2u) * (double)(cz + 2u) > 1073741823.0) {
        snprintf(err, errlen, "mps.coarse_cells = %u: a %u x %u x %u coarse grid is over 2^30 cells: expected a "
                 "larger value", agg, cx, cy, cz);
        return -1;
    }
    mac_mg_cells(m, cx, cy, cz, g->cell_size * (float)agg);
    mac_mg_layout(&k->mg, m);
    fcl_backend *be = s->be;
    size_t cells = (size_t)m->ncell * 4 + 4;
    /* Beside the particles (sim_check_fits counts them, not this grid: a
     * 6 m domain of 1,000 particles at coarse_cells 1 took 707 MiB where
     * the check said 179; a review). */
    double need = 4.0 * (double)cells + (double)s->cap * 4.0 + (double)mac_mg_bytes(&k->mg);
    double parts;
    if (be->mem_bytes > 0 && !sim_fits_beside(s, need, &parts)) {
        snprintf(err, errlen, "mps.coarse_cells = %u: the preconditioner's %u x %u x %u coarse grid needs %.1f MiB "
                 "beside the particles' %.1f MiB, but %s has %.1f MiB: expected a larger mps.coarse_cells, or "
                 "mps.preconditioner = jacobi", agg, cx, cy, cz, need / 1048576.0, parts / 1048576.0, be->name,
                 (double)be->mem_bytes / 1048576.0);
        return FCL_EXIT_INPUT;
    }
    k->flags = be->ops->buf_new(be, cells, "MPS coarse flags");
    k->diag = be->ops->buf_new(be, cells, "MPS coarse diagonal");
    k->b = be->ops->buf_new(be, cells, "MPS coarse right-hand side");
    k->e = be->ops->buf_new(be, cells, "MPS coarse correction");
    k->pcell = be->ops->buf_new(be, s->cap * 4 + 4, "MPS coarse cell per particle");
    if (!k->flags || !k->diag || !k->b || !k->e || !k->pcell || mac_mg_alloc(&k->mg, be) != 0) {
        snprintf(err, errlen, "mps.preconditioner = %s (two-level): the device refused the coarse grid's buffers (%u "
                 "cells, %.1f MiB): expected a larger mps.coarse_cells, or mps.preconditioner = jacobi",
                 s->prm->mps_preconditioner, m->ncell, need / 1048576.0);
        mps_coarse_free(k, s);   /* those it did give */
        return -1;
    }
    k->mg.sweeps = 2;
    k->mg.coarse_sweeps = 16;
    k->mg.omega = 0.8f;
    k->on = 1;
    return 0;
}

int mps_coarse_setup(mps_coarse *k, fcl_sim *s, fcl_buf *surf, double lap_k)
{
    if (!k->on)
        return 0;
    double h = k->m.dx, l0 = s->spacing, per_cell = pow(h / l0, 3.0);
    k->scale = (float)(s->prm->mps_coarse_weight * lap_k * h * h / per_cell);
    return pass_mps_coarse_flags(s->be, k->m.ncell, "pressure-solve", s->grid.start, surf, k->flags, k->pcell, k->m,
                                 s->grid.info, k->agg) != 0 ||
                   pass_mac_mg_diag(s->be, k->m.ncell, "pressure-solve", k->flags, k->diag, k->m) != 0 ||
                   mac_mg_setup(&k->mg, s->be, k->flags, k->diag) != 0
               ? -1
               : 0;
}

int mps_coarse_apply(mps_coarse *k, fcl_sim *s, fcl_buf *r, fcl_buf *z, fcl_buf *diag, fcl_buf *surf)
{
    return pass_mps_coarse_restrict(s->be, k->m.ncell, "pressure-solve", s->grid.start, surf, r, k->flags, k->b,
                                    k->m, s->grid.info, k->agg) != 0 ||
                   mac_mg_apply(&k->mg, s->be, k->b, k->e) != 0 ||
                   pass_mps_coarse_prolong(s->be, s->n, "pressure-solve", r, diag, surf, k->pcell, k->e, z,
                                           k->scale) != 0
               ? -1
               : 0;
}

/* Every buffer made, also after a failed init (the others are NULL). */
void mps_coarse_free(mps_coarse *k, fcl_sim *s)
{
    fcl_backend *be = s->be;
    fcl_buf *b[] = { k->flags, k->diag, k->b, k->e, k->pcell };
    for (size_t i = 0; i < sizeof b / sizeof b[0]; i++)
        be->ops->buf_free(be, b[i]);
    mac_mg_free(&k->mg, be);
    memset(k, 0, sizeof *k);
}
