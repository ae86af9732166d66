/* control_skin.c - skinning of fluid-control particles to a skeleton
 * (host/scene/skeleton.c reads it and gives the bones' motion): the
 * geodesic bone weights of eqs. 1-2 (Dijkstra through the sampling's
 * voxel grid) and linear blend skinning.
 *
 * Invariant: weights and transforms are computed in double and only the
 * results are rounded to float, so a particle bound to one bone moves by
 * that bone's rigid transform to within float rounding.
 */
#include "control_skin.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ctl_skin_apply(const fcl_skeleton *sk, const float *w, const float4 *p0, size_t n, double t, float4 *out)
{
    size_t nb = (size_t)sk->nbones;
    double m[12 * SKELETON_MAX_BONES];
    skeleton_motion(sk, t, m);
#pragma omp parallel for schedule(static)
    for (long long j = 0; j < (long long)n; j++) {
        double p[3] = { p0[j].x, p0[j].y, p0[j].z }, s[3] = { 0, 0, 0 };
        for (size_t i = 0; i < nb; i++) {
            double wi = w[(size_t)j * nb + i];
            if (wi == 0.0)
                continue;
            const double *M = m + 12 * i;
            for (int r = 0; r < 3; r++)
                s[r] += wi * (M[4 * r] * p[0] + M[4 * r + 1] * p[1] + M[4 * r + 2] * p[2] + M[4 * r + 3]);
        }
        out[j] = (float4){ (float)s[0], (float)s[1], (float)s[2], 0.0f };
    }
}

/* ---- weights: geodesic distances through the voxel grid */

typedef struct heap_item {
    float d;
    uint32_t v;
} heap_item;

typedef struct heap {
    heap_item *a;
    size_t n, cap;
} heap;

static int heap_push(heap *h, float d, uint32_t v)
{
    if (h->n == h->cap) {
        size_t c = h->cap ? 2 * h->cap : 4096;
        heap_item *a = realloc(h->a, c * sizeof *a);
        if (!a)
            return -1;
        h->a = a, h->cap = c;
    }
    size_t i = h->n++;
    while (i > 0 && h->a[(i - 1) / 2].d > d) {
        h->a[i] = h->a[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->a[i] = (heap_item){ d, v };
    return 0;
}

static heap_item heap_pop(heap *h)
{
    heap_item top = h->a[0], last = h->a[--h->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && h->a[c + 1].d < h->a[c].d)
            c++;
        if (!(h->a[c].d < last.d))
            break;
        h->a[i] = h->a[c];
        i = c;
    }
    if (h->n)
        h->a[i] = last;
    return top;
}

/* Distance from x to segment ab. */
static double seg_dist(const double *x, const double *a, const double *b)
{
    double ab[3], ax[3], l2 = 0.0, u = 0.0, d2 = 0.0;
    for (int k = 0; k < 3; k++) {
        ab[k] = b[k] - a[k], ax[k] = x[k] - a[k];
        l2 += ab[k] * ab[k];
        u += ab[k] * ax[k];
    }
    u = l2 > 0.0 ? fmin(fmax(u / l2, 0.0), 1.0) : 0.0;
    for (int k = 0; k < 3; k++)
        d2 += (ax[k] - u * ab[k]) * (ax[k] - u * ab[k]);
    return sqrt(d2);
}

/* Bone i as it lies at t = 0: its joints moved by T_i(0). */
static void bone_at_rest(const fcl_skeleton *sk, const double *x0, int i, double a[3], double b[3])
{
    const double *ja = sk->joints + 3 * sk->bones[2 * i], *jb = sk->joints + 3 * sk->bones[2 * i + 1];
    const double *M = x0 + 12 * i;
    for (int r = 0; r < 3; r++) {
        a[r] = M[4 * r] * ja[0] + M[4 * r + 1] * ja[1] + M[4 * r + 2] * ja[2] + M[4 * r + 3];
        b[r] = M[4 * r] * jb[0] + M[4 * r + 1] * jb[1] + M[4 * r + 2] * jb[2] + M[4 * r + 3];
    }
}

static void voxel_center(const fcl_ctl_points *p, uint32_t v, double c[3])
{
    uint32_t d0 = (uint32_t)p->dims[0], d1 = (uint32_t)p->dims[1];
    uint32_t ijk[3] = { v % d0, v / d0 % d1, v / (d0 * d1) };
    for (int k = 0; k < 3; k++)
        c[k] = p->origin[k] + (ijk[k] + 0.5) * p->voxel;
}

/* Seeds: the inside voxels the segment ab passes through (sampled every
 * quarter voxel), each at its center's distance to the segment (voxel
 * units), which is finer than 0 and at most sqrt(3)/2. */
static int seed_bone(const fcl_ctl_points *p, const double *a, const double *b, float *dist, heap *h)
{
    double len = sqrt((b[0] - a[0]) * (b[0] - a[0]) + (b[1] - a[1]) * (b[1] - a[1]) + (b[2] - a[2]) * (b[2] - a[2]));
    long long steps = (long long)ceil(4.0 * len / p->voxel);
    for (long long s = 0; s <= steps; s++) {
        double u = steps ? (double)s / (double)steps : 0.0, x[3], c[3];
        int ijk[3], in = 1;
        for (int k = 0; k < 3; k++) {
            x[k] = a[k] + u * (b[k] - a[k]);
            double f = floor((x[k] - p->origin[k]) / p->voxel);
            in &= f >= 0.0 && f < p->dims[k];
            ijk[k] = in ? (int)f : 0;
        }
        if (!in)
            continue;
        uint32_t v = (uint32_t)ijk[0] + (uint32_t)p->dims[0] * ((uint32_t)ijk[1] + (uint32_t)p->dims[1] * (uint32_t)ijk[2]);
        if (p->label[v] == CTL_VOXEL_OUTSIDE)
            continue;
        voxel_center(p, v, c);
        float d = (float)(seg_dist(c, a, b) / p->voxel);
        if (d < dist[v]) {
            dist[v] = d;
            if (heap_push(h, d, v) != 0)
                return -1;
        }
    }
    return 0;
}

/* Dijkstra from the seeds over the 26-neighborhood of voxels not
 * labelled OUTSIDE, steps of 1, sqrt 2 and sqrt 3 voxels. */
static int geodesic(const fcl_ctl_points *p, float *dist, heap *h)
{
    const int *d = p->dims;
    while (h->n) {
        heap_item it = heap_pop(h);
        if (it.d > dist[it.v])
            continue;   /* a stale entry: the voxel was settled nearer */
        int x = (int)(it.v % (uint32_t)d[0]), y = (int)(it.v / (uint32_t)d[0] % (uint32_t)d[1]);
        int z = (int)(it.v / ((uint32_t)d[0] * (uint32_t)d[1]));
        for (int dz = -1; dz <= 1; dz++)
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int X = x + dx, Y = y + dy, Z = z + dz, m = dx * dx + dy * dy + dz * dz;
                    if (m == 0 || X < 0 || Y < 0 || Z < 0 || X >= d[0] || Y >= d[1] || Z >= d[2])
                        continue;
                    uint32_t v = (uint32_t)X + (uint32_t)d[0] * ((uint32_t)Y + (uint32_t)d[1] * (uint32_t)Z);
                    float nd = it.d + (m == 1 ? 1.0f : m == 2 ? (float)M_SQRT2 : 1.7320508f);
                    if (p->label[v] != CTL_VOXEL_OUTSIDE && nd < dist[v]) {
                        dist[v] = nd;
                        if (heap_push(h, nd, v) != 0)
                            return -1;
                    }
                }
    }
    return 0;
}

