/* cpu_kernels.c - the native CPU backend's kernels: the same kernels/ (*.cl)
 * sources compiled as C, each pass wrapped in an OpenMP loop.
 *
 * Including the .cl files here is the point: the per-particle *_item
 * functions are the single definition of each pass, so the two backends
 * cannot drift apart and agree to float rounding. Wrappers unpack their
 * arguments once, outside the loop, so the item functions inline.
 * Invariant: each wrapper's argument order is that of the __kernel.
 */
#include <stddef.h>
#include <stdint.h>

#include "../kernels/fcl_common.h"
#include "../kernels/fcl_types.h"
#include "../kernels/smoothing.h"
#include "../kernels/walls.h"
#include "../kernels/grid.cl"
#include "../kernels/nlist.cl"
#include "../kernels/boundary.cl"
#include "../kernels/forces.cl"
#include "../kernels/wcsph.cl"
#include "../kernels/dfsph.cl"
#include "../kernels/view.cl"
#include "../kernels/mc.cl"
#include "be_cpu.h"
#include "../kernels/pass.h"

/* The wrappers of every declared pass (kernels/passes.def). */
#include "../kernels/passes.def"

#define BUF(i, T) ((T *)a[i].buf->ptr)
#define VAL(i, T) (*(const T *)a[i].val)

static void k_grid_clear(const fcl_arg *a, size_t items)
{
    uint *count = BUF(0, uint);
#pragma omp parallel for schedule(static)
    for (size_t c = 0; c < items; c++)
        grid_clear_item((uint)c, count);
}

static void k_grid_count(const fcl_arg *a, size_t items)
{
    const float4 *pos = BUF(0, const float4);
    uint *cell = BUF(1, uint), *rank = BUF(2, uint), *count = BUF(3, uint);
    const fcl_grid_info g = VAL(4, fcl_grid_info);
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < items; i++)
        grid_count_item((uint)i, pos, cell, rank, count, &g);
}

static void k_grid_scatter(const fcl_arg *a, size_t items)
{
    const uint *cell = BUF(0, const uint), *rank = BUF(1, const uint), *start = BUF(2, const uint);
    uint *order = BUF(3, uint);
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < items; i++)
        grid_scatter_item((uint)i, cell, rank, start, order);
}

static void k_grid_sort_cells(const fcl_arg *a, size_t items)
{
    const uint *start = BUF(0, const uint);
    uint *order = BUF(1, uint);
#pragma omp parallel for schedule(dynamic, 4096)
    for (size_t c = 0; c < items; c++)
        grid_sort_cell_item((uint)c, start, order);
}

static void k_grid_gather_f4(const fcl_arg *a, size_t items)
{
    const uint *order = BUF(0, const uint);
    const float4 *src = BUF(1, const float4);
    float4 *dst = BUF(2, float4);
#pragma omp parallel for schedule(static)
    for (size_t k = 0; k < items; k++)
        grid_gather_f4_item((uint)k, order, src, dst);
}

static void k_grid_gather_u32(const fcl_arg *a, size_t items)
{
    const uint *order = BUF(0, const uint), *src = BUF(1, const uint);
    uint *dst = BUF(2, uint);
#pragma omp parallel for schedule(static)
    for (size_t k = 0; k < items; k++)
        grid_gather_u32_item((uint)k, order, src, dst);
}

static void k_density(const fcl_arg *a, size_t items)
{
    const float4 *pos = BUF(0, const float4), *bpos = BUF(2, const float4);
    const uint *start = BUF(1, const uint), *bstart = BUF(3, const uint);
    float *rho = BUF(4, float), *prs = BUF(5, float);
    const fcl_grid_info g = VAL(6, fcl_grid_info);
    const fcl_sph_consts c = VAL(7, fcl_sph_consts);
#pragma omp parallel for schedule(dynamic, 1024)
    for (size_t i = 0; i < items; i++)
        density_item((uint)i, pos, start, bpos, bstart, rho, prs, &g, &c);
}

