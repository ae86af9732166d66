/* mc.h - surface reconstruction: an indexed triangle mesh of the fluid
 * surface from particle positions, by marching cubes on either backend
 * (kernels/mc.cl; the launches are in mc.c, the case tables in
 * mc_tables.c, the optional smoothing and decimation in mesh_post.c, the
 * PLY/OBJ files in mesh_io.c).
 * Invariant: a mesh's triangles index its own vertices (0 <= index < nv),
 * each vertex appears once, and triangles wind counter-clockwise seen from
 * outside the fluid (normals = -grad phi point out too).
 */
#ifndef FCL_MC_H
#define FCL_MC_H

#include <stddef.h>

#include "../../kernels/fcl_types.h"
#include "backend.h"

/* What surface.* and particles.* say; mc_config_from_params fills it. */
typedef struct mc_config {
    float spacing;     /* particle spacing d (m) */
    float h;           /* support radius (m) */
    float cell;        /* node spacing as a fraction of d (rounded so that
                          a whole number of cells spans a block) */
    float iso;         /* threshold as a fraction of phi's rest value */
    unsigned field;    /* FCL_MC_ZOU, FCL_MC_MUELLER or FCL_MC_ANISO */
    float stretch;     /* anisotropic: s_j = 1 + stretch |v_j| / h (s) */
    float max_stretch; /* ... at most this */
    int narrow;        /* 1: phi and marching cubes only on tiles that a
                          surface particle reaches (surface.narrow_band) */
    float band_shift;  /* a particle is at the surface when its neighbors'
                          W-weighted mean is farther than band_shift h ... */
    float band_fill;   /* ... or sum_k W_ik is below band_fill times its
                          value on a full lattice */
    int smooth_iterations; /* mesh_post.c: Taubin pairs; 0 = off */
    float smooth_feature;  /* ... neighbor weight exponent */
    float decimate;        /* fraction of triangles kept; 0 or 1 = off */
    float decimate_error;  /* largest collapse error (cells); 0 = none */
    /* surface.method and the level set's surface.ls_* (levelset.c); every
     * field is 4 bytes, so a config has no padding and compares by memcmp
     * (the viewer's mesh_cfg). */
    unsigned method;       /* MC_METHOD_MC or MC_METHOD_LEVELSET */
    float ls_cell;         /* level-set node spacing (spacings) */
    unsigned ls_binary;    /* 1: binary f, 0: smooth */
    float ls_threshold;    /* T; 0 = the field's own */
    float ls_radius;       /* particle radius r (spacings), never 0 */
    float ls_truncation;   /* smooth f's truncation radius (spacings) */
    float ls_beta;         /* curvature weight */
    float ls_tolerance;    /* stop: largest front step (cells) */
    int ls_max_iter;       /* iterations per frame, at most */
    int ls_band;           /* narrow band half-width (cells) */
    unsigned phase_mask;   /* bit k: phase k is meshed (surface.phases); 0: every particle */
} mc_config;

enum { MC_METHOD_MC = 0, MC_METHOD_LEVELSET = 1, MC_METHOD_GRID = 2 };
/* The trailing fields of a positional mc_config for marching cubes: the
 * method, the surface.ls_* defaults (params.def) and every phase. */
#define MC_FIELDS_LS_OFF MC_METHOD_MC, 0.5f, 0u, 0.0f, MC_LS_RADIUS_SMOOTH, 3.0f, 1.0f, 0.001f, 200, 3, 0u
/* surface.ls_radius 0: each field's own particle radius (spacings). The
 * smooth one's fits a ball's area and volume within 0.3 %, and meshes a
 * 20 x 10 x 20 block at 0.973 of its volume; the binary one's (its ramp a
 * spacing wide, levelset_speed.c) fits the ball's within 0.7 % and meshes
 * the block at 0.995, where 0.62 gave +2.7 % and 1.031 (test_levelset). */
#define MC_LS_RADIUS_SMOOTH 0.62f
#define MC_LS_RADIUS_BINARY 0.55f

typedef struct mc_mesh {
    size_t nv, nt;
    float4 *v, *n;     /* nv positions and unit normals (w = 0) */
    uint *tri;         /* 3 nt vertex indices */
} mc_mesh;

