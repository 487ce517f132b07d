/* Unit tests of the GPU catalog, device models, GCP regions and storage classes. */
#include "testutil.h"

#include "catalog.h"

/* Seed 001's table, word for word in tenths of TFLOPS. */
static const struct {
    const char *id, *name;
    int mem, fp32, fp16;
    gpu_class cls;
} seed001[] = {
    { "gtx1060", "GTX 1060", 6, 45, 9, GPU_CLASS_DEVELOPMENT },
    { "rtx2060s", "RTX 2060 Super", 8, 71, 150, GPU_CLASS_DEVELOPMENT },
    { "rtx2070s", "RTX 2070 Super", 8, 90, 185, GPU_CLASS_DEVELOPMENT },
    { "rtx2080ti", "RTX 2080 Ti", 11, 135, 250, GPU_CLASS_DEVELOPMENT },
    { "rtx3090", "RTX 3090", 24, 355, 390, GPU_CLASS_DEVELOPMENT },
    { "rtx-a4000", "RTX A4000", 16, 97, 190, GPU_CLASS_PROFESSIONAL },
    { "rtx-a6000", "RTX A6000", 48, 360, 400, GPU_CLASS_PROFESSIONAL },
    { "t4", "T4", 16, 75, 155, GPU_CLASS_DATACENTER },
    { "p100", "P100", 16, 80, 160, GPU_CLASS_DATACENTER },
    { "v100", "V100", 16, 150, 255, GPU_CLASS_DATACENTER },
    { "a100", "A100 (40GB)", 40, 390, 625, GPU_CLASS_DATACENTER },
    { "a100-80gb", "A100 (80GB)", 80, 390, 625, GPU_CLASS_DATACENTER },
    { "cpu", "None (CPU-only)", 0, 0, 0, GPU_CLASS_NONE },
};

static void test_gpu_table_matches_seed(void **state)
{
    (void)state;
    /* the thirteen keep seed 001's order and figures; the modern types follow */
    assert_int_equal(catalog_gpu_count(), sizeof seed001 / sizeof seed001[0] + 17);
    for (size_t i = 0; i < sizeof seed001 / sizeof seed001[0]; i++) {
        const gpu_type *g = catalog_gpu_at(i);
        assert_string_equal(g->id, seed001[i].id);
        assert_string_equal(g->name, seed001[i].name);
        assert_int_equal(g->memory_gb, seed001[i].mem);
        assert_int_equal(g->fp32_tflops_x10, seed001[i].fp32);
        assert_int_equal(g->fp16_tflops_x10, seed001[i].fp16);
        assert_int_equal(g->cls, seed001[i].cls);
        assert_ptr_equal(catalog_gpu(g->id), g);
    }
    assert_null(catalog_gpu_at(catalog_gpu_count()));
    assert_null(catalog_gpu("A100"));
    assert_null(catalog_gpu("z9"));
    assert_null(catalog_gpu(""));
    assert_null(catalog_gpu(NULL));
}

static void test_usage_fees_by_class(void **state)
{
    (void)state;
    for (size_t i = 0; i < catalog_gpu_count(); i++) {
        const gpu_type *g = catalog_gpu_at(i);
        int64_t want = g->cls == GPU_CLASS_DEVELOPMENT    ? 50000
                       : g->cls == GPU_CLASS_PROFESSIONAL ? 100000
                       : g->cls == GPU_CLASS_DATACENTER   ? 250000
                                                          : 0;
        assert_int_equal(g->usage_fee_ucr, want);
    }
    assert_int_equal(catalog_gpu("a100")->usage_fee_ucr, 250000);
    assert_int_equal(catalog_gpu("rtx-a6000")->usage_fee_ucr, 100000);
    assert_int_equal(catalog_gpu("rtx3090")->usage_fee_ucr, 50000);
    assert_string_equal(catalog_class_name(GPU_CLASS_DEVELOPMENT), "development");
    assert_string_equal(catalog_class_name(GPU_CLASS_PROFESSIONAL), "professional");
    assert_string_equal(catalog_class_name(GPU_CLASS_DATACENTER), "datacenter");
    assert_string_equal(catalog_class_name(GPU_CLASS_NONE), "none");
}

