/* Unit tests of inventory parsing and of each seed 000 hardware requirement:
 * every rule has a failing and a passing case. */
#include "testutil.h"

#include "hwreq.h"

/* Meets every rule in every context. */
static const char base_yaml[] =
    "gpus:\n"
    "  - {model: a100, count: 4, memory_gb: 40, pcie_gen: 4, pcie_lanes: 16}\n"
    "cpu_cores: 64\n"
    "memory_gb: 512\n"
    "nvme: [{size_gb: 1000}, {size_gb: 1000}]\n"
    "sata: [{size_gb: 2000, kind: ssd}, {size_gb: 2000, kind: hdd}, {size_gb: 4000, kind: hdd}]\n"
    "tpm: \"2.0\"\n"
    "network_gbps: 10\n";

static const hwreq_context compute_private_local = { 0, 0, 0 };
static const hwreq_context compute_public_local = { 0, 1, 0 };
static const hwreq_context compute_private_central = { 0, 0, 1 };
static const hwreq_context storage_node = { 1, 1, 1 };

static hw_inventory inv_from(const char *yaml)
{
    hw_inventory inv;
    rd_err err;
    if (hwreq_parse_inventory(yaml, strlen(yaml), "inventory.yaml", &inv, &err) != RD_OK)
        fail_msg("inventory refused: %s", err.msg);
    return inv;
}

static hw_inventory base(void)
{
    return inv_from(base_yaml);
}

/* The unmet entry with this id, or NULL. */
static json_t *unmet(json_t *arr, const char *id)
{
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e) {
        if (strcmp(json_string_value(json_object_get(e, "requirement")), id) == 0)
            return e;
    }
    return NULL;
}

/* Checks inv and returns 1 when rule id is unmet (with the given integer
 * required/actual when want_required >= 0). */
static int fails(const hw_inventory *inv, const hwreq_context *ctx, const char *id, long long want_required,
                 long long want_actual)
{
    json_t *arr = hwreq_check(inv, ctx), *e;
    int found;
    assert_non_null(arr);
    e = unmet(arr, id);
    found = e != NULL;
    if (e && want_required >= 0) {
        assert_int_equal(json_integer_value(json_object_get(e, "required")), want_required);
        assert_int_equal(json_integer_value(json_object_get(e, "actual")), want_actual);
        assert_non_null(json_string_value(json_object_get(e, "message")));
    }
    json_decref(arr);
    return found;
}

/* ---- the rules ------------------------------------------------------------ */

static void test_rule_all_met_gives_empty_list(void **state)
{
    (void)state;
    hw_inventory inv = base();
    const hwreq_context *ctxs[] = { &compute_private_local, &compute_public_local, &compute_private_central,
                                    &storage_node, NULL };
    for (size_t i = 0; i < 5; i++) {
        json_t *arr = hwreq_check(&inv, ctxs[i]);
        assert_true(json_is_array(arr));
        assert_int_equal(json_array_size(arr), 0);
        json_decref(arr);
    }
}

static void test_rule_gpu_same_model(void **state)
{
    (void)state;
    hw_inventory inv = inv_from("gpus: [{model: a100, count: 2, memory_gb: 40, pcie_gen: 4, pcie_lanes: 16},\n"
                                "       {model: v100, count: 2, memory_gb: 16, pcie_gen: 3, pcie_lanes: 16}]\n"
                                "cpu_cores: 64\nmemory_gb: 512\nnvme: [{size_gb: 1000}, {size_gb: 1000}]\n"
                                "tpm: '2.0'\nnetwork_gbps: 10\n");
    assert_true(fails(&inv, &compute_private_central, "gpu_same_model", 1, 2));
    json_t *arr = hwreq_check(&inv, &compute_private_central);
    assert_non_null(strstr(json_string_value(json_object_get(unmet(arr, "gpu_same_model"), "message")),
                           "must be the same model, found 2 models (a100, v100)"));
    json_decref(arr);
    /* two groups of the same model are one model */
    snprintf(inv.gpus[1].model, sizeof inv.gpus[1].model, "a100");
    assert_false(fails(&inv, &compute_private_central, "gpu_same_model", -1, -1));
}

