"""The page of `rtdroid characterise`: build/report/characterise-<board>.html and its PNGs under
build/report/characterise-<board>/, in the seeds' forms (seed 002's tables and Figs. 5-6, seed
003's Figs. 10-20 and Tables 1-4), the seeds' published figures beside ours, each figure's time
base named."""
from __future__ import annotations

import html
from pathlib import Path

from .characterise import find, one

# Seed 002: Linaro Android 11.09 (Android 2.3.5, Linux 3.0.4), BeagleBoard-xM, Cortex-A8 at 1 GHz;
# its GPT timer at 13 MHz, figures rounded to 0.1 us.
SEED002_PLATFORM = "seed 002: Android 2.3.5 (Linux 3.0.4) on a BeagleBoard-xM, ARM Cortex-A8 1 GHz; 13 MHz GPT, 0.1 us"
SEED002_SWITCH = {2: (7.9, 317, 7.6), 10: (8.4, 321, 7.9), 128: (13.2, 363, 9.5), 1000: (14.3, 62.8, 12.8)}  # avg, max, min us
SEED002_IRQ = (1.9, 30.9, 1.8)  # avg, max, min us
SEED002_RATE = [(100, 10_000, 23), (120, 10_000, 17), (150, 10_000, 2), (180, 10_000, 0), (310, 10_000_000, 3),
                (330, 10_000_000, 2), (350, 100_000, 0), (350, 1_000_000, 4), (370, 1_000_000, 0),
                (370, 10_000_000, 6), (390, 10_000_000, 3), (410, 10_000_000, 0)]  # period us, generated, lost
# Seed 003: jRate (ahead-of-time compiled RTSJ) and the TimeSys RI on a Pentium III 733 MHz,
# TimeSys Linux/RT 3.0; dispatch latencies in us: avg, std, max, 99 %.
SEED003_PLATFORM = "seed 003: jRate and the TimeSys RTSJ RI on a Pentium III 733 MHz, TimeSys Linux/RT 3.0"
SEED003_TABLE1 = {"AsyncEventHandler (pooled)": (36.574, 0.113, 39.400, 36.945),
                  "BoundAsyncEventHandler": (34.004, 0.148, 35.555, 34.472)}
SEED003_TABLE3 = {0: (33.375, 0.124, 34.877, 34.116), 10: (33.154, 0.134, 34.903, 33.797), 50: (33.205, 0.161, 36.063, 33.825),
                  100: (33.264, 0.147, 35.959, 33.851), 500: (33.632, 0.180, 37.149, 34.283), 1000: (33.739, 0.199, 37.565, 34.458)}
SEED003_TABLE4 = {0: (56.106, 0.887, 70.462, 56.706), 10: (112.33, 1.346, 133.90, 122.18), 50: (332.41, 2.396, 353.17, 344.86),
                  100: (609.92, 3.410, 631.51, 624.96), 500: (2826.4, 12.005, 2884.0, 2862.1),
                  1000: (5587.0, 23.768, 5672.7, 5650.3)}
SEED003_ALLOC = ("jRate's CTMemory: allocation time independent of size from 32 B to 16 KiB, worst case at most "
                 "1.4x its average; the RI's LTMemory linear in size, 10x (small) to 95x (16 KiB) slower")

US = 1000.0


def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _label(doc, cell):
    return f"{'RT' if cell == 'rt' else 'Android'} cell ({doc['cells'][cell]['time_base']})"


def _save(fig, out: Path, name: str, pngs: list) -> None:
    fig.tight_layout()
    p = out / f"{name}.png"
    fig.savefig(p, dpi=90)
    _plt().close(fig)
    pngs.append(p)


def _dress(ax, *, xlog=None, ylog=False, xlabel=None, ylabel=None, title=None, legend=7) -> None:
    """What every plot sets on its axes: log scales (xlog is the x axis' base), labels, a title
    and the legend's font size."""
    if xlog:
        ax.set_xscale("log", base=xlog)
    if ylog:
        ax.set_yscale("log")
    if xlabel:
        ax.set_xlabel(xlabel)
    if ylabel:
        ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title, fontsize=9)
    if legend:
        ax.legend(fontsize=legend)


