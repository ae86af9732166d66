/* mac.c - the semi-Lagrangian MAC-grid liquid solver (Zou, Qi, Zhao
 * 2013, seed 003; SEED-NOTES 5): the velocity lives on a staggered grid,
 * marker particles say where the liquid is. A step of sim.dt is cut into
 * substeps of dt = k_CFL dx / (max |u| + sqrt(k_CFL dx |g|)) (seed eq. 16,
 * force-aware), clamped to [mac.dt_min, mac.dt_max], the step cut evenly
 * into substeps of at most that (each may be shorter than mac.dt_min).
 * Each substep:
 *   particle grid (sorted markers) -> flags (solid, fluid, air) -> level
 *   set at the surface band -> RK2 semi-Lagrangian advection of the face
 *   velocities (or, with mac.transfer = flip, the markers' velocities onto
 *   the faces) -> implicit viscosity (mac.viscosity > 0), then gravity ->
 *   density correction targets (mac.density_correction > 0), divergence
 *   and diagonal (ghost fluid) -> conjugate gradients on the device
 *   (host/core/pcg.c), preconditioned by a multigrid V-cycle (mac_mg.c)
 *   or Jacobi -> pressure gradient -> extrapolation into air (BFS
 *   layers) -> with flip, the faces onto the markers -> reseeding
 *   (mac.reseed > 0) -> markers through the field (RK2) -> max |u| for
 *   the next substep's dt (README, Step).
 * After the last substep the markers are sorted again and their pressure
 * and density (rest) written for frames. Passes in kernels/mac.cl (the
 * grid), kernels/mac_markers.cl (the markers), kernels/mac_advect.cl (the
 * velocity's advection), kernels/mac_mg.cl (the multigrid),
 * kernels/mac_visc.cl (viscosity) and kernels/mac_reseed.cl (reseeding).
 * Invariant: between steps the markers are in the particle grid's order
 * of their positions, vel[cur] holds the extrapolated field of the last
 * substep, p its pressure (the next warm start) and max_u its largest
 * known face speed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mac.h"
#include "passes.h"
#include "reduce.h"
#include "scene.h"
#include "sim.h"

mac *mac_of(fcl_sim *s)
{
    return s->solver && strcmp(s->solver->name, "mac") == 0 ? s->solver_data : NULL;
}

/* Viscosity's bytes a cell: a diagonal and a right-hand side per face
 * (float4 each) and the CG's seven vectors over 4 rows a cell. */
enum { VISC_CELL_BYTES = 2 * 16 + 7 * 4 * 4 };

/* The grid must fit beside the particles' `parts` bytes (exit 2 naming
 * the key): the solver's fits hook, which sim_check_fits calls before
 * anything is allocated, and mac_init again on its own layout. */
static int grid_fits(const fcl_params *p, const fcl_backend *be, const fcl_mac_info *m, const mac_mg *mg,
                     double parts, char *err, size_t errlen)
{
    double need = (double)(mac_grid_bytes(m) + mac_mg_bytes(mg)), largest = (double)m->ncell * 16.0;
    /* Viscosity's buffers (viscous_buffers) when it is on from the start;
     * switched on later (it is live), they are checked when made. */
    need += p->mac_viscosity > 0.0 ? (double)m->ncell * VISC_CELL_BYTES : 0.0;
    if (need + parts <= 0.9 * (double)be->mem_bytes && largest <= (double)be->max_alloc)
        return 0;
    snprintf(err, errlen, "mac.cell_size: a %u x %u x %u grid of %g m cells needs %.1f MiB (largest buffer %.1f "
             "MiB) beside the particles' %.1f MiB, but %s has %.1f MiB (largest buffer %.1f MiB): expected a "
             "larger mac.cell_size or particles.spacing", m->nx, m->ny, m->nz, m->dx, need / 1048576.0,
             largest / 1048576.0, parts / 1048576.0, be->name, be->mem_bytes / 1048576.0,
             be->max_alloc / 1048576.0);
    return -1;
}

static int mac_fits(const fcl_params *p, const fcl_backend *be, double parts, char *err, size_t errlen)
{
    fcl_mac_info m;
    mac_mg mg;
    if (mac_layout(p, p->particles_spacing, &m, err, errlen) != 0)
        return -1;
    mac_mg_layout(&mg, &m);
    return grid_fits(p, be, &m, &mg, parts, err, errlen);
}

static int check_fits(fcl_sim *s, const mac *d, char *err, size_t errlen)
{
    double parts;
    sim_fits_beside(s, 0.0, &parts);
    return grid_fits(s->prm, s->be, &d->m, &d->mg, parts, err, errlen);
}

static int mac_init(fcl_sim *s, char *err, size_t errlen)
{
    mac *d = calloc(1, sizeof *d);
    if (!d)
        return -1;
    s->solver_data = d;
    if (mac_layout(s->prm, s->spacing, &d->m, err, errlen) != 0)
        return FCL_EXIT_INPUT;
    mac_mg_layout(&d->mg, &d->m);
    if (check_fits(s, d, err, errlen) != 0)
        return FCL_EXIT_INPUT;
    if (mac_grid_alloc(d, s->be) != 0) {
        snprintf(err, errlen, "mac: the device refused the grid's buffers (%u cells)", d->m.ncell);
        return -1;
    }
    sim_update_consts(s);
    return 0;
}

