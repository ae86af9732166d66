/* sim.c - simulation state and the step wrapper shared by all solvers:
 * creation (buffers, grid, neighbor lists, boundary particles), the
 * constants every pass reads, the step (grid rebuild, the solver's step,
 * statistics, the blow-up check), the time-step floors, and particles
 * added mid-run. The obstacles as solids are sim_solids.c's.
 * Invariant: after sim_create returns 0 and after every sim_step that
 * does, the attribute buffers hold s->n particles, all in the order of
 * the last grid build (ids travel with them).
 */
#include "sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reduce.h"
#include "passes.h"
#include "scene.h"
#include "smoothing.h"

/* position, velocity, velocity at t (float4, double-buffered), id (uint,
 * double-buffered), density, pressure, acceleration, surface normal,
 * surface flag, grid bookkeeping. */
static const size_t common_attr_bytes = 3 * 16 + 4;
static const size_t common_plain_bytes = 4 + 4 + 16 + 16 + 4;

/* Neighbor-list capacities of a solver at support h and spacing d (0, 0
 * when it uses none). */
static void list_caps(const fcl_solver *solver, const fcl_params *p, double h, double d, uint *cap, uint *bcap)
{
    double r = solver && solver->list_radius ? solver->list_radius(p) * h : 0.0;
    *cap = r > 0.0 ? nlist_capacity(r, d, p->neighbors_capacity) : 0u;
    *bcap = r > 0.0 ? nlist_boundary_capacity(r, d, p->neighbors_boundary_capacity) : 0u;
}

float sim_cell_size(const fcl_params *p)
{
    const fcl_solver *solver = solver_find(p->sim_solver);
    double r = solver && solver->list_radius ? solver->list_radius(p) : 0.0;
    return (float)((r > 1.0 ? r : 1.0) * p->particles_support * p->particles_spacing);
}

size_t sim_bytes_needed(const fcl_solver *solver, const fcl_params *p, const fcl_grid_info *grid, size_t nb)
{
    fcl_grid_info b = *grid;
    b.n = (uint)nb;
    uint cap, bcap;
    list_caps(solver, p, p->particles_support * p->particles_spacing, p->particles_spacing, &cap, &bcap);
    size_t lists = cap ? nlist_bytes_per_particle(cap, nb ? bcap : 0u) +
                         cap * solver->list_entry_bytes : 0;
    /* The boundary grid keeps positions only, plus a volume scratch and,
     * with lists, a near-cell flag per cell. */
    return grid_bytes(grid, common_attr_bytes) + grid_bytes(&b, 16) + nb * 4 +
           (cap && nb ? (size_t)grid->ncells * 4 : 0) +
           grid->n * (common_plain_bytes + lists + (solver ? solver->extra_bytes_per_particle : 0));
}

int sim_fits_beside(const fcl_sim *s, double need, double *parts)
{
    *parts = (double)sim_bytes_needed(s->solver, s->prm, &s->grid.info, s->nb);
    return need + *parts <= 0.9 * (double)s->be->mem_bytes;
}

int sim_interact(fcl_sim *s, const float origin[3], const float dir[3], const float dv[3], float radius)
{
    if (s->n == 0)
        return 0;
    if (s->solver->interact)
        return s->solver->interact(s, origin, dir, dv, radius);
    float4 o = fcl_f4(origin[0], origin[1], origin[2], 0.0f), d = fcl_f4(dir[0], dir[1], dir[2], 0.0f);
    float4 w = fcl_f4(dv[0], dv[1], dv[2], 0.0f);
    return pass_interact_force(s->be, s->n, "interact", s->grid.attr[s->a_pos].cur, s->grid.attr[s->a_vel].cur,
                               s->grid.attr[s->a_vev].cur, o, d, w, radius);
}

int sim_download_field(fcl_sim *s, int k, float *out)
{
    if (!s->solver || k < 0 || k >= s->solver->nfields)
        return -1;
    if (!s->n)
        return 0;
    fcl_buf *b = s->solver->fields[k].buffer(s);
    return b ? s->be->ops->buf_read(s->be, b, 0, s->n * 4, out) : -1;
}

double sim_stat(const fcl_sim *s, const char *key)
{
    int k = solver_stat_index(s->solver, key);
    return k < 0 ? 0.0 : s->stats.solver[k];
}

double sim_gravity_norm(const fcl_sim *s)
{
    const float *gv = s->prm->sim_gravity;
    return sqrt((double)gv[0] * gv[0] + (double)gv[1] * gv[1] + (double)gv[2] * gv[2]);
}

double sim_courant_speed(const fcl_sim *s, double dt_max)
{
    return fmax(s->stats.max_speed, sim_inflow_speed(s, s->time, s->time + dt_max)) + sim_gravity_norm(s) * dt_max;
}

double sim_capillary_dt(const fcl_sim *s)
{
    const fcl_params *p = s->prm;
    double sigma = p->material_surface_tension, d = s->spacing;
    if (strcmp(p->material_tension_model, "mueller") != 0 || !(sigma > 0.0))
        return INFINITY;
    return sqrt(p->material_rest_density * d * d * d / (2.0 * M_PI * sigma));
}

