package org.rtdroid.rtcell.agent;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;
import org.rtdroid.runtime.text.Printable;

/**
 * The one way an RT bundle's zip is read (protocols.md, "RT bundle", the reading rule), the same
 * rule as the host's {@code xcc.bundle.read_bundle}: a zip reader that trusted the central
 * directory alone (as {@link java.util.zip.ZipFile} does) and one that trusted the local headers
 * (as a streaming reader does) could see two different bundles in the same bytes. Here both must
 * tell the same story or the bundle is refused:
 * <ul>
 *   <li>the end-of-central-directory record is the last 22 bytes (no comment, one disk, no zip64),
 *       the central directory ends where it begins, and the first local header is at offset 0;</li>
 *   <li>each central directory entry's local header has the same name bytes, flags and method
 *       (stored or deflated, not encrypted), and, unless a data descriptor follows the data, the
 *       same CRC-32 and sizes; the entries' data lie in order, without overlap, before the
 *       central directory;</li>
 *   <li>each entry inflates to exactly its declared size (read bounded by {@code bound}, whatever
 *       it declares) with its declared CRC-32.</li>
 * </ul>
 */
final class BundleZip {
    private static final int LOCAL = 0x04034b50;
    private static final int CENTRAL = 0x02014b50;
    private static final int END = 0x06054b50;
    private static final int END_BYTES = 22;
    private static final int CENTRAL_BYTES = 46;
    private static final int LOCAL_BYTES = 30;
    private static final int FLAG_ENCRYPTED = 1;
    private static final int FLAG_DATA_DESCRIPTOR = 8;
    private static final int STORED = 0;
    private static final int DEFLATED = 8;
    /** Entries read at most: a bundle has three; a few more are read so that the extra one is named. */
    private static final int MAX_ENTRIES = 16;

    private BundleZip() {}

    /** One entry as the central directory and its local header both tell it. */
    record Entry(String name, byte[] nameBytes, int flags, int method, long crc, long compressed, long size,
                 long localOffset) {}

    /** The entries of {@code zip} in central-directory order, once the rule above holds for them all. */
    static List<Entry> entries(byte[] zip) throws DeployRefusal {
        ByteBuffer b = ByteBuffer.wrap(zip).order(ByteOrder.LITTLE_ENDIAN);
        int end = zip.length - END_BYTES;
        if (end < 0 || b.getInt(end) != END) {
            throw bad("no end-of-central-directory record in its last 22 bytes (or a zip comment)");
        }
        int entries = u16(b, end + 10);
        long cdBytes = u32(b, end + 12);
        long cdOffset = u32(b, end + 16);
        if (u16(b, end + 4) != 0 || u16(b, end + 6) != 0 || u16(b, end + 8) != entries) {
            throw bad("it spans several disks");
        }
        if (cdOffset + cdBytes != end) {
            throw bad("its central directory (" + cdBytes + " B at " + cdOffset + ") does not end where the end record begins ("
                    + end + ")");
        }
        if (entries > MAX_ENTRIES) {
            throw new DeployRefusal(ResultCode.BAD_BUNDLE, "bundle has " + entries + " entries; " + Bundle.ALLOWED);
        }
        List<Entry> list = new ArrayList<>();
        int p = (int) cdOffset;
        for (int i = 0; i < entries; i++) {
            if (p + CENTRAL_BYTES > end || b.getInt(p) != CENTRAL) {
                throw bad("central directory entry " + (i + 1) + " is not where the directory says");
            }
            int nameLen = u16(b, p + 28);
            int next = p + CENTRAL_BYTES + nameLen + u16(b, p + 30) + u16(b, p + 32);
            if (next > end) {
                throw bad("central directory entry " + (i + 1) + " runs past the directory");
            }
            byte[] name = Arrays.copyOfRange(zip, p + CENTRAL_BYTES, p + CENTRAL_BYTES + nameLen);
            list.add(new Entry(new String(name, StandardCharsets.ISO_8859_1), name, u16(b, p + 8), u16(b, p + 10),
                    u32(b, p + 16), u32(b, p + 20), u32(b, p + 24), u32(b, p + 42)));
            p = next;
        }
        if (p != end) {
            throw bad("its central directory holds more than its " + entries + " entries");
        }
        checkLocalHeaders(b, list, cdOffset);
        return list;
    }

