"""The stall witness's record, read back: which stalls the machine put on the RT cell's CPUs.

The witness is cyclictest at SCHED_FIFO 99 run with -v, which prints every wake-up as
"thread: cycle: latency_us" and, with -q, one summary line per thread at the end. Used by the Robot
suites and the soak (tools/soak.py); unit-tested without a board.
"""
from __future__ import annotations

import math
import re
from pathlib import Path
from xml.etree import ElementTree

_SAMPLE = re.compile(r"^\s*(\d+):\s*(\d+):\s*(\d+)\s*$", re.MULTILINE)
_MAX = re.compile(r"Max:\s+(\d+)")


def worst_us(record: str) -> int:
    """The worst wake-up latency of any witness thread, from cyclictest's summary lines."""
    worst = [int(m) for m in _MAX.findall(record)]
    if not worst:
        raise ValueError(f"the stall witness's record has no summary (no 'Max:'): {record[-500:]!r}")
    return max(worst)


def stalls(record: str, min_us: float) -> dict[int, list[int]]:
    """Per witness thread, the stalls of at least ``min_us``, each as its worst wake-up latency.

    A stall delays the wake-up it overlaps; the wake-ups that fell due during it then run late
    too, each by less. So a run of consecutive cycles all delayed by at least ``min_us`` is one
    stall, as long as its worst sample. Two stalls that close together count as one: that errs
    towards blaming the RT cell, never the machine."""
    per_thread: dict[int, list[int]] = {}
    last: dict[int, int] = {}  # thread -> cycle of its latest sample at or over min_us
    for m in _SAMPLE.finditer(record):
        thread, cycle, latency = int(m.group(1)), int(m.group(2)), int(m.group(3))
        found = per_thread.setdefault(thread, [])
        if latency < min_us:
            continue
        if last.get(thread) == cycle - 1 and found:
            found[-1] = max(found[-1], latency)
        else:
            found.append(latency)
        last[thread] = cycle
    return per_thread


def misses_explained(stall_us: float, periods_us: list[float]) -> int:
    """The most deadline misses one stall of ``stall_us`` can cause among periodic tasks of these
    periods: per task, the releases whose deadline falls inside the stall plus the one it
    overlaps, ceil(stall / period) + 1."""
    if stall_us <= 0:
        return 0
    return sum(math.ceil(stall_us / p) + 1 for p in periods_us)


def misses_all_explain(per_thread: dict[int, list[int]], periods_us: list[float]) -> int:
    """The most misses the witnessed stalls can cause: the sum over one witness thread's stalls,
    for the thread whose stalls explain the most (a stall of the whole VM shows on every thread;
    one of a single vCPU on one)."""
    return max((sum(misses_explained(s, periods_us) for s in found) for found in per_thread.values()),
               default=0)


def duration_us(text: str) -> float:
    """A manifest duration ("8ms", "500us") in µs, by the manifest's one rule (xcc.manifest)."""
    from xcc import manifest as manifest_values
    try:
        ns = manifest_values.duration_ns(text)
    except manifest_values.ValueProblem:
        ns = 0
    if ns <= 0:
        raise ValueError(f"not a positive manifest duration: {text!r}")
    return ns / 1000.0


def periods_us(manifest: Path) -> list[float]:
    """The periods of an app's periodic tasks, from its manifest, in µs."""
    root = ElementTree.parse(manifest).getroot()
    periods = []
    for task in root.iter("periodic-task"):
        release = task.find("release")
        period = release.get("periodic") if release is not None else None
        if not period:
            raise ValueError(f"{manifest}: periodic-task {task.get('name')!r} has no release periodic")
        periods.append(duration_us(period))
    return periods