CELLS = ("rt", "android")


def _switch(doc, ax) -> None:
    """Seed 002's thread switch table as bars: avg and max per thread count."""
    counts = [2, 10, 128, 1000]
    width = 0.27
    for k, (name, series) in enumerate(
            [(_label(doc, c), [(one(doc, c, "switch", threads=n) or {}).get("latency") for n in counts]) for c in CELLS]
            + [("seed 002 (Cortex-A8, Android)", [{"mean_ns": SEED002_SWITCH[n][0] * US, "max_ns": SEED002_SWITCH[n][1] * US}
                                                for n in counts])]):
        xs = [i + (k - 1) * width for i in range(len(counts))]
        ax.bar(xs, [s["mean_ns"] / US if s else 0 for s in series], width, label=f"{name} avg")
        ax.scatter(xs, [s["max_ns"] / US if s else 0 for s in series], marker="_", s=200, color="k")
    ax.set_xticks(range(len(counts)), [f"{n} threads" for n in counts])
    _dress(ax, ylog=True, ylabel="thread switch latency (us), bar avg, tick max")


def _irq(doc, ax) -> None:
    """Interrupt dispatch CDFs."""
    for c in CELLS:
        for r in find(doc, c, "irq"):
            if "cdf" in r:
                ax.plot([p[0] / US for p in r["cdf"]], [p[1] for p in r["cdf"]], label=f"{_label(doc, c)} {r['source']}")
    ax.axvline(SEED002_IRQ[0], ls=":", color="gray", label="seed 002 avg 1.9 us")
    _dress(ax, xlog=10, xlabel="interrupt to waiting thread (us)", ylabel="cumulative fraction")


def _irqrate(doc, ax) -> None:
    """Sustained interrupt frequency: lost per period."""
    for c in CELLS:
        rows = sorted(find(doc, c, "irqrate", source="timer"), key=lambda r: r["period_ns"])
        ax.plot([r["period_ns"] / US for r in rows], [100.0 * r["lost"] / max(1, r["generated"]) for r in rows], "o-",
                label=_label(doc, c))
    ax.plot([p for p, _, _ in SEED002_RATE], [100.0 * l / g for _, g, l in SEED002_RATE], "x", color="gray", label="seed 002")
    _dress(ax, xlog=10, xlabel="timer period (us)", ylabel="interrupts lost (%)")


def _sem(doc, axes) -> None:
    """Fig. 5a/5b: semaphore acquisition and release per thread."""
    for ax, what, title in ((axes[0], "acquisition", "Fig. 5a acquisition"), (axes[1], "release", "Fig. 5b release")):
        for k, c in enumerate(CELLS):
            r = one(doc, c, "sem")
            if r:
                n = len(r[f"{what}_mean_ns"])
                xs = [i + (k - 0.5) * 0.4 for i in range(n)]
                ax.bar(xs, [v / US for v in r[f"{what}_mean_ns"]], 0.4, label=_label(doc, c))
                ax.scatter(xs, [v / US for v in r[f"{what}_max_ns"]], marker="_", s=80, color="k")
        _dress(ax, xlabel="thread (priority rising)", ylabel="us (bar mean, tick max)", title=title, legend=None)
    axes[0].legend(fontsize=7)


def _mutex(doc, axes) -> None:
    """Fig. 6a/6b: the mutex test's last iteration as a timeline (RT cell)."""
    for ax, inherit in zip(axes, (False, True)):
        r = one(doc, "rt", "mutex", priority_inheritance=inherit)
        if not r:
            continue
        ev = dict((name, t / US) for name, t in r["timeline_ns"])
        spans = {"L": [(0, ev["H wakes"]), (ev.get("M ends", 0) if not inherit else ev["H blocks"], ev["L unlocks"])],
                 "M": [(ev["M starts"], ev["M ends"])],
                 "H": [(ev["H wakes"], ev["H blocks"]), (ev["H acquires"], ev["H acquires"] + 5)]}
        for y, who in enumerate(("L", "M", "H")):
            ax.broken_barh([(a, max(b - a, 1)) for a, b in spans[who]], (y - 0.3, 0.6))
        ax.axvspan(ev["H blocks"], ev["H acquires"], color="red", alpha=0.15, label="H blocked")
        ax.set_yticks(range(3), ["L (low, holds)", "M (medium hog)", "H (high, waits)"])
        _dress(ax, xlabel=f"us from L's lock ({doc['cells']['rt']['time_base']})",
               title=f"Fig. 6{'b with' if inherit else 'a without'} priority inheritance")


