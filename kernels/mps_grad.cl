/* mps_grad.cl - MPS's pressure gradient and velocity correction (the
 * `correct` pass of mps.cl's banner): the pressure each neighbor stands
 * for (its own, a wall image's with its ghost's hydrostatic share, a
 * boundary particle's ghost), Koshizuka & Oka's gradient with phat, the
 * least pressure around i (mps.gradient = ko; scalar and 16-lane), and the
 * corrected gradient with its close-pair stabilization (gc; its fluid
 * walk 16-lane too). Split from
 * mps.cl, whose helpers (mps_w, mps_ghost, mps_ghost3, mps_d2,
 * mps_wall_weight, mps_rho_of) it uses.
 * Invariant: reads the step's lists and the solved pressure; writes only
 * the corrected velocity and the displacement of its own particle.
 */
/* The pressure the gradient sees: negative values clamped with
 * mps.clamp_negative (a tension the particle method cannot carry). */
FCL_INLINE float mps_pressure(float p, const fcl_mps_consts *d)
{
    return d->clamp && p < 0.0f ? 0.0f : p;
}

/* A fluid entry of i's list as the gradients read it: r = x_j - x_i (j's
 * image), r2, rho_j and q_j, the neighbor's pressure (an image's with its
 * ghost's hydrostatic share); 0 for an entry beyond re_n or i itself.
 * With q3 (K&O's gradient) the pressure is q3's instead, per axis, the
 * image's share along each axis only (mps_ghost3), and q is not set. */
FCL_INLINE int mps_grad_entry(uint i, uint j, uint m, float4 pi, fcl_images img, GLOBAL const float4 *pos,
                              GLOBAL const float *prs, GLOBAL const float *rhob, float rho_i, const fcl_sph_consts *c,
                              const fcl_mps_consts *d, float4 *r, float *r2, float *rho_j, float *q, float4 *q3)
{
    float4 pj = mirror(pos[j], m, img);
    *r = fcl_f4(pj.x - pi.x, pj.y - pi.y, pj.z - pi.z, 0.0f);
    *r2 = pbf_r2(*r);
    if (*r2 >= d->re_n2 || (j == i && m == 0u))
        return 0;
    *rho_j = j == i ? rho_i : rhob[j];
    float p = mps_pressure(prs[j], d);
    float4 src = j == i ? pi : pos[j];
    if (q3) {
        float4 g = m ? mps_ghost3(pj, src, *rho_j, c) : fcl_f4(0.0f, 0.0f, 0.0f, 0.0f);
        *q3 = fcl_f4(p + g.x, p + g.y, p + g.z, 0.0f);
    } else {
        *q = p + (m ? mps_ghost(pj, src, *rho_j, c) : 0.0f);
    }
    return 1;
}

/* A boundary entry b of i's list as the gradients read it: r = x_b - x_i,
 * r2, wr = w / r^2, q the pressure it stands for (a wall unknown's, or i's
 * ghost p_i + rho_i g . (x_b - x_i)) and k the pair's factor wr over the
 * pair's density (2 / (rho_i + rho0) with a wall unknown, 1 / rho_i for a
 * ghost); 0 for an entry beyond re_n or a dummy wall layer. With gc a
 * ghost's negative pressure (a wall particle above i) counts as 0 under
 * mps.clamp_negative, as the fluid's do: it moved gc's column in ghost
 * walls (0.62 m/s at 1 s; now 0.0074). K&O's gradient keeps it: its phat
 * below 0 pushes every neighbor away, which slides a lone particle off
 * the side walls (1.5 cm in 0.5 s) but cushions fluid against the walls
 * (clamped, a jet 1.5 spacings from a wall threw a particle at 10 m/s,
 * 3.3 without, and the dam break's impact peaked at 3.4 m/s, 2.65
 * without). */
