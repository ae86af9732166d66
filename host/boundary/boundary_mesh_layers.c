/* boundary_mesh_layers.c - the deeper layers of a mesh obstacle
 * (boundary_mesh_layers of boundary_layers.h): lattice points inside the
 * mesh, binned by their distance to its surface.
 *
 * Why a lattice and not vertex-normal offsets: offsetting the surface
 * samples along normals crowds them at concave edges and spreads them at
 * convex ones, and folds over where a thin part is thinner than the
 * layers; lattice points inside the mesh are a spacing apart everywhere,
 * and binning them by distance gives shells about a spacing thick that
 * follow the surface. The lattice is the fluid's (origin + (i + 1/2) d),
 * so where a mesh face lies on a lattice plane the layers continue the
 * fluid's lattice. Only the domain grown by the layers is searched.
 *
 * The distance field is computed one z plane of the lattice at a time: the
 * triangles within reach of the plane write the squared distance of the
 * points of their reach into a plane buffer (minimum over triangles), so
 * the memory is one plane whatever the mesh's size.
 *
 * Invariant: a point goes to layer k iff it is inside the mesh (the
 * carving's test) and its distance to the surface lies in
 * ((k - 1/2) d, (k + 1/2) d], 1 <= k < layers.
 */
#include "boundary_layers.h"

#include <math.h>
#include <stdlib.h>

#include "boundary_mesh.h"

static double dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Squared distance from p to a + s ab + t ac at the given (s, t). */
static double at2(const double p[3], const double a[3], const double ab[3], const double ac[3], double s, double t)
{
    double e[3];
    for (int k = 0; k < 3; k++)
        e[k] = a[k] + s * ab[k] + t * ac[k] - p[k];
    return dot(e, e);
}

/* Squared distance from p to the segment a + s e, s in [0, 1]. */
static double seg2(const double p[3], const double a[3], const double e[3])
{
    double w[3] = { p[0] - a[0], p[1] - a[1], p[2] - a[2] }, l2 = dot(e, e);
    double s = l2 > 0.0 ? dot(w, e) / l2 : 0.0;
    s = s < 0.0 ? 0.0 : s > 1.0 ? 1.0 : s;
    double z[3] = { 0.0, 0.0, 0.0 };
    return at2(p, a, e, z, s, 0.0);
}

/* Squared distance from p to triangle abc: the projection onto the plane
 * when it falls inside, else the nearest of the three edges. */
static double tri2(const double p[3], const double a[3], const double b[3], const double c[3])
{
    double ab[3], ac[3], bc[3], w[3];
    for (int k = 0; k < 3; k++) {
        ab[k] = b[k] - a[k];
        ac[k] = c[k] - a[k];
        bc[k] = c[k] - b[k];
        w[k] = p[k] - a[k];
    }
    double d00 = dot(ab, ab), d01 = dot(ab, ac), d11 = dot(ac, ac), den = d00 * d11 - d01 * d01;
    if (den > 0.0) {
        double d20 = dot(w, ab), d21 = dot(w, ac);
        double s = (d11 * d20 - d01 * d21) / den, t = (d00 * d21 - d01 * d20) / den;
        if (s >= 0.0 && t >= 0.0 && s + t <= 1.0)
            return at2(p, a, ab, ac, s, t);
    }
    return fmin(seg2(p, a, ab), fmin(seg2(p, a, ac), seg2(p, b, bc)));
}

double boundary_plane_coord(const boundary_plane *J, int a, long i)
{
    return J->org[a] + ((double)(J->i0[a] + i) + 0.5) * J->d;
}

/* The planes within reach of triangle t, one more on each side: [*z0,
 * *z1] (empty when z0 > z1). The sweep still tests each plane as it did
 * without buckets, so the margin keeps its results bit for bit where a
 * plane lies at the reach exactly and the two roundings differ. */
static void tri_planes(const boundary_plane *J, size_t t, long *z0, long *z1)
{
    double lo = INFINITY, hi = -INFINITY;
    for (int c = 0; c < 3; c++) {
        double z = J->m->v[3 * J->m->tri[3 * t + c] + 2];
        lo = fmin(lo, z);
        hi = fmax(hi, z);
    }
    *z0 = (long)ceil((lo - J->reach - J->org[2]) / J->d - 0.5) - J->i0[2] - 1;
    *z1 = (long)floor((hi + J->reach - J->org[2]) / J->d - 0.5) - J->i0[2] + 1;
    *z0 = *z0 < 0 ? 0 : *z0;
    *z1 = *z1 >= J->n[2] ? J->n[2] - 1 : *z1;
}

int boundary_plane_buckets(boundary_plane *J)
{
    size_t nz = (size_t)J->n[2], total = 0;
    J->zstart = calloc(nz + 1, sizeof *J->zstart);
    for (size_t t = 0; J->zstart && t < J->m->ntri; t++) {
        long z0, z1;
        tri_planes(J, t, &z0, &z1);
        for (long z = z0; z <= z1; z++)
            J->zstart[z + 1]++;
        total += z1 >= z0 ? (size_t)(z1 - z0 + 1) : 0;
    }
    J->zitems = J->zstart && total < 0xffffffffu ? malloc((total + 1) * sizeof *J->zitems) : NULL;
    if (!J->zitems) {
        boundary_plane_free(J);
        return -1;
    }
    for (size_t z = 0; z < nz; z++)
        J->zstart[z + 1] += J->zstart[z];
    unsigned *fill = calloc(nz + 1, sizeof *fill);
    for (size_t t = 0; fill && t < J->m->ntri; t++) {
        long z0, z1;
        tri_planes(J, t, &z0, &z1);
        for (long z = z0; z <= z1; z++)
            J->zitems[J->zstart[z] + fill[z]++] = (unsigned)t;
    }
    int rc = fill ? 0 : -1;
    free(fill);
    if (rc != 0)
        boundary_plane_free(J);
    return rc;
}

