/* audit.c - `audit list`: the audit trail as a command (the records are
 * written by audit_log.c).  Fleet staff (admin, operator) read every
 * record; a tenant (member, viewer) only those of its own commands. */
#include "audit.h"
#include "access.h"
#include "keyspace.h"

#include <stdlib.h>
#include <string.h>

static rd_code audit_list_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    rd_time since = 0;
    long limit = 0;
    json_t *all = NULL, *items, *rec;
    size_t i;
    rd_code rc;

    if (cmd_opt(a, "since") && (rc = rdtime_parse("--since", cmd_opt(a, "since"), &since, err)) != RD_OK)
        return rc;
    if (cmd_opt(a, "limit")) {
        char *end;
        limit = strtol(cmd_opt(a, "limit"), &end, 10);
        if (*end || limit < 1)
            return rd_fail(err, RD_EINVAL, "--limit must be a positive whole number, got '%s'", cmd_opt(a, "limit"));
    }
    if ((rc = tx_list(ctx->tx, KEY_AUDIT, &all, err)) != RD_OK)
        return rc;
    items = json_array();
    const char *own = access_actor_is_staff(ctx) ? NULL : ctx->actor;
    json_array_foreach(all, i, rec) {
        rd_time at = 0;
        const char *actor = cmd_opt(a, "actor");
        const char *by = json_string_value(json_object_get(rec, "actor"));
        if (rdtime_parse("at", json_string_value(json_object_get(rec, "at")), &at, NULL) != RD_OK)
            continue;
        if (at < since || (actor && (!by || strcmp(actor, by) != 0)) || (own && (!by || strcmp(own, by) != 0)))
            continue;
        json_array_append(items, rec);
    }
    json_decref(all);
    if (limit > 0)   /* the newest `limit` records, still oldest first */
        while (json_array_size(items) > (size_t)limit)
            json_array_remove(items, 0);
    *result = json_pack("{s:o}", "items", items);
    return RD_OK;
}

static const cmd_flag audit_list_flags[] = {
    { "since", "TIME", CMD_FLAG_VALUE, "only records at or after TIME (RFC 3339)" },
    { "actor", "ACCOUNT", CMD_FLAG_VALUE, "only records of this acting account" },
    { "limit", "N", CMD_FLAG_VALUE, "only the newest N records" },
    { 0 }
};

const cmd_def audit_cmd_table[] = {
    { .words = "audit list", .args = "", .flags = audit_list_flags, .help = "show the audit trail, oldest first",
      .columns = "at,actor,command,changes", .run = audit_list_cmd },
    { 0 }
};
