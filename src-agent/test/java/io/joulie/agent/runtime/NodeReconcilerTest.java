package io.joulie.agent.runtime;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.joulie.agent.config.AgentMode;
import io.joulie.agent.config.AgentSettings;
import io.joulie.agent.control.ControlOutcome;
import io.joulie.agent.control.Family;
import io.joulie.agent.control.Observed;
import io.joulie.agent.control.cpu.CpuBackend;
import io.joulie.agent.control.cpu.CpuControls;
import io.joulie.agent.control.cpu.HostCpuControl;
import io.joulie.agent.control.cpu.HttpCpuControl;
import io.joulie.agent.control.gpu.GpuBackend;
import io.joulie.agent.control.gpu.GpuControls;
import io.joulie.agent.control.gpu.HostGpuControl;
import io.joulie.agent.control.gpu.HttpGpuControl;
import io.joulie.agent.host.Host;
import io.joulie.agent.host.HostRoots;
import io.joulie.agent.host.ffm.FfmHost;
import io.joulie.agent.inventory.HostInventory;
import io.joulie.agent.inventory.Inventory;
import io.joulie.agent.k8s.HardwarePublisher;
import io.joulie.agent.k8s.StatusPublisher;
import io.joulie.agent.metrics.AgentMetrics;
import io.joulie.agent.power.NodeTelemetry;
import io.joulie.agent.power.PackagePowerMeter;
import io.joulie.agent.power.PowerTelemetry;
import io.joulie.api.text.LabelSelector;
import io.joulie.api.v1alpha1.ControlResult;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodeHardwareStatus;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.api.v1alpha1.NodePowerProfileSpec;
import io.joulie.api.v1alpha1.NodePowerProfileStatus;
import io.joulie.api.v1alpha1.Profile;
import io.joulie.api.v1alpha1.TelemetryProfile;
import io.joulie.api.v1alpha1.TelemetryProfileSpec;
import io.joulie.testkit.FakeClock;
import io.joulie.testkit.FakeHost;
import io.joulie.testkit.FakeNvml;
import io.joulie.testkit.PrometheusText;
import io.micrometer.prometheus.PrometheusConfig;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reconcile of one node, called directly with a clock the test moves: the agent's logic on a fake two-package
 * sysfs tree (long_term 200 W each at start, at most 250 W) through the real FFM host layer, with the cluster as
 * plain collections and the status written into them as StatusWriter writes it. No Kubernetes server, no waiting; what needs
 * the API server (the status subresource, the Node labels) and the path from a watch event to the hardware on the
 * wall clock stay in {@code it.AgentTest}.
 */
class NodeReconcilerTest {
    static final String NODE = "Worker_A";
    static final String ORIGINAL = Long.toString(FakeHost.ORIGINAL_LIMIT_UW);

    @TempDir
    Path root;

    final FakeClock clock = new FakeClock();
    final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    final AgentMetrics metrics = new AgentMetrics(registry);
    final MemoryView view = new MemoryView();
    /** The answers written into the NodePowerProfile, in order. */
    final List<NodePowerProfileStatus.Applied> answers = new CopyOnWriteArrayList<>();
    /** The CPU and the GPU outcomes that changed what the node's answer says (each told once), in order. */
    final List<ControlOutcome> written = new CopyOnWriteArrayList<>();
    final List<ControlOutcome> gpuWritten = new CopyOnWriteArrayList<>();
    /** The NodeHardware statuses written, in order. */
    final List<NodeHardwareStatus> inventories = new CopyOnWriteArrayList<>();
    final HttpClient http = HttpClient.newHttpClient();
    final List<Host> hosts = new ArrayList<>();
    /** What each agent process decided at start about the originals kept in the state directory. */
    final List<String> decisions = new ArrayList<>();
    FakeHost host;
    /** The CPU controls of the agent assembled last (its shutdown restore). */
    CpuControls controls;
    GpuControls gpuControls;
    /** The NVML the next agent process loads: none by default (a path where no library is, so a real one is never used). */
    String nvmlLibrary;

    @AfterEach
    void close() {
        hosts.forEach(Host::close);
    }

    /** The agent in node mode for {@link #NODE}, as NodeAgent assembles it, on a fresh fake host without GPUs. */
    NodeReconciler nodeAgent(boolean restoreOnExit) throws IOException {
        return nodeAgent(restoreOnExit, null);
    }

    /** The same with the NVML library {@code nvml} (a fake, or one that does not load); null: where none is. */
    NodeReconciler nodeAgent(boolean restoreOnExit, String nvml) throws IOException {
        host = FakeHost.intelNode(root, 2, 250);
        host.cpufreqPolicy(0, 800_000, 3_500_000, 3_500_000);
        host.cpufreqPolicy(1, 800_000, 3_500_000, 3_500_000);
        nvmlLibrary = nvml != null ? nvml : root.resolve("no-nvml/libnvidia-ml.so.1").toString();
        return agentProcess(restoreOnExit);
    }

    /**
     * A new agent process on the fake host as it is now, assembled as NodeAgent and AgentProducers do: the host opened
     * with the originals an earlier process of this boot kept in the state directory (the GPUs' too). Dropping it
     * without {@link CpuControls#restoreOnExit()} is a crash (SIGKILL, OOM kill).
     */
    NodeReconciler agentProcess(boolean restoreOnExit) {
        AgentSettings settings = new AgentSettings(AgentMode.NODE, Optional.of(NODE), Duration.ofSeconds(1), HostRoots.under(root),
                restoreOnExit, LabelSelector.parse(""), 1, 0, host.stateDir(), AgentSettings.DEFAULT_PACKAGE_FLOOR_WATTS, nvmlLibrary);
        AgentProducers.NodeHost opened = AgentProducers.openHost(settings, decisions::add);
        hosts.add(opened.host());
        return assemble(settings, opened, new HostInventory(opened.host(), opened.host().capabilities().raplWritable()));
    }

    /** {@code opened}: the host in node mode; null in pool mode. */
    NodeReconciler assemble(AgentSettings settings, AgentProducers.NodeHost opened, Inventory inventory) {
        Host h = opened == null ? null : opened.host();
        CpuControls controls = new CpuControls(h == null ? null : new HostCpuControl(h.powercap(), h.cpufreq(), opened.originals(), clock),
                (node, s) -> new HttpCpuControl(http, node, s, clock), settings.restoreOnExit());
        GpuControls gpuControls = new GpuControls(h == null ? null : new HostGpuControl(h.gpus()),
                (node, s) -> new HttpGpuControl(http, node, s, clock), settings.restoreOnExit());
        this.controls = controls;
        this.gpuControls = gpuControls;
        NodeTelemetry telemetry = new NodeTelemetry(h == null ? null : new PackagePowerMeter(h.powercap(), clock), h == null ? null : h.gpus(),
                (url, timeout) -> PowerTelemetry.get(http, url, timeout), metrics, clock);
        StatusPublisher status = new StatusPublisher(this::writeStatus,
                (node, changed) -> changed.forEach((family, out) -> (family == Family.CPU ? written : gpuWritten).add(out)), metrics);
        HardwarePublisher hardware = new HardwarePublisher(inventory, new HardwarePublisher.Sink() {
            @Override
            public Optional<NodeHardwareStatus> current(String node) {
                return Optional.empty();
            }

            @Override
            public boolean write(String node, NodeHardwareStatus inventory) {
                inventories.add(inventory);
                return true;
            }
        }, metrics);
        return new NodeReconciler(new ServedNodes(settings, view), view, controls, gpuControls, telemetry, status, hardware, metrics);
    }

    /**
     * As StatusWriter does on the API server: the answer into {@code status.applied} of the node's NodePowerProfile (the
     * view holds the same object, so the next reconcile finds it there).
     */
    void writeStatus(NodePowerProfile npp, NodePowerProfileStatus.Applied applied) {
        answers.add(applied);
        npp.setStatus(NodePowerProfileStatus.ofApplied(applied));
    }

