/* agent_serve.h - notebook and endpoint workers: what they run and where
 * they listen (agent_serve.c; spec/execution.md §6).
 *
 * A notebook worker runs Jupyter from its environment (jupyter lab, else
 * the classic notebook) with a random token; an endpoint worker runs its
 * endpoint.start_command, or the route server rigdeck ships for its
 * endpoint.routes.  Each listens on one port: the job's reservation's
 * (`reserved.port`, recorded by job submit) or a free one the agent picks.
 * Before the worker starts, the agent reports where it serves (`job report
 * ID serving --host H --port P [--token SEALED]`), the token sealed with
 * the master key, so that `job connect` can say where to connect.
 */
#ifndef RD_AGENT_SERVE_H
#define RD_AGENT_SERVE_H

#include <jansson.h>

#include "agent_work.h"

typedef enum { SERVE_NONE = 0, SERVE_NOTEBOOK, SERVE_ENDPOINT, SERVE_ROUTES } serve_kind;

typedef struct {
    serve_kind kind;
    char host[256];        /* what `job connect` names: --address, else the machine's host name */
    int port;              /* the port on this machine */
    char token[64];        /* notebooks: 48 hex characters; "" otherwise */
    char *sealed_token;    /* the token sealed with the master key (secret.h), or NULL */
    char publish[320];     /* containers: the -p value ([ADDR:]PORT:INNER); "" for the process runtime */
    char *command;         /* what the worker runs (/bin/sh -c); free()d by agent_serve_clear */
} agent_serve;

/* What kind of server worker of job runs: SERVE_NONE for training and
 * inference jobs (their own commands). */
serve_kind agent_serve_kind(const json_t *job);

/* Prepares a serving worker of job whose directory is dir: picks its port
 * and token, writes what the route server reads into dir, appends PORT
 * (and JUPYTER_TOKEN, JUPYTER_RUNTIME_DIR) to env (a JSON array of "K=V",
 * after the job's own: these win) and builds s->command.  0, or -1 with a
 * one-line msg (the worker then fails start_failed). */
int agent_serve_prepare(agent_state *a, const json_t *job, const char *dir, json_t *env, agent_serve *s, char *msg,
                        size_t len);

/* Reports where worker index of job serves: `job report ID serving`, the
 * token sealed with the master key (never sent in plain text).  A refusal
 * is logged: the worker still runs, `job connect` says nothing is known. */
typedef rd_code (*agent_serve_report_fn)(agent_state *a, json_t *words, rd_err *err);
void agent_serve_report(agent_state *a, const char *id, size_t index, const agent_serve *s,
                        agent_serve_report_fn report);

/* Frees s->command and s->sealed_token and wipes the token. */
void agent_serve_clear(agent_serve *s);

/* The route server's path into buf: $RIGDECK_ROUTE_SERVER when set, else
 * beside the binary: ../share/rigdeck/route_server.py (installed), then
 * ../scripts/route_server.py (the build tree).  0, or -1 when none exists. */
int agent_serve_route_server(char *buf, size_t len);

#endif
