package io.joulie.e2e.cluster;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Scenario 2, a cluster that mutates what the operator writes: a MutatingAdmissionPolicy (the platform's, not
 * Joulie's) appends a toleration and an environment variable to the agent DaemonSet. The operator applies its objects
 * with server-side apply and compares only the fields it applied (decision 132), so the appended entries are the
 * cluster's business: reconciles of the {@code Joulie} resource that change nothing of the DaemonSet write nothing to
 * it (its resourceVersion stays and the API server's audit log holds no write by the operator), and the appended
 * entries stay. A change of {@code spec.agent} still reaches the DaemonSet, beside them.
 */
@Order(2)
class AdmissionMutationIT extends ClusterScenario {
    static final String POLICY = "e2e-platform-daemonset-defaults";
    static final String TOLERATION = "e2e.joulie.io/platform";
    static final String ENV = "E2E_PLATFORM";
    static final int RECONCILES = 5;
    /** spec.agent.reconcileInterval as installed, set again afterwards. */
    static String installedInterval;

    @AfterAll
    static void removeThePolicy() {
        if (cluster != null) {
            cluster.kubectl(null, "delete", "mutatingadmissionpolicybinding.v1beta1.admissionregistration.k8s.io", POLICY,
                    "--ignore-not-found");
            cluster.kubectl(null, "delete", "mutatingadmissionpolicy.v1beta1.admissionregistration.k8s.io", POLICY,
                    "--ignore-not-found");
            cluster.kubectl(null, "patch", "joulie", "joulie", "--type=json", "-p",
                    "[{\"op\":\"remove\",\"path\":\"/spec/monitoring/labels\"}]");
            if (installedInterval != null) {
                cluster.kubectl(null, "patch", "joulie", "joulie", "--type=merge", "-p",
                        "{\"spec\":{\"agent\":{\"reconcileInterval\":\"" + installedInterval + "\"}}}");
            }
            // the next scenarios start from the DaemonSet as the operator makes it
            cluster.kubectl(null, "delete", "daemonset", "joulie-agent", "-n", RealCluster.NAMESPACE, "--ignore-not-found");
        }
    }

    DaemonSet daemonSet() {
        return cluster.admin.apps().daemonSets().inNamespace(RealCluster.NAMESPACE).withName("joulie-agent").get();
    }

    static List<String> tolerations(DaemonSet ds) {
        List<Toleration> t = ds.getSpec().getTemplate().getSpec().getTolerations();
        return t == null ? List.of() : t.stream().map(Toleration::getKey).toList();
    }

    static List<String> env(DaemonSet ds) {
        return ds.getSpec().getTemplate().getSpec().getContainers().getFirst().getEnv().stream().map(EnvVar::getName).toList();
    }

    /** Changes {@code spec.monitoring.labels} (the dashboard's labels, nothing of the DaemonSet) and waits for it to apply. */
    void reconcileWithoutChangingTheDaemonSet(String value) {
        cluster.kubectl(null, "patch", "joulie", "joulie", "--type=merge", "-p",
                "{\"spec\":{\"monitoring\":{\"labels\":{\"e2e-touch\":\"" + value + "\"}}}}").ok();
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            ConfigMap dashboard = cluster.admin.configMaps().inNamespace(RealCluster.NAMESPACE).withName("joulie-dashboard").get();
            assertThat(dashboard.getMetadata().getLabels()).as("the workflow ran for this change").containsEntry("e2e-touch", value);
        });
    }

    @Test
    void whatAnAdmissionPolicyAppendsStaysAndDoesNotMakeTheOperatorRewriteTheDaemonSet() {
        installedInterval = cluster.admin.resources(io.joulie.api.v1alpha1.Joulie.class).withName("joulie").get().getSpec().agent()
                .reconcileInterval();
        // the platform's policy: every DaemonSet of the namespace gets its toleration and its variable
        cluster.kubectl("""
                apiVersion: admissionregistration.k8s.io/v1beta1
                kind: MutatingAdmissionPolicy
                metadata: {name: %1$s}
                spec:
                  matchConstraints:
                    resourceRules:
                    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [daemonsets]}
                  failurePolicy: Fail
                  reinvocationPolicy: Never
                  matchConditions:
                  - name: not-yet-defaulted
                    expression: >-
                      !has(object.spec.template.spec.tolerations)
                      || !object.spec.template.spec.tolerations.exists(t, has(t.key) && t.key == "%2$s")
                      || !object.spec.template.spec.containers.all(c, has(c.env) && c.env.exists(e, e.name == "%3$s"))
                  # env is keyed by name: an ApplyConfiguration merges the variable into each container's list.
                  # tolerations is an atomic list, which an ApplyConfiguration may not change: a JSON patch appends to it
                  # (its value a plain map: this API server panics converting a list of typed objects in a JSON patch)
                  mutations:
                  - patchType: ApplyConfiguration
                    applyConfiguration:
                      expression: >-
                        Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{
                          containers: object.spec.template.spec.containers.map(c, Object.spec.template.spec.containers{name: c.name,
                            env: [Object.spec.template.spec.containers.env{name: "%3$s", value: "appended"}]})}}}}
                  - patchType: JSONPatch
                    jsonPatch:
                      expression: >-
                        !has(object.spec.template.spec.tolerations)
                        ? [JSONPatch{op: "add", path: "/spec/template/spec/tolerations",
                            value: [{"key": "%2$s", "operator": "Exists", "effect": "NoSchedule"}]}]
                        : object.spec.template.spec.tolerations.exists(t, has(t.key) && t.key == "%2$s") ? []
                        : [JSONPatch{op: "add", path: "/spec/template/spec/tolerations/-",
                            value: {"key": "%2$s", "operator": "Exists", "effect": "NoSchedule"}}]
                ---
                apiVersion: admissionregistration.k8s.io/v1beta1
                kind: MutatingAdmissionPolicyBinding
                metadata: {name: %1$s}
                spec:
                  policyName: %1$s
                  matchResources:
                    namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: %4$s}}
                """.formatted(POLICY, TOLERATION, ENV, RealCluster.NAMESPACE), "apply", "-f", "-").ok();

        // The operator made the DaemonSet before the policy existed: made again, it passes through the policy. The
        // policy takes effect once the API server has loaded it, so the DaemonSet is deleted until it comes back mutated.
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(2)).untilAsserted(() -> {
            DaemonSet ds = daemonSet();
            if (ds != null && !tolerations(ds).contains(TOLERATION)) {
                cluster.kubectl(null, "delete", "daemonset", "joulie-agent", "-n", RealCluster.NAMESPACE, "--wait=true").ok();
            }
            ds = daemonSet();
            assertThat(ds).as("the operator made the DaemonSet again").isNotNull();
            assertThat(tolerations(ds)).contains(TOLERATION);
            assertThat(env(ds)).contains(ENV, "NODE_NAME");
        });
        // the first reconciles after the creation (the DaemonSet controller's status writes) have passed
        reconcileWithoutChangingTheDaemonSet("0");
        DaemonSet before = daemonSet();
        Instant from = Instant.now();

        for (int i = 1; i <= RECONCILES; i++) {
            reconcileWithoutChangingTheDaemonSet(String.valueOf(i));
        }

        DaemonSet after = daemonSet();
        assertThat(after.getMetadata().getGeneration()).as("generation after %d reconciles", RECONCILES)
                .isEqualTo(before.getMetadata().getGeneration());
        assertThat(after.getSpec()).as("the DaemonSet's spec").isEqualTo(before.getSpec());
        assertThat(tolerations(after)).as("the policy's toleration stays").contains(TOLERATION);
        assertThat(env(after)).as("the policy's variable stays").contains(ENV);
        String operator = AuditLog.serviceAccount(RealCluster.NAMESPACE, RealCluster.OPERATOR_SA);
        List<AuditLog.Entry> writes = AuditLog.read(cluster.controlPlane.auditLog()).stream()
                .filter(e -> e.user().equals(operator) && e.at().isAfter(from) && "daemonsets".equals(e.resource())
                        && List.of("create", "update", "patch", "delete").contains(e.verb()))
                .toList();
        assertThat(writes).as("the operator's writes to the DaemonSet during %d reconciles", RECONCILES).isEmpty();
        assertThat(AuditLog.read(cluster.controlPlane.auditLog()).stream()
                .filter(e -> e.user().equals(operator) && e.at().isAfter(from) && "configmaps".equals(e.resource())
                        && List.of("update", "patch").contains(e.verb())))
                .as("while it wrote each change of the dashboard (JOSDK writes ConfigMaps with update)")
                .hasSizeGreaterThanOrEqualTo(RECONCILES);

        // a change of spec.agent reaches the DaemonSet, and the platform's entries stay beside it
        cluster.kubectl(null, "patch", "joulie", "joulie", "--type=merge", "-p",
                "{\"spec\":{\"agent\":{\"reconcileInterval\":\"7s\"}}}").ok();
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            DaemonSet ds = daemonSet();
            assertThat(ds.getMetadata().getGeneration()).isGreaterThan(before.getMetadata().getGeneration());
            assertThat(ds.getSpec().getTemplate().getSpec().getContainers().getFirst().getEnv())
                    .contains(new EnvVar("AGENT_RECONCILE_INTERVAL", "7s", null));
            assertThat(tolerations(ds)).contains(TOLERATION);
            assertThat(env(ds)).contains(ENV);
        });
        long changed = daemonSet().getMetadata().getGeneration();
        reconcileWithoutChangingTheDaemonSet("after-change");
        assertThat(daemonSet().getMetadata().getGeneration()).as("and then it stays").isEqualTo(changed);
    }
}
