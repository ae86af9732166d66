/* timers.h - per-pass timers keyed by label ("grid-count", "density", ...).
 * Both backends use the same labels so that bench tables line up.
 * Invariant: labels are kept in first-use order; ms is the sum over all
 * recorded launches since the last reset; launches and reads count the
 * kernels run (work items > 0) and the blocking host read-backs since
 * then, each a fixed cost on a GPU that no pass time shows, and runs[i]
 * the kernels run under label i (their sum is launches).
 */
#ifndef FCL_TIMERS_H
#define FCL_TIMERS_H

enum { FCL_TIMERS_MAX = 32 };

typedef struct fcl_timers {
    int count;
    const char *label[FCL_TIMERS_MAX];
    double ms[FCL_TIMERS_MAX];
    unsigned char used[FCL_TIMERS_MAX];   /* recorded since the last reset */
    long runs[FCL_TIMERS_MAX];            /* kernels run under each label */
    long launches, reads;
} fcl_timers;

void timers_add(fcl_timers *t, const char *label, double ms);
/* One kernel run (work items > 0) under label, counted in runs and
 * launches. */
void timers_launch(fcl_timers *t, const char *label);
void timers_reset(fcl_timers *t);
double timers_total(const fcl_timers *t);
double timers_get(const fcl_timers *t, const char *label);

#endif
