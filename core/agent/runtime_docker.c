/* runtime_docker.c - the docker runtime: `docker run --rm --init
 * --sig-proxy=true ... IMAGE /bin/sh -c COMMAND`, GPUs as
 * `--gpus "device=0,2"`.  Its check imports a busybox root file system as
 * a local image (`docker import`: no registry) and runs a trivial container
 * of it; `docker info` answering proves nothing.
 */
#include "runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_IMAGE "rigdeck/runtime-check:1"

static rd_code docker_check(const runtime_ops *rt, const char *scratch, rd_err *err)
{
    char rootfs[4200], why[512], tar[4300];
    char *path = runner_find_program(rt->client);
    rd_code rc;
    if (!path)
        return rd_fail(err, RD_EINVAL, "docker is not installed (not on PATH)");
    free(path);
    if ((rc = runtime_check_rootfs(scratch, rootfs, sizeof rootfs, err)) != RD_OK)
        return rc;
    /* the archive first, so that a failing import says docker's words */
    snprintf(tar, sizeof tar, "%s/rootfs.tar", scratch);
    char *pack[] = { (char *)"tar", (char *)"-C", rootfs, (char *)"-cf", tar, (char *)".", NULL };
    if (runtime_check_run(scratch, pack, why, sizeof why) != 0)
        return rd_fail(err, RD_EINVAL, "cannot pack the check's root file system: %s", why);
    char *import[] = { (char *)"docker", (char *)"import", tar, (char *)CHECK_IMAGE, NULL };
    if (runtime_check_run(scratch, import, why, sizeof why) != 0)
        return rd_fail(err, RD_EINVAL, "%s", why[0] ? why : "docker import failed");
    char *run[] = { (char *)"docker", (char *)"run", (char *)"--rm", (char *)"--init", (char *)"--sig-proxy=true",
                    (char *)CHECK_IMAGE, (char *)"/bin/sh", (char *)"-c", (char *)"exit 0", NULL };
    if (runtime_check_run(scratch, run, why, sizeof why) != 0)
        return rd_fail(err, RD_EINVAL, "%s", why[0] ? why : "docker run failed");
    return RD_OK;
}

static void docker_plan(const runtime_ops *rt, const runtime_plan_in *in, runner_strv *argv, runner_strv *envp,
                        runner_plan *plan)
{
    runner_strv_add(argv, rt->client);
    runner_strv_add(argv, "run");
    runner_strv_add(argv, "--rm");
    runtime_container_common(in, argv, envp);
    if (in->ngpu > 0) {
        /* The quotes belong to the value: docker splits --gpus on ','. */
        runner_strv_add(argv, "--gpus");
        runner_strv_addf(argv, "\"device=%s\"", in->spec->gpus);
    }
    runtime_container_finish(rt, in, argv, plan);
}

/* The image, pulled only when this node lacks it (runtime_pull_argv). */
static void docker_pull(const runtime_ops *rt, const runtime_plan_in *in, const char *client, runner_strv *argv)
{
    (void)rt;
    runtime_pull_argv(in, client, "\"$1\" image inspect \"$2\" >/dev/null 2>&1 || \"$1\" pull \"$2\"", argv);
}

const runtime_ops runtime_docker = {
    .name = "docker",
    .kind = RUNNER_DOCKER,
    .client = "docker",
    .container = 1,
    .check = docker_check,
    .plan = docker_plan,
    .pull = docker_pull,
    .stop = runtime_stop_kill,
};
