/* tx_pick.c - documents under a prefix, a few fields each (see tx_pick.h).
 *
 * Pages of the store are read at the revision of the first page, so the
 * reader sees one state of the store however long it takes; each value is
 * picked from its text (docpick.c) and the rest of it never decoded, which
 * is what makes a list of 100,000 jobs cheap.  Like tx_scan it reads the
 * store as committed: the list commands that use it write nothing.
 */
#include "tx_pick.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "docpick.h"

enum { PICK_PAGE = 256 };

rd_code tx_pick_names_parse(const char *flag, const char *text, tx_pick_names *out, rd_err *err)
{
    memset(out, 0, sizeof *out);
    if (strlen(text) >= sizeof out->text)
        return rd_fail(err, RD_EINVAL, "%s is too long (at most %zu characters)", flag, sizeof out->text - 1);
    strcpy(out->text, text);
    for (char *p = out->text;;) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        size_t word = strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789_");
        /* "workers.state": one level down, as docpick reads it */
        size_t sub = p[word] == '.' ? strspn(p + word + 1, "abcdefghijklmnopqrstuvwxyz0123456789_") : 0;
        if (!word || (p[word] && !(p[word] == '.' && sub && !p[word + 1 + sub])))
            return rd_fail(err, RD_EINVAL,
                           "%s takes field names (a-z, 0-9, _; FIELD.SUB for a part) separated by commas, got '%s'",
                           flag, text);
        if (out->n == TX_PICK_ASK_MAX)
            return rd_fail(err, RD_EINVAL, "%s takes at most %d fields", flag, TX_PICK_ASK_MAX);
        if (!tx_pick_names_has(out, p))
            out->names[out->n++] = p;
        if (!comma)
            return RD_OK;
        p = comma + 1;
    }
}

rd_code tx_pick_names_check(const tx_pick_names *f, const char *flag, const char *const *known, rd_err *err)
{
    for (size_t i = 0; i < f->n; i++) {
        size_t head = strcspn(f->names[i], ".");
        size_t k;
        for (k = 0; known[k]; k++)
            if (strlen(known[k]) == head && strncmp(known[k], f->names[i], head) == 0)
                break;
        if (known[k])
            continue;
        /* the whole list, in one line that fits the message: with ", "
         * when there is room, else with "," (a long list, a node's) */
        char list[sizeof err->msg];
        for (const char *sep = ", ";; sep = ",") {
            size_t len = 0;
            for (k = 0; known[k] && len < sizeof list; k++)
                len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", k ? sep : "", known[k]);
            if (len + strlen(flag) + 60 < sizeof list || strcmp(sep, ",") == 0)
                break;
        }
        return rd_fail(err, RD_EINVAL, "%s: unknown field '%.*s' (known: %s)", flag, (int)(head < 24 ? head : 24),
                       f->names[i], list);
    }
    return RD_OK;
}

int tx_pick_names_has(const tx_pick_names *f, const char *name)
{
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->names[i], name) == 0)
            return 1;
    return 0;
}

void tx_pick_names_add(tx_pick_names *f, const char *name)
{
    if (f->n < TX_PICK_MAX && !tx_pick_names_has(f, name))
        f->names[f->n++] = name;
}

/* One stored value as the reader wants it, or NULL (err set). */
static json_t *pick_value(const store_kv *kv, const char *const *names, size_t n, rd_err *err)
{
    json_t *doc = names ? docpick_fields(kv->value, kv->value_len, names, n) : NULL;
    if (doc)
        return doc;
    json_error_t jerr;
    /* Not readable by docpick (or everything asked for): decoded whole, so
     * a malformed value fails here exactly as tx_list says. */
    json_t *whole = json_loadb(kv->value, kv->value_len, 0, &jerr);
    if (!json_is_object(whole)) {
        json_decref(whole);
        rd_fail(err, RD_ECORRUPT, "store key %s does not hold a JSON object", kv->key);
        return NULL;
    }
    if (!names)
        return whole;
    doc = docpick_copy(whole, names, n);
    json_decref(whole);
    if (!doc)
        rd_fail(err, RD_ENOMEM, "out of memory");
    return doc;
}

rd_code tx_pick(rd_tx *tx, const char *prefix, const char *after, const char *const *names, size_t n, tx_pick_fn fn,
                void *data, rd_err *err)
{
    char from[RD_KEY_MAX];
    int64_t at_rev = 0;
    rd_code rc = RD_OK;
    int stop = 0;
    snprintf(from, sizeof from, "%s", after ? after : "");
    while (rc == RD_OK && !stop) {
        store_range_result res;
        rc = store_range(tx_store(tx), prefix, from[0] ? from : NULL, PICK_PAGE, at_rev, &res, err);
        if (rc != RD_OK)
            break;
        at_rev = res.revision;
        for (size_t i = 0; i < res.count && rc == RD_OK && !stop; i++) {
            json_t *doc = pick_value(&res.kvs[i], names, n, err);
            if (!doc)
                rc = err->code ? err->code : RD_ECORRUPT;
            else
                stop = fn(doc, res.kvs[i].key, data);
        }
        if (res.count)
            snprintf(from, sizeof from, "%s", res.kvs[res.count - 1].key);
        if (!res.more || res.count == 0)
            stop = 1;
        store_range_free(&res);
    }
    return rc;
}
