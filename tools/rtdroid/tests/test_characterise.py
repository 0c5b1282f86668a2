"""`rtdroid characterise` without a board: the probes' output parsed into rows, issue 34's goals
and the board file's budgets judged from rows, unavailable and capped rows shown as such, and bad
input stopped with one line naming it. The probes themselves are stand-ins here (a shell script for
the native probe, canned rows for the RT cell's management ring); what they measure is tested on
the boards (tests/robot/suites/09_characterise)."""
from __future__ import annotations

import json
import types

import pytest

from rtdroid import characterise, charreport, cli
from rtdroid.characterise import CharacteriseError


def lat(p99, mean=None, mx=None):
    mean = p99 if mean is None else mean
    return {"n": 10, "min_ns": mean // 2, "mean_ns": mean, "std_ns": 1.0, "p50_ns": mean, "p99_ns": p99,
            "max_ns": p99 if mx is None else mx}


def row(cell, test, probe="native", **fields):
    return {"test": test, **fields, "cell": cell, "probe": probe}


def doc(virtual=False, rows=None):
    rows = rows if rows is not None else [
        row("rt", "alloc", "jvm", memory="scoped", size_bytes=32, time=lat(100)),
        row("rt", "alloc", "jvm", memory="scoped", size_bytes=65536, time=lat(120)),
        row("rt", "alloc", "jvm", memory="heap", size_bytes=32, time=lat(100)),
        row("rt", "alloc", "jvm", memory="heap", size_bytes=65536, time=lat(5000)),
        row("rt", "mutex", policy="SCHED_FIFO", priority_inheritance=True, critical_section_ns=200_000,
            hog_ns=4_000_000, blocking=lat(210_000)),
        row("rt", "mutex", policy="SCHED_FIFO", priority_inheritance=False, critical_section_ns=200_000,
            hog_ns=4_000_000, blocking=lat(4_200_000)),
        row("rt", "inversion", "jvm", handler="pooled", low_handlers=0, latency=lat(10_000)),
        row("rt", "inversion", "jvm", handler="pooled", low_handlers=1000, latency=lat(20_000)),
        row("rt", "inversion", "jvm", handler="bound", low_handlers=15, requested_low_handlers=100,
            capped_by="the cell's memory: 36 MiB available", latency=lat(9_000)),
        row("rt", "inversion", "jvm", handler="bound", low_handlers=1000, unavailable="a thread each"),
        row("rt", "switch", threads=2, policy="SCHED_FIFO", latency=lat(3_000)),
        row("android", "switch", threads=2, policy="SCHED_OTHER", latency=lat(4_000)),
        row("rt", "irq", source="timer", policy="SCHED_FIFO", latency=lat(20_000, mx=40_000)),
        row("android", "irq", source="timer", policy="SCHED_OTHER", latency=lat(140_000, mx=3_000_000)),
        row("rt", "irq", source="rtc", policy="SCHED_FIFO", unavailable="/dev/rtc0: no periodic interrupt in 1 s"),
        row("rt", "irqrate", source="timer", policy="SCHED_FIFO", period_ns=100_000, generated=1000, lost=0),
        row("rt", "irqrate", source="rtc", policy="SCHED_FIFO", period_ns=976_562, unavailable="no rtc"),
    ]
    tb = "virtual time" if virtual else "host clock"
    return {"board": "test", "started": "2026-01-01T00:00:00+00:00", "quick": True,
            "command": "rtdroid characterise --board test --quick",
            "cells": {"rt": {"time_base": tb, "virtual": virtual}, "android": {"time_base": "host clock", "virtual": False}},
            "rows": rows}


def by_text(goals, start):
    return next(g for g in goals if g["text"].startswith(start))


# ------------------------------------------------------------------ the probes' output

def test_each_line_is_a_row_tagged_with_its_cell_and_probe():
    rows = characterise._rows(b'{"test":"switch","threads":2}\n\n{"test":"jvm"}\n', "rt", "jvm")
    assert rows == [{"test": "switch", "threads": 2, "cell": "rt", "probe": "jvm"},
                    {"test": "jvm", "cell": "rt", "probe": "jvm"}]