/* The blow-up test (sim.max_step_ratio support radii per step, on the
 * markers' speeds at the step's end) reads per substep here: a speed up
 * to R h / dt_last passes, R = max(sim.max_step_ratio, 2 k_CFL dx / h),
 * twice what the CFL bound let a face carry in the step's last substep.
 * A step of sim.dt may move a marker many cells, and its substeps shrink
 * as the flow speeds up within it; counted as substeps of the step's mean
 * length, the 128^3 drop's central jet at 0.39 s (9 -> 26 m/s within one
 * substep, then 18-26 m/s at 0.2 ms substeps) read as a blow-up. At
 * least twice the fastest emitter's speed passes: its new markers carry
 * it before any substep (a 6 m/s jet into an empty box stopped at step
 * 1, whatever mac.dt_max). Set with the constants, so that a rebuild of
 * them within a step (emitters) keeps it. */
static float blowup_ratio(const fcl_sim *s, const mac *d)
{
    double cfl_h = 2.0 * s->prm->mac_cfl * d->m.dx / s->h;
    double per = d->dt_last > 0.0 ? s->c.dt / d->dt_last : 1.0;
    double jet = 2.0 * sim_inflow_speed(s, -INFINITY, INFINITY) * s->c.dt / s->h;
    return (float)fmax(fmax(s->prm->sim_max_step_ratio, cfl_h) * fmax(per, 1.0), jet);
}

/* The particle mass rho0 d^3 (markers carry no mass in the method; frames
 * and the conservation checks read it) and the grid's live constants. */
static void mac_derive(fcl_sim *s)
{
    mac *d = s->solver_data;
    const fcl_params *p = s->prm;
    double l0 = s->spacing;
    s->c.mass = (float)(p->material_rest_density * l0 * l0 * l0);
    if (!d)
        return;
    s->c.max_step_ratio = blowup_ratio(s, d);
    d->m.rho = (float)p->material_rest_density;
    d->m.theta_min = (float)p->mac_theta_min;
    d->m.iso = 0.5f;
    d->m.inv_lattice = (float)(1.0 / s->lattice_sum);
    d->m.margin = 0.01f * d->m.dx;
}

/* The substep's dt from last substep's largest face speed, or an open
 * inflow's where faster (a 6 m/s jet into an empty box took a 10 ms
 * first substep, moved its markers 3 cells and stopped as a blow-up).
 * One raised to mac.dt_min is recorded for the blow-up advice (it said
 * "lower mac.cfl", which a step held at the floor does not feel; a
 * review). */
static double cfl_dt(fcl_sim *s, const mac *d)
{
    const fcl_params *p = s->prm;
    const float *g = p->sim_gravity;
    double k = p->mac_cfl, dx = d->m.dx, gn = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
    /* An emitter open now: launch_inflow's test; the faces it sets move
     * at its speed from this substep on. */
    double v = fmax(d->max_u, sim_inflow_speed(s, s->time, s->time)) + sqrt(k * dx * gn);
    double dt = v > 0.0 ? k * dx / v : p->mac_dt_max;
    return fmin(sim_hold_floor(s, dt, p->mac_dt_min, "mac.dt_min", NULL), p->mac_dt_max);
}

/* A counter's next number; 0 is never one (it means "never"). */
static unsigned next_gen(unsigned g)
{
    return g + 1u ? g + 1u : 1u;
}

/* One thin launcher per pass (kernels/mac*.cl, passes.def). */
/* Solids (boxes, spheres, polygons; with mesh obstacles, every cell
 * holding a boundary particle), then the markers' cells, then the holes
 * among them (air cells enclosed by liquid: kernels/mac.cl), marked in
 * mask[0], scratch until the substep's extrapolation. */
static int launch_flags(fcl_sim *s, mac *d)
{
    uint counting = s->prm->mac_reseed > 0.0f;
    d->fgen = next_gen(d->fgen);   /* full and dens no longer belong to them */
    return pass_mac_flag_solid(s->be, d->m.ncell, "flags", d->flags, d->count, s->solids, d->m, s->c) != 0 ||
                   (s->nmeshes && s->nb &&
                    pass_mac_flag_boundary(s->be, s->nb, "flags", sim_bpos(s), d->flags, d->m) != 0) ||
                   pass_mac_mark_fluid(s->be, s->n, "flags", sim_attr(s, s->a_pos), d->flags, d->count, d->m, counting,
                                       (uint)s->n) != 0 ||
                   pass_mac_hole_mark(s->be, d->m.ncell, "flags", d->flags, d->mask[0], d->m) != 0 ||
                   pass_mac_hole_fill(s->be, d->m.ncell, "flags", d->flags, d->mask[0]) != 0
               ? -1
               : 0;
}

/* The density correction's deep test, first half, and whether any cell
 * is air, once per flags (a new number for air each time; 0 is never
 * one). */
static int ensure_full(fcl_sim *s, mac *d)
{
    if (d->full_at == d->fgen)
        return 0;
    d->air_gen = next_gen(d->air_gen);
    if (pass_mac_full(s->be, d->m.ncell, "density", d->flags, d->full, d->air, d->m, d->air_gen) != 0)
        return -1;
    d->full_at = d->fgen;
    return 0;
}

/* Which cells' density the markers' gather computes: the level set's
 * band always, the density correction's deep cells and the reseeding's
 * candidates while those are on (both are live). */
enum { DENS_BAND = 1, DENS_DEEP = 2, DENS_RESEED = 4 };

static unsigned density_wants(const fcl_sim *s)
{
    return DENS_BAND | (s->prm->mac_density_correction > 0.0 ? DENS_DEEP : 0) |
           (s->prm->mac_reseed > 0.0f ? DENS_RESEED : 0);
}

/* The markers' density at the cells that read it, once per flags: the
 * level set, the density correction and the reseeding read the markers
 * where they are between the flags and the move (one gather for the
 * three; kernels/mac_reseed.cl, mac_density_field). */
