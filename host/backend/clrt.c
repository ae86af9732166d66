/* clrt.c - OpenCL runtime helpers (see clrt.h). */
#include "clrt.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/fcl_types.h"
#include "embedded.h"
#include "infile.h"

const char *clrt_error_name(cl_int e)
{
#define E(x) case x: return #x;
    switch (e) {
    E(CL_SUCCESS) E(CL_DEVICE_NOT_FOUND) E(CL_DEVICE_NOT_AVAILABLE) E(CL_COMPILER_NOT_AVAILABLE)
    E(CL_MEM_OBJECT_ALLOCATION_FAILURE) E(CL_OUT_OF_RESOURCES) E(CL_OUT_OF_HOST_MEMORY)
    E(CL_PROFILING_INFO_NOT_AVAILABLE) E(CL_MEM_COPY_OVERLAP) E(CL_IMAGE_FORMAT_MISMATCH)
    E(CL_IMAGE_FORMAT_NOT_SUPPORTED) E(CL_BUILD_PROGRAM_FAILURE) E(CL_MAP_FAILURE)
    E(CL_MISALIGNED_SUB_BUFFER_OFFSET) E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    E(CL_COMPILE_PROGRAM_FAILURE) E(CL_LINKER_NOT_AVAILABLE) E(CL_LINK_PROGRAM_FAILURE)
    E(CL_DEVICE_PARTITION_FAILED) E(CL_KERNEL_ARG_INFO_NOT_AVAILABLE) E(CL_INVALID_VALUE)
    E(CL_INVALID_DEVICE_TYPE) E(CL_INVALID_PLATFORM) E(CL_INVALID_DEVICE) E(CL_INVALID_CONTEXT)
    E(CL_INVALID_QUEUE_PROPERTIES) E(CL_INVALID_COMMAND_QUEUE) E(CL_INVALID_HOST_PTR)
    E(CL_INVALID_MEM_OBJECT) E(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR) E(CL_INVALID_IMAGE_SIZE)
    E(CL_INVALID_SAMPLER) E(CL_INVALID_BINARY) E(CL_INVALID_BUILD_OPTIONS) E(CL_INVALID_PROGRAM)
    E(CL_INVALID_PROGRAM_EXECUTABLE) E(CL_INVALID_KERNEL_NAME) E(CL_INVALID_KERNEL_DEFINITION)
    E(CL_INVALID_KERNEL) E(CL_INVALID_ARG_INDEX) E(CL_INVALID_ARG_VALUE) E(CL_INVALID_ARG_SIZE)
    E(CL_INVALID_KERNEL_ARGS) E(CL_INVALID_WORK_DIMENSION) E(CL_INVALID_WORK_GROUP_SIZE)
    E(CL_INVALID_WORK_ITEM_SIZE) E(CL_INVALID_GLOBAL_OFFSET) E(CL_INVALID_EVENT_WAIT_LIST)
    E(CL_INVALID_EVENT) E(CL_INVALID_OPERATION) E(CL_INVALID_GL_OBJECT) E(CL_INVALID_BUFFER_SIZE)
    E(CL_INVALID_MIP_LEVEL) E(CL_INVALID_GLOBAL_WORK_SIZE) E(CL_INVALID_PROPERTY)
    E(CL_INVALID_IMAGE_DESCRIPTOR) E(CL_INVALID_COMPILER_OPTIONS) E(CL_INVALID_LINKER_OPTIONS)
    E(CL_INVALID_DEVICE_PARTITION_COUNT)
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
    default: return "unknown OpenCL error";
    }
#undef E
}

int clrt_ok(cl_int err, const char *what)
{
    if (err == CL_SUCCESS)
        return 1;
    fprintf(stderr, "fluidcl: %s failed: %s (%d)\n", what, clrt_error_name(err), (int)err);
    return 0;
}

const char *clrt_type_name(cl_device_type t)
{
    if (t & CL_DEVICE_TYPE_GPU) return "GPU";
    if (t & CL_DEVICE_TYPE_CPU) return "CPU";
    if (t & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
    return "other";
}

static void describe(clrt_device *d)
{
    char ext[8192] = "";
    clGetDeviceInfo(d->id, CL_DEVICE_NAME, sizeof d->name, d->name, NULL);
    clGetDeviceInfo(d->id, CL_DEVICE_VERSION, sizeof d->version, d->version, NULL);
    clGetDeviceInfo(d->id, CL_DEVICE_TYPE, sizeof d->type, &d->type, NULL);
    clGetDeviceInfo(d->id, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof d->compute_units, &d->compute_units, NULL);
    clGetDeviceInfo(d->id, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof d->global_mem, &d->global_mem, NULL);
    clGetDeviceInfo(d->id, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof d->max_alloc, &d->max_alloc, NULL);
    clGetDeviceInfo(d->id, CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext, NULL);
    clGetPlatformInfo(d->platform, CL_PLATFORM_NAME, sizeof d->platform_name, d->platform_name, NULL);
    d->gl_sharing = strstr(ext, "cl_khr_gl_sharing") != NULL;
}

int clrt_devices(clrt_device **out)
{
    cl_uint np = 0;
    cl_platform_id plats[16];
    *out = NULL;
    if (clGetPlatformIDs(16, plats, &np) != CL_SUCCESS || np == 0)
        return 0;
    int total = 0;
    clrt_device *devs = NULL;
    for (cl_uint p = 0; p < np && p < 16; p++) {
        cl_uint nd = 0;
        cl_device_id ids[64];
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 64, ids, &nd) != CL_SUCCESS)
            continue;
        clrt_device *grown = realloc(devs, sizeof *devs * (size_t)(total + (int)nd));
        if (!grown)
            break;
        devs = grown;
        for (cl_uint k = 0; k < nd && k < 64; k++) {
            clrt_device *d = &devs[total++];
            memset(d, 0, sizeof *d);
            d->platform = plats[p];
            d->id = ids[k];
            describe(d);
        }
    }
    *out = devs;
    return total;
}