FCL_INLINE int mps_grad_bentry(uint b, uint mb, fcl_images img, float4 pi, float own, float rho_i,
                               GLOBAL const float4 *bpos, GLOBAL const float *xw, uint off, const fcl_sph_consts *c,
                               const fcl_mps_consts *d, float4 *r, float *r2, float *wr, float *q, float *k)
{
    float4 pb = mirror(bpos[b], mb, img);
    *r = fcl_f4(pb.x - pi.x, pb.y - pi.y, pb.z - pi.z, 0.0f);
    *r2 = pbf_r2(*r);
    if (*r2 >= d->re_n2 || (d->walls && pb.w != 0.0f))
        return 0;
    *wr = mps_w(*r2, d->re_n, d) / (*r2 > d->rmin2 ? *r2 : d->rmin2);
    *q = d->walls  ? mps_pressure(xw[off + b], d)
         : d->grad ? mps_pressure(own + mps_ghost(pb, pi, rho_i, c), d)
                   : own + mps_ghost(pb, pi, rho_i, c);
    *k = d->walls ? *wr * 2.0f / (rho_i + d->rho) : *wr / rho_i;
    return 1;
}

/* The least pressure among i, its fluid neighbors and its ghosts within
 * re_n (K&O's phat). */
FCL_INLINE float mps_pmin(uint i, float4 pi, fcl_images img, GLOBAL const float4 *pos, GLOBAL const float4 *bpos,
                          GLOBAL const float *prs, GLOBAL const uint *fcount, GLOBAL const uint *fidx,
                          GLOBAL const uint *bcount, GLOBAL const uint *bidx, const fcl_nlist_info *fl,
                          const fcl_nlist_info *bl, GLOBAL const float *rhob, GLOBAL const float *xw, uint off,
                          const fcl_sph_consts *c, const fcl_mps_consts *d)
{
    float rho_i = rhob[i];
    float own = mps_pressure(prs[i], d), lo = own;
    MPS_FLUID(i, j, m, e) {
        float4 pj = mirror(pos[j], m, img);
        if (pbf_r2(pbf_rij(pi, pj, 0u, img)) >= d->re_n2)
            continue;
        /* An image across the domain's top stands below its source: a
         * negative one counts as 0 (a column half a spacing under the top
         * moved at 9.3e-3 m/s at 0.3 s; now 5e-5). The walls' ghosts keep
         * their sign here (mps_grad_bentry). */
        float q = mps_pressure(mps_pressure(prs[j], d) + (m ? mps_ghost(pj, j == i ? pi : pos[j], rhob[j], c) : 0.0f),
                               d);
        lo = q < lo ? q : lo;
    }
    MPS_BOUNDARY(i, b, mb, e) {
        float4 pb = mirror(bpos[b], mb, img);
        if (pbf_r2(pbf_rij(pi, pb, 0u, img)) >= d->re_n2 || (d->walls && pb.w != 0.0f))
            continue;
        float q = d->walls ? mps_pressure(xw[off + b], d) : own + mps_ghost(pb, pi, rho_i, c);
        lo = q < lo ? q : lo;
    }
    return lo;
}

/* The ko gradient from its sums s (mps_grad_ko): sum_j (q_j - p_i) k_ij
 * w r_ij / r^2 with the pair weight k_ij = 2 / (rho_i + rho_j), plus the
 * phat term (p_i - phat) kbar_i sum_j k0_ij w r_ij / r^2, k0 the weight of
 * i's own density (2 / (rho_i + rho_i)) and kbar_i = sum k / sum k0 its
 * mean pair weight. Weighted by each pair's k, the phat term did not
 * cancel across a phase interface: a resting column of 100 kg/m3 over
 * 1000 read the heavy phase +43 % just below it (a review; -1.3 % so).
 * With smoothed phase densities (d->smooth, water and air) k0 is the
 * pair's k, as before: there 1 / rho_i blew a bubble up at 0.011 s and
 * kbar at 0.015 s. One phase: kbar is 1 and the sums are the same as
 * before (2 x / (2 rho) is x / rho in float). s[0..2]: the pair sum,
 * s[3..5]: the k0 sum, s[6], s[7]: sum k, sum k0. */
FCL_INLINE float4 mps_grad_join(const float s[8], float own, float lo)
{
    float kbar = s[7] > 0.0f ? s[6] / s[7] : 1.0f, f = (own - lo) * kbar;
    return fcl_f4(s[0] + f * s[3], s[1] + f * s[4], s[2] + f * s[5], 0.0f);
}

#ifdef FCL_AVX512
/* The neighbors' pressures for the live lanes `in` (negatives as 0 with
 * the clamp). */
