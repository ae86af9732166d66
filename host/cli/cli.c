/* cli.c - option parsing and scene setup shared by the subcommands.
 * Invariant: each option is declared once, in `options` below, with the
 * commands that read it; a command refuses the others (exit 2) rather
 * than ignore them, and its --help lists exactly its own.
 */
#include "cli.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "atomic.h"
#include "clrt.h"
#include "infile.h"
#include "sim.h"
#include "targets.h"

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("fluidcl: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* OPT_COUNT0: a count that may be 0 (--every 0: no frames, as the README
 * says; it was refused). */
typedef enum { OPT_FLAG, OPT_TEXT, OPT_COUNT, OPT_COUNT0, OPT_SECONDS, OPT_PARAM, OPT_HELP } opt_kind;

/* One option: its names, its value's placeholder, where it goes in
 * fcl_cli, the commands that read it, and its help (lines after the
 * first start with a newline). Help shared by several commands may end in
 * sections, each from a line "run: ", "bench: " or "view: " to the next:
 * a command's --help shows the common lines and its own section, without
 * the prefix; 'fluidcl help' shows them all. */
typedef struct cli_opt {
    const char *name, *alias, *arg;
    opt_kind kind;
    size_t off;
    unsigned cmds;
    const char *help;
} cli_opt;

#define AT(field) offsetof(fcl_cli, field)
enum { RB = FCL_CMD_RUN | FCL_CMD_BENCH, ALL = FCL_CMD_RUN | FCL_CMD_BENCH | FCL_CMD_VIEW };
static const cli_opt options[] = {
    { "--backend", NULL, "cpu|opencl", OPT_TEXT, AT(backend), ALL,
      "cpu: native C + OpenMP; opencl: OpenCL\nrun: (default opencl)\nbench: or all: both (the default)\n"
      "view: (default opencl)" },
    { "--device", NULL, "N|NAME", OPT_TEXT, AT(device), ALL,
      "OpenCL device by index or name substring\nrun: (default: first GPU, else first CPU device)\n"
      "bench: (default: every OpenCL device)\nview: (default: first GPU, else first CPU device)" },
    { "--solver", NULL, "NAME", OPT_TEXT, AT(solver), ALL, "override the scene's solver (see 'help solvers')" },
    { "--steps", NULL, "N", OPT_COUNT, AT(steps), RB, "how many steps\nbench: (timed; default 20)" },
    { "--time", NULL, "T", OPT_SECONDS, AT(time), FCL_CMD_RUN, "how long to simulate, in seconds (not with --steps)" },
    { "--out", NULL, "DIR", OPT_TEXT, AT(out), FCL_CMD_RUN,
      "write frames to DIR ('surface' takes --out DIR too: its meshes)" },
    { "--every", NULL, "K", OPT_COUNT0, AT(every), FCL_CMD_RUN, "a frame every K steps (default 100 with a folder, else none)" },
    { "--stats", NULL, "FILE.csv", OPT_TEXT, AT(stats), FCL_CMD_RUN, "per-step statistics" },
    { "--param", NULL, "group.name=value", OPT_PARAM, 0, ALL, "set any parameter (repeatable; see 'help params')" },
    { "--kernel-dir", NULL, "DIR", OPT_TEXT, AT(kernel_dir), ALL,
      "load the OpenCL kernel sources from DIR instead of the binary" },
    { "--checkpoint-every", NULL, "K", OPT_COUNT, AT(checkpoint_every), FCL_CMD_RUN,
      "write the whole state every K steps, at the end and on SIGINT/SIGTERM,\natomically (default file "
      "DIR/checkpoint.state)" },
    { "--checkpoint", NULL, "FILE", OPT_TEXT, AT(checkpoint), FCL_CMD_RUN, "where checkpoints go" },
    { "--resume", NULL, "FILE", OPT_TEXT, AT(resume), FCL_CMD_RUN,
      "continue the same scene from a checkpoint; frames are\nbit-identical to an uninterrupted run on the same "
      "device" },
    { "--from", NULL, "FRAME.vtu|vtk|ply", OPT_TEXT, AT(from), FCL_CMD_BENCH,
      "start from a frame 'run --out' saved, inside the\nscene's walls and obstacles (same particles.spacing)" },
    { "--json", NULL, "FILE", OPT_TEXT, AT(json), FCL_CMD_BENCH, "write the table as JSON" },
    { "--mesh", NULL, NULL, OPT_FLAG, AT(mesh), RB,
      "run: also reconstruct the surface of every frame\n(DIR/frame_NNNNNN.surface.ply|obj, see surface.* in "
      "'help params')\nbench: time the surface of each backend's final state" },
    { "--quiet", "-q", NULL, OPT_FLAG, AT(quiet), RB, "no progress output" },
    { "--help", "-h", NULL, OPT_HELP, AT(help), ALL, "this list" },
};
enum { NOPTIONS = sizeof options / sizeof options[0] };

static const char *cmd_name(unsigned cmd)
{
    return cmd == FCL_CMD_RUN ? "run" : (cmd == FCL_CMD_BENCH ? "bench" : "view");
}

static const cli_opt *find(const char *a)
{
    for (int k = 0; k < NOPTIONS; k++)
        if (strcmp(a, options[k].name) == 0 || (options[k].alias && strcmp(a, options[k].alias) == 0))
            return &options[k];
    return NULL;
}

