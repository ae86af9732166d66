/* view.h - the interactive viewer: one simulation drawn live in a GLFW
 * window, with the tuning panel, kernel hot reload, user forces, fluid
 * balls, capture, and scripted runs (`fluidcl view`).
 *
 * A frame is: input -> (shared path: acquire the GL buffer) -> user force
 * -> steps_per_frame solver steps -> view_pack into the vertex buffer ->
 * (release, or copy via host) -> (mesh mode: marching cubes every
 * mesh_every frames) -> draw -> panel -> capture -> swap.
 * Invariant: sim.user points at `live`, whose live parameters the
 * simulation takes at every step; the panel edits `edit`, and live
 * parameters are copied to `live` at once, the others at the next reset. The vertex
 * buffer holds sim.n particles in grid order.
 */
#ifndef FCL_VIEW_H
#define FCL_VIEW_H

#include <stddef.h>

#include "cli.h"
#include "mc.h"
#include "rnd_camera.h"
#include "rnd_particles.h"
#include "sim.h"

#ifdef __cplusplus
extern "C" {
#endif

struct GLFWwindow;

enum { VIEW_HISTORY = 120 };

typedef struct fcl_view_opts {
    int width, height;          /* window size (default 1280 x 720) */
    int steps_per_frame;        /* default 1 */
    int field;                  /* FCL_FIELD_*, default speed */
    int draw;                   /* RND_DRAW_*, default spheres */
    int hide_panel;             /* start with the panel hidden */
    int show_overlay;           /* draw the control particles (--control) */
    int vsync;                  /* wait for the display between frames */
    const char *record_dir;     /* record every frame into this folder */
} fcl_view_opts;

typedef struct fcl_view {
    struct GLFWwindow *win;
    rnd_renderer *rnd;
    rnd_camera cam;
    int fb_w, fb_h;
    /* What is simulated. */
    fcl_cli cli;
    fcl_scene scene;
    fcl_params edit, live;
    fcl_backend *be;
    fcl_sim sim;
    int have_sim;
    float4 *bpos;               /* boundary samples (for rebuilds, drawing) */
    size_t nb;
    float *phase;               /* per original particle id: its fluid body */
    size_t phase_ids;           /* the ids phase[] covers */
    fcl_buf *phase_buf;
    int nphases;
    float palette[RND_PALETTE][3];  /* phase colours: the scene's phases' own, else rnd_palette */
    /* The path particles take to the vertex buffer. */
    int shared;                 /* 1: shared CL-GL buffer; 0: copy via host */
    char path_note[256];        /* why sharing is off */
    fcl_buf *pack;              /* shared: the GL buffer; copy: a staging buffer */
    size_t pack_n;
    /* Controls. */
    int paused, step_once, steps_per_frame, field;   /* step_once: N presses since the last frame */
    int step_failed;            /* the last step tried failed (the view paused; a reset or a good step clears it) */
    char failure[1024];         /* why, as the status said it (later statuses replace that one) */
    float range[FCL_FIELD_COUNT + FCL_SOLVER_FIELDS_MAX][2];   /* legend per field */
    int range_pending;          /* a solver field's range read with no spread: reads left */
    unsigned char range_user[FCL_FIELD_COUNT];  /* set in the panel: the scene's defaults leave it */
    int radius_user;            /* 1 force, 2 ball radius set in the panel: the defaults leave them */
    double defaults_for[6];     /* rest density, gravity, domain height and width, spacing the defaults were made for */
    int show_panel, show_box, show_boundary;
    int show_overlay;           /* the solver's overlay points (control particles) */
    int draw;                   /* RND_DRAW_*: spheres, splats or mesh */
    float splat_scale;          /* splat radius in particle radii */
    /* Mesh mode: the surface (surface.* parameters) rebuilt every
     * mesh_every frames, and every frame the state changes while paused. */
    mc_ctx mc;
    int mc_ready;               /* mc holds kernels for be */
    int mesh_every;
    long mesh_frame, mesh_step; /* frame and step the mesh was made at */
    double mesh_ms;             /* the last reconstruction's wall time */
    double sum_mesh;            /* seconds over all reconstructions */
    long meshes;                /* reconstructions made */
    size_t mesh_tris, mesh_verts;
    mc_config mesh_cfg;         /* the parameters the mesh was made with */
    float force_radius, force_gain, ball_radius;
    char status[1024];          /* last event or error, shown in the panel */
    /* Kernel hot reload. */
    char kernel_dir[1024];      /* "" when the kernels are the embedded ones */
    unsigned long kernel_sig;
    double last_poll;
    int reload_ok;              /* -1 never reloaded, 0 failed, 1 ok */
    long reloads;
    char *reload_log;           /* compiler log of the last failed build */
    char reload_msg[512];
    /* Timing: per-pass ms per step of the last stepped frame. */
    fcl_timers pass_ms;
    int pass_steps;             /* steps pass_ms covers */
    double frame_ms[VIEW_HISTORY];
    int hist;
    double fps, psteps;         /* smoothed frames/s and particle-steps/s */
    long frames, stepped;       /* frames drawn, steps taken in this view */
    double t_open, t_last, step_wall;
    double sum_step, sum_copy, sum_draw;    /* seconds over all frames: solver
                                               steps, pack + copy, draw + swap */
    /* The same step on the other backend, on demand. */
    fcl_timers other_ms;
    char other_name[320];
    int have_other;
    /* Mouse. */
    int dragging;               /* 1 orbit, 2 pan, 3 force */
    double mx, my;
    float drag_dv[3];           /* pending user velocity change */
    int drag_active;
    /* Capture. */
    int recording;
    char record_dir[1024];
    long record_index, record_first;   /* the next frame's number, and this take's first */
    char shot_path[1024];       /* screenshot requested for the next frame */
    int shots_waiting;          /* more P presses while one was pending: each its own file */
} fcl_view;

/* view_display_available: cli.h. glFinish, for the interop path, which
 * includes no GL header of its own. */
void view_gl_finish(void);
/* Open the window, load o->scene with o's options, build the simulation
 * and choose the shared or copy path. 0, FCL_EXIT_INPUT or
 * FCL_EXIT_DEVICE with a message in err. */
int view_open(fcl_view *v, const fcl_cli *o, const fcl_view_opts *vo, char *err, size_t errlen);
/* One frame (see the banner). 0, or FCL_EXIT_DEVICE on a device failure. */
int view_frame(fcl_view *v);
int view_should_close(const fcl_view *v);
void view_close(fcl_view *v);

/* The panel's entry points, also used by tests and scripts. */
/* Set a parameter from text as the panel does; 1 when it applies at the
 * next step, 0 when it waits for a reset, -1 with a message in err (its
 * range, or an ordered pair such as dfsph.dt_min <= dt_max: then nothing
 * changes). */
int view_apply_param(fcl_view *v, const char *key, const char *text, char *err, size_t errlen);
/* The same for one number (component comp of a VEC3). */
int view_apply_number(fcl_view *v, const fcl_param_def *d, int comp, double value, char *err, size_t errlen);
/* Rebuild the scene with the edited parameters (solver, spacing, ...). */
int view_reset(fcl_view *v);
/* Rebuild the kernels from the kernel folder; the simulation keeps its
 * state. 0, or -1 with the log in v->reload_log (the old ones still run). */
int view_reload_kernels(fcl_view *v);
/* Add a ball of fluid of radius r at c (rebuilds the simulation from its
 * current state plus the ball; step and time are kept). */
int view_drop_ball(fcl_view *v, const float c[3], float r, char *err, size_t errlen);
/* Where B drops a ball: under the cursor, near the top of the domain. */
void view_ball_center(const fcl_view *v, float c[3]);
/* Add dv, weighted by distance, to particles within radius of the ray. */
int view_interact(fcl_view *v, const float origin[3], const float dir[3], const float dv[3], float radius);
/* One step of the current state on the other backend, for timings. */
int view_compare_backends(fcl_view *v);
int view_screenshot(fcl_view *v, const char *path, char *err, size_t errlen);
/* Asks for a screenshot at the next frame, named fluidcl_TIME.png (and
 * _2, _3 ... when taken twice within a second), for P and the panel. */
void view_request_shot(fcl_view *v);
int view_set_recording(fcl_view *v, const char *dir, char *err, size_t errlen);
/* "shared CL-GL" or "copy via host". */
const char *view_path_name(const fcl_view *v);
/* Make the mesh of the current state now (mesh mode does it by itself):
 * download, marching cubes, upload. 0, or an FCL_EXIT_* with err. */
int view_mesh_update(fcl_view *v, char *err, size_t errlen);
int view_mesh_due(const fcl_view *v);
void view_mesh_free(fcl_view *v);
/* The view-projection the last frame was drawn with. */
void view_viewproj(const fcl_view *v, float vp[16]);

/* Internal to the viewer's files (view_sim.c, view_interop.c,
 * view_input.c). */
/* Colour fields: the common ones (FCL_FIELD_*), then the solver's own
 * (field FCL_FIELD_COUNT + k is solver->fields[k]). view_set_field picks
 * one (a solver field whose declared range is empty gets the range of
 * its values now); view_field_label names it. */
int view_field_count(const fcl_view *v);
/* Whether field means something under this solver (pressure under one
 * that keeps none does not): the menu and the C key skip the others. */
int view_field_shown(const fcl_view *v, int field);
/* The next field shown after field, cyclically (the C key). */
int view_field_next(const fcl_view *v, int field);
void view_set_field(fcl_view *v, int field);
const char *view_field_label(const fcl_view *v, int field);
int view_build(fcl_view *v, const float4 *pos, const float4 *vel, size_t n, char *err, size_t errlen);
int view_load_scene(fcl_view *v, char *err, size_t errlen);
int view_interop_backend(fcl_view *v, char *err, size_t errlen);
int view_interop_alloc(fcl_view *v, char *err, size_t errlen);
/* After steps that changed the particle count (emitters, outflows): the
 * vertex buffer made anew for it (its planes are n apart) and the new
 * ids' phases; between view_interop_begin and _end. 0 or an exit code. */
int view_interop_follow(fcl_view *v, char *err, size_t errlen);
int view_interop_begin(fcl_view *v);
int view_interop_end(fcl_view *v);
void view_interop_free(fcl_view *v);
void view_input_install(fcl_view *v);
/* The phase legend's label of colour index i: a scene phase, a fluid
 * block (index 0 also the emitters' fluid), or a dropped ball. */
const char *view_phase_label(const fcl_view *v, int i, char *buf, size_t len);
/* The camera framing the domain in the window's scene part (beside the
 * panel when it shows), whatever the window's aspect (F, and at start). */
void view_frame_domain(fcl_view *v);
/* Where V and the panel's checkbox record: the last recording's folder
 * (--record DIR's; they went to fluidcl_frames: a review), else
 * fluidcl_frames. */
const char *view_record_folder(const fcl_view *v);
/* A solver field's legend read again after steps while the last reading
 * had no spread (no particle yet): view_set_field's range. */
void view_field_range_follow(fcl_view *v);
void view_input_frame(fcl_view *v);
/* A push drag of (dx, dy) pixels over frame_s seconds of wall time into
 * v->drag_dv (view_input.c; view_input_frame calls it while pushing). */
void view_drag_force(fcl_view *v, float dx, float dy, double frame_s);
void view_poll_kernels(fcl_view *v, double now);
void view_set_status(fcl_view *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void view_release_sim(fcl_view *v);

#ifdef __cplusplus
}
#endif

#endif
