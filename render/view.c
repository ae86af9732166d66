/* view.c - the viewer's window and frame loop (see view.h): opening and
 * closing, one frame, drawing, kernel hot reload, capture. */
#include "view.h"

#include <dirent.h>
#include <glad/gl.h>
#include <GLFW/glfw3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "be_opencl.h"
#include "rnd_capture.h"
#include "rnd_gui.h"

static unsigned long view_kernel_signature(const char *dir);
static char glfw_reason[256];

static void on_glfw_error(int code, const char *desc)
{
    (void)code;
    snprintf(glfw_reason, sizeof glfw_reason, "%s", desc);
}

void view_gl_finish(void)
{
    glFinish();
}

int view_display_available(void)
{
    const char *x = getenv("DISPLAY"), *wl = getenv("WAYLAND_DISPLAY");
    if ((!x || !*x) && (!wl || !*wl))
        return 0;
    glfwSetErrorCallback(on_glfw_error);
    int ok = glfwInit();
    if (ok)
        glfwTerminate();
    return ok;
}

static int open_window(fcl_view *v, const fcl_view_opts *vo, char *err, size_t errlen)
{
    glfwSetErrorCallback(on_glfw_error);
    if (!glfwInit()) {
        snprintf(err, errlen, "view: no display (%s); use 'fluidcl run' headless", glfw_reason);
        return -1;
    }
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    char title[256];
    snprintf(title, sizeof title, "fluidcl - %s", v->scene.name[0] ? v->scene.name : v->scene.file);
    v->win = glfwCreateWindow(vo->width > 0 ? vo->width : 1280, vo->height > 0 ? vo->height : 720, title, NULL, NULL);
    if (!v->win) {
        snprintf(err, errlen, "view: no OpenGL 3.3 core context (%s)", glfw_reason);
        return -1;
    }
    glfwMakeContextCurrent(v->win);
    if (gladLoadGL(glfwGetProcAddress) == 0) {
        snprintf(err, errlen, "view: glad could not load OpenGL 3.3 core");
        return -1;
    }
    glfwSwapInterval(vo->vsync ? 1 : 0);
    glfwGetFramebufferSize(v->win, &v->fb_w, &v->fb_h);
    return 0;
}

/* Color ranges that suit the scene: speeds up to a free fall over the
 * domain height, densities within 10 % of rho0, the hydrostatic pressure
 * at the floor (each unless set in the panel); the ball's and the push's
 * radii from the domain's width (likewise). Made again when any of what
 * they come from changes (a live rest density or gravity, a reset to
 * another spacing or domain: they once kept the first scene's, a review). */
static void scene_defaults(fcl_view *v)
{
    const fcl_params *p = &v->live;
    double g = sqrt(p->sim_gravity[0] * p->sim_gravity[0] + p->sim_gravity[1] * p->sim_gravity[1] +
                    p->sim_gravity[2] * p->sim_gravity[2]);
    double hgt = p->domain_max[1] - p->domain_min[1], rho0 = p->material_rest_density;
    float ext = fminf(p->domain_max[0] - p->domain_min[0], p->domain_max[2] - p->domain_min[2]);
    double key[6] = { rho0, g, hgt, ext, p->particles_spacing, 1.0 };
    if (memcmp(key, v->defaults_for, sizeof key) == 0)
        return;
    memcpy(v->defaults_for, key, sizeof key);
    float r[FCL_FIELD_COUNT][2] = {
        { 0.0f, (float)fmax(sqrt(2.0 * g * hgt), 0.5) }, { (float)(0.9 * rho0), (float)(1.1 * rho0) },
        { 0.0f, (float)fmax(rho0 * g * hgt, 1.0) }, { 0.0f, 7.0f }, { 0.0f, 1.0f },
    };
    for (int f = 0; f < FCL_FIELD_COUNT; f++)
        if (!v->range_user[f])
            memcpy(v->range[f], r[f], sizeof r[f]);
    if (!(v->radius_user & 2))
        v->ball_radius = fmaxf(0.12f * ext, 3.0f * p->particles_spacing);
    if (!(v->radius_user & 1))
        v->force_radius = fmaxf(0.08f * ext, 3.0f * p->particles_spacing);
}

/* The kernel folder: --kernel-dir, else the source tree's kernels/ when
 * this binary was built from one that still exists, else none. */
