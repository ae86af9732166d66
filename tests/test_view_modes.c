/* test_view_modes.c - the viewer's three draw modes under a private Xvfb
 * (Mesa llvmpipe), on each backend, with a ball of fluid at rest
 * (no gravity, mirror walls):
 *
 * splats: the vertex buffer's second plane flags the ball's outer layer
 *         and nothing deeper than 2 spacings, the outer layer's normals
 *         point out of the ball, and the splat picture has the sphere
 *         picture's silhouette with no hole inside it (the splats close
 *         into a skin).
 * mesh:   the uploaded mesh is the marching-cubes mesh of the same state
 *         (same triangle count as mc_reconstruct here), its picture has
 *         the ball's silhouette with no hole, a surface.cell edit from
 *         the panel rebuilds it at the next frame, and a paused frame with
 *         nothing changed does not.
 * Skips (77) when Xvfb cannot be started.
 */
#include <glad/gl.h>

#include "fcl_test.h"
#include "rnd_camera.h"
#include "view.h"

#define STB_IMAGE_IMPLEMENTATION
#include <stb/stb_image.h>

static char tmp[256];

static const char *scene_json =
    "{ \"name\": \"view modes\", \"sim\": { \"dt\": 0.0005, \"gravity\": [0, 0, 0] },\n"
    "  \"domain\": { \"min\": [0, 0, 0], \"max\": [0.5, 0.5, 0.5] },\n"
    "  \"boundary\": { \"walls\": \"mirror\" }, \"particles\": { \"spacing\": 0.015 },\n"
    "  \"material\": { \"tension_model\": \"none\" },\n"
    "  \"fluid\": [ { \"type\": \"sphere\", \"center\": [0.25, 0.25, 0.25], \"radius\": 0.1 } ] }\n";

static int open_view(fcl_view *v, const char *scene, const char *backend)
{
    char *argv[] = { (char *)scene, "--backend", (char *)backend };
    char err[2048] = "";
    fcl_cli o;
    fcl_view_opts vo = { .width = 480, .height = 360, .steps_per_frame = 1, .field = FCL_FIELD_SPEED,
                         .draw = RND_DRAW_SPHERES, .hide_panel = 1 };
    int rc = cli_parse(&o, 3, argv, FCL_CMD_VIEW);
    if (rc == 0 && (rc = view_open(v, &o, &vo, err, sizeof err)) != 0)
        printf("view_open(%s): %s\n", backend, err);
    v->show_box = v->show_boundary = 0;
    return rc;
}

static int is_background(const unsigned char *p)
{
    return abs(p[0] - 28) + abs(p[1] - 31) + abs(p[2] - 36) <= 9;
}

/* The picture's non-background pixels as a 0/1 mask (NULL on failure). */
static unsigned char *silhouette(fcl_view *v, const char *name, size_t *count)
{
    char path[300], err[1024] = "";
    int w = 0, h = 0, ch = 0;
    snprintf(path, sizeof path, "%s/%s_%s.png", tmp, name, v->be->kind);
    CHECK(view_screenshot(v, path, err, sizeof err) == 0, "screenshot: %s", err);
    unsigned char *img = stbi_load(path, &w, &h, &ch, 3), *mask = img ? malloc((size_t)w * h) : NULL;
    *count = 0;
    for (size_t i = 0; mask && i < (size_t)w * h; i++)
        *count += mask[i] = !is_background(img + 3 * i);
    stbi_image_free(img);
    return mask;
}

/* |a and b| / |a or b| and |a and b| / |a| of two masks of the frame size. */
static void overlap(const fcl_view *v, const unsigned char *a, const unsigned char *b, double *iou, double *cover)
{
    size_t both = 0, either = 0, na = 0;
    for (size_t i = 0; i < (size_t)v->fb_w * v->fb_h; i++) {
        both += a[i] && b[i];
        either += a[i] || b[i];
        na += a[i];
    }
    *iou = either ? (double)both / either : 0.0;
    *cover = na ? (double)both / na : 0.0;
}

typedef struct ball {
    float c[3], R;
} ball;

static ball ball_of(const float4 *p, size_t n)
{
    ball b = { { 0, 0, 0 }, 0.0f };
    for (size_t i = 0; i < n; i++)
        b.c[0] += p[i].x / n, b.c[1] += p[i].y / n, b.c[2] += p[i].z / n;
    for (size_t i = 0; i < n; i++)
        b.R = fmaxf(b.R, sqrtf((p[i].x - b.c[0]) * (p[i].x - b.c[0]) + (p[i].y - b.c[1]) * (p[i].y - b.c[1]) +
                               (p[i].z - b.c[2]) * (p[i].z - b.c[2])));
    return b;
}

