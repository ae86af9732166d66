/* control.c - fluid control's host side (control.h): the control set by
 * target, its motion (rigid paths, active intervals), upload and sort,
 * the cross lists, and one thin launcher per pass of kernels/control.cl.
 * Units follow SEED-NOTES 3.3-3.5: the control density is relative to the
 * poly6 lattice sum at support H; the spring's x is in particle radii
 * (half the spacing); beta is in spacings per step.
 * Invariant: see control.h; k->cur and k->vel hold the active set in id
 * order, the order the device's byid buffer and the spring references use.
 */
#include "control.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "passes.h"
#include "control_skin.h"
#include "smoothing.h"
#include "state.h"
#include "targets.h"

double control_lattice_d0(double h, double sp, double volume)
{
    int m = (int)ceil(h / sp);
    double coef = 45.0 / (3.14159265358979323846 * pow(h, 6)), sum = 0.0;
    for (int x = -m; x <= m; x++)
        for (int y = -m; y <= m; y++)
            for (int z = -m; z <= m; z++) {
                double r = sp * sqrt((double)(x * x + y * y + z * z));
                if (r > 0.0 && r < h) {
                    double g = volume * coef * (h - r) * (h - r);
                    sum += g * g;
                }
            }
    return sum;
}

static fcl_buf *attr(const fcl_grid *g, int a)
{
    return g->attr[a].cur;
}

/* Centroid of each target's rest particles (the pivot of its path), and
 * each target's slice of the particles. */
static int centroids(pbf_control *k)
{
    size_t nt = (size_t)k->ntargets + 1;
    k->centroid = calloc(nt, sizeof *k->centroid);
    k->active = calloc(nt, 1);
    k->was = calloc(nt, 1);
    k->first = calloc(nt, sizeof *k->first);
    k->count = calloc(nt, sizeof *k->count);
    k->weights = calloc(nt, sizeof *k->weights);
    double *acc = calloc(nt * 4, sizeof *acc);
    if (!k->centroid || !k->active || !k->was || !k->first || !k->count || !k->weights || !acc) {
        free(acc);
        return -1;
    }
    for (size_t i = 0; i < k->total; i++) {
        int t = k->owner[i];
        if (t < 0)
            continue;
        if (!k->count[t]++)
            k->first[t] = i;
        acc[4 * t] += k->rest[i].x;
        acc[4 * t + 1] += k->rest[i].y;
        acc[4 * t + 2] += k->rest[i].z;
        acc[4 * t + 3] += 1.0;
    }
    for (int t = 0; t < k->ntargets; t++)
        for (int a = 0; a < 3; a++)
            k->centroid[t][a] = acc[4 * t + 3] > 0.0 ? (float)(acc[4 * t + a] / acc[4 * t + 3]) : 0.0f;
    free(acc);
    return 0;
}

/* The device side: the control grid on the fluid grid's layout, the
 * by-id positions, lambda~, the two cross lists, the spring attributes. */
static int device_init(pbf_control *k, fcl_sim *s, char *err, size_t errlen)
{
    fcl_backend *be = s->be;
    fcl_grid_info info = s->grid.info;
    info.n = 0;
    float H = (float)(s->prm->control_radius * s->h);
    size_t n = k->total;
    if (grid_init_cap(&k->grid, be, &info, n) != 0)
        return -1;
    k->a_pos = grid_add_attr(&k->grid, be, "control positions", 16);
    k->a_vel = grid_add_attr(&k->grid, be, "control velocities", 16);
    k->a_id = grid_add_attr(&k->grid, be, "control ids", 4);
    k->grid.key_attr = k->a_id;
    k->byid = be->ops->buf_new(be, n * 16 + 16, "control positions by id");
    k->clam = be->ops->buf_new(be, n * 4 + 4, "control lambda");
    k->a_ref = grid_add_attr(&s->grid, be, "control spring reference", 4);
    k->a_life = grid_add_attr(&s->grid, be, "control spring life", 4);
    if (k->a_pos < 0 || k->a_vel < 0 || k->a_id < 0 || !k->byid || !k->clam || k->a_ref < 0 || k->a_life < 0)
        return -1;
    int pm = be->serial_groups;
    if (nlist_one_init(&k->fc, be, s->cap, H, info.cell_size, 16, pm, "control-neighbors", err, errlen) != 0 ||
        nlist_one_init(&k->cf, be, n, H, info.cell_size, nlist_capacity(H, s->spacing, 0), pm, "control-neighbors",
                       err, errlen) != 0)
        return -1;
    void *zero = calloc(s->cap + 1, 4);
    int rc = !zero || be->ops->buf_write(be, attr(&s->grid, k->a_ref), 0, s->cap * 4, zero) != 0 ||
             be->ops->buf_write(be, attr(&s->grid, k->a_life), 0, s->cap * 4, zero) != 0;
    free(zero);
    return rc ? -1 : 0;
}

