/* skeleton.c - skeletons for fluid-control targets (seed 001 §3.1): the
 * JSON reader (errors name file, key and value), quaternions, keyframe
 * interpolation and each bone's motion. The scene reads them here; the
 * pbf solver's control (host/solvers/pbf/control_skin.c) binds particles
 * to the bones and skins them.
 *
 * Invariant: transforms are computed in double, so a bone's motion is
 * rigid to double rounding.
 */
#include "skeleton.h"

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
    if (n == 4 && out[0] == 0.0 && out[1] == 0.0 && out[2] == 0.0) {
        /* the whole value, as the path's form of this error gives it (it
         * said "got 0"; a review) */
        snprintf(err, errlen, "%s: %s: expected a rotation axis that is not zero, got [%g, %g, %g, %g]", file, path,
                 out[0], out[1], out[2], out[3]);
        return -1;
    }
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
        snprintf(at, sizeof at, "%s.%s", path, c->string ? c->string : "");
        if (!strstr(list, word))
            return fail(err, errlen, file, at, c, "one of the keys %s", allowed);
        /* A key given twice: cJSON finds the first, and the second (a
         * key's 30 degree turn) was dropped without a word (a review). */
        for (const cJSON *u = kobj->child; u != c; u = u->next)
            if (strcmp(u->string, c->string) == 0)
                return fail(err, errlen, file, at, c, "each key once (given twice)");
    }
    return 0;
}

void skeleton_quat_of(const double r[4], double q[4])
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
        skeleton_quat_of(r, sk->key_q + 4 * ((size_t)k * sk->nbones + i));
        snprintf(at, sizeof at, "%s.translate[%d]", path, i);
        double *x = sk->key_tr + 3 * ((size_t)k * sk->nbones + i);
        if (tr && read_vec(cJSON_GetArrayItem(tr, i), 3, x, file, at, err, errlen) != 0)
            return -1;
    }
    return 0;
}

int skeleton_parse(const cJSON *node, const char *file, const char *key, fcl_skeleton *sk, char *err,
                       size_t errlen)
{
    const cJSON *joints, *bones, *keys;
    char path[320];
    memset(sk, 0, sizeof *sk);
    if (!cJSON_IsObject(node))
        return fail(err, errlen, file, key, node, "an object with joints, bones and keys");
    if (check_keys(node, "joints bones keys", file, key, err, errlen) != 0 ||
        read_list(node, "joints", 2 * SKELETON_MAX_BONES, &joints, &sk->njoints, file, key, err, errlen) != 0 ||
        read_list(node, "bones", SKELETON_MAX_BONES, &bones, &sk->nbones, file, key, err, errlen) != 0 ||
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
        skeleton_free(sk);
    return rc;
}

void skeleton_free(fcl_skeleton *sk)
{
    free(sk->joints);
    free(sk->bones);
    free(sk->key_t);
    free(sk->key_q);
    free(sk->key_tr);
    memset(sk, 0, sizeof *sk);
}

/* ---- poses */

void skeleton_slerp(const double *a, const double *b, double u, double *q)
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

void skeleton_quat_matrix(const double *q, double R[9])
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    double m[9] = { 1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
                    2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                    2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y) };
    memcpy(R, m, sizeof m);
}

void skeleton_pose(const fcl_skeleton *sk, double t, double *xf)
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
        skeleton_slerp(sk->key_q + 4 * a, sk->key_q + 4 * b, u, q);
        skeleton_quat_matrix(q, R);
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

void skeleton_motion(const fcl_skeleton *sk, double t, double *m)
{
    /* 48 KB of stack at most (SKELETON_MAX_BONES), so nothing can fail here. */
    double x0[12 * SKELETON_MAX_BONES], x1[12 * SKELETON_MAX_BONES];
    skeleton_pose(sk, 0.0, x0);
    skeleton_pose(sk, t, x1);
    for (int i = 0; i < sk->nbones; i++)
        relative(x1 + 12 * i, x0 + 12 * i, m + 12 * i);
}
