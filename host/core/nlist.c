/* nlist.c - neighbor list launchers and their capacity checks
 * (kernels/nlist.cl). One build is: clear the overflow reports, one
 * nlist_build pass for the fluid list, one for the boundary list, read
 * both reports back in one read (four uints); on an overflow, grow and
 * build again.
 * Invariant: a list whose build reported an overflow is never used: it
 * is regrown and rebuilt, or the build returns -1 and the caller stops.
 */
#include "nlist.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "passes.h"

/* Lattice points strictly within r / d of a lattice point, itself
 * included: what a resting fluid particle finds. */
static double lattice_count(double r, double d)
{
    int k = (int)ceil(r / d);
    double n = 0.0, q2 = (r / d) * (r / d);
    for (int x = -k; x <= k; x++)
        for (int y = -k; y <= k; y++)
            for (int z = -k; z <= k; z++)
                n += (double)(x * x + y * y + z * z) < q2;
    return n;
}

/* A multiple of 4 entries (16-byte rows). */
static uint round4(double v)
{
    return (uint)(ceil(v / 4.0) * 4.0);
}

/* Compression of a few percent and disorder add neighbors: 1.5 times the
 * resting count covers a developed dam break (the lists grow when not).
 * Tight rows matter: at 2.5 times, the DFSPH iterations on the native
 * backend took 1.3x as long (README). */
uint nlist_capacity(double r, double d, long param)
{
    return param > 0 ? (uint)param : round4(1.5 * lattice_count(r, d));
}

/* One layer of boundary particles about a spacing apart: a wall within r
 * holds at most pi (r/d)^2 of them, a corner three walls' worth. */
uint nlist_boundary_capacity(double r, double d, long param)
{
    return param > 0 ? (uint)param : round4(1.5 * 3.0 * M_PI * (r / d) * (r / d));
}

size_t nlist_bytes_per_particle(uint cap, uint bcap)
{
    return (size_t)(cap + bcap + 2) * sizeof(uint);
}

static void layout(fcl_nlist_info *L, size_t n, float r, float cell, uint cap, int particle_major, int mirror)
{
    memset(L, 0, sizeof *L);
    L->r = r;
    L->r2 = r * r;
    L->cap = cap;
    L->pstride = particle_major ? cap : 1u;
    L->kstride = particle_major ? 1u : (uint)n;
    L->reach = (uint)ceil(r / cell - 1e-6);
    L->mirror = mirror ? 1u : 0u;
    L->n = (uint)n;
}

int nlist_addressable(size_t n, uint cap)
{
    return (double)n * cap < 4294967296.0 && n < (1u << NL_SHIFT);
}

static int addressable(size_t n, uint cap, const char *key, char *err, size_t errlen)
{
    if (nlist_addressable(n, cap))
        return 1;
    snprintf(err, errlen, "%s: %zu particles x %u entries exceed the 2^32 entries a list may address (and %lu "
             "particles); use fewer particles or a smaller capacity", key, n, cap, (unsigned long)1 << NL_SHIFT);
    return 0;
}

/* (Re)allocate one list's entries and planes: L->cap entries for each of
 * pcap particles. */
static int alloc_side(fcl_backend *be, const fcl_nlist_info *L, size_t pcap, fcl_buf **idx, fcl_nlist_planes *pl)
{
    size_t bytes = pcap * L->cap * 4 + 4;   /* +4: never zero-sized */
    be->ops->buf_free(be, *idx);
    *idx = be->ops->buf_new(be, bytes, "neighbor lists");
    int ok = *idx != NULL;
    for (int k = 0; k < pl->n; k++) {
        be->ops->buf_free(be, pl->buf[k]);
        pl->buf[k] = be->ops->buf_new(be, bytes, pl->what[k]);
        ok &= pl->buf[k] != NULL;
    }
    return ok ? 0 : -1;
}

