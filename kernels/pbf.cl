/* pbf.cl - Macklin & Mueller 2013, position-based fluids, in densities
 * relative to rho0 (rhat = rho / rho0 = sum_j V W_poly6 + sum_b V_b W_poly6,
 * V = m / rho0 from the poly6 lattice sum) with spiky gradients.
 *
 * predict:   v* = v + dt g, x_old = x, x* = x + dt v*, walls and solids
 * lambda:    C_i = rhat_i - 1 (max(C_i, 0) with pbf.clamp; below 0,
 *            times s = dt / pbf.dt_max, at most 1: tscale),
 *            lambda_i = -C_i / (|sum_j V grad W_ij + sum_b V_b grad W_ib|^2
 *                                + sum_j |V grad W_ij|^2 + eps)
 * delta:     dp_i = sum_j V (lambda_i + lambda_j + s_corr) grad W_ij
 *                   + sum_b V_b lambda_i grad W_ib,
 *            s_corr = -s k (W_poly6(r) / W_poly6(dq))^n (k in units of 1/D0).
 *            The free surface's attraction (C < 0) and s_corr never vanish
 *            at rest, so each is a fixed displacement per step, a speed
 *            1/dt: scaled by s they stay speeds as the CFL step shrinks
 *            (unscaled, an emitted layer ran away, 1,521 m/s at step 152).
 * apply:     x* += dp (Jacobi: every dp from the same x*), walls and solids
 * velocity:  v = (x* - x_old) / dt
 * vorticity: omega_i = sum_j V (v_j - v_i) x grad_j W_ij = curl v (the
 *            paper's eq. 15; grad_i W_ij, as written before, gave -curl v
 *            and the confinement took rotation out: a spun ball lost 5 %
 *            of its angular momentum in a step at pbf.vorticity 2)
 * confine:   eta = sum_j V (|omega_j| - |omega_i|) grad W_ij,
 *            v_i += dt eps_v (eta / |eta|) x omega_i
 * xsph:      v_i <- v_i + c sum_j V (v_j - v_i) W_poly6(r_ij)
 * grad W_ij = g r_ij with g < 0 (smoothing.h), so it points from i toward
 * j: a negative lambda (compression) pushes i away from j. The neighbor
 * passes read the step's lists (nlist.cl), built once after predict at
 * x*; later iterations move x* a little, and pairs are tested against h
 * again, but no pair enters that the lists did not hold (as in the paper).
 * Invariant: x_old, the velocities and x* are in the grid order of the
 * step's rebuild; dp is complete before apply reads it.
 */

#define PBF_FLUID(i, j, m, e) forall_neighbors_at(fl, fcount, fidx, i, j, m, e)
#define PBF_BOUNDARY(i, b, m, e) forall_neighbors_at(bl, bcount, bidx, i, b, m, e)

/* x_i - x_j for neighbor j seen through mirror mask m. */
FCL_INLINE float4 pbf_rij(float4 pi, float4 pj, uint m, fcl_images img)
{
    float4 q = mirror(pj, m, img);
    return fcl_f4(pi.x - q.x, pi.y - q.y, pi.z - q.z, 0.0f);
}

FCL_INLINE float pbf_r2(float4 r)
{
    return r.x * r.x + r.y * r.y + r.z * r.z;
}

/* The collision response of a predicted position p, moved by step from
 * where it was: the box walls as a clamp, then the obstacles (boundary.cl;
 * a polygon's slab reads the step's direction). Velocities come from
 * positions afterwards, so the one solids_project reflects is thrown away. */
FCL_INLINE float4 pbf_collide(float4 p, float4 step, GLOBAL const fcl_solid *solids, const fcl_sph_consts *c)
{
    float rad = c->radius;
    float4 v = step;
    p = fcl_f4(wall_pos(p.x, c->domain_min.x + rad, c->domain_max.x - rad),
               wall_pos(p.y, c->domain_min.y + rad, c->domain_max.y - rad),
               wall_pos(p.z, c->domain_min.z + rad, c->domain_max.z - rad), p.w);
    solids_project(&p, &v, 0, solids, c);
    return wall_keep(p, c->domain_min, c->domain_max, rad);
}

