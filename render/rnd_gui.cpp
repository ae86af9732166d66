/* rnd_gui.cpp - the viewer's tuning panel with Dear ImGui (Debian's
 * libimgui-dev and its GLFW + OpenGL3 back ends). The one C++ file: the
 * rest of fluidcl is C and sees only rnd_gui.h.
 *
 * The panel is generated from the parameter table (params.def): one
 * collapsing header per group, one widget per parameter by type (CHOICE
 * as a combo), its unit beside it, its description and range as a
 * tooltip, and "applies on reset" on those that are not live.
 * Invariant: edits go through view_apply_param / view_apply_number only.
 */
#include "rnd_gui.h"

#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui_internal.h>   /* GetInputTextState: a field's text while it is edited */
#include <GLFW/glfw3.h>
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The engine's headers are C. */
extern "C" {
#include "be_opencl.h"
#include "view.h"
#include "view_keys.h"
}

static bool gui_on;
/* Key and character events wait in gui_keys and reach ImGui's callbacks
 * (its key callback chains to view_input's) in order, one transition per
 * held key and frame (view_keys.h). */
static GLFWwindow *gui_win;
static GLFWkeyfun gui_key_next;
static GLFWcharfun gui_char_next;
static view_keyq gui_keys;

static void gui_deliver(const view_key_event *e)
{
    if (e->key < 0 && gui_char_next)
        gui_char_next(gui_win, (unsigned)e->scancode);
    else if (e->key >= 0 && gui_key_next)
        gui_key_next(gui_win, e->key, e->scancode, e->action, e->mods);
}

/* Queued; a full queue goes out whole, then e, in order. */
static void gui_queue(const view_key_event *e)
{
    if (view_keyq_push(&gui_keys, e) == 0)
        return;
    view_key_event ev[VIEW_KEYQ_MAX];
    int n = view_keyq_drain(&gui_keys, ev);
    for (int i = 0; i < n; i++)
        gui_deliver(&ev[i]);
    gui_deliver(e);
}

static void gui_key(GLFWwindow *w, int key, int scancode, int action, int mods)
{
    (void)w;
    view_key_event e = { key, scancode, action, mods };
    gui_queue(&e);
}

static void gui_char(GLFWwindow *w, unsigned c)
{
    (void)w;
    view_key_event e = { -1, (int)c, 0, 0 };
    gui_queue(&e);
}

/* The keys ImGui keeps as down or up (its key map and the modifiers):
 * only theirs must not go down and up within a frame. Digits and letters
 * it reads as characters pass at once, so typing is not held back. */
static int gui_held(int key)
{
    const ImGuiIO &io = ImGui::GetIO();
    for (int k = 0; k < ImGuiKey_COUNT; k++)
        if (io.KeyMap[k] == key)
            return 1;
    return key == GLFW_KEY_LEFT_CONTROL || key == GLFW_KEY_RIGHT_CONTROL || key == GLFW_KEY_LEFT_SHIFT ||
           key == GLFW_KEY_RIGHT_SHIFT || key == GLFW_KEY_LEFT_ALT || key == GLFW_KEY_RIGHT_ALT ||
           key == GLFW_KEY_LEFT_SUPER || key == GLFW_KEY_RIGHT_SUPER;
}

static const ImVec4 warn_color(1.0f, 0.75f, 0.3f, 1.0f), bad_color(1.0f, 0.4f, 0.35f, 1.0f),
    good_color(0.5f, 0.9f, 0.5f, 1.0f);

extern "C" int rnd_gui_init(GLFWwindow *w)
{
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = NULL;   /* no imgui.ini next to the user's files */
    ImGui::StyleColorsDark();
    gui_on = ImGui_ImplGlfw_InitForOpenGL(w, true) && ImGui_ImplOpenGL3_Init("#version 330 core");
    if (gui_on) {
        gui_win = w;
        gui_keys.n = 0;
        gui_key_next = glfwSetKeyCallback(w, gui_key);
        gui_char_next = glfwSetCharCallback(w, gui_char);
    }
    return gui_on ? 0 : -1;
}

