/* wcsph.cl - Mueller, Charypar, Gross 2003 SPH passes over sorted particles.
 *
 * density:   rho_i = m sum_j W(r_ij), p_i = k (rho_i - rho0), with W the
 *            spiky kernel whose gradient the pressure force takes, or
 *            Mueller's poly6 (wcsph.density_kernel), and
 *            negative pressures scaled by material.negative_pressure (as
 *            a cell walk, or wcsph_density_nl over the step's lists, which
 *            wcsph_forces_nl reads too)
 * forces:    symmetric pressure (spiky), viscosity (viscosity kernel
 *            Laplacian), surface tension by material.tension_model
 *            (forces.cl: Mueller's color field where |n| > l, or Akinci's
 *            cohesion and curvature after a forces_normals pass), gravity
 * walls:     boundary particles (boundary.cl: density rho0 V_b W, pressure
 *            Akinci's p_i / rho_i^2 in Mueller's scaling, boundary_push)
 *            or, with boundary.walls = mirror, mirror
 *            images of the neighbors across walls within h standing in for
 *            the fluid the walls hide (free-slip); integrate keeps
 *            particles half a spacing inside and reflects their velocity
 * integrate: leapfrog, then box walls with restitution, then out of box
 *            and sphere obstacles and polygons' slabs (boundary.cl)
 * stats:     per-particle speed, density error and blow-up flag, reduced
 * Invariant: every pass reads only sorted arrays and the cell starts of the
 * current grid, or the step's neighbor lists (wcsph_density_nl, wcsph_forces_nl); the
 * *_item functions are shared with the CPU backend.
 */

/* W of the density kernel (wcsph.density_kernel): Mueller's poly6 pairs
 * with the spiky gradient of the pressure force, whose work then is not
 * the change of the energy the density defines: a resting 2 cm pool
 * gained energy until it boiled at 4 m/s (README: WCSPH). spiky makes the
 * force the density's own gradient. */
FCL_INLINE float density_w(float r2, const fcl_sph_consts *c)
{
    return w_density(r2, c->density_spiky, c->h, c->h2, c->poly6, c->spiky);
}

/* Sum of density_w over the neighbors of pi, each reflected by mask m. */
FCL_INLINE float density_sum(float4 pi, uint m, fcl_images img, uint rows, const uint *lo, const uint *hi,
                             GLOBAL const float4 *pos, const fcl_sph_consts *c)
{
    float sum = 0.0f;
    for (uint r = 0u; r < rows; r++) {
        for (uint j = lo[r]; j < hi[r]; j++) {
            float4 q = mirror(pos[j], m, img);
            float dx = pi.x - q.x, dy = pi.y - q.y, dz = pi.z - q.z;
            sum += density_w(dx * dx + dy * dy + dz * dz, c);
        }
    }
    return sum;
}

/* Sum of V_b density_w over the boundary particles near pi (boundary.cl). */
FCL_INLINE float boundary_density_sum(float4 pi, GLOBAL const float4 *bpos, GLOBAL const uint *bstart,
                                      const fcl_grid_info *g, const fcl_sph_consts *c)
{
    uint lo[9], hi[9];
    uint rows = grid_neighbor_rows(g, bstart, pi, lo, hi);
    float sum = 0.0f;
    for (uint r = 0u; r < rows; r++)
        for (uint b = lo[r]; b < hi[r]; b++) {
            float4 q = bpos[b];
            float dx = pi.x - q.x, dy = pi.y - q.y, dz = pi.z - q.z;
            sum += q.w * density_w(dx * dx + dy * dy + dz * dz, c);
        }
    return sum;
}

/* The neighbors themselves first (the only pass for interior particles),
 * then their images across the near walls. */
