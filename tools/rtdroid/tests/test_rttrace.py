"""rt trace's Perfetto trace, read back through the trace protos: tracks, intervals, ordering, the
clock mapping and the lanes of overlapping intervals."""
from __future__ import annotations

import pytest

from rtdroid import rttrace

pb = pytest.importorskip("perfetto.protos.perfetto.trace.perfetto_trace_pb2")

MS = 1_000_000


def entry(track, kind, seq, pb_, pe, ab, ae, flags=0, label="", tag=0, tid=77):
    return {"track": track, "label": label, "seq": seq, "class_tag": tag, "flags": flags,
            "planned_begin_nanos": pb_, "planned_end_nanos": pe, "actual_begin_nanos": ab,
            "actual_end_nanos": ae, "tid": tid, "kind": kind}


def read(data: bytes):
    trace = pb.Trace()
    trace.ParseFromString(data)
    names = {p.track_descriptor.uuid: (p.track_descriptor.name or p.track_descriptor.process.process_name)
             for p in trace.packet if p.HasField("track_descriptor")}
    events = [p for p in trace.packet if p.HasField("track_event")]
    return trace, names, events


def slices(names, events):
    """Per track name: [(name, begin, end, args)] from begin/end pairs, checking they nest."""
    open_, out = {}, {}
    last_ts = 0
    for p in events:
        assert p.timestamp >= last_ts, "packets in time order"
        last_ts = p.timestamp
        track = names[p.track_event.track_uuid]
        if p.track_event.type == pb.TrackEvent.TYPE_SLICE_BEGIN:
            assert track not in open_, f"{track}: a slice begins inside another"
            open_[track] = (p.track_event.name, p.timestamp,
                            {a.name: a.int_value or a.string_value for a in p.track_event.debug_annotations})
        elif p.track_event.type == pb.TrackEvent.TYPE_SLICE_END:
            name, begin, args = open_.pop(track)
            out.setdefault(track, []).append((name, begin, p.timestamp, args))
    assert not open_, "every slice ends"
    return out


def test_engine_actions_task_releases_and_proxy_events_land_on_their_tracks_in_order():
    t0 = 10_000 * MS
    rt = {"entries": [
        entry("spark/SparkDetectionService.engine", 1, 0, t0, t0 + 30 * MS, t0 + 10_000, t0 + 400_000, label="read", tag=1),
        entry("spark/SparkDetectionService.engine", 1, 1, t0 + 400_000, t0 + 30 * MS, t0 + 410_000, t0 + 900_000, label="parse", tag=2),
        entry("spark/SparkDetectionService.engine", 1, 2, t0 + 40 * MS, t0 + 41 * MS, t0 + 40 * MS + 3_000,
              t0 + 40 * MS + 50_000, label="display", tag=4),
        entry("cochlear/ProcessingService/processingTask", 2, 5, t0, t0 + 8 * MS, t0 + 20_000, t0 + 9 * MS,
              flags=2 | 4 | 8, tid=78),
    ], "cell_now_nanos": t0 + 50 * MS, "sent_nanos": t0 + 50 * MS - 100_000, "answered_nanos": t0 + 50 * MS + 200_000}
    android = {"now_nanos": t0 + 60 * MS, "events": [
        {"kind": "broadcast", "channel": "spark.result", "action": "org.rtdroid.spark.RESULT",
         "app": "org.rtdroid.spark.monitor", "begin_nanos": t0 + 40 * MS + 60_000, "end_nanos": t0 + 41 * MS}]}
    data, summary = rttrace.build(rt, android, "host", {"kind": "host"})
    trace, names, events = read(data)
    got = slices(names, events)
    engine = got["spark/SparkDetectionService.engine (tid 77)"]
    assert [s[0] for s in engine] == ["read", "parse", "display"]
    assert engine[2][1] == t0 + 40 * MS + 3_000 and engine[2][2] == t0 + 40 * MS + 50_000, "actual interval, same clock"
    assert engine[2][3]["begin_error_ns"] == 3_000
    assert got["spark/SparkDetectionService.engine planned display"][0][1:3] == (t0 + 40 * MS, t0 + 41 * MS)
    task = got["cochlear/ProcessingService/processingTask (tid 78)"][0]
    assert task[0] == "release" and task[3]["flags"] == "late, deadline miss, cost overrun"
    instants = [p.track_event.name for p in events if p.track_event.type == pb.TrackEvent.TYPE_INSTANT]
    assert sorted(instants) == ["cost overrun", "deadline miss"]
    assert got["proxy broadcast spark.result"][0][0] == "org.rtdroid.spark.RESULT"
    assert summary["rt_slices"] == 4 and summary["android_slices"] == 1 and summary["misses"] == 1
    assert summary["rt_span_s"] == pytest.approx((50 * MS - 10_000) / 1e9)
    assert any("RT cell (host; one CLOCK_MONOTONIC" in n for n in names.values())