FCL_INLINE __m512 mps_p16(const nl_lanes16 *L, __mmask16 in, GLOBAL const float *prs, const fcl_mps_consts *d)
{
    const __m512 zero = _mm512_setzero_ps();
    __m512 p = _mm512_mask_i32gather_ps(zero, in, L->j, prs, 4);
    return d->clamp ? _mm512_max_ps(p, zero) : p;
}

/* mps_grad_entry's rho_j and q_j for the live lanes `in`: the neighbors'
 * pressures, an image's with its ghost's share. */
FCL_INLINE __m512 mps_q16(const nl_lanes16 *L, __mmask16 in, GLOBAL const float *prs, GLOBAL const float *rhob,
                          const fcl_sph_consts *c, const fcl_mps_consts *d, __m512 *rho_j)
{
    *rho_j = _mm512_mask_i32gather_ps(_mm512_set1_ps(1.0f), in, L->j, rhob, 4);
    __m512 p = mps_p16(L, in, prs, d);
    return _mm512_mask_add_ps(p, _mm512_test_epi32_mask(L->m, L->m), p, mps_ghost16(L, *rho_j, c));
}

/* mps_ghost3's share along one axis, lane-wise. */
FCL_INLINE __m512 mps_ghost16_axis(__m512 image, __m512 src, float g, __m512 rho_j)
{
    return _mm512_mul_ps(rho_j, _mm512_mul_ps(_mm512_set1_ps(g), _mm512_sub_ps(image, src)));
}

/* phat and the gradient's sums in one walk (the native backend on an
 * AVX-512 host, lists of kstride 1): with k_ij a pair's factor and phat
 * not known until the end, sum (q_j - phat) k_ij r_ij (q_j with an
 * image's hydrostatic share along each axis, mps_ghost3) is
 * sum (q_j - p_i) k_ij r_ij + (p_i - phat) sum k_ij r_ij. The fluid
 * entries go 16 at a time, each pair as mps_correct_item forms it, the
 * lanes added at the end (another order of the sums: within the
 * backends' agreement); s[0..2] gets the first sum, s[3..5] the second. */
