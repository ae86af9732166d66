/* boundary_layers.c - the layers of boundary samples of the walls, boxes,
 * spheres and polygons (boundary_layers.h); meshes' deeper layers are in
 * boundary_mesh_layers.c.
 *
 * Why these shapes: the domain's fluid lattice starts half a spacing inside
 * each face, so the wall shells at k + 1/2 spacings outside continue it
 * point for point (when the domain is a whole number of spacings), and a
 * fluid particle at a wall, an edge or a corner sees the neighbourhood of
 * an interior one. Obstacles are not tied to that lattice; their layers
 * repeat the surface sampling k spacings inward, which keeps each layer's
 * own spacing regular.
 *
 * Invariant: layer 0 of every solid is the one-layer sampling, bit for bit.
 */
#include "boundary_layers.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "polygon.h"
#include "sampler.h"

/* How far past the domain an obstacle keeps its samples, in support radii:
 * a fluid particle (inside the domain) sees samples up to one radius out,
 * and those see their own neighbours up to one more, for their volumes.
 * Farther ones only cost: every sample past the domain lands in its edge
 * cells, and a 200 m polygon over a 0.2 m domain (10^8 samples) ran its
 * boundary volumes for more than 9 minutes in 6 GB (a review). */
#define CLIP_RADII 2.0

void boundary_clip(const fcl_params *p, float clip[6])
{
    float m = (float)(CLIP_RADII * p->particles_support * p->particles_spacing);
    for (int a = 0; a < 3; a++) {
        clip[a] = p->domain_min[a] - m;
        clip[3 + a] = p->domain_max[a] + m;
    }
}

float4 *boundary_stack_room(boundary_stack *st, int k, size_t more)
{
    if (st->n[k] + more > st->cap[k] || !st->pos[k]) {
        size_t c = 2 * (st->n[k] + more) + 16;
        float4 *q = realloc(st->pos[k], c * sizeof *q);
        if (!q)
            return NULL;
        st->pos[k] = q;
        st->cap[k] = c;
    }
    return st->pos[k] + st->n[k];
}

void boundary_stack_free(boundary_stack *st)
{
    for (int k = 0; k < FCL_BOUNDARY_LAYERS_MAX; k++)
        free(st->pos[k]);
    memset(st, 0, sizeof *st);
}

void boundary_wall_shell(const fcl_params *p, int k, float lo[3], float hi[3])
{
    float d = p->particles_spacing;
    for (int a = 0; a < 3; a++) {
        lo[a] = p->domain_min[a] - ((float)k + 0.5f) * d;
        hi[a] = p->domain_max[a] + ((float)k + 0.5f) * d;
    }
}

int boundary_box_layer(const float min[3], const float max[3], float d, int k, float lo[3], float hi[3])
{
    int ok = 1;
    for (int a = 0; a < 3; a++) {
        lo[a] = min[a] + (float)k * d;
        hi[a] = max[a] - (float)k * d;
        ok &= hi[a] - lo[a] > 0.5f * d;
    }
    return k == 0 || ok;
}

int boundary_sphere_layer(float r, float d, int k, float *rk)
{
    *rk = r - (float)k * d;
    if (k == 0 || *rk >= 0.5f * d)
        return 1;
    /* The first radius below d/2 ends the layers with the centre itself. */
    float prev = r - (float)(k - 1) * d;
    return prev >= 0.5f * d && *rk > -0.5f * d ? 2 : 0;
}

/* Samples of the box lo..hi's surface onto layer k. */
static int put_box(const float lo[3], const float hi[3], float d, int k, const float *clip, boundary_stack *st)
{
    float4 *at = boundary_stack_room(st, k, sampler_box(lo, hi, d, clip, NULL));
    if (!at)
        return -1;
    st->n[k] += sampler_box(lo, hi, d, clip, at);
    return 0;
}

int boundary_sample_walls(const fcl_params *p, int layers, boundary_stack *st)
{
    float lo[3], hi[3];
    for (int k = 0; k < layers; k++) {
        boundary_wall_shell(p, k, lo, hi);
        if (put_box(lo, hi, p->particles_spacing, k, NULL, st) != 0)
            return -1;
    }
    return 0;
}

static int sample_sphere(const fcl_obstacle *o, float d, int layers, const float *clip, boundary_stack *st)
{
    for (int k = 0; k < layers; k++) {
        float rk;
        int kind = boundary_sphere_layer(o->radius, d, k, &rk);
        size_t n = kind == 1   ? sampler_sphere(o->center, rk, d, clip, NULL)
                   : kind == 2 ? (size_t)sampler_clip_has(clip, o->center[0], o->center[1], o->center[2])
                               : 0;
        float4 *at = n ? boundary_stack_room(st, k, n) : NULL;
        if (n && !at)
            return -1;
        if (kind == 1)
            sampler_sphere(o->center, rk, d, clip, at);
        else if (n)
            *at = fcl_f4(o->center[0], o->center[1], o->center[2], 0.0f);
        st->n[k] += n;
    }
    return 0;
}