static void test_rule_nvme_count_at_least_2(void **state)
{
    (void)state;
    hw_inventory inv = base();
    inv.nnvme = 1;
    inv.nvme_gb[0] = 4000;
    assert_true(fails(&inv, NULL, "nvme_count", 2, 1));
    inv.nnvme = 0;
    assert_true(fails(&inv, NULL, "nvme_count", 2, 0));
    inv.nnvme = 2;
    inv.nvme_gb[1] = 1000;
    assert_false(fails(&inv, NULL, "nvme_count", -1, -1));
}

static void test_rule_nvme_total_1tb_per_2_gpus(void **state)
{
    (void)state;
    hw_inventory inv = base();
    /* gpus -> GB required: 0,1,2 -> 1000; 3,4 -> 2000; 5 -> 3000 */
    static const int need[] = { 1000, 1000, 1000, 2000, 2000, 3000 };
    for (int g = 0; g <= 5; g++) {
        inv.ngroups = g ? 1 : 0;
        inv.gpus[0].count = g;
        inv.nvme_gb[0] = need[g] / 2;
        inv.nvme_gb[1] = need[g] / 2 - 1;
        assert_true(fails(&inv, NULL, "nvme_total_gb", need[g], need[g] - 1));
        inv.nvme_gb[1] = need[g] / 2;
        assert_false(fails(&inv, NULL, "nvme_total_gb", -1, -1));
    }
    /* the seed's examples: 1 TB for 1 and 2 GPUs, 2 TB for 3 */
    inv.ngroups = 1;
    inv.gpus[0].count = 3;
    inv.nvme_gb[0] = inv.nvme_gb[1] = 500;
    assert_true(fails(&inv, NULL, "nvme_total_gb", 2000, 1000));
}

static void test_rule_tpm_2_0(void **state)
{
    (void)state;
    hw_inventory inv = base();
    json_t *arr, *e;

    inv.tpm[0] = '\0';
    arr = hwreq_check(&inv, NULL);
    e = unmet(arr, "tpm");
    assert_non_null(e);
    assert_string_equal(json_string_value(json_object_get(e, "required")), "2.0");
    assert_string_equal(json_string_value(json_object_get(e, "actual")), "none");
    json_decref(arr);

    snprintf(inv.tpm, sizeof inv.tpm, "1.2");
    arr = hwreq_check(&inv, NULL);
    assert_string_equal(json_string_value(json_object_get(unmet(arr, "tpm"), "actual")), "1.2");
    json_decref(arr);

    snprintf(inv.tpm, sizeof inv.tpm, "2.0");
    assert_false(fails(&inv, NULL, "tpm", -1, -1));
    snprintf(inv.tpm, sizeof inv.tpm, "2.1");
    assert_false(fails(&inv, NULL, "tpm", -1, -1));
}

static void test_rule_memory_2x_gpu_memory(void **state)
{
    (void)state;
    hw_inventory inv = base(); /* the seed's example: 4 x 40 GB A100 needs >= 320 GB */
    inv.memory_gb = 319;
    assert_true(fails(&inv, &compute_public_local, "memory_gb", 320, 319));
    inv.memory_gb = 320;
    assert_false(fails(&inv, &compute_public_local, "memory_gb", -1, -1));
    /* mixed groups add up: 4x40 + 2x16 = 192 -> 384 */
    inv.ngroups = 2;
    inv.gpus[1] = inv.gpus[0];
    snprintf(inv.gpus[1].model, sizeof inv.gpus[1].model, "v100");
    inv.gpus[1].count = 2;
    inv.gpus[1].memory_gb = 16;
    assert_true(fails(&inv, &compute_public_local, "memory_gb", 384, 320));
}

static void test_rule_pcie_lanes_8_per_gpu(void **state)
{
    (void)state;
    hw_inventory inv = base();
    inv.gpus[0].pcie_lanes = 4;
    assert_true(fails(&inv, &compute_public_local, "pcie_lanes", 8, 4));
    inv.gpus[0].pcie_lanes = 8;
    assert_false(fails(&inv, &compute_public_local, "pcie_lanes", -1, -1));
    /* actual is the smallest among PCIe groups */
    inv.ngroups = 2;
    inv.gpus[1] = inv.gpus[0];
    inv.gpus[1].pcie_lanes = 1;
    assert_true(fails(&inv, &compute_public_local, "pcie_lanes", 8, 1));
    /* not applicable to SXM GPUs */
    inv.ngroups = 1;
    inv.gpus[0].sxm = 1;
    inv.gpus[0].pcie_gen = inv.gpus[0].pcie_lanes = 0;
    assert_false(fails(&inv, &compute_public_local, "pcie_lanes", -1, -1));
}

