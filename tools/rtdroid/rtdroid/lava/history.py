"""The lab's finished jobs by the build they tested: `rtdroid lava results` (the jobs of a commit or
kernel with their figures) and `rtdroid lava compare` (two commits' figures side by side).

A job's build is its metadata (build.py); its figures are the LAVA measurements its Robot suites
recorded (robot.py). Jobs without a build in their metadata (health checks, jobs rendered before
jobs named one) are left out.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import yaml

from . import lab
from .build import Build, from_metadata


@dataclass
class Run:
    job_id: int
    board: str
    health: str
    build: Build
    figures: dict[str, tuple[float, str]]   # "<suite>.<case>" -> (value, unit)


def figures(rows: list[dict]) -> dict[str, tuple[float, str]]:
    """A job's measurements: the test cases of its Robot suites that carry one, by
    `<suite>.<case>` (the suite without LAVA's order prefix: robot-latency)."""
    out = {}
    for r in rows:
        m = r.get("measurement")
        if r.get("suite") == "lava" or m in (None, "None", ""):
            continue
        suite = re.sub(r"^\d+_", "", str(r.get("suite")))
        out[f"{suite}.{r.get('name')}"] = (float(m), str(r.get("unit") or ""))
    return out


def matches(build: Build, commit: str | None = None, kernel: str | None = None) -> bool:
    """A commit is matched by a prefix of its hash (at least 7 digits) or by its describe; a
    kernel by its release, on any cell, or by `cell=release`."""
    if commit and not ((len(commit) >= 7 and build.commit.startswith(commit)) or build.describe == commit):
        return False
    if kernel:
        cell, _, release = kernel.rpartition("=")
        if cell:
            return build.kernels.get(cell) == release
        return release in build.kernels.values()
    return True


def runs(identity: str, limit: int = 50, board: str | None = None, commit: str | None = None,
         kernel: str | None = None) -> list[Run]:
    """The newest `limit` finished jobs that name a build matching these, newest first."""
    rows = yaml.safe_load(lab.lavacli(identity, "jobs", "list", "--state", "FINISHED", "--verbose",
                                      "--yaml", "--limit", str(limit))) or []
    out = []
    for r in rows:
        if r.get("submitter") == lab.HEALTH_CHECK_SUBMITTER:
            continue
        definition = yaml.safe_load(lab.lavacli(identity, "jobs", "definition", str(r["id"]))) or {}
        meta = definition.get("metadata") or {}
        b = from_metadata(meta)
        if b is None or (board and meta.get("board") != board) or not matches(b, commit, kernel):
            continue
        out.append(Run(int(r["id"]), str(meta.get("board")), str(r.get("health")), b,
                       figures(lab.results(identity, int(r["id"])))))
    return out


def _value(v: tuple[float, str] | None) -> str:
    return f"{v[0]:g} {v[1]}".rstrip() if v else "-"


def table(found: list[Run]) -> str:
    if not found:
        return "no finished job names such a build\n"
    lines = []
    for r in found:
        kernels = ", ".join(f"{c} {k}" for c, k in r.build.kernels.items())
        lines.append(f"job {r.job_id} {r.board} {r.health}: {r.build.describe} "
                     f"({r.build.commit[:12]}{', dirty' if r.build.dirty else ''}); kernels {kernels}")
        lines += [f"    {name} {_value(v)}" for name, v in sorted(r.figures.items())]
    return "\n".join(lines) + "\n"


def newest_complete(found: list[Run], board: str) -> Run | None:
    return next((r for r in found if r.board == board and r.health == "Complete"), None)


def compare(a: list[Run], b: list[Run]) -> str:
    """Per board, the newest complete job of each commit: every figure of either, side by side,
    with B/A (from one job each: a figure's spread across runs is the benchmarks' to judge)."""
    lines = []
    for board in sorted({r.board for r in a + b}):
        ra, rb = newest_complete(a, board), newest_complete(b, board)
        if not ra or not rb:
            missing = "A" if not ra else "B"
            lines.append(f"{board}: no complete job of commit {missing}")
            continue
        lines.append(f"{board}: A = job {ra.job_id} {ra.build.describe}, B = job {rb.job_id} {rb.build.describe}")
        if ra.build.kernels != rb.build.kernels:
            lines.append(f"  kernels differ: A {ra.build.kernels}, B {rb.build.kernels}")
        for name in sorted(set(ra.figures) | set(rb.figures)):
            va, vb = ra.figures.get(name), rb.figures.get(name)
            ratio = f"{vb[0] / va[0]:.2f}" if va and vb and va[0] else "-"
            lines.append(f"  {name:70} {_value(va):>14} {_value(vb):>14}  B/A {ratio}")
    return "\n".join(lines) + "\n" if lines else "no job of either commit\n"
