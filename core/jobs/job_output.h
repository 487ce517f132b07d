/* job_output.h - what an agent reports about a worker's output after its
 * command (execution.md §5, "After the command"; job_output.c). */
#ifndef RD_JOB_OUTPUT_H
#define RD_JOB_OUTPUT_H

#include <jansson.h>
#include <stdint.h>

#include "cmd.h"
#include "err.h"

/* `job report ID uploading --worker N [--bytes B]`: worker w (running or
 * stopping) uploads its output; sets its "phase" ("uploading") and
 * "phase_bytes" (the archive's size, when given).  Not an end: the worker
 * stays running and billed.  Takes job (stores it). */
rd_code job_output_uploading(cmd_ctx *ctx, const cmd_args *a, json_t *job, int64_t w, json_t **result, rd_err *err);

/* `job report ID finished --worker N --register`: records the uploaded
 * archive of worker w of a job whose data.output has type rigdeck as a
 * dataset, model or checkpoint (data.output.path) of the job's creator,
 * named after the job ("<name>" for one worker, "<name>_<w>" for
 * several), whose source is job_output_url's.  Nothing of it comes from
 * the agent: it only says that the upload is done.  An object of that name
 * that exists with another source is refused (RD_EEXISTS). */
rd_code job_output_register(cmd_ctx *ctx, json_t *job, size_t w, rd_err *err);

/* The archive's file name, "<name>.zip" or "<name>_<w>.zip" (seed 001),
 * the job's name with spaces as '_' (RIGDECK_JOB_NAME). */
void job_output_zip_name(const json_t *job, size_t w, char *out, size_t len);

/* Where the archive of worker w goes: data.output.path joined with the zip
 * name; for type rigdeck, the creator's artifacts location (refs
 * data_refs.output) joined with the job's id and the zip name, so two jobs
 * of one name never overwrite each other.  NULL when the job has no
 * output to upload.  Free it. */
char *job_output_url(const json_t *job, size_t w);

#endif
