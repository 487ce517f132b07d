/* cmd.h - the command language: one parser, one dispatch table, one executor.
 *
 * Every action has one textual form ("node maintenance gpu-07 on").  The batch
 * runner, the console's ':' prompt and its key bindings all build such a line
 * and hand it to cmd_exec_line().  Each subsystem declares its commands in a
 * cmd_def table (words, arguments, flags, one-line help, handler, who may run
 * it); cmd.c gathers the tables, parses, validates arity and flags, opens
 * the store when needed, and runs mutating handlers inside a guarded
 * transaction that also records the audit entry, retrying on conflict.
 */
#ifndef RD_CMD_H
#define RD_CMD_H

#include <jansson.h>
#include <stddef.h>

#include "err.h"
#include "rdtime.h"
#include "store.h"
#include "tx.h"

#define CMD_MAX_WORDS 256

/* ---- the parser -------------------------------------------------------- */

typedef struct {
    char **words;
    size_t count;
} cmd_words;

/* Splits a line into words like a POSIX shell: blanks separate words; single
 * quotes keep everything literally; double quotes keep everything but
 * backslash escapes of " \ $ `; a backslash outside quotes escapes the next
 * character; an unquoted '#' at the start of a word begins a comment.  An
 * unterminated quote or trailing backslash is RD_EUSAGE. */
rd_code cmd_split(const char *line, cmd_words *out, rd_err *err);

/* Frees the words of a split line. */
void cmd_words_free(cmd_words *w);

/* ---- declaring commands ------------------------------------------------ */

enum {
    CMD_FLAG_VALUE = 1 << 0,    /* takes a value: --plan team or --plan=team */
    CMD_FLAG_REPEAT = 1 << 1,   /* may be given several times */
    CMD_FLAG_SECRET = 1 << 2,   /* value never appears in the audit trail */
    CMD_FLAG_REQUIRED = 1 << 3  /* must be given */
};

typedef struct {
    const char *name;     /* without dashes: "plan" */
    const char *value;    /* placeholder or choices: "ACCOUNT", "free|team|enterprise" */
    int flags;
    const char *help;
} cmd_flag;

enum {
    CMD_MUTATES = 1 << 0,   /* runs in a guarded transaction and is audited */
    CMD_NO_STORE = 1 << 1,  /* needs no store (help, gpu list) */
    CMD_TEXT_RESULT = 1 << 2 /* table output prints the result's "text" as it is (job logs); a
                              * result with "follow": {"next": LINE, "done": false} asks the
                              * batch runner to run LINE next, a moment later */
};

/* Who may run a command: its class, which the one guard (core/access/
 * access.c) maps to the roles that may run it (docs/security.md).  Left out
 * (CMD_ACCESS_DEFAULT), a command that does not mutate is a read and one
 * that mutates is tenant work. */
typedef enum {
    CMD_ACCESS_DEFAULT,
    CMD_ACCESS_READ,      /* every role; handlers filter what is shown */
    CMD_ACCESS_RAW_READ,  /* raw documents of every tenant: admin only */
    CMD_ACCESS_TENANT,    /* a tenant's own work and resources: member, admin */
    CMD_ACCESS_FLEET,     /* nodes, devices, health, alerts: operator (any tenant's), member (its own), admin */
    CMD_ACCESS_STAFF,     /* store-wide fleet housekeeping: operator, admin */
    CMD_ACCESS_MONEY,     /* moves credits or sets prices: admin */
    CMD_ACCESS_ADMIN      /* accounts, the store itself: admin */
} cmd_access;

/* What a node's agent may send for its node (a request relayed for
 * ctx->agent_node); any other command is refused to it. */
typedef enum {
    CMD_AGENT_NONE,
    CMD_AGENT_OWN_NODE,   /* its first argument must be the agent's own node */
    CMD_AGENT_OWN_WORKER  /* with --worker N, of a worker placed on the agent's node (job report) */
} cmd_agent;

