/* targets.c - reading a scene's "targets" (targets.h) and the rigid pose
 * of a target at a time. Shapes are read as obstacles are (scene.c);
 * errors name the file, the key and the value.
 * Invariant: see targets.h.
 */
#include "targets.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skeleton.h"
#include "infile.h"
#include "obj.h"
#include "scene_read.h"

static int fail(char *err, size_t errlen, const char *file, const char *where, const char *msg)
{
    snprintf(err, errlen, "%s: %s: %s", file, where, msg);
    return -1;
}

/* An optional finite number o[key] into *out within [lo, hi]. */
static int read_num(const cJSON *o, const char *key, double lo, double hi, double *out, const char *where,
                    const char *file, char *err, size_t errlen)
{
    return scene_read_number(o, key, lo, hi, 0, out, where, file, err, errlen);
}

/* One keyframe: t, translate, rotate [ax, ay, az, degrees]. */
static int read_key(fcl_target_key *k, const cJSON *o, const char *where, const char *file, char *err, size_t errlen)
{
    static const char *const keys[] = { "t", "translate", "rotate", NULL };
    char msg[160];
    memset(k, 0, sizeof *k);
    k->axis[1] = 1.0f;
    if (!cJSON_IsObject(o))
        return fail(err, errlen, file, where, "expected an object {\"t\": ..., \"translate\": ..., \"rotate\": ...}");
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "t");
    char got[96], at[96];
    if (!cJSON_IsNumber(t) || !isfinite(t->valuedouble) || t->valuedouble < 0.0) {
        snprintf(msg, sizeof msg, "expected a time >= 0 (s), got %s", scene_json_show(t, got, sizeof got));
        snprintf(at, sizeof at, "%s.t", where);
        return fail(err, errlen, file, at, msg);
    }
    k->t = t->valuedouble;
    if (scene_check_keys(o, keys, where, file, err, errlen) != 0 ||
        scene_read_vec3(o, "translate", k->translate, 0, where, file, err, errlen) != 0)
        return -1;
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(o, "rotate");
    if (!r)
        return 0;
    double v[4];
    int ok = cJSON_IsArray(r) && cJSON_GetArraySize(r) == 4;
    for (int i = 0; ok && i < 4; i++) {
        const cJSON *c = cJSON_GetArrayItem(r, i);
        /* Within +-1e6, as translations and skeletons' angles are: an
         * angle of 1e300 became inf as a float and switched control off
         * (exit 0), or blew the run up with advice about pbf.dt_max. */
        ok = cJSON_IsNumber(c) && isfinite(c->valuedouble) && fabs(c->valuedouble) <= 1e6;
        v[i] = ok ? c->valuedouble : 0.0;
    }
    double len = ok ? sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) : 0.0;
    if (!ok || !(len > 1e-12)) {
        snprintf(msg, sizeof msg, "expected [axis x, y, z, degrees] with a non-zero axis, each within +-1e6, got %s",
                 scene_json_show(r, got, sizeof got));
        snprintf(at, sizeof at, "%s.rotate", where);
        return fail(err, errlen, file, at, msg);
    }
    for (int i = 0; i < 3; i++)
        k->axis[i] = (float)(v[i] / len);
    k->angle = (float)v[3];
    return 0;
}

static int read_path(fcl_target *g, const cJSON *arr, const char *where, const char *file, char *err, size_t errlen)
{
    char w[96], msg[200];
    snprintf(w, sizeof w, "%s.path", where);
    int n = cJSON_IsArray(arr) ? cJSON_GetArraySize(arr) : 0;
    if (n < 1)
        return fail(err, errlen, file, w, "expected a non-empty array of keyframes");
    g->keys = calloc((size_t)n, sizeof *g->keys);
    if (!g->keys)
        return fail(err, errlen, file, w, "out of memory");
    for (int i = 0; i < n; i++) {
        snprintf(w, sizeof w, "%s.path[%d]", where, i);
        if (read_key(&g->keys[i], cJSON_GetArrayItem(arr, i), w, file, err, errlen) != 0)
            return -1;
        if (i > 0 && !(g->keys[i].t > g->keys[i - 1].t)) {
            snprintf(msg, sizeof msg, "keyframes out of order: t = %g after t = %g (expected increasing times)",
                     g->keys[i].t, g->keys[i - 1].t);
            return fail(err, errlen, file, w, msg);
        }
        g->nkeys = i + 1;
    }
    return 0;
}

