/* serve_lead.c - leadership among controllers through a store lease.
 *
 * Every `rigdeck serve` holds one lease and renews it.  The leader key
 * (KEY_SERVE_LEADER) is created only where it is missing, under the
 * creator's lease, so exactly one process holds it; when the leader dies
 * its lease expires, the key vanishes and the next standby to look creates
 * it again.  Standbys keep a key under KEY_SERVE_STANDBY so `serve status`
 * can count them.  Renewals write nothing (a lease keepalive makes no store
 * revision).  While leading, the leader key's mod_revision is the fence
 * every write of the controller carries (tx_set_fence): a leader that
 * stalled past its lease cannot write over its successor.
 *
 * A lease proves nothing on a secured etcd: any user may keep any lease
 * alive (`etcdctl lease keep-alive`; etcd has no permission for it), so a
 * tenant could keep a dead leader's key and stop failover.  There the
 * leader also beats: every third of the TTL it rewrites KEY_SERVE_BEAT,
 * fenced by its leadership, which only root may write.  A standby notes
 * the leader key's and the beat's mod_revisions and when they last moved
 * (its own monotonic clock); when neither has moved for a TTL it takes the
 * lead with one transaction guarded by both revisions, so the dead
 * leader's lease, kept alive or not, no longer matters, and its fence (the
 * leader key's mod_revision) no longer holds.  On SQLite and an etcd
 * without users (one trust domain) the lease alone decides, as before,
 * and nothing is written while leading.
 */
#include "serve_lead.h"

#include <stdio.h>
#include <string.h>

#include "keyspace.h"

void serve_lead_init(serve_lead *l, store_t *st, int64_t ttl_s, const char *identity, const char *host, long pid)
{
    memset(l, 0, sizeof *l);
    l->st = st;
    l->ttl_s = ttl_s < 1 ? 1 : ttl_s;
    snprintf(l->identity, sizeof l->identity, "%s", identity);
    snprintf(l->standby_key, sizeof l->standby_key, KEY_SERVE_STANDBY "%s:%ld", host, pid);
    l->beats = store_identity(st) != NULL;
}

/* The leader beats, fenced by its leadership; *held is 0 when the fence
 * failed (someone took the lead). */
static rd_code beat(serve_lead *l, int64_t now_ms, int *held, rd_err *err)
{
    char value[64];
    *held = 1;
    if (l->beat_ms && now_ms - l->beat_ms < l->ttl_s * 1000 / 3)
        return RD_OK;
    snprintf(value, sizeof value, "{\"n\":%lld}", (long long)(l->beat_n + 1));
    store_cmp fence = { KEY_SERVE_LEADER, STORE_CMP_MOD_REVISION, STORE_CMP_EQUAL, l->leader_rev, NULL, 0 };
    store_op put = { STORE_OP_PUT, KEY_SERVE_BEAT, value, strlen(value), 0 };
    store_txn_result res = { 0 };
    rd_code rc = store_txn(l->st, &fence, 1, &put, 1, NULL, 0, &res, err);
    if (rc != RD_OK)
        return rc;
    *held = res.succeeded;
    if (res.succeeded) {
        l->beat_n++;
        l->beat_ms = now_ms;
    }
    return RD_OK;
}

/* mod_revision of key (0: missing). */
static rd_code mod_rev(serve_lead *l, const char *key, int64_t *rev, int64_t *lease, rd_err *err)
{
    store_kv kv;
    int found = 0;
    *rev = 0;
    if (lease)
        *lease = 0;
    rd_code rc = store_get(l->st, key, &kv, &found, NULL, err);
    if (rc == RD_OK && found) {
        *rev = kv.mod_revision;
        if (lease)
            *lease = kv.lease;
        store_kv_free(&kv);
    }
    return rc;
}

/* A standby of a beating store: takes the lead when the leader key and its
 * beat have not moved for a TTL.  *won says whether it did. */
static rd_code take_over_silent(serve_lead *l, int64_t now_ms, int *won, rd_err *err)
{
    int64_t lrev = 0, brev = 0, llease = 0;
    *won = 0;
    rd_code rc = mod_rev(l, KEY_SERVE_LEADER, &lrev, &llease, err);
    if (rc == RD_OK)
        rc = mod_rev(l, KEY_SERVE_BEAT, &brev, NULL, err);
    if (rc != RD_OK || !lrev)
        return rc;   /* no leader key: the next step creates it */
    if (lrev != l->seen_leader_rev || brev != l->seen_beat_rev || !l->seen_ms) {
        l->seen_leader_rev = lrev;
        l->seen_beat_rev = brev;
        l->seen_ms = now_ms;
        return RD_OK;
    }
    if (now_ms - l->seen_ms < l->ttl_s * 1000 || llease == l->lease)
        return RD_OK;
    char value[64];
    snprintf(value, sizeof value, "{\"n\":%lld}", (long long)(l->beat_n + 1));
    store_cmp cmps[2] = {
        { KEY_SERVE_LEADER, STORE_CMP_MOD_REVISION, STORE_CMP_EQUAL, lrev, NULL, 0 },
        { KEY_SERVE_BEAT, STORE_CMP_MOD_REVISION, STORE_CMP_EQUAL, brev, NULL, 0 },
    };
    store_op ops[3] = {
        { STORE_OP_PUT, KEY_SERVE_LEADER, l->identity, strlen(l->identity), l->lease },
        { STORE_OP_PUT, KEY_SERVE_BEAT, value, strlen(value), 0 },
        { STORE_OP_DELETE, l->standby_key, NULL, 0, 0 },
    };
    store_txn_result res = { 0 };
    rc = store_txn(l->st, cmps, 2, ops, 3, NULL, 0, &res, err);
    if (rc == RD_OK && res.succeeded) {
        *won = 1;
        l->leader_rev = res.revision;
        l->beat_n++;
        l->beat_ms = now_ms;
    }
    l->seen_ms = 0;   /* look afresh either way */
    return rc;
}

