/* datakey_file.c - what a key file of each type must hold (data.h,
 * execution.md §5), checked before the text is sealed.
 *
 * A refusal names the flag, the line number and the rule, never a byte of
 * the file: whatever is in it may be a secret, and refusals land on
 * terminals, in logs and in relayed answers (docs/security.md).  Variable
 * names are quoted only when they are the rule's own ("AWS_ACCESS_KEY_ID").
 */
#include "data.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "gcp_key.h"

#define TOKEN_MAX 4096

const char *const datakey_types[] = { "aws", "gcp", "azure", "wasabi", "git", "huggingface", "wandb", "env", NULL };

int datakey_type_known(const char *type)
{
    for (const char *const *t = datakey_types; *t; t++)
        if (type && strcmp(*t, type) == 0)
            return 1;
    return 0;
}

/* The text's lines, one at a time: *line and *n (without "\r\n"); 0 at
 * the end. */
typedef struct {
    const char *p, *end;
    size_t no;
} lines;

static int next_line(lines *l, const char **line, size_t *n)
{
    if (l->p >= l->end)
        return 0;
    const char *nl = memchr(l->p, '\n', (size_t)(l->end - l->p));
    const char *stop = nl ? nl : l->end;
    *line = l->p;
    *n = (size_t)(stop - l->p);
    if (*n > 0 && (*line)[*n - 1] == '\r')
        (*n)--;
    l->p = nl ? nl + 1 : l->end;
    l->no++;
    return 1;
}

static int blank_or_comment(const char *line, size_t n)
{
    size_t i = 0;
    while (i < n && (line[i] == ' ' || line[i] == '\t'))
        i++;
    return i == n || line[i] == '#';
}

static int var_name_ok(const char *s, size_t n)
{
    if (n == 0 || n > 128 || (s[0] >= '0' && s[0] <= '9'))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
              s[i] == '_'))
            return 0;
    return 1;
}

static int has_control(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < ' ' && s[i] != '\t')
            return 1;
    return 0;
}

static int eq(const char *s, size_t n, const char *word)
{
    return strlen(word) == n && memcmp(s, word, n) == 0;
}

/* env (and aws/wasabi, which are env lines of fixed names): NAME=VALUE
 * lines, blank lines and # comments. */
static rd_code check_env_lines(const char *type, const char *field, const char *text, size_t len, rd_err *err)
{
    static const char *const aws_names[] = { "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
                                             "AWS_REGION", "AWS_DEFAULT_REGION", NULL };
    int aws = strcmp(type, "env") != 0;
    lines l = { text, text + len, 0 };
    const char *line;
    size_t n, seen = 0, id_line = 0, secret_line = 0;
    json_t *names = json_object();
    rd_code rc = names ? RD_OK : rd_fail(err, RD_ENOMEM, "out of memory");
    while (rc == RD_OK && next_line(&l, &line, &n)) {
        if (blank_or_comment(line, n))
            continue;
        const char *eqs = memchr(line, '=', n);
        size_t k = eqs ? (size_t)(eqs - line) : 0;
        char name[129];
        if (!eqs || !var_name_ok(line, k)) {
            rc = rd_fail(err, RD_EINVAL, "%s line %zu: not a NAME=VALUE line (NAME: letters, digits and '_', not "
                         "starting with a digit)", field, l.no);
            break;
        }
        memcpy(name, line, k);
        name[k] = '\0';
        if (has_control(eqs + 1, n - k - 1))
            rc = rd_fail(err, RD_EINVAL, "%s line %zu: the value holds a control character", field, l.no);
        else if (!aws && (strncmp(name, "RIGDECK_", 8) == 0 || (strncmp(name, "ML_", 3) == 0 && k > 8 &&
                                                               strcmp(name + k - 5, "_PATH") == 0)))
            rc = rd_fail(err, RD_EINVAL, "%s line %zu: RIGDECK_* and ML_*_PATH variables are rigdeck's own (a "
                         "worker's name, its data folders)", field, l.no);
        else if (json_object_get(names, name))
            rc = rd_fail(err, RD_EINVAL, "%s line %zu: the variable of line %d is set again", field, l.no,
                         (int)json_integer_value(json_object_get(names, name)));
        else if (aws) {
            int known = 0;
            for (const char *const *a = aws_names; *a; a++)
                known |= eq(line, k, *a);
            if (!known)
                rc = rd_fail(err, RD_EINVAL, "%s line %zu: %s keys take only AWS_ACCESS_KEY_ID, "
                             "AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION and AWS_DEFAULT_REGION", field,
                             l.no, type);
            else if (n == k + 1)
                rc = rd_fail(err, RD_EINVAL, "%s line %zu: the value is empty", field, l.no);
            if (eq(line, k, "AWS_ACCESS_KEY_ID"))
                id_line = l.no;
            if (eq(line, k, "AWS_SECRET_ACCESS_KEY"))
                secret_line = l.no;
        }
        json_object_set_new(names, name, json_integer((json_int_t)l.no));
        seen++;
    }
    json_decref(names);
    if (rc != RD_OK)
        return rc;
    if (aws && !id_line)
        return rd_fail(err, RD_EINVAL, "%s: %s keys need an AWS_ACCESS_KEY_ID=... line", field, type);
    if (aws && !secret_line)
        return rd_fail(err, RD_EINVAL, "%s: %s keys need an AWS_SECRET_ACCESS_KEY=... line", field, type);
    if (!seen)
        return rd_fail(err, RD_EINVAL, "%s: an env key needs at least one NAME=VALUE line", field);
    return RD_OK;
}

