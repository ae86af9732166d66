/* mac_markers.cl - the MAC solver's marker particles (seed 003 section 3.1;
 * the grid passes are mac.cl's):
 *
 * mark_fluid: every marker's cell becomes fluid unless solid, and counts
 *             the markers per cell for the reseeding (mac_reseed.cl)
 * particles:  RK2 (midpoint) through the projected field, clamped into the
 *             grid box and pushed out of obstacles
 * fields:     the per-marker pressure and density frames carry
 * p2g, g2p:   FLIP/PIC transfers between markers and faces (p2g's sums
 *             16 markers at a time as a pairwise tree, as mac.cl's
 *             density, so that its 16-lane twin keeps the same bits)
 *
 * On the native backend of an AVX-512 host the marking and the fields go
 * 16 markers at a time (`lanes` passes, pass.h), the move 32 as two groups
 * of 16 (`lanes2`), with the scalar source's arithmetic in its order, so
 * both backends give the same bits. The 16-lane sampler (mac_sample16,
 * mac_velocity16) lives here; mac_advect.cl's twin reads the field
 * through it too.
 * Invariant: a marker pass reads the grid only through mac.cl's samplers
 * (or their 16-lane twin here)
 * and cell indices; it writes per-marker arrays, or per cell a value that
 * does not depend on the markers' order (the flag, the count), or per face
 * a sum over the sorted markers in their order (p2g).
 */

/* Every writer writes the same value, so the order does not matter. */
FCL_INLINE void mac_mark_one(uint i, GLOBAL const float4 *pos, GLOBAL uint *flags, GLOBAL uint *count,
                             const fcl_mac_info *m, uint counting)
{
    uint c = mac_cell_of(pos[i], m);
    if (flags[c] == MAC_AIR)
        flags[c] = MAC_FLUID;
    if (counting)   /* markers per cell, for the reseeding (mac_reseed.cl) */
        FCL_ATOMIC_INC(&count[c]);
}

#ifdef FCL_AVX512
/* The 16-lane twins of the per-marker passes (the native backend on an
 * AVX-512 host, markers i0 .. i0 + 15 of count; grids and marker counts
 * within FCL_LANES_FIT). */
#define MAC_LANES_FIT(m, count) (FCL_LANES_FIT((m)->ncell) && FCL_LANES_FIT(count))

/* mac_axis_cell, lane-wise (NaN and below 0 to cell 1, past n to n). */
FCL_INLINE __m512i mac_axis_cell16(__m512 x, float o, uint n, const fcl_mac_info *m)
{
    __m512 g = _mm512_mul_ps(_mm512_sub_ps(x, _mm512_set1_ps(o)), _mm512_set1_ps(m->inv_dx));
    __m512 zero = _mm512_setzero_ps();
    g = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(g, zero, _CMP_GE_OQ), zero, g);
    __mmask16 in = _mm512_cmp_ps_mask(g, _mm512_set1_ps((float)n), _CMP_LT_OQ);
    return _mm512_mask_blend_epi32(in, _mm512_set1_epi32((int)n),
                                   _mm512_add_epi32(_mm512_cvttps_epu32(g), _mm512_set1_epi32(1)));
}

/* mac_cell_of for markers i0 .. i0 + 15 (lanes past count: cell of 0). */
FCL_INLINE __m512i mac_cells16(const float4 *pos, uint i0, __mmask16 live, const fcl_mac_info *m)
{
    __m512 x, y, z;
    fcl_xyz16(pos, i0, live, &x, &y, &z);
    __m512i i = mac_axis_cell16(x, m->origin.x, m->nx, m), j = mac_axis_cell16(y, m->origin.y, m->ny, m);
    __m512i k = mac_axis_cell16(z, m->origin.z, m->nz, m);
    return _mm512_add_epi32(i, _mm512_add_epi32(_mm512_mullo_epi32(j, _mm512_set1_epi32((int)m->sy)),
                                                _mm512_mullo_epi32(k, _mm512_set1_epi32((int)m->sz))));
}

#ifdef __AVX512CD__
/* mac_mark_one for 16 markers: each distinct cell among them is marked
 * once and counted once by its number of markers (sorted markers share
 * cells in runs, and a chain of atomics on one counter was the pass's
 * cost: 512 markers to a cell in the seed's million-marker case). */
