/* console.c - the console's loop: terminal setup and restore, waiting for
 * a key, polling the store watch and the background sync, dispatching the
 * key by input mode, and redrawing.  What the keys act upon is the session
 * (session.c).
 *
 * One thread.  The loop waits at most LOOP_MS for a key, then polls the
 * store watch without blocking, so a change made elsewhere shows within a
 * second and typing never waits on the store.
 */
#define NCURSES_WIDECHAR 1
#include "console.h"
#include "session.h"

#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "copy.h"
#include "dash.h"
#include "draw.h"
#include "form.h"
#include "keys.h"
#include "logs.h"
#include "modes.h"
#include "mouse.h"
#include "panes.h"
#include "text.h"
#include "rdtime.h"

#define LOOP_MS 100
/* The console's SQLite page cache (store_opts.cache_kib): 2 MiB.  The
 * tables are read once, in key order, and kept as rows; a bigger cache
 * stays resident without making a read faster (8 MiB: 6 MB more, and
 * no page of jobs read sooner on 100,000 jobs). */
#define CONSOLE_CACHE_KIB 2048
/* Reloads after store events are at most this frequent, so a burst of
 * batch writes costs one reload, not one per write. */
#define RELOAD_MIN_MS 300
/* `job why` asked per idle loop on the Jobs pane: keys wait at most this. */
#define WHY_IDLE_MS 60
/* A step of a table read in the background (a page of jobs): a key
 * typed meanwhile waits at most about this long. */
#define LOAD_STEP_MS 4
#define ALERTS_MS 5000
/* `serve status` is asked this often besides on a change of the serve
 * keys: a leader that dies drops out when its lease runs out, and on
 * SQLite that deletion happens at the next read of the store. */
#define CTL_MS 3000
#define FIRING_MS 10000
#define FIRING_MIN_MS 1000

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
    stop_signal = sig;
}

/* Reloads the current table now. */
static void reload_table(session *c)
{
    long long now = rdtime_mono_ms();
    pane_load(c, c->pane, c->screens[c->pane].view);
    /* The header's alerts read the Nodes table: keep it fresh even while
     * another pane shows, but at most every ALERTS_MS, since on a large
     * fleet a node list is the most expensive read there is. */
    if (c->pane != PANE_NODES && c->screens[PANE_NODES].tables[0].stale &&
        (!c->screens[PANE_NODES].tables[0].loaded || now - c->alerts_ms >= ALERTS_MS)) {
        pane_load(c, PANE_NODES, 0);
        c->alerts_ms = now;
    }
    panes_alerts(c, c->alerts, sizeof c->alerts);
    c->last_load_ms = rdtime_mono_ms();
    c->dirty = 1;
}

/* After r, the status line says that the table shown was read again and
 * how many rows it has: what was on screen before may have been the same. */
static void note_reloaded(session *c)
{
    if (!c->reload_asked)
        return;
    c->reload_asked = 0;
    const pane_view *v = pane_view_get(c->pane, c->screens[c->pane].view);
    size_t n = session_current_table(c)->g.nrows;
    if (v->ncols == 0)
        session_set_status(c, "reloaded %s", v->title);
    else
        session_set_status(c, "reloaded %s: %zu row%s", v->title, n, n == 1 ? "" : "s");
}

/* On a large fleet re-reading a few changed nodes beats a full `node
 * list`, and a table whose kind of document did not change need not be
 * read again at all; the stale ones are re-read when next shown. */
static void follow_watch(session *c)
{
    if (c->live.kinds & LK_SERVE)
        c->ctl.stale = 1;
    if (c->live.kinds & LK_ALERTS)
        c->firing_stale = 1;
    if (c->live.kinds & (LK_LOGS | LK_JOBS))
        c->logs.stale = 1;
    if (c->live.kinds & LK_ACCOUNTS)
        c->role_known = 0, c->role_tried_ms = 0;   /* a role may have changed: ask again */
    panes_follow(c, &c->live);
    if (!c->screens[PANE_NODES].tables[0].stale)
        panes_alerts(c, c->alerts, sizeof c->alerts);
    live_forget_changes(&c->live);
}

/* The header's controller indicator: `serve status` when the serve keys
 * changed, and every CTL_MS (not while the store is lost: the banner says
 * so, and the last answer stays). */
static void follow_ctl(session *c, long long now)
{
    if (c->live.lost || (!c->ctl.stale && c->ctl.asked_ms && now - c->ctl.asked_ms < CTL_MS))
        return;
    header_ctl was = c->ctl;
    json_t *res = NULL;
    rd_err err;
    if (session_exec_line(c, "serve status", &res, &err) == RD_OK)
        header_parse_ctl(res, &c->ctl);
    else if (!c->live.lost)
        c->ctl.known = 0;   /* a core without `serve status`: say nothing */
    json_decref(res);
    c->ctl.stale = 0;
    c->ctl.asked_ms = now;
    if (!header_same_ctl(&was, &c->ctl))
        c->dirty = 1;
}