static int read_skeleton(fcl_target *g, const cJSON *o, const char *where, const char *file, char *err,
                         size_t errlen)
{
    char key[64];
    snprintf(key, sizeof key, "%s.skeleton", where);
    g->skeleton = calloc(1, sizeof *g->skeleton);
    if (!g->skeleton)
        return fail(err, errlen, file, key, "out of memory");
    return skeleton_parse(o, file, key, g->skeleton, err, errlen);
}

static int read_target(fcl_target *g, const cJSON *o, const char *where, const char *file, char *err,
                       size_t errlen)
{
    static const char *const keys[] = { "shape", "alpha", "start", "end", "path", "skeleton", NULL };
    char w[64], msg[200];
    double alpha = -1.0, start = 0.0, end = INFINITY;
    if (!cJSON_IsObject(o))
        return fail(err, errlen, file, where, "expected an object with a \"shape\"");
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(o, "shape");
    snprintf(w, sizeof w, "%s.shape", where);
    if (scene_check_keys(o, keys, where, file, err, errlen) != 0)
        return -1;
    if (!shape)
        return fail(err, errlen, file, w, "missing (expected a box, sphere or mesh as in \"obstacles\")");
    if (scene_read_shape(&g->shape, shape, w, file, err, errlen) != 0 ||
        read_num(o, "alpha", 0.0, 1.0, &alpha, where, file, err, errlen) != 0 ||
        read_num(o, "start", 0.0, 1e9, &start, where, file, err, errlen) != 0 ||
        read_num(o, "end", 0.0, 1e9, &end, where, file, err, errlen) != 0)
        return -1;
    if (!(end > start)) {
        snprintf(msg, sizeof msg, "expected end > start, got start %g and end %g", start, end);
        return fail(err, errlen, file, where, msg);
    }
    g->alpha = (float)alpha;
    g->start = start;
    g->end = end;
    const cJSON *path = cJSON_GetObjectItemCaseSensitive(o, "path");
    const cJSON *skel = cJSON_GetObjectItemCaseSensitive(o, "skeleton");
    if (path && skel)
        return fail(err, errlen, file, where, "expected a path or a skeleton, got both");
    return path ? read_path(g, path, where, file, err, errlen) : skel ? read_skeleton(g, skel, where, file, err, errlen) : 0;
}

int targets_read(fcl_scene *s, const cJSON *arr, const char *file, char *err, size_t errlen)
{
    if (!cJSON_IsArray(arr))
        return fail(err, errlen, file, "targets", "expected an array of targets");
    if (s->targets)
        return fail(err, errlen, file, "targets", "given twice (expected one list)");
    int n = cJSON_GetArraySize(arr);
    s->targets = calloc((size_t)n + 1, sizeof *s->targets);
    if (!s->targets)
        return fail(err, errlen, file, "targets", "out of memory");
    for (int i = 0; i < n; i++) {
        char where[32];
        snprintf(where, sizeof where, "targets[%d]", i);
        s->ntargets = i + 1;
        if (read_target(&s->targets[i], cJSON_GetArrayItem(arr, i), where, file, err, errlen) != 0)
            return -1;
    }
    return 0;
}

void targets_free(fcl_scene *s)
{
    for (int i = 0; i < s->ntargets; i++) {
        free(s->targets[i].keys);
        if (s->targets[i].skeleton)
            skeleton_free(s->targets[i].skeleton);
        free(s->targets[i].skeleton);
    }
    free(s->targets);
    s->targets = NULL;
    s->ntargets = 0;
}

/* Rodrigues: the rotation by angle (degrees) about the unit axis a. */
static void rotation(const float a[3], double deg, float r[9])
{
    double t = deg * 3.14159265358979323846 / 180.0, c = cos(t), s = sin(t), k = 1.0 - c;
    double x = a[0], y = a[1], z = a[2];
    double m[9] = { c + x * x * k,     x * y * k - z * s, x * z * k + y * s,
                    y * x * k + z * s, c + y * y * k,     y * z * k - x * s,
                    z * x * k - y * s, z * y * k + x * s, c + z * z * k };
    for (int i = 0; i < 9; i++)
        r[i] = (float)m[i];
}

