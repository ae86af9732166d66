/* dfsph.cl - Bender & Koschier 2015, divergence-free SPH, in densities
 * relative to rho0 (rhat = rho / rho0) with the cubic spline kernel.
 *
 * density_alpha:  rhat_i = sum_j V W_ij (V = m / rho0), and the factor
 *                 alpha_i = 1 / max(|sum_j V grad W_ij|^2 + sum_j |V grad W_ij|^2, 1e-6)
 * predict:        v*_i = v_i + dt g, plus XSPH smoothing eps sum_j V (v_j - v_i) W_ij
 * source:         density solver: rhat*_i = rhat_i + dt sum_j V (v*_i - v*_j) . grad W_ij,
 *                 k_i += (rhat*_i - 1) alpha_i; divergence solver: D_i = sum_j V
 *                 (v_i - v_j) . grad W_ij, k_i += D_i alpha_i; totals kept >= 0
 * pressure_vel:   v_i -= f sum_j V (k_i + k_j) grad W_ij, with f = 1/dt for the
 *                 density solver and 1 for the divergence solver (a Jacobi step)
 * Walls are mirror images of the neighbors, as in wcsph.cl (free slip).
 * Invariant: kernels read only sorted arrays; err[] receives each
 * particle's error for the host's average.
 */

FCL_INLINE float dfsph_w(float q, const fcl_dfsph_consts *d, GLOBAL const float *tab)
{
    return d->use_table ? w_table(tab, d->table_n, q) : w_cubic(q, d->k);
}

FCL_INLINE float dfsph_g(float q, const fcl_dfsph_consts *d, GLOBAL const float *tab)
{
    return d->use_table ? w_table(tab + d->table_n, d->table_n, q) : w_cubic_grad(q, d->l);
}

/* Neighbor j (or its image under mask m) relative to i: r_ij, q, and the
 * image's velocity. Returns 0 when out of range. */
FCL_INLINE int dfsph_pair(float4 pi, float4 pj0, uint m, float4 plane, float inv_h, float4 *r, float *q)
{
    float4 pj = mirror(pj0, m, plane);
    *r = fcl_f4(pi.x - pj.x, pi.y - pj.y, pi.z - pj.z, 0.0f);
    float r2 = r->x * r->x + r->y * r->y + r->z * r->z;
    *q = FCL_SQRT(r2) * inv_h;
    return *q < 1.0f;
}

FCL_INLINE void dfsph_density_alpha_item(uint i, GLOBAL const float4 *pos, GLOBAL const uint *start,
                                         GLOBAL float *rho, GLOBAL float *alpha, GLOBAL const float *tab,
                                         const fcl_grid_info *g, const fcl_sph_consts *c,
                                         const fcl_dfsph_consts *d)
{
    float4 pi = pos[i], plane, r;
    uint masks[8], lo[9], hi[9];
    uint nm = image_masks(near_walls(pi, c, &plane), masks);
    uint rows = grid_neighbor_rows(g, start, pi, lo, hi);
    float sum = 0.0f, gx = 0.0f, gy = 0.0f, gz = 0.0f, g2 = 0.0f, q;
    for (uint k = 0u; k < nm; k++)
        for (uint row = 0u; row < rows; row++)
            for (uint j = lo[row]; j < hi[row]; j++) {
                if (!dfsph_pair(pi, pos[j], masks[k], plane, d->inv_h, &r, &q))
                    continue;
                sum += d->volume * dfsph_w(q, d, tab);
                float s = d->volume * dfsph_g(q, d, tab);
                gx += s * r.x; gy += s * r.y; gz += s * r.z;
                g2 += s * s * (r.x * r.x + r.y * r.y + r.z * r.z);
            }
    float den = gx * gx + gy * gy + gz * gz + g2;
    rho[i] = sum * c->rest_density;
    alpha[i] = 1.0f / (den > 1e-6f ? den : 1e-6f);
}

FCL_INLINE void dfsph_predict_item(uint i, GLOBAL const float4 *pos, GLOBAL const float4 *vel,
                                   GLOBAL float4 *vpred, GLOBAL const uint *start, GLOBAL const float *tab,
                                   const fcl_grid_info *g, const fcl_sph_consts *c, const fcl_dfsph_consts *d)
{
    float4 pi = pos[i], vi = vel[i], plane, r;
    uint masks[8], lo[9], hi[9];
    uint nm = image_masks(near_walls(pi, c, &plane), masks);
    uint rows = grid_neighbor_rows(g, start, pi, lo, hi);
    float sx = 0.0f, sy = 0.0f, sz = 0.0f, q;
    for (uint k = 0u; d->xsph > 0.0f && k < nm; k++)
        for (uint row = 0u; row < rows; row++)
            for (uint j = lo[row]; j < hi[row]; j++) {
                if (!dfsph_pair(pi, pos[j], masks[k], plane, d->inv_h, &r, &q))
                    continue;
                float4 vj = mirror_vel(vel[j], masks[k]);
                float w = d->volume * dfsph_w(q, d, tab);
                sx += w * (vj.x - vi.x); sy += w * (vj.y - vi.y); sz += w * (vj.z - vi.z);
            }
    float dt = d->dt, e = d->xsph;
    vpred[i] = fcl_f4(vi.x + e * sx + dt * c->gravity.x, vi.y + e * sy + dt * c->gravity.y,
                      vi.z + e * sz + dt * c->gravity.z, 0.0f);
}