FCL_INLINE void wcsph_density_item(uint i, GLOBAL const float4 *pos, GLOBAL const uint *start,
                             GLOBAL const float4 *bpos, GLOBAL const uint *bstart,
                             GLOBAL float *rho, GLOBAL float *prs, const fcl_grid_info *g,
                             const fcl_sph_consts *c)
{
    float4 pi = pos[i];
    fcl_images img;
    uint near = near_walls(pi, c, &img), nm = image_count(near);
    uint lo[9], hi[9];
    uint rows = grid_neighbor_rows(g, start, pi, lo, hi);
    float sum = density_sum(pi, 0u, img, rows, lo, hi, pos, c);
    for (uint k = 1u; k < nm; k++)
        sum += density_sum(pi, image_mask(near, k), img, rows, lo, hi, pos, c);
    float d = c->mass * sum + c->rest_density * boundary_density_sum(pi, bpos, bstart, g, c);
    float p = c->stiffness * (d - c->rest_density);
    rho[i] = d;
    prs[i] = p < 0.0f ? p * c->negative_pressure : p;
}

/* Running sums of the forces pass for one particle. */
typedef struct fcl_force_sum {
    float fx, fy, fz;   /* pressure + viscosity force density */
    fcl_color_sum col;  /* Mueller's color field (forces.cl) */
} fcl_force_sum;

/* One neighbor's (or image's) contribution: j at pj with velocity vj,
 * volume m/rho_j and mean pressure (p_i + p_j)/2. */
FCL_INLINE void force_pair(fcl_force_sum *f, float4 pi, float4 vi, float4 pj, float4 vj, float vol, float pp,
                           const fcl_sph_consts *c)
{
    float dx = pi.x - pj.x, dy = pi.y - pj.y, dz = pi.z - pj.z;
    float r2 = dx * dx + dy * dy + dz * dz;
    if (r2 >= c->h2)
        return;
    float rr = FCL_SQRT(r2);
    float fp = -vol * pp * w_spiky_grad(rr, c->h, c->spiky_grad);
    float fv = c->viscosity * vol * w_visc_lap(rr, c->h, c->visc_lap);
    f->fx += fp * dx + fv * (vj.x - vi.x);
    f->fy += fp * dy + fv * (vj.y - vi.y);
    f->fz += fp * dz + fv * (vj.z - vi.z);
    color_pair(&f->col, dx, dy, dz, r2, vol, c);
}

/* The fluid neighbors' force_pair sums over n list entries ent[0..n-1]
 * (kstride 1): scalar in list order, or 16 entries at a time on the
 * native backend with AVX-512 (fcl_common.h), each pair computed as
 * force_pair does, the lanes added at the end (the sum's order differs:
 * within the backends' agreement). */
