/* Unit tests of following the store: which kind a changed key is, and
 * which tables a change makes stale (the rest are not re-read), and the
 * background sync's summary of a `cloud sync` report. */
#include "testutil.h"

#include "live.h"
#include "panes.h"
#include "panes_int.h"
#include "sync.h"
#include "timing.h"

static void test_key_kinds(void **state)
{
    (void)state;
    assert_int_equal(live_key_kind("/rigdeck/nodes/gpu-01"), LK_NODES);
    assert_int_equal(live_key_kind("/rigdeck/device-configs/edge/cam"), LK_CONFIGS);
    assert_int_equal(live_key_kind("/rigdeck/devices/cam-01"), LK_DEVICES);
    assert_int_equal(live_key_kind("/rigdeck/ledger/transfers/x"), LK_LEDGER);
    assert_int_equal(live_key_kind("/rigdeck/audit/000123"), LK_AUDIT);
    assert_int_equal(live_key_kind("/rigdeck/gpus/z9"), LK_PRICES);
    assert_int_equal(live_key_kind("/rigdeck/minions/m-01"), LK_OTHER);
    assert_int_equal(live_key_kind("/rigdeck/agents/n1"), LK_NODES);
    assert_int_equal(live_key_kind("/rigdeck/agent-alive/n1"), LK_NODES);
    assert_int_equal(live_key_kind("/elsewhere/nodes/x"), LK_OTHER);
}

static session *fresh(void)
{
    static session c;
    panes_free(&c);
    memset(&c, 0, sizeof c);
    panes_init(&c);
    for (int p = 0; p < PANE_COUNT; p++)
        for (int v = 0; v < PANE_MAX_VIEWS; v++) {
            c.screens[p].tables[v].stale = 0;
            c.screens[p].tables[v].loaded = 1;
        }
    c.screens[PANE_NODES].tables[0].items = json_array();
    return &c;
}

static int stale_count(const session *c)
{
    int n = 0;
    for (int p = 0; p < PANE_COUNT; p++)
        for (int v = 0; v < PANE_MAX_VIEWS; v++)
            n += pane_view_get(p, v) && c->screens[p].tables[v].stale;
    return n;
}

