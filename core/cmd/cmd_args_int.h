/* cmd_args_int.h - a parsed command's arguments, as the parser (cmd.c)
 * fills them and the accessors (cmd_args.c) read them.  Handlers see only
 * the accessors in cmd.h. */
#ifndef RD_CMD_ARGS_INT_H
#define RD_CMD_ARGS_INT_H

#include "cmd.h"

struct cmd_args {
    const cmd_def *def;
    const char *pos[CMD_MAX_WORDS];
    size_t npos;
    struct {
        const char *name;
        const char *value;   /* NULL for a switch */
    } opts[CMD_MAX_WORDS];
    size_t nopts;
};

#endif