@pytest.mark.parametrize("output,says", [
    (b'{"test":"jvm"}\n[3.677s][warning][safepoint] Safepoint sync time longer than 200ms\n',
     "rt cell jvm probe: line 2 is not JSON: '[3.677s][warning][safepoint] "),
    (b'[1, 2]\n', "rt cell jvm probe: line 1 is not a row"),
    (b'{"threads": 2}\n', "rt cell jvm probe: line 1 is not a row"),
    (b'\xff\xfe{\n', "rt cell jvm probe: line 1 is not JSON"),
])
def test_output_that_is_not_rows_is_one_error_naming_the_line(output, says):
    with pytest.raises(CharacteriseError) as e:
        characterise._rows(output, "rt", "jvm")
    assert str(e.value).startswith(says) and "\n" not in str(e.value)


# ------------------------------------------------------------------ goals and budgets

def test_goals_are_judged_against_their_baselines_in_the_same_run():
    g = characterise.goals(doc())
    assert by_text(g, "scoped allocation")["met"] is True
    assert by_text(g, "scoped allocation")["measured"] == "scoped 1.20x, heap 50.00x"
    assert by_text(g, "PI:")["met"] is True and by_text(g, "PI:")["measured"] == "1.05x"
    assert by_text(g, "no PI:")["met"] is True and by_text(g, "no PI:")["measured"] == "21.00x"
    assert by_text(g, "pooled handlers")["met"] is False and by_text(g, "pooled handlers")["measured"] == "2.00x"
    assert by_text(g, "thread switch, 2 threads")["met"] is True
    assert by_text(g, "timer interrupt dispatch p99")["met"] is True
    assert by_text(g, "timer interrupt dispatch max")["met"] is True


def pooled_rows(none, big):
    """Pooled inversion rows with their p99 and its 95 % confidence interval (ns)."""
    return [row("rt", "inversion", "jvm", handler="pooled", low_handlers=n,
                latency=dict(lat(p99), n=300, p99_ci_ns=ci)) for n, (p99, ci) in ((0, none), (1000, big))]


@pytest.mark.parametrize("none, big, met, says", [
    # the host's 9.25x: a clean baseline (3 disturbed firings of 300 at N=1000), intervals overlapping
    ((9_464, [8_900, 16_965]), (87_580, [9_800, 94_932]), None, "9.25x, within the p99s' 95 % confidence "
     "intervals (9.8-94.9 us among 1,000 vs 8.9-17.0 us among none, 300 firings each): not judged"),
    # a shift the intervals show: not met
    ((9_000, [8_900, 9_500]), (40_000, [30_000, 45_000]), False, "4.44x"),
    ((9_000, [8_900, 9_500]), (12_000, [30_000, 45_000]), True, "1.33x"),
])
def test_the_pooled_goal_is_judged_only_where_the_p99s_intervals_can_tell(none, big, met, says):
    g = by_text(characterise.goals(doc(rows=pooled_rows(none, big))), "pooled handlers")
    assert g["met"] is met and g["measured"] == says


def test_cells_in_different_time_bases_are_shown_side_by_side_not_compared():
    g = characterise.goals(doc(virtual=True))
    switch = by_text(g, "thread switch, 2 threads")
    assert switch["met"] is None and switch["measured"] == "3.0 us vs 4.0 us (different time bases)"
    assert by_text(g, "timer interrupt dispatch max")["met"] is None
    assert by_text(g, "PI:")["met"] is True  # a ratio within the RT cell: its one time base


def test_an_emulated_rt_cpu_by_the_host_clock_is_not_compared_either():
    d = doc()
    d["cells"]["rt"]["emulated"] = True
    g = characterise.goals(d)
    switch = by_text(g, "thread switch, 2 threads")
    assert switch["met"] is None and switch["measured"] == "3.0 us vs 4.0 us (the RT cell's CPU emulated)"
    assert "emulated (QEMU TCG)" in charreport.page(dict(d, goals=g), "imgs")
    assert characterise.rt_cpu_emulated("xen", {"kind": "host"})
    assert not characterise.rt_cpu_emulated("qemu", {"kind": "host", "label": "host clock (KVM: icount needs TCG)"})
    assert not characterise.rt_cpu_emulated("process", {"kind": "host"})


def test_a_goal_without_its_rows_is_not_available_never_met():
    g = characterise.goals(doc(rows=[]))
    assert [x["met"] for x in g] == [None, None, None, None]
    assert by_text(g, "PI:")["measured"] == "n/a"


