/* run_paths.c - what `fluidcl run` checks of its output paths before
 * writing anything: the output format's kinds, the per-frame names, the
 * statistics file, the checkpoint and the frames on distinct paths, the
 * output options no file decides, and an earlier run's files in the
 * folder.
 * Invariant: nothing here writes a file; a refusal is printed (naming the
 * option and the path) and returned as FCL_EXIT_INPUT.
 */
#include "run_paths.h"

#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim.h"

int run_wants(const char *format, const char *kind)
{
    if (strcmp(format, "all") == 0)
        return 1;
    if (strcmp(format, "both") == 0)
        return strcmp(kind, "vtu") != 0;
    const char *plus = strchr(format, '+');
    size_t k = strlen(kind);
    return (strncmp(format, kind, k) == 0 && (format[k] == '\0' || format[k] == '+')) ||
           (plus && strcmp(plus + 1, kind) == 0);
}

void run_frame_names(const fcl_cli *o, const fcl_params *p, const char *names[8])
{
    int k = 0;
    static const char *const fmt[][2] = { { "vtu", "frame_#.vtu" }, { "vtk", "frame_#.vtk" }, { "ply", "frame_#.ply" } };
    for (int f = 0; f < 3; f++)
        if (run_wants(p->output_format, fmt[f][0]))
            names[k++] = fmt[f][1];
    const char *sf = p->surface_format;
    if (o->mesh && (strcmp(sf, "ply") == 0 || strcmp(sf, "both") == 0))
        names[k++] = "frame_#.surface.ply";
    if (o->mesh && (strcmp(sf, "obj") == 0 || strcmp(sf, "both") == 0))
        names[k++] = "frame_#.surface.obj";
    if (p->output_grid)
        names[k++] = "grid_#.vti";
    names[k] = NULL;
}

/* path's file name matches a per-frame name ("frame_#.vtu": # one or
 * more digits) and its folder is dir (by name, or by inode where both
 * exist): the name pattern it matches, or NULL. */
static const char *frame_clash(const char *path, const char *dir, const char *const names[])
{
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    char parent[FCL_STR_MAX + 32];
    snprintf(parent, sizeof parent, "%.*s", slash ? (int)(slash == path ? 1 : slash - path) : 1, slash ? path : ".");
    struct stat a, b;
    int here = cli_same_path(parent, dir) || (stat(parent, &a) == 0 && stat(dir, &b) == 0 && a.st_dev == b.st_dev &&
                                           a.st_ino == b.st_ino);
    for (int k = 0; here && names[k]; k++) {
        const char *hash = strchr(names[k], '#'), *tail = hash + 1, *q = base + (hash - names[k]);
        size_t digits = 0;
        if (strncmp(base, names[k], (size_t)(hash - names[k])) != 0)
            continue;
        while (q[digits] >= '0' && q[digits] <= '9')
            digits++;
        if (digits && strcmp(q + digits, tail) == 0)
            return names[k];
    }
    return NULL;
}

/* The statistics, the checkpoint and the frames on distinct paths, the
 * checkpoint's default (DIR/checkpoint.state, written at a signal even
 * without --checkpoint-every: ckpt_setup), the frames' index
 * (DIR/frames.pvd) and the per-frame names included: --stats naming the
 * default checkpoint once ran to the end and lost its rows (both write
 * PATH.tmp). */
static int check_output_paths(const fcl_cli *o, const fcl_params *p)
{
    const char *dir = p->output_every > 0 ? p->output_dir : "", *ck = o->checkpoint ? o->checkpoint : "";
    const char *st = o->stats ? o->stats : "", *clash = NULL, *path = NULL;
    char dflt[FCL_STR_MAX + 32] = "", pvd[FCL_STR_MAX + 32] = "";
    if (dir[0] && !ck[0])
        snprintf(dflt, sizeof dflt, "%s/checkpoint.state", dir);
    if (dir[0] && run_wants(p->output_format, "vtu"))
        snprintf(pvd, sizeof pvd, "%s/frames.pvd", dir);
    if (st[0] && dir[0] && cli_same_path(st, dir))
        clash = "--stats names the output folder", path = st;
    else if (st[0] && ck[0] && cli_same_path(st, ck))
        clash = "--stats and --checkpoint name one file", path = st;
    else if (st[0] && dflt[0] && cli_same_path(st, dflt))
        clash = "--stats names the default checkpoint (DIR/checkpoint.state: --out without --checkpoint)",
        path = st;
    else if (st[0] && pvd[0] && cli_same_path(st, pvd))
        clash = "--stats names the frames' index", path = st;
    else if (ck[0] && pvd[0] && cli_same_path(ck, pvd))
        clash = "--checkpoint names the frames' index", path = ck;
    else if (ck[0] && dir[0] && cli_same_path(ck, dir))
        clash = "--checkpoint names the output folder", path = ck;
    if (!clash && dir[0]) {
        /* Each writes PATH.tmp and renames it: --stats on a frame's name
         * spliced its rows into the frame and lost them, --checkpoint
         * replaced the frame (exit 0). */
        const char *names[8], *pat;
        static char what[96];
        run_frame_names(o, p, names);
        if (st[0] && (pat = frame_clash(st, dir, names)) != NULL)
            snprintf(what, sizeof what, "--stats names a frame file (%s)", pat), clash = what, path = st;
        else if (ck[0] && (pat = frame_clash(ck, dir, names)) != NULL)
            snprintf(what, sizeof what, "--checkpoint names a frame file (%s)", pat), clash = what, path = ck;
    }
    if (!clash)
        return 0;
    cli_error("%s (%s): expected different paths for the statistics, the checkpoint and the frames", clash, path);
    return FCL_EXIT_INPUT;
}

