package io.joulie.e2e.cluster;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scenario 1, install as documented: the README's install command on a fresh control plane, in one go, as the
 * cluster admin; the CRDs' printer columns; the real API server refusing what the schemas promise to refuse.
 */
@Order(1)
@ExtendWith(RealCluster.Extension.class)
class InstallIT {
    static RealCluster cluster;

    @BeforeAll
    static void install(RealCluster c) {
        cluster = c;
    }

    @Test
    void theReadmeCommandInstallsInOneGo() {
        RealCluster.Result r = cluster.install();
        assertThat(r.exit()).as("'%s' on a fresh control plane:\n%s", RealCluster.INSTALL_COMMAND, r.output()).isZero();
        assertThat(r.output()).contains("customresourcedefinition.apiextensions.k8s.io/joulies.joulie.io created",
                "deployment.apps/joulie-operator created", "joulie.joulie.io/joulie created");
        assertThat(cluster.kubectl(null, "get", "joulie", "joulie", "-o", "name").ok().output().strip())
                .isEqualTo("joulie.joulie.io/joulie");
    }

    @Test
    void printerColumnsShowInKubectlGet() {
        cluster.install().ok();
        cluster.kubectl("""
                apiVersion: joulie.io/v1alpha1
                kind: NodePowerProfile
                metadata: {name: e2e-columns}
                spec: {nodeName: nowhere, profile: eco, cpu: {packagePowerCapPercent: 60}, gpu: {powerCapWattsPerGpu: 450}}
                ---
                apiVersion: joulie.io/v1alpha1
                kind: NodeHardware
                metadata: {name: e2e-columns}
                spec: {nodeName: nowhere}
                """, "apply", "-f", "-").ok();
        try {
            String table = cluster.kubectl(null, "get", "npp", "e2e-columns").ok().output();
            assertThat(table.lines().findFirst().orElseThrow().split("\\s{2,}"))
                    .containsExactly("NAME", "NODE", "PROFILE", "STATE", "CAP (W)", "APPLIED (W)", "AGENT", "CAP (%)", "GPU (W)",
                            "GPU (%)", "AGE");
            assertThat(table).contains("nowhere", "eco", "60", "450");
            assertThat(cluster.kubectl(null, "get", "tp").ok().output()).doesNotContain("error");
            assertThat(cluster.kubectl(null, "get", "joulie").ok().output().lines().findFirst().orElseThrow()).startsWith("NAME");
            String inventory = cluster.kubectl(null, "get", "nhw", "e2e-columns").ok().output();
            assertThat(inventory.lines().findFirst().orElseThrow().split("\\s{2,}"))
                    .containsExactly("NAME", "NODE", "CPU", "SOCKETS", "CPU CONTROL", "GPUS", "GPU", "GPU CONTROL", "AGE");
            assertThat(inventory).contains("nowhere");
        } finally {
            cluster.kubectl(null, "delete", "npp", "e2e-columns").ok();
            cluster.kubectl(null, "delete", "nhw", "e2e-columns").ok();
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            unknown profile        | NodePowerProfile | {nodeName: n1, profile: turbo}                                       | Unsupported value: "turbo"
            negative cap           | NodePowerProfile | {nodeName: n1, profile: eco, cpu: {packagePowerCapWatts: -5}}       | packagePowerCapWatts
            zero cap               | NodePowerProfile | {nodeName: n1, profile: eco, cpu: {packagePowerCapWatts: 0}}        | packagePowerCapWatts
            missing nodeName       | NodePowerProfile | {profile: eco}                                                      | spec.nodeName: Required value
            missing profile        | NodePowerProfile | {nodeName: n1}                                                      | spec.profile: Required value
            cap as text            | NodePowerProfile | {nodeName: n1, profile: eco, cpu: {packagePowerCapWatts: lots}}     | packagePowerCapWatts
            watts and percent      | NodePowerProfile | {nodeName: n1, profile: eco, cpu: {packagePowerCapWatts: 120, packagePowerCapPercent: 60}} | packagePowerCapWatts and packagePowerCapPercent are mutually exclusive
            percent above 100      | NodePowerProfile | {nodeName: n1, profile: eco, cpu: {packagePowerCapPercent: 140}}    | packagePowerCapPercent
            zero percent           | NodePowerProfile | {nodeName: n1, profile: eco, cpu: {packagePowerCapPercent: 0}}      | packagePowerCapPercent
            GPU watts and percent  | NodePowerProfile | {nodeName: n1, profile: eco, gpu: {powerCapWattsPerGpu: 300, powerCapPercent: 60}} | powerCapWattsPerGpu and powerCapPercent are mutually exclusive
            GPU percent above 100  | NodePowerProfile | {nodeName: n1, profile: eco, gpu: {powerCapPercent: 101}}           | spec.gpu.powerCapPercent
            inventory without node | NodeHardware     | {}                                                                  | spec.nodeName: Required value
            unknown policy         | Joulie           | {policy: {type: greedy}}                                            | spec.policy.type
            unknown escalation     | Joulie           | {policy: {downgradeEscalation: panic}}                              | spec.policy.downgradeEscalation
            zero eco cap           | Joulie           | {policy: {ecoCapWatts: 0}}                                          | spec.policy.ecoCapWatts
            eco above performance  | Joulie           | {policy: {ecoCapWatts: 300, performanceCapWatts: 250}}              | ecoCapWatts must not be above performanceCapWatts
            """)
    void theApiServerRefusesWhatTheSchemaForbids(String what, String kind, String spec, String message) {
        cluster.install().ok();
        RealCluster.Result r = cluster.kubectl("""
                apiVersion: joulie.io/v1alpha1
                kind: %s
                metadata: {name: e2e-invalid}
                spec: %s
                """.formatted(kind, spec), "create", "-f", "-");
        assertThat(r.exit()).as("%s must be refused; kubectl said:\n%s", what, r.output()).isNotZero();
        assertThat(r.output()).contains("is invalid").contains(message);
    }
}
