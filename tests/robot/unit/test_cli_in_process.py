"""The keywords run the `rtdroid` commands that ask or tell a cell something in the Robot process
(session.cli): the CLI's own entry, with its exit status and both streams as a process would give."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "libraries"))
import session  # noqa: E402


def test_a_command_s_output_and_exit_status_are_the_cli_s():
    p = session.cli("stats", "--help")
    assert p.returncode == 0 and p.stdout.startswith("usage: rtdroid stats") and p.stderr == ""


def test_a_usage_error_is_exit_2_with_argparse_s_line_on_stderr():
    p = session.cli("rt", "services", "--no-such-option", check=False)
    assert p.returncode == 2 and "unrecognized arguments: --no-such-option" in p.stderr and p.stdout == ""


def test_a_refusal_fails_the_keyword_naming_the_command_and_its_message():
    with pytest.raises(AssertionError, match=r"rtdroid board status --board no-such-board exited 1:[\s\S]*no-such-board"):
        session.cli("board", "status", "--board", "no-such-board")
