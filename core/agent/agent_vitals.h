/* agent_vitals.h - the agent's vital stats and GPU health (agent_vitals.c). */
#ifndef RD_AGENT_VITALS_H
#define RD_AGENT_VITALS_H

#include "agent_work.h"

/* Opens the metrics history, continuing what a previous agent left open. */
void agent_vitals_start(agent_state *a);

/* Every --sample: reads the machine, writes the history when due, judges
 * the GPUs and reports an unhealthy one. */
void agent_vitals_sample(agent_state *a, int64_t now_ms);

void agent_vitals_free(agent_state *a);

#endif
