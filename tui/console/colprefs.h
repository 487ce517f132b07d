/* colprefs.h - which columns a table shows and in what order (the column
 * chooser, 'C'), and the file that remembers it:
 * $XDG_CONFIG_HOME/rigdeck/columns (or ~/.config/rigdeck/columns).
 *
 * The file is text, one table a line: "PANE/VIEW = name,-name,name", the
 * table's columns in order, '-' before a hidden one; names are headers in
 * lower case with '_' for spaces ("waiting_reason"); '#' starts a comment.
 * A missing or unreadable file, an unknown table or name, is the default
 * (every column, in the pane's order): the console never fails over it.
 * Written whole to a temporary file and renamed, so a crash leaves the
 * old file or the new one.  Pure: no curses, no store; unit tested.
 */
#ifndef RD_COLPREFS_H
#define RD_COLPREFS_H

#include <stddef.h>

#define COLSET_MAX 16
#define COLPREFS_LINE_MAX 1024

/* A table's columns in the order shown; n 0: not set up (the default). */
typedef struct {
    int n;
    int order[COLSET_MAX];              /* column indexes */
    unsigned char hidden[COLSET_MAX];   /* by place in order */
} colset;

/* Every column of ncols, in order, shown. */
void colset_default(colset *s, size_t ncols);

/* Reads spec ("name,-name,...") against the table's headers: named columns
 * in the order given, hidden with '-'; unknown names are skipped, columns
 * not named follow, shown.  At least one column stays shown. */
void colset_parse(colset *s, const char *spec, const char *const *headers, size_t nheaders);

/* The spec of s ("name,-name,..."). */
void colset_format(const colset *s, const char *const *headers, char *out, size_t len);

/* The file's path from XDG_CONFIG_HOME, else HOME; 0 when neither is set. */
int colprefs_path(char *out, size_t len);

/* The spec stored for key ("nodes/Nodes") in the file at path; 0 when the
 * file or the key is missing. */
int colprefs_load(const char *path, const char *key, char *spec, size_t len);

/* Stores spec for key, keeping the file's other lines, creating the
 * folder; 0 with err (naming the file) when it cannot be written. */
int colprefs_save(const char *path, const char *key, const char *spec, char *err, size_t errlen);

#endif
