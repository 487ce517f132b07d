/* panes_jobs.c - the Jobs table: read in pages of projected jobs; the
 * waiting jobs' reasons (`job why`, asked in idle time by panes.c) and
 * their rows.
 *
 * A fleet's history is mostly ended jobs; `job list` of 100,000 whole
 * documents is a gigabyte of JSON values.  So the table asks the core for
 * the fields its columns show (`job list --fields ...`, panes.c's JOB_LIST)
 * a page at a time (`--limit`, `--after`), turns each page into rows at
 * once and keeps as items only the waiting jobs, which the idle `job why`
 * questions need.  Who sees which job is the core's rule, applied by the
 * command as for batch and JSON; a relayed client's pages travel through
 * the relay like any other command.  A key that needs a job's document
 * (Enter, o) gets it from `job show` (pane_current_item).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "panes_int.h"

/* Jobs per page: a page is read and turned into rows in a few
 * milliseconds, and a table of 100,000 takes 50 of them. */
#define JOBS_PAGE 2000

static int by_count_desc(const void *a, const void *b)
{
    long x = strtol(*(const char *const *)a, NULL, 10), y = strtol(*(const char *const *)b, NULL, 10);
    return (y > x) - (y < x);
}

/* The core's own words for why a job waits, joined; else the counts.  In
 * a narrow column the first words matter most: reasons that are not node
 * counts (no credit, no quota) come first, then the counts, largest first. */
void panes_why_text(const json_t *why, char *out, size_t len)
{
    size_t used = 0, i, n = 0, ncount = 0;
    const json_t *r;
    const char *plain[32], *counts[32];
    out[0] = '\0';
    json_array_foreach(json_object_get(why, "reasons"), i, r) {
        const char *t = json_string_value(r);
        if (!t)
            continue;
        if (t[0] >= '0' && t[0] <= '9') {
            if (ncount < 32)
                counts[ncount++] = t;
        } else if (n < 32) {
            plain[n++] = t;
        }
    }
    qsort(counts, ncount, sizeof counts[0], by_count_desc);
    for (i = 0; i < n + ncount && used < len; i++)
        used += (size_t)snprintf(out + used, len - used, "%s%s", used ? "; " : "", i < n ? plain[i] : counts[i - n]);
    if (used > 0)
        return;
    json_array_foreach(json_object_get(why, "constraints"), i, r) {
        if (used < len)
            used += (size_t)snprintf(out + used, len - used, "%s%s rules out %lld", i ? ", " : "",
                                     json_string_value(json_object_get(r, "constraint")),
                                     (long long)json_integer_value(json_object_get(r, "ruled_out")));
    }
}

void panes_explain_job(session *c, json_t *job)
{
    char line[160], text[400];
    json_t *why = NULL;
    rd_err err;
    snprintf(line, sizeof line, "job why %s", json_string_value(json_object_get(job, "id")));
    if (session_exec_line(c, line, &why, &err) == RD_OK)
        panes_why_text(why, text, sizeof text);
    else   /* it may have started or stopped since the list: say nothing */
        text[0] = '\0';
    json_object_set_new(job, "why", json_string(text));
    json_decref(why);
}

int panes_job_starting(const json_t *job, char *out, size_t len)
{
    size_t i, n = 0;
    const json_t *w;
    const char *node = NULL;
    json_array_foreach(json_object_get(job, "workers"), i, w) {
        const char *state = json_string_value(json_object_get(w, "state"));
        if (state && strcmp(state, "starting") == 0) {
            if (!node)
                node = json_string_value(json_object_get(w, "node"));
            n++;
        }
    }
    if (n == 0)
        return 0;
    if (n == 1)
        snprintf(out, len, "starting on %s (its agent starts it)", node ? node : "?");
    else
        snprintf(out, len, "%zu workers starting (their agents start them)", n);
    return 1;
}


static const char *const job_states[8] = { "waiting_gpus", "running", "stopping", "finished",
                                           "stopped", "failed", "canceled", NULL };

