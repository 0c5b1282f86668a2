"""The one interface every hypervisor module implements.

A board file names its hypervisor (`hypervisor: qemu`); `hypervisors.get(name)` returns the
module's `Hypervisor` object. The orchestration (render.py, lifecycle.py) is generic: it renders
the region and the Android cell (always a pinned host process, the root side) and asks the
hypervisor for everything about the RT cell: its board-file rules, its rendering, its image,
how it starts, where it reports ready, how it stops and where its console is. Adding a hypervisor
(Xen, Jailhouse) is adding one module here and its templates/golden files in
hypervisor-cells/<name>/.
"""
from __future__ import annotations

import platform
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..board import Board
from ..progress import Progress

# (field path, offending value, rule broken): the triple BoardConfigError reports.
Problem = tuple[str, Any, str]


@dataclass
class Launch:
    """What `board up` hands a hypervisor to start the RT cell with."""

    board: Board
    name: str                        # the RT cell's name in the board file
    argv: list[str]                  # its rendered argv, placeholders not yet resolved
    values: dict[str, str]           # placeholder values (${RUN_DIR}, ${JAVA_HOME}, ...); start may add its own
    run: Path                        # build/run/<board>/
    timeout: float                   # boot timeout, seconds
    cold: bool                       # `board up --cold`
    progress: Progress
    state: dict                      # the run state; a hypervisor may record facts in it (e.g. "accel")
    # Starts argv as a pinned session leader logging to `log` and records it as this cell in the
    # run state (so a failed `up` tears it down). Returns the process.
    start_process: Callable[[list[str], Path], subprocess.Popen]
    # Stops what start_process started last (before starting it again).
    stop_process: Callable[[], None]
    # Formats the shared region. Called by start() only when region_after_start() said so.
    format_region: Callable[[], None] = field(default=lambda: None)


