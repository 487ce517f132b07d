/* options.c - global options, their environment variables and defaults. */
#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>


static void usage(FILE *out)
{
    fputs("usage: rigdeck [GLOBAL OPTIONS]                 open the full-screen console\n"
          "       rigdeck --batch [GLOBAL OPTIONS] [-c LINE]... [-f FILE]...\n"
          "                                               run command lines headless: each -c line,\n"
          "                                               then each line of FILE, else of stdin\n"
          "       rigdeck serve [GLOBAL OPTIONS] [...]     the controller (see rigdeck serve --help)\n"
          "       rigdeck agent --node NAME [...]         a node's agent (see rigdeck agent --help)\n"
          "\n"
          "global options:\n"
          "  --store URL       sqlite:PATH, a PATH, etcd://HOST:PORT[,...] or etcds://...  [RIGDECK_STORE]\n"
          "                    default $XDG_DATA_HOME/rigdeck/rigdeck.db\n"
          "  --as ACCOUNT      the acting account (default 'default')                   [RIGDECK_ACCOUNT]\n"
          "  --now TIME        the clock, RFC 3339 such as 2026-11-01T00:00:00Z          [RIGDECK_NOW]\n"
          "  --output table|json|csv   batch output: aligned tables, one JSON document per command, or CSV\n"
          "  --keep-going      batch: run the remaining lines after a failed one\n"
          "  --read-only       refuse every command that would change the store\n"
          "  --master-key FILE the key that seals secrets at rest                      [RIGDECK_MASTER_KEY]\n"
          "                    default $XDG_CONFIG_HOME/rigdeck/master.key (created 0600)\n"
          "  --cacert F --cert F --key F   TLS files for etcds://\n"
          "  --etcd-user USER --etcd-password-file F   who you are on a secured etcd store\n"
          "                    [RIGDECK_ETCD_USER, RIGDECK_ETCD_PASSWORD_FILE]\n"
          "  --theme NAME      console colours: default, light, high-contrast, mono, or a theme file\n"
          "  --ascii           console: ASCII boxes, bars and marks (NO_COLOR turns colours off)\n"
          "  -h, --help        this text;  --version  the version\n"
          "\n"
          "exit status (batch): 0 all lines succeeded, 1 a line was refused, 2 usage error,\n"
          "3 the store could not be reached or opened.  'rigdeck --batch -c help' lists commands.\n",
          out);
}

/* The default store: $XDG_DATA_HOME/rigdeck/rigdeck.db.  With create, its
 * directory is made for the operator; completion only looks (never makes
 * files or directories in the user's home on a Tab). */
static char *default_store(int create)
{
    const char *xdg = getenv("XDG_DATA_HOME");
    const char *home = getenv("HOME");
    char dir[4096];

    if (xdg && *xdg)
        snprintf(dir, sizeof dir, "%s/rigdeck", xdg);
    else
        snprintf(dir, sizeof dir, "%s/.local/share/rigdeck", home && *home ? home : ".");
    /* Only the default location is created for the operator; an explicit
     * --store in a missing directory is an error (exit 3), not a surprise. */
    for (char *p = dir + 1; create && *p; p++) {
        if (*p == '/') {
            *p = '\0';
            mkdir(dir, 0755);
            *p = '/';
        }
    }
    if (create)
        mkdir(dir, 0700);
    size_t n = strlen(dir) + sizeof "/rigdeck.db";
    char *url = malloc(n);
    if (url)
        snprintf(url, n, "%s/rigdeck.db", dir);
    return url;
}

char *options_default_store(void)
{
    return default_store(0);
}

static int push(const char ***list, size_t *n, const char *v)
{
    const char **l = realloc(*list, (*n + 1) * sizeof *l);
    if (!l)
        return 0;
    l[(*n)++] = v;
    *list = l;
    return 1;
}

#define OUTPUT_CHOICES "table|json|csv"

enum { O_BATCH = 256, O_STORE, O_AS, O_NOW, O_OUTPUT, O_KEEP, O_RO, O_CACERT, O_CERT,
       O_KEY, O_THEME, O_ASCII, O_VERSION, O_MASTER, O_EUSER, O_EPASS };

