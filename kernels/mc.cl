/* mc.cl - surface reconstruction: a scalar field on a node grid near the
 * fluid, and parallel marching cubes over it (Zou et al. 2019 s4: the field
 * only on near-surface blocks found through the cell-start structure).
 *
 * One reconstruction (host/surface/mc.c launches it) is: particle volumes ->
 * flag the neighbor-grid cells ("blocks") with particles in their 27
 * neighbors -> scan -> block list -> phi at the nodes of listed blocks ->
 * classify each listed cell (case, triangles, owned crossing edges) ->
 * three scans -> compact the cells with triangles -> one vertex per owned
 * crossing edge -> triangles that index those vertices.
 * Invariants: each grid edge is owned by the cell at its lower end (the
 * 3 edges leaving a cell's min corner), so every vertex exists once and
 * neighbouring cells index the same one. phi is exactly 0 at every node
 * outside the listed blocks (no particle within h of them), so the sweep
 * misses no crossing. The tables (host/surface/mc.c, mc_tables) cut both cells
 * sharing a face the same way, so the mesh is closed where phi is.
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

/* Node of work item t (also the min corner of cell t): block list[t / b^3],
 * offset t % b^3 inside it, x fastest. */
FCL_INLINE void mc_item_node(const fcl_mc_info *m, const fcl_grid_info *g, GLOBAL const uint *list, uint t,
                             uint *x, uint *y, uint *z)
{
    uint b = m->b, blk = list[t / (b * b * b)], l = t % (b * b * b);
    *x = (blk % g->nx) * b + l % b;
    *y = ((blk / g->nx) % g->ny) * b + (l / b) % b;
    *z = (blk / (g->nx * g->ny)) * b + l / (b * b);
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

/* V_i: Zou's m_i / rho_i with rho_i from the particles themselves (the mass
 * cancels: V_i = 1 / sum_k W_ik, never 0 since k = i counts), or the rest
 * volume for Mueller's color field. */
FCL_INLINE void mc_volume_item(uint i, GLOBAL const float4 *pos, GLOBAL const uint *start, GLOBAL float *vol,
                               const fcl_grid_info *g, const fcl_mc_info *m)
{
    if (m->field == FCL_MC_MUELLER) {
        vol[i] = m->volume;
        return;
    }
    uint lo[9], hi[9];
    float4 p = pos[i];
    uint rows = grid_neighbor_rows(g, start, p, lo, hi);
    float s = 0.0f;
    for (uint r = 0u; r < rows; r++) {
        for (uint j = lo[r]; j < hi[r]; j++) {
            float dx = p.x - pos[j].x, dy = p.y - pos[j].y, dz = p.z - pos[j].z;
            s += w_poly6(dx * dx + dy * dy + dz * dz, m->h2, m->poly6);
        }
    }
    vol[i] = 1.0f / s;
}

/* flag[c] = 1 when a particle lies in the 27 cells around block c, i.e.
 * when phi can be nonzero somewhere in it; flag[ncells] = 0 so that the
 * exclusive scan's last entry is the block count. */
FCL_INLINE void mc_block_flag_item(uint c, GLOBAL const uint *start, GLOBAL uint *flag, const fcl_grid_info *g)
{
    if (c >= g->ncells) {
        flag[c] = 0u;
        return;
    }
    float4 centre = fcl_f4(g->origin.x + ((float)(c % g->nx) + 0.5f) * g->cell_size,
                           g->origin.y + ((float)((c / g->nx) % g->ny) + 0.5f) * g->cell_size,
                           g->origin.z + ((float)(c / (g->nx * g->ny)) + 0.5f) * g->cell_size, 0.0f);
    uint lo[9], hi[9], any = 0u;
    uint rows = grid_neighbor_rows(g, start, centre, lo, hi);
    for (uint r = 0u; r < rows; r++)
        any |= hi[r] > lo[r] ? 1u : 0u;
    flag[c] = any;
}

/* After the scan: the list of flagged blocks, and each block's slot in it
 * (~0 when not listed) for the edge-owner lookup. */
FCL_INLINE void mc_block_list_item(uint c, GLOBAL const uint *off, GLOBAL uint *list, GLOBAL uint *slot)
{
    uint listed = off[c + 1u] > off[c];
    if (listed)
        list[off[c]] = c;
    slot[c] = listed ? off[c] : 0xffffffffu;
}

FCL_INLINE void mc_field_item(uint t, GLOBAL const float4 *pos, GLOBAL const float4 *vel, GLOBAL const float *vol,
                              GLOBAL const uint *start, GLOBAL const uint *list, GLOBAL float *phi,
                              const fcl_grid_info *g, const fcl_mc_info *m)
{
    uint x, y, z;
    mc_item_node(m, g, list, t, &x, &y, &z);
    float4 p = fcl_f4(m->origin.x + (float)x * m->cell, m->origin.y + (float)y * m->cell,
                      m->origin.z + (float)z * m->cell, 0.0f);
    phi[mc_node(m, x, y, z)] = mc_phi_at(pos, vel, vol, start, g, m, p);
}

/* Per listed cell: triangles of its case, owned crossing edges, and
 * whether it is active; item ncell writes zeros (the scans' totals). */
FCL_INLINE void mc_classify_item(uint t, GLOBAL const float *phi, GLOBAL const uint *list, GLOBAL uint *ntri,
                                 GLOBAL uint *nedge, GLOBAL uint *act, GLOBAL const int *tab,
                                 const fcl_grid_info *g, const fcl_mc_info *m, uint ncell)
{
    uint nt = 0u, ne = 0u;
    if (t < ncell) {
        uint x, y, z;
        mc_item_node(m, g, list, t, &x, &y, &z);
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

/* Central differences of phi at a node; one-sided at the grid's faces. */
FCL_INLINE float mc_diff(GLOBAL const float *phi, const fcl_mc_info *m, uint x, uint y, uint z, uint a)
{
    uint n[3] = { m->nx, m->ny, m->nz }, c[3] = { x, y, z }, lo[3] = { x, y, z }, hi[3] = { x, y, z };
    lo[a] = c[a] > 0u ? c[a] - 1u : 0u;
    hi[a] = c[a] + 1u < n[a] ? c[a] + 1u : c[a];
    float span = (float)(hi[a] - lo[a]) * m->cell;
    return (phi[mc_node(m, hi[0], hi[1], hi[2])] - phi[mc_node(m, lo[0], lo[1], lo[2])]) / span;
}

/* The vertices of cell t's owned crossing edges, in axis order, at the
 * linear interpolation of phi = iso; normals are -grad phi (outward),
 * interpolated like the position. */
FCL_INLINE void mc_vertices_item(uint k, GLOBAL const float *phi, GLOBAL const uint *list,
                                 GLOBAL const uint *cells, GLOBAL const uint *eoff, GLOBAL float4 *vert,
                                 GLOBAL float4 *nrm, const fcl_grid_info *g, const fcl_mc_info *m)
{
    uint t = cells[k], x, y, z;
    mc_item_node(m, g, list, t, &x, &y, &z);
    uint out = eoff[t];
    float p0 = phi[mc_node(m, x, y, z)];
    for (uint a = 0u; a < 3u; a++) {
        uint x1 = x + (a == 0u), y1 = y + (a == 1u), z1 = z + (a == 2u);
        if (!mc_crosses(phi, m, x, y, z, a))
            continue;
        float s = (m->iso - p0) / (phi[mc_node(m, x1, y1, z1)] - p0);
        float gr[3];
        for (uint d = 0u; d < 3u; d++) {
            float g0 = mc_diff(phi, m, x, y, z, d);
            gr[d] = g0 + s * (mc_diff(phi, m, x1, y1, z1, d) - g0);
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
                               GLOBAL const uint *eoff, const fcl_grid_info *g, const fcl_mc_info *m)
{
    uint a = e >> 2, o[3] = { 0u, 0u, 0u };
    o[(a + 1u) % 3u] = e & 1u;
    o[(a + 2u) % 3u] = (e >> 1) & 1u;
    uint ox = x + o[0], oy = y + o[1], oz = z + o[2], b = m->b;
    uint blk = ox / b + g->nx * (oy / b + g->ny * (oz / b));
    uint owner = slot[blk] * b * b * b + ox % b + b * (oy % b + b * (oz % b));
    uint rank = 0u;
    for (uint k = 0u; k < a; k++)
        rank += mc_crosses(phi, m, ox, oy, oz, k);
    return eoff[owner] + rank;
}

FCL_INLINE void mc_triangles_item(uint k, GLOBAL const float *phi, GLOBAL const uint *list, GLOBAL const uint *slot,
                                  GLOBAL const uint *cells, GLOBAL const uint *toff, GLOBAL const uint *eoff,
                                  GLOBAL uint *tri, GLOBAL const int *tab, const fcl_grid_info *g,
                                  const fcl_mc_info *m)
{
    uint t = cells[k], x, y, z;
    mc_item_node(m, g, list, t, &x, &y, &z);
    uint c = mc_case(phi, m, x, y, z), nt = (uint)tab[c], out = 3u * toff[t];
    GLOBAL const int *edges = tab + MC_TRI_BASE + c * MC_TRI_STRIDE;
    for (uint v = 0u; v < 3u * nt; v++)
        tri[out + v] = mc_edge_vertex((uint)edges[v], x, y, z, phi, slot, eoff, g, m);
}
