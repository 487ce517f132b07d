/* gcp.c - the Compute Engine calls the cloud driver makes, and what goes
 * into them: instance names derived from node names, machine types for GPU
 * burst nodes, the instances.insert body.
 *
 * Operations are polled (zoneOperations.get) with a growing interval until
 * DONE; a DONE operation carrying an error is a failure classified like an
 * HTTP error (ZONE_RESOURCE_POOL_EXHAUSTED usually arrives this way).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>

#include "gcp_int.h"
#include "rdtime.h"

#define POLL_CAP_MS 10000L

/* ---- the client -------------------------------------------------------- */

rd_code gcp_client_new(const char *key_json, size_t len, const char *label, gcp_client **out, rd_err *err)
{
    *out = NULL;
    gcp_client *c = calloc(1, sizeof *c);
    if (!c)
        return rd_fail(err, RD_ENOMEM, "out of memory");
    rd_code rc = gcp_key_parse(key_json, len, &c->key, err);
    if (rc != RD_OK) {
        free(c);
        return rc;
    }
    const char *ep = getenv("RIGDECK_GCP_ENDPOINT");
    c->endpoint = strdup(ep && *ep ? ep : GCP_DEFAULT_ENDPOINT);
    if (!c->endpoint) {
        gcp_client_free(c);
        return rd_fail(err, RD_ENOMEM, "out of memory");
    }
    size_t n = strlen(c->endpoint);
    while (n > 0 && c->endpoint[n - 1] == '/')
        c->endpoint[--n] = '\0';
    gcp_client_set_label(c, label);
    *out = c;
    return RD_OK;
}

void gcp_client_free(gcp_client *c)
{
    if (!c)
        return;
    gcp_key_free(&c->key);
    if (c->curl)
        curl_easy_cleanup(c->curl);
    free(c->endpoint);
    free(c);
}

void gcp_client_set_label(gcp_client *c, const char *label)
{
    snprintf(c->label, sizeof c->label, "%s", label ? label : "gcp");
}

const char *gcp_client_project(const gcp_client *c)
{
    return c->key.project_id;
}

