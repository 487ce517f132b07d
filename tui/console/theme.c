/* theme.c - the theme element table, colour parsing and mapping, and theme
 * loading with fallback and warnings.  No curses here (see theme_term.c). */
#include "theme.h"

#include <ctype.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "yamljson.h"

typedef struct {
    const char *name;
    const char *section;
    unsigned attrs;     /* the built-in fallback: attributes only, no colour */
} elem_info;

static const elem_info elems[TH_COUNT] = {
    [TH_NORMAL] = { "normal", "ui", 0 },
    [TH_HEADER] = { "header", "ui", TH_A_REVERSE },
    [TH_HEADER_ALERT] = { "header_alert", "ui", TH_A_REVERSE | TH_A_BOLD },
    [TH_HEADER_WARN] = { "header_warn", "ui", TH_A_REVERSE | TH_A_UNDERLINE },
    [TH_READ_ONLY] = { "read_only", "ui", TH_A_BOLD | TH_A_UNDERLINE },
    [TH_TAB] = { "tab", "ui", 0 },
    [TH_TAB_ACTIVE] = { "tab_active", "ui", TH_A_REVERSE | TH_A_BOLD },
    [TH_BANNER] = { "banner", "ui", TH_A_REVERSE | TH_A_BOLD },
    [TH_SUMMARY] = { "summary", "ui", TH_A_DIM },
    [TH_COLUMN_HEADER] = { "column_header", "ui", TH_A_BOLD | TH_A_UNDERLINE },
    [TH_ROW] = { "row", "ui", 0 },
    [TH_ROW_SELECTED] = { "row_selected", "ui", TH_A_REVERSE },
    [TH_ROW_MARKED] = { "row_marked", "ui", TH_A_BOLD },
    [TH_BAR_USED] = { "bar_used", "ui", 0 },
    [TH_BAR_HIGH] = { "bar_high", "ui", TH_A_BOLD },
    [TH_BAR_FREE] = { "bar_free", "ui", TH_A_DIM },
    [TH_STATUS] = { "status", "ui", 0 },
    [TH_STATUS_ERROR] = { "status_error", "ui", TH_A_BOLD },
    [TH_FOOTER] = { "footer", "ui", TH_A_REVERSE },
    [TH_FOOTER_KEY] = { "footer_key", "ui", TH_A_BOLD },
    [TH_DIALOG] = { "dialog", "ui", 0 },
    [TH_DIALOG_TITLE] = { "dialog_title", "ui", TH_A_BOLD },
    [TH_INPUT] = { "input", "ui", TH_A_UNDERLINE },
    [TH_DETAIL_KEY] = { "detail_key", "ui", TH_A_BOLD },
    [TH_DETAIL_VALUE] = { "detail_value", "ui", 0 },
    [TH_MONEY_NEGATIVE] = { "money_negative", "ui", TH_A_BOLD },
    [TH_DIM] = { "dim", "ui", TH_A_DIM },
    [TH_HEADER_DIM] = { "header_dim", "ui", TH_A_REVERSE | TH_A_DIM },
    [TH_SECTION] = { "section", "ui", TH_A_BOLD },
    [TH_SPARK] = { "spark", "ui", 0 },
    [TH_SPARK_HIGH] = { "spark_high", "ui", TH_A_BOLD },
    [TH_SEARCH_MATCH] = { "search_match", "ui", TH_A_REVERSE | TH_A_UNDERLINE },
    /* The Fleet grid's five steps; without colour its glyphs carry the
     * figure, the attributes only stress the ends. */
    [TH_HEAT_0] = { "heat_0", "ui", TH_A_DIM },
    [TH_HEAT_1] = { "heat_1", "ui", 0 },
    [TH_HEAT_2] = { "heat_2", "ui", 0 },
    [TH_HEAT_3] = { "heat_3", "ui", TH_A_BOLD },
    [TH_HEAT_4] = { "heat_4", "ui", TH_A_BOLD | TH_A_REVERSE },
    [TH_STATE_ACTIVE] = { "active", "states", 0 },
    [TH_STATE_MAINTENANCE] = { "maintenance", "states", TH_A_UNDERLINE },
    [TH_STATE_DRAINING] = { "draining", "states", TH_A_UNDERLINE },
    [TH_STATE_PROVISIONING] = { "provisioning", "states", TH_A_DIM },
    [TH_STATE_OFFLINE] = { "offline", "states", TH_A_BOLD },
    [TH_STATE_REJECTED] = { "rejected", "states", TH_A_BOLD | TH_A_REVERSE },
    [TH_STATE_REMOVED] = { "removed", "states", TH_A_DIM },
    [TH_STATE_WAITING] = { "waiting", "states", TH_A_UNDERLINE },
    [TH_STATE_RUNNING] = { "running", "states", TH_A_BOLD },
    [TH_STATE_STOPPING] = { "stopping", "states", TH_A_UNDERLINE },
    [TH_STATE_FINISHED] = { "finished", "states", TH_A_DIM },
    [TH_STATE_STOPPED] = { "stopped", "states", TH_A_DIM },
    [TH_STATE_FAILED] = { "failed", "states", TH_A_BOLD | TH_A_REVERSE },
    [TH_STATE_CANCELED] = { "canceled", "states", TH_A_DIM },
    [TH_STATE_STARTING] = { "starting", "states", TH_A_DIM },
    [TH_STATE_ONLINE] = { "online", "states", 0 },
    [TH_STATE_LOST] = { "lost", "states", TH_A_BOLD },
    [TH_STATE_CRITICAL] = { "critical", "states", TH_A_BOLD | TH_A_REVERSE },
    [TH_STATE_WARNING] = { "warning", "states", TH_A_BOLD },
    [TH_STATE_FIRING] = { "firing", "states", TH_A_BOLD },
    [TH_STATE_RESOLVED] = { "resolved", "states", TH_A_DIM },
    [TH_STATE_UNHEALTHY] = { "unhealthy", "states", TH_A_BOLD },
};

