/* test_grid.c - the neighbor grid against brute-force references, on both
 * backends: the multi-level exclusive scan on edge sizes (both OpenCL
 * variants: serial chunks and work-group trees), the counting
 * sort (order, cell starts, determinism) with empty input, one particle,
 * 2^k +- 1 particles, everything in one cell and particles outside the
 * domain, and the neighbor sets found through the grid against O(N^2)
 * sets. On OpenCL it also checks the shared struct sizes; with AVX-512,
 * the 16-lane twins' position read and write against scalar ones.
 */
#include "fcl_test.h"
#include "grid.h"

#include "../kernels/grid.cl"

static void check_scan(fcl_backend *be, size_t n)
{
    unsigned *v = malloc(n * 4 + 4), *out = malloc(n * 4 + 4), seed = (unsigned)n;
    for (size_t i = 0; i < n; i++)
        v[i] = (unsigned)ft_rand(&seed, 0, 9);
    fcl_buf *b = be->ops->buf_new(be, n * 4, "scan test");
    be->ops->buf_write(be, b, 0, n * 4, v);
    be->ops->scan(be, b, n, "grid-scan");
    be->ops->finish(be);
    be->ops->buf_read(be, b, 0, n * 4, out);
    size_t bad = n;
    unsigned s = 0;
    for (size_t i = 0; i < n && bad == n; i++) {
        if (out[i] != s)
            bad = i;
        s += v[i];
    }
    CHECK(bad == n, "%s: scan of %zu values differs at %zu", be->kind, n, bad);
    be->ops->buf_free(be, b);
    free(v);
    free(out);
}

/* The reference cell of a position, computed independently in double. */
static unsigned ref_cell(const fcl_grid_info *g, float4 p)
{
    double c[3] = { p.x, p.y, p.z }, o[3] = { g->origin.x, g->origin.y, g->origin.z };
    unsigned dim[3] = { g->nx, g->ny, g->nz }, idx[3];
    for (int a = 0; a < 3; a++) {
        double f = (c[a] - o[a]) / g->cell_size;
        idx[a] = !(f >= 0) ? 0 : (f >= dim[a] ? dim[a] - 1 : (unsigned)f);
    }
    return idx[0] + g->nx * (idx[1] + g->ny * idx[2]);
}

typedef struct sorted {
    fcl_grid g;
    int a_pos, a_id;
    unsigned *ids, *start;
    float4 *pos;
} sorted;

static int build(fcl_backend *be, sorted *s, const float4 *pos, size_t n, float cell)
{
    float lo[3] = { 0, 0, 0 }, hi[3] = { 1, 0.5f, 0.25f };
    char err[256];
    fcl_grid_info info;
    unsigned *id = malloc(n * 4 + 4);
    for (size_t i = 0; i < n; i++)
        id[i] = (unsigned)i;
    if (grid_layout(&info, lo, hi, cell, n, err, sizeof err) != 0 || grid_init(&s->g, be, &info) != 0)
        return -1;
    s->a_pos = grid_add_attr(&s->g, be, "pos", 16);
    s->a_id = grid_add_attr(&s->g, be, "id", 4);
    be->ops->buf_write(be, s->g.attr[s->a_pos].cur, 0, n * 16, pos);
    be->ops->buf_write(be, s->g.attr[s->a_id].cur, 0, n * 4, id);
    free(id);
    s->ids = malloc(n * 4 + 4);
    s->pos = malloc(n * 16 + 16);
    s->start = malloc(((size_t)info.ncells + 1) * 4);
    int rc = grid_build(&s->g, be, s->a_pos) | be->ops->finish(be);
    be->ops->buf_read(be, s->g.attr[s->a_id].cur, 0, n * 4, s->ids);
    be->ops->buf_read(be, s->g.attr[s->a_pos].cur, 0, n * 16, s->pos);
    be->ops->buf_read(be, s->g.start, 0, ((size_t)info.ncells + 1) * 4, s->start);
    return rc;
}

static void release(fcl_backend *be, sorted *s)
{
    grid_free(&s->g, be);
    free(s->ids);
    free(s->pos);
    free(s->start);
}

