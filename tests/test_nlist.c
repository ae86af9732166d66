/* test_nlist.c - the per-step neighbor lists (kernels/nlist.cl,
 * host/core/nlist.c) against brute force, on both backends and both layouts.
 *
 * For every case the list of each particle must equal, entry for entry
 * and in order, the brute-force list: for each wall image in
 * image_mask order, every candidate j in sorted order whose (mirrored)
 * position is closer than the query radius, stored as j | mask << NL_SHIFT.
 * Cases: 0 and 1 particle, all particles in one cell, random particles
 * with some exactly on the domain faces, mirror walls on and off, query
 * radii of 0.5, 1 and 2 cells, a boundary set, with and without its wall
 * images (FCL_NLIST_BOUNDARY_IMAGES: mps's), slabs shallower than two
 * and than one query radius, whose images (across both walls, and
 * shifted) are also counted independently of walls.h; a capacity below the
 * largest count must be reported (message naming the parameter) with the
 * first `cap` entries of every particle exact (an entry written past a
 * capacity would land in another particle's entries, in either layout,
 * and fail that comparison); where growth is allowed (default
 * capacities), the same case must grow the lists until every particle
 * fits and then match brute force in full. The two
 * backends must give identical lists (order included) for the same input,
 * and so must OpenCL built with the GPU variant of the builder (the
 * direct walk; FCL_OPENCL_GPU_CODE).
 * Exact comparisons: the builder and the brute force evaluate the same
 * float expressions.
 */
#include <string.h>

#include "../kernels/fcl_common.h"
#include "../kernels/fcl_types.h"
#include "../kernels/walls.h"
#include "fcl_test.h"
#include "grid.h"
#include "nlist.h"

enum { SHIFT = NL_SHIFT };

typedef struct lists {
    uint *count, *idx;      /* logical layout: particle i's entries at i * cap */
    uint cap;
    size_t n;
} lists;

/* A grid of the given positions (sorted in place to the grid's order). */
static int make_grid(fcl_backend *be, fcl_grid *g, int *pa, float4 *p, size_t n, const fcl_sph_consts *c, float cell)
{
    fcl_grid_info info;
    char err[256];
    float lo[3] = { c->domain_min.x, c->domain_min.y, c->domain_min.z };
    float hi[3] = { c->domain_max.x, c->domain_max.y, c->domain_max.z };
    if (grid_layout(&info, lo, hi, cell, n, err, sizeof err) != 0 || grid_init(g, be, &info) != 0 ||
        (*pa = grid_add_attr(g, be, "pos", 16)) < 0)
        return -1;
    if (n && (be->ops->buf_write(be, g->attr[*pa].cur, 0, n * 16, p) != 0 || grid_build(g, be, *pa) != 0 ||
              be->ops->buf_read(be, g->attr[*pa].cur, 0, n * 16, p) != 0))
        return -1;
    return 0;
}

/* Brute force of particle i's list (see the banner); returns the count. */
static uint brute(const float4 *p, size_t n, const float4 *q, size_t nq, size_t i, const fcl_nlist_info *L,
                  int images, const fcl_sph_consts *c, uint *out, uint cap)
{
    fcl_images img;
    uint near = near_walls_within(p[i], c, L->r, &img), k = 0;
    (void)n;
    if (!images)
        near = 0x111u;
    for (uint m = 0; m < image_count(near); m++)
        for (size_t j = 0; j < nq; j++) {
            float4 v = mirror(q[j], image_mask(near, m), img);
            float dx = p[i].x - v.x, dy = p[i].y - v.y, dz = p[i].z - v.z;
            if (dx * dx + dy * dy + dz * dz >= L->r2)
                continue;
            if (k < cap)
                out[k] = (uint)j | (image_mask(near, m) << SHIFT);
            k++;
        }
    return k;
}

/* The device lists in logical layout. */
static void download(fcl_backend *be, const fcl_nlist_info *L, fcl_buf *count, fcl_buf *idx, lists *out)
{
    size_t n = L->n, total = n * L->cap;
    uint *raw = malloc(total * 4 + 4);
    out->count = malloc(n * 4 + 4);
    out->idx = calloc(total + 1, 4);
    out->cap = L->cap;
    out->n = n;
    be->ops->buf_read(be, count, 0, n * 4, out->count);
    be->ops->buf_read(be, idx, 0, total * 4, raw);
    for (size_t i = 0; i < n; i++)
        for (uint k = 0; k < L->cap && k < out->count[i]; k++)
            out->idx[i * L->cap + k] = raw[i * L->pstride + k * L->kstride];
    free(raw);
}

static void lists_free(lists *l)
{
    free(l->count);
    free(l->idx);
}

/* Every particle's stored entries equal brute force's first cap ones and
 * its count the true count, wall images taken where the case asks for
 * them (images); returns the mismatching particles. */
