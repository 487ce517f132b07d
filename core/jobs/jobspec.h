/* jobspec.h - the job specification: parsing, validation and normalisation.
 *
 * A job file (spec/job-spec.md) mirrors the job-configuration document (seed
 * 001): name, type and project, then the sections resources, data, model,
 * workers, endpoint, environment and regional.  This module owns every rule
 * that document states about a job's own content - storage path prefixes,
 * disk and CPU sizes, worker commands, endpoint routes, Python versions,
 * mount points and naming - and turns an accepted file into the normalised
 * JSON document that `job submit` stores.  It does not look anything up:
 * whether a dataset, datastore or reservation exists, and where the job may
 * run, are decided later by the submit command and the scheduler.
 *
 * The normalised document (every key always present; null = not given):
 *   name, type, project (null: the command's --project or the default)
 *   resources   {gpu_types[], gpus_x100 (0 for CPU-only), cpu_count,
 *                max_price_ucr (null: no limit), disk_size (GB)}
 *   data        {datasets[], input {type, path, endpoint}, output {...}}
 *   model       {source, location, endpoint, checkpoints[]}
 *   workers     {count, commands[]: exactly one per worker, [] for
 *                notebook and endpoint jobs}
 *   endpoint    {start_command, routes[{verb, path, file, function,
 *                positional, params[{name, type, optional, default}]}]}
 *                (null when absent; required for endpoint jobs)
 *   environment {python, framework, framework_version, image (python and
 *                framework null when given), packages {apt[], conda[],
 *                pip[]}, env {} (plain values here; job submit seals
 *                them, job_env.h), keys[]}
 *   regional    {datastore, reservation}
 *   env_job_name  the name with spaces turned into underscores
 *   system_env    {RIGDECK_JOB_NAME, ML_OUTPUT_PATH}: set in every worker
 *   mounts        [{what, name, path}] in this order: dataset (one at
 *                 /opt/ml/input, several at /opt/ml/input/<dir name>),
 *                 input (/opt/ml/input, or /opt/ml/input_data next to
 *                 datasets), checkpoint (/opt/ml/checkpoint[/<dir name>]),
 *                 model (/opt/ml/models), output (/opt/ml/output)
 * Money is integer micro-credits; GPU counts are hundredths of a GPU.
 */
#ifndef RD_JOBSPEC_H
#define RD_JOBSPEC_H

#include <stddef.h>

#include <jansson.h>

#include "err.h"

#define JOBSPEC_DISK_MIN_GB   10    /* seed 001: "The minimum is 10 GB" */
#define JOBSPEC_DISK_MAX_GB   1000  /* "and the maximum is 1 TB" (decimal) */
#define JOBSPEC_CPU_QUANTUM   4     /* CPU-only jobs: "Must be a multiple of 4" */
#define JOBSPEC_CPU_MAX       4096  /* vCPU per worker */
#define JOBSPEC_GPUS_MAX_X100 6400  /* 64 GPUs per worker, the largest inventory group */
#define JOBSPEC_WORKERS_MAX   100
#define JOBSPEC_NAME_MAX      128   /* job, dataset, checkpoint and model names */

#define JOBSPEC_INPUT_DIR      "/opt/ml/input"
#define JOBSPEC_INPUT_DATA_DIR "/opt/ml/input_data" /* data.input next to datasets */
#define JOBSPEC_CHECKPOINT_DIR "/opt/ml/checkpoint"
#define JOBSPEC_MODEL_DIR      "/opt/ml/models"
#define JOBSPEC_OUTPUT_DIR     "/opt/ml/output"
#define JOBSPEC_ENV_JOB_NAME   "RIGDECK_JOB_NAME"
#define JOBSPEC_ENV_OUTPUT     "ML_OUTPUT_PATH"

/* Parses and validates a job spec; on success *out is the normalised job
 * document (jansson object) ready to store, else RD_EINVAL with one message
 * naming the field path and the rule.  source names the file in messages
 * ("train.yaml: resources.disk_size must be between 10 and 1000 GB, got 5").
 * On failure *out is NULL. */
rd_code jobspec_parse(const char *text, size_t len, const char *source, json_t **out, rd_err *err);

/* Checks an image reference the way environment.image is checked
 * (seed 001's registry rule: Docker Hub, ECR, Azure, Artifact Registry,
 * NGC; lower-case repository, optional :tag or @sha256:digest); the
 * message names field ("--image"). */
rd_code jobspec_check_image(const char *field, const char *text, rd_err *err);

/* The directory name seed 001 gives a dataset or checkpoint mounted next to
 * others: the name with every space turned into an underscore ("PASCAL VOC"
 * -> "PASCAL_VOC").  Writes at most len bytes (NUL included) into buf and
 * returns buf. */
char *jobspec_dir_name(const char *name, char *buf, size_t len);

/* The spec's format for `help job submit`, one string a line ending with
 * NULL: every field with its type and limits, and an example
 * (jobspec_help.c; the shape cmd_note describes). */
extern const char *const jobspec_help_lines[];

#endif