const char *sim_blowup_advice(const fcl_sim *s, char *buf, size_t len)
{
    const fcl_params *p = s->prm;
    double mu = p->material_viscosity, bound = mu > 0.0 ? 0.125 * s->h * s->h * p->material_rest_density / mu : INFINITY;
    double k = p->material_stiffness, sound = k > 0.0 ? 0.4 * s->h / sqrt(k) : INFINITY;
    /* Measured on dam_break (h 2.5 cm, sim.dt 0.25 ms): viscosity 300 ran,
     * 500 blew up at step 63, where this bound is 0.26 and 0.16 ms. A
     * review's run at 1e5 was told to raise the viscosity. */
    if (s->dt_floor_key[0])   /* and what set the bound, a viscosity raised live say (a review) */
        snprintf(buf, len, "the step's bound %.3g s was raised to %s = %g s: lower %s%s%s", s->dt_floor_cfl,
                 s->dt_floor_key, s->dt_floor, s->dt_floor_key, s->dt_floor_by ? ", or " : "",
                 s->dt_floor_by ? s->dt_floor_by : "");
    else if (!s->solver->blowup_advice && p->sim_dt > bound)
        snprintf(buf, len, "sim.dt = %g s is above the explicit viscosity's bound 0.125 h^2 rho0 / mu = %.3g s "
                 "(material.viscosity = %g): lower sim.dt or material.viscosity", p->sim_dt, bound, mu);
    else if (!s->solver->blowup_advice && p->sim_dt > sound)
        /* Pressure waves at c = sqrt(k) (p = k (rho - rho0)) cross a
         * support radius in h / c: a review's sim.dt 0.1 s, 150 times
         * this bound, was told to raise the viscosity. */
        snprintf(buf, len, "sim.dt = %g s is above the pressure waves' bound 0.4 h / sqrt(material.stiffness) = "
                 "%.3g s: lower sim.dt", p->sim_dt, sound);
    else if (s->solver->blowup_more && s->solver->blowup_more(s))
        snprintf(buf, len, "%s; %s", solver_blowup_advice(s->solver), s->solver->blowup_more(s));
    else
        snprintf(buf, len, "%s", solver_blowup_advice(s->solver));
    return buf;
}

const char *sim_blowup_what(const fcl_sim *s, char *buf, size_t len)
{
    if (s->bad_nonfinite)
        snprintf(buf, len, "particle %ld is not finite", s->stats.bad_id);
    else if (fabsf(s->c.max_step_ratio - s->prm->sim_max_step_ratio) > 1e-6f * s->prm->sim_max_step_ratio)
        /* A solver's own bound (mac's substeps raise it): the message once
         * quoted sim.max_step_ratio, below what the particle passed (a
         * review: 1 where mac's bound was 2). */
        snprintf(buf, len, "particle %ld moves more than %.3g support radii per step (the %s solver's bound from "
                 "sim.max_step_ratio = %g)", s->stats.bad_id, s->c.max_step_ratio, s->solver->name,
                 s->prm->sim_max_step_ratio);
    else
        snprintf(buf, len, "particle %ld moves more than sim.max_step_ratio = %g support radii per step",
                 s->stats.bad_id, s->prm->sim_max_step_ratio);
    return buf;
}

double sim_hold_floor(fcl_sim *s, double dt, double dt_min, const char *key, const char *by)
{
    if (dt >= dt_min)
        return dt;
    if (!s->dt_floor_key[0]) {
        snprintf(s->dt_floor_key, sizeof s->dt_floor_key, "%s", key);
        s->dt_floor_by = by;
        s->dt_floor_cfl = dt;
        s->dt_floor = dt_min;
    }
    return dt_min;
}

int sim_step_floor(fcl_sim *s, double dt, double dt_min, double dt_max, const char *group)
{
    char advice[512];
    if (dt >= dt_min)
        return 0;
    /* An emitter's speed (sim_set_emitters refuses one too fast for the
     * floor; a live edit can make it so) is no blow-up to be advised on:
     * the step said "largest speed 0 m/s" and advised a shorter one. */
    double inflow = sim_inflow_speed(s, s->time, s->time + dt_max);
    if (inflow > s->stats.max_speed) {
        snprintf(s->error, sizeof s->error,
                 "the Courant step %.4g s for the emitters' speed %.4g m/s fell below %s.dt_min = %.4g s: expected "
                 "slower emitters, a larger %s.cfl or a lower %s.dt_min", dt, inflow, group, dt_min, group, group);
        return -1;
    }
    /* (an advice naming the floor already says to lower it) */
    snprintf(s->error, sizeof s->error,
             "numerical blow-up: the Courant step %.4g s fell below %s.dt_min = %.4g s (largest speed %.4g m/s); "
             "%s%s%s%s", dt, group, dt_min, s->stats.max_speed, sim_blowup_advice(s, advice, sizeof advice),
             s->dt_floor_key[0] ? "" : ", or lower ", s->dt_floor_key[0] ? "" : group,
             s->dt_floor_key[0] ? "" : ".dt_min if such speeds are real");
    return -1;
}

int sim_neighbors(fcl_sim *s)
{
    if (nlist_build(&s->nl, s->be, s->grid.attr[s->a_pos].cur, &s->grid, sim_bpos(s), &s->bgrid, &s->c,
                    s->grid.attr[s->a_id].cur, s->error, sizeof s->error) != 0)
        return -1;
    return 0;
}

/* Which lists hold wall images: with mirror walls the fluid's, and the
 * boundary's for a solver that mirrors its samples (boundary_images). */
static int list_images(const fcl_sim *s)
{
    if (!s->c.mirror_walls)
        return 0;
    return FCL_NLIST_FLUID_IMAGES | (s->solver->boundary_images ? FCL_NLIST_BOUNDARY_IMAGES : 0);
}

