/* view_state.c - operations on the live state of the viewer's
 * simulation: dropping a ball of fluid (appended in place within the
 * simulation's capacity, keeping every solver state; when it does not
 * fit, a rebuild from the downloaded state plus the ball with twice the
 * room, keeping step and time) and timing the same step on the other
 * backend.
 * Invariant: a ball never starts closer than a spacing to fluid or
 * SETUP_GAP spacings to a boundary sample, so it starts uncompressed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rnd_camera.h"
#include "setup.h"
#include "view.h"

typedef struct host_state {
    float4 *pos, *vel;
    uint *id;
    size_t n, cap;
} host_state;

static void state_free(host_state *h)
{
    free(h->pos);
    free(h->vel);
    free(h->id);
}

/* The current state with room for `extra` more particles. */
static int state_download(fcl_view *v, host_state *h, size_t extra)
{
    memset(h, 0, sizeof *h);
    h->n = v->sim.n;
    h->cap = h->n + extra + 1;
    h->pos = malloc(h->cap * sizeof *h->pos);
    h->vel = malloc(h->cap * sizeof *h->vel);
    h->id = malloc(h->cap * sizeof *h->id);
    if (!h->pos || !h->vel || !h->id || sim_download(&v->sim, h->pos, h->vel, NULL, NULL, h->id) != 0) {
        state_free(h);
        return -1;
    }
    return 0;
}

/* Whether q is closer than d to any of the n points (only those in the
 * ball's box were passed). */
static int near_any(const float4 *pts, size_t n, const float q[3], float d)
{
    for (size_t i = 0; i < n; i++) {
        float dx = pts[i].x - q[0], dy = pts[i].y - q[1], dz = pts[i].z - q[2];
        if (dx * dx + dy * dy + dz * dz < d * d)
            return 1;
    }
    return 0;
}

/* Points of `all` within margin of the ball's bounding box, compacted. */
static size_t in_box(const float4 *all, size_t n, const float c[3], float r, float4 *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (fabsf(all[i].x - c[0]) <= r && fabsf(all[i].y - c[1]) <= r && fabsf(all[i].z - c[2]) <= r)
            out[k++] = all[i];
    return k;
}

/* Lattice points of the ball that fit: inside the domain, apart from the
 * fluid and the boundary. Appended to h; returns how many. */
static size_t fill_ball(fcl_view *v, host_state *h, const float c[3], float r, size_t room)
{
    const fcl_params *p = &v->live;
    float d = p->particles_spacing, margin = r + 2.0f * d;
    float4 *fl = malloc((h->n + 1) * sizeof *fl), *bd = malloc((v->nb + 1) * sizeof *bd);
    size_t nf = fl ? in_box(h->pos, h->n, c, margin, fl) : 0, nbd = bd ? in_box(v->bpos, v->nb, c, margin, bd) : 0;
    size_t added = 0;
    int m = (int)(r / d);
    for (int i = -m; fl && bd && i <= m; i++)
        for (int j = -m; j <= m; j++)
            for (int k = -m; k <= m && added < room; k++) {
                float q[3] = { c[0] + i * d, c[1] + j * d, c[2] + k * d };
                int inside = (float)(i * i + j * j + k * k) * d * d <= r * r;
                for (int a = 0; a < 3; a++)
                    inside &= q[a] >= p->domain_min[a] + 0.5f * d && q[a] <= p->domain_max[a] - 0.5f * d;
                if (!inside || near_any(fl, nf, q, d) || near_any(bd, nbd, q, SETUP_GAP * d))
                    continue;
                h->pos[h->n + added] = fcl_f4(q[0], q[1], q[2], 0.0f);
                h->vel[h->n + added] = fcl_f4(0.0f, 0.0f, 0.0f, 0.0f);
                added++;
            }
    free(fl);
    free(bd);
    return added;
}

/* Phases follow the particles into the rebuilt simulation, whose ids are
 * the new array indices; the ball is a new phase. */
static float *ball_phases(fcl_view *v, const host_state *h, size_t added)
{
    float *ph = malloc((h->n + added + 1) * sizeof *ph);
    if (!ph)
        return NULL;
    for (size_t i = 0; i < h->n; i++)
        ph[i] = v->phase[h->id[i]];
    for (size_t i = 0; i < added; i++)
        ph[h->n + i] = (float)v->nphases;
    return ph;
}

/* The ball appended to the running simulation (sim_add_particles): new
 * ids continue from next_id, each the ball's new phase; the viewer's
 * buffers are sized anew for the larger count. */
static int add_in_place(fcl_view *v, const host_state *h, size_t added, char *err, size_t errlen)
{
    fcl_sim *s = &v->sim;
    size_t ids = s->next_id + added;
    float *ph = realloc(v->phase, (ids + 1) * sizeof *ph);
    if (!ph) {
        snprintf(err, errlen, "fluid ball: out of host memory");
        return FCL_EXIT_DEVICE;
    }
    v->phase = ph;
    for (size_t i = s->next_id; i < ids; i++)
        ph[i] = (float)v->nphases;
    v->phase_ids = ids;
    v->mesh_step = -1;   /* the mesh mode shows the ball at once, paused or not */
    int rc = sim_add_particles(s, h->pos + h->n, h->vel + h->n, added, err, errlen);
    if (rc != 0)
        return rc;
    v->nphases++;
    fcl_backend *be = v->be;
    be->ops->buf_free(be, v->phase_buf);
    v->phase_buf = be->ops->buf_new(be, ids * sizeof(float), "particle phases");
    view_interop_free(v);
    if (!v->phase_buf || be->ops->buf_write(be, v->phase_buf, 0, ids * sizeof(float), v->phase) != 0) {
        snprintf(err, errlen, "fluid ball: the phase buffer could not be set up on %s", be->name);
        return FCL_EXIT_DEVICE;
    }
    return view_interop_alloc(v, err, errlen);
}

