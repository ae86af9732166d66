/* solver.h - the solver interface and registry. A solver is a small struct
 * of function pointers registered by name; scenes pick one with
 * sim.solver. Each solver lives in host/solvers/NAME/NAME.c with its passes in
 * kernels/NAME.cl, and uses the shared grid, attributes and backend.
 * Invariant: step() advances the state by exactly one time step, leaves
 * the grid attributes in a consistent order, and sets sim->dt_used.
 */
#ifndef FCL_SOLVER_H
#define FCL_SOLVER_H

#include <stddef.h>

#include "params.h"

typedef struct fcl_buf fcl_buf;

struct fcl_sim;
struct fcl_params;
struct fcl_solver;
struct fcl_target;
struct fcl_grid_frame;
struct fcl_backend;

/* A per-step figure a solver reports (iterations, residuals), declared
 * once: run's CSV column and bench's JSON key are `key`, the summary and
 * bench's table print `label` with `unit`, and both fold the steps'
 * values by `fold` (mean, largest, or total: a count of events). The solver writes this step's values into
 * sim->stats.solver[] in declaration order. */
/* A shared parameter (sim.*, material.*) a solver does not read, and what
 * it has in its place: the command line notes a --param of it, the viewer
 * marks it. */
typedef struct fcl_ignored {
    fcl_param_id id;
    const char *instead;    /* "dfsph.viscosity", "its own step: dfsph.cfl, ..." */
} fcl_ignored;

typedef enum fcl_fold { FCL_FOLD_MEAN = 0, FCL_FOLD_MAX = 1, FCL_FOLD_SUM = 2 } fcl_fold;
typedef struct fcl_stat_decl {
    const char *key;
    const char *label;
    const char *unit;
    fcl_fold fold;
} fcl_stat_decl;
enum { FCL_SOLVER_STATS_MAX = 8 };

/* A particle field a solver publishes (DFSPH's alpha, say), declared
 * once: frames store it under `name` (VTK), the viewer's colour menu
 * lists it with `label` and starts its legend at [lo, hi] (lo = hi: the
 * range of the values when the field is chosen). buffer gives
 * this step's values, one float per particle in grid order. */
typedef struct fcl_field_decl {
    const char *name;
    const char *label;
    float lo, hi;
    fcl_buf *(*buffer)(struct fcl_sim *s);
} fcl_field_decl;
enum { FCL_SOLVER_FIELDS_MAX = 8 };

/* Steps' values folded per declaration (run's summary, bench). */
typedef struct fcl_stat_fold {
    double acc[FCL_SOLVER_STATS_MAX];
    long steps;
} fcl_stat_fold;
void stat_fold_add(fcl_stat_fold *f, const struct fcl_solver *s, const double *values);
double stat_fold_value(const fcl_stat_fold *f, const struct fcl_solver *s, int k);
/* Index of the statistic named key, or -1. */
int solver_stat_index(const struct fcl_solver *s, const char *key);
/* Index of the particle field named name, or -1. */
int solver_field_index(const struct fcl_solver *s, const char *name);

/* A solver's table, written with designated initializers: a hook left out
 * is NULL (the solver has none) and a count or flag left out is 0. */
/* What a save hook returns when it could not save (solver.save). */
#define FCL_SAVE_FAILED ((size_t)-1)

