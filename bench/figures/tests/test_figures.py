"""Shape of every reproduction's quick form: each figure drawn, its rows, its fields, its raw
samples (as many as the row counted), its plot file. No timing threshold: figures are judged on
the page, not here."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from catalog import FIGURES, JOBS
from data import Result, read_csv

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def section(summary: dict, fig_id: str) -> dict:
    found = [f for f in summary["figures"] if f["id"] == fig_id]
    assert found, f"{fig_id} has no section on the page"
    return found[0]


@pytest.mark.parametrize("fig", FIGURES, ids=[f.slug for f in FIGURES])
def test_every_figure_is_drawn_with_its_table_command_board_and_time_base(quick_run: Path, summary: dict, fig):
    if fig.id in summary.get("left_out", []):
        pytest.skip(f"{fig.id}: its benchmarks are too long for make test (figures.py --test)")
    s = section(summary, fig.id)
    assert s["status"] in ("reproduced", "differs"), f"{fig.id}: {s['status']}: {s['outcome']}"
    assert s["outcome"], f"{fig.id} says nothing of the seed's outcome"
    if s["status"] == "differs":
        assert s["why"], f"{fig.id} differs without saying why"
    assert s["images"] or fig.id.startswith("Table"), f"{fig.id} drew no plot"
    for name in s["images"]:
        png = quick_run / name
        assert png.is_file() and png.read_bytes()[:8] == PNG_MAGIC, f"{fig.id}: {png} is not a PNG"
    assert s["header"] and s["rows"], f"{fig.id} has no table"
    assert all(len(r) == len(s["header"]) for r in s["rows"]), f"{fig.id}: a row's width differs from its header's"
    assert s["commands"] and s["board"] and s["time_base"], f"{fig.id} lacks its command, board or time base"
    html = (quick_run / "index.html").read_text()
    assert f"id='{fig.slug}'" in html


@pytest.mark.parametrize("job", [j for j in JOBS.values() if j.latency and j.name in {n for f in FIGURES for n in f.jobs}],
                         ids=lambda j: j.name)
def test_each_job_keeps_its_raw_samples_beside_its_json(quick_run: Path, summary: dict, job):
    if summary.get("test") and not job.in_test:
        pytest.skip(f"{job.name}: too long for make test (figures.py --test)")
    for stem in job.outputs:
        r = Result(quick_run / "data" / f"{stem}.json")
        assert r.rows, f"{stem}.json has no rows"
        for row in r.rows:
            for key in ("impl", "count", "p50_us", "p99_us", "max_us", "run"):
                assert key in row, f"{stem}: a row lacks {key}: {row}"
            if "samples" in row:
                cols = read_csv(r.path.parent / row["samples"])
                kept = len(next(iter(cols.values())))
                assert kept == row["count"] - row.get("samples_not_kept", 0), \
                    f"{stem}: {row['samples']} keeps {kept} samples, the row counted {row['count']}"


# ---------------------------------------------------------------- per benchmark: the seed's workload and form

def result(quick_run: Path, stem: str) -> Result:
    return Result(quick_run / "data" / f"{stem}.json")


def test_looper_runs_the_seeds_workload_twice_with_worst_cases(quick_run: Path):
    r = result(quick_run, "looper")
    assert r.doc["runs"] == 2 and "--runs 2" in r.command
    for run in (1, 2):
        for impl in ("rtdroid", "fifo"):
            for n in (0, 300):
                row = r.one(run, impl=impl, high_period_ms=100, noise_threads=n)
                assert row and row.get("samples"), f"run {run}: no {impl} row at N={n} with samples"
                cols = read_csv(r.path.parent / row["samples"])
                assert set(cols) == {"t_ns", "latency_ns"}
    wc = r.worst_case(impl="rtdroid", high_period_ms=100, noise_threads=300)
    assert wc and len(wc[0]["max_us_per_run"]) == 2 and wc[0]["max_of_max_us"] == max(wc[0]["max_us_per_run"])


def test_alarm_sets_the_high_alarm_40_ms_ahead_with_a_pool_of_3(quick_run: Path):
    r = result(quick_run, "alarm")
    notes = " ".join(r.doc["notes"])
    assert "40 ms ahead" in notes and "3 pool threads" in notes
    for impl, strategy in (("rtdroid", "bound"), ("rtdroid", "pooled"), ("fifo", "serial")):
        for n in (0, 100):
            row = r.one(impl=impl, strategy=strategy, low_alarms=n)
            assert row and row["rounds"] > 0, f"no {impl}/{strategy} row at N={n}"
            assert set(read_csv(r.path.parent / row["samples"])) == {"t_ns", "delivery_ns", "fire_ns"}


def test_the_summary_lists_every_figure_once(summary: dict):
    ids = [f["id"] for f in summary["figures"]]
    left_out = summary.get("left_out", [])
    assert ids == [f.id for f in FIGURES if f.id not in left_out]
    # only the figures whose jobs make test cannot afford are left out, and only in the --test form
    assert left_out == ([f.id for f in FIGURES if not all(JOBS[j].in_test for j in f.jobs)] if summary.get("test") else [])
    assert summary["form"] == "quick"


def test_channel_events_break_every_event_down_under_each_noise_and_payload(quick_run: Path):
    r = result(quick_run, "channel-events")
    for kind in ("message", "intent"):
        for noise in ("none", "heap", "pi", "message"):
            row = r.one(channel=kind, noise=noise, payload_bytes=64)
            assert row and row["count"] > 0, f"no {kind} row under {noise} noise"
            cols = read_csv(r.path.parent / row["samples"])
            assert list(cols) == ["t_ns", "alloc_ns", "passing_ns", "switch_ns", "callback_ns"]
    sizes = sorted(x["payload_bytes"] for x in r.select(channel="bulk"))
    assert sizes[0] == 64 and sizes[-1] >= 1 << 20 and len(sizes) >= 4
    assert "every 100 ms" in " ".join(r.doc["notes"])


def test_sensor_runs_the_seeds_noise_kinds_twice_with_raw_frames(quick_run: Path):
    r = result(quick_run, "sensor")
    assert r.doc["runs"] == 2
    for impl in ("rtdroid", "fifo"):
        for noise, n in (("none", 0), ("memory", 30), ("computation", 30)):
            row = r.one(impl=impl, noise=noise, noise_threads=n)
            assert row and row["count"] > 0, f"no {impl} row under {n} {noise} threads"
            assert list(read_csv(r.path.parent / row["samples"])) == ["t_ns", "latency_ns"]
        assert r.worst_case(impl=impl, noise="memory", noise_threads=30)


def test_sensor_papabench_splits_each_delivery_on_both_cells_over_two_runs(quick_run: Path, summary: dict):
    if summary.get("test"):
        pytest.skip("sensor-papabench is too long for make test: make figures runs it")
    for stem, impl in (("sensor-papabench", "rtdroid"), ("sensor-papabench-android", "android")):
        r = result(quick_run, stem)
        assert r.doc["runs"] == 2
        for run in (1, 2):
            for noise, n in (("none", 0), ("memory", 5), ("computation", 5), ("listeners", 5)):
                row = r.one(run, impl=impl, noise=noise, noise_threads=n)
                assert row and row["count"] == 10, f"{stem}: run {run} has no {noise} x{n} row of 10 deliveries"
                cols = read_csv(r.path.parent / row["samples"])
                assert list(cols) == ["t_ns", "e2e_ns", "buffering_ns", "delivery_ns"]
                assert all(e == b + d for e, b, d in zip(cols["e2e_ns"], cols["buffering_ns"], cols["delivery_ns"]))
                assert row["max_us"] * 1e3 >= max(cols["e2e_ns"]) * 0.99


def test_intents_sweep_k_nrt_over_both_paths_and_keep_each_intents_delay(quick_run: Path):
    r = result(quick_run, "intents")
    for path, impls in (("ams", ("fifo", "foreground", "priority")), ("lbm", ("fifo", "priority"))):
        for impl in impls:
            for k in (10, 100):
                row = r.one(impl=impl, path=path, k_nrt=k)
                assert row and row["sent"] == 50, f"no {impl} {path} row at k_nrt={k}"
                cols = read_csv(r.path.parent / row["samples"])
                assert list(cols) == ["intent", "delay_ns"] and len(cols["intent"]) == row["count"]


def test_tasks_keep_every_release_of_each_version_with_its_statistics(quick_run: Path):
    for stem, impls in (("tasks", ("rtdroid", "rtsj")), ("tasks-android", ("android",))):
        r = result(quick_run, stem)
        for impl in impls:
            for app, releases in (("cochlear", 60), ("papabench", 12)):
                row = r.one(impl=impl, app=app)
                assert row and row["count"] == releases, f"{stem}: no {app} row of {impl} with {releases} releases"
                for key in ("mean_us", "sd_us", "deadline_misses"):
                    assert key in row, f"{stem}: {impl} {app} lacks {key}"
                assert list(read_csv(r.path.parent / row["samples"])) == ["release_ns", "start_ns", "duration_ns"]
    assert r.one(impl="android", app="papabench")["task"] == "stabilization"


def test_lines_of_code_are_counted_for_each_application_and_type_of_code(quick_run: Path, summary: dict):
    r = result(quick_run, "loc")
    assert r.doc["tool"].startswith("cloc "), "Table 4.3 is not counted by cloc"
    kinds = {(row["app"], row["code"]) for row in r.rows}
    assert kinds == {(a, c) for a in ("cochlear", "papabench") for c in ("common", "rtsj", "rtdroid")}
    cochlear = {row["code"]: row for row in r.rows if row["app"] == "cochlear"}
    assert all(cochlear[c]["sloc"] > 0 for c in cochlear), "a cochlear version counted no line"
    assert cochlear["rtdroid"]["manifest"] > 0 and cochlear["rtsj"]["manifest"] == 0
    assert cochlear["rtsj"]["syn"] > 0, "the RTSJ-style cochlear implant's monitors were not counted"
    assert len(section(summary, "Table 4.3")["rows"]) == 6
