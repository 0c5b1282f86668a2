"""Keywords for the board: boot it, check both cells are ready, bring it down, check it left
nothing behind, keep each suite's cell logs (session.py says what every library shares)."""
from __future__ import annotations

import re
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # session.py

from robot.api import logger
from robot.api.deco import keyword, library
from robot.libraries.BuiltIn import BuiltIn

from session import (BUILD, ROOT, RTDROID, SESSION, Keywords, board_cpu_use, budget_left_to_the_cells,
                     end_witness, measure, others_share, record_kernel, run)


@library(scope="GLOBAL", auto_keywords=False)
class BoardLibrary(Keywords):
    @keyword
    def boot_board(self, board: str, budget_s=None):
        """Boots ``board`` with `rtdroid board up`; fails past ``budget_s`` seconds when the board's
        variables give one (None: an emulated board, whose boot time is emulation timing on a
        shared host: reported, not judged; the cells' own boot timeouts still bound it)."""
        from rtdroid.boardconfig import load_board
        self.board = board
        process_board = load_board(board).hypervisor == "process"
        load0 = board_cpu_use(None, board) if process_board else None
        t0 = time.monotonic()
        # RT_IMAGES: the images a LAVA job deployed, booted instead of the build's (`rtdroid lava robot --images`)
        images = BuiltIn().get_variable_value("${RT_IMAGES}", None)
        run([RTDROID, "board", "up", "--board", board, *(["--images", images] if images else [])],
            timeout=float(budget_s or 900) + 120)
        SESSION.boot_seconds = time.monotonic() - t0
        logger.info(f"board {board} up in {SESSION.boot_seconds:.1f} s", also_console=True)
        status = self.board_status()
        share = others_share(load0, board_cpu_use(status)) if process_board else None
        if share is not None:
            logger.info(f"other work than the board's used {share:.0%} of the board's CPUs meanwhile", also_console=True)
        # The first `board up` of a new RT cell image under emulation boots it cold once to take its
        # boot snapshot, paid once per image: shown apart from what every later `board up` costs.
        cold = status.get("cells", {}).get("rt", {}).get("snapshot_cold_boot_seconds")
        rest = SESSION.boot_seconds - float(cold or 0)
        measure("board_up_s", round(rest, 1), "s")
        for cell, c in status.get("cells", {}).items():
            if c.get("kernel"):
                record_kernel(cell, c["kernel"])
        if cold:
            logger.info(f"of which {cold:.1f} s the one-time cold boot of a new RT cell image to take its boot "
                        f"snapshot; the rest: {rest:.1f} s", also_console=True)
        if budget_s in (None, "None"):
            logger.info("boot time not judged on this board (emulation timing)", also_console=True)
        elif rest > budget_left_to_the_cells(float(budget_s), share):
            raise AssertionError(f"board up took {rest:.1f} s"
                                 + (f" besides the image's one-time {cold:.1f} s cold boot" if cold else "")
                                 + f", budget {budget_s} s"
                                 + (f" ({budget_left_to_the_cells(float(budget_s), share):.1f} s scaled to the CPU "
                                    f"other work left to the cells)" if share else ""))
        elif rest > float(budget_s):
            logger.warn(f"board up took {rest:.1f} s, over the budget of {budget_s} s, while other work used "
                        f"{share:.0%} of the board's CPUs: within the budget scaled to the CPU left to the cells; "
                        f"attributed to the machine")
        return SESSION.boot_seconds

    @keyword
    def both_cells_should_report_ready(self):
        st = self.board_status()
        cells = st.get("cells", {})
        for name in ("rt", "android"):
            c = cells.get(name)
            if not c or not c.get("alive") or not c.get("ready"):
                raise AssertionError(f"cell {name} not ready: {c}")
        peers = self.region_dump()["peers"]
        for p in peers:
            if p["state"] != "READY":
                raise AssertionError(f"peer {p} is not READY in the region's state table")
        self._android("GET", "/state")

    @keyword
    def region_should_be_shared_both_ways_with_every_xen_domain(self, timeout_s: float = 60):
        """On a xen board, the region is one set of bytes seen by the host and every domU.
        Host -> domUs: each borrowing domU's console shows the magic and region size the host
        formatted, and the RT cell attached to it. DomU -> host: the RT cell's heartbeat, written
        in its domU, advances in the host's view, and each borrower reads the RT cell's READY with
        the epoch the host reads. Both ways: a HELLO frame the host writes is answered by the RT cell."""
        from rtdroid.boardconfig import load_board
        board = load_board(self.board)
        header = self.region_dump()["header"]
        if header["magic"] != 0x31434358:
            raise AssertionError(f"the host does not see the region's magic: {header}")
        console = Path(self.board_status()["cells"]["rt"]["console"])
        for d in board.data["xen"].get("domains", []):
            name = d["name"]
            deadline = time.monotonic() + float(timeout_s)
            while True:
                text = console.read_text(errors="replace")
                seen = re.search(rf"XENDOM {name} region header seen: magic=(0x[0-9A-Fa-f]+) region_bytes=(0x[0-9A-Fa-f]+)", text)
                ready = re.search(rf"XENDOM {name} peer 0 READY: epoch=(0x[0-9A-Fa-f]+)", text)
                if seen and ready:
                    break
                if time.monotonic() > deadline:
                    raise AssertionError(f"domain {name} did not report the region header and the RT cell's "
                                         f"READY within {timeout_s} s (console {console})")
                time.sleep(0.5)
            if int(seen.group(1), 16) != header["magic"] or int(seen.group(2), 16) != header["region_bytes"]:
                raise AssertionError(f"domain {name} read magic {seen.group(1)} region_bytes {seen.group(2)}, the host "
                                     f"wrote {header['magic']:#x} {header['region_bytes']:#x}")
            rt_epoch = self.region_dump()["peers"][0]["epoch"]
            if int(ready.group(1), 16) != rt_epoch:
                raise AssertionError(f"domain {name} read the RT cell's epoch {ready.group(1)}, the host reads {rt_epoch}")
            logger.info(f"domain {name}: read the host's header ({seen.group(0)}) and the RT cell's READY "
                        f"(epoch {rt_epoch})", also_console=True)
        # The heartbeat must advance within 2 s: read until it does rather than sleeping the 2 s.
        before = self.region_dump()["peers"][0]["heartbeat"]
        t0 = time.monotonic()
        while True:
            time.sleep(0.1)
            after = self.region_dump()["peers"][0]["heartbeat"]
            if after > before or time.monotonic() - t0 >= 2:
                break
        if after <= before:
            raise AssertionError(f"the RT cell's heartbeat does not advance in the host's view in 2 s ({before} -> {after})")
        text = self._mgmt().hello(self.region_path())
        logger.info(f"RT cell heartbeat {before} -> {after} in {time.monotonic() - t0:.1f} s as the host reads it; "
                    f"HELLO answered: {text}", also_console=True)

    @keyword
    def bring_the_board_down(self):
        """`rtdroid board down`; never fails a teardown on an already-down board."""
        for stress in SESSION.stress:  # never leave the Android-side stress running
            stress.stop()
        SESSION.stress.clear()
        end_witness()
        run([RTDROID, "board", "down"], timeout=120, check=False)

    @keyword
    def board_should_leave_nothing_behind(self):
        if self.board is None:
            return
        leftovers = []
        from rtdroid.boardconfig import load_board
        region = load_board(self.board).region_path
        if region.exists():
            leftovers.append(str(region))
        # the Android cell's temp dir (Robolectric's native runtime, ~200 MiB per start)
        tmp = ROOT / "build" / "run" / self.board / "android-tmp"
        if tmp.exists():
            leftovers.append(str(tmp))
        for pid_dir in Path("/proc").iterdir():
            if not pid_dir.name.isdigit():
                continue
            try:
                cmd = (pid_dir / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            # This board's cells only: each names the board's region (or run dir) on its command
            # line; other checkouts' boards and the build's own cell runs are not this board's.
            ours = str(region) in cmd or str(ROOT / "build" / "run" / self.board) in cmd
            if ours and ("org.rtdroid.rtcell.agent.Main" in cmd or "org.rtdroid.android.cell.Main" in cmd
                         or "qemu-system" in cmd):
                leftovers.append(f"pid {pid_dir.name}: {cmd[:120]}")
        mounts = Path("/proc/mounts").read_text()
        leftovers += [m for m in mounts.splitlines() if "rtdroid" in m]
        if leftovers:
            raise AssertionError("left behind: " + "; ".join(leftovers))

    @keyword
    def keep_cell_logs(self, suite: str) -> str:
        """Copies the board's cell logs (rt.log, console.log, android.log) into
        ``<output dir>/cell-logs/<suite>/``: the next suite's board overwrites them."""
        if self.board is None:
            return ""
        from rtdroid import paths
        src = paths.run_dir(self.board)
        out_dir = Path(BuiltIn().get_variable_value("${OUTPUT DIR}", str(BUILD / "robot")))
        dst = out_dir / "cell-logs" / re.sub(r"[^A-Za-z0-9_.-]+", "_", suite)
        dst.mkdir(parents=True, exist_ok=True)
        kept = []
        for name in ("rt.log", "console.log", "android.log"):
            if (src / name).is_file():
                shutil.copyfile(src / name, dst / name)
                kept.append(name)
        logger.info(f"cell logs of suite {suite!r} kept in {dst}: {', '.join(kept) or 'none'}", also_console=True)
        SESSION.failing_on_purpose.clear()  # a suite's deliberate failures end with its board
        return str(dst)