size_t control_bytes_per_point(const fcl_sim *s)
{
    double H = s->prm->control_radius * s->h;
    size_t sampler = sizeof(float4) + sizeof(uint32_t), targets = sizeof(float4) + sizeof(int);
    size_t host = 5 * sizeof(float4) + sizeof(int);   /* rest, cur, vel, at_t, at_next; owner */
    size_t grid = 3 * sizeof(uint) + 2 * (2 * 16 + 4); /* cell, rank, order; pos, vel, id and spares */
    size_t cf = (size_t)nlist_capacity(H, s->spacing, 0) * 4 + 4;
    return sampler + targets + host + grid + 16 + 4 + cf;
}

double control_interval(const fcl_sim *s)
{
    return s->prm->control_spacing * s->prm->control_radius * s->h;
}

int control_create(pbf_control **out, fcl_sim *s, const float4 *pts, const int *owner, size_t n,
                   const struct fcl_target *targets, int ntargets, char *err, size_t errlen)
{
    pbf_control *k = calloc(1, sizeof *k);
    *out = k;
    if (!k)
        return -1;
    k->total = n;
    k->interval = control_interval(s);
    k->targets = targets;
    k->ntargets = targets ? ntargets : 0;
    k->rest = malloc((n + 1) * sizeof *k->rest);
    k->owner = malloc((n + 1) * sizeof *k->owner);
    k->cur = malloc((n + 1) * sizeof *k->cur);
    k->vel = malloc((n + 1) * sizeof *k->vel);
    k->at_t = malloc((n + 1) * sizeof *k->at_t);
    k->at_next = malloc((n + 1) * sizeof *k->at_next);
    if (!k->rest || !k->owner || !k->cur || !k->vel || !k->at_t || !k->at_next) {
        snprintf(err, errlen, "targets: out of memory for %zu control particles", n);
        return -1;
    }
    memcpy(k->rest, pts, n * sizeof *pts);
    for (size_t i = 0; i < n; i++)
        k->owner[i] = owner ? owner[i] : -1;
    if (centroids(k) != 0 || device_init(k, s, err, errlen) != 0) {
        if (!*err)
            snprintf(err, errlen, "targets: setting up %zu control particles on %s failed", n, s->be->name);
        return -1;
    }
    return 0;
}

void control_destroy(pbf_control *k, fcl_sim *s)
{
    if (!k)
        return;
    grid_free(&k->grid, s->be);
    s->be->ops->buf_free(s->be, k->byid);
    s->be->ops->buf_free(s->be, k->clam);
    nlist_one_free(&k->fc, s->be);
    nlist_one_free(&k->cf, s->be);
    free(k->rest);
    free(k->owner);
    free(k->cur);
    free(k->vel);
    for (int g = 0; k->weights && g < k->ntargets; g++)
        free(k->weights[g]);
    free(k->weights);
    free(k->first);
    free(k->count);
    free(k->at_t);
    free(k->at_next);
    free(k->centroid);
    free(k->active);
    free(k->was);
    free(k);
}

void control_bind(pbf_control *k, float **weights)
{
    for (int g = 0; g < k->ntargets; g++) {
        free(k->weights[g]);
        k->weights[g] = weights ? weights[g] : NULL;
    }
}

