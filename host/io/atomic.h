/* atomic.h - the one way fluidcl writes a file: into a temporary beside
 * it, then flushed, synced and renamed into place, so that a reader (or a
 * crash) never sees half a file and the newest complete file survives.
 * Frames, the CSV, meshes, screenshots, restart states and the boundary
 * cache all go through it.
 * Invariant: after atomic_commit, either the file at path is complete or
 * the path is untouched (its temporary removed, or kept when asked).
 */
#ifndef FCL_ATOMIC_H
#define FCL_ATOMIC_H

#include <stddef.h>
#include <stdio.h>

typedef struct fcl_atomic {
    FILE *fp;               /* write here */
    char path[4096];        /* the name asked for */
    char tmp[4200];         /* the temporary: "<path>.tmp" or a private one */
    int slot;               /* its place among the open ones (atomic_undo), -1: none */
} fcl_atomic;

/* Open the temporary for path (an existing path that is not a regular
 * file, such as a device or a link, is refused): "<path>.tmp", or with
 * unique a private
 * "<folder>/.tmp-XXXXXX" (mode 0644) for writers that may race (two runs
 * filling one cache). 0, or -1 with err "cannot create 'TMP': why". */
int atomic_open(fcl_atomic *a, const char *path, int unique, char *err, size_t errlen);
/* What atomic_open would refuse, checked without creating anything (a
 * temporary left by a killed run stays): path not a regular file, or its
 * folder missing or not writable. 0, or -1 with err. */
int atomic_check(const char *path, char *err, size_t errlen);
/* The name alone: an existing path that is not a regular file, for names
 * checked before their folder exists. 0, or -1 with err "not a regular
 * file (a link): ..." (the caller names the path). */
int atomic_check_name(const char *path, char *err, size_t errlen);
/* ok: flush, sync, close, rename into place and sync the folder (best
 * effort: some file systems refuse it, and the data is safe already).
 * Not ok, or any of that failing: close and remove the temporary, unless
 * keep (the CSV keeps its rows for a post-mortem). 0, or -1 with err:
 * "write to 'TMP' failed: why" or "cannot rename 'TMP' into place: why",
 * followed by "; the temporary 'TMP' could not be removed: why" when the
 * folder no longer lets it be removed (nothing is written to err when ok
 * was 0: the caller said why). */
int atomic_commit(fcl_atomic *a, int ok, int keep, char *err, size_t errlen);

/* What a run's set-up leaves behind when a signal ends it there: the
 * temporaries open at that moment (a cache half written, a statistics
 * file holding only its header) and the folders made since the last
 * atomic_settle (out_prepare_dir reports them with atomic_made_dir).
 * atomic_undo removes them, the folders newest first and only when
 * empty; it calls only unlink and rmdir, so a signal handler may call
 * it. atomic_keep exempts one temporary (rows a resumed run carried
 * over); atomic_settle forgets the folders (the run owns them now).
 * Registration is not thread-safe: files are opened by one thread. */
void atomic_keep(fcl_atomic *a);
void atomic_made_dir(const char *dir);
void atomic_settle(void);
void atomic_undo(void);

#endif
