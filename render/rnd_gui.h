/* rnd_gui.h - the viewer's tuning panel (Dear ImGui), behind a C
 * interface so that everything but rnd_gui.cpp stays C.
 * Invariant: every parameter edit goes through view_apply_param /
 * view_apply_number, the same setters the command line's --param uses.
 */
#ifndef FCL_RND_GUI_H
#define FCL_RND_GUI_H

#ifdef __cplusplus
extern "C" {
#endif

struct GLFWwindow;
struct fcl_view;

/* Width of the panel, pixels (it sits at the left edge). */
enum { RND_GUI_WIDTH = 440 };

/* ImGui with its GLFW (callbacks chained to those already installed) and
 * OpenGL 3 back ends. 0, or -1 when a back end does not start. */
int rnd_gui_init(struct GLFWwindow *w);
void rnd_gui_shutdown(void);
/* Whether ImGui uses the mouse or keyboard now (the panel has them). */
int rnd_gui_wants_mouse(void);
/* Whether a popup of the panel (a combo's list) is open: Esc closes it
 * (rnd_gui_close_popups, at the next frame), and does not quit (it quit:
 * ImGui does not take the keyboard for a combo; a review). */
int rnd_gui_popup_open(void);
void rnd_gui_close_popups(void);
int rnd_gui_wants_keyboard(void);
/* After each glfwPollEvents: hands this frame's queued key events to
 * ImGui and the viewer's keys (view_keys.h), panel shown or not. */
void rnd_gui_input(void);
/* Build and draw the panel for this frame. */
void rnd_gui_draw(struct fcl_view *v);

#ifdef __cplusplus
}
#endif

#endif
