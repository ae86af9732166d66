/* fuzz_param.c - libFuzzer harness of the --param parser: the input's
 * lines, each "group.name=value", applied in turn with params_assign to
 * the defaults, then params_check_order.
 * Invariant checked beyond the sanitizers: a refused assignment leaves the
 * parameters unchanged and its message is not empty; an accepted one
 * formats (params_format) to text that reads back to the same value.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_clock.h"

#include "params.h"

static void round_trip(const fcl_params *p, const char *line)
{
    const char *eq = strchr(line, '=');
    char key[160], text[FCL_STR_MAX + 64], again[FCL_STR_MAX + 64], err[512];
    size_t kl = (size_t)(eq - line);
    memcpy(key, line, kl);
    key[kl] = '\0';
    const fcl_param_def *d = params_find(key);
    fcl_params q = *p;
    params_format(p, d, text, sizeof text);
    if (!d || params_set_text(&q, d, text, err, sizeof err) != 0)
        abort();
    params_format(&q, d, again, sizeof again);
    if (strcmp(text, again) != 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    double t0 = fuzz_cpu_now();
    static fcl_params defaults;
    static int have_defaults;
    char *text = malloc(size + 1), err[1024];
    if (!have_defaults) {
        params_defaults(&defaults);
        have_defaults = 1;
    }
    fcl_params p = defaults;
    memcpy(text, data, size);
    text[size] = '\0';
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        fcl_params before = p;
        err[0] = '\0';
        if (params_assign(&p, line, err, sizeof err) != 0) {
            if (!err[0] || memcmp(&before, &p, sizeof p) != 0)
                abort();
        } else {
            round_trip(&p, line);
        }
    }
    params_check_order(&p, err, sizeof err);
    free(text);
    fuzz_cpu_check(t0);
    return 0;
}
