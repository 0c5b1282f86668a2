"""`make robot` ends a failed run with each failed test and its message (tests/robot/failed.py)."""
import sys
from pathlib import Path

import robot

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import failed  # noqa: E402

SUITE = r"""*** Test Cases ***
Passes
    Log    fine

Fails With Its Reason
    Fail    p50_us = 11100.2 µs exceeds the budget\nof 10000 µs
"""


def test_the_failed_tests_are_listed_with_their_messages(tmp_path, capsys):
    (tmp_path / "demo.robot").write_text(SUITE)
    assert robot.run(str(tmp_path / "demo.robot"), outputdir=str(tmp_path), log="NONE", report="NONE",
                     stdout=open(tmp_path / "console.txt", "w")) == 1
    failed.main(["failed.py", str(tmp_path / "output.xml")])
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"== 1 failed test(s) in {tmp_path / 'output.xml'}"
    assert out[1:] == ["FAILED Demo.Fails With Its Reason: p50_us = 11100.2 µs exceeds the budget of 10000 µs"]


def test_a_run_without_output_says_so(tmp_path, capsys):
    failed.main(["failed.py", str(tmp_path / "output.xml")])
    assert capsys.readouterr().out.startswith("no Robot result to summarise")
