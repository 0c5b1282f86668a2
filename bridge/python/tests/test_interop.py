"""Python <-> C (libxcc) and Python <-> Java (xcc-java) through a real /dev/shm region, in
different processes.

Uses the bench peers that share one CLI: the C tools built by `make -C bridge/c`
(build/bridge/c/) and the Java BenchPeer in bridge/java/target/xcc-java-*.jar (mvn install);
each is skipped, with the reason, when it has not been built. The echo/ping peers treat frames as
opaque bytes, so Python sends real encoded frames one way and checks the bench frames the other.
"""

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


@pytest.mark.parametrize("impl", ["c", "java"])
def test_ping_echoed_by_python(shm_region, tmp_path, impl):
    R.format(shm_region, 3, 64, 512)
    count = 200
    with R.attach_cell(shm_region, R.RT_PEER) as rt:
        ping = subprocess.Popen(peer_command(impl) + ["ping", "--region", str(shm_region), "--peer", "1", "--cpu", CPU,
                                 "--frame-bytes", "64", "--count", str(count), "--warmup", "0",
                                 "--samples-out", str(tmp_path / "samples.bin")],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            rx, tx = rt.consumer(1), rt.producer(1)
            echoed, deadline = 0, time.monotonic() + 30
            while echoed < count and time.monotonic() < deadline:
                data = rx.poll()
                if data is None:
                    if ping.poll() is not None:
                        break
                    continue
                assert len(data) == 64 and int.from_bytes(data[:8], "little") == echoed + 1
                while not tx.offer(data):
                    time.sleep(0.0001)
                echoed += 1
            out, err = ping.communicate(timeout=20)
        finally:
            if ping.poll() is None:
                ping.kill()
                ping.wait()
    assert ping.returncode == 0, err
    assert echoed == count