static void choose_kernel_dir(fcl_view *v)
{
    struct stat st;
    const char *dir = v->cli.kernel_dir;
#ifdef FCL_SOURCE_KERNELS
    if (!dir && stat(FCL_SOURCE_KERNELS, &st) == 0 && S_ISDIR(st.st_mode))
        dir = FCL_SOURCE_KERNELS;
#endif
    snprintf(v->kernel_dir, sizeof v->kernel_dir, "%s", dir ? dir : "");
}

static void defaults(fcl_view *v, const fcl_cli *o, const fcl_view_opts *vo)
{
    memset(v, 0, sizeof *v);
    v->cli = *o;
    v->steps_per_frame = vo->steps_per_frame > 0 ? vo->steps_per_frame : 1;
    v->field = vo->field >= 0 && vo->field < FCL_FIELD_COUNT ? vo->field : FCL_FIELD_SPEED;
    /* A window too narrow for the panel beside the scene starts without
     * it (H shows it): it would cover the fluid. */
    int narrow = vo->width > 0 && vo->width <= 2 * RND_GUI_WIDTH;
    v->show_panel = !vo->hide_panel && !narrow;
    v->show_overlay = vo->show_overlay;
    v->show_box = v->show_boundary = 1;
    v->draw = vo->draw >= 0 && vo->draw < RND_DRAW_COUNT ? vo->draw : RND_DRAW_SPHERES;
    v->splat_scale = 1.5f;
    v->mesh_every = 1;
    v->mesh_step = -1;
    v->reload_ok = -1;
    v->force_gain = 20.0f;
    choose_kernel_dir(v);
}

int view_open(fcl_view *v, const fcl_cli *o, const fcl_view_opts *vo, char *err, size_t errlen)
{
    defaults(v, o, vo);
    err[0] = '\0';
    if (cli_scene(o, &v->scene) != 0)
        return FCL_EXIT_INPUT;      /* cli_scene printed why */
    v->edit = v->live = v->scene.params;
    int rc = open_window(v, vo, err, errlen) != 0 ? FCL_EXIT_DEVICE : 0;
    if (rc == 0 && !(v->rnd = rnd_create(err, errlen)))
        rc = FCL_EXIT_DEVICE;
    if (rc == 0) {
        view_input_install(v);      /* first: ImGui chains to these callbacks */
        rnd_gui_init(v->win);
        rc = view_interop_backend(v, err, errlen);
    }
    if (rc == 0 && (rc = view_load_scene(v, err, errlen)) == 0) {
        view_frame_domain(v);
        scene_defaults(v);
        v->kernel_sig = v->kernel_dir[0] ? view_kernel_signature(v->kernel_dir) : 0;
        v->t_open = v->t_last = glfwGetTime();
        if (vo->record_dir && (rc = view_set_recording(v, vo->record_dir, err, errlen)) != 0) {
            char why[1024];   /* the option it came from */
            snprintf(why, sizeof why, "%s", err);
            snprintf(err, errlen, "--record %s", why + (strncmp(why, "record folder ", 14) == 0 ? 14 : 0));
            rc = FCL_EXIT_INPUT;
        }
        if (rc == 0 && !vo->hide_panel && !v->show_panel)
            view_set_status(v, "the panel starts hidden in a window under %d pixels wide: H shows it",
                            2 * RND_GUI_WIDTH + 1);
        /* A solver with fluid control draws its control particles: none
         * without targets (pbf on a plain scene said nothing; a review). */
        const fcl_solver *sv = v->sim.solver;
        char names[128];
        if (rc == 0 && v->show_overlay && (!sv->overlay || (sv->set_targets && v->scene.ntargets == 0)))
            view_set_status(v, "--overlay: the %s solver draws no overlay %s(%s draw one; with fluid control, "
                            "given targets)", sv->name, sv->overlay ? "without targets " : "",
                            solver_names_that(FCL_CAN_OVERLAY, names, sizeof names));
    }
    return rc;
}

const char *view_path_name(const fcl_view *v)
{
    return v->shared ? "shared CL-GL" : "copy via host";
}

void view_viewproj(const fcl_view *v, float vp[16])
{
    rnd_camera_viewproj(&v->cam, (float)v->fb_w / (float)(v->fb_h > 0 ? v->fb_h : 1), vp);
}

/* The frame's solver steps between the acquire and the release of the
 * vertex buffer; a blow-up, or a step the solver refuses (a time step
 * under its floor, no free surface, a solve that broke down: often after
 * a live edit), pauses the view instead of ending it. The refused step
 * may have moved the particles part way: the status says a reset is the
 * sure way back. */
