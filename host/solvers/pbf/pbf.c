/* pbf.c - Macklin & Mueller 2013: position-based fluids, with fluid
 * control (seed 001; control.c) when the scene has targets. Each step:
 *   CFL time step -> [control set at the step's end] -> predict (v + dt g,
 *   x* = x + dt v) -> grid rebuild and neighbor lists at x* -> [cross
 *   lists, springs and velocity constraint] -> pbf.iterations times:
 *   lambda, [control lambda~], delta, [control density], apply (Jacobi)
 *   -> density at the final x* (stats, frames) -> velocity (x* - x) / dt
 *   -> vorticity confinement (if on) -> XSPH. [ ]: only with targets.
 * Passes in kernels/pbf.cl; walls and obstacles are boundary particles
 * with poly6 volumes, or mirror images, plus the wall clamp and the box,
 * sphere and polygon-slab projection after every position update.
 * Units: densities relative to rho0 with V = 1 / (poly6 lattice sum), so
 * a particle inside a resting lattice has C = 0 exactly; the relaxation
 * eps and s_corr's k are given in units of D0 = sum_k |grad_k C|^2 of
 * that particle (control_lattice_d0), which makes them independent of the
 * spacing.
 * Invariant: between steps rho matches the current positions, and the
 * velocity at t (a_vev) is the step's final velocity; a_vel and the
 * solver's buffers are scratch within a step.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control.h"
#include "passes.h"
#include "pbf.h"
#include "sim.h"
#include "smoothing.h"

typedef struct pbf {
    int a_xold;                          /* grid attribute: x at the step's start */
    int p_fg, p_fw;                      /* list planes: V spiky factor, W_poly6 */
    fcl_buf *lam, *dp, *omega;
    fcl_pbf_consts consts;
    double d0;                           /* sum_k |grad_k C|^2 in a lattice (1/m^2) */
    pbf_control *ctl;                    /* fluid control; NULL: plain PBF */
} pbf;

static int pbf_init(fcl_sim *s, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    fcl_backend *be = s->be;
    pbf *d = calloc(1, sizeof *d);
    if (!d)
        return -1;
    s->solver_data = d;
    size_t n = s->cap;
    d->a_xold = grid_add_attr(&s->grid, be, "PBF start-of-step position", 16);
    d->lam = be->ops->buf_new(be, n * 4 + 4, "PBF lambda");
    d->dp = be->ops->buf_new(be, n * 16 + 16, "PBF position correction");
    d->omega = be->ops->buf_new(be, n * 16 + 16, "PBF vorticity");
    d->p_fg = nlist_add_plane(&s->nl, be, 0, "PBF gradient factors");
    d->p_fw = nlist_add_plane(&s->nl, be, 0, "PBF kernel values");
    if (d->a_xold < 0 || !d->lam || !d->dp || !d->omega || d->p_fg < 0 || d->p_fw < 0)
        return -1;
    d->consts.volume = (float)(1.0 / s->lattice_sum);
    d->d0 = control_lattice_d0(s->h, s->spacing, d->consts.volume);
    sim_update_consts(s);
    return sim_boundary_volumes(s, 0u, 0.0f);
}

/* pbf.relaxation's factor: Jacobi's updates overshoot more as a wider
 * support gives each particle more neighbors of neighbors. On the 2 cm
 * dam break (400 steps) eps = 1 D0 held at 2 spacings and blew up within
 * 5 steps at 2.7 and 3; 1.82 D0 ran at 2.7, 2.25 at 3 and 5.36 at 3.5
 * (3.06 there did not), so eps grows as (support / 2)^3 above 2 spacings.
 * At 4 not even 16 D0 ran (max_support). */
static double relaxation_scale(double support)
{
    double r = support > 2.0 ? support / 2.0 : 1.0;
    return r * r * r;
}

