/* mps.cl - the moving particle semi-implicit method (Koshizuka & Oka
 * 1996, as Premoze et al. 2003 use it; ../shared/SEED-NOTES.md 4) with
 * the weight w(r) = re / r - 1 (r < re) and d = 3:
 *
 * viscosity:  u*_i = u_i + dt (nu (2d / (lambda n0_l)) sum_j (u_j - u_i) w_l + a_tension + g)
 * predict:    x*_i = x_i + dt u*_i, walls and solids
 * density:    n*_i = sum_j w_n(r_ij) over fluid (and wall images) and
 *             boundary particles; free surface where n*_i < beta n0; the
 *             rho of assemble and correct (the phase's, or smoothed)
 * assemble:   sum_j (p_i - p_j) w_l(r_ij) = K (n*_i - n0) / n0 + ghosts,
 *             K = lambda n0_l rho / (2 d dt^2): the PPE
 *             <lap p>_i = -(rho / dt^2) (n*_i - n0) / n0 times
 *             -lambda n0_l / (2d), an M-matrix A (diagonal d_i = sum of
 *             the weights, off-diagonal -w_l per entry), SPD once a free
 *             surface pins it; surface rows are p_i = 0.
 * (conjugate gradients on A p = b: host/core/pcg.c)
 * correct:    (kernels/mps_grad.cl) mps.gradient = ko: (grad p / rho)_i = (d / n0) sum_j (p_j - phat_i)
 *             r_ij / |r_ij|^2 w_n 2 / (rho_i + rho_j), phat_i the least pressure
 *             around i (K&O: keeps every pair repulsive); gc: C_i sum_j
 *             (p_j - p_i) ..., C_i the inverse moment matrix (mps_correct_gc),
 *             with mps.stabilization's close-pair term; u = u* - dt (grad p / rho),
 *             x = x* + dt (u - u*)
 *
 * Ghosts: a wall image of j stands for pressure p_j + rho g . (x_g - x_j)
 * and a boundary particle (or i's own image) for p_i + rho g . (x_g - x_i):
 * a Neumann wall, dp/dn = rho g . n, that carries the hydrostatic
 * gradient (K&O's gradient takes an image's share per axis, mps_ghost3).
 * Terms in p_j stay in the matrix (the same weight both ways,
 * reflections preserve distances, so A stays symmetric); the rest move
 * to b. So boundary particles (every layer) complete n* and push through
 * the gradient, but add no unknowns.
 * Invariant: a list plane entry (coef) is w_l of a pair whose other end is
 * an unknown (not at the surface, not i itself), else 0; surface rows
 * have diag 1 and b 0, so the CG keeps their pressure at 0.
 */

#define MPS_FLUID(i, j, m, e) forall_neighbors_at(fl, fcount, fidx, i, j, m, e)
#define MPS_BOUNDARY(i, b, m, e) forall_neighbors_at(bl, bcount, bidx, i, b, m, e)

/* w(r) = re / r - 1 inside re, with r kept above r_min (coincident
 * particles would have an infinite weight). r2 < re^2 is checked by the
 * caller. */
FCL_INLINE float mps_w(float r2, float re, const fcl_mps_consts *d)
{
    float r = FCL_SQRT(r2 > d->rmin2 ? r2 : d->rmin2);
    return re / r - 1.0f;
}

/* rho_s g . (x_g - x_s): a ghost's pressure above its source's, rho_s
 * the source particle's density. */
FCL_INLINE float mps_ghost(float4 xg, float4 xs, float rho_s, const fcl_sph_consts *c)
{
    return rho_s * (c->gravity.x * (xg.x - xs.x) + c->gravity.y * (xg.y - xs.y) + c->gravity.z * (xg.z - xs.z));
}

/* mps_ghost's share along each axis (.w: 0): what K&O's gradient
 * (mps.gradient = ko) adds along that axis only. The hydrostatic share
 * holds the fluid off a floor; taken along the whole image vector, a
 * floor image diagonal across a side wall pushed a particle with no
 * neighbor on its other side away from that wall (an isolated particle
 * in a corner slid off at 0.046 m/s, 0.033 along x and z). A symmetric
 * stencil's lateral shares cancel, so the bulk loses nothing. */
FCL_INLINE float4 mps_ghost3(float4 xg, float4 xs, float rho_s, const fcl_sph_consts *c)
{
    return fcl_f4(rho_s * (c->gravity.x * (xg.x - xs.x)), rho_s * (c->gravity.y * (xg.y - xs.y)),
                  rho_s * (c->gravity.z * (xg.z - xs.z)), 0.0f);
}

