package org.rtdroid.runtime.validation;

import java.io.ByteArrayInputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.rtdroid.runtime.manifest.ChannelDecl;
import org.rtdroid.runtime.manifest.ChannelType;
import org.rtdroid.runtime.manifest.ComponentDecl;
import org.rtdroid.runtime.manifest.ComponentKind;
import org.rtdroid.runtime.manifest.IntentFilterDecl;
import org.rtdroid.runtime.manifest.JobHandlerDecl;
import org.rtdroid.runtime.manifest.ReflectionDecl;
import org.rtdroid.runtime.manifest.Manifest;
import org.rtdroid.runtime.manifest.ManifestException;
import org.rtdroid.runtime.manifest.ManifestParser;
import org.rtdroid.runtime.manifest.PeriodicTaskDecl;
import org.rtdroid.runtime.manifest.TimingDeclarations;
import org.rtdroid.runtime.manifest.TimingDeclarations.Timing;

/**
 * Builds the analysis model of one application from its manifest (either vocabulary):
 * <ul>
 *   <li>the runtime's own threads the application brings (its alarm thread) as
 *       {@link RuntimeServices} models them;</li>
 *   <li>every periodic task is a periodic task of the model (cost = {@code wcet}/{@code <cost>});</li>
 *   <li>a receiver is a sporadic task: cost and minimum inter-arrival time as declared, deadline =
 *       minimum inter-arrival time; with a {@code <server>} it is that server instead;</li>
 *   <li>a service is a task of its own only when it declares aperiodic work (a {@code <server>}, a
 *       cost, a minimum inter-arrival time) or, owning no periodic task, subscribes to a channel
 *       (its handler runs on its thread); otherwise its periodic tasks carry its work;</li>
 *   <li>a component's channel ends and locks belong to every task of the component;</li>
 *   <li>a deadline-miss or cost-overrun handler is a sporadic task at its own priority, released at
 *       most once per job of its owner (minimum inter-arrival time: the task's period, the
 *       receiver's minimum inter-arrival time), on its owner's CPU;</li>
 *   <li>a reflective service's execution engine is a periodic task at its engine priority: its
 *       {@code budget} plus, with a {@code wake-guard}, {@code wakes} spins of the guard (CPU time
 *       at the engine's priority like its actions') every {@code period}, on the service's CPU.</li>
 * </ul>
 * A task without a cost (or a sporadic one without a minimum inter-arrival time) is not guessed:
 * it becomes a problem of the model, {@code INCOMPLETE: ... cost required for schedulability}.
 */
public final class ModelBuilder {
    private ModelBuilder() {}

    /** Parses and models one manifest. @throws ManifestException when it does not parse or validate */
    public static SystemModel read(String sourceName, byte[] bytes) throws ManifestException {
        Manifest m = ManifestParser.parse(sourceName, new ByteArrayInputStream(bytes));
        return build(m, m.timing());
    }

    public static SystemModel build(Manifest m, TimingDeclarations timing) {
        return new Builder(m, timing).build();
    }

    private static final class Builder {
        final Manifest m;
        final TimingDeclarations timing;
        final List<Task> tasks = new ArrayList<>();
        final List<String> problems = new ArrayList<>();
        final Map<ComponentDecl, List<String>> tasksOf = new LinkedHashMap<>();

        Builder(Manifest m, TimingDeclarations timing) {
            this.m = m;
            this.timing = timing;
        }

        String at(int line) { return m.sourceName() + ":" + line; }

