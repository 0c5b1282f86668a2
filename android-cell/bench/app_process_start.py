#!/usr/bin/env python3
"""App process start against the in-process launch (issue 36): launch to first frame drawn.

For each run it starts the Android cell twice from the dist (android-cell/target/dist): once with
the ConfigurationUI in the system server's JVM (today's path), once with it in a process of its own
(--app-process). After the cell's widget warm-up (both launches wait for it), it times the control
interface's launch: in process, the app's first launch; in its own process, a cold launch once the
pre-started template is ready (the template becomes the app, attaches, the activity is created,
resumed and its first frame drawn), a launch into the running process (warm), then a launch right
after the process is killed (a restart, which may wait for the next template to load). Needs root
(the app process becomes the app's uid). Writes JSON (p50 and max of each, and the ratio of the
p50s) to build/bench/app-process-start.json.

    android-cell/bench/app_process_start.py [--runs 3] [--aot on|off]
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "android-cell" / "target" / "dist"
APK = ROOT / "android-cell" / "target" / "apps" / "configuration-ui.apk"
UI = "org.rtdroid.cochlear.ui"
JAVA = Path(os.environ.get("JAVA_HOME", "/usr/lib/jvm/temurin-25-jdk-amd64")) / "bin" / "java"


def call(port: int, method: str, path: str, body: dict | None = None) -> dict:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method)
    with urllib.request.urlopen(req, timeout=300) as r:
        return json.loads(r.read() or b"null")


class Cell:
    def __init__(self, work: Path, aot: bool, app_process: bool):
        self.log = work / ("cell-own.log" if app_process else "cell-in.log")
        region = work / "region"
        region.unlink(missing_ok=True)
        argv = [str(JAVA), f"@{DIST / 'jvm.args'}"]
        if aot and (DIST / "android-cell.aot").is_file():
            argv.append(f"-XX:AOTCache={DIST / 'android-cell.aot'}")
        argv += [f"-Djava.io.tmpdir={work}", "-cp", f"{DIST / 'lib'}/*", "org.rtdroid.android.cell.Main",
                 "--region", str(region), "--control-port", "0"]
        if app_process:
            argv += ["--app-process", UI]
        with open(self.log, "w") as out:
            self.proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        self.port = int(self.wait_for("ANDROID CELL READY port=").split("port=")[1].split()[0])
        self.wait_for("widget warm-up done")

    def wait_for(self, text: str, timeout: float = 300) -> str:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for line in self.log.read_text(errors="replace").splitlines():
                if text in line:
                    return line
            if self.proc.poll() is not None:
                raise SystemExit(f"the cell exited ({self.proc.returncode}); its log: {self.log}")
            time.sleep(0.05)
        raise SystemExit(f"'{text}' not in {self.log} within {timeout:g} s")

    def launch_ms(self) -> float:
        t0 = time.monotonic()
        call(self.port, "POST", f"/apps/{UI}/launch", {})
        return (time.monotonic() - t0) * 1000

    def process(self) -> dict:
        return call(self.port, "GET", f"/apps/{UI}")["process"]

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def summary(xs: list[float]) -> dict:
    return {"n": len(xs), "p50_ms": round(statistics.median(xs), 1), "max_ms": round(max(xs), 1)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--aot", choices=("on", "off"), default="on")
    a = ap.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("app_process_start: needs root (the app process becomes the app's uid)")
    if not APK.is_file():
        raise SystemExit(f"app_process_start: {APK} missing: run make build")
    out = {"in_process_first_launch": [], "own_process_cold": [], "own_process_restart": [],
           "own_process_warm": []}
    build = ROOT / "build"
    build.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="app-process-start-", dir=build) as w:
        work = Path(w)
        for run in range(a.runs):
            for own in (False, True):
                cell = Cell(work, a.aot == "on", own)
                try:
                    call(cell.port, "POST", "/apps/install", {"apk": str(APK)})
                    if not own:
                        out["in_process_first_launch"].append(cell.launch_ms())
                        continue
                    cell.wait_for("template ready")  # the pre-started template, as after a while on a board
                    out["own_process_cold"].append(cell.launch_ms())
                    out["own_process_warm"].append(cell.launch_ms())
                    os.kill(cell.process()["pid"], signal.SIGKILL)
                    while cell.process()["state"] != "DIED":
                        time.sleep(0.05)
                    # at once: the next template (started after the cold launch) may still be loading
                    out["own_process_restart"].append(cell.launch_ms())
                finally:
                    cell.stop()
            print(f"run {run + 1}/{a.runs}: " + ", ".join(f"{k} {v[-1]:.0f} ms" for k, v in out.items()))
    result = {"what": "ConfigurationUI launch to first frame, control interface's wall time (ms)",
              "aot_cache": a.aot, "cpus": os.cpu_count(), **{k: summary(v) for k, v in out.items()}}
    result["cold_over_in_process_p50"] = round(result["own_process_cold"]["p50_ms"]
                                               / result["in_process_first_launch"]["p50_ms"], 1)
    dest = build / "bench" / "app-process-start.json"
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
