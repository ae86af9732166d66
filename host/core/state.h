/* state.h - a simulation's whole state in one file, for restarts: every
 * sorted particle attribute (positions, velocities, ids and the solver's
 * own, such as DFSPH's warm-start values) in the current order, density
 * and pressure, step, time, the last step's statistics and the solver's
 * scalar state (its save/load hooks). The file names the format version,
 * the solver, the particle counts, the device that wrote it and the
 * parameters that enter the state (state.c's may_change skips those a
 * resumed run may change), and ends with a checksum.
 * Invariant: sim_state_load into a simulation created from the same scene
 * leaves it so that its next steps are bit-identical to those of the
 * simulation that saved (tests/test_solvers.c checks every solver).
 */
#ifndef FCL_STATE_H
#define FCL_STATE_H

#include <stddef.h>
#include <stdint.h>

struct fcl_sim;

/* Written atomically (io/atomic.h). 0, or -1 with err naming the file. */
int sim_state_save(struct fcl_sim *s, const char *path, char *err, size_t errlen);
/* s must have been created from the same scene and parameters (same
 * solver, particle and boundary counts). A damaged, truncated or
 * mismatched file is refused with err naming the file and what is wrong
 * (a parameter that differs is named with both values, one the file
 * lacks, from an older build, resumes at its default only; the output,
 * surface, sim.steps, sim.duration and boundary.cache_dir parameters may
 * differ, since they do not enter the state);
 * the checksum and the header are checked before anything in s changes,
 * so a damaged or truncated file, or one of another solver or particle
 * count, leaves s as it was. */
int sim_state_load(struct fcl_sim *s, const char *path, char *err, size_t errlen);

/* What a state file says about itself, read from its header without
 * checking the rest (sim_state_load does that): for messages, such as
 * noting that a run resumes on another device than the one that saved. */
typedef struct fcl_state_info {
    char solver[32];
    char device[320];
    size_t n;
    long step;      /* -1 where the file ends before it */
    double time;
} fcl_state_info;
int sim_state_info(const char *path, fcl_state_info *info, char *err, size_t errlen);
/* Whether path starts as a state file does (any version): what a
 * checkpoint may replace. */
int sim_state_is_file(const char *path);

/* 64-bit FNV-1a of n bytes continuing from h (FCL_FNV1A_BASIS to begin):
 * the boundary cache's key and the control targets' fingerprint. (The
 * state file's checksum starts from its own constant, kept so that
 * saved files still read.) */
#define FCL_FNV1A_BASIS 14695981039346656037ull
uint64_t fcl_fnv1a(uint64_t h, const void *p, size_t n);

#endif