/* The rotation a fraction f of the way from key a's to key b's, each
 * key's own at its time. About one axis (or where either angle is 0, so
 * that its axis is moot) the angle interpolates linearly, so that keys
 * may be more than half a turn apart and a path can spin; about two axes
 * the quaternions are slerped (the shorter way round). */
static void key_rotation(const fcl_target_key *a, const fcl_target_key *b, double f, float r[9])
{
    double dot = (double)a->axis[0] * b->axis[0] + (double)a->axis[1] * b->axis[1] + (double)a->axis[2] * b->axis[2];
    if (a->angle == 0.0f || dot >= 1.0 - 1e-9 || dot <= -1.0 + 1e-9) {
        const float *axis = a->angle == 0.0f ? b->axis : a->axis;
        double to = dot < 0.0 && a->angle != 0.0f ? -(double)b->angle : b->angle;   /* rotation(-n, x) = rotation(n, -x) */
        rotation(axis, a->angle + f * (to - a->angle), r);
        return;
    }
    if (b->angle == 0.0f) {
        rotation(a->axis, (1.0 - f) * a->angle, r);
        return;
    }
    double qa[4], qb[4], q[4], m[9], ra[4] = { a->axis[0], a->axis[1], a->axis[2], a->angle },
                                       rb[4] = { b->axis[0], b->axis[1], b->axis[2], b->angle };
    skeleton_quat_of(ra, qa);
    skeleton_quat_of(rb, qb);
    skeleton_slerp(qa, qb, f, q);
    skeleton_quat_matrix(q, m);
    for (int i = 0; i < 9; i++)
        r[i] = (float)m[i];
}

void target_pose(const fcl_target *g, double t, float r[9], float tr[3])
{
    static const float up[3] = { 0.0f, 1.0f, 0.0f };
    if (!g->nkeys) {
        rotation(up, 0.0, r);
        tr[0] = tr[1] = tr[2] = 0.0f;
        return;
    }
    int k = 0;
    while (k + 1 < g->nkeys && g->keys[k + 1].t <= t)
        k++;
    const fcl_target_key *a = &g->keys[k], *b = k + 1 < g->nkeys ? &g->keys[k + 1] : a;
    double f = b->t > a->t ? (t - a->t) / (b->t - a->t) : 0.0;
    f = f < 0.0 ? 0.0 : (f > 1.0 ? 1.0 : f);
    key_rotation(a, b, f, r);
    for (int i = 0; i < 3; i++)
        tr[i] = (float)(a->translate[i] + f * (b->translate[i] - a->translate[i]));
}

/* Six times the volume a closed mesh encloses (divergence theorem):
 * negative when its normals point inward. */
static double signed_volume6(const fcl_mesh *m)
{
    double v = 0.0;
    for (size_t t = 0; t < m->ntri; t++) {
        const float *a = m->v + 3 * m->tri[3 * t], *b = m->v + 3 * m->tri[3 * t + 1], *c = m->v + 3 * m->tri[3 * t + 2];
        v += a[0] * ((double)b[1] * c[2] - (double)b[2] * c[1]) - a[1] * ((double)b[0] * c[2] - (double)b[2] * c[0]) +
             a[2] * ((double)b[0] * c[1] - (double)b[1] * c[0]);
    }
    return v;
}

/* The shape's bounds at rest: box, sphere, or (mesh) lo/hi as given. */
static void rest_bounds(const fcl_obstacle *o, float lo[3], float hi[3])
{
    for (int i = 0; i < 3 && o->kind != FCL_SHAPE_MESH; i++) {
        lo[i] = o->kind == FCL_SHAPE_SPHERE ? o->center[i] - o->radius : o->min[i];
        hi[i] = o->kind == FCL_SHAPE_SPHERE ? o->center[i] + o->radius : o->max[i];
    }
}

/* Whether box lo..hi overlaps the domain of p. */
static int meets_domain(const fcl_params *p, const double lo[3], const double hi[3])
{
    for (int i = 0; i < 3; i++)
        if (!(hi[i] >= p->domain_min[i] && lo[i] <= p->domain_max[i]))
            return 0;
    return 1;
}