static int ensure_density(fcl_sim *s, mac *d, unsigned want)
{
    if (d->dens_at == d->fgen && !(want & ~d->dens_has))
        return 0;
    want |= density_wants(s) | (d->dens_at == d->fgen ? d->dens_has : 0u);
    uint keep = (uint)lround(s->prm->mac_particles_per_cell);
    if (((want & DENS_DEEP) && ensure_full(s, d) != 0) ||
        pass_mac_density_field(s->be, d->m.ncell, "density", d->flags, d->full, d->count, sim_attr(s, s->a_pos),
                               s->grid.start, d->dens, s->grid.info, d->m, s->c, (want & DENS_DEEP) != 0,
                               (want & DENS_RESEED) != 0, keep) != 0)
        return -1;
    d->dens_at = d->fgen;
    d->dens_has = want;
    return 0;
}

static int launch_levelset(fcl_sim *s, mac *d)
{
    return ensure_density(s, d, DENS_BAND) != 0 ||
                   pass_mac_levelset(s->be, d->m.ncell, "levelset", d->flags, sim_attr(s, s->a_pos), s->grid.start,
                                     d->dens, d->phi, s->grid.info, d->m, s->c) != 0
               ? -1
               : 0;
}

static int flip_on(const fcl_sim *s)
{
    return strcmp(s->prm->mac_transfer, "flip") == 0;
}

static int extrapolate(fcl_sim *s, mac *d, fcl_buf **mask);

static int launch_p2g(fcl_sim *s, mac *d, const char *timer)
{
    return pass_mac_p2g(s->be, d->m.ncell, timer, sim_attr(s, s->a_pos), sim_attr(s, s->a_vev), s->grid.start, d->flags,
                        d->vel[d->cur], s->grid.info, d->m);
}

/* FLIP/PIC: the markers' velocities onto the faces, extrapolated like a
 * projected field, and kept as the old field for mac_g2p. */
static int launch_transfer(fcl_sim *s, mac *d)
{
    fcl_buf *mask;
    return launch_p2g(s, d, "transfer") != 0 || extrapolate(s, d, &mask) != 0 ||
                   pass_cg_axpby(s->be, 4 * (size_t)d->m.ncell, "transfer", d->vel[d->cur], d->old, 1.0f, 0.0f) != 0
               ? -1
               : 0;
}

static int launch_g2p(fcl_sim *s, mac *d)
{
    return pass_mac_g2p(s->be, s->n, "transfer", sim_attr(s, s->a_pos), sim_attr(s, s->a_vev), d->vel[d->cur], d->old,
                        d->m, (float)s->prm->mac_pic);
}

static int launch_advect(fcl_sim *s, mac *d)
{
    if (pass_mac_advect(s->be, d->m.ncell, "advect", d->vel[d->cur], d->vel[!d->cur], d->flags, d->m) != 0)
        return -1;
    d->cur = !d->cur;
    return 0;
}

/* The seed's advection carries no marker's velocity, so each open
 * emitter sets its own on the faces of a slab over its outline, from half
 * a cell behind its plane to a cell in front (kernels/mac.cl,
 * mac_inflow): a 1 m/s jet fell as one column at up to 4.4 m/s (a review). */
static int launch_inflow(fcl_sim *s, mac *d)
{
    for (int i = 0; i < s->nemitters; i++) {
        const fcl_emitter *e = &s->emitters[i];
        if (s->time < e->start || s->time >= e->end)
            continue;
        double u[3], v[3], half[2];
        emitter_frame(e, u, v, half);
        fcl_mac_inflow f = {
            .center = fcl_f4(e->center[0], e->center[1], e->center[2], 0.0f),
            .vel = fcl_f4(e->speed * e->dir[0], e->speed * e->dir[1], e->speed * e->dir[2], 0.0f),
            .dir = fcl_f4(e->dir[0], e->dir[1], e->dir[2], d->m.dx),
            .u = fcl_f4((float)u[0], (float)u[1], (float)u[2], (float)half[0]),
            .v = fcl_f4((float)v[0], (float)v[1], (float)v[2], (float)half[1]),
            .disk = e->disk ? 1u : 0u,
        };
        if (pass_mac_inflow(s->be, d->m.ncell, "inflow", d->vel[d->cur], d->flags, d->m, f) != 0)
            return -1;
    }
    return 0;
}

static int launch_forces(fcl_sim *s, mac *d)
{
    return pass_mac_forces(s->be, d->m.ncell, "forces", d->vel[d->cur], d->flags, d->m, s->c);
}

/* Viscosity's buffers, on first use (mac.viscosity > 0): VISC_CELL_BYTES
 * (144) a cell beyond the grid's own. */
static int viscous_buffers(fcl_sim *s, mac *d)
{
    fcl_backend *be = s->be;
    size_t n = d->m.ncell;
    if (d->viscous)
        return 0;
    d->vdiag = be->ops->buf_new(be, n * 16, "MAC viscosity diagonal");
    d->vrhs = be->ops->buf_new(be, n * 16, "MAC viscosity right-hand side");
    d->viscous = 1;
    if (!d->vdiag || !d->vrhs || fcl_pcg_init(&d->vcg, be, 4 * n) != 0) {
        snprintf(s->error, sizeof s->error, "mac.viscosity: the device refused the viscosity's buffers (%zu "
                 "cells, %d bytes each)", n, (int)VISC_CELL_BYTES);
        return -1;
    }
    return 0;
}

static int op_visc_matvec(void *ctx, fcl_buf *x, fcl_buf *y)
{
    fcl_sim *s = ctx;
    mac *d = s->solver_data;
    return pass_mac_visc_matvec(s->be, d->m.ncell, "viscosity", x, y, d->flags, d->m, d->kdt);
}

