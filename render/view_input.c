/* view_input.c - mouse and keys of the viewer window.
 *
 *   left drag          orbit          right drag / shift+left   pan
 *   wheel              zoom           ctrl+left / middle drag   push the fluid
 *   Space pause   N one step   Backspace reset   R reload kernels
 *   B drop a ball   P screenshot   V record frames   C next color field
 *   M next draw mode (spheres, surface splats, marching-cubes mesh)
 *   F frame the domain   H hide/show the panel   Esc quit
 * Invariant: input the panel wants (ImGui's WantCapture*) never reaches
 * the camera, the fluid or the key bindings.
 */
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rnd_gui.h"
#include "view.h"

static fcl_view *of(GLFWwindow *w)
{
    return glfwGetWindowUserPointer(w);
}

/* Whether the panel takes the mouse: ImGui's flag is only updated in a
 * frame that draws the panel, so with the panel hidden it kept its last
 * value (H pressed over the panel left orbit, pan, zoom and push dead
 * until it was shown again; a review). */
static int panel_mouse(const fcl_view *v)
{
    return v->show_panel && rnd_gui_wants_mouse();
}

static void on_scroll(GLFWwindow *w, double dx, double dy)
{
    (void)dx;
    if (!panel_mouse(of(w)))
        rnd_camera_zoom(&of(w)->cam, (float)dy);
}

static void key_action(fcl_view *v, int key)
{
    char err[1024] = "";
    float c[3];
    switch (key) {
    case GLFW_KEY_SPACE: v->paused = !v->paused; break;
    case GLFW_KEY_N: v->step_once++; break;
    case GLFW_KEY_BACKSPACE: view_reset(v); break;
    case GLFW_KEY_R: view_reload_kernels(v); break;
    case GLFW_KEY_C: view_set_field(v, view_field_next(v, v->field)); break;
    case GLFW_KEY_M: v->draw = (v->draw + 1) % RND_DRAW_COUNT; break;
    case GLFW_KEY_H: v->show_panel = !v->show_panel; break;
    case GLFW_KEY_ESCAPE:
        if (v->show_panel && rnd_gui_popup_open())
            rnd_gui_close_popups();
        else
            glfwSetWindowShouldClose(v->win, GLFW_TRUE);
        break;
    case GLFW_KEY_F: view_frame_domain(v); break;
    case GLFW_KEY_B:
        view_ball_center(v, c);
        if (view_drop_ball(v, c, v->ball_radius, err, sizeof err) != 0)
            view_set_status(v, "%s", err);
        break;
    case GLFW_KEY_P: view_request_shot(v); break;
    case GLFW_KEY_V:
        if (view_set_recording(v, v->recording ? NULL : view_record_folder(v), err, sizeof err) != 0)
            view_set_status(v, "%s", err);
        break;
    default: break;
    }
}

void view_request_shot(fcl_view *v)
{
    /* A second P before the first is written would take the same name
     * (the file does not exist yet): it waits for its own (two presses in
     * one frame wrote one file; a review). */
    if (v->shot_path[0]) {
        v->shots_waiting++;
        return;
    }
    /* One name a second, numbered when P comes twice within it. */
    char path[64];
    long now = (long)time(NULL);
    snprintf(path, sizeof path, "fluidcl_%ld.png", now);
    for (int k = 2; access(path, F_OK) == 0 && k < 1000; k++)
        snprintf(path, sizeof path, "fluidcl_%ld_%d.png", now, k);
    snprintf(v->shot_path, sizeof v->shot_path, "%s", path);
}

static void on_key(GLFWwindow *w, int key, int scancode, int action, int mods)
{
    (void)scancode;
    (void)mods;
    if (action == GLFW_PRESS && !(of(w)->show_panel && rnd_gui_wants_keyboard()))
        key_action(of(w), key);
}

void view_input_install(fcl_view *v)
{
    glfwSetWindowUserPointer(v->win, v);
    glfwSetScrollCallback(v->win, on_scroll);
    glfwSetKeyCallback(v->win, on_key);
}

/* Which drag a button press starts: 1 orbit, 2 pan, 3 force. */
static int drag_kind(GLFWwindow *w)
{
    int ctrl = glfwGetKey(w, GLFW_KEY_LEFT_CONTROL) == GLFW_PRESS || glfwGetKey(w, GLFW_KEY_RIGHT_CONTROL) == GLFW_PRESS;
    int shift = glfwGetKey(w, GLFW_KEY_LEFT_SHIFT) == GLFW_PRESS || glfwGetKey(w, GLFW_KEY_RIGHT_SHIFT) == GLFW_PRESS;
    if (glfwGetMouseButton(w, GLFW_MOUSE_BUTTON_MIDDLE) == GLFW_PRESS)
        return 3;
    if (glfwGetMouseButton(w, GLFW_MOUSE_BUTTON_RIGHT) == GLFW_PRESS)
        return 2;
    if (glfwGetMouseButton(w, GLFW_MOUSE_BUTTON_LEFT) == GLFW_PRESS)
        return ctrl ? 3 : (shift ? 2 : 1);
    return 0;
}

/* The cursor's motion as a world velocity in the view plane at the
 * target's depth, turned into this frame's velocity change: the force
 * field pulls particles toward the cursor's motion at rate force_gain,
 * never past its speed, over the simulated time a frame covers: the
 * solver's own step (sim.dt, which dfsph, pbf and mps do not read, made
 * pbf's push 4 to 8 times too weak; a review), sim.dt before any step. */
void view_drag_force(fcl_view *v, float dx, float dy, double frame_s)
{
    float r[3], u[3], f[3], k = rnd_camera_pixel_size(&v->cam, v->fb_h);
    rnd_camera_axes(&v->cam, r, u, f);
    double dt = v->have_sim && v->sim.stats.dt > 0.0 ? v->sim.stats.dt : v->live.sim_dt;
    double sim_s = dt * v->steps_per_frame, blend = fmin(1.0, v->force_gain * sim_s);
    double scale = frame_s > 1e-4 ? k / frame_s : 0.0;
    for (int i = 0; i < 3; i++)
        v->drag_dv[i] = (float)(blend * scale * (dx * r[i] - dy * u[i]));
    v->drag_active = dx != 0.0f || dy != 0.0f;
}

void view_input_frame(fcl_view *v)
{
    double x, y, frame_s = v->frames > 0 ? v->frame_ms[(v->hist + VIEW_HISTORY - 1) % VIEW_HISTORY] * 1e-3 : 0.0;
    int ww, wh;
    glfwGetCursorPos(v->win, &x, &y);
    glfwGetWindowSize(v->win, &ww, &wh);
    /* Cursor positions are in window units; the camera works in pixels. */
    x *= ww > 0 ? (double)v->fb_w / ww : 1.0;
    y *= wh > 0 ? (double)v->fb_h / wh : 1.0;
    int kind = drag_kind(v->win);
    if (v->dragging == 0 && kind != 0 && panel_mouse(v))
        kind = 0;
    float dx = (float)(x - v->mx), dy = (float)(y - v->my);
    v->drag_active = 0;
    if (v->dragging != 0 && kind == v->dragging) {
        if (kind == 1)
            rnd_camera_orbit(&v->cam, dx, dy);
        else if (kind == 2)
            rnd_camera_pan(&v->cam, dx, dy, v->fb_h);
        else
            view_drag_force(v, dx, dy, frame_s);
    }
    v->dragging = kind;
    v->mx = x;
    v->my = y;
}
