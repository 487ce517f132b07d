/* main.c - rigdeck's entry point: options, then batch mode or the console. */
#include <stdio.h>
#include <string.h>

#include "agent_stage.h"
#include "batch.h"
#include "complete.h"
#include "console.h"
#include "daemon.h"
#include "options.h"

int main(int argc, char **argv)
{
    rd_options opt;
    if (argc >= 2 && (strcmp(argv[1], "serve") == 0 || strcmp(argv[1], "agent") == 0))
        return daemon_main(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "agent-stage") == 0)   /* the agent's stager (agent_stage.h) */
        return agent_stage_main(argc - 1, argv + 1);
    int status = options_parse(argc, argv, &opt);
    if (status != 0) {
        options_free(&opt);
        return status < 0 ? 0 : status;
    }
    if (opt.complete) {
        status = complete_run(opt.words, opt.nwords);
    } else if (opt.batch) {
        status = batch_run(&opt);
    } else {
        status = console_run(&opt);
    }
    options_free(&opt);
    return status;
}
