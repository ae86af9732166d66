/* run.c - `fluidcl run`: a headless simulation with progress, frames
 * (and their ParaView collection), per-step statistics, checkpoints,
 * resuming from one, and a closing summary.
 * Invariant: nothing is written until the scene, the output folder and the
 * statistics file have all been checked; frames and checkpoints appear
 * atomically, so the newest frame on disk is always a complete, good one,
 * and a failed write stops the run (exit 3) naming the file.
 */
#include <math.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checkpoint.h"
#include "corewait.h"
#include "cli.h"
#include "mc.h"
#include "output.h"
#include "progress.h"
#include "run_paths.h"
#include "setup.h"
#include "sim.h"
#include "state.h"
#include "targets.h"

typedef struct run_ctx {
    fcl_sim sim;
    fcl_csv *csv;
    float4 *pos, *vel;       /* host copies for frames */
    float *rho, *prs, *surf;
    float *fields[FCL_SOLVER_FIELDS_MAX];    /* the solver's, for frames */
    uint *id;
    long frames;
    double max_err;
    /* Sums over the steps for the summary's averages. */
    double sum_avg_err, sum_dt, min_dt;
    fcl_stat_fold solver_fold;      /* the solver's declared statistics */
    const char *columns[16 + FCL_SOLVER_STATS_MAX];
    /* run --mesh: a surface per frame, and the reconstructions' times. */
    int mesh;
    mc_ctx mc;
    long meshes;
    double mesh_ms;
    size_t mesh_tris;
    int empty_warned;        /* an empty mesh of particles was reported */
    int unsettled_warned;    /* a level set that did not settle was reported */
    int wide_noted;          /* a frame name outgrew its six digits */
    /* The ParaView collection of the .vtu frames (DIR/frames.pvd). */
    fcl_pvd_entry *pvd;
    size_t npvd, pvd_cap;
    long long pvd_bytes;          /* its size as last written, 0: unknown */
    fcl_ckpt ck;
    long first_step;                /* > 0 when resumed */
    double psteps;                  /* particles summed over the steps run */
    int empty;                      /* the step under way started with no particle */
    long moved;                     /* steps that moved particles: the averages' */
} run_ctx;

/* The CSV's columns: these for every solver, then the solver's own
 * statistics by their keys (solver.h), then, when the scene has
 * emitters or outflows, the particle count and this step's emitted,
 * refused and removed. */
static const char *const common_columns[] = {
    "step", "time", "dt", "max_speed", "avg_density_error_pct", "max_density_error_pct",
};
enum { NCOMMON = sizeof common_columns / sizeof common_columns[0] };

static const char *const *csv_columns(run_ctx *r, const fcl_solver *solver, int emitters)
{
    int k = 0;
    for (; k < NCOMMON; k++)
        r->columns[k] = common_columns[k];
    for (int j = 0; solver && j < solver->nstats; j++)
        r->columns[k++] = solver->stats[j].key;
    if (emitters) {
        r->columns[k++] = "particles";
        r->columns[k++] = "emitted";
        r->columns[k++] = "refused";
        r->columns[k++] = "removed";
    }
    r->columns[k] = NULL;
    return r->columns;
}

/* The surface of the current state, next to its frame, from the
 * simulation's device buffers. */
static int write_mesh(run_ctx *r, const fcl_params *p)
{
    char base[FCL_STR_MAX + 64], err[1024];
    mc_config c;
    cli_mesh_info mi;
    mc_config_from_params(&c, p);
    snprintf(base, sizeof base, "%s/frame_%06ld.surface", p->output_dir, r->sim.step);
    mc_input in = mc_input_sim(&r->sim);
    int rc = cli_write_surface(&r->mc, &c, &in, base, p->surface_format, &mi, err, sizeof err);
    if (rc != 0) {
        cli_error("%s", err);
        return rc;
    }
    r->mesh_tris = mi.ntri;
    cli_warn_hollow(base, r->sim.n, c.spacing, &mi, mc_empty_hint(p), &r->empty_warned);
    cli_warn_unsettled(base, &c, &r->mc.last, &r->unsettled_warned);
    r->meshes++;
    r->mesh_ms += mi.ms;
    return 0;
}

/* The solver's declared particle fields into the frame (VTK stores
 * them after the surface flag). */
static int frame_fields(run_ctx *r, fcl_frame *f)
{
    fcl_sim *s = &r->sim;
    for (int k = 0; k < s->solver->nfields && k < FCL_FRAME_EXTRA_MAX; k++) {
        float *b = realloc(r->fields[k], s->n * sizeof *b + 16);
        if (!b)
            return -1;
        r->fields[k] = b;
        if (sim_download_field(s, k, b) != 0)
            return -1;
        f->extra_name[k] = s->solver->fields[k].name;
        f->extra[k] = b;
        f->nextra = k + 1;
    }
    return 0;
}

/* The new .vtu frame into DIR/frames.pvd: added in place to the file as
 * last written, else the file rewritten whole (atomically). */
