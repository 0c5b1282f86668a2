"""tools/loop.py: a run's row from make run's result.json, and the loop's summary."""
import importlib.util
from pathlib import Path

spec = importlib.util.spec_from_file_location("loop", Path(__file__).resolve().parents[2] / "loop.py")
loop = importlib.util.module_from_spec(spec)
spec.loader.exec_module(loop)

CLOCK = {"kind": "virtual", "label": "virtual time (QEMU icount shift=0: 1000 M instructions/s)"}


def service(name, releases=0, misses=0, response=0.0, failure=None):
    return {"name": name, "releases": releases, "deadline_misses": misses, "worst_lateness_us": 1.0,
            "worst_response_us": response, "worst_execution_us": response / 2, "cost_overruns": 0,
            "failure": failure}


def result(misses=0, response=700.0):
    return {"started": "t", "rt_clock": CLOCK, "services": [
        service("cochlear/ProcessingService"),  # a component: no row of its own
        service("cochlear/ProcessingService/processingTask", 2500, misses, response),
        service("cochlear/RecordingService/recordingTask", 2500, 0, 650.0)]}


def test_a_row_counts_the_tasks_releases_and_every_miss():
    row = loop.run_row(3, result(misses=2, response=8100.0), 0, 61.2)
    assert row["run"] == 3 and row["releases"] == 5000 and row["deadline_misses"] == 2
    assert set(row["tasks"]) == {"cochlear/ProcessingService/processingTask", "cochlear/RecordingService/recordingTask"}
    assert row["tasks"]["cochlear/ProcessingService/processingTask"]["worst_response_us"] == 8100.0
    assert row["rt_clock"].startswith("virtual time")


def test_a_run_that_wrote_no_result_is_a_failed_run():
    row = loop.run_row(1, {}, 2, 5.0)
    s = loop.summary("b", [row])
    assert s["runs_failed"] == [1] and s["releases"] == 0


def test_the_summary_keeps_each_tasks_worst_over_all_runs_and_names_the_runs_with_misses():
    rows = [loop.run_row(1, result(), 0, 60), loop.run_row(2, result(misses=1, response=9000.0), 0, 60),
            loop.run_row(3, result(response=800.0), 0, 60)]
    s = loop.summary("qemu-x86_64", rows)
    assert s["runs"] == 3 and s["deadline_misses"] == 1 and s["runs_with_misses"] == [2]
    t = s["tasks"]["cochlear/ProcessingService/processingTask"]
    assert t["releases"] == 7500 and t["worst_response_us"] == 9000.0
    assert s["runs_failed"] == []