/* Expected order: stable counting sort by reference cell. */
static void check_sort(fcl_backend *be, const float4 *pos, size_t n, const char *what)
{
    sorted s, again;
    memset(&s, 0, sizeof s);
    memset(&again, 0, sizeof again);
    CHECK(build(be, &s, pos, n, 0.05f) == 0, "%s %s: grid build failed", be->kind, what);
    const fcl_grid_info *g = &s.g.info;
    unsigned *count = calloc((size_t)g->ncells + 1, 4), *exp = malloc(n * 4 + 4);
    for (size_t i = 0; i < n; i++)
        count[ref_cell(g, pos[i]) + 1]++;
    for (size_t c = 0; c < g->ncells; c++)
        count[c + 1] += count[c];
    int starts_ok = 1, order_ok = 1;
    for (size_t c = 0; c <= g->ncells; c++)
        starts_ok &= s.start[c] == count[c];
    for (size_t i = 0; i < n; i++)
        exp[count[ref_cell(g, pos[i])]++] = (unsigned)i;
    for (size_t k = 0; k < n; k++)
        order_ok &= s.ids[k] == exp[k] && memcmp(&s.pos[k], &pos[exp[k]], 16) == 0;
    CHECK(starts_ok, "%s %s (n=%zu): cell starts differ from the reference", be->kind, what, n);
    CHECK(order_ok, "%s %s (n=%zu): sorted order differs from the stable reference", be->kind, what, n);
    CHECK(build(be, &again, pos, n, 0.05f) == 0 && memcmp(again.ids, s.ids, n * 4) == 0,
          "%s %s: a second build gave a different order", be->kind, what);
    release(be, &again);
    release(be, &s);
    free(count);
    free(exp);
}

static void check_sorts(fcl_backend *be)
{
    size_t sizes[] = { 0, 1, 2, 255, 256, 257, 4095, 4097 };
    unsigned seed = 7;
    float4 *p = malloc(4097 * 16);
    for (int i = 0; i < 4097; i++)
        p[i] = fcl_f4(ft_rand(&seed, 0, 1), ft_rand(&seed, 0, 0.5f), ft_rand(&seed, 0, 0.25f), 0);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        check_sort(be, p, sizes[k], "random");
    for (int i = 0; i < 4097; i++)
        p[i] = fcl_f4(0.51f + 1e-6f * (float)(i % 13), 0.26f, 0.126f, 0);
    check_sort(be, p, 4097, "all in one cell");
    for (int i = 0; i < 4097; i++)
        p[i] = fcl_f4(ft_rand(&seed, -3, 4), ft_rand(&seed, -1e6f, 1e6f), i % 3 ? ft_rand(&seed, 0, 0.25f) : NAN, 0);
    check_sort(be, p, 4097, "outside the domain and NaN");
    free(p);
}

/* Neighbors within h through the grid's rows equal the O(N^2) set. */
static void check_neighbors(fcl_backend *be)
{
    enum { N = 3000 };
    const float h = 0.05f;
    unsigned seed = 11;
    float4 *p = malloc(N * 16);
    for (int i = 0; i < N; i++)
        p[i] = fcl_f4(ft_rand(&seed, 0, 1), ft_rand(&seed, 0, 0.5f), ft_rand(&seed, 0, 0.25f), 0);
    sorted s;
    memset(&s, 0, sizeof s);
    build(be, &s, p, N, h);
    long grid_pairs = 0, brute_pairs = 0, mismatched = 0;
    for (unsigned i = 0; i < N; i++) {
        unsigned lo[9], hi[9], rows = grid_neighbor_rows(&s.g.info, s.start, s.pos[i], lo, hi);
        char *mark = calloc(N, 1);
        for (unsigned r = 0; r < rows; r++)
            for (unsigned j = lo[r]; j < hi[r]; j++) {
                float dx = s.pos[i].x - s.pos[j].x, dy = s.pos[i].y - s.pos[j].y, dz = s.pos[i].z - s.pos[j].z;
                if (dx * dx + dy * dy + dz * dz < h * h) {
                    mark[s.ids[j]] = 1;
                    grid_pairs++;
                }
            }
        float4 a = p[s.ids[i]];
        for (unsigned j = 0; j < N; j++) {
            float dx = a.x - p[j].x, dy = a.y - p[j].y, dz = a.z - p[j].z;
            int near = dx * dx + dy * dy + dz * dz < h * h;
            brute_pairs += near;
            mismatched += near != mark[j];
        }
        free(mark);
    }
    CHECK(mismatched == 0 && grid_pairs == brute_pairs, "%s: grid found %ld pairs, brute force %ld, %ld differ",
          be->kind, grid_pairs, brute_pairs, mismatched);
    printf("%s: %ld neighbor pairs of %d particles match brute force\n", be->kind, grid_pairs, N);
    release(be, &s);
    free(p);
}

