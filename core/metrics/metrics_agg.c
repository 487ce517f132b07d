/* metrics_agg.c - the agent's side of the vital stats history: folds each
 * sample into the minute in progress, finished minutes into the 10-minute
 * block and the hour in progress, finished hours into the UTC day, and
 * decides when the store must hear from the node (metrics.h has the
 * document layout).
 *
 * All values are integers in hundredths of the stat's unit.  While a minute
 * or hour is open it is an accumulator [min, sum, max, n] (n samples, or n
 * finished minutes for an hour), so an agent that restarts continues it
 * exactly; once finished it becomes the point [min, avg, max].  Every
 * reading is first bounded to its stat's range (metrics_stat_bound) and
 * the sums saturate, so no input overflows them and an average always
 * lies between its minimum and maximum; a restored accumulator or point
 * that could not have come from bounded readings is not continued.
 *
 * A block is written when it closes, a day each time one of its hours
 * closes; both wait in `pending` until a commit succeeds (at most
 * METRICS_STAGE_MAX a transaction: etcd caps a transaction's operations, so
 * a store back from a long outage is caught up over a few writes), so a store that is
 * down for a while loses nothing that closed meanwhile.
 */
#include "metrics_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "keyspace.h"

struct metrics_agg {
    char node[128];
    rd_time minute_t, block_t, hour_t, day_t;   /* starts of what is open; minute_t 0: nothing yet */
    json_t *minute;        /* series -> [min, sum, max, n] */
    json_t *block;         /* series -> [10 × (null | [min, avg, max])] */
    json_t *hour;          /* series -> [min, sum of minute avgs, max, minutes] */
    json_t *day;           /* series -> [24 × (null | [min, avg, max])] */
    json_t *last;          /* series -> the latest sample */
    rd_time sampled_at;
    json_t *written_last;  /* last as the store has it; NULL: nothing written yet */
    int minute_closed;     /* a minute finished since the last write */
    int moved;             /* a reading left its dead band since the last write */
    int urgent;            /* ... a health stat's, or a GPU came or went: write at once */
    rd_time written_at;    /* the sample time of the last write */
    json_t *pending;       /* key -> closed block or day document not yet written */
    json_t *staged;        /* the keys of pending the last stage put in its transaction */
};

rd_time metrics_floor(rd_time t, rd_time step)
{
    rd_time r = t % step;
    return t - (r < 0 ? r + step : r);
}

metrics_agg *metrics_agg_new(const char *node)
{
    metrics_agg *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    snprintf(m->node, sizeof m->node, "%s", node);
    m->minute = json_object();
    m->block = json_object();
    m->hour = json_object();
    m->day = json_object();
    m->last = json_object();
    m->pending = json_object();
    m->staged = json_array();
    if (!m->minute || !m->block || !m->hour || !m->day || !m->last || !m->pending || !m->staged) {
        metrics_agg_free(m);
        return NULL;
    }
    return m;
}

void metrics_agg_free(metrics_agg *m)
{
    if (!m)
        return;
    json_decref(m->minute);
    json_decref(m->block);
    json_decref(m->hour);
    json_decref(m->day);
    json_decref(m->last);
    json_decref(m->written_last);
    json_decref(m->pending);
    json_decref(m->staged);
    free(m);
}

static int64_t at(const json_t *arr, size_t i)
{
    return (int64_t)json_integer_value(json_array_get(arr, i));
}

/* a + b, saturating at the ends of int64 instead of overflowing: every
 * reading is bounded (metrics_stat_bound), but an accumulator restored from
 * the store may hold anything. */
