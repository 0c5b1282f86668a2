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


# cyclictest -q --spike=1000: its summary, then each late wake-up with when it happened (µs,
# CLOCK_MONOTONIC). An 11 ms stall ending at 1,000.020 s shows as a run of wake-ups at its end.
SPIKES = """\
# /dev/cpu_dma_latency set to 0us
T: 0 ( 6487) P:99 I:1000 C:   5000 Min:     12 Act:   20 Avg:   40 Max:  11000

T: 0 Spike:   11000: TS:  1000020000
T: 0 Spike:   10000: TS:  1000020010
T: 0 Spike:    1500: TS:  1000040000
"""
MS = 1_000_000


def _job(seq, begin_ms, end_ms, deadline_ms=8, flags=0, track="cochlear/Implant/processingTask"):
    begin = 1000_000 * MS + int(begin_ms * MS)  # ms after 1,000 s
    return {"track": track, "seq": seq, "flags": flags, "planned_begin_nanos": begin,
            "planned_end_nanos": begin + deadline_ms * MS, "actual_begin_nanos": begin,
            "actual_end_nanos": 1000_000 * MS + int(end_ms * MS)}


def test_spikes_are_stall_intervals_on_the_monotonic_clock():
    # the 11 ms stall [1,000.009, 1,000.020] s and the next wake-up's, merged; the 1.5 ms one alone
    assert stallwitness.stall_intervals(SPIKES) == {
        0: [(1000_009_000_000, 1000_020_010_000), (1000_038_500_000, 1000_040_000_000)]}
    assert stallwitness.worst_us(SPIKES) == 11000


def test_a_miss_is_the_machines_only_if_the_stalls_within_it_make_up_its_lateness():
    stalls = stallwitness.stall_intervals(SPIKES)
    jobs = [_job(1, 0, 1), _job(2, 8, 22, flags=stallwitness.DEADLINE_MISS),     # 6 ms late, 11 ms stalled
            _job(3, 16, 46, flags=stallwitness.DEADLINE_MISS),                   # 22 ms late, 5.5 ms stalled
            _job(4, 40, 49, flags=stallwitness.DEADLINE_MISS)]                   # 1 ms late, nothing witnessed
    judged = stallwitness.judge_misses(jobs, stalls, since_ns=0)
    assert [(j["seq"], j["explained"]) for j in judged] == [(2, True), (3, False), (4, False)]
    assert judged[1]["lateness_ns"] == 22 * MS and judged[1]["stalled_ns"] == 5_510_000
    # misses that ended before the window opened are not the window's
    assert [j["seq"] for j in stallwitness.judge_misses(jobs, stalls, since_ns=_job(0, 0, 47)["actual_end_nanos"])] == [4]


def test_skipped_releases_count_each_and_are_judged_from_the_release_that_ran_on():
    stalls = {0: [(1000_002_000_000, 1000_030_000_000)]}  # 28 ms
    jobs = [_job(1, 0, 1), _job(2, 8, 9), _job(3, 16, 17),
            _job(4, 24, 49, flags=stallwitness.DEADLINE_MISS),
            # releases due at 32 ms and 40 ms skipped: the one due at 24 ran until 49 ms
            _job(5, 32, 49, flags=stallwitness.DEADLINE_MISS | stallwitness.SKIPPED)]
    judged = stallwitness.judge_misses(jobs, stalls, since_ns=0)
    assert [(j["seq"], j["misses"]) for j in judged] == [(4, 1), (5, 2)]
    assert judged[1]["stalled_ns"] == 6 * MS and judged[1]["lateness_ns"] == 9 * MS and not judged[1]["explained"]
    assert stallwitness.judge_misses(jobs, {0: [(1000_000_000_000, 1000_040_000_000)]}, 0)[1]["explained"]


def test_a_stall_on_another_cpu_is_not_added_to_this_ones():
    jobs = [_job(1, 0, 12, flags=stallwitness.DEADLINE_MISS)]  # 4 ms late
    two_cpus = {0: [(1000_000_000_000, 1000_003_000_000)], 1: [(1000_005_000_000, 1000_008_000_000)]}
    assert not stallwitness.judge_misses(jobs, two_cpus, 0)[0]["explained"]
