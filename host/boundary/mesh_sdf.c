/* mesh_sdf.c - a mesh obstacle as a signed distance field for the
 * integrators' projection (boundary_mesh_sdf of boundary_mesh.h; the
 * device side is kernels/boundary.cl, solid_sdf_exit).
 *
 * Why: a mesh obstacle is held by one layer of boundary samples, and
 * nothing took a particle back out once pressure had pushed it between
 * them (water poured into scenes/glass.obj went through its 1 cm base: 134
 * of 2,112 particles inside it and 1,195 on the floor outside after 1 s).
 * Boxes, spheres and polygons had their projection; meshes now have one.
 *
 * The distances come from the mesh-layer code's plane sweep (each
 * triangle writes the nodes within reach of it, boundary_plane_dist2), the
 * sign from the carving's ray winding, so a node is inside exactly when
 * carving would remove a particle there. Nodes lie cell = spacing / 2
 * apart over the bounding box grown by REACH spacings, clipped to the
 * domain grown by as much; values are clamped to +-REACH spacings (the
 * band a particle within half a spacing of the surface reads; deeper
 * inside, the gradient vanishes and a particle there is left to the
 * samples). A grid over MAX_NODES nodes is coarsened, with a warning
 * once its nodes are over 0.75 spacings apart.
 *
 * Invariant: entry 0 is the head (kind FCL_SOLID_SDF, a = first node and
 * cell, b.x = r, dims = nodes per axis); the values follow in x-fastest
 * order, 16 to an entry, the last entry padded with +REACH spacings.
 */
#include "boundary.h"
#include "boundary_mesh.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REACH 1.5
#define MAX_NODES 16000000.0

/* Nodes over the mesh's box grown by the reach, clipped to the domain
 * grown by it (the fluid never comes nearer to nodes beyond); *cell
 * coarsened so that their count stays under MAX_NODES. */
static void sdf_grid(const fcl_mesh *m, const float dlo[3], const float dhi[3], double reach, double *cell,
                     double lo[3], long n[3])
{
    float mlo[3], mhi[3];
    double hi[3];
    obj_bounds(m, mlo, mhi);
    for (int k = 0; k < 3; k++) {
        lo[k] = fmax((double)mlo[k] - reach, (double)dlo[k] - reach);
        hi[k] = fmin((double)mhi[k] + reach, (double)dhi[k] + reach);
        hi[k] = fmax(hi[k], lo[k]);
    }
    for (;;) {
        double total = 1.0;
        for (int k = 0; k < 3; k++) {
            n[k] = (long)ceil((hi[k] - lo[k]) / *cell) + 2;
            total *= (double)n[k];
        }
        if (total <= MAX_NODES)
            return;
        *cell *= cbrt(total / MAX_NODES) * 1.01;
    }
}

/* One z plane: the distances the sweep wrote, signed by the ray winding. */
static void sdf_plane(boundary_plane *J, const boundary_locator *L, long iz, double reach, float *phi)
{
    boundary_plane_dist2(J, iz);
    for (long y = 0; y < J->n[1]; y++)
        for (long x = 0; x < J->n[0]; x++) {
            long i = y * J->n[0] + x;
            double d = fmin(sqrt((double)J->dist2[i]), reach);
            float4 p = fcl_f4((float)boundary_plane_coord(J, 0, x), (float)boundary_plane_coord(J, 1, y),
                              (float)boundary_plane_coord(J, 2, iz), 0.0f);
            phi[i] = (float)(boundary_mesh_inside(L, &p) ? -d : d);
        }
}

/* The last fields built, by a hash of the mesh and the arguments: the
 * carving of fluid near a mesh and sim_set_solids each asked for the same
 * field, and it was built (and its node spacing warned of) twice, 0.9 s
 * of a 4.3 s start (a review). Reachable to the end; a few at most. */
enum { CACHED = 4 };
static struct { uint64_t key; fcl_solid *s; unsigned count; } cache[CACHED];
static int cache_next;

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * 1099511628211ull;
    return h;
}

