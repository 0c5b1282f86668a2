"""The stall witness's record, read back (rtdroid.stallwitness)."""
from pathlib import Path

import pytest

from rtdroid import stallwitness

ROOT = Path(__file__).resolve().parents[3]

# The shape cyclictest -m -q -v prints: its banner, "thread: cycle: latency" per wake-up, and a
# summary line per thread at the end.
RECORD = """\
# /dev/cpu_dma_latency set to 0us
       0:       0:      12
       1:       0:      15
       0:       1:   20269
       1:       1:      14
       0:       2:   19300
       1:       2:    9000
       0:       3:   18200
       1:       3:      11
       0:       4:      40
       0:       5:      33
       0:       6:    7100
       0:       7:      20
T: 0 ( 6487) P:99 I:1000 C:      8 Min:     12 Act:   20 Avg: 3000 Max:   20269
T: 1 ( 6488) P:99 I:1000 C:      4 Min:     11 Act:   11 Avg: 2000 Max:    9000
"""


def test_worst_is_the_worst_summary_line():
    assert stallwitness.worst_us(RECORD) == 20269


def test_a_record_without_summary_is_an_error_that_says_so():
    with pytest.raises(ValueError, match="no summary"):
        stallwitness.worst_us("       0:       0:      12\n")


def test_late_wake_ups_in_a_row_are_one_stall_as_long_as_the_worst():
    found = stallwitness.stalls(RECORD, 6000)
    # Thread 0: cycles 1-3 are one stall (20269), cycle 6 another; thread 1: one stall.
    assert found == {0: [20269, 7100], 1: [9000]}


def test_stalls_below_the_threshold_are_not_stalls():
    assert stallwitness.stalls(RECORD, 25000) == {0: [], 1: []}


def test_one_stall_explains_ceil_stall_over_period_plus_one_per_task():
    # Two 8 ms tasks, a 20.3 ms stall: ceil(20269 / 8000) + 1 = 4 each.
    assert stallwitness.misses_explained(20269, [8000, 8000]) == 8
    assert stallwitness.misses_explained(0, [8000]) == 0


def test_every_stall_of_the_window_counts_on_the_thread_that_explains_most():
    found = stallwitness.stalls(RECORD, 6000)
    # Thread 0: 8 for 20269 µs plus 4 for 7100 µs (ceil 1 + 1, per task); thread 1: 6 for 9000 µs.
    per_task = [8000, 8000]
    t0 = stallwitness.misses_explained(20269, per_task) + stallwitness.misses_explained(7100, per_task)
    t1 = stallwitness.misses_explained(9000, per_task)
    assert (t0, t1) == (12, 6)
    assert stallwitness.misses_all_explain(found, per_task) == 12
    assert stallwitness.misses_all_explain({}, per_task) == 0


def test_periods_come_from_the_manifest():
    cochlear = ROOT / "rtdroid-runtime/examples/src/main/manifests/cochlear/manifest.xml"
    assert stallwitness.periods_us(cochlear) and all(p == 8000.0 for p in stallwitness.periods_us(cochlear))
    assert stallwitness.duration_us("500us") == 500.0
    with pytest.raises(ValueError, match="not a positive manifest duration"):
        stallwitness.duration_us("0ms")
