/* sched.c - judging nodes for workers and keeping node capacity books.
 *
 * A node's capacity is kept in its own document: "gpu_alloc" holds the used
 * hundredths of each physical GPU, so fractional requests (seed 002) pack
 * onto one GPU without exceeding 1.00, and whole requests take GPUs that are
 * entirely free.  "gpus_used" (a number, fractions allowed), "disk_used_gb"
 * and "cpus_used" follow from the workers placed there.  Every placement
 * rewrites the node document in the same transaction as the job, guarded by
 * the revision the scheduler read, so no GPU is ever given twice.
 */
#include "sched.h"

#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "fleet.h"

#define DEFAULT_MAX_WAIT_S 3600

static const char *const verdict_names[SCHED_NVERDICTS] = {
    "eligible", "node_state", "gpu_type", "region_private", "region_pin", "no_market_price",
    "price", "gpu_sharing", "free_gpus", "free_disk", "free_cpus", "claimed_by_older_job",
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

rd_code sched_load(cmd_ctx *ctx, sched_snapshot *s, rd_err *err)
{
    json_t *regions = NULL, *prices = NULL, *cfg = NULL, *r;
    size_t i;
    memset(s, 0, sizeof *s);
    rd_code rc = tx_list(ctx->tx, "/rigdeck/nodes/", &s->nodes, err);
    if (rc == RD_OK)
        rc = tx_list(ctx->tx, "/rigdeck/regions/", &regions, err);
    if (rc == RD_OK)
        rc = tx_list(ctx->tx, "/rigdeck/prices/", &prices, err);
    if (rc == RD_OK)
        rc = tx_get(ctx->tx, "/rigdeck/sched/config", &cfg, err);
    if (rc != RD_OK) {
        json_decref(regions);
        json_decref(prices);
        sched_snapshot_free(s);
        return rc;
    }
    for (i = json_array_size(s->nodes); i-- > 0;) {
        const json_t *n = json_array_get(s->nodes, i);
        if (strcmp(fleet_str(n, "role"), "compute") != 0 || strcmp(fleet_str(n, "state"), "removed") == 0)
            json_array_remove(s->nodes, i);
    }
    s->regions = json_object();
    json_array_foreach(regions, i, r)
        json_object_set(s->regions, fleet_str(r, "name"), r);
    s->prices = json_object();
    json_array_foreach(prices, i, r)
        json_object_set(s->prices, fleet_str(r, "name"), json_object_get(r, "price_ucr"));
    s->claims = json_object();
    s->max_wait_s = cfg && json_integer_value(json_object_get(cfg, "max_wait_s")) > 0
                        ? json_integer_value(json_object_get(cfg, "max_wait_s")) : DEFAULT_MAX_WAIT_S;
    json_decref(regions);
    json_decref(prices);
    json_decref(cfg);
    return RD_OK;
}

void sched_snapshot_free(sched_snapshot *s)
{
    json_decref(s->nodes);
    json_decref(s->regions);
    json_decref(s->prices);
    json_decref(s->claims);
    memset(s, 0, sizeof *s);
}

static int64_t jint(const json_t *o, const char *k)
{
    return json_integer_value(json_object_get(o, k));
}

/* Used hundredths of physical GPU i of node. */
static int64_t slot_used(const json_t *node, size_t i)
{
    return json_integer_value(json_array_get(json_object_get(node, "gpu_alloc"), i));
}

static int accepts_gpu(const json_t *job, const char *gpu)
{
    size_t i;
    json_t *g;
    json_array_foreach(json_object_get(json_object_get(job, "resources"), "gpu_types"), i, g)
        if (strcmp(json_string_value(g), gpu) == 0)
            return 1;
    return 0;
}

/* Finds GPUs for the request: whole GPUs that are entirely free, or for a
 * fraction the fullest GPU that still fits it (best-fit packing). */
static json_t *alloc_gpus(const json_t *node, int64_t want_x100, int64_t *leftover_x100)
{
    int64_t count = jint(node, "gpu_count"), free_total = 0;
    json_t *alloc = json_array();
    for (int64_t i = 0; i < count; i++)
        free_total += 100 - slot_used(node, (size_t)i);
    if (want_x100 < 100) {
        int64_t best = -1, best_free = 101;
        for (int64_t i = 0; i < count; i++) {
            int64_t f = 100 - slot_used(node, (size_t)i);
            if (f >= want_x100 && f < best_free) {
                best = i;
                best_free = f;
            }
        }
        if (best >= 0)
            json_array_append_new(alloc, json_pack("{s:I, s:I}", "gpu", (json_int_t)best, "x100", (json_int_t)want_x100));
    } else {
        int64_t need = want_x100 / 100;
        for (int64_t i = 0; i < count && need > 0; i++)
            if (slot_used(node, (size_t)i) == 0) {
                json_array_append_new(alloc, json_pack("{s:I, s:I}", "gpu", (json_int_t)i, "x100", (json_int_t)100));
                need--;
            }
        if (need > 0)
            json_array_clear(alloc);
    }
    if (json_array_size(alloc) == 0) {
        json_decref(alloc);
        return NULL;
    }
    *leftover_x100 = free_total - want_x100;
    return alloc;
}

sched_verdict sched_check(const sched_snapshot *s, const json_t *job, const json_t *node, sched_offer *offer)
{
    const json_t *res = json_object_get(job, "resources");
    const json_t *region = json_object_get(s->regions, fleet_str(node, "region"));
    const char *gpu = fleet_str(node, "gpu_type");
    const char *pin = fleet_str(job, "region_pin");
    int64_t want = jint(res, "gpus_x100");
    int cpu_job = accepts_gpu(job, "cpu");

    memset(offer, 0, sizeof *offer);
    if (strcmp(fleet_str(node, "state"), "active") != 0 || !region)
        return SCHED_NODE_STATE;
    if (cpu_job ? jint(node, "gpu_count") > 0 && !accepts_gpu(job, gpu) : !accepts_gpu(job, gpu))
        return SCHED_GPU_TYPE;
    offer->own = strcmp(fleet_str(region, "owner"), fleet_str(job, "project_owner")) == 0;
    if (!offer->own && !json_is_true(json_object_get(region, "public")))
        return SCHED_PRIVATE;
    if (*pin && strcmp(pin, fleet_str(node, "region")) != 0)
        return SCHED_REGION_PIN;
    const char *price_type = cpu_job ? "cpu" : gpu;
    if (offer->own) {
        offer->price_ucr = sched_usage_fee(price_type);
    } else {
        json_t *p = json_object_get(s->prices, price_type);
        if (!p)
            return SCHED_NO_PRICE;
        offer->price_ucr = json_integer_value(p);
    }
    json_t *max = json_object_get(res, "max_price_ucr");
    if (json_is_integer(max) && offer->price_ucr > json_integer_value(max))
        return SCHED_PRICE;
    const json_t *claim = json_object_get(s->claims, fleet_str(node, "name"));
    if (claim && strcmp(json_string_value(claim), fleet_str(job, "id")) != 0)
        return SCHED_CLAIMED;
    if (cpu_job) {
        int64_t free_cpus = jint(node, "cpu_cores") * 2 - jint(node, "cpus_used");
        if (free_cpus < jint(res, "cpu_count"))
            return SCHED_CPUS;
    } else {
        if (want < 100 && !json_is_true(json_object_get(node, "gpu_sharing")))
            return SCHED_SHARING;
        if (!(offer->alloc = alloc_gpus(node, want, &offer->leftover_x100)))
            return SCHED_GPUS;
    }
    if (jint(node, "disk_gb") - jint(node, "disk_used_gb") < jint(res, "disk_size")) {
        json_decref(offer->alloc);
        offer->alloc = NULL;
        return SCHED_DISK;
    }
    if (!offer->alloc)
        offer->alloc = json_array();
    return SCHED_OK;
}

/* 1 when offer a (on node na) ranks before offer b (on node nb). */
static int better(const sched_offer *a, const json_t *na, const sched_offer *b, const json_t *nb)
{
    if (a->own != b->own)
        return a->own;
    if (a->price_ucr != b->price_ucr)
        return a->price_ucr < b->price_ucr;
    if (a->leftover_x100 != b->leftover_x100)
        return a->leftover_x100 < b->leftover_x100;
    /* Least recently used: never used first, then the oldest use (RFC 3339
     * UTC strings order as times do). */
    const char *ua = json_string_value(json_object_get(na, "last_used_at"));
    const char *ub = json_string_value(json_object_get(nb, "last_used_at"));
    if (!ua || !ub)
        return !ua && ub;
    int c = strcmp(ua, ub);
    return c != 0 ? c < 0 : strcmp(fleet_str(na, "name"), fleet_str(nb, "name")) < 0;
}

json_t *sched_pick(const sched_snapshot *s, const json_t *job, sched_offer *best)
{
    json_t *best_node = NULL, *node;
    size_t i;
    memset(best, 0, sizeof *best);
    json_array_foreach(s->nodes, i, node) {
        sched_offer o;
        if (sched_check(s, job, node, &o) != SCHED_OK)
            continue;
        if (!best_node || better(&o, node, best, best_node)) {
            json_decref(best->alloc);
            *best = o;
            best_node = node;
        } else {
            json_decref(o.alloc);
        }
    }
    return best_node;
}

/* gpus_used as the number JSON shows: whole numbers stay integers. */
static json_t *gpus_number(int64_t x100)
{
    return x100 % 100 == 0 ? json_integer(x100 / 100) : json_real((double)x100 / 100.0);
}

static void node_set_gpus_used(json_t *node)
{
    int64_t total = 0;
    for (size_t i = 0; i < json_array_size(json_object_get(node, "gpu_alloc")); i++)
        total += slot_used(node, i);
    json_object_set_new(node, "gpus_used", gpus_number(total));
}

static void worker_ref(const json_t *job, size_t worker, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%zu", fleet_str(job, "id"), worker);
}

void sched_node_take(json_t *node, const json_t *job, size_t worker, const sched_offer *offer, rd_time now)
{
    const json_t *res = json_object_get(job, "resources");
    char ref[160], ts[RDTIME_BUFLEN];
    json_t *slots = json_object_get(node, "gpu_alloc");
    if (!json_is_array(slots)) {
        slots = json_array();
        for (int64_t i = 0; i < jint(node, "gpu_count"); i++)
            json_array_append_new(slots, json_integer(0));
        json_object_set_new(node, "gpu_alloc", slots);
    }
    size_t i;
    json_t *a;
    json_array_foreach(offer->alloc, i, a) {
        size_t g = (size_t)jint(a, "gpu");
        json_array_set_new(slots, g, json_integer(slot_used(node, g) + jint(a, "x100")));
    }
    node_set_gpus_used(node);
    json_object_set_new(node, "disk_used_gb", json_integer(jint(node, "disk_used_gb") + jint(res, "disk_size")));
    if (accepts_gpu(job, "cpu"))
        json_object_set_new(node, "cpus_used", json_integer(jint(node, "cpus_used") + jint(res, "cpu_count")));
    worker_ref(job, worker, ref, sizeof ref);
    if (!json_is_array(json_object_get(node, "workers")))
        json_object_set_new(node, "workers", json_array());
    json_array_append_new(json_object_get(node, "workers"), json_string(ref));
    json_object_set_new(node, "last_used_at", json_string(rdtime_format(now, ts)));
}

void sched_node_release(json_t *node, const json_t *job, size_t worker, rd_time now)
{
    const json_t *res = json_object_get(job, "resources");
    const json_t *w = json_array_get(json_object_get(job, "workers"), worker);
    json_t *slots = json_object_get(node, "gpu_alloc"), *workers = json_object_get(node, "workers"), *a;
    char ref[160], ts[RDTIME_BUFLEN];
    size_t i;
    worker_ref(job, worker, ref, sizeof ref);
    int held = 0;
    for (i = json_array_size(workers); i-- > 0;)
        if (strcmp(json_string_value(json_array_get(workers, i)), ref) == 0) {
            json_array_remove(workers, i);
            held = 1;
        }
    if (!held)   /* releasing twice must not free capacity twice */
        return;
    json_array_foreach(json_object_get(w, "alloc"), i, a) {
        size_t g = (size_t)jint(a, "gpu");
        int64_t left = slot_used(node, g) - jint(a, "x100");
        json_array_set_new(slots, g, json_integer(left > 0 ? left : 0));
    }
    node_set_gpus_used(node);
    int64_t disk = jint(node, "disk_used_gb") - jint(res, "disk_size");
    json_object_set_new(node, "disk_used_gb", json_integer(disk > 0 ? disk : 0));
    if (accepts_gpu(job, "cpu")) {
        int64_t cpus = jint(node, "cpus_used") - jint(res, "cpu_count");
        json_object_set_new(node, "cpus_used", json_integer(cpus > 0 ? cpus : 0));
    }
    json_object_set_new(node, "last_used_at", json_string(rdtime_format(now, ts)));
    if (strcmp(fleet_str(node, "state"), "draining") == 0 && json_array_size(workers) == 0) {
        json_object_set_new(node, "state", json_string("maintenance"));
        json_object_set_new(node, "state_changed_at", json_string(ts));
    }
}
