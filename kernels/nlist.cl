/* nlist.cl - per-step neighbor lists: each particle's neighbors within a
 * query radius, found once by a walk over the grid's cells and then read
 * by every pass (and every solver iteration) that needs them.
 *
 * Layout: fixed stride. Particle i's k-th entry sits at
 * idx[i * pstride + k * kstride]: pstride = cap, kstride = 1 keeps one
 * particle's entries together (CPU caches), pstride = 1, kstride = n puts
 * the k-th entries of neighboring work-items side by side (coalesced GPU
 * reads). count[i] is the true number found, which may exceed cap: the
 * first cap are stored, and the particle is reported through
 * over[report] (largest count) and over[report + 1] (smallest such
 * particle) so the host can stop with
 * a message instead of silently dropping neighbors.
 * An entry is j | m << NL_SHIFT: the candidate's sorted index and the
 * 3-bit mirror mask of the wall image it stands for (0: j itself).
 * Order: masks in image_masks order, then cells z, y, x ascending, then
 * sorted index: the order the cell walks of the passes used, so sums over
 * a list add in the same order on every backend.
 * Invariant: the lists describe the positions and the cell starts of the
 * build; a grid rebuild (which reorders particles) makes them stale.
 */

#define NL_SHIFT 29u
#define NL_INDEX 0x1fffffffu
/* Private buffer of the CPU build (nl_walk). */
#define NL_LOCAL 160u

/* Stored entries of particle i (count capped at the capacity). */
FCL_INLINE uint nl_len(GLOBAL const uint *count, uint i, const fcl_nlist_info *L)
{
    uint c = count[i];
    return c < L->cap ? c : L->cap;
}

/* for each stored neighbor of i: j its sorted index, m its mirror mask
 * (always 0 for boundary lists and particle walls), e its slot, for
 * per-pair values a pass keeps beside the list in the same layout. In
 * the spirit of SPlisHSPlasH's forall_fluid_neighbors. */
#define forall_neighbors_at(L, count, idx, i, j, m, e)                                                \
    for (uint nl_k_ = 0u, nl_n_ = nl_len(count, i, L), e = 0u, j = 0u, m = 0u;                      \
         nl_k_ < nl_n_ && (e = (i) * (L)->pstride + nl_k_ * (L)->kstride, j = (idx)[e] & NL_INDEX,    \
                           m = (idx)[e] >> NL_SHIFT, 1); nl_k_++)
#define forall_neighbors(L, count, idx, i, j, m) forall_neighbors_at(L, count, idx, i, j, m, nl_e_)
/* The same over a list between two sets (host nlist_one), which holds
 * no wall images: no mask. */
#define forall_cross_neighbors_at(L, count, idx, i, j, e)                                             \
    for (uint nl_k_ = 0u, nl_n_ = nl_len(count, i, L), e = 0u, j = 0u;                               \
         nl_k_ < nl_n_ && (e = (i) * (L)->pstride + nl_k_ * (L)->kstride, j = (idx)[e] & NL_INDEX, 1);  \
         nl_k_++)

/* The cells within `reach` of p's cell, as at most (2 reach + 1)^2 rows of
 * contiguous sorted indices; one row at a time, so no array bound. */
FCL_INLINE uint nl_row(const fcl_grid_info *g, GLOBAL const uint *start, uint ix, uint iy, uint iz,
                       uint reach, uint r, uint *lo, uint *hi)
{
    uint side = 2u * reach + 1u;
    int y = (int)iy + (int)(r % side) - (int)reach, z = (int)iz + (int)(r / side) - (int)reach;
    if (y < 0 || z < 0 || y >= (int)g->ny || z >= (int)g->nz)
        return 0u;
    uint x0 = ix > reach ? ix - reach : 0u, x1 = ix + reach < g->nx ? ix + reach : g->nx - 1u;
    uint row = g->nx * ((uint)y + g->ny * (uint)z);
    *lo = start[row + x0];
    *hi = start[row + x1 + 1u];
    return 1u;
}

