/* pane_audit.c - the Audit pane (key 9): the audit trail, newest first,
 * each entry's changes as one cell. */
#include <stdio.h>
#include <string.h>

#include "panes_int.h"

static const pane_col audit_cols[] = {
    { "AT", "at", 20, 10, 0, 0 }, { "ACTOR", "actor", 10, 6, 1, 0 },
    { "COMMAND", "command", 44, 16, 0, 0 }, { "CHANGES", "@changes", 50, 12, 0, 0 },
};

/* "@changes": "set node gpu-01, add job j-1". */
static void audit_cell(const json_t *item, const char *field, char *out, size_t len, double *bar)
{
    (void)bar;
    if (strcmp(field, "@changes") != 0) {
        snprintf(out, len, "?");
        return;
    }
    const json_t *ch = json_object_get(item, "changes"), *e;
    size_t i, used = 0;
    out[0] = '\0';
    json_array_foreach(ch, i, e) {
        if (used < len)
        {
            const char *act = json_string_value(json_object_get(e, "action"));
            const char *obj = json_string_value(json_object_get(e, "object"));
            used += (size_t)snprintf(out + used, len - used, "%s%s %s", i ? ", " : "",
                                     act ? act : "?", obj ? obj : "?");
        }
    }
}

static const pane_view audit_views[] = {
    { .title = "Audit", .list_cmd = "audit list --limit 2000", PANE_COLS(audit_cols), .cell = audit_cell,
      .key_field = "id", .empty_note = "The audit trail is empty.", .sort_by = 1, .sort_desc = 1,
      .kinds = LK_AUDIT },
};

const pane_def pane_audit = {
    .name = "Audit", .mid = "Audit", .tiny = "Audit", .key = '9', PANE_VIEWS(audit_views),
};
