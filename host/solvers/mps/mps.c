/* mps.c - the moving particle semi-implicit method (Koshizuka & Oka 1996;
 * seed 002, Premoze et al. 2003, SEED-NOTES 4). Each step:
 *   Courant and viscous time step -> viscosity, surface tension and gravity (u*) on the
 *   last step's lists -> predict x* -> grid rebuild and lists at x* ->
 *   collision model (close approaching pairs) -> number density n* and
 *   free-surface flags -> assemble the pressure
 *   equation -> conjugate gradients on the device (pcg.c) -> pressure
 *   gradient (mps.gradient: ko, with the least neighbor pressure; gc,
 *   the corrected gradient), u and x corrected ->
 *   grid and lists again at the final positions -> density rho0 n / n0
 *   (stats, frames). The second build makes the next step's explicit
 *   part read lists of its own positions, so a state restored from a
 *   checkpoint (whose prepare builds them from the positions) continues
 *   bit for bit; it costs one list build per step (README).
 * Passes in kernels/mps.cl. Walls are mirror images (boundary.walls =
 * mirror) or boundary particles (every layer completes n*); with
 * mps.wall_pressure ghost both act as a Neumann wall carrying the
 * hydrostatic gradient (mps.cl explains), with solve the first layer of
 * wall particles has pressure unknowns of its own (walls.c).
 * Units: w is dimensionless, n0 and lambda come from a cubic lattice at
 * particles.spacing (mps_lattice), so a particle inside a resting lattice
 * has n* = n0 exactly.
 * Invariant: between steps the grid and lists are those of the current
 * positions, the pressure (a grid attribute, so it follows the particles
 * through the sort) is last step's solution, the warm start of the next,
 * and rho and prs match the current positions.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mps.h"
#include "passes.h"
#include "pcg.h"
#include "reduction.h"
#include "sim.h"
#include "walls.h"
#include "coarse.h"
#include "sealed.h"

typedef struct mps {
    int a_p;                             /* grid attribute: pressure (warm start) */
    int p_coef;                          /* list plane: the matrix weights */
    fcl_buf *nd, *surf, *diag, *rhs, *dx, *phase, *rhob;
    fcl_reduction nsurf;                 /* surface particles (the check for
                                            a singular system) */
    fcl_pcg cg;
    mps_walls walls;                     /* wall unknowns (mps.wall_pressure) */
    fcl_buf *xall;                       /* with wall unknowns: fluid then wall
                                            pressures, the solve's vector */
    mps_coarse coarse;                   /* two-level: grid, or auto on a CPU device */
    fcl_mps_consts consts;
    double n0, n0_l, lambda;             /* lattice constants: n0 at re_n, and
                                            n0 and lambda at re_l (the radii
                                            are fixed for a run: mps_init) */
    fcl_pcg_result last;
    double surface;                      /* this step's surface particles */
    int warned;                          /* non-convergence said once */
    long sealed_checked;                 /* 1 + the step of the last sealed-fluid search; 0: none */
    long short_since;                    /* 1 + the first step of the solves stopped short
                                            at mps.cg_max_iter since the last that converged; 0: none */
} mps;

enum { DIM = 3 };

/* Over a cubic lattice of spacing l0 around a point (itself excluded):
 * n0 = sum w(r) and lambda = sum r^2 w / sum w, w = re / r - 1 (r < re). */
static void mps_lattice(double re, double l0, double *n0, double *lambda)
{
    int k = (int)ceil(re / l0);
    double sw = 0.0, sr2w = 0.0;
    for (int z = -k; z <= k; z++)
        for (int y = -k; y <= k; y++)
            for (int x = -k; x <= k; x++) {
                double r = l0 * sqrt((double)(x * x + y * y + z * z));
                if (r <= 0.0 || r >= re)
                    continue;
                double w = re / r - 1.0;
                sw += w;
                sr2w += r * r * w;
            }
    *n0 = sw;
    *lambda = sw > 0.0 ? sr2w / sw : 0.0;
}

