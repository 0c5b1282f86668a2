"""Robot keyword library: drives a partitioned board as a user does.

It uses the same three doors a user has: the `rtdroid` CLI (boot, deploy, status), the bridge's
Python package (`xcc`: bundles, the region's counters) and the Android cell's loopback control
interface (install apps, press buttons, read views, screenshots, round-trip samples).
Nothing here stands in for a cell: every keyword talks to the real processes of the board.
"""
from __future__ import annotations

import atexit
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from robot.api import logger
from robot.api.deco import keyword, library
from robot.libraries.BuiltIn import BuiltIn

ROOT = Path(os.environ.get("RTDROID_HOME", Path(__file__).resolve().parents[3]))
BUILD = ROOT / "build"
VENV_BIN = BUILD / "venv" / "bin"
RTDROID = str(VENV_BIN / "rtdroid")
EXAMPLE_APPS = ROOT / "rtdroid-runtime" / "examples" / "target" / "apps"
ANDROID_APPS = ROOT / "android-cell" / "target" / "apps"
KEYS = BUILD / "keys"

sys.path.insert(0, str(ROOT / "tools" / "demo"))
import report  # noqa: E402  (tools/demo/report.py: percentiles from HdrHistogram, plots)
from xcc.mgmt import describe_failure  # noqa: E402
from rtdroid.control import AndroidControl, ControlError  # noqa: E402
from rtdroid import stallwitness  # noqa: E402  (the witness's record, read back)
from rtdroid.faults import AndroidStress, flood_channel, rt_receive_counters  # noqa: E402