static int pvd_add(run_ctx *r, const fcl_params *p, const char *file)
{
    char path[FCL_STR_MAX + 64], err[FCL_STR_MAX + 600];
    if (r->npvd == r->pvd_cap) {
        size_t cap = r->pvd_cap ? 2 * r->pvd_cap : 64;
        fcl_pvd_entry *e = realloc(r->pvd, cap * sizeof *e);
        if (!e) {
            cli_error("out of host memory for the frame list");
            return FCL_EXIT_DEVICE;
        }
        r->pvd = e;
        r->pvd_cap = cap;
    }
    out_pvd_entry(&r->pvd[r->npvd++], r->sim.time, file);
    snprintf(path, sizeof path, "%s/frames.pvd", p->output_dir);
    if (r->pvd_bytes > 0 && out_append_pvd(path, r->pvd, r->npvd, &r->pvd_bytes) == 0)
        return 0;
    struct stat st;
    if (out_write_pvd(path, r->pvd, r->npvd, err, sizeof err) != 0) {
        cli_error("%s", err);
        return FCL_EXIT_DEVICE;
    }
    r->pvd_bytes = stat(path, &st) == 0 ? (long long)st.st_size : 0;
    return 0;
}

/* A resumed run's collection keeps the frames up to its checkpoint. A
 * missing or foreign one only costs the older entries, so it is noted. */
static void pvd_resume(run_ctx *r, const fcl_params *p)
{
    char path[FCL_STR_MAX + 64], err[FCL_STR_MAX + 600];
    struct stat st;
    snprintf(path, sizeof path, "%s/frames.pvd", p->output_dir);
    if (stat(path, &st) != 0)
        return;
    if (out_read_pvd(path, &r->pvd, &r->npvd, err, sizeof err) != 0) {
        fprintf(stderr, "fluidcl: note: %s; it will list the frames from step %ld on\n", err, r->sim.step);
        return;
    }
    r->pvd_cap = r->npvd;
    while (r->npvd > 0 && r->pvd[r->npvd - 1].time > r->sim.time)
        r->npvd--;
}

/* The frame in every format asked for; the first failure is reported. */
static int write_formats(run_ctx *r, const fcl_params *p, const fcl_frame *f)
{
    const fcl_sim *s = &r->sim;
    char path[FCL_STR_MAX + 64], name[64], err[FCL_STR_MAX + 600];
    int rc = 0;
    if (run_wants(p->output_format, "vtu")) {
        snprintf(name, sizeof name, "frame_%06ld.vtu", s->step);
        snprintf(path, sizeof path, "%s/%s", p->output_dir, name);
        if ((rc = out_write_vtu(path, f, s->time, err, sizeof err)) == 0 && (rc = pvd_add(r, p, name)) != 0)
            return rc;
    }
    if (rc == 0 && run_wants(p->output_format, "vtk")) {
        snprintf(path, sizeof path, "%s/frame_%06ld.vtk", p->output_dir, s->step);
        rc = out_write_vtk(path, f, s->time, err, sizeof err);
    }
    if (rc == 0 && run_wants(p->output_format, "ply")) {
        snprintf(path, sizeof path, "%s/frame_%06ld.ply", p->output_dir, s->step);
        rc = out_write_ply(path, f, err, sizeof err);
    }
    if (rc != 0) {
        cli_error("%s", err);
        return FCL_EXIT_DEVICE;
    }
    return 0;
}

/* The solver's grid beside the frame (output.grid). */
static int write_grid(run_ctx *r, const fcl_params *p)
{
    fcl_sim *s = &r->sim;
    fcl_grid_frame g;
    char path[FCL_STR_MAX + 64], err[FCL_STR_MAX + 600];
    if (s->solver->grid_fields(s, &g) != 0)
        return FCL_EXIT_DEVICE;
    snprintf(path, sizeof path, "%s/grid_%06ld.vti", p->output_dir, s->step);
    if (out_write_vti(path, &g, s->time, err, sizeof err) != 0) {
        cli_error("%s", err);
        return FCL_EXIT_DEVICE;
    }
    return 0;
}

static int write_frame(run_ctx *r, const fcl_params *p)
{
    fcl_sim *s = &r->sim;
    if (sim_download(s, r->pos, r->vel, r->rho, r->prs, r->id) != 0 || sim_download_surface(s, r->surf) != 0)
        return FCL_EXIT_DEVICE;
    fcl_frame f = { s->n, r->pos, r->vel, r->rho, r->prs, r->id, r->surf, s->spacing, 0, { 0 }, { 0 } };
    if (frame_fields(r, &f) != 0)
        return FCL_EXIT_DEVICE;
    int rc = write_formats(r, p, &f);
    if (rc == 0 && p->output_grid)
        rc = write_grid(r, p);
    if (rc != 0)
        return rc;
    r->frames++;
    /* Past six digits a shell's sorted glob puts frame_1000000 before
     * frame_200000; ParaView reads frames.pvd, surface sorts by step. */
    if (s->step > 999999 && !r->wide_noted) {
        fprintf(stderr, "fluidcl: note: frame names past step 999999 have more than six digits (frame_%06ld): "
                "frames.pvd and `fluidcl surface` keep them in order, a sorted shell glob does not\n", s->step);
        r->wide_noted = 1;
    }
    return r->mesh ? write_mesh(r, p) : 0;
}

