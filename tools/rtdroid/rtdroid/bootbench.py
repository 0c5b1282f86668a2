"""Boot figures: wall-clock from `board up` to RT cell ready, and to the first echo reply.

    python -m rtdroid.bootbench [--board qemu-x86_64] [--runs 3] [--cold]  ->  build/bench/boot-<board>[-cold].json

An emulated board with `boot: snapshot` (qemu-x86_64, qemu-arm64-xen) restores its RT cell from
the boot snapshot (taken on the first run if there is none yet: that run's figures include the
cold boot and are reported as such); --cold boots the RT cell cold every run.

Each run: `board up --cells rt` (this process then plays the Android side's peer 1, as the
integration test does), sign and deploy the echo bundle, one PING -> PONG, `board down`.
Not a test: boot time depends on the machine's load (TCG especially) and is reported, not asserted.

    python -m rtdroid.bootbench --android [--board host] [--runs 3]  ->  build/bench/boot-android-<board>.json

--android times `board up --cells android` to ANDROID CELL READY with the AOT cache and without
it (RTDROID_ANDROID_AOT=off), alternating in the same run, and reports the medians and their ratio.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

from . import aotcache, entry, keys, lifecycle, paths
from .echo import EchoPeer

ECHO_APP = Path("rtdroid-runtime/examples/target/apps/echo")


def one_run(board: str, bundle: Path, cold: bool = False) -> dict:
    from xcc import mgmt
    t0 = time.monotonic()
    lines: list[str] = []

    def out(s: str) -> None:
        lines.append(s)
        print("   ", s)
    state = lifecycle.up(board, cells=["rt"], out=out, cold=cold)
    try:
        ready = time.monotonic() - t0
        res = mgmt.deploy(state["region"]["path"], str(bundle), timeout=300)
        if not res.ok:
            raise RuntimeError(f"deploy refused: {res}")
        deployed = time.monotonic() - t0
        with EchoPeer(state["region"]["path"]) as peer:
            reply = peer.ping(b"first", correlation_id=1, timeout=120)
            first_echo = time.monotonic() - t0
            rtts = [peer.ping(b"x" * 64, correlation_id=i, timeout=30).round_trip_s for i in range(2, 102)]
    finally:
        lifecycle.down(board, out=lambda s: None)
    return {"up_to_rt_ready_s": round(ready, 3), "up_to_echo_deployed_s": round(deployed, 3),
            "up_to_first_echo_reply_s": round(first_echo, 3),
            "first_echo_round_trip_s": round(reply.round_trip_s, 6),
            "echo_round_trip_p50_us": round(statistics.median(rtts) * 1e6, 1),
            "echo_round_trip_max_us": round(max(rtts) * 1e6, 1),
            "milestones_s": state["cells"]["rt"].get("milestones", {}),
            "accel": state.get("accel"), "rt_kernel_realtime": state.get("rt_kernel_realtime"),
            "rt_boot": ("snapshot taken, then restored" if any("boot snapshot taken" in s for s in lines)
                        else "restored from the boot snapshot" if "restored_seconds" in state["cells"]["rt"]
                        else "cold"),
            "restore_s": state["cells"]["rt"].get("restored_seconds")}


def android_runs(board: str, runs: int) -> dict:
    """Android cell up-to-ready, with and without its AOT cache, alternating (same load for both)."""
    if not aotcache.fresh():
        aotcache.train()
    times: dict[str, list[float]] = {"aot_cache": [], "no_cache": []}
    try:
        for i in range(runs):
            for mode in ("no_cache", "aot_cache"):
                os.environ["RTDROID_ANDROID_AOT"] = "on" if mode == "aot_cache" else "off"
                t0 = time.monotonic()
                lifecycle.up(board, cells=["android"], out=lambda s: None)  # a refused up leaves nothing
                times[mode].append(round(time.monotonic() - t0, 3))
                lifecycle.down(board, out=lambda s: None)
                print(f"run {i + 1}/{runs} {mode}: android cell ready in {times[mode][-1]} s")
    finally:
        os.environ.pop("RTDROID_ANDROID_AOT", None)
    med = {k: statistics.median(v) for k, v in times.items()}
    return {"board": board, "runs": times, "median_s": med,
            "ratio_aot_to_none": round(med["aot_cache"] / med["no_cache"], 3)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--board", default="qemu-x86_64")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--cold", action="store_true", help="boot the RT cell cold (no boot snapshot)")
    ap.add_argument("--android", action="store_true", help="the Android cell's start, with and without its AOT cache")
    a = ap.parse_args()
    if a.runs < 1:
        ap.error("--runs must be at least 1")
    if a.android:
        result = android_runs(a.board, a.runs)
        with open("/proc/loadavg") as f:
            result["loadavg_after"] = f.read().split()[:3]
        out = paths.build_dir() / "bench" / f"boot-android-{a.board}.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=2))
        print(json.dumps({k: result[k] for k in ("median_s", "ratio_aot_to_none")}, indent=2))
        print(f"wrote {out}")
        return
    from xcc import bundle as xb
    keys.ensure_keys(out=lambda s: None)
    app = paths.repo_root() / ECHO_APP
    out_dir = paths.build_dir() / "bench"
    out_dir.mkdir(parents=True, exist_ok=True)
    bundle = out_dir / "echo.rtb"
    xb.build_bundle(app / "app.jar", app / "manifest.xml", paths.keys_dir() / "deploy.key", bundle)
    runs = []
    for i in range(a.runs):
        print(f"run {i + 1}/{a.runs} on {a.board}")
        runs.append(one_run(a.board, bundle, a.cold))
        print("   ", runs[-1])
    with open("/proc/loadavg") as f:
        load = f.read().split()[:3]
    summary = {k: {"min": min(r[k] for r in runs), "median": statistics.median(r[k] for r in runs),
                   "max": max(r[k] for r in runs)}
               for k in ("up_to_rt_ready_s", "up_to_first_echo_reply_s")}
    out = out_dir / f"boot-{a.board}{'-cold' if a.cold else ''}.json"
    out.write_text(json.dumps({"board": a.board, "runs": runs, "summary": summary,
                               "loadavg_after": load}, indent=2))
    print(json.dumps(summary, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    sys.exit(entry.run(main, "rtdroid.bootbench"))
