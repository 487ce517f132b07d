/* node_gpu_health.c - reading GPU health off a node document (the
 * commands that change it are node_health.c's; the scheduler, `node show`
 * and `metrics fleet` only read). */
#include "node_health.h"

#include <stdlib.h>
#include <string.h>

#include "doc.h"

static json_t *entry_of(const json_t *node, int64_t index)
{
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(node, "gpu_health"), i, e)
        if (doc_int(e, "index") == index)
            return e;
    return NULL;
}

int node_health_gpu_unhealthy(const json_t *node, int64_t index)
{
    return entry_of(node, index) != NULL;
}

json_t *node_health_view(const json_t *node)
{
    json_t *out = json_array();
    int64_t count = node_health_gpu_count(node);
    for (int64_t i = 0; i < count; i++) {
        const json_t *e = entry_of(node, i);
        if (e)
            json_array_append_new(out, json_pack("{s:I, s:s, s:s, s:s, s:s}", "index", (json_int_t)i, "state",
                                                 "unhealthy", "reason", doc_str(e, "reason"), "detail",
                                                 doc_str(e, "detail"), "since", doc_str(e, "since")));
        else
            json_array_append_new(out, json_pack("{s:I, s:s, s:n, s:n, s:n}", "index", (json_int_t)i, "state",
                                                 "healthy", "reason", "detail", "since"));
    }
    return out;
}


int64_t node_health_gpu_count(const json_t *node)
{
    return strcmp(doc_str(node, "gpu_type"), "cpu") == 0 ? 0 : doc_int(node, "gpu_count");
}

rd_code node_health_parse_gpu(const json_t *node, const char *field, const char *text, int64_t *index, rd_err *err)
{
    char *end = NULL;
    long v = strtol(text, &end, 10);
    int64_t count = node_health_gpu_count(node);
    if (!*text || *end || v < 0)
        return rd_fail(err, RD_EINVAL, "%s: '%s' is not a GPU index (0, 1, ...)", field, text);
    if (count <= 0)
        return rd_fail(err, RD_EINVAL, "%s: node '%s' has no GPUs", field, doc_str(node, "name"));
    if (v >= count)
        return rd_fail(err, RD_EINVAL, "%s: node '%s' has GPUs 0..%lld; there is no GPU %ld", field,
                       doc_str(node, "name"), (long long)count - 1, v);
    *index = v;
    return RD_OK;
}
