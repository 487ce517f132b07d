/* panes.h - what a pane is: a record (pane_def) with its views, each
 * view's columns, the command lines that fill it, its computed cells, the
 * commands that show or remove a row, the store changes that make it
 * stale; and the registry of panes (PANE_LIST), in tab order.
 *
 * Each pane is one file, tui/panes/pane_NAME.c, defining `pane_NAME`.
 * Every table is filled by running command-language lines (`node list`,
 * `quota show R`, `ledger entries`...), never by reading the store; the
 * Dashboard, which is no table, reads one node's vital stats history
 * through the core's reader (dash.h).
 */
#ifndef RD_PANES_H
#define RD_PANES_H

#include <stddef.h>

#include "layout.h"
#include "pane_list.h"
#include "session.h"


/* The add/edit forms a view can open with 'a' and 'e' (form.c defines
 * them): named here so the pane definitions need not reach up to the
 * forms. */
enum { FORM_NONE, FORM_NODE_ADD, FORM_REGION_CREATE, FORM_NODE_SET, FORM_DATASTORE_ADD, FORM_RESERVATION_ADD,
       FORM_PROVIDER_ENABLE, FORM_DEVICE_ADD, FORM_DEVICE_SET_CONFIG, FORM_CONFIG_CREATE, FORM_QUOTA_SET,
       FORM_JOB_SUBMIT, FORM_PROJECT_CREATE, FORM_PROJECT_SET, FORM_ACCOUNT_CREATE, FORM_ACCOUNT_SET,
       FORM_REGION_SET, FORM_KEY_ADD, FORM_DATASET_ADD, FORM_CHECKPOINT_ADD, FORM_MODEL_ADD, FORM_COUNT };

enum {
    COL_STATE = 1 << 0,     /* coloured by theme_state_elem() of its text */
    COL_BAR = 1 << 1,       /* drawn as a usage bar from row->bar */
    COL_RIGHT = 1 << 2,     /* numbers: right-aligned */
    COL_MONEY = 1 << 3      /* credits; negative amounts stand out */
};

typedef struct {
    const char *header;
    const char *field;      /* a JSON field, or "@name" for a computed cell */
    int want, min;          /* display columns wanted and needed */
    int drop;               /* 0: always shown; else hidden when narrow, highest first */
    int flags;
} pane_col;

typedef struct pane_view pane_view;

/* Fills ps->g (and ps->items, summary, note) for view v. */
typedef void (*pane_loader)(session *c, const pane_view *v, pane_state *ps);

/* A computed cell ("@gpus": field) of item: its text in out and, for a
 * COL_BAR column, the bar's fraction in *bar; "?" for a field it does not
 * know. */
typedef void (*pane_cell_fn)(const json_t *item, const char *field, char *out, size_t len, double *bar);

/* A view, with designated initializers: a field left out is "none"
 * (NULL, 0, FORM_NONE, NAMES_NONE). */
struct pane_view {
    const char *title;          /* "Nodes", "Wallets" */
    const char *list_cmd;       /* the line the default loader runs */
    const pane_col *cols;
    size_t ncols;
    pane_cell_fn cell;          /* the "@name" columns' text, or NULL: the view has none */
    const char *key_field;      /* "name" or "id": how commands name a row */
    const char *show_cmd;       /* Enter: "node show" + key; NULL: the row's own JSON */
    const char *remove_cmd;     /* d: "node remove" + key; NULL: no removal here */
    const char *remove_verb;    /* "remove", "stop" */
    const char *empty_note;     /* shown when the table is empty */
    int sort_by, sort_desc;     /* the initial sort: a column, from 1 (0: command order) */
    pane_loader load;           /* NULL: run list_cmd, one row per item */
    int add_form, edit_form;    /* FORM_* for 'a' and 'e' (FORM_NONE: no form) */
    const char *key_prefix;     /* NULL, or a field that names a row together with key_field */
    char key_sep;               /* ' ': two command arguments ("REGION NAME"); '/': one ("OWNER/NAME") */
    int reload_ms;              /* reloaded at most this often after store changes (0: the console's default) */
    unsigned kinds, births;     /* LK_*: a change of `kinds`, or a document of `births` created or
                                 * deleted (a count it shows), makes the table stale */
    const char *owner_field;    /* the field naming the account that owns a row (access), or NULL */
    names_kind names;           /* the names its rows offer to completion (NAMES_NONE: none) */
};