static void k_forces(const fcl_arg *a, size_t items)
{
    const float4 *pos = BUF(0, const float4), *vev = BUF(1, const float4);
    const float *rho = BUF(2, const float), *prs = BUF(3, const float);
    const uint *start = BUF(4, const uint), *bstart = BUF(6, const uint);
    const float4 *bpos = BUF(5, const float4);
    const float4 *normals = BUF(7, const float4);
    float4 *acc = BUF(8, float4);
    const fcl_grid_info g = VAL(9, fcl_grid_info);
    const fcl_sph_consts c = VAL(10, fcl_sph_consts);
#pragma omp parallel for schedule(dynamic, 1024)
    for (size_t i = 0; i < items; i++)
        forces_item((uint)i, pos, vev, rho, prs, start, bpos, bstart, normals, acc, &g, &c);
}

static void k_forces_normals(const fcl_arg *a, size_t items)
{
    const float4 *pos = BUF(0, const float4);
    const float *rho = BUF(1, const float);
    const uint *start = BUF(2, const uint);
    float4 *normals = BUF(3, float4);
    const fcl_grid_info g = VAL(4, fcl_grid_info);
    const fcl_sph_consts c = VAL(5, fcl_sph_consts);
#pragma omp parallel for schedule(dynamic, 1024)
    for (size_t i = 0; i < items; i++)
        forces_normals_item((uint)i, pos, rho, start, normals, &g, &c);
}

static void k_integrate(const fcl_arg *a, size_t items)
{
    float4 *pos = BUF(0, float4), *vel = BUF(1, float4), *vev = BUF(2, float4);
    const float4 *acc = BUF(3, const float4);
    const fcl_solid *solids = BUF(4, const fcl_solid);
    const fcl_sph_consts c = VAL(5, fcl_sph_consts);
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < items; i++)
        integrate_item((uint)i, pos, vel, vev, acc, solids, &c);
}

static void k_stats_chunks(const fcl_arg *a, size_t items)
{
    const float4 *pos = BUF(0, const float4), *vel = BUF(1, const float4);
    const float *rho = BUF(2, const float);
    fcl_stats_partial *out = BUF(3, fcl_stats_partial);
    const fcl_sph_consts c = VAL(4, fcl_sph_consts);
#pragma omp parallel for schedule(static)
    for (size_t g = 0; g < items; g++)
        stats_chunk_item((uint)g, pos, vel, rho, out, &c);
}

static void k_dfsph_sum_chunks(const fcl_arg *a, size_t items)
{
    const float *x = BUF(0, const float);
    float *out = BUF(1, float);
    const uint n = VAL(2, uint);
#pragma omp parallel for schedule(static)
    for (size_t g = 0; g < items; g++)
        dfsph_sum_chunk_item((uint)g, x, out, n);
}

static void k_boundary_volume(const fcl_arg *a, size_t items)
{
    const float4 *bpos = BUF(0, const float4);
    const uint *bstart = BUF(1, const uint);
    float *vol = BUF(2, float);
    const fcl_grid_info g = VAL(3, fcl_grid_info);
    const fcl_sph_consts c = VAL(4, fcl_sph_consts);
    const uint kind = VAL(5, uint);
    const float cubic_k = VAL(6, float), gamma = VAL(7, float);
#pragma omp parallel for schedule(dynamic, 1024)
    for (size_t b = 0; b < items; b++)
        boundary_volume_item((uint)b, bpos, bstart, vol, &g, &c, kind, cubic_k, gamma);
}

static void k_boundary_pack(const fcl_arg *a, size_t items)
{
    float4 *bpos = BUF(0, float4);
    const float *vol = BUF(1, const float);
#pragma omp parallel for schedule(static)
    for (size_t b = 0; b < items; b++)
        boundary_pack_item((uint)b, bpos, vol);
}

