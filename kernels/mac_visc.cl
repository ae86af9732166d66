/* mac_visc.cl - the MAC solver's implicit viscosity (Bridson's notes,
 * backward Euler): (I - nu dt L) u = u* for every face component beside
 * fluid, one symmetric positive definite system over the float4 field
 * viewed as 4 ncell rows (row 4c + a: component a of cell c's lower
 * face; w and the faces that are not unknown are identity rows), solved
 * by the core's conjugate gradients (host/solvers/mac/mac.c).
 * A neighbor of the same component that is unknown couples (-k, k = nu
 * dt / dx^2); a solid one is no-slip: across the component's axis the
 * sample sits half a cell from the wall and its ghost is -u (2k on the
 * diagonal), along it the neighbor is the wall face itself, u = 0 (k);
 * an air face beyond the unknowns is a zero-gradient (free surface)
 * neighbor and adds nothing. A discrete sine mode vanishing at the walls
 * is then an exact eigenvector (tests/test_mac_physics.c).
 * Invariant: unknown faces are exactly the ones mac_advect traces: real,
 * open, beside a fluid cell.
 */

/* Face (i, j, k, a): 1 unknown, 2 solid (a wall face, or outside the
 * grid), 0 neither (air, Neumann). */
FCL_INLINE uint mac_visc_kind(GLOBAL const uint *flags, int i, int j, int k, uint a, const fcl_mac_info *m)
{
    if (i < 0 || j < 0 || k < 0 || i > (int)m->nx + 1 || j > (int)m->ny + 1 || k > (int)m->nz + 1)
        return 2u;
    uint c = (uint)i + m->sy * (uint)j + m->sz * (uint)k;
    if (!mac_face_real((uint)i, (uint)j, (uint)k, a, m) || mac_face_solid(flags, c, a, m))
        return 2u;
    uint n = c - mac_stride(a, m);
    return flags[c] == MAC_FLUID || flags[n] == MAC_FLUID ? 1u : 0u;
}

/* y_a = A x_a at cell c's face a (diag only: the diagonal). */
FCL_INLINE float mac_visc_row(GLOBAL const float4 *x, GLOBAL const uint *flags, uint c, uint a, const fcl_mac_info *m,
                              float kdt, int diag_only)
{
    uint i, j, k;
    mac_coords(c, m, &i, &j, &k);
    float xc = diag_only ? 0.0f : mac_comp(x[c], a);
    if (mac_visc_kind(flags, (int)i, (int)j, (int)k, a, m) != 1u)
        return diag_only ? 1.0f : xc;
    float d = 1.0f, off = 0.0f;
    for (uint b = 0u; b < 3u; b++)
        for (int s = -1; s <= 1; s += 2) {
            int ni = (int)i + (b == 0u ? s : 0), nj = (int)j + (b == 1u ? s : 0), nk = (int)k + (b == 2u ? s : 0);
            uint kind = mac_visc_kind(flags, ni, nj, nk, a, m);
            if (kind == 1u) {
                d += kdt;
                if (!diag_only)
                    off += mac_comp(x[(uint)ni + m->sy * (uint)nj + m->sz * (uint)nk], a);
            } else if (kind == 2u) {
                d += b == a ? kdt : 2.0f * kdt;
            }
        }
    return diag_only ? d : d * xc - kdt * off;
}

/* The diagonal of the system, 4 rows per cell. */
FCL_INLINE void mac_visc_diag_item(uint c, GLOBAL const uint *flags, GLOBAL float4 *diag, const fcl_mac_info *m,
                                   float kdt)
{
    diag[c] = fcl_f4(mac_visc_row(diag, flags, c, 0u, m, kdt, 1), mac_visc_row(diag, flags, c, 1u, m, kdt, 1),
                     mac_visc_row(diag, flags, c, 2u, m, kdt, 1), 1.0f);
}

/* y = A x, matrix-free. */
FCL_INLINE void mac_visc_matvec_item(uint c, GLOBAL const float4 *x, GLOBAL float4 *y, GLOBAL const uint *flags,
                                     const fcl_mac_info *m, float kdt)
{
    y[c] = fcl_f4(mac_visc_row(x, flags, c, 0u, m, kdt, 0), mac_visc_row(x, flags, c, 1u, m, kdt, 0),
                  mac_visc_row(x, flags, c, 2u, m, kdt, 0), x[c].w);
}
