/* view_sim.c - the viewer's simulation: building it from the scene or
 * from a live state (reset, fluid balls), the panel's parameter edits,
 * the user force.
 * Invariant: v->phase has one entry per particle id of the running
 * simulation, and v->phase_buf holds the same values on the device.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rnd_particles.h"
#include "passes.h"
#include "setup.h"
#include "view.h"

void view_set_status(fcl_view *v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->status, sizeof v->status, fmt, ap);
    va_end(ap);
}

void view_release_sim(fcl_view *v)
{
    if (!v->have_sim)
        return;
    view_interop_free(v);
    v->be->ops->buf_free(v->be, v->phase_buf);
    v->phase_buf = NULL;
    sim_destroy(&v->sim);
    v->have_sim = 0;
}

static void solver_field_range(fcl_view *v, int field);

/* Simulation, phase buffer, pack buffer and kernels for this state; the
 * boundary is v->bpos and v->phase already covers the n particles. */
int view_build(fcl_view *v, const float4 *pos, const float4 *vel, size_t n, char *err, size_t errlen)
{
    fcl_backend *be = v->be;
    int rc = sim_create(&v->sim, be, &v->live, pos, vel, n, v->bpos, v->nb, err, errlen);
    if (rc != 0) {
        sim_destroy(&v->sim);
        return rc;
    }
    v->have_sim = 1;
    v->step_failed = 0;
    v->mesh_step = -1;
    /* A new state: the level set starts from its F = 0, not the old phi. */
    if (v->mc_ready)
        mc_forget(&v->mc);
    /* Another solver after a reset may publish other fields; a solver
     * field kept by index is another quantity now: its range anew. */
    if (!view_field_shown(v, v->field)) {
        if (v->field == FCL_FIELD_PRESSURE || v->field == FCL_FIELD_DENSITY)
            fprintf(stderr, "fluidcl: note: view: %s keeps no %s; the particles are coloured by speed\n",
                    v->sim.solver->name, v->field == FCL_FIELD_PRESSURE ? "pressure" : "particle density");
        v->field = FCL_FIELD_SPEED;
    } else if (v->field >= FCL_FIELD_COUNT)
        solver_field_range(v, v->field);
    int trc = setup_sim_scene(&v->sim, &v->scene, err, errlen);
    if (trc != 0) {
        view_release_sim(v);
        return trc;
    }
    v->phase_buf = be->ops->buf_new(be, (n ? n : 1) * sizeof(float), "particle phases");
    if (!v->phase_buf ||
        be->ops->buf_write(be, v->phase_buf, 0, n * sizeof(float), v->phase) != 0) {
        snprintf(err, errlen, "the viewer's kernels or buffers could not be set up on %s (see above)", be->name);
        view_release_sim(v);
        return FCL_EXIT_DEVICE;
    }
    return view_interop_alloc(v, err, errlen);
}

const char *view_phase_label(const fcl_view *v, int i, char *buf, size_t len)
{
    const fcl_scene *sc = &v->scene;
    int balls_from = sc->nblocks > 0 ? sc->nblocks : 1;   /* view_sim's v->nphases */
    if (i < sc->nphases)
        snprintf(buf, len, "phase %s", sc->phases[i].name);
    else if (sc->nphases > 0)   /* a ball is the first phase's fluid (pos.w 0), in a colour of its own */
        snprintf(buf, len, "dropped ball %d (phase %s)", i - sc->nphases + 1, sc->phases[0].name);
    else if (i < sc->nblocks)   /* emitted particles take index 0 (view_interop.c) */
        snprintf(buf, len, "fluid block %d of the scene%s", i, i == 0 && sc->nemitters ? ", and the emitters'" : "");
    else if (i == 0)            /* no block: index 0 is the emitters' alone */
        snprintf(buf, len, "%s", sc->nemitters ? "the emitters' fluid" : "no fluid block");
    else                        /* it read "dropped ball 1" for an emitter's fluid and 2 for the first ball (a review) */
        snprintf(buf, len, "dropped ball %d", i - balls_from + 1);
    return buf;
}

int view_field_count(const fcl_view *v)
{
    int k = v->have_sim && v->sim.solver ? v->sim.solver->nfields : 0;
    return FCL_FIELD_COUNT + (k < FCL_SOLVER_FIELDS_MAX ? k : FCL_SOLVER_FIELDS_MAX);
}

