/* polygon.h - planar polygon obstacles: their frame (plane, normal, in-plane
 * axes), the checks a scene's polygon must pass, the samples of its layers
 * and the inside test of the slab behind it.
 *
 * Orientation: the front side (where the fluid is) is the side the normal
 * points to, the normal given by the right-hand rule of the vertex order
 * (counter-clockwise seen from the front). Layer k of the samples lies k
 * spacings behind the polygon, along -normal; the solid is the slab
 * between the polygon and `thickness` behind it.
 *
 * Invariant: every function works in double on the vertices as given, in
 * a fixed order, so the same polygon gives bit-identical samples.
 */
#ifndef FCL_POLYGON_H
#define FCL_POLYGON_H

#include <stddef.h>

#include "../../kernels/fcl_common.h"
#include "scene.h"

typedef struct fcl_polygon_frame {
    double o[3];                 /* vertex 0 */
    double n[3], u[3], v[3];     /* unit normal, first edge's direction, n x u */
    double xy[FCL_POLY_MAX][2];  /* the vertices in (u, v) coordinates */
    int nv;
    double area;                 /* of the polygon, m^2 */
    double extent;               /* its bounding-box diagonal, m */
    double xy3[FCL_POLY_MAX][3]; /* the vertices as given */
    double lat[2];               /* the sample lattice's offset from vertex 0 along u and v (polygon_align) */
    int aligned;                 /* samples on the fluid lattice (polygon_align) */
} fcl_polygon_frame;

/* The frame of o's vertices (Newell's normal, so any simple polygon,
 * convex or not, gets its area-weighted normal). */
void polygon_frame(const fcl_obstacle *o, fcl_polygon_frame *f);

/* Puts the samples on the fluid lattice (`at`, one of its points,
 * spacing d) where the polygon lies in a plane of it, its rows along the
 * axes (u, v and xy change); else leaves the frame as polygon_frame made
 * it.
 * A wall-to-wall partition in a lattice plane, its vertices on the
 * domain's faces, had rows half a spacing off the fluid's: MPS's n*
 * read it as a gap and its open side ran at 0.68 m/s (0.018 on the
 * lattice; a review). */
void polygon_align(fcl_polygon_frame *f, const double at[3], double d);

/* The scene checks of a polygon: at least 3 vertices, none repeated, a
 * non-zero area, every vertex within 1e-4 of the extent from the plane.
 * Returns 0, or -1 with "KEY: what was expected, got VALUE" in msg (KEY
 * relative to the obstacle: "vertices" or "vertices[i]"). */
int polygon_check(const fcl_obstacle *o, char *msg, size_t len);

/* Samples of layer k (0: on the polygon) at spacing d: the vertices, the
 * edges cut in pieces of at most d, and the points of a square lattice of
 * spacing d in the polygon's plane (origin at vertex 0 moved by f->lat,
 * rows along the first edge) that lie inside and at least 3/4 d from its
 * edges; layer k
 * is the same set moved k d along -normal; those in clip (sampler.h).
 * Writes to out unless it is NULL; returns the count either way. */
size_t polygon_sample(const fcl_polygon_frame *f, float d, int k, const float *clip, float4 *out);

/* The polygon cut into f->nv - 2 triangles by ear clipping (any simple
 * polygon, convex or not), each as three vertex indices in the polygon's
 * own turning sense, so every triangle's right-hand normal is the
 * polygon's. Returns the count (f->nv - 2). */
int polygon_triangulate(const fcl_polygon_frame *f, int tri[][3]);

/* An upper bound of polygon_sample's count per layer with that clip
 * (NULL: none), in O(vertices). */
double polygon_sample_max(const fcl_polygon_frame *f, double d, const float *clip);

/* Whether p lies in the slab from `front` in front of the plane to
 * `depth` behind it (both exclusive) and over the polygon (even-odd
 * rule): the solid (front = 0) or the solid with the carving gap. The gap
 * is measured from the plane, not from the samples: the fluid lattice's
 * points half a spacing from a polygon sit 0.87 spacings from its nearest
 * samples, and a one-layer wall there starts under 9 % excess density. */
int polygon_inside(const fcl_polygon_frame *f, double front, double depth, const float4 *p);

#endif
