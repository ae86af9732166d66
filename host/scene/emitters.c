/* emitters.c - a scene's "emitters" (seed 002 3.3: inflow): a rectangle or
 * disk that adds layers of particles on the fluid lattice, moving at a
 * speed along its direction, between a start and an end time.
 *   "emitters": [ { "shape": "rect", "center": [0.05, 0.3, 0.2],
 *                   "direction": [1, 0, 0], "size": [0.08, 0.08],
 *                   "speed": 1.5, "start": 0, "end": 0.5, "phase": "water" },
 *                 { "shape": "disk", "center": [...], "direction": [0, -1, 0],
 *                   "radius": 0.03, "speed": 1, "rate": 20000 } ]
 * Without "rate" a layer leaves each time the last one has moved a
 * spacing (the rate that keeps the inflow a resting lattice); with it,
 * layers leave at rate / (particles per layer) per second.
 * "outflows" is a list of boxes {"min", "max"}: particles inside one at
 * the end of a step leave the run (host/core/emit.c).
 * Invariant: after emitters_check returns 0, every emitter's disk or
 * rectangle lies inside the domain at least a spacing from every wall,
 * its direction is a unit vector, and its layer has at least one particle.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "polygon.h"
#include "scene_read.h"

static int fail(char *err, size_t errlen, const char *file, const char *where, const char *msg)
{
    snprintf(err, errlen, "%s: %s: %s", file, where, msg);
    return -1;
}

static int read_num(const cJSON *o, const char *key, double lo, double hi, int required, double *out,
                    const char *where, const char *file, char *err, size_t errlen)
{
    return scene_read_number(o, key, lo, hi, required, out, where, file, err, errlen);
}

/* The shape's own keys. */
static int read_shape(fcl_emitter *e, const cJSON *o, const char *where, const char *file, char *err, size_t errlen)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "shape");
    char k[64], msg[160];
    snprintf(k, sizeof k, "%s.shape", where);
    double r = 0.0;
    /* The other shape's key would be ignored: refused. */
    int rect = cJSON_IsString(t) && strcmp(t->valuestring, "rect") == 0;
    int disk = cJSON_IsString(t) && strcmp(t->valuestring, "disk") == 0;
    if ((rect && cJSON_GetObjectItemCaseSensitive(o, "radius")) || (disk && cJSON_GetObjectItemCaseSensitive(o, "size"))) {
        snprintf(k, sizeof k, "%s.%s", where, rect ? "radius" : "size");
        snprintf(msg, sizeof msg, "a %s emitter has no %s (its own: %s)", rect ? "rect" : "disk",
                 rect ? "radius" : "size", rect ? "size [width, height]" : "radius");
        return fail(err, errlen, file, k, msg);
    }
    if (rect) {
        e->disk = 0;
        const cJSON *sz = cJSON_GetObjectItemCaseSensitive(o, "size");
        if (!cJSON_IsArray(sz) || cJSON_GetArraySize(sz) != 2 || !cJSON_IsNumber(sz->child) ||
            !cJSON_IsNumber(sz->child->next) || !(sz->child->valuedouble > 0) || !(sz->child->next->valuedouble > 0) ||
            !isfinite(sz->child->valuedouble) || !isfinite(sz->child->next->valuedouble)) {
            char got[96];
            snprintf(k, sizeof k, "%s.size", where);
            snprintf(msg, sizeof msg, "expected [width, height], two positive numbers in metres, got %s",
                     scene_json_show(sz, got, sizeof got));
            return fail(err, errlen, file, k, msg);
        }
        e->size[0] = (float)sz->child->valuedouble;
        e->size[1] = (float)sz->child->next->valuedouble;
        return 0;
    }
    if (disk) {
        e->disk = 1;
        if (read_num(o, "radius", 1e-9, 1e6, 1, &r, where, file, err, errlen) != 0)
            return -1;
        e->size[0] = e->size[1] = (float)r;
        return 0;
    }
    snprintf(msg, sizeof msg, "expected \"rect\" or \"disk\", got %s%.40s%s", cJSON_IsString(t) ? "'" : "",
             cJSON_IsString(t) ? t->valuestring : t ? scene_json_type(t) : "nothing", cJSON_IsString(t) ? "'" : "");
    return fail(err, errlen, file, k, msg);
}

