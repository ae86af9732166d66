/* emit.c - inflow and outflow at run time (seed 002 3.3; the scene's
 * "emitters" and "outflows", host/scene/emitters.c). Outflow boxes take
 * out the particles inside them at the end of a step, compacting every
 * attribute through the host (ids and order kept). After each step every emitter open
 * during it adds the layers that crossed its plane, through the capacity
 * (sim_add_particles: ids continue; the derived fields carried). A layer leaves each time
 * the accumulated travel reaches a spacing (or, with a rate, the
 * accumulated time reaches the layer's period) and starts as far past the
 * plane as it has travelled since; its particles carry the emitter's
 * phase in pos.w and its velocity. A point within half a spacing of a
 * wall or in a solid (a layer ahead of the plane may reach one) is not
 * added (counted refused), nor is a point of a layer (not of a rate)
 * with a particle within the solver's emit_room (a quarter spacing, mps
 * 0.4): the inflow has backed up; and the
 * layers of several emitters in one step are merged as overlapping fluid
 * blocks are (host/scene/overlap.c), so that two emitters in one place do
 * not stack.
 * Invariant: s->emit_acc[i] is emitter i's travel (m) since its last
 * layer (with a rate: speed times the time); it is saved in checkpoints
 * with the step and time, so a resumed run emits as the uninterrupted one
 * does; after sim_outflow no particle lies inside an outflow box.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "overlap.h"
#include "passes.h"
#include "scene.h"
#include "sim.h"

_Static_assert(FCL_EMITTERS_MAX <= sizeof ((fcl_sim *)0)->emit_acc / sizeof(double), "emit_acc too small");

/* The fastest emitter a solver's Courant step floor takes (sim_courant_speed
 * at the floor), or INFINITY; *how says so, with the values. */
static double floor_speed(const fcl_sim *s, char *how, size_t len)
{
    double cfl, dt_min, dt_max;
    if (!s->solver->step_floor)
        return INFINITY;
    s->solver->step_floor(s->prm, &cfl, &dt_min, &dt_max);
    double g = sim_gravity_norm(s);
    snprintf(how, len, "%s.cfl %g x particles.spacing %g m / %s.dt_min %g s, less gravity's %.3g m/s a step",
             s->solver->name, cfl, s->spacing, s->solver->name, dt_min, g * dt_max);
    return cfl * s->spacing / dt_min - g * dt_max;
}

int sim_set_emitters(fcl_sim *s, const fcl_emitter *e, int n, char *err, size_t errlen)
{
    uint phases = s->nphases > 0 ? s->nphases : 1u;
    double gap = s->solver->rate_gap;
    char how[200];
    double fastest = floor_speed(s, how, sizeof how);
    for (int i = 0; i < n; i++) {
        /* The Courant step for it would fall under the floor at step 1,
         * a "blow-up" naming a largest speed of 0 m/s (a review). */
        if (e[i].speed > fastest) {
            snprintf(err, errlen, "emitters[%d].speed: %g m/s is faster than %s's least step takes (%s: %.4g m/s): "
                     "expected a slower emitter, a larger %s.cfl or a lower %s.dt_min", i, e[i].speed,
                     s->solver->name, how, fastest, s->solver->name, s->solver->name);
            return FCL_EXIT_INPUT;
        }
        if ((uint)e[i].phase_index >= phases) {
            snprintf(err, errlen, "emitters[%d].phase: phase %d, but the simulation has %u", i, e[i].phase_index,
                     phases);
            return FCL_EXIT_INPUT;
        }
        double layer = (double)emitter_layer(&e[i], s->spacing, NULL, 0);
        double most = e[i].speed * layer / (gap * s->spacing);
        if (gap > 0.0 && e[i].rate > most) {
            snprintf(err, errlen, "emitters[%d].rate: %g particles/s packs its layers of %.0f particles %.3g "
                     "spacings apart at %g m/s; %s takes them at least %g spacings apart (%s): expected at most "
                     "%.6g, or a larger speed or size", i, e[i].rate, layer, e[i].speed * layer / e[i].rate / s->spacing,
                     e[i].speed, s->solver->name, gap,
                     s->solver->rate_why ? s->solver->rate_why : "closer they are compressed fluid", most);
            return FCL_EXIT_INPUT;
        }
    }
    s->emitters = e;
    s->nemitters = n;
    memset(s->emit_acc, 0, sizeof s->emit_acc);
    return 0;
}

