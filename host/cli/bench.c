/* bench.c - `fluidcl bench`: the same scene on every backend and device,
 * one table of ms per step per pass, particle-steps per second and speedup
 * against the native CPU backend; the same figures as JSON. With --mesh,
 * also the surface reconstruction of each backend's final state.
 * Invariant: a column's pass times come from its backend's own timers
 * (profiling events on OpenCL, wall clock on the CPU), measured after
 * warm-up steps that are not counted; the reconstruction runs after the
 * timers are taken, so its passes never mix into the step's.
 */
#include <cJSON.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic.h"
#include "cli.h"
#include "clrt.h"
#include "corewait.h"
#include "levelset.h"
#include "mc.h"
#include "output.h"
#include "progress.h"
#include "setup.h"
#include "sim.h"

/* WARMUP steps with particles before the timed ones; an emitter scene
 * that starts empty warms up until its particles have run them, within
 * WARMUP_MAX steps. */
enum { MAX_COLS = 16, WARMUP = 2, WARMUP_MAX = 100000, MESH_REPEATS = 3 };

typedef struct bench_col {
    char backend[16], device[320];
    int device_index;        /* OpenCL device number, -1 for the CPU */
    fcl_timers timers;       /* summed over the measured steps */
    double wall_ms;          /* per step */
    double core_wait_pct;    /* of its threads' time spent waiting for a core (corewait.h), -1 unknown */
    long steps;
    long warmup;             /* untimed steps before them */
    double t_start;          /* the simulated time the timed steps start at (s) */
    size_t n, n_end;         /* at the start of the timed steps and at their end */
    double psteps;           /* particles summed over the timed steps (emitters change the count) */
    /* Solver figures summed over the measured steps (the stats of each). */
    double sim_time, sum_avg_err, max_err;
    fcl_stat_fold solver_fold;      /* the solver's declared statistics */
    /* --mesh: median wall ms of MESH_REPEATS reconstructions (read-back
     * included, files not written), and the mesh's triangles. */
    int meshed;
    double mesh_ms;
    size_t mesh_tris;
    float mesh_cell;         /* node spacing used (m) */
    size_t mesh_nodes;       /* nodes that got phi (the narrow band) */
    int mesh_ls_iters, mesh_ls_continued;   /* the level set's last reconstruction (levelset only) */
    int mesh_ls_converged, mesh_ls_stalled; /* ... how it ended (levelset.c) */
    fcl_timers mesh_timers;  /* passes of the median reconstruction (the one mesh_ms is) */
} bench_col;

typedef struct bench_table {
    bench_col col[MAX_COLS];
    int ncols;
    const char *label[FCL_TIMERS_MAX];   /* union of pass labels, in order */
    int nlabels;
    const fcl_solver *solver;            /* whose statistics the columns fold */
} bench_table;

