/* report_jobs.c - what a worker did, as its job document records it
 * (report.h).
 *
 * A worker holds GPUs from started_at to ended_at (billing covers exactly
 * that span; a running one up to now).  It waited from the job's
 * submitted_at until it was placed (placed_at: from then on it held its
 * node), or until it ended without ever being placed (canceled_at), or up
 * to now while it still waits.
 */
#include <string.h>

#include "doc.h"
#include "job.h"
#include "report.h"

static int time_of(const json_t *doc, const char *field, rd_time *t)
{
    const char *s = json_string_value(json_object_get(doc, field));
    return s && rdtime_parse(field, s, t, NULL) == RD_OK;
}

int report_worker_read(const json_t *job, size_t w, rd_time now, report_worker *out)
{
    const json_t *worker = json_array_get(json_object_get(job, "workers"), w);
    const json_t *res = json_object_get(job, "resources");
    rd_time submitted, started, ended, placed;
    if (!worker || !time_of(job, "submitted_at", &submitted))
        return 0;
    memset(out, 0, sizeof *out);
    out->job = job;
    out->index = w;
    out->node = doc_str(worker, "node");
    out->region = doc_str(worker, "region");
    out->gpu_type = doc_str(worker, "gpu_type");
    if (!*out->gpu_type)
        out->gpu_type = json_string_value(json_array_get(json_object_get(res, "gpu_types"), 0));
    if (!out->gpu_type)
        out->gpu_type = "";
    out->account = doc_str(job, "project_owner");
    out->gpus_x100 = strcmp(out->gpu_type, "cpu") == 0 ? 0 : doc_int(res, "gpus_x100");
    out->alloc = json_object_get(worker, "alloc");

    const char *state = doc_str(worker, "state");
    int ran = time_of(worker, "started_at", &started);
    if (ran) {
        out->run_from = started;
        out->run_to = time_of(worker, "ended_at", &ended) ? ended : now;
    }
    /* the wait ends at placement; older documents have no placed_at, and
     * a worker run outside an agent was placed when it started */
    out->wait_from = submitted;
    if (time_of(worker, "placed_at", &placed) || (ran && (placed = started, 1)))
        out->wait_to = placed;
    else if (time_of(worker, "canceled_at", &ended))
        out->wait_to = ended;
    else if (!job_state_ended(state))
        out->wait_to = now;
    else
        out->wait_to = submitted;   /* ended unplaced before canceled_at was kept: unknown, not counted */
    return 1;
}
