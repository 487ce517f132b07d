/* runtime_process.c - the process runtime: `/bin/sh -c COMMAND` on the host,
 * in the worker's directory, with a clean environment (runner.h).  Its
 * check always passes: the host's shell is what every agent already needs.
 */
#include "runtime.h"
#include "runner_limits.h"

#include <stdlib.h>
#include <string.h>

static rd_code process_check(const runtime_ops *rt, const char *scratch, rd_err *err)
{
    (void)rt;
    (void)scratch;
    (void)err;
    return RD_OK;
}

/* PATH, HOME and LANG when the agent has them, then the job's and the
 * system's variables. */
static void process_plan(const runtime_ops *rt, const runtime_plan_in *in, runner_strv *argv, runner_strv *envp,
                         runner_plan *plan)
{
    static const char *const keep[] = { "PATH", "HOME", "LANG" };
    (void)rt;
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
        const char *v = getenv(keep[i]);
        if (v)
            runner_strv_addf(envp, "%s=%s", keep[i], v);
    }
    if (!getenv("PATH"))
        runner_strv_add(envp, "PATH=/usr/local/bin:/usr/bin:/bin");
    for (size_t i = 0; i < in->vars->n; i++)
        runner_env_set(envp, in->vars->v[i]);
    runner_strv_add(argv, "sh");
    runner_strv_add(argv, "-c");
    runner_strv_add(argv, in->spec->command);
    plan->path = strdup("/bin/sh");
    /* pinned to as many CPUs as its share (runner_limits.c), before exec */
    plan->pin = in->spec->cpu_list && *in->spec->cpu_list && limits_cpu_list_parse(in->spec->cpu_list, &plan->cpus) == 0;
    plan->record = strdup("kind process\n");
}

const runtime_ops runtime_process = {
    .name = "process",
    .kind = RUNNER_PROCESS,
    .client = NULL,
    .container = 0,
    .check = process_check,
    .plan = process_plan,
    .stop = NULL,
};
