/* cmd.c - the one parser and the one executor of the command language.
 *
 * Owns: splitting a line into words, finding the command in the tables,
 * checking arity and flags against its declaration, opening the store on
 * first use, and running the handler in a guarded transaction that commits
 * together with its audit entry (retried when a concurrent change wins).
 * A refused command writes nothing: its transaction is simply dropped.
 */
#include "rdtime.h"
#include "cmd.h"

#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "cmd_args_int.h"
#include "cmd_relay.h"
#include "jsonmem.h"
#include "keyspace.h"
#include "catalog.h"
#include "audit_log.h"
#include "strbuf.h"

/* A conflicting command is retried at least CMD_RETRIES times and for at
 * least CMD_RETRY_MS: on a loaded machine twenty quick tries can all lose
 * to the same busy writers, so the limit is time as much as count. */
#define CMD_RETRIES 20
#define CMD_RETRY_MS 10000



/* ---- splitting --------------------------------------------------------- */

/* One byte onto the word being built; 0 when memory ran out. */
static int sb_push(strbuf *b, char c)
{
    strbuf_append(b, &c, 1);
    return !b->failed;
}

static int words_push(cmd_words *w, strbuf *b)
{
    if (w->count >= CMD_MAX_WORDS)
        return 0;
    if (strbuf_reserve(b, 1) != 0)   /* an empty word ("") is a word */
        return 0;
    char **words = realloc(w->words, (w->count + 1) * sizeof *words);
    if (!words)
        return 0;
    w->words = words;
    w->words[w->count++] = b->text;
    b->text = NULL;
    b->len = b->cap = 0;
    return 1;
}

rd_code cmd_split(const char *line, cmd_words *out, rd_err *err)
{
    strbuf cur = { 0 };
    int in_word = 0;
    const char *p = line;

    memset(out, 0, sizeof *out);
    while (*p) {
        char c = *p;
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            if (in_word && !words_push(out, &cur))
                goto too_many;
            in_word = 0;
            p++;
        } else if (c == '#' && !in_word) {
            break;
        } else if (c == '\'') {
            const char *end = strchr(p + 1, '\'');
            if (!end) {
                rd_fail(err, RD_EUSAGE, "line has an unterminated single quote");
                goto fail;
            }
            if (strbuf_reserve(&cur, 1) != 0)
                goto nomem;
            for (const char *q = p + 1; q < end; q++)
                if (!sb_push(&cur, *q))
                    goto nomem;
            in_word = 1;
            p = end + 1;
        } else if (c == '"') {
            if (strbuf_reserve(&cur, 1) != 0)
                goto nomem;
            p++;
            while (*p && *p != '"') {
                if (*p == '\\' && p[1] && strchr("\"\\$`", p[1]))
                    p++;
                if (*p == '\\' && p[1] == '\n') {
                    p += 2;
                    continue;
                }
                if (!sb_push(&cur, *p++))
                    goto nomem;
            }
            if (*p != '"') {
                rd_fail(err, RD_EUSAGE, "line has an unterminated double quote");
                goto fail;
            }
            in_word = 1;
            p++;
        } else if (c == '\\') {
            if (!p[1]) {
                rd_fail(err, RD_EUSAGE, "line ends with a lone backslash");
                goto fail;
            }
            if (p[1] != '\n' && !sb_push(&cur, p[1]))
                goto nomem;
            in_word = in_word || p[1] != '\n';
            p += 2;
        } else {
            if (!sb_push(&cur, c))
                goto nomem;
            in_word = 1;
            p++;
        }
    }
    if (in_word && !words_push(out, &cur))
        goto too_many;
    strbuf_free(&cur);
    return RD_OK;
too_many:
    rd_fail(err, RD_EUSAGE, "line has more than %d words", CMD_MAX_WORDS);
    goto fail;
nomem:
    rd_fail(err, RD_ENOMEM, "out of memory");
fail:
    strbuf_free(&cur);
    cmd_words_free(out);
    return err ? err->code : RD_EUSAGE;
}

void cmd_words_free(cmd_words *w)
{
    for (size_t i = 0; i < w->count; i++)
        free(w->words[i]);
    free(w->words);
    w->words = NULL;
    w->count = 0;
}

/* ---- the tables -------------------------------------------------------- */

/* `help` is the executor's own command: it answers over every table
 * (cmd_help.c lays the answer out), so the help code needs no way back
 * to the list it describes. */
static rd_code help_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    (void)ctx;
    return cmd_help_answer(cmd_foreach, a, result, err);
}