class Hypervisor:
    """Defaults describe an RT cell that is a host process logging to rt.log."""

    name = ""                        # the board file's `hypervisor:` value and hypervisor-cells/<name>/
    run_files: tuple[str, ...] = ()  # files its RT cell leaves in the run dir (removed at up and down)
    restartable = True               # `rtdroid board restart rt` may stop and start the RT cell

    # -- board file -------------------------------------------------------------------
    def check(self, data: dict) -> list[Problem]:
        """Board-file rules of this hypervisor beyond the schema and the generic rules."""
        return []

    # -- render -----------------------------------------------------------------------
    def render_rt(self, board: Board) -> dict:
        """The RT cell's entry of the rendering: {"role": "rt", "argv": [...], "ready_line",
        "log", optionally "console"}; argv may hold ${...} placeholders resolved at `up`."""
        raise NotImplementedError

    def render_extra(self, board: Board) -> dict:
        """More top-level keys of the rendering (e.g. the RT cell image recipe)."""
        return {}

    def golden_files(self, board: Board) -> dict[str, str]:
        """Rendered files besides <board>.json (file name -> text), checked against golden/."""
        return {}

    def clock(self, board: Board) -> dict:
        """The clock the RT cell's deadlines, lateness and response times are in: {"kind": "host"}
        (a real CPU: the host's time) or {"kind": "virtual", ...} (an emulated CPU in QEMU icount
        time). Recorded in the run state as rt_clock; start() may correct it (icount needs TCG)."""
        return {"kind": "host"}

    # -- up ---------------------------------------------------------------------------
    def cannot_run_here(self, board: Board) -> str | None:
        """None, or the one line `board up` refuses with before it checks anything else (a board
        whose hypervisor this machine cannot run at all: Jailhouse)."""
        return None

    prepare_stages = 0               # how many progress stages prepare() reports

    def prepare(self, board: Board, start_rt: bool, progress: Progress) -> dict[str, str]:
        """Before anything starts: check/build what the RT cell needs (image, jars). Returns
        placeholder values for the argv. Raises BoardError to refuse; nothing is left behind."""
        return {}

    # Whether prepare_from() boots the RT cell from a directory of images (a lab deployed them).
    boots_deployed_images = False

    def image_names(self, board: Board) -> list[str]:
        """The names of images(), known without building them (what a job names)."""
        return []

    def images(self, board: Board, progress: Progress) -> dict[str, Path]:
        """The files the RT cell boots, built when stale: file name -> the build's file. What a
        lab deploys for the board (`rtdroid lava`), and what `board up --images DIR` boots from
        DIR instead. Empty: the board boots no image of its own."""
        return {}

    def prepare_from(self, board: Board, directory: Path, progress: Progress) -> dict[str, str]:
        """prepare() for a cell that boots the images in ``directory`` (copies of images(): a
        lab deployed them) instead of the build's, which it neither builds nor reads."""
        from ..errors import BoardError
        raise BoardError(f"board {board.name} boots no images of its own ({self.name} hypervisor): "
                         f"--images is for a board whose RT cell boots a kernel")

    def region_after_start(self, board: Board, cold: bool) -> bool:
        """True when the region must be formatted only after start() (a restored snapshot
        overwrites it); start() then calls launch.format_region()."""
        return False

    def start(self, launch: Launch) -> tuple[subprocess.Popen, str]:
        """Starts the RT cell. Returns the process and how it started (for the progress line)."""
        raise NotImplementedError

    def cell_entry(self, run: Path) -> dict:
        """Extra keys recorded in the run state's entry for the RT cell. The console is here:
        "console" (the log `rtdroid board console --tail` and `logs` read) and
        "console_socket" (a unix socket `rtdroid board console` attaches to)."""
        return {}

    # -- wait ready / stop -------------------------------------------------------------
    # What the RT cell's console puts before each line of the cell's own output (a regex; "": nothing).
    # The waiter reads a marker (RTCELL READY) only at the start of a line after it: the agent writes
    # every record as one line with its own prefix, so nothing a cell quotes can forge one.
    console_line_prefix = ""

    # Boot milestones of the RT cell that show on its console before the agent's own lines:
    # (key in the run state's "milestones", regex). The agent's milestones are generic.
    boot_milestones: tuple[tuple[str, str], ...] = ()

    def rt_kernel_release(self, board: Board) -> str | None:
        """The release of the kernel the RT cell runs (what its `uname -r` says), known before it
        boots: for a cell that is a host process, the host's own; None when only the real board
        knows it. What a LAVA job records of the build it tests."""
        return platform.release()

    def kernel_booted(self, text: str) -> str | None:
        """None, or what the RT cell's console says once its kernel is up and the rest is the
        JVM and agent (for the progress line). A host process has no kernel of its own."""
        return None

    def kernel_release(self, text: str) -> str | None:
        """The release of the kernel the booted RT cell runs, as its agent read it there (its
        `uname -r`, said on the console after attaching: on a cold boot and after a restore alike);
        None when it has not said it."""
        m = re.search(r"rtcell: kernel realtime=\d (\S+)", text)
        return m.group(1) if m else None

    def kernel_realtime(self, text: str) -> int:
        """Whether the RT cell's kernel is PREEMPT_RT (1) or not (0): what the agent says after
        attaching, else the host's kernel (the cell is a host process)."""
        m = re.search(r"rtcell: kernel realtime=(\d)", text)
        if m:
            return int(m.group(1))
        try:
            return int(Path("/sys/kernel/realtime").read_text().strip() or 0)
        except (OSError, ValueError):
            return 0

    def start_refused(self, machine_log: str) -> str | None:
        """None, or why the RT cell can never get to ready, read from its machine's own log of
        this start (when that is not the console): no need to wait for the timeout."""
        return None

    def ready_file(self, run: Path, rendered: dict) -> Path:
        """The file the generic waiter scans for the RT cell's ready line."""
        return run / rendered["log"]

    def stop(self, entry: dict) -> None:
        """Stops the RT cell (default: SIGTERM then SIGKILL to its process group)."""
        from ..procs import stop_process
        stop_process(entry)
