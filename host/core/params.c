/* params.c - parsing, range checking and printing of the parameter table.
 * Everything here is driven by the rows generated from params.def, so a new
 * parameter needs no code in this file.
 * Invariant: a value that fails its check leaves the parameter unchanged.
 */
#include "params.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const fcl_param_def fcl_param_table[] = {
#define PARAM(g, n, t, def, lo, hi, unit, live, desc) \
    { #g, #n, PT_##t, offsetof(fcl_params, g##_##n), #def, lo, hi, unit, live, desc },
#include "params.def"
#undef PARAM
};
const size_t fcl_param_count = sizeof fcl_param_table / sizeof fcl_param_table[0];

const char *params_key(fcl_param_id id, char *out, size_t len)
{
    snprintf(out, len, "%s.%s", fcl_param_table[id].group, fcl_param_table[id].name);
    return out;
}

int params_sets(const char *assignment, fcl_param_id id)
{
    const fcl_param_def *d = &fcl_param_table[id];
    size_t gl = strlen(d->group), nl = strlen(d->name);
    return strncmp(assignment, d->group, gl) == 0 && assignment[gl] == '.' &&
           strncmp(assignment + gl + 1, d->name, nl) == 0 && assignment[gl + 1 + nl] == '=';
}

/* The PARAM_ORDER rows: pairs where the first must not be above the second. */
static const struct { const char *lo, *hi; } order_table[] = {
#define PARAM(g, n, t, def, lo, hi, unit, live, desc)
#define PARAM_ORDER(g, lo, hi) { #g "." #lo, #g "." #hi },
#include "params.def"
#undef PARAM_ORDER
#undef PARAM
};

/* Defaults are stringified from params.def; strip the quotes that string
 * and vector defaults carry there. */
static void unquote(const char *in, char *out, size_t outlen)
{
    size_t n = strlen(in);
    if (n >= 2 && in[0] == '"' && in[n - 1] == '"') {
        in++;
        n -= 2;
    }
    if (n >= outlen)
        n = outlen - 1;
    memcpy(out, in, n);
    out[n] = '\0';
}

int params_equal(const fcl_params *a, const fcl_params *b, const fcl_param_def *d)
{
    const char *x = (const char *)a + d->offset, *y = (const char *)b + d->offset;
    if (d->type == PT_STRING || d->type == PT_CHOICE)
        return strcmp(x, y) == 0;
    size_t size = d->type == PT_FLOAT ? sizeof(float) : d->type == PT_INT ? sizeof(long) : 3 * sizeof(float);
    return memcmp(x, y, size) == 0;
}

void params_defaults(fcl_params *p)
{
    memset(p, 0, sizeof *p);
    for (size_t i = 0; i < fcl_param_count; i++) {
        char text[FCL_STR_MAX], err[256];
        unquote(fcl_param_table[i].def, text, sizeof text);
        if (params_set_text(p, &fcl_param_table[i], text, err, sizeof err) != 0) {
            fprintf(stderr, "fluidcl: internal error: default of %s.%s: %s\n",
                    fcl_param_table[i].group, fcl_param_table[i].name, err);
            abort();
        }
    }
}

const fcl_param_def *params_find(const char *key)
{
    for (size_t i = 0; i < fcl_param_count; i++) {
        const fcl_param_def *d = &fcl_param_table[i];
        size_t gl = strlen(d->group);
        if (strncmp(key, d->group, gl) == 0 && key[gl] == '.' && strcmp(key + gl + 1, d->name) == 0)
            return d;
    }
    return NULL;
}

void params_expected(const fcl_param_def *d, char *out, size_t outlen)
{
    switch (d->type) {
    case PT_FLOAT:
        snprintf(out, outlen, "a number in [%g, %g]%s%s", d->min, d->max, *d->unit ? " " : "", d->unit);
        break;
    case PT_INT:
        snprintf(out, outlen, "an integer in [%.0f, %.0f]", d->min, d->max);
        break;
    case PT_VEC3:
        snprintf(out, outlen, "three numbers x,y,z each in [%g, %g]%s%s", d->min, d->max,
                 *d->unit ? " " : "", d->unit);
        break;
    case PT_STRING:
        snprintf(out, outlen, "a string of at most %d characters", FCL_STR_MAX - 1);
        break;
    case PT_CHOICE:
        snprintf(out, outlen, "one of %s", d->unit);
        break;
    }
}

