/* setup.h - from a scene to the initial state of a simulation: the fluid
 * lattice, the boundary samples of walls and obstacles (cached), and the
 * fluid carved out of the solids, checked against the backend's memory.
 * Invariant: on success every fluid particle lies outside every obstacle,
 * outside boxes, meshes (by their distance field) and polygons' fronts
 * grown by SETUP_GAP spacings (the solver's seed_gap where it has one),
 * and at least that from every boundary sample (which is all that keeps
 * it off a sphere).
 */
#ifndef FCL_SETUP_H
#define FCL_SETUP_H

#include <stddef.h>

#include "backend.h"
#include "boundary.h"
#include "scene.h"

struct fcl_sim;

/* Fluid closer than this many spacings to a boundary sample is removed:
 * obstacle samples sit on the surface, and a fluid particle nearer than
 * this would start compressed (walls' samples are exactly 1 away). */
#define SETUP_GAP 0.75f

typedef struct fcl_initial {
    float4 *pos, *vel;
    size_t n;
    size_t carved;          /* fluid particles removed by the solids */
    fcl_boundary b;
} fcl_initial;

/* Returns 0, FCL_EXIT_INPUT (bad scene or mesh, too large; err names the
 * file) or FCL_EXIT_DEVICE (host memory). be may be NULL (no fit check). */
int setup_initial(const fcl_scene *sc, const fcl_params *p, const fcl_backend *be, fcl_initial *in,
                  char *err, size_t errlen);
/* Replace in's fluid by the particles of a saved frame (VTK or PLY as
 * `run --out` writes them): positions and velocities, the boundary kept.
 * The frame's spacing, when it has one, must be particles.spacing, and
 * every particle must lie in the domain. With sc_phases (the scene's
 * phase count) above 1 the frame must carry mps's "phase" field, which
 * becomes pos.w. Particles inside the obstacles are carved out, noted
 * (all of them: refused). *time gets the frame's time (0 for PLY).
 * Returns 0, or FCL_EXIT_INPUT with err naming the file. */
int setup_from_frame(fcl_initial *in, const char *path, const fcl_params *p, int sc_phases, double *time, char *err,
                     size_t errlen);
/* Something to simulate: fluid left after carving, or an emitter; 0, or
 * FCL_EXIT_INPUT with err saying which is missing. For run and bench
 * from the scene (the viewer may start empty: it drops balls). */
int setup_check_fluid(const fcl_scene *sc, const fcl_initial *in, char *err, size_t errlen);
void setup_free(fcl_initial *in);
/* The scene's parts beyond the particles, onto a made simulation, in the
 * order every command uses: obstacles, phases, emitters, outflows,
 * fluid-control targets (after which a checkpoint may be loaded). 0, or
 * FCL_EXIT_INPUT / FCL_EXIT_DEVICE with err (not naming the file). */
int setup_sim_scene(struct fcl_sim *s, const fcl_scene *sc, char *err, size_t errlen);

#endif
