package org.rtdroid.runtime.manifest;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Rewrites a manifest tree into the canonical vocabulary of {@code manifest.xsd}, before it is
 * validated: a pure tree-to-tree rewrite (the input tree is not changed, nothing is read into a
 * {@link Manifest} here). It folds
 * <ul>
 *   <li>the validation vocabulary of the dissertation's chapter 5 (Fig. 5.2, 5.3, 5.5, Table 5.1):
 *       {@code <mem-size>} is {@code <memSizes>}; {@code <time>} with {@code <start>},
 *       {@code <cost>}, {@code <periodic>}, {@code <deadline>}, {@code <jitter>} is, in a periodic
 *       task, {@code <release start periodic deadline>} plus the task's {@code wcet} and
 *       {@code jitter}, and in a service or receiver {@code <release start>} plus the component's
 *       {@code cost}, {@code min-interarrival} (its {@code <periodic>}: the minimum interval
 *       between two releases of a sporadic component) and {@code jitter}; a {@code <receiver>}
 *       nested in the {@code <service>} that owns it moves up beside it, and the service's
 *       {@code total}, which counts the nested receivers' totals (Fig. 5.3), loses them;</li>
 *   <li>chapter 4's other spellings: {@code wcet} and {@code jitter} on a task's {@code <release>}
 *       and {@code cost} on a periodic task are the task's {@code wcet}/{@code jitter}; the channel
 *       types {@code message}, {@code rt-intent}/{@code broadcast}, {@code bulk}, {@code xcc}; the
 *       order {@code priority}; the drop policy {@code priority-oldest}.</li>
 * </ul>
 * What the rewrite cannot place (an unknown element inside {@code <time>}, nested receivers larger
 * than their service) is an error here; everything else is left for the schema to judge. A value
 * made from an element's text keeps that element as its origin ({@link Element#origins}).
 */
final class Chapter5Vocabulary {
    private static final Map<String, String> CHANNEL_TYPES = Map.of("message", "rt-msg", "rt-intent", "rt-broadcast",
            "broadcast", "rt-broadcast", "bulk", "rt-bulk", "xcc", "cross-context");
    private static final Map<String, String> TEXT_ALIASES = Map.of("order:priority", "priority-inheritance",
            "drop:priority-oldest", "priority&oldest");

    private Chapter5Vocabulary() {}

    static Element rewrite(String src, Element root) throws ManifestException {
        if (root == null) {
            return null;
        }
        Element out = root.renamed(root.name);
        for (Element c : root.children) {
            out.children.add(c.name.equals("application") ? application(src, c) : c);
        }
        return out;
    }

    private static Element application(String src, Element app) throws ManifestException {
        Element out = app.renamed(app.name);
        for (Element c : app.children) {
            switch (c.name) {
                case "service", "receiver" -> {
                    List<Element> nested = new ArrayList<>();
                    out.children.add(component(src, c, nested));
                    out.children.addAll(nested);
                }
                case "channel" -> out.children.add(channel(c));
                default -> out.children.add(c);
            }
        }
        return out;
    }

    /** @param nested collects the receivers nested in a service, already rewritten */
    private static Element component(String src, Element e, List<Element> nested) throws ManifestException {
        Element out = e.renamed(e.name);
        Element mem = null;
        for (Element c : e.children) {
            switch (c.name) {
                case "mem-size", "memSizes" -> {
                    mem = c.renamed("memSizes");
                    out.children.add(mem);
                }
                case "time" -> out.children.add(componentTime(src, c, out));
                case "periodic-task" -> out.children.add(task(src, c));
                case "receiver" -> {
                    if (e.name.equals("service")) {
                        nested.add(component(src, c, nested));
                    } else {
                        out.children.add(c);  // the schema refuses it where it stands
                    }
                }
                default -> out.children.add(c);
            }
        }
        if (!nested.isEmpty() && mem != null) {
            long receivers = 0;
            for (Element r : nested) {
                for (Element c : r.children) {
                    if (c.name.equals("memSizes")) {
                        receivers += Math.max(0, Units.parseSizeBytes(c.attrs.get("total")));
                    }
                }
            }
            long total = Units.parseSizeBytes(mem.attrs.get("total"));
            if (total >= 0) {  // a malformed total is the schema's to name
                if (total < receivers) {
                    throw new ManifestException(src, mem.line, mem.column, memDeclared(e).name, "total " + total + " B of "
                            + e.attrs.get("name") + " is smaller than the " + receivers + " B of its nested receivers");
                }
                mem.attrs.put("total", (total - receivers) + "B");
            }
        }
        return out;
    }