FCL_INLINE16 float mps_grad_fluid16(uint i, float4 pi, fcl_images img, float own, float rho_i, GLOBAL const float4 *pos,
                                  GLOBAL const float *prs, GLOBAL const float *rhob, const uint *ent, uint n,
                                  const fcl_sph_consts *c, const fcl_mps_consts *d, float s[8])
{
    const __m512 zero = _mm512_setzero_ps(), vown = _mm512_set1_ps(own);
    __m512 lo = vown, ax = zero, ay = zero, az = zero, bx = zero, by = zero, bz = zero, sk = zero, s0 = zero;
    for (uint k = 0u; k < n; k += 16u) {
        nl_lanes16 L;
        __mmask16 in = mps_entries16(ent, k, n, i, pi, img, d->re_n2, pos, &L);
        nl_v16 r = L.r;
        /* mps_q16, its p_j kept for each axis's own share (mps_ghost3) */
        __mmask16 isimg = _mm512_test_epi32_mask(L.m, L.m);
        __m512 rho_j = _mm512_mask_i32gather_ps(_mm512_set1_ps(1.0f), in, L.j, rhob, 4), pj = mps_p16(&L, in, prs, d);
        __m512 p = _mm512_mask_add_ps(pj, isimg, pj, mps_ghost16(&L, rho_j, c));
        __m512 rm = _mm512_max_ps(L.r2, _mm512_set1_ps(d->rmin2));
        __m512 kk = _mm512_div_ps(_mm512_mul_ps(_mm512_div_ps(mps_w16(L.r2, d->re_n, d), rm), _mm512_set1_ps(2.0f)),
                                  _mm512_add_ps(_mm512_set1_ps(rho_i), rho_j));
        __m512 qx = _mm512_mask_add_ps(pj, isimg, pj, mps_ghost16_axis(L.q.x, L.src.x, c->gravity.x, rho_j));
        __m512 qy = _mm512_mask_add_ps(pj, isimg, pj, mps_ghost16_axis(L.q.y, L.src.y, c->gravity.y, rho_j));
        __m512 qz = _mm512_mask_add_ps(pj, isimg, pj, mps_ghost16_axis(L.q.z, L.src.z, c->gravity.z, rho_j));
        lo = _mm512_mask_min_ps(lo, in, lo, d->clamp ? _mm512_max_ps(p, zero) : p);   /* mps_pmin */
        ax = _mm512_mask_add_ps(ax, in, ax, _mm512_mul_ps(_mm512_mul_ps(_mm512_sub_ps(qx, vown), kk), r.x));
        ay = _mm512_mask_add_ps(ay, in, ay, _mm512_mul_ps(_mm512_mul_ps(_mm512_sub_ps(qy, vown), kk), r.y));
        az = _mm512_mask_add_ps(az, in, az, _mm512_mul_ps(_mm512_mul_ps(_mm512_sub_ps(qz, vown), kk), r.z));
        /* the phat term's weight with i's own density (mps_grad_ko) */
        /* where rho_j is rho_i, k0 is kk to the bit: one phase divides once */
        __mmask16 other = _mm512_mask_cmp_ps_mask(in, rho_j, _mm512_set1_ps(rho_i), _CMP_NEQ_UQ);
        __m512 k0 = d->smooth || !other
                        ? kk
                        : _mm512_mask_div_ps(kk, other,
                                             _mm512_mul_ps(_mm512_div_ps(mps_w16(L.r2, d->re_n, d), rm),
                                                           _mm512_set1_ps(2.0f)),
                                             _mm512_set1_ps(rho_i + rho_i));
        bx = _mm512_mask_add_ps(bx, in, bx, _mm512_mul_ps(k0, r.x));
        by = _mm512_mask_add_ps(by, in, by, _mm512_mul_ps(k0, r.y));
        bz = _mm512_mask_add_ps(bz, in, bz, _mm512_mul_ps(k0, r.z));
        sk = _mm512_mask_add_ps(sk, in, sk, kk);
        s0 = _mm512_mask_add_ps(s0, in, s0, k0);
    }
    s[0] = _mm512_reduce_add_ps(ax); s[1] = _mm512_reduce_add_ps(ay); s[2] = _mm512_reduce_add_ps(az);
    s[3] = _mm512_reduce_add_ps(bx); s[4] = _mm512_reduce_add_ps(by); s[5] = _mm512_reduce_add_ps(bz);
    s[6] = _mm512_reduce_add_ps(sk); s[7] = _mm512_reduce_add_ps(s0);
    return _mm512_reduce_min_ps(lo);
}

/* mps_correct_item's boundary entries, in the one-walk form above. */
FCL_INLINE float mps_grad_boundary(uint i, float4 pi, fcl_images img, float own, float rho_i, float lo,
                                   GLOBAL const float4 *bpos, GLOBAL const uint *bcount, GLOBAL const uint *bidx,
                                   const fcl_nlist_info *bl, GLOBAL const float *xw, uint off, const fcl_sph_consts *c,
                                   const fcl_mps_consts *d, float s[8])
{
    MPS_BOUNDARY(i, b, mb, e) {
        float4 r;
        float r2, wr, q, k;
        if (!mps_grad_bentry(b, mb, img, pi, own, rho_i, bpos, xw, off, c, d, &r, &r2, &wr, &q, &k))
            continue;
        float k0 = d->smooth ? k : d->walls ? wr * 2.0f / (rho_i + rho_i) : wr / rho_i;   /* mps_grad_join */
        lo = q < lo ? q : lo;
        s[0] += (q - own) * k * r.x; s[1] += (q - own) * k * r.y; s[2] += (q - own) * k * r.z;
        s[3] += k0 * r.x; s[4] += k0 * r.y; s[5] += k0 * r.z;
        s[6] += k; s[7] += k0;
    }
    return lo;
}
#endif

