/* sched_idle.h - the idle record (sched_idle.c): what the last pass found
 * when nothing more could be placed, trusted while nothing a pass reads has
 * been written since. */
#ifndef RD_SCHED_IDLE_H
#define RD_SCHED_IDLE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "store.h"

/* The result of the last pass when it recorded that nothing more could be
 * placed and nothing a pass reads has been written since; NULL otherwise. */
json_t *sched_idle_result(store_t *st);

/* Records that a pass ended at revision rev with nothing more placeable. */
void sched_idle_record(store_t *st, int64_t rev, size_t waiting, size_t no_credit, size_t bursting);

/* 0 for a key no scheduling pass reads (an audit record, a device...). */
int sched_idle_key_matters(const char *key);

#endif
