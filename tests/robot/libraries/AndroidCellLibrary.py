"""Keywords for the Android cell: install apps (and see a broken one refused), drive its UI through
the control port, screenshots, and the app-measured round trips kept for the latency listener
(session.py says what every library shares)."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # session.py

from robot.api import logger
from robot.api.deco import keyword, library
from robot.libraries.BuiltIn import BuiltIn

from session import (ANDROID_APPS, BUILD, ROOT, SESSION, Keywords, board_cpu_use, budget_left_to_the_cells, cli,
                     measure, others_share, run)  # first: it puts tools/demo on the path
import report  # tools/demo/report.py: percentiles from HdrHistogram, plots
from rtdroid.adb import Adb, AdbError

CELL_APK = ROOT / "android-cell" / "apk" / "cell-apk.sh"  # packs and signs a bundle folder


@library(scope="GLOBAL", auto_keywords=False)
class AndroidCellLibrary(Keywords):
    @keyword
    def install_android_app(self, app: str = "configuration-ui"):
        """Installs an app from its signed APK: a path, or a name in android-cell/target/apps/."""
        path = Path(app) if os.path.isabs(app) else ANDROID_APPS / f"{app}.apk"
        cli("deploy", "android", str(path))

    @keyword
    def android_app_should_be_refused(self, how: str, reason: str):
        """Builds a bad ConfigurationUI package (``broken-manifest``: signed, manifest not XML;
        ``folder``: the unsigned bundle folder; ``unsigned``: a zip without a signature;
        ``tampered``: signed, then one byte of classes.jar changed) and expects ``deploy android``
        to fail naming ``reason``."""
        work = self.work / f"bad-app-{how}"
        if work.exists():
            shutil.rmtree(work)
        bundle = work / "configuration-ui"
        shutil.copytree(ANDROID_APPS / "configuration-ui", bundle)
        apk = work / "configuration-ui.apk"
        if how == "folder":
            apk = bundle
        elif how == "unsigned":
            with zipfile.ZipFile(apk, "w") as z:
                for f in ("AndroidManifest.xml", "classes.jar"):
                    z.write(bundle / f, f)
        else:
            if how == "broken-manifest":
                (bundle / "AndroidManifest.xml").write_text("<manifest package=\"a.b\"><application>")
            run(["bash", str(CELL_APK), str(bundle), str(apk)], timeout=120)
            if how == "tampered":
                data = bytearray(apk.read_bytes())
                data[len(data) // 3] ^= 1  # inside classes.jar's data: covered by the v2/v3 digest
                apk.write_bytes(bytes(data))
            elif how != "broken-manifest":
                raise ValueError(f"unknown bad app {how!r}")
        p = cli("deploy", "android", str(apk), check=False)
        out = p.stdout + p.stderr
        if p.returncode == 0 or reason not in out:
            raise AssertionError(f"bad app ({how}) not refused with {reason!r}: rc={p.returncode}\n{out}")

    @keyword
    def android_state(self) -> dict:
        return self._android("GET", "/state")

    def click_view(self, view_id: str):
        self._android("POST", "/ui/click", {"id": view_id})

    @keyword
    def view_text(self, view_id: str) -> str:
        r = self._android("GET", f"/ui/text?id={view_id}")
        return r["text"] if isinstance(r, dict) else str(r)

    @keyword
    def view_text_should_read(self, view_id: str, expected: str, timeout_s: float = 0):
        """``view_id``'s text equals ``expected`` now, or within ``timeout_s`` seconds."""
        deadline = time.monotonic() + float(timeout_s)
        while True:
            now = self.view_text(view_id)
            if now == expected:
                logger.info(f"{view_id}: {now!r}", also_console=True)
                return now
            if time.monotonic() >= deadline:
                raise AssertionError(f"{view_id} reads {now!r}, expected {expected!r}"
                                     + (f" within {timeout_s} s" if float(timeout_s) else ""))
            time.sleep(0.2)

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
        """The foreground activity's window as `adb exec-out screencap -p` gives it."""
        try:
            png = self._adb().screencap()
        except AdbError as e:
            raise AssertionError(str(e)) from None
        out = Path(os.environ.get("ROBOT_OUTPUT_DIR", BUILD / "robot")) / f"{name}.png"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(png)
        logger.info(f'<img src="{out.name}" width="320">', html=True)
        return str(out)

    @keyword
    def android_log_should_contain(self, text: str):
        """`adb logcat -d` has a line containing ``text``."""
        log = self._adb().logcat()
        if text not in log:
            raise AssertionError(f"adb logcat -d has no line with {text!r}; its last lines:\n"
                                 + "\n".join(log.splitlines()[-20:]))

    @keyword
    def app_uid_and_data(self, package: str) -> dict:
        """The app's Linux uid and data directory as `adb shell dumpsys package` shows them, checked
        against the directory itself: 0700 and, where the cell runs as root, owned by that uid."""
        out = self._adb().shell("dumpsys", "package", package)
        m = re.search(r"userId=(\d+) dataDir=(\S+)", out)
        if not m:
            raise AssertionError(f"dumpsys package {package} shows no userId/dataDir:\n{out}")
        uid, data = int(m.group(1)), Path(m.group(2))
        if not 10000 <= uid <= 19999:
            raise AssertionError(f"{package} has uid {uid}, outside Android's app range 10000..19999")
        st = data.stat()
        if st.st_mode & 0o777 != 0o700:
            raise AssertionError(f"{data} is mode {st.st_mode & 0o777:o}, not 700")
        if os.geteuid() == 0 and (st.st_uid, st.st_gid) != (uid, uid):
            raise AssertionError(f"{data} is owned by {st.st_uid}:{st.st_gid}, not the app's {uid}:{uid}")
        logger.info(f"{package}: uid {uid}, data {data}")
        return {"uid": uid, "data": str(data)}

    @keyword
    def uids_should_differ(self, first: dict, second: dict):
        if first["uid"] == second["uid"]:
            raise AssertionError(f"two apps share uid {first['uid']}")

    @keyword
    def another_uid_should_not_read_the_apps_files(self, app: dict, other: dict):
        """A file in one app's data directory: its uid reads it, the other app's uid is refused by
        the kernel (Permission denied). Needs root to act as the apps' uids."""
        if os.geteuid() != 0:
            BuiltIn().skip("acting as the apps' uids (setpriv) needs root")
        secret = Path(app["data"]) / "files" / "isolation-secret.txt"
        secret.write_text("the app's own")
        os.chown(secret, app["uid"], app["uid"])
        secret.chmod(0o600)
        own = self._as_uid(app["uid"], ["cat", str(secret)])
        if own.stdout != "the app's own":
            raise AssertionError(f"the app's own uid could not read its file: {own.stdout}{own.stderr}")
        theirs = self._as_uid(other["uid"], ["cat", str(secret)])
        if theirs.returncode == 0 or "Permission denied" not in theirs.stderr:
            raise AssertionError(f"uid {other['uid']} read uid {app['uid']}'s file: rc={theirs.returncode} "
                                 f"{theirs.stdout}{theirs.stderr}")

    @keyword
    def a_hostile_caller_should_be_refused(self, app: dict):
        """As the app's uid, a process calls the system server's IPC naming another sender and with
        forged arguments; as a uid that is no app, it calls at all: each refused with its reason,
        and counted in `adb shell dumpsys binder`."""
        if os.geteuid() != 0:
            BuiltIn().skip("acting as an app's uid (setpriv) needs root")
        before = self._binder_refusals()
        sock = re.search(r"BINDER \(the system server's IPC, (\S+)\)", self._adb().shell("dumpsys", "binder")).group(1)
        client = ("import socket, struct, sys\n"
                  "s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])\n"
                  "for req in sys.argv[2:]:\n"
                  "    b = req.encode(); s.sendall(struct.pack('<I', len(b)) + b)\n"
                  "    n = struct.unpack('<I', s.recv(4, socket.MSG_WAITALL))[0]\n"
                  "    print(s.recv(n, socket.MSG_WAITALL).decode().replace('\\n', ' '))\n")
        asks = ["broadcast\naction=org.rtdroid.test.SPOOF\nsender=org.rtdroid.proxy",
                "broadcast\naction=org.rtdroid.test.FORGED\npriority=500",
                "broadcast\naction=org.rtdroid.test.RT\npriority=90"]
        p = self._as_uid(app["uid"], ["/usr/bin/python3", "-c", client, sock, *asks])
        logger.info(p.stdout + p.stderr)
        for want in ("ERR field 'sender' refused: who calls is the kernel's to say",
                     "ERR priority '500' is not 0..99", "ERR Permission Denial"):
            if want not in p.stdout:
                raise AssertionError(f"the hostile call was not refused with {want!r}: {p.stdout}{p.stderr}")
        stranger = self._as_uid(19999, ["/usr/bin/python3", "-c", client, sock, "whoami"])
        if "is no installed app" not in stranger.stdout:
            raise AssertionError(f"uid 19999 was not refused: {stranger.stdout}{stranger.stderr}")
        after = self._binder_refusals()
        if after < before + 4:
            raise AssertionError(f"dumpsys binder counted {after - before} refusals, not 4")

    def _binder_refusals(self) -> int:
        return sum(int(n) for n in re.findall(r"refused[^:]*: (\d+)", self._adb().shell("dumpsys", "binder")))

    @staticmethod
    def _as_uid(uid: int, command: list[str]):
        return subprocess.run(["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", *command],
                              capture_output=True, text=True, timeout=60)

    @keyword
    def start_app(self, apk: str = "configuration-ui"):
        """Brings the app's launcher activity to the front: `adb shell am start -W -n`."""
        logger.info(self._adb().start(ANDROID_APPS / f"{apk}.apk"))

    @keyword
    def stop_and_restart_app(self, package: str, apk: str = "configuration-ui"):
        """`adb shell am force-stop`, then `am start -W` of its launcher activity again."""
        device = self._adb()
        device.shell("am", "force-stop", package)
        logger.info(device.start(ANDROID_APPS / f"{apk}.apk"))

    def _adb(self) -> Adb:
        port = SESSION.adb_ports.get(self.board)
        if port is None:
            port = SESSION.adb_ports[self.board] = int(self.board_status()["adb_port"])
        return Adb(port)

    @keyword
    def measure_ui_round_trips(self, count: int, view: str = "ping", name: str = "ui ping") -> dict:
        """Presses ``view`` ``count`` times, one request in flight at a time, and returns the
        percentiles of the app-measured round trips (Intent sent -> reply shown in the view)."""
        count = int(count)
        # Each reply must come within the board's REPLY_TIMEOUT_S (longer under emulation, where a
        # cold path through both proxies can take seconds); default 10 s.
        timeout_s = float(BuiltIn().get_variable_value("${REPLY_TIMEOUT_S}", 10))
        done = self._latency()["count"]
        load0 = self._board_cpu_use()
        for _ in range(count):
            self.click_view(view)
            done = self._wait_round_trips(done + 1, timeout_s=timeout_s)
            # At a person's pace, not back to back: the next press would otherwise land while the
            # app's main looper still draws the last reply, and measure that drawing too.
            time.sleep(0.05)
        lat = self._latency()
        samples = [int(v) for v in lat["roundTrip"][-count:]]
        SESSION.latency.setdefault(name, []).extend(samples)
        for part in ("intentToFrame", "frameToDelivered", "rtShare"):
            SESSION.latency.setdefault(f"{name} / {part}", []).extend(
                int(v) for v in lat[part][-count:] if int(v) >= 0)
        pc = report.percentiles(samples).as_dict()
        logger.info(f"{name}: {pc}", also_console=True)
        for which in ("p50_us", "p99_us", "max_us"):
            if which in pc:
                measure(f"rtt_{which}", float(pc[which]), "us")
        if load0 is not None:
            pc["others_cpu_share"] = others_share(load0, self._board_cpu_use())
            logger.info(f"{name}: other work than the board's used {pc['others_cpu_share']:.0%} of the board's "
                        f"CPUs meanwhile (/proc/stat less the cells' and this test's CPU time)", also_console=True)
        return pc

    def _board_cpu_use(self) -> dict | None:
        st = self.board_status()
        return board_cpu_use(st) if st.get("hypervisor") == "process" else None

    def _latency(self) -> dict:
        return self._android("GET", "/latency")

    def _wait_round_trips(self, n: int, timeout_s: float) -> int:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            c = self._latency()["count"]
            if c >= n:
                return c
            time.sleep(0.02)  # each poll is an HTTP request served by the cell's CPU
        raise AssertionError(f"no round-trip reply within {timeout_s} s (wanted {n} replies in all)")

    @keyword
    def percentile_should_be_within(self, pc: dict, which: str, budget_us):
        v = float(pc[which])
        if budget_us is None or str(budget_us) == "None":
            # An emulated board's round trips cross an emulated CPU on the host's clock: how long
            # they take says how busy the host is, so they are reported, never judged.
            logger.info(f"{which} = {v} µs (emulation timing: reported, no budget on this board)",
                        also_console=True)
            return
        if v <= float(budget_us):
            logger.info(f"{which} = {v} µs within {budget_us} µs", also_console=True)
            return
        # A process board's cells share this machine's CPUs with whatever else runs on it (a
        # neighbour's build): a round trip over budget while other work held the CPUs is judged
        # against the budget scaled to the CPU left to the cells, and logged as a warning.
        share = pc.get("others_cpu_share")
        scaled = budget_left_to_the_cells(float(budget_us), share)
        if v <= scaled:
            logger.warn(f"{which} = {v} µs exceeds the budget of {budget_us} µs while other work used {share:.0%} "
                        f"of the board's CPUs (this machine was loaded): within the budget scaled to the CPU "
                        f"left to the cells, {scaled:.0f} µs; attributed to the machine")
            return
        raise AssertionError(f"{which} = {v} µs exceeds the budget of {budget_us} µs ({pc})"
                             + (f", also scaled to the CPU other work left to the cells ({scaled:.0f} µs)"
                                if share else ""))

    @keyword
    def save_latency(self):
        out = Path(os.environ.get("ROBOT_OUTPUT_DIR", BUILD / "robot"))
        out.mkdir(parents=True, exist_ok=True)
        (out / "latency-samples.json").write_text(json.dumps(SESSION.latency))
        return str(out / "latency-samples.json")