/* The corrected gradient (mps.gradient = gc; Khayyer & Gotoh 2011, J.
 * Comput. Phys. 230: 3093) and the dynamic stabilization
 * (mps.stabilization; after Tsuruta, Khayyer & Gotoh 2013, Comput. Fluids
 * 82: 158):
 *   grad p_i / rho = C_i sum_j (p_j - p_i) w r_ij / r^2 2 / (rho_i + rho_j),
 *   C_i = (sum_j w r_ij r_ij^T / r^2)^-1,
 * exact for a linear field whatever the arrangement and without phat, so
 * without the pair repulsion (p_i - phat) w r / r^2 whose stiffness is
 * negative across a pair: at rest a checkerboard of columns sliding
 * vertically, invisible to n*, grew from it (README, Gradient). Where C_i
 * is near singular (det below a tenth of the lattice's) the lattice's
 * d / n0 stands in.
 * The stabilization: each fluid pair closer than l0 gives i the velocity
 * -ds_k (l0 - r) / (2 dt) r_ij / r, its half of the separation speed
 * that restores l0 in one step; a boundary particle, fixed, gives all of
 * it, and pulls back within 1.1 l0 (mps_correct_gc).
 * s[0..2]: the gradient's sum, s[3..8]: the moment matrix (xx xy xz yy yz
 * zz), s[9..11]: the stabilization's velocity. */
FCL_INLINE void mps_gc_pair(float4 r, float r2, float f, float wr, float ds, float reach2, const fcl_mps_consts *d,
                            float s[12])
{
    s[0] += f * r.x; s[1] += f * r.y; s[2] += f * r.z;
    s[3] += wr * r.x * r.x; s[4] += wr * r.x * r.y; s[5] += wr * r.x * r.z;
    s[6] += wr * r.y * r.y; s[7] += wr * r.y * r.z; s[8] += wr * r.z * r.z;
    if (r2 < reach2) {
        float rr = FCL_SQRT(r2 > d->rmin2 ? r2 : d->rmin2), e = rr - d->l0;
        e = e > 0.0f && 0.1f * d->l0 - e < e ? 0.1f * d->l0 - e : e;   /* the wall's pull: a tent, 0 at 1.1 l0 */
        float h = -ds * e / rr;
        s[9] += h * r.x; s[10] += h * r.y; s[11] += h * r.z;
    }
}

#ifdef FCL_AVX512
/* mps_correct_gc's fluid entries 16 at a time, each pair
 * as the scalar walk forms it, the lanes added at the end. */
FCL_INLINE16 void mps_gc_fluid16(uint i, float4 pi, fcl_images img, float own, float rho_i, GLOBAL const float4 *pos,
                               GLOBAL const float *prs, GLOBAL const float *rhob, const uint *ent, uint n,
                               const fcl_sph_consts *c, const fcl_mps_consts *d, float s[12])
{
    const __m512 zero = _mm512_setzero_ps(), vown = _mm512_set1_ps(own);
    const __m512 ds = _mm512_set1_ps(-0.5f * d->ds_k / d->dt), l0 = _mm512_set1_ps(d->l0);
    __m512 acc[12];
    for (int k = 0; k < 12; ++k)
        acc[k] = zero;
    for (uint k = 0u; k < n; k += 16u) {
        nl_lanes16 L;
        __mmask16 in = mps_entries16(ent, k, n, i, pi, img, d->re_n2, pos, &L);
        nl_v16 r = L.r;
        __m512 rho_j, p = mps_q16(&L, in, prs, rhob, c, d, &rho_j);
        __m512 rm = _mm512_max_ps(L.r2, _mm512_set1_ps(d->rmin2));
        __m512 wr = _mm512_div_ps(mps_w16(L.r2, d->re_n, d), rm);
        __m512 f = _mm512_div_ps(_mm512_mul_ps(_mm512_mul_ps(_mm512_sub_ps(p, vown), wr), _mm512_set1_ps(2.0f)),
                                 _mm512_add_ps(_mm512_set1_ps(rho_i), rho_j));
        acc[0] = _mm512_mask_add_ps(acc[0], in, acc[0], _mm512_mul_ps(f, r.x));
        acc[1] = _mm512_mask_add_ps(acc[1], in, acc[1], _mm512_mul_ps(f, r.y));
        acc[2] = _mm512_mask_add_ps(acc[2], in, acc[2], _mm512_mul_ps(f, r.z));
        __m512 wx = _mm512_mul_ps(wr, r.x), wy = _mm512_mul_ps(wr, r.y);
        acc[3] = _mm512_mask_add_ps(acc[3], in, acc[3], _mm512_mul_ps(wx, r.x));
        acc[4] = _mm512_mask_add_ps(acc[4], in, acc[4], _mm512_mul_ps(wx, r.y));
        acc[5] = _mm512_mask_add_ps(acc[5], in, acc[5], _mm512_mul_ps(wx, r.z));
        acc[6] = _mm512_mask_add_ps(acc[6], in, acc[6], _mm512_mul_ps(wy, r.y));
        acc[7] = _mm512_mask_add_ps(acc[7], in, acc[7], _mm512_mul_ps(wy, r.z));
        acc[8] = _mm512_mask_add_ps(acc[8], in, acc[8], _mm512_mul_ps(_mm512_mul_ps(wr, r.z), r.z));
        __mmask16 near = _mm512_mask_cmp_ps_mask(in, L.r2, _mm512_set1_ps(d->ds_r2), _CMP_LT_OQ);
        if (near) {
            __m512 rr = _mm512_sqrt_ps(rm);
            __m512 h = _mm512_div_ps(_mm512_mul_ps(ds, _mm512_sub_ps(l0, rr)), rr);
            acc[9] = _mm512_mask_add_ps(acc[9], near, acc[9], _mm512_mul_ps(h, r.x));
            acc[10] = _mm512_mask_add_ps(acc[10], near, acc[10], _mm512_mul_ps(h, r.y));
            acc[11] = _mm512_mask_add_ps(acc[11], near, acc[11], _mm512_mul_ps(h, r.z));
        }
    }
    for (int k = 0; k < 12; ++k)
        s[k] = _mm512_reduce_add_ps(acc[k]);
}
#endif