/* Every global option, once: the console's and batch's getopt table is
 * built from it, the daemons' (serve, agent) from its entries marked for
 * them, environment variables are read by it, and completion offers it,
 * so none of them can disagree. */
static const struct {
    options_global g;
    int code;
} options_table[] = {
    { { "--batch", NULL, NULL, 0 }, O_BATCH },
    { { "--store", "URL", "RIGDECK_STORE", 1 }, O_STORE },
    { { "--as", "ACCOUNT", "RIGDECK_ACCOUNT", 1 }, O_AS },
    { { "--now", "TIME", "RIGDECK_NOW", 1 }, O_NOW },
    { { "--output", OUTPUT_CHOICES, NULL, 0 }, O_OUTPUT },
    { { "--keep-going", NULL, NULL, 0 }, O_KEEP },
    { { "--read-only", NULL, NULL, 0 }, O_RO },
    { { "--cacert", "FILE", NULL, 1 }, O_CACERT },
    { { "--cert", "FILE", NULL, 1 }, O_CERT },
    { { "--key", "FILE", NULL, 1 }, O_KEY },
    { { "--master-key", "FILE", "RIGDECK_MASTER_KEY", 1 }, O_MASTER },
    { { "--etcd-user", "USER", "RIGDECK_ETCD_USER", 1 }, O_EUSER },
    { { "--etcd-password-file", "FILE", "RIGDECK_ETCD_PASSWORD_FILE", 1 }, O_EPASS },
    { { "--theme", "NAME", NULL, 0 }, O_THEME },
    { { "--ascii", NULL, NULL, 0 }, O_ASCII },
    { { "--help", NULL, NULL, 0 }, 'h' },
    { { "--version", NULL, NULL, 0 }, O_VERSION },
    { { "-c", "LINE", NULL, 0 }, 'c' },
    { { "-f", "FILE", NULL, 0 }, 'f' },
    { { "-h", NULL, NULL, 0 }, 'h' },
};

#define OPTIONS_COUNT (sizeof options_table / sizeof options_table[0])

const options_global *options_global_at(size_t i)
{
    return i < OPTIONS_COUNT ? &options_table[i].g : NULL;
}

size_t options_daemon_longopts(struct option *out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < OPTIONS_COUNT && n < max; i++) {
        const options_global *g = &options_table[i].g;
        if (g->daemons && g->name[1] == '-')
            out[n++] = (struct option){ g->name + 2, g->value ? required_argument : no_argument, NULL,
                                        options_table[i].code };
    }
    return n;
}

int options_set_global(rd_options *opt, int code, const char *arg)
{
    switch (code) {
    case O_STORE: opt->store_given = arg; return 1;
    case O_AS: opt->actor = arg; return 1;
    case O_NOW: opt->now_text = arg; return 1;
    case O_CACERT: opt->cacert = arg; return 1;
    case O_CERT: opt->cert = arg; return 1;
    case O_KEY: opt->key = arg; return 1;
    case O_MASTER: opt->master_key = arg; return 1;
    case O_EUSER: opt->etcd_user = arg; return 1;
    case O_EPASS: opt->etcd_password_file = arg; return 1;
    default: return 0;
    }
}

void options_read_env(rd_options *opt)
{
    for (size_t i = 0; i < OPTIONS_COUNT; i++) {
        const char *v = options_table[i].g.env ? getenv(options_table[i].g.env) : NULL;
        if (v)
            options_set_global(opt, options_table[i].code, v);
    }
}

/* 1 when value is one of "a|b|c". */
static int options_choice_ok(const char *choices, const char *value)
{
    size_t n = strlen(value);
    for (const char *p = choices; *p;) {
        size_t k = strcspn(p, "|");
        if (k == n && strncmp(p, value, n) == 0)
            return 1;
        p += k + (p[k] == '|');
    }
    return 0;
}