static int step_frame(fcl_view *v)
{
    fcl_backend *be = v->be;
    /* Paused: a step for every N pressed since the last frame (a flag
     * took five quick taps as four steps, more lost at a few frames a
     * second; a review), at most 100. */
    int steps = v->paused ? (v->step_once < 100 ? v->step_once : 100) : v->steps_per_frame, done = 0;
    v->step_once = 0;
    timers_reset(&be->timers);
    if (view_interop_begin(v) != 0)
        return FCL_EXIT_DEVICE;
    double t0 = glfwGetTime();
    if (v->drag_active && steps > 0) {
        float o[3], dir[3];
        rnd_camera_ray(&v->cam, v->mx, v->my, v->fb_w, v->fb_h, o, dir);
        if (view_interact(v, o, dir, v->drag_dv, v->force_radius) != 0)
            return FCL_EXIT_DEVICE;
    }
    for (; done < steps; done++) {
        if (sim_step(&v->sim) != 0) {
            v->paused = v->step_failed = 1;
            view_set_status(v, "step %ld failed: %s; paused (undo the last edit and resume, or reset)",
                            v->sim.step + 1, v->sim.error[0] ? v->sim.error : "see the terminal");
            snprintf(v->failure, sizeof v->failure, "%s", v->status);
            break;
        }
        v->step_failed = 0;
        if (v->sim.stats.bad_id >= 0) {
            /* A failed step too: a scripted run ending on one exits 3, as
             * run does (it exited 0; a review). */
            char advice[512], what[160];
            v->paused = v->step_failed = 1;
            view_set_status(v, "numerical blow-up at step %ld (%s): paused; %s, or reset", v->sim.step,
                            sim_blowup_what(&v->sim, what, sizeof what), sim_blowup_advice(&v->sim, advice,
                                                                                             sizeof advice));
            snprintf(v->failure, sizeof v->failure, "%s", v->status);
            done++;
            break;
        }
    }
    char err[512] = "";
    if (view_interop_follow(v, err, sizeof err) != 0) {
        fprintf(stderr, "fluidcl: %s\n", err[0] ? err : "view: the vertex buffer could not follow the particle count");
        return FCL_EXIT_DEVICE;
    }
    double t1 = glfwGetTime();
    v->step_wall = t1 - t0;
    v->sum_step += v->step_wall;
    v->stepped += done;
    if (view_interop_end(v) != 0)
        return FCL_EXIT_DEVICE;
    v->sum_copy += glfwGetTime() - t1;
    if (done > 0) {
        v->pass_ms = be->timers;
        v->pass_steps = done;
        view_field_range_follow(v);
    }
    return 0;
}

/* The solver's overlay points, re-uploaded every frame they are shown
 * (control particles move with their targets), in palette entry 3. */
static size_t upload_overlay(fcl_view *v)
{
    const float *pts = NULL;
    size_t n = v->have_sim && v->sim.solver->overlay ? v->sim.solver->overlay(&v->sim, &pts) : 0;
    float *buf = n ? malloc(n * 16) : NULL;
    if (!buf)
        return 0;
    /* The solver's classes (mac: fluid and solid cells), or one colour. */
    int classes = v->sim.solver->overlay_classes;
    for (size_t i = 0; i < n; i++) {
        memcpy(buf + 4 * i, pts + 4 * i, 12);
        buf[4 * i + 3] = classes ? pts[4 * i + 3] : 3.0f;
    }
    rnd_overlay_upload(v->rnd, buf, n);
    free(buf);
    return n;
}

static void render(fcl_view *v)
{
    rnd_frame f;
    memset(&f, 0, sizeof f);
    rnd_camera_view(&v->cam, f.view);
    rnd_camera_proj(&v->cam, (float)v->fb_w / (float)(v->fb_h > 0 ? v->fb_h : 1), f.proj);
    f.width = v->fb_w;
    f.height = v->fb_h;
    f.n = v->have_sim ? v->sim.n : 0;
    f.radius = 0.5f * v->live.particles_spacing;
    f.mode = v->field == FCL_FIELD_PHASE || v->field == FCL_FIELD_SURFACE ? RND_CATEGORICAL : RND_CONTINUOUS;
    f.lo = v->range[v->field][0];
    f.hi = v->range[v->field][1];
    memcpy(f.box_lo, v->live.domain_min, sizeof f.box_lo);
    memcpy(f.box_hi, v->live.domain_max, sizeof f.box_hi);
    f.show_box = v->show_box;
    f.show_boundary = v->show_boundary;
    f.show_overlay = v->show_overlay && upload_overlay(v) > 0;
    f.draw = (rnd_draw_mode)v->draw;
    f.palette = (const float (*)[3])v->palette;
    f.splat_scale = v->splat_scale;
    f.background[0] = 0.11f;
    f.background[1] = 0.12f;
    f.background[2] = 0.14f;
    rnd_draw(v->rnd, &f);
    if (v->show_panel)
        rnd_gui_draw(v);
}

