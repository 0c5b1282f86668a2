"""make soak: the cochlear implant for N minutes on a board (the host board unless --board says
otherwise) while the Android cell is stressed, restarted and flooded by a hostile peer on a
schedule; per-minute figures as JSON and a plot.

Per minute (OSADL-style: the maximum of each minute, then the maximum of the maxima):
- the RT cell CPUs' wake-up latency: cyclictest at SCHED_FIFO 99 on them for the minute (also the
  stall witness: a stall that delays even cyclictest is the machine's, as in the Robot suites,
  and it records each such stall as an interval on CLOCK_MONOTONIC);
- the end-to-end response time of the UI's Ping (app Intent to the UI update showing the RT
  cell's reply, measured in the Android cell), max and p99 of the minute's round trips;
- the cochlear tasks' deadline misses (new in the minute), releases, and worst lateness so far;
- the bridge's drops (region counters) and each cell's resources: RSS, file descriptors, threads.

Schedule, by minute mod 4: quiet, Android stress, Android cell killed + hostile flood + restart,
Android stress. Goal: 0 deadline misses the machine's stalls do not explain, by the Robot
suites' rule (rtdroid.stallwitness.attribute: a miss is the machine's only when the stalls the
witness saw within its release's interval add up to its lateness, judged on the RT cell's record
of it, kept as it happens; on a board in virtual time they explain none), no failed component,
flat RT cell resources. Exit 1 when the goal is not met.

    build/venv/bin/python tools/soak.py --minutes 60 [--board host] [--out build/soak]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "build"
RTDROID = str(BUILD / "venv" / "bin" / "rtdroid")
APPS = ROOT / "rtdroid-runtime" / "examples" / "target" / "apps"
UI_APP = ROOT / "android-cell" / "target" / "apps" / "configuration-ui.apk"  # signed (Maven builds it)
SCHEDULE = ("quiet", "stress", "restart+flood", "stress")
FLOOD_FRAMES = 20000

sys.path.insert(0, str(ROOT / "tools" / "demo"))
import report  # noqa: E402  (percentiles)
from rtdroid import entry, stallwitness  # noqa: E402
from rtdroid.boardconfig import load_board  # noqa: E402
from rtdroid.control import AndroidControl, ControlError  # noqa: E402
from rtdroid.faults import AndroidStress, flood_channel  # noqa: E402
from xcc.layout import DROP_FIELDS  # noqa: E402  (the counters of frames lost: region-layout.toml's kind "drop")


def say(text: str) -> None:
    print(f"[soak {time.strftime('%H:%M:%S')}] {text}", flush=True)


def cli(*args: str, timeout: float = 300) -> str:
    p = subprocess.run([RTDROID, *args], cwd=ROOT, timeout=timeout, text=True, capture_output=True)
    if p.returncode != 0:
        raise SystemExit(f"soak: `rtdroid {' '.join(args)}` failed (exit {p.returncode}): "
                         f"{(p.stderr or p.stdout).strip()}")
    return p.stdout


def proc_figures(pid: int | None) -> dict:
    """RSS (KiB), open file descriptors and threads of one process, from /proc."""
    if not pid:
        return {"pid": None}
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        fds = len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return {"pid": pid, "gone": True}
    field = lambda name: int(re.search(rf"^{name}:\s+(\d+)", status, re.M).group(1))  # noqa: E731
    return {"pid": pid, "rss_kib": field("VmRSS"), "fds": fds, "threads": field("Threads")}


class Soak:
    def __init__(self, board: str, out: Path):
        self.board = board
        self.out = out
        self.cfg = load_board(board)
        self.rt_cpus = list(self.cfg.rt["cpus"])
        self.android_cpus = list(self.cfg.android["cpus"])
        self._virtual: bool | None = None

    def virtual_time(self) -> bool:
        """Whether the RT cell's figures are in its virtual time (an emulated board), as `board
        status` says once the board is up."""
        if self._virtual is None:
            self._virtual = (self.status().get("rt_clock") or {}).get("kind") == "virtual"
        return self._virtual

    # ------------------------------------------------------------------ the board
    def status(self) -> dict:
        # exits 1 while a cell is down (as during the restart minute) and still prints the state
        p = subprocess.run([RTDROID, "board", "status", "--json"], cwd=ROOT, timeout=60, text=True,
                           capture_output=True)
        try:
            return json.loads(p.stdout)
        except ValueError:
            raise SystemExit(f"soak: `rtdroid board status --json` said: {(p.stderr or p.stdout).strip()}") from None

    def control(self) -> AndroidControl:
        return AndroidControl.for_board(self.status())

    def services(self) -> list[dict]:
        return json.loads(cli("rt", "services", "--json"))

    def deploy(self) -> None:
        cli("keys")
        for app in ("cochlear", "echo"):
            bundle = self.out / f"{app}.rtb"
            cli("bundle", "--jar", str(APPS / app / "app.jar"), "--manifest", str(APPS / app / "manifest.xml"),
                "-o", str(bundle))
            cli("deploy", "rt", str(bundle), timeout=180)
        self.install_ui()

    def install_ui(self) -> None:
        cli("deploy", "android", str(UI_APP), timeout=180)

    def cell_pid(self, role: str) -> int | None:
        cell = self.status().get("cells", {}).get(role, {})
        return int(cell["pid"]) if cell.get("pid") else None

    # ------------------------------------------------------------------ one minute
    def witness(self, seconds: int, record: Path) -> subprocess.Popen:
        with open(record, "w") as out:
            return subprocess.Popen(
                ["cyclictest", "-m", "-q", "-p", "99", "-i", "1000", "-t", str(len(self.rt_cpus)),
                 "-a", ",".join(map(str, self.rt_cpus)), "-D", str(seconds), *stallwitness.SPIKE_OPTIONS],
                stdout=out, stderr=subprocess.STDOUT)

    def ping_until(self, end: float) -> None:
        try:
            android = self.control()
        except SystemExit:
            return
        while time.monotonic() < end:
            try:
                android.call("POST", "/ui/click", {"id": "ping"})
            except ControlError:
                pass
            time.sleep(0.2)

    def minute(self, index: int, seconds: int) -> dict:
        kind = SCHEDULE[index % len(SCHEDULE)]
        record = self.out / f"witness-{index:03d}.txt"
        started = time.monotonic()
        end = started + seconds
        opened = time.monotonic_ns()  # misses ending from here on are the minute's
        witness = self.witness(seconds, record)
        before = {s["name"]: s for s in self.services()}
        # the RT cell's record of each miss, kept as it happens (its timelines hold ~8 s of jobs)
        misses = None if self.virtual_time() else stallwitness.MissRecord(self.status()["region"], "cochlear")
        lat_before = self.latency_count()
        flood = None
        if kind == "stress":
            stress = AndroidStress(self.android_cpus, self.control())
            stress.start(seconds - 5)
            self.ping_until(end - 3)
            stress.stop()
        elif kind == "restart+flood":
            pid = self.cell_pid("android")
            if pid:
                os.kill(pid, signal.SIGKILL)
                time.sleep(1.0)
            flood = flood_channel(self.status()["region"], "cochlear.config", FLOOD_FRAMES, 10,
                                  drain_timeout_s=max(5.0, end - time.monotonic() - 25))
            cli("board", "restart", "android", timeout=180)
            self.install_ui()
            lat_before = 0  # a new Android cell: its round trips start from zero
            self.ping_until(end - 3)
        else:
            self.ping_until(end - 3)
        while time.monotonic() < end:
            time.sleep(0.2)
        witness.wait(timeout=30)
        after = self.services()
        entries = misses.close() if misses else []
        return self.figures(index, kind, record, before, after, lat_before, flood,
                            time.monotonic() - started, (opened, entries, misses and misses.clock_problem))

    def latency_count(self) -> int:
        try:
            return int(self.control().latency()["count"])
        except (ControlError, SystemExit, KeyError):
            return 0

    def figures(self, index, kind, record, before, after, lat_before, flood, wall, kept) -> dict:
        text = record.read_text(errors="replace")
        try:
            cyclic_max = stallwitness.worst_us(text)
        except ValueError:
            cyclic_max = None
        stalls = stallwitness.stall_intervals(text)
        record.unlink()  # the figures below are what is kept
        misses = releases = 0
        failed = []
        worst_lateness = 0
        for s in after:
            if not s["name"].startswith("cochlear"):
                continue
            b = before.get(s["name"], {})
            misses += int(s.get("deadline_misses", 0)) - int(b.get("deadline_misses", 0))
            releases += int(s.get("releases", 0)) - int(b.get("releases", 0))
            worst_lateness = max(worst_lateness, int(s.get("worst_lateness_nanos", 0)))
            if s.get("state") == "FAILED":
                failed.append({"name": s["name"], "cause": s.get("cause")})
        # A machine stall excuses misses only in the host's clock: in virtual time it stops the
        # cell's clock too, so there every miss is the cell's.
        opened, entries, clock_problem = kept
        explained, why, judged = (0, "virtual time", []) if self.virtual_time() else \
            stallwitness.attribute(entries, text, opened, misses, clock_problem)
        try:
            lat = self.control().latency()
            n = int(lat["count"]) - lat_before
            rtt_ns = [int(v) for v in (lat["roundTrip"][-n:] if n > 0 else []) if int(v) >= 0]
        except (ControlError, SystemExit, KeyError):
            rtt_ns = []
        pc = report.percentiles(rtt_ns)  # HdrHistogram, as the demo's report
        region = json.loads(cli("stats", "--region-only"))["region"]
        drops = {k: sum(int(r.get("producer", {}).get(k, 0)) + int(r.get("consumer", {}).get(k, 0))
                        for p in region["peers"] for r in p.get("rings", []))
                 for k in DROP_FIELDS}
        return {
            "minute": index, "disturbance": kind, "wall_seconds": round(wall, 1),
            "cyclictest_max_us": cyclic_max,
            "machine_stalls_us": sorted((round((e - b) / 1000) for spans in stalls.values() for b, e in spans),
                                        reverse=True),
            "misses_stalls_explain": explained, "misses_why": why,
            "misses_judged": judged,
            "rtt_count": pc.count, "rtt_max_us": pc.max_us if pc.count else None,
            "rtt_p99_us": pc.p99_us if pc.count else None,
            "deadline_misses": misses, "releases": releases,
            "worst_lateness_so_far_us": round(worst_lateness / 1000.0, 1),
            "failed": failed, "bridge": drops, "flood": flood,
            "rt_cell": proc_figures(self.cell_pid("rt")),
            "android_cell": proc_figures(self.cell_pid("android")),
        }


def summarise(rows: list[dict]) -> dict:
    maxima = [r["cyclictest_max_us"] for r in rows if r["cyclictest_max_us"] is not None]
    rtts = [r["rtt_max_us"] for r in rows if r["rtt_max_us"] is not None]
    misses = sum(r["deadline_misses"] for r in rows)
    unexplained = sum(max(0, r["deadline_misses"] - r["misses_stalls_explain"]) for r in rows)
    steady = [r["rt_cell"] for r in rows[1:] if "rss_kib" in r["rt_cell"]] or \
             [r["rt_cell"] for r in rows if "rss_kib" in r["rt_cell"]]
    growth = {}
    if len(steady) >= 2:
        first, last = steady[0], steady[-1]
        growth = {"rss_kib": last["rss_kib"] - first["rss_kib"],
                  "rss_percent": round(100.0 * (last["rss_kib"] - first["rss_kib"]) / first["rss_kib"], 1),
                  "fds": last["fds"] - first["fds"], "threads": last["threads"] - first["threads"]}
    failed = [f for r in rows for f in r["failed"]]
    flat = bool(growth) and growth["fds"] <= 0 and growth["threads"] <= 0 and growth["rss_percent"] <= 10.0
    return {
        "minutes": len(rows),
        "cyclictest_max_of_minute_maxima_us": max(maxima, default=None),
        "rtt_max_of_minute_maxima_us": max(rtts, default=None),
        "deadline_misses": misses, "misses_not_explained_by_machine_stalls": unexplained,
        "releases": sum(r["releases"] for r in rows),
        "failed_components": failed,
        "rt_cell_growth_after_minute_0": growth,
        "goal_met": unexplained == 0 and not failed and flat,
    }


def plot(rows: list[dict], path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    x = [r["minute"] for r in rows]
    fig, ax = plt.subplots(4, 1, figsize=(9, 11), sharex=True)
    ax[0].plot(x, [r["cyclictest_max_us"] for r in rows], marker="o", label="cyclictest max (RT CPUs)")
    ax[0].plot(x, [r["rtt_max_us"] for r in rows], marker="s", label="UI ping round trip max")
    ax[0].set_ylabel("µs, per-minute maximum")
    ax[0].set_yscale("log")
    ax[0].legend()
    ax[1].bar(x, [r["deadline_misses"] for r in rows], label="deadline misses")
    ax[1].plot(x, [r["misses_stalls_explain"] for r in rows], "r.", label="misses machine stalls explain")
    ax[1].set_ylabel("per minute")
    ax[1].legend()
    for cell, style in (("rt_cell", "-o"), ("android_cell", "-s")):
        ax[2].plot(x, [r[cell].get("rss_kib", float("nan")) / 1024 for r in rows], style, label=f"{cell} RSS")
        ax[3].plot(x, [r[cell].get("threads", float("nan")) for r in rows], style, label=f"{cell} threads")
        ax[3].plot(x, [r[cell].get("fds", float("nan")) for r in rows], style, alpha=0.5, label=f"{cell} fds")
    ax[2].set_ylabel("MiB")
    ax[2].legend()
    ax[3].set_ylabel("count")
    ax[3].set_xlabel("minute (disturbance by minute mod 4: quiet, stress, restart+flood, stress)")
    ax[3].legend()
    fig.tight_layout()
    fig.savefig(path, dpi=90)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=int, default=int(os.environ.get("SOAK_MINUTES", 60)))
    ap.add_argument("--board", default="host")
    ap.add_argument("--out", type=Path, default=BUILD / "soak")
    ap.add_argument("--seconds-per-minute", type=int, default=60, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.minutes < 1:
        ap.error("--minutes must be at least 1")
    if a.seconds_per_minute < 30:
        ap.error("a soak minute is at least 30 s (a restart and a flood fit in it)")
    a.out.mkdir(parents=True, exist_ok=True)
    soak = Soak(a.board, a.out)
    say(f"booting board {a.board}; {a.minutes} minute(s), schedule {', '.join(SCHEDULE)}")
    cli("board", "up", "--board", a.board, timeout=600)
    rows: list[dict] = []
    try:
        soak.deploy()
        for i in range(a.minutes):
            row = soak.minute(i, a.seconds_per_minute)
            rows.append(row)
            say(f"minute {i} ({row['disturbance']}): cyclictest max {row['cyclictest_max_us']} µs, "
                f"ping max {row['rtt_max_us']} µs over {row['rtt_count']}, misses {row['deadline_misses']} "
                f"(stalls explain {row['misses_stalls_explain']}), RT cell RSS "
                f"{row['rt_cell'].get('rss_kib', 0) / 1024:.0f} MiB, fds {row['rt_cell'].get('fds')}, "
                f"threads {row['rt_cell'].get('threads')}")
            (a.out / "soak.json").write_text(json.dumps({"board": a.board, "schedule": SCHEDULE,
                                                         "per_minute": rows, "summary": summarise(rows)},
                                                        indent=2) + "\n")
    finally:
        say("bringing the board down")
        subprocess.run([RTDROID, "board", "down"], cwd=ROOT, timeout=300)
    summary = summarise(rows)
    plot(rows, a.out / "soak.png")
    say(f"written: {a.out / 'soak.json'}, {a.out / 'soak.png'}")
    say(f"max of per-minute maxima: cyclictest {summary['cyclictest_max_of_minute_maxima_us']} µs, "
        f"UI ping round trip {summary['rtt_max_of_minute_maxima_us']} µs")
    say(f"deadline misses {summary['deadline_misses']} over {summary['releases']} releases "
        f"({summary['misses_not_explained_by_machine_stalls']} not explained by machine stalls); "
        f"failed components {len(summary['failed_components'])}; RT cell growth after minute 0: "
        f"{summary['rt_cell_growth_after_minute_0']}")
    say("goal (0 unexplained misses, no failure, flat RT cell resources): "
        + ("MET" if summary["goal_met"] else "NOT MET"))
    return 0 if summary["goal_met"] else 1


if __name__ == "__main__":
    sys.exit(entry.run(main, "soak"))
