/* boundary_layers.h - where each layer of boundary samples lies (see
 * boundary.h for the layer rules), shared by the sampler (boundary.c) and
 * the closed-form budget (host/scene/budget.c), so both count the same
 * samples; and the samplers of one obstacle's or the walls' layers.
 *
 * Invariant: layer 0 is computed with exactly the float expressions of the
 * one-layer sampling, so boundary.layers = 1 gives bit-identical samples.
 */
#ifndef FCL_BOUNDARY_LAYERS_H
#define FCL_BOUNDARY_LAYERS_H

#include <stddef.h>

#include "../../kernels/fcl_common.h"
#include "boundary.h"

/* Samples per layer while they are being taken. */
typedef struct boundary_stack {
    float4 *pos[FCL_BOUNDARY_LAYERS_MAX];
    size_t n[FCL_BOUNDARY_LAYERS_MAX], cap[FCL_BOUNDARY_LAYERS_MAX];
} boundary_stack;

/* Room for `more` samples on layer k; NULL when out of memory. */
float4 *boundary_stack_room(boundary_stack *st, int k, size_t more);
void boundary_stack_free(boundary_stack *st);

/* The box of the walls' layer k: the domain grown by k + 1/2 spacings. */
/* How many of `layers` a polygon samples: those within its slab (k d at
 * most its thickness, a quarter spacing's slack), all when its thickness
 * is 0 (the default, boundary.layers spacings). Deeper layers of a thin
 * plate stood in the fluid behind it (a review: 1.5 and 4 cm behind a
 * 1 cm plate). */
int boundary_polygon_layers(const fcl_obstacle *o, float d, int layers);
void boundary_wall_shell(const fcl_params *p, int k, float lo[3], float hi[3]);
/* A box obstacle's layer k: min..max shrunk by k spacings. 1 when it
 * exists (k = 0, or every shrunk extent above d/2, so its two faces stay
 * apart), else 0. */
int boundary_box_layer(const float min[3], const float max[3], float d, int k, float lo[3], float hi[3]);
/* A sphere's layer k: 1 with *rk = r - k d while that is at least d/2; 2
 * for the one layer after those (a single sample at the centre) when
 * r - k d > -d/2; 0: none. */
int boundary_sphere_layer(float r, float d, int k, float *rk);

/* The box obstacles keep their samples in (a clip, sampler.h): the
 * domain grown by two support radii. */
void boundary_clip(const fcl_params *p, float clip[6]);

/* Mesh m cut to clip into *out (free it with obj_free): the triangles
 * wholly inside keep their shared vertices, those cut become fans, those
 * outside go. A mesh wholly inside gives *same = 1 and *out empty. 0, or
 * -1 when out of memory. */
int boundary_mesh_clip(const fcl_mesh *m, const float *clip, fcl_mesh *out, int *same);

/* The walls' layers 0..layers-1 onto st. 0, or -1 when out of memory. */
int boundary_sample_walls(const fcl_params *p, int layers, boundary_stack *st);
/* Obstacle o's layers (m: its placed mesh for a mesh obstacle, its
 * surface samples mesh_gap spacings apart at least; dlo..dhi: the domain,
 * whose fluid lattice deeper mesh layers follow), the samples in clip
 * (NULL or a box, sampler.h) alone. 0, or -1 when out of memory (or, for
 * meshes, too many candidates). */
int boundary_sample_obstacle(const fcl_obstacle *o, const fcl_mesh *m, float d, double mesh_gap, int layers,
                             const float dlo[3], const float dhi[3], const float *clip, boundary_stack *st);
/* A mesh's layers 1..layers-1 (boundary_mesh_layers.c): the points of the
 * lattice dlo + (i + 1/2) d, within the domain grown by `layers` spacings,
 * inside the mesh, whose distance to its surface is within
 * ((k - 1/2) d, (k + 1/2) d] go to layer k. 0, or -1 when out of memory
 * or when a plane of the lattice has more than 2^28 points. */
int boundary_mesh_layers(const fcl_mesh *m, float d, int layers, const float dlo[3], const float dhi[3],
                         boundary_stack *st);

#endif
