/* prompt.c - line editing, history and completion for the console's
 * one-line inputs.  Completion reads the command table through cmd_foreach,
 * so it always offers exactly the words the executor accepts. */
#include "prompt.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

/* ---- editing --------------------------------------------------------- */

void ledit_set(ledit *e, const char *text)
{
    snprintf(e->buf, sizeof e->buf, "%s", text ? text : "");
    e->len = e->cur = strlen(e->buf);
}

static int is_cont(unsigned char c)
{
    return (c & 0xC0) == 0x80;
}

static size_t prev_char(const ledit *e, size_t pos)
{
    while (pos > 0 && is_cont((unsigned char)e->buf[--pos]))
        ;
    return pos;
}

static size_t next_char(const ledit *e, size_t pos)
{
    if (pos < e->len)
        pos++;
    while (pos < e->len && is_cont((unsigned char)e->buf[pos]))
        pos++;
    return pos;
}

static void cut(ledit *e, size_t from, size_t to)
{
    memmove(e->buf + from, e->buf + to, e->len - to + 1);
    e->len -= to - from;
    if (e->cur > to)
        e->cur -= to - from;
    else if (e->cur > from)
        e->cur = from;
}

static void history_walk(ledit *e, lhistory *h, int dir)
{
    if (!h || h->count == 0)
        return;
    if (h->pos == h->count)
        snprintf(h->draft, sizeof h->draft, "%s", e->buf);
    if (dir < 0 && h->pos > 0)
        h->pos--;
    else if (dir > 0 && h->pos < h->count)
        h->pos++;
    ledit_set(e, h->pos == h->count ? h->draft : h->items[h->pos]);
}

int ledit_key(ledit *e, int key, lhistory *h)
{
    switch (key) {
    case PROMPT_K_LEFT: e->cur = prev_char(e, e->cur); return 1;
    case PROMPT_K_RIGHT: e->cur = next_char(e, e->cur); return 1;
    case PROMPT_K_HOME: e->cur = 0; return 1;
    case PROMPT_K_END: e->cur = e->len; return 1;
    case PROMPT_K_BACKSPACE:
        if (e->cur > 0)
            cut(e, prev_char(e, e->cur), e->cur);
        return 1;
    case PROMPT_K_DELETE:
        if (e->cur < e->len)
            cut(e, e->cur, next_char(e, e->cur));
        return 1;
    case PROMPT_K_KILL_LINE: cut(e, 0, e->cur); return 1;
    case PROMPT_K_KILL_END: cut(e, e->cur, e->len); return 1;
    case PROMPT_K_KILL_WORD: {
        size_t p = e->cur;
        while (p > 0 && e->buf[p - 1] == ' ')
            p--;
        while (p > 0 && e->buf[p - 1] != ' ')
            p--;
        cut(e, p, e->cur);
        return 1;
    }
    case PROMPT_K_UP: history_walk(e, h, -1); return 1;
    case PROMPT_K_DOWN: history_walk(e, h, 1); return 1;
    default:
        break;
    }
    if (key < 32 || key > 255 || key == 127)
        return 0;
    if (e->len + 1 >= sizeof e->buf)
        return 1;
    memmove(e->buf + e->cur + 1, e->buf + e->cur, e->len - e->cur + 1);
    e->buf[e->cur++] = (char)key;
    e->len++;
    return 1;
}

void lhistory_add(lhistory *h, const char *line)
{
    if (!line || strspn(line, " \t") == strlen(line))
        return;
    if (h->count && strcmp(h->items[h->count - 1], line) == 0) {
        h->pos = h->count;
        return;
    }
    if (h->count == PROMPT_HISTORY) {
        free(h->items[0]);
        memmove(h->items, h->items + 1, (PROMPT_HISTORY - 1) * sizeof h->items[0]);
        h->count--;
    }
    if ((h->items[h->count] = strdup(line)) != NULL)
        h->count++;
    h->pos = h->count;
}

void lhistory_free(lhistory *h)
{
    for (size_t i = 0; i < h->count; i++)
        free(h->items[i]);
    memset(h, 0, sizeof *h);
}