/* C_i times the gradient's sum (s[0..2]): the moment matrix s[3..8]
 * inverted by its cofactors, or the lattice's d / n0 where its
 * determinant is under a tenth of the lattice's (too few neighbors, or
 * all in a plane). */
FCL_INLINE float4 mps_gc_solve(const float s[12], const fcl_mps_consts *d)
{
    float gx = s[0], gy = s[1], gz = s[2];
    float axx = s[3], axy = s[4], axz = s[5], ayy = s[6], ayz = s[7], azz = s[8];
    float cxx = ayy * azz - ayz * ayz, cxy = axz * ayz - axy * azz, cxz = axy * ayz - axz * ayy;
    float cyy = axx * azz - axz * axz, cyz = axy * axz - axx * ayz, czz = axx * ayy - axy * axy;
    float det = axx * cxx + axy * cxy + axz * cxz;
    if (!(det * d->grad_k * d->grad_k * d->grad_k > 0.1f))
        return fcl_f4(d->grad_k * gx, d->grad_k * gy, d->grad_k * gz, 0.0f);
    float inv = 1.0f / det;
    return fcl_f4(inv * (cxx * gx + cxy * gy + cxz * gz), inv * (cxy * gx + cyy * gy + cyz * gz),
                  inv * (cxz * gx + cyz * gy + czz * gz), 0.0f);
}