double sim_inflow_speed(const fcl_sim *s, double t0, double t1)
{
    double v = 0.0;
    for (int i = 0; i < s->nemitters; i++)
        if (s->emitters[i].start <= t1 && s->emitters[i].end > t0)
            v = fmax(v, fabs(s->emitters[i].speed));
    return v;
}

/* Layers due within this share of a layer are due now (layers_due).
 * Inputs are floats: particles.spacing 0.008 is 0.008000000380 m, so
 * each layer asks 4.7e-8 of a layer more travel than the emitter gives,
 * which added up past a slack of 1e-6 after 21 layers, and the layer due
 * at the emitter's end was lost (600 of 625 points at 8 mm, nozzle_box
 * 11,904 of 12,000; a review). A thousandth covers 20,000 layers; a
 * layer released a thousandth of a spacing early is 8 um off at 8 mm. */
#define EMIT_SLACK 1e-3

/* The distance between consecutive layers: a spacing, or with a rate
 * the distance a layer of m particles travels in m / rate seconds. */
static double layer_step(const fcl_sim *s, const fcl_emitter *e, size_t m)
{
    return e->rate > 0.0 ? e->speed * (double)m / e->rate : s->spacing;
}

int sim_emit_acc_valid(const fcl_sim *s)
{
    for (int i = 0; i < FCL_EMITTERS_MAX; i++) {
        double a = s->emit_acc[i];
        if (i >= s->nemitters) {
            if (a != 0.0)
                return 0;
            continue;
        }
        /* [0, step), up to the rounding of acc - k step. */
        const fcl_emitter *e = &s->emitters[i];
        double step = layer_step(s, e, emitter_layer(e, s->spacing, NULL, 0));
        if (!(isfinite(a) && a >= -1e-9 * step && a < step * (1.0 + 1e-9)))
            return 0;
    }
    return 1;
}

/* Layers emitter i owes for the step (t0, t1]: their count, and the
 * distance the first of them has moved past the plane in *ahead. */
static long layers_due(fcl_sim *s, int i, double t0, double t1, double *ahead)
{
    const fcl_emitter *e = &s->emitters[i];
    double open = fmin(t1, e->end) - fmax(t0, e->start);
    if (open <= 0.0)
        return 0;
    /* The accumulator in metres: with a rate, the layer period times the speed. */
    double step = layer_step(s, e, emitter_layer(e, s->spacing, NULL, 0));
    s->emit_acc[i] += e->speed * open;
    /* Steps are floats: sim.dt 0.01 is 0.0099999998 s, and a rate whose
     * layer period was exactly the step came a step late and stayed a
     * layer behind (3564 of 3600 points in 1 s; a review). A layer due
     * within a millionth of one is due now, and the accumulator starts
     * again from 0, not from the float's shortfall, which would add up. */
    long k = (long)floor(s->emit_acc[i] / step + EMIT_SLACK);
    *ahead = s->emit_acc[i] - step;
    s->emit_acc[i] = fmax(s->emit_acc[i] - (double)k * step, 0.0);
    return k;
}

/* Layer positions of emitter i, k layers, the first `ahead` past the
 * plane and each next one a layer step behind it, into pos and vel. */
static size_t fill(fcl_sim *s, int i, long k, double ahead, float4 *pos, float4 *vel)
{
    const fcl_emitter *e = &s->emitters[i];
    size_t m = emitter_layer(e, s->spacing, NULL, 0), n = 0;
    double step = layer_step(s, e, m);
    for (long l = 0; l < k; l++) {
        double d = ahead - (double)l * step;
        emitter_layer(e, s->spacing, pos + n, m);
        for (size_t j = 0; j < m; j++, n++) {
            pos[n] = fcl_f4(pos[n].x + (float)(d * e->dir[0]), pos[n].y + (float)(d * e->dir[1]),
                            pos[n].z + (float)(d * e->dir[2]), (float)e->phase_index);
            vel[n] = fcl_f4(e->speed * e->dir[0], e->speed * e->dir[1], e->speed * e->dir[2], 0.0f);
        }
    }
    return n;
}

/* Particles that push on each other: a solver with neighbor lists (a
 * grid solver's markers only mark where the liquid is). */
static int interacting(const fcl_sim *s)
{
    return s->solver->list_radius != NULL;
}