static void test_follow_marks_only_affected(void **state)
{
    (void)state;
    live_state l;
    memset(&l, 0, sizeof l);

    /* A datastore added: only the Datastores table, and the audit trail. */
    session *c = fresh();
    l.kinds = LK_DATASTORES | LK_AUDIT;
    l.births = LK_DATASTORES | LK_AUDIT;
    panes_follow(c, &l);
    assert_true(c->screens[PANE_STORES].tables[0].stale);
    assert_true(c->screens[PANE_AUDIT].tables[0].stale);
    assert_int_equal(stale_count(c), 2);

    /* A node changed (none listed to patch): Nodes is patched in place, the
     * Jobs and Quotas tables, the Dashboard and the Fleet map that depend
     * on nodes go stale, Regions not. */
    c = fresh();
    l.kinds = LK_NODES;
    l.births = 0;
    panes_follow(c, &l);
    assert_false(c->screens[PANE_NODES].tables[0].stale);
    assert_true(c->screens[PANE_JOBS].tables[0].stale);
    assert_true(c->screens[PANE_QUOTAS].tables[0].stale);
    assert_true(c->screens[PANE_DASHBOARD].tables[0].stale);
    assert_true(c->screens[PANE_FLEET].tables[0].stale);
    assert_false(c->screens[PANE_REGIONS].tables[0].stale);
    assert_int_equal(stale_count(c), 4);

    /* Vital stats: only the Dashboard and the Fleet map (its GPU use and
     * temperature); alerts: the Dashboard and both tables of the Alerts
     * pane. */
    c = fresh();
    l.kinds = LK_METRICS;
    panes_follow(c, &l);
    assert_true(c->screens[PANE_DASHBOARD].tables[0].stale);
    assert_true(c->screens[PANE_FLEET].tables[0].stale);
    assert_int_equal(stale_count(c), 2);
    c = fresh();
    l.kinds = LK_ALERTS;
    panes_follow(c, &l);
    assert_true(c->screens[PANE_DASHBOARD].tables[0].stale);
    assert_true(c->screens[PANE_ALERTS].tables[0].stale && c->screens[PANE_ALERTS].tables[1].stale);
    assert_int_equal(stale_count(c), 3);
    /* A device: the Devices table and the Fleet map, which shows them. */
    c = fresh();
    l.kinds = LK_DEVICES;
    panes_follow(c, &l);
    assert_true(c->screens[PANE_DEVICES].tables[0].stale);
    assert_true(c->screens[PANE_FLEET].tables[0].stale);
    assert_int_equal(stale_count(c), 2);
    l.kinds = LK_NODES;

    /* An environment added or removed: only the Jobs pane's Environments. */
    c = fresh();
    l.kinds = l.births = LK_ENVIRONMENTS;
    panes_follow(c, &l);
    assert_true(c->screens[PANE_JOBS].tables[2].stale);
    assert_int_equal(stale_count(c), 1);
    assert_int_equal(live_key_kind("/rigdeck/environments/pytorch-1.13-py39"), LK_ENVIRONMENTS);
    l.kinds = LK_NODES;
    l.births = 0;

    /* A node created: the Regions table counts nodes, so it goes too. */
    c = fresh();
    l.births = LK_NODES;
    panes_follow(c, &l);
    assert_true(c->screens[PANE_REGIONS].tables[0].stale);

    /* Too many nodes to patch: Nodes is read again. */
    c = fresh();
    l.overflow = 1;
    panes_follow(c, &l);
    assert_true(c->screens[PANE_NODES].tables[0].stale);

    /* After a reconnect everything is. */
    c = fresh();
    l.kinds = l.births = LK_ALL;
    panes_follow(c, &l);
    assert_int_equal(stale_count(c), 23);   /* 19 tables (Environments too), the Dashboard, two Alerts tables, the Fleet map */

    /* A key, dataset, checkpoint or model: the four data views of pane 8. */
    c = fresh();
    l.overflow = 0;
    l.kinds = live_key_kind("/rigdeck/datasets/alice/PASCAL VOC");
    l.births = 0;
    panes_follow(c, &l);
    for (int v = 2; v < 6; v++)
        assert_true(c->screens[PANE_STORES].tables[v].stale);
    assert_int_equal(stale_count(c), 4);
    assert_int_equal(live_key_kind("/rigdeck/keys/alice/aws"), LK_DATA);
    panes_free(c);
}

static void test_sync_describe(void **state)
{
    char out[256];
    (void)state;
    json_t *r = json_pack("{s:[{s:s}], s:[{s:s}], s:[{s:s}], s:[], s:[]}", "regions", "name", "burst", "created",
                          "node", "burst-storage", "activated", "node", "burst-storage", "errors", "released");
    assert_int_equal(sync_describe(r, out, sizeof out), 0);
    assert_string_equal(out, "1 created, 1 activated");
    json_array_append_new(json_object_get(r, "errors"), json_pack("{s:s}", "message", "quota exceeded"));
    assert_int_equal(sync_describe(r, out, sizeof out), 1);
    assert_string_equal(out, "1 created, 1 activated; 1 error: quota exceeded");
    json_decref(r);
    r = json_pack("{s:[{s:s}]}", "regions", "name", "burst");
    sync_describe(r, out, sizeof out);
    assert_string_equal(out, "1 GCP region, nothing to change");
    json_decref(r);
}

/* Waiting jobs the load left unexplained get their `job why` reason from
 * idle time, against a real store. */