/* (I - nu dt L) u = u* on the faces beside fluid (kernels/mac_visc.cl),
 * Jacobi-CG from u* (a diagonally dominant system: a few iterations). */
static int launch_viscosity(fcl_sim *s, mac *d)
{
    const fcl_params *p = s->prm;
    if (!(p->mac_viscosity > 0.0))
        return 0;
    d->kdt = (float)(p->mac_viscosity / p->material_rest_density * d->m.dt / ((double)d->m.dx * d->m.dx));
    size_t rows = 4 * (size_t)d->m.ncell;
    if (viscous_buffers(s, d) != 0)
        return -1;
    fcl_pcg_op A = { rows, d->vdiag, op_visc_matvec, NULL, s, "viscosity", NULL };
    fcl_pcg_opts o = { p->mac_cg_tolerance, p->mac_cg_max_iter, fcl_pcg_check_interval(s->be, p->mac_cg_check_every, 2),
                       FCL_PRECOND_JACOBI, 0, 0 };   /* a velocity: a discarded solve keeps its start */
    fcl_pcg_result r;
    if (
        pass_mac_visc_diag(s->be, d->m.ncell, "viscosity", d->flags, d->vdiag, d->m, d->kdt) != 0 ||
        pass_cg_axpby(s->be, rows, "viscosity", d->vel[d->cur], d->vrhs, 1.0f, 0.0f) != 0)
        return -1;
    if (fcl_pcg_solve(&d->vcg, s->be, &A, d->vel[d->cur], d->vrhs, &o, &r, s->error, sizeof s->error) != 0)
        return -1;
    d->viters += r.iters;
    fcl_pcg_warn(&r, &o, "mac", "viscosity", s->step + 1, &d->vwarned);
    return 0;
}

/* The density correction's targets (kappa = mac.density_correction; 0:
 * none, as the pressure-only entry point wants), then the equation. */
static int launch_divergence(fcl_sim *s, mac *d, float kappa)
{
    /* With kappa 0 the target pass only writes zeros (kappa is live: a
     * viewer that turns it off leaves no stale targets). */
    return (kappa > 0.0f && ensure_density(s, d, DENS_DEEP) != 0) ||
                   pass_mac_density_target(s->be, d->m.ncell, "divergence", d->flags, d->full, d->air, d->dens,
                                           d->tgt, d->m, s->c, kappa, (float)s->prm->mac_density_band,
                                           d->air_gen) != 0 ||
                   pass_mac_divergence(s->be, d->m.ncell, "divergence", d->vel[d->cur], d->flags, d->phi, d->tgt,
                                       d->rhs, d->diag, d->p, d->m) != 0
               ? -1
               : 0;
}

/* The matrix-free 7-point operator over the cells (rows of non-fluid
 * cells are identity rows with b = 0 and x = 0: mac_divergence). */
static int op_matvec(void *ctx, fcl_buf *x, fcl_buf *y)
{
    fcl_sim *s = ctx;
    mac *d = s->solver_data;
    return pass_mac_matvec(s->be, d->m.ncell, "pressure-solve", x, y, d->flags, d->diag, d->m);
}

/* The multigrid preconditioner's z = M^-1 r (mac_mg.c). */
static int op_vcycle(void *ctx, fcl_buf *r, fcl_buf *z)
{
    fcl_sim *s = ctx;
    mac *d = s->solver_data;
    return mac_mg_apply(&d->mg, s->be, r, z);
}

/* The pressure equation on the device (host/core/pcg.c, multigrid or
 * Jacobi preconditioned); a solve that stops at mac.cg_max_iter is said
 * once on stderr and shows in the stats. */
static int solve(fcl_sim *s, mac *d)
{
    const fcl_params *p = s->prm;
    int mg = strcmp(p->mac_preconditioner, "mg") == 0;
    fcl_pcg_op A = { d->m.ncell, d->diag, op_matvec, NULL, s, "pressure-solve", op_vcycle };
    fcl_pcg_opts o = { p->mac_cg_tolerance, p->mac_cg_max_iter, fcl_pcg_check_interval(s->be, p->mac_cg_check_every, 2),
                       mg ? FCL_PRECOND_OP : FCL_PRECOND_JACOBI, 0, 1 };
    d->mg.sweeps = (int)p->mac_mg_sweeps;
    d->mg.coarse_sweeps = (int)p->mac_mg_coarse_sweeps;
    d->mg.omega = (float)p->mac_mg_omega;
    if (!p->mac_warm_start && fcl_pcg_zero(s->be, d->p, A.rows, A.timer) != 0)
        return -1;
    if (mg && mac_mg_setup(&d->mg, s->be, d->flags, d->diag) != 0)
        return -1;
    if (fcl_pcg_solve(&d->cg, s->be, &A, d->p, d->rhs, &o, &d->last, s->error, sizeof s->error) != 0)
        return -1;
    d->iters += d->last.iters;
    d->resid = fmax(d->resid, d->last.rel_resid);
    d->short_solves += !fcl_pcg_done(&d->last);
    fcl_pcg_warn(&d->last, &o, "mac", "pressure", s->step + 1, &d->warned);
    return 0;
}

static int launch_project(fcl_sim *s, mac *d)
{
    return pass_mac_project(s->be, d->m.ncell, "project", d->vel[d->cur], d->flags, d->phi, d->p, d->m);
}