/* How near (spacings) a particle may be to a new point. A quarter by
 * default: half refused 26 and 42 of a free rectangle jet's 480 points on
 * wcsph and pbf (8 and 3 at a quarter), whose last layer lags. mps takes
 * 0.4: its number density feels a pair at a third of a spacing, and a 1
 * m/s jet facing a wall 1.5 spacings away reached 23.5 m/s at a quarter
 * (3.3 at 0.4; test_emitters). */
static double emit_room(const fcl_sim *s)
{
    return s->solver->emit_room > 0.0 ? s->solver->emit_room : 0.25;
}

/* The refusals of one sim_emit, by cause. */
typedef struct refusals {
    size_t walled;       /* within half a spacing of a wall, or in a solid */
    size_t blocked;      /* a particle within emit_room: backed up */
    size_t overlapped;   /* on an earlier emitter's point */
    size_t over;         /* past the capacity, never made */
} refusals;

/* Drops the points where no particle may be (the pass
 * boundary_emit_clear: within half a spacing of a wall, or in a solid; a
 * layer leaves up to speed x dt past its plane) and, with `crowd`, those
 * with a particle within emit_room (grid_emit_room on the last grid): an
 * inflow whose fluid backs up to the plane, as a filling corridor's does,
 * would otherwise place particles on top of others (0.5 mm apart at 12.5
 * mm spacing, 448 kPa, a blow-up). Returns the points kept, in order; -1
 * when the device failed. */
static long keep_clear(fcl_sim *s, float4 *pos, float4 *vel, size_t n, int crowd, refusals *r)
{
    fcl_backend *be = s->be;
    fcl_buf *q = be->ops->buf_new(be, n * sizeof *pos, "emitter points");
    fcl_buf *busy = be->ops->buf_new(be, n * sizeof(float), "emitter points taken");
    float *b = malloc(n * sizeof *b), room = (float)(emit_room(s) * s->spacing);
    crowd = crowd && s->n > 0 && interacting(s);
    int ok = q && busy && b && be->ops->buf_write(be, q, 0, n * sizeof *pos, pos) == 0 &&
             pass_boundary_emit_clear(be, n, "emit", q, s->solids, busy, s->c, 0.5f * (float)s->spacing) == 0 &&
             (!crowd || pass_grid_emit_room(be, n, "emit", q, s->grid.attr[s->a_pos].cur, s->grid.start, busy,
                                            s->grid.info, room * room) == 0) &&
             be->ops->buf_read(be, busy, 0, n * sizeof *b, b) == 0;
    size_t kept = 0;
    for (size_t i = 0; ok && i < n; i++) {
        r->walled += b[i] == 2.0f;
        r->blocked += b[i] == 1.0f;
        if (b[i] == 0.0f) {
            pos[kept] = pos[i];
            vel[kept++] = vel[i];
        }
    }
    if (q)
        be->ops->buf_free(be, q);
    if (busy)
        be->ops->buf_free(be, busy);
    free(b);
    return ok ? (long)kept : -1;
}

/* Each emitter's layers due over [t0, t1], only those that could still
 * fit (an extreme rate against a full capacity must not allocate them
 * every step): the points to make; *over, the others, count as refused. */
static size_t plan_layers(fcl_sim *s, double t0, double t1, long *layers, double *ahead, size_t *over)
{
    size_t total = 0, room = s->cap - s->n;
    for (int i = 0; i < s->nemitters; i++) {
        layers[i] = layers_due(s, i, t0, t1, &ahead[i]);
        size_t m = emitter_layer(&s->emitters[i], s->spacing, NULL, 0);
        long fit = m ? (long)((room > total ? room - total : 0) / m) + 1 : 0;
        if (layers[i] > fit) {
            *over += (size_t)(layers[i] - fit) * m;
            layers[i] = fit;
        }
        total += (size_t)layers[i] * m;
    }
    return total;
}

/* Each emitter's layers into pos and vel, clear of walls and solids,
 * checked for room too unless a rate may pack its layers closer than the
 * room on purpose (a quarter spacing; under mps and mac, whose rate_gap
 * keeps them 0.9 spacings apart, never: an mps rate emitter whose fluid
 * backed up to it put particles 0.12 spacings apart and blew up at step
 * 161, a review): ends[i] the points kept up to emitter i; the others
 * counted in *r. */
