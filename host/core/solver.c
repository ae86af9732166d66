/* solver.c - the registry: every solver, by name, in one table; and the
 * folding of the statistics solvers declare. */
#include "solver.h"

#include "scene.h"
#include "sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SOLVER(name) extern const fcl_solver fcl_solver_##name;
#include "../solvers/registry.def"
#undef SOLVER

const fcl_solver *const fcl_solvers[] = {
#define SOLVER(name) &fcl_solver_##name,
#include "../solvers/registry.def"
#undef SOLVER
};
const size_t fcl_solver_count = sizeof fcl_solvers / sizeof fcl_solvers[0];

const fcl_solver *solver_find(const char *name)
{
    for (size_t i = 0; i < fcl_solver_count; i++)
        if (strcmp(fcl_solvers[i]->name, name) == 0)
            return fcl_solvers[i];
    return NULL;
}

int solver_unused_viscosity(const fcl_solver *sv, const fcl_params *p, const fcl_phase_decl *ph, int n, char *err,
                            size_t errlen)
{
    double mu = p->material_viscosity, dflt = atof(fcl_param_table[FCL_P_material_viscosity].def);
    if (n == 0 || fabs(mu - dflt) <= 1e-6 * dflt)
        return 0;
    for (int k = 0; k < n; k++)
        if (fabs(mu - ph[k].viscosity) <= 1e-6 * fabs(mu))
            return 0;
    int used = snprintf(err, errlen, "material.viscosity = %g Pa s is not used: with phases, solver %s gives "
                        "each phase its own (", mu, sv->name);
    for (int k = 0; k < n && used > 0 && (size_t)used < errlen; k++)
        used += snprintf(err + used, errlen - (size_t)used, "%s'%s' %g", k ? ", " : "", ph[k].name, ph[k].viscosity);
    if (used > 0 && (size_t)used < errlen)
        snprintf(err + used, errlen - (size_t)used, "): set phases[k].viscosity");
    return 1;
}

int solver_check_phases(const fcl_solver *sv, const fcl_params *p, const fcl_phase_decl *ph, int n, char *err,
                        size_t errlen)
{
    if (sv->check_fluid && sv->check_fluid(p, ph, n, err, errlen) != 0)
        return FCL_EXIT_INPUT;
    char names[128];
    int most = sv->max_phases > 0 ? sv->max_phases : 1;
    solver_names_that(FCL_CAN_PHASES, names, sizeof names);
    for (int k = 0; k < n && sv->max_phases <= 1; k++)
        if (ph[k].sound_speed > 0.0f) {
            snprintf(err, errlen, "phases[%d].sound_speed: solver %s has no compressible phases (%s %s); got %g",
                     k, sv->name, names, strstr(names, " and ") ? "have them" : "has them", ph[k].sound_speed);
            return FCL_EXIT_INPUT;
        }
    /* One phase on a one-fluid solver would be ignored: it reads material.*. */
    if (n == 1 && sv->max_phases <= 1) {
        snprintf(err, errlen, "phases: solver %s simulates one fluid from material.* (rest_density, viscosity) and "
                 "would ignore phases[0] '%s' (density %g, viscosity %g): set material.* instead, or use a solver "
                 "with phases (%s)", sv->name, ph[0].name, ph[0].density, ph[0].viscosity,
                 names);
        return FCL_EXIT_INPUT;
    }
    if (n <= most)
        return 0;
    snprintf(err, errlen, "phases: the scene has %d phases (%s, %s%s) but solver %s simulates %d (%s: up to %d)",
             n, ph[0].name, ph[1].name, n > 2 ? ", ..." : "", sv->name, most,
             names, FCL_PHASES_MAX);
    return FCL_EXIT_INPUT;
}

double solver_longest_dt(const fcl_solver *sv, const fcl_params *p)
{
    double cfl, dt_min, dt_max;
    if (sv->step_floor) {
        sv->step_floor(p, &cfl, &dt_min, &dt_max);
        return dt_max;
    }
    return sv->longest_dt ? sv->longest_dt(p) : p->sim_dt;
}

int solver_check_support(const fcl_solver *sv, const fcl_params *p, char *err, size_t errlen)
{
    if (!(sv->max_support > 0.0) || p->particles_support <= sv->max_support + 1e-6)
        return 0;
    snprintf(err, errlen, "particles.support = %g: %s runs up to %g spacings (beyond, it blew up beside walls: "
             "README, Notes on the physics)", p->particles_support, sv->name, sv->max_support);
    return FCL_EXIT_INPUT;
}

