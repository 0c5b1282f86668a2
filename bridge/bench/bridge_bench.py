#!/usr/bin/env python3
"""Bridge transport benchmark: `make bench BENCH=bridge` -> build/bench/bridge.json (+ .png).

For impl in java-java, c-c, java-c (java-c = Java ping, C echo) and frame_bytes in 64, 256, 496:
formats a fresh /dev/shm region, starts the echo peer (peer 0) and the ping peer (peer 1), each
pinned to its own CPU with `taskset -c`, and turns the ping's round-trip samples (LE u64
nanoseconds, after warm-up) into count / p50 / p99 / p99.9 / max with HdrHistogram. Then one-way
throughput (send -> drain, frames per second) for the same impls and sizes (java-c = Java sender,
C drain). Both peers busy-poll; the frames are ring-level opaque frames (no protobuf), so this
measures the transport.

Peers: org.rtdroid.bridge.bench.BenchPeer (bridge/java, built by
`mvn -B -q -pl bridge/java -am install`) and build/bridge/c/xcc_bench_peer (`make -C bridge/c`);
rows of a missing peer are skipped with a note in the JSON.

Usage: build/venv/bin/python bridge/bench/bridge_bench.py [--quick] [--out DIR] [--cpus A,B]
"""
import argparse
import datetime
import glob
import json
import os
import platform
import shlex
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
IMPLS = ("java-java", "c-c", "java-c")
FRAME_SIZES = (64, 256, 496)
# The region every case uses: 3 rings per peer (management + 2 data), 64 slots of 512 bytes.
RINGS, SLOTS, SLOT_BYTES = 3, 64, 512
GOAL_FACTOR = 1.5
PROCESS_TIMEOUT_S = 600


def fail(message):
    sys.exit(f"bridge_bench: {message}")


def java_binary():
    home = os.environ.get("JAVA_HOME", "/usr/lib/jvm/temurin-25-jdk-amd64")
    java = os.path.join(home, "bin", "java")
    if not os.access(java, os.X_OK):
        fail(f"no java at {java}: set JAVA_HOME to a JDK 11+ (the project uses Temurin 25)")
    return java


def built_jar(module, artifact):
    """The jar `mvn install` left in <module>/target, or its classes directory, or None."""
    jars = sorted(glob.glob(os.path.join(ROOT, module, "target", f"{artifact}-*.jar")))
    jars = [j for j in jars if not j.endswith(("-sources.jar", "-tests.jar"))]
    if jars:
        return jars[0]
    classes = os.path.join(ROOT, module, "target", "classes")
    return classes if os.path.isdir(os.path.join(classes, "org")) else None


def java_classpath():
    """The peers' class path: xcc-java and the JSON writer its reports go through (rtdroid-json)."""
    parts = [built_jar("bridge/java", "xcc-java"), built_jar("json", "rtdroid-json")]
    if None in parts:
        fail("bridge/java is not built: run `mvn -B -q -pl bridge/java -am install -DskipTests` first")
    return os.pathsep.join(parts)


def pick_cpus(arg):
    allowed = sorted(os.sched_getaffinity(0))
    if arg:
        try:
            cpus = [int(c) for c in arg.split(",")]
        except ValueError:
            fail(f"--cpus '{arg}' must be two CPU numbers, e.g. 0,1")
        if len(cpus) != 2 or cpus[0] == cpus[1] or any(c not in allowed for c in cpus):
            fail(f"--cpus '{arg}' must name two different CPUs of {allowed}")
        return cpus
    if len(allowed) < 2:
        fail(f"needs two CPUs, this process may use only {allowed}")
    return allowed[-2:]


class Peers:
    """Builds the command line of a bench peer of either implementation."""

    def __init__(self, java, classpath, c_peer):
        self.java = java
        self.classpath = classpath
        self.c_peer = c_peer

    def command(self, impl, args, cpu):
        if impl == "java":
            base = [self.java, "-XX:+UseSerialGC", "-Xms64m", "-Xmx64m", "-cp", self.classpath,
                    "org.rtdroid.bridge.bench.BenchPeer"]
        else:
            base = [self.c_peer]
        return ["taskset", "-c", str(cpu)] + base + [str(a) for a in args]


