"""What a LAVA job tests: the project's commit and the kernel each cell of the board runs.

A lab runs one job per board, per commit and per kernel; the job carries them twice:
- as job metadata (`build.commit`, `build.describe`, `build.dirty`, `kernel.<cell>`), set by
  whoever renders the job (`rtdroid lava submit`, `rtdroid lava render --output`) from the
  checkout it renders in;
- as LAVA results: the job's first test definition, `build` (`rtdroid lava build` on the board's
  root side), reads the commit from the checkout there and reports each value as a test case
  whose reference is the value (`lava-test-reference`), failed when it is not what the job's
  metadata says (the root side runs another commit than the one submitted); each Robot suite
  reports `kernel-<cell>`, the kernel its booted cells run as read from them (the RT cell's
  agent's `uname -r`, the Android cell's root side's), failed when it is not the one the job
  names (`lava/robot.py`).

`rtdroid lava results` lists finished jobs by commit and kernel with their figures, and
`rtdroid lava compare` sets two commits' figures side by side, from these.
"""
from __future__ import annotations

import platform
import shutil
import subprocess
import sys
from dataclasses import dataclass, field

from .. import hypervisors, paths
from ..boardconfig import Board

UNKNOWN = "unknown"


@dataclass(frozen=True)
class Build:
    commit: str                 # the full commit hash
    describe: str               # `git describe --always --dirty`: tag, distance, short hash, -dirty
    dirty: bool                 # the checkout differs from the commit (tracked files changed)
    kernels: dict[str, str] = field(default_factory=dict)   # cell name -> kernel release

    def metadata(self) -> dict[str, str]:
        m = {"build.commit": self.commit, "build.describe": self.describe,
             "build.dirty": "yes" if self.dirty else "no"}
        m.update({f"kernel.{cell}": k for cell, k in self.kernels.items()})
        return m

    def cases(self) -> dict[str, str]:
        """The `build` test definition's LAVA test case names -> their values (the cases'
        references). The kernels are not among them: each suite reports the kernel its booted
        cells run (`lava.robot.kernel_cases`), which the root side's build cannot know."""
        return {"build-commit": self.commit, "build-describe": self.describe,
                "build-dirty": "yes" if self.dirty else "no"}


def from_metadata(meta: dict) -> Build | None:
    """The build a job's metadata names; None for a job rendered without one."""
    if not meta or "build.commit" not in meta:
        return None
    kernels = {k[len("kernel."):]: str(v) for k, v in meta.items() if k.startswith("kernel.")}
    return Build(str(meta["build.commit"]), str(meta.get("build.describe", "")),
                 str(meta.get("build.dirty")) == "yes", kernels)


def _git(*args: str) -> str | None:
    root = paths.repo_root()
    if shutil.which("git") is None:
        return None
    # safe.directory: the lab's root-side login may be another user than the checkout's owner
    p = subprocess.run(["git", "-c", f"safe.directory={root}", "-C", str(root), *args],
                       capture_output=True, text=True)
    return p.stdout.strip() if p.returncode == 0 else None


def cell_kernels(board: Board) -> dict[str, str]:
    """Cell name -> the release of the kernel it runs: the RT cell's from its hypervisor (the
    kernel the board boots, or the host's for a process); the Android cell is a process on the
    root side, whose kernel is this machine's on the boards whose root side is this machine."""
    hv = hypervisors.get(board.hypervisor)
    out = {}
    for cell in board.data["cells"]:
        if cell["role"] == "rt":
            release = hv.rt_kernel_release(board)
        else:
            release = platform.release() if board.hypervisor in ("process", "qemu", "xen") else None
        out[cell["name"]] = release or UNKNOWN
    return out


def current(board: Board) -> Build:
    """The checkout's commit and the kernels this machine's build gives the board's cells."""
    commit = _git("rev-parse", "HEAD") or UNKNOWN
    describe = _git("describe", "--always", "--dirty", "--abbrev=12") or UNKNOWN
    status = _git("status", "--porcelain", "--untracked-files=no")
    return Build(commit, describe, bool(status), cell_kernels(board))


def example(board: Board) -> Build:
    """The placeholder build of the golden job files (rendering is machine-independent there):
    `rtdroid lava render --output` and `rtdroid lava submit` put the real one in."""
    return Build("COMMIT", "DESCRIBE", False, {c["name"]: f"KERNEL-{c['name'].upper()}" for c in board.data["cells"]})


def differences(got: Build, want: Build) -> list[str]:
    """What the root side runs that the job did not name, one phrase each."""
    out = []
    g, w = got.cases(), want.cases()
    for name, value in w.items():
        if name == "build-describe":
            continue  # the same commit may be described differently (a tag pushed since)
        if g.get(name) != value:
            out.append(f"{name} is {g.get(name, 'missing')}, the job names {value}")
    return out


def report(got: Build, want: Build | None, out=None) -> int:
    """Prints the build and, inside a LAVA test shell, signals each value as a test case with
    the value as its reference: fail where it differs from what the job names. 1 when any differs."""
    out = out or sys.stdout
    bad = set()
    if want is not None:
        for line in differences(got, want):
            print(f"build: {line}", file=out, flush=True)
            bad.add(line.split(" ", 1)[0])
    in_lava = shutil.which("lava-test-reference") is not None
    for name, value in got.cases().items():
        result = "fail" if name in bad else "pass"
        if in_lava:
            # one token: LAVA splits a signal's fields at white space
            subprocess.run(["lava-test-reference", name, "--result", result,
                            "--reference", "".join(value.split()) or UNKNOWN], check=False)
        else:
            print(f"  {result:5} {name} {value}", file=out, flush=True)
    return 1 if bad else 0
