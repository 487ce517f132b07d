/* sched_pass.c - one scheduling pass (`sched run`), `job why`, market
 * prices and the scheduler's settings.
 *
 * A pass reads a snapshot of the fleet once, walks the waiting jobs in queue
 * order (priority, then submit time) and places each waiting worker on the
 * best eligible node (sched.c).  Each placement commits on its own: the job
 * and the node documents change together, guarded by what was read, so a
 * concurrent pass or console never hands out the same GPU twice; on a
 * conflict the node is re-read and the worker tried again.  A job that
 * cannot be placed does not block smaller ones behind it, except that a job
 * waiting longer than the configured age claims the nodes it could use, so
 * capacity freed there goes to it first (no starvation).
 */
#include <stdlib.h>
#include <string.h>

#include "account.h"
#include "burst.h"
#include "catalog.h"
#include "fleet.h"
#include "job.h"
#include "ledger.h"
#include "node.h"
#include "num.h"
#include "sched.h"

#define PLACE_RETRIES 10

static int cmp_queue(const void *pa, const void *pb)
{
    const json_t *a = *(json_t *const *)pa, *b = *(json_t *const *)pb;
    int64_t x = json_integer_value(json_object_get(a, "priority")), y = json_integer_value(json_object_get(b, "priority"));
    if (x != y)
        return x > y ? -1 : 1;
    int c = strcmp(fleet_str(a, "submitted_at"), fleet_str(b, "submitted_at"));
    return c ? c : strcmp(fleet_str(a, "id"), fleet_str(b, "id"));
}

/* The waiting jobs in queue order (a new array). */
static rd_code job_queue(cmd_ctx *ctx, json_t **queue, rd_err *err)
{
    json_t *all = NULL, *j;
    size_t i, n = 0;
    rd_code rc = tx_list(ctx->tx, "/rigdeck/jobs/", &all, err);
    if (rc != RD_OK)
        return rc;
    json_t **v = calloc(json_array_size(all) + 1, sizeof *v);
    json_array_foreach(all, i, j) {
        size_t k;
        json_t *w;
        json_array_foreach(json_object_get(j, "workers"), k, w)
            if (strcmp(fleet_str(w, "state"), "waiting_gpus") == 0) {
                v[n++] = j;
                break;
            }
    }
    qsort(v, n, sizeof *v, cmp_queue);
    *queue = json_array();
    for (i = 0; i < n; i++)
        json_array_append(*queue, v[i]);
    free(v);
    json_decref(all);
    return RD_OK;
}

/* 1 while the paying account (the project owner) has credit left. */
static int wallet_ok(cmd_ctx *ctx, const json_t *job)
{
    char id[RD_KEY_MAX];
    int64_t bal = 0, pending = 0;
    snprintf(id, sizeof id, "wallet:%s", fleet_str(job, "project_owner"));
    if (ledger_balance(ctx->tx, id, &bal, &pending, NULL) != RD_OK)
        return 0;
    return bal > 0;
}

static json_t *snapshot_node(sched_snapshot *s, const char *name, size_t *index)
{
    size_t i;
    json_t *n;
    json_array_foreach(s->nodes, i, n)
        if (strcmp(fleet_str(n, "name"), name) == 0) {
            *index = i;
            return n;
        }
    return NULL;
}

/* Places worker w of job id on the best node, committed as one step.
 * Returns RD_OK with *placed 0 when nothing fits. */
