package org.rtdroid.codegen;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The build's check of manifests against the app contracts: every cross-context channel an RT
 * manifest declares must be a channel of a contract, in the contract's direction, with
 * {@code <data size>} equal to the most bytes the contract's payload encodes to (the runtime refuses
 * a longer payload, and a larger size only wastes pre-allocated memory); every channel an Android
 * app's manifest names in its {@code org.rtdroid.channels} meta-data must be a contract's.
 *
 * <pre>java -cp xcc-codegen.jar:app-contracts.jar org.rtdroid.codegen.ContractCheck MANIFEST...</pre>
 *
 * The channel table is {@code rtdroid-contracts/channels.tsv} on the class path (in app-contracts,
 * written by {@link ContractGenerator}). Exits 1 with one line per mismatch, naming the manifest, the
 * channel and what differs.
 */
public final class ContractCheck {
    private static final String ANDROID_NS = "http://schemas.android.com/apk/res/android";
    private static final String META_CHANNELS = "org.rtdroid.channels";

    /** One channel of the contracts: its direction, the widest of its payloads, and where it is defined. */
    record ContractChannel(String name, String direction, int maxBytes, String definedBy) {
        String manifestDirection() {
            switch (direction) {
                case "to-rt": return "in";
                case "to-android": return "out";
                default: return "both";
            }
        }
    }

    private ContractCheck() {
    }

    public static void main(String[] args) {
        if (args.length == 0) {
            System.err.println("usage: ContractCheck MANIFEST... | --doc PROTOCOLS_MD [--write]");
            System.exit(2);
        }
        if (args[0].equals("--doc")) {
            System.exit(doc(Path.of(args[1]).toAbsolutePath().normalize(), args.length > 2 && args[2].equals("--write")));
        }
        Map<String, ContractChannel> channels;
        try {
            channels = readTable();
        } catch (IOException | IllegalStateException e) {
            System.err.println("contract check: " + e.getMessage());
            System.exit(2);
            return;
        }
        List<String> problems = new ArrayList<>();
        for (String a : args) {
            problems.addAll(check(Path.of(a).toAbsolutePath().normalize(), channels));
        }
        for (String p : problems) {
            System.err.println("contract check: " + p);
        }
        if (!problems.isEmpty()) {
            System.exit(1);
        }
        System.out.println("contract check: " + args.length + " manifest(s) agree with the app contracts");
    }

    static final String DOC_BEGIN = "<!-- payloads: generated from bridge/contracts/*.proto; do not edit by hand -->";
    static final String DOC_END = "<!-- end of the generated payloads -->";

    /**
     * Holds the payload section of protocols.md (between {@link #DOC_BEGIN} and {@link #DOC_END}) to
     * {@code rtdroid-contracts/payloads.md} from the class path, or rewrites it ({@code write}).
     */
    static int doc(Path protocols, boolean write) {
        try (InputStream in = ContractCheck.class.getClassLoader().getResourceAsStream(ContractGenerator.DOC)) {
            if (in == null) {
                System.err.println("contract check: " + ContractGenerator.DOC + " is not on the class path (add app-contracts)");
                return 2;
            }
            String generated = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            String text = Files.readString(protocols, StandardCharsets.UTF_8);
            int begin = text.indexOf(DOC_BEGIN);
            int end = text.indexOf(DOC_END);
            if (begin < 0 || end < begin) {
                System.err.println("contract check: " + protocols + " has no '" + DOC_BEGIN + "' ... '" + DOC_END + "' section");
                return 1;
            }
            String want = text.substring(0, begin + DOC_BEGIN.length()) + "\n\n" + generated + text.substring(end);
            if (want.equals(text)) {
                return 0;
            }
            if (write) {
                Files.writeString(protocols, want, StandardCharsets.UTF_8);
                System.out.println("contract check: rewrote the payload section of " + protocols);
                return 0;
            }
            System.err.println("contract check: the payload section of " + protocols + " differs from the contracts:"
                    + " run 'make contracts-doc' to regenerate it");
            return 1;
        } catch (IOException e) {
            System.err.println("contract check: " + protocols + ": " + e.getMessage());
            return 2;
        }
    }