void control_derive(pbf_control *k, const fcl_sim *s, double dt)
{
    const fcl_params *p = s->prm;
    fcl_control_consts *c = &k->k;
    double H = p->control_radius * s->h, vol = 1.0 / smoothing_lattice_sum((float)H, s->spacing);
    c->H = (float)H;
    c->H2 = (float)(H * H);
    c->poly6 = (float)(315.0 / (64.0 * 3.14159265358979323846 * pow(H, 9)));
    c->spiky_grad = (float)(-45.0 / (3.14159265358979323846 * pow(H, 6)));
    c->volume = (float)vol;
    c->eps = (float)(p->control_relaxation * control_lattice_d0(H, s->spacing, vol));
    /* beta spacings per step at pbf.dt_max, in proportion below it: a
     * fixed displacement per step would be a speed beta / dt, which
     * shrinks the CFL step, which raises the speed (a run-away measured
     * on a target that jumped: dt fell to 1e-22 s within 320 steps). */
    c->beta = (float)(p->control_beta * s->spacing * dt / p->pbf_dt_max);
    c->a = p->control_a;
    c->b = p->control_b;
    c->inv_unit = 2.0f / s->spacing;
    /* gamma: the share of the velocity difference removed per step of
     * pbf.dt_max, compounded over shorter steps so that it is a rate: as
     * a share per step, a static target's fluid kept 0.0219 of 0.2 m/s
     * after 0.04 s at pbf.cfl 0.4 (21 steps) and 0.0002 at 0.04 (64),
     * stiffer wherever the CFL step shrank (a review). */
    c->gamma = (float)(1.0 - pow(1.0 - p->control_gamma, dt / p->pbf_dt_max));
    c->dt = (float)dt;
    double half = 0.5 * k->interval;
    c->spring_r2 = (float)(half * half);
    c->life_min = p->control_life_min;
    c->life_max = fmaxf(p->control_life_max, p->control_life_min);
    c->step = (uint)s->step;
    c->n = (uint)k->n;
    c->alpha = p->control_alpha;
    /* The same for the control density's displacement (a fixed one per
     * step ran away at control.radius 4: 344 m/s at step 23). */
    c->dscale = (float)fmin(dt / p->pbf_dt_max, 1.0);
}

/* A skeleton's joints, bones and keys (a resume once went on silently
 * into a scene whose skeleton moved otherwise). */
static uint64_t skeleton_fingerprint(uint64_t h, const fcl_skeleton *sk)
{
    int none = sk == NULL;
    h = fcl_fnv1a(h, &none, sizeof none);
    if (none)
        return h;
    h = fcl_fnv1a(h, &sk->njoints, sizeof sk->njoints);
    h = fcl_fnv1a(h, &sk->nbones, sizeof sk->nbones);
    h = fcl_fnv1a(h, &sk->nkeys, sizeof sk->nkeys);
    h = fcl_fnv1a(h, sk->joints, 3 * (size_t)sk->njoints * sizeof *sk->joints);
    h = fcl_fnv1a(h, sk->bones, 2 * (size_t)sk->nbones * sizeof *sk->bones);
    h = fcl_fnv1a(h, sk->key_t, (size_t)sk->nkeys * sizeof *sk->key_t);
    h = fcl_fnv1a(h, sk->key_q, 4 * (size_t)sk->nkeys * sk->nbones * sizeof *sk->key_q);
    return fcl_fnv1a(h, sk->key_tr, 3 * (size_t)sk->nkeys * sk->nbones * sizeof *sk->key_tr);
}

/* The whole set: its particles at rest, their targets, the targets'
 * times, paths and skeletons (all a checkpoint from before the per-target
 * records held). */
