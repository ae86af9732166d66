/* control_skin.c - skeletons for fluid-control targets: the JSON reader
 * (errors name file, key and value), keyframe interpolation, the geodesic
 * bone weights of eqs. 1-2 (Dijkstra through the sampling's voxel grid)
 * and linear blend skinning.
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

/* ---- the reader */

static int fail(char *err, size_t errlen, const char *file, const char *path, const cJSON *v, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
static int fail(char *err, size_t errlen, const char *file, const char *path, const cJSON *v, const char *fmt, ...)
{
    char exp[256], got[96];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(exp, sizeof exp, fmt, ap);
    va_end(ap);
    if (!v)
        snprintf(got, sizeof got, "nothing");
    else if (cJSON_IsNumber(v))
        snprintf(got, sizeof got, "%g", v->valuedouble);
    else if (cJSON_IsString(v))
        snprintf(got, sizeof got, "'%.40s'", v->valuestring);
    else if (cJSON_IsArray(v))   /* its length: counts are what arrays get wrong */
        snprintf(got, sizeof got, "an array of %d", cJSON_GetArraySize(v));
    else
        snprintf(got, sizeof got, "%s", cJSON_IsObject(v) ? "an object" : cJSON_IsBool(v) ? "a boolean" : "null");
    snprintf(err, errlen, "%s: %s: expected %s, got %s", file, path, exp, got);
    return -1;
}

/* An array of n finite numbers at path; when n is 4 (a rotation) the
 * first three must not all be zero. */
static int read_vec(const cJSON *a, int n, double *out, const char *file, const char *path, char *err, size_t errlen)
{
    char at[320];
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != n)
        return fail(err, errlen, file, path, a, "%s", n == 4 ? "[ax, ay, az, degrees]" : n == 3 ? "[x, y, z]" : "[j0, j1]");
    for (int k = 0; k < n; k++) {
        const cJSON *c = cJSON_GetArrayItem(a, k);
        snprintf(at, sizeof at, "%s[%d]", path, k);
        /* within +-1e6, as every coordinate of a scene (scene.c): a
         * float of 1e39 would be infinite */
        if (!cJSON_IsNumber(c) || !isfinite(c->valuedouble) || fabs(c->valuedouble) > 1e6)
            return fail(err, errlen, file, at, c, "a finite number within +-1e6");
        out[k] = c->valuedouble;
    }
    if (n == 4 && out[0] == 0.0 && out[1] == 0.0 && out[2] == 0.0)
        return fail(err, errlen, file, path, cJSON_GetArrayItem(a, 0), "a rotation axis that is not zero");
    return 0;
}

/* A list of at least one (at most max) entries. */
static int read_list(const cJSON *node, const char *name, int max, const cJSON **list, int *n, const char *file,
                     const char *key, char *err, size_t errlen)
{
    char path[320];
    snprintf(path, sizeof path, "%s.%s", key, name);
    *list = cJSON_GetObjectItemCaseSensitive(node, name);
    *n = cJSON_IsArray(*list) ? cJSON_GetArraySize(*list) : 0;
    if (*n >= 1 && *n <= max)
        return 0;
    if (!cJSON_IsArray(*list))
        return fail(err, errlen, file, path, *list, "an array of 1 to %d %s", max, name);
    snprintf(err, errlen, "%s: %s: expected an array of 1 to %d %s, got %d", file, path, max, name, *n);
    return -1;
}

static int read_bones(const cJSON *list, fcl_skeleton *sk, const char *file, const char *key, char *err, size_t errlen)
{
    char path[320];
    for (int i = 0; i < sk->nbones; i++) {
        const cJSON *b = cJSON_GetArrayItem(list, i);
        double j[2];
        snprintf(path, sizeof path, "%s.bones[%d]", key, i);
        if (read_vec(b, 2, j, file, path, err, errlen) != 0)
            return -1;
        for (int k = 0; k < 2; k++) {
            snprintf(path, sizeof path, "%s.bones[%d][%d]", key, i, k);
            if (j[k] != floor(j[k]) || j[k] < 0 || j[k] >= sk->njoints)
                return fail(err, errlen, file, path, cJSON_GetArrayItem(b, k), "a joint index from 0 to %d",
                            sk->njoints - 1);
            sk->bones[2 * i + k] = (int)j[k];
        }
        if (sk->bones[2 * i] == sk->bones[2 * i + 1])
            return fail(err, errlen, file, path, cJSON_GetArrayItem(b, 1), "a joint other than bones[%d][0]", i);
        /* A bone of no length passes through one voxel and has no axis
         * (it was taken in silence; a review). */
        const double *a = sk->joints + 3 * sk->bones[2 * i], *c = sk->joints + 3 * sk->bones[2 * i + 1];
        if (a[0] == c[0] && a[1] == c[1] && a[2] == c[2])
            return fail(err, errlen, file, path, cJSON_GetArrayItem(b, 1),
                        "a joint at another point than joint %d's (a bone of length 0)", sk->bones[2 * i]);
    }
    return 0;
}