static uint64_t field_key(const fcl_mesh *m, const float dlo[3], const float dhi[3], float spacing, float r)
{
    uint64_t h = fnv(14695981039346656037ull, m->v, m->nv * 3 * sizeof *m->v);
    h = fnv(h, m->tri, m->ntri * 3 * sizeof *m->tri);
    h = fnv(h, &m->nv, sizeof m->nv);
    h = fnv(h, &m->ntri, sizeof m->ntri);
    h = fnv(h, dlo, 3 * sizeof *dlo);
    h = fnv(h, dhi, 3 * sizeof *dhi);
    h = fnv(h, &spacing, sizeof spacing);
    return fnv(h, &r, sizeof r);
}

/* A copy of a cached field into *out: 1, or 0 when none matches (-1: no memory). */
static int cached(uint64_t key, fcl_solid **out, unsigned *count)
{
    for (int i = 0; i < CACHED; i++)
        if (cache[i].s && cache[i].key == key) {
            *out = malloc(cache[i].count * sizeof **out);
            if (!*out)
                return -1;
            memcpy(*out, cache[i].s, cache[i].count * sizeof **out);
            *count = cache[i].count;
            return 1;
        }
    return 0;
}

static void remember(uint64_t key, const fcl_solid *s, unsigned count)
{
    fcl_solid *c = malloc(count * sizeof *c);
    if (!c)
        return;
    memcpy(c, s, count * sizeof *c);
    free(cache[cache_next].s);
    cache[cache_next].key = key;
    cache[cache_next].s = c;
    cache[cache_next].count = count;
    cache_next = (cache_next + 1) % CACHED;
}

static int build_field(const fcl_mesh *m, const float dlo[3], const float dhi[3], float spacing, float r,
                       fcl_solid **out, unsigned *count);

int boundary_mesh_sdf(const fcl_mesh *m, const float dlo[3], const float dhi[3], float spacing, float r,
                      fcl_solid **out, unsigned *count)
{
    uint64_t key = field_key(m, dlo, dhi, spacing, r);
    int hit = cached(key, out, count);
    if (hit != 0)
        return hit > 0 ? 0 : -1;
    if (build_field(m, dlo, dhi, spacing, r, out, count) != 0)
        return -1;
    remember(key, *out, *count);
    return 0;
}

static int build_field(const fcl_mesh *m, const float dlo[3], const float dhi[3], float spacing, float r,
                       fcl_solid **out, unsigned *count)
{
    double cell = 0.5 * spacing, reach = REACH * spacing, lo[3];
    long n[3];
    sdf_grid(m, dlo, dhi, reach, &cell, lo, n);
    size_t nodes = (size_t)n[0] * (size_t)n[1] * (size_t)n[2], entries = 1 + (nodes + 15) / 16;
    fcl_solid *s = calloc(entries, sizeof *s);
    boundary_locator L = { 0 };
    boundary_plane J = { m, cell, reach, { lo[0] - 0.5 * cell, lo[1] - 0.5 * cell, lo[2] - 0.5 * cell },
                         { 0, 0, 0 }, { n[0], n[1], n[2] }, NULL, NULL, NULL };
    int rc = s && boundary_locator_build(&L, m) == 0 && boundary_plane_buckets(&J) == 0 ? 0 : -1;
    if (rc == 0 && cell > 0.75 * spacing)   /* the band is 1.5 spacings: nodes a spacing apart barely sample it */
        fprintf(stderr, "fluidcl: warning: a mesh obstacle's distance field has its nodes %.2f spacings apart "
                "(at most %.0f nodes over the mesh within the domain): particles may come nearer it, or stop "
                "short of it, by up to about that\n", cell / spacing, MAX_NODES);
    if (rc == 0) {
        float *phi = (float *)(s + 1);
        for (size_t i = nodes; i < 16 * (entries - 1); i++)
            phi[i] = (float)reach;
        /* Planes are independent: each thread sweeps its own, with its
         * own distance buffer (a 998,000-triangle sphere at 5 mm: 5.5 s
         * on one core, 3.7 s on two). */
        int failed = 0;
#pragma omp parallel
        {
            boundary_plane T = J;
            T.dist2 = malloc((size_t)n[0] * (size_t)n[1] * sizeof *T.dist2 + 1);
#pragma omp atomic
            failed += T.dist2 == NULL;
#pragma omp for schedule(dynamic, 1)
            for (long iz = 0; iz < n[2]; iz++)
                if (T.dist2)
                    sdf_plane(&T, &L, iz, reach, phi + (size_t)iz * n[0] * n[1]);
            free(T.dist2);
        }
        rc = failed ? -1 : 0;
        s->kind = FCL_SOLID_SDF;
        s->a = fcl_f4((float)lo[0], (float)lo[1], (float)lo[2], (float)cell);
        s->b = fcl_f4(r, 0.0f, 0.0f, 0.0f);
        for (int k = 0; k < 3; k++)
            s->dims[k] = (unsigned)n[k];
    }
    boundary_locator_free(&L);
    boundary_plane_free(&J);
    if (rc != 0) {
        free(s);
        return -1;
    }
    *out = s;
    *count = (unsigned)entries;
    return 0;
}

