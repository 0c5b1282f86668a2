"""The `xen` board's machine in the host's time: an SMP machine (one emulated CPU per board CPU,
multi-threaded TCG) where Xen's boot-time cpupools split the CPUs: the RT cell alone in a
null-scheduler pool on its CPU(s), every `xen.domains` entry in a credit2 pool on the rest.

Its figures are host-clock figures over an emulated CPU (function, not latency). It cannot run in
virtual time: under QEMU -icount the vCPUs run round-robin on one host thread, and a vCPU spinning
in Xen's cross-CPU calls starves the one it waits for (measured, QEMU 7.2 / Xen 4.17: Xen never
gets past setup_virt_paging); xen_icount.py is the virtual-time machine.
"""
from __future__ import annotations

from .. import paths
from ..board import Board
from .base import Problem


def _cpu_refs(cpus) -> str:
    return " ".join(f"&{{/cpus/cpu@{c}}}" for c in sorted(cpus))


class Machine:
    """Machine CPUs = the board's cpus (numbered alike); the RT cell's cpus are its pool's."""

    def check(self, data: dict) -> list[Problem]:
        probs: list[Problem] = []
        rt_i, rt = next((i, c) for i, c in enumerate(data["cells"]) if c["role"] == "rt")
        board_cpus = set(data["cpus"])
        if rt.get("vcpus", 1) > len(rt["cpus"]):
            probs.append((f"cells[{rt_i}].vcpus", rt.get("vcpus"),
                          f"the null scheduler needs one physical CPU per vCPU (cpus {rt['cpus']})"))
        for k, d in enumerate(data["xen"].get("domains", [])):
            if set(d["cpus"]) & set(rt["cpus"]):
                probs.append((f"xen.domains[{k}].cpus", d["cpus"],
                              f"must not share the RT cell's CPUs {rt['cpus']} (its cpupool is the RT cell's alone)"))
            if not set(d["cpus"]) <= board_cpus:
                probs.append((f"xen.domains[{k}].cpus", d["cpus"], f"not among the board's cpus {data['cpus']}"))
        if not board_cpus - set(rt["cpus"]):
            probs.append(("cpus", data["cpus"], "Xen's shared cpupool needs a CPU besides the RT cell's"))
        if rt.get("boot", "cold") != "cold":
            # The snapshot is taken when the RT cell awaits the region; the further domUs boot
            # alongside in multi-threaded TCG and nothing checks what they are doing then.
            probs.append((f"cells[{rt_i}].boot", rt["boot"], "the SMP xen board boots cold (its boot snapshot "
                          "would freeze the further domUs at an unchecked point; qemu-arm64-xen has one)"))
        return probs

    def cpu_count(self, board: Board) -> int:
        return len(board.data["cpus"])

    def accel_args(self, board: Board) -> list[str]:
        return ["-accel", "tcg,thread=multi"]

    def xen_bootargs(self) -> str:
        return ""

    def cpupools(self, board: Board) -> str:
        shared = set(board.data["cpus"]) - set(board.rt["cpus"])
        template = (paths.hypervisor_cells_dir() / "xen" / "cpupools.dtsi.in").read_text(encoding="utf-8")
        return template.replace("@RT_POOL_CPUS@", _cpu_refs(board.rt["cpus"])).replace(
            "@SHARED_POOL_CPUS@", _cpu_refs(shared))

    def pool_property(self, kind: str) -> str:
        pool = "cpupool_rt" if kind == "rt" else "cpupool_shared"
        return f"domain-cpupool = <&{{/chosen/{pool}}}>;"

    def clock(self, board: Board) -> dict:
        return {"kind": "host"}

    def describe(self, board: Board) -> str:
        return f"RT cell on machine CPU(s) {board.rt['cpus']} (null-scheduler cpupool), host clock"
