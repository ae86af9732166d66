/* targets.h - fluid-control targets of a scene (seed 001): shapes the
 * pbf solver samples into control particles, each with its density
 * strength, an active interval (a scene switches shapes by giving
 * consecutive intervals) and an optional rigid path of keyframes.
 *
 *   "targets": [ { "shape": {"type": "sphere", "center": [0.5,0.2,0.2], "radius": 0.1},
 *                  "alpha": 0.5, "start": 0, "end": 2.0,
 *                  "path": [ {"t": 0, "translate": [0,0,0], "rotate": [0,1,0,0]},
 *                            {"t": 1, "translate": [0.3,0,0], "rotate": [0,1,0,90]} ] } ]
 *
 * A path moves the target rigidly: P(t) = c + R(t) (P0 - c) + T(t), with c
 * the centroid of its control particles at rest, R the rotation about the
 * axis by the angle (degrees), held before the first and after the last
 * key. Between keys T lerps; about one axis (or where either key's angle
 * is 0) the angle lerps, so a path may spin more than half a turn between
 * keys; about two axes the rotations are slerped (the shorter way round;
 * targets.c, key_rotation).
 * A target may instead carry a skeleton (host/solvers/pbf/control_skin.h:
 * joints, bones and keyframed bone transforms): its control particles are
 * bound to the bones and move by linear blend skinning (seed 001 eqs. 1-2).
 * Invariant: a target that loaded has a shape, alpha in [0, 1] or -1
 * (control.alpha), start < end, and keys in increasing time with unit
 * axes, or a skeleton that skeleton_parse accepted (never both).
 */
#ifndef FCL_TARGETS_H
#define FCL_TARGETS_H

#include "scene.h"

typedef struct fcl_target_key {
    double t;
    float translate[3];
    float axis[3];              /* unit */
    float angle;                /* degrees */
} fcl_target_key;

typedef struct fcl_target {
    fcl_obstacle shape;
    float alpha;                /* density strength; -1: control.alpha */
    double start, end;          /* active while start <= t < end */
    fcl_target_key *keys;       /* NULL: static */
    int nkeys;
    struct fcl_skeleton *skeleton;   /* NULL: none */
} fcl_target;

/* Every mesh target read and checked before any work: the file exists
 * and is a closed, consistently oriented mesh (obj_load), with its
 * normals outward (positive enclosed volume). 0, or -1 with err naming
 * the file and the key. */
int targets_check(const fcl_scene *s, char *err, size_t errlen);

/* The rigid transform of target g at time t as a rotation matrix r
 * (row-major 3x3) and a translation tr: P = c + r (P0 - c) + tr. */
void target_pose(const fcl_target *g, double t, float r[9], float tr[3]);

#endif
