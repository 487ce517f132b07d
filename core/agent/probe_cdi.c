/* probe_cdi.c - the CDI check of probe_cdi.h: read the CDI specs with the
 * one YAML loader (yamljson.c; a JSON spec is YAML too), collect the names
 * of kind nvidia.com/gpu, and say which of the node's GPU indices podman
 * could not resolve.  Only index names count: the runner asks for
 * nvidia.com/gpu=<index>, so a spec that names its GPUs only by UUID
 * (nvidia-ctk --device-name-strategy=uuid) does not serve it.
 */
#include "probe_cdi.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "yamljson.h"

enum { CDI_FILE_MAX = 16 * 1024 * 1024 };

rd_code probe_cdi_spec_names(const char *text, size_t len, const char *source, json_t *names, rd_err *err)
{
    json_t *doc = NULL, *d;
    size_t i;
    rd_code rc = yamljson_parse(text, len, source, &doc, err);
    if (rc != RD_OK)
        return rc;
    if (!json_is_object(doc)) {
        json_decref(doc);
        return rd_fail(err, RD_EINVAL, "%s: a CDI spec is a mapping with kind and devices", source);
    }
    if (strcmp(doc_str(doc, "kind"), "nvidia.com/gpu") == 0)
        json_array_foreach(json_object_get(doc, "devices"), i, d) {
            json_t *name = json_object_get(d, "name");
            if (json_is_string(name))
                json_array_append(names, name);
            else if (json_is_integer(name))   /* name: 0 unquoted in a hand-written spec */
                json_array_append_new(names, json_sprintf("%lld", (long long)json_integer_value(name)));
        }
    json_decref(doc);
    return RD_OK;
}

static int spec_file(const char *name)
{
    size_t n = strlen(name);
    return (n > 5 && strcmp(name + n - 5, ".yaml") == 0) || (n > 4 && strcmp(name + n - 4, ".yml") == 0) ||
           (n > 5 && strcmp(name + n - 5, ".json") == 0);
}

static int by_name(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

static void read_spec(const char *path, json_t *names, json_t *bad)
{
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    size_t len = 0;
    rd_err err = { 0 };
    if (f) {
        text = malloc(CDI_FILE_MAX + 1);
        len = text ? fread(text, 1, CDI_FILE_MAX + 1, f) : 0;
        fclose(f);
    }
    if (!text || len > CDI_FILE_MAX)
        json_array_append_new(bad, json_sprintf("%s: cannot be read", path));
    else if (probe_cdi_spec_names(text, len, path, names, &err) != RD_OK)
        json_array_append_new(bad, json_string(err.msg));
    free(text);
}

/* The spec files of one directory, in name order (as podman reads them). */
static void read_dir(const char *dir, json_t *names, json_t *bad)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char **list = NULL;
    size_t n = 0, cap = 0;
    if (!d)
        return;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || !spec_file(e->d_name))
            continue;
        if (n == cap) {
            char **grown = realloc(list, (cap = cap ? cap * 2 : 8) * sizeof *list);
            if (!grown)
                break;
            list = grown;
        }
        if (!(list[n] = strdup(e->d_name)))
            break;
        n++;
    }
    closedir(d);
    if (n)
        qsort(list, n, sizeof *list, by_name);
    for (size_t i = 0; i < n; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", dir, list[i]);
        read_spec(path, names, bad);
        free(list[i]);
    }
    free(list);
}

json_t *probe_cdi_names(const char *dirs, json_t **bad)
{
    json_t *names = json_array();
    const char *p;
    *bad = json_array();
    if (!dirs)
        dirs = getenv("RIGDECK_CDI_DIRS") ? getenv("RIGDECK_CDI_DIRS") : PROBE_CDI_DIRS;
    for (p = dirs; names && *bad;) {
        size_t n = strcspn(p, ":");
        char dir[4096];
        if (n > 0 && n < sizeof dir) {
            memcpy(dir, p, n);
            dir[n] = '\0';
            read_dir(dir, names, *bad);
        }
        if (!p[n])
            break;
        p += n + 1;
    }
    return names;
}

static int has_name(const json_t *names, const char *want)
{
    size_t i;
    json_t *v;
    json_array_foreach(names, i, v)
        if (strcmp(json_string_value(v), want) == 0)
            return 1;
    return 0;
}

int probe_cdi_check(const json_t *names, int ngpus, const char *dirs, char *detail, size_t len)
{
    size_t at = 0;
    int missing = 0;
    detail[0] = '\0';
    if (!dirs)
        dirs = getenv("RIGDECK_CDI_DIRS") ? getenv("RIGDECK_CDI_DIRS") : PROBE_CDI_DIRS;
    for (int g = 0; g < ngpus; g++) {
        char want[16];
        snprintf(want, sizeof want, "%d", g);
        if (has_name(names, want))
            continue;
        if (!missing++)
            at += (size_t)snprintf(detail, len, "no CDI device nvidia.com/gpu=%d", g);
        else if (at < len)
            at += (size_t)snprintf(detail + at, len - at, ", nvidia.com/gpu=%d", g);
    }
    if (missing && at < len)
        snprintf(detail + at, len - at, " in the CDI specs of %s (%s): podman cannot give GPU jobs their GPUs; "
                 "generate the spec with: %s", dirs, json_array_size(names) ? "they name other devices" :
                 "none names an nvidia.com/gpu device", PROBE_CDI_GENERATE);
    return missing > 0;
}

int probe_cdi_inventory_gpus(const char *path)
{
    FILE *f = fopen(path, "rb");
    char buf[65536];
    size_t len;
    json_t *doc = NULL, *g;
    size_t i;
    int n = 0;
    rd_err err = { 0 };
    if (!f)
        return 0;
    len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    if (len == sizeof buf || yamljson_parse(buf, len, path, &doc, &err) != RD_OK)
        return 0;
    json_array_foreach(json_object_get(doc, "gpus"), i, g)
        n += (int)doc_int(g, "count");
    json_decref(doc);
    return n;
}
