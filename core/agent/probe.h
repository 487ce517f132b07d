/* probe.h - what the node agent learns about its own machine at start.
 *
 * Two halves: the GPUs, read from nvidia-smi's CSV (probe_gpu.c), and the
 * rest of the inventory - CPU cores, memory, drives, TPM, network speed -
 * read from /proc and /sys under a root prefix so tests can hand in a
 * fixture tree (probe.c).  probe_inventory joins them into the inventory
 * document of spec/commands.md, already checked by hwreq_inventory_from_json.
 * Nothing here prints: what the agent should log comes back as strings.
 */
#ifndef RD_PROBE_H
#define RD_PROBE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "err.h"

/* The one query the agent runs (spec/operations.md); the stand-in
 * tests/agent/fake-nvidia-smi checks it gets exactly these arguments. */
#define PROBE_NVIDIA_SMI_QUERY                                                                                   \
    "--query-gpu=index,name,memory.total,pcie.link.gen.max,pcie.link.width.max,utilization.gpu,memory.used,"   \
    "temperature.gpu,power.draw,ecc.errors.uncorrected.volatile.total"
#define PROBE_NVIDIA_SMI_FORMAT "--format=csv,noheader,nounits"

/* How long nvidia-smi may take before it is killed; a wedged driver can make
 * it hang for minutes, and the agent must still come up and say so. */
#define PROBE_NVIDIA_SMI_TIMEOUT_MS 10000

/* One GPU as nvidia-smi reported it.  The readings after pcie_lanes are the
 * vital stats the sampler reuses; a reading nvidia-smi gives as [N/A] or
 * [Not Supported] (or an empty column) is -1 (0 for pcie_gen/pcie_lanes,
 * which means SXM; 0 for memory_mib, whose size then is the catalog's). */
typedef struct {
    int index;
    char name[96];
    char model[24];      /* catalog id, "" when the name is not in the catalog */
    int memory_mib;      /* 0 when N/A */
    int pcie_gen, pcie_lanes;  /* 0 when N/A */
    int util_pct, mem_used_mib, temp_c;  /* -1 when N/A */
    int power_mw;        /* milliwatts; -1 when N/A */
    int64_t ecc_errors;  /* uncorrected, volatile; -1 when N/A; at most PROBE_ECC_MAX */
} probe_gpu;

/* An ECC count beyond this reads as this: no GPU counts 10^12 errors, and a
 * driver that prints 2^63-1 means "very many", not a number to add up
 * (metrics_stat's range of gpu_ecc_errors is the same). */
#define PROBE_ECC_MAX INT64_C(1000000000000)

/* Parses the CSV of PROBE_NVIDIA_SMI_QUERY (ten columns, noheader, nounits;
 * blank lines and spaces around fields are fine) into a new array *out of
 * *count GPUs (NULL and 0 for no line), each with its model mapped by
 * probe_gpu_model.  Any column may be N/A ([N/A], [Not Supported], N/A or
 * empty): an index without a reading is the row's place, a name without one
 * is kept as "[N/A]" and maps to no type.  A line with the wrong number of
 * columns or a field that is not a number or N/A is RD_EINVAL naming the
 * line and column.  Free *out with free(). */
rd_code probe_gpus_parse(const char *csv, probe_gpu **out, size_t *count, rd_err *err);

/* Runs nvidia-smi with exactly the query above (no shell; stdin from
 * /dev/null; stdout and stderr captured, never shown) and parses its output.
 * nvidia_smi NULL means $RIGDECK_NVIDIA_SMI, else "nvidia-smi" on $PATH.
 * The program absent: *present 0, no GPUs, RD_OK.  A non-zero exit, a signal
 * or the timeout: RD_EINVAL quoting its first line of stderr (else stdout). */
rd_code probe_gpus_read(const char *nvidia_smi, probe_gpu **out, size_t *count, int *present, rd_err *err);

/* probe_gpus_read with a timeout in milliseconds (tests use a short one). */
rd_code probe_gpus_read_within(const char *nvidia_smi, int timeout_ms, probe_gpu **out, size_t *count,
                               int *present, rd_err *err);