/* Whether the carried rows (steps in their first column) run 1, 2, ...
 * up to the checkpoint's step; if not, *from and *to are the first
 * missing range (a resume with a shortened file once wrote a gap without
 * a word; a review). */
static int rows_complete(const char *rows, long last, long *from, long *to)
{
    long want = 1;
    for (const char *line = rows ? rows : ""; *line && want <= last;) {
        char *end;
        double first = strtod(line, &end);   /* rows are written %.9g: step 1e9 reads "1e+09" */
        long step = first >= 0.0 && first < 9e18 ? (long)first : -1;
        if (step != want) {
            *from = want;
            *to = step > want && step <= last ? step - 1 : last;
            return 0;
        }
        want++;
        const char *nl = strchr(line, '\n');
        line = nl ? nl + 1 : line + strlen(line);
    }
    *from = want;
    *to = last;
    return want > last;
}

/* Everything that can be checked before simulating: the statistics file
 * (first, so that a bad one leaves no folder behind), the output folder,
 * host buffers for frames. */
/* The statistics file (--stats): opened, and for a resumed run the earlier
 * run's rows up to the checkpoint carried over, so the file reads as one
 * run's; they are read before the open truncates "<stats>.tmp", where a
 * killed run left them. */
static int prepare_stats(run_ctx *r, const fcl_cli *o, const fcl_solver *sv)
{
    char err[1024], used[4200] = "", *rows = NULL;
    if (!o->stats)
        return 0;
    const char *const *cols = csv_columns(r, sv, r->sim.nemitters + r->sim.noutflows > 0);
    if (r->first_step > 0 &&
        !(rows = out_csv_earlier(o->stats, cols, (double)r->first_step, used, sizeof used, err, sizeof err)) && err[0]) {
        cli_error("--stats %s", err);
        return FCL_EXIT_INPUT;
    }
    /* A note, not progress: --quiet keeps it (it hid it; a review). */
    if (rows && strcmp(used, o->stats) != 0)
        fprintf(stderr, "fluidcl: note: --stats: the rows up to step %ld come from %s (the earlier run did not finish)\n",
                r->first_step, used);
    long from, to;
    if (r->first_step > 0 && !rows_complete(rows, r->first_step, &from, &to))
        fprintf(stderr, "fluidcl: warning: --stats %s: %s steps %ld to %ld of the %ld before the checkpoint; the file will "
                "go on from step %ld without them\n", o->stats, rows ? "the earlier rows lack" : "no earlier file, so no rows for",
                from, to, r->first_step, r->first_step + 1);
    if (!(r->csv = out_csv_open(o->stats, cols, err, sizeof err))) {
        cli_error("%s", err);
        free(rows);
        return FCL_EXIT_INPUT;
    }
    int carried = rows ? out_csv_carry(r->csv, rows, err, sizeof err) : 0;
    free(rows);
    if (carried != 0) {
        cli_error("--stats %s", err);
        out_csv_close_err(r->csv, err, sizeof err);   /* keeps the .tmp: what was written */
        r->csv = NULL;
        return FCL_EXIT_DEVICE;
    }
    return 0;
}

/* Nothing was simulated: a fresh run leaves no statistics file; a
 * resumed one keeps "<stats>.tmp", which holds the earlier run's rows
 * (carried into it) for the next try. */
static void drop_stats(run_ctx *r)
{
    char err[1024];
    if (r->csv && r->first_step > 0)
        out_csv_close_err(r->csv, err, sizeof err);
    else
        out_csv_discard(r->csv);
    r->csv = NULL;
}

/* A file at a checkpoint's path that is not an earlier checkpoint (a
 * checkpoint replaces nothing else): printed and FCL_EXIT_INPUT. */
static int foreign_checkpoint(const char *what, const char *path, const char *fix)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && !sim_state_is_file(path)) {
        cli_error("%s %s: exists and is not a fluidcl checkpoint, which is all a checkpoint replaces; %s", what,
                  path, fix);
        return FCL_EXIT_INPUT;
    }
    return 0;
}

/* The output folder and the files it holds: made when frames go to it,
 * or when --every 0 writes none but --stats or --checkpoint names a file
 * in it (that was refused as "no such folder"). */
