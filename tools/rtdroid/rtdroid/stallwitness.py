"""The stall witness's record, read back: which stalls the machine put on the RT cell's CPUs.

The witness is cyclictest at SCHED_FIFO 99. With -q it prints one summary line per thread at the
end; with -v every wake-up as "thread: cycle: latency_us" (the soak, tools/soak.py); with
--spike=US every wake-up later than US as "T: thread Spike: latency_us: TS: wake_us", TS on
CLOCK_MONOTONIC: so each stall is an interval on the clock the host board's RT cell times its
releases on, and a deadline miss can be set against the stalls that overlap it (the Robot suites).
Unit-tested without a board.
"""
from __future__ import annotations

import math
import re
from pathlib import Path
from xml.etree import ElementTree

_SAMPLE = re.compile(r"^\s*(\d+):\s*(\d+):\s*(\d+)\s*$", re.MULTILINE)
_MAX = re.compile(r"Max:\s+(\d+)")
_SPIKE = re.compile(r"^T:\s*(\d+)\s+Spike:\s*(\d+):\s*TS:\s*(\d+)\s*$", re.MULTILINE)

# cyclictest's options for a witness that records its stalls as intervals: wake-ups later than
# SPIKE_US (well above an unloaded wake-up here, well below what can cost an 8 ms deadline), up
# to SPIKE_NODES of them (a 10-minute window of 1 ms stalls).
SPIKE_US = 1000
SPIKE_OPTIONS = [f"--spike={SPIKE_US}", "--spike-nodes=600000"]

DEADLINE_MISS, SKIPPED = 4, 16  # flags of a timeline entry (bridge/proto: TimelineEntry.flags)


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


def stall_intervals(record: str) -> dict[int, list[tuple[int, int]]]:
    """Per witness thread, its stalls as [begin, end) on CLOCK_MONOTONIC, in ns, merged where they
    overlap, from a --spike record. A late wake-up at TS, ``latency`` after it was due, shows the
    CPU held from its due time to TS (the stall may have begun earlier, while the witness slept:
    that part is not claimed)."""
    per_thread: dict[int, list[tuple[int, int]]] = {}
    for m in _SPIKE.finditer(record):
        thread, latency_us, ts_us = int(m.group(1)), int(m.group(2)), int(m.group(3))
        per_thread.setdefault(thread, []).append(((ts_us - latency_us) * 1000, ts_us * 1000))
    merged = {}
    for thread, spans in per_thread.items():
        out: list[tuple[int, int]] = []
        for b, e in sorted(spans):
            if out and b <= out[-1][1]:
                out[-1] = (out[-1][0], max(out[-1][1], e))
            else:
                out.append((b, e))
        merged[thread] = out
    return merged


def stalled_ns(spans: list[tuple[int, int]], begin: int, end: int) -> int:
    """How long the (merged) stalls ``spans`` held the CPU within [begin, end)."""
    return sum(max(0, min(e, end) - max(b, begin)) for b, e in spans)


def judge_misses(entries: list[dict], stalls: dict[int, list[tuple[int, int]]], since_ns: int) -> list[dict]:
    """Each deadline miss of ``entries`` (the RT cell's timelines, `xcc.mgmt.timelines`) that ended
    at or after ``since_ns``, with whether the witnessed stalls explain it: they do when, on one
    witness thread, the stalls within the release's interval (its release to its end; for releases
    skipped because the one before ran on, that one's release to its end) add up to at least its
    lateness (end - deadline): without them it would have met its deadline. A release that ran on
    into the next period pushes the next one too; a stall that pushed both explains both, for the
    next one's lateness is at most the time the stall took from its own interval. Returns one dict
    per miss: track, seq, misses (more than 1 for skipped releases), lateness_ns, stalled_ns,
    explained."""
    by_track: dict[str, dict[int, dict]] = {}
    for e in entries:
        by_track.setdefault(e["track"], {})[e["seq"]] = e
    out = []
    for track, jobs in by_track.items():
        begins = sorted(j["planned_begin_nanos"] for j in jobs.values() if not j["flags"] & SKIPPED)
        period = min((b - a for a, b in zip(begins, begins[1:]) if b > a), default=0)
        for seq in sorted(jobs):
            job = jobs[seq]
            if not job["flags"] & DEADLINE_MISS or job["actual_end_nanos"] < since_ns:
                continue
            begin, end = job["planned_begin_nanos"], job["actual_end_nanos"]
            misses = 1
            if job["flags"] & SKIPPED:
                before = jobs.get(seq - 1)
                begin = before["planned_begin_nanos"] if before else begin
                misses = max(1, (end - job["planned_begin_nanos"]) // period) if period else 1
            lateness = end - job["planned_end_nanos"]
            stalled = max((stalled_ns(spans, begin, end) for spans in stalls.values()), default=0)
            out.append({"track": track, "seq": seq, "misses": misses, "lateness_ns": lateness,
                        "stalled_ns": stalled, "explained": stalled >= lateness})
    return out