static void mac_mark16(uint i0, uint count, const float4 *pos, uint *flags, uint *cnt, const fcl_mac_info *m,
                       uint counting)
{
    uint cs[16], cf[16], mult[16], n = count - i0 < 16u ? count - i0 : 16u;
    __mmask16 live = fcl_live16(n);
    fcl_runs16(mac_cells16(pos, i0, live, m), live, n, cs, cf, mult);
    for (uint k = 0u; k < n; k++) {
        if (cf[k])
            continue;
        if (flags[cs[k]] == MAC_AIR)
            flags[cs[k]] = MAC_FLUID;
        if (counting)
            __atomic_fetch_add(&cnt[cs[k]], mult[k], __ATOMIC_RELAXED);
    }
}
#endif
#endif

/* A `lanes` pass (pass.h): markers i .. i + 15 of count on an AVX-512 host. */
FCL_INLINE void mac_mark_fluid_item(uint i, GLOBAL const float4 *pos, GLOBAL uint *flags, GLOBAL uint *count,
                                    const fcl_mac_info *m, uint counting, uint n)
{
#ifdef FCL_AVX512
#ifdef __AVX512CD__
    if (MAC_LANES_FIT(m, n)) {
        mac_mark16(i, n, pos, flags, count, m, counting);
        return;
    }
#endif
    for (uint k = i; k < i + 16u && k < n; k++)
        mac_mark_one(k, pos, flags, count, m, counting);
#else
    (void)n;
    mac_mark_one(i, pos, flags, count, m, counting);
#endif
}

/* q kept a margin inside the grid box: after the move, and again after
 * an obstacle's push (solids_project), which can push a marker beside an
 * obstacle that meets a wall back through the wall (6e-5 m below the
 * floor beside a sphere cut by it; a review). */
FCL_INLINE float4 mac_in_grid(float4 q, const fcl_mac_info *m)
{
    float4 o = m->origin;
    float e = m->margin;
    return fcl_f4(fcl_clampf(q.x, o.x + e, o.x + (float)m->nx * m->dx - e),
                  fcl_clampf(q.y, o.y + e, o.y + (float)m->ny * m->dx - e),
                  fcl_clampf(q.z, o.z + e, o.z + (float)m->nz * m->dx - e), q.w);
}

/* The same for a marker that carries its own velocity u (flip, pic):
 * touching a wall (within twice the margin: at its clamp, or a rounding
 * from it), the wall takes its normal speed into the wall as an obstacle
 * does (solid_bounce, domain.restitution). The field moves such a marker,
 * not u, so one resting at a wall kept up to 1.3 m/s into it, and the
 * restitution acted at obstacles alone (a review). */
FCL_INLINE float4 mac_in_grid_bounce(float4 raw, float4 *u, float rest, const fcl_mac_info *m)
{
    float4 q = mac_in_grid(raw, m), o = m->origin;
    float t = 2.0f * m->margin, hx = o.x + (float)m->nx * m->dx - t, hy = o.y + (float)m->ny * m->dx - t,
          hz = o.z + (float)m->nz * m->dx - t;
    if (q.x <= o.x + t || q.x >= hx)
        *u = solid_bounce(*u, fcl_f4(q.x <= o.x + t ? 1.0f : -1.0f, 0.0f, 0.0f, 0.0f), rest);
    if (q.y <= o.y + t || q.y >= hy)
        *u = solid_bounce(*u, fcl_f4(0.0f, q.y <= o.y + t ? 1.0f : -1.0f, 0.0f, 0.0f), rest);
    if (q.z <= o.z + t || q.z >= hz)
        *u = solid_bounce(*u, fcl_f4(0.0f, 0.0f, q.z <= o.z + t ? 1.0f : -1.0f, 0.0f), rest);
    return q;
}

#ifdef FCL_AVX512
/* The 16-lane twin of the markers' move (the native backend on an AVX-512
 * host): markers i .. i + 15 at once, the same arithmetic in the same
 * order as mac_axis_sample, mac_sample and mac_particle_move below
 * (separate multiplies and adds, no FMA), so the two agree bit for bit
 * with each other and with OpenCL. Obstacles, rare, go lane by lane
 * through the scalar solids_project. */
typedef struct { __m512 x, y, z; } mac_v16;

