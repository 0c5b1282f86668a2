"""`rtdroid characterise`: the datasheet of both cells of the board that is up, the way seeds 002
("Applying Android OS to real-time applications") and 003 (jRate's RTJPerf) characterise a
platform.

- RT cell: the agent runs the native probe (rt-cell/probes: calibration, thread switch, interrupt
  dispatch, sustained interrupt frequency, semaphore, mutex with and without priority
  inheritance, hygiene) and RTJPerf in its own runtime (allocation time, event handler dispatch,
  priority inversion), over the management ring (bridge/docs/protocols.md, "Probes");
- Android cell: the same native probe, run here on the Android cell's CPU with the scheduling its
  threads get (SCHED_OTHER where the board keeps them so, `realtime_threads: false`).

Times are each cell's clock: the host's, or an emulated RT cell's virtual time (QEMU -icount),
labelled as such. The rows, the goals (issue 34's benchmarks, baselines from the same run) and the
board file's budgets (`characterise:`) go to build/characterise/<board>.json; charreport draws the
page build/report/characterise-<board>.html. Nothing the probes start outlives them.
"""
from __future__ import annotations

import concurrent.futures
import datetime
import json
import subprocess
import sys
import time
from pathlib import Path

from . import lifecycle, paths, probes
from .boardconfig import load_board

PROBE_TIMEOUT_S = {True: 600.0, False: 3600.0}  # quick, full: the wait for one probe's end


class CharacteriseError(RuntimeError):
    pass


