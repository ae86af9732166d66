/* test_boundary.c - obstacles and their boundary particles: the OBJ reader
 * (good meshes in every face syntax, and each kind of bad input named by
 * file and line), scene obstacles, the samplings of walls, boxes, spheres
 * and meshes measured against their surfaces (distance, nearest-neighbor
 * spacing, coverage of random surface points), carving of fluid lattices
 * against analytic volumes and brute-force distances, inside tests on the
 * glass mesh through rays that hit its edges, and the sampling cache.
 * Invariant: prints "N passed, M failed" last and exits 0 only if M == 0.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "fcl_test.h"

#include <dirent.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "boundary.h"
#include "embedded.h"
#include "obj.h"
#include "boundary_mesh.h"
#include "polygon.h"
#include "scene.h"
#include "sampler.h"

static char tmpdir[64];
static const double PI = 3.14159265358979323846;

/* ---- helpers */

static int has(const char *err, const char *s)
{
    return strstr(err, s) != NULL;
}

static const char *path_in(const char *name)
{
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
    return buf[k];
}

static int spit(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t w = fwrite(data, 1, len, f);
    return fclose(f) == 0 && w == len ? 0 : -1;
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static double dist2(const float4 *a, const float4 *b)
{
    double x = (double)a->x - b->x, y = (double)a->y - b->y, z = (double)a->z - b->z;
    return x * x + y * y + z * z;
}

/* Smallest and largest nearest-neighbor distance, and the mean (O(n^2)). */
static void nn_stats(const float4 *p, size_t n, double *lo, double *mean, double *hi)
{
    *lo = INFINITY;
    *hi = *mean = 0;
    for (size_t i = 0; i < n; i++) {
        double best = INFINITY;
        for (size_t j = 0; j < n; j++)
            if (j != i && dist2(&p[i], &p[j]) < best)
                best = dist2(&p[i], &p[j]);
        best = sqrt(best);
        *lo = fmin(*lo, best);
        *hi = fmax(*hi, best);
        *mean += best / (double)n;
    }
}

static double nearest(const float4 *p, size_t n, const float4 *q)
{
    double best = INFINITY;
    for (size_t j = 0; j < n; j++)
        best = fmin(best, dist2(&p[j], q));
    return sqrt(best);
}

/* Random points on a mesh, uniform over its area; returns the largest
 * distance from one of them to the nearest sample. */
static double coverage(const fcl_mesh *m, const float4 *s, size_t n, int count, unsigned seed)
{
    double *cum = malloc(m->ntri * sizeof *cum), total = 0, worst = 0;
    for (size_t t = 0; t < m->ntri; t++) {
        const float *a = m->v + 3 * m->tri[3 * t], *b = m->v + 3 * m->tri[3 * t + 1], *c = m->v + 3 * m->tri[3 * t + 2];
        double u[3] = { b[0] - a[0], b[1] - a[1], b[2] - a[2] }, v[3] = { c[0] - a[0], c[1] - a[1], c[2] - a[2] };
        double x = u[1] * v[2] - u[2] * v[1], y = u[2] * v[0] - u[0] * v[2], z = u[0] * v[1] - u[1] * v[0];
        cum[t] = total += 0.5 * sqrt(x * x + y * y + z * z);
    }
    for (int k = 0; k < count; k++) {
        double r = ft_rand(&seed, 0, 1) * total, s1 = sqrt(ft_rand(&seed, 0, 1)), s2 = ft_rand(&seed, 0, 1);
        size_t t = 0;
        while (t + 1 < m->ntri && cum[t] < r)
            t++;
        const float *a = m->v + 3 * m->tri[3 * t], *b = m->v + 3 * m->tri[3 * t + 1], *c = m->v + 3 * m->tri[3 * t + 2];
        float4 q;
        q.x = (float)((1 - s1) * a[0] + s1 * (1 - s2) * b[0] + s1 * s2 * c[0]);
        q.y = (float)((1 - s1) * a[1] + s1 * (1 - s2) * b[1] + s1 * s2 * c[1]);
        q.z = (float)((1 - s1) * a[2] + s1 * (1 - s2) * b[2] + s1 * s2 * c[2]);
        worst = fmax(worst, nearest(s, n, &q));
    }
    free(cum);
    return worst;
}

/* A scene from JSON text; `name` stands for its file. */
static int scene_from(fcl_scene *s, const char *name, const char *json, const char *cache)
{
    char err[1024] = "";
    int rc = scene_parse(s, json, name, err, sizeof err);
    CHECK(rc == 0, "scene %s: %s", name, err);
    if (rc == 0)
        snprintf(s->params.boundary_cache_dir, sizeof s->params.boundary_cache_dir, "%s", cache);
    return rc;
}

/* ---- OBJ */

/* The unit cube, outward; one line per face after a comment and the 8
 * vertices, so face k is on line 10 + k. skip: face (0-based) to leave
 * out, or -1; flip: face to wind the wrong way, or -1. */
static void cube_text(char *buf, size_t len, int quads, int skip, int flip)
{
    static const int quad[6][4] = { { 1, 4, 3, 2 }, { 5, 6, 7, 8 }, { 1, 2, 6, 5 },
                                    { 4, 8, 7, 3 }, { 1, 5, 8, 4 }, { 2, 3, 7, 6 } };
    size_t k = (size_t)snprintf(buf, len, "# cube\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n"
                                          "v 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n");
    int face = 0;
    for (int q = 0; q < 6; q++)
        for (int h = 0; h < (quads ? 1 : 2); h++, face++) {
            const int *f = quad[q];
            int a = f[0], b = quads ? f[1] : f[1 + h], c = quads ? f[2] : f[2 + h];
            if (face == skip)
                continue;
            if (face == flip)
                k += (size_t)snprintf(buf + k, len - k, "f %d %d %d\n", a, c, b);
            else if (quads)
                k += (size_t)snprintf(buf + k, len - k, "f %d %d %d %d\n", a, b, c, f[3]);
            else
                k += (size_t)snprintf(buf + k, len - k, "f %d %d %d\n", a, b, c);
        }
}

/* Parse must fail, naming file and line "name:line:" and containing `what`. */
static void obj_refused(const char *text, const char *name, int line, const char *what)
{
    fcl_mesh m;
    char err[1024] = "", at[128];
    if (line > 0)
        snprintf(at, sizeof at, "%s:%d: ", name, line);
    else
        snprintf(at, sizeof at, "%s: ", name);
    CHECK(obj_parse(text, strlen(text), name, &m, err, sizeof err) != 0, "%s accepted", name);
    CHECK(has(err, at) && has(err, what), "%s: expected \"%s...%s\", got \"%s\"", name, at, what, err);
    CHECK(m.v == NULL && m.tri == NULL && m.ntri == 0, "%s: failed parse left a mesh", name);
}

static void test_obj_good(void)
{
    char text[2048], err[1024] = "";
    fcl_mesh m;
    for (int quads = 0; quads < 2; quads++) {
        cube_text(text, sizeof text, quads, -1, -1);
        CHECK(obj_parse(text, strlen(text), "cube.obj", &m, err, sizeof err) == 0, "cube (quads %d): %s", quads, err);
        CHECK(m.nv == 8 && m.ntri == 12, "cube (quads %d): %zu vertices, %zu triangles", quads, m.nv, m.ntri);
        unsigned *e;
        size_t ne = obj_edges(&m, &e);
        CHECK(ne == 18, "cube has %zu distinct edges, expected 18", ne);
        free(e);
        obj_free(&m);
    }
    /* Every face syntax, negative indices, skipped statements, CRLF, a
     * trailing comment, tabs, a last line without newline, and vertices
     * with a w and with a colour (MeshLab's, Blender's; refused before). */
    const char *fancy = "# fancy\r\nmtllib x.mtl\r\no cube\r\nv 0 0 0 1\r\nv 1 0 0\r\nv 1 1 0\r\nv 0 1 0\r\n"
                        "v 0 0 1 0.5 0.5 0.5\r\nv 1 0 1\r\nv 1 1 1\r\nv\t0 1 1\r\nvt 0 0\r\nvn 0 0 1\r\n\r\ng sides\r\n"
                        "s off\r\nusemtl glass\r\nl 1 2\r\nf 1/1 4/1 3/1 2/1\r\nf 5//1 6//1 7//1 8//1 # top\r\n"
                        "f 1/1/1 2/1/1 6/1/1 5/1/1\r\nf -5 -1 -2 -6\r\nf 1 5 8 4\r\nf 2 3 7 6";
    CHECK(obj_parse(fancy, strlen(fancy), "fancy.obj", &m, err, sizeof err) == 0, "fancy cube: %s", err);
    CHECK(m.nv == 8 && m.ntri == 12 && m.v && m.v[3 * 7 + 1] == 1.0f && m.v[3 * 4 + 2] == 1.0f && m.v[3 * 5] == 1.0f,
          "fancy cube: %zu v, %zu t", m.nv, m.ntri);
    obj_free(&m);
    /* A UTF-8 byte order mark before the first line (refused as an
     * unknown statement shown as nothing; a review). */
    char bom[2100] = "\xEF\xBB\xBF";
    cube_text(bom + 3, sizeof bom - 3, 1, -1, -1);
    CHECK(obj_parse(bom, strlen(bom), "bom.obj", &m, err, sizeof err) == 0 && m.ntri == 12, "a cube after a BOM: %s",
          err);
    obj_free(&m);
    CHECK(obj_load("embedded:glass.obj", (size_t)1 << 30, &m, err, sizeof err) == 0, "glass: %s", err);
    CHECK(m.nv == 194 && m.ntri == 384, "glass: %zu vertices, %zu triangles (expected 194, 384)", m.nv, m.ntri);
    obj_free(&m);
}

static void test_obj_bad(void)
{
    char text[2048], err[1024] = "";
    fcl_mesh m;
    CHECK(obj_load(path_in("no/such.obj"), (size_t)1 << 30, &m, err, sizeof err) != 0, "missing file accepted");
    CHECK(has(err, path_in("no/such.obj")) && has(err, "No such file"), "missing file: \"%s\"", err);
    CHECK(obj_load("embedded:nothere.obj", (size_t)1 << 30, &m, err, sizeof err) != 0 && has(err, "embedded:nothere.obj"),
          "missing embedded mesh: \"%s\"", err);
    obj_refused("", "empty.obj", 0, "no faces: expected a closed triangle mesh");
    obj_refused("# only\nv 0 0 0\n\n", "nofaces.obj", 0, "no faces");
    cube_text(text, sizeof text, 0, -1, -1);
    char *v5 = strstr(text, "v 0 0 1");   /* line 6: v 0 0 1 -> v 0 0 */
    memcpy(v5, "v 0 0  ", 7);
    obj_refused(text, "bad_v.obj", 6, "expected 3 numbers after 'v' (or 4, or 6 with a colour), got 'v 0 0'");
    obj_refused("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 x\n", "nan_v.obj", 4, "expected 3 numbers");
    obj_refused("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1e300 1 1\n", "huge_v.obj", 4,
                "expected coordinates within +-3.4e38 (a float's), got 'v 1e300 1 1'");
    obj_refused("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1 1 1\n", "five_v.obj", 4, "(or 4, or 6 with a colour)");
    obj_refused("v 0 0 0\nv 1 0 0\nv 0 1 0\n\nf 1 2 3/\n", "bad_f.obj", 5, "got '3/'");
    obj_refused("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 x\n", "bad_f2.obj", 4, "vertex reference");
    obj_refused("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n", "range.obj", 4, "face index 9 out of range");
    obj_refused("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -4\n", "range2.obj", 4, "face index -4 out of range");
    obj_refused("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -9223372036854775808\n", "range3.obj", 4,
                "face index -9223372036854775808 out of range");
    obj_refused("v 0 0 0\nv 1 0 0\nv 0 1 0\n# zero\nf 0 1 2\n", "zero.obj", 5, "face index 0");
    obj_refused("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2\n", "two.obj", 4, "at least 3 vertices");
    obj_refused("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 2\n", "degen.obj", 4, "degenerate face");
    obj_refused("v 0 0 0\nvx 1 0 0\n", "kw.obj", 2, "expected a statement");
    /* Without the last quad (x = 1), its edge 2-3 is first met in the
     * first quad, 1 4 3 2, on line 10. Without the last triangle, 2 7 6,
     * its edge 6-7 is first met in triangle 5 6 7 on line 12. */
    cube_text(text, sizeof text, 1, 5, -1);
    obj_refused(text, "open.obj", 10, "mesh is not closed: edge between vertices 2 and 3 (line 10) is used by 1 face");
    cube_text(text, sizeof text, 0, 11, -1);
    obj_refused(text, "open_tri.obj", 12, "edge between vertices 6 and 7 (line 12) is used by 1 face");
    for (int flip = 0; flip < 12; flip += 5) {
        char name[32];
        snprintf(name, sizeof name, "flip%d.obj", flip);
        cube_text(text, sizeof text, 0, -1, flip);
        obj_refused(text, name, 10 + flip, "not consistently oriented");
    }
    /* A triangle given twice: that edge is used by 3 faces. */
    cube_text(text, sizeof text, 0, -1, -1);
    strcat(text, "f 1 4 3\n");
    obj_refused(text, "thrice.obj", 10, "is used by 3 faces");
    /* Faces with corners of their own (an STL converter's): not closed,
     * and told to weld them. */
    obj_refused("v 0 0 0\nv 0 1 0\nv 1 0 0\nv 0 0 0\nv 1 0 0\nv 0 0 1\nv 0 0 0\nv 0 0 1\nv 0 1 0\n"
                "v 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 4 5 6\nf 7 8 9\nf 10 11 12\n",
                "unwelded.obj", 13, "used by 1 face; 8 vertices repeat another's position: weld them");
}

/* ---- scenes */

/* Two closed cubes in one file that overlap are one solid: a point in
 * both is inside (the ray's parity read it as outside, and 60 fluid
 * particles stayed in the overlap of such a mesh; a review), as are
 * points in either alone; outside both, outside. */
static void test_overlapping_parts(void)
{
    static const char *text =
        "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n"
        "v 0.5 0.2 0.2\nv 1.5 0.2 0.2\nv 1.5 0.8 0.2\nv 0.5 0.8 0.2\nv 0.5 0.2 0.8\nv 1.5 0.2 0.8\nv 1.5 0.8 0.8\n"
        "v 0.5 0.8 0.8\n"
        "f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n"
        "f 9 12 11 10\nf 13 14 15 16\nf 9 10 14 13\nf 10 11 15 14\nf 11 12 16 15\nf 12 9 13 16\n";
    fcl_mesh m;
    char err[1024] = "";
    boundary_locator L;
    if (obj_parse(text, strlen(text), "two_cubes.obj", &m, err, sizeof err) != 0 ||
        boundary_locator_build(&L, &m) != 0) {
        CHECK(0, "two overlapping cubes: %s", err);
        return;
    }
    static const float in_pts[4][3] = { { 0.75f, 0.5f, 0.5f }, { 0.6f, 0.3f, 0.7f }, { 0.2f, 0.5f, 0.5f },
                                        { 1.3f, 0.5f, 0.5f } };
    static const float out_pts[3][3] = { { 1.3f, 0.1f, 0.5f }, { 1.7f, 0.5f, 0.5f }, { 0.75f, 0.5f, 1.2f } };
    int wrong = 0;
    for (int k = 0; k < 4; k++) {
        float4 p = fcl_f4(in_pts[k][0], in_pts[k][1], in_pts[k][2], 0.0f);
        wrong += !boundary_mesh_inside(&L, &p);
    }
    for (int k = 0; k < 3; k++) {
        float4 p = fcl_f4(out_pts[k][0], out_pts[k][1], out_pts[k][2], 0.0f);
        wrong += boundary_mesh_inside(&L, &p);
    }
    CHECK(wrong == 0, "two overlapping closed cubes: %d of 7 points on the wrong side (the overlap's 2 first)", wrong);
    boundary_locator_free(&L);
    obj_free(&m);
}

/* A concave face is split inside itself: an L-shaped prism whose caps are
 * single 6-vertex faces, one starting at a vertex whose fan leaves the L,
 * has caps of the L's area, 3 (the fan's triangles covered the open notch
 * too, and 11 samples stood there; a review). */
static void test_concave_faces(void)
{
    static const char *text = "v 0 2 0\nv 0 2 1\nv 0 1 1\nv 0 1 2\nv 0 0 2\nv 0 0 0\n"
                              "v 1 2 0\nv 1 2 1\nv 1 1 1\nv 1 1 2\nv 1 0 2\nv 1 0 0\n"
                              "f 6 5 4 3 2 1\nf 7 8 9 10 11 12\nf 1 2 8 7\nf 2 3 9 8\nf 3 4 10 9\n"
                              "f 4 5 11 10\nf 5 6 12 11\nf 6 1 7 12\n";
    fcl_mesh m;
    char err[1024] = "";
    if (obj_parse(text, strlen(text), "L_ngon.obj", &m, err, sizeof err) != 0) {
        CHECK(0, "the L prism: %s", err);
        return;
    }
    double cap[2] = { 0.0, 0.0 };
    for (size_t t = 0; t < m.ntri; t++) {
        const float *a = m.v + 3 * m.tri[3 * t], *b = m.v + 3 * m.tri[3 * t + 1], *c = m.v + 3 * m.tri[3 * t + 2];
        if (a[0] != b[0] || b[0] != c[0])
            continue;   /* a side */
        double area = 0.5 * fabs(((double)b[1] - a[1]) * ((double)c[2] - a[2]) - ((double)b[2] - a[2]) * ((double)c[1] - a[1]));
        cap[a[0] > 0.5f] += area;
    }
    CHECK(m.ntri == 20 && fabs(cap[0] - 3.0) < 1e-6 && fabs(cap[1] - 3.0) < 1e-6,
          "the L prism's caps: %zu triangles, cap areas %g and %g (the L's is 3)", m.ntri, cap[0], cap[1]);
    obj_free(&m);
}

static void test_scene_obstacles(void)
{
    fcl_scene s;
    char err[1024] = "";
    const char *ok = "{\"fluid\": [], \"obstacles\": [ {\"type\": \"mesh\", \"file\": \"m/glass.obj\"},"
                     " {\"type\": \"mesh\", \"file\": \"/abs/g.obj\", \"scale\": 2, \"translate\": [1, 2, 3]},"
                     " {\"type\": \"box\", \"min\": [0, 0, 0], \"max\": [0.5, 0.5, 0.5]},"
                     " {\"type\": \"sphere\", \"center\": [0.5, 0.5, 0.5], \"radius\": 0.1} ] }";
    if (scene_parse(&s, ok, "/data/scenes/x.json", err, sizeof err) == 0) {
        CHECK(s.nobstacles == 4, "%d obstacles", s.nobstacles);
        CHECK(strcmp(s.obstacles[0].file, "/data/scenes/m/glass.obj") == 0, "relative: %s", s.obstacles[0].file);
        CHECK(s.obstacles[0].scale == 1.0f && s.obstacles[0].translate[1] == 0.0f, "defaults");
        CHECK(strcmp(s.obstacles[1].file, "/abs/g.obj") == 0 && s.obstacles[1].scale == 2.0f &&
              s.obstacles[1].translate[2] == 3.0f, "absolute mesh: %s", s.obstacles[1].file);
        CHECK(s.obstacles[2].kind == FCL_SHAPE_BOX && s.obstacles[3].radius == 0.1f, "box, sphere");
        CHECK(scene_check(&s, &s.params, err, sizeof err) == 0, "check: %s", err);
        s.obstacles[3].center[0] = 1.2f;
        CHECK(scene_check(&s, &s.params, err, sizeof err) != 0 && has(err, "obstacles[3]") &&
              has(err, "overlapping the domain"), "sphere outside: \"%s\"", err);
        /* Off a corner, its bounding box reaching in (it was taken). */
        for (int k = 0; k < 3; k++)
            s.obstacles[3].center[k] = s.params.domain_min[k] - 0.1f;
        s.obstacles[3].radius = 0.16f;
        CHECK(scene_check(&s, &s.params, err, sizeof err) != 0 && has(err, "obstacles[3]") &&
              has(err, "lies 0.1732 from it"), "sphere off a corner: \"%s\"", err);
        s.obstacles[3].radius = 0.18f;
        CHECK(scene_check(&s, &s.params, err, sizeof err) == 0, "sphere reaching past a corner: %s", err);
        scene_free(&s);
        CHECK(s.obstacles == NULL && s.nobstacles == 0, "scene_free left obstacles");
    } else {
        CHECK(0, "obstacle scene: %s", err);
    }
    CHECK(scene_parse(&s, ok, "embedded:x.json", err, sizeof err) == 0 &&
          strcmp(s.obstacles[0].file, "embedded:m/glass.obj") == 0, "embedded resolution: %s", err);
    scene_free(&s);
    CHECK(scene_parse(&s, ok, "x.json", err, sizeof err) == 0 && strcmp(s.obstacles[0].file, "m/glass.obj") == 0,
          "no folder: %s", err);
    scene_free(&s);
}

static void test_scene_obstacles_bad(void)
{
    fcl_scene s;
    char err[1024] = "";
    const struct { const char *json, *want; } bad[] = {
        { "{\"fluid\": [], \"obstacles\": [ {\"type\": \"box\", \"min\": [0,0,0], \"max\": [1,1,1], \"radius\": 1} ]}",
          "obstacles[0].radius: unknown key (expected one of: type, min, max)" },
        { "{\"fluid\": [], \"obstacles\": [ {\"type\": \"cone\"} ]}", "obstacles[0].type: expected" },
        { "{\"fluid\": [], \"obstacles\": [ {\"type\": \"mesh\"} ]}", "obstacles[0].file: expected" },
        { "{\"fluid\": [], \"obstacles\": [ {\"type\": \"mesh\", \"file\": \"a.obj\", \"scale\": -1} ]}",
          "obstacles[0].scale: expected a positive number" },
        { "{\"fluid\": [], \"obstacles\": [ {\"type\": \"sphere\", \"center\": [0,0,0]} ]}", "obstacles[0].radius" },
        { "{\"fluid\": [], \"obstacles\": {}}", "obstacles: expected an array" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(scene_parse(&s, bad[i].json, "bad.json", err, sizeof err) != 0 && has(err, "bad.json: ") &&
              has(err, bad[i].want), "bad obstacle %zu: expected \"%s\", got \"%s\"", i, bad[i].want, err);
    }
    CHECK(scene_parse(&s, "{\"fluid\": [], \"obstacles\": [ {\"type\": \"box\", \"min\": [0,0,0], \"max\": [0,1,1]} ]}",
                      "flat.json", err, sizeof err) == 0, "flat box parse: %s", err);
    CHECK(scene_check(&s, &s.params, err, sizeof err) != 0 && has(err, "obstacles[0]: expected max above min"),
          "flat box: \"%s\"", err);
    scene_free(&s);
}

/* ---- sampling */

/* |signed distance| to the surface of a box, exact on and near faces. */
static double box_surface_dist(const float4 *p, const float lo[3], const float hi[3])
{
    double c[3] = { p->x, p->y, p->z }, out = -INFINITY;
    for (int k = 0; k < 3; k++)
        out = fmax(out, fmax(lo[k] - c[k], c[k] - hi[k]));
    return fabs(out);
}

static void test_walls(void)
{
    fcl_scene s;
    fcl_boundary b;
    char err[1024] = "";
    if (scene_from(&s, "walls.json", "{\"fluid\": [], \"domain\": {\"min\": [0, 0, 0], \"max\": [0.5, 0.3, 0.2]},"
                   " \"particles\": {\"spacing\": 0.02}}", "off") != 0)
        return;
    const float d = 0.02f, lo[3] = { -0.01f, -0.01f, -0.01f }, hi[3] = { 0.51f, 0.31f, 0.21f };
    CHECK(boundary_build(&s, &s.params, &b, err, sizeof err) == 0, "walls: %s", err);
    CHECK(b.n == 27 * 17 * 12 - 25 * 15 * 10, "%zu wall samples, expected %d", b.n, 27 * 17 * 12 - 25 * 15 * 10);
    CHECK(b.cache_file[0] == '\0' && b.from_cache == 0, "cache 'off' gave file '%s'", b.cache_file);
    double worst = 0, nlo, nmean, nhi;
    int w = 0;
    for (size_t i = 0; i < b.n; i++) {
        worst = fmax(worst, box_surface_dist(&b.pos[i], lo, hi));
        w += b.pos[i].w != 0.0f;
    }
    CHECK(worst < 1e-5, "a wall sample is %.3g m off the grown box", worst);
    CHECK(w == 0, "%d samples with w != 0", w);
    nn_stats(b.pos, b.n, &nlo, &nmean, &nhi);
    printf("walls: %zu samples, nearest neighbor %.3f .. %.3f d (mean %.3f d)\n", b.n, nlo / d, nhi / d, nmean / d);
    CHECK(nlo >= 0.8 * d && nhi <= 1.2 * d, "wall nearest neighbors %.3g .. %.3g d, expected 0.8 .. 1.2 d", nlo / d,
          nhi / d);
    boundary_free(&b);
    snprintf(s.params.boundary_walls, sizeof s.params.boundary_walls, "mirror");
    CHECK(boundary_build(&s, &s.params, &b, err, sizeof err) == 0 && b.n == 0, "mirror walls: %zu samples", b.n);
    boundary_free(&b);
    scene_free(&s);
}

static void test_box_sphere(void)
{
    const float d = 0.01f, c[3] = { 0.3f, 0.2f, 0.1f }, r = 0.1f;
    size_t n = sampler_sphere(c, r, d, NULL, NULL);
    float4 *p = malloc(n * sizeof *p);
    sampler_sphere(c, r, d, NULL, p);
    double want = 4 * PI * r * r / (d * d), off = 0, nlo, nmean, nhi;
    for (size_t i = 0; i < n; i++)
        off = fmax(off, fabs(sqrt(dist2(&p[i], &(float4){ c[0], c[1], c[2], 0 })) - r));
    nn_stats(p, n, &nlo, &nmean, &nhi);
    printf("sphere r = 10 d: %zu samples (4 pi r^2 / d^2 = %.1f), nearest neighbor %.3f .. %.3f d (mean %.3f d)\n",
           n, want, nlo / d, nhi / d, nmean / d);
    CHECK(fabs(n - want) <= 0.05 * want, "sphere: %zu samples, expected %.0f +- 5%%", n, want);
    CHECK(off <= 1e-4, "sphere: a sample is %.3g m off the surface", off);
    CHECK(nlo >= 0.5 * d, "sphere samples pile up: nearest neighbor %.3f d", nlo / d);
    free(p);
    const float lo[3] = { 0.1f, 0.2f, 0.3f }, hi[3] = { 0.3f, 0.25f, 0.43f };
    n = sampler_box(lo, hi, d, NULL, NULL);
    p = malloc(n * sizeof *p);
    CHECK(sampler_box(lo, hi, d, NULL, p) == n && n == 21 * 6 * 14 - 19 * 4 * 12, "box: %zu samples", n);
    off = 0;
    for (size_t i = 0; i < n; i++)
        off = fmax(off, box_surface_dist(&p[i], lo, hi));
    nn_stats(p, n, &nlo, &nmean, &nhi);
    CHECK(off < 1e-5 && nlo >= 0.8 * d && nhi <= 1.2 * d, "box: off %.3g, nearest %.3f .. %.3f d", off, nlo / d,
          nhi / d);
    free(p);
}

/* The cube of cube_text scaled by `scale`, sampled at spacing d. */
static void check_mesh_sampling(const fcl_mesh *m, float d, const char *what, double max_cover)
{
    float4 *p;
    size_t n;
    CHECK(sampler_mesh(m, d, &p, &n) == 0, "%s: sampling failed", what);
    if (!p)
        return;
    double nlo, nmean, nhi, cover = coverage(m, p, n, 20000, 7);
    nn_stats(p, n, &nlo, &nmean, &nhi);
    printf("%s at d = %g: %zu samples, nearest neighbor %.3f .. %.3f d (mean %.3f d), farthest surface point "
           "%.3f d from a sample\n", what, d, n, nlo / d, nhi / d, nmean / d, cover / d);
    CHECK(cover <= max_cover * d, "%s: a surface point is %.3f d from every sample (limit %.2f d)", what, cover / d,
          max_cover);
    CHECK(nlo >= 0.3 * d, "%s: samples pile up, nearest neighbor %.3f d", what, nlo / d);
    free(p);
}

static void test_mesh_sampling(void)
{
    char text[2048], err[1024] = "";
    fcl_mesh m;
    cube_text(text, sizeof text, 0, -1, -1);
    if (obj_parse(text, strlen(text), "cube.obj", &m, err, sizeof err) != 0) {
        CHECK(0, "cube: %s", err);
        return;
    }
    for (size_t i = 0; i < 3 * m.nv; i++)
        m.v[i] = 0.1f * m.v[i] + 0.05f;
    check_mesh_sampling(&m, 0.01f, "cube 0.1 m", 0.75);
    check_mesh_sampling(&m, 0.013f, "cube 0.1 m", 0.75);
    check_mesh_sampling(&m, 0.0071f, "cube 0.1 m", 0.75);
    obj_free(&m);
    if (obj_load("embedded:glass.obj", (size_t)1 << 30, &m, err, sizeof err) != 0) {
        CHECK(0, "glass: %s", err);
        return;
    }
    check_mesh_sampling(&m, 0.005f, "glass", 0.75);
    check_mesh_sampling(&m, 0.0125f, "glass", 0.75);
    obj_free(&m);
}

/* ---- carving */

/* Particles on the fluid lattice filling lo..hi; vel.x holds the index. */
static size_t lattice(const float lo[3], const float hi[3], float d, float4 **pos, float4 **vel)
{
    int n[3];
    for (int k = 0; k < 3; k++)
        n[k] = (int)floor((hi[k] - lo[k]) / d + 1e-4);
    size_t total = (size_t)n[0] * n[1] * n[2], i = 0;
    *pos = malloc(total * sizeof **pos + 16);
    *vel = malloc(total * sizeof **vel + 16);
    for (int z = 0; z < n[2]; z++)
        for (int y = 0; y < n[1]; y++)
            for (int x = 0; x < n[0]; x++, i++) {
                (*pos)[i] = fcl_f4(lo[0] + (x + 0.5f) * d, lo[1] + (y + 0.5f) * d, lo[2] + (z + 0.5f) * d, 0);
                (*vel)[i] = fcl_f4((float)i, 0, 0, 0);
            }
    return total;
}

static int in_box_sphere(const float4 *p)
{
    return (p->x > 0.1f && p->x < 0.3f && p->y > 0.0f && p->y < 0.2f && p->z > 0.1f && p->z < 0.3f) ||
           dist2(p, &(float4){ 0.4f, 0.2f, 0.2f, 0 }) < 0.08 * 0.08;
}

static void check_survivors(const fcl_boundary *b, const float4 *orig, const float4 *pos, const float4 *vel,
                            size_t kept, float gap)
{
    int inside = 0, near = 0, order = 0;
    for (size_t i = 0; i < kept; i++) {
        inside += in_box_sphere(&pos[i]);
        near += gap > 0 && nearest(b->pos, b->n, &pos[i]) < gap;
        size_t from = (size_t)vel[i].x;
        order += (i > 0 && vel[i].x <= vel[i - 1].x) || memcmp(&orig[from], &pos[i], sizeof *pos) != 0;
    }
    CHECK(inside == 0, "gap %g: %d survivors inside an obstacle", gap, inside);
    CHECK(near == 0, "gap %g: %d survivors closer than the gap to a sample", gap, near);
    CHECK(order == 0, "gap %g: %d survivors out of order or not moved with their velocity", gap, order);
}

static void test_carve_box_sphere(void)
{
    fcl_scene s;
    fcl_boundary b;
    char err[1024] = "";
    const float d = 0.02f, lo[3] = { 0, 0, 0 }, hi[3] = { 0.5f, 0.4f, 0.4f };
    if (scene_from(&s, "carve.json", "{\"fluid\": [], \"domain\": {\"min\": [0, 0, 0], \"max\": [0.5, 0.4, 0.4]},"
                   " \"particles\": {\"spacing\": 0.02}, \"obstacles\": ["
                   " {\"type\": \"box\", \"min\": [0.1, 0, 0.1], \"max\": [0.3, 0.2, 0.3]},"
                   " {\"type\": \"sphere\", \"center\": [0.4, 0.2, 0.2], \"radius\": 0.08} ]}", "off") != 0)
        return;
    CHECK(boundary_build(&s, &s.params, &b, err, sizeof err) == 0, "build: %s", err);
    float4 *pos, *vel, *orig;
    size_t n = lattice(lo, hi, d, &orig, &vel);
    free(vel);
    double want = (0.2 * 0.2 * 0.2 + 4.0 / 3.0 * PI * 0.08 * 0.08 * 0.08) / ((double)d * d * d);
    size_t removed[2];
    const float gaps[2] = { 0.0f, 0.6f * d };
    for (int g = 0; g < 2; g++) {
        lattice(lo, hi, d, &pos, &vel);
        size_t kept = boundary_carve(&b, pos, vel, n, gaps[g]);
        removed[g] = n - kept;
        check_survivors(&b, orig, pos, vel, kept, gaps[g]);
        free(pos);
        free(vel);
    }
    printf("carve: %zu lattice particles, %zu removed inside obstacles (volume / d^3 = %.1f), %zu with gap 0.6 d\n",
           n, removed[0], want, removed[1]);
    CHECK(fabs(removed[0] - want) <= 0.1 * want, "removed %zu, expected %.0f +- 10%%", removed[0], want);
    /* With a gap the box goes grown by it, whole (its samples lie on its
     * faces on their own lattice: fluid half a spacing off a face was kept
     * and started compressed), the sphere where a point nears a sample:
     * at least the grown box's lattice points, at most those of both
     * grown shapes (samples lie on the surfaces). */
    size_t in_box = 0, in_any = 0;
    for (size_t i = 0; i < n; i++) {
        const float q[3] = { orig[i].x, orig[i].y, orig[i].z };
        int bx = scene_in_shape(&s.obstacles[0], q, gaps[1]);
        in_box += bx;
        in_any += bx || scene_in_shape(&s.obstacles[1], q, gaps[1]);
    }
    CHECK(removed[1] >= in_box && removed[1] <= in_any, "gap removed %zu, expected %zu .. %zu", removed[1], in_box,
          in_any);
    free(orig);
    boundary_free(&b);
    scene_free(&s);
}

/* Walls alone: the first fluid layer is a full spacing from the wall
 * samples, so a gap below d removes nothing. */
static void test_carve_walls(void)
{
    fcl_scene s;
    fcl_boundary b;
    char err[1024] = "";
    const float d = 0.02f, lo[3] = { 0, 0, 0 }, hi[3] = { 0.5f, 0.4f, 0.4f };
    float4 *pos, *vel;
    if (scene_from(&s, "walls.json", "{\"fluid\": [], \"domain\": {\"min\": [0, 0, 0], \"max\": [0.5, 0.4, 0.4]},"
                   " \"particles\": {\"spacing\": 0.02}}", "off") != 0)
        return;
    CHECK(boundary_build(&s, &s.params, &b, err, sizeof err) == 0, "walls: %s", err);
    size_t n = lattice(lo, hi, d, &pos, &vel);
    CHECK(boundary_carve(&b, pos, vel, n, 0.9f * d) == n, "walls at gap 0.9 d removed fluid");
    free(pos);
    free(vel);
    boundary_free(&b);
    scene_free(&s);
}

static const char *glass_scene = "{\"fluid\": [], \"domain\": {\"min\": [0, 0, 0], \"max\": [0.16, 0.3, 0.16]},"
                                 " \"particles\": {\"spacing\": 0.005}, \"obstacles\": ["
                                 " {\"type\": \"mesh\", \"file\": \"glass.obj\", \"translate\": [0.08, 0, 0.08]} ]}";

/* Inside the glass solid, exactly, with the axis at (0.08, 0.08): -1 for
 * points too near a face for a 48-gon to be told from the circle. */
static int glass_truth(const float4 *p)
{
    double r = hypot(p->x - 0.08, p->z - 0.08), y = p->y, m = 5e-4;
    if (fabs(r - 0.05) < m || fabs(r - 0.042) < m || fabs(y) < 1e-4 || fabs(y - 0.01) < 1e-4 || fabs(y - 0.12) < 1e-4)
        return -1;
    return y > 0 && y < 0.12 && r < 0.05 && !(r < 0.042 && y > 0.01);
}

/* Known points, most in the plane z = 0.08 of the axis and of the wall
 * vertices at angle 0: their rays along +x run exactly through the
 * vertical edges shared by two wall triangles, where a naive parity test
 * counts a crossing twice or not at all. */
static void glass_probes(const fcl_boundary *b)
{
    float4 probe[] = { { 0.126f, 0.06f, 0.08f, 0 }, { 0.08f, 0.06f, 0.08f, 0 },  { 0.08f, 0.005f, 0.08f, 0 },
                       { 0.034f, 0.06f, 0.08f, 0 }, { 0.135f, 0.06f, 0.08f, 0 }, { 0.126f, 0.125f, 0.08f, 0 },
                       { 0.10f, 0.015f, 0.08f, 0 }, { 0.08f, 0.06f, 0.126f, 0 }, { 0.03f, -0.001f, 0.08f, 0 },
                       { 0.03f, 0.0001f, 0.08f, 0 } };
    const int want[] = { 1, 0, 1, 1, 0, 0, 0, 1, 0, 1 };
    const size_t np = sizeof probe / sizeof probe[0];
    float4 vel[sizeof probe / sizeof probe[0]];
    for (size_t i = 0; i < np; i++)
        vel[i] = fcl_f4((float)i, 0, 0, 0);
    size_t kept = boundary_carve(b, probe, vel, np, 0.0f);
    int got[sizeof probe / sizeof probe[0]] = { 0 };
    for (size_t i = 0; i < np; i++)
        got[i] = 1;
    for (size_t i = 0; i < kept; i++)
        got[(size_t)vel[i].x] = 0;
    for (size_t i = 0; i < np; i++)
        CHECK(got[i] == want[i], "glass probe %zu: inside %d, expected %d", i, got[i], want[i]);
}

/* Random points against the analytic solid. */
static void glass_random(const fcl_boundary *b)
{
    unsigned seed = 11;
    size_t n = 40000, tested = 0, wrong = 0, kept;
    float4 *p = malloc(n * sizeof *p), *v = malloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++) {
        p[i] = fcl_f4(ft_rand(&seed, 0.02f, 0.14f), ft_rand(&seed, -0.01f, 0.13f), ft_rand(&seed, 0.02f, 0.14f), 0);
        v[i] = fcl_f4((float)i, 0, 0, 0);
    }
    float4 *orig = malloc(n * sizeof *orig);
    memcpy(orig, p, n * sizeof *p);
    kept = boundary_carve(b, p, v, n, 0.0f);
    unsigned char *inside = malloc(n);
    memset(inside, 1, n);
    for (size_t i = 0; i < kept; i++)
        inside[(size_t)v[i].x] = 0;
    for (size_t i = 0; i < n; i++)
        if (glass_truth(&orig[i]) >= 0) {
            tested++;
            wrong += glass_truth(&orig[i]) != inside[i];
        }
    printf("glass: %zu samples; %zu random points classified, %zu wrong\n", b->n, tested, wrong);
    CHECK(wrong == 0 && tested > n / 2, "glass: %zu of %zu random points misclassified", wrong, tested);
    free(p);
    free(v);
    free(orig);
    free(inside);
}

static void test_carve_glass(void)
{
    fcl_scene s;
    fcl_boundary b;
    char err[1024] = "";
    if (scene_from(&s, "embedded:probe.json", glass_scene, "off") != 0)
        return;
    CHECK(boundary_build(&s, &s.params, &b, err, sizeof err) == 0, "glass: %s", err);
    glass_probes(&b);
    glass_random(&b);
    boundary_free(&b);
    scene_free(&s);
}

/* About a million particles against the glass, timed; checked on a subset. */
static void test_carve_million(void)
{
    fcl_scene s;
    fcl_boundary b;
    char err[1024] = "";
    if (scene_from(&s, "embedded:million.json", glass_scene, "off") != 0)
        return;
    const float d = 0.00195f, lo[3] = { 0, 0, 0 }, hi[3] = { 0.16f, 0.3f, 0.16f };
    s.params.particles_spacing = d;
    CHECK(boundary_build(&s, &s.params, &b, err, sizeof err) == 0, "glass: %s", err);
    float4 *pos, *vel;
    size_t n = lattice(lo, hi, d, &pos, &vel);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    size_t kept = boundary_carve(&b, pos, vel, n, 0.5f * d);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    size_t bad = 0;
    for (size_t i = 0; i < kept; i += 97)
        bad += glass_truth(&pos[i]) == 1;
    printf("carve: %zu particles against the glass (%zu samples) in %.3f s, %zu removed\n", n, b.n, secs, n - kept);
    CHECK(kept < n && bad == 0, "million: %zu sampled survivors inside the glass", bad);
    CHECK(secs < 60.0, "carving %zu particles took %.1f s", n, secs);
    free(pos);
    free(vel);
    boundary_free(&b);
    scene_free(&s);
}

/* ---- the cache */

static int count_entries(const char *dir, const char *prefix)
{
    DIR *dp = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (dp && (e = readdir(dp)) != NULL)
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    if (dp)
        closedir(dp);
    return n;
}

static int same(const fcl_boundary *a, const fcl_boundary *b)
{
    return a->n == b->n && a->n > 0 && memcmp(a->pos, b->pos, a->n * sizeof *a->pos) == 0;
}

/* Build again after damaging the cache file with `damage` bytes kept
 * (or one appended when keep is -1, or sample 3 moved in place when -2,
 * which the checksum must catch: read, it carved fluid out run after
 * run): must recompute and rewrite it. */
static void check_damaged(const fcl_scene *s, const fcl_boundary *ref, long keep, const char *what)
{
    fcl_boundary b;
    char err[1024] = "";
    long size = file_size(ref->cache_file);
    FILE *f = fopen(ref->cache_file, keep != -1 ? "r+b" : "ab");
    const float moved[3] = { 0.1f, 0.1f, 0.1f };
    if (f && keep >= 0)
        CHECK(ftruncate(fileno(f), keep) == 0, "truncate");
    else if (f && keep == -2)
        CHECK(fseek(f, 16 + 16 * 3, SEEK_SET) == 0 && fwrite(moved, sizeof moved, 1, f) == 1, "move a sample");
    else if (f)
        fputc(0, f);
    if (f)
        fclose(f);
    CHECK(boundary_build(s, &s->params, &b, err, sizeof err) == 0, "%s: %s", what, err);
    CHECK(b.from_cache == 0 && same(&b, ref), "%s cache: from_cache %d, samples identical %d", what, b.from_cache,
          same(&b, ref));
    CHECK(file_size(ref->cache_file) == size, "%s cache not rewritten: %ld bytes, expected %ld", what,
          file_size(ref->cache_file), size);
    boundary_free(&b);
}

static void cache_scene(fcl_scene *s, const char *cache)
{
    char json[1024], cube[2048];
    cube_text(cube, sizeof cube, 0, -1, -1);
    spit(path_in("cube.obj"), cube, strlen(cube));
    snprintf(json, sizeof json, "{\"fluid\": [], \"domain\": {\"min\": [0, 0, 0], \"max\": [1, 0.6, 0.4]},"
             " \"particles\": {\"spacing\": 0.02}, \"obstacles\": ["
             " {\"type\": \"box\", \"min\": [0.6, 0, 0.1], \"max\": [0.7, 0.35, 0.2]},"
             " {\"type\": \"sphere\", \"center\": [0.8, 0.1, 0.3], \"radius\": 0.06},"
             " {\"type\": \"mesh\", \"file\": \"cube.obj\", \"scale\": 0.1, \"translate\": [0.2, 0.2, 0.2]} ]}");
    scene_from(s, path_in("scene.json"), json, cache);
}

static void test_cache(void)
{
    fcl_scene s;
    fcl_boundary a, b;
    char err[1024] = "", dir[512];
    snprintf(dir, sizeof dir, "%s", path_in("cache/a/b"));
    cache_scene(&s, dir);
    CHECK(boundary_build(&s, &s.params, &a, err, sizeof err) == 0, "first build: %s", err);
    CHECK(a.from_cache == 0 && strncmp(a.cache_file, dir, strlen(dir)) == 0 && has(a.cache_file, "/boundary-") &&
          strlen(a.cache_file) == strlen(dir) + strlen("/boundary-0123456789abcdef.bin"),
          "first build: from_cache %d, file '%s'", a.from_cache, a.cache_file);
    CHECK(file_size(a.cache_file) == (long)(16 + 16 * a.n + 8), "cache file %ld bytes for %zu samples",
          file_size(a.cache_file), a.n);
    CHECK(boundary_build(&s, &s.params, &b, err, sizeof err) == 0, "second build: %s", err);
    CHECK(b.from_cache == 1 && same(&a, &b), "second build: from_cache %d, identical %d", b.from_cache, same(&a, &b));
    CHECK(b.nobstacles == 3 && b.meshes[2].ntri == 12 && b.meshes[2].v[0] == 0.2f,
          "meshes are loaded and placed when samples come from the cache");
    boundary_free(&b);
    check_damaged(&s, &a, (long)(16 + 16 * a.n) / 2, "truncated");
    check_damaged(&s, &a, 12, "header-only");
    check_damaged(&s, &a, -1, "overlong");
    check_damaged(&s, &a, -2, "a sample moved in");
    CHECK(count_entries(dir, ".tmp-") == 0, "temporary files left in %s", dir);
    /* Anything the samples depend on changes the name. */
    s.params.particles_spacing = 0.025f;
    CHECK(boundary_build(&s, &s.params, &b, err, sizeof err) == 0 && b.from_cache == 0 &&
          strcmp(a.cache_file, b.cache_file) != 0, "new spacing, same cache file %s", b.cache_file);
    boundary_free(&b);
    s.params.particles_spacing = 0.02f;
    spit(path_in("cube.obj"), "# changed\n", 10);
    FILE *f = fopen(path_in("cube.obj"), "ab");
    char cube[2048];
    cube_text(cube, sizeof cube, 1, -1, -1);
    fputs(cube, f);
    fclose(f);
    CHECK(boundary_build(&s, &s.params, &b, err, sizeof err) == 0 && strcmp(a.cache_file, b.cache_file) != 0 &&
          same(&a, &b), "edited mesh file: same cache name or different samples");
    boundary_free(&b);
    CHECK(count_entries(dir, "boundary-") == 3, "%d cache files, expected 3", count_entries(dir, "boundary-"));
    boundary_free(&a);
    scene_free(&s);
}

static void test_cache_dirs(void)
{
    fcl_scene s;
    fcl_boundary b;
    char err[1024] = "", want[512];
    setenv("XDG_CACHE_HOME", path_in("xdg"), 1);
    setenv("HOME", path_in("home"), 1);
    cache_scene(&s, "off");
    CHECK(boundary_build(&s, &s.params, &b, err, sizeof err) == 0 && b.cache_file[0] == '\0' && b.n > 0,
          "cache off: %s '%s'", err, b.cache_file);
    CHECK(file_size(path_in("xdg")) < 0 && file_size(path_in("home")) < 0, "cache 'off' wrote a folder");
    boundary_free(&b);
    s.params.boundary_cache_dir[0] = '\0';
    snprintf(want, sizeof want, "%s/fluidcl/boundary-", path_in("xdg"));
    CHECK(boundary_build(&s, &s.params, &b, err, sizeof err) == 0 && strncmp(b.cache_file, want, strlen(want)) == 0 &&
          file_size(b.cache_file) > 0, "XDG_CACHE_HOME: '%s'", b.cache_file);
    boundary_free(&b);
    unsetenv("XDG_CACHE_HOME");
    snprintf(want, sizeof want, "%s/.cache/fluidcl/boundary-", path_in("home"));
    CHECK(boundary_build(&s, &s.params, &b, err, sizeof err) == 0 && strncmp(b.cache_file, want, strlen(want)) == 0 &&
          file_size(b.cache_file) > 0, "HOME: '%s'", b.cache_file);
    boundary_free(&b);
    unsetenv("HOME");
    CHECK(boundary_build(&s, &s.params, &b, err, sizeof err) == 0 && b.cache_file[0] == '\0', "no HOME: '%s'",
          b.cache_file);
    boundary_free(&b);
    /* An unwritable cache costs a warning, not the build. */
    spit(path_in("afile"), "x", 1);
    snprintf(s.params.boundary_cache_dir, sizeof s.params.boundary_cache_dir, "%s", path_in("afile/sub"));
    printf("(a warning about %s is expected next)\n", path_in("afile/sub"));
    fflush(stdout);
    CHECK(boundary_build(&s, &s.params, &b, err, sizeof err) == 0 && b.from_cache == 0 && b.n > 0,
          "unwritable cache: %s", err);
    boundary_free(&b);
    scene_free(&s);
}

/* ---- errors and shipped scenes */

static void test_build_errors(void)
{
    fcl_scene s;
    fcl_boundary b;
    char err[1024] = "";
    if (scene_from(&s, path_in("missing.json"), "{\"fluid\": [], \"obstacles\": [ {\"type\": \"mesh\","
                   " \"file\": \"nothere.obj\"} ]}", "off") == 0) {
        CHECK(boundary_build(&s, &s.params, &b, err, sizeof err) != 0 && has(err, path_in("nothere.obj")),
              "missing mesh: \"%s\"", err);
        CHECK(b.pos == NULL && b.meshes == NULL, "failed build left data");
        scene_free(&s);
    }
    if (scene_from(&s, "embedded:far.json", "{\"fluid\": [], \"obstacles\": [ {\"type\": \"mesh\","
                   " \"file\": \"glass.obj\", \"translate\": [5, 0, 0]} ]}", "off") == 0) {
        CHECK(boundary_build(&s, &s.params, &b, err, sizeof err) != 0 && has(err, "embedded:far.json: obstacles[0]") &&
              has(err, "overlapping the domain"), "mesh outside: \"%s\"", err);
        scene_free(&s);
    }
}

static void test_shipped(void)
{
    const char *names[] = { "embedded:glass_pour.json", "embedded:dam_break_obstacle.json",
                            "embedded:corridor_flood.json", "embedded:nozzle_box.json" };
    for (int i = 0; i < 4; i++) {
        fcl_scene s;
        fcl_boundary b;
        char err[1024] = "";
        float4 *pos, *vel;
        size_t n;
        if (scene_load(&s, names[i], err, sizeof err) != 0) {
            CHECK(0, "%s", err);
            continue;
        }
        snprintf(s.params.boundary_cache_dir, sizeof s.params.boundary_cache_dir, "off");
        CHECK(scene_check(&s, &s.params, err, sizeof err) == 0, "%s", err);
        CHECK(boundary_build(&s, &s.params, &b, err, sizeof err) == 0, "%s", err);
        CHECK(scene_particles(&s, &s.params, &pos, &vel, &n, err, sizeof err) == 0, "%s", err);
        size_t kept = boundary_carve(&b, pos, vel, n, 0.5f * s.params.particles_spacing);
        printf("%s: %d obstacles, %zu boundary samples, %zu fluid particles, %zu carved\n", names[i], s.nobstacles,
               b.n, n, n - kept);
        /* a scene fed only by emitters starts empty: then it must have some */
        CHECK(s.nobstacles > 0 && b.n > 0, "%s: no obstacles", names[i]);
        CHECK(n > 0 ? kept > 0 : s.nemitters > 0, "%s: %zu fluid particles, %zu kept, %d emitters", names[i], n,
              kept, s.nemitters);
        if (i == 0)
            CHECK(kept == n, "glass_pour: the stream starts above the glass, yet %zu were carved", n - kept);
        free(pos);
        free(vel);
        boundary_free(&b);
        scene_free(&s);
    }
}

/* Every scene shipped in the binary loads, passes the scene checks, and
 * has fluid to simulate: particles at the start or an emitter to add them
 * (an emitter scene whose fluid list went empty is not a broken scene). */
static void test_every_scene(void)
{
    int scenes = 0;
    for (size_t i = 0; i < fcl_embedded_scene_count; i++) {
        const char *name = fcl_embedded_scenes[i].name;
        size_t len = strlen(name);
        if (len <= 5 || strcmp(name + len - 5, ".json") != 0)
            continue;
        char path[256], err[1024] = "";
        snprintf(path, sizeof path, "embedded:%s", name);
        fcl_scene s;
        if (scene_load(&s, path, err, sizeof err) != 0) {
            CHECK(0, "%s", err);
            continue;
        }
        float4 *pos = NULL, *vel = NULL;
        size_t n = 0;
        CHECK(scene_check(&s, &s.params, err, sizeof err) == 0, "%s", err);
        CHECK(scene_particles(&s, &s.params, &pos, &vel, &n, err, sizeof err) == 0, "%s", err);
        CHECK(n > 0 || s.nemitters > 0, "%s: no fluid particles and no emitters", path);
        free(pos);
        free(vel);
        scene_free(&s);
        scenes++;
    }
    printf("%d shipped scenes load and have fluid\n", scenes);
    CHECK(scenes >= 18, "only %d embedded scenes", scenes);
}

int main(void)
{
    strcpy(tmpdir, "/tmp/test_boundary_XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_obj_good();
    test_overlapping_parts();
    test_concave_faces();
    test_obj_bad();
    test_scene_obstacles();
    test_scene_obstacles_bad();
    test_walls();
    test_box_sphere();
    test_mesh_sampling();
    test_carve_box_sphere();
    test_carve_walls();
    test_carve_glass();
    test_carve_million();
    test_cache();
    test_cache_dirs();
    test_build_errors();
    test_shipped();
    test_every_scene();
    ft_remove_tree(tmpdir);
    return ft_done();
}
