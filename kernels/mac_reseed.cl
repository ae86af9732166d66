/* mac_reseed.cl - the MAC solver's marker reseeding (mac.reseed = b;
 * beyond the seed). Where the flow strains the liquid, its markers, moved
 * through a field they follow only approximately, bunch into lines (30 in
 * a cell beside empty ones, host/solvers/mac/README.md); the liquid's
 * level set then thins between the lines and a dam break loses a fifth
 * of its volume in 2 s. Each substep, before the markers move, with the
 * markers per cell that mac_mark_fluid counted beside the flags:
 *
 * density: the markers' density over a resting lattice's (mac_density,
 *          the level set's) at the centers of cells holding fewer than
 *          `keep` (the resting count) beside one holding more, and of
 *          those beside them (mac_density_field below, which also serves
 *          the level set and the density correction): counts alone cannot
 *          tell a bunch from a lattice that a gentle strain has slid across
 *          a cell boundary (8 -> 12 and 4 at once), the density can
 * claim:   a taker - fewer than `keep` markers, density under 1 - b, no air
 *          among its six face neighbors (a hole inside the liquid, not its
 *          surface) - names the fullest of its 26 neighbors holding more
 *          than `keep` at a density of 1 + b or more (among equals a hashed
 *          choice, so that no direction is preferred)
 * pick:    each named donor walks its markers in the particle grid's order,
 *          keeps the first `keep` and gives the next ones to its takers in
 *          a fixed neighbor order, up to keep - count each, writing the
 *          taker's index as the marker's destination (0, a ghost cell that
 *          is never a taker: it stays)
 * place:   a given marker moves to a hashed point of its new cell (of its
 *          index and position: repeatable, and the same after a restart)
 *          and takes the grid's velocity there (FLIP's markers carry it)
 *
 * Invariants: counts are sums and each taker names one donor, so the
 * result does not depend on the order work-items run in (the backends
 * agree bit for bit); only a donor writes its markers' destinations, and
 * positions change only in `place`, after every read of them.
 */

#define MAC_NONE 0xffffffffu   /* no donor */

/* A hole in the liquid: not solid, every face neighbor fluid or solid. */
FCL_INLINE int mac_reseed_enclosed(uint c, GLOBAL const uint *flags, const fcl_mac_info *m)
{
    uint sy = m->sy, sz = m->sz;
    return flags[c] != MAC_SOLID && flags[c - 1u] != MAC_AIR && flags[c + 1u] != MAC_AIR &&
           flags[c - sy] != MAC_AIR && flags[c + sy] != MAC_AIR && flags[c - sz] != MAC_AIR &&
           flags[c + sz] != MAC_AIR;
}

/* Neighbor k (0..26, x fastest) of cell c; the ghost layer keeps it in
 * the grid for an interior c. */
FCL_INLINE uint mac_reseed_nb(uint c, int k, const fcl_mac_info *m)
{
    int dx = k % 3 - 1, dy = k / 3 % 3 - 1, dz = k / 9 - 1;
    return (uint)((int)c + dx + dy * (int)m->sy + dz * (int)m->sz);
}

/* By counts alone: a taker may be (fewer than keep, enclosed) or a donor
 * (more than keep, not solid). */
FCL_INLINE int mac_reseed_may_take(uint c, GLOBAL const uint *flags, GLOBAL const uint *count,
                                   const fcl_mac_info *m, uint keep)
{
    return count[c] < keep && mac_reseed_enclosed(c, flags, m);
}

FCL_INLINE int mac_reseed_may_give(uint c, GLOBAL const uint *flags, GLOBAL const uint *count, uint keep)
{
    return count[c] > keep && flags[c] != MAC_SOLID;
}

/* Whether a neighbor of c may give (want 1) or may take (want 0). */
FCL_INLINE int mac_reseed_near(uint c, GLOBAL const uint *flags, GLOBAL const uint *count, const fcl_mac_info *m,
                               uint keep, int want)
{
    int near = 0;
    for (int k = 0; k < 27 && !near; k++) {
        uint n = mac_reseed_nb(c, k, m);
        near = n != c && (want ? mac_reseed_may_give(n, flags, count, keep) : mac_reseed_may_take(n, flags, count, m, keep));
    }
    return near;
}

FCL_INLINE int mac_reseed_is_taker(uint c, GLOBAL const uint *flags, GLOBAL const uint *count,
                                GLOBAL const float *dens, const fcl_mac_info *m, uint keep, float band)
{
    return mac_reseed_may_take(c, flags, count, m, keep) && dens[c] < 1.0f - band;
}

/* The markers' density at the centers of the cells that read it, once
 * per flags (mac.c, ensure_density), one gather serving three readers:
 * the level set's band (mac_band), with `deep` the density correction's
 * deep cells (mac_density_target's test), with `reseed` the reseeding's
 * candidates, a possible taker beside a possible donor and a possible
 * donor beside a possible taker (by counts). Elsewhere 1, which decides
 * nothing. The reseeding once gathered its own, stopping each sum once
 * it decided; full sums decide the same (weights are never negative). */
