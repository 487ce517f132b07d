/* cmd_args.c - what a command handler reads of its parsed line: positional
 * arguments and flag values (cmd_arg, cmd_opt...).  The parsing is cmd.c's. */
#include <string.h>

#include "cmd_args_int.h"

const char *cmd_arg(const cmd_args *a, size_t i)
{
    return i < a->npos ? a->pos[i] : NULL;
}

size_t cmd_arg_count(const cmd_args *a)
{
    return a->npos;
}

const char *cmd_opt(const cmd_args *a, const char *name)
{
    const char *v = NULL;
    for (size_t i = 0; i < a->nopts; i++)
        if (strcmp(a->opts[i].name, name) == 0)
            v = a->opts[i].value;
    return v;
}

int cmd_opt_given(const cmd_args *a, const char *name)
{
    for (size_t i = 0; i < a->nopts; i++)
        if (strcmp(a->opts[i].name, name) == 0)
            return 1;
    return 0;
}

size_t cmd_opt_count(const cmd_args *a, const char *name)
{
    size_t n = 0;
    for (size_t i = 0; i < a->nopts; i++)
        n += strcmp(a->opts[i].name, name) == 0;
    return n;
}

const char *cmd_opt_at(const cmd_args *a, const char *name, size_t idx)
{
    for (size_t i = 0; i < a->nopts; i++)
        if (strcmp(a->opts[i].name, name) == 0 && idx-- == 0)
            return a->opts[i].value;
    return NULL;
}


const cmd_def *cmd_args_def(const cmd_args *a)
{
    return a->def;
}
