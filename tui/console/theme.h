/* theme.h - every colour and attribute the console uses, by element.
 *
 * Drawing code asks theme_attr(TH_...) and never names a colour.  A theme is
 * a YAML file (themes/NAME.yaml, parsed by core/yamljson) with three maps:
 *   palette: named colours    (accent: "#5fafd7", bg: default, warn: 214)
 *   ui:      UI elements      (header: {fg: bg, bg: accent, attrs: [bold]})
 *   states:  state colours    (active: {fg: good}, rejected: {fg: bad})
 * A colour is a palette name, a colour name (red, bright-blue, default...),
 * 0-255, or #rrggbb; it is mapped down to what the terminal has.  The named
 * theme is laid over themes/default.yaml, which is laid over a built-in
 * attribute-only table, so missing keys fall back; unknown keys warn.
 * This header's loading half is pure (unit tested); theme_apply() and
 * theme_attr() are the curses half (theme_term.c).
 */
#ifndef RD_THEME_H
#define RD_THEME_H

#include <stddef.h>

#include <jansson.h>

#include "err.h"

typedef enum {
    /* ui: */
    TH_NORMAL, TH_HEADER, TH_HEADER_ALERT, TH_HEADER_WARN, TH_READ_ONLY, TH_TAB, TH_TAB_ACTIVE, TH_BANNER,
    TH_SUMMARY, TH_COLUMN_HEADER, TH_ROW, TH_ROW_SELECTED, TH_ROW_MARKED,
    TH_BAR_USED, TH_BAR_HIGH, TH_BAR_FREE, TH_STATUS, TH_STATUS_ERROR,
    TH_FOOTER, TH_FOOTER_KEY, TH_DIALOG, TH_DIALOG_TITLE, TH_INPUT,
    TH_DETAIL_KEY, TH_DETAIL_VALUE, TH_MONEY_NEGATIVE, TH_DIM,
    TH_HEADER_DIM, TH_SECTION, TH_SPARK, TH_SPARK_HIGH,
    TH_SEARCH_MATCH,
    TH_HEAT_0, TH_HEAT_1, TH_HEAT_2, TH_HEAT_3, TH_HEAT_4,   /* the Fleet grid's scale, low to high */
    /* states: */
    TH_STATE_ACTIVE, TH_STATE_MAINTENANCE, TH_STATE_DRAINING, TH_STATE_PROVISIONING,
    TH_STATE_OFFLINE, TH_STATE_REJECTED, TH_STATE_REMOVED, TH_STATE_WAITING,
    TH_STATE_RUNNING, TH_STATE_STOPPING, TH_STATE_FINISHED, TH_STATE_STOPPED,
    TH_STATE_FAILED, TH_STATE_CANCELED, TH_STATE_STARTING, TH_STATE_ONLINE, TH_STATE_LOST,
    TH_STATE_CRITICAL, TH_STATE_WARNING, TH_STATE_FIRING, TH_STATE_RESOLVED, TH_STATE_UNHEALTHY,
    TH_COUNT
} theme_elem;

enum {
    TH_A_BOLD = 1 << 0, TH_A_UNDERLINE = 1 << 1, TH_A_REVERSE = 1 << 2,
    TH_A_DIM = 1 << 3, TH_A_ITALIC = 1 << 4, TH_A_STANDOUT = 1 << 5
};

/* A colour: THEME_DEFAULT (the terminal's own), 0..255, or THEME_RGB|0xrrggbb. */
#define THEME_DEFAULT (-1)
#define THEME_RGB 0x1000000

typedef struct {
    int fg, bg;
    unsigned attrs;
} theme_style;

typedef struct {
    char name[64];
    theme_style style[TH_COUNT];
    char **warnings;
    size_t nwarnings;
} theme;

/* The YAML key of an element ("row_selected") and its section ("ui"/"states"). */
const char *theme_elem_name(theme_elem e);
const char *theme_elem_section(theme_elem e);

/* The element for a state word of any object ("active", "waiting_gpus",
 * "ready", "failed"...); TH_NORMAL for words without one. */
theme_elem theme_state_elem(const char *word);

/* Parses a colour literal (no palette): name, 0-255 or #rrggbb.  Returns 0
 * and sets *out, or -1. */
int theme_parse_colour(const json_t *v, int *out);

/* Maps a colour to one of ncolors terminal colours (8, 16, 256...), or
 * THEME_DEFAULT; ncolors <= 0 maps everything to THEME_DEFAULT. */
int theme_map_colour(int colour, int ncolors);

/* Fills t with the built-in attribute-only table (no colours at all). */
void theme_init_builtin(theme *t);

/* Lays a parsed theme document over t, resolving colours through palette
 * (which the caller merged from every layer); source names the file in
 * warnings. */
void theme_overlay(theme *t, const json_t *doc, const json_t *palette, const char *source);

/* Loads theme `name` (or a path to a .yaml file) from the first directory
 * of dirs (NULL-terminated) that has it, over default.yaml.  An unknown
 * theme is RD_ENOTFOUND naming the themes found. */
rd_code theme_load(theme *t, const char *name, const char *const *dirs, rd_err *err);

/* Drops every colour, keeping attributes (NO_COLOR). */
void theme_strip_colours(theme *t);

/* Frees the warnings. */
void theme_free(theme *t);

/* ---- the curses half (theme_term.c) ---- */

/* Allocates colour pairs for t on the running terminal (after initscr). */
void theme_apply(const theme *t);

/* The curses attributes (colour pair and flags) of an element. */
int theme_attr(theme_elem e);

#endif