int nlist_init(fcl_nlist *l, fcl_backend *be, size_t n, size_t nb, float r, float cell, uint cap, uint bcap,
               int particle_major, int images, char *err, size_t errlen)
{
    memset(l, 0, sizeof *l);
    l->pcap = n;
    uint bl = nb ? bcap : 0u;   /* no boundary list without boundary particles */
    if (!addressable(n, cap > bl ? cap : bl, bl > cap ? "neighbors.boundary_capacity" : "neighbors.capacity", err,
                     errlen))
        return -1;
    l->particle_major = particle_major;
    layout(&l->fl, n, r, cell, cap, particle_major, images & FCL_NLIST_FLUID_IMAGES);
    layout(&l->bl, n, r, cell, nb ? bcap : 0u, particle_major, images & FCL_NLIST_BOUNDARY_IMAGES);
    const fcl_backend_ops *o = be->ops;
    /* +4: no zero-sized buffers; an empty boundary list reads counts 0. */
    l->fcount = o->buf_new(be, n * 4 + 4, "neighbor counts");
    l->bcount = o->buf_new(be, n * 4 + 4, "boundary neighbor counts");
    l->over = o->buf_new(be, 4 * 4, "neighbor overflow reports");
    if (!l->fcount || !l->bcount || !l->over || alloc_side(be, &l->fl, n, &l->fidx, &l->fplanes) != 0 ||
        alloc_side(be, &l->bl, n, &l->bidx, &l->bplanes) != 0) {
        snprintf(err, errlen, "allocating neighbor lists of %u + %u entries for %zu particles on %s failed", cap,
                 l->bl.cap, n, be->name);
        return -1;
    }
    return 0;
}

int nlist_want_poly6_sum(fcl_nlist *l, fcl_backend *be)
{
    if (!l->wsum)
        l->wsum = be->ops->buf_new(be, l->pcap * 4 + 4, "neighbor kernel sums");
    return l->wsum ? 0 : -1;
}

void nlist_set_growth(fcl_nlist *l, int fluid, int boundary)
{
    l->fgrow = fluid;
    l->bgrow = boundary;
}

int nlist_add_plane(fcl_nlist *l, fcl_backend *be, int boundary, const char *what)
{
    fcl_nlist_planes *pl = boundary ? &l->bplanes : &l->fplanes;
    const fcl_nlist_info *L = boundary ? &l->bl : &l->fl;
    if (pl->n == FCL_NLIST_PLANES)
        return -1;
    pl->what[pl->n] = what;
    pl->buf[pl->n] = be->ops->buf_new(be, l->pcap * L->cap * 4 + 4, what);
    return pl->buf[pl->n] ? pl->n++ : -1;
}

fcl_buf *nlist_plane(const fcl_nlist *l, int boundary, int k)
{
    return (boundary ? &l->bplanes : &l->fplanes)->buf[k];
}

/* Report rep (max count, first particle) of one list: 0 when every
 * particle fit. */
static int check_overflow(fcl_nlist *l, fcl_backend *be, fcl_buf *ids, fcl_buf *count, const uint rep[2],
                          const char *what, const char *param, uint cap, char *err, size_t errlen)
{
    if (rep[0] == 0)
        return 0;
    l->overflowed = 1;
    /* rep[1] is the first particle over, rep[0] the largest count of any:
     * its own count is read, so the message does not pair the one with
     * the other (it said "particle 122 has 33" of one that had 31). */
    uint id = rep[1], own = rep[0];
    if (ids)
        be->ops->buf_read(be, ids, (size_t)rep[1] * 4, 4, &id);
    be->ops->buf_read(be, count, (size_t)rep[1] * 4, 4, &own);
    snprintf(err, errlen, "%s: particle %u has %u %s neighbors within %g m, more than the %u its list holds, and "
             "the most any particle has is %u (raise %s to at least that)", param, id, own, what, l->fl.r, cap,
             rep[0], param);
    return -1;
}

/* One list over its capacity: a larger one (1.25 x the largest count),
 * when allowed and it fits; 0 when grown, -1 when the capacity is fixed,
 * -3 when a larger list could not be addressed (err says so), -2 when
 * the device refused it. */