static void k_view_pack(const fcl_arg *a, size_t items)
{
    const float4 *pos = BUF(0, const float4), *vev = BUF(1, const float4);
    const float *rho = BUF(2, const float), *prs = BUF(3, const float), *phase = BUF(5, const float);
    const uint *id = BUF(4, const uint), *start = BUF(6, const uint);
    float4 *out = BUF(7, float4);
    const fcl_grid_info g = VAL(8, fcl_grid_info);
    const fcl_sph_consts c = VAL(9, fcl_sph_consts);
    const uint field = VAL(10, uint), normals = VAL(11, uint);
#pragma omp parallel for schedule(dynamic, 1024)
    for (size_t i = 0; i < items; i++)
        view_pack_item((uint)i, pos, vev, rho, prs, id, phase, start, out, &g, &c, field, normals);
}

static void k_surface_flag(const fcl_arg *a, size_t items)
{
    const float4 *pos = BUF(0, const float4);
    const float *rho = BUF(1, const float);
    const uint *start = BUF(2, const uint);
    float *flag = BUF(3, float);
    const fcl_grid_info g = VAL(4, fcl_grid_info);
    const fcl_sph_consts c = VAL(5, fcl_sph_consts);
#pragma omp parallel for schedule(dynamic, 1024)
    for (size_t i = 0; i < items; i++)
        surface_flag_item((uint)i, pos, rho, start, flag, &g, &c);
}

static void k_interact_force(const fcl_arg *a, size_t items)
{
    const float4 *pos = BUF(0, const float4);
    float4 *vel = BUF(1, float4), *vev = BUF(2, float4);
    const float4 origin = VAL(3, float4), dir = VAL(4, float4), dv = VAL(5, float4);
    const float radius = VAL(6, float);
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < items; i++)
        interact_force_item((uint)i, pos, vel, vev, origin, dir, dv, radius);
}

static void k_mc_volume(const fcl_arg *a, size_t items)
{
    const float4 *pos = BUF(0, const float4);
    const uint *start = BUF(1, const uint);
    float *vol = BUF(2, float);
    const fcl_grid_info g = VAL(3, fcl_grid_info);
    const fcl_mc_info m = VAL(4, fcl_mc_info);
#pragma omp parallel for schedule(dynamic, 1024)
    for (size_t i = 0; i < items; i++)
        mc_volume_item((uint)i, pos, start, vol, &g, &m);
}

static void k_mc_block_flag(const fcl_arg *a, size_t items)
{
    const uint *start = BUF(0, const uint);
    uint *flag = BUF(1, uint);
    const fcl_grid_info g = VAL(2, fcl_grid_info);
#pragma omp parallel for schedule(static)
    for (size_t c = 0; c < items; c++)
        mc_block_flag_item((uint)c, start, flag, &g);
}

static void k_mc_block_list(const fcl_arg *a, size_t items)
{
    const uint *off = BUF(0, const uint);
    uint *list = BUF(1, uint), *slot = BUF(2, uint);
#pragma omp parallel for schedule(static)
    for (size_t c = 0; c < items; c++)
        mc_block_list_item((uint)c, off, list, slot);
}

static void k_mc_field(const fcl_arg *a, size_t items)
{
    const float4 *pos = BUF(0, const float4), *vel = BUF(1, const float4);
    const float *vol = BUF(2, const float);
    const uint *start = BUF(3, const uint), *list = BUF(4, const uint);
    float *phi = BUF(5, float);
    const fcl_grid_info g = VAL(6, fcl_grid_info);
    const fcl_mc_info m = VAL(7, fcl_mc_info);
#pragma omp parallel for schedule(dynamic, 1024)
    for (size_t t = 0; t < items; t++)
        mc_field_item((uint)t, pos, vel, vol, start, list, phi, &g, &m);
}

