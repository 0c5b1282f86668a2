"""`rtdroid rt trace`: the RT cell's timelines and the Android cell's proxy traffic as one Perfetto
trace (Android's own tracing format; it opens in the Perfetto UI, ui.perfetto.dev).

What the RT cell reports (TIMELINE_REQUEST on the management ring, bridge/docs/protocols.md): each
deployed reflective engine's actions, each periodic task's releases and each component's callbacks,
with their planned and actual intervals and flags (clobbered, late, deadline miss, cost overrun,
skipped, failed). What the Android cell reports (its control port, GET /proxy/events): the proxy's
sends (an app's Intent to the frame on the ring) and broadcasts (an RT frame off the ring to the last
app's return). Built here, on the host, with the trace protos of the `perfetto` package; nothing in a
cell imports this.

Tracks: one process per cell; per RT timeline an "actual" track (one slice per job, named by the
action or "release"/"callback", its planned interval and flags as arguments, instants for misses and
overruns) and a "planned" track per action class; per proxy channel and direction a track. A track
whose intervals overlap (queued callbacks, broadcasts in flight) is split into numbered lanes, since a
track's slices must nest.

Clock base: CLOCK_MONOTONIC nanoseconds of this host (the Android cell's clock on every board). The
RT cell's entries are mapped by one offset: 0 when the RT cell shares this kernel's clock (the host
board: the offset measured across the request is within its round trip), else the RT cell's clock at
the answer minus the middle of the round trip (emulated boards: the RT cell's virtual time, mapped at
that instant; its rate differs from the host's, so entries far from it drift; the trace says so).
"""
from __future__ import annotations

import hashlib

FLAGS = [(1, "clobbered"), (2, "late"), (4, "deadline miss"), (8, "cost overrun"), (16, "skipped"), (32, "failed")]
KIND_WORD = {1: "action", 2: "release", 3: "callback"}


def _protos():
    try:
        from perfetto.trace_builder.proto_builder import TraceProtoBuilder
        from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb
    except ImportError as e:  # pinned in requirements.txt; tools/setup.sh installs it
        raise RuntimeError(f"the perfetto package is not available ({e}); run tools/setup.sh") from None
    return TraceProtoBuilder, pb


def _uuid(*parts: str) -> int:
    return int.from_bytes(hashlib.sha256("\0".join(parts).encode()).digest()[:8], "little") >> 1


def flag_names(flags: int) -> list[str]:
    return [name for bit, name in FLAGS if flags & bit]


def rt_offset(rt: dict) -> tuple[int, str]:
    """(RT cell clock − host clock) in ns, and how it was found."""
    sent, answered, cell_now = rt.get("sent_nanos"), rt.get("answered_nanos"), rt.get("cell_now_nanos")
    if not sent or not answered or not cell_now:
        return 0, "RT cell clock taken as this host's CLOCK_MONOTONIC (no round trip measured)"
    mid = (sent + answered) // 2
    offset = cell_now - mid
    if abs(offset) <= answered - sent:
        return 0, "one CLOCK_MONOTONIC: the RT cell shares this host's clock"
    return offset, (f"RT cell clock mapped by one offset ({offset / 1e9:+.6f} s, measured within "
                    f"±{(answered - sent) / 2e6:.1f} ms as the timelines were asked for)")


def _lanes(intervals: list[tuple[int, int, object]]) -> list[list[tuple[int, int, object]]]:
    """Greedy interval partitioning: each lane's intervals do not overlap."""
    lanes: list[list[tuple[int, int, object]]] = []
    ends: list[int] = []
    for iv in sorted(intervals, key=lambda x: (x[0], x[1])):
        for i, end in enumerate(ends):
            if end <= iv[0]:
                lanes[i].append(iv)
                ends[i] = iv[1]
                break
        else:
            lanes.append([iv])
            ends.append(iv[1])
    return lanes