FCL_INLINE __m512 mac_axis16(__m512 x, float o, uint n, uint face, const fcl_mac_info *m, __m512i *i0)
{
    float topf = face ? (float)(n + 1u) : (float)n;
    __m512 g = _mm512_add_ps(_mm512_mul_ps(_mm512_sub_ps(x, _mm512_set1_ps(o)), _mm512_set1_ps(m->inv_dx)),
                             _mm512_set1_ps(face ? 1.0f : 0.5f));
    __mmask16 ge1 = _mm512_cmp_ps_mask(g, _mm512_set1_ps(1.0f), _CMP_GE_OQ);   /* NaN: 1, as the scalar */
    g = _mm512_mask_blend_ps(ge1, _mm512_set1_ps(1.0f), _mm512_min_ps(g, _mm512_set1_ps(topf)));
    __m512i b = _mm512_min_epu32(_mm512_cvttps_epu32(g), _mm512_set1_epi32((int)((uint)topf - 1u)));
    *i0 = b;
    return _mm512_sub_ps(g, _mm512_cvtepu32_ps(b));
}

FCL_INLINE __m512 mac_lerp16(__m512 a, __m512 b, __m512 f)
{
    return _mm512_add_ps(_mm512_mul_ps(a, _mm512_sub_ps(_mm512_set1_ps(1.0f), f)), _mm512_mul_ps(b, f));
}

FCL_HOT __m512 mac_sample16(const float *v, mac_v16 p, uint a, const fcl_mac_info *m)
{
    __m512i i, j, k;
    __m512 fx = mac_axis16(p.x, m->origin.x, m->nx, a == 0u, m, &i);
    __m512 fy = mac_axis16(p.y, m->origin.y, m->ny, a == 1u, m, &j);
    __m512 fz = mac_axis16(p.z, m->origin.z, m->nz, a == 2u, m, &k);
    __m512i c = _mm512_add_epi32(i, _mm512_add_epi32(_mm512_mullo_epi32(j, _mm512_set1_epi32((int)m->sy)),
                                                     _mm512_mullo_epi32(k, _mm512_set1_epi32((int)m->sz))));
    uint c0 = (uint)_mm_cvtsi128_si32(_mm512_castsi512_si128(c));
    __mmask16 on0 = _mm512_cmpeq_epi32_mask(c, _mm512_set1_epi32((int)c0));
    uint c1 = (uint)_mm_cvtsi128_si32(_mm512_castsi512_si128(_mm512_maskz_compress_epi32((__mmask16)~on0, c)));
    if (!(_mm512_cmpneq_epi32_mask(c, _mm512_set1_epi32((int)c1)) & (__mmask16)~on0)) {
        /* At most two stencils among the 16 (sorted markers, many to a
         * cell): their values broadcast and blended rather than gathered,
         * the same arithmetic. */
        const float *b = v + 4u * c0 + a, *d = v + 4u * c1 + a;
        uint y = 4u * m->sy, z = 4u * m->sz, o[8] = { 0u, 4u, y, y + 4u, z, z + 4u, y + z, y + z + 4u };
        __m512 g[8];
        for (int k = 0; k < 8; k++)
            g[k] = _mm512_mask_blend_ps(on0, _mm512_set1_ps(d[o[k]]), _mm512_set1_ps(b[o[k]]));
        __m512 c00 = mac_lerp16(g[0], g[1], fx), c10 = mac_lerp16(g[2], g[3], fx);
        __m512 c01 = mac_lerp16(g[4], g[5], fx), c11 = mac_lerp16(g[6], g[7], fx);
        return mac_lerp16(mac_lerp16(c00, c10, fy), mac_lerp16(c01, c11, fy), fz);
    }
    __m512i f = _mm512_add_epi32(_mm512_slli_epi32(c, 2), _mm512_set1_epi32((int)a));   /* float index */
    __m512i dx = _mm512_set1_epi32(4), dy = _mm512_set1_epi32((int)(4u * m->sy)), dz = _mm512_set1_epi32((int)(4u * m->sz));
    __m512i fy1 = _mm512_add_epi32(f, dy), fz1 = _mm512_add_epi32(f, dz), fyz = _mm512_add_epi32(fy1, dz);
    __m512 c00 = mac_lerp16(_mm512_i32gather_ps(f, v, 4), _mm512_i32gather_ps(_mm512_add_epi32(f, dx), v, 4), fx);
    __m512 c10 = mac_lerp16(_mm512_i32gather_ps(fy1, v, 4), _mm512_i32gather_ps(_mm512_add_epi32(fy1, dx), v, 4), fx);
    __m512 c01 = mac_lerp16(_mm512_i32gather_ps(fz1, v, 4), _mm512_i32gather_ps(_mm512_add_epi32(fz1, dx), v, 4), fx);
    __m512 c11 = mac_lerp16(_mm512_i32gather_ps(fyz, v, 4), _mm512_i32gather_ps(_mm512_add_epi32(fyz, dx), v, 4), fx);
    return mac_lerp16(mac_lerp16(c00, c10, fy), mac_lerp16(c01, c11, fy), fz);
}