static uint64_t whole_fingerprint(const pbf_control *k)
{
    uint64_t h = fcl_fnv1a(FCL_FNV1A_BASIS, &k->total, sizeof k->total);
    h = fcl_fnv1a(h, k->rest, k->total * sizeof *k->rest);
    h = fcl_fnv1a(h, k->owner, k->total * sizeof *k->owner);
    for (int g = 0; g < k->ntargets; g++) {
        const fcl_target *tg = &k->targets[g];
        h = fcl_fnv1a(h, &tg->start, sizeof tg->start);
        h = fcl_fnv1a(h, &tg->end, sizeof tg->end);
        for (int i = 0; i < tg->nkeys; i++) {    /* field by field: the struct has padding */
            const fcl_target_key *key = &tg->keys[i];
            h = fcl_fnv1a(h, &key->t, sizeof key->t);
            h = fcl_fnv1a(h, key->translate, sizeof key->translate);
            h = fcl_fnv1a(h, key->axis, sizeof key->axis);
            h = fcl_fnv1a(h, &key->angle, sizeof key->angle);
        }
        h = skeleton_fingerprint(h, tg->skeleton);
    }
    return h;
}

/* One target's part of a checkpoint, so that a refusal can name the
 * target and what about it differs. Its alpha (-1: control.alpha) came
 * with CTL3: the samples' hash holds it in w, and a target of another
 * alpha was refused as sampled "at other places" (a review). A CTL2
 * record, without it, reads as alpha NAN (not compared). */
typedef struct target_record {
    double start, end;
    uint32_t count, nkeys;
    uint64_t sample, path, skeleton;
    float alpha;
    uint32_t spare;
} target_record;

enum { SAVED_MAGIC = 0x334c5443u, SAVED_MAGIC2 = 0x324c5443u };   /* "CTL3", "CTL2" */
enum { RECORD2_BYTES = 48 };
_Static_assert(sizeof(target_record) == RECORD2_BYTES + 8, "target_record: CTL2's fields, then alpha");

static target_record target_of(const pbf_control *k, int g)
{
    const fcl_target *tg = &k->targets[g];
    target_record r = { tg->start, tg->end, (uint32_t)k->count[g], (uint32_t)tg->nkeys, 0, 0, 0, tg->alpha, 0 };
    r.sample = fcl_fnv1a(FCL_FNV1A_BASIS, k->rest + k->first[g], k->count[g] * sizeof *k->rest);
    r.path = FCL_FNV1A_BASIS;
    for (int i = 0; i < tg->nkeys; i++) {
        const fcl_target_key *key = &tg->keys[i];
        r.path = fcl_fnv1a(r.path, &key->t, sizeof key->t);
        r.path = fcl_fnv1a(r.path, key->translate, sizeof key->translate);
        r.path = fcl_fnv1a(r.path, key->axis, sizeof key->axis);
        r.path = fcl_fnv1a(r.path, &key->angle, sizeof key->angle);
    }
    r.skeleton = skeleton_fingerprint(FCL_FNV1A_BASIS, tg->skeleton);
    return r;
}

size_t control_save(const pbf_control *k, void *blob, size_t cap)
{
    uint32_t head[2] = { SAVED_MAGIC, (uint32_t)k->ntargets };
    uint64_t whole = whole_fingerprint(k);
    size_t need = sizeof head + sizeof whole + (size_t)k->ntargets * sizeof(target_record);
    unsigned char *b = blob;
    if (cap < need)
        return FCL_SAVE_FAILED;
    memcpy(b, head, sizeof head);
    memcpy(b + sizeof head, &whole, sizeof whole);
    for (int g = 0; g < k->ntargets; g++) {
        target_record r = target_of(k, g);
        memcpy(b + 16 + (size_t)g * sizeof r, &r, sizeof r);
    }
    return need;
}

/* "targets[1] (mesh glass.obj)" */
static void target_name(const pbf_control *k, int g, char *out, size_t len)
{
    static const char *kinds[] = { [FCL_SHAPE_BOX] = "box", [FCL_SHAPE_SPHERE] = "sphere",
                                   [FCL_SHAPE_MESH] = "mesh", [FCL_SHAPE_POLYGON] = "polygon" };
    const fcl_obstacle *o = &k->targets[g].shape;
    const char *base = strrchr(o->file, '/');
    snprintf(out, len, "targets[%d] (%s%s%s)", g, kinds[o->kind], o->kind == FCL_SHAPE_MESH ? " " : "",
             o->kind == FCL_SHAPE_MESH ? (base ? base + 1 : o->file) : "");
}