/* The text without trailing blank lines has exactly one line: *n its length. */
static rd_code one_line(const char *field, const char *what, const char *text, size_t len, size_t *n, rd_err *err)
{
    while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r' || text[len - 1] == ' ' || text[len - 1] == '\t'))
        len--;
    if (len == 0)
        return rd_fail(err, RD_EINVAL, "%s: the file is empty; it must hold %s on one line", field, what);
    if (memchr(text, '\n', len))
        return rd_fail(err, RD_EINVAL, "%s line 2: the file must hold %s on one line only", field, what);
    *n = len;
    return RD_OK;
}

static rd_code check_token(const char *field, const char *text, size_t len, rd_err *err)
{
    size_t n;
    rd_code rc = one_line(field, "the token", text, len, &n, err);
    if (rc != RD_OK)
        return rc;
    if (n > TOKEN_MAX)
        return rd_fail(err, RD_EINVAL, "%s line 1: a token is at most %d characters", field, TOKEN_MAX);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)text[i] <= ' ' || text[i] == 0x7f)
            return rd_fail(err, RD_EINVAL, "%s line 1: the token holds a space or control character at column %zu",
                           field, i + 1);
    return RD_OK;
}

/* An Azure storage connection string: Key=Value parts separated by ';'. */
static rd_code check_azure(const char *field, const char *text, size_t len, rd_err *err)
{
    size_t n;
    int name = 0, key = 0, sas = 0;
    rd_code rc = one_line(field, "the connection string", text, len, &n, err);
    for (size_t i = 0; rc == RD_OK && i < n;) {
        const char *part = text + i, *semi = memchr(part, ';', n - i);
        size_t m = semi ? (size_t)(semi - part) : n - i;
        const char *eqs = memchr(part, '=', m);
        if (m > 0) {
            if (!eqs || eqs == part || has_control(part, m))
                return rd_fail(err, RD_EINVAL, "%s line 1: a connection string is Name=Value parts separated by ';'",
                               field);
            size_t k = (size_t)(eqs - part);
            int filled = m > k + 1;
            name |= eq(part, k, "AccountName") && filled;
            key |= eq(part, k, "AccountKey") && filled;
            sas |= eq(part, k, "SharedAccessSignature") && filled;
        }
        i += m + 1;
    }
    if (rc == RD_OK && !sas && !(name && key))
        rc = rd_fail(err, RD_EINVAL, "%s: an azure key is a connection string with AccountName= and AccountKey=, or "
                     "with SharedAccessSignature=", field);
    return rc;
}

