package io.joulie.operator.webhook;

import org.junit.jupiter.api.Test;

import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class SelfSignedCertificateTest {
    static final Instant NOW = Instant.parse("2026-11-29T00:00:00Z");
    static final List<String> NAMES = List.of("127.0.0.1", "joulie-operator-webhook.joulie-system.svc");

    @Test
    void theJdkReadsTheCertificateItsNamesAndItsSignature() throws Exception {
        SelfSignedCertificate c = SelfSignedCertificate.generate(NAMES, NOW, Duration.ofDays(365));
        X509Certificate x = c.certificate();

        x.verify(x.getPublicKey()); // self-signed, by the key the record holds
        x.checkValidity(java.util.Date.from(NOW));
        assertThat(x.getVersion()).isEqualTo(3);
        assertThat(x.getSubjectX500Principal().getName()).isEqualTo("CN=127.0.0.1");
        assertThat(x.getSubjectAlternativeNames()).containsExactlyInAnyOrder(List.of(7, "127.0.0.1"),
                List.of(2, "joulie-operator-webhook.joulie-system.svc"));
        assertThat(x.getNotAfter().toInstant()).isEqualTo(NOW.plus(Duration.ofDays(365)));
        assertThat(x.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.1");
        assertThat(x.getBasicConstraints()).isNotNegative();
        assertThat(c.key().getAlgorithm()).isEqualTo("RSA");
    }

    @Test
    void itServesOnlyItsOwnNamesWithItsOwnKeyUntilTheMargin() {
        SelfSignedCertificate c = SelfSignedCertificate.generate(NAMES, NOW, Duration.ofDays(365));
        SelfSignedCertificate other = SelfSignedCertificate.generate(NAMES, NOW, Duration.ofDays(365));

        assertThat(c.serves(NAMES, NOW, Duration.ofDays(30))).isTrue();
        assertThat(c.serves(List.of("joulie-operator-webhook.other.svc"), NOW, Duration.ofDays(30))).isFalse();
        assertThat(c.serves(NAMES, NOW.plus(Duration.ofDays(340)), Duration.ofDays(30))).isFalse();
        assertThat(new SelfSignedCertificate(c.certificatePem(), other.keyPem()).serves(NAMES, NOW, Duration.ZERO)).isFalse();
        assertThat(new SelfSignedCertificate("garbage", c.keyPem()).serves(NAMES, NOW, Duration.ZERO)).isFalse();
    }
}