static int prepare_folder(run_ctx *r, const fcl_cli *o, const fcl_params *p, int stats_in, int ck_in)
{
    char err[1024], from[FCL_STR_MAX + 64];
    int frames = p->output_every > 0, rc;
    const char *names[8];
    run_frame_names(o, p, names);
    if (out_prepare_dir(p->output_dir, err, sizeof err) != 0 ||
        (frames && out_check_frame_names(p->output_dir, names, err, sizeof err) != 0)) {
        cli_error("%s: %s", cli_origin(o, "output.dir", o->out ? "--out" : NULL, from, sizeof from), err);
        drop_stats(r);
        return FCL_EXIT_INPUT;
    }
    if (frames && !o->resume)
        run_note_earlier_files(p);
    else if (frames)
        run_note_later_files(p, r->first_step);
    if (stats_in && (rc = prepare_stats(r, o, solver_find(p->sim_solver))) != 0)
        return rc;
    /* The folder's own files, probed as the named ones are (a link or a
     * folder there once stopped the run at its first checkpoint or after
     * frame 0, exit 3). Only a folder that was there can hold them. */
    char pvd[FCL_STR_MAX + 32];
    snprintf(pvd, sizeof pvd, "%s/frames.pvd", p->output_dir);
    int vtu = frames && run_wants(p->output_format, "vtu");
    if ((ck_in && (rc = cli_probe_file("--checkpoint", r->ck.path)) != 0) ||
        (!o->checkpoint && r->ck.path[0] &&
         ((rc = cli_probe_file("the checkpoint", r->ck.path)) != 0 ||
          (rc = foreign_checkpoint("the checkpoint a SIGINT, SIGTERM or --checkpoint-every writes,", r->ck.path,
                                   "give --checkpoint FILE elsewhere, or move that file")) != 0)) ||
        (vtu && (rc = cli_probe_file(o->out ? "--out" : "output.dir", pvd)) != 0)) {
        drop_stats(r);
        return rc;
    }
    /* The collection replaces only an earlier one (a user's own
     * frames.pvd there was replaced without a word; a review). */
    if (vtu && !out_pvd_replaceable(pvd)) {
        cli_error("%s: exists and is not a frames collection, which is all a run replaces there (with the VTU "
                  "frames' list); move it, or give another --out folder", pvd);
        drop_stats(r);
        return FCL_EXIT_INPUT;
    }
    return 0;
}

/* After run_check_outputs: the statistics file first (a failure then
 * loses nothing: opening it truncates "<stats>.tmp", where a killed run's
 * rows wait; and a bad one leaves no folder behind), then the output
 * folder and its own files, then the frames' host buffers. */
static int prepare_outputs(run_ctx *r, const fcl_cli *o, const fcl_params *p, size_t n)
{
    int rc;
    /* Files inside the folder this run creates wait for it. */
    int stats_in = o->stats && cli_in_new_dir(o->stats, p), ck_in = o->checkpoint && cli_in_new_dir(o->checkpoint, p);
    if (o->stats && !stats_in && (rc = prepare_stats(r, o, solver_find(p->sim_solver))) != 0)
        return rc;
    if ((p->output_every > 0 || stats_in || ck_in) && (rc = prepare_folder(r, o, p, stats_in, ck_in)) != 0)
        return rc;
    if (p->output_every <= 0)
        return 0;
    r->pos = malloc(n * sizeof *r->pos + 16);
    r->vel = malloc(n * sizeof *r->vel + 16);
    r->rho = malloc(n * sizeof *r->rho + 16);
    r->prs = malloc(n * sizeof *r->prs + 16);
    r->id = malloc(n * sizeof *r->id + 16);
    r->surf = malloc(n * sizeof *r->surf + 16);
    if (!r->pos || !r->vel || !r->rho || !r->prs || !r->id || !r->surf) {
        cli_error("not enough host memory for frame buffers of %zu particles", n);
        return FCL_EXIT_DEVICE;
    }
    return 0;
}

static int report_blowup(const fcl_sim *s)
{
    char advice[512], what[160];
    const fcl_step_stats *st = &s->stats;
    cli_error("numerical blow-up at step %ld (t = %.6g s): %s (max speed %.4g m/s, dt %.3g s); "
              "%s. Frames written so far are intact.",
              st->step, st->time, sim_blowup_what(s, what, sizeof what), st->max_speed, st->dt,
              sim_blowup_advice(s, advice, sizeof advice));
    return FCL_EXIT_DEVICE;
}

static int record(run_ctx *r)
{
    const fcl_step_stats *st = &r->sim.stats;
    if (st->max_density_err > r->max_err)
        r->max_err = st->max_density_err;
    const fcl_solver *solver = r->sim.solver;
    r->sum_dt += st->dt;
    r->min_dt = r->min_dt > 0.0 && r->min_dt < st->dt ? r->min_dt : st->dt;
    /* A step with no particle computed no error or solver figure: its
     * zeros stay out of the averages (an emitter's scene read 3.969 pbf
     * iterations a step at pbf.iterations 4, and 0 control particles in
     * its first steps; a review). */
    if (!r->empty) {
        r->sum_avg_err += st->avg_density_err;
        stat_fold_add(&r->solver_fold, solver, st->solver);
        r->moved++;
    }
    double row[NCOMMON + FCL_SOLVER_STATS_MAX + 4] = { (double)st->step, st->time, st->dt, st->max_speed,
                                                       st->avg_density_err, st->max_density_err };
    if (solver->no_density)
        row[4] = row[5] = NAN;
    for (int k = 0; k < solver->nstats; k++)
        row[NCOMMON + k] = st->solver[k];
    if (r->sim.nemitters + r->sim.noutflows > 0) {
        row[NCOMMON + solver->nstats] = (double)r->sim.n;
        row[NCOMMON + solver->nstats + 1] = (double)st->emitted;
        row[NCOMMON + solver->nstats + 2] = (double)st->refused;
        row[NCOMMON + solver->nstats + 3] = (double)st->removed;
    }
    /* Said once, by the close at the run's end, with where the rows are
     * (the same failure was printed twice; a review). */
    if (r->csv && out_csv_row(r->csv, row) != 0)
        return FCL_EXIT_DEVICE;
    return 0;
}

