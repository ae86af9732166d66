/* grid.cl - the counting-sort neighbor grid (Hoetzlein's counting sort,
 * Mueller's "copies of particles in the cells").
 *
 * One rebuild is: clear counts -> count (cell id and atomic rank per
 * particle) -> exclusive scan of counts into cell starts -> scatter particle
 * indices to their slots -> sort each cell's slots by particle id (by
 * previous index for a grid without ids; this makes the order
 * deterministic whatever order the atomics ran in) -> gather every
 * particle attribute into the new order.
 * Invariants: after a rebuild, particles of cell c occupy sorted indices
 * start[c] .. start[c+1]-1 in increasing id (previous index without
 * ids); start has ncells+1 entries and start[ncells] = n. Positions
 * outside the domain are clamped into border cells, so no index is ever
 * out of range.
 * Also here: grid_emit_room, the emitters' test for a particle too close
 * to a new point, and the struct-size probe fcl_type_sizes.
 * The *_item functions are shared with the CPU backend; the __kernel
 * wrappers and the work-group scan are OpenCL only.
 */

/* Integer cell coordinate along one axis; NaN and -inf go to 0, +inf and
 * anything past the end to the last cell. */
FCL_INLINE uint grid_axis(float p, float origin, float inv, uint cells)
{
    float f = (p - origin) * inv;
    f = f >= 0.0f ? f : 0.0f;
    return f < (float)cells ? (uint)f : cells - 1u;
}

FCL_INLINE uint grid_cell_of(float4 p, const fcl_grid_info *g)
{
    uint ix = grid_axis(p.x, g->origin.x, g->inv_cell_size, g->nx);
    uint iy = grid_axis(p.y, g->origin.y, g->inv_cell_size, g->ny);
    uint iz = grid_axis(p.z, g->origin.z, g->inv_cell_size, g->nz);
    return ix + g->nx * (iy + g->ny * iz);
}

/* The neighborhood of p as at most 9 contiguous ranges [lo, hi) of sorted
 * particle indices: for each (y, z) row the cells x-1..x+1 are adjacent in
 * cell order, so their particles are adjacent in memory. */
FCL_INLINE uint grid_neighbor_rows(const fcl_grid_info *g, GLOBAL const uint *start,
                                   float4 p, uint *lo, uint *hi)
{
    uint ix = grid_axis(p.x, g->origin.x, g->inv_cell_size, g->nx);
    uint iy = grid_axis(p.y, g->origin.y, g->inv_cell_size, g->ny);
    uint iz = grid_axis(p.z, g->origin.z, g->inv_cell_size, g->nz);
    uint x0 = ix > 0u ? ix - 1u : 0u, x1 = ix + 1u < g->nx ? ix + 1u : ix;
    uint y0 = iy > 0u ? iy - 1u : 0u, y1 = iy + 1u < g->ny ? iy + 1u : iy;
    uint z0 = iz > 0u ? iz - 1u : 0u, z1 = iz + 1u < g->nz ? iz + 1u : iz;
    uint rows = 0u;
    for (uint z = z0; z <= z1; z++) {
        for (uint y = y0; y <= y1; y++) {
            uint row = g->nx * (y + g->ny * z);
            lo[rows] = start[row + x0];
            hi[rows] = start[row + x1 + 1u];
            rows++;
        }
    }
    return rows;
}

FCL_INLINE void grid_clear_item(uint c, GLOBAL uint *count)
{
    count[c] = 0u;
}

#if defined(FCL_AVX512) && defined(__AVX512CD__)
#define FCL_GRID_COUNT16 1
/* grid_count_item for particles i0 .. i0 + 15 (the native backend on an
 * AVX-512 host): their cells as grid_cell_of computes them, and one
 * atomic add per distinct cell among the 16 (particles arrive nearly in
 * cell order, so a run of them shares a counter, and a chain of atomics
 * on one address was the pass's cost). Each cell's ranks are still a
 * permutation of 0 .. count - 1; their order is grid_sort_cells' to fix. */
