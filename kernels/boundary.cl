/* boundary.cl - static boundary particles (Akinci et al. 2012).
 *
 * Walls and obstacles are sampled into boundary.layers layers of
 * particles (one by default; host boundary.c), sorted once into their own
 * cell starts `bstart` on the fluid grid's layout. Each boundary
 * particle b carries a volume
 * V_b = gamma / sum_k W_bk over its boundary neighbors k (itself included)
 * in bpos[b].w: densely sampled regions get small volumes, so the fluid
 * sees the same wall whatever the sampling. gamma (host
 * smoothing_wall_gamma) calibrates one layer against a flat wall. The fluid adds rho0 V_b W_ib to
 * its density and feels pressure from b with its own pressure alone
 * (Akinci's -psi_b p_i / rho_i^2 grad W: the solvers' passes).
 * One layer of samples stops fluid by pressure, but a fast particle can
 * pass between samples; solids_project, called by the integrators after
 * every position update, moves a particle that ended inside a box or
 * sphere obstacle (grown by half a spacing on the host, sim.c) to the
 * nearest point of its surface, one nearer a mesh than half a spacing
 * along its signed distance field's gradient, or one that ended in a
 * polygon's slab
 * (its triangles, from half a spacing in front to its thickness behind)
 * to half a spacing in front (or behind, moving to the front), and
 * reflects the inward normal velocity
 * with the domain walls' restitution. A free-standing polygon is a single
 * sheet of samples with fluid on one side only, the weakest wall of all:
 * without the slab, resting water 0.2 m deep seeped through one under
 * wcsph (test_layers).
 * Invariant: V_b is computed with the density kernel of the solver that
 * reads it (kind: FCL_KERNEL_*), once per simulation;
 * after solids_project no particle lies inside a box or sphere obstacle
 * or a polygon's slab, and none crossed a slab in it; none lies within
 * half a spacing of a mesh by its field, down to the field's reach of 1.5
 * spacings inside.
 */

/* The inward speed along the unit normal n reflected with restitution. */
FCL_INLINE float4 solid_bounce(float4 v, float4 n, float rest)
{
    float vn = v.x * n.x + v.y * n.y + v.z * n.z;
    if (vn >= 0.0f)
        return v;
    float k = (1.0f + rest) * vn;
    return fcl_f4(v.x - k * n.x, v.y - k * n.y, v.z - k * n.z, v.w);
}

/* Out of one box through its nearest face; *n gets that face's outward
 * normal. Returns 0 when p is outside. */
FCL_INLINE int solid_box_exit(float4 *p, float4 lo, float4 hi, float4 *n)
{
    float d[6] = { p->x - lo.x, hi.x - p->x, p->y - lo.y, hi.y - p->y, p->z - lo.z, hi.z - p->z };
    uint best = 0u;
    for (uint k = 0u; k < 6u; k++) {
        if (!(d[k] > 0.0f))
            return 0;
        best = d[k] < d[best] ? k : best;
    }
    /* Vector members have no address in OpenCL C: one branch per axis. */
    float s = (best & 1u) ? 1.0f : -1.0f, m = s * d[best];
    *n = fcl_f4(best < 2u ? s : 0.0f, best >= 2u && best < 4u ? s : 0.0f, best >= 4u ? s : 0.0f, 0.0f);
    *p = fcl_f4(p->x + n->x * n->x * m, p->y + n->y * n->y * m, p->z + n->z * n->z * m, p->w);
    return 1;
}

/* Out of one sphere, radially (straight up from the center). */
FCL_INLINE int solid_sphere_exit(float4 *p, float4 c, float4 *n)
{
    float dx = p->x - c.x, dy = p->y - c.y, dz = p->z - c.z, R = c.w;
    float r2 = dx * dx + dy * dy + dz * dz;
    if (!(r2 < R * R))
        return 0;
    float r = FCL_SQRT(r2);
    *n = r > 0.0f ? fcl_f4(dx / r, dy / r, dz / r, 0.0f) : fcl_f4(0.0f, 1.0f, 0.0f, 0.0f);
    *p = fcl_f4(c.x + R * n->x, c.y + R * n->y, c.z + R * n->z, p->w);
    return 1;
}

