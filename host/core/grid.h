/* grid.h - the neighbor grid on any backend: launchers for the passes of
 * kernels/grid.cl and the list of particle attributes it keeps sorted.
 * Invariant: after grid_build, every registered attribute is in cell
 * order and `start` holds ncells+1 cell starts (start[ncells] = n).
 */
#ifndef FCL_GRID_H
#define FCL_GRID_H

#include "../../kernels/fcl_types.h"
#include "backend.h"

enum { FCL_MAX_ATTRS = 16 };

/* A double-buffered per-particle attribute: the gather writes cur into
 * spare, then the two swap. elem is 16 (float4) or 4 (uint/float). */
typedef struct fcl_attr {
    fcl_buf *cur, *spare;
    size_t elem;
    const char *name;
} fcl_attr;

typedef struct fcl_grid {
    fcl_grid_info info;          /* info.n: the particles it sorts now */
    size_t cap;                  /* particles its buffers hold (>= info.n) */
    fcl_buf *start;              /* ncells+1: counts, then cell starts */
    fcl_buf *cell, *rank, *order;  /* a build's scratch: between builds a
                                      solver may use rank (n uints) as its
                                      own (mac's reseeding does) */
    fcl_attr attr[FCL_MAX_ATTRS];
    int nattr;
    int key_attr;                /* u32 attribute that orders particles
                                    within a cell (the ids), or -1: their
                                    previous order (kernels/grid.cl) */
    long builds;                 /* grid_build calls so far */
} fcl_grid;

/* Cell layout for a domain box and cell size; fails (message in err) when
 * the cell count would not fit in 32 bits. */
int grid_layout(fcl_grid_info *info, const float lo[3], const float hi[3], float cell, size_t n,
                char *err, size_t errlen);
int grid_init(fcl_grid *g, fcl_backend *be, const fcl_grid_info *info);
/* The same with buffers for cap >= info->n particles; grid_set_count
 * changes how many of them the next build sorts. */
int grid_init_cap(fcl_grid *g, fcl_backend *be, const fcl_grid_info *info, size_t cap);
void grid_set_count(fcl_grid *g, size_t n);
/* Register an attribute to keep sorted; returns its index. */
int grid_add_attr(fcl_grid *g, fcl_backend *be, const char *name, size_t elem);
/* grid-count, grid-scan, grid-reorder; pos is attribute `pos_attr`. */
int grid_build(fcl_grid *g, fcl_backend *be, int pos_attr);
void grid_free(fcl_grid *g, fcl_backend *be);
/* Bytes per particle and per cell that a grid with these attributes uses. */
size_t grid_bytes(const fcl_grid_info *info, size_t attr_bytes_per_particle);

#endif