int boundary_polygon_layers(const fcl_obstacle *o, float d, int layers)
{
    if (!(o->thickness > 0.0f))
        return layers;
    int k = 1;
    while (k < layers && (float)k * d <= o->thickness + 0.25f * d)
        k++;
    return k;
}

static int sample_polygon(const fcl_obstacle *o, float d, int layers, const float *clip, const double lattice[3],
                          boundary_stack *st)
{
    fcl_polygon_frame f;
    polygon_frame(o, &f);
    polygon_align(&f, lattice, d);
    layers = boundary_polygon_layers(o, d, layers);
    for (int k = 0; k < layers; k++) {
        float4 *at = boundary_stack_room(st, k, polygon_sample(&f, d, k, clip, NULL));
        if (!at)
            return -1;
        st->n[k] += polygon_sample(&f, d, k, clip, at);
    }
    return 0;
}

/* Polygon q (n points, 3 doubles each) cut by the half-space s x[a] <= s
 * c (s = +-1) into out; the count. */
static int cut_plane(const double (*q)[3], int n, int a, double c, double s, double (*out)[3])
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        const double *p = q[i], *r = q[(i + 1) % n];
        double fp = s * (p[a] - c), fr = s * (r[a] - c);
        if (fp <= 0.0)
            memcpy(out[m++], p, sizeof out[0]);
        if ((fp < 0.0 && fr > 0.0) || (fp > 0.0 && fr < 0.0)) {
            double t = fp / (fp - fr);
            for (int k = 0; k < 3; k++)
                out[m][k] = p[k] + t * (r[k] - p[k]);
            m++;
        }
    }
    return m;
}

/* Triangle t against the clip: 1 wholly in it, -1 wholly past one of its
 * faces (nothing of it inside), 0 to be cut. */
static int tri_side(const fcl_mesh *m, size_t t, const float *clip)
{
    int in = 1;
    for (int f = 0; f < 6; f++) {
        int past = 0;
        for (int c = 0; c < 3; c++) {
            float x = m->v[3 * (size_t)m->tri[3 * t + c] + f % 3];
            past += f < 3 ? x < clip[f] : x > clip[f];
        }
        if (past == 3)
            return -1;
        in &= past == 0;
    }
    return in;
}

/* Triangle t cut by the clip's six planes into out (at most 9 points). */
static int cut_tri(const fcl_mesh *m, size_t t, const float *clip, double out[9][3])
{
    double b[9][3];
    int n = 3;
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < 3; k++)
            out[c][k] = m->v[3 * (size_t)m->tri[3 * t + c] + k];
    for (int f = 0; f < 6 && n > 0; f++) {
        n = cut_plane((const double (*)[3])out, n, f % 3, clip[f], f < 3 ? -1.0 : 1.0, b);
        memcpy(out, b, sizeof b);
    }
    return n;
}

/* The vertices the triangles wholly in the clip use, renumbered in their
 * order (so those triangles' edges and samples come in the order the
 * whole mesh gives them), into out->v; map[i] their new index. */
static void keep_vertices(const fcl_mesh *m, const signed char *side, unsigned *map, fcl_mesh *out)
{
    for (size_t i = 0; i < m->nv; i++)
        map[i] = UINT_MAX;
    for (size_t t = 0; t < m->ntri; t++)
        for (int c = 0; side[t] == 1 && c < 3; c++)
            map[m->tri[3 * t + c]] = 0;
    for (size_t i = 0; i < m->nv; i++)
        if (map[i] == 0) {
            memcpy(out->v + 3 * out->nv, m->v + 3 * i, 3 * sizeof *out->v);
            map[i] = (unsigned)out->nv++;
        }
}

/* m cut to the clip box into *out: the triangles wholly inside as they
 * are (their vertices shared, renumbered in order), those cut replaced in
 * place by fans of their cut polygons, those outside dropped. A mesh
 * wholly inside is m itself (*out unused, *same = 1). A scale-40 plate
 * over a 0.2 m domain was sampled whole: 25 s and 1.5 GB (a review); the
 * cut was a soup of every triangle, some 16 times the mesh's memory. The
 * cuts' new edges lie on the clip's faces, two support radii past the
 * domain, where no fluid particle sees them. 0, or -1 out of memory. */
