/* Unit tests of the scheduler's index and pass (sched_index.c, sched_run.c)
 * on a real SQLite store: the indexed pick equals a scan of sched_check over
 * the fleet on random fleets (agent-managed nodes with and without their
 * agent online among them), and a batch of placements that loses a race
 * is re-read and re-placed without giving a GPU twice or undoing the other
 * writer's change. */
#include "node_capacity.h"
#include "testutil.h"

#include "cmd.h"
#include "ledger.h"
#include "sched_index.h"
#include "sched_idle.h"
#include "sched_queue.h"
#include "sched_run.h"
#include "tx.h"

static char dir[256];

static void open_ctx(cmd_ctx *ctx, const char *name, char *url, size_t len)
{
    rd_err err;
    snprintf(url, len, "sqlite:%s/%s.db", dir, name);
    memset(ctx, 0, sizeof *ctx);
    ctx->store_url = url;
    ctx->actor = "default";
    ctx->now = 1793491200;   /* 2026-11-01T00:00:00Z */
    assert_int_equal(cmd_ctx_open_store(ctx, &err), RD_OK);
}

static void put(rd_tx *tx, const char *key, json_t *doc)
{
    rd_err err;
    assert_non_null(doc);
    assert_int_equal(tx_put(tx, key, doc, &err), RD_OK);
}

static void commit(rd_tx *tx)
{
    rd_err err;
    assert_int_equal(tx_commit(tx, NULL, &err), RD_OK);
    tx_reset(tx);
}

static json_t *job_doc(const char *id, const char *type, int64_t x100, int64_t disk, const char *pin, json_t *max)
{
    json_t *types = strcmp(type, "any") == 0 ? json_pack("[s, s]", "a100", "t4") : json_pack("[s]", type);
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:s, s:s, s:{s:o, s:I, s:I, s:i, s:o}, s:[{s:i, s:s, s:n, s:[]}]}",
                     "id", id, "name", id, "type", "training", "project", "default", "project_owner", "bob", "creator",
                     "bob", "priority", 0, "submitted_at", "2026-10-31T23:00:00Z", "region_pin", pin, "resources",
                     "gpu_types", types, "gpus_x100", (json_int_t)x100, "disk_size", (json_int_t)disk, "cpu_count", 4,
                     "max_price_ucr", max, "workers", "index", 0, "state", "waiting_gpus", "started_at", "alloc");
}

/* ---- the indexed pick equals the scan ---------------------------------- */

static void random_fleet(rd_tx *tx)
{
    static const char *const regions[] = { "own", "pub", "priv" };
    static const char *const owners[] = { "bob", "default", "default" };
    static const char *const types[] = { "a100", "t4", "cpu" };
    static const char *const times[] = { "2026-10-01T00:00:00Z", "2026-10-02T00:00:00Z", "2026-10-03T00:00:00Z" };
    char key[RD_KEY_MAX];
    for (int r = 0; r < 3; r++)
        put(tx, tx_key(key, "/rigdeck/regions/%s", regions[r]),
            json_pack("{s:s, s:s, s:b}", "name", regions[r], "owner", owners[r], "public", r != 2));
    put(tx, "/rigdeck/prices/a100", json_pack("{s:s, s:I}", "name", "a100", "price_ucr", (json_int_t)2000000));
    put(tx, "/rigdeck/prices/cpu", json_pack("{s:s, s:I}", "name", "cpu", "price_ucr", (json_int_t)100000));
    for (int i = 0; i < 80; i++) {
        char name[16];
        const char *type = types[rand() % 3];
        int count = strcmp(type, "cpu") == 0 ? 0 : 1 + rand() % 8, sharing = rand() % 2;
        json_t *slots = json_array();
        for (int k = 0; k < count; k++) {
            int used = rand() % 3 == 0 ? 100 : 0;
            if (sharing && rand() % 3 == 0)
                used = 25 * (rand() % 4);
            json_array_append_new(slots, json_integer(used));
        }
        snprintf(name, sizeof name, "n%02d", i);
        json_t *node = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:o, s:b, s:i, s:i, s:i, s:i, s:[]}", "name", name,
                                 "region", regions[rand() % 3], "owner", "default", "role", "compute", "state",
                                 rand() % 8 ? "active" : "maintenance", "gpu_type", type, "gpu_count", count, "gpu_alloc",
                                 slots, "gpu_sharing", sharing, "disk_gb", 500, "disk_used_gb", 100 * (rand() % 5),
                                 "cpu_cores", 8, "cpus_used", 4 * (rand() % 5), "workers");
        json_object_set_new(node, "last_used_at", rand() % 4 ? json_string(times[rand() % 3]) : json_null());
        /* agent-managed nodes, some with their agent offline (in no bucket) */
        int mode = rand() % 4;
        if (mode)
            json_object_set_new(node, "agent_mode", json_string(mode == 1 ? "none" : "required"));
        if (mode >= 2)
            json_object_set_new(node, "agent_online", json_boolean(mode == 2));
        put(tx, tx_key(key, "/rigdeck/nodes/%s", name), node);
    }
}