/* The particle mass V rho0 and the live parameters in PBF's units. */
static void pbf_derive(fcl_sim *s)
{
    pbf *d = s->solver_data;
    if (!d)
        return;
    const fcl_params *p = s->prm;
    s->c.mass = d->consts.volume * p->material_rest_density;
    d->consts.eps = (float)(p->pbf_relaxation * d->d0 * relaxation_scale(p->particles_support));
    d->consts.scorr_k = (float)(p->pbf_scorr_k / d->d0);
    double dq = p->pbf_scorr_dq * s->h, w = s->c.poly6 * pow(s->h * s->h - dq * dq, 3);
    d->consts.scorr_inv_wdq = (float)(1.0 / w);
    d->consts.scorr_n = (uint)p->pbf_scorr_n;
    d->consts.clamp = p->pbf_clamp ? 1u : 0u;
    d->consts.xsph = p->pbf_xsph;
    d->consts.vorticity = p->pbf_vorticity;
}

/* Adaptive step by the CFL condition on last step's largest speed (or an
 * emitter's) plus what gravity adds in one step, at most pbf.dt_max. */
static int choose_dt(fcl_sim *s, pbf *d)
{
    const fcl_params *p = s->prm;
    double v = sim_courant_speed(s, p->pbf_dt_max), dt = p->pbf_dt_max;
    if (v > 1e-9)
        dt = fmin(dt, p->pbf_cfl * s->spacing / v);
    /* No capillary bound (dfsph.c): PBF applies no surface tension. */
    if (sim_step_floor(s, dt, p->pbf_dt_min, p->pbf_dt_max, "pbf") != 0)
        return -1;
    d->consts.dt = (float)dt;
    d->consts.inv_dt = (float)(1.0 / dt);
    d->consts.tscale = (float)fmin(dt / p->pbf_dt_max, 1.0);
    s->c.dt = (float)dt;
    s->dt_used = (float)dt;
    return 0;
}

/* One thin launcher per pass (kernels/pbf.cl, declared in
 * kernels/passes.def); the neighbor passes read the step's lists. */
#define HOOD(s) (s)->nl.fcount, (s)->nl.fidx, (s)->nl.bcount, (s)->nl.bidx, (s)->nl.fl, (s)->nl.bl
#define FLUID(s) (s)->nl.fcount, (s)->nl.fidx, (s)->nl.fl
/* The list planes (looked up per launch: a list growth replaces them). */
#define FG(s, d) nlist_plane(&(s)->nl, 0, (d)->p_fg)
#define FW(s, d) nlist_plane(&(s)->nl, 0, (d)->p_fw)

static int launch_predict(fcl_sim *s, pbf *d)
{
    return pass_pbf_predict(s->be, s->n, "integrate", sim_attr(s, s->a_pos), sim_attr(s, s->a_vev),
                            sim_attr(s, d->a_xold), s->solids, s->c, d->consts);
}

static int launch_lambda(fcl_sim *s, pbf *d, const char *timer)
{
    return pass_pbf_lambda(s->be, s->n, timer, sim_attr(s, s->a_pos), sim_bpos(s), HOOD(s), FG(s, d), FW(s, d), s->rho,
                           d->lam, s->c, d->consts);
}

static int launch_delta(fcl_sim *s, pbf *d)
{
    return pass_pbf_delta(s->be, s->n, "density-solve", sim_attr(s, s->a_pos), sim_bpos(s), HOOD(s), FG(s, d), FW(s, d),
                          d->lam, d->dp, s->c, d->consts);
}

static int launch_apply(fcl_sim *s, pbf *d)
{
    return pass_pbf_apply(s->be, s->n, "density-solve", sim_attr(s, s->a_pos), d->dp, s->solids, s->c);
}

static int launch_velocity(fcl_sim *s, pbf *d)
{
    return pass_pbf_velocity(s->be, s->n, "integrate", sim_attr(s, s->a_pos), sim_attr(s, d->a_xold),
                             sim_attr(s, s->a_vel), d->consts);
}

