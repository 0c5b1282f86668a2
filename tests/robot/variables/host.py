"""Budgets for the host board: both cells are processes on this machine (shared, noisy, 2 cores)."""
BOARD = "host"
# Android-measured round trip, UI Intent -> RT component -> UI view update. Both cells share this
# machine's CPUs with whatever else runs on it: these budgets, and BOOT_BUDGET_S, are scaled to
# the CPU other work left to the cells in the measurement (1 / (1 - its share), share counted up
# to 0.9; from /proc/stat less the cells' and the test's own CPU time), and a figure over the
# plain budget but within the scaled one is a warning naming the load.
RTT_P50_BUDGET_US = 10_000
RTT_P99_BUDGET_US = 40_000
# 8 ms periodic tasks under Android-side stress, Android cell killed, channel flood: no deadline
# may be missed. This board runs on a shared, virtualised 2-core machine whose hypervisor
# sometimes deschedules a vCPU for tens of ms (cyclictest itself shows it): a stall witness
# (cyclictest, SCHED_FIFO 99, on the RT cell's CPU) runs through each window, and misses in a
# window where even it was delayed by >= MACHINE_STALL_US are reported as the machine's, with a
# warning, instead of failing: the 8 ms deadline minus the tasks' 1 ms WCET, minus the witness's
# own 1 ms interval (a stall that starts just after its wake-up shows 1 ms short; seen: a task 8.4
# ms late while the witness measured 6,998 µs).
MAX_DEADLINE_MISSES = 0
MACHINE_STALL_US = 6_000
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
# Longest wait for each UI round trip's reply (Measure UI Round Trips).
REPLY_TIMEOUT_S = 10