    void profile(String node, Profile profile, Double cap) {
        profile(node, profile, cap == null ? null : NodePowerProfileSpec.CpuPower.watts(cap), null);
    }

    void profile(String node, Profile profile, NodePowerProfileSpec.CpuPower cpu, NodePowerProfileSpec.GpuPower gpu) {
        NodePowerProfile npp = new NodePowerProfile();
        npp.setMetadata(new ObjectMetaBuilder().withName(JoulieApi.nodePowerProfileName(node)).build());
        npp.setSpec(new NodePowerProfileSpec(node, profile, cpu, gpu, null));
        view.put(npp);
    }

    /** The node-mode agent, after an eco profile of 240 W reached the host: 120 W on each package. */
    NodeReconciler capAt240(boolean restoreOnExit) throws IOException {
        NodeReconciler agent = nodeAgent(restoreOnExit);
        profile(NODE, Profile.ECO, 240.0);
        agent.reconcile(NODE, false);
        assertThat(host.limit(0)).isEqualTo("120000000");
        assertThat(host.limit(1)).isEqualTo("120000000");
        return agent;
    }

    ControlOutcome cpuStatus() {
        return written.getLast();
    }

    double metric(String name, String... labels) {
        return PrometheusText.sum(registry.scrape(), name, labels);
    }

    @Test
    void appliesTheProfileAndFollowsChanges() throws IOException {
        NodeReconciler agent = capAt240(true);

        profile(NODE, Profile.PERFORMANCE, 300.0);
        agent.reconcile(NODE, false);
        assertThat(host.limit(0)).isEqualTo("150000000");
        assertThat(host.limit(1)).isEqualTo("150000000");
        assertThat(cpuStatus().backend()).isEqualTo(CpuBackend.POWERCAP);
        assertThat(cpuStatus().result()).isEqualTo(ControlResult.APPLIED);
        assertThat(cpuStatus().observed()).containsEntry(Observed.CAP_WATTS_PER_PACKAGE, 150.0).containsEntry(Observed.CAP_WATTS, 300.0);
        assertThat(metric("joulie_agent_actions_total", "kind=\"apply\"", "result=\"applied\"")).isEqualTo(2);
    }

    /**
     * The energy counters advance between periodic reconciles, so every reconcile reads a new package power:
     * the status must still not be rewritten, because packagePowerWatts is left out of the comparison.
     */
    @Test
    void anUnchangedStatusIsNotRewrittenByPeriodicReconciles() throws IOException {
        NodeReconciler agent = nodeAgent(true);
        profile(NODE, Profile.ECO, 240.0);
        agent.reconcile(NODE, false);
        assertThat(cpuStatus().result()).isEqualTo(ControlResult.APPLIED);
        for (int settle = 0; settle < 2; settle++) {
            clock.advance(Duration.ofSeconds(1));
            agent.reconcile(NODE, true);
        }
        assertThat(written).hasSize(1);

        List<Double> readings = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            host.addEnergy(i * 37_000_000L);
            clock.advance(Duration.ofSeconds(1));
            agent.reconcile(NODE, true);
            readings.add(metric("joulie_agent_package_power_watts", "node=\"" + NODE + "\""));
        }