static int mps_init(fcl_sim *s, char *err, size_t errlen)
{
    fcl_backend *be = s->be;
    mps *d = calloc(1, sizeof *d);
    if (!d)
        return -1;
    s->solver_data = d;
    size_t n = s->cap;
    int rc = mps_walls_init(&d->walls, s, err, errlen);
    if (rc != 0 || (rc = mps_coarse_init(&d->coarse, s, d->walls.on, err, errlen)) != 0)
        return rc;
    size_t rows = n + d->walls.nb;      /* unknowns: fluid, then walls */
    d->a_p = grid_add_attr(&s->grid, be, "MPS pressure", 4);
    d->p_coef = nlist_add_plane(&s->nl, be, 0, "MPS Laplacian weights");
    d->nd = be->ops->buf_new(be, n * 4 + 4, "MPS number density");
    d->surf = be->ops->buf_new(be, n * 4 + 4, "MPS free-surface flags");
    d->diag = be->ops->buf_new(be, rows * 4 + 4, "MPS matrix diagonal");
    d->rhs = be->ops->buf_new(be, rows * 4 + 4, "MPS right-hand side");
    d->xall = d->walls.on ? be->ops->buf_new(be, rows * 4 + 4, "MPS fluid and wall pressures") : NULL;
    d->dx = be->ops->buf_new(be, n * 16 + 16, "MPS position correction");
    d->phase = be->ops->buf_new(be, n * 4 + 4, "MPS phase field");
    d->rhob = be->ops->buf_new(be, n * 4 + 4, "MPS pressure-pass density");
    if (d->a_p < 0 || d->p_coef < 0 || !d->nd || !d->surf || !d->diag || !d->rhs || !d->dx ||
        !d->phase || !d->rhob || (d->walls.on && !d->xall) || reduction_init(&d->nsurf, be, n) != 0 ||
        fcl_pcg_init(&d->cg, be, rows) != 0) {
        snprintf(err, errlen, "mps: the device refused the solver's buffers");
        return -1;
    }
    double lam_n, l0 = s->spacing;
    mps_lattice(s->prm->mps_re_density * l0, l0, &d->n0, &lam_n);
    mps_lattice(s->prm->mps_re_laplacian * l0, l0, &d->n0_l, &d->lambda);
    sim_update_consts(s);
    return 0;
}

/* Whether the pressure passes read smoothed densities: mps.density_smoothing,
 * whose auto is on beyond a density ratio of 10 (the plain harmonic-mean
 * system runs ratio 10 stably and blew up on water and air: README). */
static int smoothing(const fcl_sim *s)
{
    const char *m = s->prm->mps_density_smoothing;
    if (strcmp(m, "auto") != 0)
        return strcmp(m, "on") == 0;
    return mps_phase_ratio(s) > MPS_PHASE_CONTRAST;
}

/* The mass rho0 l0^3 and the live parameters (the lattice constants are
 * mps_init's: the radii are not live). */
static void mps_derive(fcl_sim *s)
{
    mps *d = s->solver_data;
    const fcl_params *p = s->prm;
    double l0 = s->spacing, rho = p->material_rest_density;
    s->c.mass = (float)(rho * l0 * l0 * l0);
    if (!d)
        return;
    double re_n = p->mps_re_density * l0, re_l = p->mps_re_laplacian * l0;
    d->consts.re_n = (float)re_n;
    d->consts.re_n2 = (float)(re_n * re_n);
    d->consts.re_l = (float)re_l;
    d->consts.re_l2 = (float)(re_l * re_l);
    d->consts.rmin2 = (float)(0.01 * l0 * l0);      /* r >= l0 / 10 */
    d->consts.n0 = (float)d->n0;
    d->consts.beta = (float)p->mps_beta;
    d->consts.rho = (float)rho;
    d->consts.lap_k = (float)(2.0 * DIM / (d->lambda * d->n0_l));
    d->consts.mu = (float)p->material_viscosity;
    d->consts.phases = s->nphases;
    d->consts.grad_k = (float)(DIM / d->n0);
    d->consts.clamp = p->mps_clamp_negative ? 1u : 0u;
    double cr = p->mps_collision_distance * l0;
    d->consts.coll_r2 = (float)(cr * cr);
    d->consts.coll_e = (float)p->mps_collision_restitution;
    d->consts.smooth = smoothing(s) ? 1u : 0u;
    d->consts.self_w = (float)(p->mps_re_density - 1.0);   /* re_n / l0 - 1 */
    d->consts.walls = d->walls.on ? 1u : 0u;
    d->consts.grad = strcmp(p->mps_gradient, "gc") == 0 ? 1u : 0u;
    d->consts.ds_k = (float)p->mps_stabilization;
    d->consts.ds_r2 = (float)(l0 * l0);
    d->consts.l0 = (float)l0;
}

