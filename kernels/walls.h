/* walls.h - the domain's box walls, shared by every solver's passes:
 * mirror images of neighbors across near walls (boundary.walls = mirror)
 * and the clamp that keeps integrated particles inside.
 * Invariant: pure functions of a position, a velocity and fcl_sph_consts;
 * an image is never closer to the particle than its original, so any
 * neighbor search that finds the originals finds the images too.
 */
#ifndef FCL_WALLS_H
#define FCL_WALLS_H

/* Walls as mirrors. A particle within h of a wall misses the neighbors
 * the wall hides; mirror images of its real neighbors across the near
 * walls stand in for them (Monaghan's ghost particles): faces, edges and
 * corners alike, exact for fluid mirrored at the wall, and free-slip.
 *
 * An image is named by a 6-bit mask, 2 bits per axis a (bits 2a, 2a + 1):
 * 0 the neighbor's own coordinate, 1 its reflection across the low wall,
 * 2 across the high wall, 3 its reflection across both, a shift by twice
 * the extent towards the particle (the image of an image: needed where
 * the extent is under the query radius, as in a quasi-2-D slab one
 * spacing deep at support 2). Axes combine freely: a corner's image is a
 * reflection on two axes. Walls are named, not "the nearer one", so a
 * list built at earlier positions (PBF's and MPS's iterations move the
 * particles under it) means the same images when read. The set is
 * complete where every mirrored extent is at least half the query radius
 * (the host notes a narrower one): the shift away from the particle, and
 * the further images, are then out of range. An image is never closer
 * than its original, so any neighbor search that finds the originals
 * finds the images too. Only one wall of an axis was mirrored once: a 2 cm slab
 * between mirror walls at 1 cm spacing read its second layer 19 % light
 * (a review). */
#define FCL_IMG_LO 1u
#define FCL_IMG_HI 2u
#define FCL_IMG_SHIFT 3u

/* What a particle's images need: twice the walls' coordinates (an image
 * across a wall w is 2 w - q), twice the extents, and the particle. */
typedef struct fcl_images {
    float4 lo2, hi2, w2, p;
} fcl_images;

/* The image codes a particle at x may need on one axis, as a 4-bit set
 * (bit k: code k): itself always, a wall within h, and the shift where
 * the farther wall's image can come within h (extent + nearer gap < h). */
FCL_INLINE uint walls_axis(float x, float lo, float hi, float h)
{
    float a = x - lo, b = hi - x, gap = a < b ? a : b;
    return 1u | (a < h ? 2u : 0u) | (b < h ? 4u : 0u) | ((hi - lo) + gap < h ? 8u : 0u);
}

/* The images particle p may have within h: per axis a a 4-bit set of
 * codes at bits 4a (walls_axis); 0x111 is none (interior particles, and
 * walls of boundary particles, which need none). *img gets what mirror()
 * reads. */
FCL_INLINE uint near_walls_within(float4 p, const fcl_sph_consts *c, float h, fcl_images *img)
{
    float4 lo = c->domain_min, hi = c->domain_max;
    img->lo2 = fcl_f4(2.0f * lo.x, 2.0f * lo.y, 2.0f * lo.z, 0.0f);
    img->hi2 = fcl_f4(2.0f * hi.x, 2.0f * hi.y, 2.0f * hi.z, 0.0f);
    img->w2 = fcl_f4(2.0f * (hi.x - lo.x), 2.0f * (hi.y - lo.y), 2.0f * (hi.z - lo.z), 0.0f);
    img->p = p;
    if (!c->mirror_walls)
        return 0x111u;
    return walls_axis(p.x, lo.x, hi.x, h) | walls_axis(p.y, lo.y, hi.y, h) << 4 | walls_axis(p.z, lo.z, hi.z, h) << 8;
}

/* Near within the support h: what every smoothing pass asks. */
FCL_INLINE uint near_walls(float4 p, const fcl_sph_consts *c, fcl_images *img)
{
    return near_walls_within(p, c, c->h, img);
}

FCL_INLINE uint walls_count4(uint s)
{
    return (s & 1u) + ((s >> 1) & 1u) + ((s >> 2) & 1u) + ((s >> 3) & 1u);
}

/* How many images (the neighbor itself included) the sets `near` name. */
FCL_INLINE uint image_count(uint near)
{
    return walls_count4(near & 15u) * walls_count4((near >> 4) & 15u) * walls_count4((near >> 8) & 15u);
}