FCL_INLINE void pbf_predict_item(uint i, GLOBAL float4 *pos, GLOBAL const float4 *vel, GLOBAL float4 *xold,
                                 GLOBAL const fcl_solid *solids, const fcl_sph_consts *c, const fcl_pbf_consts *d)
{
    float4 p = pos[i], v = vel[i];
    float dt = d->dt;
    xold[i] = p;
    v = fcl_f4(v.x + dt * c->gravity.x, v.y + dt * c->gravity.y, v.z + dt * c->gravity.z, 0.0f);
    pos[i] = pbf_collide(fcl_f4(p.x + dt * v.x, p.y + dt * v.y, p.z + dt * v.z, p.w), v, solids, c);
}

/* The density constraint's multiplier; rho gets the density it measured
 * (the stats read the last one, taken after the final apply). Beside
 * each fluid list entry it keeps V times the spiky gradient factor (fg:
 * V grad W_ij = fg r_ij) and W_poly6 (fw), 0 out of range: the positions
 * do not move until apply, so delta, and after the final measurement
 * the velocity passes, read them instead of a square root and two
 * kernels per pair. */
FCL_INLINE void pbf_lambda_item(uint i, GLOBAL const float4 *pos, GLOBAL const float4 *bpos,
                                GLOBAL const uint *fcount, GLOBAL const uint *fidx, GLOBAL const uint *bcount,
                                GLOBAL const uint *bidx, const fcl_nlist_info *fl, const fcl_nlist_info *bl,
                                GLOBAL float *fg, GLOBAL float *fw, GLOBAL float *rho, GLOBAL float *lam,
                                const fcl_sph_consts *c, const fcl_pbf_consts *d)
{
    float4 pi = pos[i];
    fcl_images img;
    near_walls(pi, c, &img);
    float sum = 0.0f, gx = 0.0f, gy = 0.0f, gz = 0.0f, g2 = 0.0f;
    PBF_FLUID(i, j, m, e) {
        float4 r = pbf_rij(pi, pos[j], m, img);
        float r2 = pbf_r2(r);
        fg[e] = 0.0f;
        fw[e] = 0.0f;
        if (r2 >= c->h2)
            continue;
        float g = d->volume * w_spiky_grad(FCL_SQRT(r2), c->h, c->spiky_grad), w = w_poly6(r2, c->h2, c->poly6);
        fg[e] = g;
        fw[e] = w;
        sum += d->volume * w;
        gx += g * r.x; gy += g * r.y; gz += g * r.z;
        g2 += g * g * r2;
    }
    PBF_BOUNDARY(i, b, mb, e) {
        float4 pb = bpos[b], r = pbf_rij(pi, pb, mb, img);
        float r2 = pbf_r2(r);
        if (r2 >= c->h2)
            continue;
        float g = pb.w * w_spiky_grad(FCL_SQRT(r2), c->h, c->spiky_grad);
        sum += pb.w * w_poly6(r2, c->h2, c->poly6);
        gx += g * r.x; gy += g * r.y; gz += g * r.z;
    }
    float C = sum - 1.0f;
    if (C < 0.0f)
        C = d->clamp ? 0.0f : C * d->tscale;
    lam[i] = -C / (gx * gx + gy * gy + gz * gz + g2 + d->eps);
    rho[i] = sum * c->rest_density;
}

/* The fluid sum of pbf_delta_item over i's n entries into (dx, dy, dz),
 * inlined with images 0 for a particle whose entries hold no wall image
 * (nl_plain), whose selects are then not made. */
