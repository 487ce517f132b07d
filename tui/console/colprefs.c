/* colprefs.c - the column chooser's choices and their file (colprefs.h). */
#include "colprefs.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void colset_default(colset *s, size_t ncols)
{
    s->n = (int)(ncols < COLSET_MAX ? ncols : COLSET_MAX);
    for (int i = 0; i < s->n; i++) {
        s->order[i] = i;
        s->hidden[i] = 0;
    }
}

/* A header as the file names it: lower case, '_' for a space. */
static void col_name(const char *header, char *out, size_t len)
{
    size_t n = 0;
    for (const char *h = header; *h && n + 1 < len; h++)
        out[n++] = *h == ' ' ? '_' : (char)tolower((unsigned char)*h);
    out[n] = '\0';
}

void colset_parse(colset *s, const char *spec, const char *const *headers, size_t nheaders)
{
    size_t n = nheaders < COLSET_MAX ? nheaders : COLSET_MAX;
    unsigned char used[COLSET_MAX] = { 0 };
    s->n = 0;
    for (const char *p = spec ? spec : ""; *p;) {
        p += strspn(p, ", \t");
        size_t w = strcspn(p, ", \t");
        if (!w)
            break;
        int hide = p[0] == '-';
        for (size_t i = 0; i < n; i++) {
            char name[64];
            col_name(headers[i], name, sizeof name);
            if (!used[i] && strlen(name) == w - (size_t)hide && strncmp(name, p + hide, w - (size_t)hide) == 0) {
                used[i] = 1;
                s->order[s->n] = (int)i;
                s->hidden[s->n++] = (unsigned char)hide;
                break;
            }
        }
        p += w;
    }
    for (size_t i = 0; i < n; i++) {
        if (!used[i]) {
            s->order[s->n] = (int)i;
            s->hidden[s->n++] = 0;
        }
    }
    int shown = 0;
    for (int i = 0; i < s->n; i++)
        shown += !s->hidden[i];
    if (!shown && s->n)
        s->hidden[0] = 0;
}

void colset_format(const colset *s, const char *const *headers, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < s->n && used < len; i++) {
        char name[64];
        col_name(headers[s->order[i]], name, sizeof name);
        used += (size_t)snprintf(out + used, len - used, "%s%s%s", i ? "," : "", s->hidden[i] ? "-" : "", name);
    }
}

int colprefs_path(char *out, size_t len)
{
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    if (xdg && xdg[0] == '/')
        snprintf(out, len, "%s/rigdeck/columns", xdg);
    else if (home && home[0])
        snprintf(out, len, "%s/.config/rigdeck/columns", home);
    else
        return 0;
    return 1;
}

/* The key of a "key = spec" line (trimmed) matches key: *spec_at then
 * points at its spec. */
static int line_has_key(const char *line, const char *key, const char **spec_at)
{
    const char *eq = strchr(line, '=');
    if (!eq || line[0] == '#')
        return 0;
    const char *end = eq;
    while (end > line && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    if ((size_t)(end - line) != strlen(key) || strncmp(line, key, strlen(key)) != 0)
        return 0;
    *spec_at = eq + 1 + strspn(eq + 1, " \t");
    return 1;
}

int colprefs_load(const char *path, const char *key, char *spec, size_t len)
{
    FILE *f = fopen(path, "r");
    char line[COLPREFS_LINE_MAX];
    int found = 0;
    if (!f)
        return 0;
    while (!found && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        const char *at;
        if (line_has_key(line, key, &at)) {
            snprintf(spec, len, "%s", at);
            found = 1;
        }
    }
    fclose(f);
    return found;
}

/* mkdir -p of path's folder. */
static int make_dirs(const char *path)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return 1;
    *slash = '\0';
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(dir, 0700) != 0 && errno != EEXIST)
            return 0;
        *p = '/';
    }
    return mkdir(dir, 0700) == 0 || errno == EEXIST;
}

int colprefs_save(const char *path, const char *key, const char *spec, char *err, size_t errlen)
{
    char tmp[4200], line[COLPREFS_LINE_MAX];
    if (!make_dirs(path)) {
        snprintf(err, errlen, "%s: cannot create its folder: %s", path, strerror(errno));
        return 0;
    }
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    FILE *out = fopen(tmp, "w");
    if (!out) {
        snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
        return 0;
    }
    FILE *in = fopen(path, "r");
    int written = 0;
    if (!in)
        fprintf(out, "# rigdeck console columns (C in a table): PANE/VIEW = name,-hidden,...\n");
    while (in && fgets(line, sizeof line, in)) {
        const char *at;
        char bare[COLPREFS_LINE_MAX];
        snprintf(bare, sizeof bare, "%.*s", (int)strcspn(line, "\r\n"), line);
        if (line_has_key(bare, key, &at)) {
            if (!written)
                fprintf(out, "%s = %s\n", key, spec);
            written = 1;
        } else {
            fprintf(out, "%s\n", bare);
        }
    }
    if (in)
        fclose(in);
    if (!written)
        fprintf(out, "%s = %s\n", key, spec);
    int ok = fflush(out) == 0 && fsync(fileno(out)) == 0;
    ok = fclose(out) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        unlink(tmp);
        return 0;
    }
    return 1;
}
