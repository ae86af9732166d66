/* wcsph.c - Mueller, Charypar, Gross 2003: weakly compressible SPH with
 * the poly6 / spiky / viscosity kernels, surface tension by
 * material.tension_model (kernels/forces.cl) and leapfrog integration.
 * Passes in kernels/wcsph.cl; walls and obstacles are boundary particles
 * (kernels/boundary.cl) with poly6 volumes.
 * Invariant: one grid rebuild per step, before the density pass; Akinci
 * normals (when selected) between the density and forces passes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes.h"
#include "sim.h"
#include "smoothing.h"

/* With lists, m / rho per particle for the forces pass (wcsph_density_nl);
 * everything else lives in the simulation's buffers. */
typedef struct wcsph {
    fcl_buf *vol;
    int soft_noted;   /* the note on a soft equation of state was given */
} wcsph;

/* The density kernel, FCL_KERNEL_SPIKY or _POLY6 (wcsph.density_kernel):
 * fixed for a simulation, since the walls' volumes are made with it. */
static unsigned density_kernel(const fcl_params *p)
{
    return strcmp(p->wcsph_density_kernel, "spiky") == 0 ? FCL_KERNEL_SPIKY : FCL_KERNEL_POLY6;
}

static int wcsph_init(fcl_sim *s, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    wcsph *w = calloc(1, sizeof *w);
    if (!w)
        return -1;
    s->solver_data = w;
    /* With lists, the build sums the fluid's W_poly6 (wcsph_density_nl). */
    if (s->nl.fl.cap > 0 && (nlist_want_poly6_sum(&s->nl, s->be) != 0 ||
                             !(w->vol = s->be->ops->buf_new(s->be, s->cap * 4 + 4, "WCSPH particle volumes"))))
        return -1;
    return sim_boundary_volumes(s, density_kernel(s->prm), 0.0f);
}

static int launch_density(fcl_sim *s)
{
    return pass_wcsph_density(s->be, s->n, "density", sim_attr(s, s->a_pos), s->grid.start, sim_bpos(s), s->bgrid.start,
                        s->rho, s->prs, s->grid.info, s->c);
}

static int launch_forces(fcl_sim *s)
{
    return pass_wcsph_forces(s->be, s->n, "forces", sim_attr(s, s->a_pos), sim_attr(s, s->a_vev), s->rho, s->prs,
                       s->grid.start, sim_bpos(s), s->bgrid.start, s->normals, s->acc, s->grid.info, s->c);
}

static int launch_integrate(fcl_sim *s)
{
    return pass_wcsph_integrate(s->be, s->n, "integrate", sim_attr(s, s->a_pos), sim_attr(s, s->a_vel), sim_attr(s, s->a_vev),
                          s->acc, s->solids, s->c);
}

#define HOOD(s) (s)->nl.fcount, (s)->nl.fidx, (s)->nl.bcount, (s)->nl.bidx, (s)->nl.fl, (s)->nl.bl

/* wcsph.neighbors = lists: one cell walk builds the lists, both passes
 * read them (README: Neighbor lists, for the measured choice). */
static int uses_lists(const fcl_sim *s)
{
    return s->nl.fl.cap > 0;
}

static int launch_density_nl(fcl_sim *s)
{
    wcsph *w = s->solver_data;
    return pass_wcsph_density_nl(s->be, s->n, "density", sim_attr(s, s->a_pos), sim_bpos(s), s->nl.wsum, s->nl.bcount,
                           s->nl.bidx, s->nl.bl, s->rho, s->prs, w->vol, s->c);
}

static int launch_forces_nl(fcl_sim *s)
{
    wcsph *w = s->solver_data;
    return pass_wcsph_forces_nl(s->be, s->n, "forces", sim_attr(s, s->a_pos), sim_attr(s, s->a_vev), s->rho, s->prs, w->vol,
                          sim_bpos(s), HOOD(s), s->normals, s->acc, s->c);
}