static void test_jobs_explained_while_idle(void **state)
{
    (void)state;
    char dir[512], url[600];
    testutil_tmpdir(dir, sizeof dir);
    snprintf(url, sizeof url, "sqlite:%s/s.db", dir);
    static rd_options opt;
    static session c;
    memset(&c, 0, sizeof c);
    c.opt = &opt;
    c.ctx.store_url = url;
    c.ctx.actor = "default";
    panes_init(&c);
    static const char *const setup[] = {
        "account deposit default 100", "job submit tests/specs/sched/a100-1.yaml",
        "job submit tests/specs/sched/rtx-1.yaml",
    };
    for (size_t i = 0; i < sizeof setup / sizeof setup[0]; i++) {
        json_t *res = NULL;
        rd_err err;
        assert_int_equal(session_exec_line(&c, setup[i], &res, &err), RD_OK);
        json_decref(res);
    }
    pane_load(&c, PANE_JOBS, 0);
    pane_state *ps = &c.screens[PANE_JOBS].tables[0];
    assert_int_equal(ps->g.nrows, 2);
    /* As a load that ran out of time leaves them. */
    size_t i;
    json_t *job;
    json_array_foreach(ps->items, i, job)
        json_object_set_new(job, "why", json_string("(asking job why...)"));
    assert_int_equal(panes_jobs_explain_more(&c, 1000), 1);
    json_array_foreach(ps->items, i, job) {
        const char *why = json_string_value(json_object_get(job, "why"));
        assert_non_null(why);
        assert_true(strlen(why) > 0);
        assert_null(strstr(why, "asking"));
    }
    /* The rows show it too, and nothing is left to ask. */
    assert_null(strstr(ps->g.rows[0].cells[7], "asking"));
    assert_int_equal(panes_jobs_explain_more(&c, 1000), 0);
    /* Where one `job why` is slower than a keystroke may wait, idle time
     * asks nothing and the rows say Enter explains. */
    ps->why_slow = 1;
    json_array_foreach(ps->items, i, job)
        json_object_set_new(job, "why", json_string("(asking job why...)"));
    assert_int_equal(panes_jobs_explain_more(&c, 1000), 1);
    assert_string_equal(ps->g.rows[0].cells[7], "(Enter explains)");
    /* On a fleet of more than WHY_MAX_NODES nodes nothing is asked even
     * once: the first answer alone would hold the keys for a second. */
    ps->why_slow = 0;
    json_array_foreach(ps->items, i, job)
        json_object_set_new(job, "why", json_string("(asking job why...)"));
    pane_state *nodes = &c.screens[PANE_NODES].tables[0];
    nodes->loaded = 1;
    for (int n = 0; n <= WHY_MAX_NODES; n++) {
        char name[32];
        snprintf(name, sizeof name, "n%05d", n);
        const char *cells[16] = { name };   /* the rest show as "-" */
        grid_add_row(&nodes->g, name, cells);
    }
    assert_int_equal(panes_jobs_explain_more(&c, 1000), 1);
    assert_true(ps->why_slow);
    assert_string_equal(ps->g.rows[0].cells[7], "(Enter explains)");
    assert_string_equal(ps->g.rows[1].cells[7], "(Enter explains)");
    panes_free(&c);
    cmd_ctx_close(&c.ctx);
}

/* The decisive reason first, then node counts, largest first. */
static void test_why_text(void **state)
{
    char out[400];
    (void)state;
    json_t *why = json_pack("{s:[s, s, s, s]}", "reasons", "29 nodes not active compute nodes",
                            "169 nodes of a GPU type the job does not accept", "8 nodes in other regions",
                            "the paying account 'erik' has no credit left");
    panes_why_text(why, out, sizeof out);
    assert_string_equal(out, "the paying account 'erik' has no credit left; 169 nodes of a GPU type the job does not "
                             "accept; 29 nodes not active compute nodes; 8 nodes in other regions");
    json_decref(why);
    why = json_pack("{s:[], s:[{s:s, s:i}]}", "reasons", "constraints", "constraint", "gpu_type", "ruled_out", 4);
    panes_why_text(why, out, sizeof out);
    assert_string_equal(out, "gpu_type rules out 4");
    json_decref(why);
}

/* First frame, first table, and a key timed to the frame that answers it
 * (a "Loading..." frame does not). */
static void test_timing(void **state)
{
    (void)state;
    static timing t;
    setenv("RIGDECK_CONSOLE_TIMING", "/dev/null", 1);
    timing_init(&t, 1000);
    timing_frame(&t, 1004, 0);
    timing_frame(&t, 1600, 1);
    assert_int_equal(t.first_frame_ms, 4);
    assert_int_equal(t.first_table_ms, 600);
    timing_key(&t, '2', 2000);
    timing_key(&t, 'j', 2001);          /* typed ahead: shares the frame */
    timing_frame(&t, 2003, 0);
    assert_int_equal(t.nkeys, 0);
    timing_frame(&t, 2450, 1);
    assert_int_equal(t.nkeys, 1);
    assert_int_equal(t.key_ms[0], 450);
    assert_int_equal(t.keys[0], '2');
    long long sorted[] = { 1, 2, 3, 4, 100 };
    assert_int_equal(timing_percentile(sorted, 5, 50), 3);
    assert_int_equal(timing_percentile(sorted, 5, 100), 100);
    unsetenv("RIGDECK_CONSOLE_TIMING");
    timing_init(&t, 0);
    timing_key(&t, 'j', 5);
    timing_frame(&t, 9, 1);
    assert_int_equal(t.nkeys, 0);       /* not recording */
}

