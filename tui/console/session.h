/* session.h - one console session: its state (panes, mode, input, the
 * status line, the watch, the background sync) and the services that
 * keys, forms, panes and drawing share.
 *
 * Everything the console shows or changes goes through the command
 * language: session_exec_line() builds nothing itself, it runs a line
 * through cmd_exec_line() exactly as `rigdeck --batch` would.  The console
 * never writes the store and never re-implements a core rule.
 */
#ifndef RD_SESSION_H
#define RD_SESSION_H

#include <jansson.h>

#include "access.h"
#include "cmd.h"
#include "colprefs.h"
#include "grid.h"
#include "header.h"
#include "live.h"
#include "logview.h"
#include "options.h"
#include "pane_list.h"
#include "prompt.h"
#include "sync.h"
#include "timing.h"
#include "textview.h"
#include "theme.h"

#define PANE_MAX_VIEWS 6
#define CONFIRM_MAX_LINES 64

typedef enum {
    MODE_NORMAL,    /* moving around a table */
    MODE_FILTER,    /* typing a '/' filter */
    MODE_PROMPT,    /* typing a ':' command */
    MODE_CONFIRM,   /* a y/n question */
    MODE_FORM,      /* an add/edit form */
    MODE_VIEW,      /* reading details or a command's result */
    MODE_HELP,      /* reading the key bindings */
    MODE_LOGS,      /* reading a job worker's output (`job logs`) */
    MODE_FIND,      /* typing a '/' search in a view (details, help, logs) */
    MODE_PICK       /* the sort picker or the column chooser (pick.c) */
} con_mode;

struct pane_loading;     /* a table read in steps (pane_jobs.c) */

/* One table of a pane (a pane has one, Billing and Datastores/Reservations
 * have several, cycled with 'v'). */
typedef struct {
    grid g;
    json_t *items;          /* the raw result items, for details without a show command */
    int stale;              /* reload before it is shown next */
    int loaded;
    char summary[256];      /* pane-specific figures for the summary line */
    char note[1024];        /* why the table is empty, or a load error */
    int note_error;
    int why_slow;           /* Jobs: one `job why` outlasts a keystroke; only Enter asks */
    size_t failed;          /* Jobs: failed jobs, for the header (items hold waiting jobs only) */
    json_t *shown;          /* the show command's answer for the row shown_key (a table of */
    char shown_key[256];    /* projected items: the whole document when a key needs it) */
    struct pane_loading *loading;   /* a read in idle time under way, or NULL */
    colset cols;            /* the columns shown and their order ('C'; colprefs.h) */
} pane_state;

/* One pane's screen: what the pane shows and keeps between visits,
 * owned by the pane (panes_init sets it up from its record, panes_free
 * frees it); the session keeps one per registered pane. */
typedef struct {
    int view;                               /* the table shown, 0..nviews-1 ('v' cycles) */
    pane_state tables[PANE_MAX_VIEWS];      /* one per view */
    void *own;                              /* the pane's own state beyond its tables (the
                                             * Dashboard's: dash_of()), made by its record */
} pane_screen;

/* The details view (MODE_VIEW): a row's details or a ':' line's result. */
typedef struct {
    textview text;
    char key[256];                          /* the row it details ("" for a ':' result) */
    int pane, view;                         /* and that row's table */
} details_view;

/* A y/n question (MODE_CONFIRM) and the lines a 'y' runs. */
typedef struct {
    char question[1024];
    char *lines[CONFIRM_MAX_LINES];
    size_t count;
} confirm_dialog;

/* A place the console showed before a jump ('>'), for '<' to return to:
 * the pane, its table, that table's filter and selected row, and the
 * filter the jump gave its target table (restored too). */
#define JUMP_MAX 32
typedef struct {
    int pane, view;
    char filter[GRID_FILTER_MAX];
    char key[256];                          /* the selected row ("": none) */
    int to_pane, to_view;                   /* where the jump went */
    char to_filter[GRID_FILTER_MAX];        /* that table's filter before it */
} jump_place;

struct form_state;

/* The sort picker (F6/O) or the column chooser (C): a list of the current
 * table's columns with a cursor (pick.c). */