/* Courant (mps.cfl) on last step's largest speed (or an emitter's) plus what gravity adds
 * in one step, the viscous bound 0.2 l0^2 / nu (the largest phase's), at most mps.dt_max; the
 * source constant depends on dt. */
static int choose_dt(fcl_sim *s, mps *d)
{
    const fcl_params *p = s->prm;
    double l0 = s->spacing, v = sim_courant_speed(s, p->mps_dt_max), dt = p->mps_dt_max;
    /* The largest kinematic viscosity: material.*'s, or the phases'. */
    double nu = s->nphases ? 0.0 : p->material_viscosity / p->material_rest_density;
    for (uint k = 0; k < s->nphases; k++)
        nu = fmax(nu, s->phase_table[k].viscosity / s->phase_table[k].density);
    if (v > 1e-9)
        dt = fmin(dt, p->mps_cfl * l0 / v);
    if (sim_step_floor(s, dt, p->mps_dt_min, p->mps_dt_max, "mps") != 0) {
        /* Solves cut short let the fluid compress and blow up: the first
         * thing to change (mps.cg_max_iter 1 on a resting column). */
        size_t used = strlen(s->error);
        if (d->short_since)
            snprintf(s->error + used, sizeof s->error - used, "; but first: every pressure solve since step %ld "
                     "stopped at mps.cg_max_iter = %ld short of mps.cg_tolerance: raise mps.cg_max_iter",
                     d->short_since, (long)p->mps_cg_max_iter);
        return -1;
    }
    /* as dfsph's (dfsph.c); after the floor, which is the speed's */
    double cap = sim_capillary_dt(s), visc = nu > 0.0 ? MPS_VISC_STEP * l0 * l0 / nu : INFINITY;
    dt = fmin(dt, fmin(cap, visc));
    /* These bounds under mps.dt_min are overruled, as dfsph's, and a
     * blow-up then says so: mps_check refuses material.viscosity's before
     * any work, but a phase's or a live edit's went below it without a
     * word (a review). */
    s->dt_floor_key[0] = '\0';
    dt = sim_hold_floor(s, dt, p->mps_dt_min, "mps.dt_min",
                        visc <= cap ? (s->nphases ? "the phases' viscosity" : "material.viscosity")
                                    : "material.surface_tension");
    d->consts.dt = (float)dt;
    d->consts.src_k = (float)(p->mps_relaxation * d->lambda * d->n0_l * p->material_rest_density / (2.0 * DIM * dt * dt));
    d->consts.comp_k = (float)(d->lambda * d->n0_l * p->material_rest_density / (2.0 * DIM * dt * dt));
    s->c.dt = (float)dt;
    s->dt_used = (float)dt;
    return 0;
}

/* One thin launcher per pass (kernels/mps.cl, kernels/passes.def). */
#define HOOD(s) (s)->nl.fcount, (s)->nl.fidx, (s)->nl.bcount, (s)->nl.bidx, (s)->nl.fl, (s)->nl.bl
#define COEF(s, d) nlist_plane(&(s)->nl, 0, (d)->p_coef)

/* Akinci's normals first when that tension model is selected (they read
 * rho, the last step's rho0 n / n0 at these positions). */
static int launch_viscosity(fcl_sim *s, mps *d)
{
    return sim_normals(s) != 0 ||
                   pass_mps_viscosity(s->be, s->n, "forces", sim_attr(s, s->a_pos), sim_attr(s, s->a_vev),
                                      sim_attr(s, s->a_vel), s->nl.fcount, s->nl.fidx, s->nl.fl, s->rho, s->normals,
                                      s->phases, s->c, d->consts) != 0
               ? -1
               : 0;
}

static int launch_predict(fcl_sim *s, mps *d)
{
    return pass_mps_predict(s->be, s->n, "integrate", sim_attr(s, s->a_pos), sim_attr(s, s->a_vel), s->solids, s->c,
                            d->consts);
}

/* The collision model on u* (into the velocity at t, free until the
 * correction), then x* moved by what it changed, inside walls and solids. */
