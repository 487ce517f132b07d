/* Fault injection, SQLite's way: a scripted session of commands on a fresh
 * SQLite store is run again and again, the Nth allocation failing in run N
 * (N = 1, 2, ... until a run sees no injected failure).  Every run must end
 * each line in a clean refusal (an error with a message) or a result, never
 * a crash or a success with nothing, and leave a store whose ledger
 * verifies.  The shim covers libc's allocator as the core library and this
 * program call it (-Wl,--wrap=malloc,... in the Makefile), jansson's
 * (json_set_alloc_funcs) and SQLite's (SQLITE_CONFIG_MALLOC). */
#include "testutil.h"

#include <malloc.h>
#include <sqlite3.h>

#include "cmd.h"

static char dir[256];

/* ---- the shim ------------------------------------------------------------ */

static long alloc_count;   /* allocations since armed */
static long alloc_fail_at; /* the one to fail (1-based); 0: none */
static int alloc_armed, alloc_injected;

static int alloc_should_fail(void)
{
    if (!alloc_armed)
        return 0;
    if (++alloc_count == alloc_fail_at) {
        alloc_injected = 1;
        return 1;
    }
    return 0;
}

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);

void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);

void *__wrap_malloc(size_t n)
{
    return alloc_should_fail() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
    return alloc_should_fail() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n)
{
    return alloc_should_fail() ? NULL : __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
    return alloc_should_fail() ? NULL : __real_strdup(s);
}

char *__wrap_strndup(const char *s, size_t n)
{
    return alloc_should_fail() ? NULL : __real_strndup(s, n);
}

static void *json_alloc(size_t n)
{
    return __wrap_malloc(n);
}

static void *sq_malloc(int n)
{
    return __wrap_malloc((size_t)n);
}

static void sq_free(void *p)
{
    free(p);
}

static void *sq_realloc(void *p, int n)
{
    return __wrap_realloc(p, (size_t)n);
}

static int sq_size(void *p)
{
    return p ? (int)malloc_usable_size(p) : 0;
}

static int sq_roundup(int n)
{
    return (n + 7) & ~7;
}

static int sq_init(void *data)
{
    (void)data;
    return SQLITE_OK;
}

static void sq_shutdown(void *data)
{
    (void)data;
}

static const sqlite3_mem_methods sq_methods = { sq_malloc, sq_free,   sq_realloc, sq_size,
                                                sq_roundup, sq_init, sq_shutdown, NULL };

/* ---- the session ----------------------------------------------------------- */

static const char *const session[] = {
    "account create alice --plan team",
    "account deposit default 100",
    "provider enable physical",
    "region create dc --provider physical --storage local --public",
    "price set a100 2.78",
    "node add dc gpu-a --agent none --minion m-a --inventory tests/inventories/a100x4.yaml",
    "node maintenance gpu-a off",
    "job submit tests/specs/sched/a100-1.yaml",
    "sched run",
    "job list",
    "bill run",   /* an hour later: the running worker's hour is billed */
    "ledger verify",
    NULL,
};

