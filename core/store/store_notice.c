/* store_notice.c - who is told of long one-time work while a store opens.
 *
 * core/ never writes to the terminal: the front end (console, --batch,
 * serve, agent) hands in a function with store_set_notice and decides how
 * the operator sees the message: the schema upgrade of an older SQLite
 * file (store_sqlite_conn.c), and the documents of an older store upgraded
 * before its first write (cmd_ctx_upgrade, either backend).  A file of its own
 * so that a backend can call it without calling back into store_open.c,
 * which calls the backends.
 */
#include "store_backend.h"

#include <stdarg.h>
#include <stdio.h>

static store_notice_fn notice_fn;
static void *notice_data;

void store_set_notice(store_notice_fn fn, void *data)
{
    notice_fn = fn;
    notice_data = data;
}

void store_notice(int done, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    if (!notice_fn)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    notice_fn(notice_data, done, msg);
}
