"""Budgets for qemu-arm64-xen: Xen dom0less on an emulated one-CPU arm64 machine (QEMU TCG) in
virtual time (QEMU icount shift=0: one instruction per ns, the board file's `clock`). The RT cell's
releases, misses and lateness are judged by the instructions its CPU executes (Xen's included),
not by how much of a shared 2-core host the emulator gets, so its deadline budget is a real one.
Round trips to the Android cell are host-clock figures over an emulated CPU (emulation timing)."""
BOARD = "qemu-arm64-xen"
# Round trips cross the emulated CPU on the host's clock (emulation timing): reported, not judged.
RTT_P50_BUDGET_US = None
RTT_P99_BUDGET_US = None
MACHINE_STALL_US = 0  # no witness: host stalls do not exist in the cell's virtual time
# In virtual time, from the first release on: no miss, and no release later than half its 8 ms period.
MAX_DEADLINE_MISSES = 0
WORST_LATENESS_BUDGET_US = 4_000
# Board up under TCG is emulation timing on a shared host: reported, not judged (the boot
# benchmark, tools/rtdroid/rtdroid/bootbench.py, measures it); the cells' own boot timeouts
# (board file) still bound it.
BOOT_BUDGET_S = None
LATENCY_SAMPLES = 100
STRESS_SECONDS = 8
FIRST_PING_ATTEMPTS = 3
REPLY_TIMEOUT_S = 30