static int read_emitter(fcl_scene *s, fcl_emitter *e, const cJSON *o, int idx, const char *file, char *err,
                        size_t errlen)
{
    static const char *const keys[] = { "shape", "center", "direction", "size", "radius", "speed", "start",
                                        "end", "rate", "phase", NULL };
    char where[32];
    snprintf(where, sizeof where, "emitters[%d]", idx);
    memset(e, 0, sizeof *e);
    double speed = 0.0, start = 0.0, end = 1e30, rate = 0.0;
    if (!cJSON_IsObject(o))
        return fail(err, errlen, file, where, "expected an object with shape, center, direction and speed");
    if (scene_check_keys(o, keys, where, file, err, errlen) != 0 || read_shape(e, o, where, file, err, errlen) != 0 ||
        scene_read_vec3(o, "center", e->center, 1, where, file, err, errlen) != 0 ||
        scene_read_vec3(o, "direction", e->dir, 1, where, file, err, errlen) != 0 ||
        read_num(o, "speed", 1e-6, 1e4, 1, &speed, where, file, err, errlen) != 0 ||
        read_num(o, "start", 0.0, 1e9, 0, &start, where, file, err, errlen) != 0 ||
        read_num(o, "end", 0.0, 1e30, 0, &end, where, file, err, errlen) != 0 ||
        read_num(o, "rate", 1e-6, 1e12, 0, &rate, where, file, err, errlen) != 0)
        return -1;
    double len = sqrt((double)e->dir[0] * e->dir[0] + (double)e->dir[1] * e->dir[1] + (double)e->dir[2] * e->dir[2]);
    char k[64], msg[200], got[96];
    if (!(len > 1e-9)) {
        snprintf(k, sizeof k, "%s.direction", where);
        snprintf(msg, sizeof msg, "expected a vector longer than 1e-9, got %s",
                 scene_json_show(cJSON_GetObjectItemCaseSensitive(o, "direction"), got, sizeof got));
        return fail(err, errlen, file, k, msg);
    }
    for (int a = 0; a < 3; a++)
        e->dir[a] = (float)(e->dir[a] / len);
    if (!(end > start)) {
        snprintf(k, sizeof k, "%s.end", where);
        snprintf(msg, sizeof msg, "expected a time after start (%g s), got %g", start, end);
        return fail(err, errlen, file, k, msg);
    }
    e->speed = (float)speed;
    e->start = start;
    e->end = end;
    e->rate = rate;
    const cJSON *ph = cJSON_GetObjectItemCaseSensitive(o, "phase");
    if (ph && (!cJSON_IsString(ph) || !ph->valuestring[0] || strlen(ph->valuestring) >= sizeof e->phase)) {
        snprintf(k, sizeof k, "%s.phase", where);
        snprintf(msg, sizeof msg, "expected the name of one of \"phases\", got %s", scene_json_show(ph, got, sizeof got));
        return fail(err, errlen, file, k, msg);
    }
    if (ph)
        snprintf(e->phase, sizeof e->phase, "%s", ph->valuestring);
    (void)s;
    return 0;
}

int emitters_read(fcl_scene *s, const cJSON *arr, const char *file, char *err, size_t errlen)
{
    char msg[160];
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) > FCL_EMITTERS_MAX) {
        char got[96];
        snprintf(msg, sizeof msg, "expected a list of at most %d emitters, got %s", FCL_EMITTERS_MAX,
                 scene_json_show(arr, got, sizeof got));
        if (cJSON_IsArray(arr))
            snprintf(msg, sizeof msg, "expected a list of at most %d emitters, got %d", FCL_EMITTERS_MAX,
                     cJSON_GetArraySize(arr));
        return fail(err, errlen, file, "emitters", msg);
    }
    int i = 0;
    for (const cJSON *o = arr->child; o; o = o->next, i++)
        if (read_emitter(s, &s->emitters[i], o, i, file, err, errlen) != 0)
            return -1;
    s->nemitters = i;
    return 0;
}

/* Unit vectors u, v across the direction d (u from the axis least
 * aligned with d), so that u, v, d is right-handed. */
