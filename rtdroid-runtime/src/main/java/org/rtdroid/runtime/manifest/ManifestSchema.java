package org.rtdroid.runtime.manifest;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.transform.dom.DOMSource;
import javax.xml.validation.Schema;
import javax.xml.validation.SchemaFactory;
import javax.xml.validation.ValidatorHandler;
import org.w3c.dom.Document;
import org.w3c.dom.NodeList;
import org.xml.sax.ErrorHandler;
import org.xml.sax.Locator;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;
import org.xml.sax.helpers.AttributesImpl;

/**
 * Validates a manifest tree against {@code manifest.xsd} with the JDK's {@code javax.xml.validation}
 * (the tree is replayed to a {@link ValidatorHandler} with each element's own line and column). The
 * first violation is thrown as a {@link ManifestException} in the project's words: "missing
 * attribute 'x'", "unexpected element inside &lt;y&gt;", "x 'v' is not a duration with a unit
 * (...)" — the phrase of a value's type is the type's documentation in the schema.
 */
final class ManifestSchema {
    static final String RESOURCE = "manifest.xsd";
    private static final String XS = XMLConstants.W3C_XML_SCHEMA_NS_URI;

    private static volatile ManifestSchema loaded;

    private final Schema schema;
    /** simple type name → the phrase of its documentation ("a size (e.g. 256B, 64K, 3M)") */
    private final Map<String, String> typePhrases;
    /** elements of Android's own vocabulary (type "android"): left out of "expected" lists */
    private final Set<String> androidElements;

    private ManifestSchema(Schema schema, Map<String, String> typePhrases, Set<String> androidElements) {
        this.schema = schema;
        this.typePhrases = typePhrases;
        this.androidElements = androidElements;
    }

    static ManifestSchema get() {
        ManifestSchema s = loaded;
        if (s == null) {
            synchronized (ManifestSchema.class) {
                s = loaded;
                if (s == null) {
                    loaded = s = load();
                }
            }
        }
        return s;
    }