    /** Every local header tells what its central directory entry tells; the data lie in order. */
    private static void checkLocalHeaders(ByteBuffer b, List<Entry> list, long cdOffset) throws DeployRefusal {
        List<Entry> byOffset = new ArrayList<>(list);
        byOffset.sort(Comparator.comparingLong(Entry::localOffset));
        long expected = 0;  // the first local header at 0, each next one at or after the previous data's end
        for (Entry e : byOffset) {
            String n = "bundle entry " + quote(e.name);
            if ((e.flags & FLAG_ENCRYPTED) != 0 || (e.method != STORED && e.method != DEFLATED)) {
                throw new DeployRefusal(ResultCode.BAD_BUNDLE, n + " is encrypted or neither stored nor deflated");
            }
            if (e.localOffset < expected || (expected == 0 && e.localOffset != 0)) {
                throw bad(n + "'s local header at " + e.localOffset + " is not right after the previous entry's data ("
                        + expected + ")");
            }
            long p = e.localOffset;
            if (p + LOCAL_BYTES > cdOffset || b.getInt((int) p) != LOCAL) {
                throw bad(n + " has no local header at " + p);
            }
            int nameLen = u16(b, (int) p + 26);
            long data = p + LOCAL_BYTES + nameLen + u16(b, (int) p + 28);
            if (data + e.compressed > cdOffset) {
                throw bad(n + "'s data run into the central directory");
            }
            byte[] localName = new byte[nameLen];
            b.get((int) p + LOCAL_BYTES, localName);
            if (!Arrays.equals(localName, e.nameBytes)) {
                throw disagree(e, "names " + quote(new String(localName, StandardCharsets.ISO_8859_1)));
            }
            if (u16(b, (int) p + 6) != e.flags || u16(b, (int) p + 8) != e.method) {
                throw disagree(e, "gives other flags or another method");
            }
            if ((e.flags & FLAG_DATA_DESCRIPTOR) == 0
                    && (u32(b, (int) p + 14) != e.crc || u32(b, (int) p + 18) != e.compressed || u32(b, (int) p + 22) != e.size)) {
                throw disagree(e, "gives another CRC-32 or other sizes");
            }
            expected = data + e.compressed;
        }
    }

    /** The content of {@code e} (one of {@link #entries}), read bounded by {@code limit}. */
    static byte[] content(byte[] zip, Entry e, int limit) throws DeployRefusal {
        if (e.size > limit) {
            throw new DeployRefusal(ResultCode.BAD_BUNDLE, "bundle entry " + e.name + " exceeds " + limit + " bytes");
        }
        ByteBuffer b = ByteBuffer.wrap(zip).order(ByteOrder.LITTLE_ENDIAN);
        int p = (int) e.localOffset;
        int data = p + LOCAL_BYTES + u16(b, p + 26) + u16(b, p + 28);
        byte[] out;
        if (e.method == STORED) {
            if (e.compressed != e.size) {
                throw bad("stored entry " + quote(e.name) + " has two sizes");
            }
            out = Arrays.copyOfRange(zip, data, data + (int) e.size);
        } else {
            out = inflate(zip, data, (int) e.compressed, limit, e);
        }
        CRC32 crc = new CRC32();
        crc.update(out);
        if (out.length != e.size || crc.getValue() != e.crc) {
            throw bad("entry " + quote(e.name) + " does not inflate to its declared size and CRC-32");
        }
        return out;
    }

    private static byte[] inflate(byte[] zip, int from, int length, int limit, Entry e) throws DeployRefusal {
        Inflater inflater = new Inflater(true);
        try {
            inflater.setInput(zip, from, length);
            ByteArrayOutputStream out = new ByteArrayOutputStream(Math.min(limit, 64 * 1024));
            byte[] buf = new byte[8192];
            while (!inflater.finished()) {
                int n = inflater.inflate(buf);
                if (n == 0 && (inflater.needsInput() || inflater.needsDictionary())) {
                    throw bad("entry " + quote(e.name) + " is cut short");
                }
                if (out.size() + n > limit) {  // never trust the declared size alone (zip bombs)
                    throw new DeployRefusal(ResultCode.BAD_BUNDLE, "bundle entry " + e.name + " exceeds " + limit + " bytes");
                }
                out.write(buf, 0, n);
            }
            if (inflater.getRemaining() != 0) {
                throw bad("entry " + quote(e.name) + " has bytes after its deflated data");
            }
            return out.toByteArray();
        } catch (DataFormatException x) {
            throw bad("entry " + quote(e.name) + " does not inflate: " + x.getMessage());
        } finally {
            inflater.end();
        }
    }

    private static DeployRefusal disagree(Entry e, String what) {
        return new DeployRefusal(ResultCode.BAD_BUNDLE, "bundle entry " + quote(e.name) + ": its local header " + what
                + "; the central directory and the local header must agree");
    }

    private static DeployRefusal bad(String what) {
        return new DeployRefusal(ResultCode.BAD_BUNDLE, "bundle is not a readable zip: " + what);
    }

    private static String quote(String name) {
        return Printable.quote(Bundle.clip(name));
    }

    private static int u16(ByteBuffer b, int at) {
        return Short.toUnsignedInt(b.getShort(at));
    }

    private static long u32(ByteBuffer b, int at) {
        return Integer.toUnsignedLong(b.getInt(at));
    }
}
