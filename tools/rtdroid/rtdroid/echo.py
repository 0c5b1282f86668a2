"""Echo round trips through the region, with this process playing the Android side's data peer
(peer 1, data rings). Only while no Android cell runs: peer 1's data rings have one writer.

Used by `rtdroid rt ping`, the integration test and the boot-to-first-reply measurement.

Like the Java and C peers, it heals (region-spec.md, "A peer's own fields"): every duty period,
before its heartbeat, it puts back any field of its own section that another cell changed, counts
it in ``repairs`` and logs it on stderr.
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass

PING = "org.rtdroid.echo.PING"
PONG = "org.rtdroid.echo.PONG"
HEARTBEAT_PERIOD_S = 0.05  # region-spec.md: at least every 100 ms while READY


class EchoError(RuntimeError):
    pass


@dataclass
class EchoReply:
    payload: bytes
    correlation_id: int
    round_trip_s: float
    rt_share_nanos: int  # rt_reply_nanos - rt_receive_nanos, stamped by the RT-side proxy


class EchoPeer:
    def __init__(self, region_path: str, sender_priority: int = 60):
        from xcc import frames as F
        from xcc import region as xr
        self.F, self.xr = F, xr
        self.region = xr.attach_cell(region_path, xr.ANDROID_PEER, owns_management_ring=False)
        lay = self.region.layout
        self.ring = xr.data_ring_for(sender_priority, lay.rings)
        self.priority = sender_priority
        self.producer = self.region.producer(self.ring)
        self.consumers = [self.region.consumer(r) for r in range(1, lay.rings)]
        self.seq = 0
        self.max_frame = lay.max_frame_bytes
        self._last_beat = 0.0

    @property
    def repairs(self) -> int:
        """Fields of this peer's section that another cell had changed, put back so far."""
        return self.region.repairs

    def _beat(self) -> None:
        """The peer's duty: heal from ring 1 on (ring 0 is the management agent's), then beat;
        healing first counts a scribbled heartbeat as repaired instead of writing over it."""
        now = time.monotonic()
        if now - self._last_beat >= HEARTBEAT_PERIOD_S:
            repaired = self.region.heal(1)
            if repaired:
                print(f"rtdroid: echo peer put back {repaired} field(s) of this cell's section that another "
                      f"cell had changed (repairs so far {self.region.repairs})", file=sys.stderr)
            self.region.heartbeat()
            self._last_beat = now

    def ping(self, payload: bytes, correlation_id: int, timeout: float = 10.0) -> EchoReply:
        F = self.F
        self.seq += 1
        frame = F.Frame(seq=self.seq, send_time_nanos=time.monotonic_ns(),
                        intent=F.Intent(action=PING, channel="echo", sender_priority=self.priority,
                                        payload=payload, correlation_id=correlation_id, sender="rtdroid-cli"))
        data = F.encode(frame, self.max_frame)
        deadline = time.monotonic() + timeout
        t0 = time.monotonic()
        while not self.producer.offer(data):
            self._beat()
            if time.monotonic() > deadline:
                raise EchoError(f"data ring {self.ring} stayed full for {timeout:g} s")
            time.sleep(0.001)
        while time.monotonic() < deadline:
            self._beat()
            got = False
            for c in self.consumers:
                raw = c.poll()
                if raw is None:
                    continue
                got = True
                try:
                    f = F.decode(raw, self.max_frame)
                except F.FrameError:
                    c.count_undeliverable()
                    continue
                if f.WhichOneof("body") == "intent" and f.intent.action == PONG \
                        and f.intent.correlation_id == correlation_id:
                    return EchoReply(f.intent.payload, correlation_id, time.monotonic() - t0,
                                     f.intent.rt_reply_nanos - f.intent.rt_receive_nanos)
            if not got:
                time.sleep(0.0002)
        raise EchoError(f"no {PONG} with correlation_id {correlation_id} within {timeout:g} s")

    def close(self) -> None:
        try:
            self.region.set_state(self.xr.STATE_RESET)
        finally:
            self.region.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
