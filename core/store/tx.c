/* tx.c - optimistic JSON transactions: guarded reads, buffered writes.
 *
 * An entry per key touched: what was read (and at which mod_revision) and
 * what will be written.  Commit turns reads into MOD_REVISION compares and
 * writes into one store txn.  Entries live in an array in the order they
 * were first touched (commit and tx_changes keep that order); an
 * open-addressing hash of their positions finds a key in O(1), because a
 * billing run or a bulk ledger post touches thousands of keys.
 */
#include "tx.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "jsonmem.h"
#include "jsonout.h"
#include "keyspace.h"
#include "jsonin.h"

typedef struct {
    char *key;
    int read;             /* guarded: compare mod_revision == seen_rev at commit */
    int64_t seen_rev;     /* 0: the key was missing */
    json_t *before;       /* document as read (NULL: missing or never read) */
    int written;
    json_t *after;        /* NULL with written: delete (unless text) */
    char *text;           /* a put given as encoded text (tx_put_text) */
    size_t text_len;
    json_t *fields;       /* with text: the top-level fields it changes */
    int64_t lease;        /* put under this lease (0: none) */
} tx_entry;

struct rd_tx {
    store_t *st;
    tx_entry *entries;
    size_t count, cap;
    size_t *slots;        /* position + 1 of an entry, 0: empty; nslots a power of 2 */
    size_t nslots;
    int64_t last_rev;     /* revision of the last commit that wrote */
    char *fence_key;      /* every commit also holds only while this key */
    int64_t fence_rev;    /* still has this mod_revision (tx_set_fence) */
    size_t commits;       /* commits that wrote, over the handle's life */
    unsigned long jfail;  /* jsonmem_failures() when the writes began */
    int fence_lost;       /* tx_set_fence could not copy its key */
};

rd_tx *tx_new(store_t *st)
{
    jsonmem_install();
    rd_tx *tx = calloc(1, sizeof *tx);
    if (tx) {
        tx->st = st;
        tx->jfail = jsonmem_failures();
    }
    return tx;
}

void tx_reset(rd_tx *tx)
{
    for (size_t i = 0; i < tx->count; i++) {
        free(tx->entries[i].key);
        json_decref(tx->entries[i].before);
        json_decref(tx->entries[i].after);
        free(tx->entries[i].text);
        json_decref(tx->entries[i].fields);
    }
    tx->count = 0;
    if (tx->slots)
        memset(tx->slots, 0, tx->nslots * sizeof *tx->slots);
    /* jfail stays: the caller may stage documents it built before */
}

void tx_free(rd_tx *tx)
{
    if (!tx)
        return;
    tx_reset(tx);
    free(tx->entries);
    free(tx->slots);
    free(tx->fence_key);
    free(tx);
}

store_t *tx_store(rd_tx *tx)
{
    return tx->st;
}

size_t tx_write_count(const rd_tx *tx)
{
    size_t n = 0;
    for (size_t i = 0; i < tx->count; i++)
        n += tx->entries[i].written;
    return n;
}

const char *tx_key(char buf[RD_KEY_MAX], const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, RD_KEY_MAX, fmt, ap);
    va_end(ap);
    return buf;
}

static size_t key_hash(const char *key)
{
    uint64_t h = 1469598103934665603ULL;   /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)key; *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    return (size_t)(h ^ (h >> 29));
}

/* The slot holding key, or the empty slot where it would go. */
static size_t *slot_of(const rd_tx *tx, const char *key)
{
    size_t mask = tx->nslots - 1;
    for (size_t i = key_hash(key) & mask;; i = (i + 1) & mask)
        if (!tx->slots[i] || strcmp(tx->entries[tx->slots[i] - 1].key, key) == 0)
            return &tx->slots[i];
}

/* Keeps the table at most half full so probes stay short. */
static int slots_grow(rd_tx *tx)
{
    if (tx->nslots && (tx->count + 1) * 2 <= tx->nslots)
        return 1;
    size_t n = tx->nslots ? tx->nslots * 2 : 64;
    size_t *slots = calloc(n, sizeof *slots);
    if (!slots)
        return 0;
    free(tx->slots);
    tx->slots = slots;
    tx->nslots = n;
    for (size_t i = 0; i < tx->count; i++)
        *slot_of(tx, tx->entries[i].key) = i + 1;
    return 1;
}

