package org.rtdroid.runtime.validation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The analysis against the schedule itself: random task sets (UUniFast utilizations, n = 3..12,
 * U = 0.5..0.95, periods from a harmonic and a non-harmonic family, rate-monotonic priorities,
 * D = T, no blocking, no jitter: where response-time analysis is exact) are run in a discrete-event
 * simulation of fixed-priority preemptive scheduling over the hyperperiod from a synchronous
 * release. Every set the analysis accepts never misses; every task it rejects misses. Fixed seed.
 */
class ResponseTimeAnalysisPropertyTest {
    static final long[] HARMONIC = {1_000, 2_000, 4_000, 8_000, 16_000};
    static final long[] NON_HARMONIC = {1_000, 1_500, 2_000, 2_500, 3_000, 4_000, 5_000, 6_000};
    static final double[] UTILIZATIONS = {0.5, 0.6, 0.7, 0.8, 0.9, 0.95};
    static final int SETS_PER_CASE = 20;

    @Test
    void acceptedSetsNeverMissRejectedTasksAlwaysMiss() {
        SplittableRandom random = new SplittableRandom(20170523L);
        int accepted = 0;
        int rejected = 0;
        int rejectedTasks = 0;
        int acceptedByLiuLayland = 0;
        int acceptedByHyperbolic = 0;
        for (long[] family : List.of(HARMONIC, NON_HARMONIC)) {
            for (int n = 3; n <= 12; n++) {
                for (double u : UTILIZATIONS) {
                    for (int k = 0; k < SETS_PER_CASE; k++) {
                        List<Task> set = taskSet(random, n, u, family);
                        List<ResponseTimeAnalysis.Result> rta = ResponseTimeAnalysis.analyse(set, Map.of());
                        boolean[] missed = simulate(set, hyperperiod(set));
                        boolean schedulable = rta.stream().allMatch(ResponseTimeAnalysis.Result::schedulable);
                        for (int i = 0; i < set.size(); i++) {
                            if (!rta.get(i).schedulable()) {
                                rejectedTasks++;
                                int task = i;
                                assertTrue(missed[i], () -> "rejected task " + set.get(task).name() + " never misses: " + set);
                            }
                        }
                        if (schedulable) {
                            accepted++;
                            for (boolean m : missed) {
                                assertFalse(m, () -> "accepted set misses: " + set);
                            }
                            if (ResponseTimeAnalysis.utilization(set) <= ResponseTimeAnalysis.liuLaylandBound(n)) {
                                acceptedByLiuLayland++;
                            }
                            if (ResponseTimeAnalysis.hyperbolicProduct(set) <= 2.0) {
                                acceptedByHyperbolic++;
                            }
                        } else {
                            rejected++;
                        }
                    }
                }
            }
        }
        System.out.printf("RTA property test: %d sets, %d accepted (%d also by Liu-Layland, %d by the hyperbolic bound),"
                + " %d rejected (%d tasks), no accepted set missed, every rejected task missed%n",
                accepted + rejected, accepted, acceptedByLiuLayland, acceptedByHyperbolic, rejected, rejectedTasks);
        assertEquals(2 * 10 * UTILIZATIONS.length * SETS_PER_CASE, accepted + rejected);
        assertTrue(accepted > 0 && rejected > 0, "the family exercises both verdicts");
        assertTrue(acceptedByHyperbolic >= acceptedByLiuLayland, "the hyperbolic bound dominates Liu-Layland");
    }

    /** UUniFast (Bini &amp; Buttazzo 2005) utilizations, periods drawn from the family, rate-monotonic priorities. */
    static List<Task> taskSet(SplittableRandom random, int n, double u, long[] family) {
        double[] us = new double[n];
        double sum = u;
        for (int i = 0; i < n - 1; i++) {
            double next = sum * Math.pow(random.nextDouble(), 1.0 / (n - 1 - i));
            us[i] = sum - next;
            sum = next;
        }
        us[n - 1] = sum;
        List<long[]> periodCost = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long t = family[random.nextInt(family.length)];
            periodCost.add(new long[] {t, Math.max(1, Math.round(us[i] * t)), i});
        }
        periodCost.sort(Comparator.comparingLong((long[] a) -> a[0]).thenComparingLong(a -> a[2]));
        List<Task> set = new ArrayList<>();
        for (int rank = 0; rank < n; rank++) {
            long[] pc = periodCost.get(rank);
            set.add(ResponseTimeAnalysisTest.task("t" + rank, n - rank, pc[0], pc[1]));
        }
        return set;
    }

    static long hyperperiod(List<Task> set) {
        long h = 1;
        for (Task t : set) {
            h = h / gcd(h, t.periodNanos()) * t.periodNanos();
        }
        return h;
    }

    static long gcd(long a, long b) {
        return b == 0 ? a : gcd(b, a % b);
    }

    /**
     * Fixed-priority preemptive schedule of {@code set} (priorities distinct) over [0, horizon), all
     * released at 0; a late job keeps running. @return per task whether any of its jobs missed its
     * deadline (the next release; jobs still unfinished at the horizon count).
     */
    static boolean[] simulate(List<Task> set, long horizon) {
        int n = set.size();
        long[] nextRelease = new long[n];
        long[] remaining = new long[n];
        int[] pending = new int[n];
        boolean[] missed = new boolean[n];
        long t = 0;
        while (t < horizon) {
            for (int i = 0; i < n; i++) {
                if (nextRelease[i] == t) {
                    if (pending[i] > 0) {
                        missed[i] = true;
                    }
                    if (pending[i]++ == 0) {
                        remaining[i] = set.get(i).costNanos();
                    }
                    nextRelease[i] += set.get(i).periodNanos();
                }
            }
            int running = -1;
            for (int i = 0; i < n; i++) {
                if (pending[i] > 0 && (running < 0 || set.get(i).priority() > set.get(running).priority())) {
                    running = i;
                }
            }
            long next = horizon;
            for (int i = 0; i < n; i++) {
                next = Math.min(next, nextRelease[i]);
            }
            if (running >= 0) {
                next = Math.min(next, t + remaining[running]);
                remaining[running] -= next - t;
                if (remaining[running] == 0 && --pending[running] > 0) {
                    remaining[running] = set.get(running).costNanos();
                }
            }
            t = next;
        }
        for (int i = 0; i < n; i++) {
            if (pending[i] > 0) {
                missed[i] = true;
            }
        }
        return missed;
    }
}
