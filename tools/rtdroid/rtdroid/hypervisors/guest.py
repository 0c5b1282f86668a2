"""What an RT cell that is a guest in a QEMU machine says about its start (the qemu and xen
hypervisors): the lines the project's guest /init prints on the console (hypervisor-cells/*/init)
and what QEMU's own log says when the machine can never get to ready. Hypervisor-specific lines
(Xen's own console) stay in that hypervisor's module.
"""
from __future__ import annotations

import re

from .base import Hypervisor

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
