#!/usr/bin/env python3
"""`make figures [FIGURES=quick|full]`: runs every reproduction of the seeds' evaluations (each a
benchmark of bench/ or of the Android cell's benchmark module) and writes one page,
build/report/figures/index.html: a section per figure or table of the seeds, in the seed's form,
with the seed's published numbers (and platform) beside ours, the command, the board and the
time base. The raw samples stay beside each benchmark's JSON under build/report/figures/data/.

    figures.py [--form quick|full] [--only ID[,ID...]] [--test] [--draw-only] [--out DIR]

quick: the short forms (fewer cases and runs, same shapes; part of `make test`); full: the seeds'
sample counts (hours). --test: the quick form `make test` runs, without the figures whose jobs'
quick forms are too long for it (catalog.Job.in_test; the page names them). Every job runs under `timeout -s KILL` with its form's bound, and each
benchmark bounds its own phases (a SCHED_FIFO watchdog). --draw-only redraws the page from the
data already there. Exit status: 0 when every job ran and every figure was drawn, 1 otherwise.
"""
from __future__ import annotations

import argparse
import html
import json
import multiprocessing
import os
import subprocess
import sys
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))

import catalog  # noqa: E402
import draw  # noqa: E402
from catalog import FIGURES, JOBS, Context, Section  # noqa: E402


def run_job(job: catalog.Job | catalog.Batch, form: str, data: Path, log: Path) -> tuple[bool, float, str]:
    """Runs one benchmark job (or batch) with its output in data/; returns (ok, seconds, why not)."""
    cmd = list(job.command(form)) + ["--out", str(data)]
    timeout = job.timeout(form)
    started = time.monotonic()
    print(f"figures: {job.name}: {' '.join(job.command(form))} (at most {timeout} s)", flush=True)
    env = dict(os.environ, BENCH_PLOT="off")  # the page draws its own plots from the JSON
    with open(log, "w") as out:
        rc = subprocess.run(["timeout", "-s", "KILL", str(timeout)] + cmd, cwd=ROOT, stdout=out,
                            stderr=subprocess.STDOUT, env=env).returncode
    seconds = time.monotonic() - started
    if rc == 137 or rc == -9:
        return False, seconds, f"killed after its bound of {timeout} s (see {log})"
    if rc != 0:
        return False, seconds, f"exited {rc} (see {log})"
    absent = [o for o in job.outputs if not (data / f"{o}.json").is_file()]
    if absent:
        return False, seconds, f"wrote no {', '.join(absent)}.json (see {log})"
    return True, seconds, ""


def page(sections: list[tuple[catalog.Figure, Section]], form: str, jobs: dict[str, dict],
         left_out: list[catalog.Figure] = ()) -> str:
    e = html.escape
    out = [
        "<!doctype html><html><head><meta charset='utf-8'><title>RTDroid: the seeds' evaluations reproduced</title>",
        "<style>body{font-family:sans-serif;max-width:1150px;margin:auto;padding:1em;font-size:14px}"
        "table{border-collapse:collapse;font-size:12px;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;"
        "text-align:right}th{background:#eee}td:first-child{text-align:left}.seed{background:#f6f3e8;padding:.5em}"
        ".ours{background:#e8f0f6;padding:.5em}.differs{color:#a40}.notrun{color:#888}.reproduced{color:#070}"
        "code{background:#f4f4f4;padding:1px 3px}img{max-width:100%}</style></head><body>",
        "<h1>The seeds' evaluations, reproduced</h1>",
        f"<p>Form: <b>{e(form)}</b> ({'short runs, same shapes' if form == 'quick' else 'the seeds’ sample counts'}). "
        "Each section: the seed's figure or table in its form, the seed's published numbers with its platform, ours "
        "beside them, the command, the board and the time base. Raw samples (CSV) and each benchmark's JSON are in "
        "<code>data/</code>.</p>" + ("<p><b>This is the quick form:</b> each case runs about half a second, so every "
        "percentile and every verdict below rests on few samples; <code>make figures FIGURES=full</code> is the "
        "reproduction.</p>" if form == "quick" else ""),
        ("<p>Left out of this run (their benchmarks are too long for <code>make test</code>; <code>make figures</code> "
         "runs them): " + e(", ".join(f.id for f in left_out)) + ".</p>" if left_out else "") +
        "<h2>Contents</h2><table><tr><th>figure</th><th>what</th><th>status</th><th>in one line</th></tr>",
    ]
    for fig, s in sections:
        cls = s.status.replace(" ", "")
        line = s.outcome if s.status != "differs" else f"{s.outcome} Why: {s.why}"
        out.append(f"<tr><td><a href='#{fig.slug}'>{e(fig.id)}</a></td><td style='text-align:left'>{e(fig.title)}</td>"
                   f"<td class='{cls}'>{e(s.status)}</td><td style='text-align:left'>{e(line)}</td></tr>")
    out.append("</table><h2>Benchmark jobs</h2><table><tr><th>job</th><th>command</th><th>seconds</th><th>result</th></tr>")
    for name, j in jobs.items():
        out.append(f"<tr><td>{e(name)}</td><td style='text-align:left'><code>{e(j['command'])}</code></td>"
                   f"<td>{j['seconds']:.0f}</td><td style='text-align:left'>{e(j['result'])}</td></tr>")
    out.append("</table>")
    for fig, s in sections:
        out.append(f"<h2 id='{fig.slug}'>{e(fig.id)}: {e(fig.title)} <small class='{s.status.replace(' ', '')}'>"
                   f"({e(s.status)})</small></h2>")
        out.append(f"<p><b>The seed's form:</b> {e(fig.seed_form)}</p>")
        out.append(f"<p class='seed'><b>The seed says</b> {e(fig.seed_says)}</p>")
        out.append(f"<p class='ours'><b>Ours:</b> {e(s.outcome)}" + (f"<br><b>Why it differs:</b> {e(s.why)}" if s.why else "")
                   + "</p>")
        for img in s.images:
            out.append(f"<p><img src='{e(img.name)}' alt='{e(fig.id)}'></p>")
        if s.header:
            out.append("<table><tr>" + "".join(f"<th>{e(str(h))}</th>" for h in s.header) + "</tr>")
            for row in s.rows:
                out.append("<tr>" + "".join(f"<td>{e(fmt(v))}</td>" for v in row) + "</tr>")
            out.append("</table>")
        for n in s.notes:
            out.append(f"<p>{e(n)}</p>")
        if s.commands:
            out.append("<p><b>Command:</b> " + ", ".join(f"<code>{e(c)}</code>" for c in s.commands) + "</p>")
        if s.board:
            out.append(f"<p><b>Board:</b> {e(s.board)}. <b>Time base:</b> {e(s.time_base)}.</p>")
    out.append("</body></html>")
    return "\n".join(out)


