/* surface_cmd.c - `fluidcl surface FRAME... --out DIR`: surface meshes of
 * saved particle frames, and cli_write_surface, which `run --mesh` shares.
 * The particle spacing is the frame's own (frames record it), unless
 * --param particles.spacing overrides it.
 * Invariant: every frame is read and checked before anything is written,
 * so bad input (exit 2, a frame with no spacing from either source
 * included) leaves the output folder untouched; each mesh file appears
 * atomically (mesh_io.c).
 */
#include <omp.h>
#include <signal.h>
#include <sys/stat.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic.h"
#include "checkpoint.h"
#include "cli.h"
#include "infile.h"
#include "mc.h"
#include "output.h"
#include "params.h"
#include "sim.h"

void cli_warn_hollow(const char *name, size_t n, double spacing, const cli_mesh_info *m, const char *hint,
                     int *warned)
{
    double full = (double)n * spacing * spacing * spacing;
    if (n == 0 || *warned || (m->ntri > 0 && m->volume >= 0.01 * full))
        return;
    if (m->ntri == 0)
        fprintf(stderr, "fluidcl: warning: %s: the surface mesh of %zu particles is empty (%s); said once\n", name, n,
                hint);
    else
        fprintf(stderr, "fluidcl: warning: %s: the surface mesh of %zu particles encloses %.3g m^3, %.2g %% of their "
                "%.3g m^3 (n spacing^3): a speck of %zu triangles (%s); said once\n", name, n, m->volume,
                100.0 * m->volume / full, full, m->ntri, hint);
    *warned = 1;
}

void cli_warn_unsettled(const char *name, const mc_config *c, const mc_stats *st, int *warned)
{
    if (*warned || c->method != MC_METHOD_LEVELSET || st->ls_converged || st->ls_iterations == 0)
        return;
    float own = c->ls_binary ? MC_LS_RADIUS_BINARY : MC_LS_RADIUS_SMOOTH;
    char why[160] = "";
    if (fabsf(c->ls_radius - own) > 1e-6f)
        snprintf(why, sizeof why, "; the %s field at surface.ls_radius %g, not its own %g, can leave the front "
                 "jittering (0 takes its own)", c->ls_binary ? "binary" : "smooth", c->ls_radius, own);
    if (st->ls_stalled)
        fprintf(stderr, "fluidcl: warning: %s: the level set did not settle: its front jitters in place, the "
                "largest step of each of the last 3 x 16 iterations within 2 %% of %.3g cells (surface.ls_tolerance "
                "%g), so it stopped at iteration %d with that iterate, which more iterations would not settle%s; "
                "said once\n", name, st->ls_jitter, c->ls_tolerance, st->ls_iterations, why);
    else
        fprintf(stderr, "fluidcl: warning: %s: the level set did not settle in surface.ls_max_iterations = %d "
                "iterations: its front still moved %.3g cells in the last (surface.ls_tolerance %g), and the mesh "
                "is that iterate; raise surface.ls_max_iterations (a front moves at most half a cell an "
                "iteration)%s; said once\n", name, st->ls_iterations, st->ls_change, c->ls_tolerance, why);
    *warned = 1;
}

int cli_write_surface(mc_ctx *x, const mc_config *c, const mc_input *in, const char *base, const char *format,
                      cli_mesh_info *info, char *err, size_t errlen)
{
    mc_mesh m;
    char path[4096];
    double t0 = omp_get_wtime();
    int rc = mc_reconstruct_in(x, c, in, &m, err, errlen);
    info->ms = 1e3 * (omp_get_wtime() - t0);
    info->ntri = m.nt;
    info->volume = rc == 0 ? mc_mesh_volume(&m) : 0.0;
    int both = strcmp(format, "both") == 0;
    if (rc == 0 && (both || strcmp(format, "ply") == 0)) {
        snprintf(path, sizeof path, "%s.ply", base);
        rc = mesh_write_ply(path, &m, err, errlen) ? FCL_EXIT_DEVICE : 0;
    }
    if (rc == 0 && (both || strcmp(format, "obj") == 0)) {
        snprintf(path, sizeof path, "%s.obj", base);
        rc = mesh_write_obj(path, &m, err, errlen) ? FCL_EXIT_DEVICE : 0;
        /* A pair is both or neither: the PLY written beside a failed OBJ
         * stood alone (a review). */
        if (rc != 0 && both) {
            snprintf(path, sizeof path, "%s.ply", base);
            if (remove(path) == 0)
                snprintf(err + strlen(err), errlen - strlen(err), " (its .ply, just written, removed)");
        }
    }
    mc_mesh_free(&m);
    return rc;
}

