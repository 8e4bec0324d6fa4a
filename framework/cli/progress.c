/*
 * Live progress of the culprit command's long work (a bisection builds and times
 * commits for minutes): a status line with a spinner, a bar when the remaining
 * work can be estimated, and the elapsed time, redrawn by a thread ten times a
 * second on stderr. Drawn only where culprit_progress_wanted() says so (an
 * interactive terminal, not CI); permanent lines printed through
 * cli_progress_print() appear above it. Without a terminal (a CI log) the same
 * thread prints a heartbeat instead: when no line came for CLI_HEARTBEAT_S seconds,
 * one line with the status and the time elapsed, so that a long build or run is
 * never silent for longer (lines printed through cli_progress_print() as they come).
 */
#include "cli.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BAR_WIDTH 20

/* Draws the status line; the lock is held. */
static void draw(cli_progress *p)
{
    int elapsed = (int)(culprit_time_now_s() - p->start);

    fprintf(p->out, "\r%c ", culprit_progress_frame(p->tick++));
    if (isfinite(p->fraction)) {
        int full = (int)lround(BAR_WIDTH * fmin(fmax(p->fraction, 0), 1));
        fputc('[', p->out);
        for (int i = 0; i < BAR_WIDTH; i++)
            fputc(i < full ? '#' : '.', p->out);
        fputs("] ", p->out);
    }
    fprintf(p->out, "%s  %d:%02d\033[K", p->status, elapsed / 60, elapsed % 60);
    fflush(p->out);
    p->drawn = 1;
}

/* The heartbeat's line after `interval` seconds without one; the lock is held. */
static void beat(cli_progress *p)
{
    double now = culprit_time_now_s();
    int elapsed = (int)(now - p->start);

    if (now - p->last < p->interval)
        return;
    fprintf(p->out, "culprit: %s (still going, %d:%02d elapsed)\n", p->status, elapsed / 60,
            elapsed % 60);
    fflush(p->out);
    p->last = now;
}

static void *spin(void *payload)
{
    cli_progress *p = payload;
    struct timespec tick = {0, 100 * 1000 * 1000};

    for (;;) {
        pthread_mutex_lock(&p->lock);
        if (!p->running) {
            pthread_mutex_unlock(&p->lock);
            return NULL;
        }
        if (p->heartbeat)
            beat(p);
        else
            draw(p);
        pthread_mutex_unlock(&p->lock);
        nanosleep(&tick, NULL);
    }
}

/* The heartbeat's interval: $CULPRIT_HEARTBEAT_S (seconds, above 0) or CLI_HEARTBEAT_S. */
static double heartbeat_interval(void)
{
    const char *v = getenv("CULPRIT_HEARTBEAT_S");
    double x = v ? strtod(v, NULL) : 0;

    return x > 0 ? x : CLI_HEARTBEAT_S;
}

void cli_progress_start(cli_progress *p, const char *status)
{
    memset(p, 0, sizeof(*p));
    p->fraction = NAN;
    p->heartbeat = !culprit_progress_wanted(STDERR_FILENO);
    p->out = stderr;
    p->start = p->last = culprit_time_now_s();
    p->interval = heartbeat_interval();
    snprintf(p->status, sizeof(p->status), "%s", status);
    pthread_mutex_init(&p->lock, NULL);
    p->running = 1;
    if (pthread_create(&p->thread, NULL, spin, p) != 0) {
        p->running = 0;
        pthread_mutex_destroy(&p->lock);
        p->out = NULL; /* no thread, no progress: the work goes on */
    }
}

void cli_progress_status(cli_progress *p, double fraction, const char *fmt, ...)
{
    va_list ap;

    if (!p->out)
        return;
    pthread_mutex_lock(&p->lock);
    va_start(ap, fmt);
    vsnprintf(p->status, sizeof(p->status), fmt, ap);
    va_end(ap);
    p->fraction = fraction;
    pthread_mutex_unlock(&p->lock);
}

void cli_progress_print(cli_progress *p, const char *line)
{
    if (!p->out) {
        fputs(line, stderr);
        return;
    }
    pthread_mutex_lock(&p->lock);
    if (p->heartbeat) {
        fputs(line, p->out);
        fflush(p->out);
        p->last = culprit_time_now_s();
    } else {
        fputs(p->drawn ? "\r\033[K" : "", p->out);
        fputs(line, p->out);
        draw(p);
    }
    pthread_mutex_unlock(&p->lock);
}

void cli_progress_stop(cli_progress *p)
{
    if (!p->out)
        return;
    pthread_mutex_lock(&p->lock);
    p->running = 0;
    pthread_mutex_unlock(&p->lock);
    pthread_join(p->thread, NULL);
    if (p->drawn)
        fputs("\r\033[K", p->out);
    fflush(p->out);
    pthread_mutex_destroy(&p->lock);
    p->out = NULL;
}
