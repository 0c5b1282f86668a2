"""Keywords for the RT cell: its services and their failures, deadline misses and lateness against
the board's budgets (with the machine stall witness on process boards), RT bundles built,
deployed and refused (session.py says what every library shares)."""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # session.py

from robot.api import logger
from robot.api.deco import keyword, library
from robot.libraries.BuiltIn import BuiltIn

from rtdroid import stallwitness
from rtdroid.servicerows import cost_overrun_text, wcrt_exceeded_text
from session import EXAMPLE_APPS, KEYS, ROOT, SESSION, Keywords, cli, end_witness, measure
from xcc.mgmt import describe_failure


# Motion traces the suites replay (the runtime's fall trace; examples/traces/make_no_fall.py's).
TRACES = {"fall": ROOT / "rtdroid-runtime" / "traces" / "fall.trace",
          "no-fall": ROOT / "rtdroid-runtime" / "examples" / "traces" / "no-fall.trace"}


# One lane of `rtdroid rt sensors status`'s device-to-listener latencies (SensorService.deliveryLatencies).
_SENSOR_LANE = re.compile(r"(\S+ \w+@\d+(?:/cpu[0-9,-]+)?) n=(\d+) p50<=([0-9.]+)us p99<=([0-9.]+)us max=([0-9.]+)us")


