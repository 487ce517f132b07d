/* form.h - add and edit forms ('a', 'e'): each form is data (a command and
 * its fields); filling it in builds one command-language line, which runs
 * like any other.  Hints while typing come from what the console knows
 * (required fields, the command's own enumerated flag values, names in the
 * loaded tables, files on disk); the rules themselves stay in the core, and
 * a refusal shows the core's message with the form still open.
 */
#ifndef RD_FORM_H
#define RD_FORM_H

#include <stddef.h>

#include "panes.h"
#include "prompt.h"
#include "session.h"

#define FORM_MAX_FIELDS 10

typedef enum {
    FF_TEXT,        /* free text */
    FF_CHOICE,      /* one of the flag's words ("compute|storage"), cycled with Left/Right */
    FF_BOOL,        /* a flag without a value: "yes" adds it */
    FF_FIXED,       /* shown, not editable (the object an edit form changes) */
    FF_INT,         /* a whole number */
    FF_MULTI        /* a repeatable flag: each blank-separated word becomes one --flag WORD */
} form_kind;

typedef struct {
    const char *label;
    const char *flag;       /* "--minion" without dashes; NULL: positional */
    form_kind kind;
    int required;
    names_kind names;       /* a hint when the value is not a known name */
    const char *from;       /* edit forms: the item field that prefills it ("owner/name": two joined) */
} form_field;

typedef struct {
    const char *title;
    const char *cmd;        /* "node add" */
    const form_field *fields;
    size_t nfields;
} form_def;

typedef struct form_state {
    const form_def *def;
    ledit val[FORM_MAX_FIELDS];
    char choices[FORM_MAX_FIELDS][128];   /* "a|b|c" from the command table */
    int focus;
    char error[600];                      /* the core's refusal, if any */
} form_state;

/* The definition of form id (FORM_*). */
const form_def *form_get(int id);

/* Opens form id; item (may be NULL) prefills an edit form.  NULL when out
 * of memory. */
form_state *form_open(int id, const json_t *item);

/* Frees a form. */
void form_close(form_state *f);

/* Builds the command line from the values into out; returns 0, or -1 with
 * the label of the first empty required field in missing. */
int form_build_line(const form_state *f, char *out, size_t len, const char **missing);

/* Handles a key (console key code, see keycode.h); ACT_CLOSE in the result
 * when the form is done (submitted successfully or cancelled). */
act_result form_key(session *c, form_state *f, int key);

/* What to tell the operator about field i while they type: a missing
 * required value, a choice or number out of range, an unknown name or an
 * unreadable file ("" when fine). */
void form_field_hint(session *c, const form_state *f, size_t i, char *out, size_t len);

#endif
