/* environment_seed.c - the environments a new store lists, and giving
 * them to an older store once (environment.h).  Apart from the commands
 * (environment.c) so that store bootstrap (account_init.c) calls nothing
 * that calls back into it.
 *
 * Every default ships Python 3.8 or 3.9, the only ones a job spec may ask
 * for (seed 001); docs/environments.md cites where each image's tag and
 * Python version come from.
 */
#include "environment.h"

#include <stdio.h>

#include "keyspace.h"

#define ECR "763104351884.dkr.ecr.us-east-1.amazonaws.com/"

static const struct {
    const char *name, *framework, *version, *python, *image;
} defaults[] = {
    { "deep-learning-py39", "deep_learning", NULL, "3.9", "paperspace/gradient-base:pt112-tf29-jax0317-py39-20230125" },
    { "deep-learning-py38", "deep_learning", NULL, "3.8", "horovod/horovod:0.28.1" },
    { "pytorch-1.13-py39", "pytorch", "1.13.1", "3.9", ECR "pytorch-training:1.13.1-gpu-py39-cu117-ubuntu20.04-ec2" },
    { "pytorch-1.12-py38", "pytorch", "1.12.1", "3.8", ECR "pytorch-training:1.12.1-gpu-py38-cu116-ubuntu20.04-ec2" },
    { "pytorch-1.11-py38", "pytorch", "1.11.0", "3.8", ECR "pytorch-training:1.11.0-gpu-py38-cu115-ubuntu20.04-ec2" },
    { "tensorflow-2.11-py39", "tensorflow", "2.11.0", "3.9",
      ECR "tensorflow-training:2.11.0-gpu-py39-cu112-ubuntu20.04-ec2" },
    { "tensorflow-2.10-py39", "tensorflow", "2.10.0", "3.9",
      ECR "tensorflow-training:2.10.0-gpu-py39-cu112-ubuntu20.04-ec2" },
    { "tensorflow-2.11-py38", "tensorflow", "2.11.0", "3.8", "tensorflow/tensorflow:2.11.0-gpu" },
    { "mxnet-1.9.1-py38", "mxnet", "1.9.1", "3.8", "nvcr.io/nvidia/mxnet:22.11-py3" },
    { "mxnet-1.9.0-py38", "mxnet", "1.9.0", "3.8", ECR "mxnet-training:1.9.0-gpu-py38-cu112-ubuntu20.04-ec2" },
};

static json_t *default_doc(size_t i, rd_time now)
{
    char ts[RDTIME_BUFLEN];
    return json_pack("{s:s, s:s, s:s, s:s?, s:s, s:b, s:s}", "name", defaults[i].name, "image", defaults[i].image,
                     "framework", defaults[i].framework, "framework_version", defaults[i].version, "python",
                     defaults[i].python, "default", 1, "created_at", rdtime_format(now, ts));
}

json_t *environment_defaults(rd_time now)
{
    json_t *all = json_array();
    for (size_t i = 0; all && i < sizeof defaults / sizeof defaults[0]; i++)
        json_array_append_new(all, default_doc(i, now));
    return all;
}

rd_code environment_stage_defaults(rd_tx *tx, rd_time now, rd_err *err)
{
    char key[RD_KEY_MAX];
    rd_code rc = RD_OK;
    for (size_t i = 0; rc == RD_OK && i < sizeof defaults / sizeof defaults[0]; i++) {
        json_t *doc = default_doc(i, now);
        if (!doc)
            return rd_fail(err, RD_ENOMEM, "out of memory");
        rc = tx_put(tx, tx_key(key, KEY_ENVIRONMENTS "%s", defaults[i].name), doc, err);
    }
    return rc;
}

rd_code environment_upgrade(rd_tx *tx, rd_time now, rd_err *err)
{
    json_t *meta = NULL, *items = NULL;
    rd_code rc = tx_get(tx, KEY_META_STORE, &meta, err);
    if (rc == RD_OK && meta && !json_is_true(json_object_get(meta, ENVIRONMENT_SEEDED_MARK))) {
        rc = tx_list(tx, KEY_ENVIRONMENTS, &items, err);
        if (rc == RD_OK && json_array_size(items) == 0)
            rc = environment_stage_defaults(tx, now, err);
        json_object_set_new(meta, ENVIRONMENT_SEEDED_MARK, json_true());
        if (rc == RD_OK)
            rc = tx_put(tx, KEY_META_STORE, json_incref(meta), err);
    }
    json_decref(items);
    json_decref(meta);
    return rc;
}

