"""Python <-> C (libxcc) and Python <-> Java (xcc-java) through a real /dev/shm region, in
different processes.

Uses the bench peers that share one CLI: the C tools built by `make -C bridge/c`
(build/bridge/c/) and the Java BenchPeer in bridge/java/target/xcc-java-*.jar (mvn install);
each is skipped, with the reason, when it has not been built. The echo/ping peers treat frames as
opaque bytes, so Python sends real encoded frames one way and checks the bench frames the other.
"""

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from xcc import frames as F
from xcc import region as R

ROOT = Path(__file__).resolve().parents[3]
C_BUILD = Path(os.environ.get("XCC_C_BUILD", ROOT / "build" / "bridge" / "c"))
PEER = C_BUILD / "xcc_bench_peer"
TOOL = C_BUILD / "xcc_region_tool"
JAVA = Path(os.environ.get("JAVA_HOME", "/usr/lib/jvm/temurin-25-jdk-amd64")) / "bin" / "java"
JARS = sorted((ROOT / "bridge" / "java" / "target").glob("xcc-java-*.jar"))
JSON_JARS = sorted((ROOT / "json" / "target").glob("rtdroid-json-*.jar"))  # the peer's JSON writer
no_c = pytest.mark.skipif(not (PEER.is_file() and TOOL.is_file()),
                          reason=f"C tools not built ({C_BUILD}); run make -C bridge/c")
CPU = str(max(os.sched_getaffinity(0)))  # the other peer busy-polls: give it its own CPU


def peer_command(impl):
    if impl == "c":
        if not PEER.is_file():
            pytest.skip(f"C bench peer not built ({PEER}); run make -C bridge/c")
        return [str(PEER)]
    if not (JARS and JSON_JARS and JAVA.is_file()):
        pytest.skip("Java bench peer not built (bridge/java/target/xcc-java-*.jar, json/target/rtdroid-json-*.jar); "
                    "run mvn -pl bridge/java -am install")
    return [str(JAVA), "-cp", os.pathsep.join((str(JARS[-1]), str(JSON_JARS[-1]))), "org.rtdroid.bridge.bench.BenchPeer"]


@pytest.fixture
def shm_region():
    path = Path(f"/dev/shm/xcc-pytest-{os.getpid()}.region")
    mine = os.sched_getaffinity(0)
    if len(mine) > 1:  # keep this process off the C peer's CPU while the test runs
        os.sched_setaffinity(0, mine - {int(CPU)})
    yield path
    os.sched_setaffinity(0, mine)
    path.unlink(missing_ok=True)


def wait_state(region, peer, state, timeout=20):
    deadline = time.monotonic() + timeout
    while region.peer_state(peer) != state:
        assert time.monotonic() < deadline, f"peer {peer} state {region.peer_state(peer)}"
        time.sleep(0.001)


