/* job_connect.c - where a notebook or endpoint worker serves: the agent's
 * `job report ID serving` and the customer's `job connect`
 * (spec/execution.md §6).
 *
 * The agent (agent_serve.c) reports the host and port a serving worker
 * listens on before it runs, and a notebook's token sealed with the master
 * key: the worker keeps them as serving {host, port, secret_token}.  Command results drop
 * every field named secret* (cmd.c), so `job show` and the console never
 * show the token; `job connect` opens it (with the master key: on a secured
 * store the controller's, which runs the relayed command) for whoever may
 * act on the job: its creator, its project's owner, administering accounts.
 * (A worker's "host" is another thing: the account that owns its node,
 * paid its earnings; hence the object of its own, "serving".)
 */
#include "job_connect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "fleet.h"
#include "job.h"
#include "num.h"
#include "secret.h"

#define SEALED_PREFIX "rdsec1:"

static int serving_type(const json_t *job)
{
    const char *type = doc_str(job, "type");
    return strcmp(type, "notebook") == 0 || strcmp(type, "endpoint") == 0;
}

rd_code job_report_serving(const cmd_args *a, json_t *job, int64_t w, rd_err *err)
{
    json_t *worker = json_array_get(json_object_get(job, "workers"), (size_t)w);
    const char *host = cmd_opt(a, "host"), *token = cmd_opt(a, "token"), *state = doc_str(worker, "state");
    int64_t port = 0;
    if (!serving_type(job))
        return rd_fail(err, RD_EINVAL, "job report: job '%s' is a %s job; only notebook and endpoint workers serve",
                       doc_str(job, "id"), doc_str(job, "type"));
    if (strcmp(state, "starting") != 0 && strcmp(state, "running") != 0)
        return rd_fail(err, RD_EINVAL, "job report: worker %lld of job '%s' is %s; only a starting or running worker "
                       "says where it serves", (long long)w, doc_str(job, "id"), state);
    if (!host || !*host || strlen(host) > 253 ||
        host[strspn(host, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-")])
        return rd_fail(err, RD_EINVAL, "--host must be an IPv4 address or a host name (letters, digits, '.', '-'; "
                       "253 at most), got '%s'", host ? host : "");
    rd_code rc = num_parse_int("--port", cmd_opt(a, "port"), 1, 65535, &port, err);
    if (rc != RD_OK)
        return rc;
    if (token && (strncmp(token, SEALED_PREFIX, strlen(SEALED_PREFIX)) != 0 || strlen(token) > 1024))
        return rd_fail(err, RD_EINVAL, "--token must be the token sealed with the master key (%s...), never the "
                       "token itself", SEALED_PREFIX);
    if (token && strcmp(doc_str(job, "type"), "notebook") != 0)
        return rd_fail(err, RD_EINVAL, "--token is for a notebook worker; an endpoint has none");
    json_t *serving = json_pack("{s:s, s:I}", "host", host, "port", (json_int_t)port);
    if (serving && token)
        json_object_set_new(serving, "secret_token", json_string(token));
    if (!serving || json_object_set_new(worker, "serving", serving) != 0)
        return rd_fail(err, RD_ENOMEM, "out of memory");
    return RD_OK;
}

static rd_code job_connect_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    json_t *job = NULL;
    int64_t w = 0;
    char url[600];
    /* another tenant's job is answered as a missing one, as by `job show` */
    rd_code rc = job_get_visible(ctx, cmd_arg(a, 0), &job, err);
    if (rc == RD_OK)
        rc = job_require_actor(ctx, job, "job connect", err);
    if (rc == RD_OK && !serving_type(job))
        rc = rd_fail(err, RD_EINVAL, "job connect: job '%s' is a %s job; only notebook and endpoint jobs serve "
                     "something to connect to", cmd_arg(a, 0), doc_str(job, "type"));
    if (rc == RD_OK && cmd_opt(a, "worker"))
        rc = num_parse_int("--worker", cmd_opt(a, "worker"), 0,
                           (int64_t)json_array_size(json_object_get(job, "workers")) - 1, &w, err);
    const json_t *worker = json_array_get(json_object_get(job, "workers"), (size_t)w);
    const json_t *serving = json_object_get(worker, "serving");
    const char *state = doc_str(worker, "state"), *host = doc_str(serving, "host");
    int64_t port = doc_int(serving, "port");
    if (rc == RD_OK && strcmp(state, "running") != 0)
        rc = rd_fail(err, RD_EINVAL, "job connect: worker %lld of job '%s' is %s, not running; there is nothing to "
                     "connect to", (long long)w, cmd_arg(a, 0), state);
    else if (rc == RD_OK && (!*host || port <= 0))
        rc = rd_fail(err, RD_EINVAL, "job connect: worker %lld of job '%s' runs, but its agent has not said where it "
                     "serves", (long long)w, cmd_arg(a, 0));
    char *token = NULL;
    size_t tlen = 0;
    if (rc == RD_OK && strcmp(doc_str(job, "type"), "notebook") == 0) {
        if (!*doc_str(serving, "secret_token"))
            rc = rd_fail(err, RD_EINVAL, "job connect: worker %lld of job '%s' runs, but its agent has not said its "
                         "token", (long long)w, cmd_arg(a, 0));
        else
            rc = fleet_unseal(ctx, doc_str(serving, "secret_token"), &token, &tlen, err);
    }
    if (rc == RD_OK) {
        if (token)
            snprintf(url, sizeof url, "http://%s:%lld/?token=%s", host, (long long)port, token);
        else
            snprintf(url, sizeof url, "http://%s:%lld/", host, (long long)port);
        *result = json_pack("{s:s, s:s, s:I, s:o}", "url", url, "host", host, "port", (json_int_t)port, "token",
                            token ? json_string(token) : json_null());
        if (!*result)
            rc = rd_fail(err, RD_ENOMEM, "out of memory");
    }
    if (token) {
        explicit_bzero(token, tlen);
        explicit_bzero(url, sizeof url);
        free(token);
    }
    json_decref(job);
    return rc;
}

static const cmd_flag job_connect_flags[] = {
    { "worker", "N", CMD_FLAG_VALUE, "the worker's index (default 0, the first)" },
    { 0 }
};

const cmd_def job_connect_cmd_table[] = {
    { .words = "job connect", .args = "ID", .flags = job_connect_flags,
      .help = "where a running notebook or endpoint worker serves: {url, host, port, token}", .run = job_connect_cmd },
    { 0 }
};