typedef enum { PICK_SORT, PICK_COLUMNS } pick_kind;
typedef struct {
    pick_kind kind;
    int cursor;
    int n;
    int items[COLSET_MAX];  /* column indexes, in the order listed */
} picker;

/* What a key or form action asks of the loop.  Actions change the session
 * and return this; the loop (console.c) applies it, as htop's actions
 * return a reaction, so no action calls back into the loop. */
typedef enum {
    ACT_NONE = 0,
    ACT_REDRAW = 1 << 0,    /* the screen shows something new */
    ACT_FOLLOW = 1 << 1,    /* this console ran a command: follow what it changed now */
    ACT_RELOAD = 1 << 2,    /* every table is re-read when next shown */
    ACT_REPAINT = 1 << 3,   /* repaint every cell: a garbled terminal heals */
    ACT_CLOSE = 1 << 4,     /* the open form is done (submitted or cancelled) */
    ACT_QUIT = 1 << 5
} act_result;

typedef struct session {
    const rd_options *opt;
    cmd_ctx ctx;
    store_opts sopts;
    int read_only;
    access_role role;                       /* the acting account's role (session_load_role) */
    int role_known;                         /* 0: not read (yet): every key is offered, the executor guards */
    long long role_tried_ms;                /* when it was last asked for */
    theme th;
    live_state live;
    sync_state sync;                        /* background `cloud sync` rounds */
    timing timing;                          /* RIGDECK_CONSOLE_TIMING figures */

    int pane;                               /* the pane shown: 0..PANE_COUNT-1 (pane_list.h) */
    pane_screen screens[PANE_COUNT];        /* each pane's own state */

    con_mode mode;
    ledit edit;                             /* ':' and '/' input */
    lhistory history;                       /* ':' lines */
    compl_list compl;                       /* candidates of the last Tab */
    char filter_before[GRID_FILTER_MAX];    /* restored when a filter is cancelled */
    details_view details;                   /* MODE_VIEW */
    textview help;
    logview logs;                           /* MODE_LOGS */
    char find[GRID_FILTER_MAX];             /* the last '/' search of a view; n/N repeat it */
    con_mode find_from;                     /* MODE_FIND: the view it searches */
    picker pick;                            /* MODE_PICK */

    jump_place jumps[JUMP_MAX];             /* the jump history, oldest first (jump.c) */
    size_t njumps;
    int mouse;                              /* 1: the terminal reports mouse events (mouse.c) */

    confirm_dialog confirm;                 /* MODE_CONFIRM */
    struct form_state *form;                /* MODE_FORM */

    char status[512];
    int status_error;
    char *clip_pending;                     /* text to copy once the frame is out (copy.c) */
    char alerts[256];
    header_ctl ctl;                         /* `serve status`, for the header */
    long long firing;                       /* firing alerts, for the header; -1: unknown */
    long long firing_ms;                    /* when they were last counted; 0: never */
    int firing_stale;                       /* alerts changed: count again */
    int reload_asked;                       /* r: say when the table shown is read again */
    long long last_load_ms;
    long long alerts_ms;                    /* when Nodes was last read for the alerts */
    long long clock_shown;
    int dirty;
    int quit;
} session;

/* Runs one command line through the command language.  On RD_OK *result
 * holds its result (may be NULL).  A store failure also raises the lost
 * store banner. */
rd_code session_exec_line(session *c, const char *line, json_t **result, rd_err *err);

/* Reads the acting account's role (`account show`) into c->role, at most
 * once every few seconds while it cannot be read: the keys ask core/access
 * what that role may do (keys.c), rather than offering every key and
 * refusing after the confirmation. */
void session_load_role(session *c);

/* Sets the status line (printf-style). */
void session_set_status(session *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void session_set_error(session *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The current pane's current table state. */
pane_state *session_current_table(session *c);

/* Marks every table stale (after a change to the store). */
void session_mark_stale(session *c);

/* Asks a y/n question; on 'y' the given lines run one by one. */
void session_ask_confirm(session *c, const char *question, char *const *lines, size_t nlines);

/* Data rows the table shows at the current terminal size. */
int session_page_rows(session *c);

/* Starts a background `cloud sync` round; manual: say so (or why not) in
 * the status line. */
void session_start_sync(session *c, int manual);

#endif