extern "C" void rnd_gui_input(void)
{
    view_key_event ev[VIEW_KEYQ_MAX];
    int n = gui_on ? view_keyq_take(&gui_keys, ev, gui_held) : 0;
    for (int i = 0; i < n; i++)
        gui_deliver(&ev[i]);
}

extern "C" void rnd_gui_shutdown(void)
{
    if (!ImGui::GetCurrentContext())
        return;
    if (gui_on) {
        glfwSetKeyCallback(gui_win, gui_key_next);   /* ImGui's, which its shutdown undoes */
        glfwSetCharCallback(gui_win, gui_char_next);
        gui_key_next = NULL;
        gui_char_next = NULL;
        ImGui_ImplOpenGL3_Shutdown();
        ImGui_ImplGlfw_Shutdown();
    }
    ImGui::DestroyContext();
    gui_on = false;
}

extern "C" int rnd_gui_wants_mouse(void)
{
    return gui_on && ImGui::GetIO().WantCaptureMouse;
}

extern "C" int rnd_gui_wants_keyboard(void)
{
    return gui_on && ImGui::GetIO().WantCaptureKeyboard;
}

static bool close_popups;   /* Esc over an open combo: closed in the next frame */

extern "C" int rnd_gui_popup_open(void)
{
    return gui_on && ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId);
}

extern "C" void rnd_gui_close_popups(void)
{
    close_popups = gui_on;
}

static void report(fcl_view *v, int rc, const char *key, const char *err)
{
    if (rc < 0)
        view_set_status(v, "%s", err);
    else if (rc == 0)
        view_set_status(v, "%s changed: applies on reset (Backspace or the Reset button)", key);
}

/* Whether a parameter that is not live differs from what runs. */
static bool pending(const fcl_view *v, const fcl_param_def *d)
{
    return !params_equal(&v->edit, &v->live, d);
}

static void choice_widget(fcl_view *v, const fcl_param_def *d, const char *key, char *value)
{
    if (!ImGui::BeginCombo(d->name, value))
        return;
    char opts[FCL_STR_MAX];
    snprintf(opts, sizeof opts, "%s", d->unit);
    for (char *tok = strtok(opts, "|"); tok; tok = strtok(NULL, "|")) {
        if (ImGui::Selectable(tok, strcmp(tok, value) == 0)) {
            char err[512] = "";
            report(v, view_apply_param(v, key, tok, err, sizeof err), key, err);
        }
    }
    ImGui::EndCombo();
}

/* A field's edit left without Enter (a click elsewhere, which ImGui ends
 * with the old value and no word; a review) is applied as Enter applies
 * it, from the text the field held while active (commit_left_edit, at
 * the end of the panel's frame); Esc drops it. */
static struct {
    ImGuiID id;
    const fcl_param_def *d;
    int comp;
    char key[128], text[FCL_STR_MAX];
    bool dirty;
} gui_edit;

/* After a text field (the last item; entered: Enter applied it): keeps
 * its text while it is active. */
static void track_edit(bool entered, const fcl_param_def *d, int comp, const char *key)
{
    ImGuiID id = ImGui::GetItemID();
    if (gui_edit.id == id && (entered || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false)))
        gui_edit.id = 0;
    const ImGuiInputTextState *st = ImGui::IsItemActive() ? ImGui::GetInputTextState(id) : NULL;
    if (!st || !st->TextW.Data || !st->InitialTextA.Data)
        return;
    ImTextStrToUtf8(gui_edit.text, (int)sizeof gui_edit.text, st->TextW.Data, st->TextW.Data + st->CurLenW);
    gui_edit.dirty = strcmp(gui_edit.text, st->InitialTextA.Data) != 0;
    gui_edit.id = id;
    gui_edit.d = d;
    gui_edit.comp = comp;
    snprintf(gui_edit.key, sizeof gui_edit.key, "%s", key);
}

