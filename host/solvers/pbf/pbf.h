/* pbf.h - what the pbf solver offers beyond the solver interface: fluid
 * control from explicit control particles (tests, and tools that make
 * their own), beside the scene's targets that sim_set_targets samples.
 */
#ifndef FCL_PBF_H
#define FCL_PBF_H

#include "sim.h"

/* Static control particles at pts (w = each one's density strength
 * alpha), once per simulation (its spring attributes join the grid).
 * 0, or -1 with err. */
int pbf_control_points(fcl_sim *s, const float4 *pts, size_t n, char *err, size_t errlen);

struct fcl_target;
/* The targets' control particles (pbf_targets.c): *pts (w = the target's
 * alpha, -1 for control.alpha) and *owner (target index) are malloc'd, n
 * of them, each target's together and in target order; *weights is a
 * malloc'd array of nt skeleton binding weights (particles x bones, NULL
 * for a target without a skeleton), even on failure. 0, or -1 with err
 * naming the target. */
int pbf_targets_sample(const fcl_sim *s, const struct fcl_target *t, int nt, float4 **pts, int **owner,
                       float ***weights, size_t *n, char *err, size_t errlen);

#endif