void boundary_plane_free(boundary_plane *J)
{
    free(J->zstart);
    free(J->zitems);
    J->zstart = J->zitems = NULL;
}

void boundary_plane_dist2(boundary_plane *J, long iz)
{
    double z = boundary_plane_coord(J, 2, iz), r = J->reach, p[3] = { 0.0, 0.0, z }, v[3][3];
    for (long i = 0; i < J->n[0] * J->n[1]; i++)
        J->dist2[i] = INFINITY;
    size_t first = J->zstart ? J->zstart[iz] : 0, last = J->zstart ? J->zstart[iz + 1] : J->m->ntri;
    for (size_t q = first; q < last; q++) {
        size_t t = J->zitems ? J->zitems[q] : q;
        double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
        for (int c = 0; c < 3; c++)
            for (int k = 0; k < 3; k++) {
                v[c][k] = J->m->v[3 * J->m->tri[3 * t + c] + k];
                lo[k] = fmin(lo[k], v[c][k]);
                hi[k] = fmax(hi[k], v[c][k]);
            }
        if (z < lo[2] - r || z > hi[2] + r)
            continue;
        long x0 = (long)ceil((lo[0] - r - J->org[0]) / J->d - 0.5) - J->i0[0];
        long x1 = (long)floor((hi[0] + r - J->org[0]) / J->d - 0.5) - J->i0[0];
        long y0 = (long)ceil((lo[1] - r - J->org[1]) / J->d - 0.5) - J->i0[1];
        long y1 = (long)floor((hi[1] + r - J->org[1]) / J->d - 0.5) - J->i0[1];
        for (long y = y0 < 0 ? 0 : y0; y <= y1 && y < J->n[1]; y++)
            for (long x = x0 < 0 ? 0 : x0; x <= x1 && x < J->n[0]; x++) {
                p[0] = boundary_plane_coord(J, 0, x);
                p[1] = boundary_plane_coord(J, 1, y);
                float *q = &J->dist2[y * J->n[0] + x];
                *q = fminf(*q, (float)tri2(p, v[0], v[1], v[2]));
            }
    }
}

/* The lattice over the mesh's bounding box (points outside it are never
 * inside the mesh), clipped to the domain grown by the layers (the fluid
 * never comes nearer to points beyond). */
static void job_bounds(boundary_plane *J, const fcl_mesh *m, float d, int layers, const float dlo[3], const float dhi[3])
{
    double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
    for (size_t v = 0; v < m->nv; v++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], m->v[3 * v + k]);
            hi[k] = fmax(hi[k], m->v[3 * v + k]);
        }
    J->m = m;
    J->d = d;
    J->reach = ((double)layers - 0.5) * d;
    for (int k = 0; k < 3; k++) {
        lo[k] = fmax(lo[k], (double)dlo[k] - layers * (double)d);
        hi[k] = fmin(hi[k], (double)dhi[k] + layers * (double)d);
        J->org[k] = dlo[k];
        J->i0[k] = (long)floor((lo[k] - J->org[k]) / d - 0.5);
        J->n[k] = (long)ceil((hi[k] - J->org[k]) / d - 0.5) - J->i0[k] + 1;
        J->n[k] = J->n[k] < 1 ? 1 : J->n[k];
    }
}

/* The points of plane iz within reach and inside, onto their layers. */
static int plane_collect(const boundary_plane *J, const boundary_locator *L, long iz, int layers, boundary_stack *st)
{
    double half2 = 0.25 * J->d * J->d, reach2 = J->reach * J->reach;
    for (long y = 0; y < J->n[1]; y++)
        for (long x = 0; x < J->n[0]; x++) {
            double q = J->dist2[y * J->n[0] + x];
            if (!(q > half2 && q <= reach2))
                continue;
            float4 p = fcl_f4((float)boundary_plane_coord(J, 0, x), (float)boundary_plane_coord(J, 1, y),
                              (float)boundary_plane_coord(J, 2, iz), 0.0f);
            if (!boundary_mesh_inside(L, &p))
                continue;
            int k = (int)ceil(sqrt(q) / J->d - 0.5);
            k = k < 1 ? 1 : k > layers - 1 ? layers - 1 : k;
            float4 *at = boundary_stack_room(st, k, 1);
            if (!at)
                return -1;
            *at = p;
            st->n[k]++;
        }
    return 0;
}

int boundary_mesh_layers(const fcl_mesh *m, float d, int layers, const float dlo[3], const float dhi[3],
                         boundary_stack *st)
{
    boundary_plane J = { 0 };
    boundary_locator L = { 0 };
    job_bounds(&J, m, d, layers, dlo, dhi);
    double plane = (double)J.n[0] * (double)J.n[1];
    J.dist2 = plane < 268435456.0 ? malloc((size_t)plane * sizeof *J.dist2 + 1) : NULL;
    int rc = J.dist2 && boundary_locator_build(&L, m) == 0 && boundary_plane_buckets(&J) == 0 ? 0 : -1;
    for (long iz = 0; rc == 0 && iz < J.n[2]; iz++) {
        boundary_plane_dist2(&J, iz);
        rc = plane_collect(&J, &L, iz, layers, st);
    }
    boundary_locator_free(&L);
    boundary_plane_free(&J);
    free(J.dist2);
    return rc;
}