static int fail(const fcl_param_def *d, const char *got, char *err, size_t errlen)
{
    char exp[160];
    params_expected(d, exp, sizeof exp);
    snprintf(err, errlen, "%s.%s: expected %s, got '%s'", d->group, d->name, exp, got);
    return -1;
}

int params_set_number(fcl_params *p, const fcl_param_def *d, int comp, double v, char *err, size_t errlen)
{
    char got[64];
    snprintf(got, sizeof got, "%g", v);
    /* A float parameter's bounds as floats: the panel hands over floats,
     * and 0.1 typed for sim.dt's bound 0.1 arrived as 0.1000000015 and
     * was refused (a review); the value is stored as a float anyway. */
    int flt = d->type == PT_FLOAT || d->type == PT_VEC3;
    if (!isfinite(v) || (flt ? (float)v < (float)d->min || (float)v > (float)d->max : v < d->min || v > d->max))
        return fail(d, got, err, errlen);
    char *base = (char *)p + d->offset;
    if (d->type == PT_FLOAT || d->type == PT_VEC3) {
        ((float *)base)[comp] = (float)v;
    } else if (d->type == PT_INT) {
        if (v != floor(v))
            return fail(d, got, err, errlen);
        *(long *)base = (long)v;
    } else {
        return fail(d, got, err, errlen);
    }
    return 0;
}

static int choice_ok(const char *choices, const char *v)
{
    size_t n = strlen(v);
    for (const char *c = choices; *c;) {
        const char *bar = strchr(c, '|');
        size_t len = bar ? (size_t)(bar - c) : strlen(c);
        if (len == n && strncmp(c, v, n) == 0)
            return 1;
        c += len + (bar ? 1 : 0);
    }
    return 0;
}

/* Whether s starts with a number in decimal notation: digits, for an
 * integer, or digits with a point and an exponent; strtod alone would also
 * take hex (0x10), inf and nan, and --steps' whole numbers refuse those. */
static int decimal(const char *s, int integer)
{
    s += strspn(s, " ");
    s += *s == '+' || *s == '-';
    size_t digits = strspn(s, "0123456789");
    if (integer)
        return digits > 0 && (s[digits] == '\0' || s[digits] == ',' || s[digits] == ' ');
    s += digits;
    if (*s == 'x' || *s == 'X')
        return 0;
    if (*s == '.')
        digits += strspn(s + 1, "0123456789");
    return digits > 0;
}

/* Parse up to `count` comma-separated numbers into a temporary, so that a
 * bad component leaves the parameter as it was. */
static int parse_numbers(const char *text, double *v, int count, int integer)
{
    const char *s = text;
    for (int k = 0; k < count; k++) {
        char *end;
        errno = 0;
        if (!decimal(s, integer))
            return -1;
        v[k] = strtod(s, &end);
        if (end == s || errno)
            return -1;
        while (*end == ' ')
            end++;
        if (k + 1 < count) {
            if (*end != ',')
                return -1;
            s = end + 1;
        } else if (*end) {
            return -1;
        }
    }
    return 0;
}

int params_set_text(fcl_params *p, const fcl_param_def *d, const char *text, char *err, size_t errlen)
{
    char *base = (char *)p + d->offset;
    if (d->type == PT_STRING || d->type == PT_CHOICE) {
        if (strlen(text) >= FCL_STR_MAX || (d->type == PT_CHOICE && !choice_ok(d->unit, text)))
            return fail(d, text, err, errlen);
        strcpy(base, text);
        return 0;
    }
    int count = d->type == PT_VEC3 ? 3 : 1;
    double v[3];
    if (parse_numbers(text, v, count, d->type == PT_INT) != 0)
        return fail(d, text, err, errlen);
    fcl_params saved = *p;
    for (int k = 0; k < count; k++) {
        if (params_set_number(p, d, k, v[k], err, errlen) != 0) {
            *p = saved;
            return fail(d, text, err, errlen);
        }
    }
    return 0;
}

static size_t param_bytes(const fcl_param_def *d)
{
    switch (d->type) {
    case PT_FLOAT: return sizeof(float);
    case PT_INT: return sizeof(long);
    case PT_VEC3: return 3 * sizeof(float);
    default: return FCL_STR_MAX;
    }
}

void params_copy_live(fcl_params *dst, const fcl_params *src)
{
    for (size_t k = 0; k < fcl_param_count; k++) {
        const fcl_param_def *d = &fcl_param_table[k];
        if (d->live)
            memcpy((char *)dst + d->offset, (const char *)src + d->offset, param_bytes(d));
    }
}

