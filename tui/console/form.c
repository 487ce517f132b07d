/* form.c - the add/edit forms: their definitions, editing, hints and the
 * line they build.  draw.c paints them. */
#define NCURSES_WIDECHAR 1
#include "form.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "keycode.h"
#include "panes.h"

static const form_field node_add_fields[] = {
    { "Region", NULL, FF_TEXT, 1, NAMES_REGION, NULL },
    { "Name", NULL, FF_TEXT, 1, NAMES_NONE, NULL },
    { "Minion ID", "minion", FF_TEXT, 1, NAMES_NONE, NULL },
    { "Role", "role", FF_CHOICE, 0, NAMES_NONE, NULL },
    { "Inventory file", "inventory", FF_TEXT, 0, NAMES_FILE, NULL },
    { "UPnP", "upnp", FF_CHOICE, 0, NAMES_NONE, NULL },
    { "Mining", "mining", FF_CHOICE, 0, NAMES_NONE, NULL },
    { "Agent", "agent", FF_CHOICE, 0, NAMES_NONE, NULL },
};
static const form_field region_create_fields[] = {
    { "Name", NULL, FF_TEXT, 1, NAMES_NONE, NULL },
    { "Provider", "provider", FF_CHOICE, 1, NAMES_NONE, NULL },
    { "Storage", "storage", FF_CHOICE, 0, NAMES_NONE, NULL },
    { "Public", "public", FF_BOOL, 0, NAMES_NONE, NULL },
    { "GCP region", "gcp-region", FF_TEXT, 0, NAMES_NONE, NULL },
    { "Storage class", "storage-class", FF_CHOICE, 0, NAMES_NONE, NULL },
    { "Agent (GCP)", "agent", FF_CHOICE, 0, NAMES_NONE, NULL },
    { "Image (GCP)", "image", FF_TEXT, 0, NAMES_NONE, NULL },
    { "Idle release (GCP)", "idle-release", FF_TEXT, 0, NAMES_NONE, NULL },
};
static const form_field region_set_fields[] = {
    { "Region", NULL, FF_FIXED, 1, NAMES_REGION, "name" },
    { "Public jobs", "public", FF_CHOICE, 0, NAMES_NONE, "public" },
    { "Agent (GCP)", "agent", FF_CHOICE, 0, NAMES_NONE, "agent_mode" },
    { "Image (GCP)", "image", FF_TEXT, 0, NAMES_NONE, "image" },
    { "Idle release (GCP)", "idle-release", FF_TEXT, 0, NAMES_NONE, "idle_release_s" },
};
static const form_field node_set_fields[] = {
    { "Node", NULL, FF_FIXED, 1, NAMES_NODE, "name" },
    { "GPU sharing", "gpu-sharing", FF_CHOICE, 0, NAMES_NONE, "gpu_sharing" },
    { "UPnP", "upnp", FF_CHOICE, 0, NAMES_NONE, "upnp" },
    { "Mining", "mining", FF_CHOICE, 0, NAMES_NONE, "mining" },
    /* prefilled: the same mode again is no change (node set --agent) */
    { "Agent", "agent", FF_CHOICE, 0, NAMES_NONE, "agent_mode" },
};
static const form_field datastore_add_fields[] = {
    { "Region", NULL, FF_TEXT, 1, NAMES_REGION, NULL },
    { "Name", NULL, FF_TEXT, 1, NAMES_NONE, NULL },
    { "Type", "type", FF_CHOICE, 1, NAMES_NONE, NULL },
    { "Address", "address", FF_TEXT, 1, NAMES_NONE, NULL },
    { "Root", "root", FF_TEXT, 1, NAMES_NONE, NULL },
    { "Username", "username", FF_TEXT, 0, NAMES_NONE, NULL },
    { "Password file", "password-file", FF_TEXT, 0, NAMES_FILE, NULL },
};
static const form_field reservation_add_fields[] = {
    { "Region", NULL, FF_TEXT, 1, NAMES_REGION, NULL },
    { "Name", NULL, FF_TEXT, 1, NAMES_NONE, NULL },
    { "Hostname", "hostname", FF_TEXT, 1, NAMES_NONE, NULL },
    { "Port", "port", FF_INT, 1, NAMES_NONE, NULL },
};
static const form_field provider_enable_fields[] = {
    { "Provider", NULL, FF_CHOICE, 1, NAMES_NONE, NULL },
    { "Key file (gcp)", "key-file", FF_TEXT, 0, NAMES_FILE, NULL },
    { "Payment", "payment", FF_CHOICE, 0, NAMES_NONE, NULL },
};
static const form_field device_add_fields[] = {
    { "Region", NULL, FF_TEXT, 1, NAMES_REGION, NULL },
    { "Name", NULL, FF_TEXT, 1, NAMES_NONE, NULL },
    { "Minion ID", "minion", FF_TEXT, 1, NAMES_NONE, NULL },
    { "Model", "model", FF_TEXT, 1, NAMES_MODEL, NULL },
};
static const form_field device_set_config_fields[] = {
    { "Device", NULL, FF_FIXED, 1, NAMES_DEVICE, "name" },
    { "Config", NULL, FF_TEXT, 1, NAMES_CONFIG, "config" },
};
static const form_field config_create_fields[] = {
    { "Region", NULL, FF_TEXT, 1, NAMES_REGION, NULL },
    { "Name", NULL, FF_TEXT, 1, NAMES_NONE, NULL },
    { "Image", "image", FF_TEXT, 1, NAMES_NONE, NULL },
    { "Model", "model", FF_TEXT, 1, NAMES_MODEL, NULL },
    { "Command", "command", FF_TEXT, 1, NAMES_NONE, NULL },
    { "Checkpoints", "checkpoint", FF_MULTI, 0, NAMES_NONE, NULL },
    { "Datastore", "datastore", FF_TEXT, 0, NAMES_DATASTORE, NULL },
    { "Datastore path", "datastore-path", FF_TEXT, 0, NAMES_NONE, NULL },
    { "Env K=V ...", "env", FF_MULTI, 0, NAMES_NONE, NULL },
    { "Keys", "key", FF_MULTI, 0, NAMES_NONE, NULL },
};
static const form_field quota_set_fields[] = {
    { "Region", NULL, FF_FIXED, 1, NAMES_REGION, "region" },
    { "Metric", NULL, FF_TEXT, 1, NAMES_NONE, "metric" },
    { "Limit", NULL, FF_INT, 1, NAMES_NONE, "limit" },
    { "Usage", "usage", FF_INT, 0, NAMES_NONE, "usage" },
};
static const form_field job_submit_fields[] = {
    { "Job spec file", NULL, FF_TEXT, 1, NAMES_FILE, NULL },
    { "Project", "project", FF_TEXT, 0, NAMES_PROJECT, NULL },
    { "Priority", "priority", FF_INT, 0, NAMES_NONE, NULL },
};
static const form_field project_create_fields[] = {
    { "Name", NULL, FF_TEXT, 1, NAMES_NONE, NULL },
    { "Owner", "owner", FF_TEXT, 0, NAMES_ACCOUNT, NULL },
};
static const form_field project_set_fields[] = {
    { "Project", NULL, FF_FIXED, 1, NAMES_PROJECT, "owner/name" },
    { "Quota exhausted", "on-quota-exhausted", FF_CHOICE, 0, NAMES_NONE, "on_quota_exhausted" },
};
static const form_field account_create_fields[] = {
    { "Name", NULL, FF_TEXT, 1, NAMES_NONE, NULL },
    { "Plan", "plan", FF_CHOICE, 0, NAMES_NONE, NULL },
    { "Role", "role", FF_CHOICE, 0, NAMES_NONE, NULL },
};
static const form_field account_set_fields[] = {
    { "Account", NULL, FF_FIXED, 1, NAMES_ACCOUNT, "account" },
    { "Mining wallets", "mining-wallet", FF_MULTI, 0, NAMES_NONE, NULL },
    { "Clear wallets", "clear-mining-wallets", FF_BOOL, 0, NAMES_NONE, NULL },
    /* not prefilled: an unchanged role would still send --role, which only
     * admins may, and a member editing its wallets would be refused */
    { "Role", "role", FF_CHOICE, 0, NAMES_NONE, NULL },
};