    private static Element memDeclared(Element component) {
        for (Element c : component.children) {
            if (c.name.equals("mem-size") || c.name.equals("memSizes")) {
                return c;
            }
        }
        return component;
    }

    private static Element task(String src, Element t) throws ManifestException {
        Element out = t.renamed(t.name);
        aliasAttr(out, "cost", "wcet");
        for (Element c : t.children) {
            switch (c.name) {
                case "mem-size" -> out.children.add(c.renamed("memSizes"));
                case "time" -> out.children.add(taskTime(src, c, out));
                case "release" -> {
                    Element rel = c.renamed("release");
                    for (String a : List.of("wcet", "jitter")) {
                        if (rel.attrs.containsKey(a)) {
                            if (!out.attrs.containsKey(a)) {
                                out.moveFrom(rel, a, a);
                            }
                            rel.attrs.remove(a);
                            rel.origins.remove(a);
                        }
                    }
                    out.children.add(rel);
                }
                default -> out.children.add(c);
            }
        }
        return out;
    }

    /** A task's {@code <time>}: its release, and its cost and jitter as the task's wcet and jitter. */
    private static Element taskTime(String src, Element time, Element task) throws ManifestException {
        Element release = new Element("release", time.line, time.column);
        for (Element c : timeChildren(src, time)) {
            switch (c.name) {
                case "start", "periodic", "deadline" -> release.setFromText(c.name, c);
                case "cost" -> setIfAbsent(task, "wcet", c);
                case "jitter" -> setIfAbsent(task, "jitter", c);
                default -> throw new IllegalStateException(c.name);
            }
        }
        return release;
    }

    /** A component's {@code <time>}: its start, and its cost, minimum inter-arrival time and jitter. */
    private static Element componentTime(String src, Element time, Element component) throws ManifestException {
        Element release = new Element("release", time.line, time.column);
        for (Element c : timeChildren(src, time)) {
            switch (c.name) {
                case "start" -> release.setFromText("start", c);
                case "cost" -> setIfAbsent(component, "cost", c);
                case "periodic" -> setIfAbsent(component, "min-interarrival", c);
                case "jitter" -> setIfAbsent(component, "jitter", c);
                case "deadline" -> { }  // a sporadic component's deadline is its minimum inter-arrival time
                default -> throw new IllegalStateException(c.name);
            }
        }
        return release;
    }

    private static List<Element> timeChildren(String src, Element time) throws ManifestException {
        for (Element c : time.children) {
            if (!List.of("start", "cost", "periodic", "deadline", "jitter").contains(c.name)) {
                throw new ManifestException(src, c.line, c.column, c.name,
                        "unexpected element inside <time> (expected <start>, <cost>, <periodic>, <deadline>, <jitter>)");
            }
        }
        return time.children;
    }

    private static Element channel(Element ch) {
        Element out = ch.renamed(ch.name);
        String type = ch.attrs.get("type");
        if (type != null) {
            out.attrs.put("type", CHANNEL_TYPES.getOrDefault(type.trim().toLowerCase(Locale.ROOT), type));
        }
        for (Element c : ch.children) {
            String alias = TEXT_ALIASES.get(c.name + ":" + c.trimmedText());
            if (alias == null) {
                out.children.add(c);
            } else {
                Element canonical = c.renamed(c.name);
                canonical.text.setLength(0);
                canonical.text.append(alias);
                out.children.add(canonical);
            }
        }
        return out;
    }

    private static void aliasAttr(Element e, String alias, String canonical) {
        if (e.attrs.containsKey(alias)) {
            if (!e.attrs.containsKey(canonical)) {
                e.moveFrom(e, alias, canonical);
            }
            e.attrs.remove(alias);
            e.origins.remove(alias);
        }
    }

    private static void setIfAbsent(Element e, String attr, Element source) {
        if (!e.attrs.containsKey(attr)) {
            e.setFromText(attr, source);
        }
    }
}
