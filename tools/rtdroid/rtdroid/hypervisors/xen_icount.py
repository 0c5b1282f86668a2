"""The `xen` board's machine in virtual time: one emulated CPU under QEMU -icount (icount.py), Xen
on it with the null scheduler in cpupool 0 (`sched=null`), and the RT cell's one vCPU owning it.

Virtual time needs a one-CPU machine: under -icount QEMU runs the vCPUs round-robin on one host
thread, and with two, Xen's boot hangs in setup_virt_paging (one CPU spins in a cross-CPU call
while the one it waits for gets no turn). With one CPU there are no boot-time cpupools (they need a
second CPU) and no room for another domU beside the RT cell: the null scheduler gives the CPU to
one vCPU, so `xen.domains` is refused here (xen_pooled.py is the SMP machine that holds them).
The RT cell's `cpus` are the host CPU(s) the machine runs on; machine CPU 0 is the RT cell's.
"""
from __future__ import annotations

from ..board import Board
from . import icount
from .base import Problem


class Machine:

    def check(self, data: dict) -> list[Problem]:
        probs: list[Problem] = []
        rt_i, rt = next((i, c) for i, c in enumerate(data["cells"]) if c["role"] == "rt")
        if rt.get("vcpus", 1) != 1:
            probs.append((f"cells[{rt_i}].vcpus", rt["vcpus"],
                          "a virtual-time xen board has one machine CPU: the RT cell has one vCPU"))
        if len(rt["cpus"]) != 1:
            probs.append((f"cells[{rt_i}].cpus", rt["cpus"],
                          "a virtual-time xen board runs its one machine CPU on one host CPU"))
        if data["xen"].get("domains"):
            probs.append(("xen.domains", [d["name"] for d in data["xen"]["domains"]],
                          "a virtual-time xen board has one machine CPU, the RT cell's (null scheduler): "
                          "a further domU needs the host-clock SMP machine (no clock: virtual; "
                          "see board-configs/qemu-arm64-xen-smp.yaml)"))
        return probs

    def cpu_count(self, board: Board) -> int:
        return 1

    def accel_args(self, board: Board) -> list[str]:
        return ["-accel", "tcg", *icount.args(board)]

    def xen_bootargs(self) -> str:
        # vwfi=native: the RT cell's WFI halts the CPU it owns instead of trapping into Xen, as
        # Xen advises when a vCPU owns its pCPU (null scheduler), so the cell's idle and wake-up
        # go through its own virtual timer alone. It is also what a boot snapshot can restore:
        # QEMU 7.2 migrates the EL1 timers but not EL2's, so a domU blocked in Xen would wait
        # after a restore for a hypervisor timer no longer armed: the likely cause of the restore
        # hang fresh clones saw before ("icount sleep disabled and no active timers"); with
        # vwfi=native their restores run.
        return "sched=null vwfi=native"

    def cpupools(self, board: Board) -> str:
        return ""

    def pool_property(self, kind: str) -> str:
        return "/* cpupool 0: the machine's one CPU, null scheduler */"

    def clock(self, board: Board) -> dict:
        return icount.clock(board)

    def describe(self, board: Board) -> str:
        return f"RT cell on the machine's one CPU (null scheduler), {icount.clock(board)['label']}"