static int grow(fcl_nlist *l, fcl_backend *be, int boundary, uint count, char *err, size_t errlen)
{
    fcl_nlist_info *L = boundary ? &l->bl : &l->fl;
    uint cap = round4(1.25 * count);
    if (!(boundary ? l->bgrow : l->fgrow))
        return -1;
    if (!addressable(l->pcap, cap, boundary ? "neighbors.boundary_capacity" : "neighbors.capacity", err, errlen)) {
        l->overflowed = 1;   /* an input error, as an overflow: fewer particles help, a capacity does not */
        return -3;
    }
    /* Within half the device's memory: particles piled onto each other (a
     * blow-up clamped into a corner) once asked 49 GB of a 23 GB host. */
    const fcl_nlist_planes *pl = boundary ? &l->bplanes : &l->fplanes;
    double need = ((double)l->pcap * cap * 4.0 + 4.0) * (1 + pl->n);
    if (be->mem_bytes > 0 && need > 0.5 * (double)be->mem_bytes) {
        snprintf(err, errlen, "%s: growing the %s neighbor lists to %u entries for %zu particles would take %.0f "
                 "MiB, more than half of %s's %.0f MiB: a particle had %u neighbors (particles piled onto each "
                 "other: a numerical blow-up, or a scene whose blocks overlap)",
                 boundary ? "neighbors.boundary_capacity" : "neighbors.capacity", boundary ? "boundary" : "fluid",
                 cap, l->pcap, need / 1048576.0, be->name, (double)be->mem_bytes / 1048576.0, count);
        return -2;
    }
    L->cap = cap;
    L->pstride = l->particle_major ? cap : 1u;
    if (alloc_side(be, L, l->pcap, boundary ? &l->bidx : &l->fidx, boundary ? &l->bplanes : &l->fplanes) != 0) {
        snprintf(err, errlen, "%s: growing the %s neighbor lists to %u entries for %u particles failed on %s",
                 boundary ? "neighbors.boundary_capacity" : "neighbors.capacity", boundary ? "boundary" : "fluid",
                 cap, L->n, be->name);
        return -2;
    }
    l->grown++;
    fprintf(stderr, "fluidcl: note: %s neighbor lists grown to %u entries per particle (a particle had %u)\n",
            boundary ? "boundary" : "fluid", cap, count);
    return 0;
}

/* The boundary grid's near-cell flags, made again only after that grid
 * was rebuilt (boundary particles are placed once). */
static int boundary_near(fcl_nlist *l, fcl_backend *be, const fcl_grid *bgrid)
{
    if (l->bnear && l->bnear_builds == bgrid->builds)
        return 0;
    size_t cells = (size_t)bgrid->info.ncells;
    if (!l->bnear && !(l->bnear = be->ops->buf_new(be, cells * 4 + 4, "boundary near-cell flags")))
        return -1;
    l->bnear_builds = bgrid->builds;
    return pass_nlist_near(be, cells, "neighbors-boundary", bgrid->start, l->bnear, bgrid->info, l->bl);
}

/* One attempt: 0 built, 1 grown (build again), -1 failed. */
static int build_once(fcl_nlist *l, fcl_backend *be, fcl_buf *pos, const fcl_grid *g, fcl_buf *bpos,
                      const fcl_grid *bgrid, const fcl_sph_consts *c, fcl_buf *ids, char *err, size_t errlen)
{
    uint rep[4] = { 0, 0xffffffffu, 0, 0xffffffffu };
    if (be->ops->buf_write(be, l->over, 0, sizeof rep, rep) != 0 ||
        (l->wsum ? pass_nlist_build_sum(be, l->fl.n, "neighbors", pos, pos, g->start, l->fcount, l->fidx, l->over,
                                        0u, l->wsum, g->info, l->fl, *c)
                 : pass_nlist_build(be, l->fl.n, "neighbors", pos, pos, g->start, l->fcount, l->fidx, l->over, 0u,
                                    g->info, l->fl, *c)) != 0 ||
        (l->bl.cap && (boundary_near(l, be, bgrid) != 0 ||
                       pass_nlist_build_sparse(be, l->bl.n, "neighbors-boundary", pos, bpos, bgrid->start, l->bnear,
                                               l->bcount, l->bidx, l->over, 2u, bgrid->info, l->bl, *c) != 0)) ||
        be->ops->buf_read(be, l->over, 0, sizeof rep, rep) != 0) {
        snprintf(err, errlen, "building the neighbor lists on %s failed", be->name);
        return -1;
    }
    int grown = 0;
    for (int side = 0; side < 2; side++) {
        const uint *r = rep + 2 * side;
        if (r[0] == 0)
            continue;
        int rc = grow(l, be, side, r[0], err, errlen);
        if (rc == -1)
            rc = check_overflow(l, be, ids, side ? l->bcount : l->fcount, r, side ? "boundary" : "fluid",
                                side ? "neighbors.boundary_capacity" : "neighbors.capacity",
                                side ? l->bl.cap : l->fl.cap, err, errlen);
        if (rc != 0)
            return -1;
        grown = 1;
    }
    return grown;
}

