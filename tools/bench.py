"""`make bench [BENCH=name]`: runs the benchmarks and prints one table per result.

Runtime benchmarks (looper, periodic, channels, alarm, sensor, reflection) run through bench/run.sh; the bridge benchmark
through bridge/bench/bridge_bench.py; the Android cell's broadcast benchmark in the cell's framework
sandbox (org.rtdroid.android.cell.bench.BroadcastBench, then bench/plot.py). Each writes
build/bench/<name>.json and a PNG. With --board, the reflection benchmark runs in that board's RT cell
instead (rtdroid.cellbench: the board is brought up, the cell's JVM probe runs it, the board goes
down), in the cell's time base (virtual time on the QEMU boards), to build/bench/reflection-<board>.json.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from rtdroid import entry

ROOT = Path(__file__).resolve().parents[1]
PY = str(ROOT / "build" / "venv" / "bin" / "python")
RUNTIME = ("looper", "periodic", "channels", "alarm", "sensor", "reflection")
ALL = RUNTIME + ("bridge", "broadcast")


# The periodic benchmark's goal compares p99s. At the default 8 s per case a p99 rests on the 80
# worst of 8,000 releases, and on this shared VM its ratio to cyclictest's varied from 0.8x to
# 1.58x between runs; 30 s (30,000 releases per participant and noise) gives a stable figure.
# The looper's goal also compares p99s, over one high message per 10 ms: 800 at 8 s (p99 = the 8th
# worst; three runs gave 0.09x to 5.4x), 3,000 at 30 s.
# The alarm benchmark's goals compare p99s of one high alarm per 10 ms, as the looper's do.
# The sensor benchmark's goals compare p99s of one frame per 5 ms: 15 s gives 3,000 per case (36 cases:
# 9 noise cases x 2 impls x 2 JVM configurations, about 12 min).
# The reflection benchmark runs the seed's 25 frames a second: 40 s is 1,000 frames, 975 of them
# calibrated (its p99 rests on the 10 worst).
SECONDS = {"periodic": 30, "looper": 30, "alarm": 30, "sensor": 15, "reflection": 40}


def run(name: str, quick: bool) -> int:
    if name in RUNTIME:
        cmd = ["bash", str(ROOT / "bench" / "run.sh"), name]
        if quick:
            cmd.append("--quick")
        elif name in SECONDS:
            cmd += ["--seconds", str(SECONDS[name])]
        if name == "reflection":
            # SCHED_FIFO threads on a shared machine: the bench's own watchdog halts a phase past its
            # bound (2 x its frames' time + 60 s); this kills the whole JVM if even that fails.
            seconds = 4 if quick else SECONDS[name]
            cmd = ["timeout", "-s", "KILL", str(2 * (2 * seconds + 60) + 120)] + cmd
    elif name == "broadcast":
        return run_broadcast(quick)
    else:
        cmd = [PY, str(ROOT / "bridge" / "bench" / "bridge_bench.py")] + (["--quick"] if quick else [])
    print(f"== bench {name}: {' '.join(cmd)}", flush=True)
    return subprocess.run(cmd, cwd=ROOT).returncode


def run_broadcast(quick: bool) -> int:
    dist = ROOT / "android-cell" / "target" / "dist"
    if not (dist / "jvm.args").is_file():
        print(f"bench: {dist} is not built; run: make java", file=sys.stderr)
        return 2
    java = str(Path(os.environ.get("JAVA_HOME", "/usr/lib/jvm/temurin-25-jdk-amd64")) / "bin" / "java")
    out = ROOT / "build" / "bench"
    lib = f"{dist / 'lib' / '*'}:{dist.parent / 'bench' / 'lib' / '*'}"
    cmd = [java, f"@{dist / 'jvm.args'}", "-cp", lib, "org.rtdroid.android.cell.bench.BroadcastBench",
           "--out", str(out), "--rounds", "200" if quick else "2000"]
    print(f"== bench broadcast: {' '.join(cmd)}", flush=True)
    rc = subprocess.run(cmd, cwd=ROOT).returncode
    if rc == 0:
        plot = [PY, str(ROOT / "bench" / "plot.py"), str(out / "broadcast.json"), str(out / "broadcast.png")]
        rc = subprocess.run(plot, cwd=ROOT).returncode
    return rc


def run_in_cell(name: str, board: str, quick: bool, seconds: int | None, out: Path) -> int:
    """`name` in the RT cell of `board`: up, the cell's JVM probe, the plot, down whatever happened."""
    from rtdroid import cellbench
    cellbench.probe_args(name, quick, None)  # refuses a benchmark a cell does not run, before a boot
    if not (ROOT / "bench" / "target" / "lib").is_dir():
        print("bench: bench is not built; run: make build", file=sys.stderr)
        return 2
    rtdroid = str(ROOT / "build" / "venv" / "bin" / "rtdroid")
    print(f"== bench {name} in the RT cell of {board}", flush=True)
    rc = subprocess.run([rtdroid, "board", "up", "--board", board], cwd=ROOT).returncode
    try:
        if rc != 0:
            return rc
        path = cellbench.run(board, name, quick, None if quick else seconds or SECONDS.get(name), out)
        print(f"  wrote {path}", flush=True)
        png = path.with_suffix(".png")
        if os.environ.get("BENCH_PLOT", "on") == "off":  # as bench/run.sh: JSON only (bench/figures draws its own)
            return 0
        if subprocess.run([PY, str(ROOT / "bench" / "plot.py"), str(path), str(png)], cwd=ROOT).returncode == 0:
            print(f"  wrote {png}", flush=True)
        return 0
    finally:
        subprocess.run([rtdroid, "board", "down", "--board", board], cwd=ROOT)