def test_an_rt_cell_on_another_clock_is_mapped_by_the_offset_measured_across_the_request():
    rt = {"entries": [entry("a/S/t", 2, 0, 5_000 * MS, 5_008 * MS, 5_001 * MS, 5_002 * MS)],
          "cell_now_nanos": 5_100 * MS, "sent_nanos": 900 * MS, "answered_nanos": 902 * MS}
    offset, how = rttrace.rt_offset(rt)
    assert offset == 5_100 * MS - 901 * MS and "offset" in how
    data, _ = rttrace.build(rt, None, "qemu-x86_64", {"kind": "virtual"})
    _, names, events = read(data)
    (name, begin, end, _), = slices(names, events)["a/S/t (tid 77)"]
    assert (begin, end) == (5_001 * MS - offset, 5_002 * MS - offset)
    assert any("virtual time" in n for n in names.values())


def test_overlapping_intervals_are_split_into_lanes_that_nest():
    t0 = 1_000 * MS
    android = {"events": [
        {"kind": "broadcast", "channel": "c", "action": f"a{i}", "app": "x",
         "begin_nanos": t0 + i * MS, "end_nanos": t0 + i * MS + 3 * MS} for i in range(4)]}
    data, summary = rttrace.build({"entries": []}, android, "host", {"kind": "host"})
    _, names, events = read(data)
    got = slices(names, events)
    lanes = sorted(k for k in got if k.startswith("proxy broadcast c"))
    assert lanes == ["proxy broadcast c #1", "proxy broadcast c #2", "proxy broadcast c #3"]
    assert sum(len(got[k]) for k in lanes) == 4 == summary["android_slices"]


def test_the_command_writes_the_agents_timelines_and_refuses_a_missing_directory(tmp_path, monkeypatch, capsys):
    from rtdroid import cli
    from rtdroid.commands import rt_trace
    asked = []

    class Agent:
        @staticmethod
        def timelines(region, seconds, timeout):
            asked.append(seconds)
            return {"entries": [entry("a/S/t", 2, 0, 5 * MS, 13 * MS, 6 * MS, 7 * MS, flags=8)],
                    "cell_now_nanos": 20 * MS, "sent_nanos": 20 * MS - 1000, "answered_nanos": 20 * MS + 1000}
    monkeypatch.setattr(cli, "_mgmt", lambda: Agent)
    monkeypatch.setattr(cli, "_region_of", lambda a: "/dev/shm/unused")
    monkeypatch.setattr(cli, "_clock_of", lambda a: {"kind": "host"})
    monkeypatch.setattr(rt_trace.lifecycle, "current_state",
                        lambda board: {"board": "host", "cells": {"rt": {"role": "rt"}}})
    out = tmp_path / "t.pftrace"
    assert cli.main(["rt", "trace", "--board", "host", "--seconds", "2.5", "-o", str(out)]) == 0
    assert asked == [3], "whole seconds, rounded up"
    said = capsys.readouterr().out
    assert "1 RT timeline(s) with 1 jobs (0 deadline misses, 1 cost overruns" in said and "0 proxy events" in said
    _, names, events = read(out.read_bytes())
    assert [s[0] for s in slices(names, events)["a/S/t (tid 77)"]] == ["release"]
    assert cli.main(["rt", "trace", "--board", "host", "-o", str(tmp_path / "no" / "t.pftrace")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is not a directory" in err[0]
