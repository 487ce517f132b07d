/* alert_cmd.c - the alerts an operator sees: `alert list`, `alert ack`, and
 * the command table of the `alert` family (the rules' commands are in
 * alert_rule.c, `alert eval` in alert_eval.c).
 *
 * A tenant sees the alerts on the nodes it sees (access_view.h); fleet
 * staff see all.  Who may acknowledge: fleet staff, or the owner of the
 * region of the alert's node (the one who has to go and look at it).
 */
#include <string.h>

#include "access_view.h"
#include "alerts.h"
#include "doc.h"
#include "fleet.h"
#include "keyspace.h"
#include "names.h"

/* Drops the pending records from a list of open ones (not alerts yet). */
static void keep_firing(json_t *items)
{
    for (size_t i = json_array_size(items); i-- > 0;)
        if (strcmp(doc_str(json_array_get(items, i), "state"), "firing") != 0)
            json_array_remove(items, i);
}

static void reverse(json_t *items)
{
    size_t n = json_array_size(items);
    for (size_t i = 0; i < n / 2; i++) {
        json_t *a = json_incref(json_array_get(items, i)), *b = json_incref(json_array_get(items, n - 1 - i));
        json_array_set_new(items, i, b);
        json_array_set_new(items, n - 1 - i, a);
    }
}

static int alert_seen(access_view *v, const json_t *alert)
{
    return access_view_node_named(v, doc_str(alert, "node"));
}

static rd_code alert_list_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *state = cmd_opt(a, "state") ? cmd_opt(a, "state") : "firing";
    json_t *open = NULL, *log = NULL;
    int want_open = strcmp(state, "firing") == 0 || strcmp(state, "pending") == 0 || strcmp(state, "all") == 0;
    int want_log = strcmp(state, "resolved") == 0 || strcmp(state, "all") == 0;
    if (!want_open && !want_log)
        return rd_fail(err, RD_EINVAL, "--state: must be firing, resolved, all or pending, got '%s'", state);
    rd_code rc = RD_OK;
    if (want_open)
        rc = tx_list(ctx->tx, KEY_ALERTS ALERTS_OPEN_PREFIX, &open, err);
    if (rc == RD_OK && want_log)
        rc = tx_list(ctx->tx, KEY_ALERTS ALERTS_LOG_PREFIX, &log, err);
    if (rc != RD_OK) {
        json_decref(open);
        json_decref(log);
        return rc;
    }
    json_t *items = json_array();
    if (open && strcmp(state, "pending") == 0) {
        for (size_t i = json_array_size(open); i-- > 0;)
            if (strcmp(doc_str(json_array_get(open, i), "state"), "pending") != 0)
                json_array_remove(open, i);
    } else if (open) {
        keep_firing(open);
    }
    if (open)
        json_array_extend(items, open);
    if (log) {
        reverse(log);   /* newest first */
        json_array_extend(items, log);
    }
    json_decref(open);
    json_decref(log);
    access_view view;
    access_view_open(ctx, &view);
    access_view_filter(&view, items, alert_seen);
    access_view_close(&view);
    *result = json_pack("{s:o}", "items", items);
    return RD_OK;
}

/* Finds alert id among the open records, then the history: *key and *doc. */
static rd_code alert_find(cmd_ctx *ctx, const char *id, char key[RD_KEY_MAX], json_t **doc, rd_err *err)
{
    static const char *const prefixes[] = { KEY_ALERTS ALERTS_OPEN_PREFIX, KEY_ALERTS ALERTS_LOG_PREFIX };
    *doc = NULL;
    for (size_t p = 0; p < 2; p++) {
        json_t *items = NULL, *rec;
        size_t i;
        rd_code rc = tx_list(ctx->tx, prefixes[p], &items, err);
        if (rc != RD_OK)
            return rc;
        json_array_foreach(items, i, rec) {
            if (strcmp(doc_str(rec, "id"), id) != 0)
                continue;
            json_t *gpu = json_object_get(rec, "gpu");
            char gbuf[24];
            if (json_is_integer(gpu))
                snprintf(gbuf, sizeof gbuf, "%lld", (long long)json_integer_value(gpu));
            else
                snprintf(gbuf, sizeof gbuf, "-");
            if (p == 0) {
                tx_key(key, "%s%s/%s/%s", prefixes[p], doc_str(rec, "rule"), doc_str(rec, "node"), gbuf);
            } else {
                char when[RDTIME_BUFLEN];
                size_t j = 0;
                for (const char *c = doc_str(rec, "resolved_at"); *c && j + 1 < sizeof when; c++)
                    if (*c != '-' && *c != ':')
                        when[j++] = *c;
                when[j] = '\0';
                tx_key(key, "%s%s/%s", prefixes[p], when, id);
            }
            break;
        }
        json_decref(items);
        if (key[0]) {
            /* read again, guarded: an eval may move it meanwhile */
            rc = tx_get(ctx->tx, key, doc, err);
            if (rc == RD_OK && !*doc)
                rc = rd_fail(err, RD_ECONFLICT, "alert '%s' moved while being acknowledged", id);
            return rc;
        }
    }
    return rd_fail(err, RD_ENOTFOUND, "alert '%s' does not exist", id);
}