/* The velocity divergence sum_j V (v_i - v_j) . grad W_ij over neighbors
 * and images; shared by the density and divergence solvers. */
FCL_INLINE float dfsph_div(uint i, GLOBAL const float4 *pos, GLOBAL const float4 *v, GLOBAL const uint *start,
                           GLOBAL const float *tab, const fcl_grid_info *g, const fcl_sph_consts *c,
                           const fcl_dfsph_consts *d)
{
    float4 pi = pos[i], vi = v[i], plane, r;
    uint masks[8], lo[9], hi[9];
    uint nm = image_masks(near_walls(pi, c, &plane), masks);
    uint rows = grid_neighbor_rows(g, start, pi, lo, hi);
    float div = 0.0f, q;
    for (uint k = 0u; k < nm; k++)
        for (uint row = 0u; row < rows; row++)
            for (uint j = lo[row]; j < hi[row]; j++) {
                if (!dfsph_pair(pi, pos[j], masks[k], plane, d->inv_h, &r, &q))
                    continue;
                float4 vj = mirror_vel(v[j], masks[k]);
                float s = d->volume * dfsph_g(q, d, tab);
                div += s * ((vi.x - vj.x) * r.x + (vi.y - vj.y) * r.y + (vi.z - vj.z) * r.z);
            }
    return div;
}

/* One Jacobi step of either solver for particle i. The error it drives to
 * zero is e = rhat*_i - 1 (mode 0, density) or e = D_i (mode 1,
 * divergence). ksum is the particle's total pressure value, carried from
 * step to step as the warm start; it moves by e alpha_i but never below
 * zero (no tension at the free surface: a projected Jacobi step), and kap
 * gets the change actually made, which pressure_vel applies. err gets
 * max(e, 0): compression is what the solvers must remove. */
FCL_INLINE void dfsph_source_item(uint i, GLOBAL const float4 *pos, GLOBAL const float4 *v,
                                  GLOBAL const float *rho, GLOBAL const float *alpha, GLOBAL const uint *start,
                                  GLOBAL float *kap, GLOBAL float *ksum, GLOBAL float *err, GLOBAL const float *tab,
                                  const fcl_grid_info *g, const fcl_sph_consts *c, const fcl_dfsph_consts *d,
                                  uint mode)
{
    float div = dfsph_div(i, pos, v, start, tab, g, c, d);
    float e = mode == 0u ? rho[i] / c->rest_density + d->dt * div - 1.0f : div;
    /* Relaxed by 0.5: with the full step the signed Jacobi iteration
     * diverged on a resting column. */
    float old = ksum[i], now = old + 0.5f * e * alpha[i];
    now = now > 0.0f ? now : 0.0f;
    kap[i] = now - old;
    ksum[i] = now;
    err[i] = e > 0.0f ? e : 0.0f;
}

FCL_INLINE void dfsph_pressure_vel_item(uint i, GLOBAL const float4 *pos, GLOBAL float4 *v,
                                        GLOBAL const float *kap, GLOBAL const uint *start, GLOBAL const float *tab,
                                        const fcl_grid_info *g, const fcl_sph_consts *c,
                                        const fcl_dfsph_consts *d, float f)
{
    float4 pi = pos[i], plane, r;
    uint masks[8], lo[9], hi[9];
    uint nm = image_masks(near_walls(pi, c, &plane), masks);
    uint rows = grid_neighbor_rows(g, start, pi, lo, hi);
    float ki = kap[i], ax = 0.0f, ay = 0.0f, az = 0.0f, q;
    for (uint k = 0u; k < nm; k++)
        for (uint row = 0u; row < rows; row++)
            for (uint j = lo[row]; j < hi[row]; j++) {
                if (!dfsph_pair(pi, pos[j], masks[k], plane, d->inv_h, &r, &q))
                    continue;
                float s = d->volume * (ki + kap[j]) * dfsph_g(q, d, tab);
                ax += s * r.x; ay += s * r.y; az += s * r.z;
            }
    float4 vi = v[i];
    v[i] = fcl_f4(vi.x - f * ax, vi.y - f * ay, vi.z - f * az, 0.0f);
}