static void test_rule_cpu_cores_2_per_gen3_gpu_4_per_gen4_gpu(void **state)
{
    (void)state;
    hw_inventory inv = base();
    inv.gpus[0].pcie_gen = 3; /* 4 GPUs x 2 */
    inv.cpu_cores = 7;
    assert_true(fails(&inv, &compute_public_local, "cpu_cores", 8, 7));
    inv.cpu_cores = 8;
    assert_false(fails(&inv, &compute_public_local, "cpu_cores", -1, -1));
    inv.gpus[0].pcie_gen = 4; /* 4 GPUs x 4 */
    assert_true(fails(&inv, &compute_public_local, "cpu_cores", 16, 8));
    inv.cpu_cores = 16;
    assert_false(fails(&inv, &compute_public_local, "cpu_cores", -1, -1));
    inv.gpus[0].pcie_gen = 2; /* older than 3 counts as 3 */
    inv.cpu_cores = 8;
    assert_false(fails(&inv, &compute_public_local, "cpu_cores", -1, -1));
    /* SXM counts as gen 4 */
    inv.gpus[0].sxm = 1;
    inv.gpus[0].pcie_gen = inv.gpus[0].pcie_lanes = 0;
    assert_true(fails(&inv, &compute_public_local, "cpu_cores", 16, 8));
    /* groups add up: 4 SXM x 4 + 2 gen3 x 2 = 20 */
    inv.ngroups = 2;
    inv.gpus[1] = inv.gpus[0];
    inv.gpus[1].sxm = 0;
    inv.gpus[1].count = 2;
    inv.gpus[1].pcie_gen = 3;
    inv.gpus[1].pcie_lanes = 16;
    inv.cpu_cores = 19;
    assert_true(fails(&inv, &compute_public_local, "cpu_cores", 20, 19));
    inv.cpu_cores = 20;
    assert_false(fails(&inv, &compute_public_local, "cpu_cores", -1, -1));
}

static void test_rule_spare_capacity_rules_only_when_selling(void **state)
{
    (void)state;
    hw_inventory inv = base();
    inv.memory_gb = 16;
    inv.cpu_cores = 1;
    inv.gpus[0].pcie_lanes = 1;
    assert_true(fails(&inv, &compute_public_local, "memory_gb", -1, -1));
    assert_true(fails(&inv, &compute_public_local, "pcie_lanes", -1, -1));
    assert_true(fails(&inv, &compute_public_local, "cpu_cores", -1, -1));
    json_t *arr = hwreq_check(&inv, &compute_private_local);
    assert_int_equal(json_array_size(arr), 0);
    json_decref(arr);
}

static void test_rule_sata_local_mode_3_drives_of_2tb(void **state)
{
    (void)state;
    hw_inventory inv = base();
    inv.sata[2].size_gb = 1999; /* 2 qualifying drives */
    assert_true(fails(&inv, &compute_private_local, "sata_drives", 3, 2));
    inv.sata[2].size_gb = 2000;
    assert_false(fails(&inv, &compute_private_local, "sata_drives", -1, -1));
    /* SSD or HDD both count */
    snprintf(inv.sata[0].kind, sizeof inv.sata[0].kind, "hdd");
    snprintf(inv.sata[1].kind, sizeof inv.sata[1].kind, "hdd");
    assert_false(fails(&inv, &compute_private_local, "sata_drives", -1, -1));
    /* central mode does not need them */
    inv.nsata = 0;
    assert_true(fails(&inv, &compute_private_local, "sata_drives", 3, 0));
    assert_false(fails(&inv, &compute_private_central, "sata_drives", -1, -1));
}