static const form_field key_add_fields[] = {
    { "Name", NULL, FF_TEXT, 1, NAMES_NONE, NULL },
    { "Type", "type", FF_CHOICE, 1, NAMES_NONE, NULL },
    { "Key file", "file", FF_TEXT, 1, NAMES_FILE, NULL },
};
/* datasets, checkpoints and models take the same flags (core/data/dataobj.c) */
static const form_field dataobj_add_fields[] = {
    { "Name", NULL, FF_TEXT, 1, NAMES_NONE, NULL },
    { "Source URL", "source", FF_TEXT, 1, NAMES_NONE, NULL },
    { "Key", "key", FF_TEXT, 0, NAMES_DATAKEY, NULL },
    { "S3 endpoint", "endpoint", FF_TEXT, 0, NAMES_NONE, NULL },
};

#define FORM(title, cmd, f) { title, cmd, f, sizeof f / sizeof f[0] }
static const form_def forms[FORM_COUNT] = {
    [FORM_NODE_ADD] = FORM("Add a node", "node add", node_add_fields),
    [FORM_REGION_CREATE] = FORM("Create a region", "region create", region_create_fields),
    [FORM_REGION_SET] = FORM("Edit a region", "region set", region_set_fields),
    [FORM_NODE_SET] = FORM("Edit a node", "node set", node_set_fields),
    [FORM_DATASTORE_ADD] = FORM("Add a datastore", "datastore add", datastore_add_fields),
    [FORM_RESERVATION_ADD] = FORM("Add a reservation", "reservation add", reservation_add_fields),
    [FORM_PROVIDER_ENABLE] = FORM("Enable a provider", "provider enable", provider_enable_fields),
    [FORM_DEVICE_ADD] = FORM("Add a device", "device add", device_add_fields),
    [FORM_DEVICE_SET_CONFIG] = FORM("Choose a device's configuration", "device set-config", device_set_config_fields),
    [FORM_CONFIG_CREATE] = FORM("Create a device configuration", "device-config create", config_create_fields),
    [FORM_QUOTA_SET] = FORM("Set a quota", "quota set", quota_set_fields),
    [FORM_JOB_SUBMIT] = FORM("Submit a job", "job submit", job_submit_fields),
    [FORM_PROJECT_CREATE] = FORM("Create a project", "project create", project_create_fields),
    [FORM_PROJECT_SET] = FORM("Edit a project", "project set", project_set_fields),
    [FORM_ACCOUNT_CREATE] = FORM("Create an account", "account create", account_create_fields),
    [FORM_ACCOUNT_SET] = FORM("Edit an account", "account set", account_set_fields),
    [FORM_KEY_ADD] = FORM("Add a key", "key add", key_add_fields),
    [FORM_DATASET_ADD] = FORM("Add a dataset", "dataset add", dataobj_add_fields),
    [FORM_CHECKPOINT_ADD] = FORM("Add a checkpoint", "checkpoint add", dataobj_add_fields),
    [FORM_MODEL_ADD] = FORM("Add a model", "model add", dataobj_add_fields),
};