FCL_INLINE void mac_density_field_item(uint c, GLOBAL const uint *flags, GLOBAL const uint *full,
                                       GLOBAL const uint *count, GLOBAL const float4 *pos, GLOBAL const uint *start,
                                       GLOBAL float *dens, const fcl_grid_info *g, const fcl_mac_info *m,
                                       const fcl_sph_consts *cs, uint deep, uint reseed, uint keep)
{
    int need = mac_band(c, flags, m);
    if (!need && deep && flags[c] == MAC_FLUID) {
        uint i, j, k;
        mac_coords(c, m, &i, &j, &k);
        need = mac_all_within(i, j, k, mac_reach(m, cs), full, 1u, m);
    }
    if (!need && reseed)
        need = (mac_reseed_may_take(c, flags, count, m, keep) && mac_reseed_near(c, flags, count, m, keep, 1)) ||
               (mac_reseed_may_give(c, flags, count, keep) && mac_reseed_near(c, flags, count, m, keep, 0));
    dens[c] = need ? mac_density(c, pos, start, g, m, cs) : 1.0f;
}

FCL_INLINE void mac_reseed_claim_item(uint c, GLOBAL const uint *flags, GLOBAL const uint *count,
                                      GLOBAL const float *dens, GLOBAL uint *req, const fcl_mac_info *m, uint keep,
                                      float band)
{
    uint best = MAC_NONE, most = 0u;
    if (mac_reseed_is_taker(c, flags, count, dens, m, keep, band)) {
        for (int k = 0; k < 27; k++) {
            uint n = mac_reseed_nb(c, k, m);
            uint score = mac_reseed_may_give(n, flags, count, keep) && dens[n] >= 1.0f + band
                             ? count[n] * 256u + (fcl_hash(n, c) >> 24)
                             : 0u;
            if (score > most) {
                most = score;
                best = n;
            }
        }
    }
    req[c] = best;
}

/* Donor c's next taker from neighbor *k on, with its grant in *left. */
FCL_INLINE uint mac_reseed_next(uint c, GLOBAL const uint *count, GLOBAL const uint *req, const fcl_mac_info *m,
                                uint keep, int *k, uint *left)
{
    for (; *k < 27; (*k)++) {
        uint n = mac_reseed_nb(c, *k, m);
        if (n != c && req[n] == c) {
            (*k)++;
            *left = keep - count[n];
            return n;
        }
    }
    return MAC_NONE;
}

/* The particle grid's cells along one axis that can hold markers of the
 * cell centered at x (half width r, a little more than half a cell). */
FCL_INLINE void mac_reseed_span(float x, float r, float o, float inv, uint n, uint *a, uint *b)
{
    *a = grid_axis(x - r, o, inv, n);
    *b = grid_axis(x + r, o, inv, n);
}

FCL_INLINE void mac_reseed_pick_item(uint c, GLOBAL const float4 *pos, GLOBAL const uint *count,
                                     GLOBAL const uint *req, GLOBAL const uint *start, GLOBAL uint *dest,
                                     GLOBAL uint *moved, const fcl_grid_info *g, const fcl_mac_info *m, uint keep)
{
    int k = 0;
    uint left = 0u, to = MAC_NONE, seen = 0u, i, j, l, x0, x1, y0, y1, z0, z1;
    if (count[c] <= keep || (to = mac_reseed_next(c, count, req, m, keep, &k, &left)) == MAC_NONE)
        return;
    mac_coords(c, m, &i, &j, &l);
    float4 x = mac_center(i, j, l, m);
    float r = 0.51f * m->dx;
    mac_reseed_span(x.x, r, g->origin.x, g->inv_cell_size, g->nx, &x0, &x1);
    mac_reseed_span(x.y, r, g->origin.y, g->inv_cell_size, g->ny, &y0, &y1);
    mac_reseed_span(x.z, r, g->origin.z, g->inv_cell_size, g->nz, &z0, &z1);
    for (uint gz = z0; gz <= z1; gz++)
        for (uint gy = y0; gy <= y1; gy++) {
            uint row = g->nx * (gy + g->ny * gz);
            for (uint q = start[row + x0]; q < start[row + x1 + 1u]; q++) {
                if (mac_cell_of(pos[q], m) != c || seen++ < keep)
                    continue;
                dest[q] = to;
                FCL_ATOMIC_INC(moved);
                if (--left == 0u && (to = mac_reseed_next(c, count, req, m, keep, &k, &left)) == MAC_NONE)
                    return;
            }
        }
}

FCL_INLINE void mac_reseed_place_item(uint i, GLOBAL float4 *pos, GLOBAL float4 *vel, GLOBAL float4 *vev,
                                      GLOBAL const uint *dest, GLOBAL const float4 *gv, const fcl_mac_info *m)
{
    uint to = dest[i], a, b, c;
    if (to == 0u)   /* stays: cell 0 is a ghost cell, never a taker */
        return;
    float4 x = pos[i];
    float s = m->inv_dx * 4096.0f;
    uint qx = (uint)((x.x - m->origin.x) * s), qy = (uint)((x.y - m->origin.y) * s),
         qz = (uint)((x.z - m->origin.z) * s), h = fcl_hash(i, fcl_hash(qx, fcl_hash(qy, qz)));
    mac_coords(to, m, &a, &b, &c);
    float4 ctr = mac_center(a, b, c, m);
    /* Within the middle 80 % of the cell, so that it is the cell's. */
    float4 q = fcl_f4(ctr.x + m->dx * (0.8f * fcl_hash01(h, 1u) - 0.4f),
                      ctr.y + m->dx * (0.8f * fcl_hash01(h, 2u) - 0.4f),
                      ctr.z + m->dx * (0.8f * fcl_hash01(h, 3u) - 0.4f), x.w);
    float4 u = mac_velocity(gv, q, m);
    pos[i] = q;
    vel[i] = u;
    vev[i] = u;
}
