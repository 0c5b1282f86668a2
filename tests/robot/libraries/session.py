"""What the keyword libraries share: paths, the command runner, and one session per Robot run
(the board a suite booted, its scratch directory, the round trips measured, the RT components a
test fails on purpose, the Android-side stress running).

Every keyword drives the board as a user does, through the same doors a user has: the `rtdroid`
CLI (boot, deploy, status), the bridge's Python package (`xcc`: bundles, the region's counters)
and the Android cell's loopback control port (`rtdroid.control`). Nothing here stands in for a
cell: every keyword talks to the real processes of the board.
"""
from __future__ import annotations

import atexit
import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from robot.api import logger

ROOT = Path(os.environ.get("RTDROID_HOME", Path(__file__).resolve().parents[3]))
BUILD = ROOT / "build"
RTDROID = str(BUILD / "venv" / "bin" / "rtdroid")
EXAMPLE_APPS = ROOT / "rtdroid-runtime" / "examples" / "target" / "apps"
ANDROID_APPS = ROOT / "android-cell" / "target" / "apps"
KEYS = BUILD / "keys"

sys.path.insert(0, str(ROOT / "tools" / "demo"))
from rtdroid.control import AndroidControl, ControlError  # noqa: E402
from rtdroid.errors import BoardError  # noqa: E402


def run(args: list[str], timeout: float = 300, check: bool = True) -> subprocess.CompletedProcess:
    logger.info("$ " + " ".join(args))
    return _reported(subprocess.run(args, capture_output=True, text=True, timeout=timeout, cwd=ROOT), check)


