/* walls.h - Koshizuka & Oka's wall particles as pressure unknowns for the
 * mps solver (mps.wall_pressure = solve; kernels/mps_walls.cl): layer 0
 * of the boundary particles gets rows of its own in the pressure
 * equation, the dummy layers only complete n*. The walls' lists of fluid
 * neighbors (at the step's x*) and of boundary neighbors (static, built
 * once) are nlist_one lists; their values follow the n fluid unknowns in
 * one vector (x[n + b] for boundary particle b).
 * Invariant: when `on` is 0 nothing here is allocated or launched, and
 * the solver's steps are those of the Neumann walls.
 */
#ifndef FCL_MPS_WALLS_H
#define FCL_MPS_WALLS_H

#include <stddef.h>

#include "nlist.h"

struct fcl_sim;
struct fcl_mps_consts;

typedef struct mps_walls {
    int on;
    size_t nb;                   /* boundary particles (rows n .. n + nb - 1) */
    fcl_nlist_one wf, wb;        /* wall -> fluid (each step), wall -> boundary (once) */
    int wb_built;
    fcl_buf *wnd, *wsurf;        /* n*_b; 1: pinned (a dummy, or at the surface) */
    int p_bcoef;                 /* the fluid rows' wall weights: a plane of the boundary list */
} mps_walls;

/* Allocates what `solve` needs (nothing for `ghost`). 0; FCL_EXIT_INPUT
 * with err naming the keys when the scene cannot have wall unknowns; or
 * -1 (the device refused). */
int mps_walls_init(mps_walls *w, struct fcl_sim *s, char *err, size_t errlen);
struct fcl_params;
/* The solver's check (its table's .check, once as a scene loads): the
 * parameter combinations wall unknowns refuse (mps.wall_pressure = solve
 * with the polynomial preconditioner, mirror walls or fewer than 3
 * layers; FCL_EXIT_INPUT naming the keys), and a note on stderr for
 * particle walls of fewer than 3 layers. */
int mps_check(const struct fcl_params *p, char *err, size_t errlen);
/* The viscosities' step bounds against mps.dt_min (solver.h check_fluid). */
struct fcl_phase_decl;
int mps_check_fluid(const struct fcl_params *p, const struct fcl_phase_decl *ph, int n, char *err, size_t errlen);

/* The viscous step bound's factor: dt <= MPS_VISC_STEP l0^2 / nu. */
#define MPS_VISC_STEP 0.2
/* After the grid and lists at x*: the walls' lists, n*_b and flags. */
int mps_walls_density(mps_walls *w, struct fcl_sim *s, const struct fcl_mps_consts *d);
/* The walls' rows (diag, rhs at offset s->n) and their starting values
 * in x, from the fluid's last pressures prs. */
int mps_walls_assemble(mps_walls *w, struct fcl_sim *s, fcl_buf *rhob, fcl_buf *prs, fcl_buf *diag, fcl_buf *rhs,
                       fcl_buf *x, const struct fcl_mps_consts *d);
/* y = A x for the rows the walls add and the fluid rows' wall terms
 * (after the fluid's own product into y). */
int mps_walls_matvec(mps_walls *w, struct fcl_sim *s, fcl_buf *surf, fcl_buf *rhob, fcl_buf *diag, fcl_buf *x,
                     fcl_buf *y, const struct fcl_mps_consts *d);
/* The fluid rows' wall weights (the assemble pass writes them). */
fcl_buf *mps_walls_bcoef(mps_walls *w, struct fcl_sim *s);
void mps_walls_free(mps_walls *w, struct fcl_sim *s);

#endif
