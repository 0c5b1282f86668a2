"""What an RT cell that is a guest in a QEMU machine says about its start (the qemu and xen
hypervisors): the lines the project's guest /init prints on the console (hypervisor-cells/*/init)
and what QEMU's own log says when the machine can never get to ready. Hypervisor-specific lines
(Xen's own console) stay in that hypervisor's module.
"""
from __future__ import annotations

import re
from pathlib import Path

from .base import Hypervisor

# The RT cell's state storage (its version record: a qemu cell's state disk, a Xen RT domU's state
# bank) is a file the board creates blank and the cell then writes. A lab deploys a blank one
# with the board's images (its SHA-256 checked like theirs); `board up --images DIR` then runs the
# cell on DIR's copy, the job's own storage across its suites' restarts. Without one, the run
# directory's (kept by `board down`).
STATE_IMAGE = "rt-state.img"
STATE_VALUE = "RT_STATE"  # the argv's ${RT_STATE}: the state file the cell runs on


def blank_state_image(path: Path, size: int) -> Path:
    """The board's blank state image (the lab deploys it): SIZE zero bytes at PATH, rewritten
    when it is anything else (no cell ever writes this one)."""
    if not (path.is_file() and path.stat().st_size == size and path.read_bytes() == bytes(size)):
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        with tmp.open("wb") as f:
            f.truncate(size)
        tmp.replace(path)
    return path


def deployed_state(directory: Path) -> dict[str, str]:
    """The argv value for a state image deployed with the images in DIRECTORY, if there is one."""
    state = directory / STATE_IMAGE
    return {STATE_VALUE: str(state)} if state.is_file() else {}

# /init's first line once the kernel is up and the region is found: "RTCELL realtime=1 ... uptime=3.21"
_INIT_LINE = re.compile(r"RTCELL realtime=(\d)[^\n]*uptime=([\d.]+)")
_INIT_REALTIME = re.compile(r"RTCELL realtime=(\d)")
# What QEMU prints when KVM stops the guest: QEMU keeps running, the guest never goes on.
STOPPED_BY_KVM = "KVM internal error"


class Guest(Hypervisor):
    """Defaults for an RT cell booted by the project's /init in a QEMU machine."""

    boot_milestones = (("kernel_init", r"RTCELL realtime="),)

    def kernel_booted(self, text: str) -> str | None:
        m = _INIT_LINE.search(text)
        return f"realtime={m.group(1)}, guest uptime {m.group(2)} s" if m else None

    def kernel_realtime(self, text: str) -> int:
        # /init says it on a cold boot; a cell restored from its snapshot has no boot lines on
        # this console, and the agent says it after attaching (the default's reading).
        m = _INIT_REALTIME.search(text)
        return int(m.group(1)) if m else super().kernel_realtime(text)

    def start_refused(self, machine_log: str) -> str | None:
        if STOPPED_BY_KVM in machine_log:
            return "KVM stopped the guest (set `accel: tcg` in the board file)"
        return None
