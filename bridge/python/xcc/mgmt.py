"""The root cell's management agent (bridge/docs/protocols.md, "Management").

The ``rtdroid`` CLI talks to the RT cell agent over ring 0 of each peer: it writes requests into
ring 0 of peer 1's section and reads answers from ring 0 of peer 0's. For the whole of an exchange
it holds ``flock(<region>.lock)``, so two CLI invocations never interleave on the ring (ring 0 has
exactly one producer at a time, as the spec requires). Answers addressed to an earlier agent are
skipped when it attaches (``region.attach_management``).

Ring 0's flow-control policy for the agent: when the ring is full, wait with backoff. Every wait
ends after ``timeout`` seconds *without progress* (no slot freed, no answer) with a
``MgmtTimeout`` that says what the RT cell's state table shows.

    from xcc import mgmt
    result = mgmt.deploy("/dev/shm/rtdroid-host.region", "build/echo.rtb", timeout=10)
    print(result.name, result.text)   # "OK" or e.g. "BAD_SIGNATURE" and the agent's reason
"""

from __future__ import annotations

import fcntl
import math
import os
import re
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from . import bundle as B
from . import frames as F
from . import printable
from . import region as R

RESULT_NAMES = {0: "OK", 1: "BAD_CHUNK", 2: "BAD_SIGNATURE", 3: "BAD_MANIFEST", 4: "OVER_BUDGET",
                5: "LOAD_FAILED", 6: "START_FAILED", 7: "DUPLICATE", 8: "NOT_FOUND", 9: "BAD_BUNDLE",
                10: "DOWNGRADE", 11: "STATE_FAILED", 12: "UNSCHEDULABLE", 13: "CHANNEL_OVERFLOW",
                14: "BAD_TRACE", 15: "SENSORS_UNAVAILABLE", 16: "BUSY", 17: "BAD_PROBE",
                18: "PROBE_UNAVAILABLE", 19: "PROBE_FAILED"}
CHUNK_DATA_BYTES = 384
MAX_BUNDLE_BYTES = 16 * 1024 * 1024
MAX_TRACE_BYTES = 1024 * 1024  # a motion trace (protocols.md, "Sensor traces"); the agent holds the same bound
MAX_PROBE_OUTPUT_BYTES = 4 * 1024 * 1024  # what one probe may write (protocols.md, "Probes"); the agent's bound
PROBE_KINDS = ("native", "jvm")
DEFAULT_TIMEOUT_S = 10.0
K = F.Control


class MgmtError(RuntimeError):
    """The exchange could not be completed (not a refusal by the agent: those are results)."""


class MgmtTimeout(MgmtError):
    pass


@dataclass(frozen=True)
class Result:
    """The agent's answer: ``code`` (0 = OK), ``name`` (RESULT_NAMES), ``text`` (its reason)."""
    code: int
    name: str
    text: str
    subject: str = ""

    @property
    def ok(self) -> bool:
        return self.code == 0

    @classmethod
    def of(cls, control) -> "Result":
        # What the RT cell says is outside text to the host: one line each, whatever it holds.
        return cls(control.code, RESULT_NAMES.get(control.code, f"CODE_{control.code}"),
                   printable.one_line(control.text), printable.one_line(control.subject))


DeployResult = Result


class Backoff:
    """Adaptive waiting (region-spec.md "Waiting"): spin, then yield, then sleep doubling to max_sleep."""

    def __init__(self, spins: int = 50, yields: int = 20, min_sleep_s: float = 50e-6, max_sleep_s: float = 5e-3):
        self.spins, self.yields = spins, yields
        self.min_sleep_s, self.max_sleep_s = min_sleep_s, max_sleep_s
        self.reset()

    def reset(self) -> None:
        self._n = 0
        self._sleep = self.min_sleep_s

    def idle(self) -> None:
        self._n += 1
        if self._n <= self.spins:
            return
        if self._n <= self.spins + self.yields:
            os.sched_yield()
            return
        time.sleep(self._sleep)
        self._sleep = min(self._sleep * 2, self.max_sleep_s)


