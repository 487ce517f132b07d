/* Fault injection, SQLite's way.  A scripted session, one line per command
 * family, runs once without a failure on a fresh SQLite store, keeping each
 * line's answer and a copy of the store after it.  Then each line runs
 * again on the copy of the store before it, once per N with its Nth
 * allocation failing (N = 1, 2, ... until a run sees no injected failure).
 * Every run must end the line in a clean refusal (an error with a message)
 * or a result, never a crash or a success with nothing; a line that
 * succeeds, and every line after it, must answer exactly as without the
 * failure (an unchecked json_object_set_new would leave a field out of an
 * answer or of a stored document read back later); the ledger must verify
 * after every run.  The shim covers libc's allocator as the core library
 * and this program call it (-Wl,--wrap=malloc,... in the Makefile),
 * jansson's (through the core's jsonmem allocator, whose malloc is
 * wrapped) and SQLite's (SQLITE_CONFIG_MALLOC).  Each run of a line opens
 * the store before arming, but for the first two lines (a new store, an
 * existing one), so that the runs fail the command's own allocations. */
#include "testutil.h"

#include <ctype.h>
#include <dirent.h>
#include <execinfo.h>
#include <malloc.h>
#include <sqlite3.h>

#include "cmd.h"
#include "doc.h"
#include "gcp.h"
#include "jsonmem.h"

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
        if (getenv("RIGDECK_ALLOC_BT") && atol(getenv("RIGDECK_ALLOC_BT")) == alloc_fail_at) {
            void *frames[24];
            backtrace_symbols_fd(frames, backtrace(frames, 24), 2);
        }
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

/* A finding: fails the test, or with RIGDECK_ALLOC_ALL set is printed
 * and counted, so one run of the sweep lists every failing N. */
static long findings;
#define finding(...)                                   \
    do {                                               \
        if (getenv("RIGDECK_ALLOC_ALL")) {             \
            fprintf(stderr, "ERROR: " __VA_ARGS__);    \
            fputc('\n', stderr);                       \
            findings++;                                \
        } else {                                       \
            fail_msg(__VA_ARGS__);                     \
        }                                              \
    } while (0)

/* ---- the session ----------------------------------------------------------- */

/* One line per family the fault injection should reach: accounts and the
 * ledger's transfers (deposits), fleet (provider, region, node add/report,
 * datastore, reservation), jobs (submit, report), the scheduler, metrics,
 * alerts, billing and reports.  %J stands for the id job submit answered;
 * "+1h" advances the session's clock an hour before the line. */
static const char *const session[] = {
    "account create alice --plan team",
    "account deposit default 100",
    "account deposit alice 12.5 --ref gift",
    "provider enable physical",
    "region create dc --provider physical --storage local --public",
    "price set a100 2.78",
    "node add dc gpu-a --agent none --minion m-a --inventory tests/inventories/a100x4.yaml",
    "node report gpu-a --inventory tests/inventories/a100x4.yaml",
    "node maintenance gpu-a off",
    "datastore add dc nas --type nfs --address nas.local --root /data",
    "reservation add dc web --hostname web.local --port 8080",
    "job submit tests/specs/sched/a100-1.yaml",
    "sched run",
    "job list",
    "metrics import gpu-a %D/cpu.jsonl",
    "alert rule add hot-cpu --metric cpu_util --above 90",
    "alert eval",
    "+1h bill run",   /* an hour later: the running worker's hour is billed */
    "job report %J finished --worker 0",
    "job show %J",
    "node show gpu-a",
    "ledger balance alice",
    "alert list",
    "report usage --since 2026-11-01T00:00:00Z --until 2026-11-01T02:00:00Z",
    "ledger verify",
    NULL,
};

static json_t *clean[64];     /* each line's answer in the run without a failure */

/* The session's line text with %J (the job's id) and %D (the test's
 * directory) filled in; 0 when it needs a job and there is none. */
static int session_line(char *out, size_t size, const char *text, const char *job)
{
    size_t n = 0;
    for (const char *p = text; *p && n + 1 < size; p++) {
        const char *with = p[0] == '%' && p[1] == 'J' ? job : p[0] == '%' && p[1] == 'D' ? dir : NULL;
        if (!with) {
            out[n++] = *p;
            continue;
        }
        if (!*with)
            return 0;
        n += (size_t)snprintf(out + n, size - n, "%s", with);
        if (n >= size)
            n = size - 1;
        p++;
    }
    out[n] = '\0';
    return 1;
}