int view_field_shown(const fcl_view *v, int field)
{
    if (field < 0 || field >= view_field_count(v))
        return 0;
    const fcl_solver *sv = v->have_sim ? v->sim.solver : NULL;
    /* mac's markers carry the rest density: one flat colour, offered
     * without a word (a review), as pbf's zero pressure was. */
    return !(sv && ((field == FCL_FIELD_PRESSURE && sv->no_pressure) || (field == FCL_FIELD_DENSITY && sv->no_density)));
}

int view_field_next(const fcl_view *v, int field)
{
    int n = view_field_count(v);
    for (int k = 1; k <= n; k++)
        if (view_field_shown(v, (field + k) % n))
            return (field + k) % n;
    return FCL_FIELD_SPEED;
}

const char *view_field_label(const fcl_view *v, int field)
{
    static const char *const common[FCL_FIELD_COUNT] = {
        "speed (m/s)", "density (kg/m^3)", "pressure (Pa)", "phase (fluid body)", "surface flag",
    };
    if (field < FCL_FIELD_COUNT)
        return common[field < 0 ? 0 : field];
    return field < view_field_count(v) ? v->sim.solver->fields[field - FCL_FIELD_COUNT].label : "?";
}

/* A solver field's legend: its declared range, or the range of its values
 * now when it declares none. */
static void solver_field_range(fcl_view *v, int field)
{
    const fcl_field_decl *d = &v->sim.solver->fields[field - FCL_FIELD_COUNT];
    float *r = v->range[field], lo = 0.0f, hi = 0.0f;
    if (d->hi > d->lo) {
        r[0] = d->lo;
        r[1] = d->hi;
        return;
    }
    float *x = malloc(v->sim.n * sizeof *x + 4);
    if (x && sim_download_field(&v->sim, field - FCL_FIELD_COUNT, x) == 0)
        for (size_t i = 0; i < v->sim.n; i++) {
            lo = i == 0 || x[i] < lo ? x[i] : lo;
            hi = i == 0 || x[i] > hi ? x[i] : hi;
        }
    free(x);
    r[0] = lo;
    r[1] = hi > lo ? hi : lo + 1.0f;
    /* No spread to read (no particle yet, or a field not yet computed):
     * read again after steps, 100 times at most (a scene filled by an
     * emitter kept [0, 1] for alpha's 3e-4 and one colour; a review). */
    v->range_pending = hi > lo ? 0 : 100;
}

void view_field_range_follow(fcl_view *v)
{
    if (v->range_pending > 0 && v->have_sim && v->field >= FCL_FIELD_COUNT && v->sim.n > 0) {
        int left = v->range_pending - 1;
        solver_field_range(v, v->field);   /* 0 when it found a spread, else 100 again */
        if (v->range_pending)
            v->range_pending = left;
    }
}

void view_set_field(fcl_view *v, int field)
{
    if (!view_field_shown(v, field))
        field = FCL_FIELD_SPEED;
    if (field >= FCL_FIELD_COUNT && field != v->field)
        solver_field_range(v, field);
    v->field = field;
}

/* The fluid block a particle started in: its phase (boxes are filled
 * from half a spacing inside, spheres around a lattice point). */
static float block_of(const fcl_scene *sc, const float4 *p, float tol)
{
    for (int b = 0; b < sc->nblocks; b++) {
        const fcl_block *k = &sc->blocks[b];
        if (k->kind == FCL_SHAPE_BOX && p->x >= k->min[0] - tol && p->x <= k->max[0] + tol && p->y >= k->min[1] - tol &&
            p->y <= k->max[1] + tol && p->z >= k->min[2] - tol && p->z <= k->max[2] + tol)
            return (float)b;
        float dx = p->x - k->center[0], dy = p->y - k->center[1], dz = p->z - k->center[2];
        if (k->kind == FCL_SHAPE_SPHERE && sqrtf(dx * dx + dy * dy + dz * dz) <= k->radius + tol)
            return (float)b;
    }
    return 0.0f;
}