static void accumulate(bench_col *col, const fcl_solver *solver, const fcl_step_stats *st)
{
    col->sum_avg_err += st->avg_density_err;
    col->max_err = st->max_density_err > col->max_err ? st->max_density_err : col->max_err;
    stat_fold_add(&col->solver_fold, solver, st->solver);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The surface of the sim's current state, as run --mesh makes it: one
 * untimed reconstruction first (PoCL compiles kernels at their first
 * launch), then the median of MESH_REPEATS timed ones, with that one's
 * passes (means of the three once let one slow run on a loaded machine
 * put the rows at 4.4 times the median). */
static int bench_mesh(fcl_sim *sim, const fcl_params *p, bench_col *col)
{
    char err[1024] = "";
    double ms[MESH_REPEATS];
    fcl_timers runs[MESH_REPEATS];   /* 520 bytes each */
    mc_config c;
    mc_ctx x;
    memset(&x, 0, sizeof x);
    mc_config_from_params(&c, p);
    mc_input in = mc_input_sim(sim);
    int rc = mc_init(&x, sim->be, err, sizeof err) != 0 ? FCL_EXIT_DEVICE : 0;
    for (int k = -1; rc == 0 && k < MESH_REPEATS; k++) {
        mc_mesh m;
        memset(&m, 0, sizeof m);
        timers_reset(&sim->be->timers);   /* the step passes are in col->timers */
        /* The level set from no phi each time, as a run's first frame and
         * `fluidcl surface` start: kept, the timed three began converged
         * on the same state and read 9 ms of a 220 ms reconstruction (a
         * review). */
        ls_free(x.ls);
        x.ls = NULL;
        double t0 = omp_get_wtime();
        rc = mc_reconstruct_in(&x, &c, &in, &m, err, sizeof err);
        if (k >= 0) {
            ms[k] = 1e3 * (omp_get_wtime() - t0);
            runs[k] = sim->be->timers;
        }
        col->mesh_tris = m.nt;
        mc_mesh_free(&m);
    }
    col->mesh_cell = x.last.node_cell;
    col->mesh_nodes = x.last.cells;
    col->mesh_ls_iters = x.last.ls_iterations;
    col->mesh_ls_continued = x.last.ls_continued;
    col->mesh_ls_converged = x.last.ls_converged;
    col->mesh_ls_stalled = x.last.ls_stalled;
    mc_free(&x);
    if (rc != 0) {
        cli_error("bench --mesh on %s: %s", sim->be->name, err[0] ? err : "reconstruction failed");
        return rc;
    }
    double sorted[MESH_REPEATS];
    memcpy(sorted, ms, sizeof sorted);
    qsort(sorted, MESH_REPEATS, sizeof sorted[0], cmp_double);
    col->mesh_ms = sorted[MESH_REPEATS / 2];
    for (int k = 0; k < MESH_REPEATS; k++)
        if (ms[k] == col->mesh_ms) {
            col->mesh_timers = runs[k];
            break;
        }
    col->meshed = 1;
    return 0;
}

/* A step that blew up (a non-finite value, or a particle past
 * sim.max_step_ratio support radii): timings of it would mislead, so bench
 * stops as run does (exit 3). */
static int blown_up(const fcl_sim *s)
{
    char advice[512], what[160];
    if (s->stats.bad_id < 0)
        return 0;
    cli_error("bench on %s: numerical blow-up at step %ld (t = %.6g s): %s (max speed %.4g m/s, dt %.3g s); %s",
              s->be->name, s->stats.step, s->stats.time, sim_blowup_what(s, what, sizeof what), s->stats.max_speed,
              s->stats.dt, sim_blowup_advice(s, advice, sizeof advice));
    return FCL_EXIT_DEVICE;
}

/* One step; sim_step says why a step failed (its error), and where it
 * has none, the step is named here (the caller said "a step failed"
 * after every failure, after a warm-up with no particles too, where no
 * step had failed; a review). */
static int bench_step(fcl_sim *s)
{
    int rc = sim_step(s);
    if (rc != 0) {
        if (!s->error[0])
            cli_error("bench on %s: step %ld failed", s->be->name, s->step + 1);
        return rc;
    }
    return blown_up(s);
}

/* The timed steps (their wall time and simulated time into col), with a
 * progress line on stderr unless --quiet: a slow device's bench of a
 * large scene runs for minutes. */
static int timed_steps(fcl_sim *sim, bench_col *col, long steps, int quiet)
{
    fcl_progress bar;
    progress_start(&bar, quiet ? NULL : "bench", steps);
    int rc = 0;
    double t0 = omp_get_wtime(), sim_t0 = sim->time, waited0 = corewait_seconds();
    col->n = sim->n;
    for (long k = 0; k < steps && rc == 0; k++) {
        col->psteps += (double)sim->n;
        rc = bench_step(sim);
        accumulate(col, sim->solver, &sim->stats);
        progress_update(&bar, k + 1, NULL);
    }
    /* The queue drained inside the clock, its events folded into the
     * timers: a step reads its statistics back, but one of no particles
     * (an emitter scene before its first layer) reads nothing, and its
     * OpenCL passes were left out of the JSON (a review). */
    if (rc == 0 && sim->be->ops->finish(sim->be) != 0) {
        cli_error("bench on %s: the device failed finishing the timed steps", sim->be->name);
        rc = FCL_EXIT_DEVICE;
    }
    col->wall_ms = (omp_get_wtime() - t0) * 1e3 / (double)steps;
    col->core_wait_pct = corewait_pct(waited0, corewait_seconds(), col->wall_ms * 1e-3 * (double)steps,
                                      corewait_threads(sim->be->kind));
    col->n_end = sim->n;
    col->sim_time = sim->time - sim_t0;
    progress_end(&bar);
    return rc;
}

/* Untimed steps until WARMUP of them had particles: an emitter scene
 * starting empty ran no kernel in a warm-up of 2 steps, so PoCL's first
 * builds fell in the timed steps (a nozzle box: 15.6 ms a step against
 * 0.8 in its passes), and with none emitted by then the table timed
 * nothing. Said when it runs longer than WARMUP (the timed steps then
 * start later); no particles after WARMUP_MAX steps is refused. */
static int warm_up(fcl_sim *sim, bench_col *col, const char *device)
{
    int rc = 0, with = 0;
    col->warmup = 0;
    while (rc == 0 && with < WARMUP && col->warmup < WARMUP_MAX) {
        rc = bench_step(sim);
        col->warmup++;
        with += sim->n > 0;
    }
    col->t_start = sim->time;
    if (rc == 0 && sim->n == 0) {
        cli_error("bench on %s: no particles after %ld warm-up steps (t = %.4g s): nothing to time", device,
                  col->warmup, sim->time);
        return FCL_EXIT_INPUT;
    }
    if (rc == 0 && col->warmup > WARMUP)
        fprintf(stderr, "bench: %s: the scene starts without particles: %ld warm-up steps, the timed ones from t = "
                "%.4g s with %zu particles\n", device, col->warmup, sim->time, sim->n);
    return rc;
}

static int bench_one(const fcl_scene *sc, const char *kind, const char *device, const fcl_cli *o,
                     long steps, bench_col *col)
{
    char err[1024] = "";
    fcl_backend *be = backend_create(kind, device, o->kernel_dir, err, sizeof err);
    fcl_initial in;
    fcl_sim sim;
    memset(&sim, 0, sizeof sim);
    memset(&in, 0, sizeof in);
    double t_frame = 0.0;
    int rc = !be ? FCL_EXIT_DEVICE : setup_initial(sc, &sc->params, be, &in, err, sizeof err);
    if (rc == 0 && o->from)
        rc = setup_from_frame(&in, o->from, &sc->params, sc->nphases, &t_frame, err, sizeof err);
    else if (rc == 0)
        rc = setup_check_fluid(sc, &in, err, sizeof err);
    if (rc == 0)
        rc = sim_create(&sim, be, &sc->params, in.pos, in.vel, in.n, in.b.pos, in.b.n, err, sizeof err);
    if (rc == 0)
        rc = setup_sim_scene(&sim, sc, err, sizeof err);
    /* From the frame's time: emitters' and targets' windows read it (the
     * emitters once opened again at 0). */
    if (rc == 0)
        sim.time = t_frame;
    size_t n = in.n;
    setup_free(&in);
    if (rc != 0) {
        cli_error("bench on %s: %s", be ? be->name : kind, err);
        sim_destroy(&sim);
        backend_destroy(be);
        return rc;
    }
    if (o->from)   /* kept with --quiet: the table does not say when it starts */
        fprintf(stderr, "bench: from %s (t = %.4g s)\n", o->from, t_frame);
    if (!o->quiet)   /* progress: the table names the device and the count */
        fprintf(stderr, "bench: %s, %zu particles, %ld steps ...\n", be->name, n, steps);
    if (rc == 0)
        rc = warm_up(&sim, col, be->name);
    /* The warm-up's events folded in before the reset, not into the timed steps. */
    if (rc == 0 && be->ops->finish(be) != 0) {
        cli_error("bench on %s: the device failed finishing the warm-up", be->name);
        rc = FCL_EXIT_DEVICE;
    }
    timers_reset(&be->timers);
    if (rc == 0)
        rc = timed_steps(&sim, col, steps, o->quiet);
    snprintf(col->backend, sizeof col->backend, "%s", be->kind);
    snprintf(col->device, sizeof col->device, "%s", be->name);
    col->timers = be->timers;
    col->steps = steps;
    col->device_index = device ? atoi(device) : -1;
    if (rc == 0 && o->mesh)
        rc = bench_mesh(&sim, &sc->params, col);
    sim_destroy(&sim);
    backend_destroy(be);
    return rc;
}

/* The passes tm recorded since its reset: a setup pass (the walls'
 * volumes, "boundary") made a row of zeros in every table (a review). */
static void add_labels(bench_table *t, const fcl_timers *tm)
{
    for (int i = 0; i < tm->count; i++) {
        int seen = !tm->used[i];
        for (int k = 0; k < t->nlabels; k++)
            seen |= strcmp(t->label[k], tm->label[i]) == 0;
        if (!seen && t->nlabels < FCL_TIMERS_MAX)
            t->label[t->nlabels++] = tm->label[i];
    }
}

/* The row labels' column: at least LABEL_W, and as wide as the longest
 * solver statistic with its unit and fold ("control particles
 * (largest)", 27) in the table print_table makes ("viscosity CG
 * iterations", 23, once pushed its values out of line). */
enum { LABEL_W = 25 };
static int label_w = LABEL_W;

static void solver_row_label(const fcl_stat_decl *d, char *row, size_t len)
{
    /* "largest face speed" says its fold already */
    int mean = d->fold == FCL_FOLD_MEAN || (d->fold == FCL_FOLD_MAX && strncmp(d->label, "largest", 7) == 0);
    snprintf(row, len, "%s%s%s%s%s%s", d->label, d->unit[0] ? " " : "", d->unit, mean ? "" : " (",
             mean ? "" : solver_fold_word(d->fold), mean ? "" : ")");
}

/* The native column's wall ms per step, the speedup's reference; 0 when
 * there is none (--backend opencl). */
static double native_wall_ms(const bench_table *t)
{
    double ms = 0.0;
    for (int c = 0; c < t->ncols; c++)
        if (strcmp(t->col[c].backend, "cpu") == 0)
            ms = t->col[c].wall_ms;
    return ms;
}

/* Short column heads: "cpu" or "ocl:N" with N as in `fluidcl devices`. */
static void head(const bench_table *t, int c, char *out, size_t len)
{
    if (t->col[c].device_index < 0)
        snprintf(out, len, "cpu");
    else
        snprintf(out, len, "ocl:%d", t->col[c].device_index);
}

/* --mesh: the reconstruction of each column's final state ("-" where a
 * column has none), then the passes of its median reconstruction. */
static void print_mesh_rows(const bench_table *t)
{
    bench_table passes;
    memset(&passes, 0, sizeof passes);
    for (int c = 0; c < t->ncols; c++)
        if (t->col[c].meshed)
            add_labels(&passes, &t->col[c].mesh_timers);
    /* Only the passes a reconstruction ran (the reset kept every label). */
    int kept = 0;
    for (int l = 0; l < passes.nlabels; l++) {
        double sum = 0.0;
        for (int c = 0; c < t->ncols; c++)
            sum += t->col[c].meshed ? timers_get(&t->col[c].mesh_timers, passes.label[l]) : 0.0;
        if (sum > 0.0)
            passes.label[kept++] = passes.label[l];
    }
    passes.nlabels = kept;
    if (!passes.nlabels)
        return;
    const char *rows[] = { "surface ms (med3)", "surface triangles", "surface cell (mm)", "surface phi nodes" };
    for (int r = 0; r < 4 + passes.nlabels; r++) {
        char row[64];
        snprintf(row, sizeof row, "%s%s", r < 4 ? rows[r] : "  ", r < 4 ? "" : passes.label[r - 4]);
        printf("%-*s", label_w, row);
        for (int c = 0; c < t->ncols; c++) {
            const bench_col *b = &t->col[c];
            if (!b->meshed)
                printf(" %12s", "-");
            else if (r == 1 || r == 3)
                printf(" %12zu", r == 1 ? b->mesh_tris : b->mesh_nodes);
            else if (r < 4)
                printf(" %12.4f", r == 0 ? b->mesh_ms : 1e3 * b->mesh_cell);
            else
                printf(" %12.4f", timers_get(&b->mesh_timers, passes.label[r - 4]));
        }
        printf("\n");
    }
}

/* One row per statistic the solver declares (solver.h). */
/* The solver's statistics over the timed steps: a mean per step unless
 * the label says otherwise ("solves cut short (total)" stood beside the
 * per-step means unmarked), whole numbers in full (70602 control
 * particles, not 7.06e+04), as run's summary gives them (a review). */
static void print_solver_rows(const bench_table *t)
{
    for (int k = 0; t->solver && k < t->solver->nstats; k++) {
        char row[96];
        solver_row_label(&t->solver->stats[k], row, sizeof row);
        printf("%-*s", label_w, row);
        for (int c = 0; c < t->ncols; c++) {
            double v = stat_fold_value(&t->col[c].solver_fold, t->solver, k);
            printf(out_whole(v) ? " %12.0f" : " %12.4g", v);
        }
        printf("\n");
    }
}

/* Kernel launches and blocking host reads per step: the fixed costs a
 * GPU adds outside the pass times (an H200 spent 16 of the MAC drop's
 * 209 ms per step at 256^3 there). Native and PoCL count the same but
 * for the grid's scan; a GPU's scans, CG check interval and MPS
 * preconditioner differ (README, Performance). */
static void print_sync_rows(const bench_table *t)
{
    const char *rows[2] = { "launches/step", "host reads/step" };
    for (int r = 0; r < 2; r++) {
        printf("%-*s", label_w, rows[r]);
        for (int c = 0; c < t->ncols; c++) {
            const bench_col *b = &t->col[c];
            printf(" %12.1f", (double)(r ? b->timers.reads : b->timers.launches) / (double)b->steps);
        }
        printf("\n");
    }
}

/* Whether a column's pass timers sum to under 1 % of its wall time: an
 * OpenCL device whose profiling events do not cover its kernels (rusticl
 * gave 2e-5 ms of a 10.3 ms step, a table of zeros without a word; a
 * review). Launches, reads and the host's work leave more than that on
 * every device measured (PoCL 23 %, the native backend 85 %, on 125
 * particles). */
static int timers_unusable(const bench_col *b)
{
    return b->steps > 0 && b->wall_ms > 0.0 && timers_total(&b->timers) / (double)b->steps < 0.01 * b->wall_ms;
}

static void print_table(const bench_table *t)
{
    char h[32], row[96];
    label_w = LABEL_W;
    for (int k = 0; t->solver && k < t->solver->nstats; k++) {
        solver_row_label(&t->solver->stats[k], row, sizeof row);
        label_w = (int)strlen(row) + 1 > label_w ? (int)strlen(row) + 1 : label_w;
    }
    printf("\n%-*s", label_w, "pass (ms/step)");
    for (int c = 0; c < t->ncols; c++) {
        head(t, c, h, sizeof h);
        printf(" %12s", h);
    }
    printf("\n");
    for (int l = 0; l < t->nlabels; l++) {
        printf("%-*s", label_w, t->label[l]);
        for (int c = 0; c < t->ncols; c++)
            printf(" %12.4f", timers_get(&t->col[c].timers, t->label[l]) / (double)t->col[c].steps);
        printf("\n");
    }
    double cpu_wall = native_wall_ms(t);
    const char *rows[] = { "sum of passes", "wall ms/step", "particle-steps/s", "speedup vs cpu",
                           "mean dt (ms)", "ms per sim second", "avg density err %", "max density err %" };
    for (int r = 0; r < 8; r++) {
        if (r == 3 && !(cpu_wall > 0))   /* no native column (--backend opencl): nothing to compare with */
            continue;
        printf("%-*s", label_w, rows[r]);
        for (int c = 0; c < t->ncols; c++) {
            const bench_col *b = &t->col[c];
            double st = (double)b->steps;
            double v[8] = { timers_total(&b->timers) / st, b->wall_ms, b->psteps * 1e3 / (b->wall_ms * (double)b->steps),
                            cpu_wall > 0 ? cpu_wall / b->wall_ms : 0.0, 1e3 * b->sim_time / st,
                            b->sim_time > 0 ? b->wall_ms * st / b->sim_time : 0.0, b->sum_avg_err / st,
                            b->max_err };
            if (r >= 6 && t->solver && t->solver->no_density)
                printf(" %12s", "n/a");
            else
                printf(r == 2 || r == 5 ? " %12.4g" : " %12.4f", v[r]);
        }
        printf("\n");
    }
    print_sync_rows(t);
    print_solver_rows(t);
    print_mesh_rows(t);
    printf("\n");
    for (int c = 0; c < t->ncols; c++) {
        head(t, c, h, sizeof h);
        const bench_col *b = &t->col[c];
        if (b->n == b->n_end)
            printf("%-6s = %s, %zu particles, %ld steps\n", h, b->device, b->n, b->steps);
        else   /* emitters or outflows: the mean is the one the rate divides by (it said 0 for a filling scene) */
            printf("%-6s = %s, %.0f particles on average (%zu to %zu), %ld steps\n", h, b->device,
                   b->psteps / (double)b->steps, b->n, b->n_end, b->steps);
    }
    for (int c = 0; c < t->ncols; c++) {
        const bench_col *b = &t->col[c];
        char what[32];
        head(t, c, h, sizeof h);
        snprintf(what, sizeof what, "bench column %s", h);
        corewait_note(what, b->backend, b->core_wait_pct, corewait_threads(b->backend));
        if (timers_unusable(b))
            fprintf(stderr, "fluidcl: note: %s: its passes' timers sum to %.3g ms of a %.3g ms step (under 1 %%): the "
                    "device's profiling timestamps do not cover its kernels (Mesa's rusticl 22 reads so), so its pass "
                    "rows are not its times (its wall time stands)\n", what, timers_total(&b->timers) / (double)b->steps,
                    b->wall_ms);
    }
}

/* The table's file: what the table shows, and how the run was set up
 * (--from, the --param overrides; it recorded neither, nor the speedup;
 * a review). */
static int write_json(const bench_table *t, const fcl_scene *sc, const fcl_cli *cl, const char *path)
{
    cJSON *root = cJSON_CreateObject(), *cols = cJSON_AddArrayToObject(root, "backends");
    cJSON_AddStringToObject(root, "scene", sc->file);
    cJSON_AddStringToObject(root, "solver", sc->params.sim_solver);
    if (cl->from)
        cJSON_AddStringToObject(root, "from", cl->from);
    else
        cJSON_AddNullToObject(root, "from");
    cJSON *ov = cJSON_AddArrayToObject(root, "params");
    for (int i = 0; i < cl->noverrides; i++)
        cJSON_AddItemToArray(ov, cJSON_CreateString(cl->overrides[i]));
    /* Which program and which kernel sources (README's before/after
     * tables alternate --kernel-dir, and their files read alike). */
    cJSON_AddStringToObject(root, "version", FCL_VERSION);
    if (cl->kernel_dir)
        cJSON_AddStringToObject(root, "kernel_dir", cl->kernel_dir);
    else
        cJSON_AddNullToObject(root, "kernel_dir");
    /* How each solver statistic folds over the timed steps. */
    cJSON *folds = cJSON_AddObjectToObject(root, "solver_stat_folds");
    for (int k = 0; t->solver && k < t->solver->nstats; k++)
        cJSON_AddStringToObject(folds, t->solver->stats[k].key, solver_fold_word(t->solver->stats[k].fold));
    double cpu_wall = native_wall_ms(t);
    for (int c = 0; c < t->ncols; c++) {
        const bench_col *b = &t->col[c];
        cJSON *o = cJSON_CreateObject(), *passes = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "backend", b->backend);
        cJSON_AddStringToObject(o, "device", b->device);
        cJSON_AddNumberToObject(o, "device_index", b->device_index);
        cJSON_AddNumberToObject(o, "particles", b->steps > 0 ? b->psteps / (double)b->steps : (double)b->n);
        cJSON_AddNumberToObject(o, "particles_start", (double)b->n);
        cJSON_AddNumberToObject(o, "particles_end", (double)b->n_end);
        cJSON_AddNumberToObject(o, "steps", (double)b->steps);
        cJSON_AddNumberToObject(o, "warmup_steps", (double)b->warmup);
        cJSON_AddNumberToObject(o, "start_time_s", b->t_start);
        for (int l = 0; l < b->timers.count; l++)
            if (b->timers.used[l])   /* not a setup pass's 0 */
                cJSON_AddNumberToObject(passes, b->timers.label[l], b->timers.ms[l] / (double)b->steps);
        cJSON_AddItemToObject(o, "ms_per_step", passes);
        cJSON_AddNumberToObject(o, "sum_of_passes_ms", timers_total(&b->timers) / (double)b->steps);
        cJSON_AddBoolToObject(o, "pass_timers_unusable", timers_unusable(b));
        cJSON_AddNumberToObject(o, "wall_ms_per_step", b->wall_ms);
        cJSON_AddNumberToObject(o, "launches_per_step", (double)b->timers.launches / (double)b->steps);
        cJSON *runs = cJSON_CreateObject();   /* which passes launch most: the GPU's fixed cost by pass */
        for (int l = 0; l < b->timers.count; l++)
            if (b->timers.runs[l])
                cJSON_AddNumberToObject(runs, b->timers.label[l], (double)b->timers.runs[l] / (double)b->steps);
        cJSON_AddItemToObject(o, "launches_by_pass", runs);
        cJSON_AddNumberToObject(o, "host_reads_per_step", (double)b->timers.reads / (double)b->steps);
        if (b->core_wait_pct >= 0.0)   /* unknown as null, as the JSON's other unknowns */
            cJSON_AddNumberToObject(o, "core_wait_pct", b->core_wait_pct);
        else
            cJSON_AddNullToObject(o, "core_wait_pct");
        cJSON_AddNumberToObject(o, "particle_steps_per_s", b->psteps * 1e3 / (b->wall_ms * (double)b->steps));
        if (cpu_wall > 0)
            cJSON_AddNumberToObject(o, "speedup_vs_cpu", cpu_wall / b->wall_ms);
        else
            cJSON_AddNullToObject(o, "speedup_vs_cpu");
        cJSON_AddNumberToObject(o, "mean_dt_s", b->sim_time / (double)b->steps);
        cJSON_AddNumberToObject(o, "ms_per_simulated_s", b->sim_time > 0 ? b->wall_ms * b->steps / b->sim_time : 0);
        if (t->solver && t->solver->no_density) {
            cJSON_AddNullToObject(o, "avg_density_error_pct");
            cJSON_AddNullToObject(o, "max_density_error_pct");
        } else {
            cJSON_AddNumberToObject(o, "avg_density_error_pct", b->sum_avg_err / (double)b->steps);
            cJSON_AddNumberToObject(o, "max_density_error_pct", b->max_err);
        }
        for (int k = 0; t->solver && k < t->solver->nstats; k++)
            cJSON_AddNumberToObject(o, t->solver->stats[k].key, stat_fold_value(&b->solver_fold, t->solver, k));
        if (b->meshed) {
            cJSON_AddNumberToObject(o, "surface_ms_median_of_3", b->mesh_ms);
            cJSON_AddNumberToObject(o, "surface_triangles", (double)b->mesh_tris);
            cJSON_AddNumberToObject(o, "surface_cell_m", b->mesh_cell);
            cJSON_AddNumberToObject(o, "surface_phi_nodes", (double)b->mesh_nodes);
            if (strcmp(sc->params.surface_method, "levelset") == 0) {
                cJSON_AddNumberToObject(o, "surface_ls_iterations", b->mesh_ls_iters);
                cJSON_AddBoolToObject(o, "surface_ls_continued", b->mesh_ls_continued);
                cJSON_AddBoolToObject(o, "surface_ls_converged", b->mesh_ls_converged);
                cJSON_AddBoolToObject(o, "surface_ls_stalled", b->mesh_ls_stalled);
            }
            cJSON *mp = cJSON_AddObjectToObject(o, "surface_ms_per_pass");
            for (int l = 0; mp && l < b->mesh_timers.count; l++)   /* those it ran, as the table */
                if (b->mesh_timers.ms[l] > 0.0)
                    cJSON_AddNumberToObject(mp, b->mesh_timers.label[l], b->mesh_timers.ms[l]);
        }
        cJSON_AddItemToArray(cols, o);
    }
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    fcl_atomic a;
    char err[8600] = "";
    int ok = text && atomic_open(&a, path, 0, err, sizeof err) == 0;
    if (ok)
        ok = atomic_commit(&a, fputs(text, a.fp) >= 0 && fputc('\n', a.fp) != EOF, 0, err, sizeof err) == 0;
    free(text);
    if (!ok)
        cli_error("--json %s: %s", path, err[0] ? err : "out of memory");
    return ok ? 0 : FCL_EXIT_DEVICE;
}

