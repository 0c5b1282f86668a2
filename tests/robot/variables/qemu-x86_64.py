"""Budgets for qemu-x86_64 under TCG. Emulation is not real time: the guest's clock and its
instructions advance at whatever pace the emulator gets from a shared 2-core host, so a busy host
makes releases late by seconds. These budgets check that the system works, stays bounded and
recovers — not real-time latency, which is measured on the host board."""
BOARD = "qemu-x86_64"
RTT_P50_BUDGET_US = 100_000
RTT_P99_BUDGET_US = 10_000_000
# Per measured window (10-20 s, ~2,500-5,000 releases of the two 8 ms tasks): misses are
# reported; at most half of them may miss under emulation.
MACHINE_STALL_US = 0  # no witness: the RT cell's CPU is emulated
MAX_DEADLINE_MISSES = 2_500
WORST_LATENESS_BUDGET_US = 10_000_000
BOOT_BUDGET_S = 90
LATENCY_SAMPLES = 100
STRESS_SECONDS = 8
# Under TCG the first request after deployment can go unanswered while the RT cell's JVM is still
# compiling (seen once in CI runs); each unanswered attempt is logged as a warning, at most 3.
FIRST_PING_ATTEMPTS = 3
# Longest wait for each UI round trip's reply: under TCG the RT proxy's first passes are cold and
# slow (one at start-up used ~1.8 s of CPU), and its 20% CPU budget then makes it sleep ~7 s; a
# first reply took over 10 s once in CI.
REPLY_TIMEOUT_S = 30