static rd_code place_worker(cmd_ctx *ctx, sched_snapshot *s, const char *id, size_t w, int dry_run, int *placed,
                            rd_err *err)
{
    *placed = 0;
    for (int attempt = 0; attempt < PLACE_RETRIES; attempt++) {
        json_t *job = NULL, *node = NULL;
        sched_offer offer;
        size_t idx = 0;
        rd_code rc = job_get(ctx, id, &job, err);
        if (rc != RD_OK)
            return rc;
        json_t *worker = json_array_get(json_object_get(job, "workers"), w);
        if (strcmp(fleet_str(worker, "state"), "waiting_gpus") != 0) {   /* someone else placed it */
            json_decref(job);
            tx_reset(ctx->tx);
            return RD_OK;
        }
        json_t *pick = sched_pick(s, job, &offer);
        if (!pick) {
            json_decref(job);
            tx_reset(ctx->tx);
            return RD_OK;
        }
        /* Re-read the node guarded: the commit holds only if nobody changed it. */
        char name[128];
        snprintf(name, sizeof name, "%s", fleet_str(pick, "name"));
        json_decref(offer.alloc);
        rc = node_get(ctx, name, &node, err);
        if (rc == RD_OK && sched_check(s, job, node, &offer) != SCHED_OK) {
            if (snapshot_node(s, name, &idx))
                json_array_set(s->nodes, idx, node);
            json_decref(node);
            json_decref(job);
            tx_reset(ctx->tx);
            continue;
        }
        if (rc != RD_OK) {
            json_decref(job);
            return rc;
        }
        char ts[RDTIME_BUFLEN];
        sched_node_take(node, job, w, &offer, ctx->now);
        json_object_set_new(worker, "state", json_string("running"));
        json_object_set_new(worker, "node", json_string(name));
        json_object_set_new(worker, "region", json_string(fleet_str(node, "region")));
        json_object_set_new(worker, "gpu_type", json_string(fleet_str(node, "gpu_type")));
        json_object_set_new(worker, "price_ucr", json_integer(offer.price_ucr));
        json_object_set_new(worker, "own", json_boolean(offer.own));
        json_object_set_new(worker, "host", json_string(fleet_str(node, "owner")));
        json_object_set_new(worker, "started_at", json_string(rdtime_format(ctx->now, ts)));
        json_object_set_new(worker, "billed_until", json_string(ts));
        json_object_del(worker, "pending_node");
        json_object_set(worker, "alloc", offer.alloc);
        json_decref(offer.alloc);
        job_update_state(job);
        json_object_set_new(job, "reason", json_null());
        if (snapshot_node(s, name, &idx))
            json_array_set(s->nodes, idx, node);
        if (dry_run) {
            json_decref(node);
            json_decref(job);
            tx_reset(ctx->tx);
            *placed = 1;
            return RD_OK;
        }
        rc = node_put(ctx, node, err);
        if (rc == RD_OK)
            rc = job_put(ctx, job, err);
        if (rc == RD_OK)
            rc = cmd_commit_step(ctx, err);
        if (rc == RD_ECONFLICT) {
            /* The snapshot is stale: refresh this node and try again. */
            json_t *fresh = NULL;
            tx_reset(ctx->tx);
            if (node_get(ctx, name, &fresh, NULL) == RD_OK && snapshot_node(s, name, &idx))
                json_array_set_new(s->nodes, idx, fresh);
            else
                json_decref(fresh);
            tx_reset(ctx->tx);
            continue;
        }
        *placed = rc == RD_OK;
        return rc;
    }
    return rd_fail(err, RD_ECONFLICT, "sched run: job %s: the fleet kept changing under the pass; run it again", id);
}

/* What decides where a worker may go: its resources, its pin, its payer
 * (own capacity), and for claims its id when aged.  "" when it does not fit
 * in buf (then nothing is cached). */
