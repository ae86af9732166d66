/* mac_mg.cl - the multigrid preconditioner of the MAC solver's pressure
 * equation (McAdams, Sifakis, Teran 2010, "A parallel multigrid Poisson
 * solver for fluids simulation on large grids"): one V-cycle from zero is
 * the z = M^-1 r of the conjugate gradients (host/solvers/mac/mac_mg.c).
 *
 * Levels: level 0 is the solver's grid with its own diagonal (ghost-fluid
 * 1/theta terms); level l + 1 has ceil(n / 2) cells per axis of level l,
 * the same padded layout (fcl_mac_info: ghost layer of solid cells). A
 * coarse cell is air if any of its (up to 8) children is air, else fluid
 * if any child is fluid, else solid (McAdams' rule: Dirichlet wins).
 * A coarse level's operator is the 7-point one rediscretized on its flags:
 * diagonal = open (non-solid) neighbors, -1 per fluid neighbor. Its scale
 * (the 1/4 per level a Galerkin product gives an unscaled Laplacian) is
 * folded into the restriction: b_c = 1/2 sum w r_f = 4 (P^T / 8) r.
 * Transfers: cell-centered trilinear prolongation P (3/4 to the parent,
 * 1/4 to the parent's neighbor on the child's side, per axis) and its
 * transpose, so M = P-smoothed V-cycle is symmetric: damped Jacobi, the
 * same sweeps before and after (the host's invariant).
 * Invariant: every pass writes 0 at non-fluid cells (ghosts included),
 * so a transfer may read any neighbor without bounds on flags.
 */

/* The coarse cell's flag from its children: air > fluid > solid. */
FCL_INLINE void mac_mg_coarsen_item(uint c, GLOBAL const uint *ff, GLOBAL uint *cf, const fcl_mac_info *mf,
                                    const fcl_mac_info *mc)
{
    uint I, J, K;
    mac_coords(c, mc, &I, &J, &K);
    if (I < 1u || I > mc->nx || J < 1u || J > mc->ny || K < 1u || K > mc->nz) {
        cf[c] = MAC_SOLID;
        return;
    }
    int air = 0, fluid = 0;
    for (uint dk = 0u; dk < 2u; dk++)
        for (uint dj = 0u; dj < 2u; dj++)
            for (uint di = 0u; di < 2u; di++) {
                uint i = 2u * I - 1u + di, j = 2u * J - 1u + dj, k = 2u * K - 1u + dk;
                if (i > mf->nx || j > mf->ny || k > mf->nz)
                    continue;
                uint f = ff[i + mf->sy * j + mf->sz * k];
                air |= f == MAC_AIR;
                fluid |= f == MAC_FLUID;
            }
    cf[c] = air ? MAC_AIR : (fluid ? MAC_FLUID : MAC_SOLID);
}

/* A coarse level's diagonal: its open neighbors (1 where not fluid, so a
 * division never meets 0). */
FCL_INLINE void mac_mg_diag_item(uint c, GLOBAL const uint *flags, GLOBAL float *diag, const fcl_mac_info *m)
{
    if (flags[c] != MAC_FLUID) {
        diag[c] = 1.0f;
        return;
    }
    uint sy = m->sy, sz = m->sz;
    float d = mac_open(flags, c - 1u) + mac_open(flags, c + 1u) + mac_open(flags, c - sy) + mac_open(flags, c + sy) +
              mac_open(flags, c - sz) + mac_open(flags, c + sz);
    diag[c] = d > 0.0f ? d : 1.0f;
}

/* (A x)_c on fluid cell c: diag x_c - sum of fluid neighbors. The
 * V-cycle's x is 0 off fluid (the invariant above), so the neighbors
 * are read without their flags: the same sum, 6 loads fewer. */
FCL_INLINE float mac_mg_ax(GLOBAL const float *x, GLOBAL const float *diag, uint c, const fcl_mac_info *m)
{
    uint sy = m->sy, sz = m->sz;
    return diag[c] * x[c] - (x[c - 1u] + x[c + 1u] + x[c - sy] + x[c + sy] + x[c - sz] + x[c + sz]);
}

/* One damped Jacobi sweep xout = xin + omega D^-1 (b - A xin); zero: xin
 * is taken as 0 (the first sweep of a V-cycle, xin not read). */
