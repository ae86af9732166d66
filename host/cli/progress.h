/* progress.h - progress reporting for long runs, on stderr.
 *
 * On a terminal: one line redrawn in place (bar, percent, elapsed, ETA) at
 * most ~10 times a second. Otherwise (a log file, a pipe): a plain line at
 * each 10% and at the end, so logs stay short and greppable.
 * Invariant: a NULL label means quiet; nothing is ever printed.
 */
#ifndef FCL_PROGRESS_H
#define FCL_PROGRESS_H

#include <time.h>

typedef struct fcl_progress {
    char label[32];          /* copied; empty when quiet */
    int quiet;
    int tty;                 /* stderr is a terminal: redraw in place */
    int width;               /* terminal columns, so the line never wraps */
    long total;              /* steps; <= 0 means unknown */
    int per_mille;           /* done/total count thousandths of the simulated
                                time (a run for sim.duration), not steps */
    long done;
    struct timespec start;
    struct timespec last_draw;
    int drawn;               /* tty: a line is on screen; plain: last decile printed */
    int last_len;            /* tty: length of the line on screen, to blank leftovers */
    long last_printed;       /* plain: `done` of the last line printed, or -1 */
    char extra[96];          /* caller's latest extra text */
} fcl_progress;

/* Starts the clock. total: number of steps (<= 0 if unknown). */
void progress_start(fcl_progress *p, const char *label, long total);
/* done: steps completed so far. extra: short text like "t=0.12s 340k p-steps/s",
 * or NULL. Cheap to call every step: it rarely draws. */
void progress_update(fcl_progress *p, long done, const char *extra);
/* Draws the final state and ends the line. */
void progress_end(fcl_progress *p);

#endif
