"""One rule for every command-line entry of the tools (`rtdroid`, `python -m rtdroid.<module>`,
`tools/*.py`): an error is one line on stderr that names the tool and what is wrong, and the exit
status is not zero (1; 130 when interrupted); ``--debug`` anywhere on the command line adds the
Python trace. A refusal meant for the user (a board error, a board file's error, a bundle's or a
region's) is printed as its message; anything else as its type and message.
"""
from __future__ import annotations

import os
import sys
import traceback
from typing import Callable

from .boardconfig import BoardConfigError
from .errors import BoardError


def xcc_errors() -> tuple[type[BaseException], ...]:
    """The bridge's refusals (a bundle's, a region's), where the bridge's package is installed."""
    errs: list[type[BaseException]] = []
    try:
        from xcc.bundle import BundleError
        errs.append(BundleError)
    except ImportError:
        pass
    try:
        from xcc.region import RegionError
        errs.append(RegionError)
    except ImportError:
        pass
    return tuple(errs)


def user_errors() -> tuple[type[BaseException], ...]:
    """The errors whose message is written for the user."""
    return (BoardError, BoardConfigError, *xcc_errors())


def one_line(e: BaseException) -> str:
    """An unexpected error as one line: what failed, without the trace."""
    if isinstance(e, OSError) and e.strerror:
        where = f" {e.filename}" if e.filename else ""
        return f"{e.strerror}:{where}" + (f" -> {e.filename2}" if e.filename2 else "")
    text = " ".join(str(e).split())
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def describe(e: BaseException) -> str:
    """What the user reads about an error: a refusal's message, else what failed; one line."""
    if isinstance(e, user_errors()):
        text = " ".join(str(e).split())
        if text:
            return text
    return one_line(e)


def run(main: Callable[[], int | None], prog: str, interrupted: str = "interrupted") -> int:
    """Runs an entry's ``main()`` (it reads ``sys.argv``) under the rule above; returns the exit
    status. ``SystemExit`` (argparse's usage errors, an explicit exit) passes through as it is;
    ``interrupted`` is what ^C prints after the tool's name."""
    debug = "--debug" in sys.argv[1:]
    if debug:
        sys.argv = [sys.argv[0], *(a for a in sys.argv[1:] if a != "--debug")]
    try:
        return main() or 0
    except KeyboardInterrupt:
        print(f"{prog}: {interrupted}", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the output piped into `head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as e:  # noqa: BLE001  (no trace reaches a user: one line, the trace with --debug)
        if debug:
            traceback.print_exc()
        hint = "" if debug or isinstance(e, user_errors()) else " (--debug shows the trace)"
        print(f"{prog}: {describe(e)}{hint}", file=sys.stderr)
        return 1
