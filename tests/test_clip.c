/* test_clip.c - obstacles far larger than the domain: the samplers keep
 * their points within two support radii of it (boundary_clip), the very
 * points the unclipped sampling gives there; whole scenes of such
 * obstacles build at once; the budgets before sampling count the clipped
 * samples, never fewer than are taken; meshes are cut to the clip keeping
 * their shared vertices and their area.
 * Invariant: prints "N passed, M failed" last and exits 0 only if M == 0.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "fcl_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boundary.h"
#include "boundary_layers.h"
#include "budget.h"
#include "polygon.h"
#include "scene.h"
#include "sampler.h"

static char dir[128], scene_path[160];

static void write_file(const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    CHECK(f && fputs(text, f) >= 0 && fclose(f) == 0, "cannot write %s", path);
}

/* The scene text through a file in the scratch folder (a mesh's path
 * resolves there), and its boundary. 0, or -1 with err. */
static int build(const char *json, fcl_scene *s, fcl_boundary *b, char *err, size_t errlen)
{
    if (ft_scratch_scene("test_clip", json, dir, sizeof dir, scene_path, sizeof scene_path) != 0 ||
        scene_load(s, scene_path, err, errlen) != 0)
        return -1;
    if (boundary_build(s, &s->params, b, err, errlen) == 0)
        return 0;
    scene_free(s);
    return -1;
}

/* The clipped samplings (sampler.h) keep exactly the unclipped ones'
 * points in the clip, bit for bit and in order; the box, sphere and
 * polygon below each reach past it. */
static int same_in_clip(const float4 *all, size_t n, const float4 *kept, size_t m, const float *clip)
{
    size_t j = 0;
    for (size_t i = 0; i < n; i++)
        if (sampler_clip_has(clip, all[i].x, all[i].y, all[i].z) &&
            (j >= m || memcmp(&all[i], &kept[j++], sizeof all[i]) != 0))
            return 0;
    return j == m && m > 0 && m < n;
}

static void test_clip_shapes(void)
{
    const float d = 0.01f, clip[6] = { 0.05f, 0.1f, -0.02f, 0.22f, 0.31f, 0.2f };
    const float lo[3] = { -0.3f, 0.2f, -0.1f }, hi[3] = { 0.4f, 0.6f, 0.3f }, c[3] = { 0.1f, 0.5f, 0.1f };
    float4 *all, *kept;
    size_t n = sampler_box(lo, hi, d, NULL, NULL), m = sampler_box(lo, hi, d, clip, NULL);
    all = malloc(n * sizeof *all), kept = malloc((m + 1) * sizeof *kept);
    sampler_box(lo, hi, d, NULL, all);
    CHECK(sampler_box(lo, hi, d, clip, kept) == m && same_in_clip(all, n, kept, m, clip),
          "clipped box: %zu of %zu samples, not the unclipped ones in the clip", m, n);
    free(all), free(kept);
    /* A box whose min passes its max along y (mps's box_to_walls makes
     * such: two planes) keeps its points in the clip (it lost them all). */
    const float flo[3] = { 0.1f, 0.15f, 0.0f }, fhi[3] = { 0.2f, 0.12f, 0.1f };
    n = sampler_box(flo, fhi, d, NULL, NULL), m = sampler_box(flo, fhi, d, clip, NULL);
    CHECK(m == n && n > 0, "a box with min above max along y: %zu of %zu samples in a clip holding all", m, n);
    n = sampler_sphere(c, 0.3f, d, NULL, NULL), m = sampler_sphere(c, 0.3f, d, clip, NULL);
    all = malloc(n * sizeof *all), kept = malloc((m + 1) * sizeof *kept);
    sampler_sphere(c, 0.3f, d, NULL, all);
    CHECK(sampler_sphere(c, 0.3f, d, clip, kept) == m && same_in_clip(all, n, kept, m, clip),
          "clipped sphere: %zu of %zu samples, not the unclipped ones in the clip", m, n);
    free(all), free(kept);
    fcl_obstacle o = { .kind = FCL_SHAPE_POLYGON, .npoly = 4 };
    const float v[4][3] = { { -1, 0.15f, -1 }, { -1, 0.25f, 1 }, { 1, 0.25f, 1 }, { 1, 0.15f, -1 } };
    memcpy(o.poly, v, sizeof v);
    fcl_polygon_frame f;
    polygon_frame(&o, &f);
    for (int k = 0; k < 2; k++) {
        n = polygon_sample(&f, d, k, NULL, NULL), m = polygon_sample(&f, d, k, clip, NULL);
        all = malloc(n * sizeof *all), kept = malloc((m + 1) * sizeof *kept);
        polygon_sample(&f, d, k, NULL, all);
        CHECK(polygon_sample(&f, d, k, clip, kept) == m && same_in_clip(all, n, kept, m, clip),
              "clipped polygon, layer %d: %zu of %zu samples, not the unclipped ones in the clip", k, m, n);
        free(all), free(kept);
    }
}

