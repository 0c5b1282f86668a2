/* Platform hygiene (dissertation 3.4.2, seed 002's method): the CPU frequency governor (a governor
 * that changes the clock changes every thread's execution time), real-time throttling
 * (kernel.sched_rt_runtime_us: the seed disables it, -1) and the real-time process's OOM score
 * (the OOM killer stalls other processes while it scans). Reported always; set only where asked
 * (the board file's policy, passed by the caller). */
#include "probe.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static int read_line(const char *path, char *buf, size_t len) {
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(buf, len, "%s", strerror(errno));
        return -1;
    }
    if (!fgets(buf, (int)len, f)) {
        buf[0] = 0;
    }
    fclose(f);
    buf[strcspn(buf, "\n")] = 0;
    return 0;
}

static const char *write_line(const char *path, const char *value) {
    FILE *f = fopen(path, "w");
    if (!f) {
        return strerror(errno);
    }
    int ok = fputs(value, f) >= 0;
    if (fclose(f) != 0 || !ok) {
        return strerror(errno);
    }
    return "set";
}

int test_hygiene(const struct options *o, FILE *out) {
    struct row r;
    char buf[256], path[128], json[4096];
    row_begin(&r, out, "hygiene");
    struct utsname u;
    uname(&u);
    row_str(&r, "kernel", u.release);
    row_str(&r, "machine", u.machine);
    row_bool(&r, "preempt_rt", read_line("/sys/kernel/realtime", buf, sizeof buf) == 0 && strcmp(buf, "1") == 0);
    long cpus = sysconf(_SC_NPROCESSORS_CONF);
    row_int(&r, "cpus", cpus);
    row_int(&r, "cpu", o->cpu);

    /* governors, per CPU ("none": the CPU has no cpufreq, as a VM's vCPU has not) */
    size_t at = (size_t)snprintf(json, sizeof json, "[");
    const char *set_result = NULL;
    for (long c = 0; c < cpus && at < sizeof json - 64; c++) {
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%ld/cpufreq/scaling_governor", c);
        if (read_line(path, buf, sizeof buf) != 0) {
            snprintf(buf, sizeof buf, "none");
        } else if (o->set_governor) {
            set_result = write_line(path, o->set_governor);
            read_line(path, buf, sizeof buf);
        }
        at += (size_t)snprintf(json + at, sizeof json - at, "%s\"%s\"", c ? "," : "", buf);
    }
    snprintf(json + at, sizeof json - at, "]");
    row_raw(&r, "governors", json);
    if (o->set_governor) {
        row_str(&r, "set_governor", set_result ? set_result : "no cpufreq: nothing to set");
    }

    if (o->set_rt_runtime_us != LONG_MIN) {
        snprintf(buf, sizeof buf, "%ld", o->set_rt_runtime_us);
        row_str(&r, "set_rt_runtime", write_line("/proc/sys/kernel/sched_rt_runtime_us", buf));
    }
    read_line("/proc/sys/kernel/sched_rt_runtime_us", buf, sizeof buf);
    row_int(&r, "sched_rt_runtime_us", strtol(buf, NULL, 10));
    read_line("/proc/sys/kernel/sched_rt_period_us", buf, sizeof buf);
    row_int(&r, "sched_rt_period_us", strtol(buf, NULL, 10));

    int pid = o->oom_pid ? o->oom_pid : (int)getppid();
    row_int(&r, "oom_pid", pid);
    snprintf(path, sizeof path, "/proc/%d/comm", pid);
    if (read_line(path, buf, sizeof buf) == 0) {
        row_str(&r, "oom_process", buf);
    }
    snprintf(path, sizeof path, "/proc/%d/oom_score_adj", pid);
    if (o->set_oom_adj != INT_MIN) {
        snprintf(buf, sizeof buf, "%d", o->set_oom_adj);
        row_str(&r, "set_oom_score_adj", write_line(path, buf));
    }
    if (read_line(path, buf, sizeof buf) == 0) {
        row_int(&r, "oom_score_adj", strtol(buf, NULL, 10));
    }
    row_bool(&r, "fifo_permitted", fifo_permitted(o));
    row_end(&r);
    return 0;
}