def _run(args: list[str], timeout: float = 300, check: bool = True) -> subprocess.CompletedProcess:
    logger.info("$ " + " ".join(args))
    p = subprocess.run(args, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    if p.stdout:
        logger.info(p.stdout)
    if p.stderr:
        logger.info(p.stderr)
    if check and p.returncode != 0:
        raise AssertionError(f"{' '.join(args)} exited {p.returncode}:\n{p.stdout}\n{p.stderr}")
    return p


@library(scope="GLOBAL", auto_keywords=False)
class RTDroidLibrary:
    def __init__(self):
        self.board: str | None = None
        self.boot_seconds: float | None = None
        self._stress: list[AndroidStress] = []
        self.work = Path(tempfile.mkdtemp(prefix="rtdroid-robot-", dir=BUILD if BUILD.is_dir() else None))
        atexit.register(shutil.rmtree, self.work, True)  # scratch bundles and keys only
        self.latency: dict[str, list[int]] = {}
        self._witness: subprocess.Popen | None = None
        self._witness_windows = 0
        self._witness_record: Path | None = None
        self._witness_stalls: str | None = None  # the last window's record, once it is stopped
        self._failing_on_purpose: set[str] = set()  # components a test fails deliberately

    # ---------------------------------------------------------------- board
    @keyword
    def boot_board(self, board: str, budget_s: float = 120):
        """Boots ``board`` with `rtdroid board up`, fails past ``budget_s`` seconds."""
        self.board = board
        t0 = time.monotonic()
        _run([RTDROID, "board", "up", "--board", board], timeout=float(budget_s) + 120)
        self.boot_seconds = time.monotonic() - t0
        logger.info(f"board {board} up in {self.boot_seconds:.1f} s", also_console=True)
        if self.boot_seconds > float(budget_s):
            raise AssertionError(f"board up took {self.boot_seconds:.1f} s, budget {budget_s} s")
        return self.boot_seconds

    @keyword
    def board_status(self) -> dict:
        # exits 1 while a cell is down (the faults suite kills one on purpose): still a status
        p = _run([RTDROID, "board", "status", "--json"], check=False)
        return json.loads(p.stdout)

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
    def rt_cell_should_run_a_preempt_rt_kernel(self):
        text = self._mgmt().hello(self.region_path())
        logger.info(f"RT cell agent: {text}", also_console=True)
        if "realtime=1" not in text:
            raise AssertionError(f"the RT cell does not report a PREEMPT_RT kernel: {text!r}")

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
        before = self.region_dump()["peers"][0]["heartbeat"]
        time.sleep(2)
        after = self.region_dump()["peers"][0]["heartbeat"]
        if after <= before:
            raise AssertionError(f"the RT cell's heartbeat does not advance in the host's view ({before} -> {after})")
        text = self._mgmt().hello(self.region_path())
        logger.info(f"RT cell heartbeat {before} -> {after} in 2 s as the host reads it; HELLO answered: {text}",
                    also_console=True)

    @keyword
    def tear_down_board(self):
        """`rtdroid board down`; never fails a teardown on an already-down board."""
        self.stop_android_stress()
        self._end_witness()
        _run([RTDROID, "board", "down"], timeout=120, check=False)

    def _end_witness(self):
        """Ends a stall witness a failed test left running (SCHED_FIFO 99 on the RT cell's CPUs)."""
        w, self._witness = self._witness, None
        if w is not None and w.poll() is None:
            w.send_signal(signal.SIGINT)
            try:
                w.wait(timeout=10)
            except subprocess.TimeoutExpired:
                w.kill()
                w.wait()

    @keyword
    def board_should_leave_nothing_behind(self):
        if self.board is None:
            return
        leftovers = []
        region = Path(f"/dev/shm/rtdroid-{self.board}.region")
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
            if ("org.rtdroid.rtcell.agent.Main" in cmd or "org.rtdroid.android.cell.Main" in cmd
                    or ("qemu-system" in cmd and "rtdroid" in cmd)):
                leftovers.append(f"pid {pid_dir.name}: {cmd[:120]}")
        mounts = Path("/proc/mounts").read_text()
        leftovers += [m for m in mounts.splitlines() if "rtdroid" in m]
        if leftovers:
            raise AssertionError("left behind: " + "; ".join(leftovers))

    # ---------------------------------------------------------------- region and RT cell
    def _mgmt(self):
        from xcc import mgmt
        return mgmt

    @keyword
    def region_path(self) -> str:
        return self.board_status()["region"]

    @keyword
    def region_dump(self) -> dict:
        p = _run([RTDROID, "stats", "--region-only"])
        return json.loads(p.stdout)["region"]

    @keyword
    def rt_services(self) -> list[dict]:
        """The RT cell's services (`rt services --json`); every failed component's cause is logged."""
        p = _run([RTDROID, "rt", "services", "--json"])
        services = json.loads(p.stdout)
        for name, cause in _failed_components(services).items():
            on_purpose = " (failed on purpose by the test)" if name in self._failing_on_purpose else ""
            logger.warn(f"RT component {name} FAILED{on_purpose}: {describe_failure(cause)}"
                        + "".join(f"\n    at {f}" for f in cause.get("frames", [])[1:]))
        return services

    @keyword
    def rt_service_should_be_running(self, name: str):
        services = self.rt_services()
        mine = [s for s in services if _belongs_to(s["name"], name)]
        if not mine:
            raise AssertionError(f"no running RT service {name!r}; deployed: {[s['name'] for s in services]}")
        self._no_unexpected_failures(mine)

    @keyword
    def rt_component_fails_on_purpose(self, name: str):
        """Declares that the test fails ``name`` (``app/Component``) deliberately: its FAILED state
        is then logged, not failed, by `RT Components Should Not Have Failed`."""
        self._failing_on_purpose.add(name)

    @keyword
    def rt_components_should_not_have_failed(self):
        """Fails naming each RT component that went to FAILED (or counted a failure) without the
        test failing it on purpose, with its cause: class, message, task and release, stack frames.
        With no RT cell to ask (no board up, or a test took it down) there is nothing to check."""
        st = self.board_status() if self.board else {}
        if not st.get("cells", {}).get("rt", {}).get("alive"):
            logger.info("no RT cell running: no RT component to check")
            return
        self._no_unexpected_failures(self.rt_services())

    def _no_unexpected_failures(self, services: list[dict]):
        failed = {n: c for n, c in _failed_components(services).items() if n not in self._failing_on_purpose}
        if failed:
            raise AssertionError("RT component(s) failed: " + "; ".join(
                f"{n}: {describe_failure(c)}" for n, c in failed.items()))

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
        self._failing_on_purpose.clear()  # a suite's deliberate failures end with its board
        return str(dst)

    @keyword
    def deadline_misses(self, app_prefix: str = "") -> int:
        return sum(int(s.get("deadline_misses", 0)) for s in self.rt_services()
                   if s["name"].startswith(app_prefix))

    # ---------------------------------------------------------------- machine stall witness
    @keyword
    def start_stall_witness(self):
        """On a process board, runs cyclictest at SCHED_FIFO 99 on the RT cell's CPUs for the
        measured window: a stall that delays even it (the hypervisor descheduling this VM's vCPU,
        as these shared machines do for tens of ms) is the machine's, not the RT cell's. On a
        qemu or xen board the RT cell's CPU is an emulated one: nothing to witness."""
        st = self.board_status()
        self._witness_stalls = None
        self._end_witness()  # one a failed test left running
        if st.get("hypervisor") != "process" or shutil.which("cyclictest") is None:
            self._witness = None
            return
        sys.path.insert(0, str(ROOT / "tools" / "rtdroid"))
        from rtdroid import boardconfig
        cpus = boardconfig.load_board(st["board"]).rt["cpus"]
        # -v records every wake-up (to a file: ~25 bytes per ms per CPU would fill a pipe), so
        # each stall of the window is known, not just the worst.
        self._witness_windows += 1
        outdir = Path(BuiltIn().get_variable_value("${OUTPUT DIR}", str(self.work)))
        self._witness_record = outdir / f"stall-witness-{self._witness_windows}.txt"
        with open(self._witness_record, "w") as out:
            self._witness = subprocess.Popen(
                ["cyclictest", "-m", "-q", "-v", "-p", "99", "-i", "1000", "-t", str(len(cpus)),
                 "-a", ",".join(str(c) for c in cpus), "-D", "600"],
                stdout=out, stderr=subprocess.STDOUT)

    @keyword
    def stop_stall_witness(self) -> float:
        """Stops the witness; returns the worst wake-up latency it saw, in µs (-1: no witness)."""
        w, self._witness = self._witness, None
        if w is None:
            return -1.0
        w.send_signal(signal.SIGINT)
        w.wait(timeout=30)
        record = self._witness_record.read_text(errors="replace")
        try:
            worst = stallwitness.worst_us(record)
        except ValueError as e:
            raise AssertionError(f"cyclictest (the stall witness, {self._witness_record}): {e}") from None
        self._witness_stalls = record
        logger.info(f"stall witness: cyclictest at SCHED_FIFO 99 on the RT cell's CPUs, worst wake-up "
                    f"latency {worst} µs", also_console=True)
        return float(worst)

    @keyword
    def misses_the_witnessed_stalls_explain(self, min_stall_us: float, app: str = "cochlear") -> int:
        """The most deadline misses the stalls of the last witnessed window, each of at least
        ``min_stall_us``, can cause in ``app``'s periodic tasks: per stall and task, ceil(stall / period) + 1,
        summed over them (0 if there was no witness or no such stall)."""
        if self._witness_stalls is None or float(min_stall_us) <= 0:
            return 0
        found = stallwitness.stalls(self._witness_stalls, float(min_stall_us))
        explained = stallwitness.misses_all_explain(
            found, stallwitness.periods_us(EXAMPLE_APPS / app / "manifest.xml"))
        logger.info(f"stall witness: stalls of at least {float(min_stall_us):.0f} µs per CPU thread "
                    f"(µs): {found}; together they explain up to {explained} misses", also_console=True)
        return explained

    @keyword
    def worst_lateness_us(self, app_prefix: str = "") -> float:
        ns = [int(s.get("worst_lateness_nanos", 0)) for s in self.rt_services()
              if s["name"].startswith(app_prefix)]
        return max(ns, default=0) / 1000.0

    # ---------------------------------------------------------------- bundles
    @keyword
    def build_rt_bundle(self, app: str, variant: str = "signed") -> str:
        """Builds a bundle of example app ``app``. ``variant``: signed, unsigned, tampered-jar,
        tampered-manifest, wrong-key, broken-manifest, over-budget."""
        from xcc import bundle as xb
        src = EXAMPLE_APPS / app
        jar, manifest = src / "app.jar", src / "manifest.xml"
        for f in (jar, manifest):
            if not f.is_file():
                raise AssertionError(f"{f} is missing: build the examples first (make build)")
        key = KEYS / "deploy.key"
        if not key.is_file():
            _run([RTDROID, "keys"])
        out = self.work / f"{app}-{variant}.rtb"
        mtext = manifest.read_text()
        if variant == "broken-manifest":
            # Well-formed XML that breaks the extended manifest's rules: a periodic task whose
            # deadline is longer than its period.
            mtext = mtext.replace('periodic="8ms" deadline="8ms"', 'periodic="8ms" deadline="80ms"', 1)
        elif variant == "over-budget":
            mtext = _inflate_memory(mtext)
        if variant == "wrong-key":
            other = self.work / "other-keys"
            if not (other / "deploy.key").is_file():
                xb.generate_keypair(other)
            key = other / "deploy.key"
        mpath = self.work / f"{app}-{variant}-manifest.xml"
        mpath.write_text(mtext)
        xb.build_bundle(jar, mpath, key, out)
        if variant in ("unsigned", "tampered-jar", "tampered-manifest"):
            _rewrite_bundle(out, variant)
        return str(out)

    @keyword
    def deploy_rt_bundle(self, path: str):
        _run([RTDROID, "deploy", "rt", path], timeout=180)

    @keyword
    def rt_bundle_should_be_refused(self, path: str, reason: str):
        p = _run([RTDROID, "deploy", "rt", path], timeout=180, check=False)
        out = p.stdout + p.stderr
        if p.returncode == 0:
            raise AssertionError(f"the RT cell accepted {path}:\n{out}")
        if reason not in out:
            raise AssertionError(f"refusal of {path} does not say {reason!r}:\n{out}")
        logger.info(f"refused as expected: {out.strip()}", also_console=True)

    @keyword
    def undeploy_rt_app(self, name: str):
        _run([RTDROID, "undeploy", "rt", name], timeout=60, check=False)

    # ---------------------------------------------------------------- Android cell
    def _android_port(self) -> int:
        st = self.board_status()
        return int(st["control_port"])

    def _android(self, method: str, path: str, body: dict | None = None, raw: bool = False,
                 timeout: float = 30):
        try:
            return AndroidControl(self._android_port()).call(method, path, body, raw, timeout)
        except ControlError as e:
            raise AssertionError(str(e)) from None

    @keyword
    def install_android_app(self, app: str = "configuration-ui"):
        path = Path(app) if os.path.isabs(app) else ANDROID_APPS / app
        _run([RTDROID, "deploy", "android", str(path)], timeout=120)

    @keyword
    def android_app_should_be_refused(self, reason: str):
        broken = self.work / "broken-app"
        if broken.exists():
            shutil.rmtree(broken)
        shutil.copytree(ANDROID_APPS / "configuration-ui", broken)
        (broken / "AndroidManifest.xml").unlink()
        p = _run([RTDROID, "deploy", "android", str(broken)], timeout=120, check=False)
        out = p.stdout + p.stderr
        if p.returncode == 0 or reason not in out:
            raise AssertionError(f"broken app bundle not refused with {reason!r}: rc={p.returncode}\n{out}")

    @keyword
    def android_state(self) -> dict:
        return self._android("GET", "/state")

    @keyword
    def click_view(self, view_id: str):
        self._android("POST", "/ui/click", {"id": view_id})

    @keyword
    def set_seekbar(self, view_id: str, progress: int):
        self._android("POST", "/ui/seekbar", {"id": view_id, "progress": int(progress)})

    @keyword
    def set_switch(self, view_id: str, checked: bool):
        self._android("POST", "/ui/switch", {"id": view_id, "checked": bool(checked)})

    @keyword
    def view_text(self, view_id: str) -> str:
        r = self._android("GET", f"/ui/text?id={view_id}")
        return r["text"] if isinstance(r, dict) else str(r)

    @keyword
    def view_text_should_become(self, view_id: str, action: str, expected: str, timeout_s: float = 10,
                                attempts: int = 1):
        """Clicks ``action`` and waits until ``view_id``'s text changes and contains ``expected``.
        With ``attempts`` > 1 an unanswered click is reported as a warning and clicked again."""
        for attempt in range(1, int(attempts) + 1):
            before = self.view_text(view_id)
            self.click_view(action)
            deadline = time.monotonic() + float(timeout_s)
            while time.monotonic() < deadline:
                now = self.view_text(view_id)
                if now != before and expected in now:
                    logger.info(f"{view_id}: {before!r} -> {now!r} (attempt {attempt})", also_console=True)
                    return now
                time.sleep(0.05)
            text = (f"{view_id} reads {self.view_text(view_id)!r} {timeout_s} s after clicking {action} "
                    f"(expected a new text containing {expected!r}), attempt {attempt} of {attempts}")
            if attempt == int(attempts):
                raise AssertionError(text)
            logger.warn(text)

    @keyword
    def take_screenshot(self, name: str) -> str:
        png = self._android("GET", "/screenshot", raw=True)
        out = Path(os.environ.get("ROBOT_OUTPUT_DIR", BUILD / "robot")) / f"{name}.png"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(png)
        if png[:8] != b"\x89PNG\r\n\x1a\n":
            raise AssertionError(f"/screenshot did not return a PNG ({len(png)} bytes)")
        logger.info(f'<img src="{out.name}" width="320">', html=True)
        return str(out)

    # ---------------------------------------------------------------- latency
    @keyword
    def measure_ui_round_trips(self, count: int, view: str = "ping", name: str = "ui ping") -> dict:
        """Presses ``view`` ``count`` times, one request in flight at a time, and returns the
        percentiles of the app-measured round trips (Intent sent -> reply shown in the view)."""
        count = int(count)
        # Each reply must come within the board's REPLY_TIMEOUT_S (longer under emulation, where a
        # cold path through both proxies can take seconds); default 10 s.
        timeout_s = float(BuiltIn().get_variable_value("${REPLY_TIMEOUT_S}", 10))
        done = self._latency()["count"]
        for _ in range(count):
            self.click_view(view)
            done = self._wait_round_trips(done + 1, timeout_s=timeout_s)
        lat = self._latency()
        samples = [int(v) for v in lat["roundTrip"][-count:]]
        self.latency.setdefault(name, []).extend(samples)
        for part in ("intentToFrame", "frameToDelivered", "rtShare"):
            self.latency.setdefault(f"{name} / {part}", []).extend(
                int(v) for v in lat[part][-count:] if int(v) >= 0)
        pc = report.percentiles(samples).as_dict()
        logger.info(f"{name}: {pc}", also_console=True)
        return pc

    def _latency(self) -> dict:
        return self._android("GET", "/latency")

    def _wait_round_trips(self, n: int, timeout_s: float) -> int:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            c = self._latency()["count"]
            if c >= n:
                return c
            time.sleep(0.002)
        raise AssertionError(f"no round-trip reply within {timeout_s} s (wanted {n} replies in all)")

    @keyword
    def percentile_should_be_within(self, pc: dict, which: str, budget_us: float):
        v = float(pc[which])
        if v > float(budget_us):
            raise AssertionError(f"{which} = {v} µs exceeds the budget of {budget_us} µs ({pc})")
        logger.info(f"{which} = {v} µs within {budget_us} µs", also_console=True)

    # ---------------------------------------------------------------- stress and faults
    @keyword
    def start_android_stress(self, seconds: float = 10):
        """Loads the Android cell's CPUs (busy processes pinned to them), allocates heavily
        (a memory-churning process) and floods the UI with events, all on the Android side
        (rtdroid.faults.AndroidStress, the soak's stress too)."""
        stress = AndroidStress(self._android_cpus(), AndroidControl(self._android_port()))
        stress.start(float(seconds))
        self._stress.append(stress)

    @keyword
    def stop_android_stress(self):
        for stress in self._stress:
            stress.stop()
        self._stress.clear()

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
        _run([RTDROID, "board", "restart", "android"], timeout=180)

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
    def rt_cell_receive_counters(self) -> dict:
        """The RT cell's consumer counters over the Android cell's data rings, summed."""
        return rt_receive_counters(self.region_path())

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

    @keyword
    def save_latency(self):
        out = Path(os.environ.get("ROBOT_OUTPUT_DIR", BUILD / "robot"))
        out.mkdir(parents=True, exist_ok=True)
        (out / "latency-samples.json").write_text(json.dumps(self.latency))
        return str(out / "latency-samples.json")


def _belongs_to(service: str, name: str) -> bool:
    return service == name or service.startswith(name + "/") or service.startswith(name + ".")


def _failed_components(services: list[dict]) -> dict[str, dict]:
    """``app/Component`` -> cause of each component that failed (its tasks' rows carry the same cause)."""
    failed = {}
    for s in services:
        cause = s.get("failure")
        if cause or s.get("state") == "FAILED":
            component = "/".join(s["name"].split("/")[:2])
            failed.setdefault(component, cause or {"exception_class": "unknown cause (the RT cell did not say)",
                                                   "message": "", "task": None, "release": None, "frames": []})
    return failed


def _inflate_memory(manifest: str) -> str:
    """Asks for far more memory than any cell has: every total/persistent/release size x 10^4."""
    import re

    def big(m):
        return f'{m.group(1)}="{m.group(2)}0000{m.group(3)}"'
    return re.sub(r'(total|persistent|release)="(\d+)([KMG]?i?B?)"', big, manifest)


def _rewrite_bundle(path: Path, variant: str):
    with zipfile.ZipFile(path) as z:
        entries = {n: z.read(n) for n in z.namelist()}
    if variant == "unsigned":
        entries.pop("signature.ed25519", None)
    elif variant == "tampered-jar":
        jar = bytearray(entries["app.jar"])
        jar[len(jar) // 2] ^= 0x01
        entries["app.jar"] = bytes(jar)
    elif variant == "tampered-manifest":
        entries["manifest.xml"] = entries["manifest.xml"].replace(b"<application", b"<application ", 1)
    with zipfile.ZipFile(path, "w") as z:
        for n, data in entries.items():
            z.writestr(n, data)
