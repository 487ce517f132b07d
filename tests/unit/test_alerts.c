/* Unit tests of alerts: rule validation (alert_rule_build), the condition
 * and the --for state machine (alert_step), the webhook payload, the
 * webhook backoff schedule and bounded queue (webhook.c), and the default
 * rules of a new and of an older store (account_init.c) on a real SQLite
 * store, and the pseudo-metrics' registry (alert_pseudo.c) and readings. */
#include "testutil.h"

#include <math.h>

#include "account_init.h"
#include "alert_pseudo.h"
#include "alerts.h"
#include "cmd.h"
#include "keyspace.h"
#include "webhook.h"

static char dir[256];

/* ---- rules ------------------------------------------------------------------ */

static rd_code build(alert_rule_input in, json_t **rule, rd_err *err)
{
    *rule = NULL;
    return alert_rule_build(&in, rule, err);
}

static void test_rule_build_ok(void **state)
{
    (void)state;
    json_t *r = NULL;
    rd_err err = { 0 };
    assert_int_equal(build((alert_rule_input){ .name = "hot", .metric = "gpu_temp_c", .above = "85", .for_d = "2m",
                                               .node = "gpu-*", .webhook = "https://h.example/x" },
                           &r, &err),
                     RD_OK);
    assert_string_equal(json_string_value(json_object_get(r, "op")), "above");
    assert_true(json_is_integer(json_object_get(r, "threshold")));   /* 85, not 85.0 */
    assert_int_equal(json_integer_value(json_object_get(r, "threshold")), 85);
    assert_int_equal(json_integer_value(json_object_get(r, "for_s")), 120);
    assert_string_equal(json_string_value(json_object_get(r, "severity")), "warning");
    assert_true(json_is_null(json_object_get(r, "region")));
    assert_string_equal(json_string_value(json_object_get(r, "node")), "gpu-*");
    json_decref(r);

    assert_int_equal(build((alert_rule_input){ .name = "idle", .metric = "cpu_util", .below = "2.5", .for_d = "500ms",
                                               .region = "lab", .severity = "critical" },
                           &r, &err),
                     RD_OK);
    assert_true(json_real_value(json_object_get(r, "threshold")) == 2.5);
    assert_int_equal(json_integer_value(json_object_get(r, "for_s")), 1);   /* rounded up to whole seconds */
    assert_true(json_is_null(json_object_get(r, "webhook")));
    assert_true(json_is_null(json_object_get(r, "node")));
    json_decref(r);

    assert_int_equal(build((alert_rule_input){ .name = "off", .metric = "node_offline", .above = "0", .for_d = "0" },
                           &r, &err),
                     RD_OK);
    assert_int_equal(json_integer_value(json_object_get(r, "for_s")), 0);
    json_decref(r);
    assert_int_equal(build((alert_rule_input){ .name = "g", .metric = "gpu_unhealthy", .above = "-1e3" }, &r, &err),
                     RD_OK);
    json_decref(r);
}

static void refused(alert_rule_input in, const char *field)
{
    json_t *r = NULL;
    rd_err err = { 0 };
    assert_int_equal(alert_rule_build(&in, &r, &err), RD_EINVAL);
    assert_null(r);
    if (!strstr(err.msg, field))
        fail_msg("message '%s' does not name %s", err.msg, field);
}