/* A vec3 component's text, as the panel's Enter would apply it. */
static int apply_component(fcl_view *v, const fcl_param_def *d, const char *key, int k, const char *text, char *err,
                           size_t errlen)
{
    char *end;
    double x = strtod(text, &end);
    while (*end == ' ')
        end++;
    if (end == text || *end) {
        snprintf(err, errlen, "%s: component %d '%s' is not a number; not applied", key, k + 1, text);
        return -1;
    }
    return view_apply_number(v, d, k, x, err, errlen);
}

/* The tracked field is no longer active and Enter did not apply it. */
static void commit_left_edit(fcl_view *v)
{
    if (!gui_edit.id || ImGui::GetActiveID() == gui_edit.id)
        return;
    gui_edit.id = 0;
    if (!gui_edit.dirty)
        return;
    char err[512] = "";
    const fcl_param_def *d = gui_edit.d;
    int rc = d->type == PT_VEC3 ? apply_component(v, d, gui_edit.key, gui_edit.comp, gui_edit.text, err, sizeof err)
                                : view_apply_param(v, gui_edit.key, gui_edit.text, err, sizeof err);
    report(v, rc, gui_edit.key, err);
}

/* Three fields, each component its own edit (one refused leaves the
 * others as they were; InputFloat3 applied them one by one, a review). */
static int vec3_widget(fcl_view *v, const fcl_param_def *d, const char *key, const float *old, char *err,
                       size_t errlen)
{
    const ImGuiInputTextFlags enter = ImGuiInputTextFlags_EnterReturnsTrue;
    float w = (170.0f - 2.0f * ImGui::GetStyle().ItemInnerSpacing.x) / 3.0f;
    int rc = 2;
    for (int k = 0; k < 3; k++) {
        float x = old[k];
        ImGui::PushID(k);
        if (k)
            ImGui::SameLine(0.0f, ImGui::GetStyle().ItemInnerSpacing.x);
        ImGui::SetNextItemWidth(w);
        bool entered = ImGui::InputFloat(k == 2 ? d->name : "", &x, 0.0f, 0.0f, "%.4g", enter);
        if (entered && x != old[k])
            rc = view_apply_number(v, d, k, x, err, errlen);
        track_edit(entered, d, k, key);
        ImGui::PopID();
    }
    return rc;
}

/* One field of a FLOAT, INT or STRING parameter; 2 when nothing was
 * applied, else view_apply_*'s result. */
static int text_widget(fcl_view *v, const fcl_param_def *d, const char *key, char *field, char *err, size_t errlen)
{
    const ImGuiInputTextFlags enter = ImGuiInputTextFlags_EnterReturnsTrue;
    bool entered;
    int rc = 2;
    if (d->type == PT_FLOAT) {
        float x = *(float *)field;
        if ((entered = ImGui::InputFloat(d->name, &x, 0.0f, 0.0f, "%.6g", enter)))
            rc = view_apply_number(v, d, 0, x, err, errlen);
    } else if (d->type == PT_INT) {
        /* As text, through the command line's parser: a number field took
         * 64.5 as 64 and 0x20 as 20 without a word, where --param and a
         * field left without Enter refuse them (a review). All of a long:
         * an int cast cut it (a review). */
        char buf[32];
        snprintf(buf, sizeof buf, "%ld", *(long *)field);
        if ((entered = ImGui::InputText(d->name, buf, sizeof buf, enter)))
            rc = view_apply_param(v, key, buf, err, errlen);
    } else {
        char buf[FCL_STR_MAX];
        snprintf(buf, sizeof buf, "%s", field);
        if ((entered = ImGui::InputText(d->name, buf, sizeof buf, enter)))
            rc = view_apply_param(v, key, buf, err, errlen);
    }
    track_edit(entered, d, 0, key);
    return rc;
}