FCL_HOT mac_v16 mac_velocity16(const float4 *gv, mac_v16 p, const fcl_mac_info *m)
{
    const float *v = (const float *)gv;
    mac_v16 u = { mac_sample16(v, p, 0u, m), mac_sample16(v, p, 1u, m), mac_sample16(v, p, 2u, m) };
    return u;
}

/* x + s u per component. */
FCL_INLINE mac_v16 mac_step16(mac_v16 x, float s, mac_v16 u)
{
    __m512 k = _mm512_set1_ps(s);
    mac_v16 r = { _mm512_add_ps(x.x, _mm512_mul_ps(k, u.x)), _mm512_add_ps(x.y, _mm512_mul_ps(k, u.y)),
                  _mm512_add_ps(x.z, _mm512_mul_ps(k, u.z)) };
    return r;
}


/* fcl_clampf, lane-wise (NaN passes, as there). */
FCL_INLINE __m512 mac_clamp16(__m512 v, float lo, float hi)
{
    __m512 l = _mm512_set1_ps(lo), h = _mm512_set1_ps(hi);
    __mmask16 below = _mm512_cmp_ps_mask(v, l, _CMP_LT_OQ), above = _mm512_cmp_ps_mask(v, h, _CMP_GT_OQ);
    return _mm512_mask_blend_ps(below, _mm512_mask_blend_ps(above, v, h), l);
}

/* The move's new positions kept a margin inside the grid box, as the
 * scalar mac_particle_move clamps them (mac_in_grid). */
FCL_INLINE mac_v16 mac_in_box16(mac_v16 q, const fcl_mac_info *m)
{
    float4 o = m->origin;
    float e = m->margin;
    mac_v16 r = { mac_clamp16(q.x, o.x + e, o.x + (float)m->nx * m->dx - e),
                  mac_clamp16(q.y, o.y + e, o.y + (float)m->ny * m->dx - e),
                  mac_clamp16(q.z, o.z + e, o.z + (float)m->nz * m->dx - e) };
    return r;
}

static void mac_particles16(uint i0, uint count, float4 *pos, float4 *vel, float4 *vev, const float4 *gv,
                            const fcl_solid *solids, const fcl_mac_info *m, const fcl_sph_consts *cs, uint keep,
                            uint last)
{
    mac_v16 x;
    fcl_xyz16(pos, i0, fcl_live16(count - i0), &x.x, &x.y, &x.z);
    float dt = m->dt, h = 0.5f * dt;
    mac_v16 u2 = mac_velocity16(gv, mac_step16(x, h, mac_velocity16(gv, x, m)), m);
    /* Markers with velocities of their own are clamped lane by lane below,
     * where a wall takes their normal speed. */
    mac_v16 q = keep ? mac_step16(x, dt, u2) : mac_in_box16(mac_step16(x, dt, u2), m);
    float qx[16], qy[16], qz[16], ux[16], uy[16], uz[16];
    _mm512_storeu_ps(qx, q.x);
    _mm512_storeu_ps(qy, q.y);
    _mm512_storeu_ps(qz, q.z);
    _mm512_storeu_ps(ux, u2.x);
    _mm512_storeu_ps(uy, u2.y);
    _mm512_storeu_ps(uz, u2.z);
    uint n = count - i0 < 16u ? count - i0 : 16u;
    float4 qs[16], us[16];
    for (uint l = 0u; l < n; l++) {
        qs[l] = fcl_f4(qx[l], qy[l], qz[l], pos[i0 + l].w);
        us[l] = keep ? vev[i0 + l] : fcl_f4(ux[l], uy[l], uz[l], 0.0f);
        if (keep)
            qs[l] = mac_in_grid_bounce(qs[l], &us[l], cs->restitution, m);
        solids_project(&qs[l], &us[l], 0, solids, cs);
        qs[l] = keep ? mac_in_grid_bounce(qs[l], &us[l], cs->restitution, m) : mac_in_grid(qs[l], m);
    }
    if (!keep && last) {
        for (uint l = 0u; l < n; l++) {
            qx[l] = qs[l].x;
            qy[l] = qs[l].y;
            qz[l] = qs[l].z;
        }
        mac_v16 qq = { _mm512_loadu_ps(qx), _mm512_loadu_ps(qy), _mm512_loadu_ps(qz) }, un = mac_velocity16(gv, qq, m);
        _mm512_storeu_ps(ux, un.x);
        _mm512_storeu_ps(uy, un.y);
        _mm512_storeu_ps(uz, un.z);
        for (uint l = 0u; l < n; l++)
            us[l] = fcl_f4(ux[l], uy[l], uz[l], 0.0f);
    }
    for (uint l = 0u; l < n; l++) {
        pos[i0 + l] = qs[l];
        vel[i0 + l] = us[l];
        vev[i0 + l] = us[l];
    }
}

