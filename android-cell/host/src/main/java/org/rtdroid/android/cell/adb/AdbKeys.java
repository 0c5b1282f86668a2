package org.rtdroid.android.cell.adb;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.Signature;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.RSAPublicKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;

/**
 * The device's authorised adb keys, as adbd keeps them in {@code /data/misc/adb/adb_keys}: one
 * public key per line, {@code BASE64 comment}, each the base64 of AOSP's {@code RSAPublicKey}
 * struct (libcrypto_utils' android_pubkey: the modulus size in 32-bit words, n0inv, the modulus
 * and R^2 mod n as little-endian word arrays, the exponent) — exactly the client's
 * {@code ~/.android/adbkey.pub}.
 *
 * <p>A client proves it holds one by signing the device's 20-byte token: adb signs it as a SHA-1
 * digest (PKCS#1 v1.5 with SHA-1's DigestInfo, {@code RSA_sign(NID_sha1, token, ...)}).
 */
final class AdbKeys {
    /** android_pubkey for 2048-bit keys: 64 modulus words. */
    static final int MODULUS_WORDS = 64;
    static final int ENCODED_BYTES = 4 + 4 + 4 * MODULUS_WORDS * 2 + 4;
    private static final byte[] SHA1_DIGEST_INFO = HexFormat.of().parseHex("3021300906052b0e03021a05000414");

    /** One authorised key and what the log calls it. */
    record Key(RSAPublicKey key, String comment, String fingerprint) {
    }

    private final List<Key> keys;

    private AdbKeys(List<Key> keys) {
        this.keys = List.copyOf(keys);
    }

    /**
     * Reads the authorised keys; a missing file authorises nobody. A line that is not a key is
     * refused with its line number (the file is the cell's trust, not something to guess at).
     */
    static AdbKeys load(Path file) throws IOException {
        List<Key> keys = new ArrayList<>();
        if (file == null || !Files.exists(file)) {
            return new AdbKeys(keys);
        }
        int n = 0;
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            n++;
            String t = line.trim();
            if (t.isEmpty() || t.startsWith("#")) {
                continue;
            }
            try {
                keys.add(parse(t));
            } catch (IllegalArgumentException e) {
                throw new IOException(file + " line " + n + ": " + e.getMessage());
            }
        }
        return new AdbKeys(keys);
    }

    int size() {
        return keys.size();
    }

    /** Parses one {@code BASE64 [comment]} line, as the client sends it in AUTH RSAPUBLICKEY. */
    static Key parse(String line) {
        String t = line.trim();
        int sp = t.indexOf(' ');
        String b64 = sp < 0 ? t : t.substring(0, sp);
        String comment = sp < 0 ? "" : t.substring(sp + 1).trim();
        byte[] raw;
        try {
            raw = Base64.getDecoder().decode(b64);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("not base64: " + e.getMessage());
        }
        if (raw.length != ENCODED_BYTES) {
            throw new IllegalArgumentException("an adb public key is " + ENCODED_BYTES + " bytes, this is " + raw.length);
        }
        ByteBuffer b = ByteBuffer.wrap(raw).order(ByteOrder.LITTLE_ENDIAN);
        int words = b.getInt();
        if (words != MODULUS_WORDS) {
            throw new IllegalArgumentException("modulus of " + words + " words, adb keys have " + MODULUS_WORDS);
        }
        b.getInt(); // n0inv: a Montgomery constant the device's verifier does not need here
        byte[] modulus = new byte[4 * MODULUS_WORDS];
        for (int i = 0; i < modulus.length; i++) {
            modulus[modulus.length - 1 - i] = b.get(); // little-endian words, least significant first
        }
        b.position(b.position() + 4 * MODULUS_WORDS); // rr = R^2 mod n, likewise derived
        long exponent = Integer.toUnsignedLong(b.getInt());
        try {
            RSAPublicKey key = (RSAPublicKey) KeyFactory.getInstance("RSA").generatePublic(
                    new RSAPublicKeySpec(new BigInteger(1, modulus), BigInteger.valueOf(exponent)));
            return new Key(key, comment, fingerprint(raw));
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("not an RSA public key: " + e.getMessage());
        }
    }

    /** The key the signature verifies with, or null. */
    Key verify(byte[] token, byte[] signature) {
        for (Key k : keys) {
            if (verify(k.key(), token, signature)) {
                return k;
            }
        }
        return null;
    }

    static boolean verify(RSAPublicKey key, byte[] token, byte[] signature) {
        try {
            Signature s = Signature.getInstance("NONEwithRSA");
            s.initVerify(key);
            s.update(SHA1_DIGEST_INFO);
            s.update(token);
            return s.verify(signature);
        } catch (GeneralSecurityException e) {
            return false; // a signature of the wrong length, say: not this key's
        }
    }

    /** What adbd logs of a key: the MD5 of its encoding, as colon-separated hex. */
    static String fingerprint(byte[] encoded) {
        try {
            byte[] d = MessageDigest.getInstance("MD5").digest(encoded);
            return HexFormat.ofDelimiter(":").withUpperCase().formatHex(d);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
