/* dfsph.c - Bender & Koschier 2015: divergence-free SPH. Each step:
 *   CFL time step -> Akinci normals (if that tension model is selected)
 *   -> predict v* (gravity, surface tension, viscosity, XSPH) -> density solver (warm
 *   start, Jacobi until the average density error < eta) -> advect ->
 *   grid rebuild and neighbor lists -> density and alpha -> divergence solver (warm start,
 *   until the average density change rate < eta_v / dt) -> v.
 * Passes in kernels/dfsph.cl; walls and obstacles are boundary particles
 * (kernels/boundary.cl) with cubic-spline volumes, or mirror images.
 * Status: stable on every scene tried, backends agree; see the README for
 * what the hydrostatic and obstacle tests measure against the targets.
 * Invariant: between steps rho and alpha match the current positions, and
 * ksum / kvsum (grid attributes, so they follow the particles through the
 * sort) hold last step's accumulated pressure values for the warm start.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reduce.h"
#include "reduction.h"
#include "passes.h"
#include "sim.h"
#include "smoothing.h"

enum { TABLE_N = 1001 };   /* samples per table: dq = 1/1000 */
/* Warm start: each solver begins from last step's total pressure value,
 * the divergence solver from all of it, as in the paper, the density
 * solver from the share dfsph.warm_share (0.85). In full, the totals carry
 * each step's leftover errors into the next with no damping, like a
 * spring: a 1,500-particle pool at 2 cm kept a mean speed of 0.032 m/s
 * over 5 s (0.08 with mirror walls), and test_dfsph's 12.5 mm column had
 * 922 of 1,536 particles faster than 5 cm/s at 1.65 s. At 0.85 the pool is at
 * 0.0088 (0.0077) after 5 s and the column has none that fast. At rest
 * that costs about 1.4 times the steps per simulated second (the
 * iteration-aware step shrinks from 1.7 to 1.2 ms); DamBreakModel took
 * the same 1,139 steps to 1.5 s. Below 0.8 Jacobi must rebuild too much
 * of the smooth hydrostatic pressure each step and hits max_iter (README,
 * Notes on the physics). The divergence solver's share made no
 * difference there.
 * The updates are projected Jacobi steps on
 * that total (kernels/dfsph.cl), so a pressure no longer needed (a splash
 * that has passed) is taken back by the iterations instead of lingering.
 * Jacobi on the SPH pressure matrix is not diagonally dominant, so signed
 * updates are relaxed (IISPH's omega = 0.5): at omega = 1 a resting
 * column (spacing 12.5 mm, dt 5 ms) blew up within 0.25 s. Measured on
 * that column at dt 1 ms, against the earlier scheme (half of the total,
 * only where compressed, increments >= 0): 3.6 instead of 10.2 density
 * iterations per step and 0.004 % instead of 0.008 % average error.
 * A wider support gives each row more neighbors of neighbors, and 0.5 no
 * longer held: on the 2 cm dam break the largest omega that ran was 0.4 at
 * a support of 2.5 spacings, 0.3 at 3 and between 0.1 and 0.2 at 4. So
 * omega = 0.5 (2 / support)^2 above 2 spacings (0.32, 0.22, 0.125 there),
 * and 0.5 at and below 2, where it always ran (README, Notes on the
 * physics). */
static float relaxation(double support)
{
    double r = support > 2.0 ? 2.0 / support : 1.0;
    return (float)(0.5 * r * r);
}

typedef struct dfsph {
    int a_ksum, a_kvsum;                 /* grid attributes */
    fcl_buf *alpha, *kap, *err, *vpred, *vmove, *table;
    int p_fg, p_fw;                      /* list planes: gradient factors and
                                            W (fluid), from density_alpha */
    fcl_buf *bgrad;                      /* sum_b V_b grad W_ib (float4) and */
    fcl_buf *nin;                        /* neighbors in range, likewise */
    fcl_dfsph_consts consts;
    double dt_prev;                      /* last step's dt, 0 before the first */
    double dt_cap;                       /* the iteration-aware bound (adapt_cap) */
    float rho0_density;                  /* the rest density s->rho was summed with */
    fcl_reduction sum;                   /* the average error's sum */
    long short_solves;                   /* density solves cut at max_iter, unconverged */
    int short_warned;                    /* their warning said */
} dfsph;

