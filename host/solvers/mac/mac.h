/* mac.h - the mac solver's state shared by its files: the grid buffers
 * (mac_grid.c) and the step (mac.c, whose pressure equation goes to the
 * core's conjugate gradients, host/core/pcg.c),
 * and what tests read beyond the solver interface.
 * Invariant: vel[cur] is the face velocity field between substeps (the
 * other one is scratch), p the last pressure solution (the warm start),
 * flags and phi those of the markers at the end of the step (each
 * substep makes its own).
 */
#ifndef FCL_MAC_H
#define FCL_MAC_H

#include <stddef.h>

#include "backend.h"
#include "passes.h"
#include "pcg.h"
#include "reduction.h"

struct fcl_sim;
struct fcl_params;

/* The multigrid preconditioner (mac_mg.c): level 0 is the grid (its
 * flags, diagonal, and the CG's r and z borrowed per solve), each further
 * level half as many cells per axis. */
#define MAC_MG_MAX 16
typedef struct mac_mg {
    int levels;
    fcl_mac_info lv[MAC_MG_MAX];
    fcl_buf *flags[MAC_MG_MAX], *diag[MAC_MG_MAX], *b[MAC_MG_MAX], *x[MAC_MG_MAX], *t[MAC_MG_MAX];
    int sweeps, coarse_sweeps;  /* Jacobi sweeps each way, and on the coarsest level */
    float omega;                /* their damping */
} mac_mg;

/* A padded layout of nx * ny * nz cells of side dx (one ghost layer):
 * sets the sizes, strides, cell count and dx, leaves the other fields. */
void mac_mg_cells(fcl_mac_info *m, uint nx, uint ny, uint nz, float dx);
void mac_mg_layout(mac_mg *g, const fcl_mac_info *fine);
size_t mac_mg_bytes(const mac_mg *g);
int mac_mg_alloc(mac_mg *g, fcl_backend *be);
void mac_mg_free(mac_mg *g, fcl_backend *be);
/* Coarse flags and diagonals from the grid's, once per solve. */
int mac_mg_setup(mac_mg *g, fcl_backend *be, fcl_buf *flags, fcl_buf *diag);
/* z = M^-1 r: one V-cycle from zero. */
int mac_mg_apply(mac_mg *g, fcl_backend *be, fcl_buf *r, fcl_buf *z);

typedef struct mac {
    fcl_mac_info m;
    fcl_buf *vel[2];       /* face velocities: vel[cur] and scratch */
    int cur;
    fcl_buf *flags, *phi, *p, *rhs, *diag, *mask[2], *speed;
    fcl_buf *old;          /* FLIP: the field after the transfer, before forces */
    fcl_buf *count, *req;  /* reseeding: markers per cell, each taker's donor */
    fcl_buf *dens;         /* the markers' density at the cell centers that read it (mac_density_field) */
    fcl_buf *moved;        /* reseeding: markers moved this step (one uint) */
    fcl_buf *tgt;          /* density correction: each fluid cell's divergence target (mac_density_target) */
    fcl_buf *full;         /* density correction: 1 where a cell and its 26 neighbors are fluid (mac_full) */
    fcl_buf *air;          /* density correction: one uint, air_gen once a cell of these flags is air */
    unsigned air_gen;      /* the number mac_full gave air last, per flags (counts up; the buffer starts at 0) */
    unsigned fgen;         /* flags computed so far (launch_flags): what full and dens belong to */
    unsigned full_at;      /* the fgen full and air were computed for (0: never) */
    unsigned dens_at;      /* the fgen dens was computed for (0: never) */
    unsigned dens_has;     /* which cells it holds (DENS_* in mac.c) */
    long reseeded;         /* reseeding: markers moved last step */
    fcl_reduction umax;
    fcl_pcg cg;
    mac_mg mg;
    double max_u;          /* largest |u| on known faces, last substep */
    double u_start;        /* the largest max_u a prepare saw (the scene's initial flow) */
    int ready;             /* the field holds a state (seeded or restored) */
    int fresh;             /* flags and level set are the markers' as they are (a step's end) */
    int warned;            /* non-convergence said once */
    int vwarned;           /* the viscosity solve's, likewise */
    long iters;            /* this step: CG iterations over its substeps */
    double resid;          /* this step: the largest final |r| / |b| */
    long short_solves;     /* this step: substeps whose solve stopped at mac.cg_max_iter */
    int substeps;
    double dt_last;        /* the last substep's length (the blow-up test's, mac.c) */
    fcl_pcg_result last;
    fcl_buf *vdiag, *vrhs; /* viscosity: its diagonal and right-hand side (float4 a cell) */
    fcl_pcg vcg;           /* viscosity: CG vectors over 4 rows a cell (all lazily, mac.viscosity > 0) */
    int viscous;           /* those are allocated */
    float kdt;             /* viscosity: nu dt / dx^2 of this substep */
    long viters;           /* viscosity: CG iterations this step */
    float *out;            /* host arrays of mac_grid_fields (6 floats a cell) */
    float *ls;             /* host array of mac_grid_levelset (a float a padded cell) */
    float4 *slice;         /* host array of mac_grid_slice (nx ny points at most) */
    void *raw;             /* its download buffer (16 bytes a padded cell) */
} mac;

/* The grid for these parameters and particle spacing (mac_grid.c): 0, or
 * -1 with err naming the key (cell size inconsistent or too coarse). */
int mac_layout(const struct fcl_params *p, double spacing, fcl_mac_info *m, char *err, size_t errlen);
/* Device bytes of the grid's buffers. */
size_t mac_grid_bytes(const fcl_mac_info *m);
/* Allocate the buffers (0, or -1: the device refused) and free them. */
int mac_grid_alloc(mac *d, fcl_backend *be);
void mac_grid_free(mac *d, fcl_backend *be);
/* The grid's interior cells for output (host/io/grid_vti.c): flags (0
 * air, 1 fluid, 2 solid), pressure, velocity at cell centers (the mean
 * of each component's two faces), the level set (solid cells positive).
 * 0, or -1 (device or memory). */
struct fcl_grid_frame;
int mac_grid_fields(mac *d, fcl_backend *be, struct fcl_grid_frame *g);
/* The level set phi at every padded cell's center (ghost layer included),
 * negative in the liquid, solid cells positive: surface.method grid. 0, or
 * -1 (device or memory). */
int mac_grid_levelset(mac *d, fcl_backend *be, struct fcl_grid_frame *g);
/* The viewer's overlay: the centers of the fluid (w = 1) and solid (w = 2)
 * cells of the middle z slice as float4 in host memory valid until the
 * next call; their count (0 when the device fails). */
size_t mac_grid_slice(mac *d, fcl_backend *be, const float **pts);
/* The grid state for restarts: bytes needed, save into blob (cap bytes),
 * load (0, or -1 with why when it does not fit this grid). */
size_t mac_state_bytes(const mac *d);
size_t mac_state_save(mac *d, fcl_backend *be, void *blob, size_t cap);
int mac_state_load(mac *d, fcl_backend *be, const void *blob, size_t bytes, char *why, size_t whylen);

/* For tests: the solver state of a simulation running mac (NULL
 * otherwise). */
mac *mac_of(struct fcl_sim *s);
/* One projection of the current field (flags and level set of the current
 * markers, no advection or gravity), with dt the substep and kappa the
 * density correction's (0: none): for tests. */
int mac_project_only(struct fcl_sim *s, double dt, double kappa);
/* One implicit viscosity step of the current field with dt the substep
 * (flags of the current markers): for tests. */
int mac_viscosity_only(struct fcl_sim *s, double dt);

#endif