/* Lists for the solver's query radius, laid out for the device: one
 * particle's entries together on CPUs, interleaved on GPUs. */
static int lists_setup(fcl_sim *s, char *err, size_t errlen)
{
    uint cap, bcap;
    list_caps(s->solver, s->prm, s->h, s->spacing, &cap, &bcap);
    if (!cap)
        return 0;
    if (nlist_init(&s->nl, s->be, s->cap, s->nb, (float)(s->solver->list_radius(s->prm) * s->h), s->grid.info.cell_size,
                   cap, bcap, s->be->serial_groups, list_images(s), err, errlen) != 0)
        return -1;
    nlist_set_growth(&s->nl, s->prm->neighbors_capacity == 0, s->prm->neighbors_boundary_capacity == 0);
    return 0;
}

/* material.tension_model as FCL_TENSION_*; the table admits no other
 * names than these three. */
static uint tension_model(const char *name)
{
    if (strcmp(name, "mueller") == 0)
        return FCL_TENSION_MUELLER;
    return strcmp(name, "akinci") == 0 ? FCL_TENSION_AKINCI : FCL_TENSION_NONE;
}

void sim_update_consts(fcl_sim *s)
{
    if (s->user != &s->eff)
        params_copy_live(&s->eff, s->user);
    const fcl_params *p = s->prm;
    fcl_sph_consts *c = &s->c;
    smoothing_consts(c, s->h);
    c->gravity = fcl_f4(p->sim_gravity[0], p->sim_gravity[1], p->sim_gravity[2], 0.0f);
    c->domain_min = fcl_f4(p->domain_min[0], p->domain_min[1], p->domain_min[2], 0.0f);
    c->domain_max = fcl_f4(p->domain_max[0], p->domain_max[1], p->domain_max[2], 0.0f);
    c->rest_density = p->material_rest_density;
    c->surface_tension = p->material_surface_tension;
    c->surface_threshold = p->material_surface_threshold;
    c->tension_model = tension_model(p->material_tension_model);
    c->cohesion = p->material_cohesion;
    c->nsolids = s->nsolids;
    c->restitution = p->domain_restitution;
    c->dt = p->sim_dt;
    c->max_step_ratio = p->sim_max_step_ratio;
    c->n = (uint)s->n;
    c->mirror_walls = strcmp(p->boundary_walls, "mirror") == 0 ? 1u : 0u;
    /* Mirror walls need every particle at least half a spacing inside,
     * where the images are right. Particle walls hold the fluid off by
     * pressure; the clamp at the face itself is only a safety net, and a
     * clamp inside would pile the first layer up against it. */
    c->radius = c->mirror_walls ? 0.5f * s->spacing : 0.0f;
    s->be->workgroup = (int)p->opencl_workgroup;
    if (s->solver && s->solver->derive)
        s->solver->derive(s);
    s->mass = c->mass;
}

int sim_check_fits(const fcl_backend *be, const fcl_params *prm, size_t n, size_t nb, char *err, size_t errlen)
{
    fcl_grid_info info;
    if (grid_layout(&info, prm->domain_min, prm->domain_max, sim_cell_size(prm), n, err, errlen) != 0)
        return -1;
    const fcl_solver *solver = solver_find(prm->sim_solver);
    uint cap, bcap;
    list_caps(solver, prm, prm->particles_support * prm->particles_spacing, prm->particles_spacing, &cap, &bcap);
    /* n is the capacity when it is over the fluid's count (sim_create):
     * then that is what to lower (the message blamed the spacing; a
     * review), set by hand or from the emitters over the run's horizon. */
    int by_cap = prm->particles_capacity > 0 && (long)n == prm->particles_capacity;
    const char *key = by_cap ? "particles.capacity" : "particles.spacing";
    const char *fix = by_cap ? "a smaller particles.capacity (given, or the emitters' output over sim.duration or "
                               "sim.steps when not)"
                             : "a larger spacing or a smaller fluid";
    /* The lists' 32-bit addressing binds on any device, whatever its
     * memory (nlist.c checks the same again at allocation), for the
     * larger of the two lists: the boundary list's 60 entries by default
     * (there is none without boundary particles; it was left out, and a
     * boundary capacity too large was refused after the allocations,
     * naming the fluid's). */
    uint bl = nb ? bcap : 0u, big = bl > cap ? bl : cap;
    const char *capkey = bl > cap ? "neighbors.boundary_capacity" : "neighbors.capacity";
    /* Boundary entries index the boundary particles with the same bits. */
    if (bl && nb >= (size_t)1 << NL_SHIFT) {
        snprintf(err, errlen, "boundary.walls: %zu boundary particles exceed the %lu a neighbor list can index: "
                 "expected a larger particles.spacing, fewer boundary.layers or smaller obstacles", nb,
                 (unsigned long)1 << NL_SHIFT);
        return -1;
    }
    if (big && !nlist_addressable(n, big)) {
        if (n >= (size_t)1 << NL_SHIFT)
            snprintf(err, errlen, "%s: %zu particles exceed the %lu a neighbor list can index: expected %s", key, n,
                     (unsigned long)1 << NL_SHIFT, fix);
        else
            snprintf(err, errlen, "%s: %zu particles x %u entries (%s) exceed the 2^32 entries a neighbor list may "
                     "address: expected %s, or a smaller %s", key, n, big, capkey, fix, capkey);
        return -1;
    }
    size_t need = sim_bytes_needed(solver, prm, &info, nb);
    size_t cells = ((size_t)info.ncells + 1) * sizeof(uint), largest = n * 16 > cells ? n * 16 : cells;
    /* Each list's entries are one buffer too (nlist.c), often the
     * largest: NVIDIA's OpenCL lets one buffer take a quarter of memory. */
    size_t list = (size_t)n * big * 4;
    largest = list > largest ? list : largest;
    /* The native backend shares RAM with the host's staging copies of
     * positions and velocities and the frame buffers (~80 B/particle). */
    if (strcmp(be->kind, "cpu") == 0)
        need += n * 80;
    if ((double)need > 0.9 * (double)be->mem_bytes || largest > be->max_alloc) {
        /* A large domain for little fluid: the grid's cells are the cost
         * when they are most of it (sim_bytes_needed: the fluid's and the
         * boundary's cell starts, and with lists and walls a flag a cell;
         * a share of 22 % was once blamed). */
        char gridfix[200];
        double cell_bytes = 4.0 * ((double)info.ncells + 1.0) * (cap && nb ? 3.0 : 2.0);
        int grid = cell_bytes > 0.5 * (double)need;
        snprintf(gridfix, sizeof gridfix, "a smaller domain or a larger spacing (the neighbor grid's %u cells over the "
                 "domain take %.0f %% of it)", info.ncells, 100.0 * cell_bytes / (double)need);
        snprintf(err, errlen, "%s: %zu particles need %.1f MiB (largest buffer %.1f MiB) but %s has %.1f MiB "
                 "(largest buffer %.1f MiB): expected %s", grid ? "domain" : key, n, need / 1048576.0,
                 largest / 1048576.0, be->name, be->mem_bytes / 1048576.0, be->max_alloc / 1048576.0,
                 grid ? gridfix : fix);
        return -1;
    }
    /* The solver's own buffers beside the particles', once those fit (a
     * mac grid was blamed where the particles alone did not; a review). */
    if (solver && solver->fits && solver->fits(prm, be, (double)need, err, errlen) != 0)
        return -1;
    return 0;
}