/* Flags and normals of the second plane against the ball's geometry. */
static void check_splat_plane(fcl_view *v)
{
    size_t n = v->sim.n;
    float4 *vb = malloc(2 * (n + 1) * sizeof *vb);
    glBindBuffer(GL_ARRAY_BUFFER, rnd_particles_vbo(v->rnd));
    glGetBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)(2 * n * 16), vb);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    float d = v->live.particles_spacing;
    ball b = ball_of(vb, n);
    size_t flagged = 0, deep = 0, outer = 0, outer_flagged = 0, outward = 0, odd = 0;
    for (size_t i = 0; i < n; i++) {
        float4 p = vb[i], m = vb[n + i];
        float rx = p.x - b.c[0], ry = p.y - b.c[1], rz = p.z - b.c[2], r = sqrtf(rx * rx + ry * ry + rz * rz);
        int f = m.w == 1.0f;
        odd += m.w != 0.0f && m.w != 1.0f;
        flagged += f;
        deep += f && r < b.R - 2.0f * d;
        outer += r > b.R - 0.5f * d;
        outer_flagged += f && r > b.R - 0.5f * d;
        outward += f && r > b.R - 0.5f * d && (m.x * rx + m.y * ry + m.z * rz) / r > 0.8f;
    }
    printf("%s splats: %zu of %zu particles flagged, %zu of %zu in the outer layer, %zu deeper than 2 d; "
           "%zu of the outer layer's normals within 37 deg of the radial direction\n",
           v->be->kind, flagged, n, outer_flagged, outer, deep, outward);
    CHECK(odd == 0, "%zu surface flags are neither 0 nor 1", odd);
    CHECK(deep == 0, "%zu flagged particles lie deeper than 2 spacings", deep);
    CHECK(outer > 0 && outer_flagged * 10 >= outer * 9, "only %zu of %zu outer-layer particles flagged",
          outer_flagged, outer);
    CHECK(outer > 0 && outward * 100 >= outer * 95, "only %zu of %zu outer-layer splat normals point out of the ball",
          outward, outer);
    free(vb);
}

/* Background pixels of the mask within frac of the ball's projected
 * radius from its projected center: holes in a closed surface. */
static size_t holes(fcl_view *v, const unsigned char *mask, float frac, size_t *disc)
{
    size_t n = v->sim.n, count = 0;
    float4 *pos = malloc((n + 1) * sizeof *pos);
    float vp[16], proj[16], px, py, cw;
    *disc = 0;
    if (sim_download(&v->sim, pos, NULL, NULL, NULL, NULL) != 0)
        return (size_t)-1;
    ball b = ball_of(pos, n);
    free(pos);
    view_viewproj(v, vp);
    rnd_camera_proj(&v->cam, (float)v->fb_w / (float)v->fb_h, proj);
    if (rnd_project(vp, b.c, v->fb_w, v->fb_h, &px, &py, &cw) != 0)
        return (size_t)-1;
    float rp = frac * b.R * proj[5] * 0.5f * (float)v->fb_h / cw;
    for (int y = 0; y < v->fb_h; y++)
        for (int x = 0; x < v->fb_w; x++)
            if ((x - px) * (x - px) + (y - py) * (y - py) < rp * rp) {
                (*disc)++;
                count += !mask[(size_t)y * v->fb_w + x];
            }
    return count;
}

/* Oriented splats lie in the tangent plane, so the silhouette ends near
 * the outer particles' centers rather than a radius beyond them: the
 * check is overlap with the spheres' picture and no hole inside. */
static void check_splats(fcl_view *v, const unsigned char *spheres)
{
    size_t ns = 0, disc = 0;
    double iou, cover;
    v->draw = RND_DRAW_SPLATS;
    CHECK(view_frame(v) == 0, "a frame in splat mode");
    check_splat_plane(v);
    unsigned char *splats = silhouette(v, "splats", &ns);
    if (!splats || !spheres)
        return;
    overlap(v, spheres, splats, &iou, &cover);
    size_t hole = holes(v, splats, 0.9f, &disc);
    printf("%s splats: %zu pixels; cover %.4f of the spheres' silhouette, IoU %.4f; %zu background pixels of %zu "
           "within 0.9 R of the ball's center\n", v->be->kind, ns, cover, iou, hole, disc);
    CHECK(iou >= 0.9, "splat silhouette: IoU %.4f with the spheres' (>= 0.9)", iou);
    CHECK(disc > 100 && hole == 0, "the splats leave %zu of %zu pixels open inside the ball", hole, disc);
    free(splats);
}