/* |a - b|^2 as every pass computes it (pbf_r2 of pbf_rij), so the two
 * ends of a fluid-wall pair get the same bits. */
FCL_INLINE float mps_d2(float4 a, float4 b)
{
    return pbf_r2(fcl_f4(a.x - b.x, a.y - b.y, a.z - b.z, 0.0f));   /* pbf_rij's, no image */
}

/* The weight of a fluid-wall pair in the pressure equation with wall
 * unknowns (mps_walls.cl): rho_j the fluid end's density, the wall's
 * being rho0. */
FCL_INLINE float mps_wall_weight(float r2, float rho_j, const fcl_mps_consts *d)
{
    return mps_w(r2, d->re_l, d) * 2.0f * d->rho / (d->rho + rho_j);
}

/* A particle's phase density and dynamic viscosity (its pos.w indexes
 * the phase table; without phases, material.*). */
FCL_INLINE float mps_rho_of(float4 p, GLOBAL const fcl_phase *ph, const fcl_mps_consts *d)
{
    return d->phases ? ph[(uint)p.w].density : d->rho;
}

FCL_INLINE float mps_mu_of(float4 p, GLOBAL const fcl_phase *ph, const fcl_mps_consts *d)
{
    return d->phases ? ph[(uint)p.w].viscosity : d->mu;
}

#ifdef FCL_AVX512
/* The 16-lane twins of MPS's list walks (the native backend on an AVX-512
 * host, lists of kstride 1): each pair as the scalar pass forms it, the
 * lanes added at the end (another order of the sums: within the
 * backends' agreement).
 *
 * nl_lanes16_load's entries ent[k .. k + 15] of n; returns the live lanes
 * within re2 of pi that are not particle i itself (j == i unmirrored):
 * the pairs a scalar walk keeps. */
FCL_INLINE16 __mmask16 mps_entries16(const uint *ent, uint k, uint n, uint i, float4 pi, fcl_images img, float re2,
                                   const float4 *pos, nl_lanes16 *L)
{
    nl_lanes16_load(ent + k, n - k, pos, pi, img, L);
    __mmask16 self = _mm512_cmpeq_epi32_mask(L->j, _mm512_set1_epi32((int)i)) & _mm512_testn_epi32_mask(L->m, L->m);
    return _mm512_mask_cmp_ps_mask(L->live & (__mmask16)~self, L->r2, _mm512_set1_ps(re2), _CMP_LT_OQ);
}

/* rho_j g . (image - source) lane-wise (mps_ghost). */
FCL_INLINE __m512 mps_ghost16(const nl_lanes16 *L, __m512 rho_j, const fcl_sph_consts *c)
{
    __m512 gx = _mm512_mul_ps(_mm512_set1_ps(c->gravity.x), _mm512_sub_ps(L->q.x, L->src.x));
    __m512 gy = _mm512_mul_ps(_mm512_set1_ps(c->gravity.y), _mm512_sub_ps(L->q.y, L->src.y));
    __m512 gz = _mm512_mul_ps(_mm512_set1_ps(c->gravity.z), _mm512_sub_ps(L->q.z, L->src.z));
    return _mm512_mul_ps(rho_j, _mm512_add_ps(_mm512_add_ps(gx, gy), gz));
}

/* mps_w lane-wise: re / sqrt(max(r2, rmin2)) - 1. */
FCL_INLINE __m512 mps_w16(__m512 r2, float re, const fcl_mps_consts *d)
{
    __m512 r = _mm512_sqrt_ps(_mm512_max_ps(r2, _mm512_set1_ps(d->rmin2)));
    return _mm512_sub_ps(_mm512_div_ps(_mm512_set1_ps(re), r), _mm512_set1_ps(1.0f));
}

/* mps_number_density's fluid sum. */
FCL_INLINE16 float mps_nd_fluid16(uint i, float4 pi, fcl_images img, const float4 *pos, const uint *ent, uint n,
                                const fcl_mps_consts *d)
{
    __m512 sum = _mm512_setzero_ps();
    for (uint k = 0u; k < n; k += 16u) {
        nl_lanes16 L;
        __mmask16 in = mps_entries16(ent, k, n, i, pi, img, d->re_n2, pos, &L);
        sum = _mm512_mask_add_ps(sum, in, sum, mps_w16(L.r2, d->re_n, d));
    }
    return _mm512_reduce_add_ps(sum);
}

