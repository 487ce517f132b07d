/* sched_index.c - the pass's index of the fleet and the placement rules.
 *
 * Owns the snapshot (sched_index.h): loading nodes as C records next to their
 * documents, filing each active node into its group (region, GPU type,
 * sharing) and, inside the group, into the bucket of its free capacity kept
 * in least-recently-used order; judging a node for a worker (sched_check),
 * picking the best node (sched_pick, equal by construction to a scan of
 * sched_check over the fleet: a group's nodes share every rule but capacity,
 * the first fitting node in the lowest bucket has the fewest GPUs left over,
 * and buckets are in the tie-break order), and the aged jobs' claims.
 *
 * An agent-managed node whose agent is not online (node_agent.c: a field of
 * its document, so judging it costs no read) keeps its group but sits in no
 * bucket: nothing picks or claims it, and sched_check names why.
 */
#include <stdlib.h>
#include <string.h>

#include "billing_usage.h"
#include "catalog.h"
#include "doc.h"
#include "fleet.h"
#include "grow.h"
#include "node_agent.h"
#include "node_health.h"
#include "sched_index.h"
#include "keyspace.h"
#include "jsonin.h"

static const char *const verdict_names[SCHED_NVERDICTS] = {
    "eligible", "node_state", "gpu_type", "region_private", "region_pin", "no_market_price",
    "price", "gpu_sharing", "free_gpus", "free_disk", "free_cpus", "claimed_by_older_job", "agent_offline",
    "gpu_unhealthy",
};

const char *sched_verdict_name(sched_verdict v)
{
    return v < SCHED_NVERDICTS ? verdict_names[v] : "unknown";
}

int64_t sched_usage_fee(const char *gpu_id)
{
    const gpu_type *g = catalog_gpu(gpu_id);
    return g ? g->usage_fee_ucr : 0;
}

#define DEFAULT_MAX_WAIT_S 3600

struct sched_bucket {
    size_t *v;            /* node indices, least recently used first */
    size_t n, cap;
};

/* ---- job view ------------------------------------------------------------ */

static int accepts(const sched_job *j, const char *gpu)
{
    size_t i;
    json_t *g;
    json_array_foreach(j->types, i, g)
        if (strcmp(json_string_value(g), gpu) == 0)
            return 1;
    return 0;
}

void sched_job_view(const json_t *job, sched_job *j)
{
    const json_t *res = json_object_get(job, "resources");
    const json_t *max = json_object_get(res, "max_price_ucr");
    memset(j, 0, sizeof *j);
    j->doc = job;
    j->id = doc_str(job, "id");
    j->owner = doc_str(job, "project_owner");
    j->fed_payer = billing_federated_rate(doc_str(job, "type"), doc_str(job, "creator"), j->owner)
                       ? doc_str(job, "creator")
                       : NULL;
    j->pin = doc_str(job, "region_pin");
    j->types = json_object_get(res, "gpu_types");
    j->cpu_job = accepts(j, "cpu");
    j->want_x100 = doc_int(res, "gpus_x100");
    j->disk = doc_int(res, "disk_size");
    j->cpus = doc_int(res, "cpu_count");
    j->has_max = json_is_integer(max);
    j->max_price = json_integer_value(max);
}

/* ---- buckets ------------------------------------------------------------- */

/* Order inside a bucket: never used first, then the oldest use, then name. */
static int lru_cmp(const sched_node *a, const sched_node *b)
{
    if (a->used != b->used)
        return a->used - b->used;
    int c = a->used ? strcmp(a->last_used, b->last_used) : 0;
    return c ? c : strcmp(a->name, b->name);
}

