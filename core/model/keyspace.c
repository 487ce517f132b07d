/* keyspace.c - which kind of document a store key is, and the keys of
 * the documents every layer names (accounts, projects); see keyspace.h. */
#include "keyspace.h"

#include <stdio.h>
#include <string.h>

static const char *const prefixes[KEYSPACE_OTHER] = {
    [KEYSPACE_META] = KEY_ROOT "meta/",
    [KEYSPACE_ACCOUNTS] = KEY_ACCOUNTS,
    [KEYSPACE_PROJECTS] = KEY_PROJECTS,
    [KEYSPACE_PROVIDERS] = KEY_PROVIDERS,
    [KEYSPACE_REGIONS] = KEY_REGIONS,
    [KEYSPACE_QUOTAS] = KEY_QUOTAS,
    [KEYSPACE_NODES] = KEY_NODES,
    [KEYSPACE_MINIONS] = KEY_MINIONS,
    [KEYSPACE_DEVICES] = KEY_DEVICES,
    [KEYSPACE_DEVICE_CONFIGS] = KEY_DEVICE_CONFIGS,
    [KEYSPACE_DEVICE_TENURES] = KEY_DEVICE_TENURES,
    [KEYSPACE_DATASTORES] = KEY_DATASTORES,
    [KEYSPACE_RESERVATIONS] = KEY_RESERVATIONS,
    [KEYSPACE_PORTS] = KEY_PORTS,
    [KEYSPACE_JOBS] = KEY_JOBS,
    [KEYSPACE_PRICES] = KEY_PRICES,
    [KEYSPACE_SCHED_CONFIG] = KEY_SCHED_CONFIG,
    [KEYSPACE_SCHED_IDLE] = KEY_SCHED_IDLE,
    [KEYSPACE_LEDGER_ACCOUNTS] = KEY_LEDGER_ACCOUNTS,
    [KEYSPACE_LEDGER_TRANSFERS] = KEY_LEDGER_TRANSFERS,
    [KEYSPACE_LEDGER_INDEX] = KEY_LEDGER_INDEX,
    [KEYSPACE_BILLING] = KEY_ROOT "billing/",
    [KEYSPACE_AUDIT] = KEY_AUDIT,
    [KEYSPACE_AGENTS] = KEY_AGENTS,
    [KEYSPACE_AGENT_ALIVE] = KEY_AGENT_ALIVE,
    [KEYSPACE_LOGS] = KEY_LOGS,
    [KEYSPACE_SERVE] = KEY_ROOT "serve/",
    [KEYSPACE_METRICS] = KEY_METRICS,
    [KEYSPACE_ALERT_RULES] = KEY_ALERT_RULES,
    [KEYSPACE_ALERTS] = KEY_ALERTS,
    [KEYSPACE_RELAY] = KEY_RELAY,
    [KEYSPACE_CREDENTIALS] = KEY_CREDENTIALS,
    [KEYSPACE_RELAY_DONE] = KEY_RELAY_DONE,
    [KEYSPACE_WORK] = KEY_WORK,
    [KEYSPACE_GPUS] = KEY_GPUS,
    [KEYSPACE_ENVIRONMENTS] = KEY_ENVIRONMENTS,
    [KEYSPACE_DATAKEYS] = KEY_DATAKEYS,
    [KEYSPACE_DATASETS] = KEY_DATASETS,
    [KEYSPACE_CHECKPOINTS] = KEY_CHECKPOINTS,
    [KEYSPACE_MODELS] = KEY_MODELS,
    [KEYSPACE_DEVICE_AGENTS] = KEY_DEVICE_AGENTS,
    [KEYSPACE_DEVICE_ALIVE] = KEY_DEVICE_ALIVE,
};

keyspace_kind keyspace_kind_of(const char *key)
{
    if (strncmp(key, KEY_ROOT, strlen(KEY_ROOT)) != 0)
        return KEYSPACE_OTHER;
    for (int k = 0; k < KEYSPACE_OTHER; k++)
        if (strncmp(key, prefixes[k], strlen(prefixes[k])) == 0)
            return (keyspace_kind)k;
    return KEYSPACE_OTHER;
}

const char *keyspace_prefix(keyspace_kind kind)
{
    return kind >= 0 && kind < KEYSPACE_OTHER ? prefixes[kind] : "";
}

const char *keyspace_account_key(char buf[RD_KEY_MAX], const char *name)
{
    snprintf(buf, RD_KEY_MAX, KEY_ACCOUNTS "%s", name);
    return buf;
}

const char *keyspace_project_key(char buf[RD_KEY_MAX], const char *owner, const char *name)
{
    snprintf(buf, RD_KEY_MAX, KEY_PROJECTS "%s/%s", owner, name);
    return buf;
}
