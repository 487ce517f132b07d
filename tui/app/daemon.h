/* daemon.h - `rigdeck serve` and `rigdeck agent`: options, signals, exit
 * status (daemon.c). */
#ifndef RD_DAEMON_H
#define RD_DAEMON_H

/* Runs the process named by argv[0] ("serve" or "agent") with the options
 * that follow; returns the exit status. */
int daemon_main(int argc, char **argv);

#endif
