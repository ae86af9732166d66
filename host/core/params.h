/* params.h - the parameter table: one struct of values and the metadata
 * that describes each of them (see params.def, the only declaration).
 * Invariant: every field of fcl_params has exactly one row in the table,
 * because both are generated from params.def.
 */
#ifndef FCL_PARAMS_H
#define FCL_PARAMS_H

#include <stddef.h>
#include <stdio.h>

enum { FCL_STR_MAX = 256 };

typedef enum { PT_FLOAT, PT_INT, PT_VEC3, PT_STRING, PT_CHOICE } fcl_ptype;

#define FCL_PT_FLOAT float
#define FCL_PT_INT long
#define FCL_PT_VEC3 float
#define FCL_PT_STRING char
#define FCL_PT_CHOICE char
#define FCL_PDIM_FLOAT
#define FCL_PDIM_INT
#define FCL_PDIM_VEC3 [3]
#define FCL_PDIM_STRING [FCL_STR_MAX]
#define FCL_PDIM_CHOICE [FCL_STR_MAX]

typedef struct fcl_params {
#define PARAM(g, n, t, def, lo, hi, unit, live, desc) FCL_PT_##t g##_##n FCL_PDIM_##t;
#include "params.def"
#undef PARAM
} fcl_params;

typedef struct fcl_param_def {
    const char *group, *name;
    fcl_ptype type;
    size_t offset;
    const char *def;       /* default, as text */
    double min, max;
    const char *unit;      /* for CHOICE: the allowed values, '|'-separated */
    int live;
    const char *desc;
} fcl_param_def;

/* The table, in declaration order, and its length. */
extern const fcl_param_def fcl_param_table[];
extern const size_t fcl_param_count;

/* Each parameter's row in the table, FCL_P_group_name: code that names a
 * parameter does so by this, so a key renamed in params.def is a compile
 * error there, not a lookup that fails at run time. */
typedef enum fcl_param_id {
#define PARAM(g, n, t, def, lo, hi, unit, live, desc) FCL_P_##g##_##n,
#include "params.def"
#undef PARAM
    FCL_P_COUNT
} fcl_param_id;
/* "group.name" of id, into out; returns out. */
const char *params_key(fcl_param_id id, char *out, size_t len);
/* Whether assignment ("group.name=value") sets id. */
int params_sets(const char *assignment, fcl_param_id id);

void params_defaults(fcl_params *p);
/* Whether a and b hold the same value of d (strings and choices by text,
 * numbers by their bits). */
int params_equal(const fcl_params *a, const fcl_params *b, const fcl_param_def *d);
/* Find "group.name"; NULL if unknown. */
const fcl_param_def *params_find(const char *key);
/* Parse text into the parameter, range-checked. Returns 0, or -1 with a
 * message in err saying what was expected. */
int params_set_text(fcl_params *p, const fcl_param_def *d, const char *text, char *err, size_t errlen);
/* Copy the live parameters (params.def's live column) of src into dst. */
void params_copy_live(fcl_params *dst, const fcl_params *src);
/* Apply "group.name=value"; errors name the key. */
int params_assign(fcl_params *p, const char *assignment, char *err, size_t errlen);
/* The names of group's parameters (its first gl characters), ", "
 * between them, into out; NULL when no parameter has that group. */
const char *params_group_names(const char *group, size_t gl, char *out, size_t outlen);
/* Set a numeric value (component `comp` for VEC3) with range check. */
int params_set_number(fcl_params *p, const fcl_param_def *d, int comp, double v, char *err, size_t errlen);
/* The PARAM_ORDER rows of params.def: 0, or -1 with "g.lo: A is above
 * g.hi: B (expected ...)" in err for the first pair set the wrong way. */
int params_check_order(const fcl_params *p, char *err, size_t errlen);
/* surface.phases' list: indices below `most`, each digits alone, separated
 * by single commas; *mask gets bit k for index k (0 for an empty list).
 * 0, or -1 when the text is not such a list (mask then 0). */
int params_phase_list(const char *text, int most, unsigned *mask);
/* Current value as text (the same syntax params_set_text accepts). */
void params_format(const fcl_params *p, const fcl_param_def *d, char *out, size_t outlen);
/* What the parameter accepts, e.g. "a number in [0, 1] (Pa s)". */
void params_expected(const fcl_param_def *d, char *out, size_t outlen);
/* `fluidcl help params`. */
void params_print_help(FILE *f);

#endif