static long compare_brute(const lists *l, const float4 *p, const float4 *q, size_t nq, const fcl_nlist_info *L,
                          int images, const fcl_sph_consts *c, uint *maxcount)
{
    uint *want = malloc((size_t)(l->cap + 1) * 4);
    long bad = 0;
    *maxcount = 0;
    for (size_t i = 0; i < l->n; i++) {
        uint k = brute(p, l->n, q, nq, i, L, images, c, want, l->cap);
        uint stored = k < l->cap ? k : l->cap;
        *maxcount = k > *maxcount ? k : *maxcount;
        if (k != l->count[i] || memcmp(want, l->idx + i * l->cap, stored * 4) != 0)
            bad++;
    }
    free(want);
    return bad;
}

typedef struct scase {
    const char *name;
    size_t n, nb;
    int mirror;             /* FCL_NLIST_*_IMAGES bits: 1 fluid, 3 boundary too */
    float radius_cells;     /* query radius in cells */
    uint cap;               /* 0: nlist_capacity's default */
    int one_cell;           /* all particles inside one cell */
    int grow;               /* capacities may grow (the default ones do) */
    float depth;            /* the domain's z extent (0: 0.6) */
} scase;

/* Positions for a case: random in the domain, a few exactly on its faces
 * (and corners), or all in one cell. */
static void positions(const scase *k, float4 *p, size_t n, float cell, unsigned seed)
{
    float depth = k->depth > 0.0f ? k->depth : 0.6f;
    for (size_t i = 0; i < n; i++) {
        float lo = k->one_cell ? 0.3f * cell : 0.0f, hi = k->one_cell ? 0.9f * cell : 1.0f;
        p[i] = fcl_f4(ft_rand(&seed, lo, hi), ft_rand(&seed, lo, hi * 0.8f),
                      ft_rand(&seed, lo, k->one_cell ? hi * 0.6f : depth), 0);
        if (!k->one_cell && i % 17 == 0)
            p[i].x = (i / 17) % 2 ? 1.0f : 0.0f;
        if (!k->one_cell && i % 23 == 0)
            p[i].y = (i / 23) % 2 ? 0.8f : 0.0f;
        if (!k->one_cell && i % 29 == 0)
            p[i].z = depth;
    }
}

/* x - q's image on one axis as the images are defined (walls.h's banner,
 * written out here, not through its functions): code 0 q, 1 across lo,
 * 2 across hi, 3 shifted by twice the extent towards x. */
static float image_coord(float q, unsigned code, float lo, float hi, float x)
{
    float w2 = 2.0f * (hi - lo);
    return code == 1 ? 2.0f * lo - q : code == 2 ? 2.0f * hi - q : code == 3 ? (x > q ? q + w2 : q - w2) : q;
}

static int cmp_pair(const void *a, const void *b)
{
    const double *x = a, *y = b;
    return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : x[1] < y[1] ? -1 : x[1] > y[1];
}

/* Independently of walls.h's image sets: every neighbor and image of
 * particle i within the radius, each axis's coordinate any of q, its
 * reflections across either wall and its shifts by twice the extent
 * either way (5^3 per candidate: the only ones that can come within the
 * radius where each extent is at least half of it), as (j, r^2) pairs,
 * against the list's entries decoded as the banner defines them. Returns
 * the particles whose pairs differ. */
static long compare_images(const lists *l, const float4 *p, const fcl_nlist_info *L, const fcl_sph_consts *c)
{
    float lo[3] = { c->domain_min.x, c->domain_min.y, c->domain_min.z };
    float hi[3] = { c->domain_max.x, c->domain_max.y, c->domain_max.z };
    size_t room = 125 * l->n + 1;
    double *want = malloc(room * 2 * sizeof *want), *got = malloc(room * 2 * sizeof *got);
    long bad = 0;
    for (size_t i = 0; i < l->n; i++) {
        const float pi[3] = { p[i].x, p[i].y, p[i].z };
        size_t nw = 0, ng = 0;
        for (size_t j = 0; j < l->n; j++)
            for (int v = 0; v < 125; v++) {
                const float q[3] = { p[j].x, p[j].y, p[j].z };
                float d2 = 0.0f;
                for (int a = 0, t = v; a < 3; a++, t /= 5) {
                    float w2 = 2.0f * (hi[a] - lo[a]);
                    float y = t % 5 == 0 ? q[a] : t % 5 == 1 ? 2.0f * lo[a] - q[a] : t % 5 == 2 ? 2.0f * hi[a] - q[a]
                            : t % 5 == 3 ? q[a] + w2 : q[a] - w2, dd = pi[a] - y;
                    d2 += dd * dd;
                }
                if (d2 < L->r2) {
                    want[2 * nw] = (double)j;
                    want[2 * nw++ + 1] = d2;
                }
            }
        for (uint k = 0; k < l->count[i] && k < l->cap; k++) {
            uint e = l->idx[i * l->cap + k], j = e & NL_INDEX, m = e >> NL_SHIFT;
            const float q[3] = { p[j].x, p[j].y, p[j].z };
            float d2 = 0.0f;
            for (int a = 0; a < 3; a++) {
                float dd = pi[a] - image_coord(q[a], (m >> (2 * a)) & 3u, lo[a], hi[a], pi[a]);
                d2 += dd * dd;
            }
            got[2 * ng] = (double)j;
            got[2 * ng++ + 1] = d2;
        }
        qsort(want, nw, 2 * sizeof *want, cmp_pair);
        qsort(got, ng, 2 * sizeof *got, cmp_pair);
        int ok = nw == ng;
        for (size_t k = 0; ok && k < nw; k++)
            ok = want[2 * k] == got[2 * k] && fabs(want[2 * k + 1] - got[2 * k + 1]) <= 1e-6 * L->r2;
        bad += !ok;
    }
    free(want);
    free(got);
    return bad;
}