/* An answer as sorted JSON text, each random id suffix ("-" and 8 hex
 * digits: job ids, transfer ids, audit nonces) written -xxxxxxxx and no
 * store revision: everything else follows from the session and its clock. */
static char *result_text(const json_t *res)
{
    json_t *copy = json_deep_copy(res);
    json_object_del(copy, "revision");   /* a skipped cache write (sched's idle record) moves it */
    char *text = copy ? json_dumps(copy, JSON_SORT_KEYS | JSON_COMPACT) : NULL;
    json_decref(copy);
    for (char *p = text ? strchr(text, '-') : NULL; p; p = strchr(p + 1, '-')) {
        size_t n = strspn(p + 1, "0123456789abcdef");
        if (n == 8 && !isalnum((unsigned char)p[9]))
            memset(p + 1, 'x', 8);
    }
    return text;
}

/* ---- the runs -------------------------------------------------------------- */

static char job_id[64];        /* the clean run's job (ids are random) */
static long line_allocs[64];   /* allocations each line made in the clean run */
static int64_t line_now[64];   /* the clock each line ran at */

static void store_path(char *out, size_t size, const char *name)
{
    snprintf(out, size, "%s/%s.db", dir, name);
}

/* Removes a SQLite store and its side files. */
static void store_remove(const char *path)
{
    static const char *const suffix[] = { "", "-wal", "-shm", "-journal" };
    for (size_t i = 0; i < sizeof suffix / sizeof suffix[0]; i++) {
        char p[700];
        snprintf(p, sizeof p, "%s%s", path, suffix[i]);
        unlink(p);
    }
}

/* Copies a closed store (its WAL checkpointed on close) to to. */
static int store_copy(const char *from, const char *to)
{
    char buf[65536];
    size_t n;
    int ok = 1;
    FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
    if (!in || !out)
        ok = 0;
    while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0)
        ok = fwrite(buf, 1, n, out) == n;
    if (in)
        fclose(in);
    if (out && fclose(out) != 0)
        ok = 0;
    return ok;
}

/* Runs line i of the session on the store at path in a context of its own
 * (opened, and closed after), the Nth allocation failing (0: none).  Every
 * line ends in a result or in an error with a message.  Returns 1 when it
 * succeeded; *res (may be NULL) takes its answer. */
static int run_line(const char *path, int i, long fail_at, json_t **res, char *refused, size_t rsize)
{
    char url[600], line[512];
    rd_err err = { 0 };
    json_t *out = NULL;
    cmd_ctx ctx;
    const char *text = session[i];
    if (strncmp(text, "+1h ", 4) == 0)
        text += 4;
    if (!session_line(line, sizeof line, text, job_id))
        fail_msg("'%s' needs a job", text);
    snprintf(url, sizeof url, "sqlite:%s", path);
    memset(&ctx, 0, sizeof ctx);
    ctx.store_url = url;
    ctx.actor = "default";
    ctx.now = line_now[i];
    alloc_count = 0;
    alloc_fail_at = fail_at;
    alloc_injected = 0;
    /* opening the store fails in turn on the first two lines (a new store,
     * then an existing one); later lines find it open, so that each run
     * fails an allocation of the command itself */
    rd_code rc = i < 2 ? RD_OK : cmd_ctx_open_store(&ctx, &err);
    if (rc != RD_OK)
        fail_msg("'%s': opening the store: %s", line, err.msg);
    alloc_armed = 1;
    rc = cmd_exec_line(&ctx, line, &out, NULL, &err);
    cmd_ctx_close(&ctx);
    alloc_armed = 0;   /* the checks themselves allocate nothing that may fail */
    if (rc == RD_OK && !out)
        finding("line %d, N=%ld: '%s' succeeded with no result", i, fail_at, line);
    if (rc != RD_OK && !err.msg[0])
        finding("line %d, N=%ld: '%s' failed (%d) with no message", i, fail_at, line, (int)rc);
    if (rc != RD_OK && refused && !refused[0])
        snprintf(refused, rsize, "%.200s: %.380s", line, err.msg);
    if (res)
        *res = out;
    else
        json_decref(out);
    return rc == RD_OK;
}

/* Line i must answer as it did without a failure: a partial answer (an
 * unchecked json_object_set_new) or a partial document read back would
 * differ. */
