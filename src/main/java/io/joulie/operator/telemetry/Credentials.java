package io.joulie.operator.telemetry;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Base64;
import java.util.Collection;
import java.util.Optional;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * How the operator authenticates to Prometheus and whom it trusts (docs/configuration.md#prometheus-authentication):
 * a bearer token or a basic-auth password, each read from a file mounted into the operator's pod (a Secret, or the
 * pod's own ServiceAccount token), and the CA certificates of an https server. The token and the password are read
 * again for every request, so a rotated token (projected ServiceAccount tokens rotate hourly) is picked up without a
 * restart; the CA file is read once, when the settings are applied. Credentials never appear in the resource itself.
 *
 * @param bearerTokenFile a file holding the token sent as {@code Authorization: Bearer <token>}
 * @param username        the basic-auth user, with {@code passwordFile}
 * @param passwordFile    a file holding the basic-auth password
 * @param caFile          PEM certificates that sign the server's certificate; else the JVM's trust store
 */
public record Credentials(Optional<Path> bearerTokenFile, Optional<String> username, Optional<Path> passwordFile,
                          Optional<Path> caFile) {
    public static final Credentials NONE = new Credentials(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());

    /**
     * The {@code Authorization} header value, read from its file now; empty without credentials. A token that cannot go
     * into an HTTP header (a line break inside it, another control character, a character beyond ASCII) is an
     * IOException that names the file and the position, not the token.
     */
    public Optional<String> authorization() throws IOException {
        if (bearerTokenFile.isPresent()) {
            String token = Files.readString(bearerTokenFile.get(), StandardCharsets.UTF_8).strip();
            for (int i = 0; i < token.length(); i++) {
                char c = token.charAt(i);
                if (c < 0x21 || c > 0x7e) {
                    throw new IOException(bearerTokenFile.get() + " must hold the token alone, without spaces or line breaks "
                            + "inside it: character " + (i + 1) + " (code " + (int) c + ") cannot be sent in an HTTP header");
                }
            }
            return Optional.of("Bearer " + token);
        }
        if (username.isPresent() && passwordFile.isPresent()) {
            String password = Files.readString(passwordFile.get(), StandardCharsets.UTF_8).strip();
            return Optional.of("Basic " + Base64.getEncoder().encodeToString(
                    (username.get() + ":" + password).getBytes(StandardCharsets.UTF_8)));
        }
        return Optional.empty();
    }

    /** A TLS context that trusts exactly the certificates of {@code caFile}; empty without one. */
    public Optional<SSLContext> sslContext() throws IOException, GeneralSecurityException {
        if (caFile.isEmpty()) {
            return Optional.empty();
        }
        Collection<? extends Certificate> certificates;
        try (InputStream in = Files.newInputStream(caFile.get())) {
            certificates = CertificateFactory.getInstance("X.509").generateCertificates(in);
        }
        if (certificates.isEmpty()) {
            throw new GeneralSecurityException("no certificate in " + caFile.get());
        }
        KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        int i = 0;
        for (Certificate c : certificates) {
            trust.setCertificateEntry("ca-" + i++, c);
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), null);
        return Optional.of(ctx);
    }
}
