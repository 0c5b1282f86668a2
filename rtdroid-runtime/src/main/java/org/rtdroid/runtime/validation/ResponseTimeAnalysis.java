package org.rtdroid.runtime.validation;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Fixed-priority preemptive scheduling on one CPU: the utilization bounds as quick tests, then exact
 * response-time analysis (Joseph &amp; Pandya 1986, Audsley et al. 1993) with release jitter and
 * blocking, for deadlines up to periods:
 * <pre>
 *   w = C_i + B_i + Σ_{j ∈ hep(i), j ≠ i} ⌈(w + J_j) / T_j⌉ · C_j,    R_i = w + J_i ≤ D_i
 * </pre>
 * Tasks of equal priority run first-in first-out within their level: any of them may be released
 * just before the task and go first, so each counts the others as interference (hep = higher or
 * equal priority). The iteration stops as soon as R_i exceeds D_i; a task whose higher-priority
 * load is 100 % or more, or whose recurrence has not converged after {@link #MAX_STEPS} steps, is
 * reported unschedulable (WCRT {@code Long.MAX_VALUE}).
 */
public final class ResponseTimeAnalysis {
    /** Iterations of the recurrence at most (a manifest from outside must not stall the agent). */
    static final int MAX_STEPS = 1_000_000;

    private ResponseTimeAnalysis() {}

    /** One task's result: its blocking, its worst-case response time (when it exceeds the deadline,
     *  the first value of the iteration found beyond it) and whether it meets its deadline. */
    public record Result(Task task, long blockingNanos, long wcrtNanos, boolean schedulable) {
        public long slackNanos() { return task.deadlineNanos() - wcrtNanos; }
    }

    /** Analyses every task of {@code tasks} (one CPU); {@code blocking} maps task keys to B_i (absent = 0). */
    public static List<Result> analyse(List<Task> tasks, Map<String, Long> blocking) {
        List<Result> out = new ArrayList<>(tasks.size());
        for (Task t : tasks) {
            long b = blocking.getOrDefault(t.key(), 0L);
            out.add(responseTime(t, tasks, b));
        }
        return out;
    }

    static Result responseTime(Task i, List<Task> tasks, long blocking) {
        long limit = i.deadlineNanos() - i.jitterNanos();
        long w = i.costNanos() + blocking;
        double interference = 0;
        for (Task j : tasks) {
            if (j != i && j.priority() >= i.priority()) {
                interference += j.utilization();
            }
        }
        if (interference >= 1.0) {  // the tasks above keep the CPU busy: w grows without bound
            return new Result(i, blocking, Long.MAX_VALUE, false);
        }
        for (int step = 0; ; step++) {
            if (step == MAX_STEPS) {  // not converged: reported as a miss, never as a pass
                return new Result(i, blocking, Long.MAX_VALUE, false);
            }
            long next;
            try {
                next = Math.addExact(i.costNanos(), blocking);
                for (Task j : tasks) {
                    if (j != i && j.priority() >= i.priority()) {
                        long releases = ceilDiv(Math.addExact(w, j.jitterNanos()), j.periodNanos());
                        next = Math.addExact(next, Math.multiplyExact(releases, j.costNanos()));
                    }
                }
            } catch (ArithmeticException e) {  // beyond 292 years: no deadline is that far
                return new Result(i, blocking, Long.MAX_VALUE, false);
            }
            if (next > limit || w > limit) {
                return new Result(i, blocking, saturatedAdd(Math.max(next, w), i.jitterNanos()), false);
            }
            if (next == w) {
                return new Result(i, blocking, w + i.jitterNanos(), true);
            }
            w = next;
        }
    }

    /** Σ C_i / T_i. */
    public static double utilization(List<Task> tasks) {
        double u = 0;
        for (Task t : tasks) {
            u += t.utilization();
        }
        return u;
    }

    /** Liu &amp; Layland (1973): n (2^{1/n} − 1), the rate-monotonic utilization bound of n tasks. */
    public static double liuLaylandBound(int n) {
        return n == 0 ? 1.0 : n * (Math.pow(2.0, 1.0 / n) - 1.0);
    }

    /** Bini, Buttazzo &amp; Buttazzo (2003): Π (U_i + 1) ≤ 2 suffices under rate-monotonic priorities. */
    public static double hyperbolicProduct(List<Task> tasks) {
        double p = 1;
        for (Task t : tasks) {
            p *= t.utilization() + 1;
        }
        return p;
    }

    /**
     * True when the quick bounds apply to these tasks: deadlines equal periods, no jitter, no
     * blocking and rate-monotonic priorities (a shorter period never has a lower priority).
     */
    public static boolean boundsApply(List<Task> tasks, Map<String, Long> blocking) {
        for (Task a : tasks) {
            if (a.deadlineNanos() != a.periodNanos() || a.jitterNanos() != 0 || blocking.getOrDefault(a.key(), 0L) != 0) {
                return false;
            }
            for (Task b : tasks) {
                if (a.periodNanos() < b.periodNanos() && a.priority() < b.priority()) {
                    return false;
                }
            }
        }
        return true;
    }

    static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }

    static long ceilDiv(long a, long b) {
        return a <= 0 ? 0 : (a + b - 1) / b;
    }
}