class _Trace:
    def __init__(self):
        builder, self.pb = _protos()
        self.builder = builder()
        self.seq = 1
        self.tracks: dict[int, str] = {}
        self.events: list[tuple[int, int, int, object]] = []  # (ts, order, track, fill)

    def process(self, name: str, pid: int) -> int:
        uuid = _uuid("process", name)
        p = self.builder.add_packet()
        p.track_descriptor.uuid = uuid
        p.track_descriptor.process.pid = pid
        p.track_descriptor.process.process_name = name
        self.tracks[uuid] = name
        return uuid

    def track(self, parent: int, name: str) -> int:
        uuid = _uuid("track", str(parent), name)
        if uuid not in self.tracks:
            p = self.builder.add_packet()
            p.track_descriptor.uuid = uuid
            p.track_descriptor.parent_uuid = parent
            p.track_descriptor.name = name
            self.tracks[uuid] = name
        return uuid

    def slices(self, parent: int, name: str, intervals: list[tuple[int, int, dict]]) -> None:
        """Slices (begin, end, {name, args, instants}) on track ``name``, split into lanes if they overlap."""
        lanes = _lanes(intervals)
        for i, lane in enumerate(lanes):
            uuid = self.track(parent, name if len(lanes) == 1 else f"{name} #{i + 1}")
            for begin, end, what in lane:
                self.events.append((begin, 1, uuid, ("B", what)))
                self.events.append((max(end, begin), 0, uuid, ("E", what)))
                for at, instant in what.get("instants", []):
                    self.events.append((at, 2, uuid, ("I", {"name": instant})))

    def serialize(self) -> bytes:
        TE = self.pb.TrackEvent
        # Time order; at one instant ends before begins, so back-to-back slices stay siblings.
        for ts, _, uuid, (kind, what) in sorted(self.events, key=lambda e: (e[0], e[1])):
            p = self.builder.add_packet()
            p.timestamp = ts
            p.trusted_packet_sequence_id = self.seq
            p.track_event.track_uuid = uuid
            if kind == "E":
                p.track_event.type = TE.TYPE_SLICE_END
                continue
            p.track_event.type = TE.TYPE_SLICE_BEGIN if kind == "B" else TE.TYPE_INSTANT
            p.track_event.name = what["name"]
            for key, value in what.get("args", {}).items():
                a = p.track_event.debug_annotations.add()
                a.name = key
                if isinstance(value, int):
                    a.int_value = value
                else:
                    a.string_value = str(value)
        return self.builder.serialize()


def build(rt: dict, android: dict | None, board: str, rt_clock: dict) -> tuple[bytes, dict]:
    """The Perfetto trace of ``rt`` (xcc.mgmt.timelines) and ``android`` (AndroidControl.proxy_events),
    and a summary of what it holds."""
    offset, how = rt_offset(rt)
    virtual = rt_clock.get("kind") == "virtual"
    t = _Trace()
    rt_name = f"RT cell ({board}; {'virtual time, ' if virtual else ''}{how})"
    rt_proc = t.process(rt_name, 1)
    by_track: dict[str, list[dict]] = {}
    for e in rt.get("entries", []):
        by_track.setdefault(e["track"], []).append(e)
    begins = [e["actual_begin_nanos"] for e in rt.get("entries", [])]
    summary = {"rt_tracks": len(by_track), "rt_slices": 0, "android_slices": 0, "clock": how,
               "misses": 0, "overruns": 0, "clobbered": 0,
               # how far back the oldest job kept began (each timeline keeps its newest jobs only)
               "rt_span_s": (rt.get("cell_now_nanos", 0) - min(begins)) / 1e9 if begins else 0.0}
    for name, entries in sorted(by_track.items()):
        tid = entries[0].get("tid", 0)
        actual, planned = [], {}
        for e in entries:
            kind = KIND_WORD.get(e.get("kind", 0), "job")
            label = e.get("label") or kind
            flags = flag_names(e.get("flags", 0))
            pb, pe = e["planned_begin_nanos"] - offset, e["planned_end_nanos"] - offset
            ab, ae = e["actual_begin_nanos"] - offset, e["actual_end_nanos"] - offset
            instants = []
            if "deadline miss" in flags:
                instants.append((ae, "deadline miss"))
                summary["misses"] += 1
            if "cost overrun" in flags:
                instants.append((ae, "cost overrun"))
                summary["overruns"] += 1
            if "clobbered" in flags:
                instants.append((ab, "clobbered"))
                summary["clobbered"] += 1
            args = {"planned_begin_ns": pb, "planned_end_ns": pe, "begin_error_ns": ab - pb, "seq": e["seq"],
                    "flags": ", ".join(flags) or "on time", "class_tag": e.get("class_tag", 0)}
            actual.append((ab, ae, {"name": label, "args": args, "instants": instants}))
            if pe > pb and e.get("kind") in (1, 2):  # callbacks' planned intervals are their deadlines: args only
                planned.setdefault(label, []).append((pb, pe, {"name": label, "args": {"seq": e["seq"]}}))
        t.slices(rt_proc, f"{name} (tid {tid})", actual)
        for label, ivs in sorted(planned.items()):
            t.slices(rt_proc, f"{name} planned {label}", ivs)
        summary["rt_slices"] += len(actual)
    if android is not None:
        a_proc = t.process("Android cell (proxy; host CLOCK_MONOTONIC)", 2)
        by_lane: dict[str, list] = {}
        for e in android.get("events", []):
            name = f"proxy {e['kind']} {e['channel']}"
            by_lane.setdefault(name, []).append((e["begin_nanos"], e["end_nanos"], {
                "name": e["action"], "args": {"app": e.get("app", ""), "channel": e["channel"]}}))
        for name, ivs in sorted(by_lane.items()):
            t.slices(a_proc, name, ivs)
            summary["android_slices"] += len(ivs)
    return t.serialize(), summary
