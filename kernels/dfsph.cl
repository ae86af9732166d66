/* dfsph.cl - Bender & Koschier 2015, divergence-free SPH, in densities
 * relative to rho0 (rhat = rho / rho0) with the cubic spline kernel.
 *
 * density_alpha:  rhat_i = sum_j V W_ij + sum_b V_b W_ib (V = m / rho0), and
 *                 alpha_i = 1 / max(|sum_j V grad W_ij + sum_b V_b grad W_ib|^2
 *                                   + sum_j |V grad W_ij|^2, 1e-6)
 * predict:        v*_i = v_i + dt (g + a_tension + a_visc), plus XSPH smoothing
 *                 eps sum_j V (v_j - v_i) W_ij; a_visc = 10 nu sum_j (m / rho_j)
 *                 (v_ij . r_ij) / (r_ij^2 + 0.01 h^2) grad W_ij, the standard
 *                 SPH viscosity (Monaghan 2005; SPlisHSPlasH's "Standard");
 *                 a_tension is the model
 *                 material.tension_model selects (forces.cl), with the
 *                 particle mass V rho0 in c->mass (host dfsph.c)
 * source:         the error e_i either solver drives to zero, signed (only
 *                 the stop test's err[] counts compression alone): density
 *                 solver e = rhat_i + dt D_i - 1, divergence solver e = D_i
 *                 with D_i = sum_j V
 *                 (v_i - v_j) . grad W_ij + sum_b V_b v_i . grad W_ib; then
 *                 the increment k_i = max(K_i + omega e alpha_i, 0) - K_i of
 *                 the step's total K_i = ksum_i (projected Jacobi), or, for
 *                 the warm start, k_i = last step's total times the dt
 *                 ratio (divergence), or times dfsph.warm_share and the
 *                 ratio squared (density; d->warm holds the factor)
 * pressure_vel:   v_i -= f (sum_j V (k_i + k_j) grad W_ij + sum_b V_b k_i grad W_ib),
 *                 f = 1/dt (density) or 1 (divergence); ksum_i += k_i;
 *                 the density solver's also writes vm_i, the velocity
 *                 the advect will realise (dfsph_move: the domain walls'
 *                 clamp and the obstacles' projection), which its source
 *                 reads in place of v
 * Totals never fall below zero: no particle is pulled back toward the
 * free surface, which is the clamp of negative pressures. The stop tests
 * the average compression max(e, 0), as in the paper. Walls are boundary
 * particles (boundary.cl) or mirror images (walls.h), as configured.
 * Every neighbor sum reads the step's neighbor lists (nlist.cl), built
 * after each grid rebuild; the __kernel wrappers come from passes.def.
 * Invariant: kernels read only sorted arrays and lists of the current
 * grid; err[] receives each particle's error for the host's average.
 */

FCL_INLINE float dfsph_w(float q, const fcl_dfsph_consts *d, GLOBAL const float *tab)
{
    return d->use_table ? w_table(tab, d->table_n, q) : w_cubic(q, d->k);
}

FCL_INLINE float dfsph_g(float q, const fcl_dfsph_consts *d, GLOBAL const float *tab)
{
    return d->use_table ? w_table(tab + d->table_n, d->table_n, q) : w_cubic_grad(q, d->l);
}

/* Neighbor j (or its image under mask m) relative to i: r_ij and q.
 * Returns 0 when out of range. */
FCL_INLINE int dfsph_pair(float4 pi, float4 pj0, uint m, fcl_images img, float inv_h, float4 *r, float *q)
{
    float4 pj = mirror(pj0, m, img);
    *r = fcl_f4(pi.x - pj.x, pi.y - pj.y, pi.z - pj.z, 0.0f);
    float r2 = r->x * r->x + r->y * r->y + r->z * r->z;
    *q = FCL_SQRT(r2) * inv_h;
    return *q < 1.0f;
}

/* The neighbor lists a pass reads (kernels/nlist.cl): fluid neighbors
 * with their wall images, then boundary particles. img (walls.h) is
 * what the images' masks need of the walls and of i. */