FCL_INLINE void mac_mg_smooth_item(uint c, GLOBAL const float *b, GLOBAL const float *xin, GLOBAL float *xout,
                                   GLOBAL const uint *flags, GLOBAL const float *diag, const fcl_mac_info *m,
                                   float omega, uint zero)
{
    if (flags[c] != MAC_FLUID) {
        xout[c] = 0.0f;
        return;
    }
    if (zero) {
        xout[c] = omega * b[c] / diag[c];
        return;
    }
    xout[c] = xin[c] + omega * (b[c] - mac_mg_ax(xin, diag, c, m)) / diag[c];
}

/* r = b - A x on fluid cells, 0 elsewhere. */
FCL_INLINE void mac_mg_residual_item(uint c, GLOBAL const float *b, GLOBAL const float *x, GLOBAL float *r,
                                     GLOBAL const uint *flags, GLOBAL const float *diag, const fcl_mac_info *m)
{
    r[c] = flags[c] == MAC_FLUID ? b[c] - mac_mg_ax(x, diag, c, m) : 0.0f;
}

/* b_c = 1/2 sum_f w r_f over the 4 x 4 x 4 fine cells of a coarse fluid
 * cell (the fine residual is 0 off fluid, ghosts included): fine cells
 * 2I - 2 .. 2I + 1 (padded indices) along each axis weigh 1/4, 3/4, 3/4,
 * 1/4. */
FCL_INLINE void mac_mg_restrict_item(uint c, GLOBAL const float *rf, GLOBAL float *bc, GLOBAL const uint *cf,
                                     const fcl_mac_info *mf, const fcl_mac_info *mc)
{
    if (cf[c] != MAC_FLUID) {
        bc[c] = 0.0f;
        return;
    }
    uint I, J, K;
    mac_coords(c, mc, &I, &J, &K);
    /* Rows past the fine grid's last ghost cut off; each x row summed
     * on its own first (a short loop the host compiler unrolls). */
    const float w[4] = { 0.25f, 0.75f, 0.75f, 0.25f };
    uint ni = 2u * I + 1u <= mf->nx + 1u ? 4u : 3u, nj = 2u * J + 1u <= mf->ny + 1u ? 4u : 3u,
         nk = 2u * K + 1u <= mf->nz + 1u ? 4u : 3u;
    float sum = 0.0f;
    for (uint k = 0u; k < nk; k++)
        for (uint j = 0u; j < nj; j++) {
            GLOBAL const float *row = rf + (2u * I - 2u) + mf->sy * (2u * J - 2u + j) + mf->sz * (2u * K - 2u + k);
            float s = 0.0f;
            for (uint i = 0u; i < ni; i++)
                s += w[i] * row[i];
            sum += w[j] * w[k] * s;
        }
    bc[c] = 0.5f * sum;
}

/* The coarse parent of fine sample i along an axis and the neighbor on
 * the child's side (padded indices; either may be a ghost, where e = 0). */
FCL_INLINE void mac_mg_parents(uint i, uint *I, uint *N)
{
    *I = ((i - 1u) >> 1) + 1u;
    *N = (i & 1u) ? *I - 1u : *I + 1u;
}

/* x_f += P e_c: trilinear over the 8 coarse cells around a fine fluid
 * cell (3/4 and 1/4 per axis). */
FCL_INLINE void mac_mg_prolong_item(uint c, GLOBAL const float *ec, GLOBAL float *xf, GLOBAL const uint *ff,
                                    const fcl_mac_info *mf, const fcl_mac_info *mc)
{
    if (ff[c] != MAC_FLUID)
        return;
    uint i, j, k, ci[2], cj[2], ck[2];
    mac_coords(c, mf, &i, &j, &k);
    mac_mg_parents(i, &ci[0], &ci[1]);
    mac_mg_parents(j, &cj[0], &cj[1]);
    mac_mg_parents(k, &ck[0], &ck[1]);
    float sum = 0.0f;
    for (uint a = 0u; a < 2u; a++)
        for (uint b = 0u; b < 2u; b++)
            for (uint e = 0u; e < 2u; e++) {
                float w = (a ? 0.25f : 0.75f) * (b ? 0.25f : 0.75f) * (e ? 0.25f : 0.75f);
                sum += w * ec[ci[e] + mc->sy * cj[b] + mc->sz * ck[a]];
            }
    xf[c] += sum;
}