        assertThat(readings).doesNotHaveDuplicates().allMatch(w -> w > 0);
        assertThat(readings).containsExactly(74.0, 148.0, 222.0); // i x 37 J on each of 2 packages, in 1 s
        assertThat(metric("joulie_agent_package_energy_joules_total", "node=\"" + NODE + "\"")).isEqualTo(444.0);
        assertThat(written).hasSize(1);
    }

    @Test
    void movingCpuControlFromHostToNoneRestoresTheOriginalLimits() throws IOException {
        NodeReconciler agent = capAt240(true);

        TelemetryProfile none = new TelemetryProfile();
        none.setMetadata(new ObjectMetaBuilder().withName("cluster-none").build());
        none.setSpec(new TelemetryProfileSpec(new TelemetryProfileSpec.Target(TelemetryProfileSpec.Scope.CLUSTER, null), null,
                new TelemetryProfileSpec.Controls(new TelemetryProfileSpec.CpuControl(TelemetryProfileSpec.ControlType.NONE,
                        null), null)));
        view.put(none);
        agent.reconcile(NODE, false);

        assertThat(host.limit(0)).isEqualTo(ORIGINAL);
        assertThat(host.limit(1)).isEqualTo(ORIGINAL);
        assertThat(cpuStatus().backend()).isEqualTo(CpuBackend.NONE);
        assertThat(metric("joulie_agent_actions_total", "kind=\"restore\"", "node=\"" + NODE + "\"")).isGreaterThan(0);
    }

    @Test
    void aBadCapIsBlockedAndTheLimitStays() throws IOException {
        NodeReconciler agent = capAt240(true);

        profile(NODE, Profile.ECO, null);
        agent.reconcile(NODE, false);
        assertThat(cpuStatus().result()).isEqualTo(ControlResult.BLOCKED);
        assertThat(cpuStatus().message()).contains("spec.cpu.packagePowerCapWatts is missing");
        assertThat(cpuStatus().observed()).containsEntry(Observed.CAP_WATTS_PER_PACKAGE, 120.0);

        // the CRD schema would refuse 0 on a real API server; the agent must not rely on it
        profile(NODE, Profile.ECO, 0.0);
        agent.reconcile(NODE, false);
        assertThat(cpuStatus().message()).contains("= 0.0 is not a finite number of watts > 0");
        profile(NODE, Profile.ECO, -5.0);
        agent.reconcile(NODE, false);
        assertThat(cpuStatus().message()).contains("= -5.0");
        assertThat(cpuStatus().result()).isEqualTo(ControlResult.BLOCKED);
        assertThat(host.limit(0)).isEqualTo("120000000");
        assertThat(host.limit(1)).isEqualTo("120000000");
    }

    @Test
    void aLimitChangedBehindItsBackIsPutBackByThePeriodicReconcile() throws IOException {
        NodeReconciler agent = capAt240(true);
        double before = metric("joulie_agent_actions_total", "kind=\"reapply\"");

        FakeHost.write(FakeHost.limitFile(host.intelZone(1)), "180000000");
        clock.advance(Duration.ofSeconds(1));
        agent.reconcile(NODE, true);

        assertThat(host.limit(1)).isEqualTo("120000000");
        assertThat(host.limit(0)).isEqualTo("120000000");
        assertThat(metric("joulie_agent_actions_total", "kind=\"reapply\"", "node=\"" + NODE + "\"")).isGreaterThan(before);
    }

    /**
     * The operator labels a node {@code performance} only once its agent answered the NodePowerProfile generation in
     * force: the answer ({@code status.applied}) names the generation acted on, and a new generation with the same outcome
     * is answered again; the operator's own status fields are not part of it.
     */
    @Test
    void eachAnswerNamesTheGenerationOfTheProfileItActedOn() throws IOException {
        NodeReconciler agent = nodeAgent(true);
        profile(NODE, Profile.PERFORMANCE, 300.0);
        view.profileFor(NODE).orElseThrow().getMetadata().setGeneration(4L);
        agent.reconcile(NODE, false);
        assertThat(answers.getLast().generation()).isEqualTo(4L);
        assertThat(answers.getLast().cpu().result()).isEqualTo(ControlResult.APPLIED);
        assertThat(answers.getLast().cpu().watts()).isEqualTo(300.0);
        assertThat(answers.getLast().cpu().packages()).extracting(NodePowerProfileStatus.Device::watts).containsExactly(150.0, 150.0);
        int writes = answers.size();

        // the same cap again, in a new generation (a policy name changed): answered again for the new generation
        view.profileFor(NODE).orElseThrow().getMetadata().setGeneration(5L);
        agent.reconcile(NODE, false);
        assertThat(answers).hasSize(writes + 1);
        assertThat(answers.getLast().generation()).isEqualTo(5L);
        agent.reconcile(NODE, true);
        assertThat(answers).as("a converged node costs no write").hasSize(writes + 1);

        // a profile the agent refuses is answered too
        profile(NODE, Profile.ECO, -1.0);
        view.profileFor(NODE).orElseThrow().getMetadata().setGeneration(6L);
        agent.reconcile(NODE, false);
        assertThat(answers.getLast().cpu().result()).isEqualTo(ControlResult.BLOCKED);
        assertThat(answers.getLast().generation()).isEqualTo(6L);

        // no profile, nothing to answer in: the outcome is still told (an Event on the Node)
        int answered = answers.size();
        view.profiles.clear();
        agent.reconcile(NODE, false);
        assertThat(answers).hasSize(answered);
        assertThat(cpuStatus().message()).startsWith("NodePowerProfile deleted");
    }

    @Test
    void deletingTheProfileRestoresTheOriginalLimits() throws IOException {
        NodeReconciler agent = capAt240(true);

        view.profiles.clear();
        agent.reconcile(NODE, false);

        assertThat(host.limit(0)).isEqualTo(ORIGINAL);
        assertThat(host.limit(1)).isEqualTo(ORIGINAL);
        assertThat(cpuStatus().message()).startsWith("NodePowerProfile deleted");
    }

    @Test
    void withoutRestoreOnExitADeletedProfileLeavesTheLimitsInPlace() throws IOException {
        NodeReconciler agent = capAt240(false);

        view.profiles.clear();
        agent.reconcile(NODE, false);

        assertThat(host.limit(0)).isEqualTo("120000000");
        assertThat(cpuStatus().message()).isEqualTo("NodePowerProfile deleted; limits left in place (JOULIE_RESTORE_ON_EXIT=false)");
        assertThat(cpuStatus().result()).isEqualTo(ControlResult.NONE);
    }

    @Test
    void aNodeScopedHttpRouteSendsTheCapToTheEndpointInsteadOfTheHost() throws IOException {
        NodeReconciler agent = nodeAgent(true);
        List<String> bodies = new CopyOnWriteArrayList<>();
        List<String> reads = new CopyOnWriteArrayList<>();
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", ex -> {
            if ("GET".equals(ex.getRequestMethod())) {
                reads.add(ex.getRequestURI().getPath());
                byte[] power = "{\"packagePowerWatts\": 180}".getBytes(StandardCharsets.UTF_8);
                ex.sendResponseHeaders(200, power.length);
                ex.getResponseBody().write(power);
            } else {
                bodies.add(ex.getRequestURI().getPath() + " " + new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
                ex.sendResponseHeaders(200, -1);
            }
            ex.close();
        });
        server.start();
        try {
            TelemetryProfile tp = new TelemetryProfile();
            tp.setMetadata(new ObjectMetaBuilder().withName("http-route").build());
            String base = "http://127.0.0.1:" + server.getAddress().getPort();
            tp.setSpec(new TelemetryProfileSpec(new TelemetryProfileSpec.Target(TelemetryProfileSpec.Scope.NODE, NODE),
                    new TelemetryProfileSpec.Sources(new TelemetryProfileSpec.Source(TelemetryProfileSpec.SourceType.HTTP,
                            new TelemetryProfileSpec.HttpEndpoint(base + "/power/{node}", 2), null), null, null, null),
                    new TelemetryProfileSpec.Controls(new TelemetryProfileSpec.CpuControl(TelemetryProfileSpec.ControlType.HTTP,
                            new TelemetryProfileSpec.CpuHttpControl(base + "/cap/{node}", 2, null)), null)));
            view.put(tp);
            agent.reconcile(NODE, true);
            assertThat(reads).containsExactly("/power/" + NODE);
            assertThat(bodies).isEmpty();

            profile(NODE, Profile.ECO, 240.0);
            agent.reconcile(NODE, false);

            assertThat(reads).as("an event reuses the last reading of a remote source").hasSize(1);
            assertThat(bodies).singleElement().asString()
                    .startsWith("/cap/" + NODE + " ").contains("\"action\":\"rapl.set_power_cap_watts\"")
                    .contains("\"capWatts\":240.0").contains("\"node\":\"" + NODE + "\"");
            assertThat(cpuStatus().backend()).isEqualTo(CpuBackend.HTTP);
            assertThat(cpuStatus().result()).isEqualTo(ControlResult.APPLIED);
            assertThat(cpuStatus().observed()).containsEntry(Observed.PACKAGE_POWER_WATTS, 180.0);
            assertThat(host.limit(0)).isEqualTo(ORIGINAL);
        } finally {
            server.stop(0);
        }
    }

    @Test
    void aPoolAgentServesTheMatchingNodesBlocksHostControlAndLetsGoOfANodeThatLeaves() {
        AgentSettings pool = new AgentSettings(AgentMode.POOL, Optional.empty(), Duration.ofSeconds(1), HostRoots.under(root), true,
                LabelSelector.parse("joulie.io/managed=true"), 1, 0, root.resolve("state"), 0, AgentSettings.DEFAULT_NVML_LIBRARY);
        NodeReconciler agent = assemble(pool, null, Inventory.remote());
        view.put(new NodeBuilder().withNewMetadata().withName("sim-1").addToLabels("joulie.io/managed", "true").endMetadata().build());
        view.put(new NodeBuilder().withNewMetadata().withName("sim-2").endMetadata().build());
        assertThat(agent.nodesToVisit()).containsExactly("sim-1");

        profile("sim-1", Profile.ECO, 240.0);
        profile("sim-2", Profile.ECO, 240.0);
        agent.reconcile("sim-1", false);
        agent.reconcile("sim-2", false);
        assertThat(written).singleElement().satisfies(out -> {
            assertThat(out.backend()).isEqualTo(CpuBackend.POWERCAP);
            assertThat(out.result()).isEqualTo(ControlResult.BLOCKED);
            assertThat(out.message()).isEqualTo("host control is not available in pool mode; "
                    + "set controls.cpu.type to http or none in a TelemetryProfile");
        });
        assertThat(metric("joulie_agent_backend", "node=\"sim-1\"", "backend=\"powercap\"")).isEqualTo(1);

        view.put(new NodeBuilder().withNewMetadata().withName("sim-1").endMetadata().build());
        assertThat(agent.nodesToVisit()).containsExactly("sim-1"); // remembered, so that it is let go
        agent.reconcile("sim-1", false);
        assertThat(agent.nodesToVisit()).isEmpty();
        assertThat(registry.scrape()).doesNotContain("node=\"sim-1\"");
    }

    // ---- percent caps and GPUs ------------------------------------------------------------------------------------

    /** The node-mode agent with an H100 (200..700 W) and an L40S (100..350 W) behind the fake NVML. */
    NodeReconciler gpuNode(boolean restoreOnExit) throws IOException {
        nvml = FakeNvml.install(root.resolve("nvml"), List.of(FakeNvml.Board.h100(), FakeNvml.Board.l40s()));
        return nodeAgent(restoreOnExit, nvml.library().toString());
    }

    FakeNvml nvml;

    ControlOutcome gpuStatus() {
        return gpuWritten.getLast();
    }

    @Test
    void aPercentCpuCapIsResolvedOnTheHostAndTheAppliedWattsAreReported() throws IOException {
        NodeReconciler agent = nodeAgent(true);
        profile(NODE, Profile.ECO, NodePowerProfileSpec.CpuPower.percent(60), null);
        agent.reconcile(NODE, false);

        assertThat(host.limit(0)).isEqualTo("150000000");
        assertThat(host.limit(1)).isEqualTo("150000000");
        assertThat(cpuStatus().result()).isEqualTo(ControlResult.APPLIED);
        assertThat(cpuStatus().message()).isEqualTo("applied 60 % of each package's maximum (node cap 300 W) as long_term limit on 2 packages");
        assertThat(cpuStatus().observed()).containsEntry(Observed.CAP_WATTS, 300.0);
    }

    @Test
    void bothWattsAndPercentOrAPercentOutOfRangeReachNoPackage() throws IOException {
        NodeReconciler agent = capAt240(true);
        profile(NODE, Profile.ECO, new NodePowerProfileSpec.CpuPower(200.0, 50.0), null);
        agent.reconcile(NODE, false);
        assertThat(cpuStatus().result()).isEqualTo(ControlResult.BLOCKED);
        assertThat(cpuStatus().message()).contains("spec.cpu.packagePowerCapWatts and spec.cpu.packagePowerCapPercent are both set");

        profile(NODE, Profile.ECO, NodePowerProfileSpec.CpuPower.percent(140), null);
        agent.reconcile(NODE, false);
        assertThat(cpuStatus().message()).contains("spec.cpu.packagePowerCapPercent = 140.0 is not a percent in (0, 100]");
        assertThat(host.limit(0)).isEqualTo("120000000");
        assertThat(host.limit(1)).isEqualTo("120000000");
    }

    @Test
    void gpuCapsReachEveryBoardThroughNvmlBesideTheCpuCap() throws IOException {
        NodeReconciler agent = gpuNode(true);
        profile(NODE, Profile.ECO, NodePowerProfileSpec.CpuPower.watts(240), NodePowerProfileSpec.GpuPower.percent(60));
        agent.reconcile(NODE, false);

        assertThat(nvml.limitsSet()).containsExactly("0 420000", "1 210000");
        assertThat(host.limit(0)).isEqualTo("120000000");
        assertThat(gpuStatus().backend()).isEqualTo(GpuBackend.NVML);
        assertThat(gpuStatus().result()).isEqualTo(ControlResult.APPLIED);
        assertThat(gpuStatus().observed()).containsEntry(Observed.CAP_WATTS_PER_GPU, 315.0).containsEntry(Observed.GPUS, 2.0)
                .containsEntry(Observed.GPU_POWER_WATTS, 470.0);
        assertThat(gpuStatus().devices()).containsExactly(
                new NodePowerProfileStatus.Device(0, "NVIDIA H100 80GB HBM3", 420.0),
                new NodePowerProfileStatus.Device(1, "NVIDIA L40S", 210.0));
        assertThat(metric("joulie_agent_gpu_cap_watts", "node=\"" + NODE + "\"", "gpu=\"1\"")).isEqualTo(210);
        assertThat(metric("joulie_agent_gpu_power_watts", "node=\"" + NODE + "\"", "gpu=\"0\"")).isEqualTo(350);
        assertThat(metric("joulie_agent_gpu_actions_total", "kind=\"apply\"", "backend=\"nvml\"", "result=\"applied\"")).isEqualTo(1);

        profile(NODE, Profile.PERFORMANCE, NodePowerProfileSpec.CpuPower.watts(5000), NodePowerProfileSpec.GpuPower.watts(300));
        agent.reconcile(NODE, false);
        assertThat(nvml.limitsSet()).containsExactly("0 420000", "1 210000", "0 300000", "1 300000");
    }

    @Test
    void gpuEnergyIsCountedAndAStatusThatDiffersOnlyInReadingsIsNotRewritten() throws IOException {
        NodeReconciler agent = gpuNode(true);
        profile(NODE, Profile.ECO, NodePowerProfileSpec.CpuPower.watts(240), NodePowerProfileSpec.GpuPower.percent(60));
        agent.reconcile(NODE, false);
        nvml.board(0, nvml.board(0).withEnergyMj(1_250_000).withPowerMw(400_000));
        clock.advance(Duration.ofSeconds(1));
        agent.reconcile(NODE, true);
        nvml.board(0, nvml.board(0).withEnergyMj(1_600_000));
        clock.advance(Duration.ofSeconds(1));
        agent.reconcile(NODE, true);

        assertThat(metric("joulie_agent_gpu_energy_joules_total", "node=\"" + NODE + "\"", "gpu=\"0\"")).isEqualTo(600.0);
        assertThat(metric("joulie_agent_gpu_power_watts", "node=\"" + NODE + "\"", "gpu=\"0\"")).isEqualTo(400.0);
        assertThat(gpuWritten).hasSize(1);
        assertThat(nvml.limitsSet()).hasSize(2);
    }

    @Test
    void aBoardLimitChangedBehindItsBackIsPutBackByThePeriodicReconcile() throws IOException {
        NodeReconciler agent = gpuNode(true);
        profile(NODE, Profile.ECO, NodePowerProfileSpec.CpuPower.watts(240), NodePowerProfileSpec.GpuPower.watts(250));
        agent.reconcile(NODE, false);
        nvml.board(1, nvml.board(1).withLimitMw(350_000));
        clock.advance(Duration.ofSeconds(1));
        agent.reconcile(NODE, true);

        assertThat(nvml.limitMw(1)).isEqualTo(250_000);
        assertThat(metric("joulie_agent_gpu_actions_total", "kind=\"reapply\"", "node=\"" + NODE + "\"")).isEqualTo(1);
    }

    @Test
    void badGpuInputReachesNoBoardAndLeavesTheCpuCapAlone() throws IOException {
        NodeReconciler agent = gpuNode(true);
        profile(NODE, Profile.ECO, NodePowerProfileSpec.CpuPower.watts(240), new NodePowerProfileSpec.GpuPower(300.0, 50.0));
        agent.reconcile(NODE, false);
        assertThat(gpuStatus().result()).isEqualTo(ControlResult.BLOCKED);
        assertThat(gpuStatus().message()).contains("spec.gpu.powerCapWattsPerGpu and spec.gpu.powerCapPercent are both set");
        assertThat(cpuStatus().result()).isEqualTo(ControlResult.APPLIED);
        assertThat(host.limit(0)).isEqualTo("120000000");

        profile(NODE, Profile.ECO, NodePowerProfileSpec.CpuPower.watts(240), NodePowerProfileSpec.GpuPower.percent(0));
        agent.reconcile(NODE, false);
        assertThat(gpuStatus().message()).contains("spec.gpu.powerCapPercent = 0.0 is not a percent in (0, 100]");
        assertThat(gpuStatus().observed()).as("what is in force is still reported").containsEntry(Observed.CAP_WATTS_PER_GPU, 525.0);
        assertThat(nvml.limitsSet()).isEmpty();
    }

    @Test
    void aPermissionErrorBlocksTheGpuCapWithNvmlsReason() throws IOException {
        NodeReconciler agent = gpuNode(true);
        nvml.fail(FakeNvml.SET_LIMIT, -1, FakeNvml.NVML_ERROR_NO_PERMISSION);
        profile(NODE, Profile.ECO, NodePowerProfileSpec.CpuPower.watts(240), NodePowerProfileSpec.GpuPower.percent(60));
        agent.reconcile(NODE, false);

        assertThat(gpuStatus().result()).isEqualTo(ControlResult.BLOCKED);
        assertThat(gpuStatus().message()).startsWith("GPU 0: nvmlDeviceSetPowerManagementLimit: NVML_ERROR_NO_PERMISSION (4)");
        assertThat(nvml.limitMw(0)).isEqualTo(700_000);
        assertThat(cpuStatus().result()).isEqualTo(ControlResult.APPLIED);
    }

    @Test
    void anNvmlThatFailsToLoadLeavesTheAgentAndTheCpuRunningAndSaysWhy() throws IOException {
        String missing = root.resolve("nowhere/libnvidia-ml.so.1").toString();
        NodeReconciler agent = nodeAgent(true, missing);
        profile(NODE, Profile.ECO, NodePowerProfileSpec.CpuPower.watts(240), NodePowerProfileSpec.GpuPower.percent(60));
        agent.reconcile(NODE, false);

        assertThat(cpuStatus().result()).isEqualTo(ControlResult.APPLIED);
        assertThat(host.limit(0)).isEqualTo("120000000");
        assertThat(gpuStatus().result()).isEqualTo(ControlResult.BLOCKED);
        assertThat(gpuStatus().message()).startsWith("NVML not available (cannot load " + missing);
        assertThat(inventories.getLast().gpu().control()).isEqualTo(NodeHardwareStatus.Control.NONE);
        assertThat(inventories.getLast().gpu().message()).startsWith("NVML not available");
    }

    @Test
    void removingTheGpuPartOrTheProfileRestoresTheBoards() throws IOException {
        NodeReconciler agent = gpuNode(true);
        profile(NODE, Profile.ECO, NodePowerProfileSpec.CpuPower.watts(240), NodePowerProfileSpec.GpuPower.percent(50));
        agent.reconcile(NODE, false);
        assertThat(nvml.limitMw(0)).isEqualTo(350_000);

        profile(NODE, Profile.ECO, NodePowerProfileSpec.CpuPower.watts(240), null);
        agent.reconcile(NODE, false);
        assertThat(nvml.limitMw(0)).isEqualTo(700_000);
        assertThat(nvml.limitMw(1)).isEqualTo(350_000);
        assertThat(gpuStatus().message()).isEqualTo("spec.gpu removed; restored the GPU limits found before the first write on 2 boards");
        assertThat(host.limit(0)).as("the CPU cap stays").isEqualTo("120000000");

        profile(NODE, Profile.ECO, NodePowerProfileSpec.CpuPower.watts(240), NodePowerProfileSpec.GpuPower.percent(50));
        agent.reconcile(NODE, false);
        view.profiles.clear();
        agent.reconcile(NODE, false);
        assertThat(nvml.limitMw(0)).isEqualTo(700_000);
        assertThat(host.limit(0)).isEqualTo(ORIGINAL);
        assertThat(gpuStatus().message()).startsWith("NodePowerProfile deleted; restored the GPU limits");
    }

    Path gpuOriginalsFile() {
        return host.stateDir().resolve("gpu-originals.json");
    }

    /** An agent killed with the boards capped: its successor restores the limits found before the first write, not its caps. */
    @Test
    void aCrashedAgentsSuccessorRestoresTheBoardsItFound() throws IOException {
        NodeReconciler first = gpuNode(true);
        profile(NODE, Profile.ECO, NodePowerProfileSpec.CpuPower.watts(240), NodePowerProfileSpec.GpuPower.percent(50));
        first.reconcile(NODE, false);
        assertThat(nvml.limitMw(0)).isEqualTo(350_000);
        assertThat(gpuOriginalsFile()).as("kept before the first write").exists();
        // crash: no restore; the boards stay at 350 and 175 W

        NodeReconciler successor = agentProcess(true);
        successor.reconcile(NODE, false);
        assertThat(nvml.limitMw(0)).isEqualTo(350_000);
        ControlOutcome shutdown = gpuControls.restoreOnExit().orElseThrow();

        assertThat(shutdown.result()).isEqualTo(ControlResult.RESTORED);
        assertThat(nvml.limitMw(0)).isEqualTo(700_000);
        assertThat(nvml.limitMw(1)).isEqualTo(350_000);
        assertThat(gpuOriginalsFile()).as("removed after a restore that put every board back").doesNotExist();
        assertThat(controls.restoreOnExit().orElseThrow().result()).isEqualTo(ControlResult.RESTORED);
        assertThat(originalsFile()).doesNotExist();
    }

    @Test
    void aGpuPartRemovedWhileNoAgentRanIsRestoredByTheNextOneAndTheCpuCapStays() throws IOException {
        NodeReconciler first = gpuNode(true);
        profile(NODE, Profile.ECO, NodePowerProfileSpec.CpuPower.watts(240), NodePowerProfileSpec.GpuPower.watts(300));
        first.reconcile(NODE, false);
        profile(NODE, Profile.ECO, NodePowerProfileSpec.CpuPower.watts(240), null); // while no agent runs

        NodeReconciler successor = agentProcess(true);
        successor.reconcile(NODE, false);

        assertThat(nvml.limitMw(0)).isEqualTo(700_000);
        assertThat(nvml.limitMw(1)).isEqualTo(350_000);
        assertThat(gpuStatus().message()).isEqualTo("spec.gpu removed; restored the GPU limits found before the first write on 2 boards");
        assertThat(gpuOriginalsFile()).doesNotExist();
        assertThat(host.limit(0)).as("the CPU cap stays").isEqualTo("120000000");
        assertThat(originalsFile()).as("and so do the CPU's originals").exists();
    }

    /** After a reboot the driver has reset the boards: their limits then are the originals, not the last boot's file. */
    @Test
    void afterARebootTheBoardsLimitsThenAreTheOriginals() throws IOException {
        NodeReconciler first = gpuNode(true);
        profile(NODE, Profile.ECO, NodePowerProfileSpec.CpuPower.watts(240), NodePowerProfileSpec.GpuPower.percent(50));
        first.reconcile(NODE, false);

        host.reboot("6f1b3f0e-2d4c-4e0a-9d1e-000000000002");
        nvml.board(0, nvml.board(0).withLimitMw(600_000)); // what the board starts at in the new boot
        nvml.board(1, nvml.board(1).withLimitMw(300_000));
        NodeReconciler next = agentProcess(true);
        assertThat(decisions).anySatisfy(line -> assertThat(line).startsWith("The GPU originals in " + gpuOriginalsFile())
                .contains("the node rebooted and the driver reset the boards' limits"));
        assertThat(gpuOriginalsFile()).as("the last boot's file is gone").doesNotExist();
        next.reconcile(NODE, false);
        gpuControls.restoreOnExit();

        assertThat(nvml.limitMw(0)).isEqualTo(600_000);
        assertThat(nvml.limitMw(1)).isEqualTo(300_000);
    }

    @Test
    void anUnreadableGpuOriginalsFileLeavesTheBoardsAloneAndTheCpuCapped() throws IOException {
        nvml = FakeNvml.install(root.resolve("nvml"), List.of(FakeNvml.Board.h100(), FakeNvml.Board.l40s()));
        host = FakeHost.intelNode(root, 2, 250);
        FakeHost.write(host.stateDir().resolve("gpu-originals.json"), "{\"format\": 1, \"gpus\": [{\"index\": \"zero\"}]}");
        nvmlLibrary = nvml.library().toString();
        NodeReconciler agent = agentProcess(true);
        profile(NODE, Profile.ECO, NodePowerProfileSpec.CpuPower.watts(240), NodePowerProfileSpec.GpuPower.percent(50));
        agent.reconcile(NODE, false);

        assertThat(gpuStatus().result()).isEqualTo(ControlResult.BLOCKED);
        assertThat(gpuStatus().message()).startsWith("the GPU originals in " + gpuOriginalsFile() + " cannot be read ("
                + gpuOriginalsFile() + " is not a GPU originals file of this agent (index is not a whole number >= 0))");
        assertThat(nvml.limitsSet()).isEmpty();
        assertThat(host.limit(0)).isEqualTo("120000000");
    }

    @Test
    void anEcoGpuCapAboveThePerformanceGpuCapIsRefusedWhileTheCpuCapApplies() throws IOException {
        NodeReconciler agent = gpuNode(true);
        profile(NODE, Profile.PERFORMANCE, NodePowerProfileSpec.CpuPower.percent(100), NodePowerProfileSpec.GpuPower.percent(80));
        agent.reconcile(NODE, false);
        profile(NODE, Profile.ECO, NodePowerProfileSpec.CpuPower.percent(60), NodePowerProfileSpec.GpuPower.percent(90));
        agent.reconcile(NODE, false);

        assertThat(gpuStatus().result()).isEqualTo(ControlResult.BLOCKED);
        assertThat(gpuStatus().message()).isEqualTo("NodePowerProfile " + JoulieApi.nodePowerProfileName(NODE) + ": the eco GPU cap "
                + "90 % is above the performance GPU cap 80 % this node had; eco must not allow more than performance; the previous "
                + "limit stays");
        assertThat(nvml.limitMw(0)).as("80 % stays").isEqualTo(560_000);
        assertThat(cpuStatus().result()).isEqualTo(ControlResult.APPLIED);
        assertThat(host.limit(0)).isEqualTo("150000000");

        // a cap in the other unit is not compared: the agent cannot tell watts from a percent without resolving both
        profile(NODE, Profile.ECO, NodePowerProfileSpec.CpuPower.percent(60), NodePowerProfileSpec.GpuPower.watts(650));
        agent.reconcile(NODE, false);
        assertThat(gpuStatus().result()).isEqualTo(ControlResult.APPLIED);
    }

    @Test
    void boardsTheAgentNeverCappedAreLeftAsTheyAre() throws IOException {
        NodeReconciler agent = gpuNode(true);
        profile(NODE, Profile.ECO, NodePowerProfileSpec.CpuPower.watts(240), null);
        agent.reconcile(NODE, false);
        assertThat(gpuWritten).as("nothing asked of the GPUs, nothing to report").isEmpty();

        // a cap that fails on the first board writes nothing
        nvml.fail(FakeNvml.SET_LIMIT, 0, FakeNvml.NVML_ERROR_UNKNOWN);
        profile(NODE, Profile.ECO, NodePowerProfileSpec.CpuPower.watts(240), NodePowerProfileSpec.GpuPower.percent(50));
        agent.reconcile(NODE, false);
        assertThat(gpuStatus().result()).isEqualTo(ControlResult.ERROR);
        // someone else then sets a board's limit: with nothing of the agent's in force, it is theirs and stays
        nvml.clearFailures();
        nvml.board(0, nvml.board(0).withLimitMw(500_000));
        view.profiles.clear();
        agent.reconcile(NODE, false);

        assertThat(nvml.limitsSet()).isEmpty();
        assertThat(nvml.limitMw(0)).isEqualTo(500_000);
        assertThat(gpuStatus().result()).isEqualTo(ControlResult.NONE);
        assertThat(gpuStatus().message()).isEqualTo("NodePowerProfile deleted; nothing to restore: no GPU limit written since "
                + "the start or the last restore");
    }

    @Test
    void theInventoryDescribesTheHostAndIsWrittenAgainOnlyWhenItChanges() throws IOException {
        NodeReconciler agent = gpuNode(true);
        profile(NODE, Profile.ECO, NodePowerProfileSpec.CpuPower.watts(240), NodePowerProfileSpec.GpuPower.percent(60));
        agent.reconcile(NODE, false);

        NodeHardwareStatus inventory = inventories.getLast();
        assertThat(inventory.cpu().vendor()).isEqualTo("intel");
        assertThat(inventory.cpu().model()).isEqualTo("Intel(R) Xeon(R) Test CPU");
        assertThat(inventory.cpu().sockets()).as("cpuinfo gives no physical id: the RAPL packages").isEqualTo(2);
        assertThat(inventory.cpu().threads()).isEqualTo(2);
        assertThat(inventory.cpu().packages()).containsExactly(new NodeHardwareStatus.CpuPackage("intel-rapl:0", null, 250.0, null),
                new NodeHardwareStatus.CpuPackage("intel-rapl:1", null, 250.0, null));
        assertThat(inventory.cpu().cpufreq()).isEqualTo(new NodeHardwareStatus.FrequencyRange(800_000L, 3_500_000L));
        assertThat(inventory.cpu().control()).isEqualTo(NodeHardwareStatus.Control.POWERCAP);
        assertThat(inventory.gpu()).isEqualTo(new NodeHardwareStatus.Gpu("nvidia", "NVIDIA H100 80GB HBM3", 2, List.of(
                new NodeHardwareStatus.GpuBoard(0, "NVIDIA H100 80GB HBM3", 200.0, 700.0, 700.0, 420.0),
                new NodeHardwareStatus.GpuBoard(1, "NVIDIA L40S", 100.0, 350.0, 350.0, 210.0)), NodeHardwareStatus.Control.NVML, null));

        clock.advance(Duration.ofSeconds(1));
        agent.reconcile(NODE, true);
        assertThat(inventories).hasSize(1);
        profile(NODE, Profile.PERFORMANCE, NodePowerProfileSpec.CpuPower.watts(5000), NodePowerProfileSpec.GpuPower.percent(100));
        agent.reconcile(NODE, false);
        assertThat(inventories).hasSize(2);
        assertThat(inventories.getLast().gpu().devices()).extracting(NodeHardwareStatus.GpuBoard::limitWatts).containsExactly(700.0, 350.0);
    }

    @Test
    void aPoolAgentCapsSimulatedGpusOverHttpResolvingAPercentAgainstTheHardwareTheTelemetryDescribes() throws IOException {
        List<String> bodies = new CopyOnWriteArrayList<>();
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", ex -> {
            if ("GET".equals(ex.getRequestMethod())) {
                byte[] body = ("{\"gpu\":{\"devices\":[{\"index\":0,\"name\":\"sim-H100\",\"capWatts\":700,\"powerWatts\":300,"
                        + "\"energyJoules\":5}]},\"hardware\":{\"gpu\":{\"vendor\":\"nvidia\",\"model\":\"sim-H100\",\"devices\":"
                        + "[{\"index\":0,\"minWatts\":200,\"maxWatts\":700}]}}}").getBytes(StandardCharsets.UTF_8);
                ex.sendResponseHeaders(200, body.length);
                ex.getResponseBody().write(body);
            } else {
                bodies.add(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
                ex.sendResponseHeaders(200, -1);
            }
            ex.close();
        });
        server.start();
        try {
            AgentSettings pool = new AgentSettings(AgentMode.POOL, Optional.empty(), Duration.ofSeconds(1), HostRoots.under(root), true,
                    LabelSelector.parse(""), 1, 0, root.resolve("state"), 0, AgentSettings.DEFAULT_NVML_LIBRARY);
            NodeReconciler agent = assemble(pool, null, Inventory.remote());
            view.put(new NodeBuilder().withNewMetadata().withName("sim-1").endMetadata().build());
            String base = "http://127.0.0.1:" + server.getAddress().getPort();
            TelemetryProfile tp = new TelemetryProfile();
            tp.setMetadata(new ObjectMetaBuilder().withName("simulated").build());
            tp.setSpec(new TelemetryProfileSpec(new TelemetryProfileSpec.Target(TelemetryProfileSpec.Scope.CLUSTER, null),
                    new TelemetryProfileSpec.Sources(null, new TelemetryProfileSpec.Source(TelemetryProfileSpec.SourceType.HTTP,
                            new TelemetryProfileSpec.HttpEndpoint(base + "/telemetry/{node}", 2), null), null, null),
                    new TelemetryProfileSpec.Controls(new TelemetryProfileSpec.CpuControl(TelemetryProfileSpec.ControlType.NONE, null),
                            new TelemetryProfileSpec.GpuControl(TelemetryProfileSpec.ControlType.HTTP,
                                    new TelemetryProfileSpec.GpuHttpControl(base + "/control/{node}", 2, null)))));
            view.put(tp);
            profile("sim-1", Profile.ECO, NodePowerProfileSpec.CpuPower.watts(240), NodePowerProfileSpec.GpuPower.percent(60));
            agent.reconcile("sim-1", false);

            assertThat(bodies).singleElement().asString().contains("\"action\":\"gpu.set_power_cap_watts\"")
                    .contains("\"capWattsPerGpu\":420.0").contains("\"node\":\"sim-1\"");
            assertThat(gpuStatus().backend()).isEqualTo(GpuBackend.HTTP);
            assertThat(gpuStatus().result()).isEqualTo(ControlResult.APPLIED);
            assertThat(gpuStatus().devices()).containsExactly(new NodePowerProfileStatus.Device(0, "sim-H100", 700.0));
            assertThat(inventories.getLast().gpu().control()).isEqualTo(NodeHardwareStatus.Control.HTTP);
            assertThat(inventories.getLast().gpu().count()).isEqualTo(1);
        } finally {
            server.stop(0);
        }
    }

    /**
     * The twin's cluster mode gives the CPU and the GPU family the same telemetry endpoint: each periodic pass asks it
     * once, and its one answer gives the package power, the boards and the hardware the percent resolves against.
     */
    @Test
    void aPoolAgentAsksAnEndpointServingBothFamiliesOncePerPass() throws IOException {
        List<String> reads = new CopyOnWriteArrayList<>();
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", ex -> {
            if ("GET".equals(ex.getRequestMethod())) {
                reads.add(ex.getRequestURI().getPath());
                byte[] body = ("{\"packagePowerWatts\":180,\"gpu\":{\"devices\":[{\"index\":0,\"name\":\"sim-H100\",\"capWatts\":700,"
                        + "\"powerWatts\":300,\"energyJoules\":5}]},\"hardware\":{\"gpu\":{\"vendor\":\"nvidia\",\"model\":\"sim-H100\","
                        + "\"devices\":[{\"index\":0,\"minWatts\":200,\"maxWatts\":700}]}}}").getBytes(StandardCharsets.UTF_8);
                ex.sendResponseHeaders(200, body.length);
                ex.getResponseBody().write(body);
            } else {
                ex.getRequestBody().readAllBytes();
                ex.sendResponseHeaders(200, -1);
            }
            ex.close();
        });
        server.start();
        try {
            AgentSettings pool = new AgentSettings(AgentMode.POOL, Optional.empty(), Duration.ofSeconds(1), HostRoots.under(root), true,
                    LabelSelector.parse(""), 1, 0, root.resolve("state"), 0, AgentSettings.DEFAULT_NVML_LIBRARY);
            NodeReconciler agent = assemble(pool, null, Inventory.remote());
            view.put(new NodeBuilder().withNewMetadata().withName("sim-1").endMetadata().build());
            String base = "http://127.0.0.1:" + server.getAddress().getPort();
            TelemetryProfileSpec.Source telemetry = new TelemetryProfileSpec.Source(TelemetryProfileSpec.SourceType.HTTP,
                    new TelemetryProfileSpec.HttpEndpoint(base + "/telemetry/{node}", 2), null);
            TelemetryProfile tp = new TelemetryProfile();
            tp.setMetadata(new ObjectMetaBuilder().withName("simulated").build());
            tp.setSpec(new TelemetryProfileSpec(new TelemetryProfileSpec.Target(TelemetryProfileSpec.Scope.CLUSTER, null),
                    new TelemetryProfileSpec.Sources(telemetry, telemetry, null, null),
                    new TelemetryProfileSpec.Controls(new TelemetryProfileSpec.CpuControl(TelemetryProfileSpec.ControlType.HTTP,
                            new TelemetryProfileSpec.CpuHttpControl(base + "/control/{node}", 2, null)),
                            new TelemetryProfileSpec.GpuControl(TelemetryProfileSpec.ControlType.HTTP,
                                    new TelemetryProfileSpec.GpuHttpControl(base + "/control/{node}", 2, null)))));
            view.put(tp);
            profile("sim-1", Profile.ECO, NodePowerProfileSpec.CpuPower.watts(240), NodePowerProfileSpec.GpuPower.percent(60));

            agent.reconcile("sim-1", true);
            assertThat(reads).containsExactly("/telemetry/sim-1");
            assertThat(cpuStatus().observed()).containsEntry(Observed.PACKAGE_POWER_WATTS, 180.0);
            assertThat(gpuStatus().devices()).containsExactly(new NodePowerProfileStatus.Device(0, "sim-H100", 700.0));
            assertThat(inventories.getLast().gpu().count()).isEqualTo(1);

            agent.reconcile("sim-1", true);
            assertThat(reads).containsExactly("/telemetry/sim-1", "/telemetry/sim-1");
        } finally {
            server.stop(0);
        }
    }

    Path originalsFile() {
        return host.stateDir().resolve("originals.json");
    }

    /**
     * An agent killed with its eco cap in place (SIGKILL, OOM kill): the next agent process must not take that cap
     * for the original, or every later restore would put the eco cap back for good.
     */
    @Test
    void aCrashedAgentsSuccessorRestoresTheLimitsFoundBeforeTheFirstWrite() throws IOException {
        capAt240(true);
        assertThat(originalsFile()).as("kept before the first write").exists();
        // crash: no restore; the limits stay at 120 W

        NodeReconciler successor = agentProcess(true);
        assertThat(decisions.getLast()).startsWith("Using the originals an earlier agent process of this boot kept in "
                + originalsFile());
        successor.reconcile(NODE, false);
        assertThat(host.limit(0)).isEqualTo("120000000");

        ControlOutcome shutdown = controls.restoreOnExit().orElseThrow();
        assertThat(shutdown.result()).isEqualTo(ControlResult.RESTORED);
        assertThat(host.limit(0)).isEqualTo(ORIGINAL);
        assertThat(host.limit(1)).isEqualTo(ORIGINAL);
        assertThat(originalsFile()).as("removed after a restore that put everything back").doesNotExist();
    }

    @Test
    void aNodePowerProfileDeletedWhileNoAgentRanIsRestoredByTheNextOne() throws IOException {
        capAt240(true);
        view.profiles.remove(JoulieApi.nodePowerProfileName(NODE)); // while no agent runs

        NodeReconciler successor = agentProcess(true);
        successor.reconcile(NODE, false);
        assertThat(host.limit(0)).isEqualTo(ORIGINAL);
        assertThat(host.limit(1)).isEqualTo(ORIGINAL);
        assertThat(cpuStatus().message()).startsWith("NodePowerProfile deleted; restored the original long_term limits");
        assertThat(originalsFile()).doesNotExist();
        successor.reconcile(NODE, true);
        assertThat(written).as("nothing more to report").hasSize(2);
    }

    /** Package 0 set to 180 W by hand before the first agent, which then applied eco 240 W (120 W a package) and died. */
    void capAt240WithALimitSetByHand() throws IOException {
        host = FakeHost.intelNode(root, 2, 250);
        FakeHost.write(FakeHost.limitFile(host.intelZone(0)), "180000000"); // set by hand before the first agent
        NodeReconciler first = agentProcess(true);
        profile(NODE, Profile.ECO, 240.0);
        first.reconcile(NODE, false);
        assertThat(host.limit(0)).isEqualTo("120000000");
    }

    /** After a reboot the firmware has reset the limits: those are what must come back, not the file of the last boot. */
    @Test
    void afterARebootTheLimitsTheFirmwareSetAreTheOriginals() throws IOException {
        capAt240WithALimitSetByHand();

        host.reboot("6f1b3f0e-2d4c-4e0a-9d1e-000000000002"); // the agent died with the node; the firmware sets 200 W
        NodeReconciler next = agentProcess(true);
        assertThat(decisions.getLast()).contains("the node rebooted");
        assertThat(originalsFile()).as("the last boot's file is gone").doesNotExist();
        next.reconcile(NODE, false);
        assertThat(host.limit(0)).isEqualTo("120000000");
        controls.restoreOnExit();
        assertThat(host.limit(0)).as("the firmware's limit, not the 180 W of the last boot").isEqualTo(ORIGINAL);
    }

    /**
     * A kexec reboot (fleet fast-reboot, kdump): a new boot id, but the firmware did not run, so the agent's 120 W eco
     * cap is still in the RAPL registers. The next agent keeps the originals of the last boot, and its restore puts the
     * true originals back, not the eco cap.
     */
    @Test
    void afterAKexecRebootTheEcoCapStillInForceIsNotTakenForTheOriginal() throws IOException {
        capAt240WithALimitSetByHand();

        host.bootId("6f1b3f0e-2d4c-4e0a-9d1e-000000000002"); // kexec: the agent died with the old kernel, the limits stay
        NodeReconciler next = agentProcess(true);
        assertThat(decisions.getLast()).startsWith("The originals in " + originalsFile() + " are of boot " + FakeHost.FIRST_BOOT_ID
                + ", this is boot 6f1b3f0e-2d4c-4e0a-9d1e-000000000002; but the agent's last write is still in force "
                + "(intel-rapl:0 = 120000000, intel-rapl:1 = 120000000)");
        assertThat(originalsFile()).exists();
        next.reconcile(NODE, false);
        assertThat(controls.restoreOnExit().orElseThrow().result()).isEqualTo(ControlResult.RESTORED);
        assertThat(host.limit(0)).as("the limit found before the first write, not the eco cap").isEqualTo("180000000");
        assertThat(host.limit(1)).isEqualTo(ORIGINAL);
        assertThat(originalsFile()).doesNotExist();
    }

    /**
     * The boot id cannot be read (a procfs mount missing from the agent's pod): said at start, and the limits in force
     * decide. A crashed agent's eco cap still in force keeps the originals; after a real reboot the firmware's limits are
     * the originals.
     */
    @Test
    void withoutABootIdTheLimitsInForceTellACrashFromAReboot() throws IOException {
        capAt240(true);
        Path bootId = host.proc().resolve("sys/kernel/random/boot_id");
        java.nio.file.Files.delete(bootId);
        // crash: the eco cap stays
        NodeReconciler successor = agentProcess(true);
        assertThat(decisions).anySatisfy(line -> assertThat(line).isEqualTo("The kernel's boot id (" + bootId + ") cannot be read: "
                + "whether originals kept in " + host.stateDir() + " are still good is told by the limits in force alone"));
        assertThat(decisions.getLast()).contains("and the kernel's boot id cannot be read now")
                .contains("but the agent's last write is still in force");
        successor.reconcile(NODE, false);
        assertThat(host.limit(0)).isEqualTo("120000000");

        host.reboot("6f1b3f0e-2d4c-4e0a-9d1e-000000000002"); // the firmware sets 200 W again
        java.nio.file.Files.delete(bootId);
        NodeReconciler afterReboot = agentProcess(true);
        assertThat(decisions.getLast()).contains("none of the limits the agent last wrote").endsWith("the file was removed");
        afterReboot.reconcile(NODE, false);
        assertThat(host.limit(0)).isEqualTo("120000000");
        controls.restoreOnExit();
        assertThat(host.limit(0)).as("the firmware's limit").isEqualTo(ORIGINAL);
        assertThat(originalsFile()).doesNotExist();
    }

    /** DVFS fallback (RAPL not enforced): the cpufreq ceilings a crashed agent lowered come back too. */
    @Test
    void cpufreqCeilingsLoweredByACrashedAgentComeBack() throws IOException {
        host = FakeHost.intelNode(root, 2, 250);
        Path ceiling0 = host.cpufreqPolicy(0, 800_000, 3_500_000, 3_200_000);
        Path ceiling1 = host.cpufreqPolicy(1, 800_000, 3_500_000, 3_200_000);
        FakeHost.write(host.intelZone(0).resolve("enabled"), "0");
        NodeReconciler first = agentProcess(true);
        profile(NODE, Profile.ECO, 100.0);
        for (int reading = 0; reading < 3; reading++) { // 200 W measured, far above the band: the throttle goes up
            host.addEnergy(100_000_000L);
            clock.advance(Duration.ofSeconds(1));
            first.reconcile(NODE, true);
        }
        assertThat(cpuStatus().backend()).isEqualTo(CpuBackend.DVFS);
        assertThat(FakeHost.read(ceiling0).strip()).as("throttled").isEqualTo("800000");

        NodeReconciler successor = agentProcess(true); // the first one crashed
        successor.reconcile(NODE, false);
        controls.restoreOnExit();
        assertThat(FakeHost.read(ceiling0).strip()).isEqualTo("3200000");
        assertThat(FakeHost.read(ceiling1).strip()).isEqualTo("3200000");
        assertThat(host.limit(0)).isEqualTo(ORIGINAL);
        assertThat(originalsFile()).doesNotExist();
    }

    /** No write without its originals kept: a crash after it would otherwise make the agent's own cap pass for them. */
    @Test
    void nothingIsWrittenWhenTheOriginalsCannotBeKept() throws IOException {
        host = FakeHost.intelNode(root, 2, 250);
        FakeHost.write(host.stateDir(), "a file where the state directory should be");
        NodeReconciler agent = agentProcess(true);
        profile(NODE, Profile.ECO, 240.0);
        agent.reconcile(NODE, false);
        assertThat(cpuStatus().result()).isEqualTo(ControlResult.ERROR);
        assertThat(cpuStatus().message()).startsWith("the original limits cannot be kept in " + originalsFile());
        assertThat(host.limit(0)).isEqualTo(ORIGINAL);
        assertThat(host.limit(1)).isEqualTo(ORIGINAL);
    }

    @Test
    void anEcoCapAboveThePerformanceCapIsRefusedWithTheReason() throws IOException {
        NodeReconciler agent = nodeAgent(true);
        profile(NODE, Profile.PERFORMANCE, 300.0);
        agent.reconcile(NODE, false);
        assertThat(host.limit(0)).isEqualTo("150000000");

        profile(NODE, Profile.ECO, 400.0);
        agent.reconcile(NODE, false);
        assertThat(cpuStatus().result()).isEqualTo(ControlResult.BLOCKED);
        assertThat(cpuStatus().message()).isEqualTo("NodePowerProfile " + JoulieApi.nodePowerProfileName(NODE) + ": the eco cap 400 W "
                + "is above the performance cap 300 W this node had; eco must not allow more than performance; the previous limit stays");
        assertThat(host.limit(0)).isEqualTo("150000000");

        profile(NODE, Profile.ECO, 240.0);
        agent.reconcile(NODE, false);
        assertThat(cpuStatus().result()).isEqualTo(ControlResult.APPLIED);
        assertThat(host.limit(0)).isEqualTo("120000000");
    }

    /** Below the floor (10 W a package by default) nothing is written, and the status says why. */
    @Test
    void aCapBelowThePackageFloorIsBlockedAndTheLimitStays() throws IOException {
        NodeReconciler agent = capAt240(true);
        profile(NODE, Profile.ECO, 12.0);
        agent.reconcile(NODE, false);
        assertThat(cpuStatus().result()).isEqualTo(ControlResult.BLOCKED);
        assertThat(cpuStatus().message()).contains("node cap 12 W is 6 W per package, below the floor of 10 W per package");
        assertThat(host.limit(0)).isEqualTo("120000000");
        assertThat(host.limit(1)).isEqualTo("120000000");
    }
}