/* Whether OpenCL device d is one --device asks for, by run's rules
 * (clrt_matches: "1" once matched the "avx512" in device 0's name here). */
static int device_wanted(const fcl_cli *o, int d, const clrt_device *devs)
{
    return !o->device || clrt_matches(&devs[d], d, o->device);
}

/* The columns to run: the native CPU backend, then each OpenCL device (or
 * those --device names: one that names none is refused before any work).
 * Returns the first failure's code (the columns that ran stay in t). */
static int bench_all(const fcl_scene *sc, const fcl_cli *o, long steps, bench_table *t)
{
    int want_cpu = strcmp(o->backend, "cpu") == 0 || strcmp(o->backend, "all") == 0;
    int want_cl = strcmp(o->backend, "opencl") == 0 || strcmp(o->backend, "all") == 0;
    if (!want_cpu && !want_cl) {
        cli_error("--backend '%s': expected cpu, opencl or all", o->backend);
        return FCL_EXIT_INPUT;
    }
    clrt_device *devs = NULL;
    int count = want_cl ? clrt_devices(&devs) : 0, matched = 0, rc = 0;
    for (int d = 0; d < count; d++)
        matched += device_wanted(o, d, devs);
    /* No device at all first: then --device names nothing to match. */
    if (want_cl && count == 0) {
        /* --device or --kernel-dir asked for OpenCL: its column is what was
         * wanted, and the native one alone with exit 0 passed for it (a
         * review: a broken driver gave CPU figures to a script). */
        if (!want_cpu || o->device || o->kernel_dir) {
            cli_error("%s: no OpenCL device found (see 'fluidcl devices')", !want_cpu ? "--backend opencl"
                      : o->device ? "--device" : "--kernel-dir");
            free(devs);
            return FCL_EXIT_DEVICE;
        }
        fprintf(stderr, "fluidcl: bench: no OpenCL device found: the native backend's column only (see 'fluidcl "
                "devices')\n");
    } else if (want_cl && o->device && matched == 0) {
        cli_error("--device '%s': no OpenCL device matches (see 'fluidcl devices')", o->device);
        free(devs);
        return FCL_EXIT_INPUT;
    }
    if (want_cpu) {
        rc = bench_one(sc, "cpu", NULL, o, steps, &t->col[t->ncols]);
        t->ncols += rc == 0;
    }
    for (int d = 0; rc == 0 && d < count && t->ncols < MAX_COLS; d++) {
        char idx[16];
        snprintf(idx, sizeof idx, "%d", d);
        if (device_wanted(o, d, devs) && (rc = bench_one(sc, "opencl", idx, o, steps, &t->col[t->ncols])) == 0)
            t->ncols++;
    }
    free(devs);
    for (int c = 0; c < t->ncols; c++)
        add_labels(t, &t->col[c].timers);
    return rc ? rc : t->ncols ? 0 : FCL_EXIT_DEVICE;
}