/* The k-th of them (k < image_count): mixed radix, x the fastest digit,
 * so k = 0 is the neighbor itself and a particle near one wall per axis
 * visits x, y, xy, z, xz, yz, xyz as the subsets of the axes come. */
FCL_INLINE uint image_mask(uint near, uint k)
{
    uint m = 0u;
    for (uint a = 0u; a < 3u; a++) {
        uint set = (near >> (4u * a)) & 15u, na = walls_count4(set), ka = k % na, code = 0u;
        k /= na;
        for (uint b = 0u; b < 4u; b++)
            if ((set >> b) & 1u) {
                if (ka == 0u) {
                    code = b;
                    break;
                }
                ka--;
            }
        m |= code << (2u * a);
    }
    return m;
}

/* Coordinate q under one axis's code: the same operations in every
 * backend and twin (2 w - q, q +- 2 extent), so the bits agree. */
FCL_INLINE float mirror_axis(float q, uint code, float lo2, float hi2, float w2, float p)
{
    return code == FCL_IMG_LO      ? lo2 - q
           : code == FCL_IMG_HI    ? hi2 - q
           : code == FCL_IMG_SHIFT ? (p > q ? q + w2 : q - w2)
                                   : q;
}

/* q's image m. Most calls have m = 0 (the neighbor itself): that test
 * first, as a well-predicted branch, halved the DFSPH solver iterations'
 * time on the CPU backend. */
FCL_INLINE float4 mirror(float4 q, uint m, fcl_images img)
{
    if (!m)
        return q;
    return fcl_f4(mirror_axis(q.x, m & 3u, img.lo2.x, img.hi2.x, img.w2.x, img.p.x),
                  mirror_axis(q.y, (m >> 2) & 3u, img.lo2.y, img.hi2.y, img.w2.y, img.p.y),
                  mirror_axis(q.z, (m >> 4) & 3u, img.lo2.z, img.hi2.z, img.w2.z, img.p.z), q.w);
}

/* q's image m by selects, no branch on m, for the loops the host
 * compiler vectorizes across neighbors (DFSPH's and PBF's solver sums);
 * images 0 (a constant where it is inlined): q itself, no selects made,
 * for a particle whose entries hold no image (nl_plain). */
FCL_INLINE float4 mirror_lanes(float4 q, uint m, fcl_images img, uint images)
{
    if (!images)
        return q;
    return fcl_f4(mirror_axis(q.x, m & 3u, img.lo2.x, img.hi2.x, img.w2.x, img.p.x),
                  mirror_axis(q.y, (m >> 2) & 3u, img.lo2.y, img.hi2.y, img.w2.y, img.p.y),
                  mirror_axis(q.z, (m >> 4) & 3u, img.lo2.z, img.hi2.z, img.w2.z, img.p.z), q.w);
}

/* Whether code flips the normal component: one reflection does, a shift
 * (two reflections) does not. */
FCL_INLINE uint mirror_flips(uint code)
{
    return code == FCL_IMG_LO || code == FCL_IMG_HI;
}

/* A velocity mirrored the same way: normal components flip (free slip). */
FCL_INLINE float4 mirror_vel(float4 v, uint m)
{
    if (!m)
        return v;
    return fcl_f4(mirror_flips(m & 3u) ? -v.x : v.x, mirror_flips((m >> 2) & 3u) ? -v.y : v.y,
                  mirror_flips((m >> 4) & 3u) ? -v.z : v.z, v.w);
}

#ifdef FCL_AVX512
/* mirror_axis on 16 lanes of codes (the native backend's twins). */
FCL_INLINE16 __m512 mirror16_axis(__m512 q, __m512i code, float lo2, float hi2, float w2, float p)
{
    __mmask16 c1 = _mm512_cmpeq_epi32_mask(code, _mm512_set1_epi32((int)FCL_IMG_LO));
    __mmask16 c2 = _mm512_cmpeq_epi32_mask(code, _mm512_set1_epi32((int)FCL_IMG_HI));
    __mmask16 c3 = _mm512_cmpeq_epi32_mask(code, _mm512_set1_epi32((int)FCL_IMG_SHIFT));
    __mmask16 up = c3 & _mm512_cmp_ps_mask(_mm512_set1_ps(p), q, _CMP_GT_OQ);
    __m512 r = _mm512_mask_sub_ps(q, c1, _mm512_set1_ps(lo2), q);
    r = _mm512_mask_sub_ps(r, c2, _mm512_set1_ps(hi2), q);
    r = _mm512_mask_add_ps(r, up, q, _mm512_set1_ps(w2));
    return _mm512_mask_sub_ps(r, c3 & (__mmask16)~up, q, _mm512_set1_ps(w2));
}

