/* batch.c - the headless runner: lines in, results out, an exit status.
 *
 * Each line runs through the same executor as the console's ':' prompt.  A
 * refused line prints one line on stderr (and, with --output json, an error
 * document on stdout) and stops the run unless --keep-going.  The exit
 * status is the worst seen: store (3) over usage (2) over refusal (1).
 */
#include "batch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "jsonmem.h"
#include "table.h"

typedef struct {
    const rd_options *opt;
    cmd_ctx ctx;
    int status;
    int stop;
    int printed;       /* results printed so far (table mode) */
} batch_state;

static int severity(int status)
{
    /* store > usage > refused > ok */
    static const int rank[] = { 0, 1, 2, 3 };
    return status >= 0 && status <= 3 ? rank[status] : 3;
}

/* The contract is one stderr line per refused line: a message quoting input
 * that holds a line break (-c "account create 'a<newline>b'") must not
 * become two, so control characters print as '?'. */
static void put_one_line(const char *s)
{
    for (; *s; s++)
        fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, stderr);
}

static void print_error(batch_state *b, const char *where, const rd_err *err)
{
    fputs("rigdeck: ", stderr);
    if (where) {
        put_one_line(where);
        fputs(": ", stderr);
    }
    put_one_line(err->msg);
    fputc('\n', stderr);
    if (b->opt->json) {
        json_t *doc = json_pack("{s:{s:s, s:s}}", "error", "code", rd_code_name(err->code),
                                "message", err->msg);
        char *s = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
        if (s)
            printf("%s\n", s);
        free(s);
        json_decref(doc);
    }
}

size_t batch_text_width(const char *columns_env, int tty_cols)
{
    if (columns_env && *columns_env) {
        char *end;
        errno = 0;
        long n = strtol(columns_env, &end, 10);
        if (*end == '\0' && errno == 0 && n > 0 && n < 100000)
            return (size_t)n;
    }
    return tty_cols > 0 ? (size_t)tty_cols : 80;
}

/* The terminal's width on stdout, 0 when stdout is not a terminal. */
static int stdout_cols(void)
{
    struct winsize ws;
    if (!isatty(STDOUT_FILENO) || ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) != 0)
        return 0;
    return ws.ws_col;
}

/* help reads as prose for a person, so it is wrapped to the terminal (SSH
 * sessions are often 80 columns) instead of printed as a table whose lines
 * run to the longest usage; any other result is a table. */
static int print_table(const json_t *result, const cmd_def *def, const char *columns)
{
    char *text = NULL;
    int rc = 0;
    if (def && strcmp(def->words, "help") == 0)
        text = cmd_help_text(result, batch_text_width(getenv("COLUMNS"), stdout_cols()));
    if (def && (def->options & CMD_TEXT_RESULT)) {
        fputs(json_string_value(json_object_get(result, "text")) ? json_string_value(json_object_get(result, "text")) : "",
              stdout);
        free(text);
        return 0;
    }
    if (text)
        fputs(text, stdout);
    else
        rc = table_print(stdout, result, columns);
    free(text);
    return rc;
}

/* Prints a command's answer; RD_ENOMEM when it could not be printed whole
 * (the command itself ran: what it changed stands). */
static rd_code print_result(batch_state *b, const json_t *result, const cmd_def *def, rd_err *err)
{
    int failed = 0;
    unsigned long jfail = jsonmem_failures();
    if (!result)
        return RD_OK;
    if (b->opt->json) {
        /* 15 significant digits: 0.9 prints as 0.9, not 0.90000000000000002
         * (reals here are catalog figures and GPU fractions, never money) */
        char *s = json_dumps(result, JSON_COMPACT | JSON_REAL_PRECISION(15));
        if (s)
            printf("%s\n", s);
        failed = !s;
        free(s);
    } else if (b->opt->csv) {
        failed = table_print_csv(stdout, result, cmd_columns(&b->ctx, def)) != 0;
    } else {
        /* A blank line between the tables of consecutive commands (text
         * results, such as a worker's output, are printed as they are). */
        if (b->printed++ && !(def && (def->options & CMD_TEXT_RESULT)))
            putchar('\n');
        failed = print_table(result, def, cmd_columns(&b->ctx, def)) != 0;
    }
    fflush(stdout);
    if (failed || jsonmem_failures() != jfail)
        return rd_fail(err, RD_ENOMEM, "%s: out of memory printing its answer; the command ran, its answer is "
                       "incomplete", def ? def->words : "command");
    return RD_OK;
}