/* Eq. 1 with d clamped to half a voxel (eq. 1 is singular at 0). */
static double eq1(double d, double alpha)
{
    d = fmax(d, 0.5);
    double s = 1.0 / ((1.0 - alpha) * d + alpha * d * d);
    return s * s;
}

/* Eq. 2, and the fallback: a particle that no bone reaches through the
 * voxels (its voxel walled off from every bone) is weighted by its
 * Euclidean distances to the bones instead. */
static size_t normalize(const fcl_skeleton *sk, const fcl_ctl_points *p, const double *bone, double alpha, float *w)
{
    size_t nb = (size_t)sk->nbones, fell = 0;
    for (size_t j = 0; j < p->n; j++) {
        float *wj = w + j * nb;
        double sum = 0.0, x[3] = { p->pos[j].x, p->pos[j].y, p->pos[j].z };
        for (size_t i = 0; i < nb; i++)
            sum += wj[i];
        fell += sum == 0.0;
        if (sum == 0.0)
            for (size_t i = 0; i < nb; i++) {
                wj[i] = (float)eq1(seg_dist(x, bone + 6 * i, bone + 6 * i + 3) / p->voxel, alpha);
                sum += wj[i];
            }
        for (size_t i = 0; i < nb; i++)
            wj[i] = (float)(wj[i] / sum);
    }
    return fell;
}

int ctl_skin_weights(const fcl_skeleton *sk, const fcl_ctl_points *pts, double alpha, float *w, size_t *fallback,
                     char *err, size_t errlen)
{
    if (!(alpha >= 0.0 && alpha <= 1.0)) {
        snprintf(err, errlen, "skinning: expected alpha in [0, 1], got %g", alpha);
        return -1;
    }
    size_t nvox = (size_t)pts->dims[0] * pts->dims[1] * pts->dims[2], nb = (size_t)sk->nbones;
    double x0[12 * SKELETON_MAX_BONES], bone[6 * SKELETON_MAX_BONES];
    float *dist = malloc(nvox * sizeof *dist + sizeof *dist);
    heap h = { 0 };
    int rc = dist ? 0 : -1;
    skeleton_pose(sk, 0.0, x0);
    for (size_t i = 0; rc == 0 && i < nb; i++) {
        bone_at_rest(sk, x0, (int)i, bone + 6 * i, bone + 6 * i + 3);
        for (size_t v = 0; v < nvox; v++)
            dist[v] = INFINITY;
        rc = seed_bone(pts, bone + 6 * i, bone + 6 * i + 3, dist, &h) == 0 && geodesic(pts, dist, &h) == 0 ? 0 : -1;
        for (size_t j = 0; rc == 0 && j < pts->n; j++) {
            float d = dist[pts->voxel_of[j]];
            w[j * nb + i] = isfinite(d) ? (float)eq1(d, alpha) : 0.0f;
        }
    }
    free(dist);
    free(h.a);
    if (rc != 0) {
        snprintf(err, errlen, "skinning: out of memory (%zu voxels)", nvox);
        return -1;
    }
    size_t fell = normalize(sk, pts, bone, alpha, w);
    if (fallback)
        *fallback = fell;
    return 0;
}
