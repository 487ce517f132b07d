/* sched_queue.c - the waiting queue of the scheduler and reading job text
 * without decoding it.
 *
 * Owns loading the jobs that have a waiting worker in queue order, each
 * kept as its stored text, and the small reader of compact JSON text the
 * pass uses to skip decoding jobs whose shape already found no node.  The
 * reader walks values by jsonscan.c's rules (strings with escapes, objects,
 * arrays), so a key's span is found only where it is a member of the object
 * asked about, never inside a string or a nested object; text jsonscan
 * refuses (a control byte in a string, nesting deeper than
 * JSONSCAN_MAX_DEPTH, text cut short) reads as "not an object" and the
 * caller decodes the document instead.
 */
#include <stdlib.h>
#include <string.h>

#include "billing_usage.h"
#include "doc.h"
#include "fleet.h"
#include "grow.h"
#include "keyspace.h"
#include "ledger.h"
#include "sched_index.h"
#include "sched_memo.h"
#include "sched_queue.h"
#include "strbuf.h"
#include "jsonin.h"
#include "jsonscan.h"
#include "jsonout.h"

/* ---- the reader ---------------------------------------------------------- */

/* Finds several members of the object in [p, end) in one walk: vs[k] and
 * ve[k] span the value of keys[k] (the last one, as decoding keeps), or are
 * NULL (at most 16 names).  Returns how many were found; -1 when the text
 * is not an object. */
static int raw_members(const char *p, const char *end, const char *const *keys, size_t n, const char **vs,
                       const char **ve)
{
    int found = 0;
    size_t lens[16];   /* the names' lengths, once a call rather than once a member */
    for (size_t k = 0; k < n; k++)
        vs[k] = ve[k] = NULL;
    if (n > sizeof lens / sizeof *lens)
        return -1;
    for (size_t k = 0; k < n; k++)
        lens[k] = strlen(keys[k]);
    p = jsonscan_ws(p, end);
    if (p >= end || *p != '{')
        return -1;
    p = jsonscan_ws(p + 1, end);
    if (p < end && *p == '}')
        return 0;
    while (p < end && *p == '"') {
        const char *ks = p + 1, *ke = jsonscan_value(p, end);
        if (!ke)
            return -1;
        p = jsonscan_ws(ke, end);
        if (p >= end || *p != ':')
            return -1;
        const char *v = jsonscan_ws(p + 1, end), *after = jsonscan_value(v, end);
        if (!after)
            return -1;
        size_t klen = (size_t)(ke - 1 - ks);
        for (size_t k = 0; k < n; k++)
            if (lens[k] == klen && (klen == 0 || *ks == *keys[k]) && memcmp(ks, keys[k], klen) == 0) {
                found += !vs[k];
                vs[k] = v;
                ve[k] = after;
            }
        p = jsonscan_ws(after, end);
        if (p < end && *p == '}')
            return found;
        if (p >= end || *p != ',')
            return -1;
        p = jsonscan_ws(p + 1, end);
    }
    return -1;
}

int sched_raw_member(const char *p, const char *end, const char *key, const char **vs, const char **ve)
{
    return raw_members(p, end, &key, 1, vs, ve) == 1;
}

/* A plain string span (no escapes) into buf; 0 otherwise. */
static int span_string(const char *vs, const char *ve, char *buf, size_t len)
{
    if (!vs || ve - vs < 2 || *vs != '"')
        return 0;
    size_t n = (size_t)(ve - vs - 2);
    if (n >= len || memchr(vs + 1, '\\', n))
        return 0;
    memcpy(buf, vs + 1, n);
    buf[n] = '\0';
    return 1;
}

int sched_raw_string(const char *p, const char *end, const char *key, char *buf, size_t len)
{
    const char *vs, *ve;
    return sched_raw_member(p, end, key, &vs, &ve) && span_string(vs, ve, buf, len);
}

/* sched_raw_waiting on the span of "workers". */
static int span_waiting(const char *vs, const char *ve, size_t *waiting, size_t *pending)
{
    const char *p;
    *waiting = *pending = 0;
    if (!vs || *vs != '[')
        return 0;
    p = jsonscan_ws(vs + 1, ve);
    while (p < ve && *p != ']') {
        const char *e = jsonscan_value(p, ve);
        if (!e || *p != '{')
            return 0;
        static const char *const wkeys[] = { "state", "pending_node" };
        const char *ws[2], *we[2];
        if (raw_members(p, e, wkeys, 2, ws, we) < 0)
            return 0;
        if (ws[0] && we[0] - ws[0] == 14 && memcmp(ws[0], "\"waiting_gpus\"", 14) == 0) {
            (*waiting)++;
            if (ws[1] && !(we[1] - ws[1] == 4 && memcmp(ws[1], "null", 4) == 0) &&
                !(we[1] - ws[1] == 2 && memcmp(ws[1], "\"\"", 2) == 0))
                (*pending)++;
        }
        p = jsonscan_ws(e, ve);
        if (p < ve && *p == ',')
            p = jsonscan_ws(p + 1, ve);
    }
    return 1;
}