FCL_INLINE void force_fluid_sum(fcl_force_sum *f, float4 pi, float4 vi, float p_i, fcl_images img,
                                GLOBAL const float4 *pos, GLOBAL const float4 *vev, GLOBAL const float *prs,
                                GLOBAL const float *vol, GLOBAL const uint *ent, uint n, const fcl_sph_consts *c)
{
#ifdef FCL_AVX512
    __m512 sx = _mm512_setzero_ps(), sy = sx, sz = sx, snx = sx, sny = sx, snz = sx, slap = sx;
    const __m512 h = _mm512_set1_ps(c->h), h2 = _mm512_set1_ps(c->h2), zero = _mm512_setzero_ps();
    const __m512 neg0 = _mm512_set1_ps(-0.0f);
    const float *pf = (const float *)pos, *vf = (const float *)vev;
    for (uint k = 0u; k < n; k += 16u) {
        __mmask16 live = fcl_live16(n - k);
        __m512i e = _mm512_maskz_loadu_epi32(live, ent + k);
        __m512i j4 = _mm512_slli_epi32(_mm512_and_si512(e, _mm512_set1_epi32((int)NL_INDEX)), 2);
        __m512i m = _mm512_srli_epi32(e, NL_SHIFT);
        __m512 qx = _mm512_mask_i32gather_ps(zero, live, j4, pf, 4);
        __m512 qy = _mm512_mask_i32gather_ps(zero, live, j4, pf + 1, 4);
        __m512 qz = _mm512_mask_i32gather_ps(zero, live, j4, pf + 2, 4);
        __m512 ux = _mm512_mask_i32gather_ps(zero, live, j4, vf, 4);
        __m512 uy = _mm512_mask_i32gather_ps(zero, live, j4, vf + 1, 4);
        __m512 uz = _mm512_mask_i32gather_ps(zero, live, j4, vf + 2, 4);
        __m512i j = _mm512_srli_epi32(j4, 2);
        __m512 vj = _mm512_mask_i32gather_ps(zero, live, j, vol, 4);
        __m512 pj = _mm512_mask_i32gather_ps(zero, live, j, prs, 4);
        if (_mm512_test_epi32_mask(m, m)) {
            /* Wall images (mirror, mirror_vel). */
            mirror16(&qx, &qy, &qz, m, img);
            ux = _mm512_mask_xor_ps(ux, mirror16_flips(m, 0u), ux, neg0);
            uy = _mm512_mask_xor_ps(uy, mirror16_flips(m, 1u), uy, neg0);
            uz = _mm512_mask_xor_ps(uz, mirror16_flips(m, 2u), uz, neg0);
        }
        __m512 dx = _mm512_sub_ps(_mm512_set1_ps(pi.x), qx), dy = _mm512_sub_ps(_mm512_set1_ps(pi.y), qy);
        __m512 dz = _mm512_sub_ps(_mm512_set1_ps(pi.z), qz);
        __m512 r2 = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(dx, dx), _mm512_mul_ps(dy, dy)), _mm512_mul_ps(dz, dz));
        __mmask16 in = _mm512_mask_cmp_ps_mask(live, r2, h2, _CMP_LT_OQ);
        __m512 rr = _mm512_sqrt_ps(r2), d = _mm512_sub_ps(h, rr);
        /* w_spiky_grad, w_visc_lap, w_poly6_grad, w_poly6_lap */
        __mmask16 sp = _mm512_mask_cmp_ps_mask(_mm512_cmp_ps_mask(rr, h, _CMP_LT_OQ), rr, _mm512_set1_ps(1e-9f),
                                               _CMP_GT_OQ);
        __m512 sg = _mm512_maskz_div_ps(
            sp, _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(c->spiky_grad), d), d), rr);
        __m512 vl = _mm512_maskz_mul_ps(_mm512_cmp_ps_mask(rr, h, _CMP_LT_OQ), _mm512_set1_ps(c->visc_lap), d);
        __m512 d2 = _mm512_sub_ps(h2, r2);
        __m512 pg = _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(c->poly6_grad), d2), d2);
        __m512 pl = _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(c->poly6_lap), d2),
                                  _mm512_sub_ps(_mm512_mul_ps(_mm512_set1_ps(3.0f), h2),
                                                _mm512_mul_ps(_mm512_set1_ps(7.0f), r2)));
        /* force_pair: fp = -vol pp W', fv = mu vol lap W */
        __m512 pp = _mm512_mul_ps(_mm512_set1_ps(0.5f), _mm512_add_ps(_mm512_set1_ps(p_i), pj));
        __m512 fp = _mm512_mul_ps(_mm512_mul_ps(_mm512_xor_ps(vj, neg0), pp), sg);
        __m512 fv = _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(c->viscosity), vj), vl);
        __m512 tx = _mm512_add_ps(_mm512_mul_ps(fp, dx), _mm512_mul_ps(fv, _mm512_sub_ps(ux, _mm512_set1_ps(vi.x))));
        __m512 ty = _mm512_add_ps(_mm512_mul_ps(fp, dy), _mm512_mul_ps(fv, _mm512_sub_ps(uy, _mm512_set1_ps(vi.y))));
        __m512 tz = _mm512_add_ps(_mm512_mul_ps(fp, dz), _mm512_mul_ps(fv, _mm512_sub_ps(uz, _mm512_set1_ps(vi.z))));
        __m512 gc = _mm512_mul_ps(vj, pg);
        sx = _mm512_mask_add_ps(sx, in, sx, tx);
        sy = _mm512_mask_add_ps(sy, in, sy, ty);
        sz = _mm512_mask_add_ps(sz, in, sz, tz);
        snx = _mm512_mask_add_ps(snx, in, snx, _mm512_mul_ps(gc, dx));
        sny = _mm512_mask_add_ps(sny, in, sny, _mm512_mul_ps(gc, dy));
        snz = _mm512_mask_add_ps(snz, in, snz, _mm512_mul_ps(gc, dz));
        slap = _mm512_mask_add_ps(slap, in, slap, _mm512_mul_ps(vj, pl));
    }
    f->fx += _mm512_reduce_add_ps(sx); f->fy += _mm512_reduce_add_ps(sy); f->fz += _mm512_reduce_add_ps(sz);
    f->col.nx += _mm512_reduce_add_ps(snx); f->col.ny += _mm512_reduce_add_ps(sny);
    f->col.nz += _mm512_reduce_add_ps(snz); f->col.lap += _mm512_reduce_add_ps(slap);