@dataclass
class _Stall:
    """Deadline that moves whenever the exchange makes progress."""
    timeout_s: float
    deadline: float = field(init=False)

    def __post_init__(self):
        self.progress()

    def progress(self) -> None:
        self.deadline = time.monotonic() + self.timeout_s

    def expired(self) -> bool:
        return time.monotonic() >= self.deadline


class ManagementClient:
    """One management session: holds the lock, owns ring 0 of peer 1 and consumer line 0."""

    def __init__(self, region_path, timeout: float = DEFAULT_TIMEOUT_S, backoff: Backoff | None = None,
                 peer_id: int = R.ANDROID_PEER):
        self.region_path = Path(region_path)
        self.lock_path = Path(str(region_path) + ".lock")
        self.timeout = float(timeout)
        self.backoff = backoff or Backoff()
        self.peer_id = peer_id
        self._lock_fd = None
        self.region = None
        self.undecodable = 0
        self.ignored = 0

    # session
    def open(self) -> "ManagementClient":
        if not self.region_path.exists():
            raise MgmtError(f"region {self.region_path} does not exist; is the board up?")
        self._lock_fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o660)
        stall = _Stall(self.timeout)
        while True:
            try:
                fcntl.flock(self._lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if stall.expired():
                    os.close(self._lock_fd)
                    self._lock_fd = None
                    raise MgmtTimeout(f"another management exchange holds {self.lock_path} "
                                      f"for more than {self.timeout:g} s") from None
                time.sleep(0.01)
        try:
            self.region = R.attach_management(self.region_path, self.peer_id)
        except Exception:
            self.close()
            raise
        self.producer = self.region.producer(R.MANAGEMENT_RING)
        self.consumer = self.region.consumer(R.MANAGEMENT_RING)
        return self

    def close(self) -> None:
        if self.region is not None:
            self.region.close()
            self.region = None
        if self._lock_fd is not None:
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
            os.close(self._lock_fd)
            self._lock_fd = None

    def __enter__(self):
        return self.open()

    def __exit__(self, *exc):
        self.close()

    # diagnostics
    def rt_state(self) -> str:
        return R.STATE_NAMES.get(self.region.peer_state(R.RT_PEER), "INVALID")

    def _timeout(self, what: str) -> MgmtTimeout:
        return MgmtTimeout(f"RT cell did not {what} within {self.timeout:g} s; is it READY? "
                           f"state={self.rt_state()} epoch={self.region.peer_epoch(R.RT_PEER)} "
                           f"heartbeat={self.region.peer_heartbeat(R.RT_PEER)}")

    # frames
    def _frame(self, **body) -> F.Frame:
        frame = F.Frame(seq=self.producer.write_index + 1, send_time_nanos=time.monotonic_ns())
        for name, value in body.items():
            getattr(frame, name).CopyFrom(value)
        return frame

    def send(self, frame: F.Frame, stall: _Stall | None = None, on_answer=None) -> None:
        """Offer one frame to ring 0, waiting with backoff while it is full."""
        data = F.encode(frame, self.region.layout.max_frame_bytes)
        stall = stall or _Stall(self.timeout)
        self.backoff.reset()
        while not self.producer.offer(data):
            if on_answer is not None:
                answer = self.receive_nowait()
                if answer is not None and on_answer(answer):
                    return
            if stall.expired():
                raise self._timeout("drain the management ring")
            self.backoff.idle()
        stall.progress()

    def receive_nowait(self) -> F.Frame | None:
        """One decoded answer from the RT cell's ring 0, or None; undecodable frames are counted."""
        self.region.observe_peer()
        data = self.consumer.poll()
        if data is None:
            return None
        try:
            return F.decode(data, self.region.layout.max_frame_bytes)
        except F.FrameError:
            self.undecodable += 1
            self.consumer.count_undeliverable()
            return None

    def receive(self, accept: Callable[[F.Frame], bool], stall: _Stall | None = None) -> F.Frame:
        stall = stall or _Stall(self.timeout)
        self.backoff.reset()
        while True:
            frame = self.receive_nowait()
            if frame is not None:
                if accept(frame):
                    return frame
                self.ignored += 1  # e.g. a heartbeat or an answer we did not ask for
                continue
            if stall.expired():
                raise self._timeout("answer")
            self.backoff.idle()

    def request(self, control, accept_kinds) -> F.Frame:
        self.send(self._frame(control=control))
        return self.receive(lambda f: f.WhichOneof("body") == "control" and f.control.kind in accept_kinds)

    # exchanges
    def hello(self) -> str:
        answer = self.request(K(kind=K.HELLO), (K.HELLO, K.ERROR))
        if answer.control.kind == K.ERROR:
            raise MgmtError(f"HELLO refused: {Result.of(answer.control)}")
        return answer.control.text

    def undeploy(self, name: str) -> Result:
        _check_name(name)
        answer = self.request(K(kind=K.UNDEPLOY, subject=name), (K.ACK, K.ERROR))
        return Result.of(answer.control)

    def list_services(self) -> list[dict]:
        self.send(self._frame(control=K(kind=K.LIST_SERVICES)))
        services, stall = [], _Stall(self.timeout)
        while True:
            answer = self.receive(lambda f: f.WhichOneof("body") == "control"
                                  and f.control.kind in (K.SERVICE_INFO, K.ERROR), stall)
            stall.progress()
            if answer.control.kind == K.ERROR:
                raise MgmtError(f"LIST_SERVICES refused: {Result.of(answer.control)}")
            info = answer.control.service
            if info.count == 0:
                return services
            if info.index != len(services) or info.count > 4096:
                raise MgmtError(f"LIST_SERVICES answer {info.index}/{info.count} out of order "
                                f"(expected index {len(services)})")
            row = {f: getattr(info, f) for f in ("name", "state", "releases", "deadline_misses",
                                                 "worst_lateness_nanos", "worst_response_nanos")}
            # the admission analysis's WCRT of this task; None: not analysed (no declared cost)
            row["analysed_wcrt_nanos"] = info.analysed_wcrt_nanos or None
            # the CPU the RT cell's partition pins its threads to; None: not pinned
            row["cpu"] = info.cpu_plus_one - 1 if info.cpu_plus_one else None
            # the most CPU time one release or callback used, and the cost (WCET) the analysis
            # assumed for one (None: none declared); overruns: how many used more than it
            row["worst_execution_nanos"] = info.worst_execution_nanos
            row["analysed_cost_nanos"] = info.analysed_cost_nanos or None
            row["cost_overruns"] = info.cost_overruns
            row["last_cost_overrun"] = info.last_cost_overrun or None
            row["failure"] = failure_cause(answer.control)
            services.append(row)
            if len(services) == info.count:
                return services

    def timelines(self, seconds: int = 0) -> dict:
        """The RT cell's past timelines (temporal reflection): every deployed engine's actions,
        periodic task's releases and component's callbacks, those ended in the last ``seconds``
        (0: all it keeps). Returns ``entries`` (dicts, times in the RT cell's CLOCK_MONOTONIC),
        ``cell_now_nanos`` (that clock as the answer began) and this host's CLOCK_MONOTONIC as the
        request left (``sent_nanos``) and as the first entry came back (``answered_nanos``)."""
        if not 0 <= int(seconds) < 2**32:
            raise MgmtError(f"seconds {seconds} outside 0..{2**32 - 1}")
        sent = time.monotonic_ns()
        self.send(self._frame(control=K(kind=K.TIMELINE_REQUEST, code=int(seconds))))
        entries, stall, answered, cell_now = [], _Stall(self.timeout), None, 0
        while True:
            answer = self.receive(lambda f: f.WhichOneof("body") == "control"
                                  and f.control.kind in (K.TIMELINE, K.ERROR), stall)
            stall.progress()
            if answered is None:
                answered = time.monotonic_ns()
            if answer.control.kind == K.ERROR:
                raise MgmtError(f"TIMELINE_REQUEST refused: {Result.of(answer.control)}")
            e = answer.control.timeline
            cell_now = e.cell_now_nanos
            if e.count == 0:
                break
            if e.index != len(entries) or e.count > 1 << 20:
                raise MgmtError(f"TIMELINE answer {e.index}/{e.count} out of order (expected index {len(entries)})")
            entries.append({f: getattr(e, f) for f in ("track", "label", "seq", "class_tag", "flags",
                                                       "planned_begin_nanos", "planned_end_nanos",
                                                       "actual_begin_nanos", "actual_end_nanos", "tid", "kind")})
            if len(entries) == e.count:
                break
        return {"entries": entries, "cell_now_nanos": cell_now, "sent_nanos": sent, "answered_nanos": answered}

    def stats(self) -> dict:
        answer = self.request(K(kind=K.STATS_REQUEST), (K.STATS, K.ERROR))
        if answer.control.kind == K.ERROR:
            raise MgmtError(f"STATS_REQUEST refused: {Result.of(answer.control)}")
        s = answer.control.stats
        return {fd.name: getattr(s, fd.name) for fd in s.DESCRIPTOR.fields}

    def deploy(self, data: bytes, name: str, progress: Callable[[int, int], None] | None = None) -> Result:
        """Send a bundle as DeployChunk frames and wait for DEPLOY_RESULT."""
        if not 0 < len(data) <= MAX_BUNDLE_BYTES:
            raise MgmtError(f"bundle of {len(data)} bytes: must be 1..{MAX_BUNDLE_BYTES}")
        return self._transfer(data, name, F.DeployChunk.BUNDLE, (K.DEPLOY_RESULT, K.ERROR), progress)

    def replay_trace(self, data: bytes, name: str) -> Result:
        """Send a motion trace as DeployChunk frames (content SENSOR_TRACE); the agent checks it
        and starts replaying it into the cell's sensors: ACK (text: what it replays) or ERROR
        (BAD_TRACE with the line, SENSORS_UNAVAILABLE with the reason, BUSY)."""
        if not 0 < len(data) <= MAX_TRACE_BYTES:
            raise MgmtError(f"trace of {len(data)} bytes: must be 1..{MAX_TRACE_BYTES}")
        return self._transfer(data, name, F.DeployChunk.SENSOR_TRACE, (K.ACK, K.ERROR))

    def sensor_status(self) -> Result:
        """The cell's sensors: OK with their devices and the replay's state, or
        SENSORS_UNAVAILABLE with the reason (e.g. the kernel has no /dev/uinput)."""
        return Result.of(self.request(K(kind=K.SENSOR_STATUS), (K.ACK, K.ERROR)).control)

    def run_probe(self, kind: str, args: str) -> tuple[Result, bytes]:
        """PROBE_RUN: the RT cell runs its characterisation probe ``kind`` (native: rtdroid-probe;
        jvm: RTJPerf in the agent's runtime) with ``args``. Its output (JSON rows) comes back as
        PROBE_OUTPUT chunks, then ACK or ERROR; a refusal (BUSY, PROBE_UNAVAILABLE, BAD_PROBE) comes
        alone. The chunks are checked as the agent checks a bundle's: in order, the same totals,
        bounded, CRC-32 of the whole. ``timeout`` bounds the wait for the probe's end."""
        if kind not in PROBE_KINDS:
            raise MgmtError(f"probe {kind!r}: must be one of {', '.join(PROBE_KINDS)}")
        text = args.encode()
        if len(text) > 255:
            raise MgmtError(f"probe arguments of {len(text)} bytes: at most 255")
        self.send(self._frame(control=K(kind=K.PROBE_RUN, subject=kind, text=args)))
        stall = _Stall(self.timeout)
        parts: list[bytes] = []
        first = None

        def wanted(f):
            body = f.WhichOneof("body")
            return ((body == "deploy_chunk" and f.deploy_chunk.content == F.DeployChunk.PROBE_OUTPUT)
                    or (body == "control" and f.control.kind in (K.ACK, K.ERROR)))

        while True:
            f = self.receive(wanted, stall)
            stall.progress()
            if f.WhichOneof("body") == "control":
                result = Result.of(f.control)
                if not parts:
                    return result, b""
                data = b"".join(parts)
                if len(parts) != first.count or len(data) != first.total_bytes:
                    raise MgmtError(f"probe output: {len(parts)} of {first.count} chunks, {len(data)} of "
                                    f"{first.total_bytes} bytes before the answer")
                if zlib.crc32(data) != first.bundle_crc32:
                    raise MgmtError("probe output: CRC-32 of the whole does not match")
                return result, data
            c = f.deploy_chunk
            if first is None:
                first = c
                if not 0 < c.count <= MAX_PROBE_OUTPUT_BYTES // CHUNK_DATA_BYTES + 1 \
                        or c.total_bytes > MAX_PROBE_OUTPUT_BYTES:
                    raise MgmtError(f"probe output of {c.total_bytes} bytes in {c.count} chunks: over the bound")
            if (c.index != len(parts) or c.count != first.count or c.total_bytes != first.total_bytes
                    or c.bundle_crc32 != first.bundle_crc32 or len(c.data) > CHUNK_DATA_BYTES):
                raise MgmtError(f"probe output chunk {c.index}/{c.count} out of order or inconsistent "
                                f"(expected {len(parts)}/{first.count})")
            parts.append(bytes(c.data))

    def _transfer(self, data: bytes, name: str, content: int, answer_kinds: tuple,
                  progress: Callable[[int, int], None] | None = None) -> Result:
        """The chunks of one transfer, then its one answer (an early answer stops the sending)."""
        _check_name(name)
        count = math.ceil(len(data) / CHUNK_DATA_BYTES)
        crc = zlib.crc32(data)
        stall = _Stall(self.timeout)
        early = []

        def is_result(f):
            return f.WhichOneof("body") == "control" and f.control.kind in answer_kinds

        def keep_early(f):
            if is_result(f):
                early.append(f)
                return True
            self.ignored += 1
            return False

        for index in range(count):
            chunk = F.DeployChunk(bundle=name, index=index, count=count, total_bytes=len(data), bundle_crc32=crc,
                                  data=data[index * CHUNK_DATA_BYTES:(index + 1) * CHUNK_DATA_BYTES],
                                  content=content)
            self.send(self._frame(deploy_chunk=chunk), stall, on_answer=keep_early)
            if early:  # the agent refused before the last chunk (e.g. BAD_CHUNK): stop sending
                return Result.of(early[0].control)
            if progress is not None:
                progress(index + 1, count)
        answer = self.receive(is_result, stall)
        return Result.of(answer.control)


def failure_cause(control) -> dict | None:
    """A failed service's cause from its SERVICE_INFO answer (protocols.md, "Failure cause"):
    subject = exception class; text = ``release <n>[ task <name>]``, the message, ``at <frame>``
    lines. None when the service never failed (empty subject)."""
    if not control.subject:
        return None
    first, _, rest = control.text.partition("\n")
    message, *frames = rest.split("\n") if rest else [""]
    words = first.split()
    release = int(words[1]) if len(words) >= 2 and words[0] == "release" and words[1].isdigit() else None
    task = words[3] if len(words) >= 4 and words[2] == "task" else None
    return {"exception_class": control.subject, "message": message, "task": task, "release": release,
            "frames": [f[3:] if f.startswith("at ") else f for f in frames]}


def failure_where(cause: dict) -> str:
    """Where it failed: ``task sample, release 3``, ``callback 7``, ``start-up``."""
    release = cause.get("release")
    return ("start-up" if release == 0 else "release unknown" if release is None
            else f"task {cause['task']}, release {release}" if cause.get("task") else f"callback {release}")


def describe_failure(cause: dict) -> str:
    """One line: ``IllegalStateException: boom (task sample, release 3) at Foo.bar(Foo.java:12)``."""
    where = failure_where(cause)
    message = f": {printable.one_line(cause['message'])}" if cause.get("message") else ""
    frames = cause.get("frames") or []
    return f"{cause['exception_class']}{message} ({where})" + (f" at {frames[0]}" if frames else "")


_NAME = re.compile(r"[A-Za-z0-9._-]{1,63}")  # a name to look up (an application, a trace): the agent answers for it


def _check_name(name: str) -> None:
    if not _NAME.fullmatch(name or ""):
        raise MgmtError(f"name {printable.quote(name)} must be 1-63 characters of [A-Za-z0-9._-]")


def bundle_name(data: bytes, source: str) -> str:
    """The application name from the bundle's manifest.xml (its zip read by the one reading rule,
    ``bundle.zip_entries``), without judging the rest (the agent does)."""
    entry = next((e for e in B.zip_entries(data, source) if e.name == B.MANIFEST_ENTRY), None)
    if entry is None:
        raise B.BundleError("BAD_BUNDLE", f"{source}: no manifest.xml in the zip")
    return B.application_name(B.zip_content(data, entry, B.MAX_MANIFEST_BYTES, source), f"{source}!manifest.xml")


# --- one-call helpers (what the CLI uses) -------------------------------------------------------

def deploy(region_path, bundle_path, timeout: float = DEFAULT_TIMEOUT_S,
           progress: Callable[[int, int], None] | None = None, name: str | None = None) -> Result:
    bundle_path = Path(bundle_path)
    size = bundle_path.stat().st_size
    if size > MAX_BUNDLE_BYTES:
        raise B.BundleError("BAD_BUNDLE", f"{bundle_path} is {size} bytes; the bound is {MAX_BUNDLE_BYTES}")
    data = bundle_path.read_bytes()
    name = name or bundle_name(data, str(bundle_path))
    with ManagementClient(region_path, timeout) as client:
        return client.deploy(data, name, progress)


def undeploy(region_path, name: str, timeout: float = DEFAULT_TIMEOUT_S) -> Result:
    with ManagementClient(region_path, timeout) as client:
        return client.undeploy(name)


def list_services(region_path, timeout: float = DEFAULT_TIMEOUT_S) -> list[dict]:
    with ManagementClient(region_path, timeout) as client:
        return client.list_services()


def timelines(region_path, seconds: int = 0, timeout: float = DEFAULT_TIMEOUT_S) -> dict:
    with ManagementClient(region_path, timeout) as client:
        return client.timelines(seconds)


def stats(region_path, timeout: float = DEFAULT_TIMEOUT_S) -> dict:
    with ManagementClient(region_path, timeout) as client:
        return client.stats()


def hello(region_path, timeout: float = DEFAULT_TIMEOUT_S) -> str:
    with ManagementClient(region_path, timeout) as client:
        return client.hello()


def replay_trace(region_path, trace_path, timeout: float = DEFAULT_TIMEOUT_S) -> Result:
    """Replay the motion trace file in the RT cell (its name is the file's name)."""
    trace_path = Path(trace_path)
    size = trace_path.stat().st_size
    if size > MAX_TRACE_BYTES:
        raise MgmtError(f"{trace_path} is {size} bytes; a trace may have at most {MAX_TRACE_BYTES}")
    with ManagementClient(region_path, timeout) as client:
        return client.replay_trace(trace_path.read_bytes(), trace_path.name)


def sensor_status(region_path, timeout: float = DEFAULT_TIMEOUT_S) -> Result:
    with ManagementClient(region_path, timeout) as client:
        return client.sensor_status()


def run_probe(region_path, kind: str, args: str, timeout: float = 900.0) -> tuple[Result, bytes]:
    """Run the RT cell's characterisation probe ``kind`` with ``args``: (its answer, its output)."""
    with ManagementClient(region_path, timeout) as client:
        return client.run_probe(kind, args)