/* The scene from scratch with the live parameters. */
int view_load_scene(fcl_view *v, char *err, size_t errlen)
{
    fcl_initial in;
    int rc = scene_check(&v->scene, &v->live, err, errlen) != 0 ? FCL_EXIT_INPUT : 0;
    if (rc == 0 && !solver_find(v->live.sim_solver)) {
        snprintf(err, errlen, "sim.solver: unknown solver '%s'", v->live.sim_solver);
        rc = FCL_EXIT_INPUT;
    }
    if (rc != 0 || (rc = setup_initial(&v->scene, &v->live, v->be, &in, err, errlen)) != 0)
        return rc;
    free(v->bpos);
    free(v->phase);
    v->nb = in.b.n;
    v->bpos = malloc((v->nb ? v->nb : 1) * sizeof *v->bpos);
    v->phase = malloc((in.n ? in.n : 1) * sizeof *v->phase);
    if (!v->bpos || !v->phase) {
        setup_free(&in);
        snprintf(err, errlen, "out of host memory for %zu particles", in.n);
        return FCL_EXIT_DEVICE;
    }
    memcpy(v->bpos, in.b.pos, v->nb * sizeof *v->bpos);
    /* The scene's fluid phases when it has them (pos.w), else its bodies. */
    v->nphases = v->scene.nphases > 0 ? v->scene.nphases : v->scene.nblocks > 0 ? v->scene.nblocks : 1;
    for (size_t i = 0; i < in.n; i++)
        v->phase[i] = v->scene.nphases > 0 ? in.pos[i].w : block_of(&v->scene, &in.pos[i], 0.5f * v->live.particles_spacing);
    v->phase_ids = in.n;
    /* The scene's phases in their own colours; bodies and balls in the
     * default palette. */
    memcpy(v->palette, rnd_palette, sizeof v->palette);
    for (int k = 0; k < v->scene.nphases && k < RND_PALETTE; k++)
        memcpy(v->palette[k], v->scene.phases[k].color, sizeof v->palette[k]);
    rc = view_build(v, in.pos, in.vel, in.n, err, errlen);
    setup_free(&in);
    if (rc == 0)
        rnd_boundary_upload(v->rnd, &v->bpos[0].x, v->nb);
    return rc;
}

/* What a reset to the edited parameters would be refused for before any
 * device work, as the command line checks it (cli_scene): the scene under
 * them, and the solver's own refusals. 0, or -1 with err. */
static int reset_refused(const fcl_view *v, char *err, size_t errlen)
{
    const fcl_params *p = &v->edit;
    if (scene_check(&v->scene, p, err, errlen) != 0)
        return -1;
    const fcl_solver *sv = solver_find(p->sim_solver);
    if (!sv) {
        snprintf(err, errlen, "sim.solver: unknown solver '%s'", p->sim_solver);
        return -1;
    }
    return solver_check_targets(sv, v->scene.ntargets, err, errlen) != 0 ||
                   solver_check_phases(sv, p, v->scene.phases, v->scene.nphases, err, errlen) != 0 ||
                   solver_check_support(sv, p, err, errlen) != 0 || (sv->check && sv->check(p, err, errlen) != 0)
               ? -1
               : 0;
}

int view_reset(fcl_view *v)
{
    char err[1024] = "";
    fcl_params old = v->live;
    /* Refused before the simulation goes: it runs on, and the edits stay
     * for the user to mend (a reset to mps of a fluid-control scene threw
     * the run away, restarted the old one and pinned a dropped ball's
     * capacity into the edits; a review). */
    if (reset_refused(v, err, sizeof err) != 0) {
        view_set_status(v, "reset refused, the simulation goes on: %s", err);
        return 0;
    }
    view_release_sim(v);
    v->live = v->edit;
    int rc = view_load_scene(v, err, sizeof err);
    if (rc == 0) {
        view_set_status(v, "reset: %zu particles, solver %s", v->sim.n, v->live.sim_solver);
        return 0;
    }
    /* Keep a simulation running: back to the parameters that worked. */
    view_set_status(v, "reset failed, previous parameters kept: %s", err);
    v->live = v->edit = old;
    char err2[1024] = "";
    if (view_load_scene(v, err2, sizeof err2) != 0) {
        view_set_status(v, "reset failed: %s; and again with the previous parameters: %s", err, err2);
        return FCL_EXIT_DEVICE;
    }
    return rc;
}

