/* cmd_relay.c - the client half of the request relay.
 *
 * On a secured etcd store an account that is not an admin cannot read or
 * write rigdeck's documents at all: the store lets it write only under
 * /rigdeck/relay/<user>/.  Its commands travel there as requests, the
 * controller (`rigdeck serve`, core/access/relay.c) runs them as that
 * account with every rule and filter the executor applies, and puts the
 * answer next to the request.  This file sends a parsed command, with the
 * contents of the local files it names (the controller cannot read this
 * host's files), and waits for the answer.
 *
 *   /rigdeck/relay/<user>/req/<id>  {"words": [...], "files": [{"word": i, "prefix": "--x=", "text": ...}]}
 *   /rigdeck/relay/<user>/rep/<id>  {"ok": true, "result": ...} or {"ok": false, "code": N, "message": ...}
 */
#include "cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "cmd_args_int.h"
#include "cmd_relay.h"
#include "keyspace.h"
#include "rdtime.h"

enum {
    RELAY_FILE_MAX = 1024 * 1024,   /* etcd takes requests up to 1.5 MiB */
    RELAY_POLL_MIN_MS = 2,
    RELAY_POLL_MAX_MS = 100
};

/* 1 when the placeholder names a local file ("FILE", "F"). */
static int is_file_word(const char *placeholder, size_t len)
{
    return (len == 4 && strncmp(placeholder, "FILE", 4) == 0) || (len == 1 && placeholder[0] == 'F');
}

/* The placeholder of positional argument k in def->args ("NODE FILE"). */
static int positional_is_file(const cmd_def *def, size_t k)
{
    const char *p = def->args;
    for (size_t i = 0; *p; i++) {
        p += strspn(p, " []");
        size_t n = strcspn(p, " []");
        if (i == k)
            return is_file_word(p, n);
        p += n;
    }
    return 0;
}

static rd_code read_text(const char *path, json_t **text, rd_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return rd_fail(err, RD_EINVAL, "%s: cannot read the file", path);
    char *buf = malloc(RELAY_FILE_MAX + 1);
    size_t n = buf ? fread(buf, 1, RELAY_FILE_MAX + 1, f) : 0;
    fclose(f);
    if (!buf)
        return rd_fail(err, RD_ENOMEM, "out of memory");
    rd_code rc = RD_OK;
    if (n > RELAY_FILE_MAX)
        rc = rd_fail(err, RD_EINVAL, "%s: larger than %d bytes, too large to send to the controller", path,
                     RELAY_FILE_MAX);
    else if (!(*text = json_stringn(buf, n)))
        rc = rd_fail(err, RD_EINVAL, "%s: not UTF-8 text", path);
    free(buf);
    return rc;
}

/* Which word a parsed value points into, and what precedes it there
 * ("--inventory=" for the joined form). */
static int word_of(const cmd_words *w, const char *value, size_t *index, size_t *prefix)
{
    for (size_t i = 0; i < w->count; i++) {
        size_t len = strlen(w->words[i]);
        if (value >= w->words[i] && value <= w->words[i] + len) {
            *index = i;
            *prefix = (size_t)(value - w->words[i]);
            return 1;
        }
    }
    return 0;
}

static rd_code add_file(json_t *files, const cmd_words *w, const char *value, rd_err *err)
{
    size_t i, prefix;
    json_t *text = NULL;
    if (!word_of(w, value, &i, &prefix))
        return RD_OK;
    rd_code rc = read_text(value, &text, err);
    if (rc == RD_OK && json_array_append_new(files, json_pack("{s:I, s:s%, s:o}", "word", (json_int_t)i, "prefix",
                                                              w->words[i], prefix, "text", text)))
        rc = rd_fail(err, RD_ENOMEM, "out of memory");
    return rc;
}