#else
    for (uint k = 0u; k < n; k++) {
        uint en = ent[k], j = en & NL_INDEX, m = en >> NL_SHIFT;
        force_pair(f, pi, vi, mirror(pos[j], m, img), mirror_vel(vev[j], m), vol[j], 0.5f * (p_i + prs[j]), c);
    }
#endif
}

/* Akinci 2012, eq. 10: a_i = -sum_b psi_b p_i / rho_i^2 grad W_ib,
 * psi_b = rho0 V_b, the term its density rho0 V_b W_ib calls for. Mueller's
 * pair force (p_i + p_j) / 2 is the symmetric p_i/rho_i^2 + p_j/rho_j^2
 * with half the pressure, so the wall's term takes p_i / 2 too: the force
 * density -rho0 V_b (p_i / 2) / rho_i grad W. With p_i in full (a wall
 * standing in for fluid of pressure p_i, pressure mirroring) the walls
 * pushed twice what their density asks and fed energy into the fluid: a
 * resting 15 cm pool's mean energy rose 65 % in 0.4 s, its floor layer
 * bouncing until water reached 35 cm (a review); now it falls 2 %. No
 * friction (free slip). */
FCL_INLINE float boundary_push(float p_i, float rho_i, const fcl_sph_consts *c)
{
    return 0.5f * p_i * c->rest_density / rho_i;
}

FCL_INLINE void boundary_pressure(fcl_force_sum *f, float4 pi, float push, GLOBAL const float4 *bpos,
                                  GLOBAL const uint *bstart, const fcl_grid_info *g, const fcl_sph_consts *c)
{
    uint lo[9], hi[9];
    uint rows = grid_neighbor_rows(g, bstart, pi, lo, hi);
    for (uint r = 0u; r < rows; r++)
        for (uint b = lo[r]; b < hi[r]; b++) {
            float4 q = bpos[b];
            float dx = pi.x - q.x, dy = pi.y - q.y, dz = pi.z - q.z;
            float r2 = dx * dx + dy * dy + dz * dz;
            if (r2 >= c->h2)
                continue;
            float fp = -q.w * push * w_spiky_grad(FCL_SQRT(r2), c->h, c->spiky_grad);
            f->fx += fp * dx; f->fy += fp * dy; f->fz += fp * dz;
        }
}

/* Pressure, viscosity and surface tension in one neighbor loop over the
 * neighbors and their wall images; the acceleration (force density over
 * rho_i, plus gravity) goes to acc. Mueller's color field rides along in
 * force_pair; Akinci's pair force (forces.cl) takes the real neighbors
 * and needs this step's normals (forces_normals), read only then. */
