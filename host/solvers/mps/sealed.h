/* sealed.h - fluid of the mps solver that no free surface reaches
 * (sealed.c), looked for when a pressure solve did not converge.
 * Invariant: reads the device, changes nothing.
 */
#ifndef FCL_MPS_SEALED_H
#define FCL_MPS_SEALED_H

#include <stddef.h>

#include "backend.h"

struct fcl_sim;

/* Over the step's lists and the free-surface flags surf: 1 with msg
 * naming the particles no surface, surface neighbor or compressible
 * phase reaches (their count, centroid and bounds), 0 when there are
 * none, -1 when the device or host memory failed. walls: the system has
 * wall unknowns (mps.wall_pressure = solve), which join the fluid they
 * touch. */
int mps_sealed_region(struct fcl_sim *s, fcl_buf *surf, int walls, char *msg, size_t len);

#endif