/* Fleet staff, or the owner of the region of the alert's node. */
static rd_code require_acker(cmd_ctx *ctx, const json_t *alert, rd_err *err)
{
    if (access_actor_is_staff(ctx))
        return RD_OK;
    char key[RD_KEY_MAX];
    json_t *node = NULL, *region = NULL;
    rd_code rc = tx_get(ctx->tx, tx_key(key, KEY_NODES "%s", doc_str(alert, "node")), &node, err);
    if (rc == RD_OK && !node)
        rc = rd_fail(err, RD_EPERM, "alert ack: node '%s' is gone; only an administrator or an operator may acknowledge",
                     doc_str(alert, "node"));
    if (rc == RD_OK)
        rc = fleet_region_get(ctx, doc_str(node, "region"), &region, err);
    if (rc == RD_OK)
        rc = fleet_require_owner(ctx, region, "alert ack", err);
    json_decref(node);
    json_decref(region);
    return rc;
}

static rd_code alert_ack_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *id = cmd_arg(a, 0);
    char key[RD_KEY_MAX] = "", ts[RDTIME_BUFLEN];
    json_t *alert = NULL;
    rd_code rc = names_check("alert id", id, err);
    if (rc == RD_OK)
        rc = alert_find(ctx, id, key, &alert, err);
    if (rc == RD_OK && strcmp(doc_str(alert, "state"), "pending") == 0)
        rc = rd_fail(err, RD_EINVAL, "alert '%s' is pending (its rule's --for has not passed): nothing to acknowledge yet",
                     id);
    if (rc == RD_OK)
        rc = require_acker(ctx, alert, err);
    const char *by = doc_str(alert, "acked_by");
    if (rc == RD_OK && *by && strcmp(by, ctx->actor) != 0)
        rc = rd_fail(err, RD_EINVAL, "alert '%s' was acknowledged by '%s' at %s already", id, by,
                     doc_str(alert, "acked_at"));
    if (rc == RD_OK && !*by) {
        json_object_set_new(alert, "acked_by", json_string(ctx->actor));
        json_object_set_new(alert, "acked_at", json_string(rdtime_format(ctx->now, ts)));
        rc = tx_put(ctx->tx, key, json_incref(alert), err);
    }
    if (rc == RD_OK)
        *result = json_incref(alert);
    json_decref(alert);
    return rc;
}

static const cmd_flag alert_list_flags[] = {
    { "state", "firing|resolved|all|pending", CMD_FLAG_VALUE,
      "firing (default), resolved, all (both), or pending (held for less than --for)" },
    { 0 }
};

const cmd_def alert_cmd_table[] = {
    { .words = "alert list", .args = "", .flags = alert_list_flags, .help = "alerts: firing (default), resolved or all",
      .columns = "id,state,severity,rule,node,gpu,value,fired_at,resolved_at,acked_by", .run = alert_list_cmd },
    { .words = "alert ack", .args = "ID", .options = CMD_MUTATES, .help = "acknowledge an alert: acked_by is you",
      .run = alert_ack_cmd, .access = CMD_ACCESS_FLEET },
    { .words = "alert eval", .args = "", .options = CMD_MUTATES,
      .help = "one round of alert evaluation: fire, resolve (rigdeck serve does this)", .run = alert_eval_cmd,
      .access = CMD_ACCESS_STAFF },
    { 0 }
};
