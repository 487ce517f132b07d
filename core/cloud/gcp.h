/* gcp.h - a small Google Compute Engine client: OAuth 2.0 service-account
 * tokens and the few Compute API calls the cloud driver (cloud.c) needs.
 *
 * Auth (gcp_auth.c): a JWT (RS256 over base64url header.claims, signed with
 * the key's RSA private key) is exchanged at the key's token_uri for an access
 * token, kept in a per-process cache until shortly before it expires, and
 * fetched again once when the API answers 401.
 *
 * Transport (gcp_http.c): one libcurl + jansson exchange, no tokens; every
 * failure is classified (gcp_fault) and described in one line that names
 * the region, the method and GCP's own reason: "gcp us-central1:
 * instances.insert rigdeck-x in us-central1-a failed: QUOTA_EXCEEDED
 * NVIDIA_A100_GPUS (limit 1)".
 *
 * API call (gcp_api.c): a bearer token on that exchange; 429, 5xx and
 * network failures are retried with exponential backoff.
 *
 * Key files (gcp_key.c): the service-account JSON, checked before use.
 *
 * Compute API (gcp.c): regions.get (quotas), instances list/get/insert/
 * delete/start, zone operations polled until DONE.  The base URL is
 * https://compute.googleapis.com/compute/v1 unless RIGDECK_GCP_ENDPOINT says
 * otherwise; the token endpoint is always the key's token_uri.
 *
 * Token lifetimes are the token server's real time (like store leases), so
 * the auth code reads the wall clock, never --now.  Nothing here touches the
 * store: network I/O stays inside the callers that mean to do it.
 */
#ifndef RD_GCP_H
#define RD_GCP_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "gcp_key.h"

#define GCP_DEFAULT_ENDPOINT "https://compute.googleapis.com/compute/v1"
#define GCP_SCOPE "https://www.googleapis.com/auth/compute"
#define GCP_INSTANCE_NAME_MAX 63

/* What kind of failure a call met (GCP_OK on success). */
typedef enum {
    GCP_OK = 0,
    GCP_QUOTA_EXCEEDED,        /* a regional quota is used up: no retry helps */
    GCP_ZONE_EXHAUSTED,        /* ZONE_RESOURCE_POOL_EXHAUSTED: try another zone */
    GCP_ALREADY_EXISTS,        /* 409: the resource exists (an insert repeated) */
    GCP_NOT_FOUND,             /* 404 */
    GCP_UNAUTHENTICATED,       /* 401 even with a fresh token, or the token endpoint refused the key */
    GCP_PERMISSION_DENIED,     /* 403: the service account lacks a role, or an API is disabled */
    GCP_RATE_LIMITED,          /* 429 (or 403 rateLimitExceeded) after every retry */
    GCP_UNAVAILABLE,           /* 5xx after every retry */
    GCP_NETWORK,               /* no HTTP answer after every retry */
    GCP_BAD_REQUEST,           /* 400 and other refusals: the request itself is wrong */
    GCP_TIMEOUT,               /* an operation was not DONE before the deadline */
    GCP_PROTOCOL,              /* an answer rigdeck cannot read */
    GCP_NSTATUS
} gcp_status;

typedef struct {
    gcp_status status;
    long http;             /* HTTP status of the last answer (0: none) */
    char reason[64];       /* GCP's word: QUOTA_EXCEEDED, ZONE_RESOURCE_POOL_EXHAUSTED, notFound ... */
    char metric[64];       /* the quota metric, when GCP named one */
    double limit;          /* its limit (-1 when unknown) */
    char detail[256];      /* GCP's message, trimmed */
} gcp_fault;

/* The stable lower-case word for a status ("quota_exceeded", "zone_exhausted", ...). */
const char *gcp_status_name(gcp_status s);

/* 1 when a later attempt may succeed without anyone changing anything. */
int gcp_status_transient(gcp_status s);

/* Classifies a Compute API (or token endpoint) error answer: HTTP status and
 * body (NULL when unreadable). */
void gcp_classify_http(long http, const json_t *body, gcp_fault *f);

/* Classifies a finished operation: GCP_OK when it has no "error". */
void gcp_classify_operation(const json_t *op, gcp_fault *f);

/* "QUOTA_EXCEEDED NVIDIA_A100_GPUS (limit 1)", "ZONE_RESOURCE_POOL_EXHAUSTED:
 * <detail>", "401 UNAUTHENTICATED: <detail>" ... into buf. */
const char *gcp_fault_text(const gcp_fault *f, char *buf, size_t len);

/* ---- pure helpers (unit tested) -------------------------------------- */

/* base64url without padding; malloc'd, NULL when out of memory. */
char *gcp_base64url(const unsigned char *data, size_t len);

/* The signed JWT assertion for key: RS256, iss = client_email, aud =
 * token_uri, the given scope, iat = now, exp = now + 3600. */
rd_code gcp_jwt_sign(const gcp_sa_key *key, const char *scope, int64_t now, char **jwt, rd_err *err);

/* The instance name of a node: "rigdeck-<node>" when that is a valid GCE
 * name (a-z, 0-9, '-', at most 63, ending in a letter or digit); otherwise a
 * shortened, sanitised form ending in a hash of the node name.  Stable: the
 * same node always gets the same name. */
void gcp_instance_name(const char *node, char out[GCP_INSTANCE_NAME_MAX + 1]);