/* "from 0 to 2 s", "from 0 s on" */
static const char *span(double start, double end, char *out, size_t len)
{
    if (isinf(end))
        snprintf(out, len, "from %g s on", start);
    else
        snprintf(out, len, "from %g to %g s", start, end);
    return out;
}

/* What differs between target g and its saved record; 0 when nothing. */
static int target_differs(const pbf_control *k, int g, const target_record *saved, char *why, size_t whylen)
{
    target_record r = target_of(k, g);
    char name[160], a[64], b[64];
    target_name(k, g, name, sizeof name);
    if (r.start != saved->start || r.end != saved->end)
        snprintf(why, whylen, "%s is active %s, in the checkpoint's scene %s", name,
                 span(r.start, r.end, a, sizeof a), span(saved->start, saved->end, b, sizeof b));
    else if (!isnan(saved->alpha) && r.alpha != saved->alpha)
        snprintf(why, whylen, "%s has alpha %g, in the checkpoint's scene %g (-1: control.alpha)", name, r.alpha,
                 saved->alpha);
    else if (r.count != saved->count || r.sample != saved->sample)
        snprintf(why, whylen, "%s samples into %u control particles, in the checkpoint's scene %u%s (its shape, "
                 "placement, control.spacing or the spacing differs)", name, r.count, saved->count,
                 r.count == saved->count ? " at other places" : "");
    else if (r.nkeys != saved->nkeys || r.path != saved->path)
        snprintf(why, whylen, "%s has a path of %u keys, in the checkpoint's scene another of %u", name, r.nkeys,
                 saved->nkeys);
    else if (r.skeleton != saved->skeleton)
        snprintf(why, whylen, "%s has another skeleton (joints, bones or keys) than in the checkpoint's scene", name);
    else
        return 0;
    return 1;
}

int control_check_saved(const pbf_control *k, const void *blob, size_t bytes, char *why, size_t whylen)
{
    const unsigned char *b = blob;
    uint32_t head[2] = { 0, 0 };
    uint64_t whole = 0, now = whole_fingerprint(k);
    if (bytes == sizeof whole) {         /* a checkpoint from before the records */
        memcpy(&whole, b, sizeof whole);
        if (whole != now)
            snprintf(why, whylen, "its control targets differ from this scene's");
        return whole == now ? 0 : -1;
    }
    if (bytes >= 16)
        memcpy(head, b, sizeof head);
    size_t rec = head[0] == SAVED_MAGIC2 ? RECORD2_BYTES : sizeof(target_record);
    if ((head[0] != SAVED_MAGIC && head[0] != SAVED_MAGIC2) || bytes != 16 + (size_t)head[1] * rec) {
        snprintf(why, whylen, "its fluid-control record is damaged (%zu bytes)", bytes);
        return -1;
    }
    if (head[1] != (uint32_t)k->ntargets) {
        snprintf(why, whylen, "its scene has %u control targets, this one %d", head[1], k->ntargets);
        return -1;
    }
    for (int g = 0; g < k->ntargets; g++) {
        target_record r = { .alpha = NAN };
        memcpy(&r, b + 16 + (size_t)g * rec, rec);
        if (target_differs(k, g, &r, why, whylen))
            return -1;
    }
    memcpy(&whole, b + sizeof head, sizeof whole);
    if (whole != now)                    /* points of no target (tests) */
        snprintf(why, whylen, "its control points differ from this run's");
    return whole == now ? 0 : -1;
}

/* Where particle i of the control set is at time t (its target's rigid
 * path; w keeps alpha). */
