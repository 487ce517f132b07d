/* metrics_read.c - reading the vital stats history back: the points of one
 * series over a window and a node's latest reading (metrics.h).
 *
 * A window touches only the blocks or days it covers (an hour of minutes is
 * six block reads and the node's `now`), so a console that follows one node
 * costs the same on a fleet of ten nodes as on ten thousand.  Slots are
 * reused, so every stored block is checked against the start it should
 * have: a slot still holding the block of two days ago is skipped.
 */
#include "metrics_int.h"

#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "grow.h"
#include "keyspace.h"

typedef struct {
    metrics_point *pts;
    size_t n, cap;
    rd_time since, until;
    int step, nomem;
} point_list;

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

struct metrics_window {
    int step;
    rd_time since, until;
    json_t *now;      /* the node's `now` document, or NULL */
    json_t *rows;     /* [[start, points object], ...] of the stored blocks or days, in time order */
};

static rd_code read_range_doc(rd_tx *tx, const char *key, rd_time start, json_t *rows, rd_err *err)
{
    json_t *doc = NULL;
    rd_code rc = tx_get(tx, key, &doc, err);
    /* a slot may still hold an older block or day */
    if (rc == RD_OK && doc && doc_time(doc, "start") == start)
        json_array_append_new(rows, json_pack("[I, O]", (json_int_t)start, json_object_get(doc, "points")));
    json_decref(doc);
    return rc;
}

static rd_code window_read_minutes(rd_tx *tx, const char *node, metrics_window *w, rd_err *err)
{
    char key[RD_KEY_MAX];
    const json_t *nblock = json_object_get(w->now, "block");
    rd_time now_block = doc_time(nblock, "start");
    rd_time first = metrics_floor(w->since, METRICS_BLOCK), last = metrics_floor(w->until - 1, METRICS_BLOCK);
    if ((last - first) / METRICS_BLOCK >= METRICS_MINUTE_SLOTS)
        first = last - (METRICS_MINUTE_SLOTS - 1) * METRICS_BLOCK;
    for (rd_time b = first; b <= last; b += METRICS_BLOCK) {
        if (b == now_block) {
            json_array_append_new(w->rows, json_pack("[I, O]", (json_int_t)b, json_object_get(nblock, "points")));
            continue;
        }
        long slot = (long)((b / METRICS_BLOCK) % METRICS_MINUTE_SLOTS);
        rd_code rc = read_range_doc(tx, tx_key(key, KEY_METRICS "min/%s/%03ld", node, slot), b, w->rows, err);
        if (rc != RD_OK)
            return rc;
    }
    return RD_OK;
}

static rd_code window_read_hours(rd_tx *tx, const char *node, metrics_window *w, rd_err *err)
{
    char key[RD_KEY_MAX];
    rd_time first = metrics_floor(w->since, METRICS_DAY), last = metrics_floor(w->until - 1, METRICS_DAY);
    if ((last - first) / METRICS_DAY >= METRICS_DAY_SLOTS)
        first = last - (METRICS_DAY_SLOTS - 1) * METRICS_DAY;
    for (rd_time d = first; d <= last; d += METRICS_DAY) {
        long slot = (long)((d / METRICS_DAY) % METRICS_DAY_SLOTS);
        rd_code rc = read_range_doc(tx, tx_key(key, KEY_METRICS "hour/%s/%02ld", node, slot), d, w->rows, err);
        if (rc != RD_OK)
            return rc;
    }
    return RD_OK;
}