static void grid_count16(uint i0, const float4 *pos, uint *cell, uint *rank, uint *count, const fcl_grid_info *g)
{
    uint n = g->n - i0 < 16u ? g->n - i0 : 16u;
    __mmask16 live = fcl_live16(n);
    __m512 zero = _mm512_setzero_ps(), p[3];
    fcl_xyz16(pos, i0, live, &p[0], &p[1], &p[2]);
    float o[3] = { g->origin.x, g->origin.y, g->origin.z };
    uint dim[3] = { g->nx, g->ny, g->nz };
    __m512i ax[3];
    for (int a = 0; a < 3; a++) {   /* grid_axis: NaN and -inf to 0, past the end to the last */
        __m512 f = _mm512_mul_ps(_mm512_sub_ps(p[a], _mm512_set1_ps(o[a])), _mm512_set1_ps(g->inv_cell_size));
        f = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(f, zero, _CMP_GE_OQ), zero, f);
        __mmask16 in = _mm512_cmp_ps_mask(f, _mm512_set1_ps((float)dim[a]), _CMP_LT_OQ);
        ax[a] = _mm512_mask_blend_epi32(in, _mm512_set1_epi32((int)(dim[a] - 1u)), _mm512_cvttps_epu32(f));
    }
    __m512i c = _mm512_add_epi32(ax[0], _mm512_mullo_epi32(_mm512_set1_epi32((int)g->nx),
                                                           _mm512_add_epi32(ax[1], _mm512_mullo_epi32(
                                                                                       _mm512_set1_epi32((int)g->ny),
                                                                                       ax[2]))));
    uint cs[16], cf[16], mult[16], base[16];
    fcl_runs16(c, live, n, cs, cf, mult);
    for (uint k = 0u; k < n; k++)
        if (!cf[k])
            base[k] = __atomic_fetch_add(&count[cs[k]], mult[k], __ATOMIC_RELAXED);
    for (uint k = 0u; k < n; k++) {
        cell[i0 + k] = cs[k];
        rank[i0 + k] = cf[k] ? base[__builtin_ctz(cf[k])] + (uint)__builtin_popcount(cf[k]) : base[k];
    }
}
#endif

FCL_INLINE void grid_count_one(uint i, GLOBAL const float4 *pos, GLOBAL uint *cell, GLOBAL uint *rank,
                               GLOBAL uint *count, const fcl_grid_info *g)
{
    uint c = grid_cell_of(pos[i], g);
    cell[i] = c;
    rank[i] = FCL_ATOMIC_INC(&count[c]);
}

/* A `lanes` pass (pass.h): on an AVX-512 host, particles i .. i + 15. */
FCL_INLINE void grid_count_item(uint i, GLOBAL const float4 *pos, GLOBAL uint *cell,
                                GLOBAL uint *rank, GLOBAL uint *count, const fcl_grid_info *g)
{
#ifdef FCL_AVX512
#ifdef FCL_GRID_COUNT16
    if (FCL_LANES_FIT(g->n)) {
        grid_count16(i, pos, cell, rank, count, g);
        return;
    }
#endif
    for (uint k = i; k < i + 16u && k < g->n; k++)
        grid_count_one(k, pos, cell, rank, count, g);
#else
    grid_count_one(i, pos, cell, rank, count, g);
#endif
}

FCL_INLINE void grid_scatter_item(uint i, GLOBAL const uint *cell, GLOBAL const uint *rank,
                                  GLOBAL const uint *start, GLOBAL uint *order)
{
    order[start[cell[i]] + rank[i]] = i;
}

/* Shell sort of one cell's slots with Tokuda's gaps ceil(0.8 (2.25^k - 1)).
 * Typical cells hold a handful of particles (two short passes); a scene
 * with every particle in one cell still finishes in O(n^1.25).
 * The slots are ordered by key[old index] (the particle ids) when
 * use_key is 1, else by the old index: with ids the order a build makes
 * depends on the positions and ids alone, not on the order before it, so
 * a restart that rebuilds the grid from saved positions orders the
 * particles as the uninterrupted run does at its next build. */
FCL_INLINE uint grid_sort_key(uint v, GLOBAL const uint *key, uint use_key)
{
    return use_key ? key[v] : v;
}