/* The candidates of particle i (at pi) on layout g with wall-image masks;
 * each neighbor's entry goes to out[n * stride] while n < cap. Returns the
 * number found. `collect` (CPUs) gathers into a private buffer without a
 * branch on the distance test, which is unpredictable in a disordered
 * fluid; it returns ~0 when the buffer overflowed, for the direct walk. */
FCL_INLINE uint nl_walk(float4 pi, GLOBAL const float4 *restrict qpos, GLOBAL const uint *restrict qstart,
                        const fcl_grid_info *g, const fcl_nlist_info *L, const uint *masks, uint nm, float4 plane,
                        GLOBAL uint *restrict out, uint stride, uint cap, uint collect)
{
    uint buf[NL_LOCAL];
    uint ix = grid_axis(pi.x, g->origin.x, g->inv_cell_size, g->nx);
    uint iy = grid_axis(pi.y, g->origin.y, g->inv_cell_size, g->ny);
    uint iz = grid_axis(pi.z, g->origin.z, g->inv_cell_size, g->nz);
    uint side = 2u * L->reach + 1u, n = 0u;
    for (uint k = 0u; k < nm; k++)
        for (uint r = 0u; r < side * side; r++) {
            uint lo, hi;
            if (!nl_row(g, qstart, ix, iy, iz, L->reach, r, &lo, &hi))
                continue;
            /* restrict, the mask read once and 4 candidates a round: the
             * list build 0.460 -> 0.435 ms at 1M on an H100 (README). */
            uint mk = masks[k];
#ifdef __OPENCL_C_VERSION__
#pragma unroll 4
#endif
            for (uint j = lo; j < hi; j++) {
                float4 q = mirror(qpos[j], mk, plane);
                float dx = pi.x - q.x, dy = pi.y - q.y, dz = pi.z - q.z;
                uint in = dx * dx + dy * dy + dz * dz < L->r2, e = j | (mk << NL_SHIFT);
                if (collect) {
                    buf[n < NL_LOCAL - 1u ? n : NL_LOCAL - 1u] = e;
                } else if (in && n < cap) {
                    out[n * stride] = e;
                }
                n += in;
            }
        }
    if (!collect)
        return n;
    if (n > NL_LOCAL - 1u)
        return ~0u;
    for (uint k = 0u; k < n && k < cap; k++)
        out[k * stride] = buf[k];
    return n;
}

/* Particle i (at pos[i]) against the candidates qpos with cell starts
 * qstart on layout g: every candidate (and, for L->mirror, every wall
 * image of one) closer than the query radius. */
FCL_INLINE void nlist_build_item(uint i, GLOBAL const float4 *pos, GLOBAL const float4 *qpos,
                                 GLOBAL const uint *qstart, GLOBAL uint *count, GLOBAL uint *idx,
                                 GLOBAL uint *over, uint report, const fcl_grid_info *g, const fcl_nlist_info *L,
                                 const fcl_sph_consts *c)
{
    float4 pi = pos[i], plane = fcl_f4(0.0f, 0.0f, 0.0f, 0.0f);
    uint masks[8], nm = 1u;
    masks[0] = 0u;
    if (L->mirror)
        nm = image_masks(near_walls_within(pi, c, L->r, &plane), masks);
    GLOBAL uint *out = idx + i * L->pstride;
#if defined(FCL_DEVICE) && !defined(FCL_CPU_DEVICE)
    /* GPUs: the direct walk (a private buffer would cost registers). */
    uint n = nl_walk(pi, qpos, qstart, g, L, masks, nm, plane, out, L->kstride, L->cap, 0u);
#else
    /* CPUs: branch-free collection, 2x faster on a developed dam break
     * (README); the direct walk only for a particle over NL_LOCAL - 1. */
    uint n = nl_walk(pi, qpos, qstart, g, L, masks, nm, plane, out, L->kstride, L->cap, 1u);
    if (n == ~0u)
        n = nl_walk(pi, qpos, qstart, g, L, masks, nm, plane, out, L->kstride, L->cap, 0u);
#endif
    count[i] = n;
    if (n > L->cap) {
        FCL_ATOMIC_MAX(&over[report], n);
        FCL_ATOMIC_MIN(&over[report + 1u], i);
    }
}