static int dfsph_init(fcl_sim *s, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    fcl_backend *be = s->be;
    dfsph *d = calloc(1, sizeof *d);
    if (!d)
        return -1;
    s->solver_data = d;
    size_t n = s->cap;                    /* buffers for the capacity */
    d->a_ksum = grid_add_attr(&s->grid, be, "density solver warm start", 4);
    d->a_kvsum = grid_add_attr(&s->grid, be, "divergence solver warm start", 4);
    d->alpha = be->ops->buf_new(be, n * 4, "DFSPH alpha");
    d->kap = be->ops->buf_new(be, n * 4, "DFSPH kappa");
    d->err = be->ops->buf_new(be, n * 4, "DFSPH error");
    d->vpred = be->ops->buf_new(be, n * 16, "DFSPH predicted velocity");
    d->vmove = be->ops->buf_new(be, n * 16, "DFSPH velocity the advect realises");
    d->table = be->ops->buf_new(be, 2 * TABLE_N * 4, "cubic spline tables");
    d->p_fg = nlist_add_plane(&s->nl, be, 0, "DFSPH gradient factors");
    d->p_fw = nlist_add_plane(&s->nl, be, 0, "DFSPH kernel values");
    d->bgrad = be->ops->buf_new(be, n * 16 + 16, "DFSPH boundary gradient sums");
    d->nin = be->ops->buf_new(be, n * 4 + 4, "DFSPH neighbors in range");
    if (d->a_ksum < 0 || d->a_kvsum < 0 || !d->alpha || !d->kap || !d->err || !d->vpred || !d->vmove ||
        !d->table || d->p_fg < 0 || d->p_fw < 0 || !d->bgrad || !d->nin || reduction_init(&d->sum, be, n) != 0)
        return -1;
    float tab[2 * TABLE_N];
    unsigned full;
    smoothing_cubic_tables(s->h, TABLE_N, tab, tab + TABLE_N);
    d->consts.inv_h = 1.0f / s->h;
    d->consts.k = smoothing_cubic_k(s->h);
    d->consts.l = smoothing_cubic_l_over_h2(s->h);
    /* V such that a particle inside a resting lattice has rhat = 1. */
    d->consts.volume = (float)(1.0 / smoothing_lattice_sum_of(1, s->h, s->spacing, &full));
    /* SPlisHSPlasH skips the divergence solve below 20 neighbors at
     * h = 2 spacings (33 in a full lattice): the same fraction here. */
    d->consts.min_neighbors = (uint)(0.6 * full);
    d->consts.table_n = TABLE_N;
    d->consts.omega = relaxation(s->prm->particles_support);
    sim_update_consts(s);
    if (be->ops->buf_write(be, d->table, 0, sizeof tab, tab) != 0)
        return -1;
    return sim_boundary_volumes(s, 1u, d->consts.k);
}

/* Average of err[] over the particles: the device's sum (reduction.h),
 * read back for the stop test, and combined across processes. */
static int average(fcl_sim *s, dfsph *d, double *avg)
{
    double sum = 0.0;
    if (reduction_sum(&d->sum, s->be, d->err, s->n, "dfsph-reduce") != 0 || reduction_read(&d->sum, s->be, &sum) != 0)
        return -1;
    *avg = sum / fcl_reduce_sum((double)s->n);   /* sum: combined by reduction_read */
    return 0;
}

/* One thin launcher per pass (kernels/dfsph.cl, declared in
 * kernels/passes.def); the neighbor passes read the step's lists. */
#define HOOD(s) (s)->nl.fcount, (s)->nl.fidx, (s)->nl.bcount, (s)->nl.bidx, (s)->nl.fl, (s)->nl.bl
/* The list planes (looked up per launch: a list growth replaces them). */
#define FG(s, d) nlist_plane(&(s)->nl, 0, (d)->p_fg)
#define FW(s, d) nlist_plane(&(s)->nl, 0, (d)->p_fw)