/* Whether the run is over: after `total` steps, or (total = 0) once the
 * simulated time reaches sim.duration, which is what adaptive time steps
 * need. The time sums float steps: float(0.0002) is 5e-12 s short, so
 * five of them fell short of 0.001 s and a sixth ran; a hundredth of a
 * step's slack covers that rounding over 1e5 steps. Progress is counted
 * in steps, or in thousandths of the duration. */
/* Whether step k at time t is the run's end: total steps when given, else
 * sim.duration within a hundredth of a step (dt), float's sum of steps. */
static int at_end(const fcl_params *p, long total, long k, double t, double dt)
{
    return total > 0 ? k >= total : t >= p->sim_duration - 0.01 * dt;
}

static int finished(const fcl_sim *s, const fcl_params *p, long total, long k, long *done)
{
    *done = total > 0 ? k : (long)(1000.0 * s->time / p->sim_duration);
    return at_end(p, total, k, s->time, (double)s->c.dt);
}

/* SIGINT or SIGTERM: a final checkpoint (when there is a file for it),
 * then exit 128 + the signal, as a shell reports a killed command. */
static int interrupted(run_ctx *r, int sig)
{
    const fcl_sim *s = &r->sim;
    int rc = ckpt_write(&r->ck, &r->sim, 1);
    if (rc != 0)
        return rc;
    if (r->ck.path[0])
        cli_error("stopped by %s after step %ld (t = %.6g s); checkpoint %s: continue with --resume %s",
                  sig == SIGINT ? "SIGINT" : "SIGTERM", s->step, s->time, r->ck.path, r->ck.path);
    else
        cli_error("stopped by %s after step %ld (t = %.6g s); no checkpoint (give --out DIR or --checkpoint FILE)",
                  sig == SIGINT ? "SIGINT" : "SIGTERM", s->step, s->time);
    return 128 + sig;
}

/* What follows a step: its statistics, a frame and a checkpoint when due. */
static int after_step(run_ctx *r, const fcl_params *p)
{
    fcl_sim *s = &r->sim;
    int rc = record(r);
    if (rc == 0 && p->output_every > 0 && s->step % p->output_every == 0)
        rc = write_frame(r, p);
    return rc ? rc : ckpt_write(&r->ck, s, 0);
}

static int simulate(run_ctx *r, const fcl_cli *o, const fcl_params *p, long total, double *wall)
{
    fcl_sim *s = &r->sim;
    fcl_progress bar;
    ckpt_stepping();
    /* A resumed run's first frame is on disk already. */
    int rc = p->output_every > 0 && r->first_step == 0 ? write_frame(r, p) : 0;
    long done = 0;
    progress_start(&bar, o->quiet ? NULL : "run", total > 0 ? total : 1000);
    bar.per_mille = total <= 0;     /* a run for a simulated time */
    double t0 = omp_get_wtime(), waited0 = corewait_seconds();
    for (long k = r->first_step; rc == 0 && !finished(s, p, total, k, &done); k++) {
        r->psteps += (double)s->n;   /* the step's own count (emitters change it) */
        r->empty = s->n == 0;
        if ((rc = sim_step(s)) != 0)
            break;
        if (s->stats.bad_id >= 0) {
            /* Its row too: the diverging step's figures are what a
             * post-mortem reads (the rows ended the step before; a
             * review). No frame or checkpoint of it. */
            progress_end(&bar);
            record(r);
            return report_blowup(s);
        }
        if ((rc = after_step(r, p)) != 0)
            break;
        char extra[96];
        double el = omp_get_wtime() - t0;
        snprintf(extra, sizeof extra, "t=%.4gs  %.3g particle-steps/s", s->time,
                 el > 0 ? r->psteps / el : 0.0);
        finished(s, p, total, k + 1, &done);
        progress_update(&bar, done, extra);
        if (ckpt_signal()) {
            progress_end(&bar);   /* its last line before the message */
            rc = interrupted(r, ckpt_signal());
        }
    }
    *wall = omp_get_wtime() - t0;
    progress_end(&bar);
    int threads = corewait_threads(s->be->kind);
    corewait_note("run", s->be->kind, corewait_pct(waited0, corewait_seconds(), *wall, threads), threads);
    return rc == 0 && r->ck.at_end ? ckpt_write(&r->ck, s, 1) : rc;
}

