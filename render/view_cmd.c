/* view_cmd.c - `fluidcl view SCENE [options]`: the interactive viewer, or
 * with --frames N a scripted run that renders N frames, optionally saves
 * a screenshot, prints the frame rate and the particle path, and exits.
 * Invariant: the options of `run` mean the same here (cli.c parses them);
 * only the viewer's own options are taken out first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view.h"

/* The viewer's options that take a value (view_option), in this order. */
static const char *const valued[] = { "--frames", "--screenshot", "--steps-per-frame", "--record", "--color",
                                      "--size", "--draw" };
enum { NVALUED = sizeof valued / sizeof valued[0] };

typedef struct view_args {
    fcl_view_opts vo;
    long frames;            /* 0: until the window closes */
    const char *screenshot;
    const char *seen[NVALUED];   /* each valued option's value, once given */
} view_args;

static int field_by_name(const char *name)
{
    static const char *const names[FCL_FIELD_COUNT] = { "speed", "density", "pressure", "phase", "surface" };
    for (int i = 0; i < FCL_FIELD_COUNT; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

static int draw_by_name(const char *name)
{
    for (int i = 0; i < RND_DRAW_COUNT; i++)
        if (strcmp(name, rnd_draw_names[i]) == 0)
            return i;
    return -1;
}

/* A whole number in [1, 1e6] (frames, steps per frame: an int on the
 * viewer's side), decimal digits only. */
static int positive(const char *opt, const char *val, long *out)
{
    char *end;
    long x = val ? strtol(val, &end, 10) : 0;
    if (!val || *val < '0' || *val > '9' || *end || x < 1 || x > 1000000) {
        cli_error("view: %s: expected a whole number in [1, 1000000], got '%s'", opt, val ? val : "");
        return -1;
    }
    *out = x;
    return 0;
}

void view_print_options(FILE *f)
{
    fputs("view options:\n"
          "  --frames N                    render N frames, print the frame rate and exit\n"
          "  --screenshot FILE.png         (with --frames) save the last frame\n"
          "  --steps-per-frame K           solver steps between frames (default 1)\n"
          "  --color speed|density|pressure|phase|surface   field the particles are colored by\n"
          "  --draw spheres|splats|mesh    particles as spheres, surface particles as oriented splats\n"
          "                                (fast preview), or the marching-cubes surface (surface.*)\n"
          "  --record DIR                  save every frame as DIR/frame_NNNNN.png\n"
          "  --size WxH                    window size (default 1280x720)\n"
          "  --no-panel                    start with the panel hidden (H toggles it)\n"
          "  --overlay                     draw the solver's own points: fluid control's control particles\n"
          "                                (pbf with targets; --control says the same) or the mac grid's\n"
          "                                fluid and solid cells in the middle z slice\n",
          f);
}

/* One viewer option at argv[*i]: 1 taken, 0 not a viewer option, -1 bad. */
static int view_option(view_args *a, int argc, char **argv, int *i)
{
    const char *opt = argv[*i], *val = *i + 1 < argc ? argv[*i + 1] : NULL;
    long x = 0;
    int w = 0, h = 0;
    if (strcmp(opt, "--no-panel") == 0)
        return a->vo.hide_panel = 1;
    if (strcmp(opt, "--control") == 0 || strcmp(opt, "--overlay") == 0)
        return a->vo.show_overlay = 1;
    int k = 0;
    while (k < NVALUED && strcmp(opt, valued[k]) != 0)
        k++;
    if (k == NVALUED)
        return 0;
    (*i)++;
    if (!val || cli_is_option(val)) {
        cli_error("view: %s needs a value%s%s", opt, val ? ", not the option " : "", val ? val : "");
        return -1;
    }
    if (cli_once("view", opt, &a->seen[k], val) != 0)
        return -1;
    if (strcmp(opt, "--frames") == 0)
        return positive(opt, val, &a->frames) == 0 ? 1 : -1;
    if (strcmp(opt, "--steps-per-frame") == 0) {
        if (positive(opt, val, &x) != 0)
            return -1;
        a->vo.steps_per_frame = (int)x;
    } else if (strcmp(opt, "--color") == 0) {
        if ((a->vo.field = field_by_name(val)) < 0) {
            cli_error("view: --color '%s': expected speed, density, pressure, phase or surface", val);
            return -1;
        }
    } else if (strcmp(opt, "--draw") == 0) {
        if ((a->vo.draw = draw_by_name(val)) < 0) {
            cli_error("view: --draw '%s': expected spheres, splats (surface particles only) or mesh (marching cubes)",
                      val);
            return -1;
        }
    } else if (strcmp(opt, "--size") == 0) {
        char tail = 0;
        /* Digits only: sscanf alone took " 640x480" and "+640x+480". */
        if (strspn(val, "0123456789x") != strlen(val) || sscanf(val, "%dx%d%c", &w, &h, &tail) != 2 || w < 64 ||
            h < 64 || w > 8192 || h > 8192) {
            cli_error("view: --size '%s': expected WIDTHxHEIGHT, each 64..8192", val);
            return -1;
        }
        a->vo.width = w;
        a->vo.height = h;
    } else if (strcmp(opt, "--screenshot") == 0) {
        size_t len = strlen(val);
        if (len < 5 || strcmp(val + len - 4, ".png") != 0) {
            cli_error("view: --screenshot '%s': expected a file name ending in .png (the picture is a PNG)", val);
            return -1;
        }
        a->screenshot = val;
    } else {
        if (!val[0]) {
            cli_error("view: --record '': expected the name of a folder for the frames");
            return -1;
        }
        a->vo.record_dir = val;
    }
    return 1;
}

/* Split argv into the viewer's options and the rest, for cli_parse. */
static int split_args(view_args *a, int argc, char **argv, char **rest, int *nrest)
{
    memset(a, 0, sizeof *a);
    a->vo.field = FCL_FIELD_SPEED;
    a->vo.draw = RND_DRAW_SPHERES;
    *nrest = 0;
    for (int i = 0; i < argc; i++) {
        int r = view_option(a, argc, argv, &i);
        if (r < 0)
            return FCL_EXIT_INPUT;
        if (r == 0)
            rest[(*nrest)++] = argv[i];
    }
    if (a->screenshot && a->frames == 0) {
        cli_error("view: --screenshot needs --frames N (the picture is taken after frame N)");
        return FCL_EXIT_INPUT;
    }
    /* Its folder must take the file before any frame is drawn. */
    if (a->screenshot && cli_probe_file("view: --screenshot", a->screenshot) != 0)
        return FCL_EXIT_INPUT;
    a->vo.vsync = a->frames == 0;
    return 0;
}

static void closing_report(const fcl_view *v)
{
    double wall = v->t_last - v->t_open;
    printf("view: %ld frames in %.2f s: %.2f fps; %ld steps of %zu particles, %.3g particle-steps/s\n", v->frames,
           wall, wall > 0 ? v->frames / wall : 0.0, v->stepped, v->sim.n,
           wall > 0 ? (double)v->sim.n * v->stepped / wall : 0.0);
    double f = v->frames > 0 ? 1e3 / (double)v->frames : 0.0;
    printf("view: per frame %.1f ms solver steps, %.1f ms pack + copy to GL, %.1f ms drawing (panel, swap)\n",
           v->sum_step * f, v->sum_copy * f, v->sum_draw * f);
    printf("view: particles to GL: %s%s%s%s\n", view_path_name(v), v->shared ? "" : " (", v->shared ? "" : v->path_note,
           v->shared ? "" : ")");
    printf("view: backend %s\n", v->be ? v->be->name : "none");
    if (v->meshes > 0)
        printf("view: %ld meshes, %.1f ms each on average to reconstruct (from the simulation's buffers) and upload; "
               "the last, of step %ld: %zu triangles, %zu vertices\n", v->meshes, v->sum_mesh * 1e3 / (double)v->meshes, v->mesh_step,
               v->mesh_tris, v->mesh_verts);
}

int cmd_view(int argc, char **argv)
{
    view_args a;
    fcl_cli o;
    char **rest = calloc((size_t)argc + 1, sizeof *rest), err[2048] = "";
    int nrest = 0, rc = rest ? split_args(&a, argc, argv, rest, &nrest) : FCL_EXIT_DEVICE;
    if (rc == 0)
        rc = cli_parse(&o, nrest, rest, FCL_CMD_VIEW);
    if (rc == 0 && o.help) {
        cli_help(stdout, FCL_CMD_VIEW);
        view_print_options(stdout);
        free(rest);
        return 0;
    }
    fcl_view *v = rc == 0 ? calloc(1, sizeof *v) : NULL;
    if (rc == 0 && v && (rc = view_open(v, &o, &a.vo, err, sizeof err)) != 0 && err[0])
        cli_error("%s", err);
    for (long f = 0; rc == 0 && (a.frames == 0 || f < a.frames) && !view_should_close(v); f++)
        rc = view_frame(v);
    if (rc == 0 && a.screenshot && view_screenshot(v, a.screenshot, err, sizeof err) != 0) {
        cli_error("%s", err);
        rc = FCL_EXIT_INPUT;
    }
    if (rc == 0 && v->recording)
        view_set_recording(v, NULL, err, sizeof err);   /* the status says where the frames went */
    if (rc == 0) {
        closing_report(v);
        if (v->status[0])
            printf("view: %s\n", v->status);
        /* A run whose last step failed says so in its code, and why: a
         * later status (a screenshot) once replaced the reason. */
        if (v->step_failed && strcmp(v->failure, v->status) != 0)
            printf("view: exit 3: %s\n", v->failure);
        if (v->step_failed)
            rc = FCL_EXIT_DEVICE;
    }
    if (v)
        view_close(v);
    free(v);
    free(rest);
    return rc;
}
