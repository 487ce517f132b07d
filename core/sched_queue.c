/* sched_queue.c - the waiting queue of the scheduler and reading job text
 * without decoding it.
 *
 * Owns loading the jobs that have a waiting worker in queue order, each
 * kept as its stored text, and the small reader of compact JSON text the
 * pass uses to skip decoding jobs whose shape already found no node.  The
 * reader walks values exactly as JSON nests them (strings with escapes,
 * objects, arrays), so a key's span is found only where it is a member of
 * the object asked about, never inside a string or a nested object.
 */
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "ledger.h"
#include "sched_run.h"

/* ---- the reader ---------------------------------------------------------- */

static const char *skip_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

/* Past the one value starting at p, or NULL when the text is cut short. */
static const char *skip_value(const char *p, const char *end)
{
    int depth = 0;
    p = skip_ws(p, end);
    do {
        if (p >= end)
            return NULL;
        if (*p == '"') {
            for (p++; p < end && *p != '"'; p++)
                if (*p == '\\')
                    p++;
            if (p >= end)
                return NULL;
            p++;
        } else if (*p == '{' || *p == '[') {
            depth++;
            p++;
        } else if (*p == '}' || *p == ']') {
            if (--depth < 0)
                return NULL;
            p++;
        } else if (*p == ',' || *p == ':' || *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
            if (depth == 0)
                return NULL;
            p++;
        } else {
            while (p < end && !strchr(",:]} \t\n\r\"{[", *p))
                p++;
        }
    } while (depth > 0);
    return p;
}

int sched_raw_member(const char *p, const char *end, const char *key, const char **vs, const char **ve)
{
    size_t klen = strlen(key);
    p = skip_ws(p, end);
    if (p >= end || *p != '{')
        return 0;
    p = skip_ws(p + 1, end);
    if (p < end && *p == '}')
        return 0;
    while (p < end && *p == '"') {
        const char *ks = p + 1, *ke = skip_value(p, end);
        if (!ke)
            return 0;
        p = skip_ws(ke, end);
        if (p >= end || *p != ':')
            return 0;
        const char *v = skip_ws(p + 1, end), *after = skip_value(v, end);
        if (!after)
            return 0;
        if ((size_t)(ke - 1 - ks) == klen && memcmp(ks, key, klen) == 0) {
            *vs = v;
            *ve = after;
            return 1;
        }
        p = skip_ws(after, end);
        if (p >= end || *p != ',')
            return 0;
        p = skip_ws(p + 1, end);
    }
    return 0;
}

int sched_raw_string(const char *p, const char *end, const char *key, char *buf, size_t len)
{
    const char *vs, *ve;
    if (!sched_raw_member(p, end, key, &vs, &ve) || ve - vs < 2 || *vs != '"')
        return 0;
    size_t n = (size_t)(ve - vs - 2);
    if (n >= len || memchr(vs + 1, '\\', n))
        return 0;
    memcpy(buf, vs + 1, n);
    buf[n] = '\0';
    return 1;
}

int sched_raw_waiting(const char *p, const char *end, size_t *waiting, size_t *pending)
{
    const char *vs, *ve;
    *waiting = *pending = 0;
    if (!sched_raw_member(p, end, "workers", &vs, &ve) || *vs != '[')
        return 0;
    p = skip_ws(vs + 1, ve);
    while (p < ve && *p != ']') {
        const char *e = skip_value(p, ve), *ss, *se;
        if (!e || *p != '{')
            return 0;
        if (sched_raw_member(p, e, "state", &ss, &se) && se - ss == 14 && memcmp(ss, "\"waiting_gpus\"", 14) == 0) {
            (*waiting)++;
            if (sched_raw_member(p, e, "pending_node", &ss, &se) && !(se - ss == 4 && memcmp(ss, "null", 4) == 0) &&
                !(se - ss == 2 && memcmp(ss, "\"\"", 2) == 0))
                (*pending)++;
        }
        p = skip_ws(e, ve);
        if (p < ve && *p == ',')
            p = skip_ws(p + 1, ve);
    }
    return 1;
}

/* ---- the queue ----------------------------------------------------------- */

typedef struct {
    sched_qjob *q;
    size_t n, cap;
    rd_err *err;
} queue_state;

static int has_waiting_worker(const json_t *job)
{
    size_t k;
    json_t *w;
    json_array_foreach(json_object_get(job, "workers"), k, w)
        if (strcmp(fleet_str(w, "state"), "waiting_gpus") == 0)
            return 1;
    return 0;
}

