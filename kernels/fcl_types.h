/* fcl_types.h - structs shared by host and device, declared once.
 *
 * They are passed by value as kernel arguments, so host and OpenCL layouts
 * must agree byte for byte: members are float, uint and float4 only, float4
 * members come first, and host/core/fcl_types_check.c asserts every size.
 * Invariant: adding a member means updating the size assert in that file.
 */
#ifndef FCL_TYPES_H
#define FCL_TYPES_H

#ifndef __OPENCL_C_VERSION__
#include "fcl_common.h"
#endif

/* Work-group size of the scan and reduction kernels. The OpenCL build gets
 * it as -DFCL_WG=...; the CPU backend groups its reductions the same way. */
#ifndef FCL_WG
#define FCL_WG 256
#endif

/* The uniform neighbor grid. Cells are cubes of side cell_size (= h) laid
 * out with x fastest, so the three cells x-1..x+1 of a row are contiguous in
 * cell order and therefore in sorted particle order. */
typedef struct fcl_grid_info {
    float4 origin;      /* lower corner of cell (0,0,0) */
    float cell_size;
    float inv_cell_size;
    uint nx, ny, nz;    /* cells per axis */
    uint ncells;        /* nx*ny*nz */
    uint n;             /* particles */
    uint pad0;
} fcl_grid_info;

/* A neighbor list (kernels/nlist.cl): entry k of particle i at
 * idx[i * pstride + k * kstride], count[i] found (at most cap stored).
 * An entry is j | m << NL_SHIFT: the candidate's sorted index and its
 * wall image's 6-bit mask (walls.h; so at most 2^26 = 67,108,864
 * particles). */
#define NL_SHIFT 26u
#define NL_INDEX 0x03ffffffu
typedef struct fcl_nlist_info {
    float r, r2;        /* query radius and its square */
    uint cap;           /* entries stored per particle */
    uint pstride, kstride;
    uint reach;         /* cells walked each way: ceil(r / cell size) */
    uint mirror;        /* 1: wall images too (boundary.walls = mirror) */
    uint n;             /* particles that have a list */
} fcl_nlist_info;

/* Everything a smoothing-kernel pass needs. Rebuilt by the host from the
 * parameter table before every step, which is how live edits take effect. */
typedef struct fcl_sph_consts {
    float4 gravity;
    float4 domain_min;  /* the walls */
    float4 domain_max;
    float h, h2;        /* support radius and its square */
    float mass;         /* per particle */
    float rest_density;
    float stiffness;    /* k in p = k (rho - rho0) */
    float negative_pressure;   /* scale applied to p < 0 (0 clamps) */
    float viscosity;    /* mu */
    float surface_tension;     /* sigma */
    float surface_threshold;   /* l: |n| above which tension applies */
    float restitution;  /* fraction of normal speed kept at a wall */
    float radius;       /* particle radius: closest approach to a wall */
    float dt;
    float max_step_ratio;      /* |v| dt / h above this is a blow-up */
    float poly6, poly6_grad, poly6_lap;  /* normalisation constants */
    float spiky_grad, visc_lap;
    uint n;
    uint mirror_walls;  /* 1: walls are mirror images; 0: boundary particles */
    uint tension_model; /* FCL_TENSION_* (kernels/forces.cl) */
    float cohesion;     /* gamma of Akinci et al. 2013 */
    float akinci_c;     /* 32 / (pi h^9): their cohesion spline's constant */
    uint nsolids;       /* fcl_solid entries: solids, and the values after an SDF head */
    uint density_spiky; /* 1: WCSPH's density sums the spiky kernel (wcsph.density_kernel) */
    float spiky;        /* 15 / (pi h^6): the spiky kernel's constant */
} fcl_sph_consts;

/* A static obstacle that the integrators keep particles out of
 * (kernels/boundary.cl, solids_project): box a = min and b = max corner;
 * sphere a = center with the radius in a.w; both already grown by the
 * closest approach allowed. Triangle: one piece of a polygon obstacle,
 * vertices a, b, c (front side by the right-hand rule), the solid slab
 * from b.w in front of it (the closest approach) to a.w behind it (the
 * polygon's thickness). Signed distance (a mesh obstacle): its values
 * on nodes a.w apart from a.xyz, dims[0..2] per axis (x fastest), follow
 * the head in the next ceil(count / 16) entries, 16 floats to an entry
 * (host/boundary/mesh_sdf.c); b.x the closest approach. */