/* The unit right-hand normal of the triangle a, b, c; 0 when it has no
 * area. */
FCL_INLINE int solid_triangle_normal(float4 a, float4 b, float4 c, float *nx, float *ny, float *nz)
{
    float ux = b.x - a.x, uy = b.y - a.y, uz = b.z - a.z, vx = c.x - a.x, vy = c.y - a.y, vz = c.z - a.z;
    float x = uy * vz - uz * vy, y = uz * vx - ux * vz, z = ux * vy - uy * vx;
    float len = FCL_SQRT(x * x + y * y + z * z);
    if (!(len > 0.0f))
        return 0;
    *nx = x / len; *ny = y / len; *nz = z / len;
    return 1;
}

/* Over the triangle a, b, c of unit normal n: p on the inner side of all
 * three edges. */
FCL_INLINE int solid_over_triangle(float4 p, float4 a, float4 b, float4 c, float nx, float ny, float nz)
{
    float4 q[3] = { a, b, c };
    for (uint k = 0u; k < 3u; k++) {
        float4 e0 = q[k], e1 = q[(k + 1u) % 3u];
        float ex = e1.x - e0.x, ey = e1.y - e0.y, ez = e1.z - e0.z;
        float wx = p.x - e0.x, wy = p.y - e0.y, wz = p.z - e0.z;
        float cx = ey * wz - ez * wy, cy = ez * wx - ex * wz, cz = ex * wy - ey * wx;
        if (cx * nx + cy * ny + cz * nz < 0.0f)
            return 0;
    }
    return 1;
}

/* Out of one triangle's slab (a polygon obstacle's piece, fcl_solid): a
 * particle over the triangle that is less than b.w in front of its plane
 * or less than a.w behind it goes to b.w in front, or, when it moves along
 * the normal (v, its velocity or step) in the back half (it came in
 * through the back), to b.w behind the back face: fluid that reached a polygon from behind was
 * put through it in front (all of a rising box under a ceiling of one
 * polygon, under wcsph; pbf and mps blew up on the jumps). The
 * right-hand normal of a, b, c points to the front. */
FCL_INLINE int solid_triangle_exit(float4 *p, float4 v, float4 a, float4 b, float4 c, float4 *n)
{
    float nx, ny, nz;
    if (!solid_triangle_normal(a, b, c, &nx, &ny, &nz))
        return 0;
    float s = (p->x - a.x) * nx + (p->y - a.y) * ny + (p->z - a.z) * nz;
    if (!(s < b.w && s > -a.w))
        return 0;
    if (!solid_over_triangle(*p, a, b, c, nx, ny, nz))
        return 0;
    /* Behind only when it moves to the front and is nearer the back face:
     * the direction alone sent particles resting on the front face, whose
     * normal speed jitters about 0, through to the back (222 samples of
     * a dam break). */
    float m = b.w - s, back = v.x * nx + v.y * ny + v.z * nz > 0.0f && s < 0.5f * (b.w - a.w) ? 1.0f : 0.0f;
    m = back > 0.0f ? -a.w - b.w - s : m;
    *n = fcl_f4(back > 0.0f ? -nx : nx, back > 0.0f ? -ny : ny, back > 0.0f ? -nz : nz, 0.0f);
    *p = fcl_f4(p->x + m * nx, p->y + m * ny, p->z + m * nz, p->w);
    return 1;
}

/* The entries an SDF head's values take after it (fcl_types.h). */
FCL_INLINE uint solid_sdf_entries(GLOBAL const fcl_solid *s)
{
    return (s->dims[0] * s->dims[1] * s->dims[2] + 15u) / 16u;
}

/* The trilinear signed distance of a mesh's field (fcl_types.h, host
 * mesh_sdf.c) at p into *phi and its gradient (in field units) into g;
 * 0 outside the field's grid. */