int params_assign(fcl_params *p, const char *assignment, char *err, size_t errlen)
{
    const char *eq = strchr(assignment, '=');
    char key[128];
    size_t kl = eq ? (size_t)(eq - assignment) : 0;
    if (!eq || kl == 0 || kl >= sizeof key) {
        snprintf(err, errlen, "--param '%s': expected group.name=value", assignment);
        return -1;
    }
    memcpy(key, assignment, kl);
    key[kl] = '\0';
    const fcl_param_def *d = params_find(key);
    if (!d) {
        char names[1024];
        const char *dot = strchr(key, '.');
        size_t gl = dot ? (size_t)(dot - key) : strlen(key);
        if (params_group_names(key, gl, names, sizeof names))   /* as the scene loader says it */
            snprintf(err, errlen, "--param: unknown parameter '%s' (%.*s has: %s)", key, (int)gl, key, names);
        else
            snprintf(err, errlen, "--param: unknown parameter '%s' (see 'fluidcl help params')", key);
        return -1;
    }
    return params_set_text(p, d, eq + 1, err, errlen);
}

const char *params_group_names(const char *group, size_t gl, char *out, size_t outlen)
{
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < fcl_param_count; i++) {
        const char *g = fcl_param_table[i].group;
        if (strlen(g) == gl && strncmp(g, group, gl) == 0 && len < outlen)
            len += (size_t)snprintf(out + len, outlen - len, "%s%s", len ? ", " : "", fcl_param_table[i].name);
    }
    return len ? out : NULL;
}

int params_check_order(const fcl_params *p, char *err, size_t errlen)
{
    for (size_t i = 0; i < sizeof order_table / sizeof order_table[0]; i++) {
        const fcl_param_def *lo = params_find(order_table[i].lo), *hi = params_find(order_table[i].hi);
        int n = lo->type == PT_VEC3 ? 3 : 1, bad = 0;
        for (int k = 0; k < n; k++) {
            const char *a = (const char *)p + lo->offset, *b = (const char *)p + hi->offset;
            bad |= lo->type == PT_INT ? *(const long *)a > *(const long *)b
                                      : ((const float *)a)[k] > ((const float *)b)[k];
        }
        if (bad) {
            char va[96], vb[96];
            params_format(p, lo, va, sizeof va);
            params_format(p, hi, vb, sizeof vb);
            snprintf(err, errlen, "%s: %s is above %s: %s (expected %s <= %s%s)", order_table[i].lo, va,
                     order_table[i].hi, vb, order_table[i].lo, order_table[i].hi, n == 3 ? " in every component" : "");
            return -1;
        }
    }
    return 0;
}

void params_format(const fcl_params *p, const fcl_param_def *d, char *out, size_t outlen)
{
    const char *base = (const char *)p + d->offset;
    const float *f = (const float *)base;
    switch (d->type) {
    case PT_FLOAT: snprintf(out, outlen, "%g", f[0]); break;
    case PT_INT: snprintf(out, outlen, "%ld", *(const long *)base); break;
    case PT_VEC3: snprintf(out, outlen, "%g,%g,%g", f[0], f[1], f[2]); break;
    default: snprintf(out, outlen, "%s", base); break;
    }
}

void params_print_help(FILE *f)
{
    fcl_params p;
    params_defaults(&p);
    const char *group = "";
    fprintf(f, "Parameters (scene file: {\"group\": {\"name\": value}}; command line: --param group.name=value)\n");
    for (size_t i = 0; i < fcl_param_count; i++) {
        const fcl_param_def *d = &fcl_param_table[i];
        char val[FCL_STR_MAX], exp[160];
        if (strcmp(group, d->group) != 0)
            fprintf(f, "\n[%s]\n", group = d->group);
        params_format(&p, d, val, sizeof val);
        params_expected(d, exp, sizeof exp);
        fprintf(f, "  %s.%s = %s%s\n      %s\n      %s\n", d->group, d->name, val,
                d->live ? "" : "  (applies on reset)", d->desc, exp);
    }
}

int params_phase_list(const char *text, int most, unsigned *mask)
{
    *mask = 0;
    for (const char *s = text; *s;) {
        long k = 0;
        const char *d = s;
        while (*d >= '0' && *d <= '9' && k < 1000)
            k = 10 * k + (*d++ - '0');
        if (d == s || k >= most || k >= 32 || (*d != ',' && *d != '\0') || (*d == ',' && !d[1])) {
            *mask = 0;
            return -1;
        }
        *mask |= 1u << k;
        s = *d ? d + 1 : d;
    }
    return 0;
}
