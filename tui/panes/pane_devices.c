/* pane_devices.c - the Devices pane (key 4): edge devices and their
 * deployment, and the device configurations ('v'). */
#include <stdio.h>
#include <string.h>

#include "panes_int.h"

static const pane_col device_cols[] = {
    { "NAME", "name", 14, 8, 0, 0 }, { "REGION", "region", 10, 6, 0, 0 },
    { "MODEL", "model", 17, 8, 0, 0 }, { "STATE", "state", 12, 8, 0, COL_STATE },
    { "CONFIG", "config", 12, 6, 1, 0 }, { "DEPLOYMENT", "@deployment", 10, 8, 0, COL_STATE },
    { "LAST DEPLOYED", "last_deployed_at", 20, 10, 2, 0 },
};
static const pane_col config_cols[] = {
    { "NAME", "name", 14, 8, 0, 0 }, { "REGION", "region", 10, 6, 0, 0 },
    { "MODEL", "model", 17, 8, 0, 0 }, { "IMAGE", "image", 22, 8, 0, 0 },
    { "COMMAND", "command", 20, 8, 1, 0 }, { "DATASTORE", "datastore", 10, 8, 2, 0 },
    { "ENV", "env", 24, 6, 3, 0 },
};

static void device_cell(const json_t *item, const char *field, char *out, size_t len, double *bar)
{
    (void)bar;
    if (strcmp(field, "@deployment") == 0) {
        /* a device's deployment is an object; older answers a word */
        const json_t *d = json_object_get(item, "deployment");
        panes_value_text(json_is_object(d) ? json_object_get(d, "state") : d, "", out, len);
    } else {
        snprintf(out, len, "?");
    }
}

static const pane_view device_views[] = {
    { .title = "Devices", .list_cmd = "device list", PANE_COLS(device_cols), .cell = device_cell,
      .key_field = "name", .show_cmd = "device show", .remove_cmd = "device remove", .remove_verb = "remove",
      .empty_note = "No edge devices yet: press a to add one (its region needs central storage).",
      .add_form = FORM_DEVICE_ADD, .edit_form = FORM_DEVICE_SET_CONFIG, .kinds = LK_DEVICES,
      .names = NAMES_DEVICE },
    { .title = "Configs", .list_cmd = "device-config list", PANE_COLS(config_cols), .key_field = "name",
      .remove_cmd = "device-config remove", .remove_verb = "remove",
      .empty_note = "No device configurations yet: press a to create one.", .add_form = FORM_CONFIG_CREATE,
      .key_prefix = "region", .key_sep = ' ', .kinds = LK_CONFIGS, .names = NAMES_CONFIG },
};

const pane_def pane_devices = {
    .name = "Devices", .mid = "Devices", .tiny = "Dev", .key = '4', PANE_VIEWS(device_views),
};
