/* control.cl - position-based fluid control (seed 001; SEED-NOTES 3.3-3.6)
 * inside the PBF loop (pbf.cl): kinematic control particles P_j (sorted
 * on a grid of their own with the fluid grid's layout; w = the density
 * strength alpha of their target, -1: control.alpha) steer the fluid
 * three ways.
 *
 * control_lambda (per control particle, every iteration):
 *     rhat~_i = V_H sum_j W_poly6(P_i - p_j, H) over fluid j within H,
 *     C~_i = rhat~_i - 1, lambda~_i = -C~_i / (sum_j |V_H grad W(P_i - p_j, H)|^2 + eps)
 *     (the control particle does not move: no k = i term)
 * control_density (per fluid particle, every iteration, after pbf_delta):
 *     dp_i += s sum_j alpha_j V_H lambda~_j grad W(p_i - P_j, H), s = dt /
 *     pbf.dt_max (dscale, at most 1) as the spring's beta: a fixed
 *     displacement per step is a speed 1/dt, which shortened the CFL step
 *     until control.radius 4 ran away (344 m/s at step 23). Under-dense
 *     (C~ < 0) gives lambda~ > 0 and grad W(p_i - P_j) points from p_i toward
 *     P_j: the fluid is attracted; over-dense, repelled (the seed's Fig. 5).
 * control_steer (per fluid particle, once per step, before the iterations):
 *     springs: the nearest control particle within half the sampling
 *     interval becomes the particle's reference (its id) and the
 *     spring's life restarts, drawn from [life_min, life_max] by a hash of
 *     the particle id and the step; otherwise the life runs down by dt and
 *     the reference is dropped at 0. With a reference r:
 *     dp = beta f(|r - p| / radius) (r - p) / |r - p|, f(x) = 1 / (1 + e^(b - a x));
 *     velocity: the Shepard average of the control velocities within H,
 *     dv, pulls the predicted velocity v = (x* - x) / dt:
 *     dp += gamma dt (dv - v) where sum_j W > 0 (gamma as the host
 *     scales it: the share per step of pbf.dt_max, compounded).
 * Invariant: clam is complete before control_density reads it; a
 * reference is a control id + 1 (0: none), valid for the control set
 * the host keeps until it replaces the set (and clears the references).
 */

#define CONTROL_NEAR(L, count, idx, i, j, e) forall_cross_neighbors_at(L, count, idx, i, j, e)

FCL_INLINE float control_w(float r2, const fcl_control_consts *k)
{
    return w_poly6(r2, k->H2, k->poly6);
}

FCL_INLINE void control_lambda_item(uint i, GLOBAL const float4 *cpos, GLOBAL const float4 *pos,
                                    GLOBAL const uint *ccount, GLOBAL const uint *cidx, const fcl_nlist_info *cl,
                                    GLOBAL float *clam, const fcl_control_consts *k)
{
    float4 pi = cpos[i];
    float sum = 0.0f, g2 = 0.0f;
    CONTROL_NEAR(cl, ccount, cidx, i, j, e) {
        float4 pj = pos[j];
        float rx = pi.x - pj.x, ry = pi.y - pj.y, rz = pi.z - pj.z, r2 = rx * rx + ry * ry + rz * rz;
        if (r2 >= k->H2)
            continue;
        float g = k->volume * w_spiky_grad(FCL_SQRT(r2), k->H, k->spiky_grad);
        sum += k->volume * control_w(r2, k);
        g2 += g * g * r2;
    }
    clam[i] = -(sum - 1.0f) / (g2 + k->eps);
}

FCL_INLINE void control_density_item(uint i, GLOBAL const float4 *pos, GLOBAL const float4 *cpos,
                                     GLOBAL const uint *fcount, GLOBAL const uint *fidx, const fcl_nlist_info *fl,
                                     GLOBAL const float *clam, GLOBAL float4 *dp, const fcl_control_consts *k)
{
    float4 pi = pos[i], d = dp[i];
    float dx = 0.0f, dy = 0.0f, dz = 0.0f;
    CONTROL_NEAR(fl, fcount, fidx, i, j, e) {
        float4 pj = cpos[j];
        float rx = pi.x - pj.x, ry = pi.y - pj.y, rz = pi.z - pj.z, r2 = rx * rx + ry * ry + rz * rz;
        if (r2 >= k->H2)
            continue;
        float a = (pj.w >= 0.0f ? pj.w : k->alpha) * k->dscale;
        float g = a * k->volume * clam[j] * w_spiky_grad(FCL_SQRT(r2), k->H, k->spiky_grad);
        dx += g * rx; dy += g * ry; dz += g * rz;
    }
    dp[i] = fcl_f4(d.x + dx, d.y + dy, d.z + dz, 0.0f);
}

/* The spring's reference and life after this step's search (see the
 * banner); returns the reference (control id + 1, 0 none). */