/* The solver's own check (solver.h) on an edit of its group, and its
 * check of the fluid (viscosity bounds against its dt_min, its phases) on
 * any edit, where each passed before: mps.preconditioner poly under
 * mps.wall_pressure solve, refused at start, was taken live and ran Jacobi
 * without a word, and material.viscosity 1e5 under mps blew up in 6 steps
 * (a review). A table that failed before (an edit kept for the reset)
 * blocks nothing. */
static int solver_refuses(const fcl_view *v, const fcl_params *before, const fcl_params *after,
                          const fcl_param_def *d, char *err, size_t errlen)
{
    const fcl_solver *sv = solver_find(after->sim_solver);
    char scratch[512];
    if (!sv)
        return 0;
    if (sv->check && strcmp(d->group, sv->name) == 0 && sv->check(before, scratch, sizeof scratch) == 0 &&
        sv->check(after, err, errlen) != 0)
        return 1;
    const fcl_phase_decl *ph = v->scene.phases;
    int n = v->scene.nphases;
    return solver_check_phases(sv, before, ph, n, scratch, sizeof scratch) == 0 &&
           solver_check_phases(sv, after, ph, n, err, errlen) != 0;
}

/* One value into a copy of the edited set and, when the parameter is
 * live, of the running one (sim.user, whose live parameters the simulation
 * takes before every step); each copy is
 * kept only when its ordered pairs still hold, as the command line checks
 * them (dfsph.dt_min set above dt_max was taken live: the step pinned, and
 * a Reset found no parameters that loaded and left no simulation), and a
 * surface.* edit when the mesh's settings pass `run --mesh`'s check
 * (surface.support 0.5 was taken and the mesh vanished without a word: a
 * review; the level set's speed likewise). text
 * NULL: the number. 1 applied live, 0 kept for the next reset, -1 refused. */
static int apply(fcl_view *v, const fcl_param_def *d, const char *text, int comp, double value, char *err,
                 size_t errlen)
{
    fcl_params *sets[2] = { &v->edit, &v->live }, copy[2];
    int n = d->live ? 2 : 1;
    for (int k = 0; k < n; k++) {
        copy[k] = *sets[k];
        int rc = text ? params_set_text(&copy[k], d, text, err, errlen)
                      : params_set_number(&copy[k], d, comp, value, err, errlen);
        /* The surface's own check on surface.* edits only: a scene opened
         * with a refused level set (the viewer does not check at start, as
         * run without --mesh does not) blocked every other edit (a review). */
        int surface = strcmp(d->group, "surface") == 0;
        unsigned mask = 0;
        int most = v->scene.nphases > 0 ? v->scene.nphases : 1;
        if (rc == 0 && d == &fcl_param_table[FCL_P_surface_phases] &&
            params_phase_list(copy[k].surface_phases, most, &mask) != 0) {   /* the scene's phases alone */
            snprintf(err, errlen, "surface.phases = '%s': expected phase indices 0 to %d separated by commas, or empty",
                     copy[k].surface_phases, most - 1);
            return -1;
        }
        if (rc != 0 || params_check_order(&copy[k], err, errlen) != 0 ||
            (surface && (mc_support_check(&copy[k], err, errlen) != 0 || mc_grid_check(&copy[k], 0, err, errlen) != 0)) ||
            solver_refuses(v, sets[k], &copy[k], d, err, errlen))
            return -1;
    }
    for (int k = 0; k < n; k++)
        *sets[k] = copy[k];
    return d->live ? 1 : 0;
}

int view_apply_number(fcl_view *v, const fcl_param_def *d, int comp, double value, char *err, size_t errlen)
{
    return apply(v, d, NULL, comp, value, err, errlen);
}

int view_apply_param(fcl_view *v, const char *key, const char *text, char *err, size_t errlen)
{
    const fcl_param_def *d = params_find(key);
    if (!d) {
        snprintf(err, errlen, "%s: unknown parameter (see 'fluidcl help params')", key);
        return -1;
    }
    return apply(v, d, text, 0, 0.0, err, errlen);
}

int view_interact(fcl_view *v, const float origin[3], const float dir[3], const float dv[3], float radius)
{
    if (!v->have_sim)
        return 0;
    return sim_interact(&v->sim, origin, dir, dv, radius);
}