/* mps_viscosity_item's Laplacian sums without surface tension. */
FCL_INLINE16 void mps_visc_fluid16(uint i, float4 pi, float4 ui, fcl_images img, const float4 *pos, const float4 *vev,
                                 const uint *ent, uint n, const fcl_mps_consts *d, float *lx, float *ly, float *lz)
{
    const __m512 zero = _mm512_setzero_ps(), neg0 = _mm512_set1_ps(-0.0f);
    const float *vf = (const float *)vev;
    __m512 sx = zero, sy = zero, sz = zero;
    for (uint k = 0u; k < n; k += 16u) {
        nl_lanes16 L;
        __mmask16 in = mps_entries16(ent, k, n, i, pi, img, d->re_l2, pos, &L);
        __m512i j4 = _mm512_slli_epi32(L.j, 2), m = L.m;
        /* mirror_vel: the mirrored axes' components flip. */
        __m512 ux = _mm512_mask_i32gather_ps(zero, in, j4, vf, 4);
        __m512 uy = _mm512_mask_i32gather_ps(zero, in, j4, vf + 1, 4);
        __m512 uz = _mm512_mask_i32gather_ps(zero, in, j4, vf + 2, 4);
        ux = _mm512_mask_xor_ps(ux, mirror16_flips(m, 0u), ux, neg0);
        uy = _mm512_mask_xor_ps(uy, mirror16_flips(m, 1u), uy, neg0);
        uz = _mm512_mask_xor_ps(uz, mirror16_flips(m, 2u), uz, neg0);
        __m512 w = mps_w16(L.r2, d->re_l, d);
        sx = _mm512_mask_add_ps(sx, in, sx, _mm512_mul_ps(_mm512_sub_ps(ux, _mm512_set1_ps(ui.x)), w));
        sy = _mm512_mask_add_ps(sy, in, sy, _mm512_mul_ps(_mm512_sub_ps(uy, _mm512_set1_ps(ui.y)), w));
        sz = _mm512_mask_add_ps(sz, in, sz, _mm512_mul_ps(_mm512_sub_ps(uz, _mm512_set1_ps(ui.z)), w));
    }
    *lx = _mm512_reduce_add_ps(sx);
    *ly = _mm512_reduce_add_ps(sy);
    *lz = _mm512_reduce_add_ps(sz);
}
#endif

/* The explicit part: viscosity over fluid neighbors within re_l (wall
 * images with mirrored velocities: free slip), surface tension by the
 * selected model of forces.cl over neighbors within h (the seed's
 * Appendix A, its own model, is missing from its text), and gravity, from
 * the velocity at t into vel. rho is the last step's rho0 n / n0. */
FCL_INLINE void mps_viscosity_item(uint i, GLOBAL const float4 *pos, GLOBAL const float4 *vev,
                                   GLOBAL float4 *vel, GLOBAL const uint *fcount, GLOBAL const uint *fidx,
                                   const fcl_nlist_info *fl, GLOBAL const float *rho, GLOBAL const float4 *normals,
                                   GLOBAL const fcl_phase *phases, const fcl_sph_consts *c, const fcl_mps_consts *d)
{
    float4 pi = pos[i], ui = vev[i], ni = normals[i];
    fcl_images img;
    near_walls_within(pi, c, fl->r, &img);
    float lx = 0.0f, ly = 0.0f, lz = 0.0f;
    uint tension = tension_active(c);
    fcl_tension_sum t;
    tension_sum_clear(&t);
#ifdef FCL_AVX512
    if (fl->kstride == 1u && !tension)
        mps_visc_fluid16(i, pi, ui, img, pos, vev, fidx + i * fl->pstride, nl_len(fcount, i, fl), d, &lx, &ly, &lz);
    else
#endif
    MPS_FLUID(i, j, m, e) {
        float4 r = pbf_rij(pi, pos[j], m, img);
        float r2 = pbf_r2(r);
        if (j == i && m == 0u)
            continue;
        if (tension && r2 < c->h2)
            tension_pair(&t, r, j, m != 0u, ni, rho[i], rho, normals, c);
        if (r2 >= d->re_l2)
            continue;
        float w = mps_w(r2, d->re_l, d);
        float4 uj = mirror_vel(vev[j], m);
        lx += (uj.x - ui.x) * w; ly += (uj.y - ui.y) * w; lz += (uj.z - ui.z) * w;
    }
    float4 a = tension ? tension_accel(&t, rho[i], c) : fcl_f4(0.0f, 0.0f, 0.0f, 0.0f);
    float k = d->lap_k * mps_mu_of(pi, phases, d) / mps_rho_of(pi, phases, d), dt = d->dt;
    vel[i] = fcl_f4(ui.x + dt * (k * lx + a.x + c->gravity.x), ui.y + dt * (k * ly + a.y + c->gravity.y),
                    ui.z + dt * (k * lz + a.z + c->gravity.z), 0.0f);
}

