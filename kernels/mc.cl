/* mc.cl - surface reconstruction: a scalar field on a node grid at the
 * surface only, and parallel marching cubes over it (Zou et al. 2019 s4,
 * Mueller et al. 2003 s4.2: the field where the surface is).
 *
 * One reconstruction (host/surface/mc.c launches it) is: particle volumes
 * and surface flags -> flag the neighbor-grid cells ("blocks") with
 * particles in their 27 neighbors -> scan -> block list -> label the tiles
 * of listed blocks (t^3 node cells each): empty (no particle reaches them),
 * band (a surface particle reaches them) or interior -> band = band tiles
 * plus interior tiles next to a non-interior one -> scan -> tile list ->
 * phi at the nodes of band tiles -> classify each band cell (case,
 * triangles, owned crossing edges) -> three scans -> compact the cells
 * with triangles -> one vertex per owned crossing edge -> triangles that
 * index those vertices.
 * Invariants: each grid edge is owned by the cell at its lower end (the
 * 3 edges leaving a cell's min corner), so every vertex exists once and
 * neighbouring cells index the same one. Every cell whose corners can
 * differ lies in a listed tile, whatever the surface flags say, so the
 * mesh is watertight: phi is exactly 0 on an empty tile's closed box (no
 * particle within reach); an interior tile off the list has only interior
 * neighbors, and the nodes its cells read are kept at iso or above (the
 * +1 faces computed for it, and the nodes of listed interior tiles whose
 * -1 neighbors are all interior). A listed tile's cells read its own
 * nodes and its +1 neighbors' (computed, or 0 on empty tiles), and its
 * vertex normals one node further (t >= 2 keeps that in the neighbors;
 * they fall back to one-sided differences next to unlisted interior
 * tiles). The tables (host/surface/mc_tables.c) cut both cells sharing a
 * face the same way.
 */

/* Table layout (ints): triangle count per case, then per case up to
 * MC_MAXT triangles of 3 edge numbers. Edge e runs along axis e >> 2 from
 * the corner whose other two coordinates (axes a+1, a+2 mod 3) are the
 * bits of e & 3. A fan of a loop over at most 12 edges has at most 10. */
#define MC_MAXT 10
#define MC_TRI_BASE 256u
#define MC_TRI_STRIDE (3u * MC_MAXT)
#define MC_TABLE_INTS (256u + 256u * MC_TRI_STRIDE)

FCL_INLINE uint mc_node(const fcl_mc_info *m, uint x, uint y, uint z)
{
    return x + m->nx * (y + m->ny * z);
}

/* Node of work item k (also the min corner of cell k): tile list[k / t^3],
 * offset k % t^3 inside it, x fastest. */
FCL_INLINE void mc_item_node(const fcl_mc_info *m, GLOBAL const uint *list, uint k, uint *x, uint *y, uint *z)
{
    uint t = m->t, tile = list[k / (t * t * t)], l = k % (t * t * t);
    *x = (tile % m->tnx) * t + l % t;
    *y = ((tile / m->tnx) % m->tny) * t + (l / t) % t;
    *z = (tile / (m->tnx * m->tny)) * t + l / (t * t);
}

/* Tile k of the listed blocks (tpb^3 per block): its tile coordinates. */
FCL_INLINE void mc_block_tile(const fcl_mc_info *m, const fcl_grid_info *g, GLOBAL const uint *blocks, uint k,
                              uint *tx, uint *ty, uint *tz)
{
    uint q = m->tpb, blk = blocks[k / (q * q * q)], l = k % (q * q * q);
    *tx = (blk % g->nx) * q + l % q;
    *ty = ((blk / g->nx) % g->ny) * q + (l / q) % q;
    *tz = (blk / (g->nx * g->ny)) * q + l / (q * q);
}

FCL_INLINE uint mc_in(GLOBAL const float *phi, const fcl_mc_info *m, uint x, uint y, uint z)
{
    return phi[mc_node(m, x, y, z)] >= m->iso ? 1u : 0u;
}

/* Whether the edge from node (x,y,z) along axis a crosses the surface. */
FCL_INLINE uint mc_crosses(GLOBAL const float *phi, const fcl_mc_info *m, uint x, uint y, uint z, uint a)
{
    return mc_in(phi, m, x, y, z) != mc_in(phi, m, x + (a == 0u), y + (a == 1u), z + (a == 2u));
}