/* The seed's markers (no velocity of their own) in a grid without
 * obstacles, the common case: markers i0 .. i0 + 31 as two groups of 16
 * whose stages interleave (each group is a chain of dependent gathers and
 * lerps: one alone left the core waiting, 3.1 against 2.75 ms a step on
 * the 216k-marker drop), the lanes kept in registers to the stores. */
static void mac_particles32(uint i0, uint count, float4 *pos, float4 *vel, float4 *vev, const float4 *gv,
                            const fcl_mac_info *m, uint last)
{
    mac_v16 x[2], u1[2], u2[2], q[2], u[2];
    __m512 w[2], zero = _mm512_setzero_ps();
    __mmask16 live[2];
    uint groups = i0 + 16u < count ? 2u : 1u;
    float dt = m->dt, h = 0.5f * dt;
    for (uint g = 0u; g < 2u; g++) {   /* an absent second group reads nothing and writes nothing */
        live[g] = g < groups ? fcl_live16(count - (i0 + 16u * g)) : (__mmask16)0;
        fcl_xyzw16(pos, g < groups ? i0 + 16u * g : i0, live[g], &x[g].x, &x[g].y, &x[g].z, &w[g]);
    }
    for (uint g = 0u; g < 2u; g++)
        u1[g] = mac_velocity16(gv, x[g], m);
    for (uint g = 0u; g < 2u; g++)
        u2[g] = mac_velocity16(gv, mac_step16(x[g], h, u1[g]), m);
    for (uint g = 0u; g < 2u; g++)
        q[g] = mac_in_box16(mac_step16(x[g], dt, u2[g]), m);
    for (uint g = 0u; g < 2u; g++)
        u[g] = last ? mac_velocity16(gv, q[g], m) : u2[g];
    for (uint g = 0u; g < groups; g++) {
        fcl_put16(pos, i0 + 16u * g, live[g], q[g].x, q[g].y, q[g].z, w[g]);
        fcl_put16(vel, i0 + 16u * g, live[g], u[g].x, u[g].y, u[g].z, zero);
        fcl_put16(vev, i0 + 16u * g, live[g], u[g].x, u[g].y, u[g].z, zero);
    }
}
#endif

/* Markers through the projected field, RK2 (midpoint), inside the grid
 * box and out of obstacles. After a step's last substep their velocity
 * is the field's at the new position (frames, statistics); after the
 * others, which nothing reads before the next substep rewrites it, the
 * midpoint velocity they moved with (one interpolation of three saved:
 * README). */
FCL_INLINE void mac_particle_move(uint i, GLOBAL float4 *pos, GLOBAL float4 *vel, GLOBAL float4 *vev,
                                  GLOBAL const float4 *gv, GLOBAL const fcl_solid *solids, const fcl_mac_info *m,
                                  const fcl_sph_consts *cs, uint keep, uint last)
{
    float4 x = pos[i];
    float dt = m->dt, h = 0.5f * dt;
    float4 u1 = mac_velocity(gv, x, m);
    float4 xm = fcl_f4(x.x + h * u1.x, x.y + h * u1.y, x.z + h * u1.z, 0.0f);
    float4 u2 = mac_velocity(gv, xm, m);
    float4 raw = fcl_f4(x.x + dt * u2.x, x.y + dt * u2.y, x.z + dt * u2.z, x.w);
    /* FLIP/PIC markers keep their own velocity (mac_g2p), less what a wall
     * or an obstacle takes; the seed's markers take the field's. */
    float4 u = keep ? vev[i] : u2;
    float4 q = keep ? mac_in_grid_bounce(raw, &u, cs->restitution, m) : mac_in_grid(raw, m);
    solids_project(&q, &u, 0, solids, cs);
    q = keep ? mac_in_grid_bounce(q, &u, cs->restitution, m) : mac_in_grid(q, m);
    float4 un = keep || !last ? u : mac_velocity(gv, q, m);
    pos[i] = q;
    vel[i] = un;
    vev[i] = un;
}