static void test_rule_build_refusals(void **state)
{
    (void)state;
    refused((alert_rule_input){ .name = "Bad", .metric = "cpu_util", .above = "1" }, "rule name");
    refused((alert_rule_input){ .name = "r", .metric = "gpu_temp", .above = "1" }, "--metric");
    refused((alert_rule_input){ .name = "r", .metric = "", .above = "1" }, "--metric");
    refused((alert_rule_input){ .name = "r", .metric = "cpu_util" }, "--above/--below");
    refused((alert_rule_input){ .name = "r", .metric = "cpu_util", .above = "1", .below = "2" }, "--above/--below");
    refused((alert_rule_input){ .name = "r", .metric = "cpu_util", .above = "1x" }, "--above");
    refused((alert_rule_input){ .name = "r", .metric = "cpu_util", .above = " 1" }, "--above");
    refused((alert_rule_input){ .name = "r", .metric = "cpu_util", .below = "nan" }, "--below");
    refused((alert_rule_input){ .name = "r", .metric = "cpu_util", .below = "inf" }, "--below");
    refused((alert_rule_input){ .name = "r", .metric = "cpu_util", .above = "1", .for_d = "-1s" }, "--for");
    refused((alert_rule_input){ .name = "r", .metric = "cpu_util", .above = "1", .for_d = "100d" }, "--for");
    refused((alert_rule_input){ .name = "r", .metric = "cpu_util", .above = "1", .node = "a", .region = "b" },
            "--node/--region");
    refused((alert_rule_input){ .name = "r", .metric = "cpu_util", .above = "1", .node = "A*" }, "--node");
    refused((alert_rule_input){ .name = "r", .metric = "cpu_util", .above = "1", .node = "" }, "--node");
    refused((alert_rule_input){ .name = "r", .metric = "cpu_util", .above = "1", .region = "Lab" }, "--region");
    refused((alert_rule_input){ .name = "r", .metric = "cpu_util", .above = "1", .severity = "info" }, "--severity");
    refused((alert_rule_input){ .name = "r", .metric = "cpu_util", .above = "1", .webhook = "ftp://x" }, "--webhook");
}

static void test_check_url(void **state)
{
    (void)state;
    rd_err err = { 0 };
    assert_int_equal(alert_rule_check_url("u", "http://127.0.0.1:8080/hook", &err), RD_OK);
    assert_int_equal(alert_rule_check_url("u", "https://hooks.example", &err), RD_OK);
    assert_int_equal(alert_rule_check_url("u", "HTTP://x", &err), RD_EINVAL);
    assert_int_equal(alert_rule_check_url("u", "http://", &err), RD_EINVAL);
    assert_int_equal(alert_rule_check_url("u", "http:///path", &err), RD_EINVAL);
    assert_int_equal(alert_rule_check_url("u", "http://a b/", &err), RD_EINVAL);
    assert_int_equal(alert_rule_check_url("u", "http://a\n/", &err), RD_EINVAL);
    /* the host as libcurl reads it: "@" alone, a port alone, no host */
    assert_int_equal(alert_rule_check_url("u", "http://@/x", &err), RD_EINVAL);
    assert_string_equal(err.msg, "u: names no host: 'http://@/x'");
    assert_int_equal(alert_rule_check_url("u", "http://:8080/x", &err), RD_EINVAL);
    assert_int_equal(alert_rule_check_url("u", "https://x:99999/", &err), RD_EINVAL);
    assert_int_equal(alert_rule_check_url("u", "https://user:pw@hooks.example/x", &err), RD_OK);
    char big[ALERT_URL_MAX + 16];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    memcpy(big, "http://", 7);
    assert_int_equal(alert_rule_check_url("u", big, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "at most"));
}

static void test_metric_per_gpu(void **state)
{
    (void)state;
    assert_true(alert_metric_per_gpu("gpu_unhealthy"));
    assert_true(alert_metric_per_gpu("gpu_temp_c"));
    assert_false(alert_metric_per_gpu("node_offline"));
    assert_false(alert_metric_per_gpu("cpu_util"));
}

/* ---- pseudo-metrics (alert_pseudo.c) ------------------------------------------ */

/* What every reader of the registry makes of it: --metric accepts each
 * and names them in its refusals and its help, each default rule builds,
 * and the generations are the stores' (1, 2). */
