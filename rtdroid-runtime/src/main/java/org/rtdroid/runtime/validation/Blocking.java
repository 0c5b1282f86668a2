package org.rtdroid.runtime.validation;

import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Blocking terms under priority inheritance (every channel lock and declared shared object is a
 * {@code PiMutex}). A task can be blocked by a lower-priority task only inside a critical section on
 * a resource whose priority ceiling (its highest-priority user) is at least the task's priority, at
 * most once per such lower-priority task and at most once per such resource (Sha, Rajkumar &amp;
 * Lehoczky 1990):
 * <pre>
 *   B_i = min( Σ_{j ∈ lp(i)} max_{k: ceil(k) ≥ P_i} cs_{j,k},   Σ_{k: ceil(k) ≥ P_i} max_{j ∈ lp(i)} cs_{j,k} )
 * </pre>
 * With one such resource this is the longest critical section of a lower-priority user.
 */
public final class Blocking {
    private Blocking() {}

    /** B_i per task key, over the tasks of one CPU and the critical sections of those tasks. */
    public static Map<String, Long> compute(List<Task> tasks, List<CriticalSection> sections) {
        Map<String, Task> byName = new HashMap<>();
        for (Task t : tasks) {
            byName.put(t.key(), t);
        }
        Map<String, Integer> ceiling = new HashMap<>();
        Set<String> resources = new LinkedHashSet<>();
        for (CriticalSection cs : sections) {
            Task user = byName.get(cs.task());
            if (user != null) {
                ceiling.merge(cs.resource(), user.priority(), Math::max);
                resources.add(cs.resource());
            }
        }
        Map<String, Long> out = new HashMap<>();
        for (Task i : tasks) {
            long perTask = 0;
            for (Task j : tasks) {
                if (j.priority() < i.priority()) {
                    perTask += longest(sections, j.key(), null, i.priority(), ceiling, byName);
                }
            }
            long perResource = 0;
            for (String k : resources) {
                if (ceiling.get(k) >= i.priority()) {
                    perResource += longest(sections, null, k, i.priority(), ceiling, byName);
                }
            }
            long b = Math.min(perTask, perResource);
            if (b > 0) {
                out.put(i.key(), b);
            }
        }
        return out;
    }

    /** Longest critical section of a task below {@code priority} (that task, or any when null) on a
     *  resource with a ceiling at least {@code priority} (that resource, or any when null). */
    private static long longest(List<CriticalSection> sections, String task, String resource, int priority,
                                Map<String, Integer> ceiling, Map<String, Task> byName) {
        long max = 0;
        for (CriticalSection cs : sections) {
            Task user = byName.get(cs.task());
            if (user == null || user.priority() >= priority || ceiling.get(cs.resource()) < priority) {
                continue;
            }
            if ((task == null || task.equals(cs.task())) && (resource == null || resource.equals(cs.resource()))) {
                max = Math.max(max, cs.nanos());
            }
        }
        return max;
    }
}
