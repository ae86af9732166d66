/* corewait.h - how long this process's threads waited for a core, so that
 * run and bench can say when their figures come from a shared machine.
 *
 * Other programs on the same cores slow every backend, and the native one
 * most: OpenMP threads that spin at barriers (libgomp's default) hold the
 * cores that their own process's late thread is queued for. Two runs at
 * once on 2 cores made mps's 300-step thin-box run 0.6 s -> 33 s; with
 * OMP_WAIT_POLICY=passive 0.66 s (README: Sharing the cores).
 * Invariant: reads /proc only; where it says nothing the wait is -1 and
 * nothing is reported.
 */
#ifndef FCL_COREWAIT_H
#define FCL_COREWAIT_H

/* Seconds this process's threads have spent runnable but not running
 * (the run-queue wait of /proc/self/task/N/schedstat, summed), or -1
 * where the kernel does not keep it. */
double corewait_seconds(void);

/* The share of `threads` threads' time over `wall_s` seconds spent
 * waiting for a core, in percent, from two corewait_seconds() readings;
 * -1 where either is unknown. */
double corewait_pct(double before, double after, double wall_s, int threads);

/* The threads a backend kind runs the simulation on: OpenMP's for the
 * native backend, the online cores otherwise (PoCL's pool; a GPU's
 * backend waits on its device, and its wait stays near 0). */
int corewait_threads(const char *backend_kind);

/* One note on stderr when `pct` (of the `threads` threads of backend kind
 * `kind`, `what` naming the run or a bench column) is 20 % or more; for
 * the native backend without passive waiting, it names the setting. */
void corewait_note(const char *what, const char *kind, double pct, int threads);

#endif
