"""Load and faults a running board is put through: Android-side stress and a hostile Android peer.

Shared by the Robot suites (tests/robot) and the soak (tools/soak.py), so both apply the same
disturbances. Everything here acts on the Android side only; the RT cell is what is observed.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

from .control import AndroidControl, ControlError

# A CPU hog and a memory churner, as separate Python processes pinned to the Android cell's CPUs.
_HOG = "import time\nend=time.time()+{s}\nwhile time.time()<end: pass\n"
_CHURN = ("import time\nend=time.time()+{s}\nkeep=[]\n"
          "while time.time()<end:\n keep.append(bytearray(1<<20))\n keep=keep[-256:]\n")


class AndroidStress:
    """Two busy processes and a memory-churning one pinned to the Android cell's CPUs, and a
    flood of UI events through the control port, for ``seconds`` or until stopped."""

    def __init__(self, android_cpus: list[int], control: AndroidControl | None):
        self.cpus = android_cpus
        self.control = control
        self._procs: list[subprocess.Popen] = []
        self._threads: list[threading.Thread] = []
        self._stop = threading.Event()
        self.ui_events = 0

    def start(self, seconds: float) -> None:
        taskset = ["taskset", "-c", ",".join(map(str, self.cpus))] if shutil.which("taskset") else []
        for code in (_HOG, _HOG, _CHURN):
            self._procs.append(subprocess.Popen(taskset + [sys.executable, "-c", code.format(s=float(seconds))]))
        self._stop.clear()
        if self.control is not None:
            t = threading.Thread(target=self._flood_ui, args=(float(seconds),), daemon=True)
            t.start()
            self._threads.append(t)

    def _flood_ui(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        v = 0
        while time.monotonic() < end and not self._stop.is_set():
            try:
                self.control.call("POST", "/ui/seekbar", {"id": "volume", "progress": v % 101})
                self.ui_events += 1
            except ControlError:
                pass  # the cell may be restarting: the flood goes on
            v += 7

    def stop(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(timeout=10)
        self._threads.clear()
        for p in self._procs:
            if p.poll() is None:
                p.kill()
            p.wait()
        self._procs.clear()


def rt_receive_counters(region_path: str | Path) -> dict[str, int]:
    """The RT cell's consumer counters over the Android cell's data rings, summed (the dump lists
    each ring under its producer, with its consumer's counters): every count and drop of the
    region layout's consumer line."""
    from xcc import region as xr
    from xcc.layout import COUNTERS
    dump = xr.dump(str(region_path))
    rt = next(p for p in dump["peers"] if p["peer"] == 1)
    keys = [c.label for c in COUNTERS if c.line == "consumer_line" and c.kind in ("count", "drop")]
    return {k: sum(r["consumer"][k] for r in rt["rings"] if r["ring"] > 0) for k in keys}


def flood_channel(region_path: str | Path, channel: str, frames: int = 20000, corrupt_every: int = 10,
                  drain_timeout_s: float = 120) -> dict:
    """Plays a hostile Android peer (the Android cell must be down: this attaches as peer 1):
    writes ``frames`` SET_CONFIG intents to ``channel`` as fast as it can, every
    ``corrupt_every``-th one malformed, then waits until the RT proxy has taken every placed frame.
    Returns what was placed, refused by a full ring, malformed, and the RT cell's counter deltas."""
    from xcc import frames as xf
    from xcc import region as xr
    before = rt_receive_counters(region_path)
    reg = xr.attach_cell(str(region_path), xr.ANDROID_PEER, owns_management_ring=False)
    placed = full = corrupted = 0
    try:
        producer = reg.producer(xr.data_ring_for(10, reg.layout.rings))
        for i in range(int(frames)):
            f = xf.Frame(seq=i + 1, send_time_nanos=time.monotonic_ns())
            f.intent.channel = channel
            f.intent.action = "org.rtdroid.cochlear.SET_CONFIG"
            f.intent.sender_priority = 10
            f.intent.sender = "org.rtdroid.cochlear.ui"  # allowed: the flood reaches the channel
            # SetConfig{volume: 50, noise_reduction: 1} of bridge/contracts/cochlear.proto, encoded
            f.intent.payload = bytes([0x08, 50, 0x10, 1])
            data = xf.encode(f)
            malformed = bool(corrupt_every) and i % int(corrupt_every) == 0
            if malformed:
                data = bytes([data[0] ^ 0xFF]) + data[1:]  # its first tag byte is not valid protobuf
            if producer.offer(data):
                placed += 1
                corrupted += malformed
            else:
                full += 1
    finally:
        reg.close()
    # Until the RT proxy's consumer has taken every placed frame (accepted or corrupt), not until
    # the counters stop moving: the proxy's CPU budget makes it sleep off a long pass, and a pause
    # is not the end of the drain.
    deadline = time.monotonic() + drain_timeout_s
    while True:
        now = rt_receive_counters(region_path)
        taken = sum(now[k] - before[k] for k in ("frames_accepted", "frames_corrupt"))
        if taken >= placed or time.monotonic() > deadline:
            break
        time.sleep(0.25)
    time.sleep(0.5)  # the pass that took the last frame counts its drop
    after = rt_receive_counters(region_path)
    return {"placed": placed, "ring_full": full, "malformed": corrupted,
            "rt_cell": {k: after[k] - before[k] for k in after}}


def _hostile(counter) -> int:
    """What a scribbling cell writes into a field, by its kind (region-layout.toml): a value its
    running owner never holds, so a value put back shows."""
    from xcc import region as xr
    if counter.kind == "state":
        return xr.STATE_STOPPING
    if counter.kind == "index":
        return 1 << 40
    if counter.kind == "setting":
        return (1 << (8 * counter.width)) - 1  # the ring class is 0..R-1: all ones is no ring's
    return 999_999


def owned_fields(layout) -> list[tuple[str, str, int, int, int]]:
    """(cell, field, offset, width, hostile value) for every field a running cell owns and heals,
    as the region layout lists them (every counter of a state line, ring header and consumer line):
    both state lines, and the data rings' headers and consumer lines (ring 0 is the management
    agent's, not a cell's)."""
    from xcc import region as xr
    from xcc.layout import COUNTERS
    out = []
    for peer, cell in ((xr.RT_PEER, "rt"), (xr.ANDROID_PEER, "android")):
        out += [(cell, c.label, layout.state_line(peer) + c.offset, c.width, _hostile(c))
                for c in COUNTERS if c.line == "state_line"]
        for ring in range(1, layout.rings):
            for line, name, base in (("ring_header", "ring", layout.ring_header(peer, ring)),
                                     ("consumer_line", "line", layout.consumer_line(peer, ring))):
                out += [(cell, f"{name} {ring} {c.label}", base + c.offset, c.width, _hostile(c))
                        for c in COUNTERS if c.line == line]
    return out


def scribble_and_wait(region_path: str | Path, timeout_s: float = 5.0) -> list[dict]:
    """Plays a cell that scribbles on the other's section: writes a hostile value into each field a
    cell owns, one at a time, and waits until the owner has put a value back (its heal runs every
    heartbeat). Returns, per field, whether and how fast it was repaired."""
    import mmap
    import struct
    from xcc import region as xr
    with open(region_path, "r+b") as f, mmap.mmap(f.fileno(), 0) as m:
        layout = xr.validate_header(m)
        results = []
        for cell, field, offset, width, bad in owned_fields(layout):
            fmt = "<I" if width == 4 else "<Q"
            struct.pack_into(fmt, m, offset, bad)
            start = time.monotonic()
            repaired = None
            while time.monotonic() - start < timeout_s:
                if struct.unpack_from(fmt, m, offset)[0] != bad:
                    repaired = time.monotonic() - start
                    break
                time.sleep(0.005)
            results.append({"cell": cell, "field": field, "repaired": repaired is not None,
                            "ms": round(repaired * 1000, 1) if repaired is not None else None})
        return results