static void test_pseudo_registry(void **state)
{
    (void)state;
    static const char *const names[] = { "node_offline", "gpu_unhealthy", "node_runtime" };
    assert_int_equal(alert_pseudo_count(), 3);
    for (size_t i = 0; i < 3; i++) {
        assert_string_equal(alert_pseudo_at(i)->name, names[i]);
        assert_ptr_equal(alert_pseudo_find(names[i]), alert_pseudo_at(i));
    }
    assert_null(alert_pseudo_find("cpu_util"));
    assert_null(alert_pseudo_find(NULL));
    assert_null(alert_pseudo_at(3));
    assert_int_equal(ALERT_RULE_GENERATION, 2);

    const cmd_flag *metric = cmd_find("alert rule add")->flags;
    assert_string_equal(metric->name, "metric");
    for (size_t i = 0; i < alert_pseudo_count(); i++) {
        const alert_pseudo *p = alert_pseudo_at(i);
        json_t *rule = NULL;
        rd_err err;
        /* --metric takes it */
        assert_int_equal(build((alert_rule_input){ .name = "r", .metric = p->name, .above = "0" }, &rule, &err), RD_OK);
        json_decref(rule);
        assert_int_equal(alert_metric_per_gpu(p->name), p->per_gpu);
        assert_null(metrics_stat_find(p->name));   /* never a vital stat's name too */
        /* help names it */
        if (!strstr(metric->help, p->name))
            fail_msg("alert rule add --metric's help does not name %s", p->name);
        /* its default rule builds, on itself */
        if (p->default_rule.name) {
            assert_int_equal(alert_rule_build(&p->default_rule, &rule, &err), RD_OK);
            assert_string_equal(json_string_value(json_object_get(rule, "metric")), p->name);
            assert_in_range(p->default_generation, 1, ALERT_RULE_GENERATION);
            json_decref(rule);
        }
    }
    json_t *rule = NULL;
    rd_err err;
    assert_int_equal(build((alert_rule_input){ .name = "r", .above = "1" }, &rule, &err), RD_EINVAL);
    assert_string_equal(err.msg, "--metric: required (a vital stat, node_offline, gpu_unhealthy or node_runtime)");
    assert_int_equal(build((alert_rule_input){ .name = "r", .metric = "gpu_temp", .above = "1" }, &rule, &err),
                     RD_EINVAL);
    assert_non_null(strstr(err.msg, "--metric: unknown metric 'gpu_temp' (a vital stat: cpu_util, "));
    assert_non_null(strstr(err.msg, ", gpu_ecc_errors, or node_offline, gpu_unhealthy, node_runtime)"));
}

typedef struct {
    int gpus[8];
    double values[8];
    size_t n;
} readings;

static rd_code take_reading(void *data, int gpu, double value, rd_err *err)
{
    (void)err;
    readings *r = data;
    assert_true(r->n < 8);
    r->gpus[r->n] = gpu;
    r->values[r->n++] = value;
    return RD_OK;
}

static readings read_pseudo(const char *metric, const char *node_json)
{
    readings r = { .n = 0 };
    rd_err err;
    json_t *node = json_loads(node_json, 0, NULL);
    assert_non_null(node);
    assert_int_equal(alert_pseudo_find(metric)->read(node, take_reading, &r, &err), RD_OK);
    json_decref(node);
    return r;
}

static void test_pseudo_readings(void **state)
{
    (void)state;
    readings r = read_pseudo("node_offline", "{\"state\": \"offline\"}");
    assert_int_equal(r.n, 1);
    assert_int_equal(r.gpus[0], -1);
    assert_true(r.values[0] == 1);
    r = read_pseudo("node_offline", "{\"state\": \"online\"}");
    assert_true(r.n == 1 && r.values[0] == 0);
    /* every GPU the node has, and one the health list names beyond them */
    r = read_pseudo("gpu_unhealthy", "{\"gpu_type\": \"h100\", \"gpu_count\": 2, \"gpu_health\": "
                                     "[{\"index\": 1, \"state\": \"healthy\"}, {\"index\": 3, \"state\": \"xid\"}]}");
    assert_int_equal(r.n, 4);
    for (int k = 0; k < 4; k++) {
        assert_int_equal(r.gpus[k], k);
        assert_true(r.values[k] == (k == 3));
    }
    r = read_pseudo("gpu_unhealthy", "{\"gpu_type\": \"cpu\", \"gpu_count\": 4}");
    assert_int_equal(r.n, 0);
    r = read_pseudo("node_runtime", "{\"state\": \"draining\", \"maintenance_reason\": \"runtime\"}");
    assert_true(r.n == 1 && r.gpus[0] == -1 && r.values[0] == 1);
    r = read_pseudo("node_runtime", "{\"state\": \"maintenance\", \"maintenance_reason\": \"operator\"}");
    assert_true(r.n == 1 && r.values[0] == 0);
    r = read_pseudo("node_runtime", "{\"state\": \"online\", \"maintenance_reason\": \"runtime\"}");
    assert_true(r.n == 1 && r.values[0] == 0);
}

/* ---- the state machine ------------------------------------------------------ */

