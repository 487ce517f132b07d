/* Unit tests of the agent's vital stats: a fixture /proc at two instants
 * turned into exact stats, whole disks told from partitions and virtual
 * devices, counter wraps, GPU readings through the stand-in nvidia-smi, and
 * the real machine. */
#include "testutil.h"

#include <errno.h>
#include <sys/stat.h>
#include <time.h>

#include "sample.h"

static char tmp[256];
static char nosmi[320]; /* a path with no nvidia-smi: no GPUs */

static const char fake_smi[] = "tests/agent/fake-nvidia-smi";

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        fail_msg("cannot write %s: %s", path, strerror(errno));
    fputs(text, f);
    fclose(f);
}

/* Creates every directory of rel under root and writes text to root/rel. */
static void put(const char *root, const char *rel, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')) != NULL; p++) {
        *p = '\0';
        mkdir(path, 0755);
        *p = '/';
    }
    write_file(path, text);
}

static void new_root(char *root, size_t len, const char *name)
{
    snprintf(root, len, "%s/%s", tmp, name);
    if (mkdir(root, 0755) != 0 && errno != EEXIST)
        fail_msg("mkdir %s failed", root);
}

/* Fails with both documents when got is not exactly want (types too: an
 * integer is not a real). */
static void expect_json(json_t *got, const char *want_text)
{
    json_error_t jerr;
    json_t *want = json_loads(want_text, 0, &jerr);
    if (!want)
        fail_msg("bad expected JSON: %s", jerr.text);
    if (!got || !json_equal(got, want)) {
        char *g = got ? json_dumps(got, JSON_SORT_KEYS) : NULL;
        char *w = json_dumps(want, JSON_SORT_KEYS);
        print_error("got  %s\nwant %s\n", g ? g : "NULL", w);
        free(g);
        free(w);
        json_decref(want);
        fail();
    }
    json_decref(want);
}

static const char net_header[] =
    "Inter-|   Receive                                                |  Transmit\n"
    " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier "
    "compressed\n";

/* The fixture at two instants, 10 s apart.  Between them: cpu 1900 jiffies
 * of which 1000 busy; whole disks read 40000 sectors and wrote 103; eth0 +
 * eth1 received 12345 bytes and sent 1, while lo, the partitions and the
 * virtual devices moved a lot that must not count. */