const char *theme_elem_name(theme_elem e)
{
    return e < TH_COUNT ? elems[e].name : "?";
}

const char *theme_elem_section(theme_elem e)
{
    return e < TH_COUNT ? elems[e].section : "?";
}

theme_elem theme_state_elem(const char *word)
{
    static const struct { const char *word; theme_elem e; } words[] = {
        { "active", TH_STATE_ACTIVE }, { "ready", TH_STATE_ACTIVE }, { "posted", TH_STATE_ACTIVE },
        { "maintenance", TH_STATE_MAINTENANCE }, { "draining", TH_STATE_DRAINING },
        { "provisioning", TH_STATE_PROVISIONING }, { "pending", TH_STATE_PROVISIONING },
        { "deploying", TH_STATE_PROVISIONING }, { "offline", TH_STATE_OFFLINE },
        { "rejected", TH_STATE_REJECTED }, { "removed", TH_STATE_REMOVED },
        { "waiting_gpus", TH_STATE_WAITING }, { "waiting", TH_STATE_WAITING },
        { "running", TH_STATE_RUNNING }, { "stopping", TH_STATE_STOPPING },
        { "finished", TH_STATE_FINISHED }, { "stopped", TH_STATE_STOPPED },
        { "failed", TH_STATE_FAILED }, { "canceled", TH_STATE_CANCELED },
        { "voided", TH_STATE_CANCELED }, { "starting", TH_STATE_STARTING },
        { "online", TH_STATE_ONLINE }, { "lost", TH_STATE_LOST },
        /* alerts: severities and states; GPU health */
        { "critical", TH_STATE_CRITICAL }, { "warning", TH_STATE_WARNING },
        { "firing", TH_STATE_FIRING }, { "resolved", TH_STATE_RESOLVED },
        { "unhealthy", TH_STATE_UNHEALTHY }, { "healthy", TH_STATE_ACTIVE },
    };
    for (size_t i = 0; word && i < sizeof words / sizeof words[0]; i++)
        if (strcmp(word, words[i].word) == 0)
            return words[i].e;
    return TH_NORMAL;
}

/* ---- colours --------------------------------------------------------- */

/* xterm's default RGB for the 16 basic colours: the reference for mapping
 * indexed colours down and hex colours onto 8/16-colour terminals. */
static const int basic_rgb[16] = {
    0x000000, 0xcd0000, 0x00cd00, 0xcdcd00, 0x0000ee, 0xcd00cd, 0x00cdcd, 0xe5e5e5,
    0x7f7f7f, 0xff0000, 0x00ff00, 0xffff00, 0x5c5cff, 0xff00ff, 0x00ffff, 0xffffff,
};

static const char *const colour_names[16] = {
    "black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
    "bright-black", "bright-red", "bright-green", "bright-yellow",
    "bright-blue", "bright-magenta", "bright-cyan", "bright-white",
};

static int index_rgb(int i)
{
    static const int level[6] = { 0, 95, 135, 175, 215, 255 };
    if (i < 16)
        return basic_rgb[i];
    if (i < 232) {
        i -= 16;
        return level[i / 36] << 16 | level[i / 6 % 6] << 8 | level[i % 6];
    }
    int g = 8 + 10 * (i - 232);
    return g << 16 | g << 8 | g;
}

