/* sim.h - one simulation: particles on a backend, their neighbor grid, the
 * solver that advances them, and per-step statistics.
 *
 * Data flows one way: parameters (read at every step, so live edits apply
 * at the next one) -> solver step -> grid -> passes -> stats -> outputs.
 * Invariant: between steps every grid attribute is in cell order and
 * rho/prs/acc refer to that order.
 */
#ifndef FCL_SIM_H
#define FCL_SIM_H

#include <stddef.h>

#include "backend.h"
#include "grid.h"
#include "nlist.h"
#include "params.h"
#include "solver.h"

/* Exit codes of the command-line tool. */
enum { FCL_EXIT_OK = 0, FCL_EXIT_INPUT = 2, FCL_EXIT_DEVICE = 3 };

typedef struct fcl_step_stats {
    long step;
    double time, dt;
    double max_speed;
    double avg_density_err, max_density_err;  /* percent, compression only */
    long bad_id;            /* original index of a blown-up particle, or -1 */
    long emitted, refused;  /* particles the emitters added this step, and
                               those over particles.capacity (emit.c) */
    long removed;           /* particles the outflow regions took this step */
    /* The solver's own statistics, as its declaration lists them
     * (solver->stats; sim_stat finds one by key). */
    double solver[FCL_SOLVER_STATS_MAX];
} fcl_step_stats;

typedef struct fcl_sim {
    fcl_backend *be;
    /* The parameters the simulation runs on: eff, a copy of the caller's
     * table at creation whose live parameters (params.def) are copied from
     * *user before every step (sim_update_consts). A parameter not marked
     * live keeps its value until the simulation is made again: one changed
     * through *user mid-run was applied half-way, a derive hook re-reading
     * it beside state sized for the old value (mps.re_density, the wcsph
     * density kernel; a review). */
    const fcl_params *prm;            /* = &eff */
    const fcl_params *user;
    fcl_params eff;
    const fcl_solver *solver;
    void *solver_data;
    size_t n;                        /* particles now */
    size_t cap;                      /* particles the buffers hold
                                        (particles.capacity, >= n) */
    uint id_offset;                  /* global ids: id_offset + local
                                        index (0 in one process) */
    uint next_id;                    /* the id the next added particle gets */
    float spacing, h, mass;
    double lattice_sum;              /* sum of W_poly6 over a resting lattice */
    fcl_grid grid;
    /* Static boundary particles (Akinci 2012), sorted once on the fluid
     * grid's layout; position w holds each one's volume, which the solver
     * computes with its own kernel (sim_boundary_volumes), or, for a
     * solver with boundary_tags, its layer index (solver.h). nb may be 0. */
    size_t nb;
    fcl_grid bgrid;
    int b_pos;
    /* Neighbor lists within solver->list_radius support radii (fluid with
     * wall images, and boundary), rebuilt by sim_neighbors after each
     * grid rebuild; unused (nl.fl.cap = 0) when the solver asks for none. */
    fcl_nlist nl;
    char error[1024];                /* why the last step failed, if it
                                        says more than the backend did */
    int a_pos, a_vel, a_vev, a_id;   /* grid attributes: position, leapfrog
                                        velocity, velocity at t, original id */
    fcl_buf *rho, *prs, *acc, *partials;
    fcl_buf *normals;                /* Akinci 2013 surface normals (float4),
                                        filled by forces_normals when the
                                        tension model needs them */
    fcl_buf *surface;                /* Mueller's free-surface flag (float),
                                        filled by sim_surface_flag */
    fcl_stats_partial *host_partials;  /* one per FCL_WG particles */
    fcl_kernel *k_stats;             /* the GPU tree `stats`; NULL on CPU
                                        devices (pass stats_chunks) */
    fcl_buf *phases;                 /* the fluid phases (fcl_phase, FCL_PHASES_MAX
                                        slots); a fluid particle's pos.w is its
                                        phase index. nphases = 0: one phase, the
                                        material.* parameters */
    uint nphases;
    fcl_phase phase_table[FCL_PHASES_MAX];   /* the host's copy */
    /* Emitters (emit.c): the scene's (borrowed), each one's travel since
     * its last layer, and totals. */
    const struct fcl_emitter *emitters;
    int nemitters;
    double emit_acc[16];
    long emitted, refused, removed;
    int emit_warned;
    int emit_blocked_warned;
    int emit_overlap_warned;
    int emit_walled_warned;
    const struct fcl_outflow *outflows;      /* the scene's (borrowed) */
    int noutflows;
    fcl_buf *solids;                 /* box and sphere obstacles (fcl_solid,
                                        at least one slot), c.nsolids used */
    uint nsolids;
    int nmeshes;                     /* mesh obstacles: boundary particles
                                        alone stand for them */
    int stats_serial;                /* 1: per-group stats_chunks */
    fcl_sph_consts c;
    double dt_used;                  /* set by the solver's step() */
    /* Set by a solver whose step's bound (Courant, or dfsph's viscous and
     * capillary bounds), in the last step, fell below its dt_min and was
     * raised to it (the key, the bound, the floor): blow-up advice names
     * the floor, not the Courant number. Empty otherwise. */
    char dt_floor_key[32];
    double dt_floor_cfl, dt_floor;
    /* The parameter whose bound that was, where it is not the Courant
     * speed's (a viscosity, the surface tension): the advice names it
     * too. NULL otherwise. */
    const char *dt_floor_by;
    /* The blown-up particle (stats.bad_id) has a position, velocity or
     * density that is not finite, rather than moving too far: for the
     * message. */
    int bad_nonfinite;
    long step;
    double time;
    fcl_step_stats stats;
} fcl_sim;