static void test_rule_network_central_mode_10gbps(void **state)
{
    (void)state;
    hw_inventory inv = base();
    inv.network_gbps = 1;
    assert_true(fails(&inv, &compute_private_central, "network_gbps", 10, 1));
    assert_false(fails(&inv, &compute_private_local, "network_gbps", -1, -1));
    inv.network_gbps = 10;
    assert_false(fails(&inv, &compute_private_central, "network_gbps", -1, -1));
    inv.network_gbps = 100;
    assert_false(fails(&inv, &compute_private_central, "network_gbps", -1, -1));
}

static void test_rule_storage_node_only_all_systems_rules(void **state)
{
    (void)state;
    hw_inventory inv = base();
    inv.ngroups = 2; /* mixed, starved of memory/cores/lanes, no SATA, slow network */
    inv.gpus[1] = inv.gpus[0];
    snprintf(inv.gpus[1].model, sizeof inv.gpus[1].model, "t4");
    inv.gpus[0].pcie_lanes = 1;
    inv.memory_gb = 1;
    inv.cpu_cores = 1;
    inv.nsata = 0;
    inv.network_gbps = 1;
    json_t *arr = hwreq_check(&inv, &storage_node);
    assert_int_equal(json_array_size(arr), 0);
    json_decref(arr);
    inv.nnvme = 1;
    inv.nvme_gb[0] = 999; /* a storage node counts as 0 GPUs: it needs 1000 GB */
    inv.tpm[0] = '\0';
    arr = hwreq_check(&inv, &storage_node);
    assert_int_equal(json_array_size(arr), 3);
    assert_non_null(unmet(arr, "nvme_count"));
    assert_non_null(unmet(arr, "nvme_total_gb"));
    assert_non_null(unmet(arr, "tpm"));
    json_decref(arr);
}

static void test_rule_entries_shape_and_order(void **state)
{
    (void)state;
    hw_inventory inv = inv_from("gpus: []\ncpu_cores: 4\nmemory_gb: 8\nnvme: []\nnetwork_gbps: 1\n");
    json_t *arr = hwreq_check(&inv, NULL);
    const char *order[] = { "nvme_count", "nvme_total_gb", "tpm", "sata_drives" };
    assert_int_equal(json_array_size(arr), 4);
    for (size_t i = 0; i < 4; i++) {
        json_t *e = json_array_get(arr, i);
        assert_string_equal(json_string_value(json_object_get(e, "requirement")), order[i]);
        assert_int_equal(json_object_size(e), 4);
        assert_non_null(json_object_get(e, "required"));
        assert_non_null(json_object_get(e, "actual"));
        assert_non_null(json_string_value(json_object_get(e, "message")));
    }
    const char *msg = json_string_value(json_object_get(json_array_get(arr, 1), "message"));
    assert_non_null(strstr(msg, "1000 GB"));
    assert_non_null(strstr(msg, "found 0 GB"));
    json_decref(arr);
}

/* ---- parsing -------------------------------------------------------------- */

static void test_parse_spec_example(void **state)
{
    (void)state;
    hw_inventory inv = inv_from(
        "gpus:                       # groups of identical GPUs\n"
        "  - {model: a100, count: 4, memory_gb: 40, pcie_gen: 4, pcie_lanes: 16}   # or sxm: true\n"
        "cpu_cores: 64               # physical cores\n"
        "memory_gb: 512\n"
        "nvme: [{size_gb: 1000}, {size_gb: 1000}]\n"
        "sata: [{size_gb: 2000, kind: ssd}, {size_gb: 2000, kind: hdd}]            # may be empty\n"
        "tpm: \"2.0\"                  # null or absent: no TPM\n"
        "network_gbps: 10\n");
    assert_int_equal(inv.ngroups, 1);
    assert_string_equal(inv.gpus[0].model, "a100");
    assert_int_equal(inv.gpus[0].count, 4);
    assert_int_equal(inv.gpus[0].memory_gb, 40);
    assert_int_equal(inv.gpus[0].pcie_gen, 4);
    assert_int_equal(inv.gpus[0].pcie_lanes, 16);
    assert_int_equal(inv.gpus[0].sxm, 0);
    assert_int_equal(inv.cpu_cores, 64);
    assert_int_equal(inv.memory_gb, 512);
    assert_int_equal(inv.nnvme, 2);
    assert_int_equal(inv.nvme_gb[1], 1000);
    assert_int_equal(inv.nsata, 2);
    assert_string_equal(inv.sata[1].kind, "hdd");
    assert_string_equal(inv.tpm, "2.0");
    assert_int_equal(inv.network_gbps, 10);
    assert_int_equal(hwreq_gpu_total(&inv), 4);
    assert_string_equal(hwreq_gpu_model(&inv), "a100");
}

