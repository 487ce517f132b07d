/* sched_idle.c - the idle record of `sched run` (/rigdeck/sched/idle).
 *
 * A pass that ends with nothing more placeable, and saw no writer but
 * itself, records the store revision it ended at and its counts.  The next
 * pass answers from the record instead of reading the queue and the fleet
 * again while it can prove that nothing that placement depends on has
 * changed since: either nothing at all was written, or every write since
 * (read back from the store's history) touched only keys that no placement
 * reads — audit records, devices, finished ledger transfers, the store's
 * own bookkeeping.  Any other key, known or not, counts as a change.
 */
#include <stdlib.h>
#include <string.h>

#include "sched_idle.h"
#include "keyspace.h"

#define IDLE_KEY KEY_SCHED_IDLE

enum {
    HISTORY_REVS = 256,      /* more revisions since the record: scan instead */
    HISTORY_EVENTS = 4096,   /* more events than this: scan instead */
    HISTORY_WAIT_MS = 2000   /* the longest a backend may take to send them */
};

int sched_idle_key_matters(const char *key)
{
    /* The store's own keys (retry markers, watchers, compaction). */
    if (strncmp(key, "~rigdeck/", 9) == 0)
        return 0;
    switch (keyspace_kind_of(key)) {
    case KEYSPACE_AUDIT:
    case KEYSPACE_DEVICES:
    case KEYSPACE_DEVICE_CONFIGS:
    case KEYSPACE_DEVICE_TENURES:
    case KEYSPACE_MINIONS:            /* a node's own document changes with it */
    case KEYSPACE_LEDGER_TRANSFERS:   /* wallets are KEYSPACE_LEDGER_ACCOUNTS: read */
    case KEYSPACE_LEDGER_INDEX:
    case KEYSPACE_BILLING:
    case KEYSPACE_SCHED_IDLE:
    case KEYSPACE_LOGS:               /* worker output, pushed while they run */
    case KEYSPACE_SERVE:              /* who leads the controllers */
    case KEYSPACE_AGENTS:             /* an agent's state reaches the pass through its node: register,
                                       * the loss and remove write its agent_online (node_agent.c) */
    case KEYSPACE_AGENT_ALIVE:
    case KEYSPACE_METRICS:            /* vital stats: GPU health reaches the pass through the node */
    case KEYSPACE_ALERT_RULES:
    case KEYSPACE_ALERTS:
    case KEYSPACE_RELAY:              /* a request's effects come in their own keys */
    case KEYSPACE_RELAY_DONE:
    case KEYSPACE_CREDENTIALS:
    case KEYSPACE_WORK:               /* the agents' view of the jobs, copied from them */
        return 0;
    default:
        return 1;   /* any other key, known or not, may change a pass */
    }
}

/* 1 when every write of revisions (from, to] was to keys no pass reads. */
static int nothing_read_changed(store_t *st, int64_t from, int64_t to)
{
    store_event *ev = NULL;
    size_t n = 0;
    int more = 0, quiet;
    if (to - from > HISTORY_REVS ||
        store_history(st, from, to, HISTORY_EVENTS, HISTORY_WAIT_MS, &ev, &n, &more, NULL) != RD_OK || more)
        return 0;
    quiet = 1;
    for (size_t i = 0; i < n && quiet; i++)
        quiet = !sched_idle_key_matters(ev[i].kv.key);
    store_events_free(ev, n);
    return quiet;
}

json_t *sched_idle_result(store_t *st)
{
    store_kv kv;
    int found = 0;
    int64_t now_rev = 0;
    json_error_t jerr;
    if (store_get(st, IDLE_KEY, &kv, &found, &now_rev, NULL) != RD_OK || !found)
        return NULL;
    json_t *rec = json_loadb(kv.value, kv.value_len, 0, &jerr);
    int64_t seen = json_integer_value(json_object_get(rec, "revision"));
    /* The record must have been the one write after the pass it speaks for. */
    int valid = rec && kv.mod_revision == seen + 1 &&
                (now_rev == kv.mod_revision || nothing_read_changed(st, kv.mod_revision, now_rev));
    store_kv_free(&kv);
    json_t *res = valid ? json_incref(json_object_get(rec, "result")) : NULL;
    json_decref(rec);
    return res;
}

void sched_idle_record(store_t *st, int64_t rev, size_t waiting, size_t no_credit, size_t bursting)
{
    json_t *rec = json_pack("{s:I, s:{s:s, s:i, s:i, s:I, s:I, s:I, s:i, s:b, s:[]}}", "revision", (json_int_t)rev,
                            "result", "name", "sched", "stopped_out_of_credits", 0, "placed", 0, "waiting",
                            (json_int_t)waiting, "waiting_for_credit", (json_int_t)no_credit, "waiting_for_cloud",
                            (json_int_t)bursting, "failed", 0, "dry_run", 0, "placements");
    char *text = rec ? json_dumps(rec, JSON_COMPACT) : NULL;
    /* A plain put: a record that lost a race to another writer is simply
     * not valid (its revision is not the one before it). */
    if (text)
        store_put(st, IDLE_KEY, text, strlen(text), 0, NULL);
    free(text);
    json_decref(rec);
}
