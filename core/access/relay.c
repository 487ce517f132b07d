/* relay.c - the controller's half of the request relay (the client's is
 * core/cmd/cmd_relay.c; docs/security.md explains why it exists).
 *
 * The store lets an etcd user write only under /rigdeck/relay/<user>/, so
 * a request found there was put by that user (or by an admin).  The
 * controller runs it as the account of that name through the one
 * executor, so every role check, ownership rule and visibility filter
 * applies exactly as in batch, and answers next to it.  A request that
 * changes the store is answered in the same commit as the change (cmd.c);
 * one that fails or only reads is answered afterwards, which may repeat a
 * read if the controller dies in between but never a change.  Either
 * commit also marks the id answered (/rigdeck/relay-done/, a key no user
 * may write), so the same id put again never runs again.
 *
 * The command's file arguments resolve only to the texts the request
 * carries (ctx.relay_files, read by cmd_file.c): the sender may not read
 * the controller's disk, so nothing here or in a handler opens a path
 * for it.
 */
#include "relay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "keyspace.h"
#include "rdtime.h"

enum {
    RELAY_REPLY_MAX = 1024 * 1024,    /* under etcd's 1.5 MiB request limit */
    RELAY_DONE_KEEP_S = 24 * 3600,    /* how long an answered id is remembered, at least */
    RELAY_DONE_RENEW_S = 3600         /* how often the lease it is kept under is new */
};

/* Splits "<user>/req/<id>" after KEY_RELAY; 0 when the key is no request. */
static int parse_key(const char *key, char *user, size_t ucap, const char **id)
{
    const char *p = key + strlen(KEY_RELAY), *slash = strchr(p, '/');
    if (!slash || (size_t)(slash - p) >= ucap || slash == p || strncmp(slash, "/req/", 5) != 0 || !slash[5] ||
        strchr(slash + 5, '/'))
        return 0;
    snprintf(user, ucap, "%.*s", (int)(slash - p), p);
    *id = slash + 5;
    return 1;
}

/* The account that owns node's region, in owner; 0 when unknown. */
static int node_owner(store_t *st, const char *node, char *owner, size_t cap)
{
    char key[RD_KEY_MAX];
    json_t *doc = NULL, *region = NULL;
    rd_tx *tx = tx_new(st);
    int ok = tx && tx_get(tx, tx_key(key, KEY_NODES "%s", node), &doc, NULL) == RD_OK && doc &&
             tx_get(tx, tx_key(key, KEY_REGIONS "%s", doc_str(doc, "region")), &region, NULL) == RD_OK && region;
    if (ok)
        snprintf(owner, cap, "%s", doc_str(region, "owner"));
    json_decref(doc);
    json_decref(region);
    tx_free(tx);
    return ok && owner[0];
}

/* The request's files as {path: text}: what the command's file arguments
 * resolve to, and all they may resolve to (cmd_file.c).  Each names the
 * word it belongs to and what precedes the path there ("--inventory="). */
static rd_code files_from(const json_t *files, const cmd_words *w, json_t **out, rd_err *err)
{
    size_t i;
    json_t *f;
    if (!(*out = json_object()))
        return rd_fail(err, RD_ENOMEM, "out of memory");
    if (files && !json_is_array(files))
        return rd_fail(err, RD_EINVAL, "relayed request: \"files\" must be a list");
    json_array_foreach(files, i, f) {
        json_int_t word = json_integer_value(json_object_get(f, "word"));
        const char *prefix = json_string_value(json_object_get(f, "prefix"));
        json_t *text = json_object_get(f, "text");
        if (word < 0 || (size_t)word >= w->count || !prefix || !json_is_string(text) ||
            strncmp(w->words[word], prefix, strlen(prefix)) != 0)
            return rd_fail(err, RD_EINVAL, "relayed request: file %zu is malformed", i + 1);
        if (json_object_set(*out, w->words[word] + strlen(prefix), text))
            return rd_fail(err, RD_ENOMEM, "out of memory");
    }
    return RD_OK;
}

static rd_code words_from(const json_t *req, cmd_words *w, rd_err *err)
{
    const json_t *words = json_object_get(req, "words");
    size_t i;
    json_t *v;
    memset(w, 0, sizeof *w);
    if (!json_is_array(words) || json_array_size(words) == 0 || json_array_size(words) > CMD_MAX_WORDS)
        return rd_fail(err, RD_EINVAL, "relayed request: \"words\" must be a list of 1-%d strings", CMD_MAX_WORDS);
    w->words = calloc(json_array_size(words), sizeof *w->words);
    if (!w->words)
        return rd_fail(err, RD_ENOMEM, "out of memory");
    json_array_foreach(words, i, v) {
        if (!json_is_string(v) || !(w->words[i] = strdup(json_string_value(v)))) {
            w->count = i;
            return rd_fail(err, RD_EINVAL, "relayed request: word %zu is not a string", i + 1);
        }
    }
    w->count = json_array_size(words);
    return RD_OK;
}

/* A request whose id was answered before (put again by hand, or by a
 * client retrying a write whose reply it lost): it never runs again.  An
 * answer still waiting for its reader stays as it is; else the request
 * is answered with a refusal.  Guarded on the request being unchanged. */
