"""The dissertation's Figs. 3.20-3.23 (3.8.3.2): jPapaBench's sensor path, from the simulator's IR
frame to the autopilot's listener, split into the buffering delay (the frame waiting in the input
device until the polling thread reads it: SensorEvent.readNanos) and the rest of the architecture
below the app, unloaded and under the seed's memory, computation and listener workloads, and the
observed worst case over repeated runs. RTDroid (bench/run.sh sensor-papabench, the RT cell's
runtime) and Android (android-cell/bench/run.sh sensor, the Android cell's framework sandbox) run
in the same `make figures` run.
"""
from __future__ import annotations

import statistics

import draw
from figure import US, Context, Figure, Section, host_section, missing
from data import Result

RT, ANDROID = "sensor-papabench", "sensor-papabench-android"
NEXUS_S = "Nexus S (1 GHz Cortex-A8, Android 4.1.2, RT Linux 3.0.50)"
LEON3 = "LEON3 (50 MHz SPARC, RTEMS 4.9.6)"
NOISE = ("memory", "computation", "listeners")
IMPL_LABEL = {"rtdroid": "RTDroid (RT cell runtime)", "android": "Android (Android cell, main looper)"}
JVM_STALLS = ("; the JVM's log of the run (build/bench/sensor-papabench-jvm.log) lists each GC safepoint's time to "
              "reach it: every runnable Java thread must get the CPU to reach it, and the memory-noise threads "
              "(SCHED_OTHER, in the RT path's JVM as the seed's noise was in its VM, pinned to the bench CPU) get it late "
              "when the heap runs out (allocation stalls wake them all at once) or other work loads the CPU (this host "
              "is shared); the VM names the threads it waited for (-XX:+SafepointTimeout) and a real-time thread "
              "returning from read(2) into Java code waits for the safepoint to end")
MEMORY_NOISE = ("Memory noise as the seed describes jPapaBench's (3.8.3.2): each thread every 200 ms (the seed names no "
                "period; its 4.5.1 heap noise's) allocates a 2 MB byte array (2,048 elements of 1 KiB), drops every other "
                "element, then the array: 300 MB/s at 30 threads, which the collector keeps up with (as the seed's \"RTGC has "
                "enough slack time to keep up\"), in the bench JVM's 1 GiB heap and in the RT cell's 256 MiB "
                "(BENCH_HEAP_MIB=256): the JVM's log (build/bench/sensor-papabench-jvm.log) counts no allocation stall. "
                "With the fall detection's 12.5 MB per period (Fig. 3.16's) 30 threads allocated about 2 GB/s, the heap "
                "ran full, the noise threads stalled in allocation and held the VM's safepoints for up to 235 ms.")
SERIES = (("e2e_ns", "end-to-end"), ("buffering_ns", "buffering delay"), ("delivery_ns", "below the app (processing, handler)"))


def _results(ctx: Context) -> dict[str, Result]:
    return {impl: r for impl, r in (("rtdroid", ctx.result(RT)), ("android", ctx.result(ANDROID))) if r is not None}


def _section(results: dict[str, Result]) -> Section:
    first = results.get("rtdroid") or results["android"]
    s = host_section(first)
    s.commands = [r.command for r in results.values()]
    if "android" in results:
        s.board += ("; the Android column in the Android cell's framework sandbox on the host JVM (main looper, "
                    "SCHED_OTHER, threads not pinned), in the same run")
    s.board += ("; input devices: FIFOs carrying kernel-format input_event records (no uinput on this host: the kernel's "
                "input core and evdev are not in the path)")
    s.time_base = ("host CLOCK_MONOTONIC (wall-clock time of this machine, not virtual time): the frame's SYN_REPORT "
                   "stamp (µs resolution), the polling thread's read, the listener's start")
    return s


def _row(r: Result, noise: str, n: int, run: int = 1) -> dict | None:
    return r.one(run, noise=noise, noise_threads=n)


def _panel(ax, r: Result, row: dict | None, title: str) -> None:
    """The seed's three series against the time of the frame's release (ms)."""
    series = []
    if row:
        smp = r.samples(row)
        t = [v / 1e9 for v in smp.get("t_ns", [])]
        for col, label in SERIES:
            series.append((label, t, [v * US for v in smp.get(col, [])]))
    draw.scatter_events(ax, series, title, log=True, xlabel="time of the IR frame's release (s)")


def _table_row(impl: str, noise: str, n: int, row: dict) -> list:
    return [impl, noise, n, row["count"], row["p50_us"], row["mean_us"], row["sd_us"], row["max_us"],
            row["buffering_p50_us"], row["buffering_max_us"], row["delivery_p50_us"], row["delivery_max_us"]]


HEADER = ["impl", "noise", "threads", "deliveries", "e2e p50 µs", "e2e mean µs", "e2e sd µs", "e2e max µs",
          "buffering p50 µs", "buffering max µs", "below app p50 µs", "below app max µs"]