#define DFSPH_FLUID(i, j, m, e) forall_neighbors_at(fl, fcount, fidx, i, j, m, e)
#define DFSPH_BOUNDARY(i, b, m, e) forall_neighbors_at(bl, bcount, bidx, i, b, m, e)

/* x_i - x_j for neighbor j seen through mirror mask m. */
FCL_INLINE float4 dfsph_rij(float4 pi, float4 pj, uint m, fcl_images img)
{
    float4 q = mirror(pj, m, img);
    return fcl_f4(pi.x - q.x, pi.y - q.y, pi.z - q.z, 0.0f);
}

/* Also caches, beside each fluid list entry, the cubic spline's gradient
 * factor g(q) (grad W_ij = g r_ij; 0 out of range) in fg and W(q) in fw
 * (for the next step's XSPH); the boundary's whole gradient sum
 * sum_b V_b grad W_ib per particle in bgrad (boundaries do not move, so
 * the solvers' boundary terms are k_i bgrad_i and v_i . bgrad_i); and the
 * neighbors in range in nin: positions stay fixed until the next
 * rebuild, so the solvers' iterations reuse them instead of taking a
 * square root and a table lookup per pair and iteration. */
FCL_INLINE void dfsph_density_alpha_item(uint i, GLOBAL const float4 *pos, GLOBAL const float4 *bpos,
                                         GLOBAL const uint *fcount, GLOBAL const uint *fidx,
                                         GLOBAL const uint *bcount, GLOBAL const uint *bidx,
                                         const fcl_nlist_info *fl, const fcl_nlist_info *bl, GLOBAL float *fg,
                                         GLOBAL float *fw, GLOBAL float4 *bgrad, GLOBAL uint *nin, GLOBAL float *rho, GLOBAL float *alpha,
                                         GLOBAL const float *tab, const fcl_sph_consts *c,
                                         const fcl_dfsph_consts *d)
{
    float4 pi = pos[i], r;
    fcl_images img;
    near_walls(pi, c, &img);
    float sum = 0.0f, gx = 0.0f, gy = 0.0f, gz = 0.0f, g2 = 0.0f, q;
    uint cnt = 0u;
    DFSPH_FLUID(i, j, m, e) {
        fg[e] = 0.0f;
        fw[e] = 0.0f;
        if (!dfsph_pair(pi, pos[j], m, img, d->inv_h, &r, &q))
            continue;
        float gq = dfsph_g(q, d, tab), s = d->volume * gq, wq = dfsph_w(q, d, tab);
        fg[e] = gq;
        fw[e] = wq;
        cnt++;
        sum += d->volume * wq;
        gx += s * r.x; gy += s * r.y; gz += s * r.z;
        g2 += s * s * (r.x * r.x + r.y * r.y + r.z * r.z);
    }
    float bx = 0.0f, by = 0.0f, bz = 0.0f;
    DFSPH_BOUNDARY(i, b, mb, e) {
        float4 pb = bpos[b];
        if (!dfsph_pair(pi, pb, mb, img, d->inv_h, &r, &q))
            continue;
        float s = pb.w * dfsph_g(q, d, tab);
        cnt++;
        sum += pb.w * dfsph_w(q, d, tab);
        bx += s * r.x; by += s * r.y; bz += s * r.z;
    }
    gx += bx; gy += by; gz += bz;
    bgrad[i] = fcl_f4(bx, by, bz, 0.0f);
    float den = gx * gx + gy * gy + gz * gz + g2;
    rho[i] = sum * c->rest_density;
    alpha[i] = 1.0f / (den > 1e-6f ? den : 1e-6f);
    nin[i] = cnt;
}

/* v* = v + dt (g + a_tension + a_visc) + eps sum_j V W_ij (v_j - v_i) (XSPH)
 * in one loop over the neighbors and their wall images, with the W_ij and
 * gradient factors density_alpha cached; forces.cl's tension_pair says
 * which of them each tension model takes. rho is the current density; the
 * normals are this step's when the model is akinci. The viscosity's
 * 0.01 h^2 keeps the pair term finite as r_ij -> 0. */
