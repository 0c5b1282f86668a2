/* xcc_bench_peer: the C participant of `make bench BENCH=bridge` (same CLI as the Java
 * org.rtdroid.bridge.bench.BenchPeer). Bench frames are ring-level opaque frames of exactly B
 * bytes: bytes 0..7 LE sequence, 8..15 LE CLOCK_MONOTONIC send time, rest zero; no protobuf.
 *
 *   ping  --region PATH --peer 1 --cpu N --frame-bytes B --count N --warmup W --samples-out FILE
 *   echo  --region PATH --peer 0 --cpu N --count N
 *   send  --region PATH --peer P --cpu N --frame-bytes B --seconds S
 *   drain --region PATH --peer P --cpu N --frame-bytes B --seconds S
 *
 * ping and echo (usually ping as peer 1, echo as peer 0) use data ring 1 of their own section
 * and read ring 1 of the other's; ping sends W + N frames one at a time and
 * waits for each echo (same sequence); echo answers --count frames (the orchestrator passes
 * W + N) and also stops when the ping side stores STOPPING. The region is formatted beforehand. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "xcc.h"

#define BENCH_RING 1u
#define REPLY_TIMEOUT_NANOS 5000000000ull
#define READY_TIMEOUT_NANOS 30000000000ull

typedef struct opts {
    const char *cmd, *region, *samples_out;
    long peer, cpu, frame_bytes, count, warmup;
    double seconds;
} opts;

static void die(const char *fmt, const char *a)
{
    fprintf(stderr, "xcc_bench_peer: ");
    fprintf(stderr, fmt, a);
    fprintf(stderr, "\n");
    exit(2);
}

static long parse_long(const char *name, const char *s, long min, long max)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *s == '\0' || *end != '\0' || v < min || v > max) {
        fprintf(stderr, "xcc_bench_peer: %s '%s' must be an integer in %ld..%ld\n", name, s, min, max);
        exit(2);
    }
    return v;
}

static void parse(int argc, char **argv, opts *o)
{
    memset(o, 0, sizeof *o);
    o->peer = o->cpu = o->frame_bytes = o->count = -1;
    if (argc < 2) die("usage: xcc_bench_peer ping|echo|send|drain --region PATH ... (see the source header)%s", "");
    o->cmd = argv[1];
    if (strcmp(o->cmd, "ping") && strcmp(o->cmd, "echo") && strcmp(o->cmd, "send") && strcmp(o->cmd, "drain"))
        die("unknown command '%s' (ping, echo, send, drain)", o->cmd);
    for (int i = 2; i < argc; i += 2) {
        const char *k = argv[i];
        if (i + 1 >= argc) die("option %s needs a value", k);
        const char *v = argv[i + 1];
        if (!strcmp(k, "--region")) o->region = v;
        else if (!strcmp(k, "--samples-out")) o->samples_out = v;
        else if (!strcmp(k, "--peer")) o->peer = parse_long(k, v, 0, 1);
        else if (!strcmp(k, "--cpu")) o->cpu = parse_long(k, v, 0, CPU_SETSIZE - 1);
        else if (!strcmp(k, "--frame-bytes")) o->frame_bytes = parse_long(k, v, 16, XCC_MAX_FRAME_BYTES);
        else if (!strcmp(k, "--count")) o->count = parse_long(k, v, 1, 100000000);
        else if (!strcmp(k, "--warmup")) o->warmup = parse_long(k, v, 0, 100000000);
        else if (!strcmp(k, "--seconds")) {
            char *end;
            o->seconds = strtod(v, &end);
            if (*end || !(o->seconds > 0 && o->seconds < 3600)) die("--seconds '%s' must be in (0, 3600)", v);
        } else die("unknown option %s", k);
    }
    if (!o->region) die("--region is required%s", "");
    if (o->peer < 0) die("--peer is required%s", "");
    if (o->cpu < 0) die("--cpu is required%s", "");
    int is_ping = !strcmp(o->cmd, "ping"), is_echo = !strcmp(o->cmd, "echo");
    if ((is_ping || is_echo) && o->count < 0) die("--count is required for %s", o->cmd);
    if (!is_echo && o->frame_bytes < 0) die("--frame-bytes is required for %s", o->cmd);
    if (is_ping && !o->samples_out) die("--samples-out is required for ping%s", "");
    if (!is_ping && !is_echo && o->seconds <= 0) die("--seconds is required for %s", o->cmd);
}

static void pin(long cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET((int)cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
        fprintf(stderr, "xcc_bench_peer: sched_setaffinity(cpu %ld) failed: %s\n", cpu, strerror(errno));
        exit(2);
    }
    mlockall(MCL_CURRENT | MCL_FUTURE); /* best effort: no page faults while measuring */
}