typedef struct fcl_solid {
    float4 a, b, c;
    uint kind;          /* FCL_SOLID_* */
    uint dims[3];       /* FCL_SOLID_SDF: nodes per axis */
} fcl_solid;
enum { FCL_SOLID_BOX = 0, FCL_SOLID_SPHERE = 1, FCL_SOLID_TRIANGLE = 2, FCL_SOLID_SDF = 3 };

/* Density kernels of the boundary volumes and lattice sums (kind in
 * boundary.cl's boundary_w, host smoothing_lattice_sum_of). */
enum { FCL_KERNEL_POLY6 = 0, FCL_KERNEL_CUBIC = 1, FCL_KERNEL_SPIKY = 2 };

/* Surface tension models (material.tension_model): none, Mueller 2003's
 * color field, Akinci 2013's cohesion plus curvature. */
enum { FCL_TENSION_NONE = 0, FCL_TENSION_MUELLER = 1, FCL_TENSION_AKINCI = 2 };

/* Fields the viewer colors particles by (kernels/view.cl, view_pack). */
enum { FCL_FIELD_SPEED = 0, FCL_FIELD_DENSITY = 1, FCL_FIELD_PRESSURE = 2, FCL_FIELD_PHASE = 3,
       FCL_FIELD_SURFACE = 4, FCL_FIELD_COUNT = 5 };
/* view_pack's code for a field the solver declares: it reads the values
 * from its sfield buffer. The viewer numbers the solver's fields after
 * the common ones: menu entry FCL_FIELD_COUNT + k is solver field k. */
enum { FCL_FIELD_SOLVER = FCL_FIELD_COUNT };

/* DFSPH's own constants (kernels/dfsph.cl), rebuilt before every step. */
typedef struct fcl_dfsph_consts {
    float dt;           /* this step's (adaptive) time step */
    float inv_h;
    float k, l;         /* cubic spline: W constant, gradient factor l / h^2 */
    float volume;       /* V = m / rho0 */
    float xsph;         /* XSPH velocity smoothing epsilon */
    uint use_table;     /* 1: lookup tables, 0: exact kernel */
    uint table_n;       /* samples per table */
    uint min_neighbors; /* fewer (fluid + boundary): no divergence solve */
    float warm;         /* warm start: share of last step's total, times
                           the dt ratio that keeps its pressure */
    float omega;        /* Jacobi relaxation of each pressure update */
    float visc;         /* 10 nu: the standard viscosity's factor (0: off) */
} fcl_dfsph_consts;

/* PBF's own constants (kernels/pbf.cl), derived before every step
 * (host/solvers/pbf/pbf.c). Densities are relative (rhat = rho / rho0,
 * V = m / rho0), so eps and s_corr are in units of D0, the sum of
 * |grad C|^2 of a particle inside a resting lattice: scale-free. */
typedef struct fcl_pbf_consts {
    float dt, inv_dt;   /* this step's time step and its inverse */
    float volume;       /* V = m / rho0 (poly6 lattice sum = 1 / V) */
    float eps;          /* relaxation added to the denominator (1/m^2) */
    float scorr_k;      /* s_corr = -scorr_k (W / W(dq))^n, k / D0 (m^2) */
    float scorr_inv_wdq;   /* 1 / W_poly6(dq) */
    uint scorr_n;       /* the exponent n */
    uint clamp;         /* 1: C = max(C, 0) (no attraction at the surface) */
    float xsph;         /* XSPH velocity smoothing c */
    float vorticity;    /* confinement epsilon (m/s); 0: off */
    float tscale;       /* dt / pbf.dt_max (at most 1): scales the surface's
                           attraction (C < 0) and s_corr */
    float pad1;
} fcl_pbf_consts;

/* One fluid phase on the device (host sim_set_phases; a fluid particle's
 * phase index is its pos.w): density and dynamic viscosity. */