static void test_gcp_facts(void **state)
{
    (void)state;
    static const struct { const char *id; int cpus; const char *metric, *accel; } gcp[] = {
        { "t4", 8, "NVIDIA_T4_GPUS", "nvidia-tesla-t4" },
        { "p100", 6, "NVIDIA_P100_GPUS", "nvidia-tesla-p100" },
        { "v100", 8, "NVIDIA_V100_GPUS", "nvidia-tesla-v100" },
        { "a100", 12, "NVIDIA_A100_GPUS", "nvidia-tesla-a100" },
        { "a100-80gb", 12, "NVIDIA_A100_80GB_GPUS", "nvidia-a100-80gb" },
    };
    size_t on_gcp = 0;
    for (size_t i = 0; i < 5; i++) {
        const gpu_type *g = catalog_gpu(gcp[i].id);
        assert_int_equal(g->gcp_cpus_per_job, gcp[i].cpus);
        assert_string_equal(g->gcp_quota_metric, gcp[i].metric);
        assert_string_equal(g->gcp_accelerator, gcp[i].accel);
    }
    for (size_t i = 0; i < catalog_gpu_count(); i++) {
        const gpu_type *g = catalog_gpu_at(i);
        if (g->gcp_cpus_per_job) {
            on_gcp++;
        } else {
            assert_null(g->gcp_quota_metric);
            assert_null(g->gcp_accelerator);
        }
    }
    assert_int_equal(on_gcp, 5);
}

static void test_gpu_json(void **state)
{
    (void)state;
    json_t *j = catalog_gpu_json(catalog_gpu("gtx1060"));
    json_t *want = json_pack("{s:s, s:s, s:s, s:[ss], s:i, s:f, s:f, s:s, s:i, s:n, s:b, s:n, s:n, s:i, s:b}",
                             "name", "gtx1060", "id", "gtx1060", "display_name", "GTX 1060", "nvidia_names",
                             "NVIDIA GeForce GTX 1060 6GB", "NVIDIA GeForce GTX 1060", "memory_gb", 6,
                             "fp32_tflops", 4.5, "fp16_tflops", 0.9, "class", "development", "usage_fee_ucr", 50000,
                             "form", "gcp", 0, "gcp_accelerator", "gcp_quota", "gcp_cpus_per_gpu", 0, "builtin", 1);
    assert_true(json_equal(j, want));
    json_decref(j);
    json_decref(want);
    j = catalog_gpu_json(catalog_gpu("a100-80gb"));
    assert_true(json_is_true(json_object_get(j, "gcp")));
    assert_true(json_real_value(json_object_get(j, "fp16_tflops")) == 62.5);
    assert_int_equal(json_integer_value(json_object_get(j, "usage_fee_ucr")), 250000);
    json_decref(j);
}

/* execution.md §1: the shipped modern types, their classes, and the
 * nvidia-smi name look-up (any case, "NVIDIA " optional). */
static void test_shipped_modern_types(void **state)
{
    static const struct {
        const char *id;
        int mem;
        gpu_class cls;
        const char *smi;
    } want[] = {
        { "h100", 80, GPU_CLASS_DATACENTER, "NVIDIA H100 80GB HBM3" },
        { "h100-nvl", 94, GPU_CLASS_DATACENTER, "NVIDIA H100 NVL" },
        { "h200", 141, GPU_CLASS_DATACENTER, "NVIDIA H200" },
        { "b200", 180, GPU_CLASS_DATACENTER, "NVIDIA B200" },
        { "gh200", 96, GPU_CLASS_DATACENTER, "NVIDIA GH200 480GB" },
        { "l40s", 48, GPU_CLASS_DATACENTER, "NVIDIA L40S" },
        { "l40", 48, GPU_CLASS_DATACENTER, "NVIDIA L40" },
        { "l4", 24, GPU_CLASS_DATACENTER, "NVIDIA L4" },
        { "a10g", 24, GPU_CLASS_DATACENTER, "NVIDIA A10G" },
        { "a10", 24, GPU_CLASS_DATACENTER, "NVIDIA A10" },
        { "a30", 24, GPU_CLASS_DATACENTER, "NVIDIA A30" },
        { "a40", 48, GPU_CLASS_DATACENTER, "NVIDIA A40" },
        { "rtx-a5000", 24, GPU_CLASS_PROFESSIONAL, "NVIDIA RTX A5000" },
        { "rtx-6000-ada", 48, GPU_CLASS_PROFESSIONAL, "NVIDIA RTX 6000 Ada Generation" },
        { "rtx4090", 24, GPU_CLASS_DEVELOPMENT, "NVIDIA GeForce RTX 4090" },
        { "rtx4080", 16, GPU_CLASS_DEVELOPMENT, "NVIDIA GeForce RTX 4080" },
        { "rtx3080", 10, GPU_CLASS_DEVELOPMENT, "NVIDIA GeForce RTX 3080" },
    };
    (void)state;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const gpu_type *g = catalog_gpu(want[i].id);
        assert_non_null(g);
        assert_int_equal(g->memory_gb, want[i].mem);
        assert_int_equal(g->cls, want[i].cls);
        assert_true(g->builtin);
        assert_true(g->fp32_tflops_x10 > 0 && g->fp16_tflops_x10 > 0);
        assert_ptr_equal(catalog_gpu_by_nvidia_name(want[i].smi), g);
        assert_ptr_equal(catalog_gpu_by_nvidia_name(want[i].smi + 7), g);   /* without "NVIDIA " */
    }
    assert_ptr_equal(catalog_gpu_by_nvidia_name("NVIDIA H100 PCIe"), catalog_gpu("h100"));
    assert_ptr_equal(catalog_gpu_by_nvidia_name("nvidia geforce rtx 4090"), catalog_gpu("rtx4090"));
    assert_ptr_equal(catalog_gpu_by_nvidia_name("Tesla T4"), catalog_gpu("t4"));
    assert_null(catalog_gpu_by_nvidia_name("NVIDIA GeForce RTX 4090 D"));
    assert_null(catalog_gpu_by_nvidia_name("NVIDIA "));
    assert_null(catalog_gpu_by_nvidia_name(""));
    assert_null(catalog_gpu_by_nvidia_name(NULL));
}