int sched_raw_waiting(const char *p, const char *end, size_t *waiting, size_t *pending)
{
    const char *vs, *ve;
    *waiting = *pending = 0;
    return sched_raw_member(p, end, "workers", &vs, &ve) && span_waiting(vs, ve, waiting, pending);
}

/* ---- writing placements into the text ----------------------------------- */

/* v encoded as tx_commit would; 0 when memory ran out. */
static int splice_value(strbuf *b, const json_t *v)
{
    size_t n = 0;
    char *t = jsonout_dumps_any(v, &n);
    if (!t)
        return 0;
    strbuf_append(b, t, n);
    free(t);
    return 1;
}

static int placed_has(const size_t *placed, size_t nplaced, size_t k)
{
    for (size_t i = 0; i < nplaced; i++)
        if (placed[i] == k)
            return 1;
    return 0;
}

/* The "workers" array [vs, ve) with the placed elements taken from doc's. */
static int splice_workers(strbuf *b, const char *vs, const char *ve, const json_t *workers, const size_t *placed,
                          size_t nplaced)
{
    size_t k = 0;
    const char *p = jsonscan_ws(vs + 1, ve);
    if (*vs != '[')
        return 0;
    strbuf_append(b, "[", 1);
    while (p < ve && *p != ']') {
        const char *e = jsonscan_value(p, ve);
        if (!e)
            return 0;
        if (k)
            strbuf_append(b, ",", 1);
        if (placed_has(placed, nplaced, k)) {
            if (!splice_value(b, json_array_get(workers, k)))
                return 0;
        } else {
            strbuf_append(b, p, (size_t)(e - p));
        }
        k++;
        p = jsonscan_ws(e, ve);
        if (p < ve && *p == ',')
            p = jsonscan_ws(p + 1, ve);
    }
    strbuf_append(b, "]", 1);
    return k == json_array_size(workers);
}

/* Member value span [vs, ve) replaced by doc's value of name, the name
 * added to fields when the text changes. */
static int splice_member(strbuf *b, const char *vs, const char *ve, const json_t *doc, const char *name,
                         json_t *fields)
{
    size_t at = b->len;
    if (!splice_value(b, json_object_get(doc, name)))
        return 0;
    if (!b->failed && (b->len - at != (size_t)(ve - vs) || memcmp(b->text + at, vs, (size_t)(ve - vs)) != 0))
        json_array_append_new(fields, json_string(name));
    return 1;
}

int sched_raw_splice(const char *text, size_t len, const json_t *doc, const size_t *placed, size_t nplaced, char **out,
                     size_t *outlen, json_t **fields)
{
    static const char *const names[] = { "workers", "state", "reason" };
    const char *end = text + len, *p = jsonscan_ws(text, end);
    strbuf b = { 0 };
    int seen[3] = { 0 }, ok = 1, n = 0;
    /* room for the text and what placements add, so it seldom grows */
    strbuf_reserve(&b, len + 256 * (nplaced + 1));
    *out = NULL;
    *fields = json_array();
    if (!*fields || p >= end || *p != '{')
        ok = 0;
    else
        p = jsonscan_ws(p + 1, end);
    strbuf_append(&b, "{", 1);
    while (ok && p < end && *p == '"') {
        const char *ks = p, *ke = jsonscan_value(p, end), *v, *after;
        ok = ke && (p = jsonscan_ws(ke, end)) < end && *p == ':' && (after = jsonscan_value(v = jsonscan_ws(p + 1, end), end));
        if (!ok)
            break;
        if (n++)
            strbuf_append(&b, ",", 1);
        strbuf_append(&b, ks, (size_t)(after - ks) - (size_t)(after - v));   /* the key and what is up to its value */
        int which = -1;
        for (int i = 0; i < 3; i++)
            if ((size_t)(ke - ks) == strlen(names[i]) + 2 && memcmp(ks + 1, names[i], strlen(names[i])) == 0)
                which = i;
        if (which >= 0 && seen[which]++)
            ok = 0;   /* a repeated member: the decoded document keeps the last, leave it to that */
        else if (which == 0)
            ok = splice_workers(&b, v, after, json_object_get(doc, "workers"), placed, nplaced) &&
                 json_array_append_new(*fields, json_string("workers")) == 0;
        else if (which > 0)
            ok = splice_member(&b, v, after, doc, names[which], *fields);
        else
            strbuf_append(&b, v, (size_t)(after - v));
        p = jsonscan_ws(after, end);
        if (p < end && *p == ',')
            p = jsonscan_ws(p + 1, end);
        else if (p >= end || *p != '}')
            ok = 0;
    }
    ok = ok && p < end && *p == '}' && seen[0] && jsonscan_ws(p + 1, end) == end;
    /* members the document gained go last, in the order they were set */
    for (int i = 1; ok && i < 3; i++) {
        if (seen[i] || !json_object_get(doc, names[i]))
            continue;
        if (n++)
            strbuf_append(&b, ",", 1);
        strbuf_append(&b, "\"", 1);
        strbuf_append(&b, names[i], strlen(names[i]));
        strbuf_append(&b, "\":", 2);
        ok = splice_value(&b, json_object_get(doc, names[i])) &&
             json_array_append_new(*fields, json_string(names[i])) == 0;
    }
    strbuf_append(&b, "}", 1);
    if (!ok || b.failed) {
        strbuf_free(&b);
        json_decref(*fields);
        *fields = NULL;
        return 0;
    }
    *out = b.text;
    *outlen = b.len;
    return 1;
}