FCL_INLINE uint mc_case(GLOBAL const float *phi, const fcl_mc_info *m, uint x, uint y, uint z)
{
    uint c = 0u;
    for (uint k = 0u; k < 8u; k++)
        c |= mc_in(phi, m, x + (k & 1u), y + ((k >> 1) & 1u), z + (k >> 2)) << k;
    return c;
}

/* Premoze et al. 2003's velocity-stretched kernel: the distance along
 * v_j shrinks by s_j = min(1 + stretch |v_j| / h, max_stretch), so the
 * support becomes an ellipsoid s_j h long in the direction of motion;
 * dividing by s_j keeps the kernel's integral 1. */
FCL_INLINE float mc_w_aniso(float4 v, float dx, float dy, float dz, const fcl_mc_info *m)
{
    float r2 = dx * dx + dy * dy + dz * dz, v2 = v.x * v.x + v.y * v.y + v.z * v.z;
    if (v2 <= 0.0f)
        return w_poly6(r2, m->h2, m->poly6);
    float speed = FCL_SQRT(v2), s = 1.0f + m->stretch * speed / m->h;
    s = s < m->max_stretch ? s : m->max_stretch;
    float along = (dx * v.x + dy * v.y + dz * v.z) / speed;
    float q2 = r2 - along * along * (1.0f - 1.0f / (s * s));
    return w_poly6(q2 > 0.0f ? q2 : 0.0f, m->h2, m->poly6) / s;
}

/* phi = sum_j V_j W(x - x_j) over the 27 neighbor cells of x (vel is
 * read only by the anisotropic field). */
FCL_INLINE float mc_phi_at(GLOBAL const float4 *pos, GLOBAL const float4 *vel, GLOBAL const float *vol,
                           GLOBAL const uint *start, const fcl_grid_info *g, const fcl_mc_info *m, float4 x)
{
    uint lo[9], hi[9];
    uint rows = grid_neighbor_rows(g, start, x, lo, hi);
    float s = 0.0f;
    for (uint r = 0u; r < rows; r++) {
        for (uint j = lo[r]; j < hi[r]; j++) {
            float dx = x.x - pos[j].x, dy = x.y - pos[j].y, dz = x.z - pos[j].z;
            s += vol[j] * (m->field == FCL_MC_ANISO ? mc_w_aniso(vel[j], dx, dy, dz, m)
                                                    : w_poly6(dx * dx + dy * dy + dz * dz, m->h2, m->poly6));
        }
    }
    return s;
}

/* Extent of particles [k FCL_WG, (k+1) FCL_WG) below n: the least and the
 * greatest coordinates into ext[2k] and ext[2k+1], w = 1 in ext[2k] when
 * one of them is not finite (x - x is then not 0). */
FCL_INLINE void mc_bounds_item(uint k, GLOBAL const float4 *pos, GLOBAL float4 *ext, uint n)
{
    uint i0 = k * FCL_WG, i1 = i0 + FCL_WG < n ? i0 + FCL_WG : n;
    float4 lo = pos[i0], hi = lo;
    float bad = 0.0f;
    for (uint i = i0; i < i1; i++) {
        float4 p = pos[i];
        if (!(p.x - p.x == 0.0f && p.y - p.y == 0.0f && p.z - p.z == 0.0f))
            bad = 1.0f;
        lo = fcl_f4(p.x < lo.x ? p.x : lo.x, p.y < lo.y ? p.y : lo.y, p.z < lo.z ? p.z : lo.z, 0.0f);
        hi = fcl_f4(p.x > hi.x ? p.x : hi.x, p.y > hi.y ? p.y : hi.y, p.z > hi.z ? p.z : hi.z, 0.0f);
    }
    lo.w = bad;
    ext[2u * k] = lo;
    ext[2u * k + 1u] = hi;
}

/* A simulation's particle attribute into the reconstruction's own grid,
 * on the device. */
FCL_INLINE void mc_copy_item(uint i, GLOBAL const float4 *src, GLOBAL float4 *dst)
{
    dst[i] = src[i];
}

/* W_poly6 without a branch (d clamped at 0 beyond h): the same value as
 * w_poly6, in a form the native compiler vectorizes over 8 points. */
FCL_INLINE float mc_w6(float r2, const fcl_mc_info *m)
{
    float d = m->h2 - r2;
    d = d > 0.0f ? d : 0.0f;
    return m->poly6 * d * d * d;
}