/* A `lanes2` pass (pass.h): on an AVX-512 host, markers i .. i + 31 of
 * count, as two groups of 16 (mac_particles32 without obstacles or the
 * markers' own velocities, else mac_particles16 twice) where the gathers'
 * 32-bit float indices fit (grids and marker counts under 2^29), else one
 * by one. */
FCL_INLINE void mac_particles_item(uint i, GLOBAL float4 *pos, GLOBAL float4 *vel, GLOBAL float4 *vev,
                                   GLOBAL const float4 *gv, GLOBAL const fcl_solid *solids, const fcl_mac_info *m,
                                   const fcl_sph_consts *cs, uint keep, uint last, uint count)
{
#ifdef FCL_AVX512
    if (MAC_LANES_FIT(m, count) && !keep && cs->nsolids == 0u) {
        mac_particles32(i, count, pos, vel, vev, gv, m, last);
        return;
    }
    if (MAC_LANES_FIT(m, count)) {
        for (uint g = i; g < i + 32u && g < count; g += 16u)
            mac_particles16(g, count, pos, vel, vev, gv, solids, m, cs, keep, last);
        return;
    }
    for (uint k = i; k < i + 32u && k < count; k++)
        mac_particle_move(k, pos, vel, vev, gv, solids, m, cs, keep, last);
#else
    (void)count;
    mac_particle_move(i, pos, vel, vev, gv, solids, m, cs, keep, last);
#endif
}

/* Per-particle fields for frames: the rest density, the pressure of the
 * particle's cell. */
FCL_INLINE void mac_particle_field(uint i, GLOBAL const float4 *pos, GLOBAL const uint *flags, GLOBAL const float *p,
                                   GLOBAL float *rho, GLOBAL float *prs, const fcl_mac_info *m)
{
    uint c = mac_cell_of(pos[i], m);
    prs[i] = flags[c] == MAC_FLUID ? p[c] : 0.0f;
    rho[i] = m->rho;
}

/* A `lanes` pass (pass.h): markers i .. i + 15 of count on an AVX-512 host,
 * the cells' flags and pressures gathered (0 where not fluid, as above). */
FCL_INLINE void mac_particle_fields_item(uint i, GLOBAL const float4 *pos, GLOBAL const uint *flags,
                                         GLOBAL const float *p, GLOBAL float *rho, GLOBAL float *prs,
                                         const fcl_mac_info *m, uint n)
{
#ifdef FCL_AVX512
    if (MAC_LANES_FIT(m, n)) {
        __mmask16 live = fcl_live16(n - i);
        __m512i c = mac_cells16(pos, i, live, m);
        __m512i f = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), live, c, (const int *)flags, 4);
        __mmask16 fluid = live & _mm512_cmpeq_epi32_mask(f, _mm512_set1_epi32((int)MAC_FLUID));
        _mm512_mask_storeu_ps(prs + i, live, _mm512_mask_i32gather_ps(_mm512_setzero_ps(), fluid, c, p, 4));
        _mm512_mask_storeu_ps(rho + i, live, _mm512_set1_ps(m->rho));
        return;
    }
    for (uint k = i; k < i + 16u && k < n; k++)
        mac_particle_field(k, pos, flags, p, rho, prs, m);
#else
    (void)n;
    mac_particle_field(i, pos, flags, p, rho, prs, m);
#endif
}

/* Whether the lower face of cell c along a gets a transferred value: a
 * real, open face beside a fluid cell (the others are rewritten by the
 * extrapolation, or are solid). */
FCL_INLINE int mac_p2g_wants(GLOBAL const uint *flags, uint c, uint i, uint j, uint k, uint a, const fcl_mac_info *m)
{
    uint n = c - mac_stride(a, m);
    return mac_face_real(i, j, k, a, m) && !mac_face_solid(flags, c, a, m) &&
           (flags[c] == MAC_FLUID || flags[n] == MAC_FLUID);
}

/* One marker's share of a cell's three lower faces (face positions f0,
 * f1, f2): the hat weights w and the weighted velocity components s;
 * zeros past hi or beyond one cell. Scalar fields, no arrays: PoCL's
 * work-group vectorizer gave up on arrays of them (the transfer 6x
 * slower there). */