static void param_widget(fcl_view *v, const fcl_param_def *d)
{
    char key[128], err[512] = "", expected[512];
    snprintf(key, sizeof key, "%s.%s", d->group, d->name);
    char *field = (char *)&v->edit + d->offset;
    int rc = 2;
    ImGui::PushID(key);
    ImGui::SetNextItemWidth(170.0f);
    if (d->type == PT_VEC3)
        rc = vec3_widget(v, d, key, (const float *)field, err, sizeof err);
    else if (d->type == PT_CHOICE)
        choice_widget(v, d, key, field);
    else
        rc = text_widget(v, d, key, field, err, sizeof err);
    if (ImGui::IsItemHovered()) {
        params_expected(d, expected, sizeof expected);
        ImGui::SetTooltip("%s\n%s: %s%s", d->desc, key, expected, d->live ? "" : "\nchanges apply on reset");
    }
    if (rc != 2)
        report(v, rc, key, err);
    if (d->type != PT_CHOICE && d->unit[0]) {
        ImGui::SameLine();
        ImGui::TextDisabled("%s", d->unit);
    }
    /* A shared parameter the running solver does not read (its ignores),
     * and with phases material.viscosity (solver_unused_viscosity). */
    const fcl_solver *sv = v->have_sim ? v->sim.solver : solver_find(v->live.sim_solver);
    const char *instead = sv ? solver_reads_instead(sv, (fcl_param_id)(d - fcl_param_table)) : NULL;
    if (instead) {
        ImGui::SameLine();
        ImGui::TextDisabled("not read by %s", sv->name);
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("in its place: %s", instead);
    } else if (d == &fcl_param_table[FCL_P_material_viscosity] && v->scene.nphases > 0) {
        ImGui::SameLine();
        ImGui::TextDisabled("unused: each phase has its own");
    }
    if (!d->live) {
        ImGui::SameLine();
        ImGui::TextColored(pending(v, d) ? warn_color : ImVec4(0.6f, 0.6f, 0.6f, 1.0f), "%s",
                           pending(v, d) ? "pending: applies on reset" : "applies on reset");
    }
    ImGui::PopID();
}

/* One collapsing header per group, in the table's order; a group the
 * running solver does not read (dfsph.* under mps) says whose it is, as
 * the command line notes a --param of it. */
static void parameters(fcl_view *v)
{
    const fcl_solver *sv = v->have_sim ? v->sim.solver : solver_find(v->live.sim_solver);
    for (size_t i = 0; i < fcl_param_count; i++) {
        const char *g = fcl_param_table[i].group;
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++)
            seen = strcmp(fcl_param_table[k].group, g) == 0;
        char names[128], label[256];
        if (sv && solver_group_readers(g, strlen(g), names, sizeof names) && !solver_reads_group(sv, g, strlen(g)))
            snprintf(label, sizeof label, "%s (read by %s, not %s)###%s", g, names, sv->name, g);
        else
            snprintf(label, sizeof label, "%s", g);
        if (seen || !ImGui::CollapsingHeader(label))
            continue;
        for (size_t k = i; k < fcl_param_count; k++)
            if (strcmp(fcl_param_table[k].group, g) == 0)
                param_widget(v, &fcl_param_table[k]);
    }
}

static void toggle(const char *label, int *flag)
{
    bool b = *flag != 0;
    if (ImGui::Checkbox(label, &b))
        *flag = b;
}