FCL_INLINE void grid_sort_cells_item(uint c, GLOBAL const uint *start, GLOBAL uint *order, GLOBAL const uint *key,
                                     uint use_key)
{
    uint b = start[c], n = start[c + 1u] - b;
    if (n < 2u)
        return;
    if (n <= 16u) {
        /* Insertion sort alone: typical cells, whose slots mostly come in
         * order already (the keys are distinct, so any sort gives this). */
        for (uint a = 1u; a < n; a++) {
            uint v = order[b + a], kv = grid_sort_key(v, key, use_key), j = a;
            for (; j >= 1u && grid_sort_key(order[b + j - 1u], key, use_key) > kv; j--)
                order[b + j] = order[b + j - 1u];
            order[b + j] = v;
        }
        return;
    }
    int k = 1;
    float p = 2.25f;
    while (ceil(0.8f * (p * 2.25f - 1.0f)) < (float)n) {
        p *= 2.25f;
        k++;
    }
    for (; k >= 1; k--) {
        /* The last gap is 1 exactly, whatever float rounding did to p. */
        uint gap = k == 1 ? 1u : (uint)ceil(0.8f * (p - 1.0f));
        p /= 2.25f;
        for (uint a = gap; a < n; a++) {
            uint v = order[b + a], kv = grid_sort_key(v, key, use_key), j = a;
            for (; j >= gap && grid_sort_key(order[b + j - gap], key, use_key) > kv; j -= gap)
                order[b + j] = order[b + j - gap];
            order[b + j] = v;
        }
    }
}

/* Arrays from this many particles (4 MiB of float4, this machine's L2 per
 * core) are gathered with streaming stores: they bypass the caches the
 * next pass would miss anyway, and save reading the destination first
 * (1M particles: the reorder 6.1 -> 4.7 ms); smaller ones, which the
 * next pass finds in cache, are stored as usual. */
#define GRID_STREAM_MIN 262144u

/* A `lanes` pass (pass.h): on an AVX-512 host, slots k .. k + 15 of n, four
 * float4 to a store. The streaming stores need no fence: the OpenMP
 * region's closing barrier (locked instructions) drains them before any
 * later pass reads. */
FCL_INLINE void grid_gather_f4_item(uint k, GLOBAL const uint *order, GLOBAL const float4 *src,
                                    GLOBAL float4 *dst, uint n)
{
#ifdef FCL_AVX512
    if (k + 16u <= n) {
        const __m128 *s = (const __m128 *)src;
        for (uint q = 0u; q < 16u; q += 4u) {
            __m512 v = _mm512_castps128_ps512(s[order[k + q]]);
            v = _mm512_insertf32x4(v, s[order[k + q + 1u]], 1);
            v = _mm512_insertf32x4(v, s[order[k + q + 2u]], 2);
            v = _mm512_insertf32x4(v, s[order[k + q + 3u]], 3);
            if (n >= GRID_STREAM_MIN)
                _mm512_stream_ps((float *)(dst + k + q), v);
            else
                _mm512_store_ps((float *)(dst + k + q), v);
        }
        return;
    }
    for (uint q = k; q < n; q++)
        dst[q] = src[order[q]];
#else
    (void)n;
    dst[k] = src[order[k]];
#endif
}

FCL_INLINE void grid_gather_u32_item(uint k, GLOBAL const uint *order, GLOBAL const uint *src,
                                     GLOBAL uint *dst)
{
    dst[k] = src[order[k]];
}

/* 1 where an emitter's new point q[k] has a particle closer than sqrt(r2)
 * (host/core/emit.c: an inflow backed up by the fluid it fed; a particle
 * placed there would sit on another and blow the pressure up), unless
 * busy[k] holds a flag already (boundary_emit_clear's, which runs first).
 * Walks the cells around q of the last grid build: a particle moves less
 * than a cell in a step. */
FCL_INLINE void grid_emit_room_item(uint k, GLOBAL const float4 *q, GLOBAL const float4 *pos,
                                    GLOBAL const uint *start, GLOBAL float *busy, const fcl_grid_info *g, float r2)
{
    float4 x = q[k];
    uint lo[9], hi[9];
    uint rows = grid_neighbor_rows(g, start, x, lo, hi);
    float b = 0.0f;
    for (uint r = 0u; r < rows; r++)
        for (uint j = lo[r]; j < hi[r]; j++) {
            float4 p = pos[j];
            float dx = p.x - x.x, dy = p.y - x.y, dz = p.z - x.z;
            b = dx * dx + dy * dy + dz * dz < r2 ? 1.0f : b;
        }
    busy[k] = busy[k] > 0.0f ? busy[k] : b;
}

#ifdef FCL_DEVICE
/* Work-efficient (Blelloch) exclusive scan of one block of 2*FCL_WG
 * elements in local memory, in place; the block's total goes to sums[group].
 * The host scans sums recursively and adds them back with scan_add, so any
 * length works. */
