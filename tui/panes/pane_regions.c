/* pane_regions.c - the Regions pane (key 2): regions with their node and
 * device counts (`region list`). */
#include "panes_int.h"

static const pane_col region_cols[] = {
    { "NAME", "name", 14, 8, 0, 0 }, { "OWNER", "owner", 10, 8, 3, 0 },
    { "PROVIDER", "provider", 8, 8, 0, 0 }, { "GCP REGION", "gcp_region", 14, 10, 4, 0 },
    { "STORAGE", "storage", 7, 7, 2, 0 }, { "PUBLIC", "public", 6, 6, 5, 0 },
    { "STATE", "state", 12, 8, 0, COL_STATE }, { "COMPUTE", "compute_nodes", 7, 7, 0, COL_RIGHT },
    { "STORAGE N", "storage_nodes", 9, 9, 6, COL_RIGHT }, { "DEVICES", "devices", 7, 7, 1, COL_RIGHT },
};

static const pane_view region_views[] = {
    { .title = "Regions", .list_cmd = "region list", PANE_COLS(region_cols), .key_field = "name",
      .show_cmd = "region show", .remove_cmd = "region remove", .remove_verb = "remove",
      .empty_note = "No regions yet: press a to create one.", .add_form = FORM_REGION_CREATE,
      .edit_form = FORM_REGION_SET,
      /* the counts of nodes and devices it shows */
      .kinds = LK_REGIONS, .births = LK_NODES | LK_DEVICES, .owner_field = "owner", .names = NAMES_REGION },
};

const pane_def pane_regions = {
    .name = "Regions", .mid = "Regions", .tiny = "Regn", .key = '2', PANE_VIEWS(region_views),
};
