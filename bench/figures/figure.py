"""What a figure of the page is: its catalogue entry (``Figure``), what its draw function reads
(``Context``) and what it finds (``Section``), and the start every draw function of one benchmark's
result makes (``opened``). The catalogue (catalog.py) and the figures in modules of their own
(sensor_path.py, seed004.py) all build on this.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from data import Result, load, platform

US = 1e-3  # microseconds in a nanosecond: samples are in ns, tables and plots in µs


@dataclass
class Section:
    """What a figure's draw function found: the page shows it as one section."""
    images: list[Path] = field(default_factory=list)
    header: list[str] = field(default_factory=list)
    rows: list[list] = field(default_factory=list)
    outcome: str = ""          # one line: does ours show the seed's outcome, on which board
    status: str = "reproduced"  # reproduced | differs | not run
    why: str = ""               # when it differs: why, in one line
    notes: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    board: str = ""
    time_base: str = ""

    def judge(self, same, why: str) -> None:
        """The verdict: reproduced when ``same`` (ours shows the seed's outcome), else differs,
        because of ``why``."""
        self.status = "reproduced" if same else "differs"
        self.why = "" if same else why


@dataclass
class Figure:
    id: str          # "Fig. 3.9", "Table 4.2"
    title: str
    seed_form: str   # how the seed presents it
    seed_says: str   # the seed's numbers and outcome, with its platform
    jobs: tuple[str, ...]
    draw: Callable[["Context"], Section]

    @property
    def slug(self) -> str:
        return re.sub(r"[^a-z0-9.]+", "-", self.id.lower().replace("fig. ", "fig-")).strip("-")


@dataclass
class Context:
    data: Path   # where the jobs wrote their JSON
    out: Path    # the page's directory (PNGs go here)
    form: str

    def result(self, bench: str) -> Result | None:
        return load(self.data, bench)

    def png(self, figure: Figure, suffix: str = "") -> Path:
        return self.out / f"{figure.slug}{suffix}.png"


HOST_TIME_BASE = "host CLOCK_MONOTONIC (wall-clock time of this machine, not virtual time)"


def host_section(result: Result) -> Section:
    return Section(commands=[result.command], board=platform(result), time_base=HOST_TIME_BASE)


def missing(bench: str) -> Section:
    return Section(status="not run", outcome=f"no result: the {bench} job did not write {bench}.json")


def opened(ctx: Context, bench: str) -> tuple[Result | None, Section]:
    """The bench's result and the host board's section it starts; without a result, None and a
    'not run' section (the draw function returns it as it is)."""
    r = ctx.result(bench)
    return (None, missing(bench)) if r is None else (r, host_section(r))