__kernel __attribute__((reqd_work_group_size(FCL_WG, 1, 1)))
void scan_block(__global uint *data, __global uint *sums, uint n)
{
    __local uint t[2 * FCL_WG];
    uint lid = get_local_id(0), base = get_group_id(0) * 2u * FCL_WG;
    t[lid] = base + lid < n ? data[base + lid] : 0u;
    t[lid + FCL_WG] = base + lid + FCL_WG < n ? data[base + lid + FCL_WG] : 0u;
    uint off = 1u;
    for (uint d = FCL_WG; d > 0u; d >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < d)
            t[off * (2u * lid + 2u) - 1u] += t[off * (2u * lid + 1u) - 1u];
        off <<= 1;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0u) {
        sums[get_group_id(0)] = t[2u * FCL_WG - 1u];
        t[2u * FCL_WG - 1u] = 0u;
    }
    for (uint d = 1u; d <= FCL_WG; d <<= 1) {
        off >>= 1;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < d) {
            uint a = off * (2u * lid + 1u) - 1u, b = off * (2u * lid + 2u) - 1u;
            uint v = t[a];
            t[a] = t[b];
            t[b] += v;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (base + lid < n)
        data[base + lid] = t[lid];
    if (base + lid + FCL_WG < n)
        data[base + lid + FCL_WG] = t[lid + FCL_WG];
}

__kernel __attribute__((reqd_work_group_size(FCL_WG, 1, 1)))
void scan_add(__global uint *data, __global const uint *sums, uint n)
{
    uint s = sums[get_group_id(0)];
    uint i = get_group_id(0) * 2u * FCL_WG + get_local_id(0);
    if (i < n)
        data[i] += s;
    if (i + FCL_WG < n)
        data[i + FCL_WG] += s;
}
#endif

#ifdef FCL_DEVICE
/* The scan for CPU devices: local-memory barriers cost a thread switch
 * there, so each work-item scans a contiguous chunk serially (cache
 * friendly) and writes its total to sums[k]; then scan_chunks_add has each
 * chunk add the totals of the chunks before it. The host picks the chunk
 * size so that there are at most FCL_WG chunks: two launches for any
 * length, no recursion. GPUs use scan_block above. One work-item per
 * work-group, so that the runtime spreads the chunks over its threads. */
__kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void scan_chunks(__global uint *data, __global uint *sums, uint n, uint chunk)
{
    uint k = get_global_id(0), b = k * chunk;
    if (b >= n)
        return;
    uint e = n - b > chunk ? b + chunk : n, s = 0u;
    for (uint i = b; i < e; i++) {
        uint v = data[i];
        data[i] = s;
        s += v;
    }
    sums[k] = s;
}

__kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void scan_chunks_add(__global uint *data, __global const uint *sums, uint n, uint chunk)
{
    uint k = get_global_id(0), b = k * chunk;
    if (b >= n || k == 0u)
        return;
    uint e = n - b > chunk ? b + chunk : n, s = 0u;
    for (uint m = 0u; m < k; m++)
        s += sums[m];
    for (uint i = b; i < e; i++)
        data[i] += s;
}

/* Sizes of the shared structs as the OpenCL compiler lays them out; the
 * tests compare them with the host's (host/core/fcl_types_check.c). */
__kernel void fcl_type_sizes(__global uint *out)
{
    out[0] = (uint)sizeof(fcl_grid_info);
    out[1] = (uint)sizeof(fcl_sph_consts);
    out[2] = (uint)sizeof(fcl_stats_partial);
    out[3] = (uint)sizeof(float4);
    out[4] = (uint)sizeof(fcl_dfsph_consts);
    out[5] = (uint)sizeof(fcl_solid);
    out[6] = (uint)sizeof(fcl_mc_info);
    out[7] = (uint)sizeof(fcl_nlist_info);
    out[8] = (uint)sizeof(fcl_pbf_consts);
    out[9] = (uint)sizeof(fcl_control_consts);
    out[10] = (uint)sizeof(fcl_mps_consts);
    out[11] = (uint)sizeof(fcl_phase);
    out[12] = (uint)sizeof(fcl_mac_info);
    out[13] = (uint)sizeof(fcl_mac_inflow);
}
#endif
