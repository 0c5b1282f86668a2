"""Protocol framing of the management client against a small in-test fake of the RT cell agent.

The fake only speaks the exchanges of protocols.md (chunks reassembled and CRC-checked, one answer
per request); the real agent (rt-cell/agent) is tested in the integration suites.
"""

import fcntl
import os
import threading
import time
import zlib

import pytest

from xcc import frames as F
from xcc import mgmt as M
from xcc import region as R

K = F.Control


class FakeAgent(threading.Thread):
    def __init__(self, path, behaviour="ok", answer_delay=0.0):
        super().__init__(daemon=True)
        self.region = R.attach_cell(path, R.RT_PEER)
        self.inbox = self.region.consumer(0)
        self.outbox = self.region.producer(0)
        self.behaviour = behaviour
        self.answer_delay = answer_delay
        self.stop = threading.Event()
        self.requests = []
        self.chunks = {}
        self.seq = 0

    def send(self, **control):
        self.seq += 1
        data = F.encode(F.Frame(seq=self.seq, control=K(**control)))
        while not self.outbox.offer(data):
            time.sleep(0.001)

    def run(self):
        while not self.stop.is_set():
            data = self.inbox.poll()
            if data is None:
                time.sleep(0.0005)
                continue
            if self.answer_delay:
                time.sleep(self.answer_delay)
            frame = F.decode(data)
            self.requests.append(frame)
            body = frame.WhichOneof("body")
            if body == "deploy_chunk":
                self.on_chunk(frame.deploy_chunk)
                continue
            c = frame.control
            if c.kind == K.HELLO:
                if self.behaviour == "garbage_first":
                    self.outbox.offer(b"\xff\xff")  # undecodable answer: counted, ignored
                    self.send(kind=K.HEARTBEAT)  # not what was asked: ignored
                self.send(kind=K.HELLO, text="fake-agent 1")
            elif c.kind == K.UNDEPLOY:
                if c.subject == "echo":
                    self.send(kind=K.ACK, subject="echo")
                else:
                    self.send(kind=K.ERROR, code=8, subject=c.subject, text=f"no application {c.subject}")
            elif c.kind == K.LIST_SERVICES:
                services = [] if self.behaviour == "no_services" else ["echo", "cochlear"]
                if not services:
                    self.send(kind=K.SERVICE_INFO, service=F.ServiceInfo())
                for i, name in enumerate(services):
                    failed = self.behaviour == "failed" and name == "cochlear"
                    cause = dict(subject="java.lang.IllegalStateException",
                                 text="release 42 task process\nsensor gone\nat a.B.c(B.java:1)\nat a.B.d(B.java:2)") \
                        if failed else {}
                    self.send(kind=K.SERVICE_INFO, service=F.ServiceInfo(
                        name=name, state="FAILED" if failed else "RUNNING", releases=10 * i, deadline_misses=i,
                        worst_response_nanos=300_000 * i, analysed_wcrt_nanos=2_000_000 * i, cpu_plus_one=i,
                        worst_execution_nanos=120_000 * i, analysed_cost_nanos=1_000_000 * i, cost_overruns=3 * i,
                        last_cost_overrun=7 * i,
                        index=i, count=len(services)), **cause)
            elif c.kind == K.SENSOR_STATUS:
                if self.behaviour == "no_uinput":
                    self.send(kind=K.ERROR, code=15, text="sensors unavailable: this kernel has no /dev/uinput")
                else:
                    self.send(kind=K.ACK, text="sensors: accelerometer /dev/input/event1; idle")
            elif c.kind == K.TIMELINE_REQUEST:
                # seven releases of one task, 10 ms apart, in the cell's clock (its now: 1 s after the last)
                count = 0 if self.behaviour == "no_services" else 7
                if not count:
                    self.send(kind=K.TIMELINE, timeline=F.TimelineEntry(cell_now_nanos=9))
                for i in range(count):
                    self.send(kind=K.TIMELINE, timeline=F.TimelineEntry(
                        track="cochlear/P/process", index=i, count=count, seq=100 + i, kind=2, tid=42,
                        flags=4 if i == 3 else 0, planned_begin_nanos=10_000_000 * i,
                        planned_end_nanos=10_000_000 * i + 8_000_000, actual_begin_nanos=10_000_000 * i + 5_000,
                        actual_end_nanos=10_000_000 * i + 9_000_000, cell_now_nanos=1_060_000_000))
            elif c.kind == K.STATS_REQUEST:
                self.send(kind=K.STATS, stats=F.Stats(frames_in=5, resyncs=1))

    def on_chunk(self, chunk):
        if self.behaviour == "refuse_first_chunk":
            self.send(kind=K.DEPLOY_RESULT, code=1, subject=chunk.bundle, text="total_bytes over 16 MiB")
            self.behaviour = "ignore"
            return
        if self.behaviour == "ignore":
            return
        if chunk.index != len(self.chunks):
            self.send(kind=K.DEPLOY_RESULT, code=1, subject=chunk.bundle, text=f"chunk {chunk.index} out of order")
            return
        self.chunks[chunk.index] = chunk.data
        if len(self.chunks) == chunk.count:
            data = b"".join(self.chunks[i] for i in range(chunk.count))
            self.chunks = {}
            ok = len(data) == chunk.total_bytes and zlib.crc32(data) == chunk.bundle_crc32
            if chunk.content == F.DeployChunk.SENSOR_TRACE:
                self.send(kind=K.ACK if ok else K.ERROR, code=0 if ok else 1, subject=chunk.bundle,
                          text=f"replaying {len(data)} bytes" if ok else "CRC-32 of the whole is wrong")
                return
            if self.behaviour == "bad_signature":
                self.send(kind=K.DEPLOY_RESULT, code=2, subject=chunk.bundle, text="signature does not verify")
            else:
                self.send(kind=K.DEPLOY_RESULT, code=0 if ok else 1, subject=chunk.bundle,
                          text=f"deployed {len(data)} bytes" if ok else "CRC-32 of the whole is wrong")

    def close(self):
        self.stop.set()
        self.join(5)
        self.region.close()