FCL_INLINE int solid_sdf_at(float4 p, GLOBAL const fcl_solid *s, float *phi, float *g)
{
    float h = s->a.w, fx = (p.x - s->a.x) / h, fy = (p.y - s->a.y) / h, fz = (p.z - s->a.z) / h;
    uint nx = s->dims[0], ny = s->dims[1];
    if (!(fx >= 0.0f && fy >= 0.0f && fz >= 0.0f && fx < (float)(nx - 1u) && fy < (float)(ny - 1u) &&
          fz < (float)(s->dims[2] - 1u)))
        return 0;
    uint ix = (uint)fx, iy = (uint)fy, iz = (uint)fz;   /* at most dims - 2: the test above */
    float tx = fx - (float)ix, ty = fy - (float)iy, tz = fz - (float)iz;
    GLOBAL const float *v = (GLOBAL const float *)(s + 1) + ix + nx * (iy + ny * iz);
    uint sy = nx, sz = nx * ny;
    float v000 = v[0], v100 = v[1], v010 = v[sy], v110 = v[sy + 1u];
    float v001 = v[sz], v101 = v[sz + 1u], v011 = v[sz + sy], v111 = v[sz + sy + 1u];
    /* Bilinear in (y, z) of the x-interpolated values and of their x steps. */
    float a00 = v000 + tx * (v100 - v000), a10 = v010 + tx * (v110 - v010);
    float a01 = v001 + tx * (v101 - v001), a11 = v011 + tx * (v111 - v011);
    float b0 = a00 + ty * (a10 - a00), b1 = a01 + ty * (a11 - a01);
    *phi = b0 + tz * (b1 - b0);
    g[0] = ((v100 - v000) * (1.0f - ty) + (v110 - v010) * ty) * (1.0f - tz) +
           ((v101 - v001) * (1.0f - ty) + (v111 - v011) * ty) * tz;
    g[1] = (a10 - a00) * (1.0f - tz) + (a11 - a01) * tz;
    g[2] = b1 - b0;
    return 1;
}

/* Out of a mesh by its signed distance: where the trilinear distance at
 * p is under the closest approach b.x, p moves along the field's
 * gradient by the shortfall; *n gets the unit gradient (outward). 0
 * outside the grid, or where the gradient vanishes (deeper than the
 * field's reach: left to the boundary samples). */
FCL_INLINE int solid_sdf_exit(float4 *p, GLOBAL const fcl_solid *s, float4 *n)
{
    float phi, gr[3], h = s->a.w;
    if (!solid_sdf_at(*p, s, &phi, gr) || !(phi < s->b.x))
        return 0;
    float gx = gr[0], gy = gr[1], gz = gr[2];
    float g = FCL_SQRT(gx * gx + gy * gy + gz * gz);
    if (!(g > 1e-6f))
        return 0;
    float m = (s->b.x - phi) * h / g;
    *n = fcl_f4(gx / g, gy / g, gz / g, 0.0f);
    *p = fcl_f4(p->x + m * n->x, p->y + m * n->y, p->z + m * n->z, p->w);
    return 1;
}

/* Solid k's exit (an SDF head's values skipped: *k moves past them). */
FCL_INLINE int solid_exit(float4 *p, float4 v, GLOBAL const fcl_solid *s, uint *k, float4 *n)
{
    GLOBAL const fcl_solid *e = s + *k;
    if (e->kind == FCL_SOLID_SDF) {
        *k += solid_sdf_entries(e);
        return solid_sdf_exit(p, e, n);
    }
    return e->kind == FCL_SOLID_BOX      ? solid_box_exit(p, e->a, e->b, n)
           : e->kind == FCL_SOLID_SPHERE ? solid_sphere_exit(p, e->a, n)
                                         : solid_triangle_exit(p, v, e->a, e->b, e->c, n);
}

/* Every listed solid in turn; v and e (e may be NULL) lose their inward
 * normal speed at each exit. */