/* The command a help line's "run: " (or bench, view) prefix names, 0 for
 * none; *skip is the prefix's length. */
static unsigned help_section(const char *line, size_t *skip)
{
    static const struct { const char *tag; unsigned cmd; } sec[] = {
        { "run: ", FCL_CMD_RUN }, { "bench: ", FCL_CMD_BENCH }, { "view: ", FCL_CMD_VIEW } };
    for (size_t k = 0; k < sizeof sec / sizeof sec[0]; k++)
        if (strncmp(line, sec[k].tag, strlen(sec[k].tag)) == 0)
            return *skip = strlen(sec[k].tag), sec[k].cmd;
    return *skip = 0, 0u;
}

/* An option's help, its lines aligned; for one command (cmd != 0) only the
 * common lines and that command's section, unprefixed. */
static void print_help(FILE *f, const char *help, unsigned cmd)
{
    unsigned in = 0u;
    int first = 1;
    for (const char *line = help, *nl; line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        size_t skip, len = nl ? (size_t)(nl - line) : strlen(line);
        unsigned sec = help_section(line, &skip);
        in = sec ? sec : in;
        if (cmd && in && in != cmd)
            continue;
        if (!cmd)
            skip = 0;
        fprintf(f, "%s%.*s", first ? "" : "\n                                ", (int)(len - skip), line + skip);
        first = 0;
    }
}

void cli_print_options(FILE *f, unsigned cmds, int tag)
{
    for (int k = 0; k < NOPTIONS; k++) {
        const cli_opt *o = &options[k];
        if (!(o->cmds & cmds) || (tag && o->kind == OPT_HELP))
            continue;
        char head[64], where[32] = "";
        snprintf(head, sizeof head, "%s%s%s%s%s", o->name, o->alias ? ", " : "", o->alias ? o->alias : "",
                 o->arg ? " " : "", o->arg ? o->arg : "");
        if (tag && o->cmds != ALL)
            snprintf(where, sizeof where, "(%s%s%s) ", o->cmds & FCL_CMD_RUN ? "run" : "",
                     (o->cmds & RB) == RB ? ", " : "", o->cmds & FCL_CMD_BENCH ? "bench" : "");
        fprintf(f, "  %-29s %s", head, where);
        print_help(f, o->help, tag ? 0u : cmds);
        fputc('\n', f);
    }
}

/* A whole number in [1, 2e9] (--steps, --every, --checkpoint-every: the
 * parameters they set are integers), decimal digits only. */
static int count(const char *opt, const char *v, long lo, long *out)
{
    char *end;
    long x = strtol(v, &end, 10);
    if (*v < '0' || *v > '9' || *end || x < lo || x > 2000000000L) {
        cli_error("%s: expected a whole number in [%ld, 2000000000], got '%s'", opt, lo, v);
        return -1;
    }
    *out = x;
    return 0;
}

static int seconds(const char *opt, const char *v, double *out)
{
    char *end;
    double d = strtod(v, &end);
    /* 0 ran no step and printed zeros as figures, exit 0, where
     * --steps 0 is refused (a review). */
    if (*end || !isfinite(d) || d <= 0.0 || d > 1e6) {
        cli_error("%s: expected a number of seconds in (0, 1e+06], got '%s'", opt, v);
        return -1;
    }
    *out = d;
    return 0;
}

/* Whether two values of a numeric option are the same number (--time 1
 * --time 1.0 was refused as two values), both read whole. */
static int same_number(const char *a, const char *b)
{
    char *ea, *eb;
    double x = strtod(a, &ea), y = strtod(b, &eb);
    return ea != a && eb != b && !*ea && !*eb && x == y;
}

int cli_same_path(const char *a, const char *b)
{
    while (a[0] == '.' && a[1] == '/')
        a += 2;
    while (b[0] == '.' && b[1] == '/')
        b += 2;
    size_t la = strlen(a), lb = strlen(b);
    while (la > 1 && a[la - 1] == '/')
        la--;
    while (lb > 1 && b[lb - 1] == '/')
        lb--;
    return la == lb && strncmp(a, b, la) == 0;
}

int cli_is_option(const char *val)
{
    return val && val[0] == '-' && (val[1] == '-' || strcmp(val, "-q") == 0 || strcmp(val, "-h") == 0);
}

int cli_once(const char *cmd, const char *opt, const char **seen, const char *val)
{
    if (*seen && strcmp(*seen, val) != 0) {
        cli_error("%s: %s given twice ('%s', then '%s'): expected one", cmd, opt, *seen, val);
        return -1;
    }
    *seen = val;
    return 0;
}

/* The option at argv[*i] for command cmd; seen[k] holds the value an
 * option k that takes one was given before (cli_once). */
