/* solver.h - the solver interface and registry. A solver is a small struct
 * of function pointers registered by name; scenes pick one with
 * sim.solver. Each solver lives in host/solvers/NAME.c with its passes in
 * kernels/NAME.cl, and uses the shared grid, attributes and backend.
 * Invariant: step() advances the state by exactly one time step, leaves
 * the grid attributes in a consistent order, and sets sim->dt_used.
 */
#ifndef FCL_SOLVER_H
#define FCL_SOLVER_H

#include <stddef.h>

struct fcl_sim;
struct fcl_params;

typedef struct fcl_solver {
    const char *name;
    const char *summary;
    /* Extra bytes per particle the solver allocates beyond the common set
     * (used for the memory check before anything is allocated). */
    size_t extra_bytes_per_particle;
    int (*init)(struct fcl_sim *s, char *err, size_t errlen);
    /* Bring the derived fields (density, pressure) up to date with the
     * initial state, so that frame 0 and step-0 figures are real. */
    int (*prepare)(struct fcl_sim *s);
    int (*step)(struct fcl_sim *s);
    void (*destroy)(struct fcl_sim *s);
    /* Query radius of the per-step neighbor lists under these
     * parameters, in support radii h; 0: the solver walks grid cells and
     * gets no lists. */
    double (*list_radius)(const struct fcl_params *p);
    /* Bytes the solver keeps beside each list entry (per-pair values). */
    size_t list_entry_bytes;
} fcl_solver;

const fcl_solver *solver_find(const char *name);
/* "wcsph, dfsph, ..." for messages and help. */
void solver_names(char *out, size_t len);
extern const fcl_solver *const fcl_solvers[];
extern const size_t fcl_solver_count;

#endif