@pytest.fixture
def small_region(tmp_path):
    path = tmp_path / "mgmt.region"
    R.format(path, rings=2, slots=4, slot_bytes=512)  # a 4-slot ring 0 makes the client wait for space
    R.attach_cell(path, R.ANDROID_PEER, owns_management_ring=False).close()
    return path


@pytest.fixture
def agent(small_region):
    agents = []

    def start(behaviour="ok", **kw):
        a = FakeAgent(small_region, behaviour, **kw)
        a.start()
        agents.append(a)
        return a
    yield start
    for a in agents:
        a.close()


def test_hello_stats_list_undeploy(small_region, agent):
    agent()
    assert M.hello(small_region) == "fake-agent 1"
    assert M.stats(small_region)["frames_in"] == 5
    services = M.list_services(small_region)
    assert [s["name"] for s in services] == ["echo", "cochlear"] and services[1]["deadline_misses"] == 1
    # the model beside reality: 0 on the wire is "not analysed", None here, never a WCRT of 0
    assert (services[1]["worst_response_nanos"], services[1]["analysed_wcrt_nanos"]) == (300_000, 2_000_000)
    assert services[0]["analysed_wcrt_nanos"] is None
    # the CPU time a release used beside the cost the analysis assumed; 0 on the wire is "none declared"
    assert (services[1]["worst_execution_nanos"], services[1]["analysed_cost_nanos"],
            services[1]["cost_overruns"], services[1]["last_cost_overrun"]) == (120_000, 1_000_000, 3, 7)
    assert services[0]["analysed_cost_nanos"] is None and services[0]["last_cost_overrun"] is None
    # the partition's CPU: 0 on the wire is "not pinned", None here; CPU 0 travels as 1
    assert (services[0]["cpu"], services[1]["cpu"]) == (None, 0)
    assert M.undeploy(small_region, "echo").ok
    r = M.undeploy(small_region, "nothing")
    assert (r.code, r.name) == (8, "NOT_FOUND") and "nothing" in r.text


def test_a_failed_service_carries_its_cause(small_region, agent):
    agent("failed")
    echo, cochlear = M.list_services(small_region)
    assert echo["failure"] is None
    assert cochlear["state"] == "FAILED" and cochlear["failure"] == {
        "exception_class": "java.lang.IllegalStateException", "message": "sensor gone", "task": "process",
        "release": 42, "frames": ["a.B.c(B.java:1)", "a.B.d(B.java:2)"]}
    assert M.describe_failure(cochlear["failure"]) == \
        "java.lang.IllegalStateException: sensor gone (task process, release 42) at a.B.c(B.java:1)"