FCL_INLINE void pbf_delta_sum(float4 pi, float li, GLOBAL const float4 *pos, GLOBAL const uint *fidx,
                              GLOBAL const float *fg, GLOBAL const float *fw, GLOBAL const float *lam, uint base,
                              uint n, uint ks, fcl_images img, uint images, const fcl_pbf_consts *d, float *sx,
                              float *sy, float *sz)
{
    float dx = 0.0f, dy = 0.0f, dz = 0.0f, sk = d->scorr_k * d->tscale, sw = d->scorr_inv_wdq;
    uint sn = d->scorr_n;
    for (uint k = 0u; k < n; k++) {
        uint e = base + k * ks, en = fidx[e], j = en & NL_INDEX;
        float4 q = mirror_lanes(pos[j], en >> NL_SHIFT, img, images);
        float w = fw[e] * sw, t = 1.0f;
        for (uint a = 0u; a < sn; a++)
            t *= w;
        float g = (li + lam[j] - sk * t) * fg[e];
        dx += g * (pi.x - q.x); dy += g * (pi.y - q.y); dz += g * (pi.z - q.z);
    }
    *sx = dx;
    *sy = dy;
    *sz = dz;
}

/* The fluid sum reads the factors lambda cached. It is summed in list
 * order on every backend, not vectorized across neighbors as
 * dfsph_pressure_vel is: PBF's projection amplifies the rounding of a
 * reordered sum (test_solvers measured 1.4e-4 m between the backends
 * after 12 steps with FCL_SIMD_SUM3 here, 0 without). */
FCL_INLINE void pbf_delta_item(uint i, GLOBAL const float4 *pos, GLOBAL const float4 *bpos,
                               GLOBAL const uint *fcount, GLOBAL const uint *fidx, GLOBAL const uint *bcount,
                               GLOBAL const uint *bidx, const fcl_nlist_info *fl, const fcl_nlist_info *bl,
                               GLOBAL const float *fg, GLOBAL const float *fw, GLOBAL const float *lam,
                               GLOBAL float4 *dp, const fcl_sph_consts *c, const fcl_pbf_consts *d)
{
    float4 pi = pos[i];
    fcl_images img;
    near_walls(pi, c, &img);
    float li = lam[i], dx, dy, dz;
    uint n = nl_len(fcount, i, fl), base = i * fl->pstride, ks = fl->kstride;
    if (nl_plain(fidx, base, n, ks))
        pbf_delta_sum(pi, li, pos, fidx, fg, fw, lam, base, n, ks, img, 0u, d, &dx, &dy, &dz);
    else
        pbf_delta_sum(pi, li, pos, fidx, fg, fw, lam, base, n, ks, img, 1u, d, &dx, &dy, &dz);
    PBF_BOUNDARY(i, b, mb, e) {
        float4 pb = bpos[b], r = pbf_rij(pi, pb, mb, img);
        float r2 = pbf_r2(r);
        if (r2 >= c->h2)
            continue;
        float g = pb.w * li * w_spiky_grad(FCL_SQRT(r2), c->h, c->spiky_grad);
        dx += g * r.x; dy += g * r.y; dz += g * r.z;
    }
    dp[i] = fcl_f4(dx, dy, dz, 0.0f);
}

FCL_INLINE void pbf_apply_item(uint i, GLOBAL float4 *pos, GLOBAL const float4 *dp, GLOBAL const fcl_solid *solids,
                               const fcl_sph_consts *c)
{
    float4 p = pos[i], q = dp[i];
    pos[i] = pbf_collide(fcl_f4(p.x + q.x, p.y + q.y, p.z + q.z, p.w), q, solids, c);
}

FCL_INLINE void pbf_velocity_item(uint i, GLOBAL const float4 *pos, GLOBAL const float4 *xold, GLOBAL float4 *vel,
                                  const fcl_pbf_consts *d)
{
    float4 p = pos[i], o = xold[i];
    float k = d->inv_dt;
    vel[i] = fcl_f4(k * (p.x - o.x), k * (p.y - o.y), k * (p.z - o.z), 0.0f);
}