def format_region(peers, path):
    cmd = [peers.java, "-cp", peers.classpath, "org.rtdroid.bridge.tools.RegionTool", "format",
           "--path", path, "--rings", str(RINGS), "--slots", str(SLOTS), "--slot-bytes", str(SLOT_BYTES)]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, timeout=120)


def run_pair(server_cmd, client_cmd):
    """Starts the server (echo / drain) first, then the client; returns both outputs."""
    server = subprocess.Popen(server_cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        client = subprocess.run(client_cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                timeout=PROCESS_TIMEOUT_S)
        s_out, s_err = server.communicate(timeout=PROCESS_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        server.kill()
        raise
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    if client.returncode != 0 or server.returncode != 0:
        raise RuntimeError(
            f"client {shlex.join(client_cmd)} exited {client.returncode}: {client.stderr.strip()}\n"
            f"server {shlex.join(server_cmd)} exited {server.returncode}: {s_err.strip()}")
    return client.stdout, s_out


def percentiles(samples_ns):
    from hdrh.histogram import HdrHistogram

    hist = HdrHistogram(1, 60 * 10**9, 3)  # 1 ns .. 60 s, 3 significant digits
    for v in samples_ns:
        hist.record_value(max(1, min(v, 60 * 10**9)))
    return {
        "count": len(samples_ns),
        "p50_us": round(hist.get_value_at_percentile(50) / 1000, 3),
        "p99_us": round(hist.get_value_at_percentile(99) / 1000, 3),
        "p999_us": round(hist.get_value_at_percentile(99.9) / 1000, 3),
        "max_us": round(max(samples_ns) / 1000, 3),
        "mean_us": round(sum(samples_ns) / len(samples_ns) / 1000, 3),
    }


def round_trip(peers, impl, frame_bytes, count, warmup, cpus, region, tmp):
    ping_impl, echo_impl = impl.split("-")
    samples_path = os.path.join(tmp, f"samples-{impl}-{frame_bytes}.bin")
    format_region(peers, region)
    echo = peers.command(echo_impl, ["echo", "--region", region, "--peer", 0, "--cpu", cpus[0],
                                     "--count", count + warmup], cpus[0])
    ping = peers.command(ping_impl, ["ping", "--region", region, "--peer", 1, "--cpu", cpus[1],
                                     "--frame-bytes", frame_bytes, "--count", count, "--warmup", warmup,
                                     "--samples-out", samples_path], cpus[1])
    run_pair(echo, ping)
    with open(samples_path, "rb") as f:
        data = f.read()
    if len(data) != 8 * count:
        raise RuntimeError(f"{samples_path}: {len(data)} bytes, expected {8 * count}")
    samples = struct.unpack(f"<{count}Q", data)
    row = {"kind": "round_trip", "impl": impl, "frame_bytes": frame_bytes, "warmup": warmup}
    row.update(percentiles(samples))
    row["command"] = f"{shlex.join(echo)} & {shlex.join(ping)}"
    return row


def throughput(peers, impl, frame_bytes, seconds, cpus, region):
    send_impl, drain_impl = impl.split("-")
    format_region(peers, region)
    drain = peers.command(drain_impl, ["drain", "--region", region, "--peer", 0, "--cpu", cpus[0],
                                       "--frame-bytes", frame_bytes, "--seconds", seconds], cpus[0])
    send = peers.command(send_impl, ["send", "--region", region, "--peer", 1, "--cpu", cpus[1],
                                     "--frame-bytes", frame_bytes, "--seconds", seconds], cpus[1])
    _, drain_out = run_pair(drain, send)
    line = [ln for ln in drain_out.splitlines() if ln.startswith("{")]
    if not line:
        raise RuntimeError(f"drain printed no JSON line: {drain_out!r}")
    result = json.loads(line[-1])
    return {"kind": "throughput", "impl": impl, "frame_bytes": frame_bytes,
            "frames": int(result["frames"]), "seconds": round(float(result["seconds"]), 6),
            "fps": round(float(result["fps"])), "command": f"{shlex.join(drain)} & {shlex.join(send)}"}


def host_info(java, cpus):
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    java_version = subprocess.run([java, "-version"], stderr=subprocess.PIPE, text=True).stderr.splitlines()
    return {
        "hostname": platform.node(),
        "kernel": platform.release(),
        "cpu_model": model,
        "cpus_online": os.cpu_count(),
        "bench_cpus": cpus,
        "loadavg_at_start": list(os.getloadavg()),
        "java": java_version[0] if java_version else "",
        "python": platform.python_version(),
        "region": {"rings_per_peer": RINGS, "slots_per_ring": SLOTS, "slot_bytes": SLOT_BYTES,
                   "backend": "/dev/shm file"},
    }


def goal_set(name, values, num, den, keys, bound, at_least, notes):
    """A goal over every frame size (the worst ratio) followed by one per size: the ratio
    values[(num, size)] / values[(den, size)] is at most `bound`, or at least it when `at_least`."""
    out = []
    for size in FRAME_SIZES:
        text = f"{name} ({size} B frames)"
        a, b = values.get((num, size)), values.get((den, size))
        if a is None or b is None:
            out.append({"text": text, "frame_bytes": size, "measured": None, "met": False,
                        "note": "not measured: " + "; ".join(notes) if notes else "a case failed"})
            continue
        ratio = round(a / b, 3)
        out.append({"text": text, "frame_bytes": size, "measured": ratio, keys[0]: a, keys[1]: b,
                    "met": ratio >= bound if at_least else ratio <= bound})
    ratios = [g["measured"] for g in out]
    worst = None if None in ratios else (min(ratios) if at_least else max(ratios))
    overall = {"text": name, "measured": worst, "met": all(g["met"] for g in out),
               "unit": f"ratio {keys[0]} / {keys[1]}, worst frame size"}
    return [overall] + out


def goals(rows, notes):
    """C is the floor every peer is judged against (issue 11): c-c round trip p50 <= java-java's
    and c-c throughput >= java-java's at every frame size; and the Java peer stays within
    GOAL_FACTOR of C's round trip."""
    p50 = {(r["impl"], r["frame_bytes"]): r["p50_us"] for r in rows if r["kind"] == "round_trip"}
    fps = {(r["impl"], r["frame_bytes"]): r["fps"] for r in rows if r["kind"] == "throughput"}
    return (goal_set("c-c p50 <= java-java p50", p50, "c-c", "java-java",
                     ("c_c_p50_us", "java_java_p50_us"), 1.0, False, notes)
            + goal_set("c-c frames/s >= java-java frames/s", fps, "c-c", "java-java",
                       ("c_c_fps", "java_java_fps"), 1.0, True, notes)
            + goal_set(f"java-java p50 within {GOAL_FACTOR}x c-c p50", p50, "java-java", "c-c",
                       ("java_java_p50_us", "c_c_p50_us"), GOAL_FACTOR, False, notes))


def plot(result, png):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = result["rows"]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.8))
    width = 0.25
    for i, impl in enumerate(IMPLS):
        rt = {r["frame_bytes"]: r for r in rows if r["kind"] == "round_trip" and r["impl"] == impl}
        xs = [j + (i - 1) * width for j, s in enumerate(FRAME_SIZES) if s in rt]
        sizes = [s for s in FRAME_SIZES if s in rt]
        if sizes:
            p99 = [rt[s]["p99_us"] for s in sizes]
            ax1.bar(xs, p99, width, label=f"{impl} p99", alpha=0.6)
            ax1.plot(xs, [rt[s]["p50_us"] for s in sizes], "k.", markersize=8)
            for x, s in zip(xs, sizes):
                ax1.vlines(x, rt[s]["p50_us"], rt[s]["p999_us"], colors="k", linewidth=0.8)
        tp = {r["frame_bytes"]: r for r in rows if r["kind"] == "throughput" and r["impl"] == impl}
        sizes = [s for s in FRAME_SIZES if s in tp]
        if sizes:
            xs = [j + (i - 1) * width for j, s in enumerate(FRAME_SIZES) if s in tp]
            ax2.bar(xs, [tp[s]["fps"] / 1e6 for s in sizes], width, label=impl)
    ax1.set_xticks(range(len(FRAME_SIZES)), [f"{s} B" for s in FRAME_SIZES])
    ax1.set_ylabel("round trip, µs (bar p99, dot p50, line to p99.9)")
    ax1.set_yscale("log")
    ax1.legend(fontsize=8)
    ax1.set_title("ping-pong between two pinned processes")
    ax2.set_xticks(range(len(FRAME_SIZES)), [f"{s} B" for s in FRAME_SIZES])
    ax2.set_ylabel("one-way throughput, million frames/s")
    ax2.legend(fontsize=8)
    ax2.set_title("send -> drain")
    goal_text = "; ".join(f"{g['text']}: {g['measured']} ({'met' if g['met'] else 'NOT met'})"
                          for g in result["goals"] if "frame_bytes" not in g)
    fig.suptitle(f"bridge transport ({result['mode']}, {result['started']})\n{goal_text}", fontsize=8)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a few thousand round trips, 1 s throughput")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "bench"), help="output directory")
    ap.add_argument("--cpus", help="two CPUs: echo/drain side, ping/send side (default: the last two allowed)")
    ap.add_argument("--c-peer", default=os.path.join(ROOT, "build", "bridge", "c", "xcc_bench_peer"))
    ap.add_argument("--count", type=int, help="round trips per case (after warm-up)")
    ap.add_argument("--warmup", type=int, help="warm-up round trips per case")
    ap.add_argument("--seconds", type=int, help="throughput seconds per case")
    args = ap.parse_args(argv)
    count = args.count or (5_000 if args.quick else 200_000)
    warmup = args.warmup if args.warmup is not None else (3_000 if args.quick else 50_000)
    seconds = args.seconds or (1 if args.quick else 3)
    if count < 1 or warmup < 0 or seconds < 1:
        fail("--count and --seconds must be >= 1, --warmup >= 0")

    java = java_binary()
    classpath = java_classpath()
    cpus = pick_cpus(args.cpus)
    notes = []
    impls = list(IMPLS)
    if not os.access(args.c_peer, os.X_OK):
        notes.append(f"C peer {args.c_peer} not found (build it with `make -C bridge/c`): "
                     "c-c and java-c rows skipped")
        impls = ["java-java"]
    peers = Peers(java, classpath, args.c_peer)
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    result = {"bench": "bridge", "started": started, "mode": "quick" if args.quick else "full",
              "command": shlex.join([sys.executable] + sys.argv),
              "host": host_info(java, cpus), "rows": [], "goals": [], "notes": notes}
    os.makedirs(args.out, exist_ok=True)
    region = f"/dev/shm/xcc-bench-{os.getpid()}"
    errors = []
    with tempfile.TemporaryDirectory(prefix="xcc-bench-") as tmp:
        try:
            for impl in impls:
                for size in FRAME_SIZES:
                    try:
                        row = round_trip(peers, impl, size, count, warmup, cpus, region, tmp)
                        result["rows"].append(row)
                        print(f"round trip {impl:9} {size:3} B: p50 {row['p50_us']:8.3f} us  "
                              f"p99 {row['p99_us']:8.3f}  p99.9 {row['p999_us']:9.3f}  max {row['max_us']:10.3f}",
                              flush=True)
                    except (RuntimeError, subprocess.SubprocessError) as e:
                        errors.append(f"round trip {impl} {size} B: {e}")
                        print(f"round trip {impl} {size} B FAILED: {e}", file=sys.stderr, flush=True)
            for impl in impls:
                for size in FRAME_SIZES:
                    try:
                        row = throughput(peers, impl, size, seconds, cpus, region)
                        result["rows"].append(row)
                        print(f"throughput {impl:9} {size:3} B: {row['fps']:>10} frames/s", flush=True)
                    except (RuntimeError, subprocess.SubprocessError, ValueError, KeyError) as e:
                        errors.append(f"throughput {impl} {size} B: {e}")
                        print(f"throughput {impl} {size} B FAILED: {e}", file=sys.stderr, flush=True)
        finally:
            for path in (region, region + ".lock"):
                if os.path.exists(path):
                    os.unlink(path)
    result["errors"] = errors
    result["goals"] = goals(result["rows"], notes)
    result["host"]["loadavg_at_end"] = list(os.getloadavg())
    out_json = os.path.join(args.out, "bridge.json")
    with open(out_json, "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    try:
        plot(result, os.path.join(args.out, "bridge.png"))
    except ImportError as e:
        print(f"bridge_bench: no plot ({e})", file=sys.stderr)
    for g in result["goals"]:
        print(f"goal: {g['text']}: measured {g['measured']} -> {'met' if g['met'] else 'NOT met'}")
    print(f"wrote {out_json}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
