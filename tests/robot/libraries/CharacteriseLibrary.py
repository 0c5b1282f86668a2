"""Keywords for `rtdroid characterise`: run the quick profile on the board that is up, check that
every probe of both cells wrote its rows with its time base named, and judge the RT cell's figures
against the budgets of the board file (`characterise.budgets`: ratios against baselines of the same
run, in the cell's virtual time on emulated boards)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # session.py

from robot.api import logger
from robot.api.deco import keyword, library

from rtdroid.boardconfig import load_board
from session import RTDROID, SESSION, Keywords, run

# What each cell's probes write in a quick run (rt-cell/probes, bench's RTJPerf).
NATIVE_TESTS = {"hygiene": 1, "calibrate": 1, "switch": 4, "irq": 1, "irqrate": 5, "sem": 1, "mutex": 2}
JVM_TESTS = {"jvm": 1, "alloc": 36, "dispatch": 2, "inversion": 7}  # bound handlers up to N=100 (a thread each), pooled to 1,000


@library(scope="GLOBAL", auto_keywords=False)
class CharacteriseLibrary(Keywords):
    def __init__(self):
        self.doc: dict | None = None

    @keyword("Characterise The Board Quickly")
    def characterise_the_board_quickly(self) -> dict:
        p = run([RTDROID, "characterise", "--board", SESSION.board, "--quick", "--json"], timeout=900)
        self.doc = json.loads(p.stdout)
        for cell, c in self.doc["cells"].items():
            logger.info(f"{cell} cell, {c['time_base']}: " + ", ".join(
                f"{k} {v['result']} in {v['host_seconds']} s" for k, v in c.items() if isinstance(v, dict)))
        for g in self.doc["goals"]:
            logger.info(f"goal {'met' if g['met'] else 'NOT met' if g['met'] is False else 'shown'}: "
                        f"{g['text']} -- {g['measured']}")
        return self.doc

    def _doc(self) -> dict:
        if self.doc is None:
            raise AssertionError("the board was not characterised (Characterise The Board Quickly)")
        return self.doc

    @keyword
    def every_probe_should_have_written_its_rows(self):
        doc = self._doc()
        wanted = [("rt", "native", NATIVE_TESTS), ("rt", "jvm", JVM_TESTS), ("android", "native", NATIVE_TESTS)]
        problems = []
        for cell, probe, tests in wanted:
            for test, n in tests.items():
                got = [r for r in doc["rows"] if r["cell"] == cell and r["probe"] == probe and r["test"] == test]
                if len(got) < n:
                    problems.append(f"{cell} {probe} {test}: {len(got)} rows, expected {n}")
                problems += [f"{cell} {probe} {test}: {r['error']}" for r in got if "error" in r]
        if problems:
            raise AssertionError("; ".join(problems))
        for cell in ("rt", "android"):
            if not doc["cells"][cell]["time_base"]:
                raise AssertionError(f"{cell} cell: no time base named")

    @keyword("The RT Cell Should Be Timed In The Board's Clock")
    def the_rt_cell_should_be_timed_in_the_boards_clock(self):
        """`virtual time` where the board file gives the RT cell a virtual clock (QEMU -icount),
        `host clock` elsewhere."""
        clock = load_board(SESSION.board).rt.get("clock", {}).get("kind", "host")
        kind = "virtual time" if clock == "virtual" else "host clock"
        tb = self._doc()["cells"]["rt"]["time_base"]
        if kind not in tb:
            raise AssertionError(f"the RT cell's figures are in {tb!r}, not {kind!r} (the board file's clock)")

    @keyword("The Board's Budgets Should Hold")
    def the_boards_budgets_should_hold(self):
        budgets = self._doc()["budgets"]
        if not budgets:
            raise AssertionError(f"board {SESSION.board} declares no characterise budgets")
        for b in budgets:
            logger.info(f"budget {b['name']} {b['limit']}: measured {b['measured']} -> {'met' if b['met'] else 'NOT met'}")
        failed = [f"{b['name']}: measured {b['measured']}, limit {b['limit']}" for b in budgets if not b["met"]]
        if failed:
            raise AssertionError("budgets not met: " + "; ".join(failed))

    @keyword
    def characterising_should_be_refused_while(self, reason: str):
        p = run([RTDROID, "characterise", "--board", SESSION.board, "--quick", "--no-report"], timeout=300, check=False)
        if p.returncode == 0 or reason not in p.stderr:
            raise AssertionError(f"expected a refusal naming {reason!r}; exit {p.returncode}: {p.stderr.strip()}")