static int upload(fcl_sim *s, const float4 *pos, const float4 *vel)
{
    fcl_backend *be = s->be;
    uint *id = malloc(s->n * sizeof *id + 1);
    if (!id)
        return -1;
    /* Global ids: this process's offset plus the local index. */
    for (size_t i = 0; i < s->n; i++)
        id[i] = s->id_offset + (uint)i;
    s->next_id = s->id_offset + (uint)s->n;
    fcl_attr *a = s->grid.attr;
    int rc = be->ops->buf_write(be, a[s->a_pos].cur, 0, s->n * 16, pos) |
             be->ops->buf_write(be, a[s->a_vel].cur, 0, s->n * 16, vel) |
             be->ops->buf_write(be, a[s->a_vev].cur, 0, s->n * 16, vel) |
             be->ops->buf_write(be, a[s->a_id].cur, 0, s->n * 4, id);
    free(id);
    return rc;
}

static int alloc_common(fcl_sim *s)
{
    fcl_backend *be = s->be;
    fcl_grid *g = &s->grid;
    s->a_pos = grid_add_attr(g, be, "position", 16);
    s->a_vel = grid_add_attr(g, be, "velocity", 16);
    s->a_vev = grid_add_attr(g, be, "velocity at t", 16);
    s->a_id = grid_add_attr(g, be, "particle id", 4);
    g->key_attr = s->a_id;    /* cell order by id: see grid_sort_cells */
    s->rho = be->ops->buf_new(be, s->cap * 4, "density");
    s->prs = be->ops->buf_new(be, s->cap * 4, "pressure");
    s->acc = be->ops->buf_new(be, s->cap * 16, "acceleration");
    s->normals = be->ops->buf_new(be, s->cap * 16, "surface normals");
    s->surface = be->ops->buf_new(be, s->cap * 4, "surface flag");
    s->solids = be->ops->buf_new(be, sizeof(fcl_solid), "obstacles");
    s->phases = be->ops->buf_new(be, FCL_PHASES_MAX * sizeof(fcl_phase), "fluid phases");
    s->partials = be->ops->buf_new(be, (s->cap / FCL_WG + 1) * sizeof(fcl_stats_partial), "stats");
    s->host_partials = malloc((s->cap / FCL_WG + 1) * sizeof(fcl_stats_partial));
    s->stats_serial = be->serial_groups;
    s->k_stats = s->stats_serial ? NULL : be->ops->kernel(be, "stats");
    return (s->a_pos < 0 || s->a_vel < 0 || s->a_vev < 0 || s->a_id < 0 || !s->rho || !s->prs ||
            !s->acc || !s->normals || !s->surface || !s->partials || !s->host_partials ||
            (!s->stats_serial && !s->k_stats) || !s->solids || !s->phases)
               ? -1 : 0;
}

int sim_normals(fcl_sim *s)
{
    if (s->c.tension_model != FCL_TENSION_AKINCI)
        return 0;
    /* The step's fluid list where it reaches h (every caller runs after
     * the step's build), else the cell walk. */
    if (s->nl.fcount && s->nl.fl.r >= s->c.h)
        return pass_forces_normals_nl(s->be, s->n, "forces", sim_attr(s, s->a_pos), s->rho, s->nl.fcount,
                                      s->nl.fidx, s->normals, s->nl.fl, s->c);
    return pass_forces_normals(s->be, s->n, "forces", sim_attr(s, s->a_pos), s->rho, s->grid.start, s->normals,
                               s->grid.info, s->c);
}