static tx_entry *entry_find(rd_tx *tx, const char *key)
{
    if (!tx->nslots)
        return NULL;
    size_t pos = *slot_of(tx, key);
    return pos ? &tx->entries[pos - 1] : NULL;
}

static tx_entry *entry_add(rd_tx *tx, const char *key)
{
    if (grow_array(&tx->entries, &tx->cap, tx->count + 1, sizeof *tx->entries) != 0)
        return NULL;
    if (!slots_grow(tx))
        return NULL;
    tx_entry *e = &tx->entries[tx->count];
    memset(e, 0, sizeof *e);
    e->key = strdup(key);
    if (!e->key)
        return NULL;
    *slot_of(tx, key) = tx->count + 1;
    tx->count++;
    return e;
}

static rd_code decode_doc(const char *key, const char *value, size_t len, json_t **doc, rd_err *err)
{
    json_error_t jerr;
    *doc = jsonin_loadb_any(value, len, &jerr);
    if (!*doc || !json_is_object(*doc)) {
        json_decref(*doc);
        *doc = NULL;
        return rd_fail(err, RD_ECORRUPT, "store key %s does not hold a JSON object", key);
    }
    return RD_OK;
}

rd_code tx_get(rd_tx *tx, const char *key, json_t **doc, rd_err *err)
{
    tx_entry *e = entry_find(tx, key);
    *doc = NULL;
    if (e && e->written && e->text)
        return decode_doc(key, e->text, e->text_len, doc, err);
    if (e && (e->written || e->read)) {
        json_t *cur = e->written ? e->after : e->before;
        *doc = cur ? json_deep_copy(cur) : NULL;
        if (cur && !*doc)
            return rd_fail(err, RD_ENOMEM, "out of memory");
        return RD_OK;   /* already guarded, or our own write: no second read */
    }

    store_kv kv;
    int found = 0;
    rd_code rc = store_get(tx->st, key, &kv, &found, NULL, err);
    if (rc != RD_OK)
        return rc;
    json_t *before = NULL;
    if (found) {
        rc = decode_doc(key, kv.value, kv.value_len, &before, err);
        if (rc != RD_OK) {
            store_kv_free(&kv);
            return rc;
        }
    }
    if (!e && !(e = entry_add(tx, key))) {
        json_decref(before);
        store_kv_free(&kv);
        return rd_fail(err, RD_ENOMEM, "out of memory");
    }
    e->read = 1;
    e->seen_rev = found ? kv.mod_revision : 0;
    e->before = before;
    store_kv_free(&kv);
    *doc = before ? json_deep_copy(before) : NULL;
    if (before && !*doc)
        return rd_fail(err, RD_ENOMEM, "out of memory");
    return RD_OK;
}

rd_code tx_prefetch(rd_tx *tx, const char *const *keys, size_t n, rd_err *err)
{
    const char **want = calloc(n ? n : 1, sizeof *want);
    size_t m = 0;
    rd_code rc = want ? RD_OK : rd_fail(err, RD_ENOMEM, "out of memory");
    /* A key the transaction holds is answered from it, as tx_get would;
     * the others get an empty entry now, so a key named twice is read once. */
    for (size_t i = 0; i < n && rc == RD_OK; i++) {
        if (entry_find(tx, keys[i]))
            continue;
        tx_entry *e = entry_add(tx, keys[i]);
        if (!e)
            rc = rd_fail(err, RD_ENOMEM, "out of memory");
        else
            want[m++] = e->key;
    }
    store_kv *kv = rc == RD_OK && m ? calloc(m, sizeof *kv) : NULL;
    int *found = kv ? calloc(m, sizeof *found) : NULL;
    if (rc == RD_OK && m && !found)
        rc = rd_fail(err, RD_ENOMEM, "out of memory");
    if (rc == RD_OK && m)
        rc = store_get_many(tx->st, want, m, kv, found, NULL, err);
    /* Entries left unread (a failure) are read again by tx_get. */
    for (size_t j = 0; j < m && found && rc == RD_OK; j++) {
        json_t *before = NULL;
        if (found[j])
            rc = decode_doc(want[j], kv[j].value, kv[j].value_len, &before, err);
        if (rc == RD_OK) {
            tx_entry *e = entry_find(tx, want[j]);
            e->read = 1;
            e->seen_rev = found[j] ? kv[j].mod_revision : 0;
            e->before = before;
        }
    }
    for (size_t j = 0; j < m && found; j++)
        if (found[j])
            store_kv_free(&kv[j]);
    free(found);
    free(kv);
    free(want);
    return rc;
}