#define FCL_PHASES_MAX 8
typedef struct fcl_phase {
    float density;      /* kg/m^3 */
    float viscosity;    /* Pa s */
    float sound_speed;  /* m/s: a compressible phase in MPS's pressure
                           equation (kernels/mps.cl mps_compress); 0: none */
    float pad1;
} fcl_phase;

/* MPS's constants (kernels/mps.cl; Koshizuka & Oka 1996, SEED-NOTES 4),
 * derived from the mps.* parameters before every step. */
typedef struct fcl_mps_consts {
    float dt;           /* this step's time step */
    float re_n, re_n2;  /* radius of the number density and gradient (m) */
    float re_l, re_l2;  /* radius of the Laplacian (m) */
    float rmin2;        /* r^2 below which w takes r = rmin (coincident pairs) */
    float n0;           /* rest number density at re_n (lattice sum) */
    float beta;         /* free surface: n* < beta n0 */
    float rho;          /* density (material.rest_density): without phases
                           every particle's, with them the reference rho0 */
    float lap_k;        /* 2d / (lambda n0_l): the Laplacian's factor */
    float src_k;        /* lambda n0_l rho / (2 d dt^2): the PPE's source */
    float grad_k;       /* d / n0: the gradient */
    uint clamp;         /* 1: negative pressures count as 0 in the gradient */
    float coll_r2;      /* collision model: pairs closer than this (m^2); 0: off */
    float coll_e;       /* its restitution */
    uint phases;        /* phases in the table (0: material.* for all) */
    float mu;           /* material.viscosity (Pa s), without phases */
    uint smooth;        /* 1: the pressure passes read phase densities
                           smoothed over the neighbors (mps.density_smoothing) */
    float self_w;       /* w(l0): a particle's own weight in that average */
    uint walls;         /* 1: layer-0 boundary particles are pressure unknowns
                           (mps.wall_pressure = solve, kernels/mps_walls.cl) */
    float comp_k;       /* src_k without mps.relaxation: a compressible
                           phase's diagonal is comp_k / (rho c^2) */
    uint grad;          /* mps.gradient: 0 ko (phat), 1 gc (corrected, no phat) */
    float ds_k;         /* mps.stabilization: close pairs' restoring factor (0: off) */
    float ds_r2;        /* its reach: l0^2 (m^2) */
    float l0;           /* particles.spacing (m) */
} fcl_mps_consts;

/* The MAC grid of the mac solver (kernels/mac.cl; seed 003, SEED-NOTES
 * 5): nx * ny * nz interior cells of side dx from origin (the domain's
 * lower corner), padded by one ghost layer of solid cells on every side,
 * so cell (i, j, k), 0 <= i <= nx + 1, has index i + sy j + sz k and every
 * interior cell's six neighbors exist. vel[c] holds the velocity
 * components on cell c's three lower faces (x: u at the face x = origin.x
 * + (i - 1) dx, and so on). Rebuilt before every substep. */
typedef struct fcl_mac_info {
    float4 origin;      /* lower corner of interior cell (1, 1, 1) */
    float dx, inv_dx;   /* cell side and its inverse */
    float dt;           /* this substep */
    float rho;          /* density (material.rest_density) */
    float theta_min;    /* ghost fluid: the surface fraction's floor */
    float iso;          /* level set phi = iso - sum W / lattice sum */
    float inv_lattice;  /* 1 / (sum of W_poly6 over a resting lattice) */
    float margin;       /* particles stay this far inside the grid box */
    uint nx, ny, nz;    /* interior cells per axis */
    uint sy, sz;        /* index strides of y and z (x: 1) */
    uint ncell;         /* (nx + 2) (ny + 2) (nz + 2) */
    uint pad0, pad1;
} fcl_mac_info;

/* One open emitter as a velocity source of the MAC grid (kernels/mac.cl,
 * mac_inflow): faces in a slab over its outline, from half a cell behind
 * its plane to depth in front, take its velocity. */
typedef struct fcl_mac_inflow {
    float4 center;      /* the emitter's center */
    float4 vel;         /* speed times its unit direction */
    float4 dir;         /* unit direction; w: the slab's depth downstream (m) */
    float4 u, v;        /* in-plane unit axes; w: half extents (disk: u.w the radius) */
    uint disk;          /* 1: a disk of radius u.w */
    uint pad0, pad1, pad2;
} fcl_mac_inflow;