int run_check_outputs(const fcl_cli *o, const fcl_params *p)
{
    char from[FCL_STR_MAX + 64];
    const fcl_solver *sv = solver_find(p->sim_solver);
    if (p->output_grid && sv && !sv->grid_fields) {
        char names[128];
        solver_names_that(FCL_CAN_GRID, names, sizeof names);
        cli_error("%s = 1: the %s solver keeps no grid (%s %s)", cli_origin(o, "output.grid", NULL, from,
                  sizeof from), sv->name, names, strchr(names, ' ') ? "do" : "does");
        return FCL_EXIT_INPUT;
    }
    if (p->output_grid && p->output_every <= 0) {
        cli_error("output.grid = 1 writes the grid with every frame: give --out DIR (and --every K)");
        return FCL_EXIT_INPUT;
    }
    if (p->output_every <= 0 && o->mesh) {
        cli_error("--mesh writes a surface per output frame: give --out DIR (and --every K)");
        return FCL_EXIT_INPUT;
    }
    if (o->out && !o->out[0]) {
        cli_error("--out: an empty folder name: expected the folder for the frames, e.g. --out frames");
        return FCL_EXIT_INPUT;
    }
    if (p->output_every > 0 && !p->output_dir[0]) {
        cli_error("output.every is %ld but output.dir is empty: give --out DIR", p->output_every);
        return FCL_EXIT_INPUT;
    }
    if (p->output_every <= 0 && p->output_dir[0])
        fprintf(stderr, "fluidcl: note: %s is 0: no frames go to %s\n",
                o->every >= 0 ? "--every" : "output.every", p->output_dir);
    /* A surface setting without --mesh reconstructs nothing (it was taken
     * without a word, as bench's was). */
    const char *kv = o->mesh ? NULL : cli_first_override(o, "surface.");
    if (kv)
        fprintf(stderr, "fluidcl: note: --param %s does nothing here: run writes no surface without --mesh\n", kv);
    return check_output_paths(o, p);
}

/* A frame_, mesh or grid_ file's step, -1 for another name. */
static long file_step(const char *name)
{
    const char *s = strncmp(name, "frame_", 6) == 0 ? name + 6 : strncmp(name, "grid_", 5) == 0 ? name + 5 : NULL;
    char *end;
    long k = s && *s >= '0' && *s <= '9' ? strtol(s, &end, 10) : -1;
    return k >= 0 && *end == '.' ? k : -1;
}

void run_note_later_files(const fcl_params *p, long step)
{
    DIR *d = opendir(p->output_dir);
    if (!d)
        return;
    /* Only what this run will not write again: past its last step, or
     * off its frames' interval (a run killed between checkpoints and
     * resumed rewrites all its later frames: no note; a review). */
    long count = 0, first = -1, end = p->sim_steps > 0 ? p->sim_steps : LONG_MAX, every = p->output_every;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        long k = file_step(e->d_name);
        if (k > step && (k > end || every <= 0 || k % every != 0)) {
            count++;
            first = first < 0 || k < first ? k : first;
        }
    }
    closedir(d);
    if (count > 0)
        fprintf(stderr, "fluidcl: note: %s holds %ld frame, mesh or grid file%s past step %ld, the checkpoint's, that "
                "this run does not write again (from step %ld: a run from a later state, or with another interval): "
                "they stay beside its own, and its frames.pvd does not list them\n", p->output_dir, count,
                count == 1 ? "" : "s", step, first);
}

void run_note_earlier_files(const fcl_params *p)
{
    DIR *d = opendir(p->output_dir);
    if (!d)
        return;
    long count = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        count += strncmp(e->d_name, "frame_", 6) == 0 || strncmp(e->d_name, "grid_", 5) == 0;
    closedir(d);
    /* The collection is rewritten by a run that writes .vtu frames; one
     * that writes none leaves the earlier run's, which lists its frames
     * (it said "its frames.pvd lists only its own" then too). */
    char pvd[FCL_STR_MAX + 16];
    snprintf(pvd, sizeof pvd, "%s/frames.pvd", p->output_dir);
    const char *which = run_wants(p->output_format, "vtu") ? "its frames.pvd lists only its own"
                        : access(pvd, F_OK) == 0 ? "frames.pvd, which it does not write, lists the earlier run's"
                                                  : "";
    if (count > 0)
        fprintf(stderr, "fluidcl: note: %s already holds %ld frame, mesh or grid file%s of an earlier run: this run "
                "replaces those of the steps it writes and leaves the others%s%s%s\n", p->output_dir, count,
                count == 1 ? "" : "s", *which ? " (" : "", which, *which ? ")" : "");
}
