package io.joulie.e2e.cluster;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.joulie.api.v1alpha1.JoulieApi;
import io.joulie.api.v1alpha1.NodeHardware;
import io.joulie.api.v1alpha1.NodeHardwareStatus;
import io.joulie.api.v1alpha1.NodePowerProfile;
import io.joulie.testkit.FakeHost;
import io.joulie.testkit.FakeNvml;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Scenario 14, what we ship on a real node: both images, built by {@code ./mvnw package} and imported into the
 * node's containerd under the names the manifests give them, installed with the README's command on a control plane
 * of their own whose one node is a real kubelet ({@link RealNode}). The kubelet runs the operator's probes and the
 * agent's security context, hostPath volumes, memory limit and termination; the agent finds its "hardware" (a
 * {@link FakeHost}: two RAPL packages of 400 W at most, 200 W found) where a server has it.
 */
@Order(14)
@ExtendWith({RealCluster.Extension.class, RealNodeIT.Condition.class})
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RealNodeIT {
    static final String NODE = RealNode.NAME;
    static final String NS = RealCluster.NAMESPACE;
    static final double PACKAGE_MAX_WATTS = 400;
    static RealCluster cluster;
    static RealNode node;
    static FakeHost host;

    /** {@code -De2e.realnode=skip} skips these scenarios explicitly (reported as skipped, with the reason). */
    static final class Condition implements org.junit.jupiter.api.extension.ExecutionCondition {
        @Override
        public org.junit.jupiter.api.extension.ConditionEvaluationResult evaluateExecutionCondition(
                org.junit.jupiter.api.extension.ExtensionContext context) {
            return "skip".equals(System.getProperty("e2e.realnode"))
                    ? org.junit.jupiter.api.extension.ConditionEvaluationResult.disabled("real-node scenarios skipped by -De2e.realnode=skip")
                    : org.junit.jupiter.api.extension.ConditionEvaluationResult.enabled("the real node is on");
        }
    }

    @BeforeAll
    static void start() throws Exception {
        cluster = RealCluster.start(RealCluster.workDir("control-plane-real-node"));
        host = FakeHost.intelNode(cluster.controlPlane.workDir().resolve("host-" + NODE), 2, (long) PACKAGE_MAX_WATTS);
        // the msr driver's device nodes, as a server has them (this VM has none): the node binds them over /dev/cpu
        host.msrDevice(0);
        host.msrDevice(1);
        node = RealNode.start(cluster.controlPlane, host, Images.archives());
        // the cluster's side of this node's networking, in force before the first Pod of the namespace
        cluster.kubectl(null, "create", "namespace", NS).ok();
        cluster.kubectl(RealNode.networkShim(NS, cluster.controlPlane), "apply", "-f", "-").ok();
        RealNode.awaitShim(cluster, NS);
        cluster.install().ok();
        // the one documented step of an admin's beyond the install: hand the node to Joulie
        cluster.kubectl(null, "label", "node", NODE, "joulie.io/managed=true").ok();
        cluster.policy("{\"reconcileInterval\":\"5s\",\"type\":\"static_partition\",\"staticHpFrac\":0.0}");
    }

    @AfterAll
    static void stop() {
        if (node != null) {
            node.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    static Optional<Pod> pod(String app) {
        return cluster.admin.pods().inNamespace(NS).withLabel("app.kubernetes.io/name", app).list().getItems().stream()
                .filter(p -> NODE.equals(p.getSpec().getNodeName()) && p.getMetadata().getDeletionTimestamp() == null).findFirst();
    }

    /** The app's Pod on the node, or an AssertionError (which an await retries) while there is none. */
    static Pod current(String app) {
        return pod(app).orElseThrow(() -> new AssertionError("no " + app + " Pod on " + NODE + " now"));
    }

    static boolean ready(Pod p) {
        return p.getStatus() != null && p.getStatus().getConditions() != null && p.getStatus().getConditions().stream()
                .anyMatch(c -> c.getType().equals("Ready") && c.getStatus().equals("True"));
    }

    static Pod awaitReady(String app) {
        await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> assertThat(pod(app).filter(RealNodeIT::ready)).as(app + " Pod Ready on " + NODE + "; "
                        + cluster.kubectl(null, "get", "pods", "-n", NS, "-o", "wide").output()).isPresent());
        return current(app);
    }

    static ContainerStatus container(Pod p) {
        return p.getStatus().getContainerStatuses().getFirst();
    }

    static void awaitLimits(long microwatts, String why) {
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
            for (int pkg = 0; pkg < host.packages(); pkg++) {
                assertThat(host.limit(pkg)).as("package %d: %s", pkg, why).isEqualTo(Long.toString(microwatts));
            }
        });
    }

    /**
     * The node leaves Joulie (its {@code joulie.io/managed} label removed): the DaemonSet controller deletes the agent
     * Pod, the runtime sends SIGTERM, and the agent puts back the limit it found.
     */
    static void leaveJoulie(String why) {
        cluster.kubectl(null, "label", "node", NODE, "joulie.io/managed-").ok();
        awaitLimits(FakeHost.ORIGINAL_LIMIT_UW, why);
    }

    /** The node is handed to Joulie again: an agent runs and caps it at eco, as the policy plans. */
    static void rejoinJoulie() {
        cluster.kubectl(null, "label", "node", NODE, "joulie.io/managed=true").ok();
        awaitReady("joulie-agent");
        awaitLimits(eco(), "eco again after the node came back");
    }

    /** Sends a signal to a process of the machine (a container's, seen from outside its PID namespace). */
    static void signal(long pid, String signal) throws IOException, InterruptedException {
        assertThat(new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start().waitFor())
                .as("kill -%s %d", signal, pid).isZero();
    }

    static long eco() {
        return Long.parseLong(host.expectedLimit(0, 2 * PACKAGE_MAX_WATTS * 60 / 100));
    }

    @Test
    @Order(1)
    void theOperatorStartsFromItsImageAndPassesItsProbes() {
        Pod operator = awaitReady("joulie-operator");
        ContainerStatus c = container(operator);
        assertThat(c.getImage()).contains("quay.io/joulie/joulie-operator:");
        assertThat(c.getRestartCount()).as("restarts of the operator container").isZero();
        assertThat(c.getStarted()).as("startup probe passed").isTrue();
        Instant started = Instant.parse(c.getState().getRunning().getStartedAt());
        Instant ready = Instant.parse(operator.getStatus().getConditions().stream().filter(x -> x.getType().equals("Ready"))
                .map(PodCondition::getLastTransitionTime).findFirst().orElseThrow());
        System.out.printf("real node: operator container start to Ready %d s (the kubelet's clock, 1 s resolution)%n",
                Duration.between(started, ready).toSeconds());
    }

    @Test
    @Order(2)
    void theAgentFromItsImageCapsTheHardwareAndPublishesIt() {
        Pod agent = awaitReady("joulie-agent");
        assertThat(container(agent).getImage()).contains("quay.io/joulie/joulie-agent:");
        Instant started = Instant.parse(container(agent).getState().getRunning().getStartedAt());
        awaitLimits(Long.parseLong(host.expectedLimit(0, 2 * PACKAGE_MAX_WATTS * 60 / 100)), "eco (60 %) as planned");
        System.out.printf("real node: agent container start to its first eco cap within %d s%n",
                Duration.between(started, Instant.now()).toSeconds());
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            NodeHardware nhw = cluster.admin.resources(NodeHardware.class).withName(JoulieApi.nodePowerProfileName(NODE)).get();
            assertThat(nhw).as("NodeHardware of " + NODE).isNotNull();
            assertThat(nhw.getStatus().cpu().packages()).extracting(NodeHardwareStatus.CpuPackage::maxWatts)
                    .containsExactly(PACKAGE_MAX_WATTS, PACKAGE_MAX_WATTS);
        });
        cluster.policy("{\"staticHpFrac\":1.0}");
        awaitLimits(Long.parseLong(host.expectedLimit(0, 2 * PACKAGE_MAX_WATTS)), "performance (100 %) as planned");
        cluster.policy("{\"staticHpFrac\":0.0}");
        awaitLimits(eco(), "eco again");
    }

    /** Where the agent writes (decision 128), in its container; and what it only reads. */
    static final String HOST_SYS = "/host/sys";
    static final String POWERCAP_WINDOW = "/host/sys/devices/virtual";
    static final String CPUFREQ_WINDOW = "/host/sys/devices/system/cpu/cpufreq";
    static final String STATE = "/var/lib/joulie";
    /** What the runtime and the kubelet mount into every container, writable or not: not the DaemonSet's doing. */
    static final List<String> RUNTIME_OWN = List.of("/dev", "/dev/pts", "/dev/mqueue", "/dev/shm", "/dev/termination-log",
            "/etc/hosts", "/etc/hostname", "/etc/resolv.conf");

    /**
     * The runtime's own: the list above, {@code /proc} and the files it masks there, the {@code emptyDir} at {@code /tmp},
     * and the tmpfs runc puts at the container's own {@code /sys/fs/cgroup} on cgroup v1 (private to the container, it
     * holds only the mount points of the hierarchies, which are read-only).
     */
    static boolean runtimeOwn(MountTable.Mount m) {
        return RUNTIME_OWN.contains(m.mountPoint()) || m.atOrBelow("/proc") || m.mountPoint().equals("/tmp")
                || m.mountPoint().equals("/sys/fs/cgroup") && m.type().equals("tmpfs");
    }

    static java.util.Set<String> writableAtOrBelow(List<MountTable.Mount> mounts, String path) {
        java.util.Set<String> out = new java.util.TreeSet<>();
        mounts.stream().filter(m -> m.atOrBelow(path) && !m.readOnly()).forEach(m -> out.add(m.mountPoint()));
        return out;
    }

    /** Where the node has {@code path} mounted, and what below it, as the container's mount points under {@code /host}. */
    static java.util.Set<String> nodeMountsAtOrBelow(MountTable nodeMounts, String path) {
        java.util.Set<String> out = new java.util.TreeSet<>();
        nodeMounts.visible().stream().filter(m -> m.atOrBelow(path)).forEach(m -> out.add("/host" + m.mountPoint()));
        return out;
    }

    /**
     * Least host privilege, read from the agent container's own mount table: the host's sysfs is read-only at
     * {@code /host/sys}, and the only writable mounts a path reaches, besides the runtime's own, are the two windows the
     * agent writes through (with what is mounted below them on the host) and its state directory. A runtime without
     * recursive read-only mounts (the Pod's status says which) leaves the file systems mounted below the host's
     * {@code /sys} writable inside the read-only one: those must be exactly the node's own. A write through each mount is
     * tried with access(2) through {@code /proc/<pid>/root}, which meets the mount flags as the agent would (EROFS).
     */
    @Test
    @Order(3)
    void theAgentCanWriteOnlyThroughItsTwoSysfsWindowsAndItsStateDirectory() throws IOException {
        Pod agent = awaitReady("joulie-agent");
        long pid = node.containerPid(agent).orElseThrow();
        MountTable container = MountTable.of(pid);
        MountTable nodeMounts = MountTable.of(node.containerdPid().orElseThrow());
        String rro = Optional.ofNullable(container(agent).getVolumeMounts()).orElse(List.of()).stream()
                .filter(m -> m.getMountPath().equals(HOST_SYS))
                .map(io.fabric8.kubernetes.api.model.VolumeMountStatus::getRecursiveReadOnly).findFirst().orElse(null);
        var handlers = cluster.admin.nodes().withName(NODE).get().getStatus().getRuntimeHandlers();
        System.out.printf("real node: %s recursiveReadOnly %s (runtime handlers: %s)%n", HOST_SYS, rro, handlers);

        System.out.println("real node: the agent container's mount table (/proc/" + pid + "/mountinfo), as judged:");
        List<String> unexpected = new ArrayList<>();
        java.util.Set<String> leftWritable = new java.util.TreeSet<>();
        List<MountTable.Mount> visible = container.visible();
        for (MountTable.Mount m : container.mounts()) {
            String verdict;
            if (!visible.contains(m)) {
                verdict = "hidden (a mount is stacked on it or on what it hangs on)";
            } else if (m.readOnly()) {
                verdict = "read-only";
            } else if (runtimeOwn(m)) {
                verdict = "writable: the runtime's own";
            } else if (m.atOrBelow(POWERCAP_WINDOW)) {
                verdict = "writable: the powercap window";
            } else if (m.atOrBelow(CPUFREQ_WINDOW)) {
                verdict = "writable: the cpufreq window";
            } else if (m.atOrBelow(STATE)) {
                verdict = "writable: the state directory";
            } else if (m.atOrBelow(HOST_SYS)) {
                verdict = "writable: mounted below the host's /sys, left writable by a read-only bind that is not recursive";
                leftWritable.add(m.mountPoint());
            } else {
                verdict = "WRITABLE AND NOT ALLOWED";
                unexpected.add(m.line());
            }
            System.out.printf("  %-100s  <- %s%n", m.line(), verdict);
        }
        assertThat(unexpected).as("writable mounts the agent does not need").isEmpty();
        assertThat(container.at(HOST_SYS).readOnly()).as(HOST_SYS + " read-only").isTrue();
        assertThat(container.at(HOST_SYS).type()).isEqualTo("sysfs");
        assertThat(container.at(POWERCAP_WINDOW).readOnly()).as(POWERCAP_WINDOW + " writable").isFalse();
        assertThat(container.at(CPUFREQ_WINDOW).readOnly()).as(CPUFREQ_WINDOW + " writable").isFalse();
        assertThat(container.at(STATE).readOnly()).as(STATE + " writable").isFalse();
        assertThat(container.at("/host/dev/cpu").readOnly()).isTrue();
        assertThat(container.at("/host/proc/cpuinfo").readOnly()).isTrue();
        assertThat(container.at("/host/proc/sys/kernel/random/boot_id").readOnly()).isTrue();
        assertThat(container.at("/").readOnly()).as("read-only root file system").isTrue();
        // each window is the node's directory with exactly what the node has mounted below it, all writable
        java.util.Set<String> powercapWindow = new java.util.TreeSet<>(nodeMountsAtOrBelow(nodeMounts, "/sys/devices/virtual"));
        powercapWindow.add(POWERCAP_WINDOW);
        java.util.Set<String> cpufreqWindow = new java.util.TreeSet<>(nodeMountsAtOrBelow(nodeMounts, "/sys/devices/system/cpu/cpufreq"));
        cpufreqWindow.add(CPUFREQ_WINDOW);
        assertThat(writableAtOrBelow(visible, POWERCAP_WINDOW)).as("the powercap window and what the node mounts below it")
                .isEqualTo(powercapWindow);
        assertThat(writableAtOrBelow(visible, CPUFREQ_WINDOW)).as("the cpufreq window and what the node mounts below it")
                .isEqualTo(cpufreqWindow);
        // the fake's powercap zones are reached through the writable window (a bind of the node's shadow of /sys/devices/virtual)
        assertThat(container.at(POWERCAP_WINDOW + "/powercap").root()).endsWith("/sys/devices/virtual/powercap");
        assertThat(container.at(POWERCAP_WINDOW + "/powercap").readOnly()).isFalse();

        // What a read-only bind that is not recursive leaves writable below /host/sys: exactly the file systems the node
        // has mounted below its /sys outside the two windows, and nothing where the runtime does recursive read-only.
        java.util.Set<String> nodeBelowSys = new java.util.TreeSet<>();
        for (MountTable.Mount m : nodeMounts.visible()) {
            if (m.atOrBelow("/sys") && !m.mountPoint().equals("/sys") && !m.readOnly() && !m.atOrBelow("/sys/devices/virtual")
                    && !m.atOrBelow("/sys/devices/system/cpu/cpufreq")) {
                nodeBelowSys.add("/host" + m.mountPoint());
            }
        }
        if ("Enabled".equals(rro)) {
            assertThat(leftWritable).as("recursive read-only: nothing below " + HOST_SYS + " writable").isEmpty();
        } else {
            assertThat(rro).as("the kubelet reports what became of IfPossible").isEqualTo("Disabled");
            assertThat(leftWritable).as("writable below " + HOST_SYS + " = the node's own mounts below /sys").isEqualTo(nodeBelowSys);
            System.out.printf("real node: without recursive read-only mounts, %d file systems mounted below the node's /sys "
                    + "stay writable inside %s: %s%n", leftWritable.size(), HOST_SYS, leftWritable);
        }

        // A write as the agent would meet it: access(2) through the container's root honours the mount flags (EROFS; not
        // for device nodes, which a read-only mount does not stop writing to, so none is tried here).
        Path root = Path.of("/proc/" + pid + "/root");
        java.util.Map<String, Boolean> expected = new java.util.LinkedHashMap<>();
        expected.put("/host/sys/class/powercap/intel-rapl:0/constraint_0_power_limit_uw", true);
        expected.put("/host/sys/devices/virtual/powercap/intel-rapl/intel-rapl:1/constraint_0_power_limit_uw", true);
        expected.put("/host/sys/devices/system/cpu/cpufreq", true);
        expected.put("/var/lib/joulie", true);
        expected.put("/host/sys/class/powercap", leftWritable.contains("/host/sys/class/powercap"));
        expected.put("/host/sys/devices/system/cpu/cpu0", false);
        expected.put("/host/sys/kernel", false);
        expected.put("/host/sys/module", false);
        expected.put("/host/proc/cpuinfo", false);
        java.util.Map<String, Boolean> writable = new java.util.LinkedHashMap<>();
        for (String path : expected.keySet()) {
            writable.put(path, Files.isWritable(root.resolve(path.substring(1))));
        }
        System.out.println("real node: writable through the agent's mounts: " + writable);
        assertThat(writable).containsExactlyEntriesOf(expected);
    }

    /**
     * The runtime's device cgroup refuses the agent the msr devices (EPERM) although they are mounted and it has
     * CAP_SYS_RAWIO: the agent says so where an admin looks (an Event on the Node, its NodeHardware, its label, its log)
     * and caps through powercap all the same. From outside the container the same device node is no refusal: this VM has
     * no msr driver (ENXIO), or, where it has, root opens it.
     */
    @Test
    @Order(3)
    void msrDevicesRefusedByTheRuntimeAreReportedAndCappingGoesOn() throws Exception {
        Pod agent = awaitReady("joulie-agent");
        try (var outside = new java.io.FileInputStream(host.dev().resolve("cpu/0/msr").toFile())) {
            System.out.println("real node: the fake msr device opens from outside the container (an msr driver is loaded)");
        } catch (IOException e) {
            System.out.println("real node: the fake msr device from outside the container: " + e.getMessage());
            assertThat(e.getMessage()).as("outside, no device cgroup refuses it").doesNotContain("Operation not permitted");
        }
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            List<io.fabric8.kubernetes.api.model.Event> events = cluster.admin.v1().events().inNamespace("default").list().getItems()
                    .stream().filter(e -> NODE.equals(e.getInvolvedObject().getName()) && "MsrUnavailable".equals(e.getReason())).toList();
            assertThat(events).as("MsrUnavailable Events on " + NODE).isNotEmpty().allSatisfy(e -> {
                assertThat(e.getType()).isEqualTo("Warning");
                assertThat(e.getMessage()).contains("open /host/dev/cpu/0/msr: EPERM (1, operation not permitted)",
                        "the container runtime's device cgroup does not allow /dev/cpu/*/msr", "capping goes on through powercap",
                        "privileged container", "device plugin");
            });
        });
        String event = cluster.admin.v1().events().inNamespace("default").list().getItems().stream()
                .filter(e -> "MsrUnavailable".equals(e.getReason())).map(io.fabric8.kubernetes.api.model.Event::getMessage)
                .findFirst().orElseThrow();
        System.out.println("real node: Event MsrUnavailable on " + NODE + ": " + event);
        NodeHardware nhw = cluster.admin.resources(NodeHardware.class).withName(JoulieApi.nodePowerProfileName(NODE)).get();
        System.out.println("real node: NodeHardware status.cpu: " + nhw.getStatus().cpu());
        assertThat(nhw.getStatus().cpu().message()).isEqualTo(event);
        assertThat(nhw.getStatus().cpu().control()).isEqualTo(NodeHardwareStatus.Control.POWERCAP);
        assertThat(nhw.getStatus().cpu().packages()).allSatisfy(p -> assertThat(p.tdpWatts()).as("no TDP without the MSR").isNull());
        assertThat(cluster.admin.nodes().withName(NODE).get().getMetadata().getLabels())
                .containsEntry("feature.joulie.io/msr", "false").containsEntry("feature.joulie.io/rapl-writable", "true");
        String log = cluster.kubectl(null, "logs", "-n", NS, agent.getMetadata().getName()).ok().output();
        String line = log.lines().filter(l -> l.contains("MSR: ")).findFirst().orElseThrow(() -> new AssertionError("no MSR line in\n" + log));
        System.out.println("real node: agent log: " + line.strip());
        assertThat(line).contains("WARN", "EPERM");
        var applied = cluster.admin.resources(NodePowerProfile.class).withName(JoulieApi.nodePowerProfileName(NODE)).get().getStatus()
                .applied();
        System.out.println("real node: NodePowerProfile status.applied.cpu: " + applied.cpu());
        assertThat(applied.cpu().backend()).isEqualTo("powercap");
        assertThat(applied.cpu().result()).isEqualTo(io.joulie.api.v1alpha1.ControlResult.APPLIED);
        awaitLimits(eco(), "still capped through powercap");
    }

    @Test
    @Order(4)
    void anAgentStoppedThroughTheRuntimePutsBackWhatItFound() {
        awaitReady("joulie-agent");
        awaitLimits(eco(), "eco");
        assertThat(node.agentStateDir().resolve("originals.json")).as("originals kept on the host").exists();
        // the node leaves Joulie: the DaemonSet controller deletes the agent Pod, the runtime sends SIGTERM
        leaveJoulie("back at the limit the agent found");
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(pod("joulie-agent")).isEmpty());
        assertThat(node.agentStateDir().resolve("originals.json")).as("kept originals removed after the restore").doesNotExist();
        rejoinJoulie();
    }

    @Test
    @Order(5)
    void anAgentKilledWithSigkillLeavesItsOriginalsToTheNextContainer() throws Exception {
        Pod agent = awaitReady("joulie-agent");
        awaitLimits(eco(), "eco");
        long pid = node.containerPid(agent).orElseThrow();
        signal(pid, "KILL");
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            Pod p = current("joulie-agent");
            assertThat(container(p).getRestartCount()).as("restarts after SIGKILL").isEqualTo(1);
            assertThat(container(p).getLastState().getTerminated().getExitCode()).isEqualTo(137);
            assertThat(ready(p)).isTrue();
        });
        assertThat(host.limit(0)).as("the eco cap the crash left").isEqualTo(Long.toString(eco()));
        String log = cluster.kubectl(null, "logs", "-n", NS, current("joulie-agent").getMetadata().getName()).ok().output();
        assertThat(log).contains("Using the originals an earlier agent process of this boot kept in /var/lib/joulie/originals.json");
        leaveJoulie("back at the limit the first agent found, not the crash's eco cap");
        rejoinJoulie();
    }

    @Test
    @Order(6)
    void aRollingUpdateOfTheAgentHandsTheNodeOverWithinItsRangeAndKeepsTheOriginals() throws Exception {
        Pod before = awaitReady("joulie-agent");
        awaitLimits(eco(), "eco");
        // every value the packages hold during the handover, sampled every 20 ms
        java.util.Set<String> seen = java.util.concurrent.ConcurrentHashMap.newKeySet();
        java.util.concurrent.atomic.AtomicBoolean sampling = new java.util.concurrent.atomic.AtomicBoolean(true);
        Thread sampler = Thread.ofPlatform().daemon().start(() -> {
            while (sampling.get()) {
                for (int pkg = 0; pkg < host.packages(); pkg++) {
                    seen.add(host.limit(pkg).strip());
                }
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        try {
            // a new agent setting: the DaemonSet's template changes and its controller replaces the Pod
            cluster.kubectl(null, "patch", "joulie", "joulie", "--type=merge", "-p", "{\"spec\":{\"agent\":{\"reconcileInterval\":\"10s\"}}}")
                    .ok();
            await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                Pod after = current("joulie-agent");
                assertThat(after.getMetadata().getUid()).isNotEqualTo(before.getMetadata().getUid());
                assertThat(after.getSpec().getContainers().getFirst().getEnv())
                        .anySatisfy(e -> assertThat(e.getName() + "=" + e.getValue()).isEqualTo("AGENT_RECONCILE_INTERVAL=10s"));
                assertThat(ready(after)).isTrue();
            });
            awaitLimits(eco(), "eco under the new agent");
        } finally {
            sampling.set(false);
            sampler.join();
        }
        System.out.println("real node: limits seen during the rolling update (µW): " + new java.util.TreeSet<>(seen));
        assertThat(seen).as("every limit the packages held during the handover: the one found or the planned one")
                .isSubsetOf(Long.toString(FakeHost.ORIGINAL_LIMIT_UW), Long.toString(eco()));
        // the originals survived the handover: leaving puts back what was found before Joulie's first write
        leaveJoulie("back at the limit found before the first agent");
        rejoinJoulie();
    }

    @Test
    @Order(7)
    void podSecurityBaselineRefusesTheAgentAndTheJoulieStatusSaysWhy() {
        awaitReady("joulie-agent");
        cluster.kubectl(null, "label", "namespace", NS, "pod-security.kubernetes.io/enforce=baseline", "--overwrite").ok();
        try {
            cluster.kubectl(null, "delete", "pod", "-n", NS, current("joulie-agent").getMetadata().getName()).ok();
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                var available = cluster.admin.resources(io.joulie.api.v1alpha1.Joulie.class).withName("joulie").get().getStatus()
                        .conditions().stream().filter(c -> c.getType().equals("Available")).findFirst().orElseThrow(() -> new AssertionError("no Available condition yet"));
                assertThat(available.getReason()).isEqualTo("AgentPodsRefused");
                assertThat(available.getMessage()).contains("violates PodSecurity", "baseline");
            });
            assertThat(pod("joulie-agent")).as("no agent Pod admitted").isEmpty();
            awaitLimits(FakeHost.ORIGINAL_LIMIT_UW, "the deleted agent put back what it found");
        } finally {
            cluster.kubectl(null, "label", "namespace", NS, "pod-security.kubernetes.io/enforce=privileged", "--overwrite").ok();
        }
        awaitReady("joulie-agent");
        awaitLimits(eco(), "eco again once admitted");
    }

    @Test
    @Order(8)
    void anOperatorThatStopsAnsweringIsRestartedByItsLivenessProbe() throws Exception {
        Pod operator = awaitReady("joulie-operator");
        long pid = node.containerPid(operator).orElseThrow(() -> new AssertionError("no process of the operator's container"));
        // frozen (SIGSTOP): its probes get no answer; the kubelet kills it after the liveness probe's failures
        signal(pid, "STOP");
        Instant frozen = Instant.now();
        await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
            Pod p = current("joulie-operator");
            assertThat(container(p).getRestartCount()).as("operator restarts").isEqualTo(1);
            assertThat(ready(p)).isTrue();
        });
        String events = cluster.kubectl(null, "get", "events", "-n", NS, "--field-selector",
                "involvedObject.name=" + operator.getMetadata().getName()).ok().output();
        assertThat(events).contains("Liveness probe failed").contains("will be restarted");
        System.out.printf("real node: frozen operator restarted and Ready again %d s later%n",
                Duration.between(frozen, Instant.now()).toSeconds());
    }

    @Test
    @Order(9)
    void bothPodsRunThroughPlanChurnAtTheirMemoryLimits() throws Exception {
        Pod operator = awaitReady("joulie-operator");
        Pod agent = awaitReady("joulie-agent");
        int operatorRestarts = container(operator).getRestartCount();
        long seconds = Long.getLong("e2e.realnode.churn.seconds", 60);
        Instant end = Instant.now().plusSeconds(seconds);
        int flips = 0;
        while (Instant.now().isBefore(end)) {
            cluster.policy("{\"staticHpFrac\":" + (flips++ % 2 == 0 ? "1.0" : "0.0") + "}");
            Thread.sleep(3000);
        }
        cluster.policy("{\"staticHpFrac\":0.0}");
        awaitLimits(eco(), "the last plan applied after the churn");
        for (Pod p : List.of(current("joulie-operator"), current("joulie-agent"))) {
            ContainerStatus c = container(p);
            String name = p.getMetadata().getLabels().get("app.kubernetes.io/name");
            assertThat(c.getRestartCount()).as(name + " restarts during the churn")
                    .isEqualTo(name.equals("joulie-operator") ? operatorRestarts : 0);
            assertThat(c.getLastState() == null || c.getLastState().getTerminated() == null
                    || name.equals("joulie-operator") && operatorRestarts > 0).as(name + " lastState " + c.getLastState()).isTrue();
            String limit = p.getSpec().getContainers().getFirst().getResources().getLimits().get("memory").toString();
            PodMemory m = PodMemory.of(p);
            System.out.printf("real node: %s over %d s of churn (%d plan changes) at its %s limit: peak %d MiB (cgroup "
                    + "memory.max_usage_in_bytes, page cache included), rss %d MiB, OOM kills %d%n", name, seconds, flips, limit,
                    m.peakBytes() >> 20, m.rssBytes() >> 20, m.oomKills());
            assertThat(m.oomKills()).as(name + " OOM kills in its cgroup").isZero();
        }
        assertThat(agent.getMetadata().getUid()).isEqualTo(current("joulie-agent").getMetadata().getUid());
    }

    /**
     * GPU capping where the NVIDIA runtime is not the node's (issue 23 item 2): {@code spec.agent} mounts the node's NVML
     * library from a host directory and points the agent at it ({@code volumes}, {@code volumeMounts}, {@code env}), and
     * annotates and labels its pods. Here the "driver" is the fake NVML (two H100s an admin had set to 650 W): the
     * agent's pods roll over, it reports the boards, caps them as planned, and puts back 650 W when the mount is taken
     * away again (the next rollover).
     */
    @Test
    @Order(10)
    void specAgentMountsAnNvmlLibraryFromTheHostAndTheBoardsAreCapped() {
        long found = 650_000;
        Path dir = cluster.controlPlane.workDir().resolve("nvml-" + NODE);
        FakeNvml nvml = FakeNvml.install(dir, List.of(FakeNvml.Board.h100().withLimitMw(found), FakeNvml.Board.h100().withLimitMw(found)));
        String before = awaitReady("joulie-agent").getMetadata().getUid();
        cluster.kubectl(null, "patch", "joulie", "joulie", "--type=merge", "-p", """
                {"spec": {"agent": {
                  "env": [{"name": "JOULIE_NVML_LIBRARY", "value": "/opt/nvml/libnvidia-ml.so.1"}],
                  "volumes": [{"name": "nvml", "hostPath": {"path": "%s", "type": "Directory"}}],
                  "volumeMounts": [{"name": "nvml", "mountPath": "/opt/nvml"}],
                  "podAnnotations": {"e2e.joulie.io/nvml": "hostPath"},
                  "podLabels": {"e2e.joulie.io/gpu": "nvml"}}}}""".formatted(dir)).ok();
        await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            Pod p = current("joulie-agent");
            assertThat(p.getMetadata().getUid()).as("a new agent pod").isNotEqualTo(before);
            assertThat(ready(p)).as("the new agent pod Ready").isTrue();
            assertThat(p.getMetadata().getAnnotations()).containsEntry("e2e.joulie.io/nvml", "hostPath");
            assertThat(p.getMetadata().getLabels()).containsEntry("e2e.joulie.io/gpu", "nvml");
        });
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            NodeHardware nhw = cluster.admin.resources(NodeHardware.class).withName(JoulieApi.nodePowerProfileName(NODE)).get();
            assertThat(nhw.getStatus().gpu()).as("the boards, found through the mounted library").isNotNull();
            assertThat(nhw.getStatus().gpu().control()).isEqualTo(NodeHardwareStatus.Control.NVML);
            assertThat(nhw.getStatus().gpu().devices()).extracting(NodeHardwareStatus.GpuBoard::maxWatts).containsExactly(700.0, 700.0);
            var applied = cluster.admin.resources(NodePowerProfile.class).withName(JoulieApi.nodePowerProfileName(NODE)).get()
                    .getStatus().applied();
            assertThat(applied.gpu()).as("the agent's GPU answer").isNotNull();
            assertThat(applied.gpu().backend()).isEqualTo("nvml");
            assertThat(applied.gpu().result()).isEqualTo(io.joulie.api.v1alpha1.ControlResult.APPLIED);
            for (int board = 0; board < 2; board++) {
                assertThat(nvml.limitMw(board)).as("GPU %d capped below what it had, within its range", board)
                        .isLessThan(found).isGreaterThanOrEqualTo(200_000);
            }
        });
        System.out.printf("real node: GPU boards capped through the host's NVML library at %d and %d mW%n", nvml.limitMw(0), nvml.limitMw(1));
        cluster.kubectl(null, "patch", "joulie", "joulie", "--type=merge", "-p",
                "{\"spec\": {\"agent\": {\"env\": null, \"volumes\": null, \"volumeMounts\": null, \"podAnnotations\": null, "
                        + "\"podLabels\": null}}}").ok();
        await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            Pod p = current("joulie-agent");
            assertThat(p.getMetadata().getAnnotations()).doesNotContainKey("e2e.joulie.io/nvml");
            assertThat(ready(p)).isTrue();
            for (int board = 0; board < 2; board++) {
                assertThat(nvml.limitMw(board)).as("GPU %d back at the limit the agent found", board).isEqualTo(found);
            }
        });
        awaitLimits(eco(), "the CPU packages still at eco");
    }

    /**
     * GPU capping through a RuntimeClass (issue 23 item 2), where the NVIDIA runtime is a RuntimeClass and not the
     * node's default: {@code spec.agent.runtimeClassName} puts the agent's pods under the node's {@code nvidia} handler
     * ({@link RealNode#nvidiaRuntime}, a stand-in for the NVIDIA container runtime that gives a container asking for GPUs
     * the driver's library directory on its library path), and the agent finds NVML by its plain name as it does on a
     * GPU Operator node. Two L40S an admin had set to 300 W: capped as planned, and back at 300 W once the agent runs
     * without the RuntimeClass again.
     */
    @Test
    @Order(11)
    void specAgentRuntimeClassGivesTheAgentTheNvidiaRuntimesNvml() {
        long found = 300_000;
        FakeNvml nvml = FakeNvml.install(node.nvidiaDriverDir(), List.of(FakeNvml.Board.l40s().withLimitMw(found),
                FakeNvml.Board.l40s().withLimitMw(found)));
        cluster.kubectl("""
                apiVersion: node.k8s.io/v1
                kind: RuntimeClass
                metadata: {name: nvidia}
                handler: %s
                """.formatted(RealNode.NVIDIA_HANDLER), "apply", "-f", "-").ok();
        String before = awaitReady("joulie-agent").getMetadata().getUid();
        cluster.kubectl(null, "patch", "joulie", "joulie", "--type=merge", "-p", "{\"spec\": {\"agent\": {\"runtimeClassName\": \"nvidia\"}}}").ok();
        await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            Pod p = current("joulie-agent");
            assertThat(p.getMetadata().getUid()).as("a new agent pod").isNotEqualTo(before);
            assertThat(p.getSpec().getRuntimeClassName()).isEqualTo("nvidia");
            assertThat(ready(p)).as("the agent pod under the nvidia RuntimeClass Ready").isTrue();
        });
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            NodeHardware nhw = cluster.admin.resources(NodeHardware.class).withName(JoulieApi.nodePowerProfileName(NODE)).get();
            assertThat(nhw.getStatus().gpu()).as("the boards, found through the runtime's NVML").isNotNull();
            assertThat(nhw.getStatus().gpu().control()).isEqualTo(NodeHardwareStatus.Control.NVML);
            assertThat(nhw.getStatus().gpu().devices()).extracting(NodeHardwareStatus.GpuBoard::maxWatts).containsExactly(350.0, 350.0);
            for (int board = 0; board < 2; board++) {
                assertThat(nvml.limitMw(board)).as("L40S %d capped below what it had, within its range", board)
                        .isLessThan(found).isGreaterThanOrEqualTo(100_000);
            }
        });
        System.out.printf("real node: GPU boards capped through the RuntimeClass's NVML at %d and %d mW%n", nvml.limitMw(0), nvml.limitMw(1));
        cluster.kubectl(null, "patch", "joulie", "joulie", "--type=merge", "-p", "{\"spec\": {\"agent\": {\"runtimeClassName\": null}}}").ok();
        await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            Pod p = current("joulie-agent");
            assertThat(p.getSpec().getRuntimeClassName()).isNull();
            assertThat(ready(p)).isTrue();
            for (int board = 0; board < 2; board++) {
                assertThat(nvml.limitMw(board)).as("L40S %d back at the limit the agent found", board).isEqualTo(found);
            }
        });
        awaitLimits(eco(), "the CPU packages still at eco");
    }

    /** A Pod's memory as the kubelet's cgroup (v1) counts it. */
    record PodMemory(long peakBytes, long rssBytes, long oomKills) {
        static PodMemory of(Pod p) throws IOException {
            Path root = Path.of("/sys/fs/cgroup/memory/kubepods");
            String name = "pod" + p.getMetadata().getUid();
            Path dir;
            try (var walk = Files.walk(root, 3)) {
                dir = walk.filter(d -> d.getFileName().toString().equals(name)).findFirst()
                        .orElseThrow(() -> new AssertionError("no memory cgroup " + name + " under " + root));
            }
            long peak = Long.parseLong(Files.readString(dir.resolve("memory.max_usage_in_bytes")).strip());
            long rss = stat(dir.resolve("memory.stat"), "total_rss");
            long kills = stat(dir.resolve("memory.oom_control"), "oom_kill");
            return new PodMemory(peak, rss, kills);
        }

        static long stat(Path file, String key) throws IOException {
            return Files.readAllLines(file).stream().map(l -> l.split(" ")).filter(f -> f[0].equals(key))
                    .mapToLong(f -> Long.parseLong(f[1])).findFirst().orElse(0);
        }
    }
}