/* Axis a's code of 16 masks. */
FCL_INLINE16 __m512i mirror16_code(__m512i m, uint a)
{
    return _mm512_and_si512(_mm512_srli_epi32(m, 2u * a), _mm512_set1_epi32(3));
}

/* The lanes whose image flips axis a's velocity (mirror_flips). */
FCL_INLINE16 __mmask16 mirror16_flips(__m512i m, uint a)
{
    __m512i code = mirror16_code(m, a);
    return _mm512_cmpeq_epi32_mask(code, _mm512_set1_epi32((int)FCL_IMG_LO)) |
           _mm512_cmpeq_epi32_mask(code, _mm512_set1_epi32((int)FCL_IMG_HI));
}

/* One axis of 16 points under one code c for all (a row of candidates
 * under one image): the reflections a subtraction each, as before the
 * shifts, which alone compare (the per-lane form cost MPS's list build
 * at mirror walls half as much again). */
FCL_INLINE16 __m512 mirror16_axis_one(__m512 q, uint c, float lo2, float hi2, float w2, float p)
{
    if (c == FCL_IMG_LO)
        return _mm512_sub_ps(_mm512_set1_ps(lo2), q);
    if (c == FCL_IMG_HI)
        return _mm512_sub_ps(_mm512_set1_ps(hi2), q);
    if (c == FCL_IMG_SHIFT) {
        __mmask16 up = _mm512_cmp_ps_mask(_mm512_set1_ps(p), q, _CMP_GT_OQ);
        return _mm512_mask_sub_ps(_mm512_add_ps(q, _mm512_set1_ps(w2)), (__mmask16)~up, q, _mm512_set1_ps(w2));
    }
    return q;
}

/* x, y and z of 16 points under one image mask m for all, in place. */
FCL_INLINE16 void mirror16_one(__m512 *qx, __m512 *qy, __m512 *qz, uint m, fcl_images img)
{
    *qx = mirror16_axis_one(*qx, m & 3u, img.lo2.x, img.hi2.x, img.w2.x, img.p.x);
    *qy = mirror16_axis_one(*qy, (m >> 2) & 3u, img.lo2.y, img.hi2.y, img.w2.y, img.p.y);
    *qz = mirror16_axis_one(*qz, (m >> 4) & 3u, img.lo2.z, img.hi2.z, img.w2.z, img.p.z);
}

/* x, y and z of 16 images (masks m) of the points (qx, qy, qz), in place. */
FCL_INLINE16 void mirror16(__m512 *qx, __m512 *qy, __m512 *qz, __m512i m, fcl_images img)
{
    *qx = mirror16_axis(*qx, mirror16_code(m, 0u), img.lo2.x, img.hi2.x, img.w2.x, img.p.x);
    *qy = mirror16_axis(*qy, mirror16_code(m, 1u), img.lo2.y, img.hi2.y, img.w2.y, img.p.y);
    *qz = mirror16_axis(*qz, mirror16_code(m, 2u), img.lo2.z, img.hi2.z, img.w2.z, img.p.z);
}
#endif

/* The box walls as a clamp: the position kept inside, and the normal
 * speed reflected with the restitution where it points out. */
FCL_INLINE float wall_pos(float x, float lo, float hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}

FCL_INLINE float wall_vel(float x, float v, float lo, float hi, float rest)
{
    return ((x < lo && v < 0.0f) || (x > hi && v > 0.0f)) ? -rest * v : v;
}

/* The clamp again after the obstacles' projection, which may push a
 * particle out through a wall: a polygon ramp meeting the floor pushed
 * wcsph particles 1.3e-4 m below it (a review). r: the particles' radius,
 * as the first clamp. */
FCL_INLINE float4 wall_keep(float4 p, float4 lo, float4 hi, float r)
{
    return fcl_f4(wall_pos(p.x, lo.x + r, hi.x - r), wall_pos(p.y, lo.y + r, hi.y - r),
                  wall_pos(p.z, lo.z + r, hi.z - r), p.w);
}

#endif