/* Squared gap between the intervals [a0, a1] and [b0, b1] along one axis. */
FCL_INLINE float mc_gap2(float a0, float a1, float b0, float b1)
{
    float e = b0 > a1 ? b0 - a1 : (a0 > b1 ? a0 - b1 : 0.0f);
    return e * e;
}

/* Whether nothing in the box [lo, hi] lies within reach of the box
 * [b0, b1], with a margin: a skipped particle must contribute exactly 0. */
FCL_INLINE int mc_beyond(float4 lo, float4 hi, float4 b0, float4 b1, float reach2)
{
    return mc_gap2(lo.x, hi.x, b0.x, b1.x) + mc_gap2(lo.y, hi.y, b0.y, b1.y) + mc_gap2(lo.z, hi.z, b0.z, b1.z) >
           1.001f * reach2;
}

/* The cells around cell (bx, by, bz) that may hold a point within reach
 * of the box [b0, b1] (mc_beyond), in the order of a walk (z, y, x);
 * returns how many, at most 27. */
FCL_INLINE uint mc_cells_near(const fcl_grid_info *g, uint bx, uint by, uint bz, float4 b0, float4 b1, float r2,
                              uint *cells)
{
    uint n = 0u;
    for (uint z = bz > 0u ? bz - 1u : 0u; z <= bz + 1u && z < g->nz; z++)
        for (uint y = by > 0u ? by - 1u : 0u; y <= by + 1u && y < g->ny; y++)
            for (uint x = bx > 0u ? bx - 1u : 0u; x <= bx + 1u && x < g->nx; x++) {
                float4 lo = fcl_f4(g->origin.x + (float)x * g->cell_size, g->origin.y + (float)y * g->cell_size,
                                   g->origin.z + (float)z * g->cell_size, 0.0f);
                float4 hi = fcl_f4(lo.x + g->cell_size, lo.y + g->cell_size, lo.z + g->cell_size, 0.0f);
                if (!mc_beyond(lo, hi, b0, b1, r2))
                    cells[n++] = x + g->nx * (y + g->ny * z);
            }
    return n;
}

/* For the particles of cell c, 8 at a time: V_i, Zou's m_i / rho_i with
 * rho_i from the particles themselves (the mass cancels: V_i = 1 /
 * sum_k W_ik, never 0 since k = i counts), or the rest volume for
 * Mueller's color field; and surf_i = 1 for a particle at the surface: its
 * W-weighted neighbor mean lies off it (band_m2), or its neighborhood is
 * thin (band_fill) or narrow (band_spread: a clump of 5 coincident
 * particles weighed as a full neighborhood and was meshed as a box, its
 * tiles labelled interior). Only such particles let phi fall below iso near them
 * (a void inside needs a hole of about a spacing, whose rim particles see
 * it as one or the other). The 27 cells are walked once per 8 particles,
 * less those beyond h of all 8, so every particle meets its nonzero terms
 * in the order of a walk of its own. */
FCL_INLINE void mc_volume_item(uint c, GLOBAL const float4 *pos, GLOBAL const uint *start, GLOBAL float *vol,
                               GLOBAL uint *surf, const fcl_grid_info *g, const fcl_mc_info *m)
{
    uint cx = c % g->nx, cy = (c / g->nx) % g->ny, cz = c / (g->nx * g->ny);
    uint walk = m->field != FCL_MC_MUELLER || m->narrow;
    for (uint i0 = start[c], i1 = start[c + 1u]; i0 < i1; i0 += 8u) {
        uint k = i1 - i0 < 8u ? i1 - i0 : 8u;
        float px[8], py[8], pz[8], s[8], mx[8], my[8], mz[8], m2[8];
        float4 lo = pos[i0], hi = lo;
        for (uint e = 0u; e < 8u; e++) {
            float4 p = pos[i0 + (e < k ? e : 0u)];
            px[e] = p.x, py[e] = p.y, pz[e] = p.z;
            s[e] = mx[e] = my[e] = mz[e] = m2[e] = 0.0f;
            lo = fcl_f4(p.x < lo.x ? p.x : lo.x, p.y < lo.y ? p.y : lo.y, p.z < lo.z ? p.z : lo.z, 0.0f);
            hi = fcl_f4(p.x > hi.x ? p.x : hi.x, p.y > hi.y ? p.y : hi.y, p.z > hi.z ? p.z : hi.z, 0.0f);
        }
        uint cells[27], nc = walk ? mc_cells_near(g, cx, cy, cz, lo, hi, m->h2, cells) : 0u;
        for (uint q = 0u; q < nc; q++) {
            for (uint j = start[cells[q]]; j < start[cells[q] + 1u]; j++) {
                float4 pj = pos[j];
                FCL_LANES
                for (uint e = 0u; e < 8u; e++) {
                    float dx = pj.x - px[e], dy = pj.y - py[e], dz = pj.z - pz[e], r2 = dx * dx + dy * dy + dz * dz;
                    float w = mc_w6(r2, m);
                    s[e] += w;
                    mx[e] += w * dx;
                    my[e] += w * dy;
                    mz[e] += w * dz;
                    m2[e] += w * r2;
                }
            }
        }
        for (uint e = 0u; e < k; e++) {
            vol[i0 + e] = m->field == FCL_MC_MUELLER ? m->volume : 1.0f / s[e];
            surf[i0 + e] = !walk || s[e] < m->band_fill || m2[e] < m->band_spread ||
                           mx[e] * mx[e] + my[e] * my[e] + mz[e] * mz[e] > m->band_m2 * s[e] * s[e];
        }
    }
}

