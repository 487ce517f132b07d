/* store_etcd.c - the etcd store backend: the store contract over etcd's v3 JSON gateway.
 *
 * Owns the backend table for "etcd://h1:p1[,h2:p2...]" and "etcds://...":
 * get, paged range pinned to a revision, txn (compares, success/failure
 * puts/deletes/delete-prefix), revision and compaction.  The transport
 * (member rotation, timeouts, TLS) is store_etcd_http.c, leases are
 * store_etcd_lease.c, watches are store_etcd_watch.c.  etcd already has the contract's semantics, so this
 * file mostly translates: keys and values travel base64, int64s as strings,
 * and zero fields are omitted in answers (a failed txn has no "succeeded").
 *
 * Safe retries: an attempt that fails after it may have reached etcd (a
 * timeout, a member killed mid-request, "leader changed") may or may not have
 * been applied.  Reads are simply resent.  A txn that writes is made
 * self-identifying: it also puts this handle's own marker key (MARKER_PREFIX
 * + random id, value "<seq>s" or "<seq>f" for the branch taken) and is
 * guarded by a compare on the marker's mod_revision as this handle last saw
 * it; the guard's failure branch reads the marker back.  A resend after the
 * original applied fails the guard, the marker names our seq, so the
 * original's outcome (branch and revision) is reported and nothing runs
 * twice; a late original fails its guard the same way.  With an empty
 * failure branch the guard simply joins the user's compares (flat); else
 * the user's txn runs nested inside the guard.  The marker has no lease:
 * removing it at close would cost every writing process one more revision,
 * so the compaction policy (store_compact.c) deletes markers idle for ten
 * minutes in bulk instead.  docs/etcd.md has the cases this leaves.
 *
 * Edge behaviours (where etcd differs from store_sqlite.c, documented in
 * docs/etcd.md): a txn may not touch one key twice (etcd refuses "duplicate
 * key"; RD_EINVAL); at most 127 compares and 127 ops (126 per branch when
 * both branches have ops) when the marker is used, 128 otherwise, and about
 * 1.5 MiB per txn, refused with RD_EINVAL; a branch of deletes of missing
 * keys creates a revision (the marker's) when the other branch holds puts.
 */
#include "store_etcd_impl.h"
#include "rdtime.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

enum {
    MAX_TXN_OPS = 128,              /* etcd's --max-txn-ops default */
    MAX_REQUEST_BYTES = 1572864,    /* etcd's --max-request-bytes default */
    MARKER_REFRESH = 5              /* outer-compare misses tolerated in one txn */
};

#define MARKER_PREFIX STORE_MARKERS_PREFIX

typedef struct {
    store_t base;
    etcd_conn c;
    char mk_key[160];        /* this handle's retry marker */
    int64_t mk_rev;         /* its mod_revision as last seen; 0: absent */
    uint64_t mk_seq;        /* the last seq used */
} etcd_store;

#define ES(st) ((etcd_store *)(st))

static rd_code oom(rd_err *err)
{
    return rd_fail(err, RD_ENOMEM, "store: out of memory");
}

/* One request, logging in again once when the token lapsed (store_etcd_http.c). */
static rd_code call(etcd_store *s, const char *path, json_t *req, etcd_resend resend, etcd_reply *r,
                    rd_err *err)
{
    return etcd_conn_call(&s->c, path, req, resend, r, err);
}

static rd_code fail_grpc(etcd_store *s, const etcd_reply *r, const char *what, rd_err *err)
{
    return etcd_fail_grpc(&s->c, r, what, err);
}

static const json_t *header(const etcd_reply *r)
{
    return json_object_get(r->body, "header");
}

/* ---- open / close ---------------------------------------------------------- */

static rd_code etcd_store_open(const char *location, const store_opts *opts, store_t **out, rd_err *err)
{
    uint64_t id = 0;
    *out = NULL;
    etcd_store *s = calloc(1, sizeof *s);
    if (!s)
        return oom(err);
    rd_code rc = etcd_conn_init(&s->c, location, opts, err);
    if (rc == RD_OK && s->c.user && (rc = etcd_conn_authenticate(&s->c, err)) != RD_OK)
        etcd_conn_free(&s->c);
    if (rc) {
        free(s);
        return rc;
    }
    if (getrandom(&id, sizeof id, 0) != (ssize_t)sizeof id)
        id = (uint64_t)rdtime_mono_ms() * 2654435761u ^ (uint64_t)getpid() << 32;
    /* An authenticated handle keeps its marker under its user's name, where
     * the store lets it write (docs/security.md). */
    if (s->c.user)
        snprintf(s->mk_key, sizeof s->mk_key, MARKER_PREFIX "%s/%016llx", s->c.user, (unsigned long long)id);
    else
        snprintf(s->mk_key, sizeof s->mk_key, MARKER_PREFIX "%016llx", (unsigned long long)id);
    s->mk_seq = id >> 1;   /* any start works: seqs are only compared within this handle */
    *out = &s->base;
    return RD_OK;
}