static void fixture_at(const char *root, int later)
{
    char text[4096];
    put(root, "proc/stat",
        later ? "cpu  1600 100 800 8800 300 60 60 180 90 0\n"
                "cpu0 800 50 400 4400 150 30 30 90 45 0\n"
                "intr 999999 1 2 3\nctxt 12345\nbtime 1700000000\n"
              : "cpu  1000 100 500 8000 200 50 50 100 40 0\n"
                "cpu0 500 50 250 4000 100 25 25 50 20 0\n"
                "intr 888888 1 2 3\nctxt 1234\nbtime 1700000000\n");
    snprintf(text, sizeof text,
             "MemTotal:       16384000 kB\n"
             "MemFree:         1000000 kB\n"
             "MemAvailable:    %s kB\n"
             "Buffers:          100000 kB\n"
             "Cached:          3000000 kB\n",
             later ? "4000000" : "6384000");
    put(root, "proc/meminfo", text);
    /* major minor name reads merged SECTORS_READ ms writes merged SECTORS_WRITTEN ... */
    snprintf(text, sizeof text,
             "   8       0 sda 1000 0 %s 0 500 0 %s 0 0 0 0 0 0 0 0 0 0\n"
             "   8       1 sda1 900 0 %s 0 400 0 %s 0 0 0 0 0 0 0 0 0 0\n"
             " 259       0 nvme0n1 100 0 %s 0 100 0 20000 0 0 0 0 0 0 0 0 0 0\n"
             " 259       1 nvme0n1p1 100 0 %s 0 100 0 19000 0 0 0 0\n"
             " 259       2 nvme0c0n1 100 0 %s 0 100 0 20000 0 0 0 0\n"
             " 179       0 mmcblk0 10 0 2000 0 10 0 %s 0 0 0 0\n"
             " 179       1 mmcblk0p1 10 0 2000 0 10 0 %s 0 0 0 0\n"
             " 252       0 vdb 1 0 0 0 0 0 0 0 0 0 0\n"
             " 252       2 vdb2 1 0 %s 0 0 0 0 0 0 0 0\n"
             " 202       1 xvda1 1 0 %s 0 0 0 0 0 0 0 0\n"
             "   7       0 loop0 5 0 %s 0 0 0 0 0 0 0 0\n"
             "   7       1 loop0p1 5 0 %s 0 0 0 0 0 0 0 0\n"
             "   1       0 ram0 0 0 %s 0 0 0 1000 0 0 0 0\n"
             " 253       0 dm-0 0 0 %s 0 0 0 5000 0 0 0 0\n"
             "   9       0 md0 0 0 %s 0 0 0 5000 0 0 0 0\n"
             "   9     127 md127 0 0 %s 0 0 0 5000 0 0 0 0\n"
             " 251       0 zram0 0 0 %s 0 0 0 5000 0 0 0 0\n"
             "  11       0 sr0 0 0 %s 0 0 0 0 0 0 0 0\n"
             "   8      16 sdb 1 2 3\n" /* too short: ignored */
             "garbage\n",
             later ? "40000" : "20000", later ? "40100" : "40000", later ? "98000" : "18000",
             later ? "99000" : "30000", later ? "30000" : "10000", later ? "99000" : "9000",
             later ? "99000" : "10000", later ? "2003" : "2000", later ? "9999" : "2000",
             later ? "99999" : "1", later ? "99999" : "1", later ? "777777" : "7", later ? "77777" : "7",
             later ? "88888" : "1000", later ? "88888" : "5000", later ? "88888" : "5000",
             later ? "88888" : "5000", later ? "88888" : "5000", later ? "88888" : "0");
    put(root, "proc/diskstats", text);
    snprintf(text, sizeof text,
             "%s"
             "    lo: %s     100    0    0    0     0          0         0  %s     100    0    0    0     0       0 0\n"
             "  eth0: %s 10 0 0 0 0 0 0 %s 20 0 0 0 0 0 0\n"
             "  eth1:500 1 0 0 0 0 0 0 700 1 0 0 0 0 0 0\n"
             "  bad0: 1 2 3\n",
             net_header, later ? "99000000" : "5000000", later ? "99000000" : "5000000",
             later ? "1012345" : "1000000", later ? "2000001" : "2000000");
    put(root, "proc/net/dev", text);
}

static void read_ok(const char *root, const char *work_dir, const char *smi, int64_t ms, sample_counters *c)
{
    rd_err err;
    if (sample_read(root, work_dir, smi, ms, c, &err) != RD_OK)
        fail_msg("sample_read(%s) failed: %s", root ? root : "(real)", err.msg);
}

/* ---- /proc at two instants ------------------------------------------------ */