FCL_INLINE uint control_spring_update(uint i, float4 pi, uint id, GLOBAL uint *ref, GLOBAL float *life,
                                      GLOBAL const float4 *cpos, GLOBAL const uint *cid, GLOBAL const uint *fcount,
                                      GLOBAL const uint *fidx, const fcl_nlist_info *fl, const fcl_control_consts *k)
{
    float best = k->spring_r2;
    uint near = 0u;
    CONTROL_NEAR(fl, fcount, fidx, i, j, e) {
        float4 pj = cpos[j];
        float rx = pi.x - pj.x, ry = pi.y - pj.y, rz = pi.z - pj.z, r2 = rx * rx + ry * ry + rz * rz;
        if (r2 < best) {
            best = r2;
            near = cid[j] + 1u;
        }
    }
    if (near) {
        ref[i] = near;
        life[i] = k->life_min + (k->life_max - k->life_min) * fcl_hash01(id, k->step);
        return near;
    }
    float l = life[i] - k->dt;
    uint r = l > 0.0f ? ref[i] : 0u;
    life[i] = l > 0.0f ? l : 0.0f;
    ref[i] = r;
    return r;
}

FCL_INLINE float4 control_spring(float4 p, uint r, GLOBAL const float4 *byid, const fcl_control_consts *k)
{
    /* r > n: never made by this set (control_move moves the springs to
     * the new set's ids when it changes); read nothing out of bounds all
     * the same */
    if (!r || r > k->n || k->beta <= 0.0f)
        return fcl_f4(0.0f, 0.0f, 0.0f, 0.0f);
    float4 q = byid[r - 1u];
    float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z, len = FCL_SQRT(dx * dx + dy * dy + dz * dz);
    if (len < 1e-12f)
        return fcl_f4(0.0f, 0.0f, 0.0f, 0.0f);
    float f = 1.0f / (1.0f + FCL_EXP(k->b - k->a * len * k->inv_unit)), s = k->beta * f / len;
    return fcl_f4(s * dx, s * dy, s * dz, 0.0f);
}

/* gamma dt (dv - v) with dv the Shepard average of the control
 * velocities within H; 0 where no control particle is in range. */
FCL_INLINE float4 control_velocity(uint i, float4 p, float4 o, GLOBAL const float4 *cpos, GLOBAL const float4 *cvel,
                                   GLOBAL const uint *fcount, GLOBAL const uint *fidx, const fcl_nlist_info *fl,
                                   const fcl_control_consts *k)
{
    float sw = 0.0f, vx = 0.0f, vy = 0.0f, vz = 0.0f;
    if (k->gamma > 0.0f) {
        CONTROL_NEAR(fl, fcount, fidx, i, j, e) {
            float4 pj = cpos[j], vj = cvel[j];
            float rx = p.x - pj.x, ry = p.y - pj.y, rz = p.z - pj.z;
            float w = control_w(rx * rx + ry * ry + rz * rz, k);
            sw += w;
            vx += w * vj.x; vy += w * vj.y; vz += w * vj.z;
        }
    }
    if (!(sw > 0.0f))
        return fcl_f4(0.0f, 0.0f, 0.0f, 0.0f);
    float idt = 1.0f / k->dt, s = k->gamma * k->dt;
    return fcl_f4(s * (vx / sw - (p.x - o.x) * idt), s * (vy / sw - (p.y - o.y) * idt),
                  s * (vz / sw - (p.z - o.z) * idt), 0.0f);
}

FCL_INLINE void control_steer_item(uint i, GLOBAL float4 *pos, GLOBAL const float4 *xold, GLOBAL const uint *id,
                                   GLOBAL uint *ref, GLOBAL float *life, GLOBAL const float4 *cpos,
                                   GLOBAL const float4 *cvel, GLOBAL const uint *cid, GLOBAL const float4 *byid,
                                   GLOBAL const uint *fcount, GLOBAL const uint *fidx, const fcl_nlist_info *fl,
                                   GLOBAL const fcl_solid *solids, const fcl_sph_consts *c,
                                   const fcl_control_consts *k)
{
    float4 p = pos[i];
    uint r = control_spring_update(i, p, id[i], ref, life, cpos, cid, fcount, fidx, fl, k);
    float4 s = control_spring(p, r, byid, k);
    float4 v = control_velocity(i, p, xold[i], cpos, cvel, fcount, fidx, fl, k);
    float dx = s.x + v.x, dy = s.y + v.y, dz = s.z + v.z;
    /* Not moved, not collided: projecting a particle the step already put
     * out of a sphere or mesh moves it again by rounding, so a target of
     * zero strength parted a scene with such obstacles from plain PBF (at
     * step 138 of a dam break beside a sphere; a review). */
    if (dx == 0.0f && dy == 0.0f && dz == 0.0f)
        return;
    pos[i] = pbf_collide(fcl_f4(p.x + dx, p.y + dy, p.z + dz, p.w), fcl_f4(dx, dy, dz, 0.0f), solids, c);
}