static int check_keys(const cJSON *kobj, const char *allowed, const char *file, const char *path, char *err,
                      size_t errlen)
{
    char at[320], list[64];
    for (const cJSON *c = kobj->child; c; c = c->next) {
        snprintf(list, sizeof list, " %s ", allowed);
        char word[80];
        snprintf(word, sizeof word, " %s ", c->string ? c->string : "");
        if (!strstr(list, word)) {
            snprintf(at, sizeof at, "%s.%s", path, c->string ? c->string : "");
            return fail(err, errlen, file, at, c, "no such key (known: %s)", allowed);
        }
    }
    return 0;
}

void ctl_quat_of(const double r[4], double q[4])
{
    double len = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]), h = 0.5 * r[3] * M_PI / 180.0;
    q[0] = cos(h);
    for (int k = 0; k < 3; k++)
        q[k + 1] = sin(h) * r[k] / len;
}

/* Key k: its time (after the previous key's), rotations, translations. */
static int read_key(const cJSON *kobj, int k, fcl_skeleton *sk, const char *file, const char *key, char *err,
                    size_t errlen)
{
    char path[320], at[352];
    snprintf(path, sizeof path, "%s.keys[%d]", key, k);
    if (!cJSON_IsObject(kobj))
        return fail(err, errlen, file, path, kobj, "an object with t, rotate and translate");
    if (check_keys(kobj, "t rotate translate", file, path, err, errlen) != 0)
        return -1;
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(kobj, "t");
    const cJSON *rot = cJSON_GetObjectItemCaseSensitive(kobj, "rotate");
    const cJSON *tr = cJSON_GetObjectItemCaseSensitive(kobj, "translate");
    snprintf(at, sizeof at, "%s.t", path);
    if (!cJSON_IsNumber(t) || !isfinite(t->valuedouble) || t->valuedouble < 0.0)   /* as a path's keys */
        return fail(err, errlen, file, at, t, "a time >= 0 in seconds");
    if (k > 0 && !(t->valuedouble > sk->key_t[k - 1]))
        return fail(err, errlen, file, at, t, "a time after keys[%d].t = %g (keys in order)", k - 1, sk->key_t[k - 1]);
    sk->key_t[k] = t->valuedouble;
    snprintf(at, sizeof at, "%s.rotate", path);
    if (!cJSON_IsArray(rot) || cJSON_GetArraySize(rot) != sk->nbones)
        return fail(err, errlen, file, at, rot, "an array of %d rotations, one per bone", sk->nbones);
    if (tr && (!cJSON_IsArray(tr) || cJSON_GetArraySize(tr) != sk->nbones)) {
        snprintf(at, sizeof at, "%s.translate", path);
        return fail(err, errlen, file, at, tr, "an array of %d translations [x, y, z], one per bone", sk->nbones);
    }
    for (int i = 0; i < sk->nbones; i++) {
        double r[4];
        snprintf(at, sizeof at, "%s.rotate[%d]", path, i);
        if (read_vec(cJSON_GetArrayItem(rot, i), 4, r, file, at, err, errlen) != 0)
            return -1;
        ctl_quat_of(r, sk->key_q + 4 * ((size_t)k * sk->nbones + i));
        snprintf(at, sizeof at, "%s.translate[%d]", path, i);
        double *x = sk->key_tr + 3 * ((size_t)k * sk->nbones + i);
        if (tr && read_vec(cJSON_GetArrayItem(tr, i), 3, x, file, at, err, errlen) != 0)
            return -1;
    }
    return 0;
}

int ctl_skeleton_parse(const cJSON *node, const char *file, const char *key, fcl_skeleton *sk, char *err,
                       size_t errlen)
{
    const cJSON *joints, *bones, *keys;
    char path[320];
    memset(sk, 0, sizeof *sk);
    if (!cJSON_IsObject(node))
        return fail(err, errlen, file, key, node, "an object with joints, bones and keys");
    if (check_keys(node, "joints bones keys", file, key, err, errlen) != 0 ||
        read_list(node, "joints", 2 * CTL_MAX_BONES, &joints, &sk->njoints, file, key, err, errlen) != 0 ||
        read_list(node, "bones", CTL_MAX_BONES, &bones, &sk->nbones, file, key, err, errlen) != 0 ||
        read_list(node, "keys", 1 << 20, &keys, &sk->nkeys, file, key, err, errlen) != 0)
        return -1;
    size_t nk = (size_t)sk->nkeys * sk->nbones;
    sk->joints = malloc(3 * sk->njoints * sizeof *sk->joints);
    sk->bones = malloc(2 * sk->nbones * sizeof *sk->bones);
    sk->key_t = malloc(sk->nkeys * sizeof *sk->key_t);
    sk->key_q = malloc(4 * nk * sizeof *sk->key_q);
    sk->key_tr = calloc(3 * nk, sizeof *sk->key_tr);   /* translate is optional: 0 */
    int rc = sk->joints && sk->bones && sk->key_t && sk->key_q && sk->key_tr ? 0 : -1;
    if (rc != 0)
        snprintf(err, errlen, "%s: %s: out of memory", file, key);
    for (int j = 0; rc == 0 && j < sk->njoints; j++) {
        snprintf(path, sizeof path, "%s.joints[%d]", key, j);
        rc = read_vec(cJSON_GetArrayItem(joints, j), 3, sk->joints + 3 * j, file, path, err, errlen);
    }
    if (rc == 0)
        rc = read_bones(bones, sk, file, key, err, errlen);
    for (int k = 0; rc == 0 && k < sk->nkeys; k++)
        rc = read_key(cJSON_GetArrayItem(keys, k), k, sk, file, key, err, errlen);
    if (rc != 0)
        ctl_skeleton_free(sk);
    return rc;
}