/* The marker stays behind (no lease, so closing writes nothing and costs
 * no revision); the compaction policy deletes idle markers in bulk. */
static void etcd_store_close(store_t *st)
{
    etcd_store *s = ES(st);
    etcd_conn_free(&s->c);
    free(s);
}

/* Lets reads (get, range, revision) fall back to one member's serializable
 * view when no quorum can serve a linearizable one; for a console that
 * would rather show stale data, marked so, than nothing.  Reached only
 * through store_etcd_backend, so st is an etcd handle. */
static void etcd_store_allow_stale_reads(store_t *st, int on)
{
    ES(st)->c.serializable_fallback = on != 0;
}

/* 1 when the last read on st was served by that fallback (may be stale). */
static int etcd_store_last_read_stale(const store_t *st)
{
    return ((const etcd_store *)st)->c.last_read_stale;
}

/* ---- reads ------------------------------------------------------------------- */

/* A range request for [key, end) (end NULL: just key). */
static json_t *range_req(const char *key, size_t klen, const char *end, size_t elen, size_t limit, int64_t rev)
{
    json_t *req = json_object();
    if (!req)
        return NULL;
    json_object_set_new(req, "key", etcd_jb64(key, klen));
    if (end)
        json_object_set_new(req, "range_end", etcd_jb64(end, elen));
    if (limit)
        json_object_set_new(req, "limit", etcd_ji64((int64_t)limit));
    if (rev)
        json_object_set_new(req, "revision", etcd_ji64(rev));
    if (json_object_size(req) != 1u + (end != NULL) + (limit != 0) + (rev != 0)) {
        json_decref(req);
        return NULL;
    }
    return req;
}

static rd_code read_kvs(const json_t *arr, store_range_result *out, rd_err *err)
{
    size_t n = json_array_size(arr);
    if (!n)
        return RD_OK;
    out->kvs = calloc(n, sizeof *out->kvs);
    if (!out->kvs)
        return oom(err);
    for (size_t i = 0; i < n; i++) {
        rd_code rc = etcd_kv_from_json(json_array_get(arr, i), &out->kvs[i], err);
        if (rc)
            return rc;
        out->count++;
    }
    return RD_OK;
}

/* Maps a range's definite error: compacted or future revisions are bad input. */
static rd_code range_error(etcd_store *s, const etcd_reply *r, int64_t at_rev, rd_err *err)
{
    if (r->code == GRPC_OUT_OF_RANGE && strstr(r->msg, "compacted"))
        return rd_fail(err, RD_EINVAL, "revision %lld has been compacted", (long long)at_rev);
    if (r->code == GRPC_OUT_OF_RANGE && strstr(r->msg, "future"))
        return rd_fail(err, RD_EINVAL, "revision %lld is in the future", (long long)at_rev);
    return fail_grpc(s, r, "range", err);
}

static rd_code etcd_store_get(store_t *st, const char *key, store_kv *out, int *found, int64_t *revision,
                              rd_err *err)
{
    etcd_store *s = ES(st);
    etcd_reply r;
    memset(out, 0, sizeof *out);
    *found = 0;
    if (!key || !*key)
        return rd_fail(err, RD_EINVAL, "store get: the key is empty");
    rd_code rc = call(s, "kv/range", range_req(key, strlen(key), NULL, 0, 0, 0), ETCD_RESEND, &r, err);
    if (rc)
        return rc;
    if (r.code)
        return range_error(s, &r, 0, err);
    const json_t *kvs = json_object_get(r.body, "kvs");
    if (json_array_size(kvs)) {
        if ((rc = etcd_kv_from_json(json_array_get(kvs, 0), out, err)) != RD_OK) {
            etcd_reply_free(&r);
            return rc;
        }
        *found = 1;
    }
    if (revision)
        *revision = etcd_i64(header(&r), "revision");
    etcd_reply_free(&r);
    return RD_OK;
}

