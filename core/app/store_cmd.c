/* store_cmd.c - commands about the store itself: `store info`, `store dump`,
 * `store compact` (the history policy of store_compact.c) and `store watch`
 * (changes as they happen; a registered watcher like the console's). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "cmd.h"
#include "jsonin.h"

/* The store holds every tenant's jobs (their environments), ledgers and
 * audit trail, and its history policy is shared by all.  Until tenants and
 * roles exist, reading it whole, watching it or compacting it belongs to
 * the accounts that administer it. */
static rd_code store_check_admin(cmd_ctx *ctx, const char *command, const char *why, rd_err *err)
{
    if (access_actor_is_admin(ctx))
        return RD_OK;
    return rd_fail(err, RD_EPERM, "%s: only an administering account may %s; --as is '%s'", command, why, ctx->actor);
}

/* A whole number >= min from a flag, or the flag's rule in err. */
static rd_code parse_count(const char *flag, const char *text, int64_t min, int64_t *out, rd_err *err)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (!*text || *end || errno || v < min)
        return rd_fail(err, RD_EINVAL, "%s must be a whole number of at least %lld, got '%s'", flag,
                       (long long)min, text);
    *out = v;
    return RD_OK;
}

static rd_code store_info_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    int64_t rev = 0;
    (void)a;
    rd_code rc = store_revision(ctx->store, &rev, err);
    if (rc == RD_OK)
        *result = json_pack("{s:s, s:s, s:I, s:s, s:s*, s:b}", "name", "store", "url", store_url(ctx->store),
                            "revision", (json_int_t)rev, "actor", ctx->actor, "identity", ctx->identity,
                            "secured", ctx->identity != NULL);
    return rc;
}

/* Every key under --prefix with its document, in key order: for backups,
 * debugging and the tests that prove a refused command changed nothing.
 * Sealed secrets are dropped from the output like every other result. */
static int dump_one(store_kv *kv, void *items)
{
    json_t *doc = jsonin_loadb_any(kv->value, kv->value_len, NULL);
    json_array_append_new(items, json_pack("{s:s, s:o, s:I}", "key", kv->key, "value",
                                           doc ? doc : json_stringn(kv->value, kv->value_len), "mod_revision",
                                           (json_int_t)kv->mod_revision));
    return 0;
}

static rd_code store_dump_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *prefix = cmd_opt(a, "prefix") ? cmd_opt(a, "prefix") : "/";
    int64_t rev = 0;
    rd_code rc = store_check_admin(ctx, "store dump", "read the whole store (every tenant's jobs and accounts)", err);
    if (rc != RD_OK)
        return rc;
    if (cmd_opt(a, "revision") && (rc = parse_count("--revision", cmd_opt(a, "revision"), 1, &rev, err)))
        return rc;
    json_t *items = json_array();
    if ((rc = store_scan(ctx->store, prefix, &rev, dump_one, items, err)) != RD_OK) {
        json_decref(items);
        if (rc == RD_EINVAL && cmd_opt(a, "revision") && strstr(err->msg, "compacted")) {
            /* etcd's history may be compacted by any of its users, not only
             * by `store compact`: say which, in one line */
            char why[sizeof err->msg];
            snprintf(why, sizeof why, "%s", err->msg);
            rc = rd_fail(err, RD_EINVAL, "store dump: %s; --revision must be one the store still keeps "
                         "(see `store compact`; on etcd any user may compact its history)", why);
        }
        return rc;
    }
    *result = json_pack("{s:o, s:I}", "items", items, "revision", (json_int_t)rev);
    return RD_OK;
}

static const cmd_flag store_dump_flags[] = {
    { "prefix", "KEY", CMD_FLAG_VALUE, "only keys starting with KEY (default: all)" },
    { "revision", "REV", CMD_FLAG_VALUE, "as of revision REV (refused once it is compacted)" },
    { 0 }
};

static json_t *retention_json(const store_retention *p)
{
    return json_pack("{s:I, s:I, s:I}", "keep_revisions", (json_int_t)p->keep_revisions, "keep_seconds",
                     (json_int_t)p->keep_seconds, "every", (json_int_t)p->every);
}

/* One run of the compaction policy; the flags given become the saved
 * policy that automatic runs (every `every` revisions) follow too. */
static rd_code store_compact_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    store_retention o = { -1, -1, -1 };
    store_compact_report r;
    const char *keep_for = cmd_opt(a, "keep-for");
    rd_code rc = store_check_admin(ctx, "store compact", "change the store-wide history policy", err);
    if (rc != RD_OK)
        return rc;
    if (cmd_opt(a, "keep") && (rc = parse_count("--keep", cmd_opt(a, "keep"), 1, &o.keep_revisions, err)))
        return rc;
    if (cmd_opt(a, "every") && (rc = parse_count("--every", cmd_opt(a, "every"), 0, &o.every, err)))
        return rc;
    if (keep_for && strcmp(keep_for, "0") == 0)
        o.keep_seconds = 0;
    else if (keep_for && (rc = rdtime_parse_duration("--keep-for", keep_for, &o.keep_seconds, err)))
        return rc;
    if ((rc = store_compact_run(ctx->store, &o, ctx->now, &r, err)) != RD_OK)
        return rc;
    json_t *res = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:o}", "revision", (json_int_t)r.revision,
                            "compacted", (json_int_t)r.compacted, "previous", (json_int_t)r.previous,
                            "watchers", (json_int_t)r.watchers, "by_count", (json_int_t)r.by_count,
                            "by_time", (json_int_t)r.by_time, "policy", retention_json(&r.policy));
    json_object_set_new(res, "oldest_watch", r.oldest_watch ? json_integer(r.oldest_watch) : json_null());
    json_object_set_new(res, "markers_deleted", json_integer(r.markers_deleted));
    json_object_set_new(res, "compacted_by_others", json_boolean(r.by_others));
    *result = res;
    return RD_OK;
}

