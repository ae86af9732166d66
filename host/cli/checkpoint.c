/* checkpoint.c - `run`'s checkpoints (checkpoint.h): the file, when one
 * is due, resuming, and SIGINT/SIGTERM.
 * Invariant: the signal handler only records the signal (a second one,
 * half a second or more later, ends the process unwritten); every file
 * is written from the step loop, between steps, through the atomic writer.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "checkpoint.h"

#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>

#include "atomic.h"
#include "state.h"

static volatile sig_atomic_t received;
static volatile sig_atomic_t in_setup;  /* before ckpt_stepping: nothing to save */
static volatile double first_at;        /* when the first came (the handler's alone) */

/* The first SIGINT or SIGTERM asks for a checkpoint and a clean stop; a
 * second one more than half a second later ends a run whose step or
 * final write hangs. Closer ones are the same request delivered twice:
 * coreutils' timeout forwards a signal to its child and then to its
 * process group, and SA_RESETHAND let that second copy kill runs that had
 * already taken the first (test_restart failed that way under load). */
static void on_signal(int sig)
{
    /* Before the first step there is nothing to checkpoint, and set-up
     * polls no flag: a 10^8-sample obstacle's volumes ignored SIGTERM for
     * minutes (a review). write and _exit are async-signal-safe. */
    if (in_setup) {
        static const char msg[] = "fluidcl: stopped during set-up, before any step: no checkpoint to write\n";
        atomic_undo();   /* a cache's temporary, the new --out folder: nothing left behind */
        ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
        (void)w;
        _exit(128 + sig);
    }
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    double now = (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
    if (!received) {
        first_at = now;
        received = sig;
    } else if (now - first_at > 0.5) {
        _exit(128 + sig);
    }
}

void ckpt_signals(int setup)
{
    in_setup = setup;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    /* Restarted system calls: a signal during PoCL's kernel build made
     * its link fail ("Final linking of kernel grid_clear failed"). */
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGXFSZ, SIG_IGN);
}

void ckpt_stepping(void)
{
    in_setup = 0;
    atomic_settle();
}

int ckpt_signal(void)
{
    return (int)received;
}

int ckpt_setup(fcl_ckpt *c, const fcl_cli *o, const fcl_params *p)
{
    char err[1024];
    memset(c, 0, sizeof *c);
    c->last_step = -1;
    c->every = o->checkpoint_every > 0 ? o->checkpoint_every : 0;
    c->at_end = c->every > 0 || o->checkpoint != NULL;
    if (o->resume) {
        fcl_state_info info;
        if (sim_state_info(o->resume, &info, err, sizeof err) != 0) {
            cli_error("--resume %s", err);
            return FCL_EXIT_INPUT;
        }
    }
    if (o->checkpoint)
        snprintf(c->path, sizeof c->path, "%s", o->checkpoint);
    else if (p->output_every > 0 && p->output_dir[0])
        snprintf(c->path, sizeof c->path, "%s/checkpoint.state", p->output_dir);
    if (c->every > 0 && !c->path[0]) {
        if (p->output_dir[0])   /* it told a user who gave --out to give --out (a review) */
            cli_error("--checkpoint-every %ld: %s is not used when no frames go to it (output.every 0): give "
                      "--checkpoint FILE for the checkpoints", c->every, p->output_dir);
        else
            cli_error("--checkpoint-every %ld: give --checkpoint FILE or --out DIR for the checkpoints", c->every);
        return FCL_EXIT_INPUT;
    }
    /* DIR/checkpoint.state, and a --checkpoint in a DIR the run creates,
     * are probed with DIR, after the folder exists (prepare_outputs). */
    return o->checkpoint && !cli_in_new_dir(c->path, p) ? cli_probe_file("--checkpoint", c->path) : 0;
}

int ckpt_write(fcl_ckpt *c, fcl_sim *s, int force)
{
    char err[4600];
    if (!c->path[0] || s->step == c->last_step)
        return 0;
    if (!force && (c->every <= 0 || s->step % c->every != 0))
        return 0;
    if (sim_state_save(s, c->path, err, sizeof err) != 0) {
        cli_error("checkpoint at step %ld: %s", s->step, err);
        return FCL_EXIT_DEVICE;
    }
    c->last_step = s->step;
    return 0;
}

/* Whether devices a and b compute the same bits: the same name, or the
 * same CPU under the native backend with another OpenMP thread count,
 * which its fixed-order reductions do not see (a review resumed 1-thread
 * checkpoints with 2 threads: every frame of wcsph, dfsph, pbf and mps the
 * same bytes, where a note said they would not be). */
static int same_bits(const char *a, const char *b)
{
    const char *tag = " (native, OpenMP ", *ta = strstr(a, tag), *tb = strstr(b, tag);
    if (strcmp(a, b) == 0)
        return 1;
    return ta && tb && ta - a == tb - b && strncmp(a, b, (size_t)(ta - a)) == 0;
}

int ckpt_resume(fcl_sim *s, const char *file, int quiet)
{
    char err[1024];
    fcl_state_info info;
    if (sim_state_info(file, &info, err, sizeof err) != 0 || sim_state_load(s, file, err, sizeof err) != 0) {
        cli_error("--resume %s", err);
        return FCL_EXIT_INPUT;
    }
    if (!quiet)
        fprintf(stderr, "resuming %s: step %ld, t = %.6g s, %zu particles\n", file, s->step, s->time, s->n);
    if (!same_bits(info.device, s->be->name))
        fprintf(stderr, "fluidcl: note: %s was written on %s and resumes on %s: the run goes on, but not bit for bit as "
                "it would have there\n", file, info.device, s->be->name);
    return 0;
}