typedef struct surf_opts {
    const char *out, *backend, *device, *kernel_dir;
    int quiet, nframes, help, backend_given;
    int spacing_given;       /* --param particles.spacing=... */
    char **frames;
    fcl_params prm;
} surf_opts;

/* The keys surface's --param takes: what reconstructing a saved frame
 * reads (sim.dt and the like were accepted and ignored). */
static int surface_key(const char *kv)
{
    static const char *const groups[] = { "surface.", "input." };
    for (size_t k = 0; k < sizeof groups / sizeof groups[0]; k++)
        if (strncmp(kv, groups[k], strlen(groups[k])) == 0)
            return 1;
    return params_sets(kv, FCL_P_particles_spacing) || params_sets(kv, FCL_P_particles_support);
}

static int parse(surf_opts *o, int argc, char **argv)
{
    char err[512];
    memset(o, 0, sizeof *o);
    params_defaults(&o->prm);
    o->frames = calloc((size_t)argc + 1, sizeof *o->frames);
    for (int i = 0; o->frames && i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        const char **slot = strcmp(a, "--out") == 0 ? &o->out : strcmp(a, "--backend") == 0 ? &o->backend
                          : strcmp(a, "--device") == 0 ? &o->device
                          : strcmp(a, "--kernel-dir") == 0 ? &o->kernel_dir : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            o->help = 1;
            return 0;
        } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
            o->quiet = 1;
        } else if (a[0] == '-' && a[1] && !slot && strcmp(a, "--param") != 0) {
            cli_error("surface: unknown option '%s' (see 'fluidcl surface --help')", a);
            return FCL_EXIT_INPUT;
        } else if (a[0] == '-' && a[1] && (!v || cli_is_option(v))) {
            cli_error("surface: %s needs a value%s%s", a, v ? ", not the option " : "", v ? v : "");
            return FCL_EXIT_INPUT;
        } else if (slot) {
            /* (--out m1 --out m2 wrote to m2; a review) */
            if (cli_once("surface", a, slot, argv[++i]) != 0)
                return FCL_EXIT_INPUT;
        } else if (strcmp(a, "--param") == 0) {
            if (!surface_key(argv[i + 1])) {
                cli_error("surface: --param %s: saved frames take surface.*, particles.spacing, particles.support and "
                          "input.* (the others belong to a simulation)", argv[i + 1]);
                return FCL_EXIT_INPUT;
            }
            if (params_assign(&o->prm, argv[++i], err, sizeof err) != 0) {
                cli_error("surface: %s", err);
                return FCL_EXIT_INPUT;
            }
            o->spacing_given |= params_sets(argv[i], FCL_P_particles_spacing);
        } else {
            o->frames[o->nframes++] = argv[i];
        }
    }
    o->backend_given = o->backend || o->device || o->kernel_dir;
    if (!o->backend)
        o->backend = "opencl";
    if (!o->frames || !o->nframes || !o->out) {
        cli_error("surface: give frames and --out DIR, e.g. 'fluidcl surface out/frame_*.vtu --out meshes'");
        return FCL_EXIT_INPUT;
    }
    return 0;
}

/* DIR/<frame name without folder and extension>.surface */
static void base_name(char *out, size_t len, const char *dir, const char *frame)
{
    const char *slash = strrchr(frame, '/'), *name = slash ? slash + 1 : frame, *dot = strrchr(name, '.');
    int stem = dot ? (int)(dot - name) : (int)strlen(name);
    snprintf(out, len, "%s/%.*s.surface", dir, stem, name);
}

