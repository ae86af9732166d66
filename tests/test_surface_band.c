/* test_surface_band.c - the narrow band of the surface reconstruction
 * (kernels/mc.cl: tiles labelled empty, band or interior from the
 * particles' surface flags), on the native CPU backend and OpenCL:
 * - the same mesh, bit for bit up to vertex order, with the band on and
 *   off, on a ball, jittered blocks with bubbles inside (whose surfaces
 *   the band must find), random clouds and the anisotropic field;
 * - the nodes that get phi grow with the surface, not the volume: a cube
 *   of fluid twice as wide evaluates 4x the nodes (3.2 to 4.8), and at
 *   least as many nodes are skipped as lie deeper than 3 h inside it;
 * - band meshes are closed, consistently wound 2-manifolds, and with
 *   surface flags forced off (holes the flags miss) they still are; a
 *   clump of 8 coincident particles (the spread test) gives the same mesh;
 * - band settings that would flag no particle of a flat face (band_shift
 *   0.15 with band_fill 0.7, a jittered block at 0.3 and 0.6, support 1.2
 *   at band_fill 0.8) evaluate every tile: the mesh of the band off;
 * - device input (a simulation's buffers read in place) gives the host
 *   input's mesh, and a non-finite position there is refused.
 */
#include <stdint.h>

#include "fcl_test.h"
#include "mc.h"
#include "mesh_checks.h"
#include "sim.h"

static const float D = 0.02f; /* particle spacing */

static mc_config config(float cell, unsigned field, int narrow)
{
    return (mc_config){ D, 2.0f * D, cell, field == FCL_MC_MUELLER ? 0.5f : 0.6f, field, 0.02f, 2.0f, narrow,
                        0.05f, 0.85f, 0, 8.0f, 1.0f, 0.0f, MC_FIELDS_LS_OFF };
}

/* A block of nx x ny x nz lattice sites, each moved by up to `jitter`
 * spacings, with the sites within `void_r` spacings of `voids` centres
 * left out (bubbles). */
static float4 *block(int nx, int ny, int nz, float jitter, const float (*voids)[3], int nvoids, float void_r,
                     unsigned seed, size_t *n)
{
    float4 *p = malloc((size_t)nx * ny * nz * sizeof *p);
    *n = 0;
    for (int z = 0; z < nz; z++)
        for (int y = 0; y < ny; y++)
            for (int x = 0; x < nx; x++) {
                int inside = 0;
                for (int v = 0; v < nvoids; v++) {
                    float dx = x - voids[v][0], dy = y - voids[v][1], dz = z - voids[v][2];
                    inside |= dx * dx + dy * dy + dz * dz < void_r * void_r;
                }
                if (inside)
                    continue;
                p[(*n)++] = fcl_f4(0.1f + (x + ft_rand(&seed, -jitter, jitter)) * D,
                                   0.2f + (y + ft_rand(&seed, -jitter, jitter)) * D,
                                   0.3f + (z + ft_rand(&seed, -jitter, jitter)) * D, 0.0f);
            }
    return p;
}

static int recon(fcl_backend *be, const mc_config *c, const mc_input *in, mc_mesh *m, mc_stats *st)
{
    mc_ctx x;
    char err[512] = "";
    int rc = mc_init(&x, be, err, sizeof err);
    if (rc == 0)
        rc = mc_reconstruct_in(&x, c, in, m, err, sizeof err);
    if (rc != 0)
        printf("reconstruction failed: %s\n", err);
    if (st)
        *st = x.last;
    mc_free(&x);
    return rc;
}

/* Band on and off give the same mesh at iso and band_fill (0: the
 * defaults); returns the band's node count. */