static void job_shape(const json_t *job, char *buf, size_t len)
{
    json_t *key = json_pack("{s:O, s:s, s:s}", "r", json_object_get(job, "resources"), "p",
                            fleet_str(job, "region_pin"), "o", fleet_str(job, "project_owner"));
    char *text = key ? json_dumps(key, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    buf[0] = '\0';
    if (text && strlen(text) < len)
        snprintf(buf, len, "%s", text);
    free(text);
    json_decref(key);
}

/* An aged job that could not be placed claims every node that fails it only
 * for lack of free capacity, so no younger job takes what frees up there. */
static void claim_for(sched_snapshot *s, const json_t *job)
{
    size_t i;
    json_t *n;
    json_array_foreach(s->nodes, i, n) {
        sched_offer o;
        sched_verdict v = sched_check(s, job, n, &o);
        json_decref(o.alloc);
        if ((v == SCHED_GPUS || v == SCHED_DISK || v == SCHED_CPUS) && !json_object_get(s->claims, fleet_str(n, "name")))
            json_object_set_new(s->claims, fleet_str(n, "name"), json_string(fleet_str(job, "id")));
    }
}

/* Stops the running jobs of every account whose wallet is at or below zero
 * (reason out_of_credits), each with what it owes posted, one step a job. */
static rd_code stop_out_of_credit(cmd_ctx *ctx, int dry_run, size_t *stopped, rd_err *err)
{
    json_t *jobs = NULL, *j;
    size_t i;
    rd_code rc = tx_list(ctx->tx, "/rigdeck/jobs/", &jobs, err);
    json_array_foreach(jobs, i, j) {
        if (rc != RD_OK)
            break;
        if (strcmp(fleet_str(j, "state"), "running") != 0 || wallet_ok(ctx, j))
            continue;
        for (int attempt = 0; attempt < PLACE_RETRIES; attempt++) {
            json_t *job = NULL, *w;
            size_t k;
            tx_reset(ctx->tx);
            if ((rc = job_get(ctx, fleet_str(j, "id"), &job, err)) != RD_OK)
                break;
            json_array_foreach(json_object_get(job, "workers"), k, w)
                if (rc == RD_OK)
                    rc = job_end_worker(ctx, job, k, "stopped", err);
            json_object_set_new(job, "reason", json_string("out_of_credits"));
            job_update_state(job);
            if (rc == RD_OK && !dry_run)
                rc = job_put(ctx, job, err);
            else
                json_decref(job);
            if (rc == RD_OK && !dry_run)
                rc = cmd_commit_step(ctx, err);
            if (rc != RD_ECONFLICT)
                break;
            rc = RD_OK;   /* the job changed under us: read it again */
        }
        tx_reset(ctx->tx);
        if (rc == RD_OK)
            (*stopped)++;
    }
    json_decref(jobs);
    return rc;
}

rd_code sched_run_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    sched_snapshot s;
    json_t *queue = NULL, *job, *placed_list = json_array(), *failed_shapes = json_object();
    size_t i, placed = 0, waiting = 0, no_credit = 0, bursting = 0, failed = 0;
    int dry = cmd_opt_given(a, "dry-run");
    size_t stopped = 0;
    rd_code rc = stop_out_of_credit(ctx, dry, &stopped, err);
    if (rc == RD_OK)
        rc = sched_load(ctx, &s, err);
    else
        memset(&s, 0, sizeof s);
    if (rc == RD_OK)
        rc = job_queue(ctx, &queue, err);
    json_array_foreach(queue, i, job) {
        if (rc != RD_OK)
            break;
        char id[64];
        snprintf(id, sizeof id, "%s", fleet_str(job, "id"));
        rd_time submitted = 0;
        rdtime_parse("submitted_at", fleet_str(job, "submitted_at"), &submitted, NULL);
        int aged = ctx->now - submitted > s.max_wait_s;
        int credit = wallet_ok(ctx, job);
        tx_reset(ctx->tx);
        char shape[1024];
        job_shape(job, shape, sizeof shape);
        size_t k;
        json_t *w;
        json_array_foreach(json_object_get(job, "workers"), k, w) {
            if (rc != RD_OK || strcmp(fleet_str(w, "state"), "waiting_gpus") != 0)
                continue;
            int ok = 0;
            burst_outcome burst = BURST_NONE;
            /* Capacity only shrinks during a pass: once a worker of some
             * shape found no node, every later worker of that shape will not
             * either, so the idle part of a pass costs one scan per shape. */
            if (credit && !json_object_get(failed_shapes, shape))
                rc = place_worker(ctx, &s, id, k, dry, &ok, err);
            if (rc == RD_OK && !ok && shape[0])
                json_object_set_new(failed_shapes, shape, json_true());
            if (rc == RD_OK && credit && !ok)
                rc = burst_worker(ctx, &s, id, k, dry, &burst, err);
            if (ok) {
                placed++;
                json_array_append_new(placed_list, json_pack("{s:s, s:I}", "job", id, "worker", (json_int_t)k));
            } else if (burst == BURST_FAILED) {
                failed++;
            } else {
                waiting++;
                no_credit += !credit;
                bursting += burst == BURST_STARTED || burst == BURST_PENDING;
            }
        }
        if (aged && credit)
            claim_for(&s, job);
    }
    if (rc == RD_OK)
        *result = json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:b, s:o}", "name", "sched", "stopped_out_of_credits",
                            (json_int_t)stopped, "placed", (json_int_t)placed,
                            "waiting", (json_int_t)waiting, "waiting_for_credit", (json_int_t)no_credit,
                            "waiting_for_cloud", (json_int_t)bursting, "failed", (json_int_t)failed, "dry_run", dry,
                            "placements", placed_list);
    else
        json_decref(placed_list);
    json_decref(queue);
    json_decref(failed_shapes);
    sched_snapshot_free(&s);
    return rc;
}

/* ---- job why ----------------------------------------------------------- */

