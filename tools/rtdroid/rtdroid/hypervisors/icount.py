"""Virtual time for an emulated RT cell (QEMU -icount), shared by the QEMU-based hypervisors.

Under TCG an emulated CPU is many times slower than the host's clock, so deadlines judged by the
host's clock measure the emulator. With `clock: {kind: virtual, icount_shift: N}` in the RT cell's
entry of the board file, the guest's clock advances 2^N ns per instruction executed (the board's
declared CPU speed) and jumps over idle time (sleep=off): the cell's figures depend on the
instructions it runs, not on how busy the host is.
"""
from __future__ import annotations

from ..board import Board


def is_virtual(board: Board) -> bool:
    return board.rt.get("clock", {}).get("kind") == "virtual"


def args(board: Board) -> list[str]:
    """QEMU's -icount arguments, or none for a host-clock board. icount runs TCG single-threaded."""
    if not is_virtual(board):
        return []
    return ["-icount", f"shift={board.rt['clock']['icount_shift']},sleep=off"]


def clock(board: Board) -> dict:
    """The run state's rt_clock for this board (see Hypervisor.clock)."""
    if not is_virtual(board):
        return {"kind": "host"}
    shift = board.rt["clock"]["icount_shift"]
    return {"kind": "virtual", "icount_shift": shift, "ns_per_instruction": 2 ** shift,
            "instructions_per_second": 10 ** 9 // 2 ** shift,
            "label": f"virtual time (QEMU icount shift={shift}: {10 ** 3 // 2 ** shift} M instructions/s)"}