const char *solver_blowup_advice(const fcl_solver *sv)
{
    return sv->blowup_advice ? sv->blowup_advice : "reduce sim.dt or raise material.viscosity";
}

void solver_names(char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < fcl_solver_count && used < len; i++)
        used += (size_t)snprintf(out + used, len - used, "%s%s", i ? ", " : "", fcl_solvers[i]->name);
}

int solver_can(const fcl_solver *sv, fcl_capability c)
{
    switch (c) {
    case FCL_CAN_TARGETS: return sv->set_targets != NULL;
    case FCL_CAN_PHASES: return sv->max_phases > 1;
    case FCL_CAN_GRID: return sv->grid_fields != NULL;
    case FCL_CAN_LEVELSET: return sv->levelset != NULL;
    case FCL_CAN_OVERLAY: return sv->overlay != NULL;
    }
    return 0;
}

const char *solver_names_that(fcl_capability c, char *out, size_t len)
{
    size_t used = 0, n = 0, total = 0;
    for (size_t i = 0; i < fcl_solver_count; i++)
        total += (size_t)solver_can(fcl_solvers[i], c);
    out[0] = '\0';
    for (size_t i = 0; i < fcl_solver_count && used < len; i++)
        if (solver_can(fcl_solvers[i], c)) {
            const char *sep = n == 0 ? "" : n + 1 == total ? (total > 2 ? ", and " : " and ") : ", ";
            used += (size_t)snprintf(out + used, len - used, "%s%s", sep, fcl_solvers[i]->name);
            n++;
        }
    return out;
}

const char *solver_fold_word(fcl_fold f)
{
    return f == FCL_FOLD_MAX ? "largest" : f == FCL_FOLD_SUM ? "total" : "mean";
}

const char *solver_group_readers(const char *g, size_t gl, char *out, size_t len)
{
    if (gl == 7 && strncmp(g, "control", 7) == 0)
        return solver_names_that(FCL_CAN_TARGETS, out, len);
    for (size_t i = 0; i < fcl_solver_count; i++)
        if (strlen(fcl_solvers[i]->name) == gl && strncmp(g, fcl_solvers[i]->name, gl) == 0) {
            snprintf(out, len, "%s", fcl_solvers[i]->name);
            return out;
        }
    return NULL;
}

const char *solver_reads_instead(const fcl_solver *sv, fcl_param_id id)
{
    for (const fcl_ignored *i = sv->ignores; i && i->id != FCL_P_COUNT; i++)
        if (i->id == id)
            return i->instead;
    return NULL;
}

int solver_reads_group(const fcl_solver *sv, const char *g, size_t gl)
{
    char names[128];
    if (!solver_group_readers(g, gl, names, sizeof names))
        return 1;
    if (gl == 7 && strncmp(g, "control", 7) == 0)
        return solver_can(sv, FCL_CAN_TARGETS);
    return strlen(sv->name) == gl && strncmp(g, sv->name, gl) == 0;
}

int solver_field_index(const fcl_solver *s, const char *name)
{
    for (int k = 0; s && k < s->nfields; k++)
        if (strcmp(s->fields[k].name, name) == 0)
            return k;
    return -1;
}

int solver_stat_index(const fcl_solver *s, const char *key)
{
    for (int k = 0; s && k < s->nstats; k++)
        if (strcmp(s->stats[k].key, key) == 0)
            return k;
    return -1;
}

void stat_fold_add(fcl_stat_fold *f, const fcl_solver *s, const double *values)
{
    for (int k = 0; k < s->nstats; k++) {
        if (s->stats[k].fold == FCL_FOLD_MAX)
            f->acc[k] = f->steps == 0 || values[k] > f->acc[k] ? values[k] : f->acc[k];
        else
            f->acc[k] += values[k];
    }
    f->steps++;
}

double stat_fold_value(const fcl_stat_fold *f, const fcl_solver *s, int k)
{
    if (f->steps == 0)
        return 0.0;
    return s->stats[k].fold == FCL_FOLD_MEAN ? f->acc[k] / (double)f->steps : f->acc[k];
}

int solver_check_targets(const fcl_solver *sv, int ntargets, char *err, size_t errlen)
{
    char names[128];
    if (ntargets <= 0 || sv->set_targets)
        return 0;
    snprintf(err, errlen, "targets: fluid control needs a solver that has it (%s); sim.solver is %s",
             solver_names_that(FCL_CAN_TARGETS, names, sizeof names), sv->name);
    return -1;
}
