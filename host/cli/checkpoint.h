/* checkpoint.h - `run`'s checkpoints: which file, when one is due,
 * resuming from one, and the signals that end a run with a final one.
 * Invariant: a checkpoint is written only through sim_state_save (atomic),
 * so the file under the checkpoint's name is always a complete state of
 * some step; a failed write leaves the previous one in place.
 */
#ifndef FCL_CHECKPOINT_H
#define FCL_CHECKPOINT_H

#include "cli.h"
#include "sim.h"

typedef struct fcl_ckpt {
    char path[FCL_STR_MAX + 64];   /* "" when the run keeps none */
    long every;                    /* steps between checkpoints; 0: only at
                                      the end and on SIGINT/SIGTERM */
    long last_step;                /* the step of the newest one, -1: none */
    int at_end;                    /* asked for (--checkpoint or
                                      --checkpoint-every): also one at the
                                      end of the run */
} fcl_ckpt;

/* The checkpoint file: --checkpoint FILE, else DIR/checkpoint.state when
 * frames go to DIR (then a checkpoint is written on SIGINT/SIGTERM even
 * without --checkpoint-every). --checkpoint-every with neither, or a file
 * whose folder cannot be written, is bad input. With --resume, the
 * file's header is read here, so that a missing or foreign file is
 * refused before anything is written. 0 or FCL_EXIT_INPUT (printed). */
int ckpt_setup(fcl_ckpt *c, const fcl_cli *o, const fcl_params *p);
/* Writes one after step s->step when it is due (force: whenever there is
 * a file). 0 or FCL_EXIT_DEVICE (printed, naming the file). */
int ckpt_write(fcl_ckpt *c, fcl_sim *s, int force);
/* Loads file into s (created from the same scene); says on stderr what
 * it resumes and notes a different device. 0 or FCL_EXIT_INPUT
 * (printed: the file and what is wrong). */
int ckpt_resume(fcl_sim *s, const char *file, int quiet);
/* SIGINT and SIGTERM set a flag the step loop reads (ckpt_signal); a
 * second one ends the process at once, and so does the first while
 * `setup` holds (until ckpt_stepping: the set-up polls no flag). SIGXFSZ
 * is ignored, so a file over `ulimit -f` is a write error that is
 * reported, not a kill. */
void ckpt_signals(int setup);
/* The set-up is over: a signal now asks for a checkpoint and a stop. */
void ckpt_stepping(void);
/* The signal received since ckpt_signals, or 0. */
int ckpt_signal(void);

#endif
