/* app.h - the top of core/ (app.c): what the executor asks of the layers
 * above it, installed once. */
#ifndef RD_APP_H
#define RD_APP_H

/* Installs the executor's hooks (cmd_hooks, cmd.h): the command registry
 * (cmd_list.c), a new store's first contents and an older store's upgrades
 * (account_init.c) and the guard (core/access).  It runs by itself before
 * main in every program the Makefile links (LDLIBS_APP); calling it again
 * puts back app's hooks (a test that replaced them).  Until it runs, no
 * command is found and none reaches a store. */
void app_init(void);

#endif
