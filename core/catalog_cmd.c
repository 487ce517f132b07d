/* catalog_cmd.c - `gpu list` and `device models`: the catalogs as commands. */
#include "catalog.h"
#include "cmd.h"

static rd_code gpu_list_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    json_t *items = json_array();
    (void)ctx;
    (void)a;
    for (size_t i = 0; i < catalog_gpu_count(); i++)
        json_array_append_new(items, catalog_gpu_json(catalog_gpu_at(i)));
    *result = json_pack("{s:o}", "items", items);
    return *result ? RD_OK : rd_fail(err, RD_ENOMEM, "out of memory");
}

static rd_code device_models_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    json_t *items = json_array();
    (void)ctx;
    (void)a;
    for (size_t i = 0; i < catalog_device_count(); i++)
        json_array_append_new(items, json_pack("{s:s, s:s}", "name", catalog_device_at(i)->id, "display_name",
                                               catalog_device_at(i)->name));
    *result = json_pack("{s:o}", "items", items);
    return *result ? RD_OK : rd_fail(err, RD_ENOMEM, "out of memory");
}

static rd_code gcp_regions_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    json_t *items = json_array();
    (void)ctx;
    (void)a;
    for (size_t i = 0; i < catalog_gcp_region_count(); i++) {
        const gcp_region_info *r = catalog_gcp_region_at(i);
        json_t *zones = json_array(), *gpus = json_array();
        for (const char *const *z = r->zones; *z; z++)
            json_array_append_new(zones, json_string(*z));
        for (const char *const *g = r->gpus; *g; g++)
            json_array_append_new(gpus, json_string(*g));
        json_array_append_new(items, json_pack("{s:s, s:o, s:o}", "name", r->name, "zones", zones, "gpus", gpus));
    }
    *result = json_pack("{s:o}", "items", items);
    return *result ? RD_OK : rd_fail(err, RD_ENOMEM, "out of memory");
}

const cmd_def catalog_cmd_table[] = {
    { "gpu list", "", NULL, CMD_NO_STORE, "the GPU catalog: memory, TFLOPS, class and usage fee",
      "name,display_name,memory_gb,fp32_tflops,fp16_tflops,class,usage_fee_ucr,gcp", gpu_list_cmd },
    { "device models", "", NULL, CMD_NO_STORE, "the edge device models devices may be", NULL, device_models_cmd },
    { "gcp regions", "", NULL, CMD_NO_STORE, "the GCP regions rigdeck supports, their zones and GPU types", NULL,
      gcp_regions_cmd },
    { 0 }
};
