/* fcl_types_check.c - compile-time layout checks of the structs shared
 * with OpenCL (kernels/fcl_types.h). OpenCL's float4 is 16 bytes with
 * 16-byte alignment, uint and float are 4; a struct passed by value must
 * have the same size and member offsets on both sides. The OpenCL side is
 * checked at run time by tests/test_grid.c through the fcl_type_sizes
 * kernel.
 */
#include <stddef.h>

#include "../../kernels/fcl_types.h"

_Static_assert(sizeof(float4) == 16 && _Alignof(float4) == 16, "float4 must match OpenCL's");
_Static_assert(sizeof(fcl_grid_info) == 48, "fcl_grid_info layout changed: update this assert");
_Static_assert(offsetof(fcl_grid_info, nx) == 24, "fcl_grid_info offsets");
_Static_assert(sizeof(fcl_sph_consts) == 160, "fcl_sph_consts layout changed: update this assert");
_Static_assert(offsetof(fcl_sph_consts, h) == 48 && offsetof(fcl_sph_consts, tension_model) == 128,
               "fcl_sph_consts offsets");
_Static_assert(sizeof(fcl_stats_partial) == 16, "fcl_stats_partial layout changed");
_Static_assert(sizeof(fcl_dfsph_consts) == 48, "fcl_dfsph_consts layout changed");
_Static_assert(sizeof(fcl_pbf_consts) == 48, "fcl_pbf_consts layout changed");
_Static_assert(sizeof(fcl_control_consts) == 80, "fcl_control_consts layout changed");
_Static_assert(sizeof(fcl_mps_consts) == 100, "fcl_mps_consts layout changed");
_Static_assert(sizeof(fcl_mac_info) == 80 && offsetof(fcl_mac_info, nx) == 48, "fcl_mac_info layout changed");
_Static_assert(sizeof(fcl_phase) == 16, "fcl_phase layout changed");
_Static_assert(sizeof(fcl_mac_inflow) == 96 && offsetof(fcl_mac_inflow, disk) == 80, "fcl_mac_inflow layout changed");
_Static_assert(sizeof(fcl_nlist_info) == 32, "fcl_nlist_info layout changed");
_Static_assert(sizeof(fcl_solid) == 64 && offsetof(fcl_solid, kind) == 48, "fcl_solid layout changed");
_Static_assert(sizeof(fcl_mc_info) == 128 && offsetof(fcl_mc_info, field) == 40,
               "fcl_mc_info layout changed: update this assert");

/* ISO C forbids an empty translation unit. */
extern const int fcl_types_checked;
const int fcl_types_checked = 1;