static void test_parse_optional_keys_and_tpm_forms(void **state)
{
    (void)state;
    hw_inventory inv = inv_from("gpus: [{model: a100-80gb, count: 8, memory_gb: 80, sxm: true}]\n"
                                "cpu_cores: 128\nmemory_gb: 2048\nnvme: [{size_gb: 4000}, {size_gb: 4000}]\n"
                                "network_gbps: 100\n");
    assert_int_equal(inv.gpus[0].sxm, 1);
    assert_int_equal(inv.nsata, 0);
    assert_string_equal(inv.tpm, "");
    const char *forms[][2] = { { "tpm: 2.0", "2.0" }, { "tpm: 2", "2.0" }, { "tpm: '2.0'", "2.0" },
                               { "tpm: \"1.2\"", "1.2" }, { "tpm: null", "" }, { "tpm: ~", "" },
                               { "tpm: 2.1", "2.1" } };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        char yaml[256];
        snprintf(yaml, sizeof yaml, "gpus: []\ncpu_cores: 4\nmemory_gb: 8\nnvme: []\nnetwork_gbps: 1\n%s\n",
                 forms[i][0]);
        inv = inv_from(yaml);
        assert_string_equal(inv.tpm, forms[i][1]);
    }
    /* JSON is YAML too */
    inv = inv_from("{\"gpus\": [], \"cpu_cores\": 4, \"memory_gb\": 8, \"nvme\": [], \"sata\": [], "
                   "\"tpm\": null, \"network_gbps\": 1}");
    assert_string_equal(hwreq_gpu_model(&inv), "cpu");
    assert_int_equal(hwreq_gpu_total(&inv), 0);
}

/* A refusal never quotes the file's text: an inventory path may name any
 * file (docs/security.md); only field names and numbers are shown. */
static void test_parse_refusals_never_quote_the_file(void **state)
{
    static const char *const texts[] = {
        "root:$6$S3CR3T:19000:0:99999:7:::\n",
        "S3CR3T-PASSWORD\n",
        "gpus: []\nS3CR3T: 1\n",
        "gpus: [{model: S3CR3T, count: 1, memory_gb: 40, sxm: true}]\n",
        "gpus: [{model: a100, count: S3CR3T, memory_gb: 40, sxm: true}]\n",
        "gpus: []\ntpm: S3CR3T\n",
    };
    (void)state;
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        hw_inventory inv;
        rd_err err;
        rd_code rc = hwreq_parse_inventory(texts[i], strlen(texts[i]), "inventory.yaml", &inv, &err);
        if (rc != RD_EINVAL || strstr(err.msg, "S3CR3T"))
            fail_msg("case %zu: rc %d, message '%s'", i, rc, rc ? err.msg : "");
    }
}