def test_budgets_judge_the_rt_cells_rows_and_a_missing_row_fails():
    spec = {"irq_lossless_period_us": 100, "pi_blocking_ratio_max": 1.2, "no_pi_blocking_ratio_min": 30,
            "scoped_alloc_p99_ratio_max": 1.5, "pooled_inversion_p99_ratio_max": 1.5}
    b = {x["name"]: x for x in characterise.budgets(doc(), spec)}
    assert b["irq_lossless_period_us"]["met"] and b["irq_lossless_period_us"]["measured"] == 0
    assert b["pi_blocking_ratio_max"]["met"]
    assert not b["no_pi_blocking_ratio_min"]["met"]
    assert b["scoped_alloc_p99_ratio_max"]["met"]
    assert not b["pooled_inversion_p99_ratio_max"]["met"]
    missing = characterise.budgets(doc(), {"irq_lossless_period_us": 50})
    assert missing == [{"name": "irq_lossless_period_us", "limit": 50, "measured": None, "met": False}]


def test_the_summary_gives_every_verdict():
    d = doc()
    d["goals"], d["budgets"] = characterise.goals(d), characterise.budgets(d, {"irq_lossless_period_us": 100})
    text = characterise.summary(d)
    assert "goal NOT MET: pooled handlers" in text and "goal MET    : PI:" in text
    assert "budget met    : irq_lossless_period_us 100 -- measured 0" in text
    assert "rt       irq (timer)" in text and "rtc" not in text  # an unavailable source has no figures to sum up


# ------------------------------------------------------------------ the page

def test_the_page_shows_unavailable_and_capped_rows_as_such():
    d = doc(virtual=True)
    d["goals"], d["budgets"] = characterise.goals(d), []
    page = charreport.page(d, "imgs")
    assert "unavailable: /dev/rtc0: no periodic interrupt in 1 s" in page
    assert "unavailable: no rtc" in page
    assert "15 of 100 (capped by the cell&#x27;s memory: 36 MiB available)" in page
    assert "unavailable: a thread each" in page
    assert "different time bases and are shown side by side, not compared" in page
    assert "RT cell <b>virtual time</b>" in page


# ------------------------------------------------------------------ the command

def test_a_board_without_both_cells_is_refused(monkeypatch):
    monkeypatch.setattr(characterise.lifecycle, "current_state",
                        lambda name: {"board": "host", "cells": {"rt": {"role": "rt"}}})
    with pytest.raises(CharacteriseError, match="board host must have both cells up"):
        characterise.run("host", True)


def one_row(d, test):
    return next(r for r in d["rows"] if r["test"] == test)


def fake_board(monkeypatch, tmp_path, rt_output: bytes, android_script: str, code=0):
    monkeypatch.setattr(characterise.lifecycle, "current_state", lambda name: {
        "board": "host", "region": {"path": str(tmp_path / "region")},
        "cells": {"rt": {"role": "rt"}, "android": {"role": "android", "pid": 4242}}})
    calls = []

    def run_probe(region, kind, args, timeout):
        calls.append((kind, args))
        return types.SimpleNamespace(name="OK" if code == 0 else "PROBE_FAILED", code=code, text="exit 0"), rt_output

    from xcc import mgmt
    monkeypatch.setattr(mgmt, "run_probe", run_probe)
    exe = tmp_path / "rtdroid-probe"
    exe.write_text("#!/bin/sh\n" + android_script)
    exe.chmod(0o755)
    monkeypatch.setattr(characterise.probes, "native", lambda arch=None: exe)
    return calls


def test_a_run_collects_both_cells_rows_and_judges_them(monkeypatch, tmp_path):
    calls = fake_board(monkeypatch, tmp_path, b'{"test":"switch","threads":2,"latency":%s}\n' % json.dumps(lat(3000)).encode(),
                       "echo \"$@\" >&2; echo '{\"test\":\"switch\",\"threads\":2,\"latency\":%s}'\n" % json.dumps(lat(4000)))
    d = characterise.run("host", True)
    assert calls[0] == ("native", "--quick all --set-oom-score-adj -1000") and calls[1] == ("jvm", "--quick all")
    assert [(r["cell"], r["probe"]) for r in d["rows"]] == [("rt", "native"), ("rt", "jvm"), ("rt", "board"),
                                                            ("android", "native")]
    doorbell = one_row(d, "irq")
    assert doorbell["source"] == "doorbell" and "no device, so no interrupt" in doorbell["unavailable"]
    assert d["cells"]["android"]["native"]["policy"] == "other"
    assert by_text(d["goals"], "thread switch, 2 threads")["met"] is True
    assert d["budgets"] and all(b["measured"] is None and not b["met"] for b in d["budgets"])


