/* textview.c - lines of text to scroll through. */
#include "textview.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"

void textview_clear(textview *tv)
{
    for (size_t i = 0; i < tv->count; i++)
        free(tv->lines[i]);
    free(tv->lines);
    tv->lines = NULL;
    tv->count = tv->top = tv->left = 0;
    tv->title[0] = '\0';
    tv->open = 0;
}

void textview_add(textview *tv, const char *line)
{
    char **l = realloc(tv->lines, (tv->count + 1) * sizeof *l);
    if (!l)
        return;
    tv->lines = l;
    if ((l[tv->count] = strdup(line)) != NULL)
        tv->count++;
}

void textview_add_text(textview *tv, const char *text)
{
    while (text && *text) {
        size_t n = strcspn(text, "\n");
        char *line = strndup(text, n);
        if (line) {
            /* Tabs would break column arithmetic; results never need them. */
            for (char *p = line; *p; p++)
                if (*p == '\t')
                    *p = ' ';
            textview_add(tv, line);
            free(line);
        }
        text += n;
        if (*text == '\n')
            text++;
    }
}

void textview_add_result(textview *tv, const json_t *result, const char *columns)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return;
    table_print(f, result, columns);
    fclose(f);
    textview_add_text(tv, buf);
    free(buf);
}

void textview_scroll(textview *tv, long delta, int page)
{
    long max = (long)tv->count - (page > 0 ? page : 1);
    long t = (long)tv->top + delta;
    if (t > max)
        t = max;
    if (t < 0)
        t = 0;
    tv->top = (size_t)t;
}

void textview_pan(textview *tv, long delta)
{
    long l = (long)tv->left + delta;
    tv->left = l < 0 ? 0 : (size_t)l;
}