FCL_INLINE void solids_project(float4 *p, float4 *v, float4 *e, GLOBAL const fcl_solid *s,
                               const fcl_sph_consts *c)
{
    for (uint k = 0u; k < c->nsolids; k++) {
        float4 n;
        if (!solid_exit(p, *v, s, &k, &n))
            continue;
        *v = solid_bounce(*v, n, c->restitution);
        if (e)
            *e = solid_bounce(*e, n, c->restitution);
    }
}

/* 2 where an emitter's new point q[k] (host emit.c) lies where the
 * integrators let no particle be: within r of a domain wall, where
 * solid_exit would move it (a box, sphere or polygon slab grown by half a
 * spacing), or nearer a mesh than its closest approach by the field's
 * value (solid_exit leaves a point deeper than the field's reach, where
 * the gradient vanishes: a mac jet put 16 markers a step 1.5 spacings
 * deep into a mesh cube); 0 elsewhere. A layer leaves up to speed x dt
 * past its plane in one step, and the load-time check tests the plane
 * alone: a mac jet at 3 m/s put 16 markers a step inside a box 1.5
 * spacings ahead and 16 under the floor (a review). */
FCL_INLINE void boundary_emit_clear_item(uint k, GLOBAL const float4 *q, GLOBAL const fcl_solid *solids,
                                         GLOBAL float *busy, const fcl_sph_consts *c, float r)
{
    float4 p = q[k], lo = c->domain_min, hi = c->domain_max, n;
    int out = !(p.x >= lo.x + r && p.x <= hi.x - r && p.y >= lo.y + r && p.y <= hi.y - r && p.z >= lo.z + r &&
                p.z <= hi.z - r);
    for (uint j = 0u; j < c->nsolids && !out; j++) {
        GLOBAL const fcl_solid *e = solids + j;
        float4 x = p;
        float phi, g[3];
        if (e->kind == FCL_SOLID_SDF) {
            j += solid_sdf_entries(e);
            out = solid_sdf_at(p, e, &phi, g) && phi < e->b.x;
        } else {
            /* Whether it moves, not which way: no velocity needed. */
            out = solid_exit(&x, fcl_f4(0.0f, 0.0f, 0.0f, 0.0f), solids, &j, &n);
        }
    }
    busy[k] = out ? 2.0f : 0.0f;
}

/* W of the solver's density kernel at squared distance r2. */
FCL_INLINE float boundary_w(float r2, const fcl_sph_consts *c, uint kind, float cubic_k)
{
    if (kind == FCL_KERNEL_POLY6)
        return w_poly6(r2, c->h2, c->poly6);
    if (kind == FCL_KERNEL_SPIKY)
        return w_spiky_r2(r2, c->h, c->h2, c->spiky);
    return r2 < c->h2 ? w_cubic(FCL_SQRT(r2) / c->h, cubic_k) : 0.0f;
}

FCL_INLINE void boundary_volume_item(uint b, GLOBAL const float4 *bpos, GLOBAL const uint *bstart,
                                     GLOBAL float *vol, const fcl_grid_info *g, const fcl_sph_consts *c,
                                     uint kind, float cubic_k, float gamma)
{
    float4 pb = bpos[b];
    uint lo[9], hi[9];
    uint rows = grid_neighbor_rows(g, bstart, pb, lo, hi);
    float sum = 0.0f;
    for (uint r = 0u; r < rows; r++)
        for (uint k = lo[r]; k < hi[r]; k++) {
            float4 q = bpos[k];
            float dx = pb.x - q.x, dy = pb.y - q.y, dz = pb.z - q.z;
            sum += boundary_w(dx * dx + dy * dy + dz * dz, c, kind, cubic_k);
        }
    /* sum includes W(0) > 0, so it is never zero. */
    vol[b] = gamma / sum;
}

/* Separate from boundary_volume so that no work-item writes a float4
 * another one is reading. */
FCL_INLINE void boundary_pack_item(uint b, GLOBAL float4 *bpos, GLOBAL const float *vol)
{
    bpos[b].w = vol[b];
}