@pytest.mark.parametrize("text,expected", [
    ("release 0\nno such file", {"release": 0, "task": None, "message": "no such file", "frames": []}),
    ("release 3\n", {"release": 3, "task": None, "message": "", "frames": []}),
    ("", {"release": None, "task": None, "message": "", "frames": []}),
    ("release x task\nm\nat f", {"release": None, "task": None, "message": "m", "frames": ["f"]}),
])
def test_a_failure_cause_reads_whatever_the_text_holds(text, expected):
    cause = M.failure_cause(K(kind=K.SERVICE_INFO, subject="E", text=text))
    assert cause == {"exception_class": "E", **expected}
    assert M.describe_failure(cause).startswith("E")


def test_list_no_services(small_region, agent):
    agent("no_services")
    assert M.list_services(small_region) == []


def test_timelines_come_back_in_order_through_a_small_ring_with_the_cell_clock(small_region, agent):
    agent()
    t = M.timelines(small_region, seconds=5)
    assert [e["seq"] for e in t["entries"]] == list(range(100, 107))  # 7 answers through a 4-slot ring
    assert t["entries"][3]["flags"] == 4 and t["entries"][3]["track"] == "cochlear/P/process"
    assert t["cell_now_nanos"] == 1_060_000_000 and t["sent_nanos"] <= t["answered_nanos"]
    with pytest.raises(M.MgmtError, match="seconds"):
        M.timelines(small_region, seconds=-1)


def test_no_timelines_is_an_empty_list(small_region, agent):
    agent("no_services")
    assert M.timelines(small_region)["entries"] == []


def test_deploy_in_chunks_with_progress(small_region, agent, tmp_path):
    a = agent()
    data = bytes(range(256)) * 20  # 5120 bytes -> 14 chunks through a 4-slot ring
    path = tmp_path / "b.rtb"
    path.write_bytes(data)
    seen = []
    with M.ManagementClient(small_region, timeout=5) as client:
        result = client.deploy(data, "echo", progress=lambda i, n: seen.append((i, n)))
    assert result.ok and result.name == "OK" and result.subject == "echo" and "5120" in result.text
    assert seen[-1] == (14, 14) and len(seen) == 14
    chunks = [f.deploy_chunk for f in a.requests if f.WhichOneof("body") == "deploy_chunk"]
    assert [c.index for c in chunks] == list(range(14))
    assert {(c.count, c.total_bytes, c.bundle_crc32, c.bundle) for c in chunks} == \
        {(14, 5120, zlib.crc32(data), "echo")}
    assert all(len(c.data) == 384 for c in chunks[:-1]) and len(chunks[-1].data) == 5120 - 13 * 384
    seqs = [f.seq for f in a.requests]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)


def test_deploy_refusal_is_a_result(small_region, agent):
    agent("bad_signature")
    with M.ManagementClient(small_region, timeout=5) as client:
        r = client.deploy(b"x" * 1000, "echo")
    assert (r.code, r.name, r.ok) == (2, "BAD_SIGNATURE", False) and "verify" in r.text


def test_early_refusal_stops_sending(small_region, agent):
    a = agent("refuse_first_chunk", answer_delay=0.002)
    with M.ManagementClient(small_region, timeout=5) as client:
        r = client.deploy(b"y" * 384 * 40, "echo")
    assert r.name == "BAD_CHUNK"
    assert len([f for f in a.requests if f.WhichOneof("body") == "deploy_chunk"]) < 40


def test_timeout_names_the_rt_state(small_region):
    t0 = time.monotonic()
    with pytest.raises(M.MgmtTimeout) as e:
        M.hello(small_region, timeout=0.3)
    # it gives up rather than hangs: the bound is far above 0.3 s so that a loaded machine cannot fail it
    assert time.monotonic() - t0 < 30
    assert "did not answer within 0.3 s" in str(e.value) and "state=RESET" in str(e.value)


def test_full_ring_times_out_without_a_reader(small_region):
    with M.ManagementClient(small_region, timeout=0.3) as client:
        with pytest.raises(M.MgmtTimeout, match="drain the management ring"):
            client.deploy(b"z" * 384 * 10, "echo")