static const cmd_def help_table[] = {
    { .words = "help", .args = "[COMMAND...]", .options = CMD_NO_STORE, .help = "list commands, or explain one",
      .columns = "command,help", .run = help_cmd },
    { 0 }
};

void cmd_foreach(void (*fn)(const cmd_def *def, void *data), void *data)
{
    const cmd_hooks *h = cmd_get_hooks();
    for (size_t t = 0; h && t < h->ntables; t++)
        for (const cmd_def *d = h->tables[t]; d->words; d++)
            fn(d, data);
    for (const cmd_def *d = help_table; d->words; d++)
        fn(d, data);
}

typedef struct {
    const char *words;
    const cmd_def *def;
} exact_find;

static void find_exact(const cmd_def *def, void *data)
{
    exact_find *f = data;
    if (!f->def && strcmp(def->words, f->words) == 0)
        f->def = def;
}

const cmd_def *cmd_find(const char *words)
{
    exact_find f = { words, NULL };
    if (words)
        cmd_foreach(find_exact, &f);
    return f.def;
}

/* Number of leading words of `words` that spell def->words, or 0. */
static size_t def_match(const cmd_def *def, const cmd_words *w)
{
    const char *p = def->words;
    size_t i = 0;
    while (*p) {
        size_t n = strcspn(p, " ");
        if (i >= w->count || strlen(w->words[i]) != n || strncmp(w->words[i], p, n) != 0)
            return 0;
        i++;
        p += n;
        while (*p == ' ')
            p++;
    }
    return i;
}

typedef struct {
    const cmd_words *w;
    const cmd_def *best;
    size_t best_len;
    int group_hit;       /* the first word names a command group */
} find_state;

static void find_one(const cmd_def *def, void *data)
{
    find_state *fs = data;
    size_t n = def_match(def, fs->w);
    if (n > fs->best_len) {
        fs->best = def;
        fs->best_len = n;
    }
    size_t first = strcspn(def->words, " ");
    if (strlen(fs->w->words[0]) == first && strncmp(def->words, fs->w->words[0], first) == 0)
        fs->group_hit = 1;
}

static const cmd_flag *flag_find(const cmd_def *def, const char *name, size_t len)
{
    for (const cmd_flag *f = def->flags; f && f->name; f++)
        if (strlen(f->name) == len && strncmp(f->name, name, len) == 0)
            return f;
    return NULL;
}

/* Checks value against "a|b|c"; returns 1 when it is one of them or when
 * choices is a placeholder (no '|'). */
static int choice_ok(const char *choices, const char *value)
{
    if (!choices || !strchr(choices, '|'))
        return 1;
    size_t vlen = strlen(value);
    for (const char *p = choices; *p;) {
        size_t n = strcspn(p, "|");
        if (n == vlen && strncmp(p, value, n) == 0)
            return 1;
        p += n;
        if (*p == '|')
            p++;
    }
    return 0;
}

static rd_code choice_fail(rd_err *err, const char *field, const char *choices, const char *value)
{
    char list[256];
    size_t j = 0;
    for (const char *p = choices; *p && j + 3 < sizeof list; p++) {
        if (*p == '|') {
            list[j++] = ',';
            list[j++] = ' ';
        } else {
            list[j++] = *p;
        }
    }
    list[j] = '\0';
    return rd_fail(err, RD_EINVAL, "%s must be one of %s, got '%s'", field, list, value);
}

/* Counts the positional slots of "NAME [ACCOUNT] ITEM..." (max -1: unbounded). */
static void args_arity(const char *spec, int *min, int *max)
{
    *min = *max = 0;
    for (const char *p = spec ? spec : ""; *p;) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        size_t n = strcspn(p, " ");
        int optional = *p == '[';
        size_t core = optional && p[n - 1] == ']' ? n - 1 : n;
        int repeat = core >= 3 && strncmp(p + core - 3, "...", 3) == 0;
        if (!optional)
            (*min)++;
        if (*max >= 0)
            *max = repeat ? -1 : *max + 1;
        p += n;
    }
}

/* The i-th positional slot's text ("on|off|toggle"), copied into buf. */
static const char *args_slot(const char *spec, size_t idx, char *buf, size_t len)
{
    for (const char *p = spec ? spec : ""; *p;) {
        while (*p == ' ')
            p++;
        size_t n = strcspn(p, " ");
        if (n && idx-- == 0) {
            snprintf(buf, len, "%.*s", (int)n, p);
            return buf;
        }
        p += n;
    }
    return NULL;
}

