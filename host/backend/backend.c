/* backend.c - choosing a backend by the name users type (--backend). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "clrt.h"

fcl_backend *backend_create(const char *kind, const char *device, const char *kernel_dir,
                            char *err, size_t errlen)
{
    if (strcmp(kind, "cpu") == 0)
        return be_cpu_create(err, errlen);
    if (strcmp(kind, "opencl") == 0)
        return be_opencl_create(device, kernel_dir, err, errlen);
    snprintf(err, errlen, "--backend '%s': expected cpu or opencl", kind);
    return NULL;
}

fcl_backend *backend_create_default(const char *kind, int given, const char *device, const char *kernel_dir,
                                    char *err, size_t errlen)
{
    if (!given && strcmp(kind, "opencl") == 0) {
        clrt_device *devs = NULL;
        int count = clrt_devices(&devs);
        free(devs);
        if (count == 0) {
            fprintf(stderr, "fluidcl: note: no OpenCL device found (see 'fluidcl devices'): the native backend "
                    "runs instead (--backend cpu)\n");
            return be_cpu_create(err, errlen);
        }
    }
    return backend_create(kind, device, kernel_dir, err, errlen);
}
