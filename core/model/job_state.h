/* job_state.h - what a job's or worker's state word says (job_state.c).
 *
 * Pure predicates on the state names of spec/job-spec.md, below every
 * folder that reads job documents: jobs/ writes them; data/ (a data object
 * in use), fleet/ (a GPU type in use, an account's holdings) and report/
 * read them. */
#ifndef RD_JOB_STATE_H
#define RD_JOB_STATE_H

/* 1 for a state a worker (or job) never leaves: finished, failed, stopped,
 * canceled. */
int job_state_ended(const char *state);

/* 1 for a worker state that holds capacity on a node: starting, running,
 * stopping. */
int job_worker_holds_node(const char *state);

#endif