@no_c
def test_formats_are_byte_identical(shm_region, tmp_path):
    R.format(shm_region, 3, 64, 512)
    ok = subprocess.run([str(TOOL), "validate", "--path", str(shm_region)], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    c_path = tmp_path / "c.region"
    made = subprocess.run([str(TOOL), "format", "--path", str(c_path), "--rings", "3", "--slots", "64",
                           "--slot-bytes", "512"], capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    assert c_path.read_bytes() == shm_region.read_bytes()


@no_c
def test_format_reports_one_json_object_whatever_the_path(tmp_path):
    path = tmp_path / 'odd "name" \\ here.region'
    made = subprocess.run([str(TOOL), "format", "--path", str(path), "--rings", "3", "--slots", "64",
                           "--slot-bytes", "512"], capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    report = json.loads(made.stdout)
    assert report["path"] == str(path)
    assert report["slots_per_ring"] == 64


@pytest.mark.parametrize("impl", ["c", "java"])
def test_python_frames_echoed(shm_region, impl):
    R.format(shm_region, 3, 64, 512)
    count = 300
    echo = subprocess.Popen(peer_command(impl) + ["echo", "--region", str(shm_region), "--peer", "0", "--cpu", CPU,
                                                  "--count", str(count)], stderr=subprocess.PIPE, text=True)
    try:
        with R.attach_cell(shm_region, R.ANDROID_PEER) as android:
            wait_state(android, R.RT_PEER, R.STATE_READY)
            tx, rx = android.producer(1), android.consumer(1)
            for seq in range(1, count + 1):
                sent = F.encode(F.Frame(seq=seq, send_time_nanos=time.monotonic_ns(), intent=F.Intent(
                    action="org.rtdroid.echo.PING", channel="echo", payload=os.urandom(seq % 225))))
                while not tx.offer(sent):
                    time.sleep(0.0001)
                deadline = time.monotonic() + 5
                while (got := rx.poll()) is None:
                    assert time.monotonic() < deadline, f"no echo of frame {seq}"
                assert got == sent and F.decode(got).seq == seq
            android.set_state(R.STATE_STOPPING)
            assert rx.counters()["frames_corrupt"] == 0
        assert echo.wait(20) == 0, echo.stderr.read()
    finally:
        if echo.poll() is None:
            echo.kill()
            echo.wait()


def echo_the_ping(shm_region, tmp_path, impl, count, scribble_at=None):
    """This process echoes the C or Java ping as the RT peer, healing in its loop (before each poll,
    as its duty); after echo number ``scribble_at`` its own fields are scribbled. Returns the
    region (closed), its ring 1 producer and consumer, and the number echoed."""
    R.format(shm_region, 3, 64, 512)
    with R.attach_cell(shm_region, R.RT_PEER) as rt:
        ping = subprocess.Popen(peer_command(impl) + ["ping", "--region", str(shm_region), "--peer", "1", "--cpu", CPU,
                                 "--frame-bytes", "64", "--count", str(count), "--warmup", "0",
                                 "--samples-out", str(tmp_path / "samples.bin")],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            rx, tx = rt.consumer(1), rt.producer(1)
            echoed, deadline = 0, time.monotonic() + 30
            while echoed < count and time.monotonic() < deadline:
                rt.heal(1)
                data = rx.poll()
                if data is None:
                    if ping.poll() is not None:
                        break
                    continue
                assert len(data) == 64 and int.from_bytes(data[:8], "little") == echoed + 1
                while not tx.offer(data):  # a moved read index: full until this loop heals it
                    rt.heal(1)
                    time.sleep(0.0001)
                echoed += 1
                if echoed == scribble_at:
                    # Scribble at once, the echo just offered most likely still unread, and heal only
                    # once the ping has seen the incredible write index: it counts the fault and waits
                    # for the heal (this process does not beat, so the heal is never overdue) instead
                    # of resynchronising past the unread echo (which would lose it: the ping waits 5 s
                    # for it in vain).
                    scribble_own_fields(rt, R.RT_PEER, 1)
                    faults = rt.layout.consumer_line(R.ANDROID_PEER, 1) + R.WRITE_INDEX_FAULTS_OFFSET
                    seen_by = time.monotonic() + 10  # liveness only
                    while rt.words.u64(faults) == 0 and ping.poll() is None and time.monotonic() < seen_by:
                        time.sleep(0.0001)
            out, err = ping.communicate(timeout=20)
        finally:
            if ping.poll() is None:
                ping.kill()
                ping.wait()
    assert ping.returncode == 0, err
    return rt, tx, rx, echoed


@pytest.mark.parametrize("impl", ["c", "java"])
def test_ping_echoed_by_python(shm_region, tmp_path, impl):
    rt, tx, rx, echoed = echo_the_ping(shm_region, tmp_path, impl, 200)
    assert echoed == 200
    assert rt.repairs == 0


# The fields scribble_own_fields writes: state and epoch, the ring header's four, the consumer line's.
SCRIBBLED = 2 + 4 + len(R.CONSUMER_FIELDS)


def scribble_own_fields(region, peer, ring):
    """Another cell writes hostile values over every field ``peer`` owns on data ring ``ring`` and
    its state line, except the heartbeat its owner rewrites every beat (test_heal.py covers that):
    SCRIBBLED fields, both indices among them."""
    lay, w = region.layout, region.words
    state, header, line = lay.state_line(peer), lay.ring_header(peer, ring), lay.consumer_line(peer, ring)
    w.set_u32(state + R.STATE_OFFSET, R.STATE_FAILED)
    w.set_u32(state + R.EPOCH_OFFSET, 77)
    w.set_u64(header + R.WRITE_INDEX_OFFSET, 1 << 40)
    w.set_u64(header + R.FRAMES_WRITTEN_OFFSET, 999)
    w.set_u64(header + R.FRAMES_DROPPED_FULL_OFFSET, 999)
    w.set_u32(header + R.RING_CLASS_OFFSET, 7)
    for i in range(len(R.CONSUMER_FIELDS)):
        w.set_u64(line + 8 * i, 1 << 40 if i == 0 else 999)


@no_c
def test_c_puts_back_what_python_scribbled_on_its_section(shm_region):
    """The C peer's self-healing seen from Python (Java's InteropWithCTest twin): the C echo's
    duty puts back its SCRIBBLED fields, and the link flows again."""
    R.format(shm_region, 3, 64, 512)
    count, half = 200, 100
    echo = subprocess.Popen(peer_command("c") + ["echo", "--region", str(shm_region), "--peer", "0", "--cpu", CPU,
                                                 "--count", str(count)], stderr=subprocess.PIPE, text=True)
    try:
        with R.attach_cell(shm_region, R.ANDROID_PEER) as android:
            wait_state(android, R.RT_PEER, R.STATE_READY)
            tx, rx = android.producer(1), android.consumer(1)

            def echoed(first, last):
                for seq in range(first, last + 1):
                    sent = seq.to_bytes(8, "little") + bytes(seq % 200)
                    while not tx.offer(sent):  # a moved read index: full until the C peer heals
                        time.sleep(0.0001)
                    deadline = time.monotonic() + 5
                    while (got := rx.poll()) is None:
                        assert time.monotonic() < deadline, f"no echo of frame {seq}"
                    assert got == sent

            echoed(1, half)
            # let the echo's last frames_written store land: idle, the C peer then writes nothing
            # of its section but its heartbeat
            written = android.layout.ring_header(R.RT_PEER, 1) + R.FRAMES_WRITTEN_OFFSET
            while android.words.u64(written) != half:
                time.sleep(0.001)
            scribble_own_fields(android, R.RT_PEER, 1)
            echoed(half + 1, count)
            android.set_state(R.STATE_STOPPING)
            assert echo.wait(20) == 0
            err = echo.stderr.read()
            assert f"echoed {count} frames, repaired {SCRIBBLED} fields" in err, err
            assert android.peer_state(R.RT_PEER) == R.STATE_STOPPING  # set by the echo as it ends
            assert android.peer_epoch(R.RT_PEER) == 1
            back = R.dump(android.mapping.buf)["peers"][R.RT_PEER]["rings"][1]
            assert back["producer"] == {"write_index": count, "frames_written": count,
                                        "frames_dropped_full": 0, "ring_class": 1}
            assert back["consumer"]["read_index"] == count and back["consumer"]["frames_accepted"] == count
            assert back["consumer"]["frames_corrupt"] == back["consumer"]["resyncs"] == 0
    finally:
        if echo.poll() is None:
            echo.kill()
            echo.wait()


@pytest.mark.parametrize("impl", ["c", "java"])
def test_python_puts_back_what_was_scribbled_on_its_section_while_pinged(shm_region, tmp_path, impl):
    """Python's self-healing seen from C and Java: half-way through the ping, this process's
    fields are scribbled (its write index while an echo is unread), the other peer reads them, and
    every ping is still answered: the ping waited for the heal, it did not resynchronise."""
    count = 200
    rt, tx, rx, echoed = echo_the_ping(shm_region, tmp_path, impl, count, scribble_at=count // 2)
    assert echoed == count
    assert rt.repairs == SCRIBBLED
    ping = R.dump(shm_region)["peers"][R.RT_PEER]["rings"][1]["consumer"]  # the ping's reading of our ring 1
    assert ping["write_index_faults"] == 1 and ping["resyncs"] == 0 and ping["frames_accepted"] == count, ping
    assert tx.write_index == tx.counters()["frames_written"] == count and rx.counters()["frames_accepted"] == count