static void basis(const float d[3], double u[3], double v[3])
{
    double a[3] = { 0, 0, 0 };
    int m = fabs(d[0]) <= fabs(d[1]) && fabs(d[0]) <= fabs(d[2]) ? 0 : fabs(d[1]) <= fabs(d[2]) ? 1 : 2;
    a[m] = 1.0;
    u[0] = d[1] * a[2] - d[2] * a[1];
    u[1] = d[2] * a[0] - d[0] * a[2];
    u[2] = d[0] * a[1] - d[1] * a[0];
    double n = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    for (int k = 0; k < 3; k++)
        u[k] /= n;
    v[0] = d[1] * u[2] - d[2] * u[1];
    v[1] = d[2] * u[0] - d[0] * u[2];
    v[2] = d[0] * u[1] - d[1] * u[0];
}

void emitter_frame(const fcl_emitter *e, double u[3], double v[3], double half[2])
{
    basis(e->dir, u, v);
    half[0] = e->disk ? e->size[0] : 0.5 * e->size[0];
    half[1] = e->disk ? e->size[0] : 0.5 * e->size[1];
}

size_t emitter_layer(const fcl_emitter *e, double spacing, float4 *out, size_t cap)
{
    double u[3], v[3], half[2];
    emitter_frame(e, u, v, half);
    double hw = half[0], hh = half[1];
    /* The points per side as a block's (scene.c: + 1e-4, so a width of k
     * spacings gives k points whatever the rounding of size / spacing). */
    long nu = (long)floor(2.0 * hw / spacing + 1e-4), nv = (long)floor(2.0 * hh / spacing + 1e-4);
    size_t n = 0;
    if (!out && !e->disk)
        return (size_t)nu * (size_t)nv;   /* counted without the walk */
    for (long j = 0; j < nv; j++)
        for (long i = 0; i < nu; i++) {
            /* Lattice points half a spacing inside the edges, as blocks. */
            double a = -hw + (i + 0.5) * spacing + 0.5 * (2.0 * hw - nu * spacing);
            double b = -hh + (j + 0.5) * spacing + 0.5 * (2.0 * hh - nv * spacing);
            if (e->disk && a * a + b * b > e->size[0] * e->size[0])
                continue;
            if (out && n < cap)
                out[n] = fcl_f4((float)(e->center[0] + a * u[0] + b * v[0]), (float)(e->center[1] + a * u[1] + b * v[1]),
                                (float)(e->center[2] + a * u[2] + b * v[2]), 0.0f);
            n++;
        }
    return n;
}

/* The emitter's extent: its outline's bounding box. */
static void bounds(const fcl_emitter *e, double lo[3], double hi[3])
{
    double u[3], v[3], half[2];
    emitter_frame(e, u, v, half);
    double hw = half[0], hh = half[1];
    for (int k = 0; k < 3; k++) {
        double r = hw * fabs(u[k]) + hh * fabs(v[k]);
        lo[k] = e->center[k] - r;
        hi[k] = e->center[k] + r;
    }
}

size_t emitter_probe_points(const fcl_emitter *e, double spacing, float4 *out, size_t cap)
{
    size_t n = emitter_layer(e, spacing, out, cap);
    if (n <= cap)
        return n;
    out[0] = fcl_f4((float)e->center[0], (float)e->center[1], (float)e->center[2], 0.0f);
    return 1;
}

/* Whether obstacle o, grown by half a spacing, holds point x: boxes,
 * spheres and polygons (f its frame; the slab of its thickness, or
 * boundary.layers spacings, behind it). Meshes are loaded after the
 * scene is checked: setup.c tests emitters against them then. */
static int in_obstacle(const fcl_obstacle *o, const fcl_polygon_frame *f, const fcl_params *p, const float x[3])
{
    double sp = p->particles_spacing;
    if (o->kind != FCL_SHAPE_POLYGON)
        return scene_in_shape(o, x, 0.5 * sp);
    double depth = o->thickness > 0.0f ? (double)o->thickness : (double)p->boundary_layers * sp;
    const float4 q = fcl_f4(x[0], x[1], x[2], 0.0f);
    return polygon_inside(f, 0.5 * sp, depth + 0.5 * sp, &q);
}