static long rgb_distance(int a, int b)
{
    long dr = ((a >> 16) & 255) - ((b >> 16) & 255);
    long dg = ((a >> 8) & 255) - ((b >> 8) & 255);
    long db = (a & 255) - (b & 255);
    /* Weighted toward green like the eye, so greys stay grey. */
    return 3 * dr * dr + 4 * dg * dg + 2 * db * db;
}

int theme_map_colour(int colour, int ncolors)
{
    if (colour == THEME_DEFAULT || ncolors <= 0)
        return THEME_DEFAULT;
    if (!(colour & THEME_RGB) && colour < ncolors)
        return colour;
    if (!(colour & THEME_RGB) && ncolors < 16 && colour >= 8 && colour < 16)
        return colour - 8;   /* bright-x on an 8-colour terminal: x */
    int rgb = colour & THEME_RGB ? colour & 0xffffff : index_rgb(colour);
    /* On 256-colour terminals skip 0-15: users redefine those. */
    int first = ncolors >= 256 ? 16 : 0;
    int last = ncolors >= 256 ? 256 : ncolors >= 16 ? 16 : 8;
    int best = first;
    long bestd = -1;
    for (int i = first; i < last; i++) {
        long d = rgb_distance(rgb, index_rgb(i));
        if (bestd < 0 || d < bestd) {
            bestd = d;
            best = i;
        }
    }
    return best;
}

int theme_parse_colour(const json_t *v, int *out)
{
    if (json_is_integer(v)) {
        json_int_t i = json_integer_value(v);
        if (i < 0 || i > 255)
            return -1;
        *out = (int)i;
        return 0;
    }
    if (!json_is_string(v))
        return -1;
    const char *s = json_string_value(v);
    if (strcmp(s, "default") == 0 || strcmp(s, "none") == 0) {
        *out = THEME_DEFAULT;
        return 0;
    }
    if (s[0] == '#') {
        size_t n = strlen(s + 1);
        for (size_t i = 1; i <= n; i++)
            if (!isxdigit((unsigned char)s[i]))
                return -1;
        unsigned long x = strtoul(s + 1, NULL, 16);
        if (n == 3)   /* #abc is #aabbcc */
            x = (x >> 8 & 15) * 0x110000 + (x >> 4 & 15) * 0x1100 + (x & 15) * 0x11;
        else if (n != 6)
            return -1;
        *out = THEME_RGB | (int)x;
        return 0;
    }
    if (isdigit((unsigned char)s[0])) {
        char *end;
        long i = strtol(s, &end, 10);
        if (*end || i < 0 || i > 255)
            return -1;
        *out = (int)i;
        return 0;
    }
    char norm[32];
    size_t i;
    for (i = 0; s[i] && i < sizeof norm - 1; i++)
        norm[i] = s[i] == '_' || s[i] == ' ' ? '-' : (char)tolower((unsigned char)s[i]);
    norm[i] = '\0';
    if (strcmp(norm, "gray") == 0 || strcmp(norm, "grey") == 0) {
        *out = 8;
        return 0;
    }
    for (int c = 0; c < 16; c++) {
        if (strcmp(norm, colour_names[c]) == 0) {
            *out = c;
            return 0;
        }
    }
    return -1;
}

/* ---- layering -------------------------------------------------------- */

static void warn(theme *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void warn(theme *t, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char **w = realloc(t->warnings, (t->nwarnings + 1) * sizeof *w);
    if (!w)
        return;
    t->warnings = w;
    if ((w[t->nwarnings] = strdup(buf)) != NULL)
        t->nwarnings++;
}

void theme_init_builtin(theme *t)
{
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "built-in");
    for (int e = 0; e < TH_COUNT; e++) {
        t->style[e].fg = t->style[e].bg = THEME_DEFAULT;
        t->style[e].attrs = elems[e].attrs;
    }
}

static int resolve_colour(theme *t, const json_t *v, const json_t *palette, const char *source,
                          const char *where, int *out)
{
    if (json_is_string(v)) {
        const json_t *p = json_object_get(palette, json_string_value(v));
        if (p)
            v = p;
    }
    if (theme_parse_colour(v, out) == 0)
        return 0;
    char *text = json_dumps(v, JSON_ENCODE_ANY);
    warn(t, "%s: %s: '%s' is not a palette name, colour name, 0-255 or #rrggbb; using the default",
         source, where, text ? text : "?");
    free(text);
    return -1;
}