/* A moved position p with velocity v: the normal speed into a wall
 * reflected with the restitution (tested before the clamp, as the other
 * integrators do), the position clamped inside the walls, then out of
 * box and sphere solids. */
FCL_INLINE void mps_walls(float4 *p, float4 *v, GLOBAL const fcl_solid *solids, const fcl_sph_consts *c)
{
    float r = c->radius, rest = c->restitution;
    float4 lo = fcl_f4(c->domain_min.x + r, c->domain_min.y + r, c->domain_min.z + r, 0.0f);
    float4 hi = fcl_f4(c->domain_max.x - r, c->domain_max.y - r, c->domain_max.z - r, 0.0f);
    float4 q = *p, u = *v;
    u = fcl_f4(wall_vel(q.x, u.x, lo.x, hi.x, rest), wall_vel(q.y, u.y, lo.y, hi.y, rest),
               wall_vel(q.z, u.z, lo.z, hi.z, rest), 0.0f);
    q = fcl_f4(wall_pos(q.x, lo.x, hi.x), wall_pos(q.y, lo.y, hi.y), wall_pos(q.z, lo.z, hi.z), q.w);
    solids_project(&q, &u, 0, solids, c);
    *p = wall_keep(q, c->domain_min, c->domain_max, r);
    *v = u;
}

/* x* = x + dt u*, kept inside the walls and out of box and sphere
 * solids; u* loses its normal speed into a wall or solid as the other
 * integrators' velocities do (restitution), or a particle resting on the
 * floor would keep its fall speed, clamped back every step, and feed
 * the pressure equation a compression it cannot remove (a block dropped
 * onto the floor blew up at 0.5 s). */
FCL_INLINE void mps_predict_item(uint i, GLOBAL float4 *pos, GLOBAL float4 *vel, GLOBAL const fcl_solid *solids,
                                 const fcl_sph_consts *c, const fcl_mps_consts *d)
{
    float4 p = pos[i], v = vel[i];
    float dt = d->dt;
    p = fcl_f4(p.x + dt * v.x, p.y + dt * v.y, p.z + dt * v.z, p.w);
    mps_walls(&p, &v, solids, c);
    pos[i] = p;
    vel[i] = v;
}

/* One fluid pair's collision impulse (the K&O model), added to a. */
FCL_INLINE void mps_collide_pair(float4 pi, float4 ui, float4 pj, float4 uj, float share, const fcl_mps_consts *d,
                                 float *ax, float *ay, float *az)
{
    float4 r = fcl_f4(pj.x - pi.x, pj.y - pi.y, pj.z - pi.z, 0.0f);
    float r2 = pbf_r2(r);
    if (r2 >= d->coll_r2 || r2 <= 0.0f)
        return;
    float inv = 1.0f / FCL_SQRT(r2);
    float vn = ((uj.x - ui.x) * r.x + (uj.y - ui.y) * r.y + (uj.z - ui.z) * r.z) * inv;
    if (vn >= 0.0f)
        return;
    float k = share * vn * inv;
    *ax += k * r.x; *ay += k * r.y; *az += k * r.z;
}

/* The collision model (Koshizuka et al.; Lee et al. 2011): pairs closer
 * than coll_r that approach each other exchange (1 + e) / 2 of their
 * normal relative speed (a wall image with its mirrored velocity; a
 * boundary particle, fixed, takes none of it: i gets 1 + e). Jacobi:
 * every u* is read before any changes; vout gets the new one, dx the
 * position change it makes over dt. Without it, a free-surface jet (p =
 * 0) runs into a wall or obstacle unchecked until its number density
 * jumps, and the pressure that follows blew the dam break up (README). */
