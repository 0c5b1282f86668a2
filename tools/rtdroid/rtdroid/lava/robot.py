"""Run one Robot suite on a board and report its results as LAVA test cases.

`rtdroid lava robot --board B --suite S` is what a LAVA job's test definition runs on the board's
root side (under the board lock). It runs the suite as `make robot` does, brings the board down
whatever happened, reads Robot's output.xml and, inside a LAVA test shell (where `lava-test-case`
is on PATH), reports:
- one test case per Robot test: pass, fail or skip, its Robot message printed above it;
- one test case per figure a test measured (`MEASUREMENT name=value units` lines, written by the
  keyword libraries' `session.measure`): `<test>_<name>` with the value as a LAVA measurement
  (`<test>_<name>_2` for the same figure measured again in that test);
  figures measured in the suite's set-up (the board's boot) are reported as `<suite>-setup_<name>`;
- one test case per cell of the board, `kernel-<cell>`, the release of the kernel the booted cell
  runs (read from the cell when the board came up: `KERNEL <cell>=<release>` lines, written by the
  board library) as the case's reference, failed when it is not the kernel the job names
  (`--expect kernel.<cell>=<release>`, from the job's metadata) or the suite's boots disagree.
When the board did not come up (the suite's set-up failed, or, in the board suite that boots it
as a test, its cells did not both report ready), it raises a LAVA test error (`lava-test-raise`)
naming the reason, so the job ends Incomplete with that reason: a health check's Incomplete puts
its device out of service. Outside LAVA it
prints the same cases as a table.
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from .. import paths
from .render import suite_files

MEASUREMENT = re.compile(r"^MEASUREMENT ([A-Za-z0-9_.-]+)=(-?[0-9.eE+-]+) (\S+)$")
KERNEL = re.compile(r"^KERNEL ([A-Za-z0-9_-]+)=(\S+)$")
RESULTS = {"PASS": "pass", "FAIL": "fail", "SKIP": "skip", "NOT RUN": "skip"}
# LAVA keeps a test case's name in 100 characters; the figure's name is appended to a test's.
NAME_CHARS = 64
# The board suite boots the board in a test, not in its set-up: this test failing means the board
# did not come up (a boot over its budget fails the boot test only: the board works).
BOARD_UP_TEST = "Both Cells Report Ready"


@dataclass
class Case:
    name: str
    result: str
    message: str = ""
    measurement: float | None = None
    units: str | None = None
    reference: str | None = None  # a value the case names (a kernel release): LAVA's reference


def slug(text: str) -> str:
    s = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return s[:NAME_CHARS].rstrip("-")


def _messages(item) -> list[str]:
    """Every log message under a Robot result item (keywords, their bodies, nested)."""
    out = []
    stack = [item]
    while stack:
        it = stack.pop()
        if getattr(it, "type", None) == "MESSAGE":
            out.append(it.message)
            continue
        for attr in ("setup", "teardown"):
            kw = getattr(it, attr, None)
            if kw:
                stack.append(kw)
        stack.extend(reversed(list(getattr(it, "body", []) or [])))
    return out


def _figures(item) -> list[tuple[str, float, str]]:
    """The figures an item measured, in order; a figure measured again in the same item (round
    trips before a cell is killed and after it comes back) is named `<name>_2`, `<name>_3`, ...:
    one LAVA test case name per value."""
    out = []
    seen: dict[str, int] = {}
    for m in _messages(item):
        hit = MEASUREMENT.match(m)
        if hit:
            name = hit.group(1)
            seen[name] = seen.get(name, 0) + 1
            out.append((name if seen[name] == 1 else f"{name}_{seen[name]}", float(hit.group(2)), hit.group(3)))
    return out


def kernel_cases(items, expected: dict[str, str]) -> list[Case]:
    """`kernel-<cell>` per cell that came up in these Robot result items, its booted kernel as the
    reference: failed when it is not ``expected[cell]`` or differs between the suite's boots."""
    booted: dict[str, list[str]] = {}
    for item in items:
        for m in _messages(item):
            hit = KERNEL.match(m)
            if hit and hit.group(2) not in booted.setdefault(hit.group(1), []):
                booted[hit.group(1)].append(hit.group(2))
    cases = []
    for cell, releases in booted.items():
        want = expected.get(cell)
        wrong = [r for r in releases if want and r != want]
        if wrong:
            message = f"the booted {cell} cell runs {', '.join(wrong)}, the job names {want}"
        elif len(releases) > 1:
            message = f"the {cell} cell booted different kernels in one suite: {', '.join(releases)}"
        else:
            message = ""
        cases.append(Case(f"kernel-{cell}", "fail" if message else "pass", message,
                          reference=",".join(releases)))
    return cases