/* Where node i sits (or would go) in bucket b. */
static size_t bucket_pos(const sched_snapshot *s, const struct sched_bucket *b, size_t i)
{
    size_t lo = 0, hi = b->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (lru_cmp(&s->nodes[b->v[mid]], &s->nodes[i]) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* 0, or -1 when memory ran out (the group is as it was). */
static int group_grow(sched_group *g, int nbuckets)
{
    if (nbuckets <= g->nbuckets)
        return 0;
    size_t words = ((size_t)nbuckets + 63) / 64, old = ((size_t)g->nbuckets + 63) / 64;
    if (grow_array(&g->buckets, &g->buckets_cap, (size_t)nbuckets, sizeof *g->buckets) != 0 ||
        grow_array(&g->nonempty, &g->nonempty_cap, words, sizeof *g->nonempty) != 0)
        return -1;
    memset(g->buckets + g->nbuckets, 0, (size_t)(nbuckets - g->nbuckets) * sizeof *g->buckets);
    memset(g->nonempty + old, 0, (words - old) * sizeof *g->nonempty);
    g->nbuckets = nbuckets;
    return 0;
}

static void node_file(sched_snapshot *s, size_t i)
{
    sched_node *n = &s->nodes[i];
    if (n->group < 0 || n->agent_offline)
        return;
    sched_group *g = &s->groups[n->group];
    int f = n->free_x100 < 0 ? 0 : n->free_x100;
    /* A node that cannot be filed is never offered; the pass then fails
     * on s->nomem rather than place with an index that lacks it. */
    if (group_grow(g, f + 1) != 0 || grow_array(&g->buckets[f].v, &g->buckets[f].cap, g->buckets[f].n + 1,
                                                  sizeof *g->buckets[f].v) != 0) {
        s->nomem = 1;
        return;
    }
    struct sched_bucket *b = &g->buckets[f];
    size_t pos = bucket_pos(s, b, i);
    memmove(b->v + pos + 1, b->v + pos, (b->n - pos) * sizeof *b->v);
    b->v[pos] = i;
    b->n++;
    g->nonempty[f / 64] |= 1ULL << (f % 64);
}

static void node_unfile(sched_snapshot *s, size_t i)
{
    sched_node *n = &s->nodes[i];
    if (n->group < 0 || n->agent_offline)
        return;
    sched_group *g = &s->groups[n->group];
    int f = n->free_x100 < 0 ? 0 : n->free_x100;
    struct sched_bucket *b = &g->buckets[f];
    size_t pos = bucket_pos(s, b, i);
    if (pos < b->n && b->v[pos] == i) {
        memmove(b->v + pos, b->v + pos + 1, (b->n - pos - 1) * sizeof *b->v);
        b->n--;
    }
    if (b->n == 0)
        g->nonempty[f / 64] &= ~(1ULL << (f % 64));
}

/* The next nonempty bucket at or after f, or -1. */
static int bucket_next(const sched_group *g, int f)
{
    if (f < 0)
        f = 0;
    while (f < g->nbuckets) {
        uint64_t w = g->nonempty[f / 64] >> (f % 64);
        if (w)
            return f + __builtin_ctzll(w);
        f = (f / 64 + 1) * 64;
    }
    return -1;
}

/* ---- nodes --------------------------------------------------------------- */

static int group_of(sched_snapshot *s, const json_t *doc)
{
    const char *region = doc_str(doc, "region"), *gpu = doc_str(doc, "gpu_type");
    int sharing = json_is_true(json_object_get(doc, "gpu_sharing")), cpu_only = doc_int(doc, "gpu_count") <= 0;
    const json_t *rdoc = json_object_get(s->regions, region);
    if (strcmp(doc_str(doc, "state"), "active") != 0 || !rdoc)
        return -1;
    for (size_t k = 0; k < s->ngroups; k++) {
        sched_group *g = &s->groups[k];
        if (g->sharing == sharing && g->cpu_only == cpu_only && strcmp(g->region, region) == 0 &&
            strcmp(g->gpu_type, gpu) == 0)
            return (int)k;
    }
    if (grow_array(&s->groups, &s->groups_cap, s->ngroups + 1, sizeof *s->groups) != 0) {
        s->nomem = 1;
        return -1;
    }
    sched_group *g = &s->groups[s->ngroups];
    memset(g, 0, sizeof *g);
    g->region = strdup(region);
    g->gpu_type = strdup(gpu);
    if (!g->region || !g->gpu_type) {   /* not counted: the pass fails on nomem */
        free(g->region);
        free(g->gpu_type);
        s->nomem = 1;
        return -1;
    }
    g->rdoc = rdoc;
    g->sharing = sharing;
    g->cpu_only = cpu_only;
    return (int)s->ngroups++;
}

/* Reads node i's record from its working document. */
static void node_parse(sched_snapshot *s, size_t i)
{
    sched_node *n = &s->nodes[i];
    const json_t *doc = n->doc, *alloc = json_object_get(doc, "gpu_alloc");
    int64_t count = doc_int(doc, "gpu_count");
    n->gpu_count = count > 0 ? (int)count : 0;
    if (grow_array(&n->slots, &n->slots_cap, (size_t)n->gpu_count + 1, sizeof *n->slots) != 0) {
        s->nomem = 1;
        n->gpu_count = 0;   /* offers nothing; the pass fails on nomem */
    }
    n->free_x100 = 0;
    n->whole_free = 0;
    n->unhealthy = 0;
    n->agent_offline = node_agent_offline(doc);
    for (int k = 0; k < n->gpu_count; k++) {
        /* an unhealthy GPU counts as taken: it gets no new work */
        int sick = node_health_gpu_unhealthy(doc, k);
        n->unhealthy += sick;
        n->slots[k] = sick ? 100 : (int)json_integer_value(json_array_get(alloc, (size_t)k));
        n->free_x100 += 100 - n->slots[k];
        n->whole_free += n->slots[k] == 0;
    }
    n->disk_free = doc_int(doc, "disk_gb") - doc_int(doc, "disk_used_gb");
    n->cpus_free = doc_int(doc, "cpu_cores") * 2 - doc_int(doc, "cpus_used");
    const char *lu = json_string_value(json_object_get(doc, "last_used_at"));
    n->used = lu != NULL;
    snprintf(n->last_used, sizeof n->last_used, "%s", lu ? lu : "");
    n->group = group_of(s, doc);
}

void sched_node_reset(sched_snapshot *s, size_t i, json_t *doc, json_t *committed, int64_t rev)
{
    sched_node *n = &s->nodes[i];
    node_unfile(s, i);
    json_decref(n->doc);
    n->doc = doc;
    if (committed) {
        json_decref(n->committed);
        n->committed = committed;
        n->rev = rev;
    }
    node_parse(s, i);
    node_file(s, i);
}

long sched_node_find(const sched_snapshot *s, const char *name)
{
    size_t lo = 0, hi = s->nnodes;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(s->nodes[mid].name, name);
        if (c == 0)
            return (long)mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* ---- loading ------------------------------------------------------------- */

typedef struct {
    sched_snapshot *s;
    size_t cap;
    rd_err *err;
} load_state;

static int load_node(store_kv *kv, void *data)
{
    load_state *ls = data;
    sched_snapshot *s = ls->s;
    json_error_t jerr;
    json_t *doc = jsonin_loadb_any(kv->value, kv->value_len, &jerr);
    if (!json_is_object(doc)) {
        json_decref(doc);
        return rd_fail(ls->err, RD_ECORRUPT, "store key %s does not hold a JSON object", kv->key);
    }
    if (strcmp(doc_str(doc, "role"), "compute") != 0 || strcmp(doc_str(doc, "state"), "removed") == 0) {
        json_decref(doc);
        return 0;
    }
    if (grow_array(&s->nodes, &ls->cap, s->nnodes + 1, sizeof *s->nodes) != 0) {
        json_decref(doc);
        return rd_fail(ls->err, RD_ENOMEM, "out of memory reading the fleet's nodes");
    }
    sched_node *n = &s->nodes[s->nnodes];
    memset(n, 0, sizeof *n);
    n->name = strdup(doc_str(doc, "name"));
    if (!n->name) {
        json_decref(doc);
        return rd_fail(ls->err, RD_ENOMEM, "out of memory reading the fleet's nodes");
    }
    s->nnodes++;
    n->doc = doc;
    n->committed = json_incref(doc);
    n->rev = kv->mod_revision;
    return 0;
}

static int cmp_node_names(const void *a, const void *b)
{
    return strcmp(((const sched_node *)a)->name, ((const sched_node *)b)->name);
}

rd_code sched_load(cmd_ctx *ctx, sched_snapshot *s, rd_err *err)
{
    json_t *regions = NULL, *prices = NULL, *cfg = NULL, *r;
    size_t i;
    load_state ls = { s, 0, err };
    memset(s, 0, sizeof *s);
    rd_code rc = tx_scan(ctx->tx, KEY_NODES, load_node, &ls, &s->revision, err);
    if (rc == RD_OK)
        rc = tx_list(ctx->tx, KEY_REGIONS, &regions, err);
    if (rc == RD_OK)
        rc = tx_list(ctx->tx, KEY_PRICES, &prices, err);
    if (rc == RD_OK)
        rc = tx_get(ctx->tx, KEY_SCHED_CONFIG, &cfg, err);
    s->regions = json_object();
    s->prices = json_object();
    json_array_foreach(regions, i, r)
        json_object_set(s->regions, doc_str(r, "name"), r);
    json_array_foreach(prices, i, r)
        json_object_set(s->prices, doc_str(r, "name"), json_object_get(r, "price_ucr"));
    s->max_wait_s = cfg && doc_int(cfg, "max_wait_s") > 0 ? doc_int(cfg, "max_wait_s") : DEFAULT_MAX_WAIT_S;
    json_decref(regions);
    json_decref(prices);
    json_decref(cfg);
    if (rc != RD_OK) {
        sched_snapshot_free(s);
        return rc;
    }
    /* Key order is name order already; sorting keeps lookups right even if
     * a document's name and key ever disagreed. */
    if (s->nnodes)   /* qsort(NULL, 0, ...) is undefined */
        qsort(s->nodes, s->nnodes, sizeof *s->nodes, cmp_node_names);
    for (i = 0; i < s->nnodes; i++) {
        node_parse(s, i);
        node_file(s, i);
    }
    if (s->nomem) {
        sched_snapshot_free(s);
        return rd_fail(err, RD_ENOMEM, "out of memory indexing the fleet's nodes");
    }
    return RD_OK;
}

void sched_snapshot_free(sched_snapshot *s)
{
    for (size_t i = 0; i < s->nnodes; i++) {
        free(s->nodes[i].name);
        free(s->nodes[i].slots);
        free(s->nodes[i].claim);
        json_decref(s->nodes[i].doc);
        json_decref(s->nodes[i].committed);
    }
    for (size_t k = 0; k < s->ngroups; k++) {
        for (int b = 0; b < s->groups[k].nbuckets; b++)
            free(s->groups[k].buckets[b].v);
        free(s->groups[k].buckets);
        free(s->groups[k].nonempty);
        free(s->groups[k].region);
        free(s->groups[k].gpu_type);
    }
    free(s->nodes);
    free(s->groups);
    json_decref(s->regions);
    json_decref(s->prices);
    memset(s, 0, sizeof *s);
}

/* ---- the rules ----------------------------------------------------------- */

/* The rules every node of group g shares, in sched_check's order. */
static sched_verdict group_verdict(const sched_snapshot *s, const sched_job *j, const sched_group *g,
                                   sched_offer *offer)
{
    if (j->cpu_job ? !g->cpu_only && !accepts(j, g->gpu_type) : !accepts(j, g->gpu_type))
        return SCHED_GPU_TYPE;
    offer->own = strcmp(doc_str(g->rdoc, "owner"), j->owner) == 0;
    if (!offer->own && !json_is_true(json_object_get(g->rdoc, "public")))
        return SCHED_PRIVATE;
    if (*j->pin && strcmp(j->pin, g->region) != 0)
        return SCHED_REGION_PIN;
    const char *price_type = j->cpu_job ? "cpu" : g->gpu_type;
    if (offer->own) {
        offer->price_ucr = sched_usage_fee(price_type);
    } else {
        json_t *p = json_object_get(s->prices, price_type);
        if (!p)
            return SCHED_NO_PRICE;
        offer->price_ucr = json_integer_value(p);
    }
    if (j->has_max && offer->price_ucr > j->max_price)
        return SCHED_PRICE;
    return SCHED_OK;
}

static int gpus_fit(const sched_node *n, int64_t want)
{
    if (want >= 100)
        return n->whole_free >= want / 100;
    for (int k = 0; k < n->gpu_count; k++)
        if (100 - n->slots[k] >= want)
            return 1;
    return 0;
}

/* The rules that depend on the node's own capacity, in sched_check's order. */
static sched_verdict capacity_verdict(const sched_job *j, const sched_group *g, const sched_node *n,
                                      sched_offer *offer)
{
    if (j->cpu_job) {
        if (n->cpus_free < j->cpus)
            return SCHED_CPUS;
    } else {
        if (j->want_x100 < 100 && !g->sharing)
            return SCHED_SHARING;
        if (!gpus_fit(n, j->want_x100))
            return SCHED_GPUS;
        offer->leftover_x100 = n->free_x100 - j->want_x100;
    }
    if (n->disk_free < j->disk)
        return SCHED_DISK;
    return SCHED_OK;
}

static int claimed_by_other(const sched_node *n, const sched_job *j)
{
    return n->claim && strcmp(n->claim, j->id) != 0;
}

/* gpus_fit as if the node's unhealthy GPUs were healthy: their own
 * allocation, from the document. */
static int gpus_fit_counting_unhealthy(const sched_node *n, int64_t want)
{
    const json_t *alloc = json_object_get(n->doc, "gpu_alloc");
    int64_t whole = 0;
    for (int k = 0; k < n->gpu_count; k++) {
        int64_t used = json_integer_value(json_array_get(alloc, (size_t)k));
        if (want < 100 && 100 - used >= want)
            return 1;
        whole += used == 0;
    }
    return want >= 100 && whole >= want / 100;
}

sched_verdict sched_check(const sched_snapshot *s, const sched_job *j, size_t i, sched_offer *offer)
{
    const sched_node *n = &s->nodes[i];
    memset(offer, 0, sizeof *offer);
    if (n->group < 0)
        return SCHED_NODE_STATE;
    const sched_group *g = &s->groups[n->group];
    sched_verdict v = group_verdict(s, j, g, offer);
    if (v != SCHED_OK)
        return v;
    if (claimed_by_other(n, j))
        return SCHED_CLAIMED;
    if (n->agent_offline)
        return SCHED_AGENT_OFFLINE;
    v = capacity_verdict(j, g, n, offer);
    /* `job why` tells a fleet short of GPUs from one whose GPUs are sick */
    if (v == SCHED_GPUS && n->unhealthy && gpus_fit_counting_unhealthy(n, j->want_x100))
        return SCHED_GPU_UNHEALTHY;
    return v;
}

/* ---- picking ------------------------------------------------------------- */

void sched_plan_build(sched_snapshot *s, const sched_job *j, sched_plan *p)
{
    memset(p, 0, sizeof *p);
    p->ngroups_seen = s->ngroups;
    p->group = calloc(s->ngroups + 1, sizeof *p->group);
    p->own = calloc(s->ngroups + 1, sizeof *p->own);
    p->price = calloc(s->ngroups + 1, sizeof *p->price);
    if (!p->group || !p->own || !p->price) {   /* an empty plan; the pass fails on nomem */
        sched_plan_free(p);
        memset(p, 0, sizeof *p);
        p->ngroups_seen = s->ngroups;
        s->nomem = 1;
        return;
    }
    for (size_t k = 0; k < s->ngroups; k++) {
        sched_offer o = { 0 };
        const sched_group *g = &s->groups[k];
        if (group_verdict(s, j, g, &o) != SCHED_OK || (!j->cpu_job && j->want_x100 < 100 && !g->sharing))
            continue;
        /* insertion by (own first, then price), stable in group order */
        size_t at = p->n;
        while (at > 0 && (p->own[at - 1] < o.own || (p->own[at - 1] == o.own && p->price[at - 1] > o.price_ucr))) {
            p->group[at] = p->group[at - 1];
            p->own[at] = p->own[at - 1];
            p->price[at] = p->price[at - 1];
            at--;
        }
        p->group[at] = (int)k;
        p->own[at] = o.own;
        p->price[at] = o.price_ucr;
        p->n++;
    }
}

void sched_plan_free(sched_plan *p)
{
    free(p->group);
    free(p->own);
    free(p->price);
    memset(p, 0, sizeof *p);
}

/* The best node of group g for j: lowest leftover, then least recently
 * used; -1 when none fits. */
static long group_best(const sched_snapshot *s, const sched_job *j, const sched_group *g, int64_t *leftover)
{
    long best = -1;
    int start = j->cpu_job ? 0 : (int)(j->want_x100 < 100 ? j->want_x100 : j->want_x100 / 100 * 100);
    for (int f = bucket_next(g, start); f >= 0; f = bucket_next(g, f + 1)) {
        const struct sched_bucket *b = &g->buckets[f];
        for (size_t k = 0; k < b->n; k++) {
            const sched_node *n = &s->nodes[b->v[k]];
            sched_offer o = { 0 };
            if (claimed_by_other(n, j) || capacity_verdict(j, g, n, &o) != SCHED_OK)
                continue;
            if (best < 0 || lru_cmp(n, &s->nodes[best]) < 0) {
                best = (long)b->v[k];
                *leftover = o.leftover_x100;
            }
            break;   /* the rest of this bucket is used more recently */
        }
        if (best >= 0 && !j->cpu_job)
            return best;   /* later buckets leave more over */
    }
    return best;
}

long sched_pick(const sched_snapshot *s, const sched_job *j, const sched_plan *p, sched_offer *offer)
{
    memset(offer, 0, sizeof *offer);
    for (size_t t = 0; t < p->n;) {
        size_t u = t;
        long best = -1;
        int64_t best_left = 0;
        while (u < p->n && p->own[u] == p->own[t] && p->price[u] == p->price[t]) {
            int64_t left = 0;
            long c = group_best(s, j, &s->groups[p->group[u]], &left);
            if (c >= 0 && (best < 0 || left < best_left ||
                           (left == best_left && lru_cmp(&s->nodes[c], &s->nodes[best]) < 0))) {
                best = c;
                best_left = left;
            }
            u++;
        }
        if (best >= 0) {
            offer->own = p->own[t];
            offer->price_ucr = p->price[t];
            offer->leftover_x100 = best_left;
            return best;
        }
        t = u;
    }
    return -1;
}

long sched_pick_scan(const sched_snapshot *s, const sched_job *j, sched_offer *best)
{
    long bi = -1;
    memset(best, 0, sizeof *best);
    for (size_t i = 0; i < s->nnodes; i++) {
        sched_offer o;
        if (sched_check(s, j, i, &o) != SCHED_OK)
            continue;
        int better = bi < 0;
        if (!better) {
            if (o.own != best->own)
                better = o.own;
            else if (o.price_ucr != best->price_ucr)
                better = o.price_ucr < best->price_ucr;
            else if (o.leftover_x100 != best->leftover_x100)
                better = o.leftover_x100 < best->leftover_x100;
            else
                better = lru_cmp(&s->nodes[i], &s->nodes[bi]) < 0;
        }
        if (better) {
            *best = o;
            bi = (long)i;
        }
    }
    return bi;
}

void sched_claim_for(sched_snapshot *s, const sched_job *j, const sched_plan *p, size_t *log, size_t *nlog)
{
    for (size_t t = 0; t < p->n; t++) {
        const sched_group *g = &s->groups[p->group[t]];
        for (int f = bucket_next(g, 0); f >= 0; f = bucket_next(g, f + 1))
            for (size_t k = 0; k < g->buckets[f].n; k++) {
                sched_node *n = &s->nodes[g->buckets[f].v[k]];
                sched_offer o = { 0 };
                if (n->claim)
                    continue;
                sched_verdict v = capacity_verdict(j, g, n, &o);
                if (v == SCHED_GPUS || v == SCHED_DISK || v == SCHED_CPUS) {
                    n->claim = strdup(j->id);
                    if (!n->claim) {   /* the pass fails on nomem */
                        s->nomem = 1;
                        continue;
                    }
                    if (log)
                        log[(*nlog)++] = g->buckets[f].v[k];
                }
            }
    }
}

json_t *sched_alloc(const sched_snapshot *s, size_t i, int64_t want)
{
    const sched_node *n = &s->nodes[i];
    json_t *alloc = json_array();
    if (want < 100) {
        int best = -1, best_free = 101;
        for (int k = 0; k < n->gpu_count; k++) {
            int f = 100 - n->slots[k];
            if (f >= want && f < best_free) {
                best = k;
                best_free = f;
            }
        }
        if (best >= 0)
            json_array_append_new(alloc, json_pack("{s:i, s:I}", "gpu", best, "x100", (json_int_t)want));
    } else {
        int64_t need = want / 100;
        for (int k = 0; k < n->gpu_count && need > 0; k++)
            if (n->slots[k] == 0) {
                json_array_append_new(alloc, json_pack("{s:i, s:i}", "gpu", k, "x100", 100));
                need--;
            }
    }
    return alloc;
}