/* flag[c] = 1 when a particle lies in the 27 cells around block c, i.e.
 * when phi can be nonzero somewhere in it; flag[ncells] = 0 so that the
 * exclusive scan's last entry is the block count. csurf[c] = 1 when block
 * c holds a surface particle (the tile labels visit only those blocks'
 * particles to look for one). */
FCL_INLINE void mc_block_flag_item(uint c, GLOBAL const uint *start, GLOBAL const uint *surf, GLOBAL uint *flag,
                                   GLOBAL uint *csurf, const fcl_grid_info *g)
{
    if (c >= g->ncells) {
        flag[c] = 0u;
        return;
    }
    float4 centre = fcl_f4(g->origin.x + ((float)(c % g->nx) + 0.5f) * g->cell_size,
                           g->origin.y + ((float)((c / g->nx) % g->ny) + 0.5f) * g->cell_size,
                           g->origin.z + ((float)(c / (g->nx * g->ny)) + 0.5f) * g->cell_size, 0.0f);
    uint lo[9], hi[9], any = 0u, s = 0u;
    uint rows = grid_neighbor_rows(g, start, centre, lo, hi);
    for (uint r = 0u; r < rows; r++)
        any |= hi[r] > lo[r] ? 1u : 0u;
    flag[c] = any;
    for (uint j = start[c]; j < start[c + 1u] && !s; j++)
        s = surf[j];
    csurf[c] = s;
}

/* After the scan: the list of flagged blocks. */
FCL_INLINE void mc_block_list_item(uint c, GLOBAL const uint *off, GLOBAL uint *list)
{
    if (off[c + 1u] > off[c])
        list[off[c]] = c;
}

/* Labels of up to 8 tiles of a listed block (work item k: block
 * k / chunks, its tiles 8 (k % chunks) on), each over its closed box (its
 * cells' nodes, the +1 faces included): 0 empty (no particle within
 * reach, so phi = 0 on every node its cells read), 1 band (a surface
 * particle within reach, or the narrow band is off), 2 interior. The
 * particles within reach lie in the 27 cells around the block (reach =
 * cell). A cell is read while some tile has no particle within reach yet,
 * and then only if it holds a surface particle, so interior blocks cost
 * a few distances; each particle is tested against the 8 boxes at once. */
