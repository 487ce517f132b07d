/* jobspec_help.c - the job spec's format for a reader: what `help job
 * submit` shows after its flags (and docs/rigdeck.1, "JOB SPEC", says in
 * its words).  Every field the parser (jobspec*.c) accepts has a row here,
 * with its type and limits, so that a user never has to read the tests to
 * write a spec; tests/batch/test_job_spec_help.sh asks the parser for the
 * keys it allows at each level and fails on any missing row, or any row the
 * parser does not know.
 *
 * One string a line, in the shape cmd_note (cmd.h) describes: "FIELD\tTEXT"
 * is a row of the field table, a line starting with two spaces an example
 * kept as it is, any other line a paragraph.
 */
#include "jobspec.h"

#define STR_(x) #x
#define STR(x) STR_(x)

const char *const jobspec_help_lines[] = {
    "FILE is a job spec in YAML (JSON is YAML too).  Keys not listed below are refused, as is every rule "
        "broken, with one line naming the field; the store is then unchanged.  Required: name, type, "
        "resources.gpu_types and resources.disk_size.",
    "",
    "FIELD\tTYPE AND RULE",
    "name\tstring, 1-" STR(JOBSPEC_NAME_MAX) " characters, required; workers see it as $RIGDECK_JOB_NAME "
        "(spaces as _)",
    "type\tnotebook | training | inference | endpoint, required",
    "project\tNAME, or OWNER/NAME of a project shared with you; default: your \"default\" project; "
        "--project wins",
    "resources\tmapping, required",
    "resources.gpu_types\tlist of GPU type ids (`gpu list`), at least one, none twice; any of them "
        "satisfies the job; [cpu] alone for a CPU-only job",
    "resources.gpu_count\tnumber of GPUs per worker: a whole 1-64, or a fraction of one GPU 0.01-0.99 in "
        "steps of 0.01 (only on nodes that allow sharing); default 1; 0 or absent for CPU-only",
    "resources.cpu_count\tinteger vCPUs per worker, " STR(JOBSPEC_CPU_QUANTUM) "-" STR(JOBSPEC_CPU_MAX)
        ", a multiple of " STR(JOBSPEC_CPU_QUANTUM) "; required for a CPU-only job",
    "resources.max_price\tcredits per GPU-hour (up to 6 decimals, above 0, at most 1000000); the job "
        "waits rather than pay more; absent: no limit",
    "resources.disk_size\tinteger GB of working storage per worker, " STR(JOBSPEC_DISK_MIN_GB) "-"
        STR(JOBSPEC_DISK_MAX_GB) ", required",
    "data\tmapping",
    "data.datasets\tlist of up to 64 dataset names (notebook and training jobs), mounted at " JOBSPEC_INPUT_DIR
        ", each in its own directory when several",
    "data.input\tmapping {type, path, endpoint} (training and inference jobs): downloaded to " JOBSPEC_INPUT_DIR
        " (" JOBSPEC_INPUT_DATA_DIR " beside datasets)",
    "data.input.type\taws | azure | gcp | local | regional | wasabi | web, required",
    "data.input.path\tstring up to 2048 characters, required; by type: aws and wasabi s3://BUCKET/..., "
        "azure https://ACCOUNT..., gcp gs://BUCKET/..., web http(s):// or ftp(s)://, local /abs, ~/home or "
        "$VAR/... (never ./relative), regional a path starting with / inside regional.datastore",
    "data.input.endpoint\tthe Wasabi bucket's service URL, http(s)://...; required for type wasabi, "
        "refused for any other",
    "data.output\tmapping {type, path, endpoint} (training and inference jobs): what workers write to "
        JOBSPEC_OUTPUT_DIR " ($" JOBSPEC_ENV_OUTPUT ") is uploaded there",
    "data.output.type\taws | azure | gcp | local | regional | rigdeck | wasabi, required",
    "data.output.path\tas data.input.path; for type rigdeck what the results become: model, dataset or "
        "checkpoint",
    "data.output.endpoint\tas data.input.endpoint",
    "model\tmapping: the model code, mounted at " JOBSPEC_MODEL_DIR,
    "model.source\taws | azure | gcp | git | local | rigdeck | wasabi | web; required with model.location",
    "model.location\tstring up to 2048 characters, prefixed as data.input.path; git: https://, ssh:// or "
        "user@host:org/repo.git; rigdeck: a stored model's name",
    "model.endpoint\tas data.input.endpoint, for model.source wasabi",
    "model.checkpoints\tlist of up to 64 checkpoint names (any job), mounted at " JOBSPEC_CHECKPOINT_DIR,
    "workers\tmapping",
    "workers.count\tinteger 1-" STR(JOBSPEC_WORKERS_MAX) ", training jobs only (every other type runs 1)",
    "workers.commands\ta string, or a list of one command for all workers or exactly one per worker; each "
        "up to 4096 characters, not blank; required for training and inference jobs, refused for notebook and "
        "endpoint jobs",
    "endpoint\tmapping, endpoint jobs only and required there: routes or start_command",
    "endpoint.start_command\tstring up to 4096 characters: your own server, in the foreground, listening on "
        "the port in $PORT (80 in a container), instead of routes",
    "endpoint.routes\tlist of 1-64 routes of the built-in server; no two with the same verb and path",
    "endpoint.routes[].verb\tPOST (the default and the only verb)",
    "endpoint.routes[].path\tURL path starting with /, up to 256 characters, without spaces, ?, #, { or }; " "required",
    "endpoint.routes[].file\tPython file relative to the model code (serve.py, api/serve.py; no .. or /), "
        "required",
    "endpoint.routes[].function\tthe Python function called per request (an identifier), required",
    "endpoint.routes[].positional\tboolean: pass params by position; default false",
    "endpoint.routes[].params\tlist of up to 64 request-body attributes, no name twice",
    "endpoint.routes[].params[].name\ta Python identifier, required",
    "endpoint.routes[].params[].type\tstring | integer | float | boolean | object | list (any case), " "required",
    "endpoint.routes[].params[].optional\tboolean; default false",
    "endpoint.routes[].params[].default\tPython source as a string (\"5\", \"None\", \"'text'\"), up to 1024 "
        "characters; required for an optional param, refused otherwise",
    "environment\tmapping",
    "environment.python\t\"3.8\" or \"3.9\" (default \"3.9\")",
    "environment.framework\tdeep_learning (default) | pytorch | tensorflow | mxnet",
    "environment.framework_version\ta quoted version, \"1.13\" or \"2.11.0\"; not with deep_learning; the "
        "environment whose version starts with it (absent: the newest of the framework) gives the image "
        "(environment list)",
    "environment.image\ta customer image [REGISTRY/]REPO[:TAG][@sha256:DIGEST], up to 255 characters, from "
        "Docker Hub, AWS ECR, Azure, Google Artifact Registry or NVIDIA NGC; replaces python, framework and "
        "framework_version",
    "environment.packages\tmapping {apt, conda, pip}: lists of up to 256 packages each, up to 256 characters, "
        "installed before the command in that order (pip after the model's requirements.txt); none that would "
        "change the framework",
    "environment.packages.apt\tNAME or NAME=VERSION, a Debian name (a-z, 0-9, + . -); containers only",
    "environment.packages.conda\tNAME, NAME=VERSION, NAME=VERSION=BUILD or NAME with one comparison; containers "
        "only",
    "environment.packages.pip\tNAME, NAME[EXTRA,...], then comparisons (== >= <= != ~= > <) joined by commas; no "
        "option, URL or path",
    "environment.env\tmapping of up to 256 variables NAME: \"value\"; names of letters, digits and _ (not "
        "first a digit), up to 128 characters, not RIGDECK_* or " JOBSPEC_ENV_OUTPUT "; values quoted strings up "
        "to 8192 characters",
    "environment.keys\tlist of up to 32 names of your stored keys, none twice",
    "regional\tmapping: pins the job to the region of the resource",
    "regional.datastore\ta datastore's name; needed by data type regional",
    "regional.reservation\ta port reservation's name",
    "",
    "Example (a training job):",
    "",
    "  name: resnet50-sweep",
    "  type: training",
    "  resources: {gpu_types: [rtx3090, a100], gpu_count: 1,",
    "              max_price: 2.5, disk_size: 50}",
    "  data:",
    "    input: {type: aws, path: \"s3://bucket/data/\"}",
    "    output: {type: gcp, path: \"gs://bucket/results\"}",
    "  model: {source: git,",
    "          location: \"https://github.com/org/repo.git\"}",
    "  workers:",
    "    count: 2",
    "    commands: [\"python train.py --lr 0.1\",",
    "               \"python train.py --lr 0.01\"]",
    "  environment: {python: \"3.9\", framework: pytorch,",
    "                packages: {pip: [\"wandb==0.15.0\"]}}",
    NULL
};
