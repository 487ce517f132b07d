/* Unit tests of the agents' work view (serve_work.c): what an entry holds
 * (its own worker only, the sealed environment, nothing billing changes),
 * which workers have one, and how the keeper follows job events and heals
 * the store by a resync (on an SQLite store marked secured). */
#include "testutil.h"

#include "keyspace.h"
#include "serve_work.h"
#include "tx.h"

static char dir[256];

static int setup(void **state)
{
    (void)state;
    testutil_tmpdir(dir, sizeof dir);
    return 0;
}

/* Three workers: 0 running on n1 by its agent, 1 starting on n2, 2 ended
 * on n1 (run by an agent too), plus what billing writes. */
static json_t *sample_job(void)
{
    json_t *job = json_loads(
        "{\"id\": \"job-1\", \"owner\": \"alice\", \"name\": \"train\", \"state\": \"running\","
        " \"type\": \"endpoint\","
        " \"workers_spec\": {\"count\": 3, \"commands\": [\"echo a\", \"echo b\", \"echo c\"]},"
        " \"environment\": {\"image\": \"img\", \"env\": {\"TOKEN\": \"***\"}, \"secret_env\": \"sealed-text\"},"
        " \"system_env\": {\"RIGDECK_JOB\": \"job-1\"}, \"cost_ucr\": 12,"
        " \"resources\": {\"gpus_x100\": 50, \"cpu_count\": null, \"disk_size\": 20},"
        " \"data\": {\"datasets\": [\"d\"], \"input\": null},"
        " \"reservation\": {\"name\": \"web\", \"hostname\": \"web.local\", \"port\": 8080},"
        " \"data_refs\": {\"datasets\": [{\"name\": \"d\", \"source\": \"s3://b/p\"}],"
        "   \"secret_keys\": {\"k\": {\"type\": \"aws\", \"secret_value\": \"sealed-k\"}}},"
        " \"workers\": ["
        "  {\"state\": \"running\", \"node\": \"n1\", \"alloc\": [{\"gpu\": 2}], \"run_by_agent\": true,"
        "   \"billed_until\": \"2026-01-01T00:00:00Z\", \"host\": \"h1\", \"price_ucr\": 5},"
        "  {\"state\": \"starting\", \"node\": \"n2\", \"alloc\": [{\"gpu\": 0}], \"host\": \"h2\"},"
        "  {\"state\": \"finished\", \"node\": \"n1\", \"alloc\": [], \"run_by_agent\": true}"
        " ]}",
        0, NULL);
    assert_non_null(job);
    return job;
}

static void test_entries_content(void **state)
{
    (void)state;
    json_t *job = sample_job(), *out = serve_work_entries(job);
    assert_int_equal(json_object_size(out), 2);
    json_t *e1 = json_object_get(out, KEY_WORK "n1/job-1/0"), *e2 = json_object_get(out, KEY_WORK "n2/job-1/1");
    assert_non_null(e1);
    assert_non_null(e2);
    assert_null(json_object_get(out, KEY_WORK "n1/job-1/2"));   /* ended: no key */
    /* its own worker only, reduced to what the agent reads */
    assert_null(json_object_get(e1, "workers"));
    assert_int_equal(json_integer_value(json_object_get(e1, "index")), 0);
    json_t *w = json_object_get(e1, "worker");
    assert_string_equal(json_string_value(json_object_get(w, "state")), "running");
    assert_string_equal(json_string_value(json_object_get(w, "node")), "n1");
    assert_true(json_is_true(json_object_get(w, "run_by_agent")));
    assert_int_equal(json_integer_value(json_object_get(json_array_get(json_object_get(w, "alloc"), 0), "gpu")), 2);
    assert_null(json_object_get(w, "billed_until"));
    assert_null(json_object_get(w, "host"));
    /* the sealed environment travels; names, not values */
    json_t *env = json_object_get(e1, "environment");
    assert_string_equal(json_string_value(json_object_get(env, "secret_env")), "sealed-text");
    assert_string_equal(json_string_value(json_object_get(json_object_get(env, "env"), "TOKEN")), "***");
    assert_string_equal(json_string_value(json_object_get(e1, "id")), "job-1");
    assert_non_null(json_object_get(e1, "workers_spec"));
    assert_non_null(json_object_get(e1, "system_env"));
    /* the resources the agent limits it to (agent_limits.c) */
    assert_int_equal(json_integer_value(json_object_get(json_object_get(e1, "resources"), "disk_size")), 20);
    /* what staging needs: the data refs, a key's value only sealed */
    assert_non_null(json_object_get(json_object_get(e1, "data"), "datasets"));
    json_t *refs = json_object_get(e1, "data_refs");
    assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(refs, "datasets"), 0),
                                                          "source")), "s3://b/p");
    assert_string_equal(json_string_value(json_object_get(json_object_get(json_object_get(refs, "secret_keys"), "k"),
                                                          "secret_value")), "sealed-k");
    /* a reservation's port and hostname (agent_mdns.c) */
    assert_int_equal(json_integer_value(json_object_get(json_object_get(e1, "reservation"), "port")), 8080);
    assert_string_equal(json_string_value(json_object_get(json_object_get(e1, "reservation"), "hostname")), "web.local");
    /* what a serving worker needs (agent_serve.c): its kind */
    assert_string_equal(json_string_value(json_object_get(e1, "type")), "endpoint");
    /* nothing of billing or the owner's bookkeeping */
    assert_null(json_object_get(e1, "cost_ucr"));
    assert_null(json_object_get(e1, "owner"));
    /* the starting worker on n2 knows nothing of n1's */
    char *text = json_dumps(e2, JSON_COMPACT);
    assert_null(strstr(text, "n1"));
    assert_null(strstr(text, "h1"));
    free(text);
    json_decref(out);
    json_decref(job);
}

