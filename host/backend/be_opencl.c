/* be_opencl.c - the OpenCL backend: one context, one in-order profiling
 * queue and one program per device; kernels looked up by name and cached;
 * per-pass times from profiling events, folded in at finish(). The
 * viewer's extras (be_opencl.h): GL-sharing contexts, GL buffers as
 * backend buffers, program hot reload.
 * Invariant: every enqueued launch leaves one event in `pending` until the
 * next finish(), which releases it after reading its timestamps.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CL/cl_gl.h>

#include "../../kernels/fcl_types.h"
#include "backend.h"
#include "be_opencl.h"
#include "clrt.h"

/* MAX_KERNELS: room for every pass of passes.def (100) and the hand-written
 * kernels, used by all solvers on one backend (the tests run them all). */
enum { MAX_KERNELS = 256, MAX_PENDING = 4096, MAX_SCAN_LEVELS = 8, SCAN_CHUNK = 2048 };

struct fcl_buf {
    cl_mem mem;
    size_t bytes;
};

struct fcl_kernel {
    char name[64];
    cl_kernel k;
    size_t reqd_wg;     /* reqd_work_group_size, or 0 */
    size_t max_wg;      /* CL_KERNEL_WORK_GROUP_SIZE: the most this kernel takes on the device */
};

typedef struct cl_backend {
    fcl_backend base;   /* first, so fcl_backend* casts to cl_backend* */
    cl_context ctx;
    cl_command_queue q;
    cl_program prog;
    cl_device_id dev;
    struct fcl_kernel kernels[MAX_KERNELS];
    int nkernels;
    cl_event pending[MAX_PENDING];
    const char *pending_label[MAX_PENDING];
    int npending;
    fcl_buf *scan_sums[MAX_SCAN_LEVELS];  /* block sums per scan level */
    int cpu;            /* a CPU device (PoCL): see ocl_launch's group size */
    int wg_noted;       /* opencl.workgroup above a kernel's limit said */
} cl_backend;

static fcl_buf *ocl_buf_new(fcl_backend *be, size_t bytes, const char *what)
{
    cl_backend *b = (cl_backend *)be;
    fcl_buf *buf = calloc(1, sizeof *buf);
    cl_int e = CL_OUT_OF_HOST_MEMORY;
    char call[160];
    if (buf)
        buf->mem = clCreateBuffer(b->ctx, CL_MEM_READ_WRITE, bytes ? bytes : 16, NULL, &e);
    snprintf(call, sizeof call, "clCreateBuffer(%s, %zu bytes)", what, bytes);
    /* Zero-filled, like the CPU backend's buffers, so that state a solver
     * accumulates (warm starts) starts the same on both backends. */
    cl_uint zero = 0;
    if (clrt_ok(e, call)) {
        snprintf(call, sizeof call, "clEnqueueFillBuffer(%s)", what);
        e = clEnqueueFillBuffer(b->q, buf->mem, &zero, sizeof zero, 0, (bytes ? bytes : 16) / 4 * 4, 0, NULL, NULL);
    }
    if (!clrt_ok(e, call)) {
        if (buf && buf->mem)
            clReleaseMemObject(buf->mem);
        free(buf);
        return NULL;
    }
    buf->bytes = bytes;
    return buf;
}

static void ocl_buf_free(fcl_backend *be, fcl_buf *buf)
{
    (void)be;
    if (buf) {
        clReleaseMemObject(buf->mem);
        free(buf);
    }
}

static int ocl_buf_write(fcl_backend *be, fcl_buf *buf, size_t off, size_t bytes, const void *src)
{
    cl_backend *b = (cl_backend *)be;
    if (!bytes)
        return 0;
    return clrt_ok(clEnqueueWriteBuffer(b->q, buf->mem, CL_TRUE, off, bytes, src, 0, NULL, NULL),
                   "clEnqueueWriteBuffer") ? 0 : -1;
}

static int ocl_buf_read(fcl_backend *be, fcl_buf *buf, size_t off, size_t bytes, void *dst)
{
    cl_backend *b = (cl_backend *)be;
    if (!bytes)
        return 0;
    be->timers.reads++;
    return clrt_ok(clEnqueueReadBuffer(b->q, buf->mem, CL_TRUE, off, bytes, dst, 0, NULL, NULL),
                   "clEnqueueReadBuffer") ? 0 : -1;
}