/* Faces next to fluid are known; mac.extrapolate layers outward, and at
 * least ceil(k_CFL) + 1, so that a backtrace of k_CFL cells reads
 * extrapolated values, not the zeros beyond (both are live). The final
 * mask ends in mask[0]'s place when the layer count is even, so the speed
 * pass is told which. */
static int extrapolate(fcl_sim *s, mac *d, fcl_buf **mask)
{
    fcl_backend *be = s->be;
    int mk = 0;
    long layers = (long)fmax((double)s->prm->mac_extrapolate, ceil(s->prm->mac_cfl) + 1.0);
    if (pass_mac_extrap_init(be, d->m.ncell, "extrapolate", d->vel[d->cur], d->flags, d->mask[0], d->m) != 0)
        return -1;
    for (long k = 0; k < layers; k++) {
        if (pass_mac_extrap_layer(be, d->m.ncell, "extrapolate", d->vel[d->cur], d->vel[!d->cur], d->mask[mk],
                                  d->mask[!mk], d->m) != 0)
            return -1;
        d->cur = !d->cur;
        mk = !mk;
    }
    *mask = d->mask[mk];
    return 0;
}

/* max |u| over the known faces, read back for the next dt. */
static int measure_speed(fcl_sim *s, mac *d, fcl_buf *mask)
{
    return pass_mac_speed(s->be, d->m.ncell, "cfl", d->vel[d->cur], mask, d->speed) != 0 ||
                   reduction_max(&d->umax, s->be, d->speed, d->m.ncell, "cfl") != 0 ||
                   reduction_read(&d->umax, s->be, &d->max_u) != 0
               ? -1
               : 0;
}

static int launch_particles(fcl_sim *s, mac *d, int last)
{
    return pass_mac_particles(s->be, s->n, "particles", sim_attr(s, s->a_pos), sim_attr(s, s->a_vel),
                              sim_attr(s, s->a_vev), d->vel[d->cur], s->solids, d->m, s->c, (uint)flip_on(s),
                              (uint)last, (uint)s->n);
}

/* Markers bunched in a cell give what they hold over the resting count to
 * holes in the liquid, where the density is off by more than mac.reseed
 * (kernels/mac_reseed.cl), before they move: the particle grid is still
 * their order. The grid's rank buffer, scratch between builds, holds each
 * marker's new cell. */
static int launch_reseed(fcl_sim *s, mac *d)
{
    float band = s->prm->mac_reseed;
    if (!(band > 0.0f))
        return 0;
    uint keep = (uint)lround(s->prm->mac_particles_per_cell);
    fcl_buf *pos = sim_attr(s, s->a_pos), *dest = s->grid.rank;
    return ensure_density(s, d, DENS_RESEED) != 0 || pass_grid_clear(s->be, s->n, "reseed", dest) != 0 ||
                   pass_mac_reseed_claim(s->be, d->m.ncell, "reseed", d->flags, d->count, d->dens, d->req, d->m, keep,
                                         band) != 0 ||
                   pass_mac_reseed_pick(s->be, d->m.ncell, "reseed", pos, d->count, d->req, s->grid.start, dest,
                                        d->moved, s->grid.info, d->m, keep) != 0 ||
                   pass_mac_reseed_place(s->be, s->n, "reseed", pos, sim_attr(s, s->a_vel), sim_attr(s, s->a_vev), dest,
                                         d->vel[d->cur], d->m) != 0
               ? -1
               : 0;
}

static int launch_fields(fcl_sim *s, mac *d)
{
    return pass_mac_particle_fields(s->be, s->n, "output", sim_attr(s, s->a_pos), d->flags, d->p, s->rho, s->prs, d->m,
                                    (uint)s->n);
}

static int rebuild(fcl_sim *s)
{
    return grid_build(&s->grid, s->be, s->a_pos);
}

/* Divergence, solve and gradient over the flags and level set of now. */
static int pressure(fcl_sim *s, mac *d, float kappa)
{
    return launch_divergence(s, d, kappa) != 0 || solve(s, d) != 0 || launch_project(s, d) != 0 ? -1 : 0;
}

/* The seed's semi-Lagrangian advection of the field, or FLIP/PIC's
 * transfer from the markers (mac.transfer). */
static int velocity(fcl_sim *s, mac *d)
{
    if (flip_on(s))
        return launch_transfer(s, d);
    return launch_advect(s, d) != 0 || launch_inflow(s, d) != 0 ? -1 : 0;
}

/* The markers' grid, flags and level set where the markers are now: at
 * a step's first substep, what the last step's end left them unless
 * something has happened since (d->fresh). */
static int surface(fcl_sim *s, mac *d, int first)
{
    if (first && d->fresh)
        return 0;
    return (!first && rebuild(s) != 0) || launch_flags(s, d) != 0 || launch_levelset(s, d) != 0 ? -1 : 0;
}

static int substep(fcl_sim *s, mac *d, double dt, int first, int last)
{
    fcl_buf *mask;
    d->m.dt = (float)dt;
    d->dt_last = dt;
    float kappa = (float)s->prm->mac_density_correction;
    /* Viscosity before the forces: gravity's increment is uniform, so
     * diffusing it only bent it toward the no-slip walls, into a field
     * the projection cannot cancel (a pool at rest at 10 Pa s climbed the
     * walls: 0.11 m/s within 1 s). */
    if (surface(s, d, first) != 0 || velocity(s, d) != 0 || launch_viscosity(s, d) != 0 ||
        launch_forces(s, d) != 0 || pressure(s, d, kappa) != 0 || extrapolate(s, d, &mask) != 0 ||
        (flip_on(s) && launch_g2p(s, d) != 0) || launch_reseed(s, d) != 0 || launch_particles(s, d, last) != 0 ||
        measure_speed(s, d, mask) != 0)
        return -1;
    d->substeps++;
    return 0;
}