static rd_code etcd_store_range(store_t *st, const char *prefix, const char *after, size_t limit,
                                int64_t at_rev, store_range_result *out, rd_err *err)
{
    etcd_store *s = ES(st);
    etcd_reply r;
    memset(out, 0, sizeof *out);
    if (at_rev < 0)
        return rd_fail(err, RD_EINVAL, "store range: revision %lld is negative", (long long)at_rev);
    if (!prefix)
        prefix = "";
    /* The first key: the prefix, or just after `after` = after + "\0". */
    json_t *req = range_req("", 1, NULL, 0, limit, at_rev);
    json_t *first = after && strcmp(after, prefix) >= 0 ? etcd_jb64(after, strlen(after) + 1) : etcd_range_key(prefix);
    if (!req)
        json_decref(first);
    else if (json_object_set_new(req, "key", first) ||
             json_object_set_new(req, "range_end", etcd_range_end(prefix))) {
        json_decref(req);
        req = NULL;
    }
    rd_code rc = call(s, "kv/range", req, ETCD_RESEND, &r, err);
    if (rc)
        return rc;
    if (r.code)
        return range_error(s, &r, at_rev, err);
    rc = read_kvs(json_object_get(r.body, "kvs"), out, err);
    out->more = json_is_true(json_object_get(r.body, "more"));
    out->revision = at_rev ? at_rev : etcd_i64(header(&r), "revision");
    etcd_reply_free(&r);
    if (rc)
        store_range_free(out);
    return rc;
}

/* ---- txn --------------------------------------------------------------------- */

static const char *const CMP_TARGET[] = { "VALUE", "VERSION", "MOD", "CREATE" };
static const char *const CMP_FIELD[] = { "value", "version", "mod_revision", "create_revision" };
static const char *const CMP_RESULT[] = { "EQUAL", "NOT_EQUAL", "LESS", "GREATER" };

static json_t *cmp_json(const store_cmp *c)
{
    json_t *j = json_object();
    if (!j)
        return NULL;
    json_object_set_new(j, "key", etcd_jb64(c->key, strlen(c->key)));
    json_object_set_new(j, "target", json_string(CMP_TARGET[c->target]));
    json_object_set_new(j, "result", json_string(CMP_RESULT[c->op]));
    json_object_set_new(j, CMP_FIELD[c->target], c->target == STORE_CMP_VALUE
                                                     ? etcd_jb64(c->value ? c->value : "", c->value_len)
                                                     : etcd_ji64(c->number));
    return json_object_size(j) == 4 ? j : (json_decref(j), NULL);
}

static json_t *put_json(const char *key, const char *value, size_t value_len, int64_t lease)
{
    json_t *p = json_object();
    if (!p)
        return NULL;
    json_object_set_new(p, "key", etcd_jb64(key, strlen(key)));
    json_object_set_new(p, "value", etcd_jb64(value ? value : "", value_len));
    if (lease)
        json_object_set_new(p, "lease", etcd_ji64(lease));
    if (json_object_size(p) != 2u + (lease != 0)) {
        json_decref(p);
        return NULL;
    }
    return json_pack("{s:o}", "request_put", p);
}

static json_t *op_json(const store_op *o)
{
    if (o->kind == STORE_OP_PUT)
        return put_json(o->key, o->value, o->value_len, o->lease);
    json_t *d = json_object();
    if (!d)
        return NULL;
    if (o->kind == STORE_OP_DELETE) {
        json_object_set_new(d, "key", etcd_jb64(o->key, strlen(o->key)));
    } else {
        json_object_set_new(d, "key", etcd_range_key(o->key));
        json_object_set_new(d, "range_end", etcd_range_end(o->key));
    }
    if (json_object_size(d) != (o->kind == STORE_OP_DELETE ? 1u : 2u)) {
        json_decref(d);
        return NULL;
    }
    return json_pack("{s:o}", "request_delete_range", d);
}

/* The ops of one branch, plus the marker put when marker is non-NULL. */
static json_t *branch_json(const store_op *ops, size_t n, const etcd_store *s, const char *marker)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < n; i++)
        if (json_array_append_new(arr, op_json(&ops[i])))
            goto fail;
    if (arr && marker && json_array_append_new(arr, put_json(s->mk_key, marker, strlen(marker), 0)))
        goto fail;
    return arr;
