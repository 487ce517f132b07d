/* runtime_podman.c - the podman runtime: `podman run --rm --replace --init
 * --sig-proxy=true ... IMAGE /bin/sh -c COMMAND`, GPUs by CDI name
 * (`--device nvidia.com/gpu=N`, one per GPU).  Its check runs a trivial
 * container from a busybox root file system with --rootfs: no image, no
 * registry; `podman info` answering proves nothing (issue 31: podman
 * answered where crun could not make a container).
 */
#include "runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static rd_code podman_check(const runtime_ops *rt, const char *scratch, rd_err *err)
{
    char rootfs[4200], why[512];
    char *path = runner_find_program(rt->client);
    rd_code rc;
    if (!path)
        return rd_fail(err, RD_EINVAL, "podman is not installed (not on PATH)");
    free(path);
    if ((rc = runtime_check_rootfs(scratch, rootfs, sizeof rootfs, err)) != RD_OK)
        return rc;
    char *argv[] = { (char *)"podman", (char *)"run", (char *)"--rm", (char *)"--init", (char *)"--sig-proxy=true",
                     (char *)"--rootfs", rootfs, (char *)"/bin/sh", (char *)"-c", (char *)"exit 0", NULL };
    int status = runtime_check_run(scratch, argv, why, sizeof why);
    if (status == 0)
        return RD_OK;
    return rd_fail(err, RD_EINVAL, "%s", why[0] ? why : "podman run failed");
}

static void podman_plan(const runtime_ops *rt, const runtime_plan_in *in, runner_strv *argv, runner_strv *envp,
                        runner_plan *plan)
{
    runner_strv_add(argv, rt->client);
    runner_strv_add(argv, "run");
    runner_strv_add(argv, "--rm");
    /* a stale container of the same name from a lost worker must not
     * block the start */
    runner_strv_add(argv, "--replace");
    runtime_container_common(in, argv, envp);
    for (const char *p = in->ngpu > 0 ? in->spec->gpus : ""; *p;) {
        size_t n = strcspn(p, ",");
        runner_strv_add(argv, "--device");
        runner_strv_addf(argv, "nvidia.com/gpu=%.*s", (int)n, p);
        p += n + (p[n] == ',');
    }
    runtime_container_finish(rt, in, argv, plan);
}

/* The image, pulled only when this node lacks it (runtime_pull_argv). */
static void podman_pull(const runtime_ops *rt, const runtime_plan_in *in, const char *client, runner_strv *argv)
{
    (void)rt;
    runtime_pull_argv(in, client, "\"$1\" image exists \"$2\" || \"$1\" pull \"$2\"", argv);
}

const runtime_ops runtime_podman = {
    .name = "podman",
    .kind = RUNNER_PODMAN,
    .client = "podman",
    .container = 1,
    .check = podman_check,
    .plan = podman_plan,
    .pull = podman_pull,
    .stop = runtime_stop_kill,
};
