/* store_open.c - opens a store by URL and closes it.
 *
 * The URL grammar lives here and nowhere else: "sqlite:PATH" or a bare PATH
 * selects the embedded SQLite backend; "etcd://" and "etcds://" the etcd
 * backend (store_etcd.c), which is handed the whole URL.  A backend is
 * known only by its table (store_backend.h), found in the registry below.
 * Closing runs the compaction policy when a write asked for it; that is
 * why this is apart from store.c: the policy (store_compact.c) works
 * through store.c's calls, so store_open.c -> store_compact.c -> store.c
 * runs one way.
 */
#include "store_backend.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The URL prefixes that select a backend; any other URL without "://" is
 * a path for store_sqlite_backend. */
static const struct {
    const char *prefix;
    int strip;                  /* 1: open() gets the URL without the prefix */
    const store_backend *be;
} store_registry[] = {
    { "etcd://", 0, &store_etcd_backend },
    { "etcds://", 0, &store_etcd_backend },
    { "sqlite:", 1, &store_sqlite_backend },
};

static int has_prefix(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

rd_code store_open(const char *url, const store_opts *opts, store_t **out, rd_err *err)
{
    const store_backend *be = NULL;
    const char *location = url;

    *out = NULL;
    if (!url || !*url)
        return rd_fail(err, RD_EUSAGE, "store: the store URL is empty");
    for (size_t i = 0; !be && i < sizeof store_registry / sizeof store_registry[0]; i++)
        if (has_prefix(url, store_registry[i].prefix)) {
            be = store_registry[i].be;
            location = store_registry[i].strip ? url + strlen(store_registry[i].prefix) : url;
        }
    if (!be && strstr(url, "://"))
        return rd_fail(err, RD_EUSAGE, "store %s: unknown scheme (use sqlite:PATH, a path, etcd:// or etcds://)", url);
    if (!be)
        be = &store_sqlite_backend;
    if (!*location)
        return rd_fail(err, RD_EUSAGE, "store %s: the path is empty", url);

    store_t *st = NULL;
    rd_code rc = be->open(location, opts, &st, err);
    if (rc != RD_OK)
        return rc;
    st->be = be;
    st->owner = (long)getpid();
    st->url = strdup(url);
    if (!st->url) {
        be->close(st);
        return rd_fail(err, RD_ENOMEM, "store: out of memory");
    }
    *out = st;
    return RD_OK;
}

void store_close(store_t *st)
{
    if (!st)
        return;
    char *url = st->url;
    if (st->compact_due && !st->unreachable && st->owner == (long)getpid())
        store_compact_maybe(st);
    st->be->close(st);
    free(url);
}
