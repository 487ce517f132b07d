/* gpu_cmd.c - `gpu list`: the GPU catalog (catalog.c) as a command. */
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

const cmd_def gpu_cmd_table[] = {
    { "gpu list", "", NULL, CMD_NO_STORE, "the GPU catalog: memory, TFLOPS, class and usage fee",
      "name,display_name,memory_gb,fp32_tflops,fp16_tflops,class,usage_fee_ucr,gcp", gpu_list_cmd },
    { 0 }
};
