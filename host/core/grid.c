/* grid.c - counting-sort neighbor grid launchers (kernels/grid.cl).
 * The step reads like the algorithm: clear + count, scan, scatter + sort
 * cells + gather every attribute.
 */
#include "grid.h"
#include "passes.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int grid_layout(fcl_grid_info *info, const float lo[3], const float hi[3], float cell, size_t n,
                char *err, size_t errlen)
{
    memset(info, 0, sizeof *info);
    double dims[3], total = 1.0;
    for (int a = 0; a < 3; a++) {
        dims[a] = ceil((double)(hi[a] - lo[a]) / cell);
        if (dims[a] < 1.0)
            dims[a] = 1.0;
        total *= dims[a];
    }
    if (total > 4.0e9 || n > 4000000000u) {
        snprintf(err, errlen, "the domain spans %.6g x %.6g x %.6g grid cells of %g m (%.3g in all); "
                 "at most 4e9 fit: enlarge particles.spacing or shrink the domain",
                 dims[0], dims[1], dims[2], cell, total);
        return -1;
    }
    info->origin = fcl_f4(lo[0], lo[1], lo[2], 0.0f);
    info->cell_size = cell;
    info->inv_cell_size = 1.0f / cell;
    info->nx = (uint)dims[0];
    info->ny = (uint)dims[1];
    info->nz = (uint)dims[2];
    info->ncells = (uint)total;
    info->n = (uint)n;
    return 0;
}

size_t grid_bytes(const fcl_grid_info *info, size_t attr_bytes_per_particle)
{
    return (size_t)info->n * (3 * sizeof(uint) + 2 * attr_bytes_per_particle) +
           ((size_t)info->ncells + 1) * sizeof(uint);
}

int grid_init(fcl_grid *g, fcl_backend *be, const fcl_grid_info *info)
{
    return grid_init_cap(g, be, info, info->n);
}

void grid_set_count(fcl_grid *g, size_t n)
{
    g->info.n = (uint)(n < g->cap ? n : g->cap);
}

int grid_init_cap(fcl_grid *g, fcl_backend *be, const fcl_grid_info *info, size_t cap)
{
    memset(g, 0, sizeof *g);
    g->info = *info;
    g->cap = cap > info->n ? cap : info->n;
    g->key_attr = -1;
    size_t n = g->cap;
    const fcl_backend_ops *o = be->ops;
    g->start = o->buf_new(be, ((size_t)info->ncells + 1) * sizeof(uint), "grid cell starts");
    g->cell = o->buf_new(be, n * sizeof(uint), "grid cell ids");
    g->rank = o->buf_new(be, n * sizeof(uint), "grid ranks");
    g->order = o->buf_new(be, n * sizeof(uint), "grid order");
    if (!g->start || !g->cell || !g->rank || !g->order)
        return -1;
    return 0;
}

int grid_add_attr(fcl_grid *g, fcl_backend *be, const char *name, size_t elem)
{
    if (g->nattr == FCL_MAX_ATTRS || (elem != 4 && elem != 16))
        return -1;
    fcl_attr *a = &g->attr[g->nattr];
    a->cur = be->ops->buf_new(be, g->cap * elem, name);
    a->spare = be->ops->buf_new(be, g->cap * elem, name);
    a->elem = elem;
    a->name = name;
    if (!a->cur || !a->spare) {
        be->ops->buf_free(be, a->cur);
        be->ops->buf_free(be, a->spare);
        a->cur = a->spare = NULL;
        return -1;
    }
    return g->nattr++;
}

static int grid_count(fcl_grid *g, fcl_backend *be, fcl_buf *pos)
{
    if (pass_grid_clear(be, (size_t)g->info.ncells + 1, "grid-count", g->start) != 0)
        return -1;
    return pass_grid_count(be, g->info.n, "grid-count", pos, g->cell, g->rank, g->start, g->info);
}

static int grid_scan(fcl_grid *g, fcl_backend *be)
{
    return be->ops->scan(be, g->start, (size_t)g->info.ncells + 1, "grid-scan");
}

/* Scatter indices to slots, make each cell's order deterministic, then
 * gather every attribute into the new order and swap buffers. */
static int grid_reorder(fcl_grid *g, fcl_backend *be)
{
    size_t n = g->info.n;
    if (pass_grid_scatter(be, n, "grid-reorder", g->cell, g->rank, g->start, g->order) != 0 ||
        pass_grid_sort_cells(be, g->info.ncells, "grid-reorder", g->start, g->order,
                             g->key_attr >= 0 ? g->attr[g->key_attr].cur : g->order, g->key_attr >= 0 ? 1u : 0u) != 0)
        return -1;
    for (int i = 0; i < g->nattr; i++) {
        fcl_attr *a = &g->attr[i];
        int rc = a->elem == 16 ? pass_grid_gather_f4(be, n, "grid-reorder", g->order, a->cur, a->spare, (uint)n)
                               : pass_grid_gather_u32(be, n, "grid-reorder", g->order, a->cur, a->spare);
        if (rc != 0)
            return -1;
        fcl_buf *t = a->cur;
        a->cur = a->spare;
        a->spare = t;
    }
    return 0;
}

int grid_build(fcl_grid *g, fcl_backend *be, int pos_attr)
{
    if (grid_count(g, be, g->attr[pos_attr].cur) != 0 || grid_scan(g, be) != 0)
        return -1;
    g->builds++;
    return grid_reorder(g, be);
}

void grid_free(fcl_grid *g, fcl_backend *be)
{
    const fcl_backend_ops *o = be->ops;
    o->buf_free(be, g->start);
    o->buf_free(be, g->cell);
    o->buf_free(be, g->rank);
    o->buf_free(be, g->order);
    for (int i = 0; i < g->nattr; i++) {
        o->buf_free(be, g->attr[i].cur);
        o->buf_free(be, g->attr[i].spare);
    }
    memset(g, 0, sizeof *g);
}