static const char *obstacle_kind(const fcl_obstacle *o)
{
    static const char *const name[] = { [FCL_SHAPE_BOX] = "box", [FCL_SHAPE_SPHERE] = "sphere",
                                         [FCL_SHAPE_MESH] = "mesh", [FCL_SHAPE_POLYGON] = "polygon" };
    return name[o->kind];
}

/* The first obstacle (grown by half a spacing: in_obstacle) holding a
 * point of emitter e's layer (emitter_probe_points), or -1; *at is that
 * point. The polygons' frames are made once, not per point. */
static int inside_obstacle(const fcl_scene *s, const fcl_params *p, const fcl_emitter *e, float at[3])
{
    enum { CAP = 1 << 16 };
    float4 *pt = malloc(CAP * sizeof *pt);
    fcl_polygon_frame *fr = calloc((size_t)s->nobstacles + 1, sizeof *fr);
    size_t n = pt && fr ? emitter_probe_points(e, p->particles_spacing, pt, CAP) : 0;
    for (int j = 0; fr && j < s->nobstacles; j++)
        if (s->obstacles[j].kind == FCL_SHAPE_POLYGON)
            polygon_frame(&s->obstacles[j], &fr[j]);
    int hit = -1;
    for (size_t q = 0; q < n && hit < 0; q++) {
        float x[3] = { pt[q].x, pt[q].y, pt[q].z };
        for (int j = 0; j < s->nobstacles && hit < 0; j++)
            if (in_obstacle(&s->obstacles[j], &fr[j], p, x)) {
                hit = j;
                memcpy(at, x, sizeof x);
            }
    }
    free(pt);
    free(fr);
    return hit;
}

int emitters_check(const fcl_scene *s, const fcl_params *p, char *err, size_t errlen)
{
    double sp = p->particles_spacing;
    for (int i = 0; i < s->nemitters; i++) {
        const fcl_emitter *e = &s->emitters[i];
        char where[48], msg[400];
        double lo[3], hi[3];
        bounds(e, lo, hi);
        for (int k = 0; k < 3; k++)
            if (lo[k] < p->domain_min[k] + sp - 1e-9 || hi[k] > p->domain_max[k] - sp + 1e-9) {
                snprintf(where, sizeof where, "emitters[%d]", i);
                snprintf(msg, sizeof msg, "spans [%g, %g, %g] - [%g, %g, %g]: expected it inside the domain "
                         "[%g, %g, %g] - [%g, %g, %g] and at least a spacing (%g m) from every wall", lo[0], lo[1],
                         lo[2], hi[0], hi[1], hi[2], p->domain_min[0], p->domain_min[1], p->domain_min[2],
                         p->domain_max[0], p->domain_max[1], p->domain_max[2], sp);
                return fail(err, errlen, s->file, where, msg);
            }
        /* Before any walk over the layer: its lattice's points. */
        double side = (e->disk ? 2.0 * e->size[0] : fmax(e->size[0], e->size[1])) / sp;
        if (side * side > 1e9) {
            snprintf(where, sizeof where, "emitters[%d].%s", i, e->disk ? "radius" : "size");
            snprintf(msg, sizeof msg, "a layer of about %.3g particles at particles.spacing %g m: at most 1e9",
                     side * side, sp);
            return fail(err, errlen, s->file, where, msg);
        }
        if (emitter_layer(e, sp, NULL, 0) == 0) {
            snprintf(where, sizeof where, "emitters[%d].%s", i, e->disk ? "radius" : "size");
            snprintf(msg, sizeof msg, "holds no particle at particles.spacing %g m (expected at least a spacing "
                     "across)", sp);
            return fail(err, errlen, s->file, where, msg);
        }
        /* A rate packs layers speed x layer / rate apart; under a quarter
         * spacing particles sit on each other (a rate of 1e8 put 50,000
         * particles a step nanometres apart and the run failed silently
         * at 11 GB). The emit step's own room test uses the same quarter. */
        double layer = (double)emitter_layer(e, sp, NULL, 0), most = 4.0 * e->speed * layer / sp;
        if (e->rate > most) {
            snprintf(where, sizeof where, "emitters[%d].rate", i);
            snprintf(msg, sizeof msg, "%g particles/s packs its layers of %.0f particles %.3g m apart at %g m/s, "
                     "closer than a quarter of particles.spacing (%g m): expected at most %.6g", e->rate, layer,
                     e->speed * layer / e->rate, e->speed, sp, most);
            return fail(err, errlen, s->file, where, msg);
        }
        float at[3];
        int j = inside_obstacle(s, p, e, at);
        if (j >= 0) {
            snprintf(where, sizeof where, "emitters[%d]", i);
            snprintf(msg, sizeof msg, "releases particles at [%g, %g, %g], inside obstacles[%d] (a %s) or within half "
                     "a spacing of it: expected the emitter clear of every obstacle", at[0], at[1], at[2], j,
                     obstacle_kind(&s->obstacles[j]));
            return fail(err, errlen, s->file, where, msg);
        }
    }
    return 0;
}