typedef struct cmd_ctx cmd_ctx;
typedef struct cmd_args cmd_args;
typedef struct cmd_def cmd_def;

/* A handler reads and writes through ctx->tx and returns its result object
 * in *result (a new reference).  Mutating handlers must not commit: the
 * executor commits their writes together with the audit entry. */
typedef rd_code (*cmd_handler)(cmd_ctx *ctx, const cmd_args *args, json_t **result, rd_err *err);

struct cmd_def {
    const char *words;      /* "account create" */
    const char *args;       /* "NAME [ACCOUNT]"; a|b|c is an enumerated word */
    const cmd_flag *flags;  /* terminated by {0}; may be NULL */
    int options;            /* CMD_MUTATES, CMD_NO_STORE */
    const char *help;       /* one line */
    const char *columns;    /* table columns for list results, "name,plan" */
    cmd_handler run;
    cmd_access access;      /* who may run it; left out: read, or tenant work when it mutates */
    const char *access_why; /* the refusal of an admin-only command: "only an administering account <why>" */
    cmd_agent agent;        /* what a node's agent may send; left out: nothing */
};

/* Longer help for one command, shown by `help COMMAND` after its flags
 * (and in its JSON as "notes", a list of the lines): one string a line; a
 * line "FIELD\tTEXT" is a row of a two-column table (the first row its
 * header), a line starting with two spaces an example kept as it is, an
 * empty line an empty line, any other line a paragraph.  Each family may
 * contribute a table of them (core/app/cmd_list.c). */
typedef struct {
    const char *words;              /* "job submit" */
    const char *const *lines;       /* ends with NULL */
} cmd_note;

/* The note lines of the command called words, or NULL. */
const char *const *cmd_note_of(const char *words);

/* ---- running ----------------------------------------------------------- */

/* What a layer above keeps between the commands one context runs (the
 * scheduler's memo of the queue, sched_memo.c; what `agent check` saw of
 * the agents' beats, jobs/agent.c): the executor knows each only as data
 * it frees with the context, found by the address of its owner's key. */
#define CMD_CTX_MEMOS 4
typedef struct {
    const void *key;            /* the address of a static of the owning file; NULL: free slot */
    void *data;
    void (*free)(void *);
} cmd_memo;

struct cmd_ctx {
    const char *store_url;      /* opened on first use */
    const store_opts *store_opts;
    store_t *store;             /* owned by whoever set store_url; see cmd_ctx_close */
    const char *actor;          /* --as */
    int actor_given;            /* --as was given, not defaulted: impersonation when it differs from identity */
    const char *identity;       /* the account the store vouches for (secured etcd), or NULL: set by
                                 * cmd_ctx_open_store, or by the controller for a relayed request */
    int relayed;                /* the store lets this identity only send requests (cmd_relay.c) */
    const char *agent_node;     /* a relayed request of this node's agent: only its own reports */
    const char *relay_req_key;  /* the controller runs a relayed request: its key, answered and */
    const char *relay_rep_key;  /* removed in the command's own commit (core/access/relay.c) */
    const char *relay_done_key; /* ... and marked answered there, so its id never runs again, */
    int64_t relay_done_lease;   /* under this lease (0: none) */
    const json_t *relay_files;  /* the texts its sender sent, {path: text}: all cmd_file_read reads */
    rd_time now;                /* --now, or the real clock read by the caller */
    int read_only;              /* refuse every CMD_MUTATES command */
    rd_tx *tx;                  /* the transaction of the running command */
    const char *line;           /* the line being run, secrets redacted */
    const char *master_key_path;/* --master-key / RIGDECK_MASTER_KEY, or NULL: the default */
    const char *fence_key;      /* NULL, or a key whose mod_revision must still be */
    int64_t fence_rev;          /* fence_rev for any write to commit (the controller's leadership) */
    cmd_memo memos[CMD_CTX_MEMOS];  /* what layers above keep between commands (cmd_ctx_memo) */
    char columns[512];          /* set by the executor for each line: the `--fields F,...` of a
                                 * command that takes one, as given (its list's columns, in
                                 * that order); empty: the command's own def->columns */
    int upgraded;               /* cmd_ctx_upgrade has looked at this store */
    /* cmd_exec_line, set by the executor before a handler runs: a handler
     * that must run a line of its own (`job send` runs `job transfer`,
     * relayed where the store is secured) calls it through here, so core/
     * files never call back up into the executor (scripts/callgraph.py) */
    rd_code (*exec_line)(cmd_ctx *ctx, const char *line, json_t **result, const cmd_def **def, rd_err *err);
};

