package io.joulie.operator.webhook;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The webhook's serving certificate: an RSA key and a self-signed X.509 v3 certificate for the names the API server
 * calls it by (decision 209). The API server trusts it through the webhook configuration's {@code caBundle}, which
 * holds this certificate itself, so no CA of the cluster and no cert-manager is needed. Built with the JDK alone (its
 * DER written here), so the native image needs nothing more.
 *
 * @param certificatePem the certificate, PEM
 * @param keyPem         the private key, PKCS #8 PEM
 */
public record SelfSignedCertificate(String certificatePem, String keyPem) {
    private static final byte[] SHA256_WITH_RSA = {0x2a, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xf7, 0x0d, 0x01, 0x01, 0x0b};
    private static final byte[] COMMON_NAME = {0x55, 0x04, 0x03};
    private static final byte[] SUBJECT_ALT_NAME = {0x55, 0x1d, 0x11};
    private static final byte[] BASIC_CONSTRAINTS = {0x55, 0x1d, 0x13};
    private static final byte[] KEY_USAGE = {0x55, 0x1d, 0x0f};
    private static final byte[] EXT_KEY_USAGE = {0x55, 0x1d, 0x25};
    private static final byte[] SERVER_AUTH = {0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x01};
    private static final DateTimeFormatter UTC_TIME = DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'").withZone(ZoneOffset.UTC);
    private static final Pattern PEM = Pattern.compile("-----BEGIN ([A-Z ]+)-----([^-]+)-----END \\1-----");

    /**
     * A new key and certificate valid from an hour before {@code now} (clock skew) until {@code now + validity}, named
     * {@code names} (DNS names, or IP addresses written as such); the first name is the subject's common name.
     */
    public static SelfSignedCertificate generate(List<String> names, Instant now, java.time.Duration validity) {
        if (names.isEmpty()) {
            throw new IllegalArgumentException("a certificate needs at least one name");
        }
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
            g.initialize(2048);
            KeyPair pair = g.generateKeyPair();
            byte[] algorithm = seq(oid(SHA256_WITH_RSA), new byte[] {0x05, 0x00});
            byte[] name = seq(tlv(0x31, seq(oid(COMMON_NAME), tlv(0x0c, names.get(0).getBytes(StandardCharsets.UTF_8)))));
            ByteArrayOutputStream sans = new ByteArrayOutputStream();
            for (String n : names) {
                sans.writeBytes(isIpAddress(n) ? tlv(0x87, InetAddress.getByName(n).getAddress())
                        : tlv(0x82, n.getBytes(StandardCharsets.US_ASCII)));
            }
            byte[] extensions = seq(
                    extension(BASIC_CONSTRAINTS, true, seq(new byte[] {0x01, 0x01, (byte) 0xff})),
                    // digitalSignature, keyEncipherment, keyCertSign
                    extension(KEY_USAGE, true, new byte[] {0x03, 0x02, 0x01, (byte) 0xa4}),
                    extension(EXT_KEY_USAGE, false, seq(oid(SERVER_AUTH))),
                    extension(SUBJECT_ALT_NAME, false, tlv(0x30, sans.toByteArray())));
            byte[] tbs = seq(
                    tlv(0xa0, integer(BigInteger.TWO)),
                    integer(new BigInteger(64, new SecureRandom()).setBit(63)),
                    algorithm, name,
                    seq(time(now.minusSeconds(3600)), time(now.plus(validity))),
                    name, pair.getPublic().getEncoded(),
                    tlv(0xa3, extensions));
            Signature s = Signature.getInstance("SHA256withRSA");
            s.initSign(pair.getPrivate());
            s.update(tbs);
            byte[] signature = s.sign();
            byte[] bits = new byte[signature.length + 1];
            System.arraycopy(signature, 0, bits, 1, signature.length);
            byte[] certificate = seq(tbs, algorithm, tlv(0x03, bits));
            return new SelfSignedCertificate(pem("CERTIFICATE", certificate), pem("PRIVATE KEY", pair.getPrivate().getEncoded()));
        } catch (GeneralSecurityException | java.io.IOException e) {
            throw new IllegalStateException("cannot make the webhook's certificate: " + e.getMessage(), e);
        }
    }

    /** The certificate, parsed. */
    public X509Certificate certificate() {
        try {
            return (X509Certificate) CertificateFactory.getInstance("X.509")
                    .generateCertificate(new ByteArrayInputStream(der(certificatePem, "CERTIFICATE")));
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("not an X.509 certificate: " + e.getMessage(), e);
        }
    }

    /** The private key, parsed. */
    public PrivateKey key() {
        try {
            return KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(der(keyPem, "PRIVATE KEY")));
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("not an RSA private key: " + e.getMessage(), e);
        }
    }

    /**
     * Whether the pair can serve {@code names} at {@code now} for at least {@code margin} more: it parses, the key is the
     * certificate's, every name is among its subject alternative names, and it does not expire within the margin.
     */
    public boolean serves(List<String> names, Instant now, java.time.Duration margin) {
        try {
            X509Certificate c = certificate();
            if (!c.getPublicKey().equals(KeyFactory.getInstance("RSA").generatePublic(
                    new java.security.spec.RSAPublicKeySpec(((java.security.interfaces.RSAPrivateCrtKey) key()).getModulus(),
                            ((java.security.interfaces.RSAPrivateCrtKey) key()).getPublicExponent())))) {
                return false;
            }
            if (c.getNotAfter().toInstant().isBefore(now.plus(margin)) || c.getNotBefore().toInstant().isAfter(now)) {
                return false;
            }
            var sans = c.getSubjectAlternativeNames();
            if (sans == null) {
                return false;
            }
            List<String> present = sans.stream().map(l -> String.valueOf(l.get(1))).toList();
            return present.containsAll(names);
        } catch (GeneralSecurityException | RuntimeException e) {
            return false;
        }
    }

    static boolean isIpAddress(String name) {
        return name.matches("[0-9.]+") || name.contains(":");
    }

    static byte[] der(String pem, String type) {
        Matcher m = PEM.matcher(pem == null ? "" : pem);
        while (m.find()) {
            if (m.group(1).equals(type)) {
                return Base64.getMimeDecoder().decode(m.group(2).strip());
            }
        }
        throw new IllegalArgumentException("no PEM " + type + " block");
    }

    static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

    private static byte[] extension(byte[] oid, boolean critical, byte[] value) {
        return critical ? seq(oid(oid), new byte[] {0x01, 0x01, (byte) 0xff}, tlv(0x04, value)) : seq(oid(oid), tlv(0x04, value));
    }

    private static byte[] time(Instant t) {
        return tlv(0x17, UTC_TIME.format(t).getBytes(StandardCharsets.US_ASCII));
    }

    private static byte[] integer(BigInteger v) {
        return tlv(0x02, v.toByteArray());
    }

    private static byte[] oid(byte[] encoded) {
        return tlv(0x06, encoded);
    }

    private static byte[] seq(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return tlv(0x30, out.toByteArray());
    }

    /** A DER tag, length (short or long form) and value. */
    private static byte[] tlv(int tag, byte[] value) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(tag);
        int n = value.length;
        if (n < 0x80) {
            out.write(n);
        } else {
            int bytes = n > 0xffffff ? 4 : n > 0xffff ? 3 : n > 0xff ? 2 : 1;
            out.write(0x80 | bytes);
            for (int i = bytes - 1; i >= 0; i--) {
                out.write(n >>> (8 * i));
            }
        }
        out.writeBytes(value);
        return out.toByteArray();
    }
}
