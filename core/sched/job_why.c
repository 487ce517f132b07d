/* job_why.c - `job why`: what keeps a waiting job from running.
 *
 * It judges every node for the job with the same sched_check() the
 * pass places with, after replaying the claims that aged jobs ahead of it in
 * the queue would make, so why and run never disagree.  Beside the nodes
 * it counts the owner's GCP regions whose quota allows no more of the job's
 * GPU type (`quota`, as the pass's burst judges them).  The pass itself is
 * sched_run.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "fleet.h"
#include "job.h"
#include "num.h"
#include "sched_burst.h"
#include "sched_index.h"
#include "sched_queue.h"

/* ---- job why ----------------------------------------------------------- */

/* The strings of words, joined by ", " into out (cut at len). */
static void join_words(const json_t *words, char *out, size_t len)
{
    size_t i, used = 0;
    json_t *w;
    out[0] = '\0';
    json_array_foreach(words, i, w) {
        const char *word = json_string_value(w);
        if (used < len)
            used += (size_t)snprintf(out + used, len - used, "%s%s", i ? ", " : "", word ? word : "");
    }
}

static rd_code job_why_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    sched_snapshot s;
    json_t *job = NULL;
    sched_job jv;
    size_t counts[SCHED_NVERDICTS] = { 0 }, i;
    rd_code rc = job_get_visible(ctx, cmd_arg(a, 0), &job, err);
    if (rc != RD_OK)
        return rc;
    if ((rc = sched_load(ctx, &s, err)) != RD_OK) {
        json_decref(job);
        return rc;
    }
    sched_job_view(job, &jv);
    /* Aged jobs ahead in the queue that cannot be placed hold claims, as
     * they would in a pass: replay that so why and run agree. */
    sched_qjob *queue = NULL;
    size_t nq = 0;
    if (sched_queue_load(ctx, &queue, &nq, NULL, NULL, NULL) == RD_OK) {
        for (i = 0; i < nq; i++) {
            if (strcmp(queue[i].id, jv.id) == 0)
                break;
            const json_t *q = sched_qjob_doc(&queue[i]);
            if (!q)
                continue;
            rd_time submitted = 0;
            sched_offer o;
            sched_job qv;
            sched_plan plan;
            rdtime_parse("submitted_at", doc_str(q, "submitted_at"), &submitted, NULL);
            if (ctx->now - submitted <= s.max_wait_s || !sched_payers_ok(ctx, q, NULL))
                continue;
            sched_job_view(q, &qv);
            sched_plan_build(&s, &qv, &plan);
            if (sched_pick(&s, &qv, &plan, &o) < 0)
                sched_claim_for(&s, &qv, &plan, NULL, NULL);
            sched_plan_free(&plan);
        }
    }
    int pin_usable = 0;
    for (i = 0; i < s.nnodes; i++) {
        sched_offer o;
        const json_t *n = s.nodes[i].doc;
        sched_verdict v = sched_check(&s, &jv, i, &o);
        counts[v]++;
        if (*doc_str(job, "region_pin") && strcmp(doc_str(n, "region"), doc_str(job, "region_pin")) == 0 &&
            v != SCHED_NODE_STATE && v != SCHED_GPU_TYPE)
            pin_usable = 1;
    }
    static const char *const what[SCHED_NVERDICTS] = {
        "", "not active compute nodes", "of a GPU type the job does not accept",
        "in other accounts' regions that take no public jobs", "outside the region its regional resources pin it to",
        "with no market price for their GPU type", "costing more per GPU-hour than its max_price",
        "not sharing GPUs (it asks for a fraction)", "without enough free GPUs", "without enough free disk",
        "without enough free vCPUs", "held for a job that has waited longer",
        "whose agent is not online (agent-managed: work goes only where an agent runs it)",
        "with enough free GPUs only if their unhealthy GPUs counted (node show lists gpu_health)",
    };
    json_t *constraints = json_array(), *reasons = json_array();
    for (int v = 1; v < SCHED_NVERDICTS; v++)
        if (counts[v]) {
            json_array_append_new(constraints, json_pack("{s:s, s:I}", "constraint", sched_verdict_name((sched_verdict)v),
                                                         "ruled_out", (json_int_t)counts[v]));
            json_array_append_new(reasons, json_sprintf("%zu node%s %s", counts[v], counts[v] == 1 ? "" : "s", what[v]));
        }
    size_t quota_regions = 0;
    json_t *quota_names = json_array();
    if (sched_burst_quota_blocked(ctx, &s, job, &quota_regions, quota_names, NULL) == RD_OK && quota_regions) {
        char types[256] = "", names[256] = "";
        join_words(json_object_get(json_object_get(job, "resources"), "gpu_types"), types, sizeof types);
        join_words(quota_names, names, sizeof names);
        json_array_append_new(constraints, json_pack("{s:s, s:I}", "constraint", "quota", "ruled_out",
                                                     (json_int_t)quota_regions));
        json_array_append_new(reasons, json_sprintf("%zu GCP region%s whose quota allows no more %s (%s: quota show "
                                                    "REGION has limits and usage)", quota_regions,
                                                    quota_regions == 1 ? "" : "s", types, names));
    }
    json_decref(quota_names);
    json_t *maxp = json_object_get(json_object_get(job, "resources"), "max_price_ucr");
    if (counts[SCHED_PRICE] && json_is_integer(maxp)) {
        char buf[NUM_CREDITS_BUFLEN];
        json_array_append_new(reasons, json_sprintf("max_price is %s credits per GPU-hour (price list shows market prices)",
                                                    num_format_credits(json_integer_value(maxp), buf)));
    }
    size_t waiting = 0;
    json_t *w;
    json_array_foreach(json_object_get(job, "workers"), i, w)
        waiting += strcmp(doc_str(w, "state"), "waiting_gpus") == 0;
    const char *broke = NULL;
    int credit = sched_payers_ok(ctx, job, &broke);
    if (!credit)
        json_array_append_new(reasons, json_sprintf("the paying account '%s' has no credit left (its wallet is at or below zero)",
                                                    broke));
    if (*doc_str(job, "region_pin")) {
        const json_t *rg = json_object_get(job, "regional");
        const char *by = json_string_value(json_object_get(rg, "datastore"));
        json_array_append_new(reasons, json_sprintf("region %s: pinned by %s %s%s", doc_str(job, "region_pin"),
                                                    by ? "datastore" : "reservation",
                                                    by ? by : json_string_value(json_object_get(rg, "reservation")),
                                                    pin_usable ? "" : ", which has no active node of a GPU type it accepts"));
    }
    if (waiting && counts[SCHED_OK] && credit)
        json_array_append_new(reasons, json_sprintf("%zu node(s) could take it now: the next sched run places it", counts[SCHED_OK]));
    else if (waiting && counts[SCHED_OK])
        json_array_append_new(reasons, json_sprintf("%zu node(s) could take it once '%s' has credit", counts[SCHED_OK], broke));
    else if (waiting && !s.nnodes)
        json_array_append_new(reasons, json_string("there are no compute nodes in the fleet"));
    *result = json_pack("{s:s, s:s, s:I, s:I, s:I, s:b, s:o, s:o}", "id", doc_str(job, "id"), "state",
                        doc_str(job, "state"), "waiting_workers", (json_int_t)waiting, "nodes_considered",
                        (json_int_t)s.nnodes, "eligible", (json_int_t)counts[SCHED_OK], "credit", credit,
                        "constraints", constraints, "reasons", reasons);
    if (*doc_str(job, "region_pin"))
        json_object_set_new(*result, "region_pin", json_string(doc_str(job, "region_pin")));
    sched_queue_free(queue, nq);
    sched_snapshot_free(&s);
    json_decref(job);
    return RD_OK;
}

/* Its own table, listed after job_cmd_table's: the scheduler's judgment is
 * above the job commands, which it reads. */
const cmd_def job_why_cmd_table[] = {
    { .words = "job why", .args = "ID", .help = "why a job waits: how many nodes each constraint rules out",
      .run = job_why_cmd },
    { 0 }
};