def say(text: str) -> None:
    print(f"characterise: {text}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------ running the probes

def run(board_name: str | None, quick: bool) -> dict:
    state = lifecycle.current_state(board_name)
    board = load_board(state["board"])
    roles = {c.get("role") for c in state["cells"].values()}
    if roles != {"rt", "android"}:
        raise CharacteriseError(f"board {state['board']} must have both cells up (it has: {', '.join(sorted(roles))})")
    spec = board.data.get("characterise", {})
    hygiene = spec.get("hygiene", {})
    rt_clock = state.get("rt_clock", {"kind": "host"})
    doc = {"board": board.name, "started": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "quick": quick, "command": "rtdroid characterise --board " + board.name + (" --quick" if quick else ""),
           "cells": {"rt": {"time_base": clock_label(rt_clock), "virtual": rt_clock.get("kind") == "virtual",
                            "emulated": rt_cpu_emulated(board.data["hypervisor"], rt_clock),
                            "cpus": board.rt["cpus"]},
                     "android": {"time_base": "host clock", "virtual": False, "cpus": board.android["cpus"]}},
           "rows": []}
    region = state["region"]["path"]
    from xcc import mgmt
    mode = "--quick " if quick else ""
    native_args = mode + "all" + _hygiene_args(hygiene.get("rt", {}))
    if spec.get("rt_interrupt_device"):
        native_args += " --rtc " + spec["rt_interrupt_device"]
    for kind, args in (("native", native_args), ("jvm", mode + "all")):
        say(f"RT cell: {kind} probe ({args}); {doc['cells']['rt']['time_base']}")
        t0 = time.monotonic()
        result, output = mgmt.run_probe(region, kind, args, timeout=PROBE_TIMEOUT_S[quick])
        doc["cells"]["rt"][kind] = {"result": result.name, "text": result.text,
                                    "host_seconds": round(time.monotonic() - t0, 1)}
        if result.code != 0:
            raise CharacteriseError(f"RT cell {kind} probe: {result.name} ({result.code}): {result.text}")
        doc["rows"] += _rows(output, "rt", kind)
    for source, why in spec.get("unavailable_interrupts", {}).items():
        # what the board file says is not timed here, and why: a row, not an absence
        doc["rows"].append({"test": "irq", "source": source, "policy": "-", "unavailable": why, "cell": "rt", "probe": "board"})
    android = board.android
    policy = "fifo" if android.get("realtime_threads", True) else "other"
    exe = probes.native()
    if not exe.is_file():
        raise CharacteriseError(f"{exe} missing (make c builds it)")
    argv = [str(exe), "--cpu", str(android["cpus"][0]), "--policy", policy] + (["--quick"] if quick else []) + ["all"]
    argv += _hygiene_args(hygiene.get("android", {})).split()
    pid = _android_pid(state)
    if pid:
        argv += ["--oom-pid", str(pid)]
    say(f"Android cell: native probe on CPU {android['cpus'][0]} at {policy.upper()} ({'quick' if quick else 'full'}); host clock")
    t0 = time.monotonic()
    # the probe's own threads all end with it: it is a process that exits
    p = subprocess.run(argv, capture_output=True, text=True, timeout=PROBE_TIMEOUT_S[quick])
    doc["cells"]["android"]["native"] = {"result": "OK" if p.returncode == 0 else "PROBE_FAILED",
                                         "text": f"exit {p.returncode}", "host_seconds": round(time.monotonic() - t0, 1),
                                         "policy": policy}
    if p.returncode != 0:
        said = (p.stderr.strip().splitlines() or ["it wrote nothing on stderr"])[-1]
        raise CharacteriseError(f"Android cell probe: exit {p.returncode}: {said}")
    doc["rows"] += _rows(p.stdout.encode(), "android", "native")
    doc["goals"] = goals(doc)
    doc["budgets"] = budgets(doc, spec.get("budgets", {}))
    return doc


# ------------------------------------------------------------------ the long sustained-frequency run

# The periods of the seed's long table (10,000,000 interrupts each; none lost from 410 us there).
SEED_LONG_PERIODS_US = (310, 330, 350, 370, 390, 410)
SEED_LONG_COUNT = 10_000_000
# One probe run's share of a long series, in its cell's time: the RT cell agent ends a probe after
# 30 min, so a series longer than this runs as consecutive parts (the timer re-armed between them).
PART_SECONDS = 600


def parts(count: int, period_us: int) -> list[int]:
    """The interrupts of each probe run that together make ``count`` at ``period_us``."""
    per = max(1, PART_SECONDS * 1_000_000 // period_us)
    return [min(per, count - done) for done in range(0, count, per)]


def run_sustained(board_name: str | None, count: int, periods_us: list[int]) -> dict:
    """The seed's long sustained interrupt frequency series: ``count`` timer interrupts at each of
    ``periods_us`` in both cells at once (each on its own CPU), the lost ones counted; one row per
    cell and period, summed over the parts it ran as."""
    state = lifecycle.current_state(board_name)
    board = load_board(state["board"])
    rt_clock = state.get("rt_clock", {"kind": "host"})
    android = board.android
    policy = "fifo" if android.get("realtime_threads", True) else "other"
    exe = probes.native()
    if not exe.is_file():
        raise CharacteriseError(f"{exe} missing (make c builds it)")
    region = state["region"]["path"]
    from xcc import mgmt
    doc = {"board": board.name, "started": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "command": f"rtdroid characterise --board {board.name} --sustained {count} --periods-us "
                      + ",".join(map(str, periods_us)),
           "cells": {"rt": {"time_base": clock_label(rt_clock), "cpus": board.rt["cpus"]},
                     "android": {"time_base": "host clock", "cpus": android["cpus"], "policy": policy}},
           "rows": []}

    def rt_part(n: int, period: int) -> list[dict]:
        args = f"--irq-count {n} --irq-periods-us {period} irqrate"
        # the stall timeout covers the whole part: its rows come at its end (emulated cells run slower)
        result, output = mgmt.run_probe(region, "native", args, timeout=n * period / 1e6 * 6 + 600)
        if result.code != 0:
            raise CharacteriseError(f"RT cell native probe ({args}): {result.name} ({result.code}): {result.text}")
        return _rows(output, "rt", "native")

    def android_part(n: int, period: int) -> list[dict]:
        argv = [str(exe), "--cpu", str(android["cpus"][0]), "--policy", policy, "--irq-count", str(n),
                "--irq-periods-us", str(period), "irqrate"]
        p = subprocess.run(argv, capture_output=True, text=True, timeout=n * period / 1e6 * 2 + 600)
        if p.returncode != 0:
            said = (p.stderr.strip().splitlines() or ["it wrote nothing on stderr"])[-1]
            raise CharacteriseError(f"Android cell probe: exit {p.returncode}: {said}")
        return _rows(p.stdout.encode(), "android", "native")

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        for period in periods_us:
            say(f"{count:,} interrupts every {period} us in both cells ({len(parts(count, period))} part(s) each, "
                f"~{count * period / 6e7:.0f} min)")
            sums = {}
            for n in parts(count, period):
                futures = {cell: pool.submit(part, n, period) for cell, part in (("rt", rt_part), ("android", android_part))}
                for cell, f in futures.items():
                    for r in f.result():
                        s = sums.setdefault(cell, dict(r, generated=0, lost=0, taken=0, elapsed_ns=0, parts=0))
                        for k in ("generated", "lost", "taken", "elapsed_ns"):
                            s[k] += r.get(k, 0)
                        s["parts"] += 1
            for cell in ("rt", "android"):
                doc["rows"].append(dict(sums[cell], sustained=True))
                say(f"  {cell}: {sums[cell]['generated']:,} generated, {sums[cell]['lost']:,} lost")
    return doc


def sustained_summary(doc: dict) -> str:
    lines = [f"{doc['board']}: sustained interrupt frequency (the seed's long table); RT cell in "
             f"{doc['cells']['rt']['time_base']}, Android cell in host clock",
             f"  {'cell':<8} {'period':>8} {'generated':>12} {'lost':>8} {'parts':>5}"]
    for r in doc["rows"]:
        lines.append(f"  {r['cell']:<8} {r['period_ns'] // 1000:>5} us {r['generated']:>12,} {r['lost']:>8,} {r['parts']:>5}")
    return "\n".join(lines)


# The hypervisors whose RT cell runs on QEMU's CPU, emulated here (TCG) unless QEMU got KVM.
EMULATING = ("qemu", "xen")


def rt_cpu_emulated(hypervisor: str, rt_clock: dict) -> bool:
    """Whether the RT cell's CPU is emulated (its figures emulation timing, in whatever clock),
    while the Android cell runs on the host's real CPU: then the cells are shown side by side, not
    compared (issue 34 compares them on the host board)."""
    return hypervisor in EMULATING and "KVM" not in clock_label(rt_clock)


def clock_label(clock: dict) -> str:
    return clock.get("label") or ("virtual time" if clock.get("kind") == "virtual" else "host clock")


def _hygiene_args(policy: dict) -> str:
    out = ""
    if "cpufreq_governor" in policy:
        out += f" --set-governor {policy['cpufreq_governor']}"
    if "sched_rt_runtime_us" in policy:
        out += f" --set-rt-runtime-us {policy['sched_rt_runtime_us']}"
    if "oom_score_adj" in policy:
        out += f" --set-oom-score-adj {policy['oom_score_adj']}"
    return out


def _android_pid(state: dict) -> int | None:
    for c in state["cells"].values():
        if c.get("role") == "android" and c.get("pid"):
            return int(c["pid"])
    return None


def _rows(output: bytes, cell: str, probe: str) -> list[dict]:
    rows = []
    for n, line in enumerate(output.decode("utf-8", "replace").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            raise CharacteriseError(f"{cell} cell {probe} probe: line {n} is not JSON: {line[:80]!r}") from None
        if not isinstance(row, dict) or "test" not in row:
            raise CharacteriseError(f"{cell} cell {probe} probe: line {n} is not a row")
        row["cell"], row["probe"] = cell, probe
        rows.append(row)
    return rows


# ------------------------------------------------------------------ goals and budgets

def find(doc: dict, cell: str, test: str, **where) -> list[dict]:
    return [r for r in doc["rows"] if r["cell"] == cell and r["test"] == test
            and all(r.get(k) == v for k, v in where.items())]


def one(doc: dict, cell: str, test: str, **where) -> dict | None:
    rows = find(doc, cell, test, **where)
    return rows[0] if rows else None


def _ratio(a, b):
    return a / b if a is not None and b else None


def scoped_ratio(doc, memory="scoped") -> float | None:
    big, small = one(doc, "rt", "alloc", memory=memory, size_bytes=65536), one(doc, "rt", "alloc", memory=memory, size_bytes=32)
    return _ratio(big and big["time"]["p99_ns"], small and small["time"]["p99_ns"])


def pi_ratio(doc, inherit: bool) -> float | None:
    r = one(doc, "rt", "mutex", priority_inheritance=inherit)
    return _ratio(r and r["blocking"]["max_ns"], r and r["critical_section_ns"])


def pooled_ratio(doc) -> float | None:
    big, none = (one(doc, "rt", "inversion", handler="pooled", low_handlers=n) for n in (1000, 0))
    return _ratio(big and big["latency"]["p99_ns"], none and none["latency"]["p99_ns"])


POOLED_GOAL = 1.5


def pooled_goal(doc: dict) -> dict:
    """Pooled handlers' p99 among 1,000 low handlers within 1.5x their p99 among none. A p99 is one
    order statistic (the 3rd-worst of a quick run's 300 firings): on a shared host, where the
    kernel's own work on the cell's CPU (tick, RCU callbacks, other processes' block I/O) hits
    about 1 % of dispatches by tens of microseconds whatever N is, it jumps between the clean and
    the disturbed samples from one series to the next. So a ratio above the goal counts as not met
    only when the 95 % confidence intervals of the two p99s (RTJPerf's p99_ci_ns) say so too; one
    they cannot tell from the goal is shown, not judged, with the intervals."""
    text = "pooled handlers: dispatch p99 among 1,000 low handlers within 1.5x among none"
    big, none = (one(doc, "rt", "inversion", handler="pooled", low_handlers=n) for n in (1000, 0))
    p = pooled_ratio(doc)
    if p is None or p <= POOLED_GOAL:
        return _goal(text, _fmt(p), None if p is None else True)
    big_ci, none_ci = big["latency"].get("p99_ci_ns"), none["latency"].get("p99_ci_ns")
    if not big_ci or not none_ci or big_ci[0] > POOLED_GOAL * none_ci[1]:
        return _goal(text, _fmt(p), False)
    return _goal(text, f"{_fmt(p)}, within the p99s' 95 % confidence intervals "
                       f"({big_ci[0] / 1e3:.1f}-{big_ci[1] / 1e3:.1f} us among 1,000 vs "
                       f"{none_ci[0] / 1e3:.1f}-{none_ci[1] / 1e3:.1f} us among none, "
                       f"{big['latency']['n']} firings each): not judged", None)


def lost_at(doc, period_us: int) -> int | None:
    r = one(doc, "rt", "irqrate", source="timer", period_ns=period_us * 1000)
    return None if r is None else r["lost"]


def _goal(text: str, measured: str, met) -> dict:
    return {"text": text, "measured": measured, "met": met}


def _fmt(x, unit="x") -> str:
    return "n/a" if x is None else f"{x:.2f}{unit}"


def goals(doc: dict) -> list[dict]:
    """Issue 34's benchmarks, each against its baseline in this run; reported, met or not."""
    out = []
    s, h = scoped_ratio(doc), scoped_ratio(doc, "heap")
    out.append(_goal("scoped allocation p99 at 64 KiB within 1.5x its p99 at 32 B (heap beside it)",
                     f"scoped {_fmt(s)}, heap {_fmt(h)}", None if s is None else s <= 1.5))
    pi, nopi = pi_ratio(doc, True), pi_ratio(doc, False)
    out.append(_goal("PI: the high waiter's worst blocking within 1.2x the critical section",
                     _fmt(pi), None if pi is None else pi <= 1.2))
    out.append(_goal("no PI: the high waiter's worst blocking at least 10x the critical section",
                     _fmt(nopi), None if nopi is None else nopi >= 10))
    out.append(pooled_goal(doc))
    rt_cell = doc["cells"]["rt"]
    apart = (" (different time bases)" if rt_cell["virtual"]
             else " (the RT cell's CPU emulated)" if rt_cell.get("emulated") else "")
    comparable = not apart
    for n in (2, 10, 128, 1000):
        rt, an = one(doc, "rt", "switch", threads=n), one(doc, "android", "switch", threads=n)
        if rt and an and "latency" in rt and "latency" in an:
            a, b = rt["latency"]["p99_ns"], an["latency"]["p99_ns"]
            out.append(_goal(f"thread switch, {n} threads: RT cell p99 below the Android cell's",
                             f"{a / 1000:.1f} us vs {b / 1000:.1f} us" + apart,
                             (a < b) if comparable else None))
    rt, an = one(doc, "rt", "irq", source="timer"), one(doc, "android", "irq", source="timer")
    if rt and an:
        for q in ("p99_ns", "max_ns"):
            a, b = rt["latency"][q], an["latency"][q]
            out.append(_goal(f"timer interrupt dispatch {q[:-3]}: RT cell below the Android cell",
                             f"{a / 1000:.1f} us vs {b / 1000:.1f} us" + apart,
                             (a < b) if comparable else None))
    return out


def budgets(doc: dict, spec: dict) -> list[dict]:
    """The board file's budgets (characterise.budgets) on the RT cell's rows: the Robot suite's verdict."""
    out = []

    def judge(name, limit, measured, ok):
        out.append({"name": name, "limit": limit, "measured": measured, "met": bool(ok) if measured is not None else False})

    if "irq_lossless_period_us" in spec:
        lost = lost_at(doc, spec["irq_lossless_period_us"])
        judge("irq_lossless_period_us", spec["irq_lossless_period_us"], lost, lost == 0)
    if "pi_blocking_ratio_max" in spec:
        r = pi_ratio(doc, True)
        judge("pi_blocking_ratio_max", spec["pi_blocking_ratio_max"], r, r is not None and r <= spec["pi_blocking_ratio_max"])
    if "no_pi_blocking_ratio_min" in spec:
        r = pi_ratio(doc, False)
        judge("no_pi_blocking_ratio_min", spec["no_pi_blocking_ratio_min"], r,
              r is not None and r >= spec["no_pi_blocking_ratio_min"])
    if "scoped_alloc_p99_ratio_max" in spec:
        r = scoped_ratio(doc)
        judge("scoped_alloc_p99_ratio_max", spec["scoped_alloc_p99_ratio_max"], r,
              r is not None and r <= spec["scoped_alloc_p99_ratio_max"])
    if "pooled_inversion_p99_ratio_max" in spec:
        r = pooled_ratio(doc)
        judge("pooled_inversion_p99_ratio_max", spec["pooled_inversion_p99_ratio_max"], r,
              r is not None and r <= spec["pooled_inversion_p99_ratio_max"])
    return out


def summary(doc: dict) -> str:
    lines = [f"{doc['board']}: RT cell in {doc['cells']['rt']['time_base']}, Android cell in host clock"]
    for cell in ("rt", "android"):
        for n in (2, 10, 128, 1000):
            r = one(doc, cell, "switch", threads=n)
            if r and "latency" in r:
                l = r["latency"]
                lines.append(f"  {cell:<8} switch {n:>4} threads  avg {l['mean_ns'] / 1000:8.1f} us  "
                             f"p99 {l['p99_ns'] / 1000:8.1f} us  max {l['max_ns'] / 1000:8.1f} us")
        for r in find(doc, cell, "irq"):
            if "latency" in r:
                l = r["latency"]
                lines.append(f"  {cell:<8} irq ({r['source']:<5})         avg {l['mean_ns'] / 1000:8.1f} us  "
                             f"p99 {l['p99_ns'] / 1000:8.1f} us  max {l['max_ns'] / 1000:8.1f} us")
    for g in doc.get("goals", []):
        verdict = "MET    " if g["met"] else "NOT MET" if g["met"] is False else "shown  "
        lines.append(f"  goal {verdict}: {g['text']} -- {g['measured']}")
    for b in doc.get("budgets", []):
        lines.append(f"  budget {'met    ' if b['met'] else 'NOT MET'}: {b['name']} {b['limit']} -- measured "
                     f"{'n/a' if b['measured'] is None else round(b['measured'], 3)}")
    return "\n".join(lines)