static int launch_density_alpha(fcl_sim *s, dfsph *d)
{
    d->rho0_density = s->c.rest_density;
    return pass_dfsph_density_alpha(s->be, s->n, "density", sim_attr(s, s->a_pos), sim_bpos(s), HOOD(s), FG(s, d),
                                    FW(s, d), d->bgrad, d->nin, s->rho, d->alpha, d->table, s->c, d->consts);
}

static int launch_predict(fcl_sim *s, dfsph *d)
{
    return pass_dfsph_predict(s->be, s->n, "forces", sim_attr(s, s->a_pos), sim_attr(s, s->a_vev), s->rho, s->normals,
                              d->vpred, s->nl.fcount, s->nl.fidx, s->nl.fl, FW(s, d), FG(s, d), s->c, d->consts);
}

static int launch_source(fcl_sim *s, dfsph *d, fcl_buf *v, fcl_buf *ksum, uint mode, const char *timer)
{
    return pass_dfsph_source(s->be, s->n, timer, sim_attr(s, s->a_pos), v, s->rho, d->alpha, s->nl.fcount, s->nl.fidx,
                             s->nl.fl, FG(s, d), d->bgrad, d->nin, d->kap, ksum, d->err, s->c, d->consts, mode);
}

/* The density solver's (moved) also writes the velocity the advect will
 * realise into vmove, which its source passes read (dfsph.cl's
 * dfsph_move). */
static int launch_pressure_vel(fcl_sim *s, dfsph *d, fcl_buf *v, fcl_buf *ksum, float f, uint moved,
                               const char *timer)
{
    return pass_dfsph_pressure_vel(s->be, s->n, timer, sim_attr(s, s->a_pos), v, d->vmove, d->kap, ksum,
                                   s->nl.fcount, s->nl.fidx, s->nl.fl, FG(s, d), d->bgrad, s->solids, s->c, d->consts,
                                   f, moved);
}

static int launch_advect(fcl_sim *s, dfsph *d)
{
    return pass_dfsph_advect(s->be, s->n, "integrate", sim_attr(s, s->a_pos), d->vpred, sim_attr(s, s->a_vev),
                             s->solids, s->c, d->consts);
}

static int launch_pressure(fcl_sim *s, dfsph *d)
{
    return pass_dfsph_pressure(s->be, s->n, "integrate", sim_attr(s, d->a_ksum), sim_attr(s, d->a_kvsum), s->prs, s->c,
                               d->consts);
}

/* Grid rebuild, then the lists every neighbor pass of the step reads. */
static int rebuild(fcl_sim *s)
{
    return grid_build(&s->grid, s->be, s->a_pos) != 0 || sim_neighbors(s) != 0 ? -1 : 0;
}

/* One of the two pressure solvers on velocities v (mode DFSPH_DENSITY or
 * DFSPH_DIVERGENCE): the warm start (last step's total, the density
 * solver's times dfsph.warm_share), then projected
 * Jacobi iterations until the average compression is below `limit`, at
 * least min_iter (density) or min_iter_v (divergence) of them. Each iteration
 * applies the k of the last error measured and measures again, so the
 * loop stops on the error of the velocities it leaves. */
static int solve(fcl_sim *s, dfsph *d, fcl_buf *v, int ksum_attr, uint mode, double limit, long *iters,
                 double *avg)
{
    const fcl_params *p = s->prm;
    const char *timer = mode == DFSPH_DENSITY ? "density-solve" : "divergence-solve";
    float f = mode == DFSPH_DENSITY ? 1.0f / d->consts.dt : 1.0f;
    uint moved = mode == DFSPH_DENSITY;
    fcl_buf *vs = moved ? d->vmove : v;   /* what the source passes read */
    fcl_buf *ksum = sim_attr(s, ksum_attr);
    /* Last step's total was applied over dt_prev: the same pressure now
     * needs k scaled by (dt/dt_prev)^2 (density) or dt/dt_prev. */
    double ratio = d->dt_prev > 0.0 ? d->consts.dt / d->dt_prev : 1.0;
    d->consts.warm = (float)(mode == DFSPH_DENSITY ? p->dfsph_warm_share * ratio * ratio : ratio);
    if (launch_source(s, d, vs, ksum, mode | DFSPH_WARM, timer) != 0 ||
        launch_pressure_vel(s, d, v, ksum, f, moved, timer) != 0 || launch_source(s, d, vs, ksum, mode, timer) != 0)
        return -1;
    /* The error is measured (a reduction and a read-back, which drains
     * the device's queue) only where it decides: below min_iter the loop
     * goes on whatever it is. */
    long least = mode == DFSPH_DENSITY ? p->dfsph_min_iter : p->dfsph_min_iter_v;
    for (*iters = 0;; ++*iters) {
        int decide = *iters >= least || *iters >= p->dfsph_max_iter;
        if (decide && average(s, d, avg) != 0)
            return -1;
        if (decide && (!(*avg > limit) || *iters >= p->dfsph_max_iter))
            return 0;
        if (launch_pressure_vel(s, d, v, ksum, f, moved, timer) != 0 ||
            launch_source(s, d, vs, ksum, mode, timer) != 0)
            return -1;
    }
}