static void capture(fcl_view *v)
{
    char err[1024];
    if (v->shot_path[0]) {
        if (rnd_screenshot(v->shot_path, v->fb_w, v->fb_h, err, sizeof err) == 0)
            view_set_status(v, "screenshot: %s", v->shot_path);
        else
            view_set_status(v, "%s", err);
        v->shot_path[0] = '\0';
        if (v->shots_waiting > 0) {
            v->shots_waiting--;
            view_request_shot(v);   /* named now that this one exists: the next frame's */
        }
    }
    if (v->recording && rnd_record_frame(v->record_dir, v->record_index++, v->fb_w, v->fb_h, err, sizeof err) != 0) {
        v->recording = 0;
        view_set_status(v, "recording stopped: %s", err);
    }
}

/* Frame time history and smoothed rates. */
static void account(fcl_view *v, int stepped)
{
    double now = glfwGetTime(), dt = now - v->t_last;
    v->t_last = now;
    v->frame_ms[v->hist] = dt * 1e3;
    v->hist = (v->hist + 1) % VIEW_HISTORY;
    v->frames++;
    if (dt <= 0.0)
        return;
    double a = v->frames == 1 ? 1.0 : 0.1;
    v->fps += a * (1.0 / dt - v->fps);
    v->psteps += a * ((double)v->sim.n * stepped / dt - v->psteps);
}

/* A reconstruction that fails (a grid too large for the device, say)
 * would fail again next frame: say why and draw spheres instead. */
static void mesh_or_fall_back(fcl_view *v)
{
    char err[1024];
    if (view_mesh_update(v, err, sizeof err) != 0) {
        v->draw = RND_DRAW_SPHERES;
        view_set_status(v, "mesh mode off: %s", err);
    }
}

int view_frame(fcl_view *v)
{
    glfwPollEvents();
    rnd_gui_input();
    scene_defaults(v);
    int was_w = v->fb_w;
    glfwGetFramebufferSize(v->win, &v->fb_w, &v->fb_h);
    /* A window made too narrow for the panel beside the scene hides it, as
     * one opened so does (H shows it again): it covered the fluid (a
     * review). */
    if (v->show_panel && was_w > 2 * RND_GUI_WIDTH && v->fb_w > 0 && v->fb_w <= 2 * RND_GUI_WIDTH) {
        v->show_panel = 0;
        view_set_status(v, "window narrower than %d pixels: the panel hidden (H shows it)", 2 * RND_GUI_WIDTH + 1);
    }
    /* With the panel open, center the scene in the space beside it. */
    v->cam.shift_x = v->show_panel && v->fb_w > 2 * RND_GUI_WIDTH ? (float)RND_GUI_WIDTH / (float)v->fb_w : 0.0f;
    view_input_frame(v);
    if (v->kernel_dir[0])
        view_poll_kernels(v, glfwGetTime());
    long before = v->stepped;
    int rc = v->have_sim ? step_frame(v) : 0;
    if (rc != 0)
        return rc;
    if (v->draw == RND_DRAW_MESH && v->have_sim && view_mesh_due(v))
        mesh_or_fall_back(v);
    double t0 = glfwGetTime();
    render(v);
    capture(v);
    glfwSwapBuffers(v->win);
    v->sum_draw += glfwGetTime() - t0;
    account(v, (int)(v->stepped - before));
    return 0;
}

int view_should_close(const fcl_view *v)
{
    return glfwWindowShouldClose(v->win);
}

int view_screenshot(fcl_view *v, const char *path, char *err, size_t errlen)
{
    /* Draw the current state again: after a swap the back buffer is
     * undefined. */
    render(v);
    return rnd_screenshot(path, v->fb_w, v->fb_h, err, errlen);
}

const char *view_record_folder(const fcl_view *v)
{
    return v->record_dir[0] ? v->record_dir : "fluidcl_frames";
}

void view_frame_domain(fcl_view *v)
{
    /* The scene's part of the window: beside the panel when it shows. */
    int w = v->fb_w - (v->show_panel && v->fb_w > 2 * RND_GUI_WIDTH ? RND_GUI_WIDTH : 0);
    rnd_camera_frame(&v->cam, v->live.domain_min, v->live.domain_max, v->fb_h > 0 ? (float)w / (float)v->fb_h : 1.0f);
}

