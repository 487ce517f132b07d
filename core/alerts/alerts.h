/* alerts.h - alert rules and the alerts they raise (spec/operations.md,
 * "Metrics, alerts, reports"; alert_rule.c, alert_rule_cmd.c, alert_eval.c,
 * alert_cmd.c; deliveries: webhook.h).
 *
 * Documents:
 *
 *   KEY_ALERT_RULES <name>        a rule: {"name", "metric", "op":
 *                                 "above"|"below", "threshold", "for_s",
 *                                 "node" (glob) | null, "region" | null,
 *                                 "severity", "webhook" | null, ...}
 *   KEY_ALERTS "open/" <id>       a condition that holds now: state
 *                                 "pending" (held for less than the rule's
 *                                 --for) or "firing"
 *   KEY_ALERTS "log/" <T>/<id>    a resolved alert, T its resolved_at
 *                                 (compact, so keys sort oldest first)
 *
 * The set of open records is small (one per condition that holds), so the
 * controller's round reads it whole; history is read only by `alert list`
 * and trimmed when an alert resolves.
 */
#ifndef RD_ALERTS_H
#define RD_ALERTS_H

#include <jansson.h>
#include <stdint.h>

#include "cmd.h"
#include "err.h"
#include "metrics.h"
#include "rdtime.h"
#include "tx.h"

#define ALERTS_OPEN_PREFIX "open/"
#define ALERTS_LOG_PREFIX "log/"

enum {
    ALERT_STALE_S = METRICS_STALE_S,   /* a reading older than this is no data */
    ALERT_KEEP_DAYS = 30,         /* resolved alerts are kept this long */
    ALERT_KEEP_MAX = 2000,        /* and at most this many */
    ALERT_URL_MAX = 1024
};

/* Beside the vital stats of metrics.h a rule may name a pseudo-metric,
 * read from the node document (node_offline, gpu_unhealthy, node_runtime):
 * each is a record of its own, registered in alert_pseudo.c
 * (alert_pseudo.h). */

/* ---- rules (alert_rule.c) ------------------------------------------------- */

/* What an operator typed for `alert rule add`; NULL for a flag not given. */
typedef struct {
    const char *name, *metric, *above, *below, *for_d, *node, *region, *severity, *webhook;
} alert_rule_input;

/* Checks every field of in and builds the rule document (without the
 * region's existence, which needs the store): RD_EINVAL naming the field and
 * the rule.  *rule is a new object. */
rd_code alert_rule_build(const alert_rule_input *in, json_t **rule, rd_err *err);

/* RD_OK when url is an http:// or https:// URL with a host. */
rd_code alert_rule_check_url(const char *field, const char *url, rd_err *err);

/* A reading as JSON: an integer when it is whole (85, not 85.0). */
json_t *alert_number(double v);

/* 1 when metric is a per-GPU one (gpu_unhealthy, gpu_* stats). */
int alert_metric_per_gpu(const char *metric);

/* The key of rule name's document. */
const char *alert_rule_key(char buf[RD_KEY_MAX], const char *name);

/* Records who made a rule and when. */
void alert_rule_stamp(json_t *rule, const char *by, rd_time now);

/* The default rules come in generations, each pseudo-metric's rule born in
 * one (its record's default_generation): 1 node-offline and gpu-unhealthy,
 * 2 node-runtime.  A store records the generation it has had, so an upgrade
 * adds only the rules born after it (a rule the operator removed stays
 * removed).  The newest generation among the registered pseudo-metrics. */
int alert_rule_generation(void);
#define ALERT_RULE_GENERATION (alert_rule_generation())

/* Stages the default rules of generations after `since` (0: all of them),
 * skipping any name that exists. */
rd_code alert_rule_stage_defaults(rd_tx *tx, int since, rd_time now, rd_err *err);

/* The meta document's field saying which generation of default alert rules
 * the store has had (ALERT_RULE_GENERATION; `true` in stores from before
 * generations, meaning 1), so a rule the operator removed is never added
 * again and a rule born later still reaches an older store.  A new store
 * gets it with its first contents (core/app/account_init.c). */
#define ALERT_RULE_SEEDED_MARK "alert_rules_seeded"

/* A store made before alerts existed, or before a newer generation of
 * default rules, gets the rules it lacks, once: stages them and the mark in
 * tx when the meta document's mark is older than ALERT_RULE_GENERATION
 * (alert eval calls this; opening a store never writes to an old one). */
rd_code alert_rule_upgrade_defaults(rd_tx *tx, rd_time now, rd_err *err);

/* ---- the state machine (alert_eval.c) ------------------------------------ */

typedef enum { ALERT_PHASE_NONE, ALERT_PHASE_PENDING, ALERT_PHASE_FIRING } alert_phase;

typedef enum {
    ALERT_MOVE_STAY,          /* nothing to write */
    ALERT_MOVE_PEND,          /* the condition started holding: a pending record */
    ALERT_MOVE_FIRE,          /* it has held for --for: firing */
    ALERT_MOVE_DROP,          /* it stopped before --for: forget the pending record */
    ALERT_MOVE_RESOLVE        /* a firing alert's condition stopped holding */
} alert_move;

/* 1 when a reading breaks the rule: strictly above (op_above) or below
 * threshold.  No reading (has_value 0) never holds. */
int alert_condition_holds(int op_above, double threshold, int has_value, double value);

/* What to do with one (rule, node, GPU) now: phase is its open record's
 * (since: when the condition started holding), holds the condition now,
 * for_s the rule's --for.  A condition that holds with for_s 0 fires at
 * once, without a pending record. */
alert_move alert_step(alert_phase phase, int holds, rd_time since, int64_t for_s, rd_time now);

/* The webhook's JSON for one state change:
 * {"rule","state","node","gpu","value","at","severity"}; a new object, or NULL
 * when memory ran out (webhook_post ignores NULL). */
json_t *alert_change_payload(const json_t *change);

/* ---- commands (alert_cmd.c, alert_eval.c) ---------------------------------- */

rd_code alert_eval_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err);

#endif