/* A kernel's group sizes on the device: the one it was compiled for, and
 * the most it takes (a GPU's register use caps it below the device's
 * maximum: 512-736 estimated for the heaviest passes on an H100, where
 * opencl.workgroup takes up to 1024). */
static void kernel_limits(cl_backend *b, struct fcl_kernel *k)
{
    size_t wg[3] = { 0, 0, 0 }, most = 0;
    clGetKernelWorkGroupInfo(k->k, b->dev, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof wg, wg, NULL);
    if (clGetKernelWorkGroupInfo(k->k, b->dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof most, &most, NULL) != CL_SUCCESS)
        most = 0;
    k->reqd_wg = wg[0];
    k->max_wg = most;
}

/* opencl.workgroup for kernel k, within its limit: a multiple of 32 (a
 * GPU's warp) below it, said once (the launch failed with
 * CL_INVALID_WORK_GROUP_SIZE or CL_OUT_OF_RESOURCES). */
static size_t group_size(cl_backend *b, const struct fcl_kernel *k)
{
    size_t want = (size_t)b->base.workgroup;
    if (!want || !k->max_wg || want <= k->max_wg)
        return want;
    size_t got = k->max_wg >= 32 ? k->max_wg / 32 * 32 : k->max_wg;
    if (!b->wg_noted) {
        fprintf(stderr, "fluidcl: note: opencl.workgroup = %zu is above the %zu work items kernel %s takes on %s; "
                "such kernels run in groups of their limit (said once)\n", want, k->max_wg, k->name, b->base.name);
        b->wg_noted = 1;
    }
    return got;
}

static fcl_kernel *ocl_kernel(fcl_backend *be, const char *name)
{
    cl_backend *b = (cl_backend *)be;
    for (int i = 0; i < b->nkernels; i++)
        if (strcmp(b->kernels[i].name, name) == 0)
            return &b->kernels[i];
    if (b->nkernels == MAX_KERNELS) {
        fprintf(stderr, "fluidcl: kernel '%s': the OpenCL backend holds at most %d kernels (MAX_KERNELS)\n", name,
                MAX_KERNELS);
        return NULL;
    }
    cl_int e;
    struct fcl_kernel *k = &b->kernels[b->nkernels];
    char call[128];
    snprintf(call, sizeof call, "clCreateKernel(%s)", name);
    k->k = clCreateKernel(b->prog, name, &e);
    if (!clrt_ok(e, call))
        return NULL;
    kernel_limits(b, k);
    snprintf(k->name, sizeof k->name, "%s", name);
    b->nkernels++;
    return k;
}

/* Fold finished events into the timers and release them. */
static int drain_events(cl_backend *b)
{
    int ok = 1;
    for (int i = 0; i < b->npending; i++) {
        cl_ulong t0 = 0, t1 = 0;
        ok &= clrt_ok(clGetEventProfilingInfo(b->pending[i], CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL),
                      "clGetEventProfilingInfo(START)");
        ok &= clrt_ok(clGetEventProfilingInfo(b->pending[i], CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL),
                      "clGetEventProfilingInfo(END)");
        timers_add(&b->base.timers, b->pending_label[i], (double)(t1 - t0) * 1e-6);
        clReleaseEvent(b->pending[i]);
    }
    b->npending = 0;
    return ok ? 0 : -1;
}

static int ocl_finish(fcl_backend *be)
{
    cl_backend *b = (cl_backend *)be;
    if (!clrt_ok(clFinish(b->q), "clFinish"))
        return -1;
    return drain_events(b);
}