static void wait_ready(xcc_peer *p)
{
    uint64_t until = xcc_now_nanos() + READY_TIMEOUT_NANOS;
    while (xcc_other_state(p) != XCC_STATE_READY) {
        if (xcc_now_nanos() > until) {
            fprintf(stderr, "xcc_bench_peer: peer %u did not become READY within 30 s\n", p->other);
            exit(3);
        }
        sched_yield();
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint8_t frame[XCC_MAX_FRAME_BYTES], in[XCC_MAX_FRAME_BYTES];

static int run_ping(xcc_peer *p, const opts *o)
{
    uint32_t b = (uint32_t)o->frame_bytes, n;
    uint64_t total = (uint64_t)o->warmup + (uint64_t)o->count;
    uint64_t *samples = calloc((size_t)o->count, sizeof *samples); /* start-up allocation only */
    if (!samples) die("cannot allocate %s samples", "the");
    wait_ready(p);
    for (uint64_t seq = 1; seq <= total; seq++) {
        uint64_t t0 = xcc_now_nanos();
        memcpy(frame, &seq, 8);
        memcpy(frame + 8, &t0, 8);
        while (xcc_offer(&p->tx[BENCH_RING], frame, b) != XCC_OK) {
        }
        for (;;) {
            int rc = xcc_poll(&p->rx[BENCH_RING], in, sizeof in, &n);
            if (rc == XCC_OK) {
                uint64_t got;
                memcpy(&got, in, 8);
                if (got == seq && n == b)
                    break; /* anything else is a stale or foreign frame: ignore it */
            } else if (rc == XCC_EMPTY && xcc_now_nanos() - t0 > REPLY_TIMEOUT_NANOS) {
                fprintf(stderr, "xcc_bench_peer: no echo of frame %llu within 5 s (is echo running with --count >= %llu?)\n",
                        (unsigned long long)seq, (unsigned long long)total);
                xcc_set_state(p, XCC_STATE_STOPPING);
                return 3;
            }
        }
        uint64_t t1 = xcc_now_nanos();
        if (seq > (uint64_t)o->warmup)
            samples[seq - (uint64_t)o->warmup - 1] = t1 - t0;
        if ((seq & 1023u) == 0)
            xcc_heartbeat(p);
    }
    xcc_set_state(p, XCC_STATE_STOPPING);
    FILE *f = fopen(o->samples_out, "wb");
    if (!f || fwrite(samples, sizeof *samples, (size_t)o->count, f) != (size_t)o->count || fclose(f) != 0) {
        fprintf(stderr, "xcc_bench_peer: cannot write %s: %s\n", o->samples_out, strerror(errno));
        return 2;
    }
    qsort(samples, (size_t)o->count, sizeof *samples, cmp_u64);
    size_t c = (size_t)o->count;
    printf("{\"impl\":\"c\",\"frame_bytes\":%u,\"count\":%zu,\"p50_us\":%.3f,\"p99_us\":%.3f,\"p999_us\":%.3f,\"max_us\":%.3f}\n",
           b, c, samples[(c - 1) * 50 / 100] / 1e3, samples[(c - 1) * 99 / 100] / 1e3,
           samples[(c - 1) * 999 / 1000] / 1e3, samples[c - 1] / 1e3);
    free(samples);
    return 0;
}

static int run_echo(xcc_peer *p, const opts *o)
{
    uint32_t n;
    uint64_t echoed = 0;
    while (echoed < (uint64_t)o->count) {
        int rc = xcc_poll(&p->rx[BENCH_RING], in, sizeof in, &n);
        if (rc == XCC_OK) {
            while (xcc_offer(&p->tx[BENCH_RING], in, n) != XCC_OK) {
            }
            if ((++echoed & 1023u) == 0)
                xcc_heartbeat(p);
        } else if (rc == XCC_EMPTY && xcc_other_state(p) == XCC_STATE_STOPPING && echoed > 0) {
            break; /* the ping side finished (or gave up) */
        }
    }
    xcc_set_state(p, XCC_STATE_STOPPING);
    fprintf(stderr, "xcc_bench_peer: echoed %llu frames\n", (unsigned long long)echoed);
    return 0;
}

/* send and drain do what the Java BenchPeer's do, so the rows compare the transports: the clock
 * is read every 256 loops (it costs about as much as a frame), frames carry only the sequence. */
static int run_send(xcc_peer *p, const opts *o)
{
    uint32_t b = (uint32_t)o->frame_bytes;
    wait_ready(p);
    uint64_t end = xcc_now_nanos() + (uint64_t)(o->seconds * 1e9), seq = 0, full = 0, loops = 0;
    for (;;) {
        if ((++loops & 0xFFu) == 0) {
            if (xcc_now_nanos() >= end)
                break;
            xcc_heartbeat(p);
        }
        /* wait for room instead of offering into a full ring: a refused offer would count
         * as a dropped frame in the ring's stats, and this is backpressure, not a drop */
        if (xcc_tx_backlog(&p->tx[BENCH_RING]) >= p->geo.slots_per_ring) {
            full++;
            continue;
        }
        seq++;
        memcpy(frame, &seq, 8);
        if (xcc_offer(&p->tx[BENCH_RING], frame, b) != XCC_OK)
            seq--;
    }
    xcc_set_state(p, XCC_STATE_STOPPING);
    fprintf(stderr, "xcc_bench_peer: sent %llu frames, %llu polls found the ring full\n",
            (unsigned long long)seq, (unsigned long long)full);
    return 0;
}

static int run_drain(xcc_peer *p, const opts *o)
{
    uint32_t n;
    uint64_t frames = 0, bad = 0, expected = 0;
    uint64_t give_up = xcc_now_nanos() + READY_TIMEOUT_NANOS;
    int rc;
    while ((rc = xcc_poll(&p->rx[BENCH_RING], in, sizeof in, &n)) != XCC_OK) {
        if (xcc_now_nanos() > give_up) {
            fprintf(stderr, "xcc_bench_peer: drain: no frame within 30 s\n");
            return 1;
        }
    }
    uint64_t start = xcc_now_nanos(), now = start, end = start + (uint64_t)(o->seconds * 1e9);
    frames = 1;
    memcpy(&expected, in, 8);
    expected++;
    bad = n != (uint32_t)o->frame_bytes;
    for (;;) {
        rc = xcc_poll(&p->rx[BENCH_RING], in, sizeof in, &n);
        if (rc == XCC_OK) {
            uint64_t seq;
            memcpy(&seq, in, 8);
            frames++;
            if (n != (uint32_t)o->frame_bytes || seq != expected)
                bad++;
            expected = seq + 1;
            if ((frames & 0xFFu) == 0 && (now = xcc_now_nanos()) >= end)
                break;
        } else if (rc == XCC_EMPTY) {
            if ((now = xcc_now_nanos()) >= end)
                break;
        } else {
            bad++;
        }
    }
    double secs = (double)(now - start) / 1e9;
    printf("{\"frames\":%llu,\"seconds\":%.6f,\"fps\":%.1f,\"frame_bytes\":%ld,\"bad\":%llu}\n",
           (unsigned long long)frames, secs, secs > 0 ? (double)frames / secs : 0.0, o->frame_bytes,
           (unsigned long long)bad);
    xcc_set_state(p, XCC_STATE_STOPPING);
    return bad == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    opts o;
    parse(argc, argv, &o);
    pin(o.cpu);
    char err[XCC_ERR_BYTES];
    static xcc_region r;
    static xcc_peer p;
    if (xcc_map_shm(&r, o.region, 0, err, sizeof err) != XCC_OK ||
        xcc_attach(&p, &r, (uint32_t)o.peer, XCC_ATTACH_CELL, err, sizeof err) != XCC_OK) {
        fprintf(stderr, "xcc_bench_peer: %s: %s\n", o.region, err);
        return 2;
    }
    if (o.frame_bytes > (long)(p.geo.slot_bytes - XCC_SLOT_HEADER_BYTES)) {
        fprintf(stderr, "xcc_bench_peer: --frame-bytes %ld exceeds the region's slot capacity %u\n",
                o.frame_bytes, p.geo.slot_bytes - XCC_SLOT_HEADER_BYTES);
        return 2;
    }
    int rc;
    if (!strcmp(o.cmd, "ping")) rc = run_ping(&p, &o);
    else if (!strcmp(o.cmd, "echo")) rc = run_echo(&p, &o);
    else if (!strcmp(o.cmd, "send")) rc = run_send(&p, &o);
    else rc = run_drain(&p, &o);
    xcc_unmap(&r);
    return rc;
}