int options_parse(int argc, char **argv, rd_options *opt)
{
    struct option longopts[OPTIONS_COUNT + 1];
    char shortopts[2 * OPTIONS_COUNT + 2] = ":";     /* ':' reports a missing value */
    size_t nlong = 0, nshort = 1;
    for (size_t i = 0; i < OPTIONS_COUNT; i++) {
        const options_global *g = &options_table[i].g;
        if (g->name[1] != '-') {
            shortopts[nshort++] = g->name[1];
            if (g->value)
                shortopts[nshort++] = ':';
            continue;
        }
        longopts[nlong++] = (struct option){ g->name + 2, g->value ? required_argument : no_argument,
                                             NULL, options_table[i].code };
    }
    longopts[nlong] = (struct option){ 0, 0, 0, 0 };
    shortopts[nshort] = '\0';
    int c;

    memset(opt, 0, sizeof *opt);
    /* The completion script's call: the rest is the words typed so far. */
    if (argc >= 2 && strcmp(argv[1], "--complete") == 0) {
        opt->complete = 1;
        opt->words = (const char *const *)argv + 2;
        opt->nwords = (size_t)(argc - 2);
        return 0;
    }
    options_read_env(opt);
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        if (options_set_global(opt, c, optarg))
            continue;
        switch (c) {
        case O_BATCH: opt->batch = 1; break;
        case O_OUTPUT:
            if (!options_choice_ok(OUTPUT_CHOICES, optarg)) {
                fprintf(stderr, "rigdeck: --output must be one of table, json, csv, got '%s'\n", optarg);
                return 2;
            }
            opt->json = strcmp(optarg, "json") == 0;
            opt->csv = strcmp(optarg, "csv") == 0;
            break;
        case O_KEEP: opt->keep_going = 1; break;
        case O_RO: opt->read_only = 1; break;
        case O_THEME: opt->theme = optarg; break;
        case O_ASCII: opt->ascii = 1; break;
        case 'c':
            if (!push(&opt->lines, &opt->nlines, optarg))
                return 3;
            break;
        case 'f':
            if (!push(&opt->files, &opt->nfiles, optarg))
                return 3;
            break;
        case 'h': usage(stdout); return -1;
        case O_VERSION: printf("rigdeck %s\n", RIGDECK_VERSION); return -1;
        case ':':
            fprintf(stderr, "rigdeck: option %s needs a value (see 'rigdeck --help')\n", argv[optind - 1]);
            return 2;
        default:
            fprintf(stderr, "rigdeck: unknown option %s (see 'rigdeck --help')\n", argv[optind - 1]);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "rigdeck: unexpected argument '%s'; command lines go after -c, or in a file with -f (see 'rigdeck --help')\n",
                argv[optind]);
        return 2;
    }
    if (!opt->batch && (opt->nlines || opt->nfiles)) {
        fprintf(stderr, "rigdeck: -c and -f need --batch\n");
        return 2;
    }
    /* the console draws its own panes: CSV is a format for files */
    if (!opt->batch && opt->csv) {
        fprintf(stderr, "rigdeck: --output csv needs --batch (the console shows tables; use --batch -c LINE)\n");
        return 2;
    }
    opt->actor_given = opt->actor && *opt->actor;
    if (!opt->actor_given)
        opt->actor = "default";
    if (opt->etcd_user && !*opt->etcd_user)
        opt->etcd_user = NULL;
    if (opt->etcd_password_file && !*opt->etcd_password_file)
        opt->etcd_password_file = NULL;
    if (opt->now_text && *opt->now_text) {
        rd_err err;
        if (rdtime_parse("--now", opt->now_text, &opt->now, &err) != RD_OK) {
            fprintf(stderr, "rigdeck: %s\n", err.msg);
            return 2;
        }
    } else {
        opt->now_text = NULL;
    }
    opt->store_url = opt->store_given && *opt->store_given ? strdup(opt->store_given) : default_store(1);
    return opt->store_url ? 0 : 3;
}

void options_free(rd_options *opt)
{
    free(opt->lines);
    free(opt->files);
    free(opt->store_url);
    memset(opt, 0, sizeof *opt);
}
