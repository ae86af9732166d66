/* progress.c - progress line (terminal) or progress log lines (otherwise).
 *
 * Invariant: all output goes to stderr, each line is built whole in a buffer
 * and written with one call (stderr is unbuffered, so piecewise writes
 * would flicker), and a NULL label prints nothing at all.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define REDRAW_INTERVAL 0.1   /* seconds between terminal redraws */
#define BAR_WIDTH 24

static double seconds_since(const struct timespec *t0)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - t0->tv_sec) + 1e-9 * (double)(now.tv_nsec - t0->tv_nsec);
}

/* "12.3 s" below a minute, then "4m05s", then "2h07m": short and unambiguous. */
static void fmt_duration(double s, char *buf, size_t len)
{
    if (s < 0)
        s = 0;
    if (s < 59.95) {
        snprintf(buf, len, "%.1f s", s);
        return;
    }
    long r = (long)(s + 0.5);   /* whole seconds, rounded like %.1f above */
    if (r < 3600)
        snprintf(buf, len, "%ldm%02lds", r / 60, r % 60);
    else
        snprintf(buf, len, "%ldh%02ldm", r / 3600, r / 60 % 60);
}

/* Fraction done in [0, 1], or -1 when the total is unknown. */
static double fraction(const fcl_progress *p)
{
    if (p->total <= 0)
        return -1.0;
    double f = (double)p->done / (double)p->total;
    return f < 0 ? 0 : (f > 1 ? 1 : f);
}

/* Remaining time by linear extrapolation; -1 when not yet meaningful. */
static double eta(const fcl_progress *p, double elapsed)
{
    if (p->total <= 0 || p->done <= 0 || p->done >= p->total)
        return -1.0;
    return elapsed * (double)(p->total - p->done) / (double)p->done;
}

static int terminal_columns(void)
{
#ifdef TIOCGWINSZ
    struct winsize ws;
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
#endif
    const char *env = getenv("COLUMNS");
    int c = env ? atoi(env) : 0;
    return c > 0 ? c : 80;
}

/* "label [########----------]  40%  12.3 s  ETA 18.4 s  extra". The bar
 * shrinks, then goes, on narrow terminals so the numbers stay visible. */
static int tty_line(const fcl_progress *p, char *buf, size_t len, int cols, int final)
{
    double el = seconds_since(&p->start), fr = fraction(p), left = eta(p, el);
    char t_el[24], t_eta[32] = "", bar[BAR_WIDTH + 4] = "";
    fmt_duration(el, t_el, sizeof t_el);
    if (!final && p->done < p->total) {
        strcpy(t_eta, "  ETA ?");
        if (left >= 0)
            fmt_duration(left, t_eta + 6, sizeof t_eta - 6);
    }
    const char *sep = p->label[0] ? " " : "";
    if (fr < 0)
        return snprintf(buf, len, "%s%s%ld steps  %s  %s", p->label, sep, p->done,
                        t_el, p->extra);
    int width = cols >= 70 ? BAR_WIDTH : (cols >= 50 ? BAR_WIDTH / 2 : 0);
    if (width > 0) {
        int fill = (int)(fr * width);
        bar[0] = '[';
        for (int k = 0; k < width; k++)
            bar[1 + k] = k < fill ? '#' : '-';
        strcpy(bar + 1 + width, "] ");
    }
    return snprintf(buf, len, "%s%s%s%3d%%  %s%s  %s", p->label, sep, bar,
                    (int)(fr * 100), t_el, t_eta, p->extra);
}

static void tty_draw(fcl_progress *p, int final)
{
    char line[512];
    int cols = terminal_columns() - 1;   /* the last column can wrap */
    int n = tty_line(p, line, sizeof line, cols, final);
    if (n < 0)
        return;
    if (n >= (int)sizeof line)
        n = (int)sizeof line - 1;
    /* Cut at the terminal width: a wrapped line would break the \r redraw. */
    if (n > cols)
        n = cols > 0 ? cols : 0;
    while (n > 0 && line[n - 1] == ' ')
        n--;
    /* Blank what is left of a longer previous line. */
    int len = n;
    while (len < p->last_len && len < (int)sizeof line - 1)
        line[len++] = ' ';
    line[len] = '\0';
    fprintf(stderr, "\r%s%s", line, final ? "\n" : "");
    p->last_len = n;
    p->drawn = 1;
    clock_gettime(CLOCK_MONOTONIC, &p->last_draw);
}

/* "run: 30% (600/2000 steps) 12.3 s elapsed, ETA 28.7 s, t=0.15s" */
static void plain_line(fcl_progress *p, int final)
{
    double el = seconds_since(&p->start), fr = fraction(p), left = eta(p, el);
    char t_el[24], t_eta[40] = "", pct[64];
    fmt_duration(el, t_el, sizeof t_el);
    if (left >= 0 && !final) {
        strcpy(t_eta, ", ETA ");
        fmt_duration(left, t_eta + 6, sizeof t_eta - 6);
    }
    if (fr < 0)
        snprintf(pct, sizeof pct, "%ld steps", p->done);
    else if (p->per_mille)
        snprintf(pct, sizeof pct, "%d%%", (int)(fr * 100));
    else
        snprintf(pct, sizeof pct, "%d%% (%ld/%ld steps)", (int)(fr * 100), p->done, p->total);
    fprintf(stderr, "%s%s%s %s elapsed%s%s%s\n", p->label, p->label[0] ? ": " : "", pct,
            t_el, t_eta, p->extra[0] ? ", " : "", p->extra);
    p->last_printed = p->done;
}

void progress_start(fcl_progress *p, const char *label, long total)
{
    memset(p, 0, sizeof *p);
    p->quiet = label == NULL;
    if (label)
        snprintf(p->label, sizeof p->label, "%s", label);
    p->tty = !p->quiet && isatty(fileno(stderr));
    p->total = total;
    p->last_printed = -1;
    clock_gettime(CLOCK_MONOTONIC, &p->start);
    p->last_draw = p->start;
}

void progress_update(fcl_progress *p, long done, const char *extra)
{
    if (p->quiet)
        return;
    p->done = done;
    snprintf(p->extra, sizeof p->extra, "%s", extra ? extra : "");
    if (p->tty) {
        /* Draw at once the first time, so a slow first step shows something. */
        if (!p->drawn || seconds_since(&p->last_draw) >= REDRAW_INTERVAL)
            tty_draw(p, 0);
        return;
    }
    double fr = fraction(p);
    int decile = fr < 0 ? 0 : (int)(fr * 10);
    if (decile > p->drawn) {   /* one line per crossing, however many deciles */
        p->drawn = decile;
        plain_line(p, 0);
    }
}

void progress_end(fcl_progress *p)
{
    if (p->quiet)
        return;
    if (p->tty)
        tty_draw(p, 1);
    else if (p->last_printed != p->done)
        plain_line(p, 1);
    p->quiet = 1;   /* a second progress_end, or a stray update, prints nothing */
}