/* A waiting job's reason until `job why` answers: starting on an agent's
 * node, what the previous load learnt (asked again in idle time), or to
 * be asked.  Nothing is asked here: `job why` is a pass over every node. */
static void job_set_why(json_t *job, const json_t *known, int why_slow)
{
    char starting[160];
    const char *id = json_string_value(json_object_get(job, "id"));
    /* Placed on an agent's node that has not started it yet: `job why`
     * would judge it as if unplaced. */
    if (panes_job_starting(job, starting, sizeof starting)) {
        json_object_set_new(job, "why", json_string(starting));
        return;
    }
    const json_t *old = id ? json_object_get(known, id) : NULL;
    if (old && strcmp(json_string_value(old), WHY_PENDING) != 0 && strcmp(json_string_value(old), WHY_ENTER) != 0) {
        json_object_set(job, "why", (json_t *)old);
        json_object_set_new(job, "why_again", json_true());
    } else {
        json_object_set_new(job, "why", json_string(why_slow ? WHY_ENTER : WHY_PENDING));
    }
}

/* One page's jobs into rows g, the counts and (waiting ones) items. */
static void jobs_add_page(const pane_view *v, grid *g, const json_t *page, json_t *items, const json_t *known,
                          int why_slow, size_t count[8])
{
    size_t i;
    json_t *job;
    json_array_foreach(page, i, job) {
        const char *state = json_string_value(json_object_get(job, "state"));
        int s = 0;
        while (job_states[s] && !(state && strcmp(state, job_states[s]) == 0))
            s++;
        if (job_states[s])
            count[s]++;
        if (s == 0)
            job_set_why(job, known, why_slow);
        panes_fill_row(v, g, job);
        if (s == 0)
            json_array_append(items, job);
    }
}

void panes_load_jobs(session *c, const pane_view *v, pane_state *ps)
{
    /* What the previous load learnt, by job id: reused for the jobs this
     * load has no time to ask about. */
    json_t *known = json_object(), *items = json_array(), *job;
    size_t i, count[8] = { 0 };
    json_array_foreach(ps->items, i, job) {
        const char *id = json_string_value(json_object_get(job, "id"));
        if (id && json_is_string(json_object_get(job, "why")))
            json_object_set(known, id, json_object_get(job, "why"));
    }
    char after[256] = "";
    for (;;) {
        char line[512];
        snprintf(line, sizeof line, "%s --limit %d", v->list_cmd, JOBS_PAGE);
        if (after[0]) {
            snprintf(line + strlen(line), sizeof line - strlen(line), " --after ");
            prompt_quote_word(line, sizeof line, after);
        }
        json_t *res = panes_run(c, ps, line);
        if (!res)
            break;
        jobs_add_page(v, &ps->g, json_object_get(res, "items"), items, known, ps->why_slow, count);
        const char *next = json_string_value(json_object_get(res, "next"));
        snprintf(after, sizeof after, "%s", next ? next : "");
        json_decref(res);
        if (!after[0])
            break;
    }
    json_decref(known);
    panes_adopt_items(ps, items);
    ps->failed = count[5];
    snprintf(ps->summary, sizeof ps->summary,
             "%zu waiting, %zu running, %zu stopping, %zu finished, %zu stopped, %zu failed, %zu canceled",
             count[0], count[1], count[2], count[3], count[4], count[5], count[6]);
}

void panes_jobs_update_rows(const pane_view *v, pane_state *ps, const json_t *changed)
{
    grid one;
    grid_init(&one, v->ncols);
    for (size_t r = 0; r < ps->g.nrows && json_object_size(changed) > 0; r++) {
        const json_t *job = json_object_get(changed, ps->g.rows[r].key);
        if (!job)
            continue;
        panes_fill_row(v, &one, job);
        grid_swap_row(&ps->g, r, &one);
        grid_clear_rows(&one);
    }
    grid_free(&one);
}
