"""`rtdroid`: boot, inspect and tear down partitioned boards; deploy to their cells.

Exit status: 0 success, 1 refused or failed (the message says why), 2 bad command line.
Every error is one line on stderr; ``--debug`` (anywhere on the command line) adds the trace.
Each command group is a module of ``rtdroid.commands``, listed once in ``GROUPS``.
"""
from __future__ import annotations

import argparse
import os
import sys
import traceback

from . import lifecycle, paths
from .boardconfig import BoardConfigError, load_board, resolve_board_file
from .commands import Commands, board, bundle, characterise, deploy, keys, lava, rt, rt_trace, stats, validate
from .commands.common import CliError, Reach
from .commands.common import clock_of as _clock_of
from .commands.common import err as _err
from .commands.common import mgmt as _mgmt
from .commands.common import region_of as _region_of
from .commands.rt import render_services  # noqa: F401  (the table of `rt services`, for the run report)
from .entry import one_line as _one_line
from .entry import xcc_errors as _xcc_errors

GROUPS = (board, deploy, rt, rt_trace, stats, bundle, validate, characterise, lava, keys)  # in the order `rtdroid --help` lists them


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rtdroid", description=__doc__.splitlines()[0])
    p.add_argument("--debug", action="store_true", help="print the Python trace of an error")
    # how every command reaches the board, decided here once (a test stands in for the board by
    # replacing _mgmt, _region_of or _clock_of before calling main)
    p.set_defaults(reach=Reach(mgmt=_mgmt, region_of=_region_of, clock_of=_clock_of))
    commands = Commands(p.add_subparsers(dest="command", required=True))
    for group in GROUPS:
        group.register(commands)
    return p


def _check_board_name(a) -> None:
    """A --board that names no board file and no board that ran is a typo, not a board that is down.
    `board down` stays idempotent: it also clears what a board left behind."""
    name = getattr(a, "board", None)
    if not name or getattr(a, "clears_leftovers", False) or resolve_board_file(name).is_file() \
            or (paths.run_dir(name) / "state.json").is_file():
        return
    load_board(name)  # raises BoardNotFound naming the boards there are


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv  # accepted anywhere, not only before the command
    args = build_parser().parse_args([x for x in argv if x != "--debug"])
    try:
        _check_board_name(args)
        return args.func(args)
    except (CliError, lifecycle.BoardError, BoardConfigError, RuntimeError, *_xcc_errors()) as e:
        if debug:
            traceback.print_exc()
        _err(str(e))
        return 1
    except KeyboardInterrupt:
        _err("interrupted")
        return 130
    except BrokenPipeError:  # `rtdroid stats | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as e:  # no trace reaches a user: one line, the trace only with --debug
        if debug:
            traceback.print_exc()
        command = " ".join(x for x in (args.command, getattr(args, "action", None) or getattr(args, "cell", None)) if x)
        _err(f"{command}: {_one_line(e)}" + ("" if debug else " (--debug shows the trace)"))
        return 1


if __name__ == "__main__":
    sys.exit(main())