FCL_INLINE void mps_collide_item(uint i, GLOBAL const float4 *pos, GLOBAL const float4 *bpos,
                                 GLOBAL const uint *fcount, GLOBAL const uint *fidx, GLOBAL const uint *bcount,
                                 GLOBAL const uint *bidx, const fcl_nlist_info *fl, const fcl_nlist_info *bl,
                                 GLOBAL const float4 *vel, GLOBAL float4 *vout, GLOBAL float4 *dx,
                                 const fcl_sph_consts *c, const fcl_mps_consts *d)
{
    float4 pi = pos[i], ui = vel[i];
    fcl_images img;
    near_walls_within(pi, c, fl->r, &img);
    float ax = 0.0f, ay = 0.0f, az = 0.0f, share = 0.5f * (1.0f + d->coll_e);
#ifdef FCL_AVX512
    /* Pairs within the collision distance are few among the list's: the
     * 16-lane distance test finds them, the scalar body runs on them in
     * list order (the same sums). */
    if (fl->kstride == 1u) {
        uint base = i * fl->pstride, n = nl_len(fcount, i, fl);
        for (uint k0 = 0u; k0 < n; k0 += 16u)
            for (__mmask16 hit = nl_close16(fidx + base + k0, n - k0, pos, pi, img, d->coll_r2); hit;
                 hit &= (__mmask16)(hit - 1u)) {
                uint e = base + k0 + (uint)__builtin_ctz(hit), j = fidx[e] & NL_INDEX, m = fidx[e] >> NL_SHIFT;
                mps_collide_pair(pi, ui, mirror(pos[j], m, img), mirror_vel(vel[j], m), share, d, &ax, &ay, &az);
            }
    } else
#endif
    MPS_FLUID(i, j, m, e) {
        mps_collide_pair(pi, ui, mirror(pos[j], m, img), mirror_vel(vel[j], m), share, d, &ax, &ay, &az);
    }
    MPS_BOUNDARY(i, b, mb, e) {
        float4 pb = mirror(bpos[b], mb, img);
        float4 r = fcl_f4(pb.x - pi.x, pb.y - pi.y, pb.z - pi.z, 0.0f);
        float r2 = pbf_r2(r);
        if (r2 >= d->coll_r2 || r2 <= 0.0f)
            continue;
        float inv = 1.0f / FCL_SQRT(r2);
        float vn = -(ui.x * r.x + ui.y * r.y + ui.z * r.z) * inv;
        if (vn >= 0.0f)
            continue;
        float k = 2.0f * share * vn * inv;
        ax += k * r.x; ay += k * r.y; az += k * r.z;
    }
    vout[i] = fcl_f4(ui.x + ax, ui.y + ay, ui.z + az, 0.0f);
    dx[i] = fcl_f4(d->dt * ax, d->dt * ay, d->dt * az, 0.0f);
}

/* Number density within re (fluid with wall images, and boundary). */
FCL_INLINE float mps_number_density(uint i, float4 pi, fcl_images img, GLOBAL const float4 *pos,
                                    GLOBAL const float4 *bpos, GLOBAL const uint *fcount,
                                    GLOBAL const uint *fidx, GLOBAL const uint *bcount, GLOBAL const uint *bidx,
                                    const fcl_nlist_info *fl, const fcl_nlist_info *bl, const fcl_mps_consts *d)
{
    float n = 0.0f;
#ifdef FCL_AVX512
    if (fl->kstride == 1u)
        n = mps_nd_fluid16(i, pi, img, pos, fidx + i * fl->pstride, nl_len(fcount, i, fl), d);
    else
#endif
    MPS_FLUID(i, j, m, e) {
        float r2 = pbf_r2(pbf_rij(pi, pos[j], m, img));
        if (r2 < d->re_n2 && !(j == i && m == 0u))
            n += mps_w(r2, d->re_n, d);
    }
    MPS_BOUNDARY(i, b, mb, e) {
        float r2 = pbf_r2(pbf_rij(pi, bpos[b], mb, img));
        if (r2 < d->re_n2)
            n += mps_w(r2, d->re_n, d);
    }
    return n;
}

/* The density the pressure passes use: the phase's, or with
 * mps.density_smoothing the phases' densities averaged over i and its
 * fluid neighbors within re_n by the weight (i itself at w(l0)), so a
 * water-air interface spans a few particles instead of a jump of 1000
 * (Shakibaeinia & Jin 2012, Khayyer & Gotoh 2013). Mirror images are
 * their sources' phase; boundary particles carry none. */
FCL_INLINE float mps_smoothed_rho(uint i, float4 pi, fcl_images img, GLOBAL const float4 *pos,
                                  GLOBAL const uint *fcount, GLOBAL const uint *fidx, const fcl_nlist_info *fl,
                                  GLOBAL const fcl_phase *phases, const fcl_mps_consts *d)
{
    float rho_i = mps_rho_of(pi, phases, d);
    if (!d->smooth || !d->phases)
        return rho_i;
    float sw = d->self_w, srho = d->self_w * rho_i;
    MPS_FLUID(i, j, m, e) {
        float r2 = pbf_r2(pbf_rij(pi, pos[j], m, img));
        if (r2 < d->re_n2 && !(j == i && m == 0u)) {
            float w = mps_w(r2, d->re_n, d);
            sw += w;
            srho += w * mps_rho_of(pos[j], phases, d);
        }
    }
    return srho / sw;
}