class SetupFailure(str):
    """Why a suite's set-up failed, in one line (LAVA's reason for an Incomplete job); ``detail``
    is Robot's whole message (board up's progress and the cell's last console lines)."""
    detail = ""


PANIC = re.compile(r"Kernel panic - not syncing: .*")


def reason_of(message: str) -> str:
    """One line out of a failed `rtdroid board up`'s message: the CLI's own error line (`rtdroid:
    ...`, up to where it lists log lines), and the kernel's panic when the cell's console shows one
    (Robot shortens long messages in the middle: the console log named in it is read too)."""
    lines = [ln.strip() for ln in message.splitlines() if ln.strip()]
    head = next((ln[len("rtdroid: "):] for ln in lines if ln.startswith("rtdroid: ")), lines[0] if lines else "")
    head = re.split(r"; last \d+ li", head)[0].rstrip(" .")
    panic = PANIC.search(message)
    if not panic:
        for log in re.findall(r"last \d+ lines of (\S+console\.log)", message):
            try:
                panic = PANIC.search(Path(log).read_text(errors="replace"))
            except OSError:
                continue
            if panic:
                break
    return head + (f" ({panic.group(0).strip()})" if panic else "")


def cases_from_output(output_xml: Path, expected_kernels: dict[str, str] | None = None) -> tuple[list[Case], str | None]:
    """Robot's output.xml -> LAVA test cases (the kernel each booted cell ran first), and the
    reason the board did not come up (the suite set-up's failure) or None."""
    from robot.api import ExecutionResult
    result = ExecutionResult(str(output_xml))
    cases: list[Case] = []
    setup_failure = None
    suites = [result.suite] if result.suite.tests else list(result.suite.suites)
    cases.extend(kernel_cases([it for su in suites for it in (su.setup, *su.tests) if it], expected_kernels or {}))
    for suite in suites:
        prefix = slug(suite.name)
        if suite.setup:
            for name, value, units in _figures(suite.setup):
                cases.append(Case(f"{prefix}-setup_{name}", "pass", "", value, units))
            if suite.setup.status == "FAIL":
                setup_failure = SetupFailure(f"suite {suite.name} set-up failed: "
                                             f"{reason_of(suite.setup.message or 'no message')}")
                setup_failure.detail = suite.setup.message or ""
        for test in suite.tests:
            if test.name == BOARD_UP_TEST and test.status == "FAIL" and setup_failure is None:
                first = next(t for t in suite.tests if t.status == "FAIL")
                setup_failure = SetupFailure(f"suite {suite.name}: the board did not come up: "
                                             f"{reason_of(first.message or 'no message')}")
                setup_failure.detail = first.message or ""
            name = slug(test.name)
            cases.append(Case(name, RESULTS.get(test.status, "unknown"), " ".join(test.message.split())))
            for fig, value, units in _figures(test):
                cases.append(Case(f"{name}_{fig}", "pass", "", value, units))
        if suite.teardown and suite.teardown.status == "FAIL":
            cases.append(Case(f"{prefix}-teardown", "fail", " ".join(suite.teardown.message.split())))
    return cases, setup_failure


