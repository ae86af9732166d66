/* view.cl - the interactive viewer's passes (render/view*.c).
 *
 * view_pack:      the vertex buffer, two planes of n float4: out[i] is
 *                 the position and in w the field the particles are
 *                 colored by (FCL_FIELD_*): speed |v|, density, pressure,
 *                 phase (the fluid body a particle started in), or the
 *                 surface flag (Mueller 2003: the color-field gradient |n|
 *                 above material.surface_threshold, forces.cl), or a
 *                 field the solver declares (sfield); and, when
 *                 `normals` is set (the splat preview), out[n + i] is the
 *                 unit outward normal with the surface flag in w.
 * interact_force: the user's external force field (Mueller 2003, section
 *                 3.4: applied to the particles directly, not through SPH):
 *                 particles within `radius` of the cursor ray get a
 *                 velocity change dv weighted by (1 - d^2/radius^2)^2.
 * mac_interact:   the same on the mac solver's face velocities.
 * Invariant: all run between steps on the grid attributes in cell order;
 * view_pack writes out[i] for the particle at sorted index i.
 */

FCL_INLINE void view_pack_item(uint i, GLOBAL const float4 *pos, GLOBAL const float4 *vev,
                               GLOBAL const float *rho, GLOBAL const float *prs, GLOBAL const uint *id,
                               GLOBAL const float *phase, GLOBAL const float *sfield, GLOBAL const uint *start,
                               GLOBAL float4 *out, const fcl_grid_info *g, const fcl_sph_consts *c, uint field,
                               uint normals)
{
    float4 p = pos[i], v = vev[i];
    float f = 0.0f;
    /* One neighbor loop serves both the splat normal and the flag. */
    float4 sn = fcl_f4(0.0f, 0.0f, 0.0f, 0.0f);
    if (normals || field == FCL_FIELD_SURFACE)
        sn = surface_normal_at(i, pos, rho, start, g, c);
    if (normals)
        out[c->n + i] = sn;
    if (field == FCL_FIELD_SPEED)
        f = FCL_SQRT(v.x * v.x + v.y * v.y + v.z * v.z);
    else if (field == FCL_FIELD_DENSITY)
        f = rho[i];
    else if (field == FCL_FIELD_PRESSURE)
        f = prs[i];
    else if (field == FCL_FIELD_PHASE)
        f = phase[id[i]];
    else if (field == FCL_FIELD_SURFACE)
        f = sn.w;
    else if (field == FCL_FIELD_SOLVER)
        f = sfield[i];
    out[i] = fcl_f4(p.x, p.y, p.z, f);
}

/* The force's weight at p: (1 - d^2/radius^2)^2 within radius of the
 * ray ahead of its origin, else 0. */
FCL_INLINE float view_ray_weight(float4 p, float4 origin, float4 dir, float radius)
{
    float dx = p.x - origin.x, dy = p.y - origin.y, dz = p.z - origin.z;
    float t = dx * dir.x + dy * dir.y + dz * dir.z;
    float ex = dx - t * dir.x, ey = dy - t * dir.y, ez = dz - t * dir.z;
    float q = (ex * ex + ey * ey + ez * ez) / (radius * radius);
    return t > 0.0f && q < 1.0f ? (1.0f - q) * (1.0f - q) : 0.0f;
}

FCL_INLINE void interact_force_item(uint i, GLOBAL const float4 *pos, GLOBAL float4 *vel, GLOBAL float4 *vev,
                                    float4 origin, float4 dir, float4 dv, float radius)
{
    float w = view_ray_weight(pos[i], origin, dir, radius);
    if (!(w > 0.0f))
        return;
    float4 a = vel[i], b = vev[i];
    vel[i] = fcl_f4(a.x + w * dv.x, a.y + w * dv.y, a.z + w * dv.z, a.w);
    vev[i] = fcl_f4(b.x + w * dv.x, b.y + w * dv.y, b.z + w * dv.z, b.w);
}

/* The same force on the mac solver's grid (its field is the state when
 * the markers carry no velocity): each open face's own component of dv,
 * weighted at the face's center (mac.cl). */
FCL_INLINE void mac_interact_item(uint c, GLOBAL float4 *vel, GLOBAL const uint *flags, const fcl_mac_info *m,
                                  float4 origin, float4 dir, float4 dv, float radius)
{
    uint i, j, k;
    mac_coords(c, m, &i, &j, &k);
    float4 v = vel[c];
    float add[3] = { 0.0f, 0.0f, 0.0f }, d[3] = { dv.x, dv.y, dv.z };
    for (uint a = 0u; a < 3u; a++)
        if (mac_face_real(i, j, k, a, m) && !mac_face_solid(flags, c, a, m))
            add[a] = view_ray_weight(mac_face_pos(i, j, k, a, m), origin, dir, radius) * d[a];
    vel[c] = fcl_f4(v.x + add[0], v.y + add[1], v.z + add[2], v.w);
}
