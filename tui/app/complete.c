/* complete.c - candidates for the shell's Tab (scripts/rigdeck.bash-completion).
 *
 * Nothing here knows a command: global options come from options.c's table,
 * the words of a -c line go through the console's completion (prompt.c),
 * which reads the command tables the parser uses, and object names come from
 * the store through the same list commands a user would run.  A shell is
 * waiting on stdout, so errors are swallowed: at worst Tab offers nothing.
 */
#include "complete.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "options.h"
#include "prompt.h"

typedef struct {
    const char *store;          /* --store, or NULL: RIGDECK_STORE, else the default */
    const char *actor;          /* --as, or NULL: RIGDECK_ACCOUNT, else "default" */
    const char *master_key;
    store_opts sopts;
    cmd_ctx ctx;
    char *url;                  /* the store to read names from (malloc'd) */
    int state;                  /* 0 not yet opened, 1 usable, -1 unusable */
} complete_env;

/* The global option spelled word[0..len), or NULL. */
static const options_global *complete_find_global(const char *word, size_t len)
{
    const options_global *g;
    for (size_t i = 0; (g = options_global_at(i)) != NULL; i++)
        if (strlen(g->name) == len && strncmp(g->name, word, len) == 0)
            return g;
    return NULL;
}

/* Remembers the options that say which store, and whose view, names come from. */
static void complete_note_option(complete_env *env, const options_global *g, const char *value)
{
    if (strcmp(g->name, "--store") == 0)
        env->store = value;
    else if (strcmp(g->name, "--as") == 0)
        env->actor = value;
    else if (strcmp(g->name, "--master-key") == 0)
        env->master_key = value;
    else if (strcmp(g->name, "--cacert") == 0)
        env->sopts.cacert = value;
    else if (strcmp(g->name, "--cert") == 0)
        env->sopts.cert = value;
    else if (strcmp(g->name, "--key") == 0)
        env->sopts.key = value;
    else if (strcmp(g->name, "--etcd-user") == 0)
        env->sopts.user = value;
    else if (strcmp(g->name, "--etcd-password-file") == 0)
        env->sopts.password_file = value;
}

static const char *env_or(const char *given, const char *var, const char *fallback)
{
    const char *v = getenv(var);
    return given && *given ? given : v && *v ? v : fallback;
}

/* Makes the context that runs list commands: read-only, and never on an
 * embedded store that does not exist yet (opening it would create one). */
static int complete_open(complete_env *env)
{
    if (env->state)
        return env->state > 0;
    env->state = -1;
    const char *store = env_or(env->store, "RIGDECK_STORE", NULL);
    env->url = store ? strdup(store) : options_default_store();
    if (!env->url)
        return 0;
    int remote = strncmp(env->url, "etcd://", 7) == 0 || strncmp(env->url, "etcds://", 8) == 0;
    const char *path = strncmp(env->url, "sqlite:", 7) == 0 ? env->url + 7 : env->url;
    if (!remote && access(path, F_OK) != 0)
        return 0;
    env->ctx.store_url = env->url;
    env->sopts.user = env_or(env->sopts.user, "RIGDECK_ETCD_USER", NULL);
    env->sopts.password_file = env_or(env->sopts.password_file, "RIGDECK_ETCD_PASSWORD_FILE", NULL);
    env->ctx.store_opts = &env->sopts;
    env->ctx.actor = env_or(env->actor, "RIGDECK_ACCOUNT", "default");
    env->ctx.actor_given = env_or(env->actor, "RIGDECK_ACCOUNT", NULL) != NULL;
    env->ctx.master_key_path = env_or(env->master_key, "RIGDECK_MASTER_KEY", NULL);
    env->ctx.read_only = 1;
    env->ctx.now = (rd_time)time(NULL);
    rd_err err;
    if (cmd_ctx_open_store(&env->ctx, &err) != RD_OK)
        return 0;
    env->state = 1;
    return 1;
}