/* A refused line: its one error line, the run's status, and the end of
 * the run unless --keep-going. */
static void refuse_line(batch_state *b, const char *where, rd_code rc, const rd_err *err)
{
    print_error(b, where, err);
    int status = rd_code_exit_status(rc);
    if (severity(status) > severity(b->status))
        b->status = status;
    /* Nothing after an unreachable store can succeed. */
    if (!b->opt->keep_going || status == 3)
        b->stop = 1;
}

static void run_line(batch_state *b, const char *line, const char *where)
{
    json_t *result = NULL;
    const cmd_def *def = NULL;
    rd_err err;

    rd_err_clear(&err);
    b->ctx.now = b->opt->now_text ? b->opt->now : (rd_time)time(NULL);
    rd_code rc = cmd_exec_line(&b->ctx, line, &result, &def, &err);
    /* A following command (job logs --follow) names the line to run next,
     * until it says it is done. */
    while (rc == RD_OK) {
        if ((rc = print_result(b, result, def, &err)) != RD_OK)
            break;
        const json_t *follow = json_object_get(result, "follow");
        char next[1024];
        if (!follow || json_is_true(json_object_get(follow, "done"))) {
            json_decref(result);
            return;
        }
        snprintf(next, sizeof next, "%s", json_string_value(json_object_get(follow, "next")));
        json_decref(result);
        result = NULL;
        struct timespec ts = { 0, 500 * 1000000L };
        nanosleep(&ts, NULL);
        b->ctx.now = b->opt->now_text ? b->opt->now : (rd_time)time(NULL);
        rc = cmd_exec_line(&b->ctx, next, &result, &def, &err);
    }
    json_decref(result);   /* an answer that could not be printed */
    refuse_line(b, where, rc, &err);
}

static void run_stream(batch_state *b, FILE *in, const char *name)
{
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0;
    ssize_t n;
    while (!b->stop && (n = getline(&line, &cap, in)) != -1) {
        char where[512];
        lineno++;
        snprintf(where, sizeof where, "%s:%ld", name, lineno);
        /* The executor reads a line as a C string: "account deposit alice
         * 5<NUL> 00" would run as "account deposit alice 5".  A line with a
         * NUL byte is refused whole; nothing of it runs. */
        const char *nul = memchr(line, '\0', (size_t)n);
        if (nul) {
            rd_err err;
            rd_code rc = rd_fail(&err, RD_EINVAL,
                                 "a NUL byte at column %ld: a command line must not contain NUL bytes; "
                                 "nothing on this line ran", (long)(nul - line) + 1);
            refuse_line(b, where, rc, &err);
            continue;
        }
        run_line(b, line, where);
    }
    free(line);
}

/* The store's one-time schema upgrade: a line on stderr before and after,
 * so a script's log says why the first command took long. */
static void batch_store_notice(void *data, int done, const char *msg)
{
    (void)data;
    (void)done;
    fprintf(stderr, "rigdeck: %s\n", msg);
}

int batch_run(const rd_options *opt)
{
    store_opts sopts = { opt->cacert, opt->cert, opt->key, opt->etcd_user, opt->etcd_password_file, 0 };
    batch_state b;
    memset(&b, 0, sizeof b);
    b.opt = opt;
    b.ctx.store_url = opt->store_url;
    b.ctx.store_opts = &sopts;
    b.ctx.actor = opt->actor;
    b.ctx.actor_given = opt->actor_given;
    b.ctx.read_only = opt->read_only;
    b.ctx.master_key_path = opt->master_key && *opt->master_key ? opt->master_key : NULL;
    store_set_notice(batch_store_notice, NULL);

    for (size_t i = 0; i < opt->nlines && !b.stop; i++) {
        char where[32];
        snprintf(where, sizeof where, "-c #%zu", i + 1);
        run_line(&b, opt->lines[i], opt->nlines > 1 ? where : NULL);
    }
    for (size_t i = 0; i < opt->nfiles && !b.stop; i++) {
        FILE *f = strcmp(opt->files[i], "-") == 0 ? stdin : fopen(opt->files[i], "r");
        if (!f) {
            fprintf(stderr, "rigdeck: -f %s: cannot open: %s\n", opt->files[i], strerror(errno));
            b.status = 2;
            b.stop = 1;
            break;
        }
        run_stream(&b, f, opt->files[i]);
        if (f != stdin)
            fclose(f);
    }
    if (opt->nlines == 0 && opt->nfiles == 0)
        run_stream(&b, stdin, "stdin");
    cmd_ctx_close(&b.ctx);
    return b.status;
}
