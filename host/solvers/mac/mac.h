/* mac.h - the mac solver's state shared by its files: the grid buffers
 * (mac_grid.c), the conjugate gradients (mac_cg.c) and the step (mac.c),
 * and what tests read beyond the solver interface.
 * Invariant: vel[cur] is the face velocity field between substeps (the
 * other one is scratch), p the last pressure solution (the warm start),
 * flags and phi those of the last substep's start.
 */
#ifndef FCL_MAC_H
#define FCL_MAC_H

#include <stddef.h>

#include "backend.h"
#include "passes.h"
#include "reduction.h"

struct fcl_sim;
struct fcl_params;

/* Device conjugate gradients over the grid's cells (mac_cg.c). */
typedef struct mac_cg {
    fcl_buf *r, *z, *p, *q;
    fcl_reduction pq, rr, rz[2];
} mac_cg;

typedef struct mac_cg_result {
    long iters;
    double rel_resid;      /* |r| / |b| at the last check (0 when b = 0) */
    int converged;
    long reads;            /* scalars read back by the host */
} mac_cg_result;

typedef struct mac {
    fcl_mac_info m;
    fcl_buf *vel[2];       /* face velocities: vel[cur] and scratch */
    int cur;
    fcl_buf *flags, *phi, *p, *rhs, *diag, *mask[2], *speed;
    fcl_reduction umax;
    mac_cg cg;
    double max_u;          /* largest |u| on known faces, last substep */
    int ready;             /* the field holds a state (seeded or restored) */
    int warned;            /* non-convergence said once */
    long iters;            /* this step: CG iterations over its substeps */
    double resid;          /* this step: the largest final |r| / |b| */
    int substeps;
    mac_cg_result last;
} mac;

/* The grid for these parameters and particle spacing (mac_grid.c): 0, or
 * -1 with err naming the key (cell size inconsistent or too coarse). */
int mac_layout(const struct fcl_params *p, double spacing, fcl_mac_info *m, char *err, size_t errlen);
/* Device bytes of the grid's buffers. */
size_t mac_grid_bytes(const fcl_mac_info *m);
/* Allocate the buffers (0, or -1: the device refused) and free them. */
int mac_grid_alloc(mac *d, fcl_backend *be);
void mac_grid_free(mac *d, fcl_backend *be);
/* The grid state for restarts: bytes needed, save into blob (cap bytes),
 * load (0 or -1 when it does not fit this grid). */
size_t mac_state_bytes(const mac *d);
size_t mac_state_save(mac *d, fcl_backend *be, void *blob, size_t cap);
int mac_state_load(mac *d, fcl_backend *be, const void *blob, size_t bytes);

int mac_cg_init(mac_cg *g, fcl_backend *be, size_t n);
/* Solve A x = b (A: mac_matvec over flags and diag) from x. 0, or -1 with
 * err naming the failure (device, or breakdown). */
int mac_cg_solve(mac_cg *g, fcl_backend *be, const mac *d, fcl_buf *x, double tol, long max_iter, long check_every,
                 mac_cg_result *res, char *err, size_t errlen);
void mac_cg_free(mac_cg *g, fcl_backend *be);

/* For tests: the solver state of a simulation running mac (NULL
 * otherwise). */
mac *mac_of(struct fcl_sim *s);
/* One projection of the current field (flags and level set of the current
 * markers, no advection or gravity), with dt the substep: for tests. */
int mac_project_only(struct fcl_sim *s, double dt);

#endif
