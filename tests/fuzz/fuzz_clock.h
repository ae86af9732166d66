/* fuzz_clock.h - the harnesses' limit of 1 s per input, in CPU time of the
 * running thread: libFuzzer's -timeout counts wall time, which a shared,
 * busy machine (a nice 19 fuzzer beside other jobs) inflates many times.
 * Invariant: an input that costs more than FUZZ_CPU_LIMIT seconds of CPU
 * aborts with a message, so libFuzzer saves it as a crash artifact.
 */
#ifndef FCL_FUZZ_CLOCK_H
#define FCL_FUZZ_CLOCK_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define FUZZ_CPU_LIMIT 1.0

static double fuzz_cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void fuzz_cpu_check(double start)
{
    double used = fuzz_cpu_now() - start;
    if (used > FUZZ_CPU_LIMIT) {
        fprintf(stderr, "fuzz: one input took %.3f s of CPU time (limit %.1f s)\n", used, FUZZ_CPU_LIMIT);
        abort();
    }
}

#endif