FCL_INLINE void dfsph_predict_item(uint i, GLOBAL const float4 *pos, GLOBAL const float4 *vel,
                                   GLOBAL const float *rho, GLOBAL const float4 *normals, GLOBAL float4 *vpred,
                                   GLOBAL const uint *fcount, GLOBAL const uint *fidx, const fcl_nlist_info *fl,
                                   GLOBAL const float *fw, GLOBAL const float *fg, const fcl_sph_consts *c,
                                   const fcl_dfsph_consts *d)
{
    float4 pi = pos[i], vi = vel[i];
    fcl_images img;
    float rho_i = rho[i];
    uint tension = tension_active(c);
    near_walls(pi, c, &img);
    float4 ni = c->tension_model == FCL_TENSION_AKINCI ? normals[i] : fcl_f4(0.0f, 0.0f, 0.0f, 0.0f);
    fcl_tension_sum t;
    tension_sum_clear(&t);
    float sx = 0.0f, sy = 0.0f, sz = 0.0f, vx = 0.0f, vy = 0.0f, vz = 0.0f;
    float vmass = d->visc * d->volume * c->rest_density, eps2 = 0.01f * c->h2;
    if (d->xsph > 0.0f || tension || d->visc > 0.0f) {
        DFSPH_FLUID(i, j, m, e) {
            float4 vj = mirror_vel(vel[j], m);
            float w = d->volume * fw[e];
            sx += w * (vj.x - vi.x); sy += w * (vj.y - vi.y); sz += w * (vj.z - vi.z);
            if (!tension && d->visc <= 0.0f)
                continue;                   /* XSPH alone needs no r_ij */
            float4 r = dfsph_rij(pi, pos[j], m, img);
            float r2 = r.x * r.x + r.y * r.y + r.z * r.z;
            if (tension && r2 < c->h2)
                tension_pair(&t, r, j, m != 0u, ni, rho_i, rho, normals, c);
            if (d->visc > 0.0f) {
                float vr = (vi.x - vj.x) * r.x + (vi.y - vj.y) * r.y + (vi.z - vj.z) * r.z;
                float s = vmass / rho[j] * vr / (r2 + eps2) * fg[e];
                vx += s * r.x; vy += s * r.y; vz += s * r.z;
            }
        }
    }
    float4 a = tension_accel(&t, rho_i, c);
    float dt = d->dt, e = d->xsph;
    vpred[i] = fcl_f4(vi.x + e * sx + dt * (c->gravity.x + a.x + vx),
                      vi.y + e * sy + dt * (c->gravity.y + a.y + vy),
                      vi.z + e * sz + dt * (c->gravity.z + a.z + vz), 0.0f);
}

/* The density change rate D_i = sum_j V (v_i - v_j) . grad W_ij over
 * neighbors and images, plus v_i . sum_b V_b grad W_ib (boundaries rest),
 * from what density_alpha cached. */
FCL_INLINE float dfsph_div(uint i, GLOBAL const float4 *pos, GLOBAL const float4 *v, GLOBAL const uint *fcount,
                           GLOBAL const uint *fidx, const fcl_nlist_info *fl, GLOBAL const float *fg,
                           GLOBAL const float4 *bgrad, const fcl_sph_consts *c, const fcl_dfsph_consts *d)
{
    float4 pi = pos[i], vi = v[i], bgi = bgrad[i];
    fcl_images img;
    near_walls(pi, c, &img);
    float div = 0.0f;
    DFSPH_FLUID(i, j, m, e) {
        float4 r = dfsph_rij(pi, pos[j], m, img), vj = mirror_vel(v[j], m);
        float s = d->volume * fg[e];
        div += s * ((vi.x - vj.x) * r.x + (vi.y - vj.y) * r.y + (vi.z - vj.z) * r.z);
    }
    return div + vi.x * bgi.x + vi.y * bgi.y + vi.z * bgi.z;
}

