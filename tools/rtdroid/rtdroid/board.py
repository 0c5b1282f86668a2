"""A validated board as the tooling reads it (Board), and the arithmetic of its region, memory
windows and CPU lists. boardconfig loads and checks board files into a Board; the hypervisor
modules, which boardconfig asks for their own rules, read a Board from here, so the two never
import each other.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import paths

MIB = 1024 * 1024
REGION_HEADER_AND_STATE_BYTES = 256  # region-spec.md: 128-byte header + 2 state lines of 64 B


def section_bytes(rings: int, slots: int, slot_bytes: int) -> int:
    """region-spec.md: 64·R consumer lines + R rings of (64-byte header + S slots)."""
    return 64 * rings + rings * (64 + slots * slot_bytes)


def formatted_region_bytes(rings: int, slots: int, slot_bytes: int) -> int:
    return REGION_HEADER_AND_STATE_BYTES + 2 * section_bytes(rings, slots, slot_bytes)


@dataclass(frozen=True)
class Board:
    """A validated board. ``data`` is the parsed YAML; helpers give the parts tooling needs."""

    data: dict
    source: str

    @property
    def name(self) -> str:
        return self.data["board"]

    @property
    def hypervisor(self) -> str:
        return self.data["hypervisor"]

    def cell(self, role: str) -> dict:
        return next(c for c in self.data["cells"] if c["role"] == role)

    @property
    def rt(self) -> dict:
        return self.cell("rt")

    @property
    def android(self) -> dict:
        return self.cell("android")

    @property
    def region(self) -> dict:
        return self.data["regions"][0]

    @property
    def region_path(self) -> Path:
        """The region's file on this machine, named for this board and this checkout."""
        return Path(self.region["backing"].format(board=self.name, checkout=paths.checkout_id()))

    @property
    def rendered_region_path(self) -> str:
        """The region's file as a rendering names it: the checkout a placeholder, ${CHECKOUT},
        which `board up` resolves (golden files stay the same on every machine)."""
        return self.region["backing"].format(board=self.name, checkout="${CHECKOUT}")

    @property
    def region_formatted_bytes(self) -> int:
        r = self.region
        return formatted_region_bytes(r["rings"], r["slots"], r["slot_bytes"])

    @property
    def control_port(self) -> int:
        return int(self.android.get("control_port", 7411))

    @property
    def adb_port(self) -> int:
        """The Android cell's adb device side (127.0.0.1; adb's own default 5555)."""
        return int(self.android.get("adb_port", 5555))


def memory_overlaps(ranges: list[tuple[str, int, int]]) -> list[tuple[str, Any, str]]:
    """Problems for memory windows (field path, base, size) that overlap one another: for
    hypervisors whose board files place memory (guest RAM banks, static shared memory)."""
    probs = []
    ordered = sorted(ranges, key=lambda r: r[1])
    for (p1, b1, s1), (p2, b2, s2) in zip(ordered, ordered[1:]):
        if b2 < b1 + s1:
            probs.append((p2, hex(b2), f"memory [{b2:#x}, {b2 + s2:#x}) overlaps {p1} "
                                       f"[{b1:#x}, {b1 + s1:#x})"))
    return probs


def parse_cpu_list(text: str) -> list[int]:
    """Kernel cpu-list syntax: 0,2-3 (isolcpus may carry flags such as 'domain,managed_irq,')."""
    cpus: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part or part in ("domain", "managed_irq", "nohz"):
            continue
        m = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
        if not m:
            raise ValueError(f"not a CPU list element: {part!r}")
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) else lo
        if hi < lo:
            raise ValueError(f"descending range {part!r}")
        cpus.extend(range(lo, hi + 1))
    return cpus