/* The mesh of the view's state, made here with a context of our own. */
static size_t reference_triangles(fcl_view *v)
{
    mc_ctx x;
    mc_config c;
    mc_mesh m;
    char err[1024] = "";
    size_t n = v->sim.n, nt = 0;
    float4 *pos = malloc((n + 1) * sizeof *pos), *vel = malloc((n + 1) * sizeof *vel);
    mc_config_from_params(&c, &v->live);
    memset(&m, 0, sizeof m);
    if (mc_init(&x, v->be, err, sizeof err) == 0 && sim_download(&v->sim, pos, vel, NULL, NULL, NULL) == 0 &&
        mc_reconstruct(&x, &c, pos, vel, n, &m, err, sizeof err) == 0)
        nt = m.nt;
    else
        printf("reference mesh: %s\n", err);
    mc_free(&x);
    mc_mesh_free(&m);
    free(pos);
    free(vel);
    return nt;
}

static void check_mesh(fcl_view *v, const unsigned char *spheres)
{
    char err[1024] = "";
    size_t nm = 0;
    double iou, cover;
    v->draw = RND_DRAW_MESH;
    CHECK(view_frame(v) == 0 && v->mesh_step == v->sim.step, "a frame in mesh mode makes the mesh of step %ld (%ld)",
          v->sim.step, v->mesh_step);
    size_t ref = reference_triangles(v), fine = v->mesh_tris;
    CHECK(fine > 0 && fine == ref && rnd_mesh_triangles(v->rnd) == fine,
          "mesh mode: %zu triangles uploaded, %zu made, %zu by mc_reconstruct of the same state",
          rnd_mesh_triangles(v->rnd), fine, ref);
    unsigned char *mesh = silhouette(v, "mesh", &nm);
    if (mesh && spheres) {
        overlap(v, spheres, mesh, &iou, &cover);
        printf("%s mesh: %zu triangles in %.1f ms; %zu pixels, cover %.4f of the spheres' silhouette, IoU %.4f\n",
               v->be->kind, fine, v->mesh_ms, nm, cover, iou);
        size_t disc = 0, hole = holes(v, mesh, 0.9f, &disc);
        CHECK(iou >= 0.9 && disc > 100 && hole == 0,
              "mesh silhouette: IoU %.4f with the spheres' (>= 0.9), %zu of %zu pixels open inside the ball", iou,
              hole, disc);
    }
    free(mesh);
    /* A panel edit of the surface parameters rebuilds at the next frame,
     * even paused; a paused frame with nothing changed does not. */
    v->paused = 1;
    long made = v->mesh_frame;
    CHECK(view_frame(v) == 0 && v->mesh_frame == made, "a paused frame rebuilt the mesh");
    CHECK(view_apply_param(v, "surface.cell", "1.0", err, sizeof err) == 1, "surface.cell is live: %s", err);
    CHECK(view_frame(v) == 0 && v->mesh_frame != made && v->mesh_tris > 0 && v->mesh_tris < fine,
          "surface.cell 1.0: %zu triangles (was %zu at 0.5), rebuilt %d", v->mesh_tris, fine, v->mesh_frame != made);
    printf("%s mesh: %zu triangles at surface.cell 1.0, %zu at 0.5\n", v->be->kind, v->mesh_tris, fine);
}

static void run_backend(const char *backend, const char *scene)
{
    fcl_view v;
    size_t ns = 0;
    if (open_view(&v, scene, backend) != 0) {
        CHECK(0, "viewer on %s", backend);
        return;
    }
    CHECK(view_frame(&v) == 0, "a frame in sphere mode");
    unsigned char *spheres = silhouette(&v, "spheres", &ns);
    check_splats(&v, spheres);
    check_mesh(&v, spheres);
    free(spheres);
    view_close(&v);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    pid_t xvfb = ft_xvfb_start();
    if (xvfb < 0)
        return 77;
    char scene[300];
    if (ft_scratch_scene("fcl_view_modes", scene_json, tmp, sizeof tmp, scene, sizeof scene) != 0) {
        ft_xvfb_stop(xvfb);
        return 1;
    }
    run_backend("cpu", scene);
    fcl_backend *cl = ft_backend(1);
    if (cl) {
        backend_destroy(cl);
        run_backend("opencl", scene);
    }
    ft_remove_tree(tmp);
    ft_xvfb_stop(xvfb);
    return ft_done();
}