/* Device-side sizes of the last reconstruction. */
typedef struct mc_stats {
    size_t blocks;      /* neighbor-grid cells with particles around them */
    size_t tiles;       /* tiles of those blocks, labelled */
    size_t band_tiles;  /* tiles whose nodes got phi */
    size_t nodes;       /* nodes of the bounding-box node grid */
    size_t cells;       /* nodes that got phi = cells classified
                           (band_tiles * t^3) */
    size_t active;      /* cells with triangles */
    float node_cell;    /* the node spacing used (m) */
    unsigned tile;      /* node cells per tile edge */
    /* surface.method levelset (zero otherwise): */
    int ls_iterations;  /* PDE steps this frame */
    int ls_continued;   /* 1: started from the previous frame's phi */
    int ls_converged;   /* 1: stopped by surface.ls_tolerance */
    int ls_stalled;     /* 1: stopped where the front jitters in place above the tolerance (levelset.c) */
    float ls_jitter;    /* with ls_stalled: the largest step of its last 48 iterations (cells) */
    float ls_change;    /* largest front step of the last iteration (cells) */
    size_t ls_front;    /* front nodes at the end */
    double ls_ms_particles, ls_ms_speed, ls_ms_iterate, ls_ms_mesh; /* download, F, PDE, marching cubes */
} mc_stats;

struct ls_state;
typedef struct mc_ctx {
    fcl_backend *be;
    fcl_buf *tables;
    mc_stats last;
    struct ls_state *ls; /* surface.method levelset: phi kept between frames (levelset.c) */
    unsigned last_method; /* the method of the last reconstruction (MC_METHOD_*) */
    int big_noted;        /* the note on a level-set grid of many nodes was printed */
} mc_ctx;

/* The particles a reconstruction reads: host arrays (vel may be NULL
 * except for the anisotropic field), or device buffers on the
 * reconstruction's backend, a simulation's read in place (dpos set). */
typedef struct mc_input {
    size_t n;
    const float4 *pos, *vel;
    fcl_buf *dpos, *dvel;
    struct fcl_sim *sim;   /* the simulation of mc_input_sim (surface.method grid reads its level set) */
    const float *phase;    /* host input: each particle's phase (a frame's "phase" field); NULL: all 0. A
                              simulation's is pos.w */
} mc_input;

struct fcl_params;
struct fcl_sim;
void mc_config_from_params(mc_config *c, const struct fcl_params *p);
mc_input mc_input_host(const float4 *pos, const float4 *vel, size_t n);
/* A simulation's positions and velocities at t, on its backend: no
 * download, no upload (the mesh path sorts its own copy on the device:
 * the simulation's grid is a step old by then, and re-sorting it would
 * reorder the particles under the solver's per-particle state). */
mc_input mc_input_sim(struct fcl_sim *s);
/* Kernels and the uploaded case tables. 0, or -1 with err. */
int mc_init(mc_ctx *x, fcl_backend *be, char *err, size_t errlen);
/* The surface of n particles (host positions and velocities, w ignored;
 * vel may be NULL except for the anisotropic field) into *out (which the
 * caller frees with mc_mesh_free), smoothed and decimated as c says
 * (mesh_post.h). n = 0 gives an empty mesh. Returns 0, FCL_EXIT_INPUT (bad
 * positions, no velocities, a grid too large, or a post-processing value
 * out of range; err says which) or FCL_EXIT_DEVICE. */
int mc_reconstruct(mc_ctx *x, const mc_config *c, const float4 *pos, const float4 *vel, size_t n, mc_mesh *out,
                   char *err, size_t errlen);
/* What mc_reconstruct_in would refuse for this input before any work
 * (non-finite positions, missing velocities, a grid too large for the
 * particles' extent or the device), with nothing made or changed: 0,
 * FCL_EXIT_INPUT with err, or FCL_EXIT_DEVICE. */
int mc_check_input(mc_ctx *x, const mc_config *c, const mc_input *in, char *err, size_t errlen);
/* The same from either kind of input. */
int mc_reconstruct_in(mc_ctx *x, const mc_config *c, const mc_input *in, mc_mesh *out, char *err, size_t errlen);
void mc_free(mc_ctx *x);
/* Drops what a reconstruction keeps between frames (the level set's phi),
 * so the next one starts afresh: after a reset to another state. */
void mc_forget(mc_ctx *x);
/* Marching cubes over a node field the caller made (the level set's): phi
 * on m->nx x ny x nz nodes, inside where phi >= m->iso; the nlist tiles
 * of m->t^3 cells in list hold every cell whose corners differ (label 5
 * and slot set for them, label 0 elsewhere). The mesh comes back as from
 * mc_reconstruct, before post-processing. 0 or FCL_EXIT_DEVICE. */
int mc_mesh_nodes(mc_ctx *x, const fcl_mc_info *m, const float *phi, const uint *label, const uint *list, uint nlist,
                  const uint *slot, mc_mesh *out, char *err, size_t errlen);
