/* sampler.h - points spread over the surfaces of boxes, spheres and closed
 * triangle meshes at a target spacing d: the single layer of boundary
 * particles of Akinci et al. 2012 ("Versatile rigid-fluid coupling for
 * incompressible SPH"). Each particle's volume is later computed from its
 * own neighborhood, so the layer must be even and gap-free but the spacing
 * need not be exact.
 *
 * Invariant: every point lies on the surface (up to float rounding), has
 * w = 0, and the output depends only on the inputs (no randomness), so a
 * cached sampling is the sampling.
 */
#ifndef FCL_SAMPLER_H
#define FCL_SAMPLER_H

#include <stddef.h>

#include "../../kernels/fcl_common.h"
#include "obj.h"

/* A clip is NULL (every point) or {lo x, y, z, hi x, y, z}: the points of
 * a sampling that lie in that box (bounds included), the others skipped
 * unvisited where the sampling's order allows (an obstacle reaching far
 * past the domain: a 200 m polygon took 6 GB and did not finish). The
 * points kept are those the unclipped sampling gives there, bit for bit. */
int sampler_clip_has(const float *clip, float x, float y, float z);

/* The surface of the box lo..hi: each face a regular grid of round(L/d)+1
 * points per axis spanning it exactly, points on shared edges and corners
 * once, those in clip. Writes to out unless it is NULL; returns the count
 * either way. */
size_t sampler_box(const float lo[3], const float hi[3], float d, const float *clip, float4 *out);

/* About 4 pi r^2 / d^2 points on a sphere (Fibonacci lattice), those in
 * clip. Writes to out unless it is NULL; returns the count either way. */
size_t sampler_sphere(const float center[3], float r, float d, const float *clip, float4 *out);
/* Those two counts in closed form, for budgets: a box's points in the
 * clip's index span (exact when the clip holds the box, never below); a
 * sphere's in the band of heights it visits, at most twice the share of
 * the clip's own surface area (0 when its surface misses the clip; exact
 * when the clip holds it). No loop over points. */
double sampler_box_bound(const float lo[3], const float hi[3], float d, const float *clip);
double sampler_sphere_bound(const float center[3], float r, float d, const float *clip);

/* A mesh's vertices, its edges at spacing <= d and its triangles'
 * interiors on barycentric lattices at spacing <= d; a candidate closer
 * than d/2 to a point already taken is dropped, so thin triangles and fans
 * do not pile points up. *out is malloc'd. Returns 0, or -1 when out of
 * memory or when the sampling would exceed 2^31 candidates. */
int sampler_mesh(const fcl_mesh *m, float d, float4 **out, size_t *n);
/* The same with the candidates closer than gap d to a taken point dropped
 * (sampler_mesh: gap 0.5): a solver that counts samples without volumes
 * (mps) wants them about a lattice's spacing apart. */
int sampler_mesh_gap(const fcl_mesh *m, float d, double gap, float4 **out, size_t *n);

/* A lower bound on the samples sampler_mesh_gap takes from m at spacing d
 * and that gap, from its area in O(triangles): what a scene is checked
 * against before the sampling runs. */
double sampler_mesh_min(const fcl_mesh *m, float d, double gap);

/* The candidate points sampler_mesh would thin at spacing d (it refuses
 * 2^31 or more, whatever the memory), or -1 without memory for the
 * edges. */
double sampler_mesh_candidates(const fcl_mesh *m, float d);

#endif