/* names_fn for prompt.c: object names of a kind from its list command. */
static void complete_names(names_kind kind, void (*add)(const char *name, void *data), void *data,
                           void *ctx)
{
    static const struct {
        names_kind kind;
        const char *line, *field;
    } lists[] = {
        { NAMES_NODE, "node list", "name" },
        { NAMES_REGION, "region list", "name" },
        { NAMES_DEVICE, "device list", "name" },
        { NAMES_JOB, "job list", "id" },
        { NAMES_ACCOUNT, "account list", "name" },
        { NAMES_DATASTORE, "datastore list", "name" },
        { NAMES_RESERVATION, "reservation list", "name" },
        { NAMES_CONFIG, "device-config list", "name" },
        { NAMES_PROJECT, "project list", "name" },
        { NAMES_MODEL, "device models", "name" },
        { NAMES_GPU_TYPE, "gpu list", "id" },
        { NAMES_ENVIRONMENT, "environment list", "name" },
        { NAMES_DATAKEY, "key list", "name" },
        { NAMES_DATASET, "dataset list", "name" },
        { NAMES_CHECKPOINT, "checkpoint list", "name" },
        { NAMES_DATAMODEL, "model list", "name" },
    };
    complete_env *env = ctx;
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
        if (lists[i].kind != kind || !complete_open(env))
            continue;
        json_t *res = NULL;
        rd_err err;
        if (cmd_exec_line(&env->ctx, lists[i].line, &res, NULL, &err) != RD_OK)
            return;
        size_t k;
        const json_t *item;
        json_array_foreach(json_object_get(res, "items"), k, item) {
            const char *name = json_string_value(json_object_get(item, lists[i].field));
            const char *owner = json_string_value(json_object_get(item, "owner"));
            if (!name)
                continue;
            /* Another account's project is named OWNER/NAME. */
            if (kind == NAMES_PROJECT && owner && strcmp(owner, env->ctx.actor) != 0) {
                char full[256];
                snprintf(full, sizeof full, "%s/%s", owner, name);
                add(full, data);
            } else {
                add(name, data);
            }
        }
        json_decref(res);
    }
}

/* The candidates for a -c line, each the whole line as it would read: the
 * shell replaces its whole word (the line), not the line's last word.  A
 * sole candidate gets the space that moves on to the next word, as in the
 * console, since the line goes on inside its quotes. */
static void complete_line(complete_env *env, const char *line, compl_list *list)
{
    size_t head = strlen(line);
    while (head > 0 && line[head - 1] != ' ')
        head--;
    prompt_candidates(line, complete_names, env, list);
    for (size_t i = 0; i < list->count; i++) {
        const char *word = list->items[i];
        int space = list->count == 1 && word[0] && word[strlen(word) - 1] != '/';
        size_t n = head + strlen(word) + 2;
        char *full = malloc(n);
        if (!full)
            continue;
        snprintf(full, n, "%.*s%s%s", (int)head, line, word, space ? " " : "");
        free(list->items[i]);
        list->items[i] = full;
    }
}

/* Candidates for the value of global option g that starts with prefix. */
static void complete_value(complete_env *env, const options_global *g, const char *prefix,
                           compl_list *list)
{
    if (strcmp(g->value, "LINE") == 0)
        complete_line(env, prefix, list);
    else
        prompt_value_candidates("", strcmp(g->value, "URL") == 0 ? "FILE" : g->value, prefix,
                                complete_names, env, list);
}

/* Candidates for the last of the words. */
static void complete_words(complete_env *env, const char *const *words, size_t n, compl_list *list)
{
    if (n == 0)
        return;     /* not even an empty word: nothing is being completed */
    const char *current = words[n - 1];
    const options_global *value_of = NULL;
    for (size_t i = 0; i + 1 < n; i++) {
        const char *w = words[i], *eq = strchr(w, '=');
        const options_global *g = complete_find_global(w, eq && w[1] == '-' ? (size_t)(eq - w) : strlen(w));
        if (!g || !g->value)
            continue;
        if (eq && w[1] == '-') {
            complete_note_option(env, g, eq + 1);
        } else if (i + 2 < n) {
            complete_note_option(env, g, words[++i]);
        } else {
            value_of = g;
            break;
        }
    }
    if (value_of) {
        complete_value(env, value_of, current, list);
        return;
    }
    const char *eq = strchr(current, '=');
    if (strncmp(current, "--", 2) == 0 && eq) {
        /* --output=js: the shell completes what follows the '=' */
        const options_global *g = complete_find_global(current, (size_t)(eq - current));
        if (g && g->value)
            complete_value(env, g, eq + 1, list);
        return;
    }
    if (current[0] != '-')
        return;
    const options_global *g;
    for (size_t i = 0; (g = options_global_at(i)) != NULL; i++) {
        char **items = realloc(list->items, (list->count + 1) * sizeof *items);
        if (!items)
            return;
        list->items = items;
        if (strncmp(g->name, current, strlen(current)) == 0 &&
            (items[list->count] = strdup(g->name)) != NULL)
            list->count++;
    }
}

int complete_run(const char *const *words, size_t n)
{
    complete_env env;
    compl_list list = { 0 };
    memset(&env, 0, sizeof env);
    /* Whatever a store or a library might say, it must not land in the
     * user's command line. */
    if (!freopen("/dev/null", "w", stderr))
        fclose(stderr);
    complete_words(&env, words, n, &list);
    for (size_t i = 0; i < list.count; i++)
        printf("%s\n", list.items[i]);
    compl_list_free(&list);
    cmd_ctx_close(&env.ctx);
    free(env.url);
    return 0;
}
