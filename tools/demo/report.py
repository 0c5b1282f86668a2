"""Latency report: percentiles from an HdrHistogram, histogram and CDF plots, one HTML page.

Used by the demo (`make run`) and by the Robot listener. Input is plain data (samples in
nanoseconds, service counters, screenshot paths) so it can be re-rendered from a saved JSON.
"""
from __future__ import annotations

import html
import json
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from hdrh.histogram import HdrHistogram
from rtdroid import entry
from rtdroid.errors import BoardError
from rtdroid.servicerows import cost_overrun_text, wcrt_exceeded_text
from xcc.mgmt import failure_where

# 1 ns .. 60 s at 3 significant digits: wide enough for TCG's millisecond tails.
_HIST_LOWEST_NS = 1
_HIST_HIGHEST_NS = 60_000_000_000
_HIST_DIGITS = 3


@dataclass(frozen=True)
class Percentiles:
    count: int
    p50_us: float
    p99_us: float
    p999_us: float
    max_us: float

    def as_dict(self) -> dict:
        return {"count": self.count, "p50_us": self.p50_us, "p99_us": self.p99_us,
                "p999_us": self.p999_us, "max_us": self.max_us}


def histogram(samples_ns) -> HdrHistogram:
    h = HdrHistogram(_HIST_LOWEST_NS, _HIST_HIGHEST_NS, _HIST_DIGITS)
    for s in samples_ns:
        h.record_value(min(max(int(s), _HIST_LOWEST_NS), _HIST_HIGHEST_NS))
    return h


def percentiles(samples_ns) -> Percentiles:
    samples_ns = list(samples_ns)
    if not samples_ns:
        return Percentiles(0, 0.0, 0.0, 0.0, 0.0)
    h = histogram(samples_ns)
    us = lambda v: round(v / 1000.0, 1)
    return Percentiles(h.get_total_count(), us(h.get_value_at_percentile(50)),
                       us(h.get_value_at_percentile(99)), us(h.get_value_at_percentile(99.9)),
                       us(h.get_max_value()))


