/* mesh_post_impl.h - what mesh_post.c (decimation, the entry) and
 * mesh_smooth.c (Taubin smoothing) share: face cross products, vertex
 * normals, the half-edge rings. Private to host/surface/.
 * Invariant: a ring describes the triangles it was built from; any change
 * of m->tri makes it stale (smoothing moves vertices only).
 */
#ifndef FCL_MESH_POST_IMPL_H
#define FCL_MESH_POST_IMPL_H

#include "mc.h"

/* Outgoing half-edges per vertex: triangle (a, b, c) gives a -> b with
 * third vertex c (and b -> c, c -> a likewise), listed for vertex i at
 * start[i] .. start[i + 1]. On a closed oriented manifold every neighbor
 * of i appears exactly once, and the third vertices chain around the fan. */
typedef struct mp_ring {
    uint *start, *nb, *pv;
} mp_ring;

void mp_ring_free(mp_ring *r);
/* 0, or -1 out of memory (r freed). */
int mp_ring_build(const mc_mesh *m, mp_ring *r);
/* (b - a) x (c - a) of triangle t in double: it points out of the fluid
 * (counter-clockwise from outside) and its length is twice the area. */
void mp_face_cross(const float4 *v, const uint *t, double x[3]);
/* Unit area-weighted vertex normals into m->n ((0, 0, 0) without area). */
void mp_vertex_normals(mc_mesh *m);
/* Taubin smoothing of `iterations` pairs with feature weight exponent
 * `feature` (mesh_smooth.c); 0, or -1 out of memory, the mesh untouched. */
int mesh_smooth(mc_mesh *m, int iterations, float feature);

#endif