static int launch_vorticity(fcl_sim *s, pbf *d)
{
    return pass_pbf_vorticity(s->be, s->n, "forces", sim_attr(s, s->a_pos), sim_attr(s, s->a_vel), FLUID(s), FG(s, d),
                              d->omega, s->c, d->consts);
}

static int launch_confine(fcl_sim *s, pbf *d)
{
    return pass_pbf_confine(s->be, s->n, "forces", sim_attr(s, s->a_pos), sim_attr(s, s->a_vel), d->omega, FLUID(s),
                            FG(s, d), s->c, d->consts);
}

static int launch_xsph(fcl_sim *s, pbf *d)
{
    return pass_pbf_xsph(s->be, s->n, "forces", sim_attr(s, s->a_pos), sim_attr(s, s->a_vel), sim_attr(s, s->a_vev),
                         FLUID(s), FW(s, d), s->c, d->consts);
}

/* Grid rebuild, then the lists every neighbor pass of the step reads. */
static int rebuild(fcl_sim *s)
{
    return grid_build(&s->grid, s->be, s->a_pos) != 0 || sim_neighbors(s) != 0 ? -1 : 0;
}

/* The density constraint, with fluid control's density constraint
 * beside it when there are targets: Jacobi iterations on x*. */
static int project(fcl_sim *s, pbf *d, long iters)
{
    pbf_control *c = d->ctl;
    for (long k = 0; k < iters; k++)
        if (launch_lambda(s, d, "density-solve") != 0 || (c && control_lambda(c, s) != 0) ||
            launch_delta(s, d) != 0 || (c && control_density(c, s, d->dp) != 0) || launch_apply(s, d) != 0)
            return -1;
    return 0;
}

/* Fluid control before the iterations: the control set at the step's
 * end, then springs and the velocity constraint on x*. */
static int steer_before(fcl_sim *s, pbf *d)
{
    if (!d->ctl)
        return 0;
    control_derive(d->ctl, s, d->consts.dt);
    return control_move(d->ctl, s, s->time, d->consts.dt);
}

static int steer_after_rebuild(fcl_sim *s, pbf *d)
{
    return d->ctl ? control_steer(d->ctl, s, sim_attr(s, d->a_xold)) : 0;
}

/* The velocity from the positions, then the selected smoothing. */
static int finish_velocity(fcl_sim *s, pbf *d)
{
    if (launch_velocity(s, d) != 0)
        return -1;
    if (d->consts.vorticity > 0.0f && (launch_vorticity(s, d) != 0 || launch_confine(s, d) != 0))
        return -1;
    return launch_xsph(s, d);
}

static int pbf_prepare(fcl_sim *s)
{
    pbf *d = s->solver_data;
    return choose_dt(s, d) != 0 || rebuild(s) != 0 || launch_lambda(s, d, "density") != 0 ? -1 : 0;
}

/* control_particles: the control particles of the targets active in the
 * step (0 without targets), so the sampling's size can be seen. */
enum { STAT_ITERS, STAT_CONTROL, NSTATS };
static const fcl_stat_decl pbf_stats[NSTATS] = {
    { "iterations", "iterations", "", FCL_FOLD_MEAN },
    { "control_particles", "control particles", "", FCL_FOLD_MAX },
};

static int pbf_step(fcl_sim *s)
{
    pbf *d = s->solver_data;
    long iters = s->prm->pbf_iterations;
    if (choose_dt(s, d) != 0 || steer_before(s, d) != 0 || launch_predict(s, d) != 0 || rebuild(s) != 0 ||
        steer_after_rebuild(s, d) != 0 || project(s, d, iters) != 0 ||
        launch_lambda(s, d, "density") != 0 || finish_velocity(s, d) != 0)
        return -1;
    s->stats.solver[STAT_ITERS] = (double)iters;
    s->stats.solver[STAT_CONTROL] = d->ctl ? (double)d->ctl->n : 0.0;
    return 0;
}

