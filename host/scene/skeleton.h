/* skeleton.h - skeletons that drive fluid-control targets (seed 001
 * §3.1; SEED-NOTES §3.2): joints and bones with keyframed bone transforms,
 * read from a scene's target, and the rotations and poses they give.
 *
 * Skeleton JSON (the scene's target.skeleton, say):
 *   { "joints": [[x, y, z], ...],              positions at rest
 *     "bones":  [[j0, j1], ...],               two different joint indices
 *     "keys":   [ { "t": 0,                    seconds, strictly increasing
 *                   "rotate": [[ax, ay, az, deg], ...],   one per bone
 *                   "translate": [[x, y, z], ...] },      optional, one per bone
 *                 ... ] }
 * Bone i's transform at a key is T_i x = R (x - J) + J + tr, R the
 * rotation by deg degrees about the axis (ax, ay, az) and J the bone's
 * first joint at rest. Between keys rotations are slerped (the shorter
 * way round, so keys should be less than 180 degrees apart) and
 * translations lerped; before the first key and after the last the pose
 * is held.
 *
 * The control particles are taken to be in the pose of t = 0, so a
 * particle moves by P(t) = sum_i w_i T_i(t) T_i(0)^-1 P(0) and is bound to
 * the bones as they lie at t = 0 (the rest pose when the key at or
 * before 0 is the identity, the usual case).
 *
 * Invariant: a parsed skeleton has at least one joint, bone and key,
 * every bone joins two different existing joints at different points, key
 * times are finite and strictly increasing, rotations are unit
 * quaternions and all numbers are finite.
 */
#ifndef FCL_SKELETON_H
#define FCL_SKELETON_H

#include <stddef.h>

#include <cjson/cJSON.h>

#define SKELETON_MAX_BONES 256       /* bounds the skinning weights: n * nbones floats */

typedef struct fcl_skeleton {
    int njoints, nbones, nkeys;
    double *joints;     /* 3 per joint: positions at rest */
    int *bones;         /* 2 joint indices per bone */
    double *key_t;      /* nkeys times, strictly increasing */
    double *key_q;      /* per key, per bone: unit quaternion (w, x, y, z), [4 (k nbones + i)] */
    double *key_tr;     /* per key, per bone: translation, [3 (k nbones + i)] */
} fcl_skeleton;

/* The skeleton in node; file and key name it in messages, which read
 * "FILE: KEY.bones[1][1]: expected a joint index from 0 to 2, got 5".
 * 0, or -1 with err and *sk empty. */
int skeleton_parse(const cJSON *node, const char *file, const char *key, fcl_skeleton *sk, char *err,
                       size_t errlen);
void skeleton_free(fcl_skeleton *sk);

/* Rotations as unit quaternions (w, x, y, z), shared with the rigid
 * paths of targets (target_pose): axis (any length > 0) and angle in
 * degrees -> q; the shortest-arc slerp of a and b at u in [0, 1]; q as a
 * row-major 3 x 3 matrix. */
void skeleton_quat_of(const double axis_deg[4], double q[4]);
void skeleton_slerp(const double *a, const double *b, double u, double *q);
void skeleton_quat_matrix(const double *q, double R[9]);

/* Bone transforms at time t: per bone a row-major 3 x 4 matrix [R | c],
 * x -> R x + c, in xf[12 i .. 12 i + 12). */
void skeleton_pose(const fcl_skeleton *sk, double t, double *xf);

/* Each bone's motion from t = 0 to t, T_i(t) T_i(0)^-1, as a row-major
 * 3 x 4 matrix in m[12 i .. 12 i + 12). */
void skeleton_motion(const fcl_skeleton *sk, double t, double *m);

#endif