int cmd_bench(int argc, char **argv)
{
    fcl_cli o;
    fcl_scene sc;
    int rc = cli_parse(&o, argc, argv, FCL_CMD_BENCH);
    if (rc == 0 && o.help) {
        cli_help(stdout, FCL_CMD_BENCH);
        return 0;
    }
    signal(SIGXFSZ, SIG_IGN);   /* a file-size limit is a write error (exit 3), as for run */
    /* The table's file must take a file before any work is done. */
    if (rc == 0 && o.json && (rc = cli_check_not_input(&o, "--json", o.json, 0)) == 0)
        rc = cli_probe_file("--json", o.json);   /* leaves a file there as it was */
    if (rc != 0 || (rc = cli_scene(&o, &sc)) != 0)
        return rc;
    if (o.json && (rc = cli_check_not_mesh(&sc, "--json", o.json)) == 0 && !cli_replaceable(o.json, "{\"backends\"")) {
        cli_error("--json %s: exists and is not a bench table (it does not start {\"backends\"), which is all "
                  "--json replaces; expected a new file name", o.json);
        rc = FCL_EXIT_INPUT;
    }
    if (rc != 0) {
        scene_free(&sc);
        return rc;
    }
    long steps = o.steps > 0 ? o.steps : 20;
    /* bench writes no frames: an output setting given here does nothing
     * (it was taken without a word; a review). Once, naming the first. */
    const char *kv;
    if ((kv = cli_first_override(&o, "output.")) != NULL)
        fprintf(stderr, "fluidcl: bench: note: --param %s does nothing here: bench writes no frames (run does)\n", kv);
    /* Nor does a surface setting without --mesh (a review). */
    if (!o.mesh && (kv = cli_first_override(&o, "surface.")) != NULL)
        fprintf(stderr, "fluidcl: bench: note: --param %s does nothing here: bench times no surface without --mesh\n",
                kv);
    /* Nor does the run's length: bench times --steps (sim.steps=7 timed
     * 20 steps without a word; a review). */
    for (int i = 0; i < o.noverrides; i++)
        if (params_sets(o.overrides[i], FCL_P_sim_steps) || params_sets(o.overrides[i], FCL_P_sim_duration)) {
            fprintf(stderr, "fluidcl: bench: note: --param %s does nothing here: bench times --steps (%ld)\n",
                    o.overrides[i], steps);
            break;
        }
    char err[512];
    if (o.mesh && mc_method_check(&sc.params, 0, err, sizeof err) != 0) {
        cli_error("%s: %s", sc.file, err);
        scene_free(&sc);
        return FCL_EXIT_INPUT;
    }
    bench_table *t = calloc(1, sizeof *t);
    if (!t)
        return FCL_EXIT_DEVICE;
    t->solver = solver_find(sc.params.sim_solver);
    rc = bench_all(&sc, &o, steps, t);
    if (t->ncols > 0) {   /* after a failure, the columns that ran, and no --json file */
        printf("fluidcl bench: %s, solver %s%s\n", sc.file, sc.params.sim_solver,
               rc ? " (incomplete: a backend failed, see above)" : "");
        print_table(t);
    }
    if (rc == 0 && o.json)
        rc = write_json(t, &sc, &o, o.json);
    else if (rc != 0 && o.json && t->ncols > 0)
        cli_error("--json %s not written: not every backend ran", o.json);
    free(t);
    scene_free(&sc);
    return rc;
}