int pbf_control_points(fcl_sim *s, const float4 *pts, size_t n, char *err, size_t errlen)
{
    pbf *d = s->solver_data;
    if (!s->solver || strcmp(s->solver->name, "pbf") != 0 || !d) {
        snprintf(err, errlen, "fluid control needs the pbf solver (sim.solver is %s)", s->prm->sim_solver);
        return -1;
    }
    if (d->ctl) {
        snprintf(err, errlen, "fluid control: the simulation has its control particles already");
        return -1;
    }
    return control_create(&d->ctl, s, pts, NULL, n, NULL, 0, err, errlen);
}

/* The solver interface's targets: sampled, then control on the device. */
static int pbf_set_targets(fcl_sim *s, const struct fcl_target *t, int n, char *err, size_t errlen)
{
    pbf *d = s->solver_data;
    float4 *pts = NULL;
    int *owner = NULL;
    float **weights = NULL;
    size_t count = 0;
    if (d->ctl) {
        snprintf(err, errlen, "targets: the simulation has its control particles already");
        return -1;
    }
    int rc = pbf_targets_sample(s, t, n, &pts, &owner, &weights, &count, err, errlen);
    if (rc == 0)
        rc = control_create(&d->ctl, s, pts, owner, count, t, n, err, errlen);
    if (rc == 0)
        control_bind(d->ctl, weights);     /* takes the weights */
    else
        for (int g = 0; weights && g < n; g++)
            free(weights[g]);
    free(weights);
    free(pts);
    free(owner);
    return rc;
}

/* The viewer's overlay: the active control particles. */
static size_t pbf_overlay(fcl_sim *s, const float **pts)
{
    pbf *d = s->solver_data;
    if (!d || !d->ctl || !d->ctl->uploaded)
        return 0;
    *pts = &d->ctl->cur[0].x;
    return d->ctl->n;
}

/* Every neighbor pass reads lists within h. */
static double pbf_list_radius(const fcl_params *p)
{
    (void)p;
    return 1.0;
}

/* The particle fields it publishes: the last lambda (the multiplier of
 * the final density measurement, 0 where the particle is at rest
 * density or below with pbf.clamp). */
static fcl_buf *field_lambda(fcl_sim *s)
{
    return ((pbf *)s->solver_data)->lam;
}

enum { NFIELDS = 1 };
static const fcl_field_decl pbf_fields[NFIELDS] = {
    { "lambda", "PBF lambda (m^2)", 0.0f, 0.0f, field_lambda },
};

/* Restarts: the springs are grid attributes, saved with the particles;
 * with control, the blob is the control set's fingerprint and a record
 * per target, so that a checkpoint resumes only into a scene with the
 * same targets, and a refusal names the target that differs. */
static size_t pbf_save(fcl_sim *s, void *blob, size_t cap)
{
    const pbf *d = s->solver_data;
    return d->ctl ? control_save(d->ctl, blob, cap) : 0;
}

static int pbf_load(fcl_sim *s, const void *blob, size_t bytes, char *why, size_t whylen)
{
    const pbf *d = s->solver_data;
    if (d->ctl)
        return control_check_saved(d->ctl, blob, bytes, why, whylen);
    if (bytes)
        snprintf(why, whylen, "it was written with fluid-control targets, and this scene has none");
    return bytes ? -1 : 0;
}

static void pbf_destroy(fcl_sim *s)
{
    pbf *d = s->solver_data;
    if (!d)
        return;
    control_destroy(d->ctl, s);
    fcl_buf *bufs[] = { d->lam, d->dp, d->omega };
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        s->be->ops->buf_free(s->be, bufs[i]);
    free(d);
    s->solver_data = NULL;
}

/* With targets, their constraints push as well: a review's
 * control.relaxation 1e-6 with control.alpha 1 blew up at step 27,
 * advised on pbf.* alone. */
