/* scene_syntax.c - a scene file cJSON could not parse, said as a user
 * reads it: FILE:LINE:COLUMN, the text there, and the commonest slips
 * named (a comma before a closing bracket, a missing } or ], text after
 * the object, an empty file, nesting past the reader's limit).
 * Invariant: reads only the text and cJSON's error position; the message
 * is one line.
 */
#include <cJSON.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "scene_read.h"

/* Whether the text nests arrays and objects deeper than cJSON parses
 * (CJSON_NESTING_LIMIT), outside strings, before at. */
static int too_deep(const char *text, const char *at)
{
    int depth = 0, str = 0;
    for (const char *c = text; *c && (!at || c <= at); c++) {
        if (str)
            str = *c == '\\' ? (c[1] ? (c++, 1) : 0) : *c != '"';
        else if (*c == '"')
            str = 1;
        else if (*c == '[' || *c == '{')
            depth++;
        else if (*c == ']' || *c == '}')
            depth--;
        if (depth > CJSON_NESTING_LIMIT)
            return 1;
    }
    return 0;
}

/* Brackets open at the end of text, outside strings. */
static int open_brackets(const char *text)
{
    int depth = 0, str = 0;
    for (const char *c = text; *c; c++) {
        if (str)
            str = *c == '\\' && c[1] ? (c++, 1) : *c != '"';
        else if (*c == '"')
            str = 1;
        else
            depth += (*c == '{' || *c == '[') - (*c == '}' || *c == ']');
    }
    return depth;
}

/* The commonest slips, said as such (they read "near ''"; a review): a
 * comma after a value and before a closing bracket, a file that ends
 * inside an object or array, text after the top-level value, an empty
 * file. cJSON stops at the comma, at the bracket, or at what follows the
 * bracket. "" when none fits. */
static const char *syntax_hint(const char *text, const char *at)
{
    const char *a = at, *b = at, *comma = NULL;
    int bracket = 0;
    while (*a == ',' || isspace((unsigned char)*a))
        a++;
    while (b > text && (isspace((unsigned char)b[-1]) || (!bracket && (b[-1] == '}' || b[-1] == ']')))) {
        b--;
        bracket |= *b == '}' || *b == ']';
    }
    int closing = *a == '}' || *a == ']';
    if (*at == ',' && closing)
        comma = at;
    else if (b > text && b[-1] == ',' && (bracket || closing))
        comma = b - 1;
    const char *v = comma;
    while (v && v > text && isspace((unsigned char)v[-1]))
        v--;
    if (comma && v > text && !strchr(":,[{", v[-1]))   /* after a value, not a missing one */
        return " (a comma before a closing bracket: JSON allows none)";
    if (*a)
        return "";
    if (b == text)
        return " (the file holds no JSON)";
    return open_brackets(text) > 0 ? " (the file ends inside an object or array: a } or ] is missing)"
                                   : " (text after the JSON object)";
}

int scene_syntax_error(const char *text, const char *file, char *err, size_t errlen)
{
    const char *at = cJSON_GetErrorPtr();
    int line = 1, col = 1;
    for (const char *c = text; at && c < at && *c; c++) {
        if (*c == '\n') { line++; col = 1; } else { col++; }
    }
    char near[24] = "";
    if (at)
        snprintf(near, sizeof near, "%.16s", at);
    near[strcspn(near, "\n")] = '\0';
    const char *hint = at ? syntax_hint(text, at) : "";
    if (too_deep(text, at))   /* valid JSON, said to be a syntax error */
        snprintf(err, errlen, "%s:%d:%d: arrays and objects nested deeper than %d levels (the JSON reader's limit)",
                 file, line, col, CJSON_NESTING_LIMIT);
    else
        snprintf(err, errlen, "%s:%d:%d: JSON syntax error near '%s'%s", file, line, col, near, hint);
    return -1;
}
