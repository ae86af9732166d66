/* be_cpu.c - the native CPU backend: buffers in host memory, kernels from
 * cpu_kernels.c run with OpenMP, wall-clock timers with the same labels as
 * the OpenCL backend's profiling events.
 * Invariant: launches are synchronous, so a timer covers exactly its pass.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <unistd.h>

#include "be_cpu.h"

static fcl_buf *cpu_buf_new(fcl_backend *be, size_t bytes, const char *what)
{
    (void)be;
    fcl_buf *b = calloc(1, sizeof *b);
    size_t sz = (bytes + 63) / 64 * 64;
    if (b)
        b->ptr = aligned_alloc(64, sz ? sz : 64);
    if (!b || !b->ptr) {
        fprintf(stderr, "fluidcl: out of host memory allocating %zu bytes for %s\n", bytes, what);
        free(b);
        return NULL;
    }
    memset(b->ptr, 0, sz ? sz : 64);
    b->bytes = bytes;
    return b;
}

static void cpu_buf_free(fcl_backend *be, fcl_buf *b)
{
    (void)be;
    if (b)
        free(b->ptr);
    free(b);
}

static int cpu_buf_write(fcl_backend *be, fcl_buf *b, size_t off, size_t bytes, const void *src)
{
    (void)be;
    if (bytes)
        memcpy((char *)b->ptr + off, src, bytes);
    return 0;
}

static int cpu_buf_read(fcl_backend *be, fcl_buf *b, size_t off, size_t bytes, void *dst)
{
    if (bytes) {   /* counted as the OpenCL twin's blocking read */
        memcpy(dst, (const char *)b->ptr + off, bytes);
        be->timers.reads++;
    }
    return 0;
}

static fcl_kernel *cpu_kernel(fcl_backend *be, const char *name)
{
    (void)be;
    for (size_t i = 0; i < fcl_cpu_kernel_count; i++)
        if (strcmp(fcl_cpu_kernels[i].name, name) == 0)
            return (fcl_kernel *)&fcl_cpu_kernels[i];
    fprintf(stderr, "fluidcl: the CPU backend has no kernel '%s'\n", name);
    return NULL;
}

static int cpu_launch(fcl_backend *be, fcl_kernel *k, size_t items, const fcl_arg *args, int nargs,
                      const char *timer)
{
    (void)nargs;
    double t0 = omp_get_wtime();
    if (items) {
        k->fn(args, items);
        timers_launch(&be->timers, timer);
    }
    timers_add(&be->timers, timer, (omp_get_wtime() - t0) * 1e3);
    return 0;
}

/* Two-pass parallel exclusive scan: each thread sums its chunk, the chunk
 * sums are scanned serially, then each thread scans its chunk from its
 * offset. */
static int cpu_scan(fcl_backend *be, fcl_buf *data, size_t n, const char *timer)
{
    double t0 = omp_get_wtime();
    unsigned *d = data->ptr;
    int nt = omp_get_max_threads();
    unsigned sums[257] = { 0 };
    if (nt > 256)
        nt = 256;
#pragma omp parallel num_threads(nt)
    {
        int t = omp_get_thread_num(), T = omp_get_num_threads();
        size_t b = n * (size_t)t / (size_t)T, e = n * (size_t)(t + 1) / (size_t)T;
        unsigned s = 0;
        for (size_t i = b; i < e; i++)
            s += d[i];
        sums[t + 1] = s;
#pragma omp barrier
#pragma omp single
        for (int k = 1; k <= T; k++)
            sums[k] += sums[k - 1];
        s = sums[t];
        for (size_t i = b; i < e; i++) {
            unsigned v = d[i];
            d[i] = s;
            s += v;
        }
    }
    timers_launch(&be->timers, timer);   /* one parallel region */
    timers_add(&be->timers, timer, (omp_get_wtime() - t0) * 1e3);
    return 0;
}

static int cpu_finish(fcl_backend *be)
{
    (void)be;
    return 0;
}

static void cpu_destroy(fcl_backend *be)
{
    free(be);
}

static const fcl_backend_ops cpu_ops = {
    cpu_buf_new, cpu_buf_free, cpu_buf_write, cpu_buf_read, cpu_kernel,
    cpu_launch, cpu_scan, cpu_finish, cpu_destroy,
};

