/* cli.h - command-line options shared by `run` and `bench`, and the setup
 * both do: load the scene, apply overrides, check it, pick a backend.
 * Invariant: every failure here is reported once, on stderr, and mapped to
 * the exit codes of sim.h (2 bad input, 3 device or runtime failure).
 */
#ifndef FCL_CLI_H
#define FCL_CLI_H

#include "backend.h"
#include "scene.h"

enum { FCL_MAX_OVERRIDES = 64 };

typedef struct fcl_cli {
    const char *scene;
    const char *backend;      /* cpu | opencl | all (bench) */
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
    const char *overrides[FCL_MAX_OVERRIDES];
    int noverrides;
} fcl_cli;

/* Parse argv (after the subcommand). Returns 0 or FCL_EXIT_INPUT. */
int cli_parse(fcl_cli *o, int argc, char **argv, const char *cmd);
/* Load o->scene into s and apply o's overrides to s->params; then check.
 * Returns 0 or FCL_EXIT_INPUT (message printed). */
int cli_scene(const fcl_cli *o, fcl_scene *s);
/* Prints "fluidcl: msg" to stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
