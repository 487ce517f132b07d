/* job_state.c - what a job's or worker's state word says (job_state.h). */
#include "job_state.h"

#include <string.h>

int job_state_ended(const char *state)
{
    return strcmp(state, "finished") == 0 || strcmp(state, "failed") == 0 || strcmp(state, "stopped") == 0 ||
           strcmp(state, "canceled") == 0;
}

int job_worker_holds_node(const char *state)
{
    return strcmp(state, "running") == 0 || strcmp(state, "stopping") == 0 || strcmp(state, "starting") == 0;
}
