package org.rtdroid.codegen.runtime;

import java.nio.charset.StandardCharsets;

/**
 * One bounded {@code bytes} or {@code string} field of a generated flyweight: a pre-sized array and a
 * length. The real-time path uses {@link #set(byte[], int, int)}, {@link #array()},
 * {@link #length()} and {@link #contentEquals}; the String methods allocate and are for
 * non-real-time code.
 */
public final class BoundedBytes {
    private final byte[] array;
    private final boolean utf8;
    private int length;

    public BoundedBytes(int capacity, boolean utf8) {
        this.array = new byte[capacity];
        this.utf8 = utf8;
    }

    /** The backing array; bytes {@code [0, length())} are the value. */
    public byte[] array() {
        return array;
    }

    public int length() {
        return length;
    }

    /** The field's bound (xcc.options; strings: max_size − 1, nanopb's terminator excluded). */
    public int capacity() {
        return array.length;
    }

    /** True for a proto {@code string} field (UTF-8 is checked on encode and decode). */
    public boolean isUtf8() {
        return utf8;
    }

    public boolean isEmpty() {
        return length == 0;
    }

    public void clear() {
        length = 0;
    }

    /**
     * Copies {@code len} bytes in. Allocation-free.
     *
     * @throws IllegalArgumentException when {@code len} is over the bound
     */
    public BoundedBytes set(byte[] src, int off, int len) {
        if (len < 0 || len > array.length) {
            throw new IllegalArgumentException(len + " bytes: the field's bound is " + array.length);
        }
        System.arraycopy(src, off, array, 0, len);
        length = len;
        return this;
    }

    /** Copies another field's value (bounds permitting). Allocation-free. */
    public BoundedBytes set(BoundedBytes other) {
        return set(other.array, 0, other.length);
    }

    /** Sets a length after writing into {@link #array()} directly. */
    public BoundedBytes length(int len) {
        if (len < 0 || len > array.length) {
            throw new IllegalArgumentException(len + " bytes: the field's bound is " + array.length);
        }
        length = len;
        return this;
    }

    /** Non-real-time: the UTF-8 bytes of {@code value} (null means empty). */
    public BoundedBytes setString(String value) {
        if (value == null) {
            length = 0;
            return this;
        }
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        return set(bytes, 0, bytes.length);
    }

    /** Non-real-time: the value decoded as UTF-8. */
    public String asString() {
        return new String(array, 0, length, StandardCharsets.UTF_8);
    }

    /** Non-real-time: a copy of the value. */
    public byte[] toByteArray() {
        byte[] copy = new byte[length];
        System.arraycopy(array, 0, copy, 0, length);
        return copy;
    }

    /** Byte-wise equality with {@code other[off, off+len)}. Allocation-free. */
    public boolean contentEquals(byte[] other, int off, int len) {
        if (len != length) {
            return false;
        }
        for (int i = 0; i < len; i++) {
            if (array[i] != other[off + i]) {
                return false;
            }
        }
        return true;
    }

    /** Equality with the UTF-8 encoding of {@code text}, without encoding it. Allocation-free. */
    public boolean contentEquals(CharSequence text) {
        int pos = 0;
        int n = text.length();
        for (int i = 0; i < n; i++) {
            int cp = text.charAt(i);
            if (Character.isHighSurrogate((char) cp) && i + 1 < n && Character.isLowSurrogate(text.charAt(i + 1))) {
                cp = Character.toCodePoint((char) cp, text.charAt(++i));
            }
            if (cp < 0x80) {
                if (pos >= length || array[pos++] != (byte) cp) {
                    return false;
                }
            } else {
                int bytes = cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
                if (pos + bytes > length) {
                    return false;
                }
                int lead = bytes == 2 ? 0xC0 : bytes == 3 ? 0xE0 : 0xF0;
                if (array[pos++] != (byte) (lead | (cp >>> (6 * (bytes - 1))))) {
                    return false;
                }
                for (int k = bytes - 2; k >= 0; k--) {
                    if (array[pos++] != (byte) (0x80 | ((cp >>> (6 * k)) & 0x3F))) {
                        return false;
                    }
                }
            }
        }
        return pos == length;
    }

    /** Byte-wise equality. Allocation-free. */
    public boolean contentEquals(BoundedBytes other) {
        return contentEquals(other.array, 0, other.length);
    }

    /** A hash of the value (for allocation-free lookup tables). */
    public int contentHash() {
        int h = 1;
        for (int i = 0; i < length; i++) {
            h = 31 * h + array[i];
        }
        return h;
    }

    @Override
    public String toString() {
        if (utf8) {
            return '"' + asString() + '"';
        }
        StringBuilder sb = new StringBuilder(2 * length + 2).append("0x");
        for (int i = 0; i < length; i++) {
            sb.append(Character.forDigit((array[i] >> 4) & 0xF, 16)).append(Character.forDigit(array[i] & 0xF, 16));
        }
        return sb.toString();
    }
}