/* The iteration-aware bound, after SPlisHSPlasH's "CFL - iterations"
 * time step: Jacobi carries pressure one neighborhood per iteration, so a
 * step that needs many iterations (a column starting from rest must build
 * its whole hydrostatic pressure) is too long for the solver whatever
 * the CFL number says, and one that stopped at max_iter left its error
 * uncorrected. Above dfsph.iter_target iterations the bound shrinks 10 %
 * (halves at max_iter), below half of it grows 10 % (from the step taken
 * where another bound held it below), up to dt_max. The
 * first step's bound is FIRST_STEP_FRACTION of dt_max. */
#define FIRST_STEP_FRACTION 0.125

static void adapt_cap(dfsph *d, const fcl_params *p, long iters, int converged)
{
    long target = p->dfsph_iter_target;
    double dt = d->consts.dt;
    if (target <= 0)
        return;
    if (d->dt_cap <= 0.0)
        d->dt_cap = FIRST_STEP_FRACTION * p->dfsph_dt_max;
    /* Only a solve that stopped at max_iter unconverged halves the bound
     * (with max_iter = min_iter every solve stops there, and the step once
     * sank to dt_min for good), and iterations dfsph.min_iter imposes say
     * nothing of the step (above the target they shrank it every step,
     * down to dt_min at min_iter 20): a solve converged at its least is
     * an easy one (reviews). */
    long least = p->dfsph_min_iter;
    if (iters >= p->dfsph_max_iter && !converged)
        d->dt_cap = 0.5 * dt;
    else if (iters > (target > least ? target : least))
        d->dt_cap = 0.9 * dt;
    else if (2 * iters < target || (converged && iters <= least))
        /* Easy at the step taken, not at the bound when another one held
         * the step below it: the bound grew to dfsph.dt_max while a
         * viscosity held the step at dfsph.dt_min (a review). */
        d->dt_cap = fmin(dt >= (1.0 - 1e-6) * d->dt_cap ? 1.1 * d->dt_cap : fmax(d->dt_cap, 1.1 * dt),
                         p->dfsph_dt_max);
}

/* Adaptive step by the CFL condition on last step's largest speed plus
 * what gravity can add in one step, the viscous bound, within the
 * iteration-aware bound. A Courant step under dfsph.dt_min stops a step
 * (floor set) as pbf's and mps's do: held at the floor, a cube thrown at
 * 1500 m/s ran at 1.39 times dfsph.cfl with exit 0 (a review); the step
 * a prepare() chooses is only held there. -1 with s->error, or 0. */