static void same_answer(int i, long fail_at, const json_t *res)
{
    char *a = result_text(res), *b = result_text(clean[i]);
    if (!a || !b || strcmp(a, b) != 0)
        finding("line %d, N=%ld: '%s' succeeded with another answer than without a failure:\n%s\n%s", i, fail_at,
                session[i], a ? a : "?", b ? b : "?");
    free(a);
    free(b);
}

/* The run without a failure: each line's answer, allocations, clock and,
 * in snap-K.db, the store as the first K lines left it. */
static int run_clean(void)
{
    char path[600], snap[600];
    int64_t now = 1793491200;   /* 2026-11-01T00:00:00Z */
    int ok = 0;
    store_path(path, sizeof path, "clean");
    for (int i = 0; session[i]; i++) {
        if (strncmp(session[i], "+1h ", 4) == 0)
            now += 3600;
        line_now[i] = now;
        json_t *res = NULL;
        char refused[600] = "";
        if (!run_line(path, i, 0, &res, refused, sizeof refused)) {
            fprintf(stderr, "alloc_fail: without a failure, %s\n", refused);
        } else {
            ok++;
            if (strncmp(session[i], "job submit ", 11) == 0)
                snprintf(job_id, sizeof job_id, "%s", doc_str(res, "id"));
        }
        line_allocs[i] = alloc_count;
        clean[i] = res;
        char name[32];
        snprintf(name, sizeof name, "snap-%d", i + 1);
        store_path(snap, sizeof snap, name);
        if (!store_copy(path, snap))
            fail_msg("cannot copy %s to %s", path, snap);
    }
    store_remove(path);
    return ok;
}

/* Line i with its Nth allocation failing, on the store the lines before it
 * left.  When it succeeds, it and every later line must answer as without
 * a failure; when it fails, the ledger must still verify, and every 16th
 * N the later lines run too (each to a result or a clean refusal).
 * Returns whether the failure was injected. */
static int run_injected(int i, long fail_at)
{
    char path[600], snap[600], refused[600] = "", name[32];
    snprintf(name, sizeof name, "run-%d-%ld", i, fail_at);
    store_path(path, sizeof path, name);
    snprintf(name, sizeof name, "snap-%d", i);
    store_path(snap, sizeof snap, name);
    if (i > 0 && !store_copy(snap, path))
        fail_msg("cannot copy %s to %s", snap, path);
    json_t *res = NULL;
    int ok = run_line(path, i, fail_at, &res, refused, sizeof refused);
    int injected = alloc_injected, submit = strncmp(session[i], "job submit ", 11) == 0;
    char clean_job[sizeof job_id];
    snprintf(clean_job, sizeof clean_job, "%s", job_id);
    if (submit)   /* the later lines report on this run's job, if any */
        snprintf(job_id, sizeof job_id, "%s", ok ? doc_str(res, "id") : "");
    if (ok)
        same_answer(i, fail_at, res);
    json_decref(res);
    for (int k = i + 1; session[k] && (ok || fail_at % 16 == 0); k++) {
        res = NULL;
        if (strstr(session[k], "%J") && !job_id[0])
            continue;
        if (run_line(path, k, 0, &res, refused, sizeof refused) && ok)
            same_answer(k, fail_at, res);
        else
            ok = 0;
        json_decref(res);
    }
    /* whatever was committed, the store reads back and its ledger verifies */
    rd_err err = { 0 };
    cmd_ctx ctx;
    char url[700];
    snprintf(url, sizeof url, "sqlite:%s", path);
    memset(&ctx, 0, sizeof ctx);
    ctx.store_url = url;
    ctx.actor = "default";
    ctx.now = line_now[i];
    res = NULL;
    rd_code rc = cmd_exec_line(&ctx, "ledger verify", &res, NULL, &err);
    if (rc != RD_OK)
        finding("line %d, N=%ld: ledger verify after the run (first refusal: %s): %s", i, fail_at, refused, err.msg);
    else if (!json_is_true(json_object_get(res, "ok")))
        finding("line %d, N=%ld: the ledger does not verify after the run", i, fail_at);
    json_decref(res);
    cmd_ctx_close(&ctx);
    store_remove(path);
    snprintf(job_id, sizeof job_id, "%s", clean_job);
    return injected;
}