/* Whole scenes: a 200 m polygon over a 0.2 m domain (sampled in full it
 * took 10^8 samples, 6 GB, and more than 9 minutes of boundary volumes)
 * and a mesh cube at scale 40 whose top face is a floor 3 cm up (sampled
 * whole it took 25 s and 1.5 GB; cut to the clip first). */
static void test_clip_scenes(void)
{
    fcl_scene s;
    fcl_boundary b;
    char err[1024] = "";
    const char *big = "{\"domain\": {\"min\": [0, 0, 0], \"max\": [0.2, 0.2, 0.2]}, \"particles\": {\"spacing\": 0.02},"
                      "\"boundary\": {\"walls\": \"mirror\", \"cache_dir\": \"off\"}, \"fluid\": [],"
                      "\"obstacles\": [{\"type\": \"polygon\", \"vertices\": [[-100, 0.15, -100], [-100, 0.15, 100],"
                      " [100, 0.15, 100], [100, 0.15, -100]]}]}";
    int built = build(big, &s, &b, err, sizeof err) == 0;
    double far = 0.0;
    for (size_t i = 0; built && i < b.n; i++)
        far = fmax(far, fmax(fabs(b.pos[i].x - 0.1), fabs(b.pos[i].z - 0.1)) - 0.1);
    printf("a 200 m polygon over a 0.2 m domain: %zu samples, reaching %.3g m past the domain\n", b.n, far);
    CHECK(built && b.n > 0 && b.n < 1000 && far <= 0.0801, "big polygon: %s, %zu samples reaching %.3g m past the "
          "domain (expected at most 2 support radii, 0.08 m)", built ? "built" : err, b.n, far);
    if (built)
        boundary_free(&b), scene_free(&s);
    write_file("plate.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n"
                            "f 1 4 3\nf 1 3 2\nf 5 6 7\nf 5 7 8\nf 1 2 6\nf 1 6 5\nf 4 8 7\nf 4 7 3\n"
                            "f 1 5 8\nf 1 8 4\nf 2 3 7\nf 2 7 6\n");
    const char *plate = "{\"domain\": {\"min\": [0, 0, 0], \"max\": [0.2, 0.2, 0.2]}, \"particles\": "
                        "{\"spacing\": 0.02}, \"boundary\": {\"walls\": \"mirror\", \"cache_dir\": \"off\"}, \"fluid\": [], "
                        "\"obstacles\": [{\"type\": \"mesh\", \"file\": \"plate.obj\", \"scale\": 40, \"translate\": "
                        "[-20, -39.97, -20]}]}";
    built = build(plate, &s, &b, err, sizeof err) == 0;
    far = 0.0;
    size_t floor_n = 0;
    for (size_t i = 0; built && i < b.n; i++) {
        far = fmax(far, fmax(fmax(fabs(b.pos[i].x - 0.1), fabs(b.pos[i].z - 0.1)) - 0.1, -0.08 - b.pos[i].y));
        floor_n += fabs(b.pos[i].y - 0.03) < 1e-5;
    }
    printf("a scale-40 mesh plate under a 0.2 m domain: %zu samples (%zu on its top), reaching %.3g m past the "
           "domain\n", b.n, floor_n, far);
    CHECK(built && b.n < 3000 && floor_n >= 300 && far <= 0.0801, "big mesh: %s, %zu samples (%zu on its top) "
          "reaching %.3g m past the domain (expected the top's 18 x 18 at least, within 0.08 m)",
          built ? "built" : err, b.n, floor_n, far);
    if (built)
        boundary_free(&b), scene_free(&s);
}

/* Obstacles far larger than the domain are budgeted within the clip the
 * sampler keeps (boundary_clip), never below what it samples: a slab of
 * +-50 m at 1 cm was budgeted 1.2e9 samples and refused for memory, a
 * sphere of 100 m 3.8e9; one holding the domain has none. */