def _alloc(doc, axes) -> None:
    """Seed 003 Figs. 10, 11, 14/15: allocation time against size."""
    sizes = sorted({r["size_bytes"] for r in find(doc, "rt", "alloc")})
    for memory, style in (("scoped", "o-"), ("heap", "s-"), ("scoped-reset", "^:")):
        rows = [one(doc, "rt", "alloc", memory=memory, size_bytes=s) for s in sizes]
        axes[0].plot(sizes, [r["time"]["mean_ns"] for r in rows], style, label=f"{memory} avg")
        if memory != "scoped-reset":
            axes[0].plot(sizes, [r["time"]["p99_ns"] for r in rows], style, alpha=0.5, label=f"{memory} 99%")
            axes[0].plot(sizes, [r["time"]["max_ns"] for r in rows], style, alpha=0.25, label=f"{memory} worst")
        axes[1].plot(sizes, [r["time"]["std_ns"] for r in rows], style, label=memory)
    for ax, title in ((axes[0], "Figs. 10/14/15: allocation time"), (axes[1], "Fig. 11: standard deviation")):
        _dress(ax, xlog=2, ylog=True, xlabel="size (bytes)", ylabel=f"ns ({doc['cells']['rt']['time_base']})",
               title=title, legend=6)


def _alloc_cdf(doc, ax) -> None:
    """Fig. 13: CDFs at a few sizes."""
    for memory in ("scoped", "heap"):
        for s in (32, 4096, 65536):
            r = one(doc, "rt", "alloc", memory=memory, size_bytes=s)
            if r:
                ax.plot([p[0] for p in r["time_cdf"]], [p[1] for p in r["time_cdf"]], label=f"{memory} {s} B")
    _dress(ax, xlog=10, xlabel="allocation time (ns)", ylabel="cumulative fraction",
           title="Fig. 13: allocation time distribution")


def _dispatch(doc, axes) -> None:
    """Figs. 16 and 18: dispatch trend and CDF."""
    for r in find(doc, "rt", "dispatch"):
        axes[0].plot([v / US for v in r["trend_ns"]], lw=0.6, label=r["handler"])
        axes[1].plot([p[0] / US for p in r["latency_cdf"]], [p[1] for p in r["latency_cdf"]], label=r["handler"])
    _dress(axes[0], xlabel="firing", ylabel=f"us ({doc['cells']['rt']['time_base']})",
           title="Fig. 16: dispatch latency of successive firings")
    _dress(axes[1], xlog=10, ylabel="fraction", title="Fig. 18: cumulative dispatch latency")


def _inversion(doc, axes) -> None:
    """Figs. 19 and 20: H's average and standard deviation against N."""
    for handler in ("bound", "pooled"):
        rows = sorted((r for r in find(doc, "rt", "inversion", handler=handler) if "latency" in r),
                      key=lambda r: r["low_handlers"])
        ns = [max(r["low_handlers"], 1) for r in rows]
        axes[0].plot(ns, [r["latency"]["mean_ns"] / US for r in rows], "o-", label=f"ours, {handler}")
        axes[1].plot(ns, [r["latency"]["std_ns"] / US for r in rows], "o-", label=f"ours, {handler}")
    for name, table in (("jRate", SEED003_TABLE3), ("RI", SEED003_TABLE4)):
        ns = [max(n, 1) for n in table]
        axes[0].plot(ns, [v[0] for v in table.values()], "x:", label=f"seed 003 {name}")
        axes[1].plot(ns, [v[1] for v in table.values()], "x:", label=f"seed 003 {name}")
    for ax, title in ((axes[0], "Fig. 19: H's average dispatch latency"), (axes[1], "Fig. 20: its standard deviation")):
        _dress(ax, xlog=10, ylog=True, xlabel="low-priority handlers (0 drawn at 1)", ylabel="us", title=title, legend=6)


