/* boundary.h - static solids as boundary particles (Akinci et al. 2012):
 * boundary.layers layers of samples on the domain walls (boundary.walls =
 * "particles") and on every obstacle of the scene; removal of the fluid
 * particles that start inside a solid or too close to it; and a cache of
 * samplings between runs.
 *
 * Layers (boundary_layers.c): layer 0 is the surface layer of Akinci's
 * method (walls half a spacing outside the box, where the mirror images of
 * the first fluid layer would sit); layer k >= 1 lies k spacings further
 * into the solid: the walls' shell k + 1/2 spacings outside the box (the
 * shells together are every lattice point outside the box within `layers`
 * spacings, corners and edges included), boxes shrunk by k spacings,
 * spheres at radius - k spacings, polygons k spacings behind, meshes the
 * lattice points inside within (k +- 1/2) spacings of the surface. MPS
 * (Koshizuka & Oka 1996) uses layer 0 as wall particles in the pressure
 * solve and layers >= 1 as dummy particles that only complete the number
 * density.
 *
 * Order and tags: all samples of layer 0 come first (walls, then the
 * obstacles in scene order, exactly the one-layer sampling), then those of
 * layer 1, and so on; pos[i].w is the layer index as a float (0, 1, ...),
 * and nlayer[k] counts layer k.
 *
 * Cache: <dir>/boundary-<16 hex digits>.bin, the digits a 64-bit FNV-1a of
 * a canonical description (format version, spacing, walls mode, layers,
 * domain, the obstacles' clip, each obstacle's kind and numbers, each
 * mesh file's bytes). The
 * file is the magic "FCLBND2\0", a uint64 count, count float4 (16 bytes
 * each, w the layer) and the uint64 FNV-1a of those float4s' bytes (a file
 * whose samples do not match it is sampled again and replaced), native
 * byte order; it is written to DIR/.tmp-XXXXXX
 * and renamed. dir is
 * boundary.cache_dir, "off" for none; empty means $XDG_CACHE_HOME/fluidcl,
 * else $HOME/.cache/fluidcl, else no cache.
 *
 * Invariant: after boundary_build the samples are those the sampler gives
 * for the scene and parameters, whether computed or read back; a cache
 * that cannot be read is recomputed and one that cannot be written costs a
 * warning on stderr, never the run.
 */
#ifndef FCL_BOUNDARY_H
#define FCL_BOUNDARY_H

#include <stddef.h>

#include "../../kernels/fcl_common.h"
#include "obj.h"
#include "params.h"
#include "scene.h"

/* Most layers boundary.layers allows. */
#define FCL_BOUNDARY_LAYERS_MAX 4

typedef struct fcl_boundary {
    float4 *pos;                 /* samples, layer by layer, w = layer */
    size_t n;
    size_t nlayer[FCL_BOUNDARY_LAYERS_MAX]; /* samples of each layer */
    int layers;                  /* boundary.layers */
    float spacing;               /* particles.spacing they were taken at */
    int from_cache;              /* 1 when read from the cache file */
    int grow_spheres;            /* carve fluid within the gap of a sphere's
                                    surface (not for mps: boundary_carve) */
    char cache_file[1024];       /* "" when caching is off */
    fcl_obstacle *obstacles;     /* the scene's, copied, for the inside tests */
    int nobstacles;
    fcl_mesh *meshes;            /* one per obstacle, scaled and translated
                                    into place; empty for other kinds */
} fcl_boundary;

/* Load the scene's meshes (checking that each overlaps the domain of p)
 * and sample walls and obstacles at p->particles_spacing, or read the
 * samples from the cache. Returns 0, or -1 with a message naming the file
 * (the scene's, or the mesh's with its line) in err and *b empty. */
int boundary_build(const fcl_scene *s, const fcl_params *p, fcl_boundary *b, char *err, size_t errlen);
/* boundary_build, refusing before any sampling when the meshes' least
 * samples (sampler_mesh_min) plus `others` (the walls' and the box and
 * sphere obstacles' samples) exceed max_samples. Mesh files are read
 * only if regular and at most input.max_file_mb (infile.h). */
int boundary_build_max(const fcl_scene *s, const fcl_params *p, size_t max_samples, double others, fcl_boundary *b,
                       char *err, size_t errlen);

/* Remove the particles that lie inside an obstacle (boxes and spheres
 * exactly, meshes by the winding number of ray crossings, polygons: over the
 * polygon in the slab from gap in front of it to its thickness behind)
 * or closer than gap to a sample (gap <= 0: no such test). Survivors keep their order; vel (may be
 * NULL) is compacted alongside pos. Returns the new count, or (size_t)-1
 * when the search grids do not fit in memory (nothing moved then). */
size_t boundary_carve(const fcl_boundary *b, float4 *pos, float4 *vel, size_t n, float gap);

void boundary_free(fcl_boundary *b);
/* Whether the domain's walls are sampled as boundary particles:
 * boundary.walls = particles, under a solver that reads it (mac's walls
 * are its grid's solid ghost cells: it sampled 22,328 wall particles for
 * the drop scene and read none). */
int boundary_wall_particles(const fcl_params *p);
/* After boundary_carve at setup: the particles nearer a mesh obstacle than
 * gap by its signed distance field (mesh_sdf.c), removed, order kept: the
 * integrators would move those within half a spacing that far in the
 * first step (a lattice point on a mesh's face is outside it by the ray's
 * winding), and those within the gap start compressed against its samples,
 * as beside a box (setup.h's SETUP_GAP). Returns the count kept, or
 * (size_t)-1 out of memory. */
size_t boundary_carve_mesh_shells(const fcl_boundary *b, const float dlo[3], const float dhi[3], float4 *pos,
                                  float4 *vel, size_t n, float spacing, float gap);

/* The sampling cache's folder under boundary.cache_dir ("off": none,
 * empty: $XDG_CACHE_HOME/fluidcl, else $HOME/.cache/fluidcl); fluid
 * control caches its target samplings there too. 0, or -1: no cache. */
int boundary_cache_dir(const fcl_params *p, char *dir, size_t len);

#endif