static int parse_one(fcl_cli *o, unsigned cmd, int argc, char **argv, int *i, const char **seen)
{
    const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    const cli_opt *op = find(a);
    char *at = (char *)o + (op ? op->off : 0);
    if (!op) {
        /* The viewer's own options (render/view_cmd.c takes them out before
         * this parse; test_cli_review 37 checks the list against view
         * --help):
         * `run --frames 3` was called unknown (a review). */
        static const char *const view_only[] = { "--frames", "--screenshot", "--steps-per-frame", "--record",
                                                 "--color", "--size", "--draw", "--no-panel", "--control",
                                                 "--overlay" };
        for (size_t k = 0; k < sizeof view_only / sizeof view_only[0]; k++)
            if (strcmp(a, view_only[k]) == 0) {
                cli_error("%s: %s is a view option, not a %s one (see 'fluidcl %s --help')", cmd_name(cmd), a,
                          cmd_name(cmd), cmd_name(cmd));
                return -1;
            }
        cli_error("%s: unknown option '%s' (see 'fluidcl %s --help')", cmd_name(cmd), a, cmd_name(cmd));
        return -1;
    }
    const char **was = &seen[op - options];
    int numeric = op->kind == OPT_COUNT || op->kind == OPT_COUNT0 || op->kind == OPT_SECONDS;
    if (op->kind != OPT_PARAM && op->kind != OPT_FLAG && op->kind != OPT_HELP && v &&
        !(numeric && *was && same_number(*was, v)) && cli_once(cmd_name(cmd), op->name, was, v) != 0)
        return -1;
    if (!(op->cmds & cmd)) {
        char whose[32] = "";
        for (unsigned c = FCL_CMD_RUN; c <= FCL_CMD_VIEW; c <<= 1)
            if (op->cmds & c)
                snprintf(whose + strlen(whose), sizeof whose - strlen(whose), "%s%s", whose[0] ? " and " : "",
                         cmd_name(c));
        cli_error("%s: %s is a %s option, not a %s one (see 'fluidcl %s --help')", cmd_name(cmd), a, whose,
                  cmd_name(cmd), cmd_name(cmd));
        return -1;
    }
    if (op->kind == OPT_FLAG || op->kind == OPT_HELP) {
        *(int *)at = 1;
        return 0;
    }
    /* No value, or the next option taken for one (`--solver --steps 2`). */
    if (!v || cli_is_option(v)) {
        cli_error("%s needs a value (%s)%s%s%s", a, op->arg, v ? ", not the option " : "", v ? v : "",
                  v && op->kind == OPT_TEXT ? " (./NAME names a file or folder of that name)" : "");
        return -1;
    }
    (*i)++;
    if (op->kind == OPT_TEXT) {
        *(const char **)at = v;
    } else if (op->kind == OPT_PARAM) {
        if (o->noverrides == FCL_MAX_OVERRIDES) {
            cli_error("at most %d --param options", FCL_MAX_OVERRIDES);
            return -1;
        }
        o->overrides[o->noverrides++] = v;
    } else if (op->kind == OPT_COUNT || op->kind == OPT_COUNT0) {
        return count(a, v, op->kind == OPT_COUNT0 ? 0 : 1, (long *)at);
    } else {
        return seconds(a, v, (double *)at);
    }
    return 0;
}

/* What the options ask that no device or scene can satisfy. */
static int check_options(const fcl_cli *o, unsigned cmd)
{
    const char *name = cmd_name(cmd);
    if (!o->scene) {
        cli_error("%s: which scene? e.g. 'fluidcl %s scenes/dam_break.json'", name, name);
        return -1;
    }
    if (o->steps >= 0 && o->time >= 0) {
        cli_error("%s: give --steps or --time, not both", name);
        return -1;
    }
    /* (The viewer may switch to OpenCL: there they are for later.) */
    return cli_check_device_options(name, o->backend, o->device, o->kernel_dir, cmd == FCL_CMD_VIEW);
}

int cli_check_device_options(const char *name, const char *backend, const char *device, const char *kernel_dir,
                             int later)
{
    struct stat st;
    if (device && !device[0]) {   /* "" matched every device's name */
        cli_error("%s: --device '': expected an index or part of a name (see 'fluidcl devices')", name);
        return -1;
    }
    if (device && strcmp(backend, "cpu") == 0 && !later) {
        cli_error("%s: --device %s selects an OpenCL device; --backend cpu has none", name, device);
        return -1;
    }
    /* The viewer's panel runs a step on OpenCL to compare ("Same step on
     * OpenCL"): kept for that, and said (the note spoke of a switch the
     * panel does not have). */
    if ((device || kernel_dir) && strcmp(backend, "cpu") == 0 && later)
        fprintf(stderr, "fluidcl: %s: note: %s%s%s %s to the panel's \"Same step on OpenCL\" comparison only "
                "(--backend cpu has no device and reads no kernel sources)\n", name, device ? "--device" : "",
                device && kernel_dir ? " and " : "", kernel_dir ? "--kernel-dir" : "",
                device && kernel_dir ? "apply" : "applies");

    if (kernel_dir && stat(kernel_dir, &st) != 0) {
        cli_error("%s: --kernel-dir %s: no such folder", name, kernel_dir);
        return -1;
    }
    if (kernel_dir && !S_ISDIR(st.st_mode)) {
        cli_error("%s: --kernel-dir %s: not a folder (expected the folder of the kernel sources, such as the "
                  "source tree's kernels/)", name, kernel_dir);
        return -1;
    }
    if (kernel_dir && strcmp(backend, "cpu") == 0 && !later) {
        cli_error("%s: --kernel-dir %s: the native backend (--backend cpu) has its kernels compiled in and "
                  "reads no sources", name, kernel_dir);
        return -1;
    }
    char why[4400];
    if (kernel_dir && clrt_check_sources(kernel_dir, why, sizeof why) != 0) {
        cli_error("%s: --kernel-dir %s: %s (expected the folder of the kernel sources, such as the source tree's "
                  "kernels/)", name, kernel_dir, why);
        return -1;
    }
    return 0;
}

