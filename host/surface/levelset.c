/* levelset.c - the level-set surface's frames (levelset.h): particles in
 * host memory, the grid (a window of a lattice fixed in space, grown to
 * the particles each frame, phi carried over node for node), the first
 * frame's start from F = 0, the iterations, and the mesh by mc.c's
 * marching cubes over phi.
 * Invariant: x->ls, when set, holds phi for the surface.ls_cell and
 * ls_band it was made with; any other value of either starts afresh.
 */
#include "levelset_impl.h"
#include "mesh_post.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

void ls_free(ls_state *s)
{
    if (!s)
        return;
    free(s->phi);
    free(s->F);
    free(s->tmp);
    free(s->have);
    free(s->st);
    free(s->queued);
    free(s->band);
    free(s->front);
    ls_workers_free(s);
    ls_pgrid_free(&s->pg);
    free(s);
}

/* A frame's particles in host memory: the caller's arrays, or a download
 * of the simulation's (*own set, to free). */
typedef struct ls_parts {
    const float4 *pos, *vel;
    float4 *own_pos, *own_vel;
    size_t n;
} ls_parts;

static int particles(mc_ctx *x, const mc_input *in, ls_parts *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    p->n = in->n;
    if (!in->dpos) {
        p->pos = in->pos;
        p->vel = in->vel;
    } else {
        size_t bytes = (in->n ? in->n : 1) * sizeof(float4);
        const fcl_backend_ops *o = x->be->ops;
        p->pos = p->own_pos = malloc(bytes);
        p->vel = p->own_vel = in->dvel ? malloc(bytes) : NULL;
        if (!p->own_pos || (in->dvel && !p->own_vel) ||
            (in->n && (o->buf_read(x->be, in->dpos, 0, in->n * sizeof(float4), p->own_pos) != 0 ||
                       (in->dvel && o->buf_read(x->be, in->dvel, 0, in->n * sizeof(float4), p->own_vel) != 0)))) {
            snprintf(err, errlen, "level-set surface: cannot read the %zu particles back from %s", in->n,
                     x->be->name);
            return FCL_EXIT_DEVICE;
        }
    }
    for (size_t i = 0; i < p->n; i++)
        if (!isfinite(p->pos[i].x) || !isfinite(p->pos[i].y) || !isfinite(p->pos[i].z)) {
            snprintf(err, errlen, "particle %zu has a non-finite position", i);
            return FCL_EXIT_INPUT;
        }
    return 0;
}

/* Past this many nodes a frame is slow enough to say why, once (plan). */
#define LS_BIG_NODES 2e6

/* The grid for these particles: nodes within reach + band + rim of every
 * particle's box, an odd count per axis (a whole number of marching
 * cubes' tiles of 2 cells), refused before any allocation when its
 * arrays would not fit. */
