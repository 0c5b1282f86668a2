"""The stall witness's record, read back: which stalls the machine put on the RT cell's CPUs.

The witness is cyclictest at SCHED_FIFO 99. With -q it prints one summary line per thread at the
end; with --spike=US every wake-up later than US as "T: thread Spike: latency_us: TS: wake_us", TS
on CLOCK_MONOTONIC: so each stall is an interval on the clock the host board's RT cell times its
releases on, and a deadline miss can be set against the stalls that overlap it. One rule for the
Robot suites' windows and the soak's minutes: `MissRecord` keeps the RT cell's record of each miss
as it happens, `attribute` sets it against the stalls. Unit-tested without a board.
"""
from __future__ import annotations

import math
import re
import threading
import time

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


def belongs_to(service: str, app: str) -> bool:
    """Whether a service row or timeline track (app/Component, app/Component/task) is ``app``'s."""
    return service == app or service.startswith(app + "/") or service.startswith(app + ".")


class MissRecord:
    """The RT cell's timeline entries of an app's deadline misses in a window, kept as they happen.

    The cell keeps the last 1,024 jobs per task (~8 s of an 8 ms task), so a window longer than
    that loses its early misses by its end. While the window is open this polls the app's miss
    count (`rt services`, every ``poll_s``) and, when it rose, fetches the timelines of the seconds
    since the last fetch and keeps the app's entries; ``close`` fetches once more and returns them
    all. A poll that fails (the management path busy) is retried at the next; a miss that still
    slipped out of the record is one ``attribute`` counts as unexplained. ``mgmt`` is the
    management module (xcc.mgmt: list_services, timelines), a stand-in in unit tests."""

    def __init__(self, region_path: str, app: str, mgmt=None, poll_s: float = 2.0):
        if mgmt is None:
            from xcc import mgmt
        self.region, self.app, self.mgmt, self.poll_s = str(region_path), app, mgmt, poll_s
        self.entries: dict[tuple[str, int], dict] = {}
        self.clock_problem: str | None = None  # set when the timelines are not on this host's clock
        self.fetches = 0
        self.failed_polls = 0
        self._misses = self._count()
        self._fetched = time.monotonic()
        self._stop = threading.Event()
        self._thread = None
        if poll_s > 0:  # 0: polled by the caller
            self._thread = threading.Thread(target=self._run, name=f"miss-record-{app}", daemon=True)
            self._thread.start()

    def _count(self) -> int:
        return sum(int(s.get("deadline_misses", 0)) for s in self.mgmt.list_services(self.region)
                   if belongs_to(s["name"], self.app))

    def _fetch(self, seconds: int) -> None:
        from .rttrace import rt_offset
        now = time.monotonic()
        answer = self.mgmt.timelines(self.region, seconds)
        offset, how = rt_offset(answer)
        if offset:
            self.clock_problem = how
        for e in answer["entries"]:
            if belongs_to(e["track"], self.app):
                self.entries[(e["track"], e["seq"])] = e
        self._fetched = now
        self.fetches += 1

    def poll(self) -> None:
        """One poll: when the app's miss count rose, fetch the seconds since the last fetch (and
        two of margin). A poll that fails is counted; the next one retries."""
        try:
            n = self._count()
            if n > self._misses:
                self._fetch(math.ceil(time.monotonic() - self._fetched) + 2)
                self._misses = n
        except Exception:  # noqa: BLE001 (what a failed poll misses, attribute counts as unexplained)
            self.failed_polls += 1

    def _run(self) -> None:
        while not self._stop.wait(self.poll_s):
            self.poll()

    def stop(self) -> None:
        """Stops polling (a window a failed test left open)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=60)

    def close(self) -> list[dict]:
        """Stops polling, fetches the whole record once more; the app's entries, each job once."""
        self.stop()
        self._fetch(0)
        return list(self.entries.values())


def attribute(entries: list[dict], record: str | None, since_ns: int, new: int,
              clock_problem: str | None = None) -> tuple[int, str, list[dict]]:
    """How many of a window's ``new`` deadline misses the stall witness's ``record`` (a --spike
    record; None: no witness ran) explains, by `judge_misses` over the RT cell's ``entries`` of
    them; why, in one sentence; and the judged misses. A miss counted but not in ``entries``, or
    any miss when the timelines are not on the witness's clock, is unexplained."""
    if record is None:
        return 0, "no stall witness ran (the RT cell's CPU is not one of this host's)", []
    if clock_problem:
        return 0, f"the RT cell's timelines are not on this host's clock ({clock_problem})", []
    spans = stall_intervals(record)
    judged = judge_misses(entries, spans, since_ns)
    explained = sum(j["misses"] for j in judged if j["explained"])
    gone = max(0, new - sum(j["misses"] for j in judged))
    why = (f"{explained} of them explained by stalls the witness saw within their intervals (witness "
           f"stalls over {SPIKE_US} µs: {sum(len(v) for v in spans.values())})"
           + (f"; {gone} not in the RT cell's record, so unexplained" if gone else ""))
    return min(explained, new), why, judged