/* n*_i, the free-surface flag (1: p = 0) and the density of the
 * pressure passes. */
FCL_INLINE void mps_density_item(uint i, GLOBAL const float4 *pos, GLOBAL const float4 *bpos,
                                 GLOBAL const uint *fcount, GLOBAL const uint *fidx, GLOBAL const uint *bcount,
                                 GLOBAL const uint *bidx, const fcl_nlist_info *fl, const fcl_nlist_info *bl,
                                 GLOBAL float *nd, GLOBAL float *surf, GLOBAL float *rhob,
                                 GLOBAL const fcl_phase *phases, const fcl_sph_consts *c, const fcl_mps_consts *d)
{
    float4 pi = pos[i];
    fcl_images img;
    near_walls_within(pi, c, fl->r, &img);
    float n = mps_number_density(i, pi, img, pos, bpos, fcount, fidx, bcount, bidx, fl, bl, d);
    nd[i] = n;
    surf[i] = n < d->beta * d->n0 ? 1.0f : 0.0f;
    rhob[i] = mps_smoothed_rho(i, pi, img, pos, fcount, fidx, fl, phases, d);
}

/* A compressible phase's share of its particles' diagonal (phases[k].
 * sound_speed c > 0; 0 for the others): the density change the pressure
 * itself makes, n/n0 - 1 = p / (rho c^2), kept in the equation, so it
 * reads sum_j (p_i - p_j) w_ij + comp_k p_i / (rho c^2) = b_i (the
 * incompressible-compressible multiphase MPS: an enclosed gas absorbs its
 * own volume errors instead of driving the liquid around it with them). */
FCL_INLINE float mps_compress(float4 pi, GLOBAL const fcl_phase *ph, const fcl_mps_consts *d)
{
    if (!d->phases)
        return 0.0f;
    float c = ph[(uint)pi.w].sound_speed;
    return c > 0.0f ? d->comp_k / (ph[(uint)pi.w].density * c * c) : 0.0f;
}

#ifdef FCL_AVX512
/* mps_assemble_item's fluid entries: each entry's weight as the scalar
 * pass forms it (so the stored matrix is the same), a and g summed 16
 * lanes at a time. */
FCL_INLINE16 void mps_assemble_fluid16(uint i, float4 pi, fcl_images img, uint pinned, float rho_i, const float4 *pos,
                                     const float *rhob, const float *surf, float *coef, const uint *ent, uint n,
                                     const fcl_sph_consts *c, const fcl_mps_consts *d, float *a, float *g)
{
    const __m512 zero = _mm512_setzero_ps();
    __m512 sa = zero, sg = zero;
    for (uint k = 0u; k < n; k += 16u) {
        nl_lanes16 L;
        __mmask16 in = mps_entries16(ent, k, n, i, pi, img, d->re_l2, pos, &L), live = L.live;
        __m512i j = L.j;
        __mmask16 self = _mm512_cmpeq_epi32_mask(j, _mm512_set1_epi32((int)i));
        __m512 rho_j = _mm512_mask_i32gather_ps(_mm512_set1_ps(rho_i), live & (__mmask16)~self, j, rhob, 4);
        __m512 w = _mm512_maskz_div_ps(in, _mm512_mul_ps(_mm512_mul_ps(mps_w16(L.r2, d->re_l, d), _mm512_set1_ps(2.0f)),
                                                         _mm512_set1_ps(d->rho)),
                                       _mm512_add_ps(_mm512_set1_ps(rho_i), rho_j));
        __mmask16 open = live & (__mmask16)~self &
                         _mm512_cmp_ps_mask(_mm512_mask_i32gather_ps(zero, live, j, surf, 4), zero, _CMP_EQ_OQ);
        _mm512_mask_storeu_ps(coef + k, live, pinned ? zero : _mm512_maskz_mov_ps(open, w));
        sa = _mm512_mask_add_ps(sa, (__mmask16)~self, sa, w);
        /* The images' ghosts, i's own images too. */
        sg = _mm512_mask_add_ps(sg, _mm512_test_epi32_mask(L.m, L.m) & live, sg,
                                _mm512_mul_ps(w, mps_ghost16(&L, rho_j, c)));
    }
    *a = _mm512_reduce_add_ps(sa);
    *g = _mm512_reduce_add_ps(sg);
}
#endif

/* Row i of A p = b: the weights of the unknowns beside the list entries,
 * the diagonal, and b with the ghosts' constants. Between phases a pair's
 * weight is scaled by 2 rho0 / (rho_i + rho_j) (the Laplacian of p / rho
 * with a harmonic-mean density, SEED-NOTES 4.5), symmetric in i and j. */
