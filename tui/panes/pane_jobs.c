/* pane_jobs.c - the Jobs pane (key 6): jobs, projects and environments
 * ('v'); the Jobs table read in pages of projected jobs; the waiting jobs'
 * reasons (`job why`, asked in idle time) and their rows.
 *
 * A fleet's history is mostly ended jobs; `job list` of 100,000 whole
 * documents is a gigabyte of JSON values.  So the table asks the core for
 * the fields its columns show (`job list --fields ...`, JOB_LIST below)
 * a page at a time (`--limit`, `--after`), turns each page into rows at
 * once and keeps as items only the waiting jobs' ids and reasons, which
 * the idle `job why` questions need.  The console reads the pages in idle
 * time, a step at a time (panes_jobs_begin, panes_jobs_step), so neither
 * the first frame nor a key waits for 100,000 jobs.  Who sees which job is the core's rule, applied by the
 * command as for batch and JSON; a relayed client's pages travel through
 * the relay like any other command.  A key that needs a job's document
 * (Enter, o) gets it from `job show` (pane_current_item).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "panes_int.h"
#include "rdtime.h"
#include "table.h"

/* The fields the Jobs table's columns, summaries and reasons read, not
 * whole documents (a job's spec): on 100,000 jobs that is the difference
 * between gigabytes and a moment.  tests/batch/test_roles.sh checks them. */
#define JOB_LIST "job list --fields id,name,state,workers_running,workers_total,node,project,project_owner,reason," \
                 "workers.state,workers.node,workers.price_ucr"

static const pane_col job_cols[] = {
    { "ID", "id", 13, 12, 0, 0 }, { "NAME", "name", 14, 8, 3, 0 },
    { "STATE", "state", 12, 8, 0, COL_STATE }, { "WORKERS", "@workers", 7, 5, 0, COL_RIGHT },
    { "NODE", "node", 16, 6, 0, 0 }, { "PRICE/GPU-H", "@price", 11, 8, 1, COL_RIGHT | COL_MONEY },
    { "PROJECT", "@project", 16, 7, 2, 0 }, { "WAITING REASON", "@why", 44, 14, 0, 0 },
};
static const pane_col project_cols[] = {
    { "OWNER", "owner", 12, 8, 0, 0 }, { "NAME", "name", 14, 8, 0, 0 },
    { "ON QUOTA EXHAUSTED", "on_quota_exhausted", 18, 6, 0, 0 }, { "MEMBERS", "members", 30, 8, 1, 0 },
    { "CREATED", "created_at", 20, 10, 2, 0 },
};
static const pane_col environment_cols[] = {
    { "NAME", "name", 20, 8, 0, 0 }, { "FRAMEWORK", "framework", 13, 7, 0, 0 },
    { "VERSION", "framework_version", 8, 5, 0, 0 }, { "PYTHON", "python", 6, 4, 0, 0 },
    { "IMAGE", "image", 60, 12, 0, 0 },
};

/* "@project" (OWNER/NAME), "@workers" ("2/4"), "@price", "@why". */
static void job_cell(const json_t *item, const char *field, char *out, size_t len, double *bar)
{
    (void)bar;
    if (strcmp(field, "@project") == 0) {
        /* Project names are per owner: every account has a "default". */
        const char *owner = json_string_value(json_object_get(item, "project_owner"));
        const char *name = json_string_value(json_object_get(item, "project"));
        snprintf(out, len, "%s%s%s", owner ? owner : "", owner ? "/" : "", name ? name : "-");
    } else if (strcmp(field, "@workers") == 0) {
        snprintf(out, len, "%lld/%lld", (long long)panes_number_of(item, "workers_running"),
                 (long long)panes_number_of(item, "workers_total"));
    } else if (strcmp(field, "@price") == 0) {
        const json_t *w = json_object_get(item, "workers"), *e;
        size_t i;
        snprintf(out, len, "-");
        json_array_foreach(w, i, e) {
            const json_t *p = json_object_get(e, "price_ucr");
            if (json_is_integer(p)) {
                table_format_credits(json_integer_value(p), out, len);
                break;
            }
        }
    } else if (strcmp(field, "@why") == 0) {
        panes_value_text(json_object_get(item, "why"), "", out, len);
        if (strcmp(out, "-") == 0)
            panes_value_text(json_object_get(item, "reason"), "", out, len);
    } else {
        snprintf(out, len, "?");
    }
}