static void run_line(session *c, const char *line)
{
    json_t *res = NULL;
    rd_err err;
    if (session_exec_line(c, line, &res, &err) != RD_OK)
        fail_msg("%s: %s", line, err.msg);
    json_decref(res);
}

/* The Jobs table read in idle time, a page per step: started once the
 * first table is on screen, rows shown as they come with the sort and
 * filter chosen meanwhile, "loading" in the summary until the last page;
 * a read again keeps the old rows until the new ones are all there. */
static void test_jobs_read_in_steps(void **state)
{
    (void)state;
    char dir[512], url[600];
    testutil_tmpdir(dir, sizeof dir);
    snprintf(url, sizeof url, "sqlite:%s/s.db", dir);
    static rd_options opt;
    static session c;
    memset(&c, 0, sizeof c);
    c.opt = &opt;
    c.ctx.store_url = url;
    c.ctx.actor = "default";
    panes_init(&c);
    run_line(&c, "account deposit default 1000");
    for (int i = 0; i < 150; i++)
        run_line(&c, i % 2 ? "job submit tests/specs/sched/a100-1.yaml" : "job submit tests/specs/sched/rtx-1.yaml");
    pane_state *ps = &c.screens[PANE_JOBS].tables[0];
    /* Not before the first table is read. */
    c.pane = PANE_NODES;
    assert_int_equal(panes_prefetch(&c), 0);
    assert_false(panes_loading(&c));
    pane_load(&c, PANE_NODES, 0);
    assert_int_equal(panes_prefetch(&c), 1);
    assert_true(panes_loading(&c));
    assert_int_equal(panes_prefetch(&c), 0);    /* one read at a time */

    /* A page read while Nodes shows stays aside. */
    ps->g.sort_col = 0;
    ps->g.sort_desc = 1;
    snprintf(ps->g.filter, sizeof ps->g.filter, "job-");
    assert_int_equal(panes_load_step(&c, 1000), 0);
    assert_int_equal(ps->g.nrows, 0);
    /* The operator goes to Jobs (sorted by id descending, filtered): the
     * next step shows the rows read so far, before reading more. */
    c.pane = PANE_JOBS;
    int r = panes_load_step(&c, 1000);
    assert_int_equal(r, PANES_STEP_SHOWN);
    assert_false(ps->loaded);
    assert_int_equal(ps->g.nrows, 100);          /* the first page */
    assert_int_equal(ps->g.nview, 100);
    assert_non_null(strstr(ps->summary, "loading: 100 jobs read so far"));
    for (size_t i = 1; i < ps->g.nview; i++)
        assert_true(strcmp(ps->g.rows[ps->g.view[i - 1]].key, ps->g.rows[ps->g.view[i]].key) > 0);
    while (!(panes_load_step(&c, 1000) & PANES_STEP_DONE))
        ;
    assert_false(panes_loading(&c));
    assert_true(ps->loaded);
    assert_false(ps->stale);
    assert_int_equal(ps->g.nrows, 150);
    assert_int_equal(ps->g.nview, 150);
    for (size_t i = 1; i < ps->g.nview; i++)
        assert_true(strcmp(ps->g.rows[ps->g.view[i - 1]].key, ps->g.rows[ps->g.view[i]].key) > 0);
    assert_non_null(strstr(ps->summary, "150 waiting"));
    /* Of a waiting job the table keeps its id and reason: the row has the rest. */
    assert_int_equal(json_array_size(ps->items), 150);
    json_t *kept = json_array_get(ps->items, 0);
    assert_non_null(json_string_value(json_object_get(kept, "id")));
    assert_non_null(json_string_value(json_object_get(kept, "why")));
    assert_true(json_object_size(kept) <= 3);

    /* Read again while another pane shows: the old rows stay until the
     * last page is in; a change meanwhile asks for one more read. */
    run_line(&c, "job submit tests/specs/sched/a100-1.yaml");
    c.pane = PANE_NODES;
    assert_int_equal(pane_load_start(&c, PANE_JOBS, 0), 1);
    assert_int_equal(panes_load_step(&c, 1000), 0);
    assert_int_equal(ps->g.nrows, 150);
    assert_non_null(strstr(ps->summary, "150 waiting"));
    ps->stale = 1;
    while (!(panes_load_step(&c, 1000) & PANES_STEP_DONE))
        ;
    assert_int_equal(ps->g.nrows, 151);
    assert_non_null(strstr(ps->summary, "151 waiting"));
    assert_true(ps->stale);
    /* A table read at once meanwhile ends the read in steps. */
    assert_int_equal(pane_load_start(&c, PANE_JOBS, 0), 1);
    pane_load(&c, PANE_JOBS, 0);
    assert_false(panes_loading(&c));
    assert_int_equal(ps->g.nrows, 151);
    /* Tables read at once are not read in steps. */
    assert_int_equal(pane_load_start(&c, PANE_NODES, 0), 0);
    panes_free(&c);
    cmd_ctx_close(&c.ctx);
}