static float4 place(const pbf_control *k, size_t i, double t)
{
    float4 p = k->rest[i];
    int g = k->owner[i];
    if (g < 0 || !k->targets[g].nkeys)
        return p;
    float r[9], tr[3];
    const float *c = k->centroid[g];
    target_pose(&k->targets[g], t, r, tr);
    float x = p.x - c[0], y = p.y - c[1], z = p.z - c[2];
    return fcl_f4(c[0] + r[0] * x + r[1] * y + r[2] * z + tr[0], c[1] + r[3] * x + r[4] * y + r[5] * z + tr[1],
                  c[2] + r[6] * x + r[7] * y + r[8] * z + tr[2], p.w);
}

/* Every active particle's position at time t into out: rigid paths by
 * place, skeleton targets by linear blend skinning of their slice. */
static void pose_all(const pbf_control *k, double t, float4 *out)
{
    for (size_t i = 0; i < k->total; i++)
        out[i] = place(k, i, t);
    for (int g = 0; g < k->ntargets; g++) {
        if (!k->active[g] || !k->targets[g].skeleton || !k->weights[g])
            continue;
        size_t a = k->first[g], n = k->count[g];
        ctl_skin_apply(k->targets[g].skeleton, k->weights[g], k->rest + a, n, t, out + a);
        for (size_t i = a; i < a + n; i++)
            out[i].w = k->rest[i].w;
    }
}

/* Which targets are active at time t; 1 when that changed. */
static int activity(pbf_control *k, double t, int *moving)
{
    int changed = 0;
    *moving = 0;
    for (int g = 0; g < k->ntargets; g++) {
        const fcl_target *tg = &k->targets[g];
        unsigned char a = tg->start <= t && t < tg->end;
        changed |= a != k->active[g];
        k->active[g] = a;
        *moving |= a && (tg->nkeys > 0 || tg->skeleton);
    }
    return changed;
}

/* The fluid's spring references (control id + 1, 0 none) from the
 * active set `was` (per target) to the current one: a spring into a
 * target still active follows its control particle to its new id, one
 * into a target switched off is dropped. Every spring was dropped: a 5 cm
 * target switched on and off four times in a far corner, never near the
 * fluid, took control_chase from 87.4 to 83.2 % inside its sphere and
 * 2.25 to 7.40 m/s (a review). */
static int remap_springs(pbf_control *k, fcl_sim *s, const unsigned char *was)
{
    uint *map = malloc((k->total + 1) * sizeof *map), *ref = malloc((s->n + 1) * sizeof *ref);
    fcl_buf *b = attr(&s->grid, k->a_ref);
    int rc = map && ref && s->be->ops->buf_read(s->be, b, 0, s->n * 4, ref) == 0 ? 0 : -1;
    size_t before = 0, now = 0;
    for (size_t i = 0; rc == 0 && i < k->total; i++) {
        int g = k->owner[i], on = g < 0 || k->active[g];
        if (g < 0 || was[g])
            map[before++] = on ? (uint)now + 1u : 0u;
        now += (size_t)on;
    }
    for (size_t i = 0; rc == 0 && i < s->n; i++)
        ref[i] = ref[i] && ref[i] <= before ? map[ref[i] - 1u] : 0u;
    if (rc == 0)
        rc = s->be->ops->buf_write(s->be, b, 0, s->n * 4, ref);
    free(map);
    free(ref);
    return rc;
}

/* Upload the active set (by id) and sort it; a changed set (`was` the
 * one before, per target) moves the springs' references to the new ids. */
static int upload(pbf_control *k, fcl_sim *s, int changed, const unsigned char *was)
{
    fcl_backend *be = s->be;
    size_t n = k->n;
    uint *ids = malloc((n + 1) * sizeof *ids);
    int rc = ids ? 0 : -1;
    for (size_t i = 0; i < n && ids; i++)
        ids[i] = (uint)i;
    grid_set_count(&k->grid, n);
    if (rc == 0 && n > 0)
        rc = be->ops->buf_write(be, attr(&k->grid, k->a_pos), 0, n * 16, k->cur) |
             be->ops->buf_write(be, attr(&k->grid, k->a_vel), 0, n * 16, k->vel) |
             be->ops->buf_write(be, attr(&k->grid, k->a_id), 0, n * 4, ids) |
             be->ops->buf_write(be, k->byid, 0, n * 16, k->cur) | grid_build(&k->grid, be, k->a_pos);
    free(ids);
    if (rc == 0 && changed && s->n > 0)
        rc = remap_springs(k, s, was);
    return rc ? -1 : 0;
}