static rd_code answer_again(store_t *st, const char *req_key, const char *rep_key, const char *id, rd_err *err)
{
    rd_tx *tx = tx_new(st);
    json_t *old = NULL, *rep = NULL;
    rd_code rc = tx ? tx_get(tx, req_key, &old, err) : rd_fail(err, RD_ENOMEM, "out of memory");
    if (rc == RD_OK && old)
        rc = tx_get(tx, rep_key, &rep, err);
    if (rc == RD_OK && old && !rep) {
        char msg[RD_KEY_MAX + 100];
        snprintf(msg, sizeof msg, "relayed request %s was already answered; a request runs once (send it again "
                 "under a new id)", id);
        rc = tx_put(tx, rep_key, json_pack("{s:b, s:i, s:s}", "ok", 0, "code", RD_EINVAL, "message", msg), err);
    }
    if (rc == RD_OK && old)
        rc = tx_delete(tx, req_key, err);
    if (rc == RD_OK && old)
        rc = tx_commit(tx, NULL, err);
    json_decref(old);
    json_decref(rep);
    tx_free(tx);
    return rc;
}

/* The lease the answered ids are kept under: a fresh one each hour, so
 * each id is remembered for a day at least. */
static rd_code done_lease(store_t *st, relay_lease *lease, rd_err *err)
{
    int64_t now = rdtime_mono_ms();
    if (lease->id && now - lease->granted_ms < RELAY_DONE_RENEW_S * 1000)
        return RD_OK;
    rd_code rc = store_lease_grant(st, RELAY_DONE_KEEP_S + RELAY_DONE_RENEW_S, &lease->id, err);
    lease->granted_ms = now;
    if (rc != RD_OK)
        lease->id = 0;
    return rc;
}

/* Answers a request whose command did not answer it in its own commit:
 * it failed, or only read.  Guarded on the request being unchanged. */
static rd_code answer(store_t *st, const cmd_ctx *ctx, rd_code rc, const rd_err *cerr, json_t *result,
                      rd_err *err)
{
    const char *req_key = ctx->relay_req_key, *rep_key = ctx->relay_rep_key;
    rd_tx *tx = tx_new(st);
    json_t *old = NULL, *reply;
    if (!tx)
        return rd_fail(err, RD_ENOMEM, "out of memory");
    if (rc == RD_OK) {
        char *text = json_dumps(result ? result : json_null(), JSON_COMPACT | JSON_ENCODE_ANY);
        size_t len = text ? strlen(text) : 0;
        free(text);
        if (len > RELAY_REPLY_MAX)
            reply = json_pack("{s:b, s:i, s:s}", "ok", 0, "code", RD_EINVAL, "message",
                              "the answer is larger than 1 MiB, too large to relay; narrow it (--region, --state, "
                              "--since, --limit)");
        else
            reply = json_pack("{s:b, s:O?}", "ok", 1, "result", result);
    } else {
        reply = json_pack("{s:b, s:i, s:s}", "ok", 0, "code", (int)rc, "message", cerr->msg);
    }
    rd_code wrc = reply ? tx_get(tx, req_key, &old, err) : rd_fail(err, RD_ENOMEM, "out of memory");
    if (wrc == RD_OK && old) {
        wrc = tx_put(tx, rep_key, reply, err);
        reply = NULL;
        if (wrc == RD_OK)
            wrc = tx_delete(tx, req_key, err);
        if (wrc == RD_OK)
            wrc = cmd_relay_mark_done(tx, ctx, err);
        if (wrc == RD_OK)
            wrc = tx_commit(tx, NULL, err);
    }
    json_decref(reply);
    json_decref(old);
    tx_free(tx);
    return wrc;
}