static int key_has_prefix(const char *key, const char *prefix)
{
    return strncmp(key, prefix, strlen(prefix)) == 0;
}

static int cmp_item_keys(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

rd_code tx_list(rd_tx *tx, const char *prefix, json_t **items, rd_err *err)
{
    json_t *by_key = json_object();   /* key -> doc, so pending writes can override */
    const char *after = NULL;
    char *after_buf = NULL;
    int64_t at_rev = 0;
    rd_code rc = RD_OK;

    *items = NULL;
    if (!by_key)
        return rd_fail(err, RD_ENOMEM, "out of memory");
    for (;;) {
        store_range_result res;
        rc = store_range(tx->st, prefix, after, 500, at_rev, &res, err);
        if (rc != RD_OK)
            goto out;
        at_rev = res.revision;
        for (size_t i = 0; i < res.count && rc == RD_OK; i++) {
            json_t *doc;
            rc = decode_doc(res.kvs[i].key, res.kvs[i].value, res.kvs[i].value_len, &doc, err);
            if (rc == RD_OK && json_object_set_new(by_key, res.kvs[i].key, doc) != 0)
                rc = rd_fail(err, RD_ENOMEM, "out of memory");   /* a list missing a document */
        }
        free(after_buf);
        after_buf = res.count ? strdup(res.kvs[res.count - 1].key) : NULL;
        after = after_buf;
        int more = res.more && res.count > 0;
        store_range_free(&res);
        if (rc == RD_OK && more && !after)   /* not from the start again */
            rc = rd_fail(err, RD_ENOMEM, "out of memory");
        if (rc != RD_OK)
            goto out;
        if (!more)
            break;
    }
    for (size_t i = 0; i < tx->count; i++) {
        tx_entry *e = &tx->entries[i];
        if (!e->written || !key_has_prefix(e->key, prefix))
            continue;
        if (e->text) {
            json_t *doc = NULL;
            if ((rc = decode_doc(e->key, e->text, e->text_len, &doc, err)) != RD_OK)
                goto out;
            if (json_object_set_new(by_key, e->key, doc) != 0) {
                rc = rd_fail(err, RD_ENOMEM, "out of memory");   /* a list missing a pending write */
                goto out;
            }
        } else if (e->after)
            json_object_set(by_key, e->key, e->after);
        else
            json_object_del(by_key, e->key);
    }

    size_t n = json_object_size(by_key), k = 0;
    const char **keys = calloc(n ? n : 1, sizeof *keys);
    if (!keys) {
        rc = rd_fail(err, RD_ENOMEM, "out of memory");
        goto out;
    }
    const char *key;
    json_t *doc;
    json_object_foreach(by_key, key, doc)
        keys[k++] = key;
    qsort(keys, n, sizeof *keys, cmp_item_keys);
    *items = json_array();
    for (k = 0; k < n && *items; k++) {
        /* Decoded documents belong to this list alone; only our own pending
         * writes are shared with the transaction and must be copied. */
        tx_entry *e = entry_find(tx, keys[k]);
        json_t *d = json_object_get(by_key, keys[k]);
        if (e && e->written && !e->text)
            json_array_append_new(*items, json_deep_copy(d));
        else
            json_array_append(*items, d);
    }
    free(keys);
    if (!*items)
        rc = rd_fail(err, RD_ENOMEM, "out of memory");
out:
    free(after_buf);
    json_decref(by_key);
    return rc;
}

rd_code tx_scan(rd_tx *tx, const char *prefix, tx_scan_fn fn, void *data, int64_t *revision, rd_err *err)
{
    int64_t at_rev = 0;
    rd_code rc = store_scan(tx->st, prefix, &at_rev, fn, data, err);
    if (rc == RD_OK && revision)
        *revision = at_rev;
    return rc;
}

rd_code tx_guard(rd_tx *tx, const char *key, json_t *doc, int64_t rev, rd_err *err)
{
    tx_entry *e = entry_find(tx, key);
    if (!e && !(e = entry_add(tx, key)))
        return rd_fail(err, RD_ENOMEM, "out of memory");
    json_decref(e->before);
    e->before = json_incref(doc);
    e->read = 1;
    e->seen_rev = rev;
    return RD_OK;
}

int64_t tx_last_revision(const rd_tx *tx)
{
    return tx->last_rev;
}

size_t tx_commit_count(const rd_tx *tx)
{
    return tx->commits;
}

static rd_code entry_write(rd_tx *tx, const char *key, json_t *doc, rd_err *err)
{
    tx_entry *e = entry_find(tx, key);
    if (!e && !(e = entry_add(tx, key))) {
        json_decref(doc);
        return rd_fail(err, RD_ENOMEM, "out of memory");
    }
    json_decref(e->after);
    free(e->text);
    json_decref(e->fields);
    e->after = doc;
    e->text = NULL;
    e->text_len = 0;
    e->fields = NULL;
    e->written = 1;
    e->lease = 0;
    return RD_OK;
}

rd_code tx_put_text(rd_tx *tx, const char *key, char *text, size_t len, json_t *fields, rd_err *err)
{
    if (!text || !fields) {
        free(text);
        json_decref(fields);
        return rd_fail(err, RD_ENOMEM, "out of memory");
    }
    rd_code rc = entry_write(tx, key, NULL, err);
    if (rc != RD_OK) {
        free(text);
        json_decref(fields);
        return rc;
    }
    tx_entry *e = entry_find(tx, key);
    e->text = text;
    e->text_len = len;
    e->fields = fields;
    return RD_OK;
}

rd_code tx_put(rd_tx *tx, const char *key, json_t *doc, rd_err *err)
{
    if (!doc)
        return rd_fail(err, RD_ENOMEM, "out of memory");
    return entry_write(tx, key, doc, err);
}

rd_code tx_put_lease(rd_tx *tx, const char *key, json_t *doc, int64_t lease, rd_err *err)
{
    rd_code rc = tx_put(tx, key, doc, err);
    if (rc == RD_OK)
        entry_find(tx, key)->lease = lease;
    return rc;
}

rd_code tx_delete(rd_tx *tx, const char *key, rd_err *err)
{
    return entry_write(tx, key, NULL, err);
}

void tx_set_fence(rd_tx *tx, const char *key, int64_t mod_revision)
{
    free(tx->fence_key);
    tx->fence_key = key ? strdup(key) : NULL;
    tx->fence_rev = mod_revision;
    tx->fence_lost = key && !tx->fence_key;   /* tx_commit refuses: never write unfenced */
}

/* 1 while the fence key still has the revision the holder took it at. */
static int fence_holds(rd_tx *tx)
{
    store_kv kv;
    int found = 0;
    rd_err ignored = { 0 };
    if (store_get(tx->st, tx->fence_key, &kv, &found, NULL, &ignored) != RD_OK)
        return 1;   /* cannot tell: let the caller retry as for any conflict */
    int holds = found && kv.mod_revision == tx->fence_rev;
    if (found)
        store_kv_free(&kv);
    return holds;
}

rd_code tx_commit(rd_tx *tx, int64_t *revision, rd_err *err)
{
    size_t nwrites = tx_write_count(tx);
    rd_code rc = RD_OK;

    if (nwrites == 0) {
        if (revision)
            return store_revision(tx->st, revision, err);
        return RD_OK;
    }
    /* a jansson allocation failed since the writes began: a staged
     * document may lack a field or an element (an unchecked
     * json_object_set_new), so nothing of it is written */
    if (jsonmem_failures() != tx->jfail || tx->fence_lost)
        return rd_fail(err, RD_ENOMEM, "out of memory while building the documents to write; nothing was written");
    store_cmp *cmps = calloc(tx->count + 1, sizeof *cmps);
    store_op *ops = calloc(nwrites, sizeof *ops);
    char **bodies = calloc(nwrites, sizeof *bodies);
    size_t ncmps = 0, nops = 0;
    const json_t *last_after = NULL;   /* the document the previous put encoded */
    if (!cmps || !ops || !bodies) {
        rc = rd_fail(err, RD_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < tx->count; i++) {
        tx_entry *e = &tx->entries[i];
        if (e->read)
            cmps[ncmps++] = (store_cmp){ e->key, STORE_CMP_MOD_REVISION, STORE_CMP_EQUAL,
                                         e->seen_rev, NULL, 0 };
        if (!e->written)
            continue;
        if (e->text) {
            ops[nops] = (store_op){ STORE_OP_PUT, e->key, e->text, e->text_len, e->lease };
        } else if (e->after && nops > 0 && e->after == last_after) {
            /* one document put at several keys (the ledger's index copies): encoded once */
            ops[nops] = (store_op){ STORE_OP_PUT, e->key, ops[nops - 1].value, ops[nops - 1].value_len, e->lease };
        } else if (e->after) {
            size_t len = 0;
            bodies[nops] = jsonout_dumps_any(e->after, &len);
            if (!bodies[nops]) {
                rc = rd_fail(err, RD_ENOMEM, "out of memory");
                goto out;
            }
            ops[nops] = (store_op){ STORE_OP_PUT, e->key, bodies[nops], len, e->lease };
        } else {
            ops[nops] = (store_op){ STORE_OP_DELETE, e->key, NULL, 0, 0 };
        }
        last_after = e->text ? NULL : e->after;
        nops++;
    }
    if (tx->fence_key)
        cmps[ncmps++] = (store_cmp){ tx->fence_key, STORE_CMP_MOD_REVISION, STORE_CMP_EQUAL, tx->fence_rev, NULL, 0 };
    store_txn_result res;
    rc = store_txn(tx->st, cmps, ncmps, ops, nops, NULL, 0, &res, err);
    if (rc == RD_OK && !res.succeeded && tx->fence_key && !fence_holds(tx))
        rc = rd_fail(err, RD_EPERM, "%s changed: this process no longer holds it (another controller leads)",
                     tx->fence_key);
    else if (rc == RD_OK && !res.succeeded)
        rc = rd_fail(err, RD_ECONFLICT, "another change to the same objects won the race; try again");
    if (rc == RD_OK) {
        tx->last_rev = res.revision;
        tx->commits++;
        tx->jfail = jsonmem_failures();
    }
    if (rc == RD_OK && revision)
        *revision = res.revision;
out:
    if (bodies)   /* NULL where the text was the entry's own */
        for (size_t i = 0; i < nwrites; i++)
            free(bodies[i]);
    free(bodies);
    free(ops);
    free(cmps);
    return rc;
}

/* "/rigdeck/accounts/alice" -> "account/alice": the kind loses its plural s. */
static json_t *object_name(const char *key)
{
    const char *p = key;
    if (strncmp(p, KEY_ROOT, strlen(KEY_ROOT)) == 0)
        p += 9;
    const char *slash = strchr(p, '/');
    if (!slash)
        return json_string(p);
    size_t kind_len = (size_t)(slash - p);
    if (kind_len > 1 && p[kind_len - 1] == 's')
        kind_len--;
    char buf[RD_KEY_MAX];
    snprintf(buf, sizeof buf, "%.*s/%s", (int)kind_len, p, slash + 1);
    return json_string(buf);
}

static json_t *changed_fields(const json_t *before, const json_t *after)
{
    json_t *fields = json_array();
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)after, k, v) {
        if (strncmp(k, "secret", 6) == 0)
            continue;
        if (!before || !json_equal(json_object_get(before, k), v))
            json_array_append_new(fields, json_string(k));
    }
    if (before)
        json_object_foreach((json_t *)before, k, v)
            if (!json_object_get(after, k) && strncmp(k, "secret", 6) != 0)
                json_array_append_new(fields, json_string(k));
    return fields;
}