    private static ManifestSchema load() {
        try (InputStream in = ManifestSchema.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing from the runtime's jar");
            }
            DocumentBuilderFactory dbf = DocumentBuilderFactory.newInstance();
            dbf.setNamespaceAware(true);
            dbf.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            Document doc = dbf.newDocumentBuilder().parse(in);
            Map<String, String> phrases = new HashMap<>();
            NodeList types = doc.getElementsByTagNameNS(XS, "simpleType");
            for (int i = 0; i < types.getLength(); i++) {
                org.w3c.dom.Element t = (org.w3c.dom.Element) types.item(i);
                NodeList docs = t.getElementsByTagNameNS(XS, "documentation");
                if (docs.getLength() > 0) {
                    phrases.put(t.getAttribute("name"), docs.item(0).getTextContent().trim());
                }
            }
            Set<String> android = new HashSet<>();
            NodeList elements = doc.getElementsByTagNameNS(XS, "element");
            for (int i = 0; i < elements.getLength(); i++) {
                org.w3c.dom.Element e = (org.w3c.dom.Element) elements.item(i);
                if (e.getAttribute("type").equals("android")) {
                    android.add(e.getAttribute("name"));
                }
            }
            SchemaFactory f = SchemaFactory.newInstance(XS);
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            return new ManifestSchema(f.newSchema(new DOMSource(doc)), Map.copyOf(phrases), Set.copyOf(android));
        } catch (IOException | SAXException | javax.xml.parsers.ParserConfigurationException e) {
            throw new IllegalStateException("cannot load " + RESOURCE + ": " + e.getMessage(), e);
        }
    }

    /** @throws ManifestException the first violation of the schema, at the element that has it */
    void validate(String src, Element root) throws ManifestException {
        Replay r = new Replay(src);
        ValidatorHandler v = schema.newValidatorHandler();
        try {
            v.setProperty("http://apache.org/xml/properties/locale", Locale.ROOT);  // the messages parsed below
        } catch (SAXException e) {
            throw new IllegalStateException("the JDK's validator takes no locale: " + e.getMessage(), e);
        }
        v.setErrorHandler(r);
        v.setDocumentLocator(r);
        try {
            v.startDocument();
            r.emit(v, root);
            v.endDocument();
        } catch (Violation violation) {
            throw violation.error;
        } catch (SAXException e) {
            throw new ManifestException(src, r.current.line, r.current.column, r.current.name,
                    "does not validate: " + e.getMessage(), e);
        }
    }

    private static final class Violation extends SAXException {
        final ManifestException error;

        Violation(ManifestException error) {
            super(error.getMessage());
            this.error = error;
        }
    }

    // The parts of the validator's messages (XMLSchemaMessages, locale ROOT) read below. Names and
    // types are the schema's own; values are taken from the tree, never parsed out of a message.
    private static final Pattern ATTRIBUTE_TYPE =
            Pattern.compile("of attribute '([^']+)' on element '[^']+' is not valid with respect to its type, '([^']+)'");
    private static final Pattern PATTERN_TYPE = Pattern.compile("for type '([^']+)'\\.$");
    private static final Pattern ENUMERATION = Pattern.compile("with respect to enumeration '\\[(.*)\\]'\\. It must be");
    private static final Pattern ATTRIBUTE = Pattern.compile("^[^:]+: Attribute '([^']+)'");
    private static final Pattern EXPECTED = Pattern.compile("One of '\\{(.*)\\}' is expected");

    private static String group(Pattern p, String message) {
        Matcher m = p.matcher(message);
        return m.find() ? m.group(1) : null;
    }

    /** Replays the tree as SAX events and turns the validator's first error into a ManifestException. */
    private final class Replay implements Locator, ErrorHandler {
        final String src;
        final List<Element> stack = new ArrayList<>();
        Element current;
        /** the facet a value broke (pattern: its type; enumeration: the values), until the error naming it */
        String enumeration;
        String badType;

        Replay(String src) { this.src = src; }

        void emit(ValidatorHandler v, Element e) throws SAXException {
            AttributesImpl atts = new AttributesImpl();
            for (Map.Entry<String, String> a : e.attrs.entrySet()) {
                atts.addAttribute("", a.getKey(), a.getKey(), "CDATA", a.getValue());
            }
            current = e;
            stack.add(e);
            v.startElement("", e.name, e.name, atts);
            if (!e.text.isEmpty()) {
                current = e;
                v.characters(e.text.toString().toCharArray(), 0, e.text.length());
            }
            for (Element c : e.children) {
                emit(v, c);
            }
            current = e;
            v.endElement("", e.name, e.name);
            stack.remove(stack.size() - 1);
        }

        private Element parent() {
            return stack.size() >= 2 ? stack.get(stack.size() - 2) : null;
        }

        // ---- Locator: where the validator is, for its own messages

        @Override public String getPublicId() { return null; }
        @Override public String getSystemId() { return src; }
        @Override public int getLineNumber() { return current == null ? 0 : current.line; }
        @Override public int getColumnNumber() { return current == null ? 0 : current.column; }

        // ---- ErrorHandler

        @Override
        public void warning(SAXParseException e) { }

        @Override
        public void error(SAXParseException e) throws SAXException {
            SAXException stop = translate(e.getMessage());
            if (stop != null) {
                throw stop;
            }
        }

        @Override
        public void fatalError(SAXParseException e) throws SAXException {
            error(e);
        }

        /** @return the error to stop at, or null when the next message says where the bad value is */
        private SAXException translate(String message) {
            String code = message.substring(0, Math.max(0, message.indexOf(':')));
            Element at = current;
            String problem;
            switch (code) {
                case "cvc-pattern-valid", "cvc-minLength-valid", "cvc-maxLength-valid" -> {
                    badType = group(PATTERN_TYPE, message);
                    enumeration = null;
                    return null;
                }
                case "cvc-enumeration-valid" -> {
                    enumeration = group(ENUMERATION, message);
                    badType = null;
                    return null;
                }
                case "cvc-attribute.3" -> {
                    Matcher m = ATTRIBUTE_TYPE.matcher(message);
                    boolean found = m.find();
                    String attr = found ? m.group(1) : "?";
                    String type = found ? m.group(2) : badType;
                    String value = current.attrs.getOrDefault(attr, "");
                    Element origin = current.origins.get(attr);
                    if (origin != null) {
                        at = origin;
                    }
                    problem = valueProblem(origin != null ? null : attr, value, type);
                }
                case "cvc-type.3.1.3" -> problem = valueProblem(current.name, current.trimmedText(), badType);
                case "cvc-complex-type.4" -> problem = "missing attribute '" + group(ATTRIBUTE, message) + "'";
                case "cvc-complex-type.3.2.2" -> problem = "unexpected attribute '" + group(ATTRIBUTE, message) + "'";
                case "cvc-complex-type.2.4.a", "cvc-complex-type.2.4.d" -> {
                    Element parent = parent();
                    String expected = group(EXPECTED, message);
                    problem = "unexpected element inside <" + (parent == null ? "?" : parent.name) + ">"
                            + (expected == null ? "" : expected(expected));
                }
                case "cvc-complex-type.2.4.b" -> {
                    String expected = group(EXPECTED, message);
                    problem = "<" + current.name + "> is not complete: it needs "
                            + (expected == null ? "more" : names(expected, " or "));
                }
                case "cvc-complex-type.2.1" -> {
                    Element child = current.children.isEmpty() ? null : current.children.get(0);
                    if (child != null) {
                        at = child;
                    }
                    problem = "unexpected " + (child != null ? "element" : "text") + " inside <" + current.name
                            + "> (it has attributes only)";
                }
                case "cvc-complex-type.2.3" -> problem = "unexpected text inside <" + current.name + ">";
                case "cvc-elt.1.a" -> problem = "the root element must be <manifest>";
                default -> problem = message;
            }
            return new Violation(new ManifestException(src, at.line, at.column, at.name, problem));
        }

        /** "{@code attr 'value' is not <phrase>}" or "{@code attr must be 'a', 'b' or 'c', not 'value'}". */
        private String valueProblem(String attr, String value, String type) {
            String subject = attr == null ? "" : attr + " ";
            if (enumeration != null) {
                List<String> values = List.of(enumeration.split(", "));
                StringBuilder s = new StringBuilder(subject.isEmpty() ? "it" : subject.trim()).append(" must be ");
                for (int i = 0; i < values.size(); i++) {
                    s.append(i == 0 ? "" : i == values.size() - 1 ? " or " : ", ").append('\'').append(values.get(i)).append('\'');
                }
                return s.append(", not '").append(value).append('\'').toString();
            }
            String phrase = type == null ? null : typePhrases.get(type);
            return subject + "'" + value + "' is not " + (phrase != null ? phrase : "valid");
        }

        /** " (expected <a>, <b>)" without Android's own elements, which the RT side ignores. */
        private String expected(String list) {
            String names = names(list, ", ");
            return names.isEmpty() ? "" : " (expected " + names + ")";
        }

        private String names(String list, String separator) {
            List<String> names = new ArrayList<>();
            for (String n : list.split(",")) {
                String name = n.trim();
                if (!name.isEmpty() && !androidElements.contains(name)) {
                    names.add("<" + name + ">");
                }
            }
            return String.join(separator, names);
        }
    }
}
