/* atomic.c - temporary, sync, rename (atomic.h), the checks before any
 * write (atomic_check, atomic_check_name), and what a signal during a
 * run's set-up removes (atomic_undo). */
#include "atomic.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a->path names, if it exists, must be a regular file: renaming the
 * temporary over anything else would replace it (a device such as
 * /dev/null, as root a node in /dev; a link, such as /dev/stdout, whose
 * target may be a file another process writes). */
static int check_target(const fcl_atomic *a, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(a->path, &st) != 0 || S_ISREG(st.st_mode))
        return 0;
    snprintf(err, errlen, "not a regular file (%s): fluidcl writes a file by renaming a finished temporary over it, "
             "which would replace it; expected a plain file name",
             S_ISLNK(st.st_mode) ? "a link" : S_ISDIR(st.st_mode) ? "a folder" : S_ISFIFO(st.st_mode) ? "a FIFO" : "a device");
    return -1;
}

int atomic_check_name(const char *path, char *err, size_t errlen)
{
    fcl_atomic a;
    snprintf(a.path, sizeof a.path, "%s", path);
    return check_target(&a, err, errlen);
}

int atomic_check(const char *path, char *err, size_t errlen)
{
    fcl_atomic a;
    snprintf(a.path, sizeof a.path, "%s", path);
    if (check_target(&a, err, errlen) != 0)
        return -1;
    const char *slash = strrchr(path, '/');
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash == path ? 1 : slash - path) : 1, slash ? path : ".");
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || access(dir, W_OK | X_OK) != 0) {
        snprintf(err, errlen, "cannot create '%s.tmp': %s", path,
                 stat(dir, &st) != 0 ? "no such folder" : (!S_ISDIR(st.st_mode) ? "not a folder" :
                 "the folder is not writable"));
        return -1;
    }
    return 0;
}

/* The temporaries open now and the folders made, by copies of their
 * names: a writer's struct may live anywhere, and the handler must not
 * follow pointers into memory being freed. A slot is filled before it
 * is marked live and unmarked before reuse. Past the slots' count a
 * name is simply not undone. */
enum { UNDO_SLOTS = 16 };
static char open_tmp[UNDO_SLOTS][4200], made_dir[UNDO_SLOTS][4096];
static volatile sig_atomic_t open_live[UNDO_SLOTS], made_count;

static void track_open(fcl_atomic *a)
{
    a->slot = -1;
    for (int k = 0; k < UNDO_SLOTS && a->slot < 0; k++)
        if (!open_live[k]) {
            memcpy(open_tmp[k], a->tmp, sizeof a->tmp);
            open_live[k] = 1;
            a->slot = k;
        }
}

void atomic_keep(fcl_atomic *a)
{
    if (a->slot >= 0)
        open_live[a->slot] = 0;
    a->slot = -1;
}

void atomic_made_dir(const char *dir)
{
    if (made_count < UNDO_SLOTS && strlen(dir) < sizeof made_dir[0]) {
        strcpy(made_dir[made_count], dir);
        made_count = made_count + 1;
    }
}

void atomic_settle(void)
{
    made_count = 0;
}

void atomic_undo(void)
{
    for (int k = 0; k < UNDO_SLOTS; k++)
        if (open_live[k])
            unlink(open_tmp[k]);
    for (int k = made_count - 1; k >= 0; k--)
        rmdir(made_dir[k]);   /* fails, as it should, on a folder that holds anything */
}

int atomic_open(fcl_atomic *a, const char *path, int unique, char *err, size_t errlen)
{
    memset(a, 0, sizeof *a);
    a->slot = -1;
    snprintf(a->path, sizeof a->path, "%s", path ? path : "");
    if (check_target(a, err, errlen) != 0)
        return -1;
    if (!unique) {
        snprintf(a->tmp, sizeof a->tmp, "%s.tmp", a->path);
        a->fp = fopen(a->tmp, "wb");
    } else {
        const char *slash = strrchr(a->path, '/');
        int dirlen = slash ? (int)(slash - a->path) : 1;
        snprintf(a->tmp, sizeof a->tmp, "%.*s/.tmp-XXXXXX", dirlen, slash ? a->path : ".");
        int fd = mkstemp(a->tmp);
        /* mkstemp makes the file private; what we write is not secret. */
        if (fd >= 0 && (fchmod(fd, 0644), (a->fp = fdopen(fd, "wb")) == NULL))
            close(fd);
    }
    if (!a->fp) {
        snprintf(err, errlen, "cannot create '%s': %s", a->tmp, strerror(errno));
        return -1;
    }
    track_open(a);
    return 0;
}

/* Makes the rename itself durable, where the file system allows. */
static void sync_parent_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash == path ? 1 : slash - path) : 1, slash ? path : ".");
    int fd = open(dir, O_RDONLY);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

int atomic_commit(fcl_atomic *a, int ok, int keep, char *err, size_t errlen)
{
    int rc = ok ? 0 : -1;
    if (!a->fp)
        return -1;
    if (ok && (fflush(a->fp) != 0 || fsync(fileno(a->fp)) != 0)) {
        snprintf(err, errlen, "write to '%s' failed: %s", a->tmp, strerror(errno));
        rc = -1;
    }
    if (fclose(a->fp) != 0 && rc == 0) {
        snprintf(err, errlen, "write to '%s' failed: %s", a->tmp, strerror(errno));
        rc = -1;
    }
    a->fp = NULL;
    if (rc == 0 && rename(a->tmp, a->path) != 0) {
        snprintf(err, errlen, "cannot rename '%s' into place: %s", a->tmp, strerror(errno));
        rc = -1;
    }
    if (rc == 0) {
        sync_parent_dir(a->path);
    } else if (!keep && unlink(a->tmp) != 0 && errno != ENOENT && ok) {
        /* The folder turned read-only between create and rename: the
         * partial file stays, under its temporary name, and is named. */
        size_t k = strlen(err);
        snprintf(err + k, errlen > k ? errlen - k : 0, "; the temporary '%s' could not be removed: %s", a->tmp,
                 strerror(errno));
    }
    atomic_keep(a);   /* renamed, removed, or kept as asked: no longer atomic_undo's */
    return rc;
}
