"""The reflection benchmark's figure, in the style of seed 004's Figures 4 and 5: per frame, the
display action's start error (actual − planned, µs) and the quality the analysis ran at
(1 / (dx × dy)), with the frame from which the engine's wake-up is calibrated marked; the same plan
at 500 frames a second (short idle gaps) and the periodic baseline's errors beside them
(build/bench/reflection.json -> reflection.png)."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def plot(result: dict, out_png: str) -> None:
    frames = result.get("frames", [])
    if not frames:
        raise SystemExit("reflection result has no per-frame series")
    xs = [f["frame"] for f in frames]
    err = [f["error_us"] for f in frames]
    quality = [1.0 / (f["dx"] * f["dy"]) if f["dx"] else 0.0 for f in frames]
    cal_from = next((f["frame"] for f in frames if f.get("calibrated")), None)
    fig, (ax, axq) = plt.subplots(2, 1, figsize=(9, 6), sharex=True, gridspec_kw={"height_ratios": [3, 1]})
    clob = [(x, e) for x, e, f in zip(xs, err, frames) if f.get("clobbered")]
    ax.plot(xs, err, marker=".", linewidth=0.8, label="display start error (actual − planned), 25 fps")
    fast = result.get("short_frames", {}).get("frames", [])
    if fast:
        ax.plot([f["frame"] for f in fast], [f["error_us"] for f in fast], linewidth=0.6, alpha=0.7,
                label=f"the same at {1000 / result['short_frames']['frame_interval_ms']:.0f} fps")
    if clob:
        ax.scatter(*zip(*clob), color="red", zorder=3, s=18, label="clobbered by the analysis")
    if cal_from is not None:
        ax.axvline(cal_from, color="gray", linestyle="--", linewidth=1)
        ax.text(cal_from, ax.get_ylim()[1], " calibration on", fontsize=8, va="top")
    ax.axhline(0, color="black", linewidth=0.6)
    # the seed's figures (PXA255 at 400 MHz under L4-embedded): 52-57 us once its table had filled,
    # -4..+3 us calibrated
    ax.axhspan(52, 57, color="green", alpha=0.25, label="seed 004 Fig. 4: 52–57 µs (uncalibrated)")
    ax.axhspan(-4, 3, color="purple", alpha=0.25, label="seed 004 Fig. 5: −4…+3 µs (calibrated)")
    base = [r for r in result.get("rows", []) if r.get("impl") == "periodic"]
    if base:
        b = base[0]
        ax.axhspan(-b["error_p99_us"], b["error_p99_us"], color="orange", alpha=0.15,
                   label=f"periodic baseline |error| p99 ({b['error_p99_us']:.1f} µs)")
    ax.set_ylabel("µs")
    ax.legend(fontsize=8, loc="upper right")
    ax.grid(alpha=0.3)
    axq.step(xs, quality, where="mid")
    axq.set_ylabel("quality\n1/(dx·dy)")
    axq.set_xlabel("frame")
    axq.set_ylim(0, 1.1)
    axq.grid(alpha=0.3)
    host = result.get("host", {})
    goals = "\n".join(("NOT JUDGED: " if g["met"] is None else "MET: " if g["met"] else "NOT MET: ") + g["text"] + " — " + g["measured"]
                      for g in result.get("goals", []))
    fig.suptitle(f"temporal reflection: display accuracy against analysis quality (seed 004, Fig. 4-5)\n"
                 + (f"board {result['board']}, {result.get('time_base')}\n" if result.get("board") else "")
                 + f"{host.get('kernel', '?')}, {host.get('cpus', '?')} CPUs, SCHED_FIFO "
                 f"{'yes' if host.get('sched_fifo_permitted') else 'no'}, {result.get('started', '')}\n{goals}",
                 fontsize=8)
    fig.tight_layout()
    fig.savefig(out_png, dpi=110)
