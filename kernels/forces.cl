/* forces.cl - non-pressure forces as methods any solver can call.
 *
 * gravity:   c->gravity, added by each solver where it forms v or a
 * XSPH:      velocity smoothing, in the solver that uses it (dfsph.cl)
 * tension:   c->tension_model selects
 *   mueller  Mueller, Charypar, Gross 2003 (eqs. 15-19): color field
 *            gradient n = sum_j V_j grad W_poly6 and Laplacian
 *            lap = sum_j V_j lap W_poly6, V_j = m / rho_j, over the
 *            neighbors and their wall images; where |n| > l the force
 *            density -sigma lap n / |n|
 *   akinci   Akinci, Akinci, Teschner 2013 (eqs. 1-6): per fluid
 *            neighbor a_i += -gamma K_ij (m C(r) x_ij / r + (n_i - n_j)),
 *            K_ij = 2 rho0 / (rho_i + rho_j), C their cohesion spline,
 *            n_i = h sum_j V_j grad W_poly6 (pass forces_normals, run
 *            before the pass that applies the force)
 *   none     no surface tension
 * surface:   Mueller's free-surface criterion |n| > l (surface_normal_at),
 *            the particle field `surface` (pass surface_flag) and the
 *            viewer's splat normals (view.cl)
 * Invariant: the Akinci pair term is antisymmetric in i and j (equal
 * masses), so it conserves momentum; it sums over real fluid neighbors
 * only, never wall images or boundary particles (no adhesion), so a
 * mirror wall looks like a free surface to it. The mass is c->mass, which
 * each solver sets to its own particle mass.
 */

/* Running color-field sums of one particle (Mueller's model). */
typedef struct fcl_color_sum {
    float nx, ny, nz;   /* gradient n */
    float lap;          /* Laplacian */
} fcl_color_sum;

/* Neighbor (or wall image) at x_ij = (dx, dy, dz), |x_ij|^2 = r2, with
 * volume vol = m / rho_j. */
FCL_INLINE void color_pair(fcl_color_sum *s, float dx, float dy, float dz, float r2, float vol,
                           const fcl_sph_consts *c)
{
    float gc = vol * w_poly6_grad(r2, c->h2, c->poly6_grad);
    s->nx += gc * dx; s->ny += gc * dy; s->nz += gc * dz;
    s->lap += vol * w_poly6_lap(r2, c->h2, c->poly6_lap);
}

/* Mueller's force density is k n with k = -sigma lap / |n| where the
 * model is selected, sigma > 0 and |n| > l (the particle is at the
 * surface); k = 0 elsewhere, where n / |n| would be noise. The caller
 * multiplies, so that wcsph.cl's f += k n rounds as it always has. */
FCL_INLINE float tension_mueller_coef(const fcl_color_sum *s, const fcl_sph_consts *c)
{
    float nlen = FCL_SQRT(s->nx * s->nx + s->ny * s->ny + s->nz * s->nz);
    if (c->tension_model != FCL_TENSION_MUELLER || !(c->surface_tension > 0.0f) ||
        !(nlen > c->surface_threshold))
        return 0.0f;
    return -c->surface_tension * s->lap / nlen;
}

/* The same as an acceleration of a particle of density rho_i. */
FCL_INLINE float4 tension_mueller_accel(const fcl_color_sum *s, float rho_i, const fcl_sph_consts *c)
{
    float k = tension_mueller_coef(s, c) / rho_i;
    return fcl_f4(k * s->nx, k * s->ny, k * s->nz, 0.0f);
}

/* Akinci 2013, eq. 2, times akinci_c = 32 / (pi h^9):
 *   C(r) = (h-r)^3 r^3              for h/2 < r <= h (attraction),
 *          2 (h-r)^3 r^3 - h^6/64   for 0 < r <= h/2 (repulsion near 0),
 *          0                        otherwise.
 * Its peak at r = h/2 is h^6/64 on both branches, so C is continuous. */