def fig_3_20(ctx: Context) -> Section:
    results = _results(ctx)
    if not results:
        return missing(RT)
    s = _section(results)
    fig, axes = draw.figure(1, 2)
    s.header = HEADER
    for ax, impl in zip(axes, ("rtdroid", "android")):
        r = results.get(impl)
        if r is None:
            ax.set_title(f"{IMPL_LABEL[impl]}: not run", fontsize=9)
            continue
        row = _row(r, "none", 0)
        _panel(ax, r, row, f"{IMPL_LABEL[impl]}: baseline (run 1)")
        if row:
            s.rows.append(_table_row(impl, "none", 0, row))
    s.images.append(draw.save(fig, ctx.png(FIG_3_20)))
    rt = _row(results["rtdroid"], "none", 0) if "rtdroid" in results else None
    an = _row(results["android"], "none", 0) if "android" in results else None
    if rt is None:
        s.status, s.outcome = "not run", f"no unloaded row in {RT}.json"
        return s
    share = rt["buffering_p50_us"] / max(rt["p50_us"], 0.01)
    s.outcome = (f"On the host board, RTDroid's unloaded end-to-end latency is {rt['p50_us']:.0f} µs at the median "
                 f"(max {rt['max_us']:.0f} µs), of which the buffering delay is {share:.0%}"
                 + (f"; Android's {an['p50_us']:.0f} µs (max {an['max_us']:.0f} µs)" if an else "")
                 + ". The seed's baseline is 20-25 ms on Nexus S: its polling thread reads the buffer every 25 ms; "
                 "ours blocks on the device and reads each frame as it arrives.")
    return s


def _stress(ctx: Context, figure: Figure, impl: str) -> Section:
    results = _results(ctx)
    if impl not in results:
        return missing(RT if impl == "rtdroid" else ANDROID)
    r = results[impl]
    s = _section(results)
    counts = sorted({row["noise_threads"] for row in r.select() if row["noise"] != "none"})
    shown = [c for c in (counts[0], counts[-1])] if counts else []
    shown = list(dict.fromkeys(shown))
    fig, axes = draw.figure(len(shown) or 1, 3, width=4.6, height=3.2)
    axes = list(axes) if hasattr(axes, "__iter__") else [axes]
    s.header = HEADER
    for i, n in enumerate(shown):
        for j, noise in enumerate(NOISE):
            row = _row(r, noise, n)
            _panel(axes[i * 3 + j], r, row, f"{IMPL_LABEL[impl].split(' (')[0]}: {n} {noise} threads (run 1)")
    base = _row(r, "none", 0)
    if base:
        s.rows.append(_table_row(impl, "none", 0, base))
    for noise in NOISE:
        for n in counts:
            row = _row(r, noise, n)
            if row:
                s.rows.append(_table_row(impl, noise, n, row))
    s.images.append(draw.save(fig, ctx.png(figure)))
    if impl == "rtdroid":
        s.notes.append(MEMORY_NOISE)
    worst = max((x for x in r.select() if x["noise"] in NOISE), key=lambda x: x["p99_us"], default=None)
    if not base or not worst:
        s.status, s.outcome = "not run", f"no unloaded or loaded rows of {impl}"
        return s
    rel = worst["p99_us"] / max(base["p99_us"], 0.01)
    flat = rel <= 1.5
    who = "RTDroid's" if impl == "rtdroid" else "Android's"
    s.outcome = (f"On the host board, {who} p99 end-to-end under the worst workload ({worst['noise_threads']} "
                 f"{worst['noise']} threads) is {rel:.2f}x its unloaded p99 ({worst['p99_us']:.0f} vs {base['p99_us']:.0f} µs); "
                 "the seed saw no difference between the three workloads.")
    if impl == "rtdroid":
        s.judge(flat, why=("the p99 under noise exceeded 1.5x the unloaded p99 on this shared VM without PREEMPT_RT"
                           + JVM_STALLS))
    else:
        s.status = "differs"
        s.why = (f"one board here: the seed's LEON3 panels have no counterpart; this section shows, in the same form and "
                 f"the same run, the Android cell's path (the dissertation's comparison)"
                 + ("" if flat else f", which under noise grows {rel:.1f}x"))
    return s