static void legend(fcl_view *v)
{
    if (v->draw == RND_DRAW_MESH) {   /* it kept the phases' legend beside a mesh of one colour (a review) */
        ImGui::TextWrapped("the mesh is drawn in one colour; the colouring applies to spheres and splats");
        return;
    }
    ImDrawList *dl = ImGui::GetWindowDrawList();
    ImVec2 p = ImGui::GetCursorScreenPos();
    const float w = 240.0f, h = 14.0f;
    if (v->field == FCL_FIELD_PHASE || v->field == FCL_FIELD_SURFACE) {
        int count = v->field == FCL_FIELD_SURFACE ? 2 : (v->nphases < RND_PALETTE ? v->nphases : RND_PALETTE);
        for (int i = 0; i < count; i++) {
            const float *c = v->field == FCL_FIELD_SURFACE ? rnd_palette[i] : v->palette[i];
            ImVec2 q = ImGui::GetCursorScreenPos();
            dl->AddRectFilled(q, ImVec2(q.x + h, q.y + h), ImGui::GetColorU32(ImVec4(c[0], c[1], c[2], 1.0f)));
            ImGui::Dummy(ImVec2(h, h));
            ImGui::SameLine();
            if (v->field == FCL_FIELD_SURFACE)
                ImGui::Text("%s", i ? "surface (|n| > material.surface_threshold)" : "interior");
            else {
                char label[128];
                ImGui::Text("%s", view_phase_label(v, i, label, sizeof label));
            }
        }
        return;
    }
    for (int i = 0; i < 16; i++) {
        float a[3], b[3];
        rnd_colormap(i / 16.0f, a);
        rnd_colormap((i + 1) / 16.0f, b);
        ImU32 ca = ImGui::GetColorU32(ImVec4(a[0], a[1], a[2], 1.0f)), cb = ImGui::GetColorU32(ImVec4(b[0], b[1], b[2], 1.0f));
        dl->AddRectFilledMultiColor(ImVec2(p.x + w * i / 16.0f, p.y), ImVec2(p.x + w * (i + 1) / 16.0f, p.y + h), ca, cb,
                                    cb, ca);
    }
    ImGui::Dummy(ImVec2(w, h));
    ImGui::Text("%-10.4g %s %10.4g", v->range[v->field][0], view_field_label(v, v->field), v->range[v->field][1]);
}

static void run_controls(fcl_view *v)
{
    char err[512] = "";
    if (ImGui::Button(v->paused ? "Resume (Space)" : "Pause (Space)"))
        v->paused = !v->paused;
    ImGui::SameLine();
    if (ImGui::Button("Step (N)"))
        v->step_once++;
    ImGui::SameLine();
    if (ImGui::Button("Reset (Backspace)"))
        view_reset(v);
    ImGui::SetNextItemWidth(170.0f);
    /* Up to 100, or --steps-per-frame's own value above it (up to 1e6: a
     * touch of the slider cut it to 100; a review). */
    ImGui::SliderInt("steps per frame", &v->steps_per_frame, 1, v->steps_per_frame > 100 ? v->steps_per_frame : 100);
    param_widget(v, &fcl_param_table[FCL_P_sim_dt]);
    if (ImGui::BeginCombo("solver (on reset)", v->edit.sim_solver)) {
        char key[64];
        params_key(FCL_P_sim_solver, key, sizeof key);
        for (size_t i = 0; i < fcl_solver_count; i++)
            if (ImGui::Selectable(fcl_solvers[i]->name, strcmp(fcl_solvers[i]->name, v->edit.sim_solver) == 0))
                report(v, view_apply_param(v, key, fcl_solvers[i]->name, err, sizeof err), key, err);
        ImGui::EndCombo();
    }
    param_widget(v, &fcl_param_table[FCL_P_opencl_workgroup]);
    /* Wrapped: one line was cut at the panel's edge. */
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    char line[512] = "smoothing kernels: fixed by the solver (";
    for (size_t i = 0; i < fcl_solver_count; i++)
        snprintf(line + strlen(line), sizeof line - strlen(line), "%s%s: %s", i ? "; " : "", fcl_solvers[i]->name,
                 fcl_solvers[i]->kernels ? fcl_solvers[i]->kernels : "its own");
    snprintf(line + strlen(line), sizeof line - strlen(line), ")");
    ImGui::TextWrapped("%s", line);
    ImGui::PopStyleColor();
}

