/* metrics_read.c - reading the vital stats history back: the points of one
 * series over a window and a node's latest reading (metrics.h).
 *
 * A window touches only the blocks or days it covers (an hour of minutes is
 * six block reads and the node's `now`), so a console that follows one node
 * costs the same on a fleet of ten nodes as on ten thousand.  Slots are
 * reused, so every stored block is checked against the start it should
 * have: a slot still holding the block of two days ago is skipped.
 */
#include "metrics.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "keyspace.h"

enum { MINUTE = 60, BLOCK = 60 * METRICS_BLOCK_MINUTES, HOUR = 3600, DAY = 86400 };

typedef struct {
    metrics_point *pts;
    size_t n, cap;
    rd_time since, until;
    int step, nomem;
} point_list;

static rd_time floor_to(rd_time t, rd_time step)
{
    rd_time r = t % step;
    return t - (r < 0 ? r + step : r);
}

static rd_time doc_time(const json_t *doc, const char *field)
{
    rd_time t = 0;
    const char *s = json_string_value(json_object_get(doc, field));
    return s && rdtime_parse(field, s, &t, NULL) == RD_OK ? t : 0;
}

static double hundredths(const json_t *v)
{
    return (double)json_integer_value(v) / 100.0;
}

/* Appends the point of t when its period overlaps the window and it comes
 * after the last one (a block and `now` may both hold a minute). */
static void list_add(point_list *l, rd_time t, double lo, double avg, double hi)
{
    if (t >= l->until || t + l->step <= l->since || (l->n && l->pts[l->n - 1].t >= t))
        return;
    if (grow_array(&l->pts, &l->cap, l->n + 1, sizeof *l->pts) != 0) {
        l->nomem = 1;
        return;
    }
    l->pts[l->n++] = (metrics_point){ t, lo, avg, hi };
}

/* The points of a row of finished periods [min, avg, max] starting at start. */
static void list_add_row(point_list *l, const json_t *row, rd_time start)
{
    size_t i;
    json_t *p;
    json_array_foreach(row, i, p)
        if (json_array_size(p) == 3)
            list_add(l, start + (rd_time)i * l->step, hundredths(json_array_get(p, 0)),
                     hundredths(json_array_get(p, 1)), hundredths(json_array_get(p, 2)));
}

/* The point of an open accumulator [min, sum, max, n]. */
static void list_add_open(point_list *l, const json_t *acc, rd_time t)
{
    int64_t n = json_integer_value(json_array_get(acc, 3));
    if (json_array_size(acc) != 4 || n <= 0)
        return;
    double sum = (double)json_integer_value(json_array_get(acc, 1));
    list_add(l, t, hundredths(json_array_get(acc, 0)), sum / (double)n / 100.0, hundredths(json_array_get(acc, 2)));
}

static rd_code read_range_doc(rd_tx *tx, const char *key, rd_time start, json_t **doc, rd_err *err)
{
    rd_code rc = tx_get(tx, key, doc, err);
    if (rc == RD_OK && *doc && doc_time(*doc, "start") != start) {
        json_decref(*doc);   /* the slot holds an older block or day */
        *doc = NULL;
    }
    return rc;
}

static rd_code read_minutes(rd_tx *tx, const char *node, const char *series, const json_t *now, point_list *l,
                            rd_err *err)
{
    char key[RD_KEY_MAX];
    const json_t *nblock = json_object_get(now, "block");
    rd_time now_block = doc_time(nblock, "start");
    rd_time first = floor_to(l->since, BLOCK), last = floor_to(l->until - 1, BLOCK);
    if ((last - first) / BLOCK >= METRICS_MINUTE_SLOTS)
        first = last - (METRICS_MINUTE_SLOTS - 1) * BLOCK;
    for (rd_time b = first; b <= last; b += BLOCK) {
        if (b == now_block) {
            list_add_row(l, json_object_get(json_object_get(nblock, "points"), series), b);
            continue;
        }
        json_t *doc = NULL;
        long slot = (long)((b / BLOCK) % METRICS_MINUTE_SLOTS);
        rd_code rc = read_range_doc(tx, tx_key(key, KEY_METRICS "min/%s/%03ld", node, slot), b, &doc, err);
        if (rc != RD_OK)
            return rc;
        list_add_row(l, json_object_get(json_object_get(doc, "points"), series), b);
        json_decref(doc);
    }
    const json_t *minute = json_object_get(now, "minute");
    list_add_open(l, json_object_get(json_object_get(minute, "series"), series), doc_time(minute, "t"));
    return RD_OK;
}