/* What one run of nvidia-smi said (spec/execution.md §2). */
enum { PROBE_LOST_MAX = 64 };
typedef struct {
    int present;   /* 0: no nvidia-smi on this machine (a CPU node; not a failure) */
    int answered;  /* exit 0, every line a GPU row, no GPU said lost: the list is whole */
    int status;    /* its exit status; -1 when killed, timed out or not runnable */
    int lost;      /* exit status 15, or a line saying "GPU is lost", "fallen off the bus" or
                    * "Unable to determine the device handle" */
    unsigned char lost_index[PROBE_LOST_MAX]; /* GPUs a lost line or row names by index */
    char line[200];   /* the line that says what went wrong: stderr's first, else stdout's first
                       * that is no GPU row; one saying a GPU is lost before any other */
    char detail[512]; /* one line for node show and the log: the exit status and nvidia-smi's
                       * telling line (see line), or the first unreadable line; "" when answered */
} probe_smi;

/* Reads one answer of nvidia-smi: its stdout, stderr and exit status.
 * Rows (as probe_gpus_parse reads them) are kept when it answered, or when
 * it failed over a lost GPU (the GPUs it still lists); a row or line saying
 * a GPU is lost sets lost and, when it names one by index, lost_index.
 * RD_OK unless out of memory. */
rd_code probe_gpus_answer(const char *out, const char *errtext, int status, probe_gpu **gpus, size_t *count,
                          probe_smi *res, rd_err *err);

/* Runs nvidia-smi as probe_gpus_read does and reads its answer; a program
 * that fails in any way is RD_OK with res saying how (only running out of
 * memory is an error): a broken driver must not stop the agent. */
rd_code probe_gpus_query(const char *nvidia_smi, int timeout_ms, probe_gpu **out, size_t *count, probe_smi *res,
                         rd_err *err);

/* 1 when a line of nvidia-smi's says a GPU is lost. */
int probe_smi_says_lost(const char *line);

/* The catalog id for an nvidia-smi name ("NVIDIA A100-SXM4-40GB" -> "a100"),
 * or NULL when the name is not one the catalog knows.  Only the catalog's
 * records (their nvidia_names) name cards: as listed, or word for word
 * without brand and form words, perhaps without the size, when the type
 * whose memory is nearest memory_mib wins (an "NVIDIA A100" of 80 GiB is
 * a100-80gb).  Strict: a near miss ("RTX 3090 Ti", "V100S") is NULL, not
 * the nearest id. */
const char *probe_gpu_model(const char *name, int memory_mib);

/* The GPU's memory in whole GB for the inventory: the catalog's nameplate
 * size when the reported MiB is within what the driver keeps back from it
 * (a T4 shows 15360 MiB of its 16 GB), else MiB/1024 rounded; at least 1. */
int probe_gpu_memory_gb(const probe_gpu *g);

/* Discovers the machine and returns a new inventory document (the keys of
 * spec/commands.md, in that order) that hwreq_inventory_from_json accepts,
 * and a new JSON array *problems of one-line strings for what the agent
 * should log and show in `node show` (unknown GPU names, drives or GPU
 * groups beyond the inventory's limits, a TPM of unknown version); [] when
 * none.  root prefixes every /proc and /sys path ("" or NULL: this machine).
 * nvidia_smi is as for probe_gpus_read.  Unreadable /proc/cpuinfo or
 * /proc/meminfo, or a failing nvidia-smi, is RD_EINVAL and no documents. */
rd_code probe_inventory(const char *root, const char *nvidia_smi, json_t **inventory, json_t **problems,
                        rd_err *err);

/* What discovery learnt of the GPUs beyond the inventory (the agent's form,
 * spec/execution.md §2). */
typedef struct {
    probe_smi smi;     /* how nvidia-smi answered; when it did not (present
                        * and not answered) the inventory lists no GPU */
    json_t *unknown;   /* the distinct names no catalog type lists, as
                        * strings; the caller frees it */
} probe_found;

/* probe_inventory for the agent: nvidia-smi failing in any way, or saying a
 * GPU is lost, is no error but found->smi; a GPU name no type lists is left
 * out of the inventory and named in found->unknown, not in problems. */
rd_code probe_inventory_found(const char *root, const char *nvidia_smi, json_t **inventory, json_t **problems,
                              probe_found *found, rd_err *err);

/* 1 for a block device that is not a drive of its own: loop, RAM disks,
 * device-mapper and md volumes built on drives already counted, optical
 * drives, and NVMe multipath paths (nvme0c0n1) of a namespace listed as
 * nvme0n1.  Discovery and the vital stats' disk rates both skip them. */
int probe_block_skipped(const char *name);

#endif