static int64_t sat_add(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

/* Adds v to the accumulator acc[key] = [min, sum, max, n]. */
static void acc_add(json_t *acc, const char *key, int64_t v)
{
    json_t *a = json_object_get(acc, key);
    if (!a) {
        json_object_set_new(acc, key, json_pack("[I, I, I, i]", (json_int_t)v, (json_int_t)v, (json_int_t)v, 1));
        return;
    }
    int64_t lo = at(a, 0), sum = at(a, 1), hi = at(a, 2), n = at(a, 3);
    json_array_set_new(a, 0, json_integer(v < lo ? v : lo));
    json_array_set_new(a, 1, json_integer(sat_add(sum, v)));
    json_array_set_new(a, 2, json_integer(v > hi ? v : hi));
    json_array_set_new(a, 3, json_integer(n < 0 ? 1 : sat_add(n, 1)));
}

/* The point [min, avg, max] of an accumulator (avg rounded half away from
 * zero, and never outside [min, max]: a sum that saturated, or an
 * accumulator from the store that does not add up, cannot make it so). */
static json_t *acc_point(const json_t *a)
{
    int64_t lo = at(a, 0), sum = at(a, 1), hi = at(a, 2), n = at(a, 3);
    int64_t avg = 0;
    if (n > 0) {
        int64_t q = sum / n, r = sum % n;   /* no overflow: n > 0 */
        /* round half away from zero without forming sum + n/2 */
        if (r >= 0 ? r >= n - r : -r >= n + r)
            q += r >= 0 ? 1 : -1;
        avg = q;
    }
    if (lo <= hi)
        avg = avg < lo ? lo : avg > hi ? hi : avg;
    return json_pack("[I, I, I]", (json_int_t)lo, (json_int_t)avg, (json_int_t)hi);
}

/* points[key][i] = point, growing a row of len nulls for a new series. */
static void row_set(json_t *points, const char *key, size_t len, size_t i, json_t *point)
{
    json_t *row = json_object_get(points, key);
    if (!row) {
        row = json_array();
        for (size_t k = 0; k < len; k++)
            json_array_append_new(row, json_null());
        json_object_set_new(points, key, row);
        row = json_object_get(points, key);   /* NULL when that failed (and freed it) */
    }
    if (i < len)
        json_array_set_new(row, i, point);
    else
        json_decref(point);
}

/* A block or day document; takes the reference to points. */
static json_t *range_doc(const metrics_agg *m, const char *step, rd_time start, json_t *points)
{
    char ts[RDTIME_BUFLEN];
    return json_pack("{s:s, s:s, s:s, s:o}", "node", m->node, "step", step, "start", rdtime_format(start, ts),
                     "points", points);
}

static void close_minute(metrics_agg *m)
{
    const char *key;
    json_t *a;
    size_t i = (size_t)((m->minute_t - m->block_t) / METRICS_MINUTE);
    json_object_foreach(m->minute, key, a) {
        json_t *p = acc_point(a);
        row_set(m->block, key, METRICS_BLOCK_MINUTES, i, json_incref(p));
        acc_add(m->hour, key, at(p, 1));
        /* the hour's min and max are the minutes' extremes, not their averages */
        json_t *h = json_object_get(m->hour, key);
        if (at(p, 0) < at(h, 0))
            json_array_set_new(h, 0, json_integer(at(p, 0)));
        if (at(p, 2) > at(h, 2))
            json_array_set_new(h, 2, json_integer(at(p, 2)));
        json_decref(p);
    }
    json_object_clear(m->minute);
    m->minute_closed = 1;
}

static void close_block(metrics_agg *m)
{
    char key[RD_KEY_MAX];
    if (json_object_size(m->block) > 0) {
        long slot = (long)((m->block_t / METRICS_BLOCK) % METRICS_MINUTE_SLOTS);
        tx_key(key, KEY_METRICS "min/%s/%03ld", m->node, slot);
        json_object_set_new(m->pending, key, range_doc(m, "1m", m->block_t, m->block));
        m->block = json_object();
    }
}

static void close_hour(metrics_agg *m)
{
    char key[RD_KEY_MAX];
    const char *series;
    json_t *a;
    if (json_object_size(m->hour) == 0)
        return;
    size_t i = (size_t)((m->hour_t - m->day_t) / METRICS_HOUR);
    json_object_foreach(m->hour, series, a)
        row_set(m->day, series, 24, i, acc_point(a));
    json_object_clear(m->hour);
    long slot = (long)((m->day_t / METRICS_DAY) % METRICS_DAY_SLOTS);
    tx_key(key, KEY_METRICS "hour/%s/%02ld", m->node, slot);
    json_object_set_new(m->pending, key, range_doc(m, "1h", m->day_t, json_deep_copy(m->day)));
}

/* Moves the open periods on to the minute of t, closing what ended. */
static void advance(metrics_agg *m, rd_time t)
{
    rd_time mt = metrics_floor(t, METRICS_MINUTE);
    if (m->minute_t && mt <= m->minute_t)
        return;   /* the same minute (or a clock that stepped back: keep folding into it) */
    if (m->minute_t)
        close_minute(m);
    if (!m->minute_t || metrics_floor(mt, METRICS_BLOCK) != m->block_t)
        close_block(m);
    if (!m->minute_t || metrics_floor(mt, METRICS_HOUR) != m->hour_t)
        close_hour(m);
    if (!m->minute_t || metrics_floor(mt, METRICS_DAY) != m->day_t)
        json_object_clear(m->day);
    m->minute_t = mt;
    m->block_t = metrics_floor(mt, METRICS_BLOCK);
    m->hour_t = metrics_floor(mt, METRICS_HOUR);
    m->day_t = metrics_floor(mt, METRICS_DAY);
}

/* Folds one reading of stat into series key, brought into the stat's range
 * first (core/agent's samples are bounded already; this holds for every
 * caller, `metrics import` and tests included). */
static void set_last(metrics_agg *m, const metrics_stat *stat, const char *key, const json_t *v)
{
    if (!json_is_number(v))
        return;
    int64_t x = (int64_t)llround(metrics_stat_bound(stat, json_number_value(v)) * 100.0);
    json_object_set_new(m->last, key, json_integer(x));
    acc_add(m->minute, key, x);
}

/* 2 when a health stat left its dead band since the last write or a
 * series came or went (a GPU fell off the bus), 1 when another stat did,
 * else 0. */
static int moved_since_write(const metrics_agg *m)
{
    const char *key;
    json_t *v;
    int moved = 0;
    if (!m->written_last || json_object_size(m->written_last) != json_object_size(m->last))
        return 2;
    json_object_foreach(m->last, key, v) {
        json_t *w = json_object_get(m->written_last, key);
        if (!w)
            return 2;
        char stat[METRICS_SERIES_MAX];
        snprintf(stat, sizeof stat, "%s", key);
        char *colon = strchr(stat, ':');
        if (colon)
            *colon = '\0';
        const metrics_stat *s = metrics_stat_find(stat);
        double band = s ? s->dead_band * 100.0 : 0.0;
        double d = (double)(json_integer_value(v) - json_integer_value(w));
        if (fabs(d) > band || (band == 0.0 && d != 0.0)) {
            if (s && s->health)
                return 2;
            moved = 1;
        }
    }
    return moved;
}

void metrics_agg_add(metrics_agg *m, const json_t *stats, rd_time t)
{
    char key[METRICS_SERIES_MAX];
    advance(m, t);
    m->sampled_at = t;
    json_object_clear(m->last);
    for (size_t i = 0; i < metrics_stat_count(); i++) {
        const metrics_stat *s = metrics_stat_at(i);
        if (!s->per_gpu) {
            set_last(m, s, s->name, json_object_get(stats, s->name));
            continue;
        }
        size_t k;
        json_t *g;
        json_array_foreach(json_object_get(stats, "gpus"), k, g) {
            json_t *idx = json_object_get(g, "index");
            if (json_is_integer(idx))
                set_last(m, s, metrics_series_key(key, s, (int)json_integer_value(idx)), json_object_get(g, s->name));
        }
    }
    int moved = moved_since_write(m);
    m->moved = m->moved || moved > 0;
    m->urgent = m->urgent || moved == 2;
}

int metrics_agg_due(const metrics_agg *m)
{
    if (!m->minute_t)
        return 0;
    if (!m->written_last || m->urgent)
        return 1;
    return m->sampled_at - m->written_at >= 60 &&
           (m->minute_closed || m->moved || json_object_size(m->pending) > 0);
}

/* Stages up to METRICS_STAGE_MAX closed blocks and days, remembering which. */
static rd_code stage_pending(metrics_agg *m, rd_tx *tx, rd_err *err)
{
    const char *k;
    json_t *doc;
    rd_code rc = RD_OK;
    json_array_clear(m->staged);
    json_object_foreach(m->pending, k, doc) {
        if (rc != RD_OK || json_array_size(m->staged) >= METRICS_STAGE_MAX)
            break;
        rc = tx_put(tx, k, json_incref(doc), err);
        json_array_append_new(m->staged, json_string(k));
    }
    return rc;
}

rd_code metrics_agg_stage_closed(metrics_agg *m, rd_tx *tx, rd_err *err)
{
    return stage_pending(m, tx, err);
}

json_t *metrics_agg_now(const metrics_agg *m)
{
    char ts[RDTIME_BUFLEN], mt[RDTIME_BUFLEN], bt[RDTIME_BUFLEN], ht[RDTIME_BUFLEN];
    return json_pack("{s:s, s:s, s:O, s:{s:s, s:O}, s:{s:s, s:O}, s:{s:s, s:O}}", "node", m->node, "sampled_at",
                     rdtime_format(m->sampled_at, ts), "last", m->last, "minute", "t", rdtime_format(m->minute_t, mt),
                     "series", m->minute, "block", "start", rdtime_format(m->block_t, bt), "points", m->block, "hour",
                     "t", rdtime_format(m->hour_t, ht), "series", m->hour);
}

const json_t *metrics_agg_pending_docs(const metrics_agg *m)
{
    return m->pending;
}

rd_code metrics_agg_stage(metrics_agg *m, rd_tx *tx, rd_err *err)
{
    char key[RD_KEY_MAX], ts[RDTIME_BUFLEN];
    rd_code rc = stage_pending(m, tx, err);
    if (rc != RD_OK)
        return rc;
    json_t *now = metrics_agg_now(m);
    rdtime_format(m->sampled_at, ts);
    /* the latest reading alone too, in the same transaction: the fleet's
     * totals and the alerts read 10,000 of these, not 10,000 `now`s */
    json_t *last = json_pack("{s:s, s:s, s:O}", "node", m->node, "sampled_at", ts, "last", m->last);
    if (!now || !last) {
        json_decref(now);
        json_decref(last);
        return rd_fail(err, RD_ENOMEM, "metrics: out of memory");
    }
    rc = tx_put(tx, tx_key(key, KEY_METRICS "now/%s", m->node), now, err);
    if (rc == RD_OK)
        rc = tx_put(tx, tx_key(key, KEY_METRICS "last/%s", m->node), last, err);
    else
        json_decref(last);
    return rc;
}

size_t metrics_agg_pending(const metrics_agg *m)
{
    return json_object_size(m->pending);
}

void metrics_agg_written(metrics_agg *m)
{
    size_t i;
    json_t *k;
    json_decref(m->written_last);
    m->written_last = json_deep_copy(m->last);
    m->minute_closed = 0;
    m->moved = 0;
    m->urgent = 0;
    m->written_at = m->sampled_at;
    json_array_foreach(m->staged, i, k)
        json_object_del(m->pending, json_string_value(k));
    json_array_clear(m->staged);
}

/* ---- picking up a previous agent's documents ------------------------------ */

/* The range of series key's stat in hundredths, as stored; 0 when the key
 * names no stat. */
static int series_range(const char *key, int64_t *lo, int64_t *hi)
{
    char name[METRICS_SERIES_MAX];
    snprintf(name, sizeof name, "%s", key);
    name[strcspn(name, ":")] = '\0';
    const metrics_stat *st = metrics_stat_find(name);
    if (!st)
        return 0;
    *lo = (int64_t)llround(st->min * 100.0);
    *hi = (int64_t)llround(st->max * 100.0);
    return 1;
}

/* n integers of arr (an array of exactly n) into v, all within [lo, hi]. */
static int ints_in(const json_t *arr, size_t n, int64_t lo, int64_t hi, int64_t *v)
{
    if (!json_is_array(arr) || json_array_size(arr) != n)
        return 0;
    for (size_t i = 0; i < n; i++) {
        const json_t *x = json_array_get(arr, i);
        if (!json_is_integer(x))
            return 0;
        v[i] = (int64_t)json_integer_value(x);
        if (v[i] < lo || v[i] > hi)
            return 0;
    }
    return 1;
}

/* An accumulator [min, sum, max, n] a bounded agent could have written:
 * n > 0 readings within the stat's range whose sum lies in [n*min, n*max]. */
static int acc_ok(const char *key, const json_t *a)
{
    int64_t lo, hi, v[4], s_lo, s_hi;
    if (!series_range(key, &lo, &hi) || !ints_in(a, 4, INT64_MIN, INT64_MAX, v))
        return 0;
    if (v[3] <= 0 || v[0] < lo || v[2] > hi || v[0] > v[2])
        return 0;
    if (__builtin_mul_overflow(v[0], v[3], &s_lo) || __builtin_mul_overflow(v[2], v[3], &s_hi))
        return 0;
    return v[1] >= s_lo && v[1] <= s_hi;
}

/* A point [min, avg, max] within the stat's range, min <= avg <= max. */
static int point_ok(const char *key, const json_t *p)
{
    int64_t lo, hi, v[3];
    return series_range(key, &lo, &hi) && ints_in(p, 3, lo, hi, v) && v[0] <= v[1] && v[1] <= v[2];
}

/* into[series] = from[series] (copies) for each accumulator that adds up;
 * one that does not (written before readings were bounded, or by hand) is
 * dropped: its minute or hour starts afresh rather than overflowing. */
static void restore_accs(json_t *into, const json_t *from)
{
    const char *k;
    json_t *a;
    json_object_foreach((json_t *)from, k, a)
        if (acc_ok(k, a))
            json_object_set_new(into, k, json_deep_copy(a));
}

/* The same for rows of len points (or nulls); a bad point becomes null. */
static void restore_rows(json_t *into, const json_t *from, size_t len)
{
    const char *k;
    json_t *row;
    int64_t lo, hi;
    json_object_foreach((json_t *)from, k, row) {
        if (!series_range(k, &lo, &hi) || !json_is_array(row) || json_array_size(row) != len)
            continue;
        json_t *copy = json_array();
        for (size_t i = 0; i < len; i++) {
            const json_t *p = json_array_get(row, i);
            json_array_append_new(copy, point_ok(k, p) ? json_deep_copy(p) : json_null());
        }
        json_object_set_new(into, k, copy);
    }
}

/* Latest readings within their stat's range. */
static json_t *restore_last(const json_t *from)
{
    json_t *last = json_object();
    const char *k;
    json_t *v;
    int64_t lo, hi;
    json_object_foreach((json_t *)from, k, v)
        if (series_range(k, &lo, &hi) && json_is_integer(v) && json_integer_value(v) >= lo &&
            json_integer_value(v) <= hi)
            json_object_set_new(last, k, json_incref(v));
    return last;
}

void metrics_agg_restore(metrics_agg *m, const json_t *now_doc, const json_t *day_doc, rd_time now)
{
    rd_time mt = doc_time(json_object_get(now_doc, "minute"), "t");
    if (!mt || mt > now || m->minute_t)
        return;   /* nothing to pick up (or from the future: a clock that was wrong) */
    json_t *minute = json_object_get(json_object_get(now_doc, "minute"), "series");
    json_t *block = json_object_get(json_object_get(now_doc, "block"), "points");
    json_t *hour = json_object_get(json_object_get(now_doc, "hour"), "series");
    if (!json_is_object(minute) || !json_is_object(block) || !json_is_object(hour))
        return;
    m->minute_t = mt;
    m->block_t = metrics_floor(mt, METRICS_BLOCK);
    m->hour_t = metrics_floor(mt, METRICS_HOUR);
    m->day_t = metrics_floor(mt, METRICS_DAY);
    /* deep copies (the open periods are changed in place from now on) of
     * what a bounded agent could have written: the store's documents are
     * input like any other */
    restore_accs(m->minute, minute);
    restore_rows(m->block, block, METRICS_BLOCK_MINUTES);
    restore_accs(m->hour, hour);
    json_t *day = json_object_get(day_doc, "points");
    if (json_is_object(day) && doc_time(day_doc, "start") == m->day_t)
        restore_rows(m->day, day, 24);
    json_t *last = json_object_get(now_doc, "last");
    if (json_is_object(last)) {
        json_t *ok = restore_last(last);
        json_object_update(m->last, ok);
        m->written_last = ok;
    }
    m->sampled_at = m->written_at = doc_time(now_doc, "sampled_at");
}