FCL_INLINE void wcsph_forces_item(uint i, GLOBAL const float4 *pos, GLOBAL const float4 *vev,
                            GLOBAL const float *rho, GLOBAL const float *prs,
                            GLOBAL const uint *start, GLOBAL const float4 *bpos, GLOBAL const uint *bstart,
                            GLOBAL const float4 *normals, GLOBAL float4 *acc, const fcl_grid_info *g,
                            const fcl_sph_consts *c)
{
    float4 pi = pos[i], vi = vev[i];
    fcl_images img;
    float p_i = prs[i], rho_i = rho[i], tx = 0.0f, ty = 0.0f, tz = 0.0f;
    fcl_force_sum f = { 0.0f, 0.0f, 0.0f, { 0.0f, 0.0f, 0.0f, 0.0f } };
    uint akinci = c->tension_model == FCL_TENSION_AKINCI;
    float4 ni = akinci ? normals[i] : fcl_f4(0.0f, 0.0f, 0.0f, 0.0f);
    uint near = near_walls(pi, c, &img), nm = image_count(near);
    uint lo[9], hi[9];
    uint rows = grid_neighbor_rows(g, start, pi, lo, hi);
    for (uint r = 0u; r < rows; r++) {
        for (uint j = lo[r]; j < hi[r]; j++) {
            float4 pj = pos[j];
            /* Most candidates are out of range, and so are their images
             * (never closer than the original) and Akinci's pair force:
             * skip them before the division and the loads. */
            float dx = pi.x - pj.x, dy = pi.y - pj.y, dz = pi.z - pj.z;
            if (dx * dx + dy * dy + dz * dz >= c->h2)
                continue;
            float4 vj = vev[j];
            float vol = c->mass / rho[j], pp = 0.5f * (p_i + prs[j]);
            force_pair(&f, pi, vi, pj, vj, vol, pp, c);
            for (uint k = 1u; k < nm; k++) {
                uint m = image_mask(near, k);
                force_pair(&f, pi, vi, mirror(pj, m, img), mirror_vel(vj, m), vol, pp, c);
            }
            if (!akinci)
                continue;
            float4 t = tension_akinci_pair(pi.x - pj.x, pi.y - pj.y, pi.z - pj.z, ni, normals[j], rho_i,
                                           rho[j], c);
            tx += t.x; ty += t.y; tz += t.z;
        }
    }
    boundary_pressure(&f, pi, boundary_push(p_i, rho_i, c), bpos, bstart, g, c);
    float k = tension_mueller_coef(&f.col, c);
    f.fx += k * f.col.nx; f.fy += k * f.col.ny; f.fz += k * f.col.nz;
    float inv = 1.0f / rho_i;
    acc[i] = fcl_f4(f.fx * inv + c->gravity.x + tx, f.fy * inv + c->gravity.y + ty,
                    f.fz * inv + c->gravity.z + tz, 0.0f);
}

/* The same two passes reading the step's neighbor lists (nlist.cl)
 * instead of walking cells (wcsph.neighbors = lists): entries hold every
 * neighbor and wall image within h, images after the neighbors
 * themselves, so sums add in another order than the cell walk's. The
 * fluid's share of the density, sum_j W, the list build made on
 * its way (nlist_build_sum: wsum); the boundary's is summed here. */
FCL_INLINE void wcsph_density_nl_item(uint i, GLOBAL const float4 *pos, GLOBAL const float4 *bpos,
                                GLOBAL const float *wsum, GLOBAL const uint *bcount, GLOBAL const uint *bidx,
                                const fcl_nlist_info *bl, GLOBAL float *rho, GLOBAL float *prs,
                                GLOBAL float *vol, const fcl_sph_consts *c)
{
    float4 pi = pos[i];
    float sum = wsum[i], bsum = 0.0f;
    forall_neighbors(bl, bcount, bidx, i, b, mb) {
        float4 q = bpos[b];
        float dx = pi.x - q.x, dy = pi.y - q.y, dz = pi.z - q.z;
        (void)mb;
        bsum += q.w * density_w(dx * dx + dy * dy + dz * dz, c);
    }
    float d = c->mass * sum + c->rest_density * bsum;
    float p = c->stiffness * (d - c->rest_density);
    rho[i] = d;
    prs[i] = p < 0.0f ? p * c->negative_pressure : p;
    /* m / rho_j, which the forces pass needs per pair: one division a
     * particle instead of one a pair (the same bits). */
    vol[i] = c->mass / d;
}

