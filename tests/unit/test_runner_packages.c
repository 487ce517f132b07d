/* Unit tests of the packages prelude (core/agent/runner_packages.c): the
 * generated text, and the text run by a real /bin/sh against stand-in
 * installers (apt-get, conda, python3 on a private PATH) that record the
 * words they were given, so quoting and order are checked as the shell
 * sees them; and of matching versions (core/jobs/environment.c). */
#include "testutil.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "environment.h"
#include "runner_packages.h"

static char root[1024];

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    static char buf[65536];
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    return buf;
}

static void write_file(const char *path, const char *text, int mode)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    chmod(path, (mode_t)mode);
}

/* A stand-in installer: appends "NAME: ARG|ARG|...\n" to $ROOT/calls and
 * exits with $FAIL_NAME's value (0 unless set). */
static void stub(const char *dir, const char *name)
{
    char path[2048], text[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(text, sizeof text,
             "#!/bin/sh\n"
             "printf '%%s:' '%s' >>\"$CALLS\"\n"
             "for a in \"$@\"; do printf ' [%%s]' \"$a\" >>\"$CALLS\"; done\n"
             "echo >>\"$CALLS\"\n"
             "echo 'progress line from %s'\n"
             "if [ \"${FAIL_WHO:-}\" = '%s' ]; then\n"
             "  echo 'ERROR: Could not find a version that satisfies the requirement nosuch==1.0' >&2\n"
             "  echo 'ERROR: No matching distribution found for nosuch==1.0' >&2\n"
             "  echo '' ; exit 1\n"
             "fi\n"
             "exit 0\n",
             name, name, name);
    write_file(path, text, 0755);
}

/* Runs script with /bin/sh -c on PATH=bin:/usr/bin:/bin, output into out;
 * returns the exit status. */
static int run_script(const char *script, const char *bin, const char *out, const char *fail_who,
                      const char *model)
{
    char path[2200], calls[2048];
    snprintf(path, sizeof path, "%s:/usr/bin:/bin", bin);
    snprintf(calls, sizeof calls, "%s/calls", root);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        dup2(fd, 1);
        dup2(fd, 2);
        setenv("PATH", path, 1);
        setenv("CALLS", calls, 1);
        setenv("TMPDIR", root, 1);
        if (fail_who)
            setenv("FAIL_WHO", fail_who, 1);
        else
            unsetenv("FAIL_WHO");
        if (model)
            setenv("ML_MODEL_PATH", model, 1);
        else
            unsetenv("ML_MODEL_PATH");
        if (chdir(root) != 0)
            _exit(99);
        execl("/bin/sh", "sh", "-c", script, (char *)NULL);
        _exit(98);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static json_t *pk(const char *text)
{
    json_error_t e;
    json_t *v = json_loads(text, 0, &e);
    assert_non_null(v);
    return v;
}

static void test_container_without_packages_runs_the_command_itself(void **state)
{
    (void)state;
    json_t *p = pk("{\"apt\": [], \"conda\": [], \"pip\": []}");
    char *s = runner_packages_script(p, RUNNER_PODMAN, "/w/j/0", "img", "3.9", 0, "echo hi");
    assert_string_equal(s, "echo hi");
    free(s);
    s = runner_packages_script(NULL, RUNNER_DOCKER, "/w/j/0", "img", NULL, 0, "x");
    assert_string_equal(s, "x");
    free(s);
    json_decref(p);
}

static void test_process_says_once_it_runs_on_the_host(void **state)
{
    char out[2048], bin[2048];
    (void)state;
    char *s = runner_packages_script(NULL, RUNNER_PROCESS, root, "nvcr.io/nvidia/mxnet:22.11-py3", "3.8", 0,
                                     "echo \"it's $((1+1))\"");
    const char *host = strstr(s, "runs this worker on the host");
    assert_non_null(host);
    assert_null(strstr(host + 1, "runs this worker on the host"));
    assert_non_null(strstr(s, "not in the image nvcr.io/nvidia/mxnet:22.11-py3"));
    assert_null(strstr(s, ".venv"));   /* nothing to install: no virtual environment */
    snprintf(bin, sizeof bin, "%s/emptybin", root);
    mkdir(bin, 0755);
    snprintf(out, sizeof out, "%s/out-host", root);
    assert_int_equal(run_script(s, bin, out, NULL, NULL), 0);
    const char *text = slurp(out);
    assert_non_null(strstr(text, "rigdeck: the process runtime runs this worker on the host"));
    assert_non_null(strstr(text, "it's 2\n"));
    free(s);
}

/* apt, then conda, then the model's requirements.txt, then pip; every
 * name reaches its installer as one word, exactly as given. */
static void test_order_and_quoting_as_the_shell_sees_them(void **state)
{
    char bin[2048], out[2048], model[2048], req[2200], calls[2048];
    (void)state;
    snprintf(bin, sizeof bin, "%s/bin", root);
    mkdir(bin, 0755);
    stub(bin, "apt-get");
    stub(bin, "conda");
    stub(bin, "python3");
    snprintf(model, sizeof model, "%s/model", root);
    mkdir(model, 0755);
    snprintf(req, sizeof req, "%s/requirements.txt", model);
    write_file(req, "six\n", 0644);
    snprintf(calls, sizeof calls, "%s/calls", root);
    unlink(calls);
    /* hostile names job submit would refuse: the prelude quotes them anyway */
    json_t *p = pk("{\"apt\": [\"libsm6=2:1.2.3\"], \"conda\": [\"numpy=1.24\"],"
                   " \"pip\": [\"wandb==0.15.0\", \"a'b\", \"$(touch PWNED)\", \"x;y `z` \\\"q\\\"\"]}");
    char *s = runner_packages_script(p, RUNNER_PODMAN, "/w/j/0", "img", "3.9", 1, "echo command-ran");
    snprintf(out, sizeof out, "%s/out-order", root);
    assert_int_equal(run_script(s, bin, out, NULL, model), 0);
    const char *c = slurp(calls);
    const char *apt1 = strstr(c, "apt-get: [update]");
    const char *apt2 = strstr(c, "apt-get: [install] [-y] [--no-install-recommends] [libsm6=2:1.2.3]");
    const char *conda = strstr(c, "conda: [install] [-y] [numpy=1.24]");
    const char *reqs = strstr(c, "python3: [-m] [pip] [install] [--disable-pip-version-check] [--no-input] [-r]");
    const char *pip = strstr(c, "python3: [-m] [pip] [install] [--disable-pip-version-check] [--no-input] "
                                "[wandb==0.15.0] [a'b] [$(touch PWNED)] [x;y `z` \"q\"]\n");
    assert_non_null(apt1);
    assert_non_null(apt2);
    assert_non_null(conda);
    assert_non_null(reqs);
    assert_non_null(pip);
    assert_true(apt1 < apt2 && apt2 < conda && conda < reqs && reqs < pip);
    assert_non_null(strstr(reqs, req));
    char pwned[2048];
    snprintf(pwned, sizeof pwned, "%s/PWNED", root);
    assert_int_not_equal(access(pwned, F_OK), 0);
    const char *text = slurp(out);
    assert_non_null(strstr(text, "progress line from apt-get"));   /* installers' output in the log */
    assert_non_null(strstr(text, "\nrigdeck: installing pip packages: wandb==0.15.0 a'b $(touch PWNED) "
                                 "x;y `z` \"q\"\n"));
    const char *ready = strstr(text, RUNNER_PACKAGES_READY "\n");
    assert_non_null(ready);
    assert_non_null(strstr(ready, "command-ran"));
    char msg[200];
    assert_int_equal(runner_packages_failure(text, strlen(text), msg, sizeof msg), 0);
    free(s);
    json_decref(p);
}

static void test_a_failed_install_exits_before_the_command_with_its_error_line(void **state)
{
    char bin[2048], out[2048], msg[300];
    (void)state;
    snprintf(bin, sizeof bin, "%s/bin", root);
    json_t *p = pk("{\"pip\": [\"nosuch==1.0\"]}");
    char *s = runner_packages_script(p, RUNNER_DOCKER, "/w/j/0", "img", NULL, 0, "echo command-ran");
    snprintf(out, sizeof out, "%s/out-fail", root);
    assert_int_equal(run_script(s, bin, out, "python3", NULL), RUNNER_PACKAGES_EXIT);
    const char *text = slurp(out);
    assert_null(strstr(text, "command-ran"));
    assert_null(strstr(text, RUNNER_PACKAGES_READY));
    assert_int_equal(runner_packages_failure(text, strlen(text), msg, sizeof msg), 1);
    assert_string_equal(msg, "pip: ERROR: No matching distribution found for nosuch==1.0");
    free(s);
    json_decref(p);
}

static void test_process_runtime_refuses_apt_and_conda(void **state)
{
    char bin[2048], out[2048], msg[300];
    (void)state;
    snprintf(bin, sizeof bin, "%s/bin", root);
    json_t *p = pk("{\"conda\": [\"numpy\"], \"pip\": [\"six\"]}");
    char *s = runner_packages_script(p, RUNNER_PROCESS, root, "", "3.9", 0, "echo command-ran");
    snprintf(out, sizeof out, "%s/out-conda", root);
    assert_int_equal(run_script(s, bin, out, NULL, NULL), RUNNER_PACKAGES_EXIT);
    const char *text = slurp(out);
    assert_null(strstr(text, "command-ran"));
    assert_int_equal(runner_packages_failure(text, strlen(text), msg, sizeof msg), 1);
    assert_non_null(strstr(msg, "conda packages need a container runtime"));
    free(s);
    json_decref(p);
}

static void test_process_runtime_installs_pip_into_a_venv_of_the_worker(void **state)
{
    (void)state;
    json_t *p = pk("{\"pip\": [\"six\"]}");
    char *s = runner_packages_script(p, RUNNER_PROCESS, "/work/job 1/0", "", "3.9", 0, "true");
    assert_non_null(strstr(s, "rd_venv='/work/job 1/0'/.venv"));
    assert_non_null(strstr(s, "-m venv --system-site-packages \"$rd_venv\""));
    assert_non_null(strstr(s, "PATH=\"$rd_venv/bin:$PATH\""));
    assert_non_null(strstr(s, "'python3.9' -c 'import venv, ensurepip' >/dev/null 2>&1 && rd_py='python3.9'"));
    free(s);
    json_decref(p);
}

static void test_failure_is_read_only_from_the_prelude(void **state)
{
    char msg[64];
    (void)state;
    const char *forged = RUNNER_PACKAGES_READY "\n" RUNNER_PACKAGES_FAILED "pip: fake\n";
    assert_int_equal(runner_packages_failure(forged, strlen(forged), msg, sizeof msg), 0);
    const char *ctl = "x\n" RUNNER_PACKAGES_FAILED "apt: E: bad\x1b[0m\r\n";
    assert_int_equal(runner_packages_failure(ctl, strlen(ctl), msg, sizeof msg), 1);
    assert_string_equal(msg, "apt: E: bad [0m");
    assert_int_equal(runner_packages_failure("", 0, msg, sizeof msg), 0);
}

static void test_the_agents_mirror_is_passed_unless_the_job_names_one(void **state)
{
    (void)state;
    setenv("PIP_INDEX_URL", "http://127.0.0.1:1/simple/", 1);
    setenv("PIP_TRUSTED_HOST", "127.0.0.1", 1);
    unsetenv("PIP_EXTRA_INDEX_URL");
    unsetenv("PIP_CERT");
    json_t *env = pk("[\"A=1\", \"PIP_TRUSTED_HOST=mine\"]");
    assert_int_equal(runner_packages_pass_env(env), 1);
    assert_int_equal(json_array_size(env), 3);
    assert_string_equal(json_string_value(json_array_get(env, 1)), "PIP_TRUSTED_HOST=mine");
    assert_string_equal(json_string_value(json_array_get(env, 2)), "PIP_INDEX_URL=http://127.0.0.1:1/simple/");
    json_decref(env);
}

static void test_versions_order_numerically_and_match_by_prefix(void **state)
{
    int prefix;
    (void)state;
    assert_int_equal(environment_version_cmp("1.13", "1.13.1", &prefix), -1);
    assert_int_equal(prefix, 1);
    assert_int_equal(environment_version_cmp("1.1", "1.13.1", &prefix), -1);
    assert_int_equal(prefix, 0);
    assert_int_equal(environment_version_cmp("2.10.0", "2.9.2", &prefix), 1);
    assert_int_equal(prefix, 0);
    assert_int_equal(environment_version_cmp("2.11.0", "2.11.0", &prefix), 0);
    assert_int_equal(prefix, 1);
    assert_int_equal(environment_version_cmp("", "1.0", &prefix), -1);
    assert_int_equal(environment_version_cmp("1.12.1", "1.12", NULL), 1);
}

int main(void)
{
    testutil_tmpdir(root, sizeof root);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_container_without_packages_runs_the_command_itself),
        cmocka_unit_test(test_process_says_once_it_runs_on_the_host),
        cmocka_unit_test(test_order_and_quoting_as_the_shell_sees_them),
        cmocka_unit_test(test_a_failed_install_exits_before_the_command_with_its_error_line),
        cmocka_unit_test(test_process_runtime_refuses_apt_and_conda),
        cmocka_unit_test(test_process_runtime_installs_pip_into_a_venv_of_the_worker),
        cmocka_unit_test(test_failure_is_read_only_from_the_prelude),
        cmocka_unit_test(test_the_agents_mirror_is_passed_unless_the_job_names_one),
        cmocka_unit_test(test_versions_order_numerically_and_match_by_prefix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