FCL_INLINE void mc_tile_label_item(uint k, GLOBAL const float4 *pos, GLOBAL const uint *surf, GLOBAL const uint *start,
                                   GLOBAL const uint *csurf, GLOBAL const uint *blocks, GLOBAL uint *label,
                                   const fcl_grid_info *g, const fcl_mc_info *m)
{
    uint q = m->tpb, nt = q * q * q, chunks = (nt + 7u) / 8u, first = 8u * (k % chunks);
    uint nl = nt - first < 8u ? nt - first : 8u, tile[8], near[8], band[8], need_near = 1u, need_band = m->narrow;
    float lx[8], ly[8], lz[8], side = (float)m->t * m->cell;
    for (uint e = 0u; e < 8u; e++) {
        uint tx, ty, tz;
        mc_block_tile(m, g, blocks, (k / chunks) * nt + first + (e < nl ? e : 0u), &tx, &ty, &tz);
        tile[e] = tx + m->tnx * (ty + m->tny * tz);
        lx[e] = m->origin.x + (float)tx * side;
        ly[e] = m->origin.y + (float)ty * side;
        lz[e] = m->origin.z + (float)tz * side;
        near[e] = 0u;
        band[e] = m->narrow ? 0u : 1u;
    }
    uint blk = blocks[k / chunks], bx = blk % g->nx, by = (blk / g->nx) % g->ny, bz = blk / (g->nx * g->ny);
    for (uint z = bz > 0u ? bz - 1u : 0u; z <= bz + 1u && z < g->nz && (need_near || need_band); z++)
        for (uint y = by > 0u ? by - 1u : 0u; y <= by + 1u && y < g->ny; y++)
            for (uint x = bx > 0u ? bx - 1u : 0u; x <= bx + 1u && x < g->nx; x++) {
                uint c = x + g->nx * (y + g->ny * z);
                if (!need_near && !(need_band && csurf[c]))
                    continue;
                for (uint j = start[c]; j < start[c + 1u]; j++) {
                    float4 p = pos[j];
                    uint sj = surf[j];
                    FCL_LANES
                    for (uint e = 0u; e < 8u; e++) {
                        float ex = lx[e] - p.x, ey = ly[e] - p.y, ez = lz[e] - p.z;
                        ex = ex > 0.0f ? ex : (-ex > side ? -ex - side : 0.0f);
                        ey = ey > 0.0f ? ey : (-ey > side ? -ey - side : 0.0f);
                        ez = ez > 0.0f ? ez : (-ez > side ? -ez - side : 0.0f);
                        uint in = ex * ex + ey * ey + ez * ez < m->reach2 ? 1u : 0u;
                        near[e] |= in;
                        band[e] |= in & sj;
                    }
                }
                need_near = need_band = 0u;
                for (uint e = 0u; e < nl; e++) {
                    need_near |= !near[e];
                    need_band |= near[e] && !band[e];
                }
            }
    for (uint e = 0u; e < nl; e++)
        label[tile[e]] = near[e] ? (band[e] ? 1u : 2u) : 0u;
}

/* Label of tile (x, y, z), 0 (empty) off the tile grid; bit 4 (set by
 * mc_tile_list) marks the tiles on the band list. */
FCL_INLINE uint mc_label_at(GLOBAL const uint *label, const fcl_mc_info *m, int x, int y, int z)
{
    if (x < 0 || y < 0 || z < 0 || x >= (int)m->tnx || y >= (int)m->tny || z >= (int)m->tnz)
        return 0u;
    return label[(uint)x + m->tnx * ((uint)y + m->tny * (uint)z)];
}

/* flag[k] = 1 for the tiles phi and marching cubes visit (the band list):
 * band tiles, and interior tiles with a non-interior one among their 26
 * neighbors. The interior tiles left out are surrounded by interior
 * tiles. flag[n] = 0 so that the exclusive scan's last entry is the
 * count. */
FCL_INLINE void mc_tile_flag_item(uint k, GLOBAL const uint *blocks, GLOBAL const uint *label, GLOBAL uint *flag,
                                  const fcl_grid_info *g, const fcl_mc_info *m, uint n)
{
    if (k >= n) {
        flag[k] = 0u;
        return;
    }
    uint tx, ty, tz;
    mc_block_tile(m, g, blocks, k, &tx, &ty, &tz);
    uint own = mc_label_at(label, m, (int)tx, (int)ty, (int)tz), keep = own == 1u;
    for (uint q = 0u; q < 27u && own == 2u && !keep; q++) {
        int dx = (int)(q % 3u) - 1, dy = (int)((q / 3u) % 3u) - 1, dz = (int)(q / 9u) - 1;
        uint l = mc_label_at(label, m, (int)tx + dx, (int)ty + dy, (int)tz + dz);
        keep = own == 2u && l != 2u;
    }
    flag[k] = keep;
}

/* After the scan: the list of flagged tiles, each one's slot in it for the
 * edge-owner lookup (slots of other tiles are never read), and bit 4 in
 * its label. */
FCL_INLINE void mc_tile_list_item(uint k, GLOBAL const uint *blocks, GLOBAL const uint *off, GLOBAL uint *list,
                                  GLOBAL uint *slot, GLOBAL uint *label, const fcl_grid_info *g, const fcl_mc_info *m)
{
    if (off[k + 1u] == off[k])
        return;
    uint tx, ty, tz;
    mc_block_tile(m, g, blocks, k, &tx, &ty, &tz);
    uint tile = tx + m->tnx * (ty + m->tny * tz);
    list[off[k]] = tile;
    slot[tile] = off[k];
    label[tile] |= 4u;
}

