"""A benchmark in a board's RT cell without a board: what the cell's JVM probe is asked, how its
report comes back labelled with the board and the cell's time base, and bad answers stopped with
one line. What the benchmark measures in a cell is run by `make bench-cell BOARD=qemu-x86_64`."""
from __future__ import annotations

import json
import types

import pytest

from rtdroid import cellbench
from rtdroid.errors import BoardError


def fake_cell(monkeypatch, tmp_path, output: bytes, code=0, clock=None):
    state = {"board": "qemu-x86_64", "region": {"path": str(tmp_path / "region")}}
    if clock is not None:
        state["rt_clock"] = clock
    monkeypatch.setattr(cellbench.lifecycle, "current_state", lambda name: state)
    calls = []

    def run_probe(region, kind, args, timeout):
        calls.append((kind, args, timeout))
        return types.SimpleNamespace(name="OK" if code == 0 else "PROBE_FAILED", code=code, text="exit 0"), output

    from xcc import mgmt
    monkeypatch.setattr(mgmt, "run_probe", run_probe)
    return calls


REPORT = {"bench": "reflection", "command": "bench/run.sh reflection --seconds 10 --cpu 0",
          "host": {"kernel": "6.1.0-rt", "cpus": 1}, "rows": [{"impl": "reflective", "phase": "calibrated"}],
          "goals": [], "notes": []}


def test_the_cells_report_comes_back_labelled_with_the_board_and_its_virtual_time(monkeypatch, tmp_path):
    calls = fake_cell(monkeypatch, tmp_path, json.dumps(REPORT).encode(), clock={"kind": "virtual"})
    path = cellbench.run("qemu-x86_64", "reflection", False, 10, tmp_path / "out")
    assert calls[0][:2] == ("jvm", "bench reflection --seconds 10") and calls[0][2] > 120
    assert path == tmp_path / "out" / "reflection-qemu-x86_64.json"
    d = json.loads(path.read_text())
    assert d["board"] == "qemu-x86_64" and d["virtual"] is True and "virtual time" in d["time_base"]
    assert d["emulated_cpu"] is True and d["command"] == "bench/run.sh reflection --board qemu-x86_64 --seconds 10"
    assert d["rows"] == REPORT["rows"] and "virtual time" in d["notes"][-1]


def test_quick_asks_the_cell_for_the_quick_form(monkeypatch, tmp_path):
    calls = fake_cell(monkeypatch, tmp_path, json.dumps(REPORT).encode())
    d = json.loads(cellbench.run("qemu-x86_64", "reflection", True, None, tmp_path).read_text())
    assert calls[0][1] == "bench reflection --quick" and d["virtual"] is False


@pytest.mark.parametrize("output,code,says", [
    (b"", 19, "PROBE_FAILED (19)"),
    (b"rtjperf: oops", 0, "its report is not JSON"),
    (b'{"bench": "looper", "rows": []}', 0, "is not a reflection report"),
    (b"[1, 2]", 0, "is not a reflection report"),
])
def test_a_failed_or_foreign_answer_is_one_line(monkeypatch, tmp_path, output, code, says):
    fake_cell(monkeypatch, tmp_path, output, code)
    with pytest.raises(BoardError, match=says.replace("(", r"\(").replace(")", r"\)")):
        cellbench.run("qemu-x86_64", "reflection", False, 10, tmp_path)
    assert not list(tmp_path.glob("*.json"))


def test_only_the_benchmarks_a_cell_runs_are_asked_for():
    with pytest.raises(BoardError, match="does not run in a cell"):
        cellbench.probe_args("looper", False, 10)
