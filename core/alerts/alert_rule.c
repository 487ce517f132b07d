/* alert_rule.c - alert rules: what an operator may write in one (checked
 * here, once, for the command and the unit tests), the two rules every
 * store has, and `alert rule add|list|remove`.
 *
 * A rule removed by the operator stays removed: the defaults are staged
 * only when a store is created or first upgraded (account_init.c), never
 * again.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "account.h"
#include "alerts.h"
#include "doc.h"
#include "fleet.h"
#include "keyspace.h"
#include "metrics.h"
#include "names.h"

json_t *alert_number(double v)
{
    if (v == floor(v) && fabs(v) < 9007199254740992.0)
        return json_integer((json_int_t)v);
    return json_real(v);
}

int alert_metric_per_gpu(const char *metric)
{
    if (strcmp(metric, ALERT_METRIC_GPU_UNHEALTHY) == 0)
        return 1;
    const metrics_stat *st = metrics_stat_find(metric);
    return st && st->per_gpu;
}

static rd_code check_metric(const char *metric, rd_err *err)
{
    if (!metric || !*metric)
        return rd_fail(err, RD_EINVAL, "--metric: required (a vital stat, node_offline or gpu_unhealthy)");
    if (strcmp(metric, ALERT_METRIC_NODE_OFFLINE) == 0 || strcmp(metric, ALERT_METRIC_GPU_UNHEALTHY) == 0)
        return RD_OK;
    if (metrics_stat_find(metric))
        return RD_OK;
    rd_err inner = { 0 };
    metrics_check_stat("--metric", metric, &inner);
    return rd_fail(err, RD_EINVAL, "%s; or node_offline, gpu_unhealthy",
                   inner.msg[0] ? inner.msg : "--metric: not a vital stat");
}

/* A threshold as typed: a finite decimal, nothing after it. */
static rd_code parse_threshold(const char *field, const char *text, double *out, rd_err *err)
{
    char *end = NULL;
    if (!text || !*text || isspace((unsigned char)*text))
        return rd_fail(err, RD_EINVAL, "%s: must be a number, got '%s'", field, text ? text : "");
    double v = strtod(text, &end);
    if (*end || !isfinite(v))
        return rd_fail(err, RD_EINVAL, "%s: must be a finite number, got '%s'", field, text);
    *out = v;
    return RD_OK;
}

/* Node name globs: the name characters plus * ? [ ] ! */
static rd_code check_glob(const char *glob, rd_err *err)
{
    size_t n = strlen(glob);
    if (n == 0 || n > NAMES_MAX)
        return rd_fail(err, RD_EINVAL, "--node: a node name or glob of 1 to %d characters, got '%s'", NAMES_MAX, glob);
    for (const char *p = glob; *p; p++)
        if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) && !strchr("-_.*?[]!", *p))
            return rd_fail(err, RD_EINVAL, "--node: '%c' is not allowed in a node glob (a-z 0-9 - _ . * ? [ ] !)", *p);
    return RD_OK;
}

rd_code alert_rule_check_url(const char *field, const char *url, rd_err *err)
{
    size_t skip = strncmp(url, "http://", 7) == 0 ? 7 : strncmp(url, "https://", 8) == 0 ? 8 : 0;
    if (!skip)
        return rd_fail(err, RD_EINVAL, "%s: must start with http:// or https://, got '%s'", field, url);
    if (strlen(url) > ALERT_URL_MAX)
        return rd_fail(err, RD_EINVAL, "%s: at most %d characters", field, ALERT_URL_MAX);
    if (!url[skip] || url[skip] == '/' || url[skip] == ':')
        return rd_fail(err, RD_EINVAL, "%s: names no host: '%s'", field, url);
    for (const char *p = url; *p; p++)
        if ((unsigned char)*p <= ' ' || *p == 0x7f)
            return rd_fail(err, RD_EINVAL, "%s: spaces and control characters are not allowed in a URL", field);
    return RD_OK;
}

/* "0" is allowed (the default: fire at once); otherwise a duration, in
 * whole seconds (the business clock's unit), rounded up. */
static rd_code parse_for(const char *text, int64_t *for_s, rd_err *err)
{
    if (strcmp(text, "0") == 0 || strcmp(text, "0s") == 0) {
        *for_s = 0;
        return RD_OK;
    }
    int64_t ms = 0;
    rd_code rc = rdtime_parse_duration_ms("--for", text, &ms, err);
    if (rc == RD_OK && ms > 90LL * 86400 * 1000)
        rc = rd_fail(err, RD_EINVAL, "--for: at most 90d, got '%s'", text);
    if (rc == RD_OK)
        *for_s = (ms + 999) / 1000;
    return rc;
}