/* The grid and s->rho are used as the step left them; see sim.h for how
 * current they are after each solver's step. */
int sim_surface_flag(fcl_sim *s, fcl_buf *out)
{
    if (s->n == 0)
        return 0;
    return pass_surface_flag(s->be, s->n, "surface-flag", s->grid.attr[s->a_pos].cur, s->rho, s->grid.start,
                             out ? out : s->surface, s->grid.info, s->c);
}

int sim_download_surface(fcl_sim *s, float *flag)
{
    fcl_backend *be = s->be;
    if (s->n == 0)
        return 0;
    return sim_surface_flag(s, NULL) != 0 || be->ops->buf_read(be, s->surface, 0, s->n * 4, flag) != 0 ? -1 : 0;
}

int sim_set_phases(fcl_sim *s, const fcl_phase_decl *ph, int n, char *err, size_t errlen)
{
    int rc = solver_check_phases(s->solver, s->prm, ph, n, err, errlen);
    if (rc != 0)
        return rc;
    fcl_phase t[FCL_PHASES_MAX];
    memset(t, 0, sizeof t);
    for (int k = 0; k < n && k < FCL_PHASES_MAX; k++) {
        t[k].density = ph[k].density;
        t[k].viscosity = ph[k].viscosity;
        t[k].sound_speed = ph[k].sound_speed;
    }
    float4 *pos = s->n ? malloc(s->n * sizeof *pos) : NULL;
    if (s->n && (!pos || sim_download(s, pos, NULL, NULL, NULL, NULL) != 0)) {
        free(pos);
        return FCL_EXIT_DEVICE;
    }
    for (size_t i = 0; i < s->n; i++)
        if (!(pos[i].w >= 0.0f && pos[i].w < (float)(n > 0 ? n : 1) && pos[i].w == floorf(pos[i].w))) {
            snprintf(err, errlen, "phases: particle %zu has phase %g, not one of the %d given", i, pos[i].w,
                     n > 0 ? n : 1);
            free(pos);
            return FCL_EXIT_INPUT;
        }
    free(pos);
    s->nphases = (uint)n;
    memcpy(s->phase_table, t, sizeof t);
    sim_update_consts(s);
    return s->be->ops->buf_write(s->be, s->phases, 0, sizeof t, t) != 0 ? FCL_EXIT_DEVICE : 0;
}

int sim_set_targets(fcl_sim *s, const struct fcl_target *t, int n, char *err, size_t errlen)
{
    if (n <= 0)
        return 0;
    if (solver_check_targets(s->solver, n, err, errlen) != 0)
        return FCL_EXIT_INPUT;
    return s->solver->set_targets(s, t, n, err, errlen) == 0 ? 0 : FCL_EXIT_INPUT;
}

static int measure(fcl_sim *s);

/* The boundary grid shares the fluid grid's layout, so one cell index
 * finds both kinds of neighbor; it is sorted once, here. */
static int boundary_setup(fcl_sim *s, const float4 *bpos, size_t nb)
{
    fcl_backend *be = s->be;
    fcl_grid_info info = s->grid.info;
    info.n = (uint)nb;
    s->nb = nb;
    if (grid_init(&s->bgrid, be, &info) != 0 ||
        (s->b_pos = grid_add_attr(&s->bgrid, be, "boundary position", 16)) < 0)
        return -1;
    if (nb == 0)
        return 0;
    /* w: the layer tags for a solver that reads them, else 0 as the
     * volume kernels have always found it. */
    float4 *up = malloc(nb * sizeof *up);
    if (!up)
        return -1;
    for (size_t i = 0; i < nb; i++)
        up[i] = fcl_f4(bpos[i].x, bpos[i].y, bpos[i].z, s->solver->boundary_tags ? bpos[i].w : 0.0f);
    int rc = be->ops->buf_write(be, s->bgrid.attr[s->b_pos].cur, 0, nb * 16, up);
    free(up);
    return rc != 0 ? -1 : grid_build(&s->bgrid, be, s->b_pos);
}

int sim_download_boundary(fcl_sim *s, float4 *out)
{
    return s->nb ? s->be->ops->buf_read(s->be, sim_bpos(s), 0, s->nb * 16, out) : 0;
}

fcl_buf *sim_bpos(fcl_sim *s)
{
    return s->bgrid.attr[s->b_pos].cur;
}

fcl_buf *sim_attr(fcl_sim *s, int a)
{
    return s->grid.attr[a].cur;
}

int sim_boundary_volumes(fcl_sim *s, uint kind, float cubic_k)
{
    fcl_backend *be = s->be;
    if (s->nb == 0)
        return 0;
    if (s->solver->boundary_tags) {
        snprintf(s->error, sizeof s->error, "solver %s keeps boundary layer tags in bpos.w: no volumes there",
                 s->solver->name);
        return -1;
    }
    fcl_buf *vol = be->ops->buf_new(be, s->nb * 4, "boundary volumes");
    float gamma = (float)smoothing_wall_gamma(kind, s->h, s->spacing, (int)s->prm->boundary_layers);
    int rc = (!vol ||
              pass_boundary_volume(be, s->nb, "boundary", sim_bpos(s), s->bgrid.start, vol, s->bgrid.info, s->c, kind,
                                   cubic_k, gamma) != 0 ||
              pass_boundary_pack(be, s->nb, "boundary", sim_bpos(s), vol) != 0 || be->ops->finish(be) != 0) ? -1 : 0;
    be->ops->buf_free(be, vol);
    return rc;
}

