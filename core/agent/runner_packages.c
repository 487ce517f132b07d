/* runner_packages.c - the prelude that installs a worker's packages before
 * its command (runner_packages.h).
 *
 * The prelude is POSIX sh, run by the image's /bin/sh (or the host's): no
 * pipefail, so each installer runs as `{ CMD 2>&1; echo $? >RC; } | tee
 * OUT`, which streams its output to the log and keeps its exit status and
 * its text for the one-line message of a failure.  Everything the job gave
 * is single-quoted; nothing of it is ever interpreted by the shell.
 */
#include "runner_packages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- quoting ------------------------------------------------------------- */

/* s as one single-quoted shell word ('it'\''s'). */
static void put_quoted(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputs("'\\''", f);
        else
            fputc(*s, f);
    }
    fputc('\'', f);
}

/* Each string of list as a quoted word, space before each. */
static void put_words(FILE *f, const json_t *list)
{
    size_t i;
    const json_t *v;
    json_array_foreach(list, i, v)
        if (json_is_string(v)) {
            fputc(' ', f);
            put_quoted(f, json_string_value(v));
        }
}

/* "rigdeck: installing KIND packages: a b" (the names as given, quoted). */
static void put_announce(FILE *f, const char *kind, const json_t *list)
{
    fprintf(f, "printf '%%s' 'rigdeck: installing %s packages:'; printf ' %%s'", kind);
    put_words(f, list);
    fputs("; echo\n", f);
}

static size_t count(const json_t *packages, const char *kind)
{
    return json_array_size(json_object_get(packages, kind));
}

/* ---- the prelude ----------------------------------------------------------- */

/* rd_fail MSG: the failure line, then the exit that tells the agent.
 * rd_step LABEL CMD...: runs an installer, its output streamed; on a
 * failure, rd_fail with its last line mentioning an error (else its last
 * line). */
static void put_functions(FILE *f, const char *tmp /* the worker's dir, or NULL: the container's /tmp */)
{
    fprintf(f, "rd_fail() { printf '%%s%%s\\n' '%s' \"$1\"; exit %d; }\n", RUNNER_PACKAGES_FAILED,
            RUNNER_PACKAGES_EXIT);
    fputs("rd_tee() { if command -v tee >/dev/null 2>&1; then tee \"$1\"; else cat >\"$1\"; cat \"$1\"; fi; }\n", f);
    fputs("rd_out=", f);
    if (tmp) {
        put_quoted(f, tmp);
        fputs("/.rigdeck-packages\n", f);
    } else {
        fputs("\"${TMPDIR:-/tmp}/rigdeck-packages.$$\"\n", f);
    }
    fputs("rd_step() {\n"
          "    rd_label=$1; shift\n"
          "    { \"$@\" 2>&1; echo $? >\"$rd_out.rc\"; } | rd_tee \"$rd_out\"\n"
          "    rd_rc=$(cat \"$rd_out.rc\" 2>/dev/null); rd_rc=${rd_rc:-1}\n"
          "    if [ \"$rd_rc\" != 0 ]; then\n"
          "        rd_msg=$(grep -i 'error' \"$rd_out\" 2>/dev/null | tail -n 1)\n"
          "        [ -n \"$rd_msg\" ] || rd_msg=$(grep -v '^[[:space:]]*$' \"$rd_out\" 2>/dev/null | tail -n 1)\n"
          "        rm -f \"$rd_out\" \"$rd_out.rc\"\n"
          "        rd_fail \"$rd_label: ${rd_msg:-exited $rd_rc}\"\n"
          "    fi\n"
          "    rm -f \"$rd_out\" \"$rd_out.rc\"\n"
          "}\n",
          f);
}

static void put_system_packages(FILE *f, const json_t *packages, int container)
{
    const json_t *apt = json_object_get(packages, "apt"), *conda = json_object_get(packages, "conda");
    if (!container && (json_array_size(apt) || json_array_size(conda))) {
        fprintf(f, "rd_fail '%s packages need a container runtime (podman or docker): this node runs its workers "
                   "with the process runtime, on the host'\n",
                json_array_size(apt) ? "apt" : "conda");
        return;
    }
    if (json_array_size(apt)) {
        put_announce(f, "apt", apt);
        fputs("command -v apt-get >/dev/null 2>&1 || rd_fail 'apt: apt-get is not in the image'\n"
              "DEBIAN_FRONTEND=noninteractive; export DEBIAN_FRONTEND\n"
              "rd_step apt apt-get update\n"
              "rd_step apt apt-get install -y --no-install-recommends",
              f);
        put_words(f, apt);
        fputs("\n", f);
    }
    if (json_array_size(conda)) {
        put_announce(f, "conda", conda);
        fputs("command -v conda >/dev/null 2>&1 || rd_fail 'conda: conda is not in the image'\n"
              "rd_step conda conda install -y",
              f);
        put_words(f, conda);
        fputs("\n", f);
    }
}

/* The model's requirements.txt, then the pip packages; on the process
 * runtime into DIR/.venv, made only when there is something to install. */