static void test_budget_clip(void)
{
    const char *obst[] = { "{\"type\": \"box\", \"min\": [-50, -50, -50], \"max\": [50, 0.02, 50]}",
                           "{\"type\": \"sphere\", \"center\": [0.1, -99.98, 0.1], \"radius\": 100}",
                           "{\"type\": \"polygon\", \"vertices\": [[-50, 0.02, -50], [-50, 0.02, 50], [50, 0.02, 50], "
                           "[50, 0.02, -50]]}",
                           "{\"type\": \"sphere\", \"center\": [0.1, 0.1, 0.1], \"radius\": 1000}" };
    const double most[] = { 1.5, 20.0, 3.0, 0.0 };   /* budget over samples, at most */
    for (int i = 0; i < 4; i++) {
        char json[1024], err[1024] = "";
        fcl_scene s;
        fcl_boundary b;
        fcl_budget bd;
        snprintf(json, sizeof json, "{\"fluid\": [], \"domain\": {\"min\": [0, 0, 0], \"max\": [0.2, 0.2, 0.2]}, "
                 "\"particles\": {\"spacing\": 0.01}, \"boundary\": {\"walls\": \"mirror\", \"cache_dir\": \"off\", "
                 "\"layers\": 3}, \"obstacles\": [%s]}", obst[i]);
        if (build(json, &s, &b, err, sizeof err) != 0) {
            CHECK(0, "obstacle %d: %s", i, err);
            continue;
        }
        CHECK(budget_check(&s, &s.params, &bd, err, sizeof err) == 0, "obstacle %d: %s", i, err);
        printf("obstacle %d far larger than the domain: budget %.0f, sampled %zu\n", i, bd.obstacles, b.n);
        CHECK(bd.obstacles >= (double)b.n && bd.obstacles <= most[i] * (double)b.n + 0.5,
              "obstacle %d: budget %.0f against %zu sampled (at most %g times)", i, bd.obstacles, b.n, most[i]);
        boundary_free(&b);
        scene_free(&s);
    }
}

/* A mesh cut to the clip keeps its inner triangles' shared vertices (the
 * cut was a soup, three vertices a triangle, allocated for every
 * triangle of the mesh), and the area within the clip. */
static void test_mesh_clip(void)
{
    enum { N = 200 };   /* a 2 m plane of N x N quads, 80,000 triangles */
    fcl_mesh m = { .nv = (N + 1) * (N + 1), .ntri = 2 * N * N }, cut;
    m.v = malloc(m.nv * 3 * sizeof *m.v);
    m.tri = malloc(m.ntri * 3 * sizeof *m.tri);
    for (size_t j = 0; j <= N; j++)
        for (size_t i = 0; i <= N; i++) {
            float *v = m.v + 3 * (j * (N + 1) + i);
            v[0] = -1.0f + 2.0f * (float)i / N, v[1] = 0.05f * v[0], v[2] = -1.0f + 2.0f * (float)j / N;
        }
    for (size_t j = 0, t = 0; j < N; j++)
        for (size_t i = 0; i < N; i++, t += 2) {
            unsigned a = (unsigned)(j * (N + 1) + i), q[6] = { a, a + N + 1, a + 1, a + 1, a + N + 1, a + N + 2 };
            memcpy(m.tri + 3 * t, q, sizeof q);
        }
    const float clip[6] = { -0.155f, -0.5f, -0.103f, 0.117f, 0.5f, 0.211f };
    int same = 1;
    CHECK(boundary_mesh_clip(&m, clip, &cut, &same) == 0 && !same, "cutting the plane failed");
    double area = 0.0;
    for (size_t t = 0; !same && t < cut.ntri; t++) {
        const float *a = cut.v + 3 * cut.tri[3 * t], *b = cut.v + 3 * cut.tri[3 * t + 1], *c = cut.v + 3 * cut.tri[3 * t + 2];
        double u[3] = { b[0] - a[0], b[1] - a[1], b[2] - a[2] }, w[3] = { c[0] - a[0], c[1] - a[1], c[2] - a[2] };
        double x = u[1] * w[2] - u[2] * w[1], y = u[2] * w[0] - u[0] * w[2], z = u[0] * w[1] - u[1] * w[0];
        area += 0.5 * sqrt(x * x + y * y + z * z);
    }
    double want = (0.117 + 0.155) * sqrt(1.0025) * (0.211 + 0.103);   /* the plane's slope is 0.05 */
    printf("a 2 m plane of 80,000 triangles cut to a 0.27 x 0.31 m clip: %zu triangles, %zu vertices, area %.6f "
           "(%.6f)\n", cut.ntri, cut.nv, area, want);
    CHECK(!same && cut.nv < cut.ntri && fabs(area - want) < 1e-5 * want, "cut plane: %zu triangles on %zu vertices "
          "(expected fewer vertices than triangles), area %.7f against %.7f", cut.ntri, cut.nv, area, want);
    if (!same)
        obj_free(&cut);
    obj_free(&m);
}

int main(void)
{
    test_clip_shapes();
    test_clip_scenes();
    test_budget_clip();
    test_mesh_clip();
    ft_remove_tree(dir);
    return ft_done();
}
