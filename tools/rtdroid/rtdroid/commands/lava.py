"""`rtdroid lava ...`: the boards in a LAVA lab.

  lava render [--board B ...|--all] [--output DIR] [--check|--update-golden] [--ssh-port N]
      the LAVA device dictionary, device-type template and job definition of each board
  lava robot --board B --suite S [--variables V] [--robot-variable K:V ...] [--expect kernel.CELL=K ...]
             [--images DIR]
      run one Robot suite (what a job's test definition runs on the board's root side) and report
      its tests as LAVA test cases with their measurements, and the kernel each booted cell ran
  lava submit --board B ... [--identity I] [--timeout S]
      submit the boards' jobs through lavacli, wait, print each job and its results
  lava build --board B [--expect KEY=VALUE ...]
      the commit the board runs here (a job's first test definition), as LAVA test cases; failed
      where it is not what the job's metadata names
  lava results [--board B] [--commit C] [--kernel K] [--limit N]
      the lab's finished jobs of a commit or kernel, with their figures
  lava compare --commit A --commit B [--board B] [--limit N]
      two commits' figures side by side, per board (the newest complete job of each)
  lava validate [--device DICT --templates DIR ...] JOB...
      check rendered jobs as LAVA does (its job schema; on the device, the dispatcher's validation)
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from .. import paths
from ..errors import BoardError
from ..boardconfig import available_boards, load_board
from ..lava import build as lava_build
from ..lava import history as lava_history
from ..lava import images as lava_images
from ..lava import lab as lava_lab
from ..lava import render as lava_render
from ..lava import robot as lava_robot
from ..lava.render import NotALabBoard  # noqa: F401  (a RuntimeError: one line)


def _boards(a) -> list[str]:
    if a.all:
        return available_boards()
    if not a.boards:
        raise RuntimeError("name a board (--board B) or --all")
    return a.boards


def cmd_render(a) -> int:
    site = lava_render.Site(ssh_port=a.ssh_port)
    code = 0
    for name in _boards(a):
        board = load_board(name)
        if a.all and not lava_render.is_lab_board(board):
            print(f"{board.name}: skipped: not a lab board (Jailhouse on emulated arm64 runs nowhere here)")
            continue
        if a.check:
            bad = lava_render.compare_with_golden(board)
            print(f"{board.name}: " + (f"LAVA rendering differs from golden: {', '.join(bad)}" if bad
                                       else "LAVA rendering matches golden"))
            code |= 1 if bad else 0
        elif a.update_golden or a.output:
            # the golden files name a placeholder build; a lab's files the checkout's own
            build = lava_build.current(board) if a.output else None
            images = _published(board) if a.output else None
            for p in lava_render.write(board, a.output or lava_render.golden_dir(), site, build, images):
                print(f"wrote {p}")
        else:
            for fname, text in lava_render.rendered_files(board, site).items():
                print(f"# {fname}")
                print(text, end="")
    return code


def _expected(a) -> dict[str, str]:
    expected = {}
    for e in a.expect:
        key, sep, value = e.partition("=")
        if not sep or not key:
            raise RuntimeError(f"--expect {e}: not KEY=VALUE")
        expected[key] = value
    return expected


def _published(board):
    """The board's images, built and published where the local lab fetches them (None: the board
    boots no images of its own)."""
    return lava_images.publish(board) if lava_images.deploys_images(board) else None


def cmd_robot(a) -> int:
    kernels = {}
    for key, value in _expected(a).items():
        if not key.startswith("kernel."):
            raise RuntimeError(f"--expect {key}: a suite checks the kernels its cells boot (kernel.CELL=RELEASE)")
        kernels[key[len("kernel."):]] = value
    return lava_robot.main(a.board, a.suite, a.variables, a.robot_variable, a.output, kernels, a.images)


def cmd_submit(a) -> int:
    out = a.output or Path("build/lab/jobs")
    jobs = {}
    for name in _boards(a):
        board = load_board(name)
        f = out / f"{board.name}.yaml"
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(lava_render.job_yaml(board, suites=a.suite or None, build=lava_build.current(board),
                                          images=_published(board)), encoding="utf-8")
        jobs[board.name] = f
    try:
        return lava_lab.run_jobs(a.identity, jobs, a.timeout)
    except lava_lab.LabError as e:
        print(f"rtdroid: {e}", file=sys.stderr)
        return 1


def cmd_build(a) -> int:
    expected = _expected(a)
    want = lava_build.from_metadata(expected)
    if expected and want is None:
        raise RuntimeError("--expect names no build.commit")
    return lava_build.report(lava_build.current(load_board(a.board)), want)


def cmd_results(a) -> int:
    try:
        print(lava_history.table(lava_history.runs(a.identity, a.limit, a.board, a.commit, a.kernel)), end="")
    except lava_lab.LabError as e:
        print(f"rtdroid: {e}", file=sys.stderr)
        return 1
    return 0


def cmd_compare(a) -> int:
    if len(a.commits) != 2:
        raise RuntimeError("name two commits: --commit A --commit B")
    try:
        found = [lava_history.runs(a.identity, a.limit, a.board, c) for c in a.commits]
    except lava_lab.LabError as e:
        print(f"rtdroid: {e}", file=sys.stderr)
        return 1
    print(lava_history.compare(*found), end="")
    return 0


def cmd_validate(a) -> int:
    # LAVA's checks are its own Python (Debian's python3 with the LAVA packages), not the venv's
    lab = paths.repo_root() / "tools" / "lab"
    if not Path("/usr/lib/python3/dist-packages/lava_common").is_dir():
        raise BoardError("LAVA's packages are not installed (make lab installs them)")
    code = "import sys; sys.path.insert(0, sys.argv.pop(1)); import lavacheck; sys.exit(lavacheck.main(sys.argv[1:]))"
    return subprocess.run(["/usr/bin/python3", "-c", code, str(lab),
                           *(["--device", str(a.device.resolve())] if a.device else []),
                           *(x for t in a.templates for x in ("--templates", str(t.resolve()))),
                           *(str(j.resolve()) for j in a.jobs)],
                          env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": str(Path.home())}).returncode


def register(commands) -> None:
    lava = commands.group("lava", help="the boards in a LAVA lab: devices, jobs, Robot results as LAVA test cases")

    sp = lava.add_parser("render", help="device dictionary, device-type template and job of each board")
    sp.add_argument("--board", dest="boards", action="append", metavar="NAME",
                    help="board name or YAML path (repeatable)")
    sp.add_argument("--all", action="store_true", help="every board in board-configs/")
    sp.add_argument("--output", type=Path, metavar="DIR", help="write devices/, device-types/, jobs/ under DIR")
    sp.add_argument("--check", action="store_true", help="compare with hypervisor-cells/lava/golden/")
    sp.add_argument("--update-golden", action="store_true", help="rewrite hypervisor-cells/lava/golden/")
    sp.add_argument("--ssh-port", type=int, default=2222, metavar="N",
                    help="the lab's ssh port to the boards' root side (default 2222)")
    sp.set_defaults(func=cmd_render)

    sp = lava.add_parser("robot", help="run one Robot suite, report its tests as LAVA test cases")
    sp.add_argument("--board", required=True, metavar="NAME", help="board name or YAML path")
    sp.add_argument("--suite", required=True, choices=list(lava_render.suite_files()))
    sp.add_argument("--variables", metavar="BOARD",
                    help="the Robot variables of this board (default: the board's own)")
    sp.add_argument("--robot-variable", action="append", default=[], metavar="NAME:VALUE",
                    help="a Robot variable to override (repeatable)")
    sp.add_argument("--output", type=Path, metavar="DIR", help="Robot's output dir (default build/lab/robot/B/S)")
    sp.add_argument("--expect", action="append", default=[], metavar="kernel.CELL=RELEASE",
                    help="the kernel the job names for a cell: its kernel-CELL case fails when the booted "
                         "cell runs another (repeatable)")
    sp.add_argument("--images", type=Path, metavar="DIR",
                    help="boot the board from the images in DIR (the job deployed them) instead of the build's")
    sp.set_defaults(func=cmd_robot)

    sp = lava.add_parser("submit", help="submit boards' jobs through lavacli, wait, print their results")
    sp.add_argument("--board", dest="boards", action="append", metavar="NAME", help="board (repeatable)")
    sp.set_defaults(all=False)
    sp.add_argument("--suite", action="append", choices=list(lava_render.suite_files()),
                    help="only these suites (repeatable; default every suite the board runs)")
    sp.add_argument("--identity", default="rtdroid-lab", help="lavacli identity (default rtdroid-lab)")
    sp.add_argument("--timeout", type=float, default=7200, metavar="S", help="per job, seconds (default 7200)")
    sp.add_argument("--output", type=Path, metavar="DIR", help="where the submitted jobs are written")
    sp.set_defaults(func=cmd_submit)

    sp = lava.add_parser("build", help="the commit the board runs here, as LAVA test cases")
    sp.add_argument("--board", required=True, metavar="NAME", help="board name or YAML path")
    sp.add_argument("--expect", action="append", default=[], metavar="KEY=VALUE",
                    help="what the job's metadata names (build.commit=..., kernel.rt=...; repeatable)")
    sp.set_defaults(func=cmd_build)

    sp = lava.add_parser("results", help="the lab's finished jobs of a commit or kernel, with their figures")
    sp.add_argument("--board", metavar="NAME", help="only this board's jobs")
    sp.add_argument("--commit", metavar="C", help="a commit: hash prefix (7+ digits) or git describe")
    sp.add_argument("--kernel", metavar="K", help="a kernel release on any cell, or CELL=RELEASE")
    sp.add_argument("--limit", type=int, default=50, metavar="N", help="look at the newest N finished jobs (50)")
    sp.add_argument("--identity", default="rtdroid-lab", help="lavacli identity (default rtdroid-lab)")
    sp.set_defaults(func=cmd_results)

    sp = lava.add_parser("compare", help="two commits' figures side by side, per board")
    sp.add_argument("--commit", dest="commits", action="append", default=[], metavar="C",
                    help="a commit (give two: A then B)")
    sp.add_argument("--board", metavar="NAME", help="only this board")
    sp.add_argument("--limit", type=int, default=50, metavar="N", help="look at the newest N finished jobs (50)")
    sp.add_argument("--identity", default="rtdroid-lab", help="lavacli identity (default rtdroid-lab)")
    sp.set_defaults(func=cmd_compare)

    sp = lava.add_parser("validate", help="check rendered jobs as LAVA does: its schema, the dispatcher on a device")
    sp.add_argument("--device", type=Path, metavar="DICT",
                    help="a device dictionary: render it through LAVA's templates, validate each job on it")
    sp.add_argument("--templates", type=Path, action="append", default=[], metavar="DIR",
                    help="device-type templates of the project's own (repeatable; LAVA's come after them)")
    sp.add_argument("jobs", nargs="+", type=Path, metavar="JOB")
    sp.set_defaults(func=cmd_validate)
