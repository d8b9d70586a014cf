package io.joulie.operator.install;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class DesiredSubsetTest {

    static Service desiredService() {
        return new ServiceBuilder().withNewMetadata().withName("joulie-agent").withNamespace("joulie-system")
                .withLabels(Map.of("app.kubernetes.io/name", "joulie-agent")).endMetadata()
                .withNewSpec().withSelector(Map.of("app.kubernetes.io/name", "joulie-agent")).withClusterIP("None")
                .addNewPort().withName("metrics").withPort(9000).withNewTargetPort(9000).endPort().endSpec().build();
    }

    /** The same Service as a real API server returns it: defaults filled in, another controller's annotation. */
    static Service asStored() {
        return new ServiceBuilder(desiredService()).editMetadata().withResourceVersion("1930")
                .addToAnnotations("javaoperatorsdk.io/previous", "d5eb,1930").endMetadata()
                .editSpec().withClusterIPs("None").withSessionAffinity("None").withType("ClusterIP")
                .withInternalTrafficPolicy("Cluster").withIpFamilies("IPv4").withIpFamilyPolicy("SingleStack")
                .editFirstPort().withProtocol("TCP").endPort().endSpec().build();
    }

    @Test
    void serverDefaultsAndForeignAnnotationsMatch() {
        assertThat(DesiredSubset.matches(desiredService(), asStored())).isTrue();
    }

    @Test
    void aChangedOrMissingDesiredValueDoesNotMatch() {
        Service otherPort = new ServiceBuilder(asStored()).editSpec().editFirstPort().withPort(9001).endPort().endSpec().build();
        assertThat(DesiredSubset.matches(desiredService(), otherPort)).isFalse();
        Service noLabel = new ServiceBuilder(asStored()).editMetadata().withLabels(Map.of()).endMetadata().build();
        assertThat(DesiredSubset.matches(desiredService(), noLabel)).isFalse();
        Service otherSelector = new ServiceBuilder(asStored()).editSpec().withSelector(Map.of("app.kubernetes.io/name", "x")).endSpec().build();
        assertThat(DesiredSubset.matches(desiredService(), otherSelector)).isFalse();
        Service extraPort = new ServiceBuilder(asStored()).editSpec().addNewPort().withName("more").withPort(1).endPort().endSpec().build();
        assertThat(DesiredSubset.matches(desiredService(), extraPort)).as("a list must keep its length").isFalse();
        assertThat(DesiredSubset.matches(desiredService(), null)).isFalse();
    }

    @Test
    void quantitiesMatchInAnyFormButNotAnotherAmount() {
        DaemonSet desired = daemonSet("500m", "128Mi");
        assertThat(DesiredSubset.matches(desired, daemonSet("0.5", "134217728"))).isTrue();
        assertThat(DesiredSubset.matches(desired, daemonSet("600m", "128Mi"))).isFalse();
    }

    @Test
    void emptyDesiredCollectionsMatchWhatTheServerOmits() {
        DaemonSet desired = new DaemonSetBuilder(daemonSet("1", "1Gi")).editSpec().editTemplate().editSpec()
                .withTolerations().withNodeSelector(Map.of()).endSpec().endTemplate().endSpec().build();
        DaemonSet stored = new DaemonSetBuilder(daemonSet("1", "1Gi")).editSpec().editTemplate().editSpec()
                .withTolerations((java.util.List<io.fabric8.kubernetes.api.model.Toleration>) null).withNodeSelector(null)
                .endSpec().endTemplate().endSpec().build();
        assertThat(DesiredSubset.matches(desired, stored)).isTrue();
    }

    static DaemonSet daemonSet(String cpu, String memory) {
        return new DaemonSetBuilder().withNewMetadata().withName("joulie-agent").endMetadata().withNewSpec()
                .withNewTemplate().withNewSpec().addNewContainer().withName("agent").withNewResources()
                .addToRequests("cpu", new Quantity(cpu)).addToLimits("memory", new Quantity(memory)).endResources()
                .endContainer().endSpec().endTemplate().endSpec().build();
    }
}