static void test_fixture_two_instants_exact(void **state)
{
    char root[512];
    sample_counters a, b;
    json_t *s;
    (void)state;
    new_root(root, sizeof root, "two");
    fixture_at(root, 0);
    read_ok(root, NULL, nosmi, 1000, &a);
    fixture_at(root, 1);
    read_ok(root, NULL, nosmi, 11000, &b);

    /* the raw counters */
    assert_int_equal(a.mono_ms, 1000);
    assert_int_equal(a.cpu_total, 10000);
    assert_int_equal(a.cpu_busy, 1800);
    assert_int_equal(b.cpu_total, 11900);
    assert_int_equal(b.cpu_busy, 2800);
    assert_int_equal(a.mem_used_bytes, 10000000ULL * 1024);
    assert_true(a.have_disk_io);
    /* sda + nvme0n1 + mmcblk0 + vdb */
    assert_int_equal(a.disk_read_bytes, (20000 + 10000 + 2000 + 0) * 512ULL);
    assert_int_equal(a.disk_write_bytes, (40000 + 20000 + 2000) * 512ULL);
    assert_true(a.have_net);
    assert_int_equal(a.net_rx_bytes, 1000500);
    assert_int_equal(a.net_tx_bytes, 2000700);
    assert_false(a.have_disk_used);
    assert_int_equal(a.ngpus, 0);
    assert_null(a.gpus);
    assert_int_equal(a.gpu_present, 0);
    assert_string_equal(a.gpu_error, "");

    /* 1000/1900 busy; (16384000-4000000) KiB; 40000 sectors and 103 sectors
     * over 10 s; 12345 and 1 bytes over 10 s */
    s = sample_stats(&a, &b);
    expect_json(s, "{\"cpu_util\": 52.6, \"mem_used_gb\": 12.68, \"disk_used_gb\": null,"
                   " \"disk_read_bps\": 2048000.0, \"disk_write_bps\": 5273.6,"
                   " \"net_rx_bps\": 1234.5, \"net_tx_bps\": 0.1, \"gpus\": []}");
    json_decref(s);

    /* the first reading: gauges only */
    s = sample_stats(NULL, &a);
    expect_json(s, "{\"cpu_util\": null, \"mem_used_gb\": 10.24, \"disk_used_gb\": null,"
                   " \"disk_read_bps\": null, \"disk_write_bps\": null,"
                   " \"net_rx_bps\": null, \"net_tx_bps\": null, \"gpus\": []}");
    json_decref(s);

    /* the same elapsed counters over 3 s: rates rounded to 0.1 */
    b.mono_ms = a.mono_ms + 3000;
    s = sample_stats(&a, &b);
    /* 20480000/3 = 6826666.67, 52736/3 = 17578.67, 12345/3 = 4115, 1/3 */
    assert_true(json_real_value(json_object_get(s, "disk_read_bps")) == 6826666.7);
    assert_true(json_real_value(json_object_get(s, "disk_write_bps")) == 17578.7);
    assert_true(json_real_value(json_object_get(s, "net_rx_bps")) == 4115.0);
    assert_true(json_real_value(json_object_get(s, "net_tx_bps")) == 0.3);
    json_decref(s);

    sample_counters_free(&a);
    sample_counters_free(&b);
    sample_counters_free(&b); /* twice is fine: it zeroes */
    sample_counters_free(NULL);
}

/* /sys/block, when present, says which names are whole disks. */
static void test_sys_block_decides_whole_disks(void **state)
{
    char root[512];
    sample_counters c;
    (void)state;
    new_root(root, sizeof root, "sys");
    fixture_at(root, 0);
    put(root, "sys/block/sda/size", "1000\n");
    put(root, "sys/block/loop0/size", "1000\n"); /* listed, still not a disk */
    put(root, "sys/block/weird7/size", "1000\n");
    put(root, "proc/diskstats", "   8 0 sda 1 0 100 0 1 0 200 0 0 0 0\n"
                                "   8 1 sda1 1 0 100 0 1 0 200 0 0 0 0\n"
                                " 259 0 nvme0n1 1 0 100 0 1 0 200 0 0 0 0\n"
                                "   7 0 loop0 1 0 100 0 1 0 200 0 0 0 0\n"
                                " 240 0 weird7 1 0 1 0 1 0 2 0 0 0 0\n");
    read_ok(root, NULL, nosmi, 0, &c);
    assert_int_equal(c.disk_read_bytes, 101 * 512);
    assert_int_equal(c.disk_write_bytes, 202 * 512);
    sample_counters_free(&c);
}

/* ---- wraps, resets and missing readings ----------------------------------- */

