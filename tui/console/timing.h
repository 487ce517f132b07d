/* timing.h - how long the console takes to show things, for the big-fleet
 * measurement (scripts/bigfleet.sh): the first frame after start, and each
 * key from the moment it is read until the screen that answers it is drawn.
 * ("Loading..." frames count for the first frame, not for a key's answer),
 * and named moments such as the end of a background read.
 * Recorded only when RIGDECK_CONSOLE_TIMING names a file, as "name value
 * unit" lines: first_table_ms and each "key CODE MS" appended the moment
 * they are known (a script waits for them), the rest at exit.  Never
 * asserted anywhere: figures.
 */
#ifndef RD_TIMING_H
#define RD_TIMING_H

#include <stddef.h>

#define TIMING_MAX_KEYS 4096

typedef struct {
    const char *path;           /* NULL: not recording */
    long long start_ms;
    long long first_frame_ms;   /* -1 until drawn */
    long long first_table_ms;   /* -1 until a frame shows the current table read */
    long long key_at_ms;        /* the key waiting for its frame, or -1 */
    int key;
    long long key_ms[TIMING_MAX_KEYS];
    int keys[TIMING_MAX_KEYS];
    size_t nkeys;
} timing;

/* Starts recording if RIGDECK_CONSOLE_TIMING is set. */
void timing_init(timing *t, long long now_ms);

/* A key was read at now_ms. */
void timing_key(timing *t, int key, long long now_ms);

/* A frame was drawn (and flushed to the terminal) at now_ms; ready: it
 * shows the current table read (not "Loading..."), so it answers a key. */
void timing_frame(timing *t, long long now_ms, int ready);

/* Appends "name MS ms", MS the time since the start, at once (e.g. when
 * a table read in the background is all there). */
void timing_event(const timing *t, const char *name, long long now_ms);

/* Writes the figures to the file; a no-op when not recording. */
void timing_write(const timing *t);

/* The p-th percentile (0..100) of n sorted values. */
long long timing_percentile(const long long *sorted, size_t n, int p);

#endif
