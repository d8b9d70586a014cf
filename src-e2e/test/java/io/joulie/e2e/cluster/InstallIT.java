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
                ---
                apiVersion: joulie.io/v1alpha1
                kind: TelemetryProfile
                metadata: {name: e2e-columns}
                spec: {target: {scope: node, nodeName: nowhere}}
                """, "apply", "-f", "-").ok();
        try {
            // the agent's answer, as an agent writes it (the status subresource; here by the admin)
            cluster.kubectl(null, "patch", "npp", "e2e-columns", "--subresource=status", "--type=merge", "-p",
                    "{\"status\":{\"agent\":\"Confirmed\",\"performancePods\":2,\"applied\":{\"generation\":1,"
                            + "\"cpu\":{\"result\":\"Applied\",\"backend\":\"powercap\",\"watts\":333},"
                            + "\"gpu\":{\"result\":\"Blocked\",\"backend\":\"nvml\",\"boards\":[{\"index\":0,\"watts\":444}]}}}}").ok();
            String table = cluster.kubectl(null, "get", "npp", "e2e-columns").ok().output();
            assertThat(table.lines().findFirst().orElseThrow().split("\\s{2,}"))
                    .containsExactly("NAME", "NODE", "PROFILE", "STATE", "CPU (W)", "CPU (%)", "CPU APPLIED (W)", "GPU (W)", "GPU (%)",
                            "GPU APPLIED (W)", "GENERATION", "ANSWERED", "AGENT", "AGE");
            assertThat(cells(table)).as("requested beside applied, the generation beside the one answered")
                    .startsWith("e2e-columns", "nowhere", "eco", "", "", "60", "333", "450", "", "444", "1", "1", "Confirmed");
            String wide = cluster.kubectl(null, "get", "npp", "e2e-columns", "-o", "wide").ok().output();
            assertThat(wide.lines().findFirst().orElseThrow()).contains("CPU RESULT", "GPU RESULT", "PERF PODS");
            assertThat(wide.lines().skip(1).findFirst().orElseThrow()).contains("Applied", "Blocked");
            assertThat(cluster.kubectl(null, "get", "tp").ok().output()).doesNotContain("error");
            assertThat(cluster.kubectl(null, "get", "tp", "e2e-columns", "-o", "yaml").ok().output()).as("routing only: no status")
                    .contains("nodeName: nowhere").doesNotContain("status");
            assertThat(cluster.kubectl(null, "get", "joulie").ok().output().lines().findFirst().orElseThrow()).startsWith("NAME");
            String inventory = cluster.kubectl(null, "get", "nhw", "e2e-columns").ok().output();
            assertThat(inventory.lines().findFirst().orElseThrow().split("\\s{2,}"))
                    .containsExactly("NAME", "NODE", "CPU", "SOCKETS", "CPU CONTROL", "GPUS", "GPU", "GPU CONTROL", "AGE");
            assertThat(inventory).contains("nowhere");
        } finally {
            cluster.kubectl(null, "delete", "npp", "e2e-columns").ok();
            cluster.kubectl(null, "delete", "nhw", "e2e-columns").ok();
            cluster.kubectl(null, "delete", "tp", "e2e-columns").ok();
        }
    }

    /** The first row of a {@code kubectl get} table, cut where the header's columns start (an empty cell stays empty). */
    static java.util.List<String> cells(String table) {
        String header = table.lines().findFirst().orElseThrow();
        String row = table.lines().skip(1).findFirst().orElseThrow();
        java.util.List<Integer> starts = new java.util.ArrayList<>();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?<=^|\\s{2})\\S").matcher(header);
        while (m.find()) {
            starts.add(m.start());
        }
        java.util.List<String> cells = new java.util.ArrayList<>();
        for (int i = 0; i < starts.size(); i++) {
            int from = Math.min(starts.get(i), row.length());
            int to = i + 1 < starts.size() ? Math.min(starts.get(i + 1), row.length()) : row.length();
            cells.add(row.substring(from, to).strip());
        }
        return cells;
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
            duration without unit  | Joulie           | {policy: {downgradeTimeout: '30'}}                                  | spec.policy.downgradeTimeout
            duration typo          | Joulie           | {policy: {reconcileInterval: 1min}}                                 | spec.policy.reconcileInterval
            agent interval typo    | Joulie           | {agent: {reconcileInterval: 20 s}}                                  | spec.agent.reconcileInterval
            query timeout typo     | Joulie           | {policy: {telemetry: {prometheus: {url: 'http://p:9090', timeout: 5sec}}}} | spec.policy.telemetry.prometheus.timeout
            start not HH:MM        | Joulie           | {policy: {schedules: [{days: [Mon], start: '8:00', end: '18:00'}]}} | spec.policy.schedules[0].start
            end past midnight      | Joulie           | {policy: {schedules: [{days: [Mon], start: '08:00', end: '24:00'}]}} | spec.policy.schedules[0].end
            unknown day            | Joulie           | {policy: {schedules: [{days: [Mnday], start: '08:00', end: '18:00'}]}} | spec.policy.schedules[0].days[0]
            day list as text       | Joulie           | {policy: {schedules: [{days: ['Mon,Fri'], start: '08:00', end: '18:00'}]}} | spec.policy.schedules[0].days[0]
            time zone with space   | Joulie           | {policy: {timeZone: Europe Berlin}}                                 | spec.policy.timeZone
            window bounds crossed  | Joulie           | {policy: {schedules: [{days: [Mon], start: '08:00', end: '18:00', minPerformanceNodes: 5, maxPerformanceNodes: 2}]}} | minPerformanceNodes must not be above maxPerformanceNodes
            url without scheme     | Joulie           | {policy: {telemetry: {prometheus: {url: 'prometheus:9090'}}}}       | spec.policy.telemetry.prometheus.url
            url with credentials   | Joulie           | {policy: {telemetry: {prometheus: {url: 'http://admin:secret@prometheus:9090'}}}} | spec.policy.telemetry.prometheus.url
            pull policy typo       | Joulie           | {agent: {imagePullPolicy: IfNotPresnt}}                             | spec.agent.imagePullPolicy
            endpoint without scheme | TelemetryProfile | {target: {scope: cluster}, controls: {cpu: {type: http, http: {endpoint: 'sim:8080/{node}'}}}} | spec.controls.cpu.http.endpoint
            node scope without node | TelemetryProfile | {target: {scope: node}}                                            | a node-scoped profile names its node
            token and password      | Joulie           | {policy: {telemetry: {prometheus: {url: 'https://p:9091', bearerTokenFile: /t, basicAuth: {username: u, passwordFile: /p}}}}} | give bearerTokenFile or basicAuth, not both
            relative token file     | Joulie           | {policy: {telemetry: {prometheus: {url: 'https://p:9091', bearerTokenFile: token}}}} | spec.policy.telemetry.prometheus.bearerTokenFile
            basic auth without file | Joulie           | {policy: {telemetry: {prometheus: {url: 'https://p:9091', basicAuth: {username: u}}}}} | spec.policy.telemetry.prometheus.basicAuth.passwordFile: Required value
            eco above performance  | Joulie           | {policy: {ecoCapWatts: 300, performanceCapWatts: 250}}              | ecoCapWatts must not be above performanceCapWatts
            agent env of a mount   | Joulie           | {agent: {env: [{name: JOULIE_SYSFS_ROOT, value: /sys}]}}            | spec.agent.env must not set NODE_NAME
            agent env of a field   | Joulie           | {agent: {env: [{name: QUARKUS_LOG_LEVEL, value: DEBUG}, {name: AGENT_RECONCILE_INTERVAL, value: 5s}]}} | set restoreOnExit, reconcileInterval
            agent volume name      | Joulie           | {agent: {volumes: [{name: sys, emptyDir: {}}]}}                     | spec.agent.volumes must not use the names
            agent mount under host | Joulie           | {agent: {volumes: [{name: nvml, hostPath: {path: /usr/lib}}], volumeMounts: [{name: nvml, mountPath: /host/usr/lib}]}} | spec.agent.volumeMounts must mount
            agent mount over state | Joulie           | {agent: {volumeMounts: [{name: nvml, mountPath: /var/lib/joulie}]}} | spec.agent.volumeMounts must mount
            agent selector label   | Joulie           | {agent: {podLabels: {app.kubernetes.io/name: mine}}}                | spec.agent.podLabels must not set
            runtime class typo     | Joulie           | {agent: {runtimeClassName: NVIDIA_runtime}}                         | spec.agent.runtimeClassName
            """)
    void theApiServerRefusesWhatTheSchemaForbids(String what, String kind, String spec, String message) {
        cluster.install().ok();
        // A Joulie is named joulie, so that only the field under test can be the reason (the name has a rule of its own);
        // a dry run never stores it, and a valid one would be refused for existing instead, failing the test.
        RealCluster.Result r = cluster.kubectl("""
                apiVersion: joulie.io/v1alpha1
                kind: %s
                metadata: {name: %s}
                spec: %s
                """.formatted(kind, kind.equals("Joulie") ? "joulie" : "e2e-invalid", spec), "create", "--dry-run=server", "-f", "-");
        assertThat(r.exit()).as("%s must be refused; kubectl said:\n%s", what, r.output()).isNotZero();
        assertThat(r.output()).contains("is invalid").contains(message).doesNotContain("a cluster has one Joulie resource");
    }

    @Test
    void aSecondJoulieResourceIsRefused() {
        cluster.install().ok();
        RealCluster.Result r = cluster.kubectl("""
                apiVersion: joulie.io/v1alpha1
                kind: Joulie
                metadata: {name: staging}
                spec: {}
                """, "create", "-f", "-");
        assertThat(r.exit()).as("a Joulie not named joulie must be refused; kubectl said:\n%s", r.output()).isNotZero();
        assertThat(r.output()).contains("is invalid").contains("a cluster has one Joulie resource, named joulie");
    }

    @Test
    void wellFormedValuesOfTheCheckedFormsAreAccepted() {
        cluster.install().ok();
        RealCluster.Result r = cluster.kubectl("""
                apiVersion: joulie.io/v1alpha1
                kind: Joulie
                metadata: {name: joulie}
                spec:
                  agent: {reconcileInterval: 1m30s, imagePullPolicy: Always}
                  policy:
                    downgradeTimeout: PT45M
                    reconcileInterval: 500ms
                    timeZone: America/Argentina/Buenos_Aires
                    schedules:
                    - {days: [Mon-Fri, saturday, SUN], start: '00:00', end: '23:59', timeZone: '+01:00'}
                    - {days: [Fri-Mon], start: '18:00', end: '08:00', timeZone: Etc/GMT+1}
                    telemetry:
                      prometheus:
                        url: 'https://thanos-querier.openshift-monitoring.svc:9091/'
                        timeout: 2.5s
                        staleAfter: '0'
                        bearerTokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token
                        caFile: /var/run/secrets/kubernetes.io/serviceaccount/service-ca.crt
                """, "apply", "--dry-run=server", "-f", "-"); // the joulie resource exists: an update, validated as a whole
        assertThat(r.exit()).as("kubectl said:\n%s", r.output()).isZero();
        RealCluster.Result tp = cluster.kubectl("""
                apiVersion: joulie.io/v1alpha1
                kind: TelemetryProfile
                metadata: {name: e2e-forms}
                spec:
                  target: {scope: node, nodeName: worker-01.rack-3}
                  controls: {cpu: {type: http, http: {endpoint: 'http://sim.joulie:8080/nodes/{node}/cpu?x=1'}}}
                """, "create", "--dry-run=server", "-f", "-");
        assertThat(tp.exit()).as("kubectl said:\n%s", tp.output()).isZero();
    }

    @ParameterizedTest(name = "kubectl explain {0}")
    @CsvSource({"joulie", "joulie.spec", "joulie.status", "npp", "npp.spec", "npp.status", "npp.status.applied", "tp", "tp.spec"})
    void kubectlExplainDescribesEveryLevel(String path) {
        cluster.install().ok();
        String out = cluster.kubectl(null, "explain", path).ok().output();
        String description = out.substring(out.indexOf("DESCRIPTION:") + "DESCRIPTION:".length(),
                out.contains("FIELDS:") ? out.indexOf("FIELDS:") : out.length()).strip();
        assertThat(description).as("kubectl explain %s:\n%s", path, out).isNotEmpty().doesNotContain("<empty>");
    }
}
