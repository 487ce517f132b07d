/* fuzz_metrics_check.h - the promise of the vital stats history that the
 * nvidia-smi and metrics-import targets check after folding their
 * readings: every stored number is within its stat's range (in hundredths)
 * and every point's average lies between its minimum and maximum. */
#ifndef RD_FUZZ_METRICS_CHECK_H
#define RD_FUZZ_METRICS_CHECK_H

#include <math.h>
#include <string.h>

#include <jansson.h>

#include "fuzz.h"
#include "metrics.h"

/* The stat of a series key ("gpu_temp_c:3" -> gpu_temp_c). */
static inline const metrics_stat *fuzz_series_stat(const char *series)
{
    char name[METRICS_SERIES_MAX];
    snprintf(name, sizeof name, "%s", series);
    name[strcspn(name, ":")] = '\0';
    const metrics_stat *st = metrics_stat_find(name);
    FUZZ_CHECK(st != NULL);
    return st;
}

static inline void fuzz_check_in_range(const metrics_stat *st, const json_t *v)
{
    FUZZ_CHECK(json_is_integer(v));
    json_int_t x = json_integer_value(v);
    FUZZ_CHECK(x >= (json_int_t)llround(st->min * 100) && x <= (json_int_t)llround(st->max * 100));
}

/* A point [min, avg, max] or null. */
static inline void fuzz_check_point(const metrics_stat *st, const json_t *p)
{
    if (json_is_null(p))
        return;
    FUZZ_CHECK(json_is_array(p) && json_array_size(p) == 3);
    for (size_t i = 0; i < 3; i++)
        fuzz_check_in_range(st, json_array_get(p, i));
    json_int_t lo = json_integer_value(json_array_get(p, 0)), avg = json_integer_value(json_array_get(p, 1)),
               hi = json_integer_value(json_array_get(p, 2));
    FUZZ_CHECK(lo <= avg && avg <= hi);
}

/* series -> [points] */
static inline void fuzz_check_rows(const json_t *rows)
{
    const char *k;
    json_t *row, *p;
    size_t i;
    json_object_foreach((json_t *)rows, k, row) {
        const metrics_stat *st = fuzz_series_stat(k);
        json_array_foreach(row, i, p)
            fuzz_check_point(st, p);
    }
}

/* series -> accumulator [min, sum, max, n] */
static inline void fuzz_check_accs(const json_t *accs)
{
    const char *k;
    json_t *a;
    json_object_foreach((json_t *)accs, k, a) {
        const metrics_stat *st = fuzz_series_stat(k);
        FUZZ_CHECK(json_array_size(a) == 4);
        fuzz_check_in_range(st, json_array_get(a, 0));
        fuzz_check_in_range(st, json_array_get(a, 2));
        FUZZ_CHECK(json_integer_value(json_array_get(a, 3)) > 0);
        FUZZ_CHECK(json_integer_value(json_array_get(a, 1)) >= 0);
    }
}

static inline void fuzz_check_agg(const metrics_agg *m)
{
    json_t *now = metrics_agg_now(m);
    const char *k;
    json_t *v, *doc;
    FUZZ_CHECK(now != NULL);
    json_object_foreach(json_object_get(now, "last"), k, v)
        fuzz_check_in_range(fuzz_series_stat(k), v);
    fuzz_check_accs(json_object_get(json_object_get(now, "minute"), "series"));
    fuzz_check_accs(json_object_get(json_object_get(now, "hour"), "series"));
    fuzz_check_rows(json_object_get(json_object_get(now, "block"), "points"));
    json_object_foreach((json_t *)metrics_agg_pending_docs(m), k, doc)
        fuzz_check_rows(json_object_get(doc, "points"));
    json_decref(now);
}

#endif
