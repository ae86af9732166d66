/* budget.h - the sizes a scene implies (grid cells, fluid particles, wall
 * and obstacle samples), computed in closed form and checked before any
 * sampling loop or allocation, so an impossible scene is refused at once.
 *
 * Invariant: every count here is a double computed from finite, bounded
 * scene values (no integer can overflow), and a refusal names the file,
 * the key that sets the size, the size and the limit.
 */
#ifndef FCL_BUDGET_H
#define FCL_BUDGET_H

#include <stddef.h>

#include "scene.h"

/* Most particles or boundary samples fluidcl indexes (32-bit indices). */
#define BUDGET_INDEX_MAX 4.0e9

typedef struct fcl_budget {
    double cells;            /* neighbor-grid cells over the domain */
    double fluid_lattice;    /* lattice points the fluid blocks span */
    double fluid_min;        /* fluid particles, at least (a block near an
                              * earlier one counts none: overlap.c may drop
                              * its points) */
    double walls;            /* wall samples, all layers (0: mirror walls) */
    double obstacles;        /* box and sphere obstacle samples, all layers,
                                and polygons' at most (meshes are bounded
                                once loaded: sampler_mesh_min) */
} fcl_budget;

/* The sizes of sc under p, and the checks that need no device: grid cells
 * within 4e9, fluid lattice and boundary samples within BUDGET_INDEX_MAX.
 * Returns 0, or -1 with the message in err; *out (may be NULL) gets the
 * sizes either way. The device comparisons are setup.c's. */
int budget_check(const fcl_scene *sc, const fcl_params *p, fcl_budget *out, char *err, size_t errlen);

#endif
