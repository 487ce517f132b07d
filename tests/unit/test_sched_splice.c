/* Unit tests of sched_raw_splice (sched_queue.c): a batch's placements
 * written into a job's stored text must give exactly the bytes, and the
 * audit fields, that changing and encoding the whole document gives.
 * Random jobs vary what the splice must get right: member order, "state"
 * and "reason" present or missing, a reason set or null, several workers
 * of mixed states, pending nodes, strings holding quotes, brackets and
 * escapes, nested objects.  Text of an unexpected shape must be refused
 * (the pass then writes the whole document). */
#include "testutil.h"

#include "job.h"
#include "jsonout.h"
#include "sched_queue.h"
#include "tx.h"

static const char *const tricky[] = { "plain",           "a \\\"quoted\\\" word", "{not: an object}", "[1, 2]",
                                      "tab\\tand\\nline", "comma, colon: end",      "back\\\\slash\\\\", "\\\\\\\"" };
#define NTRICKY (sizeof tricky / sizeof *tricky)

/* A random job document as the pass could find it in the queue. */
static json_t *random_job(uint64_t *rng, size_t *nworkers)
{
    json_t *job = json_object(), *workers = json_array();
    json_error_t jerr;
    size_t n = 1 + testutil_rng(rng) % 4;
    int state_first = testutil_rng(rng) % 2, reason = (int)(testutil_rng(rng) % 3), has_state = testutil_rng(rng) % 4;
    char text[160];
    json_object_set_new(job, "id", json_string("job-1"));
    if (state_first && has_state)
        json_object_set_new(job, "state", json_string("waiting_gpus"));
    snprintf(text, sizeof text, "\"%s\"", tricky[testutil_rng(rng) % NTRICKY]);
    json_object_set_new(job, "note", json_loads(text, JSON_DECODE_ANY, &jerr));
    json_object_set_new(job, "resources", json_pack("{s:I, s:[s,s], s:{s:s}}", "gpus_x100", (json_int_t)100,
                                                    "gpu_types", "a100", "t4", "extra", "k", "}]\"{"));
    for (size_t k = 0; k < n; k++) {
        json_t *w = json_pack("{s:I, s:s}", "index", (json_int_t)k, "state",
                              testutil_rng(rng) % 3 ? "waiting_gpus" : "running");
        if (testutil_rng(rng) % 3 == 0)
            json_object_set_new(w, "pending_node", json_string("gcp-7"));
        json_object_set_new(w, "started_at", json_null());
        json_array_append_new(workers, w);
    }
    json_object_set_new(job, "workers", workers);
    if (!state_first && has_state)
        json_object_set_new(job, "state", json_string("waiting_gpus"));
    if (reason == 1)
        json_object_set_new(job, "reason", json_string("no node fits"));
    else if (reason == 2)
        json_object_set_new(job, "reason", json_null());
    json_object_set_new(job, "priority", json_integer((json_int_t)(testutil_rng(rng) % 5)));
    *nworkers = n;
    return job;
}

/* What sched_run.c's place() does to a worker of the decoded document. */
static void place_worker(json_t *job, size_t k)
{
    json_t *w = json_array_get(json_object_get(job, "workers"), k);
    json_object_set_new(w, "state", json_string("running"));
    json_object_set_new(w, "node", json_string("n-0001"));
    json_object_set_new(w, "price_ucr", json_integer(1500000));
    json_object_set_new(w, "started_at", json_string("2026-11-01T00:00:00Z"));
    json_object_del(w, "pending_node");
    json_object_set_new(w, "alloc", json_pack("[{s:I, s:I}]", "gpu", (json_int_t)3, "x100", (json_int_t)100));
    job_update_state(job);
    json_object_set_new(job, "reason", json_null());
}

/* The audit fields of a change made through tx_put (the whole document)
 * and through tx_put_text (the splice), for comparison. */
static json_t *fields_of(const json_t *before, json_t *after, char *text, size_t len, json_t *fields)
{
    rd_err err;
    rd_tx *tx = tx_new(NULL);
    assert_non_null(tx);
    assert_int_equal(tx_guard(tx, "/rigdeck/jobs/job-1", (json_t *)before, 7, &err), RD_OK);
    if (after)
        assert_int_equal(tx_put(tx, "/rigdeck/jobs/job-1", json_incref(after), &err), RD_OK);
    else
        assert_int_equal(tx_put_text(tx, "/rigdeck/jobs/job-1", text, len, fields, &err), RD_OK);
    json_t *changes = tx_changes(tx);
    json_t *f = json_incref(json_object_get(json_array_get(changes, 0), "fields"));
    json_decref(changes);
    tx_free(tx);
    return f;
}

static void test_splice_matches_encoding(void **state)
{
    (void)state;
    uint64_t rng = 0x9e3779b97f4a7c15ULL;
    size_t spliced = 0;
    for (int round = 0; round < 5000; round++) {
        size_t n, placed[4], nplaced = 0, len = 0;
        json_t *job = random_job(&rng, &n), *fields = NULL;
        char *text = jsonout_dumps(job, NULL), *out = NULL;
        json_t *before = json_deep_copy(job);
        for (size_t k = 0; k < n; k++)
            if (testutil_rng(&rng) % 2) {
                place_worker(job, k);
                placed[nplaced++] = k;
            }
        if (!nplaced) {
            place_worker(job, 0);
            placed[nplaced++] = 0;
        }
        char *want = jsonout_dumps(job, NULL);
        assert_int_equal(sched_raw_splice(text, strlen(text), job, placed, nplaced, &out, &len, &fields), 1);
        assert_string_equal(out, want);
        assert_int_equal(len, strlen(want));
        json_t *tree_fields = fields_of(before, job, NULL, 0, NULL);
        json_t *text_fields = fields_of(before, NULL, out, len, fields);
        assert_true(json_equal(tree_fields, text_fields));
        spliced++;
        json_decref(tree_fields);
        json_decref(text_fields);
        json_decref(before);
        json_decref(job);
        free(text);
        free(want);
    }
    assert_int_equal(spliced, 5000);
}

