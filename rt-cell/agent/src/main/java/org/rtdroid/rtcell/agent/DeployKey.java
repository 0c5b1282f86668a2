package org.rtdroid.rtcell.agent;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;

/**
 * The board's Ed25519 deploy key, as PEM (protocols.md: public key {@code PUBLIC KEY}
 * SubjectPublicKeyInfo, private key unencrypted PKCS#8 {@code PRIVATE KEY}).
 */
public final class DeployKey {
    private DeployKey() {
    }

    /** Reads the board's public deploy key. @throws IllegalArgumentException naming the file and the problem */
    public static PublicKey readPublic(Path pem) throws IOException {
        byte[] der = pemBody(Files.readString(pem, StandardCharsets.US_ASCII), "PUBLIC KEY", pem.toString());
        return publicFromDer(der, pem.toString());
    }

    public static PublicKey publicFromPem(String pemText, String sourceName) {
        return publicFromDer(pemBody(pemText, "PUBLIC KEY", sourceName), sourceName);
    }

    public static PrivateKey privateFromPem(String pemText, String sourceName) {
        byte[] der = pemBody(pemText, "PRIVATE KEY", sourceName);
        try {
            return KeyFactory.getInstance("Ed25519").generatePrivate(new PKCS8EncodedKeySpec(der));
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException(sourceName + ": not an Ed25519 PKCS#8 private key: " + e.getMessage(), e);
        }
    }

    public static String toPem(PublicKey key) {
        return pem("PUBLIC KEY", key.getEncoded());
    }

    public static String toPem(PrivateKey key) {
        return pem("PRIVATE KEY", key.getEncoded());
    }

    private static PublicKey publicFromDer(byte[] der, String sourceName) {
        try {
            return KeyFactory.getInstance("Ed25519").generatePublic(new X509EncodedKeySpec(der));
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException(sourceName + ": not an Ed25519 SubjectPublicKeyInfo: " + e.getMessage(), e);
        }
    }

    private static String pem(String label, byte[] der) {
        return "-----BEGIN " + label + "-----\n"
                + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
                + "\n-----END " + label + "-----\n";
    }

    private static byte[] pemBody(String text, String label, String sourceName) {
        String begin = "-----BEGIN " + label + "-----";
        String end = "-----END " + label + "-----";
        int b = text.indexOf(begin);
        int e = text.indexOf(end);
        if (b < 0 || e < b) {
            throw new IllegalArgumentException(sourceName + ": no PEM block '" + begin + "' ... '" + end + "'");
        }
        String body = text.substring(b + begin.length(), e).replaceAll("\\s", "");
        try {
            return Base64.getDecoder().decode(body);
        } catch (IllegalArgumentException ex) {
            throw new IllegalArgumentException(sourceName + ": PEM body is not base64: " + ex.getMessage(), ex);
        }
    }
}