/* Particles start at pos with velocity vel (w ignored); bpos holds nb
 * boundary particles (may be NULL with nb = 0). Returns 0,
 * FCL_EXIT_INPUT when the scene does not fit the backend's memory, or
 * FCL_EXIT_DEVICE; err says why. */
int sim_create(fcl_sim *s, fcl_backend *be, const fcl_params *prm, const float4 *pos, const float4 *vel,
               size_t n, const float4 *bpos, size_t nb, char *err, size_t errlen);
/* sim_create with the given solver instead of prm's sim.solver (tests
 * drive solvers that are not registered). */
int sim_create_solver(fcl_sim *s, const fcl_solver *solver, fcl_backend *be, const fcl_params *prm,
                      const float4 *pos, const float4 *vel, size_t n, const float4 *bpos, size_t nb, char *err,
                      size_t errlen);
/* Append k particles (ids continue from next_id) within the capacity;
 * the pressure and the solver's fields are carried through the host and a
 * grid rebuild (sim_derived_take/put), then prepare() brings the derived
 * fields up to date. 0, FCL_EXIT_INPUT (over particles.capacity, err says
 * so) or FCL_EXIT_DEVICE. */
int sim_add_particles(fcl_sim *s, const float4 *pos, const float4 *vel, size_t k, char *err, size_t errlen);
/* The pressure and the solver's fields (buffers outside the grid, in the
 * last step's order) across a change of the particle set: take reads them
 * (gone[i] != 0: particle i leaves, compacted like the attributes; NULL:
 * all stay), NULL when out of memory; put, once s->n is the new count and
 * before prepare(), writes them back in the order of a rebuild it makes,
 * 0 in new slots, and frees v: 0 or -1. */
float *sim_derived_take(fcl_sim *s, const unsigned char *gone);
int sim_derived_put(fcl_sim *s, float *v);
/* The box and sphere obstacles the integrators keep particles out of,
 * grown by half a spacing (the closest approach to their boundary
 * samples), and polygons' slabs (their triangles, from half a spacing in
 * front to their thickness behind), and meshes as signed distance fields
 * (their files read again, placed as the boundary's; host mesh_sdf.c).
 * Call after sim_create; n = 0 clears them. 0, or FCL_EXIT_DEVICE (a
 * mesh that cannot be read says why on stderr). */
struct fcl_obstacle;
int sim_set_solids(fcl_sim *s, const struct fcl_obstacle *obs, int n);
/* The scene's fluid phases (n = 0: one, from material.*), for solvers
 * that read s->phases; call after sim_create. 0, FCL_EXIT_INPUT (more
 * phases than the solver simulates, or a particle whose pos.w names no
 * phase; err says which) or FCL_EXIT_DEVICE. */
struct fcl_phase_decl;
int sim_set_phases(fcl_sim *s, const struct fcl_phase_decl *ph, int n, char *err, size_t errlen);
/* The scene's emitters (borrowed: they must outlive the simulation),
 * for sim_emit after each step. 0, or FCL_EXIT_INPUT (an emitter's phase
 * is not one of the simulation's). */