/* The coarsest level of a grid with no air cell (a closed box full of
 * fluid: the pressure is defined up to a constant): v minus its mean over
 * the fluid cells, run by one work item (at most 10^3 cells). Applied to
 * b before the coarsest sweeps and to x after, the coarse solve is
 * Pi S Pi with Pi the symmetric projection off the constants: without it
 * the sweeps grow the constant mode of an inconsistent restricted b
 * without bound, and float32 CG stalls on the huge pressures. A level
 * with an air cell is left alone (coarsening keeps air: the coarsest has
 * none only when the grid has none). */
FCL_INLINE void mac_mg_center_item(uint c, GLOBAL float *v, GLOBAL const uint *flags, const fcl_mac_info *m)
{
    (void)c;
    float sum = 0.0f;
    uint fluid = 0u;
    for (uint q = 0u; q < m->ncell; q++) {
        if (flags[q] == MAC_AIR)
            return;
        if (flags[q] == MAC_FLUID) {
            sum += v[q];
            fluid++;
        }
    }
    float mean = fluid ? sum / (float)fluid : 0.0f;
    for (uint q = 0u; q < m->ncell; q++)
        if (flags[q] == MAC_FLUID)
            v[q] -= mean;
}

/* Sweep k of the coarsest solve from zero: the buffer it reads and the
 * one it writes, so that the last of n lands in x (t the other). */
FCL_INLINE void mac_mg_sweep_bufs(uint k, uint n, GLOBAL float *x, GLOBAL float *t, GLOBAL float **in,
                                  GLOBAL float **out)
{
    /* Sweep n - 1 writes x, n - 2 writes t, ...: sweep k writes x when
     * n - 1 - k is even. */
    *out = ((n - 1u - k) & 1u) ? t : x;
    *in = ((n - 1u - k) & 1u) ? x : t;
}

/* The coarsest level's solve in one launch, serially in one work item
 * (CPU devices; mac_mg_coarsest_wg is the GPU's): b centred when
 * `center` (a coarser level of a grid without air), `sweeps` damped
 * Jacobi sweeps from zero ending in x (t the scratch), x centred. The
 * launches it replaces (a centring, one per sweep, a centring) cost more
 * than their work on a level of at most 10^3 cells; each cell's
 * arithmetic is mac_mg_smooth_item's, so x is the same bits. */
FCL_INLINE void mac_mg_coarsest_item(uint c, GLOBAL float *b, GLOBAL float *x, GLOBAL float *t,
                                     GLOBAL const uint *flags, GLOBAL const float *diag, const fcl_mac_info *m,
                                     float omega, uint sweeps, uint center)
{
    (void)c;
    if (center)
        mac_mg_center_item(0u, b, flags, m);
    for (uint k = 0u; k < sweeps; k++) {
        GLOBAL float *in, *out;
        mac_mg_sweep_bufs(k, sweeps, x, t, &in, &out);
        for (uint q = 0u; q < m->ncell; q++)
            mac_mg_smooth_item(q, b, in, out, flags, diag, m, omega, k == 0u ? 1u : 0u);
    }
    if (center)
        mac_mg_center_item(0u, x, flags, m);
}

#ifdef FCL_DEVICE
/* mac_mg_coarsest_item by one work-group (GPUs): the cells split over
 * its items, a barrier between sweeps; the centring's sum by its first
 * item, in the serial order. */
__kernel __attribute__((reqd_work_group_size(FCL_WG, 1, 1)))
void mac_mg_coarsest_wg(__global float *b, __global float *x, __global float *t, __global const uint *flags,
                        __global const float *diag, fcl_mac_info m, float omega, uint sweeps, uint center)
{
    uint lid = (uint)get_local_id(0);
    if (center && lid == 0u)
        mac_mg_center_item(0u, b, flags, &m);
    barrier(CLK_GLOBAL_MEM_FENCE);
    for (uint k = 0u; k < sweeps; k++) {
        __global float *in, *out;
        mac_mg_sweep_bufs(k, sweeps, x, t, &in, &out);
        for (uint q = lid; q < m.ncell; q += FCL_WG)
            mac_mg_smooth_item(q, b, in, out, flags, diag, &m, omega, k == 0u ? 1u : 0u);
        barrier(CLK_GLOBAL_MEM_FENCE);
    }
    if (center && lid == 0u)
        mac_mg_center_item(0u, x, flags, &m);
}
#endif