def show(name: str, out: Path = ROOT / "build" / "bench") -> None:
    path = out / f"{name}.json"
    if not path.is_file():
        print(f"   (no {path})")
        return
    doc = json.loads(path.read_text())
    # Consecutive rows of one kind share a header (a bench may write latency and throughput rows);
    # the command line and nested values stay in the JSON. A column is as wide as its name or its
    # widest value in the group, and a gap; at least 14.
    groups: list[tuple[list[str], list[dict]]] = []
    for r in doc.get("rows", []):
        cols = [k for k in r if k != "command" and not isinstance(r[k], (list, dict))]
        if not groups or groups[-1][0] != cols:
            groups.append((cols, []))
        groups[-1][1].append(r)
    for cols, rows in groups:
        widths = [max([14, len(c) + 2] + [len(str(r[c])) + 2 for r in rows]) for c in cols]
        print("   " + "".join(f"{c:>{w}}" for c, w in zip(cols, widths)))
        for r in rows:
            print("   " + "".join(f"{str(r[c]):>{w}}" for c, w in zip(cols, widths)))
    for g in doc.get("goals", []):
        print(f"   goal: {g.get('text')}: measured {g.get('measured')} -> {'not judged' if g.get('met') is None else 'met' if g['met'] else 'NOT met'}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", choices=ALL + ("all",), default="all")
    ap.add_argument("--quick", action="store_true", help="short runs (smoke test)")
    ap.add_argument("--board", help="run the benchmark in this board's RT cell (reflection only), in the cell's time base")
    ap.add_argument("--seconds", type=int, help="with --board: the benchmark's --seconds (default as make bench's)")
    ap.add_argument("--out", type=Path, default=ROOT / "build" / "bench", help="with --board: where the JSON and PNG go")
    args = ap.parse_args()
    if args.board:
        if args.only != "reflection":
            print(f"bench: --board runs the reflection benchmark only, not {args.only}", file=sys.stderr)
            return 2
        if args.seconds is not None and not 1 <= args.seconds <= 3600:
            print(f"bench: --seconds {args.seconds}: 1 to 3600", file=sys.stderr)
            return 2
        rc = run_in_cell(args.only, args.board, args.quick, args.seconds, args.out.resolve())
        show(f"{args.only}-{args.board}", args.out.resolve())
        return rc
    names = ALL if args.only == "all" else (args.only,)
    failed = [n for n in names if run(n, args.quick) != 0]
    for n in names:
        print(f"== {n}")
        show(n)
    if failed:
        print(f"bench: failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(entry.run(main, "bench"))
