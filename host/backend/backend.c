/* backend.c - choosing a backend by the name users type (--backend). */
#include <stdio.h>
#include <string.h>

#include "backend.h"

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
