/* bench_util.h - the small helpers every benchmark program uses: a
 * monotonic clock, positive numbers from the environment, and the bytes
 * the process has written (a figure the machine's load does not move). */
#ifndef RD_BENCH_UTIL_H
#define RD_BENCH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* $name as a number above zero, else def. */
static inline long env_long(const char *name, long def)
{
    const char *v = getenv(name);
    long n = v && *v ? strtol(v, NULL, 10) : 0;
    return n > 0 ? n : def;
}

/* Bytes this process has passed to write(2) so far (for a store: WAL
 * frames and checkpoints); 0 where /proc is missing. */
static inline long long wchar_now(void)
{
    FILE *f = fopen("/proc/self/io", "r");
    char line[128];
    long long v = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "wchar: %lld", &v) == 1)
            break;
    if (f)
        fclose(f);
    return v;
}

#endif