static rd_code args_parse(const cmd_def *def, const cmd_words *w, size_t first,
                          cmd_args *a, rd_err *err)
{
    int only_pos = 0;
    memset(a, 0, sizeof *a);
    a->def = def;
    for (size_t i = first; i < w->count; i++) {
        const char *word = w->words[i];
        if (!only_pos && strcmp(word, "--") == 0) {
            only_pos = 1;
            continue;
        }
        if (only_pos || strncmp(word, "--", 2) != 0) {
            a->pos[a->npos++] = word;
            continue;
        }
        const char *name = word + 2;
        const char *eq = strchr(name, '=');
        size_t nlen = eq ? (size_t)(eq - name) : strlen(name);
        const cmd_flag *f = flag_find(def, name, nlen);
        if (!f)
            return rd_fail(err, RD_EUSAGE, "%s: unknown option --%.*s (see 'help %s')",
                           def->words, (int)nlen, name, def->words);
        const char *value = NULL;
        if (f->flags & CMD_FLAG_VALUE) {
            if (eq)
                value = eq + 1;
            else if (i + 1 < w->count)
                value = w->words[++i];
            else
                return rd_fail(err, RD_EUSAGE, "%s: option --%s needs a value (%s)",
                               def->words, f->name, f->value);
            if (!choice_ok(f->value, value)) {
                char field[64];
                snprintf(field, sizeof field, "--%s", f->name);
                return choice_fail(err, field, f->value, value);
            }
        } else if (eq) {
            return rd_fail(err, RD_EUSAGE, "%s: option --%s takes no value", def->words, f->name);
        }
        if (!(f->flags & CMD_FLAG_REPEAT) && cmd_opt_given(a, f->name))
            return rd_fail(err, RD_EUSAGE, "%s: option --%s given twice", def->words, f->name);
        a->opts[a->nopts].name = f->name;
        a->opts[a->nopts].value = value;
        a->nopts++;
    }

    int min, max;
    args_arity(def->args, &min, &max);
    if ((int)a->npos < min || (max >= 0 && (int)a->npos > max)) {
        char *usage = cmd_usage(def);
        rd_fail(err, RD_EUSAGE, "%s: expected %s%s, got %zu argument%s; usage: %s", def->words,
                max == min ? "" : "at least ", def->args && *def->args ? def->args : "no arguments",
                a->npos, a->npos == 1 ? "" : "s", usage ? usage : def->words);
        free(usage);
        return RD_EUSAGE;
    }
    for (size_t i = 0; i < a->npos; i++) {
        char slot[128];
        if (args_slot(def->args, i, slot, sizeof slot) && strchr(slot, '|') &&
            !choice_ok(slot, a->pos[i])) {
            char field[160];
            snprintf(field, sizeof field, "%s: argument %zu", def->words, i + 1);
            return choice_fail(err, field, slot, a->pos[i]);
        }
    }
    for (const cmd_flag *f = def->flags; f && f->name; f++)
        if ((f->flags & CMD_FLAG_REQUIRED) && !cmd_opt_given(a, f->name))
            return rd_fail(err, RD_EUSAGE, "%s: option --%s %s is required", def->words,
                           f->name, f->value ? f->value : "");
    return RD_OK;
}


/* ---- running ----------------------------------------------------------- */

/* The line as the audit trail shows it: words re-quoted, secret values
 * replaced by "***". */
static char *redacted_line(const cmd_def *def, const cmd_words *w)
{
    size_t len = 1;
    for (size_t i = 0; i < w->count; i++)
        len += strlen(w->words[i]) * 4 + 4;
    char *s = malloc(len), *p = s;
    if (!s)
        return NULL;
    *p = '\0';
    for (size_t i = 0; i < w->count; i++) {
        const char *word = w->words[i];
        int hide = 0;
        if (i > 0 && strncmp(w->words[i - 1], "--", 2) == 0 && !strchr(w->words[i - 1], '=')) {
            const cmd_flag *f = flag_find(def, w->words[i - 1] + 2, strlen(w->words[i - 1] + 2));
            hide = f && (f->flags & CMD_FLAG_SECRET) && (f->flags & CMD_FLAG_VALUE);
        }
        if (strncmp(word, "--", 2) == 0 && strchr(word, '=')) {
            const char *eq = strchr(word, '=');
            const cmd_flag *f = flag_find(def, word + 2, (size_t)(eq - word - 2));
            if (f && (f->flags & CMD_FLAG_SECRET)) {
                p += sprintf(p, "%s%.*s=***", i ? " " : "", (int)(eq - word), word);
                continue;
            }
        }
        if (i)
            *p++ = ' ';
        if (hide) {
            p += sprintf(p, "***");
        } else if (*word && !word[strcspn(word, " \t\n'\"\\#$`")]) {
            p += sprintf(p, "%s", word);
        } else {
            *p++ = '\'';
            for (const char *q = word; *q; q++) {
                if (*q == '\'') {
                    memcpy(p, "'\\''", 4);
                    p += 4;
                } else {
                    *p++ = *q;
                }
            }
            *p++ = '\'';
        }
        *p = '\0';
    }
    return s;
}