static void test_wrap_and_reset_give_null(void **state)
{
    sample_counters a, b;
    json_t *s;
    (void)state;
    memset(&a, 0, sizeof a);
    a.mono_ms = 5000;
    a.cpu_busy = 500;
    a.cpu_total = 1000;
    a.mem_used_bytes = 2000000000;
    a.have_disk_io = a.have_net = a.have_disk_used = 1;
    a.disk_read_bytes = 1000;
    a.disk_write_bytes = 1000;
    a.net_rx_bytes = 1000;
    a.net_tx_bytes = 1000;
    a.disk_used_bytes = 123456789012ULL;
    b = a;
    b.mono_ms = 6000;
    /* a 32-bit counter wrapped / an interface went away: backwards */
    b.disk_read_bytes = 10;
    b.net_tx_bytes = 999;
    b.disk_write_bytes = 1500;
    b.net_rx_bytes = 1000; /* unchanged: 0, not null */
    b.cpu_busy = 400;      /* busy backwards */
    b.cpu_total = 1100;
    s = sample_stats(&a, &b);
    expect_json(s, "{\"cpu_util\": null, \"mem_used_gb\": 2.0, \"disk_used_gb\": 123.46,"
                   " \"disk_read_bps\": null, \"disk_write_bps\": 500.0,"
                   " \"net_rx_bps\": 0.0, \"net_tx_bps\": null, \"gpus\": []}");
    json_decref(s);

    /* a reboot between readings: total backwards */
    b.cpu_busy = 10;
    b.cpu_total = 20;
    s = sample_stats(&a, &b);
    assert_true(json_is_null(json_object_get(s, "cpu_util")));
    json_decref(s);

    /* no jiffy and no millisecond passed: nothing to divide by */
    b = a;
    s = sample_stats(&a, &b);
    expect_json(s, "{\"cpu_util\": null, \"mem_used_gb\": 2.0, \"disk_used_gb\": 123.46,"
                   " \"disk_read_bps\": null, \"disk_write_bps\": null,"
                   " \"net_rx_bps\": null, \"net_tx_bps\": null, \"gpus\": []}");
    json_decref(s);

    /* the clock went backwards */
    b.mono_ms = a.mono_ms - 1;
    b.cpu_total = a.cpu_total + 100;
    b.cpu_busy = a.cpu_busy + 100;
    s = sample_stats(&a, &b);
    assert_true(json_real_value(json_object_get(s, "cpu_util")) == 100.0);
    assert_true(json_is_null(json_object_get(s, "disk_read_bps")));
    json_decref(s);

    /* a reading that lacks a counter gives null, even if the other has it */
    b = a;
    b.mono_ms = a.mono_ms + 1000;
    b.have_net = 0;
    a.have_disk_io = 0;
    s = sample_stats(&a, &b);
    assert_true(json_is_null(json_object_get(s, "disk_read_bps")));
    assert_true(json_is_null(json_object_get(s, "net_rx_bps")));
    assert_true(json_is_null(json_object_get(s, "net_tx_bps")));
    json_decref(s);
}

static void test_missing_and_malformed_files(void **state)
{
    char root[512], gone[600];
    sample_counters a, b;
    rd_err err;
    json_t *s;
    (void)state;
    /* only stat and meminfo (a container): the rest null */
    new_root(root, sizeof root, "bare");
    put(root, "proc/stat", "cpu 10 0 10 80\n"); /* a kernel with four counters */
    put(root, "proc/meminfo", "MemTotal: 2000000 kB\nMemFree: 500000 kB\nBuffers: 100000 kB\nCached: 400000 kB\n");
    read_ok(root, NULL, nosmi, 0, &a);
    put(root, "proc/stat", "cpu 20 0 20 160\n");
    read_ok(root, NULL, nosmi, 1000, &b);
    assert_false(a.have_disk_io);
    assert_false(a.have_net);
    /* no MemAvailable: MemTotal - MemFree - Buffers - Cached = 1000000 KiB */
    assert_int_equal(a.mem_used_bytes, 1000000ULL * 1024);
    s = sample_stats(&a, &b);
    expect_json(s, "{\"cpu_util\": 20.0, \"mem_used_gb\": 1.02, \"disk_used_gb\": null,"
                   " \"disk_read_bps\": null, \"disk_write_bps\": null,"
                   " \"net_rx_bps\": null, \"net_tx_bps\": null, \"gpus\": []}");
    json_decref(s);
    sample_counters_free(&a);
    sample_counters_free(&b);

    /* a work dir that is not there: disk_used null, not an error */
    snprintf(gone, sizeof gone, "%s/no-such-dir", tmp);
    read_ok(root, gone, nosmi, 0, &a);
    assert_false(a.have_disk_used);
    sample_counters_free(&a);

    /* no /proc/stat, no cpu line, too few counters, no MemTotal */
    new_root(root, sizeof root, "broken");
    assert_int_equal(sample_read(root, NULL, nosmi, 0, &a, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "/broken/proc/stat"));
    sample_counters_free(&a);
    put(root, "proc/stat", "cpu0 1 2 3 4\nintr 1\n");
    put(root, "proc/meminfo", "MemTotal: 2000000 kB\nMemAvailable: 1 kB\n");
    assert_int_equal(sample_read(root, NULL, nosmi, 0, &a, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "no aggregate cpu line"));
    put(root, "proc/stat", "cpu  1 2 3\n");
    assert_int_equal(sample_read(root, NULL, nosmi, 0, &a, &err), RD_EINVAL);
    put(root, "proc/stat", "cpu  1 2 3 4\n");
    put(root, "proc/meminfo", "MemFree: 5 kB\n");
    assert_int_equal(sample_read(root, NULL, nosmi, 0, &a, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "MemTotal"));
    put(root, "proc/meminfo", "MemTotal: 2000000 kB\n");
    assert_int_equal(sample_read(root, NULL, nosmi, 0, &a, &err), RD_EINVAL);
    assert_non_null(strstr(err.msg, "neither MemAvailable nor MemFree"));
    sample_counters_free(&a);
}