/* {endpoint}/projects/{project}/{fmt...} into a new string. */
static char *api_url(const gcp_client *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *api_url(const gcp_client *c, const char *fmt, ...)
{
    char tail[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tail, sizeof tail, fmt, ap);
    va_end(ap);
    char *url = NULL;
    if (asprintf(&url, "%s/projects/%s/%s", c->endpoint, c->key.project_id, tail) < 0)
        return NULL;
    return url;
}

/* ---- regions and instances --------------------------------------------- */

rd_code gcp_region_quotas(gcp_client *c, const char *region, json_t **metrics, gcp_fault *f, rd_err *err)
{
    char what[128];
    json_t *doc = NULL;
    char *url = api_url(c, "regions/%s", region);
    *metrics = NULL;
    if (!url)
        return rd_fail(err, RD_ENOMEM, "out of memory");
    snprintf(what, sizeof what, "regions.get %s", region);
    rd_code rc = gcp_api_call(c, "GET", url, NULL, what, &doc, f, err);
    free(url);
    if (rc != RD_OK)
        return rc;
    json_t *out = json_object(), *q;
    size_t i;
    json_array_foreach(json_object_get(doc, "quotas"), i, q) {
        const char *m = json_string_value(json_object_get(q, "metric"));
        if (m && json_is_number(json_object_get(q, "limit")))
            json_object_set_new(out, m, json_pack("{s:I, s:I}", "limit", (json_int_t)json_number_value(json_object_get(q, "limit")),
                                                  "usage", (json_int_t)json_number_value(json_object_get(q, "usage"))));
    }
    json_decref(doc);
    *metrics = out;
    return RD_OK;
}

rd_code gcp_list_instances(gcp_client *c, const char *zone, json_t **items, gcp_fault *f, rd_err *err)
{
    char what[128], *page = NULL;
    rd_code rc = RD_OK;
    *items = json_array();
    snprintf(what, sizeof what, "instances.list in %s", zone);
    for (int pages = 0; rc == RD_OK && pages < 100; pages++) {
        json_t *doc = NULL;
        char *url = page ? api_url(c, "zones/%s/instances?maxResults=500&pageToken=%s", zone, page)
                         : api_url(c, "zones/%s/instances?maxResults=500", zone);
        free(page);
        page = NULL;
        if (!url)
            return rd_fail(err, RD_ENOMEM, "out of memory");
        rc = gcp_api_call(c, "GET", url, NULL, what, &doc, f, err);
        free(url);
        if (rc != RD_OK)
            break;
        if (json_is_array(json_object_get(doc, "items")))   /* an empty zone has no "items" */
            json_array_extend(*items, json_object_get(doc, "items"));
        const char *next = json_string_value(json_object_get(doc, "nextPageToken"));
        if (next && *next) {
            char *esc = curl_easy_escape(NULL, next, 0);
            page = esc ? strdup(esc) : NULL;
            curl_free(esc);
            if (!page)   /* a partial list would read as instances gone */
                rc = rd_fail(err, RD_ENOMEM, "out of memory");
        }
        json_decref(doc);
        if (!page)
            break;
    }
    free(page);
    if (rc != RD_OK) {
        json_decref(*items);
        *items = NULL;
    }
    return rc;
}

rd_code gcp_get_instance(gcp_client *c, const char *zone, const char *name, json_t **inst, gcp_fault *f, rd_err *err)
{
    char what[160];
    char *url = api_url(c, "zones/%s/instances/%s", zone, name);
    if (!url)
        return rd_fail(err, RD_ENOMEM, "out of memory");
    snprintf(what, sizeof what, "instances.get %s in %s", name, zone);
    rd_code rc = gcp_api_call(c, "GET", url, NULL, what, inst, f, err);
    free(url);
    return rc;
}

rd_code gcp_insert_instance(gcp_client *c, const char *zone, const json_t *body, json_t **op, gcp_fault *f,
                            rd_err *err)
{
    char what[160];
    char *url = api_url(c, "zones/%s/instances", zone);
    if (!url)
        return rd_fail(err, RD_ENOMEM, "out of memory");
    snprintf(what, sizeof what, "instances.insert %s in %s", json_string_value(json_object_get(body, "name")), zone);
    rd_code rc = gcp_api_call(c, "POST", url, body, what, op, f, err);
    free(url);
    return rc;
}

static rd_code instance_action(gcp_client *c, const char *method, const char *verb, const char *zone,
                               const char *name, json_t **op, gcp_fault *f, rd_err *err)
{
    char what[160];
    char *url = strcmp(verb, "delete") == 0 ? api_url(c, "zones/%s/instances/%s", zone, name)
                                            : api_url(c, "zones/%s/instances/%s/%s", zone, name, verb);
    if (!url)
        return rd_fail(err, RD_ENOMEM, "out of memory");
    snprintf(what, sizeof what, "instances.%s %s in %s", verb, name, zone);
    rd_code rc = gcp_api_call(c, method, url, NULL, what, op, f, err);
    free(url);
    return rc;
}

rd_code gcp_delete_instance(gcp_client *c, const char *zone, const char *name, json_t **op, gcp_fault *f, rd_err *err)
{
    return instance_action(c, "DELETE", "delete", zone, name, op, f, err);
}

rd_code gcp_start_instance(gcp_client *c, const char *zone, const char *name, json_t **op, gcp_fault *f, rd_err *err)
{
    return instance_action(c, "POST", "start", zone, name, op, f, err);
}

/* ---- waiting ----------------------------------------------------------- */

static long next_interval(long interval)
{
    long base = gcp_poll_ms();
    long next = interval + interval / 2;
    return next > POLL_CAP_MS && next > base ? (base > POLL_CAP_MS ? base : POLL_CAP_MS) : next;
}

/* The last path element of a zone URL ("https://.../zones/us-central1-a"). */
static const char *last_part(const char *s)
{
    const char *slash = s ? strrchr(s, '/') : NULL;
    return slash ? slash + 1 : s ? s : "";
}

rd_code gcp_wait_operation(gcp_client *c, const json_t *op, const char *what, long deadline_ms, gcp_fault *f,
                           rd_err *err)
{
    gcp_fault local;
    if (!f)
        f = &local;
    const char *name = json_string_value(json_object_get(op, "name"));
    char zone[64], opname[128], label[200];
    snprintf(zone, sizeof zone, "%s", last_part(json_string_value(json_object_get(op, "zone"))));
    snprintf(opname, sizeof opname, "%s", name ? name : "");
    snprintf(label, sizeof label, "zoneOperations.get %s (%s)", opname, what);
    json_t *cur = json_incref((json_t *)op);
    long start = rdtime_mono_ms(), interval = gcp_poll_ms();
    rd_code rc = RD_OK;
    memset(f, 0, sizeof *f);
    f->limit = -1;
    if (!*opname || !*zone) {
        json_decref(cur);
        f->status = GCP_PROTOCOL;
        snprintf(f->detail, sizeof f->detail, "the operation has no name or zone");
        return gcp_fail(c, what, f, err);
    }
    for (;;) {
        const char *status = json_string_value(json_object_get(cur, "status"));
        if (status && strcmp(status, "DONE") == 0) {
            gcp_classify_operation(cur, f);
            if (f->status != GCP_OK)
                rc = gcp_fail(c, what, f, err);
            break;
        }
        if (rdtime_mono_ms() - start >= deadline_ms) {
            f->status = GCP_TIMEOUT;
            snprintf(f->detail, sizeof f->detail, "operation %s still %s after %ld ms", opname,
                     status ? status : "unknown", deadline_ms);
            rc = gcp_fail(c, what, f, err);
            break;
        }
        gcp_sleep_ms(interval);
        interval = next_interval(interval);
        char *url = api_url(c, "zones/%s/operations/%s", zone, opname);
        if (!url) {
            rc = rd_fail(err, RD_ENOMEM, "out of memory");
            break;
        }
        json_decref(cur);
        cur = NULL;
        rc = gcp_api_call(c, "GET", url, NULL, label, &cur, f, err);
        free(url);
        if (rc != RD_OK)
            break;
    }
    json_decref(cur);
    return rc;
}

static int status_transitional(const char *s)
{
    return strcmp(s, "PROVISIONING") == 0 || strcmp(s, "STAGING") == 0 || strcmp(s, "STOPPING") == 0 ||
           strcmp(s, "SUSPENDING") == 0 || strcmp(s, "REPAIRING") == 0 || strcmp(s, "PENDING") == 0;
}

rd_code gcp_wait_instance(gcp_client *c, const char *zone, const char *name, long deadline_ms, char status[32],
                          gcp_fault *f, rd_err *err)
{
    long start = rdtime_mono_ms(), interval = gcp_poll_ms();
    status[0] = '\0';
    for (;;) {
        json_t *inst = NULL;
        rd_code rc = gcp_get_instance(c, zone, name, &inst, f, err);
        if (rc == RD_ENOTFOUND)
            return RD_OK;
        if (rc != RD_OK)
            return rc;
        snprintf(status, 32, "%s", json_string_value(json_object_get(inst, "status")) ?
                                       json_string_value(json_object_get(inst, "status")) : "UNKNOWN");
        json_decref(inst);
        if (!status_transitional(status) || rdtime_mono_ms() - start >= deadline_ms)
            return RD_OK;
        gcp_sleep_ms(interval);
        interval = next_interval(interval);
    }
}

/* ---- names, machines, bodies ------------------------------------------- */

static uint32_t fnv1a(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 16777619u;
    }
    return h;
}