/* Bounds of target g's posed shape at time t, from its rest bounds: a
 * path's rotation R turns it about a centroid inside the box, which moves
 * a point x by (R - I)(x - c), at most |R - I| = 2 sin(angle / 2) =
 * sqrt(3 - trace R) times the box's diagonal; so the rest box moved by
 * T(t) and grown by that (grown by the whole diagonal, a turn of 1 degree
 * let a sphere 0.1 m outside the domain through, and none at all without
 * a turn, one 0.225 m out; reviews). *tr gets a path's translation, and
 * *turn |R - I| (1 for a skeleton). A skeleton moves every point within
 * the hull of the box's corners under each bone's T_i(t) T_i(0)^-1. */
static void posed_bounds(const fcl_target *g, double t, const float rlo[3], const float rhi[3], double lo[3],
                         double hi[3], float tr[3], double *turn)
{
    float r[9];
    double diag = sqrt(((double)rhi[0] - rlo[0]) * (rhi[0] - rlo[0]) + ((double)rhi[1] - rlo[1]) * (rhi[1] - rlo[1]) +
                       ((double)rhi[2] - rlo[2]) * (rhi[2] - rlo[2]));
    tr[0] = tr[1] = tr[2] = 0.0f;
    *turn = 1.0;
    if (!g->skeleton) {
        target_pose(g, t, r, tr);
        *turn = sqrt(fmax(0.0, 3.0 - ((double)r[0] + r[4] + r[8])));
        for (int i = 0; i < 3; i++) {
            lo[i] = rlo[i] + tr[i] - *turn * diag;
            hi[i] = rhi[i] + tr[i] + *turn * diag;
        }
        return;
    }
    double m[12 * SKELETON_MAX_BONES];
    skeleton_motion(g->skeleton, t, m);
    for (int i = 0; i < 3; i++)
        lo[i] = INFINITY, hi[i] = -INFINITY;
    for (int b = 0; b < g->skeleton->nbones; b++)
        for (int c = 0; c < 8; c++) {
            const double *M = m + 12 * b;
            double q[3] = { c & 1 ? rhi[0] : rlo[0], c & 2 ? rhi[1] : rlo[1], c & 4 ? rhi[2] : rlo[2] };
            for (int i = 0; i < 3; i++) {
                double v = M[4 * i] * q[0] + M[4 * i + 1] * q[1] + M[4 * i + 2] * q[2] + M[4 * i + 3];
                lo[i] = fmin(lo[i], v), hi[i] = fmax(hi[i], v);
            }
        }
}

/* Whether target g posed at time t overlaps the domain: its posed
 * bounds, and a sphere on a path by its center's distance, as a sphere at
 * rest is checked (scene_check), its radius grown by what the turn may
 * move the center (the centroid lies within the sphere). */
static int pose_meets(const fcl_scene *s, const fcl_target *g, double t, const float rlo[3], const float rhi[3],
                      double lo[3], double hi[3])
{
    float tr[3];
    double turn;
    posed_bounds(g, t, rlo, rhi, lo, hi, tr, &turn);
    if (!meets_domain(&s->params, lo, hi))
        return 0;
    const fcl_obstacle *o = &g->shape;
    if (o->kind != FCL_SHAPE_SPHERE || g->skeleton)
        return 1;
    const double c[3] = { (double)o->center[0] + tr[0], (double)o->center[1] + tr[1], (double)o->center[2] + tr[2] };
    double reach = (double)o->radius * (1.0 + turn);
    return scene_domain_gap2(&s->params, c) < reach * reach;
}

/* Target g overlaps the domain at every key of its path or skeleton
 * inside its active interval, and at the interval's start and (a finite)
 * end, where it may be between keys: only its rest pose was checked (a
 * path key 5 m away ran at 48 m/s with exit 0), then keys after the end
 * were skipped and the pose at the end never checked (a target dragged 4
 * m out before its end ran at 13.9 m/s; one whose only key lay after its
 * end sat 5 m out all run, with exit 0; reviews). */
