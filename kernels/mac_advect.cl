/* mac_advect.cl - the MAC solver's semi-Lagrangian advection of its grid
 * velocity (seed 003 section 2, Stam 1999's backtrace; the seed's eq. 7 is
 * an explicit central difference, a slip SEED-NOTES.md lists): every face
 * beside a fluid cell takes the field's value where an RK2 (midpoint)
 * backtrace of dt from it lands, trilinear in each staggered component
 * (mac.cl's mac_sample).
 *
 * On the native backend of an AVX-512 host 16 cells go at a time (a
 * `lanes` pass, pass.h), their traced faces through mac_markers.cl's
 * 16-lane sampler, which has the scalar source's arithmetic in its order:
 * both backends give the same bits.
 * Invariant: the pass reads vin and writes vout (the host swaps them), so
 * no face reads another's new value.
 */

/* Component a of the lower face of cell c after the RK2 backtrace; 0 on
 * solid faces and outside the grid. Only faces beside a fluid cell are
 * traced: the divergence and the projection read no others, and the
 * extrapolation rewrites the air faces the next backtraces and the
 * markers read (mac.extrapolate layers, beyond a CFL step), so a face
 * farther out keeps its value (it cost 70 % of the pass in the drop). */
FCL_INLINE float mac_advect_face(GLOBAL const float4 *v, GLOBAL const uint *flags, uint c, uint i, uint j, uint k,
                                 uint a, const fcl_mac_info *m)
{
    if (!mac_face_real(i, j, k, a, m) || mac_face_solid(flags, c, a, m))
        return 0.0f;
    if (flags[c] != MAC_FLUID && flags[c - mac_stride(a, m)] != MAC_FLUID) {
        float4 w = v[c];
        return a == 0u ? w.x : (a == 1u ? w.y : w.z);
    }
    float4 x = mac_face_pos(i, j, k, a, m);
    float4 u1 = mac_velocity(v, x, m);
    float h = 0.5f * m->dt, dt = m->dt;
    float4 xm = fcl_f4(x.x - h * u1.x, x.y - h * u1.y, x.z - h * u1.z, 0.0f);
    float4 u2 = mac_velocity(v, xm, m);
    float4 xb = fcl_f4(x.x - dt * u2.x, x.y - dt * u2.y, x.z - dt * u2.z, 0.0f);
    return mac_sample(v, xb, a, m);
}

FCL_INLINE void mac_advect_one(uint c, GLOBAL const float4 *vin, GLOBAL float4 *vout, GLOBAL const uint *flags,
                               const fcl_mac_info *m)
{
    uint i, j, k;
    mac_coords(c, m, &i, &j, &k);
    vout[c] = fcl_f4(mac_advect_face(vin, flags, c, i, j, k, 0u, m), mac_advect_face(vin, flags, c, i, j, k, 1u, m),
                     mac_advect_face(vin, flags, c, i, j, k, 2u, m), 0.0f);
}

#ifdef FCL_AVX512
/* x - s u per component, as mac_advect_face writes it. */
FCL_INLINE mac_v16 mac_back16(mac_v16 x, float s, mac_v16 u)
{
    __m512 k = _mm512_set1_ps(s);
    mac_v16 r = { _mm512_sub_ps(x.x, _mm512_mul_ps(k, u.x)), _mm512_sub_ps(x.y, _mm512_mul_ps(k, u.y)),
                  _mm512_sub_ps(x.z, _mm512_mul_ps(k, u.z)) };
    return r;
}

/* Lanes whose coordinate q lies in [1, hi]. */
FCL_INLINE __mmask16 mac_in_range16(__m512i q, uint hi)
{
    return _mm512_cmpge_epu32_mask(q, _mm512_set1_epi32(1)) & _mm512_cmple_epu32_mask(q, _mm512_set1_epi32((int)hi));
}

/* Component a of the lower faces of cells c0 .. c0 + 15 (the live lanes),
 * as mac_advect_face gives them: 0 off the grid and on solid faces, the
 * old value (cur) where neither side is fluid, else traced, 16 at a time
 * (lanes not traced sample their face's position, which the sampler
 * clamps like any other, and are not kept). */