        SystemModel build() {
            for (ComponentDecl c : m.components()) {
                List<String> names = new ArrayList<>();
                Timing ct = timing.components().get(c.className());
                for (PeriodicTaskDecl t : c.tasks()) {
                    Timing tt = timing.tasks().get(t.name());
                    if (t.wcetNanos() <= 0) {
                        problems.add("INCOMPLETE: " + t.name() + " (" + at(t.line()) + "): cost required for schedulability");
                        names.add(m.name() + "/" + t.name());
                        continue;
                    }
                    add(names, new Task(m.name(), t.name(), Task.Kind.PERIODIC, t.priority(), t.periodNanos(),
                            t.wcetNanos(), t.deadlineNanos(), jitter(tt), cpu(tt, ct), at(t.line()), c.simpleName()));
                    for (JobHandlerDecl h : t.handlers()) {
                        handler(names, c, t.name(), h, t.periodNanos(), cpu(tt, ct));
                    }
                }
                ownWork(c, ct, names);
                for (JobHandlerDecl h : c.handlers()) {
                    long mit = ct == null ? -1 : ct.minInterArrivalNanos();
                    if (mit <= 0) {
                        problems.add("INCOMPLETE: " + c.simpleName() + "'s " + h.kind().element() + " (" + at(h.line())
                                + "): the component's minimum inter-arrival time is required to bound its releases");
                        continue;
                    }
                    handler(names, c, c.simpleName(), h, mit, cpu(null, ct));
                }
                ReflectionDecl r = c.reflection();
                if (r != null) {
                    add(names, new Task(m.name(), c.simpleName() + ".engine", Task.Kind.PERIODIC, r.enginePriority(),
                            r.periodNanos(), r.engineCostNanos(), r.periodNanos(), 0, cpu(null, ct), at(r.line()),
                            c.simpleName()));
                }
                tasksOf.put(c, names);
            }
            RuntimeServices.addTo(m, timing, tasks, problems);
            return new SystemModel(List.copyOf(tasks), criticalSections(), channels(), memory(), List.copyOf(problems));
        }

        private void ownWork(ComponentDecl c, Timing ct, List<String> names) {
            String name = c.simpleName();
            String src = at(c.line());
            if (ct != null && ct.server() != null) {
                TimingDeclarations.Server s = ct.server();
                add(names, new Task(m.name(), name, Task.Kind.SERVER, s.priority(), s.periodNanos(), s.budgetNanos(),
                        s.periodNanos(), 0, cpu(null, ct), at(s.line())));
                return;
            }
            boolean declared = ct != null && (ct.costNanos() >= 0 || ct.minInterArrivalNanos() >= 0);
            boolean handles = c.kind() == ComponentKind.RECEIVER
                    || (c.tasks().isEmpty() && c.intentFilters().stream().anyMatch(f -> f.role() == IntentFilterDecl.Role.SUBSCRIBER));
            if (!declared && !handles) {
                return;
            }
            long cost = ct == null ? -1 : ct.costNanos();
            long mit = ct == null ? -1 : ct.minInterArrivalNanos();
            if (cost <= 0) {
                problems.add("INCOMPLETE: " + name + " (" + src + "): cost required for schedulability");
            }
            if (mit <= 0) {
                problems.add("INCOMPLETE: " + name + " (" + src + "): minimum inter-arrival time required for"
                        + " schedulability (min-interarrival, or <time><periodic>, or a <server>)");
            }
            if (cost <= 0 || mit <= 0) {
                names.add(m.name() + "/" + name);  // still an end of its channels; not a task of the analysis
                return;
            }
            add(names, new Task(m.name(), name, Task.Kind.SPORADIC, c.priority(), mit, cost, mit, jitter(ct),
                    cpu(null, ct), src));
        }

        /**
         * A miss or overrun handler of {@code owner}: sporadic, at most one release per job of its
         * owner. Not an end of the component's channels (it changes the component's mode).
         */
        private void handler(List<String> names, ComponentDecl c, String owner, JobHandlerDecl h, long mit, int cpu) {
            String what = h.kind() == JobHandlerDecl.Kind.DEADLINE_MISS ? "/miss-handler" : "/overrun-handler";
            tasks.add(new Task(m.name(), owner + what, Task.Kind.SPORADIC, h.priority(), mit, h.costNanos(), mit, 0,
                    cpu, at(h.line()), c.simpleName()));
        }

        private void add(List<String> names, Task t) {
            names.add(t.key());
            tasks.add(t);
        }

