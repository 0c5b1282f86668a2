package org.rtdroid.runtime.manifest;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Rewrites the validation vocabulary of the dissertation's chapter 5 (Fig. 5.2, 5.3, 5.5,
 * Table 5.1) into chapter 4's, so that both parse to the same {@link Manifest}:
 * <ul>
 *   <li>{@code <mem-size total persistent release>} is {@code <memSizes>};</li>
 *   <li>{@code <time>} with {@code <start>}, {@code <cost>}, {@code <periodic>}, {@code <deadline>}
 *       (and {@code <jitter>}) is, in a periodic task, {@code <release start periodic deadline>}
 *       plus {@code wcet}; in a service or receiver only its {@code start} (cost and minimum
 *       inter-arrival time are read by {@link TimingDeclarations});</li>
 *   <li>a {@code <receiver>} nested in the {@code <service>} that owns it moves up beside it; the
 *       service's {@code total} counts the nested receivers' totals (Fig. 5.3), so their totals are
 *       taken out of it after checking that sum;</li>
 *   <li>{@code <server>} and {@code <uses>} are for validation only and are dropped here.</li>
 * </ul>
 * The input tree is not changed.
 */
final class Chapter5Vocabulary {
    private static final Set<String> VALIDATION_ONLY = Set.of("server", "uses");

    private Chapter5Vocabulary() {}

    static ManifestParser.Element normalize(String src, ManifestParser.Element root) throws ManifestException {
        if (root == null) {
            return null;
        }
        ManifestParser.Element out = copy(root, root.name);
        for (ManifestParser.Element c : root.children) {
            if (c.name.equals("application")) {
                out.children.add(application(src, c));
            } else {
                out.children.add(c);
            }
        }
        return out;
    }

    private static ManifestParser.Element application(String src, ManifestParser.Element app) throws ManifestException {
        ManifestParser.Element out = copy(app, app.name);
        for (ManifestParser.Element c : app.children) {
            if (c.name.equals("service") || c.name.equals("receiver")) {
                List<ManifestParser.Element> nested = new ArrayList<>();
                out.children.add(component(src, c, nested));
                out.children.addAll(nested);
            } else {
                out.children.add(c);
            }
        }
        return out;
    }

    /** @param nested collects the receivers nested in a service, already normalized */
    private static ManifestParser.Element component(String src, ManifestParser.Element e,
                                                    List<ManifestParser.Element> nested) throws ManifestException {
        ManifestParser.Element out = copy(e, e.name);
        ManifestParser.Element mem = null;
        ManifestParser.Element memDeclared = null;
        for (ManifestParser.Element c : e.children) {
            switch (c.name) {
                case "mem-size", "memSizes" -> {
                    memDeclared = c;
                    mem = copy(c, "memSizes");
                    out.children.add(mem);
                }
                case "time" -> out.children.add(release(src, c, false, out));
                case "periodic-task" -> out.children.add(task(src, c));
                case "receiver" -> {
                    if (!e.name.equals("service")) {
                        throw new ManifestException(src, c.line, c.name, "a receiver may be nested only in a <service>");
                    }
                    nested.add(component(src, c, nested));
                }
                default -> {
                    if (!VALIDATION_ONLY.contains(c.name)) {
                        out.children.add(c);
                    }
                }
            }
        }
        if (!nested.isEmpty() && mem != null && mem.attrs.containsKey("total")) {
            out.children.set(out.children.indexOf(mem), withoutNestedTotals(src, e, memDeclared, mem, nested));
        }
        return out;
    }

    /** The service's memSizes with the nested receivers' totals taken out of its total. */
    private static ManifestParser.Element withoutNestedTotals(String src, ManifestParser.Element service,
            ManifestParser.Element declared, ManifestParser.Element mem, List<ManifestParser.Element> nested)
            throws ManifestException {
        long receivers = 0;
        for (ManifestParser.Element r : nested) {
            for (ManifestParser.Element c : r.children) {
                if (c.name.equals("memSizes") && c.attrs.containsKey("total")) {
                    receivers += size(src, c, "total");
                }
            }
        }
        long total = size(src, mem, "total");
        if (total < receivers) {
            throw new ManifestException(src, declared.line, declared.name, "total " + total + " B of " + service.attrs.get("name")
                    + " is smaller than the " + receivers + " B of its nested receivers");
        }
        ManifestParser.Element out = copy(mem, mem.name);
        out.attrs.put("total", (total - receivers) + "B");
        return out;
    }

    private static ManifestParser.Element task(String src, ManifestParser.Element t) throws ManifestException {
        ManifestParser.Element out = copy(t, t.name);
        for (ManifestParser.Element c : t.children) {
            switch (c.name) {
                case "mem-size" -> out.children.add(copy(c, "memSizes"));
                case "time" -> out.children.add(release(src, c, true, out));
                default -> {
                    if (!VALIDATION_ONLY.contains(c.name)) {
                        out.children.add(c);
                    }
                }
            }
        }
        return out;
    }

    /** {@code <time>} as {@code <release>}; a task's cost becomes its owner's {@code wcet}. */
    private static ManifestParser.Element release(String src, ManifestParser.Element time, boolean periodicTask,
                                                  ManifestParser.Element owner) throws ManifestException {
        ManifestParser.Element out = new ManifestParser.Element("release", time.line);
        for (ManifestParser.Element c : time.children) {
            String text = c.text.toString().trim();
            switch (c.name) {
                case "start" -> out.attrs.put("start", text);
                case "periodic" -> {
                    if (periodicTask) {
                        out.attrs.put("periodic", text);
                    }
                }
                case "deadline" -> {
                    if (periodicTask) {
                        out.attrs.put("deadline", text);
                    }
                }
                case "cost" -> {
                    if (periodicTask) {
                        owner.attrs.put("wcet", text);
                    }
                }
                case "jitter" -> { }
                default -> throw new ManifestException(src, c.line, c.name,
                        "unexpected element inside <time> (expected <start>, <cost>, <periodic>, <deadline>, <jitter>)");
            }
        }
        return out;
    }

    private static long size(String src, ManifestParser.Element e, String attr) throws ManifestException {
        long n = Units.parseSizeBytes(e.attrs.get(attr));
        if (n < 0) {
            throw new ManifestException(src, e.line, e.name, attr + " '" + e.attrs.get(attr)
                    + "' is not a size (e.g. 256B, 64K, 3M)");
        }
        return n;
    }

    /** The element under another name, with its attributes and text but not its children. */
    private static ManifestParser.Element copy(ManifestParser.Element e, String name) {
        ManifestParser.Element out = new ManifestParser.Element(name, e.line);
        out.attrs.putAll(e.attrs);
        out.text.append(e.text);
        return out;
    }
}