FCL_INLINE void mps_assemble_item(uint i, GLOBAL const float4 *pos, GLOBAL const float4 *bpos,
                                  GLOBAL const uint *fcount, GLOBAL const uint *fidx, GLOBAL const uint *bcount,
                                  GLOBAL const uint *bidx, const fcl_nlist_info *fl, const fcl_nlist_info *bl,
                                  GLOBAL const float *nd, GLOBAL const float *surf, GLOBAL float *coef,
                                  GLOBAL float *diag, GLOBAL float *rhs, GLOBAL float *prs,
                                  GLOBAL const float *rhob, GLOBAL const float *wsurf, GLOBAL float *bcoef,
                                  GLOBAL const fcl_phase *phases, const fcl_sph_consts *c, const fcl_mps_consts *d)
{
    float4 pi = pos[i];
    fcl_images img;
    near_walls_within(pi, c, fl->r, &img);
    uint pinned = surf[i] != 0.0f;
    float a = 0.0f, g = 0.0f, rho_i = rhob[i];
#ifdef FCL_AVX512
    if (fl->kstride == 1u)
        mps_assemble_fluid16(i, pi, img, pinned, rho_i, pos, rhob, surf, coef + i * fl->pstride,
                             fidx + i * fl->pstride, nl_len(fcount, i, fl), c, d, &a, &g);
    else
#endif
    MPS_FLUID(i, j, m, e) {
        float4 pj = mirror(pos[j], m, img);
        float r2 = pbf_r2(pbf_rij(pi, pj, 0u, img));
        uint self = j == i;
        float rho_j = self ? rho_i : rhob[j];
        float w = r2 < d->re_l2 && !(self && m == 0u) ? mps_w(r2, d->re_l, d) * 2.0f * d->rho / (rho_i + rho_j) : 0.0f;
        /* Image of i itself: a ghost of p_i, no matrix entry. */
        coef[e] = pinned || self || surf[j] != 0.0f ? 0.0f : w;
        a += self ? 0.0f : w;
        g += m ? w * mps_ghost(pj, self ? pi : pos[j], rho_j, c) : 0.0f;
    }
    MPS_BOUNDARY(i, b, mb, e) {
        float4 pb = mirror(bpos[b], mb, img);
        float r2 = pbf_r2(pbf_rij(pi, pb, 0u, img));
        if (d->walls) {
            /* Wall unknowns (mps_walls.cl): layer 0 enters the matrix,
             * the dummy layers only n*. */
            float w = r2 < d->re_l2 && pb.w == 0.0f ? mps_wall_weight(r2, rho_i, d) : 0.0f;
            bcoef[e] = pinned || wsurf[b] != 0.0f ? 0.0f : w;
            a += w;
        } else if (r2 < d->re_l2) {
            /* A ghost of p_i: weight rho0 / rho_i times rho_i g . dx. */
            g += mps_w(r2, d->re_l, d) * mps_ghost(pb, pi, d->rho, c);
        }
    }
    /* A row with no neighbor within re_l (possible when re_laplacian <
     * re_density) would be 0 p_i = b: pinned at p = 0 as a surface row,
     * rather than a zero diagonal that Jacobi divides by. No other row
     * holds it (the weights are symmetric). */
    float dg = a + mps_compress(pi, phases, d);
    pinned = pinned || !(dg > 0.0f);
    diag[i] = pinned ? 1.0f : dg;
    rhs[i] = pinned ? 0.0f : d->src_k * (nd[i] - d->n0) / d->n0 + g;
    /* A pinned row starts the solve at its answer, p = 0: from last step's
     * pressure (the warm start) CG drives it only to the tolerance, and 8
     * of 279 surface particles kept up to 0.41 Pa (a review). Then r, z,
     * p and q stay 0 there under every preconditioner. */
    if (pinned)
        prs[i] = 0.0f;
}

/* Row i's off-diagonal weights times x: sum_j coef_ij x_j. */
FCL_INLINE float mps_row_dot(uint i, GLOBAL const float *x, GLOBAL const float *coef, GLOBAL const uint *fcount,
                             GLOBAL const uint *fidx, const fcl_nlist_info *fl)
{
    float s = 0.0f;
    if (fl->kstride == 1u) {
        /* One row's entries together (the CPUs' layout). */
        uint base = i * fl->pstride;
        return nl_gather_dot(coef + base, fidx + base, x, nl_len(fcount, i, fl));
    }
    forall_cross_neighbors_at(fl, fcount, fidx, i, j, e) {
        s += coef[e] * x[j];
    }
    return s;
}

