/* control_sample_cache.c - the cache of control samplings (layout in
 * control_sample.h), after the boundary sampling cache (boundary.c): a
 * file named by a 64-bit FNV-1a of everything the sampler reads, written
 * atomically, and checked field by field when read back.
 *
 * Invariant: a file is used only when its key, voxel size, sizes and
 * contents are consistent with what ctl_sample_mesh would produce (each
 * particle inside its voxel, labels and counts agreeing, one particle per
 * labelled voxel); anything else is recomputed and the file replaced.
 */
#include "control_sample.h"
#include "atomic.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "output.h"
#include "state.h"

/* Raise when the sampler or the file layout changes: old files then miss.
 * 2: a checksum of the arrays after them (a particle moved within its
 * voxel passed every field's check). */
#define CTL_CACHE_FORMAT 2
static const char ctl_magic[8] = { 'F', 'C', 'L', 'C', 'T', 'L', '2', '\0' };

typedef struct head {
    char magic[8];
    uint64_t key, n, nsurface, ninterior;
    double origin[3], voxel;
    int32_t dims[3], zero;
} head;

static void fnv(uint64_t *h, const void *data, size_t len)
{
    *h = fcl_fnv1a(*h, data, len);
}

/* The FNV-1a of the labels, positions and voxels, as the file holds them. */
static uint64_t arrays_sum(const fcl_ctl_points *p, size_t nvox)
{
    uint64_t h = FCL_FNV1A_BASIS;
    fnv(&h, p->label, nvox);
    fnv(&h, p->pos, p->n * sizeof *p->pos);
    fnv(&h, p->voxel_of, p->n * sizeof *p->voxel_of);
    return h;
}

/* The voxel size as %a (exact), the mesh as its raw arrays. */
static uint64_t cache_key(const fcl_mesh *m, double voxel)
{
    char text[256];
    uint64_t h = FCL_FNV1A_BASIS;
    int n = snprintf(text, sizeof text, "fluidcl control sampling %d\nvoxel %a\nmesh %zu %zu\n", CTL_CACHE_FORMAT,
                     voxel, m->nv, m->ntri);
    fnv(&h, text, (size_t)n);
    fnv(&h, m->v, 3 * m->nv * sizeof *m->v);
    fnv(&h, m->tri, 3 * m->ntri * sizeof *m->tri);
    return h;
}

/* Header fields sound by themselves and against the file's size. */
static int head_ok(const head *h, uint64_t key, double voxel, long long size, size_t *nvox)
{
    if (memcmp(h->magic, ctl_magic, 8) != 0 || h->key != key || h->voxel != voxel || h->zero != 0)
        return 0;
    double count = 1.0;
    for (int k = 0; k < 3; k++) {
        if (h->dims[k] < 1 || !isfinite(h->origin[k]))
            return 0;
        count *= h->dims[k];
    }
    if (count > (double)CTL_MAX_VOXELS || h->n != h->nsurface + h->ninterior || h->n > (uint64_t)count)
        return 0;
    *nvox = (size_t)count;
    return (uint64_t)size == sizeof *h + *nvox + h->n * (sizeof(float4) + sizeof(uint32_t)) + sizeof(uint64_t);
}

/* Particle i lies in its voxel (a hair of slack for float rounding) and
 * that voxel has the label its kind needs and no other particle. */
static int particle_ok(const fcl_ctl_points *p, size_t i, size_t nvox, unsigned char *seen)
{
    uint32_t v = p->voxel_of[i], d0 = (uint32_t)p->dims[0], d1 = (uint32_t)p->dims[1];
    const float4 *q = &p->pos[i];
    if (v >= nvox || seen[v] || q->w != 0.0f)
        return 0;
    seen[v] = 1;
    if (p->label[v] != (i < p->nsurface ? CTL_VOXEL_SURFACE : CTL_VOXEL_INTERIOR))
        return 0;
    double x[3] = { q->x, q->y, q->z }, c[3] = { v % d0, v / d0 % d1, v / (d0 * d1) };
    for (int k = 0; k < 3; k++) {
        double lo = p->origin[k] + c[k] * p->voxel, slack = 1e-5 * p->voxel;
        if (!(x[k] >= lo - slack && x[k] <= lo + p->voxel + slack))
            return 0;
    }
    return 1;
}

static int contents_ok(const fcl_ctl_points *p, size_t nvox)
{
    size_t ns = 0, ni = 0;
    for (size_t v = 0; v < nvox; v++) {
        if (p->label[v] > CTL_VOXEL_CROSSED)
            return 0;
        ns += p->label[v] == CTL_VOXEL_SURFACE;
        ni += p->label[v] == CTL_VOXEL_INTERIOR;
    }
    if (ns != p->nsurface || ni != p->ninterior)
        return 0;
    unsigned char *seen = calloc(nvox, 1);
    int ok = seen != NULL;
    for (size_t i = 0; ok && i < p->n; i++)
        ok = particle_ok(p, i, nvox, seen);
    free(seen);
    return ok;
}