json_t *tx_changes(const rd_tx *tx)
{
    json_t *changes = json_array();
    for (size_t i = 0; i < tx->count && changes; i++) {
        const tx_entry *e = &tx->entries[i];
        if (!e->written || strncmp(e->key, KEY_AUDIT, 15) == 0)
            continue;
        const char *action;
        if (e->text) {
            json_t *fields = json_array(), *f;
            size_t k;
            json_array_foreach(e->fields, k, f)
                if (strncmp(json_string_value(f) ? json_string_value(f) : "", "secret", 6) != 0)
                    json_array_append(fields, f);
            json_array_append_new(changes, json_pack("{s:o, s:s, s:o}", "object", object_name(e->key), "action",
                                                     "updated", "fields", fields));
            continue;
        }
        if (!e->after)
            action = "deleted";
        else if (e->read && !e->before)
            action = "created";
        else if (e->before)
            action = "updated";
        else
            action = "written";
        if (!e->after && !e->before && e->read)
            continue;   /* deleting something that was not there changes nothing */
        json_t *c = json_pack("{s:o, s:s}", "object", object_name(e->key), "action", action);
        if (c && e->after && e->before)
            json_object_set_new(c, "fields", changed_fields(e->before, e->after));
        json_array_append_new(changes, c);
    }
    return changes;
}