static size_t same_at(fcl_backend *be, const char *what, const float4 *p, const float4 *v, size_t n, float cell,
                      unsigned field, float iso, float fill)
{
    mc_config on = config(cell, field, 1), off = config(cell, field, 0);
    if (iso > 0.0f)
        on.iso = off.iso = iso;
    if (fill > 0.0f)
        on.band_fill = off.band_fill = fill;
    mc_input in = mc_input_host(p, v, n);
    mc_mesh a, b;
    mc_stats sa, sb;
    memset(&sa, 0, sizeof sa);
    memset(&sb, 0, sizeof sb);
    int ok = recon(be, &on, &in, &a, &sa) == 0 && recon(be, &off, &in, &b, &sb) == 0;
    int same = ok && mesh_same(&a, &b), closed = ok && closed_manifold(&a);
    printf("%s, cell %.2g d, field %u: %zu triangles; phi on %zu nodes with the band, %zu without\n", what, cell,
           field, ok ? a.nt : 0, sa.cells, sb.cells);
    CHECK(same, "%s at cell %g d: band on and off differ (%zu/%zu vs %zu/%zu vertices/triangles)", what, cell,
          a.nv, a.nt, b.nv, b.nt);
    CHECK(closed, "%s at cell %g d: the band's mesh is not a closed, consistently wound 2-manifold", what, cell);
    mc_mesh_free(&a);
    mc_mesh_free(&b);
    return sa.cells;
}

static size_t same_both_ways(fcl_backend *be, const char *what, const float4 *p, const float4 *v, size_t n,
                             float cell, unsigned field)
{
    return same_at(be, what, p, v, n, cell, field, 0.0f, 0.0f);
}

/* At the ends of the parameters' ranges (params.def): surface.iso 0.95
 * and surface.band_fill 0.6. At iso 0.99 a resting lattice's own field,
 * which dips to about 0.98 between its sites, gave the full field cavities
 * inside the ball and the band clamped nodes to iso (zero-area triangles,
 * +10 % volume); at band_fill 0.45 a one-layer sheet's particles (fill
 * about 0.5) went unflagged and the band meshed 570 zero-area triangles. */
static void test_range_ends(fcl_backend *be)
{
    size_t n = 0;
    float4 *ball = block(20, 20, 20, 0.0f, NULL, 0, 0.0f, 1u, &n), *sheet;
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        float dx = ball[i].x - (0.1f + 9.5f * D), dy = ball[i].y - (0.2f + 9.5f * D);
        float dz = ball[i].z - (0.3f + 9.5f * D);
        if (dx * dx + dy * dy + dz * dz < 81.0f * D * D)
            ball[kept++] = ball[i];
    }
    same_at(be, "lattice ball at surface.iso 0.95", ball, NULL, kept, 0.5f, FCL_MC_ZOU, 0.95f, 0.0f);
    sheet = block(20, 1, 20, 0.0f, NULL, 0, 0.0f, 1u, &n);
    same_at(be, "one-layer sheet at surface.band_fill 0.6", sheet, NULL, n, 0.5f, FCL_MC_ZOU, 0.0f, 0.6f);
    free(ball);
    free(sheet);
}

/* Band settings within their ranges that flag no particle of a flat
 * face: the tiles along it were labelled interior and the mesh took their
 * outline (a 20 x 10 x 20 lattice at band_shift 0.15, band_fill 0.7: +15 %
 * of volume; a jittered block at 0.3 and 0.6; surface.support 1.2 at
 * band_fill 0.8; a review). Now the reconstruction evaluates every tile
 * there: the same mesh as the band off. mc_band_flags_face reads the face
 * at support 2 as 0.73 of a lattice's sum and 0.118 h in, and passes the
 * defaults. */