/* Changed nodes are re-read one by one into the loaded table: changed,
 * added and removed, with the table and its summary right afterwards. */
static void test_patch_nodes(void **state)
{
    (void)state;
    char dir[512], url[600], line[256];
    testutil_tmpdir(dir, sizeof dir);
    snprintf(url, sizeof url, "sqlite:%s/s.db", dir);
    static rd_options opt;
    static session c;
    memset(&c, 0, sizeof c);
    c.opt = &opt;
    c.ctx.store_url = url;
    c.ctx.actor = "default";
    panes_init(&c);
    run_line(&c, "provider enable physical");
    run_line(&c, "region create lab --provider physical --storage local");
    for (int i = 1; i <= 3; i++) {
        snprintf(line, sizeof line, "node add lab n%d --agent none --minion m%d --inventory tests/inventories/a100x4.yaml", i, i);
        run_line(&c, line);
    }
    pane_load(&c, PANE_NODES, 0);
    pane_state *ps = &c.screens[PANE_NODES].tables[0];
    assert_int_equal(ps->g.nrows, 3);
    run_line(&c, "node maintenance n1 off");
    run_line(&c, "node remove n2");
    run_line(&c, "node add lab n4 --agent none --minion m4 --inventory tests/inventories/a100x4.yaml");
    live_state l;
    memset(&l, 0, sizeof l);
    static char *keys[] = { "/rigdeck/nodes/n1", "/rigdeck/nodes/n2", "/rigdeck/nodes/n4" };
    for (size_t i = 0; i < 3; i++)
        l.changed[l.nchanged++] = keys[i];
    assert_int_equal(panes_patch_nodes(&c, &l), 1);
    assert_int_equal(ps->g.nrows, 3);
    assert_int_equal(json_array_size(ps->items), 3);
    const char *names[3];
    size_t i;
    json_t *item;
    json_array_foreach(ps->items, i, item)
        names[i] = json_string_value(json_object_get(item, "name"));
    assert_string_equal(names[0], "n1");
    assert_string_equal(names[1], "n3");
    assert_string_equal(names[2], "n4");
    assert_string_equal(json_string_value(json_object_get(json_array_get(ps->items, 0), "state")), "active");
    assert_non_null(strstr(ps->summary, "1 active"));
    /* An agent's keys name their node: a changed agent document or alive
     * key re-reads that node (its "agent" then an object from `node show`). */
    memset(&l, 0, sizeof l);
    static char *agent_keys[] = { "/rigdeck/agents/n3", "/rigdeck/agent-alive/n3" };
    for (size_t k = 0; k < 2; k++)
        l.changed[l.nchanged++] = agent_keys[k];
    json_object_del(json_array_get(ps->items, 1), "agent");
    assert_int_equal(panes_patch_nodes(&c, &l), 1);
    assert_int_equal(json_array_size(ps->items), 3);
    const json_t *agent = json_object_get(json_array_get(ps->items, 1), "agent");
    assert_string_equal(json_string_value(json_object_get(agent, "state")), "none");
    /* Too many to patch: the caller reads the table again. */
    l.overflow = 1;
    assert_int_equal(panes_patch_nodes(&c, &l), 0);
    panes_free(&c);
    cmd_ctx_close(&c.ctx);
}