/* One case on one backend and layout; its lists (logical layout) go to
 * out for the backends' comparison. */
static void run_case(fcl_backend *be, const scase *k, int particle_major, lists *fo, lists *bo)
{
    const float cell = 0.1f;
    fcl_sph_consts c;
    memset(&c, 0, sizeof c);
    c.domain_min = fcl_f4(0, 0, 0, 0);
    c.domain_max = fcl_f4(1.0f, 0.8f, k->depth > 0.0f ? k->depth : 0.6f, 0);
    c.h = cell;
    c.mirror_walls = k->mirror != 0;
    float4 *p = malloc(k->n * 16 + 16), *b = malloc(k->nb * 16 + 16);
    positions(k, p, k->n, cell, 7u);
    positions(k, b, k->nb, cell, 99u);
    fcl_grid g, bg;
    int pa, ba;
    CHECK(make_grid(be, &g, &pa, p, k->n, &c, cell) == 0 && make_grid(be, &bg, &ba, b, k->nb, &c, cell) == 0,
          "%s: grid set-up failed", k->name);
    float r = k->radius_cells * cell;
    uint cap = k->cap ? k->cap : nlist_capacity(r, 0.03, 0), bcap = k->cap ? k->cap : 64;
    fcl_nlist nl;
    char err[512] = "";
    CHECK(nlist_init(&nl, be, k->n, k->nb, r, cell, cap, bcap, particle_major, k->mirror, err, sizeof err) == 0,
          "%s: %s", k->name, err);
    nlist_set_growth(&nl, k->grow, k->grow);
    int rc = nlist_build(&nl, be, g.attr[pa].cur, &g, bg.attr[ba].cur, &bg, &c, NULL, err, sizeof err);
    download(be, &nl.fl, nl.fcount, nl.fidx, fo);
    download(be, &nl.bl, nl.bcount, nl.bidx, bo);
    uint fmax, bmax;
    long fbad = compare_brute(fo, p, p, k->n, &nl.fl, k->mirror & FCL_NLIST_FLUID_IMAGES, &c, &fmax);
    long bbad = k->nb ? compare_brute(bo, p, b, k->nb, &nl.bl, k->mirror & FCL_NLIST_BOUNDARY_IMAGES, &c, &bmax) : 0;
    int over = k->n && !k->grow && (fmax > cap || (k->nb && bmax > bcap));
    if (k->depth > 0.0f && (k->mirror & FCL_NLIST_FLUID_IMAGES)) {
        long ibad = compare_images(fo, p, &nl.fl, &c);
        CHECK(ibad == 0, "%s (%s, %s): %ld particles' images differ from every image within the radius counted "
              "independently", k->name, be->kind, particle_major ? "particle-major" : "interleaved", ibad);
    }
    if (k->grow)
        CHECK(nl.grown > 0 && nl.fl.cap >= fmax && (!k->nb || nl.bl.cap >= bmax),
              "%s (%s): lists of %u / %u entries after %ld growths for %u / %u neighbors", k->name, be->kind,
              nl.fl.cap, nl.bl.cap, nl.grown, fmax, k->nb ? bmax : 0);
    CHECK(fbad == 0 && bbad == 0, "%s (%s, %s): %ld fluid and %ld boundary lists differ from brute force",
          k->name, be->kind, particle_major ? "particle-major" : "interleaved", fbad, bbad);
    CHECK(over ? rc != 0 && strstr(err, "capacity") != NULL : rc == 0,
          "%s (%s): build returned %d (largest count %u, capacity %u): '%s'", k->name, be->kind, rc,
          k->n ? fmax : 0, cap, err);
    if (over)
        printf("%s (%s): overflow reported: %s\n", k->name, be->kind, err);
    /* The particle named is quoted with its own count, and the largest
     * beside it (it quoted the largest as the named one's). */
    const char *named = strstr(err, "particle "), *most = strstr(err, "the most any particle has is ");
    unsigned pid = 0, pc = 0, pm = 0;
    if (over && strstr(err, "fluid neighbors"))
        CHECK(named && most && sscanf(named, "particle %u has %u", &pid, &pc) == 2 &&
              sscanf(most, "the most any particle has is %u", &pm) == 1 && pid < k->n && fo->count[pid] == pc &&
              pc > cap && pm == fmax, "%s (%s): the overflow names particle %u with %u neighbors (it has %u) and "
              "%u at most (%u): '%s'", k->name, be->kind, pid, pc, pid < k->n ? fo->count[pid] : 0, pm, fmax, err);
    nlist_free(&nl, be);
    grid_free(&g, be);
    grid_free(&bg, be);
    free(p);
    free(b);
}