static void put_python_packages(FILE *f, const json_t *pip, int container, const char *dir, const char *python,
                                int has_model)
{
    size_t npip = json_array_size(pip);
    if (has_model) {
        fputs("rd_models=", f);
        if (container) {
            put_quoted(f, "/opt/ml/models");
        } else {
            put_quoted(f, dir);
            fputs("/opt/ml/models", f);
        }
        fputs("\nrd_req=\"${ML_MODEL_PATH:-$rd_models}/requirements.txt\"\n", f);
    } else {
        fputs("rd_req=\n", f);
    }
    fprintf(f, "if [ %d = 1 ] || { [ -n \"$rd_req\" ] && [ -f \"$rd_req\" ]; }; then\n", npip > 0);
    if (container) {
        fputs("    rd_py=python3; command -v python3 >/dev/null 2>&1 || rd_py=python\n"
              "    command -v \"$rd_py\" >/dev/null 2>&1 || rd_fail 'pip: there is no python in the image'\n",
              f);
    } else {
        fputs("    rd_venv=", f);
        put_quoted(f, dir);
        fputs("/.venv\n", f);
        fputs("    if [ ! -x \"$rd_venv/bin/python\" ]; then\n"
              "        rd_py=python3\n",
              f);
        if (python && *python) {
            /* the job's Python when the host has one that works (a pyenv
             * shim may name a version it will not run) */
            fputs("        ", f);
            char want[32];
            snprintf(want, sizeof want, "python%s", python);
            put_quoted(f, want);
            fputs(" -c 'import venv, ensurepip' >/dev/null 2>&1 && rd_py=", f);
            put_quoted(f, want);
            fputs("\n", f);
        }
        fputs("        printf '%s\\n' \"rigdeck: making a virtual environment for pip with $rd_py in $rd_venv\"\n"
              "        rd_step venv \"$rd_py\" -m venv --system-site-packages \"$rd_venv\"\n"
              "    fi\n"
              "    PATH=\"$rd_venv/bin:$PATH\"; VIRTUAL_ENV=$rd_venv; export PATH VIRTUAL_ENV\n"
              "    rd_py=\"$rd_venv/bin/python\"\n",
              f);
    }
    fputs("    if [ -n \"$rd_req\" ] && [ -f \"$rd_req\" ]; then\n"
          "        printf '%s\\n' \"rigdeck: installing $rd_req\"\n"
          "        rd_step requirements.txt \"$rd_py\" -m pip install --disable-pip-version-check --no-input -r "
          "\"$rd_req\"\n"
          "    fi\n",
          f);
    if (npip) {
        fputs("    ", f);
        put_announce(f, "pip", pip);
        fputs("    rd_step pip \"$rd_py\" -m pip install --disable-pip-version-check --no-input", f);
        put_words(f, pip);
        fputs("\n", f);
    }
    fputs("fi\n", f);
}

char *runner_packages_script(const json_t *packages, runner_kind kind, const char *dir, const char *image,
                             const char *python, int has_model, const char *command)
{
    int container = kind != RUNNER_PROCESS;
    size_t n = count(packages, "apt") + count(packages, "conda") + count(packages, "pip");
    char *text = NULL;
    size_t len = 0;
    FILE *f;
    if (container && n == 0 && !has_model)
        return strdup(command);
    if (!(f = open_memstream(&text, &len)))
        return NULL;
    if (!container) {
        fputs("printf '%s\\n' ", f);
        if (image && *image) {
            char line[700];
            snprintf(line, sizeof line, "rigdeck: the process runtime runs this worker on the host, with the "
                                        "host's programs and libraries, not in the image %s", image);
            put_quoted(f, line);
        } else {
            put_quoted(f, "rigdeck: the process runtime runs this worker on the host, with the host's programs "
                          "and libraries, not in a container");
        }
        fputs("\n", f);
    }
    if (n || has_model) {
        put_functions(f, container ? NULL : dir);
        put_system_packages(f, packages, container);
        put_python_packages(f, json_object_get(packages, "pip"), container, dir, python, has_model);
        if (n)
            fputs("printf '%s\\n' '" RUNNER_PACKAGES_READY "'\n", f);
    }
    fputs("exec /bin/sh -c ", f);
    put_quoted(f, command);
    fputs("\n", f);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* ---- what the agent reads back ------------------------------------------------ */

int runner_packages_failure(const char *log, size_t len, char *msg, size_t msglen)
{
    size_t plen = strlen(RUNNER_PACKAGES_FAILED), rlen = strlen(RUNNER_PACKAGES_READY);
    const char *found = NULL, *end = log + len, *p = log;
    size_t flen = 0;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)((nl ? nl : end) - p);
        if (n && p[n - 1] == '\r')
            n--;
        if (n == rlen && memcmp(p, RUNNER_PACKAGES_READY, rlen) == 0)
            return 0;   /* installed: what follows is the command's */
        if (n >= plen && memcmp(p, RUNNER_PACKAGES_FAILED, plen) == 0) {
            found = p + plen;
            flen = n - plen;
        }
        p = nl ? nl + 1 : end;
    }
    if (!found || msglen == 0)
        return 0;
    size_t j = 0;
    for (size_t i = 0; i < flen && j + 1 < msglen; i++)
        msg[j++] = found[i] >= ' ' && found[i] <= '~' ? found[i] : ' ';
    msg[j] = '\0';
    return 1;
}

int runner_packages_pass_env(json_t *env)
{
    static const char *const names[] = { "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_TRUSTED_HOST", "PIP_CERT",
                                         NULL };
    for (const char *const *n = names; *n; n++) {
        const char *v = getenv(*n);
        size_t i, k = strlen(*n);
        const json_t *e;
        int named = 0;
        if (!v)
            continue;
        json_array_foreach(env, i, e) {
            const char *s = json_string_value(e);
            named |= s && strncmp(s, *n, k) == 0 && s[k] == '=';
        }
        if (!named && json_array_append_new(env, json_sprintf("%s=%s", *n, v)) != 0)
            return 0;
    }
    return 1;
}
