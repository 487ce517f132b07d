/* prompt.h - the one-line editor behind ':' (commands), '/' (filter) and
 * form fields: editing keys, history, and tab completion of command words,
 * flags, enumerated words and object names.  No curses: keys arrive as
 * PROMPT_K_* codes, so the editor and completion are unit tested.
 */
#ifndef RD_PROMPT_H
#define RD_PROMPT_H

#include <stddef.h>

#define PROMPT_MAX 1024
#define PROMPT_HISTORY 200

/* Editing keys (printable characters are passed as themselves). */
enum {
    PROMPT_K_LEFT = -100, PROMPT_K_RIGHT, PROMPT_K_HOME, PROMPT_K_END,
    PROMPT_K_BACKSPACE, PROMPT_K_DELETE, PROMPT_K_KILL_LINE, PROMPT_K_KILL_WORD,
    PROMPT_K_KILL_END, PROMPT_K_UP, PROMPT_K_DOWN
};

typedef struct {
    char buf[PROMPT_MAX];
    size_t len, cur;            /* bytes; cur is at a character boundary */
} ledit;

typedef struct {
    char *items[PROMPT_HISTORY];
    size_t count;
    size_t pos;                 /* == count: the line being typed */
    char draft[PROMPT_MAX];     /* the line being typed while browsing */
} lhistory;

/* Sets the text (cursor at the end). */
void ledit_set(ledit *e, const char *text);

/* Applies a key: a printable byte (UTF-8 continuation bytes included) or a
 * PROMPT_K_* code.  UP/DOWN walk h when it is given.  Returns 1 if handled. */
int ledit_key(ledit *e, int key, lhistory *h);

/* Records a line (not blank, not a repeat of the last one). */
void lhistory_add(lhistory *h, const char *line);

/* Frees the history. */
void lhistory_free(lhistory *h);

/* ---- completion ---- */

/* Which names an argument placeholder wants, by the command's first word
 * and the placeholder ("node"/"NAME" -> nodes).  The console answers from
 * the tables it has loaded. */
typedef enum {
    NAMES_NONE, NAMES_NODE, NAMES_REGION, NAMES_DEVICE, NAMES_JOB, NAMES_ACCOUNT,
    NAMES_DATASTORE, NAMES_RESERVATION, NAMES_PROVIDER, NAMES_FILE, NAMES_CONFIG, NAMES_PROJECT,
    NAMES_MODEL, NAMES_GPU_TYPE, NAMES_ENVIRONMENT,
    NAMES_DATAKEY, NAMES_DATASET, NAMES_CHECKPOINT, NAMES_DATAMODEL   /* an account's data objects */
} names_kind;

/* Appends the names of a kind to a list via add(name, data). */
typedef void (*names_fn)(names_kind kind, void (*add)(const char *name, void *data), void *data,
                         void *ctx);

typedef struct {
    char **items;
    size_t count;
} compl_list;

/* Completes the word before the cursor in e: extends it to the longest
 * common prefix of the candidates (adding a space when only one is left)
 * and fills list (may be NULL) with the candidates, sorted.  names (may be
 * NULL) supplies object names.  Returns the number of candidates. */
size_t prompt_complete(ledit *e, names_fn names, void *names_ctx, compl_list *list);

/* The candidates, sorted, for the last word of text (a command line up to
 * the cursor; words end at blanks), as prompt_complete finds them; after
 * "help" the words of a command.  Appended to list; returns its count. */
size_t prompt_candidates(const char *text, names_fn names, void *names_ctx, compl_list *list);

/* Appends the candidates starting with prefix, sorted, for a value
 * described as choices ("table|json|csv") or a placeholder ("ACCOUNT",
 * "FILE") of command group group. */
void prompt_value_candidates(const char *group, const char *value, const char *prefix,
                             names_fn names, void *names_ctx, compl_list *list);

/* Frees a candidate list. */
void compl_list_free(compl_list *l);

/* The names kind an argument placeholder of a command group means. */
names_kind prompt_names_kind(const char *group, const char *placeholder);

/* Appends s to out as one word of the command language, quoted when it
 * needs it. */
void prompt_quote_word(char *out, size_t len, const char *s);

#endif