FCL_INLINE void mps_correct_gc(uint i, GLOBAL const float4 *pos, GLOBAL const float4 *bpos,
                               GLOBAL const uint *fcount, GLOBAL const uint *fidx, GLOBAL const uint *bcount,
                               GLOBAL const uint *bidx, const fcl_nlist_info *fl, const fcl_nlist_info *bl,
                               GLOBAL const float *prs, GLOBAL const float4 *vel, GLOBAL float4 *vev,
                               GLOBAL float4 *dx, GLOBAL const float *rhob, GLOBAL const float *xw, uint off,
                               const fcl_sph_consts *c, const fcl_mps_consts *d, float4 pi, fcl_images img)
{
    float rho_i = rhob[i], own = mps_pressure(prs[i], d);
    float ds = -0.5f * d->ds_k / d->dt;
    float s[12];
    for (int k = 0; k < 12; ++k)
        s[k] = 0.0f;
#ifdef FCL_AVX512
    if (fl->kstride == 1u)
        mps_gc_fluid16(i, pi, img, own, rho_i, pos, prs, rhob, fidx + i * fl->pstride, nl_len(fcount, i, fl), c, d,
                       s);
    else
#endif
    {
        MPS_FLUID(i, j, m, e) {
            float4 r;
            float r2, rho_j, q;
            if (!mps_grad_entry(i, j, m, pi, img, pos, prs, rhob, rho_i, c, d, &r, &r2, &rho_j, &q, 0))
                continue;
            float wr = mps_w(r2, d->re_n, d) / (r2 > d->rmin2 ? r2 : d->rmin2);
            mps_gc_pair(r, r2, (q - own) * wr * 2.0f / (rho_i + rho_j), wr, ds, d->ds_r2, d, s);
        }
    }
    MPS_BOUNDARY(i, b, mb, e) {
        float4 r;
        float r2, wr, q, k;
        if (!mps_grad_bentry(b, mb, img, pi, own, rho_i, bpos, xw, off, c, d, &r, &r2, &wr, &q, &k))
            continue;
        /* Two-sided at a wall: a fixed neighbor within 1.1 l0 holds i at l0.
         * A fluid-wall pair rests at l0 while fluid pairs rest a little
         * under it, so a push-only term let the compressed fluid press the
         * wall row into the wall with nothing restoring it: a column in
         * solved wall particles at 0.01 Pa s moved from 1.2 s (0.36 m/s at
         * 2 s; now 0.0025). The pull grows as s (r - l0) / dt up to
         * 1.05 l0 and falls back to 0 at 1.1 l0 (at most 0.01 m/s at 1 cm
         * and 1 ms: no grip on a splash): continuous, because a pull cut
         * off at 1.05 l0 jumped by 0.01 m/s as a pair crossed it, and so
         * turned the backends' rounding into 1e-5 m in a step. */
        mps_gc_pair(r, r2, (q - own) * k, wr, 2.0f * ds, 1.21f * d->ds_r2, d, s);
    }
    float4 g = mps_gc_solve(s, d), u = vel[i];
    float4 du = fcl_f4(-d->dt * g.x + s[9], -d->dt * g.y + s[10], -d->dt * g.z + s[11], 0.0f);
    vev[i] = fcl_f4(u.x + du.x, u.y + du.y, u.z + du.z, 0.0f);
    dx[i] = fcl_f4(d->dt * du.x, d->dt * du.y, d->dt * du.z, 0.0f);
}

#ifdef FCL_AVX512
/* K&O's gradient sum in one walk (mps_grad_fluid16, then the boundary):
 * the native backend on an AVX-512 host, lists of kstride 1. */
FCL_INLINE16 float4 mps_grad_ko16(uint i, float4 pi, fcl_images img, GLOBAL const float4 *pos, GLOBAL const float4 *bpos,
                                GLOBAL const uint *fcount, GLOBAL const uint *fidx, GLOBAL const uint *bcount,
                                GLOBAL const uint *bidx, const fcl_nlist_info *fl, const fcl_nlist_info *bl,
                                GLOBAL const float *prs, GLOBAL const float *rhob, GLOBAL const float *xw, uint off,
                                const fcl_sph_consts *c, const fcl_mps_consts *d)
{
    float s[8], rho_i = rhob[i], own = mps_pressure(prs[i], d);
    float lo = mps_grad_fluid16(i, pi, img, own, rho_i, pos, prs, rhob, fidx + i * fl->pstride, nl_len(fcount, i, fl),
                                c, d, s);
    lo = mps_grad_boundary(i, pi, img, own, rho_i, own < lo ? own : lo, bpos, bcount, bidx, bl, xw, off, c, d, s);
    return mps_grad_join(s, own, lo);
}
#endif

/* K&O's gradient sum, sum_j (q_j - phat) w r_ij / r^2 / rho, over the
 * fluid entries (an image's hydrostatic share along its own axis,
 * mps_ghost3) and the boundary's (mps_grad_bentry), as mps_grad_join
 * puts it together. */