def test_a_failing_probe_is_one_line_from_the_command(monkeypatch, tmp_path, capsys):
    fake_board(monkeypatch, tmp_path, b"", "echo 'cannot lock memory' >&2; exit 3\n")
    assert cli.main(["characterise", "--board", "host", "--no-report"]) == 1
    err = [line for line in capsys.readouterr().err.splitlines() if not line.startswith("characterise: ")]  # progress
    assert err == ["rtdroid: Android cell probe: exit 3: cannot lock memory"]


def test_a_long_series_runs_in_parts_each_a_probe_run_the_agent_allows():
    assert characterise.parts(10_000_000, 410) == [1_463_414] * 6 + [1_219_516]
    assert sum(characterise.parts(10_000_000, 310)) == 10_000_000
    assert characterise.parts(1000, 410) == [1000]
    assert max(characterise.parts(10_000_000, 5)) * 5 / 1e6 <= characterise.PART_SECONDS


def test_the_sustained_run_sums_each_cells_parts_per_period(monkeypatch, tmp_path, capsys):
    rt = b'{"test":"irqrate","source":"timer","policy":"SCHED_FIFO","period_ns":%d,"generated":%d,"lost":1,"taken":5}\n'
    calls = fake_board(monkeypatch, tmp_path, b"", "")
    from xcc import mgmt

    def run_probe(region, kind, args, timeout):
        calls.append((kind, args))
        n, period = int(args.split()[1]), int(args.split()[3])
        return types.SimpleNamespace(name="OK", code=0, text="exit 0"), rt % (period * 1000, n)

    monkeypatch.setattr(mgmt, "run_probe", run_probe)
    monkeypatch.setattr(characterise.paths, "build_dir", lambda: tmp_path / "build")
    monkeypatch.setattr(characterise, "PART_SECONDS", 1)  # 1 s parts: 3 at 400 us for 6,000 interrupts
    exe = characterise.probes.native()
    exe.write_text("#!/bin/sh\necho '{\"test\":\"irqrate\",\"source\":\"timer\",\"policy\":\"SCHED_OTHER\","
                   "\"period_ns\":400000,\"generated\":'$6',\"lost\":0,\"taken\":'$6'}'\n")
    assert cli.main(["characterise", "--board", "host", "--sustained", "6000", "--periods-us", "400"]) == 0
    assert calls == [("native", "--irq-count 2500 --irq-periods-us 400 irqrate"),
                     ("native", "--irq-count 2500 --irq-periods-us 400 irqrate"),
                     ("native", "--irq-count 1000 --irq-periods-us 400 irqrate")]
    d = json.loads((tmp_path / "build" / "characterise" / "host-sustained.json").read_text())
    assert [(r["cell"], r["period_ns"], r["generated"], r["lost"], r["parts"]) for r in d["rows"]] == [
        ("rt", 400_000, 6000, 3, 3), ("android", 400_000, 6000, 0, 3)]
    assert "  rt         400 us        6,000        3     3\n" in capsys.readouterr().out
    # the board's page, drawn again from its datasheet, shows the long run in its table
    d = doc()
    d["board"], d["goals"], d["budgets"] = "host", characterise.goals(d), []
    (tmp_path / "build" / "report").mkdir()
    (tmp_path / "build" / "characterise" / "host.json").write_text(json.dumps(d))
    monkeypatch.setattr(charreport, "plots", lambda doc, where: None)  # the page's table is what is checked
    assert cli.main(["characterise", "--board", "host", "--sustained", "6000", "--periods-us", "400"]) == 0
    page = (tmp_path / "build" / "report" / "characterise-host.html").read_text()
    assert "<td>rt, long run</td><td>timer</td><td>400" in page


def test_periods_without_the_sustained_run_are_refused(capsys):
    with pytest.raises(SystemExit, match="--periods-us is --sustained's"):
        cli.main(["characterise", "--board", "host", "--periods-us", "400"])
