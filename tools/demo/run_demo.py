"""`make run`: the whole system, end to end, on one board.

Boot the board, deploy the cochlear implant's RT services as a signed bundle, deploy the
ConfigurationUI app to the Android cell, drive the UI (volume, noise reduction, pings) while the
RT cell processes audio every 8 ms, collect round trips measured in the Android cell, print a
summary, write build/report/index.html, and bring the board down — also on failure or Ctrl-C.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build"
RTDROID = str(BUILD / "venv" / "bin" / "rtdroid")
sys.path.insert(0, str(Path(__file__).parent))
import report  # noqa: E402
from xcc.mgmt import describe_failure  # noqa: E402
from rtdroid import entry  # noqa: E402
from rtdroid.adb import Adb  # noqa: E402
from rtdroid.boardtests import default_board  # noqa: E402
from rtdroid.control import AndroidControl  # noqa: E402


def say(text: str) -> None:
    print(f"[demo {time.strftime('%H:%M:%S')}] {text}", flush=True)


def cli(*args: str, timeout: float = 600, capture: bool = False) -> str:
    p = subprocess.run([RTDROID, *args], cwd=ROOT, timeout=timeout, text=True,
                       capture_output=capture)
    if p.returncode != 0:
        detail = (p.stdout or "") + (p.stderr or "") if capture else ""
        raise SystemExit(f"demo: `rtdroid {' '.join(args)}` failed (exit {p.returncode}) {detail}")
    return p.stdout if capture else ""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--board", default=default_board())
    ap.add_argument("--seconds", type=float, default=float(os.environ.get("DEMO_SECONDS", 20)),
                    help="how long to drive the UI (default 20)")
    ap.add_argument("--out", default=str(BUILD / "report"))
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    started = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    apps = ROOT / "rtdroid-runtime" / "examples" / "target" / "apps" / "cochlear"
    ui_app = ROOT / "android-cell" / "target" / "apps" / "configuration-ui.apk"  # signed (Maven builds it)

    say(f"[1/7] booting board {args.board}")
    t0 = time.monotonic()
    cli("board", "up", "--board", args.board)
    boot_s = time.monotonic() - t0
    try:
        status = json.loads(cli("board", "status", "--json", capture=True))
        android = AndroidControl.for_board(status)
        device = Adb(int(status.get("adb_port") or 5555))

        def screenshot(path: Path) -> Path:  # as a developer takes one: adb exec-out screencap -p
            path.write_bytes(device.screencap())
            return path

        say("[2/7] signing and deploying the cochlear implant's RT services")
        bundle = BUILD / "demo" / "cochlear.rtb"
        bundle.parent.mkdir(parents=True, exist_ok=True)
        cli("keys")
        cli("bundle", "--jar", str(apps / "app.jar"), "--manifest", str(apps / "manifest.xml"),
            "-o", str(bundle))
        cli("deploy", "rt", str(bundle))

        say("[3/7] installing and launching the ConfigurationUI app in the Android cell")
        cli("deploy", "android", str(ui_app))
        time.sleep(1.0)
        shots = [screenshot(out / "ui-start.png")]

        say(f"[4/7] driving the UI for {args.seconds:.0f} s (volume, noise reduction, pings)")
        rng = random.Random(8)
        first = android.latency()["count"]
        end = time.monotonic() + args.seconds
        last_print = 0.0
        noise = False
        while time.monotonic() < end:
            action = rng.random()
            if action < 0.5:
                android.call("POST", "/ui/click", {"id": "ping"})
            elif action < 0.9:
                android.call("POST", "/ui/seekbar", {"id": "volume", "progress": rng.randint(0, 100)})
            else:
                noise = not noise
                android.call("POST", "/ui/switch", {"id": "noise_reduction", "checked": noise})
            time.sleep(0.02)
            now = time.monotonic()
            if now - last_print >= 2.0:
                last_print = now
                say(f"      {android.latency()['count'] - first} round trips so far, "
                    f"{max(0.0, end - now):.0f} s left")
        time.sleep(0.5)
        lat = android.latency()
        n = lat["count"] - first
        series = {"ui round trip": lat["roundTrip"][-n:] if n else [],
                  "android share: intent to frame": lat["intentToFrame"][-n:] if n else [],
                  "android share: frame to delivered": lat["frameToDelivered"][-n:] if n else [],
                  "rt cell share": lat["rtShare"][-n:] if n else []}
        series = {k: [int(v) for v in vs if int(v) >= 0] for k, vs in series.items()}
        samples = series["ui round trip"]
        shots.append(screenshot(out / "ui-end.png"))

        say("[5/7] collecting RT service and bridge statistics")
        services = report.with_response_times(json.loads(cli("rt", "services", "--json", capture=True)))
        stats = json.loads(cli("stats", capture=True))
        proxy = android.call("GET", "/proxy/stats")
        # The run's timelines (every release and callback the RT cell keeps, the proxy's traffic)
        # as a Perfetto trace, linked from the report.
        trace = out / "trace.pftrace"
        cli("rt", "trace", "-o", str(trace))
    finally:
        say("[6/7] bringing the board down")
        subprocess.run([RTDROID, "board", "down"], cwd=ROOT, timeout=300)

    pc = report.percentiles(samples)
    say("[7/7] writing the report")
    clock = status.get("rt_clock") or {"kind": "host"}
    rt_clock = clock.get("label") or ("virtual time" if clock["kind"] == "virtual" else "host clock")
    notes = [f"Board up in {boot_s:.1f} s.",
             "Round trips are measured inside the Android cell: the app's Intent to the UI update "
             "that shows the RT cell's reply, by the host's clock.",
             f"RT releases, deadline misses and lateness are the RT cell's, in its {rt_clock}."]
    if clock["kind"] == "virtual":
        notes.append("This board emulates the RT cell's CPU (QEMU TCG) and runs it in deterministic "
                     "virtual time: deadlines are judged against the emulated CPU's own clock, so the "
                     "RT figures are meaningful; round trips by the host's clock measure the emulator "
                     "(emulation timing), not the system.")
    elif args.board != "host":
        notes.append("This board runs the RT cell under QEMU TCG (software emulation) by the host's "
                     "clock: its timings prove function, not real-time latency. Latency goals are "
                     "measured on the host board (make run BOARD=host, make bench).")
    trace = out / "trace.pftrace"
    result = {"board": args.board, "started": started, "duration_s": args.seconds, "rt_clock": clock,
              "boot_seconds": round(boot_s, 2), "latency": series,
              "services": services, "region_stats": stats, "proxy_stats": proxy,
              "screenshots": [str(s) for s in shots], "notes": notes, "trace": trace.name}
    index = report.write_report(result, out)

    misses = sum(int(s.get("deadline_misses", 0)) for s in services)
    releases = sum(int(s.get("releases", 0)) for s in services)
    worst = max((s["worst_lateness_us"] for s in services), default=0.0)
    print()
    print(f"  RTDroid end-to-end demo on {args.board}")
    host_label = " (emulation timing)" if clock["kind"] == "virtual" else ""
    print(f"  round trips by the host's clock{host_label}; RT figures in the RT cell's {rt_clock}")
    print(f"  {'round trips':<28}{pc.count:>12}")
    print(f"  {'round trip p50 (µs)':<28}{pc.p50_us:>12}")
    print(f"  {'round trip p99 (µs)':<28}{pc.p99_us:>12}")
    print(f"  {'round trip max (µs)':<28}{pc.max_us:>12}")
    print(f"  {'RT releases':<28}{releases:>12}")
    print(f"  {'RT deadline misses':<28}{misses:>12}")
    print(f"  {'RT worst lateness (µs)':<28}{worst:>12}")
    print(f"  {'RT cost overruns':<28}{sum(s['cost_overruns'] for s in services):>12}")
    print("  RT worst response (measured) beside the analysed WCRT (admission control), and the worst"
          " execution (CPU time) beside the cost the analysis assumed:")
    for line in report.response_lines(services):
        print(f"    {line}")
    failed = [s for s in services if s.get("failure") and s["name"].count("/") == 1]
    print(f"  {'RT failed components':<28}{len(failed):>12}")
    for s in failed:
        print(f"    {s['name']}: {describe_failure(s['failure'])}")
    print(f"  {'board up (s)':<28}{boot_s:>12.1f}")
    print(f"  report: {index}")
    if pc.count == 0:
        print("demo: no round trip completed", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(entry.run(main, "demo"))