FCL_INLINE void wcsph_forces_nl_item(uint i, GLOBAL const float4 *pos, GLOBAL const float4 *vev,
                               GLOBAL const float *rho, GLOBAL const float *prs, GLOBAL const float *vol,
                               GLOBAL const float4 *bpos,
                               GLOBAL const uint *fcount, GLOBAL const uint *fidx, GLOBAL const uint *bcount,
                               GLOBAL const uint *bidx, const fcl_nlist_info *fl, const fcl_nlist_info *bl,
                               GLOBAL const float4 *normals, GLOBAL float4 *acc, const fcl_sph_consts *c)
{
    float4 pi = pos[i], vi = vev[i];
    fcl_images img;
    float p_i = prs[i], rho_i = rho[i], tx = 0.0f, ty = 0.0f, tz = 0.0f;
    fcl_force_sum f = { 0.0f, 0.0f, 0.0f, { 0.0f, 0.0f, 0.0f, 0.0f } };
    uint akinci = c->tension_model == FCL_TENSION_AKINCI;
    float4 ni = akinci ? normals[i] : fcl_f4(0.0f, 0.0f, 0.0f, 0.0f);
    near_walls(pi, c, &img);
    if (!akinci && fl->kstride == 1u) {
        /* One particle's entries together (the CPUs' layout). */
        force_fluid_sum(&f, pi, vi, p_i, img, pos, vev, prs, vol, fidx + i * fl->pstride, nl_len(fcount, i, fl), c);
    } else {
        forall_neighbors(fl, fcount, fidx, i, j, m) {
            float4 pj = pos[j];
            force_pair(&f, pi, vi, mirror(pj, m, img), mirror_vel(vev[j], m), vol[j], 0.5f * (p_i + prs[j]), c);
            if (!akinci || m)
                continue;
            float4 t = tension_akinci_pair(pi.x - pj.x, pi.y - pj.y, pi.z - pj.z, ni, normals[j], rho_i, rho[j], c);
            tx += t.x; ty += t.y; tz += t.z;
        }
    }
    float push = boundary_push(p_i, rho_i, c);
    forall_neighbors(bl, bcount, bidx, i, b, mb) {
        float4 q = bpos[b];
        float dx = pi.x - q.x, dy = pi.y - q.y, dz = pi.z - q.z;
        (void)mb;
        float fp = -q.w * push * w_spiky_grad(FCL_SQRT(dx * dx + dy * dy + dz * dz), c->h, c->spiky_grad);
        f.fx += fp * dx; f.fy += fp * dy; f.fz += fp * dz;
    }
    float k = tension_mueller_coef(&f.col, c);
    f.fx += k * f.col.nx; f.fy += k * f.col.ny; f.fz += k * f.col.nz;
    float inv = 1.0f / rho_i;
    acc[i] = fcl_f4(f.fx * inv + c->gravity.x + tx, f.fy * inv + c->gravity.y + ty,
                    f.fz * inv + c->gravity.z + tz, 0.0f);
}

/* Reflect one coordinate off the walls lo/hi: the particle is put back on
 * the wall and keeps `rest` of its normal speed. Works on scalars because
 * OpenCL C cannot take the address of a vector component. */

/* Leapfrog: vel holds v(t - dt/2); vev gets v(t) = the mean of the two
 * half steps, used by viscosity and reported as the particle velocity. */
FCL_INLINE void wcsph_integrate_item(uint i, GLOBAL float4 *pos, GLOBAL float4 *vel, GLOBAL float4 *vev,
                               GLOBAL const float4 *acc, GLOBAL const fcl_solid *solids, const fcl_sph_consts *c)
{
    float4 p = pos[i], v = vel[i], a = acc[i], n, e;
    float dt = c->dt, rest = c->restitution;
    float r = c->radius;
    float4 lo = fcl_f4(c->domain_min.x + r, c->domain_min.y + r, c->domain_min.z + r, 0.0f);
    float4 hi = fcl_f4(c->domain_max.x - r, c->domain_max.y - r, c->domain_max.z - r, 0.0f);
    n = fcl_f4(v.x + a.x * dt, v.y + a.y * dt, v.z + a.z * dt, 0.0f);
    e = fcl_f4(0.5f * (v.x + n.x), 0.5f * (v.y + n.y), 0.5f * (v.z + n.z), 0.0f);
    p = fcl_f4(p.x + n.x * dt, p.y + n.y * dt, p.z + n.z * dt, p.w);
    n = fcl_f4(wall_vel(p.x, n.x, lo.x, hi.x, rest), wall_vel(p.y, n.y, lo.y, hi.y, rest),
               wall_vel(p.z, n.z, lo.z, hi.z, rest), 0.0f);
    e = fcl_f4(wall_vel(p.x, e.x, lo.x, hi.x, rest), wall_vel(p.y, e.y, lo.y, hi.y, rest),
               wall_vel(p.z, e.z, lo.z, hi.z, rest), 0.0f);
    p = fcl_f4(wall_pos(p.x, lo.x, hi.x), wall_pos(p.y, lo.y, hi.y), wall_pos(p.z, lo.z, hi.z), p.w);
    solids_project(&p, &n, &e, solids, c);
    p = wall_keep(p, c->domain_min, c->domain_max, r);
    pos[i] = p;
    vel[i] = n;
    vev[i] = e;
}

