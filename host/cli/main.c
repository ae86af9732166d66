/* main.c - the fluidcl command: subcommand dispatch, `devices` and `help`.
 * With no arguments it opens the viewer on the embedded default scene when
 * a display is available, and runs that scene headless otherwise.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "cli.h"
#include "clrt.h"
#include "embedded.h"
#include "params.h"
#include "rnd_probe.h"
#include "sim.h"
#include "solver.h"

static const char *default_scene = "embedded:dam_break.json";

static void usage(FILE *f)
{
    fprintf(f,
        "fluidcl - particle fluids on OpenCL (any device) with a native CPU twin\n\n"
        "usage:\n"
        "  fluidcl                       view the embedded default scene (%s),\n"
        "                                or run it headless when there is no display\n"
        "  fluidcl run SCENE [options]   simulate headless\n"
        "  fluidcl view SCENE [options]  interactive viewer: tuning panel, kernel hot reload,\n"
        "                                forces with the mouse, screenshots (keys: see README)\n"
        "  fluidcl bench SCENE [options] time every pass on every backend and device\n"
        "  fluidcl surface FRAME... --out DIR [--backend B] [--param group.name=value]\n"
        "                                surface meshes of saved particle frames (VTU, VTK or PLY);\n"
        "                                the spacing is the frame's unless --param particles.spacing\n"
        "                                gives one; particles.support must match the run\n"
        "  fluidcl devices               list OpenCL devices and the OpenGL renderer\n"
        "  fluidcl help [params|solvers|scenes|COMMAND]\n"
        "  fluidcl --version\n\n"
        "SCENE is a JSON file, or embedded:NAME.json for a scene built into the binary.\n\n"
        "options:\n", default_scene);
    cli_print_options(f, FCL_CMD_RUN | FCL_CMD_BENCH | FCL_CMD_VIEW, 1);
    view_print_options(f);
    fprintf(f, "\n'fluidcl run --help' (bench, view) lists one command's options.\n"
        "exit codes: 0 success, 2 bad input, 3 device or runtime failure\n");
}

static int cmd_devices(void)
{
    clrt_device *devs = NULL;
    int n = clrt_devices(&devs);
    if (n == 0)
        printf("no OpenCL device found (install an ICD, e.g. pocl-opencl-icd)\n");
    for (int i = 0; i < n; i++) {
        clrt_device *d = &devs[i];
        printf("[%d] %s\n    platform: %s\n    type: %s, %u compute units, %.0f MiB global memory "
               "(%.0f MiB per buffer), %s\n    cl_khr_gl_sharing: %s\n",
               i, d->name, d->platform_name, clrt_type_name(d->type), d->compute_units,
               d->global_mem / 1048576.0, d->max_alloc / 1048576.0, d->version,
               d->gl_sharing ? "yes" : "no");
    }
    free(devs);
    char gl[512];
    rnd_probe(gl, sizeof gl);
    printf("OpenGL: %s\n", gl);
    return n > 0 ? 0 : FCL_EXIT_DEVICE;
}

/* An embedded scene's line of 'help scenes': its name, its solver and
 * the first sentence of its description (names alone said little; a
 * scene without a description, or one the parser refuses, is named
 * alone: run reports what is wrong with it). */
static void print_scene(const fcl_embedded_file *f)
{
    cJSON *root = cJSON_ParseWithLength(f->text, f->len);
    const cJSON *sim = cJSON_GetObjectItemCaseSensitive(root, "sim");
    const cJSON *solver = cJSON_GetObjectItemCaseSensitive(sim, "solver");
    const cJSON *desc = cJSON_GetObjectItemCaseSensitive(root, "description");
    fcl_params p;
    params_defaults(&p);
    printf("embedded:%-29s %-6s", f->name, cJSON_IsString(solver) ? solver->valuestring : p.sim_solver);
    if (cJSON_IsString(desc)) {
        /* To the first ". " (a sentence's end; "0.5 m" has none), at most
         * 72 characters (a line of about 120), cut at a space. */
        const char *d = desc->valuestring, *end = strstr(d, ". ");
        size_t n = end ? (size_t)(end - d) + 1 : strlen(d);
        if (n > 72) {
            n = 69;
            while (n > 40 && d[n] != ' ')
                n--;
        }
        printf(" %.*s%s", (int)n, d, n < strlen(d) && d[n - 1] != '.' ? "..." : "");
    }
    putchar('\n');
    cJSON_Delete(root);
}