static void test_face_rule(fcl_backend *be)
{
    mc_config c = config(0.5f, FCL_MC_ZOU, 1);
    double fill, shift;
    int ok = mc_band_flags_face(&c, &fill, &shift);
    printf("a flat face at support 2: fill %.3f, shift %.4f h; the defaults flag it: %d\n", fill, shift, ok);
    CHECK(ok && fabs(fill - 0.73) <= 0.01 && fabs(shift - 0.118) <= 0.002,
          "a flat face at support 2: fill %.3f (0.73), shift %.4f h (0.118), the defaults flag it %d", fill, shift, ok);
    c.band_shift = 0.15f;
    c.band_fill = 0.7f;
    CHECK(!mc_band_flags_face(&c, &fill, &shift), "band_shift 0.15, band_fill 0.7 read as flagging a flat face");
    /* The note's suggestions, rounded as it prints them, pass (its 0.76,
     * 1.05 x fill rounded to nearest, did not; a review). */
    mc_config up = c, down = c;
    up.band_fill = (float)(ceil(105.0 * fill) / 100.0);
    down.band_shift = (float)(floor(750.0 * shift) / 1000.0);
    double f2, s2;
    CHECK(mc_band_flags_face(&up, &f2, &s2) && mc_band_flags_face(&down, &f2, &s2),
          "the note's suggestions band_fill %.2f and band_shift %.3f do not pass", up.band_fill, down.band_shift);
    const struct { int nx, ny, nz; float jitter, shift, fill, support; const char *what; } cases[] = {
        { 20, 10, 20, 0.0f, 0.15f, 0.7f, 2.0f, "lattice slab at band_shift 0.15, band_fill 0.7" },
        { 16, 12, 10, 0.2f, 0.3f, 0.6f, 2.0f, "jittered block at band_shift 0.3, band_fill 0.6" },
        { 16, 12, 10, 0.0f, 0.05f, 0.8f, 1.2f, "lattice block at support 1.2, band_fill 0.8" },
    };
    for (size_t q = 0; q < sizeof cases / sizeof cases[0]; q++) {
        size_t n = 0;
        float4 *p = block(cases[q].nx, cases[q].ny, cases[q].nz, cases[q].jitter, NULL, 0, 0.0f, 7u, &n);
        mc_config on = config(0.5f, FCL_MC_ZOU, 1), off = config(0.5f, FCL_MC_ZOU, 0);
        on.band_shift = off.band_shift = cases[q].shift;
        on.band_fill = off.band_fill = cases[q].fill;
        on.h = off.h = cases[q].support * D;
        mc_input in = mc_input_host(p, NULL, n);
        mc_mesh a, b;
        int done = recon(be, &on, &in, &a, NULL) == 0 && recon(be, &off, &in, &b, NULL) == 0;
        double va = done ? mc_mesh_volume(&a) : 0.0, vb = done ? mc_mesh_volume(&b) : 0.0;
        printf("%s: %zu and %zu triangles, volumes %.6g and %.6g (band on, off)\n", cases[q].what, done ? a.nt : 0,
               done ? b.nt : 0, va, vb);
        CHECK(done && mesh_same(&a, &b), "%s: band on and off differ (%zu vs %zu triangles, volumes %.6g, %.6g)",
              cases[q].what, done ? a.nt : 0, done ? b.nt : 0, va, vb);
        if (done) {
            mc_mesh_free(&a);
            mc_mesh_free(&b);
        }
        free(p);
    }
}

