/* Unit tests of store_history() against a scripted backend: events that
 * arrive late (a poll that brings nothing, as etcd's stream may), a
 * revision's events spread over two polls, events past the wanted window,
 * and a backend that never delivers. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "store_backend.h"

/* Each poll hands out the next batch of the script: revisions, 0-ended. */
static const int64_t *const *script;
static size_t polls;

static rd_code fake_watch_open(store_t *st, const char *prefix, int64_t after_rev, store_watch **out, rd_err *err)
{
    (void)prefix;
    (void)after_rev;
    (void)err;
    *out = calloc(1, sizeof **out);
    (*out)->st = st;
    polls = 0;
    return RD_OK;
}

static rd_code fake_watch_next(store_watch *w, int timeout_ms, store_event **events, size_t *count, rd_err *err)
{
    (void)w;
    (void)timeout_ms;
    (void)err;
    const int64_t *batch = script[polls] ? script[polls++] : NULL;
    size_t n = 0;
    while (batch && batch[n])
        n++;
    *events = n ? calloc(n, sizeof **events) : NULL;
    for (size_t i = 0; i < n; i++) {
        char key[32];
        snprintf(key, sizeof key, "/k/%lld", (long long)batch[i]);
        (*events)[i].type = STORE_EVENT_PUT;
        (*events)[i].kv.key = strdup(key);
        (*events)[i].kv.value = strdup("{}");
        (*events)[i].kv.value_len = 2;
        (*events)[i].kv.mod_revision = batch[i];
    }
    *count = n;
    return RD_OK;
}

static void fake_watch_close(store_watch *w)
{
    free(w);
}

static const store_backend fake = {
    .name = "fake",
    .watch_open = fake_watch_open,
    .watch_next = fake_watch_next,
    .watch_close = fake_watch_close,
};

static rd_code run(const int64_t *const *s, int64_t after, int64_t upto, size_t max, store_event **ev, size_t *n,
                   int *more, rd_err *err)
{
    static struct store st = { &fake, (char *)"fake:", 0, 0, 0, 0 };
    script = s;
    return store_history(&st, after, upto, max, 300, ev, n, more, err);
}

static void test_late_events(void **state)
{
    (void)state;
    static const int64_t none[] = { 0 }, some[] = { 11, 12, 12, 13, 0 };
    static const int64_t *const s[] = { none, none, some, NULL };
    store_event *ev = NULL;
    size_t n = 0;
    int more = 0;
    rd_err err;
    assert_int_equal(run(s, 10, 12, 100, &ev, &n, &more, &err), RD_OK);
    assert_int_equal(n, 3);   /* revision 13 is past the window */
    assert_int_equal(more, 0);
    assert_int_equal(ev[2].kv.mod_revision, 12);
    store_events_free(ev, n);
}

static void test_spread_over_polls(void **state)
{
    (void)state;
    static const int64_t a[] = { 11, 0 }, none[] = { 0 }, b[] = { 12, 13, 0 };
    static const int64_t *const s[] = { a, none, b, NULL };
    store_event *ev = NULL;
    size_t n = 0;
    int more = 0;
    rd_err err;
    assert_int_equal(run(s, 10, 13, 100, &ev, &n, &more, &err), RD_OK);
    assert_int_equal(n, 3);
    assert_string_equal(ev[0].kv.key, "/k/11");
    assert_string_equal(ev[2].kv.key, "/k/13");
    store_events_free(ev, n);
    /* the cap: more than max events is "read the state instead" */
    assert_int_equal(run(s, 10, 13, 2, &ev, &n, &more, &err), RD_OK);
    assert_int_equal(more, 1);
    assert_int_equal(n, 0);
    assert_null(ev);
}

static void test_never_arrives(void **state)
{
    (void)state;
    static const int64_t a[] = { 11, 0 };
    static const int64_t *const s[] = { a, NULL };
    store_event *ev = NULL;
    size_t n = 0;
    int more = 0;
    rd_err err;
    assert_int_equal(run(s, 10, 12, 100, &ev, &n, &more, &err), RD_ECONFLICT);
    assert_int_equal(n, 0);
    assert_null(ev);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_late_events),
        cmocka_unit_test(test_spread_over_polls),
        cmocka_unit_test(test_never_arrives),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