static void test_parse_refusals_name_the_field(void **state)
{
    (void)state;
    static const char tail[] = "cpu_cores: 4\nmemory_gb: 8\nnvme: []\nnetwork_gbps: 1\n";
    static const struct { const char *yaml; const char *want; } cases[] = {
        { "gpus: [{model: a100, count: 1, memory_gb: 40, pcie_gen: 4, pcie_lanes: x}]\n",
          "inventory gpus[0].pcie_lanes must be a whole number 1..16, got a string" },
        { "gpus: [{model: a100, count: 1, memory_gb: 40, sxm: true},\n"
          "       {model: a100, count: 1, memory_gb: 40, pcie_gen: 4, pcie_lanes: 17}]\n",
          "inventory gpus[1].pcie_lanes must be a whole number 1..16, got 17" },
        { "gpus: [{model: z9, count: 1, memory_gb: 80, sxm: true}]\n", "inventory gpus[0].model must be a GPU type" },
        { "gpus: [{model: cpu, count: 1, memory_gb: 80, sxm: true}]\n", "inventory gpus[0].model must be a GPU type, not 'cpu'" },
        { "gpus: [{model: 100, count: 1, memory_gb: 80, sxm: true}]\n", "inventory gpus[0].model must be a GPU type id" },
        { "gpus: [{model: a100, count: 0, memory_gb: 40, sxm: true}]\n", "inventory gpus[0].count must be a whole number 1..64, got 0" },
        { "gpus: [{model: a100, count: -2, memory_gb: 40, sxm: true}]\n", "gpus[0].count must be a whole number" },
        { "gpus: [{model: a100, count: 1.5, memory_gb: 40, sxm: true}]\n", "got 1.5" },
        { "gpus: [{model: a100, count: '4', memory_gb: 40, sxm: true}]\n", "gpus[0].count must be a whole number 1..64, got a string" },
        { "gpus: [{model: a100, count: 1, memory_gb: 40, sxm: true, pcie_gen: 4}]\n", "inventory gpus[0] must give either sxm: true or pcie_gen and pcie_lanes, not both" },
        { "gpus: [{model: a100, count: 1, memory_gb: 40}]\n", "inventory gpus[0] must give either pcie_gen and pcie_lanes, or sxm: true" },
        { "gpus: [{model: a100, count: 1, memory_gb: 40, pcie_gen: 4}]\n", "inventory gpus[0] is missing the required key 'pcie_lanes'" },
        { "gpus: [{model: a100, count: 1, memory_gb: 40, sxm: yes}]\n", "inventory gpus[0].sxm must be true or false, got a string" },
        { "gpus: [{model: a100, count: 1, memory_gb: 40, sxm: true, color: red}]\n", "inventory gpus[0] has an unknown key 'color'" },
        { "gpus: [{count: 1, memory_gb: 40, sxm: true}]\n", "inventory gpus[0] is missing the required key 'model'" },
        { "gpus: [{model: a100, count: 1, memory_gb: 0, sxm: true}]\n", "gpus[0].memory_gb must be a whole number 1..1024" },
        { "gpus: [{model: a100, count: 1, memory_gb: 40, pcie_gen: 9, pcie_lanes: 16}]\n", "gpus[0].pcie_gen must be a whole number 1..6" },
        { "gpus: [a100]\n", "inventory gpus[0] must be a mapping" },
        { "gpus: a100\n", "inventory gpus must be a list" },
        { "gpus: []\nsata: [{size_gb: 2000, kind: nvme}]\n", "inventory sata[0].kind must be ssd or hdd, got a string" },
        { "gpus: []\nsata: [{size_gb: 2000}]\n", "inventory sata[0] is missing the required key 'kind'" },
        { "gpus: []\nsata: [{size_gb: -1, kind: ssd}]\n", "inventory sata[0].size_gb must be a whole number" },
        { "gpus: []\nsata: {}\n", "inventory sata must be a list" },
        { "gpus: []\ntpm: yes\n", "inventory tpm must be a TPM version such as \"2.0\", or null for no TPM, got a string" },
        { "gpus: []\ntpm: 2.05\n", "inventory tpm must be a TPM version" },
        { "gpus: []\ntpm: ''\n", "inventory tpm must be a TPM version" },
        { "gpus: []\ntpm: true\n", "inventory tpm must be a TPM version" },
        { "gpus: []\nhostname: x\n", "inventory has an unknown key 'hostname'" },
        { "gpus: []\nnvme: [{size_gb: 1000, kind: ssd}]\n", "inventory nvme[0] has an unknown key 'kind'" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char yaml[1024];
        hw_inventory inv;
        rd_err err;
        /* later duplicates of tail keys are avoided by putting the case first and dropping tail's copy */
        const char *nv = strstr(cases[i].yaml, "nvme:");
        snprintf(yaml, sizeof yaml, "%s%s", cases[i].yaml, nv ? "cpu_cores: 4\nmemory_gb: 8\nnetwork_gbps: 1\n" : tail);
        rd_code rc = hwreq_parse_inventory(yaml, strlen(yaml), "inventory.yaml", &inv, &err);
        if (rc != RD_EINVAL || !strstr(err.msg, cases[i].want))
            fail_msg("case %zu: rc %d, message '%s', wanted '%s'", i, rc, rc ? err.msg : "", cases[i].want);
        assert_int_equal(inv.ngroups, 0); /* nothing half-filled */
    }
}

static void test_parse_required_keys_and_limits(void **state)
{
    (void)state;
    const char *keys[] = { "gpus", "cpu_cores", "memory_gb", "nvme", "network_gbps" };
    const char *lines[] = { "gpus: []\n", "cpu_cores: 4\n", "memory_gb: 8\n", "nvme: []\n", "network_gbps: 1\n" };
    for (size_t skip = 0; skip < 5; skip++) {
        char yaml[256] = "", want[80];
        hw_inventory inv;
        rd_err err;
        for (size_t i = 0; i < 5; i++)
            if (i != skip)
                strcat(yaml, lines[i]);
        assert_int_equal(hwreq_parse_inventory(yaml, strlen(yaml), "inventory.yaml", &inv, &err), RD_EINVAL);
        snprintf(want, sizeof want, "inventory is missing the required key '%s'", keys[skip]);
        assert_string_equal(err.msg, want);
    }
    /* absurd numbers */
    const char *absurd[] = { "cpu_cores: 0\n", "cpu_cores: 100000\n", "memory_gb: 99999999\n", "network_gbps: 0\n",
                             "network_gbps: 1e3\n" };
    for (size_t i = 0; i < 5; i++) {
        char yaml[256];
        hw_inventory inv;
        rd_err err;
        snprintf(yaml, sizeof yaml, "gpus: []\nnvme: []\n%s%s%s%s", absurd[i],
                 strncmp(absurd[i], "cpu", 3) ? "cpu_cores: 4\n" : "",
                 strncmp(absurd[i], "mem", 3) ? "memory_gb: 8\n" : "",
                 strncmp(absurd[i], "net", 3) ? "network_gbps: 1\n" : "");
        assert_int_equal(hwreq_parse_inventory(yaml, strlen(yaml), "inventory.yaml", &inv, &err), RD_EINVAL);
        assert_non_null(strstr(err.msg, "must be a whole number"));
    }
    /* too many groups / drives */
    char big[8192] = "gpus: []\ncpu_cores: 4\nmemory_gb: 8\nnetwork_gbps: 1\nnvme: [";
    for (int i = 0; i < 33; i++)
        strcat(big, i ? ", {size_gb: 1}" : "{size_gb: 1}");
    strcat(big, "]\n");
    hw_inventory inv;
    rd_err err;
    assert_int_equal(hwreq_parse_inventory(big, strlen(big), "inventory.yaml", &inv, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "inventory nvme must list at most 32 drives, got 33"));
    strcpy(big, "cpu_cores: 4\nmemory_gb: 8\nnetwork_gbps: 1\nnvme: []\ngpus:\n");
    for (int i = 0; i < 17; i++)
        strcat(big, "  - {model: t4, count: 1, memory_gb: 16, pcie_gen: 3, pcie_lanes: 16}\n");
    assert_int_equal(hwreq_parse_inventory(big, strlen(big), "inventory.yaml", &inv, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "inventory gpus must have at most 16 groups, got 17"));
}

static void test_parse_yaml_errors_and_shape(void **state)
{
    hw_inventory inv;
    rd_err err;
    (void)state;
    const char *bad = "gpus: []\ncpu_cores: 4\nmemory_gb: 8: 9\n";
    assert_int_equal(hwreq_parse_inventory(bad, strlen(bad), "inventory.yaml", &inv, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "inventory.yaml:3:"));
    assert_int_equal(hwreq_parse_inventory("[1, 2]", 6, "inventory.yaml", &inv, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "inventory must be a mapping"));
    assert_int_equal(hwreq_parse_inventory("", 0, "inventory.yaml", &inv, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "the document is empty"));
}

static void test_inventory_json_round_trip(void **state)
{
    (void)state;
    hw_inventory a = inv_from("gpus: [{model: v100, count: 2, memory_gb: 16, pcie_gen: 3, pcie_lanes: 8},\n"
                              "       {model: v100, count: 6, memory_gb: 16, sxm: true}]\n"
                              "cpu_cores: 48\nmemory_gb: 384\nnvme: [{size_gb: 2000}, {size_gb: 3840}]\n"
                              "sata: [{size_gb: 8000, kind: hdd}]\ntpm: 2.0\nnetwork_gbps: 25\n");
    hw_inventory b;
    rd_err err;
    json_t *j = hwreq_inventory_json(&a);
    json_t *want = json_pack("{s:[{s:s,s:i,s:i,s:i,s:i},{s:s,s:i,s:i,s:b}], s:i, s:i, s:[{s:i},{s:i}], "
                             "s:[{s:i,s:s}], s:s, s:i}",
                             "gpus", "model", "v100", "count", 2, "memory_gb", 16, "pcie_gen", 3, "pcie_lanes", 8,
                             "model", "v100", "count", 6, "memory_gb", 16, "sxm", 1, "cpu_cores", 48, "memory_gb",
                             384, "nvme", "size_gb", 2000, "size_gb", 3840, "sata", "size_gb", 8000, "kind", "hdd",
                             "tpm", "2.0", "network_gbps", 25);
    assert_true(json_equal(j, want));
    assert_int_equal(hwreq_inventory_from_json(j, &b, &err), RD_OK);
    assert_memory_equal(&a, &b, sizeof a);
    json_decref(j);
    json_decref(want);
    /* no TPM is stored as null and comes back as "" */
    a.tpm[0] = '\0';
    j = hwreq_inventory_json(&a);
    assert_true(json_is_null(json_object_get(j, "tpm")));
    assert_int_equal(hwreq_inventory_from_json(j, &b, &err), RD_OK);
    assert_string_equal(b.tpm, "");
    json_decref(j);
    /* from_json validates like the parser */
    j = json_pack("{s:[], s:i, s:i, s:[], s:i, s:i}", "gpus", "cpu_cores", 4, "memory_gb", 8, "nvme",
                  "network_gbps", 1, "extra", 1);
    assert_int_equal(hwreq_inventory_from_json(j, &b, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "unknown key 'extra'"));
    json_decref(j);
}

static void test_gpu_total_and_model(void **state)
{
    (void)state;
    hw_inventory inv = base();
    assert_int_equal(hwreq_gpu_total(&inv), 4);
    assert_string_equal(hwreq_gpu_model(&inv), "a100");
    inv.ngroups = 2;
    inv.gpus[1] = inv.gpus[0];
    inv.gpus[1].count = 3;
    assert_int_equal(hwreq_gpu_total(&inv), 7);
    assert_string_equal(hwreq_gpu_model(&inv), "a100");
    snprintf(inv.gpus[1].model, sizeof inv.gpus[1].model, "t4");
    assert_null(hwreq_gpu_model(&inv));
    inv.ngroups = 0;
    assert_string_equal(hwreq_gpu_model(&inv), "cpu");
    assert_int_equal(hwreq_gpu_total(&inv), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rule_all_met_gives_empty_list),
        cmocka_unit_test(test_rule_gpu_same_model),
        cmocka_unit_test(test_rule_nvme_count_at_least_2),
        cmocka_unit_test(test_rule_nvme_total_1tb_per_2_gpus),
        cmocka_unit_test(test_rule_tpm_2_0),
        cmocka_unit_test(test_rule_memory_2x_gpu_memory),
        cmocka_unit_test(test_rule_pcie_lanes_8_per_gpu),
        cmocka_unit_test(test_rule_cpu_cores_2_per_gen3_gpu_4_per_gen4_gpu),
        cmocka_unit_test(test_rule_spare_capacity_rules_only_when_selling),
        cmocka_unit_test(test_rule_sata_local_mode_3_drives_of_2tb),
        cmocka_unit_test(test_rule_network_central_mode_10gbps),
        cmocka_unit_test(test_rule_storage_node_only_all_systems_rules),
        cmocka_unit_test(test_rule_entries_shape_and_order),
        cmocka_unit_test(test_parse_spec_example),
        cmocka_unit_test(test_parse_optional_keys_and_tpm_forms),
        cmocka_unit_test(test_parse_refusals_name_the_field),
        cmocka_unit_test(test_parse_refusals_never_quote_the_file),
        cmocka_unit_test(test_parse_required_keys_and_limits),
        cmocka_unit_test(test_parse_yaml_errors_and_shape),
        cmocka_unit_test(test_inventory_json_round_trip),
        cmocka_unit_test(test_gpu_total_and_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
