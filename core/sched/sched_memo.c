/* sched_memo.c - the jobs a pass needs, read without scanning every job
 * the fleet ever ran.
 *
 * A pass needs the jobs with a waiting worker (it places them) and the
 * jobs with a running one (it stops those whose account ran out of
 * credit).  Ended jobs are never deleted, so a scan of the job prefix
 * grows with the fleet's history: on 100,000 jobs of which 3,000 wait it
 * was most of a second a pass.  A process that reads the queue again and
 * again (`rigdeck serve`, the console's `job why`) keeps, in its cmd_ctx,
 * the keys of the jobs that were waiting or running at revision R.  The
 * next read takes those keys plus every job key written after R (the
 * store's history) and reads only them, in key order, in one
 * store_get_many a chunk.  A job among neither was in neither state at R
 * and has not been written since, so it is in neither now: fn sees every
 * job a scan would show it with those words.  A read from the memo is
 * only worth it while it reads much less than a scan: when the memo holds
 * more than half the jobs (a queue as long as the history), or the
 * history since is longer than what is left of that half, it scans
 * instead, as it does when the history is compacted or slow to arrive; a
 * scan starts the memo afresh.  No writer takes part, so no binary that knows nothing of
 * the memo can hide a job from it.
 */
#include "sched_memo.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "keyspace.h"

enum {
    MEMO_MIN = 4096,         /* a read of this many keys and events is always cheap */
    MEMO_WAIT_MS = 2000,     /* the longest a backend may take to send the history */
    MEMO_CHUNK = 512         /* keys a store_get_many */
};

/* Keys in one block of text (a memo of 100,000 keys is two allocations,
 * not 100,000 that would pin the heap's pages between passes). */
typedef struct {
    char *text;              /* the keys, each NUL-terminated */
    size_t len, text_cap;
    size_t *at;              /* where each key starts in text */
    size_t n, cap;
} key_set;

typedef struct {
    char *url;               /* the store the memo speaks for */
    int64_t rev;             /* the revision its keys were right at */
    key_set keys;            /* jobs waiting or running then, sorted */
    size_t total;            /* jobs the last scan saw, plus job keys read since: a scan's size */
    int incremental;         /* how the last read went */
} sched_memo;

static void key_set_clear(key_set *s)
{
    free(s->text);
    free(s->at);
    memset(s, 0, sizeof *s);
}

static const char *key_at(const key_set *s, size_t i)
{
    return s->text + s->at[i];
}

static int key_set_add(key_set *s, const char *key)
{
    size_t klen = strlen(key) + 1;
    if (grow_array(&s->text, &s->text_cap, s->len + klen, 1) != 0 ||
        grow_array(&s->at, &s->cap, s->n + 1, sizeof *s->at) != 0)
        return -1;
    memcpy(s->text + s->len, key, klen);
    s->at[s->n++] = s->len;
    s->len += klen;
    return 0;
}

static int cmp_key(const void *a, const void *b, void *text)
{
    return strcmp((const char *)text + *(const size_t *)a, (const char *)text + *(const size_t *)b);
}

/* Sorted, each key once. */
static void key_set_sort(key_set *s)
{
    size_t out = 0;
    if (s->n)
        qsort_r(s->at, s->n, sizeof *s->at, cmp_key, s->text);
    for (size_t i = 0; i < s->n; i++)
        if (!out || strcmp(key_at(s, out - 1), key_at(s, i)) != 0)
            s->at[out++] = s->at[i];
    s->n = out;
}

static void memo_free(void *p)
{
    sched_memo *m = p;
    if (!m)
        return;
    key_set_clear(&m->keys);
    free(m->url);
    free(m);
}

/* The words that make a job one the memo keeps (the queue's and the
 * credit check's own first filters). */
static int memo_wants(const store_kv *kv)
{
    return memmem(kv->value, kv->value_len, "\"waiting_gpus\"", 14) ||
           memmem(kv->value, kv->value_len, "\"running\"", 9);
}

typedef struct {
    store_scan_fn fn;
    void *data;
    key_set next;            /* the keys the memo keeps after this read */
    size_t seen;
    int nomem;
} memo_read;

static int memo_see(store_kv *kv, void *data)
{
    memo_read *r = data;
    r->seen++;
    if (memo_wants(kv) && key_set_add(&r->next, kv->key) != 0)
        r->nomem = 1;
    return r->fn(kv, r->data);
}

/* What a read from the memo may cost, in keys and events, before a scan
 * is cheaper. */
static size_t memo_budget(const sched_memo *m)
{
    return m->total / 2 > MEMO_MIN ? m->total / 2 : MEMO_MIN;
}

/* The memo's keys plus every job key written in (m->rev, now] into ks;
 * 0 when the history cannot say, or says too much (then the caller scans). */