static int release_points(fcl_sim *s, const long *layers, const double *ahead, float4 *pos, float4 *vel,
                          size_t *ends, refusals *r)
{
    size_t n = 0;
    for (int i = 0; i < s->nemitters; i++) {
        size_t m = fill(s, i, layers[i], ahead[i], pos + n, vel + n);
        int crowd = s->emitters[i].rate <= 0.0 || s->solver->rate_gap > emit_room(s);
        long kept = m ? keep_clear(s, pos + n, vel + n, m, crowd, r) : 0;
        if (kept < 0) {
            snprintf(s->error, sizeof s->error, "emitters[%d]: testing %zu new particles for room on %s failed", i,
                     m, s->be->name);
            return FCL_EXIT_DEVICE;
        }
        n += (size_t)kept;
        ends[i] = n;
    }
    return 0;
}

/* Emitters that overlap release points on each other's (two equal
 * emitters stacked 9 pairs within a quarter spacing and mps stopped): a
 * later emitter's points within 0.9 spacings of an earlier's are dropped,
 * as overlapping fluid blocks are (overlap.c), counted in r->overlapped. */
static int drop_overlaps(fcl_sim *s, float4 *pos, float4 *vel, size_t *ends, refusals *r)
{
    size_t dropped[FCL_EMITTERS_MAX], n = ends[s->nemitters - 1];
    if (s->nemitters < 2 || n == 0)
        return 0;
    if (overlap_merge(pos, vel, ends, s->nemitters, (float)s->spacing, dropped) != 0) {
        snprintf(s->error, sizeof s->error, "emitters: no host memory to test %zu new particles for overlap", n);
        return FCL_EXIT_DEVICE;
    }
    for (int i = 0; i < s->nemitters; i++)
        r->overlapped += dropped[i];
    return 0;
}

/* Each kind of refusal said once a run: points against a wall or solid,
 * overlapping emitters, a backed-up inflow, a full capacity (made points
 * of which `added` were added). */
static void warn_refused(fcl_sim *s, const refusals *r, size_t made, size_t added)
{
    if (r->walled && !s->emit_walled_warned) {
        fprintf(stderr, "fluidcl: step %ld: %zu of the emitters' new particles lay within half a spacing of a wall or "
                "in an obstacle (a layer leaves up to speed x dt past its plane) and were not added; they count as "
                "refused (said once; a smaller step or an emitter farther from the solid)\n", s->step, r->walled);
        s->emit_walled_warned = 1;
    }
    if (r->overlapped && !s->emit_overlap_warned) {
        fprintf(stderr, "fluidcl: step %ld: %zu of the emitters' new particles lay within 0.9 spacings of another "
                "emitter's and were not added: the emitters overlap; they count as refused (said once)\n", s->step,
                r->overlapped);
        s->emit_overlap_warned = 1;
    }
    if (r->blocked && !s->emit_blocked_warned) {
        fprintf(stderr, "fluidcl: step %ld: %zu of the emitters' %zu new particles had a particle within %g "
                "spacings (the inflow is backed up) and were not added; they count as refused (said once)\n",
                s->step, r->blocked, made + r->walled + r->blocked + r->overlapped, emit_room(s));
        s->emit_blocked_warned = 1;
    }
    if (made + r->over > added && !s->emit_warned) {
        fprintf(stderr, "fluidcl: step %ld: the emitters' %zu particles exceed particles.capacity = %zu (%zu in use); "
                "%zu were not added (said once; raise particles.capacity)\n", s->step, made + r->over, s->cap,
                s->n - added, made + r->over - added);
        s->emit_warned = 1;
    }
}

/* The step's refusals into the stats and the run's total. */
static void count_refused(fcl_sim *s, size_t refused)
{
    s->stats.refused = (long)refused;
    s->refused += (long)refused;
}

