/* cli.c - option parsing and scene setup shared by the subcommands. */
#include "cli.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infile.h"
#include "sim.h"

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("fluidcl: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* A number in [lo, hi]; hi keeps --steps and --every within a long and
 * within the range of the parameters they set (sim.steps, output.every). */
static int number(const char *opt, const char *v, double lo, double hi, double *out)
{
    char *end;
    double d = v ? strtod(v, &end) : 0.0;
    if (!v || *end || !isfinite(d) || d < lo || d > hi) {
        cli_error("%s: expected a number in [%g, %g], got '%s'", opt, lo, hi, v ? v : "");
        return -1;
    }
    *out = d;
    return 0;
}

/* Options that take a value, and where it goes. */
static const char **text_slot(fcl_cli *o, const char *a)
{
    if (strcmp(a, "--backend") == 0) return &o->backend;
    if (strcmp(a, "--device") == 0) return &o->device;
    if (strcmp(a, "--solver") == 0) return &o->solver;
    if (strcmp(a, "--out") == 0) return &o->out;
    if (strcmp(a, "--stats") == 0) return &o->stats;
    if (strcmp(a, "--json") == 0) return &o->json;
    if (strcmp(a, "--kernel-dir") == 0) return &o->kernel_dir;
    if (strcmp(a, "--from") == 0) return &o->from;
    if (strcmp(a, "--checkpoint") == 0) return &o->checkpoint;
    if (strcmp(a, "--resume") == 0) return &o->resume;
    return NULL;
}

static int parse_one(fcl_cli *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    const char **slot = text_slot(o, a);
    double d;
    if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
        o->quiet = 1;
        return 0;
    }
    if (strcmp(a, "--mesh") == 0) {
        o->mesh = 1;
        return 0;
    }
    if (!slot && strcmp(a, "--steps") && strcmp(a, "--time") && strcmp(a, "--every") && strcmp(a, "--param") &&
        strcmp(a, "--checkpoint-every")) {
        cli_error("unknown option '%s' (see 'fluidcl help')", a);
        return -1;
    }
    if (!v) {
        cli_error("%s needs a value", a);
        return -1;
    }
    (*i)++;
    if (slot) {
        *slot = v;
    } else if (strcmp(a, "--param") == 0) {
        if (o->noverrides == FCL_MAX_OVERRIDES) {
            cli_error("at most %d --param options", FCL_MAX_OVERRIDES);
            return -1;
        }
        o->overrides[o->noverrides++] = v;
    } else {
        int time = strcmp(a, "--time") == 0;
        if (number(a, v, time ? 0.0 : 1.0, time ? 1e6 : 2e9, &d) != 0)
            return -1;
        if (time) o->time = d;
        else if (strcmp(a, "--steps") == 0) o->steps = (long)d;
        else if (strcmp(a, "--checkpoint-every") == 0) o->checkpoint_every = (long)d;
        else o->every = (long)d;
    }
    return 0;
}

int cli_parse(fcl_cli *o, int argc, char **argv, const char *cmd)
{
    memset(o, 0, sizeof *o);
    o->backend = strcmp(cmd, "bench") == 0 ? "all" : "opencl";
    o->steps = o->every = o->checkpoint_every = -1;
    o->time = -1.0;
    for (int i = 0; i < argc; i++) {
        if (argv[i][0] == '-' && argv[i][1]) {
            if (parse_one(o, argc, argv, &i) != 0)
                return FCL_EXIT_INPUT;
        } else if (!o->scene) {
            o->scene = argv[i];
        } else {
            cli_error("%s: unexpected argument '%s' (one scene at a time)", cmd, argv[i]);
            return FCL_EXIT_INPUT;
        }
    }
    if (!o->scene) {
        cli_error("%s: which scene? e.g. 'fluidcl %s scenes/dam_break.json'", cmd, cmd);
        return FCL_EXIT_INPUT;
    }
    if (o->from && strcmp(cmd, "bench") != 0) {
        cli_error("%s: --from FRAME is a bench option (it times the solver on a saved state)", cmd);
        return FCL_EXIT_INPUT;
    }
    if ((o->checkpoint || o->resume || o->checkpoint_every >= 0) && strcmp(cmd, "run") != 0) {
        cli_error("%s: --checkpoint, --checkpoint-every and --resume are run options", cmd);
        return FCL_EXIT_INPUT;
    }
    if (o->steps >= 0 && o->time >= 0) {
        cli_error("%s: give --steps or --time, not both", cmd);
        return FCL_EXIT_INPUT;
    }
    return 0;
}

static int apply_flags(const fcl_cli *o, fcl_params *p, char *err, size_t errlen)
{
    char buf[FCL_STR_MAX + 32];
    for (int i = 0; i < o->noverrides; i++)
        if (params_assign(p, o->overrides[i], err, errlen) != 0)
            return -1;
    struct { const char *key; const char *text; } set[4] = { { "sim.solver", o->solver },
                                                             { "output.dir", o->out } };
    char steps[32], every[32], dur[64];
    snprintf(steps, sizeof steps, "%ld", o->steps);
    snprintf(every, sizeof every, "%ld", o->every);
    snprintf(dur, sizeof dur, "%.17g", o->time);
    set[2].key = "output.every";
    set[2].text = o->every >= 0 ? every : (o->out && p->output_every == 0 ? "100" : NULL);
    set[3].key = o->time >= 0 ? "sim.duration" : "sim.steps";
    set[3].text = o->time >= 0 ? dur : (o->steps >= 0 ? steps : NULL);
    if (o->time >= 0)
        p->sim_steps = 0;
    for (int i = 0; i < 4; i++) {
        if (!set[i].text)
            continue;
        snprintf(buf, sizeof buf, "%s=%s", set[i].key, set[i].text);
        if (params_assign(p, buf, err, errlen) != 0)
            return -1;
    }
    return 0;
}

/* The size limit the scene file itself is read under: input.max_file_mb
 * from --param (a bad value is reported later, with the other overrides). */
static size_t scene_file_limit(const fcl_cli *o)
{
    fcl_params p;
    char err[256];
    params_defaults(&p);
    for (int i = 0; i < o->noverrides; i++)
        if (strncmp(o->overrides[i], "input.", 6) == 0)
            params_assign(&p, o->overrides[i], err, sizeof err);
    return infile_limit(&p);
}

int cli_scene(const fcl_cli *o, fcl_scene *s)
{
    char err[1024] = "";
    if (scene_load_max(s, o->scene, scene_file_limit(o), err, sizeof err) != 0) {
        cli_error("%s", err);
        return FCL_EXIT_INPUT;
    }
    if (apply_flags(o, &s->params, err, sizeof err) != 0 || scene_check(s, &s->params, err, sizeof err) != 0) {
        cli_error("%s", err);
        scene_free(s);
        return FCL_EXIT_INPUT;
    }
    const fcl_solver *sv = solver_find(s->params.sim_solver);
    if (!sv) {
        char names[256];
        solver_names(names, sizeof names);
        cli_error("%s: sim.solver: unknown solver '%s' (expected one of: %s)", s->file,
                  s->params.sim_solver, names);
        scene_free(s);
        return FCL_EXIT_INPUT;
    }
    /* What the solver refuses whatever the device, before one is opened. */
    if (solver_check_phases(sv, s->phases, s->nphases, err, sizeof err) != 0 ||
        (sv->check && sv->check(&s->params, err, sizeof err) != 0)) {
        cli_error("%s: %s", s->file, err);
        scene_free(s);
        return FCL_EXIT_INPUT;
    }
    scene_emitter_capacity(s);
    return 0;
}