/* An SSH private key as ssh-keygen writes it: an OpenSSH or PEM block. */
static rd_code check_git(const char *field, const char *text, size_t len, rd_err *err)
{
    static const char *const kinds[] = { "OPENSSH", "RSA", "EC", "DSA", NULL };
    lines l = { text, text + len, 0 };
    const char *line;
    size_t n, begin = 0, end = 0;
    char want[64] = "", head[64];
    while (next_line(&l, &line, &n)) {
        if (!begin) {
            if (blank_or_comment(line, n))
                continue;
            if (n > 4 && (memcmp(line, "ssh-", 4) == 0 || memcmp(line, "ecdsa-", 6) == 0))
                return rd_fail(err, RD_EINVAL, "%s line %zu: this is a public key; a git key is the private key "
                               "(the file without .pub)", field, l.no);
            if (eq(line, n, "-----BEGIN ENCRYPTED PRIVATE KEY-----"))
                return rd_fail(err, RD_EINVAL, "%s line %zu: the private key is encrypted; jobs clone unattended, "
                               "so give a key without a passphrase", field, l.no);
            for (const char *const *k = kinds; *k && !begin; k++) {
                snprintf(head, sizeof head, "-----BEGIN %s PRIVATE KEY-----", *k);
                if (eq(line, n, head)) {
                    begin = l.no;
                    snprintf(want, sizeof want, "-----END %s PRIVATE KEY-----", *k);
                }
            }
            if (!begin)
                return rd_fail(err, RD_EINVAL, "%s line %zu: a git key starts with -----BEGIN OPENSSH PRIVATE "
                               "KEY----- (or the RSA, EC or DSA PEM form)", field, l.no);
            continue;
        }
        if (!end && n >= 9 && memcmp(line, "Proc-Type", 9) == 0 && memmem(line, n, "ENCRYPTED", 9))
            return rd_fail(err, RD_EINVAL, "%s line %zu: the private key is encrypted; jobs clone unattended, so "
                           "give a key without a passphrase", field, l.no);
        if (!end && eq(line, n, want))
            end = l.no;
        else if (end && !blank_or_comment(line, n))
            return rd_fail(err, RD_EINVAL, "%s line %zu: text after the key's END line", field, l.no);
    }
    if (!begin)
        return rd_fail(err, RD_EINVAL, "%s: the file is empty; a git key is an SSH private key", field);
    if (!end || end == begin + 1)
        return rd_fail(err, RD_EINVAL, "%s: the key that starts on line %zu has no body or no matching END line",
                       field, begin);
    return RD_OK;
}

rd_code datakey_file_check(const char *type, const char *field, const char *text, size_t len, rd_err *err)
{
    if (memchr(text, '\0', len))
        return rd_fail(err, RD_EINVAL, "%s: the file holds a NUL byte; a key file is text", field);
    if (strcmp(type, "aws") == 0 || strcmp(type, "wasabi") == 0 || strcmp(type, "env") == 0)
        return check_env_lines(type, field, text, len, err);
    if (strcmp(type, "huggingface") == 0 || strcmp(type, "wandb") == 0)
        return check_token(field, text, len, err);
    if (strcmp(type, "azure") == 0)
        return check_azure(field, text, len, err);
    if (strcmp(type, "git") == 0)
        return check_git(field, text, len, err);
    if (strcmp(type, "gcp") == 0) {
        gcp_sa_key k;
        rd_err inner;
        rd_code rc = gcp_key_parse(text, len, &k, &inner);
        gcp_key_free(&k);
        /* gcp_key_parse names fields, never their values */
        return rc == RD_OK ? RD_OK : rd_fail(err, rc, "%s: %s", field, inner.msg);
    }
    return rd_fail(err, RD_EINVAL, "--type must be one of aws, gcp, azure, wasabi, git, huggingface, wandb, env, got "
                   "'%s'", type);
}
