"""Budgets for the host board: both cells are processes on this machine (shared, noisy, 2 cores)."""
BOARD = "host"
# Android-measured round trip, UI Intent -> RT component -> UI view update.
RTT_P50_BUDGET_US = 5_000
RTT_P99_BUDGET_US = 20_000
# Proxy-level echo round trip (no UI), many samples.
ECHO_P99_BUDGET_US = 5_000
# 8 ms periodic tasks under Android-side stress.
MAX_DEADLINE_MISSES = 0
WORST_LATENESS_BUDGET_US = 4_000
BOOT_BUDGET_S = 30
LATENCY_SAMPLES = 300
STRESS_SECONDS = 10