/* The header's count of firing alerts: `alert list` when alerts changed
 * (at most every FIRING_MIN_MS, a burst of changes costs one count) and
 * every FIRING_MS besides (nothing is asked while the store is lost). */
static void follow_firing(session *c, long long now)
{
    if (c->live.lost || (c->firing_ms && !(c->firing_stale && now - c->firing_ms >= FIRING_MIN_MS) &&
                         now - c->firing_ms < FIRING_MS))
        return;
    long long was = c->firing;
    json_t *res = NULL;
    rd_err err;
    if (session_exec_line(c, "alert list --state firing", &res, &err) == RD_OK)
        c->firing = (long long)json_array_size(json_object_get(res, "items"));
    else if (!c->live.lost)
        c->firing = -1;   /* a core without alerts: say nothing */
    json_decref(res);
    c->firing_stale = 0;
    c->firing_ms = now;
    if (was != c->firing)
        c->dirty = 1;
}

/* ACT_FOLLOW: after a command this console ran, shows what it changed
 * through the same watch that shows other writers' changes (everything is
 * re-read if the watch is not running). */
static void follow_own(session *c)
{
    if (!c->live.w || c->live.lost) {
        session_mark_stale(c);
        return;
    }
    if (live_poll(&c->live, &c->ctx, rdtime_mono_ms()))
        follow_watch(c);
    c->dirty = 1;
}

/* Does what an action asked for: the one place actions reach the loop. */
static void apply_result(session *c, act_result r)
{
    if (r & ACT_FOLLOW)
        follow_own(c);
    if (r & ACT_RELOAD)
        session_mark_stale(c);
    if (r & ACT_REPAINT)
        clearok(curscr, TRUE);
    if (r & ACT_CLOSE) {
        form_close(c->form);
        c->form = NULL;
        c->mode = MODE_NORMAL;
    }
    if (r & ACT_QUIT)
        c->quit = 1;
    if (r & ACT_REDRAW)
        c->dirty = 1;
}

/* 1 when the terminal has hung up (the SSH session or the multiplexer
 * went away): reads then fail at once, and not every way of losing the
 * terminal sends SIGHUP to this process (a console started under make,
 * say), so without this check the loop would spin forever. */
static int terminal_gone(void)
{
    struct pollfd p = { STDIN_FILENO, POLLIN, 0 };
    return poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLERR | POLLNVAL));
}

/* One key, or -1 after LOOP_MS without one. */
static int read_key(void)
{
    wint_t wc;
    int r = get_wch(&wc);
    if (r == ERR && terminal_gone())
        stop_signal = SIGHUP;
    if (r == ERR)
        return -1;
    if (r == KEY_CODE_YES)
        return CK_FN((int)wc);
    return (int)wc;
}

/* Where themes live: $RIGDECK_THEME_DIR, ./themes, then beside the binary
 * (build/rigdeck -> themes/, /usr/bin/rigdeck -> /usr/share/rigdeck/themes). */
static void theme_dirs(char store[4][4096], const char *dirs[5])
{
    size_t n = 0;
    const char *env = getenv("RIGDECK_THEME_DIR");
    if (env && *env)
        snprintf(store[n++], 4096, "%s", env);
    snprintf(store[n++], 4096, "themes");
    char exe[4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) {
        exe[len] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash)
            *slash = '\0';
        snprintf(store[n++], 4096, "%.4000s/../themes", exe);
        snprintf(store[n++], 4096, "%.4000s/../share/rigdeck/themes", exe);
    }
    for (size_t i = 0; i < n; i++)
        dirs[i] = store[i];
    dirs[n] = NULL;
}