/* The closing summary, one "label value" line each, the labels' column as
 * wide as the longest (a solver's "viscosity CG iterations" ran into its
 * value at 16; a review). */
static void summary(const run_ctx *r, const fcl_scene *sc, double wall)
{
    const fcl_sim *s = &r->sim;
    int w = 16;
    for (int k = 0; k < s->solver->nstats; k++)
        w = (int)strlen(s->solver->stats[k].label) > w ? (int)strlen(s->solver->stats[k].label) : w;
    printf("%-*s %s%s%s\n", w, "scene", sc->file, sc->name[0] ? " - " : "", sc->name);
    printf("%-*s %s on %s\n", w, "solver", s->solver->name, s->be->name);
    printf("%-*s %zu\n", w, "particles", s->n);
    printf("%-*s %ld (last dt %.4g s)\n", w, "steps", s->step, s->stats.dt);
    printf("%-*s %.6g s\n", w, "simulated time", s->time);
    printf("%-*s %.3f s\n", w, "wall time", wall);
    long ran = s->step - r->first_step;
    if (r->first_step > 0)
        printf("%-*s %ld (the averages below are over the %ld steps run since)\n", w, "resumed at step", r->first_step, ran);
    printf("%-*s %.4g\n", w, "particle-steps/s", wall > 0 ? r->psteps / wall : 0.0);
    double steps = ran > 0 ? (double)ran : 1.0;
    if (s->solver->no_density)
        printf("%-*s n/a (the %s solver keeps no particle density)\n", w, "density error", s->solver->name);
    else
        printf("%-*s average %.4g %%, max %.4g %%\n", w, "density error",
               r->moved > 0 ? r->sum_avg_err / (double)r->moved : 0.0, r->max_err);
    if (r->moved < ran)
        printf("%-*s %ld of the %ld (no particle yet: the averages leave them out)\n", w, "empty steps", ran - r->moved,
               ran);
    printf("%-*s mean %.4g s, min %.4g s\n", w, "time step", r->sum_dt / steps, r->min_dt);
    for (int k = 0; k < s->solver->nstats; k++) {
        const fcl_stat_decl *d = &s->solver->stats[k];
        double v = stat_fold_value(&r->solver_fold, s->solver, k);
        /* Whole numbers (counts) in full: 19683 control particles, not 1.968e+04. */
        printf(out_whole(v) ? "%-*s %.0f%s%s (%s over the steps)\n"
                                                : "%-*s %.4g%s%s (%s over the steps)\n",
               w, d->label, v, d->unit[0] ? " " : "", d->unit, solver_fold_word(d->fold));
    }
    /* The last state is a frame only when the frames' interval divides
     * the steps: say so, since the last state is what one looks for. */
    long every = s->prm->output_every, last = every > 0 ? s->step - s->step % every : 0;
    if (r->frames && last == s->step)
        printf("%-*s %ld in %s\n", w, "frames", r->frames, s->prm->output_dir);
    else if (r->frames)
        printf("%-*s %ld in %s, the last at step %ld: the final step %ld falls between frames (every %ld steps)\n", w,
               "frames", r->frames, s->prm->output_dir, last, s->step, every);
    if (s->nemitters + s->noutflows > 0)
        printf("%-*s %ld particles added, %ld refused (particles.capacity %zu), %ld removed\n", w, "inflow, outflow",
               s->emitted, s->refused, s->cap, s->removed);
    if (r->ck.last_step >= 0)
        printf("%-*s %s (step %ld)\n", w, "checkpoint", r->ck.path, r->ck.last_step);
    if (r->meshes)
        printf("%-*s %ld, %.1f ms per reconstruction, %zu triangles in the last\n", w, "surface meshes", r->meshes,
               r->mesh_ms / (double)r->meshes, r->mesh_tris);
}

/* Where the boundary came from, so users see what a cache hit saved. */
static void boundary_report(const fcl_initial *in, const fcl_cli *o)
{
    if (o->quiet || in->b.n == 0)
        return;
    const fcl_boundary *b = &in->b;
    char from[1100];
    if (b->from_cache)
        snprintf(from, sizeof from, "read from %s", b->cache_file);
    else
        snprintf(from, sizeof from, "sampled%s%s", b->cache_file[0] ? ", cached in " : "", b->cache_file);
    fprintf(stderr, "boundary: %zu particles (%d obstacles) %s; %zu fluid particles carved out\n", b->n,
            b->nobstacles, from, in->carved);
}

/* A checkpoint at or past the end this run asks for: nothing to run. */
static int past_end(const fcl_sim *s, const fcl_params *p, const char *file)
{
    long done;
    if (!finished(s, p, p->sim_steps, s->step, &done))
        return 0;
    if (p->sim_steps > 0)
        cli_error("--resume %s: the checkpoint is at step %ld, and this run ends at step %ld: nothing to run "
                  "(give a larger --steps)", file, s->step, p->sim_steps);
    else
        cli_error("--resume %s: the checkpoint is at t = %.6g s, and this run ends at %.6g s: nothing to run "
                  "(give a larger --time)", file, s->time, p->sim_duration);
    return 1;
}