/* The index of the input frame that path is (by device and inode, the
 * inputs' stat'ed once into in[], -1 dev for one that is not there), or
 * -1: a particle frame named like a mesh (x.surface.ply beside x.ply)
 * was replaced by x's mesh, with exit 0 (a review). */
static int input_named(const surf_opts *o, const struct stat *in, const char *path)
{
    struct stat a;
    if (stat(path, &a) != 0)
        return -1;
    for (int k = 0; k < o->nframes; k++)
        if (in[k].st_dev == a.st_dev && in[k].st_ino == a.st_ino)
            return k;
    return -1;
}

/* Two frames whose meshes would take one name (frame_000001.vtk and
 * .ply, or one name in two folders): the second would overwrite the
 * first. And a mesh's name that holds something other than a regular
 * file (a link, a folder): it was found when its frame's turn came,
 * after the meshes before it were written (exit 3). */
static int check_names(const surf_opts *o)
{
    char a[4200], b[4200], err[1024];
    static const char *const ext[] = { "ply", "obj" };
    struct stat *in = calloc((size_t)o->nframes + 1, sizeof *in);
    if (!in) {
        cli_error("surface: out of memory checking %d frames' mesh names", o->nframes);
        return FCL_EXIT_DEVICE;
    }
    for (int k = 0; k < o->nframes; k++)
        if (stat(o->frames[k], &in[k]) != 0)
            in[k].st_dev = (dev_t)-1;
    int rc = 0;
    long there = 0;
    char first[4200] = "";
    for (int i = 0; i < o->nframes && rc == 0; i++)
        for (int k = 0; k < 2; k++) {
            const char *f = o->prm.surface_format;
            if (strcmp(f, "both") != 0 && strcmp(f, ext[k]) != 0)
                continue;
            base_name(a, sizeof a, o->out, o->frames[i]);
            snprintf(b, sizeof b, "%s.%s", a, ext[k]);
            int same = -1;
            if (atomic_check_name(b, err, sizeof err) != 0) {
                cli_error("surface: --out: %s: %s", b, err);
                rc = FCL_EXIT_INPUT;
            } else if ((same = input_named(o, in, b)) >= 0) {
                cli_error("surface: the mesh of %s would be written as %s, which is the frame given as input %d: "
                          "it would be replaced; give another --out", o->frames[i], b, same + 1);
                rc = FCL_EXIT_INPUT;
            }
            if (rc != 0)
                break;
            if (access(b, F_OK) == 0 && there++ == 0)
                snprintf(first, sizeof first, "%s", b);
        }
    free(in);
    if (rc != 0)
        return rc;
    /* As run says of an earlier run's frames (a mesh by another method was
     * replaced without a word; a review). */
    if (there > 0)
        fprintf(stderr, "fluidcl: surface: note: %ld of the meshes this run writes are there already (%s%s): they "
                "are replaced\n", there, first, there > 1 ? ", ..." : "");
    for (int i = 0; i < o->nframes; i++)
        for (int j = 0; j < i; j++) {
            base_name(a, sizeof a, o->out, o->frames[i]);
            base_name(b, sizeof b, o->out, o->frames[j]);
            if (strcmp(a, b) == 0) {
                cli_error("surface: %s and %s would both be meshed as %s: give one of them (or separate runs "
                          "with different --out)", o->frames[j], o->frames[i], a);
                return FCL_EXIT_INPUT;
            }
        }
    return 0;
}

/* The spacing a frame is meshed with: the user's, else the frame's. */
static float frame_spacing(const surf_opts *o, const fcl_frame_data *d)
{
    return o->spacing_given ? o->prm.particles_spacing : (float)d->spacing;
}

/* Every frame readable and with a spacing; one note when the user's
 * spacing overrides a different recorded one. */