@library(scope="GLOBAL", auto_keywords=False)
class RtCellLibrary(Keywords):
    def __init__(self):
        self._witness_windows = 0
        self._witness_record: Path | None = None
        self._witness_stalls: str | None = None  # the last window's record, once it is stopped

    @keyword
    def rt_cell_should_run_a_preempt_rt_kernel(self):
        text = self._mgmt().hello(self.region_path())
        logger.info(f"RT cell agent: {text}", also_console=True)
        if "realtime=1" not in text:
            raise AssertionError(f"the RT cell does not report a PREEMPT_RT kernel: {text!r}")

    @keyword("RT Cell Kernel Should Throttle Real-Time Tasks As Its Board File Says")
    def rt_cell_kernel_should_throttle_real_time_tasks_as_its_board_file_says(self):
        """The RT cell's kernel reports (through the agent, from /proc) the real-time throttle the
        board file's command line sets: a kernel that ignored a word would leave a real-time
        thread that spins on a SCHED_OTHER one holding its CPU for Linux's ~1 s."""
        from rtdroid import boardconfig
        board = boardconfig.load_board(self.board)
        runtime, period = boardconfig.rt_throttle_us(board.data["tuning"]["rt_cmdline"])
        text = self._mgmt().hello(self.region_path())
        m = re.search(r"rt throttle (\d+)/(\d+) us \((.*)\); peer 0 epoch", text)
        if not m:
            raise AssertionError(f"the RT cell agent does not report its kernel's real-time throttle: {text!r}")
        probe = m.group(3)
        logger.info(f"RT cell kernel: real-time tasks may run {m.group(1)} us of every {m.group(2)} us; "
                    f"probe at start-up: {probe}", also_console=True)
        if (int(m.group(1)), int(m.group(2))) != (runtime, period):
            raise AssertionError(f"the RT cell's kernel throttles real-time tasks to {m.group(1)}/{m.group(2)} us, "
                                 f"its board file ({board.source}) to {runtime}/{period} us")
        # The agent's start-up probe (ThrottleProbe): a SCHED_FIFO thread spins until a SCHED_OTHER
        # thread of its CPU has run: ~0.95 s under Linux's default; 20-24 ms measured at 1.9/2 ms,
        # the starved thread (nice 0) waiting its turn among the cell's other SCHED_OTHER threads.
        ran = re.fullmatch(r"starved thread ran after (\d+) us of a SCHED_FIFO spin on CPU \d+", probe)
        if not ran:
            raise AssertionError(f"the RT cell agent's throttle probe has no figure: {probe}")
        if int(ran.group(1)) > 50 * period:
            raise AssertionError(f"a SCHED_FIFO spin kept a starved thread off its CPU for {ran.group(1)} us, "
                                 f"over 50 periods of the throttle ({period} us)")

    @keyword
    def rt_services(self) -> list[dict]:
        """The RT cell's services (`rt services --json`); every failed component's cause is logged."""
        p = cli("rt", "services", "--json")
        services = json.loads(p.stdout)
        for name, cause in _failed_components(services).items():
            on_purpose = " (failed on purpose by the test)" if name in SESSION.failing_on_purpose else ""
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
        SESSION.failing_on_purpose.add(name)

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
        failed = {n: c for n, c in _failed_components(services).items() if n not in SESSION.failing_on_purpose}
        if failed:
            raise AssertionError("RT component(s) failed: " + "; ".join(
                f"{n}: {describe_failure(c)}" for n, c in failed.items()))

    @keyword
    def deadline_misses(self, app_prefix: str = "") -> int:
        """``app_prefix``'s deadline misses so far."""
        return sum(int(s.get("deadline_misses", 0)) for s in self.rt_services()
                   if s["name"].startswith(app_prefix))

    @keyword
    def start_rt_window(self, app: str = "cochlear") -> dict:
        """Opens a measured window of ``app``: notes its misses and worst lateness so far (the
        runtime keeps both since deploy) and starts the stall witness. Close it with `RT Window
        Should Stay Within The Board's Budget`."""
        opened = time.monotonic_ns()  # misses ending from here on are the window's (one clock on a process board)
        services = [s for s in self.rt_services() if s["name"].startswith(app)]
        window = {"app": app, "opened_ns": opened,
                  "misses": sum(int(s.get("deadline_misses", 0)) for s in services),
                  "lateness_us": max((int(s.get("worst_lateness_nanos", 0)) for s in services), default=0) / 1000.0}
        self.start_stall_witness(app)
        return window

    @keyword
    def worst_lateness_us(self, app_prefix: str = "") -> float:
        ns = [int(s.get("worst_lateness_nanos", 0)) for s in self.rt_services()
              if s["name"].startswith(app_prefix)]
        return max(ns, default=0) / 1000.0

    @keyword
    def rt_releases(self, app_prefix: str) -> int:
        """Releases (tasks) and completed callbacks (components) of ``app_prefix``'s services."""
        return sum(int(s.get("releases", 0)) for s in self.rt_services() if _belongs_to(s["name"], app_prefix))

    @keyword
    def rt_releases_should_keep_rising(self, app: str, releases_before, timeout_s: float = 10):
        """``app``'s releases go on past ``releases_before`` within ``timeout_s``: it still runs."""
        import time
        deadline = time.monotonic() + float(timeout_s)
        while (now := self.rt_releases(app)) <= int(releases_before):
            if time.monotonic() > deadline:
                raise AssertionError(f"{app}'s releases stayed at {now} (before: {releases_before}) for {timeout_s} s")
            time.sleep(0.2)
        logger.info(f"{app}: {now} releases (before: {releases_before})", also_console=True)

    @keyword
    def rt_app_should_not_be_deployed(self, app: str):
        names = [s["name"] for s in self.rt_services()]
        if any(_belongs_to(n, app) for n in names):
            raise AssertionError(f"{app} runs although it was refused: {names}")

    @keyword
    def analysed_wcrt_should_be(self, service: str, expected: str):
        """The row ``service`` of `rt services` shows the admission analysis's WCRT ``expected``
        (e.g. ``2 ms``, ``3100 us``) beside a measured worst response and, once it released, the
        CPU time of its most expensive release or callback; logs the table as a user sees it, and a
        warning naming the cost overruns if some release used more CPU time than the cost the
        analysis assumed (the JIT's cold code after a deploy does, on the emulated boards)."""
        logger.info(cli("rt", "services").stdout, also_console=True)
        rows = {s["name"]: s for s in self.rt_services()}
        if service not in rows:
            raise AssertionError(f"no RT service {service!r}; deployed: {sorted(rows)}")
        number, unit = expected.split()
        want = round(float(number) * {"ms": 1_000_000, "us": 1_000}[unit])
        got = rows[service].get("analysed_wcrt_nanos")
        if got != want:
            raise AssertionError(f"{service}: analysed WCRT {got} ns, expected {want} ns ({expected})")
        row = rows[service]
        if int(row.get("releases", 0)) > 0 and int(row.get("worst_response_nanos", 0)) <= 0:
            raise AssertionError(f"{service} has released but shows no measured worst response: {row}")
        if int(row.get("releases", 0)) > 0 and int(row.get("worst_execution_nanos") or 0) <= 0:
            raise AssertionError(f"{service} has released but shows no measured execution (CPU time): {row}")
        over = cost_overrun_text(row)
        if over:
            logger.warn(f"{service}: {over}")

    @keyword
    def rt_app_should_hold_its_analysis(self, app: str):
        """Every analysed row of ``app`` (its periodic tasks, and components that declare a cost)
        kept within the cost the admission analysis assumed since its first release: no release
        used more CPU time than declared. On a board whose RT cell runs in virtual time that is a
        verdict: CPU time there counts the release's own instructions, whatever the host does. In
        the host's clock an overrun is a warning (a VM without steal-time accounting counts a machine
        stall as the running release's CPU time). A worst response over the analysed WCRT is a
        warning on every board: the JVM's safepoints, which a lower-priority thread can lengthen
        (the VM thread is SCHED_OTHER), are outside the analysis (docs/rtdroid-runtime.md, "Honest
        limits"), and in virtual time they still depend on how much the host lets the Android cell
        send per virtual millisecond."""
        rows = [s for s in self.rt_services() if _belongs_to(s["name"], app)]
        logger.info(cli("rt", "services").stdout, also_console=True)
        if not any(s.get("analysed_wcrt_nanos") for s in rows):
            raise AssertionError(f"{app} has no analysed row to hold: {rows}")
        virtual = self.rt_clock()["kind"] == "virtual"
        overruns, late = analysis_breaches(rows)
        if overruns and virtual:
            raise AssertionError(f"{app} overran its declared cost in virtual time: " + "; ".join(overruns))
        for b in overruns + late:
            logger.warn(b + ("" if virtual else " (host clock: a machine stall may explain it)"))

    def rt_clock(self) -> dict:
        """The clock the RT cell's figures are in, as `board status` describes it: {"kind": "virtual",
        "label": ...} on an emulated board in virtual time, {"kind": "host"} otherwise."""
        return self.board_status().get("rt_clock") or {"kind": "host"}

    @keyword("RT Window Should Stay Within The Board's Budget")
    def rt_window_should_stay_within_the_boards_budget(self, window: dict):
        """Closes ``window`` (from `Start RT Window`): stops the stall witness; the app's new misses
        must stay within the board's MAX_DEADLINE_MISSES, and the worst lateness the window raised
        within WORST_LATENESS_BUDGET_US, both in the RT cell's clock (virtual time on an emulated
        board). On a process board the stall witness (cyclictest at SCHED_FIFO 99 on the RT cell's
        CPUs) ran during the window and recorded when it was held off its CPU: a miss is the
        machine's (this VM's vCPU descheduled) only if the RT cell's timeline of it shows the
        witnessed stalls within its release's interval add up to its lateness (it would have met
        its deadline without them; rtdroid.stallwitness.judge_misses), logged as a warning; any
        other miss, or one the timelines no longer hold, fails."""
        witness_stall_us = self.stop_stall_witness()
        app, misses_before = window["app"], int(window["misses"])
        variable = BuiltIn().get_variable_value
        budget = int(variable("${MAX_DEADLINE_MISSES}"))
        stall_floor_us = float(variable("${MACHINE_STALL_US}"))
        lateness_budget_us = float(variable("${WORST_LATENESS_BUDGET_US}"))
        clock = self.rt_clock()
        clock_label = clock.get("label") or ("virtual time" if clock["kind"] == "virtual" else "host clock")
        new = self.deadline_misses(app) - int(misses_before)
        logger.info(f"deadline misses during the window: {new} (budget {budget}; {clock_label})", also_console=True)
        measure("misses", new, "misses")
        if new > budget:  # which task missed, and how badly, is what the next diagnosis needs
            logger.info(f"RT services after the window: {self.rt_services()}", also_console=True)
            excused, why = self.misses_the_witnessed_stalls_explain(window, new)
            if new - excused > budget:
                raise AssertionError(f"{new} deadline misses, budget {budget}; {why}")
            logger.warn(f"{new} deadline misses, budget {budget}; {why}: attributed to the machine")
        end_witness()  # the window's record of misses, unread when its misses kept within the budget
        machine_stalled = stall_floor_us > 0 and float(witness_stall_us) >= stall_floor_us
        # The runtime keeps the worst lateness since deploy. The window is judged by it only if the
        # window raised it: a stall before the window (outside any witness) is not the window's.
        worst = self.worst_lateness_us(app)
        before = float(window["lateness_us"])
        measure("worst_lateness_us", float(worst), "us")  # since deploy, in the cell's clock
        if worst <= before:
            logger.info(f"worst release lateness {worst} µs was set before the window (the window's worst is at "
                        f"most that; budget {lateness_budget_us:.0f}; {clock_label})", also_console=True)
            return
        logger.info(f"worst release lateness, raised in the window: {worst} µs (budget {lateness_budget_us:.0f}; "
                    f"{clock_label})", also_console=True)
        if worst > lateness_budget_us and machine_stalled and worst <= lateness_budget_us + float(witness_stall_us):
            logger.warn(f"worst release lateness {worst} µs while the machine stalled the RT cell's CPU for up to "
                        f"{float(witness_stall_us):.0f} µs (stall witness): attributed to the machine")
        elif worst > lateness_budget_us:
            raise AssertionError(f"worst release lateness {worst} µs exceeds the budget of {lateness_budget_us:.0f} µs")

    @keyword
    def start_stall_witness(self, app: str = "cochlear"):
        """On a process board, runs cyclictest at SCHED_FIFO 99 on the RT cell's CPUs for the
        measured window: a stall that delays even it (the hypervisor descheduling this VM's vCPU,
        as these shared machines do for tens of ms) is the machine's, not the RT cell's. On a
        qemu or xen board the RT cell's CPU is an emulated one: nothing to witness."""
        st = self.board_status()
        self._witness_stalls = None
        end_witness()  # one a failed test left running
        if st.get("hypervisor") != "process" or shutil.which("cyclictest") is None:
            SESSION.witness = None
            return
        from rtdroid import boardconfig
        cpus = boardconfig.load_board(st["board"]).rt["cpus"]
        # --spike records each wake-up the machine delayed, with when (CLOCK_MONOTONIC), so each
        # stall of the window is an interval the RT cell's timelines can be set against.
        self._witness_windows += 1
        outdir = Path(BuiltIn().get_variable_value("${OUTPUT DIR}", str(self.work)))
        self._witness_record = outdir / f"stall-witness-{self._witness_windows}.txt"
        with open(self._witness_record, "w") as out:
            SESSION.witness = subprocess.Popen(
                ["cyclictest", "-m", "-q", "-p", "99", "-i", "1000", "-t", str(len(cpus)),
                 "-a", ",".join(str(c) for c in cpus), "-D", "600", *stallwitness.SPIKE_OPTIONS],
                stdout=out, stderr=subprocess.STDOUT)
        _wait_until_measuring(SESSION.witness, len(cpus), self._witness_record)
        # The RT cell's record of each miss, kept as it happens: its timelines hold ~8 s of jobs.
        SESSION.miss_record = stallwitness.MissRecord(self.region_path(), app)

    @keyword
    def stop_stall_witness(self) -> float:
        """Stops the witness; returns the worst wake-up latency it saw, in µs (-1: no witness)."""
        w, SESSION.witness = SESSION.witness, None
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

    def misses_the_witnessed_stalls_explain(self, window: dict, new: int) -> tuple[int, str]:
        """How many of ``window``'s ``new`` misses the last witness's stalls explain, and why: each
        miss the RT cell recorded during the window (its timelines, kept as the misses happened:
        stallwitness.MissRecord) is set against the witnessed stalls on the one clock both use
        (rtdroid.stallwitness.attribute, as the soak); misses counted but not in that record are
        unexplained."""
        record, SESSION.miss_record = SESSION.miss_record, None
        if self._witness_stalls is None or record is None:
            return 0, "no stall witness ran (the RT cell's CPU is not one of this host's)"
        entries = record.close()
        explained, why, judged = stallwitness.attribute(entries, self._witness_stalls, int(window["opened_ns"]),
                                                        new, record.clock_problem)
        for j in judged:
            logger.info(f"miss: {j['track']} #{j['seq']} ({j['misses']} release(s)) {j['lateness_ns'] / 1e3:.0f} µs "
                        f"late, witnessed stalls within its interval {j['stalled_ns'] / 1e3:.0f} µs: "
                        f"{'explained' if j['explained'] else 'NOT explained'}", also_console=True)
        logger.info(f"the RT cell's record of the window: {record.fetches} fetches of its timelines, "
                    f"{record.failed_polls} failed polls", also_console=True)
        return explained, why

    @keyword
    def build_rt_bundle(self, app: str, variant: str = "signed", version: str = "", name: str = "") -> str:
        """Builds a bundle of example app ``app``. ``variant``: signed, unsigned, tampered-jar,
        tampered-manifest, wrong-key, broken-manifest, over-budget, unschedulable (its first
        component at priority 95 with a 7 ms cost every 16 ms), downgrade (signed with
        ``rtdroid bundle --allow-downgrade``'s signature), relabelled-downgrade (an ordinary
        signature under the downgrade signature's entry name). ``version`` replaces the manifest's
        versionCode, ``name`` its application name (the RT cell remembers versions per name, across
        runs on a board that keeps its state: tests that change versions use names of their own)."""
        from xcc import bundle as xb
        src = EXAMPLE_APPS / app
        jar, manifest = src / "app.jar", src / "manifest.xml"
        for f in (jar, manifest):
            if not f.is_file():
                raise AssertionError(f"{f} is missing: build the examples first (make build)")
        key = KEYS / "deploy.key"
        if not key.is_file():
            cli("keys")
        out = self.work / f"{name or app}-{variant}{'-v' + version if version else ''}.rtb"
        mtext = manifest.read_text()
        if version:
            mtext, n = re.subn(r'(<manifest\b[^>]*\bversionCode=")[^"]*"', rf'\g<1>{int(version)}"', mtext, count=1)
            if n != 1:
                raise AssertionError(f"{manifest} has no versionCode on <manifest> to replace")
        if name:
            mtext = mtext.replace(f'<application name="{app}"', f'<application name="{name}"', 1)
        if variant == "broken-manifest":
            # Well-formed XML that breaks the extended manifest's rules: a periodic task whose
            # deadline is longer than its period.
            mtext = mtext.replace('periodic="8ms" deadline="8ms"', 'periodic="8ms" deadline="80ms"', 1)
        elif variant == "over-budget":
            mtext = _inflate_memory(mtext)
        elif variant == "unschedulable":
            mtext = _overload(mtext)
        if variant == "wrong-key":
            other = self.work / "other-keys"
            if not (other / "deploy.key").is_file():
                xb.generate_keypair(other)
            key = other / "deploy.key"
        mpath = self.work / f"{app}-{variant}-manifest.xml"
        mpath.write_text(mtext)
        xb.build_bundle(jar, mpath, key, out, allow_downgrade=variant == "downgrade")
        if variant in ("unsigned", "tampered-jar", "tampered-manifest", "relabelled-downgrade"):
            _rewrite_bundle(out, variant)
        return str(out)

    @keyword
    def skip_unless_the_rt_cell_has_sensors(self):
        """Skips the test, with the RT cell's own reason, where the cell has no sensors (the host
        board's kernel has no /dev/uinput): `rtdroid rt sensors status` says why in one line."""
        p = cli("rt", "sensors", "status", check=False)
        line = (p.stdout.strip() or p.stderr.strip()).splitlines()[-1:] or ["no answer"]
        logger.info(f"RT cell: {line[0]}", also_console=True)
        if p.returncode != 0:
            if "sensors unavailable" not in line[0]:
                raise AssertionError(f"rtdroid rt sensors status failed: {p.stdout}{p.stderr}")
            BuiltIn().skip(line[0])

    @keyword
    def replay_motion_trace(self, trace: str):
        """Replays a motion trace in the RT cell (`rtdroid rt sensors replay`): ``fall`` (the
        runtime's fall trace), ``no-fall`` (walking, sitting down hard, a stumble), or a path."""
        path = TRACES.get(trace, Path(trace))
        p = cli("rt", "sensors", "replay", str(path))
        logger.info(p.stdout.strip(), also_console=True)

    @keyword
    def motion_trace_replay_should_end(self, timeout_s: float = 120):
        """Waits until the RT cell's sensors are idle again (the replay wrote its last sample)."""
        deadline = time.monotonic() + float(timeout_s)
        while True:
            p = cli("rt", "sensors", "status")
            if "; idle;" in p.stdout:
                logger.info(p.stdout.strip(), also_console=True)
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"the replay has not ended after {timeout_s} s: {p.stdout.strip()}")
            time.sleep(1)

    @keyword
    def sensor_delivery_should_stay_within(self, budget_us: float):
        """Reads the RT cell's own measurement of its sensor lanes (`rtdroid rt sensors status`:
        per lane, each event from the kernel's time stamp of the frame written into the input
        device to the start of the lane's first listener, in the RT cell's clock) and fails when no
        lane delivered or a lane's worst latency exceeds ``budget_us``. On an emulated board the
        figures are the cell's virtual time and are labelled so."""
        p = cli("rt", "sensors", "status")
        text = p.stdout.strip()
        lanes = _SENSOR_LANE.findall(text)
        if not lanes:
            raise AssertionError(f"no sensor lane of the RT cell has delivered an event: {text}")
        clock = self.rt_clock()
        where = f" ({clock.get('label', 'virtual time')})" if clock["kind"] == "virtual" else " (host clock)"
        late = []
        for lane, n, p50, p99, worst in lanes:
            logger.info(f"sensor lane {lane}: {n} events, device to listener p50 <= {p50} us, p99 <= {p99} us, "
                        f"worst {worst} us{where}", also_console=True)
            if float(worst) > float(budget_us):
                late.append(f"{lane}: worst {worst} us > {float(budget_us):g} us")
        if late:
            raise AssertionError("sensor events reached their listeners late" + where + ": " + "; ".join(late))

    @keyword
    def deploy_rt_bundle(self, path: str):
        cli("deploy", "rt", path)

    @keyword
    def rt_bundle_should_be_refused(self, path: str, reason: str):
        p = cli("deploy", "rt", path, check=False)
        out = p.stdout + p.stderr
        if p.returncode == 0:
            raise AssertionError(f"the RT cell accepted {path}:\n{out}")
        if reason not in out:
            raise AssertionError(f"refusal of {path} does not say {reason!r}:\n{out}")
        logger.info(f"refused as expected: {out.strip()}", also_console=True)

    @keyword
    def rt_cell_should_have_read_version(self, app: str, version: str, timeout_s: float = 60) -> str:
        """Waits for the RT cell's start-up lines on its version record (the agent's console: rt.log,
        or the emulated machine's console.log) to say it read ``app`` at ``version``; returns where
        the record was read from, as the cell said (the store's name: a directory's file, a block
        device, /dev/mem@ADDRESS+BYTES)."""
        from rtdroid import paths
        run_dir = paths.run_dir(self.board)
        want = re.compile(rf"rtcell: recorded version: {re.escape(app)} {int(version)}\s*$")
        source = re.compile(r"rtcell: versions of \d+ application\(s\) read from (\S+)")
        deadline = time.monotonic() + float(timeout_s)
        while True:
            for name in ("rt.log", "console.log"):
                f = run_dir / name
                lines = f.read_text(errors="replace").splitlines() if f.is_file() else []
                where = None
                for line in lines:  # the last start's source line before the wanted version's line
                    m = source.search(line)
                    if m:
                        where = m.group(1)
                    elif where and want.search(line):
                        logger.info(f"the RT cell read {app} {version} from {where} ({f.name})", also_console=True)
                        return where
            if time.monotonic() > deadline:
                raise AssertionError(f"the RT cell's start-up lines in {run_dir}/rt.log or console.log do not say it "
                                     f"read {app} at version {version} from its version record")
            time.sleep(0.2)  # local files: a finer poll costs nothing and ends the wait sooner

    @keyword
    def undeploy_rt_app(self, name: str):
        cli("undeploy", "rt", name, check=False)



