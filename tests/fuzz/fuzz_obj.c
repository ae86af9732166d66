/* fuzz_obj.c - libFuzzer harness of the OBJ reader: bytes through
 * obj_parse, then the edge list of a mesh that loaded.
 * Invariant checked beyond the sanitizers: a refusal names the file and
 * leaves the mesh empty; a mesh that loaded indexes only its vertices and
 * has exactly 3/2 edges per triangle (closed: each edge in two faces).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_clock.h"

#include "obj.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    double t0 = fuzz_cpu_now();
    fcl_mesh m;
    char err[1024];
    if (obj_parse((const char *)data, size, "fuzz.obj", &m, err, sizeof err) != 0) {
        if (strncmp(err, "fuzz.obj", 8) != 0 || m.v || m.tri || m.nv || m.ntri)
            abort();
        fuzz_cpu_check(t0);
        return 0;
    }
    for (size_t i = 0; i < 3 * m.ntri; i++)
        if (m.tri[i] >= m.nv)
            abort();
    unsigned *edges;
    size_t ne = obj_edges(&m, &edges);
    if (ne == (size_t)-1 || 2 * ne != 3 * m.ntri)
        abort();
    free(edges);
    obj_free(&m);
    fuzz_cpu_check(t0);
    return 0;
}
