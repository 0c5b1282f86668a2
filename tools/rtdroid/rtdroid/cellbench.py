"""A benchmark run inside a board's RT cell (`make bench BENCH=reflection BOARD=<board>`,
`bench/run.sh reflection --board <board>`): the cell's JVM probe (the agent's PROBE_RUN `jvm`, as
`rtdroid characterise` runs RTJPerf) is asked for `bench <name> [options]`; the benchmark runs in a
JVM the agent starts with its own runtime and options, on the cell's CPU, and its report comes back
as the probe's output. Times are the cell's clock: an emulated RT cell's virtual time (QEMU
-icount) on the QEMU boards, which this module writes into the report (`board`, `time_base`,
`virtual`) beside the cell's own description of itself (`host`: its kernel, CPUs, SCHED_FIFO).
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from . import lifecycle
from .boardconfig import load_board
from .characterise import clock_label, rt_cpu_emulated
from .errors import BoardError

# The benchmarks a cell runs (org.rtdroid.bench.Main.IN_CELL): their participants are the runtime's
# and plain threads, nothing of the host's.
IN_CELL = ("reflection",)


def say(text: str) -> None:
    print(f"bench: {text}", file=sys.stderr, flush=True)


def probe_args(name: str, quick: bool, seconds: int | None) -> str:
    if name not in IN_CELL:
        raise BoardError(f"benchmark {name} does not run in a cell (one of: {', '.join(IN_CELL)})")
    return f"bench {name}" + (" --quick" if quick else f" --seconds {seconds}" if seconds else "")


def wait_bound(quick: bool, seconds: int | None) -> float:
    """How long the host waits for the probe's end: the benchmark's three 25 fps runs of `seconds`
    each, in virtual time that advances at most as fast as the host's clock when the cell idles and
    slower while it computes, plus the child JVM's start under emulation."""
    run = 4 if quick else (seconds or 8)
    return 3 * run * 4 + 900.0


def run(board_name: str, name: str, quick: bool, seconds: int | None, out_dir: Path) -> Path:
    """Runs benchmark `name` in the RT cell of the board that is up; writes <out>/<name>-<board>.json."""
    from xcc import mgmt
    args = probe_args(name, quick, seconds)
    state = lifecycle.current_state(board_name)
    board = load_board(state["board"])
    rt_clock = state.get("rt_clock", {"kind": "host"})
    label = clock_label(rt_clock)
    say(f"{name} in the RT cell of {board.name} ({label}): jvm probe '{args}'")
    t0 = time.monotonic()
    result, output = mgmt.run_probe(state["region"]["path"], "jvm", args, timeout=wait_bound(quick, seconds))
    if result.code != 0:
        raise BoardError(f"{name} in the RT cell of {board.name}: {result.name} ({result.code}): {result.text}")
    try:
        doc = json.loads(output.decode())
    except (UnicodeDecodeError, ValueError) as e:
        raise BoardError(f"{name} in the RT cell of {board.name}: its report is not JSON ({e})") from None
    if not isinstance(doc, dict) or doc.get("bench") != name or not isinstance(doc.get("rows"), list):
        raise BoardError(f"{name} in the RT cell of {board.name}: its report is not a {name} report")
    doc["board"] = board.name
    doc["time_base"] = f"the RT cell's CLOCK_MONOTONIC: {label}"
    doc["virtual"] = rt_clock.get("kind") == "virtual"
    doc["emulated_cpu"] = rt_cpu_emulated(board.data["hypervisor"], rt_clock)
    doc["command"] = f"bench/run.sh {name} --board {board.name}" + args[len(f"bench {name}"):]
    doc["host_seconds"] = round(time.monotonic() - t0, 1)
    doc.setdefault("notes", []).append(
        f"run in the RT cell of board {board.name}, in its {label}"
        + (": the instructions the emulated CPU executes, not the host's time; the figures are the "
           "cell's as its deadlines see them, not a real CPU's" if doc["virtual"] else ""))
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{name}-{board.name}.json"
    path.write_text(json.dumps(doc, indent=1) + "\n")
    return path