def cli(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    """`rtdroid <args>` in this process: the CLI's own entry (rtdroid.cli.main), its output and exit
    status captured, so the keyword takes the code path and reads the text a user's `rtdroid` does,
    without starting a Python (about 0.2 s of CPU each; the suites ask a board for its status and
    its services about a hundred times). For the commands that ask or tell a cell something and
    return, each bounded by its own --timeout; `board up`, `down` and `restart`, which start and
    end the cells' processes, run as a process of their own (``run``)."""
    from rtdroid import cli as rtdroid_cli
    logger.info("$ rtdroid " + " ".join(args))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = rtdroid_cli.main(list(args))
        except SystemExit as e:  # argparse's usage error
            code = e.code if isinstance(e.code, int) else 2
    return _reported(subprocess.CompletedProcess(["rtdroid", *args], code, out.getvalue(), err.getvalue()), check)


def _reported(p: subprocess.CompletedProcess, check: bool) -> subprocess.CompletedProcess:
    """Logs a command's output; fails the keyword on a non-zero exit when ``check``."""
    args = p.args
    if p.stdout:
        logger.info(p.stdout)
    if p.stderr:
        logger.info(p.stderr)
    if check and p.returncode != 0:
        raise AssertionError(f"{' '.join(args)} exited {p.returncode}:\n{p.stdout}\n{p.stderr}")
    return p


class Session:
    def __init__(self):
        self.board: str | None = None
        self.boot_seconds: float | None = None
        self.work = Path(tempfile.mkdtemp(prefix="rtdroid-robot-", dir=BUILD if BUILD.is_dir() else None))
        atexit.register(shutil.rmtree, self.work, True)  # scratch bundles and keys only
        self.latency: dict[str, list[int]] = {}            # round-trip samples, for the listener
        self.failing_on_purpose: set[str] = set()          # components a test fails deliberately
        self.stress: list = []                              # rtdroid.faults.AndroidStress running
        self.witness: subprocess.Popen | None = None        # the stall witness (cyclictest) running
        self.miss_record = None                              # its window's stallwitness.MissRecord
        self.android_ports: dict[str | None, int] = {}     # each board's Android control port
        self.android_controls: dict[str | None, AndroidControl] = {}  # each board's control client
        self.adb_ports: dict[str | None, int] = {}         # each board's adb port (adb connect 127.0.0.1:N)


def measure(name: str, value: float, units: str) -> None:
    """Records a figure the current test (or suite set-up) measured, in the one form a lab's
    result adapter reads back from output.xml (`rtdroid lava robot`: each becomes a LAVA
    measurement): 'MEASUREMENT <name>=<value> <units>'."""
    logger.info(f"MEASUREMENT {name}={value:g} {units}")


def record_kernel(cell: str, release: str) -> None:
    """Records the kernel a booted cell runs (as read from the cell), in the form `rtdroid lava
    robot` reads back from output.xml and reports as a LAVA test case: 'KERNEL <cell>=<release>'."""
    logger.info(f"KERNEL {cell}={release}")


def end_witness() -> None:
    """Ends a stall witness a failed test left running (SCHED_FIFO 99 on the RT cell's CPUs), and
    its window's record of misses."""
    record, SESSION.miss_record = SESSION.miss_record, None
    if record is not None:
        record.stop()
    w, SESSION.witness = SESSION.witness, None
    if w is not None and w.poll() is None:
        w.send_signal(2)  # SIGINT: cyclictest prints its summary and exits
        try:
            w.wait(timeout=10)
        except subprocess.TimeoutExpired:
            w.kill()
            w.wait()



# A process board's cells are processes of this kernel and share its CPUs with whatever else runs
# on this machine (a neighbour's build): how long they take by the wall clock depends on that. The
# keywords that judge a wall-clock figure on such a board read the CPU time other work took from
# the board's CPUs meanwhile, and scale the budget to the CPU left to the cells.

def board_cpu_use(status: dict | None, board: str | None = None) -> dict:
    """CPU time so far, in seconds: all of the board's CPUs busy, the cells' processes (those
    ``status`` names; none before `board up`), this test process and the commands it waited for;
    with the wall clock. ``board`` names the board when there is no status yet."""
    from rtdroid.boardconfig import load_board
    cpus = {f"cpu{c}" for c in load_board((status or {}).get("board") or board).data["cpus"]}
    hz = os.sysconf("SC_CLK_TCK")
    busy = 0
    for line in Path("/proc/stat").read_text().splitlines():
        f = line.split()
        if f and f[0] in cpus:  # user nice system idle iowait irq softirq steal: all but idle, iowait
            busy += sum(int(v) for i, v in enumerate(f[1:9]) if i not in (3, 4))
    cells = 0
    for cell in ((status or {}).get("cells") or {}).values():
        try:
            f = Path(f"/proc/{int(cell['pid'])}/stat").read_text().rsplit(")", 1)[1].split()
            cells += int(f[11]) + int(f[12])  # utime, stime: every thread's, ended ones too
        except (OSError, KeyError, TypeError, ValueError):
            pass  # a cell that is down used nothing since
    t = os.times()
    return {"wall": time.monotonic(), "cpus": len(cpus), "busy": busy / hz, "cells": cells / hz,
            "ours": t.user + t.system + t.children_user + t.children_system}


def others_share(before: dict, after: dict) -> float:
    """The share of the board's CPU time between two `board_cpu_use` reads that went to work other
    than the cells and this test (clamped to 0..1: the reads are not atomic)."""
    total = (after["wall"] - before["wall"]) * after["cpus"]
    others = ((after["busy"] - before["busy"]) - (after["cells"] - before["cells"])
              - (after["ours"] - before["ours"]))
    return round(min(1.0, max(0.0, others / total)), 3) if total > 0 else 0.0


def budget_left_to_the_cells(budget: float, share: float | None) -> float:
    """``budget`` scaled to the CPU other work left to the cells: with a share s of the CPUs taken,
    the cells may take 1 / (1 - s) as long (s counted up to 0.9: a machine busier than that still
    gets a verdict, at 10 times the budget)."""
    if not share:
        return budget
    return budget / (1.0 - min(float(share), 0.9))


SESSION = Session()


class Keywords:
    """The session and the lookups every keyword library needs."""

    @property
    def board(self) -> str | None:
        return SESSION.board

    @board.setter
    def board(self, name: str | None):
        SESSION.board = name

    @property
    def work(self) -> Path:
        return SESSION.work

    @property
    def latency(self) -> dict[str, list[int]]:
        """Round-trip samples by name (the latency listener saves them after each suite)."""
        return SESSION.latency

    def board_status(self) -> dict:
        # exits 1 while a cell is down (the faults suite kills one on purpose): still a status
        p = cli("board", "status", "--json", check=False)
        return json.loads(p.stdout)

    def region_path(self) -> str:
        return self.board_status()["region"]

    def region_dump(self) -> dict:
        p = cli("stats", "--region-only")
        return json.loads(p.stdout)["region"]

    def _mgmt(self):
        from xcc import mgmt
        return mgmt

    def _android_control(self) -> AndroidControl:
        # Asked once per board too: the token comes over adb (`adb shell cmd control token`).
        control = SESSION.android_controls.get(self.board)
        if control is None:
            control = SESSION.android_controls[self.board] = AndroidControl.for_board(self.board_status())
        return control

    def _android_port(self) -> int:
        # The port is the board file's (`board status` reports it): fixed for a board, so it is
        # asked once per board rather than on every call. Asking costs a new `rtdroid` process
        # (0.3-0.5 s of CPU), and the keywords that poll the Android cell call every few ms.
        port = SESSION.android_ports.get(self.board)
        if port is None:
            port = SESSION.android_ports[self.board] = int(self.board_status()["control_port"])
        return port

    def _android(self, method: str, path: str, body: dict | None = None, raw: bool = False,
                 timeout: float = 30):
        try:
            try:
                return self._android_control().call(method, path, body, raw, timeout)
            except ControlError as e:
                if e.status != 401:
                    raise
                # A restarted cell has a new token: ask adb for it once more.
                SESSION.android_controls.pop(self.board, None)
                return self._android_control().call(method, path, body, raw, timeout)
        except BoardError as e:  # the control port's refusal, or adb's
            raise AssertionError(str(e)) from None
