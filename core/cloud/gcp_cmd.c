/* gcp_cmd.c - `gcp regions`: the GCP regions rigdeck supports (catalog.c),
 * their zones and GPU types. */
#include "catalog.h"
#include "cmd.h"

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

const cmd_def gcp_cmd_table[] = {
    { .words = "gcp regions", .args = "", .options = CMD_NO_STORE,
      .help = "the GCP regions rigdeck supports, their zones and GPU types", .run = gcp_regions_cmd },
    { 0 }
};