#define VISC_STEP 0.125
static int choose_dt(fcl_sim *s, dfsph *d, int floor)
{
    const fcl_params *p = s->prm;
    double v = sim_courant_speed(s, p->dfsph_dt_max), dt = p->dfsph_dt_max;
    const char *by = NULL;   /* what set dt, where not the speed */
    if (v > 1e-9)
        dt = p->dfsph_cfl * s->spacing / v;
    s->dt_floor_key[0] = '\0';   /* this step's holds, not the last's, for the blow-up's advice */
    if (floor && sim_step_floor(s, dt, p->dfsph_dt_min, p->dfsph_dt_max, "dfsph") != 0)
        return -1;
    /* The explicit viscosity's bound (Monaghan: 0.125 h^2 / nu with h the
     * spacing): measured, a Taylor-Green cell at 1 cm spacing and nu 0.01
     * blew up at the 2 ms step it allows 1.25 ms for. */
    double visc = p->dfsph_viscosity > 0.0 ? VISC_STEP * s->spacing * s->spacing / p->dfsph_viscosity : INFINITY;
    if (visc < dt)
        dt = visc, by = "dfsph.viscosity";
    double cap = d->dt_cap > 0.0 ? d->dt_cap : FIRST_STEP_FRACTION * p->dfsph_dt_max;
    if (p->dfsph_iter_target > 0 && cap < dt)
        dt = cap, by = NULL;
    /* Capillary waves: a 2 mm cube at 0.1 mm spacing blew up in its first
     * step, 13 times over this bound (at 2 cm it is 0.13 s, never met). */
    double capillary = sim_capillary_dt(s);
    if (capillary < dt)
        dt = capillary, by = "material.surface_tension";
    /* A bound under dfsph.dt_min is overruled; a blow-up then says so
     * (a viscosity raised live past dfsph_check's bound blew up, told to
     * lower dfsph.dt_max); dt_floor_key was cleared above. */
    dt = fmin(sim_hold_floor(s, dt, p->dfsph_dt_min, "dfsph.dt_min", by), p->dfsph_dt_max);
    d->consts.dt = (float)dt;
    s->c.dt = (float)dt;
    s->dt_used = (float)dt;
    return 0;
}

/* The particle mass V rho0 (the tension models in kernels/forces.cl read
 * it from the consts) and the live parameters of DFSPH's own constants. */
static void dfsph_derive(fcl_sim *s)
{
    dfsph *d = s->solver_data;
    if (!d)
        return;
    s->c.mass = d->consts.volume * s->prm->material_rest_density;
    d->consts.xsph = s->prm->dfsph_xsph;
    d->consts.visc = 10.0f * s->prm->dfsph_viscosity;   /* 2 (dim + 2), dim = 3 */
    d->consts.use_table = s->prm->dfsph_tables ? 1u : 0u;
}

static int dfsph_prepare(fcl_sim *s)
{
    dfsph *d = s->solver_data;
    choose_dt(s, d, 0);
    return (rebuild(s) != 0 || launch_density_alpha(s, d) != 0) ? -1 : 0;
}

/* The statistics this solver reports (sim.h's stats.solver[], in this
 * order): run's CSV, the summary and bench read them from here. */
enum { STAT_DENSITY_ITERS, STAT_DIVERGENCE_ITERS, STAT_DIVERGENCE_ERR, NSTATS };
static const fcl_stat_decl dfsph_stats[NSTATS] = {
    { "density_iterations", "density iters", "", FCL_FOLD_MEAN },
    { "divergence_iterations", "divergence iters", "", FCL_FOLD_MEAN },
    { "avg_divergence_error_pct_per_s", "avg div err", "%/s", FCL_FOLD_MEAN },
};

/* The SHORT_SOLVES-th density solve of a run cut at dfsph.max_iter short
 * of dfsph.eta is warned of, once: a closed volume exactly full of fluid
 * cannot meet it (every disorder raises its average density), and its
 * pressures fed energy in without a word (a Taylor-Green cell in mirror
 * walls: 4.84 m/s from 0.1 with exit 0, its solves cut in runs of about
 * 4, each followed by a halved step; a review). The dam break of
 * test_dfsph cuts none at the defaults (2 in 379 steps at iter_target 0). */
enum { SHORT_SOLVES = 10 };

static void warn_short(fcl_sim *s, dfsph *d, long iters, int converged, double avg)
{
    const fcl_params *p = s->prm;
    d->short_solves += iters >= p->dfsph_max_iter && !converged;
    if (d->short_solves < SHORT_SOLVES || d->short_warned)
        return;
    d->short_warned = 1;
    fprintf(stderr, "fluidcl: warning: dfsph: step %ld: the %dth density solve of the run stopped at dfsph.max_iter = "
            "%ld short of dfsph.eta = %g %% (average error %.3g %%): in a closed volume exactly full of fluid such solves "
            "feed energy in (README, Known limits; leave it room, or use wcsph there); elsewhere raise dfsph.max_iter "
            "or lower dfsph.cfl; said once\n", s->step + 1, SHORT_SOLVES, (long)p->dfsph_max_iter,
            p->dfsph_eta, 100.0 * avg);
}