int boundary_mesh_clip(const fcl_mesh *m, const float *clip, fcl_mesh *out, int *same)
{
    memset(out, 0, sizeof *out);
    signed char *side = malloc(m->ntri + 1);
    if (!side)
        return -1;
    size_t ncut = 0, nin = 0;
    for (size_t t = 0; t < m->ntri; t++) {
        side[t] = (signed char)tri_side(m, t, clip);
        ncut += side[t] == 0;
        nin += side[t] == 1;
    }
    if ((*same = nin == m->ntri) != 0)
        return free(side), 0;
    /* A triangle cut by six planes has at most 9 points: 7 triangles. */
    unsigned *map = malloc(m->nv * sizeof *map + 1);
    out->v = malloc((m->nv + 9 * ncut) * 3 * sizeof *out->v + 1);
    out->tri = malloc((nin + 7 * ncut) * 3 * sizeof *out->tri + 1);
    if (!map || !out->v || !out->tri)
        return free(side), free(map), obj_free(out), -1;
    keep_vertices(m, side, map, out);
    for (size_t t = 0; t < m->ntri; t++) {
        double q[9][3];
        int n = side[t] == 0 ? cut_tri(m, t, clip, q) : 0;
        for (int c = 0; side[t] == 1 && c < 3; c++)
            out->tri[3 * out->ntri + c] = map[m->tri[3 * t + c]];
        out->ntri += side[t] == 1;
        size_t base = out->nv;
        for (int i = 0; i < n; i++, out->nv++)
            for (int k = 0; k < 3; k++)
                out->v[3 * out->nv + k] = (float)q[i][k];
        for (int i = 1; i + 1 < n; i++, out->ntri++) {
            out->tri[3 * out->ntri] = (unsigned)base;
            out->tri[3 * out->ntri + 1] = (unsigned)(base + i);
            out->tri[3 * out->ntri + 2] = (unsigned)(base + i + 1);
        }
    }
    free(side);
    free(map);
    return 0;
}

static int sample_mesh(const fcl_mesh *m, float d, double gap, int layers, const float dlo[3], const float dhi[3],
                       const float *clip, boundary_stack *st)
{
    float4 *pts, *at;
    size_t n;
    fcl_mesh cut;
    int same = 1;
    if (clip && boundary_mesh_clip(m, clip, &cut, &same) != 0)
        return -1;
    int rc = sampler_mesh_gap(same ? m : &cut, d, gap, &pts, &n);
    if (!same)
        obj_free(&cut);
    if (rc != 0)
        return -1;
    if ((at = boundary_stack_room(st, 0, n)) != NULL) {
        memcpy(at, pts, n * sizeof *pts);
        st->n[0] += n;
    }
    free(pts);
    if (!at)
        return -1;
    return layers > 1 ? boundary_mesh_layers(m, d, layers, dlo, dhi, st) : 0;
}

/* The samples of layers from[k] on that lie in clip, kept in order. */
static void keep_clipped(boundary_stack *st, const size_t *from, int layers, const float *clip)
{
    for (int k = 0; clip && k < layers; k++) {
        size_t kept = from[k];
        for (size_t i = from[k]; i < st->n[k]; i++)
            if (sampler_clip_has(clip, st->pos[k][i].x, st->pos[k][i].y, st->pos[k][i].z))
                st->pos[k][kept++] = st->pos[k][i];
        st->n[k] = kept;
    }
}

int boundary_sample_obstacle(const fcl_obstacle *o, const fcl_mesh *m, float d, double mesh_gap, int layers,
                             const float dlo[3], const float dhi[3], const float *clip, boundary_stack *st)
{
    float lo[3], hi[3];
    size_t from[FCL_BOUNDARY_LAYERS_MAX];
    memcpy(from, st->n, sizeof from);
    switch (o->kind) {
    case FCL_SHAPE_BOX:
        for (int k = 0; k < layers; k++)
            if (boundary_box_layer(o->min, o->max, d, k, lo, hi) && put_box(lo, hi, d, k, clip, st) != 0)
                return -1;
        return 0;
    case FCL_SHAPE_SPHERE:
        return sample_sphere(o, d, layers, clip, st);
    case FCL_SHAPE_POLYGON: {
        /* a point of the fluid lattice: the domain's min + d / 2 */
        double at[3] = { dlo[0] + 0.5 * (double)d, dlo[1] + 0.5 * (double)d, dlo[2] + 0.5 * (double)d };
        return sample_polygon(o, d, layers, clip, at, st);
    }
    default:
        /* A mesh is cut to the clip before its sampling, whose
         * samples are thinned over the cut triangles: those a hair
         * outside the clip go after. */
        if (sample_mesh(m, d, mesh_gap, layers, dlo, dhi, clip, st) != 0)
            return -1;
        keep_clipped(st, from, layers, clip);
        return 0;
    }
}