const form_def *form_get(int id)
{
    return id > FORM_NONE && id < FORM_COUNT ? &forms[id] : NULL;
}

typedef struct {
    const char *words;
    const cmd_def *def;
} def_lookup;

static void find_def(const cmd_def *def, void *data)
{
    def_lookup *l = data;
    if (!l->def && strcmp(def->words, l->words) == 0)
        l->def = def;
}

/* The enumerated words ("physical|gcp") of the pos-th positional argument
 * in a command's argument string, if it has them. */
static void positional_choices(const char *args, size_t pos, char *out, size_t len)
{
    char buf[512];
    size_t k = 0;
    snprintf(buf, sizeof buf, "%s", args ? args : "");
    for (char *save = NULL, *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        if (w[0] == '[')
            continue;
        if (k++ == pos && strchr(w, '|'))
            snprintf(out, len, "%s", w);
    }
}

/* The text that prefills a field from an edit form's item. */
static void prefill_text(const json_t *item, const char *from, char *out, size_t len)
{
    const char *slash = strchr(from, '/');
    out[0] = '\0';
    if (slash) {
        char a[128], b[128];
        snprintf(a, sizeof a, "%.*s", (int)(slash - from), from);
        prefill_text(item, a, out, len);
        snprintf(b, sizeof b, "%s", out);
        prefill_text(item, slash + 1, a, sizeof a);
        if (b[0] && a[0])
            snprintf(out, len, "%s/%s", b, a);
        return;
    }
    const json_t *v = json_object_get(item, from);
    if (json_is_string(v))
        snprintf(out, len, "%s", json_string_value(v));
    else if (json_is_boolean(v))
        snprintf(out, len, "%s", json_is_true(v) ? "on" : "off");
    else if (json_is_integer(v))
        snprintf(out, len, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        snprintf(out, len, "%.15g", json_real_value(v));
}

form_state *form_open(int id, const json_t *item)
{
    const form_def *def = form_get(id);
    if (!def)
        return NULL;
    form_state *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->def = def;
    /* Choices come from the command's own flag table, never a copy. */
    def_lookup l = { def->cmd, NULL };
    cmd_foreach(find_def, &l);
    size_t pos = 0;
    for (size_t i = 0; i < def->nfields && i < FORM_MAX_FIELDS; i++) {
        const form_field *ff = &def->fields[i];
        if (ff->kind == FF_BOOL)
            snprintf(f->choices[i], sizeof f->choices[i], "no|yes");
        for (const cmd_flag *fl = l.def ? l.def->flags : NULL; ff->kind == FF_CHOICE && fl && fl->name; fl++)
            if (ff->flag && strcmp(fl->name, ff->flag) == 0 && fl->value)
                snprintf(f->choices[i], sizeof f->choices[i], "%s", fl->value);
        if (!ff->flag) {
            if (ff->kind == FF_CHOICE && l.def)
                positional_choices(l.def->args, pos, f->choices[i], sizeof f->choices[i]);
            pos++;
        }
        if (ff->from && item) {
            char text[PROMPT_MAX];
            prefill_text(item, ff->from, text, sizeof text);
            ledit_set(&f->val[i], text);
        }
    }
    /* Typing goes to the first field that can change. */
    while ((size_t)f->focus + 1 < def->nfields && def->fields[f->focus].kind == FF_FIXED)
        f->focus++;
    return f;
}

void form_close(form_state *f)
{
    free(f);
}

int form_build_line(const form_state *f, char *out, size_t len, const char **missing)
{
    snprintf(out, len, "%s", f->def->cmd);
    *missing = NULL;
    for (int pass = 0; pass < 2; pass++) {   /* positionals first, then flags */
        for (size_t i = 0; i < f->def->nfields; i++) {
            const form_field *ff = &f->def->fields[i];
            const char *v = f->val[i].buf;
            if ((ff->flag != NULL) != (pass == 1))
                continue;
            if (!*v) {
                if (ff->required && !*missing)
                    *missing = ff->label;
                continue;
            }
            size_t used = strlen(out);
            if (ff->kind == FF_BOOL) {
                if (strcmp(v, "yes") == 0)
                    snprintf(out + used, len - used, " --%s", ff->flag);
                continue;
            }
            if (ff->kind == FF_MULTI && ff->flag) {
                char words[PROMPT_MAX];
                snprintf(words, sizeof words, "%s", v);
                for (char *save = NULL, *w = strtok_r(words, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
                    used = strlen(out);
                    snprintf(out + used, len - used, " --%s ", ff->flag);
                    prompt_quote_word(out, len, w);
                }
                continue;
            }
            if (ff->flag)
                snprintf(out + used, len - used, " --%s ", ff->flag);
            else
                snprintf(out + used, len - used, " ");
            prompt_quote_word(out, len, v);
        }
    }
    return *missing ? -1 : 0;
}

/* ---- hints ----------------------------------------------------------- */

typedef struct {
    const char *want;
    int found;
    char known[200];
} name_check;

static void check_name(const char *name, void *data)
{
    name_check *n = data;
    size_t used = strlen(n->known);
    if (strcmp(name, n->want) == 0)
        n->found = 1;
    if (used < sizeof n->known - 1)
        snprintf(n->known + used, sizeof n->known - used, "%s%s", used ? ", " : "", name);
}

static int choice_ok(const char *choices, const char *v)
{
    size_t n = strlen(v);
    for (const char *p = choices; *p;) {
        size_t k = strcspn(p, "|");
        if (k == n && strncmp(p, v, n) == 0)
            return 1;
        p += k + (p[k] == '|');
    }
    return 0;
}

void form_field_hint(session *c, const form_state *f, size_t i, char *out, size_t len)
{
    const form_field *ff = &f->def->fields[i];
    const char *v = f->val[i].buf;
    out[0] = '\0';
    if (!*v) {
        if (ff->required)
            snprintf(out, len, "required");
        else if (f->choices[i][0])
            snprintf(out, len, "%s (Left/Right)", f->choices[i]);
        return;
    }
    if (f->choices[i][0] && !choice_ok(f->choices[i], v)) {
        snprintf(out, len, "one of %s", f->choices[i]);
    } else if (ff->kind == FF_INT && v[strspn(v, "0123456789")] != '\0') {
        snprintf(out, len, "must be a whole number");
    } else if (ff->names == NAMES_FILE) {
        if (access(v, R_OK) != 0)
            snprintf(out, len, "no readable file here");
    } else if (ff->names != NAMES_NONE && ff->kind != FF_FIXED) {
        name_check n = { v, 0, "" };
        panes_names(ff->names, check_name, &n, c);
        if (!n.found)
            snprintf(out, len, "unknown (known: %s)", n.known[0] ? n.known : "none");
    }
}

/* ---- keys ------------------------------------------------------------ */

static void cycle_choice(form_state *f, int dir)
{
    const char *choices = f->choices[f->focus];
    char words[16][32];
    int n = 0, cur = -1;
    for (const char *p = choices; *p && n < 16;) {
        size_t k = strcspn(p, "|");
        snprintf(words[n], sizeof words[n], "%.*s", (int)k, p);
        if (strcmp(words[n], f->val[f->focus].buf) == 0)
            cur = n;
        n++;
        p += k + (p[k] == '|');
    }
    if (n == 0)
        return;
    /* From empty, Right picks the first word and Left the last. */
    cur = cur < 0 ? (dir > 0 ? 0 : n - 1) : (cur + dir + n + 1) % (n + 1);
    ledit_set(&f->val[f->focus], cur == n ? "" : words[cur]);
}

/* Enter: runs the line; a refusal keeps the form open with the reason. */
static act_result submit(session *c, form_state *f)
{
    char line[2048];
    const char *missing;
    if (form_build_line(f, line, sizeof line, &missing) != 0) {
        snprintf(f->error, sizeof f->error, "%s is required", missing);
        return ACT_REDRAW;
    }
    json_t *res = NULL;
    rd_err err;
    rd_err_clear(&err);
    if (session_exec_line(c, line, &res, &err) != RD_OK) {
        /* Keep the form and everything typed; show the core's reason. */
        snprintf(f->error, sizeof f->error, "%s", err.msg);
        return ACT_REDRAW;
    }
    json_decref(res);
    session_set_status(c, "done: %s", line);
    return ACT_FOLLOW | ACT_CLOSE | ACT_REDRAW;
}

act_result form_key(session *c, form_state *f, int key)
{
    int n = (int)f->def->nfields;
    const form_field *ff = &f->def->fields[f->focus];
    if (key == CK_ESC)
        return ACT_CLOSE | ACT_REDRAW;
    if (keycode_is_enter(key))
        return submit(c, f);
    if (key == '\t' || key == CK_FN(KEY_DOWN)) {
        f->focus = (f->focus + 1) % n;
    } else if (key == CK_FN(KEY_BTAB) || key == CK_FN(KEY_UP)) {
        f->focus = (f->focus + n - 1) % n;
    } else if (ff->kind == FF_FIXED) {
        /* not editable */
    } else if (f->choices[f->focus][0] && (key == CK_FN(KEY_LEFT) || key == CK_FN(KEY_RIGHT) || key == ' ')) {
        cycle_choice(f, key == CK_FN(KEY_LEFT) ? -1 : 1);
    } else {
        keycode_edit_line(&f->val[f->focus], key, NULL);
    }
    f->error[0] = '\0';
    return ACT_REDRAW;
}
