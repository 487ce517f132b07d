/* agent_mdns.h - a reserved job's port and its hostname on mDNS, for the
 * workers a node agent runs (agent_mdns.c). */
#ifndef RD_AGENT_MDNS_H
#define RD_AGENT_MDNS_H

#include <jansson.h>

#include "agent_work.h"

/* The port of job's reservation (`job submit` copies it into the job as
 * "reservation": {name, hostname, port}); 0 when it has none.  What a
 * worker of the job listens on, notebook and endpoint servers included. */
int agent_mdns_port(const json_t *job);

/* Adds PORT=<the reservation's port> and RIGDECK_HOSTNAME=<the name
 * published> to env (a JSON array of "K=V") for a job with a reservation,
 * dropping a PORT the job set itself: the reservation's wins.  Nothing for
 * a job without one.  0 when memory ran out. */
int agent_mdns_env(const json_t *job, json_t *env);

/* Keeps worker w's reservation hostname published (avahi-publish, held for
 * the worker's life) while running says its command runs, and withdraws it
 * once it does not.  A publisher that cannot run (avahi missing, its daemon
 * down) is said once in the agent's log and once in the worker's output,
 * and tried again every half minute; the worker runs on regardless. */
void agent_mdns_tend(agent_state *a, agent_worker *w, int running, int64_t now_ms);

/* Withdraws whatever publishes for the worker whose folder is dir (its
 * publisher is ended), e.g. before the folder is removed. */
void agent_mdns_withdraw(agent_state *a, const char *dir);

#endif
