package io.joulie.operator.webhook;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.jboss.logging.Logger;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The webhook's serving certificate, kept in a Secret of the operator's namespace so that every replica serves the same
 * one and a restart keeps it (decision 209). {@link #ensure} reads it, and makes a new one when there is none, it does
 * not parse, it does not name what the API server calls, or it expires within {@link #RENEW_BEFORE}; a replica that
 * loses the race to create or replace it takes the winner's. The webhook configuration's {@code caBundle} is
 * {@link #caBundle()}.
 */
public final class WebhookTls {
    private static final Logger LOG = Logger.getLogger(WebhookTls.class);
    public static final String SECRET = "joulie-webhook-tls";
    static final Duration VALIDITY = Duration.ofDays(365);
    static final Duration RENEW_BEFORE = Duration.ofDays(30);

    private final KubernetesClient client;
    private final String namespace;
    private final List<String> names;
    private final Clock clock;
    private final AtomicReference<SelfSignedCertificate> current = new AtomicReference<>();

    public WebhookTls(KubernetesClient client, String namespace, List<String> names, Clock clock) {
        this.client = client;
        this.namespace = namespace;
        this.names = List.copyOf(names);
        this.clock = clock;
    }

    /**
     * The names the API server calls the webhook by: the Service's DNS names, and the host of {@code url} when the
     * configuration names one instead (an operator run outside the cluster).
     */
    public static List<String> names(String service, String namespace, Optional<String> url) {
        List<String> names = new ArrayList<>(List.of(service + "." + namespace + ".svc", service + "." + namespace + ".svc.cluster.local"));
        url.map(u -> URI.create(u).getHost()).filter(h -> h != null && !h.isEmpty())
                .map(h -> h.startsWith("[") ? h.substring(1, h.length() - 1) : h).ifPresent(h -> names.add(0, h));
        return names;
    }

    /** The certificate served now, after {@link #ensure}. */
    public Optional<SelfSignedCertificate> current() {
        return Optional.ofNullable(current.get());
    }

    /** The PEM certificate, base64-encoded as a webhook configuration's {@code caBundle}; empty before {@link #ensure}. */
    public Optional<String> caBundle() {
        return current().map(c -> Base64.getEncoder().encodeToString(c.certificatePem().getBytes(StandardCharsets.UTF_8)));
    }

    /** Reads or makes the certificate; returns whether it differs from the one held before. */
    public boolean ensure() {
        Secret secret = client.secrets().inNamespace(namespace).withName(SECRET).get();
        SelfSignedCertificate found = read(secret);
        if (found == null || !found.serves(names, clock.instant(), RENEW_BEFORE)) {
            found = replace(secret);
        }
        SelfSignedCertificate before = current.getAndSet(found);
        return before == null || !before.equals(found);
    }

    /** Makes a new certificate and writes it, over {@code existing} (only if nobody changed it since) or as a new Secret. */
    private SelfSignedCertificate replace(Secret existing) {
        boolean exists = existing != null;
        SelfSignedCertificate made = SelfSignedCertificate.generate(names, clock.instant(), VALIDITY);
        Secret secret = new SecretBuilder().withNewMetadata().withName(SECRET).withNamespace(namespace)
                .withResourceVersion(exists ? existing.getMetadata().getResourceVersion() : null)
                .withLabels(Map.of("app.kubernetes.io/name", "joulie-operator", "app.kubernetes.io/part-of", "joulie",
                        "app.kubernetes.io/component", "webhook"))
                .endMetadata().withType("kubernetes.io/tls")
                .withStringData(Map.of("tls.crt", made.certificatePem(), "tls.key", made.keyPem())).build();
        try {
            if (exists) {
                client.secrets().inNamespace(namespace).resource(secret).update();
                LOG.infof("Secret %s/%s: a new webhook certificate for %s (the old one expired soon, or named other hosts)",
                        namespace, SECRET, names);
            } else {
                client.secrets().inNamespace(namespace).resource(secret).create();
                LOG.infof("Secret %s/%s: made the webhook certificate for %s, valid %d days", namespace, SECRET, names,
                        VALIDITY.toDays());
            }
            return made;
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409) {
                throw e;
            }
            // another replica made or replaced it first: serve that one
            SelfSignedCertificate theirs = read(client.secrets().inNamespace(namespace).withName(SECRET).get());
            if (theirs == null || !theirs.serves(names, clock.instant(), Duration.ZERO)) {
                throw new IllegalStateException("Secret " + namespace + "/" + SECRET + " changed under the operator and holds "
                        + "no usable certificate for " + names, e);
            }
            return theirs;
        }
    }

    static SelfSignedCertificate read(Secret secret) {
        if (secret == null || secret.getData() == null) {
            return null;
        }
        String crt = secret.getData().get("tls.crt");
        String key = secret.getData().get("tls.key");
        if (crt == null || key == null) {
            return null;
        }
        try {
            return new SelfSignedCertificate(new String(Base64.getDecoder().decode(crt), StandardCharsets.UTF_8),
                    new String(Base64.getDecoder().decode(key), StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