static int check_frames(const surf_opts *o)
{
    char err[1024];
    int differ = 0;
    if (mc_method_check(&o->prm, 1, err, sizeof err) != 0) {
        cli_error("surface: %s", err);
        return FCL_EXIT_INPUT;
    }
    for (int i = 0; i < o->nframes; i++) {
        fcl_frame_data d;
        if (infile_check(o->frames[i], infile_limit(&o->prm), "frame", err, sizeof err) != 0 ||
            out_read_frame(o->frames[i], &d, err, sizeof err) != 0) {
            cli_error("surface: %s", err);
            return FCL_EXIT_INPUT;
        }
        double sp = d.spacing;
        out_frame_free(&d);
        if (!o->spacing_given && !(sp > 0.0)) {
            cli_error("surface: %s: the frame does not record the particle spacing (written by an older "
                      "fluidcl): pass --param particles.spacing=... (the run's spacing)", o->frames[i]);
            return FCL_EXIT_INPUT;
        }
        /* The recorded spacing within particles.spacing's range, as a
         * --param would be (1e-5 meshed to nothing, 1e30 to a 5e29 m cell;
         * a review). Seven digits: a run at the range's 1e-4 records the
         * float 9.99999975e-05, below the double bound. */
        fcl_params scratch = o->prm;
        char as[96], key[64];
        snprintf(as, sizeof as, "%s=%.7g", params_key(FCL_P_particles_spacing, key, sizeof key), sp);
        if (!o->spacing_given && params_assign(&scratch, as, err, sizeof err) != 0) {
            cli_error("surface: %s: the spacing it records is refused: %s", o->frames[i], err);
            return FCL_EXIT_INPUT;
        }
        if (o->spacing_given && sp > 0.0 && (float)sp != o->prm.particles_spacing && differ++ == 0)
            fprintf(stderr, "fluidcl: surface: note: using --param particles.spacing=%g, not the spacing %g "
                    "recorded in %s%s\n", o->prm.particles_spacing, sp, o->frames[i],
                    o->nframes > 1 ? " (and in any other frame that differs)" : "");
    }
    return 0;
}

/* Frame i and the marching-cubes configuration it is meshed with (its
 * spacing); the message printed on failure. */
static int load_frame(const surf_opts *o, int i, fcl_frame_data *d, mc_config *c)
{
    char err[1024];
    if (out_read_frame(o->frames[i], d, err, sizeof err) != 0) {
        cli_error("surface: %s", err);
        return FCL_EXIT_INPUT;
    }
    fcl_params p = o->prm;
    p.particles_spacing = frame_spacing(o, d);
    mc_config_from_params(c, &p);
    return 0;
}

/* What each frame's reconstruction would refuse (a particle far from the
 * others makes a grid too large), found before anything is written. */
static int check_inputs(const surf_opts *o, mc_ctx *x)
{
    char err[1024];
    unsigned carried = 0, wanted = 0;   /* the frames' phases; surface.phases' */
    for (int i = 0; i < o->nframes; i++) {
        fcl_frame_data d;
        mc_config c;
        if (load_frame(o, i, &d, &c) != 0)
            return FCL_EXIT_INPUT;
        mc_input in = mc_input_host(d.pos, d.vel, d.n);
        const float *ph = out_frame_field(&d, "phase");
        for (size_t k = 0; k < d.n; k++)
            carried |= ph && ph[k] >= 0.0f && ph[k] < 32.0f ? 1u << (unsigned)ph[k] : 1u;
        wanted = c.phase_mask;
        int rc = mc_check_input(x, &c, &in, err, sizeof err);
        /* A frame's velocities must be finite (as bench --from wants them),
         * whatever the field: the anisotropic field and the level set read
         * them, and a NaN one gave an open mesh, and past 1e18 m/s (their
         * square overflows a float) no surface or a sliver, all with exit 0. */
        for (size_t k = 0; rc == 0 && d.vel && k < d.n; k++) {
            float4 v = d.vel[k];
            if (!(fabsf(v.x) <= 1e18f && fabsf(v.y) <= 1e18f && fabsf(v.z) <= 1e18f)) {
                snprintf(err, sizeof err, "particle %zu has the velocity (%g, %g, %g): expected finite numbers "
                         "within +-1e18 m/s", k, v.x, v.y, v.z);
                rc = FCL_EXIT_INPUT;
            }
        }
        out_frame_free(&d);
        if (rc != 0) {
            cli_error("surface: %s: %s", o->frames[i], err);
            return rc;
        }
    }
    /* A list naming no phase the frames carry meshes nothing (it did so
     * with exit 0, its warning pointing at surface.iso; a review). */
    if (wanted && !(wanted & carried)) {
        char have[96] = "";
        for (int k = 0; k < 32; k++)
            if (carried >> k & 1u)
                snprintf(have + strlen(have), sizeof have - strlen(have), "%s%d", have[0] ? ", " : "", k);
        cli_error("surface: surface.phases = '%s' names no phase the frames carry (theirs: %s)", o->prm.surface_phases,
                  have[0] ? have : "none");
        return FCL_EXIT_INPUT;
    }
    return 0;
}

