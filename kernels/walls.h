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
 * corners alike, exact for fluid mirrored at the wall, and free-slip. An
 * image is never closer than its original, so the grid's neighbors suffice.
 * near_walls_within() returns a 3-bit mask of axes with a wall within h
 * (the query radius), and per axis the plane of that wall, or of the
 * nearer wall where none is within h: a list built at earlier positions
 * (PBF's and MPS's iterations move the particles under it) may hold
 * images across a wall the particle has since moved away from, and they
 * must still be mirrored across that wall, not across 0. */
FCL_INLINE uint near_walls_within(float4 p, const fcl_sph_consts *c, float h, float4 *plane)
{
    uint m = 0u;
    float4 lo = c->domain_min, hi = c->domain_max;
    *plane = fcl_f4(0.0f, 0.0f, 0.0f, 0.0f);
    /* Walls made of boundary particles need no images. */
    if (!c->mirror_walls)
        return 0u;
    *plane = fcl_f4(p.x - lo.x <= hi.x - p.x ? lo.x : hi.x, p.y - lo.y <= hi.y - p.y ? lo.y : hi.y,
                    p.z - lo.z <= hi.z - p.z ? lo.z : hi.z, 0.0f);
    if (p.x - lo.x < h) { m |= 1u; plane->x = lo.x; } else if (hi.x - p.x < h) { m |= 1u; plane->x = hi.x; }
    if (p.y - lo.y < h) { m |= 2u; plane->y = lo.y; } else if (hi.y - p.y < h) { m |= 2u; plane->y = hi.y; }
    if (p.z - lo.z < h) { m |= 4u; plane->z = lo.z; } else if (hi.z - p.z < h) { m |= 4u; plane->z = hi.z; }
    return m;
}

/* Near within the support h: what every smoothing pass asks. */
FCL_INLINE uint near_walls(float4 p, const fcl_sph_consts *c, float4 *plane)
{
    return near_walls_within(p, c, c->h, plane);
}

/* The image masks to visit for a particle whose near walls are `near`:
 * every subset of near, 0 (the neighbor itself) first. Interior particles
 * get just {0}, so the mirror loops cost them nothing. */
FCL_INLINE uint image_masks(uint near, uint *masks)
{
    uint k = 0u;
    for (uint m = 0u; m < 8u; m++)
        if ((m & near) == m)
            masks[k++] = m;
    return k;
}

/* p reflected across the planes whose bits are set in m. Most calls have
 * m = 0 (the neighbor itself): that test first, as a well-predicted
 * branch, halved the DFSPH solver iterations' time on the CPU backend. */
FCL_INLINE float4 mirror(float4 p, uint m, float4 plane)
{
    if (!m)
        return p;
    return fcl_f4((m & 1u) ? 2.0f * plane.x - p.x : p.x, (m & 2u) ? 2.0f * plane.y - p.y : p.y,
                  (m & 4u) ? 2.0f * plane.z - p.z : p.z, p.w);
}

/* A velocity mirrored the same way: normal components flip (free slip). */
FCL_INLINE float4 mirror_vel(float4 v, uint m)
{
    if (!m)
        return v;
    return fcl_f4((m & 1u) ? -v.x : v.x, (m & 2u) ? -v.y : v.y, (m & 4u) ? -v.z : v.z, v.w);
}

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