static void test_entries_which_workers(void **state)
{
    (void)state;
    json_t *job = sample_job(), *workers = json_object_get(job, "workers");
    /* running but not run by an agent (reported by hand): the agent leaves it */
    json_object_del(json_array_get(workers, 0), "run_by_agent");
    /* stopping, by an agent: it must see it to send SIGTERM */
    json_object_set_new(json_array_get(workers, 2), "state", json_string("stopping"));
    json_t *out = serve_work_entries(job);
    assert_null(json_object_get(out, KEY_WORK "n1/job-1/0"));
    assert_non_null(json_object_get(out, KEY_WORK "n1/job-1/2"));
    assert_non_null(json_object_get(out, KEY_WORK "n2/job-1/1"));
    json_decref(out);
    /* requeued: no node, no key */
    json_object_set_new(json_array_get(workers, 1), "node", json_null());
    json_object_set_new(json_array_get(workers, 1), "state", json_string("waiting_gpus"));
    out = serve_work_entries(job);
    assert_null(json_object_get(out, KEY_WORK "n2/job-1/1"));
    assert_int_equal(json_object_size(out), 1);
    json_decref(out);
    json_decref(job);
}

/* ---- the keeper on a store ------------------------------------------------- */

static int log_lines;
static void count_line(void *data, const char *line)
{
    (void)data;
    (void)line;
    log_lines++;
}
static rd_time fixed_now(void)
{
    return 1700000000;
}

static void put_text(store_t *st, const char *key, const char *text)
{
    rd_err err = { 0 };
    assert_int_equal(store_put(st, key, text, strlen(text), 0, &err), RD_OK);
}

static void put_doc(store_t *st, const char *key, const json_t *doc)
{
    char *text = json_dumps(doc, JSON_COMPACT);
    put_text(st, key, text);
    free(text);
}

static int has_key(store_t *st, const char *key, int64_t *rev)
{
    store_kv kv;
    int found = 0;
    rd_err err = { 0 };
    assert_int_equal(store_get(st, key, &kv, &found, NULL, &err), RD_OK);
    if (found && rev)
        *rev = kv.mod_revision;
    store_kv_free(&kv);
    return found;
}

/* A watch event for key as the store now holds it (or a deletion). */
static void note_current(serve_work *w, store_t *st, const char *key)
{
    store_event ev = { STORE_EVENT_DELETE, { 0 } };
    int found = 0;
    rd_err err = { 0 };
    assert_int_equal(store_get(st, key, &ev.kv, &found, NULL, &err), RD_OK);
    if (found)
        ev.type = STORE_EVENT_PUT;
    else
        ev.kv.key = strdup(key);
    serve_work_note(w, &ev);
    store_kv_free(&ev.kv);
}

