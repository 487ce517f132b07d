/* textview.c - lines of text to scroll through. */
#include "textview.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"
#include "text.h"

void textview_clear(textview *tv)
{
    for (size_t i = 0; i < tv->count; i++)
        free(tv->lines[i]);
    free(tv->lines);
    tv->lines = NULL;
    tv->count = tv->top = tv->left = 0;
    tv->title[0] = '\0';
    tv->open = 0;
    tv->found = 0;
    tv->has_found = 0;
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

long textview_find(const textview *tv, const char *needle, size_t from, int dir, int at, int *wrapped)
{
    *wrapped = 0;
    if (!needle || !*needle || tv->count == 0)
        return -1;
    if (from >= tv->count)
        from = dir > 0 ? tv->count - 1 : 0;
    size_t i = from;
    for (size_t step = 0; step <= tv->count; step++) {
        if (step > 0 || !at) {
            if (dir > 0) {
                if (++i >= tv->count) {
                    i = 0;
                    *wrapped = 1;
                }
            } else if (i == 0) {
                i = tv->count - 1;
                *wrapped = 1;
            } else {
                i--;
            }
        }
        if (text_contains(tv->lines[i], needle))
            return (long)i;
    }
    return -1;
}

void textview_show_line(textview *tv, size_t line, int page)
{
    if (page < 1)
        page = 1;
    if (line < tv->top || line >= tv->top + (size_t)page) {
        tv->top = line > (size_t)page / 3 ? line - (size_t)page / 3 : 0;
        textview_scroll(tv, 0, page);
    }
    tv->found = line;
    tv->has_found = 1;
}