static void test_condition(void **state)
{
    (void)state;
    assert_true(alert_condition_holds(1, 0, 1, 1));
    assert_false(alert_condition_holds(1, 0, 1, 0));       /* strictly above */
    assert_true(alert_condition_holds(0, 5, 1, 4.99));
    assert_false(alert_condition_holds(0, 5, 1, 5));       /* strictly below */
    assert_false(alert_condition_holds(1, 0, 0, 100));     /* no data never holds */
    assert_false(alert_condition_holds(0, 100, 0, 0));
    assert_false(alert_condition_holds(1, 0, 1, NAN));
}

static void test_step(void **state)
{
    (void)state;
    const rd_time t0 = 1000;
    /* nothing open */
    assert_int_equal(alert_step(ALERT_PHASE_NONE, 0, 0, 0, t0), ALERT_MOVE_STAY);
    assert_int_equal(alert_step(ALERT_PHASE_NONE, 1, 0, 0, t0), ALERT_MOVE_FIRE);   /* --for 0: at once */
    assert_int_equal(alert_step(ALERT_PHASE_NONE, 1, 0, 60, t0), ALERT_MOVE_PEND);
    assert_int_equal(alert_step(ALERT_PHASE_NONE, 0, 0, 60, t0), ALERT_MOVE_STAY);
    /* pending since t0 with --for 60 */
    assert_int_equal(alert_step(ALERT_PHASE_PENDING, 1, t0, 60, t0 + 59), ALERT_MOVE_STAY);
    assert_int_equal(alert_step(ALERT_PHASE_PENDING, 1, t0, 60, t0 + 60), ALERT_MOVE_FIRE);
    assert_int_equal(alert_step(ALERT_PHASE_PENDING, 1, t0, 60, t0 + 3600), ALERT_MOVE_FIRE);
    assert_int_equal(alert_step(ALERT_PHASE_PENDING, 0, t0, 60, t0 + 59), ALERT_MOVE_DROP);
    assert_int_equal(alert_step(ALERT_PHASE_PENDING, 0, t0, 60, t0 + 61), ALERT_MOVE_DROP);
    /* firing */
    assert_int_equal(alert_step(ALERT_PHASE_FIRING, 1, t0, 60, t0 + 600), ALERT_MOVE_STAY);
    assert_int_equal(alert_step(ALERT_PHASE_FIRING, 0, t0, 60, t0 + 600), ALERT_MOVE_RESOLVE);
    assert_int_equal(alert_step(ALERT_PHASE_FIRING, 0, t0, 0, t0), ALERT_MOVE_RESOLVE);
}

static void test_payload(void **state)
{
    (void)state;
    json_t *change = json_pack("{s:s, s:s, s:s, s:s, s:i, s:f, s:s, s:s, s:s}", "id", "alert-1", "rule", "hot", "state",
                               "firing", "node", "n1", "gpu", 2, "value", 91.5, "at", "2026-11-01T00:00:00Z",
                               "severity", "critical", "webhook", "http://x/");
    json_t *p = alert_change_payload(change);
    assert_int_equal(json_object_size(p), 7);
    assert_null(json_object_get(p, "id"));
    assert_null(json_object_get(p, "webhook"));
    assert_int_equal(json_integer_value(json_object_get(p, "gpu")), 2);
    assert_true(json_real_value(json_object_get(p, "value")) == 91.5);
    json_decref(p);
    json_object_del(change, "gpu");   /* a node alert: gpu null, still present */
    p = alert_change_payload(change);
    assert_int_equal(json_object_size(p), 7);
    assert_true(json_is_null(json_object_get(p, "gpu")));
    json_decref(p);
    json_decref(change);
}

/* ---- webhooks --------------------------------------------------------------- */

static void test_backoff(void **state)
{
    (void)state;
    assert_int_equal(webhook_backoff_ms(1, 1000), 0);
    assert_int_equal(webhook_backoff_ms(2, 1000), 1000);
    assert_int_equal(webhook_backoff_ms(3, 1000), 2000);
    assert_int_equal(webhook_backoff_ms(4, 1000), 4000);
    assert_int_equal(webhook_backoff_ms(5, 1000), 8000);
    assert_int_equal(webhook_backoff_ms(12, 1000), 60000);   /* capped */
    assert_int_equal(webhook_backoff_ms(40, 1000), 60000);
    assert_int_equal(webhook_backoff_ms(3, 10), 20);
}

