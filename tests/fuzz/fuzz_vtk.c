/* fuzz_vtk.c - libFuzzer harness of the VTK frame reader (out_read_vtk):
 * the bytes as a file (fuzz_file.h), read, freed.
 * Invariant checked beyond the sanitizers: a refusal names the file and
 * leaves the frame empty; a frame that reads has its arrays for n > 0 and
 * no more points than the file has bytes.
 */
#include <string.h>

#include "fuzz_clock.h"
#include "fuzz_file.h"
#include "output.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    double t0 = fuzz_cpu_now();
    char path[64], err[1024];
    fcl_frame_data d;
    int fd = fuzz_file(data, size, path, sizeof path);
    if (out_read_vtk(path, &d, err, sizeof err) != 0) {
        if (strncmp(err, path, strlen(path)) != 0 || d.n || d.pos || d.vel)
            abort();
    } else {
        if (d.n > size || (d.n > 0 && (!d.pos || !d.vel || !d.density || !d.pressure || !d.id)))
            abort();
        out_frame_free(&d);
    }
    close(fd);
    fuzz_cpu_check(t0);
    return 0;
}