fail:
    json_decref(arr);
    return NULL;
}

static json_t *txn_json(const store_cmp *cmps, size_t ncmps, json_t *success, json_t *failure)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < ncmps; i++)
        if (json_array_append_new(arr, cmp_json(&cmps[i]))) {
            json_decref(arr);
            arr = NULL;
        }
    if (!arr || !success || !failure) {
        json_decref(arr);
        json_decref(success);
        json_decref(failure);
        return NULL;
    }
    return json_pack("{s:o, s:o, s:o}", "compare", arr, "success", success, "failure", failure);
}

/* Refuses what etcd would: at most 128 compares and 128 ops per branch at
 * each level, a nested txn getting what its parent leaves.  cmp_room and
 * op_room are what is left for the user's compares and ops. */
static rd_code check_txn(const store_cmp *cmps, size_t ncmps, const store_op *ops, size_t nops,
                         size_t cmp_room, size_t op_room, size_t *bytes, rd_err *err)
{
    const char *why = " (fewer with rigdeck's retry guard and marker)";
    if (ncmps > cmp_room)
        return rd_fail(err, RD_EINVAL, "txn of %zu compares exceeds etcd's limit of %d in one atomic step%s",
                       ncmps, MAX_TXN_OPS, cmp_room < MAX_TXN_OPS ? why : "");
    if (nops > op_room)
        return rd_fail(err, RD_EINVAL, "txn of %zu ops exceeds etcd's limit of %d in one atomic step%s", nops,
                       MAX_TXN_OPS, op_room < MAX_TXN_OPS ? why : "");
    for (size_t i = 0; i < ncmps; i++) {
        if (!cmps[i].key || !*cmps[i].key)
            return rd_fail(err, RD_EINVAL, "store txn: compare %zu has an empty key", i + 1);
        if ((unsigned)cmps[i].target > STORE_CMP_CREATE_REVISION || (unsigned)cmps[i].op > STORE_CMP_GREATER)
            return rd_fail(err, RD_EINVAL, "store txn: compare %zu has an unknown target or operator", i + 1);
        *bytes += strlen(cmps[i].key) + cmps[i].value_len + 24;
    }
    for (size_t i = 0; i < nops; i++) {
        if (!ops[i].key || (!*ops[i].key && ops[i].kind != STORE_OP_DELETE_PREFIX))
            return rd_fail(err, RD_EINVAL, "store txn: op %zu has an empty key", i + 1);
        if ((unsigned)ops[i].kind > STORE_OP_DELETE_PREFIX)
            return rd_fail(err, RD_EINVAL, "store txn: op %zu has an unknown kind", i + 1);
        *bytes += 2 * strlen(ops[i].key) + (ops[i].kind == STORE_OP_PUT ? ops[i].value_len : 0) + 32;
    }
    return RD_OK;
}

static int has_put(const store_op *ops, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (ops[i].kind == STORE_OP_PUT)
            return 1;
    return 0;
}

/* Whether a delete-prefix in ops would also delete the marker key (etcd
 * then refuses the txn for touching one key twice). */
static int covers_marker(const etcd_store *s, const store_op *ops, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (ops[i].kind == STORE_OP_DELETE_PREFIX && !strncmp(s->mk_key, ops[i].key, strlen(ops[i].key)))
            return 1;
    return 0;
}

static rd_code txn_error(etcd_store *s, const etcd_reply *r, rd_err *err)
{
    if (r->code == GRPC_NOT_FOUND && strstr(r->msg, "lease"))
        return rd_fail(err, RD_EINVAL, "store txn: a put names a lease that does not exist (expired or revoked)");
    if (r->code == GRPC_INVALID_ARGUMENT && strstr(r->msg, "duplicate key"))
        return rd_fail(err, RD_EINVAL, "store txn: the ops touch one key twice, which etcd refuses");
    if (r->code == GRPC_INVALID_ARGUMENT && strstr(r->msg, "too large"))
        return rd_fail(err, RD_EINVAL, "store txn: the request exceeds etcd's size limit (about 1.5 MiB)");
    return fail_grpc(s, r, "txn", err);
}

/* A txn sent as is: reads only, deletes in at most one branch, or (when
 * the marker cannot be used) a write that must not be resent blindly. */
