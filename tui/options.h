/* options.h - the global options of the rigdeck command (spec/commands.md). */
#ifndef RD_OPTIONS_H
#define RD_OPTIONS_H

#include <stddef.h>

#include "rdtime.h"

typedef struct {
    int batch;
    const char **lines;      /* -c LINE, in order */
    size_t nlines;
    const char **files;      /* -f FILE, in order */
    size_t nfiles;
    char *store_url;         /* --store / RIGDECK_STORE / the default path (malloc'd) */
    const char *actor;       /* --as / RIGDECK_ACCOUNT / "default" */
    const char *now_text;    /* --now / RIGDECK_NOW, or NULL: the system clock */
    rd_time now;
    int json;                /* --output json */
    int csv;                 /* --output csv */
    int keep_going;
    int read_only;
    const char *cacert, *cert, *key;
    const char *master_key;  /* --master-key / RIGDECK_MASTER_KEY */
    const char *theme;
    int ascii;
} rd_options;

/* Parses argv and the environment.  Returns 0 to go on, -1 to exit 0 (after
 * --help or --version), or the exit status to leave with (2 after a usage
 * error), having printed what to print. */
int options_parse(int argc, char **argv, rd_options *opt);

/* Frees what options_parse allocated. */
void options_free(rd_options *opt);

#endif