/* ---- completion ------------------------------------------------------ */

void compl_list_free(compl_list *l)
{
    for (size_t i = 0; i < l->count; i++)
        free(l->items[i]);
    free(l->items);
    l->items = NULL;
    l->count = 0;
}

typedef struct {
    compl_list *list;
    const char *prefix;
} adder;

static void add_candidate(const char *name, void *data)
{
    adder *a = data;
    if (strncmp(name, a->prefix, strlen(a->prefix)) != 0)
        return;
    for (size_t i = 0; i < a->list->count; i++)
        if (strcmp(a->list->items[i], name) == 0)
            return;
    char **items = realloc(a->list->items, (a->list->count + 1) * sizeof *items);
    if (!items)
        return;
    a->list->items = items;
    if ((items[a->list->count] = strdup(name)) != NULL)
        a->list->count++;
}

/* Adds each word of "a|b|c". */
static void add_choices(const char *choices, adder *a)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", choices);
    for (char *save = NULL, *w = strtok_r(buf, "|", &save); w; w = strtok_r(NULL, "|", &save))
        add_candidate(w, a);
}

names_kind prompt_names_kind(const char *group, const char *ph)
{
    if (strcmp(ph, "REGION") == 0 || strcmp(ph, "R") == 0)
        return NAMES_REGION;
    if (strcmp(ph, "DEVICE") == 0)
        return NAMES_DEVICE;
    if (strcmp(ph, "ID") == 0)
        return strcmp(group, "job") == 0 ? NAMES_JOB : NAMES_NONE;
    if (strcmp(ph, "ACCOUNT") == 0 || strcmp(ph, "A") == 0)
        return NAMES_ACCOUNT;
    if (strcmp(ph, "FILE") == 0 || strcmp(ph, "F") == 0)
        return NAMES_FILE;
    if (strcmp(ph, "D") == 0)
        return NAMES_DATASTORE;
    if (strcmp(ph, "K") == 0)   /* --key K, --artifacts-key K */
        return NAMES_DATAKEY;
    if (strcmp(ph, "CONFIG") == 0)
        return NAMES_CONFIG;
    if (strcmp(ph, "MODEL") == 0 || (strcmp(ph, "M") == 0 && strcmp(group, "device-config") == 0))
        return NAMES_MODEL;
    if (strcmp(ph, "GPU_TYPE") == 0)
        return NAMES_GPU_TYPE;
    if (strcmp(ph, "P") == 0 && strcmp(group, "job") == 0)
        return NAMES_PROJECT;
    if (strcmp(ph, "NAME") == 0) {
        static const struct { const char *group; names_kind k; } groups[] = {
            { "node", NAMES_NODE }, { "region", NAMES_REGION }, { "device", NAMES_DEVICE },
            { "datastore", NAMES_DATASTORE }, { "reservation", NAMES_RESERVATION },
            { "account", NAMES_ACCOUNT }, { "project", NAMES_PROJECT },
            { "environment", NAMES_ENVIRONMENT },
            { "key", NAMES_DATAKEY }, { "dataset", NAMES_DATASET }, { "checkpoint", NAMES_CHECKPOINT },
            { "model", NAMES_DATAMODEL },
        };
        for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++)
            if (strcmp(group, groups[i].group) == 0)
                return groups[i].k;
    }
    return NAMES_NONE;
}

/* Files and directories starting with the typed path (dirs get a '/'). */
static void add_files(const char *typed, adder *a)
{
    char dir[PROMPT_MAX];
    const char *slash = strrchr(typed, '/');
    if (slash)
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - typed + 1), typed);
    else
        dir[0] = '\0';
    DIR *d = opendir(dir[0] ? dir : ".");
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.' && (slash ? slash[1] : typed[0]) != '.')
            continue;
        char path[PROMPT_MAX + 260];
        int isdir = de->d_type == DT_DIR;
        snprintf(path, sizeof path, "%s%s%s", dir, de->d_name, isdir ? "/" : "");
        add_candidate(path, a);
    }
    if (d)
        closedir(d);
}

