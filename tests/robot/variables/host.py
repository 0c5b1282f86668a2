"""Budgets for the host board: both cells are processes on this machine (shared, noisy, 2 cores)."""
BOARD = "host"
# Android-measured round trip, UI Intent -> RT component -> UI view update.
RTT_P50_BUDGET_US = 10_000
RTT_P99_BUDGET_US = 40_000
# Proxy-level echo round trip (no UI), many samples.
ECHO_P99_BUDGET_US = 5_000
# 8 ms periodic tasks under Android-side stress. The goal is 0. This board runs on a shared,
# virtualised 2-core machine where cyclictest itself shows multi-millisecond stalls (see
# `make bench BENCH=periodic`); a stall longer than the 8 ms deadline is counted as a miss and
# reported. The budget tolerates at most 2 such misses per measured window (~1,250 releases of
# each task), and the suites print the exact count.
MAX_DEADLINE_MISSES = 2
# Worst release lateness since the services started (the runtime keeps the maximum). A release
# later than its 8 ms deadline is a miss, counted above; this bound catches a runaway stall.
# Known: deploying a second application stalls running tasks for tens of ms (class loading and
# JIT safepoints of the shared JVM): those count here, before the measured windows.
WORST_LATENESS_BUDGET_US = 100_000
BOOT_BUDGET_S = 30
LATENCY_SAMPLES = 300
STRESS_SECONDS = 10
# The first Ping after deployment must be answered: no retry on the host board.
FIRST_PING_ATTEMPTS = 1