/* ---- the work dir --------------------------------------------------------- */

static void test_work_dir_filesystem(void **state)
{
    char root[512];
    sample_counters c;
    json_t *s, *gb;
    (void)state;
    new_root(root, sizeof root, "wd");
    fixture_at(root, 0);
    read_ok(root, tmp, nosmi, 0, &c);
    assert_true(c.have_disk_used);
    assert_true(c.disk_used_bytes > 0); /* at least the fixture files */
    s = sample_stats(NULL, &c);
    gb = json_object_get(s, "disk_used_gb");
    assert_true(json_is_real(gb));
    assert_true(json_real_value(gb) >= 0 && json_real_value(gb) < 1e7);
    json_decref(s);
    sample_counters_free(&c);
}

/* ---- GPUs ----------------------------------------------------------------- */

static void test_gpus_from_stand_in(void **state)
{
    char root[512], csv[600];
    sample_counters c;
    json_t *s;
    (void)state;
    if (access(fake_smi, X_OK) != 0)
        skip();
    new_root(root, sizeof root, "gpu");
    fixture_at(root, 0);
    snprintf(csv, sizeof csv, "%s/gpus.csv", tmp);
    write_file(csv, "0, NVIDIA A100-SXM4-40GB, 40960, [N/A], [N/A], 87, 30123, 64, 312.45, 0\n"
                    "1, NVIDIA GeForce RTX 3090, 24576, 4, 16, [N/A], [N/A], [N/A], [Not Supported], [N/A]\n"
                    "2, Tesla T4, 15360, 3, 16, 3, 15360, 45, 27.84, 2\n"
                    "3, NVIDIA H100 80GB HBM3, 81559, 5, 16, 100, 0, 0, 0.04, 123456789012\n");
    setenv("FAKE_NVIDIA_SMI_CSV", csv, 1);
    read_ok(root, NULL, fake_smi, 0, &c);
    unsetenv("FAKE_NVIDIA_SMI_CSV");
    assert_int_equal(c.gpu_present, 1);
    assert_string_equal(c.gpu_error, "");
    assert_int_equal(c.ngpus, 4);
    s = sample_stats(NULL, &c);
    /* 30123 MiB = 29.417 GB; 312.45 W rounds half up */
    expect_json(json_object_get(s, "gpus"),
                "[{\"index\": 0, \"gpu_util\": 87.0, \"gpu_mem_used_gb\": 29.42, \"gpu_temp_c\": 64,"
                "  \"gpu_power_w\": 312.5, \"gpu_ecc_errors\": 0},"
                " {\"index\": 1, \"gpu_util\": null, \"gpu_mem_used_gb\": null, \"gpu_temp_c\": null,"
                "  \"gpu_power_w\": null, \"gpu_ecc_errors\": null},"
                " {\"index\": 2, \"gpu_util\": 3.0, \"gpu_mem_used_gb\": 15.0, \"gpu_temp_c\": 45,"
                "  \"gpu_power_w\": 27.8, \"gpu_ecc_errors\": 2},"
                " {\"index\": 3, \"gpu_util\": 100.0, \"gpu_mem_used_gb\": 0.0, \"gpu_temp_c\": 0,"
                "  \"gpu_power_w\": 0.0, \"gpu_ecc_errors\": 123456789012}]");
    json_decref(s);
    sample_counters_free(&c);

    /* the stand-in's default two A100s */
    read_ok(root, NULL, fake_smi, 0, &c);
    assert_int_equal(c.ngpus, 2);
    s = sample_stats(NULL, &c);
    expect_json(json_object_get(s, "gpus"),
                "[{\"index\": 0, \"gpu_util\": 12.0, \"gpu_mem_used_gb\": 1.0, \"gpu_temp_c\": 41,"
                "  \"gpu_power_w\": 95.4, \"gpu_ecc_errors\": 0},"
                " {\"index\": 1, \"gpu_util\": 0.0, \"gpu_mem_used_gb\": 0.0, \"gpu_temp_c\": 37,"
                "  \"gpu_power_w\": 61.0, \"gpu_ecc_errors\": 0}]");
    json_decref(s);
    sample_counters_free(&c);
}

