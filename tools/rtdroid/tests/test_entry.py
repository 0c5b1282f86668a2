"""Every command-line entry of the tools: an error is one line naming the tool and what is wrong,
exit status not zero, no Python trace (unless --debug)."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rtdroid import bootbench, entry, lifecycle
from rtdroid.errors import BoardError

TOOLS = Path(__file__).resolve().parents[2]


def run(main, argv, monkeypatch, capsys, prog="tool", **kw):
    monkeypatch.setattr(sys, "argv", ["tool", *argv])
    code = entry.run(main, prog, **kw)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_refusal_is_its_message_on_one_line(monkeypatch, capsys):
    def main():
        raise BoardError("port 5555 on 127.0.0.1 is already in use\n(by pid 42)")
    code, _, err = run(main, [], monkeypatch, capsys)
    assert code == 1
    assert err == "tool: port 5555 on 127.0.0.1 is already in use (by pid 42)\n"


def test_an_unexpected_error_is_one_line_naming_it_and_the_debug_switch(monkeypatch, capsys):
    code, _, err = run(lambda: {}["missing"], [], monkeypatch, capsys)
    assert code == 1
    assert err == "tool: KeyError: 'missing' (--debug shows the trace)\n"


def test_an_os_error_names_the_file(monkeypatch, capsys):
    code, _, err = run(lambda: open("/nonexistent/x"), [], monkeypatch, capsys)
    assert code == 1 and err == "tool: No such file or directory: /nonexistent/x (--debug shows the trace)\n"


def test_debug_anywhere_adds_the_trace_and_is_not_passed_on(monkeypatch, capsys):
    seen = []

    def main():
        seen.append(list(sys.argv[1:]))
        raise BoardError("refused")
    code, _, err = run(main, ["--runs", "1", "--debug"], monkeypatch, capsys)
    assert code == 1 and seen == [["--runs", "1"]]
    assert "Traceback" in err and err.endswith("tool: refused\n")


def test_interrupted_and_exit_and_success(monkeypatch, capsys):
    def interrupted():
        raise KeyboardInterrupt
    assert run(interrupted, [], monkeypatch, capsys, interrupted="stopped")[:3] == (130, "", "tool: stopped\n")
    assert run(lambda: None, [], monkeypatch, capsys)[0] == 0
    assert run(lambda: 3, [], monkeypatch, capsys)[0] == 3
    with pytest.raises(SystemExit):  # argparse's usage errors keep their own exit status 2
        run(lambda: sys.exit(2), [], monkeypatch, capsys)


def test_bootbench_android_with_the_port_in_use_is_one_line(monkeypatch, capsys):
    downs = []
    monkeypatch.setattr(bootbench.aotcache, "fresh", lambda: True)

    def up(board, cells, out):
        raise BoardError("port 5555 on 127.0.0.1 (the Android cell's control port) is already in use")
    monkeypatch.setattr(lifecycle, "up", up)
    monkeypatch.setattr(lifecycle, "down", lambda board, out: downs.append(board))
    code, _, err = run(bootbench.main, ["--android", "--board", "host", "--runs", "1"], monkeypatch, capsys,
                       prog="rtdroid.bootbench")
    assert code == 1
    assert err == ("rtdroid.bootbench: port 5555 on 127.0.0.1 (the Android cell's control port) is already "
                   "in use\n")
    assert downs == []  # the port's holder is not this run's board: left alone
    assert "RTDROID_ANDROID_AOT" not in __import__("os").environ


def test_every_entry_of_the_tools_runs_under_the_one_rule():
    """A `__main__` block in tools/ calls its main through entry.run (one line, no trace); `rtdroid`'s
    own main applies the rule itself with entry's pieces (its line names the command too)."""
    missing = []
    for p in sorted(TOOLS.rglob("*.py")):
        if "tests" in p.parts or p.relative_to(TOOLS).as_posix() == "rtdroid/rtdroid/cli.py":
            continue
        text = p.read_text()
        block = re.search(r'^if __name__ == "__main__":\n((?:    .*\n?)+)', text, re.M)
        if block and "entry.run(" not in block.group(1):
            missing.append(str(p.relative_to(TOOLS)))
    assert missing == []


@pytest.mark.parametrize("argv, says", [
    (["-m", "rtdroid.boardtests", "suites", "no-such-board"], "rtdroid.boardtests: "),
    ([str(TOOLS / "demo" / "report.py"), "/nonexistent/result.json"],
     "report: No such file or directory: /nonexistent/result.json"),
])
def test_a_python_entry_refuses_in_one_line(argv, says):
    p = subprocess.run([sys.executable, *argv], capture_output=True, text=True, timeout=60)
    assert p.returncode == 1
    assert p.stderr.startswith(says) and p.stderr.count("\n") == 1 and "Traceback" not in p.stderr