static int ocl_launch(fcl_backend *be, fcl_kernel *k, size_t items, const fcl_arg *args, int nargs,
                      const char *timer)
{
    cl_backend *b = (cl_backend *)be;
    char call[128];
    /* No work, no event; the pass is still named (at 0 ms), as the native
     * twin names it, so bench's tables and JSON list the same passes on
     * both backends (an empty emitter scene's listed none here; a review). */
    if (items == 0) {
        if (be->profile)
            timers_add(&be->timers, timer, 0.0);
        return 0;
    }
    for (int i = 0; i < nargs; i++) {
        cl_int e = args[i].buf ? clSetKernelArg(k->k, (cl_uint)i, sizeof(cl_mem), &args[i].buf->mem)
                               : clSetKernelArg(k->k, (cl_uint)i, args[i].size, args[i].val);
        snprintf(call, sizeof call, "clSetKernelArg(%s, %d)", k->name, i);
        if (!clrt_ok(e, call))
            return -1;
    }
    size_t local = k->reqd_wg ? k->reqd_wg : group_size(b, k);
    /* PoCL builds a kernel anew for every group size, and the size it
     * picks follows the global one: with particles coming from an emitter
     * each new count compiled again (a bench of the nozzle box: 150 ms a
     * step against 0.61 in the passes). On a CPU device 64 unless the
     * user sets opencl.workgroup: the dam break ran the same (README). */
    if (!local && b->cpu)
        local = 64;
    /* With the runtime choosing the group size, the global size is still
     * rounded up to a multiple of 64 (every pass ignores items past its
     * count): runtimes pick a divisor of it, and for a prime count (the 2,078,311
     * cell starts of MPS's 1M dam break) that was 1: clearing them took
     * 18.6 ms on PoCL and 2.5 ms on an H100 instead of a few hundredths. */
    size_t round = local ? local : 64;
    size_t global = (items + round - 1) / round * round;
    if (b->npending == MAX_PENDING && (!clrt_ok(clFinish(b->q), "clFinish") || drain_events(b) != 0))
        return -1;
    cl_event ev;
    snprintf(call, sizeof call, "clEnqueueNDRangeKernel(%s, %zu items)", k->name, items);
    if (!clrt_ok(clEnqueueNDRangeKernel(b->q, k->k, 1, NULL, &global, local ? &local : NULL, 0, NULL,
                                        be->profile ? &ev : NULL),
                 call))
        return -1;
    timers_launch(&be->timers, timer);
    if (be->profile) {
        b->pending[b->npending] = ev;
        b->pending_label[b->npending++] = timer;
    }
    return 0;
}

/* Scratch for one value per scan block at a given level. */
static fcl_buf *scan_sums(cl_backend *b, int level, size_t blocks)
{
    fcl_buf **sums = &b->scan_sums[level];
    if (!*sums || (*sums)->bytes < blocks * sizeof(cl_uint)) {
        ocl_buf_free(&b->base, *sums);
        *sums = ocl_buf_new(&b->base, blocks * sizeof(cl_uint) * 2, "scan block sums");
    }
    return *sums;
}

/* GPUs: multi-level work-efficient (Blelloch) scan. Scan blocks of
 * 2*FCL_WG elements in local memory writing one sum per block, scan the
 * sums the same way (recursively), then add each block's scanned sum back.
 * Any length works. */
static int scan_level(cl_backend *b, fcl_buf *data, size_t n, int level, const char *timer)
{
    size_t blocks = (n + 2 * FCL_WG - 1) / (2 * FCL_WG);
    fcl_buf *sums = level < MAX_SCAN_LEVELS ? scan_sums(b, level, blocks) : NULL;
    cl_uint nn = (cl_uint)n;
    fcl_arg args[3] = { FCL_BUF(data), FCL_BUF(sums), FCL_VAL(nn) };
    fcl_kernel *kb = ocl_kernel(&b->base, "scan_block"), *ka = ocl_kernel(&b->base, "scan_add");
    if (!sums || !kb || !ka || ocl_launch(&b->base, kb, blocks * FCL_WG, args, 3, timer) != 0)
        return -1;
    if (blocks == 1)
        return 0;
    if (scan_level(b, sums, blocks, level + 1, timer) != 0)
        return -1;
    return ocl_launch(&b->base, ka, blocks * FCL_WG, args, 3, timer);
}

/* CPU devices: at most FCL_WG chunks of at least SCAN_CHUNK elements, each
 * scanned serially, then offset by the chunks before it: two launches. */
