/* control_skin.h - skeleton-driven control targets (seed 001 §3.1, eqs.
 * 1-2; SEED-NOTES §3.2): the binding of control particles to a skeleton's
 * bones by geodesic distance through the sampling's voxel grid, and
 * linear blend skinning. The skeleton, its JSON and the bones' motion:
 * host/scene/skeleton.h.
 *
 * Invariant: ctl_skin_weights gives each particle nbones weights >= 0
 * that sum to 1.
 */
#ifndef FCL_CONTROL_SKIN_H
#define FCL_CONTROL_SKIN_H

#include <stddef.h>

#include "control_sample.h"
#include "skeleton.h"

#define CTL_SKIN_ALPHA_DEFAULT 0.3   /* eq. 1's alpha, the seed's value */

/* Eqs. 1-2: w[j nbones + i], the normalized weight of bone i for particle
 * j of pts, from d = the geodesic distance (voxel units, 26-neighborhood
 * steps of 1, sqrt 2, sqrt 3 through voxels not labelled OUTSIDE) from the
 * particle's voxel to the voxels the bone passes through at t = 0,
 * clamped to >= 0.5; w = (1 / ((1 - alpha) d + alpha d^2))^2. A bone no
 * path reaches gets weight 0; a particle no bone reaches falls back to
 * Euclidean distances to all bones; *fallback (may be NULL) gets how many
 * did. 0, or -1 (alpha outside [0, 1], out of memory) with err. */
int ctl_skin_weights(const fcl_skeleton *sk, const fcl_ctl_points *pts, double alpha, float *w, size_t *fallback,
                     char *err, size_t errlen);

/* Linear blend skinning: out[j] = sum_i w[j nbones + i] T_i(t) T_i(0)^-1
 * p0[j] for j < n, w = 0 in out. out may not alias p0; sk has at most
 * SKELETON_MAX_BONES bones (as every parsed one has). */
void ctl_skin_apply(const fcl_skeleton *sk, const float *w, const float4 *p0, size_t n, double t, float4 *out);

#endif