int emitters_resolve(fcl_scene *s, const char *file, char *err, size_t errlen)
{
    for (int i = 0; i < s->nemitters; i++) {
        fcl_emitter *e = &s->emitters[i];
        e->phase_index = e->phase[0] ? phases_find(s, e->phase) : 0;
        if (e->phase_index < 0) {
            char where[48], msg[512];
            snprintf(where, sizeof where, "emitters[%d].phase", i);
            phases_unknown(s, e->phase, msg, sizeof msg);
            return fail(err, errlen, file, where, msg);
        }
    }
    return 0;
}

/* The most particles the scene's emitters add by simulated time
 * `duration`, layers rounded up: what particles.capacity must hold. */
static double emitters_bound(const fcl_scene *s, double spacing, double duration)
{
    double total = 0.0;
    for (int i = 0; i < s->nemitters; i++) {
        const fcl_emitter *e = &s->emitters[i];
        double open = fmin(e->end, duration) - e->start, layer = (double)emitter_layer(e, spacing, NULL, 0);
        if (open <= 0.0)
            continue;
        double per_s = e->rate > 0.0 ? e->rate : layer * e->speed / spacing;
        total += ceil(open * per_s) + layer;
    }
    return total;
}

double scene_run_end(const fcl_scene *s, double longest_dt)
{
    const fcl_params *p = &s->params;
    /* sim.steps steps of the solver's longest (2 ms once for every
     * solver: dfsph's steps of up to 5 ms then found the capacity full at
     * 40 % of the run). */
    return p->sim_steps > 0 ? fmax((double)p->sim_steps * longest_dt, 0.0) : p->sim_duration;
}

double scene_run_horizon(const fcl_scene *s, double longest_dt)
{
    /* A duration's last step may end up to a step past it (a mac run of
     * 0.1001 s at 0.01 s steps ends at 0.11 s, and its 2-layer steps found
     * the capacity full in the last; a review). */
    return scene_run_end(s, longest_dt) + (s->params.sim_steps > 0 ? 0.0 : longest_dt);
}

double scene_first_inflow(const fcl_scene *s)
{
    double t = INFINITY;
    for (int i = 0; i < s->nemitters; i++)
        t = fmin(t, s->emitters[i].start);
    return t;
}

void scene_emitter_capacity(fcl_scene *s, double longest_dt)
{
    fcl_params *p = &s->params;
    if (s->nemitters == 0 || p->particles_capacity > 0)
        return;
    double horizon = scene_run_horizon(s, longest_dt);
    double cap = scene_count(s, p) + emitters_bound(s, p->particles_spacing, horizon);
    p->particles_capacity = cap < 2e9 ? (long)ceil(cap) : 2000000000L;
    s->capacity_from_emitters = 1;
}