void ctl_skeleton_free(fcl_skeleton *sk)
{
    free(sk->joints);
    free(sk->bones);
    free(sk->key_t);
    free(sk->key_q);
    free(sk->key_tr);
    memset(sk, 0, sizeof *sk);
}

/* ---- poses */

void ctl_slerp(const double *a, const double *b, double u, double *q)
{
    double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3], s = 1.0;
    if (d < 0.0)   /* q and -q are the same rotation: take the nearer */
        d = -d, s = -1.0;
    double wa = 1.0 - u, wb = u;
    if (d < 0.9995) {   /* else nearly equal: lerp, renormalized below */
        double th = acos(d);
        wa = sin((1.0 - u) * th) / sin(th);
        wb = sin(u * th) / sin(th);
    }
    double n = 0.0;
    for (int k = 0; k < 4; k++) {
        q[k] = wa * a[k] + s * wb * b[k];
        n += q[k] * q[k];
    }
    for (int k = 0; k < 4; k++)
        q[k] /= sqrt(n);
}

void ctl_quat_matrix(const double *q, double R[9])
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    double m[9] = { 1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
                    2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                    2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y) };
    memcpy(R, m, sizeof m);
}

void ctl_skin_pose(const fcl_skeleton *sk, double t, double *xf)
{
    int k = 0, hi = sk->nkeys - 1;   /* k: the last key at or before t, else 0 */
    while (k < hi) {
        int mid = (k + hi + 1) / 2;
        if (sk->key_t[mid] <= t)
            k = mid;
        else
            hi = mid - 1;
    }
    int k1 = k + 1 < sk->nkeys && t > sk->key_t[k] ? k + 1 : k;   /* clamped at both ends */
    double u = k1 == k ? 0.0 : (t - sk->key_t[k]) / (sk->key_t[k1] - sk->key_t[k]);
    for (int i = 0; i < sk->nbones; i++) {
        size_t a = (size_t)k * sk->nbones + i, b = (size_t)k1 * sk->nbones + i;
        double q[4], R[9], tr[3];
        ctl_slerp(sk->key_q + 4 * a, sk->key_q + 4 * b, u, q);
        ctl_quat_matrix(q, R);
        const double *J = sk->joints + 3 * sk->bones[2 * i];
        for (int r = 0; r < 3; r++) {
            tr[r] = (1.0 - u) * sk->key_tr[3 * a + r] + u * sk->key_tr[3 * b + r];
            /* x -> R (x - J) + J + tr, so c = J + tr - R J */
            double *row = xf + 12 * i + 4 * r;
            row[0] = R[3 * r], row[1] = R[3 * r + 1], row[2] = R[3 * r + 2];
            row[3] = J[r] + tr[r] - (R[3 * r] * J[0] + R[3 * r + 1] * J[1] + R[3 * r + 2] * J[2]);
        }
    }
}

/* m = T_t T_0^-1 for rigid 3 x 4 transforms: T_0^-1 x = R0^T (x - c0). */
static void relative(const double *t1, const double *t0, double *m)
{
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++)
            m[4 * r + c] = t1[4 * r] * t0[4 * c] + t1[4 * r + 1] * t0[4 * c + 1] + t1[4 * r + 2] * t0[4 * c + 2];
        m[4 * r + 3] = t1[4 * r + 3] - (m[4 * r] * t0[3] + m[4 * r + 1] * t0[7] + m[4 * r + 2] * t0[11]);
    }
}

void ctl_skin_motion(const fcl_skeleton *sk, double t, double *m)
{
    /* 48 KB of stack at most (CTL_MAX_BONES), so nothing can fail here. */
    double x0[12 * CTL_MAX_BONES], x1[12 * CTL_MAX_BONES];
    ctl_skin_pose(sk, 0.0, x0);
    ctl_skin_pose(sk, t, x1);
    for (int i = 0; i < sk->nbones; i++)
        relative(x1 + 12 * i, x0 + 12 * i, m + 12 * i);
}

void ctl_skin_apply(const fcl_skeleton *sk, const float *w, const float4 *p0, size_t n, double t, float4 *out)
{
    size_t nb = (size_t)sk->nbones;
    double m[12 * CTL_MAX_BONES];
    ctl_skin_motion(sk, t, m);
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
    double x0[12 * CTL_MAX_BONES], bone[6 * CTL_MAX_BONES];
    float *dist = malloc(nvox * sizeof *dist + sizeof *dist);
    heap h = { 0 };
    int rc = dist ? 0 : -1;
    ctl_skin_pose(sk, 0.0, x0);
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