static int memo_keys_since(store_t *st, const sched_memo *m, int64_t now, key_set *ks)
{
    store_event *ev = NULL;
    size_t n = 0, budget = memo_budget(m);
    int more = 0, ok = 1;
    size_t plen = strlen(KEY_JOBS);
    if (m->keys.n >= budget ||
        (now > m->rev &&
         (store_history(st, m->rev, now, budget - m->keys.n, MEMO_WAIT_MS, &ev, &n, &more, NULL) != RD_OK || more)))
        return 0;
    for (size_t i = 0; i < n && ok; i++)
        if (strncmp(ev[i].kv.key, KEY_JOBS, plen) == 0)
            ok = key_set_add(ks, ev[i].kv.key) == 0;
    store_events_free(ev, n);
    for (size_t i = 0; i < m->keys.n && ok; i++)
        ok = key_set_add(ks, key_at(&m->keys, i)) == 0;
    if (ok)
        key_set_sort(ks);
    return ok;
}

/* Reads the keys of ks in order through memo_see, MEMO_CHUNK at a time. */
static rd_code memo_read_keys(store_t *st, const key_set *ks, memo_read *r, rd_err *err)
{
    store_kv kvs[MEMO_CHUNK];
    int found[MEMO_CHUNK];
    const char *keys[MEMO_CHUNK];
    rd_code rc = RD_OK;
    for (size_t at = 0; at < ks->n && rc == RD_OK; at += MEMO_CHUNK) {
        size_t m = ks->n - at < MEMO_CHUNK ? ks->n - at : MEMO_CHUNK;
        for (size_t i = 0; i < m; i++)
            keys[i] = key_at(ks, at + i);
        if ((rc = store_get_many(st, keys, m, kvs, found, NULL, err)) != RD_OK)
            break;
        for (size_t i = 0; i < m; i++) {
            if (found[i] && rc == RD_OK) {
                int stop = memo_see(&kvs[i], r);
                if (stop)
                    rc = stop;
            }
            if (found[i])
                store_kv_free(&kvs[i]);
        }
    }
    return rc;
}

/* The memo's key in its context (cmd_ctx_memo). */
static const char memo_key;

rd_code sched_memo_scan(cmd_ctx *ctx, store_scan_fn fn, void *data, rd_err *err)
{
    store_t *st = tx_store(ctx->tx);
    sched_memo *m = cmd_ctx_memo(ctx, &memo_key);
    memo_read r = { fn, data, { 0 }, 0, 0 };
    key_set ks = { 0 };
    int64_t now = 0;
    int incremental = 0;
    rd_code rc = RD_OK;
    if (m && strcmp(m->url, store_url(st)) != 0) {   /* the context moved to another store */
        cmd_ctx_set_memo(ctx, &memo_key, NULL, NULL, NULL);   /* frees it */
        m = NULL;
    }
    if (m && m->rev >= 0 && store_revision(st, &now, NULL) == RD_OK && now >= m->rev &&
        memo_keys_since(st, m, now, &ks)) {
        incremental = 1;
        rc = memo_read_keys(st, &ks, &r, err);
    } else {
        now = 0;
        rc = tx_scan(ctx->tx, KEY_JOBS, memo_see, &r, &now, err);
    }
    size_t ks_read = ks.n, m_was = m ? m->keys.n : 0;
    key_set_clear(&ks);
    /* A read that stopped early, or ran out of memory, knows too little to
     * be remembered: the next one scans. */
    if (!m && rc == RD_OK && !r.nomem) {
        m = calloc(1, sizeof *m);
        if (m && !(m->url = strdup(store_url(st)))) {
            free(m);
            m = NULL;
        }
        if (m && cmd_ctx_set_memo(ctx, &memo_key, m, memo_free, NULL) != RD_OK)
            m = NULL;   /* freed: the next read scans */
    }
    if (m) {
        key_set_clear(&m->keys);
        m->rev = -1;   /* nothing remembered: a revision no history starts before */
        if (rc == RD_OK && !r.nomem) {
            /* read from the memo: every key read beyond it may be a new job */
            m->total = incremental ? m->total + (ks_read > m_was ? ks_read - m_was : 0) : r.seen;
            m->keys = r.next;   /* the memo's now */
            memset(&r.next, 0, sizeof r.next);
            m->rev = now;
        }
        m->incremental = incremental;
    }
    key_set_clear(&r.next);
    return rc;
}

int sched_memo_last_incremental(const cmd_ctx *ctx, size_t *kept)
{
    const sched_memo *m = cmd_ctx_memo(ctx, &memo_key);
    if (kept)
        *kept = m ? m->keys.n : 0;
    return m ? m->incremental : 0;
}