/* The text reader the queue uses agrees with decoding on the same jobs. */
static void test_reader_matches_decoding(void **state)
{
    (void)state;
    uint64_t rng = 0x2545f4914f6cdd1dULL;
    for (int round = 0; round < 5000; round++) {
        size_t n, waiting = 0, pending = 0, want_waiting = 0, want_pending = 0, k;
        json_t *job = random_job(&rng, &n), *w;
        json_object_set_new(job, "note2", json_string(tricky[round % NTRICKY]));
        char *text = jsonout_dumps(job, NULL), note[64];
        const char *end = text + strlen(text), *vs, *ve;
        json_array_foreach(json_object_get(job, "workers"), k, w)
            if (strcmp(json_string_value(json_object_get(w, "state")), "waiting_gpus") == 0) {
                want_waiting++;
                want_pending += json_object_get(w, "pending_node") != NULL;
            }
        assert_int_equal(sched_raw_waiting(text, end, &waiting, &pending), 1);
        assert_int_equal(waiting, want_waiting);
        assert_int_equal(pending, want_pending);
        assert_int_equal(sched_raw_string(text, end, "id", note, sizeof note), 1);
        assert_string_equal(note, "job-1");
        assert_int_equal(sched_raw_member(text, end, "priority", &vs, &ve), 1);
        assert_int_equal(strtol(vs, NULL, 10), json_integer_value(json_object_get(job, "priority")));
        /* a string's text, escapes and all, is skipped as one value */
        assert_int_equal(sched_raw_member(text, end, "note2", &vs, &ve), 1);
        char *one = jsonout_dumps_any(json_object_get(job, "note2"), NULL);
        assert_int_equal((size_t)(ve - vs), strlen(one));
        assert_memory_equal(vs, one, strlen(one));
        free(one);
        free(text);
        json_decref(job);
    }
    /* a NUL byte outside a string is not a value, and never loops */
    const char bad[] = "{\"workers\":[{\"state\":1\000}]}";
    size_t waiting, pending;
    assert_int_equal(sched_raw_waiting(bad, bad + sizeof bad - 1, &waiting, &pending), 0);
}

/* Text laid out differently (spaces) still splices to the same values. */
static void test_splice_spaced_text(void **state)
{
    (void)state;
    const char *text = "{ \"id\" : \"job-1\" ,\n \"workers\" : [ {\"index\":0,\"state\":\"waiting_gpus\"} , "
                       "{\"index\":1,\"state\":\"waiting_gpus\"} ] , \"state\" : \"waiting_gpus\" }";
    json_error_t jerr;
    json_t *job = json_loads(text, 0, &jerr), *fields = NULL;
    size_t placed[] = { 1 }, len = 0;
    char *out = NULL;
    assert_non_null(job);
    place_worker(job, 1);
    assert_int_equal(sched_raw_splice(text, strlen(text), job, placed, 1, &out, &len, &fields), 1);
    json_t *back = json_loadb(out, len, 0, &jerr);
    assert_non_null(back);
    assert_true(json_equal(back, job));
    json_decref(back);
    json_decref(job);
    json_decref(fields);
    free(out);
}

static void refused(const char *text, size_t nworkers)
{
    json_error_t jerr;
    json_t *job = json_pack("{s:s, s:[]}", "id", "job-1", "workers"), *fields = (json_t *)1;
    size_t placed[] = { 0 }, len = 0;
    char *out = (char *)1;
    (void)jerr;
    for (size_t k = 0; k < nworkers; k++)
        json_array_append_new(json_object_get(job, "workers"), json_pack("{s:s}", "state", "waiting_gpus"));
    place_worker(job, 0);
    assert_int_equal(sched_raw_splice(text, strlen(text), job, placed, 1, &out, &len, &fields), 0);
    assert_null(out);
    assert_null(fields);
    json_decref(job);
}

static void test_splice_refuses_odd_text(void **state)
{
    (void)state;
    refused("{\"id\":\"job-1\",\"workers\":[{\"state\":\"waiting_gpus\"}],\"workers\":[{\"state\":\"waiting_gpus\"}]}", 1);
    refused("{\"id\":\"job-1\",\"state\":\"a\",\"workers\":[{\"state\":\"waiting_gpus\"}],\"state\":\"b\"}", 1);
    refused("{\"id\":\"job-1\",\"workers\":[{\"state\":\"waiting_gpus\"}]}", 2);   /* the document has two */
    refused("{\"id\":\"job-1\"}", 1);                                              /* no workers */
    refused("{\"id\":\"job-1\",\"workers\":{\"0\":1}}", 1);                         /* not an array */
    refused("{\"id\":\"job-1\",\"workers\":[{\"state\":\"waiting_gpus\"}]", 1);    /* cut short */
    refused("{\"id\":\"job-1\",\"workers\":[{\"state\":\"waiting_gpus\"}]} x", 1); /* trailing bytes */
    refused("[1]", 1);
    refused("", 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_splice_matches_encoding),
        cmocka_unit_test(test_splice_spaced_text),
        cmocka_unit_test(test_reader_matches_decoding),
        cmocka_unit_test(test_splice_refuses_odd_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