typedef struct {
    char lines[16][1300];
    int n;
} log_capture;

static void capture(void *data, const char *line)
{
    log_capture *c = data;
    if (c->n < 16)
        snprintf(c->lines[c->n++], sizeof c->lines[0], "%s", line);
}

static rd_time zero_clock(void)
{
    return 0;
}

static int logged(const log_capture *c, const char *needle)
{
    for (int i = 0; i < c->n; i++)
        if (strstr(c->lines[i], needle))
            return 1;
    return 0;
}

static void test_queue_drops_oldest(void **state)
{
    (void)state;
    log_capture cap = { 0 };
    dlog_sink log = { "test", 0, capture, &cap, zero_clock };
    webhook_opts o = { .capacity = 2 };
    webhook_queue *q = webhook_new(&o, &log);
    json_t *a = json_pack("{s:i}", "n", 1), *b = json_pack("{s:i}", "n", 2), *c = json_pack("{s:i}", "n", 3);
    webhook_post(q, "http://a/", a);
    webhook_post(q, "http://b/", b);
    assert_int_equal(webhook_pending(q), 2);
    assert_int_equal(cap.n, 0);
    webhook_post(q, "http://c/", c);
    assert_int_equal(webhook_pending(q), 2);
    assert_string_equal(webhook_pending_url(q, 0), "http://b/");
    assert_string_equal(webhook_pending_url(q, 1), "http://c/");
    assert_string_equal(webhook_pending_body(q, 1), "{\"n\":3}");
    assert_null(webhook_pending_url(q, 2));
    assert_true(logged(&cap, "dropped the oldest change for http://a/"));
    webhook_stop(q);   /* never started: drops the rest, says so */
    assert_true(logged(&cap, "dropped 2 undelivered"));
    json_decref(a);
    json_decref(b);
    json_decref(c);
}

static void test_delivery_gives_up(void **state)
{
    (void)state;
    log_capture cap = { 0 };
    dlog_sink log = { "test", 0, capture, &cap, zero_clock };
    webhook_opts o = { .attempts = 3, .first_retry_ms = 10, .timeout_ms = 2000 };
    webhook_queue *q = webhook_new(&o, &log);
    rd_err err = { 0 };
    assert_int_equal(webhook_start(q, &err), RD_OK);
    json_t *p = json_pack("{s:s}", "state", "firing");
    webhook_post(q, "http://127.0.0.1:1/hook", p);   /* nothing listens on port 1 */
    assert_true(webhook_drain(q, 30000));
    webhook_stop(q);
    assert_true(logged(&cap, "try 1 of 3 to http://127.0.0.1:1/hook failed"));
    assert_true(logged(&cap, "next in 10 ms"));
    assert_true(logged(&cap, "try 2 of 3"));
    assert_true(logged(&cap, "next in 20 ms"));
    assert_true(logged(&cap, "gave up on http://127.0.0.1:1/hook after 3 tries"));
    assert_false(logged(&cap, "delivered"));
    json_decref(p);
}

/* ---- default rules ---------------------------------------------------------- */

static store_t *open_store(const char *name)
{
    char url[512];
    store_t *st = NULL;
    rd_err err;
    snprintf(url, sizeof url, "sqlite:%s/%s.db", dir, name);
    assert_int_equal(store_open(url, NULL, &st, &err), RD_OK);
    return st;
}

static size_t rule_count(store_t *st)
{
    rd_tx *tx = tx_new(st);
    json_t *items = NULL;
    rd_err err;
    assert_int_equal(tx_list(tx, KEY_ALERT_RULES, &items, &err), RD_OK);
    size_t n = json_array_size(items);
    json_decref(items);
    tx_free(tx);
    return n;
}

