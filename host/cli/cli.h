/* cli.h - command-line options shared by `run`, `bench` and `view`, and the
 * setup they do: load the scene, apply overrides, check it, pick a backend.
 * Invariant: every failure here is reported once, on stderr, and mapped to
 * the exit codes of sim.h (2 bad input, 3 device or runtime failure).
 */
#ifndef FCL_CLI_H
#define FCL_CLI_H

#include <stdio.h>

#include "backend.h"
#include "mc.h"
#include "scene.h"

enum { FCL_MAX_OVERRIDES = 64 };
/* The commands that share these options (a mask: an option lists those
 * that read it). */
enum { FCL_CMD_RUN = 1u, FCL_CMD_BENCH = 2u, FCL_CMD_VIEW = 4u };

typedef struct fcl_cli {
    const char *scene;
    const char *backend;      /* cpu | opencl | all (bench) */
    int backend_given;        /* --backend, --device or --kernel-dir: OpenCL asked for by name */
    const char *device;
    const char *solver;
    const char *out;
    const char *stats;
    const char *json;
    const char *kernel_dir;
    const char *from;         /* bench: start from this saved frame */
    const char *checkpoint;   /* run: where checkpoints go (NULL: DIR/checkpoint.state) */
    const char *resume;       /* run: continue from this checkpoint */
    long checkpoint_every;    /* run: a checkpoint every K steps; -1: not given */
    long steps;               /* -1: not given */
    double time;              /* -1: not given */
    long every;               /* -1: not given */
    int quiet;
    int mesh;                 /* run: a surface mesh per output frame */
    int help;                 /* --help: print the command's options, run nothing */
    unsigned cmd;             /* the command parsed for (FCL_CMD_*) */
    const char *overrides[FCL_MAX_OVERRIDES];
    int noverrides;
} fcl_cli;

/* Parse argv (after the subcommand) for command cmd (FCL_CMD_*): options
 * of other commands are refused. Returns 0 or FCL_EXIT_INPUT; with
 * o->help set, 0 and nothing checked (the caller prints cli_help). */
int cli_parse(fcl_cli *o, int argc, char **argv, unsigned cmd);
/* The options of the commands in mask cmds, one per line; tag: say which
 * command reads each (the general usage), and leave out --help. */
void cli_print_options(FILE *f, unsigned cmds, int tag);
/* `fluidcl CMD --help`: the usage line and the command's options. */
void cli_help(FILE *f, unsigned cmd);
/* Load o->scene into s and apply o's overrides to s->params; then check.
 * Returns 0 or FCL_EXIT_INPUT (message printed). */
int cli_scene(const fcl_cli *o, fcl_scene *s);
/* Whether a file can be written at path (opt names it in the message): its
 * temporary is created and removed, nothing else written. 0 or
 * FCL_EXIT_INPUT (message printed). */
int cli_probe_file(const char *opt, const char *path);
/* Whether an output may replace path: nothing (or an empty file) there,
 * or a regular file whose text, leading white space skipped, starts with
 * head (an earlier output of its kind: "step," for --stats, {"backends"
 * for bench --json). */
int cli_replaceable(const char *path, const char *head);
/* 1 when PATH lies directly in the output folder that run is about to
 * create (output.dir, not there yet; with --every 0 made for such a file
 * alone): its probe waits for the folder (--out DIR --stats DIR/s.csv
 * was refused as "no such folder"). */
int cli_in_new_dir(const char *path, const struct fcl_params *p);
/* What cli_probe_file refuses that can be told without creating anything
 * (a folder, a path that is not a regular file, a missing or read-only
 * folder): for files whose temporary must not be touched yet, such as the
 * statistics a killed run left in FILE.tmp. 0 or FCL_EXIT_INPUT. */
int cli_check_file(const char *opt, const char *path);
/* An output path (opt names it) that is one of the command's inputs, the
 * scene, the --from frame or (unless resume_ok) the --resume checkpoint,
 * by device and inode: printed and FCL_EXIT_INPUT (bench --json and run
 * --stats over the scene replaced it with exit 0; a review). */
int cli_check_not_input(const fcl_cli *o, const char *opt, const char *path, int resume_ok);
/* The same against the mesh files scene sc reads (obstacles, control
 * targets): --checkpoint glass.obj replaced the scene's glass, exit 0 (a
 * review). */