static void test_keeper_follows_and_heals(void **state)
{
    (void)state;
    char url[512];
    store_t *st = NULL;
    rd_err err = { 0 };
    int64_t lead = 0, t = 1000;
    dlog_sink log = { "serve", 0, count_line, NULL, fixed_now };
    snprintf(url, sizeof url, "sqlite:%s/work.db", dir);
    assert_int_equal(store_open(url, NULL, &st, &err), RD_OK);
    json_t *job = sample_job();
    put_doc(st, KEY_JOBS "job-1", job);
    put_text(st, KEY_WORK "n9/job-gone/0", "{}");   /* a job that no longer exists */
    put_text(st, KEY_SERVE_LEADER, "{\"host\":\"h\"}");
    assert_true(has_key(st, KEY_SERVE_LEADER, &lead));
    serve_work *w = serve_work_new();
    assert_non_null(w);

    /* not secured: no view at all */
    serve_work_step(w, st, lead, &log, t);
    assert_false(has_key(st, KEY_WORK "n1/job-1/0", NULL));

    /* secured: the first resync writes the view and deletes the stale key */
    put_text(st, KEY_META_STORE, "{\"secured\":true}");
    note_current(w, st, KEY_META_STORE);
    t += 6000;
    serve_work_step(w, st, lead, &log, t);
    assert_true(has_key(st, KEY_WORK "n1/job-1/0", NULL));
    assert_true(has_key(st, KEY_WORK "n2/job-1/1", NULL));
    assert_false(has_key(st, KEY_WORK "n1/job-1/2", NULL));
    assert_false(has_key(st, KEY_WORK "n9/job-gone/0", NULL));

    /* an event: worker 0 ends, worker 1 moves from n2 to n3 */
    json_t *workers = json_object_get(job, "workers");
    json_object_set_new(json_array_get(workers, 0), "state", json_string("stopped"));
    json_object_set_new(json_array_get(workers, 1), "node", json_string("n3"));
    put_doc(st, KEY_JOBS "job-1", job);
    note_current(w, st, KEY_JOBS "job-1");
    t += 100;
    serve_work_step(w, st, lead, &log, t);
    assert_false(has_key(st, KEY_WORK "n1/job-1/0", NULL));
    assert_false(has_key(st, KEY_WORK "n2/job-1/1", NULL));
    assert_true(has_key(st, KEY_WORK "n3/job-1/1", NULL));

    /* a billing-only change rewrites nothing */
    int64_t before = 0, after = 0;
    assert_true(has_key(st, KEY_WORK "n3/job-1/1", &before));
    json_object_set_new(job, "cost_ucr", json_integer(99));
    put_doc(st, KEY_JOBS "job-1", job);
    note_current(w, st, KEY_JOBS "job-1");
    serve_work_step(w, st, lead, &log, t += 100);
    assert_true(has_key(st, KEY_WORK "n3/job-1/1", &after));
    assert_int_equal(before, after);

    /* an old event (the job moved on since) writes nothing */
    store_event old = { STORE_EVENT_PUT, { 0 } };
    old.kv.key = strdup(KEY_JOBS "job-1");
    json_t *stale = sample_job();
    old.kv.value = json_dumps(stale, JSON_COMPACT);
    old.kv.value_len = strlen(old.kv.value);
    old.kv.mod_revision = 1;
    serve_work_note(w, &old);
    store_kv_free(&old.kv);
    json_decref(stale);
    serve_work_step(w, st, lead, &log, t += 100);
    assert_false(has_key(st, KEY_WORK "n1/job-1/0", NULL));

    /* a key deleted by hand (a missed event) comes back at the next resync */
    assert_int_equal(store_delete(st, KEY_WORK "n3/job-1/1", &err), RD_OK);
    serve_work_step(w, st, lead, &log, t += 100);
    assert_false(has_key(st, KEY_WORK "n3/job-1/1", NULL));
    serve_work_step(w, st, lead, &log, t += 61000);
    assert_true(has_key(st, KEY_WORK "n3/job-1/1", NULL));

    /* another leader's writes: nothing goes through */
    assert_int_equal(store_delete(st, KEY_WORK "n3/job-1/1", &err), RD_OK);
    serve_work_step(w, st, lead + 1000, &log, t += 61000);
    assert_false(has_key(st, KEY_WORK "n3/job-1/1", NULL));

    /* the job deleted: its keys go */
    serve_work_step(w, st, lead, &log, t += 61000);
    assert_true(has_key(st, KEY_WORK "n3/job-1/1", NULL));
    assert_int_equal(store_delete(st, KEY_JOBS "job-1", &err), RD_OK);
    note_current(w, st, KEY_JOBS "job-1");
    serve_work_step(w, st, lead, &log, t += 100);
    assert_false(has_key(st, KEY_WORK "n3/job-1/1", NULL));
    assert_true(log_lines >= 2);   /* secured, and the repairs */

    serve_work_free(w);
    json_decref(job);
    store_close(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_entries_content),
        cmocka_unit_test(test_entries_which_workers),
        cmocka_unit_test(test_keeper_follows_and_heals),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
