/* cmd_help.c - `help` and `help COMMAND`, printed from the command tables. */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

typedef struct {
    const cmd_args *args;
    json_t *items;
    const cmd_def *exact;
    size_t matched;
} help_state;

/* 1 when the given words are a prefix of def's words ("node" of "node add"). */
static int words_prefix(const cmd_def *def, const cmd_args *a, int *exact)
{
    const char *p = def->words;
    for (size_t i = 0; i < cmd_arg_count(a); i++) {
        const char *w = cmd_arg(a, i);
        size_t n = strcspn(p, " ");
        if (strlen(w) != n || strncmp(w, p, n) != 0)
            return 0;
        p += n;
        while (*p == ' ')
            p++;
    }
    *exact = *p == '\0';
    return 1;
}

static void help_collect(const cmd_def *def, void *data)
{
    help_state *hs = data;
    int exact = 0;
    if (!words_prefix(def, hs->args, &exact))
        return;
    if (exact)
        hs->exact = def;
    hs->matched++;
    char *usage = cmd_usage(def);
    json_array_append_new(hs->items, json_pack("{s:s, s:s, s:s}", "name", def->words, "command",
                                               usage ? usage : def->words, "help", def->help));
    free(usage);
}

static json_t *help_detail(const cmd_def *def)
{
    char *usage = cmd_usage(def);
    json_t *flags = json_array();
    for (const cmd_flag *f = def->flags; f && f->name; f++)
        json_array_append_new(flags, json_pack("{s:s+, s:s}", "flag", "--", f->name, "help", f->help));
    json_t *doc = json_pack("{s:s, s:s, s:s, s:o, s:b}", "name", def->words, "usage",
                            usage ? usage : def->words, "help", def->help, "flags", flags,
                            "mutates", (def->options & CMD_MUTATES) != 0);
    free(usage);
    return doc;
}

static rd_code help_cmd(cmd_ctx *ctx, const cmd_args *a, json_t **result, rd_err *err)
{
    help_state hs = { a, json_array(), NULL, 0 };
    (void)ctx;
    cmd_foreach(help_collect, &hs);
    if (hs.matched == 0) {
        json_decref(hs.items);
        return rd_fail(err, RD_EUSAGE, "help: no command starts with '%s' (see 'help')", cmd_arg(a, 0));
    }
    if (hs.exact && hs.matched == 1) {
        json_decref(hs.items);
        *result = help_detail(hs.exact);
        return RD_OK;
    }
    *result = json_pack("{s:o}", "items", hs.items);
    return RD_OK;
}

const cmd_def cmd_help_table[] = {
    { "help", "[COMMAND...]", NULL, CMD_NO_STORE, "list commands, or explain one", "command,help", help_cmd },
    { 0 }
};