/* Jobs per page: from JOBS_PAGE_MIN, doubled or halved so that a page
 * is read and turned into rows within the step's budget (4 ms: about 200
 * jobs a page on a shared 2-CPU machine, 500 steps for 100,000 jobs); a
 * read at once (pane_load) grows to JOBS_PAGE_MAX pages. */
#define JOBS_PAGE_MIN 100
#define JOBS_PAGE_MAX 2000
#define JOBS_SYNC_MS 1000
/* While the table is shown, the rows read join it this often. */
#define JOBS_MERGE_MS 250

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

/* What the table keeps of a waiting job: its id and reason, which the
 * idle `job why` questions read and write.  The row holds the rest, and
 * 3,000 whole projected jobs would be 7 MB of JSON values. */
static json_t *job_kept_item(const json_t *job)
{
    json_t *kept = json_pack("{s:O, s:O}", "id", json_object_get(job, "id"), "why", json_object_get(job, "why"));
    if (kept && json_object_get(job, "why_again"))
        json_object_set_new(kept, "why_again", json_true());
    return kept;
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
        if (s == 0 && json_is_string(json_object_get(job, "id")))
            json_array_append_new(items, job_kept_item(job));
    }
}

/* A read of the Jobs table in steps: a page of jobs per step, sized so a
 * step stays within its budget, between the console's looks at the
 * keyboard (panes.c starts it, the loop gives it idle time). */
struct pane_loading {
    char after[256];        /* the last job id read; "" before the first page */
    grid staged;            /* rows read and not yet in the table */
    json_t *known, *items;  /* the previous load's reasons by id; the waiting jobs so far */
    size_t count[8];
    size_t nread;
    int page;               /* jobs to ask for next */
    int into_table;         /* the table was empty: pages join it as they land */
    long long merged_ms;    /* when staged rows last joined the table */
};

int panes_jobs_loading(const pane_state *ps, size_t *nread)
{
    if (ps->loading && nread)
        *nread = ps->loading->nread;
    return ps->loading != NULL;
}

void panes_jobs_abandon(pane_state *ps)
{
    if (!ps->loading)
        return;
    grid_free(&ps->loading->staged);
    json_decref(ps->loading->known);
    json_decref(ps->loading->items);
    free(ps->loading);
    ps->loading = NULL;
}

static void jobs_loading_summary(pane_state *ps)
{
    snprintf(ps->summary, sizeof ps->summary, "loading: %zu jobs read so far...", ps->loading->nread);
}

int panes_jobs_begin(const pane_view *v, pane_state *ps)
{
    panes_jobs_abandon(ps);
    struct pane_loading *ld = calloc(1, sizeof *ld);
    if (!ld)
        return 0;
    /* What the previous load learnt, by job id: reused for the jobs this
     * load has no time to ask about. */
    ld->known = json_object();
    ld->items = json_array();
    size_t i;
    json_t *job;
    json_array_foreach(ps->items, i, job) {
        const char *id = json_string_value(json_object_get(job, "id"));
        if (id && json_is_string(json_object_get(job, "why")))
            json_object_set(ld->known, id, json_object_get(job, "why"));
    }
    grid_init(&ld->staged, v->ncols);
    ld->page = JOBS_PAGE_MIN;
    ld->into_table = ps->g.nrows == 0;
    ps->loading = ld;
    if (ld->into_table)
        jobs_loading_summary(ps);
    return 1;
}

/* The load is over: its rows are the table, its waiting jobs the items. */
static void jobs_finish(pane_state *ps)
{
    struct pane_loading *ld = ps->loading;
    if (ld->into_table)
        grid_append_rows(&ps->g, &ld->staged);
    else
        grid_take_rows(&ps->g, &ld->staged);
    panes_adopt_items(ps, json_incref(ld->items));
    ps->failed = ld->count[5];
    snprintf(ps->summary, sizeof ps->summary,
             "%zu waiting, %zu running, %zu stopping, %zu finished, %zu stopped, %zu failed, %zu canceled",
             ld->count[0], ld->count[1], ld->count[2], ld->count[3], ld->count[4], ld->count[5], ld->count[6]);
    panes_jobs_abandon(ps);
}