/* ---- the queue ----------------------------------------------------------- */

typedef struct {
    sched_qjob *q;
    size_t n, cap;
    tx_scan_fn also;
    void *also_data;
    rd_err *err;
} queue_state;

static int has_waiting_worker(const json_t *job)
{
    size_t k;
    json_t *w;
    json_array_foreach(json_object_get(job, "workers"), k, w)
        if (strcmp(doc_str(w, "state"), "waiting_gpus") == 0)
            return 1;
    return 0;
}

json_t *sched_qjob_doc(sched_qjob *q)
{
    json_error_t jerr;
    if (!q->doc && q->text) {
        q->doc = jsonin_loadb_any(q->text, q->len, &jerr);
        if (q->doc && !json_is_object(q->doc)) {
            json_decref(q->doc);
            q->doc = NULL;
        }
    }
    return q->doc;
}

int sched_qjob_splice(sched_qjob *q)
{
    free(q->out);
    json_decref(q->out_fields);
    q->out = NULL;
    q->out_fields = NULL;
    if (!sched_raw_splice(q->text, q->len, q->doc, q->placed, q->nplaced, &q->out, &q->out_len, &q->out_fields))
        return q->doc != NULL;   /* the whole document is written */
    json_decref(q->doc);
    q->doc = NULL;
    return 1;
}

static int queue_fields(sched_qjob *j);

void sched_qjob_set_text(sched_qjob *q, char *text, size_t len, int64_t rev)
{
    free(q->text);
    json_decref(q->doc);
    free(q->placed);
    free(q->out);
    json_decref(q->out_fields);
    q->out = NULL;
    q->out_fields = NULL;
    q->text = text;
    q->len = len;
    q->rev = rev;
    q->doc = NULL;
    q->placed = NULL;
    q->nplaced = q->placed_cap = 0;
    queue_fields(q);
}

/* The shape key: resources, region pin and paying account as stored, and
 * the creator when it pays a federated fee (fed_payer, "" when none): two
 * jobs of one shape are placed, or not, alike. */
static char *shape_key(const char *const *vs, const char *const *ve, const char *fed_payer)
{
    size_t len = strlen(fed_payer) + 1;
    for (int k = 0; k < 3; k++) {
        if (!vs[k])
            return NULL;
        len += (size_t)(ve[k] - vs[k]) + 1;
    }
    char *key = malloc(len), *p = key;
    if (!key)
        return NULL;
    for (int k = 0; k < 3; k++) {
        memcpy(p, vs[k], (size_t)(ve[k] - vs[k]));
        p += ve[k] - vs[k];
        *p++ = '\x1f';
    }
    strcpy(p, fed_payer);
    return key;
}

/* Reads what the pass needs from the text in one walk: the queue fields,
 * the shape, the waiting workers; or decodes it when they are not plain
 * (then the decoded document decides).  1: waiting, 0: not, -1: corrupt,
 * -2: out of memory. */