def fmt(v) -> str:
    if isinstance(v, float):
        if v != v:
            return "–"
        return f"{v:,.1f}" if abs(v) >= 10 else f"{v:.2f}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


DRAWING: tuple[list[catalog.Figure], Context] = ([], None)  # what draw_one draws (set before the workers fork)


def draw_one(i: int) -> Section:
    figures, ctx = DRAWING
    try:
        return figures[i].draw(ctx)
    except Exception as e:  # a figure that cannot be drawn is named on the page, the others still are
        traceback.print_exc()
        return Section(status="not run", outcome=f"could not be drawn: {type(e).__name__}: {e}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--form", choices=("quick", "full"), default="quick")
    ap.add_argument("--only", default="", help="comma-separated figure ids (e.g. 3.9,4.2) or job names")
    ap.add_argument("--test", action="store_true", help="leave out the figures whose jobs are too long for make test")
    ap.add_argument("--draw-only", action="store_true", help="redraw from the data already written")
    ap.add_argument("--out", type=Path, default=ROOT / "build" / "report" / "figures")
    args = ap.parse_args(argv)
    wanted = [w.strip() for w in args.only.split(",") if w.strip()]
    figures = [f for f in FIGURES if not wanted or any(w == f.id.split()[-1] or w == f.slug or w in f.jobs
                                                        for w in wanted)]
    left_out = [f for f in figures if args.test and not all(JOBS[j].in_test for j in f.jobs)]
    figures = [f for f in figures if f not in left_out]
    if not figures:
        print(f"figures: no figure matches --only {args.only!r} (ids: "
              f"{', '.join(f.id.split()[-1] for f in FIGURES)}; jobs: {', '.join(JOBS)})", file=sys.stderr)
        return 2
    data = args.out / "data"
    logs = args.out / "logs"
    data.mkdir(parents=True, exist_ok=True)
    logs.mkdir(parents=True, exist_ok=True)
    needed = list(dict.fromkeys(j for f in figures for j in f.jobs))
    jobs: dict[str, dict] = {}
    failed = False
    for job in catalog.plan(needed, args.form):
        name = job.name
        if args.draw_only:
            jobs[name] = {"command": " ".join(job.command(args.form)), "seconds": 0, "result": "not run (--draw-only)"}
            continue
        ok, seconds, why = run_job(job, args.form, data, logs / f"{name}.log")
        jobs[name] = {"command": " ".join(job.command(args.form)), "seconds": seconds, "result": "ok" if ok else why}
        print(f"figures: {name}: {'ok' if ok else why} ({seconds:.0f} s)", flush=True)
        failed |= not ok
    ctx = Context(data=data, out=args.out, form=args.form)
    draw.DPI = 72 if args.form == "quick" else 100
    drawing = time.monotonic()
    # Each figure draws on its own (matplotlib is CPU-bound): one worker per CPU, forked with
    # matplotlib already imported; the sections come back in the catalogue's order.
    global DRAWING
    DRAWING = (figures, ctx)
    workers = min(len(figures), len(os.sched_getaffinity(0)))
    if workers > 1:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            drawn = pool.map(draw_one, range(len(figures)), chunksize=1)
    else:
        drawn = [draw_one(i) for i in range(len(figures))]
    sections = []
    for fig, s in zip(figures, drawn):
        if s.status == "not run":
            failed = True
        sections.append((fig, s))
        print(f"figures: {fig.id}: {s.status}: {s.outcome}", flush=True)
    draw_seconds = time.monotonic() - drawing
    index = args.out / "index.html"
    index.write_text(page(sections, args.form, jobs, left_out))
    # The same contents as data, for tests and tools: one entry per figure.
    summary = {"form": args.form, "test": args.test, "left_out": [f.id for f in left_out], "jobs": jobs,
               "draw_seconds": round(draw_seconds, 1), "figures": [
        {"id": f.id, "slug": f.slug, "title": f.title, "jobs": list(f.jobs), "status": s.status, "outcome": s.outcome,
         "why": s.why, "images": [i.name for i in s.images], "header": s.header, "rows": s.rows, "commands": s.commands,
         "board": s.board, "time_base": s.time_base} for f, s in sections]}
    (args.out / "index.json").write_text(json.dumps(summary, indent=1, default=str))
    print(f"figures: wrote {index}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
