/* main.c - rigdeck's entry point: options, then batch mode or the console. */
#include <stdio.h>

#include "batch.h"
#include "complete.h"
#include "console.h"
#include "options.h"

int main(int argc, char **argv)
{
    rd_options opt;
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