/* phi at the own nodes of listed tiles, 2 x 2 x 2 per work item (fewer at
 * the far side of a tile of odd t): the 27 cells around the tile's block
 * are walked once for the 8 nodes, skipping cells and particles beyond
 * reach of them, so each node meets the same nonzero terms in the same
 * order as a walk of its own (mc_phi_at) and gets the same bits.
 * An interior tile whose -1 neighbors are all interior keeps its nodes at
 * iso or above: cells of interior tiles off the list may read them, and
 * must see "inside" even where the surface flags miss a hole, so that the
 * mesh stays closed. Next to an empty or band tile its nodes stay exact:
 * that tile's cells read them (and phi is 0 on an empty tile's box). */
FCL_INLINE void mc_field_item(uint k, GLOBAL const float4 *pos, GLOBAL const float4 *vel, GLOBAL const float *vol,
                              GLOBAL const uint *start, GLOBAL const uint *list, GLOBAL const uint *label,
                              GLOBAL float *phi, const fcl_grid_info *g, const fcl_mc_info *m)
{
    uint t = m->t, q = (t + 1u) / 2u, tile = list[k / (q * q * q)], l = k % (q * q * q);
    uint lx = 2u * (l % q), ly = 2u * ((l / q) % q), lz = 2u * (l / (q * q));
    uint ox = (tile % m->tnx) * t + lx, oy = ((tile / m->tnx) % m->tny) * t + ly;
    uint oz = (tile / (m->tnx * m->tny)) * t + lz;
    uint nx = t - lx < 2u ? 1u : 2u, ny = t - ly < 2u ? 1u : 2u, nz = t - lz < 2u ? 1u : 2u;
    float px[8], py[8], pz[8]; /* node e at (e & 1, e >> 1 & 1, e >> 2) */
    for (uint e = 0u; e < 8u; e++) {
        px[e] = m->origin.x + (float)(ox + (e & 1u)) * m->cell;
        py[e] = m->origin.y + (float)(oy + ((e >> 1) & 1u)) * m->cell;
        pz[e] = m->origin.z + (float)(oz + (e >> 2)) * m->cell;
    }
    float4 b0 = fcl_f4(px[0], py[0], pz[0], 0.0f);
    float4 b1 = fcl_f4(px[nx - 1u], py[2u * (ny - 1u)], pz[4u * (nz - 1u)], 0.0f);
    float acc[8] = { 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f };
    uint bx = ox / m->b, by = oy / m->b, bz = oz / m->b, R = m->field == FCL_MC_ANISO;
    uint cells[27], nc = mc_cells_near(g, bx, by, bz, b0, b1, m->reach2, cells);
    for (uint q = 0u; q < nc; q++) {
        for (uint j = start[cells[q]]; j < start[cells[q] + 1u]; j++) {
            float4 pj = pos[j];
            if (mc_beyond(pj, pj, b0, b1, m->reach2))
                continue;
            float vj = vol[j];
            if (R) {
                float4 vv = vel[j];
                for (uint e = 0u; e < 8u; e++)
                    acc[e] += vj * mc_w_aniso(vv, px[e] - pj.x, py[e] - pj.y, pz[e] - pj.z, m);
            } else {
                FCL_LANES
                for (uint e = 0u; e < 8u; e++) {
                    float dx = px[e] - pj.x, dy = py[e] - pj.y, dz = pz[e] - pj.z;
                    acc[e] += vj * mc_w6(dx * dx + dy * dy + dz * dz, m);
                }
            }
        }
    }
    uint tx = tile % m->tnx, ty = (tile / m->tnx) % m->tny, tz = tile / (m->tnx * m->tny), clamp = 1u;
    for (uint e = 0u; e < 8u && clamp; e++)
        clamp = (mc_label_at(label, m, (int)tx - (int)(e & 1u), (int)ty - (int)((e >> 1) & 1u),
                             (int)tz - (int)(e >> 2)) & 3u) == 2u;
    for (uint e = 0u; e < 8u; e++) {
        uint ex = e & 1u, ey = (e >> 1) & 1u, ez = e >> 2;
        if (ex < nx && ey < ny && ez < nz)
            phi[mc_node(m, ox + ex, oy + ey, oz + ez)] = clamp && acc[e] < m->iso ? m->iso : acc[e];
    }
}