typedef struct {
    const char *name;          /* instance name */
    const char *zone;          /* us-central1-a */
    const char *node;          /* rigdeck node name (metadata, labels) */
    const char *region;        /* rigdeck region name (labels) */
    const char *role;          /* "compute" or "storage" */
    const char *machine_type;  /* n1-..., a2-highgpu-1g, n2-standard-4 */
    const char *accelerator;   /* nvidia-tesla-t4 ...; NULL: none */
    int accelerator_count;
    int local_ssd_count;       /* 375 GB NVMe scratch disks */
    int data_disk_gb;          /* pd-ssd data disk (storage nodes); 0: none */
    const char *image;         /* boot image; NULL: GCP_DEFAULT_IMAGE */
    const char *startup_script; /* metadata startup-script (the node's agent); NULL: none */
} gcp_instance_spec;

#define GCP_DEFAULT_IMAGE "projects/debian-cloud/global/images/family/debian-12"
#define GCP_BOOT_DISK_GB 100
#define GCP_LOCAL_SSD_GB 375

/* The machine type of a burst node for gpus GPUs of type accelerator with
 * cpus_per_gpu vCPUs each: a2-highgpu-Ng / a2-ultragpu-Ng for A100s (the
 * smallest size holding the GPUs: *gpus_out says how many it carries),
 * n1 custom machines (cpus, 6.5 GB per vCPU) for the others.  buf: 64 bytes. */
const char *gcp_machine_type(const char *accelerator, int gpus, int cpus_per_gpu, char buf[64], int *gpus_out);

/* The instances.insert body for spec (a new object): guestAccelerators,
 * scheduling.onHostMaintenance TERMINATE, local SSDs, labels, metadata
 * (rigdeck-node, rigdeck-region and, when given, startup-script); NULL
 * when memory ran out, never a body missing a part. */
json_t *gcp_instance_body(const gcp_instance_spec *spec);

/* ---- the client ------------------------------------------------------ */

typedef struct gcp_client gcp_client;

/* Wall-clock source for token lifetimes (tests replace it); NULL: time(). */
typedef int64_t (*gcp_clock_fn)(void);

/* A client acting with the key (text of the JSON key file); label prefixes
 * every message ("gcp us-central1").  The endpoint is RIGDECK_GCP_ENDPOINT
 * or GCP_DEFAULT_ENDPOINT. */
rd_code gcp_client_new(const char *key_json, size_t len, const char *label, gcp_client **out, rd_err *err);
void gcp_client_free(gcp_client *c);

/* Changes the label of later messages. */
void gcp_client_set_label(gcp_client *c, const char *label);

/* The key's project id. */
const char *gcp_client_project(const gcp_client *c);

/* Replaces the wall clock (tests). */
void gcp_set_clock(gcp_clock_fn fn);

/* Number of tokens fetched from token endpoints by this process. */
unsigned long gcp_token_fetches(void);

/* Forgets every cached token. */
void gcp_token_cache_clear(void);

/* Each call returns RD_OK, or a failure whose rd_err names what failed and
 * whose *f (may be NULL) classifies it.  Results are new references. */

/* A bearer token for the client's key (cached). */
rd_code gcp_access_token(gcp_client *c, char **token, gcp_fault *f, rd_err *err);

/* regions.get: *metrics = {"METRIC": {"limit": n, "usage": n}} for every quota. */
rd_code gcp_region_quotas(gcp_client *c, const char *region, json_t **metrics, gcp_fault *f, rd_err *err);

/* instances.list of a zone, every page: *items is an array of instances. */
rd_code gcp_list_instances(gcp_client *c, const char *zone, json_t **items, gcp_fault *f, rd_err *err);

/* instances.get: RD_ENOTFOUND (f->status GCP_NOT_FOUND) when there is none. */
rd_code gcp_get_instance(gcp_client *c, const char *zone, const char *name, json_t **inst, gcp_fault *f, rd_err *err);

/* instances.insert: *op is the zone operation started.  An instance of that
 * name that exists already is RD_EEXISTS with f->status GCP_ALREADY_EXISTS. */
rd_code gcp_insert_instance(gcp_client *c, const char *zone, const json_t *body, json_t **op, gcp_fault *f,
                            rd_err *err);

/* instances.delete: RD_ENOTFOUND when the instance is gone already. */
rd_code gcp_delete_instance(gcp_client *c, const char *zone, const char *name, json_t **op, gcp_fault *f, rd_err *err);

/* instances.start (a TERMINATED instance). */
rd_code gcp_start_instance(gcp_client *c, const char *zone, const char *name, json_t **op, gcp_fault *f, rd_err *err);

/* Polls the zone operation op (as returned by insert/delete/start) until
 * DONE, waiting longer between polls, for at most deadline_ms; a DONE
 * operation with an error fails with that error classified (what names the
 * call it finished: "instances.insert rigdeck-x").  On GCP_TIMEOUT the
 * operation may still finish later. */
rd_code gcp_wait_operation(gcp_client *c, const json_t *op, const char *what, long deadline_ms, gcp_fault *f,
                           rd_err *err);

/* Polls instances.get until the instance leaves PROVISIONING/STAGING/
 * STOPPING/SUSPENDING or deadline_ms passes; *status gets the last status
 * (buf of 32), "" when the instance is gone. */
rd_code gcp_wait_instance(gcp_client *c, const char *zone, const char *name, long deadline_ms, char status[32],
                          gcp_fault *f, rd_err *err);

/* Milliseconds between operation polls (RIGDECK_GCP_POLL_MS, default 1000)
 * and the first retry backoff (RIGDECK_GCP_BACKOFF_MS, default 500). */
long gcp_poll_ms(void);
long gcp_backoff_ms(void);

/* Sleeps ms milliseconds. */
void gcp_sleep_ms(long ms);

#endif