/* Issue 28: readings beyond their stat's range are bounded in the stats
 * document (and so in the history and on /metrics): an ECC count of
 * 2^63-1, memory counters at their end, a counter that leapt. */
static void test_readings_bounded(void **state)
{
    sample_counters a, b;
    probe_gpu g;
    (void)state;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    memset(&g, 0, sizeof g);
    g.index = 0;
    g.util_pct = 100;
    g.mem_used_mib = 1024 * 1024;
    g.temp_c = 250;
    g.power_mw = 1000000000;   /* 1 MW */
    g.ecc_errors = INT64_MAX;
    a.cpu_total = 100;
    a.have_net = b.have_net = 1;
    b.mono_ms = 1;   /* 1 ms after a */
    b.cpu_total = 200;
    b.cpu_busy = 50;
    b.mem_used_bytes = UINT64_MAX;
    b.net_rx_bytes = UINT64_MAX;
    b.gpus = &g;
    b.ngpus = 1;
    json_t *s = sample_stats(&a, &b);
    assert_non_null(s);
    assert_true(json_number_value(json_object_get(s, "cpu_util")) == 50.0);
    assert_true(json_number_value(json_object_get(s, "mem_used_gb")) == 1e6);
    assert_true(json_number_value(json_object_get(s, "net_rx_bps")) == 1e12);
    json_t *g0 = json_array_get(json_object_get(s, "gpus"), 0);
    assert_true(json_is_integer(json_object_get(g0, "gpu_ecc_errors")));
    assert_true(json_integer_value(json_object_get(g0, "gpu_ecc_errors")) == 1000000000000);
    assert_true(json_number_value(json_object_get(g0, "gpu_power_w")) == 10000.0);
    assert_true(json_integer_value(json_object_get(g0, "gpu_temp_c")) == 250);
    assert_true(json_number_value(json_object_get(g0, "gpu_mem_used_gb")) == 1024.0);
    json_decref(s);
}