json_t *sched_qjob_doc(sched_qjob *q)
{
    json_error_t jerr;
    if (!q->doc && q->text) {
        q->doc = json_loadb(q->text, q->len, 0, &jerr);
        if (q->doc && !json_is_object(q->doc)) {
            json_decref(q->doc);
            q->doc = NULL;
        }
    }
    return q->doc;
}

void sched_qjob_set_text(sched_qjob *q, char *text, size_t len, int64_t rev)
{
    free(q->text);
    json_decref(q->doc);
    json_decref(q->work);
    q->text = text;
    q->len = len;
    q->rev = rev;
    q->doc = q->work = NULL;
}

/* Reads the queue fields from the text, or decodes it when they are not
 * plain (then the decoded document decides). */
static int queue_fields(sched_qjob *j)
{
    const char *end = j->text + j->len, *vs, *ve;
    char buf[64];
    size_t waiting = 0, pending = 0;
    if (sched_raw_waiting(j->text, end, &waiting, &pending) && sched_raw_string(j->text, end, "id", j->id, sizeof j->id) &&
        sched_raw_member(j->text, end, "priority", &vs, &ve) && (size_t)(ve - vs) < sizeof buf &&
        sched_raw_string(j->text, end, "submitted_at", buf, sizeof buf)) {
        if (!waiting)
            return 0;
        char num[32], *stop;
        snprintf(num, sizeof num, "%.*s", (int)(ve - vs), vs);
        j->priority = strtoll(num, &stop, 10);
        if (*stop == '\0') {
            j->submitted = strdup(buf);
            return 1;
        }
    }
    json_t *doc = sched_qjob_doc(j);
    if (!doc || !has_waiting_worker(doc))
        return doc ? 0 : -1;
    j->priority = json_integer_value(json_object_get(doc, "priority"));
    j->submitted = strdup(fleet_str(doc, "submitted_at"));
    snprintf(j->id, sizeof j->id, "%s", fleet_str(doc, "id"));
    json_decref(j->doc);
    j->doc = NULL;
    return 1;
}

static int queue_add(const store_kv *kv, void *data)
{
    queue_state *qs = data;
    /* Most jobs of a busy fleet run or have ended: skip them undecoded. */
    if (!memmem(kv->value, kv->value_len, "\"waiting_gpus\"", 14))
        return 0;
    if (qs->n == qs->cap) {
        qs->cap = qs->cap ? qs->cap * 2 : 64;
        qs->q = realloc(qs->q, qs->cap * sizeof *qs->q);
    }
    sched_qjob *j = &qs->q[qs->n];
    memset(j, 0, sizeof *j);
    j->text = malloc(kv->value_len + 1);
    memcpy(j->text, kv->value, kv->value_len);
    j->text[kv->value_len] = '\0';
    j->len = kv->value_len;
    j->rev = kv->mod_revision;
    int ok = queue_fields(j);
    if (ok == 1) {
        qs->n++;
        return 0;
    }
    free(j->text);
    json_decref(j->doc);
    return ok < 0 ? rd_fail(qs->err, RD_ECORRUPT, "store key %s does not hold a JSON object", kv->key) : 0;
}

static int cmp_queue(const void *pa, const void *pb)
{
    const sched_qjob *a = pa, *b = pb;
    if (a->priority != b->priority)
        return a->priority > b->priority ? -1 : 1;
    int c = strcmp(a->submitted, b->submitted);
    return c ? c : strcmp(a->id, b->id);
}

rd_code sched_queue_load(cmd_ctx *ctx, sched_qjob **q, size_t *n, rd_err *err)
{
    queue_state qs = { NULL, 0, 0, err };
    rd_code rc = tx_scan(ctx->tx, "/rigdeck/jobs/", queue_add, &qs, NULL, err);
    if (rc != RD_OK) {
        sched_queue_free(qs.q, qs.n);
        return rc;
    }
    if (qs.n)
        qsort(qs.q, qs.n, sizeof *qs.q, cmp_queue);
    *q = qs.q;
    *n = qs.n;
    return RD_OK;
}

void sched_queue_free(sched_qjob *q, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        sched_qjob_set_text(&q[i], NULL, 0, 0);
        free(q[i].submitted);
    }
    free(q);
}

int sched_wallet_ok(cmd_ctx *ctx, const char *owner)
{
    char id[RD_KEY_MAX];
    int64_t bal = 0, pending = 0;
    snprintf(id, sizeof id, "wallet:%s", owner);
    if (ledger_balance(ctx->tx, id, &bal, &pending, NULL) != RD_OK)
        return 0;
    return bal > 0;
}