/* The level set continues from the frame before: a frame earlier in time
 * than it starts afresh, noted (a shell sorts frame_1000000 before
 * frame_200000, and the level set was continued backwards in time; a
 * review). PLY frames carry no time: they continue as given, and the
 * frame after one is not compared. *prev: the time of the frame before,
 * NAN when it had none. */
static void check_order(const surf_opts *o, mc_ctx *x, const mc_config *c, int i, const fcl_frame_data *d,
                        double *prev)
{
    if (c->method == MC_METHOD_LEVELSET && i > 0 && d->has_time && d->time < *prev) {
        fprintf(stderr, "fluidcl: surface: note: %s (t = %g s) comes before the frame given ahead of it (t = %g s): "
                "its level set starts afresh; give the frames in time order (names past frame_999999 sort out of "
                "order)\n", o->frames[i], d->time, *prev);
        mc_forget(x);
    }
    *prev = d->has_time ? d->time : NAN;
}

static int reconstruct_all(const surf_opts *o, mc_ctx *x)
{
    char err[1024], base[4096];
    int empty_warned = 0, nothing_noted = 0, unsettled_warned = 0;
    double prev = NAN;
    for (int i = 0; i < o->nframes; i++) {
        fcl_frame_data d;
        mc_config c;
        cli_mesh_info mi;
        /* SIGINT or SIGTERM stops between meshes, each written one whole
         * (the default action, mid-write, left NAME.surface.ply.tmp). */
        int sig = ckpt_signal();
        if (sig) {
            cli_error("surface: stopped by %s after %d of %d meshes", sig == SIGINT ? "SIGINT" : "SIGTERM", i,
                      o->nframes);
            return 128 + sig;
        }
        if (load_frame(o, i, &d, &c) != 0)
            return FCL_EXIT_INPUT;
        check_order(o, x, &c, i, &d, &prev);
        base_name(base, sizeof base, o->out, o->frames[i]);
        mc_input in = mc_input_host(d.pos, d.vel, d.n);
        in.phase = out_frame_field(&d, "phase");
        int rc = cli_write_surface(x, &c, &in, base, o->prm.surface_format, &mi, err, sizeof err);
        if (rc != 0) {
            cli_error("surface: %s: %s", o->frames[i], err);
            out_frame_free(&d);
            return rc;
        }
        const mc_stats *st = &x->last;
        cli_warn_hollow(o->frames[i], d.n, c.spacing, &mi, mc_empty_hint(&o->prm), &empty_warned);
        /* A frame of no particles (a run's first frame before its emitter
         * opens) meshes to nothing: said once, --quiet or not (it was said
         * only in the progress line; a review). */
        if (d.n == 0 && !nothing_noted++)
            fprintf(stderr, "fluidcl: note: surface: %s holds no particles: its mesh is empty; said once\n",
                    o->frames[i]);
        cli_warn_unsettled(o->frames[i], &c, st, &unsettled_warned);
        double ms = mi.ms;
        size_t nt = mi.ntri;
        if (!o->quiet && d.n == 0) /* no field, no level set: nothing to say of either */
            printf("%s: 0 particles -> %zu triangles in %.1f ms (%s)\n", o->frames[i], nt, ms, x->be->kind);
        else if (!o->quiet && c.method == MC_METHOD_LEVELSET)
            printf("%s: %zu particles -> %zu triangles in %.1f ms (%s, level set, cell %.3g m, %s, %d iterations%s, "
                   "band %zu of %zu nodes; speed %.1f ms, iterations %.1f ms, marching cubes %.1f ms)\n",
                   o->frames[i], d.n, nt, ms, x->be->kind, st->node_cell,
                   st->ls_continued ? "continued" : "first frame", st->ls_iterations,
                   st->ls_converged ? "" : st->ls_stalled ? " (not converged: the front jitters in place)" : " (not converged)",
                   st->cells, st->nodes, st->ls_ms_speed,
                   st->ls_ms_iterate, st->ls_ms_mesh);
        else if (!o->quiet)
            printf("%s: %zu particles -> %zu triangles in %.1f ms (%s, cell %.3g m, field on %zu of %zu nodes)\n",
                   o->frames[i], d.n, nt, ms, x->be->kind, st->node_cell, st->cells, st->nodes);
        out_frame_free(&d);
    }
    return 0;
}