rd_code job_why_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    sched_snapshot s;
    json_t *job = NULL, *n;
    size_t counts[SCHED_NVERDICTS] = { 0 }, i;
    rd_code rc = job_get(ctx, cmd_arg(a, 0), &job, err);
    if (rc != RD_OK)
        return rc;
    if ((rc = sched_load(ctx, &s, err)) != RD_OK) {
        json_decref(job);
        return rc;
    }
    /* Aged jobs ahead in the queue that cannot be placed hold claims, as
     * they would in a pass: replay that so why and run agree. */
    json_t *queue = NULL, *q;
    if (job_queue(ctx, &queue, NULL) == RD_OK) {
        json_array_foreach(queue, i, q) {
            if (strcmp(fleet_str(q, "id"), fleet_str(job, "id")) == 0)
                break;
            rd_time submitted = 0;
            sched_offer o;
            rdtime_parse("submitted_at", fleet_str(q, "submitted_at"), &submitted, NULL);
            if (ctx->now - submitted <= s.max_wait_s || !wallet_ok(ctx, q))
                continue;
            json_t *fits = sched_pick(&s, q, &o);
            json_decref(o.alloc);
            if (!fits)
                claim_for(&s, q);
        }
    }
    json_decref(queue);
    int pin_usable = 0;
    json_array_foreach(s.nodes, i, n) {
        sched_offer o;
        sched_verdict v = sched_check(&s, job, n, &o);
        counts[v]++;
        json_decref(o.alloc);
        if (*fleet_str(job, "region_pin") && strcmp(fleet_str(n, "region"), fleet_str(job, "region_pin")) == 0 &&
            v != SCHED_NODE_STATE && v != SCHED_GPU_TYPE)
            pin_usable = 1;
    }
    static const char *const what[SCHED_NVERDICTS] = {
        "", "not active compute nodes", "of a GPU type the job does not accept",
        "in other accounts' regions that take no public jobs", "outside the region its regional resources pin it to",
        "with no market price for their GPU type", "costing more per GPU-hour than its max_price",
        "not sharing GPUs (it asks for a fraction)", "without enough free GPUs", "without enough free disk",
        "without enough free vCPUs", "held for a job that has waited longer",
    };
    json_t *constraints = json_array(), *reasons = json_array();
    for (int v = 1; v < SCHED_NVERDICTS; v++)
        if (counts[v]) {
            json_array_append_new(constraints, json_pack("{s:s, s:I}", "constraint", sched_verdict_name((sched_verdict)v),
                                                         "ruled_out", (json_int_t)counts[v]));
            json_array_append_new(reasons, json_sprintf("%zu node%s %s", counts[v], counts[v] == 1 ? "" : "s", what[v]));
        }
    json_t *maxp = json_object_get(json_object_get(job, "resources"), "max_price_ucr");
    if (counts[SCHED_PRICE] && json_is_integer(maxp)) {
        char buf[64];
        snprintf(buf, sizeof buf, "%lld.%06lld", (long long)(json_integer_value(maxp) / 1000000),
                 (long long)(json_integer_value(maxp) % 1000000));
        json_array_append_new(reasons, json_sprintf("max_price is %s credits per GPU-hour (price list shows market prices)", buf));
    }
    size_t waiting = 0;
    json_t *w;
    json_array_foreach(json_object_get(job, "workers"), i, w)
        waiting += strcmp(fleet_str(w, "state"), "waiting_gpus") == 0;
    int credit = wallet_ok(ctx, job);
    if (!credit)
        json_array_append_new(reasons, json_sprintf("the paying account '%s' has no credit left (its wallet is at or below zero)",
                                                    fleet_str(job, "project_owner")));
    if (*fleet_str(job, "region_pin")) {
        const json_t *rg = json_object_get(job, "regional");
        const char *by = json_string_value(json_object_get(rg, "datastore"));
        json_array_append_new(reasons, json_sprintf("region %s: pinned by %s %s%s", fleet_str(job, "region_pin"),
                                                    by ? "datastore" : "reservation",
                                                    by ? by : json_string_value(json_object_get(rg, "reservation")),
                                                    pin_usable ? "" : ", which has no active node of a GPU type it accepts"));
    }
    if (waiting && counts[SCHED_OK])
        json_array_append_new(reasons, json_sprintf("%zu node(s) could take it now: the next sched run places it", counts[SCHED_OK]));
    else if (waiting && !json_array_size(s.nodes))
        json_array_append_new(reasons, json_string("there are no compute nodes in the fleet"));
    *result = json_pack("{s:s, s:s, s:I, s:I, s:I, s:b, s:o, s:o}", "id", fleet_str(job, "id"), "state",
                        fleet_str(job, "state"), "waiting_workers", (json_int_t)waiting, "nodes_considered",
                        (json_int_t)json_array_size(s.nodes), "eligible", (json_int_t)counts[SCHED_OK], "credit", credit,
                        "constraints", constraints, "reasons", reasons);
    if (*fleet_str(job, "region_pin"))
        json_object_set_new(*result, "region_pin", json_string(fleet_str(job, "region_pin")));
    sched_snapshot_free(&s);
    json_decref(job);
    return RD_OK;
}