static void display_controls(fcl_view *v)
{
    ImGui::SetNextItemWidth(170.0f);
    /* Only the fields this solver keeps (pbf has no pressure). */
    if (ImGui::BeginCombo("color by", view_field_label(v, v->field))) {
        for (int i = 0; i < view_field_count(v); i++)
            if (view_field_shown(v, i) && ImGui::Selectable(view_field_label(v, i), i == v->field))
                view_set_field(v, i);
        ImGui::EndCombo();
    }
    ImGui::SetNextItemWidth(170.0f);
    if (ImGui::DragFloat2("range", v->range[v->field], 0.01f * (v->range[v->field][1] - v->range[v->field][0]) + 1e-6f) &&
        v->field < FCL_FIELD_COUNT)
        v->range_user[v->field] = 1;   /* kept when the scene's defaults change */
    legend(v);
    toggle("domain box", &v->show_box);
    ImGui::SameLine();
    toggle("obstacles", &v->show_boundary);
    if (v->have_sim && v->sim.solver->overlay) {
        ImGui::SameLine();
        toggle(v->sim.solver->overlay_name ? v->sim.solver->overlay_name : "overlay", &v->show_overlay);
    }
    ImGui::SetNextItemWidth(170.0f);
    ImGui::Combo("draw (M)", &v->draw, rnd_draw_names, RND_DRAW_COUNT);
    if (v->draw == RND_DRAW_SPLATS) {
        ImGui::SetNextItemWidth(170.0f);
        ImGui::DragFloat("splat radius (radii)", &v->splat_scale, 0.01f, 0.5f, 4.0f, "%.2f");
        ImGui::TextDisabled("surface particles (|n| > material.surface_threshold) as oriented discs");
    } else if (v->draw == RND_DRAW_MESH) {
        ImGui::SetNextItemWidth(170.0f);
        ImGui::DragInt("mesh every (frames)", &v->mesh_every, 0.1f, 1, 1000);
        ImGui::Text("step %ld: %zu triangles, %.1f ms", v->mesh_step, v->mesh_tris, v->mesh_ms);
        ImGui::TextDisabled("surface.* parameters (below) shape the mesh");
    }
}

static void interaction(fcl_view *v)
{
    char err[1024] = "";
    ImGui::SetNextItemWidth(170.0f);
    if (ImGui::DragFloat("force radius (m)", &v->force_radius, 0.001f, 1e-4f, 10.0f, "%.4g"))
        v->radius_user |= 1;   /* kept when the scene's defaults change */
    ImGui::SetNextItemWidth(170.0f);
    ImGui::DragFloat("force rate (1/s)", &v->force_gain, 0.5f, 0.0f, 1000.0f, "%.3g");
    ImGui::SetNextItemWidth(170.0f);
    if (ImGui::DragFloat("ball radius (m)", &v->ball_radius, 0.001f, 1e-4f, 10.0f, "%.4g"))
        v->radius_user |= 2;
    ImGui::SameLine();
    if (ImGui::Button("Drop ball (B)")) {
        float c[3];
        view_ball_center(v, c);
        if (view_drop_ball(v, c, v->ball_radius, err, sizeof err) != 0)
            view_set_status(v, "%s", err);
    }
    if (ImGui::Button("Screenshot (P)"))
        view_request_shot(v);   /* P's names (the button's replaced files, a review) */
    ImGui::SameLine();
    bool rec = v->recording != 0;
    if (ImGui::Checkbox("record frames (V)", &rec) &&
        view_set_recording(v, rec ? view_record_folder(v) : NULL, err, sizeof err) != 0)
        view_set_status(v, "%s", err);
    if (v->recording) {
        ImGui::SameLine();
        ImGui::Text("%s/frame_%05ld.png", v->record_dir, v->record_index);
    }
}