/* 0 with the points in *p, or -1 for a missing or unsound file. */
static int cache_read(const char *path, uint64_t key, double voxel, fcl_ctl_points *p)
{
    /* A regular file only, as the boundary cache's: fopen of a FIFO
     * would block the run. */
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return -1;
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    head h;
    size_t nvox = 0;
    uint64_t sum = 0;
    int ok = fread(&h, sizeof h, 1, f) == 1 && fstat(fileno(f), &st) == 0 &&
             head_ok(&h, key, voxel, (long long)st.st_size, &nvox);
    if (ok) {
        p->n = (size_t)h.n, p->nsurface = (size_t)h.nsurface, p->ninterior = (size_t)h.ninterior;
        memcpy(p->origin, h.origin, sizeof h.origin);
        p->voxel = h.voxel;
        for (int k = 0; k < 3; k++)
            p->dims[k] = h.dims[k];
        p->label = malloc(nvox);
        p->pos = malloc(p->n * sizeof *p->pos + sizeof *p->pos);
        p->voxel_of = malloc(p->n * sizeof *p->voxel_of + sizeof *p->voxel_of);
        ok = p->label && p->pos && p->voxel_of && fread(p->label, 1, nvox, f) == nvox &&
             fread(p->pos, sizeof *p->pos, p->n, f) == p->n &&
             fread(p->voxel_of, sizeof *p->voxel_of, p->n, f) == p->n && fread(&sum, sizeof sum, 1, f) == 1 &&
             sum == arrays_sum(p, nvox) && contents_ok(p, nvox);
    }
    fclose(f);
    if (!ok)
        ctl_points_free(p);
    return ok ? 0 : -1;
}

static void cache_warn(const char *what)
{
    fprintf(stderr, "fluidcl: warning: control sampling cache not written: %s\n", what);
}

/* Through io/atomic.h with a private temporary: two runs may fill the
 * same cache at once, and a reader never sees half a file. */
static void cache_write(const char *dir, const char *path, uint64_t key, const fcl_ctl_points *p)
{
    char msg[4400];
    fcl_atomic a;
    if (out_prepare_dir(dir, msg, sizeof msg) != 0 || atomic_open(&a, path, 1, msg, sizeof msg) != 0) {
        cache_warn(msg);
        return;
    }
    head h = { { 0 }, key, p->n, p->nsurface, p->ninterior, { p->origin[0], p->origin[1], p->origin[2] },
               p->voxel, { p->dims[0], p->dims[1], p->dims[2] }, 0 };
    memcpy(h.magic, ctl_magic, 8);
    size_t nvox = (size_t)p->dims[0] * p->dims[1] * p->dims[2];
    uint64_t sum = arrays_sum(p, nvox);
    int ok = fwrite(&h, sizeof h, 1, a.fp) == 1 && fwrite(p->label, 1, nvox, a.fp) == nvox &&
             fwrite(p->pos, sizeof *p->pos, p->n, a.fp) == p->n &&
             fwrite(p->voxel_of, sizeof *p->voxel_of, p->n, a.fp) == p->n && fwrite(&sum, sizeof sum, 1, a.fp) == 1;
    if (!ok)
        snprintf(msg, sizeof msg, "write to '%s' failed: %s", a.tmp, strerror(errno));
    if (atomic_commit(&a, ok, 0, msg, sizeof msg) != 0)
        cache_warn(msg);
}

int ctl_sample_cached(const fcl_mesh *m, double voxel, const char *cache_dir, size_t max_points,
                      fcl_ctl_points *out, int *from_cache, char *err, size_t errlen)
{
    char path[4200];
    uint64_t key = cache_key(m, voxel);
    int caching = cache_dir && *cache_dir && strcmp(cache_dir, "off") != 0;
    if (from_cache)
        *from_cache = 0;
    memset(out, 0, sizeof *out);
    if (caching) {
        int n = snprintf(path, sizeof path, "%s/control-%016" PRIx64 ".bin", cache_dir, key);
        caching = n > 0 && (size_t)n < sizeof path;
    }
    if (caching && cache_read(path, key, voxel, out) == 0) {
        if (max_points && out->n > max_points) {
            snprintf(err, errlen, "control sampling: %zu control particles (cached in %s) at a voxel size of %g m, "
                     "more than the %zu the device's memory takes: expected a smaller target or a larger "
                     "control.spacing (the voxel, in control radii H)", (size_t)out->n, path, voxel, max_points);
            ctl_points_free(out);
            return -1;
        }
        if (from_cache)
            *from_cache = 1;
        return 0;
    }
    if (ctl_sample_mesh_max(m, voxel, CTL_SAMPLE_AVERAGE, max_points, out, err, errlen) != 0)
        return -1;
    if (caching)
        cache_write(cache_dir, path, key, out);
    return 0;
}