typedef struct pane_def {
    const char *name;           /* "Nodes" */
    const char *mid;            /* a shorter tab label */
    const char *tiny;           /* the shortest tab label */
    int key;                    /* the key that jumps to it: '1'..'9', '0', '!' */
    const pane_view *views;
    size_t nviews;
    void *(*own_new)(void);     /* makes the screen's own state (pane_screen.own), or NULL: none */
    void (*own_free)(void *own);    /* frees it (NULL is nothing) */
    /* A pane that shows its table otherwise than as rows (the Fleet grid)
     * paints it itself and moves its own cursor; NULL: a table. */
    void (*draw)(session *c, lay_rect body);
    int (*cursor_key)(session *c, int key); /* a cursor key, Left/Right/h/l too; 0: not its own */
    void (*act)(session *c, int key);   /* a key keys.c binds to this pane alone */
    int (*idle)(session *c);            /* a quiet moment while shown (no key, the frame out):
                                         * work it put off; 1 when the screen changed */
    /* Enter's command line for the row key where the view's show_cmd
     * does not fit every row (the Fleet map's devices); 0: show_cmd's. */
    int (*show_line)(session *c, const char *key, char *line, size_t len);
} pane_def;

#define PANE_DECL(name, id) extern const pane_def pane_##name;
PANE_LIST(PANE_DECL)
#undef PANE_DECL

/* The pane definition of pane i (0..PANE_COUNT-1). */
const pane_def *pane_get(int i);

/* The key that jumps to pane i ('1'..'9', '0', '!'), and the pane of a key
 * (-1: none). */
int pane_key(int i);
int pane_of_key(int key);

/* The view definition of a pane's view. */
const pane_view *pane_view_get(int pane, int view);

/* Sets up every pane's screen: its grids with their columns and initial
 * sort, and its own state; 0 when out of memory (then panes_free). */
int panes_init(session *c);

/* Frees every pane's rows, items and own state. */
void panes_free(session *c);

/* Reloads one table by running its command lines. */
void pane_load(session *c, int pane, int view);

/* Starts reading a table in the background, a step per idle moment
 * (panes_load_step), for tables read in pages (Jobs); 0 when the table is
 * read at once (pane_load does).  The table shows its rows meanwhile. */
int pane_load_start(session *c, int pane, int view);

enum {
    PANES_STEP_SHOWN = 1 << 0,  /* the table on screen changed */
    PANES_STEP_DONE = 1 << 1    /* a background read is over: the table is loaded */
};

/* One step of the background read under way, if any, within about
 * budget_ms: PANES_STEP_* flags (0: nothing changed on screen). */
int panes_load_step(session *c, long long budget_ms);

/* Starts reading the Jobs table in the background if it was never read
 * and the current table is; 1 when it did. */
int panes_prefetch(session *c);

/* 1 while a background read is under way. */
int panes_loading(const session *c);

/* Applies the store changes live_poll collected to the Nodes table by
 * re-reading just the changed nodes (`node show`); returns 1 when the
 * table is up to date that way, 0 when it needs a full reload. */
int panes_patch_nodes(session *c, const live_state *l);

/* Follows store changes (live_poll's kinds and node keys): patches the
 * Nodes table row by row where it can, and marks stale just the tables
 * that show a kind of document that changed. */
void panes_follow(session *c, const live_state *l);

/* Jobs the last load had no time to explain: asks `job why` for more of
 * them within budget_ms and updates their rows; 1 when any changed.  The
 * console calls it while idle, so the column fills in without a key. */
int panes_jobs_explain_more(session *c, long long budget_ms);

/* Counts node problems for the header ("2 rejected, 1 offline"), from the
 * Nodes table if it is loaded. */
void panes_alerts(session *c, char *out, size_t len);

/* The field of a row's listed item that names the account owning it
 * ("owner"; "account" on Wallets), for the keys to ask whether the role
 * may act on that row; NULL where rows carry no such field. */
const char *pane_owner_field(int pane, int view);

/* The current table's listed item of the row with this key, or NULL (the
 * list's own item: on a projected table only the listed fields). */
const json_t *pane_row_item(const session *c, const char *key);

/* The key a row of view v has for item ("gpu-07", "lab cfg1", "alice/default"). */
void pane_item_key(const pane_view *v, const json_t *item, char *out, size_t len);

/* Appends a row's key to a command line as its argument(s), quoted. */
void pane_append_key(const pane_view *v, const char *key, char *line, size_t len);

/* The JSON item of the row under the cursor, or NULL. */
const json_t *pane_current_item(session *c);

/* Offers names of a kind for completion, from the loaded tables. */
void panes_names(names_kind kind, void (*add)(const char *name, void *data), void *data, void *ctx);

#endif