/* Which writes an idle record survives: only keys no pass reads. */
static void test_idle_keys(void **state)
{
    (void)state;
    static const char *const unread[] = { "~rigdeck/txn/00ab", "/rigdeck/audit/0000000000000001-abcd",
                                          "/rigdeck/devices/cam-01", "/rigdeck/device-tenures/alice/x",
                                          "/rigdeck/ledger/transfers/usage/j/0/1", "/rigdeck/minions/m-1",
                                          "/rigdeck/sched/idle", "/rigdeck/work/n1/job-1/0", NULL };
    static const char *const read[] = { "/rigdeck/jobs/job-1", "/rigdeck/nodes/gpu-01", "/rigdeck/regions/dc",
                                        "/rigdeck/prices/a100", "/rigdeck/quotas/gcp/x", "/rigdeck/ledger/accounts/wallet:bob",
                                        "/rigdeck/accounts/bob", "/rigdeck/projects/bob/default", "/rigdeck/sched/config",
                                        "/rigdeck/datastores/lab-nfs", "/rigdeck/something-new/x", "/elsewhere", NULL };
    for (const char *const *k = unread; *k; k++)
        assert_int_equal(sched_idle_key_matters(*k), 0);
    for (const char *const *k = read; *k; k++)
        assert_int_equal(sched_idle_key_matters(*k), 1);
}

static void test_pick_matches_scan(void **state)
{
    static const char *const jtypes[] = { "a100", "t4", "cpu", "any" };
    static const int64_t wants[] = { 25, 50, 75, 100, 200, 400 };
    static const char *const pins[] = { "", "", "own", "pub" };
    cmd_ctx ctx;
    char url[512];
    rd_err err;
    (void)state;
    open_ctx(&ctx, "pick", url, sizeof url);
    ctx.tx = tx_new(ctx.store);
    for (unsigned seed = 1; seed <= 20; seed++) {
        srand(seed);
        store_op wipe = { STORE_OP_DELETE_PREFIX, "/rigdeck/nodes/", NULL, 0, 0 };
        store_txn_result tr;
        assert_int_equal(store_txn(ctx.store, NULL, 0, &wipe, 1, NULL, 0, &tr, &err), RD_OK);
        random_fleet(ctx.tx);
        commit(ctx.tx);
        sched_snapshot s;
        assert_int_equal(sched_load(&ctx, &s, &err), RD_OK);
        tx_reset(ctx.tx);
        int placed = 0;
        for (int n = 0; n < 200; n++) {
            char id[32];
            const char *type = jtypes[rand() % 4];
            int cpu = strcmp(type, "cpu") == 0;
            snprintf(id, sizeof id, "job-%d", n);
            json_t *doc = job_doc(id, type, cpu ? 0 : wants[rand() % 6], 50 * (rand() % 4), pins[rand() % 4],
                                  rand() % 3 ? json_null() : json_integer(1500000));
            if (rand() % 10 == 0) {   /* aged claims of other jobs */
                sched_node *node = &s.nodes[(size_t)rand() % s.nnodes];
                if (!node->claim)
                    node->claim = strdup(rand() % 2 ? id : "job-older");
            }
            sched_job j;
            sched_plan plan;
            sched_offer a, b;
            sched_job_view(doc, &j);
            sched_plan_build(&s, &j, &plan);
            long pi = sched_pick(&s, &j, &plan, &a), si = sched_pick_scan(&s, &j, &b);
            assert_int_equal(pi, si);
            if (pi >= 0) {
                assert_int_equal(a.own, b.own);
                assert_int_equal(a.price_ucr, b.price_ucr);
                assert_int_equal(a.leftover_x100, b.leftover_x100);
                assert_int_equal(sched_check(&s, &j, (size_t)pi, &b), SCHED_OK);
                assert_false(s.nodes[pi].agent_offline);   /* work only where an agent runs */
                json_t *alloc = sched_alloc(&s, (size_t)pi, j.want_x100);
                json_t *node = json_deep_copy(s.nodes[pi].doc);
                node_capacity_take(node, doc, 0, alloc, ctx.now + n);
                sched_node_reset(&s, (size_t)pi, node, NULL, 0);
                for (int k = 0; k < s.nodes[pi].gpu_count; k++)
                    assert_true(s.nodes[pi].slots[k] >= 0 && s.nodes[pi].slots[k] <= 100);
                json_decref(alloc);
                placed++;
            } else if (rand() % 2) {
                sched_claim_for(&s, &j, &plan, NULL, NULL);
            }
            sched_plan_free(&plan);
            json_decref(doc);
        }
        assert_true(placed > 0);
        sched_snapshot_free(&s);
    }
    tx_free(ctx.tx);
    ctx.tx = NULL;
    cmd_ctx_close(&ctx);
}

/* ---- a batch that loses a race ------------------------------------------ */

typedef struct {
    const char *url;
    int calls;
} race;

/* The first time: another writer takes GPU 7 of the node and cancels
 * job-03, after the pass read both. */
