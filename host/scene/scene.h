/* scene.h - scene files: JSON with one object per parameter group (keys
 * and values exactly as in the parameter table) plus "name",
 * "description", "fluid", a list of boxes and spheres to fill, and
 * optionally "obstacles", static solids (boxes, spheres, OBJ meshes,
 * planar polygons).
 *
 *   { "name": "dam break", "sim": {"solver": "wcsph", "dt": 2.5e-4},
 *     "domain": {"min": [0,0,0], "max": [1,0.6,0.4]},
 *     "particles": {"spacing": 0.0125},
 *     "fluid": [ {"type": "box", "min": [0,0,0], "max": [0.4,0.5,0.4]},
 *                {"type": "sphere", "center": [0.5,0.8,0.2], "radius": 0.1,
 *                 "velocity": [0,-1,0]} ],
 *     "obstacles": [ {"type": "box", "min": [0.6,0,0.1], "max": [0.7,0.3,0.2]},
 *                    {"type": "sphere", "center": [0.8,0.1,0.3], "radius": 0.06},
 *                    {"type": "mesh", "file": "glass.obj", "scale": 1,
 *                     "translate": [0.5,0,0.2]},
 *                    {"type": "polygon", "vertices": [[0,0.1,0], [0,0.1,0.4],
 *                     [0.3,0.2,0.4], [0.3,0.2,0]], "thickness": 0.02} ] }
 * and optionally "phases" (phases.c), named by fluid blocks' "phase", and
 * "emitters" (emitters.c).
 *
 * Invariant: a scene that loaded has only known keys, each once, with
 * finite values in range; errors name the file, the key and the value and
 * say what was expected.
 */
#ifndef FCL_SCENE_H
#define FCL_SCENE_H

#include <stddef.h>

#include "../../kernels/fcl_common.h"
#include "../../kernels/fcl_types.h"
#include "params.h"

/* The shapes a scene names: fluid blocks are boxes or spheres, obstacles
 * any of the four (the device's solids, fcl_solid, have their own). */
typedef enum { FCL_SHAPE_BOX, FCL_SHAPE_SPHERE, FCL_SHAPE_MESH, FCL_SHAPE_POLYGON } fcl_shape_kind;

typedef struct fcl_block {
    fcl_shape_kind kind;         /* FCL_SHAPE_BOX or FCL_SHAPE_SPHERE */
    float min[3], max[3];        /* box */
    float center[3], radius;     /* sphere */
    float velocity[3];
    char phase[32];              /* its phase's name; "" is the first */
    int phase_index;             /* resolved: index into fcl_scene.phases */
} fcl_block;

/* A fluid phase (seed 002 3.4, several fluids): the particles of the
 * blocks that name it carry its index in pos.w (sim.h). */
typedef struct fcl_phase_decl {
    char name[32];
    float density;               /* kg/m^3 */
    float viscosity;             /* Pa s, as material.viscosity */
    float sound_speed;           /* m/s, a compressible phase in mps; 0: incompressible */
    float color[3];              /* the viewer's, in [0, 1] */
} fcl_phase_decl;

/* Most vertices of one polygon obstacle (a corridor is several). */
#define FCL_POLY_MAX 64

typedef struct fcl_obstacle {
    fcl_shape_kind kind;
    float min[3], max[3];        /* box */
    float center[3], radius;     /* sphere */
    char file[1024];             /* mesh: resolved against the scene's folder,
                                    "embedded:NAME" for an embedded scene */
    float scale, translate[3];   /* mesh: x' = scale * x + translate */
    float poly[FCL_POLY_MAX][3]; /* polygon: vertices in order; the front
                                    side by the right-hand rule */
    int npoly;
    float thickness;             /* polygon: depth of the solid behind it
                                    (m); 0: boundary.layers spacings */
} fcl_obstacle;

/* An emitter (emitters.c): layers of particles on the fluid lattice
 * leave a rectangle or disk at `speed` along `dir` between start and end. */
enum { FCL_EMITTERS_MAX = 16 };
typedef struct fcl_emitter {
    int disk;                    /* 0: rectangle size[0] x size[1]; 1: disk of radius size[0] */
    float center[3], dir[3];     /* dir: unit flow direction, the shape's normal */
    float size[2];
    float speed;                 /* m/s */
    double start, end;           /* s */
    double rate;                 /* particles/s; 0: a layer per spacing travelled */
    char phase[32];
    int phase_index;
} fcl_emitter;

/* An outflow region (emitters.c): particles inside it leave the run. */
enum { FCL_OUTFLOWS_MAX = 16 };
typedef struct fcl_outflow {
    float min[3], max[3];
} fcl_outflow;