/* Node capacity cells: GPUs on a GPU node, cores on a CPU-only node, and
 * nothing to measure on a node without an inventory. */
static void test_node_capacity_cells(void **state)
{
    (void)state;
    const pane_view *v = pane_view_get(PANE_NODES, 0);
    size_t gpus = 0, util = 0;
    for (size_t k = 0; k < v->ncols; k++) {
        if (strcmp(v->cols[k].field, "@gpus") == 0)
            gpus = k;
        if (strcmp(v->cols[k].field, "@util") == 0)
            util = k;
    }
    assert_true(gpus && util);
    pane_state ps;
    memset(&ps, 0, sizeof ps);
    grid_init(&ps.g, v->ncols);
    json_t *items = json_pack("[{s:s, s:i, s:f}, {s:s, s:i, s:i, s:i, s:i}, {s:s, s:i, s:i}]",
                              "name", "gpu-01", "gpu_count", 8, "gpus_used", 2.5,
                              "name", "cpu-01", "gpu_count", 0, "gpus_used", 0, "cpu_cores", 64, "cpus_used", 16,
                              "name", "new-01", "gpu_count", 0, "gpus_used", 0);
    panes_fill_rows(v, &ps, items);
    assert_int_equal(ps.g.nrows, 3);
    assert_string_equal(ps.g.rows[0].cells[gpus], "2.5/8");
    assert_string_equal(ps.g.rows[0].cells[util], "31%");
    assert_string_equal(ps.g.rows[1].cells[gpus], "16/64 cpu");
    assert_string_equal(ps.g.rows[1].cells[util], "25%");
    assert_true(ps.g.rows[1].bar > 0.24 && ps.g.rows[1].bar < 0.26);
    assert_string_equal(ps.g.rows[2].cells[gpus], "-");
    assert_string_equal(ps.g.rows[2].cells[util], "-");
    assert_true(ps.g.rows[2].bar < 0);
    json_decref(items);
    grid_free(&ps.g);
}

/* Numbers as cells: whole ones without a fraction, others to two places
 * without trailing zeros; strings cut to the buffer as snprintf would. */
static void test_cell_text(void **state)
{
    (void)state;
    char out[8];
    static const struct { double d; const char *text; } nums[] = {
        { 4, "4" }, { 0, "0" }, { -3, "-3" }, { 2.5, "2.5" }, { 0.25, "0.25" }, { 1234567, "1234567" },
        { 3.1, "3.1" }, { -0.5, "-0.5" },
    };
    for (size_t i = 0; i < sizeof nums / sizeof *nums; i++) {
        panes_number_text(nums[i].d, out, sizeof out);
        assert_string_equal(out, nums[i].text);
    }
    json_t *v = json_string("a-very-long-name");
    panes_value_text(v, "name", out, sizeof out);
    assert_string_equal(out, "a-very-");
    json_decref(v);
    v = json_integer(12);
    panes_value_text(v, "gpus", out, sizeof out);
    assert_string_equal(out, "12");
    json_decref(v);
}

/* The AGENT column: the word of `node list`, the object of `node show`
 * (a patched row), nothing at all from an older core. */
