"""The stall witness's record, read back (rtdroid.stallwitness)."""
import threading

import pytest

from rtdroid import stallwitness

# The summary line per thread cyclictest -m -q prints at the end.
RECORD = """\
# /dev/cpu_dma_latency set to 0us
T: 0 ( 6487) P:99 I:1000 C:      8 Min:     12 Act:   20 Avg: 3000 Max:   20269
T: 1 ( 6488) P:99 I:1000 C:      4 Min:     11 Act:   11 Avg: 2000 Max:    9000
"""


def test_worst_is_the_worst_summary_line():
    assert stallwitness.worst_us(RECORD) == 20269


def test_a_record_without_summary_is_an_error_that_says_so():
    with pytest.raises(ValueError, match="no summary"):
        stallwitness.worst_us("# /dev/cpu_dma_latency set to 0us\n")


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


class _Cell:
    """A stand-in for xcc.mgmt over a cell whose timelines keep its last ``keep`` jobs (the cell
    keeps 1,024 per task): a job is added to it as a test says it ended."""

    def __init__(self, keep):
        self.keep, self.jobs, self.lock = keep, [], threading.Lock()

    def ended(self, job):
        with self.lock:
            self.jobs.append(job)

    def list_services(self, region):
        with self.lock:
            misses = sum(1 for j in self.jobs if j["flags"] & stallwitness.DEADLINE_MISS)
        return [{"name": "cochlear/Implant/processingTask", "deadline_misses": misses},
                {"name": "echo/EchoReceiver", "deadline_misses": 7}]

    def timelines(self, region, seconds=0):
        with self.lock:
            kept = self.jobs[-self.keep:] + [dict(_job(1, 0, 1), track="echo/EchoReceiver")]
        return {"entries": kept, "cell_now_nanos": 0, "sent_nanos": 0, "answered_nanos": 0}


def _ended_while_polled(cell, record, jobs):
    for j in jobs:
        cell.ended(j)
        record.poll()


def test_the_record_keeps_every_miss_of_a_window_longer_than_the_cells_timelines():
    cell = _Cell(keep=4)
    jobs = [_job(n, 8 * n, 8 * n + 1) for n in range(1, 40)]
    jobs[5] = _job(6, 48, 70, flags=stallwitness.DEADLINE_MISS)  # 14 ms late, long rolled out by the end
    record = stallwitness.MissRecord("region", "cochlear", mgmt=cell, poll_s=0)
    _ended_while_polled(cell, record, jobs)
    entries = record.close()
    assert ("cochlear/Implant/processingTask", 6) in {(e["track"], e["seq"]) for e in entries}
    assert all(stallwitness.belongs_to(e["track"], "cochlear") for e in entries), "only the app's tracks"
    stalls = f"T: 0 ( 1) P:99 I:1000 C: 9 Min: 1 Act: 1 Avg: 1 Max: 20000\nT: 0 Spike: 20000: TS: {1000_070_000}\n"
    explained, why, judged = stallwitness.attribute(entries, stalls, 0, 1)
    assert (explained, [j["seq"] for j in judged]) == (1, [6]), why


def test_a_miss_no_longer_in_the_record_is_counted_unexplained():
    cell = _Cell(keep=2)
    cell.ended(_job(1, 0, 20, flags=stallwitness.DEADLINE_MISS))
    for n in range(2, 6):
        cell.ended(_job(n, 8 * n, 8 * n + 1))
    record = stallwitness.MissRecord("region", "cochlear", mgmt=cell, poll_s=0)  # no poll before close
    stalls = "T: 0 ( 1) P:99 I:1000 C: 9 Min: 1 Act: 1 Avg: 1 Max: 20000\nT: 0 Spike: 20000: TS: 1000020000\n"
    explained, why, _ = stallwitness.attribute(record.close(), stalls, 0, 1)
    assert explained == 0 and "1 not in the RT cell's record, so unexplained" in why


def test_without_a_witness_or_on_another_clock_no_miss_is_explained():
    jobs = [_job(1, 0, 12, flags=stallwitness.DEADLINE_MISS)]
    assert stallwitness.attribute(jobs, None, 0, 1)[:2] == (
        0, "no stall witness ran (the RT cell's CPU is not one of this host's)")
    spikes = "T: 0 Spike: 20000: TS: 1000020000\n"
    assert stallwitness.attribute(jobs, spikes, 0, 1)[0] == 1
    assert stallwitness.attribute(jobs, spikes, 0, 1, clock_problem="an offset")[0] == 0