static int console_setup(session *c, const rd_options *opt)
{
    memset(c, 0, sizeof *c);
    timing_init(&c->timing, rdtime_mono_ms());
    c->opt = opt;
    c->read_only = opt->read_only;
    c->sopts.cacert = opt->cacert;
    c->sopts.cert = opt->cert;
    c->sopts.key = opt->key;
    c->sopts.user = opt->etcd_user;
    c->sopts.password_file = opt->etcd_password_file;
    /* The tables read most of the store once and keep rows of their own:
     * SQLite's default 128 MiB page cache would stay resident for nothing. */
    c->sopts.cache_kib = CONSOLE_CACHE_KIB;
    c->ctx.store_url = opt->store_url;
    c->ctx.store_opts = &c->sopts;
    c->ctx.actor = opt->actor;
    c->ctx.actor_given = opt->actor_given;
    c->ctx.read_only = opt->read_only;   /* ':' lines: the executor's own refusal */
    c->ctx.master_key_path = opt->master_key && *opt->master_key ? opt->master_key : NULL;
    c->pane = PANE_NODES;
    c->firing = -1;

    /* Themes are read before curses starts so warnings land on stderr. */
    const char *no_color = getenv("NO_COLOR");
    int plain = no_color && *no_color;
    const char *name = opt->theme ? opt->theme : plain ? "mono" : "default";
    char store[4][4096];
    const char *dirs[5];
    rd_err err;
    theme_dirs(store, dirs);
    rd_err_clear(&err);
    if (theme_load(&c->th, name, dirs, &err) != RD_OK) {
        fprintf(stderr, "rigdeck: %s\n", err.msg);
        theme_free(&c->th);
        return 2;
    }
    if (plain)
        theme_strip_colours(&c->th);
    for (size_t i = 0; i < c->th.nwarnings; i++)
        fprintf(stderr, "rigdeck: theme warning: %s\n", c->th.warnings[i]);
    if (!panes_init(c)) {
        fprintf(stderr, "rigdeck: out of memory\n");
        panes_free(c);
        theme_free(&c->th);
        return 3;
    }
    sync_init(&c->sync, rdtime_mono_ms());
    return 0;
}

static void console_teardown(session *c)
{
    live_close(&c->live);
    sync_close(&c->sync);
    cmd_ctx_close(&c->ctx);
    panes_free(c);
    textview_clear(&c->details.text);
    textview_clear(&c->help);
    textview_clear(&c->logs.tv);
    lhistory_free(&c->history);
    compl_list_free(&c->compl);
    form_close(c->form);
    free(c->clip_pending);
    for (size_t i = 0; i < c->confirm.count; i++)
        free(c->confirm.lines[i]);
    theme_free(&c->th);
}

static void terminal_start(session *c)
{
    const char *cs = nl_langinfo(CODESET);
    /* Box and bar glyphs need UTF-8; otherwise fall back to ASCII. */
    text_set_ascii(c->opt->ascii || !cs || strcmp(cs, "UTF-8") != 0);
    set_escdelay(25);   /* Esc must feel instant, not wait a second */
    initscr();
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    timeout(LOOP_MS);
    curs_set(0);
    mouse_start(c);
    theme_apply(&c->th);
    bkgdset(' ' | (chtype)theme_attr(TH_NORMAL));
}

/* Background cloud sync: a finished round's report, and the timer (which
 * asks the same read-only guard as the S key). */
static void follow_sync(session *c, long long now)
{
    if (sync_poll(&c->sync, now)) {
        if (c->sync.error)
            session_set_error(c, "%s", c->sync.message);
        else
            session_set_status(c, "%s", c->sync.message);
    }
    if (sync_due(&c->sync, now)) {
        if (keys_allows(c, 'S', 0))
            session_start_sync(c, 0);
        else
            c->sync.next_ms = 0;
    }
}

/* A table to show: read, or (read in the background) with rows so far. */
static int table_shown(const pane_state *ps)
{
    return ps->loaded || (ps->loading && ps->g.nrows > 0);
}

/* Gives the heap's free pages back to the system after a large passing
 * use (a read of 100,000 jobs in pages; one `job why` on 10,000 nodes
 * decodes every node, 90 MB), which glibc would otherwise keep resident
 * between the blocks that stay. */
static void release_heap(void)
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

/* One step of the background read; when it is over the header's failed
 * jobs count follows, and the timing file learns when the first ended. */
static void follow_load_step(session *c)
{
    int first = !c->screens[PANE_JOBS].tables[0].loaded;
    int r = panes_load_step(c, LOAD_STEP_MS);
    if (r & PANES_STEP_DONE) {
        panes_alerts(c, c->alerts, sizeof c->alerts);
        /* (stale again: an r during the read, which another read answers) */
        if (c->pane == PANE_JOBS && c->screens[PANE_JOBS].view == 0 && !c->screens[PANE_JOBS].tables[0].stale)
            note_reloaded(c);
        release_heap();
        if (first)
            timing_event(&c->timing, "jobs_loaded_ms", rdtime_mono_ms());
    }
    if (r)
        c->dirty = 1;
}