static void test_gpu_failure_keeps_the_rest(void **state)
{
    char root[512], bad[600];
    sample_counters a, b;
    json_t *s;
    (void)state;
    if (access(fake_smi, X_OK) != 0)
        skip();
    new_root(root, sizeof root, "gpufail");
    fixture_at(root, 0);
    read_ok(root, NULL, fake_smi, 1000, &a);
    assert_int_equal(a.ngpus, 2);
    fixture_at(root, 1);
    setenv("FAKE_NVIDIA_SMI_EXIT", "3", 1);
    read_ok(root, NULL, fake_smi, 11000, &b);
    unsetenv("FAKE_NVIDIA_SMI_EXIT");
    assert_int_equal(b.gpu_present, 1);
    assert_int_equal(b.ngpus, 0);
    assert_null(b.gpus);
    if (!strstr(b.gpu_error, "failed with exit status 3: NVIDIA-SMI has failed"))
        fail_msg("gpu_error '%s'", b.gpu_error);
    s = sample_stats(&a, &b);
    expect_json(s, "{\"cpu_util\": 52.6, \"mem_used_gb\": 12.68, \"disk_used_gb\": null,"
                   " \"disk_read_bps\": 2048000.0, \"disk_write_bps\": 5273.6,"
                   " \"net_rx_bps\": 1234.5, \"net_tx_bps\": 0.1, \"gpus\": []}");
    json_decref(s);
    sample_counters_free(&b);

    /* output it cannot parse: the same */
    snprintf(bad, sizeof bad, "%s/bad.csv", tmp);
    write_file(bad, "0, Tesla T4, fifteen, 3, 16, 0, 0, 30, 27.81, 0\n");
    setenv("FAKE_NVIDIA_SMI_CSV", bad, 1);
    read_ok(root, NULL, fake_smi, 12000, &b);
    unsetenv("FAKE_NVIDIA_SMI_CSV");
    assert_int_equal(b.ngpus, 0);
    assert_non_null(strstr(b.gpu_error, "column 3 (memory.total)"));
    sample_counters_free(&b);

    /* no such program: a CPU-only machine, no error */
    read_ok(root, NULL, nosmi, 13000, &b);
    assert_int_equal(b.gpu_present, 0);
    assert_string_equal(b.gpu_error, "");
    sample_counters_free(&b);
    sample_counters_free(&a);
}

/* ---- the real machine ----------------------------------------------------- */

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void real_between(json_t *s, const char *key, double lo, double hi)
{
    json_t *v = json_object_get(s, key);
    if (!v)
        fail_msg("no %s", key);
    if (json_is_null(v))
        return;
    if (!json_is_real(v) || json_real_value(v) < lo || json_real_value(v) > hi)
        fail_msg("%s = %g, want a real in %g..%g", key, json_number_value(v), lo, hi);
}

static void test_real_machine(void **state)
{
    sample_counters a, b;
    struct timespec pause = { 0, 60 * 1000000L };
    volatile unsigned long spin = 0;
    json_t *s;
    (void)state;
    read_ok(NULL, tmp, NULL, now_ms(), &a);
    nanosleep(&pause, NULL);
    for (unsigned long i = 0; i < 20000000UL; i++)
        spin += i;
    read_ok("", tmp, NULL, now_ms(), &b);
    assert_true(a.cpu_total > 0);
    assert_true(a.mem_used_bytes > 0);
    assert_true(b.have_disk_used);
    s = sample_stats(&a, &b);
    assert_non_null(s);
    real_between(s, "cpu_util", 0, 100);
    assert_true(json_is_real(json_object_get(s, "mem_used_gb")));
    real_between(s, "mem_used_gb", 0, 1e6);
    assert_true(json_is_real(json_object_get(s, "disk_used_gb")));
    real_between(s, "disk_read_bps", 0, 1e12);
    real_between(s, "disk_write_bps", 0, 1e12);
    real_between(s, "net_rx_bps", 0, 1e12);
    real_between(s, "net_tx_bps", 0, 1e12);
    assert_true(json_is_array(json_object_get(s, "gpus")));
    assert_int_equal(json_array_size(json_object_get(s, "gpus")), b.ngpus);
    json_decref(s);
    sample_counters_free(&a);
    sample_counters_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixture_two_instants_exact),
        cmocka_unit_test(test_sys_block_decides_whole_disks),
        cmocka_unit_test(test_wrap_and_reset_give_null),
        cmocka_unit_test(test_missing_and_malformed_files),
        cmocka_unit_test(test_work_dir_filesystem),
        cmocka_unit_test(test_gpus_from_stand_in),
        cmocka_unit_test(test_readings_bounded),
        cmocka_unit_test(test_gpu_failure_keeps_the_rest),
        cmocka_unit_test(test_real_machine),
    };
    testutil_tmpdir(tmp, sizeof tmp);
    snprintf(nosmi, sizeof nosmi, "%s/no-nvidia-smi", tmp);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
