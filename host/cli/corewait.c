/* corewait.c - run-queue wait of this process's threads (see corewait.h).
 * Invariant: a thread that ended between two readings takes its wait
 * with it, so the share can only be understated.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* sched_getaffinity, CPU_COUNT */
#endif
#include <dirent.h>
#include <sched.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "corewait.h"

enum { NOTE_PCT = 20 };

double corewait_seconds(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return -1.0;
    double ns = 0.0;
    int seen = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[64];
        snprintf(path, sizeof path, "/proc/self/task/%.20s/schedstat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;   /* the thread ended while we looked */
        unsigned long long run, wait;
        if (fscanf(f, "%llu %llu", &run, &wait) == 2) {
            ns += (double)wait;
            seen = 1;
        }
        fclose(f);
    }
    closedir(d);
    return seen ? ns * 1e-9 : -1.0;
}

double corewait_pct(double before, double after, double wall_s, int threads)
{
    if (before < 0 || after < 0 || !(wall_s > 0) || threads < 1)
        return -1.0;
    double pct = 100.0 * (after - before) / (wall_s * (double)threads);
    return pct < 0 ? 0.0 : pct > 100 ? 100.0 : pct;
}

int corewait_threads(const char *backend_kind)
{
    if (strcmp(backend_kind, "cpu") == 0)
        return omp_get_max_threads();
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* The cores this process may run on (taskset, cgroup cpusets), else the
 * online ones: a process pinned to one core of two said "other programs
 * shared the 2 cores" of its own two threads (a review). */
static long usable_cores(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    return sysconf(_SC_NPROCESSORS_ONLN);
}

void corewait_note(const char *what, const char *kind, double pct, int threads)
{
    if (pct < NOTE_PCT)
        return;
    long cores = usable_cores();
    char why[96];
    if (threads > cores)
        snprintf(why, sizeof why, "more threads than the %ld core%s it may use", cores, cores == 1 ? "" : "s");
    else
        snprintf(why, sizeof why, "other programs shared the %ld core%s it may use", cores, cores == 1 ? "" : "s");
    fprintf(stderr, "fluidcl: note: %s: its %d thread%s waited for a core %.0f %% of the time (%s), so its timings "
            "are not this machine's", what, threads, threads == 1 ? "" : "s", pct, why);
    const char *wait = getenv("OMP_WAIT_POLICY");
    /* One thread has no barrier to spin at. */
    if (strcmp(kind, "cpu") == 0 && threads > 1 && !(wait && strcasecmp(wait, "passive") == 0))
        fprintf(stderr, "; OpenMP threads spinning at barriers make it far slower: OMP_WAIT_POLICY=passive "
                "(README: Sharing the cores)");
    fprintf(stderr, "\n");
}