typedef struct mac_p2g_acc {
    float w0, w1, w2, s0, s1, s2;
} mac_p2g_acc;

FCL_INLINE mac_p2g_acc mac_p2g_add(mac_p2g_acc x, mac_p2g_acc y)
{
    mac_p2g_acc r = { x.w0 + y.w0, x.w1 + y.w1, x.w2 + y.w2, x.s0 + y.s0, x.s1 + y.s1, x.s2 + y.s2 };
    return r;
}

/* The hat weight of p at face position f, 0 beyond one cell. */
FCL_INLINE float mac_p2g_hat(float4 p, float4 f, const fcl_mac_info *m)
{
    float wx = 1.0f - mac_abs(p.x - f.x) * m->inv_dx;
    float wy = 1.0f - mac_abs(p.y - f.y) * m->inv_dx;
    float wz = 1.0f - mac_abs(p.z - f.z) * m->inv_dx;
    return wx > 0.0f && wy > 0.0f && wz > 0.0f ? wx * wy * wz : 0.0f;
}

FCL_INLINE mac_p2g_acc mac_p2g_one(GLOBAL const float4 *pos, GLOBAL const float4 *vev, uint q, uint hi, float4 f0,
                                   float4 f1, float4 f2, const fcl_mac_info *m)
{
    mac_p2g_acc r = { 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f };
    if (q >= hi)
        return r;
    float4 p = pos[q], v = vev[q];
    r.w0 = mac_p2g_hat(p, f0, m);
    r.w1 = mac_p2g_hat(p, f1, m);
    r.w2 = mac_p2g_hat(p, f2, m);
    r.s0 = r.w0 > 0.0f ? r.w0 * v.x : 0.0f;   /* +0 where no share, as the twin's masked lanes */
    r.s1 = r.w1 > 0.0f ? r.w1 * v.y : 0.0f;
    r.s2 = r.w2 > 0.0f ? r.w2 * v.z : 0.0f;
    return r;
}

/* acc plus the shares of markers lo .. hi - 1, 16 at a time as a pairwise
 * tree (MAC_TREE16_PART, kernels/mac.cl), the groups in order:
 * mac_wsum_run's order, which a 16-lane twin keeps; in marker order each
 * add waited on the last, and the transfer was 40 of a 52 ms FLIP step on
 * the 216k-marker drop. */
FCL_INLINE mac_p2g_acc mac_p2g_run(GLOBAL const float4 *pos, GLOBAL const float4 *vev, uint lo, uint hi, float4 f0,
                                   float4 f1, float4 f2, const fcl_mac_info *m, mac_p2g_acc acc)
{
#define MAC_P2G(k) mac_p2g_one(pos, vev, k, hi, f0, f1, f2, m)
    for (uint q0 = lo; q0 < hi; q0 += 16u)
        acc = mac_p2g_add(acc, mac_p2g_add(MAC_TREE16_PART(mac_p2g_add, MAC_P2G, q0),
                                           MAC_TREE16_PART(mac_p2g_add, MAC_P2G, q0 + 1u)));
#undef MAC_P2G
    return acc;
}

#ifdef FCL_AVX512
/* mac_p2g_run 16 markers at a time (the native backend on an AVX-512
 * host): the same weights, the same tree, the same bits. */
static mac_p2g_acc mac_p2g_run16(const float4 *pos, const float4 *vev, uint lo, uint hi, float4 f0, float4 f1,
                                 float4 f2, const fcl_mac_info *m, mac_p2g_acc acc)
{
    __m512 one = _mm512_set1_ps(1.0f), inv = _mm512_set1_ps(m->inv_dx), zero = _mm512_setzero_ps();
    const float4 f[3] = { f0, f1, f2 };
    for (uint q0 = lo; q0 < hi; q0 += 16u) {
        __mmask16 live = fcl_live16(hi - q0);
        __m512 p[3], v[3];
        float w[3], s[3];
        fcl_xyz16(pos, q0, live, &p[0], &p[1], &p[2]);
        fcl_xyz16(vev, q0, live, &v[0], &v[1], &v[2]);
        for (uint a = 0u; a < 3u; a++) {
            const float fa[3] = { f[a].x, f[a].y, f[a].z };
            __m512 h[3];
            __mmask16 in = live;
            for (uint b = 0u; b < 3u; b++) {   /* mac_p2g_hat: 1 - |p - f| / dx */
                __m512 d = _mm512_abs_ps(_mm512_sub_ps(p[b], _mm512_set1_ps(fa[b])));
                h[b] = _mm512_sub_ps(one, _mm512_mul_ps(d, inv));
                in &= _mm512_cmp_ps_mask(h[b], zero, _CMP_GT_OQ);
            }
            __m512 ww = _mm512_maskz_mul_ps(in, _mm512_mul_ps(h[0], h[1]), h[2]);
            w[a] = mac_tree16(ww);
            s[a] = mac_tree16(_mm512_maskz_mul_ps(in, ww, v[a]));
        }
        mac_p2g_acc g = { w[0], w[1], w[2], s[0], s[1], s[2] };
        acc = mac_p2g_add(acc, g);
    }
    return acc;
}
#endif