def report(cases: list[Case], setup_failure: str | None, out=None) -> None:
    out = out or sys.stdout
    in_lava = shutil.which("lava-test-case") is not None
    for c in cases:
        if c.message:
            print(f"{c.name}: {c.result.upper()}: {c.message}", file=out, flush=True)
        if in_lava and c.reference is not None:
            # one token: LAVA splits a signal's fields at white space
            subprocess.run(["lava-test-reference", c.name, "--result", c.result,
                            "--reference", "".join(c.reference.split()) or "unknown"], check=False)
        elif in_lava:
            cmd = ["lava-test-case", c.name, "--result", c.result]
            if c.measurement is not None:
                cmd += ["--measurement", f"{c.measurement:g}", "--units", c.units or "none"]
            subprocess.run(cmd, check=False)
        else:
            fig = f"{c.measurement:g} {c.units}" if c.measurement is not None else (c.reference or "")
            print(f"  {c.result:5} {c.name} {fig}".rstrip(), file=out, flush=True)
    if setup_failure:
        if getattr(setup_failure, "detail", ""):
            print(setup_failure.detail, file=out, flush=True)
        print(setup_failure, file=out, flush=True)
        if shutil.which("lava-test-raise"):
            # The board did not come up: the job ends Incomplete, with this as its reason.
            subprocess.run(["lava-test-raise", setup_failure[:400]], check=False)


def robot_env() -> dict[str, str]:
    env = dict(os.environ)
    root = paths.repo_root()
    java = paths.java_home()
    venv_bin = root / "build" / "venv" / "bin"
    env.update(RTDROID_HOME=str(root), JAVA_HOME=str(java),
               PATH=f"{java / 'bin'}:{venv_bin}:{env.get('PATH', '/usr/bin:/bin')}")
    return env


def run_suite(board: str, suite: str, variables: str | None, robot_variables: list[str],
              output_dir: Path, images: Path | None = None) -> Path:
    """Runs the suite as `make robot` does; returns output.xml. The board comes down after it,
    whatever happened (the suite's teardown does it too)."""
    root = paths.repo_root()
    suites = suite_files()
    if suite not in suites:
        raise RuntimeError(f"--suite {suite}: no such suite (one of {', '.join(suites)})")
    output_dir.mkdir(parents=True, exist_ok=True)
    python = root / "build" / "venv" / "bin" / "python"
    # the variables `make robot` gives the board (its file's tests: section), or another board's
    cmd = [str(python if python.exists() else sys.executable), "-m", "robot",
           "--outputdir", str(output_dir),
           "--variablefile", f"{root / 'tests' / 'robot' / 'variables' / 'board.py'}:{variables or board}",
           "--listener", str(root / "tests" / "robot" / "libraries" / "LatencyListener.py"),
           "--consolewidth", "100"]
    if variables or board.endswith(".yaml"):
        # the board the suite boots: another board's variables, or a board file by its path (a
        # lab's variant of a board, whose own name is not one of board-configs/)
        cmd += ["--variable", f"BOARD:{board}"]
    for v in robot_variables:
        cmd += ["--variable", v]
    if images:  # every board up of the suite boots the RT cell from these (a job deployed them)
        if not images.is_dir():
            raise RuntimeError(f"--images {images}: no such directory (did the job's deploy run?)")
        cmd += ["--variable", f"RT_IMAGES:{images.resolve()}"]
    cmd.append(str(suites[suite]))
    env = robot_env()
    print("$ " + " ".join(cmd), flush=True)

    def ended(signum, _frame):  # LAVA cancelled the job or the lab went down: the ssh session hangs up
        raise SystemExit(f"ended by signal {signum}")
    for sig in (signal.SIGHUP, signal.SIGTERM):
        signal.signal(sig, ended)
    try:
        subprocess.run(cmd, env=env, cwd=root, check=False)
    finally:
        # the board's cells run in sessions of their own: they outlive a hung-up suite unless brought down
        subprocess.run([str(root / "build" / "venv" / "bin" / "rtdroid"), "board", "down"], env=env,
                       cwd=root, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return output_dir / "output.xml"


def main(board: str, suite: str, variables: str | None, robot_variables: list[str],
         output_dir: Path | None, expected_kernels: dict[str, str] | None = None, images: Path | None = None) -> int:
    out = output_dir or paths.build_dir() / "lab" / "robot" / Path(board).stem / suite
    xml = run_suite(board, suite, variables, robot_variables, out, images)
    if not xml.is_file():
        reason = f"Robot wrote no results for suite {suite} on board {board} ({xml} missing)"
        print(reason, flush=True)
        if shutil.which("lava-test-raise"):
            subprocess.run(["lava-test-raise", reason], check=False)
        return 1
    cases, setup_failure = cases_from_output(xml, expected_kernels)
    report(cases, setup_failure)
    return 0 if all(c.result != "fail" for c in cases) and not setup_failure else 1
