/* nlist.c - neighbor list launchers and their capacity checks
 * (kernels/nlist.cl). One build is: clear the overflow reports, one
 * nlist_build pass for the fluid list, one for the boundary list, read
 * both reports back in one read (four uints).
 * Invariant: a list whose build reported an overflow is never used: the
 * build returns -1 and the caller stops the run.
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

/* Compression to a few percent and wall images add neighbors; 2.5x the
 * resting count leaves room for splashes piling up against a wall. */
uint nlist_capacity(double r, double d, long param)
{
    return param > 0 ? (uint)param : (uint)ceil(2.5 * lattice_count(r, d));
}

/* One layer of boundary particles about a spacing apart: a wall within r
 * holds at most pi (r/d)^2 of them, a corner three walls' worth. */
uint nlist_boundary_capacity(double r, double d, long param)
{
    return param > 0 ? (uint)param : (uint)ceil(1.5 * 3.0 * M_PI * (r / d) * (r / d));
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

int nlist_init(fcl_nlist *l, fcl_backend *be, size_t n, size_t nb, float r, float cell, uint cap, uint bcap,
               int particle_major, int mirror, char *err, size_t errlen)
{
    memset(l, 0, sizeof *l);
    /* Entries are addressed with 32-bit arithmetic on the device. */
    if ((double)n * (cap > bcap ? cap : bcap) >= 4294967296.0 || n >= (1u << 29)) {
        snprintf(err, errlen, "neighbors.capacity: %zu particles x %u entries exceed the 2^32 entries a list "
                 "may address (and 2^29 particles); use fewer particles or a smaller capacity", n,
                 cap > bcap ? cap : bcap);
        return -1;
    }
    layout(&l->fl, n, r, cell, cap, particle_major, mirror);
    layout(&l->bl, n, r, cell, nb ? bcap : 0u, particle_major, 0);
    const fcl_backend_ops *o = be->ops;
    /* +4: no zero-sized buffers; an empty boundary list reads counts 0. */
    l->fcount = o->buf_new(be, n * 4 + 4, "neighbor counts");
    l->fidx = o->buf_new(be, n * cap * 4 + 4, "neighbor lists");
    l->bcount = o->buf_new(be, n * 4 + 4, "boundary neighbor counts");
    l->bidx = o->buf_new(be, n * l->bl.cap * 4 + 4, "boundary neighbor lists");
    l->over = o->buf_new(be, 4 * 4, "neighbor overflow reports");
    if (!l->fcount || !l->fidx || !l->bcount || !l->bidx || !l->over) {
        snprintf(err, errlen, "allocating neighbor lists of %u + %u entries for %zu particles on %s failed", cap,
                 l->bl.cap, n, be->name);
        return -1;
    }
    return 0;
}

/* Report rep (max count, first particle) of one list: 0 when every
 * particle fit. */
static int check_overflow(const fcl_nlist *l, fcl_backend *be, fcl_buf *ids, const uint rep[2], const char *what,
                          const char *param, uint cap, char *err, size_t errlen)
{
    if (rep[0] == 0)
        return 0;
    uint id = rep[1];
    if (ids)
        be->ops->buf_read(be, ids, (size_t)rep[1] * 4, 4, &id);
    snprintf(err, errlen, "%s: particle %u has %u %s neighbors within %g m, more than the %u its list holds "
             "(raise %s)", param, id, rep[0], what, l->fl.r, cap, param);
    return -1;
}

int nlist_build(fcl_nlist *l, fcl_backend *be, fcl_buf *pos, const fcl_grid *g, fcl_buf *bpos,
                const fcl_grid *bgrid, const fcl_sph_consts *c, fcl_buf *ids, char *err, size_t errlen)
{
    *err = '\0';
    if (l->fl.n == 0)
        return 0;
    uint rep[4] = { 0, 0xffffffffu, 0, 0xffffffffu };
    if (be->ops->buf_write(be, l->over, 0, sizeof rep, rep) != 0 ||
        pass_nlist_build(be, l->fl.n, "neighbors", pos, pos, g->start, l->fcount, l->fidx, l->over, 0u, g->info,
                         l->fl, *c) != 0 ||
        (l->bl.cap && pass_nlist_build(be, l->bl.n, "neighbors", pos, bpos, bgrid->start, l->bcount, l->bidx,
                                       l->over, 2u, bgrid->info, l->bl, *c) != 0) ||
        be->ops->buf_read(be, l->over, 0, sizeof rep, rep) != 0) {
        snprintf(err, errlen, "building the neighbor lists on %s failed", be->name);
        return -1;
    }
    if (check_overflow(l, be, ids, rep, "fluid", "neighbors.capacity", l->fl.cap, err, errlen) != 0 ||
        check_overflow(l, be, ids, rep + 2, "boundary", "neighbors.boundary_capacity", l->bl.cap, err, errlen) != 0)
        return -1;
    l->builds++;
    return 0;
}

void nlist_free(fcl_nlist *l, fcl_backend *be)
{
    fcl_buf *b[] = { l->fcount, l->fidx, l->bcount, l->bidx, l->over };
    for (size_t i = 0; i < sizeof b / sizeof b[0]; i++)
        be->ops->buf_free(be, b[i]);
    memset(l, 0, sizeof *l);
}
