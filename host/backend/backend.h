/* backend.h - the compute backend interface: buffers, kernels by name,
 * launches with a timer label, an exclusive scan, and a finish.
 *
 * Two backends implement it as twins: OpenCL (be_opencl.c, any device) and
 * native CPU (be_cpu.c, OpenMP). Kernels have the same names and arguments
 * on both, because both compile the same kernels/ (*.cl) sources; a solver is
 * written once against this interface and runs on either.
 * Invariant: a launch's arguments are exactly the __kernel's parameters in
 * order; buffers are opaque outside the backend that made them.
 */
#ifndef FCL_BACKEND_H
#define FCL_BACKEND_H

#include <stddef.h>

#include "timers.h"

typedef struct fcl_buf fcl_buf;
typedef struct fcl_kernel fcl_kernel;
typedef struct fcl_backend fcl_backend;

/* A kernel argument: a buffer, or a value copied at launch. */
typedef struct fcl_arg {
    fcl_buf *buf;
    const void *val;
    size_t size;
} fcl_arg;
#define FCL_BUF(b) ((fcl_arg){ (b), NULL, 0 })
#define FCL_VAL(v) ((fcl_arg){ NULL, &(v), sizeof(v) })
/* The count of an fcl_arg array, for launch (a hand-typed count could
 * drift from the list). */
#define FCL_NARGS(a) ((int)(sizeof(a) / sizeof((a)[0])))

typedef struct fcl_backend_ops {
    fcl_buf *(*buf_new)(fcl_backend *be, size_t bytes, const char *what);
    void (*buf_free)(fcl_backend *be, fcl_buf *b);
    int (*buf_write)(fcl_backend *be, fcl_buf *b, size_t off, size_t bytes, const void *src);
    int (*buf_read)(fcl_backend *be, fcl_buf *b, size_t off, size_t bytes, void *dst);
    fcl_kernel *(*kernel)(fcl_backend *be, const char *name);
    int (*launch)(fcl_backend *be, fcl_kernel *k, size_t items, const fcl_arg *args, int nargs,
                  const char *timer);
    /* In-place exclusive prefix sum of n uints. */
    int (*scan)(fcl_backend *be, fcl_buf *data, size_t n, const char *timer);
    /* Wait for all work and fold device timings into be->timers. */
    int (*finish)(fcl_backend *be);
    void (*destroy)(fcl_backend *be);
} fcl_backend_ops;

struct fcl_backend {
    const fcl_backend_ops *ops;
    char kind[16];          /* "cpu" or "opencl": what --backend names */
    char name[320];        /* human-readable device description */
    size_t mem_bytes;       /* memory the backend may use */
    size_t max_alloc;       /* largest single buffer */
    int workgroup;          /* particle-pass work-group size, 0 = auto */
    /* 1 on CPU devices (and the native backend): scans and reductions run
     * each group serially in one work-item, since local-memory barriers
     * cost a thread switch there; 0 on GPUs: work-group trees. Tests flip
     * it to check both variants on any device. */
    int serial_groups;
    /* OpenCL: 1 times every pass into `timers` with one profiling event
     * a launch; 0 creates none, for runs that never show pass times. The
     * native backend's wall-clock timers cost nothing and ignore it. */
    int profile;
    fcl_timers timers;
};

/* Backend selection, shared by run, bench and the tests. kind is "cpu" or
 * "opencl"; device is NULL (default: first GPU, else first CPU device), a
 * number, or a substring of the device name. kernel_dir, when set, loads
 * kernel sources from that folder instead of the embedded copies.
 * On failure returns NULL with a message in err. */
fcl_backend *backend_create(const char *kind, const char *device, const char *kernel_dir,
                            char *err, size_t errlen);
/* backend_create where the user asked for no backend (given 0: neither
 * --backend, --device nor --kernel-dir): OpenCL, or the native backend
 * with a note on stderr when the machine has no OpenCL device (run, view
 * and surface stopped there, exit 3, where bench went on natively; a
 * review). kernel_dir may still be set: the viewer's own source folder. */
fcl_backend *backend_create_default(const char *kind, int given, const char *device, const char *kernel_dir,
                                    char *err, size_t errlen);
fcl_backend *be_cpu_create(char *err, size_t errlen);
/* The host memory this process may use: the RAM, or less under ulimit -v
 * or -d or a cgroup's limit (the native backend's mem_bytes). */
size_t backend_host_memory(void);
fcl_backend *be_opencl_create(const char *device, const char *kernel_dir, char *err, size_t errlen);

static inline void backend_destroy(fcl_backend *be)
{
    if (be)
        be->ops->destroy(be);
}

#endif