static void loop_once(session *c)
{
    long long now = rdtime_mono_ms();
    follow_sync(c, now);
    int was_lost = c->live.lost;
    if (live_poll(&c->live, &c->ctx, now))
        follow_watch(c);
    if (was_lost != c->live.lost)
        c->dirty = 1;
    follow_ctl(c, now);
    follow_firing(c, now);
    if (logs_due(c, now))
        logs_refresh(c);
    pane_state *ps = session_current_table(c);
    /* the Dashboard's fleet means come due by time, not by a change */
    if (c->pane == PANE_DASHBOARD && dash_of(c)->fleet_ms && now - dash_of(c)->fleet_ms >= DASH_FLEET_MS)
        ps->stale = 1;
    int reload_ms = pane_view_get(c->pane, c->screens[c->pane].view)->reload_ms;
    if (ps->stale && !ps->loading && (!ps->loaded || now - c->last_load_ms >= (reload_ms ? reload_ms : RELOAD_MIN_MS))) {
        if (pane_load_start(c, c->pane, c->screens[c->pane].view)) {
            c->last_load_ms = now;   /* read in idle time, page by page */
            c->dirty = 1;
        } else {
            /* A table never read yet: show the screen with "Loading..."
             * first, since on a large fleet the read takes a noticeable
             * moment. */
            if (!ps->loaded && c->dirty) {
                draw_screen(c);
                timing_frame(&c->timing, rdtime_mono_ms(), 0);
            }
            reload_table(c);
            note_reloaded(c);
        }
    }
    /* after the first table: the store is open, its actor known */
    if (!c->role_known && ps->loaded)
        session_load_role(c);
    long long sec = (long long)time(NULL);
    if (sec != c->clock_shown) {
        c->clock_shown = sec;
        c->dirty = 1;
    }
    if (c->dirty) {
        draw_screen(c);
        c->dirty = 0;
        timing_frame(&c->timing, rdtime_mono_ms(), table_shown(session_current_table(c)));
    }
    /* a copy asked for by the last key: the frame is out, the escape follows */
    copy_flush(c);
    /* The frame is out: parse the column the first sort key will want,
     * once a load (keys come too close together for a quiet moment). */
    if (table_shown(session_current_table(c)))
        grid_prepare_sort(&session_current_table(c)->g);
    if (panes_prefetch(c) && c->pane == PANE_JOBS)
        c->dirty = 1;
    /* While a table is read in the background the loop only glances at
     * the keyboard: each step is short, and a key is read between two. */
    timeout(panes_loading(c) ? 0 : LOOP_MS);
    int key = read_key();
    if (key >= 0)
        timing_key(&c->timing, key, rdtime_mono_ms());
    if (key < 0 && panes_loading(c))
        follow_load_step(c);
    /* A quiet moment (no key for LOOP_MS, the screen drawn): explain some
     * of the waiting jobs the Jobs table shows. */
    int why_slow = c->screens[PANE_JOBS].tables[0].why_slow;
    if (key < 0 && c->pane == PANE_JOBS && c->mode == MODE_NORMAL && panes_jobs_explain_more(c, WHY_IDLE_MS))
        c->dirty = 1;
    if (!why_slow && c->screens[PANE_JOBS].tables[0].why_slow)
        release_heap();   /* the one slow `job why` that told it so */
    /* A quiet moment for a pane with work of its own for one (the Fleet
     * map reads the nodes' latest readings). */
    if (key < 0 && c->mode == MODE_NORMAL && pane_get(c->pane)->idle && pane_get(c->pane)->idle(c))
        c->dirty = 1;
    if (key == CK_FN(KEY_RESIZE)) {
        c->dirty = 1;
        return;
    }
    if (key >= 0)
        apply_result(c, modes_handle_key(c, key));
}

/* The store's one-time schema upgrade (store_set_notice) blocks the loop
 * while the first table is read: before it, the status line says why at
 * once; after it, the status keeps what was done.  Before the screen
 * starts (or after it ends) the line goes to stderr. */
static void console_store_notice(void *data, int done, const char *msg)
{
    session *c = data;
    if (!stdscr || isendwin()) {
        fprintf(stderr, "rigdeck: %s\n", msg);
        return;
    }
    session_set_status(c, "%s", msg);
    if (!done) {
        lay_screen s = layout_compute(LINES, COLS, 0, 0);
        draw_fill(s.status.y, s.status.x, s.status.w, TH_STATUS);
        draw_text(s.status.y, s.status.x, s.status.w, msg, TH_STATUS);
        refresh();
    }
}

int console_run(const rd_options *opt)
{
    session c;
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        fprintf(stderr, "rigdeck: the console needs a terminal; use 'rigdeck --batch' in scripts\n");
        return 2;
    }
    setlocale(LC_ALL, "");
    int status = console_setup(&c, opt);
    if (status != 0)
        return status;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);

    store_set_notice(console_store_notice, &c);
    terminal_start(&c);
    if (c.th.nwarnings)
        session_set_error(&c, "theme: %s%s", c.th.warnings[0], c.th.nwarnings > 1 ? " (more on stderr)" : "");
    else
        session_set_status(&c, "%s? lists the keys", c.read_only ? "read-only session: nothing can be changed. " : "");
    c.dirty = 1;
    while (!c.quit && !stop_signal)
        loop_once(&c);
    endwin();
    timing_write(&c.timing);
    console_teardown(&c);
    store_set_notice(NULL, NULL);
    return stop_signal && stop_signal != SIGINT ? 128 + stop_signal : 0;
}