/* The initial field: the markers' velocities on the faces around them,
 * extrapolated like a projected one (a first prepare only: later ones,
 * after particles are added or a state is loaded, keep the field). */
static int seed_field(fcl_sim *s, mac *d)
{
    fcl_buf *mask;
    return launch_flags(s, d) != 0 || launch_p2g(s, d, "advect") != 0 || extrapolate(s, d, &mask) != 0 ||
                   measure_speed(s, d, mask) != 0
               ? -1
               : 0;
}

static int mac_prepare(fcl_sim *s)
{
    mac *d = s->solver_data;
    if (rebuild(s) != 0 || (!d->ready && seed_field(s, d) != 0))
        return -1;
    d->ready = 1;
    d->u_start = fmax(d->u_start, d->max_u);
    /* Obstacles may be set after this (sim_set_solids), and markers
     * added or loaded: the next substep flags for itself. */
    d->fresh = 0;
    return launch_flags(s, d) != 0 || launch_levelset(s, d) != 0 || launch_fields(s, d) != 0 ? -1 : 0;
}

enum { STAT_SUBSTEPS, STAT_ITERS, STAT_RESID, STAT_UMAX, STAT_VITERS, STAT_RESEEDED, STAT_SHORT, NSTATS };
static const fcl_stat_decl mac_stats[NSTATS] = {
    { "substeps", "substeps", "", FCL_FOLD_MEAN },
    { "cg_iterations", "CG iterations", "", FCL_FOLD_MEAN },
    { "cg_residual", "CG |r|/|b|", "", FCL_FOLD_MAX },
    { "max_face_speed", "largest face speed", "m/s", FCL_FOLD_MAX },
    { "visc_iterations", "viscosity CG iterations", "", FCL_FOLD_MEAN },
    { "reseeded", "markers reseeded", "", FCL_FOLD_MEAN },
    /* A velocity left divergent: a warning says the first, this counts all. */
    { "short_solves", "solves cut short", "", FCL_FOLD_SUM },
};

/* Markers reseeded over a step: the pick pass's counter, zeroed before
 * the step and read once after it. */
static int reseed_count(fcl_sim *s, mac *d, int read)
{
    uint v = 0;
    if (!(s->prm->mac_reseed > 0.0))
        return 0;
    if (!read)
        return s->be->ops->buf_write(s->be, d->moved, 0, 4, &v);
    if (s->be->ops->buf_read(s->be, d->moved, 0, 4, &v) != 0)
        return -1;
    d->reseeded = (long)fcl_reduce_sum((double)v);
    return 0;
}

/* The markers' liquid (mac.particles_per_cell to a cell) over the
 * domain's volume. */
static double held_share(const fcl_sim *s, const mac *d)
{
    float4 lo = s->c.domain_min, hi = s->c.domain_max;
    double dx = d->m.dx, held = (double)s->n * dx * dx * dx / s->prm->mac_particles_per_cell;
    return held / (((double)hi.x - lo.x) * ((double)hi.y - lo.y) * ((double)hi.z - lo.z));
}

/* A closed domain (emitters, no outflow) holding markers for more than
 * 1.1 of its volume: the inflow has nowhere to go, and the pressure solve
 * no answer. 5 m/s into a closed 20 cm box ran 1 s to markers for 6.4
 * times its volume with exit 0 (its faces at 28 m/s, under the speed
 * bound below); the same jet aimed at the wall 2 cm away blew up, its
 * layers ahead of the plane put through the wall (since refused, emit.c). */
static int room_left(fcl_sim *s, const mac *d)
{
    double held = held_share(s, d);
    if (s->nemitters == 0 || s->noutflows > 0 || !(held > 1.1))
        return 0;
    snprintf(s->error, sizeof s->error, "the emitters have brought markers for %.0f %% of the domain's volume (%zu "
             "at mac.particles_per_cell = %g): a closed domain takes no more, and its pressure has no solution; add "
             "an outflow, or close the emitters sooner", 100.0 * held, s->n, s->prm->mac_particles_per_cell);
    return -1;
}

/* A face faster than ten times what a fall across the domain's diagonal,
 * the fastest inflow and the initial flow give together is a blow-up:
 * the substeps follow the speed down to mac.dt_min, so no step moves a
 * marker past sim.max_step_ratio, and solves cut at mac.cg_max_iter 1 ran
 * a 0.6 m dam break to 76.7 m/s with exit 0. Without gravity, inflow or
 * initial flow there is no bound. */