int control_move(pbf_control *k, fcl_sim *s, double t, double dt)
{
    int moving;
    /* The first move of a run (or of a resumed one) starts from the set
     * active at t: the springs restored with the particles name its ids,
     * and must move to the new ones if this step changes it, as running
     * on does. */
    if (!k->uploaded)
        activity(k, t, &moving);
    memcpy(k->was, k->active, (size_t)k->ntargets);
    int changed = activity(k, t + dt, &moving);
    if (k->uploaded && !changed && !moving)
        return 0;
    size_t n = 0;
    pose_all(k, t, k->at_t);
    pose_all(k, t + dt, k->at_next);
    for (size_t i = 0; i < k->total; i++) {
        int g = k->owner[i];
        if (g >= 0 && !k->active[g])
            continue;
        float4 a = k->at_t[i], b = k->at_next[i];
        k->cur[n] = b;
        k->vel[n] = fcl_f4((b.x - a.x) / (float)dt, (b.y - a.y) / (float)dt, (b.z - a.z) / (float)dt, 0.0f);
        n++;
    }
    k->n = n;
    k->k.n = (uint)n;
    int rc = upload(k, s, changed, k->was);
    k->uploaded = rc == 0;
    return rc;
}

int control_steer(pbf_control *k, fcl_sim *s, fcl_buf *xold)
{
    fcl_backend *be = s->be;
    fcl_buf *pos = attr(&s->grid, s->a_pos), *cpos = attr(&k->grid, k->a_pos);
    if (k->n == 0)
        return 0;
    /* control.radius is live: the lists take this step's H (their
     * capacities grow when it brings more neighbors); the fluid's list
     * reaches the springs' d / 2 too where that is farther (control.spacing
     * over 2; the other sums stop at H). */
    float cell = s->grid.info.cell_size, r[2] = { fmaxf(k->k.H, sqrtf(k->k.spring_r2)), k->k.H };
    fcl_nlist_info *L[2] = { &k->fc.L, &k->cf.L };
    for (int i = 0; i < 2; i++) {
        L[i]->r = r[i];
        L[i]->r2 = r[i] * r[i];
        L[i]->reach = (uint)ceilf(r[i] / cell - 1e-6f);
    }
    if (nlist_one_build(&k->fc, be, pos, s->n, cpos, &k->grid, &s->c, s->error, sizeof s->error) != 0 ||
        nlist_one_build(&k->cf, be, cpos, k->n, pos, &s->grid, &s->c, s->error, sizeof s->error) != 0)
        return -1;
    return pass_control_steer(be, s->n, "control", pos, xold, attr(&s->grid, s->a_id), attr(&s->grid, k->a_ref),
                              attr(&s->grid, k->a_life), cpos, attr(&k->grid, k->a_vel), attr(&k->grid, k->a_id),
                              k->byid, k->fc.count, k->fc.idx, k->fc.L, s->solids, s->c, k->k);
}

int control_lambda(pbf_control *k, fcl_sim *s)
{
    if (k->n == 0)
        return 0;
    return pass_control_lambda(s->be, k->n, "control", attr(&k->grid, k->a_pos), attr(&s->grid, s->a_pos),
                               k->cf.count, k->cf.idx, k->cf.L, k->clam, k->k);
}

int control_density(pbf_control *k, fcl_sim *s, fcl_buf *dp)
{
    if (k->n == 0)
        return 0;
    return pass_control_density(s->be, s->n, "control", attr(&s->grid, s->a_pos), attr(&k->grid, k->a_pos),
                                k->fc.count, k->fc.idx, k->fc.L, k->clam, dp, k->k);
}