static int collide(fcl_sim *s, mps *d)
{
    if (d->consts.coll_r2 <= 0.0f)
        return 0;
    return pass_mps_collide(s->be, s->n, "collide", sim_attr(s, s->a_pos), sim_bpos(s), HOOD(s), sim_attr(s, s->a_vel),
                            sim_attr(s, s->a_vev), d->dx, s->c, d->consts) != 0 ||
                   pass_mps_apply(s->be, s->n, "collide", sim_attr(s, s->a_pos), sim_attr(s, s->a_vev), d->dx,
                                  s->solids, s->c) != 0
               ? -1
               : 0;
}

/* Where u* is after the collision model (it writes the velocity at t). */
static fcl_buf *ustar(fcl_sim *s, mps *d)
{
    return sim_attr(s, d->consts.coll_r2 > 0.0f ? s->a_vev : s->a_vel);
}

/* n* of the fluid and, with wall unknowns, of the walls (walls.c). */
static int launch_density(fcl_sim *s, mps *d)
{
    return pass_mps_density(s->be, s->n, "density", sim_attr(s, s->a_pos), sim_bpos(s), HOOD(s), d->nd, d->surf,
                            d->rhob, s->phases, s->c, d->consts) != 0 ||
                   mps_walls_density(&d->walls, s, &d->consts) != 0
               ? -1
               : 0;
}

/* The fluid rows, then the walls' (their starting values into xall).
 * Without wall unknowns the wall arguments are never read or written;
 * any buffer stands in. */
static int launch_assemble(fcl_sim *s, mps *d)
{
    mps_walls *w = &d->walls;
    return pass_mps_assemble(s->be, s->n, "assemble", sim_attr(s, s->a_pos), sim_bpos(s), HOOD(s), d->nd, d->surf,
                             COEF(s, d), d->diag, d->rhs, sim_attr(s, d->a_p), d->rhob, w->on ? w->wsurf : d->surf,
                             w->on ? mps_walls_bcoef(w, s) : COEF(s, d), s->phases, s->c, d->consts) != 0 ||
                   mps_walls_assemble(w, s, d->rhob, sim_attr(s, d->a_p), d->diag, d->rhs, d->xall, &d->consts) != 0
               ? -1
               : 0;
}

static int launch_correct(fcl_sim *s, mps *d)
{
    fcl_buf *xw = d->walls.on ? d->xall : sim_attr(s, d->a_p);
    return pass_mps_correct(s->be, s->n, "correct", sim_attr(s, s->a_pos), sim_bpos(s), HOOD(s), sim_attr(s, d->a_p),
                            ustar(s, d), sim_attr(s, s->a_vev), d->dx, d->rhob, xw, (uint)s->n, s->c, d->consts);
}

static int launch_apply(fcl_sim *s, mps *d)
{
    return pass_mps_apply(s->be, s->n, "integrate", sim_attr(s, s->a_pos), sim_attr(s, s->a_vev), d->dx, s->solids,
                          s->c);
}

static int launch_finish(fcl_sim *s, mps *d)
{
    return pass_mps_finish(s->be, s->n, "density", sim_attr(s, s->a_pos), sim_bpos(s), HOOD(s), sim_attr(s, d->a_p),
                           s->rho, s->prs, s->c, d->consts);
}

static int rebuild(fcl_sim *s)
{
    return grid_build(&s->grid, s->be, s->a_pos) != 0 || sim_neighbors(s) != 0 ? -1 : 0;
}

/* The surface flags were set in the order of the sort at x*; the
 * rebuild after the correction sorts the particles again, so the flags
 * (a frame's mps_surface) follow them, through nd (free until the next
 * step's density), and the two buffers swap. */
static int resort_surface(fcl_sim *s, mps *d)
{
    if (pass_grid_gather_u32(s->be, s->n, "density", s->grid.order, d->surf, d->nd) != 0)
        return -1;
    fcl_buf *t = d->surf;
    d->surf = d->nd;
    d->nd = t;
    return 0;
}

/* Whether a phase is compressible (sound_speed > 0: mps_compress). */
static int compressible(const fcl_sim *s)
{
    for (uint k = 0; k < s->nphases; k++)
        if (s->phase_table[k].sound_speed > 0.0)
            return 1;
    return 0;
}

/* The surface particles (one scalar read per step): none means every
 * row of A sums to zero, a singular system (a closed box full of
 * fluid), which is refused rather than iterated on, unless particles of
 * a compressible phase pin their rows (a second read, only then: a
 * closed tank of liquid under gas runs). */