/* Runs one request found at key with value req; appends what happened to log. */
static void relay_run_one(const cmd_ctx *base, relay_lease *lease, const char *key, const json_t *req, json_t *log)
{
    char user[NAMES_RELAY_USER_MAX], rep_key[RD_KEY_MAX], done_key[RD_KEY_MAX];
    const char *id;
    cmd_words w = { 0 };
    rd_err cerr = { 0 }, err = { 0 };
    json_t *result = NULL, *files = NULL, *done = NULL;
    const cmd_def *def = NULL;
    if (!parse_key(key, user, sizeof user, &id))
        return;
    tx_key(rep_key, KEY_RELAY "%s/rep/%s", user, id);
    tx_key(done_key, KEY_RELAY_DONE "%s/%s", user, id);
    rd_tx *tx = tx_new(base->store);
    rd_code arc = tx ? tx_get(tx, done_key, &done, &err) : rd_fail(&err, RD_ENOMEM, "out of memory");
    tx_free(tx);
    if (arc == RD_OK && done) {
        json_decref(done);
        arc = answer_again(base->store, key, rep_key, id, &err);
        json_array_append_new(log, json_pack("{s:s, s:s, s:s, s:s, s:s?}", "user", user, "id", id, "command", "?",
                                             "error", "answered already: a request id runs once", "answer_error",
                                             arc == RD_OK ? NULL : err.msg));
        return;
    }
    if (arc == RD_OK)
        arc = done_lease(base->store, lease, &err);
    if (arc != RD_OK) {   /* left for the next round */
        json_array_append_new(log, json_pack("{s:s, s:s, s:s, s:s}", "user", user, "id", id, "command", "?",
                                             "answer_error", err.msg));
        return;
    }
    cmd_ctx ctx = *base;
    ctx.actor = strcmp(user, "root") == 0 ? "default" : user;
    ctx.actor_given = 1;
    ctx.identity = ctx.actor;
    char owner[NAMES_RELAY_USER_MAX];
    if (strncmp(user, "node:", 5) == 0) {
        /* A node's agent acts for the node's owner, only on its node. */
        ctx.agent_node = user + 5;
        ctx.actor = node_owner(base->store, ctx.agent_node, owner, sizeof owner) ? owner : "(no such node)";
    }
    ctx.relayed = 0;
    ctx.relay_req_key = key;   /* from here on, cmd_file_read never opens a path */
    ctx.relay_rep_key = rep_key;
    ctx.relay_done_key = done_key;
    ctx.relay_done_lease = lease->id;
    memset(ctx.memos, 0, sizeof ctx.memos);   /* the base's stay the base's; this copy's go with it */
    rd_code rc = words_from(req, &w, &cerr);
    if (rc == RD_OK)
        rc = files_from(json_object_get(req, "files"), &w, &files, &cerr);
    ctx.relay_files = files;
    if (rc == RD_OK)
        rc = cmd_exec_words(&ctx, &w, &result, &def, &cerr);
    cmd_ctx_drop_memos(&ctx);
    arc = answer(base->store, &ctx, rc, &cerr, result, &err);
    if (arc != RD_OK)
        lease->id = 0;   /* perhaps the lease is gone: a new one for the next round */
    json_array_append_new(log, json_pack("{s:s, s:s, s:s, s:s?, s:s?}", "user", user, "id", id, "command",
                                         def ? def->words : "?", "error", rc == RD_OK ? NULL : cerr.msg,
                                         "answer_error", arc == RD_OK ? NULL : err.msg));
    json_decref(result);
    json_decref(files);
    cmd_words_free(&w);
}

/* A request that is not a JSON object (put by hand, or cut short) can run
 * nothing, and the transaction layer cannot read it: it is answered with
 * a refusal and removed in one txn guarded on its value, so that its
 * sender is told at once instead of waiting out its deadline, and no
 * round reads it again. */
static void relay_refuse_malformed(store_t *st, const store_kv *kv, json_t *log)
{
    char user[NAMES_RELAY_USER_MAX], rep_key[RD_KEY_MAX];
    const char *id;
    rd_err err = { 0 };
    if (!parse_key(kv->key, user, sizeof user, &id))
        return;
    tx_key(rep_key, KEY_RELAY "%s/rep/%s", user, id);
    json_t *reply = json_pack("{s:b, s:i, s:s}", "ok", 0, "code", RD_EINVAL, "message",
                              "relayed request: not a JSON object {\"words\": [...]}; nothing ran");
    char *text = reply ? json_dumps(reply, JSON_COMPACT) : NULL;
    json_decref(reply);
    if (!text)
        return;
    store_cmp same = { .key = kv->key, .target = STORE_CMP_MOD_REVISION, .op = STORE_CMP_EQUAL,
                       .number = kv->mod_revision };
    store_op ops[] = {
        { .kind = STORE_OP_PUT, .key = rep_key, .value = text, .value_len = strlen(text) },
        { .kind = STORE_OP_DELETE, .key = kv->key },
    };
    store_txn_result res = { 0 };
    rd_code rc = store_txn(st, &same, 1, ops, 2, NULL, 0, &res, &err);
    free(text);
    json_array_append_new(log, json_pack("{s:s, s:s, s:s, s:s, s:s?}", "user", user, "id", id, "command", "?",
                                         "error", "not a JSON object", "answer_error", rc == RD_OK ? NULL : err.msg));
}

rd_code relay_serve_round(const cmd_ctx *base, relay_lease *lease, json_t **handled, rd_err *err)
{
    store_range_result page;
    char after[RD_KEY_MAX] = "";
    *handled = json_array();
    if (!*handled)
        return rd_fail(err, RD_ENOMEM, "out of memory");
    do {
        rd_code rc = store_range(base->store, KEY_RELAY, after[0] ? after : NULL, 64, 0, &page, err);
        if (rc != RD_OK)
            return rc;
        for (size_t i = 0; i < page.count; i++) {
            json_t *req = json_loadb(page.kvs[i].value, page.kvs[i].value_len, 0, NULL);
            if (json_is_object(req))
                relay_run_one(base, lease, page.kvs[i].key, req, *handled);
            else
                relay_refuse_malformed(base->store, &page.kvs[i], *handled);
            json_decref(req);
        }
        if (page.count)
            snprintf(after, sizeof after, "%s", page.kvs[page.count - 1].key);
        int more = page.more;
        store_range_free(&page);
        if (!more)
            break;
    } while (1);
    return RD_OK;
}