int cli_parse(fcl_cli *o, int argc, char **argv, unsigned cmd)
{
    memset(o, 0, sizeof *o);
    static const char opencl[] = "opencl";
    o->backend = cmd == FCL_CMD_BENCH ? "all" : opencl;
    o->steps = o->every = o->checkpoint_every = -1;
    o->time = -1.0;
    o->cmd = cmd;
    const char *seen[NOPTIONS] = { 0 };
    for (int i = 0; i < argc; i++) {
        if (argv[i][0] == '-' && argv[i][1]) {
            if (parse_one(o, cmd, argc, argv, &i, seen) != 0)
                return FCL_EXIT_INPUT;
        } else if (!o->scene) {
            o->scene = argv[i];
        } else {
            cli_error("%s: unexpected argument '%s' (one scene at a time)", cmd_name(cmd), argv[i]);
            return FCL_EXIT_INPUT;
        }
    }
    o->backend_given = (o->backend != opencl || o->device || o->kernel_dir) && cmd != FCL_CMD_BENCH;
    if (o->help)
        return 0;
    return check_options(o, cmd) != 0 ? FCL_EXIT_INPUT : 0;
}

/* The value the last --param of key gives, or NULL. */
static const char *override_of(const fcl_cli *o, const char *key)
{
    size_t kl = strlen(key);
    const char *v = NULL;
    for (int i = 0; i < o->noverrides; i++)
        if (strncmp(o->overrides[i], key, kl) == 0 && o->overrides[i][kl] == '=')
            v = o->overrides[i] + kl + 1;
    return v;
}

/* Whether a --param sets key. */
static int overridden(const fcl_cli *o, const char *key)
{
    return override_of(o, key) != NULL;
}

/* One value written two ways: the same text, number, list of numbers
 * (sim.gravity), or path but for a leading ./ and trailing slashes (the
 * diff review found `--out d --param output.dir=d/` and 0,-9.81,0
 * against 0,-9.810,0 refused as two values). */
static int same_value(const char *a, const char *b)
{
    if (strcmp(a, b) == 0 || same_number(a, b))
        return 1;
    if (strchr(a, ',') && strchr(b, ',')) {
        char *ea, *eb;
        for (;;) {
            double x = strtod(a, &ea), y = strtod(b, &eb);
            if (ea == a || eb == b || x != y || (*ea != ',') != (*eb != ','))
                return 0;
            if (*ea != ',')
                return !*ea && !*eb;
            a = ea + 1;
            b = eb + 1;
        }
    }
    return cli_same_path(a, b);
}

/* A --param key given twice with two values, refused as an option given
 * twice is (the last won without a word; a review). */
static int param_twice(const fcl_cli *o, char *err, size_t errlen)
{
    for (int i = 0; i < o->noverrides; i++) {
        const char *a = o->overrides[i], *eq = strchr(a, '=');
        size_t kl = eq ? (size_t)(eq - a) + 1 : 0;
        for (int k = 0; eq && k < i; k++)
            if (strncmp(o->overrides[k], a, kl) == 0 && !same_value(o->overrides[k] + kl, eq + 1)) {
                snprintf(err, errlen, "--param %.*s given twice ('%s', then '%s'): expected one", (int)(kl - 1), a,
                         o->overrides[k] + kl, eq + 1);
                return -1;
            }
    }
    return 0;
}

/* err (a refused value's message, "key: ...") named as coming from
 * `from`, unless it says so already (README: a refused value is named
 * where it came from; --param particles.spacing=-1 was told as the key
 * alone; a review). */
static int refused_from(const char *from, char *err, size_t errlen)
{
    if (strncmp(err, from, strlen(from)) != 0) {
        char msg[1024];
        snprintf(msg, sizeof msg, "%s", err);
        snprintf(err, errlen, "%s %s", from, msg);
    }
    return -1;
}

