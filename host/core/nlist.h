/* nlist.h - per-step neighbor lists on any backend (kernels/nlist.cl):
 * for each particle, the fluid particles (and their wall images) and the
 * boundary particles within a query radius, built once after a grid
 * rebuild and read by every pass and solver iteration until the next.
 * Invariant: after nlist_build returns 0 the lists match the grid's
 * current order and no particle had more neighbors than its capacity;
 * otherwise the caller gets -1 and a message naming the particle, the
 * count and the parameter to raise.
 */
#ifndef FCL_NLIST_H
#define FCL_NLIST_H

#include "../../kernels/fcl_types.h"
#include "backend.h"
#include "grid.h"

enum { FCL_NLIST_PLANES = 4 };

/* Per-entry float planes: values a solver keeps beside each list entry
 * (same layout), valid from the solver's pass after a build until the
 * next build. */
typedef struct fcl_nlist_planes {
    fcl_buf *buf[FCL_NLIST_PLANES];
    const char *what[FCL_NLIST_PLANES];
    int n;
} fcl_nlist_planes;

typedef struct fcl_nlist {
    fcl_nlist_info fl, bl;          /* fluid and boundary list layouts */
    fcl_buf *fcount, *fidx;         /* n counts, n * cap entries */
    fcl_buf *bcount, *bidx;
    fcl_nlist_planes fplanes, bplanes;
    fcl_buf *over;                  /* overflow reports (kernels/nlist.cl) */
    fcl_buf *bnear;                 /* per cell of the boundary grid: a
                                       boundary particle within reach
                                       (kernels/nlist.cl nlist_near) */
    long bnear_builds;              /* the boundary grid's builds then */
    fcl_buf *wsum;                  /* NULL, or per particle the sum of W_poly6
                                       over its fluid neighbors, made by
                                       each build (nlist_want_poly6_sum) */
    int fgrow, bgrow;               /* 1: capacity chosen here, grows on
                                       overflow; 0: the user's, fixed */
    int particle_major;
    size_t pcap;                    /* particles the buffers hold */
    long builds, grown;             /* builds so far; capacity growths */
    int overflowed;                 /* 1: the last build failed on a particle
                                       over a capacity the user set */
} fcl_nlist;

/* Capacities for a query radius r at particle spacing d: the parameter
 * when non-zero, else the starting capacities of neighbors.capacity and
 * neighbors.boundary_capacity (see params.def), which grow on demand. */
uint nlist_capacity(double r, double d, long param);
uint nlist_boundary_capacity(double r, double d, long param);
/* Device bytes per particle of lists with these capacities. */
size_t nlist_bytes_per_particle(uint cap, uint bcap);
/* Whether n particles of cap entries each fit the lists' 32-bit
 * addressing on the device (fewer than 2^32 entries and 2^NL_SHIFT
 * particles, the entries' index bits). */
int nlist_addressable(size_t n, uint cap);
/* Lists for up to pcap particles (each build takes the grid's current
 * count; nb boundary particles: 0 skips that list) with
 * query radius r on a grid of cell size `cell`. particle_major picks the
 * layout (1: one particle's entries together, for CPUs; 0: interleaved,
 * for GPUs). images: which lists hold wall images (mirror walls), the
 * FCL_NLIST_*_IMAGES bits. 0, or -1 with err. */
enum { FCL_NLIST_FLUID_IMAGES = 1, FCL_NLIST_BOUNDARY_IMAGES = 2 };
int nlist_init(fcl_nlist *l, fcl_backend *be, size_t pcap, size_t nb, float r, float cell, uint cap, uint bcap,
               int particle_major, int images, char *err, size_t errlen);
/* From now on each build also writes l->wsum: per particle, W_poly6 at
 * support c->h summed over its fluid neighbors (all of them, images
 * included), for a solver whose density is that sum (WCSPH with lists):
 * made while the build has the candidates at hand. The query radius
 * must be c->h. 0, or -1 when the buffer cannot be allocated. */
int nlist_want_poly6_sum(fcl_nlist *l, fcl_backend *be);
/* grow: whether a list over its capacity is regrown (capacities chosen
 * by default) or an error (capacities the user set). */
void nlist_set_growth(fcl_nlist *l, int fluid, int boundary);
/* A float plane beside the fluid (boundary = 0) or boundary list's
 * entries; returns its index, or -1. nlist_plane gives its buffer, which
 * a growth replaces: look it up at each launch. */
int nlist_add_plane(fcl_nlist *l, fcl_backend *be, int boundary, const char *what);
fcl_buf *nlist_plane(const fcl_nlist *l, int boundary, int k);
/* Build both lists for the particles at pos on grid g (cell starts
 * g->start) against themselves and the boundary particles bpos (cell
 * starts bgrid->start, same layout). Timer "neighbors". A list over its
 * capacity grows to 1.25 times its largest count and is built again (the
 * planes are reallocated, their contents lost), when growth is allowed;
 * otherwise, or when the larger lists cannot be allocated, the build
 * returns -1 with a message in err naming the particle (by its id from
 * ids, when given), its count and the parameter. -1 too when the device
 * failed. */
int nlist_build(fcl_nlist *l, fcl_backend *be, fcl_buf *pos, const fcl_grid *g, fcl_buf *bpos,
                const fcl_grid *bgrid, const fcl_sph_consts *c, fcl_buf *ids, char *err,
                size_t errlen);
void nlist_free(fcl_nlist *l, fcl_backend *be);

/* One list between two particle sets: for each particle at pos, the
 * particles of another set (qpos, sorted on qgrid, which has the layout of
 * the grid pos was sorted on) within r, no wall images. Fluid control
 * uses two: fluid particles -> control particles and back. The capacity
 * grows on overflow (1.25 x the largest count) like the default lists. */
typedef struct fcl_nlist_one {
    fcl_nlist_info L;
    fcl_buf *count, *idx, *over;
    size_t pcap;
    int particle_major;
    const char *timer;              /* the pass's timer label */
} fcl_nlist_one;
/* Lists for up to pcap particles, query radius r on a grid of cell size
 * `cell`, starting capacity cap. 0, or -1 with err. */
int nlist_one_init(fcl_nlist_one *x, fcl_backend *be, size_t pcap, float r, float cell, uint cap,
                   int particle_major, const char *timer, char *err, size_t errlen);
/* Build for the first n particles at pos against qpos on qgrid. 0, or -1
 * with err (the device failed, or a grown list did not fit). */
int nlist_one_build(fcl_nlist_one *x, fcl_backend *be, fcl_buf *pos, size_t n, fcl_buf *qpos, const fcl_grid *qgrid,
                    const fcl_sph_consts *c, char *err, size_t errlen);
void nlist_one_free(fcl_nlist_one *x, fcl_backend *be);

#endif
