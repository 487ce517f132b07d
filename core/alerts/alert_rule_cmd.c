/* alert_rule_cmd.c - `alert rule add|list|remove`: fleet staff's rules
 * (admins and operators; checked by alert_rule.c), listed for everyone,
 * with a webhook's host only for those who are not staff. */
#include <stdio.h>
#include <string.h>

#include "access.h"
#include "access_view.h"
#include "alerts.h"
#include "doc.h"
#include "fleet.h"
#include "keyspace.h"
#include "names.h"

/* ---- commands ------------------------------------------------------------- */

static rd_code rule_add_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    alert_rule_input in = { cmd_arg(a, 0), cmd_opt(a, "metric"), cmd_opt(a, "above"), cmd_opt(a, "below"),
                            cmd_opt(a, "for"), cmd_opt(a, "node"), cmd_opt(a, "region"), cmd_opt(a, "severity"),
                            cmd_opt(a, "webhook") };
    json_t *rule = NULL, *old = NULL, *region = NULL;
    char key[RD_KEY_MAX];
    rd_code rc = access_view_require_staff(ctx, "alert rule add", err);
    if (rc == RD_OK)
        rc = alert_rule_build(&in, &rule, err);
    if (rc == RD_OK && in.region) {
        rc = fleet_region_get(ctx, in.region, &region, err);
        if (rc == RD_ENOTFOUND)
            rc = rd_fail(err, RD_EINVAL, "--region: region '%s' does not exist", in.region);
    }
    if (rc == RD_OK)
        rc = tx_get(ctx->tx, alert_rule_key(key, in.name), &old, err);
    if (rc == RD_OK && old)
        rc = rd_fail(err, RD_EEXISTS, "alert rule '%s' exists already (remove it first)", in.name);
    if (rc == RD_OK) {
        alert_rule_stamp(rule, ctx->actor, ctx->now);
        *result = json_incref(rule);
        rc = tx_put(ctx->tx, key, rule, err);
        rule = NULL;
    }
    json_decref(rule);
    json_decref(old);
    json_decref(region);
    return rc;
}

/* What a tenant sees of a rule's webhook: its scheme and host, never the
 * user, path or query, where tokens live (https://hooks.example/T0/B1/x
 * shows as https://hooks.example). */
static void rule_hide_webhook(json_t *rule)
{
    const char *url = json_string_value(json_object_get(rule, "webhook"));
    if (!url)
        return;
    const char *sep = strstr(url, "://");
    size_t scheme = sep ? (size_t)(sep + 3 - url) : 0;
    const char *host = url + scheme;
    size_t n = strcspn(host, "/?#");
    for (size_t i = n; i > 0; i--)
        if (host[i - 1] == '@') {   /* user:password@host */
            host += i;
            n -= i;
            break;
        }
    char shown[ALERT_URL_MAX + 1];
    snprintf(shown, sizeof shown, "%.*s%.*s", (int)scheme, url, (int)n, host);
    json_object_set_new(rule, "webhook", json_string(shown));
}

static rd_code rule_list_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    json_t *items = NULL, *rule;
    size_t i;
    (void)a;
    rd_code rc = tx_list(ctx->tx, KEY_ALERT_RULES, &items, err);
    if (rc == RD_OK && !access_actor_is_staff(ctx))
        json_array_foreach(items, i, rule)
            rule_hide_webhook(rule);
    if (rc == RD_OK)
        *result = json_pack("{s:o}", "items", items);
    return rc;
}

static rd_code rule_remove_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *name = cmd_arg(a, 0);
    json_t *old = NULL;
    char key[RD_KEY_MAX];
    rd_code rc = names_check("rule name", name, err);
    if (rc == RD_OK)
        rc = access_view_require_staff(ctx, "alert rule remove", err);
    if (rc == RD_OK)
        rc = tx_get(ctx->tx, alert_rule_key(key, name), &old, err);
    if (rc == RD_OK && !old)
        rc = rd_fail(err, RD_ENOTFOUND, "alert rule '%s' does not exist", name);
    /* Its open alerts resolve at the next `alert eval` (the rule is gone). */
    if (rc == RD_OK)
        rc = tx_delete(ctx->tx, key, err);
    if (rc == RD_OK) {
        json_object_set_new(old, "removed", json_true());
        *result = old;
        old = NULL;
    }
    json_decref(old);
    return rc;
}

static const cmd_flag rule_add_flags[] = {
    { "metric", "M", CMD_FLAG_VALUE | CMD_FLAG_REQUIRED, "a vital stat (metrics.h), node_offline, gpu_unhealthy or node_runtime" },
    { "above", "VALUE", CMD_FLAG_VALUE, "fires while the reading is above VALUE" },
    { "below", "VALUE", CMD_FLAG_VALUE, "fires while the reading is below VALUE" },
    { "for", "D", CMD_FLAG_VALUE, "how long the condition must hold first (default 0: at once)" },
    { "node", "GLOB", CMD_FLAG_VALUE, "only nodes whose name matches GLOB" },
    { "region", "R", CMD_FLAG_VALUE, "only nodes of region R" },
    { "severity", "warning|critical", CMD_FLAG_VALUE, "default warning" },
    { "webhook", "URL", CMD_FLAG_VALUE, "POST each state change as JSON to URL (http:// or https://)" },
    { 0 }
};

const cmd_def alert_rule_cmd_table[] = {
    { .words = "alert rule add", .args = "NAME", .flags = rule_add_flags, .options = CMD_MUTATES,
      .help = "add an alert rule: a metric above or below a value, for a while, on some nodes", .run = rule_add_cmd,
      .access = CMD_ACCESS_STAFF },
    { .words = "alert rule list", .args = "", .help = "the alert rules",
      .columns = "name,metric,op,threshold,for_s,node,region,severity,webhook", .run = rule_list_cmd },
    { .words = "alert rule remove", .args = "NAME", .options = CMD_MUTATES,
      .help = "remove an alert rule (its open alerts resolve)", .run = rule_remove_cmd, .access = CMD_ACCESS_STAFF },
    { 0 }
};