static void surface_help(void)
{
    printf("usage: fluidcl surface FRAME... --out DIR [options]: surface meshes of saved particle frames\n"
           "(VTU, VTK or PLY, as 'run --out' writes them), DIR/NAME.surface.ply|obj for FRAME NAME.EXT\n\n"
           "options:\n"
           "  --out DIR                     where the meshes go (made if missing)\n"
           "  --backend cpu|opencl          native C + OpenMP, or OpenCL (default)\n"
           "  --device N|NAME               OpenCL device by index or name substring\n"
           "  --kernel-dir DIR              load the OpenCL kernel sources from DIR\n"
           "  --param group.name=value      surface.* (see 'help params'); particles.spacing overrides\n"
           "                                the spacing the frames record\n"
           "  --quiet, -q                   no line per frame\n"
           "  --help, -h                    this list\n");
}

int cmd_surface(int argc, char **argv)
{
    surf_opts o;
    char err[1024] = "";
    int rc = parse(&o, argc, argv);
    if (rc == 0 && o.help) {
        surface_help();
        free(o.frames);
        return 0;
    }
    if (rc == 0 && cli_check_device_options("surface", o.backend, o.device, o.kernel_dir, 0) != 0)
        rc = FCL_EXIT_INPUT;
    /* A file-size limit is a write error (exit 3, the temporary removed),
     * not a kill, as for run; SIGINT and SIGTERM stop after a whole mesh
     * (ckpt_signals also ignores SIGXFSZ). */
    ckpt_signals(0);
    if (rc == 0)
        rc = check_frames(&o);
    if (rc == 0)
        rc = check_names(&o);
    fcl_backend *be = NULL;
    if (rc == 0 && !(be = backend_create_default(o.backend, o.backend_given, o.device, o.kernel_dir, err,
                                                          sizeof err))) {
        cli_error("%s", err);
        rc = strncmp(err, "--", 2) == 0 ? FCL_EXIT_INPUT : FCL_EXIT_DEVICE;
    }
    mc_ctx x;
    if (rc == 0 && mc_init(&x, be, err, sizeof err) != 0) {
        cli_error("%s", err);
        rc = FCL_EXIT_DEVICE;
    } else if (rc == 0) {
        rc = check_inputs(&o, &x);
        if (rc == 0 && out_prepare_dir(o.out, err, sizeof err) != 0) {
            cli_error("surface: --out: %s", err);
            rc = FCL_EXIT_INPUT;
        }
        if (rc == 0)
            rc = reconstruct_all(&o, &x);
        mc_free(&x);
    }
    backend_destroy(be);
    free(o.frames);
    return rc;
}