int view_set_recording(fcl_view *v, const char *dir, char *err, size_t errlen)
{
    if (!dir) {
        v->recording = 0;
        if (v->record_index > v->record_first)
            view_set_status(v, "recording stopped: frame_%05ld.png to frame_%05ld.png in %s", v->record_first,
                            v->record_index - 1, v->record_dir);
        else
            view_set_status(v, "recording stopped before any frame (%s)", v->record_dir);
        return 0;
    }
    char folder[sizeof v->record_dir];   /* dir may be v->record_dir itself (view_record_folder) */
    snprintf(folder, sizeof folder, "%s", dir);
    dir = folder;
    if (rnd_record_dir(dir, err, errlen) != 0)
        return -1;
    snprintf(v->record_dir, sizeof v->record_dir, "%s", dir);
    v->record_index = v->record_first = rnd_record_next(dir);
    v->recording = 1;
    view_set_status(v, "recording frames into %s", dir);
    return 0;
}

void view_close(fcl_view *v)
{
    view_release_sim(v);
    view_mesh_free(v);
    backend_destroy(v->be);
    v->be = NULL;
    if (v->win) {
        rnd_gui_shutdown();
        rnd_destroy(v->rnd);
        glfwDestroyWindow(v->win);
        glfwTerminate();
    }
    free(v->bpos);
    free(v->phase);
    free(v->reload_log);
    scene_free(&v->scene);
    memset(v, 0, sizeof *v);
}

/* ---- kernel hot reload ---------------------------------------------- */

/* A signature of the kernel sources in dir (names, sizes, times), whose
 * change the hot reload watches for. */
static unsigned long view_kernel_signature(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    unsigned long sum = 0;
    char path[4096];
    while (d && (e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        struct stat st;
        int src = (len > 3 && strcmp(e->d_name + len - 3, ".cl") == 0) ||
                  (len > 2 && strcmp(e->d_name + len - 2, ".h") == 0) ||
                  (len > 4 && strcmp(e->d_name + len - 4, ".def") == 0);
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (!src || stat(path, &st) != 0)
            continue;
        /* FNV-1a of name, mtime and size; summed, so order does not matter. */
        unsigned long h = 1469598103934665603ul;
        for (const char *c = e->d_name; *c; c++)
            h = (h ^ (unsigned char)*c) * 1099511628211ul;
        unsigned long parts[3] = { (unsigned long)st.st_mtim.tv_sec, (unsigned long)st.st_mtim.tv_nsec,
                                   (unsigned long)st.st_size };
        for (int k = 0; k < 3; k++)
            h = (h ^ parts[k]) * 1099511628211ul;
        sum += h;
    }
    if (d)
        closedir(d);
    return sum;
}

void view_poll_kernels(fcl_view *v, double now)
{
    if (now - v->last_poll < 0.25)
        return;
    v->last_poll = now;
    unsigned long sig = view_kernel_signature(v->kernel_dir);
    if (sig == v->kernel_sig)
        return;
    v->kernel_sig = sig;
    view_reload_kernels(v);
}

int view_reload_kernels(fcl_view *v)
{
    char err[1024] = "", *log = NULL;
    free(v->reload_log);
    v->reload_log = NULL;
    if (!be_opencl_is(v->be)) {
        v->reload_ok = 0;
        snprintf(v->reload_msg, sizeof v->reload_msg,
                 "hot reload applies to the OpenCL backend only: the native CPU backend compiles kernels/ "
                 "as C into fluidcl (rebuild it)");
        return -1;
    }
    const char *dir = v->kernel_dir[0] ? v->kernel_dir : NULL;
    if (be_opencl_reload(v->be, dir, &log, err, sizeof err) != 0) {
        v->reload_ok = 0;
        v->reload_log = log;
        snprintf(v->reload_msg, sizeof v->reload_msg, "%s; the previous kernels keep running", err);
        fprintf(stderr, "fluidcl: view: kernel reload from %s: %s\n%s", dir ? dir : "the embedded sources",
                v->reload_msg, log ? log : "");
        /* On the status line too: the panel's reload header is closed by
         * default, and a failed reload showed nothing there (a review). */
        view_set_status(v, "kernel reload failed (see the panel's Kernels header): %.200s", v->reload_msg);
        return -1;
    }
    v->reload_ok = 1;
    v->reloads++;
    snprintf(v->reload_msg, sizeof v->reload_msg, "kernels rebuilt from %s (reload %ld)",
             dir ? dir : "the embedded sources", v->reloads);
    view_set_status(v, "%s", v->reload_msg);
    return 0;
}
