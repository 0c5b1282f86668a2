"""What the Robot suites run on each board, read from the board files (their `tests:` section):
the boards `make test` runs, a board's suites, the variables those suites read, and the default
board. The board file is the one description of a board; nothing here is written twice.

    python -m rtdroid.boardtests default          the default board (board-configs/default-board)
    python -m rtdroid.boardtests boards           the boards `make test` runs (tests.make_test)
    python -m rtdroid.boardtests suites BOARD     Robot's --suite options for the board's suites
"""
from __future__ import annotations

import sys
from pathlib import Path

from . import entry, paths
from .boardconfig import Board, BoardConfigError, available_boards, load_board
from .errors import BoardError


def default_board() -> str:
    """The board `make run`, `rtdroid board up` and the other commands use when none is named."""
    return (paths.board_configs_dir() / "default-board").read_text(encoding="utf-8").strip()


def suites_dir() -> Path:
    return paths.repo_root() / "tests" / "robot" / "suites"


def tested_boards() -> list[Board]:
    """Every board whose file has a `tests:` section."""
    return [b for b in map(load_board, available_boards()) if "tests" in b.data]


def make_test_boards() -> list[str]:
    return [b.name for b in tested_boards() if b.data["tests"].get("make_test")]


def suite_files(board: Board) -> list[Path]:
    """The suite files of the board's `tests.suites` (NN_<name>.robot), in the order they run."""
    files = []
    for name in _tests(board)["suites"]:
        found = sorted(suites_dir().glob(f"[0-9][0-9]_{name}.robot"))
        if len(found) != 1:
            raise BoardError(f"{board.source}: tests.suites: {name!r} names "
                             f"{'no' if not found else 'more than one'} suite {suites_dir()}/NN_{name}.robot")
        files.append(found[0])
    return sorted(files)


def robot_variables(board: Board) -> dict:
    """${BOARD} and every key of tests.budgets and tests.workload in capitals."""
    tests = _tests(board)
    return {"BOARD": board.name, **{k.upper(): v for k, v in {**tests["budgets"], **tests["workload"]}.items()}}


def _tests(board: Board) -> dict:
    if "tests" not in board.data:
        raise BoardError(f"board {board.name} has no tests: section in {board.source}: no Robot suite runs on it")
    return board.data["tests"]


def main(argv: list[str]) -> int:
    try:
        if argv == ["default"]:
            print(default_board())
        elif argv == ["boards"]:
            print(" ".join(make_test_boards()))
        elif len(argv) == 2 and argv[0] == "suites":
            # Robot matches --suite names ignoring case, spaces and underscores: "01_board" is "01 Board"
            print(" ".join(f"--suite {p.stem}" for p in suite_files(load_board(argv[1]))))
        else:
            print(__doc__.split("\n\n")[1], file=sys.stderr)
            return 2
    except (BoardError, BoardConfigError, OSError) as e:
        print(f"rtdroid.boardtests: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(entry.run(lambda: main(sys.argv[1:]), "rtdroid.boardtests"))
