/* test_corewait.c - the run-queue wait run and bench report (host/cli/
 * corewait.c), on loads this test makes itself, so that the figures hold
 * on a quiet machine and on a busy one alike:
 * - three times as many threads as cores, each busy for 0.6 s of wall
 *   time: two thirds of their time at least is spent waiting for a core
 *   (a third running, which a reading of the run time instead of the
 *   wait would give); measured 66.7 to 66.8 % alone and more beside other tests:
 *   the check asks for 50 to 100;
 * - one thread sleeping 0.3 s: sleeping is not waiting for a core;
 *   measured 0.0 %: under 10 asked;
 * - readings never go backwards, and the share of unknown readings is -1.
 * Skips where the kernel keeps no per-thread schedstat.
 */
#include <omp.h>
#include <time.h>
#include <unistd.h>

#include "corewait.h"
#include "fcl_test.h"

static void busy_until(double end)
{
    volatile double x = 0.0;
    while (omp_get_wtime() < end)
        x += 1.0;
}

static double busy_share(int threads)
{
    double w0 = corewait_seconds(), t0 = omp_get_wtime();
    double end = t0 + 0.6;
#pragma omp parallel num_threads(threads)
    busy_until(end);
    return corewait_pct(w0, corewait_seconds(), omp_get_wtime() - t0, threads);
}

int main(void)
{
    double a = corewait_seconds();
    if (a < 0) {
        printf("SKIP: /proc/self/task/N/schedstat is not available on this kernel\n");
        return 77;
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = 3 * (int)(cores > 0 ? cores : 1);
    double busy = busy_share(threads);
    printf("%d busy threads on %ld cores: %.1f %% of their time waiting for a core\n", threads, cores, busy);
    CHECK(busy >= 50 && busy <= 100, "%d threads on %ld cores waited %.1f %% (expected 50 to 100)", threads, cores,
          busy);

    double w0 = corewait_seconds(), t0 = omp_get_wtime();
    struct timespec ts = { 0, 300000000L };
    nanosleep(&ts, NULL);
    double idle = corewait_pct(w0, corewait_seconds(), omp_get_wtime() - t0, 1);
    printf("one thread asleep: %.1f %%\n", idle);
    CHECK(idle >= 0 && idle < 10, "a sleeping thread waited %.1f %% (expected under 10)", idle);

    double b = corewait_seconds();
    CHECK(b >= a, "readings went backwards: %g then %g", a, b);
    CHECK(corewait_pct(-1, b, 1, 1) == -1 && corewait_pct(a, b, 0, 1) == -1, "unknown readings give -1");
    CHECK(corewait_threads("cpu") == omp_get_max_threads(), "the native backend's threads are OpenMP's");
    return ft_done();
}
