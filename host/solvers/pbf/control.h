/* control.h - fluid control for the pbf solver (seed 001): control
 * particles on the device, their grid and the two cross lists, and the
 * launchers of kernels/control.cl that the PBF step calls.
 * Invariant: between steps the control grid holds the active control
 * particles at the end of the last step, and each fluid particle's spring
 * reference (grid attribute) names a control id of that set, or none.
 */
#ifndef FCL_PBF_CONTROL_H
#define FCL_PBF_CONTROL_H

#include <stdint.h>

#include "nlist.h"
#include "sim.h"

struct fcl_target;

typedef struct pbf_control {
    size_t total;                        /* control particles of every target */
    size_t n;                            /* active now (the device set) */
    float4 *rest;                        /* by particle: rest position, w = alpha */
    int *owner;                          /* by particle: its target, or -1 */
    float4 *cur, *vel;                   /* active set by id: position and velocity */
    const struct fcl_target *targets;    /* the scene's (outlives the sim) */
    int ntargets;
    float (*centroid)[3];                /* per target, of its rest particles */
    size_t *first, *count;               /* per target: its particles' slice */
    float **weights;                     /* per target: skeleton binding weights, or NULL */
    float4 *at_t, *at_next;              /* every particle's position at t and t + dt */
    unsigned char *active;               /* per target: active at the last update */
    unsigned char *was;                  /* per target: active before it (control_move) */
    fcl_grid grid;                       /* on the fluid grid's layout */
    int a_pos, a_vel, a_id;
    fcl_buf *byid, *clam;
    fcl_nlist_one fc, cf;                /* fluid -> control, control -> fluid */
    int a_ref, a_life;                   /* fluid grid attributes: the springs */
    int uploaded;                        /* the device set is current */
    double interval;                     /* d, the sampling interval (control_interval at creation) */
    fcl_control_consts k;
} pbf_control;

/* Bytes a control particle costs from sampling to the device (the
 * sampler's, the targets' arrays, control_create's host copies, its
 * grid, by-id positions, lambda and control-to-fluid list): targets
 * are sized against memory with it before their interior is made. */
size_t control_bytes_per_point(const fcl_sim *s);

/* Control from explicit points (rest positions, w = the density strength
 * alpha; owner[i] their target or -1 for a static point; targets may be
 * NULL when every owner is -1). Takes copies. 0, or -1 with err. */
int control_create(pbf_control **out, fcl_sim *s, const float4 *pts, const int *owner, size_t n,
                   const struct fcl_target *targets, int ntargets, char *err, size_t errlen);
void control_destroy(pbf_control *k, fcl_sim *s);
/* The skeleton binding weights of each target (an array of ntargets
 * pointers, NULL where a target has no skeleton; particles x bones, for
 * ctl_skin_apply): taken over, freed with k. */
void control_bind(pbf_control *k, float **weights);
/* The targets' sampling interval d = control.spacing control.radius h
 * when they are sampled: springs reach d / 2 from then on, while H
 * (control.radius) stays live. */
double control_interval(const fcl_sim *s);
/* The control set for a checkpoint: a fingerprint of the whole (its
 * particles at rest, their targets, the targets' times, paths and
 * skeletons) and a record per target. A resumed run must have the
 * checkpoint's set, as the springs saved with the fluid particles name
 * control particles by index: check_saved gives 0, or -1 with why naming
 * the first target that differs and how (a checkpoint of 8 bytes, from
 * before the records, is checked as a whole). save: bytes written, or
 * FCL_SAVE_FAILED when cap is short. */
size_t control_save(const pbf_control *k, void *blob, size_t cap);
int control_check_saved(const pbf_control *k, const void *blob, size_t bytes, char *why, size_t whylen);
/* Constants from the control.* parameters (before every step). */
void control_derive(pbf_control *k, const fcl_sim *s, double dt);
/* The active set at the end of the step that starts at t (targets
 * moved, switched on or off), uploaded and sorted when it changed. */
int control_move(pbf_control *k, fcl_sim *s, double t, double dt);
/* After the fluid grid rebuild: the cross lists, then the springs and
 * the velocity constraint on x* (pass control_steer). */
int control_steer(pbf_control *k, fcl_sim *s, fcl_buf *xold);
/* Inside an iteration: lambda~ of every control particle, and the
 * density displacements added to dp. */
int control_lambda(pbf_control *k, fcl_sim *s);
int control_density(pbf_control *k, fcl_sim *s, fcl_buf *dp);
/* Sum over a lattice of spacing sp of |V grad W_spiky|^2 within h (the
 * denominator of lambda for a particle inside resting fluid). */
double control_lattice_d0(double h, double sp, double volume);

#endif
