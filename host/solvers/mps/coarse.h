/* coarse.h - MPS's two-level preconditioner (mps.preconditioner = grid,
 * or auto on a CPU device):
 * M^-1 = D^-1 + s P G^-1 P^T, P the aggregation of the unknowns by the
 * neighbor grid's cells, G the 7-point Laplacian on those cells (one
 * multigrid V-cycle of the MAC solver, host/solvers/mac/mac_mg.c) and s
 * its scale against the particle matrix (coarse.c says how).
 * Invariant: set up once per solve, after the free-surface flags and the
 * grid of the system's positions; applied as the CG's preconditioner.
 */
#ifndef FCL_MPS_COARSE_H
#define FCL_MPS_COARSE_H

#include "../mac/mac.h"

struct fcl_sim;

typedef struct mps_coarse {
    int on;
    fcl_mac_info m;              /* blocks of agg^3 neighbor-grid cells, padded */
    uint agg;
    mac_mg mg;
    fcl_buf *flags, *diag, *b, *e, *pcell;
    float scale;                 /* s of this step */
} mps_coarse;

/* Whether this run's preconditioner is the two-level one: `grid`, or
 * `auto` on a CPU device with no phase density ratio over
 * MPS_PHASE_CONTRAST (a GPU's auto, and those, are Jacobi: coarse.c says
 * why). */
int mps_coarse_wanted(const struct fcl_sim *s);

/* The ratio of the heaviest phase's density to the lightest's (1 without
 * phases); beyond MPS_PHASE_CONTRAST the pressure passes read smoothed
 * densities (mps.density_smoothing auto) and auto takes Jacobi. */
#define MPS_PHASE_CONTRAST 10.0
double mps_phase_ratio(const struct fcl_sim *s);
/* The buffers for the simulation's grid (nothing unless
 * mps_coarse_wanted and the system has only fluid rows: with
 * wall unknowns, walls = 1, the CG runs with Jacobi). 0; FCL_EXIT_INPUT
 * with err naming mps.coarse_cells when the grid would not fit beside the
 * particles; or -1 with err (the device refused). */
int mps_coarse_init(mps_coarse *k, struct fcl_sim *s, int walls, char *err, size_t errlen);
/* Flags, each particle's cell and the coarse levels, for this system;
 * lap_k is the Laplacian's factor 2d / (lambda n0). */
int mps_coarse_setup(mps_coarse *k, struct fcl_sim *s, fcl_buf *surf, double lap_k);
/* z = M^-1 r. */
int mps_coarse_apply(mps_coarse *k, struct fcl_sim *s, fcl_buf *r, fcl_buf *z, fcl_buf *diag, fcl_buf *surf);
void mps_coarse_free(mps_coarse *k, struct fcl_sim *s);

#endif