static int count_surface(fcl_sim *s, mps *d)
{
    double pinned = 0.0;
    if (reduction_sum(&d->nsurf, s->be, d->surf, s->n, "assemble") != 0 ||
        reduction_read(&d->nsurf, s->be, &d->surface) != 0)
        return -1;
    if (d->surface < 0.5 && compressible(s) &&
        (pass_mps_pinned(s->be, s->n, "assemble", sim_attr(s, s->a_pos), d->surf, s->phases, d->dx, d->consts) != 0 ||
         reduction_sum(&d->nsurf, s->be, d->dx, s->n, "assemble") != 0 ||
         reduction_read(&d->nsurf, s->be, &pinned) != 0))
        return -1;
    if (d->surface < 0.5 && pinned < 0.5 && d->short_since) {
        /* Not a closed volume: solves cut short let the fluid compress
         * until no particle was below beta n0 (a review: mps.cg_max_iter 1
         * ran 177 steps to a 279 % density error, then blamed the fill). */
        snprintf(s->error, sizeof s->error,
                 "mps: no particle has n* < mps.beta n0 (%g) any more: every pressure solve since step %ld stopped "
                 "at mps.cg_max_iter = %ld short of mps.cg_tolerance, and the fluid compressed (average density "
                 "error %.3g %%); raise mps.cg_max_iter", s->prm->mps_beta, d->short_since,
                 (long)s->prm->mps_cg_max_iter, s->stats.avg_density_err);
        return -1;
    }
    if (d->surface < 0.5 && pinned < 0.5) {
        snprintf(s->error, sizeof s->error,
                 "mps: no particle has n* < mps.beta n0 (%g): without a free surface the pressure equation is "
                 "singular (a closed volume full of fluid?); lower the fill or raise mps.beta",
                 s->prm->mps_beta);
        return -1;
    }
    return 0;
}

/* The preconditioner asked for, or Jacobi where it cannot run: `grid`
 * without its coarse level, `poly` with wall unknowns (they offer no
 * sweep). The scene check refuses both at the start; the viewer's panel
 * can still choose them live, and the run goes on with Jacobi. */
static fcl_pcg_opts pcg_opts(const fcl_sim *s)
{
    const fcl_params *p = s->prm;
    mps *d = s->solver_data;
    fcl_pcg_opts o = { p->mps_cg_tolerance, p->mps_cg_max_iter, fcl_pcg_check_interval(s->be, p->mps_cg_check_every, 4),
                       strcmp(p->mps_preconditioner, "poly") == 0 && !d->walls.on   ? FCL_PRECOND_POLY
                       : mps_coarse_wanted(s) && d->coarse.on                         ? FCL_PRECOND_OP
                                                                                    : FCL_PRECOND_JACOBI,
                       (int)p->mps_poly_degree, 1 };
    return o;
}

/* The matrix products for pcg.c: the fluid rows over the lists'
 * weights, and with wall unknowns the walls' rows and terms. */
static int op_matvec(void *ctx, fcl_buf *x, fcl_buf *y)
{
    fcl_sim *s = ctx;
    mps *d = s->solver_data;
    return pass_mps_matvec(s->be, s->n, "pressure-solve", x, y, d->diag, COEF(s, d), s->nl.fcount, s->nl.fidx,
                           s->nl.fl, d->surf) != 0 ||
                   mps_walls_matvec(&d->walls, s, d->surf, d->rhob, d->diag, x, y, &d->consts) != 0
               ? -1
               : 0;
}

static int op_sweep(void *ctx, fcl_buf *zin, fcl_buf *zout, fcl_buf *r)
{
    fcl_sim *s = ctx;
    mps *d = s->solver_data;
    return pass_mps_cg_sweep(s->be, s->n, "pressure-solve", zin, zout, r, d->diag, COEF(s, d), s->nl.fcount,
                             s->nl.fidx, s->nl.fl, d->surf);
}

static int op_coarse(void *ctx, fcl_buf *r, fcl_buf *z)
{
    fcl_sim *s = ctx;
    mps *d = s->solver_data;
    return mps_coarse_apply(&d->coarse, s, r, z, d->diag, d->surf);
}

/* The system: n fluid rows, then the walls' (the polynomial
 * preconditioner's sweep and the grid's coarse level cover the fluid
 * rows only, so they are offered without wall unknowns). */