/* Upgrades the documents of a store made by an older rigdeck, once per
 * context, through the store_upgrade hook (core/app/account_init.c: today
 * every node gets its agent mode, device configurations their sealed env),
 * and store_notice says how many became which.  The executor calls it
 * before the first command that writes (opening a store never writes to an
 * old one); the controller and the agent call it right after opening, while
 * their log takes notices.  A store that cannot be upgraded (an identity
 * without the right) is left as it is: it behaves as before. */
void cmd_ctx_upgrade(cmd_ctx *ctx);

/* Stages, in tx, the mark that ctx's relayed request has been answered
 * (nothing when ctx runs no relayed request): the executor calls it in the
 * commit that answers a request, the controller's relay (core/access/relay.c)
 * in the commit of a refusal.  Here, not in relay.c, so the executor never
 * calls up into access/. */
rd_code cmd_relay_mark_done(rd_tx *tx, const cmd_ctx *ctx, rd_err *err);

/* Runs one line.  On success *result is the command's result (NULL for a
 * blank or comment line) and *def (may be NULL) the command that ran;
 * cmd_columns() then names the columns to show a list result in. */
rd_code cmd_exec_line(cmd_ctx *ctx, const char *line, json_t **result,
                      const cmd_def **def, rd_err *err);

/* The columns a list result of the line just run shows, in order: the
 * line's --fields when it gave one, else def's columns (NULL: every field
 * the items carry).  Valid until the next line runs on ctx. */
const char *cmd_columns(const cmd_ctx *ctx, const cmd_def *def);

/* Runs already split words (the console's key bindings use this). */
rd_code cmd_exec_words(cmd_ctx *ctx, const cmd_words *words, json_t **result,
                       const cmd_def **def, rd_err *err);

/* Commits what the running command has staged so far, with its audit
 * record, and starts afresh: for commands such as `sched run` that make many
 * independent decisions.  RD_ECONFLICT means nothing of this step was
 * written (the caller re-reads and decides again). */
rd_code cmd_commit_step(cmd_ctx *ctx, rd_err *err);

/* Closes the store the context opened and frees its memos. */
void cmd_ctx_close(cmd_ctx *ctx);

/* The data kept under key in ctx, or NULL. */
void *cmd_ctx_memo(const cmd_ctx *ctx, const void *key);

/* Keeps data under key (the one kept there before is freed), freed with
 * free_fn by cmd_ctx_close or cmd_ctx_drop_memos; data NULL forgets key.
 * RD_ENOMEM when every slot is taken: data is freed then, nothing kept. */
rd_code cmd_ctx_set_memo(cmd_ctx *ctx, const void *key, void *data, void (*free_fn)(void *), rd_err *err);

/* Frees every memo of ctx (a copy of a context must not free its base's:
 * it clears its slots with memset, then drops only its own). */
void cmd_ctx_drop_memos(cmd_ctx *ctx);

/* Opens ctx->store if needed and makes sure a new store holds its initial
 * accounts (the store_init hook); used by the executor and by front ends
 * that watch the store. */
rd_code cmd_ctx_open_store(cmd_ctx *ctx, rd_err *err);

/* ---- what the executor asks of the layers above it --------------------- */

