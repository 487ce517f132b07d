/* modes.h - dispatching a key by the session's input mode (normal, ':'
 * prompt, '/' filter, view, help, y/n question, form).
 */
#ifndef RD_MODES_H
#define RD_MODES_H

#include "session.h"

/* Handles one key (console key code, see keycode.h) in the current mode;
 * returns what the loop should do next.  Below the minimum terminal size
 * only the keys keys_allows_size() lets through act. */
act_result modes_handle_key(session *c, int key);

#endif
