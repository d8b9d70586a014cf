package io.joulie.operator.it;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetStatusBuilder;
import io.joulie.api.v1alpha1.Joulie;
import io.joulie.api.v1alpha1.JoulieSpec;
import io.joulie.testkit.ServerSideApplyDispatcher;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static io.joulie.operator.it.Cluster.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The Joulie resource drives the agent DaemonSet, its ServiceAccount and metrics Service, and reports truthfully. */
@QuarkusTest
@WithKubernetesTestServer(setup = ServerSideApplyDispatcher.Setup.class)
class JoulieInstallTest extends OperatorTest {

    @BeforeEach
    void noInstallation() {
        client.resources(Joulie.class).delete();
        await().atMost(WAIT).until(() -> client.resources(Joulie.class).list().getItems().isEmpty() && view.installation() == null);
        // A reconcile of a deleted resource that was under way can write its DaemonSet after the clean-up, owned by the
        // deleted UID (a real cluster's garbage collector removes such an orphan; the mock server has none, and the next
        // test would find it): delete until none has come back for a second.
        await().atMost(WAIT).during(Duration.ofSeconds(1)).until(() -> {
            client.apps().daemonSets().inAnyNamespace().delete();
            return client.apps().daemonSets().inAnyNamespace().list().getItems().isEmpty();
        });
    }

    Joulie joulie(String name, String image) {
        Joulie j = new Joulie();
        j.getMetadata().setName(name);
        j.setSpec(new JoulieSpec(JoulieSpec.Agent.of("image", image, "reconcileInterval", "30s")));
        return client.resource(j).create();
    }

    DaemonSet daemonSet() {
        return client.apps().daemonSets().inNamespace(client.getNamespace()).withName("joulie-agent").get();
    }

    Condition condition(String type) {
        Joulie j = client.resources(Joulie.class).withName("joulie").get();
        if (j == null || j.getStatus() == null || j.getStatus().conditions() == null) {
            return null;
        }
        return j.getStatus().conditions().stream().filter(c -> c.getType().equals(type)).findFirst().orElse(null);
    }

    void reportDaemonSet(int desired, int ready, int updated) {
        DaemonSet ds = daemonSet();
        ds.setStatus(new DaemonSetStatusBuilder().withDesiredNumberScheduled(desired).withNumberReady(ready)
                .withUpdatedNumberScheduled(updated).withCurrentNumberScheduled(desired).withNumberMisscheduled(0).build());
        client.resource(ds).updateStatus();
    }