/* core/cmd is the command framework only: the command registry, a new
 * store's first contents, the upgrades of an older store and the guard
 * belong to the layers above (core/app, core/access), which the executor
 * never calls by name.  core/app hands them in once, before main, with
 * cmd_set_hooks (app_init, core/app/app.h), as store_notice.c lets a
 * backend tell the front end.  A hook
 * that is missing fails closed: no command is found, no store is opened,
 * and the guard refuses every command on the store. */
typedef struct {
    const cmd_def *const *tables;   /* the command tables, in help order */
    size_t ntables;
    const cmd_note *const *notes;   /* the longer help of some commands */
    size_t nnotes;
    /* a store just opened (not relayed): a new one gets its first contents
     * in one guarded transaction; a no-op on an initialised one */
    rd_code (*store_init)(store_t *st, rd_time now, rd_err *err);
    /* an older store's documents upgraded, once per context (cmd_ctx_upgrade) */
    void (*store_upgrade)(cmd_ctx *ctx);
    /* every command that touches the store, in its transaction, before its
     * handler: the actor exists, may act as it does (--as) and its role
     * may run def (core/access/access.c) */
    rd_code (*guard)(cmd_ctx *ctx, const cmd_def *def, const cmd_args *args, rd_err *err);
} cmd_hooks;

/* Installs hooks (copied) for every context of the process. */
void cmd_set_hooks(const cmd_hooks *hooks);

/* The hooks installed, or NULL before cmd_set_hooks. */
const cmd_hooks *cmd_get_hooks(void);

/* ---- reading arguments (for handlers) ---------------------------------- */

/* The i-th positional argument, or NULL. */
const char *cmd_arg(const cmd_args *a, size_t i);

/* Number of positional arguments given. */
size_t cmd_arg_count(const cmd_args *a);

/* The command being run: for one handler shared by several commands (the
 * dataset, checkpoint and model families, core/data/dataobj.c). */
const cmd_def *cmd_args_def(const cmd_args *a);

/* The (last) value of --name, or NULL when it was not given. */
const char *cmd_opt(const cmd_args *a, const char *name);

/* 1 if --name was given (with or without a value). */
int cmd_opt_given(const cmd_args *a, const char *name);

/* Number of values of a repeatable --name, and the i-th of them. */
size_t cmd_opt_count(const cmd_args *a, const char *name);
const char *cmd_opt_at(const cmd_args *a, const char *name, size_t i);

/* The whole text of the file at path, which the line names as field
 * ("--inventory"), at most max bytes, in *text (NUL-terminated; free it).
 * In batch and the console it is read from this host's disk.  For a
 * request relayed to the controller it is only the text the sender sent
 * under that path: the controller's disk is never opened, and a path not
 * sent is refused alike whether or not it exists there. */
rd_code cmd_file_read(const cmd_ctx *ctx, const char *field, const char *path, size_t max, char **text,
                      size_t *len, rd_err *err);

/* 1 when files the line names are this host's (not a relayed request). */
int cmd_file_local(const cmd_ctx *ctx);

/* ---- the table --------------------------------------------------------- */

/* Calls fn for every command in help order. */
void cmd_foreach(void (*fn)(const cmd_def *def, void *data), void *data);

/* The command whose words are exactly words ("node maintenance"), or NULL. */
const cmd_def *cmd_find(const char *words);

/* The usage string of a command: "account create NAME [--plan free|team|enterprise]";
 * malloc'd. */
char *cmd_usage(const cmd_def *def);

/* `help [COMMAND...]` over the commands foreach calls fn with: the list of
 * those starting with the given words, or one command's usage and flags
 * when exactly one matches. */
rd_code cmd_help_answer(void (*foreach)(void (*fn)(const cmd_def *def, void *data), void *data), const cmd_args *a,
                        json_t **result, rd_err *err);

/* The result of `help` as text for a reader, in lines of at most width
 * columns (20 at least): the command list with descriptions in a column
 * and wrapped under it, or one command's fields and flags.  malloc'd; NULL
 * when result is not a help result (or memory ran out). */
char *cmd_help_text(const json_t *result, size_t width);

#endif