static int speed_sane(fcl_sim *s, const mac *d)
{
    const fcl_params *p = s->prm;
    const float *g = p->sim_gravity;
    float4 lo = s->c.domain_min, hi = s->c.domain_max;
    double gn = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
    double diag = sqrt((hi.x - lo.x) * (hi.x - lo.x) + (hi.y - lo.y) * (hi.y - lo.y) + (hi.z - lo.z) * (hi.z - lo.z));
    double base = sqrt(2.0 * gn * diag) + sim_inflow_speed(s, -INFINITY, INFINITY) + d->u_start;
    if (!isfinite(d->max_u)) {   /* the substeps' dt took fmax, which passes a NaN by */
        snprintf(s->error, sizeof s->error, "numerical blow-up: a face of the grid's velocity is not finite (%g); %s",
                 d->max_u, solver_blowup_advice(s->solver));
        return -1;
    }
    if (!(base > 0.0) || !(d->max_u > 10.0 * base))
        return 0;
    char advice[200];
    /* Markers of a closed domain's worth of liquid and more (no outflow):
     * an inflow with nowhere to go, not a step to shorten (a review: 5 m/s into a
     * closed 20 cm box, markers for 1.56 of its volume, was told to lower
     * mac.cfl). */
    double held = held_share(s, d);
    if (s->nemitters > 0 && s->noutflows == 0 && held > 0.9)
        snprintf(advice, sizeof advice, "the emitters have brought markers for %.0f %% of the domain's volume: a "
                 "closed domain takes no more (add an outflow, or close the emitters sooner)", 100.0 * held);
    else if (d->short_solves > 0)
        snprintf(advice, sizeof advice, "%ld of the step's %d pressure solves stopped at mac.cg_max_iter = %ld short "
                 "of mac.cg_tolerance: raise mac.cg_max_iter", d->short_solves, d->substeps, (long)p->mac_cg_max_iter);
    else
        snprintf(advice, sizeof advice, "%s", solver_blowup_advice(s->solver));
    snprintf(s->error, sizeof s->error, "numerical blow-up: a face of the grid moves at %.4g m/s, more than ten times "
             "the %.3g m/s a fall across the domain, the fastest inflow and the initial flow give; %s",
             d->max_u, base, advice);
    return -1;
}

static int mac_step(fcl_sim *s)
{
    mac *d = s->solver_data;
    double left = s->c.dt;
    d->iters = 0;
    d->viters = 0;
    d->resid = 0.0;
    d->short_solves = 0;
    d->substeps = 0;
    d->reseeded = 0;
    s->dt_floor_key[0] = '\0';
    if (room_left(s, d) != 0 || reseed_count(s, d, 0) != 0)
        return -1;
    while (left > 0.0) {
        /* Even substeps: the count this bound asks for over what is left. */
        double n = ceil(left / cfl_dt(s, d) - 1e-9), dt = left / (n > 1.0 ? n : 1.0);
        if (substep(s, d, dt, d->substeps == 0, n <= 1.0) != 0 || speed_sane(s, d) != 0)
            return -1;
        left = n > 1.0 ? left - dt : 0.0;
    }
    /* Flags and level set of the markers where the step leaves them, for
     * frames, the grid output and surface.method grid, and the next
     * step's first substep (fresh until prepare() runs again). */
    if (reseed_count(s, d, 1) != 0 || rebuild(s) != 0 || launch_flags(s, d) != 0 || launch_levelset(s, d) != 0 ||
        launch_fields(s, d) != 0)
        return -1;
    d->fresh = 1;
    s->dt_used = s->c.dt;
    s->c.max_step_ratio = blowup_ratio(s, d);
    s->stats.solver[STAT_SUBSTEPS] = d->substeps;
    s->stats.solver[STAT_ITERS] = (double)d->iters;
    s->stats.solver[STAT_RESID] = d->resid;
    s->stats.solver[STAT_UMAX] = d->max_u;
    s->stats.solver[STAT_VITERS] = (double)d->viters;
    s->stats.solver[STAT_RESEEDED] = (double)d->reseeded;
    s->stats.solver[STAT_SHORT] = (double)d->short_solves;
    return 0;
}

int mac_viscosity_only(fcl_sim *s, double dt)
{
    mac *d = mac_of(s);
    if (!d)
        return -1;
    d->m.dt = (float)dt;
    d->viters = 0;
    return launch_flags(s, d) != 0 || launch_viscosity(s, d) != 0 ? -1 : 0;
}

int mac_project_only(fcl_sim *s, double dt, double kappa)
{
    mac *d = mac_of(s);
    fcl_buf *mask;
    if (!d)
        return -1;
    d->m.dt = (float)dt;
    d->iters = 0;
    d->resid = 0.0;
    return launch_flags(s, d) != 0 || launch_levelset(s, d) != 0 || pressure(s, d, (float)kappa) != 0 ||
                   extrapolate(s, d, &mask) != 0 || measure_speed(s, d, mask) != 0
               ? -1
               : 0;
}

static size_t mac_save_bytes(fcl_sim *s)
{
    return mac_state_bytes(s->solver_data);
}

static size_t mac_save(fcl_sim *s, void *blob, size_t cap)
{
    return mac_state_save(s->solver_data, s->be, blob, cap);
}

static int mac_load(fcl_sim *s, const void *blob, size_t bytes, char *why, size_t whylen)
{
    return mac_state_load(s->solver_data, s->be, blob, bytes, why, whylen);
}

/* Flags, level set and fields for the outputs where no step has made
 * them since prepare(): obstacles are set after it (sim_set_solids), so
 * frame 0's grid once showed them as air. The step flags for itself. */
static int current(fcl_sim *s, mac *d)
{
    return d->fresh || (launch_flags(s, d) == 0 && launch_levelset(s, d) == 0 && launch_fields(s, d) == 0) ? 0 : -1;
}

static int mac_grid_out(fcl_sim *s, struct fcl_grid_frame *g)
{
    return current(s, s->solver_data) != 0 ? -1 : mac_grid_fields(s->solver_data, s->be, g);
}

static int mac_levelset_out(fcl_sim *s, struct fcl_grid_frame *g)
{
    return current(s, s->solver_data) != 0 ? -1 : mac_grid_levelset(s->solver_data, s->be, g);
}

static size_t mac_overlay(fcl_sim *s, const float **pts)
{
    return current(s, s->solver_data) != 0 ? 0 : mac_grid_slice(s->solver_data, s->be, pts);
}

/* The viewer's force: on the markers with FLIP (their velocities are the
 * state, splatted next substep), on the faces with the seed's advection. */
