/* boundary_mesh.h - the inside test of closed meshes that carving and the
 * deeper mesh layers share (boundary_carve.c): triangles bucketed on a grid
 * over their (y, z) extent, and the parity of the crossings of the ray
 * from a point along +x.
 *
 * Invariant: a built locator answers boundary_mesh_inside for its mesh
 * exactly as the carving does (same arithmetic, same tie-breaking).
 */
#ifndef FCL_BOUNDARY_MESH_H
#define FCL_BOUNDARY_MESH_H

#include "../../kernels/fcl_common.h"
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
/* Whether p is inside the closed mesh (parity of +x ray crossings). */
int boundary_mesh_inside(const boundary_locator *L, const float4 *p);

#endif