/* One particle's contribution to the step statistics. A particle is bad
 * when its state is not finite or it moves more than max_step_ratio * h in
 * one step (the CFL limit is exceeded). */
FCL_INLINE fcl_stats_partial stats_item(uint i, GLOBAL const float4 *pos, GLOBAL const float4 *vel,
                                        GLOBAL const float *rho, const fcl_sph_consts *c)
{
    float4 p = pos[i], v = vel[i];
    fcl_stats_partial s;
    s.max_speed2 = v.x * v.x + v.y * v.y + v.z * v.z;
    /* rho - rho0 is exact near rho0 (Sterbenz), so only the division
     * rounds: rho / rho0 - 1 cancelled its error into e (a device's
     * division within 2.5 ulp, as OpenCL allows, moved e by 1.7e-6
     * relative on an H200). */
    float e = (rho[i] - c->rest_density) / c->rest_density;
    s.sum_density_err = e > 0.0f ? e : 0.0f;
    s.max_density_err = s.sum_density_err;
    float lim = c->max_step_ratio * c->h / c->dt;
    int ok = FCL_ISFINITE(p.x) && FCL_ISFINITE(p.y) && FCL_ISFINITE(p.z) &&
             FCL_ISFINITE(s.max_speed2) && FCL_ISFINITE(rho[i]) && s.max_speed2 <= lim * lim;
    s.first_bad = ok ? 0xffffffffu : i;
    return s;
}

/* Fold one partial into another (max, sum, max, min). */
FCL_INLINE void stats_fold(fcl_stats_partial *r, fcl_stats_partial s)
{
    r->max_speed2 = s.max_speed2 > r->max_speed2 ? s.max_speed2 : r->max_speed2;
    r->sum_density_err += s.sum_density_err;
    r->max_density_err = s.max_density_err > r->max_density_err ? s.max_density_err : r->max_density_err;
    r->first_bad = s.first_bad < r->first_bad ? s.first_bad : r->first_bad;
}

#ifdef FCL_AVX512
/* Whether each lane is finite (isfinite: |x| < inf, false for NaN). */
FCL_INLINE __mmask16 stats_finite16(__m512 x)
{
    return _mm512_cmp_ps_mask(_mm512_abs_ps(x), _mm512_set1_ps(INFINITY), _CMP_LT_OQ);
}

/* stats_item and stats_fold for particles i0 .. end - 1 (at most 16) into
 * r, the native backend on an AVX-512 host: the same arithmetic (no FMA)
 * and the density errors summed in index order, so the partial has the
 * same bits as the scalar fold's (max and min do not depend on order). */
