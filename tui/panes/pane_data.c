/* pane_data.c - the Data/Datastores pane (key 8): datastores, host
 * reservations, and an account's data objects (core/data/: keys, datasets,
 * checkpoints, models), one view each ('v'). */
#include "panes_int.h"

static const pane_col datastore_cols[] = {
    { "NAME", "name", 14, 8, 0, 0 }, { "REGION", "region", 10, 6, 0, 0 }, { "TYPE", "type", 5, 4, 0, 0 },
    { "ADDRESS", "address", 22, 10, 0, 0 }, { "ROOT", "root", 20, 8, 1, 0 },
    { "USERNAME", "username", 10, 8, 2, 0 },
};
static const pane_col reservation_cols[] = {
    { "NAME", "name", 14, 8, 0, 0 }, { "REGION", "region", 10, 6, 0, 0 }, { "TYPE", "type", 6, 4, 1, 0 },
    { "HOSTNAME", "hostname", 24, 8, 0, 0 }, { "PORT", "port", 6, 4, 0, COL_RIGHT },
};
static const pane_col datakey_cols[] = {
    { "OWNER", "owner", 12, 6, 1, 0 }, { "NAME", "name", 16, 8, 0, 0 }, { "TYPE", "type", 11, 5, 0, 0 },
    { "CREATED", "created_at", 20, 10, 2, 0 },
};
static const pane_col dataobj_cols[] = {
    { "OWNER", "owner", 12, 6, 2, 0 }, { "NAME", "name", 18, 8, 0, 0 },
    { "TYPE", "source_type", 9, 5, 0, 0 }, { "SOURCE", "source", 40, 12, 0, 0 },
    { "KEY", "key", 12, 5, 1, 0 }, { "CREATED", "created_at", 20, 10, 3, 0 },
};

static const pane_view data_views[] = {
    { .title = "Datastores", .list_cmd = "datastore list", PANE_COLS(datastore_cols), .key_field = "name",
      .show_cmd = "datastore show", .remove_cmd = "datastore remove", .remove_verb = "remove",
      .empty_note = "No datastores yet: press a to add one.", .add_form = FORM_DATASTORE_ADD,
      .kinds = LK_DATASTORES, .names = NAMES_DATASTORE },
    { .title = "Reservations", .list_cmd = "reservation list", PANE_COLS(reservation_cols), .key_field = "name",
      .show_cmd = "reservation show", .remove_cmd = "reservation remove", .remove_verb = "remove",
      .empty_note = "No reservations yet: press a to add one.", .add_form = FORM_RESERVATION_ADD,
      .kinds = LK_RESERVATIONS, .names = NAMES_RESERVATION },
    /* an account's data objects (core/data/): named OWNER/NAME, the form that finds another's */
    { .title = "Keys", .list_cmd = "key list", PANE_COLS(datakey_cols), .key_field = "name",
      .show_cmd = "key show", .remove_cmd = "key remove", .remove_verb = "remove",
      .empty_note = "No keys yet: press a to add one (sealed at rest, never shown).", .add_form = FORM_KEY_ADD,
      .key_prefix = "owner", .key_sep = '/', .kinds = LK_DATA },
    { .title = "Datasets", .list_cmd = "dataset list", PANE_COLS(dataobj_cols), .key_field = "name",
      .show_cmd = "dataset show", .remove_cmd = "dataset remove", .remove_verb = "remove",
      .empty_note = "No datasets yet: press a to add one.", .add_form = FORM_DATASET_ADD,
      .key_prefix = "owner", .key_sep = '/', .kinds = LK_DATA },
    { .title = "Checkpoints", .list_cmd = "checkpoint list", PANE_COLS(dataobj_cols), .key_field = "name",
      .show_cmd = "checkpoint show", .remove_cmd = "checkpoint remove", .remove_verb = "remove",
      .empty_note = "No checkpoints yet: press a to add one.", .add_form = FORM_CHECKPOINT_ADD,
      .key_prefix = "owner", .key_sep = '/', .kinds = LK_DATA },
    { .title = "Models", .list_cmd = "model list", PANE_COLS(dataobj_cols), .key_field = "name",
      .show_cmd = "model show", .remove_cmd = "model remove", .remove_verb = "remove",
      .empty_note = "No models yet: press a to add one.", .add_form = FORM_MODEL_ADD,
      .key_prefix = "owner", .key_sep = '/', .kinds = LK_DATA },
};

const pane_def pane_data = {
    .name = "Data/Datastores", .mid = "Data", .tiny = "Data", .key = '8', PANE_VIEWS(data_views),
};
