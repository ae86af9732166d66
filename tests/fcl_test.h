/* fcl_test.h - the small harness shared by the C tests: checks that count
 * and print, the list of backends to run on, and a closing line that ctest
 * and CI read ("N passed, M failed"). A test whose needs the machine lacks
 * exits 77, which ctest reports as skipped.
 */
#ifndef FCL_TEST_H
#define FCL_TEST_H

#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend.h"

static int ft_pass, ft_fail;

#define CHECK(cond, ...)                                   \
    do {                                                   \
        if (cond) {                                        \
            ft_pass++;                                     \
        } else {                                           \
            ft_fail++;                                     \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);    \
            printf(__VA_ARGS__);                           \
            printf("\n");                                  \
        }                                                  \
    } while (0)

static inline int ft_done(void)
{
    printf("%d passed, %d failed\n", ft_pass, ft_fail);
    return ft_fail ? 1 : 0;
}

/* Backend i of the test matrix: 0 = native CPU, 1 = OpenCL: the device
 * FCL_TEST_DEVICE names (an index or a name substring, as --device takes
 * it; ctest runs the agreement tests once per implementation this way),
 * else the default (PoCL on a machine without a GPU). NULL when that
 * backend is not available, with the reason printed once: a skip when
 * there is no such device, a failure when there is one and it refuses
 * (a kernel that does not compile must not pass as a missing device). */
static inline fcl_backend *ft_backend(int i)
{
    char err[1024] = "";
    const char *dev = getenv("FCL_TEST_DEVICE");
    fcl_backend *be = i == 0 ? be_cpu_create(err, sizeof err)
                             : be_opencl_create(dev && *dev ? dev : NULL, NULL, err, sizeof err);
    int absent = i == 1 && (strstr(err, "no OpenCL device found") || strstr(err, "no such device") ||
                            strstr(err, "no device name matches"));
    if (!be && absent)
        printf("SKIP opencl backend: %s\n", err);
    else if (!be)
        CHECK(0, "the %s backend failed: %s", i == 0 ? "cpu" : "opencl", err);
    else if (i == 1)
        printf("OpenCL device: %s\n", be->name);
    return be;
}

/* Whether an OpenCL backend's program was built for a CPU device
 * (host/backend/clrt.c: FCL_CPU_DEVICE unless FCL_OPENCL_GPU_CODE asks
 * for the GPU build): then it has no fused multiply-adds, as the native
 * twins, and results may be asked to be the same bits; a GPU's FMAs move
 * them within a tolerance. */
static inline int ft_same_bits_expected(const fcl_backend *ocl)
{
    return strstr(ocl->name, "(OpenCL CPU") != NULL && !getenv("FCL_OPENCL_GPU_CODE");
}

/* Uniform random in [lo, hi) from a fixed-seed generator (reproducible). */
static inline float ft_rand(unsigned *state, float lo, float hi)
{
    *state = *state * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)((*state >> 8) & 0xffffff) / 16777216.0f;
}

/* rm -rf of a test's scratch folder. */
static inline void ft_remove_tree(const char *dir)
{
    DIR *dp = opendir(dir);
    struct dirent *e;
    char p[1024];
    while (dp && (e = readdir(dp)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
            ft_remove_tree(p);
        else
            unlink(p);
    }
    if (dp)
        closedir(dp);
    rmdir(dir);
}

/* A private X server for tests that open windows: Xvfb picks a free
 * display number and writes it to a pipe (-displayfd); DISPLAY is set to
 * it. Returns Xvfb's pid, or -1 with the reason printed (no Xvfb on the
 * PATH, or it did not start within 20 s). Stop it with ft_xvfb_stop. */
static inline pid_t ft_xvfb_start(void)
{
    int fds[2];
    char fdarg[16], num[32] = "";
    if (system("command -v Xvfb >/dev/null 2>&1") != 0) {
        printf("SKIP: no Xvfb on the PATH (Debian package xvfb)\n");
        return -1;
    }
    if (pipe(fds) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        snprintf(fdarg, sizeof fdarg, "%d", fds[1]);
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        /* -noreset: a server that resets when its last client leaves
         * refused the next test's window for a moment (test_view on CI:
         * "Failed to open display"). */
        execlp("Xvfb", "Xvfb", "-displayfd", fdarg, "-screen", "0", "1280x720x24", "-nolisten", "tcp", "-noreset",
               (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    /* Read up to the newline: Xvfb writes the number and the newline
     * separately, and dies if the pipe is closed in between. */
    struct pollfd pf = { fds[0], POLLIN, 0 };
    size_t got = 0;
    while (pid > 0 && got < sizeof num - 1 && poll(&pf, 1, 20000) == 1 && read(fds[0], num + got, 1) == 1 &&
           num[got] != '\n')
        got++;
    close(fds[0]);
    num[got] = '\0';
    if (got == 0) {
        printf("SKIP: Xvfb did not start\n");
        if (pid > 0) {
            kill(pid, SIGTERM);
            waitpid(pid, NULL, 0);
        }
        return -1;
    }
    char disp[40];
    snprintf(disp, sizeof disp, ":%s", num);
    setenv("DISPLAY", disp, 1);
    unsetenv("WAYLAND_DISPLAY");
    return pid;
}

/* A scratch folder /tmp/<prefix>_<pid> holding scene.json with text:
 * the folder's path into dir, the scene's into scene. 0, or -1 when the
 * scene cannot be written. */
static inline int ft_scratch_scene(const char *prefix, const char *text, char *dir, size_t dirlen, char *scene,
                                   size_t scenelen)
{
    snprintf(dir, dirlen, "/tmp/%s_%d", prefix, (int)getpid());
    mkdir(dir, 0777);
    snprintf(scene, scenelen, "%s/scene.json", dir);
    FILE *f = fopen(scene, "w");
    int ok = f && fputs(text, f) >= 0;
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok)
        printf("FAIL cannot write %s\n", scene);
    return ok ? 0 : -1;
}

static inline void ft_xvfb_stop(pid_t pid)
{
    if (pid > 0) {
        kill(pid, SIGTERM);
        waitpid(pid, NULL, 0);
    }
}

#endif