/* The advect's move of one particle: x += dt v, then the domain walls'
 * clamp (restitution on the normal speed) and the obstacles' projection.
 * The density solver predicts with the velocity it realises, (x' - x) /
 * dt (pressure_vel's vm): where the clamp, not the boundary particles,
 * holds the fluid (one wall layer at support 3, whose gradient vanishes
 * as a particle nears it), the prediction with v* read a clamped first
 * layer as moving into the wall, and a resting pool met dfsph.eta 0.01 %
 * by prediction while measuring 0.139 % after its steps (0.0100 % so). */
FCL_INLINE void dfsph_move(float4 *p, float4 *v, GLOBAL const fcl_solid *solids, const fcl_sph_consts *c,
                           const fcl_dfsph_consts *d)
{
    float rad = c->radius, rest = c->restitution;
    float4 lo = fcl_f4(c->domain_min.x + rad, c->domain_min.y + rad, c->domain_min.z + rad, 0.0f);
    float4 hi = fcl_f4(c->domain_max.x - rad, c->domain_max.y - rad, c->domain_max.z - rad, 0.0f);
    float4 x = *p, n = *v;
    x = fcl_f4(x.x + n.x * d->dt, x.y + n.y * d->dt, x.z + n.z * d->dt, x.w);
    n = fcl_f4(wall_vel(x.x, n.x, lo.x, hi.x, rest), wall_vel(x.y, n.y, lo.y, hi.y, rest),
               wall_vel(x.z, n.z, lo.z, hi.z, rest), 0.0f);
    x = fcl_f4(wall_pos(x.x, lo.x, hi.x), wall_pos(x.y, lo.y, hi.y), wall_pos(x.z, lo.z, hi.z), x.w);
    solids_project(&x, &n, 0, solids, c);
    *p = wall_keep(x, c->domain_min, c->domain_max, rad);
    *v = n;
}

/* The error e_i of either solver (see the banner) and the change k_i of
 * the particle's pressure value it asks for: a projected Jacobi update on
 * the step's accumulated total, which may fall as well as rise but never
 * below zero (the free-surface clamp). A particle with too few neighbors
 * (a splash) gets no divergence correction: its D_i is noise, as in
 * SPlisHSPlasH. The warm start applies last step's total (scaled by
 * d->warm); ksum restarts from zero and pressure_vel adds every k it
 * applies. err[] holds the compression max(e, 0) the stop tests. */
FCL_INLINE void dfsph_source_item(uint i, GLOBAL const float4 *pos, GLOBAL const float4 *v,
                                  GLOBAL const float *rho, GLOBAL const float *alpha, GLOBAL const uint *fcount,
                                  GLOBAL const uint *fidx, const fcl_nlist_info *fl, GLOBAL const float *fg,
                                  GLOBAL const float4 *bgrad, GLOBAL const uint *nin,
                                  GLOBAL float *kap, GLOBAL float *ksum, GLOBAL float *err, const fcl_sph_consts *c,
                                  const fcl_dfsph_consts *d, uint mode)
{
    uint lonely = (mode & DFSPH_DIVERGENCE) && nin[i] < d->min_neighbors;
    /* The warm start needs no error: the source pass after it measures
     * the velocities it leaves, so its neighbor loop is skipped. */
    if (mode & DFSPH_WARM) {
        kap[i] = lonely ? 0.0f : d->warm * ksum[i];
        ksum[i] = 0.0f;
        err[i] = 0.0f;
        return;
    }
    float div = dfsph_div(i, pos, v, fcount, fidx, fl, fg, bgrad, c, d);
    float e = (mode & DFSPH_DIVERGENCE) ? div : rho[i] / c->rest_density + d->dt * div - 1.0f;
    float tot = ksum[i], next = lonely ? 0.0f : tot + d->omega * e * alpha[i];
    kap[i] = (next > 0.0f ? next : 0.0f) - tot;
    err[i] = lonely || e < 0.0f ? 0.0f : e;
}

/* sum over i's n entries of V (kappa_i + kappa_j) g_ij (x_i - x_j') into
 * (ax, ay, az), x_j' the image. Written out (no helper calls, selects for
 * the images) so that the host compiler vectorizes it across neighbors:
 * 8-12 % off a step on the native backend (the same for dfsph_div, which
 * gathers two float4 per neighbor, was slower, measured). Inlined with
 * images 0 for a particle whose entries hold none (nl_plain): the
 * images' selects, four per axis, are then not made. */