static void test_same(fcl_backend *be)
{
    const float bubbles[2][3] = { { 8.0f, 7.0f, 6.0f }, { 15.5f, 6.5f, 6.5f } };
    size_t n;
    float4 *p = block(24, 14, 13, 0.15f, bubbles, 2, 1.6f, 7u, &n);
    for (int k = 0; k < 3; k++)
        same_both_ways(be, "jittered block with two bubbles", p, NULL, n, k == 0 ? 1.0f : k == 1 ? 0.5f : 0.25f,
                       FCL_MC_ZOU);
    same_both_ways(be, "jittered block with two bubbles", p, NULL, n, 0.5f, FCL_MC_MUELLER);
    /* The bubbles are there: some vertex lies within 2 d of each centre. */
    mc_config c = config(0.5f, FCL_MC_ZOU, 1);
    mc_input in = mc_input_host(p, NULL, n);
    mc_mesh m;
    if (recon(be, &c, &in, &m, NULL) == 0) {
        for (int b = 0; b < 2; b++) {
            float cx = 0.1f + bubbles[b][0] * D, cy = 0.2f + bubbles[b][1] * D, cz = 0.3f + bubbles[b][2] * D;
            size_t near = 0;
            for (size_t i = 0; i < m.nv; i++) {
                float dx = m.v[i].x - cx, dy = m.v[i].y - cy, dz = m.v[i].z - cz;
                near += dx * dx + dy * dy + dz * dz < 4.0f * D * D;
            }
            printf("bubble %d: %zu vertices within 2 d of its centre\n", b, near);
            CHECK(near >= 20, "bubble %d has no surface (%zu vertices near its centre)", b, near);
        }
        mc_mesh_free(&m);
    }
    /* Moving particles, for the anisotropic field. */
    float4 *v = malloc(n * sizeof *v);
    unsigned seed = 3u;
    for (size_t i = 0; i < n; i++)
        v[i] = fcl_f4(ft_rand(&seed, -1.0f, 1.0f), ft_rand(&seed, -1.0f, 1.0f), ft_rand(&seed, -1.0f, 1.0f), 0.0f);
    same_both_ways(be, "jittered block, moving", p, v, n, 0.5f, FCL_MC_ANISO);
    free(v);
    free(p);
    /* A clump of 8 coincident particles: it weighs as a full neighborhood
     * with no offset, and before the spread test its tiles were labelled
     * interior and the band meshed a box around it. */
    float4 clump[8];
    for (int k = 0; k < 8; k++)
        clump[k] = fcl_f4(0.5f, 0.5f, 0.5f, 0.0f);
    same_both_ways(be, "8 coincident particles", clump, NULL, 8, 0.5f, FCL_MC_ZOU);
    /* Random clouds of varying density: spray, sheets and holes of every
     * size the flags must catch. */
    for (unsigned s = 1; s <= 4; s++) {
        float4 *q = block(20, 20, 12, 0.45f, NULL, 0, 0.0f, 100u + s, &n);
        unsigned seed2 = s;
        size_t kept = 0;
        for (size_t i = 0; i < n; i++)
            if (ft_rand(&seed2, 0.0f, 1.0f) < 0.35f + 0.15f * (float)s)
                q[kept++] = q[i];
        same_both_ways(be, "random cloud", q, NULL, kept, 0.5f, FCL_MC_ZOU);
        free(q);
    }
}

/* Nodes evaluated for cubes of side L and 2L: the band's count grows with
 * the area (4x), the full field's with the volume (8x). */
static void test_scaling(fcl_backend *be)
{
    size_t cells[2][2];
    for (int k = 0; k < 2; k++) {
        int side = k == 0 ? 16 : 32;
        size_t n;
        float4 *p = block(side, side, side, 0.1f, NULL, 0, 0.0f, 11u, &n);
        mc_input in = mc_input_host(p, NULL, n);
        for (int narrow = 0; narrow < 2; narrow++) {
            mc_config c = config(0.5f, FCL_MC_ZOU, narrow);
            mc_mesh m;
            mc_stats st;
            memset(&st, 0, sizeof st);
            if (recon(be, &c, &in, &m, &st) == 0)
                mc_mesh_free(&m);
            cells[k][narrow] = st.cells;
        }
        printf("cube of %d^3 particles: phi on %zu nodes with the band, %zu without\n", side, cells[k][1],
               cells[k][0]);
        free(p);
    }
    double band = (double)cells[1][1] / (double)(cells[0][1] ? cells[0][1] : 1);
    printf("doubling the cube: %.2fx the nodes with the band (area 4x, volume 8x)\n", band);
    CHECK(band > 3.2 && band < 4.8, "band nodes grew %.2fx for a cube twice as wide (area: 4x)", band);
    /* Nodes deeper than 3 h (6 d) inside are never evaluated: the band
     * skips at least the nodes of the cube shrunk by that much. */
    for (int k = 0; k < 2; k++) {
        double deep = 8.0 * pow((k == 0 ? 16 : 32) - 12, 3);
        printf("cube %d: %zu nodes skipped, %.0f nodes deeper than 3 h\n", k, cells[k][0] - cells[k][1], deep);
        CHECK((double)(cells[k][0] - cells[k][1]) >= deep, "cube %d: only %zu nodes skipped, %.0f lie deeper than 3 h",
              k, cells[k][0] - cells[k][1], deep);
    }
}