    /** The channel table from the class path: channel → its contract entry (the widest payload if several). */
    static Map<String, ContractChannel> readTable() throws IOException {
        InputStream in = ContractCheck.class.getClassLoader().getResourceAsStream(ContractGenerator.TABLE);
        if (in == null) {
            throw new IllegalStateException(ContractGenerator.TABLE + " is not on the class path (add app-contracts)");
        }
        Map<String, ContractChannel> table = new LinkedHashMap<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] f = line.split("\t");
                ContractChannel c = new ContractChannel(f[0], f[1], Integer.parseInt(f[2]), f[4] + " (" + f[3] + ")");
                table.merge(c.name(), c, (a, b) -> a.maxBytes() >= b.maxBytes() ? a : b);
            }
        }
        return table;
    }

    /** The mismatches of one manifest (RT or Android, told apart by the android namespace). */
    static List<String> check(Path manifest, Map<String, ContractChannel> channels) {
        List<String> problems = new ArrayList<>();
        Element root;
        try {
            root = parse(manifest).getDocumentElement();
        } catch (Exception e) {
            problems.add(manifest + ": cannot be read as XML: " + e.getMessage());
            return problems;
        }
        if (root.hasAttributeNS(ANDROID_NS, "versionCode") || root.hasAttribute("package")) {
            checkAndroid(manifest, root, channels, problems);
        } else {
            checkRt(manifest, root, channels, problems);
        }
        return problems;
    }

    private static void checkRt(Path manifest, Element root, Map<String, ContractChannel> channels, List<String> problems) {
        NodeList list = root.getElementsByTagName("channel");
        for (int i = 0; i < list.getLength(); i++) {
            Element ch = (Element) list.item(i);
            if (!"cross-context".equals(ch.getAttribute("type"))) {
                continue;
            }
            String name = ch.getAttribute("name");
            ContractChannel c = channels.get(name);
            if (c == null) {
                problems.add(manifest + ": cross-context channel '" + name + "' is in no app contract (bridge/contracts/*.proto)");
                continue;
            }
            String dir = ch.getAttribute("direction");
            if (!dir.equals(c.manifestDirection())) {
                problems.add(manifest + ": channel '" + name + "' has direction=\"" + dir + "\", its contract "
                        + c.definedBy() + " says \"" + c.manifestDirection() + "\"");
            }
            NodeList data = ch.getElementsByTagName("data");
            String size = data.getLength() == 0 ? "" : ((Element) data.item(0)).getAttribute("size");
            long bytes = sizeBytes(size);
            if (bytes != c.maxBytes()) {
                problems.add(manifest + ": channel '" + name + "' declares <data size=\"" + size + "\"/>, its contract "
                        + c.definedBy() + " encodes up to " + c.maxBytes() + " B: declare size=\"" + c.maxBytes() + "B\"");
            }
        }
    }

    private static void checkAndroid(Path manifest, Element root, Map<String, ContractChannel> channels,
            List<String> problems) {
        NodeList list = root.getElementsByTagName("meta-data");
        for (int i = 0; i < list.getLength(); i++) {
            Element m = (Element) list.item(i);
            if (!META_CHANNELS.equals(m.getAttributeNS(ANDROID_NS, "name"))) {
                continue;
            }
            for (String name : m.getAttributeNS(ANDROID_NS, "value").split(",")) {
                if (!channels.containsKey(name.trim())) {
                    problems.add(manifest + ": " + META_CHANNELS + " names channel '" + name.trim()
                            + "', which is in no app contract (bridge/contracts/*.proto)");
                }
            }
        }
    }

    private static Document parse(Path file) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        DocumentBuilder b = f.newDocumentBuilder();
        b.setErrorHandler(new org.xml.sax.helpers.DefaultHandler()); // errors come back as one line, not printed
        try (InputStream in = Files.newInputStream(file)) {
            return b.parse(in, file.toString());
        }
    }

    /**
     * "65B", "1K", "2KiB" → bytes, by the manifest schema's one rule (rtdroid-runtime's
     * manifest.xsd, type {@code size}: digits only, then the unit as spelt there); -1 if not a size.
     */
    static long sizeBytes(String text) {
        java.util.regex.Matcher m = SIZE.matcher(text);
        if (!m.matches()) {
            return -1;
        }
        long mult = switch (m.group(2)) {
            case "B" -> 1;
            case "K", "KB", "KiB" -> 1L << 10;
            case "M", "MB", "MiB" -> 1L << 20;
            default -> 1L << 30;
        };
        try {
            return Math.multiplyExact(Long.parseLong(m.group(1)), mult);
        } catch (ArithmeticException | NumberFormatException e) {
            return -1;
        }
    }

    private static final java.util.regex.Pattern SIZE = java.util.regex.Pattern.compile("([0-9]+)(B|K|KB|KiB|M|MB|MiB|G|GB|GiB)");
}
