/* logview.c - a worker's output as lines to scroll (see logview.h). */
#include "logview.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Past an escape sequence starting at in[i] (ESC): CSI "ESC [ ... final",
 * OSC "ESC ] ... BEL or ESC \", else ESC and one more byte. */
static size_t skip_escape(const char *in, size_t n, size_t i)
{
    if (i + 1 >= n)
        return n;
    char kind = in[i + 1];
    i += 2;
    if (kind == '[') {
        while (i < n && !((unsigned char)in[i] >= 0x40 && (unsigned char)in[i] <= 0x7e))
            i++;
        return i < n ? i + 1 : n;
    }
    if (kind == ']') {
        while (i < n && in[i] != '\a' && !(in[i] == '\033' && i + 1 < n && in[i + 1] == '\\'))
            i++;
        return i >= n ? n : in[i] == '\a' ? i + 1 : i + 2;
    }
    return i;
}

void logview_clean_line(const char *in, size_t n, char *out, size_t len)
{
    size_t o = 0, col = 0;
    if (len == 0)
        return;
    /* "\r\n" ends a line like "\n"; any other carriage return starts it
     * over, as on a terminal (the last state of a progress bar shows). */
    while (n > 0 && in[n - 1] == '\r')
        n--;
    for (size_t i = n; i > 0; i--) {
        if (in[i - 1] == '\r') {
            in += i;
            n -= i;
            break;
        }
    }
    for (size_t i = 0; i < n && o + 1 < len;) {
        unsigned char ch = (unsigned char)in[i];
        if (ch == '\033') {
            i = skip_escape(in, n, i);
            continue;
        }
        if (ch == '\t') {
            do
                out[o++] = ' ';
            while (++col % 8 && o + 1 < len);
            i++;
            continue;
        }
        out[o++] = ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
        /* UTF-8 continuation bytes take no column of their own. */
        col += (ch & 0xc0) != 0x80;
        i++;
    }
    out[o] = '\0';
}

void logview_set_text(logview *lv, const char *text, int page)
{
    textview *tv = &lv->tv;
    size_t top = tv->top, left = tv->left;
    int open = tv->open;
    char title[sizeof tv->title];
    snprintf(title, sizeof title, "%s", tv->title);
    textview_clear(tv);
    snprintf(tv->title, sizeof tv->title, "%s", title);
    tv->open = open;
    tv->left = left;
    size_t cap = 4096;
    char *line = malloc(cap);
    while (line && text && *text) {
        size_t n = strcspn(text, "\n");
        /* A tab becomes at most 8 columns; everything else at most one byte. */
        if (n * 8 + 1 > cap) {
            char *bigger = realloc(line, n * 8 + 1);
            if (!bigger)
                break;
            line = bigger;
            cap = n * 8 + 1;
        }
        logview_clean_line(text, n, line, cap);
        textview_add(tv, line);
        text += n;
        if (*text == '\n')
            text++;
    }
    free(line);
    if (tv->count == 0)
        textview_add(tv, LOGVIEW_EMPTY);
    tv->top = top;
    /* Following: the last page; else where it was, clamped. */
    textview_scroll(tv, lv->follow ? (long)tv->count : 0, page);
}

int logview_live_state(const char *state)
{
    static const char *const live[] = { "waiting_gpus", "starting", "running", "stopping" };
    for (size_t i = 0; state && i < sizeof live / sizeof live[0]; i++)
        if (strcmp(state, live[i]) == 0)
            return 1;
    return 0;
}

void logview_title(const logview *lv, char *out, size_t len)
{
    snprintf(out, len, "job %s  worker %d of %d", lv->job, lv->worker, lv->nworkers);
}