static int scan_serial(cl_backend *b, fcl_buf *data, size_t n, const char *timer)
{
    size_t chunk = (n + FCL_WG - 1) / FCL_WG;
    chunk = chunk < SCAN_CHUNK ? SCAN_CHUNK : chunk;
    size_t blocks = (n + chunk - 1) / chunk;
    fcl_buf *sums = scan_sums(b, 0, blocks);
    cl_uint nn = (cl_uint)n, ch = (cl_uint)chunk;
    fcl_arg args[4] = { FCL_BUF(data), FCL_BUF(sums), FCL_VAL(nn), FCL_VAL(ch) };
    fcl_kernel *kc = ocl_kernel(&b->base, "scan_chunks"), *ka = ocl_kernel(&b->base, "scan_chunks_add");
    if (!sums || !kc || !ka || ocl_launch(&b->base, kc, blocks, args, 4, timer) != 0)
        return -1;
    return blocks > 1 ? ocl_launch(&b->base, ka, blocks, args, 4, timer) : 0;
}

static int ocl_scan(fcl_backend *be, fcl_buf *data, size_t n, const char *timer)
{
    if (n == 0) {
        if (be->profile)
            timers_add(&be->timers, timer, 0.0);
        return 0;
    }
    return be->serial_groups ? scan_serial((cl_backend *)be, data, n, timer)
                             : scan_level((cl_backend *)be, data, n, 0, timer);
}

static void ocl_destroy(fcl_backend *be)
{
    cl_backend *b = (cl_backend *)be;
    if (b->q)
        clFinish(b->q);
    drain_events(b);
    for (int i = 0; i < MAX_SCAN_LEVELS; i++)
        ocl_buf_free(be, b->scan_sums[i]);
    for (int i = 0; i < b->nkernels; i++)
        clReleaseKernel(b->kernels[i].k);
    if (b->prog) clReleaseProgram(b->prog);
    if (b->q) clReleaseCommandQueue(b->q);
    if (b->ctx) clReleaseContext(b->ctx);
    free(b);
}

static const fcl_backend_ops ocl_ops = {
    ocl_buf_new, ocl_buf_free, ocl_buf_write, ocl_buf_read, ocl_kernel,
    ocl_launch, ocl_scan, ocl_finish, ocl_destroy,
};

static int ocl_open(cl_backend *b, const clrt_device *d, const char *kernel_dir,
                    const cl_context_properties *props, char *err, size_t errlen)
{
    cl_int e;
    b->dev = d->id;
    b->ctx = clCreateContext(props, 1, &d->id, NULL, NULL, &e);
    if (e != CL_SUCCESS) {
        snprintf(err, errlen, "clCreateContext failed: %s (%d)", clrt_error_name(e), (int)e);
        return -1;
    }
    b->q = clCreateCommandQueue(b->ctx, d->id, CL_QUEUE_PROFILING_ENABLE, &e);
    if (e != CL_SUCCESS) {
        snprintf(err, errlen, "clCreateCommandQueue failed: %s (%d)", clrt_error_name(e), (int)e);
        return -1;
    }
    char *log = NULL;
    b->prog = clrt_build(b->ctx, d->id, kernel_dir, &log, err, errlen);
    if (!b->prog) {
        if (log)
            fprintf(stderr, "%s\n", log);
        free(log);
        return -1;
    }
    return 0;
}

fcl_backend *be_opencl_create_props(const char *device, const char *kernel_dir,
                                    const cl_context_properties *props, char *err, size_t errlen)
{
    clrt_device *devs = NULL;
    int count = clrt_devices(&devs);
    int pick = clrt_choose(devs, count, device, err, errlen);
    cl_backend *b = pick >= 0 ? calloc(1, sizeof *b) : NULL;
    if (pick >= 0 && !b)
        snprintf(err, errlen, "out of memory");
    if (b && ocl_open(b, &devs[pick], kernel_dir, props, err, errlen) != 0) {
        ocl_destroy(&b->base);
        b = NULL;
    }
    if (b) {
        b->base.ops = &ocl_ops;
        snprintf(b->base.kind, sizeof b->base.kind, "opencl");
        snprintf(b->base.name, sizeof b->base.name, "%s (OpenCL %s, %s)", devs[pick].name,
                 clrt_type_name(devs[pick].type), devs[pick].platform_name);
        b->base.mem_bytes = devs[pick].global_mem;
        b->base.serial_groups = (devs[pick].type & CL_DEVICE_TYPE_CPU) != 0;
        b->cpu = b->base.serial_groups;
        b->base.profile = 1;
        b->base.max_alloc = devs[pick].max_alloc;
    }
    free(devs);
    return b ? &b->base : NULL;
}