static void check_type_sizes(fcl_backend *be)
{
    static const char *const names[] = { "fcl_grid_info", "fcl_sph_consts", "fcl_stats_partial", "float4",
                                         "fcl_dfsph_consts", "fcl_solid", "fcl_mc_info", "fcl_nlist_info",
                                         "fcl_pbf_consts", "fcl_control_consts", "fcl_mps_consts", "fcl_phase",
                                         "fcl_mac_info", "fcl_mac_inflow" };
    const size_t host[] = { sizeof(fcl_grid_info), sizeof(fcl_sph_consts), sizeof(fcl_stats_partial),
                            sizeof(float4), sizeof(fcl_dfsph_consts), sizeof(fcl_solid), sizeof(fcl_mc_info),
                            sizeof(fcl_nlist_info), sizeof(fcl_pbf_consts),
                            sizeof(fcl_control_consts), sizeof(fcl_mps_consts), sizeof(fcl_phase),
                            sizeof(fcl_mac_info), sizeof(fcl_mac_inflow) };
    enum { NT = sizeof host / sizeof host[0] };
    fcl_kernel *k = be->ops->kernel(be, "fcl_type_sizes");
    fcl_buf *b = be->ops->buf_new(be, NT * 4, "sizes");
    unsigned got[NT] = { 0 };
    fcl_arg a[] = { FCL_BUF(b) };
    be->ops->launch(be, k, 1, a, 1, "test");
    be->ops->finish(be);
    be->ops->buf_read(be, b, 0, sizeof got, got);
    for (int t = 0; t < NT; t++)
        CHECK(got[t] == host[t], "%s: %u bytes on the device, %zu on the host", names[t], got[t], host[t]);
    be->ops->buf_free(be, b);
}

#ifdef FCL_AVX512
#include <sys/mman.h>
#include <unistd.h>

/* The 16-lane twins' position read and write (fcl_xyzw16, fcl_put16) on
 * arrays of 1 to 100 float4 that end at an unreadable page, so that a
 * read or write past the last live element faults: every lane of every
 * block as the scalar source reads it, dead lanes 0, and a write back of
 * other values changes exactly the live elements. */
static void check_lanes(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    int bad = 0;
    for (uint count = 1u; count <= 100u; count++) {
        size_t bytes = count * sizeof(float4), span = (bytes + (size_t)pg - 1u) / (size_t)pg * (size_t)pg;
        char *m = mmap(NULL, span + (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED || mprotect(m + span, (size_t)pg, PROT_NONE) != 0) {
            CHECK(0, "lanes: no guard page for %u elements", count);
            return;
        }
        float4 *p = (float4 *)(m + span - bytes);
        for (uint i = 0u; i < count; i++)
            p[i] = fcl_f4((float)i + 0.1f, (float)i + 0.2f, (float)i + 0.3f, (float)i + 0.4f);
        for (uint i0 = 0u; i0 < count; i0 += 16u) {
            __mmask16 live = fcl_live16(count - i0);
            __m512 v[4];
            float got[4][16];
            fcl_xyzw16(p, i0, live, &v[0], &v[1], &v[2], &v[3]);
            for (int a = 0; a < 4; a++)
                _mm512_storeu_ps(got[a], v[a]);
            for (uint l = 0u; l < 16u; l++) {
                float4 want = i0 + l < count ? p[i0 + l] : fcl_f4(0.0f, 0.0f, 0.0f, 0.0f);
                bad += got[0][l] != want.x || got[1][l] != want.y || got[2][l] != want.z || got[3][l] != want.w;
            }
            fcl_put16(p, i0, live, v[1], v[2], v[3], v[0]);   /* rotated: (y, z, w, x) */
        }
        for (uint i = 0u; i < count; i++)
            bad += p[i].x != (float)i + 0.2f || p[i].y != (float)i + 0.3f || p[i].z != (float)i + 0.4f ||
                   p[i].w != (float)i + 0.1f;
        munmap(m, span + (size_t)pg);
    }
    CHECK(bad == 0, "lanes: %d lanes of fcl_xyzw16 / fcl_put16 differ from the scalar reads and writes", bad);
}
#endif

int main(void)
{
#ifdef FCL_AVX512
    check_lanes();
#else
    printf("test_grid: no AVX-512 in this build: the 16-lane position helpers are not checked\n");
#endif
    size_t scan_sizes[] = { 0, 1, 2, 511, 512, 513, 1023, 1024, 1025, 262143, 262144, 262145, 1000001 };
    for (int bi = 0; bi < 2; bi++) {
        fcl_backend *be = ft_backend(bi);
        if (!be)
            continue;
        /* On OpenCL both scan variants: serial chunks (CPU devices) and
         * work-group Blelloch trees (GPUs), whatever this device is. */
        for (int variant = 0; variant < (bi == 1 ? 2 : 1); variant++) {
            if (bi == 1)
                be->serial_groups = variant;
            for (size_t k = 0; k < sizeof scan_sizes / sizeof scan_sizes[0]; k++)
                check_scan(be, scan_sizes[k]);
        }
        check_sorts(be);
        check_neighbors(be);
        if (bi == 1)
            check_type_sizes(be);
        backend_destroy(be);
    }
    return ft_done();
}