def test_lock_serialises_agents(small_region, agent):
    agent()
    fd = os.open(str(small_region) + ".lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        with pytest.raises(M.MgmtTimeout, match="another management exchange"):
            M.hello(small_region, timeout=0.2)
    finally:
        os.close(fd)
    assert M.hello(small_region) == "fake-agent 1"


def test_stale_and_garbage_answers_are_skipped(small_region, agent):
    a = agent("garbage_first")
    a.send(kind=K.HELLO, text="an answer to an earlier agent")
    time.sleep(0.05)
    with M.ManagementClient(small_region, timeout=5) as client:
        assert client.hello() == "fake-agent 1"
        assert client.undecodable == 1 and client.ignored == 1
    assert R.dump(small_region)["peers"][0]["rings"][0]["consumer"]["stale_skipped"] == 1


def test_missing_region_and_bad_names(tmp_path, small_region):
    with pytest.raises(M.MgmtError, match="board up"):
        M.hello(tmp_path / "nothing.region")
    with pytest.raises(M.MgmtError, match="1-63"):
        M.undeploy(small_region, "bad name")


def test_deploy_reads_the_name_from_the_manifest(small_region, agent, tmp_path):
    import zipfile
    agent()
    path = tmp_path / "echo.rtb"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("manifest.xml", b"<manifest><application name='echo2'/></manifest>")
        z.writestr("app.jar", b"jar")
        z.writestr("signature.ed25519", bytes(64))
    r = M.deploy(small_region, path, timeout=5)
    assert r.ok and r.subject == "echo2"
    path.write_bytes(b"not a zip")
    from xcc.bundle import BundleError
    with pytest.raises(BundleError, match="BAD_BUNDLE"):
        M.deploy(small_region, path, timeout=5)


def test_a_trace_travels_as_sensor_trace_chunks_and_is_answered_by_ack(small_region, agent):
    a = agent()
    trace = b"# t_ms ax ay az\n" + b"0 0 0 9.81\n" * 400
    with M.ManagementClient(small_region, timeout=5) as client:
        r = client.replay_trace(trace, "fall.trace")
    assert r.ok and r.subject == "fall.trace" and str(len(trace)) in r.text
    chunks = [f.deploy_chunk for f in a.requests if f.WhichOneof("body") == "deploy_chunk"]
    assert {c.content for c in chunks} == {F.DeployChunk.SENSOR_TRACE}
    assert b"".join(c.data for c in chunks) == trace


def test_a_bundle_travels_as_bundle_chunks(small_region, agent):
    a = agent()
    with M.ManagementClient(small_region, timeout=5) as client:
        assert client.deploy(b"z" * 1000, "echo").ok
    assert {f.deploy_chunk.content for f in a.requests} == {F.DeployChunk.BUNDLE}


def test_a_trace_over_the_bound_is_refused_before_sending(small_region, agent, tmp_path):
    a = agent()
    big = tmp_path / "big.trace"
    big.write_bytes(b"0 0 0 9.81\n" * (M.MAX_TRACE_BYTES // 10))
    with pytest.raises(M.MgmtError, match="a trace may have at most 1048576"):
        M.replay_trace(small_region, big, timeout=5)
    with M.ManagementClient(small_region, timeout=5) as client:
        with pytest.raises(M.MgmtError, match="must be 1..1048576"):
            client.replay_trace(b"", "empty.trace")
    assert a.requests == []


def test_sensor_status_says_why_sensors_are_unavailable(small_region, agent):
    agent("no_uinput")
    r = M.sensor_status(small_region, timeout=5)
    assert (r.ok, r.name) == (False, "SENSORS_UNAVAILABLE")
    assert r.text == "sensors unavailable: this kernel has no /dev/uinput"


def test_what_the_rt_cell_answers_is_one_line_on_the_host():
    # issue 38 defect 1: a reason quoting outside text must never start a line of the host's output
    r = M.Result.of(K(kind=K.DEPLOY_RESULT, code=4, subject="abs\nRTCELL READY",
                      text="x.xml:3: <application>: name 'abs\\nRTCELL READY'\r\nRTCELL READY\u2028"))
    assert "\n" not in r.text and "\r" not in r.text and "\u2028" not in r.text and "\n" not in r.subject
    assert r.text == "x.xml:3: <application>: name 'abs\\nRTCELL READY'\\r\\nRTCELL READY\\u2028"
