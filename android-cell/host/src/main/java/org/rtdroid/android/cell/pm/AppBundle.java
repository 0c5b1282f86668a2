package org.rtdroid.android.cell.pm;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;

import org.rtdroid.android.proxy.ProxyContract;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * An app bundle for the cell (docs/android-cell.md, "App bundles"): a directory holding
 * {@code AndroidManifest.xml} (plain XML, as written in the source tree) and {@code classes.jar}
 * (the compiled classes). Everything in it is checked before anything is loaded: a bad bundle is
 * refused with a {@link BadBundleException} naming the file and the problem.
 */
public final class AppBundle {
    public static final String MANIFEST = "AndroidManifest.xml";
    public static final String CLASSES = "classes.jar";
    public static final long MAX_MANIFEST_BYTES = 256 * 1024;
    public static final long MAX_CLASSES_BYTES = 32L * 1024 * 1024;
    static final String ANDROID_NS = "http://schemas.android.com/apk/res/android";
    static final Pattern PACKAGE = Pattern.compile("[a-zA-Z][a-zA-Z0-9_]*(\\.[a-zA-Z][a-zA-Z0-9_]*)+");
    static final Pattern CLASS_NAME = Pattern.compile("[a-zA-Z_$][a-zA-Z0-9_$]*(\\.[a-zA-Z_$][a-zA-Z0-9_$]*)*");
    // a channel name and the package (the sender) travel in an Intent frame: the proxy's bounds
    static final Pattern CHANNEL =
            Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0," + (ProxyContract.MAX_CHANNEL_BYTES - 1) + "}");

    /**
     * A component declared in the manifest. {@code exported}: whether other apps may reach it,
     * its {@code android:exported}, by default whether it declares an intent filter (AOSP's rule
     * before API 31, where the attribute became mandatory for components with filters).
     */
    public record Component(String kind, String className, List<Filter> filters, boolean exported) {
        // kind: activity, service, receiver

        public boolean isLauncher() {
            for (Filter f : filters) {
                if (f.actions.contains("android.intent.action.MAIN")
                        && f.categories.contains("android.intent.category.LAUNCHER")) {
                    return true;
                }
            }
            return false;
        }
    }

    public static final class Filter {
        public final List<String> actions = new ArrayList<>();
        public final List<String> categories = new ArrayList<>();
        public final List<String> schemes = new ArrayList<>();
        public int priority;
    }

    public final Path dir;
    public final Path classesJar;
    public final String packageName;
    public final String label;
    public final int versionCode;
    public final String versionName;
    public final List<String> channels;
    /** The permissions the manifest requests ({@code <uses-permission>}); granted or not at install. */
    public final List<String> usesPermissions;
    public final List<Component> activities;
    public final List<Component> services;
    public final List<Component> receivers;
    public final Component launcher;

    private AppBundle(Path dir, Path classesJar, String packageName, String label, int versionCode, String versionName,
            List<String> channels, List<String> usesPermissions, List<Component> activities,
            List<Component> services, List<Component> receivers, Component launcher) {
        this.dir = dir;
        this.classesJar = classesJar;
        this.packageName = packageName;
        this.label = label;
        this.versionCode = versionCode;
        this.versionName = versionName;
        this.channels = channels;
        this.usesPermissions = usesPermissions;
        this.activities = activities;
        this.services = services;
        this.receivers = receivers;
        this.launcher = launcher;
    }

    public static final class BadBundleException extends Exception {
        public BadBundleException(String message) {
            super(message);
        }
    }

    public static AppBundle read(Path dir) throws BadBundleException {
        if (!Files.exists(dir)) {
            throw new BadBundleException("bundle " + dir + " does not exist");
        }
        if (!Files.isDirectory(dir)) {
            throw new BadBundleException("bundle " + dir + " is not a directory (expected " + MANIFEST + " and "
                    + CLASSES + " inside)");
        }
        Path manifest = dir.resolve(MANIFEST);
        Path classes = dir.resolve(CLASSES);
        if (!Files.isRegularFile(manifest)) {
            throw new BadBundleException("bundle " + dir + " has no " + MANIFEST);
        }
        if (!Files.isRegularFile(classes)) {
            throw new BadBundleException("bundle " + dir + " has no " + CLASSES);
        }
        if (Files.exists(dir.resolve("res")) || Files.exists(dir.resolve("resources.arsc"))) {
            throw new BadBundleException("bundle " + dir + " carries resources (res/ or resources.arsc): this cell "
                    + "runs apps whose UI is built in code; resources go into the APK only");
        }
        try {
            if (Files.size(manifest) > MAX_MANIFEST_BYTES) {
                throw new BadBundleException(MANIFEST + " is " + Files.size(manifest) + " bytes, over "
                        + MAX_MANIFEST_BYTES);
            }
            if (Files.size(classes) > MAX_CLASSES_BYTES) {
                throw new BadBundleException(CLASSES + " is " + Files.size(classes) + " bytes, over " + MAX_CLASSES_BYTES);
            }
        } catch (IOException e) {
            throw new BadBundleException("cannot read bundle " + dir + ": " + e.getMessage());
        }

        Element root = parse(manifest);
        if (!"manifest".equals(root.getTagName())) {
            throw new BadBundleException(MANIFEST + ": root element is <" + root.getTagName() + ">, expected <manifest>");
        }
        String pkg = root.getAttribute("package");
        if (pkg.isEmpty()) {
            throw new BadBundleException(MANIFEST + ": <manifest> has no package attribute");
        }
        if (!PACKAGE.matcher(pkg).matches() || pkg.length() > ProxyContract.MAX_SENDER_BYTES) {
            throw new BadBundleException(MANIFEST + ": package '" + pkg + "' is not a valid package name "
                    + "(dotted Java identifiers, at least two parts, at most " + ProxyContract.MAX_SENDER_BYTES + " characters)");
        }
        int versionCode = 0;
        String vc = root.getAttributeNS(ANDROID_NS, "versionCode");
        if (!vc.isEmpty()) {
            try {
                versionCode = Integer.parseInt(vc);
            } catch (NumberFormatException e) {
                throw new BadBundleException(MANIFEST + ": android:versionCode '" + vc + "' is not an integer");
            }
        }
        String versionName = root.getAttributeNS(ANDROID_NS, "versionName");
        NodeList apps = root.getElementsByTagName("application");
        if (apps.getLength() != 1) {
            throw new BadBundleException(MANIFEST + ": expected exactly one <application>, found " + apps.getLength());
        }
        Element app = (Element) apps.item(0);
        String label = app.getAttributeNS(ANDROID_NS, "label");
        if (label.isEmpty() || label.startsWith("@")) {
            label = pkg;
        }
        List<String> usesPermissions = new ArrayList<>();
        for (Node n = root.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element && ((Element) n).getTagName().equals("uses-permission")) {
                String perm = ((Element) n).getAttributeNS(ANDROID_NS, "name");
                if (!CLASS_NAME.matcher(perm).matches()) {
                    throw new BadBundleException(MANIFEST + ": <uses-permission android:name='" + perm
                            + "'> is not a permission name");
                }
                usesPermissions.add(perm);
            }
        }
        List<String> channels = new ArrayList<>();
        List<Component> activities = new ArrayList<>();
        List<Component> services = new ArrayList<>();
        List<Component> receivers = new ArrayList<>();
        for (Node n = app.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (!(n instanceof Element)) {
                continue;
            }
            Element e = (Element) n;
            switch (e.getTagName()) {
                case "meta-data":
                    if ("org.rtdroid.channels".equals(e.getAttributeNS(ANDROID_NS, "name"))) {
                        for (String c : e.getAttributeNS(ANDROID_NS, "value").split(",")) {
                            String ch = c.trim();
                            if (ch.isEmpty()) {
                                continue;
                            }
                            if (!CHANNEL.matcher(ch).matches()) {
                                throw new BadBundleException(MANIFEST + ": channel '" + ch + "' in meta-data "
                                        + "org.rtdroid.channels is not a channel name (letters, digits, . _ -; "
                                        + "at most " + ProxyContract.MAX_CHANNEL_BYTES + ")");
                            }
                            if (!channels.contains(ch)) {
                                channels.add(ch);
                            }
                        }
                    }
                    break;
                case "activity":
                    activities.add(component(pkg, "activity", e));
                    break;
                case "service":
                    services.add(component(pkg, "service", e));
                    break;
                case "receiver":
                    receivers.add(component(pkg, "receiver", e));
                    break;
                default:
                    break; // providers and other elements are not hosted by this cell
            }
        }
        Component launcher = null;
        for (Component a : activities) {
            if (a.isLauncher()) {
                launcher = a;
                break;
            }
        }
        if (launcher == null) {
            throw new BadBundleException(MANIFEST + ": no <activity> with an intent-filter for "
                    + "android.intent.action.MAIN / android.intent.category.LAUNCHER");
        }
        checkClasses(classes, activities, services, receivers);
        return new AppBundle(dir, classes, pkg, label, versionCode, versionName, Collections.unmodifiableList(channels),
                Collections.unmodifiableList(usesPermissions), activities, services, receivers, launcher);
    }

    private static Element parse(Path manifest) throws BadBundleException {
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setNamespaceAware(true);
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            f.setExpandEntityReferences(false);
            DocumentBuilder b = f.newDocumentBuilder();
            b.setErrorHandler(null);
            try (InputStream in = Files.newInputStream(manifest)) {
                Document d = b.parse(in);
                return d.getDocumentElement();
            }
        } catch (org.xml.sax.SAXParseException e) {
            throw new BadBundleException(MANIFEST + " line " + e.getLineNumber() + ": " + e.getMessage());
        } catch (Exception e) {
            throw new BadBundleException(MANIFEST + " does not parse: " + e.getMessage());
        }
    }

    private static Component component(String pkg, String kind, Element e) throws BadBundleException {
        String name = e.getAttributeNS(ANDROID_NS, "name");
        if (name.isEmpty()) {
            throw new BadBundleException(MANIFEST + ": <" + kind + "> without android:name");
        }
        String cls = name.startsWith(".") ? pkg + name : (name.contains(".") ? name : pkg + "." + name);
        if (!CLASS_NAME.matcher(cls).matches()) {
            throw new BadBundleException(MANIFEST + ": <" + kind + " android:name=\"" + name + "\"> is not a class name");
        }
        List<Filter> filters = new ArrayList<>();
        NodeList fl = e.getElementsByTagName("intent-filter");
        for (int i = 0; i < fl.getLength(); i++) {
            Element fe = (Element) fl.item(i);
            Filter f = new Filter();
            String prio = fe.getAttributeNS(ANDROID_NS, "priority");
            if (!prio.isEmpty()) {
                try {
                    f.priority = Integer.parseInt(prio);
                } catch (NumberFormatException ex) {
                    throw new BadBundleException(MANIFEST + ": intent-filter priority '" + prio + "' of " + cls
                            + " is not an integer");
                }
            }
            for (Node n = fe.getFirstChild(); n != null; n = n.getNextSibling()) {
                if (!(n instanceof Element)) {
                    continue;
                }
                Element c = (Element) n;
                String v = c.getAttributeNS(ANDROID_NS, "name");
                switch (c.getTagName()) {
                    case "action":
                        f.actions.add(v);
                        break;
                    case "category":
                        f.categories.add(v);
                        break;
                    case "data":
                        String scheme = c.getAttributeNS(ANDROID_NS, "scheme");
                        if (!scheme.isEmpty()) {
                            f.schemes.add(scheme);
                        }
                        break;
                    default:
                        break;
                }
            }
            filters.add(f);
        }
        String exported = e.getAttributeNS(ANDROID_NS, "exported");
        if (!exported.isEmpty() && !exported.equals("true") && !exported.equals("false")) {
            throw new BadBundleException(MANIFEST + ": android:exported=\"" + exported + "\" of " + cls
                    + " is not true or false");
        }
        return new Component(kind, cls, filters, exported.isEmpty() ? !filters.isEmpty() : exported.equals("true"));
    }

    private static void checkClasses(Path classes, List<Component>... lists) throws BadBundleException {
        try (ZipFile zip = new ZipFile(classes.toFile())) {
            for (List<Component> list : lists) {
                for (Component c : list) {
                    String entry = c.className.replace('.', '/') + ".class";
                    ZipEntry ze = zip.getEntry(entry);
                    if (ze == null) {
                        throw new BadBundleException(CLASSES + " has no " + entry + " (the " + c.kind + " "
                                + c.className + " declared in " + MANIFEST + ")");
                    }
                }
            }
        } catch (IOException e) {
            throw new BadBundleException(CLASSES + " is not a valid jar: " + e.getMessage());
        }
    }
}