FCL_INLINE void dfsph_kappa_sum(float4 pi, float ki, GLOBAL const float4 *pos, GLOBAL const float *kap,
                                GLOBAL const uint *fidx, GLOBAL const float *fg, uint base, uint n, uint ks,
                                fcl_images img, uint images, const fcl_dfsph_consts *d, float *sx, float *sy,
                                float *sz)
{
    float ax = *sx, ay = *sy, az = *sz;
    FCL_SIMD_SUM3(ax, ay, az)
    for (uint k = 0u; k < n; k++) {
        uint e = base + k * ks, en = fidx[e], j = en & NL_INDEX;
        float4 q = mirror_lanes(pos[j], en >> NL_SHIFT, img, images);
        float s = d->volume * (ki + kap[j]) * fg[e];
        ax += s * (pi.x - q.x); ay += s * (pi.y - q.y); az += s * (pi.z - q.z);
    }
    *sx = ax;
    *sy = ay;
    *sz = az;
}

FCL_INLINE void dfsph_pressure_vel_item(uint i, GLOBAL const float4 *pos, GLOBAL float4 *v, GLOBAL float4 *vm,
                                        GLOBAL const float *kap, GLOBAL float *ksum, GLOBAL const uint *fcount,
                                        GLOBAL const uint *fidx, const fcl_nlist_info *fl, GLOBAL const float *fg,
                                        GLOBAL const float4 *bgrad, GLOBAL const fcl_solid *solids,
                                        const fcl_sph_consts *c, const fcl_dfsph_consts *d, float f, uint moved)
{
    float4 pi = pos[i], bgi = bgrad[i];
    fcl_images img;
    near_walls(pi, c, &img);
    float ki = kap[i], ax = ki * bgi.x, ay = ki * bgi.y, az = ki * bgi.z;
    uint n = nl_len(fcount, i, fl), base = i * fl->pstride, ks = fl->kstride;
    if (nl_plain(fidx, base, n, ks))
        dfsph_kappa_sum(pi, ki, pos, kap, fidx, fg, base, n, ks, img, 0u, d, &ax, &ay, &az);
    else
        dfsph_kappa_sum(pi, ki, pos, kap, fidx, fg, base, n, ks, img, 1u, d, &ax, &ay, &az);
    float4 vi = v[i];
    vi = fcl_f4(vi.x - f * ax, vi.y - f * ay, vi.z - f * az, 0.0f);
    v[i] = vi;
    ksum[i] += ki;
    if (moved) {
        float4 p = pi;
        dfsph_move(&p, &vi, solids, c, d);
        float s = 1.0f / d->dt;
        vm[i] = fcl_f4((p.x - pi.x) * s, (p.y - pi.y) * s, (p.z - pi.z) * s, 0.0f);
    }
}

/* x += dt v*, v = v*, then the walls and the box and sphere obstacles (as
 * in wcsph.cl). */
FCL_INLINE void dfsph_advect_item(uint i, GLOBAL float4 *pos, GLOBAL const float4 *vpred, GLOBAL float4 *vel,
                                  GLOBAL const fcl_solid *solids, const fcl_sph_consts *c,
                                  const fcl_dfsph_consts *d)
{
    float4 p = pos[i], n = vpred[i];
    dfsph_move(&p, &n, solids, c, d);
    pos[i] = p;
    vel[i] = n;
}

/* The pressure both solvers applied this step, as p in a_i = -grad p / rho:
 * the density solver's velocity change k / dt per unit V grad W is
 * dt p / rho0, so p = rho0 k / dt^2; the divergence solver's is k, so
 * p = rho0 k / dt. */
FCL_INLINE void dfsph_pressure_item(uint i, GLOBAL const float *ksum, GLOBAL const float *kvsum,
                                    GLOBAL float *prs, const fcl_sph_consts *c, const fcl_dfsph_consts *d)
{
    float idt = 1.0f / d->dt;
    prs[i] = c->rest_density * (ksum[i] * idt * idt + kvsum[i] * idt);
}