/* Fluid control's constants (kernels/control.cl; seed 001, SEED-NOTES
 * 3.3-3.5), derived from the control.* parameters before every step. The
 * control density is relative like PBF's: rhat~ = V_H sum_j W_poly6(H),
 * V_H = 1 / (the poly6 lattice sum at support H and the fluid spacing). */
typedef struct fcl_control_consts {
    float H, H2;        /* control radius and its square */
    float poly6, spiky_grad;   /* kernel constants at support H */
    float volume;       /* V_H */
    float eps;          /* relaxation of lambda~ (1/m^2) */
    float beta;         /* spring: largest displacement per step (m) */
    float a, b;         /* spring strength 1 / (1 + e^(b - a x)) */
    float inv_unit;     /* x = |r - p| * inv_unit (1 / particle radius) */
    float gamma;        /* velocity constraint strength */
    float dt;
    float spring_r2;    /* (sampling interval / 2)^2: inside the region */
    float life_min, life_max;  /* spring lifetime range (s) */
    uint step;          /* seeds the lifetimes' hash */
    uint n;             /* control particles */
    float alpha;        /* density strength of particles whose w < 0 */
    float dscale;       /* density displacement: dt / pbf.dt_max (at most 1) */
    float pad2;
} fcl_control_consts;

/* Mode bits of the dfsph_source pass: which solver, and whether this is
 * the warm start of that solver. */
enum { DFSPH_DENSITY = 0, DFSPH_DIVERGENCE = 1, DFSPH_WARM = 2 };

/* Surface reconstruction (kernels/mc.cl): the node grid of marching cubes.
 * Node (0,0,0) sits at the neighbor grid's origin and b node cells tile one
 * neighbor-grid cell (a "block"), so that the blocks near fluid are exactly
 * the neighbor-grid cells with particles around them. */
typedef struct fcl_mc_info {
    float4 origin;      /* node (0,0,0) */
    float cell;         /* node spacing = neighbor cell size / b */
    float inv_cell;
    float h2, poly6;    /* support^2 and the W_poly6 constant */
    float iso;          /* absolute threshold on phi: inside where phi >= iso */
    float volume;       /* field mueller: every particle's rest volume d^3 */
    uint field;         /* FCL_MC_* */
    uint b;             /* node cells per block edge */
    uint nx, ny, nz;    /* nodes per axis (blocks * b + 1) */
    uint nblocks;       /* blocks near fluid (the active list's length) */
    float h;            /* support radius */
    float stretch;      /* anisotropic: s_j = 1 + stretch |v_j| / h ... */
    float max_stretch;  /* ... at most this; blocks are max_stretch h wide */
    uint narrow;        /* 1: phi only on tiles near surface particles */
    uint t;             /* node cells per tile edge (t divides b) */
    uint tpb;           /* tiles per block edge, b / t */
    uint tnx, tny, tnz; /* tiles per axis */
    float reach2;       /* (farthest a particle's phi reaches)^2: h^2, or
                           (max_stretch h)^2 for the anisotropic field */
    float band_m2;      /* surface particle: |sum_k W_ik x_ik|^2 > band_m2 s^2 ... */
    float band_fill;    /* ... or s = sum_k W_ik below this ... */
    float band_spread;  /* ... or sum_k W_ik |x_ik|^2 below this */
    float pad_mc[3];    /* to the float4 alignment, as OpenCL pads */
} fcl_mc_info;

/* Scalar fields of surface.field: Zou's phi = sum_j V_j W_poly6 with
 * V_j = m_j / rho_j = 1 / sum_k W_jk; Mueller's color field with every
 * particle's rest volume V_j = m / rho0 = d^3; and Zou's V_j with Premoze's
 * kernel stretched by s_j along each particle's velocity. */
enum { FCL_MC_ZOU = 0, FCL_MC_MUELLER = 1, FCL_MC_ANISO = 2 };

/* Per work-group partial results of the stats pass. */
typedef struct fcl_stats_partial {
    float max_speed2;
    float sum_density_err;  /* sum of max(rho/rho0 - 1, 0) */
    float max_density_err;
    uint first_bad;         /* smallest sorted index that blew up, or ~0 */
} fcl_stats_partial;

#endif
