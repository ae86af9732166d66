/* boundary_mesh.h - the inside test of closed meshes that carving and the
 * deeper mesh layers share (boundary_carve.c): triangles bucketed on a grid
 * over their (y, z) extent, and the winding number of the crossings of
 * the ray from a point along +x.
 *
 * Invariant: a built locator answers boundary_mesh_inside for its mesh
 * exactly as the carving does (same arithmetic, same tie-breaking).
 */
#ifndef FCL_BOUNDARY_MESH_H
#define FCL_BOUNDARY_MESH_H

#include "../../kernels/fcl_common.h"
#include "../../kernels/fcl_types.h"
#include "obj.h"

typedef struct boundary_locator {
    const fcl_mesh *m;
    float lo[3], hi[3];       /* bounding box */
    int ny, nz;
    double sy, sz;            /* cells per metre */
    unsigned *start;          /* ny * nz + 1 offsets into items */
    unsigned *items;          /* triangle indices, cell after cell */
} boundary_locator;

/* 0, or -1 when out of memory (free it either way). */
int boundary_locator_build(boundary_locator *L, const fcl_mesh *m);
void boundary_locator_free(boundary_locator *L);
/* Whether p is inside the closed mesh: the winding number of its +x ray's
 * crossings is not zero (so two overlapping closed parts are one solid). */
int boundary_mesh_inside(const boundary_locator *L, const float4 *p);

/* Squared distances to a mesh, one z plane of a lattice at a time
 * (boundary_mesh_layers.c): point i along axis a at
 * org[a] + (i0[a] + i + 1/2) d; each triangle writes the points within
 * reach of it (the rest stay +inf). With buckets (boundary_plane_buckets)
 * a plane visits only the triangles within reach of it, not all. */
typedef struct boundary_plane {
    const fcl_mesh *m;
    double d, reach, org[3];
    long i0[3], n[3];            /* first lattice index and count per axis */
    float *dist2;                /* n[0] * n[1] squared distances */
    unsigned *zstart, *zitems;   /* per plane, the triangles within reach (NULL: all) */
} boundary_plane;
double boundary_plane_coord(const boundary_plane *J, int a, long i);
void boundary_plane_dist2(boundary_plane *J, long iz);
/* 0, or -1 out of memory (no buckets then); boundary_plane_free frees them. */
int boundary_plane_buckets(boundary_plane *J);
void boundary_plane_free(boundary_plane *J);

/* The signed distance to a closed mesh (negative inside) on nodes
 * cell = spacing / 2 apart over its bounding box grown by 1.5 spacings
 * (clipped to the domain dlo..dhi grown by as much), clamped to +-1.5
 * spacings, as fcl_solid entries for the integrators' projection
 * (kernels/boundary.cl, FCL_SOLID_SDF): a head, then the values 16 to an
 * entry. r: the distance a particle is kept out at. *out is malloc'ed;
 * 0, or -1 out of memory (mesh_sdf.c). */
int boundary_mesh_sdf(const fcl_mesh *m, const float dlo[3], const float dhi[3], float spacing, float r,
                      fcl_solid **out, unsigned *count);

#endif
