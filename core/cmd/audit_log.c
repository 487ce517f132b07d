/* audit_log.c - writing the audit trail.
 *
 * Key: /rigdeck/audit/<revision seen, 16 digits>-<random>.  The revision the
 * command started from orders records as they were committed (a later
 * command always starts from a revision at or after an earlier commit); the
 * random part keeps concurrent writers from colliding.
 */
#include "audit_log.h"
#include "keyspace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

rd_code audit_log_append(rd_tx *tx, const char *actor, const char *line, rd_time now, rd_err *err)
{
    return audit_log_append_by(tx, actor, NULL, line, now, err);
}

rd_code audit_log_append_by(rd_tx *tx, const char *actor, const char *by, const char *line, rd_time now,
                            rd_err *err)
{
    int64_t rev = 0;
    uint32_t nonce = 0;
    char key[RD_KEY_MAX], ts[RDTIME_BUFLEN], id[48];

    rd_code rc = store_revision(tx_store(tx), &rev, err);
    if (rc != RD_OK)
        return rc;
    if (getrandom(&nonce, sizeof nonce, 0) != (ssize_t)sizeof nonce)
        nonce = (uint32_t)rand();
    snprintf(id, sizeof id, "%016lld-%08x", (long long)rev, nonce);
    json_t *rec = json_pack("{s:s, s:s, s:s, s:s, s:o}", "id", id, "at", rdtime_format(now, ts),
                            "actor", actor, "command", line ? line : "",
                            "changes", tx_changes(tx));
    if (rec && by && strcmp(by, actor) != 0)
        json_object_set_new(rec, "by", json_string(by));
    return tx_put(tx, tx_key(key, KEY_AUDIT "%s", id), rec, err);
}