int sim_create(fcl_sim *s, fcl_backend *be, const fcl_params *prm, const float4 *pos, const float4 *vel,
               size_t n, const float4 *bpos, size_t nb, char *err, size_t errlen)
{
    const fcl_solver *solver = solver_find(prm->sim_solver);
    if (!solver) {
        char names[256];
        memset(s, 0, sizeof *s);
        solver_names(names, sizeof names);
        snprintf(err, errlen, "sim.solver: unknown solver '%s' (expected one of: %s)", prm->sim_solver, names);
        return FCL_EXIT_INPUT;
    }
    return sim_create_solver(s, solver, be, prm, pos, vel, n, bpos, nb, err, errlen);
}

int sim_create_solver(fcl_sim *s, const fcl_solver *solver, fcl_backend *be, const fcl_params *prm,
                      const float4 *pos, const float4 *vel, size_t n, const float4 *bpos, size_t nb, char *err,
                      size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->be = be;
    s->user = prm;
    s->eff = *prm;
    s->prm = prm = &s->eff;
    s->n = n;
    s->cap = prm->particles_capacity > (long)n ? (size_t)prm->particles_capacity : n;
    s->spacing = prm->particles_spacing;
    s->h = prm->particles_support * prm->particles_spacing;
    /* h and the spacing are fixed for a simulation; rho0 is live. */
    s->lattice_sum = smoothing_lattice_sum(s->h, s->spacing);
    s->solver = solver;
    fcl_grid_info info;
    if (solver_check_support(solver, prm, err, errlen) != 0 || sim_check_fits(be, prm, s->cap, nb, err, errlen) != 0 ||
        grid_layout(&info, prm->domain_min, prm->domain_max, sim_cell_size(prm), n, err, errlen) != 0)
        return FCL_EXIT_INPUT;
    sim_update_consts(s);
    int irc = -1;
    if (grid_init_cap(&s->grid, be, &info, s->cap) != 0 || alloc_common(s) != 0 || upload(s, pos, vel) != 0 ||
        boundary_setup(s, bpos, nb) != 0 || lists_setup(s, err, errlen) != 0 ||
        (irc = s->solver->init(s, err, errlen)) != 0 ||
        (n > 0 && (s->solver->prepare(s) != 0 || measure(s) != 0 || be->ops->finish(be) != 0))) {
        /* A solver refuses its own parameters (a grid too large) as bad
         * input, with err naming the key. */
        if (irc == FCL_EXIT_INPUT)
            return FCL_EXIT_INPUT;
        /* What the first step's passes said: a list over the user's
         * neighbors.capacity names the particle and the key, bad input. */
        if (!*err && s->error[0])
            snprintf(err, errlen, "%s", s->error);
        if (s->nl.overflowed)
            return FCL_EXIT_INPUT;
        if (!*err)
            snprintf(err, errlen, "setting up the simulation on %s failed (see above)", be->name);
        return FCL_EXIT_DEVICE;
    }
    s->stats.bad_id = -1;
    return 0;
}

/* Fold the per-group partials of the stats pass into s->stats, then
 * across processes (dist/reduce.h). */
static int measure(fcl_sim *s)
{
    fcl_backend *be = s->be;
    size_t groups = (s->n + FCL_WG - 1) / FCL_WG;
    fcl_buf *pos = s->grid.attr[s->a_pos].cur, *vev = s->grid.attr[s->a_vev].cur;
    /* GPUs: the work-group tree `stats` (OpenCL only, not a twin pass). */
    fcl_arg args[] = { FCL_BUF(pos), FCL_BUF(vev), FCL_BUF(s->rho), FCL_BUF(s->partials), FCL_VAL(s->c) };
    fcl_stats_partial *part = s->host_partials;
    int rc = s->stats_serial ? pass_stats_chunks(be, groups, "stats", pos, vev, s->rho, s->partials, s->c)
                             : be->ops->launch(be, s->k_stats, s->n, args, FCL_NARGS(args), "stats");
    if (rc != 0 || be->ops->buf_read(be, s->partials, 0, groups * sizeof *part, part) != 0)
        return -1;
    double m2 = 0.0, sum = 0.0, mx = 0.0;
    uint bad = 0xffffffffu, id = 0xffffffffu;
    for (size_t g = 0; g < groups; g++) {
        m2 = fmax(m2, part[g].max_speed2);
        sum += part[g].sum_density_err;
        mx = fmax(mx, part[g].max_density_err);
        bad = part[g].first_bad < bad ? part[g].first_bad : bad;
    }
    if (bad != 0xffffffffu && be->ops->buf_read(be, s->grid.attr[s->a_id].cur, (size_t)bad * 4, 4, &id) != 0)
        return -1;
    /* Which of the two the blow-up is (the message said "not finite or
     * moves more than"; a review): one more read, only then. */
    float4 bp = fcl_f4(0.0f, 0.0f, 0.0f, 0.0f), bv = bp;
    float brho = 0.0f;   /* the stats pass flags a density that is not finite too */
    if (bad != 0xffffffffu && (be->ops->buf_read(be, pos, (size_t)bad * 16, 16, &bp) != 0 ||
                               be->ops->buf_read(be, vev, (size_t)bad * 16, 16, &bv) != 0 ||
                               be->ops->buf_read(be, s->rho, (size_t)bad * 4, 4, &brho) != 0))
        return -1;
    s->bad_nonfinite = !(isfinite(bp.x) && isfinite(bp.y) && isfinite(bp.z) && isfinite(bv.x) && isfinite(bv.y) &&
                         isfinite(bv.z) && isfinite(brho));
    double n = fcl_reduce_sum((double)s->n);
    uint64_t bad_id = fcl_reduce_min_u64(bad != 0xffffffffu ? id : UINT64_MAX);
    fcl_step_stats *st = &s->stats;
    st->max_speed = sqrt(fcl_reduce_max(m2));
    st->avg_density_err = n > 0.0 ? 100.0 * fcl_reduce_sum(sum) / n : 0.0;
    st->max_density_err = 100.0 * fcl_reduce_max(mx);
    st->bad_id = bad_id == UINT64_MAX ? -1 : (long)bad_id;
    return 0;
}

