/* boundary.cl - static boundary particles (Akinci et al. 2012).
 *
 * Walls and obstacles are sampled into one layer of particles (host
 * boundary.c), sorted once into their own cell starts `bstart` on the
 * fluid grid's layout. Each boundary particle b carries a volume
 * V_b = gamma / sum_k W_bk over its boundary neighbors k (itself included)
 * in bpos[b].w: densely sampled regions get small volumes, so the fluid
 * sees the same wall whatever the sampling. gamma (host
 * smoothing_wall_gamma) calibrates one layer against a flat wall. The fluid adds rho0 V_b W_ib to
 * its density and feels pressure from b as if p_b = p_i.
 * Invariant: V_b is computed with the density kernel of the solver that
 * reads it (kind 0: poly6, kind 1: cubic spline), once per simulation.
 */

/* W of the solver's density kernel at squared distance r2. */
FCL_INLINE float boundary_w(float r2, const fcl_sph_consts *c, uint kind, float cubic_k)
{
    if (kind == 0u)
        return w_poly6(r2, c->h2, c->poly6);
    return r2 < c->h2 ? w_cubic(FCL_SQRT(r2) / c->h, cubic_k) : 0.0f;
}

FCL_INLINE void boundary_volume_item(uint b, GLOBAL const float4 *bpos, GLOBAL const uint *bstart,
                                     GLOBAL float *vol, const fcl_grid_info *g, const fcl_sph_consts *c,
                                     uint kind, float cubic_k, float gamma)
{
    float4 pb = bpos[b];
    uint lo[9], hi[9];
    uint rows = grid_neighbor_rows(g, bstart, pb, lo, hi);
    float sum = 0.0f;
    for (uint r = 0u; r < rows; r++)
        for (uint k = lo[r]; k < hi[r]; k++) {
            float4 q = bpos[k];
            float dx = pb.x - q.x, dy = pb.y - q.y, dz = pb.z - q.z;
            sum += boundary_w(dx * dx + dy * dy + dz * dz, c, kind, cubic_k);
        }
    /* sum includes W(0) > 0, so it is never zero. */
    vol[b] = gamma / sum;
}

/* Separate from boundary_volume so that no work-item writes a float4
 * another one is reading. */
FCL_INLINE void boundary_pack_item(uint b, GLOBAL float4 *bpos, GLOBAL const float *vol)
{
    bpos[b].w = vol[b];
}

#ifdef FCL_DEVICE
__kernel void boundary_volume(__global const float4 *bpos, __global const uint *bstart, __global float *vol,
                              fcl_grid_info g, fcl_sph_consts c, uint kind, float cubic_k, float gamma)
{
    uint b = get_global_id(0);
    if (b < g.n)
        boundary_volume_item(b, bpos, bstart, vol, &g, &c, kind, cubic_k, gamma);
}

__kernel void boundary_pack(__global float4 *bpos, __global const float *vol, uint n)
{
    uint b = get_global_id(0);
    if (b < n)
        boundary_pack_item(b, bpos, vol);
}
#endif