typedef struct fcl_scene {
    char file[1024];             /* as given, for messages */
    char name[128];
    char description[512];
    fcl_params params;
    fcl_block *blocks;
    int nblocks;
    fcl_obstacle *obstacles;     /* NULL when the scene has none */
    int nobstacles;
    struct fcl_target *targets;  /* fluid-control targets (targets.h), NULL when none */
    int ntargets;
    fcl_phase_decl phases[FCL_PHASES_MAX];  /* "phases"; nphases = 0: one
                                               implicit phase, material.* */
    int nphases;
    fcl_emitter emitters[FCL_EMITTERS_MAX];   /* "emitters" */
    int nemitters;
    int capacity_from_emitters;   /* particles.capacity was 0: scene_emitter_capacity set it */
    int every_given;              /* the file sets output.every (its 0 writes no frames) */
    fcl_outflow outflows[FCL_OUTFLOWS_MAX];   /* "outflows" */
    int noutflows;
} fcl_scene;

/* Load a file, or an embedded scene when path is "embedded:NAME.json".
 * Returns 0, or -1 with "FILE: KEY: what was expected" in err. A file is
 * read only if it is a regular file of at most max_bytes (infile.h);
 * scene_load holds it to the default input.max_file_mb. */
int scene_load_max(fcl_scene *s, const char *path, size_t max_bytes, char *err, size_t errlen);
int scene_load(fcl_scene *s, const char *path, char *err, size_t errlen);
/* Parse scene text; `file` names it in messages. */
int scene_parse(fcl_scene *s, const char *text, const char *file, char *err, size_t errlen);
/* Consistency of blocks, obstacles and domain under parameters p (the
 * scene's own, possibly overridden from the command line). Mesh files are
 * not read here: boundary_build checks their extent once it loads them. */
int scene_check(const fcl_scene *s, const fcl_params *p, char *err, size_t errlen);
/* The squared distance from x to p's domain box (0 inside it): a sphere
 * reaches into the domain when it is under its radius squared. */
double scene_domain_gap2(const fcl_params *p, const double x[3]);
/* Whether p lies inside box or sphere obstacle o grown by `grow` m
 * (strictly; the sphere in double). 0 for polygons and meshes, which need
 * their frames or locators (boundary_carve). */
int scene_in_shape(const fcl_obstacle *o, const float p[3], double grow);
/* A mesh placed at scale (its vertices' bounds lo - hi after placement)
 * against p's domain: finite, and overlapping it. key names the object
 * in messages ("obstacles[2]", "targets[0].shape"). 0, or -1 with err. */
int scene_check_mesh_bounds(const fcl_scene *s, const fcl_params *p, const char *key, const char *mesh, double scale,
                            const float lo[3], const float hi[3], char *err, size_t errlen);
/* Lattice points scene_particles walks, at most (every block's whole
 * lattice; a sphere keeps about 52 % of its cube). */
#define SCENE_WALK_MAX 4.0e9
/* Number of particles the blocks produce at p's spacing (exact, except a
 * sphere whose lattice has more than SCENE_WALK_MAX points: estimated). */
double scene_count(const fcl_scene *s, const fcl_params *p);
/* The lattice points of all blocks at p's spacing, in closed form (an
 * upper bound of scene_count). Never overflows: doubles of finite extents. */
double scene_count_bound(const fcl_scene *s, const fcl_params *p);
/* Fill the blocks: *pos and *vel are malloc'd arrays of *n entries.
 * Refused (-1, message naming particles.spacing) when scene_count_bound
 * is above SCENE_WALK_MAX. */
int scene_particles(const fcl_scene *s, const fcl_params *p, float4 **pos, float4 **vel, size_t *n,
                    char *err, size_t errlen);
void scene_free(fcl_scene *s);
/* One layer of emitter e at this spacing: its particles' positions (w =
 * 0) into out (at most cap; NULL counts), on the plane through its
 * center. Returns the layer's particle count. */
size_t emitter_layer(const fcl_emitter *e, double spacing, float4 *out, size_t cap);
/* Emitter e's outline: its in-plane unit axes u, v, perpendicular to its
 * direction, and its half extents along them (a rectangle's size[0] / 2
 * along u, size[1] / 2 along v; a disk's radius on both). */
void emitter_frame(const fcl_emitter *e, double u[3], double v[3], double half[2]);
/* The points of emitter e's layer to test against obstacles: the layer
 * into out (room for cap), or, when it has more than cap, its center
 * alone. Returns their count. */
size_t emitter_probe_points(const fcl_emitter *e, double spacing, float4 *out, size_t cap);
/* particles.capacity, when 0 and the scene has emitters: its fluid plus
 * what the emitters add over the run (sim.duration, or sim.steps steps of
 * longest_dt, the solver's longest step); the memory check of sim_create
 * then covers it. */
void scene_emitter_capacity(fcl_scene *s, double longest_dt);
/* The time a run ends: sim.duration, or at most sim.steps steps of
 * longest_dt. */
double scene_run_end(const fcl_scene *s, double longest_dt);
/* The latest time a run's last step can reach, for the capacity: the
 * end, and for a duration one step of longest_dt past it. */
double scene_run_horizon(const fcl_scene *s, double longest_dt);
/* When the first emitter opens (infinity without one). */
double scene_first_inflow(const fcl_scene *s);

#endif