static void test_every_allocation_fails_cleanly(void **state)
{
    int nlines = 0;
    long runs = 0, total = 0;
    (void)state;
    while (session[nlines])
        nlines++;
    /* the whole session first: every line succeeds */
    assert_int_equal(run_clean(), nlines);
    for (int i = 0; i < nlines; i++)
        total += line_allocs[i];
    fprintf(stderr, "alloc_fail: %ld allocations in the full session\n", total);
    if (getenv("ALLOC_TRACE"))
        for (int i = 0; i < nlines; i++)
            fprintf(stderr, "alloc_fail: %6ld %s\n", line_allocs[i], session[i]);
    /* every N of every line; under a slow wrapper (valgrind, tests/run.sh's
     * RIGDECK_WRAP) every stride-th, or as RIGDECK_ALLOC_STRIDE says.  To
     * look into a finding: RIGDECK_ALLOC_LINE=I runs line I only and
     * RIGDECK_ALLOC_BT=N prints a backtrace where its Nth fails. */
    const char *wrap = getenv("RIGDECK_WRAP"), *st = getenv("RIGDECK_ALLOC_STRIDE");
    const char *only = getenv("RIGDECK_ALLOC_LINE");
    long stride = st && atol(st) > 0 ? atol(st) : wrap && *wrap ? 97 : 1;
    for (int i = only ? atoi(only) : 0; i < nlines; i++) {
        long n = 1;
        for (; run_injected(i, n); n += stride, runs++)
            if (n > 4 * line_allocs[i] + 1000)
                fail_msg("line %d, N=%ld: still injecting after %ld allocations in the clean run", i, n,
                         line_allocs[i]);
        if (only)
            break;
    }
    assert_int_equal(findings, 0);
    fprintf(stderr, "alloc_fail: %ld runs, each line's N = 1, 1 + %ld, ... until none fails\n", runs, stride);
}

/* A GCP instance is made from one request body: one missing its boot disk,
 * GPUs or startup script would make a VM that is billed but never works.
 * gcp_instance_body answers NULL or the whole body, whichever allocation
 * fails. */
static void test_gcp_instance_body_whole_or_none(void **state)
{
    (void)state;
    gcp_instance_spec spec = { "rigdeck-g1", "us-central1-a", "g1", "gcp-us", "compute", "a2-highgpu-1g",
                               "nvidia-tesla-a100", 1, 2, 0, NULL, "#!/bin/sh\necho agent\n" };
    json_t *whole = gcp_instance_body(&spec);
    assert_non_null(whole);
    for (long n = 1;; n++) {
        alloc_count = 0;
        alloc_fail_at = n;
        alloc_injected = 0;
        alloc_armed = 1;
        json_t *body = gcp_instance_body(&spec);
        alloc_armed = 0;
        if (body && !json_equal(body, whole))
            fail_msg("N=%ld: gcp_instance_body answered a body that is not whole", n);
        json_decref(body);
        if (!alloc_injected)
            break;
    }
    json_decref(whole);
}

int main(void)
{
    /* before anything allocates through them */
    jsonmem_install();   /* the core's counting allocator, whose malloc is wrapped here */
    if (sqlite3_config(SQLITE_CONFIG_MALLOC, &sq_methods) != SQLITE_OK)
        return 1;
    /* thousands of fresh stores, each committing many times: on tmpfs where
     * there is one (fsync is free there; tests/run.sh's TMPDIR is a disk),
     * each run removing its store and the program its directory */
    snprintf(dir, sizeof dir, "/dev/shm/rdalloc.XXXXXX");
    if (access("/dev/shm", W_OK) != 0 || !mkdtemp(dir))
        testutil_tmpdir(dir, sizeof dir);
    /* two minutes of a node's CPU, hot: what metrics import reads and the
     * alert rule fires on */
    char metrics[600];
    snprintf(metrics, sizeof metrics, "%s/cpu.jsonl", dir);
    FILE *f = fopen(metrics, "w");
    if (!f)
        return 1;
    fputs("{\"t\": \"2026-10-31T23:58:00Z\", \"cpu_util\": 97}\n"
          "{\"t\": \"2026-10-31T23:59:00Z\", \"cpu_util\": 98}\n", f);
    fclose(f);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gcp_instance_body_whole_or_none),
        cmocka_unit_test(test_every_allocation_fails_cleanly),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    for (size_t i = 0; i < sizeof clean / sizeof clean[0]; i++)
        json_decref(clean[i]);
    /* everything in the directory is this program's: the snapshots, and
     * the store of a run a failure stopped */
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        char path[600];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (e->d_name[0] != '.')
            unlink(path);
    }
    if (d)
        closedir(d);
    rmdir(dir);
    return failed;
}