static fcl_pcg_op pcg_op(fcl_sim *s, mps *d)
{
    fcl_pcg_op A = { s->n + (d->walls.on ? d->walls.nb : 0), d->diag, op_matvec, d->walls.on ? NULL : op_sweep, s,
                     "pressure-solve", d->coarse.on ? op_coarse : NULL };
    return A;
}

/* Fluid no free surface reaches (sealed.c) stops the run as a closed box
 * does, rather than churning: looked for after the run's first solve
 * (whether a singular block converges depends on rounding: one did on
 * PoCL and not natively), and after one that did not converge, at most
 * every 50 steps (it reads the lists back). */
static int sealed(fcl_sim *s, mps *d)
{
    char msg[600];
    int first = d->sealed_checked == 0;
    if (!first && (fcl_pcg_done(&d->last) || s->step < d->sealed_checked + 50))
        return 0;
    d->sealed_checked = s->step + 1;
    int rc = mps_sealed_region(s, d->surf, d->walls.on, msg, sizeof msg);
    if (rc == 1 && fcl_pcg_done(&d->last))
        snprintf(s->error, sizeof s->error, "mps: %s", msg);
    else if (rc == 1)
        snprintf(s->error, sizeof s->error, "mps: the pressure solve stopped at |r|/|b| = %.3g: %s",
                 d->last.rel_resid, msg);
    else if (rc < 0)
        snprintf(s->error, sizeof s->error, "mps: reading the lists back to look for fluid no free surface reaches "
                 "failed");
    return rc == 0 ? 0 : -1;
}

/* The pressure equation on the device; a solve that stops at
 * mps.cg_max_iter is said once on stderr and shows in the stats. With
 * wall unknowns the solve runs on xall, the fluid's part copied from and
 * back to the pressure attribute. */
static int solve(fcl_sim *s, mps *d)
{
    fcl_buf *p = sim_attr(s, d->a_p), *x = d->walls.on ? d->xall : p;
    /* mps.preconditioner is live: the coarse level is made the first time
     * a solve wants it (mps_coarse_init does nothing otherwise), before
     * the operator that offers it is taken (once after, and the step of
     * a switch to grid ran Jacobi: a review). */
    if (mps_coarse_wanted(s)) {
        char err[256] = "";
        if (!d->coarse.on && mps_coarse_init(&d->coarse, s, d->walls.on, err, sizeof err) != 0) {
            snprintf(s->error, sizeof s->error, "%s", err);
            return -1;
        }
        if (mps_coarse_setup(&d->coarse, s, d->surf, d->consts.lap_k) != 0)
            return -1;
    }
    fcl_pcg_opts o = pcg_opts(s);
    fcl_pcg_op A = pcg_op(s, d);
    if (d->walls.on && pass_mps_copy(s->be, s->n, "pressure-solve", p, x, 0u, 0u) != 0)
        return -1;
    if (!s->prm->mps_warm_start && fcl_pcg_zero(s->be, x, A.rows, A.timer) != 0)
        return -1;
    if (fcl_pcg_solve(&d->cg, s->be, &A, x, d->rhs, &o, &d->last, s->error, sizeof s->error) != 0)
        return -1;
    if (d->walls.on && pass_mps_copy(s->be, s->n, "pressure-solve", x, p, 0u, 0u) != 0)
        return -1;
    if (sealed(s, d) != 0)
        return -1;
    d->short_since = fcl_pcg_done(&d->last) ? 0 : d->short_since ? d->short_since : s->step + 1;
    fcl_pcg_warn(&d->last, &o, "mps", "pressure", s->step + 1, &d->warned);
    return 0;
}

static int mps_prepare(fcl_sim *s)
{
    mps *d = s->solver_data;
    return choose_dt(s, d) != 0 || rebuild(s) != 0 || launch_finish(s, d) != 0 ? -1 : 0;
}

enum { STAT_ITERS, STAT_RESID, STAT_SURFACE, STAT_SHORT, NSTATS };
static const fcl_stat_decl mps_stats[NSTATS] = {
    { "cg_iterations", "CG iterations", "", FCL_FOLD_MEAN },
    { "cg_residual", "CG |r|/|b|", "", FCL_FOLD_MAX },
    { "surface", "surface particles", "", FCL_FOLD_MEAN },
    /* A pressure left short: a warning says the first, this counts all. */
    { "short_solves", "solves cut short", "", FCL_FOLD_SUM },
};