FCL_INLINE float4 mps_grad_ko(uint i, float4 pi, fcl_images img, GLOBAL const float4 *pos, GLOBAL const float4 *bpos,
                              GLOBAL const uint *fcount, GLOBAL const uint *fidx, GLOBAL const uint *bcount,
                              GLOBAL const uint *bidx, const fcl_nlist_info *fl, const fcl_nlist_info *bl,
                              GLOBAL const float *prs, GLOBAL const float *rhob, GLOBAL const float *xw, uint off,
                              const fcl_sph_consts *c, const fcl_mps_consts *d)
{
    float lo = mps_pmin(i, pi, img, pos, bpos, prs, fcount, fidx, bcount, bidx, fl, bl, rhob, xw, off, c, d);
    float rho_i = rhob[i];
    float own = mps_pressure(prs[i], d), s[8] = { 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f };
    MPS_FLUID(i, j, m, e) {
        float4 r, q;
        float r2, rho_j;
        if (!mps_grad_entry(i, j, m, pi, img, pos, prs, rhob, rho_i, c, d, &r, &r2, &rho_j, 0, &q))
            continue;
        /* 1 / rho between phases: 2 / (rho_i + rho_j), as the equation's
         * weights (else a light particle under a heavy one is thrown). */
        float wr = mps_w(r2, d->re_n, d) / (r2 > d->rmin2 ? r2 : d->rmin2);
        float f = wr * 2.0f / (rho_i + rho_j);
        float f0 = d->smooth || rho_j == rho_i ? f : wr * 2.0f / (rho_i + rho_i);   /* f to the bit at rho_j = rho_i */
        s[0] += (q.x - own) * f * r.x; s[1] += (q.y - own) * f * r.y; s[2] += (q.z - own) * f * r.z;
        s[3] += f0 * r.x; s[4] += f0 * r.y; s[5] += f0 * r.z;
        s[6] += f; s[7] += f0;
    }
    MPS_BOUNDARY(i, b, mb, e) {
        float4 r;
        float r2, wr, q, kb;
        if (!mps_grad_bentry(b, mb, img, pi, own, rho_i, bpos, xw, off, c, d, &r, &r2, &wr, &q, &kb))
            continue;
        /* A wall unknown's pair density is the equation's (mps_grad_bentry). */
        float k0 = d->smooth ? kb : d->walls ? wr * 2.0f / (rho_i + rho_i) : wr / rho_i;
        s[0] += (q - own) * kb * r.x; s[1] += (q - own) * kb * r.y; s[2] += (q - own) * kb * r.z;
        s[3] += k0 * r.x; s[4] += k0 * r.y; s[5] += k0 * r.z;
        s[6] += kb; s[7] += k0;
    }
    return mps_grad_join(s, own, lo);
}

/* The pressure gradient (ko: with phat; gc: mps_correct_gc), the final
 * velocity into vev and the position change into dx (applied by
 * mps_apply once every particle has read the positions). */
FCL_INLINE void mps_correct_item(uint i, GLOBAL const float4 *pos, GLOBAL const float4 *bpos,
                                 GLOBAL const uint *fcount, GLOBAL const uint *fidx, GLOBAL const uint *bcount,
                                 GLOBAL const uint *bidx, const fcl_nlist_info *fl, const fcl_nlist_info *bl,
                                 GLOBAL const float *prs, GLOBAL const float4 *vel, GLOBAL float4 *vev,
                                 GLOBAL float4 *dx, GLOBAL const float *rhob, GLOBAL const float *xw, uint off,
                                 const fcl_sph_consts *c, const fcl_mps_consts *d)
{
    float4 pi = pos[i];
    fcl_images img;
    near_walls_within(pi, c, fl->r, &img);
    float k = d->grad_k * d->dt;             /* dt d / n0; the 1 / rho is per pair */
    if (d->grad) {
        mps_correct_gc(i, pos, bpos, fcount, fidx, bcount, bidx, fl, bl, prs, vel, vev, dx, rhob, xw, off, c, d, pi,
                       img);
        return;
    }
    float4 g, u = vel[i];
#ifdef FCL_AVX512
    if (fl->kstride == 1u)
        g = mps_grad_ko16(i, pi, img, pos, bpos, fcount, fidx, bcount, bidx, fl, bl, prs, rhob, xw, off, c, d);
    else
#endif
        g = mps_grad_ko(i, pi, img, pos, bpos, fcount, fidx, bcount, bidx, fl, bl, prs, rhob, xw, off, c, d);
    float4 du = fcl_f4(-k * g.x, -k * g.y, -k * g.z, 0.0f);
    vev[i] = fcl_f4(u.x + du.x, u.y + du.y, u.z + du.z, 0.0f);
    dx[i] = fcl_f4(d->dt * du.x, d->dt * du.y, d->dt * du.z, 0.0f);
}