void gcp_instance_name(const char *node, char out[GCP_INSTANCE_NAME_MAX + 1])
{
    int plain = 1;
    size_t n = strlen(node);
    for (size_t i = 0; i < n; i++)
        if (!((node[i] >= 'a' && node[i] <= 'z') || (node[i] >= '0' && node[i] <= '9') || node[i] == '-'))
            plain = 0;
    if (n == 0 || node[n - 1] == '-' || 8 + n > GCP_INSTANCE_NAME_MAX)
        plain = 0;
    if (plain) {
        snprintf(out, GCP_INSTANCE_NAME_MAX + 1, "rigdeck-%s", node);
        return;
    }
    /* rigdeck-<up to 45 sanitised chars>-<8 hex>: 8 + 45 + 1 + 8 = 62. */
    char body[46];
    size_t j = 0;
    for (size_t i = 0; i < n && j < 45; i++) {
        char ch = node[i];
        body[j++] = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ? ch : '-';
    }
    body[j] = '\0';
    snprintf(out, GCP_INSTANCE_NAME_MAX + 1, "rigdeck-%s-%08x", body, fnv1a(node));
}

const char *gcp_machine_type(const char *accelerator, int gpus, int cpus_per_gpu, char buf[64], int *gpus_out)
{
    static const int a2_sizes[] = { 1, 2, 4, 8, 16 };
    *gpus_out = gpus;
    if (accelerator && (strcmp(accelerator, "nvidia-tesla-a100") == 0 || strcmp(accelerator, "nvidia-a100-80gb") == 0)) {
        int ultra = strcmp(accelerator, "nvidia-a100-80gb") == 0;
        int size = 0;
        for (size_t i = 0; i < sizeof a2_sizes / sizeof a2_sizes[0] && !size; i++)
            if (a2_sizes[i] >= gpus && !(ultra && a2_sizes[i] > 8))
                size = a2_sizes[i];
        if (!size)
            size = ultra ? 8 : 16;
        *gpus_out = size;
        if (!ultra && size == 16)
            snprintf(buf, 64, "a2-megagpu-16g");
        else
            snprintf(buf, 64, "a2-%sgpu-%dg", ultra ? "ultra" : "high", size);
        return buf;
    }
    int cpus = gpus * cpus_per_gpu;
    if (cpus < 2)
        cpus = 2;
    cpus += cpus % 2;   /* n1 custom machines take 1 or an even number of vCPUs */
    snprintf(buf, 64, "custom-%d-%d", cpus, cpus * 6656);   /* 6.5 GB per vCPU, in MB */
    return buf;
}

