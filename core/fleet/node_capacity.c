/* node_capacity.c - keeping node capacity books in node documents.
 *
 * A node's capacity is kept in its own document: "gpu_alloc" holds the used
 * hundredths of each physical GPU, so fractional requests (seed 002) pack
 * onto one GPU without exceeding 1.00, and whole requests take GPUs that are
 * entirely free.  "gpus_used" (a number, fractions allowed), "disk_used_gb"
 * and "cpus_used" follow from the workers placed there.  Every placement
 * rewrites the node document in the same transaction as the job, guarded by
 * the revision the scheduler read, so no GPU is ever given twice.
 */
#include "node_capacity.h"

#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "fleet.h"

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
    snprintf(buf, len, "%s/%zu", doc_str(job, "id"), worker);
}

/* Holds a slot for each GPU index up to count (new slots free). */
static void slots_cover(json_t *node, size_t count)
{
    json_t *slots = json_object_get(node, "gpu_alloc");
    if (!json_is_array(slots))
        return;
    while (json_array_size(slots) < count)
        json_array_append_new(slots, json_integer(0));
}

/* Sizes the slots to the node's GPUs: new GPUs get free slots; slots past
 * them go once no worker holds them (GPUs the machine no longer has). */
static void slots_fit(json_t *node)
{
    json_t *slots = json_object_get(node, "gpu_alloc");
    int64_t count = doc_int(node, "gpu_count");
    size_t n = count > 0 ? (size_t)count : 0;
    slots_cover(node, n);
    while (json_array_size(slots) > n && slot_used(node, json_array_size(slots) - 1) == 0)
        json_array_remove(slots, json_array_size(slots) - 1);
}

size_t node_capacity_check_held(json_t *node, json_t *unmet)
{
    json_t *slots = json_object_get(node, "gpu_alloc");
    int64_t count = doc_int(node, "gpu_count"), held_beyond = 0;
    size_t added = 0;
    if (count < 0)
        count = 0;
    slots_fit(node);
    for (size_t i = (size_t)count; i < json_array_size(slots); i++)
        held_beyond += slot_used(node, i) > 0;
    int64_t used_x100 = 0;
    for (size_t i = 0; i < json_array_size(slots); i++)
        used_x100 += slot_used(node, i);
    if (json_array_size(json_object_get(node, "workers")) == 0)
        return 0;
    if (held_beyond > 0 || used_x100 > count * 100) {
        json_array_append_new(unmet, json_pack("{s:s, s:O, s:I, s:s}", "requirement", "gpus_held", "required",
                                               json_object_get(node, "gpus_used"), "actual", (json_int_t)count,
                                               "message",
                                               "running workers hold more GPUs than the node reports; it takes no new "
                                               "work until they end"));
        added++;
    }
    if (doc_int(node, "disk_used_gb") > doc_int(node, "disk_gb")) {
        json_array_append_new(unmet, json_pack("{s:s, s:I, s:I, s:s}", "requirement", "disk_held", "required",
                                               (json_int_t)doc_int(node, "disk_used_gb"), "actual",
                                               (json_int_t)doc_int(node, "disk_gb"), "message",
                                               "running workers hold more NVMe disk (GB) than the node reports"));
        added++;
    }
    if (doc_int(node, "cpus_used") > doc_int(node, "cpu_cores") * 2) {
        json_array_append_new(unmet, json_pack("{s:s, s:I, s:I, s:s}", "requirement", "vcpus_held", "required",
                                               (json_int_t)doc_int(node, "cpus_used"), "actual",
                                               (json_int_t)(doc_int(node, "cpu_cores") * 2), "message",
                                               "running workers hold more vCPUs than the node reports"));
        added++;
    }
    return added;
}

int node_capacity_unmet_is_held(const json_t *entry)
{
    const char *req = doc_str(entry, "requirement");
    size_t n = strlen(req);
    return n > 5 && strcmp(req + n - 5, "_held") == 0;
}

/* Drops the "_held" entries of unmet: they last while workers run. */
static void unmet_drop_held(json_t *node)
{
    json_t *unmet = json_object_get(node, "unmet");
    for (size_t i = json_array_size(unmet); i-- > 0;)
        if (node_capacity_unmet_is_held(json_array_get(unmet, i)))
            json_array_remove(unmet, i);
}

void node_capacity_take(json_t *node, const json_t *job, size_t worker, const json_t *alloc, rd_time now)
{
    const json_t *res = json_object_get(job, "resources");
    char ref[160], ts[RDTIME_BUFLEN];
    json_t *slots = json_object_get(node, "gpu_alloc");
    if (!json_is_array(slots)) {
        slots = json_array();
        for (int64_t i = 0; i < doc_int(node, "gpu_count"); i++)
            json_array_append_new(slots, json_integer(0));
        json_object_set_new(node, "gpu_alloc", slots);
        slots = json_object_get(node, "gpu_alloc");   /* NULL when that failed (and freed it) */
    }
    /* a node that reported more GPUs than it had slots for */
    slots_cover(node, (size_t)(doc_int(node, "gpu_count") > 0 ? doc_int(node, "gpu_count") : 0));
    size_t i;
    json_t *a;
    json_array_foreach(alloc, i, a) {
        size_t g = (size_t)doc_int(a, "gpu");
        json_array_set_new(slots, g, json_integer(slot_used(node, g) + doc_int(a, "x100")));
    }
    node_set_gpus_used(node);
    json_object_set_new(node, "disk_used_gb", json_integer(doc_int(node, "disk_used_gb") + doc_int(res, "disk_size")));
    if (accepts_gpu(job, "cpu"))
        json_object_set_new(node, "cpus_used", json_integer(doc_int(node, "cpus_used") + doc_int(res, "cpu_count")));
    worker_ref(job, worker, ref, sizeof ref);
    if (!json_is_array(json_object_get(node, "workers")))
        json_object_set_new(node, "workers", json_array());
    json_array_append_new(json_object_get(node, "workers"), json_string(ref));
    json_object_set_new(node, "last_used_at", json_string(rdtime_format(now, ts)));
}

void node_capacity_release(json_t *node, const json_t *job, size_t worker, rd_time now)
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
        size_t g = (size_t)doc_int(a, "gpu");
        int64_t left = slot_used(node, g) - doc_int(a, "x100");
        json_array_set_new(slots, g, json_integer(left > 0 ? left : 0));
    }
    slots_fit(node);
    node_set_gpus_used(node);
    int64_t disk = doc_int(node, "disk_used_gb") - doc_int(res, "disk_size");
    json_object_set_new(node, "disk_used_gb", json_integer(disk > 0 ? disk : 0));
    if (accepts_gpu(job, "cpu")) {
        int64_t cpus = doc_int(node, "cpus_used") - doc_int(res, "cpu_count");
        json_object_set_new(node, "cpus_used", json_integer(cpus > 0 ? cpus : 0));
    }
    json_object_set_new(node, "last_used_at", json_string(rdtime_format(now, ts)));
    if (strcmp(doc_str(node, "state"), "draining") == 0 && json_array_size(workers) == 0) {
        unmet_drop_held(node);
        json_object_set_new(node, "state", json_string("maintenance"));
        json_object_set_new(node, "state_changed_at", json_string(ts));
    }
}