/* Row i's off-diagonal sum, 0 without reading the row where i is pinned
 * at the free surface (its weights are all 0: a fifth of the rows of a
 * developed dam break, and of the matrix's bytes). */
FCL_INLINE float mps_row_sum(uint i, GLOBAL const float *x, GLOBAL const float *coef, GLOBAL const uint *fcount,
                             GLOBAL const uint *fidx, const fcl_nlist_info *fl, GLOBAL const float *surf)
{
    return surf[i] != 0.0f ? 0.0f : mps_row_dot(i, x, coef, fcount, fidx, fl);
}

/* y = A x over the stored weights (surface rows: y_i = x_i). */
FCL_INLINE void mps_matvec_item(uint i, GLOBAL const float *x, GLOBAL float *y, GLOBAL const float *diag,
                                GLOBAL const float *coef, GLOBAL const uint *fcount, GLOBAL const uint *fidx,
                                const fcl_nlist_info *fl, GLOBAL const float *surf)
{
    y[i] = diag[i] * x[i] - mps_row_sum(i, x, coef, fcount, fidx, fl, surf);
}

/* One Jacobi sweep of the polynomial preconditioner: zout = z + D^-1 (r - A z),
 * (I - D^-1 A)^k D^-1 summed over k <= degree: symmetric and positive
 * definite for a weakly diagonally dominant A. */
FCL_INLINE void mps_cg_sweep_item(uint i, GLOBAL const float *zin, GLOBAL float *zout, GLOBAL const float *r,
                                  GLOBAL const float *diag, GLOBAL const float *coef, GLOBAL const uint *fcount,
                                  GLOBAL const uint *fidx, const fcl_nlist_info *fl, GLOBAL const float *surf)
{
    float az = diag[i] * zin[i] - mps_row_sum(i, zin, coef, fcount, fidx, fl, surf);
    zout[i] = zin[i] + (r[i] - az) / diag[i];
}

/* x = x* + dx, then walls (the normal speed reflected with the
 * restitution, as the other integrators do) and solids. */
FCL_INLINE void mps_apply_item(uint i, GLOBAL float4 *pos, GLOBAL float4 *vev, GLOBAL const float4 *dx,
                               GLOBAL const fcl_solid *solids, const fcl_sph_consts *c)
{
    float4 p = pos[i], v = vev[i], e = dx[i];
    p = fcl_f4(p.x + e.x, p.y + e.y, p.z + e.z, p.w);
    mps_walls(&p, &v, solids, c);
    pos[i] = p;
    vev[i] = v;
}

/* The phase index each particle carries in pos.w, as a field. */
FCL_INLINE void mps_phase_of_item(uint i, GLOBAL const float4 *pos, GLOBAL float *out)
{
    out[i] = pos[i].w;
}

/* 1 where a row of the pressure equation does not sum to zero: a surface
 * particle (p = 0) or one of a compressible phase (its diagonal's
 * mps_compress); none of either makes the system singular. */
FCL_INLINE void mps_pinned_item(uint i, GLOBAL const float4 *pos, GLOBAL const float *surf,
                                GLOBAL const fcl_phase *phases, GLOBAL float *pin, const fcl_mps_consts *d)
{
    pin[i] = surf[i] != 0.0f || mps_compress(pos[i], phases, d) > 0.0f ? 1.0f : 0.0f;
}

/* After the step: the density rho0 max(n / n0, 1/4) at the final positions (the
 * step's lists: pairs are tested again), for the statistics and frames,
 * and the pressure for frames. */
FCL_INLINE void mps_finish_item(uint i, GLOBAL const float4 *pos, GLOBAL const float4 *bpos,
                                GLOBAL const uint *fcount, GLOBAL const uint *fidx, GLOBAL const uint *bcount,
                                GLOBAL const uint *bidx, const fcl_nlist_info *fl, const fcl_nlist_info *bl,
                                GLOBAL const float *x, GLOBAL float *rho, GLOBAL float *prs,
                                const fcl_sph_consts *c, const fcl_mps_consts *d)
{
    float4 pi = pos[i];
    fcl_images img;
    near_walls_within(pi, c, fl->r, &img);
    float n = mps_number_density(i, pi, img, pos, bpos, fcount, fidx, bcount, bidx, fl, bl, d) / d->n0;
    /* n excludes the particle itself, so a lone one has n = 0; the floor
     * keeps the tension models' m / rho finite (compression is what the
     * statistics measure, so it changes none of them). */
    rho[i] = c->rest_density * (n > 0.25f ? n : 0.25f);
    prs[i] = x[i];
}
