package org.rtdroid.runtime.manifest;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An element of a manifest as read (or as {@link Chapter5Vocabulary} rewrote it), with the line and
 * column where its start tag ends. An attribute the rewrite made from another element's text (a
 * chapter 5 {@code <cost>1ms</cost>} becomes {@code wcet="1ms"}) keeps that element as its origin,
 * so that an error in its value names the element and line the author wrote.
 */
final class Element {
    final String name;
    final int line;
    final int column;
    final Map<String, String> attrs = new LinkedHashMap<>();
    final List<Element> children = new ArrayList<>();
    final StringBuilder text = new StringBuilder();
    /** attribute name → the element whose text it was made from (only rewritten attributes) */
    final Map<String, Element> origins = new LinkedHashMap<>();

    Element(String name, int line, int column) {
        this.name = name;
        this.line = line;
        this.column = column;
    }

    /** This element under another name, with its attributes, origins and text but not its children. */
    Element renamed(String newName) {
        Element out = new Element(newName, line, column);
        out.attrs.putAll(attrs);
        out.origins.putAll(origins);
        out.text.append(text);
        return out;
    }

    /** Sets an attribute from {@code source}'s text, remembering where it came from. */
    void setFromText(String attr, Element source) {
        attrs.put(attr, source.text.toString().trim());
        origins.put(attr, source);
    }

    /** Moves an attribute of {@code from} here, with its origin. */
    void moveFrom(Element from, String attr, String as) {
        attrs.put(as, from.attrs.get(attr));
        Element origin = from.origins.get(attr);
        if (origin != null) {
            origins.put(as, origin);
        }
    }

    String trimmedText() {
        return text.toString().trim();
    }
}