/* Renews the lease, or takes a new one when it has gone. */
static rd_code keep_lease(serve_lead *l, int64_t now_ms, int *lost, rd_err *err)
{
    *lost = 0;
    if (l->lease && now_ms - l->renewed_ms < l->ttl_s * 1000 / 3)
        return RD_OK;
    if (l->lease) {
        rd_code rc = store_lease_keepalive(l->st, l->lease, NULL, err);
        if (rc == RD_OK) {
            l->renewed_ms = now_ms;
            return RD_OK;
        }
        if (rc != RD_ENOTFOUND)
            return rc;
        *lost = 1;   /* expired while we were away: whatever it held is gone */
    }
    l->lease = 0;
    rd_code rc = store_lease_grant(l->st, l->ttl_s, &l->lease, err);
    if (rc == RD_OK)
        l->renewed_ms = now_ms;
    return rc;
}

/* Creates the leader key if no one holds it; *won says whether we did. */
static rd_code try_lead(serve_lead *l, int *won, rd_err *err)
{
    store_cmp cmp = { KEY_SERVE_LEADER, STORE_CMP_CREATE_REVISION, STORE_CMP_EQUAL, 0, NULL, 0 };
    store_op put = { STORE_OP_PUT, KEY_SERVE_LEADER, l->identity, strlen(l->identity), l->lease };
    store_op drop = { STORE_OP_DELETE, l->standby_key, NULL, 0, 0 };
    store_op ops[2] = { put, drop };
    store_txn_result res = { 0 };
    rd_code rc = store_txn(l->st, &cmp, 1, ops, 2, NULL, 0, &res, err);
    *won = rc == RD_OK && res.succeeded;
    if (*won)
        l->leader_rev = res.revision;
    l->beat_ms = 0;   /* a new leader beats at once */
    if (rc == RD_OK && !*won) {
        /* Held under our own lease: we led, lost sight of the store and it
         * kept our lease alive.  It is still ours. */
        store_kv kv;
        int found = 0;
        rc = store_get(l->st, KEY_SERVE_LEADER, &kv, &found, NULL, err);
        if (rc == RD_OK && found && kv.lease == l->lease) {
            *won = 1;
            l->leader_rev = kv.mod_revision;
        }
        if (found)
            store_kv_free(&kv);
    }
    return rc;
}

rd_code serve_lead_step(serve_lead *l, int64_t now_ms, int *changed, rd_err *err)
{
    int lost = 0, was = l->leading;
    *changed = 0;
    l->took_over = 0;
    rd_code rc = keep_lease(l, now_ms, &lost, err);
    if (rc != RD_OK) {
        /* the store is out of reach: stop acting as leader until it is back */
        l->leading = 0;
        *changed = was != l->leading;
        return rc;
    }
    if (lost)
        l->leading = 0;
    if (l->leading) {
        /* still ours?  (the key carries our lease while we hold it) */
        store_kv kv;
        int found = 0;
        rc = store_get(l->st, KEY_SERVE_LEADER, &kv, &found, NULL, err);
        if (rc == RD_OK) {
            l->leading = found && kv.lease == l->lease && kv.mod_revision == l->leader_rev;
            if (found)
                store_kv_free(&kv);
        }
    }
    if (rc == RD_OK && l->leading && l->beats) {
        int held = 1;
        rc = beat(l, now_ms, &held, err);
        l->leading = rc == RD_OK && held;
    }
    if (rc == RD_OK && !l->leading) {
        int won = 0;
        rc = try_lead(l, &won, err);
        if (rc == RD_OK && !won && l->beats) {
            rc = take_over_silent(l, now_ms, &won, err);
            l->took_over = won;
        }
        l->leading = won;
        if (rc == RD_OK && !won) {
            store_kv kv;
            int found = 0;
            if (store_get(l->st, l->standby_key, &kv, &found, NULL, err) == RD_OK) {
                if (!found || kv.lease != l->lease)
                    rc = store_put(l->st, l->standby_key, l->identity, strlen(l->identity), l->lease, err);
                if (found)
                    store_kv_free(&kv);
            }
        }
    }
    *changed = was != l->leading;
    return rc;
}

void serve_lead_release(serve_lead *l)
{
    rd_err ignored = { 0 };
    if (l->lease)
        store_lease_revoke(l->st, l->lease, &ignored);
    l->lease = 0;
    l->leading = 0;
}
