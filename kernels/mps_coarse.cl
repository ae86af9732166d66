/* mps_coarse.cl - the coarse level of MPS's two-level preconditioner
 * (mps.preconditioner = grid; host/solvers/mps/coarse.c): the unknowns
 * aggregated by blocks of agg^3 cells of the neighbor grid they are
 * sorted in (mps.coarse_cells), the
 * coarse system a 7-point Laplacian on those cells (fluid where a cell
 * holds an unknown, air, p = 0, where it holds none, solid walls around)
 * solved by the MAC solver's multigrid V-cycle (mac_mg.cl) on a padded
 * grid of the same cells.
 * Invariant: restriction and prolongation use the same aggregation (the
 * cell ranges of the sort, recorded per particle in pcell by the flags
 * pass), so the preconditioner D^-1 + s P G^-1 P^T stays symmetric.
 */

/* The particles of padded coarse cell c, which covers agg^3 cells of the
 * neighbor grid g: at most agg^2 rows of contiguous sorted indices, row
 * k (< agg^2) in [*lo, *hi). 0 for a ghost cell or a row past the grid. */
FCL_INLINE uint mps_coarse_row(uint c, uint k, uint agg, const fcl_mac_info *m, GLOBAL const uint *start,
                               const fcl_grid_info *g, uint *lo, uint *hi)
{
    uint i, j, l;
    mac_coords(c, m, &i, &j, &l);
    if (i < 1u || j < 1u || l < 1u || i > m->nx || j > m->ny || l > m->nz)
        return 0u;
    uint x0 = (i - 1u) * agg, y = (j - 1u) * agg + k % agg, z = (l - 1u) * agg + k / agg;
    uint x1 = x0 + agg - 1u < g->nx ? x0 + agg - 1u : g->nx - 1u;
    if (y >= g->ny || z >= g->nz)
        return 0u;
    uint row = g->nx * (y + g->ny * z);
    *lo = start[row + x0];
    *hi = start[row + x1 + 1u];
    return 1u;
}

/* Flags of the coarse cells (fluid: an unknown inside; air: none; solid:
 * the ghost layer), and each particle's coarse cell. */
FCL_INLINE void mps_coarse_flags_item(uint c, GLOBAL const uint *start, GLOBAL const float *surf,
                                      GLOBAL uint *flags, GLOBAL uint *pcell, const fcl_mac_info *m,
                                      const fcl_grid_info *g, uint agg)
{
    uint f = MAC_AIR, lo, hi, any = 0u;
    for (uint k = 0u; k < agg * agg; k++) {
        if (!mps_coarse_row(c, k, agg, m, start, g, &lo, &hi))
            continue;
        any = 1u;
        for (uint i = lo; i < hi; i++) {
            pcell[i] = c;
            f = surf[i] == 0.0f ? MAC_FLUID : f;
        }
    }
    flags[c] = any ? f : MAC_SOLID;
}

/* b = P^T r: each fluid cell's sum of its unknowns' residuals. */
FCL_INLINE void mps_coarse_restrict_item(uint c, GLOBAL const uint *start, GLOBAL const float *surf,
                                         GLOBAL const float *r, GLOBAL const uint *flags, GLOBAL float *b,
                                         const fcl_mac_info *m, const fcl_grid_info *g, uint agg)
{
    uint lo, hi;
    float s = 0.0f;
    for (uint k = 0u; flags[c] == MAC_FLUID && k < agg * agg; k++)
        if (mps_coarse_row(c, k, agg, m, start, g, &lo, &hi))
            for (uint i = lo; i < hi; i++)
                s += surf[i] == 0.0f ? r[i] : 0.0f;
    b[c] = s;
}

/* z = D^-1 r + scale P e: Jacobi plus the coarse correction, which the
 * free-surface rows (identity rows) do not get. */
FCL_INLINE void mps_coarse_prolong_item(uint i, GLOBAL const float *r, GLOBAL const float *diag,
                                        GLOBAL const float *surf, GLOBAL const uint *pcell, GLOBAL const float *e,
                                        GLOBAL float *z, float scale)
{
    float zi = r[i] / diag[i];
    z[i] = surf[i] == 0.0f ? zi + scale * e[pcell[i]] : zi;
}
