/* cmd_file.c - the one way a command handler reads a file its line names
 * (`job submit FILE`, `--inventory FILE`, `--password-file F`,
 * `--key-file FILE`, `metrics import NODE FILE`, `store credentials
 * --password-file PATH`).
 *
 * Run in batch or the console, the file is on the user's own disk and read
 * with the user's own permissions.  Run by the controller for a relayed
 * request (ctx->relay_req_key set), the line was written by someone who
 * may not read the controller's disk at all, so the path is only a name:
 * it resolves to the text its sender sent with the request
 * (ctx->relay_files) and to nothing else.  This file never opens a path
 * then, and a path that was not sent is refused with one message whether
 * or not it exists on the controller (docs/security.md, "The request
 * relay").
 */
#include "cmd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The sent text of path, when the request carried one. */
static rd_code file_from_request(const cmd_ctx *ctx, const char *field, const char *path, size_t max, char **text,
                                 size_t *len, rd_err *err)
{
    const json_t *sent = json_object_get(ctx->relay_files, path);
    if (!json_is_string(sent))
        return rd_fail(err, RD_EINVAL, "%s %s: the file was not sent with the request (a relayed command reads "
                       "only the files its sender sent, never the controller's)", field, path);
    size_t n = json_string_length(sent);
    if (n > max)
        return rd_fail(err, RD_EINVAL, "%s %s: larger than %zu bytes", field, path, max);
    if (!(*text = malloc(n + 1)))
        return rd_fail(err, RD_ENOMEM, "out of memory");
    memcpy(*text, json_string_value(sent), n);
    (*text)[n] = '\0';
    *len = n;
    return RD_OK;
}

static rd_code file_from_disk(const char *field, const char *path, size_t max, char **text, size_t *len,
                              rd_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return rd_fail(err, RD_EINVAL, "%s %s: cannot open: %s", field, path, strerror(errno));
    size_t cap = max < 65536 ? max + 1 : 65536, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap || cap > max)
            break;
        size_t more = cap * 2 > max + 1 ? max + 1 : cap * 2;
        char *grown = realloc(buf, more + 1);
        if (!grown) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = grown;
        cap = more;
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf)
        return rd_fail(err, RD_ENOMEM, "out of memory");
    if (bad || n > max) {
        free(buf);
        return bad ? rd_fail(err, RD_EINVAL, "%s %s: cannot read it", field, path)
                   : rd_fail(err, RD_EINVAL, "%s %s: larger than %zu bytes", field, path, max);
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return RD_OK;
}

rd_code cmd_file_read(const cmd_ctx *ctx, const char *field, const char *path, size_t max, char **text,
                      size_t *len, rd_err *err)
{
    *text = NULL;
    *len = 0;
    if (!path)
        return rd_fail(err, RD_EUSAGE, "%s: no file named", field);
    if (ctx->relay_req_key)
        return file_from_request(ctx, field, path, max, text, len, err);
    return file_from_disk(field, path, max, text, len, err);
}

int cmd_file_local(const cmd_ctx *ctx)
{
    return ctx->relay_req_key == NULL;
}