FCL_INLINE float akinci_cohesion_c(float r, const fcl_sph_consts *c)
{
    float h = c->h;
    if (!(r > 0.0f) || r > h)
        return 0.0f;
    float u = (h - r) * r, u3 = u * u * u;
    if (2.0f * r > h)
        return c->akinci_c * u3;
    float h3 = h * h * h;
    return c->akinci_c * (2.0f * u3 - h3 * h3 * (1.0f / 64.0f));
}

/* The acceleration neighbor j at x_ij = (dx, dy, dz) gives particle i:
 * -gamma K_ij (m C(r) x_ij / r + (n_i - n_j)). Swapping i and j flips
 * x_ij and n_i - n_j and keeps K_ij and C: the pair cancels. */
FCL_INLINE float4 tension_akinci_pair(float dx, float dy, float dz, float4 ni, float4 nj, float rho_i, float rho_j,
                                      const fcl_sph_consts *c)
{
    float r2 = dx * dx + dy * dy + dz * dz;
    if (r2 >= c->h2)
        return fcl_f4(0.0f, 0.0f, 0.0f, 0.0f);
    float r = FCL_SQRT(r2);
    /* A particle exerts nothing on itself (r = 0: no direction). */
    float coh = r > 1e-9f ? c->mass * akinci_cohesion_c(r, c) / r : 0.0f;
    float s = -c->cohesion * 2.0f * c->rest_density / (rho_i + rho_j);
    return fcl_f4(s * (coh * dx + ni.x - nj.x), s * (coh * dy + ni.y - nj.y), s * (coh * dz + ni.z - nj.z), 0.0f);
}

/* Whether the selected model exerts any force: lets a solver skip its
 * neighbor sums. */
FCL_INLINE uint tension_active(const fcl_sph_consts *c)
{
    return (c->tension_model == FCL_TENSION_MUELLER && c->surface_tension > 0.0f) ||
           (c->tension_model == FCL_TENSION_AKINCI && c->cohesion > 0.0f);
}

/* Running sums of whichever tension model is selected. */
typedef struct fcl_tension_sum {
    fcl_color_sum col;  /* mueller */
    float ax, ay, az;   /* akinci: the acceleration itself */
} fcl_tension_sum;

FCL_INLINE void tension_sum_clear(fcl_tension_sum *t)
{
    t->col.nx = t->col.ny = t->col.nz = t->col.lap = 0.0f;
    t->ax = t->ay = t->az = 0.0f;
}

/* Neighbor j at x_ij = r (r.w unused); image = 1 when r is to j's
 * mirror image across a wall. Mueller's color field takes images, as
 * wcsph.cl's force pass does (a mirror wall is no surface to it);
 * Akinci's pair force takes real neighbors only (see the banner). */
FCL_INLINE void tension_pair(fcl_tension_sum *t, float4 r, uint j, uint image, float4 ni, float rho_i,
                             GLOBAL const float *rho, GLOBAL const float4 *normals, const fcl_sph_consts *c)
{
    float r2 = r.x * r.x + r.y * r.y + r.z * r.z;
    if (c->tension_model == FCL_TENSION_MUELLER) {
        color_pair(&t->col, r.x, r.y, r.z, r2, c->mass / rho[j], c);
    } else if (c->tension_model == FCL_TENSION_AKINCI && !image) {
        float4 a = tension_akinci_pair(r.x, r.y, r.z, ni, normals[j], rho_i, rho[j], c);
        t->ax += a.x; t->ay += a.y; t->az += a.z;
    }
}

/* The acceleration the sums add up to for a particle of density rho_i. */
FCL_INLINE float4 tension_accel(const fcl_tension_sum *t, float rho_i, const fcl_sph_consts *c)
{
    if (c->tension_model == FCL_TENSION_AKINCI)
        return fcl_f4(t->ax, t->ay, t->az, 0.0f);
    return tension_mueller_accel(&t->col, rho_i, c);
}

/* Akinci's surface normal n_i = h sum_j (m / rho_j) grad W_poly6(x_ij)
 * over fluid neighbors: about 1 in magnitude at a flat surface, pointing
 * into the fluid, near 0 inside. */
/* The color-field gradient sum_j m / rho_j grad W_poly6 of particle i
 * (sorted index) over its fluid neighbors: Akinci's normals scale it by
 * h, Mueller's surface criterion takes its length. */