static json_t *request_new(const cmd_def *def, const cmd_words *w, const cmd_args *a, rd_err *err)
{
    json_t *words = json_array(), *files = json_array();
    rd_code rc = words && files ? RD_OK : rd_fail(err, RD_ENOMEM, "out of memory");
    for (size_t i = 0; rc == RD_OK && i < w->count; i++)
        if (json_array_append_new(words, json_string(w->words[i])))
            rc = rd_fail(err, RD_EINVAL, "word %zu is not UTF-8 text", i + 1);
    for (size_t k = 0; rc == RD_OK && k < a->npos; k++)
        if (positional_is_file(def, k))
            rc = add_file(files, w, a->pos[k], err);
    for (size_t k = 0; rc == RD_OK && k < a->nopts; k++) {
        const cmd_flag *f = def->flags;
        while (f && f->name && strcmp(f->name, a->opts[k].name) != 0)
            f++;
        if (a->opts[k].value && f && f->name && f->value && is_file_word(f->value, strlen(f->value)))
            rc = add_file(files, w, a->opts[k].value, err);
    }
    if (rc != RD_OK) {
        json_decref(words);
        json_decref(files);
        return NULL;
    }
    return json_pack("{s:o, s:o}", "words", words, "files", files);
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* Puts doc at key when key is free; deletes key when doc is NULL and key
 * exists.  *done says whether the write happened. */
static rd_code put_or_take(store_t *st, const char *key, json_t *doc, int *done, rd_err *err)
{
    rd_tx *tx = tx_new(st);
    json_t *old = NULL;
    rd_code rc = tx ? tx_get(tx, key, &old, err) : rd_fail(err, RD_ENOMEM, "out of memory");
    *done = 0;
    if (rc == RD_OK && (doc ? !old : old != NULL)) {
        rc = doc ? tx_put(tx, key, json_incref(doc), err) : tx_delete(tx, key, err);
        if (rc == RD_OK)
            rc = tx_commit(tx, NULL, err);
        *done = rc == RD_OK;
    }
    json_decref(old);
    tx_free(tx);
    return rc;
}

/* Waits for the answer at key until deadline (monotonic ms). */
static rd_code wait_reply(store_t *st, const char *key, int64_t deadline, json_t **reply, rd_err *err)
{
    long pause = RELAY_POLL_MIN_MS;
    *reply = NULL;
    for (;;) {
        rd_tx *tx = tx_new(st);
        rd_code rc = tx ? tx_get(tx, key, reply, err) : rd_fail(err, RD_ENOMEM, "out of memory");
        tx_free(tx);
        if (rc != RD_OK || *reply || rdtime_mono_ms() >= deadline)
            return rc;
        sleep_ms(pause);
        pause = pause * 2 > RELAY_POLL_MAX_MS ? RELAY_POLL_MAX_MS : pause * 2;
    }
}

rd_code cmd_relay_exec(cmd_ctx *ctx, const cmd_def *def, const cmd_words *w, const cmd_args *a, json_t **result,
                       rd_err *err)
{
    char req_key[RD_KEY_MAX], rep_key[RD_KEY_MAX];
    uint64_t id = 0;
    int done = 0;
    const char *user = store_identity(ctx->store);
    if (ctx->actor_given && strcmp(ctx->actor, user) != 0)
        return rd_fail(err, RD_EPERM, "--as: only an admin may act as another account; you are '%s'", user);
    if (getrandom(&id, sizeof id, 0) != (ssize_t)sizeof id)
        id = (uint64_t)rdtime_mono_ms() * 2654435761u;
    tx_key(req_key, KEY_RELAY "%s/req/%016llx", user, (unsigned long long)id);
    tx_key(rep_key, KEY_RELAY "%s/rep/%016llx", user, (unsigned long long)id);
    json_t *req = request_new(def, w, a, err), *reply = NULL;
    if (!req)
        return err ? err->code : RD_ENOMEM;
    rd_code rc = put_or_take(ctx->store, req_key, req, &done, err);
    json_decref(req);
    if (rc != RD_OK)
        return rc;
    int64_t deadline = rdtime_mono_ms() + CMD_RELAY_WAIT_MS;
    rc = wait_reply(ctx->store, rep_key, deadline, &reply, err);
    if (rc == RD_OK && !reply) {
        /* Nobody took it: withdraw it so it never runs late.  If the
         * controller took it meanwhile, its answer is on the way. */
        if ((rc = put_or_take(ctx->store, req_key, NULL, &done, err)) == RD_OK && done)
            return rd_fail(err, RD_ESTORE, "no controller answered within %d s: on a secured store the commands of "
                           "accounts that are not admins run through `rigdeck serve`; is it running?",
                           CMD_RELAY_WAIT_MS / 1000);
        if (rc == RD_OK)
            rc = wait_reply(ctx->store, rep_key, rdtime_mono_ms() + CMD_RELAY_WAIT_MS, &reply, err);
        if (rc == RD_OK && !reply)
            return rd_fail(err, RD_ESTORE, "the controller took the request but did not answer within %d s",
                           2 * CMD_RELAY_WAIT_MS / 1000);
    }
    if (rc != RD_OK)
        return rc;
    put_or_take(ctx->store, rep_key, NULL, &done, NULL);
    if (json_is_true(json_object_get(reply, "ok"))) {
        *result = json_incref(json_object_get(reply, "result"));
        if (json_is_null(*result)) {
            json_decref(*result);
            *result = NULL;
        }
    } else {
        json_int_t code = json_integer_value(json_object_get(reply, "code"));
        const char *msg = json_string_value(json_object_get(reply, "message"));
        rc = rd_fail(err, code > RD_OK && code <= RD_ENOMEM ? (rd_code)code : RD_EINVAL, "%s",
                     msg ? msg : "the controller refused the command");
    }
    json_decref(reply);
    return rc;
}
