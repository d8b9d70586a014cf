package io.joulie.operator.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.joulie.api.v1alpha1.Joulie;
import io.joulie.api.v1alpha1.JoulieSpec;
import io.joulie.operator.install.OptionalCrds;
import io.joulie.testkit.ServerSideApplyDispatcher;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import static io.joulie.operator.it.Cluster.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * spec.monitoring: the Grafana dashboard ConfigMap always, ServiceMonitors and a PrometheusRule when the
 * Prometheus Operator's CRDs exist (a MonitoringReady=False condition, not a failure, when they do not);
 * deleting the Joulie resource removes every object it made.
 */
@QuarkusTest
@WithKubernetesTestServer(setup = ServerSideApplyDispatcher.Setup.class)
class MonitoringTest extends OperatorTest {
    static final ResourceDefinitionContext SM = new ResourceDefinitionContext.Builder().withGroup("monitoring.coreos.com")
            .withVersion("v1").withKind("ServiceMonitor").withPlural("servicemonitors").withNamespaced(true).build();
    static final ResourceDefinitionContext PR = new ResourceDefinitionContext.Builder().withGroup("monitoring.coreos.com")
            .withVersion("v1").withKind("PrometheusRule").withPlural("prometheusrules").withNamespaced(true).build();

    @BeforeEach
    @AfterEach
    void clean() {
        client.resources(Joulie.class).delete();
        client.apiextensions().v1().customResourceDefinitions().withName("servicemonitors.monitoring.coreos.com").delete();
        client.apiextensions().v1().customResourceDefinitions().withName("prometheusrules.monitoring.coreos.com").delete();
        // a CRD found is looked at again only when an apply says its API is gone; the mock server's never do
        OptionalCrds.forgetAll();
        await().atMost(WAIT).until(() -> client.resources(Joulie.class).list().getItems().isEmpty()
                && dashboard() == null);
    }

    void registerPrometheusOperatorCrds() {
        for (var kind : List.of(SM, PR)) {
            client.apiextensions().v1().customResourceDefinitions().resource(new CustomResourceDefinitionBuilder()
                    .withNewMetadata().withName(kind.getPlural() + "." + kind.getGroup()).endMetadata()
                    .withNewSpec().withGroup(kind.getGroup()).withScope("Namespaced")
                    .withNewNames().withKind(kind.getKind()).withPlural(kind.getPlural()).endNames()
                    .addNewVersion().withName("v1").withServed(true).withStorage(true).endVersion()
                    .endSpec().build()).create();
        }
    }

    Joulie joulie(JoulieSpec.Monitoring monitoring) {
        Joulie j = new Joulie();
        j.getMetadata().setName("joulie");
        j.setSpec(new JoulieSpec(null, null, monitoring));
        return client.resource(j).create();
    }

    void setMonitoring(JoulieSpec.Monitoring monitoring) {
        cluster.setJoulieSpec(new JoulieSpec(null, null, monitoring));
    }

    ConfigMap dashboard() {
        return client.configMaps().inNamespace(client.getNamespace()).withName("joulie-dashboard").get();
    }

    GenericKubernetesResource generic(ResourceDefinitionContext kind, String name) {
        return client.genericKubernetesResources(kind).inNamespace(client.getNamespace()).withName(name).get();
    }

    Condition condition(String type) {
        Joulie j = client.resources(Joulie.class).withName("joulie").get();
        return j == null || j.getStatus() == null || j.getStatus().conditions() == null ? null
                : j.getStatus().conditions().stream().filter(c -> c.getType().equals(type)).findFirst().orElse(null);
    }