/* A scene that starts empty and whose first emitter opens after the
 * run's last step runs no particle at all (300 steps of nothing, exit 0,
 * no word; a review), and a target that starts after it controls
 * nothing: said, since a short trial run may mean it. */
static void note_late_starts(const fcl_scene *sc, size_t n)
{
    /* At the end or later: a layer released by the last step never moves
     * (the emitters add after a step); the end, not the capacity's horizon
     * a step past a duration (an emitter opening within that step went
     * unnoted; a review). */
    double first = scene_first_inflow(sc), end = scene_run_end(sc, solver_longest_dt(
                                                   solver_find(sc->params.sim_solver), &sc->params));
    if (n == 0 && sc->nemitters > 0 && first >= end)
        fprintf(stderr, "fluidcl: note: %s: no particle in this run: the first emitter opens at t = %g s, at or after "
                "its end (t = %g s%s); give a larger %s\n", sc->file, first, end,
                sc->params.sim_steps > 0 ? " at most" : "", sc->params.sim_steps > 0 ? "--steps" : "--time");
    /* Likewise a fluid-control target that starts after the run (it ran
     * with 0 control particles and said nothing; a review). */
    for (int i = 0; i < sc->ntargets; i++)
        if (sc->targets[i].start >= end)
            fprintf(stderr, "fluidcl: note: %s: targets[%d] starts at t = %g s, at or after this run's end (t = %g s%s): "
                    "it controls nothing here; give a larger %s\n", sc->file, i, sc->targets[i].start, end,
                    sc->params.sim_steps > 0 ? " at most" : "", sc->params.sim_steps > 0 ? "--steps" : "--time");
}

/* The simulation from the scene, or from the checkpoint to resume: both
 * are checked in full before any output is prepared, so that a bad or
 * mismatched checkpoint leaves nothing behind. */
/* A checkpoint at or past this run's end holding more particles than a
 * capacity the emitters set from this run's length (it was told to raise
 * particles.capacity; a review). Said, and 1; 0 when it fits, is earlier
 * (another scene's, say) or cannot be read: ckpt_resume then says why
 * (its count against the capacity, or what differs). */
static int beyond_capacity(const fcl_sim *s, const fcl_params *p, const char *file)
{
    fcl_state_info info;
    char err[512];
    if (sim_state_info(file, &info, err, sizeof err) != 0 || info.n <= s->cap || info.step < 0)
        return 0;
    if (!at_end(p, p->sim_steps, info.step, info.time, (double)s->c.dt))
        return 0;
    cli_error("--resume %s: the checkpoint holds %zu particles, more than the %zu this run's emitters release "
              "over its length (which sets particles.capacity): it was written after this run ends; expected a "
              "larger --steps or --time, or a particles.capacity of at least %zu", file, info.n, s->cap, info.n);
    return 1;
}

static int create_sim(run_ctx *r, const fcl_cli *o, fcl_scene *sc, fcl_backend *be)
{
    char err[1024] = "";
    const fcl_params *p = &sc->params;
    fcl_initial in;
    int rc = setup_initial(sc, p, be, &in, err, sizeof err);
    if (rc == 0 && !o->resume && (rc = setup_check_fluid(sc, &in, err, sizeof err)) != 0)
        setup_free(&in);
    if (rc != 0) {
        cli_check_error(o, sc, err, NULL);
        return rc;
    }
    if (!o->resume)
        note_late_starts(sc, in.n);
    char named[sizeof err + FCL_STR_MAX];
    if ((rc = sim_create(&r->sim, be, p, in.pos, in.vel, in.n, in.b.pos, in.b.n, err, sizeof err)) != 0 ||
        (rc = setup_sim_scene(&r->sim, sc, err, sizeof err)) != 0) {
        snprintf(named, sizeof named, "%s: %s", sc->file, err);
        cli_check_error(o, sc, named, NULL);
    }
    if (rc == 0 && o->resume && sc->capacity_from_emitters && beyond_capacity(&r->sim, p, o->resume))
        rc = FCL_EXIT_INPUT;
    if (rc == 0 && o->resume && (rc = ckpt_resume(&r->sim, o->resume, o->quiet)) == 0)
        r->first_step = r->sim.step;
    if (rc == 0 && o->resume && past_end(&r->sim, p, o->resume))
        rc = FCL_EXIT_INPUT;
    if (rc == 0)
        boundary_report(&in, o);
    setup_free(&in);
    return rc;
}

/* --stats and --checkpoint apart from every input (the scene, its
 * meshes, --from, --resume but for the checkpoint itself), the statistics
 * file as far as it can be checked without opening it (prepare_stats
 * opens it once the run's columns are known; opening truncates FILE.tmp,
 * where a killed run's rows wait for a resume), each replacing only its
 * own kind: --stats an earlier run's statistics (cli_replaceable; it
 * replaced any file, exit 0), a checkpoint only a checkpoint (--checkpoint
 * over a frame replaced it, exit 0). */