struct fcl_emitter;
int sim_set_emitters(fcl_sim *s, const struct fcl_emitter *e, int n, char *err, size_t errlen);
/* The emitters' layers for the step from t0 to t1 (sim_step calls it):
 * stats.emitted and stats.refused are this step's counts. 0, or an exit
 * code. */
int sim_emit(fcl_sim *s, double t0, double t1);
/* The scene's outflow regions (borrowed), and their removal after each
 * step (sim_step calls it after sim_emit): particles inside a region are
 * taken out, the others keep their order and ids, and the solver's
 * derived fields are brought up to date; stats.removed counts them. 0,
 * or FCL_EXIT_DEVICE. */
struct fcl_outflow;
int sim_set_outflows(fcl_sim *s, const struct fcl_outflow *o, int n);
int sim_outflow(fcl_sim *s);
/* Whether every emitter's accumulated travel is one a run leaves between
 * steps (finite, from 0 up to one layer's step; 0 past the scene's
 * emitters), for checkpoints read back. 1 or 0. */
int sim_emit_acc_valid(const fcl_sim *s);
/* The scene's fluid-control targets (n = 0: none, always fine), for
 * the solver's set_targets; call after sim_set_solids. 0,
 * FCL_EXIT_INPUT (the solver has no fluid control, or a target is bad;
 * err says which) or FCL_EXIT_DEVICE. */
struct fcl_target;
int sim_set_targets(fcl_sim *s, const struct fcl_target *t, int n, char *err, size_t errlen);
/* Boundary volumes V_b = 1 / sum_k W_bk with the solver's density kernel
 * (kind 0: poly6, 1: cubic spline with constant cubic_k), into bpos.w. */
int sim_boundary_volumes(fcl_sim *s, uint kind, float cubic_k);
/* The boundary positions (w = volume, or the layer index for a solver
 * with boundary_tags) and cell starts for kernel args. */
fcl_buf *sim_bpos(fcl_sim *s);
/* The current buffer of particle attribute a (s->a_pos, a solver's own
 * grid_add_attr index, ...): the grid's reorder swaps it every rebuild. */
fcl_buf *sim_attr(fcl_sim *s, int a);
/* The s->nb boundary particles as the device holds them (grid order). */
int sim_download_boundary(fcl_sim *s, float4 *out);
/* The user's force (Mueller 2003, 3.4; the viewer's drag): within radius
 * of the ray from origin along the unit dir, velocities change by dv
 * weighted (1 - d^2/radius^2)^2: the particles', or the solver's own state
 * where it has one (solver.h interact). 0, or -1 (device). */
int sim_interact(fcl_sim *s, const float origin[3], const float dir[3], const float dv[3], float radius);
/* One step; 0 or FCL_EXIT_DEVICE. A blow-up is not an error here: it is
 * reported in s->stats.bad_id for the caller to act on. */
int sim_step(fcl_sim *s);
/* Copy the current state to the host; any pointer may be NULL. The order
 * is the grid's (use id for the original index). */
int sim_download(fcl_sim *s, float4 *pos, float4 *vel, float *rho, float *prs, uint *id);
void sim_destroy(fcl_sim *s);
/* The grid's cell size: the support h, or the solver's list radius
 * where that is larger (MPS's re), so a list build walks 27 cells. */
float sim_cell_size(const fcl_params *p);
/* Device bytes a scene of n particles (grid->n) and nb boundary
 * particles needs with this solver (its neighbor lists included). */
size_t sim_bytes_needed(const fcl_solver *solver, const fcl_params *prm, const fcl_grid_info *grid, size_t nb);
/* Whether a solver's own `need` bytes (a grid, a coarse level, wall
 * unknowns: what sim_bytes_needed does not count) fit beside s's
 * particles within 90 % of the device's memory; *parts gets the
 * particles' bytes for the refusal's message. */
int sim_fits_beside(const fcl_sim *s, double need, double *parts);
/* Whether n particles and nb boundary particles under prm fit the
 * backend's memory; the message names particles.spacing and the sizes.
 * 0 or -1. */
int sim_check_fits(const fcl_backend *be, const fcl_params *prm, size_t n, size_t nb, char *err, size_t errlen);
/* Akinci 2013 surface normals into s->normals (timer "forces") when
 * material.tension_model is akinci; nothing otherwise: over the step's
 * fluid list (forces_normals_nl) where it reaches h, else a cell walk
 * (forces_normals), the same sums. Needs the grid, the step's lists and
 * s->rho current, and s->c.mass the solver's particle mass. 0 or -1. */