# Each plot: its file name, how many axes side by side, the figure's size (inches) and its drawer.
PLOTS = (("switch", 1, (7, 3.6), _switch), ("irq", 1, (7, 3.6), _irq), ("irqrate", 1, (7, 3.6), _irqrate),
         ("sem", 2, (9, 3.4), _sem), ("mutex", 2, (9, 3.0), _mutex), ("alloc", 2, (9, 3.6), _alloc),
         ("alloc_cdf", 1, (7, 3.6), _alloc_cdf), ("dispatch", 2, (9, 3.4), _dispatch),
         ("inversion", 2, (9, 3.4), _inversion))


def plots(doc: dict, out: Path) -> list[Path]:
    plt = _plt()
    out.mkdir(parents=True, exist_ok=True)
    pngs: list[Path] = []
    for name, ncols, size, draw in PLOTS:
        fig, axes = plt.subplots(1, ncols, figsize=size)
        draw(doc, axes)
        _save(fig, out, name, pngs)
    return pngs


def _table(head: list[str], rows: list[list]) -> str:
    h = "".join(f"<th>{html.escape(str(x))}</th>" for x in head)
    b = "".join("<tr>" + "".join(f"<td>{html.escape(str(x))}</td>" for x in r) + "</tr>" for r in rows)
    return f"<table><tr>{h}</tr>{b}</table>"


def _us(ns) -> str:
    return "-" if ns is None else f"{ns / US:.1f}"


def _apart(rt: dict) -> str:
    if rt["virtual"]:
        return "Figures of the two cells are in different time bases and are shown side by side, not compared. "
    if rt.get("emulated"):
        return ("The RT cell's CPU is emulated (QEMU TCG): its figures are emulation timing, shown beside the "
                "Android cell's real CPU's, not compared. ")
    return ""