static rd_code txn_plain(etcd_store *s, json_t *req, etcd_resend resend, store_txn_result *res, rd_err *err)
{
    etcd_reply r;
    rd_code rc = call(s, "kv/txn", req, resend, &r, err);
    if (rc)
        return rc;
    if (r.code)
        return txn_error(s, &r, err);
    res->succeeded = json_is_true(json_object_get(r.body, "succeeded"));
    res->revision = etcd_i64(header(&r), "revision");
    etcd_reply_free(&r);
    return RD_OK;
}

/* The marker's state as the outer failure branch read it back: 1 with the
 * outcome when it names seq (our txn applied earlier), else 0. */
static int marker_says(etcd_store *s, const json_t *body, const char *tag_s, const char *tag_f,
                       store_txn_result *res)
{
    const json_t *rr = json_object_get(json_array_get(json_object_get(body, "responses"), 0), "response_range");
    const json_t *kv = json_array_get(json_object_get(rr, "kvs"), 0);
    const char *v64 = json_string_value(json_object_get(kv, "value"));
    size_t n = 0;
    char *v = etcd_unb64(v64 ? v64 : "", &n);
    int ours = v && (!strcmp(v, tag_s) || !strcmp(v, tag_f));
    if (ours) {
        res->succeeded = !strcmp(v, tag_s);
        res->revision = etcd_i64(kv, "mod_revision");
    }
    s->mk_rev = etcd_i64(kv, "mod_revision");   /* 0 when the marker is gone */
    free(v);
    return ours;
}

/* The guarded request.  Flat when the failure branch is empty (the usual
 * shape: tx.c commits, store_put): the guard joins the user's compares and
 * the failure branch only reads the marker back, which tells a failed
 * compare (marker unmoved) from a lost success (marker names our seq).
 * Otherwise nested: the guard outside, the user's whole txn inside. */
static json_t *marked_req(etcd_store *s, const store_cmp *cmps, size_t ncmps, const store_op *success,
                          size_t nsuccess, const store_op *failure, size_t nfailure, const char *tag_s,
                          const char *tag_f, int flat)
{
    store_cmp guard = { s->mk_key, STORE_CMP_MOD_REVISION, STORE_CMP_EQUAL, s->mk_rev, NULL, 0 };
    json_t *read_back = json_pack("[{s:{s:o}}]", "request_range", "key", etcd_jb64(s->mk_key, strlen(s->mk_key)));
    if (flat) {
        store_cmp *all = malloc((ncmps + 1) * sizeof *all);
        json_t *req = NULL;
        if (all) {
            if (ncmps)
                memcpy(all, cmps, ncmps * sizeof *all);
            all[ncmps] = guard;
            req = txn_json(all, ncmps + 1, branch_json(success, nsuccess, s, tag_s), read_back);
            free(all);
        } else {
            json_decref(read_back);
        }
        return req;
    }
    json_t *inner = txn_json(cmps, ncmps, branch_json(success, nsuccess, s, nsuccess ? tag_s : NULL),
                             branch_json(failure, nfailure, s, nfailure ? tag_f : NULL));
    if (!inner) {
        json_decref(read_back);
        return NULL;
    }
    return txn_json(&guard, 1, json_pack("[{s:o}]", "request_txn", inner), read_back);
}

static rd_code txn_marked(etcd_store *s, const store_cmp *cmps, size_t ncmps, const store_op *success,
                          size_t nsuccess, const store_op *failure, size_t nfailure, store_txn_result *res,
                          rd_err *err)
{
    char tag_s[32], tag_f[32];
    unsigned long long seq = ++s->mk_seq;
    int flat = nfailure == 0;
    snprintf(tag_s, sizeof tag_s, "%llus", seq);
    snprintf(tag_f, sizeof tag_f, "%lluf", seq);
    for (int attempt = 0; attempt < MARKER_REFRESH; attempt++) {
        rd_code rc;
        etcd_reply r;
        json_t *req = marked_req(s, cmps, ncmps, success, nsuccess, failure, nfailure, tag_s, tag_f, flat);
        if ((rc = call(s, "kv/txn", req, ETCD_RESEND, &r, err)) != RD_OK)
            return rc;
        if (r.code)
            return txn_error(s, &r, err);
        int64_t rev = etcd_i64(header(&r), "revision");
        if (json_is_true(json_object_get(r.body, "succeeded"))) {
            const json_t *inner = json_object_get(json_array_get(json_object_get(r.body, "responses"), 0),
                                                  "response_txn");
            res->succeeded = flat || json_is_true(json_object_get(inner, "succeeded"));
            res->revision = rev;
            if (res->succeeded ? nsuccess : nfailure)
                s->mk_rev = rev;
            etcd_reply_free(&r);
            return RD_OK;
        }
        int64_t seen = s->mk_rev;
        int ours = marker_says(s, r.body, tag_s, tag_f, res);
        etcd_reply_free(&r);
        if (ours)
            return RD_OK;   /* an earlier attempt applied; this one changed nothing */
        if (flat && s->mk_rev == seen) {
            /* the guard held, so the user's compares failed: nothing ran */
            res->succeeded = 0;
            res->revision = rev;
            return RD_OK;
        }
    }
    return rd_fail(err, RD_ESTORE, "etcd %s: txn marker %s keeps changing under this client", s->c.names,
                   s->mk_key);
}