/* Added types (as /rigdeck/gpus/ documents) join the look-ups until the next
 * load; a document naming a built-in id or missing a figure is no type. */
static void test_added_types(void **state)
{
    (void)state;
    json_t *docs = json_loads("[{\"name\": \"z9\", \"nvidia_names\": [\"NVIDIA Z9 Prototype\"], \"memory_gb\": 64,"
                              " \"fp32_tflops_x10\": 125, \"fp16_tflops_x10\": 500, \"class\": \"professional\"},"
                              " {\"name\": \"h100\", \"nvidia_names\": [\"X\"], \"memory_gb\": 1,"
                              " \"fp32_tflops_x10\": 1, \"fp16_tflops_x10\": 1, \"class\": \"development\"},"
                              " {\"name\": \"half\", \"memory_gb\": 1, \"class\": \"development\"}]", 0, NULL);
    size_t n = catalog_gpu_count();
    catalog_gpu_load_added(docs);
    json_decref(docs);
    assert_int_equal(catalog_gpu_count(), n + 1);
    const gpu_type *g = catalog_gpu("z9");
    assert_non_null(g);
    assert_ptr_equal(catalog_gpu_at(n), g);
    assert_int_equal(catalog_gpu_index(g), n);
    assert_int_equal(catalog_gpu_index(catalog_gpu("a100")), 10);
    assert_false(g->builtin);
    assert_int_equal(g->usage_fee_ucr, 100000);
    assert_int_equal(catalog_gpu("h100")->memory_gb, 80);
    assert_ptr_equal(catalog_gpu_by_nvidia_name("z9 prototype"), g);
    assert_null(catalog_gpu("half"));
    assert_false(catalog_gcp_region_has_gpu(catalog_gcp_region("us-central1"), "z9"));
    rd_err err;
    assert_int_equal(catalog_check_gpu("gpu_type", "z9", &err), RD_OK);
    docs = json_loads("[{\"name\": \"z8\", \"nvidia_names\": [\"NVIDIA Z8\"], \"memory_gb\": 64, \"fp32_tflops_x10\": 1,"
                      " \"fp16_tflops_x10\": 1, \"class\": \"datacenter\", \"gcp_accelerator\": \"nvidia-z8\","
                      " \"gcp_quota\": \"NVIDIA_Z8_GPUS\", \"gcp_cpus_per_gpu\": 12}]", 0, NULL);
    catalog_gpu_load_added(docs);
    json_decref(docs);
    assert_null(catalog_gpu("z9"));   /* a load replaces the added types */
    assert_true(catalog_gcp_region_has_gpu(catalog_gcp_region("us-central1"), "z8"));
    assert_string_equal(catalog_gpu("z8")->gcp_quota_metric, "NVIDIA_Z8_GPUS");
    catalog_gpu_load_added(NULL);
    assert_null(catalog_gpu("z9"));
    assert_int_equal(catalog_gpu_count(), n);
}

static void test_check_gpu_lists_ids(void **state)
{
    rd_err err;
    (void)state;
    assert_int_equal(catalog_check_gpu("gpu_type", "v100", &err), RD_OK);
    assert_int_equal(catalog_check_gpu("gpu_type", "cpu", &err), RD_OK);
    assert_int_equal(catalog_check_gpu("gpu_type", "z9", &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "gpu_type must be a GPU type"));
    assert_non_null(strstr(err.msg, "gtx1060, rtx2060s"));
    assert_non_null(strstr(err.msg, "a100-80gb, cpu, h100"));
    assert_null(strstr(err.msg, "z9"));   /* never quoted: the value may come from a file */
    assert_int_equal(catalog_check_gpu("gpu_type", "V100", &err), RD_EINVAL);
}