static unsigned attr_bit(const char *name)
{
    static const struct { const char *name; unsigned bit; } bits[] = {
        { "bold", TH_A_BOLD }, { "underline", TH_A_UNDERLINE }, { "reverse", TH_A_REVERSE },
        { "dim", TH_A_DIM }, { "italic", TH_A_ITALIC }, { "standout", TH_A_STANDOUT },
    };
    for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++)
        if (strcmp(name, bits[i].name) == 0)
            return bits[i].bit;
    return 0;
}

/* attrs: [bold, underline] or "bold underline"; [] or "none" clears. */
static void overlay_attrs(theme *t, theme_style *st, const json_t *v, const char *source, const char *where)
{
    unsigned attrs = 0;
    if (json_is_string(v)) {
        char buf[128];
        snprintf(buf, sizeof buf, "%s", json_string_value(v));
        for (char *save = NULL, *w = strtok_r(buf, " ,", &save); w; w = strtok_r(NULL, " ,", &save)) {
            if (strcmp(w, "none") == 0)
                continue;
            unsigned b = attr_bit(w);
            if (!b)
                warn(t, "%s: %s.attrs: unknown attribute '%s' (bold, underline, reverse, dim, italic, standout)",
                     source, where, w);
            attrs |= b;
        }
    } else if (json_is_array(v)) {
        size_t i;
        const json_t *a;
        json_array_foreach(v, i, a) {
            unsigned b = json_is_string(a) ? attr_bit(json_string_value(a)) : 0;
            if (!b)
                warn(t, "%s: %s.attrs: unknown attribute '%s' (bold, underline, reverse, dim, italic, standout)",
                     source, where, json_is_string(a) ? json_string_value(a) : "?");
            attrs |= b;
        }
    } else {
        warn(t, "%s: %s.attrs must be a list of attribute names", source, where);
        return;
    }
    st->attrs = attrs;
}

static void overlay_style(theme *t, theme_elem e, const json_t *v, const json_t *palette, const char *source)
{
    char where[64];
    snprintf(where, sizeof where, "%s.%s", elems[e].section, elems[e].name);
    theme_style *st = &t->style[e];
    if (!json_is_object(v)) {
        warn(t, "%s: %s must be a map with fg, bg and attrs", source, where);
        return;
    }
    const char *k;
    const json_t *val;
    json_object_foreach((json_t *)v, k, val) {
        int c;
        if (strcmp(k, "fg") == 0) {
            if (resolve_colour(t, val, palette, source, where, &c) == 0)
                st->fg = c;
        } else if (strcmp(k, "bg") == 0) {
            if (resolve_colour(t, val, palette, source, where, &c) == 0)
                st->bg = c;
        } else if (strcmp(k, "attrs") == 0) {
            overlay_attrs(t, st, val, source, where);
        } else {
            warn(t, "%s: %s: unknown key '%s' (fg, bg, attrs)", source, where, k);
        }
    }
}

static void overlay_section(theme *t, const char *section, const json_t *map, const json_t *palette,
                            const char *source)
{
    if (!json_is_object(map)) {
        warn(t, "%s: %s must be a map", source, section);
        return;
    }
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)map, k, v) {
        int found = 0;
        for (int e = 0; e < TH_COUNT && !found; e++) {
            if (strcmp(elems[e].section, section) == 0 && strcmp(elems[e].name, k) == 0) {
                overlay_style(t, (theme_elem)e, v, palette, source);
                found = 1;
            }
        }
        if (!found)
            warn(t, "%s: unknown %s element '%s' (ignored)", source, section, k);
    }
}

void theme_overlay(theme *t, const json_t *doc, const json_t *palette, const char *source)
{
    if (!json_is_object(doc)) {
        warn(t, "%s: a theme must be a map with palette, ui and states", source);
        return;
    }
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)doc, k, v) {
        if (strcmp(k, "name") == 0 || strcmp(k, "description") == 0 || strcmp(k, "palette") == 0)
            continue;
        if (strcmp(k, "ui") == 0 || strcmp(k, "states") == 0)
            overlay_section(t, k, v, palette, source);
        else
            warn(t, "%s: unknown key '%s' (name, description, palette, ui, states)", source, k);
    }
}

/* ---- files ----------------------------------------------------------- */

static json_t *load_file(const char *path, rd_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = NULL;
    size_t len = 0, cap = 0, n;
    char buf[4096];
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        if (len + n > cap) {
            cap = (len + n) * 2;
            char *t = realloc(text, cap);
            if (!t) {
                free(text);
                fclose(f);
                rd_fail(err, RD_ENOMEM, "out of memory");
                return NULL;
            }
            text = t;
        }
        memcpy(text + len, buf, n);
        len += n;
    }
    fclose(f);
    json_t *doc = NULL;
    yamljson_parse(text ? text : "", len, path, &doc, err);
    free(text);
    return doc;
}

