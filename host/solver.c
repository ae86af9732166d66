/* solver.c - the registry: every solver, by name, in one table. */
#include "solver.h"

#include <stdio.h>
#include <string.h>

extern const fcl_solver fcl_solver_wcsph;
extern const fcl_solver fcl_solver_dfsph;

const fcl_solver *const fcl_solvers[] = { &fcl_solver_wcsph, &fcl_solver_dfsph };
const size_t fcl_solver_count = sizeof fcl_solvers / sizeof fcl_solvers[0];

const fcl_solver *solver_find(const char *name)
{
    for (size_t i = 0; i < fcl_solver_count; i++)
        if (strcmp(fcl_solvers[i]->name, name) == 0)
            return fcl_solvers[i];
    return NULL;
}

void solver_names(char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < fcl_solver_count && used < len; i++)
        used += (size_t)snprintf(out + used, len - used, "%s%s", i ? ", " : "", fcl_solvers[i]->name);
}