static int plan(mc_ctx *x, const mc_config *c, const ls_parts *p, const ls_field *fd, long long o[3], int n[3],
                char *err, size_t errlen)
{
    double cell = (double)c->ls_cell * c->spacing, lo[3] = { INFINITY, INFINITY, INFINITY };
    double hi[3] = { -INFINITY, -INFINITY, -INFINITY }, nodes = 1.0;
    for (size_t i = 0; i < p->n; i++) {
        const double q[3] = { p->pos[i].x, p->pos[i].y, p->pos[i].z };
        for (int a = 0; a < 3; a++)
            lo[a] = fmin(lo[a], q[a]), hi[a] = fmax(hi[a], q[a]);
    }
    /* Float coordinates, as mc.c's plan: F and phi are sampled off their
     * nodes (a 5^3 block at x = 1e5 m, steps of 0.012 m against a cell of
     * 0.01, did not converge; a review). */
    char key[64];
    snprintf(key, sizeof key, "surface.ls_cell (now %g spacings)", c->ls_cell);
    if (mc_float_reach(lo, hi, cell, "level-set", key, err, errlen) != 0)
        return FCL_EXIT_INPUT;
    double margin = ceil(fd->reach / cell) + c->ls_band + LS_RIM + 2, len[3];
    for (int a = 0; a < 3; a++) {
        double l = floor(lo[a] / cell) - margin, h = ceil(hi[a] / cell) + margin;
        len[a] = h - l + 1.0;
        len[a] += fmod(len[a], 2.0) == 0.0 ? 1.0 : 0.0;
        nodes *= len[a];
        o[a] = (long long)l;
    }
    /* phi, F, redistancing's values (12 B), two flags and the queued bit:
     * 14.1 B, twice while a regrid holds the old grid's and the new; the
     * tiles' labels and slots (1 B); phi and the tiles on the device (5 B,
     * host memory too on the native backend): 34 B a node on the host
     * (16 were counted, a peak near 0.9 of the host's memory: a review;
     * the per-thread lists grow with the band, not the grid). */
    double host = 34.0 * nodes, dev = 5.0 * nodes;
    double mem = (double)backend_host_memory();
    if (nodes >= 4.0e9 || host > 0.5 * mem || 4.0 * nodes > (double)x->be->max_alloc ||
        dev > 0.9 * (double)x->be->mem_bytes) {
        snprintf(err, errlen, "level-set grid of %.0f x %.0f x %.0f nodes (%.3g nodes, %.1f MiB in host memory, "
                 "%.1f MiB on %s) is too large (host memory %.1f MiB, device %.1f MiB, largest buffer %.1f MiB, "
                 "at most 4e9 nodes): raise surface.ls_cell (now %g spacings)", len[0], len[1], len[2], nodes,
                 host / 1048576.0, dev / 1048576.0, x->be->name, mem / 1048576.0, x->be->mem_bytes / 1048576.0,
                 x->be->max_alloc / 1048576.0, c->ls_cell);
        return FCL_EXIT_INPUT;
    }
    /* surface.ls_cell 0.05 took 99 s a frame for 1,200 particles (5e7
     * nodes) without a word (a review); 0.1 on a 4 cm dam break, 5.2e6
     * nodes, 17 s (0.5: 1.1e5 nodes, 0.1 s): say once why it is slow. */
    if (nodes > LS_BIG_NODES && !x->big_noted++)
        fprintf(stderr, "fluidcl: note: the level-set grid has %.3g nodes (surface.ls_cell %g spacings): a frame's "
                "time grows with the cube of 1 / ls_cell, and may run to minutes\n", nodes, c->ls_cell);
    for (int a = 0; a < 3; a++)
        n[a] = (int)len[a];
    return 0;
}

/* Arrays for an n grid at o, phi carried over node for node where the old
 * grid overlaps, -far elsewhere and on the rim. 1 when the grid changed,
 * 0 when not, -1 out of memory (s unchanged). */