/* x += dt v*, v = v*, then the walls (as in wcsph.cl). */
FCL_INLINE void dfsph_advect_item(uint i, GLOBAL float4 *pos, GLOBAL const float4 *vpred, GLOBAL float4 *vel,
                                  const fcl_sph_consts *c, const fcl_dfsph_consts *d)
{
    float4 p = pos[i], n = vpred[i];
    float rad = c->radius, rest = c->restitution;
    float4 lo = fcl_f4(c->domain_min.x + rad, c->domain_min.y + rad, c->domain_min.z + rad, 0.0f);
    float4 hi = fcl_f4(c->domain_max.x - rad, c->domain_max.y - rad, c->domain_max.z - rad, 0.0f);
    p = fcl_f4(p.x + n.x * d->dt, p.y + n.y * d->dt, p.z + n.z * d->dt, p.w);
    n = fcl_f4(wall_vel(p.x, n.x, lo.x, hi.x, rest), wall_vel(p.y, n.y, lo.y, hi.y, rest),
               wall_vel(p.z, n.z, lo.z, hi.z, rest), 0.0f);
    pos[i] = fcl_f4(wall_pos(p.x, lo.x, hi.x), wall_pos(p.y, lo.y, hi.y), wall_pos(p.z, lo.z, hi.z), p.w);
    vel[i] = n;
}

FCL_INLINE void dfsph_scale_item(uint i, GLOBAL float *a, float s)
{
    a[i] *= s;
}

/* One partial sum per group of FCL_WG values (CPU devices); dfsph_sum_tree
 * is the GPU variant. */
FCL_INLINE void dfsph_sum_chunk_item(uint gi, GLOBAL const float *x, GLOBAL float *out, uint n)
{
    float s = 0.0f;
    uint end = (gi + 1u) * FCL_WG < n ? (gi + 1u) * FCL_WG : n;
    for (uint i = gi * FCL_WG; i < end; i++)
        s += x[i];
    out[gi] = s;
}

#ifdef FCL_DEVICE
__kernel void dfsph_density_alpha(__global const float4 *pos, __global const uint *start, __global float *rho,
                                  __global float *alpha, __global const float *tab, fcl_grid_info g,
                                  fcl_sph_consts c, fcl_dfsph_consts d)
{
    uint i = get_global_id(0);
    if (i < c.n)
        dfsph_density_alpha_item(i, pos, start, rho, alpha, tab, &g, &c, &d);
}

__kernel void dfsph_predict(__global const float4 *pos, __global const float4 *vel, __global float4 *vpred,
                            __global const uint *start, __global const float *tab, fcl_grid_info g,
                            fcl_sph_consts c, fcl_dfsph_consts d)
{
    uint i = get_global_id(0);
    if (i < c.n)
        dfsph_predict_item(i, pos, vel, vpred, start, tab, &g, &c, &d);
}

__kernel void dfsph_source(__global const float4 *pos, __global const float4 *v, __global const float *rho,
                           __global const float *alpha, __global const uint *start, __global float *kap,
                           __global float *ksum, __global float *err, __global const float *tab,
                           fcl_grid_info g, fcl_sph_consts c, fcl_dfsph_consts d, uint mode)
{
    uint i = get_global_id(0);
    if (i < c.n)
        dfsph_source_item(i, pos, v, rho, alpha, start, kap, ksum, err, tab, &g, &c, &d, mode);
}

__kernel void dfsph_pressure_vel(__global const float4 *pos, __global float4 *v, __global const float *kap,
                                 __global const uint *start, __global const float *tab, fcl_grid_info g,
                                 fcl_sph_consts c, fcl_dfsph_consts d, float f)
{
    uint i = get_global_id(0);
    if (i < c.n)
        dfsph_pressure_vel_item(i, pos, v, kap, start, tab, &g, &c, &d, f);
}

__kernel void dfsph_advect(__global float4 *pos, __global const float4 *vpred, __global float4 *vel,
                           fcl_sph_consts c, fcl_dfsph_consts d)
{
    uint i = get_global_id(0);
    if (i < c.n)
        dfsph_advect_item(i, pos, vpred, vel, &c, &d);
}

__kernel void dfsph_scale(__global float *a, float s, uint n)
{
    uint i = get_global_id(0);
    if (i < n)
        dfsph_scale_item(i, a, s);
}

__kernel void dfsph_sum_chunks(__global const float *x, __global float *out, uint n)
{
    uint gi = get_global_id(0);
    if (gi * FCL_WG < n)
        dfsph_sum_chunk_item(gi, x, out, n);
}

__kernel __attribute__((reqd_work_group_size(FCL_WG, 1, 1)))
void dfsph_sum_tree(__global const float *x, __global float *out, uint n)
{
    __local float t[FCL_WG];
    uint i = get_global_id(0), l = get_local_id(0);
    t[l] = i < n ? x[i] : 0.0f;
    for (uint s = FCL_WG / 2u; s > 0u; s >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (l < s)
            t[l] += t[l + s];
    }
    if (l == 0u)
        out[get_group_id(0)] = t[0];
}
#endif