/* Grid (and lists), then density and pressure. */
static int rebuild_and_density(fcl_sim *s)
{
    if (grid_build(&s->grid, s->be, s->a_pos) != 0)
        return -1;
    if (!uses_lists(s))
        return launch_density(s);
    return sim_neighbors(s) != 0 || launch_density_nl(s) != 0 ? -1 : 0;
}

static int wcsph_prepare(fcl_sim *s)
{
    return rebuild_and_density(s);
}

/* Density errors past SOFT_PCT on average after a step: an equation of
 * state too soft for the flow, said once at the start of the next step
 * (the core measures a step after it). The run goes on (a soft fluid
 * may be meant), but without the note a stiffness of 0.5 ran the dam
 * break at 440 % for 5 minutes, its lists grown to 540 entries, with
 * nothing said; at 10 it reaches 106 %, at 100 it stays under 4.7 %. */
#define SOFT_PCT 20.0
static void note_soft(fcl_sim *s)
{
    wcsph *w = s->solver_data;
    const fcl_step_stats *st = &s->stats;
    if (w->soft_noted || !(st->avg_density_err > SOFT_PCT))
        return;
    w->soft_noted = 1;
    fprintf(stderr, "fluidcl: note: wcsph: step %ld: the fluid is compressed by %.3g %% on average (largest %.3g %%): "
            "material.stiffness = %g is soft for this flow, its pressure waves at sqrt(k) = %.3g m/s against a "
            "fastest particle at %.3g m/s (they want to be several times faster): raise material.stiffness (said "
            "once)\n", st->step, st->avg_density_err, st->max_density_err, s->prm->material_stiffness,
            sqrt(s->prm->material_stiffness), st->max_speed);
}

static int wcsph_step(fcl_sim *s)
{
    note_soft(s);   /* the last step's figures */
    if (rebuild_and_density(s) != 0 || sim_normals(s) != 0 ||
        (uses_lists(s) ? launch_forces_nl(s) : launch_forces(s)) != 0 || launch_integrate(s) != 0)
        return -1;
    return 0;
}

/* m = rho0 / sum W over a resting lattice of the density kernel (a
 * particle inside one has rho = rho0), and the equation of state and
 * viscosity, which only this solver's passes read. */
static void wcsph_derive(fcl_sim *s)
{
    const fcl_params *p = s->prm;
    unsigned kind = density_kernel(p);
    double sum = kind == FCL_KERNEL_POLY6 ? s->lattice_sum : smoothing_lattice_sum_of(kind, s->h, s->spacing, NULL);
    s->c.density_spiky = kind == FCL_KERNEL_SPIKY;
    s->c.mass = (float)(p->material_rest_density / sum);
    s->c.stiffness = p->material_stiffness;
    s->c.negative_pressure = p->material_negative_pressure;
    s->c.viscosity = p->material_viscosity;
}

static double wcsph_list_radius(const fcl_params *p)
{
    return strcmp(p->wcsph_neighbors, "lists") == 0 ? 1.0 : 0.0;
}

static void wcsph_destroy(fcl_sim *s)
{
    wcsph *w = s->solver_data;
    if (w)
        s->be->ops->buf_free(s->be, w->vol);
    free(s->solver_data);
    s->solver_data = NULL;
}

const fcl_solver fcl_solver_wcsph = {
    .name = "wcsph",
    .kernels = "poly6/spiky/viscosity",
    .summary = "Mueller et al. 2003 weakly compressible SPH (poly6, spiky, viscosity kernels; surface tension "
               "by material.tension_model)",
    .extra_bytes_per_particle = 8,       /* the lists' W_poly6 sums, m / rho */
    .init = wcsph_init,
    .prepare = wcsph_prepare,
    .step = wcsph_step,
    .destroy = wcsph_destroy,
    .derive = wcsph_derive,
    .list_radius = wcsph_list_radius,
};