FCL_INLINE float4 color_gradient_at(uint i, GLOBAL const float4 *pos, GLOBAL const float *rho,
                                    GLOBAL const uint *start, const fcl_grid_info *g, const fcl_sph_consts *c)
{
    float4 pi = pos[i];
    uint lo[9], hi[9];
    uint rows = grid_neighbor_rows(g, start, pi, lo, hi);
    float nx = 0.0f, ny = 0.0f, nz = 0.0f;
    for (uint row = 0u; row < rows; row++)
        for (uint j = lo[row]; j < hi[row]; j++) {
            float4 pj = pos[j];
            float dx = pi.x - pj.x, dy = pi.y - pj.y, dz = pi.z - pj.z;
            float s = c->mass / rho[j] * w_poly6_grad(dx * dx + dy * dy + dz * dz, c->h2, c->poly6_grad);
            nx += s * dx; ny += s * dy; nz += s * dz;
        }
    return fcl_f4(nx, ny, nz, 0.0f);
}

FCL_INLINE void forces_normals_item(uint i, GLOBAL const float4 *pos, GLOBAL const float *rho,
                                    GLOBAL const uint *start, GLOBAL float4 *normals, const fcl_grid_info *g,
                                    const fcl_sph_consts *c)
{
    float4 n = color_gradient_at(i, pos, rho, start, g, c);
    normals[i] = fcl_f4(c->h * n.x, c->h * n.y, c->h * n.z, 0.0f);
}

/* The same over the step's fluid list (query radius at least h), wall
 * images skipped as the cell walk has none: the list holds the walk's
 * particles within its radius in the walk's order, and those beyond h
 * add 0 in both, so the sums are the same. */
FCL_INLINE void forces_normals_nl_item(uint i, GLOBAL const float4 *pos, GLOBAL const float *rho,
                                       GLOBAL const uint *fcount, GLOBAL const uint *fidx, GLOBAL float4 *normals,
                                       const fcl_nlist_info *fl, const fcl_sph_consts *c)
{
    float4 pi = pos[i];
    float nx = 0.0f, ny = 0.0f, nz = 0.0f;
    forall_neighbors(fl, fcount, fidx, i, j, m) {
        if (m)
            continue;
        float4 pj = pos[j];
        float dx = pi.x - pj.x, dy = pi.y - pj.y, dz = pi.z - pj.z;
        float s = c->mass / rho[j] * w_poly6_grad(dx * dx + dy * dy + dz * dz, c->h2, c->poly6_grad);
        nx += s * dx; ny += s * dy; nz += s * dz;
    }
    normals[i] = fcl_f4(c->h * nx, c->h * ny, c->h * nz, 0.0f);
}

/* Mueller's color-field gradient n of particle i (sorted index) over its
 * fluid neighbors: xyz the unit normal -n/|n| (outward, 0 where n = 0),
 * w 1 when the particle is at the free surface (|n| > l), else 0.
 * Boundary particles take no part, as in the marching-cubes field, so
 * fluid against a wall counts as surface there too: what the viewer's
 * splats and the mesh show is the fluid body, walls drawn apart. */
FCL_INLINE float4 surface_normal_at(uint i, GLOBAL const float4 *pos, GLOBAL const float *rho,
                                    GLOBAL const uint *start, const fcl_grid_info *g, const fcl_sph_consts *c)
{
    float4 n = color_gradient_at(i, pos, rho, start, g, c);
    float n2 = n.x * n.x + n.y * n.y + n.z * n.z;
    float inv = n2 > 0.0f ? -1.0f / FCL_SQRT(n2) : 0.0f;
    return fcl_f4(inv * n.x, inv * n.y, inv * n.z, n2 > c->surface_threshold * c->surface_threshold ? 1.0f : 0.0f);
}

FCL_INLINE void surface_flag_item(uint i, GLOBAL const float4 *pos, GLOBAL const float *rho,
                                  GLOBAL const uint *start, GLOBAL float *flag, const fcl_grid_info *g,
                                  const fcl_sph_consts *c)
{
    flag[i] = surface_normal_at(i, pos, rho, start, g, c).w;
}
