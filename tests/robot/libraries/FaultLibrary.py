"""Keywords for faults and load on the Android side: stress, a killed and restarted cell, a hostile
peer flooding a channel, a cell scribbling on the other's fields of the region (rtdroid.faults,
shared with the soak), and a restarted RT cell (session.py says what every library shares)."""
from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # session.py

from robot.api import logger
from robot.api.deco import keyword, library

from rtdroid.faults import AndroidStress, flood_channel, scribble_and_wait
from session import ROOT, RTDROID, SESSION, Keywords, run


@library(scope="GLOBAL", auto_keywords=False)
class FaultLibrary(Keywords):
    @keyword
    def start_android_stress(self, seconds: float = 10):
        """Loads the Android cell's CPUs (busy processes pinned to them), allocates heavily
        (a memory-churning process) and floods the UI with events, all on the Android side
        (rtdroid.faults.AndroidStress, the soak's stress too)."""
        stress = AndroidStress(self._android_cpus(), self._android_control())
        stress.start(float(seconds))
        SESSION.stress.append(stress)

    @keyword
    def stop_android_stress(self):
        for stress in SESSION.stress:
            stress.stop()
        SESSION.stress.clear()

    def _android_cpus(self) -> list[int]:
        import yaml
        cfg = yaml.safe_load((ROOT / "board-configs" / f"{self.board}.yaml").read_text())
        for c in cfg["cells"]:
            if c["role"] == "android":
                return list(c["cpus"])
        return [0]

    @keyword
    def kill_android_cell(self):
        st = self.board_status()
        pid = int(st["cells"]["android"]["pid"])
        os.kill(pid, signal.SIGKILL)
        for _ in range(100):
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
        logger.info(f"killed the Android cell host (pid {pid})", also_console=True)

    @keyword
    def restart_android_cell(self):
        run([RTDROID, "board", "restart", "android"], timeout=180)

    @keyword
    def restart_rt_cell(self):
        """`rtdroid board restart rt`: a new RT cell agent process (boards whose RT cell can restart)."""
        run([RTDROID, "board", "restart", "rt"], timeout=180)

    @keyword
    def flood_cross_context_channel(self, channel: str, frames: int = 20000,
                                    corrupt_every: int = 10) -> dict:
        """With the Android cell host down, plays a hostile Android peer: attaches as peer 1 and
        writes ``frames`` intents to ``channel`` as fast as it can, every ``corrupt_every``-th one
        corrupted (rtdroid.faults.flood_channel). Returns what it could and could not place."""
        result = flood_channel(self.region_path(), channel, int(frames), int(corrupt_every))
        logger.info(f"flood: {result}", also_console=True)
        return result

    @keyword
    def every_owned_field_scribbled_on_is_put_back(self):
        """Plays a cell scribbling on the other's section: each field a cell owns (state lines, data
        ring headers, consumer lines; both cells) gets a hostile value, and its owner must put a
        value back within 5 s (rtdroid.faults.scribble_and_wait); then `rtdroid board status` must
        report the link ok."""
        results = scribble_and_wait(self.region_path())
        slow = max((r["ms"] for r in results if r["repaired"]), default=0)
        logger.info(f"{len(results)} owned fields scribbled on; every one put back, the slowest in {slow} ms"
                    if all(r["repaired"] for r in results) else f"repairs: {results}", also_console=True)
        lost = [f"{r['cell']} {r['field']}" for r in results if not r["repaired"]]
        if lost:
            raise AssertionError(f"not put back within 5 s: {', '.join(lost)}")
        link = self.board_status().get("link")
        if link != "ok":
            raise AssertionError(f"after the repairs the board reports the link {link}")

    @keyword
    def flood_should_be_contained(self, flood: dict):
        """Every malformed frame was dropped and counted, never delivered; frames the channel could
        not take were counted too: nothing vanished without a count."""
        d = flood["rt_cell"]
        if d["frames_undeliverable"] + d["frames_corrupt"] < flood["malformed"]:
            raise AssertionError(f"malformed frames not all counted as dropped: {flood}")
        seen = d["frames_accepted"] + d["frames_corrupt"] + d["resyncs"]
        if seen == 0:
            raise AssertionError(f"the RT cell took nothing off the ring: {flood}")
        logger.info(f"contained: {flood}", also_console=True)