fcl_backend *be_opencl_create(const char *device, const char *kernel_dir, char *err, size_t errlen)
{
    return be_opencl_create_props(device, kernel_dir, NULL, err, errlen);
}

int be_opencl_is(const fcl_backend *be)
{
    return be && be->ops == &ocl_ops;
}

/* Kernels of the new program for every cached name, all or none: a
 * renamed or removed kernel fails the reload before anything changes. */
static int recreate_kernels(cl_backend *b, cl_program prog, cl_kernel *out, char *err, size_t errlen)
{
    for (int i = 0; i < b->nkernels; i++) {
        cl_int e;
        out[i] = clCreateKernel(prog, b->kernels[i].name, &e);
        if (e != CL_SUCCESS) {
            snprintf(err, errlen, "reloaded program lacks kernel '%s': %s (%d)", b->kernels[i].name,
                     clrt_error_name(e), (int)e);
            while (i-- > 0)
                clReleaseKernel(out[i]);
            return -1;
        }
    }
    return 0;
}

int be_opencl_reload(fcl_backend *be, const char *dir, char **log, char *err, size_t errlen)
{
    cl_backend *b = (cl_backend *)be;
    cl_kernel fresh[MAX_KERNELS];
    *log = NULL;
    cl_program prog = clrt_build(b->ctx, b->dev, dir, log, err, errlen);
    if (!prog)
        return -1;
    if (recreate_kernels(b, prog, fresh, err, errlen) != 0) {
        clReleaseProgram(prog);
        return -1;
    }
    /* Launches in flight hold the old kernels' arguments: let them end. */
    if (ocl_finish(be) != 0) {
        for (int i = 0; i < b->nkernels; i++)
            clReleaseKernel(fresh[i]);
        clReleaseProgram(prog);
        snprintf(err, errlen, "clFinish before swapping the program failed");
        return -1;
    }
    for (int i = 0; i < b->nkernels; i++) {
        clReleaseKernel(b->kernels[i].k);
        b->kernels[i].k = fresh[i];
        kernel_limits(b, &b->kernels[i]);
    }
    clReleaseProgram(b->prog);
    b->prog = prog;
    return 0;
}

fcl_buf *be_opencl_gl_buffer(fcl_backend *be, unsigned gl_buffer, size_t bytes, char *err, size_t errlen)
{
    cl_backend *b = (cl_backend *)be;
    fcl_buf *buf = calloc(1, sizeof *buf);
    cl_int e = CL_OUT_OF_HOST_MEMORY;
    if (buf)
        buf->mem = clCreateFromGLBuffer(b->ctx, CL_MEM_WRITE_ONLY, (cl_GLuint)gl_buffer, &e);
    if (e != CL_SUCCESS) {
        snprintf(err, errlen, "clCreateFromGLBuffer(GL buffer %u, %zu bytes) failed: %s (%d)", gl_buffer, bytes,
                 clrt_error_name(e), (int)e);
        free(buf);
        return NULL;
    }
    buf->bytes = bytes;
    return buf;
}

int be_opencl_gl_acquire(fcl_backend *be, fcl_buf *buf)
{
    cl_backend *b = (cl_backend *)be;
    return clrt_ok(clEnqueueAcquireGLObjects(b->q, 1, &buf->mem, 0, NULL, NULL), "clEnqueueAcquireGLObjects")
               ? 0 : -1;
}

int be_opencl_gl_release(fcl_backend *be, fcl_buf *buf)
{
    cl_backend *b = (cl_backend *)be;
    if (!clrt_ok(clEnqueueReleaseGLObjects(b->q, 1, &buf->mem, 0, NULL, NULL), "clEnqueueReleaseGLObjects"))
        return -1;
    return ocl_finish(be);
}
