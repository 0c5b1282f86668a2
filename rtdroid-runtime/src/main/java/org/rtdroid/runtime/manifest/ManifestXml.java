package org.rtdroid.runtime.manifest;

import java.io.ByteArrayInputStream;
import java.util.ArrayList;
import java.util.List;
import javax.xml.XMLConstants;
import javax.xml.parsers.SAXParser;
import javax.xml.parsers.SAXParserFactory;
import org.xml.sax.Attributes;
import org.xml.sax.Locator;
import org.xml.sax.SAXParseException;
import org.xml.sax.helpers.DefaultHandler;

/**
 * Reads a manifest's bytes into a tree of {@link Element}s with the JDK's SAX parser: no DTDs, no
 * external entities (the manifest comes from outside the cell's trust boundary). Attribute
 * prefixes are dropped ({@code android:name} is {@code name}, as Android's manifest writes it);
 * namespace declarations are not attributes.
 */
final class ManifestXml {
    private ManifestXml() {}

    static Element read(String sourceName, byte[] bytes) throws ManifestException {
        try {
            SAXParserFactory f = SAXParserFactory.newInstance();
            f.setNamespaceAware(false);
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            f.setFeature("http://xml.org/sax/features/external-general-entities", false);
            f.setFeature("http://xml.org/sax/features/external-parameter-entities", false);
            SAXParser p = f.newSAXParser();
            List<Element> stack = new ArrayList<>();
            Element[] root = new Element[1];
            p.parse(new ByteArrayInputStream(bytes), new DefaultHandler() {
                Locator locator;

                @Override
                public void setDocumentLocator(Locator l) { locator = l; }

                @Override
                public void startElement(String uri, String local, String qName, Attributes a) {
                    Element e = locator == null ? new Element(qName, 0, 0)
                            : new Element(qName, locator.getLineNumber(), locator.getColumnNumber());
                    for (int i = 0; i < a.getLength(); i++) {
                        String n = a.getQName(i);
                        if (n.equals("xmlns") || n.startsWith("xmlns:")) {
                            continue;
                        }
                        e.attrs.put(n.substring(n.indexOf(':') + 1), a.getValue(i));
                    }
                    if (stack.isEmpty()) {
                        root[0] = e;
                    } else {
                        stack.get(stack.size() - 1).children.add(e);
                    }
                    stack.add(e);
                }

                @Override
                public void endElement(String uri, String local, String qName) {
                    stack.remove(stack.size() - 1);
                }

                @Override
                public void characters(char[] ch, int start, int length) {
                    if (!stack.isEmpty()) {
                        stack.get(stack.size() - 1).text.append(ch, start, length);
                    }
                }
            });
            return root[0];
        } catch (SAXParseException e) {
            throw new ManifestException(sourceName, e.getLineNumber(), Math.max(0, e.getColumnNumber()), "manifest",
                    "not well-formed XML: " + e.getMessage(), e);
        } catch (Exception e) {
            throw new ManifestException(sourceName, 0, "manifest", "cannot parse XML: " + e.getMessage(), e);
        }
    }
}