/* ---- market prices and settings ---------------------------------------- */

static rd_code price_set_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    char key[RD_KEY_MAX], ts[RDTIME_BUFLEN];
    int64_t price = 0;
    rd_code rc = catalog_check_gpu("GPU_TYPE", cmd_arg(a, 0), err);
    if (rc == RD_OK)
        rc = num_parse_credits("PRICE", cmd_arg(a, 1), 1, 1000 * NUM_UCR_PER_CREDIT, &price, err);
    if (rc == RD_OK && !account_actor_is_admin(ctx))
        rc = rd_fail(err, RD_EPERM, "price set: market prices are set by an administering account; --as is '%s'", ctx->actor);
    if (rc != RD_OK)
        return rc;
    json_t *old = NULL;
    if ((rc = tx_get(ctx->tx, tx_key(key, "/rigdeck/prices/%s", cmd_arg(a, 0)), &old, err)) != RD_OK)
        return rc;
    json_decref(old);
    json_t *doc = json_pack("{s:s, s:I, s:s}", "name", cmd_arg(a, 0), "price_ucr", (json_int_t)price, "updated_at",
                            rdtime_format(ctx->now, ts));
    *result = json_incref(doc);
    return tx_put(ctx->tx, key, doc, err);
}

static rd_code price_list_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    json_t *prices = NULL, *p, *items = json_array();
    size_t i;
    (void)a;
    rd_code rc = tx_list(ctx->tx, "/rigdeck/prices/", &prices, err);
    if (rc != RD_OK) {
        json_decref(items);
        return rc;
    }
    for (i = 0; i < catalog_gpu_count(); i++) {
        const gpu_type *g = catalog_gpu_at(i);
        json_t *price = json_null();
        size_t k;
        json_array_foreach(prices, k, p)
            if (strcmp(fleet_str(p, "name"), g->id) == 0)
                price = json_incref(json_object_get(p, "price_ucr"));
        json_array_append_new(items, json_pack("{s:s, s:s, s:o, s:I}", "name", g->id, "class", catalog_class_name(g->cls),
                                               "price_ucr", price, "usage_fee_ucr", (json_int_t)g->usage_fee_ucr));
    }
    json_decref(prices);
    *result = json_pack("{s:o}", "items", items);
    return RD_OK;
}

static rd_code sched_config_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    json_t *cfg = NULL;
    int64_t age = 0;
    rd_code rc = tx_get(ctx->tx, "/rigdeck/sched/config", &cfg, err);
    if (rc != RD_OK)
        return rc;
    if (!cfg)
        cfg = json_pack("{s:s, s:I}", "name", "sched", "max_wait_s", (json_int_t)3600);
    if (cmd_opt(a, "max-wait")) {
        if (!account_actor_is_admin(ctx))
            rc = rd_fail(err, RD_EPERM, "sched config: only an administering account changes scheduler settings");
        if (rc == RD_OK)
            rc = rdtime_parse_duration("--max-wait", cmd_opt(a, "max-wait"), &age, err);
        if (rc == RD_OK) {
            json_object_set_new(cfg, "max_wait_s", json_integer(age));
            rc = tx_put(ctx->tx, "/rigdeck/sched/config", json_incref(cfg), err);
        }
    }
    if (rc == RD_OK)
        *result = cfg;
    else
        json_decref(cfg);
    return rc;
}

static const cmd_flag sched_config_flags[] = {
    { "max-wait", "DURATION", CMD_FLAG_VALUE, "a job waiting longer claims capacity first (default 1h)" },
    { 0 }
};

const cmd_def sched_cmd_table[] = {
    { "sched config", "", sched_config_flags, CMD_MUTATES, "show or change the scheduler's settings", NULL,
      sched_config_cmd },
    { "price set", "GPU_TYPE PRICE", NULL, CMD_MUTATES, "set the market price (credits per GPU-hour)", NULL,
      price_set_cmd },
    { "price list", "", NULL, 0, "market prices and usage fees per GPU type", "name,class,price_ucr,usage_fee_ucr",
      price_list_cmd },
    { 0 }
};