static const char *pbf_blowup_more(const fcl_sim *s)
{
    const pbf *d = s->solver_data;
    return d && d->ctl ? "with fluid control, raise control.relaxation or lower control.alpha, control.beta or "
                         "control.gamma"
                       : NULL;
}

/* Its Courant step's floor and bounds (the emitters' checks and capacity
 * default). */
static void pbf_step_floor(const fcl_params *p, double *cfl, double *dt_min, double *dt_max)
{
    *cfl = p->pbf_cfl, *dt_min = p->pbf_dt_min, *dt_max = p->pbf_dt_max;
}

/* The shared parameters it does not read, and what it has in their place. */
static const fcl_ignored ignores[] = {
    { FCL_P_sim_dt, "its own step: pbf.cfl, pbf.dt_min, pbf.dt_max (a step with no particles, before an emitter's first layer, takes pbf.dt_max)" },
    /* A live change left a run bit-identical (a review): the masses go
     * with rho0. */
    { FCL_P_material_rest_density, "nothing for the motion: its constraint rho / rho0 - 1 with masses rho0 V "
                                   "leaves rho0 out (it scales the densities frames show)" },
    { FCL_P_material_viscosity, "pbf.xsph" },
    { FCL_P_material_stiffness, "its density constraint (pbf.iterations), no equation of state" },
    { FCL_P_material_negative_pressure, "its density constraint (pbf.iterations), no equation of state" },
    { FCL_P_material_tension_model, "nothing: it applies no surface tension" },
    { FCL_P_material_surface_tension, "nothing: it applies no surface tension, nor bounds its step by it" },
    { FCL_P_material_cohesion, "nothing: it applies no surface tension" },
    /* A review dropped one particle from 0.4 m at restitution 1: it stuck
     * (under wcsph it rose to 0.34 m). */
    { FCL_P_domain_restitution, "nothing: its velocity is the position change over the step, so a wall or an "
                                "obstacle stops a particle and cannot bounce it" },
    { FCL_P_COUNT, NULL },
};

const fcl_solver fcl_solver_pbf = {
    .ignores = ignores,
    .step_floor = pbf_step_floor,
    .blowup_more = pbf_blowup_more,
    .name = "pbf",
    .no_pressure = 1,
    /* Not "lower pbf.cfl": a position correction is a speed 1/dt, so a
     * shorter step turns the same corrections into larger speeds (a
     * review: pbf.cfl 0.01 blew up at step 2 where 0.4 runs). */
    .blowup_advice = "lower pbf.scorr_k, pbf.scorr_dq or pbf.vorticity if raised, set pbf.clamp = 1 with "
                     "pbf.scorr_k = 0 (no attraction at the free surface), or raise pbf.cfl; a smaller pbf.cfl "
                     "or pbf.dt_max is no steadier (PBF's position corrections become speeds of 1/dt)",
    .kernels = "poly6/spiky",
    .summary = "Macklin & Mueller 2013 position-based fluids (poly6 density, spiky gradients, Jacobi density "
               "constraint with s_corr, XSPH and vorticity confinement, adaptive CFL step)",
    .extra_bytes_per_particle = 2 * 16 + 4 + 16 + 16,
    .init = pbf_init,
    .prepare = pbf_prepare,
    .step = pbf_step,
    .destroy = pbf_destroy,
    .save = pbf_save,
    .load = pbf_load,
    .derive = pbf_derive,
    .list_radius = pbf_list_radius,
    .list_entry_bytes = 8,               /* gradient factor and W per fluid
                                            entry (boundary entries: none) */
    .stats = pbf_stats,
    .nstats = NSTATS,
    .fields = pbf_fields,
    .nfields = NFIELDS,
    .set_targets = pbf_set_targets,
    .overlay = pbf_overlay,
    .overlay_name = "control particles", /* what pbf_overlay draws */
    /* With the relaxation scaled (relaxation_scale) the 2 cm dam break
     * ran at 3.5 spacings, and at 4 blew up within 10 steps. */
    .max_support = 3.5,
};