static rd_code etcd_store_txn(store_t *st, const store_cmp *cmps, size_t ncmps, const store_op *success,
                              size_t nsuccess, const store_op *failure, size_t nfailure, store_txn_result *res,
                              rd_err *err)
{
    etcd_store *s = ES(st);
    size_t bytes = 64;
    memset(res, 0, sizeof *res);
    /* A write whose repeat could do harm gets the marker: any put, or
     * ops in both branches (a repeat might take the other one). */
    int marked = has_put(success, nsuccess) || has_put(failure, nfailure) || (nsuccess && nfailure);
    int usable = !covers_marker(s, success, nsuccess) && !covers_marker(s, failure, nfailure);
    /* room left beside the guard compare and the marker put: flat form
     * (failure branch empty) one slot each, nested form one more level */
    size_t cmp_room = MAX_TXN_OPS, op_room = MAX_TXN_OPS;
    if (marked && usable) {
        cmp_room = MAX_TXN_OPS - 1;
        op_room = nfailure ? MAX_TXN_OPS - 2 : MAX_TXN_OPS - 1;
    }
    rd_code rc = check_txn(cmps, ncmps, success, nsuccess, cmp_room, op_room, &bytes, err);
    if (rc == RD_OK)
        rc = check_txn(NULL, 0, failure, nfailure, cmp_room, op_room, &bytes, err);
    if (rc)
        return rc;
    if (bytes > MAX_REQUEST_BYTES - 4096)
        return rd_fail(err, RD_EINVAL, "txn of about %zu bytes exceeds etcd's request limit of 1.5 MiB", bytes);
    if (marked && usable)
        return txn_marked(s, cmps, ncmps, success, nsuccess, failure, nfailure, res, err);
    json_t *req = txn_json(cmps, ncmps, branch_json(success, nsuccess, s, NULL),
                           branch_json(failure, nfailure, s, NULL));
    /* Unmarked writes that could do harm twice are sent once (see docs/etcd.md). */
    return txn_plain(s, req, marked ? ETCD_ONCE : ETCD_RESEND, res, err);
}

/* Keys read in one kv/txn of range requests (no compares) per MAX_TXN_OPS
 * keys: one round trip instead of one per key, each chunk at one revision. */
static rd_code etcd_store_get_many(store_t *st, const char *const *keys, size_t n, store_kv *out, int *found,
                                   int64_t *revision, rd_err *err)
{
    etcd_store *s = ES(st);
    rd_code rc = RD_OK;
    memset(out, 0, n * sizeof *out);
    memset(found, 0, n * sizeof *found);
    for (size_t at = 0; at < n && rc == RD_OK; at += MAX_TXN_OPS) {
        size_t m = n - at < MAX_TXN_OPS ? n - at : MAX_TXN_OPS;
        json_t *ops = json_array();
        for (size_t i = 0; ops && i < m; i++) {
            const char *key = keys[at + i];
            json_t *req = key && *key ? range_req(key, strlen(key), NULL, 0, 0, 0) : NULL;
            if (!req || json_array_append_new(ops, json_pack("{s:o}", "request_range", req))) {
                json_decref(ops);
                ops = NULL;
            }
        }
        etcd_reply r;
        if ((rc = call(s, "kv/txn", txn_json(NULL, 0, ops, json_array()), ETCD_RESEND, &r, err)) != RD_OK)
            break;
        if (r.code) {
            rc = range_error(s, &r, 0, err);
            break;
        }
        const json_t *resp = json_object_get(r.body, "responses");
        for (size_t i = 0; i < m && rc == RD_OK; i++) {
            const json_t *kvs = json_object_get(json_object_get(json_array_get(resp, i), "response_range"), "kvs");
            if (json_array_size(kvs) && (rc = etcd_kv_from_json(json_array_get(kvs, 0), &out[at + i], err)) == RD_OK)
                found[at + i] = 1;
        }
        if (revision)
            *revision = etcd_i64(header(&r), "revision");
        etcd_reply_free(&r);
    }
    for (size_t i = 0; i < n && rc != RD_OK; i++)
        if (found[i]) {
            store_kv_free(&out[i]);
            found[i] = 0;
        }
    return rc;
}