int view_drop_ball(fcl_view *v, const float c[3], float r, char *err, size_t errlen)
{
    host_state h;
    float d = v->live.particles_spacing;
    size_t room = (size_t)(4.2 * pow(r / d + 1.0, 3.0)) + 8;
    if (!v->have_sim || state_download(v, &h, room) != 0) {
        snprintf(err, errlen, "fluid ball: the current state could not be read");
        return FCL_EXIT_DEVICE;
    }
    size_t added = fill_ball(v, &h, c, r, room);
    if (added && v->sim.n + added <= v->sim.cap) {
        int rc = add_in_place(v, &h, added, err, errlen);
        state_free(&h);
        if (rc == 0)
            view_set_status(v, "dropped a ball of %zu particles (now %zu, room for %zu)", added, v->sim.n,
                            v->sim.cap);
        return rc;
    }
    float *ph = added ? ball_phases(v, &h, added) : NULL;
    if (!ph) {
        snprintf(err, errlen, "fluid ball at (%.3g, %.3g, %.3g), radius %.3g m: %s", c[0], c[1], c[2], r,
                 added ? "out of host memory" : "no room there (fluid, obstacle or wall)");
        state_free(&h);
        return FCL_EXIT_INPUT;
    }
    long step = v->sim.step;
    double time = v->sim.time;
    view_release_sim(v);
    free(v->phase);
    v->phase = ph;
    v->phase_ids = h.n + added;
    v->nphases++;
    /* Room for the next balls, so they go in place; the running set's
     * alone: a reset goes back to the scene's capacity (the edited set's
     * grew with every ball, a review), which the panel shows pending. */
    v->live.particles_capacity = (long)(2 * (h.n + added));
    int rc = view_build(v, h.pos, h.vel, h.n + added, err, errlen);
    state_free(&h);
    if (rc != 0)
        return rc;
    v->sim.step = step;
    v->sim.time = time;
    view_set_status(v, "dropped a ball of %zu particles (now %zu)", added, v->sim.n);
    return 0;
}

void view_ball_center(const fcl_view *v, float c[3])
{
    const fcl_params *p = &v->live;
    float o[3], dir[3], r = v->ball_radius, d = p->particles_spacing;
    float level = p->domain_min[1] + 0.75f * (p->domain_max[1] - p->domain_min[1]);
    rnd_camera_ray(&v->cam, v->mx, v->my, v->fb_w, v->fb_h, o, dir);
    float t = fabsf(dir[1]) > 1e-6f ? (level - o[1]) / dir[1] : -1.0f;
    for (int k = 0; k < 3; k++) {
        float mid = 0.5f * (p->domain_min[k] + p->domain_max[k]);
        c[k] = t > 0.0f ? o[k] + t * dir[k] : mid;
        float lo = p->domain_min[k] + r + d, hi = p->domain_max[k] - r - d;
        c[k] = lo > hi ? mid : (c[k] < lo ? lo : (c[k] > hi ? hi : c[k]));
    }
    /* As high as it fits, so that it falls into the scene. */
    float top = p->domain_max[1] - r - d;
    c[1] = top > c[1] ? top : c[1];
}

int view_compare_backends(fcl_view *v)
{
    char err[1024] = "";
    const char *other = strcmp(v->be->kind, "cpu") == 0 ? "opencl" : "cpu";
    host_state h;
    if (!v->have_sim || state_download(v, &h, 0) != 0) {
        view_set_status(v, "compare: the current state could not be read");
        return FCL_EXIT_DEVICE;
    }
    fcl_backend *be = backend_create(other, v->cli.device, v->kernel_dir[0] ? v->kernel_dir : NULL, err, sizeof err);
    fcl_sim s;
    int rc = be ? sim_create(&s, be, &v->live, h.pos, h.vel, h.n, v->bpos, v->nb, err, sizeof err) : FCL_EXIT_DEVICE;
    if (rc == 0)
        rc = setup_sim_scene(&s, &v->scene, err, sizeof err);
    if (rc == 0) {
        timers_reset(&be->timers);
        rc = sim_step(&s);
    }
    if (rc == 0) {
        v->other_ms = be->timers;
        snprintf(v->other_name, sizeof v->other_name, "%s", be->name);
        v->have_other = 1;
        view_set_status(v, "one step on %s: %.2f ms", be->name, timers_total(&be->timers));
    } else {
        view_set_status(v, "compare on the %s backend failed: %s", other, err[0] ? err : "see stderr");
    }
    if (be)
        sim_destroy(&s);
    backend_destroy(be);
    state_free(&h);
    return rc;
}