static int contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return 1;
    }
    return n == 0;
}

int clrt_matches(const clrt_device *d, int index, const char *want)
{
    char *end;
    long idx = strtol(want, &end, 10);
    if (*want && *end == '\0')
        return idx == index;
    return contains_nocase(d->name, want) || contains_nocase(d->platform_name, want);
}

int clrt_choose(const clrt_device *devs, int count, const char *want, char *err, size_t errlen)
{
    if (count == 0) {
        snprintf(err, errlen,
                 "no OpenCL device found (is an ICD such as pocl-opencl-icd installed? --backend cpu runs without one)");
        return -1;
    }
    if (!want || !*want) {
        for (int i = 0; i < count; i++)
            if (devs[i].type & CL_DEVICE_TYPE_GPU)
                return i;
        for (int i = 0; i < count; i++)
            if (devs[i].type & CL_DEVICE_TYPE_CPU)
                return i;
        return 0;
    }
    char *end;
    long idx = strtol(want, &end, 10);
    if (*end == '\0') {
        if (idx >= 0 && idx < count)
            return (int)idx;
        snprintf(err, errlen, "--device %s: no such device (there are %d; see 'fluidcl devices')", want, count);
        return -1;
    }
    /* One device: a name that matches several is refused, unless one
     * of them is that name exactly ("l" took PoCL's "skylake" beside
     * rusticl's llvmpipe without a word, and two GPUs of one model are
     * told apart by index only; a review). */
    int first = -1, matches = 0;
    size_t at = 0;
    char list[512] = "";
    for (int i = 0; i < count; i++) {
        if (!clrt_matches(&devs[i], i, want))
            continue;
        if (strlen(devs[i].name) == strlen(want) && contains_nocase(devs[i].name, want))
            return i;
        first = first < 0 ? i : first;
        if (matches++ < 4 && at < sizeof list)
            at += (size_t)snprintf(list + at, sizeof list - at, "%s[%d] %s (%s)", matches > 1 ? ", " : "", i,
                                   devs[i].name, devs[i].platform_name);
    }
    if (matches == 1)
        return first;
    if (matches > 1)
        snprintf(err, errlen, "--device '%s': %d devices match: %s%s; give the index or more of the name (see "
                 "'fluidcl devices')", want, matches, list, matches > 4 ? ", ..." : "");
    else
        snprintf(err, errlen, "--device '%s': no device name matches (see 'fluidcl devices')", want);
    return -1;
}

/* The sources are read whole, whatever their size (--kernel-dir is the
 * user's own tree; input.max_file_mb bounds a scene's inputs, not this). */
#define KERNEL_SOURCE_MAX (SIZE_MAX / 2)

/* The program, in order (kernels/families.def, the one list the CPU
 * build and the embedding use too). */
static const char *const program_files[] = {
#define FAMILY(file) file,
#include "../../kernels/families.def"
#undef FAMILY
};
enum { NFILES = sizeof program_files / sizeof program_files[0] };

int clrt_check_sources(const char *kernel_dir, char *err, size_t errlen)
{
    for (int i = 0; i < NFILES; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", kernel_dir, program_files[i]);
        /* Checked, not opened: a FIFO there blocked fopen for good. */
        if (infile_check(path, KERNEL_SOURCE_MAX, "kernel source", err, errlen) != 0)
            return -1;
    }
    return 0;
}

/* The name compiler messages give file i: the file under --kernel-dir
 * where it was read from (a name #line can quote), else kernels/FILE. */
static void source_name(const char *kernel_dir, int i, char *out, size_t cap)
{
    if (kernel_dir && !strpbrk(kernel_dir, "\"\\\n"))
        snprintf(out, cap, "%s/%s", kernel_dir, program_files[i]);
    else
        snprintf(out, cap, "kernels/%s", program_files[i]);
}

/* Concatenate the program's files, each behind a #line directive so that
 * compiler messages name the file (source_name) and its line. first[i] is the line of the
 * whole source where file i's line 1 is, for compilers that ignore #line
 * (NVIDIA's names "<kernel>:LINE", see map_log). */
