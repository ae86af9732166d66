/* boundary.c - building the boundary samples of a scene: loading its
 * meshes, sampling walls and obstacles (sampler.c), and the sampling cache
 * keyed by a hash of everything the samples depend on (for mps, meshes
 * sampled with a wider gap and obstacle samples outside the domain
 * dropped: drop_outside). Carving the fluid is in boundary_carve.c.
 *
 * Invariant: the cache key covers every input of the sampler (the layer
 * count included, and a format number raised whenever the sampler
 * changes), so a cache file with the right name and a sound layout holds
 * exactly the samples we would compute.
 */
#include "boundary.h"
#include "atomic.h"
#include "budget.h"
#include "infile.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boundary_layers.h"
#include "solver.h"
#include "output.h"
#include "state.h"
#include "sampler.h"

/* Raise when the sampler or the file layout changes: old caches then miss.
 * 3: obstacles clipped (boundary_clip), the file's checksum; 4: meshes cut
 * keeping their shared vertices (boundary_mesh_clip); 5: mps under mirror
 * walls drops its samples outside the domain too (mirrors_samples); 6:
 * polygons in lattice planes sample on the fluid lattice (polygon_align);
 * 7: mps keeps one sample where obstacles meet (drop_coincident); 8: an
 * OBJ's concave faces ear-clipped, a mesh's inside by winding number (the
 * cache kept the fans' samples in an L cap's notch; a review). */
#define BOUNDARY_FORMAT 8
static const char cache_magic[8] = { 'F', 'C', 'L', 'B', 'N', 'D', '2', '\0' };

/* ---- the cache key: FNV-1a 64 over a canonical description */

static void fnv(uint64_t *h, const void *data, size_t len)
{
    *h = fcl_fnv1a(*h, data, len);
}

/* Numbers go in as %a (hexadecimal, exact), so equal inputs give equal
 * text and any change of a bit changes it. */