static void race_hook(void *data)
{
    race *r = data;
    store_t *st = NULL;
    rd_err err;
    if (r->calls++ > 0)
        return;
    assert_int_equal(store_open(r->url, NULL, &st, &err), RD_OK);
    rd_tx *tx = tx_new(st);
    json_t *node = NULL, *job = NULL;
    assert_int_equal(tx_get(tx, "/rigdeck/nodes/n1", &node, &err), RD_OK);
    json_array_set_new(json_object_get(node, "gpu_alloc"), 7, json_integer(100));
    json_array_append_new(json_object_get(node, "workers"), json_string("job-foreign/0"));
    assert_int_equal(tx_put(tx, "/rigdeck/nodes/n1", node, &err), RD_OK);
    assert_int_equal(tx_get(tx, "/rigdeck/jobs/job-03", &job, &err), RD_OK);
    json_object_set_new(json_array_get(json_object_get(job, "workers"), 0), "state", json_string("canceled"));
    json_object_set_new(job, "state", json_string("canceled"));
    assert_int_equal(tx_put(tx, "/rigdeck/jobs/job-03", job, &err), RD_OK);
    assert_int_equal(tx_commit(tx, NULL, &err), RD_OK);
    tx_free(tx);
    store_close(st);
}

static void test_batch_conflict(void **state)
{
    cmd_ctx ctx;
    char url[512], key[RD_KEY_MAX];
    rd_err err;
    json_t *res = NULL;
    (void)state;
    open_ctx(&ctx, "race", url, sizeof url);
    rd_tx *tx = tx_new(ctx.store);
    put(tx, "/rigdeck/accounts/bob", json_pack("{s:s, s:s, s:b}", "name", "bob", "plan", "team", "admin", 0));
    put(tx, "/rigdeck/regions/r", json_pack("{s:s, s:s, s:b}", "name", "r", "owner", "default", "public", 1));
    put(tx, "/rigdeck/prices/a100", json_pack("{s:s, s:I}", "name", "a100", "price_ucr", (json_int_t)1000000));
    ledger_transfer dep = { "deposit/bob/seed", "external", "wallet:bob", 1000000000LL, "deposit", ctx.now, "test" };
    assert_int_equal(ledger_stage(tx, &dep, NULL, &err), RD_OK);
    put(tx, "/rigdeck/nodes/n1",
        json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:[i,i,i,i,i,i,i,i], s:i, s:i, s:[], s:n}", "name", "n1", "region",
                  "r", "owner", "default", "role", "compute", "state", "active", "gpu_type", "a100", "gpu_count", 8,
                  "gpu_alloc", 0, 0, 0, 0, 0, 0, 0, 0, "gpus_used", 0, "disk_gb", 4000, "workers", "last_used_at"));
    for (int i = 0; i < 10; i++) {
        char id[16];
        snprintf(id, sizeof id, "job-%02d", i);
        json_t *job = job_doc(id, "a100", 100, 50, "", json_null());
        char ts[RDTIME_BUFLEN];
        json_object_set_new(job, "submitted_at", json_string(rdtime_format(ctx.now - 100 + i, ts)));
        put(tx, tx_key(key, "/rigdeck/jobs/%s", id), job);
    }
    commit(tx);
    tx_free(tx);

    race r = { url, 0 };
    sched_run_set_flush_hook(race_hook, &r);
    assert_int_equal(cmd_exec_line(&ctx, "sched run", &res, NULL, &err), RD_OK);
    sched_run_set_flush_hook(NULL, NULL);
    assert_int_equal(r.calls, 2);   /* the first batch lost, the second, re-read, committed */
    assert_int_equal(json_integer_value(json_object_get(res, "placed")), 7);
    assert_int_equal(json_integer_value(json_object_get(res, "waiting")), 2);
    json_decref(res);

    /* The node: the other writer's GPU kept, every GPU given once. */
    assert_int_equal(cmd_exec_line(&ctx, "node show n1", &res, NULL, &err), RD_OK);
    json_t *slots = json_object_get(res, "gpu_alloc");
    for (size_t k = 0; k < 8; k++)
        assert_int_equal(json_integer_value(json_array_get(slots, k)), 100);
    assert_int_equal(json_array_size(json_object_get(res, "workers")), 8);
    json_decref(res);
    assert_int_equal(cmd_exec_line(&ctx, "job show job-03", &res, NULL, &err), RD_OK);
    assert_string_equal(json_string_value(json_object_get(res, "state")), "canceled");
    json_decref(res);
    /* One audit record for the batch that committed, none for the lost one
     * (the other is the store's first account). */
    assert_int_equal(cmd_exec_line(&ctx, "audit list --actor default", &res, NULL, &err), RD_OK);
    size_t runs = 0, i;
    json_t *rec;
    json_array_foreach(json_object_get(res, "items"), i, rec)
        runs += strcmp(json_string_value(json_object_get(rec, "command")), "sched run") == 0;
    assert_int_equal(runs, 1);
    json_decref(res);
    cmd_ctx_close(&ctx);
}

int main(void)
{
    testutil_tmpdir(dir, sizeof dir);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_idle_keys),
        cmocka_unit_test(test_pick_matches_scan),
        cmocka_unit_test(test_batch_conflict),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