struct fcl_phase_decl;
typedef struct fcl_solver {
    const char *name;
    const char *summary;
    /* Its smoothing kernels, which it fixes (the viewer's panel lists them). */
    const char *kernels;
    /* What to change after a numerical blow-up, naming the parameters
     * that set this solver's step (NULL: sim.dt's fixed step). */
    const char *blowup_advice;
    /* More to say after a blow-up in this simulation's state (fluid
     * control's parameters where targets are active), or NULL. NULL: none. */
    const char *(*blowup_more)(const struct fcl_sim *s);
    /* Extra bytes per particle the solver allocates beyond the common set
     * (used for the memory check before anything is allocated). */
    size_t extra_bytes_per_particle;
    /* 0; FCL_EXIT_INPUT when it refuses its parameters (err names the
     * key: run exits 2, writing nothing); -1 when the device failed. */
    int (*init)(struct fcl_sim *s, char *err, size_t errlen);
    /* Bring the derived fields (density, pressure) up to date with the
     * initial state, so that frame 0 and step-0 figures are real. */
    int (*prepare)(struct fcl_sim *s);
    int (*step)(struct fcl_sim *s);
    void (*destroy)(struct fcl_sim *s);
    /* Derive the solver's constants from the parameter table into
     * sim->c (the particle mass at least) and its own constants; called
     * by sim_update_consts after the common ones, before every step, so
     * live edits apply at the next step. solver_data may still be NULL
     * (before init). */
    void (*derive)(struct fcl_sim *s);
    /* Query radius of the per-step neighbor lists under these
     * parameters, in support radii h; 0: the solver walks grid cells and
     * gets no lists. */
    double (*list_radius)(const struct fcl_params *p);
    /* Bytes the solver keeps beside each fluid list entry (list planes). */
    size_t list_entry_bytes;
    /* Its per-step statistics beyond the common ones (sim.h). */
    const fcl_stat_decl *stats;
    int nstats;
    /* Its particle fields for frames and the viewer. */
    const fcl_field_decl *fields;
    int nfields;
    /* Its scalar state for restarts (state.h; per-particle state lives in
     * grid attributes, saved with the others): save writes at most cap
     * bytes to blob and returns how many, or FCL_SAVE_FAILED (no room, a
     * device read failed: no checkpoint is written then); load takes them
     * back, 0, or -1 with why saying what differs from this run (for the
     * refusal's message). NULL when the solver keeps none. */
    size_t (*save)(struct fcl_sim *s, void *blob, size_t cap);
    int (*load)(struct fcl_sim *s, const void *blob, size_t bytes, char *why, size_t whylen);
    /* Fluid-control targets of the scene (host/scene/targets.h), which
     * outlive the simulation: 0, or -1 with err naming the target. NULL
     * when the solver has no fluid control (sim_set_targets refuses). */
    int (*set_targets)(struct fcl_sim *s, const struct fcl_target *t, int n, char *err, size_t errlen);
    /* Points the viewer draws on request beside the fluid (fluid
     * control's control particles at the end of the last step, the mac
     * grid's cells in a slice): their count, with *pts pointing at host
     * memory valid until the next step (float4; w the palette entry when
     * overlay_classes is set, else ignored). NULL when it has none. */
    size_t (*overlay)(struct fcl_sim *s, const float **pts);
    /* 1: the overlay points' w is a palette entry (the mac grid's cell
     * flags: 1 fluid, 2 solid); 0: one colour for all. */
    int overlay_classes;
    /* 1: the solver reads boundary-particle layer tags (MPS: wall and
     * dummy particles): sim_create uploads bpos with w = the layer index
     * as a float (0: wall particles on the solid's surface; 1, 2, ...:
     * dummy layers that many spacings deeper; boundary.h), the sort on
     * the fluid grid keeps w with each position, and sim_boundary_volumes
     * refuses to overwrite them. 0: w is uploaded as 0 and the solver
     * computes volumes into it (sim_boundary_volumes). */
    int boundary_tags;
    /* 1: under mirror walls its boundary lists hold the boundary
     * particles' wall images too, and its passes mirror them (mask m of
     * forall_neighbors), so an obstacle that meets a wall continues through
     * it as the fluid does; the sampler then drops the samples outside the
     * domain (boundary.c), which the images replace. 0: samples run on
     * past the walls (boundary_clip) and stand for their images. */
    int boundary_images;
    /* The shared parameters it does not read (their table rows say so
     * too), ending with id FCL_P_COUNT; NULL: it reads them all. */
    const fcl_ignored *ignores;
    /* 1: it keeps no particle density (a grid solver): run's CSV gives
     * nan for the density errors, its summary and bench say n/a. */
    int no_density;
    /* 1: it keeps no particle pressure (pbf: a density constraint, no
     * equation of state): frames carry zeros, and the viewer's colour menu
     * and C key leave pressure out. */
    int no_pressure;
    /* The most fluid phases it simulates together (scene "phases";
     * sim_set_phases refuses more); 0 means 1. */
    int max_phases;
    /* An emitter's new point with a particle nearer than this many
     * spacings is refused as backed up (host/core/emit.c); 0: a quarter. */
    double emit_room;
    /* The scene's fluid is carved this many spacings clear of obstacles
     * and boundary samples (host/scene/setup.c); 0: SETUP_GAP, 0.75, the
     * room particles need from boundary samples. mac 0.5: its markers need
     * only be where the obstacles' push keeps them (half a spacing out),
     * and at 0.75 a fluid cell on an obstacle started with half its markers
     * (a dam break over a raised floor lagged 1.0 % in its mean x). */
    double seed_gap;
    /* The least distance between an emitter's layers with a `rate`, in
     * spacings (sim_set_emitters refuses a rate that packs them closer);
     * 0: the scene's own quarter. rate_why says why, for that message. */
    double rate_gap;
    const char *rate_why;
    /* The largest particles.support it runs, in spacings (solver_check_support
     * refuses more); 0: the parameter table's range. */
    double max_support;
    /* The longest step it takes under these parameters (s): the emitters'
     * capacity default over sim.steps steps. Unused where step_floor is
     * given (its longest is taken); NULL: sim.dt. */
    double (*longest_dt)(const struct fcl_params *p);
    /* Its Courant step's floor: the CFL number, and the least step (s)
     * under which it stops as a blow-up (sim_step_floor), with its longest;
     * sim_set_emitters refuses an emitter faster than that step can take.
     * NULL: none (a fixed step, or one held at its least). */
    void (*step_floor)(const struct fcl_params *p, double *cfl, double *dt_min, double *dt_max);
    /* Bytes its save hook writes when that is more than the state file's
     * default room for a solver blob (4 KiB): a grid solver's fields. NULL:
     * the default. */
    size_t (*save_bytes)(struct fcl_sim *s);
    /* Its grid for output (run's output.grid, host/io/grid_vti.c): fills
     * g with arrays in host memory valid until the next step or call; 0,
     * or -1 (device). NULL: the solver keeps no grid. */
    int (*grid_fields)(struct fcl_sim *s, struct fcl_grid_frame *g);
    /* The user's force on the solver's own velocity state (sim_interact):
     * NULL when that state is the particles' velocities. */
    int (*interact)(struct fcl_sim *s, const float origin[3], const float dir[3], const float dv[3], float radius);
    /* Its own level set, for surface.method grid (host/surface/grid_mesh.c):
     * one field "levelset" over g's cells, negative inside the liquid,
     * positive in air and solid cells, in host memory valid until the next
     * step or call; 0, or -1 (device or memory). NULL: it keeps none. */
    int (*levelset)(struct fcl_sim *s, struct fcl_grid_frame *g);
    /* What the overlay points are, for the viewer's toggle ("control
     * particles"); NULL with no overlay. */
    const char *overlay_name;
    /* Refuses a combination of parameters before any device work (the
     * command line calls it after loading the scene, so a bad input costs
     * no kernel build: an NVIDIA driver's first build takes seconds):
     * 0, or FCL_EXIT_INPUT with err naming the keys. NULL: none to check.
     * init refuses the same, for callers that skip this. */
    int (*check)(const struct fcl_params *p, char *err, size_t errlen);
    /* Optional: whether the solver's own device buffers (a grid) fit on
     * be beside the particles' `parts` bytes; 0, or -1 with err naming the
     * key. Called by sim_check_fits, before anything is allocated (mac's
     * grid was checked after the particles' grid, and a grid 5 times the
     * memory took 17 s to be refused). */
    int (*fits)(const struct fcl_params *p, const struct fcl_backend *be, double parts, char *err, size_t errlen);
    /* The same for the fluid's properties, which are the phases' where the
     * scene has any (n > 0) and material.* otherwise (solver_check_phases
     * calls it). NULL: none to check. */
    int (*check_fluid)(const struct fcl_params *p, const struct fcl_phase_decl *ph, int n, char *err, size_t errlen);
} fcl_solver;

