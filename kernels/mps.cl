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
 * correct:    mps.gradient = ko: (grad p / rho)_i = (d / n0) sum_j (p_j - phat_i)
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
    return pbf_r2(pbf_rij(a, b, 0u, a));
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
FCL_INLINE __mmask16 mps_entries16(const uint *ent, uint k, uint n, uint i, float4 pi, float4 plane, float re2,
                                   const float4 *pos, nl_lanes16 *L)
{
    nl_lanes16_load(ent + k, n - k, pos, pi, plane, L);
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
FCL_INLINE float mps_nd_fluid16(uint i, float4 pi, float4 plane, const float4 *pos, const uint *ent, uint n,
                                const fcl_mps_consts *d)
{
    __m512 sum = _mm512_setzero_ps();
    for (uint k = 0u; k < n; k += 16u) {
        nl_lanes16 L;
        __mmask16 in = mps_entries16(ent, k, n, i, pi, plane, d->re_n2, pos, &L);
        sum = _mm512_mask_add_ps(sum, in, sum, mps_w16(L.r2, d->re_n, d));
    }
    return _mm512_reduce_add_ps(sum);
}

/* mps_viscosity_item's Laplacian sums without surface tension. */
FCL_INLINE void mps_visc_fluid16(uint i, float4 pi, float4 ui, float4 plane, const float4 *pos, const float4 *vev,
                                 const uint *ent, uint n, const fcl_mps_consts *d, float *lx, float *ly, float *lz)
{
    const __m512 zero = _mm512_setzero_ps(), neg0 = _mm512_set1_ps(-0.0f);
    const float *vf = (const float *)vev;
    __m512 sx = zero, sy = zero, sz = zero;
    for (uint k = 0u; k < n; k += 16u) {
        nl_lanes16 L;
        __mmask16 in = mps_entries16(ent, k, n, i, pi, plane, d->re_l2, pos, &L);
        __m512i j4 = _mm512_slli_epi32(L.j, 2), m = L.m;
        /* mirror_vel: the mirrored axes' components flip. */
        __m512 ux = _mm512_mask_i32gather_ps(zero, in, j4, vf, 4);
        __m512 uy = _mm512_mask_i32gather_ps(zero, in, j4, vf + 1, 4);
        __m512 uz = _mm512_mask_i32gather_ps(zero, in, j4, vf + 2, 4);
        ux = _mm512_mask_xor_ps(ux, _mm512_test_epi32_mask(m, _mm512_set1_epi32(1)), ux, neg0);
        uy = _mm512_mask_xor_ps(uy, _mm512_test_epi32_mask(m, _mm512_set1_epi32(2)), uy, neg0);
        uz = _mm512_mask_xor_ps(uz, _mm512_test_epi32_mask(m, _mm512_set1_epi32(4)), uz, neg0);
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
    float4 pi = pos[i], ui = vev[i], plane, ni = normals[i];
    near_walls_within(pi, c, fl->r, &plane);
    float lx = 0.0f, ly = 0.0f, lz = 0.0f;
    uint tension = tension_active(c);
    fcl_tension_sum t;
    tension_sum_clear(&t);
#ifdef FCL_AVX512
    if (fl->kstride == 1u && !tension)
        mps_visc_fluid16(i, pi, ui, plane, pos, vev, fidx + i * fl->pstride, nl_len(fcount, i, fl), d, &lx, &ly, &lz);
    else
#endif
    MPS_FLUID(i, j, m, e) {
        float4 r = pbf_rij(pi, pos[j], m, plane);
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
    float4 pi = pos[i], ui = vel[i], plane;
    near_walls_within(pi, c, fl->r, &plane);
    float ax = 0.0f, ay = 0.0f, az = 0.0f, share = 0.5f * (1.0f + d->coll_e);
#ifdef FCL_AVX512
    /* Pairs within the collision distance are few among the list's: the
     * 16-lane distance test finds them, the scalar body runs on them in
     * list order (the same sums). */
    if (fl->kstride == 1u) {
        uint base = i * fl->pstride, n = nl_len(fcount, i, fl);
        for (uint k0 = 0u; k0 < n; k0 += 16u)
            for (__mmask16 hit = nl_close16(fidx + base + k0, n - k0, pos, pi, plane, d->coll_r2); hit;
                 hit &= (__mmask16)(hit - 1u)) {
                uint e = base + k0 + (uint)__builtin_ctz(hit), j = fidx[e] & NL_INDEX, m = fidx[e] >> NL_SHIFT;
                mps_collide_pair(pi, ui, mirror(pos[j], m, plane), mirror_vel(vel[j], m), share, d, &ax, &ay, &az);
            }
    } else
#endif
    MPS_FLUID(i, j, m, e) {
        mps_collide_pair(pi, ui, mirror(pos[j], m, plane), mirror_vel(vel[j], m), share, d, &ax, &ay, &az);
    }
    MPS_BOUNDARY(i, b, mb, e) {
        float4 pb = bpos[b];
        float4 r = fcl_f4(pb.x - pi.x, pb.y - pi.y, pb.z - pi.z, 0.0f);
        float r2 = pbf_r2(r);
        (void)mb;
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
FCL_INLINE float mps_number_density(uint i, float4 pi, float4 plane, GLOBAL const float4 *pos,
                                    GLOBAL const float4 *bpos, GLOBAL const uint *fcount,
                                    GLOBAL const uint *fidx, GLOBAL const uint *bcount, GLOBAL const uint *bidx,
                                    const fcl_nlist_info *fl, const fcl_nlist_info *bl, const fcl_mps_consts *d)
{
    float n = 0.0f;
#ifdef FCL_AVX512
    if (fl->kstride == 1u)
        n = mps_nd_fluid16(i, pi, plane, pos, fidx + i * fl->pstride, nl_len(fcount, i, fl), d);
    else
#endif
    MPS_FLUID(i, j, m, e) {
        float r2 = pbf_r2(pbf_rij(pi, pos[j], m, plane));
        if (r2 < d->re_n2 && !(j == i && m == 0u))
            n += mps_w(r2, d->re_n, d);
    }
    MPS_BOUNDARY(i, b, mb, e) {
        float r2 = pbf_r2(pbf_rij(pi, bpos[b], mb, plane));
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
FCL_INLINE float mps_smoothed_rho(uint i, float4 pi, float4 plane, GLOBAL const float4 *pos,
                                  GLOBAL const uint *fcount, GLOBAL const uint *fidx, const fcl_nlist_info *fl,
                                  GLOBAL const fcl_phase *phases, const fcl_mps_consts *d)
{
    float rho_i = mps_rho_of(pi, phases, d);
    if (!d->smooth || !d->phases)
        return rho_i;
    float sw = d->self_w, srho = d->self_w * rho_i;
    MPS_FLUID(i, j, m, e) {
        float r2 = pbf_r2(pbf_rij(pi, pos[j], m, plane));
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
    float4 pi = pos[i], plane;
    near_walls_within(pi, c, fl->r, &plane);
    float n = mps_number_density(i, pi, plane, pos, bpos, fcount, fidx, bcount, bidx, fl, bl, d);
    nd[i] = n;
    surf[i] = n < d->beta * d->n0 ? 1.0f : 0.0f;
    rhob[i] = mps_smoothed_rho(i, pi, plane, pos, fcount, fidx, fl, phases, d);
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
FCL_INLINE void mps_assemble_fluid16(uint i, float4 pi, float4 plane, uint pinned, float rho_i, const float4 *pos,
                                     const float *rhob, const float *surf, float *coef, const uint *ent, uint n,
                                     const fcl_sph_consts *c, const fcl_mps_consts *d, float *a, float *g)
{
    const __m512 zero = _mm512_setzero_ps();
    __m512 sa = zero, sg = zero;
    for (uint k = 0u; k < n; k += 16u) {
        nl_lanes16 L;
        __mmask16 in = mps_entries16(ent, k, n, i, pi, plane, d->re_l2, pos, &L), live = L.live;
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
                                  GLOBAL float *diag, GLOBAL float *rhs, GLOBAL const float *rhob,
                                  GLOBAL const float *wsurf, GLOBAL float *bcoef, GLOBAL const fcl_phase *phases,
                                  const fcl_sph_consts *c, const fcl_mps_consts *d)
{
    float4 pi = pos[i], plane;
    near_walls_within(pi, c, fl->r, &plane);
    uint pinned = surf[i] != 0.0f;
    float a = 0.0f, g = 0.0f, rho_i = rhob[i];
#ifdef FCL_AVX512
    if (fl->kstride == 1u)
        mps_assemble_fluid16(i, pi, plane, pinned, rho_i, pos, rhob, surf, coef + i * fl->pstride,
                             fidx + i * fl->pstride, nl_len(fcount, i, fl), c, d, &a, &g);
    else
#endif
    MPS_FLUID(i, j, m, e) {
        float4 pj = mirror(pos[j], m, plane);
        float r2 = pbf_r2(pbf_rij(pi, pj, 0u, plane));
        uint self = j == i;
        float rho_j = self ? rho_i : rhob[j];
        float w = r2 < d->re_l2 && !(self && m == 0u) ? mps_w(r2, d->re_l, d) * 2.0f * d->rho / (rho_i + rho_j) : 0.0f;
        /* Image of i itself: a ghost of p_i, no matrix entry. */
        coef[e] = pinned || self || surf[j] != 0.0f ? 0.0f : w;
        a += self ? 0.0f : w;
        g += m ? w * mps_ghost(pj, self ? pi : pos[j], rho_j, c) : 0.0f;
    }
    MPS_BOUNDARY(i, b, mb, e) {
        float4 pb = bpos[b];
        float r2 = pbf_r2(pbf_rij(pi, pb, mb, plane));
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

/* The pressure the gradient sees: negative values clamped with
 * mps.clamp_negative (a tension the particle method cannot carry). */
FCL_INLINE float mps_pressure(float p, const fcl_mps_consts *d)
{
    return d->clamp && p < 0.0f ? 0.0f : p;
}

/* A fluid entry of i's list as the gradients read it: r = x_j - x_i (j's
 * image), r2, rho_j and q_j, the neighbor's pressure (an image's with its
 * ghost's hydrostatic share); 0 for an entry beyond re_n or i itself. */
FCL_INLINE int mps_grad_entry(uint i, uint j, uint m, float4 pi, float4 plane, GLOBAL const float4 *pos,
                              GLOBAL const float *prs, GLOBAL const float *rhob, float rho_i, const fcl_sph_consts *c,
                              const fcl_mps_consts *d, float4 *r, float *r2, float *rho_j, float *q)
{
    float4 pj = mirror(pos[j], m, plane);
    *r = fcl_f4(pj.x - pi.x, pj.y - pi.y, pj.z - pi.z, 0.0f);
    *r2 = pbf_r2(*r);
    if (*r2 >= d->re_n2 || (j == i && m == 0u))
        return 0;
    *rho_j = j == i ? rho_i : rhob[j];
    *q = mps_pressure(prs[j], d) + (m ? mps_ghost(pj, j == i ? pi : pos[j], *rho_j, c) : 0.0f);
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
FCL_INLINE int mps_grad_bentry(uint b, float4 pi, float own, float rho_i, GLOBAL const float4 *bpos,
                               GLOBAL const float *xw, uint off, const fcl_sph_consts *c, const fcl_mps_consts *d,
                               float4 *r, float *r2, float *wr, float *q, float *k)
{
    float4 pb = bpos[b];
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
FCL_INLINE float mps_pmin(uint i, float4 pi, float4 plane, GLOBAL const float4 *pos, GLOBAL const float4 *bpos,
                          GLOBAL const float *prs, GLOBAL const uint *fcount, GLOBAL const uint *fidx,
                          GLOBAL const uint *bcount, GLOBAL const uint *bidx, const fcl_nlist_info *fl,
                          const fcl_nlist_info *bl, GLOBAL const float *rhob, GLOBAL const float *xw, uint off,
                          const fcl_sph_consts *c, const fcl_mps_consts *d)
{
    float rho_i = rhob[i];
    float own = mps_pressure(prs[i], d), lo = own;
    MPS_FLUID(i, j, m, e) {
        float4 pj = mirror(pos[j], m, plane);
        if (pbf_r2(pbf_rij(pi, pj, 0u, plane)) >= d->re_n2)
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
        float4 pb = bpos[b];
        if (pbf_r2(pbf_rij(pi, pb, mb, plane)) >= d->re_n2 || (d->walls && pb.w != 0.0f))
            continue;
        float q = d->walls ? mps_pressure(xw[off + b], d) : own + mps_ghost(pb, pi, rho_i, c);
        lo = q < lo ? q : lo;
    }
    return lo;
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
FCL_INLINE float mps_grad_fluid16(uint i, float4 pi, float4 plane, float own, float rho_i, GLOBAL const float4 *pos,
                                  GLOBAL const float *prs, GLOBAL const float *rhob, const uint *ent, uint n,
                                  const fcl_sph_consts *c, const fcl_mps_consts *d, float s[6])
{
    const __m512 zero = _mm512_setzero_ps(), vown = _mm512_set1_ps(own);
    __m512 lo = vown, ax = zero, ay = zero, az = zero, bx = zero, by = zero, bz = zero;
    for (uint k = 0u; k < n; k += 16u) {
        nl_lanes16 L;
        __mmask16 in = mps_entries16(ent, k, n, i, pi, plane, d->re_n2, pos, &L);
        nl_v16 r = L.r;
        /* mps_q16, its p_j kept for each axis's own share (mps_ghost3) */
        __mmask16 img = _mm512_test_epi32_mask(L.m, L.m);
        __m512 rho_j = _mm512_mask_i32gather_ps(_mm512_set1_ps(1.0f), in, L.j, rhob, 4), pj = mps_p16(&L, in, prs, d);
        __m512 p = _mm512_mask_add_ps(pj, img, pj, mps_ghost16(&L, rho_j, c));
        __m512 rm = _mm512_max_ps(L.r2, _mm512_set1_ps(d->rmin2));
        __m512 kk = _mm512_div_ps(_mm512_mul_ps(_mm512_div_ps(mps_w16(L.r2, d->re_n, d), rm), _mm512_set1_ps(2.0f)),
                                  _mm512_add_ps(_mm512_set1_ps(rho_i), rho_j));
        __m512 qx = _mm512_mask_add_ps(pj, img, pj, mps_ghost16_axis(L.q.x, L.src.x, c->gravity.x, rho_j));
        __m512 qy = _mm512_mask_add_ps(pj, img, pj, mps_ghost16_axis(L.q.y, L.src.y, c->gravity.y, rho_j));
        __m512 qz = _mm512_mask_add_ps(pj, img, pj, mps_ghost16_axis(L.q.z, L.src.z, c->gravity.z, rho_j));
        lo = _mm512_mask_min_ps(lo, in, lo, d->clamp ? _mm512_max_ps(p, zero) : p);   /* mps_pmin */
        ax = _mm512_mask_add_ps(ax, in, ax, _mm512_mul_ps(_mm512_mul_ps(_mm512_sub_ps(qx, vown), kk), r.x));
        ay = _mm512_mask_add_ps(ay, in, ay, _mm512_mul_ps(_mm512_mul_ps(_mm512_sub_ps(qy, vown), kk), r.y));
        az = _mm512_mask_add_ps(az, in, az, _mm512_mul_ps(_mm512_mul_ps(_mm512_sub_ps(qz, vown), kk), r.z));
        bx = _mm512_mask_add_ps(bx, in, bx, _mm512_mul_ps(kk, r.x));
        by = _mm512_mask_add_ps(by, in, by, _mm512_mul_ps(kk, r.y));
        bz = _mm512_mask_add_ps(bz, in, bz, _mm512_mul_ps(kk, r.z));
    }
    s[0] = _mm512_reduce_add_ps(ax); s[1] = _mm512_reduce_add_ps(ay); s[2] = _mm512_reduce_add_ps(az);
    s[3] = _mm512_reduce_add_ps(bx); s[4] = _mm512_reduce_add_ps(by); s[5] = _mm512_reduce_add_ps(bz);
    return _mm512_reduce_min_ps(lo);
}

/* mps_correct_item's boundary entries, in the one-walk form above. */
FCL_INLINE float mps_grad_boundary(uint i, float4 pi, float own, float rho_i, float lo,
                                   GLOBAL const float4 *bpos, GLOBAL const uint *bcount, GLOBAL const uint *bidx,
                                   const fcl_nlist_info *bl, GLOBAL const float *xw, uint off, const fcl_sph_consts *c,
                                   const fcl_mps_consts *d, float s[6])
{
    MPS_BOUNDARY(i, b, mb, e) {
        float4 r;
        float r2, wr, q, k;
        (void)mb;
        if (!mps_grad_bentry(b, pi, own, rho_i, bpos, xw, off, c, d, &r, &r2, &wr, &q, &k))
            continue;
        lo = q < lo ? q : lo;
        s[0] += (q - own) * k * r.x; s[1] += (q - own) * k * r.y; s[2] += (q - own) * k * r.z;
        s[3] += k * r.x; s[4] += k * r.y; s[5] += k * r.z;
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
FCL_INLINE void mps_gc_fluid16(uint i, float4 pi, float4 plane, float own, float rho_i, GLOBAL const float4 *pos,
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
        __mmask16 in = mps_entries16(ent, k, n, i, pi, plane, d->re_n2, pos, &L);
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
                               const fcl_sph_consts *c, const fcl_mps_consts *d, float4 pi, float4 plane)
{
    float rho_i = rhob[i], own = mps_pressure(prs[i], d);
    float ds = -0.5f * d->ds_k / d->dt;
    float s[12];
    for (int k = 0; k < 12; ++k)
        s[k] = 0.0f;
#ifdef FCL_AVX512
    if (fl->kstride == 1u)
        mps_gc_fluid16(i, pi, plane, own, rho_i, pos, prs, rhob, fidx + i * fl->pstride, nl_len(fcount, i, fl), c, d,
                       s);
    else
#endif
    {
        MPS_FLUID(i, j, m, e) {
            float4 r;
            float r2, rho_j, q;
            if (!mps_grad_entry(i, j, m, pi, plane, pos, prs, rhob, rho_i, c, d, &r, &r2, &rho_j, &q))
                continue;
            float wr = mps_w(r2, d->re_n, d) / (r2 > d->rmin2 ? r2 : d->rmin2);
            mps_gc_pair(r, r2, (q - own) * wr * 2.0f / (rho_i + rho_j), wr, ds, d->ds_r2, d, s);
        }
    }
    MPS_BOUNDARY(i, b, mb, e) {
        float4 r;
        float r2, wr, q, k;
        (void)mb;
        if (!mps_grad_bentry(b, pi, own, rho_i, bpos, xw, off, c, d, &r, &r2, &wr, &q, &k))
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
FCL_INLINE float4 mps_grad_ko16(uint i, float4 pi, float4 plane, GLOBAL const float4 *pos, GLOBAL const float4 *bpos,
                                GLOBAL const uint *fcount, GLOBAL const uint *fidx, GLOBAL const uint *bcount,
                                GLOBAL const uint *bidx, const fcl_nlist_info *fl, const fcl_nlist_info *bl,
                                GLOBAL const float *prs, GLOBAL const float *rhob, GLOBAL const float *xw, uint off,
                                const fcl_sph_consts *c, const fcl_mps_consts *d)
{
    float s[6], rho_i = rhob[i], own = mps_pressure(prs[i], d);
    float lo = mps_grad_fluid16(i, pi, plane, own, rho_i, pos, prs, rhob, fidx + i * fl->pstride, nl_len(fcount, i, fl),
                                c, d, s);
    lo = mps_grad_boundary(i, pi, own, rho_i, own < lo ? own : lo, bpos, bcount, bidx, bl, xw, off, c, d, s);
    return fcl_f4(s[0] + (own - lo) * s[3], s[1] + (own - lo) * s[4], s[2] + (own - lo) * s[5], 0.0f);
}
#endif

/* K&O's gradient sum, sum_j (q_j - phat) w r_ij / r^2 2 / (rho_i + rho_j)
 * over the fluid entries (an image's hydrostatic share along its own
 * axis, mps_ghost3) and the boundary's (mps_grad_bentry). */
FCL_INLINE float4 mps_grad_ko(uint i, float4 pi, float4 plane, GLOBAL const float4 *pos, GLOBAL const float4 *bpos,
                              GLOBAL const uint *fcount, GLOBAL const uint *fidx, GLOBAL const uint *bcount,
                              GLOBAL const uint *bidx, const fcl_nlist_info *fl, const fcl_nlist_info *bl,
                              GLOBAL const float *prs, GLOBAL const float *rhob, GLOBAL const float *xw, uint off,
                              const fcl_sph_consts *c, const fcl_mps_consts *d)
{
    float lo = mps_pmin(i, pi, plane, pos, bpos, prs, fcount, fidx, bcount, bidx, fl, bl, rhob, xw, off, c, d);
    float rho_i = rhob[i];
    float own = mps_pressure(prs[i], d), gx = 0.0f, gy = 0.0f, gz = 0.0f;
    MPS_FLUID(i, j, m, e) {
        float4 r;
        float r2, rho_j, q;
        if (!mps_grad_entry(i, j, m, pi, plane, pos, prs, rhob, rho_i, c, d, &r, &r2, &rho_j, &q))
            continue;
        /* 1 / rho between phases: 2 / (rho_i + rho_j), as the equation's
         * weights (else a light particle under a heavy one is thrown). */
        float f = mps_w(r2, d->re_n, d) / (r2 > d->rmin2 ? r2 : d->rmin2) * 2.0f / (rho_i + rho_j);
        float pj = mps_pressure(prs[j], d);
        float4 gs = m ? mps_ghost3(mirror(pos[j], m, plane), j == i ? pi : pos[j], rho_j, c)
                      : fcl_f4(0.0f, 0.0f, 0.0f, 0.0f);
        gx += (pj + gs.x - lo) * f * r.x; gy += (pj + gs.y - lo) * f * r.y; gz += (pj + gs.z - lo) * f * r.z;
    }
    MPS_BOUNDARY(i, b, mb, e) {
        float4 r;
        float r2, wr, q, kb;
        (void)mb;           /* boundary entries carry no image */
        if (!mps_grad_bentry(b, pi, own, rho_i, bpos, xw, off, c, d, &r, &r2, &wr, &q, &kb))
            continue;
        /* A wall unknown's pair density is the equation's (mps_grad_bentry). */
        float f = (q - lo) * kb;
        gx += f * r.x; gy += f * r.y; gz += f * r.z;
    }
    return fcl_f4(gx, gy, gz, 0.0f);
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
    float4 pi = pos[i], plane;
    near_walls_within(pi, c, fl->r, &plane);
    float k = d->grad_k * d->dt;             /* dt d / n0; the 1 / rho is per pair */
    if (d->grad) {
        mps_correct_gc(i, pos, bpos, fcount, fidx, bcount, bidx, fl, bl, prs, vel, vev, dx, rhob, xw, off, c, d, pi,
                       plane);
        return;
    }
    float4 g, u = vel[i];
#ifdef FCL_AVX512
    if (fl->kstride == 1u)
        g = mps_grad_ko16(i, pi, plane, pos, bpos, fcount, fidx, bcount, bidx, fl, bl, prs, rhob, xw, off, c, d);
    else
#endif
        g = mps_grad_ko(i, pi, plane, pos, bpos, fcount, fidx, bcount, bidx, fl, bl, prs, rhob, xw, off, c, d);
    float4 du = fcl_f4(-k * g.x, -k * g.y, -k * g.z, 0.0f);
    vev[i] = fcl_f4(u.x + du.x, u.y + du.y, u.z + du.z, 0.0f);
    dx[i] = fcl_f4(d->dt * du.x, d->dt * du.y, d->dt * du.z, 0.0f);
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
    float4 pi = pos[i], plane;
    near_walls_within(pi, c, fl->r, &plane);
    float n = mps_number_density(i, pi, plane, pos, bpos, fcount, fidx, bcount, bidx, fl, bl, d) / d->n0;
    /* n excludes the particle itself, so a lone one has n = 0; the floor
     * keeps the tension models' m / rho finite (compression is what the
     * statistics measure, so it changes none of them). */
    rho[i] = c->rest_density * (n > 0.25f ? n : 0.25f);
    prs[i] = x[i];
}
