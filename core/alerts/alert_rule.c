/* alert_rule.c - alert rules as documents: what an operator may write in
 * one (checked here, once, for the commands and the unit tests) and the
 * rules every store has (the pseudo-metrics' default rules, alert_pseudo.h).
 * The commands are alert_rule_cmd.c's.
 *
 * A rule removed by the operator stays removed: the defaults are staged
 * only when a store is created (core/app/account_init.c) or first
 * upgraded (alert_rule_upgrade_defaults), never again.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alert_pseudo.h"
#include "alerts.h"
#include "doc.h"
#include "keyspace.h"
#include "metrics.h"
#include "names.h"
#include "urlcheck.h"

json_t *alert_number(double v)
{
    if (v == floor(v) && fabs(v) < 9007199254740992.0)
        return json_integer((json_int_t)v);
    return json_real(v);
}

int alert_metric_per_gpu(const char *metric)
{
    const alert_pseudo *p = alert_pseudo_find(metric);
    if (p)
        return p->per_gpu;
    const metrics_stat *st = metrics_stat_find(metric);
    return st && st->per_gpu;
}

/* The pseudo-metrics' names as a refusal lists them, the last one after
 * last: "a, b or c" (last " or "), "a, b, c" (last ", "). */
static const char *pseudo_names(char *buf, size_t size, const char *last)
{
    size_t len = 0, n = alert_pseudo_count();
    buf[0] = '\0';
    for (size_t i = 0; i < n && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s", i == 0 ? "" : i + 1 == n ? last : ", ",
                                alert_pseudo_at(i)->name);
    return buf;
}

static rd_code check_metric(const char *metric, rd_err *err)
{
    char names[256];
    if (!metric || !*metric)
        return rd_fail(err, RD_EINVAL, "--metric: required (a vital stat, %s)",
                       pseudo_names(names, sizeof names, " or "));
    if (alert_pseudo_find(metric) || metrics_stat_find(metric))
        return RD_OK;
    char list[512] = "";
    size_t len = 0;
    for (size_t i = 0; i < metrics_stat_count() && len < sizeof list; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s, ", metrics_stat_at(i)->name);
    return rd_fail(err, RD_EINVAL, "--metric: unknown metric '%s' (a vital stat: %sor %s)", metric, list,
                   pseudo_names(names, sizeof names, ", "));
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
    if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0)
        return rd_fail(err, RD_EINVAL, "%s: must start with http:// or https://, got '%s'", field, url);
    if (strlen(url) > ALERT_URL_MAX)
        return rd_fail(err, RD_EINVAL, "%s: at most %d characters", field, ALERT_URL_MAX);
    /* The host as libcurl (which posts to it) reads the URL. */
    urlcheck_parts parts;
    return urlcheck_parse(field, url, &parts, err);
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

const char *alert_rule_key(char buf[RD_KEY_MAX], const char *name)
{
    return tx_key(buf, KEY_ALERT_RULES "%s", name);
}

void alert_rule_stamp(json_t *rule, const char *by, rd_time now)
{
    char ts[RDTIME_BUFLEN];
    json_object_set_new(rule, "created_by", json_string(by));
    json_object_set_new(rule, "created_at", json_string(rdtime_format(now, ts)));
}

int alert_rule_generation(void)
{
    int newest = 0;
    for (size_t i = 0; i < alert_pseudo_count(); i++)
        if (alert_pseudo_at(i)->default_rule.name && alert_pseudo_at(i)->default_generation > newest)
            newest = alert_pseudo_at(i)->default_generation;
    return newest;
}

rd_code alert_rule_stage_defaults(rd_tx *tx, int since, rd_time now, rd_err *err)
{
    rd_code rc = RD_OK;
    for (size_t i = 0; i < alert_pseudo_count() && rc == RD_OK; i++) {
        const alert_pseudo *p = alert_pseudo_at(i);
        char key[RD_KEY_MAX];
        json_t *old = NULL, *rule = NULL;
        if (!p->default_rule.name || p->default_generation <= since)
            continue;
        rc = tx_get(tx, alert_rule_key(key, p->default_rule.name), &old, err);
        if (rc == RD_OK && !old)
            rc = alert_rule_build(&p->default_rule, &rule, err);
        if (rc == RD_OK && rule) {
            alert_rule_stamp(rule, "rigdeck", now);
            rc = tx_put(tx, key, rule, err);
        }
        json_decref(old);
    }
    return rc;
}

/* The generation of default rules a store has had: the mark was `true`
 * before rules had generations (that was generation 1). */
static int store_rule_generation(const json_t *meta)
{
    const json_t *mark = json_object_get(meta, ALERT_RULE_SEEDED_MARK);
    if (json_is_integer(mark))
        return (int)json_integer_value(mark);
    return json_is_true(mark) ? 1 : 0;
}

rd_code alert_rule_upgrade_defaults(rd_tx *tx, rd_time now, rd_err *err)
{
    json_t *meta = NULL;
    rd_code rc = tx_get(tx, KEY_META_STORE, &meta, err);
    if (rc == RD_OK && meta && store_rule_generation(meta) < ALERT_RULE_GENERATION) {
        rc = alert_rule_stage_defaults(tx, store_rule_generation(meta), now, err);
        json_object_set_new(meta, ALERT_RULE_SEEDED_MARK, json_integer(ALERT_RULE_GENERATION));
        if (rc == RD_OK)
            rc = tx_put(tx, KEY_META_STORE, json_incref(meta), err);
    }
    json_decref(meta);
    return rc;
}