static void kernels(fcl_view *v)
{
    bool cl = be_opencl_is(v->be) != 0;
    ImGui::TextWrapped("folder: %s", v->kernel_dir[0] ? v->kernel_dir : "(embedded sources; --kernel-dir DIR to edit)");
    if (!cl)
        ImGui::TextColored(warn_color, "hot reload applies to OpenCL only: the native CPU backend compiles kernels/ as C");
    if (ImGui::Button("Reload kernels (R)"))
        view_reload_kernels(v);
    if (v->reload_ok >= 0)
        ImGui::TextColored(v->reload_ok ? good_color : bad_color, "%s", v->reload_msg);
    if (v->reload_log && ImGui::BeginChild("log", ImVec2(0, 160), true, ImGuiWindowFlags_HorizontalScrollbar)) {
        ImGui::TextUnformatted(v->reload_log);
    }
    if (v->reload_log)
        ImGui::EndChild();
}

/* ms per step of a pass; the viewer's own passes run once per frame. */
static double per_step(const fcl_timers *t, const char *label, int steps)
{
    double ms = timers_get(t, label);
    bool frame = strcmp(label, "view-pack") == 0 || strcmp(label, "interact") == 0;
    return frame || steps <= 0 ? ms : ms / steps;
}

static bool listed(const fcl_timers *t, const char *label)
{
    for (int i = 0; i < t->count; i++)
        if (strcmp(t->label[i], label) == 0)
            return true;
    return false;
}

/* The frame's passes, and beside them the other backend's one step. */
static void pass_table(fcl_view *v)
{
    const fcl_timers *a = &v->pass_ms, *b = v->have_other ? &v->other_ms : NULL;
    if (!ImGui::BeginTable("passes", b ? 3 : 2, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit))
        return;
    ImGui::TableSetupColumn("pass");
    ImGui::TableSetupColumn(v->be->kind);
    if (b)
        ImGui::TableSetupColumn(strcmp(v->be->kind, "cpu") == 0 ? "opencl (1 step)" : "cpu (1 step)");
    ImGui::TableHeadersRow();
    for (int pass = 0; pass < 2; pass++) {
        const fcl_timers *t = pass ? b : a;
        for (int i = 0; t && i < t->count; i++) {
            if (pass && listed(a, t->label[i]))
                continue;
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(t->label[i]);
            ImGui::TableNextColumn();
            ImGui::Text("%.3f", per_step(a, t->label[i], v->pass_steps));
            if (b) {
                ImGui::TableNextColumn();
                ImGui::Text("%.3f", timers_get(b, t->label[i]));
            }
        }
    }
    ImGui::EndTable();
}

static void timings(fcl_view *v)
{
    float hist[VIEW_HISTORY], bars[FCL_TIMERS_MAX];
    for (int i = 0; i < VIEW_HISTORY; i++)
        hist[i] = (float)v->frame_ms[i];
    ImGui::PlotLines("frame ms", hist, VIEW_HISTORY, v->hist, NULL, 0.0f, FLT_MAX, ImVec2(240, 50));
    for (int i = 0; i < v->pass_ms.count; i++)
        bars[i] = (float)per_step(&v->pass_ms, v->pass_ms.label[i], v->pass_steps);
    /* No overlay text: it was drawn over the bars (a review). */
    ImGui::PlotHistogram("ms per pass", bars, v->pass_ms.count, 0, NULL, 0.0f, FLT_MAX, ImVec2(240, 50));
    ImGui::TextWrapped("bars in the table's order; ms per step over %d step(s) of the last frame (from %s)",
                       v->pass_steps, be_opencl_is(v->be) ? "profiling events" : "wall clock");
    pass_table(v);
    const char *other = strcmp(v->be->kind, "cpu") == 0 ? "Same step on OpenCL" : "Same step on the native CPU backend";
    if (ImGui::Button(other))
        view_compare_backends(v);
    if (v->have_other)
        ImGui::TextWrapped("other: %s, %.2f ms per step", v->other_name, timers_total(&v->other_ms));
}

