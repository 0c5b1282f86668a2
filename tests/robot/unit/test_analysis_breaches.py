"""What in `rt services` rows breaks the admission analysis (RtCellLibrary: RT App Should Hold Its Analysis)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "libraries"))
import RtCellLibrary as lib  # noqa: E402

TASK = {"name": "cochlear/RecordingService/recordingTask", "worst_lateness_nanos": 6_000,
        "worst_response_nanos": 626_700, "analysed_wcrt_nanos": 1_000_000, "worst_execution_nanos": 618_000,
        "analysed_cost_nanos": 1_000_000, "cost_overruns": 0, "last_cost_overrun": None}


def test_rows_within_their_analysis_break_nothing():
    unanalysed = {"name": "cochlear/RecordingService", "worst_response_nanos": 9_000_000,
                  "analysed_wcrt_nanos": None, "analysed_cost_nanos": None, "cost_overruns": 0}
    assert lib.analysis_breaches([TASK, unanalysed]) == ([], [])


def test_a_cost_overrun_and_a_response_over_the_wcrt_are_each_named():
    row = {**TASK, "worst_response_nanos": 1_843_200, "worst_lateness_nanos": 451_100,
           "worst_execution_nanos": 1_806_300, "cost_overruns": 17, "last_cost_overrun": 17}
    row["releases"] = 3000
    assert lib.analysis_breaches([row]) == (
        ["cochlear/RecordingService/recordingTask: 17 of 3000 releases used more CPU time than the 1000.0 us the "
         "analysis assumed (worst 1806.3 us), the last at release 17: the analysed WCRT did not bound them"],
        ["cochlear/RecordingService/recordingTask: worst response 1843.2 us > analysed WCRT 1000.0 us: its release "
         "lateness (worst 451.1 us, the kernel's wake-up included) counts in the analysis only as the jitter its "
         "manifest declares; some releases used more CPU time than the declared cost"])
