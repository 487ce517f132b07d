/* main.c - rigdeck's entry point: options, then batch mode or the console. */
#include <stdio.h>

#include "batch.h"
#include "options.h"

int main(int argc, char **argv)
{
    rd_options opt;
    int status = options_parse(argc, argv, &opt);
    if (status != 0) {
        options_free(&opt);
        return status < 0 ? 0 : status;
    }
    if (opt.batch) {
        status = batch_run(&opt);
    } else {
        /* The console is built by a later issue; say so instead of faking one. */
        fprintf(stderr, "rigdeck: the full-screen console is not built yet; use 'rigdeck --batch' "
                        "(see 'rigdeck --help' and 'rigdeck --batch -c help')\n");
        status = 2;
    }
    options_free(&opt);
    return status;
}