static int mps_step(fcl_sim *s)
{
    mps *d = s->solver_data;
    if (choose_dt(s, d) != 0 || launch_viscosity(s, d) != 0 || launch_predict(s, d) != 0 || rebuild(s) != 0 ||
        collide(s, d) != 0 || launch_density(s, d) != 0 ||
        count_surface(s, d) != 0 || launch_assemble(s, d) != 0 || solve(s, d) != 0 || launch_correct(s, d) != 0 ||
        launch_apply(s, d) != 0 || rebuild(s) != 0 || resort_surface(s, d) != 0 || launch_finish(s, d) != 0)
        return -1;
    s->stats.solver[STAT_ITERS] = (double)d->last.iters;
    s->stats.solver[STAT_RESID] = d->last.rel_resid;
    s->stats.solver[STAT_SURFACE] = d->surface;
    s->stats.solver[STAT_SHORT] = (double)!fcl_pcg_done(&d->last);
    return 0;
}

int mps_resolve(fcl_sim *s, const fcl_pcg_opts *o, fcl_pcg_result *res, char *err, size_t errlen)
{
    mps *d = s->solver_data;
    if (!s->solver || strcmp(s->solver->name, "mps") != 0 || !d) {
        snprintf(err, errlen, "mps_resolve needs the mps solver");
        return -1;
    }
    fcl_buf *x = d->walls.on ? d->xall : sim_attr(s, d->a_p);
    fcl_pcg_op A = pcg_op(s, d);
    if (fcl_pcg_zero(s->be, x, A.rows, A.timer) != 0 || mps_coarse_setup(&d->coarse, s, d->surf, d->consts.lap_k) != 0)
        return -1;
    /* A solve of its own: without the run's stall floor, which it leaves
     * as it was (one resolve's stall once cut the next one short). */
    unsigned char keep[FCL_PCG_STATE_BYTES];
    fcl_pcg_state_save(&d->cg, keep);
    d->cg.floor = 0.0;
    int rc = fcl_pcg_solve(&d->cg, s->be, &A, x, d->rhs, o, res, err, errlen);
    fcl_pcg_state_load(&d->cg, keep);
    return rc;
}

int mps_system(fcl_sim *s, float *diag, float *rhs, float *x, float *coef)
{
    mps *d = s->solver_data;
    fcl_backend *be = s->be;
    size_t entries = (size_t)s->nl.fl.cap * s->n;
    return be->ops->buf_read(be, d->diag, 0, s->n * 4, diag) | be->ops->buf_read(be, d->rhs, 0, s->n * 4, rhs) |
           be->ops->buf_read(be, sim_attr(s, d->a_p), 0, s->n * 4, x) |
           be->ops->buf_read(be, COEF(s, d), 0, entries * 4, coef);
}

int mps_sealed(fcl_sim *s, char *msg, size_t len)
{
    mps *d = s->solver_data;
    return mps_sealed_region(s, d->surf, d->walls.on, msg, len);
}

const fcl_mps_consts *mps_consts(const fcl_sim *s)
{
    return &((const mps *)s->solver_data)->consts;
}

/* Lists within the larger radius, in support radii h. */
static double mps_list_radius(const fcl_params *p)
{
    double re = fmax(p->mps_re_density, p->mps_re_laplacian);
    return re / p->particles_support;
}

/* Its particle fields: the free-surface flag of the pressure equation. */
static fcl_buf *field_surface(fcl_sim *s)
{
    return ((mps *)s->solver_data)->surf;
}

/* The phase index (frames store it: seed 002's several fluids). */
static fcl_buf *field_phase(fcl_sim *s)
{
    mps *d = s->solver_data;
    return pass_mps_phase_of(s->be, s->n, "output", sim_attr(s, s->a_pos), d->phase) == 0 ? d->phase : NULL;
}

enum { NFIELDS = 2 };
static const fcl_field_decl mps_fields[NFIELDS] = {
    { "mps_surface", "MPS free surface (p = 0)", 0.0f, 1.0f, field_surface },
    { "phase", "fluid phase", 0.0f, 0.0f, field_phase },
};