static int queue_fields(sched_qjob *j)
{
    static const char *const keys[] = { "resources", "region_pin", "project_owner", "id", "priority", "submitted_at",
                                        "workers", "creator", "type" };
    const char *vs[9], *ve[9];
    char buf[64], num[32] = "x", *stop = num, owner[128], creator[128], type[32];
    free(j->shape);
    j->shape = NULL;
    j->waiting = j->pending = 0;
    if (!j->text)
        return 0;
    if (raw_members(j->text, j->text + j->len, keys, 9, vs, ve) >= 0 && span_waiting(vs[6], ve[6], &j->waiting, &j->pending) &&
        span_string(vs[3], ve[3], j->id, sizeof j->id) && vs[4] && (size_t)(ve[4] - vs[4]) < sizeof num &&
        span_string(vs[5], ve[5], buf, sizeof buf) && span_string(vs[2], ve[2], owner, sizeof owner) &&
        span_string(vs[7], ve[7], creator, sizeof creator) && span_string(vs[8], ve[8], type, sizeof type)) {
        snprintf(num, sizeof num, "%.*s", (int)(ve[4] - vs[4]), vs[4]);
        j->priority = strtoll(num, &stop, 10);
    }
    if (*stop == '\0') {
        if (!j->waiting)
            return 0;
        free(j->submitted);
        j->submitted = strdup(buf);
        j->shape = shape_key(vs, ve, billing_federated_rate(type, creator, owner) ? creator : "");
        return j->submitted ? 1 : -2;
    }
    json_t *doc = sched_qjob_doc(j);
    if (!doc || !has_waiting_worker(doc))
        return doc ? 0 : -1;
    j->priority = json_integer_value(json_object_get(doc, "priority"));
    free(j->submitted);
    j->submitted = strdup(doc_str(doc, "submitted_at"));
    if (!j->submitted)
        return -2;
    snprintf(j->id, sizeof j->id, "%s", doc_str(doc, "id"));
    json_decref(j->doc);
    j->doc = NULL;
    j->waiting = 1;   /* unknown without decoding: counted by decoding */
    j->pending = 1;
    return 1;
}

static int queue_add(store_kv *kv, void *data)
{
    queue_state *qs = data;
    int stop = qs->also ? qs->also(kv, qs->also_data) : 0;
    if (stop)
        return stop;
    /* Most jobs of a busy fleet run or have ended: skip them undecoded. */
    if (!memmem(kv->value, kv->value_len, "\"waiting_gpus\"", 14))
        return 0;
    if (grow_array(&qs->q, &qs->cap, qs->n + 1, sizeof *qs->q) != 0)
        return rd_fail(qs->err, RD_ENOMEM, "out of memory reading the waiting queue");
    sched_qjob *j = &qs->q[qs->n];
    memset(j, 0, sizeof *j);
    j->text = kv->value;   /* the scan's copy: ours to keep */
    kv->value = NULL;
    j->len = kv->value_len;
    j->rev = kv->mod_revision;
    j->created = kv->create_revision;
    int ok = queue_fields(j);
    if (ok == 1) {
        qs->n++;
        return 0;
    }
    free(j->text);
    free(j->submitted);
    free(j->shape);
    json_decref(j->doc);
    if (ok == -2)
        return rd_fail(qs->err, RD_ENOMEM, "out of memory reading the waiting queue");
    return ok < 0 ? rd_fail(qs->err, RD_ECORRUPT, "store key %s does not hold a JSON object", kv->key) : 0;
}

static int cmp_queue(const void *pa, const void *pb)
{
    const sched_qjob *a = pa, *b = pb;
    if (a->priority != b->priority)
        return a->priority > b->priority ? -1 : 1;
    /* Not submitted_at: it has one-second steps, and jobs of one instant
     * would then go in the order of their random ids. */
    if (a->created != b->created)
        return a->created < b->created ? -1 : 1;
    return strcmp(a->id, b->id);
}

rd_code sched_queue_load(cmd_ctx *ctx, sched_qjob **q, size_t *n, tx_scan_fn also, void *also_data, rd_err *err)
{
    queue_state qs = { NULL, 0, 0, also, also_data, err };
    rd_code rc = sched_memo_scan(ctx, queue_add, &qs, err);
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
        free(q[i].shape);
    }
    free(q);
}

int sched_payers_ok(cmd_ctx *ctx, const json_t *job, const char **broke)
{
    sched_job j;
    sched_job_view(job, &j);
    const char *who = !sched_wallet_ok(ctx, j.owner, NULL)                      ? j.owner
                      : j.fed_payer && !sched_wallet_ok(ctx, j.fed_payer, NULL) ? j.fed_payer
                                                                          : NULL;
    if (broke)
        *broke = who;
    return who == NULL;
}

int sched_wallet_ok(cmd_ctx *ctx, const char *owner, int *failed)
{
    char id[RD_KEY_MAX];
    int64_t bal = 0, pending = 0;
    snprintf(id, sizeof id, "wallet:%s", owner);
    if (ledger_balance(ctx->tx, id, &bal, &pending, NULL) != RD_OK) {
        if (failed)
            *failed = 1;
        return 0;
    }
    return bal > 0;
}