static int mac_interact(fcl_sim *s, const float origin[3], const float dir[3], const float dv[3], float radius)
{
    mac *d = s->solver_data;
    float4 o = fcl_f4(origin[0], origin[1], origin[2], 0.0f), r = fcl_f4(dir[0], dir[1], dir[2], 0.0f);
    float4 w = fcl_f4(dv[0], dv[1], dv[2], 0.0f);
    if (flip_on(s))
        return pass_interact_force(s->be, s->n, "interact", sim_attr(s, s->a_pos), sim_attr(s, s->a_vel),
                                   sim_attr(s, s->a_vev), o, r, w, radius);
    return pass_mac_interact(s->be, d->m.ncell, "interact", d->vel[d->cur], d->flags, d->m, o, r, w, radius);
}

static void mac_destroy(fcl_sim *s)
{
    mac *d = s->solver_data;
    if (!d)
        return;
    mac_grid_free(d, s->be);
    free(d);
    s->solver_data = NULL;
}

/* The grid's layout before any device or buffer (the cell count alone
 * can refuse a scene); its memory is checked in init, on the device. */
static int mac_check(const fcl_params *p, char *err, size_t errlen)
{
    fcl_mac_info m;
    int rc = mac_layout(p, p->particles_spacing, &m, err, errlen);
    /* Below the seed's 8 a cell the markers leave cells inside the liquid
     * empty, which then read as air (p = 0): mac_dam_break's level-set
     * cells over 1 s on its 2.5 cm grid lost 0.5 % at 8, 21 % at 4, 52 %
     * at 2 and 59 % at 1 (a review). A note, once (the viewer checks
     * every edit of mac.* with this hook): the runs go on. */
    static int said;
    if (rc == 0 && p->mac_particles_per_cell < 8.0f && !said++)
        fprintf(stderr, "fluidcl: note: mac.particles_per_cell = %g is below the seed's 8: cells inside the liquid "
                "that no marker holds read as air, and the liquid loses volume (a dam break 21 %% within 1 s at 4, "
                "52 %% at 2)\n", p->mac_particles_per_cell);
    /* mac.pic blends FLIP's update; the advect transfer has none, and a
     * value given there changed nothing without a word (a review). */
    static int said_pic;
    if (rc == 0 && strcmp(p->mac_transfer, "advect") == 0 &&
        fabs(p->mac_pic - atof(fcl_param_table[FCL_P_mac_pic].def)) > 1e-6 && !said_pic++)
        fprintf(stderr, "fluidcl: note: mac.pic = %g does nothing under mac.transfer = advect: it blends the flip "
                "transfer's update (--param mac.transfer=flip)\n", p->mac_pic);
    return rc;
}

/* Beside the advice to lower mac.cfl or mac.dt_max: with mac.dt_min at
 * mac.dt_max every substep is held at that length, mac.cfl does nothing
 * and lowering mac.dt_max alone is refused (a review). */
static const char *mac_blowup_more(const fcl_sim *s)
{
    return s->prm->mac_dt_min >= 0.999f * s->prm->mac_dt_max
               ? "mac.dt_min is mac.dt_max, which holds every substep at that length (mac.cfl does nothing then): "
                 "lower both"
               : NULL;
}

/* The shared parameters it does not read, and what it has in their place. */
static const fcl_ignored ignores[] = {
    { FCL_P_material_viscosity, "mac.viscosity" },
    { FCL_P_material_stiffness, "its pressure solve, no equation of state" },
    { FCL_P_material_negative_pressure, "its pressure solve, no equation of state" },
    { FCL_P_material_tension_model, "nothing: it applies no surface tension" },
    { FCL_P_material_surface_tension, "nothing: it applies no surface tension, nor bounds its step by it" },
    { FCL_P_material_cohesion, "nothing: it applies no surface tension" },
    { FCL_P_boundary_walls, "its grid's walls, solid cells around the domain, free-slip" },
    { FCL_P_COUNT, NULL },
};

const fcl_solver fcl_solver_mac = {
    .ignores = ignores,
    .name = "mac",
    .blowup_advice = "lower mac.cfl or mac.dt_max",
    .blowup_more = mac_blowup_more,
    .kernels = "none, a grid",
    .summary = "Zou, Qi & Zhao 2013 semi-Lagrangian MAC grid liquid (RK2 backtrace, ghost-fluid free surface "
               "from the markers' level set, multigrid-preconditioned conjugate gradients on the device, "
               "marker particles, CFL substeps; FLIP/PIC as an option)",
    .extra_bytes_per_particle = 0,       /* no per-particle buffers: the grid is checked in init */
    .no_density = 1,                     /* the markers carry the rest density */
    .seed_gap = 0.5,                     /* markers to where the obstacles' push keeps them */
    /* Markers stand for mac.particles_per_cell to a cell whatever the
     * faces' inflow: a rate packing them 4 to a spacing^3 told room_left
     * of 114 % of a box 30 % full (a review). */
    .rate_gap = 0.9,
    .rate_why = "closer its markers stand for more liquid than the inflow brings, at mac.particles_per_cell to a "
                "cell",
    .init = mac_init,
    .prepare = mac_prepare,
    .step = mac_step,
    .destroy = mac_destroy,
    .derive = mac_derive,
    .list_radius = NULL,                 /* no neighbor lists */
    .stats = mac_stats,
    .nstats = NSTATS,
    .save = mac_save,
    .load = mac_load,
    .overlay = mac_overlay,
    .overlay_name = "grid cells (middle z slice)",
    .overlay_classes = 1,
    .save_bytes = mac_save_bytes,
    .grid_fields = mac_grid_out,
    .interact = mac_interact,
    .levelset = mac_levelset_out,
    .check = mac_check,
    .fits = mac_fits,
};