static void stats_fold16(fcl_stats_partial *r, uint i0, uint end, const float4 *pos, const float4 *vel,
                         const float *rho, const fcl_sph_consts *c)
{
    uint n = end - i0;
    __mmask16 live = fcl_live16(n);
    __m512 zero = _mm512_setzero_ps(), vx, vy, vz, px, py, pz;
    fcl_xyz16(vel, i0, live, &vx, &vy, &vz);
    fcl_xyz16(pos, i0, live, &px, &py, &pz);
    __m512 s2 = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(vx, vx), _mm512_mul_ps(vy, vy)), _mm512_mul_ps(vz, vz));
    __m512 ro = _mm512_maskz_loadu_ps(live, rho + i0);
    __m512 e = _mm512_div_ps(_mm512_sub_ps(ro, _mm512_set1_ps(c->rest_density)), _mm512_set1_ps(c->rest_density));
    e = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(e, zero, _CMP_GT_OQ), e);
    float lim = c->max_step_ratio * c->h / c->dt;
    __mmask16 ok = stats_finite16(px) & stats_finite16(py) & stats_finite16(pz) & stats_finite16(s2) &
                   stats_finite16(ro) & _mm512_cmp_ps_mask(s2, _mm512_set1_ps(lim * lim), _CMP_LE_OQ);
    /* NaN lanes out of the maxima, as the scalar comparison leaves them. */
    float m2 = _mm512_mask_reduce_max_ps(live & _mm512_cmp_ps_mask(s2, s2, _CMP_ORD_Q), s2);
    float me = _mm512_mask_reduce_max_ps(live, e);
    r->max_speed2 = m2 > r->max_speed2 ? m2 : r->max_speed2;
    r->max_density_err = me > r->max_density_err ? me : r->max_density_err;
    __mmask16 bad = live & (__mmask16)~ok;
    if (bad && i0 + (uint)__builtin_ctz(bad) < r->first_bad)
        r->first_bad = i0 + (uint)__builtin_ctz(bad);
    float es[16];
    _mm512_storeu_ps(es, e);
    for (uint k = 0u; k < n; k++)
        r->sum_density_err += es[k];
}
#endif

/* One partial per group of FCL_WG particles, the group folded serially by
 * one work-item (for CPU devices; `stats` below is the GPU variant). */
FCL_INLINE void stats_chunks_item(uint g, GLOBAL const float4 *pos, GLOBAL const float4 *vel,
                                 GLOBAL const float *rho, GLOBAL fcl_stats_partial *out,
                                 const fcl_sph_consts *c)
{
    fcl_stats_partial r = { 0.0f, 0.0f, 0.0f, 0xffffffffu };
    uint end = (g + 1u) * FCL_WG < c->n ? (g + 1u) * FCL_WG : c->n;
#ifdef FCL_AVX512
    if (FCL_LANES_FIT(c->n)) {
        for (uint i = g * FCL_WG; i < end; i += 16u)
            stats_fold16(&r, i, i + 16u < end ? i + 16u : end, pos, vel, rho, c);
        out[g] = r;
        return;
    }
#endif
    for (uint i = g * FCL_WG; i < end; i++)
        stats_fold(&r, stats_item(i, pos, vel, rho, c));
    out[g] = r;
}

#ifdef FCL_DEVICE
/* Work-group tree reduction of stats_item into one partial per group (for
 * GPUs); the host folds the partials (there are n / FCL_WG of them). */
__kernel __attribute__((reqd_work_group_size(FCL_WG, 1, 1)))
void stats(__global const float4 *pos, __global const float4 *vel, __global const float *rho,
           __global fcl_stats_partial *out, fcl_sph_consts c)
{
    __local float m2[FCL_WG], se[FCL_WG], me[FCL_WG];
    __local uint bad[FCL_WG];
    uint i = get_global_id(0), l = get_local_id(0);
    fcl_stats_partial s = { 0.0f, 0.0f, 0.0f, 0xffffffffu };
    if (i < c.n)
        s = stats_item(i, pos, vel, rho, &c);
    m2[l] = s.max_speed2; se[l] = s.sum_density_err; me[l] = s.max_density_err; bad[l] = s.first_bad;
    for (uint d = FCL_WG / 2u; d > 0u; d >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (l < d) {
            m2[l] = fmax(m2[l], m2[l + d]);
            se[l] += se[l + d];
            me[l] = fmax(me[l], me[l + d]);
            bad[l] = min(bad[l], bad[l + d]);
        }
    }
    if (l == 0u) {
        fcl_stats_partial r = { m2[0], se[0], me[0], bad[0] };
        out[get_group_id(0)] = r;
    }
}
#endif