static int same(const lists *a, const lists *b)
{
    return a->n == b->n && a->cap == b->cap && memcmp(a->count, b->count, a->n * 4) == 0 &&
           memcmp(a->idx, b->idx, a->n * a->cap * 4) == 0;
}

int main(void)
{
    const scase cases[] = {
        { "empty", 0, 0, 0, 1.0f, 0, 0, 0, 0.0f },
        { "one particle", 1, 0, 1, 1.0f, 0, 0, 0, 0.0f },
        { "one cell", 300, 0, 0, 1.0f, 400, 1, 0, 0.0f },
        { "random, mirror walls", 3000, 0, 1, 1.0f, 0, 0, 0, 0.0f },
        { "random, boundary set", 3000, 2000, 0, 1.0f, 0, 0, 0, 0.0f },
        { "half-cell radius", 3000, 500, 1, 0.5f, 0, 0, 0, 0.0f },
        { "two-cell radius", 2000, 500, 1, 2.0f, 600, 0, 0, 0.0f },
        { "boundary images", 3000, 2000, 3, 1.0f, 0, 0, 0, 0.0f },
        { "boundary images, two-cell radius", 2000, 500, 3, 2.0f, 600, 0, 0, 0.0f },
        { "over capacity", 300, 50, 0, 1.0f, 16, 1, 0, 0.0f },
        { "over capacity, growing", 300, 50, 3, 1.0f, 16, 1, 1, 0.0f },
        { "over capacity, uneven counts", 3000, 0, 0, 1.0f, 8, 0, 0, 0.0f },
        /* A slab under the radius: images across both walls of z (it
         * took the low wall's alone: a 2 cm quasi-2-D slab's second
         * layer read 19 % light), and shifted ones where the extent is
         * under the radius (0.12 and 0.2 for a radius of 0.2). */
        { "slab 0.3 deep, two-cell radius", 1500, 0, 1, 2.0f, 0, 0, 0, 0.3f },
        { "slab 0.12 deep, two-cell radius", 800, 0, 1, 2.0f, 0, 0, 0, 0.12f },
        { "slab 0.12 deep, boundary images", 800, 300, 3, 1.5f, 0, 0, 0, 0.12f },
    };
    enum { NC = sizeof cases / sizeof cases[0] };
    lists ref[NC][2][2];
    memset(ref, 0, sizeof ref);
    /* Backend 2: OpenCL again, built with the GPU variants of the passes
     * (the direct list walk), so they are checked on a CPU device too. */
    for (int bi = 0; bi < 3; bi++) {
        if (bi == 2)
            setenv("FCL_OPENCL_GPU_CODE", "1", 1);
        fcl_backend *be = ft_backend(bi < 2 ? bi : 1);
        unsetenv("FCL_OPENCL_GPU_CODE");
        if (!be)
            continue;
        for (int k = 0; k < NC; k++)
            for (int layout = 0; layout < 2; layout++) {
                lists f, b;
                run_case(be, &cases[k], layout, &f, &b);
                if (bi == 0) {
                    ref[k][layout][0] = f;
                    ref[k][layout][1] = b;
                    continue;
                }
                CHECK(same(&f, &ref[k][layout][0]) && same(&b, &ref[k][layout][1]),
                      "%s: the OpenCL lists (%s variant) differ from the native ones", cases[k].name,
                      bi == 2 ? "GPU" : "CPU-device");
                lists_free(&f);
                lists_free(&b);
            }
        backend_destroy(be);
    }
    for (int k = 0; k < NC; k++)
        for (int l = 0; l < 2; l++) {
            lists_free(&ref[k][l][0]);
            lists_free(&ref[k][l][1]);
        }
    return ft_done();
}
