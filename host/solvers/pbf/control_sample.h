/* control_sample.h - control particles of a fluid-control target (seed
 * 001 §3.1, SEED-NOTES §3.1): a closed, oriented triangle mesh is refined
 * until no edge exceeds the voxel size, every voxel holding refined-mesh
 * vertices gets one SURFACE control particle (at the average of those
 * vertices, or at the voxel center for the naive variant), and the voxels
 * enclosed by the surface get one INTERIOR particle at their center, found
 * by a seed (flood) fill from outside. Boxes and spheres are turned into
 * meshes first, so every target goes through the same sampler.
 *
 * The voxel grid is kept with the particles: the skinning (control_skin.h)
 * measures geodesic distances through it.
 *
 * Cache: <dir>/control-<16 hex digits>.bin, the digits a 64-bit FNV-1a of
 * the format version, the voxel size and the mesh's bytes (vertex and
 * index arrays). Layout, native byte order: magic "FCLCTL2\0", the uint64
 * key, uint64 n, nsurface, ninterior, double origin[3] and voxel, int32
 * dims[3] and a zero int32, then the per-voxel labels (1 byte each), n
 * float4 positions, n uint32 voxel indices and the uint64 FNV-1a of those
 * three arrays' bytes. Written to DIR/.tmp-XXXXXX
 * and renamed (io/atomic.h); a file that fails any check is recomputed
 * and rewritten, never trusted.
 *
 * Invariant: pos[0 .. nsurface) are the surface particles and
 * pos[nsurface .. n) the interior ones, all with w = 0; voxel_of[i] is the
 * voxel holding particle i, whose label is SURFACE for a surface particle
 * and INTERIOR for an interior one, and every voxel labelled SURFACE or
 * INTERIOR holds exactly one particle. Nothing is allocated for a grid of
 * more than CTL_MAX_VOXELS voxels or a refinement of more than
 * CTL_MAX_TRIANGLES triangles: those are refused with a message.
 */
#ifndef FCL_CONTROL_SAMPLE_H
#define FCL_CONTROL_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "../../../kernels/fcl_common.h"
#include "obj.h"

/* Where a surface particle sits in its voxel. */
enum { CTL_SAMPLE_AVERAGE = 0,  /* the average of the refined vertices in it (the seed's) */
       CTL_SAMPLE_CENTERS = 1   /* its center (plain voxelization, for comparison) */ };

/* Per-voxel labels. */
enum { CTL_VOXEL_OUTSIDE = 0,   /* reached by the fill from the padding: no particle */
       CTL_VOXEL_SURFACE = 1,   /* holds refined-mesh vertices: one surface particle */
       CTL_VOXEL_INTERIOR = 2,  /* not touched by the mesh, not reached: one interior particle */
       CTL_VOXEL_CROSSED = 3    /* the mesh passes through it but no refined vertex lies in it:
                                   no particle; a wall for the fill, inside for geodesics */ };

#define CTL_MAX_VOXELS ((size_t)1 << 27)
#define CTL_MAX_TRIANGLES ((size_t)1 << 24)

typedef struct fcl_ctl_points {
    float4 *pos;            /* n control particles, surface first, w = 0 */
    size_t n, nsurface, ninterior;
    uint32_t *voxel_of;     /* per particle: its voxel, i + dims[0] (j + dims[1] k) */
    double origin[3];       /* lower corner of voxel (0, 0, 0) */
    double voxel;           /* edge of a voxel */
    int dims[3];            /* voxels per axis; 1.5 to 2 voxels of padding on each side */
    unsigned char *label;   /* dims[0] dims[1] dims[2] labels, CTL_VOXEL_* */
} fcl_ctl_points;

/* Split every triangle whose longest edge exceeds max_edge at that edge's
 * midpoint until no edge does. Midpoints are shared through an edge map,
 * so a closed, oriented mesh stays closed and oriented. *out is fresh
 * (obj_free it). 0, or -1 with err (non-finite vertices or max_edge, more
 * than CTL_MAX_TRIANGLES triangles, out of memory) and *out empty. */
int ctl_mesh_refine(const fcl_mesh *m, double max_edge, fcl_mesh *out, char *err, size_t errlen);

/* Control particles of m (closed and oriented, as obj_load checks) at
 * voxel size `voxel`, surface particles placed by `variant`
 * (CTL_SAMPLE_*). 0, or -1 with err and *out empty. */
int ctl_sample_mesh(const fcl_mesh *m, double voxel, int variant, fcl_ctl_points *out, char *err, size_t errlen);

/* ctl_sample_mesh(m, voxel, CTL_SAMPLE_AVERAGE, ...) through the cache in
 * cache_dir (NULL, "" or "off": no cache). *from_cache (may be NULL) is 1
 * when the points were read back. A cache that cannot be written costs a
 * warning on stderr, never the result. More than max_points particles
 * (0: no limit) are refused with err naming the count, once the voxels
 * are labelled and before the interior's particles are made (a target
 * 18 m wide in a 0.2 m domain took 3.7 GB before failing; a review). */
int ctl_sample_cached(const fcl_mesh *m, double voxel, const char *cache_dir, size_t max_points,
                      fcl_ctl_points *out, int *from_cache, char *err, size_t errlen);

/* ctl_sample_mesh with that limit (0: none). */
int ctl_sample_mesh_max(const fcl_mesh *m, double voxel, int variant, size_t max_points, fcl_ctl_points *out,
                        char *err, size_t errlen);

void ctl_points_free(fcl_ctl_points *p);

/* The closed box [lo, hi] as 12 outward-oriented triangles. 0, or -1
 * (lo not below hi on some axis, or out of memory) with *m empty. */
int ctl_mesh_box(const float lo[3], const float hi[3], fcl_mesh *m);

/* An icosphere of center c and radius r: the icosahedron with every
 * triangle split in four `subdivisions` times (0 to 7), vertices pushed
 * onto the sphere, outward-oriented; 20 * 4^subdivisions triangles.
 * 0, or -1 (r not positive, subdivisions out of range, out of memory). */
int ctl_mesh_sphere(const float c[3], float r, int subdivisions, fcl_mesh *m);

#endif