int sim_step(fcl_sim *s)
{
    sim_update_consts(s);
    /* A step with no particles (before an emitter's first layer) takes the
     * solver's longest step, which the emitters' capacity default and the
     * command line's horizon assume: sim.dt under a solver that times its
     * own steps made them disagree (a dfsph scene at sim.dt 0.02 run by pbf
     * was told it ended before its emitter opened, then had room for none). */
    double empty_dt = s->n ? 0.0 : solver_longest_dt(s->solver, s->prm);
    if (s->n == 0) { /* nothing moved: no speeds, errors or solver figures (the last step's are not this one's) */
        s->step++;
        s->time += empty_dt;
        s->stats.max_speed = s->stats.avg_density_err = s->stats.max_density_err = 0.0;
        s->stats.bad_id = -1;
        memset(s->stats.solver, 0, sizeof s->stats.solver);
    } else {
        s->dt_used = s->c.dt;
        s->error[0] = '\0';
        if (s->solver->step(s) != 0 || measure(s) != 0 || s->be->ops->finish(s->be) != 0) {
            if (s->error[0])
                fprintf(stderr, "fluidcl: step %ld: %s\n", s->step + 1, s->error);
            return FCL_EXIT_DEVICE;
        }
        s->step++;
        s->time += s->dt_used;
    }
    double dt = s->n ? s->dt_used : empty_dt;
    /* Inflow after the step, so the new particles join the next one. The
     * blow-up verdict stays the step's: new particles have not moved, and
     * their speed times the step's dt, chosen before they came, read as a
     * blow-up (a 25 m/s jet stopped pbf and mps at step 1; the next step's
     * Courant bound sees their speed). */
    long bad = s->stats.bad_id;
    s->error[0] = '\0';
    int erc = sim_emit(s, s->time - dt, s->time);
    if (erc == 0)
        erc = sim_outflow(s);
    /* The row describes the particles left, as adding them re-measures:
     * a step whose outflow took every particle reported the speed and
     * errors of the particles it removed. */
    if (erc == 0 && s->stats.removed > 0 && s->n == 0)
        s->stats.max_speed = s->stats.avg_density_err = s->stats.max_density_err = 0.0;
    else if (erc == 0 && s->stats.removed > 0 && measure(s) != 0)
        erc = FCL_EXIT_DEVICE;
    s->stats.bad_id = bad;
    if (erc != 0) {
        fprintf(stderr, "fluidcl: step %ld: %s\n", s->step, s->error[0] ? s->error : "inflow or outflow failed");
        return erc;
    }
    s->stats.step = s->step;
    s->stats.time = s->time;
    s->stats.dt = dt;
    return 0;
}

/* Zeros for the new particles' slots of every attribute after position,
 * velocities and id (solver state such as warm starts starts empty). */
static int clear_new_slots(fcl_sim *s, size_t k)
{
    void *zero = calloc(k, 16);
    int rc = zero ? 0 : -1;
    for (int a = 0; a < s->grid.nattr && rc == 0; a++)
        if (a != s->a_pos && a != s->a_vel && a != s->a_vev && a != s->a_id)
            rc = s->be->ops->buf_write(s->be, s->grid.attr[a].cur, s->n * s->grid.attr[a].elem,
                                       k * s->grid.attr[a].elem, zero);
    free(zero);
    return rc;
}

/* Pressure and the solver's published fields are per-particle buffers
 * outside the grid, in the order of the last step: once particles are
 * added or removed and prepare() reorders them, they would belong to
 * other particles. So they are carried through the host: taken before the
 * change (compacted like the attributes when particles leave), and put
 * back after it in the order of a rebuild made here, which prepare()'s
 * own rebuild keeps (the particles are already in cell order, and within
 * a cell in the order of the sort's key). prepare() recomputes what it
 * can; a frame at that step shows the step's values of the particles that
 * stay (they once read 0: a review) and 0 for new ones. Every solver
 * recomputes these fields each step, so a resumed run, which starts with
 * them at 0, writes the same frames. */
static int derived_buffers(fcl_sim *s, fcl_buf **b)
{
    int nb = 0;
    b[nb++] = s->prs;
    for (int k = 0; s->solver && k < s->solver->nfields; k++)
        b[nb++] = s->solver->fields[k].buffer(s);
    return nb;
}