static int cmd_help(const char *topic)
{
    if (!topic) {
        usage(stdout);
    } else if (strcmp(topic, "params") == 0) {
        params_print_help(stdout);
    } else if (strcmp(topic, "solvers") == 0) {
        for (size_t i = 0; i < fcl_solver_count; i++)
            printf("%-8s %s\n", fcl_solvers[i]->name, fcl_solvers[i]->summary);
    } else if (strcmp(topic, "scenes") == 0) {
        /* The table also holds the meshes the scenes use; list scenes only. */
        for (size_t i = 0; i < fcl_embedded_scene_count; i++) {
            const char *name = fcl_embedded_scenes[i].name;
            size_t len = strlen(name);
            if (len > 5 && strcmp(name + len - 5, ".json") == 0)
                print_scene(&fcl_embedded_scenes[i]);
        }
    } else if (strcmp(topic, "devices") == 0) {
        printf("usage: fluidcl devices: list OpenCL devices (index, name, platform, memory) and the OpenGL "
               "renderer;\n--device N|NAME of run, bench and view picks one by index or name substring\n");
    } else {
        /* help COMMAND: that command's --help. */
        static const struct { const char *name; int (*fn)(int, char **); } cmds[] = {
            { "run", cmd_run }, { "bench", cmd_bench }, { "view", cmd_view }, { "surface", cmd_surface } };
        char *args[] = { (char *)"--help" };
        for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++)
            if (strcmp(topic, cmds[k].name) == 0)
                return cmds[k].fn(1, args);
        fprintf(stderr, "fluidcl: help '%s': expected params, solvers, scenes, run, bench, view, surface or "
                "devices\n", topic);
        return FCL_EXIT_INPUT;
    }
    return 0;
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        char *args[] = { (char *)default_scene };
        if (view_display_available())
            return cmd_view(1, args);
        fprintf(stderr, "fluidcl: no display: running %s headless, without output (fluidcl run SCENE --out DIR "
                "writes frames; 'fluidcl help' lists the commands)\n", default_scene);
        return cmd_run(1, args);
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        if (argc > 2) {
            fprintf(stderr, "fluidcl: %s: unexpected argument '%s'\n", cmd, argv[2]);
            return FCL_EXIT_INPUT;
        }
        printf("fluidcl %s\n", FCL_VERSION);
        return 0;
    }
    if (strcmp(cmd, "run") == 0)
        return cmd_run(argc - 2, argv + 2);
    if (strcmp(cmd, "view") == 0)
        return cmd_view(argc - 2, argv + 2);
    if (strcmp(cmd, "bench") == 0)
        return cmd_bench(argc - 2, argv + 2);
    if (strcmp(cmd, "surface") == 0)
        return cmd_surface(argc - 2, argv + 2);
    int help = strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0;
    if (strcmp(cmd, "devices") == 0 && argc == 3 && (strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0))
        return cmd_help("devices");
    if ((strcmp(cmd, "devices") == 0 && argc > 2) || (help && argc > 3)) {
        fprintf(stderr, "fluidcl: %s: unexpected argument '%s' (usage: %s)\n", cmd, argv[help ? 3 : 2],
                help ? "fluidcl help [params|solvers|scenes|COMMAND]" : "fluidcl devices");
        return FCL_EXIT_INPUT;
    }
    if (strcmp(cmd, "devices") == 0)
        return cmd_devices();
    if (help)
        return cmd_help(argc > 2 ? argv[2] : NULL);
    fprintf(stderr, "fluidcl: unknown command '%s'\n\n", cmd);
    usage(stderr);
    return FCL_EXIT_INPUT;
}

int main(int argc, char **argv)
{
    int rc = dispatch(argc, argv);
    /* Standard output carries run's summary, bench's table and the help: a
     * failed write (a full disk, /dev/full) lost them with exit 0 (a
     * review). */
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "fluidcl: writing to standard output failed%s%s\n", errno ? ": " : "",
                errno ? strerror(errno) : "");
        if (rc == 0)
            rc = FCL_EXIT_DEVICE;
    }
    return rc;
}