rd_code alert_rule_build(const alert_rule_input *in, json_t **rule, rd_err *err)
{
    double threshold = 0;
    int64_t for_s = 0;
    const char *severity = in->severity ? in->severity : "warning";
    rd_code rc = names_check("rule name", in->name, err);
    if (rc == RD_OK)
        rc = check_metric(in->metric, err);
    if (rc == RD_OK && !!in->above == !!in->below)
        rc = rd_fail(err, RD_EINVAL, "--above/--below: give exactly one of them");
    if (rc == RD_OK)
        rc = parse_threshold(in->above ? "--above" : "--below", in->above ? in->above : in->below, &threshold, err);
    if (rc == RD_OK && in->for_d)
        rc = parse_for(in->for_d, &for_s, err);
    if (rc == RD_OK && in->node && in->region)
        rc = rd_fail(err, RD_EINVAL, "--node/--region: give at most one of them");
    if (rc == RD_OK && in->node)
        rc = check_glob(in->node, err);
    if (rc == RD_OK && in->region)
        rc = names_check("--region", in->region, err);
    if (rc == RD_OK && strcmp(severity, "warning") != 0 && strcmp(severity, "critical") != 0)
        rc = rd_fail(err, RD_EINVAL, "--severity: must be warning or critical, got '%s'", severity);
    if (rc == RD_OK && in->webhook)
        rc = alert_rule_check_url("--webhook", in->webhook, err);
    if (rc != RD_OK)
        return rc;
    *rule = json_pack("{s:s, s:s, s:s, s:o, s:I, s:s?, s:s?, s:s, s:s?}", "name", in->name, "metric", in->metric, "op",
                      in->above ? "above" : "below", "threshold", alert_number(threshold), "for_s", (json_int_t)for_s, "node",
                      in->node, "region", in->region, "severity", severity, "webhook", in->webhook);
    if (!*rule)
        return rd_fail(err, RD_ENOMEM, "out of memory");
    /* s? leaves the key out for NULL: a rule always has these fields */
    const char *opt[] = { "node", "region", "webhook" };
    for (size_t i = 0; i < 3; i++)
        if (!json_object_get(*rule, opt[i]))
            json_object_set_new(*rule, opt[i], json_null());
    return RD_OK;
}

static const char *rule_key(char buf[RD_KEY_MAX], const char *name)
{
    return tx_key(buf, KEY_ALERT_RULES "%s", name);
}

static void rule_stamp(json_t *rule, const char *by, rd_time now)
{
    char ts[RDTIME_BUFLEN];
    json_object_set_new(rule, "created_by", json_string(by));
    json_object_set_new(rule, "created_at", json_string(rdtime_format(now, ts)));
}

rd_code alert_rule_stage_defaults(rd_tx *tx, rd_time now, rd_err *err)
{
    static const alert_rule_input defaults[] = {
        { .name = "node-offline", .metric = ALERT_METRIC_NODE_OFFLINE, .above = "0", .severity = "critical" },
        { .name = "gpu-unhealthy", .metric = ALERT_METRIC_GPU_UNHEALTHY, .above = "0", .severity = "warning" },
    };
    rd_code rc = RD_OK;
    for (size_t i = 0; i < sizeof defaults / sizeof defaults[0] && rc == RD_OK; i++) {
        char key[RD_KEY_MAX];
        json_t *old = NULL, *rule = NULL;
        rc = tx_get(tx, rule_key(key, defaults[i].name), &old, err);
        if (rc == RD_OK && !old)
            rc = alert_rule_build(&defaults[i], &rule, err);
        if (rc == RD_OK && rule) {
            rule_stamp(rule, "rigdeck", now);
            rc = tx_put(tx, key, rule, err);
        }
        json_decref(old);
    }
    return rc;
}

/* ---- commands ------------------------------------------------------------- */

static rd_code rule_add_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    alert_rule_input in = { cmd_arg(a, 0), cmd_opt(a, "metric"), cmd_opt(a, "above"), cmd_opt(a, "below"),
                            cmd_opt(a, "for"), cmd_opt(a, "node"), cmd_opt(a, "region"), cmd_opt(a, "severity"),
                            cmd_opt(a, "webhook") };
    json_t *rule = NULL, *old = NULL, *region = NULL;
    char key[RD_KEY_MAX];
    rd_code rc = account_require_admin(ctx, "alert rule add", err);
    if (rc == RD_OK)
        rc = alert_rule_build(&in, &rule, err);
    if (rc == RD_OK && in.region) {
        rc = fleet_region_get(ctx, in.region, &region, err);
        if (rc == RD_ENOTFOUND)
            rc = rd_fail(err, RD_EINVAL, "--region: region '%s' does not exist", in.region);
    }
    if (rc == RD_OK)
        rc = tx_get(ctx->tx, rule_key(key, in.name), &old, err);
    if (rc == RD_OK && old)
        rc = rd_fail(err, RD_EEXISTS, "alert rule '%s' exists already (remove it first)", in.name);
    if (rc == RD_OK) {
        rule_stamp(rule, ctx->actor, ctx->now);
        *result = json_incref(rule);
        rc = tx_put(ctx->tx, key, rule, err);
        rule = NULL;
    }
    json_decref(rule);
    json_decref(old);
    json_decref(region);
    return rc;
}

static rd_code rule_list_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    json_t *items = NULL;
    (void)a;
    rd_code rc = tx_list(ctx->tx, KEY_ALERT_RULES, &items, err);
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
        rc = account_require_admin(ctx, "alert rule remove", err);
    if (rc == RD_OK)
        rc = tx_get(ctx->tx, rule_key(key, name), &old, err);
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
    { "metric", "M", CMD_FLAG_VALUE | CMD_FLAG_REQUIRED, "a vital stat (metrics.h), node_offline or gpu_unhealthy" },
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
    { "alert rule add", "NAME", rule_add_flags, CMD_MUTATES,
      "add an alert rule: a metric above or below a value, for a while, on some nodes", NULL, rule_add_cmd },
    { "alert rule list", "", NULL, 0, "the alert rules",
      "name,metric,op,threshold,for_s,node,region,severity,webhook", rule_list_cmd },
    { "alert rule remove", "NAME", NULL, CMD_MUTATES, "remove an alert rule (its open alerts resolve)", NULL,
      rule_remove_cmd },
    { 0 }
};