/* Changes under --prefix as they happen (keys and revisions, no values):
 * until --count events or --timeout.  While it runs it is a registered
 * watcher, so compaction keeps the history it still needs. */
static rd_code store_watch_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    const char *prefix = cmd_opt(a, "prefix") ? cmd_opt(a, "prefix") : "/";
    int64_t after = 0, count = 1, timeout_s = 10;
    rd_code rc = store_check_admin(ctx, "store watch", "watch the whole store (every tenant's changes)", err);
    if (rc != RD_OK)
        return rc;
    if (cmd_opt(a, "after") && (rc = parse_count("--after", cmd_opt(a, "after"), 1, &after, err)))
        return rc;
    if (cmd_opt(a, "count") && (rc = parse_count("--count", cmd_opt(a, "count"), 1, &count, err)))
        return rc;
    if (cmd_opt(a, "timeout") && (rc = rdtime_parse_duration("--timeout", cmd_opt(a, "timeout"), &timeout_s, err)))
        return rc;
    if (timeout_s > 86400)
        return rd_fail(err, RD_EINVAL, "--timeout must be at most 1d, got '%s'", cmd_opt(a, "timeout"));
    store_watch *w = NULL;
    if ((rc = store_watch_open(ctx->store, prefix, after, &w, err)) != RD_OK)
        return rc;
    json_t *items = json_array();
    int64_t left_ms = timeout_s * 1000;
    while (rc == RD_OK && (int64_t)json_array_size(items) < count && left_ms > 0) {
        store_event *ev = NULL;
        size_t n = 0;
        int slice = left_ms < 200 ? (int)left_ms : 200;
        rc = store_watch_next(w, slice, &ev, &n, err);
        left_ms -= slice;   /* an upper bound on the wait: events may end a slice early */
        for (size_t i = 0; i < n && (int64_t)json_array_size(items) < count; i++)
            json_array_append_new(items, json_pack("{s:s, s:s, s:I}", "type",
                                                   ev[i].type == STORE_EVENT_DELETE ? "delete" : "put",
                                                   "key", ev[i].kv.key, "mod_revision",
                                                   (json_int_t)ev[i].kv.mod_revision));
        store_events_free(ev, n);
    }
    store_watch_close(w);
    if (rc != RD_OK) {
        json_decref(items);
        return rc;
    }
    *result = json_pack("{s:o}", "items", items);
    return RD_OK;
}

static const cmd_flag store_compact_flags[] = {
    { "keep", "N", CMD_FLAG_VALUE, "keep the newest N revisions readable (default 10000)" },
    { "keep-for", "DURATION", CMD_FLAG_VALUE, "and every revision younger than this (default 1h; 0: no time bound)" },
    { "every", "N", CMD_FLAG_VALUE, "run automatically every N revisions (default 1000; 0: never)" },
    { 0 }
};

static const cmd_flag store_watch_flags[] = {
    { "prefix", "KEY", CMD_FLAG_VALUE, "only keys starting with KEY (default: /)" },
    { "after", "REV", CMD_FLAG_VALUE, "events after revision REV (default: from now on)" },
    { "count", "N", CMD_FLAG_VALUE, "stop after N events (default 1)" },
    { "timeout", "DURATION", CMD_FLAG_VALUE, "stop after this long (default 10s)" },
    { 0 }
};

const cmd_def store_cmd_table[] = {
    { .words = "store compact", .args = "", .flags = store_compact_flags, .options = CMD_MUTATES,
      .help = "forget old history, keeping what the retention policy and live watchers need (administrators)",
      .run = store_compact_cmd, .access = CMD_ACCESS_ADMIN, .access_why = "may change the store-wide history policy" },
    { .words = "store dump", .args = "", .flags = store_dump_flags,
      .help = "every key and document in the store, secrets left out (administrators)", .columns = "key,mod_revision",
      .run = store_dump_cmd, .access = CMD_ACCESS_RAW_READ, .access_why = "may read the whole store" },
    { .words = "store info", .args = "", .help = "show the store URL and its current revision", .run = store_info_cmd },
    { .words = "store watch", .args = "", .flags = store_watch_flags,
      .help = "changes under a prefix as they happen: keys and revisions (administrators)",
      .columns = "type,key,mod_revision", .run = store_watch_cmd, .access = CMD_ACCESS_RAW_READ,
      .access_why = "may watch the whole store" },
    { 0 }
};