int sim_normals(fcl_sim *s);
/* Mueller's free-surface flag, 1 where the color-field gradient over
 * fluid neighbors exceeds material.surface_threshold, else 0, per particle
 * in grid order (pass surface_flag, timer "surface-flag"), into out (NULL:
 * s->surface). sim_download_surface runs it and copies the flags to the
 * host, in the order of sim_download. 0 or -1.
 * How current the neighbors are between steps depends on the solver:
 * - dfsph rebuilds the grid after its position update and recomputes the
 *   densities on it, so the flag is that of the current positions;
 * - wcsph builds the grid at the start of its step and then moves the
 *   particles, so after the step the cell starts and s->rho belong to the
 *   step's start while the positions are the new ones. The flag reads the
 *   new positions in the 27 cells around each particle's new cell as they
 *   were filled at the start: a neighbor is missed only where a pair near
 *   the support radius crossed a cell face, where the gradient of W_poly6
 *   is close to 0. test_surface_flag measures how many flags this changes
 *   against a rebuilt grid. It is not rebuilt here, because a rebuild
 *   reorders the particles while s->rho keeps the old order, and the
 *   frame's density is the step's start density all the same. */
int sim_surface_flag(fcl_sim *s, fcl_buf *out);
int sim_download_surface(fcl_sim *s, float *flag);
/* The neighbor lists of the current grid order (timer "neighbors").
 * 0, or -1 with the reason in s->error (a list over its capacity names
 * the particle and the parameter to raise). */
int sim_neighbors(fcl_sim *s);
/* The solver's particle field k (solver->fields[k]) in grid order, as
 * sim_download orders particles. 0 or -1. */
int sim_download_field(fcl_sim *s, int k, float *out);
/* This step's value of the solver statistic named key (0 when the
 * solver declares none of that name). */
double sim_stat(const fcl_sim *s, const char *key);
/* An adaptive solver's Courant step dt against its floor GROUP.dt_min: 0,
 * or -1 with s->error saying the step fell below it (a numerical
 * blow-up: speed x dt stays under the blow-up test's bound however fast
 * the particles run, so the step is the one thing that shows it). dt_max
 * is the one sim_courant_speed took: the message names the speed that
 * set the step, the particles' or an emitter's. */
int sim_step_floor(fcl_sim *s, double dt, double dt_min, double dt_max, const char *group);
/* A step bound dt under a solver's floor dt_min is overruled: recorded
 * for the blow-up advice (key, "dfsph.dt_min" say, and by, the parameter
 * that set the bound or NULL) unless a bound of this step was already,
 * and dt_min returned; dt otherwise. The solver clears dt_floor_key at
 * the start of its step. */
double sim_hold_floor(fcl_sim *s, double dt, double dt_min, const char *key, const char *by);
/* |sim.gravity| (m/s^2). */
double sim_gravity_norm(const fcl_sim *s);
/* The speed an adaptive solver's Courant step bounds: last step's largest
 * (emitted particles included), or the fastest emitter open at some time
 * in (time, time + dt_max] if faster, plus what gravity adds in dt_max.
 * The emitter counts before its first particles: a step chosen without it
 * placed a 25 m/s jet's layers 5 spacings past its plane, into an obstacle
 * 2 spacings away (pbf and mps blew up). */
double sim_courant_speed(const fcl_sim *s, double dt_max);
/* The fastest emitter open at some time in [t0, t1] (emit.c); 0 if none. */
double sim_inflow_speed(const fcl_sim *s, double t0, double t1);
/* The capillary step bound sqrt(rho0 d^3 / (2 pi sigma)) (Brackbill et
 * al. 1992) with Mueller's tension on, for the adaptive solvers; infinity
 * without it. */
double sim_capillary_dt(const fcl_sim *s);

/* What to change after a blow-up: the solver's advice, or for a fixed
 * step (sim.dt) above the explicit viscosity's bound 0.125 h^2 rho0 / mu,
 * that bound with its values. Written into buf; returns buf. */
const char *sim_blowup_advice(const fcl_sim *s, char *buf, size_t len);
/* What the blown-up particle (stats.bad_id) did: "particle N is not
 * finite" (its position, velocity or density) or "particle N moves more
 * than sim.max_step_ratio = R support radii per step". Written into buf;
 * returns buf. */
const char *sim_blowup_what(const fcl_sim *s, char *buf, size_t len);
/* Rebuild s->c from the parameter table (called by sim_step). */
void sim_update_consts(fcl_sim *s);

#endif