def page(doc: dict, images: str) -> str:
    tb = {c: doc["cells"][c]["time_base"] for c in ("rt", "android")}
    parts = [f"<h1>Characterisation of board {html.escape(doc['board'])}</h1>",
             f"<p>{html.escape(doc['command'])} at {html.escape(doc['started'])}. Time bases: RT cell "
             f"<b>{html.escape(tb['rt'])}</b>, Android cell <b>{html.escape(tb['android'])}</b>. "
             f"{_apart(doc['cells']['rt'])}"
             f"Every figure is rounded to the clock's step in the calibration row.</p>"]
    # goals and budgets
    parts.append("<h2>Goals (baselines in the same run)</h2>" + _table(
        ["goal", "measured", "verdict"],
        [[g["text"], g["measured"], "met" if g["met"] else "not met" if g["met"] is False else "shown"] for g in doc["goals"]]))
    if doc.get("budgets"):
        parts.append("<h2>Budgets of the board file (the characterise Robot suite)</h2>" + _table(
            ["budget", "limit", "measured", "verdict"],
            [[b["name"], b["limit"], "n/a" if b["measured"] is None else round(b["measured"], 3),
              "met" if b["met"] else "not met"] for b in doc["budgets"]]))
    # seed 002 tables
    parts.append(f"<h2>Seed 002: the OS and CPU of each cell</h2><p>Beside: {html.escape(SEED002_PLATFORM)}.</p>")
    cal = [[c, r["policy"], r["resolution_ns"], r["clock_read"]["p50_ns"],
            r["gap"]["n"], round(r["gaps_per_s"], 1), _us(r["gap"]["p50_ns"]), _us(r["gap"]["max_ns"])]
           for c in ("rt", "android") for r in find(doc, c, "calibrate")]
    parts.append("<h3>Calibration</h3>" + _table(
        ["cell", "policy", "clock step (ns)", "clock read p50 (ns)", "busy-loop gaps", "gaps/s", "gap p50 (us)", "gap max (us)"], cal))
    sw = []
    for n in (2, 10, 128, 1000):
        row = [f"{n} threads"]
        for c in ("rt", "android"):
            r = one(doc, c, "switch", threads=n)
            l = r.get("latency") if r else None
            row += [_us(l and l["mean_ns"]), _us(l and l["max_ns"]), _us(l and l["min_ns"])]
        row += list(SEED002_SWITCH[n])
        sw.append(row)
    parts.append(f"<h3>Thread switch latency (us)</h3>" + _table(
        ["test", "RT avg", "RT max", "RT min", "Android avg", "Android max", "Android min", "seed avg", "seed max", "seed min"], sw)
        + f'<img src="{images}/switch.png">')
    irq = [[c, r["source"], r["policy"], _us(r["latency"]["mean_ns"]), _us(r["latency"]["max_ns"]), _us(r["latency"]["min_ns"]),
            _us(r["latency"]["p99_ns"])] for c in ("rt", "android") for r in find(doc, c, "irq") if "latency" in r]
    irq += [[c, r["source"], r["policy"], "unavailable: " + r["unavailable"], "", "", ""]
            for c in ("rt", "android") for r in find(doc, c, "irq") if "unavailable" in r]
    irq.append(["seed 002", "GPT", "", *SEED002_IRQ, ""])
    parts.append("<h3>Interrupt dispatch latency (us)</h3>" + _table(["cell", "source", "policy", "avg", "max", "min", "p99"], irq)
                 + f'<img src="{images}/irq.png">')
    rate = [[c, r["source"], r["period_ns"] / US, *(("unavailable: " + r["unavailable"], "") if "unavailable" in r
                                                   else (r["generated"], r["lost"]))]
            for c in ("rt", "android") for r in sorted(find(doc, c, "irqrate"), key=lambda r: -r["period_ns"])
            if "lost" in r or "unavailable" in r]
    # the long run (rtdroid characterise --sustained), where this board has one
    rate += [[f"{r['cell']}, long run", r["source"], r["period_ns"] / US, r["generated"], r["lost"]]
             for r in doc.get("sustained_rows", [])]
    rate += [["seed 002", "GPT", p, g, l] for p, g, l in SEED002_RATE]
    parts.append("<h3>Sustained interrupt frequency</h3>" + _table(["cell", "source", "period (us)", "generated", "lost"], rate)
                 + f'<img src="{images}/irqrate.png">')
    parts.append("<h3>Semaphore acquisition and release, contention case (Fig. 5a/5b)</h3>" + _table(
        ["cell", "policy", "acquisition avg (us)", "max", "release avg (us)", "max", "threads not preempting the creator"],
        [[c, r["policy"], _us(r["acquisition"]["mean_ns"]), _us(r["acquisition"]["max_ns"]), _us(r["release"]["mean_ns"]),
          _us(r["release"]["max_ns"]), r["not_preempted"]] for c in ("rt", "android") for r in find(doc, c, "sem")])
        + f'<img src="{images}/sem.png">')
    parts.append("<h3>Mutex with and without priority inheritance (Fig. 6a/6b)</h3>" + _table(
        ["cell", "policy", "inheritance", "critical section (us)", "hog (us)", "H blocked avg (us)", "max", "max / section"],
        [[c, r["policy"], r["priority_inheritance"], _us(r["critical_section_ns"]), _us(r["hog_ns"]),
          _us(r["blocking"]["mean_ns"]), _us(r["blocking"]["max_ns"]), f"{r['blocking']['max_ns'] / r['critical_section_ns']:.2f}"]
         for c in ("rt", "android") for r in find(doc, c, "mutex")]) + f'<img src="{images}/mutex.png">')
    hyg = [[c, r["kernel"], r["preempt_rt"], ", ".join(r["governors"]), f"{r['sched_rt_runtime_us']}/{r['sched_rt_period_us']}",
            f"{r.get('oom_process', '?')} {r.get('oom_score_adj', '?')}",
            "; ".join(f"{k[4:]}: {v}" for k, v in r.items() if k.startswith("set_")) or "report only"]
           for c in ("rt", "android") for r in find(doc, c, "hygiene")]
    parts.append("<h3>Platform hygiene (dissertation 3.4.2)</h3>" + _table(
        ["cell", "kernel", "PREEMPT_RT", "governors", "RT runtime/period (us)", "OOM score of", "set by the board's policy"], hyg))
    # seed 003
    parts.append(f"<h2>Seed 003 (RTJPerf) in the RT cell's runtime ({html.escape(tb['rt'])})</h2>"
                 f"<p>Beside: {html.escape(SEED003_PLATFORM)}. {html.escape(SEED003_ALLOC)}.</p>")
    jvm = one(doc, "rt", "jvm", probe="jvm")
    if jvm:
        parts.append(f"<p>JVM {html.escape(str(jvm['java']))}, {html.escape(str(jvm['gc']))}, SCHED_FIFO "
                     f"{jvm['sched_fifo']}; a clock read costs {jvm['clock_read_ns']} ns and is in every figure.</p>")
    alloc = []
    for r in sorted(find(doc, "rt", "alloc"), key=lambda r: (r["memory"], r["size_bytes"])):
        t = r["time"]
        alloc.append([r["memory"], r["size_bytes"], t["mean_ns"], t["std_ns"], t["p99_ns"], t["max_ns"], t["min_ns"]])
    parts.append("<h3>Allocation time (ns) against size (Figs. 10-15)</h3><p>scoped-reset: the zeroing scoped memory moves "
                 "out of allocation into the release's reset, timed per reset.</p>" + _table(
                     ["memory", "size (B)", "avg", "std", "99%", "worst", "best"], alloc)
                 + f'<img src="{images}/alloc.png"><img src="{images}/alloc_cdf.png">')
    disp = [[f"ours, {r['handler']}", _us(r["latency"]["mean_ns"]), _us(r["latency"]["std_ns"]), _us(r["latency"]["max_ns"]),
             _us(r["latency"]["p99_ns"])] for r in find(doc, "rt", "dispatch")]
    disp += [[f"seed 003 jRate {k}", *v] for k, v in SEED003_TABLE1.items()]
    parts.append("<h3>Event handler dispatch latency, lockstep (Tables 1-2, Figs. 16-18), us</h3>" + _table(
        ["handler", "avg", "std", "max", "99%"], disp) + f'<img src="{images}/dispatch.png">')
    inv = []
    for r in sorted(find(doc, "rt", "inversion"), key=lambda r: (r["handler"], r["low_handlers"])):
        n = r["low_handlers"]
        seeds = [" / ".join(str(x) for x in SEED003_TABLE3.get(n, ())), " / ".join(str(x) for x in SEED003_TABLE4.get(n, ()))]
        if "unavailable" in r:
            inv.append([r["handler"], n, "unavailable: " + r["unavailable"], "", "", "", *seeds])
            continue
        l = r["latency"]
        shown = n if "capped_by" not in r else f"{n} of {r['requested_low_handlers']} (capped by {r['capped_by']})"
        inv.append([r["handler"], shown, _us(l["mean_ns"]), _us(l["std_ns"]), _us(l["max_ns"]), _us(l["p99_ns"]), *seeds])
    parts.append("<h3>Priority inversion: H among N low-priority handlers (Tables 3-4, Figs. 19-20), us</h3>" + _table(
        ["ours", "N", "avg", "std", "max", "99%", "seed jRate avg/std/max/99%", "seed RI avg/std/max/99%"], inv)
        + f'<img src="{images}/inversion.png">')
    style = ("<style>body{font-family:sans-serif;max-width:1100px;margin:1em auto}table{border-collapse:collapse;margin:.5em 0}"
             "td,th{border:1px solid #ccc;padding:2px 6px;font-size:12px}img{max-width:100%}</style>")
    return f"<!doctype html><html><head><meta charset='utf-8'><title>characterise {html.escape(doc['board'])}</title>{style}</head><body>" \
        + "\n".join(parts) + "</body></html>\n"


def write(doc: dict, report_dir: Path) -> Path:
    images = f"characterise-{doc['board']}"
    plots(doc, report_dir / images)
    out = report_dir / f"characterise-{doc['board']}.html"
    out.write_text(page(doc, images), encoding="utf-8")
    return out