static int apply_flags(const fcl_cli *o, fcl_params *p, int every_in_scene, char *err, size_t errlen)
{
    char buf[FCL_STR_MAX + 32];
    for (int i = 0; i < o->noverrides; i++)
        if (params_assign(p, o->overrides[i], err, errlen) != 0)
            return refused_from("--param", err, errlen);
    if (param_twice(o, err, errlen) != 0)   /* after: a malformed value is named as such */
        return -1;
    struct { fcl_param_id key; const char *text, *flag; } set[4] = { { FCL_P_sim_solver, o->solver, "--solver" },
                                                                     { FCL_P_output_dir, o->out, "--out" } };
    char steps[32], every[32], dur[64];
    snprintf(steps, sizeof steps, "%ld", o->steps);
    snprintf(every, sizeof every, "%ld", o->every);
    snprintf(dur, sizeof dur, "%.17g", o->time);
    /* A folder means frames: --out, or output.dir from the scene or a
     * --param, writes every 100 steps unless --every, --param
     * output.every or the scene's own output.every says otherwise (0:
     * none). A scene's output.dir alone wrote nothing, --out with --param
     * output.every=0 every 100, and so did a scene's every 0 beside its
     * dir (a review). */
    char key[64];
    int folder = o->out || p->output_dir[0];
    int told = o->every >= 0 || every_in_scene || overridden(o, params_key(FCL_P_output_every, key, sizeof key));
    set[2].key = FCL_P_output_every;
    set[2].text = o->every >= 0 ? every : (folder && !told && p->output_every == 0 ? "100" : NULL);
    set[2].flag = "--every";
    set[3].key = o->time >= 0 ? FCL_P_sim_duration : FCL_P_sim_steps;
    set[3].text = o->time >= 0 ? dur : (o->steps >= 0 ? steps : NULL);
    set[3].flag = o->time >= 0 ? "--time" : "--steps";
    if (o->time >= 0)
        p->sim_steps = 0;
    /* An option beside the --param of its key with another value is
     * refused (the option won without a word: `--solver dfsph --param
     * sim.solver=pbf` ran dfsph; a review), and so is the other run length
     * (`--time 0.001 --param sim.steps=2` ran 5 steps), as --steps with
     * --time is; not bench's --steps, its timed steps (bench.c notes the
     * run length as doing nothing there), nor the derived --every 100. */
    int bench = o->cmd == FCL_CMD_BENCH;
    const char *other = o->time >= 0 ? "sim.steps" : o->steps >= 0 ? "sim.duration" : NULL, *v;
    if (!bench && other && (v = override_of(o, other)) != NULL && !same_value(v, "0")) {
        snprintf(err, errlen, "%s %s and --param %s=%s: two run lengths; give one", set[3].flag, set[3].text, other, v);
        return -1;
    }
    for (int i = 0; i < 4; i++) {
        if (!set[i].text)
            continue;
        params_key(set[i].key, key, sizeof key);
        int flagged = (i != 2 || o->every >= 0) && !(i == 3 && bench);
        if (flagged && (v = override_of(o, key)) != NULL && !same_value(v, set[i].text)) {
            snprintf(err, errlen, "%s %s and --param %s=%s: two values for one parameter; give one", set[i].flag,
                     set[i].text, key, v);
            return -1;
        }
        snprintf(buf, sizeof buf, "%s=%s", key, set[i].text);
        if (params_assign(p, buf, err, errlen) != 0)
            return refused_from(set[i].flag, err, errlen);
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

/* Whether an override before the i-th starts with its first len
 * characters (its group and dot, or its key and '='). */
static int given_before(const fcl_cli *o, int i, size_t len)
{
    for (int k = 0; k < i; k++)
        if (strncmp(o->overrides[k], o->overrides[i], len) == 0)
            return 1;
    return 0;
}

/* A --param the solver does not read was taken in silence (a review):
 * one of another solver's group (dfsph.eta under wcsph), or of fluid
 * control without pbf, is noted once per group; a shared key the solver
 * does not read (sim.dt under dfsph, material.viscosity under pbf), once
 * per key with what it has in its place. */
static void note_unread_params(const fcl_cli *o, const fcl_solver *sv)
{
    for (int i = 0; i < o->noverrides; i++) {
        const char *kv = o->overrides[i], *dot = strchr(kv, '.'), *eq = strchr(kv, '=');
        size_t gl = dot ? (size_t)(dot - kv) : 0, kl = eq ? (size_t)(eq - kv) : 0;
        char names[128], key[96];
        if (solver_group_readers(kv, gl, names, sizeof names) && !solver_reads_group(sv, kv, gl)) {
            if (!given_before(o, i, gl + 1))
                fprintf(stderr, "fluidcl: note: --param %.*s.*: only the %s solver%s %s these, and this run's is %s\n",
                        (int)gl, kv, names, strstr(names, " and ") ? "s" : "",
                        strstr(names, " and ") ? "read" : "reads", sv->name);
            continue;
        }
        snprintf(key, sizeof key, "%.*s", (int)kl, kv);
        const fcl_param_def *d = params_find(key);
        const char *instead = d ? solver_reads_instead(sv, (fcl_param_id)(d - fcl_param_table)) : NULL;
        if (instead && !given_before(o, i, kl + 1))
            fprintf(stderr, "fluidcl: note: --param %s: the %s solver does not read it (in its place: %s)\n", key,
                    sv->name, instead);
    }
}

/* The same for what the scene file itself sets off its defaults, when the
 * scene's own solver runs (a wcsph scene's "dfsph": { "eta": ... } ran in
 * silence, while --param dfsph.eta was noted; a review). Under --solver or
 * --param sim.solver the scene's keys for its own solver are expected to
 * go unread; a key --param set is noted above. */
static void note_unread_scene_keys(const fcl_cli *o, const fcl_scene *s, const fcl_solver *sv)
{
    if (o->solver || overridden(o, "sim.solver"))
        return;
    fcl_params def;
    params_defaults(&def);
    const char *noted = "";
    for (size_t k = 0; k < fcl_param_count; k++) {
        const fcl_param_def *d = &fcl_param_table[k];
        char key[96], names[128];
        snprintf(key, sizeof key, "%s.%s", d->group, d->name);
        if (params_equal(&s->params, &def, d) || overridden(o, key))
            continue;
        size_t gl = strlen(d->group);
        if (solver_group_readers(d->group, gl, names, sizeof names) && !solver_reads_group(sv, d->group, gl)) {
            if (strcmp(noted, d->group) != 0)
                fprintf(stderr, "fluidcl: note: %s sets %s: only the %s solver%s the %s.* group, and its solver is "
                        "%s\n", s->file, key, names, strstr(names, " and ") ? "s read" : " reads", d->group, sv->name);
            noted = d->group;
            continue;
        }
        const char *instead = solver_reads_instead(sv, (fcl_param_id)k);
        if (instead)
            fprintf(stderr, "fluidcl: note: %s sets %s: the %s solver does not read it (in its place: %s)\n", s->file,
                    key, sv->name, instead);
    }
}

const char *cli_first_override(const fcl_cli *o, const char *prefix)
{
    for (int i = 0; i < o->noverrides; i++)
        if (strncmp(o->overrides[i], prefix, strlen(prefix)) == 0)
            return o->overrides[i];
    return NULL;
}

/* control.* under a solver that reads it, with nothing for it to act on:
 * a scene without targets, or control.skin_* with no skeleton (both ran
 * without a word; a review). */
/* The first control.* parameter of p off its default, or NULL. */
static const fcl_param_def *control_changed(const fcl_params *p)
{
    fcl_params def;
    params_defaults(&def);
    for (size_t k = 0; k < fcl_param_count; k++) {
        const fcl_param_def *d = &fcl_param_table[k];
        if (strcmp(d->group, "control") == 0 && !params_equal(p, &def, d))
            return d;
    }
    return NULL;
}

static void note_idle_control(const fcl_cli *o, const fcl_scene *s, const fcl_solver *sv)
{
    const char *kv = cli_first_override(o, "control.");
    const fcl_param_def *d;
    if (!solver_reads_group(sv, "control", 7))
        return;
    if (!kv) {   /* the scene's own control.* (it ran without a word; a review) */
        if (s->ntargets == 0 && (d = control_changed(&s->params)) != NULL)
            fprintf(stderr, "fluidcl: note: %s sets control.%s, but it has no targets (its \"targets\" list), so "
                    "fluid control does nothing\n", s->file, d->name);
        return;
    }
    if (s->ntargets == 0) {
        fprintf(stderr, "fluidcl: note: --param %.*s: this scene has no targets (its \"targets\" list), so fluid "
                "control does nothing\n", (int)strcspn(kv, "="), kv);
        return;
    }
    int skeletons = 0;
    for (int k = 0; k < s->ntargets; k++)
        skeletons += s->targets[k].skeleton != NULL;
    if (!skeletons && (kv = cli_first_override(o, "control.skin_")) != NULL)
        fprintf(stderr, "fluidcl: note: --param %.*s: no target of this scene has a skeleton, so the skinning "
                "settings do nothing\n", (int)strcspn(kv, "="), kv);
}

/* A tension coefficient of a model the run does not use: material.
 * surface_tension beside akinci or none, material.cohesion beside mueller
 * or none, set off its default (each changed nothing without a word; a
 * review). Only where the solver applies tension (it reads
 * tension_model). */
/* --mesh of a scene with a gas (a phase under a tenth of the densest's
 * density) beside its liquid, every phase meshed: the gas's surface hides
 * the liquid's (water_air meshed its whole tank; a review). */
static void note_meshed_gas(const fcl_cli *o, const fcl_scene *s)
{
    if (!o->mesh || s->nphases < 2 || s->params.surface_phases[0])
        return;
    int dense = 0, gas = -1;
    for (int k = 1; k < s->nphases; k++)
        dense = s->phases[k].density > s->phases[dense].density ? k : dense;
    for (int k = 0; k < s->nphases && gas < 0; k++)
        gas = s->phases[k].density < 0.1f * s->phases[dense].density ? k : -1;
    if (gas < 0)
        return;
    char others[128] = "";
    for (int k = 0; k < s->nphases; k++)
        if (s->phases[k].density >= 0.1f * s->phases[dense].density)
            snprintf(others + strlen(others), sizeof others - strlen(others), "%s%d", others[0] ? "," : "", k);
    fprintf(stderr, "fluidcl: note: %s: the mesh takes every phase, the gas %s (%g kg/m^3, phase %d) with the %s "
            "(%g kg/m^3): --param surface.phases=%s meshes the phases at least a tenth as dense alone\n", s->file,
            s->phases[gas].name, s->phases[gas].density, gas, s->phases[dense].name, s->phases[dense].density, others);
}

static void note_idle_tension(const fcl_scene *s, const fcl_solver *sv)
{
    static const struct { fcl_param_id id; const char *model; } coef[] = {
        { FCL_P_material_surface_tension, "mueller" }, { FCL_P_material_cohesion, "akinci" } };
    const fcl_params *p = &s->params;
    fcl_params def;
    params_defaults(&def);
    if (solver_reads_instead(sv, FCL_P_material_tension_model))
        return;
    for (size_t k = 0; k < sizeof coef / sizeof coef[0]; k++) {
        const fcl_param_def *d = &fcl_param_table[coef[k].id];
        if (strcmp(p->material_tension_model, coef[k].model) != 0 && !params_equal(p, &def, d))
            fprintf(stderr, "fluidcl: note: material.%s is set, but material.tension_model = %s does not read it "
                    "(the %s model does)\n", d->name, p->material_tension_model, coef[k].model);
    }
}

/* Mirror walls give each neighbor its images across both walls of an
 * axis and its shift by twice the extent towards the particle (walls.h),
 * which is every image in range where the extent is at least half the
 * neighbor radius; a narrower axis (a slab one spacing deep under mps,
 * whose radius is 2.1 spacings) needs the shift the other way as well,
 * and further ones: said once, naming every such axis; the run goes on. */
static void note_narrow_mirror(const fcl_scene *s, const fcl_solver *sv)
{
    const fcl_params *p = &s->params;
    if (strcmp(p->boundary_walls, "mirror") != 0 || !sv->list_radius)
        return;
    double r = sim_cell_size(p);   /* the lists' radius, h at least */
    char axes[64] = "";
    for (int a = 0; a < 3; a++) {
        double w = p->domain_max[a] - p->domain_min[a];
        if (w < 0.5 * r)
            snprintf(axes + strlen(axes), sizeof axes - strlen(axes), "%s%.3g m across in %c", axes[0] ? ", " : "", w,
                     "xyz"[a]);
    }
    if (axes[0])
        fprintf(stderr, "fluidcl: note: %s: the domain between mirror walls is %s, under half the %s "
                "solver's neighbor radius %.3g m: a neighbor's images shifted by twice that width are made toward "
                "the particle only, and particles miss the others (%.3g m or more, or boundary.walls = "
                "particles)\n", s->file, axes, sv->name, r, 0.5 * r);
}

/* A check's error after the command line was merged into the scene's
 * parameters names the scene file; where the key it starts with came
 * from --param or an option, it names that as well (a review:
 * --param particles.support=3.8 was blamed on the scene alone), and
 * `also` (the --solver a solver's check ran for) beside it. */
void cli_check_error(const fcl_cli *o, const fcl_scene *s, const char *err, const char *also)
{
    static const struct { const char *key, *flag; size_t off; } flags[] = {
        { "sim.solver", "--solver", offsetof(fcl_cli, solver) }, { "output.dir", "--out", offsetof(fcl_cli, out) } };
    const char *msg = err;
    size_t fl = strlen(s->file), k = 0;
    if (strncmp(msg, s->file, fl) == 0 && strncmp(msg + fl, ": ", 2) == 0)
        msg += fl + 2;
    char key[64], with[160] = "";
    while (k < sizeof key - 1 && (isalnum((unsigned char)msg[k]) || msg[k] == '_' || msg[k] == '.'))
        key[k] = msg[k], k++;
    key[k] = '\0';
    if (also)
        snprintf(with, sizeof with, "%s", also);
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        if (strcmp(key, flags[i].key) == 0 && *(const char *const *)((const char *)o + flags[i].off) &&
            !strstr(with, flags[i].flag))
            snprintf(with + strlen(with), sizeof with - strlen(with), "%s%s", with[0] ? " and " : "", flags[i].flag);
    int param = strchr(key, '.') && overridden(o, key);
    if (!with[0] && !param)
        cli_error("%s", err);
    else if (param)
        cli_error("%s with %s%s--param %s", s->file, with, with[0] ? " and " : "", msg);
    else
        cli_error("%s with %s: %s", s->file, with, msg);
}

int cli_scene(const fcl_cli *o, fcl_scene *s)
{
    char err[1024] = "";
    if (scene_load_max(s, o->scene, scene_file_limit(o), err, sizeof err) != 0) {
        cli_error("%s", err);
        return FCL_EXIT_INPUT;
    }
    if (apply_flags(o, &s->params, s->every_given, err, sizeof err) != 0) {
        cli_error("%s", err);
        scene_free(s);
        return FCL_EXIT_INPUT;
    }
    if (scene_check(s, &s->params, err, sizeof err) != 0) {
        cli_check_error(o, s, err, NULL);
        scene_free(s);
        return FCL_EXIT_INPUT;
    }
    const fcl_solver *sv = solver_find(s->params.sim_solver);
    if (!sv) {
        char names[256];
        solver_names(names, sizeof names);
        char from[FCL_STR_MAX + 64];
        cli_error("%s: unknown solver '%s' (expected one of: %s)",
                  cli_origin(o, "sim.solver", o->solver ? "--solver" : NULL, from, sizeof from), s->params.sim_solver,
                  names);
        scene_free(s);
        return FCL_EXIT_INPUT;
    }
    /* What the solver refuses whatever the device, before one is opened;
     * targets first (a scene of fluid control under --param
     * sim.solver=mac was told of its domain's cells first). */
    if (solver_check_targets(sv, s->ntargets, err, sizeof err) != 0 ||
        solver_check_phases(sv, &s->params, s->phases, s->nphases, err, sizeof err) != 0 ||
        solver_check_support(sv, &s->params, err, sizeof err) != 0 || (sv->check && sv->check(&s->params, err, sizeof err) != 0)) {
        char named[sizeof err + FCL_STR_MAX], also[FCL_STR_MAX + 16] = "";
        snprintf(named, sizeof named, "%s: %s", s->file, err);
        /* The solver's check refused this scene for the solver an option
         * chose. */
        if (o->solver)
            snprintf(also, sizeof also, "--solver %s", o->solver);
        else if (overridden(o, "sim.solver"))
            snprintf(also, sizeof also, "--param sim.solver=%s", s->params.sim_solver);
        cli_check_error(o, s, named, also[0] ? also : NULL);
        scene_free(s);
        return FCL_EXIT_INPUT;
    }
    scene_emitter_capacity(s, solver_longest_dt(sv, &s->params));
    note_unread_params(o, sv);
    note_unread_scene_keys(o, s, sv);
    note_idle_control(o, s, sv);
    note_narrow_mirror(s, sv);
    note_idle_tension(s, sv);
    note_meshed_gas(o, s);
    if (solver_unused_viscosity(sv, &s->params, s->phases, s->nphases, err, sizeof err))
        fprintf(stderr, "fluidcl: note: %s\n", err);
    return 0;
}

void cli_help(FILE *f, unsigned cmd)
{
    static const char *const what[] = { "simulate headless", "time every pass on every backend and device",
                                        "the interactive viewer" };
    int k = cmd == FCL_CMD_RUN ? 0 : (cmd == FCL_CMD_BENCH ? 1 : 2);
    fprintf(f, "usage: fluidcl %s SCENE [options]: %s\nSCENE is a JSON file, or embedded:NAME.json "
               "('fluidcl help scenes').\n\noptions:\n", cmd_name(cmd), what[k]);
    cli_print_options(f, cmd, 0);
}

int cli_check_file(const char *opt, const char *path)
{
    char err[8600];
    struct stat st;
    if (!path[0]) {   /* --json '' ran the whole bench, then failed on '.tmp' (a review) */
        cli_error("%s: an empty file name", opt);
        return FCL_EXIT_INPUT;
    }
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        cli_error("%s %s: is a folder, expected a file name", opt, path);
        return FCL_EXIT_INPUT;
    }
    if (atomic_check(path, err, sizeof err) != 0) {
        cli_error("%s %s: %s", opt, path, err);
        return FCL_EXIT_INPUT;
    }
    return 0;
}

/* Whether a and b are one file (by device and inode). */
static int same_file(const struct stat *a, const char *b)
{
    struct stat st;
    return b && b[0] && stat(b, &st) == 0 && a->st_dev == st.st_dev && a->st_ino == st.st_ino;
}

int cli_check_not_input(const fcl_cli *o, const char *opt, const char *path, int resume_ok)
{
    const char *in[3] = { o->scene, o->from, resume_ok ? NULL : o->resume };
    static const char *const what[3] = { "the scene", "the --from frame", "the --resume checkpoint" };
    struct stat a;
    if (!path || stat(path, &a) != 0)
        return 0;   /* not there yet: no input either */
    for (int k = 0; k < 3; k++)
        if (same_file(&a, in[k])) {
            cli_error("%s %s: is %s (%s): it would be overwritten; expected another file", opt, path, what[k], in[k]);
            return FCL_EXIT_INPUT;
        }
    return 0;
}

int cli_check_not_mesh(const fcl_scene *sc, const char *opt, const char *path)
{
    struct stat a;
    if (!path || stat(path, &a) != 0)
        return 0;
    for (int k = 0; k < sc->nobstacles + sc->ntargets; k++) {
        const fcl_obstacle *ob = k < sc->nobstacles ? &sc->obstacles[k] : &sc->targets[k - sc->nobstacles].shape;
        if (ob->kind == FCL_SHAPE_MESH && same_file(&a, ob->file)) {
            cli_error("%s %s: is the mesh file %s of the scene's %s[%d]: it would be overwritten; expected another "
                      "file", opt, path, ob->file, k < sc->nobstacles ? "obstacles" : "targets",
                      k < sc->nobstacles ? k : k - sc->nobstacles);
            return FCL_EXIT_INPUT;
        }
    }
    return 0;
}

int cli_in_new_dir(const char *path, const fcl_params *p)
{
    struct stat st;
    if (!path || !p->output_dir[0] || stat(p->output_dir, &st) == 0)
        return 0;
    const char *slash = strrchr(path, '/');
    size_t dl = strlen(p->output_dir), fl = slash ? (size_t)(slash - path) : 0;
    while (dl > 1 && p->output_dir[dl - 1] == '/')
        dl--;
    while (fl > 1 && path[fl - 1] == '/')
        fl--;
    return slash && fl == dl && strncmp(path, p->output_dir, dl) == 0;
}

int cli_replaceable(const char *path, const char *head)
{
    struct stat st;
    char text[64], tight[sizeof text];
    size_t want = strlen(head), n = 0;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
        return 1;
    FILE *f = fopen(path, "rb");
    size_t got = f ? fread(text, 1, sizeof text, f) : 0;
    if (f)
        fclose(f);
    for (size_t i = 0; i < got && n < sizeof tight - 1; i++)
        if (!isspace((unsigned char)text[i]))
            tight[n++] = text[i];
    if (n == 0 && (off_t)got == st.st_size)
        return 1;   /* white space only, as an empty file: nothing in it to lose */
    return want < sizeof tight && n >= want && memcmp(tight, head, want) == 0;
}

int cli_probe_file(const char *opt, const char *path)
{
    fcl_atomic a;
    char err[8600];
    if (cli_check_file(opt, path) != 0)
        return FCL_EXIT_INPUT;
    if (atomic_open(&a, path, 0, err, sizeof err) != 0) {
        cli_error("%s %s: %s", opt, path, err);
        return FCL_EXIT_INPUT;
    }
    atomic_commit(&a, 0, 0, err, sizeof err);
    return 0;
}

const char *cli_origin(const fcl_cli *o, const char *key, const char *flag, char *buf, size_t len)
{
    if (flag)
        snprintf(buf, len, "%s", flag);
    else if (overridden(o, key))
        snprintf(buf, len, "--param %s", key);
    else
        snprintf(buf, len, "%s: %s", o->scene, key);
    return buf;
}