static rd_code read_hours(rd_tx *tx, const char *node, const char *series, const json_t *now, point_list *l,
                          rd_err *err)
{
    char key[RD_KEY_MAX];
    rd_time first = floor_to(l->since, DAY), last = floor_to(l->until - 1, DAY);
    if ((last - first) / DAY >= METRICS_DAY_SLOTS)
        first = last - (METRICS_DAY_SLOTS - 1) * DAY;
    for (rd_time d = first; d <= last; d += DAY) {
        json_t *doc = NULL;
        long slot = (long)((d / DAY) % METRICS_DAY_SLOTS);
        rd_code rc = read_range_doc(tx, tx_key(key, KEY_METRICS "hour/%s/%02ld", node, slot), d, &doc, err);
        if (rc != RD_OK)
            return rc;
        list_add_row(l, json_object_get(json_object_get(doc, "points"), series), d);
        json_decref(doc);
    }
    /* The hour in progress: its finished minutes and the minute in progress. */
    const json_t *hour = json_object_get(json_object_get(json_object_get(now, "hour"), "series"), series);
    const json_t *minute = json_object_get(json_object_get(json_object_get(now, "minute"), "series"), series);
    rd_time ht = doc_time(json_object_get(now, "hour"), "t");
    if (!ht || (!hour && !minute))
        return RD_OK;
    int64_t lo = INT64_MAX, hi = INT64_MIN, sum = 0, n = 0;
    if (json_array_size(hour) == 4 && json_integer_value(json_array_get(hour, 3)) > 0) {
        lo = json_integer_value(json_array_get(hour, 0));
        sum = json_integer_value(json_array_get(hour, 1));
        hi = json_integer_value(json_array_get(hour, 2));
        n = json_integer_value(json_array_get(hour, 3));
    }
    int64_t mn = json_integer_value(json_array_get(minute, 3));
    if (json_array_size(minute) == 4 && mn > 0) {
        int64_t mlo = json_integer_value(json_array_get(minute, 0)), mhi = json_integer_value(json_array_get(minute, 2));
        lo = mlo < lo ? mlo : lo;
        hi = mhi > hi ? mhi : hi;
        sum += json_integer_value(json_array_get(minute, 1)) / mn;
        n++;
    }
    if (n > 0)
        list_add(l, ht, (double)lo / 100.0, (double)sum / (double)n / 100.0, (double)hi / 100.0);
    return RD_OK;
}

static rd_code read_now(rd_tx *tx, const char *node, json_t **now, rd_err *err)
{
    char key[RD_KEY_MAX];
    return tx_get(tx, tx_key(key, KEY_METRICS "now/%s", node), now, err);
}

rd_code metrics_read_points(rd_tx *tx, const char *node, const char *series, int step, rd_time since, rd_time until,
                            metrics_point **pts, size_t *n, rd_err *err)
{
    point_list l = { .since = since, .until = until, .step = step };
    json_t *now = NULL;
    *pts = NULL;
    *n = 0;
    if (step != MINUTE && step != HOUR)
        return rd_fail(err, RD_EINVAL, "--step: must be 1m or 1h");
    if (until <= since)
        return RD_OK;
    rd_code rc = read_now(tx, node, &now, err);
    if (rc == RD_OK)
        rc = step == MINUTE ? read_minutes(tx, node, series, now, &l, err) : read_hours(tx, node, series, now, &l, err);
    json_decref(now);
    if (rc == RD_OK && l.nomem)
        rc = rd_fail(err, RD_ENOMEM, "metrics: out of memory");
    if (rc != RD_OK) {
        free(l.pts);
        return rc;
    }
    *pts = l.pts;
    *n = l.n;
    return RD_OK;
}

rd_code metrics_read_latest(rd_tx *tx, const char *node, json_t **latest, rd_err *err)
{
    json_t *now = NULL;
    *latest = NULL;
    rd_code rc = read_now(tx, node, &now, err);
    if (rc != RD_OK || !now)
        return rc;
    json_t *values = json_object();
    const char *key;
    json_t *v;
    json_object_foreach(json_object_get(now, "last"), key, v)
        if (json_is_integer(v))
            json_object_set_new(values, key, json_real(hundredths(v)));
    *latest = json_pack("{s:O?, s:o}", "sampled_at", json_object_get(now, "sampled_at"), "values", values);
    json_decref(now);
    return *latest ? RD_OK : rd_fail(err, RD_ENOMEM, "metrics: out of memory");
}