static void k_mc_classify(const fcl_arg *a, size_t items)
{
    const float *phi = BUF(0, const float);
    const uint *list = BUF(1, const uint);
    uint *ntri = BUF(2, uint), *nedge = BUF(3, uint), *act = BUF(4, uint);
    const int *tab = BUF(5, const int);
    const fcl_grid_info g = VAL(6, fcl_grid_info);
    const fcl_mc_info m = VAL(7, fcl_mc_info);
    const uint ncell = VAL(8, uint);
#pragma omp parallel for schedule(static)
    for (size_t t = 0; t < items; t++)
        mc_classify_item((uint)t, phi, list, ntri, nedge, act, tab, &g, &m, ncell);
}

static void k_mc_compact(const fcl_arg *a, size_t items)
{
    const uint *off = BUF(0, const uint);
    uint *cells = BUF(1, uint);
#pragma omp parallel for schedule(static)
    for (size_t t = 0; t < items; t++)
        mc_compact_item((uint)t, off, cells);
}

static void k_mc_vertices(const fcl_arg *a, size_t items)
{
    const float *phi = BUF(0, const float);
    const uint *list = BUF(1, const uint), *cells = BUF(2, const uint), *eoff = BUF(3, const uint);
    float4 *vert = BUF(4, float4), *nrm = BUF(5, float4);
    const fcl_grid_info g = VAL(6, fcl_grid_info);
    const fcl_mc_info m = VAL(7, fcl_mc_info);
#pragma omp parallel for schedule(static)
    for (size_t k = 0; k < items; k++)
        mc_vertices_item((uint)k, phi, list, cells, eoff, vert, nrm, &g, &m);
}

static void k_mc_triangles(const fcl_arg *a, size_t items)
{
    const float *phi = BUF(0, const float);
    const uint *list = BUF(1, const uint), *slot = BUF(2, const uint), *cells = BUF(3, const uint);
    const uint *toff = BUF(4, const uint), *eoff = BUF(5, const uint);
    uint *tri = BUF(6, uint);
    const int *tab = BUF(7, const int);
    const fcl_grid_info g = VAL(8, fcl_grid_info);
    const fcl_mc_info m = VAL(9, fcl_mc_info);
#pragma omp parallel for schedule(static)
    for (size_t k = 0; k < items; k++)
        mc_triangles_item((uint)k, phi, list, slot, cells, toff, eoff, tri, tab, &g, &m);
}

const struct fcl_kernel fcl_cpu_kernels[] = {
#undef PASS
#define PASS(name, sched, ARGS) { #name, k_##name },
#include "../kernels/passes.def"
#undef PASS
    { "grid_clear", k_grid_clear },
    { "grid_count", k_grid_count },
    { "grid_scatter", k_grid_scatter },
    { "grid_sort_cells", k_grid_sort_cells },
    { "grid_gather_f4", k_grid_gather_f4 },
    { "grid_gather_u32", k_grid_gather_u32 },
    { "density", k_density },
    { "forces", k_forces },
    { "forces_normals", k_forces_normals },
    { "surface_flag", k_surface_flag },
    { "integrate", k_integrate },
    { "stats_chunks", k_stats_chunks },
    { "dfsph_sum_chunks", k_dfsph_sum_chunks },
    { "boundary_volume", k_boundary_volume },
    { "boundary_pack", k_boundary_pack },
    { "view_pack", k_view_pack },
    { "interact_force", k_interact_force },
    { "mc_volume", k_mc_volume },
    { "mc_block_flag", k_mc_block_flag },
    { "mc_block_list", k_mc_block_list },
    { "mc_field", k_mc_field },
    { "mc_classify", k_mc_classify },
    { "mc_compact", k_mc_compact },
    { "mc_vertices", k_mc_vertices },
    { "mc_triangles", k_mc_triangles },
};
const size_t fcl_cpu_kernel_count = sizeof fcl_cpu_kernels / sizeof fcl_cpu_kernels[0];
