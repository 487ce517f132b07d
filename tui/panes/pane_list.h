/* pane_list.h - the console's registry of panes: every pane in tab order,
 * one line each.  A pane's index (PANE_NODES...) and PANE_COUNT come from
 * here; panes.c makes the array of records from the same lines.
 *
 * Adding a pane: its file tui/panes/pane_NAME.c defining
 * `const pane_def pane_NAME` (panes.h), and its line below.
 */
#ifndef RD_PANE_LIST_H
#define RD_PANE_LIST_H

#define PANE_LIST(X) \
    X(providers, PANE_PROVIDERS) \
    X(regions, PANE_REGIONS) \
    X(nodes, PANE_NODES) \
    X(devices, PANE_DEVICES) \
    X(quotas, PANE_QUOTAS) \
    X(jobs, PANE_JOBS) \
    X(billing, PANE_BILLING) \
    X(data, PANE_STORES) \
    X(audit, PANE_AUDIT) \
    X(dashboard, PANE_DASHBOARD) \
    X(alerts, PANE_ALERTS) \
    X(fleet, PANE_FLEET)

#define PANE_ENUM(name, id) id,
enum { PANE_LIST(PANE_ENUM) PANE_COUNT };
#undef PANE_ENUM

#endif
