"""The echo peer (peer 1's data rings, played by this process) heals its own section like the Java
and C peers: fields another cell scribbled are put back within its duty, counted and logged, and
the round trip goes through."""

import struct
import threading

import pytest

from rtdroid.echo import PING, PONG, EchoPeer
from xcc import frames as F
from xcc import region as R


class PythonRtEcho(threading.Thread):
    """The RT side's echo, a real region peer in a thread: answers each PING with a PONG."""

    def __init__(self, path):
        super().__init__(daemon=True)
        self.rt = R.attach_cell(str(path), R.RT_PEER)
        self.stop = threading.Event()

    def run(self):
        lay = self.rt.layout
        while not self.stop.is_set():
            got = False
            for ring in range(1, lay.rings):
                raw = self.rt.consumer(ring).poll()
                if raw is None:
                    continue
                got = True
                ping = F.decode(raw).intent
                assert ping.action == PING
                pong = F.Frame(seq=1, intent=F.Intent(action=PONG, channel="echo", payload=ping.payload,
                                                      correlation_id=ping.correlation_id))
                while not self.rt.producer(ring).offer(F.encode(pong)) and not self.stop.is_set():
                    self.stop.wait(0.001)
            if not got:
                self.stop.wait(0.0005)
        self.rt.close()


@pytest.fixture
def rt_echo(tmp_path):
    path = tmp_path / "echo.region"
    R.format(path, rings=3, slots=8, slot_bytes=256)
    echo = PythonRtEcho(path)
    echo.start()
    yield path, echo
    echo.stop.set()
    echo.join()


def test_the_echo_peer_puts_back_what_another_cell_scribbled(rt_echo, capsys):
    path, echo = rt_echo
    with EchoPeer(str(path), sender_priority=60) as peer:
        assert peer.ping(b"before", 1).payload == b"before"
        assert peer.repairs == 0
        lay = peer.region.layout
        img = peer.region.words.raw
        # another cell moves this peer's write index (the RT side then counts a fault and waits for
        # this peer's heal), its state and a read index
        struct.pack_into("<Q", img, lay.ring_header(R.ANDROID_PEER, peer.ring) + R.WRITE_INDEX_OFFSET, 1 << 40)
        struct.pack_into("<I", img, lay.state_line(R.ANDROID_PEER) + R.STATE_OFFSET, R.STATE_FAILED)
        struct.pack_into("<Q", img, lay.consumer_line(R.ANDROID_PEER, 2) + R.READ_INDEX_OFFSET, 1 << 40)
        # the RT side has read the moved index (else this peer's next offer would overwrite it)
        waiting = echo.rt.consumer(peer.ring)
        for _ in range(10000):
            if waiting.counters()["write_index_faults"] == 1:
                break
            echo.stop.wait(0.001)
        assert waiting.counters()["write_index_faults"] == 1 and waiting.read_index == 1
        peer._last_beat = 0.0  # its duty is due now
        # the ping's own offer publishes this peer's write index again; its duty puts back the rest
        assert peer.ping(b"after", 2).payload == b"after"
        assert peer.repairs == 2
        assert peer.region.peer_state(R.ANDROID_PEER) == R.STATE_READY
        assert R.dump(peer.region.mapping.buf)["peers"][0]["rings"][2]["consumer"]["read_index"] == 0
        assert waiting.counters()["resyncs"] == 0 and waiting.read_index == 2  # nothing skipped
    err = capsys.readouterr().err
    assert "echo peer put back 2 field(s) of this cell's section that another cell had changed " \
           "(repairs so far 2)" in err