/* Runs the session on a fresh store; returns how many lines succeeded. */
static int run_session(long fail_at, int *lines)
{
    char url[512], refused[600] = "";
    int ok = 0;
    cmd_ctx ctx;
    snprintf(url, sizeof url, "sqlite:%s/run-%ld.db", dir, fail_at);
    memset(&ctx, 0, sizeof ctx);
    ctx.store_url = url;
    ctx.actor = "default";
    ctx.now = 1793491200;   /* 2026-11-01T00:00:00Z */
    alloc_count = 0;
    alloc_fail_at = fail_at;
    alloc_injected = 0;
    alloc_armed = 1;
    for (int i = 0; session[i]; i++) {
        rd_err err = { 0 };
        json_t *res = NULL;
        if (strcmp(session[i], "bill run") == 0)
            ctx.now += 3600;
        if (getenv("ALLOC_TRACE"))
            fprintf(stderr, "alloc_fail: %ld before %s\n", alloc_count, session[i]);
        rd_code rc = cmd_exec_line(&ctx, session[i], &res, NULL, &err);
        alloc_armed = 0;   /* the checks themselves allocate nothing that may fail */
        if (rc == RD_OK) {
            if (!res)
                fail_msg("N=%ld: '%s' succeeded with no result", fail_at, session[i]);
            ok++;
        } else if (!err.msg[0]) {
            fail_msg("N=%ld: '%s' failed (%d) with no message", fail_at, session[i], (int)rc);
        } else if (!refused[0]) {
            snprintf(refused, sizeof refused, "%s: %s", session[i], err.msg);
        }
        json_decref(res);
        alloc_armed = 1;
    }
    alloc_armed = 0;
    cmd_ctx_close(&ctx);
    *lines = ok;

    /* whatever was committed, the store reads back and its ledger verifies */
    rd_err err = { 0 };
    json_t *res = NULL;
    memset(&ctx, 0, sizeof ctx);
    ctx.store_url = url;
    ctx.actor = "default";
    ctx.now = 1793491200 + 3600;
    rd_code rc = cmd_exec_line(&ctx, "ledger verify", &res, NULL, &err);
    if (rc != RD_OK)
        fail_msg("N=%ld: ledger verify after the run (first refusal: %s): %s", fail_at, refused, err.msg);
    if (!json_is_true(json_object_get(res, "ok")))
        fail_msg("N=%ld: the ledger does not verify after the run", fail_at);
    json_decref(res);
    cmd_ctx_close(&ctx);
    /* thousands of runs: each removes its store */
    static const char *const suffix[] = { "", "-wal", "-shm", "-journal" };
    for (size_t i = 0; i < sizeof suffix / sizeof suffix[0]; i++) {
        char path[600];
        snprintf(path, sizeof path, "%s%s", url + strlen("sqlite:"), suffix[i]);
        unlink(path);
    }
    return ok;
}

static void test_every_allocation_fails_cleanly(void **state)
{
    int lines = 0, nlines = 0;
    (void)state;
    while (session[nlines])
        nlines++;
    /* the whole session first: every line succeeds */
    run_session(0, &lines);
    assert_int_equal(lines, nlines);
    long total = alloc_count;
    fprintf(stderr, "alloc_fail: %ld allocations in the full session\n", total);
    /* every N; under a slow wrapper (valgrind, tests/run.sh's RIGDECK_WRAP)
     * every stride-th, or as RIGDECK_ALLOC_STRIDE says */
    const char *wrap = getenv("RIGDECK_WRAP"), *st = getenv("RIGDECK_ALLOC_STRIDE");
    long stride = st && atol(st) > 0 ? atol(st) : wrap && *wrap ? 97 : 1;
    long n = 1;
    for (;; n += stride) {
        run_session(n, &lines);
        if (!alloc_injected)
            break;
        if (n > 4 * total + 1000)
            fail_msg("N=%ld: still injecting after %ld allocations in the full session", n, total);
    }
    assert_int_equal(lines, nlines);   /* the run past the last allocation is the full session */
    fprintf(stderr, "alloc_fail: N = 1..%ld in steps of %ld\n", n, stride);
}

int main(void)
{
    /* before anything allocates through them */
    json_set_alloc_funcs(json_alloc, free);
    if (sqlite3_config(SQLITE_CONFIG_MALLOC, &sq_methods) != SQLITE_OK)
        return 1;
    /* thousands of fresh stores, each committing many times: on tmpfs where
     * there is one (fsync is free there; tests/run.sh's TMPDIR is a disk),
     * each run removing its store and the program its empty directory */
    int shm = 0;
    snprintf(dir, sizeof dir, "/dev/shm/rdalloc.XXXXXX");
    if (access("/dev/shm", W_OK) == 0 && mkdtemp(dir))
        shm = 1;
    else
        testutil_tmpdir(dir, sizeof dir);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_allocation_fails_cleanly),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    if (shm)
        rmdir(dir);
    return failed;
}