/* The last step's figures: the common ones, then those the solver
 * declares (solver.h), by their labels. */
static void step_stats(fcl_view *v)
{
    const fcl_step_stats *st = &v->sim.stats;
    const fcl_solver *sv = v->sim.solver;
    /* Wrapped: at the panel's width it lost the largest error (a review).
     * No step yet (a start, a reset or a ball's rebuild, which showed
     * "dt 0 ms"; a review): said so. */
    if (!(st->dt > 0.0)) {
        ImGui::TextWrapped("no step since the simulation was made (started, reset or rebuilt for a ball)");
        return;
    }
    if (sv && sv->no_density)   /* a grid solver's markers carry the rest density: n/a, as run says */
        ImGui::TextWrapped("dt %.4g ms, max speed %.3g m/s, density error n/a", 1e3 * st->dt, st->max_speed);
    else
        ImGui::TextWrapped("dt %.4g ms, max speed %.3g m/s, density error %.3g %% (max %.3g %%)", 1e3 * st->dt,
                           st->max_speed, st->avg_density_err, st->max_density_err);
    for (int k = 0; sv && k < sv->nstats; k++)
        ImGui::Text("%s %.4g%s%s", sv->stats[k].label, st->solver[k], sv->stats[k].unit[0] ? " " : "",
                    sv->stats[k].unit);
}

static void header(fcl_view *v)
{
    ImGui::TextWrapped("%s on %s", v->scene.name[0] ? v->scene.name : v->scene.file, v->be->name);
    ImGui::TextColored(v->shared ? good_color : warn_color, "particles to GL: %s", view_path_name(v));
    if (!v->shared && ImGui::IsItemHovered())
        ImGui::SetTooltip("%s", v->path_note);
    ImGui::Text("%zu particles, %zu boundary; step %ld, t = %.4f s", v->sim.n, v->nb, v->sim.step, v->sim.time);
    /* Paused, no step runs: 0, not the smoothed rate's decaying tail
     * (3.59e-06 particle-steps/s, a review). */
    ImGui::Text("%.1f fps, %.3g particle-steps/s%s", v->fps, v->paused ? 0.0 : v->psteps,
                v->paused ? "  [paused]" : "");
    step_stats(v);
    if (v->status[0])
        ImGui::TextWrapped("%s", v->status);
}

extern "C" void rnd_gui_draw(fcl_view *v)
{
    if (!gui_on)
        return;
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    if (close_popups) {   /* no keyboard navigation here, so ImGui leaves Esc to us */
        ImGui::ClosePopupsExceptModals();
        close_popups = false;
    }
    ImGui::SetNextWindowPos(ImVec2(8, 8), ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowSize(ImVec2(RND_GUI_WIDTH - 10, (float)(v->fb_h > 40 ? v->fb_h - 16 : 300)), ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowBgAlpha(0.85f);
    if (ImGui::Begin("fluidcl (H hides)")) {
        header(v);
        if (ImGui::CollapsingHeader("Run", ImGuiTreeNodeFlags_DefaultOpen))
            run_controls(v);
        if (ImGui::CollapsingHeader("Display", ImGuiTreeNodeFlags_DefaultOpen))
            display_controls(v);
        if (ImGui::CollapsingHeader("Interaction and capture"))
            interaction(v);
        if (ImGui::CollapsingHeader("Timings", ImGuiTreeNodeFlags_DefaultOpen))
            timings(v);
        if (ImGui::CollapsingHeader("Kernels (hot reload)"))
            kernels(v);
        ImGui::Separator();
        ImGui::TextDisabled("Parameters (hover for range and description)");
        parameters(v);
    }
    ImGui::End();
    commit_left_edit(v);
    ImGui::Render();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}