/* Next page size: the step took ms of budget_ms; halve or double so the
 * next one fits, within the page bounds. */
static int jobs_next_page(int page, long long ms, long long budget_ms)
{
    if (ms > budget_ms && page / 2 >= JOBS_PAGE_MIN)
        return page / 2;
    if (ms * 2 < budget_ms && page * 2 <= JOBS_PAGE_MAX)
        return page * 2;
    return page;
}

/* The rows read so far join the table on screen. */
static void jobs_merge_staged(pane_state *ps, long long now)
{
    grid_append_rows(&ps->g, &ps->loading->staged);
    grid_apply(&ps->g);
    ps->loading->merged_ms = now;
}

int panes_jobs_step(session *c, const pane_view *v, pane_state *ps, long long budget_ms, int shown)
{
    struct pane_loading *ld = ps->loading;
    char line[512];
    if (!ld)
        return PANES_STEP_DONE;
    /* Just shown with nothing in it yet: the rows read so far, at once. */
    if (shown && ld->into_table && ps->g.nrows == 0 && ld->staged.nrows > 0) {
        jobs_merge_staged(ps, rdtime_mono_ms());
        return PANES_STEP_SHOWN;
    }
    long long t0 = rdtime_mono_ms();
    snprintf(line, sizeof line, "%s --limit %d", v->list_cmd, ld->page);
    if (ld->after[0]) {
        snprintf(line + strlen(line), sizeof line - strlen(line), " --after ");
        prompt_quote_word(line, sizeof line, ld->after);
    }
    json_t *res = panes_run(c, ps, line);
    const char *next = json_string_value(json_object_get(res, "next"));
    if (res) {
        const json_t *page = json_object_get(res, "items");
        jobs_add_page(v, &ld->staged, page, ld->items, ld->known, ps->why_slow, ld->count);
        ld->nread += json_array_size(page);
    }
    snprintf(ld->after, sizeof ld->after, "%s", next ? next : "");
    json_decref(res);
    long long now = rdtime_mono_ms();
    ld->page = jobs_next_page(ld->page, now - t0, budget_ms);
    if (!ld->after[0]) {   /* the last page, or a refusal (noted) */
        jobs_finish(ps);
        return PANES_STEP_DONE | PANES_STEP_SHOWN;
    }
    if (!ld->into_table)
        return 0;
    jobs_loading_summary(ps);
    /* A sorted or filtered view is made again from every row when rows
     * join it: while the table is on screen that is done now and then, not
     * per page, so keys between pages find it ready. */
    if (shown && (ps->g.nrows == 0 || now - ld->merged_ms >= JOBS_MERGE_MS))
        jobs_merge_staged(ps, now);
    return shown ? PANES_STEP_SHOWN : 0;
}

void panes_load_jobs(session *c, const pane_view *v, pane_state *ps)
{
    if (!panes_jobs_begin(v, ps))
        return;
    while (!(panes_jobs_step(c, v, ps, JOBS_SYNC_MS, 0) & PANES_STEP_DONE))
        ;
}

/* The @why column's index, or -1. */
static int jobs_why_column(const pane_view *v)
{
    for (size_t k = 0; k < v->ncols; k++)
        if (strcmp(v->cols[k].field, "@why") == 0)
            return (int)k;
    return -1;
}

void panes_jobs_update_rows(const pane_view *v, pane_state *ps, const json_t *changed)
{
    int why = jobs_why_column(v);
    if (why < 0 || v->ncols > 16)
        return;
    grid one;
    grid_init(&one, v->ncols);
    for (size_t r = 0; r < ps->g.nrows && json_object_size(changed) > 0; r++) {
        const json_t *job = json_object_get(changed, ps->g.rows[r].key);
        if (!job)
            continue;
        /* The row as it is but for its reason: the rest did not change. */
        const char *cells[16];
        char text[256];
        for (size_t k = 0; k < v->ncols; k++)
            cells[k] = ps->g.rows[r].cells[k];
        panes_value_text(json_object_get(job, "why"), "", text, sizeof text);
        cells[why] = text;
        grid_row *row = grid_add_row(&one, ps->g.rows[r].key, cells);
        if (!row)
            continue;
        row->bar = ps->g.rows[r].bar;
        grid_swap_row(&ps->g, r, &one);
        grid_clear_rows(&one);
    }
    grid_free(&one);
}