static void test_devices(void **state)
{
    rd_err err;
    (void)state;
    const char *ids[] = { "jetson-agx-xavier", "jetson-xavier-nx", "jetson-agx-orin", "jetson-orin-nx",
                          "jetson-orin-nano" };
    assert_int_equal(catalog_device_count(), 5);
    for (size_t i = 0; i < 5; i++) {
        assert_string_equal(catalog_device_at(i)->id, ids[i]);
        assert_ptr_equal(catalog_device(ids[i]), catalog_device_at(i));
        assert_non_null(strstr(catalog_device_at(i)->name, "Jetson"));
        assert_int_equal(catalog_check_device("--model", ids[i], &err), RD_OK);
    }
    assert_null(catalog_device_at(5));
    assert_null(catalog_device("jetson-nano"));
    assert_int_equal(catalog_check_device("--model", "jetson-nano", &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "--model must be a device model"));
    assert_non_null(strstr(err.msg, "jetson-orin-nano"));
}

static void test_gcp_regions(void **state)
{
    rd_err err;
    (void)state;
    const char *names[] = { "us-central1", "us-east1", "us-east4", "us-west1", "us-west4", "europe-west1",
                            "europe-west4", "asia-east1", "asia-northeast1", "asia-southeast1" };
    assert_int_equal(catalog_gcp_region_count(), 10);
    for (size_t i = 0; i < 10; i++) {
        const gcp_region_info *r = catalog_gcp_region_at(i);
        size_t nz = 0;
        assert_string_equal(r->name, names[i]);
        assert_ptr_equal(catalog_gcp_region(names[i]), r);
        assert_int_equal(catalog_check_gcp_region("--gcp-region", names[i], &err), RD_OK);
        for (const char *const *z = r->zones; *z; z++, nz++) {
            /* zones are REGION-LETTER */
            assert_int_equal(strncmp(*z, r->name, strlen(r->name)), 0);
            assert_int_equal(strlen(*z), strlen(r->name) + 2);
            assert_int_equal((*z)[strlen(r->name)], '-');
        }
        assert_true(nz >= 3);
        /* every GPU offered is a catalog GPU that GCP sells, and T4 is everywhere */
        for (const char *const *g = r->gpus; *g; g++)
            assert_true(catalog_gpu(*g) && catalog_gpu(*g)->gcp_cpus_per_job > 0);
        assert_true(catalog_gcp_region_has_gpu(r, "t4"));
        assert_false(catalog_gcp_region_has_gpu(r, "rtx3090"));
        assert_false(catalog_gcp_region_has_gpu(r, NULL));
    }
    assert_true(catalog_gcp_region_has_gpu(catalog_gcp_region("us-central1"), "a100"));
    assert_true(catalog_gcp_region_has_gpu(catalog_gcp_region("europe-west4"), "v100"));
    assert_null(catalog_gcp_region_at(10));
    assert_null(catalog_gcp_region("us-central2"));
    assert_int_equal(catalog_check_gcp_region("--gcp-region", "mars-north1", &err), RD_EINVAL);
    for (size_t i = 0; i < 10; i++)
        assert_non_null(strstr(err.msg, names[i]));
    assert_non_null(strstr(err.msg, "--gcp-region must be a supported GCP region"));
}

static void test_storage_classes(void **state)
{
    rd_err err;
    (void)state;
    const char *names[] = { "micro", "small", "medium", "large", "xlarge" };
    int prev = 0;
    assert_int_equal(catalog_storage_class_count(), 5);
    for (size_t i = 0; i < 5; i++) {
        const storage_class *s = catalog_storage_class(names[i]);
        assert_non_null(s);
        assert_ptr_equal(catalog_storage_class_at(i), s);
        assert_true(s->disk_gb > prev);
        assert_int_equal(strncmp(s->machine_type, "n2-standard-", 12), 0);
        prev = s->disk_gb;
    }
    assert_int_equal(catalog_storage_class("micro")->disk_gb, 1000);
    assert_int_equal(catalog_storage_class("xlarge")->disk_gb, 16000);
    assert_null(catalog_storage_class("huge"));
    assert_int_equal(catalog_check_storage_class("--storage-class", "huge", &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "micro, small, medium, large, xlarge"));
    assert_int_equal(catalog_check_storage_class("--storage-class", "large", &err), RD_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_table_matches_seed),
        cmocka_unit_test(test_usage_fees_by_class),
        cmocka_unit_test(test_gcp_facts),
        cmocka_unit_test(test_gpu_json),
        cmocka_unit_test(test_check_gpu_lists_ids),
        cmocka_unit_test(test_shipped_modern_types),
        cmocka_unit_test(test_added_types),
        cmocka_unit_test(test_devices),
        cmocka_unit_test(test_gcp_regions),
        cmocka_unit_test(test_storage_classes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