static int regrid(ls_state *s, const long long o[3], const int n[3])
{
    if (s->phi && memcmp(o, s->o, sizeof s->o) == 0 && memcmp(n, s->n, sizeof s->n) == 0)
        return 0;
    size_t nn = (size_t)n[0] * (size_t)n[1] * (size_t)n[2];
    float *phi = malloc(nn * sizeof *phi), *F = malloc(nn * sizeof *F), *tmp = malloc(nn * sizeof *tmp);
    unsigned char *have = calloc(nn, 1), *st = calloc(nn, 1), *queued = calloc(nn / 8 + 1, 1);
    if (!phi || !F || !tmp || !have || !st || !queued) {
        free(phi), free(F), free(tmp), free(have), free(st), free(queued);
        return -1;
    }
#pragma omp parallel for schedule(static)
    for (size_t q = 0; q < nn; q++)
        phi[q] = -s->far, tmp[q] = INFINITY;
    for (int k = LS_RIM; k < n[2] - LS_RIM && s->phi; k++)
        for (int j = LS_RIM; j < n[1] - LS_RIM; j++) {
            long long ok = o[2] + k - s->o[2], oj = o[1] + j - s->o[1];
            long long i0 = s->o[0] - o[0] > LS_RIM ? s->o[0] - o[0] : LS_RIM;
            long long i1 = s->o[0] + s->n[0] - o[0] < n[0] - LS_RIM ? s->o[0] + s->n[0] - o[0] : n[0] - LS_RIM;
            if (ok < 0 || oj < 0 || ok >= s->n[2] || oj >= s->n[1] || i1 <= i0)
                continue;
            size_t dst = (size_t)i0 + (size_t)n[0] * ((size_t)j + (size_t)n[1] * (size_t)k);
            memcpy(phi + dst, s->phi + ls_idx(s, (int)(o[0] + i0 - s->o[0]), (int)oj, (int)ok),
                   (size_t)(i1 - i0) * sizeof *phi);
        }
    free(s->phi), free(s->F), free(s->tmp), free(s->have), free(s->st), free(s->queued);
    s->phi = phi, s->F = F, s->tmp = tmp, s->have = have, s->st = st, s->queued = queued;
    s->rim_marked = 0;
    memcpy(s->o, o, sizeof s->o);
    memcpy(s->n, n, sizeof s->n);
    s->nn = nn;
    s->nband = s->nfront = 0;
    return 1;
}

/* The state for this frame's particles: kept, regridded, or new (*fresh);
 * F's cache cleared and the particles sorted for it. */
static int prepare(mc_ctx *x, const mc_config *c, const ls_parts *p, int *fresh, char *err, size_t errlen)
{
    ls_field fd;
    long long o[3];
    int n[3];
    ls_field_from_config(&fd, c);
    ls_field_fit(&fd, p->vel, p->n);
    int rc = plan(x, c, p, &fd, o, n, err, errlen);
    if (rc != 0)
        return rc;
    float cell = c->ls_cell * c->spacing;
    ls_state *s = x->ls;
    if (s && (s->cell != cell || s->W != c->ls_band))
        mc_forget(x), s = NULL;
    *fresh = s == NULL;
    if (!s && (s = x->ls = calloc(1, sizeof *s)) != NULL) {
        s->cell = cell;
        s->W = c->ls_band;
        s->far = (float)(c->ls_band + 1) * cell;
        s->seeding = 1;
    }
    int moved = s ? regrid(s, o, n) : -1;
    if (moved >= 0) {
        s->fd = fd;
        ls_pgrid_free(&s->pg);
        memset(s->have, 0, s->nn);
    }
    if (moved < 0 || ls_pgrid_build(&s->pg, p->pos, p->vel, p->n, &fd) != 0 ||
        (moved == 1 && !*fresh && (ls_find_front_all(s) != 0 || ls_redistance(s) != 0))) {
        snprintf(err, errlen, "level-set surface: out of host memory for a grid of %d x %d x %d nodes", n[0], n[1],
                 n[2]);
        mc_forget(x);
        return FCL_EXIT_DEVICE;
    }
    return 0;
}

int ls_stalled(double *hist, int it, double ch, float *level)
{
    hist[it % LS_STALL_HIST] = ch;
    if (it + 1 < LS_STALL_HIST)
        return 0;
    double lo = INFINITY, hi = 0.0;
    for (int w = 0; w < LS_STALL_WINDOWS; w++) {
        double top = 0.0;
        for (int k = 0; k < LS_STALL_WINDOW; k++)
            top = fmax(top, hist[(it - w * LS_STALL_WINDOW - k) % LS_STALL_HIST]);
        lo = fmin(lo, top);
        hi = fmax(hi, top);
    }
    *level = (float)hi;
    return hi < 0.05 && hi <= 1.02 * lo;
}

/* Steps until the largest front move is below the tolerance, or until it
 * stalls above it (more steps would not settle it). */