/* ---- leases (store_etcd_lease.c) -------------------------------------------- */

static rd_code etcd_store_lease_grant(store_t *st, int64_t ttl, int64_t *id, rd_err *err)
{
    return etcd_lease_grant(&ES(st)->c, ttl, id, err);
}

static rd_code etcd_store_lease_keepalive(store_t *st, int64_t id, int64_t *ttl_left, rd_err *err)
{
    return etcd_lease_keepalive(&ES(st)->c, id, ttl_left, err);
}

static rd_code etcd_store_lease_ttl(store_t *st, int64_t id, int64_t *left, int64_t *granted, rd_err *err)
{
    return etcd_lease_ttl(&ES(st)->c, id, left, granted, err);
}

static rd_code etcd_store_lease_revoke(store_t *st, int64_t id, rd_err *err)
{
    return etcd_lease_revoke(&ES(st)->c, id, err);
}

/* ---- housekeeping ------------------------------------------------------------ */

static rd_code etcd_store_revision(store_t *st, int64_t *revision, rd_err *err)
{
    etcd_store *s = ES(st);
    etcd_reply r;
    /* the cheapest linearizable read: count a single key nobody uses */
    json_t *req = range_req("", 1, NULL, 0, 0, 0);
    if (req)
        json_object_set_new(req, "count_only", json_true());
    rd_code rc = call(s, "kv/range", req, ETCD_RESEND, &r, err);
    if (rc)
        return rc;
    if (r.code)
        return fail_grpc(s, &r, "revision", err);
    *revision = etcd_i64(header(&r), "revision");
    etcd_reply_free(&r);
    return RD_OK;
}

/* The watch itself is store_etcd_watch.c; what it needs of the handle is
 * handed to it here, so that file never calls back into this one. */
static rd_code etcd_store_watch_open(store_t *st, const char *prefix, int64_t after_rev, store_watch **out,
                                     rd_err *err)
{
    int64_t from = after_rev;
    size_t member = ES(st)->c.cur;   /* taken before the read below, which may move on */
    *out = NULL;
    /* "From now on" is fixed by a linearizable read, not by whichever
     * member serves the stream, which may lag behind what the caller has
     * already seen. */
    if (after_rev == 0) {
        rd_code rc = etcd_store_revision(st, &from, err);
        if (rc)
            return rc;
    }
    return etcd_watch_open(st, &ES(st)->c, member, prefix, from, out, err);
}

static rd_code etcd_store_compact(store_t *st, int64_t revision, rd_err *err)
{
    etcd_store *s = ES(st);
    etcd_reply r;
    if (revision < 1)
        return rd_fail(err, RD_EINVAL, "cannot compact to revision %lld", (long long)revision);
    rd_code rc = call(s, "kv/compaction", json_pack("{s:o}", "revision", etcd_ji64(revision)), ETCD_RESEND, &r, err);
    if (rc)
        return rc;
    if (r.code == GRPC_OUT_OF_RANGE && strstr(r.msg, "compacted") && r.maybe_sent_before)
        return RD_OK;   /* our own earlier attempt did it */
    if (r.code == GRPC_OUT_OF_RANGE && strstr(r.msg, "compacted")) {
        /* etcd refuses the last compaction's revision itself; SQLite (and
         * the contract) take it as done: still readable means exactly that */
        etcd_reply probe_r;
        rd_err ignored;
        json_t *probe = range_req("", 1, NULL, 0, 0, revision);
        if (probe)
            json_object_set_new(probe, "count_only", json_true());
        if (call(s, "kv/range", probe, ETCD_RESEND, &probe_r, &ignored) == RD_OK && !probe_r.code) {
            etcd_reply_free(&probe_r);
            return RD_OK;
        }
    }
    if (r.code == GRPC_OUT_OF_RANGE && strstr(r.msg, "future"))
        return rd_fail(err, RD_EINVAL, "cannot compact to revision %lld: it is in the future", (long long)revision);
    if (r.code == GRPC_OUT_OF_RANGE)
        return rd_fail(err, RD_EINVAL, "cannot compact to revision %lld: it has been compacted already",
                       (long long)revision);
    if (r.code)
        return fail_grpc(s, &r, "compact", err);
    etcd_reply_free(&r);
    return RD_OK;
}

