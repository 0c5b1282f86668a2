"""`rtdroid validate`: static validation of RT apps for a board (memory, channels, schedulability)."""
from __future__ import annotations

import sys

from .. import validate
from ..boardconfig import load_board
from .common import DEFAULT_BOARD, board_opt, err


def cmd_validate(a) -> int:
    board = load_board(a.board or DEFAULT_BOARD)
    code, report, errors = validate.run(board, a.manifests, json_out=a.json, cheddar=a.cheddar)
    print(report, end="")
    for line in errors.splitlines():
        if line.strip():
            err(line)
    if a.cheddar and code != 2:
        print(f"wrote {a.cheddar}", file=sys.stderr)
    return code


def register(commands) -> None:
    sp = commands.add_parser("validate", help="static validation of RT apps for a board: memory, channels, "
                        "schedulability (exit 0 holds, 1 fails, 2 malformed manifest)")
    sp.add_argument("manifests", nargs="+", metavar="MANIFEST", help="a manifest.xml or a directory holding one")
    board_opt(sp, DEFAULT_BOARD)
    sp.add_argument("--json", action="store_true", help="the report as JSON")
    sp.add_argument("--cheddar", metavar="OUT.xml", help="also write the task set as Cheddar ADL XML")
    sp.set_defaults(func=cmd_validate)