static int iterate(ls_state *s, const mc_config *c, mc_stats *st)
{
    double hist[LS_STALL_HIST];
    float beta_r = c->ls_beta * c->ls_radius * c->spacing;
    /* Half a cell per step where |F| is |T| (F's scale near the surface),
     * and the explicit curvature (diffusion) term's limit h^2 / (6 D). */
    float dt = 0.5f * s->cell / fmaxf(fabsf(s->fd.T), 0.5f);
    if (beta_r > 0.0f)
        dt = fminf(dt, s->cell * s->cell / (6.0f * beta_r));
    for (int it = 0; it < c->ls_max_iter; it++) {
        double ch = ls_step(s, beta_r, dt);
        if (ch < 0.0 || ls_find_front(s, s->band, s->nband) != 0 || ls_redistance(s) != 0)
            return -1;
        st->ls_iterations = it + 1;
        st->ls_change = (float)ch;
        if (ch < c->ls_tolerance) {
            st->ls_converged = 1;
            break;
        }
        if ((st->ls_stalled = ls_stalled(hist, it, ch, &st->ls_jitter)) != 0)
            break;
    }
    return 0;
}

/* Whether tile (tx, ty, tz)'s closed box of (t+1)^3 nodes has both signs. */
static int mixed(const ls_state *s, int tx, int ty, int tz, int t)
{
    int in = 0, out = 0;
    for (int k = tz * t; k <= tz * t + t; k++)
        for (int j = ty * t; j <= ty * t + t; j++)
            for (int i = tx * t; i <= tx * t + t; i++) {
                if (s->phi[ls_idx(s, i, j, k)] >= 0.0f)
                    in = 1;
                else
                    out = 1;
            }
    return in && out;
}

/* Marching cubes over phi (inside where phi >= 0) on tiles of 2 cells:
 * the tiles listed are those with both signs among their nodes. A cell
 * whose corners differ has a front node among them, so only the tiles
 * whose closed box holds a front node are looked at. */
static int mesh(mc_ctx *x, ls_state *s, mc_mesh *out, char *err, size_t errlen)
{
    const int t = 2;
    fcl_mc_info m;
    memset(&m, 0, sizeof m);
    m.origin = (float4){ s->cell * (float)s->o[0], s->cell * (float)s->o[1], s->cell * (float)s->o[2], 0.0f };
    m.cell = s->cell;
    m.inv_cell = 1.0f / s->cell;
    m.iso = 0.0f;
    m.nx = (uint)s->n[0], m.ny = (uint)s->n[1], m.nz = (uint)s->n[2];
    m.b = m.t = (uint)t;
    m.tpb = 1;
    m.tnx = (m.nx - 1) / 2, m.tny = (m.ny - 1) / 2, m.tnz = (m.nz - 1) / 2;
    size_t tiles = (size_t)m.tnx * m.tny * m.tnz, nl = 0, cl = 0;
    uint *label = calloc(tiles, sizeof *label), *slot = calloc(tiles, sizeof *slot), *list = NULL;
    int rc = !label || !slot;
    for (size_t f = 0; f < s->nfront && !rc; f++) {
        int c[3], lo[3], hi[3];
        ls_coords(s, s->front[f], &c[0], &c[1], &c[2]);
        const int tn[3] = { (int)m.tnx, (int)m.tny, (int)m.tnz };
        for (int a = 0; a < 3; a++) {
            lo[a] = c[a] > 0 ? (c[a] - 1) / t : 0;
            hi[a] = c[a] / t < tn[a] ? c[a] / t : tn[a] - 1;
        }
        for (int k = lo[2]; k <= hi[2] && !rc; k++)
            for (int j = lo[1]; j <= hi[1] && !rc; j++)
                for (int i = lo[0]; i <= hi[0] && !rc; i++) {
                    size_t q = (size_t)i + m.tnx * ((size_t)j + (size_t)m.tny * (size_t)k);
                    if (label[q] != 0)
                        continue;
                    label[q] = mixed(s, i, j, k, t) ? 5u : 6u; /* 6: looked at, not listed */
                    if (label[q] == 5u) {
                        slot[q] = (uint)nl;
                        rc = ls_push(&list, &nl, &cl, (uint)q);
                    }
                }
    }
    if (rc) {
        free(label), free(slot), free(list);
        snprintf(err, errlen, "level-set surface: out of host memory for the tiles of the mesh");
        return FCL_EXIT_DEVICE;
    }
    for (size_t q = 0; q < tiles; q++)
        label[q] = label[q] == 5u ? 5u : 0u;
    rc = mc_mesh_nodes(x, &m, s->phi, label, list, (uint)nl, slot, out, err, errlen);
    free(label), free(slot), free(list);
    return rc;
}