/* Finds NAME.yaml (or the path itself) in dirs; path receives it. */
static int find_theme(const char *name, const char *const *dirs, char *path, size_t len)
{
    if (strchr(name, '/') || (strlen(name) > 5 && strcmp(name + strlen(name) - 5, ".yaml") == 0)) {
        snprintf(path, len, "%s", name);
        FILE *f = fopen(path, "r");
        if (f)
            fclose(f);
        return f != NULL;
    }
    for (size_t i = 0; dirs && dirs[i]; i++) {
        snprintf(path, len, "%s/%s.yaml", dirs[i], name);
        FILE *f = fopen(path, "r");
        if (f) {
            fclose(f);
            return 1;
        }
    }
    return 0;
}

/* "default, light, mono" from the first directory that has themes. */
static void list_themes(const char *const *dirs, char *out, size_t len)
{
    out[0] = '\0';
    for (size_t i = 0; dirs && dirs[i] && !out[0]; i++) {
        DIR *d = opendir(dirs[i]);
        struct dirent *de;
        while (d && (de = readdir(d)) != NULL) {
            size_t n = strlen(de->d_name);
            if (n > 5 && strcmp(de->d_name + n - 5, ".yaml") == 0) {
                size_t used = strlen(out);
                snprintf(out + used, len - used, "%s%.*s", used ? ", " : "", (int)(n - 5), de->d_name);
            }
        }
        if (d)
            closedir(d);
    }
    if (!out[0])
        snprintf(out, len, "none found");
}

static void merge_palette(json_t *palette, const json_t *doc)
{
    const json_t *p = json_object_get(doc, "palette");
    if (json_is_object(p))
        json_object_update(palette, (json_t *)p);
}

rd_code theme_load(theme *t, const char *name, const char *const *dirs, rd_err *err)
{
    char dpath[4096], npath[4096];
    json_t *ddoc = NULL, *ndoc = NULL, *palette = json_object();
    int is_default = strcmp(name, "default") == 0;

    theme_init_builtin(t);
    snprintf(t->name, sizeof t->name, "%s", name);
    if (!palette)
        return rd_fail(err, RD_ENOMEM, "out of memory");
    if (!is_default && !find_theme(name, dirs, npath, sizeof npath)) {
        char names[512];
        list_themes(dirs, names, sizeof names);
        json_decref(palette);
        return rd_fail(err, RD_ENOTFOUND, "--theme: no theme '%s' (themes: %s)", name, names);
    }
    if (find_theme("default", dirs, dpath, sizeof dpath)) {
        rd_err e;
        rd_err_clear(&e);
        ddoc = load_file(dpath, &e);
        if (!ddoc)
            warn(t, "%s", e.msg);
    } else {
        warn(t, "themes/default.yaml not found; using plain attributes as the fallback");
    }
    if (!is_default) {
        rd_err e;
        rd_err_clear(&e);
        ndoc = load_file(npath, &e);
        if (!ndoc)
            warn(t, "%s", e.msg);
    }
    if (ddoc && !json_is_object(json_object_get(ddoc, "palette")) && json_object_get(ddoc, "palette"))
        warn(t, "%s: palette must be a map", dpath);
    merge_palette(palette, ddoc);
    merge_palette(palette, ndoc);
    if (ddoc)
        theme_overlay(t, ddoc, palette, dpath);
    if (ndoc)
        theme_overlay(t, ndoc, palette, npath);
    /* A palette entry must itself be a colour. */
    const char *k;
    json_t *v;
    json_object_foreach(palette, k, v) {
        int c;
        if (theme_parse_colour(v, &c) != 0)
            warn(t, "palette.%s: not a colour name, 0-255 or #rrggbb", k);
    }
    json_decref(palette);
    json_decref(ddoc);
    json_decref(ndoc);
    return RD_OK;
}

void theme_strip_colours(theme *t)
{
    for (int e = 0; e < TH_COUNT; e++) {
        /* An element told apart only by its background (a selected row, the
         * header) stays visible in reverse video. */
        if (t->style[e].bg != THEME_DEFAULT)
            t->style[e].attrs |= TH_A_REVERSE;
        t->style[e].fg = t->style[e].bg = THEME_DEFAULT;
    }
}

void theme_free(theme *t)
{
    for (size_t i = 0; i < t->nwarnings; i++)
        free(t->warnings[i]);
    free(t->warnings);
    t->warnings = NULL;
    t->nwarnings = 0;
}