/* "model name" from /proc/cpuinfo, for tables that name the machine. */
static void cpu_model(char *out, size_t len)
{
    snprintf(out, len, "CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[256];
    while (f && fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && colon) {
            snprintf(out, len, "%s", colon + 2);
            out[strcspn(out, "\n")] = '\0';
            break;
        }
    }
    if (f)
        fclose(f);
}

/* A cgroup limit file's number (v2 "max" reads as none: infinity). */
static double limit_in(const char *dir, const char *file)
{
    char path[4400];
    double v = 0.0;
    snprintf(path, sizeof path, "/sys/fs/cgroup%s/%s", dir, file);
    FILE *f = fopen(path, "r");
    int got = f && fscanf(f, "%lf", &v) == 1 && v > 0.0;
    if (f)
        fclose(f);
    return got ? v : INFINITY;
}

/* The least memory limit on this process's cgroup and its ancestors, from
 * /proc/self/cgroup (v2's "0::PATH", v1's memory controller's line); the
 * root's files alone missed a limit set on a slice or a job's cgroup
 * outside a cgroup namespace (a review). */
static double cgroup_limit(void)
{
    double m = fmin(limit_in("", "memory.max"), limit_in("/memory", "memory.limit_in_bytes"));
    FILE *f = fopen("/proc/self/cgroup", "r");
    char line[4096], dir[4200];
    while (f && fgets(line, sizeof line, f)) {
        char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;
        if (!b)
            continue;
        b[strcspn(b, "\n")] = '\0';
        *b = '\0';   /* a + 1: the controllers (none in v2), b + 1: the path */
        int v2 = a[1] == '\0', v1 = !v2 && strstr(a + 1, "memory") != NULL;
        if (!v1 && !v2)
            continue;
        snprintf(dir, sizeof dir, "%s%s", v1 ? "/memory" : "", b + 1);
        size_t root = v1 ? strlen("/memory") : 0;
        for (size_t len = strlen(dir); len > root;) {   /* the cgroup, then each parent above the root */
            dir[len] = '\0';
            m = fmin(m, limit_in(dir, v2 ? "memory.max" : "memory.limit_in_bytes"));
            char *slash = strrchr(dir, '/');
            len = slash ? (size_t)(slash - dir) : 0;
        }
    }
    if (f)
        fclose(f);
    return m;
}

/* The memory this process may use: the RAM, or less under ulimit -v or -d
 * or a cgroup's limit on this process or an ancestor (cgroup_limit): the
 * up-front size checks (sim_check_fits) compare against it, so a scene too
 * large for a limit is refused naming what to change instead of failing
 * on an allocation, or being killed, minutes in (a review's 4 GB grid
 * under an 8 GB ulimit). */
size_t backend_host_memory(void)
{
    double m = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        m = fmin(m, (double)rl.rlim_cur);
    if (getrlimit(RLIMIT_DATA, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        m = fmin(m, (double)rl.rlim_cur);
    return fmin(m, cgroup_limit());
}

fcl_backend *be_cpu_create(char *err, size_t errlen)
{
    fcl_backend *be = calloc(1, sizeof *be);
    if (!be) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    char model[120];
    cpu_model(model, sizeof model);
    be->ops = &cpu_ops;
    snprintf(be->kind, sizeof be->kind, "cpu");
    snprintf(be->name, sizeof be->name, "%s (native, OpenMP %d threads)", model, omp_get_max_threads());
    be->mem_bytes = backend_host_memory();
    be->max_alloc = be->mem_bytes;
    be->serial_groups = 1;
    be->profile = 1;
    /* Where idle OpenMP threads sleep (OMP_WAIT_POLICY=passive, as the
     * tests run), waking them costs more than a small pass's work: MPS's
     * two-level preconditioner, whose V-cycle launches passes of a few
     * hundred cells, took test_mps past 10 minutes. Spinning threads
     * (the default) make forking cheap: every pass forks (MAC's 30^3
     * drop 9.5 against 10.0 ms a step with the threshold). */
    const char *wait = getenv("OMP_WAIT_POLICY");
    fcl_cpu_omp_min = wait && strcasecmp(wait, "passive") == 0 ? 4096 : 0;
    return be;
}