/* The first frame: F on every node, phi from F = 0, the band around its
 * front (ls_redistance). Later frames: phi as it was, with fluid beyond
 * the band outside, and holes beyond it inside, seeded. */
static int start_phi(ls_state *s, const ls_parts *p, int fresh)
{
    if (fresh) {
        ls_speed_all(s);
        ls_init_from_speed(s);
        return ls_find_front_all(s) != 0 || ls_redistance(s) != 0 ? -1 : 0;
    }
    size_t seeded = s->seeding ? ls_seed(s, p->pos, p->n) : 0;
    size_t holes = s->seeding && seeded != (size_t)-1 ? ls_seed_holes(s) : 0;
    s->seeding = 1;
    if (seeded == (size_t)-1 || holes == (size_t)-1)
        return -1;
    return (seeded || holes) && (ls_find_front_all(s) != 0 || ls_redistance(s) != 0) ? -1 : 0;
}

static void parts_free(ls_parts *p)
{
    free(p->own_pos);
    free(p->own_vel);
}

int ls_reconstruct(mc_ctx *x, const mc_config *c, const mc_input *in, mc_mesh *out, char *err, size_t errlen)
{
    mc_stats *st = &x->last;
    double t0 = omp_get_wtime(), t1, t2, t3;
    ls_parts p;
    int fresh = 0, rc = particles(x, in, &p, err, errlen);
    st->ls_ms_particles = 1e3 * (omp_get_wtime() - t0);
    if (rc == 0 && p.n == 0)
        mc_forget(x); /* no fluid: the next frame starts afresh */
    if (rc != 0 || p.n == 0) {
        parts_free(&p);
        return rc;
    }
    t1 = omp_get_wtime();
    if ((rc = prepare(x, c, &p, &fresh, err, errlen)) != 0) {
        parts_free(&p);
        return rc;
    }
    ls_state *s = x->ls;
    if (start_phi(s, &p, fresh) == 0) {
        t2 = omp_get_wtime();
        rc = iterate(s, c, st);
        t3 = omp_get_wtime();
        st->ls_ms_speed = 1e3 * (t2 - t1);
        st->ls_ms_iterate = 1e3 * (t3 - t2);
        /* The host's stages beside the device passes' timers, so that
         * bench --mesh's rows hold the whole reconstruction (they showed
         * 0.41 of 5.9 ms). */
        timers_add(&x->be->timers, "ls-particles", st->ls_ms_particles);
        timers_add(&x->be->timers, "ls-speed", st->ls_ms_speed);
        timers_add(&x->be->timers, "ls-iterate", st->ls_ms_iterate);
    } else {
        rc = -1;
    }
    parts_free(&p);
    if (rc != 0) {
        snprintf(err, errlen, "level-set surface: out of host memory for the band of a %d x %d x %d grid", s->n[0],
                 s->n[1], s->n[2]);
        mc_forget(x);
        return FCL_EXIT_DEVICE;
    }
    s->frames++;
    st->ls_continued = !fresh;
    st->ls_front = s->nfront;
    st->nodes = s->nn;
    st->cells = s->nband;
    st->node_cell = s->cell;
    st->tile = 2;
    t3 = omp_get_wtime();
    if ((rc = mesh(x, s, out, err, errlen)) != 0)
        return rc;
    st->ls_ms_mesh = 1e3 * (omp_get_wtime() - t3);
    const mesh_post_config pc = { c->smooth_iterations, c->smooth_feature, c->decimate, c->decimate_error, s->cell };
    if ((rc = mesh_postprocess(out, &pc, err, errlen)) != 0) {
        mc_mesh_free(out);
        return rc == -2 ? FCL_EXIT_INPUT : FCL_EXIT_DEVICE;
    }
    return 0;
}