static void test_new_store_rules(void **state)
{
    (void)state;
    store_t *st = open_store("new");
    rd_err err;
    assert_int_equal(account_init_store(st, 1793491200, &err), RD_OK);
    assert_int_equal(rule_count(st), 3);   /* node-offline, gpu-unhealthy, node-runtime */
    rd_tx *tx = tx_new(st);
    json_t *rule = NULL;
    assert_int_equal(tx_get(tx, KEY_ALERT_RULES "node-offline", &rule, &err), RD_OK);
    assert_string_equal(json_string_value(json_object_get(rule, "severity")), "critical");
    json_decref(rule);
    /* a new store is marked: the upgrade stages nothing */
    assert_int_equal(alert_rule_upgrade_defaults(tx, 1793491200, &err), RD_OK);
    assert_int_equal(tx_write_count(tx), 0);
    tx_free(tx);
    store_close(st);
}

static void test_older_store_upgrade(void **state)
{
    (void)state;
    store_t *st = open_store("old");
    rd_err err;
    const char *meta = "{\"name\":\"rigdeck\",\"schema\":1,\"created_at\":\"2026-01-01T00:00:00Z\"}";
    assert_int_equal(store_put(st, KEY_META_STORE, meta, strlen(meta), 0, &err), RD_OK);
    assert_int_equal(account_init_store(st, 1793491200, &err), RD_OK);   /* opening writes nothing */
    assert_int_equal(rule_count(st), 0);
    rd_tx *tx = tx_new(st);
    assert_int_equal(alert_rule_upgrade_defaults(tx, 1793491200, &err), RD_OK);
    assert_int_equal(tx_write_count(tx), 4);   /* three rules and the mark */
    assert_int_equal(tx_commit(tx, NULL, &err), RD_OK);
    tx_reset(tx);
    assert_int_equal(rule_count(st), 3);
    /* the operator removes one: it stays removed */
    assert_int_equal(store_delete(st, KEY_ALERT_RULES "gpu-unhealthy", &err), RD_OK);
    assert_int_equal(alert_rule_upgrade_defaults(tx, 1793491200, &err), RD_OK);
    assert_int_equal(tx_write_count(tx), 0);
    tx_free(tx);
    assert_int_equal(rule_count(st), 2);
    store_close(st);
}

/* A store marked before rules had generations (`true`: node-offline and
 * gpu-unhealthy) gets node-runtime, and only it, once. */
static void test_generation_one_store_upgrade(void **state)
{
    (void)state;
    store_t *st = open_store("gen1");
    rd_err err;
    const char *meta = "{\"name\":\"rigdeck\",\"schema\":1,\"created_at\":\"2026-01-01T00:00:00Z\","
                       "\"alert_rules_seeded\":true}";
    assert_int_equal(store_put(st, KEY_META_STORE, meta, strlen(meta), 0, &err), RD_OK);
    assert_int_equal(account_init_store(st, 1793491200, &err), RD_OK);
    rd_tx *tx = tx_new(st);
    assert_int_equal(alert_rule_upgrade_defaults(tx, 1793491200, &err), RD_OK);
    assert_int_equal(tx_write_count(tx), 2);   /* node-runtime and the mark */
    assert_int_equal(tx_commit(tx, NULL, &err), RD_OK);
    tx_reset(tx);
    assert_int_equal(rule_count(st), 1);
    json_t *rule = NULL;
    assert_int_equal(tx_get(tx, KEY_ALERT_RULES "node-runtime", &rule, &err), RD_OK);
    assert_non_null(rule);
    json_decref(rule);
    tx_reset(tx);
    assert_int_equal(alert_rule_upgrade_defaults(tx, 1793491200, &err), RD_OK);
    assert_int_equal(tx_write_count(tx), 0);
    tx_free(tx);
    store_close(st);
}

int main(void)
{
    testutil_tmpdir(dir, sizeof dir);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rule_build_ok),
        cmocka_unit_test(test_rule_build_refusals),
        cmocka_unit_test(test_check_url),
        cmocka_unit_test(test_metric_per_gpu),
        cmocka_unit_test(test_pseudo_registry),
        cmocka_unit_test(test_pseudo_readings),
        cmocka_unit_test(test_condition),
        cmocka_unit_test(test_step),
        cmocka_unit_test(test_payload),
        cmocka_unit_test(test_backoff),
        cmocka_unit_test(test_queue_drops_oldest),
        cmocka_unit_test(test_delivery_gives_up),
        cmocka_unit_test(test_new_store_rules),
        cmocka_unit_test(test_older_store_upgrade),
        cmocka_unit_test(test_generation_one_store_upgrade),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
