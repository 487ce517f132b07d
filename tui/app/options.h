/* options.h - the global options of the rigdeck command (spec/commands.md). */
#ifndef RD_OPTIONS_H
#define RD_OPTIONS_H

#include <getopt.h>
#include <stddef.h>

#include "rdtime.h"

#define RIGDECK_VERSION "0.1.0"

typedef struct {
    int batch;
    const char **lines;      /* -c LINE, in order */
    size_t nlines;
    const char **files;      /* -f FILE, in order */
    size_t nfiles;
    const char *store_given; /* --store / RIGDECK_STORE as given, or NULL */
    char *store_url;         /* store_given or the default path (malloc'd; options_parse) */
    const char *actor;       /* --as / RIGDECK_ACCOUNT / "default" */
    const char *now_text;    /* --now / RIGDECK_NOW, or NULL: the system clock */
    rd_time now;
    int json;                /* --output json */
    int csv;                 /* --output csv */
    int keep_going;
    int read_only;
    const char *cacert, *cert, *key;
    const char *etcd_user;   /* --etcd-user / RIGDECK_ETCD_USER */
    const char *etcd_password_file; /* --etcd-password-file / RIGDECK_ETCD_PASSWORD_FILE */
    int actor_given;         /* --as or RIGDECK_ACCOUNT was given (not the default) */
    const char *master_key;  /* --master-key / RIGDECK_MASTER_KEY */
    const char *theme;
    int ascii;
    int complete;            /* --complete WORD...: print completion candidates */
    const char *const *words;/* the words after --complete */
    size_t nwords;
} rd_options;

/* A global option: its name with dashes ("--store", "-c") and its value's
 * placeholder or choices ("URL", "table|json|csv"), NULL for a switch; the
 * environment variable that gives it a value, or NULL; whether `rigdeck
 * serve` and `rigdeck agent` take it too. */
typedef struct {
    const char *name;
    const char *value;
    const char *env;
    int daemons;
} options_global;

/* The i-th global option options_parse accepts, NULL past the last. */
const options_global *options_global_at(size_t i);

/* The global options the daemons take, as getopt_long entries (their
 * codes below 512) into out (room for max); returns how many.  The daemons
 * append their own options (codes from 512) and parse all at once. */
size_t options_daemon_longopts(struct option *out, size_t max);

/* Reads the global options' environment variables into opt (NULL or
 * unset: left as they are). */
void options_read_env(rd_options *opt);

/* Sets the global option of getopt code `code` (from options_parse's table
 * or options_daemon_longopts) to arg in opt; 0 when code is no global
 * option with a value the daemons share. */
int options_set_global(rd_options *opt, int code, const char *arg);

/* The default store URL ($XDG_DATA_HOME/rigdeck/rigdeck.db), malloc'd,
 * without creating its directory. */
char *options_default_store(void);

/* Parses argv and the environment (not after a leading --complete: then
 * only opt->complete and the words are set).  Returns 0 to go on, -1 to exit 0 (after
 * --help or --version), or the exit status to leave with (2 after a usage
 * error), having printed what to print. */
int options_parse(int argc, char **argv, rd_options *opt);

/* Frees what options_parse allocated. */
void options_free(rd_options *opt);

#endif
