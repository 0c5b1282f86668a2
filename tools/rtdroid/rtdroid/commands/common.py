"""What every command group shares: the refusal, argument types and options, and how a command
reaches the board that is up (its state, its region, the RT cell's management channel)."""
from __future__ import annotations

import argparse
import math
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .. import lifecycle
from ..boardtests import default_board

DEFAULT_BOARD = default_board()  # board-configs/default-board, which the Makefile reads too


class CliError(Exception):
    """A refusal: one line on stderr, exit 1."""


def err(msg: str) -> None:
    print(f"rtdroid: {msg}", file=sys.stderr)


# ------------------------------------------------------------------ argument types

def _number(convert, lowest, highest=None, what="a number", above=False):
    """An argparse type: a finite number >= lowest (> lowest if ``above``) and <= highest, or
    exit 2 naming the rule."""
    rule = (f"{lowest}..{highest}" if highest is not None else f"> {lowest}" if above else f">= {lowest}")

    def parse(text: str):
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
        if not (math.isfinite(value) and (value > lowest if above else value >= lowest)
                and (highest is None or value <= highest)):
            raise argparse.ArgumentTypeError(f"{text}: must be {what} {rule}")
        return value
    return parse


seconds = _number(float, 0, what="seconds", above=True)
count = _number(int, 1, what="a whole number")
lines = _number(int, 0, what="a whole number of lines")
priority = _number(int, 0, 99, what="a priority")


def board_opt(sp: argparse.ArgumentParser, default: str | None = None) -> None:
    sp.add_argument("--board", default=default, metavar="NAME",
                    help=f"board name in board-configs/ or a YAML path (default {default or 'the board that is up'})")


def timeout_opt(sp: argparse.ArgumentParser, default: float = 30.0) -> None:
    sp.add_argument("--timeout", type=seconds, default=default, metavar="S", help=f"seconds (default {default:g})")


def existing_file(what: str, p: Path, hint: str = "") -> Path:
    if p.is_dir():
        raise CliError(f"{what} {p} is a directory, not a file")
    if not p.is_file():
        raise CliError(f"{what} {p} does not exist{hint}")
    if not os.access(p, os.R_OK):
        raise CliError(f"{what} {p} is not readable")
    return p


# ------------------------------------------------------------------ reaching the board

def mgmt():
    """The bridge's client of the RT cell agent's management channel (xcc.mgmt)."""
    try:
        from xcc import mgmt as xcc_mgmt
    except ImportError as e:
        raise CliError(f"the bridge's Python package xcc.mgmt is not available ({e}); "
                       "run tools/setup.sh") from None
    return xcc_mgmt


def region_of(a) -> str:
    """The region file of the board that is up, which must have an RT cell."""
    state = lifecycle.current_state(a.board)
    if "rt" not in {c.get("role") for c in state["cells"].values()}:
        raise CliError(f"board {state['board']} has no RT cell running")
    return state["region"]["path"]


def clock_of(a) -> dict:
    """The clock the RT cell's figures are in (the board's rt_clock; the host's when none is up)."""
    try:
        return lifecycle.current_state(a.board).get("rt_clock", {"kind": "host"})
    except lifecycle.BoardError:
        return {"kind": "host"}


@dataclass(frozen=True)
class Reach:
    """How a command reaches the board: the three calls above, handed to every command as
    ``a.reach`` so that one place (the CLI's entry point, or a test) decides what answers."""
    mgmt: Callable = mgmt
    region_of: Callable = region_of
    clock_of: Callable = clock_of


def result_ok(res) -> tuple[bool, str]:
    """xcc.mgmt.Result: code (0 = OK), name (BAD_SIGNATURE, ...), text (the agent's reason)."""
    if res.code == 0:
        return True, res.text or "OK"
    return False, f"{res.name} ({res.code}): {res.text}"


def answer(line: str, ok: bool) -> int:
    """A cell's answer as the command's one line: on stdout when it did what was asked (exit 0),
    on stderr when it refused (exit 1), so that `cmd > out` keeps results and shows refusals."""
    print(line, file=sys.stdout if ok else sys.stderr)
    return 0 if ok else 1


def as_dict(x):
    if isinstance(x, dict):
        return x
    if hasattr(x, "_asdict"):
        return x._asdict()
    if hasattr(x, "__dataclass_fields__"):
        import dataclasses
        return dataclasses.asdict(x)
    try:
        from xcc.frames import to_dict
        return to_dict(x)
    except Exception:
        return vars(x)