void mc_mesh_free(mc_mesh *m);
/* Particles within lo..hi against a node grid of `cell` m: 0, or -1 with
 * err when float coordinates there step by more than a quarter of the
 * cell (the field and the cells' labels disagree near that: an open mesh
 * at 1e6 m with a 1 cm cell; a level set at 1e5 m did not converge).
 * what/key name the cell ("surface", "surface.cell"). */
int mc_float_reach(const double lo[3], const double hi[3], double cell, const char *what, const char *key, char *err,
                   size_t errlen);
/* The volume a closed mesh encloses (divergence theorem: tetrahedra to
 * its first vertex, so that a mesh far from the origin sums small terms);
 * 0 for an empty one. */
double mc_mesh_volume(const mc_mesh *m);
/* surface.method grid (grid_mesh.c): marching cubes of the simulation's own
 * level set at its cell centers (the solver's levelset hook), closed at
 * solid cells, smoothed and decimated as c says. 0, FCL_EXIT_INPUT (no
 * simulation, or its solver keeps no level set; err says which) or
 * FCL_EXIT_DEVICE. */
int mc_grid_mesh(mc_ctx *x, const mc_config *c, struct fcl_sim *s, mc_mesh *out, char *err, size_t errlen);
/* Before any work: FCL_EXIT_INPUT with err naming surface.support when it
 * is under 1.2 spacings (and not 0), or surface.method when it is grid and
 * the reconstruction is of saved frames (from_frames) or the solver keeps
 * no level set; else 0. */
int mc_method_check(const struct fcl_params *p, int from_frames, char *err, size_t errlen);
/* Its first half: surface.support under 1.2 spacings (and not 0) refused
 * with FCL_EXIT_INPUT; the viewer's panel checks each edit so (it falls
 * back to spheres itself where surface.method grid has no level set). */
int mc_support_check(const struct fcl_params *p, char *err, size_t errlen);
/* surface.method grid where there is no grid level set to mesh (saved
 * frames, or a solver that keeps none): FCL_EXIT_INPUT with err; else 0.
 * Part of mc_method_check, without its notes (the viewer's panel). */
int mc_grid_check(const struct fcl_params *p, int from_frames, char *err, size_t errlen);
/* The level set's curvature term shrinks a body whose radius is under
 * 2 beta r / F_rest spacings to nothing: refused above MC_LS_SHRINK_MAX,
 * noted by run, bench and surface above MC_LS_SHRINK_NOTE (the defaults:
 * 0.56 smooth, 1.13 binary). mc_levelset_shrink gives it (0 without the
 * level set). */
#define MC_LS_SHRINK_MAX 5.0f
#define MC_LS_SHRINK_NOTE 2.0f
float mc_levelset_shrink(const struct fcl_params *p);
/* The narrow band's surface tests on a particle of a flat lattice face
 * (the least exposed surface particle: a (100) face has the most
 * neighbors in its own plane), under c's support and spacing: its
 * neighborhood's sum of W_poly6 and of W r^2 as fractions of a full
 * lattice's (the smaller in *fill) and its W-weighted neighbor mean's
 * distance in support radii (*shift). Returns 1 when c's band_fill and
 * band_shift flag such a particle with a margin (band_fill at least 5 %
 * above *fill, or band_shift at most 3/4 of *shift; a jittered face reads
 * a little either side): else the band would label a flat face's tiles
 * interior and mesh their outline (a 20 x 10 x 20 lattice at band_shift
 * 0.15 and band_fill 0.7: +15 % of volume, exit 0; a review), so the
 * reconstruction evaluates every tile instead (layout), and run, bench and
 * surface note it (mc_method_check). */
int mc_band_flags_face(const mc_config *c, double *fill, double *shift);
/* The parameters to look at when a mesh of particles came out empty, for
 * run's and surface's warning (what mc_support_check cannot foresee). */
const char *mc_empty_hint(const struct fcl_params *p);

/* Case tables (mc_tables.c), laid out as kernels/mc.cl's MC_TABLE_INTS
 * ints: triangle counts, then edge triples per case. */
enum { MC_TABLE_LEN = 256 + 256 * 30 };
void mc_tables(int *tab);

/* Binary little-endian PLY (vertex x y z nx ny nz floats, face list uchar
 * uint) and Wavefront OBJ (v, vn, f a//a, 1-based), written atomically
 * through "<path>.tmp" + fsync + rename. 0, or -1 with err. */
int mesh_write_ply(const char *path, const mc_mesh *m, char *err, size_t errlen);
int mesh_write_obj(const char *path, const mc_mesh *m, char *err, size_t errlen);
/* Readers of exactly what the writers produce; err names the file. */
int mesh_read_ply(const char *path, mc_mesh *m, char *err, size_t errlen);
int mesh_read_obj(const char *path, mc_mesh *m, char *err, size_t errlen);

#endif