/* Flags forced off (no particle counts as at the surface): the bubble is
 * missed, but the mesh stays a closed, consistently wound 2-manifold. */
static void test_closed_when_flags_miss(fcl_backend *be)
{
    const float bubble[1][3] = { { 8.0f, 8.0f, 8.0f } };
    size_t n;
    float4 *p = block(16, 16, 16, 0.1f, bubble, 1, 2.5f, 5u, &n);
    mc_config c = config(0.5f, FCL_MC_ZOU, 1);
    c.band_shift = 1.0f;
    c.band_fill = 0.0f;
    mc_input in = mc_input_host(p, NULL, n);
    mc_mesh m;
    if (recon(be, &c, &in, &m, NULL) == 0) {
        printf("flags off: %zu triangles\n", m.nt);
        CHECK(m.nt > 0 && closed_manifold(&m), "with the flags off the mesh is not a closed 2-manifold (%zu triangles)",
              m.nt);
        mc_mesh_free(&m);
    }
    free(p);
}

/* Positions in a device buffer (as a simulation holds them) give the host
 * input's mesh; a NaN there is refused naming the problem. */
static void test_device_input(fcl_backend *be)
{
    size_t n;
    float4 *p = block(12, 10, 9, 0.15f, NULL, 0, 0.0f, 9u, &n);
    fcl_buf *b = be->ops->buf_new(be, n * sizeof *p, "test positions");
    CHECK(b && be->ops->buf_write(be, b, 0, n * sizeof *p, p) == 0, "cannot upload %zu positions", n);
    mc_config c = config(0.5f, FCL_MC_ZOU, 1);
    mc_input host = mc_input_host(p, NULL, n), dev = { n, NULL, NULL, b, NULL, NULL, NULL };
    mc_mesh a, d;
    int ok = recon(be, &c, &host, &a, NULL) == 0 && recon(be, &c, &dev, &d, NULL) == 0;
    CHECK(ok && mesh_same(&a, &d), "device input gives another mesh (%zu vs %zu triangles)", ok ? a.nt : 0,
          ok ? d.nt : 0);
    if (ok)
        mc_mesh_free(&a), mc_mesh_free(&d);
    p[n / 2].y = NAN;
    be->ops->buf_write(be, b, 0, n * sizeof *p, p);
    mc_ctx x;
    char err[512] = "";
    mc_init(&x, be, err, sizeof err);
    int rc = mc_reconstruct_in(&x, &c, &dev, &d, err, sizeof err);
    mc_free(&x);
    printf("NaN on the device: exit %d, \"%s\"\n", rc, err);
    CHECK(rc == FCL_EXIT_INPUT && strstr(err, "non-finite"), "a NaN position gave exit %d: %s", rc, err);
    be->ops->buf_free(be, b);
    free(p);
}

int main(void)
{
    int ran = 0;
    for (int i = 0; i < 2; i++) {
        fcl_backend *be = ft_backend(i);
        if (!be)
            continue;
        ran = 1;
        test_same(be);
        test_range_ends(be);
        test_face_rule(be);
        test_scaling(be);
        test_closed_when_flags_miss(be);
        test_device_input(be);
        backend_destroy(be);
    }
    return ran ? ft_done() : 77;
}