/* That field at p as the device interpolates it; +inf off its grid. */
static float boundary_mesh_sdf_at(const fcl_solid *s, const float4 *p)
{
    /* solid_sdf_exit's arithmetic (kernels/boundary.cl), value only. */
    float h = s->a.w, fx = (p->x - s->a.x) / h, fy = (p->y - s->a.y) / h, fz = (p->z - s->a.z) / h;
    unsigned nx = s->dims[0], ny = s->dims[1];
    if (!(fx >= 0.0f && fy >= 0.0f && fz >= 0.0f && fx < (float)(nx - 1u) && fy < (float)(ny - 1u) &&
          fz < (float)(s->dims[2] - 1u)))
        return INFINITY;
    unsigned ix = (unsigned)fx, iy = (unsigned)fy, iz = (unsigned)fz;
    float tx = fx - (float)ix, ty = fy - (float)iy, tz = fz - (float)iz;
    const float *v = (const float *)(s + 1) + ix + nx * (iy + ny * iz);
    unsigned sy = nx, sz = nx * ny;
    float a00 = v[0] + tx * (v[1] - v[0]), a10 = v[sy] + tx * (v[sy + 1u] - v[sy]);
    float a01 = v[sz] + tx * (v[sz + 1u] - v[sz]), a11 = v[sz + sy] + tx * (v[sz + sy + 1u] - v[sz + sy]);
    float b0 = a00 + ty * (a10 - a00), b1 = a01 + ty * (a11 - a01);
    return b0 + tz * (b1 - b0);
}

/* Whether any of the n points lies in the mesh's box grown by r. */
static int any_near(const fcl_mesh *m, const float4 *pos, size_t n, float r)
{
    float lo[3], hi[3];
    obj_bounds(m, lo, hi);
    for (int k = 0; k < 3; k++) {
        lo[k] -= r;
        hi[k] += r;
    }
    for (size_t k = 0; k < n; k++)
        if (pos[k].x >= lo[0] && pos[k].x <= hi[0] && pos[k].y >= lo[1] && pos[k].y <= hi[1] && pos[k].z >= lo[2] &&
            pos[k].z <= hi[2])
            return 1;
    return 0;
}

size_t boundary_carve_mesh_shells(const fcl_boundary *b, const float dlo[3], const float dhi[3], float4 *pos,
                                  float4 *vel, size_t n, float spacing, float gap)
{
    float r = 0.5f * spacing;   /* the field as sim_set_solids builds it */
    for (int i = 0; i < b->nobstacles; i++) {
        /* No fluid near the mesh (a pour from above): no field to build,
         * sim_set_solids builds it once. */
        if (b->obstacles[i].kind != FCL_SHAPE_MESH || !any_near(&b->meshes[i], pos, n, gap))
            continue;
        fcl_solid *s;
        unsigned count;
        if (boundary_mesh_sdf(&b->meshes[i], dlo, dhi, spacing, r, &s, &count) != 0)
            return (size_t)-1;
        size_t kept = 0;
        for (size_t k = 0; k < n; k++) {
            if (boundary_mesh_sdf_at(s, &pos[k]) < gap)
                continue;
            pos[kept] = pos[k];
            if (vel)
                vel[kept] = vel[k];
            kept++;
        }
        n = kept;
        free(s);
    }
    return n;
}
