/* sim_checks.h - checks the physical solver tests share (test_dfsph,
 * test_pbf): a simulation from scene text, and where its particles ended
 * up against the scene's obstacles and domain box.
 */
#ifndef FCL_SIM_CHECKS_H
#define FCL_SIM_CHECKS_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "boundary.h"
#include "fcl_test.h"
#include "scene.h"
#include "setup.h"
#include "sim.h"

/* A scene from text, with its boundary and solids, on be; 0 or not. A
 * scene that cannot be made is a failure, counted (it was printed only, and
 * the test that returned on it passed: a review). */
static inline int sc_make(fcl_backend *be, fcl_sim *s, fcl_scene *sc, fcl_initial *in, const char *text)
{
    char err[1024];
    int parsed = scene_parse(sc, text, "test scene", err, sizeof err) == 0;
    const fcl_solver *sv = parsed ? solver_find(sc->params.sim_solver) : NULL;
    if (sv)   /* as the command line sizes it (a step_floor's dt_max where the solver has one) */
        scene_emitter_capacity(sc, solver_longest_dt(sv, &sc->params));
    if (!parsed || setup_initial(sc, &sc->params, be, in, err, sizeof err) != 0) {
        printf("FAIL scene: %s\n", err);
        ft_fail++;
        return -1;
    }
    int rc = sim_create(s, be, &sc->params, in->pos, in->vel, in->n, in->b.pos, in->b.n, err, sizeof err);
    if (rc == 0)
        rc = sim_set_solids(s, sc->obstacles, sc->nobstacles);
    if (rc == 0)
        rc = sim_set_phases(s, sc->phases, sc->nphases, err, sizeof err);
    if (rc == 0)
        rc = sim_set_emitters(s, sc->emitters, sc->nemitters, err, sizeof err);
    if (rc == 0)
        rc = sim_set_outflows(s, sc->outflows, sc->noutflows);
    if (rc) {
        printf("FAIL sim: %s\n", err);
        ft_fail++;
    }
    return rc;
}

/* What sc_make made, freed. */
static inline void sc_free(fcl_sim *s, fcl_scene *sc, fcl_initial *in)
{
    sim_destroy(s);
    setup_free(in);
    scene_free(sc);
}

/* Particles inside any obstacle (boundary_carve's inside test with no
 * gap) and outside the domain box. */
static inline void sc_count_escapes(fcl_sim *s, const fcl_initial *in, const fcl_params *p, size_t *inside,
                                    size_t *outside)
{
    float4 *pos = malloc(s->n * 16 + 16);
    sim_download(s, pos, NULL, NULL, NULL, NULL);
    *outside = 0;
    for (size_t i = 0; i < s->n; i++)
        for (int k = 0; k < 3; k++) {
            float x = k == 0 ? pos[i].x : k == 1 ? pos[i].y : pos[i].z;
            *outside += !(x >= p->domain_min[k] && x <= p->domain_max[k]);
        }
    *inside = s->n - boundary_carve(&in->b, pos, NULL, s->n, 0.0f);
    free(pos);
}

/* Runs a scene's first `steps` steps: -1 when one failed or left a
 * non-finite pressure (step number in *at), else 0. */
static inline int sc_run_finite(fcl_backend *be, const char *text, int steps, int *at)
{
    fcl_sim s;
    fcl_scene sc;
    fcl_initial in;
    *at = 0;
    if (sc_make(be, &s, &sc, &in, text) != 0)
        return -1;
    float *p = malloc(s.n * 4 + 4);
    int rc = 0;
    for (int k = 1; k <= steps && rc == 0; k++) {
        *at = k;
        rc = sim_step(&s) == 0 && sim_download(&s, NULL, NULL, NULL, p, NULL) == 0 ? 0 : -1;
        for (size_t i = 0; i < s.n && rc == 0; i++)
            rc = isfinite(p[i]) ? 0 : -1;
    }
    free(p);
    sim_destroy(&s);
    setup_free(&in);
    scene_free(&sc);
    return rc;
}

/* A 2 cm dam break on `solver` (mps or mac; sim_extra: more sim keys)
 * whose Jacobi-CG reads its residual only every 1000 iterations (the
 * solver's cg_check_every), long past convergence, where the dot products
 * underflow: a denormal p.q, kept on CPUs, once made alpha infinite and
 * the pressure NaN ("broke down", exit 3; a review). Every step must
 * succeed with a finite pressure (test_mps, test_mac; fcl_test.h's CHECK). */
static inline void sc_check_cg_past_convergence(fcl_backend *be, const char *solver, const char *sim_extra, int steps)
{
    char text[640];
    snprintf(text, sizeof text,
             "{\"sim\": {\"solver\": \"%s\"%s}, \"domain\": {\"min\": [0, 0, 0], \"max\": [0.4, 0.32, 0.2]},"
             " \"%s\": {\"preconditioner\": \"jacobi\", \"cg_check_every\": 1000, \"cg_max_iter\": 3000},"
             " \"particles\": {\"spacing\": 0.02},"
             " \"fluid\": [{\"type\": \"box\", \"min\": [0, 0, 0], \"max\": [0.16, 0.2, 0.2]}]}",
             solver, sim_extra, solver);
    int at = 0, rc = sc_run_finite(be, text, steps, &at);
    CHECK(rc == 0, "%s on %s: the CG read after 1000 iterations failed or left a non-finite pressure in step %d",
          solver, be->kind, at);
}

#endif