    @Test
    void createsTheAgentObjectsAndReportsTheirState() {
        Joulie created = joulie("joulie", "registry.example/joulie-agent:1.2");

        await().atMost(WAIT).untilAsserted(() -> assertThat(daemonSet()).isNotNull());
        DaemonSet ds = daemonSet();
        var pod = ds.getSpec().getTemplate().getSpec();
        var container = pod.getContainers().getFirst();
        assertThat(container.getImage()).isEqualTo("registry.example/joulie-agent:1.2");
        // The managed-node selector as node affinity (a set-based selector could not be a nodeSelector map).
        assertThat(pod.getNodeSelector()).isNullOrEmpty();
        assertThat(pod.getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms())
                .singleElement().satisfies(t -> assertThat(t.getMatchExpressions()).singleElement().satisfies(r -> {
                    assertThat(r.getKey()).isEqualTo("joulie.io/managed");
                    assertThat(r.getOperator()).isEqualTo("In");
                    assertThat(r.getValues()).containsExactly("true");
                }));
        assertThat(pod.getPriorityClassName()).as("no hard-coded priority class").isNull();
        assertThat(pod.getServiceAccountName()).isEqualTo("joulie-agent");
        assertThat(container.getEnv()).anySatisfy(e -> {
            assertThat(e.getName()).isEqualTo("AGENT_RECONCILE_INTERVAL");
            assertThat(e.getValue()).isEqualTo("30s");
        });
        // what the NVIDIA container toolkit needs to give the agent NVML on a GPU node
        assertThat(container.getEnv()).extracting(e -> e.getName() + "=" + e.getValue())
                .contains("NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_DRIVER_CAPABILITIES=utility");
        assertThat(container.getSecurityContext().getPrivileged()).isFalse();
        assertThat(container.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(container.getSecurityContext().getCapabilities().getAdd()).containsExactly("SYS_RAWIO");
        assertThat(pod.getVolumes()).extracting(v -> v.getHostPath() == null ? null : v.getHostPath().getPath())
                .contains("/sys", "/sys/devices/virtual", "/sys/devices/system/cpu/cpufreq", "/dev/cpu",
                        "/proc/sys/kernel/random/boot_id", "/var/lib/joulie");
        assertThat(container.getVolumeMounts()).anySatisfy(m -> {
            assertThat(m.getMountPath()).isEqualTo("/host/sys");
            assertThat(m.getReadOnly()).isTrue();
        });
        // the originals outlive the agent's container in a host directory (docs/agent-host.md)
        assertThat(container.getEnv()).anySatisfy(e -> {
            assertThat(e.getName()).isEqualTo("JOULIE_STATE_DIR");
            assertThat(e.getValue()).isEqualTo("/var/lib/joulie");
        });
        assertThat(container.getVolumeMounts()).anySatisfy(m -> {
            assertThat(m.getMountPath()).isEqualTo("/var/lib/joulie");
            assertThat(m.getReadOnly()).isNotEqualTo(Boolean.TRUE);
        });
        assertThat(ds.getMetadata().getOwnerReferences()).singleElement().satisfies(o -> {
            assertThat(o.getKind()).isEqualTo("Joulie");
            assertThat(o.getUid()).isEqualTo(created.getMetadata().getUid());
        });
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(client.resources(Service.class).inNamespace(client.getNamespace()).withName("joulie-agent").get()).isNotNull();
            assertThat(condition("Progressing")).isNotNull();
        });
        assertThat(condition("Available").getStatus()).isEqualTo("False");
        // the admission policy that keeps each agent to its own node, for the agent ServiceAccount of this namespace
        await().atMost(WAIT).untilAsserted(() -> {
            var policy = client.admissionRegistration().v1().validatingAdmissionPolicies().withName("joulie-agent-node-scope").get();
            assertThat(policy).isNotNull();
            assertThat(policy.getSpec().getMatchConditions()).singleElement().satisfies(c -> assertThat(c.getExpression())
                    .isEqualTo("request.userInfo.username == 'system:serviceaccount:" + client.getNamespace() + ":joulie-agent'"));
            assertThat(policy.getMetadata().getOwnerReferences()).singleElement()
                    .satisfies(o -> assertThat(o.getUid()).isEqualTo(created.getMetadata().getUid()));
            var binding = client.admissionRegistration().v1().validatingAdmissionPolicyBindings().withName("joulie-agent-node-scope").get();
            assertThat(binding.getSpec().getPolicyName()).isEqualTo("joulie-agent-node-scope");
            assertThat(binding.getSpec().getValidationActions()).containsExactly("Deny");
        });
        // The agent's ServiceAccount belongs to the install (kubernetes/ or OLM), never to the operator.
        assertThat(client.resources(ServiceAccount.class).inNamespace(client.getNamespace()).withName("joulie-agent").get()).isNull();

        reportDaemonSet(0, 0, 0);
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(condition("Degraded").getStatus()).isEqualTo("True");
            assertThat(condition("Degraded").getReason()).isEqualTo("NoNodesSelected");
            assertThat(condition("Available").getStatus()).isEqualTo("False");
        });

        reportDaemonSet(3, 3, 3);
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(condition("Available").getStatus()).isEqualTo("True");
            assertThat(condition("Available").getReason()).isEqualTo("AllAgentsReady");
            assertThat(condition("Degraded").getStatus()).isEqualTo("False");
            assertThat(condition("Progressing").getStatus()).isEqualTo("False");
        });
        Joulie j = client.resources(Joulie.class).withName("joulie").get();
        assertThat(j.getStatus().agents().desired()).isEqualTo(3);
        assertThat(j.getStatus().agents().ready()).isEqualTo(3);
        assertThat(j.getStatus().observedGeneration()).isEqualTo(j.getMetadata().getGeneration());
    }

    @Test
    void changingTheImageRollsTheDaemonSet() {
        joulie("joulie", "registry.example/joulie-agent:1.0");
        await().atMost(WAIT).untilAsserted(() -> assertThat(daemonSet()).isNotNull());

        cluster.setJoulieSpec(new JoulieSpec(JoulieSpec.Agent.of("image", "registry.example/joulie-agent:2.0")));

        await().atMost(WAIT).untilAsserted(() -> assertThat(daemonSet().getSpec().getTemplate().getSpec().getContainers()
                .getFirst().getImage()).isEqualTo("registry.example/joulie-agent:2.0"));
    }

    @Test
    void onlyTheResourceNamedJoulieIsActive() {
        joulie("staging", "registry.example/joulie-agent:1.0");

        await().atMost(WAIT).untilAsserted(() -> {
            Joulie j = client.resources(Joulie.class).withName("staging").get();
            assertThat(j.getStatus()).isNotNull();
            assertThat(j.getStatus().conditions()).anySatisfy(c -> {
                assertThat(c.getType()).isEqualTo("Degraded");
                assertThat(c.getReason()).isEqualTo("NotActive");
            });
        });
        assertThat(daemonSet()).isNull();
    }
}
