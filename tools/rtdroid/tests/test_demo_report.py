"""The `make run` report's model-against-reality figures (tools/demo/report.py)."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "demo"))
import report  # noqa: E402

ROWS = [
    {"name": "cochlear/RecordingService", "worst_response_nanos": 0, "analysed_wcrt_nanos": None},
    {"name": "cochlear/RecordingService/recordingTask", "releases": 3000, "worst_lateness_nanos": 61000,
     "worst_response_nanos": 1_254_456, "analysed_wcrt_nanos": 1_000_000, "worst_execution_nanos": 1_204_000,
     "analysed_cost_nanos": 1_000_000, "cost_overruns": 4, "last_cost_overrun": 31},
    {"name": "cochlear/OutputReceiver", "worst_response_nanos": 23456, "analysed_wcrt_nanos": 3_000_000,
     "worst_execution_nanos": 20_100, "analysed_cost_nanos": 1_000_000, "cost_overruns": 0},
    {"name": "other/Sensor/sample", "worst_response_nanos": 5000, "analysed_wcrt_nanos": None},
]


def test_each_task_shows_its_measured_worst_response_beside_the_analysed_wcrt():
    rows = report.with_response_times(ROWS)
    assert (rows[1]["worst_lateness_us"], rows[1]["worst_response_us"], rows[1]["analysed_wcrt_us"]) == \
        (61.0, 1254.5, 1000.0)
    assert rows[0]["analysed_wcrt_us"] == "not analysed"
    assert report.response_lines(rows) == [
        "cochlear/RecordingService/recordingTask: worst response 1254.5 µs, analysed WCRT 1000.0 µs; worst "
        "execution 1204.0 µs of a 1000.0 µs cost; 4 of 3000 releases used more CPU time than the 1000.0 µs the "
        "analysis assumed (worst 1204.0 µs), the last at release 31: the analysed WCRT did not bound them; worst response 1254.5 µs > analysed WCRT 1000.0 µs: its release lateness (worst 61.0 µs, the "
        "kernel's wake-up included) counts in the analysis only as the jitter its manifest declares; some releases "
        "used more CPU time than the declared cost",
        "cochlear/OutputReceiver: worst response 23.5 µs, analysed WCRT 3000.0 µs; worst execution 20.1 µs of a "
        "1000.0 µs cost",
        "other/Sensor/sample: worst response 5.0 µs, analysed WCRT not analysed; worst execution 0.0 µs"]
    assert (rows[3]["analysed_cost_us"], rows[3]["cost_overruns"]) == ("none declared", 0)


def test_the_html_report_carries_both_columns(tmp_path):
    index = report.write_report({"board": "host", "services": report.with_response_times(ROWS)}, tmp_path)
    page = index.read_text()
    assert "<th>worst_response_us</th><th>analysed_wcrt_us</th><th>worst_execution_us</th>" in page
    assert "<td>1204.0</td><td>1000.0</td><td>4</td><td>31</td>" in page
    assert "<td>1254.5</td><td>1000.0</td>" in page and "<td>not analysed</td>" in page