double ls_phi_at(const mc_ctx *x, double px, double py, double pz)
{
    const ls_state *s = x->ls;
    if (!s || !s->phi)
        return NAN;
    const double p[3] = { px, py, pz };
    int c[3];
    double t[3];
    for (int a = 0; a < 3; a++) {
        double u = p[a] / s->cell - (double)s->o[a], f = floor(u);
        if (f < 0.0 || f > s->n[a] - 2)
            return -s->far;
        c[a] = (int)f;
        t[a] = u - f;
    }
    double v = 0.0;
    for (int e = 0; e < 8; e++) {
        int dx = e & 1, dy = (e >> 1) & 1, dz = e >> 2;
        double w = (dx ? t[0] : 1.0 - t[0]) * (dy ? t[1] : 1.0 - t[1]) * (dz ? t[2] : 1.0 - t[2]);
        v += w * s->phi[ls_idx(s, c[0] + dx, c[1] + dy, c[2] + dz)];
    }
    return v;
}

int ls_start_sphere(mc_ctx *x, const mc_config *c, const mc_input *in, const float centre[3], float radius,
                    char *err, size_t errlen)
{
    ls_parts p;
    int fresh, rc = particles(x, in, &p, err, errlen);
    if (rc == 0 && p.n == 0) {
        snprintf(err, errlen, "level-set surface: a seed sphere needs particles to place its grid, got none");
        rc = FCL_EXIT_INPUT;
    }
    if (rc == 0)
        rc = prepare(x, c, &p, &fresh, err, errlen);
    parts_free(&p);
    if (rc != 0)
        return rc;
    ls_state *s = x->ls;
    x->last_method = MC_METHOD_LEVELSET; /* else the next frame's method check would drop the sphere */
    for (size_t q = 0; q < s->nn; q++) {
        int i, j, k;
        ls_coords(s, q, &i, &j, &k);
        double dx = s->cell * (double)(s->o[0] + i) - centre[0], dy = s->cell * (double)(s->o[1] + j) - centre[1];
        double dz = s->cell * (double)(s->o[2] + k) - centre[2];
        double d = radius - sqrt(dx * dx + dy * dy + dz * dz);
        s->phi[q] = ls_inner(s, i, j, k) ? (float)fmax(fmin(d, s->far), -s->far) : -s->far;
    }
    s->seeding = 0;
    s->frames = 1;
    if (ls_find_front_all(s) != 0 || ls_redistance(s) != 0) {
        mc_forget(x);
        snprintf(err, errlen, "level-set surface: out of host memory");
        return FCL_EXIT_DEVICE;
    }
    return 0;
}

int ls_check(mc_ctx *x, const mc_config *c, const mc_input *in, char *err, size_t errlen)
{
    ls_parts p;
    ls_field fd;
    long long o[3];
    int n[3], rc = particles(x, in, &p, err, errlen);
    if (rc == 0 && p.n > 0) {
        ls_field_from_config(&fd, c);
        ls_field_fit(&fd, p.vel, p.n);
        rc = plan(x, c, &p, &fd, o, n, err, errlen);
    }
    parts_free(&p);
    return rc;
}
