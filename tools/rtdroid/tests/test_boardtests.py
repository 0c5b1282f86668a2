"""The board file is the one description of a board: the Robot suites' variables, the boards
`make test` runs and the default board all come from board-configs/."""
import subprocess
import sys

import pytest

from rtdroid import boardtests, paths
from rtdroid.boardconfig import BoardConfigError, available_boards, load_board
from rtdroid.commands.common import DEFAULT_BOARD
from rtdroid.errors import BoardError

ROBOT_VARIABLES = {"BOARD", "RTT_P50_BUDGET_US", "RTT_P99_BUDGET_US", "MAX_DEADLINE_MISSES", "WORST_LATENESS_BUDGET_US",
                   "MACHINE_STALL_US", "BOOT_BUDGET_S", "LATENCY_SAMPLES", "STRESS_SECONDS", "FIRST_PING_ATTEMPTS",
                   "REPLY_TIMEOUT_S"}


def test_the_makefile_and_the_cli_have_one_default_board():
    makefile = (paths.repo_root() / "Makefile").read_text()
    assert "BOARD     ?= $(shell cat board-configs/default-board)" in makefile
    assert DEFAULT_BOARD == boardtests.default_board() == "qemu-arm64-xen"
    assert boardtests.default_board() in available_boards()
    assert boardtests.default_board() in boardtests.make_test_boards()


def test_make_test_runs_the_boards_whose_file_says_so():
    assert boardtests.make_test_boards() == ["host", "qemu-arm64-xen", "qemu-x86_64"]
    r = subprocess.run([sys.executable, "-m", "rtdroid.boardtests", "boards"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.split() == boardtests.make_test_boards(), r.stderr


@pytest.mark.parametrize("board", [b.name for b in boardtests.tested_boards()])
def test_every_tested_board_gives_the_suites_every_variable_they_read(board):
    b = load_board(board)
    variables = boardtests.robot_variables(b)
    assert set(variables) == ROBOT_VARIABLES
    assert variables["BOARD"] == board
    files = boardtests.suite_files(b)
    assert files and all(f.is_file() for f in files)


def test_every_suite_runs_on_some_board_of_make_test():
    run = {f.name for name in boardtests.make_test_boards() for f in boardtests.suite_files(load_board(name))}
    assert run == {p.name for p in boardtests.suites_dir().glob("[0-9][0-9]_*.robot")}


def test_the_robot_variable_file_reads_the_board_file():
    sys.path.insert(0, str(paths.repo_root() / "tests" / "robot" / "variables"))
    try:
        import board as variable_file
    finally:
        sys.path.pop(0)
    assert variable_file.get_variables("host")["WORST_LATENESS_BUDGET_US"] == 100_000
    assert variable_file.get_variables("qemu-x86_64")["RTT_P50_BUDGET_US"] is None


def test_the_suites_options_name_each_suite_of_the_board():
    r = subprocess.run([sys.executable, "-m", "rtdroid.boardtests", "suites", "qemu-arm64-xen-smp"],
                       capture_output=True, text=True)
    assert r.stdout.split() == ["--suite", "01_board", "--suite", "02_deploy", "--suite", "03_latency",
                                "--suite", "04_faults", "--suite", "08_spark"], r.stderr


def test_a_suite_that_does_not_exist_is_named(tmp_path):
    text = (paths.board_configs_dir() / "host.yaml").read_text().replace("suites: [board,", "suites: [bored,")
    (tmp_path / "host.yaml").write_text(text)
    with pytest.raises(BoardError, match="tests.suites: 'bored' names no suite"):
        boardtests.suite_files(load_board(str(tmp_path / "host.yaml")))


@pytest.mark.parametrize("old,new,where", [
    ("    boot_budget_s: 30\n", "", "tests.budgets"),
    ("latency_samples: 300", "latency_samples: 0", "tests.workload.latency_samples"),
    ("rtt_p50_budget_us: 10000", "rtt_p50_budget_us: -1", "tests.budgets.rtt_p50_budget_us"),
    ("make_test: true", "make_test: yes please", "tests.make_test"),
])
def test_the_schema_holds_the_tests_section(tmp_path, old, new, where):
    text = (paths.board_configs_dir() / "host.yaml").read_text()
    assert old in text
    (tmp_path / "host.yaml").write_text(text.replace(old, new))
    with pytest.raises(BoardConfigError, match=where.replace(".", r"\.")):
        load_board(str(tmp_path / "host.yaml"))


def test_a_board_without_tests_runs_no_suite():
    with pytest.raises(BoardError, match="no tests: section"):
        boardtests.robot_variables(load_board("jailhouse-rpi4"))