    @Test
    void withoutThePrometheusOperatorTheDashboardIsCreatedAndTheConditionSaysWhatIsMissing() throws Exception {
        Joulie created = joulie(null);
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(dashboard()).isNotNull();
            Condition c = condition("MonitoringReady");
            assertThat(c).isNotNull();
            assertThat(c.getStatus()).isEqualTo("False");
            assertThat(c.getReason()).isEqualTo("PrometheusOperatorMissing");
            assertThat(c.getMessage()).contains("servicemonitors.monitoring.coreos.com is not installed",
                    "prometheusrules.monitoring.coreos.com is not installed", "created: Grafana dashboard ConfigMap");
        });
        ConfigMap cm = dashboard();
        assertThat(cm.getMetadata().getLabels()).containsEntry("grafana_dashboard", "1");
        assertThat(cm.getMetadata().getOwnerReferences()).singleElement()
                .satisfies(o -> assertThat(o.getUid()).isEqualTo(created.getMetadata().getUid()));
        JsonNode dashboard = new ObjectMapper().readTree(cm.getData().get("joulie.json"));
        assertThat(dashboard.path("uid").asText()).isEqualTo("joulie");
        assertThat(dashboard.path("panels").isArray()).isTrue();
        // The operator's metrics Service, which the operator's ServiceMonitor selects.
        await().atMost(WAIT).untilAsserted(() -> assertThat(client.services().inNamespace(client.getNamespace())
                .withName("joulie-operator-metrics").get()).isNotNull());
        // A missing Prometheus Operator does not make the installation Degraded.
        assertThat(condition("Degraded").getReason()).isNotEqualTo("PrometheusOperatorMissing");
    }

    @Test
    void withThePrometheusOperatorServiceMonitorsAndRulesAreCreatedFollowTheSpecAndGoWithTheResource() {
        registerPrometheusOperatorCrds();
        Joulie created = joulie(new JoulieSpec.Monitoring(null, null, null, Map.of("release", "prom")));
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(generic(SM, "joulie-agent")).isNotNull();
            assertThat(generic(SM, "joulie-operator-metrics")).isNotNull();
            assertThat(generic(PR, "joulie")).isNotNull();
            assertThat(condition("MonitoringReady")).isNotNull();
            assertThat(condition("MonitoringReady").getStatus()).isEqualTo("True");
            assertThat(condition("MonitoringReady").getReason()).isEqualTo("Ready");
        });
        GenericKubernetesResource agentMonitor = generic(SM, "joulie-agent");
        assertThat(agentMonitor.getMetadata().getLabels()).containsEntry("release", "prom");
        assertThat(agentMonitor.getMetadata().getOwnerReferences()).singleElement()
                .satisfies(o -> assertThat(o.getUid()).isEqualTo(created.getMetadata().getUid()));
        @SuppressWarnings("unchecked")
        Map<String, Object> spec = (Map<String, Object>) agentMonitor.getAdditionalProperties().get("spec");
        assertThat(spec.get("selector").toString()).contains("app.kubernetes.io/name=joulie-agent");
        assertThat(spec.get("endpoints").toString()).contains("port=metrics", "path=/q/metrics");
        // the agents' node label comes from where the scraped pod runs, not from what the agent says
        @SuppressWarnings("unchecked")
        Map<String, Object> agentEndpoint = ((List<Map<String, Object>>) spec.get("endpoints")).getFirst();
        assertThat(agentEndpoint).containsEntry("honorLabels", false);
        assertThat(agentEndpoint.get("relabelings")).isEqualTo(List.of(Map.of("action", "replace",
                "sourceLabels", List.of("__meta_kubernetes_pod_node_name"), "targetLabel", "node")));
        @SuppressWarnings("unchecked")
        Map<String, Object> operatorSpec = (Map<String, Object>) generic(SM, "joulie-operator-metrics").getAdditionalProperties().get("spec");
        assertThat(operatorSpec.get("endpoints").toString()).as("the operator's per-node metrics keep their node label")
                .doesNotContain("relabelings", "honorLabels");
        assertThat(generic(PR, "joulie").getAdditionalProperties().get("spec").toString()).contains("JoulieDrainBlocked");

        // Turning the dashboard and the ServiceMonitors off removes them; the rules stay.
        setMonitoring(new JoulieSpec.Monitoring(false, false, null, Map.of("release", "prom")));
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(dashboard()).isNull();
            assertThat(generic(SM, "joulie-agent")).isNull();
            assertThat(generic(SM, "joulie-operator-metrics")).isNull();
            assertThat(generic(PR, "joulie")).isNotNull();
        });
        setMonitoring(new JoulieSpec.Monitoring(null, null, null, null));
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(dashboard()).isNotNull();
            assertThat(generic(SM, "joulie-agent")).isNotNull();
            assertThat(generic(SM, "joulie-agent").getMetadata().getLabels()).doesNotContainKey("release");
            assertThat(client.apps().daemonSets().inNamespace(client.getNamespace()).withName("joulie-agent").get()).isNotNull();
        });

        // Deleting the Joulie resource removes everything it made.
        client.resources(Joulie.class).withName("joulie").delete();
        List<Supplier<HasMetadata>> made = List.of(
                () -> client.apps().daemonSets().inNamespace(client.getNamespace()).withName("joulie-agent").get(),
                () -> client.services().inNamespace(client.getNamespace()).withName("joulie-agent").get(),
                () -> client.services().inNamespace(client.getNamespace()).withName("joulie-operator-metrics").get(),
                this::dashboard,
                () -> generic(SM, "joulie-agent"),
                () -> generic(SM, "joulie-operator-metrics"),
                () -> generic(PR, "joulie"));
        await().atMost(WAIT).untilAsserted(() -> assertThat(made).allSatisfy(s -> assertThat(s.get()).isNull()));
    }
}
