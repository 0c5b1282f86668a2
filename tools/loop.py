"""`make loop [BOARD=...] [RUNS=100]`: `make run` again and again on one board, to catch rare
deadline misses.

Each run is the whole demo (board up from its boot snapshot, the cochlear implant deployed, the UI
driven for --seconds, `rt services`, board down) with its report in
build/loop/<board>/run-NNN/. A run's row (releases, deadline misses, cost overruns and, per
periodic task, worst lateness, worst response and worst execution, in the RT cell's clock) goes to
build/loop/<board>/runs.jsonl as it ends; build/loop/<board>/loop.json is the summary. The loop
stops at the first run with a miss (--keep-going runs on) and keeps that run's report and cell
logs; the reports of runs without a miss are removed to save space, their rows stay.

--lock FILE holds flock(FILE) around each run only, so that other users of a shared machine can
interleave their own runs between two of the loop's.
"""
from __future__ import annotations

import argparse
import datetime as dt
import fcntl
import json
import shutil
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "build"
PY = str(BUILD / "venv" / "bin" / "python")
sys.path.insert(0, str(ROOT / "tools" / "rtdroid"))
from rtdroid import entry  # noqa: E402
from rtdroid.boardtests import default_board  # noqa: E402


def run_row(run: int, result: dict, rc: int, seconds: float) -> dict:
    """One run's figures from make run's result.json: totals and each periodic task's worst cases."""
    services = result.get("services", [])
    tasks = {s["name"]: {"releases": int(s.get("releases", 0)),
                         "deadline_misses": int(s.get("deadline_misses", 0)),
                         "worst_lateness_us": s.get("worst_lateness_us", 0.0),
                         "worst_response_us": s.get("worst_response_us", 0.0),
                         "worst_execution_us": s.get("worst_execution_us", 0.0),
                         "cost_overruns": int(s.get("cost_overruns", 0))}
             for s in services if s["name"].count("/") >= 2}
    clock = result.get("rt_clock") or {}
    return {"run": run, "started": result.get("started"), "exit": rc, "host_seconds": round(seconds, 1),
            "rt_clock": clock.get("label") or clock.get("kind", "host clock"),
            "releases": sum(t["releases"] for t in tasks.values()),
            "deadline_misses": sum(int(s.get("deadline_misses", 0)) for s in services),
            "cost_overruns": sum(int(s.get("cost_overruns", 0)) for s in services),
            "failed": [s["name"] for s in services if s.get("failure")],
            "tasks": tasks}


def summary(board: str, rows: list[dict]) -> dict:
    """The loop so far: runs, totals, the runs with a miss or a failure, each task's worst over all runs."""
    worst: dict[str, dict] = {}
    for r in rows:
        for name, t in r["tasks"].items():
            w = worst.setdefault(name, {"releases": 0, "deadline_misses": 0, "worst_lateness_us": 0.0,
                                        "worst_response_us": 0.0, "worst_execution_us": 0.0,
                                        "cost_overruns": 0})
            for k in ("releases", "deadline_misses", "cost_overruns"):
                w[k] += t[k]
            for k in ("worst_lateness_us", "worst_response_us", "worst_execution_us"):
                w[k] = max(w[k], t[k])
    return {"board": board, "runs": len(rows),
            "rt_clock": rows[-1]["rt_clock"] if rows else None,
            "releases": sum(r["releases"] for r in rows),
            "deadline_misses": sum(r["deadline_misses"] for r in rows),
            "cost_overruns": sum(r["cost_overruns"] for r in rows),
            "runs_with_misses": [r["run"] for r in rows if r["deadline_misses"]],
            "runs_failed": [r["run"] for r in rows if r["exit"] != 0 or r["failed"]],
            "tasks": worst}


@contextmanager
def held(lock: Path | None):
    if lock is None:
        yield
        return
    with open(lock, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--board", default=default_board())
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--seconds", type=float, default=20.0, help="how long each run drives the UI (default 20)")
    ap.add_argument("--keep-going", action="store_true", help="do not stop at the first run with a miss")
    ap.add_argument("--lock", type=Path, help="flock this file around each run")
    args = ap.parse_args()
    if args.runs < 1:
        ap.error("--runs must be at least 1")
    if args.seconds <= 0:
        ap.error("--seconds must be positive")
    out = BUILD / "loop" / args.board
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    rows: list[dict] = []
    print(f"loop: {args.runs} runs of make run on {args.board}, {args.seconds:g} s each; rows in {out}/runs.jsonl",
          flush=True)
    for run in range(1, args.runs + 1):
        run_dir = out / f"run-{run:03d}"
        with held(args.lock):
            t0 = time.monotonic()
            with open(out / "current.log", "w") as log:
                rc = subprocess.run([PY, str(ROOT / "tools" / "demo" / "run_demo.py"), "--board", args.board,
                                     "--seconds", str(args.seconds), "--out", str(run_dir)], cwd=ROOT,
                                    stdout=log, stderr=subprocess.STDOUT).returncode
            seconds = time.monotonic() - t0
            run_dir.mkdir(exist_ok=True)
            for log in (BUILD / "run" / args.board).glob("*.log"):  # before the next board up replaces them
                shutil.copy2(log, run_dir / log.name)
        shutil.move(str(out / "current.log"), str(run_dir / "run.log"))
        result_file = run_dir / "result.json"
        result = json.loads(result_file.read_text()) if result_file.is_file() else {}
        row = run_row(run, result, rc, seconds)
        rows.append(row)
        with open(out / "runs.jsonl", "a") as f:
            f.write(json.dumps(row) + "\n")
        (out / "loop.json").write_text(json.dumps(summary(args.board, rows), indent=1) + "\n")
        worst = max((t["worst_response_us"] for t in row["tasks"].values()), default=0.0)
        print(f"loop: run {run}/{args.runs}: exit {rc}, {row['releases']} releases, "
              f"{row['deadline_misses']} misses, worst response {worst:.1f} us ({row['rt_clock']}), "
              f"{seconds:.0f} s", flush=True)
        bad = row["deadline_misses"] or rc != 0 or row["failed"]
        if bad:
            print(f"loop: run {run} kept in {run_dir}", flush=True)
            if not args.keep_going:
                break
        elif run_dir.is_dir():
            shutil.rmtree(run_dir)
        if args.lock is not None and run < args.runs:
            time.sleep(5)  # flock is not fair: give the others waiting for the lock their turn
    s = summary(args.board, rows)
    print(f"loop: {s['runs']} runs on {args.board}: {s['releases']} releases, {s['deadline_misses']} misses "
          f"(runs {s['runs_with_misses'] or 'none'}), failed runs {s['runs_failed'] or 'none'}; {out}/loop.json")
    return 1 if s["deadline_misses"] or s["runs_failed"] else 0


if __name__ == "__main__":
    sys.exit(entry.run(main, "loop", interrupted="interrupted (the current run's board is brought down by make run itself)"))
