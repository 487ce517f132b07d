/* fuzz_metrics_import.c - fuzz target (fuzz.h): `metrics import NODE FILE`
 * (core/metrics/metrics_import.c), one JSON sample a line from another
 * monitoring system, and the history it folds them into.
 *
 * An input whose first line starts with "#now " has the rest of that line
 * as the node's stored `now` document, which the import continues (as it
 * does the store's); the other lines are FILE.  Promises checked: a
 * refused file names a line; the samples of an accepted one fold into
 * points within each stat's range whose average lies between minimum and
 * maximum (issue 28: cpu_util 9e16 twice in a minute overflowed the sum);
 * and so does an agent that picks up the `now` document it would write,
 * and the lines folded as they are, unchecked. */
#include "fuzz.h"

#include <string.h>

#include "doc.h"
#include "fuzz_metrics_check.h"

const char *const fuzz_target_seed_dirs[] = { NULL };

const unsigned long fuzz_target_runs = 2000;

const char *const fuzz_target_dict[] = {
    "{\"t\": \"2026-11-24T10:00:00Z\", ", "\"t\"", "\"cpu_util\"", "\"mem_used_gb\"", "\"disk_used_gb\"",
    "\"disk_read_bps\"", "\"net_tx_bps\"", "\"gpus\"", "\"index\"", "\"gpu_util\"", "\"gpu_temp_c\"",
    "\"gpu_ecc_errors\"", "\"gpu_power_w\"", "2026-11-24T10:00:59Z", "2026-11-24T10:01:00Z", "2026-11-22T11:00:00Z",
    "2026-11-24T12:00:01Z", "\"minute\"", "\"hour\"", "\"block\"", "\"series\"", "\"points\"", "[1, 2, 3, 4]",
    "[-9223372036854775808, 9223372036854775807, 0, 1]", "#now ", "1023", "1024", "100.0001", "1e12", NULL,
};

/* `now` of the import: the samples' day, at noon. */
static const rd_time NOW = 1795521600;   /* 2026-11-24T12:00:00Z */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

/* Every line that is a JSON object, checked or not, folded 20 s apart:
 * the history must hold up by itself, whatever a caller hands it. */
static void fold_raw(const uint8_t *data, size_t size)
{
    metrics_agg *m = metrics_agg_new("n1");
    FUZZ_CHECK(m != NULL);
    rd_time t = NOW - 3600;
    for (size_t i = 0; i < size;) {
        const uint8_t *nl = memchr(data + i, '\n', size - i);
        size_t n = nl ? (size_t)(nl - (data + i)) : size - i;
        json_t *s = json_loadb((const char *)data + i, n, 0, NULL);
        if (json_is_object(s))
            metrics_agg_add(m, s, t += 20);
        json_decref(s);
        i += n + 1;
    }
    fuzz_check_agg(m);
    metrics_agg_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *now_doc = NULL, *samples = json_array();
    rd_err err;
    rd_err_clear(&err);
    if (size >= 5 && memcmp(data, "#now ", 5) == 0) {
        const uint8_t *nl = memchr(data, '\n', size);
        size_t first = nl ? (size_t)(nl - data) : size;
        now_doc = json_loadb((const char *)data + 5, first - 5, 0, NULL);
        data += nl ? first + 1 : size;
        size -= nl ? first + 1 : size;
    }
    fold_raw(data, size);
    rd_time latest = now_doc ? doc_time(now_doc, "sampled_at") : 0;
    rd_code rc = metrics_import_read((const char *)data, size, latest, NOW, samples, &err);
    if (rc != RD_OK || json_array_size(samples) == 0) {
        FUZZ_CHECK(rc == RD_OK || strstr(err.msg, "FILE: ") == err.msg);
        json_decref(samples);
        json_decref(now_doc);
        return 0;
    }
    /* As metrics_import_cmd does: continue the node's now, fold each sample. */
    metrics_agg *m = metrics_agg_new("n1");
    FUZZ_CHECK(m != NULL);
    rd_time first = json_integer_value(json_object_get(json_array_get(samples, 0), "t"));
    metrics_agg_restore(m, now_doc, NULL, first);
    size_t i;
    json_t *s;
    rd_time last = first;
    json_array_foreach(samples, i, s) {
        last = json_integer_value(json_object_get(s, "t"));
        FUZZ_CHECK(last > latest && last <= NOW);
        metrics_agg_add(m, s, last);
    }
    fuzz_check_agg(m);

    /* An agent restarted on this node picks up the now the import wrote
     * and folds one more sample a minute later. */
    json_t *written = metrics_agg_now(m);
    metrics_agg *again = metrics_agg_new("n1");
    FUZZ_CHECK(written && again);
    metrics_agg_restore(again, written, NULL, last + 60);
    metrics_agg_add(again, json_array_get(samples, json_array_size(samples) - 1), last + 60);
    fuzz_check_agg(again);
    metrics_agg_free(again);
    json_decref(written);
    metrics_agg_free(m);
    json_decref(samples);
    json_decref(now_doc);
    return 0;
}
