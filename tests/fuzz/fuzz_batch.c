/* fuzz_batch.c - fuzz target (fuzz.h): batch lines (`rigdeck --batch -f
 * FILE`, -c LINE, the console's ':' prompt, a relayed request's words),
 * each split, matched to its command, checked against its declaration and
 * run by the one executor (core/cmd/cmd.c) on a real SQLite store holding
 * a small fleet.
 *
 * The input is a batch file: up to 64 lines, each run as tui/app/batch.c runs
 * it.  Only commands that touch nothing but the store run; a line naming
 * one that reaches the network or writes files (cloud, gcp, store,
 * datastore, provider, device deploy, alert eval) is split and matched but
 * not run.  Promises checked: a line succeeds with a result or fails with
 * one message and no result; the store stays readable. */
#include "fuzz.h"

#include <string.h>
#include <unistd.h>

#include "cmd.h"

const char *const fuzz_target_seed_dirs[] = { NULL };
const unsigned long fuzz_target_runs = 300;   /* whole commands on a store: slower than most */

const char *const fuzz_target_dict[] = {
    "account ", "create ", "deposit ", "set ", "show ", "list", "remove ", "region ", "node ", "job ", "submit ",
    "stop ", "report ", "metrics ", "show ", "ledger ", "balance ", "statement ", "bill run", "sched run",
    "price set a100 ", "project ", "alert rule add ", "--above ", "--below ", "--for ", "--metric ", "--as ",
    "--role ", "--state ", "--since ", "--until ", "--now ", "--", "--=", "\"", "'", "\\", "#", "\t",
    "2026-11-24T10:00:00Z", "default", "alice", "dc", "n1", "a100", "job-1", "help ", "tests/specs/", NULL,
};

static char dir[256], url[300];
static cmd_ctx ctx;
static int verbose;

static void run_line(const char *line)
{
    json_t *result = NULL;
    const cmd_def *def = NULL;
    rd_err err;
    rd_err_clear(&err);
    rd_code rc = cmd_exec_line(&ctx, line, &result, &def, &err);
    if (verbose)   /* RIGDECK_FUZZ_VERBOSE: what each line did, to see how deep the inputs reach */
        fprintf(stderr, "%s %s: %.*s\n", rd_code_name(rc), def ? def->words : "-", (int)strcspn(line, "\n"), line);
    if (rc != RD_OK)
        FUZZ_CHECK(result == NULL && err.msg[0] != '\0');
    json_decref(result);
}

/* At exit: the store closes (valgrind counts what it holds) and goes. */
static void close_store(void)
{
    static const char *const files[] = { "store.db", "store.db-wal", "store.db-shm", NULL };
    char path[320];
    cmd_ctx_close(&ctx);
    for (const char *const *f = files; *f; f++) {
        snprintf(path, sizeof path, "%s/%s", dir, *f);
        unlink(path);
    }
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *base = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/rdfuzz.XXXXXX", base && *base ? base : "/tmp");
    FUZZ_CHECK(mkdtemp(dir) != NULL);
    snprintf(url, sizeof url, "sqlite:%s/store.db", dir);
    ctx.store_url = url;
    ctx.actor = "default";
    ctx.now = 1795521600;   /* 2026-11-24T12:00:00Z */
    verbose = getenv("RIGDECK_FUZZ_VERBOSE") != NULL;
    atexit(close_store);
    static const char *const setup[] = {
        "provider enable physical",
        "region create dc --provider physical --storage local --public",
        "price set a100 2.78",
        "account deposit default 1000",
        "account create alice --role member",
        "node add dc n1 --agent none --minion m-1 --inventory tests/inventories/a100x2.yaml",
        "node maintenance n1 off",
        NULL,
    };
    for (const char *const *l = setup; *l; l++) {
        json_t *result = NULL;
        rd_err err;
        if (cmd_exec_line(&ctx, *l, &result, NULL, &err) != RD_OK) {
            fprintf(stderr, "fuzz_batch: setup '%s' failed: %s\n", *l, err.msg);
            abort();
        }
        json_decref(result);
    }
    return 0;
}

/* 1 when the line's command only reads and writes the store. */
static int store_only(const char *line)
{
    static const char *const off[] = { "cloud", "gcp", "store", "datastore", "provider", "device", "alert", NULL };
    cmd_words w;
    rd_err err;
    int ok = 1;
    if (cmd_split(line, &w, &err) != RD_OK)
        return 1;   /* refused before anything runs */
    for (const char *const *o = off; ok && *o && w.count; o++)
        ok = strcmp(w.words[0], *o) != 0;
    if (!ok && w.count >= 3 && strcmp(w.words[0], "alert") == 0 && strcmp(w.words[1], "eval") != 0)
        ok = 1;   /* alert rule ..., alert list, alert ack: the store only */
    cmd_words_free(&w);
    return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_strdup(data, size);
    int lines = 0;
    /* As getline hands them over: a line ends after its '\n'; a NUL ends
     * the C string the executor sees. */
    for (char *p = text; p < text + size && lines < 64; lines++) {
        char *nl = memchr(p, '\n', (size_t)(text + size - p));
        char *end = nl ? nl + 1 : text + size;
        char save = *end;
        *end = '\0';
        if (store_only(p))
            run_line(p);
        *end = save;
        p = end;
    }
    free(text);
    json_t *result = NULL;
    rd_err err;
    FUZZ_CHECK(cmd_exec_line(&ctx, "account show default", &result, NULL, &err) == RD_OK && result);
    json_decref(result);
    return 0;
}