/* phi at the +1 faces of listed tile k where they belong to an interior
 * tile off the list (nothing else computes those nodes, and the listed
 * tile's cells read them), kept at iso or above like that tile's other
 * nodes. Region o (bits x, y, z) is the part of the faces owned by the
 * neighbor at +o: a face, an edge or the corner. Most tiles have no such
 * neighbor and return after 7 label reads. */
FCL_INLINE void mc_field_face_item(uint k, GLOBAL const float4 *pos, GLOBAL const float4 *vel, GLOBAL const float *vol,
                                   GLOBAL const uint *start, GLOBAL const uint *list, GLOBAL const uint *label,
                                   GLOBAL float *phi, const fcl_grid_info *g, const fcl_mc_info *m)
{
    uint t = m->t, tile = list[k];
    uint tx = tile % m->tnx, ty = (tile / m->tnx) % m->tny, tz = tile / (m->tnx * m->tny);
    for (uint o = 1u; o < 8u; o++) {
        uint ox = o & 1u, oy = (o >> 1) & 1u, oz = o >> 2;
        if (mc_label_at(label, m, (int)(tx + ox), (int)(ty + oy), (int)(tz + oz)) != 2u)
            continue; /* listed (computes its own), empty (phi = 0) or off the grid */
        uint nx = ox ? 1u : t, ny = oy ? 1u : t, nz = oz ? 1u : t;
        for (uint l = 0u; l < nx * ny * nz; l++) {
            uint x = tx * t + (ox ? t : l % nx), y = ty * t + (oy ? t : (l / nx) % ny);
            uint z = tz * t + (oz ? t : l / (nx * ny));
            float4 p = fcl_f4(m->origin.x + (float)x * m->cell, m->origin.y + (float)y * m->cell,
                              m->origin.z + (float)z * m->cell, 0.0f);
            float v = mc_phi_at(pos, vel, vol, start, g, m, p);
            phi[mc_node(m, x, y, z)] = v < m->iso ? m->iso : v;
        }
    }
}

/* Per listed cell: triangles of its case, owned crossing edges, and
 * whether it is active; item ncell writes zeros (the scans' totals). */
FCL_INLINE void mc_classify_item(uint t, GLOBAL const float *phi, GLOBAL const uint *list, GLOBAL uint *ntri,
                                 GLOBAL uint *nedge, GLOBAL uint *act, GLOBAL const int *tab, const fcl_mc_info *m,
                                 uint ncell)
{
    uint nt = 0u, ne = 0u;
    if (t < ncell) {
        uint x, y, z;
        mc_item_node(m, list, t, &x, &y, &z);
        nt = (uint)tab[mc_case(phi, m, x, y, z)];
        for (uint a = 0u; a < 3u; a++)
            ne += mc_crosses(phi, m, x, y, z, a);
    }
    ntri[t] = nt;
    nedge[t] = ne;
    act[t] = nt > 0u ? 1u : 0u;
}

FCL_INLINE void mc_compact_item(uint t, GLOBAL const uint *off, GLOBAL uint *cells)
{
    if (off[t + 1u] > off[t])
        cells[off[t]] = t;
}

/* Central differences of phi at a node; one-sided at the grid's faces and
 * next to interior tiles off the list (their inner nodes hold no phi). */
FCL_INLINE float mc_diff(GLOBAL const float *phi, GLOBAL const uint *label, const fcl_mc_info *m, uint x, uint y,
                         uint z, uint a)
{
    uint n[3] = { m->nx, m->ny, m->nz }, c[3] = { x, y, z }, lo[3] = { x, y, z }, hi[3] = { x, y, z };
    lo[a] = c[a] > 0u ? c[a] - 1u : 0u;
    hi[a] = c[a] + 1u < n[a] ? c[a] + 1u : c[a];
    uint t = m->t;
    if (mc_label_at(label, m, (int)(lo[0] / t), (int)(lo[1] / t), (int)(lo[2] / t)) == 2u)
        lo[a] = c[a];
    if (mc_label_at(label, m, (int)(hi[0] / t), (int)(hi[1] / t), (int)(hi[2] / t)) == 2u)
        hi[a] = c[a];
    if (hi[a] == lo[a])
        return 0.0f;
    float span = (float)(hi[a] - lo[a]) * m->cell;
    return (phi[mc_node(m, hi[0], hi[1], hi[2])] - phi[mc_node(m, lo[0], lo[1], lo[2])]) / span;
}

#define MC_S_MIN 1e-3f