/* Label values: a-z, 0-9, '-', '_', at most 63. */
static json_t *label_value(const char *s)
{
    char v[64];
    size_t j = 0;
    for (const char *p = s ? s : ""; *p && j < 63; p++)
        v[j++] = (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' ? *p : '-';
    v[j] = '\0';
    return json_string(v);
}

json_t *gcp_instance_body(const gcp_instance_spec *s)
{
    char buf[256];
    json_t *disks = json_array();
    int failed = 0;   /* a VM made from a partial body could lack its boot disk, GPUs or agent */
    snprintf(buf, sizeof buf, "zones/%s/diskTypes/pd-balanced", s->zone);
    failed |= json_array_append_new(disks, json_pack("{s:s, s:b, s:b, s:{s:s, s:I, s:s}}", "type", "PERSISTENT", "boot", 1,
                                           "autoDelete", 1, "initializeParams", "sourceImage",
                                           s->image ? s->image : GCP_DEFAULT_IMAGE, "diskSizeGb",
                                           (json_int_t)GCP_BOOT_DISK_GB, "diskType", buf));
    if (s->data_disk_gb > 0) {
        snprintf(buf, sizeof buf, "zones/%s/diskTypes/pd-ssd", s->zone);
        failed |= json_array_append_new(disks, json_pack("{s:s, s:b, s:s, s:{s:I, s:s}}", "type", "PERSISTENT", "autoDelete", 1,
                                               "deviceName", "rigdeck-data", "initializeParams", "diskSizeGb",
                                               (json_int_t)s->data_disk_gb, "diskType", buf));
    }
    snprintf(buf, sizeof buf, "zones/%s/diskTypes/local-ssd", s->zone);
    for (int i = 0; i < s->local_ssd_count; i++)
        failed |= json_array_append_new(disks, json_pack("{s:s, s:s, s:b, s:{s:s}}", "type", "SCRATCH", "interface", "NVME",
                                               "autoDelete", 1, "initializeParams", "diskType", buf));
    json_t *body = failed ? NULL : json_pack("{s:s, s:s, s:o, s:[{s:s, s:[{s:s, s:s}]}], s:{s:s, s:b, s:s}, "
                             "s:{s:[{s:s, s:s}, {s:s, s:s}]}, s:{s:s, s:o, s:o, s:o}}",
                             "name", s->name, "machineType", "", "disks", disks, "networkInterfaces", "network",
                             "global/networks/default", "accessConfigs", "type", "ONE_TO_ONE_NAT", "name",
                             "External NAT", "scheduling", "onHostMaintenance", "TERMINATE", "automaticRestart", 1,
                             "provisioningModel", "STANDARD", "metadata", "items", "key", "rigdeck-node", "value",
                             s->node, "key", "rigdeck-region", "value", s->region, "labels", "managed-by", "rigdeck",
                             "rigdeck-node", label_value(s->node), "rigdeck-region", label_value(s->region),
                             "rigdeck-role", label_value(s->role));
    if (!body) {
        if (failed)   /* json_pack took disks (s:o) only when it ran */
            json_decref(disks);
        return NULL;
    }
    if (s->startup_script)   /* GCE's guest environment runs it as root at every boot */
        failed |= json_array_append_new(json_object_get(json_object_get(body, "metadata"), "items"),
                                        json_pack("{s:s, s:s}", "key", "startup-script", "value", s->startup_script));
    snprintf(buf, sizeof buf, "zones/%s/machineTypes/%s", s->zone, s->machine_type);
    failed |= json_object_set_new(body, "machineType", json_string(buf));
    if (s->accelerator && s->accelerator_count > 0) {
        snprintf(buf, sizeof buf, "zones/%s/acceleratorTypes/%s", s->zone, s->accelerator);
        failed |= json_object_set_new(body, "guestAccelerators", json_pack("[{s:s, s:i}]", "acceleratorType", buf,
                                                                           "acceleratorCount", s->accelerator_count));
    }
    if (failed) {
        json_decref(body);
        return NULL;
    }
    return body;
}