rd_code cmd_ctx_open_store(cmd_ctx *ctx, rd_err *err)
{
    if (ctx->store)
        return RD_OK;
    rd_code rc = store_open(ctx->store_url, ctx->store_opts, &ctx->store, err);
    if (rc != RD_OK)
        return rc;
    const char *user = store_identity(ctx->store);
    if (user) {
        /* A secured store: whether this identity may read rigdeck's
         * documents at all decides between acting directly (admins) and
         * sending requests to the controller (everyone else). */
        store_kv kv;
        int found = 0;
        rd_err probe = { 0 };
        rc = store_get(ctx->store, KEY_META_STORE, &kv, &found, NULL, &probe);
        store_kv_free(&kv);
        ctx->relayed = rc == RD_EPERM;
        ctx->identity = strcmp(user, "root") == 0 ? "default" : user;
        if (!ctx->actor_given)
            ctx->actor = ctx->identity;
        if (ctx->relayed)
            return RD_OK;
    }
    const cmd_hooks *h = cmd_get_hooks();
    rc = h && h->store_init ? h->store_init(ctx->store, ctx->now, err)
                            : rd_fail(err, RD_ESTORE, "store: no store bootstrap installed (app_init)");
    if (rc != RD_OK) {
        store_close(ctx->store);
        ctx->store = NULL;
    }
    return rc;
}

void cmd_ctx_upgrade(cmd_ctx *ctx)
{
    const cmd_hooks *h = cmd_get_hooks();
    if (ctx->upgraded || !ctx->store || ctx->relayed || ctx->read_only)
        return;
    ctx->upgraded = 1;
    if (h && h->store_upgrade)
        h->store_upgrade(ctx);
}

void cmd_ctx_close(cmd_ctx *ctx)
{
    store_close(ctx->store);
    ctx->store = NULL;
    cmd_ctx_drop_memos(ctx);
}

void *cmd_ctx_memo(const cmd_ctx *ctx, const void *key)
{
    for (int i = 0; i < CMD_CTX_MEMOS; i++)
        if (ctx->memos[i].key == key)
            return ctx->memos[i].data;
    return NULL;
}

rd_code cmd_ctx_set_memo(cmd_ctx *ctx, const void *key, void *data, void (*free_fn)(void *), rd_err *err)
{
    cmd_memo *slot = NULL;
    for (int i = 0; i < CMD_CTX_MEMOS && !slot; i++)
        if (ctx->memos[i].key == key)
            slot = &ctx->memos[i];
    for (int i = 0; i < CMD_CTX_MEMOS && !slot; i++)
        if (!ctx->memos[i].key)
            slot = &ctx->memos[i];
    if (!slot) {
        if (data && free_fn)
            free_fn(data);
        return rd_fail(err, RD_ENOMEM, "no room for another memo in this context (%d)", CMD_CTX_MEMOS);
    }
    if (slot->data && slot->free && slot->data != data)
        slot->free(slot->data);
    *slot = data ? (cmd_memo){ .key = key, .data = data, .free = free_fn } : (cmd_memo){ 0 };
    return RD_OK;
}

void cmd_ctx_drop_memos(cmd_ctx *ctx)
{
    for (int i = 0; i < CMD_CTX_MEMOS; i++) {
        if (ctx->memos[i].data && ctx->memos[i].free)
            ctx->memos[i].free(ctx->memos[i].data);
        ctx->memos[i] = (cmd_memo){ 0 };
    }
}

/* Results never carry secrets: every field whose name starts with "secret"
 * is dropped here, in one place, whatever the handler returned. */
static void cmd_strip_secrets(json_t *v)
{
    if (json_is_object(v)) {
        const char *k;
        json_t *val;
        void *tmp;
        json_object_foreach_safe(v, tmp, k, val) {
            if (strncmp(k, "secret", 6) == 0)
                json_object_del(v, k);
            else
                cmd_strip_secrets(val);
        }
    } else if (json_is_array(v)) {
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e)
            cmd_strip_secrets(e);
    }
}

