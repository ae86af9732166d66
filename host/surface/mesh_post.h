/* mesh_post.h - optional clean-up of a surface mesh after marching cubes
 * (mesh_post.c): Taubin smoothing with feature-preserving weights, then
 * decimation by quadric-error edge collapses.
 * Invariant: a closed, consistently oriented 2-manifold stays one (no
 * vertex or triangle added, winding kept counter-clockwise from outside,
 * each vertex once, unit normals recomputed); with both steps off the mesh
 * is left exactly as it was.
 */
#ifndef FCL_MESH_POST_H
#define FCL_MESH_POST_H

#include <stddef.h>

#include "mc.h"

/* What surface.smooth_* and surface.decimate* say, and the mesh's cell. */
typedef struct mesh_post_config {
    int smooth_iterations; /* Taubin lambda/mu pairs; 0 = no smoothing */
    float smooth_feature;  /* neighbor weight max(0, n_i . n_j)^smooth_feature;
                              0 = the plain umbrella (creases round off) */
    float decimate;        /* fraction of the triangles to keep; 0 or 1 =
                              no count target */
    float decimate_error;  /* largest collapse error in cells; 0 = no limit.
                              Decimation runs when either is set. */
    float cell;            /* the mesh's cell (m): decimate_error's unit */
} mesh_post_config;

/* Smooth, then decimate *m in place (its arrays may be replaced; free them
 * with mc_mesh_free as before). A mesh with no triangles passes through.
 * Returns 0, -1 when memory ran out, or -2 for a value out of range; err
 * says which. On an error *m is unchanged or still a valid mesh. */
int mesh_postprocess(mc_mesh *m, const mesh_post_config *c, char *err, size_t errlen);

#endif