static int check_output_files(const fcl_cli *o, const fcl_scene *sc)
{
    const fcl_params *p = &sc->params;
    int rc = 0;
    if (o->stats && ((rc = cli_check_not_input(o, "--stats", o->stats, 0)) != 0 ||
                     (rc = cli_check_not_mesh(sc, "--stats", o->stats)) != 0 ||
                     (!cli_in_new_dir(o->stats, p) && (rc = cli_check_file("--stats", o->stats)) != 0)))
        return rc;
    if (o->stats && !cli_replaceable(o->stats, "step,")) {
        cli_error("--stats %s: exists and is not a statistics file (its first line does not start \"step,\"), "
                  "which is all --stats replaces; expected a new file name", o->stats);
        return FCL_EXIT_INPUT;
    }
    if (!o->checkpoint)
        return 0;
    if ((rc = cli_check_not_input(o, "--checkpoint", o->checkpoint, 1)) != 0 ||
        (rc = cli_check_not_mesh(sc, "--checkpoint", o->checkpoint)) != 0)
        return rc;
    return foreign_checkpoint("--checkpoint", o->checkpoint, "expected a new file name");
}

static int run_scene(const fcl_cli *o, fcl_scene *sc, run_ctx *r)
{
    char err[1024] = "";
    const fcl_params *p = &sc->params;
    if (o->mesh && mc_method_check(p, 0, err, sizeof err) != 0) {
        cli_error("%s: %s", sc->file, err);
        return FCL_EXIT_INPUT;
    }
    /* A run of no length ran no step and printed zeros as figures, exit 0
     * (a review; --time 0 is refused as an option). */
    if (p->sim_steps <= 0 && !(p->sim_duration > 0.0)) {
        char from[FCL_STR_MAX + 64];
        cli_error("%s = 0 and sim.steps = 0: nothing to run: expected a positive --time or --steps",
                  cli_origin(o, "sim.duration", NULL, from, sizeof from));
        return FCL_EXIT_INPUT;
    }
    /* The output paths before any work. */
    int rc = run_check_outputs(o, p);
    if (rc != 0 || (rc = check_output_files(o, sc)) != 0 || (rc = ckpt_setup(&r->ck, o, p)) != 0)
        return rc;
    fcl_backend *be = backend_create_default(o->backend, o->backend_given, o->device, o->kernel_dir, err, sizeof err);
    if (!be) {
        cli_error("%s", err);
        return strncmp(err, "--", 2) == 0 ? FCL_EXIT_INPUT : FCL_EXIT_DEVICE;
    }
    be->profile = 0;   /* run shows no pass times: no profiling event a launch */
    if ((rc = create_sim(r, o, sc, be)) == 0)
        rc = prepare_outputs(r, o, p, r->sim.cap);
    if (rc == 0 && r->first_step > 0 && p->output_every > 0 && run_wants(p->output_format, "vtu"))
        pvd_resume(r, p);
    if (rc == 0 && o->mesh) {
        if (mc_init(&r->mc, be, err, sizeof err) != 0) {
            cli_error("%s", err);
            rc = FCL_EXIT_DEVICE;
        } else {
            r->mesh = 1;
            /* phi is not in the checkpoint: the first mesh after a resume
             * is a first frame (10,276 triangles against 10,496 for the
             * unbroken run at step 440, unsettled; the same from step
             * 480), which went unsaid (a review). */
            if (r->first_step > 0 && strcmp(p->surface_method, "levelset") == 0)
                fprintf(stderr, "fluidcl: note: --resume: the level set starts afresh at the first mesh (its phi is "
                        "not in the checkpoint), which may differ a little from the unbroken run's for a few "
                        "frames\n");
        }
    }
    double wall = 0.0;
    if (rc != 0) {
        drop_stats(r);
    } else if ((rc = simulate(r, o, p, p->sim_steps, &wall)) == 0) {
        summary(r, sc, wall);
    }
    if (r->csv && out_csv_close_err(r->csv, err, sizeof err) != 0) {
        cli_error("%s", err);
        rc = rc ? rc : FCL_EXIT_DEVICE;
    }
    if (r->mesh)
        mc_free(&r->mc);
    sim_destroy(&r->sim);
    backend_destroy(be);
    return rc;
}

int cmd_run(int argc, char **argv)
{
    fcl_cli o;
    fcl_scene sc;
    int rc = cli_parse(&o, argc, argv, FCL_CMD_RUN);
    if (rc == 0 && o.help) {
        cli_help(stdout, FCL_CMD_RUN);
        return 0;
    }
    if (rc != 0 || (rc = cli_scene(&o, &sc)) != 0)
        return rc;
    run_ctx r;
    memset(&r, 0, sizeof r);
    ckpt_signals(1);
    rc = run_scene(&o, &sc, &r);
    free(r.pvd);
    free(r.pos);
    free(r.vel);
    free(r.rho);
    free(r.prs);
    free(r.id);
    free(r.surf);
    for (int k = 0; k < FCL_SOLVER_FIELDS_MAX; k++)
        free(r.fields[k]);
    scene_free(&sc);
    return rc;
}