        private static long jitter(Timing t) { return t == null || t.jitterNanos() < 0 ? 0 : t.jitterNanos(); }

        private static int cpu(Timing task, Timing component) {
            return task != null && task.cpu() >= 0 ? task.cpu() : component == null ? -1 : component.cpu();
        }

        private List<CriticalSection> criticalSections() {
            List<CriticalSection> out = new ArrayList<>();
            for (ChannelDecl ch : m.channels()) {
                TimingDeclarations.ChannelTiming t = timing.channels().get(ch.name());
                if (t == null || t.criticalSectionNanos() <= 0) {
                    continue;
                }
                for (ComponentDecl c : m.components()) {
                    if (c.publishesOn(ch.name()) || c.subscribesTo(ch.name())) {
                        for (String task : tasksOf.get(c)) {
                            out.add(new CriticalSection(m.name() + "/channel " + ch.name(), task, t.criticalSectionNanos()));
                        }
                    }
                }
            }
            for (TimingDeclarations.SharedUse u : timing.sharedUses()) {
                for (ComponentDecl c : m.components()) {
                    List<String> names = tasksOf.get(c);
                    String resource = m.name() + "/" + u.resource();
                    String ownerKey = m.name() + "/" + u.owner();
                    if (c.className().equals(u.owner())) {
                        names.forEach(n -> out.add(new CriticalSection(resource, n, u.criticalSectionNanos())));
                    } else if (names.contains(ownerKey)) {
                        out.add(new CriticalSection(resource, ownerKey, u.criticalSectionNanos()));
                    }
                }
            }
            return List.copyOf(out);
        }

        private List<ChannelModel> channels() {
            List<ChannelModel> out = new ArrayList<>();
            for (ChannelDecl ch : m.channels()) {
                List<ChannelModel.End> producers = new ArrayList<>();
                List<ChannelModel.End> consumers = new ArrayList<>();
                for (ComponentDecl c : m.components()) {
                    int p = c.count(IntentFilterDecl.Role.PUBLISHER, ch.name());
                    int s = c.count(IntentFilterDecl.Role.SUBSCRIBER, ch.name());
                    for (String task : tasksOf.get(c)) {
                        if (p > 0) {
                            producers.add(new ChannelModel.End(task, p));
                        }
                        if (s > 0) {
                            consumers.add(new ChannelModel.End(task, s));
                        }
                    }
                }
                boolean xcc = ch.type() == ChannelType.CROSS_CONTEXT;
                long inbound = -1;
                if (xcc && ch.direction().inbound()) {
                    TimingDeclarations.ChannelTiming t = timing.channels().get(ch.name());
                    inbound = t == null || t.minInterArrivalNanos() < 0 ? 0 : t.minInterArrivalNanos();
                }
                out.add(new ChannelModel(m.name(), ch.name(), ch.type().manifestName(), ch.capacity(),
                        ch.drop().manifestName(), ch.dataSizeBytes(), List.copyOf(producers), List.copyOf(consumers),
                        inbound, xcc && ch.direction().outbound(), at(ch.line())));
            }
            return List.copyOf(out);
        }

        private List<MemoryFigure> memory() {
            List<MemoryFigure> out = new ArrayList<>();
            for (ComponentDecl c : m.components()) {
                // The immortal area lives as long as the component, as its persistent scope does.
                long p = c.memSizes().persistentBytes() + c.memSizes().immortalBytes();
                long r = c.memSizes().releaseBytes();
                long total = c.memSizes().totalBytes();
                Integer line = timing.memSizesLines().get(c.className());
                out.add(new MemoryFigure(m.name(), c.simpleName(), p, r, total - p - r, total,
                        at(line == null ? c.line() : line)));
            }
            for (ChannelDecl ch : m.channels()) {
                out.add(new MemoryFigure(m.name(), "channel " + ch.name(), 0, 0, 0, (long) ch.capacity() * ch.dataSizeBytes(),
                        at(ch.line())));
            }
            return List.copyOf(out);
        }
    }
}