static void add_names(names_kind k, names_fn names, void *ctx, adder *a)
{
    if (k == NAMES_FILE)
        add_files(a->prefix, a);
    else if (k == NAMES_PROVIDER)
        add_choices("physical|gcp", a);
    else if (k != NAMES_NONE && names)
        names(k, add_candidate, a, ctx);
}

static void compl_list_sort(compl_list *l);

/* Choices "a|b|c", or the names a placeholder of group means. */
static void add_value(const char *group, const char *value, names_fn names, void *ctx, adder *a)
{
    if (strchr(value, '|'))
        add_choices(value, a);
    else
        add_names(prompt_names_kind(group, value), names, ctx, a);
}

void prompt_value_candidates(const char *group, const char *value, const char *prefix,
                             names_fn names, void *names_ctx, compl_list *list)
{
    adder a = { list, prefix };
    add_value(group, value, names, names_ctx, &a);
    compl_list_sort(list);
}

typedef struct {
    char **typed;           /* complete words before the one being completed */
    size_t nt;
    int words_only;         /* after "help": command words, never arguments */
    adder *a;
    names_fn names;
    void *names_ctx;
} compl_state;

static const cmd_flag *find_flag(const cmd_def *def, const char *word)
{
    if (strncmp(word, "--", 2) != 0 || !def->flags)
        return NULL;
    size_t n = strcspn(word + 2, "=");
    for (const cmd_flag *f = def->flags; f->name; f++)
        if (strlen(f->name) == n && strncmp(f->name, word + 2, n) == 0)
            return f;
    return NULL;
}

/* The i-th placeholder of an args string ("NAME [ACCOUNT] on|off"), with
 * brackets and dots removed; the last one repeats when it ends in "...". */
static int placeholder(const char *args, size_t i, char *out, size_t len)
{
    char buf[256];
    size_t n = 0;
    int repeat = 0;
    snprintf(buf, sizeof buf, "%s", args ? args : "");
    out[0] = '\0';
    for (char *save = NULL, *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        char clean[128];
        size_t k = 0;
        for (const char *p = w; *p && k < sizeof clean - 1; p++)
            if (*p != '[' && *p != ']' && *p != '.')
                clean[k++] = *p;
        clean[k] = '\0';
        repeat = strstr(w, "...") != NULL;
        if (n == i || repeat) {
            snprintf(out, len, "%s", clean);
            if (n == i)
                return 1;
        }
        n++;
    }
    return repeat && out[0];
}