const fcl_solver *solver_find(const char *name);
/* "wcsph, dfsph, ..." for messages and help. */
void solver_names(char *out, size_t len);
/* What a solver may have, for messages that name the solvers having it
 * (so they follow the registry): fluid control (set_targets), several
 * phases, a grid for frames, its own level set, an overlay. */
typedef enum fcl_capability { FCL_CAN_TARGETS, FCL_CAN_PHASES, FCL_CAN_GRID, FCL_CAN_LEVELSET, FCL_CAN_OVERLAY } fcl_capability;
int solver_can(const fcl_solver *sv, fcl_capability c);
/* The registered solvers that can c, "pbf" or "mps and mac", into out;
 * returns out. */
const char *solver_names_that(fcl_capability c, char *out, size_t len);
/* How a statistic folds over the steps, as the summary and bench say it:
 * "mean", "largest", "total". */
const char *solver_fold_word(fcl_fold f);
/* Parameter group g (its first gl characters) when only some solvers read
 * it, a solver's own (dfsph.*: "dfsph") or fluid control's (control.*:
 * the solvers with targets): their names into out, returned; NULL for a
 * group every solver may read (sim.*, material.*). */
const char *solver_group_readers(const char *g, size_t gl, char *out, size_t len);
/* What sv has in place of shared parameter id, when it does not read it
 * (fcl_solver.ignores); NULL when it reads it. */
