"""A process board's round trips are judged against a budget scaled to the CPU that other work on
this machine left to the cells (AndroidCellLibrary: Percentile Should Be Within)."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "libraries"))
import AndroidCellLibrary as lib  # noqa: E402
import session  # noqa: E402


def use(wall, busy, cells, ours, cpus=2):
    return {"wall": wall, "cpus": cpus, "busy": busy, "cells": cells, "ours": ours}


def test_others_share_is_the_board_cpu_time_neither_the_cells_nor_the_test_used():
    # 10 s on 2 CPUs = 20 CPU-s; 15 busy, of which the cells 3 and the test 2: others 10 of 20.
    assert session.others_share(use(0, 0, 0, 0), use(10, 15, 3, 2)) == 0.5


def test_others_share_is_clamped_to_0_and_1():
    assert session.others_share(use(0, 0, 0, 0), use(10, 1, 3, 2)) == 0.0
    assert session.others_share(use(0, 0, 0, 0), use(1, 30, 0, 0)) == 1.0
    assert session.others_share(use(5, 0, 0, 0), use(5, 1, 0, 0)) == 0.0


@pytest.mark.parametrize("share, scaled", [(None, 10_000), (0.0, 10_000), (0.5, 20_000), (0.9, 100_000),
                                           (1.0, 100_000)])
def test_budget_scales_with_the_cpu_left_to_the_cells(share, scaled):
    assert session.budget_left_to_the_cells(10_000, share) == pytest.approx(scaled)


class Verdict(lib.AndroidCellLibrary):
    pass


def test_over_budget_on_a_quiet_machine_fails():
    with pytest.raises(AssertionError, match="exceeds the budget of 10000"):
        Verdict().percentile_should_be_within({"p50_us": 10_500, "others_cpu_share": 0.02}, "p50_us", 10_000)


def test_over_budget_while_others_held_the_cpus_is_the_machines_up_to_the_scaled_budget():
    Verdict().percentile_should_be_within({"p50_us": 15_000, "others_cpu_share": 0.5}, "p50_us", 10_000)
    with pytest.raises(AssertionError, match="scaled to the CPU other work left"):
        Verdict().percentile_should_be_within({"p50_us": 25_000, "others_cpu_share": 0.5}, "p50_us", 10_000)


def test_no_load_figure_means_the_plain_budget():
    with pytest.raises(AssertionError):
        Verdict().percentile_should_be_within({"p50_us": 10_001}, "p50_us", 10_000)
    Verdict().percentile_should_be_within({"p50_us": 9_999}, "p50_us", 10_000)