int outflows_read(fcl_scene *s, const cJSON *arr, const char *file, char *err, size_t errlen)
{
    static const char *const keys[] = { "min", "max", NULL };
    char msg[160], where[32];
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) > FCL_OUTFLOWS_MAX) {
        char got[96];
        snprintf(msg, sizeof msg, "expected a list of at most %d boxes {\"min\", \"max\"}, got %s", FCL_OUTFLOWS_MAX,
                 scene_json_show(arr, got, sizeof got));
        if (cJSON_IsArray(arr))
            snprintf(msg, sizeof msg, "expected a list of at most %d boxes {\"min\", \"max\"}, got %d",
                     FCL_OUTFLOWS_MAX, cJSON_GetArraySize(arr));
        return fail(err, errlen, file, "outflows", msg);
    }
    int i = 0;
    for (const cJSON *o = arr->child; o; o = o->next, i++) {
        fcl_outflow *b = &s->outflows[i];
        snprintf(where, sizeof where, "outflows[%d]", i);
        if (!cJSON_IsObject(o)) {
            char got[96];
            snprintf(msg, sizeof msg, "expected a box {\"min\": [x, y, z], \"max\": [x, y, z]}, got %s",
                     scene_json_show(o, got, sizeof got));
            return fail(err, errlen, file, where, msg);
        }
        if (scene_check_keys(o, keys, where, file, err, errlen) != 0 ||
            scene_read_vec3(o, "min", b->min, 1, where, file, err, errlen) != 0 ||
            scene_read_vec3(o, "max", b->max, 1, where, file, err, errlen) != 0)
            return -1;
        for (int k = 0; k < 3; k++)
            if (!(b->max[k] > b->min[k])) {
                snprintf(msg, sizeof msg, "expected every component above min [%g, %g, %g], got [%g, %g, %g]",
                         b->min[0], b->min[1], b->min[2], b->max[0], b->max[1], b->max[2]);
                strcat(where, ".max");
                return fail(err, errlen, file, where, msg);
            }
    }
    s->noutflows = i;
    return 0;
}

/* Whether the box lo - hi lies within outflow b. */
static int within(const fcl_outflow *b, const float lo[3], const float hi[3])
{
    int in = 1;
    for (int k = 0; k < 3; k++)
        in &= lo[k] >= b->min[k] && hi[k] <= b->max[k];
    return in;
}

/* Legal, but most likely a mistake, said once each: an emitter releasing
 * inside an outflow and a fluid block inside one ran silently (their
 * particles left at once; a review). */
static void outflow_notes(const fcl_scene *s)
{
    for (int i = 0; i < s->noutflows; i++) {
        for (int k = 0; k < s->nemitters; k++)
            if (within(&s->outflows[i], s->emitters[k].center, s->emitters[k].center))
                fprintf(stderr, "fluidcl: note: %s: emitters[%d] releases inside outflows[%d]: its particles leave "
                        "at once\n", s->file, k, i);
        for (int k = 0; k < s->nblocks; k++) {
            const fcl_block *f = &s->blocks[k];
            float lo[3], hi[3];
            for (int a = 0; a < 3; a++) {
                lo[a] = f->kind == FCL_SHAPE_BOX ? f->min[a] : f->center[a] - f->radius;
                hi[a] = f->kind == FCL_SHAPE_BOX ? f->max[a] : f->center[a] + f->radius;
            }
            if (within(&s->outflows[i], lo, hi))
                fprintf(stderr, "fluidcl: note: %s: fluid[%d] lies inside outflows[%d]: it leaves in the first step\n",
                        s->file, k, i);
        }
    }
}

int outflows_check(const fcl_scene *s, const fcl_params *p, char *err, size_t errlen)
{
    outflow_notes(s);
    for (int i = 0; i < s->noutflows; i++) {
        const fcl_outflow *b = &s->outflows[i];
        int meets = 1;
        for (int k = 0; k < 3; k++)
            meets &= b->max[k] > p->domain_min[k] && b->min[k] < p->domain_max[k];
        if (!meets) {
            char where[32], msg[300];
            snprintf(where, sizeof where, "outflows[%d]", i);
            snprintf(msg, sizeof msg, "[%g, %g, %g] - [%g, %g, %g] lies outside the domain [%g, %g, %g] - [%g, %g, %g]",
                     b->min[0], b->min[1], b->min[2], b->max[0], b->max[1], b->max[2], p->domain_min[0],
                     p->domain_min[1], p->domain_min[2], p->domain_max[0], p->domain_max[1], p->domain_max[2]);
            return fail(err, errlen, s->file, where, msg);
        }
    }
    return 0;
}