static __m512 mac_advect_axis16(uint c0, __mmask16 live, const float4 *v, const uint *flags, const __m512i ijk[3],
                                uint a, __m512 cur, const fcl_mac_info *m)
{
    uint st = mac_stride(a, m);
    __mmask16 below = c0 >= st ? live : live & (__mmask16)(0xffffu << (st - c0 < 16u ? st - c0 : 16u));
    __m512i f = _mm512_maskz_loadu_epi32(live, flags + c0), fb = _mm512_maskz_loadu_epi32(below, flags + c0 - st);
    __m512i solid = _mm512_set1_epi32((int)MAC_SOLID), fluid = _mm512_set1_epi32((int)MAC_FLUID);
    __mmask16 real = live & below & mac_in_range16(ijk[0], m->nx + (a == 0u)) & mac_in_range16(ijk[1], m->ny + (a == 1u)) &
                     mac_in_range16(ijk[2], m->nz + (a == 2u));
    __mmask16 open = real & _mm512_cmpneq_epi32_mask(f, solid) & _mm512_cmpneq_epi32_mask(fb, solid);
    __mmask16 trace = open & (_mm512_cmpeq_epi32_mask(f, fluid) | _mm512_cmpeq_epi32_mask(fb, fluid));
    __m512 out = _mm512_maskz_mov_ps(open & ~trace, cur);
    if (!trace)
        return out;
    float4 o = m->origin;
    float org[3] = { o.x, o.y, o.z };
    __m512 p[3], dx = _mm512_set1_ps(m->dx);
    for (uint b = 0u; b < 3u; b++)   /* mac_face_pos */
        p[b] = _mm512_add_ps(_mm512_set1_ps(org[b]), _mm512_mul_ps(_mm512_sub_ps(_mm512_cvtepu32_ps(ijk[b]),
                                                                                _mm512_set1_ps(b == a ? 1.0f : 0.5f)),
                                                                  dx));
    float dt = m->dt, h = 0.5f * dt;
    mac_v16 x = { p[0], p[1], p[2] };
    mac_v16 xm = mac_back16(x, h, mac_velocity16(v, x, m));
    mac_v16 xb = mac_back16(x, dt, mac_velocity16(v, xm, m));
    return _mm512_mask_mov_ps(out, trace, mac_sample16((const float *)v, xb, a, m));
}

/* mac_advect_item for cells c0 .. c0 + 15 (those below ncell). */
static void mac_advect16(uint c0, const float4 *vin, float4 *vout, const uint *flags, const fcl_mac_info *m)
{
    uint ic[3][16], i, j, k;
    mac_coords(c0, m, &i, &j, &k);
    for (uint l = 0u; l < 16u; l++) {   /* the next cells' coordinates without a division each */
        ic[0][l] = i;
        ic[1][l] = j;
        ic[2][l] = k;
        if (++i == m->sy) {
            i = 0u;
            if (++j == m->sz / m->sy) {
                j = 0u;
                k++;
            }
        }
    }
    __m512i ijk[3] = { _mm512_loadu_si512(ic[0]), _mm512_loadu_si512(ic[1]), _mm512_loadu_si512(ic[2]) };
    __mmask16 live = fcl_live16(m->ncell - c0);
    __m512 cur[3], out[3], zero = _mm512_setzero_ps();
    fcl_xyz16(vin, c0, live, &cur[0], &cur[1], &cur[2]);
    for (uint a = 0u; a < 3u; a++)
        out[a] = mac_advect_axis16(c0, live, vin, flags, ijk, a, cur[a], m);
    fcl_put16(vout, c0, live, out[0], out[1], out[2], zero);
}
#endif

/* A `lanes` pass (pass.h): on an AVX-512 host, cells c .. c + 15. */
FCL_INLINE void mac_advect_item(uint c, GLOBAL const float4 *vin, GLOBAL float4 *vout, GLOBAL const uint *flags,
                                const fcl_mac_info *m)
{
#ifdef FCL_AVX512
    if (FCL_LANES_FIT(m->ncell)) {
        mac_advect16(c, vin, vout, flags, m);
        return;
    }
    for (uint k = c; k < c + 16u && k < m->ncell; k++)
        mac_advect_one(k, vin, vout, flags, m);
#else
    mac_advect_one(c, vin, vout, flags, m);
#endif
}
