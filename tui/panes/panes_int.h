/* panes_int.h - helpers shared by panes.c (the registry, loading,
 * following), panes_cells.c (cells and rows) and the panes' own files
 * (pane_NAME.c: records, loaders, computed cells). */
#ifndef RD_PANES_INT_H
#define RD_PANES_INT_H

#include "panes.h"

/* A JSON value as one line of cell text (money in credits, bools yes/no). */
void panes_value_text(const json_t *v, const char *field, char *out, size_t len);

/* A node's agent cell: "online", "lost" or "none" from `node list`'s word
 * or `node show`'s object; "-" when the core says nothing. */
void panes_agent_text(const json_t *agent, char *out, size_t len);

/* A view's columns and a pane's views, for designated initializers. */
#define PANE_COLS(a) .cols = (a), .ncols = sizeof(a) / sizeof((a)[0])
#define PANE_VIEWS(a) .views = (a), .nviews = sizeof(a) / sizeof((a)[0])

/* A number field of item, 0 when absent. */
double panes_number_of(const json_t *item, const char *field);

/* A number without trailing zeros: "2.5", "4". */
void panes_number_text(double d, char *out, size_t len);

/* One row for item, by the view's columns, appended to g. */
void panes_fill_row(const pane_view *v, grid *g, const json_t *item);

/* Drops the cached whole document of a row (pane_current_item). */
void panes_forget_shown(pane_state *ps);

/* 1 when the view's list command asks for some fields only (`--fields`):
 * its items are not whole documents. */
int panes_view_projected(const pane_view *v);

/* One grid row per item, by the view's columns. */
void panes_fill_rows(const pane_view *v, pane_state *ps, const json_t *items);

/* Sets the note shown in place of an empty table. */
void panes_set_note(pane_state *ps, int error, const char *text);

/* Runs a line; on refusal notes "LINE: message" and returns NULL. */
json_t *panes_run(session *c, pane_state *ps, const char *line);

/* panes_run for one row of a table built line by line: a refusal because
 * the row is another account's (RD_EPERM: another tenant's wallet, the
 * quotas of someone else's public region) sets *refused and notes nothing,
 * since a tenant's console shows what it may see and no more. */
json_t *panes_run_row(session *c, pane_state *ps, const char *line, int *refused);

/* Replaces the table's items (takes the reference). */
void panes_adopt_items(pane_state *ps, json_t *items);

/* The default loader: list_cmd, one row per item. */
void panes_load_list(session *c, const pane_view *v, pane_state *ps);

/* The Jobs table's loader (pane_jobs.c): panes.c reads it in steps too. */
void panes_load_jobs(session *c, const pane_view *v, pane_state *ps);

/* `job why` per waiting job costs a pass over the nodes (half a second on
 * 10,000 nodes), so the table asks it in idle time, a little per loop, and
 * not at all where one answer takes longer than a keystroke may wait;
 * Enter explains any job. */
#define WHY_PENDING "(asking job why...)"
#define WHY_ENTER "(Enter explains)"
/* A `job why` slower than this (a pass over a very large fleet) is not
 * asked in idle time: a key pressed meanwhile would wait for it. */
#define WHY_SLOW_MS 150
/* On more nodes than this, `job why` is not even tried in idle time: one
 * pass takes several times WHY_SLOW_MS (about 1 s on 10,000 nodes here),
 * freezing the keys meanwhile, and decodes every node (90 MB passing). */
#define WHY_MAX_NODES 5000

/* Reading the Jobs table in steps (console idle time).  begin: prepares
 * a read (0: out of memory); the table keeps its rows until the read is
 * over, but an empty one takes pages as they land.  step: reads one page
 * within about budget_ms, and when shown (the table is on screen) lets
 * the rows read join the table now and then; PANES_STEP_* flags.  The
 * table's summary says how far a first read has got.  abandon: drops a
 * read under way.  loading: 1 while one is, with the jobs read so far. */
int panes_jobs_begin(const pane_view *v, pane_state *ps);
int panes_jobs_step(session *c, const pane_view *v, pane_state *ps, long long budget_ms, int shown);
void panes_jobs_abandon(pane_state *ps);
int panes_jobs_loading(const pane_state *ps, size_t *nread);

/* Puts the reasons of the jobs in `changed` (id -> {"why"}) in the
 * table's rows: one pass over the rows, however many changed. */
void panes_jobs_update_rows(const pane_view *v, pane_state *ps, const json_t *changed);

/* Asks `job why` for the job and stores the answer as its "why". */
void panes_explain_job(session *c, json_t *job);

/* A `job why` result as one line for the Jobs table. */
void panes_why_text(const json_t *why, char *out, size_t len);

/* A waiting job placed on agents' nodes that have not started it: "starting
 * on NODE (...)" in out and 1; else 0. */
int panes_job_starting(const json_t *job, char *out, size_t len);

/* Fills the Nodes summary from its items (pane_nodes.c). */
void panes_node_summary(pane_state *ps);

#endif