static int check_keys_in_domain(const fcl_scene *s, int gi, const float rlo[3], const float rhi[3], char *err,
                                size_t errlen)
{
    const fcl_target *g = &s->targets[gi];
    int n = g->skeleton ? g->skeleton->nkeys : g->nkeys;
    for (int k = -2; k < n; k++) {
        double t = k == -2 ? g->start : k == -1 ? g->end : g->skeleton ? g->skeleton->key_t[k] : g->keys[k].t;
        double lo[3], hi[3];
        if (!isfinite(t) || (k >= 0 && (t <= g->start || t >= g->end)) || pose_meets(s, g, t, rlo, rhi, lo, hi))
            continue;
        char at[64];
        if (k < 0)
            snprintf(at, sizeof at, "targets[%d].%s", gi, k == -2 ? "start" : "end");
        else
            snprintf(at, sizeof at, "targets[%d].%s[%d]", gi, g->skeleton ? "skeleton.keys" : "path", k);
        snprintf(err, errlen, "%s: %s (t = %g s): moves the target outside the domain (to %.4g..%.4g, "
                 "%.4g..%.4g, %.4g..%.4g m at most; the domain is %g..%g, %g..%g, %g..%g m)", s->file, at, t, lo[0], hi[0],
                 lo[1], hi[1], lo[2], hi[2], s->params.domain_min[0], s->params.domain_max[0],
                 s->params.domain_min[1], s->params.domain_max[1], s->params.domain_min[2], s->params.domain_max[2]);
        return -1;
    }
    return 0;
}

/* A mesh target's size and volume, placed (lo, hi) with its own units'
 * signed volume v6 (six times): refused when it spans ten times the
 * domain, a unit's mistake (a 100-unit cube meant as 10 cm passed and met
 * the voxel limit, told to take a larger control.spacing; a review), when
 * it encloses no volume (flat, or faces that cancel: it was told its
 * normals point inward; a review), or when its normals point inward. */
static int check_mesh_shape(const fcl_scene *s, int g, const fcl_obstacle *o, const float lo[3], const float hi[3],
                            double v6, char *err, size_t errlen)
{
    double span = 0.0, dom = 0.0;
    for (int k = 0; k < 3; k++) {
        span = fmax(span, (double)hi[k] - lo[k]);
        dom = fmax(dom, (double)s->params.domain_max[k] - s->params.domain_min[k]);
    }
    if (span > 10.0 * dom) {
        snprintf(err, errlen, "%s: targets[%d].shape.scale: %s placed at scale %g spans %g m, %.3g times the domain's "
                 "%g m: expected its units in metres (check the mesh's units and the scale)", s->file, g, o->file,
                 o->scale, span, span / dom, dom);
        return -1;
    }
    double ext = span / o->scale;
    if (!(fabs(v6) > 6e-6 * ext * ext * ext)) {
        snprintf(err, errlen, "%s: targets[%d].shape.file: %s encloses no volume (%g in its own units, its extent %g): "
                 "it is flat or its faces cancel (expected a closed surface)", s->file, g, o->file, v6 / 6.0, ext);
        return -1;
    }
    if (!(v6 > 0.0)) {
        snprintf(err, errlen, "%s: targets[%d].shape.file: %s encloses a volume of %g (in its own units): its normals point "
                 "inward (expected a closed mesh wound counter-clockwise seen from outside)", s->file, g, o->file,
                 v6 / 6.0);
        return -1;
    }
    return 0;
}

int targets_check(const fcl_scene *s, char *err, size_t errlen)
{
    for (int g = 0; g < s->ntargets; g++) {
        const fcl_obstacle *o = &s->targets[g].shape;
        char why[768];
        fcl_mesh m = { 0 };
        float rlo[3], rhi[3];
        rest_bounds(o, rlo, rhi);
        if (o->kind != FCL_SHAPE_MESH) {
            if (check_keys_in_domain(s, g, rlo, rhi, err, errlen) != 0)
                return -1;
            continue;
        }
        if (obj_load(o->file, infile_limit(&s->params), &m, why, sizeof why) != 0) {
            snprintf(err, errlen, "%s: targets[%d].shape.file: %s", s->file, g, why);
            return -1;
        }
        double v6 = signed_volume6(&m);
        float lo[3], hi[3];
        obj_place(&m, o->scale, o->translate);   /* placed as pbf_targets_sample places it */
        obj_bounds(&m, lo, hi);
        obj_free(&m);
        char key[48];
        snprintf(key, sizeof key, "targets[%d].shape", g);
        if (scene_check_mesh_bounds(s, &s->params, key, o->file, o->scale, lo, hi, err, errlen) != 0 ||
            check_mesh_shape(s, g, o, lo, hi, v6, err, errlen) != 0 || check_keys_in_domain(s, g, lo, hi, err, errlen) != 0)
            return -1;
    }
    return 0;
}