def plot_latency(samples_ns, out_dir: Path, stem: str, title: str) -> list[Path]:
    """Writes <stem>-hist.png and <stem>-cdf.png; returns their paths."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out_dir.mkdir(parents=True, exist_ok=True)
    us = sorted(s / 1000.0 for s in samples_ns)
    paths = []
    if not us:
        return paths
    fig, ax = plt.subplots(figsize=(7, 3.6))
    ax.hist(us, bins=80, color="#2b6cb0")
    ax.set_xlabel("round trip (µs)")
    ax.set_ylabel("count")
    ax.set_title(title + " — histogram")
    ax.grid(alpha=0.3)
    p = out_dir / f"{stem}-hist.png"
    fig.tight_layout()
    fig.savefig(p, dpi=110)
    plt.close(fig)
    paths.append(p)

    fig, ax = plt.subplots(figsize=(7, 3.6))
    n = len(us)
    ax.plot(us, [(i + 1) / n for i in range(n)], color="#c05621")
    ax.set_xscale("log")
    ax.set_xlabel("round trip (µs, log)")
    ax.set_ylabel("fraction ≤ x")
    ax.set_title(title + " — CDF")
    ax.grid(alpha=0.3, which="both")
    p = out_dir / f"{stem}-cdf.png"
    fig.tight_layout()
    fig.savefig(p, dpi=110)
    plt.close(fig)
    paths.append(p)
    return paths


def _table(rows: list[dict], columns: list[str]) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(r.get(c, '')))}</td>" for c in columns) + "</tr>"
        for r in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def with_response_times(services: list[dict]) -> list[dict]:
    """The rows of `rt services --json` with the figures in µs the report shows: worst lateness,
    the measured worst response and beside it the admission analysis's WCRT ("not analysed" when
    the component declares no cost, or is a service whose periodic tasks carry its work); the most
    CPU time one release or callback used beside the cost the analysis assumed for one ("none
    declared"), and how many used more."""
    out = []
    for s in services:
        wcrt = s.get("analysed_wcrt_nanos")
        cost = s.get("analysed_cost_nanos")
        out.append({**s, "worst_lateness_us": round(int(s.get("worst_lateness_nanos", 0)) / 1000.0, 1),
                    "worst_response_us": round(int(s.get("worst_response_nanos", 0)) / 1000.0, 1),
                    "analysed_wcrt_us": round(int(wcrt) / 1000.0, 1) if wcrt else "not analysed",
                    "worst_execution_us": round(int(s.get("worst_execution_nanos") or 0) / 1000.0, 1),
                    "analysed_cost_us": round(int(cost) / 1000.0, 1) if cost else "none declared",
                    "cost_overruns": int(s.get("cost_overruns") or 0),
                    "last_cost_overrun": int(s.get("last_cost_overrun") or 0) or "-"})
    return out


def response_lines(services: list[dict]) -> list[str]:
    """One summary line per periodic task and per analysed component: measured worst response
    beside the analysed WCRT, and the worst CPU time of one release or callback beside the cost the
    analysis assumed, with the overruns that make the WCRT no bound (rows of with_response_times)."""
    lines = []
    for s in services:
        if s["name"].count("/") == 2 or s["analysed_wcrt_us"] != "not analysed":
            wcrt = s["analysed_wcrt_us"]
            line = (f"{s['name']}: worst response {s['worst_response_us']} µs, analysed WCRT "
                    + (f"{wcrt} µs" if wcrt != "not analysed" else wcrt)
                    + f"; worst execution {s['worst_execution_us']} µs")
            if s["analysed_cost_us"] != "none declared":
                line += f" of a {s['analysed_cost_us']} µs cost"
            over = cost_overrun_text(s, unit="µs")
            if over:
                line += f"; {over}"
            exceeded = wcrt_exceeded_text(s, unit="µs")
            if exceeded:
                line += f"; {exceeded}"
            lines.append(line)
    return lines


def failures_html(services: list[dict]) -> str:
    """Each failed component's cause once (its tasks' rows carry the same): class, message, task and
    release, the first stack frames. Empty when nothing failed."""
    items, shown = [], []
    for s in services:
        cause = s.get("failure")
        if not cause or cause in shown:
            continue
        shown.append(cause)
        where = failure_where(cause)
        frames = "".join(f"\n    at {html.escape(f)}" for f in cause.get("frames", []))
        items.append(f"<li><b>{html.escape(s.get('name', ''))}</b> {html.escape(s.get('state', ''))} "
                     f"({html.escape(where)})<pre>{html.escape(cause.get('exception_class', ''))}"
                     f"{': ' + html.escape(cause['message']) if cause.get('message') else ''}{frames}</pre></li>")
    return f"<h2>Failed RT components</h2><ul>{''.join(items)}</ul>" if items else ""


def _trace_html(name: str | None, out_dir: Path) -> str:
    """A link to the run's Perfetto trace (rtdroid rt trace), when it was written."""
    if not name or not (out_dir / name).is_file():
        return ""
    return (f'<h2>Timelines</h2><p><a href="{html.escape(name)}">{html.escape(name)}</a>: every release '
            f'and callback the RT cell keeps (planned and actual intervals, misses, overruns) and the '
            f'Android proxy\'s traffic, one track per component and thread, as a Perfetto trace: open it '
            f'in the Perfetto UI (ui.perfetto.dev, "Open trace file").</p>')


def write_report(result: dict, out_dir: Path) -> Path:
    """result: {"board", "started", "duration_s", "latency": {name: [ns...]}, "services": [...],
    "notes": [...], "screenshots": [paths], "summary": {...}}. Returns index.html's path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    sections = []
    lat_rows = []
    for name, samples in result.get("latency", {}).items():
        pc = percentiles(samples)
        lat_rows.append({"path": name, **pc.as_dict()})
        imgs = plot_latency(samples, out_dir, re.sub(r"[^A-Za-z0-9_.-]+", "_", name), name)
        sections.append(f"<h3>{html.escape(name)}</h3>" + "".join(
            f'<img src="{p.name}" alt="{html.escape(p.stem)}">' for p in imgs))
    shots = []
    for s in result.get("screenshots", []):
        src = Path(s)
        if src.is_file():
            dst = out_dir / src.name
            if src.resolve() != dst.resolve():
                shutil.copyfile(src, dst)
            shots.append(f'<figure><img class="shot" src="{dst.name}"><figcaption>{html.escape(dst.stem)}</figcaption></figure>')
    notes = "".join(f"<li>{html.escape(n)}</li>" for n in result.get("notes", []))
    page = f"""<!doctype html><html><head><meta charset="utf-8">
<title>RTDroid run — {html.escape(result.get('board', ''))}</title>
<style>body{{font-family:sans-serif;margin:2em;max-width:70em}}table{{border-collapse:collapse;margin:1em 0}}
td,th{{border:1px solid #ccc;padding:.3em .7em;text-align:right}}th{{background:#edf2f7}}
img{{max-width:48%;margin:.3em}}img.shot{{max-width:320px;border:1px solid #999}}figure{{display:inline-block}}</style>
</head><body>
<h1>RTDroid end-to-end run on <code>{html.escape(result.get('board', ''))}</code></h1>
<p>Started {html.escape(str(result.get('started', '')))}, {result.get('duration_s', '')} s of traffic.</p>
<h2>Round trips (measured in the Android cell, one clock)</h2>
{_table(lat_rows, ['path', 'count', 'p50_us', 'p99_us', 'p999_us', 'max_us'])}
<h2>RT services</h2>
<p>Worst response: measured, release (or an intent's send) to completion. Analysed WCRT: the
worst-case response time the RT cell's admission analysis gave the task (<code>rtdroid validate</code>'s
response-time analysis over every deployed app). Worst execution: the most CPU time one release or
callback used (the thread's CPU clock around the app's code), beside the cost (WCET) the analysis
assumed for one; a cost overrun is a release that used more, which the analysed WCRT did not bound
(the last one's number tells the JIT's cold code in the first releases after a deploy from an app
too slow for its declared cost).</p>
{_table(result.get('services', []), ['name', 'state', 'releases', 'deadline_misses', 'worst_lateness_us',
                                     'worst_response_us', 'analysed_wcrt_us', 'worst_execution_us',
                                     'analysed_cost_us', 'cost_overruns', 'last_cost_overrun'])}
{failures_html(result.get('services', []))}
{_trace_html(result.get('trace'), out_dir)}
<h2>Notes</h2><ul>{notes}</ul>
<h2>Latency distributions</h2>{''.join(sections)}
<h2>The ConfigurationUI app</h2>{''.join(shots)}
</body></html>"""
    index = out_dir / "index.html"
    index.write_text(page)
    (out_dir / "result.json").write_text(json.dumps(result, indent=1))
    return index


def main() -> int:
    """Re-renders a saved result: python tools/demo/report.py build/report/result.json"""
    if len(sys.argv) != 2:
        print("usage: report.py RESULT_JSON (a result.json a run wrote)", file=sys.stderr)
        return 2
    src = Path(sys.argv[1])
    try:
        result = json.loads(src.read_text())
    except json.JSONDecodeError as e:
        raise BoardError(f"{src} is not JSON: {e}") from None
    print(write_report(result, src.parent))
    return 0


if __name__ == "__main__":
    sys.exit(entry.run(main, "report"))
