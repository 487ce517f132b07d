/* cmd_hooks.c - what the executor asks of the layers above it (cmd_hooks,
 * cmd.h): kept here, set once by core/app at start-up.  A file of its own
 * so that cmd.c and cmd_help.c both read it without calling each other.
 */
#include "cmd.h"

static cmd_hooks hooks;
static int installed;

void cmd_set_hooks(const cmd_hooks *h)
{
    hooks = *h;
    installed = 1;
}

const cmd_hooks *cmd_get_hooks(void)
{
    return installed ? &hooks : NULL;
}