int sim_emit(fcl_sim *s, double t0, double t1)
{
    s->stats.emitted = s->stats.refused = 0;
    if (s->nemitters == 0)
        return 0;
    long layers[FCL_EMITTERS_MAX];
    double ahead[FCL_EMITTERS_MAX];
    refusals r = { 0 };
    size_t total = plan_layers(s, t0, t1, layers, ahead, &r.over);
    if (total == 0) {
        count_refused(s, r.over);
        return 0;
    }
    float4 *pos = malloc(total * sizeof *pos), *vel = malloc(total * sizeof *vel);
    size_t ends[FCL_EMITTERS_MAX];
    int rc = pos && vel ? 0 : FCL_EXIT_DEVICE;
    if (rc != 0)
        snprintf(s->error, sizeof s->error, "emitters: no host memory for %zu new particles", total);
    if (rc == 0)
        rc = release_points(s, layers, ahead, pos, vel, ends, &r);
    if (rc == 0)
        rc = drop_overlaps(s, pos, vel, ends, &r);
    size_t n = rc == 0 ? ends[s->nemitters - 1] : 0, room = s->cap - s->n, k = n < room ? n : room;
    char err[sizeof s->error] = "";
    if (rc == 0 && (rc = sim_add_particles(s, pos, vel, k, err, sizeof err)) != 0)
        snprintf(s->error, sizeof s->error, "emitters: %s", err);
    free(pos);
    free(vel);
    if (rc != 0)
        return rc;
    s->stats.emitted = (long)k;
    s->emitted += (long)k;
    count_refused(s, n - k + r.walled + r.blocked + r.overlapped + r.over);
    warn_refused(s, &r, n, k);
    return 0;
}

int sim_set_outflows(fcl_sim *s, const fcl_outflow *o, int n)
{
    s->outflows = o;
    s->noutflows = n;
    return 0;
}

static int inside_any(const fcl_sim *s, float4 p)
{
    for (int k = 0; k < s->noutflows; k++) {
        const fcl_outflow *o = &s->outflows[k];
        if (p.x >= o->min[0] && p.x <= o->max[0] && p.y >= o->min[1] && p.y <= o->max[1] && p.z >= o->min[2] &&
            p.z <= o->max[2])
            return 1;
    }
    return 0;
}

/* Keep the particles whose flag is 0, in order, in every attribute. */
static int compact(fcl_sim *s, const unsigned char *gone, size_t keep)
{
    fcl_backend *be = s->be;
    int rc = 0;
    for (int a = 0; a < s->grid.nattr && rc == 0; a++) {
        size_t elem = s->grid.attr[a].elem;
        unsigned char *buf = malloc(s->n * elem + 1);
        if (!buf || be->ops->buf_read(be, s->grid.attr[a].cur, 0, s->n * elem, buf) != 0) {
            free(buf);
            return -1;
        }
        size_t j = 0;
        for (size_t i = 0; i < s->n; i++)
            if (!gone[i])
                memmove(buf + j++ * elem, buf + i * elem, elem);
        rc = keep ? be->ops->buf_write(be, s->grid.attr[a].cur, 0, keep * elem, buf) : 0;
        free(buf);
    }
    return rc;
}

int sim_outflow(fcl_sim *s)
{
    s->stats.removed = 0;
    if (s->noutflows == 0 || s->n == 0)
        return 0;
    float4 *pos = malloc(s->n * sizeof *pos);
    unsigned char *gone = calloc(s->n, 1);
    if (!pos || !gone || s->be->ops->buf_read(s->be, s->grid.attr[s->a_pos].cur, 0, s->n * 16, pos) != 0) {
        free(pos);
        free(gone);
        snprintf(s->error, sizeof s->error, "outflows: reading %zu positions from %s failed", s->n, s->be->name);
        return FCL_EXIT_DEVICE;
    }
    size_t out = 0, before = s->n;
    for (size_t i = 0; i < s->n; i++)
        out += gone[i] = (unsigned char)inside_any(s, pos[i]);
    free(pos);
    int rc = 0;
    if (out > 0) {
        size_t keep = s->n - out;
        float *derived = sim_derived_take(s, gone);
        rc = !derived || compact(s, gone, keep) != 0 ? FCL_EXIT_DEVICE : 0;
        if (rc == 0) {
            s->n = keep;
            grid_set_count(&s->grid, s->n);
            sim_update_consts(s);
            /* The solver's derived fields (and lists) for the new set. */
            rc = s->n > 0 && (sim_derived_put(s, derived) != 0 || s->solver->prepare(s) != 0) ? FCL_EXIT_DEVICE : 0;
            derived = s->n > 0 ? NULL : derived;
        }
        free(derived);
        if (rc != 0 && !s->error[0])
            snprintf(s->error, sizeof s->error, "outflows: removing %zu of %zu particles on %s failed", out,
                     before, s->be->name);
        s->stats.removed = (long)out;
        s->removed += (long)out;
    }
    free(gone);
    return rc;
}