static void test_agent_cell(void **state)
{
    (void)state;
    char out[32];
    json_t *v = json_string("online");
    panes_agent_text(v, out, sizeof out);
    assert_string_equal(out, "online");
    json_decref(v);
    v = json_pack("{s:s, s:s}", "state", "lost", "last_heartbeat", "2026-01-01T00:00:00Z");
    panes_agent_text(v, out, sizeof out);
    assert_string_equal(out, "lost");
    json_decref(v);
    panes_agent_text(NULL, out, sizeof out);
    assert_string_equal(out, "-");
    v = json_object();
    panes_agent_text(v, out, sizeof out);
    assert_string_equal(out, "-");
    json_decref(v);

    const pane_view *nv = pane_view_get(PANE_NODES, 0);
    size_t col = 0;
    for (size_t k = 0; k < nv->ncols; k++)
        if (strcmp(nv->cols[k].header, "AGENT") == 0)
            col = k;
    assert_true(col);
    assert_true(nv->cols[col].flags & COL_STATE);
    assert_int_equal(nv->cols[col].drop, 0);    /* shown at 80 columns too */
    pane_state ps;
    memset(&ps, 0, sizeof ps);
    grid_init(&ps.g, nv->ncols);
    json_t *items = json_pack("[{s:s, s:s}, {s:s, s:{s:s}}, {s:s, s:s}]", "name", "n1", "agent", "online", "name",
                              "n2", "agent", "state", "lost", "name", "n3", "agent", "none");
    panes_fill_rows(nv, &ps, items);
    assert_string_equal(ps.g.rows[0].cells[col], "online");
    assert_string_equal(ps.g.rows[1].cells[col], "lost");
    assert_string_equal(ps.g.rows[2].cells[col], "none");
    /* Each is coloured by its own theme element. */
    assert_int_equal(theme_state_elem(ps.g.rows[0].cells[col]), TH_STATE_ONLINE);
    assert_int_equal(theme_state_elem(ps.g.rows[1].cells[col]), TH_STATE_LOST);
    assert_int_equal(theme_state_elem(ps.g.rows[2].cells[col]), TH_NORMAL);
    json_decref(items);
    grid_free(&ps.g);
}

/* A waiting job whose workers are placed but not started yet says so
 * instead of asking `job why` (which judges it as unplaced). */
static void test_job_starting(void **state)
{
    (void)state;
    char out[160];
    json_t *job = json_pack("{s:s, s:[{s:s, s:s}, {s:s, s:n}]}", "state", "waiting_gpus", "workers", "state",
                            "starting", "node", "n1", "state", "waiting_gpus", "node");
    assert_int_equal(panes_job_starting(job, out, sizeof out), 1);
    assert_string_equal(out, "starting on n1 (its agent starts it)");
    json_object_set_new(json_array_get(json_object_get(job, "workers"), 1), "state", json_string("starting"));
    assert_int_equal(panes_job_starting(job, out, sizeof out), 1);
    assert_string_equal(out, "2 workers starting (their agents start them)");
    json_decref(job);
    job = json_pack("{s:s, s:[{s:s}]}", "state", "waiting_gpus", "workers", "state", "waiting_gpus");
    assert_int_equal(panes_job_starting(job, out, sizeof out), 0);
    json_decref(job);
}

/* Every account has a project called "default": the Jobs table names the
 * owner too. */
static void test_job_project_cell(void **state)
{
    (void)state;
    const pane_view *v = pane_view_get(PANE_JOBS, 0);
    size_t col = 0;
    for (size_t k = 0; k < v->ncols; k++)
        if (strcmp(v->cols[k].header, "PROJECT") == 0)
            col = k;
    assert_true(col);
    pane_state ps;
    memset(&ps, 0, sizeof ps);
    grid_init(&ps.g, v->ncols);
    json_t *items = json_pack("[{s:s, s:s, s:s, s:s}]", "id", "job-1", "state", "waiting_gpus", "project", "default",
                              "project_owner", "erik");
    panes_fill_rows(v, &ps, items);
    assert_string_equal(ps.g.rows[0].cells[col], "erik/default");
    json_decref(items);
    grid_free(&ps.g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_key_kinds),
        cmocka_unit_test(test_follow_marks_only_affected),
        cmocka_unit_test(test_sync_describe),
        cmocka_unit_test(test_jobs_explained_while_idle),
        cmocka_unit_test(test_jobs_read_in_steps),
        cmocka_unit_test(test_why_text),
        cmocka_unit_test(test_timing),
        cmocka_unit_test(test_patch_nodes),
        cmocka_unit_test(test_node_capacity_cells),
        cmocka_unit_test(test_job_project_cell),
        cmocka_unit_test(test_agent_cell),
        cmocka_unit_test(test_cell_text),
        cmocka_unit_test(test_job_starting),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