FCL_INLINE float4 pbf_cross(float4 a, float4 b)
{
    return fcl_f4(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x, 0.0f);
}

/* The velocity passes run on the final positions, whose factors the
 * last pbf_lambda cached (fg, fw). */
FCL_INLINE void pbf_vorticity_item(uint i, GLOBAL const float4 *pos, GLOBAL const float4 *vel,
                                   GLOBAL const uint *fcount, GLOBAL const uint *fidx, const fcl_nlist_info *fl,
                                   GLOBAL const float *fg, GLOBAL float4 *omega, const fcl_sph_consts *c,
                                   const fcl_pbf_consts *d)
{
    float4 pi = pos[i], vi = vel[i], w = fcl_f4(0.0f, 0.0f, 0.0f, 0.0f);
    fcl_images img;
    near_walls(pi, c, &img);
    (void)d;
    PBF_FLUID(i, j, m, e) {
        float4 r = pbf_rij(pi, pos[j], m, img), vj = mirror_vel(vel[j], m);
        float g = fg[e];
        float4 x = pbf_cross(r, fcl_f4(vj.x - vi.x, vj.y - vi.y, vj.z - vi.z, 0.0f));   /* grad_j W_ij = -g r */
        w = fcl_f4(w.x + g * x.x, w.y + g * x.y, w.z + g * x.z, 0.0f);
    }
    w.w = FCL_SQRT(pbf_r2(w));
    omega[i] = w;
}

/* omega.w holds |omega|. Only v_i is written, and only omega is read
 * from neighbors, so the pass runs in place. */
FCL_INLINE void pbf_confine_item(uint i, GLOBAL const float4 *pos, GLOBAL float4 *vel, GLOBAL const float4 *omega,
                                 GLOBAL const uint *fcount, GLOBAL const uint *fidx, const fcl_nlist_info *fl,
                                 GLOBAL const float *fg, const fcl_sph_consts *c, const fcl_pbf_consts *d)
{
    float4 pi = pos[i], oi = omega[i];
    fcl_images img;
    near_walls(pi, c, &img);
    float ex = 0.0f, ey = 0.0f, ez = 0.0f;
    PBF_FLUID(i, j, m, e) {
        float4 r = pbf_rij(pi, pos[j], m, img);
        float g = (omega[j].w - oi.w) * fg[e];
        ex += g * r.x; ey += g * r.y; ez += g * r.z;
    }
    float len = FCL_SQRT(ex * ex + ey * ey + ez * ez);
    if (len < 1e-12f)
        return;
    float4 f = pbf_cross(fcl_f4(ex / len, ey / len, ez / len, 0.0f), oi);
    float k = d->dt * d->vorticity;
    float4 v = vel[i];
    vel[i] = fcl_f4(v.x + k * f.x, v.y + k * f.y, v.z + k * f.z, 0.0f);
}

/* The step's final velocity into out (the velocity the next step
 * starts from): XSPH smoothing of vel, or a copy when c = 0. */
FCL_INLINE void pbf_xsph_item(uint i, GLOBAL const float4 *pos, GLOBAL const float4 *vel, GLOBAL float4 *out,
                              GLOBAL const uint *fcount, GLOBAL const uint *fidx, const fcl_nlist_info *fl,
                              GLOBAL const float *fw, const fcl_sph_consts *c, const fcl_pbf_consts *d)
{
    float4 pi = pos[i], vi = vel[i];
    float sx = 0.0f, sy = 0.0f, sz = 0.0f;
    (void)pi;
    (void)c;
    if (d->xsph > 0.0f) {
        PBF_FLUID(i, j, m, e) {
            float4 vj = mirror_vel(vel[j], m);
            float w = d->volume * fw[e];
            sx += w * (vj.x - vi.x); sy += w * (vj.y - vi.y); sz += w * (vj.z - vi.z);
        }
    }
    float k = d->xsph;
    out[i] = fcl_f4(vi.x + k * sx, vi.y + k * sy, vi.z + k * sz, 0.0f);
}
