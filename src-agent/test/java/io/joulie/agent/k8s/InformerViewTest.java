package io.joulie.agent.k8s;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.api.v1alpha1.NodePowerProfileSpec;
import io.joulie.api.v1alpha1.Profile;
import io.joulie.api.v1alpha1.TelemetryProfile;
import io.joulie.api.v1alpha1.TelemetryProfileSpec;
import io.joulie.api.v1alpha1.TelemetryProfileSpec.Scope;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What each kind of agent watches, on a mock API server: a node-mode agent only its NodePowerProfile and the
 * TelemetryProfiles labelled with its node or not labelled at all (at 5,000 nodes, a few objects instead of 10,000,
 * and none of the other agents' status writes); a pool agent everything.
 */
@EnableKubernetesMockClient(crud = true)
class InformerViewTest {
    static KubernetesClient client;

    InformerView view;
    final List<String> events = new CopyOnWriteArrayList<>();

    @BeforeEach
    void cluster() {
        for (String node : List.of("w1", "w2", "w3")) {
            NodePowerProfile npp = new NodePowerProfile();
            npp.setMetadata(new ObjectMetaBuilder().withName(JoulieApi.nodePowerProfileName(node)).build());
            npp.setSpec(new NodePowerProfileSpec(node, Profile.ECO, NodePowerProfileSpec.CpuPower.watts(240.0), null));
            client.resource(npp).create();
            tp(JoulieApi.nodePowerProfileName(node), Scope.NODE, node, Map.of(JoulieApi.NODE_LABEL, node));
        }
        tp("cluster-default", Scope.CLUSTER, null, Map.of());
        tp("by-hand-w2", Scope.NODE, "w2", Map.of()); // a node-scoped profile written without the label
    }

    @AfterEach
    void stop() {
        if (view != null) {
            view.stop();
        }
        client.resources(NodePowerProfile.class).delete();
        client.resources(TelemetryProfile.class).delete();
    }

    static void tp(String name, Scope scope, String node, Map<String, String> labels) {
        TelemetryProfile tp = new TelemetryProfile();
        tp.setMetadata(new ObjectMetaBuilder().withName(name).withLabels(labels).build());
        tp.setSpec(new TelemetryProfileSpec(new TelemetryProfileSpec.Target(scope, node), null, null));
        client.resource(tp).create();
    }

    InformerView start(Optional<String> node) throws Exception {
        view = new InformerView(client);
        view.start(node, events::add, () -> events.add("*")).toCompletableFuture().get(30, TimeUnit.SECONDS);
        return view;
    }

    static List<String> names(java.util.Collection<TelemetryProfile> tps) {
        return tps.stream().map(tp -> tp.getMetadata().getName()).sorted().toList();
    }

    @Test
    void aNodeAgentWatchesWhatConcernsItsNodeOnly() throws Exception {
        start(Optional.of("w2"));
        assertThat(view.profileFor("w2")).map(p -> p.getSpec().nodeName()).contains("w2");
        assertThat(view.profileFor("w1")).as("another node's profile is not watched").isEmpty();
        assertThat(names(view.telemetryProfiles())).containsExactly("by-hand-w2", "cluster-default", "node-w2");

        // another node's agent writing its status: not even delivered
        events.clear();
        TelemetryProfile other = client.resources(TelemetryProfile.class).withName("node-w1").get();
        other.getMetadata().setLabels(Map.of(JoulieApi.NODE_LABEL, "w1", "touched", "yes"));
        client.resource(other).update();
        tp("node-w3-extra", Scope.NODE, "w3", Map.of(JoulieApi.NODE_LABEL, "w3"));
        tp("node-w2-extra", Scope.NODE, "w2", Map.of(JoulieApi.NODE_LABEL, "w2"));
        await().atMost(Duration.ofSeconds(10)).until(() -> names(view.telemetryProfiles()).contains("node-w2-extra"));
        assertThat(names(view.telemetryProfiles())).containsExactly("by-hand-w2", "cluster-default", "node-w2", "node-w2-extra");
        assertThat(events).as("only the profile of this node was delivered").containsExactly("w2");
    }

    @Test
    void aPoolAgentWatchesEverything() throws Exception {
        start(Optional.empty());
        assertThat(view.profileFor("w1")).isPresent();
        assertThat(view.profileFor("w3")).isPresent();
        assertThat(names(view.telemetryProfiles())).containsExactly("by-hand-w2", "cluster-default", "node-w1", "node-w2", "node-w3");
    }
}