static const char *etcd_store_identity(const store_t *st)
{
    return ES((store_t *)st)->c.token ? ES((store_t *)st)->c.user : NULL;
}

static rd_code etcd_store_auth(store_t *st, const char *op, const json_t *req, json_t **resp, rd_err *err)
{
    etcd_store *s = ES(st);
    etcd_reply r;
    char path[64];
    snprintf(path, sizeof path, "auth/%s", op);
    json_t *body = json_deep_copy(req);
    const char *prefix = json_string_value(json_object_get(req, "prefix"));
    const char *key = json_string_value(json_object_get(req, "key"));
    if (body && (prefix || key)) {
        /* {"prefix": P | "key": K, "perm_type": T}: etcd wants the range
         * in base64; the key "" is the one-NUL key store_revision reads */
        const char *type = json_string_value(json_object_get(req, "perm_type"));
        json_object_del(body, "prefix");
        json_object_del(body, "key");
        json_object_del(body, "perm_type");
        json_object_set_new(body, "perm", prefix ? json_pack("{s:s, s:o, s:o}", "permType", type ? type : "READWRITE",
                                                             "key", etcd_range_key(prefix), "range_end",
                                                             etcd_range_end(prefix))
                                                 : json_pack("{s:s, s:o}", "permType", type ? type : "READWRITE", "key",
                                                             etcd_jb64(*key ? key : "", *key ? strlen(key) : 1)));
    }
    rd_code rc = call(s, path, body, ETCD_RESEND, &r, err);
    if (rc != RD_OK)
        return rc;
    if (r.code == GRPC_PERMISSION_DENIED)
        rc = rd_fail(err, RD_EPERM, "etcd auth %s: permission denied to '%s'", op, s->c.user ? s->c.user : "(none)");
    else if (r.code)
        rc = rd_fail(err, RD_EINVAL, "etcd auth %s: %s", op, etcd_short_msg(r.msg));
    else if (resp)
        *resp = json_incref(r.body);
    etcd_reply_free(&r);
    return rc;
}

static rd_code etcd_store_login(store_t *st, const char *user, const char *password, rd_err *err)
{
    etcd_store *s = ES(st);
    char *u = strdup(user), *p = strdup(password);
    if (!u || !p) {
        free(u);
        free(p);
        return oom(err);
    }
    free(s->c.user);
    if (s->c.password) {
        explicit_bzero(s->c.password, strlen(s->c.password));
        free(s->c.password);
    }
    s->c.user = u;
    s->c.password = p;
    return etcd_conn_login(&s->c, err);
}

const store_backend store_etcd_backend = {
    .name = "etcd",
    .caps = { .txn_ops_max = MAX_TXN_OPS, .authenticates = 1, .shared = 1 },
    .open = etcd_store_open,
    .close = etcd_store_close,
    .get = etcd_store_get,
    .get_many = etcd_store_get_many,
    .range = etcd_store_range,
    .txn = etcd_store_txn,
    .lease_grant = etcd_store_lease_grant,
    .lease_keepalive = etcd_store_lease_keepalive,
    .lease_revoke = etcd_store_lease_revoke,
    .lease_ttl = etcd_store_lease_ttl,
    .watch_open = etcd_store_watch_open,
    .watch_next = etcd_watch_next,
    .watch_close = etcd_watch_close,
    .revision = etcd_store_revision,
    .compact = etcd_store_compact,
    .allow_stale_reads = etcd_store_allow_stale_reads,
    .last_read_stale = etcd_store_last_read_stale,
    .identity = etcd_store_identity,
    .auth = etcd_store_auth,
    .login = etcd_store_login,
};