const char *solver_reads_instead(const fcl_solver *sv, fcl_param_id id);
/* Whether sv reads group g: the command line notes a --param of a group
 * it does not, and the viewer marks that group's header. */
int solver_reads_group(const fcl_solver *sv, const char *g, size_t gl);
/* Whether sv runs a scene with ntargets control targets: 0, or -1 with
 * "targets: fluid control needs ..." in err. */
int solver_check_targets(const fcl_solver *sv, int ntargets, char *err, size_t errlen);
/* More phases than sv simulates (the scene's n phases), any phase for a
 * one-fluid solver (it would be ignored), or what the solver's check_fluid
 * refuses of the fluid under p: 0, or FCL_EXIT_INPUT with the message.
 * sim_set_phases and the command line (before a device is opened) both
 * ask. */
struct fcl_phase_decl;
int solver_check_phases(const fcl_solver *sv, const struct fcl_params *p, const struct fcl_phase_decl *ph, int n,
                        char *err, size_t errlen);
/* Phases each carry their viscosity, and material.viscosity is then read
 * by nothing: 1 with a note in err where it is set to neither its default
 * nor a phase's (water_air under --param material.viscosity=5 ran as before
 * without a word), else 0. Phases the solver refuses are
 * solver_check_phases's. */
int solver_unused_viscosity(const fcl_solver *sv, const struct fcl_params *p, const struct fcl_phase_decl *ph, int n,
                            char *err, size_t errlen);
/* particles.support against the solver's max_support: 0, or FCL_EXIT_INPUT
 * with err naming the key, the value and the limit. */
int solver_check_support(const fcl_solver *sv, const struct fcl_params *p, char *err, size_t errlen);
/* The longest step sv takes under p: its step_floor's longest, its
 * longest_dt hook, or sim.dt. */
double solver_longest_dt(const fcl_solver *sv, const struct fcl_params *p);
/* What a blow-up message tells the user to change: the solver's
 * blowup_advice, or sim.dt's for a fixed step. */
const char *solver_blowup_advice(const fcl_solver *sv);
extern const fcl_solver *const fcl_solvers[];
extern const size_t fcl_solver_count;

#endif
