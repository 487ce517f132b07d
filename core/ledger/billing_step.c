/* billing_step.c - a bill run's bounded commits (see billing_step.h).
 *
 * The stepper counts distinct keys, not calls: a key read and then written
 * is one compare and one op in the store txn, and keys the step already
 * holds (an account paid many times) cost nothing more.
 */
#include "billing_step.h"

#include <stdio.h>
#include <string.h>

rd_code billing_step_init(billing_step *s, rd_tx *tx, billing_commit_fn commit, void *arg, rd_err *err)
{
    memset(s, 0, sizeof *s);
    s->tx = tx;
    s->commit = commit;
    s->arg = arg;
    s->max_keys = BILLING_STEP_KEYS;
    if (!(s->keys = json_object()))
        return rd_fail(err, RD_ENOMEM, "out of memory");
    return RD_OK;
}

void billing_step_free(billing_step *s)
{
    json_decref(s->keys);
    s->keys = NULL;
}

void billing_step_job(billing_step *s, const char *key, json_t *job)
{
    s->job = job;
    snprintf(s->job_key, sizeof s->job_key, "%s", job ? key : "");
}

/* Commits the step: the job so far first, then everything; then guards
 * the job again. */
static rd_code step_commit(billing_step *s, rd_err *err)
{
    rd_code rc = RD_OK;
    if (s->job)
        rc = tx_put(s->tx, s->job_key, json_deep_copy(s->job), err);
    if (rc == RD_OK)
        rc = s->commit(s->arg, err);
    json_object_clear(s->keys);
    if (rc != RD_OK)
        return rc;
    s->commits++;
    if (s->job) {
        json_t *now = NULL;
        if ((rc = tx_get(s->tx, s->job_key, &now, err)) == RD_OK && !json_equal(now, s->job))
            rc = rd_fail(err, RD_ECONFLICT, "bill run: %s changed while it was being billed; try again", s->job_key);
        json_decref(now);
        if (rc == RD_OK && json_object_set_new(s->keys, s->job_key, json_true()) != 0)
            rc = rd_fail(err, RD_ENOMEM, "out of memory");
    }
    return rc;
}

rd_code billing_step_room(billing_step *s, json_t *want, rd_err *err)
{
    size_t fresh = 0;
    const char *key;
    json_t *v;
    json_object_foreach(want, key, v)
        fresh += json_object_get(s->keys, key) == NULL;
    if (s->commit && fresh && json_object_size(s->keys) > 0 && json_object_size(s->keys) + fresh > s->max_keys) {
        rd_code rc = step_commit(s, err);
        if (rc != RD_OK)
            return rc;
    }
    if (json_object_update(s->keys, want) != 0)
        return rd_fail(err, RD_ENOMEM, "out of memory");
    return RD_OK;
}

rd_code billing_step_reserve(billing_step *s, size_t n, rd_err *err)
{
    if (s->commit && json_object_size(s->keys) > 0 && json_object_size(s->keys) + n > s->max_keys)
        return step_commit(s, err);
    return RD_OK;
}

rd_code billing_step_room_key(billing_step *s, const char *key, rd_err *err)
{
    json_t *want = json_object();
    rd_code rc = want && json_object_set_new(want, key, json_true()) == 0 ? RD_OK
                                                                          : rd_fail(err, RD_ENOMEM, "out of memory");
    if (rc == RD_OK)
        rc = billing_step_room(s, want, err);
    json_decref(want);
    return rc;
}

rd_code billing_step_room_transfers(billing_step *s, const ledger_transfer *t, size_t n, rd_err *err)
{
    json_t *want = json_object();
    rd_code rc = want ? RD_OK : rd_fail(err, RD_ENOMEM, "out of memory");
    for (size_t i = 0; i < n && rc == RD_OK; i++)
        rc = ledger_keys_add(want, &t[i], err);
    if (rc == RD_OK)
        rc = billing_step_room(s, want, err);
    json_decref(want);
    return rc;
}
