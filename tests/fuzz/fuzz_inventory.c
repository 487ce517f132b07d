/* fuzz_inventory.c - fuzz target (fuzz.h): node inventories (`node add
 * --inventory FILE`, `node report --inventory FILE` from a node's agent;
 * core/model/hwreq.c) - YAML or JSON from a machine rigdeck does not trust.
 *
 * Promises checked: an accepted inventory has its counts within the
 * arrays, converts to JSON and back to the same inventory (what the node
 * document stores is what was checked), and its requirements list builds. */
#include "fuzz.h"

#include <string.h>

#include <jansson.h>

#include "hwreq.h"

const char *const fuzz_target_seed_dirs[] = { "tests/inventories", NULL };

const unsigned long fuzz_target_runs = 2000;

const char *const fuzz_target_dict[] = {
    "gpus:", "cpu_cores:", "memory_gb:", "nvme:", "sata:", "tpm:", "network_gbps:", "model:", "count:",
    "pcie_gen:", "pcie_lanes:", "sxm:", "size_gb:", "kind:", "ssd", "hdd", "a100", "a100-80gb", "rtx3090",
    "cpu", "2.0", "1.2", "\n  - ", "\n    ", "[]", "64", "65", "1024", "4096", "65536", "1000000", NULL,
};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    hw_inventory inv, back;
    rd_err err;
    memset(&inv, 0, sizeof inv);
    rd_err_clear(&err);
    if (hwreq_parse_inventory((const char *)data, size, "fuzz.yaml", &inv, &err) != RD_OK) {
        FUZZ_CHECK(err.msg[0] != '\0');
        return 0;
    }
    FUZZ_CHECK(inv.ngroups <= HWREQ_MAX_GROUPS && inv.nnvme <= HWREQ_MAX_DRIVES && inv.nsata <= HWREQ_MAX_DRIVES);
    json_t *doc = hwreq_inventory_json(&inv);
    FUZZ_CHECK(doc != NULL);
    memset(&back, 0, sizeof back);
    FUZZ_CHECK(hwreq_inventory_from_json(doc, &back, &err) == RD_OK);
    json_t *again = hwreq_inventory_json(&back);
    FUZZ_CHECK(again && json_equal(doc, again));
    json_t *unmet = hwreq_check(&inv, NULL);
    FUZZ_CHECK(json_is_array(unmet));
    (void)hwreq_gpu_total(&inv);
    (void)hwreq_gpu_model(&inv);
    json_decref(unmet);
    json_decref(again);
    json_decref(doc);
    return 0;
}