static const pane_view job_views[] = {
    { .title = "Jobs", .list_cmd = JOB_LIST, PANE_COLS(job_cols), .cell = job_cell, .key_field = "id",
      .show_cmd = "job show", .remove_cmd = "job stop", .remove_verb = "stop",
      .empty_note = "No jobs yet: press a to submit a job spec.", .load = panes_load_jobs,
      .add_form = FORM_JOB_SUBMIT, .kinds = LK_JOBS | LK_NODES | LK_PRICES, .names = NAMES_JOB },
    { .title = "Projects", .list_cmd = "project list", PANE_COLS(project_cols), .key_field = "name",
      .show_cmd = "project show", .empty_note = "No projects you own or share.",
      .add_form = FORM_PROJECT_CREATE, .edit_form = FORM_PROJECT_SET, .key_prefix = "owner", .key_sep = '/',
      .kinds = LK_PROJECTS, .owner_field = "owner", .names = NAMES_PROJECT },
    /* what a job without an image runs (environment add/remove: ':') */
    { .title = "Environments", .list_cmd = "environment list", PANE_COLS(environment_cols), .key_field = "name",
      .remove_cmd = "environment remove", .remove_verb = "remove",
      .empty_note = "No environments: a job without an image is refused (':environment add NAME --image IMAGE ...').",
      .kinds = LK_ENVIRONMENTS },
};

const pane_def pane_jobs = {
    .name = "Jobs", .mid = "Jobs", .tiny = "Jobs", .key = '6', PANE_VIEWS(job_views),
};

/* Whether job still needs asking: never asked (pass 0), or asked before
 * the last load (pass 1). */
static int why_wanted(const json_t *job, int pass)
{
    const char *why = json_string_value(json_object_get(job, "why"));
    if (!why)
        return 0;
    return pass == 0 ? strcmp(why, WHY_PENDING) == 0 : json_is_true(json_object_get(job, "why_again"));
}

int panes_jobs_explain_more(session *c, long long budget_ms)
{
    pane_state *ps = &c->screens[PANE_JOBS].tables[0];
    const pane_view *v = &job_views[0];
    if (!ps->loaded || ps->stale || ps->loading)
        return 0;
    const pane_state *nodes = &c->screens[PANE_NODES].tables[0];
    if (nodes->loaded && nodes->g.nrows > WHY_MAX_NODES)
        ps->why_slow = 1;
    long long deadline = rdtime_mono_ms() + budget_ms;
    size_t i;
    json_t *job, *changed = json_object();
    for (int pass = 0; pass < 2; pass++) {
        json_array_foreach(ps->items, i, job) {
            if (!why_wanted(job, pass))
                continue;
            if (ps->why_slow) {
                /* Too slow to ask while the operator may type: Enter asks. */
                if (pass == 0) {
                    json_object_set_new(job, "why", json_string(WHY_ENTER));
                    json_object_set(changed, json_string_value(json_object_get(job, "id")), job);
                }
                json_object_del(job, "why_again");
                continue;
            }
            if (rdtime_mono_ms() > deadline)
                goto done;
            long long t0 = rdtime_mono_ms();
            panes_explain_job(c, job);
            json_object_del(job, "why_again");
            ps->why_slow = rdtime_mono_ms() - t0 > WHY_SLOW_MS;
            json_object_set(changed, json_string_value(json_object_get(job, "id")), job);
        }
    }
done:;
    int any = json_object_size(changed) > 0;
    if (any) {
        panes_jobs_update_rows(v, ps, changed);
        grid_apply(&ps->g);
    }
    json_decref(changed);
    return any;
}