/* Particle to grid: each of cell c's lower faces beside fluid gets the
 * hat-weighted (trilinear, one cell wide) mean of the markers'
 * velocities around it, in one walk over the markers near the three
 * faces (FLIP/PIC every substep, and the initial field). */
FCL_INLINE void mac_p2g_item(uint c, GLOBAL const float4 *pos, GLOBAL const float4 *vev, GLOBAL const uint *start,
                             GLOBAL const uint *flags, GLOBAL float4 *vel, const fcl_grid_info *g,
                             const fcl_mac_info *m)
{
    uint i, j, k;
    mac_coords(c, m, &i, &j, &k);
    int want[3] = { mac_p2g_wants(flags, c, i, j, k, 0u, m), mac_p2g_wants(flags, c, i, j, k, 1u, m),
                    mac_p2g_wants(flags, c, i, j, k, 2u, m) };
    mac_p2g_acc acc = { 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f };
    if (want[0] || want[1] || want[2]) {
        float4 x = mac_center(i, j, k, m), f0 = mac_face_pos(i, j, k, 0u, m), f1 = mac_face_pos(i, j, k, 1u, m),
               f2 = mac_face_pos(i, j, k, 2u, m);
        float lo = 1.5f * m->dx, hi = m->dx, inv = g->inv_cell_size;
        uint x0 = grid_axis(x.x - lo, g->origin.x, inv, g->nx), x1 = grid_axis(x.x + hi, g->origin.x, inv, g->nx);
        uint y0 = grid_axis(x.y - lo, g->origin.y, inv, g->ny), y1 = grid_axis(x.y + hi, g->origin.y, inv, g->ny);
        uint z0 = grid_axis(x.z - lo, g->origin.z, inv, g->nz), z1 = grid_axis(x.z + hi, g->origin.z, inv, g->nz);
        for (uint z = z0; z <= z1; z++)
            for (uint y = y0; y <= y1; y++) {
                uint row = g->nx * (y + g->ny * z);
#ifdef FCL_AVX512
                acc = mac_p2g_run16(pos, vev, start[row + x0], start[row + x1 + 1u], f0, f1, f2, m, acc);
#else
                acc = mac_p2g_run(pos, vev, start[row + x0], start[row + x1 + 1u], f0, f1, f2, m, acc);
#endif
            }
    }
    vel[c] = fcl_f4(want[0] && acc.w0 > 0.0f ? acc.s0 / acc.w0 : 0.0f, want[1] && acc.w1 > 0.0f ? acc.s1 / acc.w1 : 0.0f,
                    want[2] && acc.w2 > 0.0f ? acc.s2 / acc.w2 : 0.0f, 0.0f);
}

/* Grid to particle, FLIP/PIC (Zhu & Bridson 2005): the marker keeps its
 * velocity plus the grid's change over the substep (FLIP), blended with
 * the grid's velocity (PIC) by pic: v = pic u + (1 - pic)(v + u - u_old),
 * sampled at the marker before it moves. */
FCL_INLINE void mac_g2p_item(uint i, GLOBAL const float4 *pos, GLOBAL float4 *vev, GLOBAL const float4 *gv,
                             GLOBAL const float4 *gold, const fcl_mac_info *m, float pic)
{
    float4 x = pos[i], v = vev[i];
    float4 u = mac_velocity(gv, x, m), uo = mac_velocity(gold, x, m);
    float k = 1.0f - pic;
    vev[i] = fcl_f4(pic * u.x + k * (v.x + u.x - uo.x), pic * u.y + k * (v.y + u.y - uo.y),
                    pic * u.z + k * (v.z + u.z - uo.z), 0.0f);
}