static int dfsph_step(fcl_sim *s)
{
    dfsph *d = s->solver_data;
    double *st = s->stats.solver;
    double avg = 0.0, eta = s->prm->dfsph_eta * 0.01;
    long dens = 0, div = 0;
    if (choose_dt(s, d, 1) != 0)
        return -1;
    /* A rest density changed live: s->rho, summed with the old one, read
     * as a compression of rho0 / rho0' - 1 everywhere (10 % less threw a
     * resting block to 16 m/s at the next step; a review). Measured again
     * from the same positions, as the last step's end did. */
    if (d->rho0_density != s->c.rest_density && launch_density_alpha(s, d) != 0)
        return -1;
    if (sim_normals(s) != 0 || launch_predict(s, d) != 0 ||
        solve(s, d, d->vpred, d->a_ksum, DFSPH_DENSITY, eta, &dens, &avg) != 0)
        return -1;
    int converged = !(avg > eta);
    warn_short(s, d, dens, converged, avg);
    if (launch_advect(s, d) != 0 || rebuild(s) != 0 || launch_density_alpha(s, d) != 0 ||
        solve(s, d, sim_attr(s, s->a_vev), d->a_kvsum, DFSPH_DIVERGENCE, s->prm->dfsph_eta_v * 0.01 / d->consts.dt, &div,
              &avg) != 0 ||
        launch_pressure(s, d) != 0)
        return -1;
    d->dt_prev = d->consts.dt;
    adapt_cap(d, s->prm, dens, converged);
    st[STAT_DENSITY_ITERS] = (double)dens;
    st[STAT_DIVERGENCE_ITERS] = (double)div;
    st[STAT_DIVERGENCE_ERR] = 100.0 * avg;
    return 0;
}

/* Every neighbor pass reads lists within h. */
static double dfsph_list_radius(const fcl_params *p)
{
    (void)p;
    return 1.0;
}

/* The particle fields it publishes (frames, the viewer's colour menu):
 * the factor alpha_i of the last density_alpha, and the last solver's
 * per-particle error, which at the end of a step is the divergence
 * solver's compression rate max(D_i, 0) in 1/s. */
static fcl_buf *field_alpha(fcl_sim *s)
{
    return ((dfsph *)s->solver_data)->alpha;
}

static fcl_buf *field_error(fcl_sim *s)
{
    return ((dfsph *)s->solver_data)->err;
}

enum { NFIELDS = 2 };
static const fcl_field_decl dfsph_fields[NFIELDS] = {
    { "alpha", "DFSPH factor alpha (m^2)", 0.0f, 0.0f, field_alpha },
    { "divergence_error", "divergence error (1/s)", 0.0f, 0.0f, field_error },
};

/* Restarts: the time-step controller's memory (last dt, the iteration
 * bound); the warm-start totals are grid attributes, saved with them. */
typedef struct dfsph_saved {
    double dt_prev, dt_cap;
} dfsph_saved;

static size_t dfsph_save(fcl_sim *s, void *blob, size_t cap)
{
    const dfsph *d = s->solver_data;
    dfsph_saved v = { d->dt_prev, d->dt_cap };
    if (cap < sizeof v)
        return FCL_SAVE_FAILED;
    memcpy(blob, &v, sizeof v);
    return sizeof v;
}

static int dfsph_load(fcl_sim *s, const void *blob, size_t bytes, char *why, size_t whylen)
{
    dfsph *d = s->solver_data;
    dfsph_saved v;
    if (bytes != sizeof v) {
        snprintf(why, whylen, "its step controller's state is %zu bytes, not %zu", bytes, sizeof v);
        return -1;
    }
    memcpy(&v, blob, sizeof v);
    d->dt_prev = v.dt_prev;
    d->dt_cap = v.dt_cap;
    return 0;
}

static void dfsph_destroy(fcl_sim *s)
{
    dfsph *d = s->solver_data;
    if (!d)
        return;
    fcl_buf *bufs[] = { d->alpha, d->kap, d->err, d->vpred, d->vmove, d->table, d->nin, d->bgrad };
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        s->be->ops->buf_free(s->be, bufs[i]);
    reduction_free(&d->sum, s->be);
    free(d);
    s->solver_data = NULL;
}

