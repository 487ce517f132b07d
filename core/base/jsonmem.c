/* jsonmem.c - jansson's allocator, counting its failures.
 *
 * jansson answers a failed allocation inside json_object_set_new or
 * json_array_append_new with -1 and a document without that part; the
 * core builds its documents with hundreds of such calls.  Instead of a
 * check at each, every allocation jansson makes goes through here, and a
 * failure bumps one process-wide counter: tx_commit refuses to write when
 * it grew while the transaction was built (nothing partial reaches the
 * store) and the executor refuses a handler's answer when it grew while
 * the handler ran (no command answers success with a partial document).
 * The counter is process-wide rather than per thread because a transaction
 * may be built on one thread and committed on another; a failure on
 * another thread then refuses this one too, which is safe. */
#include "jsonmem.h"

#include <stdatomic.h>
#include <stdlib.h>

#include <jansson.h>

static atomic_ulong jsonmem_failed;
static atomic_int jsonmem_installed;

static void *jsonmem_malloc(size_t n)
{
    void *p = malloc(n);
    if (!p)
        atomic_fetch_add(&jsonmem_failed, 1);
    return p;
}

static void jsonmem_free(void *p)
{
    free(p);
}

void jsonmem_install(void)
{
    /* jansson's default is malloc and free: memory it allocated before
     * this call is freed the same way after it, so late is fine */
    if (!atomic_exchange(&jsonmem_installed, 1))
        json_set_alloc_funcs(jsonmem_malloc, jsonmem_free);
}

unsigned long jsonmem_failures(void)
{
    return atomic_load(&jsonmem_failed);
}