static void fnv_text(uint64_t *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fnv_text(uint64_t *h, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fnv(h, buf, n < 0 ? 0 : (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* The least distance between a mesh's surface samples, in spacings: half
 * a spacing for the solvers that weigh samples by volume (Akinci), which
 * fills the surface densely; about a lattice's spacing for mps, which
 * counts them as particles (boundary_tags): at half a spacing a fluid
 * particle beside a mesh cube read n* 57 % over n0 and the run blew up in
 * its second step, where a box of the same shape read 0.013 %; at 0.8 it
 * read 1.4 % and the glass scene ran with no particle inside the glass
 * (at 0.9, 109 were). */
static int counts_samples(const fcl_params *p)
{
    const fcl_solver *sv = solver_find(p->sim_solver);
    return sv && sv->boundary_tags;
}

int boundary_wall_particles(const fcl_params *p)
{
    const fcl_solver *sv = solver_find(p->sim_solver);
    return strcmp(p->boundary_walls, "particles") == 0 && !(sv && solver_reads_instead(sv, FCL_P_boundary_walls));
}

/* Under mirror walls the solver sees the samples' images (boundary_images),
 * which stand where the samples past the walls would. */
static int mirrors_samples(const fcl_params *p)
{
    const fcl_solver *sv = solver_find(p->sim_solver);
    return sv && sv->boundary_images && strcmp(p->boundary_walls, "mirror") == 0;
}

static double mesh_gap(const fcl_params *p)
{
    return counts_samples(p) ? 0.8 : 0.5;
}

/* For mps, which counts samples as particles: an obstacle's samples
 * outside the domain, or within half a spacing of its faces, go (the
 * walls' layers are there, their first half a spacing outside; a thin box
 * run out through the walls doubled them and mps blew up at step 263, the
 * same box cut at the walls ran; a box standing on the floor kept its
 * samples on the floor's plane, and the fluid in the corner beside it
 * started at n* = 1.039 n0: 0.17 m/s at step 1, 2.0 with wall unknowns).
 * Layer k keeps entries before from[k] (the walls'). */
static void drop_outside(boundary_stack *st, const size_t *from, int layers, const fcl_params *p)
{
    float reach = 0.5f * p->particles_spacing * (1.0f - 1e-3f);
    for (int k = 0; k < layers; k++) {
        size_t kept = from[k];
        for (size_t i = from[k]; i < st->n[k]; i++) {
            float4 q = st->pos[k][i];
            const float v[3] = { q.x, q.y, q.z };
            int in = 1;
            for (int a = 0; a < 3; a++)
                in &= v[a] >= p->domain_min[a] + reach && v[a] <= p->domain_max[a] - reach;
            if (in)
                st->pos[k][kept++] = q;
        }
        st->n[k] = kept;
    }
}

/* An obstacle sample at the place of another's (within a hundredth of a
 * spacing), keyed by position, then layer, then order. */
typedef struct sample_key {
    long long q[3];
    int layer;
    size_t at;
} sample_key;

static int cmp_sample_key(const void *a, const void *b)
{
    const sample_key *x = a, *y = b;
    for (int c = 0; c < 3; c++)
        if (x->q[c] != y->q[c])
            return x->q[c] < y->q[c] ? -1 : 1;
    if (x->layer != y->layer)
        return x->layer < y->layer ? -1 : 1;
    return x->at < y->at ? -1 : (x->at > y->at);
}

/* For mps, which counts samples as particles: obstacles that meet (two
 * boxes sharing a face, corridor_flood's polygons at their corners)
 * sample the same places, each once, so a fluid particle at the seam
 * counted them twice: n* 14.7 % over n0 beside two boxes sharing a face
 * (0.0 % for one box of that shape), 6.3-7.8 % along corridor_flood's
 * junctions, and a resting pool beside the two boxes moved at 2.51 m/s in
 * its first step (0.010 beside one; a review). One sample a place is
 * kept, the one of the lowest layer (the wall unknowns' layer 0 before a
 * dummy), first in scene order. Layer k's walls (before from[k]) stay. 0,
 * or -1 out of memory (nothing dropped). */
static int drop_coincident(boundary_stack *st, const size_t *from, int layers, double d)
{
    size_t total = 0, m = 0;
    for (int k = 0; k < layers; k++)
        total += st->n[k] - from[k];
    sample_key *key = malloc(total * sizeof *key + sizeof *key);
    unsigned char *gone = calloc(total + 1, 1);
    if (!key || !gone) {
        free(key), free(gone);
        return -1;
    }
    double inv = 100.0 / d;
    for (int k = 0; k < layers; k++)
        for (size_t i = from[k]; i < st->n[k]; i++, m++) {
            const float4 q = st->pos[k][i];
            key[m] = (sample_key){ { llround(q.x * inv), llround(q.y * inv), llround(q.z * inv) }, k, m };
        }
    qsort(key, total, sizeof *key, cmp_sample_key);
    for (size_t t = 1; t < total; t++)
        gone[key[t].at] = memcmp(key[t].q, key[t - 1].q, sizeof key[t].q) == 0;
    m = 0;
    for (int k = 0; k < layers; k++) {
        size_t kept = from[k];
        for (size_t i = from[k]; i < st->n[k]; i++, m++)
            if (!gone[m])
                st->pos[k][kept++] = st->pos[k][i];
        st->n[k] = kept;
    }
    free(key);
    free(gone);
    return 0;
}

/* For mps in wall particles: a box reaching a domain face (within half a
 * spacing, or through it) ends half a spacing inside it, on the first
 * plane of the fluid lattice, where the walls' samples continue from.
 * Sampled to the face, its face grid lay half a spacing off the lattice
 * along that axis, and with its samples on the face's plane dropped
 * (drop_outside) a fluid particle in the corner beside it read n* = 0.905
 * n0; kept, the corner beside a box standing on the floor read 1.039. */
static void box_to_walls(fcl_obstacle *o, const fcl_params *p)
{
    float h = 0.5f * p->particles_spacing;
    if (o->kind != FCL_SHAPE_BOX)
        return;
    for (int a = 0; a < 3; a++) {
        o->min[a] = o->min[a] < p->domain_min[a] + h ? p->domain_min[a] + h : o->min[a];
        o->max[a] = o->max[a] > p->domain_max[a] - h ? p->domain_max[a] - h : o->max[a];
    }
}

static void key_begin(uint64_t *h, const fcl_params *p)
{
    const float *lo = p->domain_min, *hi = p->domain_max;
    *h = FCL_FNV1A_BASIS;
    float clip[6];
    boundary_clip(p, clip);
    /* The walls as sampled: mac takes none under "particles" (a cache of
     * its walls from before would be read back otherwise). */
    fnv_text(h, "fluidcl boundary %d\nspacing %a\nwalls %s\nlayers %ld\ndomain %a %a %a %a %a %a\n", BOUNDARY_FORMAT,
             p->particles_spacing,
             strcmp(p->boundary_walls, "particles") == 0 && !boundary_wall_particles(p) ? "particles, unsampled"
                                                                                      : p->boundary_walls,
             (long)p->boundary_layers, lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
    fnv_text(h, "clip %a %a %a %a %a %a\n", clip[0], clip[1], clip[2], clip[3], clip[4], clip[5]);
    /* mps's samples (mesh_gap, drop_outside). Every cache written before
     * the last BOUNDARY_FORMAT misses and is sampled again; its file stays
     * in the cache folder (nothing prunes it). */
    if (counts_samples(p))
        fnv_text(h, "counted samples: mesh gap %a, none outside the domain or within half a spacing of it, boxes "
                 "at the walls ending on the lattice\n", mesh_gap(p));
}

static void key_obstacle(uint64_t *h, const fcl_obstacle *o, const char *bytes, size_t len)
{
    if (o->kind == FCL_SHAPE_BOX)
        fnv_text(h, "box %a %a %a %a %a %a\n", o->min[0], o->min[1], o->min[2], o->max[0], o->max[1], o->max[2]);
    else if (o->kind == FCL_SHAPE_SPHERE)
        fnv_text(h, "sphere %a %a %a %a\n", o->center[0], o->center[1], o->center[2], o->radius);
    else if (o->kind == FCL_SHAPE_POLYGON)
        for (int i = 0; i < o->npoly; i++)
            fnv_text(h, "%s %a %a %a%s", i ? "" : "polygon", o->poly[i][0], o->poly[i][1], o->poly[i][2],
                     i + 1 < o->npoly ? "," : "\n");
    if (o->kind == FCL_SHAPE_POLYGON)   /* its layers stop at its thickness */
        fnv_text(h, "thickness %a\n", o->thickness);
    else
        fnv_text(h, "mesh %a %a %a %a %zu\n", o->scale, o->translate[0], o->translate[1], o->translate[2], len);
    fnv(h, bytes, len);
}

/* ---- meshes */

/* x' = scale x + translate, then the mesh must reach into the domain. */
static int place_mesh(const fcl_scene *s, const fcl_params *p, int i, fcl_mesh *m, char *err, size_t errlen)
{
    const fcl_obstacle *o = &s->obstacles[i];
    float lo[3], hi[3];
    obj_place_exact(m, o->scale, o->translate);
    obj_bounds(m, lo, hi);
    char key[32];
    snprintf(key, sizeof key, "obstacles[%d]", i);
    /* A mesh under a spacing is a sample or two: it ran with next to no
     * effect and no word (scale 1e-5 for 1e-2, say; a review). */
    double span = fmax(fmax(hi[0] - lo[0], hi[1] - lo[1]), hi[2] - lo[2]);
    if (span < p->particles_spacing)
        fprintf(stderr, "fluidcl: note: %s: %s: the mesh %s at scale %g spans %.3g m, under particles.spacing %g m: "
                "it is a sample or two and holds back next to nothing (check its scale)\n", s->file, key, o->file,
                (double)o->scale, span, (double)p->particles_spacing);
    return scene_check_mesh_bounds(s, p, key, o->file, o->scale, lo, hi, err, errlen);
}

/* Copies the obstacles, loads the meshes and computes the cache key, which
 * needs every mesh file's bytes anyway. */
static int load_obstacles(const fcl_scene *s, const fcl_params *p, fcl_boundary *b, uint64_t *key,
                          char *err, size_t errlen)
{
    key_begin(key, p);
    b->obstacles = calloc((size_t)s->nobstacles + 1, sizeof *b->obstacles);
    b->meshes = calloc((size_t)s->nobstacles + 1, sizeof *b->meshes);
    if (!b->obstacles || !b->meshes) {
        snprintf(err, errlen, "%s: obstacles: out of memory", s->file);
        return -1;
    }
    b->nobstacles = s->nobstacles;
    for (int i = 0; i < s->nobstacles; i++) {
        const fcl_obstacle *o = &s->obstacles[i];
        b->obstacles[i] = *o;
        if (o->kind != FCL_SHAPE_MESH) {
            key_obstacle(key, o, NULL, 0);
            continue;
        }
        char *text;
        size_t len;
        char why[1200];
        if (obj_read(o->file, infile_limit(p), &text, &len, why, sizeof why) != 0) {
            snprintf(err, errlen, "%s: obstacles[%d].file: %s", s->file, i, why);
            return -1;
        }
        key_obstacle(key, o, text, len);
        int rc = obj_parse(text, len, o->file, &b->meshes[i], why, sizeof why);
        free(text);
        if (rc != 0) {   /* why names FILE:LINE; the scene and key first */
            snprintf(err, errlen, "%s: obstacles[%d].file: %s", s->file, i, why);
            return -1;
        }
        if (place_mesh(s, p, i, &b->meshes[i], err, errlen) != 0)
            return -1;
    }
    return 0;
}

/* ---- sampling */

/* A mesh's least samples and its candidates, over the part of it the
 * sampler takes (cut to the clip: a mesh 100 times the domain was refused
 * for the samples the cut then dropped). -1 when out of memory. */
static int mesh_counts(const fcl_mesh *m, const fcl_params *p, const float *clip, double *least, double *cand)
{
    fcl_mesh cut;
    int same;
    if (boundary_mesh_clip(m, clip, &cut, &same) != 0)
        return -1;
    *least = sampler_mesh_min(same ? m : &cut, (float)p->particles_spacing, mesh_gap(p));
    *cand = sampler_mesh_candidates(same ? m : &cut, (float)p->particles_spacing);
    if (!same)
        obj_free(&cut);
    return 0;
}

/* Before any sampling: the meshes' least samples, with the walls and the
 * other obstacles (about as many as `others`), within max_samples. */
static int check_room(const fcl_scene *s, const fcl_params *p, const fcl_boundary *b, double others,
                      size_t max_samples, char *err, size_t errlen)
{
    double total = others, d = p->particles_spacing, least, cand;
    float clip[6];
    boundary_clip(p, clip);
    for (int i = 0; i < b->nobstacles; i++) {
        if (b->obstacles[i].kind != FCL_SHAPE_MESH)
            continue;
        if (mesh_counts(&b->meshes[i], p, clip, &least, &cand) != 0) {
            snprintf(err, errlen, "%s: obstacles[%d]: the mesh %s: out of memory cutting it to the domain", s->file,
                     i, b->obstacles[i].file);
            return -1;
        }
        if (cand >= 2147483648.0) {
            snprintf(err, errlen, "%s: obstacles[%d]: the mesh %s at scale %g takes at least %.3g boundary particles "
                     "at particles.spacing %g m, thinned from %.3g candidate points, more than the sampler's 2^31: "
                     "expected a larger spacing or a smaller scale", s->file, i, b->obstacles[i].file,
                     (double)b->obstacles[i].scale, least, d, cand);
            return -1;
        }
        total += least;
        if (total > (double)max_samples) {
            snprintf(err, errlen, "%s: obstacles[%d]: the mesh %s at scale %g takes at least %.3g boundary particles "
                     "at particles.spacing %g m, and the device has room for %zu in all (walls and other obstacles: "
                     "%.3g): expected a larger spacing or a smaller scale", s->file, i, b->obstacles[i].file,
                     (double)b->obstacles[i].scale, least, d, max_samples, total - least);
            return -1;
        }
    }
    return 0;
}

/* Layer 0 of the stack, then layer 1, ... into b->pos, w = the layer. */
static int stack_join(boundary_stack *st, fcl_boundary *b)
{
    size_t total = 0, at = 0;
    for (int k = 0; k < b->layers; k++)
        total += st->n[k];
    b->pos = malloc(total * sizeof *b->pos + sizeof *b->pos);
    if (!b->pos)
        return -1;
    for (int k = 0; k < b->layers; k++) {
        for (size_t i = 0; i < st->n[k]; i++)
            b->pos[at + i] = fcl_f4(st->pos[k][i].x, st->pos[k][i].y, st->pos[k][i].z, (float)k);
        at += st->n[k];
        b->nlayer[k] = st->n[k];
    }
    b->n = total;
    return 0;
}

/* Per layer: the walls (if sampled) first, then the obstacles in scene
 * order. */
static int sample_all(const fcl_scene *s, const fcl_params *p, fcl_boundary *b, char *err, size_t errlen)
{
    float d = p->particles_spacing;
    boundary_stack st = { 0 };
    if (boundary_wall_particles(p) && boundary_sample_walls(p, b->layers, &st) != 0) {
        snprintf(err, errlen, "%s: boundary.walls: not enough memory for the wall particles at spacing %g",
                 s->file, d);
        boundary_stack_free(&st);
        return -1;
    }
    size_t walls[FCL_BOUNDARY_LAYERS_MAX];
    memcpy(walls, st.n, sizeof walls);
    int counted = counts_samples(p) && (boundary_wall_particles(p) || mirrors_samples(p));
    float clip[6];
    boundary_clip(p, clip);
    for (int i = 0; i < b->nobstacles; i++) {
        fcl_obstacle o = b->obstacles[i];
        if (counted)
            box_to_walls(&o, p);
        if (boundary_sample_obstacle(&o, &b->meshes[i], d, mesh_gap(p), b->layers, p->domain_min, p->domain_max,
                                     clip, &st) != 0) {
            snprintf(err, errlen, "%s: obstacles[%d]: not enough memory to sample it at spacing %g%s%s", s->file,
                     i, d, b->obstacles[i].kind == FCL_SHAPE_MESH ? " (or more than 2^31 candidates) from " : "",
                     b->obstacles[i].kind == FCL_SHAPE_MESH ? b->obstacles[i].file : "");
            boundary_stack_free(&st);
            return -1;
        }
    }
    if (counted)
        drop_outside(&st, walls, b->layers, p);
    if (counts_samples(p) && drop_coincident(&st, walls, b->layers, d) != 0) {
        snprintf(err, errlen, "%s: boundary.layers: not enough memory to join the obstacles' samples at spacing %g",
                 s->file, d);
        boundary_stack_free(&st);
        return -1;
    }
    int rc = stack_join(&st, b);
    boundary_stack_free(&st);
    if (rc != 0)
        snprintf(err, errlen, "%s: boundary.layers: not enough memory for the boundary particles at spacing %g",
                 s->file, d);
    return rc;
}

/* ---- the cache file */

int boundary_cache_dir(const fcl_params *p, char *dir, size_t len)
{
    const char *c = p->boundary_cache_dir, *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    if (strcmp(c, "off") == 0)
        return -1;
    if (*c)
        n = snprintf(dir, len, "%s", c);
    else if (xdg && xdg[0] == '/')   /* the XDG spec ignores relative paths */
        n = snprintf(dir, len, "%s/fluidcl", xdg);
    else if (home && *home)
        n = snprintf(dir, len, "%s/.cache/fluidcl", home);
    else
        return -1;
    return n > 0 && (size_t)n < len ? 0 : -1;
}

/* 0 with the samples in b, or -1 for a missing, short, long or otherwise
 * unsound file, which the caller then replaces. */
static int cache_read(const char *path, fcl_boundary *b)
{
    /* A regular file only: fopen of a FIFO would block the run. */
    struct stat pre;
    if (stat(path, &pre) != 0 || !S_ISREG(pre.st_mode))
        return -1;
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    unsigned char head[16];
    uint64_t count = 0;
    struct stat st;
    int ok = fread(head, 1, sizeof head, f) == sizeof head && memcmp(head, cache_magic, 8) == 0 &&
             fstat(fileno(f), &st) == 0;
    if (ok) {
        memcpy(&count, head + 8, 8);
        /* At most what a sampling may make (BUDGET_INDEX_MAX): the
         * counts downstream are 32-bit. */
        ok = (double)count <= BUDGET_INDEX_MAX && (uint64_t)st.st_size == 16 + 16 * count + 8;
    }
    float4 *pos = ok ? malloc((size_t)count * sizeof *pos + sizeof *pos) : NULL;
    uint64_t sum = 0;
    ok = pos && fread(pos, sizeof *pos, (size_t)count, f) == count && fread(&sum, 8, 1, f) == 1 &&
         sum == fcl_fnv1a(FCL_FNV1A_BASIS, pos, (size_t)count * sizeof *pos);
    fclose(f);
    /* Layer tags run 0, 1, ... in order, each below b->layers. */
    size_t nlayer[FCL_BOUNDARY_LAYERS_MAX] = { 0 };
    for (uint64_t i = 0; ok && i < count; i++) {
        float w = pos[i].w;
        ok = isfinite(pos[i].x) && isfinite(pos[i].y) && isfinite(pos[i].z) && w >= 0.0f && w < (float)b->layers &&
             w == floorf(w) && (i == 0 || w >= pos[i - 1].w);
        if (ok)
            nlayer[(int)w]++;
    }
    if (!ok) {
        free(pos);
        return -1;
    }
    b->pos = pos;
    b->n = (size_t)count;
    memcpy(b->nlayer, nlayer, sizeof nlayer);
    return 0;
}

static void cache_warn(const char *what, const char *why)
{
    fprintf(stderr, "fluidcl: warning: boundary cache not written: %s%s%s\n", what, *why ? ": " : "", why);
}

/* Written atomically (io/atomic.h), so no reader ever sees half a file.
 * 0, or -1 after the warning. */
static int cache_write(const char *dir, const char *path, const fcl_boundary *b)
{
    char msg[4400];
    if (out_prepare_dir(dir, msg, sizeof msg) != 0) {
        cache_warn(msg, "");
        return -1;
    }
    /* A private temporary: two runs may fill the same cache at once. */
    fcl_atomic a;
    if (atomic_open(&a, path, 1, msg, sizeof msg) != 0) {
        cache_warn(msg, "");
        return -1;
    }
    /* The samples' checksum last: a sample moved inside the file once
     * carved a fluid particle out, run after run (a review). */
    uint64_t count = b->n, sum = fcl_fnv1a(FCL_FNV1A_BASIS, b->pos, b->n * sizeof *b->pos);
    int ok = fwrite(cache_magic, 1, 8, a.fp) == 8 && fwrite(&count, 8, 1, a.fp) == 1 &&
             fwrite(b->pos, sizeof *b->pos, b->n, a.fp) == b->n && fwrite(&sum, 8, 1, a.fp) == 1;
    if (!ok)
        snprintf(msg, sizeof msg, "write to '%s' failed: %s", a.tmp, strerror(errno));
    if (atomic_commit(&a, ok, 0, msg, sizeof msg) != 0) {
        cache_warn(path, msg);
        return -1;
    }
    return 0;
}

/* ---- public */

int boundary_build(const fcl_scene *s, const fcl_params *p, fcl_boundary *b, char *err, size_t errlen)
{
    return boundary_build_max(s, p, SIZE_MAX, 0.0, b, err, errlen);
}

int boundary_build_max(const fcl_scene *s, const fcl_params *p, size_t max_samples, double others, fcl_boundary *b,
                       char *err, size_t errlen)
{
    uint64_t key;
    char dir[1024];
    memset(b, 0, sizeof *b);
    b->spacing = p->particles_spacing;
    b->layers = (int)p->boundary_layers;
    b->grow_spheres = !counts_samples(p);
    if (b->layers < 1 || b->layers > FCL_BOUNDARY_LAYERS_MAX) {
        snprintf(err, errlen, "%s: boundary.layers: expected 1 to %d, got %d", s->file, FCL_BOUNDARY_LAYERS_MAX,
                 b->layers);
        return -1;
    }
    if (load_obstacles(s, p, b, &key, err, errlen) != 0) {
        boundary_free(b);
        return -1;
    }
    int caching = boundary_cache_dir(p, dir, sizeof dir) == 0;
    if (caching) {
        int n = snprintf(b->cache_file, sizeof b->cache_file, "%s/boundary-%016" PRIx64 ".bin", dir, key);
        caching = n > 0 && (size_t)n < sizeof b->cache_file;
        if (!caching)
            b->cache_file[0] = '\0';
    }
    if (caching && cache_read(b->cache_file, b) == 0) {
        b->from_cache = 1;
        return 0;
    }
    if (check_room(s, p, b, others, max_samples, err, errlen) != 0 || sample_all(s, p, b, err, errlen) != 0) {
        boundary_free(b);
        return -1;
    }
    /* Not written: no file to name (the run said "cached in" it right
     * after the warning; a review). */
    if (caching && cache_write(dir, b->cache_file, b) != 0)
        b->cache_file[0] = '\0';
    return 0;
}

void boundary_free(fcl_boundary *b)
{
    for (int i = 0; b->meshes && i < b->nobstacles; i++)
        obj_free(&b->meshes[i]);
    free(b->meshes);
    free(b->obstacles);
    free(b->pos);
    memset(b, 0, sizeof *b);
}