int nlist_build(fcl_nlist *l, fcl_backend *be, fcl_buf *pos, const fcl_grid *g, fcl_buf *bpos,
                const fcl_grid *bgrid, const fcl_sph_consts *c, fcl_buf *ids, char *err, size_t errlen)
{
    *err = '\0';
    /* The grid's current count: particles may have been added since. */
    l->fl.n = l->bl.n = g->info.n;
    if (!l->particle_major)
        l->fl.kstride = l->bl.kstride = g->info.n;
    if (l->fl.n == 0 || l->fl.cap == 0)
        return 0;
    int rc;
    while ((rc = build_once(l, be, pos, g, bpos, bgrid, c, ids, err, errlen)) == 1) {
    }
    if (rc == 0)
        l->builds++;
    return rc;
}

void nlist_free(fcl_nlist *l, fcl_backend *be)
{
    fcl_buf *b[] = { l->fcount, l->fidx, l->bcount, l->bidx, l->over, l->wsum, l->bnear };
    for (size_t i = 0; i < sizeof b / sizeof b[0]; i++)
        be->ops->buf_free(be, b[i]);
    for (int k = 0; k < l->fplanes.n; k++)
        be->ops->buf_free(be, l->fplanes.buf[k]);
    for (int k = 0; k < l->bplanes.n; k++)
        be->ops->buf_free(be, l->bplanes.buf[k]);
    memset(l, 0, sizeof *l);
}

int nlist_one_init(fcl_nlist_one *x, fcl_backend *be, size_t pcap, float r, float cell, uint cap,
                   int particle_major, const char *timer, char *err, size_t errlen)
{
    memset(x, 0, sizeof *x);
    x->pcap = pcap;
    x->particle_major = particle_major;
    x->timer = timer;
    if (!addressable(pcap, cap, "neighbors.capacity", err, errlen))
        return -1;
    layout(&x->L, pcap, r, cell, cap, particle_major, 0);
    x->count = be->ops->buf_new(be, pcap * 4 + 4, "cross neighbor counts");
    x->over = be->ops->buf_new(be, 2 * 4, "cross neighbor overflow report");
    x->idx = be->ops->buf_new(be, pcap * cap * 4 + 4, "cross neighbor lists");
    if (!x->count || !x->over || !x->idx) {
        snprintf(err, errlen, "allocating %s lists of %u entries for %zu particles on %s failed", timer, cap, pcap,
                 be->name);
        return -1;
    }
    return 0;
}

int nlist_one_build(fcl_nlist_one *x, fcl_backend *be, fcl_buf *pos, size_t n, fcl_buf *qpos, const fcl_grid *qgrid,
                    const fcl_sph_consts *c, char *err, size_t errlen)
{
    x->L.n = (uint)n;
    if (!x->particle_major)
        x->L.kstride = (uint)n;
    if (n == 0)
        return 0;
    for (;;) {
        uint rep[2] = { 0, 0xffffffffu };
        if (be->ops->buf_write(be, x->over, 0, sizeof rep, rep) != 0 ||
            pass_nlist_build(be, n, x->timer, pos, qpos, qgrid->start, x->count, x->idx, x->over, 0u, qgrid->info,
                             x->L, *c) != 0 ||
            be->ops->buf_read(be, x->over, 0, sizeof rep, rep) != 0) {
            snprintf(err, errlen, "building the %s lists on %s failed", x->timer, be->name);
            return -1;
        }
        if (rep[0] == 0)
            return 0;
        uint cap = round4(1.25 * rep[0]);
        if (!addressable(x->pcap, cap, "neighbors.capacity", err, errlen))
            return -1;
        be->ops->buf_free(be, x->idx);
        x->idx = be->ops->buf_new(be, x->pcap * cap * 4 + 4, "cross neighbor lists");
        if (!x->idx) {
            snprintf(err, errlen, "growing the %s lists to %u entries for %zu particles failed on %s", x->timer, cap,
                     n, be->name);
            return -1;
        }
        x->L.cap = cap;
        x->L.pstride = x->particle_major ? cap : 1u;
    }
}

void nlist_one_free(fcl_nlist_one *x, fcl_backend *be)
{
    fcl_buf *b[] = { x->count, x->idx, x->over };
    for (size_t i = 0; i < sizeof b / sizeof b[0]; i++)
        be->ops->buf_free(be, b[i]);
    memset(x, 0, sizeof *x);
}
