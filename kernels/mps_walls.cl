/* mps_walls.cl - Koshizuka & Oka's wall particles as pressure unknowns
 * (mps.wall_pressure = solve; host/solvers/mps/walls.c): layer 0 of the
 * boundary particles (bpos.w = 0) gets a row of the pressure equation of
 * its own, the dummy layers behind it only complete n*. The unknowns are
 * one vector x of n fluid values then nb wall values (wall b at off + b,
 * off = n); dummy and surface walls are pinned rows (diag 1, b 0).
 *
 * wall density:  n*_b = sum w_n over its fluid neighbors (list wf, the
 *                step's x*) and its boundary neighbors (list wb, all
 *                layers); pinned if a dummy or n*_b < beta n0
 * wall assemble: sum_j (p_b - p_j) w_l 2 rho0 / (rho0 + rho_j) over fluid
 *                j and layer-0 walls = K (n*_b - n0) / n0, the fluid rows'
 *                own weights seen from the other end (so A stays
 *                symmetric); x_b starts at the w-weighted mean of its
 *                fluid neighbors' last pressures (no state to checkpoint)
 * fluid rows:    mps_assemble's boundary loop puts layer-0 weights in
 *                the boundary list's plane (bcoef) instead of ghosts;
 *                mps_matvec_walls adds their terms to y = A x.
 * Invariant: a weight between a fluid particle and a wall is computed
 * from the same positions with the same factor at both ends.
 */

FCL_INLINE void mps_wall_density_item(uint b, GLOBAL const float4 *bpos, GLOBAL const float4 *pos,
                                      GLOBAL const uint *wfcount, GLOBAL const uint *wfidx, const fcl_nlist_info *wfl,
                                      GLOBAL const uint *wbcount, GLOBAL const uint *wbidx, const fcl_nlist_info *wbl,
                                      GLOBAL float *wnd, GLOBAL float *wsurf, const fcl_mps_consts *d)
{
    float4 pb = bpos[b];
    float n = 0.0f;
    forall_cross_neighbors_at(wfl, wfcount, wfidx, b, j, e) {
        float r2 = mps_d2(pos[j], pb);
        if (r2 < d->re_n2)
            n += mps_w(r2, d->re_n, d);
    }
    forall_cross_neighbors_at(wbl, wbcount, wbidx, b, k, e2) {
        float r2 = mps_d2(bpos[k], pb);
        if (k != b && r2 < d->re_n2)
            n += mps_w(r2, d->re_n, d);
    }
    wnd[b] = n;
    wsurf[b] = pb.w != 0.0f || n < d->beta * d->n0 ? 1.0f : 0.0f;
}

/* Row off + b: diagonal, right-hand side and the starting value. */
FCL_INLINE void mps_wall_assemble_item(uint b, GLOBAL const float4 *bpos, GLOBAL const float4 *pos,
                                       GLOBAL const uint *wfcount, GLOBAL const uint *wfidx,
                                       const fcl_nlist_info *wfl, GLOBAL const uint *wbcount,
                                       GLOBAL const uint *wbidx, const fcl_nlist_info *wbl, GLOBAL const float *wnd,
                                       GLOBAL const float *wsurf, GLOBAL const float *rhob, GLOBAL const float *prs,
                                       GLOBAL float *diag, GLOBAL float *rhs, GLOBAL float *x, uint off,
                                       const fcl_mps_consts *d)
{
    float4 pb = bpos[b];
    float a = 0.0f, sw = 0.0f, sp = 0.0f;
    forall_cross_neighbors_at(wfl, wfcount, wfidx, b, j, e) {
        float r2 = mps_d2(pos[j], pb);
        if (r2 < d->re_l2) {
            float w = mps_wall_weight(r2, rhob[j], d);
            a += w;
            sw += w;
            sp += w * prs[j];
        }
    }
    forall_cross_neighbors_at(wbl, wbcount, wbidx, b, k, e2) {
        float r2 = mps_d2(bpos[k], pb);
        if (k != b && bpos[k].w == 0.0f && r2 < d->re_l2)
            a += mps_w(r2, d->re_l, d);
    }
    uint pinned = wsurf[b] != 0.0f;
    diag[off + b] = pinned ? 1.0f : a;
    rhs[off + b] = pinned ? 0.0f : d->src_k * (wnd[b] - d->n0) / d->n0;
    x[off + b] = pinned || sw <= 0.0f ? 0.0f : sp / sw;
}

/* y_b = diag_b x_b - sum of the unknown neighbors' weighted values. */
FCL_INLINE void mps_wall_matvec_item(uint b, GLOBAL const float4 *bpos, GLOBAL const float4 *pos,
                                     GLOBAL const uint *wfcount, GLOBAL const uint *wfidx, const fcl_nlist_info *wfl,
                                     GLOBAL const uint *wbcount, GLOBAL const uint *wbidx, const fcl_nlist_info *wbl,
                                     GLOBAL const float *wsurf, GLOBAL const float *surf, GLOBAL const float *rhob,
                                     GLOBAL const float *diag, GLOBAL const float *x, GLOBAL float *y, uint off,
                                     const fcl_mps_consts *d)
{
    float s = 0.0f;
    if (wsurf[b] == 0.0f) {
        float4 pb = bpos[b];
        forall_cross_neighbors_at(wfl, wfcount, wfidx, b, j, e) {
            float r2 = mps_d2(pos[j], pb);
            if (r2 < d->re_l2 && surf[j] == 0.0f)
                s += mps_wall_weight(r2, rhob[j], d) * x[j];
        }
        forall_cross_neighbors_at(wbl, wbcount, wbidx, b, k, e2) {
            float r2 = mps_d2(bpos[k], pb);
            if (k != b && wsurf[k] == 0.0f && r2 < d->re_l2)
                s += mps_w(r2, d->re_l, d) * x[off + k];
        }
    }
    y[off + b] = diag[off + b] * x[off + b] - s;
}

/* The fluid rows' wall terms: y_i -= sum_b bcoef x_(off + b). */
FCL_INLINE void mps_matvec_walls_item(uint i, GLOBAL const float *x, GLOBAL float *y, GLOBAL const float *bcoef,
                                      GLOBAL const uint *bcount, GLOBAL const uint *bidx, const fcl_nlist_info *bl,
                                      uint off)
{
    float s = 0.0f;
    forall_cross_neighbors_at(bl, bcount, bidx, i, b, e) {
        s += bcoef[e] * x[off + b];
    }
    y[i] -= s;
}

/* y[offy + i] = x[offx + i]: the fluid part of x to and from the pressure attribute. */
FCL_INLINE void mps_copy_item(uint i, GLOBAL const float *x, GLOBAL float *y, uint offx, uint offy)
{
    y[offy + i] = x[offx + i];
}