/* A per-thread random sequence for the jitter, seeded from the kernel:
 * with rand() unseeded every process waited the same amounts and the same
 * writers kept colliding. */
static uint64_t jitter_next(void)
{
    static _Thread_local uint64_t state;
    if (!state) {
        if (getrandom(&state, sizeof state, GRND_NONBLOCK) != (ssize_t)sizeof state)
            state = (uint64_t)(uintptr_t)&state ^ (uint64_t)clock();
        state |= 1;
    }
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

static void backoff(int attempt)
{
    /* Spread retrying writers apart: half of 1, 2, 4 ... 128 ms, plus a
     * random part of the same size. */
    long cap_us = 1000L << (attempt < 7 ? attempt : 7);
    long us = cap_us / 2 + (long)(jitter_next() % (uint64_t)(cap_us / 2 + 1));
    struct timespec ts = { us / 1000000L, (us % 1000000L) * 1000L };
    while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
        ;
}

rd_code cmd_relay_mark_done(rd_tx *tx, const cmd_ctx *ctx, rd_err *err)
{
    if (!ctx->relay_done_key)
        return RD_OK;
    json_t *mark = json_pack("{s:b}", "answered", 1);
    return mark ? tx_put_lease(tx, ctx->relay_done_key, mark, ctx->relay_done_lease, err)
                : rd_fail(err, RD_ENOMEM, "out of memory");
}

/* A relayed request that changes the store is answered, and its id marked
 * answered, in the same commit that makes the change, so a controller that
 * dies in between can never run it twice, nor can the id put again. */
static rd_code cmd_stage_relay_reply(cmd_ctx *ctx, const json_t *result, rd_err *err)
{
    json_t *old = NULL, *copy = result ? json_deep_copy(result) : json_null();
    rd_code rc = copy ? tx_get(ctx->tx, ctx->relay_req_key, &old, err) : rd_fail(err, RD_ENOMEM, "out of memory");
    if (rc == RD_OK && !old)
        rc = rd_fail(err, RD_ECONFLICT, "the relayed request was withdrawn");
    json_decref(old);
    if (rc == RD_OK) {
        cmd_strip_secrets(copy);
        rc = tx_put(ctx->tx, ctx->relay_rep_key, json_pack("{s:b, s:O}", "ok", 1, "result", copy), err);
    }
    if (rc == RD_OK)
        rc = tx_delete(ctx->tx, ctx->relay_req_key, err);
    if (rc == RD_OK)
        rc = cmd_relay_mark_done(ctx->tx, ctx, err);
    json_decref(copy);
    return rc;
}

static rd_code run_attempt(cmd_ctx *ctx, const cmd_def *def, const cmd_args *args,
                           json_t **result, rd_err *err)
{
    rd_code rc = RD_OK;
    if (!(def->options & CMD_NO_STORE)) {
        json_t *gpus = NULL;
        /* the operator's GPU types, as this attempt's snapshot sees them:
         * every look-up of the command (and of a scheduler pass) reads them */
        rc = tx_list(ctx->tx, KEY_GPUS, &gpus, err);
        catalog_gpu_load_added(gpus);
        json_decref(gpus);
        /* the guard: without one installed, nothing on the store runs */
        const cmd_hooks *h = cmd_get_hooks();
        if (rc == RD_OK)
            rc = h && h->guard ? h->guard(ctx, def, args, err)
                               : rd_fail(err, RD_EPERM, "%s: refused: no access guard installed (app_init)", def->words);
        if (rc != RD_OK)
            return rc;
    }
    unsigned long jfail = jsonmem_failures();
    rc = def->run(ctx, args, result, err);
    /* A handler always answers something; RD_OK with no result is a failed
     * json_pack of that answer (out of memory), and committing then would
     * change the store yet answer success with nothing.  A jansson
     * allocation that failed while it ran may have left a field out of the
     * answer (an unchecked json_object_set_new): refused the same way. */
    if (rc == RD_OK && (!*result || jsonmem_failures() != jfail))
        rc = rd_fail(err, RD_ENOMEM, "%s: out of memory", def->words);
    if (rc != RD_OK || !(def->options & CMD_MUTATES) || tx_write_count(ctx->tx) == 0)
        return rc;
    rc = audit_log_append_by(ctx->tx, ctx->actor, ctx->identity, ctx->line, ctx->now, err);
    if (rc == RD_OK && ctx->relay_req_key)
        rc = cmd_stage_relay_reply(ctx, *result, err);
    if (rc == RD_OK)
        rc = tx_commit(ctx->tx, NULL, err);
    return rc;
}

/* 1 when def declares --name. */
static int def_has_flag(const cmd_def *def, const char *name)
{
    for (const cmd_flag *f = def->flags; f && f->name; f++)
        if (strcmp(f->name, name) == 0)
            return 1;
    return 0;
}

const char *cmd_columns(const cmd_ctx *ctx, const cmd_def *def)
{
    if (ctx->columns[0])
        return ctx->columns;
    return def ? def->columns : NULL;
}

rd_code cmd_exec_words(cmd_ctx *ctx, const cmd_words *w, json_t **result,
                       const cmd_def **defp, rd_err *err)
{
    jsonmem_install();
    *result = NULL;
    ctx->columns[0] = '\0';
    ctx->exec_line = cmd_exec_line;
    if (defp)
        *defp = NULL;
    if (w->count == 0)
        return RD_OK;

    find_state fs = { w, NULL, 0, 0 };
    cmd_foreach(find_one, &fs);
    if (!fs.best) {
        if (fs.group_hit)
            return rd_fail(err, RD_EUSAGE, "%s: unknown subcommand '%s' (see 'help %s')",
                           w->words[0], w->count > 1 ? w->words[1] : "", w->words[0]);
        return rd_fail(err, RD_EUSAGE, "unknown command '%s' (see 'help')", w->words[0]);
    }
    const cmd_def *def = fs.best;
    if (defp)
        *defp = def;

    cmd_args *args = malloc(sizeof *args);
    if (!args)
        return rd_fail(err, RD_ENOMEM, "out of memory");
    rd_code rc = args_parse(def, w, fs.best_len, args, err);
    if (rc != RD_OK)
        goto out;
    /* a list asked for some fields shows those, in the order asked (the
     * handler refuses names it does not know, and lists too long) */
    if (def_has_flag(def, "fields") && cmd_opt(args, "fields"))
        snprintf(ctx->columns, sizeof ctx->columns, "%s", cmd_opt(args, "fields"));
    if ((def->options & CMD_MUTATES) && ctx->read_only) {
        rc = rd_fail(err, RD_EPERM, "%s: refused, this session is read-only (--read-only)", def->words);
        goto out;
    }
    if (!(def->options & CMD_NO_STORE) && (rc = cmd_ctx_open_store(ctx, err)) != RD_OK)
        goto out;
    if (!(def->options & CMD_NO_STORE) && ctx->relayed) {
        rc = cmd_relay_exec(ctx, def, w, args, result, err);
        goto out;
    }
    if (def->options & CMD_MUTATES)
        cmd_ctx_upgrade(ctx);

    char *line = redacted_line(def, w);
    rd_tx *tx = ctx->store ? tx_new(ctx->store) : NULL;
    if (!line || (ctx->store && !tx)) {
        free(line);
        tx_free(tx);
        rc = rd_fail(err, RD_ENOMEM, "out of memory");
        goto out;
    }
    ctx->line = line;
    ctx->tx = tx;
    if (tx && ctx->fence_key)
        tx_set_fence(tx, ctx->fence_key, ctx->fence_rev);
    int64_t started = rdtime_mono_ms();
    for (int attempt = 0;; attempt++) {
        rc = run_attempt(ctx, def, args, result, err);
        if (rc != RD_ECONFLICT || (attempt >= CMD_RETRIES && rdtime_mono_ms() - started >= CMD_RETRY_MS))
            break;
        json_decref(*result);
        *result = NULL;
        tx_reset(tx);
        backoff(attempt);
    }
    if (rc != RD_OK) {
        json_decref(*result);
        *result = NULL;
    }
    cmd_strip_secrets(*result);
    ctx->tx = NULL;
    ctx->line = NULL;
    tx_free(tx);
    free(line);
out:
    free(args);
    return rc;
}

rd_code cmd_exec_line(cmd_ctx *ctx, const char *line, json_t **result,
                      const cmd_def **def, rd_err *err)
{
    cmd_words w;
    *result = NULL;
    if (def)
        *def = NULL;
    rd_code rc = cmd_split(line, &w, err);
    if (rc != RD_OK)
        return rc;
    rc = cmd_exec_words(ctx, &w, result, def, err);
    cmd_words_free(&w);
    return rc;
}