/* The hour in progress: its finished minutes and the minute in progress. */
static void list_add_open_hour(point_list *l, const json_t *now, const char *series)
{
    const json_t *hour = json_object_get(json_object_get(json_object_get(now, "hour"), "series"), series);
    const json_t *minute = json_object_get(json_object_get(json_object_get(now, "minute"), "series"), series);
    rd_time ht = doc_time(json_object_get(now, "hour"), "t");
    int64_t lo = INT64_MAX, hi = INT64_MIN, n = 0;
    double sum = 0;
    if (!ht)
        return;
    if (json_array_size(hour) == 4 && json_integer_value(json_array_get(hour, 3)) > 0) {
        lo = json_integer_value(json_array_get(hour, 0));
        sum = (double)json_integer_value(json_array_get(hour, 1));
        hi = json_integer_value(json_array_get(hour, 2));
        n = json_integer_value(json_array_get(hour, 3));
    }
    int64_t mn = json_integer_value(json_array_get(minute, 3));
    if (json_array_size(minute) == 4 && mn > 0) {
        int64_t mlo = json_integer_value(json_array_get(minute, 0)), mhi = json_integer_value(json_array_get(minute, 2));
        lo = mlo < lo ? mlo : lo;
        hi = mhi > hi ? mhi : hi;
        sum += (double)json_integer_value(json_array_get(minute, 1)) / (double)mn;
        n++;
    }
    if (n > 0)
        list_add(l, ht, (double)lo / 100.0, sum / (double)n / 100.0, (double)hi / 100.0);
}

rd_code metrics_window_read(rd_tx *tx, const char *node, int step, rd_time since, rd_time until,
                            metrics_window **out, rd_err *err)
{
    char key[RD_KEY_MAX];
    *out = NULL;
    if (step != METRICS_MINUTE && step != METRICS_HOUR)
        return rd_fail(err, RD_EINVAL, "--step: must be 1m or 1h");
    metrics_window *w = calloc(1, sizeof *w);
    if (!w || !(w->rows = json_array())) {
        free(w);
        return rd_fail(err, RD_ENOMEM, "metrics: out of memory");
    }
    w->step = step;
    w->since = since;
    w->until = until;
    rd_code rc = until > since ? tx_get(tx, tx_key(key, KEY_METRICS "now/%s", node), &w->now, err) : RD_OK;
    if (rc == RD_OK && until > since)
        rc = step == METRICS_MINUTE ? window_read_minutes(tx, node, w, err) : window_read_hours(tx, node, w, err);
    if (rc != RD_OK) {
        metrics_window_free(w);
        return rc;
    }
    *out = w;
    return RD_OK;
}

rd_code metrics_window_points(const metrics_window *w, const char *series, metrics_point **pts, size_t *n,
                              rd_err *err)
{
    point_list l = { .since = w->since, .until = w->until, .step = w->step };
    size_t i;
    json_t *row;
    *pts = NULL;
    *n = 0;
    json_array_foreach(w->rows, i, row)
        list_add_row(&l, json_object_get(json_array_get(row, 1), series), json_integer_value(json_array_get(row, 0)));
    if (w->step == METRICS_MINUTE) {
        const json_t *minute = json_object_get(w->now, "minute");
        list_add_open(&l, json_object_get(json_object_get(minute, "series"), series), doc_time(minute, "t"));
    } else {
        list_add_open_hour(&l, w->now, series);
    }
    if (l.nomem) {
        free(l.pts);
        return rd_fail(err, RD_ENOMEM, "metrics: out of memory");
    }
    *pts = l.pts;
    *n = l.n;
    return RD_OK;
}

void metrics_window_free(metrics_window *w)
{
    if (!w)
        return;
    json_decref(w->now);
    json_decref(w->rows);
    free(w);
}

rd_code metrics_read_points(rd_tx *tx, const char *node, const char *series, int step, rd_time since, rd_time until,
                            metrics_point **pts, size_t *n, rd_err *err)
{
    metrics_window *w = NULL;
    *pts = NULL;
    *n = 0;
    rd_code rc = metrics_window_read(tx, node, step, since, until, &w, err);
    if (rc == RD_OK)
        rc = metrics_window_points(w, series, pts, n, err);
    metrics_window_free(w);
    return rc;
}

/* The node's latest reading: {"node", "sampled_at", "last"}. */
static rd_code read_last(rd_tx *tx, const char *node, json_t **last, rd_err *err)
{
    char key[RD_KEY_MAX];
    return tx_get(tx, tx_key(key, KEY_METRICS "last/%s", node), last, err);
}

rd_code metrics_read_latest(rd_tx *tx, const char *node, json_t **latest, rd_err *err)
{
    json_t *now = NULL;
    *latest = NULL;
    rd_code rc = read_last(tx, node, &now, err);
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