static void mps_destroy(fcl_sim *s)
{
    mps *d = s->solver_data;
    if (!d)
        return;
    fcl_buf *bufs[] = { d->nd, d->surf, d->diag, d->rhs, d->dx, d->phase, d->rhob, d->xall };
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i])
            s->be->ops->buf_free(s->be, bufs[i]);
    mps_walls_free(&d->walls, s);
    mps_coarse_free(&d->coarse, s);
    reduction_free(&d->nsurf, s->be);
    fcl_pcg_free(&d->cg, s->be);
    free(d);
    s->solver_data = NULL;
}

/* The pressure solve's stall floor (pcg.h): it decides restarts, so a
 * resumed run takes the same iterations as one run on. */
static size_t mps_save(fcl_sim *s, void *blob, size_t cap)
{
    const mps *d = s->solver_data;
    if (cap < FCL_PCG_STATE_BYTES)
        return FCL_SAVE_FAILED;
    fcl_pcg_state_save(&d->cg, blob);
    return FCL_PCG_STATE_BYTES;
}

static int mps_load(fcl_sim *s, const void *blob, size_t bytes, char *why, size_t whylen)
{
    mps *d = s->solver_data;
    if (bytes != FCL_PCG_STATE_BYTES) {
        snprintf(why, whylen, "it holds %zu bytes of solver state, mps writes %d", bytes, FCL_PCG_STATE_BYTES);
        return -1;
    }
    fcl_pcg_state_load(&d->cg, blob);
    return 0;
}

/* Its Courant step's floor and bounds (the emitters' checks and capacity
 * default). */
static void mps_step_floor(const fcl_params *p, double *cfl, double *dt_min, double *dt_max)
{
    *cfl = p->mps_cfl, *dt_min = p->mps_dt_min, *dt_max = p->mps_dt_max;
}

/* The shared parameters it does not read, and what it has in their place. */
static const fcl_ignored ignores[] = {
    { FCL_P_sim_dt, "its own step: mps.cfl, mps.dt_min, mps.dt_max (a step with no particles, before an emitter's first layer, takes mps.dt_max)" },
    { FCL_P_material_stiffness, "its pressure Poisson equation, no equation of state" },
    { FCL_P_material_negative_pressure, "mps.clamp_negative" },
    { FCL_P_COUNT, NULL },
};

const fcl_solver fcl_solver_mps = {
    .ignores = ignores,
    .step_floor = mps_step_floor,
    .name = "mps",
    .blowup_advice = "lower mps.dt_max or mps.cfl, or raise material.viscosity (with phases, their own viscosity, or a gas phase's sound_speed)",
    .kernels = "re/r - 1",
    .summary = "Koshizuka & Oka 1996 moving particle semi-implicit (w = re/r - 1, pressure Poisson equation "
               "by preconditioned conjugate gradients on the device, free surface n* < beta n0, Courant step)",
    /* the pressure attribute (two buffers), nd, surf, diag, rhs, phase,
     * rhob, dx, the CG's seven vectors, the coarse level's cell */
    .extra_bytes_per_particle = 2 * 4 + 6 * 4 + 16 + 7 * 4 + 4,
    .init = mps_init,
    .prepare = mps_prepare,
    .step = mps_step,
    .destroy = mps_destroy,
    .save = mps_save,
    .load = mps_load,
    .derive = mps_derive,
    .list_radius = mps_list_radius,
    .list_entry_bytes = 4,               /* the matrix weight per fluid entry */
    .stats = mps_stats,
    .nstats = NSTATS,
    .fields = mps_fields,
    .nfields = NFIELDS,
    .boundary_tags = 1,                  /* bpos.w: layer tags (every layer completes n*) */
    .boundary_images = 1,                /* an obstacle at a mirror wall: n* ~0.96 n0 without */
    .max_phases = FCL_PHASES_MAX,        /* phases of their own density and viscosity */
    .check = mps_check,                  /* wall parameters (walls.c) */
    .check_fluid = mps_check_fluid,      /* the viscosities' step bounds (walls.c) */
    .emit_room = 0.4,                    /* backed-up inflow: n feels a pair at a third of a spacing (emit.c) */
    /* A rate's layers packed closer are compressed fluid, which the
     * pressure equation blows apart: a 1 m/s jet of layers 0.8 spacings
     * apart reached 27 m/s, 0.67 blew up at step 182; 0.86 ran as 1. */
    .rate_gap = 0.9,
    .rate_why = "closer they are compressed fluid, which its pressure blows apart",
};