int cli_check_not_mesh(const fcl_scene *sc, const char *opt, const char *path);
/* --device and --kernel-dir against --backend for command name: a
 * missing kernel folder, and either option with the native backend
 * (unless later: the viewer may switch to OpenCL), print and return -1. */
int cli_check_device_options(const char *name, const char *backend, const char *device, const char *kernel_dir,
                             int later);
/* Where parameter key's value came from, for messages: flag when the
 * option that sets it was given (e.g. "--out"), else "--param KEY" or
 * "SCENE: KEY". Returns buf. */
const char *cli_origin(const fcl_cli *o, const char *key, const char *flag, char *buf, size_t len);
/* Prints a check's error err: as it is, or, where the key it starts with
 * (after "SCENE: ") came from --param or an option, or also (an option,
 * NULL: none) is given, "SCENE with --solver X and --param ..." */
struct fcl_scene;
void cli_check_error(const fcl_cli *o, const struct fcl_scene *s, const char *err, const char *also);
/* An option opt of command cmd ("run", "surface", ...) given value val
 * when *seen holds the value it was given before (NULL: none): another
 * one is refused, the message printed (the last was taken silently:
 * `--steps 10 ... --steps 5`; a review), the same one is harmless. 0,
 * *seen = val; or -1. */
int cli_once(const char *cmd, const char *opt, const char **seen, const char *val);
/* Whether val, met where an option's value belongs, is itself an option:
 * a long one (--steps) or a short one (-q, -h): 0 for NULL and for any
 * other text, negative numbers included. `--stats -q` wrote a file -q and
 * `--out -q` a folder, exit 0 (a review); ./-q names such a file. */
int cli_is_option(const char *val);
/* Whether two paths name alike, without a leading "./" or trailing
 * slashes (a run's statistics, checkpoint and folder; a --param path
 * beside its option's). */
int cli_same_path(const char *a, const char *b);
/* The first --param starting with prefix ("surface."), or NULL: the
 * notes of settings a command does nothing with. */
const char *cli_first_override(const fcl_cli *o, const char *prefix);
/* Prints "fluidcl: msg" to stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* What cli_write_surface made: the reconstruction's wall time (the
 * files not counted), its triangles and the volume they enclose. */
typedef struct cli_mesh_info {
    double ms;
    size_t ntri;
    double volume;   /* m^3 */
} cli_mesh_info;

/* Reconstruct and write "<base>.ply" and/or "<base>.obj" (format: ply,
 * obj or both): `surface` and `run --mesh` (surface_cmd.c). 0,
 * FCL_EXIT_INPUT or FCL_EXIT_DEVICE. */
int cli_write_surface(mc_ctx *x, const mc_config *c, const mc_input *in, const char *base, const char *format,
                      cli_mesh_info *info, char *err, size_t errlen);
/* Warns once (*warned) when the mesh of n particles at `spacing` is
 * empty or encloses under 1 % of their n spacing^3: settings that pass
 * the checks and still mesh nothing, or a speck (a one-layer sheet under
 * the level set gave 8 triangles, 5.8e-11 m^2). `name` names the mesh;
 * hint says what to look at (mc_empty_hint). */
void cli_warn_hollow(const char *name, size_t n, double spacing, const cli_mesh_info *m, const char *hint,
                     int *warned);
/* Warns once (*warned) when the level set (surface.method levelset) of
 * the mesh `name` stopped at surface.ls_max_iterations short of
 * surface.ls_tolerance (st: the reconstruction's, mc_ctx.last): said only
 * in `surface`'s progress line, which --quiet drops, and nowhere by
 * `run --mesh`. */
void cli_warn_unsettled(const char *name, const mc_config *c, const mc_stats *st, int *warned);

/* The commands main.c dispatches to, each with the arguments after its
 * name: run.c, surface_cmd.c, bench.c, and the viewer's in render/
 * (view_cmd.c: cmd_view and its options' help; view.c: whether a display
 * can be opened, X11 or Wayland, GLFW initialising). The exit code. */
int cmd_run(int argc, char **argv);
int cmd_surface(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_view(int argc, char **argv);
void view_print_options(FILE *f);
int view_display_available(void);

#endif