float *sim_derived_take(fcl_sim *s, const unsigned char *gone)
{
    fcl_buf *b[1 + FCL_SOLVER_FIELDS_MAX];
    int nb = derived_buffers(s, b);
    float *v = calloc((size_t)nb * s->cap + 1, sizeof *v);
    for (int k = 0; v && k < nb; k++) {
        float *f = v + (size_t)k * s->cap;
        if (!b[k] || s->be->ops->buf_read(s->be, b[k], 0, s->n * 4, f) != 0) {
            free(v);
            return NULL;
        }
        size_t j = 0;
        for (size_t i = 0; gone && i < s->n; i++)
            if (!gone[i])
                f[j++] = f[i];
        if (gone)
            memset(f + j, 0, (s->n - j) * sizeof *f);
    }
    return v;
}

int sim_derived_put(fcl_sim *s, float *v)
{
    fcl_buf *b[1 + FCL_SOLVER_FIELDS_MAX];
    int nb = derived_buffers(s, b);
    uint *order = malloc(s->n * sizeof *order + 1);
    float *f = malloc(s->n * sizeof *f + 1);
    int rc = !v || !order || !f || grid_build(&s->grid, s->be, s->a_pos) != 0 ||
             s->be->ops->buf_read(s->be, s->grid.order, 0, s->n * 4, order) != 0;
    for (int k = 0; !rc && k < nb; k++) {
        const float *old = v + (size_t)k * s->cap;
        for (size_t i = 0; i < s->n; i++)
            f[i] = old[order[i]];
        rc = s->be->ops->buf_write(s->be, b[k], 0, s->n * 4, f) != 0;
    }
    free(order);
    free(f);
    free(v);
    return rc ? -1 : 0;
}

int sim_add_particles(fcl_sim *s, const float4 *pos, const float4 *vel, size_t k, char *err, size_t errlen)
{
    if (k == 0)
        return 0;
    if (s->n + k > s->cap) {
        snprintf(err, errlen, "particles.capacity: %zu particles and %zu more exceed the capacity %zu", s->n, k,
                 s->cap);
        return FCL_EXIT_INPUT;
    }
    fcl_backend *be = s->be;
    fcl_attr *a = s->grid.attr;
    uint *id = malloc(k * sizeof *id);
    float *kept = sim_derived_take(s, NULL);
    if (!id || !kept) {
        free(id);
        free(kept);
        snprintf(err, errlen, "adding %zu particles: reading the %zu particles' pressure and fields from %s (or "
                 "host memory for them) failed", k, s->n, be->name);
        return FCL_EXIT_DEVICE;
    }
    for (size_t i = 0; i < k; i++)
        id[i] = s->next_id + (uint)i;
    int rc = be->ops->buf_write(be, a[s->a_pos].cur, s->n * 16, k * 16, pos) |
             be->ops->buf_write(be, a[s->a_vel].cur, s->n * 16, k * 16, vel) |
             be->ops->buf_write(be, a[s->a_vev].cur, s->n * 16, k * 16, vel) |
             be->ops->buf_write(be, a[s->a_id].cur, s->n * 4, k * 4, id) | clear_new_slots(s, k);
    free(id);
    if (rc != 0) {
        free(kept);
        snprintf(err, errlen, "adding %zu particles on %s failed", k, be->name);
        return FCL_EXIT_DEVICE;
    }
    s->next_id += (uint)k;
    s->n += k;
    grid_set_count(&s->grid, s->n);
    sim_update_consts(s);
    /* The derived fields (density, the solver's own) for the new set. */
    s->error[0] = '\0';
    if (sim_derived_put(s, kept) != 0 || s->solver->prepare(s) != 0 || measure(s) != 0 ||
        be->ops->finish(be) != 0) {
        char why[sizeof s->error];
        snprintf(why, sizeof why, "%s", s->error);
        snprintf(err, errlen, "updating the simulation after adding %zu particles (%zu in all) failed%s%s", k, s->n,
                 why[0] ? ": " : "", why);
        return FCL_EXIT_DEVICE;
    }
    return 0;
}

int sim_download(fcl_sim *s, float4 *pos, float4 *vel, float *rho, float *prs, uint *id)
{
    fcl_backend *be = s->be;
    fcl_attr *a = s->grid.attr;
    int rc = 0;
    if (pos) rc |= be->ops->buf_read(be, a[s->a_pos].cur, 0, s->n * 16, pos);
    if (vel) rc |= be->ops->buf_read(be, a[s->a_vev].cur, 0, s->n * 16, vel);
    if (rho) rc |= be->ops->buf_read(be, s->rho, 0, s->n * 4, rho);
    if (prs) rc |= be->ops->buf_read(be, s->prs, 0, s->n * 4, prs);
    if (id) rc |= be->ops->buf_read(be, a[s->a_id].cur, 0, s->n * 4, id);
    return rc ? -1 : 0;
}

void sim_destroy(fcl_sim *s)
{
    if (!s->be)
        return;
    if (s->solver && s->solver->destroy)
        s->solver->destroy(s);
    fcl_backend *be = s->be;
    be->ops->buf_free(be, s->rho);
    be->ops->buf_free(be, s->prs);
    be->ops->buf_free(be, s->acc);
    be->ops->buf_free(be, s->normals);
    be->ops->buf_free(be, s->surface);
    be->ops->buf_free(be, s->solids);
    be->ops->buf_free(be, s->phases);
    be->ops->buf_free(be, s->partials);
    free(s->host_partials);
    nlist_free(&s->nl, be);
    grid_free(&s->grid, be);
    grid_free(&s->bgrid, be);
    memset(s, 0, sizeof *s);
}
