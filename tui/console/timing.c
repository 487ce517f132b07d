/* timing.c - first-frame and per-key latency figures (see timing.h). */
#include "timing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void timing_init(timing *t, long long now_ms)
{
    memset(t, 0, sizeof *t);
    const char *p = getenv("RIGDECK_CONSOLE_TIMING");
    t->path = p && *p ? p : NULL;
    t->start_ms = now_ms;
    t->first_frame_ms = -1;
    t->first_table_ms = -1;
    t->key_at_ms = -1;
}

void timing_key(timing *t, int key, long long now_ms)
{
    if (!t->path || t->key_at_ms >= 0)
        return;     /* keys typed ahead share the frame of the first */
    t->key_at_ms = now_ms;
    t->key = key;
}

/* One line appended as soon as it is known, so that a script driving the
 * console can wait for the answer to each key instead of sleeping. */
static void timing_append(const timing *t, const char *name, int key, long long ms)
{
    FILE *f = fopen(t->path, "a");
    if (!f)
        return;
    if (name)
        fprintf(f, "%s %lld ms\n", name, ms);
    else
        fprintf(f, "key %d %lld ms\n", key, ms);
    fclose(f);
}

void timing_frame(timing *t, long long now_ms, int ready)
{
    if (!t->path)
        return;
    if (t->first_frame_ms < 0)
        t->first_frame_ms = now_ms - t->start_ms;
    if (!ready)
        return;
    if (t->first_table_ms < 0) {
        t->first_table_ms = now_ms - t->start_ms;
        timing_append(t, "first_table_ms", 0, t->first_table_ms);
    }
    if (t->key_at_ms >= 0 && t->nkeys < TIMING_MAX_KEYS) {
        t->key_ms[t->nkeys] = now_ms - t->key_at_ms;
        t->keys[t->nkeys++] = t->key;
        timing_append(t, NULL, t->key, t->key_ms[t->nkeys - 1]);
    }
    t->key_at_ms = -1;
}

void timing_event(const timing *t, const char *name, long long now_ms)
{
    if (t->path)
        timing_append(t, name, 0, now_ms - t->start_ms);
}

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

long long timing_percentile(const long long *sorted, size_t n, int p)
{
    if (n == 0)
        return 0;
    size_t i = (size_t)p * (n - 1) / 100;
    return sorted[i];
}

void timing_write(const timing *t)
{
    if (!t->path)
        return;
    FILE *f = fopen(t->path, "a");
    if (!f)
        return;
    long long sorted[TIMING_MAX_KEYS];
    memcpy(sorted, t->key_ms, t->nkeys * sizeof sorted[0]);
    qsort(sorted, t->nkeys, sizeof sorted[0], cmp_ll);
    /* first_table_ms and each key's line were appended as they came. */
    fprintf(f, "first_frame_ms %lld ms\n", t->first_frame_ms);
    fprintf(f, "keys %zu count\n", t->nkeys);
    fprintf(f, "key_ms_p50 %lld ms\n", timing_percentile(sorted, t->nkeys, 50));
    fprintf(f, "key_ms_p90 %lld ms\n", timing_percentile(sorted, t->nkeys, 90));
    fprintf(f, "key_ms_max %lld ms\n", t->nkeys ? sorted[t->nkeys - 1] : 0);
    fclose(f);
}
