/* fuzz_scene.c - libFuzzer harness of the scene loader: JSON text through
 * scene_parse, then scene_check (parameter ranges and order, blocks inside
 * the domain, obstacles), then budget_check (sizes in closed form), then,
 * for scenes of at most 20,000 lattice points, the lattice itself.
 * Invariant checked beyond the sanitizers: every refusal names the file,
 * and a filled lattice never holds more points than budget_check counted.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_clock.h"

#include "budget.h"
#include "scene.h"

static void expect_named(const char *err)
{
    if (strncmp(err, "fuzz.json", 9) != 0)
        abort();
}

static void fill(const fcl_scene *s)
{
    fcl_budget b;
    char err[2048];
    if (budget_check(s, &s->params, &b, err, sizeof err) != 0) {
        expect_named(err);
        return;
    }
    if (b.fluid_lattice > 20000.0)
        return;
    float4 *pos, *vel;
    size_t n;
    if (scene_particles(s, &s->params, &pos, &vel, &n, err, sizeof err) != 0)
        abort();
    if ((double)n > b.fluid_lattice || (double)n < b.fluid_min - 1.0)
        abort();
    free(pos);
    free(vel);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    double t0 = fuzz_cpu_now();
    char *text = malloc(size + 1), err[2048];
    fcl_scene s;
    memcpy(text, data, size);
    text[size] = '\0';
    if (scene_parse(&s, text, "fuzz.json", err, sizeof err) != 0) {
        expect_named(err);
    } else {
        if (scene_check(&s, &s.params, err, sizeof err) == 0)
            fill(&s);
        else
            expect_named(err);
        scene_free(&s);
    }
    free(text);
    fuzz_cpu_check(t0);
    return 0;
}