def analysis_breaches(rows: list[dict]) -> tuple[list[str], list[str]]:
    """What in these `rt services` rows broke the admission analysis: the cost overruns, and the
    worst responses over the analysed WCRT (rows the analysis does not cover are not judged)."""
    overruns = [f"{s['name']}: {text}" for s in rows if (text := cost_overrun_text(s))]
    late = [f"{s['name']}: {text}" for s in rows if (text := wcrt_exceeded_text(s))]
    return overruns, late


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


def _overload(manifest: str) -> str:
    """The first component (a sporadic receiver declaring cost and min-interarrival, as the echo
    example does) at priority 95, 7 ms of work at most every 16 ms: schedulable alone, not above
    the cochlear implant (its processingTask, 1 ms every 8 ms at 89 below recordingTask's 1 ms at
    90, would finish at 9 ms)."""
    out, n_prio = re.subn(r'\bpriority="\d+"', 'priority="95"', manifest, count=1)
    out, n_cost = re.subn(r'\bcost="[^"]*"', 'cost="7ms"', out, count=1)
    out, n_mit = re.subn(r'\bmin-interarrival="[^"]*"', 'min-interarrival="16ms"', out)
    if not (n_prio and n_cost and n_mit):
        raise AssertionError("the unschedulable variant needs a component declaring priority, cost and min-interarrival")
    return out


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
    elif variant == "relabelled-downgrade":
        entries["downgrade.ed25519"] = entries.pop("signature.ed25519")
    with zipfile.ZipFile(path, "w") as z:
        for n, data in entries.items():
            z.writestr(n, data)


def _wait_until_measuring(witness: subprocess.Popen, threads: int, record: Path, timeout_s: float = 10) -> None:
    """Returns once cyclictest runs its ``threads`` measuring threads: from then on it witnesses
    the window, and a SIGINT ends it with its summary (one sent while it still sets up ends it
    with no record at all, which a window as short as a refused deploy's can be)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if witness.poll() is not None:
            raise AssertionError(f"cyclictest (the stall witness) exited {witness.returncode}: "
                                 f"{record.read_text(errors='replace').strip()}")
        try:
            if len(os.listdir(f"/proc/{witness.pid}/task")) > threads:  # its main thread and one a CPU
                return
        except OSError:
            pass
        time.sleep(0.01)
    raise AssertionError(f"cyclictest (the stall witness) did not start its {threads} threads within {timeout_s:g} s")