static char *program_source(const char *kernel_dir, long first[NFILES], char *err, size_t errlen)
{
    size_t total = 1, cap = 0;
    long line = 1;
    char *src = NULL;
    for (int i = 0; i < NFILES; i++) {
        size_t len = 0;
        char *owned = NULL, path[4096], why[4400] = "";
        const char *text;
        if (kernel_dir) {
            /* A regular file of sane size (a FIFO named as a source would
             * block the build): infile.h's one bounded read. */
            snprintf(path, sizeof path, "%s/%s", kernel_dir, program_files[i]);
            text = infile_read(path, KERNEL_SOURCE_MAX, "kernel source", &owned, &len, why, sizeof why) == 0 ? owned
                                                                                                              : NULL;
        } else {
            const fcl_embedded_file *f = embedded_find(fcl_embedded_kernels, fcl_embedded_kernel_count,
                                                       program_files[i]);
            text = f ? f->text : NULL;
            len = f ? f->len : 0;
            snprintf(path, sizeof path, "%s", program_files[i]);
        }
        if (!text) {
            if (why[0])
                snprintf(err, errlen, "%s", why);
            else
                snprintf(err, errlen, "kernel source %s is missing", program_files[i]);
            free(src);
            return NULL;
        }
        char head[4200], name[4120];
        source_name(kernel_dir, i, name, sizeof name);
        int hl = snprintf(head, sizeof head, "#line 1 \"%s\"\n", name);
        if (total + (size_t)hl + len + 1 > cap) {
            cap = (total + (size_t)hl + len + 1) * 2;
            char *grown = realloc(src, cap);
            if (!grown) {
                free(owned);
                free(src);
                snprintf(err, errlen, "out of memory");
                return NULL;
            }
            if (!src)
                grown[0] = '\0';
            src = grown;
        }
        memcpy(src + total - 1, head, (size_t)hl);
        memcpy(src + total - 1 + hl, text, len);
        first[i] = line + 1;
        line += 2;
        for (size_t k = 0; k < len; k++)
            line += text[k] == '\n';
        src[total - 1 + hl + len] = '\n';
        total += (size_t)hl + len + 1;
        src[total - 1] = '\0';
        free(owned);
    }
    return src;
}

/* The build log with every "<kernel>:LINE" (a compiler that ignores
 * #line, as NVIDIA's does) rewritten as FILE:LINE of that file
 * (source_name). Unchanged when nothing matches or memory runs out. */
static void map_log(char **log, const long first[NFILES], const char *kernel_dir)
{
    static const char tag[] = "<kernel>:";
    const size_t tl = sizeof tag - 1;
    size_t cap = strlen(*log) * 2 + 256, o = 0;
    char *out = malloc(cap);
    if (!out)
        return;
    for (const char *p = *log; *p;) {
        char *end;
        long n = strncmp(p, tag, tl) == 0 ? strtol(p + tl, &end, 10) : 0;
        int f = NFILES - 1;
        while (n > 0 && f > 0 && first[f] > n)
            f--;
        char name[4120];
        name[0] = '\0';
        if (n > 0 && n >= first[f])
            source_name(kernel_dir, f, name, sizeof name);
        if (name[0] && o + strlen(name) + 32 < cap) {
            o += (size_t)snprintf(out + o, cap - o, "%s:%ld", name, n - first[f] + 1);
            p = end;
        } else if (o + 2 < cap) {
            out[o++] = *p++;
        } else {
            break;
        }
    }
    out[o] = '\0';
    free(*log);
    *log = out;
}

cl_program clrt_build(cl_context ctx, cl_device_id dev, const char *kernel_dir, char **log,
                      char *err, size_t errlen)
{
    *log = NULL;
    long first[NFILES];
    char *src = program_source(kernel_dir, first, err, errlen);
    if (!src)
        return NULL;
    cl_int e;
    const char *s = src;
    cl_program prog = clCreateProgramWithSource(ctx, 1, &s, NULL, &e);
    free(src);
    if (e != CL_SUCCESS) {
        snprintf(err, errlen, "clCreateProgramWithSource failed: %s (%d)", clrt_error_name(e), (int)e);
        return NULL;
    }
    /* CPU devices get FCL_CPU_DEVICE: passes may then choose code that
     * suits a CPU (kernels/nlist.cl's branch-free collection). The tests
     * set FCL_OPENCL_GPU_CODE to run the GPU variants on a CPU device. */
    char opts[128];
    cl_device_type type = 0;
    clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    int cpu = (type & CL_DEVICE_TYPE_CPU) && !getenv("FCL_OPENCL_GPU_CODE");
    snprintf(opts, sizeof opts, "-cl-std=CL1.2 -DFCL_WG=%d%s", FCL_WG, cpu ? " -DFCL_CPU_DEVICE=1" : "");
    e = clBuildProgram(prog, 1, &dev, opts, NULL, NULL);
    if (e != CL_SUCCESS) {
        size_t n = 0;
        clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
        *log = calloc(n + 1, 1);
        if (*log) {
            clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, n, *log, NULL);
            map_log(log, first, kernel_dir);
        }
        snprintf(err, errlen, "building the OpenCL kernels failed: %s (%d)", clrt_error_name(e), (int)e);
        clReleaseProgram(prog);
        return NULL;
    }
    return prog;
}