def worst_cases(r: Result, impl: str) -> list[dict]:
    """Per (noise, threads): the maximum of the runs' maxima, their mean and sd (OSADL's worst case)."""
    by: dict[tuple, list[float]] = {}
    for row in r.select(None, impl=impl):
        by.setdefault((row["noise"], row["noise_threads"]), []).append(row["max_us"])
    out = []
    for (noise, n), maxima in sorted(by.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        out.append({"noise": noise, "noise_threads": n, "runs": len(maxima), "max_of_max_us": max(maxima),
                    "mean_of_max_us": statistics.fmean(maxima),
                    "sd_of_max_us": statistics.stdev(maxima) if len(maxima) > 1 else 0.0})
    return out


def case_name(w: dict) -> str:
    """A worst-case row's case in words: "unloaded" or "30 memory threads"."""
    return "unloaded" if w["noise"] == "none" else f"{w['noise_threads']} {w['noise'].removesuffix('s')} threads"


def fig_3_23(ctx: Context) -> Section:
    results = _results(ctx)
    if "rtdroid" not in results:
        return missing(RT)
    s = _section(results)
    fig, axes = draw.figure(1, 3, width=4.6, height=3.2)
    s.header = ["impl", "noise", "threads", "runs", "worst µs", "mean of maxima µs", "sd of maxima µs"]
    worst_rt: list[float] = []
    runs = {impl: r.doc.get("runs", 1) for impl, r in results.items()}
    for ax, noise in zip(axes, NOISE):
        series, styles = [], []
        for impl, r in results.items():
            wc = [w for w in worst_cases(r, impl) if w["noise"] in (noise, "none")]
            if not wc:
                continue
            draw.maxima(series, styles, impl, runs[impl], wc)
        draw.lines(ax, series, f"{noise}: observed worst case of end-to-end delivery", "noise threads", "latency (µs)",
                   log=True, styles=styles)
    for impl, r in results.items():
        for w in worst_cases(r, impl):
            s.rows.append([impl, w["noise"], w["noise_threads"], w["runs"], w["max_of_max_us"],
                           round(w["mean_of_max_us"], 1), round(w["sd_of_max_us"], 1)])
            if impl == "rtdroid":
                worst_rt.append((w["max_of_max_us"], case_name(w)))
    s.images.append(draw.save(fig, ctx.png(FIG_3_23)))
    (lo, lo_case), (hi, hi_case) = min(worst_rt), max(worst_rt)
    an = [w["max_of_max_us"] for w in worst_cases(results["android"], "android")] if "android" in results else []
    s.outcome = (f"RTDroid's observed worst case over {runs['rtdroid']} runs is {lo:.0f}-{hi:.0f} µs across the unloaded "
                 f"and noise cases on the host board ({hi / max(lo, 0.01):.1f}x spread)"
                 + (f"; Android's {min(an):.0f}-{max(an):.0f} µs" if an else "")
                 + "; the seed's Nexus S: 19.65-25.55 ms, LEON3 27.2-35.4 ms, no difference between the workloads.")
    s.judge(hi <= 3 * lo, why=(f"the worst cases differ more than 3x (highest {hi_case}, lowest {lo_case}): a worst case "
                               "on this shared VM without PREEMPT_RT includes the machine's and the JVM's stalls, which "
                               "the mean of maxima shows apart" + JVM_STALLS))
    if runs["rtdroid"] < 10:
        s.notes.append(f"{runs['rtdroid']} runs in this form; the seed's figure and the full form take 10.")
    return s


SEED_SETUP = ("jPapaBench's simulator writes simulated sensor data into an intermediate buffer that the RT SensorManager's "
              "polling thread reads (25 ms polling on Nexus S), delivered to the autopilot's control loops; \"the data is "
              "generated at a rate ten times that of the hardware sensors' capacity on Nexus S\".")
FIG_3_20 = Figure("Fig. 3.20", "jPapaBench: RT SensorManager baseline (end-to-end, buffering, below the app)",
                  "per simulator release, the end-to-end latency (circles), the buffering delay (squares) and the rest of "
                  "the architecture below the app (crosses), in ms, Nexus S (a) and LEON3 (b), unloaded",
                  f"{NEXUS_S} and {LEON3}: {SEED_SETUP} \"there is little difference between Nexus S and LEON3\"; the "
                  "end-to-end latency \"measures the buffering delay in addition to the latency incurred purely in our "
                  "architecture\".",
                  (RT, ANDROID), fig_3_20)
FIG_3_21 = Figure("Fig. 3.21", "jPapaBench: RT SensorManager under memory, computation and listener workloads (RTDroid)",
                  "the same three series under 5 and 30 memory, computation and listener noise threads, on Nexus S",
                  f"{NEXUS_S}: \"we do not observe performance difference between three different noisy threads\"; "
                  "memory: 2 MB arrays, every other element dropped; computation: 1,000 floating-point multiplications "
                  "every 20 ms (3.8.3); listener: low-priority threads subscribing to the same sensor.",
                  (RT, ANDROID), lambda ctx: _stress(ctx, FIG_3_21, "rtdroid"))
FIG_3_22 = Figure("Fig. 3.22", "jPapaBench: the sensor path under the same workloads (the seed: LEON3; here: Android)",
                  "the same three series under 5 and 30 noise threads of each kind, on LEON3",
                  f"{LEON3}: the same as Nexus S with larger values (\"the massive differences in computation capability\").",
                  (RT, ANDROID), lambda ctx: _stress(ctx, FIG_3_22, "android"))
FIG_3_23 = Figure("Fig. 3.23", "jPapaBench: observed worst case of sensor delivery over 10 runs",
                  "observed WCET of the end-to-end delivery latency over 10 executions, by the number of noise threads",
                  f"{NEXUS_S}: \"WCETs of sensor delivery range from 19.65 ms to 25.55 ms with 0.19 ms to 5.31 ms standard "
                  f"deviations\"; {LEON3}: \"27.20 ms to 35.40 ms with 3.7 ms to 7.47 ms standard deviations\"; \"we do not "
                  "observe performance difference between three different noisy threads\".",
                  (RT, ANDROID), fig_3_23)

FIGURES = [FIG_3_20, FIG_3_21, FIG_3_22, FIG_3_23]
