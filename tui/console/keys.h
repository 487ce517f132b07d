/* keys.h - the key-binding table and the actions behind it.
 *
 * Every binding says which panes it works in and whether it changes the
 * store.  keys_dispatch() is the ONE place that refuses mutating bindings
 * in a --read-only session, and those whose command the session's role
 * may not run, as core/access says (':' lines are refused by the
 * executor's own checks); the footer and the help screen are generated
 * from the same table and the same guard, so they offer exactly the keys
 * that work.
 */
#ifndef RD_KEYS_H
#define RD_KEYS_H

#include <stddef.h>

#include "keycode.h"
#include "session.h"

/* Whether the binding of key may run in this session (the read-only and
 * role guard); report: say why not in the status line. */
int keys_allows(session *c, int key, int report);

/* Whether the current table offers key: it applies there, the guard lets
 * it run and, for m, e and d, the role may act on the selected row. */
int keys_offers(const session *c, int key);

/* Whether key may act at all on a rows x cols terminal, in any mode: below
 * the minimum size only a message shows, so only resize, '?' and 'q' do. */
int keys_allows_size(int rows, int cols, int key);

/* Handles a key in MODE_NORMAL; returns what the loop should do next. */
act_result keys_dispatch(session *c, int key);

/* The footer's key/label pairs for the current pane in normal mode, quit
 * last; returns how many were written (at most max). */
size_t keys_footer(const session *c, char keys[][16], const char **labels, size_t max);

/* Fills the help screen with every binding. */
void keys_help(const session *c, textview *tv);

#endif
