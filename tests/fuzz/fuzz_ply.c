/* fuzz_ply.c - libFuzzer harness of the PLY frame reader (out_read_ply):
 * the bytes as a file, read, freed, its invariants checked (fuzz_file.h,
 * fuzz_frame).
 */
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_frame(data, size, out_read_ply);
}