/* The vertices of cell t's owned crossing edges, in axis order, at the
 * linear interpolation of phi = iso (MC_S_MIN off the nodes); normals are
 * -grad phi (outward), interpolated like the position. */
FCL_INLINE void mc_vertices_item(uint k, GLOBAL const float *phi, GLOBAL const uint *list,
                                 GLOBAL const uint *cells, GLOBAL const uint *eoff, GLOBAL const uint *label,
                                 GLOBAL float4 *vert, GLOBAL float4 *nrm, const fcl_mc_info *m)
{
    uint t = cells[k], x, y, z;
    mc_item_node(m, list, t, &x, &y, &z);
    uint out = eoff[t];
    float p0 = phi[mc_node(m, x, y, z)];
    for (uint a = 0u; a < 3u; a++) {
        uint x1 = x + (a == 0u), y1 = y + (a == 1u), z1 = z + (a == 2u);
        if (!mc_crosses(phi, m, x, y, z, a))
            continue;
        float s = (m->iso - p0) / (phi[mc_node(m, x1, y1, z1)] - p0);
        /* Kept 1e-3 of a cell off the nodes: below about 1e-5, x + s
         * rounded to the node in float, and every crossing edge from it
         * took the same point, its triangles of zero area (4 in a 0.25 d
         * mesh of a dam break; a review). 1e-3 cell moves no surface by
         * anything a particle's noise would show. */
        s = s < MC_S_MIN ? MC_S_MIN : (s > 1.0f - MC_S_MIN ? 1.0f - MC_S_MIN : s);
        float gr[3];
        for (uint d = 0u; d < 3u; d++) {
            float g0 = mc_diff(phi, label, m, x, y, z, d);
            gr[d] = g0 + s * (mc_diff(phi, label, m, x1, y1, z1, d) - g0);
        }
        float len = FCL_SQRT(gr[0] * gr[0] + gr[1] * gr[1] + gr[2] * gr[2]);
        float inv = len > 0.0f ? -1.0f / len : 0.0f;
        vert[out] = fcl_f4(m->origin.x + ((float)x + (a == 0u ? s : 0.0f)) * m->cell,
                           m->origin.y + ((float)y + (a == 1u ? s : 0.0f)) * m->cell,
                           m->origin.z + ((float)z + (a == 2u ? s : 0.0f)) * m->cell, 0.0f);
        nrm[out] = fcl_f4(gr[0] * inv, gr[1] * inv, gr[2] * inv, 0.0f);
        out++;
    }
}

/* Index of the vertex on edge e of the cell at node (x,y,z): the edge's
 * owner is the cell at its lower end; its vertices follow in axis order. */
FCL_INLINE uint mc_edge_vertex(uint e, uint x, uint y, uint z, GLOBAL const float *phi, GLOBAL const uint *slot,
                               GLOBAL const uint *eoff, const fcl_mc_info *m)
{
    uint a = e >> 2, o[3] = { 0u, 0u, 0u };
    o[(a + 1u) % 3u] = e & 1u;
    o[(a + 2u) % 3u] = (e >> 1) & 1u;
    uint ox = x + o[0], oy = y + o[1], oz = z + o[2], t = m->t;
    uint tile = ox / t + m->tnx * (oy / t + m->tny * (oz / t));
    uint owner = slot[tile] * t * t * t + ox % t + t * (oy % t + t * (oz % t));
    uint rank = 0u;
    for (uint k = 0u; k < a; k++)
        rank += mc_crosses(phi, m, ox, oy, oz, k);
    return eoff[owner] + rank;
}

FCL_INLINE void mc_triangles_item(uint k, GLOBAL const float *phi, GLOBAL const uint *list, GLOBAL const uint *slot,
                                  GLOBAL const uint *cells, GLOBAL const uint *toff, GLOBAL const uint *eoff,
                                  GLOBAL uint *tri, GLOBAL const int *tab, const fcl_mc_info *m)
{
    uint t = cells[k], x, y, z;
    mc_item_node(m, list, t, &x, &y, &z);
    uint c = mc_case(phi, m, x, y, z), nt = (uint)tab[c], out = 3u * toff[t];
    GLOBAL const int *edges = tab + MC_TRI_BASE + c * MC_TRI_STRIDE;
    for (uint v = 0u; v < 3u * nt; v++)
        tri[out + v] = mc_edge_vertex((uint)edges[v], x, y, z, phi, slot, eoff, m);
}