/* The viscosity's step bound 0.125 d^2 / nu under dfsph.dt_min, which
 * overrules it: refused before any work (a review's 10 m^2/s at 2 cm
 * spacing, a bound of 5e-6 s, blew up at step 28 at 4,970 m/s, advised to
 * lower dfsph.dt_max; with dfsph.dt_min 1e-7 it ran at 1.3 mm/s). */
static int dfsph_check(const fcl_params *p, char *err, size_t errlen)
{
    /* Under 2 spacings of support water does not come to rest: a 2 cm
     * pool of 1,500 particles at 3 s, mean speed 0.036 m/s and 223 above
     * 5 cm/s at 1.5, against 0.010 m/s and none at 2 (a review). A note,
     * once (the viewer checks every edit with this hook). */
    static int said;
    if (p->particles_support < 2.0f && !said++)
        fprintf(stderr, "fluidcl: note: dfsph at particles.support = %g spacings: under 2 a resting pool keeps "
                "moving (mean speed 0.036 m/s at 1.5, 0.010 at 2, in a 2 cm pool after 3 s)\n",
                p->particles_support);
    double d = p->particles_spacing, bound = VISC_STEP * d * d / p->dfsph_viscosity;
    if (!(p->dfsph_viscosity > 0.0) || bound >= p->dfsph_dt_min * (1.0 - 1e-5))   /* float spacing */
        return 0;
    snprintf(err, errlen, "dfsph.viscosity = %g m^2/s bounds the step to 0.125 d^2 / nu = %.3g s at particles.spacing "
             "%g m, below dfsph.dt_min = %g s: lower dfsph.dt_min to %.3g or less, or the viscosity", p->dfsph_viscosity,
             bound, d, p->dfsph_dt_min, bound);
    return FCL_EXIT_INPUT;
}

/* Its Courant step's floor and bounds (the emitters' checks and capacity
 * default), since a step under the floor stops the run (choose_dt). */
static void dfsph_step_floor(const fcl_params *p, double *cfl, double *dt_min, double *dt_max)
{
    *cfl = p->dfsph_cfl, *dt_min = p->dfsph_dt_min, *dt_max = p->dfsph_dt_max;
}

/* The shared parameters it does not read, and what it has in their place. */
static const fcl_ignored ignores[] = {
    { FCL_P_sim_dt, "its own step: dfsph.cfl, dfsph.dt_min, dfsph.dt_max (a step with no particles, before an emitter's first layer, takes dfsph.dt_max)" },
    { FCL_P_material_viscosity, "dfsph.viscosity" },
    { FCL_P_material_stiffness, "its pressure solve (dfsph.eta), no equation of state" },
    { FCL_P_material_negative_pressure, "its pressure solve (dfsph.eta), no equation of state" },
    { FCL_P_COUNT, NULL },
};

const fcl_solver fcl_solver_dfsph = {
    .ignores = ignores,
    .step_floor = dfsph_step_floor,
    .name = "dfsph",
    .blowup_advice = "lower dfsph.dt_max or dfsph.cfl",
    .kernels = "cubic spline, dfsph.tables picks tables or exact",
    .summary = "Bender & Koschier 2015 divergence-free SPH (cubic spline with lookup tables, warm-started "
               "Jacobi density and divergence solvers, adaptive CFL step)",
    .extra_bytes_per_particle = 4 + 4 + 4 + 16 + 16 + 16 + 4 + 2 * 4 * 2,
    .init = dfsph_init,
    .prepare = dfsph_prepare,
    .step = dfsph_step,
    .destroy = dfsph_destroy,
    .derive = dfsph_derive,
    .list_radius = dfsph_list_radius,
    .list_entry_bytes = 8,               /* gradient factor and W per fluid
                                            entry (boundary entries: none) */
    .stats = dfsph_stats,
    .nstats = NSTATS,
    .fields = dfsph_fields,
    .nfields = NFIELDS,
    .save = dfsph_save,
    .load = dfsph_load,
    .check = dfsph_check,
    /* Any particles.support: the relaxation shrinks with it (relaxation()). */
};