static void complete_def(const cmd_def *def, void *data)
{
    compl_state *s = data;
    char words[128];
    char *dw[8];
    size_t k = 0;
    snprintf(words, sizeof words, "%s", def->words);
    for (char *save = NULL, *w = strtok_r(words, " ", &save); w && k < 8; w = strtok_r(NULL, " ", &save))
        dw[k++] = w;
    for (size_t i = 0; i < k && i < s->nt; i++)
        if (strcmp(dw[i], s->typed[i]) != 0)
            return;
    if (s->nt < k) {
        add_candidate(dw[s->nt], s->a);
        return;
    }
    if (s->words_only)
        return;
    /* The command is complete: an argument, a flag or a flag's value. */
    size_t pos = 0;
    const cmd_flag *value_of = NULL;
    for (size_t i = k; i < s->nt; i++) {
        const cmd_flag *f = find_flag(def, s->typed[i]);
        value_of = NULL;
        if (f) {
            if ((f->flags & CMD_FLAG_VALUE) && !strchr(s->typed[i], '='))
                value_of = f;
        } else if (i > k && find_flag(def, s->typed[i - 1]) &&
                   (find_flag(def, s->typed[i - 1])->flags & CMD_FLAG_VALUE) &&
                   !strchr(s->typed[i - 1], '=')) {
            /* a flag's value, not a positional argument */
        } else {
            pos++;
        }
    }
    const char *prefix = s->a->prefix;
    if (value_of) {
        if (value_of->value)
            add_value(dw[0], value_of->value, s->names, s->names_ctx, s->a);
        return;
    }
    if (prefix[0] == '-') {
        for (const cmd_flag *f = def->flags; f && f->name; f++) {
            char flag[96];
            snprintf(flag, sizeof flag, "--%s", f->name);
            add_candidate(flag, s->a);
        }
        return;
    }
    char ph[128];
    if (!placeholder(def->args, pos, ph, sizeof ph))
        return;
    add_value(dw[0], ph, s->names, s->names_ctx, s->a);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void compl_list_sort(compl_list *l)
{
    if (l->count > 1)
        qsort(l->items, l->count, sizeof *l->items, cmp_str);
}

size_t prompt_candidates(const char *text, names_fn names, void *names_ctx, compl_list *list)
{
    char head[PROMPT_MAX];
    char *typed[CMD_MAX_WORDS];
    size_t nt = 0;

    snprintf(head, sizeof head, "%s", text);
    size_t start = strlen(head);
    while (start > 0 && head[start - 1] != ' ')
        start--;
    char current[PROMPT_MAX];
    snprintf(current, sizeof current, "%s", head + start);
    head[start] = '\0';
    for (char *save = NULL, *w = strtok_r(head, " ", &save); w && nt < CMD_MAX_WORDS;
         w = strtok_r(NULL, " ", &save))
        typed[nt++] = w;

    adder a = { list, current };
    compl_state s = { typed, nt, 0, &a, names, names_ctx };
    /* "help node ma" completes like "node ma": help takes command words. */
    if (nt > 0 && strcmp(typed[0], "help") == 0) {
        s.typed++;
        s.nt--;
        s.words_only = 1;
    }
    cmd_foreach(complete_def, &s);
    compl_list_sort(list);
    return list->count;
}

size_t prompt_complete(ledit *e, names_fn names, void *names_ctx, compl_list *out)
{
    char head[PROMPT_MAX];
    compl_list local = { 0 };
    compl_list *list = out ? out : &local;

    memcpy(head, e->buf, e->cur);
    head[e->cur] = '\0';
    size_t start = e->cur;
    while (start > 0 && head[start - 1] != ' ')
        start--;
    char current[PROMPT_MAX];
    snprintf(current, sizeof current, "%s", head + start);
    size_t n = prompt_candidates(head, names, names_ctx, list);
    if (n > 0) {
        /* Longest common prefix of every candidate. */
        size_t lcp = strlen(list->items[0]);
        for (size_t i = 1; i < n; i++) {
            size_t j = 0;
            while (j < lcp && list->items[i][j] == list->items[0][j])
                j++;
            lcp = j;
        }
        char repl[PROMPT_MAX];
        size_t clen = strlen(current);
        snprintf(repl, sizeof repl, "%.*s", (int)lcp, list->items[0]);
        int whole = n == 1 && repl[lcp ? lcp - 1 : 0] != '/';
        if (lcp >= clen && (lcp > clen || whole)) {
            size_t add = lcp - clen + (whole ? 1 : 0);
            if (e->len + add < sizeof e->buf) {
                memmove(e->buf + e->cur + add, e->buf + e->cur, e->len - e->cur + 1);
                memcpy(e->buf + e->cur, repl + clen, lcp - clen);
                if (whole)
                    e->buf[e->cur + lcp - clen] = ' ';
                e->cur += add;
                e->len += add;
            }
        }
    }
    if (!out)
        compl_list_free(&local);
    return n;
}

void prompt_quote_word(char *out, size_t len, const char *s)
{
    size_t used = strlen(out);
    int plain = *s != '\0';
    for (const char *p = s; *p; p++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/:@=+,", *p))
            plain = 0;
    if (plain) {
        snprintf(out + used, len - used, "%s", s);
        return;
    }
    /* Single quotes keep everything; a quote itself is closed, escaped, reopened. */
    if (used < len)
        used += (size_t)snprintf(out + used, len - used, "'");
    for (const char *p = s; *p && used < len; p++)
        used += (size_t)snprintf(out + used, len - used, *p == '\'' ? "'\\''" : "%c", *p);
    if (used < len)
        snprintf(out + used, len - used, "'");
}
