/* pane_providers.c - the Providers pane (key 1): the cloud providers
 * enabled for the owner's regions (`provider list`). */
#include "panes_int.h"

static const pane_col provider_cols[] = {
    { "NAME", "name", 10, 8, 0, 0 }, { "OWNER", "owner", 12, 6, 0, 0 },
    { "PAYMENT", "payment", 9, 7, 2, 0 }, { "PROJECT", "project_id", 18, 10, 3, 0 },
    { "CLIENT EMAIL", "client_email", 44, 16, 4, 0 }, { "ENABLED", "enabled_at", 20, 10, 1, 0 },
};

static const pane_view provider_views[] = {
    { .title = "Providers", .list_cmd = "provider list", PANE_COLS(provider_cols), .key_field = "name",
      .show_cmd = "provider show", .empty_note = "No provider is enabled: press a to enable one.",
      .add_form = FORM_PROVIDER_ENABLE, .kinds = LK_PROVIDERS, .owner_field = "owner" },
};

const pane_def pane_providers = {
    .name = "Providers", .mid = "Providers", .tiny = "Prov", .key = '1', PANE_VIEWS(provider_views),
};
